/* ttnn_tuned.c - the hand-tuned 2D matmul configs of TTNN's GEMM benchmark.
 *
 * TTNN's "manually tuned" GEMM figures come from a benchmark that scales a
 * per-core base shape (m, k, n) by the grid: M = m * grid rows, K = k *
 * grid cols, N = n * grid cols.  Every per-core block parameter is then the
 * same on the N150 8x8 and the P150 13x10 / 11x10 grids; only the number of
 * K blocks changes.  This file holds the per-dtype rows (base shape, K block
 * depth, output-block split, placement) and derives the rest with the
 * benchmark's own rules, so loomc can be compared with TTNN's best
 * hand-picked schedule and not only its default one.
 */
#include "ttnn/ttnn.h"

#include <string.h>

/* One benchmark row: base shape, in0_block_w in tiles, output-block split,
 * and whether A and C are block-sharded in L1 (else DRAM-interleaved). */
typedef struct tuned_row {
    short m, k, n;
    short in0_block_w;
    short nob_h, nob_w;
    bool sharded;
} tuned_row;

#define S true
#define D false
static const tuned_row BF16_ROWS[] = {
    {64, 64, 64, 2, 1, 1, S},       {64, 128, 128, 4, 1, 1, S},    {64, 128, 256, 4, 1, 1, S},
    {128, 128, 128, 4, 1, 1, S},    {128, 128, 256, 4, 1, 1, S},   {128, 256, 256, 8, 1, 1, S},
    {256, 256, 256, 8, 1, 1, S},    {256, 256, 384, 8, 1, 1, S},   {256, 384, 384, 6, 1, 1, S},
    {384, 384, 384, 3, 1, 1, S},    {384, 384, 512, 6, 1, 1, D},   {384, 512, 512, 8, 1, 1, D},
    {416, 320, 320, 10, 1, 1, D},   {512, 512, 512, 16, 2, 2, D},  {1024, 1024, 1024, 16, 4, 4, D},
    {2048, 2048, 2048, 16, 8, 8, D},
};
/* bfp8_b has no (384, 512, 512) row: the benchmark never ran it. */
static const tuned_row BFP8_ROWS[] = {
    {64, 64, 64, 2, 1, 1, S},       {64, 128, 128, 4, 1, 1, S},    {64, 128, 256, 4, 1, 1, S},
    {128, 128, 128, 4, 1, 1, S},    {128, 128, 256, 4, 1, 1, S},   {128, 256, 256, 8, 1, 1, S},
    {256, 256, 256, 8, 1, 1, S},    {256, 256, 384, 8, 1, 1, S},   {256, 384, 384, 12, 1, 1, S},
    {384, 384, 384, 6, 1, 1, S},    {384, 384, 512, 6, 1, 1, S},   {416, 320, 320, 10, 1, 1, D},
    {512, 512, 512, 16, 2, 2, D},   {1024, 1024, 1024, 16, 4, 4, D}, {2048, 2048, 2048, 16, 8, 8, D},
};
static const tuned_row BFP4_ROWS[] = {
    {64, 64, 64, 2, 1, 1, S},       {64, 128, 128, 4, 1, 1, S},    {64, 128, 256, 4, 1, 1, S},
    {128, 128, 128, 4, 1, 1, S},    {128, 128, 256, 4, 1, 1, S},   {128, 256, 256, 8, 1, 1, S},
    {256, 256, 256, 8, 1, 1, S},    {256, 256, 384, 8, 1, 1, S},   {256, 384, 384, 12, 1, 1, S},
    {384, 384, 384, 12, 1, 1, S},   {384, 384, 512, 12, 1, 1, S},  {384, 512, 512, 8, 1, 1, S},
    {416, 320, 320, 10, 1, 1, D},   {512, 512, 512, 8, 1, 1, S},   {1024, 1024, 1024, 16, 2, 2, D},
    {2048, 2048, 2048, 16, 4, 4, D},
};
#undef S
#undef D

static bool not_covered(ttnn_mm_tuned *t, const char *why)
{
    t->covered = false;
    snprintf(t->why, sizeof t->why, "%s", why);
    return false;
}

/* The benchmark's sub-block rule: the first (h, w) of TTNN's ordered list
 * that divides the output block, with h = 1 when the output is sharded. */
static void tuned_subblock(int bh, int bw, bool out_sharded, int *h, int *w)
{
    static const int LIST[20][2] = {
        {4, 2}, {2, 4}, {8, 1}, {1, 8}, {7, 1}, {1, 7}, {3, 2}, {2, 3}, {6, 1}, {1, 6},
        {5, 1}, {1, 5}, {2, 2}, {4, 1}, {1, 4}, {3, 1}, {1, 3}, {2, 1}, {1, 2}, {1, 1},
    };
    for (size_t i = 0; i < LM_COUNT(LIST); i++) {
        if (out_sharded && LIST[i][0] != 1)
            continue;
        if (bh % LIST[i][0] == 0 && bw % LIST[i][1] == 0) {
            *h = LIST[i][0];
            *w = LIST[i][1];
            return;
        }
    }
    *h = *w = 1; /* unreachable: (1, 1) divides everything */
}

bool ttnn_mm_tuned_lookup(int64_t M, int64_t K, int64_t N, arch_format a, arch_format b, arch_format c,
                        int gx, int gy, ttnn_mm_tuned *t)
{
    memset(t, 0, sizeof *t);
    if (a != b || a != c)
        return not_covered(t, "the benchmark uses one format for A, B and C");
    const tuned_row *rows;
    size_t nrows;
    unsigned fid;
    switch (a) {
    case ARCH_BF16:
        rows = BF16_ROWS, nrows = LM_COUNT(BF16_ROWS);
        fid = 1u << ARCH_HIFI2 | 1u << ARCH_HIFI4;
        break;
    case ARCH_BFP8_B:
        rows = BFP8_ROWS, nrows = LM_COUNT(BFP8_ROWS);
        fid = 1u << ARCH_HIFI2 | 1u << ARCH_LOFI;
        break;
    case ARCH_BFP4_B:
        rows = BFP4_ROWS, nrows = LM_COUNT(BFP4_ROWS);
        fid = 1u << ARCH_LOFI;
        break;
    default:
        return not_covered(t, "the benchmark has no rows for this format");
    }
    if (!((gx == 8 && gy == 8) || (gx == 13 && gy == 10) || (gx == 11 && gy == 10)))
        return not_covered(t, "the benchmark grids are 8x8 (N150), 13x10 and 11x10 (P150)");
    if (M <= 0 || K <= 0 || N <= 0 || M % gy || K % gx || N % gx)
        return not_covered(t, "M must be a multiple of the grid rows, K and N of the grid columns");

    int64_t m = M / gy, k = K / gx, n = N / gx;
    const tuned_row *r = NULL;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].m == m && rows[i].k == k && rows[i].n == n)
            r = &rows[i];
    if (!r)
        return not_covered(t, "no benchmark row has this per-core base shape for this format");

    t->covered = true;
    t->base_m = r->m;
    t->base_k = r->k;
    t->base_n = r->n;
    t->grid_x = gx;
    t->grid_y = gy;
    t->in0_block_w = r->in0_block_w;
    t->per_core_M = r->m / 32;
    t->per_core_N = r->n / 32;
    t->num_out_blocks_h = r->nob_h;
    t->num_out_blocks_w = r->nob_w;
    t->out_block_h = t->per_core_M / r->nob_h;
    t->out_block_w = t->per_core_N / r->nob_w;
    t->in0_sharded = t->out_sharded = r->sharded;
    t->transpose_mcast = false;
    tuned_subblock(t->out_block_h, t->out_block_w, t->out_sharded, &t->out_subblock_h,
                   &t->out_subblock_w);
    t->num_k_blocks = (int)(K / 32 / t->in0_block_w);
    t->fidelities = fid;
    t->fp32_acc = false;
    t->packer_l1_acc = true;
    t->math_approx = true;

    ttnn_explain *e = &t->explain;
    ttnn_explain_add(e, "kind", TTNN_MM_MCAST_2D, "MCAST_2D: the benchmark always uses the 2D multicast config");
    ttnn_explain_add(e, "base", r->m, "per-core base (%d, %d, %d): M = m x %d rows, K = k x %d cols, N = n x %d cols",
              r->m, r->k, r->n, gy, gx, gx);
    ttnn_explain_add(e, "per_core_M", t->per_core_M, "m / 32");
    ttnn_explain_add(e, "per_core_N", t->per_core_N, "n / 32");
    ttnn_explain_add(e, "in0_block_w", t->in0_block_w, "k / 32 / the row's in0_block_w divisor");
    ttnn_explain_add(e, "out_block_h", t->out_block_h, "per_core_M / %d output-block rows", r->nob_h);
    ttnn_explain_add(e, "out_block_w", t->out_block_w, "per_core_N / %d output-block cols", r->nob_w);
    ttnn_explain_add(e, "out_subblock_h", t->out_subblock_h, "first of TTNN's ordered list dividing the out block%s",
              t->out_sharded ? ", h = 1 because the output is sharded" : "");
    ttnn_explain_add(e, "out_subblock_w", t->out_subblock_w, "see out_subblock_h");
    ttnn_explain_add(e, "num_k_blocks", t->num_k_blocks, "K / 32 / in0_block_w");
    ttnn_explain_add(e, "in0_sharded", t->in0_sharded, "%s",
              r->sharded ? "A and C block-sharded in L1 over the whole grid (row-major)"
                         : "A and C DRAM-interleaved");
    ttnn_explain_add(e, "packer_l1_acc", 1, "benchmark compute config: packer L1 acc on, fp32 acc off, approx on");
    return true;
}
