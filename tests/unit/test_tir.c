/* test_tir.c - the Tile IR: types and their text, the builder (hoisting of
 * constants, symbolic values of integer scalars, loop-carried inference,
 * editing), the printer on whole functions (exact text), and the verifier:
 * a well-formed function passes and each kind of breakage is caught with a
 * message that names it. tir_verify reports without exiting, so most
 * breakages are checked directly; tir_verify_or_bug, which exits with
 * status 2, is checked in a child process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ir/tir.h"

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
    F = tir_func_new(&A, "f", NOLOC);
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

static const char *S(const sym_expr *e)
{
    static char out[4][256];
    static int slot;
    lm_buf b = {0};
    sym_print(&b, e);
    char *o = out[slot++ % 4];
    snprintf(o, sizeof out[0], "%s", lm_buf_str(&b));
    lm_buf_free(&b);
    return o;
}

static const char *T(const tir_type *t) { return tir_type_str(&A, t); }

static tir_type tile2(tir_elem e, const sym_expr *d0, const sym_expr *d1)
{
    return tir_t_tile(&A, e, 2, (const sym_expr *[]){d0, d1});
}

static tir_value *ci(int64_t v) { return tir_const_int(&B, TIR_I32, v); }
static tir_value *op2(tir_opcode c, tir_type t, tir_value *x, tir_value *y)
{
    return tir_build1(&B, c, NOLOC, t, x, y, NULL, NULL);
}
static tir_value *iadd(tir_value *x, tir_value *y) { return op2(TIR_ADD, tir_t_scalar(TIR_I32), x, y); }

static tir_op *ret(void) { return tir_op_build(&B, TIR_RETURN, NOLOC, NULL, 0, NULL, 0); }

typedef struct loop {
    tir_op *op;
    tir_block *outer;
} loop;

/* Open a FOR with carried values; the body is the builder's block until
 * end_for adds the yield and infers the symbolic values. */
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
    l.op->regions[0] = tir_block_new(&B, l.op);
    l.op->nregions = 1;
    tir_block_add_arg(&B, l.op->regions[0], lo->type);
    for (int i = 0; i < n; i++)
        tir_block_add_arg(&B, l.op->regions[0], init[i]->type);
    l.op->iv = tir_iv_var(C, F->nloops++);
    l.outer = B.block;
    B.block = l.op->regions[0];
    return l;
}

static void end_for(loop l, tir_value *const *yields, int n)
{
    tir_op_build(&B, TIR_YIELD, NOLOC, yields, n, NULL, 0);
    B.block = l.outer;
    tir_sym_infer_for(&B, l.op);
}

static const char *printed(void)
{
    lm_buf b = {0};
    tir_print_func(&b, F);
    const char *s = lm_arena_strdup(&A, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static void assert_verifies(void)
{
    lm_buf why = {0};
    bool ok = tir_verify(F, &why);
    if (!ok)
        fail_msg("expected to verify, got: %s", lm_buf_str(&why));
    assert_string_equal(lm_buf_str(&why), "");
    lm_buf_free(&why);
}

/* The verifier rejects F and its message contains `want`. */
static void assert_rejected(const char *want)
{
    lm_buf why = {0};
    bool ok = tir_verify(F, &why);
    if (ok)
        fail_msg("expected a verifier error containing '%s'", want);
    if (!strstr(lm_buf_str(&why), want))
        fail_msg("verifier said '%s', expected it to contain '%s'", lm_buf_str(&why), want);
    assert_false(tir_verify(F, NULL)); /* the same answer without a message */
    lm_buf_free(&why);
}

static tir_tensor *tensor2(const char *name, tir_elem e, const sym_expr *d0, const sym_expr *d1)
{
    tir_tensor *t = LM_NEW(&A, tir_tensor);
    t->name = name;
    t->role = TIR_INPUT;
    t->elem = e;
    t->rank = 2;
    t->shape = LM_NEWN(&A, const sym_expr *, 2);
    t->strides = LM_NEWN(&A, const sym_expr *, 2);
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->strides[0] = d1;
    t->strides[1] = K(1);
    return t;
}

static tir_value *make_bptr2(tir_value *base, tir_value *const *shape, tir_value *const *strides,
                             tir_value *const *offs, const sym_expr *b0, const sym_expr *b1)
{
    tir_value *o[7] = {base, shape[0], shape[1], strides[0], strides[1], offs[0], offs[1]};
    tir_type t = tir_t_bptr(&A, base->type.elem, 2, (const sym_expr *[]){b0, b1});
    tir_op *op = tir_op_build(&B, TIR_MAKE_BLOCK_PTR, NOLOC, o, 7, &t, 1);
    op->rank = 2;
    op->order[0] = 1;
    op->order[1] = 0;
    return op->results[0];
}

/* ---- types --------------------------------------------------------------- */

static void type_text(void **state)
{
    (void)state;
    const sym_expr *BM = V("BLOCK_M"), *N = V("N");
    tir_type s = tir_t_scalar(TIR_I32), p = tir_t_ptr(TIR_BF16);
    tir_type t = tile2(TIR_F32, BM, sym_add(C, N, K(1)));
    assert_string_equal(T(&s), "i32");
    assert_string_equal(T(&p), "ptr<bf16>");
    /* a sum as a dimension is parenthesised so the ' x ' stays readable */
    assert_string_equal(T(&t), "tile<BLOCK_M x (N + 1) x f32>");
    tir_type bp = tir_t_bptr(&A, TIR_BF16, 2, (const sym_expr *[]){BM, K(64)});
    tir_type dp = tir_t_desc(&A, TIR_F16, 1, (const sym_expr *[]){BM});
    assert_string_equal(T(&bp), "bptr<BLOCK_M x 64 x bf16>");
    assert_string_equal(T(&dp), "desc<BLOCK_M x f16>");
    tir_type pt = tir_t_tile(&A, TIR_F32, 1, (const sym_expr *[]){BM});
    pt.kind = TIR_PTR;
    assert_string_equal(T(&pt), "tile<BLOCK_M x ptr<f32>>");
    tir_type i1 = tir_t_with_elem(t, TIR_I1);
    assert_string_equal(T(&i1), "tile<BLOCK_M x (N + 1) x i1>");

    /* shapes compare by pointer, which hash-consing makes structural */
    tir_type t2 = tile2(TIR_F32, BM, sym_add(C, K(1), N));
    assert_true(tir_type_eq(&t, &t2));
    assert_false(tir_type_eq(&t, &i1));
    assert_true(tir_shape_eq(&t, &i1));
    tir_type t3 = tile2(TIR_F32, N, BM);
    assert_false(tir_shape_eq(&t, &t3));
    assert_true(tir_is_int_scalar(&s));
    tir_type b1 = tir_t_scalar(TIR_I1);
    assert_false(tir_is_int_scalar(&b1));
    assert_true(tir_is_scalar(&b1));

    assert_int_equal(tir_elem_bytes(TIR_I1), 1);
    assert_int_equal(tir_elem_bytes(TIR_BF16), 2);
    assert_int_equal(tir_elem_bytes(TIR_I64), 8);
    assert_int_equal(tir_elem_bits(TIR_I1), 1);
    assert_true(tir_elem_is_float(TIR_BF16));
    assert_true(tir_elem_is_int(TIR_I1));
    assert_string_equal(tir_role_name(TIR_SCRATCH), "scratch");
    assert_string_equal(tir_op_name(TIR_MAKE_DESC), "make_tensor_descriptor");
    assert_true(tir_op_has(TIR_ADD, TIR_P_BINARY));
    assert_false(tir_op_has(TIR_LOAD, TIR_P_PURE));
}

static void float_text(void **state)
{
    (void)state;
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.0, "0.0"}, {1.0, "1.0"}, {-2.0, "-2.0"}, {0.125, "0.125"}, {0.1, "0.1"},
        {1e20, "1e+20"}, {1.0 / 3.0, "0.3333333333333333"},
    };
    char buf[40];
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        tir_format_float(buf, sizeof buf, cases[i].v);
        assert_string_equal(buf, cases[i].s);
        assert_true(strtod(buf, NULL) == cases[i].v);
    }
    tir_format_float(buf, sizeof buf, -1.0 / 0.0);
    assert_string_equal(buf, "-inf");
    tir_format_float(buf, sizeof buf, 0.0 / 0.0);
    assert_string_equal(buf, "nan");
}

/* ---- builder ---------------------------------------------------------------- */

/* Constants, symbols and program ids exist once and sit at the top of the
 * body, in creation order, whatever block the builder is in. */
static void hoisting(void **state)
{
    (void)state;
    tir_value *x = tir_add_param(&B, "x", tir_t_scalar(TIR_I32), V("X"), NULL);
    tir_value *a = iadd(x, x);
    tir_value *c3 = ci(3);
    assert_ptr_equal(ci(3), c3);
    assert_ptr_not_equal(tir_const_int(&B, TIR_I64, 3), c3);
    tir_value *f = tir_const_float(&B, TIR_F32, 0.5);
    assert_ptr_equal(tir_const_float(&B, TIR_F32, 0.5), f);
    assert_ptr_equal(tir_const_int(&B, TIR_F32, 2), tir_const_float(&B, TIR_F32, 2.0));
    /* a symbol that simplifies to a constant is that constant */
    assert_ptr_equal(tir_sym_value(&B, TIR_I32, sym_sub(C, V("N"), sym_sub(C, V("N"), K(3)))), c3);
    tir_value *p0 = tir_program_id(&B, 0);
    assert_ptr_equal(tir_program_id(&B, 0), p0);
    ret();
    assert_verifies();
    /* body order: the hoisted ops first, then the add, then return */
    tir_op *op = F->body->first;
    assert_ptr_equal(op, c3->def);
    assert_ptr_equal(op->next->next, f->def);
    assert_ptr_equal(F->hoist_last, p0->def);
    assert_ptr_equal(F->hoist_last->next, a->def);
    assert_int_equal(F->body->last->code, TIR_RETURN);
}

/* Symbolic values of integer scalars, as ops are built. */
static void symbolic_values(void **state)
{
    (void)state;
    F->grid_rank = 2;
    F->grid[0] = sym_cdiv(C, V("M"), V("BLOCK_M"));
    F->grid[1] = V("H");
    tir_value *m = tir_add_param(&B, "M", tir_t_scalar(TIR_I32), V("M"), NULL);
    tir_value *s = tir_add_param(&B, "scale", tir_t_scalar(TIR_F32), V("ignored"), NULL);
    assert_null(s->sym); /* only integer scalars carry values */
    tir_value *bm = tir_sym_value(&B, TIR_I32, V("BLOCK_M"));
    tir_type i32 = tir_t_scalar(TIR_I32);
    assert_ptr_equal(tir_program_id(&B, 1)->sym, tir_pid_var(C, 1));
    assert_string_equal(S(tir_pid_var(C, 1)), "pid.1");
    assert_string_equal(S(tir_iv_var(C, 3)), "iv.3");
    assert_ptr_equal(tir_num_programs(&B, 0)->sym, F->grid[0]);
    assert_ptr_equal(tir_num_programs(&B, 2)->sym, K(1)); /* beyond the grid's rank */
    assert_ptr_equal(op2(TIR_MUL, i32, m, bm)->sym, sym_mul(C, V("M"), V("BLOCK_M")));
    assert_ptr_equal(op2(TIR_SUB, i32, m, bm)->sym, sym_sub(C, V("M"), V("BLOCK_M")));
    assert_ptr_equal(op2(TIR_CDIV, i32, m, bm)->sym, sym_cdiv(C, V("M"), V("BLOCK_M")));
    assert_ptr_equal(op2(TIR_FLOORDIV, i32, m, bm)->sym, sym_floordiv(C, V("M"), V("BLOCK_M")));
    assert_ptr_equal(op2(TIR_MOD, i32, m, bm)->sym, sym_mod(C, V("M"), V("BLOCK_M")));
    assert_ptr_equal(op2(TIR_MIN, i32, m, bm)->sym, sym_min(C, V("M"), V("BLOCK_M")));
    /* division by a literal zero has no value (the program fails there) */
    assert_null(op2(TIR_FLOORDIV, i32, m, ci(0))->sym);
    assert_null(op2(TIR_MOD, i32, m, ci(0))->sym);
    /* integer casts keep the value; a cast to float or i1 has none */
    tir_type i64 = tir_t_scalar(TIR_I64);
    assert_ptr_equal(tir_build1(&B, TIR_CAST, NOLOC, i64, m, NULL, NULL, NULL)->sym, V("M"));
    assert_null(tir_build1(&B, TIR_CAST, NOLOC, tir_t_scalar(TIR_F32), m, NULL, NULL, NULL)->sym);
    assert_ptr_equal(tir_build1(&B, TIR_NEG, NOLOC, i32, m, NULL, NULL, NULL)->sym, sym_neg(C, V("M")));
    /* comparisons give i1, which carries no value; nor do unknown operands */
    tir_value *lt = op2(TIR_CMP_LT, tir_t_scalar(TIR_I1), m, bm);
    assert_null(lt->sym);
    tir_value *u = tir_add_param(&B, "u", i32, NULL, NULL);
    assert_null(op2(TIR_ADD, i32, u, m)->sym);
    ret();
    assert_verifies();
}

/* A carried integer moved by a loop-invariant amount is init + d*iv inside
 * the loop; one moved by the loop variable (a growing amount) is unknown;
 * the loop variable is lo + step*iv and the trip count cdiv(hi - lo, step). */
static void loop_carried_inference(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    tir_value *st = tir_sym_value(&B, TIR_I32, V("S")), *two = ci(2), *five = ci(5);
    loop l = begin_for(two, n, st, (tir_value *[]){five, five, five}, 3);
    tir_value *i = tir_for_var(l.op);
    tir_value *a = iadd(tir_for_arg(l.op, 0), st);   /* +S each time */
    tir_value *b = iadd(tir_for_arg(l.op, 1), i);    /* +i: not affine */
    tir_value *c = tir_for_arg(l.op, 2);             /* unchanged */
    tir_value *use = iadd(tir_for_arg(l.op, 0), two);
    end_for(l, (tir_value *[]){a, b, c}, 3);
    ret();
    assert_verifies();
    const sym_expr *iv = tir_iv_var(C, 0), *S_ = V("S");
    assert_ptr_equal(l.op->iv, iv);
    assert_ptr_equal(i->sym, sym_add(C, K(2), sym_mul(C, S_, iv)));
    assert_ptr_equal(l.op->sym, sym_cdiv(C, sym_sub(C, V("N"), K(2)), S_));
    assert_ptr_equal(tir_for_arg(l.op, 0)->sym, sym_add(C, K(5), sym_mul(C, S_, iv)));
    assert_ptr_equal(use->sym, sym_add(C, K(7), sym_mul(C, S_, iv)));
    assert_null(tir_for_arg(l.op, 1)->sym);
    assert_null(b->sym);
    assert_ptr_equal(tir_for_arg(l.op, 2)->sym, K(5));
}

/* ---- printing a whole function ------------------------------------------- */

/* A dot loop: a block pointer and an integer carried by the loop, the
 * accumulator, a transpose, and a store with boundary checks after it. */
static tir_op *build_dot_loop(void)
{
    const sym_expr *BK = V("BLOCK_K"), *Kv = V("K"), *c16 = K(16);
    F->grid_rank = 1;
    F->grid[0] = sym_cdiv(C, Kv, c16);
    tir_tensor *ta = tensor2("a", TIR_BF16, Kv, Kv), *tc = tensor2("c", TIR_F32, Kv, Kv);
    tc->role = TIR_OUTPUT;
    tir_value *pa = tir_add_param(&B, "a_ptr", tir_t_ptr(TIR_BF16), NULL, ta);
    tir_value *pc = tir_add_param(&B, "c_ptr", tir_t_ptr(TIR_F32), NULL, tc);
    tir_value *k = tir_add_param(&B, "K", tir_t_scalar(TIR_I32), Kv, NULL);
    tir_value *zero = ci(0), *one = ci(1), *bk = tir_sym_value(&B, TIR_I32, BK);
    tir_value *pid = tir_program_id(&B, 0);
    tir_type acct = tile2(TIR_F32, c16, c16);
    tir_op *full = tir_op_build(&B, TIR_FULL, NOLOC, NULL, 0, &acct, 1);
    full->is_float = true;
    tir_value *a0 = make_bptr2(pa, (tir_value *[]){k, k}, (tir_value *[]){k, one}, (tir_value *[]){zero, zero}, c16, BK);
    loop l = begin_for(zero, k, bk, (tir_value *[]){full->results[0], a0, zero}, 3);
    tir_value *t = tir_build1(&B, TIR_LOAD, NOLOC, tile2(TIR_BF16, c16, BK), tir_for_arg(l.op, 1), NULL, NULL, NULL);
    tir_value *tt = tir_build1(&B, TIR_TRANS, NOLOC, tile2(TIR_BF16, BK, c16), t, NULL, NULL, NULL);
    tir_value *d = tir_build1(&B, TIR_DOT, NOLOC, acct, t, tt, tir_for_arg(l.op, 0), NULL);
    tir_value *adv[3] = {tir_for_arg(l.op, 1), zero, bk};
    tir_value *na = tir_op_build(&B, TIR_ADVANCE, NOLOC, adv, 3, &a0->type, 1)->results[0];
    tir_value *ns = iadd(tir_for_arg(l.op, 2), bk);
    end_for(l, (tir_value *[]){d, na, ns}, 3);
    tir_value *off = op2(TIR_MUL, tir_t_scalar(TIR_I32), pid, ci(16));
    tir_value *cp = make_bptr2(pc, (tir_value *[]){k, k}, (tir_value *[]){k, one}, (tir_value *[]){off, zero}, c16, c16);
    tir_op *st = tir_op_build(&B, TIR_STORE, NOLOC, (tir_value *[]){cp, l.op->results[0]}, 2, NULL, 0);
    st->bcheck = 3;
    ret();
    return l.op;
}

static void print_dot_loop(void **state)
{
    (void)state;
    build_dot_loop();
    assert_verifies();
    const sym_expr *BK = V("BLOCK_K"), *iv = tir_iv_var(C, 0);
    char want[4096];
    snprintf(want, sizeof want,
             "func @f grid(cdiv(K, 16)) {\n"
             "  %%0 = param a_ptr : ptr<bf16> -> a\n"
             "  %%1 = param c_ptr : ptr<f32> -> c\n"
             "  %%2 = param K : i32 {K}\n"
             "  %%3 = const 0 : i32 {0}\n"
             "  %%4 = const 1 : i32 {1}\n"
             "  %%5 = sym BLOCK_K : i32 {BLOCK_K}\n"
             "  %%6 = program_id 0 : i32 {pid.0}\n"
             "  %%7 = const 16 : i32 {16}\n"
             "  %%8 = full 0.0 : tile<16 x 16 x f32>\n"
             "  %%9 = make_block_ptr %%0, shape=[%%2, %%2], strides=[%%2, %%4], offsets=[%%3, %%3], order=[1, 0]"
             " : bptr<16 x BLOCK_K x bf16>\n"
             "  %%10, %%11, %%12 = for %%13 = %%3 to %%2 step %%5 iter(%%14 = %%8, %%15 = %%9, %%16 = %%3)"
             " iv.0 trip=cdiv(K, BLOCK_K) : tile<16 x 16 x f32>, bptr<16 x BLOCK_K x bf16>, i32 {\n"
             "    %%17 = load %%15 : tile<16 x BLOCK_K x bf16>\n"
             "    %%18 = trans %%17 : tile<BLOCK_K x 16 x bf16>\n"
             "    %%19 = dot %%17, %%18, acc=%%14 : tile<16 x 16 x f32>\n"
             "    %%20 = advance %%15, [%%3, %%5] : bptr<16 x BLOCK_K x bf16>\n"
             "    %%21 = add %%16, %%5 : i32 {%s}\n"
             "    yield %%19, %%20, %%21\n"
             "  }\n"
             "  %%22 = mul %%6, %%7 : i32 {16*pid.0}\n"
             "  %%23 = make_block_ptr %%1, shape=[%%2, %%2], strides=[%%2, %%4], offsets=[%%22, %%3], order=[1, 0]"
             " : bptr<16 x 16 x f32>\n"
             "  store %%23, %%10, boundary_check=[0, 1]\n"
             "  return\n"
             "}\n",
             S(sym_add(C, sym_mul(C, BK, iv), BK)));
    assert_string_equal(printed(), want);
    /* printing is stable: again, the same text */
    assert_string_equal(printed(), want);
}

/* if/else with results, reductions, shape ops, descriptors, pointer tiles */
static void print_misc_ops(void **state)
{
    (void)state;
    const sym_expr *BM = V("BM"), *one = K(1);
    tir_tensor *tx = tensor2("x", TIR_F32, V("M"), V("D"));
    tir_value *px = tir_add_param(&B, "x_ptr", tir_t_ptr(TIR_F32), NULL, tx);
    tir_value *flag = tir_add_param(&B, "flag", tir_t_scalar(TIR_I1), NULL, NULL);
    tir_add_param(&B, "scale", tir_t_scalar(TIR_F32), NULL, NULL);
    F->params[2].has_fval = true;
    F->params[2].fval = 0.5;
    tir_value *d = tir_sym_value(&B, TIR_I32, V("D")), *zero = ci(0), *one_v = ci(1);
    tir_type dt = tir_t_desc(&A, TIR_F32, 2, (const sym_expr *[]){BM, V("D")});
    tir_op *md = tir_op_build(&B, TIR_MAKE_DESC, NOLOC, (tir_value *[]){px, d, d, d, one_v}, 5, &dt, 1);
    md->rank = 2;
    tir_type xt = tile2(TIR_F32, BM, V("D"));
    tir_value *x = tir_op_build(&B, TIR_DESC_LOAD, NOLOC, (tir_value *[]){md->results[0], zero, zero}, 3, &xt, 1)
                       ->results[0];
    tir_type rt = tir_t_tile(&A, TIR_F32, 1, (const sym_expr *[]){BM});
    tir_op *red = tir_op_build(&B, TIR_REDUCE_MAX, NOLOC, &x, 1, &rt, 1);
    red->ival = 1;
    tir_value *e = tir_build1(&B, TIR_EXPAND_DIMS, NOLOC, tile2(TIR_F32, BM, one), red->results[0], NULL, NULL, NULL);
    e->def->ival = 1;
    tir_value *bc = tir_build1(&B, TIR_BROADCAST, NOLOC, xt, e, NULL, NULL, NULL);
    tir_value *ex = tir_build1(&B, TIR_EXP, NOLOC, xt, op2(TIR_SUB, xt, x, bc), NULL, NULL, NULL);
    tir_op *ifop = tir_op_build(&B, TIR_IF, NOLOC, &flag, 1, &xt, 1);
    ifop->nregions = 2;
    tir_block *outer = B.block;
    for (int k = 0; k < 2; k++) {
        ifop->regions[k] = tir_block_new(&B, ifop);
        B.block = ifop->regions[k];
        tir_value *y = k ? x : tir_build1(&B, TIR_NEG, NOLOC, xt, ex, NULL, NULL, NULL);
        tir_op_build(&B, TIR_YIELD, NOLOC, &y, 1, NULL, 0);
    }
    B.block = outer;
    tir_op_build(&B, TIR_DESC_STORE, NOLOC, (tir_value *[]){md->results[0], ifop->results[0], zero, d}, 4, NULL, 0);
    tir_op *ar = tir_op_build(&B, TIR_ARANGE, NOLOC, NULL, 0, &rt, 1);
    ar->results[0]->type.elem = TIR_I32;
    ar->sym = K(0);
    ar->sym2 = BM;
    ret();
    assert_verifies();
    const char *want = "func @f {\n"
                       "  %0 = param x_ptr : ptr<f32> -> x\n"
                       "  %1 = param flag : i1\n"
                       "  %2 = param scale : f32 = 0.5\n"
                       "  %3 = sym D : i32 {D}\n"
                       "  %4 = const 0 : i32 {0}\n"
                       "  %5 = const 1 : i32 {1}\n"
                       "  %6 = make_tensor_descriptor %0, shape=[%3, %3], strides=[%3, %5] : desc<BM x D x f32>\n"
                       "  %7 = desc_load %6[%4, %4] : tile<BM x D x f32>\n"
                       "  %8 = reduce_max %7, axis=1 : tile<BM x f32>\n"
                       "  %9 = expand_dims %8, axis=1 : tile<BM x 1 x f32>\n"
                       "  %10 = broadcast %9 : tile<BM x D x f32>\n"
                       "  %11 = sub %7, %10 : tile<BM x D x f32>\n"
                       "  %12 = exp %11 : tile<BM x D x f32>\n"
                       "  %13 = if %1 : tile<BM x D x f32> {\n"
                       "    %14 = neg %12 : tile<BM x D x f32>\n"
                       "    yield %14\n"
                       "  } else {\n"
                       "    yield %7\n"
                       "  }\n"
                       "  desc_store %6[%4, %3], %13\n"
                       "  %15 = arange 0, BM : tile<BM x i32>\n"
                       "  return\n"
                       "}\n";
    assert_string_equal(printed(), want);
}

/* ---- editing ------------------------------------------------------------------ */

static void editing(void **state)
{
    (void)state;
    tir_op *forop = build_dot_loop();
    /* the integer carried value is unused after the loop: drop it */
    tir_for_drop_carried(forop, 2);
    assert_int_equal(tir_for_ncarried(forop), 2);
    assert_int_equal(forop->nresults, 2);
    assert_int_equal(forop->regions[0]->nargs, 3);
    /* its increment is now dead; remove it */
    tir_op *y = tir_yield_of(forop->regions[0]);
    tir_op *inc = y->prev;
    assert_int_equal(inc->code, TIR_ADD);
    tir_op_remove(inc);
    assert_verifies();
    const char *s = printed();
    assert_non_null(strstr(s, "  %10, %11 = for %12 = %3 to %2 step %5 iter(%13 = %8, %14 = %9) iv.0 "
                              "trip=cdiv(K, BLOCK_K) : tile<16 x 16 x f32>, bptr<16 x BLOCK_K x bf16> {\n"));
    assert_non_null(strstr(s, "    yield %17, %18\n  }\n"));

    /* replace the accumulator's initial value by a fresh zero tile placed
       right after the old one; then the old one can go */
    tir_op *old = tir_for_init(forop, 0)->def;
    tir_op *nz = tir_op_build(&B, TIR_FULL, NOLOC, NULL, 0, &old->results[0]->type, 1);
    tir_op_remove(nz);
    nz->is_float = true;
    nz->fval = 1.5;
    tir_op_insert_after(F->body, old, nz);
    tir_replace_uses(F->body, old->results[0], nz->results[0]);
    tir_op_remove(old);
    assert_verifies();
    assert_non_null(strstr(printed(), "  %8 = full 1.5 : tile<16 x 16 x f32>\n"));

    /* replace_uses reaches into regions: swap the loop's step for 1 */
    tir_replace_uses(F->body, tir_for_step(forop), ci(1));
    assert_ptr_equal(tir_for_step(forop), ci(1));
    assert_verifies();
}

/* ---- the verifier ---------------------------------------------------------------- */

static void verify_good(void **state)
{
    (void)state;
    build_dot_loop();
    assert_verifies();
}

static void verify_operand_count(void **state)
{
    (void)state;
    tir_value *x = ci(1);
    tir_op_build(&B, TIR_ADD, NOLOC, &x, 1, &x->type, 1);
    ret();
    assert_rejected("op 'add': has 1 operands, needs 2..2");
}

static void verify_result_count(void **state)
{
    (void)state;
    tir_value *x = ci(1);
    tir_type ts[2] = {x->type, x->type};
    tir_op_build(&B, TIR_ADD, NOLOC, (tir_value *[]){x, x}, 2, ts, 2);
    ret();
    assert_rejected("has 2 results, needs 1");
}

static void verify_operand_types(void **state)
{
    (void)state;
    tir_value *x = ci(1), *f = tir_const_float(&B, TIR_F32, 1.0);
    op2(TIR_ADD, x->type, x, f);
    ret();
    assert_rejected("operands must be tiles of one type, got i32 and f32");
}

static void verify_int_only(void **state)
{
    (void)state;
    tir_value *f = tir_const_float(&B, TIR_F32, 1.0);
    op2(TIR_AND, f->type, f, f);
    ret();
    assert_rejected("needs integer operands, got f32");
}

static void verify_dot_shapes(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *Kd = V("K"), *N = V("N");
    tir_value *a = tir_add_param(&B, "a", tile2(TIR_BF16, M, Kd), NULL, NULL);
    tir_value *b = tir_add_param(&B, "b", tile2(TIR_BF16, N, Kd), NULL, NULL);
    tir_build1(&B, TIR_DOT, NOLOC, tile2(TIR_F32, M, Kd), a, b, NULL, NULL);
    ret();
    assert_rejected("inner dimensions of tile<M x K x bf16> and tile<N x K x bf16> differ");
}

static void verify_load_shape(void **state)
{
    (void)state;
    tir_tensor *t = tensor2("x", TIR_BF16, V("M"), V("K"));
    tir_value *p = tir_add_param(&B, "x_ptr", tir_t_ptr(TIR_BF16), NULL, t);
    tir_value *z = ci(0), *m = tir_sym_value(&B, TIR_I32, V("M"));
    tir_value *bp = make_bptr2(p, (tir_value *[]){m, m}, (tir_value *[]){m, z}, (tir_value *[]){z, z}, K(32), K(64));
    tir_build1(&B, TIR_LOAD, NOLOC, tile2(TIR_BF16, K(64), K(32)), bp, NULL, NULL, NULL);
    ret();
    assert_rejected("value tile<64 x 32 x bf16> does not match block bptr<32 x 64 x bf16>");
}

static void verify_make_block_ptr(void **state)
{
    (void)state;
    tir_value *p = tir_add_param(&B, "x_ptr", tir_t_ptr(TIR_BF16), NULL, NULL);
    tir_value *z = ci(0);
    tir_type t = tir_t_bptr(&A, TIR_BF16, 2, (const sym_expr *[]){K(32), K(32)});
    tir_op *op = tir_op_build(&B, TIR_MAKE_BLOCK_PTR, NOLOC, (tir_value *[]){p, z, z, z, z}, 5, &t, 1);
    op->rank = 2;
    ret();
    assert_rejected("rank 2 needs 7 operands, has 5");
}

static void verify_order_permutation(void **state)
{
    (void)state;
    tir_value *p = tir_add_param(&B, "x_ptr", tir_t_ptr(TIR_BF16), NULL, NULL);
    tir_value *z = ci(0);
    tir_value *bp = make_bptr2(p, (tir_value *[]){z, z}, (tir_value *[]){z, z}, (tir_value *[]){z, z}, K(32), K(32));
    bp->def->order[1] = 1;
    ret();
    assert_rejected("order is not a permutation of 0..1");
}

static void verify_scope_after_loop(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    loop l = begin_for(ci(0), n, ci(1), NULL, 0);
    tir_value *inner = iadd(tir_for_var(l.op), n);
    end_for(l, NULL, 0);
    iadd(inner, n); /* a value of the loop body, used after the loop */
    ret();
    assert_rejected("op 'add': operand 0 (value #");
    assert_rejected("is used where its definition is not visible");
}

static void verify_use_before_def(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    tir_value *a = iadd(n, n);
    tir_value *b = iadd(a, n);
    /* move b's definition before a's */
    tir_op_remove(b->def);
    tir_op_insert_after(F->body, F->hoist_last, b->def);
    ret();
    assert_rejected("is used where its definition is not visible");
}

static void verify_missing_yield(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    loop l = begin_for(ci(0), n, ci(1), (tir_value *[]){n}, 1);
    tir_value *x = iadd(tir_for_arg(l.op, 0), n);
    (void)x;
    B.block = l.outer; /* no yield */
    ret();
    assert_rejected("op 'for': loop body does not end in a yield");
}

static void verify_yield_count(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    loop l = begin_for(ci(0), n, ci(1), (tir_value *[]){n, n}, 2);
    /* no end_for: symbolic inference treats a short yield as a bug */
    tir_value *y = tir_for_arg(l.op, 0);
    tir_op_build(&B, TIR_YIELD, NOLOC, &y, 1, NULL, 0);
    B.block = l.outer;
    ret();
    assert_rejected("loop body yields 1 values for 2 results");
}

static void verify_yield_type(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    loop l = begin_for(ci(0), n, ci(1), (tir_value *[]){n}, 1);
    tir_value *w = tir_build1(&B, TIR_CAST, NOLOC, tir_t_scalar(TIR_I64), tir_for_arg(l.op, 0), NULL, NULL, NULL);
    end_for(l, &w, 1);
    ret();
    assert_rejected("loop body yields i64 for result 0 of type i32");
}

static void verify_carried_types(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    loop l = begin_for(ci(0), n, ci(1), (tir_value *[]){n}, 1);
    end_for(l, (tir_value *[]){tir_for_arg(l.op, 0)}, 1);
    l.op->results[0]->type = tir_t_scalar(TIR_I64);
    ret();
    assert_rejected("carried value 0: initial i32, argument i32 and result i64 differ");
}

static void verify_terminator_position(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    ret();
    iadd(n, n);
    assert_rejected("op 'return': terminator is not the last op of its block");
}

static void verify_missing_return(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    iadd(n, n);
    assert_rejected("function body does not end in a return");
}

static void verify_if_condition(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    tir_op *ifop = tir_op_build(&B, TIR_IF, NOLOC, &n, 1, NULL, 0);
    ifop->nregions = 2;
    for (int k = 0; k < 2; k++) {
        ifop->regions[k] = tir_block_new(&B, ifop);
        tir_block *outer = B.block;
        B.block = ifop->regions[k];
        tir_op_build(&B, TIR_YIELD, NOLOC, NULL, 0, NULL, 0);
        B.block = outer;
    }
    ret();
    assert_rejected("condition must be an i1 scalar, is i32");
}

static void verify_reduce_axis(void **state)
{
    (void)state;
    tir_value *x = tir_add_param(&B, "x", tile2(TIR_F32, V("M"), V("N")), NULL, NULL);
    tir_type rt = tir_t_tile(&A, TIR_F32, 1, (const sym_expr *[]){V("M")});
    tir_op *op = tir_op_build(&B, TIR_REDUCE_SUM, NOLOC, &x, 1, &rt, 1);
    op->ival = 2;
    ret();
    assert_rejected("axis 2 out of range for rank 2");
}

static void verify_sym_on_tile(void **state)
{
    (void)state;
    tir_value *x = tir_add_param(&B, "x", tile2(TIR_F32, V("M"), V("N")), NULL, NULL);
    tir_value *y = op2(TIR_ADD, x->type, x, x);
    y->sym = V("M");
    ret();
    assert_rejected("result 0 has a symbolic value but is not an integer scalar");
}

static void verify_params(void **state)
{
    (void)state;
    tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    ret();
    assert_verifies();
    F->nparams = 0;
    assert_rejected("0 parameters but 1 body arguments");
}

static void verify_yield_outside(void **state)
{
    (void)state;
    tir_op_build(&B, TIR_YIELD, NOLOC, NULL, 0, NULL, 0);
    assert_rejected("yield outside a loop or branch region");
}

/* the exiting form: status 2 and a message naming the pass */
static void verify_or_bug_exits(void **state)
{
    (void)state;
    tir_value *n = tir_add_param(&B, "N", tir_t_scalar(TIR_I32), V("N"), NULL);
    iadd(n, n);
    fflush(stdout);
    fflush(stderr);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        tir_verify_or_bug(F, "the test pass");
        _exit(0); /* not reached if the verifier works */
    }
    close(fds[1]);
    char msg[2048];
    size_t len = 0;
    ssize_t got;
    while (len + 1 < sizeof msg && (got = read(fds[0], msg + len, sizeof msg - 1 - len)) > 0)
        len += (size_t)got;
    msg[len] = 0;
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    assert_non_null(strstr(msg, "Tile IR verification failed after the test pass: func @f: "
                                "function body does not end in a return"));
    /* a good function passes without exiting */
    ret();
    tir_verify_or_bug(F, "the test pass");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(type_text, setup, teardown),
        cmocka_unit_test_setup_teardown(float_text, setup, teardown),
        cmocka_unit_test_setup_teardown(hoisting, setup, teardown),
        cmocka_unit_test_setup_teardown(symbolic_values, setup, teardown),
        cmocka_unit_test_setup_teardown(loop_carried_inference, setup, teardown),
        cmocka_unit_test_setup_teardown(print_dot_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(print_misc_ops, setup, teardown),
        cmocka_unit_test_setup_teardown(editing, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_good, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_operand_count, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_result_count, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_operand_types, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_int_only, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_dot_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_load_shape, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_make_block_ptr, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_order_permutation, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_scope_after_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_use_before_def, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_missing_yield, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_yield_count, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_yield_type, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_carried_types, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_terminator_position, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_missing_return, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_if_condition, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_reduce_axis, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_sym_on_tile, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_params, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_yield_outside, setup, teardown),
        cmocka_unit_test_setup_teardown(verify_or_bug_exits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
