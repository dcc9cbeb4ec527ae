/* stats.c - the arithmetic behind the evaluation tables: geometric
 * means of speedups, regret against the best schedule, Spearman's rank
 * correlation between predicted and simulated cycles, and a deterministic
 * random number generator for the oracle's sample and the tuner. Kept apart
 * so the unit tests can check it on hand-made data.
 */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

double bench_geomean(const double *x, int n)
{
    if (n <= 0)
        return 0;
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (!(x[i] > 0))
            return 0;
        s += log(x[i]);
    }
    return exp(s / n);
}

double bench_regret(double cycles, double best) { return best > 0 ? cycles / best - 1.0 : 0.0; }

typedef struct ranked {
    double v;
    int i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->i - y->i;
}

void bench_ranks(const double *x, int n, double *rank)
{
    if (n <= 0)
        return;
    ranked *r = lm_xmalloc(sizeof *r * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = (ranked){x[i], i};
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && r[j + 1].v == r[i].v)
            j++;
        double mean = (i + 1 + j + 1) / 2.0; /* positions i..j share their mean rank */
        for (int k = i; k <= j; k++)
            rank[r[k].i] = mean;
        i = j + 1;
    }
    free(r);
}

double bench_spearman(const double *x, const double *y, int n)
{
    if (n < 2)
        return 0;
    double *rx = lm_xmalloc(sizeof *rx * (size_t)n), *ry = lm_xmalloc(sizeof *ry * (size_t)n);
    bench_ranks(x, n, rx);
    bench_ranks(y, n, ry);
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        mx += rx[i];
        my += ry[i];
    }
    mx /= n;
    my /= n;
    double sxy = 0, sxx = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my);
        sxx += (rx[i] - mx) * (rx[i] - mx);
        syy += (ry[i] - my) * (ry[i] - my);
    }
    free(rx);
    free(ry);
    if (sxx <= 0 || syy <= 0)
        return 0;
    return sxy / sqrt(sxx * syy);
}

double bench_spearman_best(const double *pred, const double *sim, int n, double frac, int min_n, int *used)
{
    int k = (int)ceil(frac * n);
    k = LM_MIN(n, LM_MAX(k, min_n));
    *used = k;
    if (k < 2)
        return 0;
    ranked *r = lm_xmalloc(sizeof *r * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = (ranked){sim[i], i};
    qsort(r, (size_t)n, sizeof *r, cmp_ranked);
    double *p = lm_xmalloc(sizeof *p * (size_t)k), *q = lm_xmalloc(sizeof *q * (size_t)k);
    for (int i = 0; i < k; i++) {
        p[i] = pred[r[i].i];
        q[i] = sim[r[i].i];
    }
    double rho = bench_spearman(p, q, k);
    free(r);
    free(p);
    free(q);
    return rho;
}

uint64_t bench_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t bench_rng_below(uint64_t *state, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* rejection keeps it uniform */
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
        r = bench_rng_next(state);
    while (r >= lim);
    return r % n;
}

double bench_rng_unit(uint64_t *state) { return (double)(bench_rng_next(state) >> 11) * (1.0 / 9007199254740992.0); }

double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
