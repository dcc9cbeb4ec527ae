/* test_num.c - the simulator's numerics: bf16 and block-float rounding, the
 * matrix engine's fidelity phases, element-wise ops, approximate exp, the
 * fp64 references and the tolerance model. Every expected figure is worked
 * out here from the format definitions, not taken from a previous run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/num.h"

enum { T = NUM_TILE, TE = NUM_TILE_ELEMS };

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- bf16 -------------------------------------------------------------- */

static void bf16_round_to_nearest_even(void **state)
{
    (void)state;
    assert_int_equal(num_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(num_f32_to_bf16(-2.0f), 0xc000);
    /* 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7 (odd): down. */
    assert_int_equal(num_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);
    /* 1 + 3*2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up. */
    assert_int_equal(num_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
    assert_int_equal(num_f32_to_bf16(-(1.0f + 3 * 0x1p-8f)), 0xbf82);
    /* Just above a tie rounds up, just below rounds down. */
    assert_int_equal(num_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
    assert_int_equal(num_f32_to_bf16(1.0f + 0x1p-8f - 0x1p-20f), 0x3f80);
    /* Mantissa carry into the exponent: 2 - 2^-9 rounds to 2. */
    assert_true(num_round_bf16(2.0f - 0x1p-9f) == 2.0f);
    assert_true(num_round_bf16(0.1f) == 0.10009765625f); /* 0x3dcd */
    assert_int_equal(num_f32_to_bf16(-0.0f), 0x8000);
    assert_true(num_bf16_to_f32(0x4049) == 3.140625f);
}

static void bf16_special_values(void **state)
{
    (void)state;
    assert_true(isnan(num_round_bf16(NAN)));
    /* A signalling NaN whose payload is all in the low half must stay NaN
     * (plain truncation would make it infinity) and become quiet. */
    uint16_t h = num_f32_to_bf16(from_bits(0x7f800001u));
    assert_true(isnan(num_bf16_to_f32(h)));
    assert_true(h & 0x0040);
    assert_true(num_f32_to_bf16(from_bits(0xff800001u)) & 0x8000); /* sign kept */
    assert_int_equal(num_f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(num_f32_to_bf16(-INFINITY), 0xff80);
    /* FLT_MAX is above the largest bf16 plus half an ulp: overflows to inf. */
    assert_int_equal(num_f32_to_bf16(FLT_MAX), 0x7f80);
    /* The largest value still below that midpoint stays finite. */
    assert_int_equal(num_f32_to_bf16(from_bits(0x7f7f7fffu)), 0x7f7f);
    /* Denormals: bf16's smallest denormal is 2^-133 (0x0001). */
    assert_int_equal(num_f32_to_bf16(0x1p-133f), 0x0001);
    assert_int_equal(num_f32_to_bf16(from_bits(0x00018000u)), 0x0002); /* 1.5 ulp: tie to even */
    assert_int_equal(num_f32_to_bf16(from_bits(0x00008000u)), 0x0000); /* 0.5 ulp: tie to even */
    assert_int_equal(num_f32_to_bf16(from_bits(0x00008001u)), 0x0001);
    assert_int_equal(num_f32_to_bf16(0x1p-149f), 0x0000);
    /* Largest denormal rounds up to the smallest normal. */
    assert_int_equal(num_f32_to_bf16(from_bits(0x007fffffu)), 0x0080);
}

/* ---- block floats ------------------------------------------------------ */

/* One block whose largest exponent is that of 3.0 (2^1): a bfp8_b step is
 * 2^(1-6) = 1/32 and a bfp4_b step is 2^(1-2) = 1/2. */
static const float block_in[16] = {
    3.0f, 1.0f, 0.1f, -0.015625f, 0.046875f, -2.984375f, 3.99f, 1e-10f,
    0.0f, -1.25f, 0.2f, 0.21875f, 2.5f, -0.03f, 0.0078125f, 1.015625f,
};

static void bfp8_known_block(void **state)
{
    (void)state;
    const float want[16] = {
        3.0f,      /* 96 steps */
        1.0f,      /* 32 */
        0.09375f,  /* 3.2 -> 3 */
        0.0f,      /* -0.5 -> tie to even 0, and no sign on zero */
        0.0625f,   /* 1.5 -> tie to even 2 */
        -3.0f,     /* 95.5 -> tie to even 96 */
        3.96875f,  /* 127.68 -> 128 saturates at 127 */
        0.0f,      /* far below the step */
        0.0f,
        -1.25f,    /* 40 */
        0.1875f,   /* 6.4 -> 6 */
        0.21875f,  /* 7 */
        2.5f,      /* 80 */
        -0.03125f, /* 0.96 -> 1 */
        0.0f,      /* 0.25 -> 0 */
        1.0f,      /* 32.5 -> tie to even 32 */
    };
    float x[16];
    memcpy(x, block_in, sizeof x);
    num_round_array(x, 16, ARCH_BFP8_B);
    for (int i = 0; i < 16; i++) {
        assert_true(x[i] == want[i]);
        if (want[i] == 0.0f)
            assert_false(signbit(x[i]));
    }
}

static void bfp4_known_block(void **state)
{
    (void)state;
    const float want[16] = {
        3.0f,  /* 6 steps */
        1.0f,  /* 2 */
        0.0f,  /* 0.2 */
        0.0f, 0.0f,
        -3.0f, /* 5.97 -> 6 */
        3.5f,  /* 7.98 -> 8 saturates at 7 */
        0.0f, 0.0f,
        -1.0f, /* 2.5 -> tie to even 2 */
        0.0f,  /* 0.4 */
        0.0f,  /* 0.4375 */
        2.5f,  /* 5 */
        0.0f,
        0.0f,
        1.0f,  /* 2.03 -> 2 */
    };
    float x[16];
    memcpy(x, block_in, sizeof x);
    num_round_array(x, 16, ARCH_BFP4_B);
    for (int i = 0; i < 16; i++)
        assert_true(x[i] == want[i]);
}

static void bfp_blocks_are_face_rows(void **state)
{
    (void)state;
    float t[TE];
    for (int i = 0; i < TE; i++)
        t[i] = 0.3f; /* 0.3 = 1.2 * 2^-2 */
    t[0] = 64.0f;    /* block (row 0, columns 0..15) gets exponent 2^6 */
    num_round_tile(t, ARCH_BFP8_B);
    /* In that block the step is 2^(6-6) = 1: 0.3 rounds to 0. */
    for (int j = 1; j < 16; j++)
        assert_true(t[j] == 0.0f);
    /* Every other block keeps 0.3 to 7 bits: 0.3 / 2^-8 = 76.8 -> 77. */
    const float kept = 77.0f / 256.0f;
    for (int j = 16; j < 32; j++)
        assert_true(t[j] == kept); /* the top-right face */
    for (int i = 1; i < T; i++)
        for (int j = 0; j < T; j++)
            assert_true(t[i * T + j] == kept);
    /* bfp8_b values are bf16 values: rounding again changes nothing. */
    float u[TE];
    memcpy(u, t, sizeof u);
    num_round_tile(u, ARCH_BF16);
    assert_memory_equal(u, t, sizeof u);
    /* Rounding is idempotent. */
    num_round_tile(u, ARCH_BFP8_B);
    assert_memory_equal(u, t, sizeof u);
}

static void packer_rounding(void **state)
{
    (void)state;
    float t[TE];
    for (int i = 0; i < TE; i++)
        t[i] = 0.0f;
    t[0] = 1.0f + 0x1p-8f; /* a bf16 tie */
    t[1] = NAN;
    t[2] = 0x1p-130f;       /* denormal */
    t[3] = -0.0f;
    num_pack_tile(t, ARCH_BF16);
    assert_true(t[0] == 1.0f + 0x1p-7f); /* ties away from zero */
    assert_true(isinf(t[1]));
    assert_true(t[2] == 0.0f);
    assert_false(signbit(t[3]));

    /* bfp8_b: with 3.0 in the block the step is 1/32; 1.015625 is 32.5 steps
     * and goes away from zero to 33. */
    for (int i = 0; i < TE; i++)
        t[i] = 0.0f;
    t[0] = 3.0f;
    t[1] = 1.015625f;
    t[2] = -1.015625f;
    num_pack_tile(t, ARCH_BFP8_B);
    assert_true(t[0] == 3.0f);
    assert_true(t[1] == 33.0f / 32);
    assert_true(t[2] == -33.0f / 32);

    /* bfp4_b truncates the bfp8_b magnitude: 2.9 -> bf16 2.90625 -> 93/32
     * -> 93 >> 4 = 5 half-steps = 2.5 (rounding would give 3.0). */
    for (int i = 0; i < TE; i++)
        t[i] = 0.0f;
    t[0] = 3.0f;
    t[1] = 2.9f;
    num_pack_tile(t, ARCH_BFP4_B);
    assert_true(t[0] == 3.0f);
    assert_true(t[1] == 2.5f);
}

/* ---- matrix engine ----------------------------------------------------- */

static void fidelity_phases_by_hand(void **state)
{
    (void)state;
    /* a (in0, SrcB) = 1 + 2^-7: its last bit is beyond SrcB's 6-bit top slice.
     * b (in1, SrcA) = 1 + 2^-5 + 2^-7: beyond SrcA's 4-bit top slice. */
    const float a = 1.0f + 0x1p-7f, b = 1.0f + 0x1p-5f + 0x1p-7f;
    const float a_hi = 1.0f, a_lo = 0x1p-7f, b_hi = 1.0f, b_lo = 0x1p-5f + 0x1p-7f;
    const float want[ARCH_NFIDELITIES] = {
        a_hi * b_hi,                                     /* LoFi */
        a_hi * b_hi + a_hi * b_lo,                       /* + phase 1 */
        a_hi * b_hi + a_hi * b_lo + a_lo * b_hi,         /* + phase 2 */
        a_hi * b_hi + a_hi * b_lo + a_lo * b_hi + a_lo * b_lo, /* + phase 3 */
    };
    assert_true(want[ARCH_HIFI4] == a * b);
    static float ta[TE], tb[TE], d[TE];
    memset(ta, 0, sizeof ta);
    memset(tb, 0, sizeof tb);
    ta[0] = a;
    tb[0] = b;
    for (int f = 0; f < ARCH_NFIDELITIES; f++) {
        for (int i = 0; i < TE; i++)
            d[i] = 0.5f;
        num_tile_matmul_acc(d, ta, tb, (arch_fidelity)f);
        assert_true(d[0] == 0.5f + want[f]);
        for (int i = 1; i < TE; i++)
            assert_true(d[i] == 0.5f);
    }
    /* Swapping the operands changes which one loses bits: with a and b
     * swapped, LoFi keeps b = 1 + 2^-5 + 2^-7 truncated to 7 bits
     * (1 + 2^-5) and a truncated to 5 bits (1). */
    memset(d, 0, sizeof d);
    ta[0] = b;
    tb[0] = a;
    num_tile_matmul_acc(d, ta, tb, ARCH_LOFI);
    assert_true(d[0] == 1.0f + 0x1p-5f);
}

static double matmul_error(const float *a, const float *b, arch_fidelity f, num_cmp *out)
{
    static float d[TE], ref[TE];
    memset(d, 0, sizeof d);
    num_tile_matmul_acc(d, a, b, f);
    num_ref_matmul(T, T, T, a, b, ref);
    *out = num_compare(d, ref, TE);
    return out->max_rel;
}

static void matmul_matches_reference(void **state)
{
    (void)state;
    static float a[TE], b[TE];
    num_fill_random(a, TE, 1, ARCH_BF16);
    num_fill_random(b, TE, 2, ARCH_BF16);
    num_cmp c[ARCH_NFIDELITIES];
    double e[ARCH_NFIDELITIES];
    for (int f = 0; f < ARCH_NFIDELITIES; f++) {
        e[f] = matmul_error(a, b, (arch_fidelity)f, &c[f]);
        assert_true(num_within_tolerance_fid(&c[f], ARCH_FP32, T, (arch_fidelity)f));
    }
    /* HiFi4 products of bf16 values are exact: only fp32 accumulation of
     * 32 terms differs from the fp64 reference. */
    assert_true(e[ARCH_HIFI4] < 32 * 0x1p-24);
    assert_true(num_within_tolerance(&c[ARCH_HIFI4], ARCH_FP32, T));
    /* Each added phase reduces the error. */
    assert_true(e[ARCH_LOFI] > e[ARCH_HIFI2]);
    assert_true(e[ARCH_HIFI2] > e[ARCH_HIFI3]);
    assert_true(e[ARCH_HIFI3] > e[ARCH_HIFI4]);
    /* LoFi on bf16 inputs is visibly worse than bf16 storage precision. */
    assert_false(num_within_tolerance(&c[ARCH_LOFI], ARCH_BF16, T));
    /* Bounds per product (docs/numerics.md): LoFi 2^-4, HiFi2 2^-7, HiFi3 2^-11. */
    assert_true(e[ARCH_LOFI] < 3 * 0x1p-4);
    assert_true(e[ARCH_HIFI2] < 3 * 0x1p-7);
    assert_true(e[ARCH_HIFI3] < 3 * 0x1p-11);

    /* Block-float inputs at the fidelity TT pairs them with are exact. */
    static float a8[TE], b8[TE], a4[TE], b4[TE];
    num_fill_random(a8, TE, 3, ARCH_BFP8_B);
    num_fill_random(b8, TE, 4, ARCH_BFP8_B);
    num_fill_random(a4, TE, 5, ARCH_BFP4_B);
    num_fill_random(b4, TE, 6, ARCH_BFP4_B);
    num_cmp x, y;
    assert_true(matmul_error(a8, b8, ARCH_HIFI2, &x) == matmul_error(a8, b8, ARCH_HIFI4, &y));
    assert_true(matmul_error(a4, b4, ARCH_LOFI, &x) == matmul_error(a4, b4, ARCH_HIFI4, &y));
}

/* Copy tile (ti, tj) of a row-major matrix with `cols` columns. */
static void get_tile(float *t, const float *m, int cols, int ti, int tj)
{
    for (int i = 0; i < T; i++)
        memcpy(t + i * T, m + (size_t)(ti * T + i) * cols + tj * T, T * sizeof(float));
}

static void put_tile(float *m, const float *t, int cols, int ti, int tj)
{
    for (int i = 0; i < T; i++)
        memcpy(m + (size_t)(ti * T + i) * cols + tj * T, t + i * T, T * sizeof(float));
}

/* A blocked 64x64x256 product through tiles, stored in each format. */
static void blocked_matmul_within_tolerance(void **state)
{
    (void)state;
    enum { M = 64, N = 64, K = 256 };
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N), *R = malloc(sizeof(float) * M * N);
    num_fill_random(A, M * K, 11, ARCH_BF16);
    num_fill_random(B, K * N, 12, ARCH_BF16);
    num_ref_matmul(M, N, K, A, B, R);
    const arch_format fmts[] = {ARCH_FP32, ARCH_BF16, ARCH_BFP8_B, ARCH_BFP4_B};
    for (size_t fi = 0; fi < LM_COUNT(fmts); fi++) {
        static float ta[TE], tb[TE], td[TE];
        for (int ti = 0; ti < M / T; ti++)
            for (int tj = 0; tj < N / T; tj++) {
                memset(td, 0, sizeof td);
                for (int tk = 0; tk < K / T; tk++) {
                    get_tile(ta, A, K, ti, tk);
                    get_tile(tb, B, N, tk, tj);
                    num_tile_matmul_acc(td, ta, tb, ARCH_HIFI4);
                }
                num_round_tile(td, fmts[fi]);
                put_tile(C, td, N, ti, tj);
            }
        num_cmp c = num_compare(C, R, M * N);
        assert_int_equal(c.nonfinite, 0);
        assert_true(num_within_tolerance(&c, fmts[fi], K));
        /* The same result must not pass a tighter format's test, except fp32
         * -> bf16 which only loosens. */
        if (fmts[fi] == ARCH_BF16)
            assert_false(num_within_tolerance(&c, ARCH_FP32, K));
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

/* K blocks accumulated through a bf16 partials buffer, as the packer's L1
 * accumulation does under a bf16 output: each block's products summed in
 * fp32, added to the bf16 partial and rounded, once per block. The
 * roundings of the partial sums are a real error the plain bound does not
 * cover (here it is exceeded several times over); the bound with the
 * partials' term covers it, and still rejects a wrong result. */
static void packed_partials_within_tolerance(void **state)
{
    (void)state;
    enum { M = 64, N = 64, K = 1024 };
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N), *R = malloc(sizeof(float) * M * N);
    num_fill_random(A, M * K, 41, ARCH_BF16);
    num_fill_random(B, K * N, 42, ARCH_BF16);
    num_ref_matmul(M, N, K, A, B, R);
    static const int bks[] = {32, 64, 256};
    for (size_t bi = 0; bi < sizeof bks / sizeof bks[0]; bi++) {
        int bk = bks[bi], nkb = K / bk;
        static float ta[TE], tb[TE], blk[TE], part[TE];
        for (int ti = 0; ti < M / T; ti++)
            for (int tj = 0; tj < N / T; tj++) {
                for (int kb = 0; kb < nkb; kb++) {
                    memset(blk, 0, sizeof blk);
                    for (int tk = kb * bk / T; tk < (kb + 1) * bk / T; tk++) {
                        get_tile(ta, A, K, ti, tk);
                        get_tile(tb, B, N, tk, tj);
                        num_tile_matmul_acc(blk, ta, tb, ARCH_HIFI4);
                    }
                    for (int q = 0; q < TE; q++)
                        part[q] = kb ? part[q] + blk[q] : blk[q];
                    num_pack_tile(part, ARCH_BF16);
                }
                put_tile(C, part, N, ti, tj);
            }
        num_cmp c = num_compare(C, R, M * N);
        double tol = num_tolerance_packed(ARCH_BF16, K, ARCH_HIFI4, ARCH_BF16, nkb - 1);
        assert_true(c.max_rel <= tol);
        if (bk == 32)
            assert_true(c.max_rel > 2 * num_tolerance(ARCH_BF16, K, ARCH_HIFI4));
        /* the term is u_p sqrt(packs / 2) scaled, and nothing without packs */
        assert_true(fabs(tol - num_tolerance(ARCH_BF16, K, ARCH_HIFI4) - 5 * 0x1p-8 * sqrt((nkb - 1) / 2.0)) < 1e-12);
        /* a quarter of an element's magnitude off still fails */
        int64_t at = 777;
        C[at] += 0.25f * fmaxf(fabsf(R[at]), (float)c.ref_rms);
        num_cmp w = num_compare(C, R, M * N);
        assert_true(w.max_rel > tol);
    }
    assert_true(num_tolerance_packed(ARCH_BF16, K, ARCH_HIFI2, ARCH_BF16, 0) == num_tolerance(ARCH_BF16, K, ARCH_HIFI2));
    /* fp32 partials add next to nothing: their unit roundoff is 2^-24 */
    assert_true(fabs(num_tolerance_packed(ARCH_FP32, K, ARCH_HIFI4, ARCH_FP32, 31) -
                     num_tolerance(ARCH_FP32, K, ARCH_HIFI4) - 5 * 0x1p-24 * sqrt(31 / 2.0)) < 1e-15);
    free(A);
    free(B);
    free(C);
    free(R);
}

/* ---- element-wise ------------------------------------------------------ */

static void reduce_rows(void **state)
{
    (void)state;
    static float a[TE], d[TE];
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            a[i * T + j] = (float)(i * T + j) - (j == 7 ? 5000.0f : 0.0f);
    /* Row i holds 32i + j (j = 0..31) with 5000 taken off column 7:
     * sum = 1024 i + 496 - 5000, max = 32 i + 31. */
    num_tile_reduce_row(d, a, NUM_RED_SUM, false);
    for (int i = 0; i < T; i++) {
        assert_true(d[i * T] == (float)(1024 * i + 496 - 5000));
        for (int j = 1; j < T; j++)
            assert_true(d[i * T + j] == 0.0f);
    }
    for (int i = 0; i < TE; i++)
        d[i] = 7.0f;
    d[3 * T] = 1e6f;
    num_tile_reduce_row(d, a, NUM_RED_MAX, true);
    for (int i = 0; i < T; i++) {
        float want = i == 3 ? 1e6f : (float)(32 * i + 31);
        assert_true(d[i * T] == want);
        assert_true(d[i * T + 5] == 0.0f);
    }
    num_tile_reduce_row(d, a, NUM_RED_SUM, true);
    assert_true(d[0] == 31.0f + 496 - 5000);
    /* In place. */
    memcpy(d, a, sizeof d);
    num_tile_reduce_row(d, d, NUM_RED_MAX, false);
    assert_true(d[2 * T] == 95.0f);
    assert_true(d[2 * T + 1] == 0.0f);
}

static void broadcast_binops(void **state)
{
    (void)state;
    static float a[TE], b[TE], d[TE];
    for (int i = 0; i < TE; i++) {
        a[i] = (float)i;
        b[i] = (float)(-3 * i);
    }
    num_tile_binop(d, a, b, NUM_ADD, NUM_BCAST_NONE);
    for (int i = 0; i < TE; i++)
        assert_true(d[i] == (float)(-2 * i));
    num_tile_binop(d, a, b, NUM_SUB, NUM_BCAST_COL); /* b[i][0] = -96 i */
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            assert_true(d[i * T + j] == (float)(i * T + j + 96 * i));
    num_tile_binop(d, a, b, NUM_MUL, NUM_BCAST_ROW); /* b[0][j] = -3 j */
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            assert_true(d[i * T + j] == (float)((i * T + j) * (-3 * j)));
    b[0] = 500.0f;
    num_tile_binop(d, a, b, NUM_MAXOP, NUM_BCAST_SCALAR);
    for (int i = 0; i < TE; i++)
        assert_true(d[i] == (i > 500 ? (float)i : 500.0f));
    /* dst may be an operand. */
    memcpy(d, a, sizeof d);
    num_tile_binop(d, d, b, NUM_ADD, NUM_BCAST_SCALAR);
    assert_true(d[10] == 510.0f);
}

/* Within half an ulp of the exact value (ref, in double): the rounding of a
 * correctly rounded fp32 result. */
static void assert_rounded(float got, double ref)
{
    double ulp = ldexp(1.0, ilogb(ref) - 23);
    if (!(fabs((double)got - ref) <= 0.5 * ulp * (1 + 1e-9)))
        fail_msg("got %.9g, exact %.17g (ulp %g)", got, ref, ulp);
}

/* sqrt, rsqrt and sigmoid: the SFPU's accurate modes, modelled as fp32
 * functions rounded once (docs/numerics.md): exact on squares and powers of
 * 4, within half an ulp of the double-precision value elsewhere, IEEE at the
 * edges, and sigmoid's symmetry. */
static void sfpu_roots_sigmoid(void **state)
{
    (void)state;
    static float a[TE], d[TE];
    /* geometric from 2^-40 to 2^40: every exponent, many mantissas */
    for (int i = 0; i < TE; i++)
        a[i] = (float)ldexp(1.0 + (i % 7) / 7.0, i * 80 / TE - 40);
    num_tile_unop(d, a, NUM_SQRT);
    for (int i = 0; i < TE; i++)
        assert_rounded(d[i], sqrt((double)a[i]));
    num_tile_unop(d, a, NUM_RSQRT);
    for (int i = 0; i < TE; i++)
        assert_rounded(d[i], 1.0 / sqrt((double)a[i]));
    for (int i = 0; i < TE; i++)
        a[i] = (float)(i - 512) / 16.0f; /* -32 .. 32 */
    num_tile_unop(d, a, NUM_SIGMOID);
    for (int i = 0; i < TE; i++)
        assert_rounded(d[i], 1.0 / (1.0 + exp(-(double)a[i])));
    assert_true(d[512] == 0.5f);
    /* sigmoid(-x) = 1 - sigmoid(x): both within half an ulp, and for x > 0
       the ulp of 1 - s is at most that of s (s >= 1/2) */
    for (int i = 1; i < 512; i++)
        assert_true(fabs((double)d[512 - i] - (1.0 - (double)d[512 + i])) <= ldexp(1.0, -24));
    /* squares and powers of 4 are exact */
    float sq[] = {0.25f, 4.0f, 9.0f, 1048576.0f, 0x1p-100f};
    float rt[] = {0.5f, 2.0f, 3.0f, 1024.0f, 0x1p-50f};
    for (int i = 0; i < TE; i++)
        a[i] = sq[i % 5];
    num_tile_unop(d, a, NUM_SQRT);
    for (int i = 0; i < 5; i++)
        assert_true(d[i] == rt[i]);
    num_tile_unop(d, a, NUM_RSQRT);
    assert_true(d[0] == 2.0f && d[1] == 0.5f && d[3] == 1.0f / 1024 && d[4] == 0x1p50f);
    /* the edges */
    float e[] = {0.0f, -1.0f, INFINITY, NAN, 200.0f, -200.0f};
    for (int i = 0; i < TE; i++)
        a[i] = e[i % 6];
    num_tile_unop(d, a, NUM_SQRT);
    assert_true(d[0] == 0.0f && isnan(d[1]) && isinf(d[2]) && isnan(d[3]));
    num_tile_unop(d, a, NUM_RSQRT);
    assert_true(isinf(d[0]) && d[0] > 0 && isnan(d[1]) && d[2] == 0.0f && isnan(d[3]));
    num_tile_unop(d, a, NUM_SIGMOID);
    assert_true(d[0] == 0.5f && d[2] == 1.0f && isnan(d[3]) && d[4] == 1.0f && d[5] == 0.0f);
}

static void unops_scale_transpose(void **state)
{
    (void)state;
    static float a[TE], d[TE], e[TE];
    for (int i = 0; i < TE; i++)
        a[i] = (float)(i - 512) / 64.0f; /* -8 .. 8 */
    num_tile_unop(d, a, NUM_EXP);
    num_tile_unop(e, d, NUM_LOG);
    for (int i = 0; i < TE; i++) {
        assert_true(d[i] == expf(a[i]));
        assert_true(fabsf(e[i] - a[i]) <= 1e-5f * (1.0f + fabsf(a[i])));
    }
    num_tile_unop(d, a, NUM_EXP2);
    assert_true(d[512 + 64] == 2.0f);
    assert_true(d[512 - 192] == 0.125f);
    num_tile_unop(d, a, NUM_RECIP);
    assert_true(d[512 + 128] == 0.5f);
    assert_true(isinf(d[512]));
    num_tile_unop(d, a, NUM_NEG);
    assert_true(d[0] == 8.0f);
    num_tile_scale(d, a, 0.25f);
    assert_true(d[0] == -2.0f);
    num_tile_transpose(d, a);
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            assert_true(d[j * T + i] == a[i * T + j]);
    num_tile_transpose(d, d); /* in place, back again */
    assert_memory_equal(d, a, sizeof d);
}

static void approximate_exp_error(void **state)
{
    (void)state;
    /* The approximation reads 8 fraction bits of x / ln 2 as a linear
     * interpolation of 2^f, scaled by 2^(-11.2/256): (1 + f) / 2^f lies in
     * [1, 1.0615], times 2^-0.04375 = 0.9701 gives [0.9701, 1.0298], and
     * rounding the exponent to 1/256 adds a factor 2^(+-1/512) = 1 +- 0.135%:
     * [0.9688, 1.0312]. */
    double worst = 0.0, worst_signed_lo = 0.0, worst_signed_hi = 0.0;
    float prev = 0.0f;
    for (int i = -8500; i <= 8500; i++) {
        float x = (float)i / 100.0f;
        float got = num_exp_approx(x);
        double ref = exp((double)x);
        double rel = (got - ref) / ref;
        worst = fmax(worst, fabs(rel));
        worst_signed_lo = fmin(worst_signed_lo, rel);
        worst_signed_hi = fmax(worst_signed_hi, rel);
        assert_true(got >= prev); /* monotonic */
        prev = got;
    }
    assert_true(worst < 0.0315);
    /* Errors of both signs, i.e. the constant centres the error. */
    assert_true(worst_signed_lo < -0.02 && worst_signed_hi > 0.02);
    assert_true(num_exp_approx(-100.0f) == 0.0f);
    assert_true(num_exp_approx(-INFINITY) == 0.0f);
    assert_true(isinf(num_exp_approx(100.0f)));
    assert_true(isnan(num_exp_approx(NAN)));
    static float a[TE], d[TE];
    for (int i = 0; i < TE; i++)
        a[i] = (float)(i - 512) / 32.0f;
    num_tile_unop(d, a, NUM_EXP_APPROX);
    for (int i = 0; i < TE; i++)
        assert_true(d[i] == num_exp_approx(a[i]));
}

static void approximate_exp2(void **state)
{
    (void)state;
    /* 2^x is the same pass with ln 2 folded into the constant: t = 2^8 x +
     * (127 * 2^8 - 11.18), so the error bound of exp holds unchanged. At a
     * whole x = k, t rounds to 2^8 (k + 127) - 11: exponent field k + 126 and
     * the top mantissa bits 245/256, i.e. 2^(k-1) (1 + 245/256). */
    double worst = 0.0;
    float prev = 0.0f;
    for (int i = -12000; i <= 12000; i++) {
        float x = (float)i / 100.0f;
        float got = num_exp2_approx(x);
        double ref = exp2((double)x);
        worst = fmax(worst, fabs((got - ref) / ref));
        assert_true(got >= prev); /* monotonic */
        prev = got;
    }
    assert_true(worst < 0.0315);
    for (int k = -20; k <= 20; k++)
        assert_true(num_exp2_approx((float)k) == (float)ldexp(1.0 + 245.0 / 256.0, k - 1));
    /* the clamp moves with the scale: -88.5 / ln 2 = -127.68 */
    assert_true(num_exp2_approx(-200.0f) == 0.0f);
    assert_true(isinf(num_exp2_approx(200.0f)));
    assert_true(isnan(num_exp2_approx(NAN)));
    static float a[TE], d[TE];
    for (int i = 0; i < TE; i++)
        a[i] = (float)(i - 512) / 32.0f;
    num_tile_unop(d, a, NUM_EXP2_APPROX);
    for (int i = 0; i < TE; i++)
        assert_true(d[i] == num_exp2_approx(a[i]));
}

/* ---- references -------------------------------------------------------- */

static void ref_matmul_small(void **state)
{
    (void)state;
    const float A[2 * 3] = {1, 2, 3, 4, 5, 6};
    const float B[3 * 2] = {7, 8, 9, 10, 11, 12};
    float C[4];
    num_ref_matmul(2, 2, 3, A, B, C);
    assert_true(C[0] == 58.0f && C[1] == 64.0f && C[2] == 139.0f && C[3] == 154.0f);
}

static void attention_reference(void **state)
{
    (void)state;
    enum { D = 4 };
    float O[4 * 3 * D];

    /* One key: every query gets V exactly. */
    {
        const float Q[2 * D] = {1, -2, 3, 0.5f, 7, 7, 7, 7};
        const float K[D] = {0.3f, 0.1f, -0.2f, 1};
        const float V[D] = {1.5f, -2.25f, 3, 0.125f};
        num_ref_attention(1, 1, 1, 2, 1, D, Q, K, V, 0.5f, false, O);
        for (int i = 0; i < 2; i++)
            for (int d = 0; d < D; d++)
                assert_true(O[i * D + d] == V[d]);
    }
    /* Zero queries give equal scores: the mean of V; causal (top-left) gives
     * query i the mean of V[0..i]. */
    const float V3[3 * D] = {1, 2, 3, 4, 10, 20, 30, 40, -5, 0, 5, 100};
    const float K3[3 * D] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    const float Q0[3 * D] = {0};
    num_ref_attention(1, 1, 1, 1, 3, D, Q0, K3, V3, 1.0f, false, O);
    for (int d = 0; d < D; d++)
        assert_float_equal(O[d], (V3[d] + V3[D + d] + V3[2 * D + d]) / 3.0f, 1e-5);
    num_ref_attention(1, 1, 1, 3, 3, D, Q0, K3, V3, 1.0f, true, O);
    for (int d = 0; d < D; d++) {
        assert_float_equal(O[d], V3[d], 1e-6);
        assert_float_equal(O[D + d], (V3[d] + V3[D + d]) / 2.0f, 1e-5);
        assert_float_equal(O[2 * D + d], (V3[d] + V3[D + d] + V3[2 * D + d]) / 3.0f, 1e-5);
    }
    /* SQ < SK stays top-left aligned: query 0 sees key 0, query 1 keys 0..1. */
    num_ref_attention(1, 1, 1, 2, 3, D, Q0, K3, V3, 1.0f, true, O);
    for (int d = 0; d < D; d++) {
        assert_float_equal(O[d], V3[d], 1e-6);
        assert_float_equal(O[D + d], (V3[d] + V3[D + d]) / 2.0f, 1e-5);
    }
    /* Two keys whose scores differ by ln 3: weights 1/4 and 3/4. A common
     * offset of 1000 must not overflow (stable softmax). */
    {
        const float q[1] = {1.0f};
        const float k[2] = {1000.0f, 1000.0f + (float)log(3.0)};
        const float v[2] = {4.0f, 8.0f};
        float o[1];
        num_ref_attention(1, 1, 1, 1, 2, 1, q, k, v, 1.0f, false, o);
        assert_float_equal(o[0], 0.25 * 4 + 0.75 * 8, 1e-3);
    }
    /* GQA: 4 query heads on 2 KV heads; heads 0,1 read KV head 0, heads 2,3
     * KV head 1. With zero queries each head gets its KV head's mean of V. */
    {
        float Kg[2 * 2 * D], Vg[2 * 2 * D], Qg[4 * 1 * D] = {0}, Og[4 * D];
        for (int i = 0; i < 2 * 2 * D; i++) {
            Kg[i] = (float)(i % 3);
            Vg[i] = (float)(i * i);
        }
        num_ref_attention(1, 4, 2, 1, 2, D, Qg, Kg, Vg, 1.0f, false, Og);
        for (int h = 0; h < 4; h++) {
            int hk = h / 2;
            for (int d = 0; d < D; d++) {
                float want = (Vg[(hk * 2 + 0) * D + d] + Vg[(hk * 2 + 1) * D + d]) / 2.0f;
                assert_float_equal(Og[h * D + d], want, 1e-4);
            }
        }
    }
}

/* Attention from tile ops (QK^T, scale, row max, exp, row sum, PV, divide)
 * agrees with the reference within the bf16 tolerance. */
static void attention_from_tiles(void **state)
{
    (void)state;
    static float q[TE], k[TE], v[TE], kt[TE], s[TE], m[TE], p[TE], l[TE], o[TE], ref[TE];
    num_fill_random(q, TE, 21, ARCH_BF16);
    num_fill_random(k, TE, 22, ARCH_BF16);
    num_fill_random(v, TE, 23, ARCH_BF16);
    const float scale = 1.0f / sqrtf((float)T);
    num_tile_transpose(kt, k);
    memset(s, 0, sizeof s);
    num_tile_matmul_acc(s, q, kt, ARCH_HIFI4);
    num_tile_scale(s, s, scale);
    num_tile_reduce_row(m, s, NUM_RED_MAX, false);
    num_tile_binop(p, s, m, NUM_SUB, NUM_BCAST_COL);
    num_tile_unop(p, p, NUM_EXP);
    num_tile_reduce_row(l, p, NUM_RED_SUM, false);
    num_round_tile(p, ARCH_BF16);
    memset(o, 0, sizeof o);
    num_tile_matmul_acc(o, p, v, ARCH_HIFI4);
    num_tile_unop(l, l, NUM_RECIP);
    num_tile_binop(o, o, l, NUM_MUL, NUM_BCAST_COL);
    num_round_tile(o, ARCH_BF16);
    num_ref_attention(1, 1, 1, T, T, T, q, k, v, scale, false, ref);
    num_cmp c = num_compare(o, ref, TE);
    assert_true(num_within_tolerance(&c, ARCH_BF16, T));
}

/* ---- tolerance --------------------------------------------------------- */

static void tolerance_accepts_and_rejects(void **state)
{
    (void)state;
    enum { M = 64, N = 64, K = 64 };
    static float A[M * K], B[K * N], Bt[K * N], R[M * N], G[M * N], W[M * N];
    num_fill_random(A, M * K, 31, ARCH_BF16);
    num_fill_random(B, K * N, 32, ARCH_BF16);
    num_ref_matmul(M, N, K, A, B, R);
    for (arch_format f = ARCH_BF16; f < ARCH_NFORMATS; f++) {
        memcpy(G, R, sizeof G);
        num_round_array(G, M * N, f);
        num_cmp c = num_compare(G, R, M * N);
        assert_true(num_within_tolerance(&c, f, K));

        /* One element off by a quarter of its magnitude (bf16, fp32) or sign
         * flipped (block floats, whose tolerance is relative to the block). */
        int64_t at = 1234;
        memcpy(W, G, sizeof W);
        if (f == ARCH_BF16 || f == ARCH_FP32) {
            W[at] = G[at] + 0.25f * fmaxf(fabsf(R[at]), (float)c.ref_rms);
        } else {
            for (int64_t i = at / 16 * 16; i < at / 16 * 16 + 16; i++)
                if (fabsf(R[i]) > fabsf(R[at]))
                    at = i; /* the block's largest value */
            W[at] = -G[at];
        }
        num_cmp w = num_compare(W, R, M * N);
        assert_false(num_within_tolerance(&w, f, K));
        assert_true(f == ARCH_BFP8_B || f == ARCH_BFP4_B ? w.worst_block_index == at
                                                         : w.worst_index == at);

        /* A NaN where the reference is finite. */
        memcpy(W, G, sizeof W);
        W[7] = NAN;
        w = num_compare(W, R, M * N);
        assert_int_equal(w.nonfinite, 1);
        assert_false(num_within_tolerance(&w, f, K));
    }
    /* A transposed operand gives a plausible-looking but wrong result. */
    for (int i = 0; i < K; i++)
        for (int j = 0; j < N; j++)
            Bt[j * K + i] = B[i * N + j];
    num_ref_matmul(M, N, K, A, Bt, W);
    for (arch_format f = ARCH_BF16; f < ARCH_NFORMATS; f++) {
        memcpy(G, W, sizeof G);
        num_round_array(G, M * N, f);
        num_cmp c = num_compare(G, R, M * N);
        assert_false(num_within_tolerance(&c, f, K));
        assert_false(num_within_tolerance_fid(&c, f, K, ARCH_LOFI));
    }
    /* The bound grows with lower fidelity, coarser formats and depth. */
    assert_true(num_tolerance(ARCH_BF16, 32, ARCH_LOFI) > num_tolerance(ARCH_BF16, 32, ARCH_HIFI2));
    assert_true(num_tolerance(ARCH_BF16, 32, ARCH_HIFI2) > num_tolerance(ARCH_BF16, 32, ARCH_HIFI3));
    assert_true(num_tolerance(ARCH_BF16, 32, ARCH_HIFI3) > num_tolerance(ARCH_BF16, 32, ARCH_HIFI4));
    assert_true(num_tolerance(ARCH_BFP4_B, 32, ARCH_HIFI4) > num_tolerance(ARCH_BFP8_B, 32, ARCH_HIFI4));
    assert_true(num_tolerance(ARCH_BFP8_B, 32, ARCH_HIFI4) > num_tolerance(ARCH_BF16, 32, ARCH_HIFI4));
    assert_true(num_tolerance(ARCH_BF16, 32, ARCH_HIFI4) > num_tolerance(ARCH_FP32, 32, ARCH_HIFI4));
    assert_true(num_tolerance(ARCH_FP32, 4096, ARCH_HIFI4) > num_tolerance(ARCH_FP32, 32, ARCH_HIFI4));
}

static void compare_fields(void **state)
{
    (void)state;
    const float ref[4] = {3, -4, 0, 0};
    const float got[4] = {3, -4, 0.5f, 0};
    num_cmp c = num_compare(got, ref, 4);
    /* rms = sqrt((9 + 16) / 4) = 2.5 is the floor for the zero at index 2. */
    assert_float_equal(c.ref_rms, 2.5, 1e-12);
    assert_float_equal(c.max_abs, 0.5, 1e-12);
    assert_float_equal(c.max_rel, 0.5 / 2.5, 1e-12);
    assert_int_equal(c.worst_index, 2);
    /* Relative to the block's largest magnitude, 4. */
    assert_float_equal(c.max_rel_block, 0.5 / 4, 1e-12);
    /* A non-finite reference is skipped, not counted. */
    const float ref2[2] = {INFINITY, 1};
    const float got2[2] = {INFINITY, 1};
    c = num_compare(got2, ref2, 2);
    assert_int_equal(c.nonfinite, 0);
    assert_true(c.max_rel == 0.0);
}

/* A term scale raises an element's scale above |ref| and rms(ref), never
 * lowers it, and is ignored where it is not finite. */
static void compare_with_terms(void **state)
{
    (void)state;
    const float ref[4] = {3, -4, 0, 0};
    const float got[4] = {3.5f, -4, 0.5f, 0.25f};
    /* terms: below |ref| (index 0), above the rms floor (2), unknown (3) */
    const float terms[4] = {1, 4, 10, INFINITY};
    num_cmp c = num_compare_terms(got, ref, terms, 4);
    num_cmp plain = num_compare(got, ref, 4);
    assert_float_equal(c.ref_rms, 2.5, 1e-12);
    assert_float_equal(c.max_abs, 0.5, 1e-12);
    /* index 0: 0.5 / max(3, 2.5, 1) = 1/6; index 2: 0.5 / max(0, 2.5, 10) =
       0.05; index 3: 0.25 / 2.5 = 0.1, as without terms */
    assert_float_equal(c.max_rel, 0.5 / 3, 1e-12);
    assert_int_equal(c.worst_index, 0);
    /* the block's largest magnitude 4 is above terms 0 and 1, below 10 */
    assert_float_equal(c.max_rel_block, 0.5 / 4, 1e-12);
    assert_int_equal(c.worst_block_index, 0);
    assert_float_equal(plain.max_rel, 0.5 / 2.5, 1e-12);
    assert_int_equal(plain.worst_index, 2);
    /* no terms: the plain comparison */
    num_cmp none = num_compare_terms(got, ref, NULL, 4);
    assert_true(none.max_rel == plain.max_rel && none.max_rel_block == plain.max_rel_block);
    assert_true(none.worst_index == plain.worst_index && none.max_abs == plain.max_abs);
    /* a NaN result is still counted whatever its scale */
    const float nan_got[4] = {3, -4, NAN, 0};
    assert_int_equal(num_compare_terms(nan_got, ref, terms, 4).nonfinite, 1);
}

/* ---- random fill ------------------------------------------------------- */

/* splitmix64, written out from its published definition. */
static uint64_t sm64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void fill_random_is_deterministic(void **state)
{
    (void)state;
    static float x[4096], y[4096];
    num_fill_random(x, 4096, 99, ARCH_FP32);
    num_fill_random(y, 4096, 99, ARCH_FP32);
    assert_memory_equal(x, y, sizeof x);
    /* Value i is the top 24 bits of splitmix64(base + i * golden) with
     * base = splitmix64(seed), mapped to [-1, 1). */
    uint64_t base = sm64(99);
    for (int i = 0; i < 3; i++) {
        uint64_t r = sm64(base + (uint64_t)i * 0x9e3779b97f4a7c15ull);
        double want = (double)(r >> 40) / 8388608.0 - 1.0;
        assert_true((double)x[i] == want);
    }
    double mean = 0.0;
    for (int i = 0; i < 4096; i++) {
        assert_true(x[i] >= -1.0f && x[i] < 1.0f);
        mean += x[i];
    }
    assert_true(fabs(mean / 4096) < 0.05);
    num_fill_random(y, 4096, 100, ARCH_FP32);
    assert_true(memcmp(x, y, sizeof x) != 0);
    /* A prefix is the same whatever the length. */
    num_fill_random(y, 10, 99, ARCH_FP32);
    assert_memory_equal(x, y, 10 * sizeof(float));
    /* Rounded to the format. */
    num_fill_random(y, 4096, 99, ARCH_BF16);
    for (int i = 0; i < 4096; i++)
        assert_int_equal(bits_of(y[i]) & 0xffff, 0);
    num_fill_random(y, 4096, 99, ARCH_BFP4_B);
    for (int i = 0; i < 4096; i += 16) {
        float mx = 0.0f;
        for (int j = 0; j < 16; j++)
            mx = fmaxf(mx, fabsf(y[i + j]));
        /* Each value is a multiple of the block's step 2^(e-2). */
        int e;
        frexpf(mx, &e); /* mx in [2^(e-1), 2^e) */
        float step = ldexpf(1.0f, e - 1 - 2);
        for (int j = 0; j < 16; j++)
            assert_true(fmodf(y[i + j], step) == 0.0f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bf16_round_to_nearest_even),
        cmocka_unit_test(bf16_special_values),
        cmocka_unit_test(bfp8_known_block),
        cmocka_unit_test(bfp4_known_block),
        cmocka_unit_test(bfp_blocks_are_face_rows),
        cmocka_unit_test(packer_rounding),
        cmocka_unit_test(fidelity_phases_by_hand),
        cmocka_unit_test(matmul_matches_reference),
        cmocka_unit_test(blocked_matmul_within_tolerance),
        cmocka_unit_test(packed_partials_within_tolerance),
        cmocka_unit_test(reduce_rows),
        cmocka_unit_test(broadcast_binops),
        cmocka_unit_test(unops_scale_transpose),
        cmocka_unit_test(sfpu_roots_sigmoid),
        cmocka_unit_test(approximate_exp_error),
        cmocka_unit_test(approximate_exp2),
        cmocka_unit_test(ref_matmul_small),
        cmocka_unit_test(attention_reference),
        cmocka_unit_test(attention_from_tiles),
        cmocka_unit_test(tolerance_accepts_and_rejects),
        cmocka_unit_test(compare_fields),
        cmocka_unit_test(compare_with_terms),
        cmocka_unit_test(fill_random_is_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
