/* compile_report.c - what 'loomc compile' prints: the decision as text or
 * as one JSON object (--json), and the MiniZinc models of --emit-mzn. */
#include "cli/cli.h"
#include "solve/mzn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static json_t *json_values(const fe_spec *spec, const sched_schedule *sc)
{
    json_t *o = lm_json_obj();
    for (int i = 0; i < sc->values.n; i++)
        if (!is_size(spec, sc->values.b[i].var))
            lm_json_set(o, sc->values.b[i].var->name, lm_json_int(sc->values.b[i].lo));
    return o;
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
bool cli_compile_emit_models(drv_result *r, const arch_desc *arch, const char *kfile, const char *dir, lm_buf *note)
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

/* The top schedules of the whole job, best first. */
static json_t *top_json(const cli_compile_out *c)
{
    drv_result *r = c->r;
    const drv_sched *ds = r->sched;
    const sched_result *res = &ds->result;
    json_t *top = lm_json_arr();
    for (int t = 0; t < res->ntop; t++) {
        sched_schedule tmp[SCHED_MAX_LAUNCHES];
        memset(tmp, 0, sizeof tmp);
        sched_choice_schedules(&ds->job, &res->top[t], tmp, r->sym);
        json_t *e = lm_json_obj(), *ls = lm_json_arr();
        lm_json_set(e, "rank", lm_json_int(t + 1));
        lm_json_set(e, "cycles", lm_json_int(res->top[t].cycles));
        lm_json_set(e, "close", lm_json_bool(t > 0 && sched_close_call(res->top[0].cycles, res->top[t].cycles)));
        for (int l = 0; l < ds->job.nlaunches; l++) {
            json_t *x = lm_json_obj();
            lm_json_set(x, "kernel", lm_json_string(ds->job.k[l]->name));
            lm_json_set(x, "mapping", lm_json_string(tmp[l].cand.label));
            lm_json_set(x, "values", json_values(r->spec, &tmp[l]));
            lm_json_push(ls, x);
            sym_env_free(&tmp[l].values);
        }
        lm_json_set(e, "launches", ls);
        lm_json_push(top, e);
    }
    return top;
}

/* The plan, then what compile adds to it (docs/scheduler.md, "Plan files"). */
static void report_json(lm_buf *b, const cli_compile_out *c, double flops, bool have_flops, double us)
{
    const sched_result *res = &c->r->sched->result;
    json_t *d = sched_plan_json(c->plan);
    lm_json_set(d, "predicted_us", lm_json_fixed(us, 3));
    lm_json_set(d, "tflops", lm_json_fixed(have_flops ? flops / (us * 1e6) : 0.0, 3));
    json_t *k = lm_json_obj();
    lm_json_set(k, "enumerated", lm_json_int(res->enumerated));
    lm_json_set(k, "legal", lm_json_int(res->legal));
    lm_json_set(k, "pruned", lm_json_int(res->pruned));
    lm_json_set(k, "solved", lm_json_int(res->combos));
    lm_json_set(k, "noc_mirrors", lm_json_int(res->mirrors));
    lm_json_set(k, "feasible", lm_json_int(res->feasible));
    lm_json_set(k, "limited", lm_json_int(res->limited));
    lm_json_set(k, "solver_nodes", lm_json_int(res->nodes));
    lm_json_set(d, "candidates", k);
    lm_json_set(d, "top", top_json(c));
    if (c->mzn_dir && res->ntop > 0)
        lm_json_set(d, "mzn_objective", lm_json_int(mzn_objective(&res->top[0].problem, NULL, res->cycles)));
    if (c->mzn_solver) {
        json_t *s = lm_json_string(lm_arena_printf(&c->r->arena, "minizinc:%s", c->mzn_solver));
        lm_json_set(d, "solver", s);
        lm_json_set(d, "minizinc_runs", lm_json_int(res->mzn_runs));
    }
    lm_json_set(d, "compile_seconds", lm_json_fixed(c->secs, 6));
    lm_json_write(b, d);
    json_decref(d);
}

static void report_text(lm_buf *b, const cli_compile_out *c, double flops, bool have_flops, double us)
{
    drv_result *r = c->r;
    const drv_sched *ds = r->sched;
    const sched_result *res = &ds->result;
    const fe_spec *spec = r->spec;
    const arch_desc *arch = c->arch;
    lm_buf_printf(b, "compile %s (%s) for %s:", spec->name, c->path, arch->name);
    for (size_t i = 0; i < c->shapes->len; i++)
        lm_buf_printf(b, " %s=%lld", c->shapes->items[i].name, (long long)c->shapes->items[i].value);
    for (size_t i = 0; i < c->consts->len; i++)
        lm_buf_printf(b, " %s=%lld", c->consts->items[i].name, (long long)c->consts->items[i].value);
    lm_buf_printf(b, "\ncandidates: %d enumerated, %d legal, %d pruned as dominated; %d problems solved%s, "
                      "%d with a schedule within the bound, %d at the effort limit\n",
                  res->enumerated, res->legal, res->pruned, res->combos,
                  res->mirrors ? " (one the NoC mirror of the best)" : "", res->feasible, res->limited);
    for (int l = 0; l < ds->job.nlaunches; l++) {
        const sched_schedule *sc = &res->best[l];
        lm_buf_printf(b, "launch %d, %s: %s\n ", sc->k->launch, sc->k->name, sc->cand.label);
        print_values(b, spec, sc);
        lm_buf_printf(b, "\n  predicted %lld cycles\n", (long long)sc->predicted_cycles);
    }
    lm_buf_printf(b, "predicted: %lld cycles = %.2f us at %.2f GHz", (long long)res->cycles, us,
                  arch->clock_ghz);
    if (have_flops)
        lm_buf_printf(b, "; %.2f TFLOP/s", flops / (us * 1e6));
    lm_buf_putc(b, '\n');
    if (c->top > 0) {
        lm_buf_printf(b, "top %d:\n", res->ntop);
        for (int t = 0; t < res->ntop; t++) {
            sched_schedule tmp[SCHED_MAX_LAUNCHES];
            memset(tmp, 0, sizeof tmp);
            sched_choice_schedules(&ds->job, &res->top[t], tmp, r->sym);
            lm_buf_printf(b, "  %d. %lld cycles", t + 1, (long long)res->top[t].cycles);
            if (t > 0 && sched_close_call(res->top[0].cycles, res->top[t].cycles))
                lm_buf_printf(b, " (+%.1f%%: within the model's error of %d%%, a close choice)",
                              100.0 * (double)(res->top[t].cycles - res->top[0].cycles) /
                                  (double)(res->top[0].cycles ? res->top[0].cycles : 1),
                              SCHED_MODEL_ERROR_PERMILLE / 10);
            lm_buf_putc(b, '\n');
            for (int l = 0; l < ds->job.nlaunches; l++) {
                lm_buf_printf(b, "     %s: %s\n       ", ds->job.k[l]->name, tmp[l].cand.label);
                print_values(b, spec, &tmp[l]);
                lm_buf_putc(b, '\n');
                sym_env_free(&tmp[l].values);
            }
        }
    }
    lm_buf_puts(b, c->mzn_note);
    if (c->explain) {
        lm_buf_putc(b, '\n');
        sched_explain(b, &ds->job, res, r->sym, &r->arena);
    }
}

void cli_compile_report(lm_buf *b, const cli_compile_out *c, bool json)
{
    const drv_sched *ds = c->r->sched;
    const sched_result *res = &ds->result;
    double flops = 0;
    bool have_flops = sched_job_flops(&ds->job, &res->top[0], &flops) && flops > 0;
    double us = (double)res->cycles / (c->arch->clock_ghz * 1000.0);
    if (json)
        report_json(b, c, flops, have_flops, us);
    else
        report_text(b, c, flops, have_flops, us);
}
