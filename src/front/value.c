/* value.c - the front end's compile-time values (fe_value, declared in
 * front.h) and their algebra, one home for the rules of both of its Python
 * evaluators, the launch-spec reader (launch.c) and the checker (check.c
 * and its files): integer and float arithmetic, comparisons, the folding
 * of an operator on two numbers, truth, the equality of None, strings and
 * dtypes, and items of tuples. Integers are symbolic expressions: + - * //
 * % keep free names (BLOCK_M // 2), ** and the bit operators need known
 * operands. Integers are 64-bit: known operands whose result cannot be
 * computed overflowed (2**62 * 4, -2**63 // -1), and that is reported
 * where it happens rather than left in an expression no later stage can
 * evaluate.
 *
 * What each evaluator accepts stays its own - a launch spec has no bit
 * operators and compares only known numbers, None and strings; a kernel's
 * operators reach Tile IR for what does not fold - and so do their
 * messages: the functions here say what went wrong in words both print as
 * they are, and each reports them at its own location and unwinds its own
 * way. fe_spec_eval, the value of an integer under the spec's bindings, is
 * here too: both evaluators (and the algebra below) ask it.
 */
#include "front/front.h"

#include <math.h>
#include <string.h>

bool fe_spec_eval(const fe_spec *spec, const sym_expr *e, int64_t *out, const char **unbound)
{
    if (sym_eval(e, &spec->env, out) == SYM_OK)
        return true;
    if (unbound) {
        *unbound = NULL;
        const sym_expr *vars[16];
        int n = sym_vars(e, vars, 16);
        for (int i = 0; i < n && i < 16; i++) {
            int64_t lo, hi;
            if (!sym_env_get(&spec->env, vars[i], &lo, &hi)) {
                *unbound = vars[i]->name;
                break;
            }
        }
    }
    return false;
}

const char *fe_int_overflow(const fe_spec *spec, lm_arena *a, const char *op, const sym_expr *x, const sym_expr *y,
                            const sym_expr *r)
{
    int64_t xv, yv, rv;
    if (fe_spec_eval(spec, x, &xv, NULL) && fe_spec_eval(spec, y, &yv, NULL) && !fe_spec_eval(spec, r, &rv, NULL))
        return lm_arena_printf(a, "integer overflow in '%s' (%lld %s %lld does not fit in 64 bits)", op, (long long)xv,
                               op, (long long)yv);
    return NULL;
}

/* b ** p for p >= 0; false if it does not fit in 64 bits. */
static bool ipow(int64_t b, int64_t p, int64_t *out)
{
    /* bases 0 and +-1 never overflow, so they must not loop p times */
    if (b == 0 || b == 1) {
        *out = p == 0 ? 1 : b;
        return true;
    }
    if (b == -1) {
        *out = p % 2 ? -1 : 1;
        return true;
    }
    int64_t r = 1;
    for (int64_t k = 0; k < p; k++)
        if (!lm_mul_ok(r, b, &r))
            return false;
    *out = r;
    return true;
}

bool fe_int_arith(const fe_spec *spec, sym_ctx *s, lm_arena *a, const char *op, const sym_expr *x,
                  const sym_expr *y, const sym_expr **out, const char **why)
{
    *out = NULL;
    *why = NULL;
    const sym_expr *r;
    if (!strcmp(op, "+")) {
        r = sym_add(s, x, y);
    } else if (!strcmp(op, "-")) {
        r = sym_sub(s, x, y);
    } else if (!strcmp(op, "*")) {
        r = sym_mul(s, x, y);
    } else if (!strcmp(op, "//") || !strcmp(op, "%")) {
        int64_t yv;
        if (sym_is_const(y, &yv) && yv == 0) {
            *why = "division by zero";
            return true;
        }
        r = !strcmp(op, "//") ? sym_floordiv(s, x, y) : sym_mod(s, x, y);
    } else if (!strcmp(op, "**")) {
        int64_t b, p, v;
        if (!fe_spec_eval(spec, x, &b, NULL) || !fe_spec_eval(spec, y, &p, NULL) || p < 0)
            return false; /* a negative power is a float */
        if (!ipow(b, p, &v)) {
            *why = "integer overflow in '**'";
            return true;
        }
        *out = sym_const(s, v);
        return true;
    } else {
        return false;
    }
    *why = fe_int_overflow(spec, a, op, x, y, r);
    if (!*why)
        *out = r;
    return true;
}

bool fe_float_arith(const char *op, double x, double y, double *out, const char **why)
{
    *why = NULL;
    if (!strcmp(op, "+")) {
        *out = x + y;
    } else if (!strcmp(op, "-")) {
        *out = x - y;
    } else if (!strcmp(op, "*")) {
        *out = x * y;
    } else if (!strcmp(op, "/") || !strcmp(op, "//") || !strcmp(op, "%")) {
        if (y == 0) {
            *why = "division by zero";
            return true;
        }
        *out = !strcmp(op, "/") ? x / y : !strcmp(op, "//") ? floor(x / y) : x - y * floor(x / y);
    } else if (!strcmp(op, "**")) {
        if (x < 0 && floor(y) != y) {
            *why = "fractional power of a negative number";
            return true;
        }
        *out = pow(x, y);
    } else {
        return false;
    }
    return true;
}

/* ======================================================================
 * the algebra of compile-time values
 * ==================================================================== */

bool fe_is_compare(const char *op)
{
    return !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") ||
           !strcmp(op, ">=");
}

static bool cmp_result(const char *op, int c3)
{
    if (!strcmp(op, "=="))
        return c3 == 0;
    if (!strcmp(op, "!="))
        return c3 != 0;
    if (!strcmp(op, "<"))
        return c3 < 0;
    if (!strcmp(op, "<="))
        return c3 <= 0;
    if (!strcmp(op, ">"))
        return c3 > 0;
    return c3 >= 0;
}

/* The first variable of e without a value (a free constexpr), or NULL. */
static const char *unbound_of(const fe_spec *spec, const sym_expr *e)
{
    int64_t v;
    const char *unb = NULL;
    if (fe_spec_eval(spec, e, &v, &unb))
        return NULL;
    return unb;
}

/* Two integers: Python's integer operators, symbolic where they can be. */
static fe_fold fold_ints(const fe_spec *spec, sym_ctx *s, lm_arena *a, const char *op, const fe_value *x,
                         const fe_value *y, fe_value *out, const char **msg)
{
    const sym_expr *p = x->i, *q = y->i, *r;
    int64_t av, bv;
    if (fe_int_arith(spec, s, a, op, p, q, &r, msg)) {
        if (*msg)
            return FE_FOLD_ERROR;
        *out = fe_v_int(r);
        return FE_FOLD_DONE;
    }
    if (fe_is_compare(op)) {
        const sym_expr *d = sym_sub(s, p, q);
        int64_t dv;
        if (sym_is_const(d, &dv)) {
            *out = fe_v_bool(s, cmp_result(op, dv < 0 ? -1 : dv > 0));
            return FE_FOLD_DONE;
        }
        /* known values are compared directly: their difference may not
           fit in 64 bits (0 < -2**63) */
        if (fe_spec_eval(spec, p, &av, NULL) && fe_spec_eval(spec, q, &bv, NULL)) {
            *out = fe_v_bool(s, cmp_result(op, av < bv ? -1 : av > bv));
            return FE_FOLD_DONE;
        }
        *msg = unbound_of(spec, d);
        return FE_FOLD_LATER;
    }
    if (!fe_spec_eval(spec, p, &av, NULL) || !fe_spec_eval(spec, q, &bv, NULL)) {
        *msg = unbound_of(spec, sym_add(s, p, q));
        return FE_FOLD_LATER;
    }
    if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^")) {
        int64_t bits = !strcmp(op, "&") ? (av & bv) : !strcmp(op, "|") ? (av | bv) : (av ^ bv);
        *out = fe_v_int(sym_const(s, bits));
        out->is_bool = x->is_bool && y->is_bool;
        return FE_FOLD_DONE;
    }
    if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
        if (bv < 0 || bv > 62) {
            *msg = lm_arena_printf(a, "shift count %lld out of range", (long long)bv);
            return FE_FOLD_ERROR;
        }
        if (!strcmp(op, ">>")) {
            *out = fe_v_int(sym_const(s, av >> bv));
            return FE_FOLD_DONE;
        }
        if (av > (INT64_MAX >> bv) || av < (INT64_MIN >> bv)) {
            *msg = "integer overflow in '<<'";
            return FE_FOLD_ERROR;
        }
        *out = fe_v_int(sym_const(s, (int64_t)((uint64_t)av << bv)));
        return FE_FOLD_DONE;
    }
    return FE_FOLD_LATER; /* '/' and negative powers give floats: the caller goes on with them */
}

/* A number as a float, if its value is known; else *msg names what it waits for. */
static bool as_double(const fe_spec *spec, const fe_value *v, double *out, const char **msg)
{
    int64_t k;
    if (v->kind == FE_V_FLOAT) {
        *out = v->f;
        return true;
    }
    if (fe_spec_eval(spec, v->i, &k, NULL)) {
        *out = (double)k;
        return true;
    }
    *msg = unbound_of(spec, v->i);
    return false;
}

fe_fold fe_value_fold(const fe_spec *spec, sym_ctx *s, lm_arena *a, const char *op, const fe_value *x,
                      const fe_value *y, fe_value *out, const char **msg)
{
    *msg = NULL;
    if (x->kind == FE_V_INT && y->kind == FE_V_INT) {
        fe_fold k = fold_ints(spec, s, a, op, x, y, out, msg);
        if (k != FE_FOLD_LATER || *msg)
            return k;
    }
    if (!fe_v_is_number(x) || !fe_v_is_number(y))
        return FE_FOLD_LATER;
    double p, q, r;
    if (!as_double(spec, x, &p, msg) || !as_double(spec, y, &q, msg))
        return FE_FOLD_LATER;
    if (fe_is_compare(op)) {
        *out = fe_v_bool(s, cmp_result(op, p < q ? -1 : p > q));
        return FE_FOLD_DONE;
    }
    if (!fe_float_arith(op, p, q, &r, msg)) {
        *msg = lm_arena_printf(a, "operator '%s' is not supported on floats", op);
        return FE_FOLD_ERROR;
    }
    if (*msg)
        return FE_FOLD_ERROR;
    *out = fe_v_float(r);
    return FE_FOLD_DONE;
}

bool fe_value_truth(const fe_spec *spec, const fe_value *v, bool *out)
{
    int64_t k;
    switch (v->kind) {
    case FE_V_NONE: *out = false; return true;
    case FE_V_INT:
        if (!fe_spec_eval(spec, v->i, &k, NULL))
            return false;
        *out = k != 0;
        return true;
    case FE_V_FLOAT: *out = v->f != 0; return true;
    case FE_V_STR: *out = v->str[0] != 0; return true;
    case FE_V_DTYPE: *out = true; return true;
    case FE_V_TUPLE: *out = v->n > 0; return true;
    case FE_V_TENSOR:
    case FE_V_TIR: return false;
    }
    return false;
}

bool fe_value_same(const fe_value *x, const fe_value *y, bool *eq)
{
    *eq = false;
    if (x->kind != y->kind)
        return true;
    switch (x->kind) {
    case FE_V_NONE: *eq = true; return true;
    case FE_V_STR: *eq = !strcmp(x->str, y->str); return true;
    case FE_V_DTYPE:
        *eq = x->dtype == y->dtype && x->ptr_dtype == y->ptr_dtype && (x->dtype != TIR_NELEMS || !strcmp(x->str, y->str));
        return true;
    default: return false;
    }
}

const fe_value *fe_value_item(const fe_value *t, int64_t i)
{
    if (i < 0)
        i += t->n;
    return i >= 0 && i < t->n ? &t->items[i] : NULL;
}
