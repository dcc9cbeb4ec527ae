/* ttnn.c - TTNN's default matmul schedule (no program config), re-derived.
 *
 * Follows the legacy selector TTNN uses when A is not sharded and no grid
 * is given (create_simple_matmul_program_config and its helpers), then sizes
 * the circular buffers the way the chosen program factory allocates them.
 * Each decision is recorded with its rule for --explain.  The rules, their
 * sources and the decisions taken where the paraphrase was silent are in
 * docs/baselines.md; the comments here say why a step looks the way it does.
 */
#include "ttnn/ttnn.h"

#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ----------------------------------------------------- */

const ttnn_explain_item *ttnn_explain_find(const ttnn_explain *e, const char *param)
{
    for (int i = e->n - 1; i >= 0; i--)
        if (strcmp(e->item[i].param, param) == 0)
            return &e->item[i];
    return NULL;
}

void ttnn_explain_print(lm_buf *b, const ttnn_explain *e)
{
    for (int i = 0; i < e->n; i++)
        lm_buf_printf(b, "  %-20s = %-8lld %s\n", e->item[i].param, (long long)e->item[i].value,
                      e->item[i].rule);
}

void ttnn_explain_add(ttnn_explain *e, const char *param, int64_t value, const char *fmt, ...)
{
    /* Overflowing the fixed table is a bug in this file, not bad input. */
    LM_ASSERT(e->n < TTNN_EXPLAIN_MAX);
    ttnn_explain_item *it = &e->item[e->n++];
    it->param = param;
    it->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->rule, sizeof it->rule, fmt, ap);
    va_end(ap);
}

const char *ttnn_format_name(arch_format f)
{
    switch (f) {
    case ARCH_BF16: return "bf16";
    case ARCH_FP32: return "fp32";
    case ARCH_BFP8_B: return "bfp8_b";
    case ARCH_BFP4_B: return "bfp4_b";
    default: return "?";
    }
}

const char *ttnn_fidelity_name(arch_fidelity f)
{
    switch (f) {
    case ARCH_LOFI: return "LoFi";
    case ARCH_HIFI2: return "HiFi2";
    case ARCH_HIFI3: return "HiFi3";
    case ARCH_HIFI4: return "HiFi4";
    default: return "?";
    }
}

const char *ttnn_mm_kind_name(ttnn_mm_kind k)
{
    switch (k) {
    case TTNN_MM_MCAST_2D: return "MCAST_2D";
    case TTNN_MM_MCAST_1D_IN0: return "MCAST_1D_IN0";
    case TTNN_MM_MCAST_1D_IN1: return "MCAST_1D_IN1";
    case TTNN_MM_REUSE: return "REUSE";
    case TTNN_MM_MULTICORE: return "MULTICORE";
    }
    return "?";
}

static bool is_block_float(arch_format f) { return f == ARCH_BFP8_B || f == ARCH_BFP4_B; }

/* ---- compute config ----------------------------------------------------- */

void ttnn_mm_compute_defaults(arch_format a, arch_format b, arch_format c, ttnn_chip chip,
                            arch_fidelity *fidelity, bool *fp32_acc, bool *packer_l1_acc)
{
    /* Without a program config or user grid TTNN raises fidelity to HiFi2,
       except when both inputs are block-float, whose mantissas LoFi already
       covers.  Two fp32 inputs override both: HiFi3 on Wormhole (HiFi4 with
       fp32 Dst is avoided there because of a hardware erratum), HiFi4 on
       Blackhole. */
    arch_fidelity f = (is_block_float(a) && is_block_float(b)) ? ARCH_LOFI : ARCH_HIFI2;
    if (a == ARCH_FP32 && b == ARCH_FP32)
        f = chip == TTNN_CHIP_WORMHOLE ? ARCH_HIFI3 : ARCH_HIFI4;
    *fidelity = f;
    *fp32_acc = c == ARCH_FP32;
    *packer_l1_acc = c != ARCH_FP32;
}

/* ---- CB estimate, narrowness, sub-blocks, multi-dim factor ------------- */

int64_t ttnn_mm_est_cb_bytes(const ttnn_mm_input *in, int pm, int pn, int kw)
{
    /* TTNN's estimate: in0 and in1 double-buffered, the output estimated with
       A's tile size (not C's), plus the partials buffer.  The partials tile
       is fp32 with fp32 accumulation, else the larger of a bf16 tile (packer
       L1 accumulation packs bf16) and an output tile.  No bias, A not
       sharded, no transpose: those terms are zero on the default path. */
    int64_t ta = in->tile_bytes[in->fmt_a];
    int64_t tb = in->tile_bytes[in->fmt_b];
    int64_t interm = in->fmt_c == ARCH_FP32
                         ? in->tile_bytes[ARCH_FP32]
                         : LM_MAX(in->tile_bytes[ARCH_BF16], in->tile_bytes[in->fmt_c]);
    int64_t m = pm, n = pn, k = kw;
    return m * k * 2 * ta + n * k * 2 * tb + m * n * ta + m * n * interm;
}

static bool fits(const ttnn_mm_input *in, int pm, int pn, int kw)
{
    /* Strict: TTNN requires the estimate to be below the space. */
    return ttnn_mm_est_cb_bytes(in, pm, pn, kw) < in->l1_usable;
}

bool ttnn_mm_is_narrow(int64_t h, int64_t w, bool all_dram)
{
    /* Integer ratio, as TTNN computes it: 1100/128 counts as 8, not 8.6. */
    int64_t ratio = h > w ? h / w : w / h;
    if (ratio > 8)
        return true;
    return all_dram && (h <= 32 || w <= 32);
}

/* TTNN's ordered sub-block list: largest volume first, ties in this order. */
static const int SUBBLOCKS[20][2] = {
    {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
    {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1},
};

bool ttnn_mm_subblock(int m, int n, bool h_eq_m, bool w_eq_n, bool fp32, int *h, int *w)
{
    for (size_t i = 0; i < LM_COUNT(SUBBLOCKS); i++) {
        int sh = SUBBLOCKS[i][0], sw = SUBBLOCKS[i][1];
        if (fp32 && sh * sw > 4) /* half of Dst holds only 4 fp32 tiles */
            continue;
        if (w_eq_n && (sw != n || sh != 1))
            continue;
        if (h_eq_m && (sh != m || sw != 1))
            continue;
        if (m % sh == 0 && n % sw == 0) {
            *h = sh;
            *w = sw;
            return true;
        }
    }
    *h = *w = 1;
    return false;
}

/* One candidate output block of multi_dim_factor. */
typedef struct mdf_pair {
    int64_t prod;
    int m, n;
    int seq; /* position in TTNN's generation order */
} mdf_pair;

/* ratio(a) < ratio(b) with ratio = max/min, compared exactly. */
static int ratio_cmp(const mdf_pair *a, const mdf_pair *b)
{
    int64_t amax = LM_MAX(a->m, a->n), amin = LM_MIN(a->m, a->n);
    int64_t bmax = LM_MAX(b->m, b->n), bmin = LM_MIN(b->m, b->n);
    int64_t l = amax * bmin, r = bmax * amin;
    return l < r ? -1 : l > r;
}

/* Largest product first; within a product the winner first. */
static int mdf_cmp(const void *pa, const void *pb)
{
    const mdf_pair *a = pa, *b = pb;
    if (a->prod != b->prod)
        return a->prod > b->prod ? -1 : 1;
    int r = ratio_cmp(a, b);
    if (r)
        return r;
    return b->seq - a->seq;
}

/* TTNN's factor list: the value itself, 1, then every divisor from v/2 down to 2. */
static int factor_list(int v, int *out)
{
    int n = 0;
    out[n++] = v;
    out[n++] = 1;
    for (int d = v / 2; d > 1; d--)
        if (v % d == 0)
            out[n++] = d;
    return n;
}

void ttnn_mm_multi_dim_factor(const ttnn_mm_input *in, int pm, int pn, int kw, bool adjust_k, int out[3])
{
    out[0] = pm;
    out[1] = pn;
    out[2] = kw;
    if (fits(in, pm, pn, kw))
        return;

    /* TTNN keeps, per product m*n, the pair whose max/min ratio is closest to
       1, a later pair with an equal ratio replacing the earlier one; i.e. the
       last pair (in m-outer, n-inner order) with the smallest ratio.  Sorting
       by (product desc, ratio asc, order desc) puts that winner first. */
    int *mf = lm_xmalloc(sizeof(int) * (size_t)(pm + 2));
    int *nf = lm_xmalloc(sizeof(int) * (size_t)(pn + 2));
    int nm = factor_list(pm, mf), nn = factor_list(pn, nf);
    mdf_pair *p = lm_xmalloc(sizeof *p * (size_t)nm * (size_t)nn);
    int np = 0;
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nn; j++) {
            p[np] = (mdf_pair){(int64_t)mf[i] * nf[j], mf[i], nf[j], np};
            np++;
        }
    qsort(p, (size_t)np, sizeof *p, mdf_cmp);

    /* K depth is the outer loop so the block keeps as deep a K as it can. */
    int kmin = adjust_k ? 1 : kw;
    for (int k = kw; k >= kmin; k--) {
        if (kw % k)
            continue;
        for (int i = 0; i < np; i++) {
            if (i > 0 && p[i].prod == p[i - 1].prod)
                continue; /* not the winner of its product */
            if (fits(in, p[i].m, p[i].n, k)) {
                out[0] = p[i].m;
                out[1] = p[i].n;
                out[2] = k;
                free(p);
                free(mf);
                free(nf);
                return;
            }
        }
    }
    free(p);
    free(mf);
    free(nf);
    out[0] = out[1] = out[2] = 1;
}

/* ---- CB sizing of the chosen factory ------------------------------------ */

static void size_cbs(const ttnn_mm_input *in, ttnn_mm_config *c)
{
    ttnn_mm_cbs *cb = &c->cb;
    memset(cb, 0, sizeof *cb);
    ttnn_explain *e = &c->explain;
    const int64_t *tb = in->tile_bytes;

    if (c->kind == TTNN_MM_MULTICORE) {
        /* The no-reuse factory streams single tiles: two pages per CB. */
        cb->in0_tiles = cb->in1_tiles = cb->out_tiles = 2;
        cb->in0_bytes = 2 * tb[in->fmt_a];
        cb->in1_bytes = 2 * tb[in->fmt_b];
        cb->out_bytes = 2 * tb[in->fmt_c];
        cb->interm_fmt = in->fmt_c;
        cb->interm_shared = true;
        cb->double_buffered = true;
        cb->total_bytes = cb->in0_bytes + cb->in1_bytes + cb->out_bytes;
        c->packer_l1_acc_used = false;
        ttnn_explain_add(e, "cb_total_bytes", cb->total_bytes,
                  "no-reuse factory: in0, in1 and out each hold 2 tiles");
        return;
    }

    /* in0/in1 hold a second K block only when there is more than one block
       to stream (over all batches); output and partials are single. */
    cb->double_buffered = (int64_t)c->batch * c->num_k_blocks > 1;
    int depth = cb->double_buffered ? 2 : 1;
    cb->in0_tiles = (int64_t)c->out_block_h * c->in0_block_w * depth;
    cb->in1_tiles = (int64_t)c->out_block_w * c->in0_block_w * depth;
    cb->out_tiles = (int64_t)c->out_block_h * c->out_block_w;
    cb->interm_tiles = cb->out_tiles;

    /* Packer L1 accumulation pays for its reconfiguration only with enough
       K blocks: more than 2 in the 2D factory (its last block spills and
       reloads), more than 1 in the 1D factory. */
    int min_blocks = c->kind == TTNN_MM_MCAST_2D ? 2 : 1;
    c->packer_l1_acc_used = c->packer_l1_acc && c->num_k_blocks > min_blocks;
    cb->interm_fmt = c->fp32_acc ? ARCH_FP32 : (c->packer_l1_acc_used ? ARCH_BF16 : in->fmt_c);
    cb->interm_shared = cb->interm_fmt == in->fmt_c;

    cb->in0_bytes = cb->in0_tiles * tb[in->fmt_a];
    cb->in1_bytes = cb->in1_tiles * tb[in->fmt_b];
    cb->out_bytes = cb->out_tiles * tb[in->fmt_c];
    cb->interm_bytes = cb->interm_shared ? 0 : cb->interm_tiles * tb[cb->interm_fmt];
    cb->total_bytes = cb->in0_bytes + cb->in1_bytes + cb->out_bytes + cb->interm_bytes;

    ttnn_explain_add(e, "packer_l1_acc_used", c->packer_l1_acc_used,
              "configured %s; the %s factory enables it only with more than %d K blocks (%d here)",
              c->packer_l1_acc ? "on" : "off", c->kind == TTNN_MM_MCAST_2D ? "2D" : "1D", min_blocks,
              c->num_k_blocks);
    ttnn_explain_add(e, "cb_in0_tiles", cb->in0_tiles, "out_block_h %d x in0_block_w %d x %d (%s)",
              c->out_block_h, c->in0_block_w, depth,
              depth == 2 ? "double-buffered: batch x K blocks > 1" : "single: only one K block");
    ttnn_explain_add(e, "cb_in1_tiles", cb->in1_tiles, "out_block_w %d x in0_block_w %d x %d",
              c->out_block_w, c->in0_block_w, depth);
    ttnn_explain_add(e, "cb_out_tiles", cb->out_tiles, "one output block, not double-buffered");
    ttnn_explain_add(e, "cb_interm_bytes", cb->interm_bytes,
              "partials in %s: %s", ttnn_format_name(cb->interm_fmt),
              cb->interm_shared ? "same format as the output, so they share the output CB"
                                : "own CB of one output block");
    ttnn_explain_add(e, "cb_total_bytes", cb->total_bytes, "in0 + in1 + out + interm");
}

/* ---- the selector -------------------------------------------------------- */

static bool reject(ttnn_mm_config *c, const char *why)
{
    c->ok = false;
    snprintf(c->why, sizeof c->why, "%s", why);
    return false;
}

/* Output-block grid of a 2D config. */
static void work_2d(ttnn_mm_config *c)
{
    c->work_rows = (int)lm_cdiv(c->Mt, c->per_core_M);
    c->work_cols = (int)lm_cdiv(c->Nt, c->per_core_N);
    c->num_cores = c->work_rows * c->work_cols;
}

/* Row-major placement of `blocks` 1D blocks over the grid. */
static void work_1d(ttnn_mm_config *c, int64_t blocks)
{
    c->num_cores = (int)blocks;
    c->work_cols = (int)LM_MIN(blocks, (int64_t)c->grid_x);
    c->work_rows = (int)lm_cdiv(blocks, c->grid_x);
}

/* get_mcast_1d_config: one operand multicast along the whole grid. */
static void mcast_1d(const ttnn_mm_input *in, ttnn_mm_config *c, bool mcast_in0, const char *why)
{
    ttnn_explain *e = &c->explain;
    int cores = in->grid_x * in->grid_y;
    c->kind = mcast_in0 ? TTNN_MM_MCAST_1D_IN0 : TTNN_MM_MCAST_1D_IN1;
    c->grid_x = in->grid_x;
    c->grid_y = in->grid_y;
    c->fuse_batch = false;
    ttnn_explain_add(e, "kind", c->kind, "%s: %s", ttnn_mm_kind_name(c->kind), why);
    ttnn_explain_add(e, "fuse_batch", 0, "the default path never fuses the batch into M");

    /* The sizes are the tile-padded element extents, split over every core
       of the grid; the multicast operand's extent stays whole. */
    if (mcast_in0) {
        c->per_core_M = (int)c->Mt;
        c->per_core_N = (int)lm_cdiv(lm_cdiv(c->Nt * 32, cores), 32);
        ttnn_explain_add(e, "per_core_M", c->per_core_M, "mcast_in0: all of M (%lld tile(s)) on every core",
                  (long long)c->Mt);
        ttnn_explain_add(e, "per_core_N", c->per_core_N, "ceil(ceil(N %lld / %d cores) / 32)",
                  (long long)(c->Nt * 32), cores);
    } else {
        c->per_core_M = (int)lm_cdiv(lm_cdiv(c->Mt * 32, cores), 32);
        c->per_core_N = (int)c->Nt;
        ttnn_explain_add(e, "per_core_M", c->per_core_M, "ceil(ceil(M %lld / %d cores) / 32)",
                  (long long)(c->Mt * 32), cores);
        ttnn_explain_add(e, "per_core_N", c->per_core_N, "mcast_in1: all of N (%lld tile(s)) on every core",
                  (long long)c->Nt);
    }
    c->in0_block_w = c->Kt % 2 == 0 ? 2 : 1;
    ttnn_explain_add(e, "in0_block_w", c->in0_block_w, "2 if Kt (%lld) is even, else 1", (long long)c->Kt);

    int f[3];
    ttnn_mm_multi_dim_factor(in, c->per_core_M, c->per_core_N, c->in0_block_w, false, f);
    c->out_block_h = f[0];
    c->out_block_w = f[1];
    bool whole = f[0] == c->per_core_M && f[1] == c->per_core_N;
    ttnn_explain_add(e, "out_block_h", c->out_block_h, "%s",
              whole ? "the per-core block fits L1 whole"
                    : "largest near-square divisor block whose CB estimate fits L1 (K depth kept)");
    ttnn_explain_add(e, "out_block_w", c->out_block_w, "see out_block_h");

    /* Output interleaved: no sub-block must span the whole block. */
    bool found = ttnn_mm_subblock(c->out_block_h, c->out_block_w, false, false, c->fp32_acc,
                                &c->out_subblock_h, &c->out_subblock_w);
    ttnn_explain_add(e, "out_subblock_h", c->out_subblock_h,
              "%s%s", found ? "first of TTNN's ordered list dividing the out block" : "none fits: 1x1",
              c->fp32_acc ? " (h*w <= 4 with fp32 accumulation)" : "");
    ttnn_explain_add(e, "out_subblock_w", c->out_subblock_w, "see out_subblock_h");

    if (mcast_in0)
        work_1d(c, lm_cdiv(c->Nt, c->per_core_N));
    else
        work_1d(c, lm_cdiv(c->Mt, c->per_core_M));
    ttnn_explain_add(e, "num_cores", c->num_cores, "one core per %s block, laid row-major over the %dx%d grid",
              mcast_in0 ? "N" : "M", c->grid_x, c->grid_y);
}

/* The 2D branch of the selector. */
static void mcast_2d(const ttnn_mm_input *in, ttnn_mm_config *c, bool all_dram, int kw_in, const char *why)
{
    ttnn_explain *e = &c->explain;
    int gx = in->grid_x, gy = in->grid_y;
    c->kind = TTNN_MM_MCAST_2D;
    c->grid_x = gx;
    c->grid_y = gy;
    c->transpose_mcast = false; /* only a column-major block-sharded A transposes */
    c->fuse_batch = false;
    ttnn_explain_add(e, "kind", c->kind, "MCAST_2D: %s", why);
    ttnn_explain_add(e, "transpose_mcast", 0, "A is interleaved, not column-major block-sharded");

    if (!all_dram) {
        /* Non-DRAM branch: the square per-core factor is the block, and the
           sub-block is a fixed 4x2 unless 2 is not the whole block width. */
        c->per_core_M = c->per_core_N = c->per_core_factor;
        c->out_block_h = c->per_core_M;
        c->out_block_w = c->per_core_N;
        c->in0_block_w = kw_in;
        c->out_subblock_h = 4;
        c->out_subblock_w = 2;
        if (c->out_subblock_w != c->per_core_N)
            c->out_subblock_h = 1;
        ttnn_explain_add(e, "per_core_M", c->per_core_M, "the square per-core factor");
        ttnn_explain_add(e, "per_core_N", c->per_core_N, "the square per-core factor");
        ttnn_explain_add(e, "in0_block_w", c->in0_block_w, "kept from the per-core factor search");
        ttnn_explain_add(e, "out_block_h", c->out_block_h, "= per_core_M");
        ttnn_explain_add(e, "out_block_w", c->out_block_w, "= per_core_N");
        ttnn_explain_add(e, "out_subblock_h", c->out_subblock_h, "fixed 4x2, h = 1 when 2 != per_core_N (%d)",
                  c->per_core_N);
        ttnn_explain_add(e, "out_subblock_w", c->out_subblock_w, "fixed 4x2");
    } else {
        /* All-DRAM branch: spread M over the rows and N over the columns, and
           take K in one block per grid column when the columns divide it. */
        int kw = c->Kt % gx == 0 ? (int)(c->Kt / gx) : 1;
        c->per_core_M = (int)lm_cdiv(c->Mt, gy);
        c->per_core_N = (int)lm_cdiv(c->Nt, gx);
        ttnn_explain_add(e, "per_core_M", c->per_core_M, "ceil(Mt %lld / grid_y %d)", (long long)c->Mt, gy);
        ttnn_explain_add(e, "per_core_N", c->per_core_N, "ceil(Nt %lld / grid_x %d)", (long long)c->Nt, gx);
        int f[3];
        ttnn_mm_multi_dim_factor(in, c->per_core_M, c->per_core_N, kw, true, f);
        c->out_block_h = f[0];
        c->out_block_w = f[1];
        c->in0_block_w = f[2];
        bool whole = f[0] == c->per_core_M && f[1] == c->per_core_N && f[2] == kw;
        if (kw == f[2])
            ttnn_explain_add(e, "in0_block_w", c->in0_block_w, "%s",
                      c->Kt % gx == 0 ? "Kt / grid_x (grid_x divides Kt)"
                                      : "1: grid_x does not divide Kt");
        else
            ttnn_explain_add(e, "in0_block_w", c->in0_block_w,
                      "reduced from %d to a divisor so the CB estimate fits L1", kw);
        ttnn_explain_add(e, "out_block_h", c->out_block_h, "%s",
                  whole ? "the per-core block fits L1 whole"
                        : "largest near-square divisor block whose CB estimate fits L1");
        ttnn_explain_add(e, "out_block_w", c->out_block_w, "see out_block_h");
        bool found = ttnn_mm_subblock(c->out_block_h, c->out_block_w, false, false, c->fp32_acc,
                                    &c->out_subblock_h, &c->out_subblock_w);
        ttnn_explain_add(e, "out_subblock_h", c->out_subblock_h, "%s%s",
                  found ? "first of TTNN's ordered list dividing the out block" : "none fits: 1x1",
                  c->fp32_acc ? " (h*w <= 4 with fp32 accumulation)" : "");
        ttnn_explain_add(e, "out_subblock_w", c->out_subblock_w, "see out_subblock_h");
    }
    work_2d(c);
    ttnn_explain_add(e, "num_cores", c->num_cores, "%d rows x %d cols of output blocks on the %dx%d grid",
              c->work_rows, c->work_cols, gx, gy);
}

bool ttnn_mm_default(const ttnn_mm_input *in, ttnn_mm_config *c)
{
    memset(c, 0, sizeof *c);
    c->ok = true;
    if (in->M <= 0 || in->K <= 0 || in->N <= 0)
        return reject(c, "M, K and N must be positive");
    if (in->batch_a < 1 || in->batch_b < 1)
        return reject(c, "batch sizes must be at least 1");
    if (in->batch_a > 1 && in->batch_b > 1 && in->batch_a != in->batch_b)
        return reject(c, "batched A and B must have the same batch size");
    if (in->grid_x < 1 || in->grid_y < 1)
        return reject(c, "the grid must have at least one core");
    if ((unsigned)in->fmt_a >= ARCH_NFORMATS || (unsigned)in->fmt_b >= ARCH_NFORMATS ||
        (unsigned)in->fmt_c >= ARCH_NFORMATS)
        return reject(c, "unknown tile format");
    for (int f = 0; f < ARCH_NFORMATS; f++)
        if (in->tile_bytes[f] <= 0)
            return reject(c, "tile sizes must be given for every format");
    if (in->l1_usable <= 0)
        return reject(c, "usable L1 must be positive");

    ttnn_explain *e = &c->explain;
    /* Tiled tensors are padded to whole tiles; TTNN works on padded shapes. */
    c->Mt = lm_cdiv(in->M, 32);
    c->Kt = lm_cdiv(in->K, 32);
    c->Nt = lm_cdiv(in->N, 32);
    if (c->Mt > (1 << 20) || c->Kt > (1 << 20) || c->Nt > (1 << 20))
        return reject(c, "a dimension exceeds 2^20 tiles");
    c->batch = LM_MAX(in->batch_a, in->batch_b);

    ttnn_mm_compute_defaults(in->fmt_a, in->fmt_b, in->fmt_c, in->chip, &c->fidelity, &c->fp32_acc,
                           &c->packer_l1_acc);
    c->math_approx = false;
    ttnn_explain_add(e, "fidelity", c->fidelity, "%s: %s", ttnn_fidelity_name(c->fidelity),
              in->fmt_a == ARCH_FP32 && in->fmt_b == ARCH_FP32
                  ? (in->chip == TTNN_CHIP_WORMHOLE ? "both inputs fp32 on Wormhole"
                                                  : "both inputs fp32 on Blackhole")
              : c->fidelity == ARCH_LOFI ? "both inputs block-float"
                                         : "no program config and not both inputs block-float");
    ttnn_explain_add(e, "fp32_acc", c->fp32_acc, "fp32 Dst accumulation iff the output is fp32");
    ttnn_explain_add(e, "packer_l1_acc", c->packer_l1_acc, "on unless the output is fp32");

    bool all_dram = !in->l1_interleaved;
    int gx = in->grid_x, gy = in->grid_y;

    /* An unbatched A against a batched B goes to the 1D in1 config, whose
       factory keeps A in L1 and reuses it for every batch of B. */
    if (in->batch_a == 1 && in->batch_b > 1) {
        mcast_1d(in, c, false, "A is unbatched and B batched: A is reused across B's batches");
        c->num_k_blocks = (int)(c->Kt / c->in0_block_w);
        size_cbs(in, c);
        return true;
    }

    c->narrow = ttnn_mm_is_narrow(c->Mt * 32, c->Nt * 32, all_dram);
    if (c->narrow) {
        c->wide = c->Nt > c->Mt;
        c->tall = !c->wide;
    }
    ttnn_explain_add(e, "narrow", c->narrow, "%s",
              c->narrow ? (c->wide ? "max/min of M, N > 8 or a dim within one tile: wide (N > M)"
                                   : "max/min of M, N > 8 or a dim within one tile: tall")
                        : "M and N are within a ratio of 8 and both exceed one tile");

    /* Square per-core factor: the largest of 16, 8, 4, 2 whose CB estimate
       fits with in0_block_w = 2. */
    int f = 1;
    for (int t = 16; t > 1; t /= 2)
        if (fits(in, t, t, 2)) {
            f = t;
            break;
        }
    c->per_core_factor = f;
    ttnn_explain_add(e, "per_core_factor", f, "largest of 16, 8, 4, 2 with a %dx%d block and K depth 2 fitting L1",
              f, f);
    int64_t nby = lm_cdiv(c->Mt, f), nbx = lm_cdiv(c->Nt, f);
    int kw = 2;
    if ((nby > 1 || nbx > 1) && c->Kt % kw != 0)
        kw = 1;

    bool chosen = false;
    if (all_dram || (nbx * nby <= (int64_t)gx * gy && c->Kt % kw == 0)) {
        /* A block grid that fits the core grid (and is more than one block)
           gives the shape of the work; a single row or column makes it 1D. */
        int64_t crx = 0, cry = 0;
        if (!(nby == 1 && nbx == 1) && nby <= gy && nbx <= gx) {
            crx = nbx;
            cry = nby;
        }
        char why[160];
        if (cry == 1 || c->wide) {
            snprintf(why, sizeof why, "%s",
                     c->wide ? "the output is wide and narrow" : "the blocks form a single row");
            mcast_1d(in, c, true, why);
            chosen = true;
        } else if (crx == 1 || c->tall) {
            snprintf(why, sizeof why, "%s",
                     c->tall ? "the output is tall and narrow" : "the blocks form a single column");
            mcast_1d(in, c, false, why);
            chosen = true;
        } else if ((cry > 0 && nbx <= gx && nby <= gy) || all_dram) {
            snprintf(why, sizeof why, "%s",
                     all_dram ? "A, B and C are all DRAM-interleaved"
                              : "the blocks form a 2D grid that fits the core grid");
            mcast_2d(in, c, all_dram, kw, why);
            chosen = true;
        }
    }
    if (!chosen) {
        c->kind = TTNN_MM_MULTICORE;
        c->grid_x = gx;
        c->grid_y = gy;
        ttnn_explain_add(e, "kind", c->kind, "MULTICORE: not DRAM-interleaved and the %lldx%lld blocks do not "
                  "fit the grid as rows, columns or a 2D grid", (long long)nby, (long long)nbx);
        int64_t tiles = (int64_t)c->batch * c->Mt * c->Nt;
        c->num_cores = (int)LM_MIN(tiles, (int64_t)gx * gy);
        c->tiles_per_core = lm_cdiv(tiles, c->num_cores);
        c->work_cols = LM_MIN(c->num_cores, gx);
        c->work_rows = (int)lm_cdiv(c->num_cores, gx);
        ttnn_explain_add(e, "num_cores", c->num_cores, "output tiles (%lld) split over the grid", (long long)tiles);
        ttnn_explain_add(e, "tiles_per_core", c->tiles_per_core, "ceil(output tiles / cores)");
        size_cbs(in, c);
        return true;
    }

    LM_ASSERT(c->in0_block_w > 0 && c->Kt % c->in0_block_w == 0);
    c->num_k_blocks = (int)(c->Kt / c->in0_block_w);
    ttnn_explain_add(e, "num_k_blocks", c->num_k_blocks, "Kt %lld / in0_block_w %d", (long long)c->Kt,
              c->in0_block_w);
    size_cbs(in, c);
    return true;
}
