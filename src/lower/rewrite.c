/* rewrite.c - the lowering's algebraic rewrites, decided on the Tile IR
 * after classification (what every value is) and before uses, storage and
 * chains are planned.
 *
 * A positive scale folded into the exponentials (lw_plan_scales). A value
 * s = x * c with c > 0 known on the host is held as x, its own pages, when
 * every value computed from it up to an exponential can be held divided
 * by c too: a maximum, a sum, a difference, a selection by an index mask
 * and a row reduction of such values commute with the positive scale
 * (max(c a, c b) = c max(a, b), c a - c b = c (a - b)), and exp(c y) is
 * the exponential with the scale folded into its argument, which the SFPU
 * takes at no cost (a pchain's `scale`). The values so held form a class,
 * found from the seed by following definitions and uses; the class is
 * taken whole or not at all: a value of it read by anything else (a store,
 * a dot, a comparison, a logarithm) would need its true value, and then
 * nothing is folded. A loop-carried value joins with its initial value,
 * the value yielded for it and the loop's result; constants read by the
 * class's sums, differences, maxima and selections are divided by c where
 * they are read, and multiplications and divisions by constants stay as
 * they are (linear). vinfo.dom is the factor a value's pages are short of
 * its true value (1 outside every class); the seed multiplication becomes
 * a view of x and emits nothing (L->gone).
 */
#include "lower/lower_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- uses of a value, found on the Tile IR ---------------------------------- */

typedef struct use {
    const tir_op *op;
    int i; /* operand index */
} use;
typedef LM_VEC(use) uses;

static void find_uses(const tir_block *b, const tir_value *v, uses *out)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            if (op->opnds[i] == v)
                LM_PUSH(out, ((use){op, i}));
        for (int r = 0; r < op->nregions; r++)
            find_uses(op->regions[r], v, out);
    }
}

/* The FOR whose body has v as carried argument i (>= 0), or NULL. */
static const tir_op *carried_arg(const tir_value *v, int *i)
{
    if (v->def || !v->block || !v->block->owner || v->block->owner->code != TIR_FOR)
        return NULL;
    const tir_op *f = v->block->owner;
    for (int k = 0; k < tir_for_ncarried(f); k++)
        if (tir_for_arg(f, k) == v) {
            *i = k;
            return f;
        }
    return NULL;
}

/* ---- the class of a seed ---------------------------------------------------- */

typedef struct sclass {
    lw *L;
    double c;
    bool *mem;                /* by value uid */
    const tir_value **work;   /* values to visit */
    int nwork;
    bool ok;
} sclass;

static bool is_tile(const lw *L, const tir_value *v) { return L->v[v->uid].kind == VK_TILE; }

static bool is_const(const lw *L, const tir_value *v) { return L->v[v->uid].kind == VK_CONST; }

static void join(sclass *s, const tir_value *v)
{
    if (!v || !is_tile(s->L, v) || s->mem[v->uid])
        return;
    s->mem[v->uid] = true;
    s->work[s->nwork++] = v;
}

static bool alias_op(tir_opcode c)
{
    return c == TIR_VIEW || c == TIR_EXPAND_DIMS || c == TIR_BROADCAST || c == TIR_TRANS || c == TIR_SPLAT;
}

/* An op whose result is c times what it computes from operands held
 * divided by c (a constant operand aside): the scale commutes with it. */
static bool commutes(const sclass *s, const tir_op *op)
{
    switch (op->code) {
    case TIR_ADD:
    case TIR_SUB:
    case TIR_NEG:
    case TIR_REDUCE_SUM:
    case TIR_CAST:
        return true;
    case TIR_MAX:
    case TIR_REDUCE_MAX:
        return s->c > 0;
    case TIR_WHERE:
        return s->L->v[op->opnds[0]->uid].kind == VK_MASK;
    case TIR_MUL:
    case TIR_DIV:
        /* by a constant: linear */
        return op->nopnds == 2 && is_const(s->L, op->opnds[1]) && (op->code == TIR_DIV || is_tile(s->L, op->opnds[0]));
    default:
        return alias_op(op->code);
    }
}

/* A seed: x * c, x a tile and c the class's constant. */
static bool seed_of(const lw *L, const tir_op *op, double c, const tir_value **x)
{
    if (op->code != TIR_MUL || op->nopnds != 2 || op->nresults != 1)
        return false;
    for (int i = 0; i < 2; i++) {
        const vinfo *k = &L->v[op->opnds[1 - i]->uid];
        if (is_tile(L, op->opnds[i]) && k->kind == VK_CONST && k->c == c) {
            *x = op->opnds[i];
            return true;
        }
    }
    return false;
}

/* A member's definition: what must join with it. */
static void visit_def(sclass *s, const tir_value *v)
{
    lw *L = s->L;
    int i;
    const tir_op *f = carried_arg(v, &i);
    if (f) {
        join(s, tir_for_init(f, i));
        join(s, tir_yield_of(f->regions[0])->opnds[i]);
        join(s, f->results[i]);
        return;
    }
    const tir_op *d = v->def;
    if (!d) {
        s->ok = false;
        return;
    }
    if (d->code == TIR_FOR) {
        for (int k = 0; k < tir_for_ncarried(d); k++)
            if (d->results[k] == v) {
                join(s, tir_for_arg(d, k));
                join(s, tir_for_init(d, k));
                join(s, tir_yield_of(d->regions[0])->opnds[k]);
            }
        return;
    }
    const tir_value *x;
    if (seed_of(L, d, s->c, &x)) {
        /* a seed (or, when x joins too, a product by c like any other):
           held as x's own pages, so x must be a block as it is */
        const vinfo *xi = V(L, x);
        s->ok = xi->bc == BC_NONE && !xi->trans && !xi->tview;
        return;
    }
    if (!commutes(s, d)) {
        s->ok = false;
        return;
    }
    for (int k = d->code == TIR_WHERE ? 1 : 0; k < d->nopnds; k++)
        join(s, d->opnds[k]);
}

/* A member's uses: each must commute with the scale (and bring its result
 * and other operands), take it into an exponential, or carry it. */
static void visit_uses(sclass *s, const tir_value *v)
{
    uses us = {0};
    find_uses(s->L->f->body, v, &us);
    for (size_t u = 0; u < us.len && s->ok; u++) {
        const tir_op *op = us.items[u].op;
        int i = us.items[u].i;
        if (op->code == TIR_EXP || op->code == TIR_EXP2)
            continue;
        if (op->code == TIR_YIELD) {
            const tir_op *f = op->parent->owner;
            if (!f || f->code != TIR_FOR || i >= tir_for_ncarried(f)) {
                s->ok = false;
                break;
            }
            join(s, tir_for_arg(f, i));
            join(s, f->results[i]);
            continue;
        }
        if (op->code == TIR_FOR) {
            int k = i - 3; /* an initial value */
            if (k < 0) {
                s->ok = false;
                break;
            }
            join(s, tir_for_arg(op, k));
            join(s, op->results[k]);
            continue;
        }
        const tir_value *x;
        if ((op->code == TIR_WHERE && i == 0) || (!commutes(s, op) && !seed_of(s->L, op, s->c, &x))) {
            s->ok = false;
            break;
        }
        for (int k = op->code == TIR_WHERE ? 1 : 0; k < op->nopnds; k++)
            join(s, op->opnds[k]);
        for (int k = 0; k < op->nresults; k++)
            join(s, op->results[k]);
    }
    free(us.items);
}

static void seed_views(lw *L, const tir_block *b, double c, const bool *mem);

/* Try the class of seed `op` (x * c): on success its members hold their
 * values divided by c. */
static void try_class(lw *L, const tir_op *op, double c)
{
    sclass s = {L, c, lm_xcalloc((size_t)L->nv, sizeof(bool)), lm_xcalloc((size_t)L->nv, sizeof(const tir_value *)),
                0, true};
    join(&s, op->results[0]);
    while (s.nwork && s.ok) {
        const tir_value *v = s.work[--s.nwork];
        visit_def(&s, v);
        if (s.ok)
            visit_uses(&s, v);
    }
    if (s.ok) {
        for (int u = 0; u < L->nv; u++)
            if (s.mem[u])
                L->v[u].dom = c;
        /* the seeds, whose x stays outside: views of x (nothing emitted) */
        seed_views(L, L->f->body, c, s.mem);
    }
    free(s.mem);
    free(s.work);
}

/* The class's seeds x * c (x outside it) become views of x: the product's
 * pages are x's, and nothing is emitted for it. */
static void seed_views(lw *L, const tir_block *b, double c, const bool *mem)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            seed_views(L, op->regions[r], c, mem);
        const tir_value *x;
        if (op->nresults != 1 || !mem[op->results[0]->uid] || !seed_of(L, op, c, &x) || mem[x->uid])
            continue;
        /* the product and its views read x's pages (x is a plain block) */
        int was = op->results[0]->uid, root = V(L, x)->root;
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].kind == VK_TILE && L->v[u].root == was)
                L->v[u].root = root;
        if (L->ngone < LW_MAX_CHAINS)
            L->gone[L->ngone++] = op;
    }
}

/* Is the scale a positive finite constant other than 1 (a seed's)? */
static bool foldable(double c) { return isfinite(c) && c > 0 && c != 1.0; }

void lw_plan_scales_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            lw_plan_scales_block(L, op->regions[r]);
        if (op->code != TIR_MUL || op->nresults != 1 || op->nopnds != 2 || !is_tile(L, op->results[0]) ||
            V(L, op->results[0])->root != op->results[0]->uid || V(L, op->results[0])->dom != 1.0)
            continue;
        for (int i = 0; i < 2; i++) {
            const vinfo *k = V(L, op->opnds[1 - i]);
            const tir_value *x;
            if (is_tile(L, op->opnds[i]) && V(L, op->opnds[i])->dom == 1.0 && k->kind == VK_CONST && foldable(k->c) &&
                seed_of(L, op, k->c, &x)) {
                try_class(L, op, k->c);
                break;
            }
        }
    }
}

/* The constant operand c of an op whose result's pages are its true value
 * divided by dom (the op is one of the class's sums, differences, maxima or
 * selections): read as c / dom. */
double lw_dom_const(const vinfo *res, double c) { return res && res->dom != 1.0 ? c / res->dom : c; }
