/* value.c - the compile-time arithmetic of the front end's two Python
 * evaluators, the launch-spec reader (launch.c) and the checker (check.c);
 * declared in front.h. Integers are symbolic expressions: + - * // % keep
 * free names (BLOCK_M // 2), ** needs known operands. Integers are 64-bit:
 * known operands whose result cannot be computed overflowed (2**62 * 4,
 * -2**63 // -1), and that is reported where it happens rather than left in
 * an expression no later stage can evaluate.
 *
 * The functions say what went wrong in words both evaluators print as they
 * are; each reports them at its own location and unwinds its own way.
 * fe_spec_eval, the value of an integer under the spec's bindings, is here
 * too: both evaluators (and the arithmetic below) ask it.
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
