/* compute.c - tile ops on the compute engines: how an op splits into
 * chunks, what each chunk costs on unpack, math and pack, and (in
 * functional mode) the values it computes through num.h.
 *
 * A chunk is what one Dst half holds: a matmul output sub-block (sub_h x
 * sub_w tiles, accumulated over k in Dst), or up to one Dst half of tiles
 * for the element-wise, SFPU, copy and fill ops, or up to one Dst half of
 * output rows for a reduction. Its units are what math takes from the
 * source registers one after the other (core.c, chunk_math): a matmul's
 * tile products (k x sub_h x sub_w), else its input tiles. Costs come from
 * the description only:
 *
 *   unpack  bytes of the input tiles (in their CB's format) / unpack_bpc,
 *           a broadcast operand's tile at half (column) or a quarter
 *           (scalar) of its bytes (bcast_share);
 *           a matmul sub-block h x w unpacks, per K tile, min(h, w) tiles
 *           of one operand and h*w of the other (see sim_compute_unpack)
 *   math    tiles x the op's cycles per tile: matmul_tile_cycles[fidelity]
 *           (scaled by the in0 row granule for tiles shorter than it),
 *           eltwise_tile_cycles, bcast_tile_cycles when an operand is
 *           broadcast, mask as one element-wise pass, reduce_tile_cycles per input tile
 *           (a folded sum: eltwise_tile_cycles per tile after a row's first
 *           and reduce_tile_cycles per row), SFPU exp
 *           and exp2 (approximate or exact), recip, sqrt, rsqrt, sigmoid
 *           (each its own figure); log costs as exact exp,
 *           neg/scale, copy and fill as one element-wise pass; a chain
 *           the sum of its steps' cycles (unpack: its input once and the
 *           other operand of each binary step; pack: once)
 *   pack    bytes of the output tiles (in the output CB's format) / pack_bpc;
 *           a pchain's SFPU steps with pack=1 and its second pack into the
 *           row sums (sum=) on this thread too
 *   rowmax  reduce_block_tile_cycles per input tile (plus one element-wise
 *           pass per row for the previous maximum it is seeded with)
 *   init    op_init_cycles on each of the three threads before the first
 *           chunk of an op whose configuration (op, operation, broadcast,
 *           folding, operand and output formats, chain steps) differs from the op
 *           that thread ran before: the LLK's init and format reconfig. A
 *           thread runs it as soon as it is free, ahead of its wait for the
 *           op's inputs, so only the part longer than that wait shows
 *
 * The values are computed when unpack reads the inputs (the chunk then
 * carries them in its buffer, as the source registers and Dst would), in
 * fp32, and rounded to the output CB's format when pack writes them, with
 * packer L1 accumulation adding into what the output pages hold.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <string.h>

/* Fields an op does not take are NULL and read as 0. */
static int64_t evx(sim *s, sim_engine *e, const df_stmt *st, const df_expr *x)
{
    if (!x)
        return 0;
    bool bad = false;
    int64_t v = df_eval_checked(x, e->slots, &bad);
    if (bad)
        sim_fail(s, st, "division by zero or 64-bit overflow in an expression of '%s'", df_ops[st->op].name);
    return v;
}

static int dst_cap(sim *s, sim_engine *e)
{
    const df_class *k = &s->p->classes[s->cores[e->core].cls];
    int cap = k->fp32_acc ? s->a->dst_tiles_half_32b : s->a->dst_tiles_half_16b;
    return cap > 16 ? 16 : cap < 1 ? 1 : cap;
}

int sim_compute_nchunks(sim *s, sim_engine *e, const df_stmt *st)
{
    int cap = dst_cap(s, e);
    switch (st->op) {
    case DF_MATMUL: {
        int64_t m = evx(s, e, st, st->m), k = evx(s, e, st, st->k), n = evx(s, e, st, st->nn);
        int64_t sh = evx(s, e, st, st->sub_h), sw = evx(s, e, st, st->sub_w);
        if (s->failed)
            return 0;
        if (m < 0 || k < 0 || n < 0 || sh < 1 || sw < 1) {
            sim_fail(s, st, "matmul with m=%lld k=%lld nn=%lld sub_h=%lld sub_w=%lld: sizes must be positive",
                     (long long)m, (long long)k, (long long)n, (long long)sh, (long long)sw);
            return 0;
        }
        if (sh * sw > cap) {
            const df_class *kl = &s->p->classes[s->cores[e->core].cls];
            sim_fail(s, st, "matmul sub-block %lldx%lld = %lld tiles does not fit in Dst: half-sync %s holds %d tiles",
                     (long long)sh, (long long)sw, (long long)(sh * sw), kl->fp32_acc ? "fp32 accumulation" : "16-bit",
                     cap);
            return 0;
        }
        if (m % sh || n % sw) {
            sim_fail(s, st, "matmul output %lldx%lld tiles is not a whole number of %lldx%lld sub-blocks",
                     (long long)m, (long long)n, (long long)sh, (long long)sw);
            return 0;
        }
        return (int)((m / sh) * (n / sw));
    }
    case DF_ELTWISE: {
        int64_t r = evx(s, e, st, st->rows), c = evx(s, e, st, st->cols);
        return r <= 0 || c <= 0 ? 0 : (int)lm_cdiv(r * c, cap);
    }
    case DF_REDUCE:
    case DF_ROWMAX: {
        int64_t r = evx(s, e, st, st->rows), c = evx(s, e, st, st->cols);
        return r <= 0 || c <= 0 ? 0 : (int)lm_cdiv(r, cap);
    }
    case DF_MASK:
    case DF_CHAIN:
    case DF_PCHAIN:
    case DF_TRANSPOSE: {
        int64_t r = evx(s, e, st, st->rows), c = evx(s, e, st, st->cols);
        return r <= 0 || c <= 0 ? 0 : (int)lm_cdiv(r * c, cap);
    }
    case DF_SFPU:
    case DF_COPY:
    case DF_FILL: {
        int64_t n = evx(s, e, st, st->n);
        return n <= 0 ? 0 : (int)lm_cdiv(n, cap);
    }
    default:
        LM_BUG("not a compute op");
    }
}

static int cb_format(sim *s, sim_engine *e, int cbid)
{
    if (cbid < 0)
        return -1;
    const sim_cbs *cb = &s->cores[e->core].cb[sim_cb_id(e, cbid)];
    return cb->used ? (int)cb->format : -1;
}

static bool same_step(const df_stmt *a, const df_stmt *b)
{
    return a->op == b->op && a->sub == b->sub && a->bcast == b->bcast && a->trans_b == b->trans_b &&
           a->exact == b->exact && a->rev == b->rev && a->fold == b->fold && a->pack_sfpu == b->pack_sfpu &&
           a->col0 == b->col0 && (a->cb_sum < 0) == (b->cb_sum < 0) && (a->cb_b < 0) == (b->cb_b < 0);
}

/* Does st run on the configuration op `was` left? The same statement, or
 * one of the same kind on operands and output of the same formats. */
static bool same_config(sim *s, sim_engine *e, const df_stmt *was, const df_stmt *st)
{
    if (was == st)
        return true;
    if (!was || !same_step(was, st) || was->nbody != st->nbody)
        return false;
    if (cb_format(s, e, was->cb) != cb_format(s, e, st->cb) ||
        cb_format(s, e, was->cb_b) != cb_format(s, e, st->cb_b) ||
        cb_format(s, e, was->cb_out) != cb_format(s, e, st->cb_out))
        return false;
    for (int i = 0; i < st->nbody; i++)
        if (!same_step(was->body[i], st->body[i]) || cb_format(s, e, was->body[i]->cb_b) != cb_format(s, e, st->body[i]->cb_b))
            return false;
    return true;
}

/* The init a thread pays before the first chunk of st (see the top). */
double sim_compute_init(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->sub != 0)
        return 0;
    bool same = same_config(s, e, e->cfg, st);
    e->cfg = st;
    if (same)
        return 0;
    double idle = s->q.now - e->t_free;
    return idle >= s->a->op_init_cycles ? 0 : s->a->op_init_cycles - (idle > 0 ? idle : 0);
}

/* An input page at the front of a CB, checked against what was waited for. */
static const float *in_page(sim *s, sim_engine *e, const df_stmt *st, int cbid, int64_t idx)
{
    sim_cbs *cb = &s->cores[e->core].cb[sim_cb_id(e, cbid)];
    if (!cb->used) {
        sim_fail(s, st, "CB %d is not declared in this core's class", cbid);
        return NULL;
    }
    if (idx < 0 || idx >= cb->count) {
        sim_fail(s, st, "'%s' reads page %lld of CB %d, but only %lld pages are at its front (cb_wait first)",
                 df_ops[st->op].name, (long long)idx, cbid, (long long)cb->count);
        return NULL;
    }
    if (!s->functional)
        return NULL;
    return cb->data + (size_t)((cb->rd + idx) % cb->pages) * NUM_TILE_ELEMS;
}

static double tbytes(sim *s, sim_engine *e, int cbid)
{
    const sim_cbs *cb = &s->cores[e->core].cb[sim_cb_id(e, cbid)];
    return cb->used ? (double)cb->bytes : (double)s->a->tile_bytes[ARCH_BF16];
}

static int take_buf(sim *s, sim_engine *e)
{
    if (!s->functional)
        return -1;
    sim_core *c = &s->cores[e->core];
    for (int i = 0; i < SIM_NBUF; i++)
        if (!c->buf_used[i]) {
            c->buf_used[i] = true;
            return i;
        }
    LM_BUG("no free chunk buffer");
}

static float *buf_tile(sim *s, sim_engine *e, const sim_chunk *c, int i)
{
    return s->cores[e->core].buf[c->buf] + (size_t)i * NUM_TILE_ELEMS;
}

/* Math cycles per tile of an SFPU op (st: an sfpu op or step). */
static double sfpu_cycles(sim *s, const df_stmt *st)
{
    const arch_desc *a = s->a;
    bool exact = st->exact || s->o->exact_exp;
    switch ((df_sfpuop)st->sub) {
    case DF_EXP:
    case DF_EXP2:
        /* exp2(x) = exp(x ln 2): in approximate mode the scale folds
           into the algorithm's constants, one pass like exp */
        return exact ? a->sfpu_exp_exact_tile_cycles : a->sfpu_exp_tile_cycles;
    case DF_LOG:
        return a->sfpu_exp_exact_tile_cycles;
    case DF_RECIP:
        return a->sfpu_recip_tile_cycles;
    case DF_SQRT:
        return a->sfpu_sqrt_tile_cycles;
    case DF_RSQRT:
        return a->sfpu_rsqrt_tile_cycles;
    case DF_SIGMOID:
        return a->sfpu_sigmoid_tile_cycles;
    default:
        return a->eltwise_tile_cycles;
    }
}

/* An SFPU function of one tile; dst may be src (Dst works in place). exp
 * and exp2 take their input times `scale` (a pchain's folded scale; 1
 * elsewhere). */
static void sfpu_tile_scaled(sim *s, const df_stmt *st, float *dst, const float *pa, double scale)
{
    bool exact = st->exact || s->o->exact_exp;
    float tmp[NUM_TILE_ELEMS];
    if (scale != 1.0 && (st->sub == DF_EXP || st->sub == DF_EXP2)) {
        num_tile_scale(tmp, pa, (float)scale);
        pa = tmp;
    }
    switch ((df_sfpuop)st->sub) {
    case DF_EXP:
        num_tile_unop(dst, pa, exact ? NUM_EXP : NUM_EXP_APPROX);
        break;
    case DF_EXP2:
        num_tile_unop(dst, pa, exact ? NUM_EXP2 : NUM_EXP2_APPROX);
        break;
    case DF_LOG:
        num_tile_unop(dst, pa, NUM_LOG);
        break;
    case DF_RECIP:
        num_tile_unop(dst, pa, NUM_RECIP);
        break;
    case DF_SQRT:
        num_tile_unop(dst, pa, NUM_SQRT);
        break;
    case DF_RSQRT:
        num_tile_unop(dst, pa, NUM_RSQRT);
        break;
    case DF_SIGMOID:
        num_tile_unop(dst, pa, NUM_SIGMOID);
        break;
    case DF_NEG:
        num_tile_unop(dst, pa, NUM_NEG);
        break;
    case DF_SCALE:
        num_tile_scale(dst, pa, (float)st->scalar);
        break;
    case DF_GTZ:
    case DF_GEZ:
    case DF_LTZ:
    case DF_LEZ:
    case DF_EQZ:
    case DF_NEZ:
        for (int q = 0; q < NUM_TILE_ELEMS; q++) {
            float x = pa[q];
            bool b = st->sub == DF_GTZ ? x > 0 : st->sub == DF_GEZ ? x >= 0 : st->sub == DF_LTZ ? x < 0
                     : st->sub == DF_LEZ ? x <= 0 : st->sub == DF_EQZ ? x == 0 : x != 0;
            dst[q] = b ? 1.0f : 0.0f;
        }
        break;
    default:
        LM_BUG("bad sfpu op %d", st->sub);
    }
}

static void sfpu_tile(sim *s, const df_stmt *st, float *dst, const float *pa) { sfpu_tile_scaled(s, st, dst, pa, 1.0); }

/* The affine predicates of a mask op or step, evaluated for this engine. */
typedef struct maskp {
    int64_t row, col, pr[2], pc[2], pk[2];
} maskp;

static maskp mask_of(sim *s, sim_engine *e, const df_stmt *st, const df_stmt *at)
{
    maskp m;
    m.row = evx(s, e, at, st->row), m.col = evx(s, e, at, st->col);
    m.pr[0] = evx(s, e, at, st->p1r), m.pr[1] = evx(s, e, at, st->p2r);
    m.pc[0] = evx(s, e, at, st->p1c), m.pc[1] = evx(s, e, at, st->p2c);
    m.pk[0] = evx(s, e, at, st->p1k), m.pk[1] = evx(s, e, at, st->p2k);
    return m;
}

/* Tile t of a block `cols` tiles wide, its elements failing a predicate
 * replaced by `scalar`; dst may be pa. */
static void mask_tile(const maskp *m, double scalar, int64_t t, int64_t cols, float *dst, const float *pa)
{
    int64_t i0 = (m->row + t / cols) * NUM_TILE, j0 = (m->col + t % cols) * NUM_TILE;
    for (int r = 0; r < NUM_TILE; r++)
        for (int q = 0; q < NUM_TILE; q++) {
            int64_t i = i0 + r, jj = j0 + q;
            bool keep = m->pr[0] * i + m->pc[0] * jj + m->pk[0] >= 0 && m->pr[1] * i + m->pc[1] * jj + m->pk[1] >= 0;
            dst[r * NUM_TILE + q] = keep ? pa[r * NUM_TILE + q] : (float)scalar;
        }
}

/* The page of a broadcast operand that tile t of a rows x cols block reads. */
static int64_t bcast_page(int bcast, int64_t t, int64_t cols)
{
    return bcast == DF_BC_COL ? t / cols : bcast == DF_BC_ROW ? t % cols : bcast == DF_BC_SCALAR ? 0 : t;
}

static const num_binop elt_ops[DF_NELTOPS] = {NUM_ADD, NUM_SUB, NUM_MUL, NUM_MAXOP};
/* The part of a broadcast operand's tile the unpacker reads for each tile
 * of the other operand (tt-llk `_llk_unpack_AB_mop_config_`, the same on
 * Wormhole and Blackhole): a column broadcast unpacks srcB's faces 0 and 2
 * only (the faces holding column 0), a scalar one its face 0 once; a row
 * broadcast reads faces 0 and 1 for the upper and again for the lower
 * faces, four face reads as for a plain tile. */
static double bcast_share(int bcast)
{
    return bcast == DF_BC_COL ? 0.5 : bcast == DF_BC_SCALAR ? 0.25 : 1.0;
}

static const num_bcast elt_bcs[DF_NBCASTS] = {NUM_BCAST_NONE, NUM_BCAST_COL, NUM_BCAST_ROW, NUM_BCAST_SCALAR};

double sim_compute_unpack(sim *s, sim_engine *e, const df_stmt *st, int j, sim_chunk *c)
{
    const arch_desc *a = s->a;
    const df_class *kl = &s->p->classes[s->cores[e->core].cls];
    int cap = dst_cap(s, e);
    memset(c, 0, sizeof *c);
    c->s = st;
    c->buf = -1;
    c->cb_sum = -1;
    double unpack = 0, per_out = tbytes(s, e, st->cb_out) / a->pack_bpc;
    int64_t at = evx(s, e, st, st->at);
    int64_t at_out = evx(s, e, st, st->at_out);
    if (s->failed)
        return 0;
    switch (st->op) {
    case DF_MATMUL: {
        int64_t m = evx(s, e, st, st->m), k = evx(s, e, st, st->k), n = evx(s, e, st, st->nn);
        int64_t sh = evx(s, e, st, st->sub_h), sw = evx(s, e, st, st->sub_w);
        int64_t at_b = evx(s, e, st, st->at_b);
        (void)m;
        int64_t nsbw = n / sw, bi = j / nsbw, bj = j % nsbw;
        c->ntiles = (int)(sh * sw);
        c->acc = evx(s, e, st, st->acc) != 0;
        /* in0 rows below the granule still cost a whole granule */
        double granule = a->matmul_rows_granule > 0 ? a->matmul_rows_granule : a->tile_h;
        double rows_factor = ceil(a->tile_h / granule) * granule / a->tile_h;
        c->math = (double)(sh * sw * k) * a->matmul_tile_cycles[kl->fidelity] * rows_factor;
        c->pack = (double)c->ntiles * per_out;
        c->flops = (double)(sh * sw * k) * 2.0 * a->tile_h * a->tile_w * a->tile_w;
        /* The unpacker feeds the matrix engine a pair of source tiles per
           tile product; its source registers hold one tile per operand. Per
           K tile it holds one operand's tile while it streams the other's
           along the sub-block's longer side, then refills the held one
           (tenstorrent/tt-llk, llk_unpack_AB_matmul: reuse_a = ct_dim >=
           rt_dim). So a sub-block unpacks, per K tile, min(h, w) tiles of the
           held operand and h*w tiles of the streamed one - not h + w. */
        double held = sw >= sh ? (double)sh * tbytes(s, e, st->cb) : (double)sw * tbytes(s, e, st->cb_b);
        double streamed = (double)(sh * sw) * (sw >= sh ? tbytes(s, e, st->cb_b) : tbytes(s, e, st->cb));
        unpack = (double)k * (held + streamed) / a->unpack_bpc;
        c->steps = (int)LM_MIN(k * sh * sw, (int64_t)INT32_MAX);
        for (int r = 0; r < sh; r++)
            for (int q = 0; q < sw; q++)
                c->out[r * sw + q] = (int32_t)(at_out + (bi * sh + r) * n + bj * sw + q);
        /* validate every page it reads, and compute in functional mode */
        c->buf = take_buf(s, e);
        float tmp[NUM_TILE_ELEMS];
        for (int r = 0; r < sh; r++)
            for (int q = 0; q < sw; q++) {
                int64_t row = bi * sh + r, col = bj * sw + q;
                float *dst = c->buf >= 0 ? buf_tile(s, e, c, r * (int)sw + q) : NULL;
                if (dst)
                    memset(dst, 0, NUM_TILE_ELEMS * sizeof *dst);
                for (int64_t kk = 0; kk < k; kk++) {
                    const float *pa = in_page(s, e, st, st->cb, at + row * k + kk);
                    const float *pb = in_page(s, e, st, st->cb_b, at_b + (st->trans_b ? col * k + kk : kk * n + col));
                    if (s->failed)
                        return 0;
                    if (!dst)
                        continue;
                    if (st->trans_b) {
                        num_tile_transpose(tmp, pb);
                        pb = tmp;
                    }
                    num_tile_matmul_acc(dst, pa, pb, kl->fidelity);
                }
            }
        break;
    }
    case DF_ELTWISE: {
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols), at_b = evx(s, e, st, st->at_b);
        int64_t t0 = (int64_t)j * cap, t1 = LM_MIN(rows * cols, t0 + cap);
        c->ntiles = (int)(t1 - t0);
        c->acc = evx(s, e, st, st->acc) != 0;
        bool bc = st->bcast != DF_BC_NONE;
        c->math = c->ntiles * (bc ? a->bcast_tile_cycles : a->eltwise_tile_cycles);
        c->pack = c->ntiles * per_out;
        unpack = c->ntiles * (tbytes(s, e, st->cb) + bcast_share(st->bcast) * tbytes(s, e, st->cb_b)) / a->unpack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t t = t0; t < t1; t++) {
            c->out[t - t0] = (int32_t)(at_out + t);
            const float *pa = in_page(s, e, st, st->cb, at + t);
            const float *pb = in_page(s, e, st, st->cb_b, at_b + bcast_page(st->bcast, t, cols));
            if (s->failed)
                return 0;
            if (c->buf >= 0)
                num_tile_binop(buf_tile(s, e, c, (int)(t - t0)), pa, pb, elt_ops[st->sub], elt_bcs[st->bcast]);
        }
        break;
    }
    case DF_REDUCE: {
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols);
        int64_t r0 = (int64_t)j * cap, r1 = LM_MIN(rows, r0 + cap);
        c->ntiles = (int)(r1 - r0);
        /* folded: the row's tiles are added element-wise in Dst (one pass
           each after the first), then one tile is reduced */
        bool fold = st->fold && cols > 1;
        c->math = fold ? c->ntiles * ((double)(cols - 1) * a->eltwise_tile_cycles + a->reduce_tile_cycles)
                       : (double)(c->ntiles * cols) * a->reduce_tile_cycles;
        c->pack = c->ntiles * per_out;
        unpack = (double)(c->ntiles * cols) * tbytes(s, e, st->cb) / a->unpack_bpc;
        c->steps = (int)LM_MIN(c->ntiles * cols, (int64_t)INT32_MAX);
        c->buf = take_buf(s, e);
        float sum[NUM_TILE_ELEMS];
        for (int64_t r = r0; r < r1; r++) {
            c->out[r - r0] = (int32_t)(at_out + r);
            float *dst = c->buf >= 0 ? buf_tile(s, e, c, (int)(r - r0)) : NULL;
            if (dst)
                memset(dst, 0, NUM_TILE_ELEMS * sizeof *dst);
            for (int64_t q = 0; q < cols; q++) {
                const float *pa = in_page(s, e, st, st->cb, at + r * cols + q);
                if (s->failed)
                    return 0;
                if (!dst)
                    continue;
                if (!fold)
                    num_tile_reduce_row(dst, pa, st->sub == DF_RMAX ? NUM_RED_MAX : NUM_RED_SUM, q > 0);
                else if (q == 0)
                    memcpy(sum, pa, sizeof sum);
                else
                    num_tile_binop(sum, sum, pa, NUM_ADD, NUM_BCAST_NONE);
            }
            if (dst && fold)
                num_tile_reduce_row(dst, sum, NUM_RED_SUM, false);
        }
        break;
    }
    case DF_TRANSPOSE: {
        /* input tile (r, c) becomes output tile (c, r), transposed: one pass
           through Dst per tile, as transpose_wh does */
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols);
        int64_t t0 = (int64_t)j * cap, t1 = LM_MIN(rows * cols, t0 + cap);
        c->ntiles = (int)(t1 - t0);
        c->math = c->ntiles * a->eltwise_tile_cycles;
        c->pack = c->ntiles * per_out;
        unpack = c->ntiles * tbytes(s, e, st->cb) / a->unpack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t t = t0; t < t1; t++) {
            int64_t r = t / cols, q = t % cols;
            c->out[t - t0] = (int32_t)(at_out + q * rows + r);
            const float *pa = in_page(s, e, st, st->cb, at + t);
            if (s->failed)
                return 0;
            if (c->buf >= 0)
                num_tile_transpose(buf_tile(s, e, c, (int)(t - t0)), pa);
        }
        break;
    }
    case DF_MASK: {
        /* one element-wise pass per tile: the predicates are index
         * arithmetic, like the iota-and-compare a kernel would run */
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols);
        maskp m = mask_of(s, e, st, st);
        if (s->failed)
            return 0;
        int64_t t0 = (int64_t)j * cap, t1 = LM_MIN(rows * cols, t0 + cap);
        c->ntiles = (int)(t1 - t0);
        c->math = c->ntiles * a->eltwise_tile_cycles;
        c->pack = c->ntiles * per_out;
        unpack = c->ntiles * tbytes(s, e, st->cb) / a->unpack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t t = t0; t < t1; t++) {
            c->out[t - t0] = (int32_t)(at_out + t);
            const float *pa = in_page(s, e, st, st->cb, at + t);
            if (s->failed)
                return 0;
            if (c->buf >= 0)
                mask_tile(&m, st->scalar, t, cols, buf_tile(s, e, c, (int)(t - t0)), pa);
        }
        break;
    }
    case DF_CHAIN:
    case DF_PCHAIN: {
        /* the block is unpacked once into Dst; each step works on the same
           tiles there at its own math cost (a binary step unpacks its other
           operand, as eltwise's b); one pack at the end. A pchain's SFPU
           steps run on the pack thread with pack=1 (after math's steps, ahead
           of its packs), on column 0 only with col0=1 (a quarter of the
           passes: VectorMode::C's two faces at half-face iterations), and
           its tiles are packed a second time into the row sums with sum */
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols);
        int64_t t0 = (int64_t)j * cap, t1 = LM_MIN(rows * cols, t0 + cap);
        bool px = st->op == DF_PCHAIN;
        double scale = px ? st->scalar : 1.0;
        c->ntiles = (int)(t1 - t0);
        c->pack = c->ntiles * per_out;
        c->front = px && st->front;
        c->cb_sum = px ? st->cb_sum : -1;
        unpack = c->ntiles * tbytes(s, e, st->cb) / a->unpack_bpc;
        double per = 0, per_pack = 0;
        maskp mk[DF_MAX_STEPS];
        int64_t atb[DF_MAX_STEPS];
        for (int k = 0; k < st->nbody && k < DF_MAX_STEPS; k++) {
            const df_stmt *sp = st->body[k];
            switch (sp->op) {
            case DF_ELTWISE:
                per += sp->bcast != DF_BC_NONE ? a->bcast_tile_cycles : a->eltwise_tile_cycles;
                unpack += c->ntiles * bcast_share(sp->bcast) * tbytes(s, e, sp->cb_b) / a->unpack_bpc;
                atb[k] = evx(s, e, st, sp->at_b);
                break;
            case DF_SFPU: {
                double f = sfpu_cycles(s, sp) * (px && st->col0 ? 0.25 : 1.0);
                if (px && st->pack_sfpu)
                    per_pack += f;
                else
                    per += f;
                break;
            }
            case DF_MASK:
                per += a->eltwise_tile_cycles;
                mk[k] = mask_of(s, e, sp, st);
                break;
            default:
                LM_BUG("bad chain step %d", (int)sp->op);
            }
        }
        int64_t at_sum = px && st->cb_sum >= 0 ? evx(s, e, st, st->at_sum) : 0;
        bool sum_acc = px && st->cb_sum >= 0 && evx(s, e, st, st->sum_acc) != 0;
        if (s->failed)
            return 0;
        c->math = c->ntiles * per;
        c->pack += c->ntiles * per_pack;
        if (c->cb_sum >= 0)
            c->pack += c->ntiles * tbytes(s, e, c->cb_sum) / a->pack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t t = t0; t < t1; t++) {
            c->out[t - t0] = (int32_t)(at_out + t);
            if (c->cb_sum >= 0) {
                c->sum[t - t0] = (int32_t)(at_sum + t / cols);
                c->sum_set[t - t0] = !sum_acc && t % cols == 0;
            }
            const float *pa = in_page(s, e, st, st->cb, at + t);
            const float *pb[DF_MAX_STEPS];
            for (int k = 0; k < st->nbody && k < DF_MAX_STEPS; k++)
                if (st->body[k]->op == DF_ELTWISE)
                    pb[k] = in_page(s, e, st, st->body[k]->cb_b, atb[k] + bcast_page(st->body[k]->bcast, t, cols));
            if (s->failed)
                return 0;
            if (c->buf < 0)
                continue;
            float *dst = buf_tile(s, e, c, (int)(t - t0));
            memcpy(dst, pa, NUM_TILE_ELEMS * sizeof *dst);
            for (int k = 0; k < st->nbody && k < DF_MAX_STEPS; k++) {
                const df_stmt *sp = st->body[k];
                if (sp->op == DF_SFPU) {
                    sfpu_tile_scaled(s, sp, dst, dst, scale);
                } else if (sp->op == DF_MASK) {
                    mask_tile(&mk[k], sp->scalar, t, cols, dst, dst);
                } else if (!sp->rev) {
                    num_tile_binop(dst, dst, pb[k], elt_ops[sp->sub], elt_bcs[sp->bcast]);
                } else {
                    /* b op value: b is never broadcast (validated) */
                    num_tile_binop(dst, pb[k], dst, elt_ops[sp->sub], NUM_BCAST_NONE);
                }
            }
        }
        break;
    }
    case DF_ROWMAX: {
        /* the block reduction: every tile of a row goes through the pool at
           reduce_block_tile_cycles (the previous maximum, with b, copied
           into Dst first as one element-wise pass); one tile out per row */
        int64_t rows = evx(s, e, st, st->rows), cols = evx(s, e, st, st->cols);
        int64_t rs = evx(s, e, st, st->rs), bw = evx(s, e, st, st->bw), bs = evx(s, e, st, st->bs);
        int64_t at_b = evx(s, e, st, st->at_b);
        if (s->failed)
            return 0;
        rs = rs ? rs : cols;
        bw = bw ? bw : cols;
        bs = bs ? bs : bw;
        bool seed = st->cb_b >= 0;
        int64_t r0 = (int64_t)j * cap, r1 = LM_MIN(rows, r0 + cap);
        c->ntiles = (int)(r1 - r0);
        c->math = c->ntiles * ((double)cols * a->reduce_block_tile_cycles + (seed ? a->eltwise_tile_cycles : 0));
        c->pack = c->ntiles * per_out;
        unpack = (double)(c->ntiles * cols) * tbytes(s, e, st->cb) / a->unpack_bpc;
        c->steps = (int)LM_MIN(c->ntiles * cols, (int64_t)INT32_MAX);
        if (seed)
            unpack += c->ntiles * tbytes(s, e, st->cb_b) / a->unpack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t r = r0; r < r1; r++) {
            c->out[r - r0] = (int32_t)(at_out + r);
            float *dst = c->buf >= 0 ? buf_tile(s, e, c, (int)(r - r0)) : NULL;
            for (int64_t q = 0; q < cols; q++) {
                const float *pa = in_page(s, e, st, st->cb, at + r * rs + (q / bw) * bs + q % bw);
                if (s->failed)
                    return 0;
                if (dst)
                    num_tile_reduce_row(dst, pa, NUM_RED_MAX, q > 0);
            }
            const float *pb = seed ? in_page(s, e, st, st->cb_b, at_b + r) : NULL;
            if (s->failed)
                return 0;
            if (dst && pb)
                for (int i = 0; i < NUM_TILE; i++)
                    dst[i * NUM_TILE] = fmaxf(dst[i * NUM_TILE], pb[i * NUM_TILE]);
        }
        break;
    }
    case DF_SFPU:
    case DF_COPY:
    case DF_FILL: {
        int64_t n = evx(s, e, st, st->n);
        int64_t t0 = (int64_t)j * cap, t1 = LM_MIN(n, t0 + cap);
        c->ntiles = (int)(t1 - t0);
        c->acc = st->op == DF_COPY && evx(s, e, st, st->acc) != 0;
        double per = st->op == DF_SFPU ? sfpu_cycles(s, st) : a->eltwise_tile_cycles;
        c->math = c->ntiles * per;
        c->pack = c->ntiles * per_out;
        unpack = st->op == DF_FILL ? 0 : c->ntiles * tbytes(s, e, st->cb) / a->unpack_bpc;
        c->buf = take_buf(s, e);
        for (int64_t t = t0; t < t1; t++) {
            c->out[t - t0] = (int32_t)(at_out + t);
            const float *pa = st->op == DF_FILL ? NULL : in_page(s, e, st, st->cb, at + t);
            if (s->failed)
                return 0;
            if (c->buf < 0)
                continue;
            float *dst = buf_tile(s, e, c, (int)(t - t0));
            if (st->op == DF_FILL) {
                for (int i = 0; i < NUM_TILE_ELEMS; i++)
                    dst[i] = (float)st->scalar;
            } else if (st->op == DF_COPY) {
                memcpy(dst, pa, NUM_TILE_ELEMS * sizeof *dst);
            } else {
                sfpu_tile(s, st, dst, pa);
            }
        }
        break;
    }
    default:
        LM_BUG("not a compute op");
    }
    if (c->steps < 1)
        c->steps = c->ntiles > 0 ? c->ntiles : 1;
    return unpack;
}

/* A pchain's second pack: each tile added into its row's page of the sum
 * CB (packer L1 accumulation), the first of a row overwriting it. */
static void pack_sums(sim *s, sim_engine *e, const sim_chunk *c)
{
    sim_core *k = &s->cores[e->core];
    sim_cbs *cb = &k->cb[c->cb_sum];
    if (!cb->used) {
        sim_fail(s, c->s, "CB %d is not declared in this core's class", c->cb_sum);
        return;
    }
    for (int i = 0; i < c->ntiles; i++) {
        if (c->sum[i] < 0 || c->sum[i] >= cb->pages - cb->count) {
            sim_fail(s, c->s, "'%s' adds its row sums into page %d past the back of CB %d, which has %lld free pages "
                     "(cb_reserve first)", df_ops[c->s->op].name, c->sum[i], c->cb_sum,
                     (long long)(cb->pages - cb->count));
            return;
        }
        if (c->buf < 0)
            continue;
        float *dst = cb->data + (size_t)((cb->wr + c->sum[i]) % cb->pages) * NUM_TILE_ELEMS;
        const float *src = k->buf[c->buf] + (size_t)i * NUM_TILE_ELEMS;
        if (c->sum_set[i])
            memcpy(dst, src, NUM_TILE_ELEMS * sizeof *dst);
        else
            for (int q = 0; q < NUM_TILE_ELEMS; q++)
                dst[q] += src[q];
        num_pack_tile(dst, cb->format);
    }
}

void sim_compute_pack(sim *s, sim_engine *e, const sim_chunk *c, int cb_out)
{
    sim_core *k = &s->cores[e->core];
    sim_cbs *cb = &k->cb[sim_cb_id(e, cb_out)];
    if (!cb->used) {
        sim_fail(s, c->s, "CB %d is not declared in this core's class", cb_out);
        return;
    }
    for (int i = 0; i < c->ntiles; i++) {
        if (c->front && (c->out[i] < 0 || c->out[i] >= cb->count)) {
            sim_fail(s, c->s, "'%s' writes page %d in place at the front of CB %d, which has %lld pages there "
                     "(cb_wait first)", df_ops[c->s->op].name, c->out[i], cb_out, (long long)cb->count);
            return;
        }
        if (!c->front && (c->out[i] < 0 || c->out[i] >= cb->pages - cb->count)) {
            sim_fail(s, c->s, "'%s' writes page %d past the back of CB %d, which has %lld free pages (cb_reserve "
                     "first)", df_ops[c->s->op].name, c->out[i], cb_out, (long long)(cb->pages - cb->count));
            return;
        }
        if (c->buf < 0)
            continue;
        int64_t base = c->front ? cb->rd : cb->wr;
        float *dst = cb->data + (size_t)((base + c->out[i]) % cb->pages) * NUM_TILE_ELEMS;
        const float *src = k->buf[c->buf] + (size_t)i * NUM_TILE_ELEMS;
        if (c->acc)
            for (int q = 0; q < NUM_TILE_ELEMS; q++)
                dst[q] += src[q];
        else
            memcpy(dst, src, NUM_TILE_ELEMS * sizeof *dst);
        num_pack_tile(dst, cb->format);
    }
    if (c->cb_sum >= 0)
        pack_sums(s, e, c);
    if (c->buf >= 0)
        k->buf_used[c->buf] = false;
}
