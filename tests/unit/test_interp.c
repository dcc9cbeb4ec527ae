/* test_interp.c - the reference interpreter of the Tile IR. Kernels are built
 * by hand with the builder (a block-pointer GEMM with a K loop, a row
 * softmax, boundary-checked loads and stores at the edges, a descriptor copy,
 * a two-launch split/combine job, loops, branches and integer corner cases)
 * and their results compared with values computed here by plain loops or
 * the fp64 references of sim/num.h. The error tests check that bad accesses,
 * wrong symbolic values and missing bindings are reported, not crashed on.
 * The end-to-end tests compile the kernels in kernels/ through the driver
 * (run from the repository root, as tests/run.sh does) with small shapes and
 * pinned block sizes, interpret every launch of the job and compare with
 * num_ref_matmul and num_ref_attention. */
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

static const lm_loc NOLOC = {0};

/* ---- building kernels by hand ----------------------------------------------- */

typedef struct kb {
    lm_arena a;
    sym_ctx *s;
    tir_func *f;
    tir_builder b;
    sym_env env;
} kb;

static kb *kb_new(void)
{
    kb *k = calloc(1, sizeof *k);
    lm_arena_init(&k->a);
    k->s = sym_ctx_new();
    return k;
}

/* A second kernel in the same arena and symbol context (multi-launch jobs). */
static void kb_func(kb *k, const char *name)
{
    k->f = tir_func_new(&k->a, name, NOLOC);
    tir_builder_init(&k->b, &k->a, k->s, k->f);
}

static void kb_free(kb *k)
{
    sym_env_free(&k->env);
    sym_ctx_free(k->s);
    lm_arena_free(&k->a);
    free(k);
}

static const sym_expr *V(kb *k, const char *n) { return sym_var(k->s, n); }
static const sym_expr *C(kb *k, int64_t v) { return sym_const(k->s, v); }
static void bind(kb *k, const char *n, int64_t v) { sym_env_set(&k->env, V(k, n), v); }

static tir_type tile1(kb *k, tir_elem e, const sym_expr *d0)
{
    const sym_expr *sh[1] = {d0};
    return tir_t_tile(&k->a, e, 1, sh);
}
static tir_type tile2(kb *k, tir_elem e, const sym_expr *d0, const sym_expr *d1)
{
    const sym_expr *sh[2] = {d0, d1};
    return tir_t_tile(&k->a, e, 2, sh);
}
static tir_type bptr2(kb *k, tir_elem e, const sym_expr *d0, const sym_expr *d1)
{
    const sym_expr *sh[2] = {d0, d1};
    return tir_t_bptr(&k->a, e, 2, sh);
}

static const tir_tensor *tensor(kb *k, const char *name, tir_role role, tir_elem e, int rank,
                                const sym_expr *d0, const sym_expr *d1)
{
    tir_tensor *t = LM_NEW(&k->a, tir_tensor);
    t->name = name;
    t->role = role;
    t->elem = e;
    t->rank = rank;
    t->shape = LM_NEWN(&k->a, const sym_expr *, rank);
    t->strides = LM_NEWN(&k->a, const sym_expr *, rank);
    t->shape[0] = d0;
    if (rank > 1)
        t->shape[1] = d1;
    t->strides[rank - 1] = C(k, 1);
    if (rank > 1)
        t->strides[0] = d1;
    return t;
}

static tir_value *ptr_param(kb *k, const char *name, const tir_tensor *t)
{
    return tir_add_param(&k->b, name, tir_t_ptr(t->elem), NULL, t);
}
static tir_value *int_param(kb *k, const char *name)
{
    return tir_add_param(&k->b, name, tir_t_scalar(TIR_I32), V(k, name), NULL);
}
static tir_value *float_param(kb *k, const char *name, double v)
{
    tir_value *p = tir_add_param(&k->b, name, tir_t_scalar(TIR_F32), NULL, NULL);
    k->f->params[k->f->nparams - 1].has_fval = true;
    k->f->params[k->f->nparams - 1].fval = v;
    return p;
}

static tir_value *op1(kb *k, tir_opcode c, tir_type t, tir_value *a, tir_value *b)
{
    return tir_build1(&k->b, c, NOLOC, t, a, b, NULL, NULL);
}
static tir_value *iconst(kb *k, int64_t v) { return tir_const_int(&k->b, TIR_I32, v); }
static tir_value *isym(kb *k, const sym_expr *e) { return tir_sym_value(&k->b, TIR_I32, e); }
static tir_type i32(void) { return tir_t_scalar(TIR_I32); }

static tir_value *make_bptr2(kb *k, tir_value *base, tir_value *s0, tir_value *s1, tir_value *st0,
                             tir_value *st1, tir_value *o0, tir_value *o1, const sym_expr *b0,
                             const sym_expr *b1)
{
    tir_value *ops[7] = {base, s0, s1, st0, st1, o0, o1};
    tir_type t = bptr2(k, base->type.elem, b0, b1);
    tir_op *op = tir_op_build(&k->b, TIR_MAKE_BLOCK_PTR, NOLOC, ops, 7, &t, 1);
    op->rank = 2;
    op->order[0] = 1;
    op->order[1] = 0;
    return op->results[0];
}

static tir_value *load(kb *k, tir_value *bp, unsigned check, tir_pad pad)
{
    tir_type t = bp->type;
    t.kind = TIR_TILE;
    tir_value *v = op1(k, TIR_LOAD, t, bp, NULL);
    v->def->bcheck = check;
    v->def->padding = pad;
    return v;
}

static void store(kb *k, tir_value *bp, tir_value *v, unsigned check)
{
    tir_value *ops[2] = {bp, v};
    tir_op *op = tir_op_build(&k->b, TIR_STORE, NOLOC, ops, 2, NULL, 0);
    op->bcheck = check;
}

static tir_value *advance2(kb *k, tir_value *bp, tir_value *d0, tir_value *d1)
{
    tir_value *ops[3] = {bp, d0, d1};
    return tir_op_build(&k->b, TIR_ADVANCE, NOLOC, ops, 3, &bp->type, 1)->results[0];
}

static tir_value *reduce(kb *k, tir_opcode c, tir_value *v, int axis, bool keep)
{
    const tir_type *in = &v->type;
    const sym_expr *sh[TIR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < in->rank; d++) {
        if (d != axis)
            sh[r++] = in->shape[d];
        else if (keep)
            sh[r++] = C(k, 1);
    }
    tir_elem e = c == TIR_REDUCE_SUM && in->elem == TIR_I1 ? TIR_I32 : in->elem;
    tir_value *out = op1(k, c, tir_t_tile(&k->a, e, r, sh), v, NULL);
    out->def->ival = axis;
    out->def->keep_dims = keep;
    return out;
}

static tir_value *expand(kb *k, tir_value *v, int axis)
{
    const sym_expr *sh[TIR_MAX_RANK];
    for (int d = 0, j = 0; d <= v->type.rank; d++)
        sh[d] = d == axis ? C(k, 1) : v->type.shape[j++];
    tir_value *out = op1(k, TIR_EXPAND_DIMS, tir_t_tile(&k->a, v->type.elem, v->type.rank + 1, sh), v, NULL);
    out->def->ival = axis;
    return out;
}

static tir_value *full(kb *k, tir_type t, double v)
{
    tir_value *r = op1(k, TIR_FULL, t, NULL, NULL);
    r->def->is_float = tir_elem_is_float(t.elem);
    if (r->def->is_float)
        r->def->fval = v;
    else
        r->def->ival = (int64_t)v;
    return r;
}

typedef struct loop {
    tir_op *op;
    tir_block *outer;
} loop;

static loop for_begin(kb *k, tir_value *lo, tir_value *hi, tir_value *st, tir_value **init, int n)
{
    tir_value *o[16] = {lo, hi, st};
    tir_type rt[16];
    for (int i = 0; i < n; i++) {
        o[3 + i] = init[i];
        rt[i] = init[i]->type;
    }
    loop l;
    l.op = tir_op_build(&k->b, TIR_FOR, NOLOC, o, 3 + n, rt, n);
    l.op->regions[0] = tir_block_new(&k->b, l.op);
    l.op->nregions = 1;
    tir_block_add_arg(&k->b, l.op->regions[0], lo->type);
    for (int i = 0; i < n; i++)
        tir_block_add_arg(&k->b, l.op->regions[0], init[i]->type);
    l.op->iv = tir_iv_var(k->s, k->f->nloops++);
    l.outer = k->b.block;
    k->b.block = l.op->regions[0];
    return l;
}

static void for_end(kb *k, loop l, tir_value **yield, int n)
{
    tir_op_build(&k->b, TIR_YIELD, NOLOC, yield, n, NULL, 0);
    k->b.block = l.outer;
    tir_sym_infer_for(&k->b, l.op);
}

static void finish(kb *k)
{
    tir_op_build(&k->b, TIR_RETURN, NOLOC, NULL, 0, NULL, 0);
    lm_buf why = {0};
    bool ok = tir_verify(k->f, &why);
    if (!ok)
        print_error("verifier: %s\n", lm_buf_str(&why));
    lm_buf_free(&why);
    assert_true(ok);
}

static void set_grid(kb *k, int rank, const sym_expr *g0, const sym_expr *g1)
{
    k->f->grid_rank = rank;
    k->f->grid[0] = g0;
    if (rank > 1)
        k->f->grid[1] = g1;
}

/* Tensors of a job: allocated from the spec's shapes. */
typedef struct job {
    tirx_tensor t[8];
    int n;
} job;

static tirx_tensor *job_add(job *j, kb *k, const tir_tensor *t)
{
    lm_buf why = {0};
    bool ok = tirx_tensor_init(&j->t[j->n], t, &k->env, &why);
    if (!ok)
        print_error("%s\n", lm_buf_str(&why));
    lm_buf_free(&why);
    assert_true(ok);
    return &j->t[j->n++];
}

static void job_free(job *j)
{
    for (int i = 0; i < j->n; i++)
        tirx_tensor_free(&j->t[i]);
}

static bool run(kb *k, job *j, lm_buf *why)
{
    return tirx_run(k->f, &k->env, j->t, j->n, why);
}

static void run_ok(kb *k, job *j)
{
    lm_buf why = {0};
    bool ok = run(k, j, &why);
    if (!ok)
        print_error("tirx_run: %s\n", lm_buf_str(&why));
    lm_buf_free(&why);
    assert_true(ok);
}

/* Runs and expects a failure whose reason contains `want`. */
static void run_fails(kb *k, job *j, const char *want)
{
    lm_buf why = {0};
    bool ok = run(k, j, &why);
    if (ok || !strstr(lm_buf_str(&why), want))
        print_error("expected failure with '%s', got %s: %s\n", want, ok ? "success" : "failure",
                    lm_buf_str(&why));
    assert_false(ok);
    assert_non_null(strstr(lm_buf_str(&why), want));
    lm_buf_free(&why);
}

/* ---- rounding ----------------------------------------------------------------- */

static void round_to_element_types(void **state)
{
    (void)state;
    /* f16 has 10 fraction bits: 1 + 2^-11 is a tie between 1 (even) and
       1 + 2^-10, so it rounds down; 1 + 3*2^-11 ties up to 1 + 2^-9. */
    assert_true(tirx_round(TIR_F16, 1.0f + 0x1p-11f) == 1.0f);
    assert_true(tirx_round(TIR_F16, 1.0f + 3 * 0x1p-11f) == 1.0f + 0x1p-9f);
    assert_true(tirx_round(TIR_F16, 1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
    assert_true(tirx_round(TIR_F16, -1.0f - 3 * 0x1p-11f) == -1.0f - 0x1p-9f);
    /* largest finite 65504; the tie at 65520 goes to 2^16, which overflows */
    assert_true(tirx_round(TIR_F16, 65519.0f) == 65504.0f);
    assert_true(isinf(tirx_round(TIR_F16, 65520.0f)));
    assert_true(tirx_round(TIR_F16, -70000.0f) == -INFINITY);
    /* subnormals: the quantum is 2^-24; 2^-25 ties to 0 (even), 3*2^-26 is
       above the tie and rounds to 2^-24, 2^-14 - 2^-25 is a tie to 2^-14 */
    assert_true(tirx_round(TIR_F16, 0x1p-24f) == 0x1p-24f);
    assert_true(tirx_round(TIR_F16, 0x1p-25f) == 0.0f);
    assert_true(tirx_round(TIR_F16, 3 * 0x1p-26f) == 0x1p-24f);
    assert_true(tirx_round(TIR_F16, 3 * 0x1p-25f) == 2 * 0x1p-24f);
    assert_true(tirx_round(TIR_F16, 0x1p-14f - 0x1p-25f) == 0x1p-14f);
    assert_true(isnan(tirx_round(TIR_F16, NAN)));
    /* bf16 goes through num_round_bf16 */
    assert_true(tirx_round(TIR_BF16, 0.1f) == num_round_bf16(0.1f));
    assert_true(tirx_round(TIR_F32, 0.1f) == 0.1f);
    /* integers truncate toward zero and saturate; i1 is != 0 */
    assert_true(tirx_round(TIR_I32, -2.7f) == -2.0f);
    assert_true(tirx_round(TIR_I32, 2.7f) == 2.0f);
    assert_true(tirx_round(TIR_I32, 1e10f) == 2147483647.0f);
    assert_true(tirx_round(TIR_I32, NAN) == 0.0f);
    assert_true(tirx_round(TIR_I1, 0.5f) == 1.0f);
    assert_true(tirx_round(TIR_I1, 0.0f) == 0.0f);
}

/* ---- GEMM with block pointers and a K loop ----------------------------------- */

/* c[M,N] = a[M,K] b[K,N], a and b bf16, c f32: one program per output block,
 * the loop carrying the accumulator and both block pointers, boundary checks
 * on every dimension so partial blocks at all three edges are exercised. */
static kb *build_matmul(void)
{
    kb *k = kb_new();
    kb_func(k, "matmul");
    const sym_expr *M = V(k, "M"), *N = V(k, "N"), *K = V(k, "K");
    const sym_expr *BM = V(k, "BLOCK_M"), *BN = V(k, "BLOCK_N"), *BK = V(k, "BLOCK_K");
    const tir_tensor *ta = tensor(k, "a", TIR_INPUT, TIR_BF16, 2, M, K);
    const tir_tensor *tb = tensor(k, "b", TIR_INPUT, TIR_BF16, 2, K, N);
    const tir_tensor *tc = tensor(k, "c", TIR_OUTPUT, TIR_F32, 2, M, N);
    set_grid(k, 2, sym_cdiv(k->s, M, BM), sym_cdiv(k->s, N, BN));
    tir_value *a = ptr_param(k, "a_ptr", ta), *b = ptr_param(k, "b_ptr", tb), *c = ptr_param(k, "c_ptr", tc);
    tir_value *vM = int_param(k, "M"), *vN = int_param(k, "N"), *vK = int_param(k, "K");
    tir_value *one = iconst(k, 1), *zero = iconst(k, 0);
    tir_value *pm = tir_program_id(&k->b, 0), *pn = tir_program_id(&k->b, 1);
    tir_value *bm = isym(k, BM), *bn = isym(k, BN), *bk = isym(k, BK);
    tir_value *om = op1(k, TIR_MUL, i32(), pm, bm), *on = op1(k, TIR_MUL, i32(), pn, bn);
    tir_value *pa = make_bptr2(k, a, vM, vK, vK, one, om, zero, BM, BK);
    tir_value *pb = make_bptr2(k, b, vK, vN, vN, one, zero, on, BK, BN);
    tir_value *acc0 = full(k, tile2(k, TIR_F32, BM, BN), 0.0);
    tir_value *init[3] = {acc0, pa, pb};
    loop l = for_begin(k, zero, vK, bk, init, 3);
    tir_value *acc = tir_for_arg(l.op, 0), *ia = tir_for_arg(l.op, 1), *ib = tir_for_arg(l.op, 2);
    tir_value *ta_ = load(k, ia, 3, TIR_PAD_ZERO), *tb_ = load(k, ib, 3, TIR_PAD_ZERO);
    tir_value *ops[3] = {ta_, tb_, acc};
    tir_type at = acc->type;
    tir_value *nacc = tir_op_build(&k->b, TIR_DOT, NOLOC, ops, 3, &at, 1)->results[0];
    tir_value *y[3] = {nacc, advance2(k, ia, zero, bk), advance2(k, ib, bk, zero)};
    for_end(k, l, y, 3);
    tir_value *pc = make_bptr2(k, c, vM, vN, vN, one, om, on, BM, BN);
    store(k, pc, l.op->results[0], 3);
    finish(k);
    return k;
}

static void check_matmul(int64_t M, int64_t N, int64_t K, int64_t BM, int64_t BN, int64_t BK)
{
    kb *k = build_matmul();
    bind(k, "M", M);
    bind(k, "N", N);
    bind(k, "K", K);
    bind(k, "BLOCK_M", BM);
    bind(k, "BLOCK_N", BN);
    bind(k, "BLOCK_K", BK);
    job j = {0};
    const tir_func *f = k->f;
    tirx_tensor *a = job_add(&j, k, f->params[0].tensor), *b = job_add(&j, k, f->params[1].tensor);
    tirx_tensor *c = job_add(&j, k, f->params[2].tensor);
    tirx_tensor_fill_random(a, 1);
    tirx_tensor_fill_random(b, 2);
    /* random bf16 data really is bf16 */
    for (int64_t i = 0; i < a->numel; i++)
        assert_true(a->data[i] == num_round_bf16(a->data[i]));
    for (int64_t i = 0; i < c->numel; i++)
        c->data[i] = 1e30f; /* every element must be written */
    run_ok(k, &j);
    float *ref = malloc(sizeof(float) * (size_t)(M * N)), *mag = malloc(sizeof(float) * (size_t)(M * N));
    float *aa = malloc(sizeof(float) * (size_t)(M * K)), *ab = malloc(sizeof(float) * (size_t)(K * N));
    num_ref_matmul(M, N, K, a->data, b->data, ref);
    for (int64_t i = 0; i < M * K; i++)
        aa[i] = fabsf(a->data[i]);
    for (int64_t i = 0; i < K * N; i++)
        ab[i] = fabsf(b->data[i]);
    num_ref_matmul(M, N, K, aa, ab, mag);
    /* Products of bf16 values are exact in double; the roundings are the
       accumulator's, once per K block, each at most 2^-24 of a partial sum,
       which is at most sum |a||b| (plus the reference's own rounding). */
    double bound = 0;
    for (int64_t i = 0; i < M * N; i++) {
        double err = fabs((double)c->data[i] - ref[i]);
        double allowed = (double)((K + BK - 1) / BK + 1) * 0x1p-24 * 1.0001 * mag[i];
        if (err > allowed)
            print_error("c[%lld] = %g, reference %g\n", (long long)i, (double)c->data[i], (double)ref[i]);
        assert_true(err <= allowed);
        bound = LM_MAX(bound, fabs(ref[i]));
    }
    assert_true(bound > 0.5); /* the data was not all zero */
    free(ref);
    free(mag);
    free(aa);
    free(ab);
    job_free(&j);
    kb_free(k);
}

static void matmul_partial_blocks(void **state)
{
    (void)state;
    check_matmul(40, 24, 36, 16, 16, 8); /* partial at the M and N edges and in K */
}

static void matmul_exact_blocks(void **state)
{
    (void)state;
    check_matmul(64, 32, 64, 32, 16, 16);
}

static void matmul_single_k_block(void **state)
{
    (void)state;
    check_matmul(8, 8, 5, 8, 8, 16); /* one K trip, mostly padding */
}

/* ---- softmax ----------------------------------------------------------------- */

/* y = softmax(scale * x) along rows; BLOCK_R rows per program, the last
 * program's rows partly outside (NaN padding must not leak into stores). */
static void softmax_rows(void **state)
{
    (void)state;
    kb *k = kb_new();
    kb_func(k, "softmax");
    const sym_expr *R = V(k, "R"), *Cc = V(k, "C"), *BR = V(k, "BLOCK_R");
    const tir_tensor *tx = tensor(k, "x", TIR_INPUT, TIR_F32, 2, R, Cc);
    const tir_tensor *ty = tensor(k, "y", TIR_OUTPUT, TIR_F32, 2, R, Cc);
    set_grid(k, 1, sym_cdiv(k->s, R, BR), NULL);
    tir_value *x = ptr_param(k, "x_ptr", tx), *y = ptr_param(k, "y_ptr", ty);
    tir_value *vR = int_param(k, "R"), *vC = int_param(k, "C");
    tir_value *scale = float_param(k, "scale", 0.75);
    tir_value *one = iconst(k, 1), *zero = iconst(k, 0);
    tir_value *row = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 0), isym(k, BR));
    tir_value *px = make_bptr2(k, x, vR, vC, vC, one, row, zero, BR, Cc);
    tir_value *t = load(k, px, 1, TIR_PAD_NAN);
    tir_type tt = t->type;
    t = op1(k, TIR_MUL, tt, t, op1(k, TIR_SPLAT, tt, scale, NULL));
    tir_value *m = reduce(k, TIR_REDUCE_MAX, t, 1, false);
    tir_value *mb = op1(k, TIR_BROADCAST, tt, expand(k, m, 1), NULL);
    tir_value *e = op1(k, TIR_EXP, tt, op1(k, TIR_SUB, tt, t, mb), NULL);
    tir_value *s = reduce(k, TIR_REDUCE_SUM, e, 1, true);
    tir_value *out = op1(k, TIR_DIV, tt, e, op1(k, TIR_BROADCAST, tt, s, NULL));
    store(k, make_bptr2(k, y, vR, vC, vC, one, row, zero, BR, Cc), out, 1);
    finish(k);

    bind(k, "R", 10);
    bind(k, "C", 16);
    bind(k, "BLOCK_R", 4);
    job j = {0};
    tirx_tensor *X = job_add(&j, k, tx), *Y = job_add(&j, k, ty);
    tirx_tensor_fill_random(X, 7);
    for (int64_t i = 0; i < X->numel; i++)
        X->data[i] *= 4.0f;
    run_ok(k, &j);
    for (int r = 0; r < 10; r++) {
        double mx = -INFINITY, sum = 0;
        for (int c = 0; c < 16; c++)
            mx = fmax(mx, 0.75 * X->data[r * 16 + c]);
        for (int c = 0; c < 16; c++)
            sum += exp(0.75 * X->data[r * 16 + c] - mx);
        for (int c = 0; c < 16; c++) {
            double want = exp(0.75 * X->data[r * 16 + c] - mx) / sum;
            double got = Y->data[r * 16 + c];
            assert_false(isnan(got));
            assert_true(fabs(got - want) <= 1e-6 * want + 1e-9);
        }
    }
    job_free(&j);
    kb_free(k);
}

/* ---- boundary checks at the edges ---------------------------------------------- */

/* Program (i, j) loads the 4x4 block at (4i, 4j) of x[5,7] with `check`,
 * stores it into y[5,7] boundary-checked, and unchecked into the 8x8 z. */
static kb *build_edges(unsigned check, tir_pad pad, bool store_into_x)
{
    kb *k = kb_new();
    kb_func(k, "edges");
    const sym_expr *R = V(k, "R"), *Cc = V(k, "C"), *B4 = C(k, 4), *Z8 = C(k, 8);
    const tir_tensor *tx = tensor(k, "x", TIR_INPUT, TIR_F32, 2, R, Cc);
    const tir_tensor *ty = tensor(k, "y", TIR_OUTPUT, TIR_F32, 2, R, Cc);
    const tir_tensor *tz = tensor(k, "z", TIR_OUTPUT, TIR_F32, 2, Z8, Z8);
    set_grid(k, 2, sym_cdiv(k->s, R, B4), sym_cdiv(k->s, Cc, B4));
    tir_value *x = ptr_param(k, "x_ptr", tx), *y = ptr_param(k, "y_ptr", ty), *z = ptr_param(k, "z_ptr", tz);
    tir_value *vR = int_param(k, "R"), *vC = int_param(k, "C");
    tir_value *one = iconst(k, 1), *four = iconst(k, 4), *eight = iconst(k, 8);
    tir_value *r0 = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 0), four);
    tir_value *c0 = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 1), four);
    tir_value *t = load(k, make_bptr2(k, x, vR, vC, vC, one, r0, c0, B4, B4), check, pad);
    store(k, make_bptr2(k, store_into_x ? x : y, vR, vC, vC, one, r0, c0, B4, B4), t, 3);
    store(k, make_bptr2(k, z, eight, eight, eight, one, r0, c0, B4, B4), t, 0);
    finish(k);
    bind(k, "R", 5);
    bind(k, "C", 7);
    return k;
}

static void boundary_checked_edges(void **state)
{
    (void)state;
    for (int nan = 0; nan < 2; nan++) {
        kb *k = build_edges(3, nan ? TIR_PAD_NAN : TIR_PAD_ZERO, false);
        job j = {0};
        tirx_tensor *X = job_add(&j, k, k->f->params[0].tensor);
        tirx_tensor *Y = job_add(&j, k, k->f->params[1].tensor);
        tirx_tensor *Z = job_add(&j, k, k->f->params[2].tensor);
        tirx_tensor_fill_random(X, 3);
        run_ok(k, &j);
        for (int i = 0; i < 35; i++)
            assert_true(Y->data[i] == X->data[i]);
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                float v = Z->data[r * 8 + c];
                if (r < 5 && c < 7)
                    assert_true(v == X->data[r * 7 + c]);
                else if (nan)
                    assert_true(isnan(v));
                else
                    assert_true(v == 0.0f);
            }
        job_free(&j);
        kb_free(k);
    }
}

static void unchecked_edge_is_an_error(void **state)
{
    (void)state;
    /* dim 1 (C = 7) is not checked: the second column of programs reads 8..9 */
    kb *k = build_edges(1, TIR_PAD_ZERO, false);
    job j = {0};
    for (int i = 0; i < 3; i++)
        job_add(&j, k, k->f->params[i].tensor);
    run_fails(k, &j, "no boundary check");
    job_free(&j);
    kb_free(k);
}

static void store_into_input_is_an_error(void **state)
{
    (void)state;
    kb *k = build_edges(3, TIR_PAD_ZERO, true);
    job j = {0};
    for (int i = 0; i < 3; i++)
        job_add(&j, k, k->f->params[i].tensor);
    run_fails(k, &j, "input tensor");
    job_free(&j);
    kb_free(k);
}

/* A block pointer that claims more rows than its tensor has: inside its own
 * shape, outside the memory. */
static void access_outside_tensor_is_an_error(void **state)
{
    (void)state;
    kb *k = kb_new();
    kb_func(k, "overrun");
    const sym_expr *R = V(k, "R"), *B4 = C(k, 4);
    const tir_tensor *tx = tensor(k, "x", TIR_INPUT, TIR_F32, 2, R, B4);
    const tir_tensor *ty = tensor(k, "y", TIR_OUTPUT, TIR_F32, 2, R, B4);
    set_grid(k, 1, C(k, 2), NULL);
    tir_value *x = ptr_param(k, "x_ptr", tx), *y = ptr_param(k, "y_ptr", ty);
    tir_value *one = iconst(k, 1), *four = iconst(k, 4), *zero = iconst(k, 0);
    tir_value *r0 = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 0), four);
    tir_value *t = load(k, make_bptr2(k, x, iconst(k, 8), four, four, one, r0, zero, B4, B4), 3, TIR_PAD_ZERO);
    store(k, make_bptr2(k, y, iconst(k, 8), four, four, one, r0, zero, B4, B4), t, 3);
    finish(k);
    bind(k, "R", 6);
    job j = {0};
    job_add(&j, k, tx);
    job_add(&j, k, ty);
    run_fails(k, &j, "out of bounds");
    lm_buf why = {0};
    assert_false(run(k, &j, &why));
    /* the message names the program */
    assert_non_null(strstr(lm_buf_str(&why), "program (1)"));
    lm_buf_free(&why);
    job_free(&j);
    kb_free(k);
}

/* ---- tensor descriptors -------------------------------------------------------- */

/* y[i, j] = x[i - 1, j - 1] + 1 through 4x4 descriptor blocks: the loads
 * start one row and column before the tensor (clipped to zero), the stores
 * run past its far edges (dropped). */
static void descriptor_shifted_copy(void **state)
{
    (void)state;
    kb *k = kb_new();
    kb_func(k, "desc_copy");
    const sym_expr *R = V(k, "R"), *Cc = V(k, "C"), *B = V(k, "BLOCK");
    const tir_tensor *tx = tensor(k, "x", TIR_INPUT, TIR_F32, 2, R, Cc);
    const tir_tensor *ty = tensor(k, "y", TIR_OUTPUT, TIR_F32, 2, R, Cc);
    set_grid(k, 2, sym_cdiv(k->s, R, B), sym_cdiv(k->s, Cc, B));
    tir_value *x = ptr_param(k, "x_ptr", tx), *y = ptr_param(k, "y_ptr", ty);
    tir_value *vR = int_param(k, "R"), *vC = int_param(k, "C");
    tir_value *one = iconst(k, 1), *b = isym(k, B);
    const sym_expr *bs[2] = {B, B};
    tir_type dt = tir_t_desc(&k->a, TIR_F32, 2, bs);
    tir_value *dx_ops[5] = {x, vR, vC, vC, one}, *dy_ops[5] = {y, vR, vC, vC, one};
    tir_op *mx = tir_op_build(&k->b, TIR_MAKE_DESC, NOLOC, dx_ops, 5, &dt, 1);
    mx->rank = 2;
    tir_op *my = tir_op_build(&k->b, TIR_MAKE_DESC, NOLOC, dy_ops, 5, &dt, 1);
    my->rank = 2;
    tir_value *r0 = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 0), b);
    tir_value *c0 = op1(k, TIR_MUL, i32(), tir_program_id(&k->b, 1), b);
    tir_value *r1 = op1(k, TIR_SUB, i32(), r0, one), *c1 = op1(k, TIR_SUB, i32(), c0, one);
    tir_type tt = tile2(k, TIR_F32, B, B);
    tir_value *lops[3] = {mx->results[0], r1, c1};
    tir_value *t = tir_op_build(&k->b, TIR_DESC_LOAD, NOLOC, lops, 3, &tt, 1)->results[0];
    t = op1(k, TIR_ADD, tt, t, full(k, tt, 1.0));
    tir_value *sops[4] = {my->results[0], t, r0, c0};
    tir_op_build(&k->b, TIR_DESC_STORE, NOLOC, sops, 4, NULL, 0);
    finish(k);
    bind(k, "R", 6);
    bind(k, "C", 10);
    bind(k, "BLOCK", 4);
    job j = {0};
    tirx_tensor *X = job_add(&j, k, tx), *Y = job_add(&j, k, ty);
    tirx_tensor_fill_random(X, 11);
    run_ok(k, &j);
    for (int i = 0; i < 6; i++)
        for (int c = 0; c < 10; c++) {
            float want = (i >= 1 && c >= 1 ? X->data[(i - 1) * 10 + c - 1] : 0.0f) + 1.0f;
            assert_true(Y->data[i * 10 + c] == want);
        }
    job_free(&j);
    kb_free(k);
}

/* ---- two launches through a scratch tensor ------------------------------------- */

/* Split: program (r, s) sums x[r, s*BC : (s+1)*BC] into part[r, s].
 * Combine: program r sums part[r, :] (NS columns, read as a block of
 * NSB >= NS with the rest clipped) into out[r] (a bf16 tensor). */
static void split_then_combine(void **state)
{
    (void)state;
    kb *k = kb_new();
    const sym_expr *R = V(k, "R"), *Cc = V(k, "C"), *BC = V(k, "BLOCK_C"), *NS = V(k, "NUM_SPLITS");
    const sym_expr *NSB = V(k, "NSB"), *one_ = C(k, 1);
    const tir_tensor *tx = tensor(k, "x", TIR_INPUT, TIR_F32, 2, R, Cc);
    const tir_tensor *tp = tensor(k, "part", TIR_SCRATCH, TIR_F32, 2, R, NS);
    const tir_tensor *to = tensor(k, "out", TIR_OUTPUT, TIR_BF16, 1, R, NULL);

    kb_func(k, "split");
    tir_func *split = k->f;
    set_grid(k, 2, R, NS);
    {
        tir_value *x = ptr_param(k, "x", tx), *p = ptr_param(k, "part", tp);
        tir_value *vR = int_param(k, "R"), *vC = int_param(k, "C"), *vNS = isym(k, NS);
        tir_value *one = iconst(k, 1);
        tir_value *r = tir_program_id(&k->b, 0), *s = tir_program_id(&k->b, 1);
        tir_value *c0 = op1(k, TIR_MUL, i32(), s, isym(k, BC));
        tir_value *t = load(k, make_bptr2(k, x, vR, vC, vC, one, r, c0, one_, BC), 2, TIR_PAD_ZERO);
        tir_value *sum = reduce(k, TIR_REDUCE_SUM, t, 1, true);
        store(k, make_bptr2(k, p, vR, vNS, vNS, one, r, s, one_, one_), sum, 0);
        finish(k);
    }

    kb_func(k, "combine");
    tir_func *combine = k->f;
    set_grid(k, 1, R, NULL);
    {
        tir_value *p = ptr_param(k, "part", tp), *o = ptr_param(k, "out", to);
        tir_value *vR = int_param(k, "R"), *vNS = isym(k, NS);
        tir_value *one = iconst(k, 1), *zero = iconst(k, 0);
        tir_value *r = tir_program_id(&k->b, 0);
        tir_value *t = load(k, make_bptr2(k, p, vR, vNS, vNS, one, r, zero, one_, NSB), 2, TIR_PAD_ZERO);
        tir_value *sum = reduce(k, TIR_REDUCE_SUM, t, 1, false); /* tile<1> */
        tir_value *bf = op1(k, TIR_CAST, tir_t_with_elem(sum->type, TIR_BF16), sum, NULL);
        const sym_expr *b1[1] = {one_};
        tir_type bt = tir_t_bptr(&k->a, TIR_BF16, 1, b1);
        tir_value *ops[4] = {o, vR, one, r};
        tir_op *mk = tir_op_build(&k->b, TIR_MAKE_BLOCK_PTR, NOLOC, ops, 4, &bt, 1);
        mk->rank = 1;
        store(k, mk->results[0], bf, 0);
        finish(k);
    }

    bind(k, "R", 3);
    bind(k, "C", 20);
    bind(k, "BLOCK_C", 8);
    bind(k, "NUM_SPLITS", 3);
    bind(k, "NSB", 4);
    job j = {0};
    tirx_tensor *X = job_add(&j, k, tx);
    job_add(&j, k, tp);
    tirx_tensor *O = job_add(&j, k, to);
    tirx_tensor_fill_random(X, 5);
    lm_buf why = {0};
    assert_true(tirx_run(split, &k->env, j.t, j.n, &why));
    assert_true(tirx_run(combine, &k->env, j.t, j.n, &why));
    lm_buf_free(&why);
    tirx_tensor *P = tirx_find(j.t, j.n, "part");
    assert_non_null(P);
    for (int r = 0; r < 3; r++) {
        double total = 0;
        for (int s = 0; s < 3; s++) {
            double part = 0;
            for (int c = s * 8; c < LM_MIN(20, s * 8 + 8); c++)
                part += X->data[r * 20 + c];
            assert_true(fabs(P->data[r * 3 + s] - part) <= 1e-6);
            total += P->data[r * 3 + s];
        }
        /* the combine kernel casts to bf16 before storing */
        assert_true(O->data[r] == num_round_bf16((float)total));
    }
    job_free(&j);
    kb_free(k);
}

/* ---- integers, casts, loops, branches ------------------------------------------- */

/* One program computing small things into 1-D outputs of 8 elements each:
 *   o0 = b // 2, o1 = b % 3 (b = arange(0, 8) - 3, Python semantics),
 *   o2 = where(b < 0, -b, b) as f32 through a cast,
 *   o3 = the Fibonacci pair after 3 trips of a loop that swaps its carried
 *        values, a downward loop's sum, an if on program_id, num_programs,
 *        the result of a loop that never runs, cdiv, an i1 sum;
 *   o4 = trans of a 2x4 tile times a column of ones (4 values);
 *   o5 = b / 3 cast to f16. */
static void integers_loops_branches(void **state)
{
    (void)state;
    kb *k = kb_new();
    kb_func(k, "misc");
    const sym_expr *E = C(k, 8);
    const tir_tensor *t0 = tensor(k, "o0", TIR_OUTPUT, TIR_I32, 1, E, NULL);
    const tir_tensor *t1 = tensor(k, "o1", TIR_OUTPUT, TIR_I32, 1, E, NULL);
    const tir_tensor *t2 = tensor(k, "o2", TIR_OUTPUT, TIR_F32, 1, E, NULL);
    const tir_tensor *t3 = tensor(k, "o3", TIR_OUTPUT, TIR_I32, 1, E, NULL);
    const sym_expr *one_ = C(k, 1);
    const tir_tensor *t4 = tensor(k, "o4", TIR_OUTPUT, TIR_F32, 1, C(k, 4), NULL);
    const tir_tensor *t5 = tensor(k, "o5", TIR_OUTPUT, TIR_F16, 1, E, NULL);
    set_grid(k, 1, C(k, 1), NULL);
    tir_value *p[6] = {ptr_param(k, "o0", t0), ptr_param(k, "o1", t1), ptr_param(k, "o2", t2),
                       ptr_param(k, "o3", t3), ptr_param(k, "o4", t4), ptr_param(k, "o5", t5)};
    tir_value *one = iconst(k, 1), *zero = iconst(k, 0), *eight = iconst(k, 8);
    const sym_expr *b8[1] = {E};
    tir_value *bps[6];
    for (int i = 0; i < 6; i++) {
        const sym_expr *b4[1] = {C(k, 4)};
        tir_type bt = tir_t_bptr(&k->a, p[i]->type.elem, 1, i == 4 ? b4 : b8);
        tir_value *ops[4] = {p[i], i == 4 ? iconst(k, 4) : eight, one, zero};
        tir_op *mk = tir_op_build(&k->b, TIR_MAKE_BLOCK_PTR, NOLOC, ops, 4, &bt, 1);
        mk->rank = 1;
        bps[i] = mk->results[0];
    }
    tir_type ti = tile1(k, TIR_I32, E), tf = tile1(k, TIR_F32, E), tb = tile1(k, TIR_I1, E);
    tir_value *ar = op1(k, TIR_ARANGE, ti, NULL, NULL);
    ar->def->sym = C(k, 0);
    ar->def->sym2 = E;
    tir_value *b = op1(k, TIR_SUB, ti, ar, op1(k, TIR_SPLAT, ti, iconst(k, 3), NULL));
    store(k, bps[0], op1(k, TIR_FLOORDIV, ti, b, op1(k, TIR_SPLAT, ti, iconst(k, 2), NULL)), 0);
    store(k, bps[1], op1(k, TIR_MOD, ti, b, op1(k, TIR_SPLAT, ti, iconst(k, 3), NULL)), 0);
    tir_value *neg = op1(k, TIR_CMP_LT, tb, b, op1(k, TIR_SPLAT, ti, zero, NULL));
    tir_value *wops[3] = {neg, op1(k, TIR_NEG, ti, b, NULL), b};
    tir_value *ab = tir_op_build(&k->b, TIR_WHERE, NOLOC, wops, 3, &ti, 1)->results[0];
    store(k, bps[2], op1(k, TIR_CAST, tf, ab, NULL), 0);
    tir_value *third = op1(k, TIR_MUL, tf, op1(k, TIR_CAST, tf, b, NULL),
                           op1(k, TIR_SPLAT, tf, tir_const_float(&k->b, TIR_F32, 1.0 / 3.0), NULL));
    store(k, bps[5], op1(k, TIR_CAST, tile1(k, TIR_F16, E), third, NULL), 0);

    /* (p, q) = (q, p + q) three times, from (0, 1) */
    tir_value *init[2] = {zero, one};
    loop l = for_begin(k, zero, iconst(k, 3), one, init, 2);
    tir_value *fy[2] = {tir_for_arg(l.op, 1),
                        op1(k, TIR_ADD, i32(), tir_for_arg(l.op, 0), tir_for_arg(l.op, 1))};
    for_end(k, l, fy, 2);
    /* sum of range(10, 0, -3) = 10 + 7 + 4 + 1; the loop variable's symbolic
       value 10 - 3*iv is checked on every trip */
    tir_value *init2[1] = {zero};
    loop l2 = for_begin(k, iconst(k, 10), zero, iconst(k, -3), init2, 1);
    tir_value *sy[1] = {op1(k, TIR_ADD, i32(), tir_for_arg(l2.op, 0), tir_for_var(l2.op))};
    for_end(k, l2, sy, 1);
    /* range(5, 5): no trip, the result is the initial value */
    tir_value *init3[1] = {iconst(k, 42)};
    loop l3 = for_begin(k, iconst(k, 5), iconst(k, 5), one, init3, 1);
    tir_value *ny[1] = {op1(k, TIR_ADD, i32(), tir_for_arg(l3.op, 0), one)};
    for_end(k, l3, ny, 1);
    /* if program_id(0) == 0 then 100 else 200 */
    tir_value *cond = op1(k, TIR_CMP_EQ, tir_t_scalar(TIR_I1), tir_program_id(&k->b, 0), zero);
    tir_type it = i32();
    tir_op *ifop = tir_op_build(&k->b, TIR_IF, NOLOC, &cond, 1, &it, 1);
    ifop->nregions = 2;
    tir_block *outer = k->b.block;
    for (int r = 0; r < 2; r++) {
        ifop->regions[r] = tir_block_new(&k->b, ifop);
        k->b.block = ifop->regions[r];
        tir_value *v = iconst(k, r ? 200 : 100);
        tir_op_build(&k->b, TIR_YIELD, NOLOC, &v, 1, NULL, 0);
    }
    k->b.block = outer;
    /* o3 = [p, q, sum, if, num_programs, untouched loop, cdiv(-7, 2),
          the number of negative b (an i1 sum)] */
    tir_value *o3 = op1(k, TIR_MUL, ti, ar, op1(k, TIR_SPLAT, ti, zero, NULL));
    tir_value *vals[8] = {l.op->results[0], l.op->results[1], l2.op->results[0], ifop->results[0],
                          tir_num_programs(&k->b, 0), l3.op->results[0],
                          op1(k, TIR_CDIV, i32(), iconst(k, -7), iconst(k, 2)),
                          reduce(k, TIR_REDUCE_SUM, neg, 0, false)};
    for (int i = 0; i < 8; i++) {
        tir_value *eq = op1(k, TIR_CMP_EQ, tb, ar, op1(k, TIR_SPLAT, ti, iconst(k, i), NULL));
        tir_value *ops[3] = {eq, op1(k, TIR_SPLAT, ti, vals[i], NULL), o3};
        o3 = tir_op_build(&k->b, TIR_WHERE, NOLOC, ops, 3, &ti, 1)->results[0];
    }
    store(k, bps[3], o3, 0);

    /* m[2,4] with m[r][c] = 4r + c, transposed to [4,2] and multiplied by a
       column of ones: the column sums c + (4 + c), viewed as 4 values */
    const sym_expr *two = C(k, 2), *four = C(k, 4);
    tir_value *ar4 = op1(k, TIR_ARANGE, tile1(k, TIR_I32, four), NULL, NULL);
    ar4->def->sym = C(k, 0);
    ar4->def->sym2 = four;
    tir_value *ar2 = op1(k, TIR_ARANGE, tile1(k, TIR_I32, two), NULL, NULL);
    ar2->def->sym = C(k, 0);
    ar2->def->sym2 = two;
    tir_type t24 = tile2(k, TIR_F32, two, four);
    /* a broadcast that adds the leading dimension */
    tir_value *cols = op1(k, TIR_BROADCAST, t24, op1(k, TIR_CAST, tile1(k, TIR_F32, four), ar4, NULL), NULL);
    tir_value *rows = op1(k, TIR_BROADCAST, t24, expand(k, op1(k, TIR_CAST, tile1(k, TIR_F32, two), ar2, NULL), 1),
                          NULL);
    tir_value *m = op1(k, TIR_ADD, t24, op1(k, TIR_MUL, t24, rows, full(k, t24, 4.0)), cols);
    tir_value *mt = op1(k, TIR_TRANS, tile2(k, TIR_F32, four, two), m, NULL);
    tir_value *dops[2] = {mt, full(k, tile2(k, TIR_F32, two, one_), 1.0)};
    tir_type dtt = tile2(k, TIR_F32, four, one_);
    tir_value *d = tir_op_build(&k->b, TIR_DOT, NOLOC, dops, 2, &dtt, 1)->results[0];
    store(k, bps[4], op1(k, TIR_VIEW, tile1(k, TIR_F32, four), d, NULL), 0);
    finish(k);

    job j = {0};
    tirx_tensor *o[6];
    for (int i = 0; i < 6; i++)
        o[i] = job_add(&j, k, k->f->params[i].tensor);
    run_ok(k, &j);
    for (int i = 0; i < 8; i++) {
        int64_t bv = i - 3;
        int64_t fd = bv >= 0 ? bv / 2 : -((-bv + 1) / 2);
        int64_t md = ((bv % 3) + 3) % 3;
        assert_true(o[0]->data[i] == (float)fd);
        assert_true(o[1]->data[i] == (float)md);
        assert_true(o[2]->data[i] == (float)(bv < 0 ? -bv : bv));
        assert_true(o[5]->data[i] == tirx_round(TIR_F16, (float)bv * (float)(1.0 / 3.0)));
        if (i < 4)
            assert_true(o[4]->data[i] == (float)(2 * i + 4));
    }
    float want3[8] = {2, 3, 22, 100, 1, 42, -3, 3};
    for (int i = 0; i < 8; i++)
        assert_true(o[3]->data[i] == want3[i]);
    job_free(&j);
    kb_free(k);
}

/* ---- errors ------------------------------------------------------------------ */

static kb *build_scalar_store(int64_t divisor_const, bool wrong_sym)
{
    kb *k = kb_new();
    kb_func(k, "scalar");
    const sym_expr *one_ = C(k, 1);
    const tir_tensor *to = tensor(k, "o", TIR_OUTPUT, TIR_I32, 1, V(k, "N"), NULL);
    set_grid(k, 1, V(k, "N"), NULL);
    tir_value *o = ptr_param(k, "o", to);
    tir_value *vN = int_param(k, "N"), *vD = int_param(k, "D");
    tir_value *one = iconst(k, 1);
    tir_value *pid = tir_program_id(&k->b, 0);
    tir_value *q = op1(k, TIR_FLOORDIV, i32(), pid, divisor_const ? iconst(k, divisor_const) : vD);
    if (wrong_sym)
        q->sym = sym_add(k->s, q->sym, C(k, 1));
    const sym_expr *b1[1] = {one_};
    tir_type bt = tir_t_bptr(&k->a, TIR_I32, 1, b1);
    tir_value *ops[4] = {o, vN, one, pid};
    tir_op *mk = tir_op_build(&k->b, TIR_MAKE_BLOCK_PTR, NOLOC, ops, 4, &bt, 1);
    mk->rank = 1;
    store(k, mk->results[0], op1(k, TIR_SPLAT, tile1(k, TIR_I32, one_), q, NULL), 0);
    finish(k);
    bind(k, "N", 4);
    return k;
}

static void division_by_zero_is_an_error(void **state)
{
    (void)state;
    kb *k = build_scalar_store(0, false);
    bind(k, "D", 0);
    job j = {0};
    job_add(&j, k, k->f->params[0].tensor);
    run_fails(k, &j, "division by zero");
    job_free(&j);
    kb_free(k);
}

static void scalar_results_match_symbols(void **state)
{
    (void)state;
    kb *k = build_scalar_store(0, false);
    bind(k, "D", -3);
    job j = {0};
    tirx_tensor *o = job_add(&j, k, k->f->params[0].tensor);
    run_ok(k, &j);
    for (int i = 0; i < 4; i++) /* Python floor division by -3 */
        assert_true(o->data[i] == (float)(i == 0 ? 0 : -1));
    job_free(&j);
    kb_free(k);
}

static void wrong_symbolic_value_is_reported(void **state)
{
    (void)state;
    kb *k = build_scalar_store(2, true);
    bind(k, "D", 1);
    job j = {0};
    job_add(&j, k, k->f->params[0].tensor);
    run_fails(k, &j, "differs from its symbolic value");
    job_free(&j);
    kb_free(k);
}

static void missing_binding_is_reported(void **state)
{
    (void)state;
    kb *k = build_scalar_store(2, false);
    job j = {0};
    job_add(&j, k, k->f->params[0].tensor);
    run_fails(k, &j, "'D', which has no value");
    /* and a tensor the launch names but the caller did not give */
    bind(k, "D", 1);
    job none = {0};
    run_fails(k, &none, "no tensor 'o'");
    job_free(&j);
    kb_free(k);
}


/* ---- end to end: kernels/ through the driver ------------------------------------ */

typedef struct e2e {
    drv_result r;
    lm_diag d;
    job j;
    const tirx_opts *opts; /* the run's exp and exp2 (NULL: exact) */
} e2e;

/* Compile `path` with the shapes and constants given, allocate every tensor
 * of the spec, fill the inputs, run every launch in order. */
static void e2e_run(e2e *e, const char *path, const char *shapes, const char *consts)
{
    static char sbuf[256], cbuf[256];
    fe_kv sk[16], ck[16];
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shapes, sk, 16, sbuf, sizeof sbuf);
    o.launch.consts = ck;
    o.launch.nconsts = parse_kv(consts, ck, 16, cbuf, sizeof cbuf);
    lm_diag_init(&e->d, stderr);
    bool ok = drv_compile(&e->r, &o, &e->d);
    if (!ok)
        print_error("%s did not compile\n", path);
    assert_true(ok);
    const fe_spec *spec = e->r.spec;
    assert_true(spec->ntensors <= (int)LM_COUNT(e->j.t));
    for (int i = 0; i < spec->ntensors; i++) {
        lm_buf why = {0};
        ok = tirx_tensor_init(&e->j.t[i], spec->tensors[i], &spec->env, &why);
        if (!ok)
            print_error("%s\n", lm_buf_str(&why));
        lm_buf_free(&why);
        assert_true(ok);
        e->j.n++;
        if (spec->tensors[i]->role == TIR_INPUT)
            tirx_tensor_fill_random(&e->j.t[i], 100 + (uint64_t)i);
        else /* an element never written, or scratch read before written, shows */
            for (int64_t x = 0; x < e->j.t[i].numel; x++)
                e->j.t[i].data[x] = NAN;
    }
    for (int i = 0; i < e->r.nlaunches; i++) {
        lm_buf why = {0};
        ok = tirx_run_opts(e->r.launches[i].func, &spec->env, e->j.t, e->j.n, e->opts, &why);
        if (!ok)
            print_error("launch %d: %s\n", i, lm_buf_str(&why));
        lm_buf_free(&why);
        assert_true(ok);
    }
}

static void e2e_free(e2e *e)
{
    job_free(&e->j);
    drv_free(&e->r);
}

static tirx_tensor *e2e_tensor(e2e *e, const char *name)
{
    tirx_tensor *t = tirx_find(e->j.t, e->j.n, name);
    assert_non_null(t);
    return t;
}

static void e2e_matmul(void **state)
{
    (void)state;
    const int64_t M = 72, N = 40, K = 56, BK = 16;
    e2e e = {0};
    e2e_run(&e, "kernels/matmul.py", "M=72,N=40,K=56", "BLOCK_M=32,BLOCK_N=16,BLOCK_K=16");
    tirx_tensor *a = e2e_tensor(&e, "a"), *b = e2e_tensor(&e, "b"), *c = e2e_tensor(&e, "c");
    float *ref = malloc(sizeof(float) * (size_t)(M * N)), *mag = malloc(sizeof(float) * (size_t)(M * N));
    float *aa = malloc(sizeof(float) * (size_t)(M * K)), *ab = malloc(sizeof(float) * (size_t)(K * N));
    num_ref_matmul(M, N, K, a->data, b->data, ref);
    for (int64_t i = 0; i < M * K; i++)
        aa[i] = fabsf(a->data[i]);
    for (int64_t i = 0; i < K * N; i++)
        ab[i] = fabsf(b->data[i]);
    num_ref_matmul(M, N, K, aa, ab, mag);
    /* as in check_matmul: one fp32 rounding of the accumulator per K block */
    for (int64_t i = 0; i < M * N; i++)
        assert_true(fabs((double)c->data[i] - ref[i]) <= (double)((K + BK - 1) / BK + 1) * 0x1p-24 * 1.0001 * mag[i]);
    free(ref);
    free(mag);
    free(aa);
    free(ab);
    e2e_free(&e);
}

/* Triton's tutorial matmul: a 1-D grid swizzled into groups of row blocks
 * (//, % and min on program ids, all checked against their symbolic
 * values), f16 inputs, acc += dot, leaky ReLU, an f16 result. */
static void e2e_tutorial_matmul(void **state)
{
    (void)state;
    const int64_t M = 100, N = 72, K = 40, BK = 16;
    e2e e = {0};
    e2e_run(&e, "tests/kernels/tutorial_matmul.py", "M=100,N=72,K=40",
            "BLOCK_SIZE_M=32,BLOCK_SIZE_N=16,BLOCK_SIZE_K=16");
    tirx_tensor *a = e2e_tensor(&e, "a"), *b = e2e_tensor(&e, "b"), *c = e2e_tensor(&e, "c");
    float *ref = malloc(sizeof(float) * (size_t)(M * N)), *mag = malloc(sizeof(float) * (size_t)(M * N));
    float *aa = malloc(sizeof(float) * (size_t)(M * K)), *ab = malloc(sizeof(float) * (size_t)(K * N));
    num_ref_matmul(M, N, K, a->data, b->data, ref);
    for (int64_t i = 0; i < M * K; i++)
        aa[i] = fabsf(a->data[i]);
    for (int64_t i = 0; i < K * N; i++)
        ab[i] = fabsf(b->data[i]);
    num_ref_matmul(M, N, K, aa, ab, mag);
    int negative = 0;
    for (int64_t i = 0; i < M * N; i++) {
        double lr = ref[i] >= 0 ? ref[i] : 0.01 * ref[i];
        /* two fp32 roundings per K block (the dot, then +=), then f16, whose
           rounding may go either way when the sum sits near a tie: one ulp,
           at most 2^-10 of the value, or 2^-24 among the subnormals */
        double acc_err = (double)(2 * ((K + BK - 1) / BK) + 1) * 0x1p-24 * 1.0001 * mag[i];
        double allowed = acc_err + 0x1p-10 * (fabs(lr) + acc_err) + 0x1p-24;
        assert_false(isnan(c->data[i]));
        assert_true(c->data[i] == tirx_round(TIR_F16, c->data[i]));
        assert_true(fabs((double)c->data[i] - lr) <= allowed);
        negative += ref[i] < -0.1;
    }
    assert_true(negative > 0); /* the activation's other branch was taken */
    free(ref);
    free(mag);
    free(aa);
    free(ab);
    e2e_free(&e);
}

/* The kernel rounds P to bf16 (or f16) before P V and the output too: each
 * is a relative error of at most 2^-9, on a convex combination of values in
 * [-1, 1], so 4 * 2^-9 bounds the difference from the exact softmax. */
static void check_attention_out(const float *got, const float *ref, int64_t n, const float *other)
{
    num_cmp c = num_compare(got, ref, n);
    if (c.max_abs > 4 * 0x1p-9 || c.nonfinite)
        print_error("max_abs %g at %lld, nonfinite %lld\n", c.max_abs, (long long)c.worst_index,
                    (long long)c.nonfinite);
    assert_true(c.max_abs <= 4 * 0x1p-9);
    assert_int_equal(c.nonfinite, 0);
    if (other) /* the test tells causal from non-causal attention apart */
        assert_true(num_compare(got, other, n).max_abs > 0.05);
}

static void e2e_attention(bool causal)
{
    const int64_t B = 1, H = 2, S = 40, D = 16;
    e2e e = {0};
    e2e_run(&e, "kernels/flash_attention.py", "B=1,H=2,S=40,D=16",
            causal ? "BLOCK_M=16,BLOCK_N=16,CAUSAL=1" : "BLOCK_M=16,BLOCK_N=16");
    tirx_tensor *q = e2e_tensor(&e, "q"), *k = e2e_tensor(&e, "k"), *v = e2e_tensor(&e, "v");
    tirx_tensor *o = e2e_tensor(&e, "o");
    int64_t n = B * H * S * D;
    float *ref = malloc(sizeof(float) * (size_t)n), *other = malloc(sizeof(float) * (size_t)n);
    num_ref_attention(B, H, H, S, S, D, q->data, k->data, v->data, 0.25f, causal, ref);
    num_ref_attention(B, H, H, S, S, D, q->data, k->data, v->data, 0.25f, !causal, other);
    check_attention_out(o->data, ref, n, other);
    free(ref);
    free(other);
    e2e_free(&e);
}

static void e2e_attention_plain(void **state)
{
    (void)state;
    e2e_attention(false);
}

static void e2e_attention_causal(void **state)
{
    (void)state;
    e2e_attention(true);
}

static int64_t exp2_calls;
static float counting_exp2(float x)
{
    exp2_calls++;
    return exp2f(x);
}

/* tirx_opts replaces tl.exp2: the kernel's exp2 runs on its whole score
 * block and on the rescale vector once per key block, so 2 heads x 3 query
 * blocks x 3 key blocks x (16 x 16 + 16) calls, and the result is the
 * exact one's. */
static void e2e_exp2_option(void **state)
{
    (void)state;
    tirx_opts o = {.exp2 = counting_exp2};
    e2e e = {.opts = &o};
    exp2_calls = 0;
    e2e_run(&e, "kernels/flash_attention.py", "B=1,H=2,S=40,D=16", "BLOCK_M=16,BLOCK_N=16");
    assert_true(exp2_calls == 2 * 3 * 3 * (16 * 16 + 16));
    tirx_tensor *q = e2e_tensor(&e, "q"), *k = e2e_tensor(&e, "k"), *v = e2e_tensor(&e, "v");
    int64_t n = 2 * 40 * 16;
    float *ref = malloc(sizeof(float) * (size_t)n);
    num_ref_attention(1, 2, 2, 40, 40, 16, q->data, k->data, v->data, 0.25f, false, ref);
    check_attention_out(e2e_tensor(&e, "o")->data, ref, n, NULL);
    free(ref);
    e2e_free(&e);
}

/* The tutorial-style attention: f16, two heads per program through a
 * static_range holding the key loop, 2-D descriptors over all heads' rows
 * (so N_CTX must be a multiple of the blocks), causal by default. */
static void e2e_tutorial_attention(void **state)
{
    (void)state;
    const int64_t Z = 1, H = 4, S = 48, D = 16;
    for (int causal = 0; causal < 2; causal++) {
        e2e e = {0};
        e2e_run(&e, "tests/kernels/tutorial_attention.py", "Z=1,H=4,N_CTX=48,HEAD_DIM=16",
                causal ? "BLOCK_M=16,BLOCK_N=16" : "BLOCK_M=16,BLOCK_N=16,CAUSAL=0");
        tirx_tensor *q = e2e_tensor(&e, "q"), *k = e2e_tensor(&e, "k"), *v = e2e_tensor(&e, "v");
        tirx_tensor *o = e2e_tensor(&e, "o");
        int64_t n = Z * H * S * D;
        float *ref = malloc(sizeof(float) * (size_t)n), *other = malloc(sizeof(float) * (size_t)n);
        num_ref_attention(Z, H, H, S, S, D, q->data, k->data, v->data, 0.25f, causal, ref);
        num_ref_attention(Z, H, H, S, S, D, q->data, k->data, v->data, 0.25f, !causal, other);
        check_attention_out(o->data, ref, n, other);
        free(ref);
        free(other);
        e2e_free(&e);
    }
}

/* Two launches (split, combine) through the scratch tensors part and lse;
 * S = 50 with 3 splits of whole 16-key blocks leaves the last split short. */
static void e2e_flash_decode(void **state)
{
    (void)state;
    const int64_t B = 1, H = 4, HKV = 2, S = 50, D = 16;
    e2e e = {0};
    e2e_run(&e, "kernels/flash_decode.py", "B=1,H=4,HKV=2,S=50,D=16", "NUM_SPLITS=3,BLOCK_N=16");
    assert_int_equal(e.r.nlaunches, 2);
    tirx_tensor *q = e2e_tensor(&e, "q"), *k = e2e_tensor(&e, "k"), *v = e2e_tensor(&e, "v");
    tirx_tensor *o = e2e_tensor(&e, "o");
    int64_t n = B * H * D;
    float *ref = malloc(sizeof(float) * (size_t)n);
    num_ref_attention(B, H, HKV, 1, S, D, q->data, k->data, v->data, 0.25f, false, ref);
    check_attention_out(o->data, ref, n, NULL);
    free(ref);
    e2e_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_to_element_types),
        cmocka_unit_test(matmul_partial_blocks),
        cmocka_unit_test(matmul_exact_blocks),
        cmocka_unit_test(matmul_single_k_block),
        cmocka_unit_test(softmax_rows),
        cmocka_unit_test(boundary_checked_edges),
        cmocka_unit_test(unchecked_edge_is_an_error),
        cmocka_unit_test(store_into_input_is_an_error),
        cmocka_unit_test(access_outside_tensor_is_an_error),
        cmocka_unit_test(descriptor_shifted_copy),
        cmocka_unit_test(split_then_combine),
        cmocka_unit_test(integers_loops_branches),
        cmocka_unit_test(division_by_zero_is_an_error),
        cmocka_unit_test(scalar_results_match_symbols),
        cmocka_unit_test(wrong_symbolic_value_is_reported),
        cmocka_unit_test(missing_binding_is_reported),
        cmocka_unit_test(e2e_matmul),
        cmocka_unit_test(e2e_tutorial_matmul),
        cmocka_unit_test(e2e_attention_plain),
        cmocka_unit_test(e2e_attention_causal),
        cmocka_unit_test(e2e_exp2_option),
        cmocka_unit_test(e2e_tutorial_attention),
        cmocka_unit_test(e2e_flash_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
