/* quality.c - how well loomc's latency model picks and orders schedules,
 * measured against the simulator (`loomc bench --model-quality`,
 * docs/scheduler.md "Model quality"): the model's error when it compares
 * two good schedules (bench_pair_error), and the report - per operator and
 * chip the rank correlation of predicted and simulated cycles, loomc's
 * top-1 regret against the best schedule found (mean, worst and the worst
 * row), the pick's predicted over simulated cycles, and whether the targets
 * (BENCH_TARGET_*) are met; then every row.
 *
 * Every cycle figure is simulated.
 */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pair error ------------------------------------------------------ */

typedef struct byval {
    double v;
    int i;
} byval;

static int cmp_byval(const void *a, const void *b)
{
    const byval *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i - y->i;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of v[0..n-1] (sorted in place; nearest rank). */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)ceil(q * n);
    return v[LM_MIN(n, LM_MAX(k, 1)) - 1];
}

double bench_pair_error(const double *pred, const double *sim, int n, double frac, int min_n, int *used)
{
    int k = LM_MIN(n, LM_MAX((int)ceil(frac * n), min_n));
    *used = k;
    if (k < 2)
        return NAN;
    byval *o = lm_xmalloc(sizeof *o * (size_t)n);
    for (int i = 0; i < n; i++)
        o[i] = (byval){pred[i], i};
    qsort(o, (size_t)n, sizeof *o, cmp_byval);
    double *lr = lm_xmalloc(sizeof *lr * (size_t)k);
    for (int i = 0; i < k; i++)
        lr[i] = log(sim[o[i].i] / LM_MAX(pred[o[i].i], 1.0));
    int m = k * (k - 1) / 2, np = 0;
    double *d = lm_xmalloc(sizeof *d * (size_t)m);
    for (int i = 0; i < k; i++)
        for (int j = i + 1; j < k; j++)
            d[np++] = fabs(lr[i] - lr[j]);
    double e = expm1(quantile(d, np, 0.5));
    free(o);
    free(lr);
    free(d);
    return e;
}

/* ---- the report ------------------------------------------------------------ */

static bool usable(const bench_row *r) { return r->ok && r->oracle_ran; }

static double regret_of(const bench_row *r) { return bench_regret(r->loomc_cycles, r->best_cycles); }

/* The pick's predicted over simulated cycles. */
static double pred_ratio(const bench_row *r)
{
    return r->loomc_cycles > 0 && r->loomc_predicted > 0 ? (double)r->loomc_predicted / r->loomc_cycles : NAN;
}

/* What one group's (or all groups') rows add up to. */
typedef struct qsum {
    int rows, ok, exact, nrho, inband, nratio, npair, worst;
    double rho, regret, regret_max, rmin, rmax;
    double *ratio, *pair; /* heap, one per usable row */
} qsum;

static void qsum_add(qsum *s, const bench_result *b, int row)
{
    const bench_row *r = &b->rows[row];
    s->rows++;
    if (!usable(r))
        return;
    s->ok++;
    s->exact += r->oracle_exact;
    if (!isnan(r->spearman)) {
        s->rho += r->spearman;
        s->nrho++;
    }
    double x = regret_of(r);
    s->regret += x;
    if (s->worst < 0 || x > s->regret_max) {
        s->regret_max = x;
        s->worst = row;
    }
    double q = pred_ratio(r);
    if (!isnan(q)) {
        s->ratio = lm_xrealloc(s->ratio, sizeof *s->ratio * (size_t)(s->nratio + 1));
        s->ratio[s->nratio++] = q;
        s->rmin = s->nratio == 1 ? q : LM_MIN(s->rmin, q);
        s->rmax = s->nratio == 1 ? q : LM_MAX(s->rmax, q);
        s->inband += fabs(q - 1) <= BENCH_TARGET_PRED_BAND / 1000.0;
    }
    if (!isnan(r->pair_error)) {
        s->pair = lm_xrealloc(s->pair, sizeof *s->pair * (size_t)(s->npair + 1));
        s->pair[s->npair++] = r->pair_error;
    }
}

static void qsum_free(qsum *s)
{
    free(s->ratio);
    free(s->pair);
}

/* One summary line: operator, chip, the figures, the targets, the worst row. */
static void summary_line(lm_buf *out, const bench_result *b, const char *op, const char *arch, qsum *s)
{
    lm_buf_printf(out, "%-17s %-24s %2d/%-2d %2d/%-2d", op, arch, s->ok, s->rows, s->exact, s->ok);
    if (!s->ok) {
        lm_buf_puts(out, "  no row ran\n");
        return;
    }
    if (s->nrho)
        lm_buf_printf(out, " %8.3f", s->rho / s->nrho);
    else
        lm_buf_printf(out, " %8s", "-");
    double mean = s->regret / s->ok;
    lm_buf_printf(out, "  %5.1f%% / %5.1f%%", 100 * mean, 100 * s->regret_max);
    bool pred_ok = false;
    if (s->nratio) {
        double med = quantile(s->ratio, s->nratio, 0.5);
        lm_buf_printf(out, "  %4.2f [%4.2f, %4.2f]  %2d/%-2d %3.0f%%", med, s->rmin, s->rmax, s->inband, s->ok,
                      100.0 * s->inband / s->ok);
        pred_ok = 1000 * s->inband >= BENCH_TARGET_PRED_ROWS * s->ok;
    } else {
        lm_buf_printf(out, "  %18s  %11s", "-", "-");
    }
    if (s->npair)
        lm_buf_printf(out, "  %6.1f%%", 100 * quantile(s->pair, s->npair, 0.5));
    else
        lm_buf_printf(out, "  %7s", "-");
    bool mean_ok = 1000 * mean <= BENCH_TARGET_REGRET_MEAN, worst_ok = 1000 * s->regret_max <= BENCH_TARGET_REGRET_WORST;
    if (mean_ok && worst_ok && pred_ok && s->ok == s->rows)
        lm_buf_puts(out, "  met");
    else
        lm_buf_printf(out, "  missed:%s%s%s%s", mean_ok ? "" : " mean", worst_ok ? "" : " worst", pred_ok ? "" : " pred",
                      s->ok == s->rows ? "" : " rows");
    const bench_row *w = &b->rows[s->worst];
    lm_buf_printf(out, "\n%-17s worst: %s%s%s (loomc %.0f, best %.0f cycles)", "", w->label, strcmp(w->arch, arch) ? " on " : "",
                  strcmp(w->arch, arch) ? w->arch : "", w->loomc_cycles, w->best_cycles);
    lm_buf_putc(out, '\n');
}

static void row_line(lm_buf *out, const bench_row *r)
{
    lm_buf_printf(out, "  %-36s", r->label);
    if (!usable(r)) {
        lm_buf_printf(out, " failed: %s\n", r->why ? r->why : "no oracle");
        return;
    }
    lm_buf_printf(out, " %6lld %7s", (long long)r->spearman_n, r->oracle_exact ? "exact" : "sampled");
    if (isnan(r->spearman))
        lm_buf_printf(out, " %8s", "-");
    else
        lm_buf_printf(out, " %8.3f", r->spearman);
    if (isnan(r->spearman_top))
        lm_buf_printf(out, " %8s", "-");
    else
        lm_buf_printf(out, " %8.3f", r->spearman_top);
    char cell[48];
    snprintf(cell, sizeof cell, "%lld/%lld", (long long)r->loomc_rank, (long long)r->ranked);
    lm_buf_printf(out, " %6.1f%% %9s %10lld %10.0f", 100 * regret_of(r), cell, (long long)r->loomc_predicted,
                  r->loomc_cycles);
    double q = pred_ratio(r);
    if (isnan(q))
        lm_buf_printf(out, " %6s", "-");
    else
        lm_buf_printf(out, " %6.2f", q);
    if (isnan(r->pair_error))
        lm_buf_puts(out, "       -\n");
    else
        lm_buf_printf(out, " %6.1f%%\n", 100 * r->pair_error);
}

void bench_print_quality(lm_buf *out, const bench_result *b)
{
    bench_group *g;
    int ng = bench_groups(b, &g);
    lm_buf_printf(out,
                  "loomc bench --model-quality: loomc's predicted cycles against simulated cycles over the oracle's\n"
                  "points (every legal point when exact, a stratified sample of %lld otherwise), and loomc's pick\n"
                  "against the best schedule found. All cycles are simulated; no figure is a hardware measurement.\n"
                  "Targets: top-1 regret at most %.0f%% on average and %.0f%% at worst, the pick's predicted cycles\n"
                  "within +-%.0f%% of the simulated ones on at least %.0f%% of the rows, per operator and chip.\n\n",
                  (long long)b->opts.oracle_bound, BENCH_TARGET_REGRET_MEAN / 10.0, BENCH_TARGET_REGRET_WORST / 10.0,
                  BENCH_TARGET_PRED_BAND / 10.0, BENCH_TARGET_PRED_ROWS / 10.0);
    lm_buf_printf(out, "%-17s %-24s %5s %5s %8s  %15s  %18s  %11s  %7s  %s\n", "operator", "chip", "rows", "exact",
                  "spearman", "top-1 regret", "pick pred/sim", "pred within", "pair", "targets");
    lm_buf_printf(out, "%-17s %-24s %5s %5s %8s  %15s  %18s  %11s  %7s\n", "", "", "", "", "mean", "mean / worst",
                  "median [min, max]", "+-20%", "error");
    qsum all = {.worst = -1};
    for (int i = 0; i < ng; i++) {
        qsum s = {.worst = -1};
        for (int k = 0; k < g[i].n; k++) {
            qsum_add(&s, b, g[i].rows[k]);
            qsum_add(&all, b, g[i].rows[k]);
        }
        summary_line(out, b, g[i].op, g[i].arch, &s);
        qsum_free(&s);
    }
    if (ng > 1)
        summary_line(out, b, "all", "every chip", &all);
    qsum_free(&all);

    for (int i = 0; i < ng; i++) {
        lm_buf_printf(out, "\n%s on %s (cycles simulated; predicted: loomc's model)\n", g[i].op, g[i].arch);
        lm_buf_printf(out, "  %-36s %6s %7s %8s %8s %7s %9s %10s %10s %6s %7s\n", "shape", "points", "oracle",
                      "spearman", "best 10%", "regret", "rank", "predicted", "simulated", "ratio", "pair");
        for (int k = 0; k < g[i].n; k++)
            row_line(out, &b->rows[g[i].rows[k]]);
    }
    lm_buf_puts(out, "\nspearman: rank correlation of predicted and simulated cycles over a row's points (1 = same order);\n"
                     "best 10%: the same over the tenth simulated fastest (at least 10 points).\n"
                     "top-1 regret: simulated cycles of loomc's pick over the best known of the row - 1; rank: the\n"
                     "pick's simulated rank among the row's points (1 = best).\n"
                     "pred/sim, ratio: the pick's predicted over its simulated cycles.\n"
                     "pair error: over the tenth of a row's points the model predicts fastest (at least 10), the median\n"
                     "over pairs of how far the predicted ratio of the two is from the simulated one; the summary\n"
                     "gives the median over rows.\n");
    bench_groups_free(g, ng);
}
