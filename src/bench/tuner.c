/* tuner.c - a budgeted autotuner over loomc's schedule space, to show what
 * tuning buys over loomc's single solve and at what cost.
 *
 * It does what an autotuner does with a timing oracle and no model: a few
 * random points, then local search around the best point so far (one
 * variable moved one or two domain positions, now and then the same values
 * under another mapping candidate), with a random restart every fifth trial
 * so that it does not stay in one basin. Every proposal is moved to the
 * nearest legal point (bench_space_nearest) and a point already tried is never
 * tried again, so each trial is one new simulation's worth of information.
 *
 * Determinism: one splitmix64 stream from the seed; trial t's proposal
 * depends only on the results of trials 0..t-1, so the best after 10 trials
 * of a 1000-trial run is exactly what a 10-trial run finds.
 */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tctx {
    const bench_space *sp;
    bench_evaluator *ev;
    LM_VEC(unsigned char) mine; /* per evaluator entry: tried by the tuner */
    uint64_t rng;
    int maxv;
    int *tgt;
    int64_t *pt;
} tctx;

static bool tried(const tctx *c, int s, const int64_t *values)
{
    int e = bench_evaluated(c->ev, s, values);
    return e >= 0 && (size_t)e < c->mine.len && c->mine.items[e];
}

static int position(const solve_var *v, int64_t value)
{
    for (int i = 0; i < v->ndomain; i++)
        if (v->domain[i] == value)
            return i;
    return 0;
}

static bool propose_random(tctx *c, int *s)
{
    *s = (int)bench_rng_below(&c->rng, (uint64_t)c->sp->nst);
    const solve_problem *p = c->sp->st[*s].problem;
    for (int j = 0; j < p->nvars; j++)
        c->tgt[j] = (int)bench_rng_below(&c->rng, (uint64_t)(p->vars[j].ndomain ? p->vars[j].ndomain : 1));
    return bench_space_nearest(c->sp, *s, c->tgt, c->pt);
}

static bool propose_local(tctx *c, const bench_entry *inc, int *s)
{
    const bench_space *sp = c->sp;
    const solve_problem *p0 = sp->st[inc->s].problem;
    if (sp->nst > 1 && bench_rng_below(&c->rng, 10) == 0) {
        /* another mapping candidate with the incumbent's values */
        int s2 = (int)bench_rng_below(&c->rng, (uint64_t)sp->nst - 1);
        if (s2 >= inc->s)
            s2++;
        const solve_problem *q = sp->st[s2].problem;
        for (int j = 0; j < q->nvars; j++) {
            c->tgt[j] = (int)bench_rng_below(&c->rng, (uint64_t)(q->vars[j].ndomain ? q->vars[j].ndomain : 1));
            for (int k = 0; k < p0->nvars; k++)
                if (p0->vars[k].var == q->vars[j].var)
                    c->tgt[j] = position(&q->vars[j], inc->values[k]);
        }
        *s = s2;
        return bench_space_nearest(sp, s2, c->tgt, c->pt);
    }
    if (p0->nvars == 0)
        return false;
    for (int j = 0; j < p0->nvars; j++)
        c->tgt[j] = position(&p0->vars[j], inc->values[j]);
    int j = (int)bench_rng_below(&c->rng, (uint64_t)p0->nvars);
    int step = bench_rng_below(&c->rng, 4) == 0 ? 2 : 1;
    c->tgt[j] += bench_rng_below(&c->rng, 2) ? step : -step;
    *s = inc->s;
    return bench_space_nearest(sp, inc->s, c->tgt, c->pt);
}

/* A checkpoint. When every trial so far was stopped at the cap, the best is
 * only known to be no faster than the least of their cycles: a lower bound. */
static void mark(bench_tuner_mark *k, int64_t used, int best, double best_c, int low, double low_c, double simsec,
                 double wall)
{
    k->used = used;
    k->best = best >= 0 ? best : low;
    k->best_cycles = best >= 0 ? best_c : low_c;
    k->lower_bound = best < 0 && low >= 0;
    k->sim_seconds = simsec;
    k->wall_seconds = wall;
}

void bench_tuner_run(bench_tuner *t, const bench_space *sp, bench_evaluator *ev, const bench_tuner_opts *opt)
{
    memset(t, 0, sizeof *t);
    int nm = LM_MIN(opt->nmarks, BENCH_MAX_MARKS);
    t->nmarks = nm;
    for (int m = 0; m < nm; m++) {
        t->marks[m].trials = opt->marks[m];
        t->marks[m].best = -1;
    }
    if (nm == 0)
        return;
    int64_t budget = opt->marks[nm - 1];
    tctx c = {.sp = sp, .ev = ev, .rng = opt->seed ^ 0x74756e6572ull};
    c.maxv = 1;
    for (int s = 0; s < sp->nst; s++)
        c.maxv = LM_MAX(c.maxv, sp->st[s].problem->nvars);
    c.tgt = lm_xcalloc((size_t)c.maxv, sizeof *c.tgt);
    c.pt = lm_xcalloc((size_t)c.maxv, sizeof *c.pt);
    /* Points that cannot run cost little, but not nothing: the tuner gives up
       when fewer than one in eight of its points run. The test depends only
       on the history, so every checkpoint still equals a shorter run. */
    int64_t cap = 8 * (budget + 4);
    t->pts = lm_xcalloc((size_t)cap, sizeof *t->pts);

    int best = -1, low = -1;  /* best uncensored; least lower bound among censored */
    double best_c = INFINITY, low_c = INFINITY, simsec = 0, wall = 0;
    int m = 0;
    bool exhausted = sp->nst == 0;
    while (!exhausted && t->trials < budget && t->attempts < 8 * (t->trials + 4)) {
        /* propose until a point not tried yet comes up */
        int s = -1;
        bool found = false;
        /* the incumbent: the best so far, or while every trial hit the cap the
           least of those */
        int inc = best >= 0 ? best : low;
        bool random = t->attempts < 4 || inc < 0 || t->attempts % 5 == 4;
        for (int attempt = 0; attempt < 200 && !found; attempt++) {
            bool r = random || attempt >= 30;
            bool ok = r ? propose_random(&c, &s) : propose_local(&c, &ev->entries.items[inc], &s);
            found = ok && !tried(&c, s, c.pt);
        }
        if (!found) {
            exhausted = true; /* the space (or what the proposals reach) is used up */
            break;
        }
        int e = bench_evaluate(ev, s, c.pt);
        while (c.mine.len < ev->entries.len)
            LM_PUSH(&c.mine, 0);
        c.mine.items[e] = 1;
        t->pts[t->attempts++] = e;
        const bench_entry *x = &ev->entries.items[e];
        wall += x->e.wall_seconds;
        if (x->e.ok) {
            t->trials++;
            simsec += x->e.sim_seconds;
            if (!x->e.censored && x->e.cycles < best_c) {
                best_c = x->e.cycles;
                best = e;
            }
            if (x->e.censored && x->e.cycles < low_c) {
                low_c = x->e.cycles;
                low = e;
            }
        }
        while (m < nm && t->trials >= t->marks[m].trials)
            mark(&t->marks[m++], t->trials, best, best_c, low, low_c, simsec, wall);
    }
    for (; m < nm; m++)
        mark(&t->marks[m], t->trials, best, best_c, low, low_c, simsec, wall);
    free(c.tgt);
    free(c.pt);
    LM_VEC_FREE(&c.mine);
}

void bench_tuner_free(bench_tuner *t)
{
    free(t->pts);
    memset(t, 0, sizeof *t);
}
