/* atoms.c - the parts of the checker's expressions (check_int.h) that
 * evaluate nothing further: names (the environment, then module constants,
 * with a message for each thing a name may wrongly stand for), dotted
 * import paths as values (dtypes, math.pi), attributes of values (x.shape,
 * x.T), indexing a tile with ':' and None, and the message of a condition
 * known only at run time. The evaluator (interp.c) evaluates the operands
 * and hands them here.
 */
#include "front/check_int.h"

#include <math.h>
#include <string.h>

/* The dotted import path an expression stands for, unless its first name is
 * a variable of the kernel (which shadows the import). */
const char *chk_qual_of(chk *c, const fe_expr *e)
{
    const fe_expr *base = e;
    while (base->kind == FE_E_ATTR)
        base = base->a;
    if (base->kind != FE_E_NAME || chk_env_find(c, base->name))
        return NULL;
    return fe_qualname(c->nm, e, c->a);
}

/* A module-level constant: a literal, or tl.constexpr(literal). */
static cval eval_global(chk *c, const fe_global *g, lm_loc use)
{
    const fe_expr *e = g->value;
    if (e->kind == FE_E_CALL && e->nitems == 1 && e->nkws == 0) {
        const char *q = fe_qualname(c->nm, e->a, c->a);
        if (q && !strcmp(q, "triton.language.constexpr"))
            e = e->items[0];
    }
    bool neg = false;
    if (e->kind == FE_E_UNOP && !strcmp(e->op, "-")) {
        neg = true;
        e = e->a;
    }
    switch (e->kind) {
    case FE_E_INT: return cv_int(sym_const(c->s, neg ? -e->ival : e->ival));
    case FE_E_FLOAT: return (cval){.kind = FE_V_FLOAT, .f = neg ? -e->fval : e->fval};
    case FE_E_BOOL:
        if (!neg)
            return cv_bool(c, e->ival != 0);
        break;
    case FE_E_STR:
        if (!neg && !e->ival)
            return (cval){.kind = FE_V_STR, .str = e->str};
        break;
    default: break;
    }
    chk_fail(c, use, "global '%s' (line %d) is not a constant; kernels can read module-level integers, floats, bools "
                     "and strings (optionally wrapped in tl.constexpr)",
             g->name, g->loc.line);
}

cval chk_eval_name(chk *c, const fe_expr *e)
{
    binding *b = chk_env_find(c, e->name);
    if (b)
        return b->v;
    const fe_global *g = fe_find_global(c->nm, e->name);
    if (g)
        return eval_global(c, g, e->loc);
    if (fe_qualname(c->nm, e, c->a))
        chk_fail(c, e->loc, "module '%s' cannot be used as a value", e->name);
    if (fe_find_func(c->nm, e->name))
        chk_fail(c, e->loc, "function '%s' cannot be used as a value", e->name);
    if (chk_builtin_python(e->name))
        chk_fail(c, e->loc, "builtin '%s' cannot be used as a value", e->name);
    for (int i = c->ngone - 1; i >= 0; i--)
        if (!strcmp(c->gone[i].name, e->name))
            chk_fail(c, e->loc, "name '%s' is not defined here: it is assigned only inside the loop on line %d; assign "
                                "it before the loop to use it after",
                     e->name, c->gone[i].line);
    chk_fail(c, e->loc, "name '%s' is not defined", e->name);
}

static cval dtype_val(tir_elem e, bool ptr) { return (cval){.kind = FE_V_DTYPE, .dtype = e, .ptr_dtype = ptr}; }

static cval tuple_of_syms(chk *c, int n, const sym_expr *const *s)
{
    cval t = {.kind = FE_V_TUPLE, .n = n};
    t.items = LM_NEWN(c->a, cval, n ? n : 1);
    for (int i = 0; i < n; i++)
        t.items[i] = cv_int(s[i]);
    return t;
}

/* A dotted import path as a value: a dtype, math.inf, math.pi, math.e. */
cval chk_qual_value(chk *c, const fe_expr *e, const char *q)
{
    tir_elem el;
    int k = fe_dtype(q, &el);
    if (k == 1)
        return dtype_val(el, false);
    if (k < 0) /* named only to be compared (`x.dtype == tl.float8e4nv`); refused where used */
        return (cval){.kind = FE_V_DTYPE, .dtype = TIR_NELEMS, .str = pretty(c, q)};
    if (!strcmp(q, "math.inf"))
        return (cval){.kind = FE_V_FLOAT, .f = INFINITY};
    if (!strcmp(q, "math.pi"))
        return (cval){.kind = FE_V_FLOAT, .f = 3.14159265358979323846};
    if (!strcmp(q, "math.e"))
        return (cval){.kind = FE_V_FLOAT, .f = 2.71828182845904523536};
    chk_fail(c, e->loc, "%s cannot be used as a value here", pretty(c, q));
}

/* The attribute e->name of a value (x.shape, x.T, p.dtype.element_ty). */
cval chk_attr(chk *c, const fe_expr *e, const cval *o)
{
    cval obj = *o;
    const char *n = e->name;
    if (obj.kind == FE_V_DTYPE) {
        if (obj.ptr_dtype && !strcmp(n, "element_ty"))
            return dtype_val(obj.dtype, false);
        chk_fail(c, e->loc, "attribute '%s' of a dtype is not supported", n);
    }
    if (obj.kind == FE_V_TIR) {
        const tir_type *t = &obj.v->type;
        if (t->kind == TIR_TILE) {
            if (!strcmp(n, "T"))
                return cv_val(chk_transpose(c, obj.v, e->loc, "'.T'"));
            if (!strcmp(n, "shape"))
                return tuple_of_syms(c, t->rank, t->shape);
            if (!strcmp(n, "dtype"))
                return dtype_val(t->elem, false);
            if (!strcmp(n, "ndim"))
                return cv_int(sym_const(c->s, t->rank));
        } else if (t->kind == TIR_PTR) {
            if (!strcmp(n, "dtype") || !strcmp(n, "type"))
                return dtype_val(t->elem, true);
        } else {
            if (!strcmp(n, "dtype"))
                return dtype_val(t->elem, false);
            if (!strcmp(n, "block_shape"))
                return tuple_of_syms(c, t->rank, t->shape);
        }
    }
    chk_fail(c, e->loc, "attribute '%s' of %s is not supported in loomc kernels", n, chk_describe(c, &obj));
}

/* A tile indexed with ':' and None (x[:, None]): its dimensions kept or added. */
cval chk_index_tile(chk *c, const fe_expr *e, const cval *o)
{
    cval obj = *o;
    if (!is_tile_val(&obj))
        chk_fail(c, e->loc, "%s cannot be indexed", chk_describe(c, &obj));
    tir_value *v = obj.v;
    int rank = v->type.rank, consumed = 0, pos = 0;
    for (int k = 0; k < e->nitems; k++) {
        const fe_expr *it = e->items[k];
        if (it->kind == FE_E_NONE) {
            v = chk_expand_dims(c, v, pos, it->loc);
            pos++;
        } else if (it->kind == FE_E_SLICE && !it->a && !it->b && !it->c) {
            if (consumed == rank)
                chk_fail(c, it->loc, "too many ':' for %s", chk_describe(c, &obj));
            consumed++;
            pos++;
        } else if (it->kind == FE_E_SLICE) {
            chk_fail(c, it->loc, "slicing a tile with bounds is not supported in loomc kernels; tiles are indexed only "
                                 "with ':' and None");
        } else {
            chk_fail(c, it->loc, "indexing a tile with %s is not supported in loomc kernels; tiles are indexed only "
                                 "with ':' and None (x[:, None], x[None, :])",
                     it->kind == FE_E_ELLIPSIS ? "'...'" : "a value");
        }
    }
    return cv_val(v);
}

LM_NORETURN void chk_runtime_condition(chk *c, const cval *v, lm_loc loc, const char *what)
{
    const char *dep = v->kind == FE_V_INT ? chk_ct_unbound(c, v->i) : v->free_dep;
    if (dep)
        chk_fail(c, loc, "%s depends on free constexpr '%s', which the solver chooses; loomc decides conditions at "
                         "compile time (pin it with --const %s=VALUE, or use tl.where)",
                 what, dep, dep);
    chk_fail(c, loc, "%s is %s, known only at run time; loomc kernels branch only on compile-time conditions "
                     "(tl.constexpr); use tl.where to choose between values",
             what, chk_describe(c, v));
}
