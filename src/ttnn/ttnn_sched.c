/* ttnn_sched.c - TTNN's default (and hand-tuned) schedules as points of
 * loomc's own schedule space.
 *
 * loomc's claim is only worth something when TTNN's choice and loomc's are
 * timed by the same lowering on the same simulator.  So this file takes a
 * summarised kernel (sched_kernel), runs TTNN's selection (ttnn_mm_default,
 * ttnn_mm_tuned_lookup, ttnn_sdpa_prefill_default, ttnn_sdpa_decode_default) on
 * the sizes the kernel is launched with, and writes the decision as a
 * sched_schedule: the placement of each program axis, the transport of each
 * load, and a value for every symbol.  Operand roles come from the kernel's
 * structure - the dots and the access analysis' dependence and reuse bits -
 * never from tensor or variable names, so a renamed kernel maps the same way.
 * What the schedule space cannot say is recorded per case in `notes`; the
 * full list and the reasons are in docs/baselines.md.
 */
#include "ttnn/ttnn.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *ttnn_family_name(ttnn_family f)
{
    switch (f) {
    case TTNN_FAMILY_NONE: return "none";
    case TTNN_FAMILY_MATMUL: return "matmul";
    case TTNN_FAMILY_SDPA_PREFILL: return "sdpa-prefill";
    case TTNN_FAMILY_SDPA_DECODE: return "sdpa-decode";
    }
    return "?";
}

ttnn_chip ttnn_chip_of(const arch_desc *a)
{
    /* L-shaped multicast is new in Blackhole (tenstorrent.md 1.2): a
       structural fact of the description rather than its name. */
    return a->mcast_lshape ? TTNN_CHIP_BLACKHOLE : TTNN_CHIP_WORMHOLE;
}

arch_fidelity ttnn_default_fidelity(arch_format a, arch_format b, ttnn_chip chip)
{
    arch_fidelity f;
    bool fp32, l1acc;
    ttnn_mm_compute_defaults(a, b, ARCH_BF16, chip, &f, &fp32, &l1acc);
    return f;
}

/* ---- building a schedule ------------------------------------------------ */

typedef struct bctx {
    ttnn_pick *r;
    sched_kernel *const *k;
    const sym_env *bound;
    const arch_desc *a;
    const ttnn_sched_opts *o;
    sym_ctx *s;
    lm_arena *ar;
} bctx;

static bool fail(ttnn_pick *r, const char *fmt, ...) LM_PRINTF(2, 3);
static bool fail(ttnn_pick *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    r->ok = false;
    return false;
}

static void note(ttnn_pick *r, const char *text)
{
    for (int i = 0; i < r->nnotes; i++)
        if (!strcmp(r->notes[i], text))
            return;
    if (r->nnotes < TTNN_NOTES_MAX)
        r->notes[r->nnotes++] = text;
}

static bool eval(const bctx *c, const sym_expr *e, int64_t *v)
{
    return e && sym_eval(e, c->bound, v) == SYM_OK;
}

/* Start launch l's schedule: the sizes and pinned constexprs, the candidate
 * skeleton (every load from DRAM, every axis in time). */
static void sched_begin(bctx *c, int l, const char *origin)
{
    sched_kernel *k = c->k[l];
    sched_schedule *sc = &c->r->s[l];
    memset(sc, 0, sizeof *sc);
    sc->k = k;
    sc->origin = origin;
    sc->predicted_cycles = -1;
    sc->fidelity = k->fidelity;
    sc->fp32_acc = k->fp32_acc;
    for (int i = 0; c->bound && i < c->bound->n; i++)
        sym_env_set_range(&sc->values, c->bound->b[i].var, c->bound->b[i].lo, c->bound->b[i].hi);
    sched_candidate *cd = &sc->cand;
    cd->id = -1;
    cd->persistent = true;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        cd->place[g] = SCHED_ON_TIME;
    for (int i = 0; i < k->acc->n && cd->nops < SCHED_MAX_OPS; i++) {
        if (k->acc->acc[i].is_store)
            continue;
        bool is_buf = false;
        for (int b = 0; b < k->nbufs; b++)
            if (k->bufs[b].kind == SCHED_BUF_IN && k->bufs[b].access == i)
                is_buf = true;
        if (!is_buf)
            continue;
        sched_operand *op = &cd->ops[cd->nops++];
        op->access = i;
        op->transport = SCHED_DRAM;
        op->along = SCHED_ON_TIME;
    }
}

/* Finish: label, parallel extent, and one entry per value in the map. */
static void sched_end(bctx *c, int l)
{
    sched_kernel *k = c->k[l];
    sched_schedule *sc = &c->r->s[l];
    sc->cand.label = sched_candidate_label(k, &sc->cand, c->ar);
    int64_t gx = 1, gy = 1;
    sym_env_get(&sc->values, sym_var(c->s, "grid.x"), &gx, &gx);
    sym_env_get(&sc->values, sym_var(c->s, "grid.y"), &gy, &gy);
    sc->cand.extent = gx * gy;
}

static sched_operand *operand_of(sched_schedule *sc, int access)
{
    for (int i = 0; i < sc->cand.nops; i++)
        if (sc->cand.ops[i].access == access)
            return &sc->cand.ops[i];
    return NULL;
}

/* Bind a schedule symbol and record why. */
static void setv(bctx *c, int l, const char *name, int64_t v, const char *fmt, ...) LM_PRINTF(5, 6);
static void setv(bctx *c, int l, const char *name, int64_t v, const char *fmt, ...)
{
    sym_env_set(&c->r->s[l].values, sym_var(c->s, name), v);
    char rule[TTNN_RULE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rule, sizeof rule, fmt, ap);
    va_end(ap);
    ttnn_explain_add(&c->r->map[l], lm_arena_strdup(c->ar, name), v, "%s", rule);
}

/* A free constexpr the schedule must set: the variable itself (a block
 * shape entry or a grid extent).  Fails on anything else or on a --const
 * that pins it. */
static bool free_var(bctx *c, int l, const sym_expr *e, const char *what)
{
    const sched_kernel *k = c->k[l];
    if (!e || e->kind != SYM_VAR)
        return fail(c->r, "%s is not a free constexpr of %s", what, k->name);
    for (int i = 0; i < k->nfree; i++) {
        if (k->frees[i].var != e)
            continue;
        if (k->frees[i].pinned)
            return fail(c->r, "%s (%s) is pinned by --const; TTNN chooses it", e->name, what);
        return true;
    }
    return fail(c->r, "%s (%s) is not a free constexpr of %s", e->name, what, k->name);
}

/* Depth of every OUT buffer not sharing the accumulator's storage: TTNN's
 * output CBs are single-buffered. */
static void outputs_single(bctx *c, int l, const char *why)
{
    const sched_kernel *k = c->k[l];
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->kind == SCHED_BUF_OUT)
            setv(c, l, lm_arena_printf(c->ar, "depth.%s", b->name), 1, "%s", why);
    }
}

static const char *in_name(const sched_kernel *k, int access)
{
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN && k->bufs[i].access == access)
            return k->bufs[i].name;
    return "?";
}

/* The grid of cores for n blocks laid row-major over a gx-wide grid, as
 * TTNN's 1D factories lay them: the exact factorisation x*y = n with x <= gx,
 * y <= gy and x largest when there is one (every core one block, as TTNN),
 * else TTNN's bounding box (gx x ceil(n/gx)) with idle cores in its last row. */
static void grid_for(int64_t n, int gx, int gy, int64_t *ox, int64_t *oy, bool *exact)
{
    for (int64_t x = LM_MIN(n, (int64_t)gx); x >= 1; x--) {
        if (n % x == 0 && n / x <= gy) {
            *ox = x, *oy = n / x, *exact = true;
            return;
        }
    }
    *ox = LM_MIN(n, (int64_t)gx);
    *oy = LM_MIN(lm_cdiv(n, gx), (int64_t)gy);
    *exact = false;
}

/* ---- matmul ------------------------------------------------------------- */

typedef struct mm_roles {
    int in0, in1, out;      /* access indices */
    int b_in0, b_in1, b_out;/* buffer indices */
    int axis_m, axis_n;     /* program axes */
    const sym_expr *bm, *bn, *bk;
    int64_t M, K, N, batch;
} mm_roles;

/* The tensor dims of an access, evaluated: the last two and the product of
 * the leading ones. */
static bool tensor_dims(const bctx *c, const acc_access *x, int64_t *rows, int64_t *cols, int64_t *lead)
{
    const tir_tensor *t = x->tensor;
    if (!t || t->rank < 2)
        return false;
    int64_t p = 1;
    for (int i = 0; i < t->rank - 2; i++) {
        int64_t v;
        if (!eval(c, t->shape[i], &v))
            return false;
        p *= v;
    }
    *lead = p;
    return eval(c, t->shape[t->rank - 2], rows) && eval(c, t->shape[t->rank - 1], cols);
}

/* The single grid axis set in a mask, or -1. */
static int only_axis(unsigned m)
{
    return m && !(m & (m - 1)) ? __builtin_ctz(m) : -1;
}

static bool mm_find(bctx *c, mm_roles *m)
{
    const sched_kernel *k = c->k[0];
    const sched_dot *d = &k->dots[0];
    m->b_in0 = sched_operand_buf(k, d->op->opnds[0]);
    m->b_in1 = sched_operand_buf(k, d->op->opnds[1]);
    if (m->b_in0 < 0 || m->b_in1 < 0 || k->bufs[m->b_in0].kind != SCHED_BUF_IN ||
        k->bufs[m->b_in1].kind != SCHED_BUF_IN)
        return fail(c->r, "the dot's operands are not block loads");
    m->in0 = k->bufs[m->b_in0].access;
    m->in1 = k->bufs[m->b_in1].access;
    m->b_out = m->out = -1;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT)
            m->b_out = i, m->out = k->bufs[i].access;
    if (m->b_out < 0)
        return fail(c->r, "the kernel stores no block");
    const acc_access *a0 = &k->acc->acc[m->in0], *a1 = &k->acc->acc[m->in1];
    if (k->f->grid_rank != 2)
        return fail(c->r, "TTNN's matmul maps a 2-D launch grid; this one has %d axes", k->f->grid_rank);
    /* A's block row moves with the M axis only; B's block column with N only:
       A is reused along N, B along M (the access analysis' reuse bits). */
    m->axis_m = only_axis(a0->grid_dep);
    m->axis_n = only_axis(a1->grid_dep);
    if (m->axis_m < 0 || m->axis_n < 0 || m->axis_m == m->axis_n || !((a0->reuse >> m->axis_n) & 1u) ||
        !((a1->reuse >> m->axis_m) & 1u))
        return fail(c->r, "the operands are not one reused along each grid axis (A along N, B along M)");
    if (a0->rank < 2 || a1->rank < 2)
        return fail(c->r, "the operand blocks are not matrices");
    m->bm = a0->block[a0->rank - 2];
    m->bk = a0->block[a0->rank - 1];
    m->bn = a1->block[a1->rank - 1];
    if (!free_var(c, 0, m->bm, "the block rows of A") || !free_var(c, 0, m->bk, "the block depth of A") ||
        !free_var(c, 0, m->bn, "the block columns of B"))
        return false;
    int64_t M, K, K2, N, ba, bb;
    if (!tensor_dims(c, a0, &M, &K, &ba) || !tensor_dims(c, a1, &K2, &N, &bb))
        return fail(c->r, "the sizes of A and B are not known");
    if (K != K2)
        return fail(c->r, "A is %lld wide but B %lld deep", (long long)K, (long long)K2);
    m->M = M, m->K = K, m->N = N;
    m->batch = LM_MAX(ba, bb);
    if (ba != 1 || bb != 1)
        return fail(c->r, "batched operands are not mapped (the kernel's grid has no batch axis)");
    return true;
}

static void mm_input(const bctx *c, const mm_roles *m, ttnn_mm_input *in)
{
    const sched_kernel *k = c->k[0];
    memset(in, 0, sizeof *in);
    in->M = m->M;
    in->K = m->K;
    in->N = m->N;
    in->batch_a = in->batch_b = 1;
    in->fmt_a = k->bufs[m->b_in0].format;
    in->fmt_b = k->bufs[m->b_in1].format;
    in->fmt_c = k->bufs[m->b_out].format;
    in->grid_x = c->a->grid_w;
    in->grid_y = c->a->grid_h;
    in->l1_usable = arch_usable_l1(c->a);
    memcpy(in->tile_bytes, c->a->tile_bytes, sizeof in->tile_bytes);
    in->chip = ttnn_chip_of(c->a);
}

/* The block parameters both matmul kinds share. */
typedef struct mm_plan {
    bool two_d, transpose, in0_mcast_all, in1_mcast_all, multicore;
    int per_core_M, per_core_N, out_block_h, out_block_w, in0_block_w, sub_h, sub_w;
    int num_k_blocks, batch, work_rows, work_cols, num_cores;
    arch_fidelity fidelity;
    bool fp32_acc;
} mm_plan;

static void mm_common_notes(ttnn_pick *r, const mm_plan *p)
{
    if (p->out_block_h < p->per_core_M || p->out_block_w < p->per_core_N)
        note(r, "out_block: TTNN walks a core's per_core_M x per_core_N block as several out blocks, each over "
                "all of K; the schedule uses the out block as BLOCK_M x BLOCK_N with more programs than cores, "
                "so a core's out blocks are programs of later waves (cyclic, not adjacent, but the same count and "
                "the same DRAM and multicast traffic per core)");
    if (p->num_k_blocks > 1)
        note(r, "packer L1 accumulation: TTNN adds K-block partials into the output CB by the packer; the "
                "schedule's accumulator carries the partials in L1 the same way (partials in bf16 unless the "
                "output is fp32)");
}

static bool mm_emit(bctx *c, const mm_roles *m, const mm_plan *p, const char *origin)
{
    ttnn_pick *r = c->r;
    sched_begin(c, 0, origin);
    sched_schedule *sc = &r->s[0];
    sched_candidate *cd = &sc->cand;
    const sched_kernel *k = c->k[0];
    int tw = c->a->tile_w, th = c->a->tile_h;
    const char *an = in_name(k, m->in0), *bn = in_name(k, m->in1);

    setv(c, 0, m->bm->name, (int64_t)p->out_block_h * th, "out_block_h %d tiles x %d (per_core_M %d)",
         p->out_block_h, th, p->per_core_M);
    setv(c, 0, m->bn->name, (int64_t)p->out_block_w * tw, "out_block_w %d tiles x %d (per_core_N %d)",
         p->out_block_w, tw, p->per_core_N);
    setv(c, 0, m->bk->name, (int64_t)p->in0_block_w * tw, "in0_block_w %d tiles x %d", p->in0_block_w, tw);
    setv(c, 0, "sub.h", p->sub_h, "out_subblock_h");
    setv(c, 0, "sub.w", p->sub_w, "out_subblock_w");
    int depth_in = p->batch * p->num_k_blocks > 1 ? 2 : 1;
    const char *dwhy = depth_in == 2 ? "in0/in1 CBs double-buffered: batch x K blocks = %d > 1"
                                     : "in0/in1 CBs single-buffered: batch x K blocks = %d";
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", an), depth_in, dwhy, p->batch * p->num_k_blocks);
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", bn), depth_in, dwhy, p->batch * p->num_k_blocks);
    outputs_single(c, 0, "output CB single-buffered");

    sched_operand *o0 = operand_of(sc, m->in0), *o1 = operand_of(sc, m->in1);
    if (p->multicore) {
        cd->place[m->axis_m] = SCHED_ON_XY;
        cd->place[m->axis_n] = SCHED_ON_XY;
        int64_t gx, gy;
        bool exact;
        grid_for(p->num_cores, c->a->grid_w, c->a->grid_h, &gx, &gy, &exact);
        setv(c, 0, "grid.x", gx, "MULTICORE: output tiles spread over %d cores", p->num_cores);
        setv(c, 0, "grid.y", gy, "see grid.x");
        note(r, "MULTICORE: TTNN splits output tiles, not blocks, over the cores; the schedule gives each "
                "program one 32x32 output tile");
    } else if (p->two_d) {
        /* pid(M) on rows, pid(N) on columns; A along the rows from the left
           column, B down the columns from the top row (transpose swaps). */
        sched_place mp = p->transpose ? SCHED_ON_X : SCHED_ON_Y, np = p->transpose ? SCHED_ON_Y : SCHED_ON_X;
        cd->place[m->axis_m] = mp;
        cd->place[m->axis_n] = np;
        o0->transport = SCHED_MCAST;
        o0->along = np;
        o0->interior_sender = false;
        o1->transport = SCHED_MCAST;
        o1->along = mp;
        o1->interior_sender = false;
        int64_t rows = p->work_rows, cols = p->work_cols;
        setv(c, 0, p->transpose ? "grid.y" : "grid.x", cols,
             "2D: ceil(Nt / per_core_N) = %lld core columns compute", (long long)cols);
        setv(c, 0, p->transpose ? "grid.x" : "grid.y", rows,
             "2D: ceil(Mt / per_core_M) = %lld core rows compute", (long long)rows);
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "place pid.%d", m->axis_m), mp,
                       "M blocks on the core %s (%s)", p->transpose ? "columns" : "rows",
                       p->transpose ? "transpose_mcast" : "TTNN's 2D grid: M along y");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "place pid.%d", m->axis_n), np,
                       "N blocks on the core %s", p->transpose ? "rows" : "columns");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "transport %s", an), SCHED_MCAST,
                       "in0 senders (%s) read A and multicast it along their %s", p->transpose ? "top row" : "left column",
                       p->transpose ? "column" : "row");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "transport %s", bn), SCHED_MCAST,
                       "in1 senders (%s) read B and multicast it along their %s", p->transpose ? "left column" : "top row",
                       p->transpose ? "row" : "column");
        /* TTNN's NoCs, by operand whatever transpose_mcast: in0 on the NoC
           preferred for DRAM writes, in1 and the output writer (one kernel)
           on the one preferred for DRAM reads - NoC 1 and NoC 0 on Wormhole
           and Blackhole alike. */
        o0->noc = SCHED_NOC_1;
        o1->noc = SCHED_NOC_0;
        cd->store_noc = SCHED_NOC_0;
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "noc %s", an), SCHED_NOC_1,
                       "in0 kernels on the NoC preferred for DRAM writes");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "noc %s", bn), SCHED_NOC_0,
                       "in1 sender/receiver-writer kernels on the NoC preferred for DRAM reads");
        ttnn_explain_add(&r->map[0], "noc stores", SCHED_NOC_0, "the output is written by the in1 kernels");
    } else {
        /* 1D: the multicast operand's blocks go to the whole grid from core
           (0, 0); the other operand's blocks are read by each core; the
           multicast operand's own axis runs in time on every core. */
        bool in0 = p->in0_mcast_all;
        int spread = in0 ? m->axis_n : m->axis_m, timed = in0 ? m->axis_m : m->axis_n;
        cd->place[spread] = SCHED_ON_XY;
        cd->place[timed] = SCHED_ON_TIME;
        sched_operand *mc = in0 ? o0 : o1;
        mc->transport = SCHED_MCAST;
        mc->along = SCHED_ON_XY;
        mc->interior_sender = false;
        int64_t gx, gy;
        bool exact;
        grid_for(p->num_cores, c->a->grid_w, c->a->grid_h, &gx, &gy, &exact);
        setv(c, 0, "grid.x", gx, "1D: %d blocks of %s, one per core, laid row-major over the %dx%d grid",
             p->num_cores, in0 ? "N" : "M", c->a->grid_w, c->a->grid_h);
        setv(c, 0, "grid.y", gy, "see grid.x%s", exact ? "" : " (bounding box; the last row is partly idle)");
        if (!exact)
            note(r, "1D grid: TTNN's blocks fill the grid row-major with a partial last row; the schedule's grid is "
                    "their bounding box, so the flattened programs are fewer than its cores");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "place pid.%d", spread), SCHED_ON_XY,
                       "1D %s: %s blocks flattened over the grid", in0 ? "mcast_in0" : "mcast_in1", in0 ? "N" : "M");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "place pid.%d", timed), SCHED_ON_TIME,
                       "1D: per_core_%s = the whole %s: every core walks it", in0 ? "M" : "N", in0 ? "M" : "N");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "transport %s", in0 ? an : bn), SCHED_MCAST,
                       "core (0,0) reads %s blocks and multicasts them to every working core", in0 ? "A" : "B");
        ttnn_explain_add(&r->map[0], lm_arena_printf(c->ar, "transport %s", in0 ? bn : an), SCHED_DRAM,
                       "each core reads its own %s blocks from DRAM", in0 ? "B" : "A");
        note(r, "1D multicast: TTNN's sender (0,0) multicasts to the bounding box of the working cores with "
                "num_cores-1 destinations; the schedule's whole-grid multicast has the same sender and receivers");
    }
    sc->fidelity = c->o->have_fidelity ? c->o->fidelity : p->fidelity;
    sc->fp32_acc = p->fp32_acc;
    ttnn_explain_add(&r->map[0], "fidelity", sc->fidelity, "%s",
                   c->o->have_fidelity ? "--fidelity" : "TTNN's default compute config");
    mm_common_notes(r, p);
    sched_end(c, 0);
    return true;
}

static bool mm_default(bctx *c)
{
    mm_roles m;
    if (!mm_find(c, &m))
        return false;
    ttnn_mm_input in;
    mm_input(c, &m, &in);
    ttnn_mm_config *cfg = &c->r->mm;
    if (!ttnn_mm_default(&in, cfg))
        return fail(c->r, "TTNN rejects this matmul: %s", cfg->why);
    mm_plan p;
    memset(&p, 0, sizeof p);
    p.two_d = cfg->kind == TTNN_MM_MCAST_2D;
    p.transpose = cfg->transpose_mcast;
    p.in0_mcast_all = cfg->kind == TTNN_MM_MCAST_1D_IN0;
    p.in1_mcast_all = cfg->kind == TTNN_MM_MCAST_1D_IN1;
    p.multicore = cfg->kind == TTNN_MM_MULTICORE || cfg->kind == TTNN_MM_REUSE;
    p.per_core_M = cfg->per_core_M;
    p.per_core_N = cfg->per_core_N;
    p.out_block_h = cfg->out_block_h;
    p.out_block_w = cfg->out_block_w;
    p.in0_block_w = cfg->in0_block_w;
    p.sub_h = cfg->out_subblock_h;
    p.sub_w = cfg->out_subblock_w;
    p.num_k_blocks = cfg->num_k_blocks;
    p.batch = cfg->batch;
    p.work_rows = cfg->work_rows;
    p.work_cols = cfg->work_cols;
    p.num_cores = cfg->num_cores;
    p.fidelity = cfg->fidelity;
    p.fp32_acc = cfg->fp32_acc;
    if (p.multicore) {
        /* one output tile per program, K one tile at a time, 2-tile CBs */
        p.per_core_M = p.per_core_N = p.out_block_h = p.out_block_w = 1;
        p.in0_block_w = 1;
        p.sub_h = p.sub_w = 1;
        p.num_k_blocks = (int)cfg->Kt;
    }
    return mm_emit(c, &m, &p, "ttnn");
}

static bool mm_tuned(bctx *c)
{
    mm_roles m;
    if (!mm_find(c, &m))
        return false;
    ttnn_mm_input in;
    mm_input(c, &m, &in);
    ttnn_mm_default(&in, &c->r->mm); /* for --explain's comparison */
    ttnn_mm_tuned *t = &c->r->tuned;
    if (!ttnn_mm_tuned_lookup(m.M, m.K, m.N, in.fmt_a, in.fmt_b, in.fmt_c, c->a->grid_w, c->a->grid_h, t))
        return fail(c->r, "no hand-tuned TTNN config for %lldx%lldx%lld %s on a %dx%d grid: %s", (long long)m.M,
                    (long long)m.K, (long long)m.N, ttnn_format_name(in.fmt_a), c->a->grid_w, c->a->grid_h, t->why);
    mm_plan p;
    memset(&p, 0, sizeof p);
    p.two_d = true;
    p.transpose = t->transpose_mcast;
    p.per_core_M = t->per_core_M;
    p.per_core_N = t->per_core_N;
    p.out_block_h = t->out_block_h;
    p.out_block_w = t->out_block_w;
    p.in0_block_w = t->in0_block_w;
    p.sub_h = t->out_subblock_h;
    p.sub_w = t->out_subblock_w;
    p.num_k_blocks = t->num_k_blocks;
    p.batch = 1;
    p.work_rows = (int)lm_cdiv(lm_cdiv(m.M, 32), t->per_core_M);
    p.work_cols = (int)lm_cdiv(lm_cdiv(m.N, 32), t->per_core_N);
    p.num_cores = p.work_rows * p.work_cols;
    /* the benchmark ran each format at the fidelities in t->fidelities; its
       default pairing is HiFi2 for bf16 and LoFi for block-float */
    arch_fidelity f = ttnn_default_fidelity(in.fmt_a, in.fmt_b, in.chip);
    if (!((t->fidelities >> f) & 1u))
        f = (t->fidelities >> ARCH_HIFI2) & 1u ? ARCH_HIFI2 : ARCH_LOFI;
    p.fidelity = f;
    p.fp32_acc = t->fp32_acc;
    if (c->o->have_fidelity && !((t->fidelities >> c->o->fidelity) & 1u))
        note(c->r, "--fidelity: the benchmark never ran this format at this fidelity");
    if (t->in0_sharded)
        note(c->r, "sharded A: the benchmark keeps A block-sharded in L1 (shard owners take turns as in0 sender); "
                   "the schedule reads A from DRAM through the left column, so A's DRAM traffic is extra");
    if (t->out_sharded)
        note(c->r, "sharded C: the benchmark leaves C block-sharded in L1; the schedule writes C to DRAM");
    return mm_emit(c, &m, &p, "ttnn-tuned");
}

/* ---- SDPA prefill --------------------------------------------------------- */

/* The Dst-sized sub-block one pair of schedule symbols can give both dots:
 * TTNN's QK^T sub-block if it divides the P V output, else its P V
 * sub-block if that divides the QK^T output, else their common part. */
static void shared_subblock(int qk_h, int qk_w, int pv_h, int pv_w, int sq_t, int sk_t, int dh_t, int *h, int *w)
{
    if (sq_t % qk_h == 0 && dh_t % qk_w == 0) {
        *h = qk_h, *w = qk_w;
    } else if (sq_t % pv_h == 0 && sk_t % pv_w == 0) {
        *h = pv_h, *w = pv_w;
    } else {
        *h = LM_MIN(qk_h, pv_h);
        while (sq_t % *h)
            (*h)--;
        *w = 1;
    }
}

typedef struct attn_roles {
    int q, k, v;          /* access indices */
    int bq, bk, bv;
    int axis_q, axis_h;   /* program axes: query blocks, heads */
    const sym_expr *bm, *bn;
    int64_t B, H, HKV, S, D;
} attn_roles;

static bool attn_find(bctx *c, const sched_kernel *k, int l, attn_roles *r)
{
    if (k->ndots < 2)
        return fail(c->r, "attention needs two dots");
    const sched_dot *d0 = &k->dots[0], *d1 = &k->dots[1];
    r->bq = sched_operand_buf(k, d0->op->opnds[0]);
    r->bk = sched_operand_buf(k, d0->op->opnds[1]);
    r->bv = sched_operand_buf(k, d1->op->opnds[1]);
    if (r->bq < 0 || r->bk < 0 || r->bv < 0 || k->bufs[r->bq].kind != SCHED_BUF_IN ||
        k->bufs[r->bk].kind != SCHED_BUF_IN || k->bufs[r->bv].kind != SCHED_BUF_IN)
        return fail(c->r, "Q, K and V of the two dots are not block loads");
    r->q = k->bufs[r->bq].access;
    r->k = k->bufs[r->bk].access;
    r->v = k->bufs[r->bv].access;
    const acc_access *aq = &k->acc->acc[r->q], *ak = &k->acc->acc[r->k];
    if (aq->rank < 2 || ak->rank < 2 || !aq->tensor || !ak->tensor)
        return fail(c->r, "Q and K are not traced to tensors");
    r->bm = aq->block[aq->rank - 2];
    r->bn = ak->block[ak->rank - 2];
    (void)l;
    return true;
}

/* The tensor a launch stores (its one block store). */
static const char *store_name(const sched_kernel *k)
{
    for (int i = 0; i < k->acc->n; i++)
        if (k->acc->acc[i].is_store && k->acc->acc[i].tensor)
            return k->acc->acc[i].tensor->name;
    return "?";
}

/* What TTNN's kernel program (ttnn_kernel_program) needs of the job. */
static void kernel_io(bctx *c, const sched_kernel *k, const attn_roles *ar, bool causal, int gx, int gy)
{
    ttnn_kernel_io *io = &c->r->io;
    io->q = k->acc->acc[ar->q].tensor->name;
    io->k = k->acc->acc[ar->k].tensor->name;
    io->v = k->acc->acc[ar->v].tensor ? k->acc->acc[ar->v].tensor->name : "?";
    io->o = store_name(k);
    io->B = ar->B, io->H = ar->H, io->HKV = ar->HKV, io->S = ar->S, io->D = ar->D;
    io->causal = causal;
    io->fq = k->bufs[ar->bq].format;
    io->fk = k->bufs[ar->bk].format;
    io->fv = k->bufs[ar->bv].format;
    io->fo = ARCH_BF16;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT)
            io->fo = k->bufs[i].format;
    io->scale = ar->D > 0 ? 1.0 / sqrt((double)ar->D) : 1.0;
    io->grid_x = gx, io->grid_y = gy;
}

static bool sdpa_prefill(bctx *c)
{
    ttnn_pick *R = c->r;
    sched_kernel *k = c->k[0];
    attn_roles ar;
    if (!attn_find(c, k, 0, &ar))
        return false;
    if (!free_var(c, 0, ar.bm, "the query block rows") || !free_var(c, 0, ar.bn, "the key block rows"))
        return false;
    const acc_access *aq = &k->acc->acc[ar.q], *ak = &k->acc->acc[ar.k];
    /* tensors [B, H, S, D] or [BH, S, D] */
    const tir_tensor *tq = aq->tensor, *tk = ak->tensor;
    int64_t v[4] = {1, 1, 1, 1}, kvh = 1;
    if (tq->rank < 3 || tq->rank > 4 || tk->rank != tq->rank)
        return fail(c->r, "Q must be [B, H, S, D] or [BH, S, D]");
    for (int i = 0; i < tq->rank; i++)
        if (!eval(c, tq->shape[i], &v[4 - tq->rank + i]))
            return fail(c->r, "the sizes of Q are not known");
    if (!eval(c, tk->shape[tk->rank - 3], &kvh))
        return fail(c->r, "the sizes of K are not known");
    ar.B = v[0], ar.H = v[1], ar.S = v[2], ar.D = v[3], ar.HKV = kvh;
    /* the head axis is the one K depends on; the query-block axis is Q's other one */
    ar.axis_h = only_axis(ak->grid_dep);
    ar.axis_q = only_axis(aq->grid_dep & ~ak->grid_dep);
    if (ar.axis_h < 0 || ar.axis_q < 0 || k->f->grid_rank != 2)
        return fail(c->r, "the launch grid is not (query blocks, heads)");
    /* causal: the key loop's trip count depends on the query block */
    bool causal = false;
    const sym_expr *pq = sym_var(c->s, lm_arena_printf(c->ar, "pid.%d", ar.axis_q));
    for (int i = 0; i < k->nloops; i++)
        if (k->loops[i].trips && sym_depends_on(k->loops[i].trips, pq))
            causal = true;

    ttnn_sdpa_input in;
    memset(&in, 0, sizeof in);
    in.B = (int)ar.B;
    in.NQH = (int)ar.H;
    in.NKH = (int)ar.HKV;
    in.Sq = in.Sk = ar.S;
    in.DH = (int)ar.D;
    /* a program config's grid (compute_with_storage_grid_size) restricts the
       cores TTNN uses; it cannot exceed the chip's */
    const ttnn_sched_opts *o = c->o;
    int gw = o->sdpa_grid_x > 0 ? o->sdpa_grid_x : c->a->grid_w;
    int gh = o->sdpa_grid_y > 0 ? o->sdpa_grid_y : c->a->grid_h;
    if (gw > c->a->grid_w || gh > c->a->grid_h)
        return fail(R, "the program config's grid %dx%d is larger than %s's %dx%d", gw, gh, c->a->name,
                    c->a->grid_w, c->a->grid_h);
    in.grid_x = gw;
    in.grid_y = gh;
    in.q_chunk = o->sdpa_q_chunk;
    in.k_chunk = o->sdpa_k_chunk;
    in.fp32_acc = o->have_fp32_acc && o->fp32_acc;
    in.causal = causal;
    in.fmt_q = k->bufs[ar.bq].format;
    in.fmt_k = k->bufs[ar.bk].format;
    in.fmt_v = k->bufs[ar.bv].format;
    in.fmt_out = ARCH_BF16;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT)
            in.fmt_out = k->bufs[i].format;
    memcpy(in.tile_bytes, c->a->tile_bytes, sizeof in.tile_bytes);
    ttnn_sdpa_config *cfg = &R->sdpa;
    if (!ttnn_sdpa_prefill_default(&in, cfg))
        return fail(R, "TTNN rejects this attention: %s", cfg->why);
    kernel_io(c, k, &ar, causal, gw, gh);

    sched_begin(c, 0, "ttnn");
    sched_schedule *sc = &R->s[0];
    if (in.q_chunk)
        setv(c, 0, ar.bm->name, cfg->q_chunk, "q_chunk_size (the program config's)");
    else
        setv(c, 0, ar.bm->name, cfg->q_chunk, "q_chunk_size (TTNN's default %d)", 32);
    if (in.k_chunk)
        setv(c, 0, ar.bn->name, cfg->k_chunk, "k_chunk_size (the program config's)");
    else
        setv(c, 0, ar.bn->name, cfg->k_chunk, "k_chunk_size (TTNN's default %d)", 32);
    int h, w;
    shared_subblock(cfg->qk_subblock_h, cfg->qk_subblock_w, cfg->pv_subblock_h, cfg->pv_subblock_w,
                    cfg->Sq_chunk_t, cfg->Sk_chunk_t, cfg->DHt, &h, &w);
    setv(c, 0, "sub.h", h, "QK^T sub-block %dx%d, P V sub-block %dx%d: one pair for both dots", cfg->qk_subblock_h,
         cfg->qk_subblock_w, cfg->pv_subblock_h, cfg->pv_subblock_w);
    setv(c, 0, "sub.w", w, "see sub.h");
    if (h != cfg->qk_subblock_h || w != cfg->qk_subblock_w || h != cfg->pv_subblock_h || w != cfg->pv_subblock_w)
        note(R, "sub-blocks: TTNN sizes the QK^T and P V sub-blocks separately; the schedule has one sub-block "
                "for every dot (the largest of TTNN's two that divides both outputs)");
    const char *qn = in_name(k, ar.q), *kn = in_name(k, ar.k), *vn = in_name(k, ar.v);
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", qn), cfg->q_per_core > 1 ? 2 : 1,
         "Q CB holds one chunk, two when a core takes more than one (q_per_core = %d)", cfg->q_per_core);
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", kn), 2, "K CB double-buffered (2 chunks)");
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", vn), 2, "V CB double-buffered (2 chunks)");
    for (int i = 0; i < k->nbufs; i++) /* any other load (a mask tensor) double-buffered like TTNN's mask */
        if (k->bufs[i].kind == SCHED_BUF_IN && i != ar.bq && i != ar.bk && i != ar.bv)
            setv(c, 0, lm_arena_printf(c->ar, "depth.%s", k->bufs[i].name), 2, "mask CB double-buffered");
    outputs_single(c, 0, "output CB: one chunk");

    /* Parallelisation: batch, then heads, then query chunks. Heads (with the
       batch) on rows and query chunks on columns when both fit the grid;
       else every program flattened over the cores TTNN keeps busy. */
    int heads_par = cfg->batch_parallel * cfg->head_parallel, q_par = cfg->q_parallel;
    sched_candidate *cd = &sc->cand;
    if (heads_par <= gh && q_par <= gw) {
        cd->place[ar.axis_q] = SCHED_ON_X;
        cd->place[ar.axis_h] = SCHED_ON_Y;
        setv(c, 0, "grid.x", q_par, "qpf = min(cores / (bpf x hpf), q chunks) = %d query-chunk groups", q_par);
        setv(c, 0, "grid.y", heads_par, "bpf x hpf = %d x %d (batch, then heads)", cfg->batch_parallel,
             cfg->head_parallel);
        ttnn_explain_add(&R->map[0], lm_arena_printf(c->ar, "place pid.%d", ar.axis_q), SCHED_ON_X,
                       "query chunks split over qpf cores");
        ttnn_explain_add(&R->map[0], lm_arena_printf(c->ar, "place pid.%d", ar.axis_h), SCHED_ON_Y,
                       "(batch, head) pairs split over bpf x hpf cores");
        if (cfg->q_per_core > 1 || cfg->heads_per_core > 1 || cfg->batch_per_core > 1)
            note(R, "work order: TTNN gives a core a contiguous range of query chunks and heads; the schedule "
                    "gives it every qpf-th chunk and every (bpf x hpf)-th head (cyclic waves), the same counts");
    } else {
        cd->place[ar.axis_q] = SCHED_ON_XY;
        cd->place[ar.axis_h] = SCHED_ON_XY;
        int64_t gx, gy;
        bool exact;
        grid_for(cfg->active_cores, gw, gh, &gx, &gy, &exact);
        setv(c, 0, "grid.x", gx, "%d cores work (bpf %d x hpf %d x qpf %d)", cfg->active_cores,
             cfg->batch_parallel, cfg->head_parallel, cfg->q_parallel);
        setv(c, 0, "grid.y", gy, "see grid.x");
        ttnn_explain_add(&R->map[0], "place", SCHED_ON_XY, "all programs flattened over the working cores");
        note(R, "work order: the parallel factors do not fit the grid's rows and columns, so the programs are "
                "flattened over the working cores (cyclic); TTNN gives each core contiguous ranges");
    }
    ttnn_explain_add(&R->map[0], lm_arena_printf(c->ar, "transport %s", kn), SCHED_DRAM,
                   "each core reads its own K and V chunks from DRAM");
    if (cfg->balanced)
        note(R, "causal balance: TTNN pairs query chunk i with chunk n-1-i on one core; the schedule's cyclic "
                "assignment cannot express the pairing, so the busiest core has more work than TTNN's");
    note(R, "SDPA CBs: TTNN's statistics, scalar and QK scratch CBs are the schedule's temporaries, sized by "
            "loomc's allocator rather than by the factory");
    sc->fidelity = c->o->have_fidelity ? c->o->fidelity : cfg->fidelity;
    sc->fp32_acc = cfg->fp32_acc;
    ttnn_explain_add(&R->map[0], "fidelity", sc->fidelity, "%s",
                   c->o->have_fidelity ? "--fidelity" : "SDPA default compute config (HiFi2, approximate exp)");
    if (o->sdpa_interm_16b) {
        /* TTNN's QK scratch, statistics and output accumulator CBs are bf16
           (even with fp32 accumulation) and its kernel works on them in place */
        sc->interm_16b = true;
        ttnn_explain_add(&R->map[0], "intermediates", 16, "bf16 CBs, as TTNN's SDPA factory allocates them");
    }
    sched_end(c, 0);
    return true;
}

/* ---- SDPA decode ---------------------------------------------------------- */

static bool sdpa_decode(bctx *c)
{
    ttnn_pick *R = c->r;
    sched_kernel *ks = c->k[0], *kc = c->k[1];
    attn_roles ar;
    if (!attn_find(c, ks, 0, &ar))
        return false;
    if (!free_var(c, 0, ar.bn, "the key block rows"))
        return false;
    const acc_access *aq = &ks->acc->acc[ar.q], *ak = &ks->acc->acc[ar.k];
    /* Q is reused along the split axis; the other axis is (batch, kv head) */
    int axis_split = -1, axis_kv = -1;
    for (int g = 0; g < ks->f->grid_rank; g++) {
        if ((aq->reuse >> g) & 1u)
            axis_split = g;
        else if ((ak->grid_dep >> g) & 1u)
            axis_kv = g;
    }
    if (ks->f->grid_rank != 2 || axis_split < 0 || axis_kv < 0)
        return fail(R, "the split launch's grid is not ((batch, kv head), split)");
    const sym_expr *splits = ks->f->grid[axis_split];
    if (!free_var(c, 0, splits, "the number of splits"))
        return false;
    /* decode tensors: Q [B, H, D], K [B, HKV, S, D] */
    const tir_tensor *tq = aq->tensor, *tk = ak->tensor;
    int64_t B, H, D, HKV, S;
    if (!tq || !tk || tq->rank != 3 || tk->rank != 4 || !eval(c, tq->shape[0], &B) || !eval(c, tq->shape[1], &H) ||
        !eval(c, tq->shape[2], &D) || !eval(c, tk->shape[1], &HKV) || !eval(c, tk->shape[2], &S))
        return fail(R, "decode expects Q [B, H, D] and K [B, HKV, S, D] with known sizes");

    ttnn_decode_input in;
    memset(&in, 0, sizeof in);
    in.B = (int)B;
    in.NQH = (int)H;
    in.NKV = (int)HKV;
    in.S = S;
    in.DH = (int)D;
    in.grid_x = c->a->grid_w;
    in.grid_y = c->a->grid_h;
    in.reduce = TTNN_REDUCE_TREE;
    /* a program config: k_chunk_size and max_cores_per_head_batch */
    in.k_chunk = c->o->sdpa_k_chunk;
    in.max_cores_per_head = c->o->sdpa_max_cores_per_head;
    ttnn_decode_config *cfg = &R->dec;
    if (!ttnn_sdpa_decode_default(&in, cfg))
        return fail(R, "TTNN rejects this decode: %s", cfg->why);
    ar.B = B, ar.H = H, ar.HKV = HKV, ar.S = S, ar.D = D;
    kernel_io(c, ks, &ar, false, c->a->grid_w, c->a->grid_h);
    R->io.o = store_name(kc);
    R->io.q_fold = tq->fold_rows;
    for (int i = 0; i < kc->nbufs; i++)
        if (kc->bufs[i].kind == SCHED_BUF_OUT)
            R->io.fo = kc->bufs[i].format;
    for (int i = 0; i < kc->acc->n; i++)
        if (kc->acc->acc[i].is_store && kc->acc->acc[i].tensor)
            R->io.o_fold = kc->acc->acc[i].tensor->fold_rows;

    /* TTNN reduces the workers' partials in L1 over the NoC. Where a head's
       workers are exactly one row of the grid under its linear core order
       (cores_per_head = the grid's width, one head per core, every head on a
       row of its own), that is a fused launch pair: the split axis along x
       (one row per head), the reducers in the row; else the kernel's two
       launches through DRAM. */
    int64_t nheads = B * HKV;
    sched_fusion fz;
    memset(&fz, 0, sizeof fz);
    const char *nofuse = NULL;
    lm_buf fwhy = {0};
    if (c->o->no_fuse)
        nofuse = "fused launch pairs are off (--no-fuse)";
    else if (cfg->cores_per_head != c->a->grid_w)
        nofuse = lm_arena_printf(c->ar, "cores_per_head = %d is not the grid's width (%d), so a head's workers are not "
                                        "one row of cores under TTNN's linear core order",
                                 cfg->cores_per_head, c->a->grid_w);
    else if (cfg->heads_per_core != 1 || nheads > c->a->grid_h)
        nofuse = lm_arena_printf(c->ar, "%d heads per core and %lld (batch, kv head) pairs on %d rows: not one head "
                                        "per row",
                                 cfg->heads_per_core, (long long)nheads, c->a->grid_h);
    else if (!sched_fusion_find(&fz, ks, kc, c->s, c->bound, &fwhy))
        nofuse = lm_arena_printf(c->ar, "the two launches are not a fusable pair (%s)", lm_buf_str(&fwhy));
    else if (fz.gather_axis != axis_split)
        nofuse = "the split launch's gather axis is not its split axis";
    lm_buf_free(&fwhy);
    bool fused = nofuse == NULL;

    /* launch 0: one program per (batch, kv head, split), TTNN's linear core
       order: index = (batch x NKV + kv head) x cores_per_head + rank */
    sched_begin(c, 0, "ttnn");
    sched_schedule *sc = &R->s[0];
    setv(c, 0, ar.bn->name, cfg->k_chunk, "k_chunk_size = get_chunk_size(S): largest power-of-two divisor, <= 512");
    setv(c, 0, splits->name, cfg->cores_per_head,
         "cores_per_head = max(1, cores_per_batch / NKV) = %d: the KV sequence split over that many cores",
         cfg->cores_per_head);
    /* sub-blocks: the prefill rules with one tile row of Q */
    int dst = c->a->dst_tiles_half_16b;
    int qk_w = LM_MIN(cfg->Sk_chunk_t, dst), qk_h = 1;
    int pv_w = LM_MIN(cfg->DHt, dst), pv_h = 1;
    int h, w;
    shared_subblock(qk_h, qk_w, pv_h, pv_w, 1, cfg->Sk_chunk_t, cfg->DHt, &h, &w);
    setv(c, 0, "sub.h", h, "one tile row of query heads (PNHt = %d)", cfg->PNHt);
    setv(c, 0, "sub.w", w, "QK^T sub-block 1x%d, P V sub-block 1x%d: one pair for both dots", qk_w, pv_w);
    const char *qn = in_name(ks, ar.q), *kn = in_name(ks, ar.k), *vn = in_name(ks, ar.v);
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", qn), 1, "Q read once per core");
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", kn), 2, "K CB double-buffered (2 chunks)");
    setv(c, 0, lm_arena_printf(c->ar, "depth.%s", vn), 2, "V CB double-buffered (2 chunks)");
    outputs_single(c, 0, "partial output and statistics: one block each");
    sched_candidate *cd = &sc->cand;
    int64_t gx, gy;
    bool exact;
    if (fused) {
        cd->place[axis_kv] = SCHED_ON_Y;
        cd->place[axis_split] = SCHED_ON_X;
        cd->fuse = SCHED_FUSE_PRODUCER;
        cd->fuse_along = SCHED_ON_X;
        for (int t = 0; t < fz.nt; t++)
            if (fz.t[t].store < 64)
                cd->fused_acc |= (uint64_t)1 << fz.t[t].store;
        setv(c, 0, "grid.x", cfg->cores_per_head, "cores_per_head = the grid's width: a head's workers fill one row");
        setv(c, 0, "grid.y", nheads, "one row per (batch, kv head): %d active cores", cfg->active_cores);
        ttnn_explain_add(&R->map[0], "place", SCHED_ON_X,
                       "split rank along the row, (batch, kv head) down the rows: TTNN's linear core order when a "
                       "head's workers are one row");
    } else {
        cd->place[axis_kv] = SCHED_ON_XY;
        cd->place[axis_split] = SCHED_ON_XY;
        int64_t programs = B * HKV * cfg->cores_per_head;
        grid_for(LM_MIN(programs, (int64_t)c->a->grid_w * c->a->grid_h), c->a->grid_w, c->a->grid_h, &gx, &gy,
                 &exact);
        setv(c, 0, "grid.x", gx, "%d active cores (cores_per_head x NKV x B / heads_per_core), row-major",
             cfg->active_cores);
        setv(c, 0, "grid.y", gy, "see grid.x");
        ttnn_explain_add(&R->map[0], "place", SCHED_ON_XY,
                       "(batch, kv head) major, split rank minor, flattened row-major: TTNN's linear core order");
    }
    ttnn_explain_add(&R->map[0], lm_arena_printf(c->ar, "transport %s", qn), SCHED_DRAM,
                   "every worker reads Q from DRAM (interleaved Q)");
    sc->fidelity = c->o->have_fidelity ? c->o->fidelity : cfg->fidelity;
    sc->fp32_acc = cfg->fp32_acc;
    ttnn_explain_add(&R->map[0], "fidelity", sc->fidelity, "%s",
                   c->o->have_fidelity ? "--fidelity" : "decode default compute config (HiFi2, approximate exp)");
    sched_end(c, 0);

    /* launch 1: the reduction.  TTNN combines the partials on chip (a tree
       of ceil(log2(cores_per_head)) rounds over the NoC); fused, the
       partials go over the NoC to the row's reducer cores; otherwise the
       kernel does it as a second launch through DRAM scratch. */
    sched_begin(c, 1, "ttnn");
    sched_schedule *s1 = &R->s[1];
    int64_t splits_v = cfg->cores_per_head;
    sym_env_set(&s1->values, splits, splits_v);
    ttnn_explain_add(&R->map[1], lm_arena_strdup(c->ar, splits->name), splits_v, "shared with the split launch");
    if (fused) {
        sched_candidate *c1 = &s1->cand;
        c1->fuse = SCHED_FUSE_CONSUMER;
        c1->fuse_along = SCHED_ON_X;
        for (int g = 0; g < kc->f->grid_rank; g++)
            c1->place[g] = fz.key_of[g] >= 0 ? cd->place[fz.key_of[g]] : SCHED_ON_TIME;
        for (int t = 0; t < fz.nt; t++) {
            if (fz.t[t].load < 64)
                c1->fused_acc |= (uint64_t)1 << fz.t[t].load;
            sched_operand *o = operand_of(s1, fz.t[t].load);
            if (o)
                o->transport = SCHED_FUSED;
        }
        for (int i = 0; i < kc->nbufs; i++)
            if (kc->bufs[i].kind == SCHED_BUF_IN)
                setv(c, 1, lm_arena_printf(c->ar, "depth.%s", kc->bufs[i].name), 1,
                     "the partials arrive in the reducer's L1 over the NoC");
        outputs_single(c, 1, "one output row per program");
        if (kc->ndots) {
            setv(c, 1, "sub.h", 1, "no TTNN counterpart");
            setv(c, 1, "sub.w", 1, "no TTNN counterpart");
        }
        setv(c, 1, "grid.x", 1, "runs on the split launch's cores: each row's reducers");
        setv(c, 1, "grid.y", 1, "see grid.x");
        ttnn_explain_add(&R->map[1], "place", SCHED_ON_TIME,
                       "the query heads of a kv head dealt over its row's cores, after their split programs");
        s1->fidelity = c->o->have_fidelity ? c->o->fidelity : cfg->fidelity;
        s1->fp32_acc = kc->fp32_acc;
        sched_end(c, 1);
        if (!sched_fused_pair(&fz, cd, c1))
            return fail(R, "TTNN's decode as a fused pair is not one (internal)");
        note(R, "decode reduction: TTNN combines the workers' partial outputs and statistics in L1 over the NoC (a "
                "tree of ceil(log2(cores_per_head)) rounds to the head's first core); a head's workers are one row "
                "here, so the schedule is a fused launch pair: every worker sends its partials over the NoC to the "
                "row's cores, which combine a query head each (dealt round-robin) - no DRAM round trip, no second "
                "launch, but direct sends in place of the tree");
        note(R, "decode KV split: TTNN deals chunk ranges from the back of the cache and gives the remainder chunks "
                "to the first ranks; the kernel's splits are contiguous ranges of ceil(S / splits) rounded to whole "
                "chunks");
        return true;
    }
    for (int i = 0; i < kc->nbufs; i++)
        if (kc->bufs[i].kind == SCHED_BUF_IN)
            setv(c, 1, lm_arena_printf(c->ar, "depth.%s", kc->bufs[i].name), 2,
                 "partials double-buffered so the next reduction's inputs arrive during this one");
    outputs_single(c, 1, "one output row per program");
    if (kc->ndots) {
        setv(c, 1, "sub.h", 1, "no TTNN counterpart");
        setv(c, 1, "sub.w", 1, "no TTNN counterpart");
    }
    int64_t np = 1;
    for (int g = 0; g < kc->f->grid_rank; g++) {
        int64_t n;
        if (!eval(c, kc->f->grid[g], &n) && sym_eval(kc->f->grid[g], &s1->values, &n) != SYM_OK)
            return fail(R, "the combine launch's grid is not known");
        np *= n;
        s1->cand.place[g] = SCHED_ON_XY;
    }
    int64_t cores = LM_MIN(np, (int64_t)c->a->grid_w * c->a->grid_h);
    grid_for(cores, c->a->grid_w, c->a->grid_h, &gx, &gy, &exact);
    setv(c, 1, "grid.x", gx, "%lld combine programs (one per batch and query head), one per core; TTNN reduces "
         "on its %d reducer cores", (long long)np, cfg->num_reducers);
    setv(c, 1, "grid.y", gy, "see grid.x");
    ttnn_explain_add(&R->map[1], "place", SCHED_ON_XY, "every combine program flattened over the grid");
    s1->fidelity = c->o->have_fidelity ? c->o->fidelity : cfg->fidelity;
    s1->fp32_acc = kc->fp32_acc;
    sched_end(c, 1);
    note(R, lm_arena_printf(c->ar, "decode reduction: TTNN combines the workers' partial outputs and statistics in "
                                   "L1 over the NoC (a tree of ceil(log2(cores_per_head)) rounds); this schedule "
                                   "cannot say so as a fused launch pair - %s - so the kernel writes them to DRAM "
                                   "scratch and combines them in a second launch, which adds a DRAM round trip and "
                                   "a launch TTNN does not pay",
                            nofuse));
    note(R, "decode KV split: TTNN deals chunk ranges from the back of the cache and gives the remainder chunks to "
            "the first ranks; the kernel's splits are contiguous ranges of ceil(S / splits) rounded to whole chunks");
    return true;
}

/* ---- entry ---------------------------------------------------------------- */

static ttnn_family family_of(sched_kernel *const *k, int n)
{
    if (n == 1 && k[0]->ndots == 1)
        return TTNN_FAMILY_MATMUL;
    if (n == 1 && k[0]->ndots == 2)
        return TTNN_FAMILY_SDPA_PREFILL;
    if (n == 2 && k[0]->ndots == 2)
        return TTNN_FAMILY_SDPA_DECODE;
    return TTNN_FAMILY_NONE;
}

bool ttnn_schedule(ttnn_pick *out, sched_kernel *const *k, int nlaunches, const sym_env *bound,
                      const arch_desc *a, const ttnn_sched_opts *o, sym_ctx *s, lm_arena *ar)
{
    memset(out, 0, sizeof *out);
    ttnn_sched_opts dflt = {0};
    if (!o)
        o = &dflt;
    out->kind = o->kind;
    out->nlaunches = nlaunches;
    out->family = family_of(k, nlaunches);
    bctx c = {out, k, bound, a, o, s, ar};
    out->ok = true;
    switch (out->family) {
    case TTNN_FAMILY_MATMUL:
        if (o->kind == TTNN_SCHED_TUNED)
            return mm_tuned(&c) && out->ok;
        return mm_default(&c) && out->ok;
    case TTNN_FAMILY_SDPA_PREFILL:
        if (o->kind == TTNN_SCHED_TUNED)
            return fail(out, "TTNN publishes hand-tuned configs for matmul only");
        return sdpa_prefill(&c) && out->ok;
    case TTNN_FAMILY_SDPA_DECODE:
        if (o->kind == TTNN_SCHED_TUNED)
            return fail(out, "TTNN publishes hand-tuned configs for matmul only");
        return sdpa_decode(&c) && out->ok;
    case TTNN_FAMILY_NONE:
        break;
    }
    return fail(out, "no TTNN op matches this job (%d launch%s, %d dot%s in the first): TTNN baselines exist for "
                     "matmul, SDPA prefill and SDPA decode",
                nlaunches, nlaunches == 1 ? "" : "es", k[0]->ndots, k[0]->ndots == 1 ? "" : "s");
}

void ttnn_pick_free(ttnn_pick *r)
{
    for (int i = 0; i < SCHED_MAX_LAUNCHES; i++)
        sym_env_free(&r->s[i].values);
}

/* The map's items: numbers as numbers, placements, transports and
 * fidelities by name. */
static void map_print(lm_buf *b, const ttnn_explain *e)
{
    for (int i = 0; i < e->n; i++) {
        const ttnn_explain_item *it = &e->item[i];
        const char *name = NULL;
        if (!strncmp(it->param, "place", 5))
            name = sched_place_name((sched_place)it->value);
        else if (!strncmp(it->param, "transport", 9))
            name = sched_transport_name((sched_transport)it->value);
        else if (!strncmp(it->param, "noc", 3))
            name = sched_noc_name((sched_noc)it->value);
        else if (!strcmp(it->param, "fidelity"))
            name = arch_fidelity_name((arch_fidelity)it->value);
        if (name)
            lm_buf_printf(b, "  %-20s = %-8s %s\n", it->param, name, it->rule);
        else
            lm_buf_printf(b, "  %-20s = %-8lld %s\n", it->param, (long long)it->value, it->rule);
    }
}

void ttnn_pick_explain_print(lm_buf *b, const ttnn_pick *r, sched_kernel *const *k)
{
    const char *origin = r->kind == TTNN_SCHED_TUNED ? "ttnn-tuned" : "ttnn";
    if (!r->ok) {
        lm_buf_printf(b, "schedule %s: not available: %s\n", origin, r->why);
        return;
    }
    lm_buf_printf(b, "schedule %s (%s)\n", origin, ttnn_family_name(r->family));
    switch (r->family) {
    case TTNN_FAMILY_MATMUL:
        if (r->kind == TTNN_SCHED_TUNED) {
            lm_buf_puts(b, "TTNN's hand-tuned config (GEMM benchmark):\n");
            ttnn_explain_print(b, &r->tuned.explain);
            lm_buf_printf(b, "(the default selector would pick %s)\n", ttnn_mm_kind_name(r->mm.kind));
        } else {
            lm_buf_printf(b, "TTNN's default selection (%s):\n", ttnn_mm_kind_name(r->mm.kind));
            ttnn_explain_print(b, &r->mm.explain);
        }
        break;
    case TTNN_FAMILY_SDPA_PREFILL:
        lm_buf_puts(b, "TTNN's SDPA prefill defaults:\n");
        ttnn_explain_print(b, &r->sdpa.explain);
        break;
    case TTNN_FAMILY_SDPA_DECODE:
        lm_buf_puts(b, "TTNN's SDPA decode defaults:\n");
        ttnn_explain_print(b, &r->dec.explain);
        break;
    case TTNN_FAMILY_NONE:
        break;
    }
    for (int l = 0; l < r->nlaunches; l++) {
        lm_buf_printf(b, "as a loomc schedule of %s: %s\n", k[l]->name, r->s[l].cand.label ? r->s[l].cand.label : "");
        map_print(b, &r->map[l]);
    }
    if (r->nnotes) {
        lm_buf_puts(b, "approximations (docs/baselines.md):\n");
        for (int i = 0; i < r->nnotes; i++)
            lm_buf_printf(b, "  - %s\n", r->notes[i]);
    }
}
