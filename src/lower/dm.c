/* dm.c - the data-movement kernels (reader and writer): block loads with
 * their transports, stores, and the walk of the IR that emits them. */
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

static void emit_read(kctx *K, const access *x)
{
    if (x->elems) {
        df_stmt *s = S(K, DF_READ_ELEMS);
        s->tensor = x->tensor;
        s->row = lw_affine(K, x, true);
        s->col = lw_affine(K, x, false);
        s->rows = moved(K, x->rows_el, x->clip_rows);
        s->cols = moved(K, x->cols_el, x->clip_cols);
        s->rstride = C(K, x->rstride);
        s->cb = x->cb;
        s->bw = C(K, x->tc);
        lw_put(K, s);
        lw_put(K, S(K, DF_READ_BARRIER));
        return;
    }
    df_stmt *s = S(K, DF_READ);
    s->tensor = x->tensor;
    s->row = lw_affine(K, x, true);
    s->col = lw_affine(K, x, false);
    s->rows = C(K, x->tr);
    s->cols = C(K, x->tc);
    s->cb = x->cb;
    lw_put(K, s);
    lw_put(K, S(K, DF_READ_BARRIER));
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

/* A program that does not exist on this core (the last, partial wave)
 * still takes its part in the group's handshake, but its block is not
 * pushed to the compute kernel: the reserved pages are simply reused. A
 * sender then waits for its multicast to leave before the pages are
 * refilled. */
static void push_or_drop(kctx *K, const access *x, bool sender)
{
    df_stmt *saved;
    const df_expr *mine = BIN(K, DF_X_MUL, K->act, K->live);
    int w = lw_open_if(K, mine, &saved);
    if (w) {
        lw_cbop(K, DF_CB_PUSH, x->cb, x->tiles);
        if (w == 2)
            lw_close_for(K, saved);
    }
    if (sender && w != 1) {
        w = lw_open_if(K, BIN(K, DF_X_SUB, C(K, 1), mine), &saved);
        if (w) {
            lw_put(K, S(K, DF_WRITE_BARRIER));
            if (w == 2)
                lw_close_for(K, saved);
        }
    }
}

static void emit_load(kctx *K, const access *x)
{
    lw *L = K->L;
    const sched_operand *h = &x->how;
    int64_t T = x->tiles;
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
    df_stmt *s = S(K, DF_WRITE);
    s->cb = x->cb;
    s->tensor = x->tensor;
    s->row = lw_affine(K, x, true);
    s->col = lw_affine(K, x, false);
    s->rows = C(K, x->tr);
    s->cols = C(K, x->tc);
    lw_put(K, s);
    lw_put(K, S(K, DF_WRITE_BARRIER));
    lw_cbop(K, DF_CB_POP, x->cb, T);
}


void lw_emit_dm_block(kctx *K, const tir_block *b)
{
    lw *L = K->L;
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        if (op->code == TIR_FOR) {
            if (!lw_has_access(L, op->regions[0], K->kind))
                continue;
            df_stmt *saved;
            int nivs = K->nivs;
            const df_expr *live = K->live;
            int64_t most = -1;
            for (int i = 0; i < L->nstretch; i++)
                if (L->stretch[i] == op && has_stretched(L, op->regions[0], K->kind))
                    most = L->stretch_max[i];
            if (most >= 0) {
                /* every core runs the most trips; its own ones are live */
                const df_expr *own = lw_xs(K, op->sym);
                char name[24];
                snprintf(name, sizeof name, "i%s", op->iv && op->iv->name ? op->iv->name + 3 : "x");
                df_stmt *f = lw_open_for(K, name, C(K, 0), C(K, most), &saved);
                if (!f)
                    return;
                const df_expr *iv = df_slot(K->p, f->var);
                add_iv(K, op, iv);
                const df_expr *mine = x_min(K, x_max(K, BIN(K, DF_X_SUB, own, iv), C(K, 0)), C(K, 1));
                K->live = BIN(K, DF_X_MUL, K->live, mine);
            } else if (!lw_open_ir_loop(K, op, &saved)) {
                return;
            }
            lw_emit_dm_block(K, op->regions[0]);
            lw_close_for(K, saved);
            K->nivs = nivs;
            K->live = live;
            continue;
        }
        if (!is_access_op(op->code))
            continue;
        int i = lw_access_of(L, op);
        if (i < 0 || L->ax[i].kernel != K->kind)
            continue;
        const access *x = &L->ax[i];
        if (x->passed && !x->is_store)
            continue; /* received for the whole group before its programs (lw_emit_consumer) */
        bool shared = !x->is_store && x->how.transport != SCHED_DRAM;
        df_stmt *saved;
        int w = lw_open_if(K, shared ? takes_part(K, x->how.along) : BIN(K, DF_X_MUL, K->act, K->live), &saved);
        if (!w)
            continue;
        if (x->is_store && x->passed)
            lw_emit_store_fused(K, x);
        else if (x->is_store)
            emit_store_dm(K, x);
        else
            emit_load(K, x);
        if (w == 2)
            lw_close_for(K, saved);
    }
}
