/* test_terms.c - the term scales the reference interpreter carries for
 * `loomc run --check` (tirx_opts.terms) and the comparison that uses them.
 *
 * Two things are checked. The scales are what their definition says: for a
 * matmul the root of the sum of the squared products, for attention the
 * root of the sum of the squared weighted values over the row sum, computed
 * here in double from the inputs (docs/numerics.md, "Comparing results").
 * And the check still fails real errors: results with a bug of the kind a
 * wrong lowering makes (a causal mask off by one, a missing key or product,
 * a wrong softmax scale) fail the tolerance `loomc run --check` applies,
 * while the same result computed exactly passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "ir/tir_interp.h"
#include "num/num.h"
#include "test_kv.h"

/* ---- running a kernel of kernels/ through the interpreter ------------------ */

typedef struct run {
    drv_result r;
    lm_diag d;
    tirx_tensor t[8];
    int n;
} run;

/* Compile `path` for the shapes and constants, fill the inputs as
 * `loomc run` does (seeds 1, 2, ...), run every launch with term scales. */
static void run_kernel(run *x, const char *path, const char *shapes, const char *consts)
{
    char sbuf[256], cbuf[256];
    fe_kv sk[16], ck[16];
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shapes, sk, 16, sbuf, sizeof sbuf);
    o.launch.consts = ck;
    o.launch.nconsts = parse_kv(consts, ck, 16, cbuf, sizeof cbuf);
    lm_diag_init(&x->d, stderr);
    assert_true(drv_compile(&x->r, &o, &x->d));
    const fe_spec *spec = x->r.spec;
    assert_true(spec->ntensors <= (int)LM_COUNT(x->t));
    for (int i = 0; i < spec->ntensors; i++) {
        assert_true(tirx_tensor_init(&x->t[i], spec->tensors[i], &spec->env, NULL));
        x->n++;
        if (spec->tensors[i]->role == TIR_INPUT)
            tirx_tensor_fill_random(&x->t[i], 1 + (uint64_t)i);
    }
    tirx_opts opts = {.terms = true};
    for (int i = 0; i < x->r.nlaunches; i++) {
        lm_buf why = {0};
        bool ok = tirx_run_opts(x->r.launches[i].func, &spec->env, x->t, x->n, &opts, &why);
        if (!ok)
            print_error("launch %d: %s\n", i, lm_buf_str(&why));
        lm_buf_free(&why);
        assert_true(ok);
    }
}

static void run_free(run *x)
{
    for (int i = 0; i < x->n; i++)
        tirx_tensor_free(&x->t[i]);
    drv_free(&x->r);
}

static tirx_tensor *tensor(run *x, const char *name)
{
    tirx_tensor *t = tirx_find(x->t, x->n, name);
    assert_non_null(t);
    assert_non_null(t->terms);
    return t;
}

/* Does `got` pass against the interpreter's output `ref`, measured as
 * `loomc run --check` measures it (with the term scales, or without)? */
static bool passes(const float *got, const tirx_tensor *ref, bool with_terms, double tol)
{
    num_cmp c = num_compare_terms(got, ref->data, with_terms ? ref->terms : NULL, ref->numel);
    return c.nonfinite == 0 && c.max_rel <= tol;
}

/* ---- matmul ------------------------------------------------------------------ */

enum { MM_M = 64, MM_N = 64, MM_K = 256 };

/* C = A B in double, with the product of row `skip` of B (and column
 * `skip` of A) left out when skip >= 0. */
static void matmul_d(const float *A, const float *B, int64_t skip, float *C)
{
    for (int64_t i = 0; i < MM_M; i++)
        for (int64_t j = 0; j < MM_N; j++) {
            double s = 0.0;
            for (int64_t k = 0; k < MM_K; k++)
                if (k != skip)
                    s += (double)A[i * MM_K + k] * B[k * MM_N + j];
            C[i * MM_N + j] = (float)s;
        }
}

/* A dot's scale is sqrt(sum_k a_ik^2 b_kj^2), whatever the K blocking; the
 * inputs' scales are their magnitudes. Each K block stores the running
 * scale in fp32 once, so the two agree to a few 2^-24. */
static void matmul_terms(void **state)
{
    (void)state;
    run x = {0};
    run_kernel(&x, "kernels/matmul.py", "M=64,N=64,K=256", "BLOCK_M=32,BLOCK_N=32,BLOCK_K=64");
    tirx_tensor *a = tensor(&x, "a"), *b = tensor(&x, "b"), *c = tensor(&x, "c");
    for (int64_t i = 0; i < a->numel; i++)
        assert_true(a->terms[i] == fabsf(a->data[i]));
    for (int64_t i = 0; i < MM_M; i++)
        for (int64_t j = 0; j < MM_N; j++) {
            double s2 = 0.0;
            for (int64_t k = 0; k < MM_K; k++) {
                double p = (double)a->data[i * MM_K + k] * b->data[k * MM_N + j];
                s2 += p * p;
            }
            double want = sqrt(s2), got = c->terms[i * MM_N + j];
            assert_true(fabs(got - want) <= 16 * 0x1p-24 * want);
        }
    run_free(&x);
}

/* A loop that stops one product short changes every element by one
 * product, about a quarter of the largest: with K = 256 terms of random
 * sign the scale sqrt(sum p^2) is about sqrt(K) / 3, so the error is
 * several times bf16's tolerance. The sum of the terms' magnitudes, about
 * K / 4, would have hidden it: that is why the scale is the root of the
 * sum of squares (docs/numerics.md). */
static void matmul_missing_product_fails(void **state)
{
    (void)state;
    run x = {0};
    run_kernel(&x, "kernels/matmul.py", "M=64,N=64,K=256", "BLOCK_M=32,BLOCK_N=32,BLOCK_K=64");
    tirx_tensor *a = tensor(&x, "a"), *b = tensor(&x, "b"), *c = tensor(&x, "c");
    double tol = num_tolerance(ARCH_BF16, MM_K, ARCH_HIFI2);
    float *got = malloc(sizeof(float) * MM_M * MM_N), *l1 = malloc(sizeof(float) * MM_M * MM_N);
    /* the exact result, rounded to bf16 as the chip stores it, passes */
    matmul_d(a->data, b->data, -1, got);
    num_round_array(got, MM_M * MM_N, ARCH_BF16);
    assert_true(passes(got, c, true, tol));
    /* the last product missing fails, with the scales and without */
    matmul_d(a->data, b->data, MM_K - 1, got);
    num_round_array(got, MM_M * MM_N, ARCH_BF16);
    assert_false(passes(got, c, true, tol));
    assert_false(passes(got, c, false, tol));
    /* ... and would pass against sum_k |a_ik| |b_kj| */
    for (int64_t i = 0; i < MM_M; i++)
        for (int64_t j = 0; j < MM_N; j++) {
            double s = 0.0;
            for (int64_t k = 0; k < MM_K; k++)
                s += fabs((double)a->data[i * MM_K + k] * b->data[k * MM_N + j]);
            l1[i * MM_N + j] = (float)s;
        }
    num_cmp w = num_compare_terms(got, c->data, l1, c->numel);
    assert_true(w.max_rel <= tol);
    free(got);
    free(l1);
    run_free(&x);
}

/* ---- causal attention ------------------------------------------------------- */

enum { AT_H = 2, AT_S = 200, AT_D = 64 };
#define AT_SHAPE "B=1,H=2,S=200,D=64"
#define AT_CONSTS "BLOCK_M=32,BLOCK_N=32,CAUSAL=1"

/* How a wrong attention differs from the right one. */
typedef struct att_bug {
    int extra;       /* key j is visible to query i iff j <= i + extra */
    bool drop_diag;  /* and, for i > 0, not j == i */
    double scale;    /* the softmax scale's factor */
} att_bug;

/* O = softmax(scale Q K^T) V over the visible keys, in double, and (when
 * `terms` is not NULL) each element's scale sqrt(sum_j p_j^2 v_jd^2) / sum_j p_j. */
static void attention_d(const float *Q, const float *K, const float *V, att_bug bug, float *O, float *terms)
{
    double p[AT_S];
    double scale = bug.scale / sqrt((double)AT_D);
    for (int64_t h = 0; h < AT_H; h++)
        for (int64_t i = 0; i < AT_S; i++) {
            const float *q = Q + (h * AT_S + i) * AT_D;
            double m = -INFINITY, l = 0.0;
            for (int64_t j = 0; j < AT_S; j++) {
                bool vis = j <= i + bug.extra && !(bug.drop_diag && i > 0 && j == i);
                double s = 0.0;
                for (int64_t d = 0; d < AT_D && vis; d++)
                    s += (double)q[d] * K[(h * AT_S + j) * AT_D + d];
                p[j] = vis ? scale * s : -INFINITY;
                m = fmax(m, p[j]);
            }
            for (int64_t j = 0; j < AT_S; j++) {
                p[j] = exp(p[j] - m);
                l += p[j];
            }
            for (int64_t d = 0; d < AT_D; d++) {
                double o = 0.0, t2 = 0.0;
                for (int64_t j = 0; j < AT_S; j++) {
                    double pv = p[j] * V[(h * AT_S + j) * AT_D + d];
                    o += pv;
                    t2 += pv * pv;
                }
                O[(h * AT_S + i) * AT_D + d] = (float)(o / l);
                if (terms)
                    terms[(h * AT_S + i) * AT_D + d] = (float)(sqrt(t2) / l);
            }
        }
}

/* Row 0 sees key 0 only: its scale is |v_0| exactly (p = 1, l = 1). Every
 * row's scale is sqrt(sum_j p_j^2 v_jd^2) / sum_j p_j, with the weights the
 * kernel computes in fp32 (exp2 of fp32 scores), so within 2^-16. */
static void attention_terms(void **state)
{
    (void)state;
    run x = {0};
    run_kernel(&x, "kernels/flash_attention.py", AT_SHAPE, AT_CONSTS);
    tirx_tensor *q = tensor(&x, "q"), *k = tensor(&x, "k"), *v = tensor(&x, "v"), *o = tensor(&x, "o");
    int64_t n = o->numel;
    float *ref = malloc(sizeof(float) * (size_t)n), *want = malloc(sizeof(float) * (size_t)n);
    attention_d(q->data, k->data, v->data, (att_bug){0, false, 1.0}, ref, want);
    for (int64_t h = 0; h < AT_H; h++)
        for (int64_t d = 0; d < AT_D; d++)
            assert_true(o->terms[h * AT_S * AT_D + d] == fabsf(v->data[h * AT_S * AT_D + d]));
    for (int64_t i = 0; i < n; i++)
        assert_true(fabs((double)o->terms[i] - want[i]) <= 0x1p-16 * want[i]);
    free(ref);
    free(want);
    run_free(&x);
}

/* The tolerance `loomc run --check` gives this kernel's bf16 output at
 * HiFi2 (the softmax doubles it); the depth term is negligible. */
static double attention_tol(void) { return 2 * num_tolerance(ARCH_BF16, AT_D, ARCH_HIFI2); }

/* Each bug fails the check with the term scales, as it did without them;
 * the right attention, computed exactly and stored in bf16, passes. */
static void attention_bugs_fail(void **state)
{
    (void)state;
    run x = {0};
    run_kernel(&x, "kernels/flash_attention.py", AT_SHAPE, AT_CONSTS);
    tirx_tensor *q = tensor(&x, "q"), *k = tensor(&x, "k"), *v = tensor(&x, "v"), *o = tensor(&x, "o");
    float *got = malloc(sizeof(float) * (size_t)o->numel);
    const att_bug right = {0, false, 1.0};
    att_bug bugs[] = {
        {1, false, 1.0},        /* the mask is off by one: each row sees the next key */
        {0, true, 1.0},         /* the diagonal key is missing */
        {0, false, 0.0},        /* exp2 of scores not scaled by log2(e): ln 2, below */
        {0, false, 0.0},        /* the scale of a head padded to 2 D: sqrt(1/2), below */
    };
    bugs[2].scale = log(2.0);
    bugs[3].scale = sqrt(0.5);
    attention_d(q->data, k->data, v->data, right, got, NULL);
    num_round_array(got, o->numel, ARCH_BF16);
    assert_true(passes(got, o, true, attention_tol()));
    for (size_t b = 0; b < LM_COUNT(bugs); b++) {
        attention_d(q->data, k->data, v->data, bugs[b], got, NULL);
        num_round_array(got, o->numel, ARCH_BF16);
        if (passes(got, o, true, attention_tol()))
            print_error("bug %zu passes the check\n", b);
        assert_false(passes(got, o, true, attention_tol()));
        assert_false(passes(got, o, false, attention_tol()));
    }
    free(got);
    run_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul_terms),
        cmocka_unit_test(matmul_missing_product_fails),
        cmocka_unit_test(attention_terms),
        cmocka_unit_test(attention_bugs_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
