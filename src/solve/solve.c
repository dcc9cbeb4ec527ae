/* solve.c - the exact solver behind solve.h: depth-first branch and bound
 * over finite domains with sym_bounds' interval bounds, and a plain
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
#include "solve/solve.h"

#include <stdlib.h>
#include <string.h>

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

/* ---- incremental interval evaluation ------------------------------------------ */

/* Bounds are needed at every node, and evaluating whole expression trees
 * with sym_bounds there was most of the solver's time. The tape holds every
 * distinct node of the constraints, objective and tiebreaks once (shared
 * subexpressions are the same pointer), operands before the operations that
 * use them, each with its current interval. Assigning variable j
 * re-evaluates only the nodes that depend on j, in tape order, and each of
 * those combines its operands' intervals directly.
 *
 * The combination rules are sym_bounds' own, operation by operation, in the
 * same operand order and with the same overflow and division-by-zero
 * failures, so every root interval is exactly what sym_bounds returns for
 * the whole expression over the same ranges (sym_bounds' recursion applies
 * the same rule at each node to its operands' intervals). The option
 * verify_bounds makes the solver check that equality at every node; the
 * tests run with it. With every variable assigned, each interval is the
 * point sym_eval would return: the rules are exact on points and fail where
 * evaluation fails. */
typedef struct tnode {
    sym_kind kind;
    int nargs;
    const int *args;     /* operand node indices */
    int var;             /* SYM_VAR: problem variable index, or -1 */
    sym_status st;
} tnode;

/* A node's interval, apart from the rest of the node: the operands'
 * intervals are what evaluation reads, and packed they stay in cache. */
typedef struct tiv {
    int64_t lo, hi;
} tiv;

typedef struct tape {
    tnode *t;
    tiv *iv;             /* iv[i]: node i's interval */
    int n, cap;
    int nbad;            /* nodes whose status is not SYM_OK (tape_status keeps it) */
    int *argstore;       /* operand indices of all nodes */
    int nargs_total;
    /* expression -> node index, open addressing (build time only) */
    const sym_expr **hkey;
    int *hval;
    size_t hcap;
} tape;

/* Sets a node's status, counting the nodes without an interval: while
 * there are none, a node's operands need no check (node_bounds). */
static inline void tape_status(tape *tp, tnode *nd, sym_status st)
{
    tp->nbad += (st != SYM_OK) - (nd->st != SYM_OK);
    nd->st = st;
}

static size_t ptr_slot(const tape *tp, const sym_expr *e)
{
    return (size_t)(e->hash ^ (e->hash >> 29)) & (tp->hcap - 1);
}

static int tape_find(const tape *tp, const sym_expr *e)
{
    if (!tp->hcap)
        return -1;
    for (size_t i = ptr_slot(tp, e);; i = (i + 1) & (tp->hcap - 1)) {
        if (!tp->hkey[i])
            return -1;
        if (tp->hkey[i] == e)
            return tp->hval[i];
    }
}

static void tape_remember(tape *tp, const sym_expr *e, int idx)
{
    if ((size_t)(tp->n + 1) * 2 > tp->hcap) {
        size_t oc = tp->hcap;
        const sym_expr **ok = tp->hkey;
        int *ov = tp->hval;
        tp->hcap = oc ? 2 * oc : 64;
        tp->hkey = lm_xcalloc(tp->hcap, sizeof *tp->hkey);
        tp->hval = lm_xcalloc(tp->hcap, sizeof *tp->hval);
        for (size_t i = 0; i < oc; i++)
            if (ok[i])
                tape_remember(tp, ok[i], ov[i]);
        free(ok);
        free(ov);
    }
    size_t i = ptr_slot(tp, e);
    while (tp->hkey[i])
        i = (i + 1) & (tp->hcap - 1);
    tp->hkey[i] = e;
    tp->hval[i] = idx;
}

typedef LM_VEC(int) intvec;

/* Append e's nodes (operands first); returns e's index. Operand indices go
 * to `args`, and where each node's operands start to `argpos`, until the
 * node array stops moving (tape_finish). */
static int tape_add(tape *tp, const sym_expr *e, const solve_problem *p, intvec *args, intvec *argpos)
{
    int found = tape_find(tp, e);
    if (found >= 0)
        return found;
    for (int i = 0; i < e->nargs; i++)
        tape_add(tp, e->args[i], p, args, argpos);
    if (tp->n == tp->cap) {
        tp->cap = tp->cap ? 2 * tp->cap : 32;
        tp->t = lm_xrealloc(tp->t, (size_t)tp->cap * sizeof *tp->t);
        tp->iv = lm_xrealloc(tp->iv, (size_t)tp->cap * sizeof *tp->iv);
    }
    int idx = tp->n++;
    tnode *nd = &tp->t[idx];
    tiv *iv = &tp->iv[idx];
    memset(nd, 0, sizeof *nd);
    memset(iv, 0, sizeof *iv);
    nd->kind = e->kind;
    nd->var = -1;
    nd->nargs = e->nargs;
    LM_PUSH(argpos, (int)args->len);
    for (int i = 0; i < e->nargs; i++)
        LM_PUSH(args, tape_find(tp, e->args[i]));
    tp->nargs_total += e->nargs;
    if (e->kind == SYM_CONST) {
        iv->lo = iv->hi = e->value;
    } else if (e->kind == SYM_VAR) {
        for (int j = 0; j < p->nvars; j++)
            if (p->vars[j].var == e)
                nd->var = j;
        if (nd->var < 0 && !(p->fixed && sym_env_get(p->fixed, e, &iv->lo, &iv->hi)))
            tape_status(tp, nd, SYM_UNBOUND);
    }
    tape_remember(tp, e, idx);
    return idx;
}

static void tape_finish(tape *tp, const intvec *args, const intvec *argpos)
{
    tp->argstore = lm_xcalloc((size_t)(tp->nargs_total ? tp->nargs_total : 1), sizeof *tp->argstore);
    if (tp->nargs_total)
        memcpy(tp->argstore, args->items, (size_t)tp->nargs_total * sizeof *tp->argstore);
    for (int i = 0; i < tp->n; i++)
        tp->t[i].args = tp->argstore + argpos->items[i];
    free(tp->hkey);
    free(tp->hval);
    tp->hkey = NULL;
    tp->hval = NULL;
}

static void tape_free(tape *tp)
{
    free(tp->t);
    free(tp->iv);
    free(tp->argstore);
    free(tp->hkey);
    free(tp->hval);
}

/* Ceiling or floor division (lm_cdiv_ok, lm_fdiv_ok), called directly so
 * that both inline. Operands that fit 32 bits unsigned (nearly all: sizes,
 * counts, cycles) are divided in 32 bits, which is several times faster
 * than a 64-bit division on some machines (about 7% of a compile). */
static inline bool quot(bool ceil, int64_t a, int64_t b, int64_t *r)
{
    if (a >= 0 && b > 0 && a <= UINT32_MAX && b <= UINT32_MAX) {
        uint32_t q = (uint32_t)a / (uint32_t)b;
        *r = (int64_t)q + (ceil && q * (uint32_t)b != (uint32_t)a);
        return true;
    }
    return ceil ? lm_cdiv_ok(a, b, r) : lm_fdiv_ok(a, b, r);
}

/* One node's interval from its operands' (the rules of sym_bounds).
 * Inlined into the evaluation loop with tape_eval: the call itself was
 * about an eighth of a compile. */
static LM_ALWAYS_INLINE sym_status node_bounds(const tape *tp, int nbad, const tnode *nd, int64_t *lo, int64_t *hi)
{
    const tiv *t = tp->iv;
    const int *ar = nd->args;
    if (nbad)
        for (int k = 0; k < nd->nargs; k++)
            if (tp->t[ar[k]].st != SYM_OK)
                return tp->t[ar[k]].st;
    int64_t al, ah, p[4];
    switch (nd->kind) {
    case SYM_CONST:
    case SYM_VAR:
        return nd->st; /* *lo and *hi are its own interval already */
    case SYM_ADD:
        al = ah = 0;
        for (int k = 0; k < nd->nargs; k++)
            if (!lm_add_ok(al, t[ar[k]].lo, &al) || !lm_add_ok(ah, t[ar[k]].hi, &ah))
                return SYM_OVERFLOW;
        *lo = al;
        *hi = ah;
        return SYM_OK;
    case SYM_MUL:
        al = ah = 1;
        for (int k = 0; k < nd->nargs; k++) {
            int64_t bl = t[ar[k]].lo, bh = t[ar[k]].hi;
            if (al >= 0 && bl >= 0) {
                /* both ranges non-negative (sizes, counts, cycles): the
                   corners' least and largest are the ends' products, and
                   the other two lie between them, so nothing else can
                   overflow */
                if (!lm_mul_ok(al, bl, &al) || !lm_mul_ok(ah, bh, &ah))
                    return SYM_OVERFLOW;
                continue;
            }
            if (!lm_mul_ok(al, bl, &p[0]) || !lm_mul_ok(al, bh, &p[1]) || !lm_mul_ok(ah, bl, &p[2]) ||
                !lm_mul_ok(ah, bh, &p[3]))
                return SYM_OVERFLOW;
            al = LM_MIN(LM_MIN(p[0], p[1]), LM_MIN(p[2], p[3]));
            ah = LM_MAX(LM_MAX(p[0], p[1]), LM_MAX(p[2], p[3]));
        }
        *lo = al;
        *hi = ah;
        return SYM_OK;
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD: {
        int64_t bl = t[ar[1]].lo, bh = t[ar[1]].hi;
        al = t[ar[0]].lo;
        ah = t[ar[0]].hi;
        if (bl <= 0 && bh >= 0)
            return SYM_DIV_ZERO;
        if (nd->kind != SYM_MOD) {
            /* monotone in each operand once the divisor's sign is fixed */
            bool ceil = nd->kind == SYM_CDIV;
            if (bl > 0) {
                /* Divisions dominate the solver's time, so pick the two
                 * extreme corners instead of trying four: increasing in the
                 * dividend; in the divisor decreasing for a dividend >= 0,
                 * increasing below. Nothing can overflow with b > 0. */
                quot(ceil, al, al >= 0 ? bh : bl, lo);
                if (al == ah && bl == bh)
                    *hi = *lo;
                else
                    quot(ceil, ah, ah >= 0 ? bl : bh, hi);
                return SYM_OK;
            }
            if (!quot(ceil, al, bl, &p[0]) || !quot(ceil, al, bh, &p[1]) || !quot(ceil, ah, bl, &p[2]) ||
                !quot(ceil, ah, bh, &p[3]))
                return SYM_OVERFLOW;
            *lo = LM_MIN(LM_MIN(p[0], p[1]), LM_MIN(p[2], p[3]));
            *hi = LM_MAX(LM_MAX(p[0], p[1]), LM_MAX(p[2], p[3]));
            return SYM_OK;
        }
        if (bl == bh) { /* the dividend range within one period of one divisor */
            int64_t q1, q2;
            if (lm_fdiv_ok(al, bl, &q1) && lm_fdiv_ok(ah, bl, &q2) && q1 == q2) {
                *lo = lm_pymod(al, bl);
                *hi = lm_pymod(ah, bl);
                return SYM_OK;
            }
        }
        if (bl > 0) {
            if (al >= 0 && ah < bl) {
                *lo = al;
                *hi = ah;
            } else {
                *lo = 0;
                *hi = al >= 0 ? LM_MIN(ah, bh - 1) : bh - 1;
            }
        } else {
            if (ah <= 0 && al > bh) {
                *lo = al;
                *hi = ah;
            } else {
                *lo = ah <= 0 ? LM_MAX(al, bl + 1) : bl + 1;
                *hi = 0;
            }
        }
        return SYM_OK;
    }
    case SYM_MIN:
    case SYM_MAX:
        al = t[ar[0]].lo;
        ah = t[ar[0]].hi;
        for (int k = 1; k < nd->nargs; k++) {
            if (nd->kind == SYM_MIN) {
                al = LM_MIN(al, t[ar[k]].lo);
                ah = LM_MIN(ah, t[ar[k]].hi);
            } else {
                al = LM_MAX(al, t[ar[k]].lo);
                ah = LM_MAX(ah, t[ar[k]].hi);
            }
        }
        *lo = al;
        *hi = ah;
        return SYM_OK;
    }
    LM_BUG("solve: bad expression kind %d", (int)nd->kind);
}

static LM_ALWAYS_INLINE void tape_eval(tape *tp, int i)
{
    tnode *nd = &tp->t[i];
    tape_status(tp, nd, node_bounds(tp, tp->nbad, nd, &tp->iv[i].lo, &tp->iv[i].hi));
}

/* tape_eval over nodes idx[0 .. n), the count of nodes without an
 * interval kept in a register: through tp it was a store and a load per
 * node. */
static LM_ALWAYS_INLINE void tape_eval_list(tape *tp, const int *idx, int n)
{
    int nbad = tp->nbad;
    for (int q = 0; q < n; q++) {
        int i = idx[q];
        tnode *nd = &tp->t[i];
        sym_status st = node_bounds(tp, nbad, nd, &tp->iv[i].lo, &tp->iv[i].hi);
        nbad += (st != SYM_OK) - (nd->st != SYM_OK);
        nd->st = st;
    }
    tp->nbad = nbad;
}

/* ---- branch and bound -------------------------------------------------------- */

/* A child of the current node, kept until it is descended into: its
 * position in the branching variable's domain and its objective lower bound
 * (children are visited best bound first, so good incumbents come early and
 * later siblings prune). */
typedef struct child {
    int pos;
    int64_t lo;
} child;

/* Tape intervals of one variable's update list, saved per child so that
 * descending into a child, or returning to the parent, is a copy rather
 * than a re-evaluation. */
typedef struct ival {
    int64_t lo, hi;
    sym_status st;
} ival;

typedef struct search {
    const solve_problem *p;
    int n, ncons;
    int *order;          /* order[d]: problem index of the variable branched at depth d */
    sym_env env;         /* binding j is problem variable j (for sym_eval at leaves) */
    int64_t *dmin, *dmax;
    int *pos;            /* position of each problem variable's value, -1 if unassigned */
    tape tp;
    int *varnode;        /* tape leaf of each problem variable, -1 if unused */
    int **upd;           /* upd[j]: tape nodes depending on variable j, in tape order */
    int **byval;         /* byval[j]: positions in variable j's domain by value, then position */
    int **seq;           /* seq[j]: upd[j] in the order the checks need them (staged_eval) */
    int **segend;        /* segend[j][q]: where in seq[j] the cone of dep[j][q] ends; then the
                            objective's (index ndep[j]) */
    int *nupd;
    int *cons_node, obj_node, tb_node[SOLVE_MAX_TIEBREAK];
    int **dep;           /* dep[j]: constraints that mention variable j, ascending */
    int *ndep;
    unsigned char *ent;  /* (n+1) rows of ncons: constraint proven for the whole subtree */
    unsigned char *kent; /* per depth and child: constraints newly proven (maxdom*ncons) */
    child *kids;         /* per depth: maxdom children */
    ival **snap;         /* per depth: tape state of each child, then the parent's */
    ival *snapstore;
    int maxdom;
    topk top;
    int64_t nodes, limit;
    bool hit_limit, failed, verify;
    solve_stats *st;
    lm_buf *why;
} search;

/* The verify_bounds check: each root of the tape against sym_bounds. */
static void verify_root(const search *s, const sym_expr *e, int node)
{
    int64_t lo = 0, hi = 0;
    sym_status st = sym_bounds(e, &s->env, &lo, &hi);
    const tnode *nd = &s->tp.t[node];
    const tiv *iv = &s->tp.iv[node];
    if (st != nd->st || (st == SYM_OK && (lo != iv->lo || hi != iv->hi)))
        LM_BUG("solve: incremental bounds [%lld, %lld] (status %d) differ from sym_bounds [%lld, %lld] "
               "(status %d)",
               (long long)iv->lo, (long long)iv->hi, (int)nd->st, (long long)lo, (long long)hi, (int)st);
}

/* tiebreaks: whether they are evaluated too (staged_eval may leave them) */
static void verify_upto(const search *s, bool tiebreaks)
{
    if (!s->verify)
        return;
    for (int c = 0; c < s->ncons; c++)
        verify_root(s, s->p->cons[c].expr, s->cons_node[c]);
    verify_root(s, s->p->objective, s->obj_node);
    for (int i = 0; tiebreaks && i < s->p->ntiebreak; i++)
        verify_root(s, s->p->tiebreak[i], s->tb_node[i]);
}

static void verify(const search *s)
{
    verify_upto(s, true);
}

/* Put variable j at [lo, hi] without evaluating the tape. Returns false
 * when no node depends on it. */
static bool put_var(search *s, int j, int64_t lo, int64_t hi)
{
    s->env.b[j].lo = lo;
    s->env.b[j].hi = hi;
    if (s->varnode[j] < 0)
        return false;
    s->tp.iv[s->varnode[j]] = (tiv){lo, hi};
    return true;
}

/* Evaluate seq[j][from .. to). */
static void eval_span(search *s, int j, int from, int to)
{
    tape_eval_list(&s->tp, s->seq[j] + from, to - from);
}

static void set_var(search *s, int j, int64_t lo, int64_t hi)
{
    if (!put_var(s, j, lo, hi))
        return;
    eval_span(s, j, 0, s->nupd[j]);
    verify(s);
}

static void assign(search *s, int j, int i)
{
    int64_t x = s->p->vars[j].domain[i];
    s->pos[j] = i;
    set_var(s, j, x, x);
}

static void release(search *s, int j)
{
    s->pos[j] = -1;
    set_var(s, j, s->dmin[j], s->dmax[j]);
}

/* Current lower bound of a tape root; INT64_MIN when it has none (a
 * divisor range spanning 0, say), so that nothing is pruned on it. */
static int64_t lower(const search *s, int node)
{
    return s->tp.t[node].st == SYM_OK ? s->tp.iv[node].lo : INT64_MIN;
}

/* Whether every completion of the current partial assignment is strictly
 * later in the solver's order than the k-th best. Beyond the objective's
 * lower bound: with that bound equal to the k-th best's objective, the
 * subtree is still beaten if its tiebreak lower bounds, then its smallest
 * possible positions (the assigned ones, 0 for the rest), come after the
 * k-th best's. */
static bool dominated(search *s, int64_t lo)
{
    topk *t = &s->top;
    if (t->n < t->k)
        return false;
    const entry *w = &t->e[t->k - 1];
    if (lo != w->obj)
        return lo > w->obj;
    for (int i = 0; i < t->ntb; i++) {
        int64_t l = lower(s, s->tb_node[i]);
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

static void fail(search *s, int what, sym_status st)
{
    report_error(s->why, s->p, &s->env, what, st);
    s->failed = true;
}

/* The value of root `e` (tape node `node`) at a complete assignment: the
 * tape's point where it evaluated (the same value sym_eval returns, see
 * above; checked against it under verify_bounds), else sym_eval, which
 * reports why it fails. */
static sym_status root_value(const search *s, const sym_expr *e, int node, int64_t *v)
{
    const tiv *iv = &s->tp.iv[node];
    if (s->tp.t[node].st == SYM_OK && iv->lo == iv->hi) {
        *v = iv->lo;
        if (s->verify) {
            int64_t w = 0;
            if (sym_eval(e, &s->env, &w) != SYM_OK || w != *v)
                LM_BUG("solve: the tape's point %lld differs from sym_eval's", (long long)*v);
        }
        return SYM_OK;
    }
    return sym_eval(e, &s->env, v);
}

/* A complete assignment. The tape's intervals are now exact values where
 * they evaluated; a constraint, objective or tie-break whose node failed is
 * evaluated again with sym_eval, which reports why. `ent` is the row of
 * constraints already proven for this assignment. */
static void leaf(search *s, const unsigned char *ent)
{
    const solve_problem *p = s->p;
    int64_t v;
    sym_status st;
    for (int c = 0; c < s->ncons; c++) {
        if (ent[c])
            continue;
        if ((st = root_value(s, p->cons[c].expr, s->cons_node[c], &v)) != SYM_OK) {
            fail(s, c, st);
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
    if (!topk_admits_obj(&s->top, lower(s, s->obj_node))) {
        s->st->pruned_bound++;
        return;
    }
    if ((st = root_value(s, p->objective, s->obj_node, &obj)) != SYM_OK) {
        fail(s, -1, st);
        return;
    }
    if (!topk_admits_obj(&s->top, obj)) {
        s->st->pruned_bound++;
        return;
    }
    for (int i = 0; i < p->ntiebreak; i++) {
        if ((st = root_value(s, p->tiebreak[i], s->tb_node[i], &tb[i])) != SYM_OK) {
            fail(s, -2 - i, st);
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

/* Variable j put at a value or a range of values (put_var): evaluate what
 * depends on it in stages, stopping as soon as the answer is known. The
 * constraints that mention j come first, each after the part of the tape
 * it needs (seq[j], segend[j]), in the order of dep[j]; the first proven
 * violated ends it and the rest of the tape is left stale - the caller
 * loads a saved state or evaluates j again before anything reads it.
 * Otherwise the objective's part follows; the tie-breaks' part is left
 * stale too (load evaluates it for a child descended into). `ent` (NULL:
 * none) has the constraints already proven, which are not checked; `ke`,
 * when given, gets those now proven. Returns the violated constraint, or
 * -1. */
static int staged_eval(search *s, int j, const unsigned char *ent, unsigned char *ke)
{
    const int *end = s->segend[j];
    int at = 0;
    for (int q = 0; q < s->ndep[j]; q++) {
        int c = s->dep[j][q];
        eval_span(s, j, at, end[q]);
        at = end[q];
        if (ke)
            ke[c] = 0;
        if (ent && ent[c])
            continue;
        int node = s->cons_node[c];
        if (s->tp.t[node].st != SYM_OK)
            continue; /* e.g. a divisor range still spans 0: no proof either way */
        if (s->tp.iv[node].lo > 0)
            return c;
        if (ke)
            ke[c] = s->tp.iv[node].hi <= 0;
    }
    eval_span(s, j, at, end[s->ndep[j]]);
    verify_upto(s, false);
    return -1;
}

/* Count a constraint's rejection of n values. */
static void rejected(search *s, int c, int n)
{
    s->st->rejected_by[c] += n;
    s->st->pruned_infeasible += n;
}

static void save(const search *s, int j, ival *to)
{
    for (int q = 0; q < s->nupd[j]; q++) {
        int i = s->upd[j][q];
        to[q] = (ival){s->tp.iv[i].lo, s->tp.iv[i].hi, s->tp.t[i].st};
    }
}

/* Put variable j at [lo, hi] with the tape state saved for that. A child's
 * state is saved without its tie-breaks' part (child_at): `tail` evaluates
 * that part now, for the one child descended into rather than for every
 * child collected. */
static void load(search *s, int j, int pos, int64_t lo, int64_t hi, const ival *from, bool tail)
{
    s->pos[j] = pos;
    s->env.b[j].lo = lo;
    s->env.b[j].hi = hi;
    if (s->varnode[j] < 0)
        return;
    s->tp.iv[s->varnode[j]] = (tiv){lo, hi};
    int nbad = s->tp.nbad;
    for (int q = 0; q < s->nupd[j]; q++) {
        int i = s->upd[j][q];
        tnode *nd = &s->tp.t[i];
        s->tp.iv[i] = (tiv){from[q].lo, from[q].hi};
        nbad += (from[q].st != SYM_OK) - (nd->st != SYM_OK);
        nd->st = from[q].st;
    }
    s->tp.nbad = nbad;
    if (tail)
        eval_span(s, j, s->segend[j][s->ndep[j]], s->nupd[j]);
    verify(s);
}

/* The children of one node being collected: each feasible child's bound
 * and tape state, sorted by (bound, position). */
typedef struct level {
    int j, nk;
    const unsigned char *ent; /* constraints proven at the node */
    unsigned char *kent;      /* per position: constraints the child proves */
    child *kids;
    ival *snap;               /* per position: the child's tape state */
} level;

/* The child at position i of the level's variable: evaluated, checked and,
 * when feasible, kept in bound order. */
static void child_at(search *s, level *lv, int i)
{
    const int nu = s->nupd[lv->j];
    if (!take_node(s))
        return;
    int64_t x = s->p->vars[lv->j].domain[i];
    s->pos[lv->j] = i;
    int c = put_var(s, lv->j, x, x) ? staged_eval(s, lv->j, lv->ent, lv->kent + (size_t)i * (size_t)s->ncons)
                                     : -1;
    if (c >= 0) {
        rejected(s, c, 1);
        return;
    }
    save(s, lv->j, lv->snap + (size_t)i * (size_t)nu);
    int64_t lo = lower(s, s->obj_node);
    /* insertion by (bound, position): a total order, so the visit order
     * is deterministic whatever order the children are collected in */
    int at = lv->nk++;
    while (at > 0 && (lv->kids[at - 1].lo > lo || (lv->kids[at - 1].lo == lo && lv->kids[at - 1].pos > i))) {
        lv->kids[at] = lv->kids[at - 1];
        at--;
    }
    lv->kids[at] = (child){i, lo};
}

/* Whether the variable at the range [lo, hi] of nvals of its values leaves
 * no child worth a look: a constraint proven violated over all of it, or
 * an objective bound strictly above the k-th best. The bounds at the range
 * hold for every completion with the variable anywhere in it (they are
 * sym_bounds' over ranges that contain the completion's values), so every
 * assignment below those children is infeasible or cannot enter the top k;
 * a rejection counts once per value, as the children's would. The
 * tie-breaks are not needed for that and are not evaluated. */
static bool range_pruned(search *s, const level *lv, int64_t lo, int64_t hi, int nvals)
{
    if (!put_var(s, lv->j, lo, hi))
        return false;
    int c = staged_eval(s, lv->j, lv->ent, NULL);
    if (c >= 0) {
        rejected(s, c, nvals);
        return true;
    }
    const topk *t = &s->top;
    if (t->n == t->k && lower(s, s->obj_node) > t->e[t->k - 1].obj) {
        s->st->pruned_bound += nvals;
        return true;
    }
    return false;
}

/* The children at sorted positions [a, b) of the level's variable (sorted
 * by value: s->byval). A range of more than RANGE_MIN values is split in
 * two; each half is first evaluated with the variable at the half's whole
 * range and left out when that already prunes it - where most children of
 * a node fail, as deep in the tree, one evaluation stands for many. A
 * range of two is taken value by value: checked whole it was pruned about
 * a third of the time, too seldom to pay for the extra evaluation. */
enum { RANGE_MIN = 2 };
static void children_in(search *s, level *lv, int a, int b, bool whole)
{
    const solve_var *v = &s->p->vars[lv->j];
    const int *byval = s->byval[lv->j];
    if (b - a <= RANGE_MIN) {
        for (int i = a; i < b && !s->hit_limit; i++)
            child_at(s, lv, byval[i]);
        return;
    }
    if (!whole) {
        if (!take_node(s))
            return;
        if (range_pruned(s, lv, v->domain[byval[a]], v->domain[byval[b - 1]], b - a))
            return;
    }
    int mid = a + (b - a) / 2;
    children_in(s, lv, a, mid, false);
    if (!s->hit_limit)
        children_in(s, lv, mid, b, false);
}

/* Explore below the node at depth d (order[0..d-1] assigned). */
static void dfs(search *s, int d)
{
    const int j = s->order[d];
    const solve_var *v = &s->p->vars[j];
    const unsigned char *ent = s->ent + (size_t)d * (size_t)s->ncons;
    const int nu = s->nupd[j];
    ival *snap = s->snap[d], *parent = snap + (size_t)v->ndomain * (size_t)nu;
    save(s, j, parent);

    if (d == s->n - 1) { /* children are leaves */
        for (int i = 0; i < v->ndomain && !s->failed; i++) {
            if (!take_node(s))
                break;
            assign(s, j, i);
            leaf(s, ent);
        }
        load(s, j, -1, s->dmin[j], s->dmax[j], parent, false);
        return;
    }

    level lv = {.j = j, .ent = ent, .snap = snap,
                .kids = s->kids + (size_t)d * (size_t)s->maxdom,
                .kent = s->kent + (size_t)d * (size_t)s->maxdom * (size_t)s->ncons};
    if (v->ndomain)
        children_in(s, &lv, 0, v->ndomain, true);
    child *kids = lv.kids;
    const unsigned char *kent = lv.kent;
    int nk = lv.nk;

    unsigned char *next = s->ent + (size_t)(d + 1) * (size_t)s->ncons;
    for (int k = 0; k < nk && !s->failed && !s->hit_limit; k++) {
        int i = kids[k].pos;
        if (s->top.n == s->top.k && kids[k].lo > s->top.e[s->top.k - 1].obj) {
            /* children are sorted by bound: the rest are beaten too */
            s->st->pruned_bound += nk - k;
            break;
        }
        int64_t x = v->domain[i];
        load(s, j, i, x, x, snap + (size_t)i * (size_t)nu, true);
        if (dominated(s, kids[k].lo)) {
            s->st->pruned_bound++;
            continue;
        }
        memcpy(next, ent, (size_t)s->ncons);
        const unsigned char *ke = kent + (size_t)i * (size_t)s->ncons;
        for (int q = 0; q < s->ndep[j]; q++)
            next[s->dep[j][q]] |= ke[s->dep[j][q]];
        dfs(s, d + 1);
    }
    load(s, j, -1, s->dmin[j], s->dmax[j], parent, false);
}

/* Variable j's values probed in the current context (the variables placed
 * so far fixed at their chosen values, the rest at their ranges): per
 * value, how far fixing it raises the objective's lower bound above `root`
 * (rise) and whether a constraint then rules it out (dead). Returns the
 * position of the live value with the least bound, -1 when all are dead.
 * The variable and the tape are put back as they were, the tape from
 * `keep` (room for nupd[j] entries) rather than evaluated again. A
 * variable of one value is a point already: nothing to probe. */
static int probe_var(search *s, int j, int64_t root, double *rise, bool *dead, ival *keep)
{
    const solve_var *v = &s->p->vars[j];
    if (v->ndomain == 1) {
        rise[0] = 0;
        dead[0] = false;
        return 0;
    }
    int64_t bestlo = INT64_MAX, was_lo = s->env.b[j].lo, was_hi = s->env.b[j].hi;
    int best = -1;
    save(s, j, keep);
    for (int i = 0; i < v->ndomain; i++) {
        int64_t x = v->domain[i];
        dead[i] = put_var(s, j, x, x) && staged_eval(s, j, NULL, NULL) >= 0;
        int64_t lo = lower(s, s->obj_node);
        rise[i] = root == INT64_MIN || lo == INT64_MIN ? 0 : (double)lo - (double)root;
        if (!dead[i] && lo < bestlo) {
            bestlo = lo;
            best = i;
        }
    }
    load(s, j, s->pos[j], was_lo, was_hi, keep, false);
    return best;
}

/* A variable's score from its n values' probes: the average rise as a
 * share of `maxrise`, a dead value counting as 1. */
static double order_score(int n, const double *rise, const bool *dead, double maxrise)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += dead[i] ? 1.0 : maxrise > 0 ? rise[i] / maxrise : 0;
    return n ? sum / n : 0;
}

/* Branch first on the variables whose value matters most: for each, the
 * average over its values of how far fixing it raises the objective's
 * lower bound (as a share of the largest such rise over the variables
 * still to place), a value that constraints rule out counting as 1. Fixing
 * those early tightens bounds and finds good incumbents soonest; on equal
 * scores, variables that more constraints mention, then the problem's
 * order. The order is built greedily: each variable placed is fixed at its
 * most promising value (the least bound) while the rest are scored again.
 * Scored at the root alone, a variable whose effect shows only together
 * with another's (grid.x and grid.y, whose product is the core count) looks
 * idle while block sizes are free, and went last: M=32 N=11008 K=4096 on
 * p150 took 403,106 nodes that way, 117,508 this way. Any order gives the
 * same result; this one only changes the effort. */
static void choose_order(search *s)
{
    const solve_problem *p = s->p;
    int maxdom = 1;
    for (int j = 0; j < s->n; j++)
        maxdom = LM_MAX(maxdom, p->vars[j].ndomain);
    size_t nv = (size_t)(s->n ? s->n : 1), cells = nv * (size_t)maxdom;
    double *rise = lm_xcalloc(cells, sizeof *rise);
    bool *dead = lm_xcalloc(cells, sizeof *dead);
    int *best = lm_xcalloc(nv, sizeof *best);
    bool *placed = lm_xcalloc(nv, sizeof *placed);
    int maxupd = 1;
    for (int j = 0; j < s->n; j++)
        maxupd = LM_MAX(maxupd, s->nupd[j]);
    ival *keep = lm_xcalloc((size_t)maxupd, sizeof *keep);
    for (int d = 0; d < s->n; d++) {
        int64_t root = lower(s, s->obj_node);
        double maxrise = 0;
        for (int j = 0; j < s->n; j++) {
            if (placed[j])
                continue;
            size_t at = (size_t)j * (size_t)maxdom;
            best[j] = probe_var(s, j, root, rise + at, dead + at, keep);
            for (int i = 0; i < p->vars[j].ndomain; i++)
                if (!dead[at + (size_t)i])
                    maxrise = LM_MAX(maxrise, rise[at + (size_t)i]);
        }
        int pick = -1;
        double top = 0;
        for (int j = 0; j < s->n; j++) {
            if (placed[j])
                continue;
            size_t at = (size_t)j * (size_t)maxdom;
            double score = order_score(p->vars[j].ndomain, rise + at, dead + at, maxrise);
            if (pick < 0 || score > top || (score == top && s->ndep[j] > s->ndep[pick])) {
                pick = j;
                top = score;
            }
        }
        placed[pick] = true;
        s->order[d] = pick;
        if (best[pick] >= 0) {
            int64_t x = p->vars[pick].domain[best[pick]];
            set_var(s, pick, x, x);
        }
    }
    for (int j = 0; j < s->n; j++)
        release(s, j);
    free(rise);
    free(dead);
    free(best);
    free(placed);
    free(keep);
}

/* seq[j] and segend[j] (staged_eval): upd[j] split into the part each
 * constraint of dep[j] needs beyond those before it, then the objective's,
 * then the rest, each in tape order. A part's operands lie in it, in an
 * earlier part or outside upd[j] (a cone is closed under operands), so the
 * concatenation is an order of evaluation too. */
static void stage_order(search *s, const uint64_t *bits, size_t words)
{
    const tape *tp = &s->tp;
    int *part = lm_xcalloc((size_t)(tp->n ? tp->n : 1), sizeof *part);
    int *stack = lm_xcalloc((size_t)tp->nargs_total + 1, sizeof *stack); /* an edge is pushed once */
    s->seq = lm_xcalloc((size_t)(s->n ? s->n : 1), sizeof *s->seq);
    s->segend = lm_xcalloc((size_t)(s->n ? s->n : 1), sizeof *s->segend);
    for (int j = 0; j < s->n; j++) {
        const int nparts = s->ndep[j] + 2; /* the constraints', the objective's, the rest */
        for (int i = 0; i < tp->n; i++)
            part[i] = -1;
        for (int k = 0; k < nparts - 1; k++) {
            int sp = 0;
            stack[sp++] = k < s->ndep[j] ? s->cons_node[s->dep[j][k]] : s->obj_node;
            while (sp) {
                int i = stack[--sp];
                if (part[i] >= 0 || !tp->t[i].nargs || !(bits[(size_t)i * words + (size_t)j / 64] >> (j % 64) & 1))
                    continue;
                part[i] = k;
                for (int a = 0; a < tp->t[i].nargs; a++)
                    stack[sp++] = tp->t[i].args[a];
            }
        }
        int *seq = s->seq[j] = lm_xcalloc((size_t)(s->nupd[j] ? s->nupd[j] : 1), sizeof **s->seq);
        int *end = s->segend[j] = lm_xcalloc((size_t)nparts, sizeof **s->segend);
        int at = 0;
        for (int k = 0; k < nparts; k++) {
            for (int q = 0; q < s->nupd[j]; q++) {
                int i = s->upd[j][q];
                if (part[i] == k || (k == nparts - 1 && part[i] < 0))
                    seq[at++] = i;
            }
            end[k] = at;
        }
        LM_ASSERT(at == s->nupd[j]);
    }
    free(part);
    free(stack);
}

/* Build the tape and the per-variable update lists. */
static void search_setup(search *s)
{
    const solve_problem *p = s->p;
    size_t nv = (size_t)(s->n ? s->n : 1), nc = (size_t)(s->ncons ? s->ncons : 1);
    tape *tp = &s->tp;
    intvec tmpargs = {0}, argpos = {0};
    s->cons_node = lm_xcalloc(nc, sizeof *s->cons_node);
    for (int c = 0; c < s->ncons; c++)
        s->cons_node[c] = tape_add(tp, p->cons[c].expr, p, &tmpargs, &argpos);
    s->obj_node = tape_add(tp, p->objective, p, &tmpargs, &argpos);
    for (int i = 0; i < p->ntiebreak; i++)
        s->tb_node[i] = tape_add(tp, p->tiebreak[i], p, &tmpargs, &argpos);
    tape_finish(tp, &tmpargs, &argpos);
    LM_VEC_FREE(&tmpargs);
    LM_VEC_FREE(&argpos);

    /* which variables each node depends on: one bit row per node */
    size_t words = (nv + 63) / 64;
    uint64_t *bits = lm_xcalloc((size_t)tp->n * words, sizeof *bits);
    s->varnode = lm_xcalloc(nv, sizeof *s->varnode);
    s->upd = lm_xcalloc(nv, sizeof *s->upd);
    s->nupd = lm_xcalloc(nv, sizeof *s->nupd);
    for (int j = 0; j < s->n; j++)
        s->varnode[j] = -1;
    for (int i = 0; i < tp->n; i++) {
        tnode *nd = &tp->t[i];
        uint64_t *row = bits + (size_t)i * words;
        if (nd->var >= 0) {
            row[nd->var / 64] |= (uint64_t)1 << (nd->var % 64);
            s->varnode[nd->var] = i;
            tp->iv[i] = (tiv){s->env.b[nd->var].lo, s->env.b[nd->var].hi};
        }
        for (int k = 0; k < nd->nargs; k++)
            for (size_t w = 0; w < words; w++)
                row[w] |= bits[(size_t)nd->args[k] * words + w];
        if (nd->nargs)
            tape_eval(tp, i);
    }
    for (int j = 0; j < s->n; j++) {
        s->upd[j] = lm_xcalloc((size_t)(tp->n ? tp->n : 1), sizeof **s->upd);
        for (int i = 0; i < tp->n; i++)
            if (tp->t[i].nargs && (bits[(size_t)i * words + (size_t)j / 64] >> (j % 64) & 1))
                s->upd[j][s->nupd[j]++] = i;
    }

    s->byval = lm_xcalloc(nv, sizeof *s->byval);
    for (int j = 0; j < s->n; j++) {
        const solve_var *v = &p->vars[j];
        int *bv = s->byval[j] = lm_xcalloc((size_t)(v->ndomain ? v->ndomain : 1), sizeof **s->byval);
        for (int i = 0; i < v->ndomain; i++) { /* stable insertion sort: domains are short */
            int at = i;
            while (at > 0 && v->domain[bv[at - 1]] > v->domain[i]) {
                bv[at] = bv[at - 1];
                at--;
            }
            bv[at] = i;
        }
    }

    s->dep = lm_xcalloc(nv, sizeof *s->dep);
    s->ndep = lm_xcalloc(nv, sizeof *s->ndep);
    for (int j = 0; j < s->n; j++) {
        s->dep[j] = lm_xcalloc(nc, sizeof **s->dep);
        for (int c = 0; c < s->ncons; c++)
            if (bits[(size_t)s->cons_node[c] * words + (size_t)j / 64] >> (j % 64) & 1)
                s->dep[j][s->ndep[j]++] = c;
    }
    stage_order(s, bits, words);
    free(bits);
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
    s.verify = o && o->verify_bounds;
    s.limit = o && o->node_limit > 0 ? o->node_limit : SOLVE_DEFAULT_NODE_LIMIT;
    topk_init(&s.top, o ? o->top_k : 1, p->nvars, p->ntiebreak);

    size_t nv = (size_t)(s.n ? s.n : 1), nc = (size_t)(s.ncons ? s.ncons : 1);
    env_build(p, &s.env);
    s.order = lm_xcalloc(nv, sizeof *s.order);
    s.dmin = lm_xcalloc(nv, sizeof *s.dmin);
    s.dmax = lm_xcalloc(nv, sizeof *s.dmax);
    s.pos = lm_xcalloc(nv, sizeof *s.pos);
    for (int j = 0; j < s.n; j++) {
        s.dmin[j] = s.env.b[j].lo;
        s.dmax[j] = s.env.b[j].hi;
        s.pos[j] = -1;
        s.maxdom = LM_MAX(s.maxdom, p->vars[j].ndomain);
    }
    search_setup(&s);
    size_t md = (size_t)(s.maxdom ? s.maxdom : 1);
    s.ent = lm_xcalloc((nv + 1) * nc, 1);
    s.kent = lm_xcalloc(nv * md * nc, 1);
    s.kids = lm_xcalloc(nv * md, sizeof *s.kids);

    solve_status res;
    if (any_empty_domain(p)) {
        res = SOLVE_INFEASIBLE;
        goto done;
    }
    /* the root: constraints over the whole domains (before the branching
       order is chosen, which a candidate dead at its root does not need) */
    verify(&s);
    take_node(&s);
    bool dead = false;
    for (int c = 0; c < s.ncons && !dead; c++) {
        const tnode *nd = &s.tp.t[s.cons_node[c]];
        const tiv *iv = &s.tp.iv[s.cons_node[c]];
        if (nd->st != SYM_OK)
            continue;
        if (iv->lo > 0) {
            s.st->rejected_by[c]++;
            s.st->pruned_infeasible++;
            dead = true;
        }
        s.ent[c] = iv->hi <= 0;
    }
    if (!dead && s.n == 0)
        leaf(&s, s.ent);
    else if (!dead) {
        choose_order(&s);
        size_t nsnap = 0;
        for (int d = 0; d < s.n; d++)
            nsnap += ((size_t)p->vars[s.order[d]].ndomain + 1) * (size_t)s.nupd[s.order[d]];
        s.snapstore = lm_xcalloc(nsnap ? nsnap : 1, sizeof *s.snapstore);
        s.snap = lm_xcalloc(nv, sizeof *s.snap);
        for (int d = 0, at = 0; d < s.n; d++) {
            s.snap[d] = s.snapstore + at;
            at += (p->vars[s.order[d]].ndomain + 1) * s.nupd[s.order[d]];
        }
        dfs(&s, 0);
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
    for (int j = 0; j < s.n; j++) {
        free(s.dep[j]);
        free(s.upd[j]);
        free(s.byval[j]);
        free(s.seq[j]);
        free(s.segend[j]);
    }
    free(s.seq);
    free(s.segend);
    free(s.byval);
    free(s.dep);
    free(s.ndep);
    free(s.upd);
    free(s.nupd);
    free(s.varnode);
    free(s.cons_node);
    free(s.order);
    free(s.dmin);
    free(s.dmax);
    free(s.pos);
    free(s.ent);
    free(s.kent);
    free(s.kids);
    free(s.snap);
    free(s.snapstore);
    free(s.env.b);
    tape_free(&s.tp);
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
