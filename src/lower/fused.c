/* fused.c - a fused producer/consumer pair: the producer's partial results
 * go to a reducer core, which runs the consumer's programs on them
 * (sched_lower_fused). */
#include "lower/lower_int.h"

#include <stdio.h>
#include <string.h>

/* ---- a fused pair: partial results to the reducer core ------------------- */

/* Core (x, y) of the group's core at index `i` along the gather dimension
 * (the same row or column as this core). */
static void group_core(kctx *K, const df_expr *i, const df_expr **x, const df_expr **y)
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

/* The consumer's program ids along its local axes from the flattened index
 * q of its program in the group (row-major, in axis order). */
static void local_pids(kctx *K, const lw *LB, const df_expr *q, const df_expr **pid)
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
    local_pids(K, LB, q, pid);
    /* the G-th consumer program of this row goes to core G mod np */
    const df_expr *G = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, group_count(K, LA), C(K, LA->nq)), q);
    const df_expr *rx, *ry;
    group_core(K, BIN(K, DF_X_MOD, G, C(K, LA->np)), &rx, &ry);
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
        group_core(K, df_slot(K->p, fp->var), &px, &py);
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
        local_pids(&K, LB, BIN(&K, DF_X_MOD, G, C(&K, LB->nq)), K.pid);
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
struct df_program *lw_lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                  const sched_schedule *sb, const sched_fusion *f, const arch_desc *a,
                                  sym_ctx *sc, lm_diag *d, sched_l1_plan *plan, const char *pa, const char *pb,
                                  lm_arena *par)
{
    if (!sched_fused_pair(f, &sa->cand, &sb->cand)) {
        lm_error_plain(d, "cannot lower: the schedules of '%s' and '%s' are not a fused pair", ka->name, kb->name);
        return NULL;
    }
    char name[256];
    snprintf(name, sizeof name, "%s_%s", ka->f->name, kb->f->name);
    df_program *p = df_new(name);
    lw LA, LB;
    lw_init(&LA, ka, sa, a, sc, d, p);
    lw_init(&LB, kb, sb, a, sc, d, p);
    LA.fz = LB.fz = f;
    LA.lb = &LB;
    LB.la = &LA;
    LA.record = LB.record = plan != NULL;
    LA.vprefix = pa;
    LB.vprefix = pb;
    bool ok = lw_plan(&LA) && lw_plan(&LB);
    if (ok) {
        /* every program of a group in one row (column), in one wave */
        int gr = sa->cand.fuse_along == SCHED_ON_X ? G_X : G_Y;
        int64_t n = gr == G_X ? LA.gx : LA.gy;
        if (LA.ngrp[gr] != 1 || LA.grp[gr][0] != f->gather_axis || LA.E[gr] != n) {
            lw_fail(&LA, ka->f->loc, "a fused pair needs the %lld programs along axis %d on one %s of %lld cores",
                 (long long)LA.ext[f->gather_axis], f->gather_axis, gr == G_X ? "row" : "column", (long long)n);
            ok = false;
        }
    }
    ok = ok && lw_number_cbs(&LA) && lw_number_cbs(&LB) && lw_add_sems(&LA) && lw_add_sems(&LB);
    if (ok) {
        LA.sem_fready = lw_add_sem_named(&LA, "fused_ready", ka->f->loc);
        LA.sem_fvalid = lw_add_sem_named(&LA, "fused_valid", ka->f->loc);

        ok = lw_build_classes(&LA) && !LB.failed;
    }
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    if (ok && plan) {
        lw *Ls[2] = {&LA, &LB};
        lw_record_plan(Ls, 2, plan, par);
    }
    lw_free(&LA);
    lw_free(&LB);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
}

struct df_program *sched_lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                     const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc,
                                     lm_diag *d)
{
    return lw_lower_fused(ka, sa, kb, sb, f, a, sc, d, NULL, NULL, NULL, NULL);
}
