/* tir_interp.c - the reference interpreter of the Tile IR (tir_interp.h).
 *
 * It defines what a kernel computes, so it favours being obviously right
 * over being fast, while staying quick enough for medium shapes (a 512^3
 * GEMM, small attention) that `loomc run --check` compares against:
 *  - each SSA value owns one heap buffer, sized once from its type's shape
 *    (shapes are constexpr expressions, evaluated before the first program)
 *    and reused by every program and every loop iteration, so nothing is
 *    allocated per element or per op execution;
 *  - integer and i1 tiles are int64 arrays, float tiles float arrays whose
 *    values are always representable in the tile's type (bf16/f16 results
 *    are rounded as they are made), pointer tiles are int64 element offsets
 *    into one tensor;
 *  - loop-carried values are copied into the iteration's arguments, never
 *    aliased, because the body overwrites its own results on the next trip.
 * Integer scalars are also compared with their symbolic values: the access
 * analysis and the scheduler reason with those symbols only, so a mismatch
 * (a wrong inference, an i32 overflow) would make the generated program
 * differ from the kernel for reasons no numeric tolerance could explain.
 */
#include "ir/tir_interp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "num/num.h"

/* Tiles beyond this many elements are not a reference-sized problem. */
#define MAX_TILE_ELEMS ((int64_t)1 << 28)
#define MAX_TENSOR_ELEMS ((int64_t)1 << 32)
#define MAX_TRIPS ((int64_t)1 << 31)

/* Where a block pointer or descriptor points: an element offset into a
 * tensor plus the per-dimension view the kernel declared. */
typedef struct xblk {
    int64_t base;
    int64_t shape[TIR_MAX_RANK], strides[TIR_MAX_RANK], offs[TIR_MAX_RANK];
} xblk;

typedef struct xv {
    tir_kind kind;
    tir_elem elem;
    int rank;
    int64_t shape[TIR_MAX_RANK];
    int64_t n;     /* element count (1 for scalars) */
    bool isint;    /* data lives in i (integer tiles, pointer offsets), else in f */
    void *buf;
    size_t cap;    /* bytes of buf */
    float *f;
    int64_t *i;
    float *t;      /* term scales of a float tile's elements (tirx_opts.terms), else NULL */
    bool has_t;    /* the run carries t for this value */
    int tensor;    /* PTR, BPTR, DESC: index into the tensor array */
    xblk blk;      /* BPTR, DESC */
} xv;

typedef struct xrun {
    const tir_func *f;
    tirx_tensor *ts;
    int nts;
    xv *vals; /* by uid */
    int nvals;
    sym_env env; /* the caller's values plus pid.N and iv.N */
    const sym_expr *pidvar[TIR_MAX_GRID];
    int64_t grid[TIR_MAX_GRID], pid[TIR_MAX_GRID];
    bool in_program;
    double *dbuf; /* dot scratch */
    size_t dcap;
    lm_buf *why;
    bool bad;
    float (*exp)(float), (*exp2)(float); /* tl.exp, tl.exp2 */
    bool terms;                          /* carry term scales (tirx_opts.terms) */
} xrun;

/* ---- errors -------------------------------------------------------------- */

static bool fail(xrun *x, const tir_op *op, const char *fmt, ...) LM_PRINTF(3, 4);
static bool fail(xrun *x, const tir_op *op, const char *fmt, ...)
{
    if (x->bad)
        return false;
    x->bad = true;
    if (!x->why)
        return false;
    lm_buf_printf(x->why, "@%s", x->f->name);
    if (x->in_program) {
        lm_buf_puts(x->why, ", program (");
        int r = x->f->grid_rank > 0 ? x->f->grid_rank : 1;
        for (int i = 0; i < r; i++)
            lm_buf_printf(x->why, i ? ", %lld" : "%lld", (long long)x->pid[i]);
        lm_buf_putc(x->why, ')');
    }
    lm_buf_puts(x->why, ": ");
    if (op) {
        lm_buf_printf(x->why, "op '%s'", tir_op_name(op->code));
        if (op->loc.file && op->loc.line > 0)
            lm_buf_printf(x->why, " (from %s:%d:%d)", op->loc.file, op->loc.line, op->loc.col);
        lm_buf_puts(x->why, ": ");
    }
    va_list ap;
    va_start(ap, fmt);
    lm_buf_vprintf(x->why, fmt, ap);
    va_end(ap);
    return false;
}

/* The first variable of e without a value, for messages. */
static const char *unbound_name(const sym_expr *e, const sym_env *env)
{
    const sym_expr *vs[32];
    int n = sym_vars(e, vs, (int)LM_COUNT(vs));
    for (int i = 0; i < n && i < (int)LM_COUNT(vs); i++) {
        int64_t lo, hi;
        if (!env || !sym_env_get(env, vs[i], &lo, &hi) || lo != hi)
            return vs[i]->name;
    }
    return "?";
}

static bool eval_sym(xrun *x, const tir_op *op, const sym_expr *e, const sym_env *env, int64_t *out,
                     const char *what)
{
    switch (sym_eval(e, env, out)) {
    case SYM_OK: return true;
    case SYM_UNBOUND: return fail(x, op, "%s depends on '%s', which has no value", what, unbound_name(e, env));
    case SYM_DIV_ZERO: return fail(x, op, "%s divides by zero", what);
    case SYM_OVERFLOW: return fail(x, op, "%s overflows 64 bits", what);
    }
    return fail(x, op, "%s cannot be evaluated", what);
}

/* ---- element types ------------------------------------------------------- */

/* float -> IEEE half -> float, round to nearest even, with subnormals and
 * overflow to infinity. Scaling by powers of two is exact, so rintf (which
 * rounds to nearest even in the default mode) does the rounding. */
static float round_f16(float v)
{
    if (!isfinite(v) || v == 0.0f)
        return v;
    float a = fabsf(v);
    if (a >= 65520.0f) /* halfway between 65504 and 2^16 rounds to even: 2^16 */
        return copysignf(INFINITY, v);
    int e;
    frexpf(a, &e);         /* a = m * 2^e, 0.5 <= m < 1: leading bit 2^(e-1) */
    int q = e - 1 - 10;    /* 10 fraction bits */
    if (q < -24)           /* subnormals share the quantum 2^-24 */
        q = -24;
    return copysignf(ldexpf(rintf(ldexpf(a, -q)), q), v);
}

/* Two's-complement wrap of an integer result to its type's width. */
static int64_t wrap(tir_elem e, int64_t v)
{
    switch (e) {
    case TIR_I1: return v & 1;
    case TIR_I32: {
        uint32_t u = (uint32_t)(uint64_t)v;
        return u >= 0x80000000u ? (int64_t)u - ((int64_t)1 << 32) : (int64_t)u;
    }
    default: return v;
    }
}

/* float -> integer: truncation toward zero, saturating at the type's range
 * (as the GPU's conversion does); NaN gives 0; i1 is v != 0. */
static int64_t f2i(tir_elem e, float v)
{
    if (e == TIR_I1)
        return v != 0.0f;
    if (isnan(v))
        return 0;
    double t = trunc((double)v);
    double lo = e == TIR_I32 ? -2147483648.0 : -9223372036854775808.0;
    double hi = e == TIR_I32 ? 2147483647.0 : 9223372036854775807.0;
    if (t <= lo)
        return e == TIR_I32 ? INT32_MIN : INT64_MIN;
    if (t >= hi)
        return e == TIR_I32 ? INT32_MAX : INT64_MAX;
    return (int64_t)t;
}

float tirx_round(tir_elem e, float v)
{
    switch (e) {
    case TIR_BF16: return num_round_bf16(v);
    case TIR_F16: return round_f16(v);
    case TIR_F32: return v;
    default: return (float)f2i(e, v);
    }
}

static void round_array(tir_elem e, float *p, int64_t n)
{
    if (e == TIR_BF16)
        for (int64_t k = 0; k < n; k++)
            p[k] = num_round_bf16(p[k]);
    else if (e == TIR_F16)
        for (int64_t k = 0; k < n; k++)
            p[k] = round_f16(p[k]);
}

/* Python semantics, as the symbolic values use (sym.h). */
static float fmod_py(float a, float b)
{
    float m = fmodf(a, b);
    if (m != 0.0f && ((m < 0.0f) != (b < 0.0f)))
        m += b;
    return m;
}

/* ---- tensors ------------------------------------------------------------- */

static bool eval_shape(const sym_expr *const *shape, int rank, const sym_env *values, int64_t *out,
                       int64_t limit, int64_t *numel, lm_buf *why, const char *what)
{
    int64_t n = 1;
    for (int d = 0; d < rank; d++) {
        sym_status st = sym_eval(shape[d], values, &out[d]);
        if (st != SYM_OK) {
            if (why) {
                lm_buf_printf(why, "%s: size %d (", what, d);
                sym_print(why, shape[d]);
                if (st == SYM_UNBOUND)
                    lm_buf_printf(why, ") depends on '%s', which has no value", unbound_name(shape[d], values));
                else
                    lm_buf_puts(why, ") cannot be evaluated");
            }
            return false;
        }
        if (out[d] < 0 || !lm_mul_ok(n, out[d], &n) || n > limit) {
            if (why)
                lm_buf_printf(why, "%s: size %d is %lld, which is negative or too large", what, d,
                              (long long)out[d]);
            return false;
        }
    }
    *numel = n;
    return true;
}

bool tirx_tensor_init(tirx_tensor *x, const tir_tensor *t, const sym_env *values, lm_buf *why)
{
    memset(x, 0, sizeof *x);
    x->t = t;
    if (t->rank < 0 || t->rank > TIR_MAX_RANK) {
        if (why)
            lm_buf_printf(why, "tensor '%s': rank %d is not supported", t->name, t->rank);
        return false;
    }
    x->rank = t->rank;
    char what[160];
    snprintf(what, sizeof what, "tensor '%s'", t->name);
    if (!eval_shape(t->shape, t->rank, values, x->shape, MAX_TENSOR_ELEMS, &x->numel, why, what))
        return false;
    x->data = lm_xcalloc((size_t)(x->numel > 0 ? x->numel : 1), sizeof(float));
    x->owned = true;
    return true;
}

void tirx_tensor_free(tirx_tensor *x)
{
    if (x->owned)
        free(x->data);
    free(x->terms);
    x->terms = NULL;
    x->data = NULL;
    x->owned = false;
}

tirx_tensor *tirx_find(tirx_tensor *ts, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (ts[i].t && strcmp(ts[i].t->name, name) == 0)
            return &ts[i];
    return NULL;
}

void tirx_tensor_fill_random(tirx_tensor *x, uint64_t seed)
{
    num_fill_random(x->data, x->numel, seed, ARCH_FP32);
    tir_elem e = x->t ? x->t->elem : TIR_F32;
    if (tir_elem_is_int(e)) {
        for (int64_t k = 0; k < x->numel; k++)
            x->data[k] = e == TIR_I1 ? (float)(x->data[k] >= 0.0f) : floorf(x->data[k] * 4.0f);
    } else {
        round_array(e, x->data, x->numel);
    }
}

/* ---- values -------------------------------------------------------------- */

#define VAL(x, v) (&(x)->vals[(v)->uid])

/* Make room for v's elements (its shape is fixed from setup). */
static void need(xv *v)
{
    size_t n = (size_t)(v->n > 0 ? v->n : 1);
    /* the term scales follow the values in the same buffer */
    size_t bytes = n * (v->isint ? sizeof(int64_t) : sizeof(float)) * (v->has_t ? 2 : 1);
    if (bytes > v->cap) {
        free(v->buf);
        v->buf = lm_xmalloc(bytes);
        v->cap = bytes;
    }
    v->f = v->buf;
    v->i = v->buf;
    v->t = v->has_t ? v->f + n : NULL;
}

static xv *out(xrun *x, const tir_op *op, int k)
{
    xv *r = VAL(x, op->results[k]);
    need(r);
    return r;
}

/* Element k of a tile as a double, whichever way it is stored. */
static double elem_d(const xv *v, int64_t k) { return v->isint ? (double)v->i[k] : (double)v->f[k]; }

/* ---- term scales ----------------------------------------------------------
 * With tirx_opts.terms every float tile carries, beside each value v, its
 * term scale t(v): the root of the sum of the squares of the terms v is the
 * sum of, when v is written out as a sum of products of elementary values.
 * Elementary are the values loaded from tensors, constants and parameters,
 * and the results of the functions that are not sums or products (exp,
 * exp2, log, log2, sqrt, rsqrt, sigmoid, mod, the reciprocal of a divisor,
 * integers converted to float); each is one term, its own magnitude. Then
 *   t(a + b) = t(a - b) = sqrt(t(a)^2 + t(b)^2),  t(a b) = t(a) t(b),
 *   t(a / b) = t(a) / |b|,  t(-a) = t(|a|) = t(a),
 *   t(max(a, b)) = t of the operand chosen,  t(sum_k x_k) = sqrt(sum t(x_k)^2),
 *   t(dot(a, b) + c)_ij = sqrt(sum_k t(a_ik)^2 t(b_kj)^2 + t(c_ij)^2),
 * and rounding to the element type keeps t. `loomc run --check` measures
 * an output's error against max(|ref|, t, rms(ref)) (docs/numerics.md,
 * "Comparing results", says why the squares). */

static double term_of(const xv *v, int64_t k) { return v->t ? v->t[k] : fabs(elem_d(v, k)); }

/* Elementary values: their own magnitude. */
static void fresh_terms(xv *r)
{
    if (r->t)
        for (int64_t k = 0; k < r->n; k++)
            r->t[k] = fabsf(r->f[k]);
}

static void copy_terms(xv *dst, const xv *src, int64_t n)
{
    if (src->t)
        memcpy(dst->t, src->t, (size_t)n * sizeof(float));
    else
        for (int64_t k = 0; k < n; k++)
            dst->t[k] = (float)fabs(elem_d(src, k));
}

static void binary_terms(xv *r, const xv *a, const xv *b, tir_opcode c)
{
    for (int64_t k = 0; k < r->n; k++) {
        double ta = term_of(a, k), tb = term_of(b, k), av = elem_d(a, k), bv = elem_d(b, k), t;
        switch (c) {
        case TIR_ADD:
        case TIR_SUB: t = sqrt(ta * ta + tb * tb); break;
        case TIR_MUL: t = ta * tb; break;
        case TIR_DIV: t = ta / fabs(bv); break;
        /* as fmaxf and fminf choose: a NaN loses to a number */
        case TIR_MAX: t = av >= bv || isnan(bv) ? ta : tb; break;
        case TIR_MIN: t = av <= bv || isnan(bv) ? ta : tb; break;
        default: t = fabsf(r->f[k]); break;
        }
        r->t[k] = (float)t;
    }
}

static void copy_val(xv *dst, const xv *src)
{
    need(dst);
    if (src->n > 0 && dst->kind != TIR_BPTR && dst->kind != TIR_DESC)
        memcpy(dst->buf, src->buf, (size_t)src->n * (src->isint ? sizeof(int64_t) : sizeof(float)));
    if (dst->t && src->n > 0)
        copy_terms(dst, src, src->n);
    dst->tensor = src->tensor;
    dst->blk = src->blk;
}

static void swap_val(xv *a, xv *b)
{
    xv t = *a;
    *a = *b;
    *b = t;
}

static int64_t si(xrun *x, const tir_value *v) { return VAL(x, v)->i[0]; }


/* dst[k] = src[sum_d idx_d * sstride[d]] over the row-major indices of
 * `shape`: broadcasts (stride 0) and transposes. */
static void gather(xv *dst, const xv *src, int rank, const int64_t *shape, const int64_t *sstride)
{
    int64_t total = dst->n;
    if (total == 0)
        return;
    if (rank == 0) {
        if (dst->isint)
            dst->i[0] = src->i[0];
        else
            dst->f[0] = src->f[0];
        if (dst->t)
            dst->t[0] = (float)term_of(src, 0);
        return;
    }
    int64_t idx[TIR_MAX_RANK] = {0};
    int64_t inner = shape[rank - 1], is = sstride[rank - 1], off = 0;
    for (int64_t k = 0; k < total; k += inner) {
        if (dst->isint)
            for (int64_t j = 0; j < inner; j++)
                dst->i[k + j] = src->i[off + j * is];
        else
            for (int64_t j = 0; j < inner; j++)
                dst->f[k + j] = src->f[off + j * is];
        if (dst->t)
            for (int64_t j = 0; j < inner; j++)
                dst->t[k + j] = (float)term_of(src, off + j * is);
        for (int d = rank - 2; d >= 0; d--) {
            idx[d]++;
            off += sstride[d];
            if (idx[d] < shape[d])
                break;
            off -= idx[d] * sstride[d];
            idx[d] = 0;
        }
    }
}

static void row_major_strides(int rank, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d];
    }
}

/* ---- symbolic cross-check -------------------------------------------------- */

static bool check_sym(xrun *x, const tir_op *op, const tir_value *v)
{
    if (!v->sym || !tir_is_int_scalar(&v->type))
        return true;
    int64_t want;
    /* placeholders of unfinished inference and the like: nothing to compare */
    if (sym_eval(v->sym, &x->env, &want) != SYM_OK)
        return true;
    int64_t got = VAL(x, v)->i[0];
    if (got == want)
        return true;
    if (x->why && !x->bad) {
        lm_buf tmp = {0};
        sym_print(&tmp, v->sym);
        fail(x, op, "integer value %lld differs from its symbolic value %s = %lld%s", (long long)got,
             lm_buf_str(&tmp), (long long)want,
             v->type.elem == TIR_I32 && (want > INT32_MAX || want < INT32_MIN) ? " (the i32 value overflowed)"
                                                                                : "");
        lm_buf_free(&tmp);
    }
    return fail(x, op, "symbolic value mismatch");
}

/* ---- elementwise ops ------------------------------------------------------- */

static bool op_binary(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]), *b = VAL(x, op->opnds[1]);
    xv *r = out(x, op, 0);
    int64_t n = r->n;
    tir_opcode c = op->code;
    if (!a->isint) {
        const float *p = a->f, *q = b->f;
        float *o = r->f;
        int64_t *oi = r->i;
#define FLOOP(expr) for (int64_t k = 0; k < n; k++) o[k] = (expr)
#define CLOOP(expr) for (int64_t k = 0; k < n; k++) oi[k] = (expr)
        switch (c) {
        case TIR_ADD: FLOOP(p[k] + q[k]); break;
        case TIR_SUB: FLOOP(p[k] - q[k]); break;
        case TIR_MUL: FLOOP(p[k] * q[k]); break;
        case TIR_DIV: FLOOP(p[k] / q[k]); break;
        case TIR_MOD: FLOOP(fmod_py(p[k], q[k])); break;
        case TIR_MAX: FLOOP(fmaxf(p[k], q[k])); break;
        case TIR_MIN: FLOOP(fminf(p[k], q[k])); break;
        case TIR_CMP_EQ: CLOOP(p[k] == q[k]); break;
        case TIR_CMP_NE: CLOOP(p[k] != q[k]); break;
        case TIR_CMP_LT: CLOOP(p[k] < q[k]); break;
        case TIR_CMP_LE: CLOOP(p[k] <= q[k]); break;
        case TIR_CMP_GT: CLOOP(p[k] > q[k]); break;
        case TIR_CMP_GE: CLOOP(p[k] >= q[k]); break;
        default: return fail(x, op, "not defined on floating-point operands");
        }
#undef FLOOP
#undef CLOOP
        if (!r->isint)
            round_array(r->elem, o, n);
        if (r->t)
            binary_terms(r, a, b, c);
        return true;
    }
    const int64_t *p = a->i, *q = b->i;
    int64_t *o = r->i;
    tir_elem e = r->elem;
#define ILOOP(expr) for (int64_t k = 0; k < n; k++) o[k] = wrap(e, (expr))
#define U(v) ((uint64_t)(v))
    switch (c) {
    case TIR_ADD: ILOOP((int64_t)(U(p[k]) + U(q[k]))); break;
    case TIR_SUB: ILOOP((int64_t)(U(p[k]) - U(q[k]))); break;
    case TIR_MUL: ILOOP((int64_t)(U(p[k]) * U(q[k]))); break;
    case TIR_AND: ILOOP(p[k] & q[k]); break;
    case TIR_OR: ILOOP(p[k] | q[k]); break;
    case TIR_XOR: ILOOP(p[k] ^ q[k]); break;
    case TIR_MAX: ILOOP(LM_MAX(p[k], q[k])); break;
    case TIR_MIN: ILOOP(LM_MIN(p[k], q[k])); break;
    case TIR_CMP_EQ: for (int64_t k = 0; k < n; k++) o[k] = p[k] == q[k]; break;
    case TIR_CMP_NE: for (int64_t k = 0; k < n; k++) o[k] = p[k] != q[k]; break;
    case TIR_CMP_LT: for (int64_t k = 0; k < n; k++) o[k] = p[k] < q[k]; break;
    case TIR_CMP_LE: for (int64_t k = 0; k < n; k++) o[k] = p[k] <= q[k]; break;
    case TIR_CMP_GT: for (int64_t k = 0; k < n; k++) o[k] = p[k] > q[k]; break;
    case TIR_CMP_GE: for (int64_t k = 0; k < n; k++) o[k] = p[k] >= q[k]; break;
    case TIR_FLOORDIV:
    case TIR_MOD:
        for (int64_t k = 0; k < n; k++) {
            int64_t v;
            bool ok = q[k] != 0;
            if (ok && c == TIR_FLOORDIV)
                ok = lm_fdiv_ok(p[k], q[k], &v);
            else if (ok)
                v = lm_pymod(p[k], q[k]);
            if (!ok)
                return fail(x, op, q[k] == 0 ? "integer division by zero" : "integer division overflows");
            o[k] = wrap(e, v);
        }
        break;
    default: return fail(x, op, "not defined on integer operands");
    }
#undef ILOOP
#undef U
    return true;
}

static bool op_unary(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]);
    xv *r = out(x, op, 0);
    int64_t n = r->n;
    if (!a->isint) {
        const float *p = a->f;
        float *o = r->f;
#define FLOOP(expr) for (int64_t k = 0; k < n; k++) o[k] = (expr)
        switch (op->code) {
        case TIR_NEG: FLOOP(-p[k]); break;
        case TIR_ABS: FLOOP(fabsf(p[k])); break;
        case TIR_EXP: FLOOP(x->exp(p[k])); break;
        case TIR_EXP2: FLOOP(x->exp2(p[k])); break;
        case TIR_LOG: FLOOP(logf(p[k])); break;
        case TIR_LOG2: FLOOP(log2f(p[k])); break;
        case TIR_SQRT: FLOOP(sqrtf(p[k])); break;
        case TIR_RSQRT: FLOOP(1.0f / sqrtf(p[k])); break;
        case TIR_SIGMOID: FLOOP(1.0f / (1.0f + expf(-p[k]))); break;
        default: return fail(x, op, "not defined on floating-point operands");
        }
#undef FLOOP
        round_array(r->elem, o, n);
        if (r->t && (op->code == TIR_NEG || op->code == TIR_ABS))
            copy_terms(r, a, n);
        else
            fresh_terms(r);
        return true;
    }
    const int64_t *p = a->i;
    int64_t *o = r->i;
    tir_elem e = r->elem;
    switch (op->code) {
    case TIR_NEG:
        for (int64_t k = 0; k < n; k++)
            o[k] = wrap(e, (int64_t)(0u - (uint64_t)p[k]));
        break;
    case TIR_ABS:
        for (int64_t k = 0; k < n; k++)
            o[k] = wrap(e, p[k] < 0 ? (int64_t)(0u - (uint64_t)p[k]) : p[k]);
        break;
    case TIR_NOT:
        for (int64_t k = 0; k < n; k++)
            o[k] = wrap(e, ~p[k]);
        break;
    default: return fail(x, op, "not defined on integer operands");
    }
    return true;
}

static bool op_cast(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]);
    xv *r = out(x, op, 0);
    int64_t n = r->n;
    tir_elem e = r->elem;
    if (!a->isint && !r->isint) {
        for (int64_t k = 0; k < n; k++)
            r->f[k] = a->f[k];
        round_array(e, r->f, n);
        if (r->t)
            copy_terms(r, a, n);
    } else if (!a->isint) {
        for (int64_t k = 0; k < n; k++)
            r->i[k] = f2i(e, a->f[k]);
    } else if (!r->isint) {
        for (int64_t k = 0; k < n; k++)
            r->f[k] = (float)a->i[k];
        round_array(e, r->f, n);
        fresh_terms(r);
    } else {
        for (int64_t k = 0; k < n; k++)
            r->i[k] = e == TIR_I1 ? a->i[k] != 0 : wrap(e, a->i[k]);
    }
    return true;
}

static bool op_where(xrun *x, const tir_op *op)
{
    const xv *c = VAL(x, op->opnds[0]), *a = VAL(x, op->opnds[1]), *b = VAL(x, op->opnds[2]);
    xv *r = out(x, op, 0);
    if (r->kind == TIR_PTR) {
        if (a->tensor != b->tensor)
            return fail(x, op, "selecting between pointers into different tensors is not supported");
        r->tensor = a->tensor;
    }
    for (int64_t k = 0; k < r->n; k++) {
        if (r->isint)
            r->i[k] = c->i[k] ? a->i[k] : b->i[k];
        else
            r->f[k] = c->i[k] ? a->f[k] : b->f[k];
        if (r->t)
            r->t[k] = (float)term_of(c->i[k] ? a : b, k);
    }
    return true;
}

/* ---- reductions and dot ------------------------------------------------------ */

static bool op_reduce(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]);
    xv *r = out(x, op, 0);
    int ax = (int)op->ival;
    int64_t outer = 1, len = a->shape[ax], inner = 1;
    for (int d = 0; d < ax; d++)
        outer *= a->shape[d];
    for (int d = ax + 1; d < a->rank; d++)
        inner *= a->shape[d];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * len * inner + i, dst = o * inner + i;
            if (a->isint) {
                int64_t acc = op->code == TIR_REDUCE_MAX ? INT64_MIN : op->code == TIR_REDUCE_MIN ? INT64_MAX : 0;
                for (int64_t j = 0; j < len; j++) {
                    int64_t v = a->i[base + j * inner];
                    if (op->code == TIR_REDUCE_SUM)
                        acc = (int64_t)((uint64_t)acc + (uint64_t)v);
                    else if (op->code == TIR_REDUCE_MAX)
                        acc = LM_MAX(acc, v);
                    else
                        acc = LM_MIN(acc, v);
                }
                r->i[dst] = wrap(r->elem, acc);
            } else if (op->code == TIR_REDUCE_SUM) {
                double acc = 0.0, t2 = 0.0;
                for (int64_t j = 0; j < len; j++) {
                    acc += a->f[base + j * inner];
                    double t = term_of(a, base + j * inner);
                    t2 += t * t;
                }
                r->f[dst] = (float)acc;
                if (r->t)
                    r->t[dst] = (float)sqrt(t2);
            } else {
                /* like tl.maximum / tl.minimum: a NaN loses to a number */
                bool mx = op->code == TIR_REDUCE_MAX;
                float acc = mx ? -INFINITY : INFINITY;
                int64_t at = -1; /* the element chosen, for its term scale */
                if (len > 0)
                    acc = a->f[base], at = base;
                for (int64_t j = 1; j < len; j++) {
                    float v = a->f[base + j * inner], m = mx ? fmaxf(acc, v) : fminf(acc, v);
                    if (m != acc || isnan(acc))
                        at = base + j * inner;
                    acc = m;
                }
                r->f[dst] = acc;
                if (r->t)
                    r->t[dst] = at < 0 ? fabsf(acc) : (float)term_of(a, at);
            }
        }
    if (!r->isint)
        round_array(r->elem, r->f, r->n);
    return true;
}

/* The term scales of r = a b (+ c): the same loops over the squares of the
 * operands' term scales; `d` has room for M K + K N + N doubles. */
static void dot_terms(xv *r, const xv *a, const xv *b, const xv *c, double *d)
{
    int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    double *A = d, *B = A + M * K, *row = B + K * N;
    for (int64_t k = 0; k < M * K; k++) {
        double t = term_of(a, k);
        A[k] = t * t;
    }
    for (int64_t k = 0; k < K * N; k++) {
        double t = term_of(b, k);
        B[k] = t * t;
    }
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++) {
            double t = c ? term_of(c, i * N + j) : 0.0;
            row[j] = t * t;
        }
        for (int64_t k = 0; k < K; k++) {
            double aik = A[i * K + k];
            const double *bk = B + k * N;
            for (int64_t j = 0; j < N; j++)
                row[j] += aik * bk[j];
        }
        for (int64_t j = 0; j < N; j++)
            r->t[i * N + j] = (float)sqrt(row[j]);
    }
}

/* r = a[M,K] b[K,N] (+ acc): products of the operand values summed in
 * double, the accumulator added last, then one rounding to the result type.
 * That is the exact dot product up to one rounding for any K a reference
 * shape has, so the chip's results are judged against the ideal. */
static bool op_dot(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]), *b = VAL(x, op->opnds[1]);
    const xv *c = op->nopnds > 2 ? VAL(x, op->opnds[2]) : NULL;
    xv *r = out(x, op, 0);
    int64_t M = a->shape[0], K = a->shape[1], N = b->shape[1];
    size_t need_d = (size_t)(M * K + K * N + N) * (r->t ? 2 : 1);
    if (need_d > x->dcap) {
        free(x->dbuf);
        x->dbuf = lm_xmalloc(need_d * sizeof(double));
        x->dcap = need_d;
    }
    double *A = x->dbuf, *B = A + M * K, *row = B + K * N;
    for (int64_t k = 0; k < M * K; k++)
        A[k] = elem_d(a, k);
    for (int64_t k = 0; k < K * N; k++)
        B[k] = elem_d(b, k);
    for (int64_t i = 0; i < M; i++) {
        for (int64_t j = 0; j < N; j++)
            row[j] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            double aik = A[i * K + k];
            const double *bk = B + k * N;
            for (int64_t j = 0; j < N; j++)
                row[j] += aik * bk[j];
        }
        for (int64_t j = 0; j < N; j++) {
            double v = row[j] + (c ? elem_d(c, i * N + j) : 0.0);
            if (r->isint)
                r->i[i * N + j] = wrap(r->elem, (int64_t)v);
            else
                r->f[i * N + j] = tirx_round(r->elem, (float)v);
        }
    }
    if (r->t)
        dot_terms(r, a, b, c, row + N);
    return true;
}

/* ---- memory ---------------------------------------------------------------- */

static const char *tensor_name(xrun *x, int t) { return x->ts[t].t ? x->ts[t].t->name : "?"; }

/* Load or store a block of `bshape` at `offs` through bp (rank dims).
 * Dimensions in `check` clip: out-of-shape elements read `pad` and are not
 * written; elsewhere being outside the shape is an error, and so is, always,
 * an address outside the tensor. */
static bool access(xrun *x, const tir_op *op, int t, const xblk *bp, int rank, const int64_t *bshape,
                   unsigned check, bool store, xv *val, float pad)
{
    tirx_tensor *ts = &x->ts[t];
    tir_elem te = ts->t ? ts->t->elem : TIR_F32;
    if (store && ts->t && ts->t->role == TIR_INPUT)
        return fail(x, op, "stores into '%s', an input tensor", tensor_name(x, t));
    int64_t idx[TIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < val->n; k++) {
        bool in = true;
        int64_t addr = bp->base;
        for (int d = 0; d < rank; d++) {
            int64_t p = bp->offs[d] + idx[d], term;
            if (p < 0 || p >= bp->shape[d]) {
                if (!(check & (1u << d)))
                    return fail(x, op,
                                "index %lld of dimension %d is outside [0, %lld) of '%s' and the dimension has "
                                "no boundary check",
                                (long long)p, d, (long long)bp->shape[d], tensor_name(x, t));
                in = false;
                break;
            }
            if (!lm_mul_ok(p, bp->strides[d], &term) || !lm_add_ok(addr, term, &addr))
                return fail(x, op, "address overflows");
        }
        if (in && (addr < 0 || addr >= ts->numel))
            return fail(x, op, "element %lld of '%s' is out of bounds (it has %lld)", (long long)addr,
                        tensor_name(x, t), (long long)ts->numel);
        if (store) {
            if (in)
                ts->data[addr] = tirx_round(te, val->isint ? (float)val->i[k] : val->f[k]);
            if (in && ts->terms)
                ts->terms[addr] = (float)term_of(val, k);
        } else if (val->isint) {
            val->i[k] = in ? f2i(val->elem, ts->data[addr]) : 0;
        } else {
            val->f[k] = in ? tirx_round(val->elem, ts->data[addr]) : pad;
            if (val->t)
                val->t[k] = !in ? 0.0f : ts->terms ? ts->terms[addr] : fabsf(val->f[k]);
        }
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < bshape[d])
                break;
            idx[d] = 0;
        }
    }
    return true;
}

static bool scalar_ptr(xrun *x, const tir_op *op, const xv *p, int64_t *base)
{
    if (p->kind != TIR_PTR || p->rank != 0 || p->tensor < 0)
        return fail(x, op, "the base is not a pointer into a tensor");
    *base = p->i[0];
    return true;
}

static bool op_make_ptr(xrun *x, const tir_op *op)
{
    int rk = op->rank;
    const xv *p = VAL(x, op->opnds[0]);
    xv *r = out(x, op, 0);
    xblk bp = {0};
    if (!scalar_ptr(x, op, p, &bp.base))
        return false;
    for (int d = 0; d < rk; d++) {
        bp.shape[d] = si(x, op->opnds[1 + d]);
        bp.strides[d] = si(x, op->opnds[1 + rk + d]);
        bp.offs[d] = op->code == TIR_MAKE_BLOCK_PTR ? si(x, op->opnds[1 + 2 * rk + d]) : 0;
        if (bp.shape[d] < 0)
            return fail(x, op, "size %d is negative (%lld)", d, (long long)bp.shape[d]);
    }
    r->tensor = p->tensor;
    r->blk = bp;
    return true;
}

static bool op_memory(xrun *x, const tir_op *op)
{
    switch (op->code) {
    case TIR_ADVANCE: {
        const xv *p = VAL(x, op->opnds[0]);
        xv *r = out(x, op, 0);
        r->tensor = p->tensor;
        r->blk = p->blk;
        for (int d = 0; d < p->rank; d++) {
            if (!lm_add_ok(r->blk.offs[d], si(x, op->opnds[1 + d]), &r->blk.offs[d]))
                return fail(x, op, "offset overflows");
        }
        return true;
    }
    case TIR_LOAD: {
        const xv *p = VAL(x, op->opnds[0]);
        xv *r = out(x, op, 0);
        float pad = op->padding == TIR_PAD_NAN ? NAN : 0.0f;
        return access(x, op, p->tensor, &p->blk, p->rank, p->shape, op->bcheck, false, r, pad);
    }
    case TIR_STORE: {
        const xv *p = VAL(x, op->opnds[0]);
        return access(x, op, p->tensor, &p->blk, p->rank, p->shape, op->bcheck, true,
                      VAL(x, op->opnds[1]), 0.0f);
    }
    case TIR_DESC_LOAD:
    case TIR_DESC_STORE: {
        bool st = op->code == TIR_DESC_STORE;
        const xv *p = VAL(x, op->opnds[0]);
        xblk bp = p->blk;
        int first = st ? 2 : 1;
        for (int d = 0; d < p->rank; d++)
            bp.offs[d] = si(x, op->opnds[first + d]);
        xv *v = st ? VAL(x, op->opnds[1]) : out(x, op, 0);
        /* a descriptor clips on every dimension, as TMA does */
        unsigned all = (1u << p->rank) - 1;
        return access(x, op, p->tensor, &bp, p->rank, p->shape, all, st, v, 0.0f);
    }
    case TIR_ADDPTR: {
        const xv *p = VAL(x, op->opnds[0]), *o = VAL(x, op->opnds[1]);
        xv *r = out(x, op, 0);
        if (p->tensor < 0)
            return fail(x, op, "the pointer does not point into a tensor");
        r->tensor = p->tensor;
        for (int64_t k = 0; k < r->n; k++)
            if (!lm_add_ok(p->i[k], o->i[k], &r->i[k]))
                return fail(x, op, "pointer offset overflows");
        return true;
    }
    default: break;
    }
    return fail(x, op, "not a memory op");
}

/* ---- shapes ------------------------------------------------------------------ */

static bool op_shape(xrun *x, const tir_op *op)
{
    const xv *a = VAL(x, op->opnds[0]);
    xv *r = out(x, op, 0);
    r->tensor = a->tensor;
    switch (op->code) {
    case TIR_SPLAT:
        for (int64_t k = 0; k < r->n; k++) {
            if (r->isint)
                r->i[k] = a->i[0];
            else
                r->f[k] = a->f[0];
            if (r->t)
                r->t[k] = (float)term_of(a, 0);
        }
        return true;
    case TIR_BROADCAST: {
        int64_t ss[TIR_MAX_RANK], st[TIR_MAX_RANK];
        row_major_strides(a->rank, a->shape, ss);
        int lead = r->rank - a->rank;
        for (int d = 0; d < r->rank; d++) {
            int sd = d - lead;
            st[d] = sd < 0 || (a->shape[sd] == 1 && r->shape[d] != 1) ? 0 : ss[sd];
        }
        gather(r, a, r->rank, r->shape, st);
        return true;
    }
    case TIR_EXPAND_DIMS:
    case TIR_VIEW:
        /* only sizes of 1 come or go: the row-major data is unchanged */
        copy_val(r, a);
        return true;
    case TIR_TRANS: {
        int64_t st[2] = {1, a->shape[1]};
        gather(r, a, 2, r->shape, st);
        return true;
    }
    default: break;
    }
    return fail(x, op, "not a shape op");
}

/* ---- control flow -------------------------------------------------------------- */

static bool run_block(xrun *x, const tir_block *blk, const tir_op **term);

static bool op_for(xrun *x, const tir_op *op)
{
    int64_t lo = si(x, tir_for_lo(op)), hi = si(x, tir_for_hi(op)), st = si(x, tir_for_step(op));
    if (st == 0)
        return fail(x, op, "loop step is zero");
    /* as Python's range, and Triton's scf.for for positive steps */
    int64_t span, astep = st > 0 ? st : -st, trips = 0;
    if (st == INT64_MIN || __builtin_sub_overflow(st > 0 ? hi : lo, st > 0 ? lo : hi, &span))
        return fail(x, op, "loop bounds overflow");
    if (span > 0)
        trips = span / astep + (span % astep != 0);
    if (trips > MAX_TRIPS)
        return fail(x, op, "loop runs %lld times", (long long)trips);
    const tir_block *body = op->regions[0];
    int nc = tir_for_ncarried(op);
    for (int i = 0; i < nc; i++)
        copy_val(VAL(x, tir_for_arg(op, i)), VAL(x, tir_for_init(op, i)));
    tir_value *var = tir_for_var(op);
    xv *vv = VAL(x, var);
    need(vv);
    for (int64_t k = 0; k < trips; k++) {
        vv->i[0] = wrap(var->type.elem, (int64_t)((uint64_t)lo + (uint64_t)k * (uint64_t)st));
        if (op->iv)
            sym_env_set(&x->env, op->iv, k);
        if (!check_sym(x, op, var))
            return false;
        for (int i = 0; i < nc; i++)
            if (!check_sym(x, op, tir_for_arg(op, i)))
                return false;
        const tir_op *y = NULL;
        if (!run_block(x, body, &y))
            return false;
        /* through the results, so yielding the arguments in another order
           does not read a value this iteration already overwrote */
        for (int i = 0; i < nc; i++)
            copy_val(VAL(x, op->results[i]), VAL(x, y->opnds[i]));
        for (int i = 0; i < nc; i++)
            swap_val(VAL(x, op->results[i]), VAL(x, tir_for_arg(op, i)));
    }
    for (int i = 0; i < nc; i++)
        copy_val(VAL(x, op->results[i]), VAL(x, tir_for_arg(op, i)));
    return true;
}

static bool op_if(xrun *x, const tir_op *op)
{
    const tir_block *blk = op->regions[si(x, op->opnds[0]) ? 0 : 1];
    const tir_op *y = NULL;
    if (!run_block(x, blk, &y))
        return false;
    for (int i = 0; i < op->nresults; i++)
        copy_val(VAL(x, op->results[i]), VAL(x, y->opnds[i]));
    return true;
}

/* ---- dispatch ------------------------------------------------------------------ */

static bool run_op(xrun *x, const tir_op *op)
{
    tir_opcode c = op->code;
    bool ok;
    if (tir_op_has(c, TIR_P_BINARY))
        ok = op_binary(x, op);
    else if (tir_op_has(c, TIR_P_UNARY))
        ok = c == TIR_CAST ? op_cast(x, op) : op_unary(x, op);
    else if (tir_op_has(c, TIR_P_REDUCE))
        ok = op_reduce(x, op);
    else {
        switch (c) {
        case TIR_PROGRAM_ID:
        case TIR_NUM_PROGRAMS: {
            int ax = (int)op->ival;
            bool in = ax < x->f->grid_rank;
            out(x, op, 0)->i[0] = c == TIR_PROGRAM_ID ? (in ? x->pid[ax] : 0) : (in ? x->grid[ax] : 1);
            ok = true;
            break;
        }
        case TIR_CONST: {
            xv *r = out(x, op, 0);
            if (r->isint)
                r->i[0] = wrap(r->elem, op->ival);
            else
                r->f[0] = tirx_round(r->elem, (float)op->fval);
            fresh_terms(r);
            ok = true;
            break;
        }
        case TIR_SYM: {
            xv *r = out(x, op, 0);
            int64_t v;
            ok = eval_sym(x, op, op->sym, &x->env, &v, "the symbol");
            r->i[0] = wrap(r->elem, ok ? v : 0);
            break;
        }
        case TIR_ARANGE: {
            xv *r = out(x, op, 0);
            int64_t lo, hi;
            ok = eval_sym(x, op, op->sym, &x->env, &lo, "the start") &&
                 eval_sym(x, op, op->sym2, &x->env, &hi, "the end");
            if (ok && hi - lo != r->n)
                ok = fail(x, op, "range [%lld, %lld) does not have the tile's %lld elements", (long long)lo,
                          (long long)hi, (long long)r->n);
            for (int64_t k = 0; ok && k < r->n; k++)
                r->i[k] = wrap(r->elem, lo + k);
            break;
        }
        case TIR_FULL: {
            xv *r = out(x, op, 0);
            if (r->isint) {
                int64_t v = wrap(r->elem, op->ival);
                for (int64_t k = 0; k < r->n; k++)
                    r->i[k] = v;
            } else {
                float v = tirx_round(r->elem, (float)(op->is_float ? op->fval : (double)op->ival));
                for (int64_t k = 0; k < r->n; k++)
                    r->f[k] = v;
                fresh_terms(r);
            }
            ok = true;
            break;
        }
        case TIR_SPLAT:
        case TIR_BROADCAST:
        case TIR_EXPAND_DIMS:
        case TIR_VIEW:
        case TIR_TRANS: ok = op_shape(x, op); break;
        case TIR_WHERE: ok = op_where(x, op); break;
        case TIR_DOT: ok = op_dot(x, op); break;
        case TIR_CDIV: {
            int64_t a = si(x, op->opnds[0]), b = si(x, op->opnds[1]), q;
            ok = a != INT64_MIN && b != 0 && lm_fdiv_ok(-a, b, &q);
            if (!ok)
                ok = fail(x, op, b == 0 ? "integer division by zero" : "integer division overflows");
            else
                out(x, op, 0)->i[0] = wrap(op->results[0]->type.elem, -q);
            break;
        }
        case TIR_MAKE_BLOCK_PTR:
        case TIR_MAKE_DESC: ok = op_make_ptr(x, op); break;
        case TIR_ADVANCE:
        case TIR_LOAD:
        case TIR_STORE:
        case TIR_DESC_LOAD:
        case TIR_DESC_STORE:
        case TIR_ADDPTR: ok = op_memory(x, op); break;
        case TIR_FOR: ok = op_for(x, op); break;
        case TIR_IF: ok = op_if(x, op); break;
        default: ok = fail(x, op, "is not supported by the interpreter"); break;
        }
    }
    for (int i = 0; ok && i < op->nresults; i++)
        ok = check_sym(x, op, op->results[i]);
    return ok;
}

static bool run_block(xrun *x, const tir_block *blk, const tir_op **term)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_YIELD || op->code == TIR_RETURN) {
            *term = op;
            return true;
        }
        if (!run_op(x, op))
            return false;
    }
    return fail(x, NULL, "a block ends without a terminator");
}

/* ---- setup ------------------------------------------------------------------------ */

static void note_pid_vars(xrun *x, const sym_expr *e)
{
    if (!e)
        return;
    const sym_expr *vs[32];
    int n = sym_vars(e, vs, (int)LM_COUNT(vs));
    for (int i = 0; i < n && i < (int)LM_COUNT(vs); i++) {
        int ax;
        char tail;
        if (sscanf(vs[i]->name, "pid.%d%c", &ax, &tail) == 1 && ax >= 0 && ax < TIR_MAX_GRID)
            x->pidvar[ax] = vs[i];
    }
}

/* Fix the kind, storage and evaluated shape of a value for the whole run. */
static bool setup_value(xrun *x, const tir_op *op, const tir_value *v, const sym_env *values)
{
    xv *s = VAL(x, v);
    const tir_type *t = &v->type;
    s->kind = t->kind;
    s->elem = t->elem;
    s->rank = t->rank;
    s->isint = t->kind == TIR_PTR || (t->kind == TIR_TILE && tir_elem_is_int(t->elem));
    s->has_t = x->terms && t->kind == TIR_TILE && !s->isint;
    s->tensor = -1;
    note_pid_vars(x, v->sym);
    lm_buf msg = {0};
    bool ok = eval_shape(t->shape, t->rank, values, s->shape, MAX_TILE_ELEMS, &s->n, &msg, "tile shape");
    if (!ok)
        fail(x, op, "%s", lm_buf_str(&msg));
    lm_buf_free(&msg);
    if (t->kind == TIR_BPTR || t->kind == TIR_DESC)
        s->n = 1; /* they hold no elements, only the xblk */
    return ok;
}

static bool setup_block(xrun *x, const tir_block *blk, const sym_env *values)
{
    for (int i = 0; i < blk->nargs; i++)
        if (!setup_value(x, blk->owner, blk->args[i], values))
            return false;
    for (const tir_op *op = blk->first; op; op = op->next) {
        note_pid_vars(x, op->sym);
        note_pid_vars(x, op->sym2);
        for (int i = 0; i < op->nresults; i++)
            if (!setup_value(x, op, op->results[i], values))
                return false;
        for (int r = 0; r < op->nregions; r++)
            if (!setup_block(x, op->regions[r], values))
                return false;
    }
    return true;
}

/* Bind the parameters; they keep their values for every program. */
static bool bind_params(xrun *x)
{
    const tir_func *f = x->f;
    for (int i = 0; i < f->nparams; i++) {
        const tir_param *p = &f->params[i];
        const tir_value *v = p->value;
        xv *s = VAL(x, v);
        need(s);
        if (v->type.kind == TIR_PTR && v->type.rank == 0) {
            if (!p->tensor)
                return fail(x, NULL, "pointer parameter '%s' is bound to no tensor", p->name);
            tirx_tensor *t = tirx_find(x->ts, x->nts, p->tensor->name);
            if (!t)
                return fail(x, NULL, "no tensor '%s' for parameter '%s'", p->tensor->name, p->name);
            if (!t->data && t->numel > 0)
                return fail(x, NULL, "tensor '%s' has no data", p->tensor->name);
            int64_t shape[TIR_MAX_RANK], numel;
            lm_buf msg = {0};
            bool ok = t->rank == p->tensor->rank &&
                      eval_shape(p->tensor->shape, p->tensor->rank, &x->env, shape, MAX_TENSOR_ELEMS, &numel,
                                 &msg, "tensor");
            for (int d = 0; ok && d < t->rank; d++)
                ok = shape[d] == t->shape[d];
            ok = ok && numel == t->numel;
            lm_buf_free(&msg);
            if (!ok)
                return fail(x, NULL, "tensor '%s' does not have the shape the launch gives it", p->tensor->name);
            s->tensor = (int)(t - x->ts);
            s->i[0] = 0;
        } else if (tir_is_int_scalar(&v->type)) {
            int64_t val;
            if (!v->sym)
                return fail(x, NULL, "integer parameter '%s' has no value", p->name);
            char what[96];
            snprintf(what, sizeof what, "parameter '%s'", p->name);
            if (!eval_sym(x, NULL, v->sym, &x->env, &val, what))
                return false;
            s->i[0] = wrap(v->type.elem, val);
        } else if (tir_is_scalar(&v->type) && tir_elem_is_float(v->type.elem)) {
            if (!p->has_fval)
                return fail(x, NULL, "float parameter '%s' has no value", p->name);
            s->f[0] = tirx_round(v->type.elem, (float)p->fval);
            fresh_terms(s);
        } else {
            return fail(x, NULL, "parameter '%s' of this type is not supported", p->name);
        }
    }
    return true;
}

static bool run_programs(xrun *x)
{
    const tir_func *f = x->f;
    int64_t total = 1;
    for (int a = 0; a < f->grid_rank; a++) {
        if (!eval_sym(x, NULL, f->grid[a], &x->env, &x->grid[a], "the grid"))
            return false;
        if (x->grid[a] < 0)
            return fail(x, NULL, "grid size %d is negative (%lld)", a, (long long)x->grid[a]);
        if (!lm_mul_ok(total, x->grid[a], &total))
            return fail(x, NULL, "the grid is too large");
    }
    x->in_program = true;
    for (int64_t p = 0; p < total; p++) {
        /* row-major: the last axis varies fastest */
        int64_t rest = p;
        for (int a = f->grid_rank - 1; a >= 0; a--) {
            x->pid[a] = rest % x->grid[a];
            rest /= x->grid[a];
        }
        for (int a = 0; a < f->grid_rank; a++)
            if (x->pidvar[a])
                sym_env_set(&x->env, x->pidvar[a], x->pid[a]);
        const tir_op *term = NULL;
        if (!run_block(x, f->body, &term))
            return false;
    }
    return true;
}

/* A tensor's elements start as terms of their own (a scratch tensor keeps
 * what an earlier launch stored). */
static void init_tensor_terms(tirx_tensor *t)
{
    if (t->terms || !t->data)
        return;
    t->terms = lm_xmalloc((size_t)(t->numel > 0 ? t->numel : 1) * sizeof(float));
    for (int64_t k = 0; k < t->numel; k++)
        t->terms[k] = fabsf(t->data[k]);
}

static float lib_exp(float v) { return expf(v); }
static float lib_exp2(float v) { return exp2f(v); }

bool tirx_run(const tir_func *f, const sym_env *values, tirx_tensor *tensors, int ntensors, lm_buf *why)
{
    return tirx_run_opts(f, values, tensors, ntensors, NULL, why);
}

bool tirx_run_opts(const tir_func *f, const sym_env *values, tirx_tensor *tensors, int ntensors, const tirx_opts *o,
                   lm_buf *why)
{
    if (!tir_verify(f, why)) {
        if (why)
            lm_buf_puts(why, " (the interpreter runs verified Tile IR only)");
        return false;
    }
    xrun x = {0};
    x.f = f;
    x.ts = tensors;
    x.nts = ntensors;
    x.why = why;
    x.exp = o && o->exp ? o->exp : lib_exp;
    x.exp2 = o && o->exp2 ? o->exp2 : lib_exp2;
    x.terms = o && o->terms;
    for (int i = 0; x.terms && i < ntensors; i++)
        init_tensor_terms(&tensors[i]);
    x.nvals = f->nvalues;
    x.vals = lm_xcalloc((size_t)(f->nvalues > 0 ? f->nvalues : 1), sizeof(xv));
    for (int i = 0; values && i < values->n; i++)
        sym_env_set_range(&x.env, values->b[i].var, values->b[i].lo, values->b[i].hi);
    for (int a = 0; a < f->grid_rank; a++)
        note_pid_vars(&x, f->grid[a]);

    bool ok = setup_block(&x, f->body, values) && bind_params(&x) && run_programs(&x);

    for (int i = 0; i < x.nvals; i++)
        free(x.vals[i].buf);
    free(x.vals);
    free(x.dbuf);
    sym_env_free(&x.env);
    return ok;
}
