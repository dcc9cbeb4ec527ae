/* test_access.c - access analysis on Tile IR built by hand: the matmul
 * kernel's three operands (A reused along grid axis 1, B along axis 0, C
 * along none, A and B moving with the K loop), offsets that are not affine,
 * pointers that cannot be followed, tensor descriptors, base offsets placed
 * on a batch dimension, transposed views, pointers read after their loop and
 * the printed summary. Every expected offset is written out from what the
 * kernel computes, not from a previous run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/access.h"

/* ---- fixture ----------------------------------------------------------- */

static lm_arena A;
static sym_ctx *C;
static tir_builder B;
static tir_func *F;
static const lm_loc NOLOC = {0};

static int setup(void **state)
{
    (void)state;
    lm_arena_init(&A);
    C = sym_ctx_new();
    F = tir_func_new(&A, "k", NOLOC);
    tir_builder_init(&B, &A, C, F);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sym_ctx_free(C);
    lm_arena_free(&A);
    return 0;
}

static const sym_expr *V(const char *n) { return sym_var(C, n); }
static const sym_expr *K(int64_t v) { return sym_const(C, v); }
static const sym_expr *mul(const sym_expr *a, const sym_expr *b) { return sym_mul(C, a, b); }
static const sym_expr *add(const sym_expr *a, const sym_expr *b) { return sym_add(C, a, b); }
static const sym_expr *pid(int g) { return tir_pid_var(C, g); }
static const sym_expr *ivv(int l) { return tir_iv_var(C, l); }

/* A row-major tensor of the launch: strides are products of later sizes. */
static const tir_tensor *tensor(const char *name, tir_role role, tir_elem e, int rank, const sym_expr *const *shape)
{
    tir_tensor *t = LM_NEW(&A, tir_tensor);
    t->name = name;
    t->role = role;
    t->elem = e;
    t->rank = rank;
    t->shape = LM_NEWN(&A, const sym_expr *, rank);
    t->strides = LM_NEWN(&A, const sym_expr *, rank);
    const sym_expr *st = K(1);
    for (int d = rank - 1; d >= 0; d--) {
        t->shape[d] = shape[d];
        t->strides[d] = st;
        st = mul(st, shape[d]);
    }
    return t;
}

static tir_value *ptr_param(const char *name, const tir_tensor *t)
{
    return tir_add_param(&B, name, tir_t_ptr(t ? t->elem : TIR_BF16), NULL, t);
}

static tir_value *int_param(const char *name, const sym_expr *value)
{
    return tir_add_param(&B, name, tir_t_scalar(TIR_I32), value, NULL);
}

static tir_value *sv(const sym_expr *e) { return tir_sym_value(&B, TIR_I32, e); }
static tir_value *ci(int64_t v) { return tir_const_int(&B, TIR_I32, v); }
static tir_value *bin(tir_opcode c, tir_value *x, tir_value *y)
{
    return tir_build1(&B, c, NOLOC, tir_t_scalar(TIR_I32), x, y, NULL, NULL);
}

static tir_value *make_bptr(tir_value *base, int rank, tir_value *const *shape, tir_value *const *strides,
                            tir_value *const *offsets, const sym_expr *const *block)
{
    tir_value *o[1 + 3 * TIR_MAX_RANK];
    o[0] = base;
    for (int i = 0; i < rank; i++) {
        o[1 + i] = shape[i];
        o[1 + rank + i] = strides[i];
        o[1 + 2 * rank + i] = offsets[i];
    }
    tir_type t = tir_t_bptr(&A, base->type.elem, rank, block);
    tir_op *op = tir_op_build(&B, TIR_MAKE_BLOCK_PTR, NOLOC, o, 1 + 3 * rank, &t, 1);
    op->rank = rank;
    for (int i = 0; i < rank; i++)
        op->order[i] = rank - 1 - i;
    return op->results[0];
}

static tir_value *make_desc(tir_value *base, int rank, tir_value *const *shape, tir_value *const *strides,
                            const sym_expr *const *block)
{
    tir_value *o[1 + 2 * TIR_MAX_RANK];
    o[0] = base;
    for (int i = 0; i < rank; i++) {
        o[1 + i] = shape[i];
        o[1 + rank + i] = strides[i];
    }
    tir_type t = tir_t_desc(&A, base->type.elem, rank, block);
    tir_op *op = tir_op_build(&B, TIR_MAKE_DESC, NOLOC, o, 1 + 2 * rank, &t, 1);
    op->rank = rank;
    return op->results[0];
}

static tir_value *advance(tir_value *p, tir_value *const *offs)
{
    tir_value *o[1 + TIR_MAX_RANK];
    o[0] = p;
    for (int i = 0; i < p->type.rank; i++)
        o[1 + i] = offs[i];
    tir_op *op = tir_op_build(&B, TIR_ADVANCE, NOLOC, o, 1 + p->type.rank, &p->type, 1);
    return op->results[0];
}

static tir_value *load(tir_value *p)
{
    tir_type t = tir_t_tile(&A, p->type.elem, p->type.rank, p->type.shape);
    return tir_build1(&B, TIR_LOAD, NOLOC, t, p, NULL, NULL, NULL);
}

static void store(tir_value *p, tir_value *v)
{
    tir_value *o[2] = {p, v};
    tir_op_build(&B, TIR_STORE, NOLOC, o, 2, NULL, 0);
}

static tir_value *desc_load(tir_value *d, tir_value *const *offs)
{
    tir_value *o[1 + TIR_MAX_RANK];
    o[0] = d;
    for (int i = 0; i < d->type.rank; i++)
        o[1 + i] = offs[i];
    tir_type t = tir_t_tile(&A, d->type.elem, d->type.rank, d->type.shape);
    return tir_op_build(&B, TIR_DESC_LOAD, NOLOC, o, 1 + d->type.rank, &t, 1)->results[0];
}

static void desc_store(tir_value *d, tir_value *v, tir_value *const *offs)
{
    tir_value *o[2 + TIR_MAX_RANK];
    o[0] = d;
    o[1] = v;
    for (int i = 0; i < d->type.rank; i++)
        o[2 + i] = offs[i];
    tir_op_build(&B, TIR_DESC_STORE, NOLOC, o, 2 + d->type.rank, NULL, 0);
}

static tir_value *zeros(int rank, const sym_expr *const *shape)
{
    tir_type t = tir_t_tile(&A, TIR_F32, rank, shape);
    tir_op *op = tir_op_build(&B, TIR_FULL, NOLOC, NULL, 0, &t, 1);
    op->is_float = true;
    op->fval = 0;
    return op->results[0];
}

static tir_value *dot(tir_value *x, tir_value *y, tir_value *acc)
{
    return tir_build1(&B, TIR_DOT, NOLOC, acc->type, x, y, acc, NULL);
}

/* A loop under construction: begin_for opens the body, end_for yields and
 * infers the symbolic values, as the checker does. */
typedef struct loop {
    tir_op *op;
    tir_block *outer;
} loop;

static loop begin_for(tir_value *lo, tir_value *hi, tir_value *step, tir_value *const *init, int n)
{
    tir_value *o[16];
    tir_type rt[16] = {0};
    o[0] = lo;
    o[1] = hi;
    o[2] = step;
    for (int i = 0; i < n; i++) {
        o[3 + i] = init[i];
        rt[i] = init[i]->type;
    }
    loop l;
    l.op = tir_op_build(&B, TIR_FOR, NOLOC, o, 3 + n, rt, n);
    tir_block *body = tir_block_new(&B, l.op);
    l.op->regions[0] = body;
    l.op->nregions = 1;
    tir_block_add_arg(&B, body, lo->type);
    for (int i = 0; i < n; i++)
        tir_block_add_arg(&B, body, init[i]->type);
    l.op->iv = tir_iv_var(C, F->nloops++);
    l.outer = B.block;
    B.block = body;
    return l;
}

static tir_value *loop_var(loop l) { return tir_for_var(l.op); }
static tir_value *loop_arg(loop l, int i) { return tir_for_arg(l.op, i); }

static void end_for(loop l, tir_value *const *yields, int n)
{
    tir_op_build(&B, TIR_YIELD, NOLOC, yields, n, NULL, 0);
    B.block = l.outer;
    tir_sym_infer_for(&B, l.op);
}

static void finish(void)
{
    tir_op_build(&B, TIR_RETURN, NOLOC, NULL, 0, NULL, 0);
    lm_buf why = {0};
    bool ok = tir_verify(F, &why);
    if (!ok)
        fail_msg("hand-built IR does not verify: %s", lm_buf_str(&why));
    lm_buf_free(&why);
}

static void set_grid(int rank, const sym_expr *const *g)
{
    F->grid_rank = rank;
    for (int i = 0; i < rank; i++)
        F->grid[i] = g[i];
}

static const char *S(const sym_expr *e)
{
    static char out[4][256];
    static int slot;
    lm_buf b = {0};
    if (e)
        sym_print(&b, e);
    else
        lm_buf_puts(&b, "<null>");
    char *o = out[slot++ % 4];
    snprintf(o, sizeof out[0], "%s", lm_buf_str(&b));
    lm_buf_free(&b);
    return o;
}

/* dims[d] is affine with exactly the given terms (var, coeff pairs, NULL
 * ended) and constant */
static void assert_affine(const acc_dim *d, const sym_expr *constant, ...)
{
    assert_true(d->affine);
    va_list ap;
    va_start(ap, constant);
    int n = 0;
    for (;;) {
        const sym_expr *var = va_arg(ap, const sym_expr *);
        if (!var)
            break;
        const sym_expr *co = va_arg(ap, const sym_expr *);
        assert_true(n < d->nterms);
        assert_string_equal(S(d->terms[n].var), S(var));
        assert_string_equal(S(d->terms[n].coeff), S(co));
        n++;
    }
    va_end(ap);
    assert_int_equal(d->nterms, n);
    assert_ptr_equal(d->constant, constant);
}

static void assert_text(const acc_result *r, const char *want)
{
    lm_buf b = {0};
    acc_print(&b, F, r);
    if (strcmp(lm_buf_str(&b), want) != 0)
        fail_msg("printed:\n%s\nexpected:\n%s", lm_buf_str(&b), want);
    lm_buf_free(&b);
}

/* ---- the matmul kernel ------------------------------------------------- */

/* for k in range(0, K, BLOCK_K): a and b advance, acc += dot(a, b); c is
 * stored after the loop. With `grouped`, the row block is
 * floordiv(pid.0, 4)*BLOCK_M instead, which is not affine. */
typedef struct mm {
    const tir_tensor *a, *b, *c;
    tir_op *loop;
} mm;

static mm build_matmul(bool grouped)
{
    const sym_expr *M = V("M"), *N = V("N"), *Kd = V("K");
    const sym_expr *BM = V("BLOCK_M"), *BN = V("BLOCK_N"), *BK = V("BLOCK_K");
    mm k;
    k.a = tensor("a", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){M, Kd});
    k.b = tensor("b", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){Kd, N});
    k.c = tensor("c", TIR_OUTPUT, TIR_F32, 2, (const sym_expr *[]){M, N});
    set_grid(2, (const sym_expr *[]){sym_cdiv(C, M, BM), sym_cdiv(C, N, BN)});
    tir_value *pa = ptr_param("a_ptr", k.a), *pb = ptr_param("b_ptr", k.b), *pc = ptr_param("c_ptr", k.c);
    tir_value *vM = int_param("M", M), *vN = int_param("N", N), *vK = int_param("K", Kd);
    /* the launch passes a.stride(0) etc.: the tensors' own strides */
    tir_value *sam = int_param("stride_am", k.a->strides[0]), *sak = int_param("stride_ak", k.a->strides[1]);
    tir_value *sbk = int_param("stride_bk", k.b->strides[0]), *sbn = int_param("stride_bn", k.b->strides[1]);
    tir_value *scm = int_param("stride_cm", k.c->strides[0]), *scn = int_param("stride_cn", k.c->strides[1]);

    tir_value *pm = tir_program_id(&B, 0), *pn = tir_program_id(&B, 1);
    tir_value *vBM = sv(BM), *vBN = sv(BN), *vBK = sv(BK), *zero = ci(0);
    if (grouped)
        pm = bin(TIR_FLOORDIV, pm, ci(4));
    tir_value *om = bin(TIR_MUL, pm, vBM), *on = bin(TIR_MUL, pn, vBN);
    tir_value *ba = make_bptr(pa, 2, (tir_value *[]){vM, vK}, (tir_value *[]){sam, sak},
                              (tir_value *[]){om, zero}, (const sym_expr *[]){BM, BK});
    tir_value *bb = make_bptr(pb, 2, (tir_value *[]){vK, vN}, (tir_value *[]){sbk, sbn},
                              (tir_value *[]){zero, on}, (const sym_expr *[]){BK, BN});
    tir_value *acc0 = zeros(2, (const sym_expr *[]){BM, BN});
    loop l = begin_for(zero, vK, vBK, (tir_value *[]){acc0, ba, bb}, 3);
    tir_value *ta = load(loop_arg(l, 1)), *tb = load(loop_arg(l, 2));
    tir_value *acc = dot(ta, tb, loop_arg(l, 0));
    tir_value *na = advance(loop_arg(l, 1), (tir_value *[]){zero, vBK});
    tir_value *nb = advance(loop_arg(l, 2), (tir_value *[]){vBK, zero});
    end_for(l, (tir_value *[]){acc, na, nb}, 3);
    tir_value *bc = make_bptr(pc, 2, (tir_value *[]){vM, vN}, (tir_value *[]){scm, scn},
                              (tir_value *[]){om, on}, (const sym_expr *[]){BM, BN});
    store(bc, l.op->results[0]);
    finish();
    k.loop = l.op;
    return k;
}

static void matmul_maps(void **state)
{
    (void)state;
    mm k = build_matmul(false);
    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 3);
    const sym_expr *BM = V("BLOCK_M"), *BN = V("BLOCK_N"), *BK = V("BLOCK_K"), *z = K(0);

    /* a: rows BLOCK_M*pid.0, columns BLOCK_K*iv.0 */
    acc_access *a = &r->acc[0];
    assert_int_equal(a->op->code, TIR_LOAD);
    assert_false(a->is_store);
    assert_ptr_equal(a->tensor, k.a);
    assert_int_equal(a->rank, 2);
    assert_ptr_equal(a->block[0], BM);
    assert_ptr_equal(a->block[1], BK);
    assert_ptr_equal(a->dims[0].offset, mul(BM, pid(0)));
    assert_ptr_equal(a->dims[1].offset, mul(BK, ivv(0)));
    assert_affine(&a->dims[0], z, pid(0), BM, NULL);
    assert_affine(&a->dims[1], z, ivv(0), BK, NULL);
    assert_true(a->affine);
    assert_int_equal(a->nloops, 1);
    assert_ptr_equal(a->loops[0], k.loop);
    assert_int_equal(a->grid_dep, 1u << 0);
    assert_int_equal(a->loop_dep, 1u << 0);
    assert_int_equal(a->reuse, 1u << 1);

    /* b: rows BLOCK_K*iv.0, columns BLOCK_N*pid.1 */
    acc_access *b = &r->acc[1];
    assert_ptr_equal(b->tensor, k.b);
    assert_affine(&b->dims[0], z, ivv(0), BK, NULL);
    assert_affine(&b->dims[1], z, pid(1), BN, NULL);
    assert_int_equal(b->grid_dep, 1u << 1);
    assert_int_equal(b->loop_dep, 1u << 0);
    assert_int_equal(b->reuse, 1u << 0);

    /* c: stored once, after the loop, by every program at its own block */
    acc_access *c = &r->acc[2];
    assert_int_equal(c->op->code, TIR_STORE);
    assert_true(c->is_store);
    assert_ptr_equal(c->tensor, k.c);
    assert_affine(&c->dims[0], z, pid(0), BM, NULL);
    assert_affine(&c->dims[1], z, pid(1), BN, NULL);
    assert_int_equal(c->nloops, 0);
    assert_int_equal(c->grid_dep, 3u);
    assert_int_equal(c->loop_dep, 0u);
    assert_int_equal(c->reuse, 0u);
}

static void matmul_text(void **state)
{
    (void)state;
    build_matmul(false);
    acc_result *r = acc_analyze(F, C, &A);
    assert_text(r, "load a  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*pid.0, BLOCK_K*iv.0]\n"
                   "  depends on grid axes {0}, loops {iv.0}; reused along grid axis 1 (cdiv(N, BLOCK_N))\n"
                   "load b  block [BLOCK_K, BLOCK_N]  at [BLOCK_K*iv.0, BLOCK_N*pid.1]\n"
                   "  depends on grid axes {1}, loops {iv.0}; reused along grid axis 0 (cdiv(M, BLOCK_M))\n"
                   "store c  block [BLOCK_M, BLOCK_N]  at [BLOCK_M*pid.0, BLOCK_N*pid.1]\n"
                   "  depends on grid axes {0, 1}, loops {}; not reused\n"
                   "\n"
                   "a: reused along grid axis 1 (cdiv(N, BLOCK_N))\n"
                   "b: reused along grid axis 0 (cdiv(M, BLOCK_M))\n"
                   "c: not reused\n");
    /* a second analysis of the same function prints the same */
    acc_result *r2 = acc_analyze(F, C, &A);
    lm_buf x = {0}, y = {0};
    acc_print(&x, F, r);
    acc_print(&y, F, r2);
    assert_string_equal(lm_buf_str(&x), lm_buf_str(&y));
    lm_buf_free(&x);
    lm_buf_free(&y);
}

/* pid_m = pid.0 // 4: the offset is known but not affine; it still depends
 * on axis 0 only, so A keeps its reuse along axis 1 */
static void grouped_not_affine(void **state)
{
    (void)state;
    build_matmul(true);
    acc_result *r = acc_analyze(F, C, &A);
    const sym_expr *BM = V("BLOCK_M");
    acc_access *a = &r->acc[0];
    assert_false(a->affine);
    assert_false(a->dims[0].affine);
    assert_int_equal(a->dims[0].nterms, 0);
    assert_ptr_equal(a->dims[0].offset, mul(BM, sym_floordiv(C, pid(0), K(4))));
    assert_true(a->dims[1].affine);
    assert_int_equal(a->grid_dep, 1u << 0);
    assert_int_equal(a->reuse, 1u << 1);
    acc_access *c = &r->acc[2];
    assert_false(c->affine);
    assert_false(c->dims[0].affine);
    assert_true(c->dims[1].affine);
    assert_int_equal(c->grid_dep, 3u);
    lm_buf b = {0};
    acc_print(&b, F, r);
    assert_non_null(strstr(lm_buf_str(&b), "load a  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*floordiv(pid.0, 4), "
                                           "BLOCK_K*iv.0]  not affine\n"));
    lm_buf_free(&b);
}

/* ---- pointers that move in ways the analysis cannot express ------------- */

/* a pointer advanced by the loop variable moves by a growing amount: its
 * offset is unknown, so it counts as depending on every axis and loop */
static void advance_by_loop_variable(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *Kd = V("K"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K");
    const tir_tensor *t = tensor("x", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){M, Kd});
    set_grid(2, (const sym_expr *[]){sym_cdiv(C, M, BM), K(4)});
    tir_value *p = ptr_param("x_ptr", t);
    tir_value *zero = ci(0), *one = ci(1);
    tir_value *bp = make_bptr(p, 2, (tir_value *[]){sv(M), sv(Kd)}, (tir_value *[]){sv(Kd), one},
                              (tir_value *[]){zero, zero}, (const sym_expr *[]){BM, BK});
    loop l = begin_for(zero, ci(8), one, (tir_value *[]){bp}, 1);
    load(loop_arg(l, 0));
    tir_value *nx = advance(loop_arg(l, 0), (tir_value *[]){zero, loop_var(l)});
    end_for(l, (tir_value *[]){nx}, 1);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 1);
    acc_access *a = &r->acc[0];
    assert_ptr_equal(a->tensor, t);
    /* the row offset never changes; the column offset is a sum of iv's */
    assert_true(a->dims[0].affine);
    assert_ptr_equal(a->dims[0].offset, K(0));
    assert_false(a->dims[1].affine);
    assert_null(a->dims[1].offset);
    assert_false(a->affine);
    assert_int_equal(a->grid_dep, 3u);
    assert_int_equal(a->loop_dep, 1u);
    assert_int_equal(a->reuse, 0u);
    assert_text(r, "load x  block [BLOCK_M, BLOCK_K]  at [0, ?]  not affine\n"
                   "  depends on grid axes {0, 1}, loops {iv.0}; not reused\n"
                   "\n"
                   "x: not reused\n");
}

/* a block pointer passed in as a pointer parameter without a tensor, and
 * one chosen by a branch between two different block pointers */
static void untraceable(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *BM = V("BLOCK_M");
    const tir_tensor *t = tensor("x", TIR_INPUT, TIR_F32, 1, (const sym_expr *[]){M});
    set_grid(1, (const sym_expr *[]){sym_cdiv(C, M, BM)});
    tir_value *p = ptr_param("x_ptr", t);
    tir_value *flag = tir_add_param(&B, "flag", tir_t_scalar(TIR_I1), NULL, NULL);
    tir_value *one = ci(1);
    tir_value *p0 = make_bptr(p, 1, (tir_value *[]){sv(M)}, (tir_value *[]){one}, (tir_value *[]){ci(0)},
                              (const sym_expr *[]){BM});
    tir_value *p1 = make_bptr(p, 1, (tir_value *[]){sv(M)}, (tir_value *[]){one},
                              (tir_value *[]){bin(TIR_MUL, tir_program_id(&B, 0), sv(BM))},
                              (const sym_expr *[]){BM});
    tir_type bt = p0->type;
    /* if flag: p0 else p1 -> the same make only for the second IF */
    tir_op *ifop = tir_op_build(&B, TIR_IF, NOLOC, (tir_value *[]){flag}, 1, (tir_type[]){bt, bt}, 2);
    ifop->nregions = 2;
    tir_block *outer = B.block;
    for (int k = 0; k < 2; k++) {
        ifop->regions[k] = tir_block_new(&B, ifop);
        B.block = ifop->regions[k];
        tir_op_build(&B, TIR_YIELD, NOLOC, (tir_value *[]){k ? p1 : p0, p1}, 2, NULL, 0);
    }
    B.block = outer;
    load(ifop->results[0]);
    load(ifop->results[1]);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 2);
    assert_null(r->acc[0].tensor);
    assert_false(r->acc[0].affine);
    assert_null(r->acc[0].dims[0].offset);
    assert_int_equal(r->acc[0].grid_dep, 1u);
    assert_int_equal(r->acc[0].reuse, 0u);
    assert_ptr_equal(r->acc[1].tensor, t);
    assert_true(r->acc[1].affine);
    assert_affine(&r->acc[1].dims[0], K(0), pid(0), BM, NULL);
    assert_text(r, "load ?  block [BLOCK_M]  at [?]  not affine\n"
                   "  depends on grid axes {0}, loops {}; not reused\n"
                   "load x  block [BLOCK_M]  at [BLOCK_M*pid.0]\n"
                   "  depends on grid axes {0}, loops {}; not reused\n"
                   "\n"
                   "x: not reused\n");
}

/* ---- descriptors ---------------------------------------------------------- */

/* desc.load([pid.0*BLOCK_M, k]) for k in range(0, K, BLOCK_K), and a store
 * through a descriptor carried by the loop unchanged */
static void descriptor_access(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *Kd = V("K"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K");
    const tir_tensor *x = tensor("x", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){M, Kd});
    const tir_tensor *y = tensor("y", TIR_OUTPUT, TIR_BF16, 2, (const sym_expr *[]){M, Kd});
    set_grid(1, (const sym_expr *[]){sym_cdiv(C, M, BM)});
    tir_value *px = ptr_param("x_ptr", x), *py = ptr_param("y_ptr", y);
    tir_value *vM = sv(M), *vK = sv(Kd), *one = ci(1), *zero = ci(0), *vBK = sv(BK);
    tir_value *dx = make_desc(px, 2, (tir_value *[]){vM, vK}, (tir_value *[]){vK, one}, (const sym_expr *[]){BM, BK});
    tir_value *dy = make_desc(py, 2, (tir_value *[]){vM, vK}, (tir_value *[]){vK, one}, (const sym_expr *[]){BM, BK});
    tir_value *om = bin(TIR_MUL, tir_program_id(&B, 0), sv(BM));
    loop l = begin_for(zero, vK, vBK, (tir_value *[]){dy}, 1);
    tir_value *v = desc_load(dx, (tir_value *[]){om, loop_var(l)});
    desc_store(loop_arg(l, 0), v, (tir_value *[]){om, loop_var(l)});
    end_for(l, (tir_value *[]){loop_arg(l, 0)}, 1);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 2);
    for (int i = 0; i < 2; i++) {
        acc_access *a = &r->acc[i];
        assert_int_equal(a->op->code, i ? TIR_DESC_STORE : TIR_DESC_LOAD);
        assert_int_equal(a->is_store, i == 1);
        assert_ptr_equal(a->tensor, i ? y : x);
        assert_true(a->affine);
        assert_affine(&a->dims[0], K(0), pid(0), BM, NULL);
        assert_affine(&a->dims[1], K(0), ivv(0), BK, NULL);
        assert_int_equal(a->grid_dep, 1u);
        assert_int_equal(a->loop_dep, 1u);
        assert_int_equal(a->reuse, 0u);
    }
    assert_text(r, "desc_load x  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*pid.0, BLOCK_K*iv.0]\n"
                   "  depends on grid axes {0}, loops {iv.0}; not reused\n"
                   "desc_store y  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*pid.0, BLOCK_K*iv.0]\n"
                   "  depends on grid axes {0}, loops {iv.0}; not reused\n"
                   "\n"
                   "x: not reused\n"
                   "y: not reused\n");
}

/* ---- placement on tensor dimensions ------------------------------------------ */

/* Attention-style: q has shape (Z, S, D); the kernel moves the base pointer
 * to batch pid.1 (q + pid.1 * stride_qz) and views one (S, D) matrix. The
 * batch offset lands on dimension 0; k, read at offset 0 of the same batch
 * every time, is reused along axis 0 but not along the batch axis 1. */
static void base_offset_on_batch_dim(void **state)
{
    (void)state;
    const sym_expr *Z = V("Z"), *Sq = V("S"), *D = V("D"), *BM = V("BLOCK_M"), *BN = V("BLOCK_N");
    const tir_tensor *q = tensor("q", TIR_INPUT, TIR_BF16, 3, (const sym_expr *[]){Z, Sq, D});
    const tir_tensor *kt = tensor("k", TIR_INPUT, TIR_BF16, 3, (const sym_expr *[]){Z, Sq, D});
    set_grid(2, (const sym_expr *[]){sym_cdiv(C, Sq, BM), Z});
    tir_value *pq = ptr_param("q_ptr", q), *pk = ptr_param("k_ptr", kt);
    tir_value *sz = int_param("stride_z", q->strides[0]), *ss = int_param("stride_s", q->strides[1]);
    tir_value *sd = int_param("stride_d", q->strides[2]);
    tir_value *boff = bin(TIR_MUL, tir_program_id(&B, 1), sz);
    tir_value *qb = tir_build1(&B, TIR_ADDPTR, NOLOC, pq->type, pq, boff, NULL, NULL);
    tir_value *kb = tir_build1(&B, TIR_ADDPTR, NOLOC, pk->type, pk, boff, NULL, NULL);
    tir_value *zero = ci(0), *vS = sv(Sq), *vD = sv(D);
    tir_value *qp = make_bptr(qb, 2, (tir_value *[]){vS, vD}, (tir_value *[]){ss, sd},
                              (tir_value *[]){bin(TIR_MUL, tir_program_id(&B, 0), sv(BM)), zero},
                              (const sym_expr *[]){BM, D});
    tir_value *kp = make_bptr(kb, 2, (tir_value *[]){vS, vD}, (tir_value *[]){ss, sd}, (tir_value *[]){zero, zero},
                              (const sym_expr *[]){BN, D});
    load(qp);
    loop l = begin_for(zero, vS, sv(BN), (tir_value *[]){kp}, 1);
    load(loop_arg(l, 0));
    tir_value *nk = advance(loop_arg(l, 0), (tir_value *[]){sv(BN), zero});
    end_for(l, (tir_value *[]){nk}, 1);
    finish();

    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 2);
    acc_access *a = &r->acc[0];
    assert_ptr_equal(a->tensor, q);
    assert_int_equal(a->rank, 3);
    assert_ptr_equal(a->block[0], K(1));
    assert_ptr_equal(a->block[1], BM);
    assert_ptr_equal(a->block[2], D);
    assert_affine(&a->dims[0], K(0), pid(1), K(1), NULL);
    assert_affine(&a->dims[1], K(0), pid(0), BM, NULL);
    assert_affine(&a->dims[2], K(0), NULL);
    assert_int_equal(a->grid_dep, 3u);
    assert_int_equal(a->reuse, 0u);

    acc_access *b = &r->acc[1];
    assert_ptr_equal(b->tensor, kt);
    assert_affine(&b->dims[0], K(0), pid(1), K(1), NULL);
    assert_affine(&b->dims[1], K(0), ivv(0), BN, NULL);
    assert_int_equal(b->grid_dep, 1u << 1);
    assert_int_equal(b->reuse, 1u << 0);
    assert_text(r, "load q  block [1, BLOCK_M, D]  at [pid.1, BLOCK_M*pid.0, 0]\n"
                   "  depends on grid axes {0, 1}, loops {}; not reused\n"
                   "load k  block [1, BLOCK_N, D]  at [pid.1, BLOCK_N*iv.0, 0]\n"
                   "  depends on grid axes {1}, loops {iv.0}; reused along grid axis 0 (cdiv(S, BLOCK_M))\n"
                   "\n"
                   "q: not reused\n"
                   "k: reused along grid axis 0 (cdiv(S, BLOCK_M))\n");
}

/* b given as b^T: tensor (N, K), viewed as (K, N) with strides (1, K). The
 * view's dimension 0 is the tensor's dimension 1. */
static void transposed_view(void **state)
{
    (void)state;
    const sym_expr *N = V("N"), *Kd = V("K"), *BN = V("BLOCK_N"), *BK = V("BLOCK_K");
    const tir_tensor *bt = tensor("bt", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){N, Kd});
    set_grid(1, (const sym_expr *[]){sym_cdiv(C, N, BN)});
    tir_value *p = ptr_param("bt_ptr", bt);
    tir_value *zero = ci(0), *vK = sv(Kd);
    tir_value *bp = make_bptr(p, 2, (tir_value *[]){vK, sv(N)}, (tir_value *[]){ci(1), vK},
                              (tir_value *[]){zero, bin(TIR_MUL, tir_program_id(&B, 0), sv(BN))},
                              (const sym_expr *[]){BK, BN});
    load(bp);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    acc_access *a = &r->acc[0];
    assert_ptr_equal(a->tensor, bt);
    assert_ptr_equal(a->block[0], BN);
    assert_ptr_equal(a->block[1], BK);
    assert_affine(&a->dims[0], K(0), pid(0), BN, NULL);
    assert_affine(&a->dims[1], K(0), NULL);
}

/* An element offset that is not a whole number of rows stays exact: it goes
 * to the innermost dimension (stride 1). A pointer without a tensor keeps
 * the view's dimensions; its base offset makes every dim non-affine. */
static void base_offset_fallbacks(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *Kd = V("K"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K");
    const tir_tensor *t = tensor("x", TIR_INPUT, TIR_F32, 2, (const sym_expr *[]){M, Kd});
    set_grid(1, (const sym_expr *[]){sym_cdiv(C, M, BM)});
    tir_value *p = ptr_param("x_ptr", t), *raw = ptr_param("raw", NULL);
    tir_value *zero = ci(0), *vK = sv(Kd), *one = ci(1);
    /* x_ptr + pid.0*BLOCK_M*K + 3: BLOCK_M*pid.0 rows and 3 columns */
    tir_value *off = bin(TIR_ADD, bin(TIR_MUL, bin(TIR_MUL, tir_program_id(&B, 0), sv(BM)), vK), ci(3));
    tir_value *base = tir_build1(&B, TIR_ADDPTR, NOLOC, p->type, p, off, NULL, NULL);
    tir_value *bp = make_bptr(base, 2, (tir_value *[]){sv(M), vK}, (tir_value *[]){vK, one},
                              (tir_value *[]){zero, zero}, (const sym_expr *[]){BM, BK});
    load(bp);
    tir_value *rb = tir_build1(&B, TIR_ADDPTR, NOLOC, raw->type, raw, tir_program_id(&B, 0), NULL, NULL);
    tir_value *rp = make_bptr(rb, 2, (tir_value *[]){sv(M), vK}, (tir_value *[]){vK, one},
                              (tir_value *[]){zero, zero}, (const sym_expr *[]){BM, BK});
    load(rp);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    acc_access *a = &r->acc[0];
    assert_ptr_equal(a->tensor, t);
    assert_affine(&a->dims[0], K(0), pid(0), BM, NULL);
    assert_affine(&a->dims[1], K(3), NULL);
    assert_int_equal(a->grid_dep, 1u);
    acc_access *b = &r->acc[1];
    assert_null(b->tensor);
    assert_int_equal(b->rank, 2);
    assert_false(b->affine);
    assert_false(b->dims[0].affine);
    assert_ptr_equal(b->dims[0].offset, K(0));
    assert_int_equal(b->grid_dep, 1u);
    assert_int_equal(b->reuse, 0u);
}

/* ---- loops -------------------------------------------------------------------- */

/* Two nested loops: the outer moves the pointer by BLOCK_M rows per
 * iteration (re-creating the inner pointer from it), the inner by BLOCK_K
 * columns; a second load inside the inner loop uses only the outer pointer,
 * so it is invariant in the inner loop. After both loops, the outer pointer
 * stands trip(outer) steps on. */
static void nested_loops_and_results(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *Kd = V("K"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K");
    const tir_tensor *t = tensor("x", TIR_INPUT, TIR_BF16, 2, (const sym_expr *[]){M, Kd});
    set_grid(1, (const sym_expr *[]){K(1)});
    tir_value *p = ptr_param("x_ptr", t);
    tir_value *zero = ci(0), *one = ci(1), *vM = sv(M), *vK = sv(Kd), *vBM = sv(BM), *vBK = sv(BK);
    tir_value *bp = make_bptr(p, 2, (tir_value *[]){vM, vK}, (tir_value *[]){vK, one}, (tir_value *[]){zero, zero},
                              (const sym_expr *[]){BM, BK});
    loop lo = begin_for(zero, vM, vBM, (tir_value *[]){bp}, 1);
    loop li = begin_for(zero, vK, vBK, (tir_value *[]){loop_arg(lo, 0)}, 1);
    load(loop_arg(li, 0));
    load(loop_arg(lo, 0));
    tir_value *ni = advance(loop_arg(li, 0), (tir_value *[]){zero, vBK});
    end_for(li, (tir_value *[]){ni}, 1);
    /* the inner loop's result: BLOCK_K*trip columns on */
    load(li.op->results[0]);
    tir_value *no = advance(loop_arg(lo, 0), (tir_value *[]){vBM, zero});
    end_for(lo, (tir_value *[]){no}, 1);
    load(lo.op->results[0]);
    finish();

    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 4);
    const sym_expr *iv0 = lo.op->iv, *iv1 = li.op->iv;
    assert_ptr_equal(iv0, ivv(0));
    assert_ptr_equal(iv1, ivv(1));

    acc_access *in = &r->acc[0];
    assert_int_equal(in->nloops, 2);
    assert_ptr_equal(in->loops[0], lo.op);
    assert_ptr_equal(in->loops[1], li.op);
    assert_affine(&in->dims[0], K(0), iv0, BM, NULL);
    assert_affine(&in->dims[1], K(0), iv1, BK, NULL);
    assert_int_equal(in->loop_dep, 3u);
    assert_int_equal(in->reuse, 1u);

    acc_access *outer = &r->acc[1];
    assert_int_equal(outer->nloops, 2);
    assert_affine(&outer->dims[0], K(0), iv0, BM, NULL);
    assert_ptr_equal(outer->dims[1].offset, K(0));
    assert_int_equal(outer->loop_dep, 1u);

    acc_access *after_inner = &r->acc[2];
    assert_int_equal(after_inner->nloops, 1);
    assert_ptr_equal(li.op->sym, sym_cdiv(C, Kd, BK));
    assert_ptr_equal(after_inner->dims[1].offset, mul(BK, sym_cdiv(C, Kd, BK)));
    assert_affine(&after_inner->dims[1], mul(BK, sym_cdiv(C, Kd, BK)), NULL);

    acc_access *after_outer = &r->acc[3];
    assert_int_equal(after_outer->nloops, 0);
    assert_affine(&after_outer->dims[0], mul(BM, sym_cdiv(C, M, BM)), NULL);
    assert_int_equal(after_outer->loop_dep, 0u);

    lm_buf b = {0};
    acc_print(&b, F, r);
    const char *want = "load x  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*iv.0, 0]\n"
                       "  depends on grid axes {}, loops {iv.0}; reused along grid axis 0 (1); "
                       "invariant in loops {iv.1}\n";
    assert_non_null(strstr(lm_buf_str(&b), want));
    lm_buf_free(&b);
}

/* the loop variable itself as an offset: lo + step*iv, with lo and step
 * symbolic; a loop counting from 1 */
static void loop_variable_offset(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *BM = V("BLOCK_M"), *S0 = V("START");
    const tir_tensor *t = tensor("x", TIR_INPUT, TIR_F32, 1, (const sym_expr *[]){M});
    set_grid(1, (const sym_expr *[]){K(2)});
    tir_value *p = ptr_param("x_ptr", t);
    loop l = begin_for(sv(S0), sv(M), sv(BM), NULL, 0);
    tir_value *o = bin(TIR_ADD, loop_var(l), tir_program_id(&B, 0));
    tir_value *bp = make_bptr(p, 1, (tir_value *[]){sv(M)}, (tir_value *[]){ci(1)}, (tir_value *[]){o},
                              (const sym_expr *[]){BM});
    load(bp);
    end_for(l, NULL, 0);
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    acc_access *a = &r->acc[0];
    assert_ptr_equal(a->dims[0].offset, add(add(S0, pid(0)), mul(BM, ivv(0))));
    assert_affine(&a->dims[0], S0, pid(0), K(1), ivv(0), BM, NULL);
    assert_int_equal(a->grid_dep, 1u);
    assert_int_equal(a->loop_dep, 1u);
}

static void no_accesses(void **state)
{
    (void)state;
    finish();
    acc_result *r = acc_analyze(F, C, &A);
    assert_int_equal(r->n, 0);
    assert_text(r, "no block accesses\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(matmul_maps, setup, teardown),
        cmocka_unit_test_setup_teardown(matmul_text, setup, teardown),
        cmocka_unit_test_setup_teardown(grouped_not_affine, setup, teardown),
        cmocka_unit_test_setup_teardown(advance_by_loop_variable, setup, teardown),
        cmocka_unit_test_setup_teardown(untraceable, setup, teardown),
        cmocka_unit_test_setup_teardown(descriptor_access, setup, teardown),
        cmocka_unit_test_setup_teardown(base_offset_on_batch_dim, setup, teardown),
        cmocka_unit_test_setup_teardown(transposed_view, setup, teardown),
        cmocka_unit_test_setup_teardown(base_offset_fallbacks, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_loops_and_results, setup, teardown),
        cmocka_unit_test_setup_teardown(loop_variable_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(no_accesses, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
