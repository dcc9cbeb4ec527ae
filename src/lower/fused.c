/* fused.c - the reducer core's kernels of a fused producer/consumer pair:
 * the producer's partial results go to a reducer core, which runs the
 * consumer's programs on them. Here are the reducer's prologue and the
 * consumer's kernels; the producer's passed stores are in dm.c and the
 * pair's lowering (sched_lower_fused) in lower.c. */
#include "lower/lower_int.h"

#include <stdio.h>
#include <string.h>

/* ---- a fused pair: partial results to the reducer core ------------------- */

/* How many groups this core runs (those whose programs exist). */
static const df_expr *groups_here(kctx *K, lw *LA)
{
    const df_expr *w = C(K, 1);
    for (int gr = G_X; gr <= G_Y; gr++) {
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (!LA->ngrp[gr] || LA->grp[gr][0] == LA->fz->gather_axis)
            continue;
        const df_expr *idx = df_slot(K->p, gr == G_X ? DF_SLOT_CX : DF_SLOT_CY);
        const df_expr *left = BIN(K, DF_X_DIV, BIN(K, DF_X_SUB, C(K, LA->E[gr] + n - 1), idx), C(K, n));
        w = BIN(K, DF_X_MUL, w, x_max(K, left, C(K, 0)));
    }
    for (int i = 0; i < LA->ntime; i++)
        w = BIN(K, DF_X_MUL, w, C(K, LA->ext[LA->time[i]]));
    return w;
}

/* The producer's program ids along its key axes for the core's w-th group
 * (group_count the other way round). */
static void group_pids(kctx *K, lw *LA, const df_expr *w, const df_expr **pid)
{
    for (int i = LA->ntime - 1; i >= 0; i--) {
        int g = LA->time[i];
        pid[g] = BIN(K, DF_X_MOD, w, C(K, LA->ext[g]));
        w = BIN(K, DF_X_DIV, w, C(K, LA->ext[g]));
    }
    static const int order[2] = {G_X, G_Y};
    for (int i = 0; i < 2; i++) {
        int gr = order[i];
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (!LA->ngrp[gr] || LA->grp[gr][0] == LA->fz->gather_axis)
            continue;
        int64_t W = lm_cdiv(LA->E[gr], n);
        const df_expr *wave = BIN(K, DF_X_MOD, w, C(K, W));
        w = BIN(K, DF_X_DIV, w, C(K, W));
        const df_expr *idx = df_slot(K->p, gr == G_X ? DF_SLOT_CX : DF_SLOT_CY);
        pid[LA->grp[gr][0]] = BIN(K, DF_X_ADD, idx, BIN(K, DF_X_MUL, C(K, n), wave));
    }
}

/* The consumer programs this core runs as a reducer: the producers of a
 * row (column) deal the consumer programs of their groups round-robin, the
 * G-th (G = w*nq + q: group w, program q) to core G mod np as its (G /
 * np)-th. */
static const df_expr *reducer_programs(kctx *K, lw *LA, const df_expr *gi)
{
    const df_expr *total = BIN(K, DF_X_MUL, groups_here(K, LA), C(K, LA->nq));
    return x_max(K, BIN(K, DF_X_DIV, BIN(K, DF_X_SUB, BIN(K, DF_X_ADD, total, C(K, LA->np - 1)), gi), C(K, LA->np)),
                 C(K, 0));
}


/* Before a fused producer's program loops. Every producer's writer waits
 * until each reducer of its row (column) has room for all it will receive
 * (fused_ready counts them); a reducer's reader reserves the pages of all
 * the consumer programs it will run and says so to every producer. */
void lw_emit_fused_prologue(kctx *K, bool reducer)
{
    lw *LA = K->L, *LB = LA->lb;
    bool along_x = LA->s->cand.fuse_along == SCHED_ON_X;
    const df_expr *gi = df_slot(K->p, along_x ? DF_SLOT_CX : DF_SLOT_CY);
    if (K->kind == DF_WRITER) {
        const df_expr *rt = x_min(K, BIN(K, DF_X_MUL, groups_here(K, LA), C(K, LA->nq)), C(K, LA->np));
        lw_sem_op(K, DF_SEM_WAIT, LA->sem_fready, rt, NULL, NULL);
    }
    if (K->kind != DF_READER || !reducer)
        return;
    const df_expr *np = reducer_programs(K, LA, gi);
    df_stmt *ws;
    int w = lw_open_if(K, x_min(K, np, C(K, 1)), &ws);
    if (!w)
        return;
    for (int i = 0; i < LB->acc->n; i++)
        if (LB->ax[i].passed) {
            df_stmt *r = S(K, DF_CB_RESERVE);
            r->cb = LB->ax[i].cb;
            r->n = BIN(K, DF_X_MUL, np, C(K, LB->ax[i].tiles));
            lw_put(K, r);
        }
    df_stmt *sv;
    df_stmt *fp = lw_open_for(K, "p", C(K, 0), C(K, LA->np), &sv);
    if (fp) {
        const df_expr *px, *py;
        lw_group_core(K, df_slot(K->p, fp->var), &px, &py);
        lw_sem_op(K, DF_SEM_INC, LA->sem_fready, C(K, 1), px, py);
        lw_close_for(K, sv);
    }
    if (w == 2)
        lw_close_for(K, ws);
}

/* On a reducer core, after all the producer's programs: the consumer
 * programs dealt to it (program j is the row's G = gi + np*j-th: group
 * G / nq, program G mod nq of it), as a consumer launch would run them, its
 * key axes taking the group's program ids. The reader first waits until
 * every producer has sent all of them (fused_valid counts one per program
 * and producer) and pushes the passed blocks. */
void lw_emit_consumer(kctx *KA, df_kernel_kind kind)
{
    lw *LA = KA->L, *LB = LA->lb;
    kctx K;
    memset(&K, 0, sizeof K);
    K.L = LB;
    K.p = KA->p;
    K.c = KA->c;
    K.kind = kind;
    K.loop = KA->loop;
    K.x0 = KA->x0, K.y0 = KA->y0, K.x1 = KA->x1, K.y1 = KA->y1;
    K.live = K.act = C(&K, 1);
    for (int i = 0; i < 3; i++) {
        K.in[i] = C(&K, 1);
        K.wave[i] = C(&K, 0);
    }
    for (int s = 0; s < LB->nst; s++)
        LB->st[s].old_popped = false;
    for (int u = 0; u < LB->nv; u++)
        LB->v[u].reserved = false;
    bool along_x = LA->s->cand.fuse_along == SCHED_ON_X;
    const df_expr *gi = df_slot(K.p, along_x ? DF_SLOT_CX : DF_SLOT_CY);
    const df_expr *nloc = reducer_programs(KA, LA, gi);
    df_stmt *saved[2];
    int nsaved = 0;
    int w = lw_open_if(&K, x_min(&K, nloc, C(&K, 1)), &saved[nsaved]);
    if (!w)
        return;
    if (w == 2)
        nsaved++;
    if (kind == DF_READER) {
        lw_sem_op(&K, DF_SEM_WAIT, LA->sem_fvalid, BIN(&K, DF_X_MUL, nloc, C(&K, LB->np)), NULL, NULL);
        for (int i = 0; i < LB->acc->n; i++)
            if (LB->ax[i].passed) {
                df_stmt *r = S(&K, DF_CB_PUSH);
                r->cb = LB->ax[i].cb;
                r->n = BIN(&K, DF_X_MUL, nloc, C(&K, LB->ax[i].tiles));
                lw_put(&K, r);
            }
    }
    if (!(kind == DF_READER && !lw_has_access(LB, LB->f->body, kind))) { /* else nothing more to read */
        df_stmt *fj = lw_open_for(&K, "j", C(&K, 0), nloc, &saved[nsaved]);
        if (!fj)
            return;
        nsaved++;
        const df_expr *G = BIN(&K, DF_X_ADD, gi, BIN(&K, DF_X_MUL, C(&K, LB->np), df_slot(K.p, fj->var)));
        const df_expr *pa[TIR_MAX_GRID] = {NULL};
        group_pids(KA, LA, BIN(&K, DF_X_DIV, G, C(&K, LB->nq)), pa);
        for (int g = 0; g < LB->f->grid_rank; g++)
            if (LB->fz->key_of[g] >= 0)
                K.pid[g] = pa[LB->fz->key_of[g]];
        lw_local_pids(&K, LB, BIN(&K, DF_X_MOD, G, C(&K, LB->nq)), K.pid);
        if (kind == DF_COMPUTE)
            lw_emit_cblock(&K, LB->f->body);
        else
            lw_emit_dm_block(&K, LB->f->body);
    }
    while (nsaved > 0)
        lw_close_for(&K, saved[--nsaved]);
    if (LB->failed)
        LA->failed = true;
}