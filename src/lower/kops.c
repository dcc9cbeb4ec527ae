/* kops.c - the tile ops of the compute kernel: their operands, outputs and
 * temporaries and the tile statements they are made of, then arithmetic,
 * comparisons, selects, unary ops, reductions, masks and matmul. */
#include "lower/lower_int.h"

#include <math.h>
#include <string.h>

/* ---- operands, outputs, temporaries and tile statements ------------------- */

store *lw_root_store(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return NULL;
    if (ri->dest == D_DOT)
        return &L->st[L->v[ri->dest_ref].st];
    return ri->st >= 0 ? &L->st[ri->st] : NULL;
}

/* Where root r's pages are read from right now. */
bool lw_read_at(kctx *K, int r, int *cb, int64_t *at, lm_loc loc)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST) {
        *cb = LW_DST;
        *at = 0;
        return true;
    }
    store *s = lw_root_store(L, r);
    if (!s || ri->dest == D_DOT || ri->dest == D_OUT || (ri->rl == R_NEW && s->inplace)) {
        lw_fail(L, loc, "a value is read where the lowering keeps no readable copy of it");
        return false;
    }
    *cb = s->cb;
    *at = ri->rl == R_NEW && !s->old_popped ? s->tiles : 0;
    return true;
}

bool lw_get_opnd(kctx *K, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc)
{
    lw *L = K->L;
    const vinfo *xi = V(L, x);
    memset(o, 0, sizeof *o);
    if (xi->kind == VK_CONST) {
        o->k = O_CONST;
        o->c = xi->c;
        return true;
    }
    if (xi->kind != VK_TILE || xi->trans || xi->tview) {
        lw_fail(L, loc, "an operand the tile ops cannot read (a transposed or row view of a vector)");
        return false;
    }
    if (!lw_read_at(K, xi->root, &o->cb, &o->at, loc))
        return false;
    const vinfo *ri = &L->v[xi->root];
    o->tiles = ri->tr * ri->tc;
    o->stiles = lw_vtiles(L, ri);
    switch (xi->bc) {
    case BC_NONE:
        if (res && (ri->tr != res->tr || ri->tc != res->tc)) {
            lw_fail(L, loc, "operand of %lldx%lld tiles in an op on %lldx%lld tiles", (long long)ri->tr,
                 (long long)ri->tc, (long long)res->tr, (long long)res->tc);
            return false;
        }
        o->k = O_FULL;
        return true;
    case BC_COL:
        o->k = O_COL;
        return true;
    case BC_SCALAR:
        o->k = O_SCALAR;
        return true;
    }
    return false;
}

/* A temporary CB for step k of an op, the same in every class. */
int lw_temp_cb(kctx *K, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles, arch_format fmt)
{
    lw *L = K->L;
    for (int i = 0; i < L->ntmp; i++)
        if (L->tmp[i].op == op && L->tmp[i].k == k)
            return L->st[L->tmp[i].st].cb;
    if (L->ntmp == LW_MAX_TEMPS) {
        lw_fail(L, op->loc, "too many temporary buffers");
        return 0;
    }
    int s = lw_new_store(L, ST_TEMP, tiles, tiles, fmt, op->loc);
    lw_store_sym(L, s, stiles, NULL, lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    L->st[s].cb = lw_next_cb(L, op->loc);
    L->tmp[L->ntmp++] = (temp){op, k, s};
    return L->st[s].cb;
}

/* Begin writing root r: the CB and page offset it goes to (reserving). */
int lw_out_open(kctx *K, int r)
{
    lw *L = K->L;
    vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return LW_DST;
    store *s = lw_root_store(L, r);
    if (ri->dest == D_DOT) {
        vinfo *t = &L->v[ri->dest_ref];
        store *ts = &L->st[t->st];
        if (!ts->inplace)
            lw_cbop(K, DF_CB_RESERVE, ts->cb, ts->tiles);
        t->reserved = true;
        return ts->cb;
    }
    if (!(ri->dest == D_CARRY && s->inplace) && !ri->reserved)
        lw_cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
    return s->cb;
}

void lw_out_close(kctx *K, int r)
{
    lw *L = K->L;
    vinfo *ri = &L->v[r];
    store *s = lw_root_store(L, r);
    if (ri->dest == D_DST || ri->dest == D_DOT || (ri->dest == D_CARRY && s->inplace))
        return;
    lw_cbop(K, DF_CB_PUSH, s->cb, s->tiles);
}

df_stmt *lw_elt(kctx *K, df_eltop op, int a, int64_t at, int b, int64_t at_b, df_bcast bc, int out, int64_t rows,
                int64_t cols)
{
    df_stmt *s = S(K, DF_ELTWISE);
    s->sub = op;
    s->cb = a;
    s->at = C(K, at);
    s->cb_b = b;
    s->at_b = C(K, at_b);
    s->bcast = bc;
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    lw_put(K, s);
    return s;
}

df_stmt *lw_sfpu(kctx *K, df_sfpuop op, int a, int64_t at, int out, int64_t n, double scalar)
{
    df_stmt *s = S(K, DF_SFPU);
    s->sub = op;
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->n = C(K, n);
    s->scalar = scalar;
    lw_put(K, s);
    return s;
}

void lw_fill(kctx *K, int out, int64_t n, double c)
{
    df_stmt *s = S(K, DF_FILL);
    s->cb_out = out;
    s->n = C(K, n);
    s->scalar = c;
    lw_put(K, s);
}

void lw_copy(kctx *K, int a, int64_t at, int out, int64_t n)
{
    df_stmt *s = S(K, DF_COPY);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->n = C(K, n);
    lw_put(K, s);
}

/* A block of rows x cols tiles transposed (each tile, and their order). */
void lw_transpose(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols)
{
    df_stmt *s = S(K, DF_TRANSPOSE);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    lw_put(K, s);
}

df_bcast lw_bc_of(okind k) { return k == O_COL ? DF_BC_COL : k == O_SCALAR ? DF_BC_SCALAR : DF_BC_NONE; }

/* A constant as a one-tile operand: filled into a temporary CB. */
void lw_const_tile(kctx *K, const tir_op *op, int k, double c, opnd *o)
{
    int cb = lw_temp_cb(K, op, k, 1, sym_const(K->L->sc, 1), lw_interm_format(K->L));
    lw_cbop(K, DF_CB_RESERVE, cb, 1);
    lw_fill(K, cb, 1, c);
    lw_cbop(K, DF_CB_PUSH, cb, 1);
    lw_cbop(K, DF_CB_WAIT, cb, 1);
    o->k = O_SCALAR;
    o->cb = cb;
    o->at = 0;
    o->tiles = 1;
    o->stiles = sym_const(K->L->sc, 1);
}

void lw_end_temp(kctx *K, const opnd *o, bool was_temp)
{
    if (was_temp)
        lw_cbop(K, DF_CB_POP, o->cb, o->tiles);
}

/* ---- the tile ops --------------------------------------------------------- */

/* a (code) b into the reserved pages of `out`, rows x cols tiles; the
 * temporaries of this step are op's k0 and k0 + 1. False after reporting. */
static bool binop(kctx *K, const tir_op *op, int k0, tir_opcode code, opnd a, opnd b, int64_t rows, int64_t cols,
                  const sym_expr *sT, int out)
{
    lw *L = K->L;
    if (code == TIR_MIN) {
        lw_fail(L, op->loc, "tl.minimum of tiles (the tile ops have max only)");
        return false;
    }
    bool comm = code == TIR_ADD || code == TIR_MUL || code == TIR_MAX;
    if (a.k != O_FULL && b.k == O_FULL && comm) {
        opnd t = a;
        a = b;
        b = t;
    }
    int64_t T = rows * cols;
    arch_format tf = lw_interm_format(L);
    /* x * c, x / c: the SFPU scales */
    if (a.k == O_FULL && b.k == O_CONST && (code == TIR_MUL || code == TIR_DIV)) {
        lw_sfpu(K, DF_SCALE, a.cb, a.at, out, T, code == TIR_MUL ? b.c : 1.0 / b.c);
        return true;
    }
    if (a.k == O_FULL && code == TIR_DIV) {
        /* x / y = x * (1/y), the reciprocal taken once over y's own tiles */
        int t = lw_temp_cb(K, op, k0, b.tiles, b.stiles, tf);
        lw_cbop(K, DF_CB_RESERVE, t, b.tiles);
        lw_sfpu(K, DF_RECIP, b.cb, b.at, t, b.tiles, 1);
        lw_cbop(K, DF_CB_PUSH, t, b.tiles);
        lw_cbop(K, DF_CB_WAIT, t, b.tiles);
        lw_elt(K, DF_MUL, a.cb, a.at, t, 0, lw_bc_of(b.k), out, rows, cols);
        lw_cbop(K, DF_CB_POP, t, b.tiles);
        return true;
    }
    if (a.k == O_CONST && b.k == O_FULL && code == TIR_DIV) {
        /* c / y */
        if (a.c == 1.0) {
            lw_sfpu(K, DF_RECIP, b.cb, b.at, out, T, 1);
        } else {
            int t = lw_temp_cb(K, op, k0, T, sT, tf);
            lw_cbop(K, DF_CB_RESERVE, t, T);
            lw_sfpu(K, DF_RECIP, b.cb, b.at, t, T, 1);
            lw_cbop(K, DF_CB_PUSH, t, T);
            lw_cbop(K, DF_CB_WAIT, t, T);
            lw_sfpu(K, DF_SCALE, t, 0, out, T, a.c);
            lw_cbop(K, DF_CB_POP, t, T);
        }
        return true;
    }
    if (a.k == O_CONST && b.k == O_FULL && code == TIR_SUB) {
        /* c - y = (-y) + c */
        int t = lw_temp_cb(K, op, k0, T, sT, tf);
        lw_cbop(K, DF_CB_RESERVE, t, T);
        lw_sfpu(K, DF_NEG, b.cb, b.at, t, T, 1);
        lw_cbop(K, DF_CB_PUSH, t, T);
        lw_cbop(K, DF_CB_WAIT, t, T);
        opnd c;
        lw_const_tile(K, op, k0 + 1, a.c, &c);
        lw_elt(K, DF_ADD, t, 0, c.cb, 0, DF_BC_SCALAR, out, rows, cols);
        lw_cbop(K, DF_CB_POP, t, T);
        lw_end_temp(K, &c, true);
        return true;
    }
    df_eltop eo = code == TIR_ADD ? DF_ADD : code == TIR_SUB ? DF_SUB : code == TIR_MUL ? DF_MUL : DF_MAXOP;
    if (code != TIR_ADD && code != TIR_SUB && code != TIR_MUL && code != TIR_MAX) {
        lw_fail(L, op->loc, "'%s' of these operands has no tile op", tir_op_name(code));
        return false;
    }
    if (a.k == O_FULL) {
        bool ct = b.k == O_CONST;
        if (ct)
            lw_const_tile(K, op, k0 + 1, b.c, &b);
        lw_elt(K, eo, a.cb, a.at, b.cb, b.at, lw_bc_of(b.k), out, rows, cols);
        lw_end_temp(K, &b, ct);
        return true;
    }
    if (b.k == O_FULL && code == TIR_SUB && (a.k == O_COL || a.k == O_SCALAR)) {
        /* v - x = -(x - v) */
        int t = lw_temp_cb(K, op, k0, T, sT, tf);
        lw_cbop(K, DF_CB_RESERVE, t, T);
        lw_elt(K, DF_SUB, b.cb, b.at, a.cb, a.at, lw_bc_of(a.k), t, rows, cols);
        lw_cbop(K, DF_CB_PUSH, t, T);
        lw_cbop(K, DF_CB_WAIT, t, T);
        lw_sfpu(K, DF_NEG, t, 0, out, T, 1);
        lw_cbop(K, DF_CB_POP, t, T);
        return true;
    }
    lw_fail(L, op->loc, "'%s' of two broadcast operands", tir_op_name(code));
    return false;
}


void lw_emit_binary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    if (!lw_get_opnd(K, op->opnds[0], rr, &a, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &b, op->loc))
        return;
    int out = lw_out_open(K, r);
    binop(K, op, 0, op->code, a, b, rr->tr, rr->tc, lw_vtiles(L, rr), out);
    lw_out_close(K, r);
}

/* A temporary of n tiles made by `fn`... the three steps of every temp. */
static int temp_open(kctx *K, const tir_op *op, int k, int64_t n, const sym_expr *sn)
{
    int t = lw_temp_cb(K, op, k, n, sn, lw_interm_format(K->L));
    lw_cbop(K, DF_CB_RESERVE, t, n);
    return t;
}

static opnd temp_ready(kctx *K, int t, int64_t n, const sym_expr *sn)
{
    lw_cbop(K, DF_CB_PUSH, t, n);
    lw_cbop(K, DF_CB_WAIT, t, n);
    return (opnd){O_FULL, 0, t, 0, n, sn};
}

/* A comparison of data: 1.0 where it holds, 0.0 elsewhere (the SFPU's
 * comparisons with zero, after a subtraction). */
void lw_emit_cmp(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    if (!lw_get_opnd(K, op->opnds[0], rr, &a, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &b, op->loc))
        return;
    tir_opcode code = op->code;
    if (a.k != O_FULL && b.k == O_FULL) {
        /* c < y  <=>  y > c */
        opnd t = a;
        a = b;
        b = t;
        code = code == TIR_CMP_LT ? TIR_CMP_GT : code == TIR_CMP_GT ? TIR_CMP_LT : code == TIR_CMP_LE ? TIR_CMP_GE
               : code == TIR_CMP_GE ? TIR_CMP_LE : code;
    }
    if (a.k != O_FULL) {
        lw_fail(L, op->loc, "a comparison of two broadcast values");
        return;
    }
    df_sfpuop so = code == TIR_CMP_GT ? DF_GTZ : code == TIR_CMP_GE ? DF_GEZ : code == TIR_CMP_LT ? DF_LTZ
                   : code == TIR_CMP_LE ? DF_LEZ : code == TIR_CMP_EQ ? DF_EQZ : DF_NEZ;
    int64_t T = rr->tr * rr->tc;
    const sym_expr *sT = lw_vtiles(L, rr);
    bool diff = !(b.k == O_CONST && b.c == 0.0);
    opnd d = a;
    if (diff) {
        int t = temp_open(K, op, 0, T, sT);
        if (!binop(K, op, 1, TIR_SUB, a, b, rr->tr, rr->tc, sT, t))
            return;
        d = temp_ready(K, t, T, sT);
    }
    int out = lw_out_open(K, r);
    lw_sfpu(K, so, d.cb, d.at, out, T, 1);
    lw_out_close(K, r);
    if (diff)
        lw_cbop(K, DF_CB_POP, d.cb, T);
}

/* where(c, x, y) on a condition computed from data: y + c * (x - y). */
static void emit_select(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd c, x, y;
    if (!lw_get_opnd(K, op->opnds[0], rr, &c, op->loc) || !lw_get_opnd(K, op->opnds[1], rr, &x, op->loc) ||
        !lw_get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    if ((x.k == O_CONST && !isfinite(x.c)) || (y.k == O_CONST && !isfinite(y.c))) {
        lw_fail(L, op->loc, "tl.where on data with an infinite value (it is computed as y + c*(x - y))");
        return;
    }
    int64_t rows = rr->tr, cols = rr->tc, T = rows * cols;
    const sym_expr *sT = lw_vtiles(L, rr);
    int t1 = temp_open(K, op, 0, T, sT);
    if (x.k == O_CONST && y.k == O_CONST) {
        lw_fill(K, t1, T, x.c - y.c);
    } else if (!binop(K, op, 1, TIR_SUB, x, y, rows, cols, sT, t1)) {
        return;
    }
    opnd d = temp_ready(K, t1, T, sT);
    int t2 = temp_open(K, op, 3, T, sT);
    if (!binop(K, op, 4, TIR_MUL, c, d, rows, cols, sT, t2))
        return;
    opnd e = temp_ready(K, t2, T, sT);
    int out = lw_out_open(K, r);
    binop(K, op, 6, TIR_ADD, e, y, rows, cols, sT, out);
    lw_out_close(K, r);
    lw_cbop(K, DF_CB_POP, t1, T);
    lw_cbop(K, DF_CB_POP, t2, T);
}

void lw_emit_unary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    const vinfo *xi = V(L, op->opnds[0]);
    if (xi->kind != VK_TILE || xi->trans || xi->tview) {
        lw_fail(L, op->loc, "'%s' of an operand the tile ops cannot read", tir_op_name(op->code));
        return;
    }
    int cb;
    int64_t at;
    if (!lw_read_at(K, xi->root, &cb, &at, op->loc))
        return;
    int64_t T = rr->tr * rr->tc;
    if (op->code == TIR_CAST) {
        int out = lw_out_open(K, r);
        lw_copy(K, cb, at, out, T);
        lw_out_close(K, r);
        return;
    }
    if (op->code == TIR_LOG2) {
        /* log2(x) = ln(x) / ln(2) */
        int t = lw_temp_cb(K, op, 0, T, lw_vtiles(L, rr), lw_interm_format(L));
        lw_cbop(K, DF_CB_RESERVE, t, T);
        lw_sfpu(K, DF_LOG, cb, at, t, T, 1);
        lw_cbop(K, DF_CB_PUSH, t, T);
        lw_cbop(K, DF_CB_WAIT, t, T);
        int out = lw_out_open(K, r);
        lw_sfpu(K, DF_SCALE, t, 0, out, T, 1.0 / log(2.0));
        lw_out_close(K, r);
        lw_cbop(K, DF_CB_POP, t, T);
        return;
    }
    df_sfpuop so;
    switch (op->code) {
    case TIR_EXP: so = DF_EXP; break;
    case TIR_EXP2: so = DF_EXP2; break;
    case TIR_LOG: so = DF_LOG; break;
    case TIR_NEG: so = DF_NEG; break;
    case TIR_SQRT: so = DF_SQRT; break;
    case TIR_RSQRT: so = DF_RSQRT; break;
    case TIR_SIGMOID: so = DF_SIGMOID; break;
    default:
        lw_fail(L, op->loc, "'%s' has no SFPU op", tir_op_name(op->code));
        return;
    }
    int out = lw_out_open(K, r);
    lw_sfpu(K, so, cb, at, out, T, 1);
    lw_out_close(K, r);
}


/* Reductions become row reductions: along axis 0 the block is transposed
 * first (transpose_wh), and columns past the value's extent - padding or
 * whatever the pages held - are masked to the reduction's identity. */
void lw_emit_reduce(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *xi = V(L, op->opnds[0]);
    bool is_max = op->code == TIR_REDUCE_MAX;
    int axis = lw_axis(L, op);
    if (op->code == TIR_REDUCE_MIN || xi->kind != VK_TILE || xi->bc != BC_NONE || xi->trans || xi->tview ||
        (axis == 0 && op->keep_dims && xi->rank == 2) || axis > 1 || xi->rank == 0) {
        lw_fail(L, op->loc, "'%s' along axis %lld of this value has no tile op", tir_op_name(op->code),
             (long long)op->ival);
        return;
    }
    int cb;
    int64_t at;
    if (!lw_read_at(K, xi->root, &cb, &at, op->loc))
        return;
    const vinfo *xr = &L->v[xi->root];
    int64_t rows = xr->tr, cols = xr->tc, valid = xr->ec;
    const sym_expr *sn = lw_vtiles(L, xr), *svalid = xr->sec;
    int tt = -1, tm = -1;
    if (axis == 0) {
        /* rows become columns: a 2-D block or a column vector */
        tt = temp_open(K, op, 0, rows * cols, sn);
        lw_transpose(K, cb, at, tt, rows, cols);
        temp_ready(K, tt, rows * cols, sn);
        int64_t t = rows;
        rows = cols, cols = t;
        valid = xr->er;
        svalid = xr->ser;
        cb = tt, at = 0;
    }
    /* the masked copy exists where the reduced extent is not whole tiles */
    const sym_expr *partial = lw_positive(L, sym_mod(L->sc, svalid, sym_const(L->sc, LW_TILE)));
    if (valid % LW_TILE) {
        tm = temp_open(K, op, 1, rows * cols, sn);
        for (int i = 0; i < L->ntmp; i++)
            if (L->tmp[i].op == op && L->tmp[i].k == 1)
                L->st[L->tmp[i].st].sind = partial;
        pred p = {{0, -1}, sym_const(L->sc, valid - 1)};
        lw_mask_stmt(K, cb, at, tm, rows, cols, &p, 1, is_max ? -INFINITY : 0.0);
        temp_ready(K, tm, rows * cols, sn);
        cb = tm, at = 0;
    } else {
        lw_plan_virtual(L, op, 1, ARCH_FP32,
                     sym_mul(L->sc, sym_mul(L->sc, sn, partial), sym_const(L->sc, L->a->tile_bytes[ARCH_FP32])),
                     lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    }
    int out = lw_out_open(K, r);
    df_stmt *s = S(K, DF_REDUCE);
    s->sub = is_max ? DF_RMAX : DF_RSUM;
    s->cb = cb;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    /* a sum over several tiles adds them in Dst first (8 cycles a tile
       where the row reduction takes about 98), then reduces one */
    s->fold = !is_max && cols > 1;
    lw_put(K, s);
    lw_out_close(K, r);
    if (tt >= 0)
        lw_cbop(K, DF_CB_POP, tt, rows * cols);
    if (tm >= 0)
        lw_cbop(K, DF_CB_POP, tm, rows * cols);
}

void lw_mask_stmt(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols, const pred *p, int np,
                  double scalar)
{
    df_stmt *s = S(K, DF_MASK);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    s->scalar = scalar;
    if (np >= 1) {
        s->p1r = C(K, p[0].c[0]);
        s->p1c = C(K, p[0].c[1]);
        s->p1k = lw_xs(K, p[0].k);
    }
    if (np >= 2) {
        s->p2r = C(K, p[1].c[0]);
        s->p2c = C(K, p[1].c[1]);
        s->p2k = lw_xs(K, p[1].k);
    }
    lw_put(K, s);
}

void lw_emit_where(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    const vinfo *m = V(L, op->opnds[0]);
    if (m->kind == VK_TILE) {
        emit_select(K, op);
        return;
    }
    if (m->kind != VK_MASK) {
        lw_fail(L, op->loc, "tl.where on a condition the lowering cannot follow");
        return;
    }
    opnd x, y;
    if (!lw_get_opnd(K, op->opnds[1], rr, &x, op->loc) || !lw_get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    pred p[LW_MAX_PRED];
    int np = m->np;
    memcpy(p, m->p, sizeof p);
    opnd keep = x;
    double other;
    int filled = -1;
    int64_t T0 = rr->tr * rr->tc;
    if (x.k == O_CONST && y.k == O_CONST) {
        /* a tile of two constants: filled with one, masked to the other */
        filled = temp_open(K, op, 2, T0, lw_vtiles(L, rr));
        lw_fill(K, filled, T0, x.c);
        keep = temp_ready(K, filled, T0, lw_vtiles(L, rr));
        x = keep;
    }
    if (x.k == O_FULL && y.k == O_CONST) {
        other = y.c;
    } else if (x.k == O_CONST && y.k == O_FULL && np == 1) {
        keep = y;
        other = x.c;
        p[0].c[0] = -p[0].c[0];
        p[0].c[1] = -p[0].c[1];
        p[0].k = sym_sub(L->sc, sym_neg(L->sc, p[0].k), sym_const(L->sc, 1));
    } else {
        lw_fail(L, op->loc, "tl.where other than (mask, tile, constant) - the 'mask' op replaces by a constant");
        return;
    }
    if (np > 4) {
        lw_fail(L, op->loc, "a mask of more than 4 comparisons");
        return;
    }
    int64_t T = rr->tr * rr->tc;
    if (np <= 2) {
        int out = lw_out_open(K, r);
        lw_mask_stmt(K, keep.cb, keep.at, out, rr->tr, rr->tc, p, np, other);
        lw_out_close(K, r);
        if (filled >= 0)
            lw_cbop(K, DF_CB_POP, filled, T);
        return;
    }
    int t = lw_temp_cb(K, op, 0, T, lw_vtiles(L, rr), rr->fmt);
    lw_cbop(K, DF_CB_RESERVE, t, T);
    lw_mask_stmt(K, keep.cb, keep.at, t, rr->tr, rr->tc, p, 2, other);
    lw_cbop(K, DF_CB_PUSH, t, T);
    lw_cbop(K, DF_CB_WAIT, t, T);
    int out = lw_out_open(K, r);
    lw_mask_stmt(K, t, 0, out, rr->tr, rr->tc, p + 2, np - 2, other);
    lw_out_close(K, r);
    lw_cbop(K, DF_CB_POP, t, T);
    if (filled >= 0)
        lw_cbop(K, DF_CB_POP, filled, T);
}

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
