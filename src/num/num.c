/* num.c - the simulator's numerics: storage-format rounding (bf16, bfp8_b,
 * bfp4_b), tile arithmetic with the matrix engine's fidelity phases and the
 * SFPU's approximate exp, plain fp64 references, and the tolerance model
 * results are judged by. docs/numerics.md explains every choice and names
 * the sources it rests on.
 */
#include "num/num.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- bit access ---------------------------------------------------------- */

static inline uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- bf16 ------------------------------------------------------------------ */

uint16_t num_f32_to_bf16(float f)
{
    uint32_t u = f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep sign and payload top, make it quiet */
        return (uint16_t)((u >> 16) | 0x0040u);
    /* Adding 0x7fff plus the kept LSB rounds to nearest with ties to even; a
     * carry out of the mantissa bumps the exponent, and from the largest
     * finite values lands exactly on infinity, as IEEE rounding does. The
     * encoding is monotonic, so denormals round correctly too. */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float num_bf16_to_f32(uint16_t h) { return u2f((uint32_t)h << 16); }

float num_round_bf16(float f) { return num_bf16_to_f32(num_f32_to_bf16(f)); }

/* bf16 as the packer makes it from an fp32 Dst value: round to nearest with
 * ties away from zero, denormals and -0 to +0, NaN to infinity. */
static float pack_bf16(float f)
{
    uint32_t u = f2u(f);
    uint32_t sign = u & 0x80000000u, mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u) /* NaN */
        return u2f(sign | 0x7f800000u);
    if (mag < 0x00800000u) /* zero or denormal */
        return 0.0f;
    mag += 0x8000u; /* half an ulp: ties go up in magnitude */
    if (mag > 0x7f800000u)
        mag = 0x7f800000u;
    return u2f(sign | (mag & 0xffff0000u));
}

/* ---- block floats ------------------------------------------------------------ */

/* Magnitude bits per value (sign not counted) of a block-float format. */
static int bfp_bits(arch_format f) { return f == ARCH_BFP8_B ? 7 : 3; }

/* Host-side conversion of one block of n <= 16 values (tt-metal's
 * convert_u32_to_bfp, described in docs/numerics.md): the shared exponent is
 * the largest exponent field; each significand (with its implicit one) is
 * shifted right by the exponent difference, truncating; the top `bits` bits
 * are then rounded to nearest even on the remaining bits and saturated. */
static void bfp_round_block(float *x, int n, int bits)
{
    uint32_t shared = 0;
    for (int i = 0; i < n; i++) {
        uint32_t e = (f2u(x[i]) >> 23) & 0xffu;
        if (e > shared)
            shared = e;
    }
    const int shift = 24 - bits;
    const uint32_t qmax = (1u << bits) - 1u;
    const uint32_t half = 1u << (shift - 1);
    const uint32_t mask = (1u << shift) - 1u;
    for (int i = 0; i < n; i++) {
        uint32_t u = f2u(x[i]);
        uint32_t e = (u >> 23) & 0xffu;
        if ((u & 0x7fffffffu) > 0x7f800000u)
            continue; /* NaN stays NaN so that errors surface */
        if (e == 0) { /* zero and denormals are flushed */
            x[i] = 0.0f;
            continue;
        }
        uint32_t diff = shared - e;
        uint32_t sig = diff >= 24 ? 0 : ((u & 0x7fffffu) | 0x800000u) >> diff;
        uint32_t q = sig >> shift, rem = sig & mask;
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        if (q > qmax)
            q = qmax;
        if (q == 0) {
            x[i] = 0.0f; /* the sign goes with a zero magnitude */
            continue;
        }
        /* q is in units of 2^(shared - 127 - (bits - 1)); exact in a float. */
        float v = ldexpf((float)q, (int)shared - 127 - (bits - 1));
        x[i] = (u & 0x80000000u) ? -v : v;
    }
}

/* The packer's conversion of one block of 16 values already rounded to bf16:
 * round to 7 magnitude bits with ties away from zero against the shared
 * exponent, then (bfp4_b) truncate to 3 bits. */
static void bfp_pack_block(float *x, int n, int bits)
{
    uint32_t shared = 0;
    for (int i = 0; i < n; i++) {
        uint32_t e = (f2u(x[i]) >> 23) & 0xffu;
        if (e > shared)
            shared = e;
    }
    for (int i = 0; i < n; i++) {
        uint32_t u = f2u(x[i]);
        uint32_t e = (u >> 23) & 0xffu;
        if (e == 0) {
            x[i] = 0.0f;
            continue;
        }
        /* 8 significant bits of bf16; a value at the shared exponent keeps its
         * top 7, so the shift is one more than the exponent difference. */
        uint32_t sig = ((u >> 16) & 0x7fu) | 0x80u;
        uint32_t sh = 1 + (shared - e);
        uint32_t q = sh > 9 ? 0 : (sig + (1u << (sh - 1))) >> sh;
        if (q > 127)
            q = 127;
        int b = 7;
        if (bits == 3) {
            q >>= 4;
            b = 3;
        }
        if (q == 0) {
            x[i] = 0.0f;
            continue;
        }
        float v = ldexpf((float)q, (int)shared - 127 - (b - 1));
        x[i] = (u & 0x80000000u) ? -v : v;
    }
}

void num_round_array(float *x, int64_t n, arch_format f)
{
    switch (f) {
    case ARCH_FP32:
        return;
    case ARCH_BF16:
        for (int64_t i = 0; i < n; i++)
            x[i] = num_round_bf16(x[i]);
        return;
    case ARCH_BFP8_B:
    case ARCH_BFP4_B:
        for (int64_t i = 0; i < n; i += 16)
            bfp_round_block(x + i, (int)LM_MIN(16, n - i), bfp_bits(f));
        return;
    default:
        LM_BUG("num_round_array: bad format %d", (int)f);
    }
}

/* In a row-major 32x32 tile, each face row is 16 consecutive values starting
 * at a multiple of 16, so face-row blocks are simply consecutive groups. */
void num_round_tile(float *t, arch_format f) { num_round_array(t, NUM_TILE_ELEMS, f); }

void num_pack_tile(float *t, arch_format f)
{
    if (f == ARCH_FP32)
        return;
    if ((unsigned)f >= ARCH_NFORMATS)
        LM_BUG("num_pack_tile: bad format %d", (int)f);
    for (int i = 0; i < NUM_TILE_ELEMS; i++)
        t[i] = pack_bf16(t[i]);
    if (f == ARCH_BF16)
        return;
    for (int i = 0; i < NUM_TILE_ELEMS; i += 16)
        bfp_pack_block(t + i, 16, bfp_bits(f));
}

/* ---- matrix engine ------------------------------------------------------------ */

/* Multiplier slices (docs/numerics.md, "Fidelity"). SrcB (in0) offers the
 * implicit one and 6 mantissa bits, then the next 4; SrcA (in1) the implicit
 * one and 4 bits, then the next 5. Bits below the second slice never reach a
 * multiplier. Masking the fp32 bit pattern keeps sign and exponent. */
enum {
    SRCB_HI = 0xfffe0000u,   /* sign, exponent, mantissa bits 22..17 */
    SRCB_FULL = 0xffffe000u, /* ... and 16..13 */
    SRCA_HI = 0xfff80000u,   /* sign, exponent, mantissa bits 22..19 */
    SRCA_FULL = 0xffffc000u, /* ... and 18..14 */
};

static void mask_tile(float *dst, const float *src, uint32_t mask)
{
    for (int i = 0; i < NUM_TILE_ELEMS; i++)
        dst[i] = u2f(f2u(src[i]) & mask);
}

/* dst[i][:] += sum over k of ra[i][k] * rb[k][:], in k order. */
static void mm_one(float *restrict dst, const float *restrict ra, const float *restrict rb)
{
    for (int i = 0; i < NUM_TILE; i++) {
        float *restrict d = dst + i * NUM_TILE;
        for (int k = 0; k < NUM_TILE; k++) {
            const float av = ra[i * NUM_TILE + k];
            const float *restrict br = rb + k * NUM_TILE;
            for (int j = 0; j < NUM_TILE; j++)
                d[j] += av * br[j];
        }
    }
}

void num_tile_matmul_acc(float *dst, const float *a, const float *b, arch_fidelity fid)
{
    LM_ASSERT(dst != a && dst != b);
    float ah[NUM_TILE_ELEMS], bx[NUM_TILE_ELEMS];
    switch (fid) {
    case ARCH_LOFI: /* phase 0 */
        mask_tile(ah, a, SRCB_HI);
        mask_tile(bx, b, SRCA_HI);
        mm_one(dst, ah, bx);
        return;
    case ARCH_HIFI2: /* phases 0 and 1: both of b's slices against a's top */
        mask_tile(ah, a, SRCB_HI);
        mask_tile(bx, b, SRCA_FULL);
        mm_one(dst, ah, bx);
        return;
    case ARCH_HIFI4: /* all four phases: the product of the full slices */
        mask_tile(ah, a, SRCB_FULL);
        mask_tile(bx, b, SRCA_FULL);
        mm_one(dst, ah, bx);
        return;
    case ARCH_HIFI3: { /* phases 0, 1, 2: a_hi * b_full + a_lo * b_hi */
        float al[NUM_TILE_ELEMS], bh[NUM_TILE_ELEMS];
        mask_tile(ah, a, SRCB_HI);
        mask_tile(al, a, SRCB_FULL);
        for (int i = 0; i < NUM_TILE_ELEMS; i++)
            al[i] -= ah[i]; /* exact: the low slice of the same number */
        mask_tile(bx, b, SRCA_FULL);
        mask_tile(bh, b, SRCA_HI);
        for (int i = 0; i < NUM_TILE; i++) {
            float *restrict d = dst + i * NUM_TILE;
            for (int k = 0; k < NUM_TILE; k++) {
                const float hv = ah[i * NUM_TILE + k], lv = al[i * NUM_TILE + k];
                const float *restrict bf = bx + k * NUM_TILE, *restrict bl = bh + k * NUM_TILE;
                for (int j = 0; j < NUM_TILE; j++) {
                    /* Both partial products and their sum fit in 24 bits, so
                     * the product is exact and only the accumulation rounds. */
                    float p = hv * bf[j] + lv * bl[j];
                    d[j] += p;
                }
            }
        }
        return;
    }
    default:
        LM_BUG("num_tile_matmul_acc: bad fidelity %d", (int)fid);
    }
}

void num_tile_transpose(float *dst, const float *a)
{
    float t[NUM_TILE_ELEMS];
    for (int i = 0; i < NUM_TILE; i++)
        for (int j = 0; j < NUM_TILE; j++)
            t[j * NUM_TILE + i] = a[i * NUM_TILE + j];
    memcpy(dst, t, sizeof t);
}

/* ---- element-wise ---------------------------------------------------------------- */

void num_tile_binop(float *dst, const float *a, const float *b, num_binop op, num_bcast bc)
{
    float bb[NUM_TILE_ELEMS];
    for (int i = 0; i < NUM_TILE; i++)
        for (int j = 0; j < NUM_TILE; j++) {
            int src;
            switch (bc) {
            case NUM_BCAST_NONE: src = i * NUM_TILE + j; break;
            case NUM_BCAST_COL: src = i * NUM_TILE; break;
            case NUM_BCAST_ROW: src = j; break;
            case NUM_BCAST_SCALAR: src = 0; break;
            default: LM_BUG("num_tile_binop: bad broadcast %d", (int)bc);
            }
            bb[i * NUM_TILE + j] = b[src];
        }
    for (int i = 0; i < NUM_TILE_ELEMS; i++) {
        float x = a[i], y = bb[i];
        switch (op) {
        case NUM_ADD: dst[i] = x + y; break;
        case NUM_SUB: dst[i] = x - y; break;
        case NUM_MUL: dst[i] = x * y; break;
        case NUM_MAXOP: dst[i] = fmaxf(x, y); break;
        default: LM_BUG("num_tile_binop: bad op %d", (int)op);
        }
    }
}

/* The SFPU's fast approximate exp (docs/numerics.md, "Approximate exp"):
 * t = x * 2^8/ln 2 + (127 * 2^8 - 11.2), rounded to an unsigned 16-bit
 * integer, is the top 16 bits of the fp32 result: 8 exponent bits and 7
 * mantissa bits read as a linear interpolation of 2^frac. The constant 11.2
 * centres the interpolation error at about +-3%. Inputs below -88.5 are
 * clamped there (the result is then 0). The product x * A is exact in
 * double and the sum is rounded once, so the result does not depend on
 * whether the compiler fuses the multiply-add. */
/* The algorithm with the input scale s folded into its constants, as the
 * LLK does for exp(s x) (tenstorrent/tt-llk pull 211): A' = A s and the
 * clamp -88.5 / s, both rounded to fp32 like the host-side constants. */
static float exp_approx_scaled(float x, double s)
{
    if (isnan(x))
        return x;
    const double A = (double)(float)(369.329925537109375 * s); /* 2^8 / ln 2 in fp32, times s */
    const float lo = (float)(-88.5 / s);
    if (x < lo)
        x = lo;
    const double BC = 32500.818359375; /* 127 * 2^8 - 11.18, in fp32 */
    double t = A * (double)x + BC;
    if (!(t > 0.0))
        return 0.0f;
    if (t >= 65535.0)
        return INFINITY;
    uint32_t q = (uint32_t)nearbyint(t);
    if ((q >> 8) >= 255)
        return INFINITY; /* exponent field all ones: the result overflowed */
    return u2f(q << 15);
}

float num_exp_approx(float x) { return exp_approx_scaled(x, 1.0); }

/* 2^x = exp(x ln 2): the same SFPU pass with ln 2 folded in (A' = 2^8). */
float num_exp2_approx(float x) { return exp_approx_scaled(x, (double)0.693147182464599609375f); }

void num_tile_unop(float *dst, const float *a, num_unop op)
{
    for (int i = 0; i < NUM_TILE_ELEMS; i++) {
        float x = a[i];
        switch (op) {
        case NUM_EXP: dst[i] = expf(x); break;
        case NUM_EXP_APPROX: dst[i] = num_exp_approx(x); break;
        case NUM_EXP2: dst[i] = exp2f(x); break;
        case NUM_EXP2_APPROX: dst[i] = num_exp2_approx(x); break;
        case NUM_LOG: dst[i] = logf(x); break;
        case NUM_RECIP: dst[i] = 1.0f / x; break;
        case NUM_NEG: dst[i] = -x; break;
        case NUM_SQRT: dst[i] = sqrtf(x); break;
        case NUM_RSQRT: dst[i] = (float)(1.0 / sqrt((double)x)); break;
        case NUM_SIGMOID: dst[i] = (float)(1.0 / (1.0 + exp(-(double)x))); break;
        default: LM_BUG("num_tile_unop: bad op %d", (int)op);
        }
    }
}

void num_tile_scale(float *dst, const float *a, float s)
{
    for (int i = 0; i < NUM_TILE_ELEMS; i++)
        dst[i] = a[i] * s;
}

void num_tile_reduce_row(float *dst, const float *a, num_reduce r, bool accumulate)
{
    float col[NUM_TILE];
    for (int i = 0; i < NUM_TILE; i++) {
        const float *row = a + i * NUM_TILE;
        float v = row[0];
        for (int j = 1; j < NUM_TILE; j++) {
            if (r == NUM_RED_MAX)
                v = fmaxf(v, row[j]);
            else if (r == NUM_RED_SUM)
                v += row[j];
            else
                LM_BUG("num_tile_reduce_row: bad reduction %d", (int)r);
        }
        if (accumulate) {
            float old = dst[i * NUM_TILE];
            v = r == NUM_RED_MAX ? fmaxf(old, v) : old + v;
        }
        col[i] = v;
    }
    /* Written after all rows are read, so dst may be a. */
    for (int i = 0; i < NUM_TILE; i++) {
        dst[i * NUM_TILE] = col[i];
        for (int j = 1; j < NUM_TILE; j++)
            dst[i * NUM_TILE + j] = 0.0f;
    }
}

/* ---- references ------------------------------------------------------------------ */

void num_ref_matmul(int64_t M, int64_t N, int64_t K, const float *A, const float *B, float *C)
{
    double *acc = lm_xmalloc(sizeof(double) * (size_t)(N > 0 ? N : 1));
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++)
            acc[j] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            const double av = A[i * K + k];
            const float *br = B + k * N;
            for (int64_t j = 0; j < N; j++)
                acc[j] += av * br[j];
        }
        for (int64_t j = 0; j < N; j++)
            C[i * N + j] = (float)acc[j];
    }
    free(acc);
}

/* Causal masking is top-left aligned: query i sees keys 0..i whatever SK
 * is, as in a lower-triangular mask of an SQ x SK score matrix. */
void num_ref_attention(int64_t B, int64_t H, int64_t HKV, int64_t SQ, int64_t SK, int64_t D,
                       const float *Q, const float *K, const float *V, float scale,
                       bool causal, float *O)
{
    LM_ASSERT(HKV > 0 && H % HKV == 0);
    const int64_t group = H / HKV;
    double *s = lm_xmalloc(sizeof(double) * (size_t)(SK > 0 ? SK : 1));
    double *o = lm_xmalloc(sizeof(double) * (size_t)(D > 0 ? D : 1));
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < H; h++) {
            const int64_t hk = h / group;
            const float *q0 = Q + ((b * H + h) * SQ) * D;
            const float *k0 = K + ((b * HKV + hk) * SK) * D;
            const float *v0 = V + ((b * HKV + hk) * SK) * D;
            float *o0 = O + ((b * H + h) * SQ) * D;
            for (int64_t i = 0; i < SQ; i++) {
                const float *q = q0 + i * D;
                int64_t nk = causal ? LM_MIN(i + 1, SK) : SK;
                double m = -INFINITY;
                for (int64_t j = 0; j < nk; j++) {
                    const float *kr = k0 + j * D;
                    double dot = 0.0;
                    for (int64_t d = 0; d < D; d++)
                        dot += (double)q[d] * kr[d];
                    s[j] = (double)scale * dot;
                    if (s[j] > m)
                        m = s[j];
                }
                double sum = 0.0;
                for (int64_t d = 0; d < D; d++)
                    o[d] = 0.0;
                for (int64_t j = 0; j < nk; j++) {
                    double p = exp(s[j] - m);
                    sum += p;
                    const float *vr = v0 + j * D;
                    for (int64_t d = 0; d < D; d++)
                        o[d] += p * vr[d];
                }
                for (int64_t d = 0; d < D; d++)
                    o0[i * D + d] = nk > 0 ? (float)(o[d] / sum) : 0.0f;
            }
        }
    free(s);
    free(o);
}

/* ---- comparison ------------------------------------------------------------------ */

num_cmp num_compare(const float *got, const float *ref, int64_t n)
{
    return num_compare_terms(got, ref, NULL, n);
}

/* The scale an element's error is measured against: the larger of `base`
 * and its term scale, when that is known and finite. */
static double with_terms(double base, const float *terms, int64_t i)
{
    return terms && isfinite(terms[i]) ? fmax(base, (double)terms[i]) : base;
}

num_cmp num_compare_terms(const float *got, const float *ref, const float *terms, int64_t n)
{
    num_cmp c = {0};
    double ss = 0.0;
    int64_t nf = 0;
    for (int64_t i = 0; i < n; i++)
        if (isfinite(ref[i])) {
            ss += (double)ref[i] * ref[i];
            nf++;
        }
    c.ref_rms = nf ? sqrt(ss / (double)nf) : 0.0;
    /* An all-zero reference still needs a positive floor. */
    const double flo = c.ref_rms > 0.0 ? c.ref_rms : 1e-30;
    for (int64_t blk = 0; blk < n; blk += 16) {
        int64_t end = LM_MIN(blk + 16, n);
        double bmax = 0.0;
        for (int64_t i = blk; i < end; i++)
            if (isfinite(ref[i]))
                bmax = fmax(bmax, fabs((double)ref[i]));
        bmax = fmax(bmax, flo);
        for (int64_t i = blk; i < end; i++) {
            if (!isfinite(ref[i]))
                continue; /* nothing to compare against */
            if (!isfinite(got[i])) {
                c.nonfinite++;
                continue;
            }
            double err = fabs((double)got[i] - (double)ref[i]);
            double rel = err / with_terms(fmax(fabs((double)ref[i]), flo), terms, i);
            double relb = err / with_terms(bmax, terms, i);
            if (err > c.max_abs)
                c.max_abs = err;
            if (rel > c.max_rel) {
                c.max_rel = rel;
                c.worst_index = i;
            }
            if (relb > c.max_rel_block) {
                c.max_rel_block = relb;
                c.worst_block_index = i;
            }
        }
    }
    return c;
}

/* Unit roundoff of the storage format: relative to the value for fp32 and
 * bf16, relative to the block's largest magnitude for block floats. */
static double unit_roundoff(arch_format f)
{
    switch (f) {
    case ARCH_FP32: return ldexp(1.0, -24);
    case ARCH_BF16: return ldexp(1.0, -8);
    case ARCH_BFP8_B: return ldexp(1.0, -7);
    case ARCH_BFP4_B: return ldexp(1.0, -3);
    default: LM_BUG("bad format %d", (int)f);
    }
}

/* Largest relative error of one product of bf16 operands at a fidelity. */
static double fidelity_error(arch_fidelity fid)
{
    switch (fid) {
    case ARCH_LOFI: return ldexp(1.0, -4);  /* in1 keeps 5 of 8 bits, in0 7 of 8 */
    case ARCH_HIFI2: return ldexp(1.0, -7); /* in0 keeps 7 of 8 bits */
    case ARCH_HIFI3: return ldexp(1.0, -11); /* only a_lo * b_lo is missing */
    case ARCH_HIFI4: return 0.0;
    default: LM_BUG("bad fidelity %d", (int)fid);
    }
}

double num_tolerance(arch_format f, int64_t k_depth, arch_fidelity fid)
{
    double k = k_depth > 1 ? (double)k_depth : 1.0;
    return 2.0 * unit_roundoff(f) + 3.0 * fidelity_error(fid) + k * ldexp(1.0, -24);
}

/* Each of the `packs` roundings of a partial sum S_j errs by at most half an
 * ulp, rms at most u_p / sqrt(3) of |S_j|; with random signs S_j has rms
 * sqrt(j / (packs + 1)) of rms(ref), so the errors add up to an rms of
 * u_p sqrt(packs / 2) / sqrt(3) of rms(ref). The largest over an output is
 * further out than for a plain walk, because the walks of some elements
 * wander far: docs/numerics.md, hence 5. */
double num_tolerance_packed(arch_format f, int64_t k_depth, arch_fidelity fid, arch_format partials, int64_t packs)
{
    double p = packs > 0 ? 5.0 * unit_roundoff(partials) * sqrt((double)packs / 2.0) : 0.0;
    return num_tolerance(f, k_depth, fid) + p;
}

bool num_within_tolerance_fid(const num_cmp *c, arch_format f, int64_t k_depth, arch_fidelity fid)
{
    if (c->nonfinite > 0)
        return false;
    double tol = num_tolerance(f, k_depth, fid);
    double got = (f == ARCH_BFP8_B || f == ARCH_BFP4_B) ? c->max_rel_block : c->max_rel;
    return got <= tol;
}

bool num_within_tolerance(const num_cmp *c, arch_format f, int64_t k_depth)
{
    return num_within_tolerance_fid(c, f, k_depth, ARCH_HIFI4);
}

/* ---- random fill ---------------------------------------------------------------- */

/* splitmix64 of (seed, index): each value depends only on its position, so
 * the fill is the same on every platform and for any split of the array. */
static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void num_fill_random(float *x, int64_t n, uint64_t seed, arch_format f)
{
    uint64_t base = splitmix64(seed);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(base + (uint64_t)i * 0x9e3779b97f4a7c15ull);
        /* 24 random bits: an exact float in [-1, 1). */
        x[i] = (float)(int32_t)(r >> 40) * 0x1p-23f - 1.0f;
    }
    num_round_array(x, n, f);
}
