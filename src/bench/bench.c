/* bench.c - one benchmark row end to end, and the whole run: for each
 * shape of a suite on each chip, compile with loomc (timed), simulate
 * loomc's pick and its next four, TTNN's default schedule, the oracle's
 * points and the tuner's trials - every one lowered by sched_lower and run
 * by the simulator in timing-only mode, so the comparison is like for like.
 *
 * The best known schedule of a row is the best the oracle, loomc's five
 * and the tuner found (all points of loomc's space); regrets are measured
 * against it. With an exact oracle it is the true optimum of the space.
 * TTNN's schedule is a point of the same space's lowering, but it may sit
 * outside loomc's domains, so it is reported beside, not counted in.
 *
 * Oracle and tuner runs are capped at cap_factor x the best so far: a
 * schedule that slow can never be the best, and stopping it early keeps
 * the oracle affordable. Capped runs are "censored" (cycles is a lower
 * bound); model-quality runs are never capped.
 */
#include "bench/bench.h"

#include "ttnn/ttnn.h"
#include "driver/driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- evaluating schedules -------------------------------------------- */

typedef struct rowctx {
    const sched_job *job;
    const arch_desc *arch;
    sym_ctx *sym;
    const bench_space *sp;
    sched_schedule scheds[SCHED_MAX_LAUNCHES];
    lm_arena *ar;            /* for failure reasons */
    /* the progress line: the row's text, and what simulates now */
    lm_progress *prog;
    const char *row_text;
    const char *what;        /* "oracle", "tuner", ... */
} rowctx;

/* Lower and simulate a job's schedules (timing-only), or with `kernel` TTNN's
 * own kernels for that pick; cap > 0 stops at that many cycles (summed over
 * launches) and reports censored. */
static bool simulate_as(rowctx *c, const sched_schedule *s, int n, const ttnn_pick *kernel, double cap, bench_eval *out,
                        const char **why)
{
    out->ok = false;
    out->censored = false;
    out->cycles = out->sim_seconds = 0;
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    for (int l = 0; l < n; l++)
        kp[l] = c->job->k[l], sp[l] = &s[l];
    lm_diag_capture cp;
    lm_diag_capture_begin(&cp);
    drv_run_opts ro = {.run = {.arch = c->arch, .timing_only = true}, .max_cycles = cap > 0 ? cap : 0,
                       .kernel = kernel};
    drv_run_result rr;
    bool ok = drv_simulate(&rr, kp, sp, n, NULL, 0, &ro, c->sym, &cp.d);
    const char *msg = lm_diag_capture_end(&cp, c->ar);
    if (!ok && rr.failed == DRV_RUN_SIMULATE && cap > 0 && strstr(msg, "past the budget of")) {
        out->censored = true;
        out->cycles = cap;
        out->sim_seconds = cap / (c->arch->clock_ghz * 1e9);
        out->ok = true;
        return true;
    }
    if (!ok) {
        *why = lm_arena_printf(c->ar, "%s: %s", rr.failed == DRV_RUN_SIMULATE ? "simulation" : "lowering", msg);
        return false;
    }
    out->censored = rr.censored;
    out->cycles = rr.run.cycles;
    out->sim_seconds = rr.run.seconds;
    out->ok = true;
    return true;
}

static bool simulate(rowctx *c, const sched_schedule *s, int n, double cap, bench_eval *out, const char **why)
{
    return simulate_as(c, s, n, NULL, cap, out, why);
}

static bool eval_point(void *ctx, int s, const int64_t *values, double cap, bench_eval *out, const char **why)
{
    rowctx *c = ctx;
    sched_choice ch = *(const sched_choice *)c->sp->st[s].tag;
    ch.sol.values = (int64_t *)values;
    sched_choice_schedules(c->job, &ch, c->scheds, c->sym);
    out->predicted = bench_space_predict(c->sp, s, values);
    return simulate(c, c->scheds, c->job->nlaunches, cap, out, why);
}

static void progress_cb(void *ctx, int64_t runs)
{
    rowctx *c = ctx;
    if (lm_progress_due(c->prog))
        lm_progress_show(c->prog, "%s: %lld schedules simulated (%s)", c->row_text, (long long)runs, c->what);
}

/* ---- one row ------------------------------------------------------------ */

static int stratum_of(const bench_space *sp, const sched_choice *c, int nl)
{
    for (int s = 0; s < sp->nst; s++) {
        const sched_choice *t = sp->st[s].tag;
        bool same = true;
        for (int l = 0; l < nl; l++)
            same &= t->cand[l] == c->cand[l];
        if (same)
            return s;
    }
    return -1;
}

static const char *choice_label(const sched_job *job, const sched_choice *c, lm_arena *ar)
{
    lm_buf b = {0};
    for (int l = 0; l < job->nlaunches; l++)
        lm_buf_printf(&b, "%s%s", l ? " | " : "", c->m[l]->cand->label ? c->m[l]->cand->label : "?");
    const char *r = lm_arena_strdup(ar, lm_buf_str(&b));
    lm_buf_free(&b);
    return r;
}

/* "label; NAME=V ..." of a point. */
static const char *point_label(const bench_space *sp, const sched_job *job, const bench_entry *e, lm_arena *ar)
{
    const sched_choice *c = sp->st[e->s].tag;
    const solve_problem *p = sp->st[e->s].problem;
    lm_buf b = {0};
    lm_buf_printf(&b, "%s;", choice_label(job, c, ar));
    for (int j = 0; j < p->nvars; j++)
        lm_buf_printf(&b, " %s=%lld", p->vars[j].var->name, (long long)e->values[j]);
    const char *r = lm_arena_strdup(ar, lm_buf_str(&b));
    lm_buf_free(&b);
    return r;
}

static void row_fail(bench_row *row, const char *why)
{
    row->ok = false;
    row->why = why;
}

/* One of TTNN's schedules of the row's job at options `to`, simulated -
 * with `own`, TTNN's own kernels for it (SDPA) rather than the schedule
 * lowered by loomc: its cycles, or why there are none (TTNN has no such
 * schedule, or it did not run). *family is the op TTNN saw. */
static bool run_pick(rowctx *rc, drv_result *r, const ttnn_sched_opts *to, bool own, double *cycles, const char **why,
                     ttnn_family *family)
{
    ttnn_pick *ts = lm_xcalloc(1, sizeof *ts);
    bool ok = false;
    if (drv_ttnn_schedule(ts, r, to, rc->arch)) {
        bench_eval te = {0};
        const char *twhy = NULL;
        if (simulate_as(rc, ts->s, ts->nlaunches, own ? ts : NULL, 0, &te, &twhy) && te.ok) {
            ok = true;
            *cycles = te.cycles;
        } else {
            *why = twhy;
        }
    } else {
        *why = lm_arena_strdup(rc->ar, ts->why);
    }
    if (family)
        *family = ts->family;
    ttnn_pick_free(ts);
    free(ts);
    return ok;
}

static bool is_sdpa(ttnn_family f) { return f == TTNN_FAMILY_SDPA_PREFILL || f == TTNN_FAMILY_SDPA_DECODE; }

/* TTNN's default: for SDPA its own kernels at its default config, for a
 * matmul its schedule lowered by loomc. */
static void run_default(rowctx *rc, drv_result *r, bench_row *row)
{
    rc->what = "ttnn";
    ttnn_sched_opts to = {.kind = TTNN_SCHED_DEFAULT};
    ttnn_family f = TTNN_FAMILY_NONE;
    /* which op TTNN sees decides whether its own kernels exist */
    ttnn_pick *probe = lm_xcalloc(1, sizeof *probe);
    drv_ttnn_schedule(probe, r, &to, rc->arch);
    f = probe->family;
    ttnn_pick_free(probe);
    free(probe);
    row->ttnn_ok = run_pick(rc, r, &to, is_sdpa(f), &row->ttnn_cycles, &row->ttnn_why, NULL);
}

/* TTNN tuned for SDPA: its own kernels at the best of the program configs
 * TTNN accepts - prefill q_chunk x k_chunk, decode k_chunk x
 * max_cores_per_head - simulated one by one (no recorded config covers the
 * suites' shapes; docs/evaluation.md). */
static void run_sdpa_tuned(rowctx *rc, drv_result *r, ttnn_family f, bench_row *row)
{
    static const int chunks[] = {32, 64, 128, 256, 512};
    static const int caps[] = {0, 16, 8, 4};
    rc->what = "ttnn-tuned";
    int nq = f == TTNN_FAMILY_SDPA_PREFILL ? (int)LM_COUNT(chunks) : (int)LM_COUNT(caps);
    for (int i = 0; i < nq; i++)
        for (size_t j = 0; j < LM_COUNT(chunks); j++) {
            ttnn_sched_opts to = {.kind = TTNN_SCHED_DEFAULT, .sdpa_k_chunk = chunks[j]};
            if (f == TTNN_FAMILY_SDPA_PREFILL)
                to.sdpa_q_chunk = chunks[i];
            else
                to.sdpa_max_cores_per_head = caps[i];
            double cyc = 0;
            const char *why = NULL;
            if (!run_pick(rc, r, &to, true, &cyc, &why, NULL))
                continue;
            if (!row->tuned_ok || cyc < row->tuned_cycles) {
                row->tuned_ok = true;
                row->tuned_cycles = cyc;
                row->tuned_label = f == TTNN_FAMILY_SDPA_PREFILL
                                       ? lm_arena_printf(rc->ar, "q_chunk=%d,k_chunk=%d", chunks[i], chunks[j])
                                   : caps[i] ? lm_arena_printf(rc->ar, "k_chunk=%d,max_cores_per_head=%d", chunks[j],
                                                               caps[i])
                                             : lm_arena_printf(rc->ar, "k_chunk=%d", chunks[j]);
            }
        }
    if (!row->tuned_ok)
        row->tuned_why = "no program config TTNN accepts runs";
}

/* TTNN tuned: the GEMM benchmark's hand-tuned matmul config where one
 * covers the row; for SDPA the best legal program config. */
static void run_tuned(rowctx *rc, drv_result *r, bench_row *row)
{
    rc->what = "ttnn-tuned";
    ttnn_sched_opts to = {.kind = TTNN_SCHED_TUNED};
    ttnn_family f = TTNN_FAMILY_NONE;
    row->tuned_ok = run_pick(rc, r, &to, false, &row->tuned_cycles, &row->tuned_why, &f);
    if (!row->tuned_ok && is_sdpa(f)) {
        row->tuned_why = NULL;
        run_sdpa_tuned(rc, r, f, row);
    }
}

static void run_row(bench_result *b, bench_row *row, const bench_suite *su, const bench_suite_op *op, const bench_suite_shape *sh,
                    const arch_desc *arch, lm_progress *prog, const char *row_text)
{
    lm_arena *ar = &b->ar;
    const bench_opts *o = &b->opts;
    row->spearman = row->spearman_top = row->pair_error = NAN;
    const char *why = NULL;
    if (!bench_suite_eval(op->flops, sh, &row->flops, &why, ar))
        row->flops = 0;
    if (op->bytes && !bench_suite_eval(op->bytes, sh, &row->bytes, &why, ar))
        row->bytes = 0;
    row->clock_ghz = arch->clock_ghz;

    drv_opts dopt = {.path = op->kernel,
                     .launch = {.shapes = sh->sizes, .nshapes = sh->nsizes, .consts = sh->consts, .nconsts = sh->nconsts}};
    /* 1. what `loomc compile` costs: compile and pick one schedule */
    {
        lm_diag_capture cp;
        lm_diag_capture_begin(&cp);
        drv_result r;
        memset(&r, 0, sizeof r);
        double t0 = bench_cpu_seconds();
        bool ok = drv_compile(&r, &dopt, &cp.d);
        drv_sched_opts so = {.arch = arch, .top_k = 1, .have_format = su->have_format, .format = su->format};
        ok = ok && drv_schedule(&r, &so, &cp.d);
        row->compile_seconds = bench_cpu_seconds() - t0;
        drv_free(&r);
        const char *msg = lm_diag_capture_end(&cp, ar);
        if (!ok) {
            row_fail(row, lm_arena_printf(ar, "compile: %s", msg));
            return;
        }
    }

    /* 2. the five best, the space, and everything simulated */
    lm_diag_capture cp;
    lm_diag_capture_begin(&cp);
    drv_result r;
    memset(&r, 0, sizeof r);
    drv_sched_opts so = {.arch = arch, .top_k = 5, .have_format = su->have_format, .format = su->format};
    if (!drv_compile(&r, &dopt, &cp.d) || !drv_schedule(&r, &so, &cp.d)) {
        drv_free(&r);
        row_fail(row, lm_arena_printf(ar, "compile: %s", lm_diag_capture_end(&cp, ar)));
        return;
    }
    lm_diag_capture_end(&cp, ar);
    sched_job *job = &r.sched->job;
    sched_result *res = &r.sched->result;
    const sched_kernel *k0 = job->k[0];
    row->fidelity = arch_fidelity_name(k0->fidelity);
    row->peak_tflops = arch_peak_tflops(arch, k0->fidelity);
    if (row->bytes > 0 && row->flops > 0) {
        double bw = arch_dram_read_bpc(arch) * arch->clock_ghz * 1e9; /* bytes/s */
        row->dram_tflops = row->flops / (row->bytes / bw) / 1e12;
    }

    bench_space sp = {0};
    sp.nst = res->nbests;
    sp.st = LM_NEWN(&r.arena, bench_stratum, sp.nst ? sp.nst : 1);
    for (int i = 0; i < sp.nst; i++)
        sp.st[i] = (bench_stratum){&res->bests[i].problem, job->bound, &res->bests[i],
                                choice_label(job, &res->bests[i], &r.arena)};
    rowctx rc = {.job = job, .arch = arch, .sym = r.sym, .sp = &sp, .ar = ar, .prog = prog,
                 .row_text = row_text, .what = "loomc"};
    bench_evaluator ev;
    double capf = o->model_quality ? 0 : (o->cap_factor > 0 ? o->cap_factor : 4.0);
    bench_evaluator_init(&ev, &sp, eval_point, &rc, capf);
    ev.progress = progress_cb;
    ev.progress_ctx = &rc;

    /* loomc's pick and its next four */
    int pick = -1;
    row->top5_cycles = INFINITY;
    row->ntop = res->ntop;
    for (int i = 0; i < res->ntop; i++) {
        int s = stratum_of(&sp, &res->top[i], job->nlaunches);
        if (s < 0)
            continue;
        int e = bench_evaluate(&ev, s, res->top[i].sol.values);
        if (i == 0)
            pick = e;
        row->top5_cycles = LM_MIN(row->top5_cycles, bench_entry_cycles(&ev.entries.items[e]));
    }
    if (pick < 0 || !ev.entries.items[pick].e.ok) {
        row_fail(row, lm_arena_printf(ar, "loomc's schedule: %s", ev.first_why ? ev.first_why : "not in the space"));
        bench_evaluator_free(&ev);
        for (int l = 0; l < SCHED_MAX_LAUNCHES; l++)
            sym_env_free(&rc.scheds[l].values);
        drv_free(&r);
        return;
    }
    const bench_entry *pe = &ev.entries.items[pick]; /* valid until the next evaluation */
    row->loomc_cycles = pe->e.cycles;
    row->loomc_predicted = res->cycles;
    row->loomc_label = point_label(&sp, job, pe, ar);

    /* TTNN's default, and its hand-tuned config where one covers the row (only
       matmul rows of its table: shape, one format for A, B and C, the grid) */
    if (!o->model_quality) {
        run_default(&rc, &r, row);
        run_tuned(&rc, &r, row);
    }

    /* the oracle */
    bench_oracle orc = {0};
    if (!o->no_oracle) {
        rc.what = "oracle";
        bench_oracle_opts oo = {.bound = b->opts.oracle_bound, .seed = o->seed};
        bench_oracle_run(&orc, &sp, &ev, &oo);
        row->oracle_ran = true;
        row->oracle_exact = orc.exact;
        row->space = orc.space;
        row->space_known = orc.space_known;
        row->oracle_points = orc.npts;
        row->oracle_ran_points = orc.sampled + orc.polished;
        row->oracle_cycles = orc.best >= 0 ? orc.best_cycles : INFINITY;
        /* predicted against simulated over the oracle's points (and loomc's pick) */
        bool has_pick = false;
        double *pred = lm_xcalloc((size_t)(orc.npts + 1), sizeof *pred);
        double *simc = lm_xcalloc((size_t)(orc.npts + 1), sizeof *simc);
        int nq = 0;
        for (int i = 0; i < orc.npts; i++) {
            const bench_entry *x = &ev.entries.items[orc.pts[i]];
            has_pick |= orc.pts[i] == pick;
            if (x->e.ok && !x->e.censored && x->e.predicted >= 0) {
                pred[nq] = (double)x->e.predicted;
                simc[nq] = x->e.cycles;
                nq++;
            }
        }
        const bench_entry *pe2 = &ev.entries.items[pick]; /* entries may have moved */
        if (!has_pick && pe2->e.predicted >= 0) {
            pred[nq] = (double)pe2->e.predicted;
            simc[nq] = pe2->e.cycles;
            nq++;
        }
        row->spearman_n = nq;
        row->spearman = nq >= 2 ? bench_spearman(pred, simc, nq) : NAN;
        row->spearman_top = nq >= 2 ? bench_spearman_best(pred, simc, nq, 0.10, 10, &row->spearman_top_n) : NAN;
        row->pair_error = bench_pair_error(pred, simc, nq, 0.10, 10, &row->pair_n);
        free(pred);
        free(simc);
    }

    /* the tuner */
    bench_tuner tn = {0};
    if (!o->no_tuner && !o->model_quality && b->ntrials) {
        rc.what = "tuner";
        bench_tuner_opts to = {.nmarks = b->ntrials, .seed = o->seed};
        memcpy(to.marks, b->trials, sizeof to.marks);
        bench_tuner_run(&tn, &sp, &ev, &to);
        row->nmarks = tn.nmarks;
        memcpy(row->marks, tn.marks, sizeof row->marks);
    }

    /* the best known point: every point that ran to the end, whoever asked */
    int best = pick;
    for (size_t i = 0; i < ev.entries.len; i++) {
        const bench_entry *x = &ev.entries.items[i];
        if (x->e.ok && !x->e.censored && x->e.cycles < ev.entries.items[best].e.cycles)
            best = (int)i;
    }
    row->best_cycles = ev.entries.items[best].e.cycles;
    row->best_label = point_label(&sp, job, &ev.entries.items[best], ar);
    /* loomc's rank among every point that ran (the oracle's, loomc's five, the tuner's) */
    if (row->oracle_ran) {
        int64_t better = 0, n = 0;
        for (size_t i = 0; i < ev.entries.len; i++) {
            const bench_entry *x = &ev.entries.items[i];
            if (!x->e.ok)
                continue;
            n++;
            if ((int)i != pick && x->e.cycles < row->loomc_cycles)
                better++;
        }
        row->loomc_rank = better + 1;
        row->ranked = n;
    }
    if (o->points) {
        row->points = LM_NEWN(ar, bench_point, ev.entries.len ? ev.entries.len : 1);
        for (size_t i = 0; i < ev.entries.len; i++) {
            const bench_entry *x = &ev.entries.items[i];
            if (x->e.ok && !x->e.censored)
                row->points[row->npoints++] =
                    (bench_point){point_label(&sp, job, x, ar), x->e.predicted, x->e.cycles};
        }
    }
    row->failures = ev.failures;
    row->failure_why = ev.first_why ? lm_arena_strdup(ar, ev.first_why) : NULL;
    if (ev.failures)
        row->failure_point = point_label(&sp, job, &ev.entries.items[ev.first_fail], ar);
    row->nfail_kinds = ev.nkinds;
    for (int i = 0; i < ev.nkinds; i++)
        row->fail_kinds[i] = (bench_fail_kind){lm_arena_strdup(ar, ev.kinds[i].kind), ev.kinds[i].count};
    row->ok = true;

    bench_tuner_free(&tn);
    bench_oracle_free(&orc);
    bench_evaluator_free(&ev);
    for (int l = 0; l < SCHED_MAX_LAUNCHES; l++)
        sym_env_free(&rc.scheds[l].values);
    drv_free(&r);
}

/* ---- the run --------------------------------------------------------------- */

bool bench_run(bench_result *b, const bench_suite *suites, int nsuites, const bench_opts *o, lm_diag *d)
{
    memset(b, 0, sizeof *b);
    lm_arena_init(&b->ar);
    b->suites = suites;
    b->nsuites = nsuites;
    b->opts = *o;
    /* budgets: the command line, else the first suite that sets them, else defaults */
    if (!b->opts.oracle_bound)
        for (int i = 0; i < nsuites && !b->opts.oracle_bound; i++)
            b->opts.oracle_bound = suites[i].oracle_bound;
    if (!b->opts.oracle_bound)
        b->opts.oracle_bound = BENCH_DEFAULT_BOUND;
    if (o->ntrials) {
        b->ntrials = o->ntrials;
        memcpy(b->trials, o->trials, sizeof b->trials);
    } else {
        for (int i = 0; i < nsuites && !b->ntrials; i++)
            if (suites[i].ntrials) {
                b->ntrials = suites[i].ntrials;
                memcpy(b->trials, suites[i].trials, sizeof b->trials);
            }
        if (!b->ntrials) {
            b->ntrials = 3;
            b->trials[0] = 10;
            b->trials[1] = 100;
            b->trials[2] = 1000;
        }
    }

    /* rows in table order: suite, operator, chip, shape */
    LM_VEC(bench_row) rows = {0};
    LM_VEC(arch_desc *) loaded = {0};
    bool ok = true;
    int total = 0;
    const char ***chips = LM_NEWN(&b->ar, const char **, nsuites ? nsuites : 1);
    int *nchips = LM_NEWN(&b->ar, int, nsuites ? nsuites : 1);
    for (int si = 0; si < nsuites; si++) {
        /* --arch, else the suite's chips (every description for `all`, then the derived ones) */
        nchips[si] = bench_suite_chips(&suites[si], o->archs, o->narchs, &chips[si], &b->ar);
        for (int oi = 0; oi < suites[si].nops; oi++)
            total += nchips[si] * suites[si].ops[oi].nshapes;
    }
    int done = 0;
    /* a line on a terminal, nothing otherwise (or with --quiet) */
    lm_progress prog;
    lm_progress_init(&prog, stderr, !o->progress);
    for (int si = 0; si < nsuites && ok; si++) {
        const bench_suite *su = &suites[si];
        const char *const *archs = chips[si];
        int na = nchips[si];
        for (int oi = 0; oi < su->nops && ok; oi++) {
            const bench_suite_op *op = &su->ops[oi];
            for (int ai = 0; ai < na && ok; ai++) {
                arch_desc *a = bench_chip_load(su, archs[ai], d);
                if (!a) {
                    ok = false;
                    break;
                }
                LM_PUSH(&loaded, a);
                for (int hi = 0; hi < op->nshapes; hi++) {
                    bench_row row = {0};
                    row.op = oi;
                    row.shape = hi;
                    row.suite_op = op->name;
                    row.label = op->shapes[hi].label;
                    row.arch = lm_arena_strdup(&b->ar, a->name);
                    done++;
                    char text[160];
                    snprintf(text, sizeof text, "bench: [%d/%d] %s %s on %s", done, total, op->name, row.label,
                             a->name);
                    if (lm_progress_due(&prog))
                        lm_progress_show(&prog, "%s", text);
                    run_row(b, &row, su, op, &op->shapes[hi], a, &prog, text);
                    LM_PUSH(&rows, row);
                }
            }
        }
    }
    lm_progress_end(&prog);
    for (size_t i = 0; i < loaded.len; i++)
        arch_free(loaded.items[i]);
    LM_VEC_FREE(&loaded);
    b->nrows = (int)rows.len;
    b->rows = LM_NEWN(&b->ar, bench_row, rows.len ? rows.len : 1);
    if (rows.len)
        memcpy(b->rows, rows.items, sizeof *b->rows * rows.len);
    LM_VEC_FREE(&rows);
    return ok;
}

void bench_free(bench_result *b)
{
    lm_arena_free(&b->ar);
    memset(b, 0, sizeof *b);
}
