/* kstmt.c - what the compute kernel's tile ops are made of: their operands
 * (what one is, from the plan, and where it is read), their temporaries
 * (given while planning, looked up while emitting), their outputs, and the
 * tile statements themselves. The ops: kops.c. */
#include "lower/lower_int.h"

#include <string.h>

/* ---- operands ------------------------------------------------------------- */

/* The CB that holds root ri of store s: a pair's next value is in its
 * second CB. */
int lw_store_cb(const store *s, const vinfo *ri) { return ri->rl == R_NEW && s->pair ? s->cb2 : s->cb; }

store *lw_root_store(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return NULL;
    if (ri->dest == D_DOT)
        return &L->st[L->v[ri->dest_ref].st];
    return ri->st >= 0 ? &L->st[ri->st] : NULL;
}

/* Whether the plan keeps a copy of root r that an op can read. */
bool lw_readable(lw *L, int r, lm_loc loc)
{
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return true;
    store *s = lw_root_store(L, r);
    if (!s || ri->dest == D_DOT || ri->dest == D_OUT || (ri->rl == R_NEW && s->inplace)) {
        lw_fail(L, loc, "a value is read where the lowering keeps no readable copy of it");
        return false;
    }
    return true;
}

/* Where root r's pages are read from right now. */
bool lw_read_at(kctx *K, int r, int *cb, int64_t *at, lm_loc loc)
{
    lw *L = K->L;
    if (!lw_readable(L, r, loc))
        return false;
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST) {
        *cb = LW_DST;
        *at = 0;
        return true;
    }
    store *s = lw_root_store(L, r);
    *cb = lw_store_cb(s, ri);
    *at = ri->rl == R_NEW && !s->old_popped && !s->pair ? s->tiles : 0;
    return true;
}

bool lw_opnd_of(lw *L, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc)
{
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
    if (!lw_readable(L, xi->root, loc))
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
    case BC_ROW:
        o->k = O_ROW;
        return true;
    case BC_SCALAR:
        o->k = O_SCALAR;
        return true;
    }
    return false;
}

bool lw_get_opnd(kctx *K, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc)
{
    if (!lw_opnd_of(K->L, x, res, o, loc))
        return false;
    return o->k == O_CONST || lw_read_at(K, V(K->L, x)->root, &o->cb, &o->at, loc);
}

/* ---- temporaries ---------------------------------------------------------- */

/* The op positions through which a temporary of op lives: the op's own, or
 * those of the chain of ops that takes it into Dst (the pops of what a
 * chain reads wait for the chain statement). */
static void temp_span(lw *L, const tir_op *op, int *lo, int *hi)
{
    *lo = *hi = lw_pos(L, op);
    for (int dir = 0; dir < 2; dir++)
        for (const tir_op *p = op;;) {
            int j = L->nchains - 1;
            while (j >= 0 && (dir ? L->chain_from[j] : L->chain_to[j]) != p)
                j--;
            if (j < 0)
                break;
            p = dir ? L->chain_to[j] : L->chain_from[j];
            *lo = LM_MIN(*lo, lw_pos(L, p));
            *hi = LM_MAX(*hi, lw_pos(L, p));
        }
}

/* A CB of earlier temporaries of this format and shape whose lives all end
 * before lo, or -1: temporaries of ops that never overlap share one. */
static int free_temp_cb(lw *L, int64_t tiles, const sym_expr *stiles, arch_format fmt, int lo)
{
    for (int i = 0; i < L->ntmp; i++) {
        const store *c = &L->st[L->tmp[i].st];
        if (c->fmt != fmt || c->tiles != tiles || c->stiles != stiles)
            continue;
        bool free = true;
        for (int j = 0; j < L->ntmp && free; j++)
            free = L->st[L->tmp[j].st].cb != c->cb || L->tmp[j].hi < lo;
        if (free)
            return c->cb;
    }
    return -1;
}

/* Temporary k of op: its store and CB, given once by the planning walk
 * (lw_plan_temps), in the order the compute kernel first asks for them;
 * the store's index, or -1 after reporting. */
int lw_plan_temp(lw *L, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles, arch_format fmt)
{
    return lw_plan_temp_from(L, op, op, k, tiles, stiles, fmt);
}

/* Temporary k of op that lives from op `from` (earlier, or op itself) on:
 * written there, read by op. */
int lw_plan_temp_from(lw *L, const tir_op *from, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles,
                      arch_format fmt)
{
    for (int i = 0; i < L->ntmp; i++)
        if (L->tmp[i].op == op && L->tmp[i].k == k)
            return L->tmp[i].st;
    if (L->ntmp == LW_MAX_TEMPS) {
        lw_fail(L, op->loc, "too many temporary buffers");
        return -1;
    }
    int lo, hi, flo, fhi;
    temp_span(L, op, &lo, &hi);
    temp_span(L, from, &flo, &fhi);
    lo = LM_MIN(lo, flo);
    int cb = free_temp_cb(L, tiles, stiles, fmt, lo);
    int s = lw_new_store(L, ST_TEMP, tiles, tiles, fmt, op->loc);
    lw_store_sym(L, s, stiles, NULL, lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    L->st[s].cb = cb >= 0 ? cb : lw_next_cb(L, op->loc);
    L->tmp[L->ntmp++] = (temp){op, k, s, lo, hi};
    return s;
}

/* The CB of temporary k of op, the same in every class. */
int lw_temp(lw *L, const tir_op *op, int k)
{
    for (int i = 0; i < L->ntmp; i++)
        if (L->tmp[i].op == op && L->tmp[i].k == k)
            return L->st[L->tmp[i].st].cb;
    LM_BUG("temporary %d of the op of line %d was not planned", k, op->loc.line);
}

/* A constant as a one-tile operand, filled into temporary k of op. */
void lw_plan_const_tile(lw *L, const tir_op *op, int k)
{
    lw_plan_temp(L, op, k, 1, sym_const(L->sc, 1), lw_interm_format(L));
}

void lw_const_tile(kctx *K, const tir_op *op, int k, double c, opnd *o)
{
    int cb = lw_temp(K->L, op, k);
    lw_cbop(K, DF_CB_RESERVE, cb, 1);
    lw_fill(K, cb, 1, c);
    lw_cbop(K, DF_CB_PUSH, cb, 1);
    lw_cbop(K, DF_CB_WAIT, cb, 1);
    o->k = O_SCALAR;
    o->cb = cb;
    o->at = 0;
    o->tiles = 1;
}

void lw_end_temp(kctx *K, const opnd *o, bool was_temp)
{
    if (was_temp)
        lw_cbop(K, DF_CB_POP, o->cb, o->tiles);
}

/* ---- outputs -------------------------------------------------------------- */

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
            lw_cbop(K, DF_CB_RESERVE, lw_store_cb(ts, t), ts->tiles);
        t->reserved = true;
        return lw_store_cb(ts, t);
    }
    if (!(ri->dest == D_CARRY && s->inplace) && !ri->reserved)
        lw_cbop(K, DF_CB_RESERVE, lw_store_cb(s, ri), s->tiles);
    const tir_op *red = lw_packsum_red(L, L->def[r]);
    if (red) {
        /* its block rows' sums too, packed by the statement writing it */
        K->sum_on = true;
        K->sum_cb = lw_temp(L, red, 2);
        K->sum_out = lw_store_cb(s, ri);
        K->sum_rows = ri->tr;
        K->sum_cols = ri->tc;
        lw_cbop(K, DF_CB_RESERVE, K->sum_cb, ri->tr);
    }
    return lw_store_cb(s, ri);
}

void lw_out_close(kctx *K, int r)
{
    lw *L = K->L;
    vinfo *ri = &L->v[r];
    store *s = lw_root_store(L, r);
    if (ri->dest == D_DST || ri->dest == D_DOT || (ri->dest == D_CARRY && s->inplace))
        return;
    lw_cbop(K, DF_CB_PUSH, lw_store_cb(s, ri), s->tiles);
    const tir_op *red = lw_packsum_red(L, L->def[r]);
    if (red) {
        if (K->sum_on)
            LM_BUG("the row sums of line %d were not packed", red->loc.line);
        lw_cbop(K, DF_CB_PUSH, lw_temp(L, red, 2), ri->tr);
    }
}

/* ---- tile statements ------------------------------------------------------ */
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

df_bcast lw_bc_of(okind k)
{
    return k == O_COL ? DF_BC_COL : k == O_ROW ? DF_BC_ROW : k == O_SCALAR ? DF_BC_SCALAR : DF_BC_NONE;
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
