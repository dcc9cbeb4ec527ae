/* dm.c - the data-movement kernels (reader and writer): block loads with
 * their transports, stores (a fused producer's passed stores to its
 * reducer core among them), and the walk of the IR that emits them. */
#include "lower/lower_int.h"

#include <stdio.h>

/* ======================================================================
 * Reader and writer kernels
 * ==================================================================== */

static bool is_access_op(tir_opcode c)
{
    return c == TIR_LOAD || c == TIR_STORE || c == TIR_DESC_LOAD || c == TIR_DESC_STORE;
}

/* Whether a loop (or any op) holds an access the given kernel moves. */
bool lw_has_access(lw *L, const tir_block *b, df_kernel_kind kind)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (is_access_op(op->code)) {
            int i = lw_access_of(L, op);
            if (i >= 0 && L->ax[i].kernel == kind)
                return true;
        }
        for (int r = 0; r < op->nregions; r++)
            if (lw_has_access(L, op->regions[r], kind))
                return true;
    }
    return false;
}

static bool has_stretched(lw *L, const tir_block *b, df_kernel_kind kind)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (is_access_op(op->code)) {
            int i = lw_access_of(L, op);
            if (i >= 0 && L->ax[i].kernel == kind && L->ax[i].stretched)
                return true;
        }
        for (int r = 0; r < op->nregions; r++)
            if (has_stretched(L, op->regions[r], kind))
                return true;
    }
    return false;
}

static void add_iv(kctx *K, const tir_op *f, const df_expr *e)
{
    if (K->nivs < LW_MAX_IVS) {
        K->ivs[K->nivs].iv = f->iv;
        K->ivs[K->nivs].e = e;
        K->nivs++;
    } else {
        lw_fail(K->L, f->loc, "loops nested more than %d deep", LW_MAX_IVS);
    }
}

/* Open the loop of an IR `for`, counting its iterations from 0. */
df_stmt *lw_open_ir_loop(kctx *K, const tir_op *f, df_stmt **saved)
{
    if (!f->sym) {
        lw_fail(K->L, f->loc, "a loop whose trip count is not known symbolically");
        return NULL;
    }
    const df_expr *hi = lw_xs(K, f->sym);
    char name[24];
    snprintf(name, sizeof name, "i%s", f->iv && f->iv->name ? f->iv->name + 3 : "x");
    df_stmt *s = lw_open_for(K, name, C(K, 0), hi, saved);
    if (!s)
        return NULL;
    add_iv(K, f, df_slot(K->p, s->var));
    return s;
}

/* Cores of the group a shared block goes to: all of them (lockstep). */
static int64_t group_size(lw *L, sched_place along)
{
    return along == SCHED_ON_X ? L->gx : along == SCHED_ON_Y ? L->gy : L->gx * L->gy;
}

/* 1 when the program's indices along the axes that stay the same within
 * the group are in range: the group has a block to share. */
static const df_expr *takes_part(kctx *K, sched_place along)
{
    if (along == SCHED_ON_X)
        return K->in[G_Y];
    if (along == SCHED_ON_Y)
        return K->in[G_X];
    return C(K, 1);
}

int64_t lw_sender_pos(lw *L, const access *x, int64_t n)
{
    return x->how.interior_sender ? (n - 1) / 2 : 0;
}

/* Rows or columns an element move covers: the block's, or what is left of
 * the extent when a boundary check cuts it. */
static const df_expr *moved(kctx *K, int64_t n, const sym_expr *left)
{
    if (!left)
        return C(K, n);
    return x_min(K, C(K, n), lw_xs(K, left));
}

/* The tile rows of x's block that move: all of them, or, where a boundary
 * check cuts the block short and it still moves whole tiles, those holding
 * the rows inside the extent. */
static const df_expr *tile_rows(kctx *K, const access *x)
{
    if (!x->tclip || !x->clip_rows)
        return C(K, x->tr);
    const df_expr *inside = BIN(K, DF_X_ADD, lw_xs(K, x->clip_rows), C(K, LW_TILE - 1));
    return x_min(K, C(K, x->tr), BIN(K, DF_X_DIV, inside, C(K, LW_TILE)));
}

/* The tile columns of x's block that move where a boundary check cuts it
 * across them: those holding the columns inside the extent. */
static const df_expr *tile_cols(kctx *K, const access *x)
{
    const df_expr *inside = BIN(K, DF_X_ADD, lw_xs(K, x->clip_cols), C(K, LW_TILE - 1));
    return x_min(K, C(K, x->tc), BIN(K, DF_X_DIV, inside, C(K, LW_TILE)));
}

/* The moves of whole tiles of a block a boundary check cuts across its tile
 * columns: the tile columns inside, a read or write a tile row (either
 * moves its rectangle's pages packed row by row, and the block's rows of
 * pages are its tc tile columns apart). */
static void emit_cut_rows(kctx *K, const access *x, const df_expr *at, const df_expr *trid)
{
    char name[24];
    snprintf(name, sizeof name, "row%d", K->ncond++);
    df_stmt *saved;
    df_stmt *f = lw_open_for(K, name, C(K, 0), tile_rows(K, x), &saved);
    if (!f)
        return;
    const df_expr *r = df_slot(K->p, f->var);
    df_stmt *s = S(K, x->is_store ? DF_WRITE : DF_READ);
    s->tensor = x->tensor;
    s->row = BIN(K, DF_X_ADD, lw_affine(K, x, true), r);
    s->col = lw_affine(K, x, false);
    s->rows = C(K, 1);
    s->cols = tile_cols(K, x);
    s->cb = x->cb;
    s->at = BIN(K, DF_X_ADD, at ? at : C(K, 0), BIN(K, DF_X_MUL, r, C(K, x->tc)));
    if (trid)
        s->trid = trid;
    lw_put(K, s);
    lw_close_for(K, saved);
}

/* The reads of load x's block into its reserved pages from page `at` on,
 * tagged with transaction id `trid` (NULL: untagged). */
static void emit_reads(kctx *K, const access *x, const df_expr *at, const df_expr *trid)
{
    df_stmt *s;
    if (!x->elems && x->clip_cols && x->tc > 1) {
        emit_cut_rows(K, x, at, trid);
        return;
    }
    if (x->elems) {
        s = S(K, DF_READ_ELEMS);
        s->tensor = x->tensor;
        s->row = lw_affine(K, x, true);
        s->col = lw_affine(K, x, false);
        s->rows = moved(K, x->rows_el, x->clip_rows);
        s->cols = moved(K, x->cols_el, x->clip_cols);
        s->rstride = C(K, x->rstride);
        s->bw = C(K, x->tc);
    } else {
        s = S(K, DF_READ);
        s->tensor = x->tensor;
        s->row = lw_affine(K, x, true);
        s->col = lw_affine(K, x, false);
        s->rows = tile_rows(K, x);
        s->cols = C(K, x->tc);
    }
    s->cb = x->cb;
    if (at)
        s->at = at;
    if (trid)
        s->trid = trid;
    lw_put(K, s);
}

static void emit_read(kctx *K, const access *x)
{
    emit_reads(K, x, NULL, NULL);
    lw_put(K, S(K, DF_READ_BARRIER));
}

/* ---- reading ahead -------------------------------------------------------- */

/* Whether load x of a loop's body reads its next block while the current
 * one lands (docs/dataflow.md): a block from DRAM into a CB of at least two
 * blocks that moves block by block (not in steps of a ring shared with
 * values of other sizes), with two of the chip's transaction ids left for
 * it. The
 * barrier of block i then waits for block i's reads alone, and block
 * i + 1's are on the way meanwhile, so the banks never idle at a block
 * boundary for a round trip. */
static bool reads_ahead(const kctx *K, const access *x)
{
    const lw *L = K->L;
    int first = K->trid_next ? K->trid_next : 1;
    return !x->is_store && !x->passed && x->how.transport == SCHED_DRAM && x->depth >= 2 && x->cb >= 0 &&
           x->cb < (int)LM_COUNT(L->cb_step) && L->cb_step[x->cb] == 0 && K->nra < LW_MAX_RA &&
           first + 1 <= LM_MIN(DF_MAX_TRID, L->a->max_transaction_ids);
}

/* min(max(v, 0), 1): 1 when v is positive. */
static const df_expr *positive01(kctx *K, const df_expr *v) { return x_min(K, x_max(K, v, C(K, 0)), C(K, 1)); }

/* The read-ahead entry of load x (-1: it reads block by block). */
static int ahead_of(const kctx *K, const access *x)
{
    for (int i = 0; i < K->nra; i++)
        if (K->ra[i].access == x->index)
            return i;
    return -1;
}

/* Map the IR loop variable iv to e while emitting; gives back what it was. */
static const df_expr *map_iv(kctx *K, const sym_expr *iv, const df_expr *e)
{
    for (int i = 0; i < K->nivs; i++)
        if (K->ivs[i].iv == iv) {
            const df_expr *was = K->ivs[i].e;
            K->ivs[i].e = e;
            return was;
        }
    LM_BUG("read ahead: the loop variable has no value");
}

/* Before loop f (its trips for this program: `own`): the loads of its body
 * that read ahead get their ids, and the program's first block of each is
 * reserved and its reads issued, when the loop runs at all. */
static void ahead_prologue(kctx *K, const tir_op *f, const df_expr *own)
{
    lw *L = K->L;
    int from = K->nra;
    for (const tir_op *op = f->regions[0]->first; op && !L->failed; op = op->next) {
        if (!is_access_op(op->code))
            continue;
        int i = lw_access_of(L, op);
        if (i < 0 || L->ax[i].kernel != K->kind || !reads_ahead(K, &L->ax[i]))
            continue;
        int first = K->trid_next ? K->trid_next : 1;
        K->ra[K->nra].access = i;
        K->ra[K->nra].trid = first;
        K->ra[K->nra].iv = f->iv;
        K->ra[K->nra].next = NULL;
        K->nra++;
        K->trid_next = first + 2;
    }
    if (K->nra == from)
        return;
    const lm_loc loop_loc = K->loc;
    for (int r = from; r < K->nra; r++) {
        const access *x = &L->ax[K->ra[r].access];
        K->loc = x->aa->op->loc; /* the first block's reads are the load's, not the loop's */
        df_stmt *saved;
        int w = lw_open_if(K, BIN(K, DF_X_MUL, BIN(K, DF_X_MUL, K->act, K->live), positive01(K, own)), &saved);
        if (!w)
            continue;
        /* trip 0: where the guard is a loop of 0 or 1 trips, its variable
           (0 when it runs), so that the block's operands are not taken as
           known on the cores that never reach it */
        add_iv(K, f, w == 2 ? df_slot(K->p, K->loop->var) : C(K, 0));
        lw_cbop(K, DF_CB_RESERVE, x->cb, x->tiles);
        emit_reads(K, x, NULL, C(K, K->ra[r].trid));
        K->nivs--;
        if (w == 2)
            lw_close_for(K, saved);
    }
    K->loc = loop_loc;
}

/* Inside the loop, with its df variable iv: the condition of a next trip,
 * for the entries of this loop. */
static void ahead_in_loop(kctx *K, int from, const df_expr *iv, const df_expr *own, const df_expr *live)
{
    const df_expr *left = BIN(K, DF_X_SUB, BIN(K, DF_X_SUB, own, iv), C(K, 1));
    for (int r = from; r < K->nra; r++)
        K->ra[r].next = BIN(K, DF_X_MUL, BIN(K, DF_X_MUL, K->act, live), positive01(K, left));
}

/* The next trip's block of read-ahead entry r (trip iv + 1, when the
 * caller's condition `next` holds): reserved `at` pages past the write
 * pointer, and read under the other transaction id. */
static void issue_next(kctx *K, const access *x, int r, const df_expr *iv, int64_t reserve, int64_t at)
{
    const df_expr *next = BIN(K, DF_X_ADD, iv, C(K, 1));
    df_stmt *saved;
    int w = lw_open_if(K, K->ra[r].next, &saved);
    if (!w)
        return;
    lw_cbop(K, DF_CB_RESERVE, x->cb, reserve);
    map_iv(K, K->ra[r].iv, next);
    emit_reads(K, x, C(K, at), BIN(K, DF_X_ADD, C(K, K->ra[r].trid), BIN(K, DF_X_MOD, next, C(K, 2))));
    map_iv(K, K->ra[r].iv, iv);
    if (w == 2)
        lw_close_for(K, saved);
}

/* Load x that reads ahead, at trip iv of its loop (its own trip: the
 * caller's condition holds). A block of whole tiles: the next trip's block
 * is reserved behind this one's (the CB holds both) and its reads issued
 * with the other id; then this block's reads are waited for alone, and it
 * is pushed - the banks have the next block's requests while this one's
 * last round trip ends. A block moved element by element is pushed first
 * and its successor issued after: issuing its commands takes longer than
 * a round trip (one command per row and tile column), so a block issued
 * before the loop's other loads issued theirs has landed, and issuing
 * first would hold it back from the compute by a block's worth of
 * commands. (Issuing all the trip's next blocks after all its pushes
 * leaves the last issued block's round trip in the reader's path each
 * trip instead.) */
static void emit_load_ahead(kctx *K, const access *x, int r)
{
    const df_expr *iv = NULL;
    for (int i = 0; i < K->nivs; i++)
        if (K->ivs[i].iv == K->ra[r].iv)
            iv = K->ivs[i].e;
    LM_ASSERT(iv);
    if (!x->elems)
        issue_next(K, x, r, iv, 2 * x->tiles, x->tiles);
    df_stmt *b = S(K, DF_READ_BARRIER);
    b->trid = BIN(K, DF_X_ADD, C(K, K->ra[r].trid), BIN(K, DF_X_MOD, iv, C(K, 2)));
    lw_put(K, b);
    lw_cbop(K, DF_CB_PUSH, x->cb, x->tiles);
    if (x->elems)
        issue_next(K, x, r, iv, x->tiles, 0);
}

void lw_sem_op(kctx *K, df_op op, int sem, const df_expr *value, const df_expr *px, const df_expr *py)
{
    df_stmt *s = S(K, op);
    s->sem = sem;
    if (value)
        s->value = value;
    if (px)
        s->x = px, s->y = py;
    lw_put(K, s);
}

/* A program that does not exist on this core (the last, partial wave, or
 * a trip past its own in a loop whose trips differ within the group) still
 * takes its part in the group's handshake and pushes its block, which the
 * compute kernel then pops unused (lw_emit_drain): every core of the group
 * pushes the same blocks, so their rings stay in step, as a card needs
 * (a sender writes at its own write pointer's address on the receivers).
 * A sender first waits for its multicast to leave, as the pages come back
 * at once. */
static void push_or_drop(kctx *K, const access *x, bool sender)
{
    df_stmt *saved;
    const df_expr *mine = BIN(K, DF_X_MUL, K->act, K->live);
    if (sender) {
        int w = lw_open_if(K, BIN(K, DF_X_SUB, C(K, 1), mine), &saved);
        if (w) {
            lw_put(K, S(K, DF_WRITE_BARRIER));
            if (w == 2)
                lw_close_for(K, saved);
        }
    }
    lw_cbop(K, DF_CB_PUSH, x->cb, x->tiles);
}

static void emit_load(kctx *K, const access *x)
{
    lw *L = K->L;
    const sched_operand *h = &x->how;
    int64_t T = x->tiles;
    int r = h->transport == SCHED_DRAM ? ahead_of(K, x) : -1;
    if (r >= 0) {
        emit_load_ahead(K, x, r);
        return;
    }
    lw_cbop(K, DF_CB_RESERVE, x->cb, T);
    if (h->transport == SCHED_DRAM) {
        emit_read(K, x);
        lw_cbop(K, DF_CB_PUSH, x->cb, T);
        return;
    }
    const df_expr *cx = df_slot(K->p, DF_SLOT_CX), *cy = df_slot(K->p, DF_SLOT_CY);
    const df_expr *A = C(K, group_size(L, h->along));
    df_stmt *saved;
    if (h->transport == SCHED_MCAST) {
        int64_t sx = 0, sy = 0;
        if (h->along == SCHED_ON_X)
            sx = lw_sender_pos(L, x, L->gx);
        else if (h->along == SCHED_ON_Y)
            sy = lw_sender_pos(L, x, L->gy);
        else
            sx = lw_sender_pos(L, x, L->gx), sy = lw_sender_pos(L, x, L->gy);
        bool sender = (h->along == SCHED_ON_Y || (K->x0 == sx && K->x1 == sx)) &&
                      (h->along == SCHED_ON_X || (K->y0 == sy && K->y1 == sy));
        if (sender) {
            emit_read(K, x);
            const df_expr *recv = BIN(K, DF_X_SUB, A, C(K, 1));
            lw_sem_op(K, DF_SEM_WAIT, x->sem_ready, recv, NULL, NULL);
            lw_sem_op(K, DF_SEM_SET, x->sem_ready, C(K, 0), NULL, NULL);
            int w = lw_open_if(K, x_min(K, recv, C(K, 1)), &saved);
            if (w) {
                const df_expr *x0, *y0, *x1, *y1;
                bool edge = !h->interior_sender;
                if (h->along == SCHED_ON_X) {
                    x0 = C(K, edge ? 1 : 0), x1 = edge ? BIN(K, DF_X_SUB, A, C(K, 1)) : C(K, L->gx - 1);
                    y0 = y1 = cy;
                } else if (h->along == SCHED_ON_Y) {
                    y0 = C(K, edge ? 1 : 0), y1 = edge ? BIN(K, DF_X_SUB, A, C(K, 1)) : C(K, L->gy - 1);
                    x0 = x1 = cx;
                } else {
                    x0 = C(K, 0), y0 = C(K, 0), x1 = C(K, L->gx - 1), y1 = C(K, L->gy - 1);
                }
                df_stmt *m = S(K, DF_MCAST);
                m->cb = x->cb;
                m->n = C(K, T);
                m->x0 = x0, m->y0 = y0, m->x1 = x1, m->y1 = y1;
                lw_put(K, m);
                df_stmt *sm = S(K, DF_SEM_MCAST);
                sm->sem = x->sem_valid;
                sm->value = C(K, 1);
                sm->x0 = x0, sm->y0 = y0, sm->x1 = x1, sm->y1 = y1;
                lw_put(K, sm);
                /* with one page set the next read would overwrite what is still on the way */
                if (x->depth < 2)
                    lw_put(K, S(K, DF_WRITE_BARRIER));
                if (w == 2)
                    lw_close_for(K, saved);
            }
        } else {
            lw_sem_op(K, DF_SEM_SET, x->sem_valid, C(K, 0), NULL, NULL);
            const df_expr *px = h->along == SCHED_ON_Y ? cx : C(K, sx);
            const df_expr *py = h->along == SCHED_ON_X ? cy : C(K, sy);
            lw_sem_op(K, DF_SEM_INC, x->sem_ready, C(K, 1), px, py);
            lw_sem_op(K, DF_SEM_WAIT, x->sem_valid, C(K, 1), NULL, NULL);
        }
        push_or_drop(K, x, sender);
        return;
    }
    /* forwarding: core 0 of the row (column) reads, each core passes the
       block on to the next one that takes part in this wave */
    bool along_x = h->along == SCHED_ON_X;
    const df_expr *me = along_x ? cx : cy;
    bool first = along_x ? (K->x0 == 0 && K->x1 == 0) : (K->y0 == 0 && K->y1 == 0);
    const df_expr *prev_x = along_x ? BIN(K, DF_X_SUB, cx, C(K, 1)) : cx;
    const df_expr *prev_y = along_x ? cy : BIN(K, DF_X_SUB, cy, C(K, 1));
    const df_expr *next_x = along_x ? BIN(K, DF_X_ADD, cx, C(K, 1)) : cx;
    const df_expr *next_y = along_x ? cy : BIN(K, DF_X_ADD, cy, C(K, 1));
    if (first) {
        emit_read(K, x);
    } else {
        lw_sem_op(K, DF_SEM_SET, x->sem_valid, C(K, 0), NULL, NULL);
        lw_sem_op(K, DF_SEM_INC, x->sem_ready, C(K, 1), prev_x, prev_y);
        lw_sem_op(K, DF_SEM_WAIT, x->sem_valid, C(K, 1), NULL, NULL);
    }
    const df_expr *more = x_min(K, x_max(K, BIN(K, DF_X_SUB, BIN(K, DF_X_SUB, A, C(K, 1)), me), C(K, 0)), C(K, 1));
    int w = lw_open_if(K, more, &saved);
    if (w) {
        lw_sem_op(K, DF_SEM_WAIT, x->sem_ready, C(K, 1), NULL, NULL);
        lw_sem_op(K, DF_SEM_SET, x->sem_ready, C(K, 0), NULL, NULL);
        df_stmt *sd = S(K, DF_SEND);
        sd->cb = x->cb;
        sd->n = C(K, T);
        sd->x = next_x;
        sd->y = next_y;
        lw_put(K, sd);
        lw_sem_op(K, DF_SEM_INC, x->sem_valid, C(K, 1), next_x, next_y);
        if (x->depth < 2)
            lw_put(K, S(K, DF_WRITE_BARRIER));
        if (w == 2)
            lw_close_for(K, saved);
    }
    push_or_drop(K, x, first);
}

static void emit_store_dm(kctx *K, const access *x)
{
    int64_t T = x->tiles;
    lw_cbop(K, DF_CB_WAIT, x->cb, T);
    if (x->elems) {
        df_stmt *s = S(K, DF_WRITE_ELEMS);
        s->cb = x->cb;
        s->bw = C(K, x->tc);
        s->tensor = x->tensor;
        s->row = lw_affine(K, x, true);
        s->col = lw_affine(K, x, false);
        s->rows = moved(K, x->rows_el, x->clip_rows);
        s->cols = moved(K, x->cols_el, x->clip_cols);
        s->rstride = C(K, x->rstride);
        lw_put(K, s);
        lw_put(K, S(K, DF_WRITE_BARRIER));
        lw_cbop(K, DF_CB_POP, x->cb, T);
        return;
    }
    if (x->clip_cols && x->tc > 1) {
        emit_cut_rows(K, x, NULL, NULL);
    } else {
        df_stmt *s = S(K, DF_WRITE);
        s->cb = x->cb;
        s->tensor = x->tensor;
        s->row = lw_affine(K, x, true);
        s->col = lw_affine(K, x, false);
        s->rows = tile_rows(K, x);
        s->cols = C(K, x->tc);
        lw_put(K, s);
    }
    lw_put(K, S(K, DF_WRITE_BARRIER));
    lw_cbop(K, DF_CB_POP, x->cb, T);
}

/* ---- a fused pair: the producer's passed stores to the reducer core ------- */

/* Core (x, y) of the group's core at index `i` along the gather dimension
 * (the same row or column as this core). */
void lw_group_core(kctx *K, const df_expr *i, const df_expr **x, const df_expr **y)
{
    bool along_x = K->L->s->cand.fuse_along == SCHED_ON_X;
    *x = along_x ? i : df_slot(K->p, DF_SLOT_CX);
    *y = along_x ? df_slot(K->p, DF_SLOT_CY) : i;
}

/* The index of the current group among the groups (values of the key
 * axes) this core runs, in the order open_programs nests the loops: waves
 * along y, then x, then the axes in time. */
static const df_expr *group_count(kctx *K, lw *LA)
{
    const df_expr *w = C(K, 0);
    static const int order[2] = {G_Y, G_X};
    for (int i = 0; i < 2; i++) {
        int gr = order[i];
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (LA->ngrp[gr] && LA->grp[gr][0] != LA->fz->gather_axis)
            w = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, w, C(K, lm_cdiv(LA->E[gr], n))), K->wave[gr]);
    }
    for (int i = 0; i < LA->ntime; i++)
        w = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, w, C(K, LA->ext[LA->time[i]])), K->pid[LA->time[i]]);
    return w;
}

/* The consumer's program ids along its local axes from the flattened index
 * q of its program in the group (row-major, in axis order). */
void lw_local_pids(kctx *K, const lw *LB, const df_expr *q, const df_expr **pid)
{
    int first = -1;
    for (int g = 0; g < LB->f->grid_rank; g++)
        if (LB->fz->key_of[g] < 0 && first < 0)
            first = g;
    for (int g = LB->f->grid_rank - 1; g >= 0; g--) {
        if (LB->fz->key_of[g] >= 0)
            continue;
        if (g == first) {
            pid[g] = q;
        } else {
            pid[g] = BIN(K, DF_X_MOD, q, C(K, LB->ext[g]));
            q = BIN(K, DF_X_DIV, q, C(K, LB->ext[g]));
        }
    }
}

/* offset of an access dimension, with the consumer's program ids in pid[] */
static const df_expr *dim_offset(kctx *K, const acc_dim *ad, const df_expr *const *pid, int rank)
{
    int64_t v = 0;
    if (ad->constant)
        lw_ev(K->L, ad->constant, &v, (lm_loc){0});
    const df_expr *e = C(K, v);
    for (int t = 0; t < ad->nterms; t++) {
        int64_t co = 0;
        lw_ev(K->L, ad->terms[t].coeff, &co, (lm_loc){0});
        for (int g = 0; g < rank; g++)
            if (ad->terms[t].var == tir_pid_var(K->L->sc, g) && pid[g])
                e = BIN(K, DF_X_ADD, e, BIN(K, DF_X_MUL, C(K, co), pid[g]));
    }
    return e;
}

/* A producer's passed store: the block stays in its CB while each consumer
 * program of the group gets its part of it, row by row (send_elems), into
 * the pages its reducer reserved for it; after the program's last passed
 * store, valid is incremented there once per consumer program. */
void lw_emit_store_fused(kctx *K, const access *x)
{
    lw *LA = K->L, *LB = LA->lb;
    const sched_fusion *fz = LA->fz;
    const sched_fused_tensor *t = NULL;
    int last = -1;
    for (int i = 0; i < fz->nt; i++) {
        if (fz->t[i].store == x->index)
            t = &fz->t[i];
        if (fz->t[i].store > last)
            last = fz->t[i].store;
    }
    LM_ASSERT(t);
    const access *y = &LB->ax[t->load];
    const acc_access *xa = x->aa, *yb = y->aa;
    int r = t->tensor->rank;
    lm_loc loc = xa->op->loc;
    lw_cbop(K, DF_CB_WAIT, x->cb, x->tiles);
    df_stmt *saved[TIR_MAX_GRID + TIR_MAX_RANK];
    int nsaved = 0;
    const df_expr *pid[TIR_MAX_GRID] = {NULL};
    df_stmt *fq = lw_open_for(K, "q", C(K, 0), C(K, LA->nq), &saved[nsaved]);
    if (!fq)
        return;
    nsaved++;
    const df_expr *q = df_slot(K->p, fq->var);
    lw_local_pids(K, LB, q, pid);
    /* the G-th consumer program of this row goes to core G mod np */
    const df_expr *G = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, group_count(K, LA), C(K, LA->nq)), q);
    const df_expr *rx, *ry;
    lw_group_core(K, BIN(K, DF_X_MOD, G, C(K, LA->np)), &rx, &ry);
    /* per dimension: where the moved part starts in each block, and how long it is */
    const df_expr *ra[TIR_MAX_RANK], *rb[TIR_MAX_RANK], *len[TIR_MAX_RANK];
    int64_t slen[TIR_MAX_RANK];
    const df_expr *g = K->pid[fz->gather_axis];
    for (int d = 0; d < r; d++) {
        int64_t ba = 1, bb = 1, E = 1;
        lw_ev(LA, xa->block[d], &ba, loc);
        lw_ev(LB, yb->block[d], &bb, loc);
        lw_ev(LA, t->tensor->shape[d], &E, loc);
        ra[d] = rb[d] = C(K, 0);
        switch (t->dim[d]) {
        case SCHED_FD_KEY:
            len[d] = C(K, ba);
            slen[d] = ba;
            break;
        case SCHED_FD_GATHER:
            rb[d] = BIN(K, DF_X_MUL, g, C(K, ba));
            len[d] = x_min(K, C(K, ba), BIN(K, DF_X_SUB, C(K, E), rb[d]));
            slen[d] = ba;
            break;
        case SCHED_FD_SLICE:
            ra[d] = dim_offset(K, &yb->dims[d], pid, LB->f->grid_rank);
            len[d] = x_min(K, C(K, bb), BIN(K, DF_X_SUB, C(K, E), ra[d]));
            slen[d] = bb;
            break;
        case SCHED_FD_WHOLE:
            slen[d] = LM_MIN(E, LM_MIN(ba, bb));
            len[d] = C(K, slen[d]);
            break;
        }
    }
    /* element positions in the two CB blocks: rows along the layout (a step
       of the dimension moves lrow rows, the block keeps every rstride-th) */
    const df_expr *era = C(K, 0), *erb = C(K, 0);
    int64_t sa[TIR_MAX_RANK] = {0}, sb[TIR_MAX_RANK] = {0};
    int vary[TIR_MAX_RANK], nvary = 0;
    for (int d = 0; d < r; d++) {
        if (d == x->coldim)
            continue;
        sa[d] = x->lrow[d] / (x->rstride > 0 ? x->rstride : 1);
        sb[d] = y->lrow[d] / (y->rstride > 0 ? y->rstride : 1);
        era = BIN(K, DF_X_ADD, era, BIN(K, DF_X_MUL, ra[d], C(K, sa[d])));
        erb = BIN(K, DF_X_ADD, erb, BIN(K, DF_X_MUL, rb[d], C(K, sb[d])));
        if (slen[d] > 1)
            vary[nvary++] = d;
    }
    if (x->coldim != y->coldim || x->coldim < 0) {
        lw_fail(LA, loc, "the store of '%s' and its fused load place the tensor's columns differently", t->tensor->name);
        return;
    }
    const df_expr *rows = C(K, 1);
    if (nvary == 1 && sa[vary[0]] == 1 && sb[vary[0]] == 1) {
        rows = len[vary[0]]; /* consecutive rows on both sides */
    } else {
        for (int i = 0; i < nvary; i++) {
            int d = vary[i];
            char name[16];
            snprintf(name, sizeof name, "e%d", d);
            df_stmt *f = lw_open_for(K, name, C(K, 0), len[d], &saved[nsaved]);
            if (!f)
                return;
            nsaved++;
            const df_expr *j = df_slot(K->p, f->var);
            era = BIN(K, DF_X_ADD, era, BIN(K, DF_X_MUL, j, C(K, sa[d])));
            erb = BIN(K, DF_X_ADD, erb, BIN(K, DF_X_MUL, j, C(K, sb[d])));
        }
    }
    int cd = x->coldim;
    df_stmt *se = S(K, DF_SEND_ELEMS);
    se->cb = x->cb;
    se->er = era;
    se->ec = ra[cd];
    se->bw = C(K, x->tc);
    se->rows = rows;
    se->cols = len[cd];
    se->x = rx;
    se->y = ry;
    se->cb_out = y->cb;
    se->dst_at = BIN(K, DF_X_MUL, BIN(K, DF_X_DIV, G, C(K, LA->np)), C(K, y->tiles));
    se->der = erb;
    se->dec = rb[cd];
    se->dbw = C(K, y->tc);
    lw_put(K, se);
    while (nsaved > 1)
        lw_close_for(K, saved[--nsaved]);
    /* after the program's last passed block (the same channel as the data) */
    if (x->index == last)
        lw_sem_op(K, DF_SEM_INC, LA->sem_fvalid, C(K, 1), rx, ry);
    lw_close_for(K, saved[--nsaved]);
    lw_put(K, S(K, DF_WRITE_BARRIER));
    lw_cbop(K, DF_CB_POP, x->cb, x->tiles);
}

/* Whether loop f runs the most trips of its group in data-movement kernel
 * `kind` (a block inside is shared and its trips differ), how many at most
 * and the axis it is stretched per wave along (-1: to *most everywhere). */
bool lw_stretched_for(lw *L, const tir_op *f, df_kernel_kind kind, int64_t *most, int *axis)
{
    for (int i = 0; i < L->nstretch; i++)
        if (L->stretch[i] == f && has_stretched(L, f->regions[0], kind)) {
            *most = L->stretch_max[i];
            *axis = L->stretch_axis[i];
            return true;
        }
    return false;
}

/* The trips every core of a group runs of stretched loop f: the most of the
 * programs of its wave along `axis` - the count at the wave's first or last
 * program id, the trips being monotone along it - or `most`. */
static const df_expr *stretch_bound(kctx *K, const tir_op *f, int64_t most, int axis)
{
    lw *L = K->L;
    if (axis < 0)
        return C(K, most);
    int gr = L->s->cand.place[axis] == SCHED_ON_X ? G_X : G_Y;
    int64_t n = gr == G_X ? L->gx : L->gy;
    const df_expr *own = K->pid[axis], *first = BIN(K, DF_X_MUL, C(K, n), K->wave[gr]);
    K->pid[axis] = first;
    const df_expr *at_first = lw_xs(K, f->sym);
    K->pid[axis] = x_min(K, BIN(K, DF_X_ADD, first, C(K, n - 1)), C(K, L->E[gr] - 1));
    const df_expr *at_last = lw_xs(K, f->sym);
    K->pid[axis] = own;
    return x_max(K, at_first, at_last);
}

/* The data-movement kernels K walks: its own, or while draining (K is the
 * compute kernel) both, in program order. */
static bool walks(const kctx *K, df_kernel_kind kind)
{
    return K->drain ? kind != DF_COMPUTE : kind == K->kind;
}

static bool walks_access(kctx *K, const tir_block *b)
{
    if (!K->drain)
        return lw_has_access(K->L, b, K->kind);
    return lw_has_access(K->L, b, DF_READER) || lw_has_access(K->L, b, DF_WRITER);
}

/* Whether K walks loop f stretched (lw_stretched_for), and its trips there. */
static bool walks_stretched(kctx *K, const tir_op *f, const df_expr **bound)
{
    int64_t most;
    int axis;
    bool st = !K->drain ? lw_stretched_for(K->L, f, K->kind, &most, &axis)
                        : lw_stretched_for(K->L, f, DF_READER, &most, &axis) ||
                              lw_stretched_for(K->L, f, DF_WRITER, &most, &axis);
    if (st)
        *bound = stretch_bound(K, f, most, axis);
    return st;
}

/* A shared block the compute kernel pops unused: waited for and popped where
 * its data-movement kernel pushes it (push_or_drop). */
static void drain_load(kctx *K, const access *x)
{
    lw_cbop(K, DF_CB_WAIT, x->cb, x->tiles);
    lw_cbop(K, DF_CB_POP, x->cb, x->tiles);
}

/* The pushes of the shared blocks of both data-movement kernels in b, walked
 * in program order as those kernels walk them, as pops of the compute kernel
 * (K): the blocks of programs this core does not run. One walk for both
 * keeps the pops in the order the group's handshakes need. */
void lw_emit_drain(kctx *K, const tir_block *b)
{
    bool was = K->drain;
    K->drain = true;
    lw_emit_dm_block(K, b);
    K->drain = was;
}

/* After the compute kernel's own trips of loop f: the trips past them that
 * the data-movement kernels still run for their group (f stretched), their
 * shared blocks popped unused. */
void lw_emit_dead_trips(kctx *K, const tir_op *f)
{
    const df_expr *bound;
    bool was = K->drain, stretched;
    K->drain = true;
    stretched = walks_stretched(K, f, &bound);
    K->drain = was;
    if (!stretched)
        return;
    df_stmt *saved;
    int nivs = K->nivs;
    df_stmt *d = lw_open_for(K, "dead", lw_xs(K, f->sym), bound, &saved);
    if (!d)
        return;
    add_iv(K, f, df_slot(K->p, d->var));
    lw_emit_drain(K, f->regions[0]);
    lw_close_for(K, saved);
    K->nivs = nivs;
}

void lw_emit_dm_block(kctx *K, const tir_block *b)
{
    lw *L = K->L;
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        K->loc = op->loc;
        if (op->code == TIR_FOR) {
            if (!walks_access(K, op->regions[0]))
                continue;
            df_stmt *saved;
            int nivs = K->nivs, nra = K->nra, trid_next = K->trid_next;
            const df_expr *live = K->live;
            const df_expr *bound = NULL;
            if (!walks_stretched(K, op, &bound))
                bound = NULL;
            const df_expr *trips = op->sym && !K->drain ? lw_xs(K, op->sym) : NULL;
            if (trips)
                ahead_prologue(K, op, trips);
            if (bound) {
                /* every core runs the most trips; its own ones are live */
                const df_expr *own = lw_xs(K, op->sym);
                char name[24];
                snprintf(name, sizeof name, "i%s", op->iv && op->iv->name ? op->iv->name + 3 : "x");
                df_stmt *f = lw_open_for(K, name, C(K, 0), bound, &saved);
                if (!f)
                    return;
                const df_expr *iv = df_slot(K->p, f->var);
                add_iv(K, op, iv);
                const df_expr *mine = x_min(K, x_max(K, BIN(K, DF_X_SUB, own, iv), C(K, 0)), C(K, 1));
                K->live = BIN(K, DF_X_MUL, K->live, mine);
            } else if (!lw_open_ir_loop(K, op, &saved)) {
                return;
            }
            if (K->nra > nra)
                ahead_in_loop(K, nra, K->ivs[K->nivs - 1].e, trips, live);
            lw_emit_dm_block(K, op->regions[0]);
            lw_close_for(K, saved);
            K->nivs = nivs;
            K->live = live;
            K->nra = nra;
            K->trid_next = trid_next;
            continue;
        }
        if (!is_access_op(op->code))
            continue;
        int i = lw_access_of(L, op);
        if (i < 0 || !walks(K, L->ax[i].kernel))
            continue;
        const access *x = &L->ax[i];
        if (x->dead)
            continue;
        if (x->passed && !x->is_store)
            continue; /* received for the whole group before its programs (lw_emit_consumer) */
        bool shared = !x->is_store && x->how.transport != SCHED_DRAM;
        if (K->drain && !shared)
            continue;
        df_stmt *saved;
        int w = lw_open_if(K, shared ? takes_part(K, x->how.along) : BIN(K, DF_X_MUL, K->act, K->live), &saved);
        if (!w)
            continue;
        if (K->drain)
            drain_load(K, x);
        else if (x->is_store && x->passed)
            lw_emit_store_fused(K, x);
        else if (x->is_store)
            emit_store_dm(K, x);
        else
            emit_load(K, x);
        if (w == 2)
            lw_close_for(K, saved);
    }
}
