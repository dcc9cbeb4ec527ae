/* num.h - numerics of the simulator's functional mode: storage formats
 * (bf16 with round-to-nearest-even, block floats bfp8_b / bfp4_b), tile
 * arithmetic as the chip does it (fp32 accumulation), and plain reference
 * implementations of the kernels loomc compiles, to check results against.
 *
 * A tile is 32 x 32 floats, row-major. Values held in a tile of storage
 * format F have already been rounded to F (num_round_tile).
 */
#ifndef LOOMC_NUM_H
#define LOOMC_NUM_H

#include "../arch/arch.h"

enum { NUM_TILE = 32, NUM_TILE_ELEMS = 32 * 32 };

/* ---- formats ------------------------------------------------------------ */
uint16_t num_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */
float num_bf16_to_f32(uint16_t h);
float num_round_bf16(float f);
/* Round a tile in place to a storage format. Block floats share one 8-bit
 * exponent per 16 consecutive values of a face row, with 7 (bfp8_b) or 3
 * (bfp4_b) mantissa bits and a sign. */
void num_round_tile(float *t, arch_format f);

/* ---- tile ops (fp32 arithmetic on values already in storage format) ------ */
/* dst += a * b (32x32x32), accumulated in fp32. `fid` emulates the
 * fidelity: LoFi multiplies with truncated operands (5 x 7 mantissa bits),
 * HiFi4 is exact fp32 products. */
void num_tile_matmul_acc(float *dst, const float *a, const float *b, arch_fidelity fid);
/* dst += a^T-free transpose helper: dst = a^T. */
void num_tile_transpose(float *dst, const float *a);

typedef enum num_binop { NUM_ADD, NUM_SUB, NUM_MUL, NUM_MAXOP } num_binop;
typedef enum num_unop {
    NUM_EXP,      /* exact exp */
    NUM_EXP_APPROX, /* the chip's approximate exp */
    NUM_EXP2,
    NUM_LOG,
    NUM_RECIP,
    NUM_NEG,
} num_unop;
/* Broadcast of operand b: none, b's column 0 across columns (a per-row
 * scalar), or b's row 0 across rows (a per-column scalar). */
typedef enum num_bcast { NUM_BCAST_NONE, NUM_BCAST_COL, NUM_BCAST_ROW, NUM_BCAST_SCALAR } num_bcast;

void num_tile_binop(float *dst, const float *a, const float *b, num_binop op, num_bcast bc);
void num_tile_unop(float *dst, const float *a, num_unop op);
void num_tile_scale(float *dst, const float *a, float s);
/* Row reduction: dst column 0 gets max/sum over each row of a (combined with
 * dst's column 0 when `accumulate`); other columns are zero. */
typedef enum num_reduce { NUM_RED_MAX, NUM_RED_SUM } num_reduce;
void num_tile_reduce_row(float *dst, const float *a, num_reduce r, bool accumulate);

/* ---- reference implementations (plain loops, fp64 accumulation) -------- */
/* C[M,N] = A[M,K] * B[K,N], all row-major. */
void num_ref_matmul(int64_t M, int64_t N, int64_t K, const float *A, const float *B, float *C);
/* O[B,H,S,D] = softmax(scale * Q K^T (+ causal mask)) V, with K/V heads shared
 * by H/HKV query heads (HKV == H for plain attention). Q,K,V row-major. */
void num_ref_attention(int64_t B, int64_t H, int64_t HKV, int64_t SQ, int64_t SK, int64_t D,
                       const float *Q, const float *K, const float *V, float scale,
                       bool causal, float *O);

/* ---- comparison --------------------------------------------------------- */
typedef struct num_cmp {
    double max_abs;      /* largest |got - ref| */
    double max_rel;      /* largest |got - ref| / max(|ref|, floor) */
    int64_t worst_index; /* where max_rel occurred */
    int64_t nonfinite;   /* NaN/Inf in got where ref is finite */
} num_cmp;
num_cmp num_compare(const float *got, const float *ref, int64_t n);
/* Tolerance check for results stored in `f` after `k_depth` accumulations. */
bool num_within_tolerance(const num_cmp *c, arch_format f, int64_t k_depth);

/* Deterministic pseudo-random fill in [-1, 1), rounded to format f. */
void num_fill_random(float *x, int64_t n, uint64_t seed, arch_format f);

#endif
