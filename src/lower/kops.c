/* kops.c - the tile ops of the compute kernel: arithmetic, comparisons,
 * selects, unary ops, reductions, masks and matmul. Each op that needs
 * temporaries has its rule here beside its emitter: lw_plan_OP gives them
 * (called by the planning walk, kcompute.c's lw_plan_temps), lw_emit_OP
 * writes the op's statements and looks them up. Both read the operands'
 * kinds from the plan (lw_opnd_of), so they take the same branch. What the
 * ops are made of (operands, outputs, statements): kstmt.c. */
#include "lower/lower_int.h"

#include <math.h>
#include <string.h>

/* rowmax of the rows x cols block of `a` at page `at` (row-major) into one
 * tile per row of `out`, seeded with column 0 of `b`'s pages from at_b
 * (b = -1: none). */
static void rowmax_stmt(kctx *K, int a, int64_t at, int64_t rows, int64_t cols, int b, int64_t at_b, int out)
{
    df_stmt *s = S(K, DF_ROWMAX);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    s->cb_b = b;
    s->at_b = C(K, at_b);
    lw_put(K, s);
}

/* ---- binary arithmetic ---------------------------------------------------- */

/* How a (code) b is computed, by the operands' kinds. */
typedef enum bform {
    BF_SCALE,       /* x * c, x / c: the SFPU scales */
    BF_RECIP_MUL,   /* x / y = x * (1/y): temporary k0 holds 1/y over y's own tiles */
    BF_RECIP,       /* 1 / y */
    BF_RECIP_SCALE, /* c / y: temporary k0 holds 1/y */
    BF_NEG_ADD,     /* c - y = (-y) + c: temporary k0 holds -y, k0 + 1 the constant */
    BF_ELT,         /* x (op) y, y full or broadcast */
    BF_ELT_CONST,   /* x (op) c: temporary k0 + 1 holds the constant */
    BF_SUB_NEG,     /* v - x = -(x - v): temporary k0 holds x - v */
} bform;

/* The form of a (code) b, with a and b swapped when the op commutes and
 * only b is full; false after reporting. */
static bool binop_form(lw *L, const tir_op *op, tir_opcode code, opnd *a, opnd *b, bform *f)
{
    if (code == TIR_MIN) {
        lw_fail(L, op->loc, "tl.minimum of tiles (the tile ops have max only)");
        return false;
    }
    bool comm = code == TIR_ADD || code == TIR_MUL || code == TIR_MAX;
    if (a->k != O_FULL && b->k == O_FULL && comm) {
        opnd t = *a;
        *a = *b;
        *b = t;
    }
    if (a->k == O_FULL && b->k == O_CONST && (code == TIR_MUL || code == TIR_DIV))
        *f = BF_SCALE;
    else if (a->k == O_FULL && code == TIR_DIV)
        *f = BF_RECIP_MUL;
    else if (a->k == O_CONST && b->k == O_FULL && code == TIR_DIV)
        *f = a->c == 1.0 ? BF_RECIP : BF_RECIP_SCALE;
    else if (a->k == O_CONST && b->k == O_FULL && code == TIR_SUB)
        *f = BF_NEG_ADD;
    else if (code != TIR_ADD && code != TIR_SUB && code != TIR_MUL && code != TIR_MAX) {
        lw_fail(L, op->loc, "'%s' of these operands has no tile op", tir_op_name(code));
        return false;
    } else if (a->k == O_FULL)
        *f = b->k == O_CONST ? BF_ELT_CONST : BF_ELT;
    else if (b->k == O_FULL && code == TIR_SUB && (a->k == O_COL || a->k == O_ROW || a->k == O_SCALAR))
        *f = BF_SUB_NEG;
    else {
        lw_fail(L, op->loc, "'%s' of two broadcast operands", tir_op_name(code));
        return false;
    }
    return true;
}

/* The temporaries of a (code) b, T tiles (sT as an expression), as step
 * k0 of op: its k0 and k0 + 1. False after reporting. */
static bool binop_plan(lw *L, const tir_op *op, int k0, tir_opcode code, opnd a, opnd b, int64_t T,
                       const sym_expr *sT)
{
    bform f;
    if (!binop_form(L, op, code, &a, &b, &f))
        return false;
    arch_format tf = lw_interm_format(L);
    switch (f) {
    case BF_RECIP_MUL:
        lw_plan_temp(L, op, k0, b.tiles, b.stiles, tf);
        break;
    case BF_RECIP_SCALE:
    case BF_SUB_NEG:
        lw_plan_temp(L, op, k0, T, sT, tf);
        break;
    case BF_NEG_ADD:
        lw_plan_temp(L, op, k0, T, sT, tf);
        lw_plan_const_tile(L, op, k0 + 1);
        break;
    case BF_ELT_CONST:
        lw_plan_const_tile(L, op, k0 + 1);
        break;
    case BF_SCALE:
    case BF_RECIP:
    case BF_ELT:
        break;
    }
    return !L->failed;
}

/* Temporary k of op, reserved for its n tiles; then pushed and read. */
static int temp_open(kctx *K, const tir_op *op, int k, int64_t n)
{
    int t = lw_temp(K->L, op, k);
    lw_cbop(K, DF_CB_RESERVE, t, n);
    return t;
}

static opnd temp_ready(kctx *K, int t, int64_t n)
{
    lw_cbop(K, DF_CB_PUSH, t, n);
    lw_cbop(K, DF_CB_WAIT, t, n);
    return (opnd){O_FULL, 0, t, 0, n, NULL};
}

/* A full operand of T tiles (sT) that a temporary holds, for planning. */
static opnd planned_full(int64_t T, const sym_expr *sT) { return (opnd){O_FULL, 0, -1, 0, T, sT}; }

/* a (code) b into the reserved pages of `out`, rows x cols tiles, as step
 * k0 of op (binop_plan gave its temporaries). */
static void binop(kctx *K, const tir_op *op, int k0, tir_opcode code, opnd a, opnd b, int64_t rows, int64_t cols,
                  int out)
{
    bform f;
    if (!binop_form(K->L, op, code, &a, &b, &f))
        return;
    int64_t T = rows * cols;
    int t = -1;
    opnd c;
    switch (f) {
    case BF_SCALE:
        lw_sfpu(K, DF_SCALE, a.cb, a.at, out, T, code == TIR_MUL ? b.c : 1.0 / b.c);
        return;
    case BF_RECIP_MUL:
        t = temp_open(K, op, k0, b.tiles);
        lw_sfpu(K, DF_RECIP, b.cb, b.at, t, b.tiles, 1);
        temp_ready(K, t, b.tiles);
        lw_elt(K, DF_MUL, a.cb, a.at, t, 0, lw_bc_of(b.k), out, rows, cols);
        lw_cbop(K, DF_CB_POP, t, b.tiles);
        return;
    case BF_RECIP:
        lw_sfpu(K, DF_RECIP, b.cb, b.at, out, T, 1);
        return;
    case BF_RECIP_SCALE:
        t = temp_open(K, op, k0, T);
        lw_sfpu(K, DF_RECIP, b.cb, b.at, t, T, 1);
        temp_ready(K, t, T);
        lw_sfpu(K, DF_SCALE, t, 0, out, T, a.c);
        lw_cbop(K, DF_CB_POP, t, T);
        return;
    case BF_NEG_ADD:
        t = temp_open(K, op, k0, T);
        lw_sfpu(K, DF_NEG, b.cb, b.at, t, T, 1);
        temp_ready(K, t, T);
        lw_const_tile(K, op, k0 + 1, lw_dom_const(V(K->L, op->results[0]), a.c), &c);
        lw_elt(K, DF_ADD, t, 0, c.cb, 0, DF_BC_SCALAR, out, rows, cols);
        lw_cbop(K, DF_CB_POP, t, T);
        lw_end_temp(K, &c, true);
        return;
    case BF_ELT:
    case BF_ELT_CONST: {
        df_eltop eo = code == TIR_ADD ? DF_ADD : code == TIR_SUB ? DF_SUB : code == TIR_MUL ? DF_MUL : DF_MAXOP;
        bool ct = f == BF_ELT_CONST;
        if (ct) /* (a sum, difference or maximum: divided by a folded scale) */
            lw_const_tile(K, op, k0 + 1, lw_dom_const(V(K->L, op->results[0]), b.c), &b);
        lw_elt(K, eo, a.cb, a.at, b.cb, b.at, lw_bc_of(b.k), out, rows, cols);
        lw_end_temp(K, &b, ct);
        return;
    }
    case BF_SUB_NEG:
        t = temp_open(K, op, k0, T);
        lw_elt(K, DF_SUB, b.cb, b.at, a.cb, a.at, lw_bc_of(a.k), t, rows, cols);
        temp_ready(K, t, T);
        lw_sfpu(K, DF_NEG, t, 0, out, T, 1);
        lw_cbop(K, DF_CB_POP, t, T);
        return;
    }
}

void lw_plan_binary(lw *L, const tir_op *op)
{
    if (lw_fused_reduce(L, op))
        return; /* one rowmax: no temporaries */
    const vinfo *rr = &L->v[V(L, op->results[0])->root];
    opnd a, b;
    if (!lw_opnd_of(L, op->opnds[0], rr, &a, op->loc) || !lw_opnd_of(L, op->opnds[1], rr, &b, op->loc))
        return;
    binop_plan(L, op, 0, op->code, a, b, rr->tr * rr->tc, lw_vtiles(L, rr));
}

/* maximum(m, max(x, axis=1)) planned as one op (lw_plan_rowmax): the row
 * maximum of x seeded with m. */
static void emit_seeded_rowmax(kctx *K, const tir_op *op, const tir_op *red)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const tir_value *m = op->opnds[op->opnds[0]->def == red ? 1 : 0];
    int xr = V(L, red->opnds[0])->root, cb, mcb;
    int64_t at, mat;
    if (!lw_read_at(K, xr, &cb, &at, red->loc) || !lw_read_at(K, V(L, m)->root, &mcb, &mat, op->loc))
        return;
    int out = lw_out_open(K, r);
    rowmax_stmt(K, cb, at, L->v[xr].tr, L->v[xr].tc, mcb, mat, out);
    lw_out_close(K, r);
}

void lw_emit_binary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    const tir_op *red = lw_fused_reduce(L, op);
    if (red) {
        emit_seeded_rowmax(K, op, red);
        return;
    }
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    if (!lw_get_opnd(K, op->opnds[0], rr, &a, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &b, op->loc))
        return;
    int out = lw_out_open(K, r);
    binop(K, op, 0, op->code, a, b, rr->tr, rr->tc, out);
    lw_out_close(K, r);
}

/* ---- comparisons and selects ---------------------------------------------- */

/* A comparison of data: 1.0 where it holds, 0.0 elsewhere (the SFPU's
 * comparisons with zero, after a subtraction into temporary 0). The
 * operands in the order the SFPU takes them, and the code that compares
 * them so; false after reporting. */
static bool cmp_form(lw *L, const tir_op *op, opnd *a, opnd *b, tir_opcode *code)
{
    *code = op->code;
    if (a->k != O_FULL && b->k == O_FULL) {
        /* c < y  <=>  y > c */
        opnd t = *a;
        *a = *b;
        *b = t;
        tir_opcode c = *code;
        *code = c == TIR_CMP_LT ? TIR_CMP_GT : c == TIR_CMP_GT ? TIR_CMP_LT : c == TIR_CMP_LE ? TIR_CMP_GE
                : c == TIR_CMP_GE ? TIR_CMP_LE : c;
    }
    if (a->k != O_FULL) {
        lw_fail(L, op->loc, "a comparison of two broadcast values");
        return false;
    }
    return true;
}

static bool cmp_diff(const opnd *b) { return !(b->k == O_CONST && b->c == 0.0); }

void lw_plan_cmp(lw *L, const tir_op *op)
{
    const vinfo *rr = &L->v[V(L, op->results[0])->root];
    opnd a, b;
    tir_opcode code;
    if (!lw_opnd_of(L, op->opnds[0], rr, &a, op->loc) || !lw_opnd_of(L, op->opnds[1], rr, &b, op->loc) ||
        !cmp_form(L, op, &a, &b, &code))
        return;
    int64_t T = rr->tr * rr->tc;
    const sym_expr *sT = lw_vtiles(L, rr);
    if (cmp_diff(&b)) {
        lw_plan_temp(L, op, 0, T, sT, lw_interm_format(L));
        binop_plan(L, op, 1, TIR_SUB, a, b, T, sT);
    }
}

void lw_emit_cmp(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    tir_opcode code;
    if (!lw_get_opnd(K, op->opnds[0], rr, &a, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &b, op->loc) ||
        !cmp_form(L, op, &a, &b, &code))
        return;
    df_sfpuop so = code == TIR_CMP_GT ? DF_GTZ : code == TIR_CMP_GE ? DF_GEZ : code == TIR_CMP_LT ? DF_LTZ
                   : code == TIR_CMP_LE ? DF_LEZ : code == TIR_CMP_EQ ? DF_EQZ : DF_NEZ;
    int64_t T = rr->tr * rr->tc;
    bool diff = cmp_diff(&b);
    opnd d = a;
    if (diff) {
        int t = temp_open(K, op, 0, T);
        binop(K, op, 1, TIR_SUB, a, b, rr->tr, rr->tc, t);
        d = temp_ready(K, t, T);
    }
    int out = lw_out_open(K, r);
    lw_sfpu(K, so, d.cb, d.at, out, T, 1);
    lw_out_close(K, r);
    if (diff)
        lw_cbop(K, DF_CB_POP, d.cb, T);
}

/* where(c, x, y) on a condition computed from data: y + c * (x - y), with
 * x - y in temporary 0 (steps 1, 2) and c * (x - y) in temporary 3 (steps
 * 4, 5); the sum is steps 6, 7. */
static bool select_opnds(lw *L, const tir_op *op, const vinfo *rr, opnd *c, opnd *x, opnd *y)
{
    if (!lw_opnd_of(L, op->opnds[0], rr, c, op->loc) || !lw_opnd_of(L, op->opnds[1], rr, x, op->loc) ||
        !lw_opnd_of(L, op->opnds[2], rr, y, op->loc))
        return false;
    if ((x->k == O_CONST && !isfinite(x->c)) || (y->k == O_CONST && !isfinite(y->c))) {
        lw_fail(L, op->loc, "tl.where on data with an infinite value (it is computed as y + c*(x - y))");
        return false;
    }
    return true;
}

/* For the model: n tile ops of `tiles` tiles in format fmt that the
 * lowering runs for op before its last one (SCHED_LOWER_PASSES). */
static void record_passes(lw *L, const tir_op *op, const sym_expr *n, const sym_expr *tiles, arch_format fmt)
{
    int64_t none;
    if (L->npass == LW_MAX_CHAINS || (sym_is_const(n, &none) && none == 0))
        return;
    int i = L->npass++;
    L->pass_op[i] = op;
    L->pass_n[i] = n;
    L->pass_tiles[i] = tiles;
    L->pass_fmt[i] = fmt;
}

static void plan_select_temps(lw *L, const tir_op *op)
{
    const vinfo *rr = &L->v[V(L, op->results[0])->root];
    opnd c, x, y;
    if (!select_opnds(L, op, rr, &c, &x, &y))
        return;
    int64_t T = rr->tr * rr->tc;
    const sym_expr *sT = lw_vtiles(L, rr);
    arch_format tf = lw_interm_format(L);
    lw_plan_temp(L, op, 0, T, sT, tf);
    if (!(x.k == O_CONST && y.k == O_CONST) && !binop_plan(L, op, 1, TIR_SUB, x, y, T, sT))
        return;
    lw_plan_temp(L, op, 3, T, sT, tf);
    if (binop_plan(L, op, 4, TIR_MUL, c, planned_full(T, sT), T, sT))
        binop_plan(L, op, 6, TIR_ADD, planned_full(T, sT), y, T, sT);
}

/* A select's steps before its sum: each temporary it plans (the
 * difference or its constant, the product, the constant tiles) is made by
 * a tile op of its own that the next step waits for. */
static void plan_select(lw *L, const tir_op *op)
{
    int n0 = L->ntmp;
    plan_select_temps(L, op);
    for (int i = n0; i < L->ntmp; i++) {
        const store *st = &L->st[L->tmp[i].st];
        if (L->tmp[i].op == op)
            record_passes(L, op, sym_const(L->sc, 1), st->stiles, st->fmt);
    }
}

static void emit_select(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd c, x, y;
    if (!lw_get_opnd(K, op->opnds[0], rr, &c, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &x, op->loc) ||
        !lw_get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    int64_t rows = rr->tr, cols = rr->tc, T = rows * cols;
    int t1 = temp_open(K, op, 0, T);
    if (x.k == O_CONST && y.k == O_CONST)
        lw_fill(K, t1, T, x.c - y.c);
    else
        binop(K, op, 1, TIR_SUB, x, y, rows, cols, t1);
    opnd d = temp_ready(K, t1, T);
    int t2 = temp_open(K, op, 3, T);
    binop(K, op, 4, TIR_MUL, c, d, rows, cols, t2);
    opnd e = temp_ready(K, t2, T);
    int out = lw_out_open(K, r);
    binop(K, op, 6, TIR_ADD, e, y, rows, cols, out);
    lw_out_close(K, r);
    lw_cbop(K, DF_CB_POP, t1, T);
    lw_cbop(K, DF_CB_POP, t2, T);
}

/* where(mask, x, y) on a mask of index comparisons: the mask op replaces
 * by a constant. Two constants fill temporary 2 with one first; more than
 * two comparisons mask in two steps through temporary 0. The operand
 * kept, the constant and the predicates (oriented to `keep`), x already
 * the filled temporary; false after reporting. */
static bool where_form(lw *L, const tir_op *op, opnd *x, opnd *y, opnd *keep, double *other, pred *p, int *np)
{
    const vinfo *m = V(L, op->opnds[0]);
    *np = m->np;
    memcpy(p, m->p, sizeof m->p);
    *keep = *x;
    if (x->k == O_FULL && y->k == O_CONST) {
        *other = y->c;
    } else if (x->k == O_CONST && y->k == O_FULL && *np == 1) {
        *keep = *y;
        *other = x->c;
        p[0].c[0] = -p[0].c[0];
        p[0].c[1] = -p[0].c[1];
        p[0].k = sym_sub(L->sc, sym_neg(L->sc, p[0].k), sym_const(L->sc, 1));
    } else {
        lw_fail(L, op->loc, "tl.where other than (mask, tile, constant) - the 'mask' op replaces by a constant");
        return false;
    }
    if (*np > 4) {
        lw_fail(L, op->loc, "a mask of more than 4 comparisons");
        return false;
    }
    return true;
}

/* The condition of a where: a mask (true), data (false: a select), or
 * neither (reported). */
static bool where_on_mask(lw *L, const tir_op *op, bool *mask)
{
    const vinfo *m = V(L, op->opnds[0]);
    *mask = m->kind != VK_TILE;
    if (m->kind != VK_TILE && m->kind != VK_MASK) {
        lw_fail(L, op->loc, "tl.where on a condition the lowering cannot follow");
        return false;
    }
    return true;
}

void lw_plan_where(lw *L, const tir_op *op)
{
    bool mask;
    if (!where_on_mask(L, op, &mask))
        return;
    if (!mask) {
        plan_select(L, op);
        return;
    }
    lw_need_support(L, DF_SUP_IOTA, sym_const(L->sc, 1));
    const vinfo *rr = &L->v[V(L, op->results[0])->root];
    opnd x, y, keep;
    if (!lw_opnd_of(L, op->opnds[1], rr, &x, op->loc) || !lw_opnd_of(L, op->opnds[2], rr, &y, op->loc))
        return;
    int64_t T = rr->tr * rr->tc;
    if (x.k == O_CONST && y.k == O_CONST) {
        lw_plan_temp(L, op, 2, T, lw_vtiles(L, rr), lw_interm_format(L));
        x = planned_full(T, lw_vtiles(L, rr));
    }
    pred p[LW_MAX_PRED];
    int np;
    double other;
    if (!where_form(L, op, &x, &y, &keep, &other, p, &np))
        return;
    if (np > 2)
        lw_plan_temp(L, op, 0, T, lw_vtiles(L, rr), rr->fmt);
    else if (x.k == O_FULL)
        lw_split_note_where(L, op, p, np, rr);
}

void lw_emit_where(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    bool mask;
    if (!where_on_mask(L, op, &mask))
        return;
    if (!mask) {
        emit_select(K, op);
        return;
    }
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd x, y, keep;
    if (!lw_get_opnd(K, op->opnds[1], rr, &x, op->loc) || !lw_get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    int64_t T = rr->tr * rr->tc;
    int filled = -1;
    if (x.k == O_CONST && y.k == O_CONST) {
        /* a tile of two constants: filled with one, masked to the other */
        filled = temp_open(K, op, 2, T);
        lw_fill(K, filled, T, lw_dom_const(rr, x.c));
        x = temp_ready(K, filled, T);
    }
    pred p[LW_MAX_PRED];
    int np;
    double other;
    if (!where_form(L, op, &x, &y, &keep, &other, p, &np))
        return;
    other = lw_dom_const(rr, other);
    if (np <= 2) {
        int out = lw_out_open(K, r);
        lw_mask_stmt(K, keep.cb, keep.at, out, rr->tr, rr->tc, p, np, other);
        lw_out_close(K, r);
    } else {
        int t = temp_open(K, op, 0, T);
        lw_mask_stmt(K, keep.cb, keep.at, t, rr->tr, rr->tc, p, 2, other);
        temp_ready(K, t, T);
        int out = lw_out_open(K, r);
        lw_mask_stmt(K, t, 0, out, rr->tr, rr->tc, p + 2, np - 2, other);
        lw_out_close(K, r);
        lw_cbop(K, DF_CB_POP, t, T);
    }
    if (filled >= 0)
        lw_cbop(K, DF_CB_POP, filled, T);
}

/* ---- unary ops ------------------------------------------------------------ */

/* How a unary op is computed: a cast is a copy, log2 is ln and then a
 * scale through temporary 0, the others are one SFPU op (so). False after
 * reporting. */
typedef enum uform { UF_CAST, UF_LOG2, UF_SFPU } uform;

static bool unary_form(lw *L, const tir_op *op, uform *f, df_sfpuop *so)
{
    const vinfo *xi = V(L, op->opnds[0]);
    if (xi->kind != VK_TILE || xi->trans || xi->tview) {
        lw_fail(L, op->loc, "'%s' of an operand the tile ops cannot read", tir_op_name(op->code));
        return false;
    }
    if (!lw_readable(L, xi->root, op->loc))
        return false;
    *f = op->code == TIR_CAST ? UF_CAST : op->code == TIR_LOG2 ? UF_LOG2 : UF_SFPU;
    switch (op->code) {
    case TIR_CAST:
    case TIR_LOG2:
    case TIR_LOG: *so = DF_LOG; return true;
    case TIR_EXP: *so = DF_EXP; return true;
    case TIR_EXP2: *so = DF_EXP2; return true;
    case TIR_NEG: *so = DF_NEG; return true;
    case TIR_SQRT: *so = DF_SQRT; return true;
    case TIR_RSQRT: *so = DF_RSQRT; return true;
    case TIR_SIGMOID: *so = DF_SIGMOID; return true;
    default:
        lw_fail(L, op->loc, "'%s' has no SFPU op", tir_op_name(op->code));
        return false;
    }
}

void lw_plan_unary(lw *L, const tir_op *op)
{
    const vinfo *rr = &L->v[V(L, op->results[0])->root];
    uform f;
    df_sfpuop so;
    if (unary_form(L, op, &f, &so) && f == UF_LOG2)
        lw_plan_temp(L, op, 0, rr->tr * rr->tc, lw_vtiles(L, rr), lw_interm_format(L));
}

void lw_emit_unary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    uform f;
    df_sfpuop so;
    int cb;
    int64_t at;
    if (!unary_form(L, op, &f, &so) || !lw_read_at(K, V(L, op->opnds[0])->root, &cb, &at, op->loc))
        return;
    int64_t T = rr->tr * rr->tc;
    if (f == UF_CAST) {
        int out = lw_out_open(K, r);
        lw_copy(K, cb, at, out, T);
        lw_out_close(K, r);
    } else if (f == UF_LOG2) {
        /* log2(x) = ln(x) / ln(2) */
        int t = temp_open(K, op, 0, T);
        lw_sfpu(K, DF_LOG, cb, at, t, T, 1);
        temp_ready(K, t, T);
        int out = lw_out_open(K, r);
        lw_sfpu(K, DF_SCALE, t, 0, out, T, 1.0 / log(2.0));
        lw_out_close(K, r);
        lw_cbop(K, DF_CB_POP, t, T);
    } else {
        /* an exponential of a value held divided by a positive scale takes
           the scale into its argument (a pchain's scale) */
        double dom = V(L, op->opnds[0])->dom;
        int out = lw_out_open(K, r);
        lw_sfpu(K, so, cb, at, out, T, (so == DF_EXP || so == DF_EXP2) ? dom : 1);
        lw_out_close(K, r);
    }
}

/* ---- reductions ----------------------------------------------------------- */



/* Reductions become row reductions: along axis 0 the block is transposed
 * first (transpose_wh, into temporary 0), and columns past the value's
 * extent - padding or whatever the pages held - are masked to the
 * reduction's identity (in temporary 1, which exists where the reduced
 * extent is not whole tiles). The reduced block as rows x cols tiles and
 * the elements of its last column of tiles that count; false after
 * reporting. */
static bool reduce_form(lw *L, const tir_op *op, int64_t *rows, int64_t *cols, int64_t *valid,
                        const sym_expr **svalid)
{
    const vinfo *xi = V(L, op->opnds[0]);
    int axis = lw_axis(L, op);
    if (op->code == TIR_REDUCE_MIN || xi->kind != VK_TILE || xi->bc != BC_NONE || xi->trans || xi->tview ||
        (axis == 0 && op->keep_dims && xi->rank == 2) || axis > 1 || xi->rank == 0) {
        lw_fail(L, op->loc, "'%s' along axis %lld of this value has no tile op", tir_op_name(op->code),
             (long long)op->ival);
        return false;
    }
    if (!lw_readable(L, xi->root, op->loc))
        return false;
    const vinfo *xr = &L->v[xi->root];
    *rows = axis == 0 ? xr->tc : xr->tr;
    *cols = axis == 0 ? xr->tr : xr->tc;
    *valid = axis == 0 ? xr->er : xr->ec;
    *svalid = axis == 0 ? xr->ser : xr->sec;
    return true;
}

void lw_plan_reduce(lw *L, const tir_op *op)
{
    int64_t rows, cols, valid;
    const sym_expr *svalid;
    if (!reduce_form(L, op, &rows, &cols, &valid, &svalid))
        return;
    const sym_expr *sn = lw_vtiles(L, &L->v[V(L, op->opnds[0])->root]);
    arch_format tf = lw_interm_format(L);
    if (lw_axis(L, op) == 0)
        lw_plan_temp(L, op, 0, rows * cols, sn, tf);
    const sym_expr *partial = lw_positive(L, sym_mod(L->sc, svalid, sym_const(L->sc, LW_TILE)));
    /* the unit tile; a sum over more than one tile folds them through a page
       (lw_emit_reduce); a row cut inside a tile is masked first */
    const vinfo *xr = &L->v[V(L, op->opnds[0])->root];
    const sym_expr *scols = sym_cdiv(L->sc, lw_axis(L, op) == 0 ? xr->ser : xr->sec, sym_const(L->sc, LW_TILE));
    lw_need_support(L, DF_SUP_SCALER, sym_const(L->sc, 1));
    if (op->code != TIR_REDUCE_MAX && !lw_packsum_is_red(L, op))
        lw_need_support(L, DF_SUP_FOLD, lw_positive(L, sym_sub(L->sc, scols, sym_const(L->sc, 1))));
    lw_need_support(L, DF_SUP_IOTA, partial);
    record_passes(L, op, sym_add(L->sc, sym_const(L->sc, lw_axis(L, op) == 0), partial), sn, tf);
    if (valid % LW_TILE) {
        int s = lw_plan_temp(L, op, 1, rows * cols, sn, tf);
        if (s >= 0)
            L->st[s].sind = partial;
    } else {
        lw_plan_virtual(L, op, 1, ARCH_FP32,
                     sym_mul(L->sc, sym_mul(L->sc, sn, partial), sym_const(L->sc, L->a->tile_bytes[ARCH_FP32])),
                     lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    }
}

void lw_emit_reduce(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    if (L->v[r].dest == D_FUSED)
        return; /* taken inside the maximum that reads it (lw_emit_binary) */
    bool is_max = op->code == TIR_REDUCE_MAX;
    int64_t rows, cols, valid;
    const sym_expr *svalid;
    int cb;
    int64_t at;
    if (!reduce_form(L, op, &rows, &cols, &valid, &svalid) ||
        !lw_read_at(K, V(L, op->opnds[0])->root, &cb, &at, op->loc))
        return;
    int tt = -1, tm = -1;
    if (lw_axis(L, op) == 0) {
        /* rows become columns: a 2-D block or a column vector */
        tt = temp_open(K, op, 0, rows * cols);
        lw_transpose(K, cb, at, tt, cols, rows);
        temp_ready(K, tt, rows * cols);
        cb = tt, at = 0;
    }
    if (valid % LW_TILE) {
        tm = temp_open(K, op, 1, rows * cols);
        pred p = {{0, -1}, sym_const(L->sc, valid - 1)};
        lw_mask_stmt(K, cb, at, tm, rows, cols, &p, 1, is_max ? -INFINITY : 0.0);
        temp_ready(K, tm, rows * cols);
        cb = tm, at = 0;
    }
    if (lw_packsum_is_red(L, op)) {
        /* the packer summed each block row's tiles into one page as it
           wrote x: the row reduction of those pages */
        int t = lw_temp(L, op, 2);
        lw_cbop(K, DF_CB_WAIT, t, rows);
        int out = lw_out_open(K, r);
        df_stmt *s = S(K, DF_REDUCE);
        s->sub = DF_RSUM;
        s->cb = t;
        s->at = C(K, 0);
        s->cb_out = out;
        s->rows = C(K, rows);
        s->cols = C(K, 1);
        lw_put(K, s);
        lw_out_close(K, r);
        lw_cbop(K, DF_CB_POP, t, rows);
        return;
    }
    int out = lw_out_open(K, r);
    if (is_max) {
        /* the block row maximum, one op over the row's tiles (the LLK's
           reduce_block_max_row) */
        rowmax_stmt(K, cb, at, rows, cols, -1, 0, out);
    } else {
        df_stmt *s = S(K, DF_REDUCE);
        s->sub = DF_RSUM;
        s->cb = cb;
        s->at = C(K, at);
        s->cb_out = out;
        s->rows = C(K, rows);
        s->cols = C(K, cols);
        /* a sum over several tiles adds them in Dst first (8 cycles a tile
           where the row reduction takes about 98), then reduces one */
        s->fold = cols > 1;
        lw_put(K, s);
    }
    lw_out_close(K, r);
    if (tt >= 0)
        lw_cbop(K, DF_CB_POP, tt, rows * cols);
    if (tm >= 0)
        lw_cbop(K, DF_CB_POP, tm, rows * cols);
}

/* ---- matmul --------------------------------------------------------------- */

/* The output sub-block of a matmul: the schedule's sub.h x sub.w when it
 * fits, else the largest h x w that divides the block and fits Dst. */
static void sub_block(lw *L, int64_t M, int64_t N, int64_t *sh, int64_t *sw)
{
    int64_t h = lw_value_of(L, "sub.h", 0), w = lw_value_of(L, "sub.w", 0);
    if (h >= 1 && w >= 1 && M % h == 0 && N % w == 0 && h * w <= L->dst_cap) {
        *sh = h, *sw = w;
        return;
    }
    *sh = *sw = 1;
    for (int64_t a = 1; a <= M; a++)
        for (int64_t b = 1; b <= N; b++)
            if (M % a == 0 && N % b == 0 && a * b <= L->dst_cap &&
                (a * b > *sh * *sw || (a * b == *sh * *sw && b > *sw)))
                *sh = a, *sw = b;
}

static const df_expr *iv_of(kctx *K, const tir_op *f)
{
    for (int i = K->nivs - 1; i >= 0; i--)
        if (K->ivs[i].iv == f->iv)
            return K->ivs[i].e;
    return C(K, 0);
}

void lw_emit_dot(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    vinfo *rr = &L->v[r];
    const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
    if (a->kind != VK_TILE || b->kind != VK_TILE || a->bc != BC_NONE || b->bc != BC_NONE || a->trans || a->tview ||
        b->tview || a->rank != 2 || b->rank != 2) {
        lw_fail(L, op->loc, "tl.dot of operands that are not 2-D tiles held in CBs");
        return;
    }
    const vinfo *ar = &L->v[a->root], *br = &L->v[b->root];
    int64_t M = ar->tr, Kt = ar->tc, N, Kb;
    if (b->trans)
        N = br->tr, Kb = br->tc;
    else
        N = br->tc, Kb = br->tr;
    if (Kt != Kb || ar->ec % LW_TILE) {
        lw_fail(L, op->loc, "tl.dot over K = %lld elements (K must be a multiple of %d so that no padding is summed)",
             (long long)ar->ec, LW_TILE);
        return;
    }
    int ca, cb;
    int64_t at_a, at_b;
    if (!lw_read_at(K, a->root, &ca, &at_a, op->loc) || !lw_read_at(K, b->root, &cb, &at_b, op->loc))
        return;
    store *s = lw_root_store(L, r);
    const df_expr *acc = C(K, 0);
    if (s->inplace && rr->dest == D_CARRY) {
        acc = s->fill_first ? C(K, 1) : x_min(K, iv_of(K, op->parent->owner), C(K, 1));
    } else if (op->nopnds == 3) {
        const vinfo *ac = V(L, op->opnds[2]);
        if (ac->kind == VK_CONST) {
            if (ac->c != 0.0) {
                int out = lw_out_open(K, r);
                lw_fill(K, out, rr->tr * rr->tc, ac->c);
                rr->reserved = true;
            }
        } else if (ac->kind == VK_TILE && L->v[ac->root].dest == D_DOT && L->v[ac->root].dest_ref == r) {
            acc = C(K, 1); /* the producer wrote straight into our pages */
        } else {
            opnd o;
            if (!lw_get_opnd(K, op->opnds[2], rr, &o, op->loc))
                return;
            if (o.k != O_FULL) {
                lw_fail(L, op->loc, "a broadcast accumulator of tl.dot");
                return;
            }
            int out = lw_out_open(K, r);
            lw_copy(K, o.cb, o.at, out, rr->tr * rr->tc);
            rr->reserved = true;
            acc = C(K, 1);
        }
        if (ac->kind == VK_TILE && L->v[ac->root].dest == D_DOT)
            acc = C(K, 1);
    }
    int out = lw_out_open(K, r);
    rr->reserved = false;
    int64_t sh, sw;
    sub_block(L, M, N, &sh, &sw);
    df_stmt *m = S(K, DF_MATMUL);
    m->cb = ca;
    m->at = C(K, at_a);
    m->cb_b = cb;
    m->at_b = C(K, at_b);
    m->cb_out = out;
    m->m = C(K, M);
    m->k = C(K, Kt);
    m->nn = C(K, N);
    m->sub_h = C(K, sh);
    m->sub_w = C(K, sw);
    m->trans_b = b->trans;
    m->acc = acc;
    lw_put(K, m);
    lw_out_close(K, r);
}
