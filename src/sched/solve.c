/* solve.c - the exact solver behind solve.h: depth-first branch and bound
 * over finite domains with interval bounds from sym_bounds, and a plain
 * enumeration that serves as its reference in tests.
 *
 * Every result is defined by one total order on assignments, independent of
 * how the search walks the tree: objective, then each tiebreak objective,
 * then the position of each variable's value in its domain, variables taken
 * in the problem's order. The branch and bound only discards a subtree when
 * bounds prove every assignment in it infeasible or strictly later in that
 * order than the current k-th best, so it returns what enumeration returns.
 * docs/scheduler.md ("Solver") gives the argument in full.
 */
#include "solve.h"

#include <stdlib.h>
#include <string.h>

/* Default effort limit. A GEMM-sized problem (six variables, ~800k
 * assignments) finishes in a few thousand nodes; two million nodes is about
 * a second of work, far beyond what a well-posed candidate needs, but it
 * keeps a badly bounded model from stalling the compiler. */
enum { SOLVE_DEFAULT_NODE_LIMIT = 2000000 };

/* ---- top-k list ------------------------------------------------------------ */

/* One ranked assignment; positions are indices into each domain, in the
 * problem's variable order (the last key of the order). */
typedef struct entry {
    int64_t obj;
    int64_t tb[SOLVE_MAX_TIEBREAK];
    int *pos;
} entry;

typedef struct topk {
    int k, n, nvars, ntb;
    entry *e;    /* k entries, best first */
    int *store;  /* k * nvars positions behind the entries' pos */
} topk;

static void topk_init(topk *t, int k, int nvars, int ntb)
{
    t->k = k;
    t->n = 0;
    t->nvars = nvars;
    t->ntb = ntb;
    t->e = lm_xcalloc((size_t)k, sizeof *t->e);
    t->store = lm_xcalloc((size_t)k * (size_t)(nvars ? nvars : 1), sizeof *t->store);
    for (int i = 0; i < k; i++)
        t->e[i].pos = t->store + (size_t)i * (size_t)nvars;
}

static void topk_free(topk *t)
{
    free(t->e);
    free(t->store);
}

/* <0 when (obj, tb, pos) comes before entry w in the solver's order. */
static int entry_cmp(const topk *t, int64_t obj, const int64_t *tb, const int *pos, const entry *w)
{
    if (obj != w->obj)
        return obj < w->obj ? -1 : 1;
    for (int i = 0; i < t->ntb; i++)
        if (tb[i] != w->tb[i])
            return tb[i] < w->tb[i] ? -1 : 1;
    for (int j = 0; j < t->nvars; j++)
        if (pos[j] != w->pos[j])
            return pos[j] < w->pos[j] ? -1 : 1;
    return 0;
}

/* Whether a complete assignment with this objective could still enter. */
static bool topk_admits_obj(const topk *t, int64_t obj)
{
    return t->n < t->k || obj <= t->e[t->k - 1].obj;
}

static void topk_insert(topk *t, int64_t obj, const int64_t *tb, const int *pos)
{
    int at = t->n;
    while (at > 0 && entry_cmp(t, obj, tb, pos, &t->e[at - 1]) < 0)
        at--;
    if (at >= t->k)
        return;
    /* the entry falling off the end (or the free one) lends its storage */
    int last = t->n < t->k ? t->n : t->k - 1;
    int *spare = t->e[last].pos;
    for (int i = last; i > at; i--)
        t->e[i] = t->e[i - 1];
    entry *w = &t->e[at];
    w->pos = spare;
    w->obj = obj;
    memcpy(w->tb, tb, sizeof w->tb);
    if (t->nvars)
        memcpy(w->pos, pos, (size_t)t->nvars * sizeof *pos);
    if (t->n < t->k)
        t->n++;
}

static void topk_output(const topk *t, const solve_problem *p, solve_solution *out, int *nout)
{
    for (int i = 0; i < t->n; i++) {
        solve_solution *s = &out[i];
        s->values = lm_xmalloc((size_t)(p->nvars ? p->nvars : 1) * sizeof *s->values);
        for (int j = 0; j < p->nvars; j++)
            s->values[j] = p->vars[j].domain[t->e[i].pos[j]];
        s->objective = t->e[i].obj;
        memset(s->tiebreak, 0, sizeof s->tiebreak);
        memcpy(s->tiebreak, t->e[i].tb, (size_t)t->ntb * sizeof *s->tiebreak);
    }
    *nout = t->n;
}

/* ---- shared setup ---------------------------------------------------------- */

static const char *status_text(sym_status st)
{
    switch (st) {
    case SYM_OK:
        return "ok";
    case SYM_UNBOUND:
        return "a symbol has no value";
    case SYM_DIV_ZERO:
        return "division by zero";
    case SYM_OVERFLOW:
        return "64-bit overflow";
    }
    return "?";
}

static void check_problem(const solve_problem *p, const solve_options *o)
{
    LM_ASSERT(p && p->objective);
    LM_ASSERT(p->nvars >= 0 && p->ncons >= 0);
    LM_ASSERT(p->ntiebreak >= 0 && p->ntiebreak <= SOLVE_MAX_TIEBREAK);
    LM_ASSERT(!o || o->top_k >= 1);
    for (int i = 0; i < p->nvars; i++) {
        LM_ASSERT(p->vars[i].var && p->vars[i].var->kind == SYM_VAR);
        LM_ASSERT(p->vars[i].ndomain >= 0);
        for (int j = 0; j < i; j++)
            LM_ASSERT(p->vars[j].var != p->vars[i].var);
    }
    for (int i = 0; i < p->ncons; i++)
        LM_ASSERT(p->cons[i].expr);
    for (int i = 0; i < p->ntiebreak; i++)
        LM_ASSERT(p->tiebreak[i]);
}

/* The environment both solvers evaluate in: binding j is problem variable j
 * (so the search updates it in place, without lookups or allocation), then
 * the fixed symbols. A fixed binding of a problem variable is shadowed,
 * because sym_env_get returns the first match. */
static void env_build(const solve_problem *p, sym_env *env)
{
    int nf = p->fixed ? p->fixed->n : 0;
    env->cap = p->nvars + nf;
    env->b = lm_xcalloc((size_t)(env->cap ? env->cap : 1), sizeof *env->b);
    env->n = 0;
    for (int j = 0; j < p->nvars; j++) {
        const solve_var *v = &p->vars[j];
        int64_t lo = 0, hi = 0;
        for (int i = 0; i < v->ndomain; i++) {
            if (i == 0 || v->domain[i] < lo)
                lo = v->domain[i];
            if (i == 0 || v->domain[i] > hi)
                hi = v->domain[i];
        }
        env->b[env->n++] = (sym_binding){v->var, lo, hi};
    }
    for (int i = 0; i < nf; i++)
        env->b[env->n++] = p->fixed->b[i];
}

static bool any_empty_domain(const solve_problem *p)
{
    for (int j = 0; j < p->nvars; j++)
        if (p->vars[j].ndomain == 0)
            return true;
    return false;
}

/* "at BM=64, BN=128" for error messages. */
static void print_assignment(lm_buf *b, const solve_problem *p, const sym_env *env)
{
    for (int j = 0; j < p->nvars; j++)
        lm_buf_printf(b, "%s%s=%lld", j ? ", " : " at ", p->vars[j].var->name, (long long)env->b[j].lo);
}

/* what: 0..ncons-1 constraint, -1 objective, -2-t tiebreak t. */
static void report_error(lm_buf *why, const solve_problem *p, const sym_env *env, int what, sym_status st)
{
    if (!why)
        return;
    const sym_expr *e;
    if (what >= 0) {
        e = p->cons[what].expr;
        lm_buf_printf(why, "cannot evaluate constraint %d", what);
        if (p->cons[what].name)
            lm_buf_printf(why, " '%s'", p->cons[what].name);
    } else if (what == -1) {
        e = p->objective;
        lm_buf_puts(why, "cannot evaluate the objective");
    } else {
        e = p->tiebreak[-2 - what];
        lm_buf_printf(why, "cannot evaluate tiebreak %d", -2 - what);
    }
    lm_buf_puts(why, " (");
    sym_print(why, e);
    lm_buf_puts(why, ")");
    print_assignment(why, p, env);
    lm_buf_printf(why, ": %s", status_text(st));
}

/* ---- branch and bound -------------------------------------------------------- */

/* A child of the current node, kept until it is descended into: its
 * position in the branching variable's domain, its objective lower bound
 * (children are visited best bound first, so good incumbents come early and
 * later siblings prune) and whether it is still alive. */
typedef struct child {
    int pos;
    int64_t lo;
} child;

typedef struct search {
    const solve_problem *p;
    int n, ncons;
    int *order;          /* order[d]: problem index of the variable branched at depth d */
    sym_env env;         /* binding j is problem variable j; unassigned = [min, max] */
    int64_t *dmin, *dmax;
    int *pos;            /* position of each problem variable's value, -1 if unassigned */
    int **dep;           /* dep[j]: constraints that mention variable j, ascending */
    int *ndep;
    bool *obj_dep;       /* objective mentions variable j */
    unsigned char *ent;  /* (n+1) rows of ncons: constraint proven for the whole subtree */
    unsigned char *kent; /* per depth and child: constraints newly proven (maxdom*ncons) */
    child *kids;         /* per depth: maxdom children */
    int maxdom;
    topk top;
    int64_t nodes, limit;
    bool hit_limit, failed;
    solve_stats *st;
    lm_buf *why;
} search;

/* Lexicographic bound of the tie-break key: with the objective's lower
 * bound equal to the k-th best's objective, the subtree is still beaten if
 * its tiebreak lower bounds, then its smallest possible positions (the
 * assigned ones, 0 for the rest), come after the k-th best's. */
static bool dominated(search *s, int64_t lo)
{
    topk *t = &s->top;
    if (t->n < t->k)
        return false;
    const entry *w = &t->e[t->k - 1];
    if (lo != w->obj)
        return lo > w->obj;
    for (int i = 0; i < t->ntb; i++) {
        int64_t l, h;
        if (sym_bounds(s->p->tiebreak[i], &s->env, &l, &h) != SYM_OK)
            return false;
        if (l != w->tb[i])
            return l > w->tb[i];
    }
    for (int j = 0; j < s->n; j++) {
        int pj = s->pos[j] < 0 ? 0 : s->pos[j];
        if (pj != w->pos[j])
            return pj > w->pos[j];
    }
    return false; /* an assignment equal to the k-th best is the k-th best itself */
}

/* A complete assignment: constraints not proven by bounds, then the
 * objective and tiebreaks, all exactly. `ent` is the row of constraints
 * already proven for it. */
static void leaf(search *s, const unsigned char *ent)
{
    const solve_problem *p = s->p;
    int64_t v;
    sym_status st;
    for (int c = 0; c < s->ncons; c++) {
        if (ent && ent[c])
            continue;
        if ((st = sym_eval(p->cons[c].expr, &s->env, &v)) != SYM_OK) {
            report_error(s->why, p, &s->env, c, st);
            s->failed = true;
            return;
        }
        if (v > 0) {
            s->st->rejected_by[c]++;
            s->st->pruned_infeasible++;
            return;
        }
    }
    s->st->leaves++;
    int64_t obj, tb[SOLVE_MAX_TIEBREAK] = {0};
    if ((st = sym_eval(p->objective, &s->env, &obj)) != SYM_OK) {
        report_error(s->why, p, &s->env, -1, st);
        s->failed = true;
        return;
    }
    if (!topk_admits_obj(&s->top, obj)) {
        s->st->pruned_bound++;
        return;
    }
    for (int i = 0; i < p->ntiebreak; i++) {
        if ((st = sym_eval(p->tiebreak[i], &s->env, &tb[i])) != SYM_OK) {
            report_error(s->why, p, &s->env, -2 - i, st);
            s->failed = true;
            return;
        }
    }
    topk_insert(&s->top, obj, tb, s->pos);
}

static bool take_node(search *s)
{
    if (s->nodes >= s->limit) {
        s->hit_limit = true;
        return false;
    }
    s->nodes++;
    return true;
}

static void assign(search *s, int j, int i)
{
    int64_t x = s->p->vars[j].domain[i];
    s->env.b[j].lo = s->env.b[j].hi = x;
    s->pos[j] = i;
}

/* Explore below the node at depth d (order[0..d-1] assigned) whose
 * objective lower bound is `lo`. */
static void dfs(search *s, int d, int64_t lo)
{
    const int j = s->order[d];
    const solve_var *v = &s->p->vars[j];
    const unsigned char *ent = s->ent + (size_t)d * (size_t)s->ncons;

    if (d == s->n - 1) { /* children are leaves: evaluate them exactly */
        for (int i = 0; i < v->ndomain && !s->failed; i++) {
            if (!take_node(s))
                break;
            assign(s, j, i);
            leaf(s, ent);
        }
        goto restore;
    }

    child *kids = s->kids + (size_t)d * (size_t)s->maxdom;
    unsigned char *kent = s->kent + (size_t)d * (size_t)s->maxdom * (size_t)s->ncons;
    int nk = 0;
    for (int i = 0; i < v->ndomain; i++) {
        if (!take_node(s))
            goto restore;
        assign(s, j, i);
        unsigned char *ke = kent + (size_t)i * (size_t)s->ncons;
        bool dead = false;
        for (int q = 0; q < s->ndep[j]; q++) {
            int c = s->dep[j][q];
            ke[c] = 0;
            if (ent[c])
                continue;
            int64_t l, h;
            if (sym_bounds(s->p->cons[c].expr, &s->env, &l, &h) != SYM_OK)
                continue; /* e.g. a divisor range still spans 0: no proof either way */
            if (l > 0) {
                s->st->rejected_by[c]++;
                s->st->pruned_infeasible++;
                dead = true;
                break;
            }
            ke[c] = h <= 0;
        }
        if (dead)
            continue;
        int64_t cl = lo, ch;
        if (s->obj_dep[j] && sym_bounds(s->p->objective, &s->env, &cl, &ch) != SYM_OK)
            cl = INT64_MIN;
        /* insertion by (bound, position): a total order, so the visit order
         * is deterministic */
        int at = nk++;
        while (at > 0 && kids[at - 1].lo > cl) {
            kids[at] = kids[at - 1];
            at--;
        }
        kids[at] = (child){i, cl};
    }

    unsigned char *next = s->ent + (size_t)(d + 1) * (size_t)s->ncons;
    for (int k = 0; k < nk && !s->failed && !s->hit_limit; k++) {
        int i = kids[k].pos;
        assign(s, j, i);
        if (dominated(s, kids[k].lo)) {
            s->st->pruned_bound++;
            continue;
        }
        memcpy(next, ent, (size_t)s->ncons);
        const unsigned char *ke = kent + (size_t)i * (size_t)s->ncons;
        for (int q = 0; q < s->ndep[j]; q++)
            next[s->dep[j][q]] |= ke[s->dep[j][q]];
        dfs(s, d + 1, kids[k].lo);
    }

restore:
    s->env.b[j].lo = s->dmin[j];
    s->env.b[j].hi = s->dmax[j];
    s->pos[j] = -1;
}

/* Branch on the variables that the most constraints mention first: fixing
 * them settles feasibility earliest. Then those the objective mentions,
 * then the problem's order. Any order gives the same result. */
static void choose_order(search *s)
{
    int *score = lm_xcalloc((size_t)(s->n ? s->n : 1), sizeof *score);
    for (int j = 0; j < s->n; j++) {
        score[j] = 2 * s->ndep[j] + (s->obj_dep[j] ? 1 : 0);
        s->order[j] = j;
    }
    for (int a = 1; a < s->n; a++) { /* stable insertion sort, highest score first */
        int x = s->order[a], b = a;
        while (b > 0 && score[s->order[b - 1]] < score[x]) {
            s->order[b] = s->order[b - 1];
            b--;
        }
        s->order[b] = x;
    }
    free(score);
}

solve_status solve_run(const solve_problem *p, const solve_options *o, solve_solution *out, int *nout,
                       solve_stats *st, lm_buf *why)
{
    check_problem(p, o);
    *nout = 0;
    search s = {0};
    solve_stats local = {0};
    s.st = st ? st : &local;
    memset(s.st, 0, sizeof *s.st);
    s.st->rejected_by = lm_xcalloc((size_t)(p->ncons ? p->ncons : 1), sizeof *s.st->rejected_by);
    s.p = p;
    s.n = p->nvars;
    s.ncons = p->ncons;
    s.why = why;
    s.limit = o && o->node_limit > 0 ? o->node_limit : SOLVE_DEFAULT_NODE_LIMIT;
    topk_init(&s.top, o ? o->top_k : 1, p->nvars, p->ntiebreak);

    size_t nv = (size_t)(s.n ? s.n : 1), nc = (size_t)(s.ncons ? s.ncons : 1);
    env_build(p, &s.env);
    s.order = lm_xcalloc(nv, sizeof *s.order);
    s.dmin = lm_xcalloc(nv, sizeof *s.dmin);
    s.dmax = lm_xcalloc(nv, sizeof *s.dmax);
    s.pos = lm_xcalloc(nv, sizeof *s.pos);
    s.dep = lm_xcalloc(nv, sizeof *s.dep);
    s.ndep = lm_xcalloc(nv, sizeof *s.ndep);
    s.obj_dep = lm_xcalloc(nv, sizeof *s.obj_dep);
    for (int j = 0; j < s.n; j++) {
        s.dmin[j] = s.env.b[j].lo;
        s.dmax[j] = s.env.b[j].hi;
        s.pos[j] = -1;
        s.dep[j] = lm_xcalloc(nc, sizeof **s.dep);
        for (int c = 0; c < s.ncons; c++)
            if (sym_depends_on(p->cons[c].expr, p->vars[j].var))
                s.dep[j][s.ndep[j]++] = c;
        s.obj_dep[j] = sym_depends_on(p->objective, p->vars[j].var);
        s.maxdom = LM_MAX(s.maxdom, p->vars[j].ndomain);
    }
    choose_order(&s);
    size_t md = (size_t)(s.maxdom ? s.maxdom : 1);
    s.ent = lm_xcalloc((nv + 1) * nc, 1);
    s.kent = lm_xcalloc(nv * md * nc, 1);
    s.kids = lm_xcalloc(nv * md, sizeof *s.kids);

    solve_status res;
    if (any_empty_domain(p)) {
        res = SOLVE_INFEASIBLE;
        goto done;
    }
    /* the root: constraints and objective over the whole domains */
    take_node(&s);
    bool dead = false;
    for (int c = 0; c < s.ncons; c++) {
        int64_t l, h;
        if (sym_bounds(p->cons[c].expr, &s.env, &l, &h) != SYM_OK)
            continue;
        if (l > 0) {
            s.st->rejected_by[c]++;
            s.st->pruned_infeasible++;
            dead = true;
            break;
        }
        s.ent[c] = h <= 0;
    }
    if (!dead) {
        if (s.n == 0) {
            leaf(&s, s.ent);
        } else {
            int64_t lo, hi;
            if (sym_bounds(p->objective, &s.env, &lo, &hi) != SYM_OK)
                lo = INT64_MIN;
            dfs(&s, 0, lo);
        }
    }
    if (s.failed)
        res = SOLVE_ERROR;
    else if (s.hit_limit)
        res = SOLVE_LIMIT;
    else
        res = s.top.n ? SOLVE_OPTIMAL : SOLVE_INFEASIBLE;

done:
    if (res != SOLVE_ERROR)
        topk_output(&s.top, p, out, nout);
    s.st->nodes = s.nodes;
    for (int j = 0; j < s.n; j++)
        free(s.dep[j]);
    free(s.dep);
    free(s.ndep);
    free(s.obj_dep);
    free(s.order);
    free(s.dmin);
    free(s.dmax);
    free(s.pos);
    free(s.ent);
    free(s.kent);
    free(s.kids);
    free(s.env.b);
    topk_free(&s.top);
    if (!st)
        solve_free_stats(&local);
    return res;
}

/* ---- exhaustive enumeration -------------------------------------------------- */

solve_status solve_exhaustive(const solve_problem *p, const solve_options *o, solve_solution *out, int *nout,
                              lm_buf *why)
{
    check_problem(p, o);
    *nout = 0;
    if (any_empty_domain(p))
        return SOLVE_INFEASIBLE;
    /* the limit counts assignments and applies only when asked for: this is
     * the reference, meant to run to the end */
    int64_t limit = o && o->node_limit > 0 ? o->node_limit : INT64_MAX, count = 0;
    topk top;
    topk_init(&top, o ? o->top_k : 1, p->nvars, p->ntiebreak);
    sym_env env;
    env_build(p, &env);
    int *pos = lm_xcalloc((size_t)(p->nvars ? p->nvars : 1), sizeof *pos);
    solve_status res = SOLVE_OPTIMAL;
    for (;;) {
        if (count++ >= limit) {
            res = SOLVE_LIMIT;
            break;
        }
        for (int j = 0; j < p->nvars; j++)
            env.b[j].lo = env.b[j].hi = p->vars[j].domain[pos[j]];
        sym_status st = SYM_OK;
        int what = 0;
        bool feasible = true;
        int64_t v, obj = 0, tb[SOLVE_MAX_TIEBREAK] = {0};
        for (int c = 0; c < p->ncons && feasible && st == SYM_OK; c++) {
            what = c;
            if ((st = sym_eval(p->cons[c].expr, &env, &v)) == SYM_OK && v > 0)
                feasible = false;
        }
        if (feasible && st == SYM_OK) {
            what = -1;
            st = sym_eval(p->objective, &env, &obj);
            for (int i = 0; i < p->ntiebreak && st == SYM_OK; i++) {
                what = -2 - i;
                st = sym_eval(p->tiebreak[i], &env, &tb[i]);
            }
        }
        if (st != SYM_OK) {
            report_error(why, p, &env, what, st);
            res = SOLVE_ERROR;
            break;
        }
        if (feasible)
            topk_insert(&top, obj, tb, pos);
        /* odometer: the last variable turns fastest */
        int j = p->nvars - 1;
        while (j >= 0 && ++pos[j] == p->vars[j].ndomain)
            pos[j--] = 0;
        if (j < 0)
            break;
    }
    if (res == SOLVE_OPTIMAL && top.n == 0)
        res = SOLVE_INFEASIBLE;
    if (res != SOLVE_ERROR)
        topk_output(&top, p, out, nout);
    free(pos);
    free(env.b);
    topk_free(&top);
    return res;
}

void solve_free_solutions(solve_solution *s, int n)
{
    for (int i = 0; i < n; i++) {
        free(s[i].values);
        s[i].values = NULL;
    }
}

void solve_free_stats(solve_stats *st)
{
    free(st->rejected_by);
    st->rejected_by = NULL;
}
