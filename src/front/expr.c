/* expr.c - expressions of the checker (check_int.h): the binding of a
 * call's arguments to a Triton function's parameters, and the evaluation of
 * names, globals, attributes, subscripts, unary operators and calls. Binary
 * operators are ops.c's, values and reading bound arguments cval.c's; the
 * tl.* functions are builtins.c's, which call back here to evaluate their
 * arguments as they bind them.
 */
#include "front/check_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * unary operators
 * ==================================================================== */

static cval unop(chk *c, const char *op, cval x, lm_loc loc)
{
    if (!strcmp(op, "not")) {
        bool t;
        if (chk_truth_known(c, &x, &t))
            return cv_bool(c, !t);
        if (x.kind == C_INT) {
            cval r = cv_val(chk_build1(c, TIR_CMP_EQ, loc, tir_t_scalar(TIR_I1), chk_materialise(c, &x, TIR_I32, loc),
                                       tir_const_int(&c->b, TIR_I32, 0), NULL));
            r.free_dep = chk_ct_unbound(c, x.i);
            return r;
        }
        tir_value *v = chk_as_tile(c, &x, loc, "the operand of 'not'");
        cval r = cv_val(
            chk_build1(c, TIR_NOT, loc, tir_t_with_elem(v->type, TIR_I1), chk_to_bool(c, v, loc), NULL, NULL));
        r.free_dep = x.free_dep;
        return r;
    }
    if (!strcmp(op, "+")) {
        chk_as_tile(c, &x, loc, "the operand of unary '+'");
        return x;
    }
    if (x.kind == C_INT && !strcmp(op, "-")) {
        int64_t k;
        if (ct_known(c, x.i, &k) && k == INT64_MIN)
            chk_fail(c, loc, "integer overflow in unary '-' (-(%lld) does not fit in 64 bits)", (long long)k);
        return cv_int(sym_neg(c->s, x.i));
    }
    if (x.kind == C_FLOAT && !strcmp(op, "-"))
        return (cval){.kind = C_FLOAT, .f = -x.f};
    if (x.kind == C_INT && !strcmp(op, "~")) {
        int64_t k = chk_ct_need(c, x.i, loc, "the operand of '~'");
        return cv_int(sym_const(c->s, ~k));
    }
    if (x.kind == C_FLOAT)
        chk_fail(c, loc, "operator '%s' cannot be applied to a float", op);
    tir_value *v = chk_as_tile(c, &x, loc, lm_arena_printf(c->a, "the operand of unary '%s'", op));
    if (!strcmp(op, "-")) {
        if (v->type.elem == TIR_I1)
            v = chk_cast_to(c, v, TIR_I32, loc);
        return cv_val(chk_build1(c, TIR_NEG, loc, v->type, v, NULL, NULL));
    }
    if (!strcmp(op, "~")) {
        if (tir_elem_is_float(v->type.elem))
            chk_fail(c, loc, "operator '~' needs an integer operand, got %s", tir_elem_name(v->type.elem));
        return cv_val(chk_build1(c, TIR_NOT, loc, v->type, v, NULL, NULL));
    }
    chk_fail(c, loc, "operator '%s' is not supported", op);
}

/* ======================================================================
 * calls: argument binding
 * ==================================================================== */

/* Bind a call's arguments to the parameter names of a Triton function
 * (NULL-terminated); the first nreq are required. self, if not NULL, is the
 * object of a method call and binds the first parameter. */
void chk_bind_args(chk *c, const fe_expr *call, const cval *self, const char *fname, const char *const *names,
                   int nreq, cargs *out)
{
    memset(out, 0, sizeof *out);
    out->call = call->loc;
    out->fname = fname;
    int n = 0;
    while (names[n])
        n++;
    if (n > MAX_ARGS)
        LM_BUG("too many parameters for %s", fname);
    int k = 0;
    if (self) {
        out->v[0] = *self;
        out->has[0] = true;
        out->loc[0] = call->loc;
        k = 1;
    }
    for (int i = 0; i < call->nitems; i++, k++) {
        if (k < n && names[k][0] == '*') {
            /* *shape: the remaining positional arguments, or one tuple */
            int rest = call->nitems - i;
            cval t = {.kind = C_TUPLE, .n = rest, .items = LM_NEWN(c->a, cval, rest)};
            for (int j = 0; j < rest; j++)
                t.items[j] = chk_eval(c, call->items[i + j]);
            if (rest == 1 && t.items[0].kind == C_TUPLE)
                t = t.items[0];
            out->v[k] = t;
            out->has[k] = true;
            out->loc[k] = call->items[i]->loc;
            k++;
            break;
        }
        if (k >= n)
            chk_fail(c, call->items[i]->loc, "%s takes at most %d arguments, got %d", fname, n - (self ? 1 : 0),
                     call->nitems);
        out->v[k] = chk_eval(c, call->items[i]);
        out->has[k] = true;
        out->loc[k] = call->items[i]->loc;
    }
    for (int j = 0; j < call->nkws; j++) {
        const fe_keyword *kw = &call->kws[j];
        int p = -1;
        for (int i = 0; i < n && p < 0; i++)
            if (!strcmp(names[i] + (names[i][0] == '*'), kw->name))
                p = i;
        if (p < 0)
            chk_fail(c, kw->loc, "%s got an unexpected keyword argument '%s'", fname, kw->name);
        if (out->has[p])
            chk_fail(c, kw->loc, "%s got multiple values for argument '%s'", fname, kw->name);
        out->v[p] = chk_eval(c, kw->value);
        out->has[p] = true;
        out->loc[p] = kw->loc;
    }
    for (int i = 0; i < nreq; i++)
        if (!out->has[i])
            chk_fail(c, call->loc, "%s is missing its argument '%s'", fname, names[i] + (names[i][0] == '*'));
}

static cval tuple_of_syms(chk *c, int n, const sym_expr *const *s)
{
    cval t = {.kind = C_TUPLE, .n = n};
    t.items = LM_NEWN(c->a, cval, n ? n : 1);
    for (int i = 0; i < n; i++)
        t.items[i] = cv_int(s[i]);
    return t;
}

/* ======================================================================
 * expressions
 * ==================================================================== */

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

static const char *const builtins[] = {"range", "min", "max", "float", "int", "abs", "len", "print", "bool"};

static bool is_builtin(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(builtins); i++)
        if (!strcmp(builtins[i], name))
            return true;
    return false;
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
    case FE_E_FLOAT: return (cval){.kind = C_FLOAT, .f = neg ? -e->fval : e->fval};
    case FE_E_BOOL:
        if (!neg)
            return cv_bool(c, e->ival != 0);
        break;
    case FE_E_STR:
        if (!neg && !e->ival)
            return (cval){.kind = C_STR, .str = e->str};
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
    if (is_builtin(e->name))
        chk_fail(c, e->loc, "builtin '%s' cannot be used as a value", e->name);
    for (int i = c->ngone - 1; i >= 0; i--)
        if (!strcmp(c->gone[i].name, e->name))
            chk_fail(c, e->loc, "name '%s' is not defined here: it is assigned only inside the loop on line %d; assign "
                                "it before the loop to use it after",
                     e->name, c->gone[i].line);
    chk_fail(c, e->loc, "name '%s' is not defined", e->name);
}

static cval dtype_val(tir_elem e, bool ptr) { return (cval){.kind = C_DTYPE, .dtype = e, .ptr_dtype = ptr}; }

static cval eval_attr(chk *c, const fe_expr *e)
{
    const char *q = chk_qual_of(c, e);
    if (q) {
        tir_elem el;
        int k = fe_dtype(q, &el);
        if (k == 1)
            return dtype_val(el, false);
        if (k < 0) /* named only to be compared (`x.dtype == tl.float8e4nv`); refused where used */
            return (cval){.kind = C_DTYPE, .dtype = TIR_NELEMS, .str = pretty(c, q)};
        if (!strcmp(q, "math.inf"))
            return (cval){.kind = C_FLOAT, .f = INFINITY};
        if (!strcmp(q, "math.pi"))
            return (cval){.kind = C_FLOAT, .f = 3.14159265358979323846};
        if (!strcmp(q, "math.e"))
            return (cval){.kind = C_FLOAT, .f = 2.71828182845904523536};
        chk_fail(c, e->loc, "%s cannot be used as a value here", pretty(c, q));
    }
    cval obj = chk_eval(c, e->a);
    const char *n = e->name;
    if (obj.kind == C_DTYPE) {
        if (obj.ptr_dtype && !strcmp(n, "element_ty"))
            return dtype_val(obj.dtype, false);
        chk_fail(c, e->loc, "attribute '%s' of a dtype is not supported", n);
    }
    if (obj.kind == C_VAL) {
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

static cval eval_subscript(chk *c, const fe_expr *e)
{
    cval obj = chk_eval(c, e->a);
    if (obj.kind == C_TUPLE) {
        if (e->nitems != 1 || e->items[0]->kind == FE_E_SLICE)
            chk_fail(c, e->loc, "a tuple can only be indexed with one integer");
        cval iv = chk_eval(c, e->items[0]);
        int64_t i = chk_const_int_of(c, &iv, e->items[0]->loc, "a tuple index");
        if (i < 0)
            i += obj.n;
        if (i < 0 || i >= obj.n)
            chk_fail(c, e->items[0]->loc, "index %lld is out of range for a tuple of %d items",
                     (long long)chk_const_int_of(c, &iv, e->items[0]->loc, "a tuple index"), obj.n);
        return obj.items[i];
    }
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

static cval builtin_call(chk *c, const fe_expr *e, const char *name)
{
    lm_loc loc = e->loc;
    if (!strcmp(name, "range"))
        chk_fail(c, loc, "range() is only supported as the iterable of a for loop");
    if (!strcmp(name, "print"))
        chk_fail(c, loc, "print() is not supported in loomc kernels");
    if (e->nkws)
        chk_fail(c, e->kws[0].loc, "%s() takes no keyword arguments here", name);
    cval args[MAX_ARGS];
    if (e->nitems > MAX_ARGS)
        chk_fail(c, loc, "too many arguments to %s()", name);
    for (int i = 0; i < e->nitems; i++)
        args[i] = chk_eval(c, e->items[i]);
    if (!strcmp(name, "min") || !strcmp(name, "max")) {
        if (e->nitems < 2)
            chk_fail(c, loc, "%s() needs at least two arguments", name);
        cval r = args[0];
        for (int i = 1; i < e->nitems; i++) {
            for (int k = 0; k < 2; k++) {
                const cval *v = k ? &args[i] : &r;
                if (!is_number(v) && !is_tile_val(v))
                    chk_fail(c, e->items[k ? i : 0]->loc, "%s() needs numbers or scalars, got %s", name,
                             chk_describe(c, v));
            }
            r = chk_minmax2(c, !strcmp(name, "max"), r, args[i], loc);
        }
        return r;
    }
    if (e->nitems != 1)
        chk_fail(c, loc, "%s() takes one argument", name);
    cval x = args[0];
    lm_loc xl = e->items[0]->loc;
    if (!strcmp(name, "float")) {
        if (x.kind == C_STR) {
            const char *s = x.str;
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
            return (cval){.kind = C_FLOAT, .f = f};
        }
        if (x.kind == C_FLOAT)
            return x;
        if (x.kind == C_INT)
            return (cval){.kind = C_FLOAT, .f = (double)chk_ct_need(c, x.i, xl, "the argument of float()")};
        return chk_convert(c, &x, xl, TIR_F32, loc);
    }
    if (!strcmp(name, "int")) {
        if (x.kind == C_INT)
            return cv_int(x.i);
        if (x.kind == C_FLOAT) {
            if (!(fabs(x.f) < 9e18))
                chk_fail(c, xl, "int() of %g is out of range", x.f);
            return cv_int(sym_const(c->s, (int64_t)x.f));
        }
        return chk_convert(c, &x, xl, TIR_I32, loc);
    }
    if (!strcmp(name, "bool")) {
        bool t;
        if (chk_truth_known(c, &x, &t))
            return cv_bool(c, t);
        return cv_val(chk_to_bool(c, chk_as_tile(c, &x, xl, "the argument of bool()"), loc));
    }
    if (!strcmp(name, "abs")) {
        if (x.kind == C_FLOAT)
            return (cval){.kind = C_FLOAT, .f = fabs(x.f)};
        if (x.kind == C_INT)
            return cv_int(sym_max(c->s, x.i, sym_neg(c->s, x.i)));
        tir_value *v = chk_as_tile(c, &x, xl, "the argument of abs()");
        return cv_val(chk_build1(c, TIR_ABS, loc, v->type, v, NULL, NULL));
    }
    if (!strcmp(name, "len")) {
        if (x.kind == C_TUPLE)
            return cv_int(sym_const(c->s, x.n));
        if (is_tile_val(&x) && x.v->type.rank > 0)
            return cv_int(x.v->type.shape[0]);
        chk_fail(c, xl, "len() of %s is not supported", chk_describe(c, &x));
    }
    LM_BUG("builtin %s has no implementation", name);
}

static cval eval_call(chk *c, const fe_expr *e)
{
    const fe_expr *f = e->a;
    const char *q = chk_qual_of(c, f);
    if (q)
        return chk_call_qual(c, e, q);
    if (f->kind == FE_E_ATTR) {
        cval obj = chk_eval(c, f->a);
        return chk_call_method(c, e, &obj);
    }
    if (f->kind == FE_E_NAME) {
        binding *b = chk_env_find(c, f->name);
        if (b)
            chk_fail(c, f->loc, "'%s' is %s, which cannot be called", f->name, chk_describe(c, &b->v));
        if (is_builtin(f->name))
            return builtin_call(c, e, f->name);
        const fe_func *fn = fe_find_func(c->nm, f->name);
        if (fn && fe_is_jit(c->nm, fn, c->a))
            return chk_call_helper(c, e, fn, NULL);
        if (fn)
            chk_fail(c, e->loc, "'%s' is not a @triton.jit function; a kernel can only call those", f->name);
        chk_fail(c, f->loc, "name '%s' is not defined", f->name);
    }
    chk_fail(c, e->loc, "this call is not supported in loomc kernels");
}

static cval eval_boolop(chk *c, const fe_expr *e)
{
    bool is_and = !strcmp(e->op, "and");
    cval x = chk_eval(c, e->a);
    bool t;
    if (chk_truth_known(c, &x, &t)) {
        if (is_and ? !t : t)
            return x;
        return chk_eval(c, e->b);
    }
    cval y = chk_eval(c, e->b);
    if (chk_truth_known(c, &y, &t) && !is_tile_val(&x)) {
        /* a symbolic left side and a known right side */
        if (is_and ? !t : t)
            return y;
    }
    tir_value *vx =
        chk_to_bool(c, chk_as_tile(c, &x, e->a->loc, lm_arena_printf(c->a, "the operand of '%s'", e->op)), e->loc);
    tir_value *vy =
        chk_to_bool(c, chk_as_tile(c, &y, e->b->loc, lm_arena_printf(c->a, "the operand of '%s'", e->op)), e->loc);
    chk_broadcast_pair(c, &vx, &vy, e->loc, lm_arena_printf(c->a, "'%s'", e->op));
    cval r = cv_val(chk_build1(c, is_and ? TIR_AND : TIR_OR, e->loc, vx->type, vx, vy, NULL));
    r.free_dep = x.free_dep ? x.free_dep : y.free_dep;
    if (!r.free_dep && x.kind == C_INT)
        r.free_dep = chk_ct_unbound(c, x.i);
    return r;
}

LM_NORETURN void chk_runtime_condition(chk *c, const cval *v, lm_loc loc, const char *what)
{
    const char *dep = v->kind == C_INT ? chk_ct_unbound(c, v->i) : v->free_dep;
    if (dep)
        chk_fail(c, loc, "%s depends on free constexpr '%s', which the solver chooses; loomc decides conditions at "
                         "compile time (pin it with --const %s=VALUE, or use tl.where)",
                 what, dep, dep);
    chk_fail(c, loc, "%s is %s, known only at run time; loomc kernels branch only on compile-time conditions "
                     "(tl.constexpr); use tl.where to choose between values",
             what, chk_describe(c, v));
}

cval chk_eval(chk *c, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_INT: return cv_int(sym_const(c->s, e->ival));
    case FE_E_FLOAT: return (cval){.kind = C_FLOAT, .f = e->fval};
    case FE_E_STR:
        if (e->ival)
            chk_fail(c, e->loc, "f-strings are not supported in loomc kernels; use a plain string literal");
        return (cval){.kind = C_STR, .str = e->str};
    case FE_E_BOOL: return cv_bool(c, e->ival != 0);
    case FE_E_NONE: return cv_none();
    case FE_E_NAME: return chk_eval_name(c, e);
    case FE_E_ATTR: return eval_attr(c, e);
    case FE_E_CALL: return eval_call(c, e);
    case FE_E_SUBSCRIPT: return eval_subscript(c, e);
    case FE_E_TUPLE:
    case FE_E_LIST: {
        if (e->ival)
            chk_fail(c, e->loc, "list comprehensions are not supported in loomc kernels");
        cval t = {.kind = C_TUPLE, .n = e->nitems};
        t.items = LM_NEWN(c->a, cval, e->nitems ? e->nitems : 1);
        for (int i = 0; i < e->nitems; i++)
            t.items[i] = chk_eval(c, e->items[i]);
        return t;
    }
    case FE_E_BINOP:
    case FE_E_COMPARE: {
        cval x = chk_eval(c, e->a);
        cval y = chk_eval(c, e->b);
        return chk_binop(c, e->op, x, y, e->loc);
    }
    case FE_E_BOOLOP: return eval_boolop(c, e);
    case FE_E_UNOP:
        if (e->ival)
            chk_fail(c, e->loc, "argument unpacking ('%s') is not supported; pass the arguments one by one", e->op);
        return unop(c, e->op, chk_eval(c, e->a), e->loc);
    case FE_E_IFEXP: {
        cval cond = chk_eval(c, e->b);
        bool t;
        if (!chk_truth_known(c, &cond, &t))
            chk_runtime_condition(c, &cond, e->b->loc, "the condition of 'a if c else b'");
        return chk_eval(c, t ? e->a : e->c);
    }
    case FE_E_LAMBDA: chk_fail(c, e->loc, "lambda is not supported in loomc kernels");
    case FE_E_DICT:
        chk_fail(c, e->loc, "%s displays are not supported in loomc kernels", e->ival == 2 ? "set" : "dict");
    case FE_E_SLICE: chk_fail(c, e->loc, "a slice is only allowed inside a subscript");
    case FE_E_ELLIPSIS: chk_fail(c, e->loc, "'...' is not supported in loomc kernels");
    }
    LM_BUG("unknown expression kind %d", (int)e->kind);
}
