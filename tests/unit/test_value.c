/* test_value.c - the front end's algebra of compile-time values (value.c),
 * which the launch-spec reader and the checker share: folding an operator
 * on two numbers (symbolic where it can stay so, waiting for a free
 * constexpr where it cannot, refusing what has no result), truth, the
 * equality of None, strings and dtypes, and tuple items. Expected values
 * are Python's, written out here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "front/front.h"

static sym_ctx *S;
static lm_arena A;
static fe_spec SPEC;
static const sym_expr *BLOCK, *M;

static int setup(void **state)
{
    (void)state;
    S = sym_ctx_new();
    lm_arena_init(&A);
    memset(&SPEC, 0, sizeof SPEC);
    BLOCK = sym_var(S, "BLOCK"); /* a free constexpr: no value */
    M = sym_var(S, "M");         /* a size: 100 */
    sym_env_set(&SPEC.env, M, 100);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fe_spec_free(&SPEC);
    lm_arena_free(&A);
    sym_ctx_free(S);
    return 0;
}

static fe_fold fold(const char *op, fe_value x, fe_value y, fe_value *out, const char **msg)
{
    return fe_value_fold(&SPEC, S, &A, op, &x, &y, out, msg);
}

static fe_value num(int64_t k) { return fe_v_int(sym_const(S, k)); }

static void test_symbolic_arithmetic_keeps_names(void **state)
{
    (void)state;
    fe_value r;
    const char *msg;
    assert_int_equal(fold("//", fe_v_int(BLOCK), num(2), &r, &msg), FE_FOLD_DONE);
    assert_int_equal(r.kind, FE_V_INT);
    assert_ptr_equal(r.i, sym_floordiv(S, BLOCK, sym_const(S, 2)));
    /* a comparison whose difference is a constant needs no value */
    assert_int_equal(fold("<", fe_v_int(BLOCK), fe_v_int(sym_add(S, BLOCK, sym_const(S, 1))), &r, &msg),
                     FE_FOLD_DONE);
    assert_true(r.is_bool);
    int64_t t;
    assert_true(sym_is_const(r.i, &t));
    assert_int_equal(t, 1);
}

static void test_unknown_values_wait_for_the_free_constexpr(void **state)
{
    (void)state;
    fe_value r;
    const char *msg;
    assert_int_equal(fold("<", fe_v_int(BLOCK), num(64), &r, &msg), FE_FOLD_LATER);
    assert_string_equal(msg, "BLOCK");
    assert_int_equal(fold("&", fe_v_int(BLOCK), num(1), &r, &msg), FE_FOLD_LATER);
    assert_string_equal(msg, "BLOCK");
    /* a size has its value: M & 6 is 100 & 6 == 4 */
    assert_int_equal(fold("&", fe_v_int(M), num(6), &r, &msg), FE_FOLD_DONE);
    int64_t v;
    assert_true(sym_is_const(r.i, &v));
    assert_int_equal(v, 100 & 6);
}

static void test_errors_say_why(void **state)
{
    (void)state;
    fe_value r;
    const char *msg;
    assert_int_equal(fold("//", fe_v_int(M), num(0), &r, &msg), FE_FOLD_ERROR);
    assert_string_equal(msg, "division by zero");
    assert_int_equal(fold("<<", num(1), num(63), &r, &msg), FE_FOLD_ERROR);
    assert_string_equal(msg, "shift count 63 out of range");
    assert_int_equal(fold("@", fe_v_float(1.0), fe_v_float(2.0), &r, &msg), FE_FOLD_ERROR);
    assert_string_equal(msg, "operator '@' is not supported on floats");
}

static void test_floats_and_exact_integers(void **state)
{
    (void)state;
    fe_value r;
    const char *msg;
    /* true division of integers is a float: 5 / 2 == 2.5 */
    assert_int_equal(fold("/", num(5), num(2), &r, &msg), FE_FOLD_DONE);
    assert_int_equal(r.kind, FE_V_FLOAT);
    assert_true(r.f == 2.5);
    /* integers compare exactly, past the 53 bits of a double */
    int64_t big = (INT64_C(1) << 53) + 1;
    assert_int_equal(fold("==", num(big), num(big - 1), &r, &msg), FE_FOLD_DONE);
    int64_t t;
    assert_true(sym_is_const(r.i, &t));
    assert_int_equal(t, 0);
}

static void test_truth_equality_items(void **state)
{
    (void)state;
    bool t;
    assert_true(fe_value_truth(&SPEC, &(fe_value){.kind = FE_V_NONE}, &t));
    assert_false(t);
    assert_true(fe_value_truth(&SPEC, &(fe_value){.kind = FE_V_STR, .str = ""}, &t));
    assert_false(t);
    assert_true(fe_value_truth(&SPEC, &(fe_value){.kind = FE_V_INT, .i = M}, &t));
    assert_true(t);
    assert_false(fe_value_truth(&SPEC, &(fe_value){.kind = FE_V_INT, .i = BLOCK}, &t));

    bool eq;
    assert_true(fe_value_same(&(fe_value){.kind = FE_V_STR, .str = "relu"}, &(fe_value){.kind = FE_V_STR, .str = "relu"},
                              &eq));
    assert_true(eq);
    assert_true(fe_value_same(&(fe_value){.kind = FE_V_NONE}, &(fe_value){.kind = FE_V_STR, .str = ""}, &eq));
    assert_false(eq);
    fe_value unsup_a = {.kind = FE_V_DTYPE, .dtype = TIR_NELEMS, .str = "tl.float8e4nv"};
    fe_value unsup_b = {.kind = FE_V_DTYPE, .dtype = TIR_NELEMS, .str = "tl.float64"};
    assert_true(fe_value_same(&unsup_a, &unsup_b, &eq));
    assert_false(eq);
    fe_value items[3] = {num(10), num(20), num(30)};
    fe_value tup = {.kind = FE_V_TUPLE, .items = items, .n = 3};
    assert_false(fe_value_same(&tup, &tup, &eq));
    assert_ptr_equal(fe_value_item(&tup, -1), &items[2]);
    assert_null(fe_value_item(&tup, 3));
    assert_null(fe_value_item(&tup, -4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_symbolic_arithmetic_keeps_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_values_wait_for_the_free_constexpr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_say_why, setup, teardown),
        cmocka_unit_test_setup_teardown(test_floats_and_exact_integers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truth_equality_items, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
