/* oracle.c - the schedule space of a job as the oracle and the tuner see it,
 * and the oracle itself.
 *
 * The space is loomc's own: one stratum per feasible combination of mapping
 * candidates, its points the assignments of that combination's solver
 * problem that satisfy every legality constraint. Legal points are found
 * depth-first over the variables in problem order; after each assignment
 * the constraints that mention the variable are bounded with sym_bounds
 * (assigned variables as points, the others over [min, max] of their
 * domain) and a subtree whose lower bound is > 0 is dropped - the same
 * sound pruning as the solver's, so no legal point is ever missed.
 *
 * The oracle simulates every legal point when there are at most `bound` of
 * them. Above the bound it is a deterministic stratified sample of `bound`
 * points: three quarters spread over the strata (a stratum with fewer
 * points than its share gives all of them, the rest is shared out again),
 * inside a stratum a Latin hypercube over the variables' domain positions,
 * each target moved to the nearest legal point; the last quarter polishes
 * the best points found by coordinate descent (every value of one variable
 * at a time, and the same values under the other strata). A sampled
 * oracle's best is an upper bound on the true best; reports say "sampled".
 */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- walking a stratum ----------------------------------------------- */

typedef struct walker {
    const bench_stratum *st;
    int nv, nc;
    sym_env env;       /* b[0..nv) are the variables, in order; then the fixed symbols */
    int64_t *dlo, *dhi;/* per variable: domain min and max */
    bool *dep;         /* nc x nv: constraint c mentions variable j */
    int *last;         /* per constraint: the last variable it mentions (-1: none) */
    int64_t *vals;
    int64_t nodes, node_limit;
    bool root_ok;      /* constraints that mention no variable hold */
} walker;

static void walker_init(walker *w, const bench_stratum *st)
{
    memset(w, 0, sizeof *w);
    const solve_problem *p = st->problem;
    w->st = st;
    w->nv = p->nvars;
    w->nc = p->ncons;
    int nv = w->nv ? w->nv : 1;
    w->dlo = lm_xcalloc((size_t)nv, sizeof *w->dlo);
    w->dhi = lm_xcalloc((size_t)nv, sizeof *w->dhi);
    w->vals = lm_xcalloc((size_t)nv, sizeof *w->vals);
    w->dep = lm_xcalloc((size_t)(w->nc ? w->nc : 1) * (size_t)nv, sizeof *w->dep);
    w->last = lm_xcalloc((size_t)(w->nc ? w->nc : 1), sizeof *w->last);
    for (int j = 0; j < w->nv; j++) {
        const solve_var *v = &p->vars[j];
        int64_t lo = v->ndomain ? v->domain[0] : 0, hi = lo;
        for (int i = 1; i < v->ndomain; i++) {
            lo = LM_MIN(lo, v->domain[i]);
            hi = LM_MAX(hi, v->domain[i]);
        }
        w->dlo[j] = lo;
        w->dhi[j] = hi;
        sym_env_set_range(&w->env, v->var, lo, hi);
    }
    for (int i = 0; st->fixed && i < st->fixed->n; i++) {
        const sym_binding *b = &st->fixed->b[i];
        bool isvar = false;
        for (int j = 0; j < w->nv; j++)
            isvar |= p->vars[j].var == b->var;
        if (!isvar)
            sym_env_set_range(&w->env, b->var, b->lo, b->hi);
    }
    w->root_ok = true;
    for (int c = 0; c < w->nc; c++) {
        w->last[c] = -1;
        for (int j = 0; j < w->nv; j++)
            if (sym_depends_on(p->cons[c].expr, p->vars[j].var)) {
                w->dep[c * w->nv + j] = true;
                w->last[c] = j;
            }
        if (w->last[c] < 0) {
            int64_t v;
            if (sym_eval(p->cons[c].expr, &w->env, &v) != SYM_OK || v > 0)
                w->root_ok = false;
        }
    }
}

static void walker_free(walker *w)
{
    sym_env_free(&w->env);
    free(w->dlo);
    free(w->dhi);
    free(w->vals);
    free(w->dep);
    free(w->last);
}

static void assign(walker *w, int j, int64_t v)
{
    w->vals[j] = v;
    w->env.b[j].lo = w->env.b[j].hi = v;
}

static void unassign(walker *w, int j)
{
    w->env.b[j].lo = w->dlo[j];
    w->env.b[j].hi = w->dhi[j];
}

/* After assigning variable j: can some completion still be legal? */
static bool still_possible(walker *w, int j)
{
    const solve_problem *p = w->st->problem;
    for (int c = 0; c < w->nc; c++) {
        if (!w->dep[c * w->nv + j])
            continue;
        int64_t lo, hi;
        if (w->last[c] <= j) {
            /* every variable it mentions is assigned: decide exactly */
            if (sym_eval(p->cons[c].expr, &w->env, &lo) != SYM_OK || lo > 0)
                return false;
            continue;
        }
        if (sym_bounds(p->cons[c].expr, &w->env, &lo, &hi) == SYM_OK && lo > 0)
            return false;
    }
    return true;
}

/* ---- the space ------------------------------------------------------- */

bool bench_space_legal(const bench_space *sp, int s, const int64_t *values)
{
    const solve_problem *p = sp->st[s].problem;
    sym_env env = {0};
    for (int j = 0; j < p->nvars; j++)
        sym_env_set(&env, p->vars[j].var, values[j]);
    const sym_env *fx = sp->st[s].fixed;
    for (int i = 0; fx && i < fx->n; i++) {
        int64_t lo, hi;
        if (!sym_env_get(&env, fx->b[i].var, &lo, &hi))
            sym_env_set_range(&env, fx->b[i].var, fx->b[i].lo, fx->b[i].hi);
    }
    bool ok = true;
    for (int c = 0; c < p->ncons && ok; c++) {
        int64_t v;
        ok = sym_eval(p->cons[c].expr, &env, &v) == SYM_OK && v <= 0;
    }
    sym_env_free(&env);
    return ok;
}

int64_t bench_space_predict(const bench_space *sp, int s, const int64_t *values)
{
    const solve_problem *p = sp->st[s].problem;
    sym_env env = {0};
    for (int j = 0; j < p->nvars; j++)
        sym_env_set(&env, p->vars[j].var, values[j]);
    const sym_env *fx = sp->st[s].fixed;
    for (int i = 0; fx && i < fx->n; i++) {
        int64_t lo, hi;
        if (!sym_env_get(&env, fx->b[i].var, &lo, &hi))
            sym_env_set_range(&env, fx->b[i].var, fx->b[i].lo, fx->b[i].hi);
    }
    int64_t v = -1;
    if (!p->objective || sym_eval(p->objective, &env, &v) != SYM_OK)
        v = -1;
    sym_env_free(&env);
    return v;
}

typedef struct enum_state {
    walker *w;
    int s;
    int64_t limit, count;
    bench_point_fn fn;
    void *ctx;
    bool stop;
} enum_state;

static void enum_rec(enum_state *e, int j)
{
    walker *w = e->w;
    if (e->stop)
        return;
    if (j == w->nv) {
        e->count++;
        if ((e->fn && !e->fn(e->ctx, e->s, w->vals)) || e->count >= e->limit)
            e->stop = true;
        return;
    }
    const solve_var *v = &w->st->problem->vars[j];
    for (int i = 0; i < v->ndomain && !e->stop; i++) {
        if (w->node_limit && ++w->nodes > w->node_limit) {
            e->stop = true;
            break;
        }
        assign(w, j, v->domain[i]);
        if (still_possible(w, j))
            enum_rec(e, j + 1);
    }
    unassign(w, j);
}

int64_t bench_space_enum(const bench_space *sp, int s, int64_t limit, bench_point_fn fn, void *ctx, bool *all)
{
    walker w;
    walker_init(&w, &sp->st[s]);
    /* a generous node budget: enumeration is for spaces near the bound */
    w.node_limit = limit > 0 ? 200 * limit + 1000000 : 0;
    enum_state e = {&w, s, limit > 0 ? limit : INT64_MAX, 0, fn, ctx, false};
    if (w.root_ok)
        enum_rec(&e, 0);
    if (all)
        *all = !e.stop; /* the walk ended on its own: every legal point was visited */
    walker_free(&w);
    return e.count;
}

static bool nearest_rec(walker *w, const int *target, int j)
{
    if (j == w->nv)
        return true;
    const solve_var *v = &w->st->problem->vars[j];
    int n = v->ndomain, t = LM_MAX(0, LM_MIN(n - 1, target[j]));
    /* positions t, t-1, t+1, t-2, t+2, ... */
    for (int k = 0; k < 2 * n; k++) {
        int d = (k + 1) / 2, pos = k == 0 ? t : (k % 2 ? t - d : t + d);
        if (pos < 0 || pos >= n)
            continue;
        if (++w->nodes > w->node_limit)
            return false;
        assign(w, j, v->domain[pos]);
        if (still_possible(w, j) && nearest_rec(w, target, j + 1))
            return true;
        if (w->nodes > w->node_limit)
            return false;
    }
    unassign(w, j);
    return false;
}

bool bench_space_nearest(const bench_space *sp, int s, const int *target, int64_t *out)
{
    walker w;
    walker_init(&w, &sp->st[s]);
    w.node_limit = 200000;
    bool ok = w.root_ok && nearest_rec(&w, target, 0);
    if (ok && w.nv)
        memcpy(out, w.vals, sizeof *out * (size_t)w.nv);
    walker_free(&w);
    return ok;
}

/* ---- the evaluator ----------------------------------------------------- */

static uint64_t point_hash(int s, const int64_t *values, int nv)
{
    return lm_hash_bytes(values, sizeof *values * (size_t)nv, lm_hash_mix((uint64_t)s, 0x6c6f6f6du));
}

static int nvars_of(const bench_evaluator *ev, int s) { return ev->sp->st[s].problem->nvars; }

void bench_evaluator_init(bench_evaluator *ev, const bench_space *sp, bench_eval_fn fn, void *ctx, double cap_factor)
{
    memset(ev, 0, sizeof *ev);
    ev->sp = sp;
    ev->fn = fn;
    ev->ctx = ctx;
    ev->cap_factor = cap_factor;
    lm_arena_init(&ev->ar);
    ev->nslots = 64;
    ev->slots = lm_xmalloc(sizeof *ev->slots * ev->nslots);
    memset(ev->slots, 0xff, sizeof *ev->slots * ev->nslots);
}

void bench_evaluator_free(bench_evaluator *ev)
{
    LM_VEC_FREE(&ev->entries);
    free(ev->slots);
    lm_arena_free(&ev->ar);
    memset(ev, 0, sizeof *ev);
}

static size_t find_slot(const bench_evaluator *ev, int s, const int64_t *values, uint64_t h)
{
    int nv = nvars_of(ev, s);
    size_t i = (size_t)h & (ev->nslots - 1);
    for (;;) {
        int e = ev->slots[i];
        if (e < 0)
            return i;
        const bench_entry *x = &ev->entries.items[e];
        if (x->hash == h && x->s == s && (!nv || !memcmp(x->values, values, sizeof *values * (size_t)nv)))
            return i;
        i = (i + 1) & (ev->nslots - 1);
    }
}

int bench_evaluated(const bench_evaluator *ev, int s, const int64_t *values)
{
    uint64_t h = point_hash(s, values, nvars_of(ev, s));
    return ev->slots[find_slot(ev, s, values, h)];
}

static void grow(bench_evaluator *ev)
{
    free(ev->slots);
    ev->nslots *= 2;
    ev->slots = lm_xmalloc(sizeof *ev->slots * ev->nslots);
    memset(ev->slots, 0xff, sizeof *ev->slots * ev->nslots);
    for (size_t e = 0; e < ev->entries.len; e++) {
        const bench_entry *x = &ev->entries.items[e];
        ev->slots[find_slot(ev, x->s, x->values, x->hash)] = (int)e;
    }
}

static void count_kind(bench_evaluator *ev, const char *why)
{
    if (!why)
        why = "unknown";
    size_t n = strcspn(why, "0123456789'\"(");
    while (n && why[n - 1] == ' ')
        n--;
    if (n == 0)
        n = strlen(why);
    for (int i = 0; i < ev->nkinds; i++)
        if (strlen(ev->kinds[i].kind) == n && !strncmp(ev->kinds[i].kind, why, n)) {
            ev->kinds[i].count++;
            return;
        }
    if (ev->nkinds < BENCH_MAX_KINDS - 1)
        ev->kinds[ev->nkinds++] = (bench_fail_kind){lm_arena_strndup(&ev->ar, why, n), 1};
    else if (ev->nkinds == BENCH_MAX_KINDS - 1)
        ev->kinds[ev->nkinds++] = (bench_fail_kind){"other", 1};
    else
        ev->kinds[BENCH_MAX_KINDS - 1].count++;
}

double bench_entry_cycles(const bench_entry *e) { return e->e.ok ? e->e.cycles : INFINITY; }

int bench_evaluate(bench_evaluator *ev, int s, const int64_t *values)
{
    int nv = nvars_of(ev, s);
    uint64_t h = point_hash(s, values, nv);
    size_t slot = find_slot(ev, s, values, h);
    if (ev->slots[slot] >= 0)
        return ev->slots[slot];
    bench_entry x = {.s = s, .hash = h};
    int64_t *copy = LM_NEWN(&ev->ar, int64_t, nv ? nv : 1);
    if (nv)
        memcpy(copy, values, sizeof *copy * (size_t)nv);
    x.values = copy;
    double cap = ev->cap_factor > 0 && ev->best > 0 ? ev->cap_factor * ev->best : 0;
    const char *why = NULL;
    double t0 = bench_cpu_seconds();
    if (!ev->fn(ev->ctx, s, values, cap, &x.e, &why)) {
        x.e.ok = false;
        if (!ev->failures)
            ev->first_fail = (int)ev->entries.len;
        ev->failures++;
        if (!ev->first_why)
            ev->first_why = why ? lm_arena_strdup(&ev->ar, why) : "unknown";
        count_kind(ev, why);
    }
    x.e.wall_seconds = bench_cpu_seconds() - t0;
    if (x.e.ok && !x.e.censored && (ev->best <= 0 || x.e.cycles < ev->best))
        ev->best = x.e.cycles;
    ev->runs++;
    int idx = (int)ev->entries.len;
    LM_PUSH(&ev->entries, x);
    ev->slots[slot] = idx;
    if (2 * ev->entries.len > ev->nslots)
        grow(ev);
    if (ev->progress)
        ev->progress(ev->progress_ctx, ev->runs);
    return idx;
}

/* ---- the oracle ------------------------------------------------------- */

/* Points of one stratum, stored flat. */
/* Points of one stratum, stored flat (the first `keep` of them). */
typedef struct plist {
    int nv;
    LM_VEC(int64_t) v;
    int64_t n, keep;
} plist;

static bool collect(void *ctx, int s, const int64_t *values)
{
    (void)s;
    plist *l = ctx;
    if (l->n >= l->keep)
        return true; /* counting on */
    for (int j = 0; j < l->nv; j++)
        LM_PUSH(&l->v, values[j]);
    l->n++;
    return true;
}

typedef struct octx {
    bench_oracle *o;
    const bench_space *sp;
    bench_evaluator *ev;
    LM_VEC(unsigned char) mine; /* per evaluator entry: the oracle asked for it */
    int64_t asked;              /* distinct points the oracle asked for */
    int64_t ran;                /* ... of which ran (lowered and simulated) */
    int64_t max_asked;          /* attempts allowed: unrunnable points cost little, but not nothing */
} octx;

static int visit(octx *c, int s, const int64_t *values)
{
    int e = bench_evaluate(c->ev, s, values);
    while (c->mine.len < c->ev->entries.len)
        LM_PUSH(&c->mine, 0);
    if (!c->mine.items[e]) {
        c->mine.items[e] = 1;
        c->asked++;
        c->ran += c->ev->entries.items[e].e.ok;
        bench_oracle *o = c->o;
        o->pts = lm_xrealloc(o->pts, sizeof *o->pts * (size_t)(o->npts + 1));
        o->pts[o->npts++] = e;
        const bench_entry *x = &c->ev->entries.items[e];
        if (x->e.ok && !x->e.censored && (o->best < 0 || x->e.cycles < o->best_cycles)) {
            o->best = e;
            o->best_cycles = x->e.cycles;
        }
    }
    return e;
}

static bool already(const octx *c, int s, const int64_t *values)
{
    int e = bench_evaluated(c->ev, s, values);
    return e >= 0 && (size_t)e < c->mine.len && c->mine.items[e];
}

typedef struct byc {
    double c;
    int e;
} byc;

static int cmp_byc(const void *a, const void *b)
{
    const byc *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->e - y->e;
}

/* May the oracle run another point within `budget` points that ran? */
static bool more(const octx *c, int64_t budget) { return c->ran < budget && c->asked < c->max_asked; }

/* Coordinate descent from entry `start` until no move improves or the
 * budget is spent. */
static void polish_from(octx *c, int start, int64_t budget)
{
    const bench_space *sp = c->sp;
    int s = c->ev->entries.items[start].s;
    int nv = sp->st[s].problem->nvars;
    int maxv = 1;
    for (int i = 0; i < sp->nst; i++)
        maxv = LM_MAX(maxv, sp->st[i].problem->nvars);
    int64_t *cur = lm_xcalloc((size_t)maxv, sizeof *cur), *cand = lm_xcalloc((size_t)maxv, sizeof *cand);
    int *tgt = lm_xcalloc((size_t)maxv, sizeof *tgt);
    if (nv)
        memcpy(cur, c->ev->entries.items[start].values, sizeof *cur * (size_t)nv);
    double curc = bench_entry_cycles(&c->ev->entries.items[start]);
    bool improved = true;
    while (improved && more(c, budget)) {
        improved = false;
        int bs = s;
        double bc = curc;
        int64_t *best = lm_xcalloc((size_t)maxv, sizeof *best);
        if (nv)
            memcpy(best, cur, sizeof *best * (size_t)nv);
        const solve_problem *p = sp->st[s].problem;
        for (int j = 0; j < nv && more(c, budget); j++) {
            for (int i = 0; i < p->vars[j].ndomain && more(c, budget); i++) {
                if (p->vars[j].domain[i] == cur[j])
                    continue;
                memcpy(cand, cur, sizeof *cand * (size_t)nv);
                cand[j] = p->vars[j].domain[i];
                if (already(c, s, cand) || !bench_space_legal(sp, s, cand))
                    continue;
                int e = visit(c, s, cand);
                const bench_entry *x = &c->ev->entries.items[e];
                if (x->e.ok && !x->e.censored && x->e.cycles < bc) {
                    bc = x->e.cycles;
                    bs = s;
                    memcpy(best, cand, sizeof *best * (size_t)nv);
                }
            }
        }
        /* the same values under the other strata (variables matched by symbol) */
        for (int s2 = 0; s2 < sp->nst && more(c, budget); s2++) {
            if (s2 == s)
                continue;
            const solve_problem *q = sp->st[s2].problem;
            for (int j = 0; j < q->nvars; j++) {
                tgt[j] = 0;
                for (int k = 0; k < nv; k++)
                    if (p->vars[k].var == q->vars[j].var)
                        for (int i = 0; i < q->vars[j].ndomain; i++)
                            if (q->vars[j].domain[i] == cur[k])
                                tgt[j] = i;
            }
            if (!bench_space_nearest(sp, s2, tgt, cand) || already(c, s2, cand))
                continue;
            int e = visit(c, s2, cand);
            const bench_entry *x = &c->ev->entries.items[e];
            if (x->e.ok && !x->e.censored && x->e.cycles < bc) {
                bc = x->e.cycles;
                bs = s2;
                memcpy(best, cand, sizeof *best * (size_t)q->nvars);
            }
        }
        if (bc < curc) {
            improved = true;
            curc = bc;
            s = bs;
            nv = sp->st[s].problem->nvars;
            memcpy(cur, best, sizeof *cur * (size_t)nv);
        }
        free(best);
    }
    free(cur);
    free(cand);
    free(tgt);
}

void bench_oracle_run(bench_oracle *o, const bench_space *sp, bench_evaluator *ev, const bench_oracle_opts *opt)
{
    memset(o, 0, sizeof *o);
    o->best = -1;
    int64_t bound = opt->bound > 0 ? opt->bound : BENCH_DEFAULT_BOUND;
    uint64_t rng = opt->seed ^ 0x6f7261636c65ull;
    octx c = {.o = o, .sp = sp, .ev = ev, .max_asked = 4 * bound};
    int nst = sp->nst;
    if (nst == 0) {
        o->exact = o->space_known = true;
        return;
    }
    plist *pl = lm_xcalloc((size_t)nst, sizeof *pl);
    bool *complete = lm_xcalloc((size_t)nst, sizeof *complete);

    /* 1. count every stratum (up to a cap), keeping the first bound + 1 points */
    int64_t total = 0;
    bool all = true;
    int64_t *count = lm_xcalloc((size_t)nst, sizeof *count);
    for (int s = 0; s < nst; s++) {
        pl[s].nv = sp->st[s].problem->nvars;
        pl[s].keep = bound + 1;
        count[s] = bench_space_enum(sp, s, BENCH_COUNT_CAP, collect, &pl[s], &complete[s]);
        total += count[s];
        all &= complete[s];
    }
    o->space = total;
    o->space_known = all;
    if (all && total <= bound) {
        o->exact = true;
        for (int s = 0; s < nst; s++)
            for (int64_t i = 0; i < pl[s].n; i++)
                visit(&c, s, pl[s].v.items + i * pl[s].nv);
        o->sampled = c.ran;
        free(count);
        goto done;
    }

    /* 2. stratified sample */
    int64_t S = bound - bound / 4;
    /* shares: water-filling, small strata give all their points */
    int64_t *share = lm_xcalloc((size_t)nst, sizeof *share);
    bool *closed = lm_xcalloc((size_t)nst, sizeof *closed);
    int64_t remaining = S;
    int open = nst;
    for (;;) {
        if (open == 0)
            break;
        int64_t q = remaining / open;
        bool any = false;
        for (int s = 0; s < nst; s++)
            if (!closed[s] && complete[s] && count[s] <= q) {
                share[s] = count[s];
                remaining -= count[s];
                closed[s] = true;
                open--;
                any = true;
            }
        if (!any) {
            int64_t extra = open ? remaining % open : 0;
            for (int s = 0; s < nst; s++)
                if (!closed[s]) {
                    share[s] = q + (extra > 0 ? 1 : 0);
                    extra--;
                }
            break;
        }
    }
    int maxv = 1;
    for (int s = 0; s < nst; s++)
        maxv = LM_MAX(maxv, pl[s].nv);
    int64_t *pt = lm_xcalloc((size_t)maxv, sizeof *pt);
    int *tgt = lm_xcalloc((size_t)maxv, sizeof *tgt);
    for (int s = 0; s < nst; s++) {
        int64_t n = share[s];
        if (n <= 0)
            continue;
        if (closed[s]) {
            for (int64_t i = 0; i < pl[s].n; i++)
                visit(&c, s, pl[s].v.items + i * pl[s].nv);
            continue;
        }
        /* a Latin hypercube over domain positions */
        const solve_problem *p = sp->st[s].problem;
        int nv = p->nvars;
        int64_t **perm = lm_xcalloc((size_t)(nv ? nv : 1), sizeof *perm);
        for (int j = 0; j < nv; j++) {
            perm[j] = lm_xmalloc(sizeof **perm * (size_t)n);
            for (int64_t i = 0; i < n; i++)
                perm[j][i] = i;
            for (int64_t i = n - 1; i > 0; i--) {
                int64_t k = (int64_t)bench_rng_below(&rng, (uint64_t)i + 1), t = perm[j][i];
                perm[j][i] = perm[j][k];
                perm[j][k] = t;
            }
        }
        for (int64_t i = 0; i < n; i++) {
            bool found = false;
            for (int attempt = 0; attempt < 8 && !found; attempt++) {
                for (int j = 0; j < nv; j++) {
                    double u = bench_rng_unit(&rng);
                    double x = attempt == 0 ? ((double)perm[j][i] + u) / (double)n : u;
                    tgt[j] = (int)floor(x * p->vars[j].ndomain);
                }
                found = bench_space_nearest(sp, s, tgt, pt) && !already(&c, s, pt);
            }
            if (found)
                visit(&c, s, pt);
        }
        for (int j = 0; j < nv; j++)
            free(perm[j]);
        free(perm);
    }
    /* points that could not run are replaced by random ones of the open strata */
    for (int64_t k = 0; more(&c, S) && open > 0; k++) {
        int s = 0;
        for (int64_t skip = k % open; s < nst; s++)
            if (!closed[s] && share[s] > 0 && skip-- == 0)
                break;
        if (s == nst)
            break;
        const solve_problem *p = sp->st[s].problem;
        for (int j = 0; j < p->nvars; j++)
            tgt[j] = (int)bench_rng_below(&rng, (uint64_t)(p->vars[j].ndomain ? p->vars[j].ndomain : 1));
        if (bench_space_nearest(sp, s, tgt, pt) && !already(&c, s, pt))
            visit(&c, s, pt);
        else
            c.asked++; /* a proposal that led nowhere still counts as an attempt */
    }
    o->sampled = c.ran;

    /* 3. polish the best points found */
    {
        int64_t budget = bound;
        c.max_asked = c.asked + 4 * (bound - c.ran);
        for (int round = 0; round < 8 && more(&c, budget); round++) {
            byc *order = lm_xmalloc(sizeof *order * (size_t)(o->npts ? o->npts : 1));
            for (int i = 0; i < o->npts; i++)
                order[i] = (byc){bench_entry_cycles(&ev->entries.items[o->pts[i]]), o->pts[i]};
            qsort(order, (size_t)o->npts, sizeof *order, cmp_byc);
            int start = round < o->npts ? order[round].e : -1;
            bool usable = start >= 0 && isfinite(order[round].c);
            free(order);
            if (!usable)
                break;
            polish_from(&c, start, budget);
        }
        o->polished = c.ran - o->sampled;
    }
    free(pt);
    free(tgt);
    free(count);
    free(share);
    free(closed);
done:
    for (int s = 0; s < nst; s++)
        LM_VEC_FREE(&pl[s].v);
    free(pl);
    free(complete);
    LM_VEC_FREE(&c.mine);
}

void bench_oracle_free(bench_oracle *o)
{
    free(o->pts);
    memset(o, 0, sizeof *o);
}
