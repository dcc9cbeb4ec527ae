/* program.c - programs on cores: the loops over a core's programs, the
 * kernels and CBs of each class of cores, the grid, tensors and
 * semaphores, and the CBs the stores share. */
#include "lower/lower_int.h"

#include <stdio.h>
#include <string.h>

/* ======================================================================
 * Programs on cores, classes (the whole program: lower.c)
 * ==================================================================== */

static const char *grp_name[3] = {"x", "y", "xy"};

/* Open the loops over this core's programs and set pid expressions. */
static bool open_programs(kctx *K, df_stmt **saved, int *nsaved)
{
    lw *L = K->L;
    *nsaved = 0;
    const df_expr *cx = df_slot(K->p, DF_SLOT_CX), *cy = df_slot(K->p, DF_SLOT_CY);
    static const int order[3] = {G_Y, G_X, G_XY};
    for (int gr = 0; gr < 3; gr++)
        K->in[gr] = C(K, 1);
    for (int oi = 0; oi < 3; oi++) {
        int gr = order[oi];
        K->wave[gr] = C(K, 0);
        if (!L->ngrp[gr])
            continue;
        int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
        const df_expr *idx = gr == G_X ? cx : gr == G_Y ? cy : BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, cy, C(K, L->gx)), cx);
        int64_t W = lm_cdiv(L->E[gr], n);
        if (L->lockstep ? W > 1 : L->E[gr] != n) {
            char name[16];
            snprintf(name, sizeof name, "w_%s", grp_name[gr]);
            df_stmt *f = lw_open_for(K, name, C(K, 0), L->lockstep ? C(K, W) : K->nw[gr], &saved[*nsaved]);
            if (!f)
                return false;
            (*nsaved)++;
            K->wave[gr] = df_slot(K->p, f->var);
        }
        if (W > 1 && L->E[gr] % n == 0 &&
            sched_zigzag(L->k, &L->s->cand, gr == G_X ? SCHED_ON_X : gr == G_Y ? SCHED_ON_Y : SCHED_ON_XY, L->sc)) {
            /* whole waves back and forth (sched_zigzag): wave w backward
               where W - 1 - w is odd, the unpaired one of an odd W (the
               first) forward */
            const df_expr *back = BIN(K, DF_X_MOD, BIN(K, DF_X_SUB, C(K, W - 1), K->wave[gr]), C(K, 2));
            idx = BIN(K, DF_X_ADD, idx, BIN(K, DF_X_MUL, back, BIN(K, DF_X_SUB, C(K, n - 1), BIN(K, DF_X_MUL, C(K, 2), idx))));
        }
        const df_expr *q = BIN(K, DF_X_ADD, idx, BIN(K, DF_X_MUL, C(K, n), K->wave[gr]));
        /* whole waves: every index is in range */
        K->in[gr] = L->E[gr] % n == 0 ? C(K, 1) : x_min(K, x_max(K, BIN(K, DF_X_SUB, C(K, L->E[gr]), q), C(K, 0)), C(K, 1));
        for (int i = L->ngrp[gr] - 1; i >= 0; i--) {
            int g = L->grp[gr][i];
            if (i == 0) {
                K->pid[g] = q;
            } else {
                K->pid[g] = BIN(K, DF_X_MOD, q, C(K, L->ext[g]));
                q = BIN(K, DF_X_DIV, q, C(K, L->ext[g]));
            }
        }
    }
    for (int i = 0; i < L->ntime; i++) {
        int g = L->time[i];
        char name[16];
        snprintf(name, sizeof name, "t%d", g);
        df_stmt *f = lw_open_for(K, name, C(K, 0), C(K, L->ext[g]), &saved[*nsaved]);
        if (!f)
            return false;
        (*nsaved)++;
        K->pid[g] = df_slot(K->p, f->var);
    }
    K->act = BIN(K, DF_X_MUL, BIN(K, DF_X_MUL, K->in[G_X], K->in[G_Y]), K->in[G_XY]);
    return true;
}

static bool kernel_moves(lw *L, df_kernel_kind kind)
{
    for (int i = 0; i < L->acc->n; i++)
        if (L->ax[i].kernel == kind && !L->ax[i].is_store && L->ax[i].how.transport != SCHED_DRAM)
            return true;
    return false;
}

static void emit_kernel(lw *L, df_class *c, df_kernel_kind kind, const int rect[4], const df_expr *const nw[3])
{
    kctx K;
    memset(&K, 0, sizeof K);
    K.L = L;
    K.p = L->p;
    K.c = c;
    K.kind = kind;
    K.x0 = rect[0], K.y0 = rect[1], K.x1 = rect[2], K.y1 = rect[3];
    K.live = df_const(L->p, 1);
    for (int g = 0; g < 3; g++)
        K.nw[g] = nw[g];
    for (int s = 0; s < L->nst; s++)
        L->st[s].old_popped = false;
    for (int u = 0; u < L->nv; u++)
        L->v[u].reserved = false;
    /* a fused producer's reducer cores (the first along the gather
       dimension) run the consumer's programs dealt to them after their own */
    bool reducer = L->lb && (L->s->cand.fuse_along == SCHED_ON_X ? rect[2] < L->nred : rect[3] < L->nred);
    if (kind == DF_COMPUTE ? false
                           : !lw_has_access(L, L->f->body, kind) && !(reducer && kind == DF_READER) &&
                                 !(reducer && lw_has_access(L->lb, L->lb->f->body, kind)))
        return;
    if (L->lb && kind != DF_COMPUTE)
        lw_emit_fused_prologue(&K, reducer);
    df_stmt *saved[3 + TIR_MAX_GRID];
    int nsaved;
    if (!open_programs(&K, saved, &nsaved))
        return;
    if (kind == DF_COMPUTE) {
        df_stmt *g;
        int w = lw_open_if(&K, K.act, &g);
        if (w)
            lw_emit_cblock(&K, L->f->body);
        if (w == 2)
            lw_close_for(&K, g);
        /* a program this core does not run: the shared blocks its group still
           pushes here, popped unused */
        int idle = L->lockstep && w != 1 ? lw_open_if(&K, BIN(&K, DF_X_SUB, C(&K, 1), K.act), &g) : 0;
        if (idle) {
            lw_emit_drain(&K, L->f->body);
            if (idle == 2)
                lw_close_for(&K, g);
        }
    } else {
        lw_emit_dm_block(&K, L->f->body);
    }
    while (nsaved > 0)
        lw_close_for(&K, saved[--nsaved]);
    if (reducer)
        lw_emit_consumer(&K, kind);
    if (kind != DF_COMPUTE && kernel_moves(L, kind))
        lw_put(&K, S(&K, DF_WRITE_BARRIER));
}

/* Column (row) boundaries where a core's role changes. */
static int cuts(lw *L, bool xdim, int64_t *out)
{
    int64_t n = xdim ? L->gx : L->gy;
    int k = 0;
    out[k++] = 0;
    for (int i = 0; i < L->acc->n; i++) {
        const access *x = &L->ax[i];
        if (x->is_store || x->how.transport == SCHED_DRAM)
            continue;
        sched_place al = x->how.along;
        bool mine = al == SCHED_ON_XY || (xdim ? al == SCHED_ON_X : al == SCHED_ON_Y);
        if (!mine)
            continue;
        int64_t s = x->how.transport == SCHED_MCAST ? lw_sender_pos(L, x, n) : 0;
        out[k++] = s;
        out[k++] = s + 1;
        if (x->how.transport == SCHED_FORWARD)
            out[k++] = n - 1; /* the end of the chain passes nothing on */
    }
    if (L->lb && (L->s->cand.fuse_along == SCHED_ON_X) == xdim)
        out[k++] = L->nred; /* the cores that may be reducers (the first along the gather dimension) */
    out[k++] = n;
    /* sort, unique, within [0, n] */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < k; i++)
        if (out[i] <= n && (m == 0 || out[m - 1] != out[i]))
            out[m++] = out[i];
    return m;
}

static int64_t waves_at(lw *L, int gr, int64_t x, int64_t y)
{
    if (!L->ngrp[gr])
        return 1;
    int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
    int64_t idx = gr == G_X ? x : gr == G_Y ? y : y * L->gx + x;
    return L->E[gr] > idx ? lm_cdiv(L->E[gr] - idx, n) : 0;
}

/* The CBs of a class: a CB shared by several values is as large as the
 * largest; a fused consumer's CB that reuses its producer's id (on a
 * reducer core) grows the declaration already there. */
static void declare_cbs(lw *L, df_class *c)
{
    for (int s = 0; s < L->nst; s++) {
        const store *st = &L->st[s];
        bool first = st->cb >= 0;
        for (int o = 0; o < s && first; o++)
            first = L->st[o].cb != st->cb;
        if (!first)
            continue;
        int64_t pages = 0;
        for (int o = s; o < L->nst; o++)
            if (L->st[o].cb == st->cb)
                pages = LM_MAX(pages, L->st[o].pages);
        df_cb *have = NULL;
        for (int i = 0; i < c->ncbs; i++)
            if (c->cbs[i].id == st->cb)
                have = &c->cbs[i];
        if (st->pair) {
            /* the current and the next value, a block each */
            df_add_cb(L->p, c, st->cb, st->fmt, df_const(L->p, st->tiles), (lm_loc){0});
            df_add_cb(L->p, c, st->cb2, st->fmt, df_const(L->p, st->tiles), (lm_loc){0});
            continue;
        }
        if (!have) {
            df_add_cb(L->p, c, st->cb, st->fmt, df_const(L->p, pages), (lm_loc){0});
            continue;
        }
        if (have->format != st->fmt) {
            lw_fail(L, (lm_loc){0}, "CB %d holds %s pages for one launch of the fused pair and %s for the other",
                 st->cb, df_format_name(have->format), df_format_name(st->fmt));
            return;
        }
        int64_t old = df_eval(have->pages_e, NULL);
        if (pages > old)
            have->pages_e = df_const(L->p, pages);
    }
}

bool lw_build_classes(lw *L)
{
    int64_t xs_[64], ys_[64];
    int nx = cuts(L, true, xs_), ny = cuts(L, false, ys_);
    for (int j = 0; j + 1 < ny; j++)
        for (int i = 0; i + 1 < nx; i++) {
            int rect[4] = {(int)xs_[i], (int)ys_[j], (int)xs_[i + 1] - 1, (int)ys_[j + 1] - 1};
            /* cores with no program at all are left idle */
            bool any = false;
            for (int y = rect[1]; y <= rect[3]; y++)
                for (int x = rect[0]; x <= rect[2]; x++) {
                    bool has = true;
                    for (int gr = 0; gr < 3; gr++)
                        has &= waves_at(L, gr, x, y) > 0;
                    any |= has;
                }
            if (!any && !L->lockstep)
                continue; /* (in lockstep an idle core still passes blocks on) */
            char name[40];
            snprintf(name, sizeof name, "cores_%d_%d", rect[0], rect[1]);
            df_class *c = df_add_class(L->p, name, df_const(L->p, rect[0]), df_const(L->p, rect[1]),
                                       df_const(L->p, rect[2]), df_const(L->p, rect[3]), (lm_loc){0});
            c->fidelity = L->s->fidelity;
            c->fp32_acc = L->s->fp32_acc;
            const df_expr *nw[3] = {NULL, NULL, NULL};
            const df_expr *cx = df_slot(L->p, DF_SLOT_CX), *cy = df_slot(L->p, DF_SLOT_CY);
            for (int gr = 0; gr < 3; gr++) {
                int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
                if (!L->ngrp[gr] || L->E[gr] == n || L->lockstep)
                    continue;
                /* programs left for this core: ceil((E - index) / n), none past the end */
                const df_expr *idx = gr == G_X   ? cx
                                     : gr == G_Y ? cy
                                                 : df_bin(L->p, DF_X_ADD, df_bin(L->p, DF_X_MUL, cy, df_const(L->p, L->gx)), cx);
                const df_expr *e = df_bin(L->p, DF_X_SUB, df_const(L->p, L->E[gr] + n - 1), idx);
                e = df_bin(L->p, DF_X_MAX, df_bin(L->p, DF_X_DIV, e, df_const(L->p, n)), df_const(L->p, 0));
                char an[16];
                snprintf(an, sizeof an, "nw_%s", grp_name[gr]);
                int slot = df_add_arg(L->p, c, an, e);
                if (slot < 0) {
                    lw_fail(L, (lm_loc){0}, "too many runtime arguments");
                    return false;
                }
                nw[gr] = df_slot(L->p, slot);
            }
            /* the CBs (temporaries included: lw_plan_temps gave them), then the kernels */
            declare_cbs(L, c);
            if (L->lb && (L->s->cand.fuse_along == SCHED_ON_X ? rect[2] < L->nred : rect[3] < L->nred))
                declare_cbs(L->lb, c);
            for (int k = 0; k < DF_NSUPPORT; k++)
                if ((c->support[k] = L->sup_cb[k]) >= 0)
                    df_add_cb(L->p, c, L->sup_cb[k], df_support_format[k], df_const(L->p, df_support_pages[k]),
                              (lm_loc){0});
            for (int kk = 0; kk < DF_NKERNELS && !L->failed; kk++)
                emit_kernel(L, c, (df_kernel_kind)kk, rect, nw);
            if (!L->failed)
                lw_split_masks(L, c, rect);
            if (L->failed)
                return false;
        }
    if (L->p->nclasses == 0) {
        lw_fail(L, (lm_loc){0}, "no core has a program to run");
        return false;
    }
    return true;
}

/* Whether a loop runs exactly one trip in every program. */
static bool one_trip(lw *L, const tir_op *f)
{
    if (!f || f->code != TIR_FOR || !f->sym)
        return false;
    int64_t n;
    return sym_eval(f->sym, &L->s->values, &n) == SYM_OK && n == 1;
}

void lw_plan_stores(lw *L)
{
    for (int i = 0; i < L->acc->n && !L->failed; i++) {
        access *x = &L->ax[i];
        if (!x->is_store)
            continue;
        const tir_op *op = x->aa->op;
        lm_loc loc = op->loc;
        const tir_value *val = op->opnds[1];
        const vinfo *vi = V(L, val);
        const sym_expr *many = NULL; /* the output's CB exists only when a loop runs more than once */
        arch_format tf;
        (void)tf;
        if (x->tensor < 0)
            return;
        tf = L->p->tensors[x->tensor].format;
        x->copy_in = true;
        if (vi->kind == VK_TILE) {
            if (vi->bc != BC_NONE || vi->trans) {
                lw_fail(L, loc, "storing a broadcast or transposed view");
                return;
            }
            bool turns = lw_store_turns(vi, x);
            if ((turns && !vi->tview ? vi->tc != x->tr || vi->tr != x->tc : vi->tr != x->tr || vi->tc != x->tc)) {
                lw_fail(L, loc, "the stored tile (%lldx%lld tiles) does not match the block of '%s' (%lldx%lld tiles) "
                             "in its tile layout", (long long)vi->tr, (long long)vi->tc, x->aa->tensor->name,
                     (long long)x->tr, (long long)x->tc);
                return;
            }
            int r = vi->root;
            vinfo *ri = &L->v[r];
            /* An accumulator of another format than the tensor is packed in the
               tensor's format when its loop runs once, else copied out: the L1
               plan takes the format and the output's CB from the trip count. */
            if (L->record && !turns && ri->rl == R_RESULT && lw_only_use(L, r) == op && ri->fmt != tf &&
                L->st[ri->st].inplace) {
                const tir_op *lp = L->def[r];
                int64_t t;
                many = lp && lp->sym && sym_eval(lp->sym, &L->s->values, &t) == SYM_OK
                           ? lw_positive(L, sym_sub(L->sc, lp->sym, sym_const(L->sc, 1)))
                           : sym_const(L->sc, 1);
                store *cs = &L->st[ri->st];
                const sym_expr *tb = sym_add(L->sc, sym_const(L->sc, L->a->tile_bytes[tf]),
                                             sym_mul(L->sc, many, sym_const(L->sc, L->a->tile_bytes[cs->fmt] -
                                                                                       L->a->tile_bytes[tf])));
                /* written out from the accumulator (one trip) it holds the
                   output's depth in blocks, else one block */
                const sym_expr *mult = sym_add(
                    L->sc, many, sym_mul(L->sc, sym_sub(L->sc, sym_const(L->sc, 1), many), x->sdepth));
                cs->sbytes = sym_mul(L->sc, sym_mul(L->sc, cs->stiles, mult), tb);
            }
            if (turns) {
                /* a column vector stored as a row: transposed into the CB */
            } else if (ri->rl == R_RESULT && lw_only_use(L, r) == op && L->st[ri->st].inplace &&
                       (ri->fmt == tf || one_trip(L, L->def[r]))) {
                /* written out straight from where it was made; an accumulator
                   whose loop runs once never adds in L1, so it can be packed
                   in the tensor's format at once. Only an accumulator in
                   place: a carry that ping-pongs pushes a page every trip
                   (its initial value first), which a writer waiting on the
                   CB would take and write out before the loop is done */
                store *cs = &L->st[ri->st];
                cs->writer_pops = true;
                cs->fmt = tf;
                if (cs->inplace) {
                    /* accumulated in place and written from there: the CB
                       holds depth blocks, so that the next block is computed
                       while the writer drains this one (the compute reads
                       and writes only pages it reserved, behind the ones the
                       writer holds) */
                    cs->pages = cs->tiles * x->depth;
                    if (!cs->sbytes)
                        cs->smult = x->sdepth;
                }
                x->copy_in = false;
                x->root = r;
                x->cb = -2 - ri->st; /* resolved when CBs are numbered */
                if (many)
                    lw_plan_virtual(L, op, 0, tf,
                                 sym_mul(L->sc, sym_mul(L->sc, many, sym_mul(L->sc, x->stiles, x->sdepth)),
                                         sym_const(L->sc, L->a->tile_bytes[tf])),
                                 lm_arena_printf(&L->ar, "%s (store)", x->aa->tensor->name));
                continue;
            }
            else if (lw_computed_by_compute(L, r) && ri->dest == D_OWN && ri->fmt == tf && lw_only_use(L, r) == op) {
                ri->dest = D_OUT;
                ri->dest_ref = i;
                x->copy_in = false;
                x->root = r;
            }
        } else if (vi->kind != VK_CONST) {
            lw_fail(L, loc, "a stored value the lowering does not hold in tiles");
            return;
        }
        int s = lw_new_store(L, ST_OUT, x->tiles, x->tiles * x->depth, tf, loc);
        lw_store_sym(L, s, x->stiles, x->sdepth, lm_arena_printf(&L->ar, "%s (store)", x->aa->tensor->name));
        L->st[s].sind = many;
        x->cb = -2 - s;
        if (!x->copy_in)
            L->v[x->root].st = s;
    }
}

static int pos_end(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->nnums; i++)
        if (L->nums[i].op == op)
            return L->nums[i].end;
    return -1;
}

/* Values of the compute kernel whose lifetimes never overlap share a CB
 * (of their format, as large as the largest): a value is popped before the
 * next one in the same CB is reserved, in program order, which the pack
 * engine (behind unpack) never waits on out of order. Lifetimes run from
 * the producing op to the end of the op, at the value's own level, that
 * holds its last use - a whole loop when it is read inside one. Taken in
 * order of production, a value goes to a free CB of its own shape (its
 * tiles as an expression), else borrows a free CB of another shape when it
 * ends before any value of that shape yet to come starts (so a small value
 * never keeps a large CB from the next large value), else to a CB of its
 * own. Shapes are compared as expressions, never by their sizes at one
 * schedule, so that every schedule shares the same way and the model's L1
 * (sched_lower_l1) is one expression. */
static bool same_shape(const store *a, const store *b) { return a->stiles == b->stiles; }

static void share_cbs(lw *L)
{
    int slot_of[LW_MAX_STORES], nslots = 0;
    struct {
        int last, first_store;
        arch_format fmt;
    } slot[LW_MAX_STORES];
    for (int s = 0; s < L->nst; s++) {
        slot_of[s] = -1;
        if (L->st[s].kind != ST_OWN)
            continue;
        for (int u = 0; u < L->nv; u++) {
            const vinfo *v = &L->v[u];
            if (v->kind != VK_TILE || v->root != u || v->st != s || v->dest != D_OWN || !L->def[u])
                continue;
            L->st[s].first = lw_pos(L, L->def[u]);
            L->st[s].last = v->last_top ? LM_MAX(pos_end(L, v->last_top), L->st[s].first) : L->st[s].first;
        }
    }
    /* by first production; a slot whose last member ended before takes it */
    for (;;) {
        int best = -1;
        for (int s = 0; s < L->nst; s++)
            if (L->st[s].kind == ST_OWN && !L->st[s].noshare && slot_of[s] < 0 && L->st[s].first >= 0 &&
                (best < 0 || L->st[s].first < L->st[best].first))
                best = s;
        if (best < 0)
            break;
        store *b = &L->st[best];
        int k = -1;
        for (int i = 0; i < nslots && k < 0; i++)
            if (slot[i].fmt == b->fmt && slot[i].last < b->first && same_shape(&L->st[slot[i].first_store], b))
                k = i;
        for (int i = 0; i < nslots && k < 0; i++) {
            if (slot[i].fmt != b->fmt || slot[i].last >= b->first)
                continue;
            bool blocks = false;
            for (int u = 0; u < L->nst && !blocks; u++)
                blocks = u != best && L->st[u].kind == ST_OWN && !L->st[u].noshare && slot_of[u] < 0 &&
                         L->st[u].first >= 0 && L->st[u].fmt == b->fmt &&
                         same_shape(&L->st[u], &L->st[slot[i].first_store]) && L->st[u].first <= b->last;
            if (!blocks)
                k = i;
        }
        if (k < 0) {
            k = nslots++;
            slot[k].fmt = b->fmt;
            slot[k].first_store = best;
            slot[k].last = -1;
        }
        slot_of[best] = k;
        slot[k].last = b->last;
        store *f = &L->st[slot[k].first_store];
        if (f->pages < b->pages)
            f->pages = b->pages;
        if (!same_shape(f, b))
            f->mixed = true;
    }
    for (int s = 0; s < L->nst; s++)
        if (slot_of[s] >= 0 && slot[slot_of[s]].first_store != s)
            L->st[s].cb = -3 - slot[slot_of[s]].first_store; /* shares that store's CB */
}

/* Producer store a and consumer store s of a fused pair share a CB of
 * another size: both kernels move it by the larger ring. */
static void one_step(lw *P, store *a, const store *s, lw *C)
{
    int64_t m = LM_MAX(a->pages, s->pages);
    a->pages = m;
    if (a->cb >= 0 && a->cb < (int)LM_COUNT(P->cb_step))
        P->cb_step[a->cb] = C->cb_step[a->cb] = m;
}

bool lw_number_cbs(lw *L)
{
    /* loads, outputs, carried tiles, then values of the compute kernel */
    share_cbs(L);
    if (L->la) {
        /* a fused consumer's values take its producer's CBs of their format:
           on the reducer the two computations never overlap. A CB whose
           values differ in size moves in steps of its whole ring in both
           kernels (as on a card a CB moves in one step size), which the
           producer's cores declare too */
        bool taken[LW_MAX_STORES] = {false};
        for (int s = 0; s < L->nst; s++) {
            if (L->st[s].kind != ST_OWN || L->st[s].cb != -1 || L->st[s].noshare)
                continue;
            lw *P = L->la;
            for (int a = 0; a < P->nst; a++) {
                bool leader = P->st[a].kind == ST_OWN && P->st[a].cb >= 0 && !P->st[a].noshare;
                for (int o = 0; o < a && leader; o++)
                    leader = P->st[o].cb != P->st[a].cb;
                if (leader && !taken[a] && P->st[a].fmt == L->st[s].fmt) {
                    taken[a] = true;
                    L->st[s].cb = P->st[a].cb;
                    if (P->st[a].mixed || P->st[a].pages != L->st[s].pages)
                        one_step(P, &P->st[a], &L->st[s], L);
                    break;
                }
            }
        }
    }
    static const stkind order[] = {ST_LOAD, ST_OUT, ST_CARRY, ST_OWN};
    for (size_t o = 0; o < LM_COUNT(order); o++)
        for (int s = 0; s < L->nst; s++) {
            if (L->st[s].kind == order[o] && L->st[s].cb == -1)
                L->st[s].cb = lw_next_cb(L, (lm_loc){0});
            if (L->st[s].kind == order[o] && L->st[s].pair)
                L->st[s].cb2 = lw_next_cb(L, (lm_loc){0});
        }
    for (int s = 0; s < L->nst; s++)
        if (L->st[s].cb <= -3) {
            const store *f = &L->st[-3 - L->st[s].cb];
            L->st[s].cb = f->cb;
        }
    for (int i = 0; i < L->acc->n; i++)
        if (L->ax[i].cb <= -2)
            L->ax[i].cb = L->st[-2 - L->ax[i].cb].cb;
    /* a CB whose values differ in size: every value takes the whole ring */
    for (int s = 0; s < L->nst; s++)
        if (L->st[s].mixed && L->st[s].cb >= 0 && L->st[s].cb < (int)LM_COUNT(L->cb_step))
            L->cb_step[L->st[s].cb] = LM_MAX(L->cb_step[L->st[s].cb], L->st[s].pages); /* (a fused pair's may be larger) */
    return !L->failed;
}

bool lw_setup_grid(lw *L)
{
    const tir_func *f = L->f;
    L->gx = lw_value_of(L, "grid.x", 1);
    L->gy = lw_value_of(L, "grid.y", 1);
    if (L->gx < 1 || L->gy < 1 || L->gx > L->a->grid_w || L->gy > L->a->grid_h) {
        lw_fail(L, f->loc, "a %lldx%lld core grid does not fit the %dx%d grid of '%s'", (long long)L->gx,
             (long long)L->gy, L->a->grid_w, L->a->grid_h, L->a->name);
        return false;
    }
    for (int gr = 0; gr < 3; gr++)
        L->E[gr] = 1;
    for (int g = 0; g < f->grid_rank; g++) {
        if (!lw_ev(L, f->grid[g], &L->ext[g], f->loc))
            return false;
        if (L->ext[g] < 1) {
            lw_fail(L, f->loc, "grid axis %d has %lld programs", g, (long long)L->ext[g]);
            return false;
        }
        sched_place pl = L->s->cand.place[g];
        if (pl == SCHED_ON_TIME) {
            L->time[L->ntime++] = g;
            continue;
        }
        int gr = pl == SCHED_ON_X ? G_X : pl == SCHED_ON_Y ? G_Y : G_XY;
        L->grp[gr][L->ngrp[gr]++] = g;
        L->E[gr] *= L->ext[g];
    }
    if (L->ngrp[G_XY] && (L->ngrp[G_X] || L->ngrp[G_Y])) {
        lw_fail(L, f->loc, "program axes flattened over the grid together with axes along x or y");
        return false;
    }
    L->dst_cap = L->s->fp32_acc ? L->a->dst_tiles_half_32b : L->a->dst_tiles_half_16b;
    return true;
}

/* The storage format of a tensor: the summary's IN/OUT buffer says it (a
 * baseline may have chosen a block float), else the element type. */
static bool tensor_format(lw *L, const tir_tensor *t, arch_format *fmt)
{
    for (int b = 0; b < L->k->nbufs; b++) {
        const sched_buf *sb = &L->k->bufs[b];
        if ((sb->kind == SCHED_BUF_IN || sb->kind == SCHED_BUF_OUT) && sb->access >= 0 && sb->access < L->acc->n &&
            L->acc->acc[sb->access].tensor == t) {
            *fmt = sb->format;
            return true;
        }
    }
    return lw_elem_format(L, t->elem, fmt, t->loc);
}

bool lw_add_tensors(lw *L)
{
    /* every tensor the kernel touches, in launch-spec order of first access */
    for (int i = 0; i < L->acc->n; i++) {
        const tir_tensor *t = L->acc->acc[i].tensor;
        if (!t || lw_tensor_index(L, t) >= 0)
            continue;
        int64_t shape[TIR_MAX_RANK];
        for (int d = 0; d < t->rank; d++)
            if (!lw_ev(L, t->shape[d], &shape[d], t->loc))
                return false;
        int64_t rows, cols;
        sched_tensor_dims(shape, t->rank, t->fold_rows, &rows, &cols);
        arch_format fmt;
        if (!tensor_format(L, t, &fmt))
            return false;
        df_role drole = t->role == TIR_INPUT ? DF_INPUT : t->role == TIR_OUTPUT ? DF_OUTPUT : DF_SCRATCH;
        int ti = df_add_tensor(L->p, t->name, df_const(L->p, rows), df_const(L->p, cols), fmt, drole, t->loc);
        L->p->tensors[ti].seed = (uint64_t)ti + 1;
    }
    return true;
}

/* A unique semaphore name from `base`. */
int lw_add_sem_named(lw *L, const char *base, lm_loc loc)
{
    const char *name = base;
    for (int n = 2;; n++) {
        bool clash = false;
        for (int t = 0; t < L->p->ntensors; t++)
            clash |= !strcmp(L->p->tensors[t].name, name);
        for (int s = 0; s < L->p->nsems; s++)
            clash |= !strcmp(L->p->sems[s].name, name);
        if (!clash)
            break;
        name = lm_arena_printf(&L->ar, "%s%d", base, n);
    }
    return df_add_sem(L->p, name, df_const(L->p, 0), loc);
}

bool lw_add_sems(lw *L)
{
    for (int i = 0; i < L->acc->n; i++) {
        access *x = &L->ax[i];
        if (x->is_store || x->how.transport == SCHED_DRAM || x->how.transport == SCHED_FUSED)
            continue;
        for (int k = 0; k < 2; k++) {
            const char *base = lm_arena_printf(&L->ar, "%s_%s", x->aa->tensor->name, k ? "valid" : "ready");
            int s = lw_add_sem_named(L, base, x->aa->op->loc);
            if (k)
                x->sem_valid = s;
            else
                x->sem_ready = s;
        }
    }
    return true;
}
