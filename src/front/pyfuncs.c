/* pyfuncs.c - Python's own functions in the checker (check_int.h): the
 * builtins a kernel may call (min, max, float, int, bool, abs, len) and
 * math.* on compile-time numbers. Like the tl.* functions (builtins.c) they
 * are rows of a table that say how they take their arguments - here
 * positionally, each evaluated before the handler runs (interp.c does it) -
 * and what is refused before any argument is evaluated; the handlers get
 * the values and call only the files below them (ops.c, cval.c).
 */
#include "front/check_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Python's builtins
 * ==================================================================== */

void chk_refuse_range(chk *c, const fe_expr *call, const char *fname)
{
    chk_fail(c, call->loc, "%s() is only supported as the iterable of a for loop", fname);
}

static void refuse_print(chk *c, const fe_expr *call, const char *fname)
{
    chk_fail(c, call->loc, "%s() is not supported in loomc kernels", fname);
}

/* Python's builtins take positional arguments only. */
static void positional_only(chk *c, const fe_expr *call, const char *fname)
{
    if (call->nkws)
        chk_fail(c, call->kws[0].loc, "%s() takes no keyword arguments here", fname);
    if (call->nitems > MAX_ARGS)
        chk_fail(c, call->loc, "too many arguments to %s()", fname);
}

static void one_arg(chk *c, const fe_expr *call, const cargs *a)
{
    if (call->nitems != 1)
        chk_fail(c, call->loc, "%s() takes one argument", a->fname);
}

static cval minmax(chk *c, const fe_expr *e, const cargs *a)
{
    const char *name = a->fname;
    if (e->nitems < 2)
        chk_fail(c, e->loc, "%s() needs at least two arguments", name);
    cval r = a->v[0];
    for (int i = 1; i < e->nitems; i++) {
        for (int k = 0; k < 2; k++) {
            const cval *v = k ? &a->v[i] : &r;
            if (!is_number(v) && !is_tile_val(v))
                chk_fail(c, e->items[k ? i : 0]->loc, "%s() needs numbers or scalars, got %s", name,
                         chk_describe(c, v));
        }
        r = chk_minmax2(c, !strcmp(name, "max"), r, a->v[i], e->loc);
    }
    return r;
}

static cval py_float(chk *c, const fe_expr *e, const cargs *a)
{
    one_arg(c, e, a);
    const cval *x = &a->v[0];
    lm_loc xl = a->loc[0];
    if (x->kind == FE_V_STR) {
        const char *s = x->str;
        double f;
        if (!strcmp(s, "inf") || !strcmp(s, "+inf"))
            f = INFINITY;
        else if (!strcmp(s, "-inf"))
            f = -INFINITY;
        else if (!strcmp(s, "nan"))
            f = NAN;
        else {
            char *end;
            f = strtod(s, &end);
            if (!*s || *end)
                chk_fail(c, xl, "float() of \"%s\" is not a number", s);
        }
        return (cval){.kind = FE_V_FLOAT, .f = f};
    }
    if (x->kind == FE_V_FLOAT)
        return *x;
    if (x->kind == FE_V_INT)
        return (cval){.kind = FE_V_FLOAT, .f = (double)chk_ct_need(c, x->i, xl, "the argument of float()")};
    return chk_convert(c, x, xl, TIR_F32, e->loc);
}

static cval py_int(chk *c, const fe_expr *e, const cargs *a)
{
    one_arg(c, e, a);
    const cval *x = &a->v[0];
    if (x->kind == FE_V_INT)
        return cv_int(x->i);
    if (x->kind == FE_V_FLOAT) {
        if (!(fabs(x->f) < 9e18))
            chk_fail(c, a->loc[0], "int() of %g is out of range", x->f);
        return cv_int(sym_const(c->s, (int64_t)x->f));
    }
    return chk_convert(c, x, a->loc[0], TIR_I32, e->loc);
}

static cval py_bool(chk *c, const fe_expr *e, const cargs *a)
{
    one_arg(c, e, a);
    bool t;
    if (chk_truth_known(c, &a->v[0], &t))
        return cv_bool(c, t);
    return cv_val(chk_to_bool(c, chk_as_tile(c, &a->v[0], a->loc[0], "the argument of bool()"), e->loc));
}

static cval py_abs(chk *c, const fe_expr *e, const cargs *a)
{
    one_arg(c, e, a);
    const cval *x = &a->v[0];
    if (x->kind == FE_V_FLOAT)
        return (cval){.kind = FE_V_FLOAT, .f = fabs(x->f)};
    if (x->kind == FE_V_INT)
        return cv_int(sym_max(c->s, x->i, sym_neg(c->s, x->i)));
    tir_value *v = chk_as_tile(c, x, a->loc[0], "the argument of abs()");
    return cv_val(chk_build1(c, TIR_ABS, e->loc, v->type, v, NULL, NULL));
}

static cval py_len(chk *c, const fe_expr *e, const cargs *a)
{
    one_arg(c, e, a);
    const cval *x = &a->v[0];
    if (x->kind == FE_V_TUPLE)
        return cv_int(sym_const(c->s, x->n));
    if (is_tile_val(x) && x->v->type.rank > 0)
        return cv_int(x->v->type.shape[0]);
    chk_fail(c, a->loc[0], "len() of %s is not supported", chk_describe(c, x));
}

static const chk_builtin py_fns[] = {
    {"range", NULL, NULL, 0, chk_refuse_range},   {"min", minmax, NULL, 0, positional_only},
    {"max", minmax, NULL, 0, positional_only}, {"float", py_float, NULL, 0, positional_only},
    {"int", py_int, NULL, 0, positional_only}, {"abs", py_abs, NULL, 0, positional_only},
    {"len", py_len, NULL, 0, positional_only}, {"print", NULL, NULL, 0, refuse_print},
    {"bool", py_bool, NULL, 0, positional_only},
};

const chk_builtin *chk_builtin_python(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(py_fns); i++)
        if (!strcmp(py_fns[i].name, name))
            return &py_fns[i];
    return NULL;
}

/* ======================================================================
 * math.* on compile-time numbers
 * ==================================================================== */

static void math_one_arg(chk *c, const fe_expr *e, const char *q)
{
    if (e->nitems != 1 || e->nkws)
        chk_fail(c, e->loc, "%s() takes one argument", q);
}

static cval math_fn(chk *c, const fe_expr *e, const cargs *a)
{
    const char *q = a->fname, *n = q + 5;
    const cval *x = &a->v[0];
    double v;
    if (x->kind == FE_V_FLOAT)
        v = x->f;
    else if (x->kind == FE_V_INT)
        v = (double)chk_ct_need(c, x->i, a->loc[0], "the argument of a math function");
    else
        chk_fail(c, a->loc[0], "%s() works on compile-time numbers; use tl.%s on tiles", q, n);
    double r = !strcmp(n, "log2") ? log2(v) : !strcmp(n, "log") ? log(v) : !strcmp(n, "exp") ? exp(v)
             : !strcmp(n, "exp2") ? exp2(v) : sqrt(v);
    if (isnan(r) && !isnan(v))
        chk_fail(c, e->loc, "%s(%g) is not a number", q, v);
    return (cval){.kind = FE_V_FLOAT, .f = r};
}

static const chk_builtin math_fns[] = {
    {"log2", math_fn, NULL, 0, math_one_arg}, {"log", math_fn, NULL, 0, math_one_arg},
    {"exp", math_fn, NULL, 0, math_one_arg},  {"exp2", math_fn, NULL, 0, math_one_arg},
    {"sqrt", math_fn, NULL, 0, math_one_arg},
};

const chk_builtin *chk_builtin_math(chk *c, const fe_expr *e, const char *q)
{
    for (size_t i = 0; i < LM_COUNT(math_fns); i++)
        if (!strcmp(math_fns[i].name, q + 5))
            return &math_fns[i];
    chk_fail(c, e->loc, "%s is not supported in loomc kernels", q);
}
