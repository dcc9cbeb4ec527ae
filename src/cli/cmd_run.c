/* cmd_run.c - 'loomc run KERNEL.py --arch CHIP --shape ...': compile a
 * kernel's launches, schedule them (loomc's solver, or a placement given on
 * the command line), lower each to a dataflow program, simulate the
 * launches in order and, with --check, compare the outputs with the Tile IR
 * reference interpreter run on the same inputs. Every figure it prints is
 * the simulator's: labelled simulated, never a measurement.
 *
 * Exit status: 0 when the run finished (and --check passed), 1 for bad
 * input, a kernel or schedule that cannot be lowered, a run-time error of
 * the program, or a failed check.
 */
#include "ttnn/ttnn.h"
#include "cli/cli.h"
#include "driver/driver.h"
#include "sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void run_help(FILE *f)
{
    fprintf(f,
            "usage: loomc run KERNEL.py --arch NAME|FILE --shape NAME=N[,...] [--const NAME=N]...\n"
            "                 [--kernel NAME] [--schedule loom|manual|ttnn|ttnn-tuned|PLAN.json]\n"
            "                 [--set NAME=N[,...]]... [--format F] [--explain]\n"
            "                 [--place AXIS=P[,...]] [--transport LOAD=T[,...]] [--check]\n"
            "                 [--timing-only] [--trace FILE] [--json] [--exact-exp] [--print]\n"
            "                 [--seed N] [--fidelity F] [--sdpa-config NAME=N[,...]] [--no-fuse]\n\n"
            "Compile the kernel, choose a schedule, lower every launch to a dataflow program\n"
            "(per-core reader, compute and writer kernels), simulate the launches one after\n"
            "the other on the chip and report the simulated cycles. With --check, the outputs\n"
            "are compared with the Tile IR reference interpreter run on the same inputs.\n\n"
            "options:\n"
            "  --arch NAME|FILE     hardware description (arch/NAME.yaml or a file)\n"
            "  --shape NAME=N,...   values of the launch spec's sizes (all are required)\n"
            "  --const NAME=N       an option of the launch spec, or pin a free constexpr\n"
            "  --kernel NAME        the launch spec to use, or a kernel it launches\n"
            "  --schedule loom      loomc's solver chooses (default)\n"
            "  --schedule PLAN.json the schedules of a plan file (loomc compile -o)\n"
            "  --schedule ttnn      TTNN's default schedule for the op (matmul, SDPA prefill,\n"
            "                       SDPA decode) as a loomc schedule (docs/baselines.md)\n"
            "  --schedule ttnn-tuned  the hand-tuned config of TTNN's GEMM benchmark (matmul)\n"
            "  --schedule manual    program axis 0 on core rows (y), axis 1 on columns (x),\n"
            "                       others a loop on each core; every load from DRAM; the\n"
            "                       grid as large as the programs allow; free constexprs must\n"
            "                       be given with --const or --set\n"
            "  --set NAME=N,...     override a value of the schedule: a free constexpr,\n"
            "                       grid.x, grid.y, depth.TENSOR, sub.h, sub.w\n"
            "  --place AXIS=P,...   put program axis AXIS (0, 1, 2) on x, y, xy or time\n"
            "  --transport LOAD=T   how loads of tensor LOAD travel: dram, mcast:x, mcast:y,\n"
            "                       mcast:xy, forward:x, forward:y (':mid' after mcast:x/y/xy:\n"
            "                       the middle core sends)\n"
            "  --check              compare every output with the reference interpreter\n"
            "  --timing-only        no arithmetic in the simulator (big shapes; no check)\n"
            "  --trace FILE         Chrome/Perfetto trace of the (first) launch\n"
            "  --json               the report as one JSON object\n"
            "  --exact-exp          exp in exact rather than the chip's approximate mode\n"
            "  --print              print the lowered dataflow programs first\n"
            "  --seed N             inputs are pseudo-random from N (default 0)\n"
            "  --fidelity F         matrix-engine fidelity: LoFi, HiFi2, HiFi3, HiFi4 (default:\n"
            "                       TTNN's rule, HiFi2, or LoFi when both inputs are block-float)\n"
            "  --format F           storage format of the DRAM tensors the kernel loads and\n"
            "                       stores: bf16, bfp8_b, bfp4_b (every schedule)\n"
            "  --explain            why this schedule: for ttnn, the TTNN rule behind each value\n"
            "  --sdpa-config NAME=N,...  --schedule ttnn for SDPA prefill with a program config:\n"
            "                       q_chunk, k_chunk (elements), grid_x, grid_y (the cores it\n"
            "                       may use), fp32_acc (0/1), interm_bf16 (1: TTNN's bf16\n"
            "                       intermediate CBs instead of fp32)\n"
            "  --no-fuse            (loom) do not fuse a launch with the next one that consumes\n"
            "                       its output block by block; (ttnn) keep SDPA decode's two launches\n"
            "  --help               show this text\n\n"
            "A job of several launches (a split kernel and its combine kernel) runs them in\n"
            "order; scratch tensors carry the data between them and the cycles add up, unless\n"
            "the schedule fuses two of them into one program (partial results over the NoC).\n"
            "exit status: 0 success (and check passed), 1 bad input, a schedule that cannot\n"
            "be lowered, a run-time error or a failed check, 2 internal error.\n");
}

typedef struct strpair {
    const char *key, *val;
} strpair;
typedef LM_VEC(strpair) sp_vec;

static bool parse_pairs(const char *opt, const char *text, sp_vec *v, lm_arena *a)
{
    const char *p = text;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = lm_arena_strndup(a, p, n);
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            cli_usage_error("run", "%s: expected KEY=VALUE, got '%s'", opt, item);
            return false;
        }
        *eq = 0;
        LM_PUSH(v, ((strpair){item, eq + 1}));
        if (!comma)
            break;
        p = comma + 1;
    }
    if (!v->len) {
        cli_usage_error("run", "%s needs KEY=VALUE", opt);
        return false;
    }
    return true;
}

static bool parse_place(const char *s, sched_place *out)
{
    static const struct {
        const char *n;
        sched_place p;
    } t[] = {{"x", SCHED_ON_X}, {"y", SCHED_ON_Y}, {"xy", SCHED_ON_XY}, {"time", SCHED_ON_TIME}};
    for (size_t i = 0; i < LM_COUNT(t); i++)
        if (!strcmp(s, t[i].n)) {
            *out = t[i].p;
            return true;
        }
    return false;
}

static bool parse_transport(const char *s, sched_operand *o)
{
    o->interior_sender = false;
    o->noc = SCHED_NOC_ANY;
    if (!strcmp(s, "dram")) {
        o->transport = SCHED_DRAM;
        o->along = SCHED_ON_TIME;
        return true;
    }
    char kind[16], along[8], mid[8] = "";
    int n = sscanf(s, "%15[a-z]:%7[a-z]:%7[a-z]", kind, along, mid);
    if (n < 2)
        return false;
    if (!strcmp(kind, "mcast"))
        o->transport = SCHED_MCAST;
    else if (!strcmp(kind, "forward"))
        o->transport = SCHED_FORWARD;
    else
        return false;
    if (!parse_place(along, &o->along) || o->along == SCHED_ON_TIME)
        return false;
    if (o->transport == SCHED_FORWARD && o->along == SCHED_ON_XY)
        return false;
    if (n == 3) {
        if (strcmp(mid, "mid") || o->transport != SCHED_MCAST)
            return false;
        o->interior_sender = true;
    }
    return true;
}

/* The placement without a solver: axis 0 on rows, axis 1 on columns, the
 * rest in time, everything from DRAM; the grid as large as the chip and
 * the programs allow. */
static void manual_candidate(sched_candidate *c, const sched_kernel *k)
{
    memset(c, 0, sizeof *c);
    for (int g = 0; g < TIR_MAX_GRID; g++)
        c->place[g] = g == 0 ? SCHED_ON_Y : g == 1 ? SCHED_ON_X : SCHED_ON_TIME;
    for (int i = 0; i < k->acc->n && c->nops < SCHED_MAX_OPS; i++)
        if (!k->acc->acc[i].is_store)
            c->ops[c->nops++] = (sched_operand){i, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    c->persistent = true;
}

static void set_value(sym_env *env, sym_ctx *sc, const char *name, int64_t v) { sym_env_set(env, sym_var(sc, name), v); }

static bool has_value(const sym_env *env, sym_ctx *sc, const char *name)
{
    int64_t lo, hi;
    return sym_env_get(env, sym_var(sc, name), &lo, &hi);
}

/* grid.x / grid.y where the schedule gives none: as many cores as the
 * programs placed there, within the chip. */
static void default_grid(sched_schedule *s, const tir_func *f, const arch_desc *a, sym_ctx *sc)
{
    int64_t ex = 1, ey = 1, exy = 1;
    for (int g = 0; g < f->grid_rank; g++) {
        int64_t e = 1;
        sym_eval(f->grid[g], &s->values, &e);
        if (s->cand.place[g] == SCHED_ON_X)
            ex *= e;
        else if (s->cand.place[g] == SCHED_ON_Y)
            ey *= e;
        else if (s->cand.place[g] == SCHED_ON_XY)
            exy *= e;
    }
    int64_t gx = LM_MIN(ex, a->grid_w), gy = LM_MIN(ey, a->grid_h);
    if (exy > 1) {
        gx = LM_MIN(exy, a->grid_w);
        gy = LM_MIN((exy + gx - 1) / gx, a->grid_h);
    }
    if (!has_value(&s->values, sc, "grid.x"))
        set_value(&s->values, sc, "grid.x", gx);
    if (!has_value(&s->values, sc, "grid.y"))
        set_value(&s->values, sc, "grid.y", gy);
}

static void json_str(lm_buf *b, const char *s)
{
    lm_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            lm_buf_printf(b, "\\%c", c);
        else if (c < 0x20)
            lm_buf_printf(b, "\\u%04x", c);
        else
            lm_buf_putc(b, (char)c);
    }
    lm_buf_putc(b, '"');
}

static const char *check_name(sched_check c)
{
    return c == SCHED_CHECK_PASS ? "pass" : c == SCHED_CHECK_FAIL ? "fail" : "skipped";
}

/* Values in name order, for stable output. */
static int cmp_binding(const void *a, const void *b)
{
    const sym_binding *x = a, *y = b;
    return strcmp(x->var->name, y->var->name);
}

static void sorted_values(const sym_env *env, sym_binding *out, int *n)
{
    *n = env->n;
    memcpy(out, env->b, sizeof *out * (size_t)env->n);
    qsort(out, (size_t)*n, sizeof *out, cmp_binding);
}

int cli_run(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "run", "missing --arch NAME|FILE", &a);
    cli_kvs sets = {0}, sdpa = {0};
    sp_vec places = {0}, transports = {0};
    const char *schedule = "loom", *trace = NULL;
    bool check = false, timing_only = false, json = false, exact_exp = false, print = false, no_fuse = false;
    uint64_t seed = 0;
    bool have_fidelity = false, have_format = false;
    arch_fidelity fidelity = ARCH_HIFI2;
    arch_format fmt = ARCH_BF16;
    bool explain = false;
    int rc = LOOMC_EUSER;
    bool err = false;
    drv_result r;
    memset(&r, 0, sizeof r);
    arch_desc *arch = NULL;
    lm_diag d;
    lm_diag_init(&d, stderr);
    for (int i = 1; i < argc && !err; i++) {
        const char *val = NULL;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            run_help(stdout);
            rc = LOOMC_OK;
            goto out;
        }
        cli_take t = cli_kernel_opt(&ko, argc, argv, &i);
        if (t == CLI_BAD)
            goto out;
        if (t == CLI_TAKEN)
            continue;
        if (cli_opt(argc, argv, &i, "--set", &val, &err)) {
            /* overrides on top of a base line: the later value wins */
            if (!err && !cli_parse_kvs("run", "--set", val, CLI_KV_LATER_WINS, &sets, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--sdpa-config", &val, &err)) {
            if (!err && !cli_parse_kvs("run", "--sdpa-config", val, CLI_KV_NAMES, &sdpa, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--place", &val, &err)) {
            if (!err && !parse_pairs("--place", val, &places, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--transport", &val, &err)) {
            if (!err && !parse_pairs("--transport", val, &transports, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--schedule", &val, &err)) {
            schedule = val; /* loom, manual, ttnn, ttnn-tuned or a plan file */
        } else if (cli_opt(argc, argv, &i, "--seed", &val, &err)) {
            char *end;
            if (!err) {
                errno = 0;
                unsigned long long v = strtoull(val, &end, 10);
                if (!*val || *end || errno) {
                    cli_usage_error("run", "--seed needs a non-negative integer, got '%s'", val);
                    goto out;
                }
                seed = v;
            }
        } else if (cli_opt(argc, argv, &i, "--fidelity", &val, &err)) {
            if (!err && !cli_parse_fidelity("run", val, &fidelity))
                goto out;
            have_fidelity = true;
        } else if (cli_opt(argc, argv, &i, "--format", &val, &err)) {
            if (!err && !cli_parse_format("run", val, &fmt))
                goto out;
            have_format = true;
        } else if (cli_flag(argv, i, "--explain")) {
            explain = true;
        } else if (cli_opt(argc, argv, &i, "--trace", &val, &err)) {
            trace = val;
        } else if (cli_flag(argv, i, "--no-fuse")) {
            no_fuse = true;
        } else if (cli_flag(argv, i, "--check")) {
            check = true;
        } else if (cli_flag(argv, i, "--timing-only")) {
            timing_only = true;
        } else if (cli_flag(argv, i, "--json")) {
            json = true;
        } else if (cli_flag(argv, i, "--exact-exp")) {
            exact_exp = true;
        } else if (cli_flag(argv, i, "--print")) {
            print = true;
        } else if (!cli_kernel_arg(&ko, argv[i])) {
            goto out;
        }
    }
    if (err || !cli_kernel_complete(&ko))
        goto out;
    if (check && timing_only) {
        cli_usage_error("run", "--check needs the arithmetic that --timing-only skips");
        goto out;
    }
    /* TTNN's options: the fidelity, and an SDPA program config */
    ttnn_sched_opts bo = {.kind = strcmp(schedule, "ttnn") ? TTNN_SCHED_TUNED : TTNN_SCHED_DEFAULT};
    bo.have_fidelity = have_fidelity;
    bo.fidelity = fidelity;
    bo.no_fuse = no_fuse;
    if (sdpa.len && strcmp(schedule, "ttnn")) {
        cli_usage_error("run", "--sdpa-config goes with --schedule ttnn");
        goto out;
    }
    for (size_t i = 0; i < sdpa.len; i++) {
        const char *k = sdpa.items[i].name;
        int64_t v = sdpa.items[i].value;
        bool flag = !strcmp(k, "fp32_acc") || !strcmp(k, "interm_bf16");
        if (flag ? v != 0 && v != 1 : v < 0 || v > 1 << 20) {
            cli_usage_error("run", "--sdpa-config %s=%lld is out of range", k, (long long)v);
            goto out;
        }
        if (!strcmp(k, "q_chunk"))
            bo.sdpa_q_chunk = (int)v;
        else if (!strcmp(k, "k_chunk"))
            bo.sdpa_k_chunk = (int)v;
        else if (!strcmp(k, "grid_x"))
            bo.sdpa_grid_x = (int)v;
        else if (!strcmp(k, "grid_y"))
            bo.sdpa_grid_y = (int)v;
        else if (!strcmp(k, "fp32_acc"))
            bo.have_fp32_acc = true, bo.fp32_acc = v != 0;
        else if (!strcmp(k, "interm_bf16"))
            bo.sdpa_interm_16b = v != 0;
        else {
            cli_usage_error("run", "--sdpa-config: unknown name '%s' (q_chunk, k_chunk, grid_x, grid_y, fp32_acc, "
                            "interm_bf16)", k);
            goto out;
        }
    }
    sched_operand tops[16];
    for (size_t i = 0; i < transports.len; i++)
        if (i >= LM_COUNT(tops) || !parse_transport(transports.items[i].val, &tops[i])) {
            cli_usage_error("run", "--transport %s=%s: expected dram, mcast:x, mcast:y, mcast:xy (optionally :mid), "
                            "forward:x or forward:y", transports.items[i].key, transports.items[i].val);
            goto out;
        }
    sched_place pls[TIR_MAX_GRID];
    int plaxis[TIR_MAX_GRID];
    for (size_t i = 0; i < places.len; i++) {
        char *end;
        long ax = strtol(places.items[i].key, &end, 10);
        if (i >= TIR_MAX_GRID || *end || ax < 0 || ax >= TIR_MAX_GRID || !parse_place(places.items[i].val, &pls[i])) {
            cli_usage_error("run", "--place %s=%s: expected AXIS=x|y|xy|time with AXIS 0, 1 or 2",
                            places.items[i].key, places.items[i].val);
            goto out;
        }
        plaxis[i] = (int)ax;
    }

    arch = arch_load(ko.arch, &d);
    if (!arch)
        goto out;
    drv_opts o;
    cli_kernel_drv_opts(&ko, &o);
    if (!drv_compile(&r, &o, &d))
        goto out;
    bool manual = !strcmp(schedule, "manual");
    bool ttnn = !strcmp(schedule, "ttnn") || !strcmp(schedule, "ttnn-tuned");
    /* the format and fidelity reach loomc's solver and a plan through the
       driver, TTNN's and the manual schedule below, each on the summary
       before it is scheduled */
    drv_sched_opts so = {.arch = arch, .have_format = have_format, .format = fmt, .have_fidelity = have_fidelity,
                         .fidelity = fidelity, .no_fuse = no_fuse};
    if (!strcmp(schedule, "loom")) {
        if (!drv_schedule(&r, &so, &d))
            goto out;
    } else if (manual || ttnn) {
        if (!drv_summarize(&r, &so, &d))
            goto out;
    } else {
        /* a plan file written by loomc compile -o (or by hand) */
        sched_plan *plan = sched_plan_read(schedule, &r.arena, &d);
        if (!plan || !drv_schedule_plan(&r, plan, schedule, &so, &d))
            goto out;
    }
    int n = r.nlaunches;
    if (n > SCHED_MAX_LAUNCHES) {
        lm_error_plain(&d, "a job of %d launches (at most %d)", n, SCHED_MAX_LAUNCHES);
        goto out;
    }
    sched_schedule *sch = lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *sch);
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    bool ok = true;
    /* TTNN's schedule (src/ttnn/ttnn_sched.c) needs every launch's
       summary at once: the decode reduction is a launch of its own. */
    ttnn_pick *bs = NULL;
    if (ttnn) {
        bs = lm_xcalloc(1, sizeof *bs);
        ok = ttnn_schedule(bs, r.sched->job.k, n, &r.spec->env, arch, &bo, r.sym, &r.arena);
        if (!ok)
            lm_error_plain(&d, "--schedule %s: %s", schedule, bs->why);
        else if (explain) {
            lm_buf eb = {0};
            ttnn_pick_explain_print(&eb, bs, r.sched->job.k);
            fputs(lm_buf_str(&eb), stdout);
            lm_buf_free(&eb);
        }
    } else if (explain && !manual) {
        lm_buf eb = {0};
        sched_explain(&eb, &r.sched->job, &r.sched->result, r.sym, &r.arena);
        fputs(lm_buf_str(&eb), stdout);
        lm_buf_free(&eb);
    }
    for (int l = 0; l < n && ok; l++) {
        drv_launch *dl = &r.launches[l];
        sched_schedule *s = &sch[l];
        sched_kernel *k = dl->summary;
        kp[l] = k;
        if (manual) {
            s->k = k;
            manual_candidate(&s->cand, k);
            for (int i = 0; i < r.spec->env.n; i++)
                sym_env_set(&s->values, r.spec->env.b[i].var, r.spec->env.b[i].lo);
            s->fidelity = k->fidelity;
            s->fp32_acc = k->fp32_acc;
            s->predicted_cycles = -1;
            s->origin = "manual";
        } else if (ttnn) {
            *s = bs->s[l];
            s->values = (sym_env){0};
            for (int i = 0; i < bs->s[l].values.n; i++)
                sym_env_set(&s->values, bs->s[l].values.b[i].var, bs->s[l].values.b[i].lo);
        } else {
            const sched_schedule *best = dl->schedule;
            *s = *best;
            s->values = (sym_env){0};
            for (int i = 0; i < best->values.n; i++)
                sym_env_set(&s->values, best->values.b[i].var, best->values.b[i].lo);
            if (!s->origin)
                s->origin = strcmp(schedule, "loom") ? "plan" : "loomc";
        }
        for (size_t i = 0; i < sets.len; i++)
            set_value(&s->values, r.sym, sets.items[i].name, sets.items[i].value);
        if (have_fidelity)
            s->fidelity = fidelity;
        for (size_t i = 0; i < places.len; i++)
            if (plaxis[i] < dl->func->grid_rank)
                s->cand.place[plaxis[i]] = pls[i];
        for (size_t i = 0; i < transports.len; i++)
            for (int j = 0; j < s->cand.nops; j++) {
                const acc_access *aa = &kp[l]->acc->acc[s->cand.ops[j].access];
                if (aa->tensor && !strcmp(aa->tensor->name, transports.items[i].key)) {
                    int acc = s->cand.ops[j].access;
                    s->cand.ops[j] = tops[i];
                    s->cand.ops[j].access = acc;
                }
            }
        if (manual) {
            /* every free constexpr needs a value now */
            for (int i = 0; i < r.spec->nfrees; i++)
                if (!has_value(&s->values, r.sym, r.spec->frees[i].name)) {
                    lm_error_plain(&d, "--schedule manual: give free constexpr '%s' a value (--const or --set)",
                                   r.spec->frees[i].name);
                    ok = false;
                }
            if (ok)
                default_grid(s, dl->func, arch, r.sym);
        }
        s->cand.label = sched_candidate_label(kp[l], &s->cand, &r.arena);
        sp[l] = s;
    }
    lm_buf progs = {0};
    sched_run_result res;
    if (ok) {
        sched_run_opts ro = {.arch = arch, .check = check, .timing_only = timing_only, .exact_exp = exact_exp,
                             .trace_path = trace, .seed = seed, .programs = print ? &progs : NULL};
        ok = sched_run_job(&res, kp, sp, n, (const tir_tensor *const *)r.spec->tensors, r.spec->ntensors, &ro, r.sym,
                           &d);
    }
    if (print)
        fputs(lm_buf_str(&progs), stdout);
    lm_buf_free(&progs);
    if (ok) {
        lm_buf b = {0};
        sym_binding vals[256];
        int nvals;
        if (json) {
            lm_buf_puts(&b, "{\"kernel\":");
            json_str(&b, r.spec->name ? r.spec->name : "?");
            lm_buf_puts(&b, ",\"arch\":");
            json_str(&b, arch->name);
            lm_buf_printf(&b, ",\"simulated\":true,\"cycles\":%.0f,\"seconds\":%.9g,\"tflops\":%.6g,\"check\":\"%s\","
                              "\"max_error\":%.6g,\"max_rel_error\":%.6g",
                          res.cycles, res.seconds, res.tflops, check_name(res.check), res.max_error, res.max_rel_error);
            lm_buf_puts(&b, ",\"launches\":[");
            for (int l = 0; l < res.nlaunches; l++) {
                lm_buf_printf(&b, "%s{\"kernel\":", l ? "," : "");
                json_str(&b, res.launches[l].kernel);
                lm_buf_printf(&b, ",\"cycles\":%.0f,\"cores\":%d", res.launches[l].cycles, res.launches[l].cores);
                if (res.launches[l].fused)
                    lm_buf_printf(&b, ",\"fused\":true,\"first\":%d,\"count\":%d", res.launches[l].first,
                                  res.launches[l].count);
                lm_buf_putc(&b, '}');
            }
            lm_buf_puts(&b, "],\"outputs\":[");
            for (int i = 0; i < res.noutputs; i++) {
                const sched_run_output *ro = &res.outputs[i];
                lm_buf_printf(&b, "%s{\"tensor\":", i ? "," : "");
                json_str(&b, ro->tensor);
                lm_buf_printf(&b, ",\"pass\":%s,\"max_abs\":%.6g,\"max_rel\":%.6g,\"tolerance\":%.6g}",
                              ro->pass ? "true" : "false", ro->max_abs, ro->max_rel, ro->tolerance);
            }
            lm_buf_puts(&b, "],\"schedule\":{\"origin\":");
            json_str(&b, sp[0]->origin ? sp[0]->origin : "?");
            lm_buf_puts(&b, ",\"launches\":[");
            for (int l = 0; l < n; l++) {
                lm_buf_printf(&b, "%s{\"kernel\":", l ? "," : "");
                json_str(&b, kp[l]->f->name);
                lm_buf_puts(&b, ",\"label\":");
                json_str(&b, sp[l]->cand.label ? sp[l]->cand.label : "");
                lm_buf_printf(&b, ",\"fidelity\":\"%s\",\"fp32_acc\":%s,\"predicted_cycles\":%lld,\"values\":{",
                              arch_fidelity_name(sp[l]->fidelity), sp[l]->fp32_acc ? "true" : "false",
                              (long long)sp[l]->predicted_cycles);
                sorted_values(&sp[l]->values, vals, &nvals);
                for (int i = 0; i < nvals; i++) {
                    lm_buf_printf(&b, "%s", i ? "," : "");
                    json_str(&b, vals[i].var->name);
                    lm_buf_printf(&b, ":%lld", (long long)vals[i].lo);
                }
                lm_buf_puts(&b, "}}");
            }
            lm_buf_puts(&b, "]}}\n");
        } else {
            lm_buf_printf(&b, "job %s on %s (simulated)\n", r.spec->name ? r.spec->name : "?", arch->name);
            for (int l = 0; l < n; l++) {
                lm_buf_printf(&b, "launch %d %s: schedule (%s) %s\n", l, kp[l]->f->name,
                              sp[l]->origin ? sp[l]->origin : "?", sp[l]->cand.label ? sp[l]->cand.label : "");
                sorted_values(&sp[l]->values, vals, &nvals);
                lm_buf_puts(&b, "  values:");
                for (int i = 0; i < nvals; i++)
                    lm_buf_printf(&b, " %s=%lld", vals[i].var->name, (long long)vals[i].lo);
                lm_buf_printf(&b, "\n  math %s, Dst %s accumulation\n", arch_fidelity_name(sp[l]->fidelity),
                              sp[l]->fp32_acc ? "fp32" : "16-bit");
                for (int j = 0; j < res.nlaunches; j++) {
                    const sched_run_launch *rl = &res.launches[j];
                    if (l == rl->first + rl->count - 1 && rl->count > 1)
                        lm_buf_printf(&b, "  simulated cycles %.0f on %d cores, launches %d to %d fused in one program\n",
                                      rl->cycles, rl->cores, rl->first, l);
                    else if (l == rl->first && rl->count == 1)
                        lm_buf_printf(&b, "  simulated cycles %.0f on %d cores\n", rl->cycles, rl->cores);
                }
            }
            if (res.nlaunches > 1)
                lm_buf_puts(&b, "programs run one after the other; their simulated cycles add up\n");
            lm_buf_printf(&b, "simulated cycles     %.0f\n", res.cycles);
            lm_buf_printf(&b, "simulated time       %.3f us\n", res.seconds * 1e6);
            lm_buf_printf(&b, "simulated TFLOP/s    %.3f\n", res.tflops);
            lm_buf_printf(&b, "check                %s", check_name(res.check));
            if (res.check != SCHED_CHECK_SKIPPED)
                lm_buf_printf(&b, " (largest error %.3g, relative %.3g)", res.max_error, res.max_rel_error);
            lm_buf_putc(&b, '\n');
            for (int i = 0; i < res.noutputs; i++) {
                const sched_run_output *ro = &res.outputs[i];
                lm_buf_printf(&b, "  %s: %s, max abs %.3g, max rel%s %.3g (tolerance %.3g)%s\n", ro->tensor,
                              ro->pass ? "pass" : "fail", ro->max_abs, ro->block_rel ? " to block max" : "",
                              ro->max_rel, ro->tolerance,
                              ro->nonfinite ? ", non-finite values" : "");
            }
        }
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        rc = res.check == SCHED_CHECK_FAIL ? LOOMC_EUSER : LOOMC_OK;
        if (rc != LOOMC_OK)
            fprintf(stderr, "loomc run: error: the simulated outputs differ from the reference interpreter beyond "
                            "the tolerance\n");
    }
    for (int l = 0; l < n; l++)
        sym_env_free(&sch[l].values);
    if (bs) {
        ttnn_pick_free(bs);
        free(bs);
    }
    free(sch);
out:
    drv_free(&r);
    if (arch)
        arch_free(arch);
    cli_kernel_opts_free(&ko);
    LM_VEC_FREE(&sets);
    LM_VEC_FREE(&sdpa);
    LM_VEC_FREE(&places);
    LM_VEC_FREE(&transports);
    lm_arena_free(&a);
    return rc;
}
