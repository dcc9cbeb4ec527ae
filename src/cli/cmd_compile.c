/* cmd_compile.c - 'loomc compile KERNEL.py --arch NAME --shape ...': schedule
 * a kernel's launches for a chip without tuning and report the decision -
 * the mapping, every symbol's value and the predicted cycles - as text, with
 * --explain the reasons, with --json one JSON object, and with -o a plan
 * file that `loomc run --schedule` replays. Everything printed is
 * deterministic except the JSON member compile_seconds. */
#include "cli/cli.h"
#include "driver/driver.h"
#include "solve/mzn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { C_HELP, C_TOP, C_JSON, C_EXPLAIN, C_O, C_NODE_LIMIT, C_NO_FUSE, C_EMIT_MZN, C_SOLVER };

static const cli_option compile_opts[] = {
    {"--arch", CLI_SHARED, 0, "NAME|FILE", NULL, 0, 0,
     "the chip: a name on the search path (loomc arch --list) or a\nYAML file", 0},
    {"--shape", CLI_SHARED, 0, "NAME=N,...", NULL, 0, 0,
     "values of the launch spec's sizes (all are required)", 0},
    {"--const", CLI_SHARED, 0, "NAME=N", NULL, 0, 0,
     "set an option of the launch spec, or pin a free constexpr\n(the scheduler then keeps that value); repeatable", 0},
    {"--kernel", CLI_SHARED, 0, "NAME", NULL, 0, 0,
     "the launch spec to use, or a kernel it launches", 0},
    {"--top", CLI_COUNT, C_TOP, "K", NULL, 1, 1000,
     "also list the K best schedules across candidates", 0},
    {"--json", CLI_FLAG, C_JSON, NULL, NULL, 0, 0,
     "print one JSON object: the plan, candidate counts, the top\n"
     "schedules and compile_seconds (the only non-deterministic member)", 0},
    {"--explain", CLI_FLAG, C_EXPLAIN, NULL, NULL, 0, 0,
     "why: each symbol's value and what one step either way would\n"
     "do, constraints and their slack, latency terms, the runner-up", 0},
    {"-o", CLI_VALUE, C_O, "PLAN.json", NULL, 0, 0,
     "write the chosen schedule as a plan file", 0},
    {"--node-limit", CLI_COUNT, C_NODE_LIMIT, "N", "2000000", 1, (int64_t)1 << 40,
     "solver effort per candidate, in search nodes (default 2000000)", 0},
    {"--no-fuse", CLI_FLAG, C_NO_FUSE, NULL, NULL, 0, 0,
     "do not fuse a launch with the next one that consumes its\n"
     "output block by block (docs/scheduler.md, Fused launch pairs)", 0},
    {"--emit-mzn", CLI_VALUE, C_EMIT_MZN, "DIR", NULL, 0, 0,
     "write each candidate's problem as a MiniZinc model (+ data file)", 0},
    {"--solver", CLI_VALUE, C_SOLVER, "S", "builtin", 0, 0,
     "builtin (default), or minizinc[:ID]: solve every candidate by\n"
     "running the minizinc executable (Gecode unless ID names another\n"
     "installed solver) and pick the best the same way", 0},
    {"--help", CLI_FLAG, C_HELP, NULL, NULL, 0, 0,
     "show this text", 0},
    {"-h", CLI_FLAG, C_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command compile_cmd = {
    "compile",
    "usage: loomc compile KERNEL.py --arch NAME|FILE --shape NAME=N[,NAME=N...] [--const NAME=N]...\n"
    "                     [--kernel NAME] [--top K] [--json] [--explain] [-o PLAN.json]\n"
    "                     [--emit-mzn DIR] [--solver builtin|minizinc[:ID]] [--no-fuse]\n"
    "\n"
    "Schedule the launches of KERNEL.py for a chip without profiling: enumerate the\n"
    "mappings of program axes onto the core grid and the transports of each loaded\n"
    "block (DRAM, multicast, forwarding), drop dominated ones, derive each one's\n"
    "constraints and latency from the hardware description, solve for the block\n"
    "sizes, grid, buffer depths and matmul sub-block exactly, and report the best\n"
    "(docs/scheduler.md).\n"
    "\n"
    "options:\n",
    23, compile_opts, (int)LM_COUNT(compile_opts),
    "\n"
    "exit status: 0 success, 1 bad input or no schedule fits (the message names the\n"
    "constraint), 2 internal error.\n"};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool is_size(const fe_spec *spec, const sym_expr *v)
{
    for (int i = 0; i < spec->nsizes; i++)
        if (spec->sizes[i].var == v)
            return true;
    return false;
}

/* The schedule's symbols other than the launch sizes, as NAME=V. */
static void print_values(lm_buf *b, const fe_spec *spec, const sched_schedule *sc)
{
    for (int i = 0; i < sc->values.n; i++) {
        if (is_size(spec, sc->values.b[i].var))
            continue;
        lm_buf_printf(b, " %s=%lld", sc->values.b[i].var->name, (long long)sc->values.b[i].lo);
    }
}

static void json_values(lm_buf *b, const fe_spec *spec, const sched_schedule *sc)
{
    lm_buf_putc(b, '{');
    bool first = true;
    for (int i = 0; i < sc->values.n; i++) {
        if (is_size(spec, sc->values.b[i].var))
            continue;
        lm_buf_printf(b, "%s\"%s\": %lld", first ? "" : ", ", sc->values.b[i].var->name, (long long)sc->values.b[i].lo);
        first = false;
    }
    lm_buf_putc(b, '}');
}

/* One problem written as DIR/NAME.mzn and NAME.dzn: `hdr` says which
 * candidate(s) it is; the header adds how to run it and loomc's optimum. */
static bool write_model(const solve_problem *p, const char *dir, const char *name, lm_buf *hdr, const char *what,
                        lm_arena *ar)
{
    solve_solution a[1] = {{0}};
    int na = 0;
    solve_status sa = solve_run(p, NULL, a, &na, NULL, NULL);
    lm_buf_printf(hdr, "run: minizinc --solver gecode %s.mzn %s.dzn\n", name, name);
    if (sa == SOLVE_OPTIMAL)
        lm_buf_printf(hdr, "loomc's optimum for this problem: %lld cycles", (long long)a[0].objective);
    else
        lm_buf_puts(hdr, "loomc's solver finds no schedule for this problem");
    lm_buf why = {0}, mb = {0}, dzn = {0};
    mzn_options mo = {.dzn = &dzn};
    if (sa == SOLVE_OPTIMAL)
        mo.known = a[0].values, mo.known_objective = a[0].objective;
    bool ok = mzn_write_model(&mb, p, lm_buf_str(hdr), &mo, &why);
    if (!ok)
        cli_error("compile", "%s: %s", what, lm_buf_str(&why));
    const char *paths[2] = {lm_arena_printf(ar, "%s/%s.mzn", dir, name), lm_arena_printf(ar, "%s/%s.dzn", dir, name)};
    const lm_buf *texts[2] = {&mb, &dzn};
    for (int f = 0; f < 2 && ok; f++) {
        FILE *fp = fopen(paths[f], "w");
        bool w = fp && fputs(lm_buf_str(texts[f]), fp) >= 0;
        if (fp && fclose(fp))
            w = false;
        if (!w) {
            cli_error("compile", "cannot write '%s': %s", paths[f], strerror(errno));
            ok = false;
        }
    }
    lm_buf_free(&mb);
    lm_buf_free(&dzn);
    lm_buf_free(&why);
    solve_free_solutions(a, na);
    return ok;
}

static void bound_line(lm_buf *hdr, const sched_job *job)
{
    for (int v = 0; job->bound && v < job->bound->n; v++)
        lm_buf_printf(hdr, "%s%s=%lld", v ? " " : "bound: ", job->bound->b[v].var->name,
                      (long long)job->bound->b[v].lo);
    lm_buf_putc(hdr, '\n');
}

/* --emit-mzn: each surviving candidate's problem, and each fused pair's
 * joint problem, written as a MiniZinc model and data file, with a header
 * saying which it is, how to run it and loomc's optimum for it; a one-line
 * summary goes to *note. */
static bool emit_models(drv_result *r, const arch_desc *arch, const char *kfile, const char *dir, lm_buf *note)
{
    const drv_sched *ds = r->sched;
    const sched_job *job = &ds->job;
    int nl = job->nlaunches, written = 0, pairs = 0;
    bool ok = true;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("compile", "cannot make '%s': %s", dir, strerror(errno));
        return false;
    }
    lm_diag d;
    lm_diag_init(&d, stderr);
    const char *shared = "the launches' shared constexprs are free here; loomc's own search fixes them "
                         "for all launches at once\n";
    for (int l = 0; l < nl && ok; l++) {
        /* the same prefix and model as sched_select */
        const char *prefix = sched_launch_prefix(job, l, &r->arena);
        for (int i = 0; i < job->cands[l].n && ok; i++) {
            if (job->cands[l].c[i].fuse != SCHED_FUSE_NONE)
                continue; /* a fused pair is one problem of two launches (below) */
            sched_model m;
            if (!sched_model_build(&m, job->k[l], &job->cands[l].c[i], arch, job->bound, prefix, r->sym, &r->arena,
                                   &d))
                return false;
            const char *label = job->cands[l].c[i].label;
            lm_buf hdr = {0};
            lm_buf_printf(&hdr, "loomc compile %s --arch %s: launch %d (%s), candidate %d of %d\n", kfile, arch->name,
                          job->k[l]->launch, job->k[l]->name, i, job->cands[l].n);
            lm_buf_printf(&hdr, "mapping: %s\n", label);
            bound_line(&hdr, job);
            if (nl > 1)
                lm_buf_puts(&hdr, shared);
            const char *what = lm_arena_printf(&r->arena, "candidate %d (%s) of %s", i, label, job->k[l]->name);
            ok = write_model(&m.problem, dir, lm_arena_printf(&r->arena, "%s-c%d", job->k[l]->name, i), &hdr, what,
                             &r->arena);
            written += ok;
            lm_buf_free(&hdr);
        }
    }
    for (int u = 0; u < job->nfusions && ok; u++) {
        const sched_fusion *f = &job->fusion[u];
        int la = f->producer, lb = f->consumer;
        for (int i = 0; i < job->cands[la].n && ok; i++)
            for (int j = 0; j < job->cands[lb].n && ok; j++) {
                const sched_candidate *ci = &job->cands[la].c[i], *cj = &job->cands[lb].c[j];
                if (!sched_fused_pair(f, ci, cj))
                    continue;
                solve_problem p;
                sched_model ms[2];
                if (!sched_fused_problem(&p, ms, job, f, i, j, r->sym, &r->arena, &d))
                    return false;
                lm_buf hdr = {0};
                lm_buf_printf(&hdr,
                              "loomc compile %s --arch %s: launches %d (%s) and %d (%s) fused, candidates %d and %d\n",
                              kfile, arch->name, job->k[la]->launch, job->k[la]->name, job->k[lb]->launch,
                              job->k[lb]->name, i, j);
                lm_buf_printf(&hdr, "mapping: %s | %s\n", ci->label, cj->label);
                bound_line(&hdr, job);
                lm_buf_puts(&hdr, shared);
                const char *name =
                    lm_arena_printf(&r->arena, "%s-c%d+%s-c%d", job->k[la]->name, i, job->k[lb]->name, j);
                ok = write_model(&p, dir, name, &hdr, lm_arena_printf(&r->arena, "the fused pair %s", name),
                                 &r->arena);
                pairs += ok;
                lm_buf_free(&hdr);
            }
    }
    if (ok) {
        lm_buf_printf(note, "MiniZinc models written to %s: %d, one per candidate", dir, written + pairs);
        if (job->nfusions)
            lm_buf_printf(note, " (%d of them fused pairs, one per pair)", pairs);
        lm_buf_putc(note, '\n');
    }
    return ok;
}

int cli_compile(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "compile", "missing --arch NAME|FILE (the chip to schedule for)", &a);
    const char *out_path = NULL, *mzn_dir = NULL, *mzn_solver = NULL;
    bool json = false, explain = false, no_fuse = false;
    int64_t top = 0, node_limit = 0;
    int rc = LOOMC_EUSER;
    arch_desc *arch = NULL;
    ko.table = &compile_cmd;
    for (int i = 1; i < argc; i++) {
        const cli_option *opt = NULL;
        const char *val = NULL;
        int64_t count = 0;
        cli_take t = cli_table_opt(&compile_cmd, argc, argv, &i, &opt, &val, &count);
        if (t == CLI_OTHER)
            t = cli_kernel_opt(&ko, argc, argv, &i);
        else if (t == CLI_TAKEN && opt->id == C_HELP) {
            cli_help_print(stdout, &compile_cmd);
            rc = LOOMC_OK;
            goto out;
        } else if (t == CLI_TAKEN) {
            switch (opt->id) {
            case C_JSON:
                json = true;
                break;
            case C_EXPLAIN:
                explain = true;
                break;
            case C_NO_FUSE:
                no_fuse = true;
                break;
            case C_TOP:
                top = count;
                break;
            case C_NODE_LIMIT:
                node_limit = count;
                break;
            case C_EMIT_MZN:
                mzn_dir = val;
                break;
            case C_SOLVER:
                if (!strcmp(val, "builtin")) {
                    mzn_solver = NULL;
                } else if (!strncmp(val, "minizinc", 8) && (val[8] == 0 || (val[8] == ':' && val[9]))) {
                    mzn_solver = val[8] ? val + 9 : "gecode";
                } else {
                    cli_usage_error("compile", "--solver must be builtin, minizinc or minizinc:ID, got '%s'", val);
                    goto out;
                }
                break;
            case C_O:
                if (out_path) {
                    cli_usage_error("compile", "-o is given twice");
                    goto out;
                }
                out_path = val;
                break;
            }
        }
        if (t == CLI_BAD)
            goto out;
        if (t == CLI_OTHER && !cli_kernel_arg(&ko, argv[i]))
            goto out;
    }
    if (!cli_kernel_complete(&ko))
        goto out;
    const char *path = ko.path;

    double t0 = now_seconds();
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch = arch_load(ko.arch, &d);
    if (!arch)
        goto out;
    drv_opts o;
    cli_kernel_drv_opts(&ko, &o);
    drv_result r;
    drv_sched_opts so = {.arch = arch, .top_k = (int)(top > 0 ? top : 1), .node_limit = node_limit,
                         .mzn_solver = mzn_solver, .no_fuse = no_fuse};
    if (drv_compile(&r, &o, &d) && drv_schedule(&r, &so, &d)) {
        double secs = now_seconds() - t0;
        const drv_sched *ds = r.sched;
        const sched_result *res = &ds->result;
        const fe_spec *spec = r.spec;
        lm_buf mzn_note = {0};
        if (mzn_dir && !emit_models(&r, arch, path, mzn_dir, &mzn_note)) {
            lm_buf_free(&mzn_note);
            drv_free(&r);
            goto out;
        }

        /* the plan */
        sched_plan_kv *sk = LM_NEWN(&a, sched_plan_kv, ko.shapes.len + 1);
        for (size_t i = 0; i < ko.shapes.len; i++)
            sk[i] = (sched_plan_kv){ko.shapes.items[i].name, ko.shapes.items[i].value};
        sched_plan_kv *ck = LM_NEWN(&a, sched_plan_kv, ko.consts.len + 1);
        for (size_t i = 0; i < ko.consts.len; i++)
            ck[i] = (sched_plan_kv){ko.consts.items[i].name, ko.consts.items[i].value};
        sched_plan plan;
        sched_plan_from(&plan, &ds->job, res, path, spec->name, sk, (int)ko.shapes.len, ck, (int)ko.consts.len, &r.arena);
        double flops = 0;
        bool have_flops = sched_job_flops(&ds->job, &res->top[0], &flops) && flops > 0;
        double us = (double)res->cycles / (arch->clock_ghz * 1000.0);

        lm_buf b = {0};
        if (json) {
            lm_buf x = {0};
            lm_buf_printf(&x, "  \"predicted_us\": %.3f,\n  \"tflops\": %.3f,\n", us,
                          have_flops ? flops / (us * 1e6) : 0.0);
            lm_buf_printf(&x,
                          "  \"candidates\": {\"enumerated\": %d, \"legal\": %d, \"pruned\": %d, \"solved\": %d, "
                          "\"feasible\": %d, \"limited\": %d, \"solver_nodes\": %lld},\n",
                          res->enumerated, res->legal, res->pruned, res->combos, res->feasible, res->limited,
                          (long long)res->nodes);
            lm_buf_puts(&x, "  \"top\": [");
            for (int t = 0; t < res->ntop; t++) {
                sched_schedule tmp[SCHED_MAX_LAUNCHES];
                memset(tmp, 0, sizeof tmp);
                sched_choice_schedules(&ds->job, &res->top[t], tmp, r.sym);
                lm_buf_printf(&x, "%s\n    {\"rank\": %d, \"cycles\": %lld, \"launches\": [", t ? "," : "", t + 1,
                              (long long)res->top[t].cycles);
                for (int l = 0; l < ds->job.nlaunches; l++) {
                    lm_buf_printf(&x, "%s{\"kernel\": \"%s\", \"mapping\": \"%s\", \"values\": ", l ? ", " : "",
                                  ds->job.k[l]->name, tmp[l].cand.label);
                    json_values(&x, spec, &tmp[l]);
                    lm_buf_putc(&x, '}');
                    sym_env_free(&tmp[l].values);
                }
                lm_buf_puts(&x, "]}");
            }
            lm_buf_puts(&x, "\n  ],\n");
            if (mzn_dir && res->ntop > 0)
                lm_buf_printf(&x, "  \"mzn_objective\": %lld,\n",
                              (long long)mzn_objective(&res->top[0].problem, NULL, res->cycles));
            if (mzn_solver)
                lm_buf_printf(&x, "  \"solver\": \"minizinc:%s\",\n  \"minizinc_runs\": %d,\n", mzn_solver,
                              res->mzn_runs);
            lm_buf_printf(&x, "  \"compile_seconds\": %.6f", secs);
            sched_plan_write_json(&b, &plan, lm_buf_str(&x));
            lm_buf_free(&x);
        } else {
            lm_buf_printf(&b, "compile %s (%s) for %s:", spec->name, path, arch->name);
            for (size_t i = 0; i < ko.shapes.len; i++)
                lm_buf_printf(&b, " %s=%lld", ko.shapes.items[i].name, (long long)ko.shapes.items[i].value);
            for (size_t i = 0; i < ko.consts.len; i++)
                lm_buf_printf(&b, " %s=%lld", ko.consts.items[i].name, (long long)ko.consts.items[i].value);
            lm_buf_printf(&b, "\ncandidates: %d enumerated, %d legal, %d pruned as dominated; %d problems solved, "
                              "%d with a schedule within the bound, %d at the effort limit\n",
                          res->enumerated, res->legal, res->pruned, res->combos, res->feasible, res->limited);
            for (int l = 0; l < ds->job.nlaunches; l++) {
                const sched_schedule *sc = &res->best[l];
                lm_buf_printf(&b, "launch %d, %s: %s\n ", sc->k->launch, sc->k->name, sc->cand.label);
                print_values(&b, spec, sc);
                lm_buf_printf(&b, "\n  predicted %lld cycles\n", (long long)sc->predicted_cycles);
            }
            lm_buf_printf(&b, "predicted: %lld cycles = %.2f us at %.2f GHz", (long long)res->cycles, us,
                          arch->clock_ghz);
            if (have_flops)
                lm_buf_printf(&b, "; %.2f TFLOP/s", flops / (us * 1e6));
            lm_buf_putc(&b, '\n');
            if (top > 0) {
                lm_buf_printf(&b, "top %d:\n", res->ntop);
                for (int t = 0; t < res->ntop; t++) {
                    sched_schedule tmp[SCHED_MAX_LAUNCHES];
                    memset(tmp, 0, sizeof tmp);
                    sched_choice_schedules(&ds->job, &res->top[t], tmp, r.sym);
                    lm_buf_printf(&b, "  %d. %lld cycles\n", t + 1, (long long)res->top[t].cycles);
                    for (int l = 0; l < ds->job.nlaunches; l++) {
                        lm_buf_printf(&b, "     %s: %s\n       ", ds->job.k[l]->name, tmp[l].cand.label);
                        print_values(&b, spec, &tmp[l]);
                        lm_buf_putc(&b, '\n');
                        sym_env_free(&tmp[l].values);
                    }
                }
            }
            lm_buf_puts(&b, lm_buf_str(&mzn_note));
            if (explain) {
                lm_buf_putc(&b, '\n');
                sched_explain(&b, &ds->job, res, r.sym, &r.arena);
            }
        }
        bool wrote = true;
        if (out_path) {
            lm_buf pb = {0};
            sched_plan_write(&pb, &plan);
            FILE *f = fopen(out_path, "w");
            bool ok = f && fputs(lm_buf_str(&pb), f) >= 0;
            if (f && fclose(f))
                ok = false;
            if (!ok) {
                cli_error("compile", "cannot write '%s': %s", out_path, strerror(errno));
                wrote = false;
            }
            lm_buf_free(&pb);
        }
        if (wrote)
            fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        lm_buf_free(&mzn_note);
        rc = wrote ? LOOMC_OK : LOOMC_EUSER;
    }
    drv_free(&r);
out:
    if (arch)
        arch_free(arch);
    cli_kernel_opts_free(&ko);
    lm_arena_free(&a);
    return rc;
}
