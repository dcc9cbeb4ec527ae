/* mzn.c - open models: write a solver problem as a MiniZinc model with
 * loomc's exact semantics and the solver's integer range respected, so that
 * an independent solver can confirm loomc's optimum (mzn.h;
 * docs/scheduler.md, "Open models (MiniZinc)"). Running minizinc and
 * reaching loomc's lexicographic order with it is mzn_run.c.
 *
 * The problem's expressions are flattened into one table of distinct
 * subexpressions ("nodes", operands first, products made binary so that
 * every intermediate MiniZinc creates is a node whose range is known). Each
 * node has a sound interval over the domains. Nodes whose interval may leave
 * the solver's range are declared as variables with an explicit, clipped
 * domain - and only when a proof says what the clipping removes: assignments
 * at which some constraint is certainly > 0, or at which the first key
 * (objective or tie-break) using the node certainly reaches a threshold that
 * the answer found must stay below. Non-linear nodes of few variables are
 * written as tables over the variables' domain positions, computed by
 * MiniZinc from the node's own expression.
 */
#include "solve/mzn_int.h"

#include <stdlib.h>
#include <string.h>

/* Interval ends at or beyond +-INF stand for "unbounded": sound, never exact. */
#define INF ((int64_t)1 << 62)
#define NOBOUND INT64_MIN

static int64_t clamp128(i128 v) { return v > INF ? INF : v < -INF ? -INF : (int64_t)v; }
static bool is_inf(int64_t v) { return v >= INF || v <= -INF; }

static i128 cdiv128(i128 a, i128 b) { return -lm_fdiv128(-a, b); }

static i128 pymod128(i128 a, i128 b) { return a - b * lm_fdiv128(a, b); }

/* ---- the node table ----------------------------------------------------- */

static void fail(mctx *c, const char *fmt, ...) LM_PRINTF(2, 3);
static void fail(mctx *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    if (!c->why)
        return;
    va_list ap;
    va_start(ap, fmt);
    lm_buf_vprintf(c->why, fmt, ap);
    va_end(ap);
}

/* An expression's text for a comment or a message, cut short after about
 * 2,000 characters: a latency that shares terms prints each share in full,
 * megabytes for the chains of a fused pair, which MiniZinc then spends
 * seconds reading past. */
static const char *expr_text(mctx *c, const sym_expr *e)
{
    lm_buf b = {0};
    sym_print_short(&b, e, 2000);
    const char *s = lm_arena_strdup(&c->ar, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

/* ---- names -------------------------------------------------------------- */

static const char *const reserved[] = {
    "ann", "annotation", "any", "array", "bool", "case", "constraint", "diff", "div", "else", "elseif", "endif",
    "enum", "false", "float", "function", "if", "in", "include", "int", "intersect", "let", "list", "maximize",
    "minimize", "mod", "not", "of", "op", "opt", "output", "par", "predicate", "record", "satisfy", "set",
    "solve", "string", "subset", "superset", "symdiff", "test", "then", "true", "tuple", "type", "union", "var",
    "where", "xor", "min", "max", "sum", "product", "abs", "show", "fix", "lb", "ub", "dom", "card", "exists",
    "forall", "length", "pow", "sqrt", "exp", "log", "bool2int", "index_set", "array1d", "array2d", "sign",
    "assert", "trace", "int2float", "ceil", "floor", "round", "occurs", "deopt", "absent", "count", "element"};

static bool name_taken(mctx *c, const char *s)
{
    for (size_t i = 0; i < LM_COUNT(reserved); i++)
        if (!strcmp(reserved[i], s))
            return true;
    if (!strncmp(s, "loomc_", 6))
        return true;
    for (size_t i = 0; i < c->syms.len; i++)
        if (c->syms.items[i].name && !strcmp(c->syms.items[i].name, s))
            return true;
    return false;
}

static const char *sanitize(mctx *c, const char *raw)
{
    lm_buf b = {0};
    if (!((raw[0] >= 'A' && raw[0] <= 'Z') || (raw[0] >= 'a' && raw[0] <= 'z')))
        lm_buf_puts(&b, "v_");
    for (const char *s = raw; *s; s++) {
        char ch = *s;
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
        lm_buf_putc(&b, ok ? ch : '_');
    }
    const char *base = lm_arena_strdup(&c->ar, lm_buf_str(&b));
    lm_buf_free(&b);
    if (!name_taken(c, base))
        return base;
    for (int k = 2;; k++) {
        const char *s = lm_arena_printf(&c->ar, "%s_%d", base, k);
        if (!name_taken(c, s))
            return s;
    }
}

/* Problem variables get their names first (in problem order), so a
 * variable's MiniZinc name does not depend on which expressions mention it. */
static int sym_slot(mctx *c, const sym_expr *v, bool create)
{
    for (size_t i = 0; i < c->syms.len; i++)
        if (c->syms.items[i].sym == v)
            return (int)i;
    if (!create)
        return -1;
    msym s = {v, NULL, -1, 0};
    for (int j = 0; j < c->p->nvars; j++)
        if (c->p->vars[j].var == v) {
            s.var = j;
            break;
        }
    if (s.var < 0) {
        int64_t lo, hi;
        if (!c->env_fixed || !sym_env_get(c->env_fixed, v, &lo, &hi)) {
            fail(c, "symbol %s has no value", v->name);
            return -1;
        }
        if (lo != hi) {
            fail(c, "symbol %s is bound to a range, not a value", v->name);
            return -1;
        }
        s.value = lo;
    }
    s.name = sanitize(c, v->name);
    LM_PUSH(&c->syms, s);
    return (int)c->syms.len - 1;
}

/* ---- building nodes ------------------------------------------------------- */

static int find_node(mctx *c, const sym_expr *e)
{
    for (size_t i = 0; i < c->n.len; i++)
        if (c->n.items[i].sym == e)
            return (int)i;
    return -1;
}

static void interval(mctx *c, mnode *nd)
{
    mnode *a = nd->nargs > 0 ? &c->n.items[nd->args[0]] : NULL;
    mnode *b = nd->nargs > 1 ? &c->n.items[nd->args[1]] : NULL;
    switch (nd->kind) {
    case SYM_CONST:
        nd->lo = nd->hi = clamp128(nd->sym->value);
        return;
    case SYM_VAR:
        return; /* set by the caller */
    case SYM_ADD: {
        i128 lo = 0, hi = 0;
        for (int i = 0; i < nd->nargs; i++)
            lo += c->n.items[nd->args[i]].lo, hi += c->n.items[nd->args[i]].hi;
        nd->lo = clamp128(lo), nd->hi = clamp128(hi);
        return;
    }
    case SYM_MUL: { /* binary */
        i128 v[4] = {(i128)a->lo * b->lo, (i128)a->lo * b->hi, (i128)a->hi * b->lo, (i128)a->hi * b->hi};
        i128 lo = v[0], hi = v[0];
        for (int i = 1; i < 4; i++)
            lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
        nd->lo = clamp128(lo), nd->hi = clamp128(hi);
        return;
    }
    case SYM_MIN:
    case SYM_MAX: {
        bool mx = nd->kind == SYM_MAX;
        int64_t lo = a->lo, hi = a->hi;
        for (int i = 1; i < nd->nargs; i++) {
            mnode *o = &c->n.items[nd->args[i]];
            lo = mx ? LM_MAX(lo, o->lo) : LM_MIN(lo, o->lo);
            hi = mx ? LM_MAX(hi, o->hi) : LM_MIN(hi, o->hi);
        }
        nd->lo = lo, nd->hi = hi;
        return;
    }
    case SYM_FLOORDIV:
    case SYM_CDIV: {
        if (is_inf(a->lo) || is_inf(a->hi) || is_inf(b->lo) || is_inf(b->hi)) {
            nd->lo = -INF, nd->hi = INF;
            return;
        }
        if (b->lo <= 0 && b->hi >= 0) {
            /* where defined |b| >= 1, so |q| <= |a| (ceiling adds nothing past it) */
            int64_t m = LM_MAX(-a->lo, a->hi);
            m = LM_MAX(m, 0);
            nd->lo = -m, nd->hi = m;
            return;
        }
        /* monotone in each operand once the divisor's sign is fixed: corners */
        i128 v[4];
        int64_t xs[2] = {a->lo, a->hi}, ys[2] = {b->lo, b->hi};
        for (int i = 0; i < 4; i++)
            v[i] = nd->kind == SYM_FLOORDIV ? lm_fdiv128(xs[i / 2], ys[i % 2]) : cdiv128(xs[i / 2], ys[i % 2]);
        i128 lo = v[0], hi = v[0];
        for (int i = 1; i < 4; i++)
            lo = v[i] < lo ? v[i] : lo, hi = v[i] > hi ? v[i] : hi;
        nd->lo = clamp128(lo), nd->hi = clamp128(hi);
        return;
    }
    case SYM_MOD: {
        if (is_inf(b->lo) || is_inf(b->hi)) {
            nd->lo = -INF, nd->hi = INF;
            return;
        }
        if (b->lo > 0) {
            nd->lo = 0, nd->hi = b->hi - 1;
            if (a->lo >= 0 && a->hi < nd->hi)
                nd->hi = a->hi;
        } else if (b->hi < 0) {
            nd->lo = b->lo + 1, nd->hi = 0;
            if (a->hi <= 0 && a->lo > nd->lo)
                nd->lo = a->lo;
        } else {
            int64_t m = LM_MAX(-b->lo, b->hi) - 1;
            nd->lo = -m, nd->hi = m;
        }
        if (a->lo == a->hi && b->lo == b->hi && b->lo != 0 && !is_inf(a->lo))
            nd->lo = nd->hi = (int64_t)pymod128(a->lo, b->lo);
        return;
    }
    }
}

static int new_node(mctx *c, sym_kind k, const sym_expr *sym, const int *args, int nargs)
{
    mnode nd = {0};
    nd.kind = k;
    nd.sym = sym;
    nd.nargs = nargs;
    nd.var = -1;
    nd.sym_index = -1;
    nd.first_key = INT32_MAX;
    nd.cert_key = -1;
    nd.tab = -1;
    nd.par = true;
    if (nargs) {
        nd.args = LM_NEWN(&c->ar, int, nargs);
        memcpy(nd.args, args, sizeof(int) * (size_t)nargs);
        for (int i = 0; i < nargs; i++)
            nd.par = nd.par && c->n.items[args[i]].par;
    }
    LM_PUSH(&c->n, nd);
    int id = (int)c->n.len - 1;
    interval(c, &c->n.items[id]);
    return id;
}

static int build(mctx *c, const sym_expr *e)
{
    int id = find_node(c, e);
    if (id >= 0 || c->failed)
        return id < 0 ? 0 : id;
    if (e->kind == SYM_CONST)
        return new_node(c, SYM_CONST, e, NULL, 0);
    if (e->kind == SYM_VAR) {
        int s = sym_slot(c, e, true);
        if (s < 0)
            return 0;
        id = new_node(c, SYM_VAR, e, NULL, 0);
        mnode *nd = &c->n.items[id];
        msym *ms = &c->syms.items[s];
        nd->sym_index = s;
        nd->var = ms->var;
        if (ms->var >= 0) {
            const solve_var *v = &c->p->vars[ms->var];
            nd->par = false;
            nd->lo = INT64_MAX, nd->hi = INT64_MIN;
            for (int i = 0; i < v->ndomain; i++)
                nd->lo = LM_MIN(nd->lo, v->domain[i]), nd->hi = LM_MAX(nd->hi, v->domain[i]);
            if (v->ndomain == 0)
                nd->lo = nd->hi = 0;
            nd->lo = clamp128(nd->lo), nd->hi = clamp128(nd->hi);
        } else {
            nd->lo = nd->hi = clamp128(ms->value);
        }
        return id;
    }
    int tmp[64];
    int *args = e->nargs <= 64 ? tmp : LM_NEWN(&c->ar, int, e->nargs);
    for (int i = 0; i < e->nargs; i++)
        args[i] = build(c, e->args[i]);
    if (c->failed)
        return 0;
    if (e->kind == SYM_MUL && e->nargs > 2) {
        /* left-deep binary products: each prefix is an intermediate MiniZinc makes */
        int acc = args[0];
        for (int i = 1; i < e->nargs; i++) {
            int two[2] = {acc, args[i]};
            acc = new_node(c, SYM_MUL, i == e->nargs - 1 ? e : NULL, two, 2);
        }
        return acc;
    }
    if (e->kind == SYM_MUL && e->nargs == 1)
        return args[0];
    return new_node(c, e->kind, e, args, e->nargs);
}

/* ---- reachability and the clipping proofs ---------------------------------- */

static void mark_reach(mctx *c, bool *r, int id)
{
    if (r[id])
        return;
    r[id] = true;
    for (int i = 0; i < c->n.items[id].nargs; i++)
        mark_reach(c, r, c->n.items[id].args[i]);
}

/* A lower bound on parent P given that its operand at position `pos` is at
 * least t; NOBOUND when none follows. */
static int64_t transfer(mctx *c, const mnode *P, int pos, int64_t t)
{
    switch (P->kind) {
    case SYM_ADD: {
        i128 s = t;
        for (int i = 0; i < P->nargs; i++) {
            if (i == pos)
                continue;
            int64_t lo = c->n.items[P->args[i]].lo;
            if (lo <= -INF)
                return NOBOUND;
            s += lo;
        }
        return clamp128(s);
    }
    case SYM_MUL: {
        int64_t lo = c->n.items[P->args[1 - pos]].lo;
        if (t < 0 || lo < 0)
            return NOBOUND;
        return clamp128((i128)t * lo);
    }
    case SYM_MAX:
        return t;
    case SYM_MIN: {
        int64_t m = t;
        for (int i = 0; i < P->nargs; i++)
            if (i != pos)
                m = LM_MIN(m, c->n.items[P->args[i]].lo);
        return m <= -INF ? NOBOUND : m;
    }
    case SYM_FLOORDIV:
    case SYM_CDIV: {
        const mnode *d = &c->n.items[P->args[1]];
        if (pos != 0 || d->lo < 1 || is_inf(d->hi))
            return NOBOUND;
        int64_t by = t >= 0 ? d->hi : d->lo;
        return (int64_t)(P->kind == SYM_FLOORDIV ? lm_fdiv128(t, by) : cdiv128(t, by));
    }
    default:
        return NOBOUND;
    }
}

/* The best lower bound on root r's node given that node id is at least t. */
static int64_t up(mctx *c, int r, int id, int64_t t)
{
    int root = c->roots.items[r].node;
    if (id == root)
        return t;
    if (--c->budget < 0)
        return NOBOUND;
    int64_t best = NOBOUND;
    const mnode *nd = &c->n.items[id];
    for (int i = 0; i < nd->nparents; i++) {
        int pid = nd->parents[i];
        const mnode *P = &c->n.items[pid];
        if (!c->reach[r][pid])
            continue;
        for (int pos = 0; pos < P->nargs; pos++) {
            if (P->args[pos] != id)
                continue;
            int64_t tp = transfer(c, P, pos, t);
            if (tp == NOBOUND)
                continue;
            int64_t v = up(c, r, pid, tp);
            if (v != NOBOUND && (best == NOBOUND || v > best))
                best = v;
        }
    }
    return best;
}

static void add_parent(mctx *c, int child, int parent)
{
    mnode *nd = &c->n.items[child];
    for (int i = 0; i < nd->nparents; i++)
        if (nd->parents[i] == parent)
            return;
    int *np = LM_NEWN(&c->ar, int, nd->nparents + 1);
    if (nd->nparents)
        memcpy(np, nd->parents, sizeof(int) * (size_t)nd->nparents);
    np[nd->nparents++] = parent;
    nd->parents = np;
}

static int64_t eval_node(mctx *c, int id, const int64_t *vals, int64_t *memo, bool *have, bool *ok)
{
    if (have[id])
        return memo[id];
    const mnode *nd = &c->n.items[id];
    i128 v = 0;
    i128 a = nd->nargs > 0 ? eval_node(c, nd->args[0], vals, memo, have, ok) : 0;
    i128 d = nd->nargs > 1 ? eval_node(c, nd->args[1], vals, memo, have, ok) : 0;
    switch (nd->kind) {
    case SYM_CONST:
        v = nd->sym->value;
        break;
    case SYM_VAR:
        v = nd->var >= 0 ? vals[nd->var] : c->syms.items[nd->sym_index].value;
        break;
    case SYM_ADD:
        for (int i = 0; i < nd->nargs; i++)
            v += eval_node(c, nd->args[i], vals, memo, have, ok);
        break;
    case SYM_MUL:
        v = a * d;
        break;
    case SYM_MIN:
    case SYM_MAX:
        v = a;
        for (int i = 1; i < nd->nargs; i++) {
            i128 o = eval_node(c, nd->args[i], vals, memo, have, ok);
            v = nd->kind == SYM_MIN ? (o < v ? o : v) : (o > v ? o : v);
        }
        break;
    default:
        if (d == 0) {
            *ok = false;
            break;
        }
        v = nd->kind == SYM_FLOORDIV ? lm_fdiv128(a, d) : nd->kind == SYM_CDIV ? cdiv128(a, d) : pymod128(a, d);
    }
    memo[id] = clamp128(v);
    have[id] = true;
    return memo[id];
}

/* Interval arithmetic forgets that operands share variables
 * (cdiv(1024, BM) * cdiv(BM, 32) is at most 32, not 512), so a node whose
 * interval leaves the solver's range but that depends on few assignments
 * gets its exact range by evaluating them all. With more assignments than
 * that, the correlation usually sits in some of the variables
 * (cdiv(BN, 32) * cdiv(2048, BN), with the grid elsewhere below): the node's
 * range is then the union, over the assignments of all its variables but one
 * or two "free" ones, of its interval recomputed over its subexpression with
 * the free variables at their whole domains - sound for any choice of free
 * variables. Choices are tried (each within TIGHTEN_MAX assignments) until
 * the node fits the solver's integers; TIGHTEN_WORK caps the node intervals
 * recomputed so per problem, so that large problems stay cheap. */
enum { TIGHTEN_MAX = 6000, TIGHTEN_WORK = 4000000 };

/* Node i's interval over the assignments of its variables vs[0..nvs) whose
 * isfree[] is false, the free ones at their whole domains: the union over
 * those assignments of the intervals recomputed over its subexpression
 * (sub[0..nsub), operands first), each operand's within its interval over
 * all assignments (slo/shi, by node). Node intervals are restored after. */
static void tighten_box(mctx *c, int i, const int *sub, int nsub, const int64_t *slo, const int64_t *shi,
                        const int *vs, int nvs, const bool *isfree, int64_t *lo, int64_t *hi)
{
    const solve_problem *p = c->p;
    int idx[64] = {0};
    int64_t vals[64] = {0}; /* by position in vs */
    int64_t blo = INT64_MAX, bhi = INT64_MIN;
    for (bool more = true; more;) {
        for (int v = 0; v < nvs; v++)
            vals[v] = p->vars[vs[v]].domain[idx[v]];
        for (int s = 0; s < nsub; s++) {
            mnode *q = &c->n.items[sub[s]];
            if (q->kind == SYM_VAR && q->var >= 0) {
                for (int v = 0; v < nvs; v++)
                    if (vs[v] == q->var && !isfree[v])
                        q->lo = q->hi = vals[v];
                continue;
            }
            if (!q->nargs)
                continue;
            interval(c, q);
            /* where the two overlap; apart, no assignment of the box defines
             * the node and the recomputed interval will do */
            if (LM_MAX(q->lo, slo[sub[s]]) <= LM_MIN(q->hi, shi[sub[s]]))
                q->lo = LM_MAX(q->lo, slo[sub[s]]), q->hi = LM_MIN(q->hi, shi[sub[s]]);
        }
        const mnode *nd = &c->n.items[i];
        blo = LM_MIN(blo, nd->lo), bhi = LM_MAX(bhi, nd->hi);
        more = false;
        for (int v = 0; v < nvs; v++) { /* next assignment of the fixed ones */
            if (isfree[v])
                continue;
            if (++idx[v] < p->vars[vs[v]].ndomain) {
                more = true;
                break;
            }
            idx[v] = 0;
        }
    }
    for (int s = 0; s < nsub; s++)
        c->n.items[sub[s]].lo = slo[sub[s]], c->n.items[sub[s]].hi = shi[sub[s]];
    *lo = blo, *hi = bhi;
}

/* Node i (interval beyond the clip, more than TIGHTEN_MAX assignments of its
 * variables vs): its interval tightened by boxes with one, then two free
 * variables, as far as *work (node intervals left to recompute) allows. */
static void tighten_partial(mctx *c, int i, const bool *subm, const int *vs, int nvs, int64_t *work)
{
    const solve_problem *p = c->p;
    mnode *nd = &c->n.items[i];
    size_t nn = c->n.len;
    int nsub = 0;
    int *sub = lm_xcalloc((size_t)i + 1, sizeof *sub);
    int64_t *slo = lm_xcalloc(nn + 1, sizeof *slo), *shi = lm_xcalloc(nn + 1, sizeof *shi);
    for (int q = 0; q <= i; q++)
        if (subm[q]) {
            sub[nsub++] = q;
            slo[q] = c->n.items[q].lo, shi[q] = c->n.items[q].hi;
        }
    bool isfree[64] = {false};
    /* free variables a and b (b < 0: a alone) */
    for (int nfree = 1; nfree <= 2 && nfree < nvs; nfree++)
        for (int a = 0; a < nvs; a++)
            for (int b = nfree == 1 ? -1 : a + 1; b < (nfree == 1 ? 0 : nvs); b++) {
                if (nd->lo >= -c->clip && nd->hi <= c->clip)
                    goto done;
                int64_t combos = 1; /* assignments of the fixed ones, saturating */
                for (int v = 0; v < nvs && combos <= TIGHTEN_MAX; v++)
                    if (v != a && v != b)
                        combos *= p->vars[vs[v]].ndomain;
                if (combos > TIGHTEN_MAX || combos * nsub > *work)
                    continue;
                *work -= combos * nsub;
                isfree[a] = true;
                if (b >= 0)
                    isfree[b] = true;
                int64_t lo, hi;
                tighten_box(c, i, sub, nsub, slo, shi, vs, nvs, isfree, &lo, &hi);
                isfree[a] = false;
                if (b >= 0)
                    isfree[b] = false;
                if (lo <= hi)
                    nd->lo = LM_MAX(nd->lo, lo), nd->hi = LM_MIN(nd->hi, hi);
                slo[i] = nd->lo, shi[i] = nd->hi;
            }
done:
    free(sub);
    free(slo);
    free(shi);
}

static void tighten(mctx *c)
{
    const solve_problem *p = c->p;
    size_t nn = c->n.len;
    if (p->nvars > 64)
        return;
    uint64_t *mask = lm_xcalloc(nn + 1, sizeof *mask);
    int64_t *memo = lm_xcalloc(nn + 1, sizeof *memo);
    bool *have = lm_xcalloc(nn + 1, sizeof *have);
    bool *sub = lm_xcalloc(nn + 1, sizeof *sub);
    int64_t *vals = lm_xcalloc((size_t)p->nvars + 1, sizeof *vals);
    int *idx = lm_xcalloc((size_t)p->nvars + 1, sizeof *idx);
    int64_t work = TIGHTEN_WORK;
    for (int j = 0; j < p->nvars; j++)
        vals[j] = p->vars[j].ndomain ? p->vars[j].domain[0] : 0;
    for (size_t i = 0; i < nn; i++) {
        mnode *nd = &c->n.items[i];
        if (nd->kind == SYM_VAR && nd->var >= 0)
            mask[i] = (uint64_t)1 << nd->var;
        for (int k = 0; k < nd->nargs; k++)
            mask[i] |= mask[nd->args[k]];
        if (nd->nargs)
            interval(c, nd); /* again, over operands tightened before */
        if (nd->par || (nd->lo >= -c->clip && nd->hi <= c->clip))
            continue;
        int64_t combos = 1; /* saturating past TIGHTEN_MAX */
        int vs[64], nvs = 0;
        for (int j = 0; j < p->nvars; j++)
            if (mask[i] >> j & 1) {
                if (combos <= TIGHTEN_MAX || p->vars[j].ndomain == 0)
                    combos *= p->vars[j].ndomain;
                vs[nvs++] = j;
            }
        if (combos == 0)
            continue;
        memset(sub, 0, nn);
        mark_reach(c, sub, (int)i);
        if (combos > TIGHTEN_MAX) {
            tighten_partial(c, (int)i, sub, vs, nvs, &work);
            continue;
        }
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        memset(idx, 0, sizeof(int) * (size_t)(p->nvars + 1));
        for (int64_t t = 0; t < combos; t++) {
            for (int v = 0; v < nvs; v++)
                vals[vs[v]] = p->vars[vs[v]].domain[idx[vs[v]]];
            for (size_t q = 0; q <= i; q++)
                if (sub[q])
                    have[q] = false;
            bool ok = true;
            int64_t v = eval_node(c, (int)i, vals, memo, have, &ok);
            if (ok)
                lo = LM_MIN(lo, v), hi = LM_MAX(hi, v);
            for (int v2 = 0; v2 < nvs; v2++) { /* next assignment */
                if (++idx[vs[v2]] < p->vars[vs[v2]].ndomain)
                    break;
                idx[vs[v2]] = 0;
            }
        }
        if (lo <= hi && !is_inf(lo) && !is_inf(hi))
            nd->lo = LM_MAX(nd->lo, lo), nd->hi = LM_MIN(nd->hi, hi);
    }
    free(mask);
    free(memo);
    free(have);
    free(sub);
    free(vals);
    free(idx);
}

/* Tabulation. Gecode propagates nested max/cdiv/products only through
 * bounds, which is weak; a subexpression that depends on few variables is
 * instead stated as a table over their domain positions (an element or table
 * constraint, which Gecode propagates exactly). The table's entries are
 * computed by MiniZinc from the expression itself, written with the par
 * versions of loomc's operators - loomc contributes only which variables
 * index the table, never a value. A node is tabulated when it is non-linear,
 * fits the solver's range, has at most TABLE_MAX assignments of its
 * variables and no divisor below it that may be 0 (MiniZinc would reject the
 * model while evaluating the table). */
enum { TABLE_MAX = 4096 };

static void plan_tables(mctx *c)
{
    const solve_problem *p = c->p;
    if (!c->tables || p->nvars > 64)
        return;
    size_t nn = c->n.len;
    bool *nonlin = lm_xcalloc(nn + 1, sizeof *nonlin);
    for (size_t i = 0; i < nn; i++) {
        mnode *nd = &c->n.items[i];
        nd->mask = 0;
        nd->tab_safe = !is_inf(nd->lo) && !is_inf(nd->hi);
        if (nd->kind == SYM_VAR && nd->var >= 0)
            nd->mask = (uint64_t)1 << nd->var;
        int nvar_args = 0;
        for (int k = 0; k < nd->nargs; k++) {
            const mnode *a = &c->n.items[nd->args[k]];
            nd->mask |= a->mask;
            nd->tab_safe = nd->tab_safe && a->tab_safe;
            nonlin[i] = nonlin[i] || nonlin[nd->args[k]];
            nvar_args += !a->par;
        }
        if (nd->kind == SYM_FLOORDIV || nd->kind == SYM_CDIV || nd->kind == SYM_MOD) {
            const mnode *d = &c->n.items[nd->args[1]];
            if (d->lo <= 0 && d->hi >= 0)
                nd->tab_safe = false;
        }
        if (nd->par)
            continue;
        if (nd->kind == SYM_FLOORDIV || nd->kind == SYM_CDIV || nd->kind == SYM_MOD || nd->kind == SYM_MIN ||
            nd->kind == SYM_MAX || (nd->kind == SYM_MUL && nvar_args > 1))
            nonlin[i] = true;
        if (!nonlin[i] || !nd->tab_safe || nd->hoist || nd->lo < -c->clip || nd->hi > c->clip)
            continue;
        int64_t combos = 1;
        for (int j = 0; j < p->nvars && combos <= TABLE_MAX; j++)
            if (nd->mask >> j & 1)
                combos *= p->vars[j].ndomain;
        if (combos >= 1 && combos <= TABLE_MAX)
            nd->tab = c->ntab++;
    }
    free(nonlin);
}

/* Decide which nodes are declared with explicit domains, and prove each
 * clipping. Runs once all roots are built. */
static void analyse(mctx *c)
{
    tighten(c);
    size_t nn = c->n.len, nr = c->roots.len;
    c->reach = LM_NEWN(&c->ar, bool *, nr ? nr : 1);
    for (size_t r = 0; r < nr; r++) {
        c->reach[r] = LM_NEWN(&c->ar, bool, nn);
        mark_reach(c, c->reach[r], c->roots.items[r].node);
    }
    for (size_t i = 0; i < nn; i++)
        for (int k = 0; k < c->n.items[i].nargs; k++)
            add_parent(c, c->n.items[i].args[k], (int)i);
    for (size_t r = 0; r < nr; r++) {
        const mroot *rt = &c->roots.items[r];
        for (size_t i = 0; i < nn; i++) {
            if (!c->reach[r][i])
                continue;
            if (rt->kind == ROOT_CONS)
                c->n.items[i].in_cons = true;
            else if (rt->kind == ROOT_KEY) {
                int k = -1;
                for (int j = 0; j < c->nkeys; j++)
                    if (c->key_root[j] == (int)r)
                        k = j;
                if (k < c->n.items[i].first_key)
                    c->n.items[i].first_key = k;
            }
        }
    }
    for (int k = 1; k < c->nkeys; k++) {
        const mnode *nd = &c->n.items[c->roots.items[c->key_root[k]].node];
        if (nd->lo < -c->clip || nd->hi > c->clip)
            c->key_inexact[k] = true;
    }
    for (size_t i = 0; i < nn && !c->failed; i++) {
        mnode *nd = &c->n.items[i];
        /* a constant that a variable expression uses ends up in the solver's input */
        if (!nd->par) {
            for (int k = 0; k < nd->nargs; k++) {
                const mnode *a = &c->n.items[nd->args[k]];
                if (a->par && (a->lo < -c->lim || a->hi > c->lim))
                    fail(c, "the value of %s does not fit the solver's integers (+-%lld)", expr_text(c, a->sym),
                         (long long)c->lim);
            }
        }
        if (nd->par || nd->kind == SYM_VAR)
            continue;
        nd->big = nd->lo < -c->clip || nd->hi > c->clip;
        if (!nd->big)
            continue;
        /* an oversized sum that is only a constraint's left side stays a
         * linear constraint: no intermediate, nothing to clip */
        bool only_cons_root = nd->kind == SYM_ADD && nd->nparents == 0;
        for (size_t r = 0; r < nr && only_cons_root; r++)
            if (c->roots.items[r].node == (int)i && c->roots.items[r].kind != ROOT_CONS)
                only_cons_root = false;
        if (only_cons_root) {
            for (int k = 0; k < nd->nargs; k++)
                if (c->n.items[nd->args[k]].big && !c->n.items[nd->args[k]].hoist)
                    only_cons_root = false;
            if (only_cons_root) {
                nd->big = false;
                continue;
            }
        }
        /* a tie-break's own oversized subexpressions are not bounded: from that
         * tie-break on, loomc ranks the tied assignments itself */
        if (!nd->in_cons && nd->first_key >= 1 && nd->first_key < c->nkeys) {
            bool has_eval = false;
            for (size_t r = 0; r < nr; r++)
                has_eval = has_eval || (c->roots.items[r].kind == ROOT_EVAL && c->reach[r][i]);
            if (!has_eval) {
                c->key_inexact[nd->first_key] = true;
                continue;
            }
        }
        if (nd->lo < -c->clip) {
            fail(c, "%s can reach %lld, below the solver's integers (-%lld); it cannot be bounded exactly",
                 nd->sym ? expr_text(c, nd->sym) : "a product", (long long)nd->lo, (long long)c->clip);
            return;
        }
        nd->hoist = true;
        nd->hid = c->nhoist++;
        nd->dlo = nd->lo;
        nd->dhi = c->clip;
        for (size_t r = 0; r < nr && !nd->cons_proof; r++) {
            if (c->roots.items[r].kind != ROOT_CONS || !c->reach[r][i])
                continue;
            c->budget = 200000;
            int64_t v = up(c, (int)r, (int)i, c->clip + 1);
            if (v != NOBOUND && v >= 1)
                nd->cons_proof = true;
        }
        if (nd->cons_proof)
            continue;
        /* the first key that can see it decides, and the node is in every
         * model from that key's stage on (from the first if a constraint uses it) */
        int k = nd->in_cons ? 0 : nd->first_key;
        bool has_eval = false;
        for (size_t r = 0; r < nr; r++)
            if (c->roots.items[r].kind == ROOT_EVAL && c->reach[r][i])
                has_eval = true;
        if (has_eval) {
            fail(c, "%s does not fit the solver's integers", nd->sym ? expr_text(c, nd->sym) : "a product");
            return;
        }
        int64_t th = NOBOUND;
        if (k < c->nkeys && c->reach[c->key_root[k]][i]) {
            c->budget = 200000;
            th = up(c, c->key_root[k], (int)i, c->clip + 1);
        }
        if (th == NOBOUND) {
            fail(c,
                 "%s can reach %lld, beyond the solver's integers (%lld), and no bound on it is provably "
                 "harmless",
                 nd->sym ? expr_text(c, nd->sym) : "a product", (long long)nd->hi, (long long)c->clip);
            return;
        }
        nd->cert_key = k;
        nd->thresh = th;
    }
    if (!c->failed)
        plan_tables(c);
}

/* ---- context setup ------------------------------------------------------------ */

void mzn_ctx_init(mctx *c, const solve_problem *p, int64_t lim, lm_buf *why)
{
    memset(c, 0, sizeof *c);
    lm_arena_init(&c->ar);
    c->p = p;
    c->env_fixed = p->fixed;
    c->lim = lim > 0 ? lim : MZN_GECODE_INT_MAX;
    if (c->lim >= INF / 4)
        c->lim = INF / 4;
    c->clip = c->lim > ((int64_t)1 << 22) ? c->lim - ((int64_t)1 << 20) : c->lim / 2;
    c->why = why;
    c->tables = true;
    for (int j = 0; j < p->nvars; j++)
        sym_slot(c, p->vars[j].var, true);
}

void mzn_ctx_free(mctx *c)
{
    LM_VEC_FREE(&c->n);
    LM_VEC_FREE(&c->syms);
    LM_VEC_FREE(&c->roots);
    lm_arena_free(&c->ar);
}

static void add_root(mctx *c, root_kind k, const sym_expr *e, const char *name)
{
    if (c->failed)
        return;
    mroot r = {k, build(c, e), name, e};
    if (k == ROOT_KEY)
        c->key_root[c->nkeys++] = (int)c->roots.len;
    LM_PUSH(&c->roots, r);
}

bool mzn_ctx_build(mctx *c, bool keys_all)
{
    const solve_problem *p = c->p;
    for (int j = 0; j < p->nvars && !c->failed; j++) {
        const solve_var *v = &p->vars[j];
        for (int i = 0; i < v->ndomain; i++)
            if (v->domain[i] < -c->lim || v->domain[i] > c->lim)
                fail(c, "variable %s: domain value %lld does not fit the solver's integers", v->var->name,
                     (long long)v->domain[i]);
    }
    for (int i = 0; i < p->ncons; i++)
        add_root(c, ROOT_CONS, p->cons[i].expr, p->cons[i].name);
    if (p->objective)
        add_root(c, ROOT_KEY, p->objective, "loomc_objective");
    if (keys_all)
        for (int i = 0; i < p->ntiebreak; i++)
            add_root(c, ROOT_KEY, p->tiebreak[i], lm_arena_printf(&c->ar, "loomc_tiebreak_%d", i + 1));
    if (!c->failed)
        analyse(c);
    return !c->failed;
}

/* ---- printing -------------------------------------------------------------------- */

void mzn_put_int(lm_buf *b, int64_t v)
{
    if (v < 0)
        lm_buf_printf(b, "(%lld)", (long long)v);
    else
        lm_buf_printf(b, "%lld", (long long)v);
}

/* Print node id as a MiniZinc expression. A hoisted or tabulated node is
 * referred to by its name unless it is the one being defined (top). With
 * inl (a table's entry), everything is written out and each problem variable
 * X is its domain value at the generator's position, loomc_dom_X[loomc_iJ]. */
static void print_expr(mctx *c, lm_buf *b, int id, bool top, bool inl)
{
    const mnode *nd = &c->n.items[id];
    if (!inl && !top && nd->hoist) {
        lm_buf_printf(b, "loomc_h%d", nd->hid);
        return;
    }
    if (!top && nd->tab >= 0) {
        if (!inl) {
            lm_buf_printf(b, "loomc_t%d", nd->tab);
            return;
        }
        /* inside another table (whose variables include this one's): this
         * table's entry at the same positions, row-major */
        int64_t stride = 1;
        lm_buf_printf(b, "loomc_v%d[", nd->tab);
        for (int j = c->p->nvars - 1; j >= 0; j--)
            if (nd->mask >> j & 1) {
                lm_buf_printf(b, "(loomc_i%d - 1) * %lld + ", j, (long long)stride);
                stride *= c->p->vars[j].ndomain;
            }
        lm_buf_puts(b, "1]");
        return;
    }
    switch (nd->kind) {
    case SYM_CONST:
        mzn_put_int(b, nd->sym->value);
        return;
    case SYM_VAR:
        if (inl && nd->var >= 0)
            lm_buf_printf(b, "loomc_dom_%s[loomc_i%d]", c->syms.items[nd->sym_index].name, nd->var);
        else
            lm_buf_puts(b, c->syms.items[nd->sym_index].name);
        return;
    case SYM_ADD:
    case SYM_MUL:
        lm_buf_putc(b, '(');
        for (int i = 0; i < nd->nargs; i++) {
            if (i)
                lm_buf_puts(b, nd->kind == SYM_ADD ? " + " : " * ");
            print_expr(c, b, nd->args[i], false, inl);
        }
        lm_buf_putc(b, ')');
        return;
    case SYM_MIN:
    case SYM_MAX:
        lm_buf_puts(b, nd->kind == SYM_MIN ? "min(" : "max(");
        if (nd->nargs > 2)
            lm_buf_putc(b, '[');
        for (int i = 0; i < nd->nargs; i++) {
            if (i)
                lm_buf_puts(b, ", ");
            print_expr(c, b, nd->args[i], false, inl);
        }
        if (nd->nargs > 2)
            lm_buf_putc(b, ']');
        lm_buf_putc(b, ')');
        return;
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD:
        lm_buf_puts(b, nd->kind == SYM_FLOORDIV ? "loomc_floordiv(" : nd->kind == SYM_CDIV ? "loomc_cdiv(" : "loomc_mod(");
        print_expr(c, b, nd->args[0], false, inl);
        lm_buf_puts(b, ", ");
        print_expr(c, b, nd->args[1], false, inl);
        lm_buf_putc(b, ')');
        return;
    }
}

static void print_node(mctx *c, lm_buf *b, int id, bool top) { print_expr(c, b, id, top, false); }

/* Check the intermediates the division functions create (b*q) against the
 * solver's range, using the declared (possibly clipped) operand ranges. */
void mzn_check_division_temps(mctx *c)
{
    for (size_t i = 0; i < c->n.len && !c->failed; i++) {
        const mnode *nd = &c->n.items[i];
        if (nd->par || (nd->kind != SYM_FLOORDIV && nd->kind != SYM_CDIV && nd->kind != SYM_MOD))
            continue;
        const mnode *a = &c->n.items[nd->args[0]], *d = &c->n.items[nd->args[1]];
        int64_t alo = a->lo, ahi = a->hoist ? LM_MIN(a->hi, a->dhi) : a->hi;
        if (nd->kind == SYM_CDIV) { /* -floordiv(-a, d) */
            int64_t t = alo;
            alo = -ahi, ahi = -t;
        }
        i128 lo, hi; /* range of d*q = a - r */
        if (d->lo > 0)
            lo = (i128)alo - (d->hi - 1), hi = ahi;
        else if (d->hi < 0)
            lo = alo, hi = (i128)ahi + (-d->lo - 1);
        else {
            int64_t m = LM_MAX(-d->lo, d->hi) - 1;
            lo = (i128)alo - m, hi = (i128)ahi + m;
        }
        if (lo < -c->lim || hi > c->lim)
            fail(c, "the division in %s needs intermediates beyond the solver's integers",
                 nd->sym ? expr_text(c, nd->sym) : "an expression");
    }
}

static const char *functions_text =
    "include \"table_int.mzn\";\n\n"
    "% Floor division, Python's mod and ceiling division for any signs, as loomc\n"
    "% defines them (MiniZinc's div truncates toward zero). A zero divisor makes the\n"
    "% assignment infeasible (loomc reports an evaluation error there).\n"
    "function int: loomc_floordiv(int: a, int: b) =\n"
    "    let { int: q = a div b } in if a mod b != 0 /\\ ((a mod b < 0) != (b < 0)) then q - 1 else q endif;\n"
    "function int: loomc_mod(int: a, int: b) = a - b * loomc_floordiv(a, b);\n"
    "function int: loomc_cdiv(int: a, int: b) = -loomc_floordiv(-a, b);\n"
    "predicate loomc_divmod(var int: a, var int: b, var int: q, var int: r) =\n"
    "    b != 0 /\\ a = b * q + r /\\ (b > 0 -> (r >= 0 /\\ r < b)) /\\ (b < 0 -> (r <= 0 /\\ r > b));\n"
    "function var int: loomc_floordiv(var int: a, var int: b) =\n"
    "    let { var int: q; var int: r; constraint loomc_divmod(a, b, q, r) } in q;\n"
    "function var int: loomc_mod(var int: a, var int: b) =\n"
    "    let { var int: q; var int: r; constraint loomc_divmod(a, b, q, r) } in r;\n"
    "function var int: loomc_cdiv(var int: a, var int: b) = -loomc_floordiv(-a, b);\n";

static void comment_lines(lm_buf *b, const char *text)
{
    const char *s = text;
    while (*s) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        lm_buf_puts(b, "% ");
        for (size_t i = 0; i < n; i++)
            lm_buf_putc(b, s[i]);
        lm_buf_putc(b, '\n');
        s += n;
        if (*s == '\n')
            s++;
    }
}

/* Is node i in the model of a stage whose keys are 0..kmax? */
bool mzn_node_in_stage(mctx *c, int i, int kmax)
{
    for (size_t r = 0; r < c->roots.len; r++) {
        const mroot *rt = &c->roots.items[r];
        if (!c->reach[r][i])
            continue;
        if (rt->kind != ROOT_KEY)
            return true;
        for (int k = 0; k <= kmax && k < c->nkeys; k++)
            if (c->key_root[k] == (int)r)
                return true;
    }
    return false;
}

/* Mark the tables that the printed form of node id refers to: as variables
 * (bit 1) from the model's expressions, as value arrays (bit 2) from the
 * entries of other tables. */
static void mark_tables(mctx *c, uint8_t *used, bool *seen, int id, bool top, bool inl)
{
    const mnode *nd = &c->n.items[id];
    if (!inl && !top && nd->hoist)
        return; /* printed on its own */
    if (!top && nd->tab >= 0) {
        uint8_t bit = inl ? 2 : 1;
        if (!(used[nd->tab] & bit)) {
            used[nd->tab] |= bit;
            if (!(used[nd->tab] & (3 ^ bit)))
                mark_tables(c, used, seen, id, true, true); /* its entries, once */
        }
        return;
    }
    if (seen[2 * id + inl])
        return;
    seen[2 * id + inl] = true;
    for (int k = 0; k < nd->nargs; k++)
        mark_tables(c, used, seen, nd->args[k], false, inl);
}

/* The tables the model of a stage with keys 0..kmax uses: each one's entries
 * in row-major order of its variables' positions (computed by MiniZinc), and
 * an element (one variable) or table constraint tying it to the positions. */
static void write_tables(mctx *c, lm_buf *b, int kmax)
{
    const solve_problem *p = c->p;
    if (!c->ntab)
        return;
    size_t nn = c->n.len;
    uint8_t *used = lm_xcalloc((size_t)c->ntab, sizeof *used);
    bool *seen = lm_xcalloc(2 * nn + 2, sizeof *seen);
    for (size_t i = 0; i < nn; i++)
        if (c->n.items[i].hoist && mzn_node_in_stage(c, (int)i, kmax))
            mark_tables(c, used, seen, (int)i, true, false);
    for (size_t r = 0; r < c->roots.len; r++) {
        const mroot *rt = &c->roots.items[r];
        bool key_here = false;
        for (int k = 0; k <= kmax && k < c->nkeys; k++)
            key_here = key_here || c->key_root[k] == (int)r;
        if (rt->kind == ROOT_CONS || rt->kind == ROOT_EVAL || key_here)
            mark_tables(c, used, seen, rt->node, false, false);
    }
    bool any = false;
    for (size_t i = 0; i < nn; i++) {
        const mnode *nd = &c->n.items[i];
        if (nd->tab < 0 || !used[nd->tab])
            continue;
        if (!any)
            lm_buf_puts(b, "\n% Subexpressions of few variables as tables over their domain positions\n"
                           "% (the entries are the expression itself, evaluated by MiniZinc)\n");
        any = true;
        int vs[64], nv = 0;
        int64_t rows = 1;
        for (int j = 0; j < p->nvars; j++)
            if (nd->mask >> j & 1) {
                vs[nv++] = j;
                rows *= p->vars[j].ndomain;
            }
        if (nd->sym)
            lm_buf_printf(b, "%% %s\n", expr_text(c, nd->sym));
        lm_buf_printf(b, "array[1..%lld] of int: loomc_v%d = [", (long long)rows, nd->tab);
        print_expr(c, b, (int)i, true, true);
        for (int v = 0; v < nv; v++)
            lm_buf_printf(b, "%s loomc_i%d in 1..%d", v ? "," : " |", vs[v], p->vars[vs[v]].ndomain);
        lm_buf_puts(b, "];\n");
        if (!(used[nd->tab] & 1))
            continue; /* only other tables read it */
        if (nv == 1) {
            lm_buf_printf(b, "var min(loomc_v%d)..max(loomc_v%d): loomc_t%d = loomc_v%d[loomc_pos_%s];\n", nd->tab,
                          nd->tab, nd->tab, nd->tab, c->syms.items[vs[0]].name);
            continue;
        }
        /* column v of row r is the position of variable vs[v]: digit v of r - 1 */
        lm_buf_printf(b, "array[1..%lld, 1..%d] of int: loomc_tab%d = array2d(1..%lld, 1..%d, [if loomc_j <= %d then "
                         "(loomc_r - 1) div [", (long long)rows, nv + 1, nd->tab, (long long)rows, nv + 1, nv);
        int64_t stride = rows;
        for (int v = 0; v < nv; v++) {
            stride /= p->vars[vs[v]].ndomain;
            lm_buf_printf(b, "%s%lld", v ? ", " : "", (long long)stride);
        }
        lm_buf_puts(b, ", 1][loomc_j] mod [");
        for (int v = 0; v < nv; v++)
            lm_buf_printf(b, "%s%d", v ? ", " : "", p->vars[vs[v]].ndomain);
        lm_buf_printf(b, ", 1][loomc_j] + 1 else loomc_v%d[loomc_r] endif | loomc_r in 1..%lld, loomc_j in 1..%d]);\n",
                      nd->tab, (long long)rows, nv + 1);
        lm_buf_printf(b, "var min(loomc_v%d)..max(loomc_v%d): loomc_t%d;\n", nd->tab, nd->tab, nd->tab);
        lm_buf_puts(b, "constraint table_int([");
        for (int v = 0; v < nv; v++)
            lm_buf_printf(b, "loomc_pos_%s, ", c->syms.items[vs[v]].name);
        lm_buf_printf(b, "loomc_t%d], loomc_tab%d);\n", nd->tab, nd->tab);
    }
    free(used);
    free(seen);
}

/* Domain position variables, fixed symbols, variables, hoisted nodes, constraints, and the
 * keys 0..kmax. */
void mzn_write_body(mctx *c, lm_buf *b, lm_buf *dzn, int kmax)
{
    const solve_problem *p = c->p;
    lm_buf_puts(b, functions_text);
    bool any_fixed = false;
    for (size_t i = 0; i < c->syms.len; i++) {
        const msym *s = &c->syms.items[i];
        if (s->var >= 0)
            continue;
        if (!any_fixed)
            lm_buf_puts(b, "\n% Fixed symbols\n");
        any_fixed = true;
        if (dzn) {
            lm_buf_printf(b, "int: %s;\n", s->name);
            lm_buf_printf(dzn, "%s = %lld;\n", s->name, (long long)s->value);
        } else {
            lm_buf_printf(b, "int: %s = %lld;\n", s->name, (long long)s->value);
        }
    }
    if (p->nvars)
        lm_buf_puts(b, "\n% Variables, each with its domain in loomc's order; loomc_pos_X is the\n"
                       "% position of X's value in that order (loomc's last tie-break).\n");
    for (int j = 0; j < p->nvars; j++) {
        const solve_var *v = &p->vars[j];
        const char *nm = c->syms.items[j].name;
        lm_buf_printf(b, "array[1..%d] of int: loomc_dom_%s = [", v->ndomain, nm);
        for (int i = 0; i < v->ndomain; i++)
            lm_buf_printf(b, "%s%lld", i ? ", " : "", (long long)v->domain[i]);
        lm_buf_puts(b, "];\n");
        lm_buf_printf(b, "var 1..%d: loomc_pos_%s;\n", v->ndomain, nm);
        /* the set lists each value once, in increasing order */
        int64_t *sorted = LM_NEWN(&c->ar, int64_t, v->ndomain + 1);
        int ns = 0;
        for (int i = 0; i < v->ndomain; i++) {
            int k = ns;
            bool dup = false;
            for (int t = 0; t < ns; t++)
                dup = dup || sorted[t] == v->domain[i];
            if (dup)
                continue;
            while (k > 0 && sorted[k - 1] > v->domain[i])
                sorted[k] = sorted[k - 1], k--;
            sorted[k] = v->domain[i];
            ns++;
        }
        lm_buf_puts(b, "var {");
        for (int i = 0; i < ns; i++)
            lm_buf_printf(b, "%s%lld", i ? ", " : "", (long long)sorted[i]);
        lm_buf_printf(b, "}: %s = loomc_dom_%s[loomc_pos_%s];\n", nm, nm, nm);
    }
    write_tables(c, b, kmax);
    bool any_h = false;
    for (size_t i = 0; i < c->n.len; i++) {
        const mnode *nd = &c->n.items[i];
        if (!nd->hoist || !mzn_node_in_stage(c, (int)i, kmax))
            continue;
        if (!any_h)
            lm_buf_puts(b, "\n% Subexpressions that may leave the solver's integers, with explicit bounds\n");
        any_h = true;
        if (nd->sym)
            lm_buf_printf(b, "%% %s\n", expr_text(c, nd->sym));
        if (nd->cons_proof)
            lm_buf_printf(b, "%%   above %lld a constraint is violated: the bound removes only infeasible "
                             "assignments\n", (long long)nd->dhi);
        else
            lm_buf_printf(b, "%%   above %lld, %s >= %lld: the bound is exact while the optimum of %s is below "
                             "that\n", (long long)nd->dhi, c->roots.items[c->key_root[nd->cert_key]].name,
                          (long long)nd->thresh, c->roots.items[c->key_root[nd->cert_key]].name);
        lm_buf_printf(b, "var %lld..%lld: loomc_h%d = ", (long long)nd->dlo, (long long)nd->dhi, nd->hid);
        print_node(c, b, (int)i, true);
        lm_buf_puts(b, ";\n");
    }
    if (p->ncons)
        lm_buf_puts(b, "\n% Legality constraints (feasible iff <= 0)\n");
    for (size_t r = 0; r < c->roots.len; r++) {
        const mroot *rt = &c->roots.items[r];
        if (rt->kind != ROOT_CONS)
            continue;
        lm_buf_printf(b, "%% %s: %s\n", rt->name ? rt->name : "(unnamed)", expr_text(c, rt->expr));
        lm_buf_puts(b, "constraint ");
        print_node(c, b, rt->node, false);
        lm_buf_puts(b, " <= 0;\n");
    }
    for (int k = 0; k <= kmax && k < c->nkeys; k++) {
        const mroot *rt = &c->roots.items[c->key_root[k]];
        const mnode *nd = &c->n.items[rt->node];
        lm_buf_printf(b, "\n%% %s: %s\n", k == 0 ? "Objective (minimised)" : "Tie-break (minimised)",
                      expr_text(c, rt->expr));
        int64_t lo = nd->lo, hi = LM_MIN(nd->hi, c->clip);
        if (nd->hi > c->clip)
            lm_buf_printf(b, "%%   bounded above by %lld: exact while the optimum is below that\n", (long long)hi);
        lm_buf_printf(b, "var %lld..%lld: %s = ", (long long)lo, (long long)hi, rt->name);
        print_node(c, b, rt->node, false);
        lm_buf_puts(b, ";\n");
    }
}

void mzn_key_range(mctx *c, int k, int64_t *lo, int64_t *hi)
{
    const mnode *nd = &c->n.items[c->roots.items[c->key_root[k]].node];
    *lo = nd->lo;
    *hi = LM_MIN(nd->hi, c->clip);
}

/* ---- the exported model ---------------------------------------------------------- */

/* The first key (objective 0, tie-breaks 1..) whose value may leave the
 * solver's integers: the solver orders the keys before it, loomc ranks the
 * assignments tied on them by the rest. */
int mzn_exact_keys(const mctx *c)
{
    int kx = 1;
    while (kx < c->nkeys && !c->key_inexact[kx])
        kx++;
    return c->nkeys ? kx : 0;
}

/* The solve item: minimise the objective by branch and bound, branching on
 * the domain positions in problem order, least first (Gecode's own default
 * order is slower on these models). The answer is the optimum; of the
 * assignments reaching it, the first in that order. */
void mzn_write_solve(mctx *c, lm_buf *b, bool minimize)
{
    const solve_problem *p = c->p;
    lm_buf_puts(b, "\nsolve ");
    if (p->nvars) {
        lm_buf_puts(b, ":: int_search([");
        for (int j = 0; j < p->nvars; j++)
            lm_buf_printf(b, "%sloomc_pos_%s", j ? ", " : "", c->syms.items[j].name);
        lm_buf_puts(b, "], input_order, indomain_min, complete)\n    ");
    }
    lm_buf_puts(b, minimize && c->nkeys ? "minimize loomc_objective;\n" : "satisfy;\n");
}

bool mzn_write_model(lm_buf *b, const solve_problem *p, const char *header_comment, const mzn_options *o,
                     lm_buf *why)
{
    mctx c;
    mzn_ctx_init(&c, p, o ? o->int_max : 0, why);
    if (o && o->no_tables)
        c.tables = false;
    if (!mzn_ctx_build(&c, true))
        goto bad;
    mzn_check_division_temps(&c);
    if (c.failed)
        goto bad;
    if (header_comment && *header_comment)
        comment_lines(b, header_comment);
    lm_buf_puts(b, "%\n% Written by loomc from one solver problem: the same variables, domains,\n"
                   "% constraints, objective and tie-breaks its own solver uses.\n");
    lm_buf_printf(b, "%% Unit: the objective is in loomc's own unit (not scaled).\n");
    int nclip = 0;
    for (size_t i = 0; i < c.n.len; i++)
        nclip += c.n.items[i].hoist && mzn_node_in_stage(&c, (int)i, 0);
    const mnode *obj = c.nkeys ? &c.n.items[c.roots.items[c.key_root[0]].node] : NULL;
    bool obj_clip = obj && obj->hi > c.clip;
    if (!nclip && !obj_clip)
        lm_buf_printf(b, "%% Integer range: every subexpression stays within +-%lld over the domains, so\n"
                         "%% the model is exact for a solver with 32-bit integers such as Gecode.\n",
                      (long long)c.clip);
    else {
        lm_buf_printf(b, "%% Integer range: %d subexpression(s)%s can exceed +-%lld over the domains and\n"
                         "%% have explicit bounds (see below); each bound removes only assignments that\n"
                         "%% violate a constraint or whose objective (or tie-break) is above the bound's\n"
                         "%% threshold.\n",
                      nclip, obj_clip ? " and the objective" : "", (long long)c.clip);
        if (o && o->known) {
            int64_t *memo = lm_xcalloc(c.n.len, sizeof *memo);
            bool *have = lm_xcalloc(c.n.len, sizeof *have);
            bool ok = true, inside = true;
            for (size_t i = 0; i < c.n.len; i++)
                if (c.n.items[i].hoist && mzn_node_in_stage(&c, (int)i, 0) &&
                    eval_node(&c, (int)i, o->known, memo, have, &ok) > c.clip)
                    inside = false;
            if (obj && eval_node(&c, c.roots.items[c.key_root[0]].node, o->known, memo, have, &ok) > c.clip)
                inside = false;
            free(memo);
            free(have);
            lm_buf_printf(b, "%% loomc's own optimum %s inside every bound, so the model's optimum %s loomc's.\n",
                          inside && ok ? "lies" : "does NOT lie", inside && ok ? "equals" : "may differ from");
        }
    }
    if (o && o->known)
        lm_buf_printf(b, "%% loomc's optimum in this model's unit (mzn_objective): %lld\n",
                      (long long)mzn_objective(p, o, o->known_objective));
    if (p->ntiebreak) {
        lm_buf_puts(b, "% Ties on the objective are broken by loomc, in order, by minimising:\n");
        for (int i = 0; i < p->ntiebreak; i++)
            lm_buf_printf(b, "%%   %d. %s\n", i + 1, expr_text(&c, p->tiebreak[i]));
        lm_buf_puts(b, "%   then by the variables' domain positions (loomc_pos_*), first variable first.\n");
    } else {
        lm_buf_puts(b, "% Ties on the objective are broken by the variables' domain positions\n"
                       "% (loomc_pos_*), first variable first.\n");
    }
    lm_buf_puts(b, "% This model finds the optimum; of the assignments that reach it, Gecode\n"
                   "% (which follows the search annotation) returns the first in domain-position\n"
                   "% order. `loomc compile --solver minizinc` then lists every assignment that\n"
                   "% reaches the optimum (constraint loomc_objective = OPT, all solutions) and\n"
                   "% ranks them by the tie-breaks and positions: loomc's own choice.\n");
    bool renamed = false;
    for (size_t i = 0; i < c.syms.len; i++)
        if (strcmp(c.syms.items[i].name, c.syms.items[i].sym->name)) {
            if (!renamed)
                lm_buf_puts(b, "% Names (loomc -> MiniZinc):\n");
            renamed = true;
            lm_buf_printf(b, "%%   %s -> %s\n", c.syms.items[i].sym->name, c.syms.items[i].name);
        }
    lm_buf_puts(b, "%\n");
    mzn_write_body(&c, b, o ? o->dzn : NULL, 0);
    mzn_write_solve(&c, b, true);
    lm_buf_puts(b, "\noutput [");
    for (int j = 0; j < p->nvars; j++)
        lm_buf_printf(b, "\"%s = \\(%s)\\n\", ", c.syms.items[j].name, c.syms.items[j].name);
    lm_buf_puts(b, c.nkeys ? "\"loomc_objective = \\(loomc_objective)\\n\"];\n" : "\"\"];\n");
    mzn_ctx_free(&c);
    return true;
bad:
    mzn_ctx_free(&c);
    return false;
}

int64_t mzn_objective(const solve_problem *p, const mzn_options *o, int64_t loomc_optimum)
{
    (void)p;
    (void)o;
    return loomc_optimum; /* the models keep loomc's unit: bounds, never scaling */
}

const char *mzn_name(const solve_problem *p, const sym_expr *sym, lm_arena *ar)
{
    mctx c;
    mzn_ctx_init(&c, p, 0, NULL);
    mzn_ctx_build(&c, true);
    const char *r = NULL;
    int s = sym_slot(&c, sym, false);
    if (s >= 0 && !c.failed)
        r = lm_arena_strdup(ar, c.syms.items[s].name);
    mzn_ctx_free(&c);
    return r;
}

/* ---- translation checks ---------------------------------------------------------- */

bool mzn_write_eval(lm_buf *b, const sym_expr *const *exprs, int n, const sym_env *env, bool as_vars, lm_buf *why)
{
    /* every symbol of env is a one-value variable (as_vars) or fixed */
    solve_var *vars = lm_xcalloc((size_t)env->n + 1, sizeof *vars);
    int64_t *vals = lm_xcalloc((size_t)env->n + 1, sizeof *vals);
    int nv = 0;
    if (as_vars)
        for (int i = 0; i < env->n; i++) {
            vals[i] = env->b[i].lo;
            vars[nv++] = (solve_var){env->b[i].var, &vals[i], 1};
        }
    solve_problem p = {.vars = vars, .nvars = nv, .fixed = env};
    mctx c;
    mzn_ctx_init(&c, &p, 0, why);
    c.tables = false; /* the operators themselves are under test, not MiniZinc's evaluation of a table */
    for (int i = 0; i < n; i++)
        add_root(&c, ROOT_EVAL, exprs[i], NULL);
    if (!c.failed)
        analyse(&c);
    if (!c.failed)
        mzn_check_division_temps(&c);
    bool ok = !c.failed;
    if (ok) {
        mzn_write_body(&c, b, NULL, -1);
        for (int i = 0; i < n; i++) {
            lm_buf_printf(b, "%% %s\n", expr_text(&c, exprs[i]));
            lm_buf_printf(b, "%s int: loomc_e%d = ", as_vars ? "var" : "", i);
            print_node(&c, b, c.roots.items[i].node, false);
            lm_buf_puts(b, ";\n");
        }
        lm_buf_puts(b, "solve satisfy;\noutput [\"loomc-eval\"");
        for (int i = 0; i < n; i++)
            lm_buf_printf(b, ", \" \\(loomc_e%d)\"", i);
        lm_buf_puts(b, ", \"\\n\"];\n");
    }
    mzn_ctx_free(&c);
    free(vars);
    free(vals);
    return ok;
}
