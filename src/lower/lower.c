/* lower.c - a schedule becomes a dataflow program (sched_lower).
 *
 * The same lowering serves every kernel and every origin of schedule: it
 * reads the Tile IR, the access analysis and the schedule's placement,
 * transports and values, never a kernel's name. docs/scheduler.md
 * ("Lowering") describes the result; in short:
 *
 *  - Programs onto cores. Core (cx, cy) of the gx x gy sub-grid runs the
 *    programs the placement gives it: an axis on x takes pid = cx + gx*w for
 *    waves w = 0, 1, ... while pid is in range, on y likewise with cy, axes
 *    on xy are flattened (row-major) over the cores in row-major order, an
 *    axis on time is a loop on every core. Every kernel of a core runs the
 *    same loop nest; wave counts are runtime arguments of the core.
 *  - Reader and writer. Walking the IR in program order, each block load
 *    reserves its CB (depth x block pages), reads the block's tiles from
 *    DRAM (or takes part in a multicast / forwarding handshake), and pushes;
 *    each store waits, writes, barriers and pops. Loads with a core-to-core
 *    transport alternate between the reader and the writer kernel (two NoCs,
 *    as TTNN's 2-D multicast matmul does); DRAM loads stay in the reader.
 *  - Compute. The IR body is translated op by op into tile ops on CBs.
 *    Every tile value that needs storage gets a CB; views, broadcasts and
 *    transposes are aliases that only change how a consumer reads it.
 *    Loop-carried tiles live in one CB with room for the old and the new
 *    value (the new one is pushed when made and read behind the old one
 *    until the old one is popped at its last use); an accumulator
 *    `acc = dot(a, b, acc)` started from zeros stays in place with packer
 *    L1 accumulation. A value is waited for before the first op at its own
 *    loop level that uses it and popped after the last one.
 *  - DRAM layout. A tensor of rank r is stored as TT's tile layout does:
 *    2-D, rows = all leading dimensions times dimension r-2 padded to 32,
 *    columns = dimension r-1 padded to 32, padding zero; a tensor that some
 *    access of the job views with leading dimensions merged into its rows
 *    is folded instead (all leading dimensions and r-2 as rows, padded
 *    once: sched_tensor_folds). Every block access
 *    must cover whole tiles of that layout (offsets along the last two
 *    dimensions multiples of 32); a block may be shorter than a tile along
 *    dimension r-2 or r-1 only where the padding supplies the rest.
 *
 * What cannot be lowered is reported as an error naming the construct and
 * its source line; a lowered program is bound (df_bind) and ready for
 * df_validate and the simulator.
 *
 * This file holds evaluation under the schedule's values, the lowering's
 * state and its plan, and the whole program (sched_lower). The steps live
 * beside it: layout.c (DRAM tile layout), classify.c (values, uses and
 * lifetimes), store.c (stores, CBs, Dst chains), laccess.c (accesses and
 * transports), emit.c (emission helpers), dm.c (reader and writer),
 * kcompute.c and kops.c (the compute kernel and its tile ops), fused.c (a
 * fused pair), program.c (cores and classes) and probe.c (the L1 plan for
 * the model); lower_int.h holds the state and the conventions they share.
 */
#include "lower/lower_int.h"

#include <stdlib.h>
#include <string.h>

void lw_init(lw *L, const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc, lm_diag *d,
             df_program *p)
{
    memset(L, 0, sizeof *L);
    L->k = k;
    L->s = s;
    L->a = a;
    L->sc = sc;
    L->d = d;
    L->f = k->f;
    L->acc = k->acc;
    lm_arena_init(&L->ar);
    L->p = p;
    L->nv = k->f->nvalues + 1;
    L->v = lm_xcalloc((size_t)L->nv, sizeof *L->v);
    L->ax = lm_xcalloc((size_t)(L->acc->n > 0 ? L->acc->n : 1), sizeof *L->ax);
    for (int u = 0; u < L->nv; u++)
        L->v[u].st = -1, L->v[u].root = u;
    opnums nums = {0};
    lw_number_block(L, k->f->body, &nums);
    L->nums = nums.items;
    L->nnums = (int)nums.len;
    L->def = lm_xcalloc((size_t)L->nv, sizeof *L->def);
    lw_record_defs(L, k->f->body);
}

void lw_free(lw *L)
{
    free(L->v);
    free(L->ax);
    free(L->def);
    free(L->nums);
    lm_arena_free(&L->ar);
}

/* Everything before CB numbering: the grid, tensors, accesses and their
 * transports, what every value is, and its storage. */
bool lw_plan(lw *L)
{
    const sched_kernel *k = L->k;
    bool ok = lw_setup_grid(L) && lw_add_tensors(L);
    if (ok && L->la) {
        /* a fused consumer: its programs of one group are its local axes' */
        L->nq = 1;
        for (int g = 0; g < L->f->grid_rank; g++)
            if (L->fz->key_of[g] < 0)
                L->nq *= L->ext[g];
        lw *P = L->la;
        bool along_x = P->s->cand.fuse_along == SCHED_ON_X;
        L->np = along_x ? P->gx : P->gy;
        L->nr = LM_MIN(L->nq, L->np);
        /* the cores that receive consumer programs: the first min(most groups
           of a core x programs of a group, np) */
        int other = along_x ? G_Y : G_X;
        int64_t W = 1;
        if (P->ngrp[other])
            W *= lm_cdiv(P->E[other], other == G_X ? P->gx : P->gy);
        for (int i = 0; i < P->ntime; i++)
            W *= P->ext[P->time[i]];
        L->nred = LM_MIN(W * L->nq, L->np);
        L->nmax = lm_cdiv(W * L->nq, L->np);
        P->nq = L->nq, P->np = L->np, P->nr = L->nr, P->nred = L->nred, P->nmax = L->nmax;
    }
    for (int i = 0; ok && i < L->acc->n; i++)
        ok = lw_plan_access(L, i);
    for (int i = 0; ok && i < L->acc->n; i++)
        ok = lw_plan_transport(L, &L->ax[i]);
    if (ok) {
        for (int i = 0; i < k->f->nparams; i++) {
            const tir_param *pm = &k->f->params[i];
            if (pm->has_fval) {
                V(L, pm->value)->kind = VK_CONST;
                V(L, pm->value)->c = pm->fval;
            }
        }
        lw_classify_block(L, k->f->body);
        ok = !L->failed;
    }
    if (ok) {
        lw_defblocks(L, k->f->body);
        lw_uses_block(L, k->f->body);
        /* loads: their pages */
        for (int i = 0; i < L->acc->n; i++) {
            access *x = &L->ax[i];
            if (x->is_store)
                continue;
            const tir_value *r = x->aa->op->results[0];
            vinfo *ri = V(L, r);
            if (ri->kind != VK_TILE)
                continue;
            if (ri->tr != x->tr || ri->tc != x->tc) {
                lw_fail(L, x->aa->op->loc, "the loaded tile (%lldx%lld tiles) does not match the block of '%s' "
                     "(%lldx%lld tiles) in its tile layout", (long long)ri->tr, (long long)ri->tc,
                     x->aa->tensor->name, (long long)x->tr, (long long)x->tc);
                break;
            }
            int ls = lw_new_store(L, ST_LOAD, x->tiles, x->tiles * x->depth, L->p->tensors[x->tensor].format,
                               x->aa->op->loc);
            lw_store_sym(L, ls, x->stiles, x->sdepth, lm_arena_printf(&L->ar, "%s (load)", x->aa->tensor->name));
            x->cb = -2 - ls;
            ri->st = ls;
            const char *cw = lm_arena_printf(&L->ar, "%s (masked copy)", x->aa->tensor->name);
            int64_t c0;
            if (x->clip_rows || x->clip_cols) {
                /* what a boundary check leaves out reads as padding: the compute
                   kernel masks it in a copy of its own (the pages hold stale data) */
                if (x->aa->op->code == TIR_LOAD && x->aa->op->padding == TIR_PAD_NAN) {
                    lw_fail(L, x->aa->op->loc, "padding_option=\"nan\" on a block a boundary check cuts short");
                    break;
                }
                x->clean = lw_new_store(L, ST_OWN, x->tiles, x->tiles, ri->fmt, x->aa->op->loc);
                /* alone in its CB: it exists only where the block is cut short */
                L->st[x->clean].noshare = true;
                lw_store_sym(L, x->clean, x->stiles, NULL, cw);
                L->st[x->clean].sind = x->sclip;
                ri->st = x->clean;
            } else if (!(sym_is_const(x->sclip, &c0) && c0 == 0)) {
                lw_plan_virtual(L, x->aa->op, 0, ri->fmt,
                             sym_mul(L->sc, sym_mul(L->sc, x->stiles, x->sclip), sym_const(L->sc, L->a->tile_bytes[ri->fmt])),
                             cw);
            }
        }
        lw_plan_block(L, k->f->body);
        lw_plan_dot_acc(L, k->f->body);
        lw_plan_stores(L);
        lw_plan_chains(L, k->f->body);
        for (int u = 0; u < L->nv && !L->failed; u++) {
            vinfo *v = &L->v[u];
            if (v->kind == VK_TILE && v->root == u && v->st < 0 && v->dest == D_OWN && lw_computed_by_compute(L, u)) {
                v->st = lw_new_store(L, ST_OWN, v->tr * v->tc, v->tr * v->tc, v->fmt, (lm_loc){0});
                const tir_op *dop = L->def[u];
                const char *nm = dop && dop->results[0]->name ? dop->results[0]->name
                                 : lm_arena_printf(&L->ar, "the value of line %d", dop ? dop->loc.line : 0);
                lw_store_sym(L, v->st, lw_vtiles(L, v), NULL, nm);
            }
        }
        ok = !L->failed;
    }
    return ok;
}

struct df_program *lw_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                            lm_diag *d, sched_l1_plan *plan, lm_arena *par)
{
    lw L;
    lw_init(&L, k, s, a, sc, d, df_new(k->f->name));
    L.record = plan != NULL;
    bool ok = lw_plan(&L) && lw_number_cbs(&L) && lw_add_sems(&L) && lw_build_classes(&L);
    df_program *p = L.p;
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    if (ok && plan) {
        lw *Ls[1] = {&L};
        lw_record_plan(Ls, 1, plan, par);
    }
    lw_free(&L);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
}

struct df_program *sched_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                               lm_diag *d)
{
    return lw_lower(k, s, a, sc, d, NULL, NULL);
}
struct df_program *sched_lower_launch(const sched_kernel *const *k, const sched_schedule *const *s, int n, int l,
                                      const arch_desc *a, sym_ctx *sc, lm_diag *d, int *covered)
{
    *covered = 1;
    if (s[l]->cand.fuse == SCHED_FUSE_CONSUMER) {
        lm_error_plain(d, "cannot lower: '%s' is scheduled as the consumer of a fused pair without its producer",
                       k[l]->name);
        return NULL;
    }
    if (s[l]->cand.fuse != SCHED_FUSE_PRODUCER)
        return sched_lower(k[l], s[l], a, sc, d);
    sched_fusion f;
    lm_buf why = {0};
    bool ok = l + 1 < n && s[l + 1]->cand.fuse == SCHED_FUSE_CONSUMER;
    if (ok && !sched_fusion_find(&f, k[l], k[l + 1], sc, &s[l]->values, &why))
        ok = false;
    if (!ok) {
        lm_error_plain(d, "cannot lower: '%s' is scheduled as the producer of a fused pair, but %s", k[l]->name,
                       why.len ? lm_buf_str(&why) : "the next launch is not its consumer");
        lm_buf_free(&why);
        return NULL;
    }
    lm_buf_free(&why);
    f.producer = l;
    f.consumer = l + 1;
    *covered = 2;
    return sched_lower_fused(k[l], s[l], k[l + 1], s[l + 1], &f, a, sc, d);
}
