/* probe.c - the L1 plan for the model (sched_lower_l1, sched_lower_l1_fused):
 * lower at probe values and record every CB as an expression of the
 * schedule's symbols (the lowering records it: lw_record_plan, lower.c). */
#include "lower/lower_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A probe value of block size fr: the smallest tile multiple that divides
 * its dimension (so that no boundary check cuts a block at the probe) and
 * that no other block size took (so that two extents never coincide),
 * else the first that divides. */
static int64_t probe_block(const sched_free *fr, const arch_desc *a, const sym_env *bound, const int64_t *taken,
                           int ntaken)
{
    int64_t step = LM_MAX(a->tile_h, a->tile_w), dim = 0, first = step;
    if (!fr->dim || sym_eval(fr->dim, bound, &dim) != SYM_OK || dim < step)
        return step;
    bool have = false;
    for (int64_t v = step; v <= LM_MIN(dim, 1024); v += step) {
        if (dim % v)
            continue;
        bool used = false;
        for (int i = 0; i < ntaken; i++)
            used |= taken[i] == v;
        if (!used)
            return v;
        if (!have)
            first = v, have = true;
    }
    return first;
}

/* Probe values of the free constexprs of kernels k[0..n-1] (one value for
 * a constexpr they share) into vals: block sizes by probe_block; the first
 * three others are listed in ones[] (each is probed at 1 and at 2), the
 * rest take 2. */
static void probe_frees(const sched_kernel *const *k, int n, const arch_desc *a, const sym_env *bound, sym_env *vals,
                        const sym_expr **ones, int *n1)
{
    int64_t taken[SCHED_MAX_VARS * SCHED_MAX_LAUNCHES];
    int ntaken = 0;
    *n1 = 0;
    for (int i = 0; bound && i < bound->n; i++)
        sym_env_set(vals, bound->b[i].var, bound->b[i].lo);
    for (int l = 0; l < n; l++)
        for (int i = 0; i < k[l]->nfree; i++) {
            const sched_free *fr = &k[l]->frees[i];
            int64_t lo, hi;
            if (sym_env_get(vals, fr->var, &lo, &hi))
                continue;
            bool listed = false;
            for (int j = 0; j < *n1; j++)
                listed |= ones[j] == fr->var;
            if (listed)
                continue;
            if (fr->block_dim) {
                int64_t v = probe_block(fr, a, bound, taken, ntaken);
                taken[ntaken++] = v;
                sym_env_set(vals, fr->var, v);
            } else if (*n1 < 3) {
                ones[(*n1)++] = fr->var;
            } else {
                sym_env_set(vals, fr->var, 2);
            }
        }
}

/* The probe schedule of k at values `vals`: one core, every axis in time,
 * every load from DRAM, depths and sub-blocks 1. */
static void probe_schedule(sched_schedule *s, const sched_kernel *k, const sym_env *vals, sym_ctx *sc, lm_arena *ar)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    for (int i = 0; i < vals->n; i++)
        sym_env_set(&s->values, vals->b[i].var, vals->b[i].lo);
    sym_env_set(&s->values, sym_var(sc, "grid.x"), 1);
    sym_env_set(&s->values, sym_var(sc, "grid.y"), 1);
    sym_env_set(&s->values, sym_var(sc, "sub.h"), 1);
    sym_env_set(&s->values, sym_var(sc, "sub.w"), 1);
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT)
            sym_env_set(&s->values, sym_var(sc, lm_arena_printf(ar, "depth.%s", k->bufs[i].name)), 1);
    for (int g = 0; g < TIR_MAX_GRID; g++)
        s->cand.place[g] = SCHED_ON_TIME;
    for (int i = 0; i < k->acc->n; i++) {
        bool load = false;
        for (int b = 0; b < k->nbufs; b++)
            load |= k->bufs[b].kind == SCHED_BUF_IN && k->bufs[b].access == i;
        if (load && s->cand.nops < SCHED_MAX_OPS)
            s->cand.ops[s->cand.nops++] = (sched_operand){i, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    }
    s->fidelity = k->fidelity;
    s->fp32_acc = k->fp32_acc;
    s->origin = "probe";
    s->predicted_cycles = -1;
}

/* Case c of the probes over ones[0..n1-1] (bit j: ones[j] is 1, else 2)
 * set in each schedule; returns the case's indicator (1 at the values the
 * case stands for, else 0). */
static const sym_expr *probe_case(int c, const sym_expr *const *ones, int n1, sched_schedule *const *s, int ns,
                                  sym_ctx *sc)
{
    const sym_expr *when = sym_const(sc, 1);
    for (int j = 0; j < n1; j++) {
        const sym_expr *v = ones[j];
        bool one = (c >> j) & 1;
        for (int i = 0; i < ns; i++)
            sym_env_set(&s[i]->values, v, one ? 1 : 2);
        /* 1 where the constexpr is 1 (or above 1), else 0 */
        const sym_expr *ind = one ? sym_max(sc, sym_const(sc, 0), sym_sub(sc, sym_const(sc, 2), v))
                                  : sym_min(sc, sym_const(sc, 1), sym_max(sc, sym_const(sc, 0),
                                                                         sym_sub(sc, v, sym_const(sc, 1))));
        when = sym_mul(sc, when, ind);
    }
    return when;
}

/* Whether every probe's plan made decision w (its kind, on its op). */
static bool in_every(const sched_l1_plan *plans, int np, const sched_lowered *w)
{
    for (int c = 0; c < np; c++) {
        bool found = false;
        for (int j = 0; j < plans[c].nlowered; j++)
            found |= plans[c].lowered[j].kind == w->kind && plans[c].lowered[j].op == w->op;
        if (!found)
            return false;
    }
    return true;
}

bool sched_lower_l1(sched_kernel *k, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar)
{
    /* free constexprs other than block sizes may be 1, and a dimension of
       extent 1 is dropped from a tile's 2-D form: one probe with each at 1
       and one with it above */
    const sym_expr *ones[3];
    int n1 = 0;
    sym_env vals = {0};
    const sched_kernel *ks[1] = {k};
    probe_frees(ks, 1, a, bound, &vals, ones, &n1);
    sched_schedule s;
    probe_schedule(&s, k, &vals, sc, ar);
    sym_env_free(&vals);

    int np = 1 << n1;
    sched_l1_plan *plans = LM_NEWN(ar, sched_l1_plan, np);
    lm_diag_capture cap;
    lm_diag_capture_begin(&cap);
    cap.keep_prefix = true;
    bool ok = cap.f != NULL;
    const sym_expr *total = sym_const(sc, 0), *used = sym_const(sc, 0);
    const sym_expr **cmds = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    const sym_expr **clip = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    const sym_expr **kept = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    bool *all_kept = LM_NEWN(ar, bool, k->acc->n ? k->acc->n : 1);
    const sym_expr **moved = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    const sym_expr **live = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    int most = 0;
    for (int c = 0; c < np && ok; c++) {
        sched_schedule *sp[1] = {&s};
        const sym_expr *when = probe_case(c, ones, n1, sp, 1, sc);
        ok = lw_plan_l1(k, &s, a, sc, &cap.d, &plans[c], ar);
        if (!ok)
            break;
        plans[c].when = when;
        total = sym_add(sc, total, np > 1 ? sym_mul(sc, when, plans[c].bytes) : plans[c].bytes);
        for (int i = 0; i < k->acc->n && i < plans[c].nacc; i++) {
            const sym_expr *v = plans[c].live[i];
            live[i] = np > 1 ? sym_add(sc, live[i] ? live[i] : sym_const(sc, 0), sym_mul(sc, when, v)) : v;
            const sym_expr *w = plans[c].cmds[i], *q = plans[c].clip[i], *e = plans[c].moved[i];
            if (!w || !q || !e)
                continue;
            cmds[i] = np > 1 ? sym_add(sc, cmds[i] ? cmds[i] : sym_const(sc, 0), sym_mul(sc, when, w)) : w;
            clip[i] = np > 1 ? sym_add(sc, clip[i] ? clip[i] : sym_const(sc, 0), sym_mul(sc, when, q)) : q;
            moved[i] = np > 1 ? sym_add(sc, moved[i] ? moved[i] : sym_const(sc, 0), sym_mul(sc, when, e)) : e;
            /* the trips that keep a masked copy, where every probe's split leaves it out on some */
            const sym_expr *t = plans[c].clip_kept[i];
            all_kept[i] |= !t;
            if (t)
                kept[i] = np > 1 ? sym_add(sc, kept[i] ? kept[i] : sym_const(sc, 0), sym_mul(sc, when, t)) : t;
        }
        used = sym_add(sc, used, np > 1 ? sym_mul(sc, when, plans[c].count) : plans[c].count);
        most = LM_MAX(most, plans[c].ncbs);
    }
    bool captured = cap.f != NULL;
    const char *why = lm_diag_capture_end(&cap, ar);
    if (!ok && captured)
        k->l1_why = why; /* why, for --explain */
    sym_env_free(&s.values);
    if (!ok)
        return false;
    k->l1 = plans;
    k->nl1 = np;
    k->cb_bytes = total;
    k->cb_count = most;
    k->acc_cmds = cmds;
    k->acc_clip = clip;
    for (int i = 0; i < k->acc->n; i++)
        if (all_kept[i])
            kept[i] = NULL;
    k->acc_clip_kept = kept;
    k->acc_moved = moved;
    /* a load every probe reads is read at every value */
    for (int i = 0; i < k->acc->n; i++) {
        bool all = true;
        for (int c = 0; c < np && all; c++) {
            int64_t one;
            all = i < plans[c].nacc && sym_is_const(plans[c].live[i], &one) && one == 1;
        }
        if (all)
            live[i] = sym_const(sc, 1);
    }
    k->acc_live = live;
    k->cb_used = used;
    /* the chains every probe made (they follow the Tile IR and shapes as
       expressions, so the probes agree) */
    k->chain_from = LM_NEWN(ar, const tir_op *, plans[0].nchains ? plans[0].nchains : 1);
    k->chain_to = LM_NEWN(ar, const tir_op *, plans[0].nchains ? plans[0].nchains : 1);
    k->nchains = 0;
    for (int i = 0; i < plans[0].nchains; i++) {
        bool all = true;
        for (int c = 1; c < np && all; c++) {
            bool found = false;
            for (int j = 0; j < plans[c].nchains; j++)
                found |= plans[c].chain_from[j] == plans[0].chain_from[i] && plans[c].chain_to[j] == plans[0].chain_to[i];
            all = found;
        }
        if (all) {
            k->chain_from[k->nchains] = plans[0].chain_from[i];
            k->chain_to[k->nchains++] = plans[0].chain_to[i];
        }
    }
    /* likewise the other decisions */
    sched_lowered *lo = LM_NEWN(ar, sched_lowered, plans[0].nlowered ? plans[0].nlowered : 1);
    k->nlowered = 0;
    for (int i = 0; i < plans[0].nlowered; i++)
        if (in_every(plans, np, &plans[0].lowered[i]))
            lo[k->nlowered++] = plans[0].lowered[i];
    /* a fold or a reduction's passes some probes have and others not, at
       the values of the probes that have them */
    int nmore = 0;
    for (int c = 0; c < np; c++)
        nmore += plans[c].nlowered;
    if (np > 1 && nmore) {
        sched_lowered *all = LM_NEWN(ar, sched_lowered, k->nlowered + nmore);
        memcpy(all, lo, (size_t)k->nlowered * sizeof *lo);
        lo = all;
        for (int c = 0; c < np; c++)
            for (int i = 0; i < plans[c].nlowered; i++) {
                const sched_lowered *w = &plans[c].lowered[i];
                if ((w->kind == SCHED_LOWER_GONE || w->kind == SCHED_LOWER_PASSES) && !in_every(plans, np, w)) {
                    lo[k->nlowered] = *w;
                    lo[k->nlowered++].when = plans[c].when;
                }
            }
    }
    k->lowered = lo;
    return true;
}
bool sched_lower_l1_fused(sched_fusion *f, const sched_kernel *ka, const sched_kernel *kb, const char *pa,
                          const char *pb, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar,
                          lm_buf *why)
{
    const sym_expr *ones[3];
    int n1 = 0;
    sym_env vals = {0};
    const sched_kernel *ks[2] = {ka, kb};
    probe_frees(ks, 2, a, bound, &vals, ones, &n1);
    sched_schedule sa, sb;
    probe_schedule(&sa, ka, &vals, sc, ar);
    probe_schedule(&sb, kb, &vals, sc, ar);
    sym_env_free(&vals);
    /* the producer's gather axis along x, a group on one row; the consumer's
       passed loads fused */
    sa.cand.place[f->gather_axis] = SCHED_ON_X;
    sa.cand.fuse = SCHED_FUSE_PRODUCER;
    sb.cand.fuse = SCHED_FUSE_CONSUMER;
    sa.cand.fuse_along = sb.cand.fuse_along = SCHED_ON_X;
    for (int t = 0; t < f->nt; t++) {
        if (f->t[t].store < 64)
            sa.cand.fused_acc |= (uint64_t)1 << f->t[t].store;
        if (f->t[t].load < 64)
            sb.cand.fused_acc |= (uint64_t)1 << f->t[t].load;
        for (int o = 0; o < sb.cand.nops; o++)
            if (sb.cand.ops[o].access == f->t[t].load)
                sb.cand.ops[o].transport = SCHED_FUSED;
    }

    int np = 1 << n1;
    sched_l1_plan *plans = LM_NEWN(ar, sched_l1_plan, np);
    lm_diag_capture cap;
    lm_diag_capture_begin(&cap);
    cap.keep_prefix = true;
    bool ok = cap.f != NULL;
    const sym_expr *total = sym_const(sc, 0), *used = sym_const(sc, 0);
    int most = 0;
    for (int c = 0; c < np && ok; c++) {
        sched_schedule *sp[2] = {&sa, &sb};
        const sym_expr *when = probe_case(c, ones, n1, sp, 2, sc);
        int64_t g = 1;
        if (sym_eval(ka->f->grid[f->gather_axis], &sa.values, &g) != SYM_OK || g < 1 || g > a->grid_w) {
            lm_error_plain(&cap.d, "the %lld programs along the gather axis at the probe do not fit one row of %d cores",
                           (long long)g, a->grid_w);
            ok = false;
            break;
        }
        sym_env_set(&sa.values, sym_var(sc, "grid.x"), g);
        ok = lw_plan_l1_fused(ka, &sa, kb, &sb, f, a, sc, &cap.d, &plans[c], pa, pb, ar);
        if (!ok)
            break;
        plans[c].when = when;
        total = sym_add(sc, total, np > 1 ? sym_mul(sc, when, plans[c].bytes) : plans[c].bytes);
        used = sym_add(sc, used, np > 1 ? sym_mul(sc, when, plans[c].count) : plans[c].count);
        most = LM_MAX(most, plans[c].ncbs);
    }
    bool captured = cap.f != NULL;
    const char *first = lm_diag_capture_end(&cap, ar);
    if (!ok && why)
        lm_buf_puts(why, captured ? first : "the fused pair does not lower at a probe");
    sym_env_free(&sa.values);
    sym_env_free(&sb.values);
    if (!ok)
        return false;
    f->l1 = plans;
    f->nl1 = np;
    f->cb_bytes = total;
    f->cb_count = most;
    f->cb_used = used;
    return true;
}
