/* orient.c - which vectors are rows.
 *
 * A Tile IR vector (a rank-1 tile) has no orientation, but its tiles do: on
 * the chip a vector is either a column [N, 1] (the per-row values of a
 * block, such as a row maximum, laid down the tile's rows) or a row [1, N]
 * (a vector read along a tensor's last dimension, as row-wise kernels
 * read, laid along the tile's first row). The two hold the same numbers in
 * different places, so every vector takes one orientation and the values
 * an element-wise op, a loop's carried value or a view links share it.
 *
 * The evidence, per class of linked vectors:
 *  - rows: a vector loaded or stored through a one-dimensional block (which
 *    lies along the tensor's last dimension: the tile layout's columns),
 *    and the view of a [1, N] block as [N];
 *  - columns: a reduction of a block (but for one over a [1, N] block's
 *    single row, which is that row), `x[:, None]` (broadcast across
 *    columns; a row there is transposed), and the view of a [N, 1] block
 *    as [N].
 * Loads and reductions decide; stores, views and `x[:, None]` only lean
 * (a column stored into a row block, or viewed as one, is transposed on
 * the way out, as a store of `x[None, :]` is), so they choose only for a
 * class nothing decides, and only when they agree. A class with no
 * evidence is a column, as before rows existed; one decided both ways is
 * refused, naming a place of each.
 */
#include "lower/lower_int.h"

#include <stdlib.h>

enum { OR_FREE, OR_ROW, OR_COL };

typedef struct orient {
    lw *L;
    int *up;       /* union-find parent, by value uid */
    int *kind;     /* OR_*, valid at a class's root */
    lm_loc *where; /* the evidence's place, by OR_ROW/OR_COL at a class's root */
    unsigned *lean;/* by value uid: bit OR_ROW/OR_COL set where a store or view leans */
} orient;

static bool is_vector(const tir_value *x) { return x && x->type.kind == TIR_TILE && x->type.rank == 1; }

static int find(orient *o, int u)
{
    while (o->up[u] != u)
        u = o->up[u] = o->up[o->up[u]];
    return u;
}

static void conflict(orient *o, lm_loc row, lm_loc col)
{
    lw_fail(o->L, row, "this vector is used as a row (read along a tensor's last dimension) and, at line %d, as a "
                       "column (the per-row values of a block); give it one shape, or use a [1, N] or [N, 1] block",
            col.line);
}

/* The class of u takes kind k (seen at loc); a class that already has the
 * other kind is a conflict. */
static void mark(orient *o, const tir_value *x, int k, lm_loc loc)
{
    if (!is_vector(x) || o->L->failed)
        return;
    int r = find(o, x->uid);
    if (o->kind[r] == OR_FREE) {
        o->kind[r] = k;
        o->where[2 * r + (k == OR_COL)] = loc;
    } else if (o->kind[r] != k) {
        conflict(o, k == OR_ROW ? loc : o->where[2 * r], k == OR_COL ? loc : o->where[2 * r + 1]);
    }
}

static void link(orient *o, const tir_value *x, const tir_value *y)
{
    if (!is_vector(x) || !is_vector(y) || o->L->failed)
        return;
    int a = find(o, x->uid), b = find(o, y->uid);
    if (a == b)
        return;
    int ka = o->kind[a], kb = o->kind[b];
    lm_loc wa[2] = {o->where[2 * a], o->where[2 * a + 1]};
    o->up[b] = a;
    if (ka == OR_FREE && kb != OR_FREE) {
        o->kind[a] = kb;
        o->where[2 * a] = o->where[2 * b];
        o->where[2 * a + 1] = o->where[2 * b + 1];
    } else if (ka != OR_FREE && kb != OR_FREE && ka != kb) {
        conflict(o, ka == OR_ROW ? wa[0] : o->where[2 * b], ka == OR_COL ? wa[1] : o->where[2 * b + 1]);
    }
}

static void lean(orient *o, const tir_value *x, int k)
{
    if (is_vector(x) && k != OR_FREE)
        o->lean[x->uid] |= 1u << k;
}

/* The orientation a view between a vector and a block of one non-1
 * dimension gives the vector: a row when that dimension is the last. */
static int view_kind(const tir_value *blk)
{
    const tir_type *t = &blk->type;
    for (int d = 0; d < t->rank; d++) {
        int64_t n;
        if (!sym_is_const(t->shape[d], &n) || n != 1)
            return d == t->rank - 1 ? OR_ROW : OR_COL;
    }
    return OR_FREE;
}

static void walk(orient *o, const tir_block *b);

static void walk_for(orient *o, const tir_op *op)
{
    const tir_block *body = op->regions[0];
    const tir_op *y = tir_yield_of(body);
    for (int i = 0; i < tir_for_ncarried(op); i++) {
        link(o, tir_for_init(op, i), tir_for_arg(op, i));
        link(o, tir_for_arg(op, i), op->results[i]);
        if (y && 1 + i <= y->nopnds)
            link(o, y->opnds[i], op->results[i]);
    }
    walk(o, body);
}

static void walk_op(orient *o, const tir_op *op)
{
    const tir_value *r = op->nresults == 1 ? op->results[0] : NULL;
    switch (op->code) {
    case TIR_FOR:
        walk_for(o, op);
        return;
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        mark(o, r, OR_ROW, op->loc);
        return;
    case TIR_STORE:
    case TIR_DESC_STORE:
        lean(o, op->opnds[1], OR_ROW);
        return;
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_MIN:
    case TIR_REDUCE_SUM:
        /* over one element the reduction is its operand: a [1, N] block's
           row, an [N, 1] block's column (classify.c) */
        if (op->opnds[0]->type.rank == 2)
            mark(o, r, lw_reduced_extent(o->L, op) == 1 && op->ival == 0 ? OR_ROW : OR_COL, op->loc);
        return;
    case TIR_EXPAND_DIMS:
        /* a row made a column is turned (a transpose) */
        if (is_vector(op->opnds[0]) && op->ival == 1)
            lean(o, op->opnds[0], OR_COL);
        return;
    case TIR_VIEW:
        if (is_vector(r) && is_vector(op->opnds[0]))
            link(o, op->opnds[0], r);
        else if (is_vector(r) && op->opnds[0]->type.rank > 1)
            lean(o, r, view_kind(op->opnds[0]));
        else if (is_vector(op->opnds[0]) && r && r->type.rank > 1)
            lean(o, op->opnds[0], view_kind(r));
        return;
    default:
        break;
    }
    if (!tir_op_has(op->code, TIR_P_ELEM) && op->code != TIR_SPLAT && op->code != TIR_BROADCAST)
        return;
    for (int i = 0; i < op->nopnds; i++)
        link(o, op->opnds[i], r);
}

static void walk(orient *o, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !o->L->failed; op = op->next)
        walk_op(o, op);
}

bool lw_orient(lw *L)
{
    size_t n = (size_t)L->nv;
    orient o = {L, lm_xcalloc(n, sizeof(int)), lm_xcalloc(n, sizeof(int)), lm_xcalloc(n * 2, sizeof(lm_loc)),
                lm_xcalloc(n, sizeof(unsigned))};
    for (int u = 0; u < L->nv; u++)
        o.up[u] = u;
    walk(&o, L->f->body);
    /* what the stores and views lean to, gathered per class */
    unsigned *leans = lm_xcalloc(n, sizeof *leans);
    for (int u = 0; u < L->nv; u++)
        leans[find(&o, u)] |= o.lean[u];
    L->row = lm_xcalloc(n, sizeof *L->row);
    for (int u = 0; u < L->nv; u++) {
        int r = find(&o, u);
        L->row[u] = o.kind[r] == OR_ROW || (o.kind[r] == OR_FREE && leans[r] == 1u << OR_ROW);
    }
    free(leans);
    free(o.up);
    free(o.kind);
    free(o.where);
    free(o.lean);
    return !L->failed;
}
