/* num.h - numerics of the simulator's functional mode: storage formats
 * (bf16 with round-to-nearest-even, block floats bfp8_b / bfp4_b), tile
 * arithmetic as the chip does it (fp32 accumulation), and plain reference
 * implementations of the kernels loomc compiles, to check results against.
 *
 * A tile is 32 x 32 floats, row-major. Values held in a tile of storage
 * format F have already been rounded to F (num_round_tile).
 * docs/numerics.md gives the sources and the error model behind each choice.
 */
#ifndef LOOMC_NUM_H
#define LOOMC_NUM_H

#include "arch/arch.h"

enum { NUM_TILE = 32, NUM_TILE_ELEMS = 32 * 32 };

/* ---- formats ------------------------------------------------------------ */
uint16_t num_f32_to_bf16(float f); /* round to nearest even; NaN stays NaN */
float num_bf16_to_f32(uint16_t h);
float num_round_bf16(float f);
/* Round a tile in place to a storage format. Block floats share one 8-bit
 * exponent per 16 consecutive values of a face row, with 7 (bfp8_b) or 3
 * (bfp4_b) mantissa bits and a sign. */
void num_round_tile(float *t, arch_format f);
/* The same for a row-major array: blocks are 16 consecutive values (the face
 * rows of the tiles when the row length is a multiple of 16); a last, shorter
 * group is its own block. Host-side conversion: alignment shift truncates,
 * then the kept mantissa rounds to nearest even and saturates. */
void num_round_array(float *x, int64_t n, arch_format f);
/* Round a tile in place as the packer does when it writes Dst to L1:
 * bf16 rounds to nearest with ties away from zero (denormals and -0 become
 * +0, NaN becomes infinity); bfp8_b goes through bf16, then rounds to nearest
 * with ties away; bfp4_b goes through bfp8_b, then truncates. */
void num_pack_tile(float *t, arch_format f);

/* ---- tile ops (fp32 arithmetic on values already in storage format) ------ */
/* dst += a * b (32x32x32), accumulated in fp32 in k order. `fid` emulates
 * the fidelity phases: a (in0) sits in SrcB, whose multiplier input is the
 * implicit one and 6 mantissa bits, b (in1) in SrcA with the implicit one and
 * 4 bits. LoFi multiplies those slices only; HiFi2 adds b's next 5 bits,
 * HiFi3 a's next 4 bits times b's top slice, HiFi4 all four partial products,
 * which is the exact product of bf16 (and bfp) operands. dst must not alias
 * a or b. */
void num_tile_matmul_acc(float *dst, const float *a, const float *b, arch_fidelity fid);
/* dst += a^T-free transpose helper: dst = a^T. */
void num_tile_transpose(float *dst, const float *a);

typedef enum num_binop { NUM_ADD, NUM_SUB, NUM_MUL, NUM_MAXOP } num_binop;
typedef enum num_unop {
    NUM_EXP,      /* exact exp */
    NUM_EXP_APPROX, /* the chip's approximate exp */
    NUM_EXP2,
    NUM_EXP2_APPROX, /* the same approximate pass with ln 2 folded into its scale */
    NUM_LOG,
    NUM_RECIP,
    NUM_NEG,
    NUM_SQRT,    /* the SFPU's accurate modes, as exact fp32 functions (docs/numerics.md) */
    NUM_RSQRT,
    NUM_SIGMOID, /* 1 / (1 + exp(-x)) */
} num_unop;
/* Broadcast of operand b: none, b's column 0 across columns (a per-row
 * scalar), or b's row 0 across rows (a per-column scalar). */
typedef enum num_bcast { NUM_BCAST_NONE, NUM_BCAST_COL, NUM_BCAST_ROW, NUM_BCAST_SCALAR } num_bcast;

void num_tile_binop(float *dst, const float *a, const float *b, num_binop op, num_bcast bc);
void num_tile_unop(float *dst, const float *a, num_unop op);
/* The chip's approximate exp (the SFPU's fast approximate mode) on one value. */
float num_exp_approx(float x);
/* 2^x by that approximation: exp(x ln 2) with the scale folded in. */
float num_exp2_approx(float x);
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
    double max_rel;      /* largest |got - ref| / max(|ref|, floor[, terms]), floor = ref_rms */
    int64_t worst_index; /* where max_rel occurred */
    int64_t nonfinite;   /* NaN/Inf in got where ref is finite */
    double ref_rms;      /* root mean square of the finite values of ref */
    double max_rel_block; /* largest |got - ref| / max(block max of |ref|, ref_rms),
                             blocks as in num_round_array */
    int64_t worst_block_index; /* where max_rel_block occurred */
} num_cmp;
num_cmp num_compare(const float *got, const float *ref, int64_t n);
/* The same with each element's error also measured against its term scale
 * terms[i] (NULL: none): the scale is max(|ref_i|, ref_rms, terms[i]) for
 * max_rel and max(block max of |ref|, ref_rms, terms[i]) for max_rel_block.
 * A term scale that is not finite is ignored. docs/numerics.md, "Comparing
 * results". */
num_cmp num_compare_terms(const float *got, const float *ref, const float *terms, int64_t n);
/* Tolerance check for results stored in `f` after `k_depth` accumulations of
 * exact products (HiFi4, or a fidelity that is exact for the inputs' format). */
bool num_within_tolerance(const num_cmp *c, arch_format f, int64_t k_depth);
/* The same for products of bf16 inputs made at fidelity `fid`. */
bool num_within_tolerance_fid(const num_cmp *c, arch_format f, int64_t k_depth, arch_fidelity fid);
/* The bound both use: the largest allowed max_rel (bf16, fp32) or
 * max_rel_block (bfp8_b, bfp4_b). */
double num_tolerance(arch_format f, int64_t k_depth, arch_fidelity fid);
/* The same when the partial sums were rounded `packs` times to format
 * `partials` on the way (K blocks accumulated through a bf16 buffer). */
double num_tolerance_packed(arch_format f, int64_t k_depth, arch_fidelity fid, arch_format partials, int64_t packs);

/* Deterministic pseudo-random fill in [-1, 1), rounded to format f. */
void num_fill_random(float *x, int64_t n, uint64_t seed, arch_format f);

#endif
