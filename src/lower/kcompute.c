/* kcompute.c - the compute kernel: waits and pops, loops and yields,
 * stores, and the op-by-op walk (the tile ops and their operands: kops.c). */
#include "lower/lower_int.h"

#include <string.h>

/* ======================================================================
 * Compute kernel
 * ==================================================================== */

/* Roots read by the compute kernel, waited for and popped by it. */
static bool c_waits(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    if (ri->kind != VK_TILE || ri->root != r)
        return false;
    store *s = lw_root_store(L, r);
    if (!s || ri->dest == D_DOT || ri->dest == D_OUT || ri->dest == D_DST || ri->dest == D_FUSED)
        return false;
    if ((ri->rl == R_NEW || ri->rl == R_OLD) && s->inplace)
        return false; /* accumulated in reserved pages, pushed after the loop */
    if (ri->rl == R_RESULT && s->writer_pops)
        return false;
    return true;
}

static void c_wait(kctx *K, int r)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    store *s = lw_root_store(L, r);
    int64_t n = s->tiles;
    if (ri->rl == R_NEW && !s->old_popped && !s->pair)
        n = 2 * s->tiles;
    lw_cbop(K, DF_CB_WAIT, lw_store_cb(s, ri), n);
}

static void c_pop(kctx *K, int r)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    if (ri->rl == R_NEW)
        return; /* the next iteration's value */
    store *s = lw_root_store(L, r);
    lw_cbop(K, DF_CB_POP, s->cb, s->tiles);
    if (ri->rl == R_OLD)
        s->old_popped = true;
}


static void emit_cfor(kctx *K, const tir_op *f)
{
    lw *L = K->L;
    int n = tir_for_ncarried(f);
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        lw_cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
        if (s->inplace) {
            if (s->fill_first)
                lw_fill(K, s->cb, s->tiles, 0);
            continue;
        }
        const vinfo *in = V(L, tir_for_init(f, i));
        if (in->kind == VK_CONST) {
            lw_fill(K, s->cb, s->tiles, lw_dom_const(ai, in->c));
        } else {
            opnd o;
            if (!lw_get_opnd(K, tir_for_init(f, i), ai, &o, f->loc))
                return;
            if (o.k != O_FULL) {
                lw_fail(L, f->loc, "a broadcast initial value of a loop-carried tile");
                return;
            }
            lw_copy(K, o.cb, o.at, s->cb, s->tiles);
        }
        lw_cbop(K, DF_CB_PUSH, s->cb, s->tiles);
    }
    df_stmt *saved;
    int nivs = K->nivs;
    if (!lw_open_ir_loop(K, f, &saved))
        return;
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind == VK_TILE)
            L->st[ai->st].old_popped = false;
    }
    lw_emit_cblock(K, f->regions[0]);
    lw_close_for(K, saved);
    K->nivs = nivs;
    lw_emit_dead_trips(K, f);
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind == VK_TILE && L->st[ai->st].inplace)
            lw_cbop(K, DF_CB_PUSH, L->st[ai->st].cb, L->st[ai->st].tiles);
    }
}

static void emit_yield(kctx *K, const tir_op *y)
{
    lw *L = K->L;
    const tir_op *f = y->parent->owner;
    if (!f || f->code != TIR_FOR)
        return;
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i);
        const vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        const tir_value *yv = y->opnds[i];
        const vinfo *yi = V(L, yv);
        if (s->inplace || yv == arg)
            continue;
        if (yi->kind == VK_TILE && L->v[yi->root].st == ai->st && L->v[yi->root].rl == R_NEW)
            continue;
        /* lw_copy (or fill) the yielded value in behind the old one */
        lw_cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
        if (yi->kind == VK_CONST) {
            lw_fill(K, s->cb, s->tiles, lw_dom_const(ai, yi->c));
        } else {
            opnd o;
            if (!lw_get_opnd(K, yv, ai, &o, y->loc))
                return;
            if (o.k != O_FULL) {
                lw_fail(L, y->loc, "a broadcast yielded as a loop-carried tile");
                return;
            }
            lw_copy(K, o.cb, o.at, s->cb, s->tiles);
        }
        lw_cbop(K, DF_CB_PUSH, s->cb, s->tiles);
    }
}

static void end_of_body(kctx *K, const tir_op *f)
{
    lw *L = K->L;
    const tir_op *y = tir_yield_of(f->regions[0]);
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i);
        const vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        if (!s->inplace && y->opnds[i] != arg && !s->old_popped) {
            lw_cbop(K, DF_CB_POP, s->cb, s->tiles);
            s->old_popped = true;
        }
        if (s->pair) {
            /* the next value becomes the current one */
            df_stmt *sw = S(K, DF_CB_SWAP);
            sw->cb = s->cb;
            sw->cb_b = s->cb2;
            lw_put(K, sw);
        }
    }
}

/* `x[:, None]` of a row vector (classify.c makes it a root): the row's
 * tiles transposed into a column. */
static void emit_turn(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    const vinfo *xi = V(L, op->opnds[0]);
    int cb;
    int64_t at;
    if (!lw_read_at(K, xi->root, &cb, &at, op->loc))
        return;
    const vinfo *xr = &L->v[xi->root];
    int r = V(L, op->results[0])->root;
    int out = lw_out_open(K, r);
    lw_transpose(K, cb, at, out, xr->tr, xr->tc);
    lw_out_close(K, r);
}

static void emit_cstore(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int i = lw_access_of(L, op);
    if (i < 0)
        return;
    access *x = &L->ax[i];
    if (!x->copy_in)
        return;
    const tir_value *val = op->opnds[1];
    const vinfo *vi = V(L, val);
    lw_cbop(K, DF_CB_RESERVE, x->cb, x->tiles);
    if (vi->kind == VK_CONST) {
        lw_fill(K, x->cb, x->tiles, vi->c);
    } else if (vi->kind == VK_TILE && lw_store_turns(vi, x)) {
        int cb;
        int64_t at;
        if (!lw_read_at(K, vi->root, &cb, &at, op->loc))
            return;
        lw_transpose(K, cb, at, x->cb, L->v[vi->root].tr, 1);
    } else {
        opnd o;
        if (!lw_get_opnd(K, val, NULL, &o, op->loc))
            return;
        if (o.k != O_FULL || o.tiles != x->tiles) {
            lw_fail(L, op->loc, "the stored value (%lld tiles) does not match the block (%lld tiles)",
                 (long long)o.tiles, (long long)x->tiles);
            return;
        }
        lw_copy(K, o.cb, o.at, x->cb, x->tiles);
    }
    lw_cbop(K, DF_CB_PUSH, x->cb, x->tiles);
}

/* A load cut short by a boundary check: its pages past the extent hold
 * what they held before, so the values are copied with those elements set
 * to zero (the padding the kernel asked for) before anything reads them. */
static void emit_clean(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int i = lw_access_of(L, op);
    if (i < 0 || !L->ax[i].clean)
        return;
    const access *x = &L->ax[i];
    pred p[2];
    int np = 0;
    if (x->clip_rows)
        p[np++] = (pred){{-1, 0}, sym_sub(L->sc, x->clip_rows, sym_const(L->sc, 1))};
    if (x->clip_cols)
        p[np++] = (pred){{0, -1}, sym_sub(L->sc, x->clip_cols, sym_const(L->sc, 1))};
    int out = L->st[x->clean].cb;
    lw_cbop(K, DF_CB_WAIT, x->cb, x->tiles);
    lw_cbop(K, DF_CB_RESERVE, out, x->tiles);
    lw_mask_stmt(K, x->cb, 0, out, x->tr, x->tc, p, np, 0.0);
    lw_cbop(K, DF_CB_PUSH, out, x->tiles);
    lw_cbop(K, DF_CB_POP, x->cb, x->tiles);
}

/* What the compute kernel does with an op that makes a root tile. */
typedef enum cop { COP_NONE, COP_BINARY, COP_UNARY, COP_REDUCE, COP_TURN, COP_WHERE, COP_CMP, COP_DOT, COP_CLEAN,
                   COP_UNKNOWN } cop;

static cop cop_of(lw *L, const tir_op *op)
{
    if (op->nresults != 1)
        return COP_NONE;
    const vinfo *ri = V(L, op->results[0]);
    if (ri->kind != VK_TILE || ri->root != op->results[0]->uid)
        return COP_NONE; /* constants, index tiles, aliases, loads */
    switch (op->code) {
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_MIN:
        return COP_BINARY;
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
    case TIR_SQRT:
    case TIR_RSQRT:
    case TIR_SIGMOID:
    case TIR_CAST:
        return COP_UNARY;
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_SUM:
        return COP_REDUCE;
    case TIR_EXPAND_DIMS:
        return COP_TURN;
    case TIR_WHERE:
        return COP_WHERE;
    case TIR_CMP_EQ:
    case TIR_CMP_NE:
    case TIR_CMP_LT:
    case TIR_CMP_LE:
    case TIR_CMP_GT:
    case TIR_CMP_GE:
        return COP_CMP;
    case TIR_DOT:
        return COP_DOT;
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        return COP_CLEAN;
    default:
        return COP_UNKNOWN;
    }
}

/* The temporaries of the compute ops of block b, in the order the compute
 * kernel's walk asks for them (so their CB ids follow that order), and the
 * refusal of an op that has no tile op. */
static void plan_temps_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        if (op->code == TIR_FOR) {
            plan_temps_block(L, op->regions[0]);
            continue;
        }
        if (op->code == TIR_YIELD || op->code == TIR_STORE || op->code == TIR_DESC_STORE)
            continue;
        switch (cop_of(L, op)) {
        case COP_BINARY: lw_plan_binary(L, op); break;
        case COP_UNARY: lw_plan_unary(L, op); break;
        case COP_REDUCE: lw_plan_reduce(L, op); break;
        case COP_WHERE: lw_plan_where(L, op); break;
        case COP_CMP: lw_plan_cmp(L, op); break;
        case COP_UNKNOWN: lw_fail(L, op->loc, "'%s' has no tile op", tir_op_name(op->code)); break;
        case COP_CLEAN: {
            /* its masked copy, where a boundary check cuts the block short:
               at these values, or at others (the L1 plan's indicator) */
            int i = lw_access_of(L, op);
            int64_t none;
            if (i >= 0 && (L->ax[i].clean || !(sym_is_const(L->ax[i].sclip, &none) && none == 0)))
                lw_need_support(L, DF_SUP_IOTA, L->ax[i].sclip);
            break;
        }
        case COP_NONE:
        case COP_TURN:
        case COP_DOT:
            break;
        }
        /* the page a block row of the row sums its result's packer adds
           into: written here, read by the sum (lw_plan_packsums) */
        const tir_op *red = lw_packsum_red(L, op);
        if (red) {
            const vinfo *rr = &L->v[V(L, red->results[0])->root];
            lw_plan_temp_from(L, op, red, 2, rr->tr, lw_vtiles(L, rr), lw_accum_format(L));
        }
    }
}

/* The planning walk over the compute kernel: every op's temporaries get
 * their stores and CBs before any kernel is written (a fused pair walks
 * the producer, then the consumer, as the reducer cores run them). */
bool lw_plan_temps(lw *L)
{
    plan_temps_block(L, L->f->body);
    lw_split_plan(L); /* the masks' notes are all in */
    return !L->failed;
}

/* Whether load op's masked copy waits for the load's first reader (it
 * runs just before it, lw_emit_cblock) rather than running where the load
 * is: loads side by side at the top of a loop would otherwise hold a
 * reader of the first (attention's Q K^T) back until the second (V) has
 * arrived and been masked. */
static bool clean_deferred(lw *L, const tir_op *op)
{
    int i = lw_access_of(L, op);
    if (i < 0 || !L->ax[i].clean || op->nresults != 1)
        return false;
    const tir_op *first = L->v[V(L, op->results[0])->root].first_top;
    return first && first != op;
}

static void emit_cop(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    switch (op->code) {
    case TIR_FOR:
        emit_cfor(K, op);
        return;
    case TIR_YIELD:
        emit_yield(K, op);
        return;
    case TIR_STORE:
    case TIR_DESC_STORE:
        emit_cstore(K, op);
        return;
    default:
        break;
    }
    switch (cop_of(L, op)) {
    case COP_NONE: return;
    case COP_BINARY: lw_emit_binary(K, op); return;
    case COP_UNARY: lw_emit_unary(K, op); return;
    case COP_REDUCE: lw_emit_reduce(K, op); return;
    case COP_TURN: emit_turn(K, op); return;
    case COP_WHERE: lw_emit_where(K, op); return;
    case COP_CMP: lw_emit_cmp(K, op); return;
    case COP_DOT: lw_emit_dot(K, op); return;
    case COP_CLEAN:
        if (!clean_deferred(L, op))
            emit_clean(K, op);
        return;
    case COP_UNKNOWN:
        lw_fail(L, op->loc, "'%s' has no tile op", tir_op_name(op->code));
        return;
    }
}

void lw_emit_cblock(kctx *K, const tir_block *b)
{
    lw *L = K->L;
    /* carried values no op reads: free their pages at once */
    for (int i = 0; i < b->nargs; i++) {
        int u = b->args[i]->uid;
        if (c_waits(L, u) && L->v[u].defblk == b && !L->v[u].first_top) {
            c_wait(K, u);
            c_pop(K, u);
        }
    }
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (const tir_op *ld = b->first; ld != op; ld = ld->next)
            if (cop_of(L, ld) == COP_CLEAN && clean_deferred(L, ld) &&
                L->v[V(L, ld->results[0])->root].first_top == op) {
                K->loc = ld->loc;
                emit_clean(K, ld);
            }
        K->loc = op->loc;
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].first_top == op && c_waits(L, u) && !(op->code == TIR_YIELD && L->v[u].rl == R_NEW))
                c_wait(K, u); /* (a yield does not read the value made in its place) */
        emit_cop(K, op);
        if (op->code == TIR_YIELD && b->owner)
            end_of_body(K, b->owner);
        for (int u = 0; u < L->nv; u++) {
            if (!c_waits(L, u))
                continue;
            const vinfo *v = &L->v[u];
            if (v->last_top == op)
                c_pop(K, u);
            else if (!v->first_top && v->defblk == b && L->def[u] == op) {
                c_wait(K, u); /* made or arrived, never read */
                c_pop(K, u);
            }
        }
    }
}
