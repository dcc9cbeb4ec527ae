/* report.c - what a benchmark run prints: the per-operator, per-chip
 * table (the paper's Table 2 with the tuner's columns added), the
 * per-shape table, the JSON of every row, and
 * gnuplot data and scripts for the plots (speedup per shape, achieved
 * TFLOP/s against the roofline, simulated rank of loomc's pick).
 *
 * Every performance figure is from the simulator and says so.
 */
#include "bench/bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- groups: one operator on one chip ----------------------------------- */

int bench_groups(const bench_result *b, bench_group **out)
{
    bench_group *g = lm_xcalloc((size_t)(b->nrows ? b->nrows : 1), sizeof *g);
    int ng = 0;
    for (int i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        int j = 0;
        while (j < ng && !(strcmp(g[j].op, r->suite_op) == 0 && strcmp(g[j].arch, r->arch) == 0))
            j++;
        if (j == ng) {
            g[ng].op = r->suite_op;
            g[ng].arch = r->arch;
            g[ng].rows = lm_xcalloc((size_t)b->nrows, sizeof *g[ng].rows);
            ng++;
        }
        g[j].rows[g[j].n++] = i;
    }
    *out = g;
    return ng;
}

void bench_groups_free(bench_group *g, int ng)
{
    for (int i = 0; i < ng; i++)
        free(g[i].rows);
    free(g);
}

static double regret_or_nan(double c, double best) { return isfinite(c) && best > 0 ? bench_regret(c, best) : NAN; }

static void pct(lm_buf *b, int w, double x)
{
    if (isnan(x))
        lm_buf_printf(b, "%*s", w, "-");
    else
        lm_buf_printf(b, "%*.1f%%", w - 1, 100.0 * x);
}

/* A regret that may be a lower bound (">300.0%"). */
static void pct_lb(lm_buf *b, int w, double x, bool lower)
{
    if (isnan(x) || !lower) {
        pct(b, w, x);
        return;
    }
    char cell[32];
    snprintf(cell, sizeof cell, ">%.1f%%", 100.0 * x);
    lm_buf_printf(b, "%*s", w, cell);
}

void bench_trials_name(lm_buf *b, int64_t t)
{
    if (t >= 1000 && t % 1000 == 0)
        lm_buf_printf(b, "%lldk", (long long)(t / 1000));
    else
        lm_buf_printf(b, "%lld", (long long)t);
}

/* ---- what the tables and the page show --------------------------------- */

/* lo, hi and the geometric mean of x[0..n) (n > 0). */
static void spread(const double *x, int n, double *geo, double *lo, double *hi)
{
    *lo = *hi = x[0];
    for (int k = 1; k < n; k++) {
        *lo = LM_MIN(*lo, x[k]);
        *hi = LM_MAX(*hi, x[k]);
    }
    *geo = bench_geomean(x, n);
}

void bench_summarize(const bench_result *b, const bench_group *g, bench_summary *m)
{
    memset(m, 0, sizeof *m);
    double *sp = lm_xcalloc((size_t)g->n, sizeof *sp), *tu = lm_xcalloc((size_t)g->n, sizeof *tu);
    double tr[BENCH_MAX_MARKS] = {0};
    int ntr[BENCH_MAX_MARKS] = {0};
    for (int k = 0; k < g->n; k++) {
        const bench_row *r = &b->rows[g->rows[k]];
        if (!r->ok)
            continue;
        m->nok++;
        if (r->ttnn_ok)
            sp[m->nsp++] = r->ttnn_cycles / r->loomc_cycles;
        if (r->tuned_ok)
            tu[m->ntuned++] = r->tuned_cycles / r->loomc_cycles;
        double x = bench_regret(r->loomc_cycles, r->best_cycles);
        m->r1_sum += x;
        m->r1max = LM_MAX(m->r1max, x);
        m->r5_sum += bench_regret(r->top5_cycles, r->best_cycles);
        m->compile_sum += r->compile_seconds;
        m->noracle += r->oracle_ran;
        m->nexact += r->oracle_exact;
        for (int t = 0; t < r->nmarks && t < b->ntrials; t++) {
            double y = regret_or_nan(r->marks[t].best_cycles, r->best_cycles);
            if (!isnan(y)) {
                tr[t] += y;
                ntr[t]++;
                m->tuner_lb[t] |= r->marks[t].lower_bound;
            }
        }
        if (r->nmarks)
            m->tune_sum += r->marks[r->nmarks - 1].wall_seconds;
    }
    if (m->nsp)
        spread(sp, m->nsp, &m->sp_geo, &m->sp_lo, &m->sp_hi);
    if (m->ntuned)
        spread(tu, m->ntuned, &m->tuned_geo, &m->tuned_lo, &m->tuned_hi);
    for (int t = 0; t < BENCH_MAX_MARKS; t++)
        m->tuner[t] = ntr[t] ? tr[t] / ntr[t] : NAN;
    free(sp);
    free(tu);
}

bool bench_row_tflops(const bench_row *r, double *tflops, double *roof)
{
    double secs = r->loomc_cycles / (r->clock_ghz * 1e9);
    *tflops = r->flops > 0 ? r->flops / secs / 1e12 : 0;
    *roof = r->dram_tflops > 0 ? LM_MIN(r->peak_tflops, r->dram_tflops) : r->peak_tflops;
    return *tflops > 0;
}

/* ---- the tables ------------------------------------------------------------ */

void bench_print(lm_buf *out, const bench_result *b)
{
    bench_group *g;
    int ng = bench_groups(b, &g);
    lm_buf_puts(out, "loomc bench: every figure is simulated (cycle-approximate simulator, timing-only runs);\n"
                     "none is a hardware measurement. Regret = cycles / best known - 1, where best known is\n"
                     "the best of the oracle, loomc's five best and the tuner (exact oracle: the optimum).\n"
                     "The oracle and the tuner search loomc's own space (its candidates, domains and\n"
                     "legality constraints).\n");
    if (b->opts.no_oracle)
        lm_buf_puts(out, "no oracle (--no-oracle): best known is the best of loomc's five and the tuner; ");
    else
        lm_buf_printf(out, "oracle bound %lld schedules; ", (long long)b->opts.oracle_bound);
    if (b->opts.no_tuner || !b->ntrials)
        lm_buf_puts(out, "no tuner.\n\n");
    else
        lm_buf_printf(out, "tuner seed %llu.\n\n", (unsigned long long)b->opts.seed);

    /* Table: per operator and chip */
    lm_buf_printf(out, "%-10s %-15s %6s  %-26s %-15s %7s", "operator", "chip", "shapes", "speedup vs TTNN",
                  "top-1 regret", "top-5");
    for (int m = 0; m < b->ntrials; m++) {
        lm_buf t = {0};
        lm_buf_puts(&t, "tuner@");
        bench_trials_name(&t, b->trials[m]);
        lm_buf_printf(out, " %10s", lm_buf_str(&t));
        lm_buf_free(&t);
    }
    lm_buf_printf(out, " %10s %9s  %s\n", "compile s", "tune s", "oracle");
    lm_buf_printf(out, "%-10s %-15s %6s  %-26s %-15s %7s", "", "", "", "geomean [min, max]", "mean / max", "mean");
    for (int m = 0; m < b->ntrials; m++)
        lm_buf_printf(out, " %10s", "mean");
    lm_buf_printf(out, " %10s %9s  %s\n", "mean", "host CPU", "exact/all");
    for (int i = 0; i < ng; i++) {
        bench_summary m;
        bench_summarize(b, &g[i], &m);
        lm_buf_printf(out, "%-10s %-15s %3d/%-2d  ", g[i].op, g[i].arch, m.nok, g[i].n);
        if (m.nsp) {
            char cell[64];
            snprintf(cell, sizeof cell, "%.2fx [%.2fx, %.2fx]", m.sp_geo, m.sp_lo, m.sp_hi);
            lm_buf_printf(out, "%-26s ", cell);
        } else {
            lm_buf_printf(out, "%-26s ", "-");
        }
        if (m.nok) {
            char cell[64];
            snprintf(cell, sizeof cell, "%.1f%% / %.1f%%", 100 * m.r1_sum / m.nok, 100 * m.r1max);
            lm_buf_printf(out, "%-15s", cell);
            pct(out, 8, m.r5_sum / m.nok);
        } else {
            lm_buf_printf(out, "%-15s %7s", "-", "-");
        }
        for (int k = 0; k < b->ntrials; k++)
            pct_lb(out, 11, m.tuner[k], m.tuner_lb[k]);
        if (m.nok)
            lm_buf_printf(out, " %10.3f %9.1f  %d/%d\n", m.compile_sum / m.nok, m.tune_sum / m.nok, m.nexact,
                          m.noracle);
        else
            lm_buf_printf(out, " %10s %9s  -\n", "-", "-");
    }

    /* TTNN's hand-tuned configs, for the groups with rows they cover */
    bool any_tuned = false;
    for (int i = 0; i < ng; i++) {
        bench_summary m;
        bench_summarize(b, &g[i], &m);
        if (m.ntuned) {
            if (!any_tuned)
                lm_buf_puts(out, "\nagainst TTNN tuned (matmul: the GEMM benchmark's hand-tuned configs, --schedule "
                                 "ttnn-tuned; SDPA: TTNN's own kernels at its best program config), on the shapes "
                                 "they cover:\n");
            any_tuned = true;
            lm_buf_printf(out, "%-10s %-15s %3d/%-2d  %.2fx [%.2fx, %.2fx]\n", g[i].op, g[i].arch, m.ntuned, g[i].n,
                          m.tuned_geo, m.tuned_lo, m.tuned_hi);
        }
    }

    /* per shape */
    for (int i = 0; i < ng; i++) {
        lm_buf_printf(out, "\n%s on %s (cycles and TFLOP/s simulated)\n", g[i].op, g[i].arch);
        lm_buf_printf(out, "%-32s %11s %11s %8s %11s %7s %7s %11s %10s", "shape", "loomc", "ttnn", "speedup",
                      "best known", "regret", "top-5", "rank", "space");
        for (int m = 0; m < b->ntrials; m++) {
            lm_buf t = {0};
            lm_buf_puts(&t, "@");
            bench_trials_name(&t, b->trials[m]);
            lm_buf_printf(out, " %7s", lm_buf_str(&t));
            lm_buf_free(&t);
        }
        lm_buf_printf(out, " %8s %6s %9s\n", "TFLOP/s", "roof", "compile s");
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            lm_buf_printf(out, "%-32s ", r->label);
            if (!r->ok) {
                lm_buf_printf(out, "failed: %s\n", r->why ? r->why : "?");
                continue;
            }
            lm_buf_printf(out, "%11.0f ", r->loomc_cycles);
            if (r->ttnn_ok)
                lm_buf_printf(out, "%11.0f %7.2fx ", r->ttnn_cycles, r->ttnn_cycles / r->loomc_cycles);
            else
                lm_buf_printf(out, "%11s %8s ", "n/a", "-");
            lm_buf_printf(out, "%11.0f", r->best_cycles);
            pct(out, 8, bench_regret(r->loomc_cycles, r->best_cycles));
            pct(out, 8, bench_regret(r->top5_cycles, r->best_cycles));
            if (r->oracle_ran) {
                char cell[48];
                snprintf(cell, sizeof cell, "%lld/%lld", (long long)r->loomc_rank, (long long)r->ranked);
                lm_buf_printf(out, " %11s", cell);
                snprintf(cell, sizeof cell, "%s%lld", r->oracle_exact ? "" : (r->space_known ? "" : ">"),
                         (long long)r->space);
                lm_buf_printf(out, " %10s", cell);
            } else {
                lm_buf_printf(out, " %11s %10s", "-", "-");
            }
            for (int m = 0; m < b->ntrials; m++)
                pct_lb(out, 8, m < r->nmarks ? regret_or_nan(r->marks[m].best_cycles, r->best_cycles) : NAN,
                       m < r->nmarks && r->marks[m].lower_bound);
            double tf, roof;
            if (bench_row_tflops(r, &tf, &roof))
                lm_buf_printf(out, " %8.2f %5.0f%%", tf, roof > 0 ? 100 * tf / roof : 0);
            else
                lm_buf_printf(out, " %8s %6s", "-", "-");
            lm_buf_printf(out, " %9.3f\n", r->compile_seconds);
        }
        /* notes: failures, TTNN unavailable, loomc's and the best schedules */
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            if (!r->ok)
                continue;
            lm_buf_printf(out, "  %s\n    loomc: %s\n", r->label, r->loomc_label);
            if (r->best_cycles < r->loomc_cycles)
                lm_buf_printf(out, "    best:  %s\n", r->best_label);
            if (!r->ttnn_ok && r->ttnn_why)
                lm_buf_printf(out, "    ttnn n/a: %s\n", r->ttnn_why);
            if (r->tuned_ok)
                lm_buf_printf(out, "    ttnn-tuned: %.0f cycles (loomc %.2fx)%s%s\n", r->tuned_cycles,
                              r->tuned_cycles / r->loomc_cycles, r->tuned_label ? ", " : "",
                              r->tuned_label ? r->tuned_label : "");
            if (r->failures) {
                lm_buf_printf(out, "    %lld points could not be run:", (long long)r->failures);
                for (int q = 0; q < r->nfail_kinds; q++)
                    lm_buf_printf(out, "%s %lld '%s...'", q ? "," : "", (long long)r->fail_kinds[q].count,
                                  r->fail_kinds[q].kind);
                lm_buf_printf(out, "\n      first: %s\n      (%s)\n", r->failure_why ? r->failure_why : "?",
                              r->failure_point ? r->failure_point : "?");
            }
        }
    }
    if (b->ntrials) {
        lm_buf_printf(out, "\ntuner@N: the tuner's best after N simulated trials (regret against best known; '>' when\n"
                           "every trial so far was stopped at the cap, so the regret is at least that; "
                           "'compile s' and 'tune s' = host CPU seconds, the latter for the last budget; the simulated kernel time of tuning is in the JSON).\n");
    }
    bench_groups_free(g, ng);
}

/* ---- JSON ----------------------------------------------------------------- */

/* A figure of a row: exact when whole, else to 6 significant digits; null
 * when there is none (not finite). */
static json_t *jnum(double x)
{
    if (isfinite(x) && x == floor(x) && fabs(x) < 9e15)
        return lm_json_fixed(x, 0);
    return lm_json_sig(x, 6);
}

/* A baseline's member: its cycles and loomc's speedup over it, or why it has none. */
static json_t *jbaseline(bool ok, double cycles, double loomc_cycles, const char *why, const char *config)
{
    json_t *o = lm_json_obj();
    if (ok) {
        lm_json_set(o, "cycles", jnum(cycles));
        lm_json_set(o, "speedup_of_loomc", jnum(cycles / loomc_cycles));
        if (config)
            lm_json_set(o, "config", lm_json_string(config));
    } else {
        lm_json_set(o, "cycles", jnum(NAN));
        lm_json_set(o, "why", lm_json_string(why));
    }
    return o;
}

static json_t *jloomc(const bench_row *r)
{
    json_t *o = lm_json_obj();
    lm_json_set(o, "cycles", jnum(r->loomc_cycles));
    lm_json_set(o, "predicted_cycles", jnum((double)r->loomc_predicted));
    lm_json_set(o, "top5_cycles", jnum(r->top5_cycles));
    lm_json_set(o, "schedule", lm_json_string(r->loomc_label));
    return o;
}

static json_t *jbest(const bench_row *r)
{
    json_t *o = lm_json_obj();
    lm_json_set(o, "cycles", jnum(r->best_cycles));
    lm_json_set(o, "schedule", lm_json_string(r->best_label));
    lm_json_set(o, "top1_regret", jnum(bench_regret(r->loomc_cycles, r->best_cycles)));
    lm_json_set(o, "top5_regret", jnum(bench_regret(r->top5_cycles, r->best_cycles)));
    return o;
}

static json_t *joracle(const bench_row *r)
{
    json_t *o = lm_json_obj();
    lm_json_set(o, "exact", lm_json_bool(r->oracle_exact));
    lm_json_set(o, "space", lm_json_int(r->space));
    lm_json_set(o, "space_known", lm_json_bool(r->space_known));
    lm_json_set(o, "points", lm_json_int(r->oracle_points));
    lm_json_set(o, "points_ran", lm_json_int(r->oracle_ran_points));
    lm_json_set(o, "cycles", jnum(r->oracle_cycles));
    lm_json_set(o, "loomc_rank", lm_json_int(r->loomc_rank));
    lm_json_set(o, "ranked", lm_json_int(r->ranked));
    lm_json_set(o, "spearman", jnum(r->spearman));
    lm_json_set(o, "spearman_points", lm_json_int(r->spearman_n));
    lm_json_set(o, "spearman_best10", jnum(r->spearman_top));
    lm_json_set(o, "spearman_best10_points", lm_json_int(r->spearman_top_n));
    lm_json_set(o, "pair_error", jnum(r->pair_error));
    lm_json_set(o, "pair_error_points", lm_json_int(r->pair_n));
    return o;
}

static json_t *jtuner(const bench_row *r)
{
    json_t *a = lm_json_arr();
    for (int m = 0; m < r->nmarks; m++) {
        const bench_tuner_mark *k = &r->marks[m];
        json_t *o = lm_json_obj();
        lm_json_set(o, "trials", lm_json_int(k->trials));
        lm_json_set(o, "used", lm_json_int(k->used));
        lm_json_set(o, "cycles", jnum(k->best >= 0 ? k->best_cycles : NAN));
        lm_json_set(o, "regret", jnum(k->best >= 0 ? bench_regret(k->best_cycles, r->best_cycles) : NAN));
        lm_json_set(o, "lower_bound", lm_json_bool(k->lower_bound));
        lm_json_set(o, "simulated_seconds", jnum(k->sim_seconds));
        lm_json_set(o, "host_seconds", jnum(k->wall_seconds));
        lm_json_push(a, o);
    }
    return a;
}

/* Every simulated schedule of the row (--points): predicted and simulated cycles. */
static json_t *jpoints(const bench_row *r)
{
    json_t *a = lm_json_arr();
    for (int q = 0; q < r->npoints; q++) {
        json_t *o = lm_json_obj();
        lm_json_set(o, "schedule", lm_json_string(r->points[q].schedule));
        lm_json_set(o, "predicted", lm_json_int(r->points[q].predicted));
        lm_json_set(o, "cycles", jnum(r->points[q].cycles));
        lm_json_push(a, o);
    }
    return a;
}

/* How many of the schedules simulated failed, and an example, when any did. */
static void jfailures(json_t *o, const bench_row *r)
{
    lm_json_set(o, "failed_points", lm_json_int(r->failures));
    if (!r->failure_why)
        return;
    json_t *kinds = lm_json_obj();
    lm_json_set(o, "failed_example", lm_json_string(r->failure_why));
    lm_json_set(o, "failed_schedule", lm_json_string(r->failure_point));
    for (int q = 0; q < r->nfail_kinds; q++)
        lm_json_set(kinds, r->fail_kinds[q].kind, lm_json_int(r->fail_kinds[q].count));
    lm_json_set(o, "failed_kinds", kinds);
}

static json_t *jrow(const bench_row *r)
{
    json_t *o = lm_json_obj();
    lm_json_set(o, "operator", lm_json_string(r->suite_op));
    lm_json_set(o, "shape", lm_json_string(r->label));
    lm_json_set(o, "arch", lm_json_string(r->arch));
    lm_json_set(o, "ok", lm_json_bool(r->ok));
    if (!r->ok) {
        lm_json_set(o, "error", lm_json_string(r->why));
        return o;
    }
    lm_json_set(o, "compile_seconds", jnum(r->compile_seconds));
    lm_json_set(o, "flops", jnum(r->flops));
    lm_json_set(o, "bytes", jnum(r->bytes));
    lm_json_set(o, "fidelity", lm_json_string(r->fidelity));
    lm_json_set(o, "peak_tflops", jnum(r->peak_tflops));
    lm_json_set(o, "dram_bound_tflops", jnum(r->dram_tflops > 0 ? r->dram_tflops : NAN));
    lm_json_set(o, "clock_ghz", jnum(r->clock_ghz));
    lm_json_set(o, "loomc", jloomc(r));
    lm_json_set(o, "ttnn", jbaseline(r->ttnn_ok, r->ttnn_cycles, r->loomc_cycles, r->ttnn_why, NULL));
    lm_json_set(o, "ttnn_tuned", jbaseline(r->tuned_ok, r->tuned_cycles, r->loomc_cycles, r->tuned_why, r->tuned_label));
    lm_json_set(o, "best_known", jbest(r));
    if (r->oracle_ran)
        lm_json_set(o, "oracle", joracle(r));
    if (r->nmarks)
        lm_json_set(o, "tuner", jtuner(r));
    if (r->npoints)
        lm_json_set(o, "points", jpoints(r));
    jfailures(o, r);
    return o;
}

json_t *bench_json_doc(const bench_result *b)
{
    json_t *d = lm_json_doc("loomc-bench", BENCH_JSON_VERSION), *rows = lm_json_arr();
    lm_json_set(d, "simulated", lm_json_bool(true));
    lm_json_set(d, "oracle_bound", lm_json_int(b->opts.oracle_bound));
    lm_json_set(d, "seed", lm_json_int((int64_t)b->opts.seed));
    for (int i = 0; i < b->nrows; i++)
        lm_json_push(rows, jrow(&b->rows[i]));
    lm_json_set(d, "rows", rows);
    return d;
}

void bench_json(lm_buf *out, const bench_result *b)
{
    json_t *d = bench_json_doc(b);
    lm_json_write(out, d);
    json_decref(d);
}

/* ---- plots ------------------------------------------------------------------ */

const char *bench_plot_name(const char *op, const char *arch, const char *what, lm_arena *ar)
{
    char *s = lm_arena_printf(ar, "%s_%s%s", op, arch, what);
    for (char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.'))
            *c = '_';
    return s;
}

static bool write_file(const char *dir, const char *name, const lm_buf *b, lm_diag *d)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(b->s ? b->s : "", 1, b->len, f) != b->len) {
        lm_error_plain(d, "cannot write '%s': %s", path, strerror(errno));
        if (f)
            fclose(f);
        return false;
    }
    fclose(f);
    return true;
}

/* gnuplot SCRIPT with dir as the working folder; its exit status (127: not found). */
static int run_gnuplot(const char *dir, const char *script)
{
    const char *argv[] = {"gnuplot", script, NULL};
    lm_proc p = {.argv = argv, .dir = dir};
    lm_proc_run(&p);
    return p.signal ? -1 : p.status;
}

static void dat_num(lm_buf *b, double x)
{
    if (isfinite(x) && x > 0)
        lm_buf_printf(b, " %.6g", x);
    else
        lm_buf_puts(b, " ?");
}

typedef LM_VEC(const char *) names;

/* Per group, the data file and the gnuplot scripts into dir (which exists);
 * the scripts' names (in ar) into *scripts. False after reporting. */
static bool write_plots(const bench_result *b, const char *dir, names *scripts, lm_arena *ar, lm_diag *d)
{
    bench_group *g;
    int ng = bench_groups(b, &g);
    bool ok = true;
    int64_t last = b->ntrials ? b->trials[b->ntrials - 1] : 0;
    for (int i = 0; i < ng && ok; i++) {
        const char *dat = bench_plot_name(g[i].op, g[i].arch, ".dat", ar);
        lm_buf db = {0};
        lm_buf_printf(&db, "# %s on %s, simulated. columns: index shape loomc_speedup tuner_speedup best_speedup "
                           "intensity loomc_tflops ttnn_tflops best_tflops rank ranked\n",
                      g[i].op, g[i].arch);
        double peak = 0, bw = 0, aimin = INFINITY, aimax = 0;
        bool any_roof = false, any_rank = false, any_speedup = false;
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            lm_buf_printf(&db, "%d \"%s\"", k, r->label);
            if (!r->ok) {
                lm_buf_puts(&db, " ? ? ? ? ? ? ? ? ?\n");
                continue;
            }
            const bench_tuner_mark *lm = r->nmarks ? &r->marks[r->nmarks - 1] : NULL;
            double tun = lm && lm->best >= 0 && !lm->lower_bound ? lm->best_cycles : NAN;
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / r->loomc_cycles : NAN);
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / tun : NAN);
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / r->best_cycles : NAN);
            double ai = r->bytes > 0 ? r->flops / r->bytes : NAN;
            double sec = 1.0 / (r->clock_ghz * 1e9);
            dat_num(&db, ai);
            dat_num(&db, r->flops / (r->loomc_cycles * sec) / 1e12);
            dat_num(&db, r->ttnn_ok ? r->flops / (r->ttnn_cycles * sec) / 1e12 : NAN);
            dat_num(&db, r->flops / (r->best_cycles * sec) / 1e12);
            dat_num(&db, r->oracle_ran ? (double)r->loomc_rank : NAN);
            dat_num(&db, r->oracle_ran ? (double)r->ranked : NAN);
            lm_buf_putc(&db, '\n');
            peak = LM_MAX(peak, r->peak_tflops);
            if (isfinite(ai) && r->flops > 0) {
                any_roof = true;
                bw = r->dram_tflops / ai; /* TB/s */
                aimin = LM_MIN(aimin, ai);
                aimax = LM_MAX(aimax, ai);
            }
            any_rank |= r->oracle_ran;
            any_speedup |= r->ttnn_ok;
        }
        ok = write_file(dir, dat, &db, d);
        lm_buf_free(&db);

        const char *title = lm_arena_printf(ar, "%s on %s", g[i].op, g[i].arch);
        /* speedup per shape (gnuplot rejects a plot with no point: groups whose
           rows all failed get the data file only) */
        lm_buf s = {0};
        const char *png = bench_plot_name(g[i].op, g[i].arch, "_speedup.svg", ar);
        const char *gp;
        if (any_speedup) {
            lm_buf_printf(&s,
                          "# speedup over TTNN's default schedule per shape (simulated)\n"
                          "set terminal svg size 1000,460 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\n"
                          "set datafile missing '?'\n"
                          "set title '%s: speedup over TTNN defaults (simulated)'\n"
                          "set style data histograms\nset style histogram clustered gap 1\n"
                          "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
                          "set ylabel 'speedup over TTNN (x, simulated)'\nset yrange [0:*]\n"
                          "set xtics rotate by -30 left font ',8'\nset grid ytics\nset key top left\n"
                          "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40'\n"
                          "plot '%s' using 3:xtic(2) title 'loomc', '' using 4 title 'tuner@%lld', "
                          "'' using 5 title 'best known'\n",
                          png, title, dat, (long long)last);
            gp = bench_plot_name(g[i].op, g[i].arch, "_speedup.gp", ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(scripts, gp);
            lm_buf_free(&s);
        }
        /* roofline */
        if (any_roof) {
            lm_buf_printf(&s,
                          "# achieved TFLOP/s against the roofline (simulated)\n"
                          "set terminal svg size 800,560 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\nset datafile missing '?'\n"
                          "set title '%s: achieved TFLOP/s against the roofline (simulated)'\n"
                          "set logscale xy\nset grid\nset key bottom right\n"
                          "set xlabel 'arithmetic intensity (FLOP per byte of least DRAM traffic)'\n"
                          "set ylabel 'TFLOP/s (simulated)'\n"
                          "peak = %.6g\nbw = %.6g\n"
                          "set xrange [%.6g:%.6g]\n"
                          "roof(x) = (bw * x < peak) ? bw * x : peak\n"
                          "plot roof(x) title sprintf('roofline (peak %%.0f TFLOP/s at %s, DRAM %%.2f TB/s)', peak, bw) "
                          "lc rgb 'black', "
                          "'%s' using 6:7 with points pt 7 ps 1.2 title 'loomc', "
                          "'' using 6:8 with points pt 5 ps 1.0 title 'TTNN default', "
                          "'' using 6:9 with points pt 6 ps 1.6 title 'best known'\n",
                          bench_plot_name(g[i].op, g[i].arch, "_roofline.svg", ar), title, peak, bw, aimin / 2,
                          LM_MAX(aimax, peak / bw) * 2,
                          b->rows[g[i].rows[0]].fidelity ? b->rows[g[i].rows[0]].fidelity : "?", dat);
            gp = bench_plot_name(g[i].op, g[i].arch, "_roofline.gp", ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(scripts, gp);
            lm_buf_free(&s);
        }
        /* rank of loomc's pick */
        if (any_rank) {
            lm_buf_printf(&s,
                          "# simulated rank of loomc's pick among the oracle's points (1 = best)\n"
                          "set terminal svg size 1000,460 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\nset datafile missing '?'\n"
                          "set title \"%s: simulated rank of loomc's pick (1 = best)\"\n"
                          "set logscale y\nset yrange [0.8:*]\nset grid ytics\nset key top left\n"
                          "set xtics rotate by -30 left font ',8'\nset style fill solid 0.85 border -1\n"
                          "set boxwidth 0.6\nset ylabel 'rank (simulated, log scale)'\n"
                          "plot '%s' using 1:10:xtic(2) with boxes title \"rank of loomc's pick\", "
                          "'' using 1:11 with linespoints pt 2 title 'schedules ranked'\n",
                          bench_plot_name(g[i].op, g[i].arch, "_rank.svg", ar), title, dat);
            gp = bench_plot_name(g[i].op, g[i].arch, "_rank.gp", ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(scripts, gp);
            lm_buf_free(&s);
        }
    }
    bench_groups_free(g, ng);
    return ok;
}

/* Run the scripts in dir: 1 when all drew their plots, 0 when gnuplot is
 * not installed, -1 after reporting a failure. */
static int render(const char *dir, const names *scripts, lm_diag *d)
{
    for (size_t i = 0; i < scripts->len; i++) {
        int st = run_gnuplot(dir, scripts->items[i]);
        if (st == 127)
            return 0;
        if (st != 0) {
            lm_error_plain(d, "gnuplot failed on %s/%s (status %d)", dir, scripts->items[i], st);
            return -1;
        }
    }
    return 1;
}

bool bench_plots(const bench_result *b, const char *dir, lm_diag *d)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        lm_error_plain(d, "cannot create '%s': %s", dir, strerror(errno));
        return false;
    }
    lm_arena ar;
    lm_arena_init(&ar);
    names scripts = {0};
    bool ok = write_plots(b, dir, &scripts, &ar, d);
    int r = ok ? render(dir, &scripts, d) : -1;
    if (r == 0)
        fprintf(stderr, "loomc bench: gnuplot is not installed: the scripts are in %s (run them there)\n", dir);
    LM_VEC_FREE(&scripts);
    lm_arena_free(&ar);
    return r >= 0;
}

bool bench_plot_svgs(const bench_result *b, const char *dir, lm_diag *d, bool *rendered)
{
    lm_arena ar;
    lm_arena_init(&ar);
    names scripts = {0};
    bool ok = write_plots(b, dir, &scripts, &ar, d);
    int r = ok ? render(dir, &scripts, d) : -1;
    *rendered = r == 1;
    LM_VEC_FREE(&scripts);
    lm_arena_free(&ar);
    return r >= 0;
}
