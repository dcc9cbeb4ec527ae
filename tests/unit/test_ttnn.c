/* test_ttnn.c - TTNN default-schedule baselines: matmul selection, the
 * benchmark's hand-tuned configs, SDPA prefill and SDPA decode defaults.
 *
 * Every expected value is worked out by hand from the rules in
 * docs/baselines.md; the derivation sits in a comment beside it.
 * Constants used throughout:
 *   tiles: bf16 2048 B, fp32 4096 B, bfp8_b 1088 B, bfp4_b 576 B;
 *   usable L1: Wormhole 1,466,080 B (1,499,136 - 33,056 reserved),
 *              Blackhole 1,532,448 B (1,572,864 - 40,416 reserved);
 *   est(pM,pN,kw) = pM*kw*2*tA + pN*kw*2*tB + pM*pN*tA + pM*pN*interm,
 *     interm = 4096 with fp32 output, else max(2048, tC).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ttnn/ttnn.h"

enum { L1_WH = 1466080, L1_BH = 1532448 };

static void set_tiles(int64_t *t)
{
    t[ARCH_BF16] = 2048;
    t[ARCH_FP32] = 4096;
    t[ARCH_BFP8_B] = 1088;
    t[ARCH_BFP4_B] = 576;
}

static ttnn_mm_input mm(int64_t M, int64_t K, int64_t N, arch_format f, int gx, int gy)
{
    ttnn_mm_input in;
    memset(&in, 0, sizeof in);
    in.M = M;
    in.K = K;
    in.N = N;
    in.batch_a = in.batch_b = 1;
    in.fmt_a = in.fmt_b = in.fmt_c = f;
    in.grid_x = gx;
    in.grid_y = gy;
    in.chip = gx == 8 ? TTNN_CHIP_WORMHOLE : TTNN_CHIP_BLACKHOLE;
    in.l1_usable = gx == 8 ? L1_WH : L1_BH;
    set_tiles(in.tile_bytes);
    return in;
}

/* Run the selector and check the block parameters in one line. */
#define CHECK_MM(c, KIND, PM, PN, KW, OBH, OBW, SBH, SBW)                                       \
    do {                                                                                       \
        assert_true((c).ok);                                                                   \
        assert_int_equal((c).kind, (KIND));                                                    \
        assert_int_equal((c).per_core_M, (PM));                                                \
        assert_int_equal((c).per_core_N, (PN));                                                \
        assert_int_equal((c).in0_block_w, (KW));                                               \
        assert_int_equal((c).out_block_h, (OBH));                                              \
        assert_int_equal((c).out_block_w, (OBW));                                              \
        assert_int_equal((c).out_subblock_h, (SBH));                                           \
        assert_int_equal((c).out_subblock_w, (SBW));                                           \
    } while (0)

static ttnn_mm_config *run_mm(const ttnn_mm_input *in)
{
    /* The config carries a large explain table: keep it off the stack. */
    ttnn_mm_config *c = malloc(sizeof *c);
    assert_non_null(c);
    ttnn_mm_default(in, c);
    return c;
}

/* ---- compute config and helpers ---------------------------------------- */

static void mm_compute_defaults(void **state)
{
    (void)state;
    arch_fidelity f;
    bool fp32, l1acc;
    /* bf16 inputs, no program config: raised to HiFi2; bf16 out: no fp32 acc, packer L1 acc on. */
    ttnn_mm_compute_defaults(ARCH_BF16, ARCH_BF16, ARCH_BF16, TTNN_CHIP_WORMHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_HIFI2);
    assert_false(fp32);
    assert_true(l1acc);
    /* both block-float: LoFi. */
    ttnn_mm_compute_defaults(ARCH_BFP8_B, ARCH_BFP4_B, ARCH_BFP8_B, TTNN_CHIP_WORMHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_LOFI);
    /* only one block-float: HiFi2. */
    ttnn_mm_compute_defaults(ARCH_BFP8_B, ARCH_BF16, ARCH_BF16, TTNN_CHIP_WORMHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_HIFI2);
    /* both fp32: HiFi3 on Wormhole, HiFi4 on Blackhole; fp32 out: fp32 acc, no packer acc. */
    ttnn_mm_compute_defaults(ARCH_FP32, ARCH_FP32, ARCH_FP32, TTNN_CHIP_WORMHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_HIFI3);
    assert_true(fp32);
    assert_false(l1acc);
    ttnn_mm_compute_defaults(ARCH_FP32, ARCH_FP32, ARCH_FP32, TTNN_CHIP_BLACKHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_HIFI4);
    /* one fp32 input only: the fp32 rule does not apply. */
    ttnn_mm_compute_defaults(ARCH_FP32, ARCH_BF16, ARCH_BF16, TTNN_CHIP_BLACKHOLE, &f, &fp32, &l1acc);
    assert_int_equal(f, ARCH_HIFI2);
}

static void mm_helpers(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 4096, 4096, ARCH_BF16, 8, 8);
    /* est(16,16,2) bf16 = 16*2*2*2048 + 16*2*2*2048 + 256*2048 + 256*2048
       = 131072 + 131072 + 524288 + 524288 = 1,310,720 */
    assert_int_equal(ttnn_mm_est_cb_bytes(&in, 16, 16, 2), 1310720);
    /* fp32 output: interm tile 4096, out still estimated with A's 2048:
       131072 + 131072 + 524288 + 256*4096 = 1,835,008 */
    in.fmt_c = ARCH_FP32;
    assert_int_equal(ttnn_mm_est_cb_bytes(&in, 16, 16, 2), 1835008);
    in.fmt_c = ARCH_BF16;

    /* Integer ratio: 4096/480 = 8 (8.53 truncated) is not > 8; 4096/448 = 9 is. */
    assert_false(ttnn_mm_is_narrow(4096, 480, false));
    assert_true(ttnn_mm_is_narrow(4096, 448, false));
    /* A dim within one tile counts only when everything is in DRAM. */
    assert_true(ttnn_mm_is_narrow(32, 128, true));
    assert_false(ttnn_mm_is_narrow(32, 128, false));

    int h, w;
    /* 2x2: (4,2),(2,4),(8,1),(1,8),(7,1),(1,7),(3,2),(2,3),(6,1),(1,6),(5,1),(1,5) fail; (2,2) divides. */
    assert_true(ttnn_mm_subblock(2, 2, false, false, false, &h, &w));
    assert_int_equal(h, 2);
    assert_int_equal(w, 2);
    /* 16x1: (4,2) and (2,4) need w | 1; (8,1) divides. */
    ttnn_mm_subblock(16, 1, false, false, false, &h, &w);
    assert_int_equal(h, 8);
    assert_int_equal(w, 1);
    /* fp32 caps h*w at 4: 4x4 skips (4,2) .. (1,5); (2,2) divides. */
    ttnn_mm_subblock(4, 4, false, false, true, &h, &w);
    assert_int_equal(h, 2);
    assert_int_equal(w, 2);
    /* w must equal n with h = 1: 4x6 -> (1,6). */
    ttnn_mm_subblock(4, 6, false, true, false, &h, &w);
    assert_int_equal(h, 1);
    assert_int_equal(w, 6);
    /* h must equal m = 9 with w = 1: 9 is not in the list -> none, 1x1. */
    assert_false(ttnn_mm_subblock(9, 4, true, false, false, &h, &w));
    assert_int_equal(h, 1);
    assert_int_equal(w, 1);

    /* multi_dim_factor(16,16,16) bf16 on WH: 16x16x16 needs 2 MiB for in0+in1.
       Winners per product (closest to square, later equal ratio wins):
       256 (16,16), 128 (8,16), 64 (8,8), ...  At k = 16:
       (8,16): 8*16*2*2048 + 16*16*2*2048 + 128*2048*2 = 524288+1048576+524288 = 2,097,152 > L1;
       (8,8):  524288 + 524288 + 131072 + 131072 = 1,310,720 < 1,466,080 -> (8,8,16). */
    int f[3];
    ttnn_mm_multi_dim_factor(&in, 16, 16, 16, true, f);
    assert_int_equal(f[0], 8);
    assert_int_equal(f[1], 8);
    assert_int_equal(f[2], 16);
    /* Tie on a product: 128 has (16,8) then (8,16), both ratio 2; the later (8,16) wins.
       With bfp8 (t=1088) at k=16: (8,16): 8*16*2*1088 + 16*16*2*1088 + 128*1088 + 128*2048
       = 278528 + 557056 + 139264 + 262144 = 1,236,992 < L1 -> (8,16,16). */
    in.fmt_a = in.fmt_b = in.fmt_c = ARCH_BFP8_B;
    ttnn_mm_multi_dim_factor(&in, 16, 16, 16, true, f);
    assert_int_equal(f[0], 8);
    assert_int_equal(f[1], 16);
    assert_int_equal(f[2], 16);
}

/* ---- matmul default selection on the 8x8 grid --------------------------- */

static void mm_512_cubed(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(512, 512, 512, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Mt=Kt=Nt=16.  Not narrow (ratio 1, dims > 32).  Factor 16 fits (1,310,720 < L1),
       so 1x1 blocks: no row/column core range; all DRAM -> 2D.
       in0_block_w = Kt/gx = 16/8 = 2; per_core = ceil(16/8) = 2 x 2; fits whole;
       sub-block of 2x2 -> (2,2). */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 2, 2, 2, 2, 2, 2, 2);
    assert_int_equal(c->per_core_factor, 16);
    assert_int_equal(c->fidelity, ARCH_HIFI2);
    /* ceil(16/2) x ceil(16/2) = 8 x 8 cores; 16/2 = 8 K blocks */
    assert_int_equal(c->work_rows, 8);
    assert_int_equal(c->work_cols, 8);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 8);
    /* 8 > 2 K blocks: packer L1 acc used, partials bf16 = C's format -> share the out CB.
       in0 = 2*2*2 = 8 tiles = 16384 B; in1 the same; out = 4 tiles = 8192 B. */
    assert_true(c->packer_l1_acc_used);
    assert_int_equal(c->cb.in0_tiles, 8);
    assert_int_equal(c->cb.in1_tiles, 8);
    assert_int_equal(c->cb.out_tiles, 4);
    assert_true(c->cb.interm_shared);
    assert_int_equal(c->cb.total_bytes, 16384 + 16384 + 8192);
    /* every choice is explained */
    const ttnn_explain_item *k = ttnn_explain_find(&c->explain, "kind");
    assert_non_null(k);
    assert_int_equal(k->value, TTNN_MM_MCAST_2D);
    assert_non_null(strstr(k->rule, "DRAM-interleaved"));
    assert_non_null(ttnn_explain_find(&c->explain, "in0_block_w"));
    assert_non_null(ttnn_explain_find(&c->explain, "out_subblock_h"));
    free(c);
}

static void mm_1024_cubed(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(1024, 1024, 1024, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Mt=32; factor 16 -> 2x2 blocks, a 2D core range; all DRAM -> 2D.
       kw = 32/8 = 4; per_core = 32/8 = 4 x 4; est(4,4,4) = 65536*2 + 32768*2 = 196,608 fits;
       sub 4x4 -> (4,2). 8x8 cores, 32/4 = 8 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 4, 4, 4, 4, 4, 4, 2);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 8);
    /* in0 = 4*4*2 = 32 tiles */
    assert_int_equal(c->cb.in0_tiles, 32);
    assert_int_equal(c->cb.in0_bytes, 65536);
    assert_int_equal(c->cb.out_bytes, 32768);
    free(c);
}

static void mm_4096_cubed(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 4096, 4096, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Mt=128: 8x8 blocks of 16 -> 2D.  kw = 128/8 = 16, per_core 16x16.
       multi_dim_factor -> (8,8,16) (see mm_helpers); sub 8x8 -> (4,2). */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 16, 16, 16, 8, 8, 4, 2);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 8);
    /* in0 = 8*16*2 = 256 tiles = 524,288 B; in1 the same; out 64 tiles = 131,072 B. */
    assert_int_equal(c->cb.in0_tiles, 256);
    assert_int_equal(c->cb.in1_tiles, 256);
    assert_int_equal(c->cb.out_tiles, 64);
    assert_int_equal(c->cb.total_bytes, 524288 * 2 + 131072);
    free(c);
}

static void mm_8192_cubed(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(8192, 8192, 8192, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Mt=256: 16x16 blocks of 16 exceed the 8x8 grid (no core range), but all DRAM -> 2D.
       kw = 256/8 = 32, per_core 32x32.  Factors of 32: 32,1,16,8,4,2.  At k = 32 the
       product winners are 1024 (32,32), 512 (16,32), 256 (16,16), 128 (8,16), 64 (8,8),
       32 (4,8), 16 (4,4).  in0 alone is pM*32*2*2048 = pM*131072, in1 pN*131072:
       (8,8): 2,097,152 no; (4,8): 524288+1048576+65536+65536 = 1,703,936 no;
       (4,4): 524288+524288+32768+32768 = 1,114,112 fits -> out block 4x4 at K depth 32.
       sub 4x4 -> (4,2).  ceil(256/32) = 8 rows and cols; 256/32 = 8 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 32, 32, 32, 4, 4, 4, 2);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 8);
    assert_int_equal(c->cb.total_bytes, 524288 + 524288 + 32768);
    free(c);
}

static void mm_512x1024x1024_row(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(512, 1024, 1024, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Mt=16, Kt=32, Nt=32; not narrow (1024/512 = 2).  Factor 16 -> 1 x 2 blocks:
       core range y = 1 -> 1D mcast_in0.  per_core_M = Mt = 16,
       per_core_N = ceil(ceil(1024/64)/32) = ceil(16/32) = 1; kw = 2 (Kt even);
       est(16,1,2) = 131072 + 8192 + 32768 + 32768 fits; sub 16x1 -> (8,1).
       32 N blocks -> 32 cores (4 rows of 8); 32/2 = 16 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_1D_IN0, 16, 1, 2, 16, 1, 8, 1);
    assert_int_equal(c->num_cores, 32);
    assert_int_equal(c->work_rows, 4);
    assert_int_equal(c->work_cols, 8);
    assert_int_equal(c->num_k_blocks, 16);
    /* in0 16*2*2 = 64 tiles, in1 1*2*2 = 4, out 16; 16 > 1 blocks: packer acc used (1D rule). */
    assert_int_equal(c->cb.in0_tiles, 64);
    assert_int_equal(c->cb.in1_tiles, 4);
    assert_int_equal(c->cb.out_tiles, 16);
    assert_true(c->packer_l1_acc_used);
    free(c);
}

static void mm_narrow_wide(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(32, 4096, 4096, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* M = 32 <= one tile with everything in DRAM: narrow; N > M: wide -> 1D mcast_in0.
       per_core_M = 1; per_core_N = ceil(ceil(4096/64)/32) = 2; kw = 2;
       sub 1x2: everything before (1,2) needs h | 1 and w | 2 with h > 1 or w > 2 -> (1,2).
       Nt/2 = 64 cores; 128/2 = 64 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_1D_IN0, 1, 2, 2, 1, 2, 1, 2);
    assert_true(c->narrow);
    assert_true(c->wide);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 64);
    free(c);
}

static void mm_narrow_tall(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 1024, 32, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* N = 32: narrow, not wide -> tall -> 1D mcast_in1.
       per_core_M = ceil(ceil(4096/64)/32) = 2; per_core_N = Nt = 1; kw = 2;
       sub 2x1: (2,1) is the first dividing. 128/2 = 64 cores; 32/2 = 16 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_1D_IN1, 2, 1, 2, 2, 1, 2, 1);
    assert_true(c->tall);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 16);
    free(c);
}

static void mm_k_one_tile(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 32, 4096, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Kt = 1 (odd, several blocks) -> kw 1 for the factor search; 8x8 blocks -> 2D.
       Kt % 8 != 0 -> in0_block_w 1; per_core 16x16; est(16,16,1) = 65536*2 + 524288*2
       = 1,179,648 fits whole; sub (4,2).  One K block: not double-buffered and the 2D
       factory does not use packer acc (needs > 2). */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 16, 16, 1, 16, 16, 4, 2);
    assert_int_equal(c->num_k_blocks, 1);
    assert_false(c->cb.double_buffered);
    assert_false(c->packer_l1_acc_used);
    /* in0 16 tiles, in1 16, out 256; partials in C's bf16 share the out CB. */
    assert_int_equal(c->cb.in0_tiles, 16);
    assert_int_equal(c->cb.in1_tiles, 16);
    assert_int_equal(c->cb.total_bytes, (16 + 16 + 256) * 2048);
    free(c);
}

static void mm_unaligned(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(1000, 976, 1000, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* Padded: Mt = ceil(1000/32) = 32, Kt = ceil(976/32) = 31, Nt = 32.
       2x2 blocks of 16 -> 2D; 31 % 8 != 0 -> in0_block_w 1; per_core 4x4 fits; (4,2).
       31 K blocks. */
    assert_int_equal(c->Mt, 32);
    assert_int_equal(c->Kt, 31);
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 4, 4, 1, 4, 4, 4, 2);
    assert_int_equal(c->num_k_blocks, 31);
    free(c);

    in = mm(100, 512, 512, ARCH_BF16, 8, 8);
    c = run_mm(&in);
    /* Mt = 4 (height 128: 512/128 = 4 <= 8, not narrow).  1x1 blocks of 16 -> 2D.
       kw = 16/8 = 2; per_core_M = ceil(4/8) = 1, per_core_N = 2; sub (1,2).
       Work: ceil(4/1) = 4 rows x ceil(16/2) = 8 cols = 32 cores. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 1, 2, 2, 1, 2, 1, 2);
    assert_int_equal(c->work_rows, 4);
    assert_int_equal(c->work_cols, 8);
    assert_int_equal(c->num_cores, 32);
    free(c);
}

static void mm_block_float(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 4096, 4096, ARCH_BFP8_B, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    /* bfp8: factor 16 fits (est(16,16,2) = 69632*2 + 278528 + 524288 = 942,080).
       2D, kw 16, per_core 16x16; multi_dim_factor -> (8,16,16) (see mm_helpers); sub (4,2).
       LoFi: both inputs block-float. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 16, 16, 16, 8, 16, 4, 2);
    assert_int_equal(c->fidelity, ARCH_LOFI);
    /* Packer acc with 8 K blocks packs bf16 partials: not C's bfp8 -> own CB.
       in0 8*16*2 = 256 tiles * 1088 = 278,528; in1 16*16*2 = 512 * 1088 = 557,056;
       out 128 * 1088 = 139,264; interm 128 * 2048 = 262,144. */
    assert_false(c->cb.interm_shared);
    assert_int_equal(c->cb.interm_fmt, ARCH_BF16);
    assert_int_equal(c->cb.in0_bytes, 278528);
    assert_int_equal(c->cb.in1_bytes, 557056);
    assert_int_equal(c->cb.out_bytes, 139264);
    assert_int_equal(c->cb.interm_bytes, 262144);
    free(c);

    in = mm(4096, 4096, 4096, ARCH_BFP4_B, 8, 8);
    c = run_mm(&in);
    /* bfp4: est(16,16,16) = 16*16*2*576*2 + 256*576 + 256*2048
       = 294912*2 + 147456 + 524288 = 1,261,568 < L1 -> the whole 16x16 block at K depth 16. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 16, 16, 16, 16, 16, 4, 2);
    assert_int_equal(c->fidelity, ARCH_LOFI);
    assert_int_equal(c->cb.total_bytes, 1261568);
    free(c);
}

static void mm_fp32_output(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(1024, 1024, 1024, ARCH_BF16, 8, 8);
    in.fmt_c = ARCH_FP32;
    ttnn_mm_config *c = run_mm(&in);
    /* fp32 out: fp32 acc, no packer acc, HiFi2 (inputs bf16).
       Factor: est(16,16,2) = 1,835,008 > L1; est(8,8,2) = 65536*2 + 64*2048 + 64*4096
       = 524,288 fits -> 8.  4x4 blocks -> 2D; kw 4, per_core 4x4 fits;
       sub with h*w <= 4: (2,2). */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 4, 4, 4, 4, 4, 2, 2);
    assert_int_equal(c->per_core_factor, 8);
    assert_true(c->fp32_acc);
    assert_false(c->packer_l1_acc);
    assert_int_equal(c->fidelity, ARCH_HIFI2);
    /* partials fp32 = C's format: shared.  in0 32 tiles bf16, out 16 tiles fp32. */
    assert_true(c->cb.interm_shared);
    assert_int_equal(c->cb.total_bytes, 65536 + 65536 + 16 * 4096);
    free(c);
}

/* ---- matmul default selection on the Blackhole 13x10 grid --------------- */

static void mm_bh_13x10(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(512, 512, 512, ARCH_BF16, 13, 10);
    ttnn_mm_config *c = run_mm(&in);
    /* 1x1 blocks -> 2D.  16 % 13 != 0 -> kw 1; per_core ceil(16/10) = 2 x ceil(16/13) = 2;
       sub (2,2).  Work 8 x 8 = 64 of 130 cores; 16 K blocks. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 2, 2, 1, 2, 2, 2, 2);
    assert_int_equal(c->grid_x, 13);
    assert_int_equal(c->grid_y, 10);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->num_k_blocks, 16);
    free(c);

    in = mm(4096, 4096, 4096, ARCH_BF16, 13, 10);
    c = run_mm(&in);
    /* 8x8 blocks of 16 fit the grid -> 2D.  128 % 13 = 11 -> kw 1;
       per_core_M = ceil(128/10) = 13, per_core_N = ceil(128/13) = 10; est(13,10,1)
       = 53248 + 40960 + 266240 + 266240 = 626,688 fits.  Sub 13x10: nothing with
       h in {4,2,8,7,3,6,5} divides 13, (1,8),(1,7),(1,6) do not divide 10 -> (1,5).
       Work ceil(128/13) = 10 rows x ceil(128/10) = 13 cols = 130. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 13, 10, 1, 13, 10, 1, 5);
    assert_int_equal(c->num_cores, 130);
    free(c);

    in = mm(1024, 1024, 1024, ARCH_FP32, 13, 10);
    c = run_mm(&in);
    /* All fp32 on Blackhole: HiFi4.  est(16,16,2) = 262144*2 + 1048576*2 = 2,621,440 > L1;
       est(8,8,2) = 131072*2 + 262144*2 = 786,432 -> factor 8; 4x4 blocks -> 2D.
       32 % 13 -> kw 1; per_core ceil(32/10) = 4 x ceil(32/13) = 3; sub with h*w <= 4:
       (2,2) fails (3 odd), (4,1) divides.  Work 8 x ceil(32/3) = 11 -> 88 cores. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 4, 3, 1, 4, 3, 4, 1);
    assert_int_equal(c->fidelity, ARCH_HIFI4);
    assert_int_equal(c->num_cores, 88);
    /* in0 4*1*2 = 8 tiles, in1 3*1*2 = 6, out 12 -> (8+6+12) * 4096. */
    assert_int_equal(c->cb.total_bytes, 26 * 4096);
    free(c);

    /* The same on Wormhole picks HiFi3. */
    in = mm(1024, 1024, 1024, ARCH_FP32, 8, 8);
    c = run_mm(&in);
    assert_int_equal(c->fidelity, ARCH_HIFI3);
    free(c);
}

/* ---- batches ------------------------------------------------------------ */

static void mm_batches(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(256, 512, 512, ARCH_BF16, 8, 8);
    in.batch_a = 1;
    in.batch_b = 4;
    ttnn_mm_config *c = run_mm(&in);
    /* Unbatched A, batched B -> 1D mcast_in1, batch not fused.
       per_core_M = ceil(ceil(256/64)/32) = 1; per_core_N = Nt = 16; kw 2;
       est(1,16,2) fits; sub 1x16: (1,8).  Mt 8 -> 8 cores. */
    CHECK_MM(*c, TTNN_MM_MCAST_1D_IN1, 1, 16, 2, 1, 16, 1, 8);
    assert_false(c->fuse_batch);
    assert_int_equal(c->batch, 4);
    assert_int_equal(c->num_cores, 8);
    free(c);

    in = mm(1024, 1024, 1024, ARCH_BF16, 8, 8);
    in.batch_a = 3;
    in.batch_b = 1;
    c = run_mm(&in);
    /* Batched A: the usual path on the per-batch M -> same blocks as 1024^3. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 4, 4, 4, 4, 4, 4, 2);
    assert_int_equal(c->batch, 3);
    assert_false(c->fuse_batch);
    free(c);

    in.batch_b = 2; /* 3 vs 2: not broadcastable */
    c = run_mm(&in);
    assert_false(c->ok);
    free(c);
}

/* ---- L1-interleaved tensors: the non-DRAM 2D branch and the fallback ---- */

static void mm_l1_paths(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(4096, 1024, 4096, ARCH_BF16, 8, 8);
    in.l1_interleaved = true;
    ttnn_mm_config *c = run_mm(&in);
    /* Factor 16 -> 8x8 blocks = 64 <= 64 cores, Kt 32 even -> core range 8x8 -> 2D
       with the square factor: per_core 16x16, kw 2, out block 16x16, sub 4x2 made
       1x2 because 2 != per_core_N. */
    CHECK_MM(*c, TTNN_MM_MCAST_2D, 16, 16, 2, 16, 16, 1, 2);
    free(c);

    in = mm(8192, 1024, 1024, ARCH_BF16, 8, 8);
    in.l1_interleaved = true;
    c = run_mm(&in);
    /* 16 x 2 blocks: 32 <= 64 but 16 rows exceed the grid (no core range); not narrow
       (8192/1024 = 8); not DRAM -> MULTICORE.  256*32 = 8192 output tiles over 64
       cores = 128 each; two-tile CBs: (2048 + 2048 + 2048) * 2. */
    assert_true(c->ok);
    assert_int_equal(c->kind, TTNN_MM_MULTICORE);
    assert_int_equal(c->num_cores, 64);
    assert_int_equal(c->tiles_per_core, 128);
    assert_int_equal(c->cb.total_bytes, 6 * 2048);
    free(c);
}

/* ---- hand-tuned configs -------------------------------------------------- */

static void mm_tuned(void **state)
{
    (void)state;
    ttnn_mm_tuned *t = malloc(sizeof *t);
    assert_non_null(t);

    /* N150 bf16 4096^3: base (512,512,512) = 4096/8; per_core 16x16, in0_block_w 16,
       2x2 output blocks of 8x8, DRAM; sub: (4,2) divides 8x8; K blocks 128/16 = 8. */
    assert_true(ttnn_mm_tuned_lookup(4096, 4096, 4096, ARCH_BF16, ARCH_BF16, ARCH_BF16, 8, 8, t));
    assert_int_equal(t->per_core_M, 16);
    assert_int_equal(t->per_core_N, 16);
    assert_int_equal(t->in0_block_w, 16);
    assert_int_equal(t->out_block_h, 8);
    assert_int_equal(t->out_block_w, 8);
    assert_int_equal(t->out_subblock_h, 4);
    assert_int_equal(t->out_subblock_w, 2);
    assert_int_equal(t->num_k_blocks, 8);
    assert_false(t->in0_sharded);
    assert_true(t->fidelities & (1u << ARCH_HIFI4));

    /* P150 13x10 bf16 640x832x832: base (640/10, 832/13, 832/13) = (64,64,64);
       per_core 2x2, in0_block_w 2, sharded output -> h = 1: (1,2); K blocks 26/2 = 13. */
    assert_true(ttnn_mm_tuned_lookup(640, 832, 832, ARCH_BF16, ARCH_BF16, ARCH_BF16, 13, 10, t));
    assert_int_equal(t->per_core_M, 2);
    assert_int_equal(t->per_core_N, 2);
    assert_int_equal(t->in0_block_w, 2);
    assert_int_equal(t->out_subblock_h, 1);
    assert_int_equal(t->out_subblock_w, 2);
    assert_int_equal(t->num_k_blocks, 13);
    assert_true(t->in0_sharded && t->out_sharded);

    /* P150 11x10 bfp8 2560x4224x4224: base (256,384,384); bfp8 row: in0_block_w 12,
       per_core 8x12, sharded: (1,8) fails 12, (1,7) fails, (1,6) divides; K 132/12 = 11. */
    assert_true(ttnn_mm_tuned_lookup(2560, 4224, 4224, ARCH_BFP8_B, ARCH_BFP8_B, ARCH_BFP8_B, 11, 10, t));
    assert_int_equal(t->in0_block_w, 12);
    assert_int_equal(t->per_core_M, 8);
    assert_int_equal(t->per_core_N, 12);
    assert_int_equal(t->out_subblock_h, 1);
    assert_int_equal(t->out_subblock_w, 6);
    assert_int_equal(t->num_k_blocks, 11);

    /* N150 bfp4 8192^3: base (1024,...): per_core 32x32, 2x2 blocks of 16x16, kw 16,
       DRAM: (4,2); K blocks 256/16 = 16; LoFi only. */
    assert_true(ttnn_mm_tuned_lookup(8192, 8192, 8192, ARCH_BFP4_B, ARCH_BFP4_B, ARCH_BFP4_B, 8, 8, t));
    assert_int_equal(t->out_block_h, 16);
    assert_int_equal(t->out_block_w, 16);
    assert_int_equal(t->out_subblock_h, 4);
    assert_int_equal(t->num_k_blocks, 16);
    assert_int_equal(t->fidelities, 1u << ARCH_LOFI);

    /* N150 bf16 3328x2560x2560: base (416,320,320): 13x10, kw 10, DRAM;
       sub 13x10 -> (1,5) (13 is prime, 8/7/6 do not divide 10). */
    assert_true(ttnn_mm_tuned_lookup(3328, 2560, 2560, ARCH_BF16, ARCH_BF16, ARCH_BF16, 8, 8, t));
    assert_int_equal(t->per_core_M, 13);
    assert_int_equal(t->per_core_N, 10);
    assert_int_equal(t->out_subblock_h, 1);
    assert_int_equal(t->out_subblock_w, 5);

    /* Not covered: bfp8 has no (384,512,512) row; a shape off the table; mixed
       formats; fp32; a grid the benchmark never ran. */
    assert_false(ttnn_mm_tuned_lookup(3072, 4096, 4096, ARCH_BFP8_B, ARCH_BFP8_B, ARCH_BFP8_B, 8, 8, t));
    assert_false(ttnn_mm_tuned_lookup(1000, 1000, 1000, ARCH_BF16, ARCH_BF16, ARCH_BF16, 8, 8, t));
    assert_false(ttnn_mm_tuned_lookup(4096, 4096, 4096, ARCH_BF16, ARCH_BFP8_B, ARCH_BF16, 8, 8, t));
    assert_false(ttnn_mm_tuned_lookup(4096, 4096, 4096, ARCH_FP32, ARCH_FP32, ARCH_FP32, 8, 8, t));
    assert_false(ttnn_mm_tuned_lookup(3584, 3584, 3584, ARCH_BF16, ARCH_BF16, ARCH_BF16, 7, 7, t));
    assert_true(strlen(t->why) > 0);
    free(t);
}

/* ---- SDPA prefill --------------------------------------------------------- */

static ttnn_sdpa_input sdpa(int B, int NQH, int64_t S, int DH, bool causal)
{
    ttnn_sdpa_input in;
    memset(&in, 0, sizeof in);
    in.B = B;
    in.NQH = in.NKH = NQH;
    in.Sq = in.Sk = S;
    in.DH = DH;
    in.grid_x = in.grid_y = 8;
    in.causal = causal;
    in.fmt_q = in.fmt_k = in.fmt_v = in.fmt_out = ARCH_BF16;
    set_tiles(in.tile_bytes);
    return in;
}

static ttnn_sdpa_config *run_sdpa(const ttnn_sdpa_input *in)
{
    ttnn_sdpa_config *c = malloc(sizeof *c);
    assert_non_null(c);
    ttnn_sdpa_prefill_default(in, c);
    return c;
}

static void sdpa_default_chunks(void **state)
{
    (void)state;
    ttnn_sdpa_input in = sdpa(1, 8, 1024, 64, true);
    ttnn_sdpa_config *c = run_sdpa(&in);
    assert_true(c->ok);
    /* Chunks default to 32 -> 1 tile; 1024/32 = 32 Q chunks; DHt 2. */
    assert_int_equal(c->q_chunk, 32);
    assert_int_equal(c->Sq_chunk_t, 1);
    assert_int_equal(c->q_num_chunks, 32);
    /* bpf = min(1,64) = 1; hpf = min(64, 8) = 8; qpf = min(64/8, 32) = 8;
       q_per_core = 32/8 = 4. */
    assert_int_equal(c->batch_parallel, 1);
    assert_int_equal(c->head_parallel, 8);
    assert_int_equal(c->q_parallel, 8);
    assert_int_equal(c->q_per_core, 4);
    assert_int_equal(c->active_cores, 64);
    /* causal, 4 * 8 = 32 chunks, 4 even -> balanced. */
    assert_true(c->balanced);
    /* QK: w = min(1, 8) = 1 = Sk_chunk_t -> h = min(1, 8) = 1; no 2x4 (w != 8).
       PV: w = min(DHt 2, 8) = 2 = DHt -> h = min(1, 4) = 1. */
    assert_int_equal(c->qk_in0_block_w, 2);
    assert_int_equal(c->qk_subblock_h, 1);
    assert_int_equal(c->qk_subblock_w, 1);
    assert_int_equal(c->pv_in0_block_w, 1);
    assert_int_equal(c->pv_subblock_h, 1);
    assert_int_equal(c->pv_subblock_w, 2);
    assert_int_equal(c->fidelity, ARCH_HIFI2);
    assert_true(c->exp_approx);
    /* CBs: Q 1*2*2 = 4 (two chunks per core), K 4, V 4, mask 1*1*2 = 2 bfp4 tiles,
       QK 1, out_im 2, out_acc 2, out 2, stats 5, scalars 2.
       Bytes: 3*8192 + 2*576 + 2048 + 3*4096 + 5*2048 + 2*2048 = 54,400. */
    assert_int_equal(c->cb[TTNN_SDPA_CB_Q].tiles, 4);
    assert_int_equal(c->cb[TTNN_SDPA_CB_K].tiles, 4);
    assert_int_equal(c->cb[TTNN_SDPA_CB_MASK].tiles, 2);
    assert_int_equal(c->cb[TTNN_SDPA_CB_MASK].bytes, 1152);
    assert_int_equal(c->cb[TTNN_SDPA_CB_QK].tiles, 1);
    assert_int_equal(c->cb_total_bytes, 54400);

    /* Pairing: core i has q index i % 8, starting at 4 * (i % 8); it takes its first
       two chunks from the front and the mirror two from the back.
       core 0: 0, 1, 31, 30; core 7 (start 28): 28, 29, 3, 2. */
    int ch[8];
    ttnn_sdpa_core_work w;
    assert_int_equal(ttnn_sdpa_prefill_core_work(c, 0, &w, ch, 8), 4);
    assert_int_equal(ch[0], 0);
    assert_int_equal(ch[1], 1);
    assert_int_equal(ch[2], 31);
    assert_int_equal(ch[3], 30);
    assert_int_equal(ttnn_sdpa_prefill_core_work(c, 7, &w, ch, 8), 4);
    assert_int_equal(ch[0], 28);
    assert_int_equal(ch[1], 29);
    assert_int_equal(ch[2], 3);
    assert_int_equal(ch[3], 2);
    /* core 9: head 1, q index 1 (start 4): 4, 5, 27, 26. */
    ttnn_sdpa_prefill_core_work(c, 9, &w, ch, 8);
    assert_int_equal(w.head_start, 1);
    assert_int_equal(w.head_end, 2);
    assert_int_equal(ch[2], 27);
    /* Every chunk of head 0 is done exactly once, and each core's chunk indices add up
       to the same causal work: front pair + mirrored pair = 2 * 31 = 62. */
    int seen[32] = {0};
    for (int i = 0; i < 8; i++) {
        ttnn_sdpa_prefill_core_work(c, i, &w, ch, 8);
        assert_int_equal(ch[0] + ch[1] + ch[2] + ch[3], 62);
        for (int j = 0; j < 4; j++)
            seen[ch[j]]++;
    }
    for (int j = 0; j < 32; j++)
        assert_int_equal(seen[j], 1);
    free(c);
}

static void sdpa_big_chunks(void **state)
{
    (void)state;
    ttnn_sdpa_input in = sdpa(1, 32, 4096, 128, true);
    in.NKH = 8;
    in.q_chunk = in.k_chunk = 256;
    ttnn_sdpa_config *c = run_sdpa(&in);
    assert_true(c->ok);
    /* 256-chunks: 8 tiles; 4096/256 = 16 chunks; DHt 4.
       bpf 1, hpf = min(64, 32) = 32, qpf = min(64/32, 16) = 2, q_per_core 8 -> balanced. */
    assert_int_equal(c->Sq_chunk_t, 8);
    assert_int_equal(c->q_num_chunks, 16);
    assert_int_equal(c->head_parallel, 32);
    assert_int_equal(c->q_parallel, 2);
    assert_int_equal(c->q_per_core, 8);
    assert_true(c->balanced);
    /* QK: w = min(8,8) = 8 = Sk_chunk_t -> h = min(8, 1) = 1; w = dst, h = 1, both even
       -> 2 x 4.  PV: w = min(4, 8) = 4 = DHt -> h = min(8, 2) = 2. */
    assert_int_equal(c->qk_subblock_h, 2);
    assert_int_equal(c->qk_subblock_w, 4);
    assert_int_equal(c->pv_subblock_h, 2);
    assert_int_equal(c->pv_subblock_w, 4);
    /* Q 8*4*2 = 64, K 64, V 64, mask 8*8*2 = 128 bfp4, QK 64, out_im/acc/out 32, stats 40.
       Bytes: 4*131072 + 128*576 + 3*65536 + 40*2048 + 4096 = 880,640. */
    assert_int_equal(c->cb[TTNN_SDPA_CB_MASK].tiles, 128);
    assert_int_equal(c->cb[TTNN_SDPA_CB_QK].tiles, 64);
    assert_int_equal(c->cb_total_bytes, 880640);
    /* core 1: q index 1, start 8: front 8..11, back 7..4. */
    int ch[8];
    ttnn_sdpa_core_work w;
    ttnn_sdpa_prefill_core_work(c, 1, &w, ch, 8);
    assert_int_equal(ch[0], 8);
    assert_int_equal(ch[3], 11);
    assert_int_equal(ch[4], 7);
    assert_int_equal(ch[7], 4);
    free(c);
}

static void sdpa_batch_first(void **state)
{
    (void)state;
    ttnn_sdpa_input in = sdpa(8, 16, 512, 64, false);
    ttnn_sdpa_config *c = run_sdpa(&in);
    /* bpf = min(8, 64) = 8; hpf = min(64/8, 16) = 8; qpf = min(64/64, 16) = 1.
       Per core: 1 batch, 16/8 = 2 heads, 16 chunks; not causal -> in order, no mask
       (512 is a whole number of chunks). */
    assert_int_equal(c->batch_parallel, 8);
    assert_int_equal(c->head_parallel, 8);
    assert_int_equal(c->q_parallel, 1);
    assert_int_equal(c->heads_per_core, 2);
    assert_int_equal(c->q_per_core, 16);
    assert_false(c->balanced);
    assert_false(c->cb[TTNN_SDPA_CB_MASK].present);
    /* core 13: batch 13 / 8 = 1; heads (13 % 8) * 2 = 10..11. */
    int ch[16];
    ttnn_sdpa_core_work w;
    assert_int_equal(ttnn_sdpa_prefill_core_work(c, 13, &w, ch, 16), 16);
    assert_int_equal(w.batch_start, 1);
    assert_int_equal(w.head_start, 10);
    assert_int_equal(w.head_end, 12);
    assert_int_equal(ch[15], 15);
    free(c);
}

static void sdpa_uneven(void **state)
{
    (void)state;
    ttnn_sdpa_input in = sdpa(1, 12, 2048, 64, true);
    ttnn_sdpa_config *c = run_sdpa(&in);
    /* 64 chunks; hpf = min(64, 12) = 12; qpf = min(64/12 = 5, 64) = 5;
       q_per_core = ceil(64/5) = 13; 13*5 = 65 != 64 -> not balanced.
       Cores 0..59 cover 12 heads x 5 q ranges; cores 60..63 map to batch 1 (empty).
       The last q range of a head is [52, 64): 12 chunks. */
    assert_int_equal(c->head_parallel, 12);
    assert_int_equal(c->q_parallel, 5);
    assert_int_equal(c->q_per_core, 13);
    assert_false(c->balanced);
    assert_int_equal(c->active_cores, 60);
    ttnn_sdpa_core_work w;
    assert_int_equal(ttnn_sdpa_prefill_core_work(c, 4, &w, NULL, 0), 12);
    assert_int_equal(w.q_start, 52);
    assert_int_equal(ttnn_sdpa_prefill_core_work(c, 60, &w, NULL, 0), 0);
    free(c);

    in = sdpa(1, 1, 1000, 128, false);
    c = run_sdpa(&in);
    /* 1000 pads to 1024 = 32 chunks; non-causal with padding -> generated mask.
       qpf = min(64, 32) = 32, one chunk per core -> Q single-buffered: 1*4 tiles. */
    assert_int_equal(c->padded_Sq, 1024);
    assert_true(c->padded_mask);
    assert_true(c->cb[TTNN_SDPA_CB_MASK].present);
    assert_int_equal(c->q_per_core, 1);
    assert_int_equal(c->cb[TTNN_SDPA_CB_Q].tiles, 4);
    assert_int_equal(c->active_cores, 32);
    free(c);

    in = sdpa(1, 1, 1024, 80, false);
    c = run_sdpa(&in);
    assert_false(c->ok); /* head dim not a multiple of 32 */
    free(c);
}

/* ---- SDPA decode ------------------------------------------------------------ */

static ttnn_decode_input dec(int B, int NQH, int NKV, int64_t S)
{
    ttnn_decode_input in;
    memset(&in, 0, sizeof in);
    in.B = B;
    in.NQH = NQH;
    in.NKV = NKV;
    in.S = S;
    in.DH = 128;
    in.grid_x = in.grid_y = 8;
    return in;
}

static void decode_chunk_size(void **state)
{
    (void)state;
    /* Largest power-of-two divisor, at least 2, capped at 512. */
    assert_int_equal(ttnn_decode_chunk_size(4096), 512); /* 2^12, capped */
    assert_int_equal(ttnn_decode_chunk_size(768), 256);  /* 3 * 2^8 */
    assert_int_equal(ttnn_decode_chunk_size(96), 32);    /* 3 * 2^5 */
    assert_int_equal(ttnn_decode_chunk_size(1000), 8);   /* 125 * 2^3 */
    assert_int_equal(ttnn_decode_chunk_size(33), 2);     /* odd: the loop starts at 2 */

    ttnn_decode_config *c = malloc(sizeof *c);
    assert_non_null(c);
    ttnn_decode_input in = dec(1, 32, 8, 1000);
    /* 8 is not a multiple of 32: TTNN rejects the shape. */
    assert_false(ttnn_sdpa_decode_default(&in, c));
    assert_non_null(strstr(c->why, "multiple of 32"));
    in.S = 1536; /* 3 * 2^9 -> 512 */
    assert_true(ttnn_sdpa_decode_default(&in, c));
    assert_int_equal(c->k_chunk, 512);
    assert_int_equal(c->k_num_chunks, 3);
    in.k_chunk = 96; /* given chunks must be powers of two */
    assert_false(ttnn_sdpa_decode_default(&in, c));
    free(c);
}

static void decode_cores(void **state)
{
    (void)state;
    ttnn_decode_config *c = malloc(sizeof *c);
    assert_non_null(c);

    /* B 1, 32 Q heads on 8 KV heads, S 4096, 8x8, no program config:
       cap = 64 * 1 * 8 = 512; cores_per_batch = min(64, 512) / 1 = 64;
       cores_per_head = 64/8 = 8; heads_per_core = max(1, ceil(8/64)) = 1;
       active = 8*8*1/1 = 64; tree rounds ceil(log2 8) = 3.
       Q heads pad to 32 rows = 1 tile row; 4 Q rows per KV head. */
    ttnn_decode_input in = dec(1, 32, 8, 4096);
    assert_true(ttnn_sdpa_decode_default(&in, c));
    assert_int_equal(c->k_chunk, 512);
    assert_int_equal(c->cores_per_batch, 64);
    assert_int_equal(c->cores_per_head, 8);
    assert_int_equal(c->heads_per_core, 1);
    assert_int_equal(c->active_cores, 64);
    assert_int_equal(c->num_reducers, 8);
    assert_int_equal(c->tree_rounds, 3);
    assert_int_equal(c->reduction_steps, 3);
    assert_int_equal(c->PNHt, 1);
    assert_int_equal(c->q_heads_per_kv, 4);
    assert_int_equal(c->fidelity, ARCH_HIFI2);
    /* K CB: 16 tiles per chunk x DHt 4 x 2 = 128 tiles. */
    assert_int_equal(c->k_tiles, 128);
    /* Single reducer instead: it folds in 7 partials. */
    in.reduce = TTNN_REDUCE_SINGLE;
    ttnn_sdpa_decode_default(&in, c);
    assert_int_equal(c->reduction_steps, 7);

    /* 8 chunks over 8 ranks, dealt from the back: rank r gets chunk 7 - r. */
    int64_t s, e;
    ttnn_decode_kv_range(4096, 512, 0, 8, &s, &e);
    assert_int_equal(s, 7);
    assert_int_equal(e, 8);
    ttnn_decode_kv_range(4096, 512, 7, 8, &s, &e);
    assert_int_equal(s, 0);
    assert_int_equal(e, 1);
    /* 10 chunks over 4 ranks: 2 each plus 2 extra for the reversed ranks 0, 1
       (ranks 3, 2): rank 3 -> [0,3), rank 2 -> [3,6), rank 1 -> [6,8), rank 0 -> [8,10). */
    ttnn_decode_kv_range(10 * 32, 32, 3, 4, &s, &e);
    assert_int_equal(s, 0);
    assert_int_equal(e, 3);
    ttnn_decode_kv_range(10 * 32, 32, 2, 4, &s, &e);
    assert_int_equal(s, 3);
    assert_int_equal(e, 6);
    ttnn_decode_kv_range(10 * 32, 32, 0, 4, &s, &e);
    assert_int_equal(s, 8);
    assert_int_equal(e, 10);

    /* MQA, B 1, S 2048: with no program config all 64 cores serve the head (6 rounds);
       with max_cores_per_head 16: cap = 16 -> 16 cores, 4 rounds.  4 chunks of 512 on
       16 ranks: ranks 0..3 get chunks 3..0, ranks 4.. none. */
    in = dec(1, 8, 1, 2048);
    ttnn_sdpa_decode_default(&in, c);
    assert_int_equal(c->cores_per_head, 64);
    assert_int_equal(c->tree_rounds, 6);
    in.max_cores_per_head = 16;
    ttnn_sdpa_decode_default(&in, c);
    assert_int_equal(c->cores_per_head, 16);
    assert_int_equal(c->active_cores, 16);
    assert_int_equal(c->tree_rounds, 4);
    ttnn_decode_kv_range(2048, 512, 0, 16, &s, &e);
    assert_int_equal(s, 3);
    ttnn_decode_kv_range(2048, 512, 5, 16, &s, &e);
    assert_int_equal(e - s, 0);

    /* B 4, 8 KV heads: cores_per_batch 16, cores_per_head 2, 64 active, 1 round.
       core 5: batch 0, in-batch 5 -> head 2, rank 1, not a reducer. */
    in = dec(4, 32, 8, 4096);
    ttnn_sdpa_decode_default(&in, c);
    assert_int_equal(c->cores_per_batch, 16);
    assert_int_equal(c->cores_per_head, 2);
    assert_int_equal(c->active_cores, 64);
    assert_int_equal(c->tree_rounds, 1);
    ttnn_decode_role r;
    ttnn_decode_core_role(c, 5, &r);
    assert_true(r.active);
    assert_int_equal(r.batch, 0);
    assert_int_equal(r.first_kv_head, 2);
    assert_int_equal(r.rank, 1);
    assert_false(r.reducer);
    ttnn_decode_core_role(c, 16, &r);
    assert_int_equal(r.batch, 1);
    assert_true(r.reducer && r.output);

    /* B 2, 64 KV heads: cores_per_batch 32 < 64 heads -> 1 core per head,
       heads_per_core ceil(64/32) = 2; active 1*64*2/2 = 64; no reduction. */
    in = dec(2, 64, 64, 4096);
    ttnn_sdpa_decode_default(&in, c);
    assert_int_equal(c->cores_per_head, 1);
    assert_int_equal(c->heads_per_core, 2);
    assert_int_equal(c->active_cores, 64);
    assert_int_equal(c->tree_rounds, 0);

    /* More batches than cores: rejected. */
    in = dec(80, 8, 1, 4096);
    assert_false(ttnn_sdpa_decode_default(&in, c));
    free(c);
}

static void decode_tree(void **state)
{
    (void)state;
    ttnn_tree_node t;
    /* n = 8: vid = 7 - rank.  Root (vid 7 = 111) receives rank 1 (vid 6) in round 0,
       rank 2 (vid 5) in round 1, rank 4 (vid 3) in round 2. */
    ttnn_decode_tree(0, 8, &t);
    assert_true(t.root);
    assert_int_equal(t.rounds, 3);
    assert_int_equal(t.children[0], 1);
    assert_int_equal(t.children[1], 2);
    assert_int_equal(t.children[2], 4);
    /* rank 3 = vid 4 (100): no trailing ones -> round 0 to vid 5 = rank 2. */
    ttnn_decode_tree(3, 8, &t);
    assert_int_equal(t.parent, 2);
    assert_int_equal(t.send_round, 0);
    /* rank 2 = vid 5 (101): one trailing one -> round 1 to vid 7 = rank 0; it receives
       vid 4 = rank 3 in round 0. */
    ttnn_decode_tree(2, 8, &t);
    assert_int_equal(t.parent, 0);
    assert_int_equal(t.send_round, 1);
    assert_int_equal(t.children[0], 3);
    /* n = 3: vids 2, 1, 0.  rank 1 (vid 1) would send to vid 3, past the end: orphan,
       sends to the root in round 1; rank 2 (vid 0) sends to vid 1 = rank 1 in round 0. */
    ttnn_decode_tree(1, 3, &t);
    assert_int_equal(t.parent, 0);
    assert_int_equal(t.send_round, 1);
    ttnn_decode_tree(2, 3, &t);
    assert_int_equal(t.parent, 1);
    assert_int_equal(t.send_round, 0);
    ttnn_decode_tree(0, 3, &t);
    assert_int_equal(t.children[1], 1);
    assert_int_equal(t.children[0], -1);
}

static void explain_prints(void **state)
{
    (void)state;
    ttnn_mm_input in = mm(512, 512, 512, ARCH_BF16, 8, 8);
    ttnn_mm_config *c = run_mm(&in);
    lm_buf b = {0};
    ttnn_explain_print(&b, &c->explain);
    assert_non_null(strstr(lm_buf_str(&b), "in0_block_w"));
    assert_non_null(strstr(lm_buf_str(&b), "Kt / grid_x"));
    lm_buf_free(&b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mm_compute_defaults),
        cmocka_unit_test(mm_helpers),
        cmocka_unit_test(mm_512_cubed),
        cmocka_unit_test(mm_1024_cubed),
        cmocka_unit_test(mm_4096_cubed),
        cmocka_unit_test(mm_8192_cubed),
        cmocka_unit_test(mm_512x1024x1024_row),
        cmocka_unit_test(mm_narrow_wide),
        cmocka_unit_test(mm_narrow_tall),
        cmocka_unit_test(mm_k_one_tile),
        cmocka_unit_test(mm_unaligned),
        cmocka_unit_test(mm_block_float),
        cmocka_unit_test(mm_fp32_output),
        cmocka_unit_test(mm_bh_13x10),
        cmocka_unit_test(mm_batches),
        cmocka_unit_test(mm_l1_paths),
        cmocka_unit_test(mm_tuned),
        cmocka_unit_test(sdpa_default_chunks),
        cmocka_unit_test(sdpa_big_chunks),
        cmocka_unit_test(sdpa_batch_first),
        cmocka_unit_test(sdpa_uneven),
        cmocka_unit_test(decode_chunk_size),
        cmocka_unit_test(decode_cores),
        cmocka_unit_test(decode_tree),
        cmocka_unit_test(explain_prints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
