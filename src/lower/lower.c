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
 * This file holds the lowering's state and its plan, the whole program
 * (sched_lower, and sched_lower_fused for a fused pair) and its record as
 * the L1 plan. The steps live beside it, each file calling only the ones
 * before it: lw.c (failure, evaluation under the schedule's values),
 * layout.c (DRAM tile layout), emit.c (emission helpers), classify.c
 * (values, uses and lifetimes), store.c (stores, CBs, Dst chains),
 * laccess.c (accesses and transports), dm.c (reader and writer), kstmt.c,
 * kops.c and kcompute.c (the compute kernel's operands and statements, its
 * tile ops with their temporaries, its walk and the planning walk), fused.c
 * (a fused pair's reducer), program.c (cores and classes); probe.c (the L1
 * plan for the model, planning only: lw_plan_l1) calls this file. lower_int.h holds the state and the
 * conventions they share.
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
    for (int i = 0; i < DF_NSUPPORT; i++)
        L->sup_cb[i] = -1;
    L->nv = k->f->nvalues + 1;
    L->v = lm_xcalloc((size_t)L->nv, sizeof *L->v);
    L->ax = lm_xcalloc((size_t)(L->acc->n > 0 ? L->acc->n : 1), sizeof *L->ax);
    for (int u = 0; u < L->nv; u++)
        L->v[u].st = -1, L->v[u].root = u, L->v[u].dom = 1.0;
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
    free(L->row);
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
        ok = lw_orient(L);
        if (ok)
            lw_classify_block(L, k->f->body);
        if (ok && !L->failed)
            lw_plan_scales_block(L, k->f->body);
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
            if (ri->root == r->uid && !ri->nuses && !x->passed && x->how.transport == SCHED_DRAM) {
                x->dead = true; /* nothing reads it: not loaded */
                continue;
            }
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
                lw_split_note_clean(L, i);
            } else if (!(sym_is_const(x->sclip, &c0) && c0 == 0)) {
                lw_plan_virtual(L, x->aa->op, 0, ri->fmt,
                             sym_mul(L->sc, sym_mul(L->sc, x->stiles, x->sclip), sym_const(L->sc, L->a->tile_bytes[ri->fmt])),
                             cw);
            }
        }
        lw_plan_block(L, k->f->body);
        lw_plan_dot_acc(L, k->f->body);
        lw_plan_stores(L);
        lw_plan_rowmax(L, k->f->body);
        lw_plan_chains(L, k->f->body);
        lw_plan_packsums(L, k->f->body);
        lw_plan_packcasts(L);
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

/* The CBs of a lowered program as the L1 plan: every CB with the values
 * sharing it, then the CBs only other values need. A fused pair's plan
 * (n = 2: producer, consumer, whose CB ids come from one counter) is a
 * reducer core's, where both kernels' CBs are declared; each launch's
 * depths take its prefix (vprefix). */
void lw_record_plan(lw *const *Ls, int n, sched_l1_plan *plan, lm_arena *ar)
{
    sym_ctx *sc = Ls[0]->sc;
    const arch_desc *a = Ls[0]->a;
    int ncbs = Ls[0]->ncbs, total = ncbs + DF_NSUPPORT;
    for (int l = 0; l < n; l++)
        total += Ls[l]->nvirt;
    plan->cbs = LM_NEWN(ar, sched_l1_cb, total ? total : 1);
    plan->ncbs = 0;
    /* per access of the (first) kernel: NoC commands and clipping */
    const lw *L0 = Ls[0];
    plan->nacc = L0->acc->n;
    plan->cmds = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    plan->clip = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    plan->clip_kept = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    plan->moved = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    plan->live = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    for (int i = 0; i < plan->nacc; i++) {
        plan->cmds[i] = L0->ax[i].scmds;
        plan->clip[i] = L0->ax[i].sclip;
        plan->clip_kept[i] = L0->ax[i].smasked;
        plan->moved[i] = L0->ax[i].smoved;
        plan->live[i] = sym_const(sc, L0->ax[i].dead ? 0 : 1);
    }
    /* the chains in Dst, then the row maxima taken inside a maximum (the
       reduction's result stays in Dst for it: a link like a chain's) */
    int nch = L0->nchains + L0->nfmax;
    plan->nchains = nch;
    plan->chain_from = LM_NEWN(ar, const tir_op *, nch ? nch : 1);
    plan->chain_to = LM_NEWN(ar, const tir_op *, nch ? nch : 1);
    for (int i = 0; i < L0->nchains; i++) {
        plan->chain_from[i] = L0->chain_from[i];
        plan->chain_to[i] = L0->chain_to[i];
    }
    for (int i = 0; i < L0->nfmax; i++) {
        plan->chain_from[L0->nchains + i] = L0->fmax_red[i];
        plan->chain_to[L0->nchains + i] = L0->fmax_max[i];
    }
    sched_lowered *lo = LM_NEWN(ar, sched_lowered, L0->ngone + L0->npcast + L0->npsum + L0->nsplit + L0->npass + 1);
    plan->nlowered = 0;
    for (int i = 0; i < L0->ngone; i++)
        lo[plan->nlowered++] = (sched_lowered){.kind = SCHED_LOWER_GONE, .op = L0->gone[i]};
    /* (before the row sums: the model prices the pack's format, then adds the sums' pack) */
    for (int i = 0; i < L0->npcast; i++)
        lo[plan->nlowered++] = (sched_lowered){.kind = SCHED_LOWER_PACKCAST, .op = L0->pcast_op[i], .by = L0->pcast_src[i]};
    for (int i = 0; i < L0->npsum; i++)
        lo[plan->nlowered++] = (sched_lowered){.kind = SCHED_LOWER_PACKSUM, .op = L0->psum_red[i], .by = L0->psum_src[i]};
    for (int i = 0; i < L0->nsplit; i++)
        lo[plan->nlowered++] = (sched_lowered){.kind = SCHED_LOWER_SPLIT, .op = L0->split_op[i], .masked = L0->split_masked[i]};
    for (int i = 0; i < L0->npass; i++) {
        /* a row maximum taken inside a maximum (D_FUSED) emits no passes */
        const tir_op *op = L0->pass_op[i];
        if (L0->v[L0->v[op->results[0]->uid].root].dest == D_FUSED)
            continue;
        lo[plan->nlowered++] = (sched_lowered){.kind = SCHED_LOWER_PASSES, .op = op, .passes = L0->pass_n[i],
                                               .tiles = L0->pass_tiles[i], .format = L0->pass_fmt[i]};
    }
    plan->lowered = lo;
    plan->bytes = plan->count = sym_const(sc, 0);
    const sym_expr *one = sym_const(sc, 1);
    for (int cb = 0; cb < ncbs; cb++) {
        int nu = 0;
        for (int l = 0; l < n; l++)
            for (int s = 0; s < Ls[l]->nst; s++)
                nu += Ls[l]->st[s].cb == cb || Ls[l]->st[s].cb2 == cb;
        if (!nu)
            continue;
        sched_l1_cb *c = &plan->cbs[plan->ncbs++];
        c->uses = LM_NEWN(ar, sched_l1_use, nu);
        c->nuses = 0;
        const sym_expr *most = NULL;
        for (int l = 0; l < n; l++) {
            const lw *L = Ls[l];
            for (int s = 0; s < L->nst; s++) {
                const store *st = &L->st[s];
                if (st->cb != cb && st->cb2 != cb)
                    continue;
                if (!c->nuses)
                    c->format = st->fmt;
                /* a pair holds one block in each of its two CBs */
                const sym_expr *b = st->sbytes ? st->sbytes
                                               : sym_mul(sc, st->pair ? st->stiles : sym_mul(sc, st->stiles, st->smult),
                                                         sym_const(sc, a->tile_bytes[st->fmt]));
                if (st->sind)
                    b = sym_mul(sc, b, st->sind);
                b = sched_prefix_depths(L->k, b, sc, L->vprefix);
                const char *what = st->what ? st->what : "?";
                if (st->cb2 == cb)
                    what = lm_arena_printf(ar, "%s, next", what);
                c->uses[c->nuses++] = (sched_l1_use){lm_arena_strdup(ar, what), b, l};
                most = most ? sym_max(sc, most, b) : b;
            }
        }
        plan->bytes = sym_add(sc, plan->bytes, most);
        plan->count = sym_add(sc, plan->count, sym_min(sc, one, most));
    }
    /* the support CBs a card's compute kernel adds, once for both launches
       of a pair (the reducer's one compute kernel runs both) */
    static const char *const what[DF_NSUPPORT] = {"the unit tile of row reductions (card)",
                                                  "a folded row sum's page (card)",
                                                  "the index tiles of masks (card)"};
    for (int k = 0; k < DF_NSUPPORT; k++) {
        const sym_expr *when = NULL;
        for (int l = 0; l < n; l++)
            if (Ls[l]->sup[k])
                when = when ? sym_max(sc, when, Ls[l]->sup[k]) : Ls[l]->sup[k];
        if (!when)
            continue;
        sched_l1_cb *c = &plan->cbs[plan->ncbs++];
        arch_format f = df_support_format[k];
        const sym_expr *b = sym_mul(sc, when, sym_const(sc, df_support_pages[k] * a->tile_bytes[f]));
        c->format = f;
        c->uses = LM_NEWN(ar, sched_l1_use, 1);
        c->uses[0] = (sched_l1_use){what[k], b, 0};
        c->nuses = 1;
        plan->bytes = sym_add(sc, plan->bytes, b);
        plan->count = sym_add(sc, plan->count, when);
    }
    for (int l = 0; l < n; l++)
        for (int i = 0; i < Ls[l]->nvirt; i++) {
            const lw *L = Ls[l];
            sched_l1_cb *c = &plan->cbs[plan->ncbs++];
            const sym_expr *b = sched_prefix_depths(L->k, L->virt[i].bytes, sc, L->vprefix);
            c->format = L->virt[i].fmt;
            c->uses = LM_NEWN(ar, sched_l1_use, 1);
            c->uses[0] = (sched_l1_use){lm_arena_strdup(ar, L->virt[i].what), b, l};
            c->nuses = 1;
            plan->bytes = sym_add(sc, plan->bytes, b);
            plan->count = sym_add(sc, plan->count, sym_min(sc, one, b));
        }
}

/* The whole plan of one kernel: storage, CB ids, temporaries. */
static bool plan_all(lw *L) { return lw_plan(L) && lw_number_cbs(L) && lw_plan_temps(L); }

bool lw_plan_l1(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                sched_l1_plan *plan, lm_arena *par)
{
    lw L;
    df_program *p = df_new(k->f->name); /* the tensors' formats; no kernel is written */
    lw_init(&L, k, s, a, sc, d, p);
    L.record = true;
    bool ok = plan_all(&L);
    if (ok) {
        lw *Ls[1] = {&L};
        lw_record_plan(Ls, 1, plan, par);
    }
    lw_free(&L);
    df_free(p);
    return ok;
}

struct df_program *sched_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                               lm_diag *d)
{
    lw L;
    lw_init(&L, k, s, a, sc, d, df_new(k->f->name));
    bool ok = plan_all(&L) && lw_number_support(&L, NULL) && lw_add_sems(&L) && lw_build_classes(&L);
    df_program *p = L.p;
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    lw_free(&L);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
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

/* ---- a fused pair (its reducer's kernels: fused.c) ------------------------ */

/* Two kernels' contexts as a fused pair on one program p. */
static void init_pair(lw *LA, lw *LB, const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                      const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                      df_program *p)
{
    lw_init(LA, ka, sa, a, sc, d, p);
    lw_init(LB, kb, sb, a, sc, d, p);
    LA->fz = LB->fz = f;
    LA->lb = LB;
    LB->la = LA;
}

/* The whole plan of a fused pair: both kernels' storage, the group on one
 * row (column), then CB ids - the producer's stores, the consumer's, and
 * their temporaries in the same order. */
static bool plan_pair(lw *LA, lw *LB)
{
    if (!lw_plan(LA) || !lw_plan(LB))
        return false;
    /* every program of a group in one row (column), in one wave */
    const sched_schedule *sa = LA->s;
    int gr = sa->cand.fuse_along == SCHED_ON_X ? G_X : G_Y;
    int64_t n = gr == G_X ? LA->gx : LA->gy;
    int g = LA->fz->gather_axis;
    if (LA->ngrp[gr] != 1 || LA->grp[gr][0] != g || LA->E[gr] != n) {
        lw_fail(LA, LA->f->loc, "a fused pair needs the %lld programs along axis %d on one %s of %lld cores",
             (long long)LA->ext[g], g, gr == G_X ? "row" : "column", (long long)n);
        return false;
    }
    return lw_number_cbs(LA) && lw_number_cbs(LB) && lw_plan_temps(LA) && lw_plan_temps(LB);
}

static bool is_pair(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                    const sched_schedule *sb, const sched_fusion *f, lm_diag *d)
{
    if (sched_fused_pair(f, &sa->cand, &sb->cand))
        return true;
    lm_error_plain(d, "cannot lower: the schedules of '%s' and '%s' are not a fused pair", ka->name, kb->name);
    return false;
}

static df_program *pair_program(const sched_kernel *ka, const sched_kernel *kb)
{
    char name[256];
    snprintf(name, sizeof name, "%s_%s", ka->f->name, kb->f->name);
    return df_new(name);
}

bool lw_plan_l1_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                      const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                      sched_l1_plan *plan, const char *pa, const char *pb, lm_arena *par)
{
    if (!is_pair(ka, sa, kb, sb, f, d))
        return false;
    df_program *p = pair_program(ka, kb);
    lw LA, LB;
    init_pair(&LA, &LB, ka, sa, kb, sb, f, a, sc, d, p);
    LA.record = LB.record = true;
    LA.vprefix = pa;
    LB.vprefix = pb;
    bool ok = plan_pair(&LA, &LB);
    if (ok) {
        lw *Ls[2] = {&LA, &LB};
        lw_record_plan(Ls, 2, plan, par);
    }
    lw_free(&LA);
    lw_free(&LB);
    df_free(p);
    return ok;
}

struct df_program *sched_lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                     const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc,
                                     lm_diag *d)
{
    if (!is_pair(ka, sa, kb, sb, f, d))
        return NULL;
    df_program *p = pair_program(ka, kb);
    lw LA, LB;
    init_pair(&LA, &LB, ka, sa, kb, sb, f, a, sc, d, p);
    bool ok = plan_pair(&LA, &LB) && lw_number_support(&LA, &LB) && lw_add_sems(&LA) && lw_add_sems(&LB);
    if (ok) {
        LA.sem_fready = lw_add_sem_named(&LA, "fused_ready", ka->f->loc);
        LA.sem_fvalid = lw_add_sem_named(&LA, "fused_valid", ka->f->loc);
        ok = lw_build_classes(&LA) && !LB.failed;
    }
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    lw_free(&LA);
    lw_free(&LB);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
}
