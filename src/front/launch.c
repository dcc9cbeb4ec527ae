/* launch.c - launch specs (declared in front.h).
 *
 * A launch spec is the part of Triton host code loomc needs: tensor shapes
 * and dtypes, scalar arguments and the grid, written as a small
 * `@loomc.launch` Python function (docs/launch.md). loomc never runs
 * Python: this file reads the function statement by statement with a tiny
 * evaluator of front.h's compile-time values (value.c's algebra, with the
 * rules of a launch spec on top) whose integers are symbolic expressions, so that sizes (`M`) and
 * free constexprs (`BLOCK_M`) stay names all the way to the solver, while
 * their values (from --shape and --const) sit in the spec's environment.
 *
 * Errors are reported at the construct that causes them and unwind with
 * longjmp to fe_read_launch; everything is in the arena except the
 * environment, which the error path frees.
 */
#include "front/front.h"

#include <math.h>
#include <setjmp.h>
#include <string.h>

/* ======================================================================
 * launch specs
 * ==================================================================== */

typedef struct local {
    const char *name;
    fe_value v;
} local;

typedef struct lctx {
    const fe_names *nm;
    const fe_launch_opts *opts;
    sym_ctx *sym;
    lm_arena *a;
    lm_diag *d;
    jmp_buf jb;
    fe_spec *spec;
    local *locals;
    int nlocals, caplocals;
    int captensors;
    const char *file;
    /* while a @triton.heuristics lambda runs: its parameter, the launch
       whose arguments it reads and which of them have values */
    const char *hvar;
    const fe_launch *hl;
    const bool *hgiven;
} lctx;

static LM_NORETURN void lfail(lctx *c, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void lfail(lctx *c, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(c->d, loc, fmt, ap);
    va_end(ap);
    longjmp(c->jb, 1);
}

static LM_NORETURN void lfail_plain(lctx *c, const char *fmt, ...) LM_PRINTF(2, 3);
static void lfail_plain(lctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(c->d, (lm_loc){0}, fmt, ap);
    va_end(ap);
    longjmp(c->jb, 1);
}

static const char *qual(lctx *c, const fe_expr *e) { return fe_qualname(c->nm, e, c->a); }

/* ---- the spec's environment ------------------------------------------------- */

static fe_symbol *find_symbol(fe_symbol *s, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name))
            return &s[i];
    return NULL;
}

static const char *symbol_list(lctx *c, const fe_symbol *s, int n)
{
    if (n == 0)
        return "none";
    const char *out = "";
    for (int i = 0; i < n; i++)
        out = lm_arena_printf(c->a, "%s%s%s", out, i ? ", " : "", s[i].name);
    return out;
}

/* ---- locals ------------------------------------------------------------------ */

static local *find_local(lctx *c, const char *name)
{
    for (int i = c->nlocals - 1; i >= 0; i--)
        if (!strcmp(c->locals[i].name, name))
            return &c->locals[i];
    return NULL;
}

static void set_local(lctx *c, const char *name, fe_value v)
{
    local *l = find_local(c, name);
    if (l) {
        l->v = v;
        return;
    }
    if (c->nlocals == c->caplocals) {
        int cap = c->caplocals ? 2 * c->caplocals : 16;
        local *n = LM_NEWN(c->a, local, cap);
        if (c->nlocals)
            memcpy(n, c->locals, sizeof *n * (size_t)c->nlocals);
        c->locals = n;
        c->caplocals = cap;
    }
    c->locals[c->nlocals++] = (local){name, v};
}

/* ---- values ---------------------------------------------------------------- */

/* What a value is, in a launch spec's messages (the checker says it its own way). */
static const char *lkind_name(const fe_value *v)
{
    switch (v->kind) {
    case FE_V_INT: return "an integer";
    case FE_V_FLOAT: return "a float";
    case FE_V_TENSOR: return "a tensor";
    case FE_V_TUPLE: return "a tuple";
    case FE_V_DTYPE: return "a dtype";
    case FE_V_NONE: return "None";
    case FE_V_STR: return "a string";
    case FE_V_TIR: LM_BUG("a launch spec holds a Tile IR value");
    }
    return "?";
}

/* The value of an integer, which must be known. */
static int64_t known_int(lctx *c, const sym_expr *e, lm_loc loc, const char *what)
{
    int64_t v;
    const char *unb = NULL;
    if (fe_spec_eval(c->spec, e, &v, &unb))
        return v;
    if (unb)
        lfail(c, loc, "free constexpr '%s' has no value here, but %s needs one (pin it with --const %s=...)",
              unb, what, unb);
    lfail(c, loc, "%s cannot be computed (division by zero or overflow)", what);
}

/* Integers are 64-bit: known operands whose result cannot be computed
 * overflowed (M * M * M with M = 2**31 - 1); say so where it happens rather
 * than leave an expression no later stage can evaluate. */
static void check_fits(lctx *c, const sym_expr *a, const sym_expr *b, const sym_expr *r, const char *op, lm_loc loc)
{
    const char *why = fe_int_overflow(c->spec, c->a, op, a, b, r);
    if (why)
        lfail(c, loc, "%s", why);
}

static double as_float(lctx *c, const fe_value *v, lm_loc loc)
{
    if (v->kind == FE_V_FLOAT)
        return v->f;
    if (v->kind == FE_V_INT)
        return (double)known_int(c, v->i, loc, "a float expression");
    lfail(c, loc, "expected a number, got %s", lkind_name(v));
}

static const sym_expr *as_int(lctx *c, const fe_value *v, lm_loc loc, const char *what)
{
    if (v->kind != FE_V_INT)
        lfail(c, loc, "%s must be an integer expression, got %s", what, lkind_name(v));
    return v->i;
}

static fe_value eval(lctx *c, const fe_expr *e);

static fe_value eval_name(lctx *c, const fe_expr *e)
{
    if (c->hvar && !strcmp(e->name, c->hvar))
        lfail(c, e->loc, "a heuristic reads the kernel's arguments one by one, as %s[\"name\"]", c->hvar);
    local *l = find_local(c, e->name);
    if (l)
        return l->v;
    fe_spec *sp = c->spec;
    fe_symbol *s = find_symbol(sp->sizes, sp->nsizes, e->name);
    if (s)
        return fe_v_int(s->var);
    if ((s = find_symbol(sp->options, sp->noptions, e->name)))
        return fe_v_int(sym_const(c->sym, s->value));
    if ((s = find_symbol(sp->frees, sp->nfrees, e->name)))
        return fe_v_int(s->var);
    if (fe_find_func(c->nm, e->name))
        lfail(c, e->loc, "'%s' is a function; a launch spec can only call a kernel as %s[grid](...)", e->name,
              e->name);
    if (qual(c, e))
        lfail(c, e->loc, "'%s' is a module, not a value", e->name);
    lfail(c, e->loc, "name '%s' is not defined in launch spec '%s'", e->name, sp->name);
}

static fe_value eval_tensor_ctor(lctx *c, const fe_expr *e, tir_role role)
{
    const char *fn = role == TIR_INPUT ? "tensor" : tir_role_name(role);
    const fe_expr *shape_e = e->nitems > 0 ? e->items[0] : NULL;
    const fe_expr *dtype_e = e->nitems > 1 ? e->items[1] : NULL;
    for (int k = 0; k < e->nkws; k++) {
        if (!strcmp(e->kws[k].name, "shape") && !shape_e)
            shape_e = e->kws[k].value;
        else if (!strcmp(e->kws[k].name, "dtype") && !dtype_e)
            dtype_e = e->kws[k].value;
        else
            lfail(c, e->kws[k].loc, "unexpected argument '%s' to loomc.%s(shape, dtype)", e->kws[k].name, fn);
    }
    if (!shape_e || !dtype_e || e->nitems > 2)
        lfail(c, e->loc, "loomc.%s takes a shape and a dtype: loomc.%s((M, K), tl.bfloat16)", fn, fn);
    fe_value sh = eval(c, shape_e);
    if (sh.kind != FE_V_TUPLE || sh.n < 1 || sh.n > TIR_MAX_RANK)
        lfail(c, shape_e->loc, "the shape of a tensor must be a tuple of 1 to %d sizes", TIR_MAX_RANK);
    fe_value dt = eval(c, dtype_e);
    if (dt.kind != FE_V_DTYPE || dt.dtype == TIR_I1)
        lfail(c, dtype_e->loc, "the dtype of a tensor must be tl.bfloat16, tl.float16, tl.float32, tl.int32 or "
                               "tl.int64");
    tir_tensor *t = LM_NEW(c->a, tir_tensor);
    t->role = role;
    t->elem = dt.dtype;
    t->rank = sh.n;
    t->shape = LM_NEWN(c->a, const sym_expr *, sh.n);
    t->strides = LM_NEWN(c->a, const sym_expr *, sh.n);
    t->loc = e->loc;
    for (int i = 0; i < sh.n; i++) {
        t->shape[i] = as_int(c, &sh.items[i], shape_e->loc, "a tensor dimension");
        /* a dimension may depend on free constexprs (a scratch tensor with
           one row per split); its value is then checked once it is chosen */
        int64_t v;
        const char *unb = NULL;
        if (fe_spec_eval(c->spec, t->shape[i], &v, &unb)) {
            if (v < 1)
                lfail(c, shape_e->loc, "dimension %d of the tensor is %lld; sizes must be at least 1", i,
                      (long long)v);
            if (v > FE_MAX_SIZE)
                lfail(c, shape_e->loc, "dimension %d of the tensor is %lld; the limit is %lld (2**31 - 1)", i,
                      (long long)v, (long long)FE_MAX_SIZE);
        } else if (!unb || !find_symbol(c->spec->frees, c->spec->nfrees, unb)) {
            known_int(c, t->shape[i], shape_e->loc, "a tensor dimension");
        }
    }
    /* its elements, when every dimension is known (checked arithmetic:
       six dimensions of 2**31 - 1 overflow 64 bits) */
    int64_t elems = 1;
    bool all_known = true;
    for (int i = 0; i < sh.n && all_known; i++) {
        int64_t v;
        all_known = fe_spec_eval(c->spec, t->shape[i], &v, NULL);
        if (all_known && (!lm_mul_ok(elems, v, &elems) || elems > FE_MAX_TENSOR_ELEMS))
            lfail(c, shape_e->loc, "the tensor has more than %lld (2**40) elements; that is the limit",
                  (long long)FE_MAX_TENSOR_ELEMS);
    }
    const sym_expr *st = sym_const(c->sym, 1);
    for (int i = sh.n - 1; i >= 0; i--) {
        t->strides[i] = st;
        st = sym_mul(c->sym, st, t->shape[i]);
    }
    return (fe_value){.kind = FE_V_TENSOR, .t = t};
}

/* triton.next_power_of_2(n): the smallest power of two at least n, as
 * Triton's host helper computes it (0 for 0); of a value the shape fixes,
 * so a block size derived from a size is a constant of this compilation. */
static fe_value next_power_of_2(lctx *c, const fe_expr *e, const fe_value *args)
{
    if (e->nitems != 1)
        lfail(c, e->loc, "triton.next_power_of_2 takes one integer");
    const sym_expr *x = as_int(c, &args[0], e->items[0]->loc, "next_power_of_2's operand");
    int64_t n = known_int(c, x, e->items[0]->loc, "next_power_of_2's operand");
    if (n < 0)
        lfail(c, e->items[0]->loc, "triton.next_power_of_2 of a negative number (%lld)", (long long)n);
    if (n > ((int64_t)1 << 62))
        lfail(c, e->items[0]->loc, "triton.next_power_of_2 of %lld does not fit in 64 bits", (long long)n);
    int64_t p = n == 0 ? 0 : 1;
    while (p < n)
        p *= 2;
    return fe_v_int(sym_const(c->sym, p));
}

static fe_value eval_call(lctx *c, const fe_expr *e)
{
    const fe_expr *f = e->a;
    /* methods of tensors: x.stride(i) */
    if (f->kind == FE_E_ATTR && !qual(c, f)) {
        fe_value obj = eval(c, f->a);
        if (obj.kind == FE_V_TENSOR && !strcmp(f->name, "stride")) {
            if (e->nitems != 1 || e->nkws)
                lfail(c, e->loc, "x.stride(i) takes one dimension index");
            fe_value iv = eval(c, e->items[0]);
            int64_t i = known_int(c, as_int(c, &iv, e->items[0]->loc, "a dimension index"), e->items[0]->loc,
                                  "a dimension index");
            if (i < 0)
                i += obj.t->rank;
            if (i < 0 || i >= obj.t->rank)
                lfail(c, e->items[0]->loc, "dimension %lld out of range for a tensor of rank %d",
                      (long long)i, obj.t->rank);
            return fe_v_int(obj.t->strides[i]);
        }
        if (obj.kind == FE_V_TENSOR)
            lfail(c, f->loc, "tensor method '%s' is not supported in launch specs (use x.stride(i) or x.shape[i])",
                  f->name);
        lfail(c, f->loc, "'%s' of %s cannot be called", f->name, lkind_name(&obj));
    }
    const char *q = qual(c, f);
    const char *fname = q ? q : f->kind == FE_E_NAME ? f->name : "?";
    if (q && !strcmp(q, "loomc.tensor"))
        return eval_tensor_ctor(c, e, TIR_INPUT);
    if (q && !strcmp(q, "loomc.output"))
        return eval_tensor_ctor(c, e, TIR_OUTPUT);
    if (q && !strcmp(q, "loomc.scratch"))
        return eval_tensor_ctor(c, e, TIR_SCRATCH);
    if (e->nkws)
        lfail(c, e->kws[0].loc, "unexpected keyword argument '%s'", e->kws[0].name);
    fe_value args[8];
    if (e->nitems > 8)
        lfail(c, e->loc, "too many arguments");
    for (int i = 0; i < e->nitems; i++)
        args[i] = eval(c, e->items[i]);
    bool cdiv = q && (!strcmp(q, "triton.language.cdiv") || !strcmp(q, "triton.cdiv"));
    if (cdiv) {
        if (e->nitems != 2)
            lfail(c, e->loc, "cdiv takes two integers");
        const sym_expr *x = as_int(c, &args[0], e->items[0]->loc, "cdiv's operand");
        const sym_expr *y = as_int(c, &args[1], e->items[1]->loc, "cdiv's operand");
        int64_t yv;
        if (sym_is_const(y, &yv) && yv == 0)
            lfail(c, e->items[1]->loc, "division by zero");
        const sym_expr *r = sym_cdiv(c->sym, x, y);
        check_fits(c, x, y, r, "cdiv", e->loc);
        return fe_v_int(r);
    }
    if (q && !strcmp(q, "triton.next_power_of_2"))
        return next_power_of_2(c, e, args);
    if (!q && f->kind == FE_E_NAME && !find_local(c, f->name)) {
        if (!strcmp(f->name, "min") || !strcmp(f->name, "max")) {
            if (e->nitems < 2)
                lfail(c, e->loc, "%s needs at least two integers", f->name);
            bool mn = !strcmp(f->name, "min");
            const sym_expr *r = as_int(c, &args[0], e->items[0]->loc, "an operand of min/max");
            for (int i = 1; i < e->nitems; i++) {
                const sym_expr *x = as_int(c, &args[i], e->items[i]->loc, "an operand of min/max");
                r = mn ? sym_min(c->sym, r, x) : sym_max(c->sym, r, x);
            }
            return fe_v_int(r);
        }
        if (!strcmp(f->name, "float") && e->nitems == 1)
            return fe_v_float(as_float(c, &args[0], e->items[0]->loc));
        if (!strcmp(f->name, "int") && e->nitems == 1) {
            if (args[0].kind == FE_V_INT)
                return args[0];
            double x = as_float(c, &args[0], e->items[0]->loc);
            if (!(fabs(x) < 9e18))
                lfail(c, e->loc, "int() of a value out of range");
            return fe_v_int(sym_const(c->sym, (int64_t)x));
        }
    }
    if (q && !strcmp(q, "math.sqrt") && e->nitems == 1) {
        double x = as_float(c, &args[0], e->items[0]->loc);
        if (x < 0)
            lfail(c, e->loc, "math.sqrt of a negative number");
        return fe_v_float(sqrt(x));
    }
    if (f->kind == FE_E_NAME && fe_find_func(c->nm, f->name))
        lfail(c, e->loc, "calling '%s' directly is not supported; launch a kernel as %s[grid](...)", f->name,
              f->name);
    lfail(c, e->loc, "call of %s is not supported in launch specs", fe_pretty_qualname(fname, c->a));
}

static fe_value eval_binop(lctx *c, const fe_expr *e)
{
    fe_value x = eval(c, e->a), y = eval(c, e->b);
    const char *op = e->op;
    bool ints = x.kind == FE_V_INT && y.kind == FE_V_INT;
    if ((x.kind != FE_V_INT && x.kind != FE_V_FLOAT) || (y.kind != FE_V_INT && y.kind != FE_V_FLOAT))
        lfail(c, e->loc, "operator '%s' needs numbers, got %s and %s", op, lkind_name(&x), lkind_name(&y));
    if (ints) {
        /* '**' needs values: name the operand that has none */
        if (!strcmp(op, "**")) {
            known_int(c, x.i, e->loc, "'**'");
            known_int(c, y.i, e->loc, "'**'");
        }
        const sym_expr *r;
        const char *why;
        if (fe_int_arith(c->spec, c->sym, c->a, op, x.i, y.i, &r, &why)) {
            if (why)
                lfail(c, e->loc, "%s", why);
            return fe_v_int(r);
        }
    }
    double a = as_float(c, &x, e->a->loc), b = as_float(c, &y, e->b->loc);
    double r;
    const char *why;
    /* launch specs have no floor division or modulo of floats */
    if (strcmp(op, "//") && strcmp(op, "%") && fe_float_arith(op, a, b, &r, &why)) {
        if (why)
            lfail(c, e->loc, "%s", why);
        return fe_v_float(r);
    }
    lfail(c, e->loc, "operator '%s' is not supported in launch specs", op);
}

static fe_value eval(lctx *c, const fe_expr *e);
static int param_index(const fe_func *k, const char *name);

/* args["name"] in a @triton.heuristics lambda: the value the launch binds
 * to that parameter of the kernel. */
static fe_value heuristic_arg(lctx *c, const fe_expr *e)
{
    fe_value key = e->nitems == 1 && e->items[0]->kind != FE_E_SLICE ? eval(c, e->items[0]) : fe_v_none();
    if (key.kind != FE_V_STR)
        lfail(c, e->loc, "a heuristic reads the kernel's arguments by name, as %s[\"name\"]", c->hvar);
    const fe_func *k = c->hl->kernel;
    int i = param_index(k, key.str);
    if (i < 0)
        lfail(c, e->items[0]->loc, "kernel %s has no parameter named '%s'", k->name, key.str);
    if (!c->hgiven[i])
        lfail(c, e->items[0]->loc, "'%s' has no value yet where this heuristic reads it (heuristics run in order, "
                                   "after the launch's arguments)",
              key.str);
    const fe_arg *a = &c->hl->args[i];
    switch (a->kind) {
    case FE_ARG_TENSOR: return (fe_value){.kind = FE_V_TENSOR, .t = (tir_tensor *)a->tensor};
    case FE_ARG_INT: {
        fe_value v = fe_v_int(a->ival);
        v.is_bool = a->is_bool;
        return v;
    }
    case FE_ARG_FREE: return fe_v_int(a->ival);
    case FE_ARG_FLOAT: return fe_v_float(a->fval);
    case FE_ARG_STR: return fe_v_str(a->str);
    case FE_ARG_NONE: break;
    }
    return fe_v_none();
}

/* Python's truth of a launch-spec value (an integer must be known). */
static bool truth(lctx *c, const fe_value *v, lm_loc loc)
{
    bool t;
    if (v->kind == FE_V_DTYPE || v->kind == FE_V_TENSOR)
        lfail(c, loc, "%s has no truth value in launch specs", lkind_name(v));
    if (fe_value_truth(c->spec, v, &t))
        return t;
    return known_int(c, v->i, loc, "a condition") != 0;
}

/* a < b, a == b, a is None, ...: numbers (integers known), strings, None. */
static fe_value eval_compare(lctx *c, const fe_expr *e)
{
    fe_value x = eval(c, e->a), y = eval(c, e->b);
    const char *op = e->op;
    bool is = !strcmp(op, "is") || !strcmp(op, "is not");
    if (is || x.kind == FE_V_NONE || y.kind == FE_V_NONE || x.kind == FE_V_STR || y.kind == FE_V_STR) {
        bool negate = !strcmp(op, "!=") || !strcmp(op, "is not");
        if (!is && strcmp(op, "==") && strcmp(op, "!="))
            lfail(c, e->loc, "operator '%s' compares only numbers in launch specs", op);
        /* None and strings compare; values of one other kind do not */
        bool eq;
        if (x.kind == y.kind && x.kind != FE_V_NONE && x.kind != FE_V_STR)
            lfail(c, e->loc, "'%s' of %s is not supported in launch specs", op, lkind_name(&x));
        fe_value_same(&x, &y, &eq);
        return fe_v_bool(c->sym, eq != negate);
    }
    /* numbers, whose values must be known */
    if (x.kind == FE_V_INT && y.kind == FE_V_INT) {
        known_int(c, x.i, e->a->loc, "a comparison");
        known_int(c, y.i, e->b->loc, "a comparison");
    } else {
        as_float(c, &x, e->a->loc);
        as_float(c, &y, e->b->loc);
    }
    fe_value r;
    const char *msg;
    if (!fe_is_compare(op) || fe_value_fold(c->spec, c->sym, c->a, op, &x, &y, &r, &msg) != FE_FOLD_DONE)
        lfail(c, e->loc, "operator '%s' is not supported in launch specs", op);
    return r;
}

static fe_value eval(lctx *c, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_COMPARE: return eval_compare(c, e);
    case FE_E_BOOLOP: {
        /* Python's: the value that decides */
        fe_value x = eval(c, e->a);
        bool t = truth(c, &x, e->a->loc);
        return !strcmp(e->op, "and") ? (t ? eval(c, e->b) : x) : (t ? x : eval(c, e->b));
    }
    case FE_E_IFEXP: {
        fe_value cond = eval(c, e->b);
        return eval(c, truth(c, &cond, e->b->loc) ? e->a : e->c);
    }
    case FE_E_INT: return fe_v_int(sym_const(c->sym, e->ival));
    case FE_E_BOOL: return fe_v_bool(c->sym, e->ival != 0);
    case FE_E_FLOAT: return fe_v_float(e->fval);
    case FE_E_STR:
        if (e->ival)
            lfail(c, e->loc, "f-strings are not supported in launch specs; use a plain string literal");
        return (fe_value){.kind = FE_V_STR, .str = e->str};
    case FE_E_NONE: return (fe_value){.kind = FE_V_NONE};
    case FE_E_NAME: return eval_name(c, e);
    case FE_E_TUPLE:
    case FE_E_LIST: {
        if (e->ival)
            lfail(c, e->loc, "list comprehensions are not supported in launch specs");
        fe_value t = {.kind = FE_V_TUPLE, .n = e->nitems};
        t.items = LM_NEWN(c->a, fe_value, e->nitems ? e->nitems : 1);
        for (int i = 0; i < e->nitems; i++)
            t.items[i] = eval(c, e->items[i]);
        return t;
    }
    case FE_E_ATTR: {
        const char *q = qual(c, e);
        if (q) {
            tir_elem el;
            int k = fe_dtype(q, &el);
            if (k == 1)
                return (fe_value){.kind = FE_V_DTYPE, .dtype = el};
            if (k < 0)
                lfail(c, e->loc, "dtype %s is not supported", fe_pretty_qualname(q, c->a));
            lfail(c, e->loc, "%s is not a value loomc knows in launch specs", fe_pretty_qualname(q, c->a));
        }
        fe_value obj = eval(c, e->a);
        if (obj.kind == FE_V_TENSOR && !strcmp(e->name, "shape")) {
            fe_value t = {.kind = FE_V_TUPLE, .n = obj.t->rank};
            t.items = LM_NEWN(c->a, fe_value, obj.t->rank);
            for (int i = 0; i < obj.t->rank; i++)
                t.items[i] = fe_v_int(obj.t->shape[i]);
            return t;
        }
        lfail(c, e->loc, "attribute '%s' of %s is not supported in launch specs", e->name, lkind_name(&obj));
    }
    case FE_E_SUBSCRIPT: {
        if (c->hvar && e->a->kind == FE_E_NAME && !strcmp(e->a->name, c->hvar))
            return heuristic_arg(c, e);
        fe_value obj = eval(c, e->a);
        if (obj.kind != FE_V_TUPLE || e->nitems != 1 || e->items[0]->kind == FE_E_SLICE)
            lfail(c, e->loc, "only x.shape[i] and tuple[i] can be indexed in launch specs");
        fe_value iv = eval(c, e->items[0]);
        int64_t i = known_int(c, as_int(c, &iv, e->items[0]->loc, "an index"), e->items[0]->loc, "an index");
        const fe_value *item = fe_value_item(&obj, i);
        if (!item) /* the index as counted from the front */
            lfail(c, e->items[0]->loc, "index %lld out of range for %d items", (long long)(i < 0 ? i + obj.n : i),
                  obj.n);
        return *item;
    }
    case FE_E_BINOP: return eval_binop(c, e);
    case FE_E_UNOP: {
        if (e->ival)
            lfail(c, e->loc, "argument unpacking ('%s') is not supported; pass the arguments one by one", e->op);
        fe_value x = eval(c, e->a);
        if (!strcmp(e->op, "-") && x.kind == FE_V_INT) {
            const sym_expr *zero = sym_const(c->sym, 0);
            const sym_expr *r = sym_neg(c->sym, x.i);
            check_fits(c, zero, x.i, r, "-", e->loc);
            return fe_v_int(r);
        }
        if (!strcmp(e->op, "-") && x.kind == FE_V_FLOAT)
            return fe_v_float(-x.f);
        if (!strcmp(e->op, "+") && (x.kind == FE_V_INT || x.kind == FE_V_FLOAT))
            return x;
        if (!strcmp(e->op, "not"))
            return fe_v_bool(c->sym, !truth(c, &x, e->a->loc));
        lfail(c, e->loc, "operator '%s' is not supported on %s in launch specs", e->op, lkind_name(&x));
    }
    case FE_E_CALL: return eval_call(c, e);
    case FE_E_DICT: lfail(c, e->loc, "%s displays are not supported in launch specs", e->ival == 2 ? "set" : "dict");
    case FE_E_LAMBDA:
        lfail(c, e->loc, "lambda is not supported in launch specs; write the grid as a tuple of expressions, "
                         "e.g. (tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N))");
    default: break;
    }
    lfail(c, e->loc, "this expression is not supported in launch specs (see docs/launch.md)");
}

/* ---- launches ---------------------------------------------------------------- */

/* `kernel[grid](args...)` as an expression statement: the kernel's name
 * expression, or NULL if the statement is not a launch. */
static const fe_expr *launch_target(const fe_stmt *s)
{
    if (s->kind != FE_S_EXPR || s->value->kind != FE_E_CALL)
        return NULL;
    const fe_expr *sub = s->value->a;
    if (sub->kind != FE_E_SUBSCRIPT || sub->a->kind != FE_E_NAME)
        return NULL;
    return sub->a;
}

static const char *const launch_options[] = {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion"};

static bool is_launch_option(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(launch_options); i++)
        if (!strcmp(launch_options[i], name))
            return true;
    return false;
}

static int param_index(const fe_func *k, const char *name)
{
    for (int i = 0; i < k->nparams; i++)
        if (!strcmp(k->params[i].name, name))
            return i;
    return -1;
}

static const fe_func *launched_kernel(lctx *c, const fe_expr *name)
{
    const fe_func *k = fe_find_func(c->nm, name->name);
    if (!k)
        lfail(c, name->loc, "unknown kernel '%s'", name->name);
    if (!fe_is_jit(c->nm, k, c->a))
        lfail(c, name->loc, "'%s' is not a @triton.jit kernel", name->name);
    if (k->refusal)
        lfail(c, k->refusal_loc, "%s", k->refusal);
    return k;
}

/* Record the free constexprs of a launch (before evaluating anything, so
 * that their names can be used anywhere in the spec). */
/* ---- @triton.heuristics ---------------------------------------------------- */

static fe_arg bind_value(lctx *c, const fe_func *k, const fe_param *p, fe_value v, lm_loc loc);

/* The dict of the kernel's @triton.heuristics({...}), or NULL. */
static const fe_expr *heuristics_dict(lctx *c, const fe_func *k)
{
    for (int i = 0; i < k->ndecorators; i++) {
        const fe_expr *d = k->decorators[i];
        const char *q = d->kind == FE_E_CALL ? qual(c, d->a) : NULL;
        if (!q || strcmp(q, "triton.heuristics"))
            continue;
        const fe_expr *v = d->nitems ? d->items[0] : NULL;
        for (int j = 0; j < d->nkws; j++)
            if (!strcmp(d->kws[j].name, "values"))
                v = d->kws[j].value;
        if (v && v->kind == FE_E_DICT && v->ival != 2)
            return v;
    }
    return NULL;
}

/* Whether e is `name` or `not name`. */
static bool bare_test(const fe_expr *e, const char *name)
{
    if (e && e->kind == FE_E_UNOP && !strcmp(e->op, "not"))
        e = e->a;
    return e && e->kind == FE_E_NAME && !strcmp(e->name, name);
}

static bool tested_in_expr(const fe_expr *e, const char *name)
{
    if (!e)
        return false;
    if (e->kind == FE_E_IFEXP && bare_test(e->b, name))
        return true;
    if (tested_in_expr(e->a, name) || tested_in_expr(e->b, name) || tested_in_expr(e->c, name))
        return true;
    for (int i = 0; i < e->nitems; i++)
        if (tested_in_expr(e->items[i], name))
            return true;
    for (int i = 0; i < e->nkws; i++)
        if (tested_in_expr(e->kws[i].value, name))
            return true;
    return false;
}

/* Whether the kernel's own statements test constexpr name for truth
 * (`if EPILOGUE_SUBTILE:`, `a if not FLAG else b`): a flag an autotuner
 * sets True or False. */
static bool tested_as_flag(fe_stmt *const *body, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        const fe_stmt *st = body[i];
        if ((st->kind == FE_S_IF || st->kind == FE_S_WHILE) && bare_test(st->cond, name))
            return true;
        if (tested_in_expr(st->value, name) || tested_in_expr(st->cond, name) || tested_in_expr(st->iter, name))
            return true;
        if (tested_as_flag(st->body, st->nbody, name) || tested_as_flag(st->orelse, st->norelse, name))
            return true;
    }
    return false;
}

/* Whether --const names it. */
static bool pinned(lctx *c, const char *name)
{
    for (int i = 0; i < c->opts->nconsts; i++)
        if (!strcmp(c->opts->consts[i].name, name))
            return true;
    return false;
}

/* Whether a heuristic of the kernel sets its parameter name. */
static bool by_heuristic(lctx *c, const fe_func *k, const char *name)
{
    const fe_expr *d = heuristics_dict(c, k);
    for (int i = 0; d && i + 1 < d->nitems; i += 2)
        if (d->items[i]->kind == FE_E_STR && !strcmp(d->items[i]->str, name))
            return true;
    return false;
}

static const char *const cmp_ops[] = {"<", "<=", ">", ">=", "==", "!="};

/* The constraints (<= 0) under which lhs OP rhs holds; false if they
 * cannot be written so (x != y, but for mod(a, b) != 0, which is
 * mod(a, b) >= 1). */
static bool relation_cons(sym_ctx *s, int op, const sym_expr *x, const sym_expr *y, const sym_expr **out, int *n)
{
    const sym_expr *one = sym_const(s, 1);
    *n = 1;
    switch (op) {
    case 0: out[0] = sym_add(s, sym_sub(s, x, y), one); return true;
    case 1: out[0] = sym_sub(s, x, y); return true;
    case 2: out[0] = sym_add(s, sym_sub(s, y, x), one); return true;
    case 3: out[0] = sym_sub(s, y, x); return true;
    case 4:
        out[0] = sym_sub(s, x, y);
        out[1] = sym_sub(s, y, x);
        /* mod(a, b) == 0: mod(a, b) >= 0 holds already */
        *n = (x->kind == SYM_MOD && y == sym_const(s, 0)) || (y->kind == SYM_MOD && x == sym_const(s, 0)) ? 1 : 2;
        if (*n == 1 && y->kind == SYM_MOD)
            out[0] = y;
        return true;
    default: {
        const sym_expr *m = x->kind == SYM_MOD && y == sym_const(s, 0) ? x
                            : y->kind == SYM_MOD && x == sym_const(s, 0) ? y : NULL;
        if (!m)
            return false;
        out[0] = sym_sub(s, one, m);
        return true;
    }
    }
}

/* A heuristic's comparison that waits for a free constexpr: a choice. */
static fe_value make_choice(lctx *c, const fe_launch *l, int param, int op, const sym_expr *x, const sym_expr *y,
                            lm_loc loc)
{
    fe_spec *sp = c->spec;
    if (sp->nchoices == FE_MAX_CHOICES)
        lfail(c, loc, "more than %d heuristics wait for free constexprs; pin some of these with --const",
              FE_MAX_CHOICES);
    fe_choice *ch = &sp->choices[sp->nchoices];
    ch->launch = l->index;
    ch->param = param;
    ch->name = l->kernel->params[param].name;
    ch->text = lm_arena_printf(c->a, "%s %s %s", sym_str(c->a, x), cmp_ops[op], sym_str(c->a, y));
    ch->loc = loc;
    static const int negation[] = {3, 2, 1, 0, 5, 4};
    ch->can[0] = relation_cons(c->sym, op, x, y, ch->cons[0], &ch->ncons[0]);
    ch->can[1] = relation_cons(c->sym, negation[op], x, y, ch->cons[1], &ch->ncons[1]);
    if (!ch->can[0] && !ch->can[1])
        lfail(c, loc, "heuristic '%s' (%s) waits for the solver's choice, and loomc cannot write either of its "
                      "values as a constraint; pin the free constexprs it reads with --const",
              ch->name, ch->text);
    ch->pick = ch->can[0] ? 0 : 1;
    sp->nchoices++;
    return fe_v_bool(c->sym, ch->pick == 0);
}

/* A free constexpr the kernel tests for truth: a choice of True and
 * False, without constraints. */
static fe_value flag_choice(lctx *c, const fe_launch *l, int param)
{
    fe_spec *sp = c->spec;
    const fe_param *p = &l->kernel->params[param];
    if (sp->nchoices == FE_MAX_CHOICES)
        lfail(c, p->loc, "more than %d heuristics and flags wait for the solver; pin some of these with --const",
              FE_MAX_CHOICES);
    fe_choice *ch = &sp->choices[sp->nchoices++];
    *ch = (fe_choice){.launch = l->index, .param = param, .name = p->name, .loc = p->loc, .can = {true, true},
                      .flag = true};
    ch->text = p->name;
    return fe_v_bool(c->sym, true);
}

/* The value of a heuristic's lambda body for parameter param of launch l:
 * a comparison of integers that waits for a free constexpr is a choice. */
static fe_value heuristic_value(lctx *c, const fe_launch *l, int param, const fe_expr *body)
{
    int op = -1;
    for (int i = 0; body->kind == FE_E_COMPARE && i < (int)LM_COUNT(cmp_ops); i++)
        if (!strcmp(body->op, cmp_ops[i]))
            op = i;
    if (op < 0)
        return eval(c, body);
    fe_value x = eval(c, body->a), y = eval(c, body->b);
    int64_t v;
    const char *ux = NULL, *uy = NULL;
    bool kx = x.kind != FE_V_INT || fe_spec_eval(c->spec, x.i, &v, &ux);
    bool ky = y.kind != FE_V_INT || fe_spec_eval(c->spec, y.i, &v, &uy);
    if ((!kx && ux) || (!ky && uy)) {
        if (x.kind != FE_V_INT || y.kind != FE_V_INT)
            lfail(c, body->loc, "heuristic '%s' compares an integer that waits for the solver with something else",
                  l->kernel->params[param].name);
        return make_choice(c, l, param, op, x.i, y.i, body->loc);
    }
    fe_value r;
    const char *msg;
    if (fe_value_fold(c->spec, c->sym, c->a, body->op, &x, &y, &r, &msg) != FE_FOLD_DONE)
        return eval(c, body);
    return r;
}

/* The kernel's heuristics, in order, for the parameters the launch does
 * not pass: each lambda reads the arguments bound so far (Triton runs them
 * after the launch's arguments and the autotuner's values). */
static void run_heuristics(lctx *c, const fe_func *k, fe_launch *l, bool *given)
{
    const fe_expr *d = heuristics_dict(c, k);
    for (int j = 0; d && j + 1 < d->nitems; j += 2) {
        const fe_expr *key = d->items[j], *fn = d->items[j + 1];
        if (key->kind != FE_E_STR)
            lfail(c, key->loc, "the keys of @triton.heuristics must be parameter names written as strings");
        int i = param_index(k, key->str);
        if (i < 0 || given[i])
            continue; /* no parameter of the kernel: nothing it computes; or the launch's own value stands */
        if (fn->kind != FE_E_LAMBDA || fn->nitems != 1 || fn->nkws)
            lfail(c, fn->loc, "heuristic '%s' must be a lambda of one parameter (lambda args: ...)", key->str);
        c->hvar = fn->items[0]->name;
        c->hl = l;
        c->hgiven = given;
        int save = c->nlocals, nch = c->spec->nchoices;
        c->nlocals = 0;
        fe_value v = heuristic_value(c, l, i, fn->a);
        c->nlocals = save;
        c->hvar = NULL;
        l->args[i] = bind_value(c, k, &k->params[i], v, key->loc);
        l->args[i].from_heuristic = true;
        l->args[i].choice = c->spec->nchoices > nch ? c->spec->nchoices : 0;
        given[i] = true;
    }
}

bool fe_spec_pick(fe_spec *spec, int i, int value, sym_ctx *s)
{
    fe_choice *ch = &spec->choices[i];
    if (!ch->can[value])
        return false;
    ch->pick = value;
    fe_arg *a = &spec->launches[ch->launch].args[ch->param];
    a->ival = sym_const(s, value == 0);
    return true;
}

static void prescan_launch(lctx *c, const fe_stmt *s)
{
    const fe_expr *call = s->value;
    const fe_func *k = launched_kernel(c, launch_target(s));
    for (int i = 0; i < k->nparams; i++) {
        const fe_param *p = &k->params[i];
        if (!fe_is_constexpr_param(c->nm, p, c->a) || p->deflt || i < call->nitems || by_heuristic(c, k, p->name))
            continue;
        bool passed0 = false;
        for (int j = 0; j < call->nkws; j++)
            passed0 |= !strcmp(call->kws[j].name, p->name);
        if (!passed0 && tested_as_flag(k->body, k->nbody, p->name) && !pinned(c, p->name))
            continue;
        bool passed = false;
        for (int j = 0; j < call->nkws; j++)
            passed |= !strcmp(call->kws[j].name, p->name);
        if (passed)
            continue;
        fe_spec *sp = c->spec;
        if (find_symbol(sp->sizes, sp->nsizes, p->name) || find_symbol(sp->options, sp->noptions, p->name))
            lfail(c, call->loc,
                  "constexpr '%s' of kernel %s is not passed, and launch spec '%s' has a parameter of that "
                  "name; pass it explicitly (%s=%s) or rename one of them",
                  p->name, k->name, sp->name, p->name, p->name);
        if (find_symbol(sp->frees, sp->nfrees, p->name))
            continue;
        fe_symbol *fs = &sp->frees[sp->nfrees++];
        fs->name = p->name;
        fs->var = sym_var(c->sym, p->name);
        fs->loc = p->loc;
    }
}

static fe_arg bind_value(lctx *c, const fe_func *k, const fe_param *p, fe_value v, lm_loc loc)
{
    fe_arg a = {.param = p, .is_constexpr = fe_is_constexpr_param(c->nm, p, c->a), .loc = loc};
    switch (v.kind) {
    case FE_V_TENSOR:
        if (!v.t->name)
            lfail(c, loc, "name the tensor first (x = loomc.tensor(...)) and pass x");
        if (a.is_constexpr)
            lfail(c, loc, "constexpr parameter '%s' of kernel %s gets tensor '%s'", p->name, k->name,
                  v.t->name);
        if (p->annotation) {
            const char *q = qual(c, p->annotation);
            bool scalar = (p->annotation->kind == FE_E_NAME && (!strcmp(p->annotation->name, "int") ||
                                                                !strcmp(p->annotation->name, "float"))) ||
                          (q && fe_dtype(q, &(tir_elem){0}) != 0);
            if (scalar)
                lfail(c, loc, "parameter '%s' of kernel %s is a scalar but gets tensor '%s'", p->name, k->name,
                      v.t->name);
        }
        a.kind = FE_ARG_TENSOR;
        a.tensor = v.t;
        return a;
    case FE_V_INT:
        a.kind = FE_ARG_INT;
        a.ival = v.i;
        a.is_bool = v.is_bool;
        return a;
    case FE_V_FLOAT:
        a.kind = FE_ARG_FLOAT;
        a.fval = v.f;
        return a;
    case FE_V_STR:
        if (!a.is_constexpr)
            lfail(c, loc, "parameter '%s' of kernel %s gets a string; strings can only be passed to tl.constexpr "
                          "parameters",
                  p->name, k->name);
        a.kind = FE_ARG_STR;
        a.str = v.str;
        return a;
    case FE_V_NONE: a.kind = FE_ARG_NONE; return a;
    default:
        lfail(c, loc, "the argument for parameter '%s' of kernel %s is %s; expected a tensor, an integer, a float, "
                      "a string or None",
              p->name, k->name, lkind_name(&v));
    }
}

static void eval_launch(lctx *c, const fe_stmt *s)
{
    const fe_expr *call = s->value, *sub = call->a;
    const fe_func *k = launched_kernel(c, sub->a);
    fe_spec *sp = c->spec;
    fe_launch *l = &sp->launches[sp->nlaunches];
    l->index = sp->nlaunches;
    l->kernel = k;
    l->loc = s->loc;

    /* grid */
    fe_value g;
    if (sub->nitems == 1) {
        g = eval(c, sub->items[0]);
    } else {
        g = (fe_value){.kind = FE_V_TUPLE, .n = sub->nitems, .items = LM_NEWN(c->a, fe_value, sub->nitems)};
        for (int i = 0; i < sub->nitems; i++)
            g.items[i] = eval(c, sub->items[i]);
    }
    if (g.kind != FE_V_TUPLE || g.n < 1 || g.n > TIR_MAX_GRID)
        lfail(c, sub->items[0]->loc, "the grid must be a tuple of one to three integer expressions, got %s",
              g.kind == FE_V_TUPLE ? lm_arena_printf(c->a, "a tuple of %d", g.n) : lkind_name(&g));
    l->grid_rank = g.n;
    for (int i = 0; i < g.n; i++) {
        lm_loc gl = sub->items[sub->nitems == g.n ? i : 0]->loc;
        l->grid[i] = as_int(c, &g.items[i], gl, "a grid dimension");
        int64_t v;
        const char *unb = NULL;
        if (fe_spec_eval(sp, l->grid[i], &v, &unb)) {
            if (v < 1 || v > FE_MAX_SIZE)
                lfail(c, gl, "the grid has %lld programs along axis %d; it must have 1 to %lld", (long long)v, i,
                      (long long)FE_MAX_SIZE);
        } else if (!unb) {
            known_int(c, l->grid[i], gl, "a grid dimension");
        }
    }

    /* arguments */
    l->nargs = k->nparams;
    l->args = LM_NEWN(c->a, fe_arg, k->nparams ? k->nparams : 1);
    bool *given = LM_NEWN(c->a, bool, k->nparams ? k->nparams : 1);
    if (call->nitems > k->nparams)
        lfail(c, call->items[k->nparams]->loc, "kernel %s takes %d parameters, but the launch passes %d "
                                               "positional arguments",
              k->name, k->nparams, call->nitems);
    for (int i = 0; i < call->nitems; i++) {
        l->args[i] = bind_value(c, k, &k->params[i], eval(c, call->items[i]), call->items[i]->loc);
        given[i] = true;
    }
    for (int j = 0; j < call->nkws; j++) {
        const fe_keyword *kw = &call->kws[j];
        int i = param_index(k, kw->name);
        if (i < 0) {
            if (is_launch_option(kw->name))
                continue; /* a Triton launch option; it does not change the program */
            lfail(c, kw->loc, "kernel %s has no parameter named '%s'", k->name, kw->name);
        }
        if (given[i])
            lfail(c, kw->loc, "parameter '%s' of kernel %s is given twice", kw->name, k->name);
        l->args[i] = bind_value(c, k, &k->params[i], eval(c, kw->value), kw->loc);
        given[i] = true;
    }
    for (int i = 0; i < k->nparams; i++) {
        if (given[i] || by_heuristic(c, k, k->params[i].name))
            continue;
        const fe_param *p = &k->params[i];
        bool ce = fe_is_constexpr_param(c->nm, p, c->a);
        if (p->deflt) {
            /* the default is evaluated like a launch expression, without locals */
            int save = c->nlocals;
            c->nlocals = 0;
            fe_value v = eval(c, p->deflt);
            c->nlocals = save;
            l->args[i] = bind_value(c, k, p, v, p->loc);
            l->args[i].from_default = true;
            given[i] = true;
            continue;
        }
        if (!ce)
            lfail(c, call->loc, "missing argument for parameter '%s' of kernel %s", p->name, k->name);
        if (tested_as_flag(k->body, k->nbody, p->name) && !pinned(c, p->name)) {
            l->args[i] = bind_value(c, k, p, flag_choice(c, l, i), p->loc);
            l->args[i].choice = sp->nchoices;
            given[i] = true;
            continue;
        }
        fe_symbol *fs = find_symbol(sp->frees, sp->nfrees, p->name);
        if (!fs)
            LM_BUG("free constexpr %s was not found by the prescan", p->name);
        l->args[i] = (fe_arg){.param = p, .is_constexpr = true, .kind = FE_ARG_FREE, .ival = fs->var, .loc = p->loc};
        given[i] = true;
    }
    run_heuristics(c, k, l, given);
    sp->nlaunches++;
}

/* ---- statements --------------------------------------------------------------- */

static void assign(lctx *c, const fe_expr *target, fe_value v, lm_loc loc)
{
    if (target->kind == FE_E_NAME) {
        fe_spec *sp = c->spec;
        if (find_symbol(sp->sizes, sp->nsizes, target->name) || find_symbol(sp->options, sp->noptions, target->name))
            lfail(c, target->loc, "'%s' is a parameter of the launch spec and cannot be reassigned", target->name);
        if (find_symbol(sp->frees, sp->nfrees, target->name))
            lfail(c, target->loc, "'%s' is a free constexpr of a launched kernel and cannot be assigned",
                  target->name);
        if (c->nlocals >= FE_MAX_NAMES && !find_local(c, target->name))
            lfail(c, target->loc, "launch spec '%s' assigns more than %d names; that is the limit", sp->name,
                  (int)FE_MAX_NAMES);
        if (v.kind == FE_V_TENSOR) {
            if (v.t->name)
                lfail(c, target->loc, "tensor '%s' is given a second name '%s'; use one name per tensor",
                      v.t->name, target->name);
            v.t->name = target->name;
            if (sp->ntensors == c->captensors) {
                int cap = c->captensors ? 2 * c->captensors : 8;
                tir_tensor **n = LM_NEWN(c->a, tir_tensor *, cap);
                if (sp->ntensors)
                    memcpy(n, sp->tensors, sizeof *n * (size_t)sp->ntensors);
                sp->tensors = n;
                c->captensors = cap;
            }
            sp->tensors[sp->ntensors++] = v.t;
        }
        set_local(c, target->name, v);
        return;
    }
    if (target->kind == FE_E_TUPLE || target->kind == FE_E_LIST) {
        if (v.kind != FE_V_TUPLE || v.n != target->nitems)
            lfail(c, loc, "cannot unpack %s into %d names", lkind_name(&v), target->nitems);
        for (int i = 0; i < v.n; i++)
            assign(c, target->items[i], v.items[i], loc);
        return;
    }
    lfail(c, target->loc, "only names can be assigned in launch specs");
}

static const char *stmt_name(const fe_stmt *s)
{
    switch (s->kind) {
    case FE_S_IF: return "'if' statements";
    case FE_S_FOR: return "'for' loops";
    case FE_S_WHILE: return "'while' loops";
    case FE_S_BREAK: return "'break'";
    case FE_S_CONTINUE: return "'continue'";
    case FE_S_DEF: return "nested function definitions";
    case FE_S_IMPORT: return "imports inside a launch spec";
    case FE_S_ASSERT: return "'assert' statements";
    case FE_S_AUGASSIGN: return "augmented assignments";
    case FE_S_OTHER: return NULL;
    default: return "this statement";
    }
}

static void eval_stmt(lctx *c, const fe_stmt *s, bool last)
{
    switch (s->kind) {
    case FE_S_PASS: return;
    case FE_S_EXPR:
        if (launch_target(s)) {
            eval_launch(c, s);
            return;
        }
        if (s->value->kind == FE_E_STR)
            return; /* a docstring */
        if (s->value->kind == FE_E_CALL && s->value->a->kind == FE_E_NAME &&
            fe_find_func(c->nm, s->value->a->name))
            lfail(c, s->loc, "calling '%s' without a grid is not a launch; write %s[grid](...)",
                  s->value->a->name, s->value->a->name);
        lfail(c, s->loc, "this expression statement is not a launch; launch specs hold assignments and "
                         "kernel[grid](...) launches");
    case FE_S_ASSIGN: {
        fe_value v = eval(c, s->value);
        for (int i = 0; i < s->ntargets; i++)
            assign(c, s->targets[i], v, s->loc);
        return;
    }
    case FE_S_ANNASSIGN:
        if (s->value)
            assign(c, s->targets[0], eval(c, s->value), s->loc);
        return;
    case FE_S_RETURN:
        if (!last)
            lfail(c, s->loc, "'return' must be the last statement of a launch spec");
        return;
    case FE_S_OTHER:
        lfail(c, s->loc, "'%s' statements are not supported in launch specs", s->keyword);
    default: lfail(c, s->loc, "%s are not supported in launch specs", stmt_name(s));
    }
}

/* ---- choosing the spec -------------------------------------------------------- */

static bool spec_launches(lctx *c, const fe_func *spec, const char *kernel)
{
    for (int i = 0; i < spec->nbody; i++) {
        const fe_expr *t = launch_target(spec->body[i]);
        if (t && !strcmp(t->name, kernel))
            return true;
    }
    (void)c;
    return false;
}

static const fe_func *choose_spec(lctx *c, const char **only_kernel)
{
    const fe_names *nm = c->nm;
    const fe_func *specs[64];
    int n = 0;
    const char *names = "";
    for (int i = 0; i < nm->nfuncs; i++)
        if (fe_is_launch_spec(nm, nm->funcs[i], c->a)) {
            if (n == (int)LM_COUNT(specs))
                lfail(c, nm->funcs[i]->loc, "too many launch specs in one file (the limit is %d)",
                      (int)LM_COUNT(specs));
            names = lm_arena_printf(c->a, "%s%s%s", names, n ? ", " : "", nm->funcs[i]->name);
            specs[n++] = nm->funcs[i];
        }
    *only_kernel = NULL;
    lm_loc fileloc = {c->file, 0, 0};
    if (n == 0)
        lfail(c, fileloc, "no @loomc.launch function: loomc needs a launch spec beside the kernels "
                          "(see docs/launch.md)");
    const char *want = c->opts->kernel;
    if (!want) {
        if (n > 1)
            lfail(c, fileloc, "%d launch specs (%s); choose one with --kernel NAME", n, names);
        return specs[0];
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(specs[i]->name, want))
            return specs[i];
    const fe_func *found = NULL;
    for (int i = 0; i < n; i++)
        if (spec_launches(c, specs[i], want)) {
            if (found)
                lfail(c, fileloc, "kernel '%s' is launched by launch specs '%s' and '%s'; name the launch spec "
                                  "with --kernel",
                      want, found->name, specs[i]->name);
            found = specs[i];
        }
    if (found) {
        *only_kernel = want;
        return found;
    }
    const fe_func *k = fe_find_func(nm, want);
    if (k && fe_is_jit(nm, k, c->a))
        lfail(c, fileloc, "kernel '%s' is not launched by any launch spec (%s)", want, names);
    lfail(c, fileloc, "no launch spec or kernel named '%s' (launch specs: %s)", want, names);
}

/* ---- entry --------------------------------------------------------------------- */

static void read_params(lctx *c)
{
    fe_spec *sp = c->spec;
    const fe_func *fn = sp->fn;
    sp->sizes = LM_NEWN(c->a, fe_symbol, fn->nparams ? fn->nparams : 1);
    sp->options = LM_NEWN(c->a, fe_symbol, fn->nparams ? fn->nparams : 1);
    for (int i = 0; i < fn->nparams; i++) {
        const fe_param *p = &fn->params[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(fn->params[j].name, p->name))
                lfail(c, p->loc, "parameter '%s' is repeated", p->name);
        if (!p->deflt) {
            sp->sizes[sp->nsizes++] = (fe_symbol){p->name, sym_var(c->sym, p->name), false, 0, p->loc};
            continue;
        }
        const fe_expr *d = p->deflt;
        int64_t v;
        if (d->kind == FE_E_INT || d->kind == FE_E_BOOL)
            v = d->ival;
        else if (d->kind == FE_E_UNOP && !strcmp(d->op, "-") && d->a->kind == FE_E_INT)
            v = -d->a->ival;
        else
            lfail(c, d->loc, "the default of option '%s' must be an integer literal (or True/False)", p->name);
        sp->options[sp->noptions++] = (fe_symbol){p->name, NULL, true, v, p->loc};
    }
}

static void bind_options(lctx *c)
{
    fe_spec *sp = c->spec;
    const fe_launch_opts *o = c->opts;
    for (int i = 0; i < o->nshapes; i++) {
        fe_symbol *s = find_symbol(sp->sizes, sp->nsizes, o->shapes[i].name);
        if (!s)
            lfail_plain(c, "--shape names '%s', which is not a size of launch spec '%s' (its sizes: %s)",
                        o->shapes[i].name, sp->name, symbol_list(c, sp->sizes, sp->nsizes));
        if (o->shapes[i].value < 1)
            lfail_plain(c, "size %s must be at least 1, got %lld", s->name, (long long)o->shapes[i].value);
        if (o->shapes[i].value > FE_MAX_SIZE)
            lfail_plain(c, "size %s is %lld; the limit is %lld (2**31 - 1)", s->name, (long long)o->shapes[i].value,
                        (long long)FE_MAX_SIZE);
        s->bound = true;
        s->value = o->shapes[i].value;
    }
    for (int i = 0; i < sp->nsizes; i++)
        if (!sp->sizes[i].bound)
            lfail(c, sp->sizes[i].loc, "size '%s' of launch spec '%s' has no value; pass --shape %s=...",
                  sp->sizes[i].name, sp->name, sp->sizes[i].name);
    for (int i = 0; i < o->nconsts; i++) {
        const char *name = o->consts[i].name;
        if (o->consts[i].value > FE_MAX_SIZE || o->consts[i].value < -FE_MAX_SIZE)
            lfail_plain(c, "--const %s=%lld is out of range; the limit is %lld (2**31 - 1) either way", name,
                        (long long)o->consts[i].value, (long long)FE_MAX_SIZE);
        fe_symbol *s = find_symbol(sp->options, sp->noptions, name);
        if (!s)
            s = find_symbol(sp->frees, sp->nfrees, name);
        if (!s) {
            if (find_symbol(sp->sizes, sp->nsizes, name))
                lfail_plain(c, "'%s' is a size of launch spec '%s'; set it with --shape, not --const", name,
                            sp->name);
            lfail_plain(c, "--const names '%s', which is neither an option of launch spec '%s' nor a free "
                           "constexpr of its kernels (options: %s; free constexprs: %s)",
                        name, sp->name, symbol_list(c, sp->options, sp->noptions),
                        symbol_list(c, sp->frees, sp->nfrees));
        }
        s->bound = true;
        s->value = o->consts[i].value;
    }
    for (int i = 0; i < sp->nsizes; i++)
        sym_env_set(&sp->env, sp->sizes[i].var, sp->sizes[i].value);
    for (int i = 0; i < sp->nfrees; i++)
        if (sp->frees[i].bound)
            sym_env_set(&sp->env, sp->frees[i].var, sp->frees[i].value);
}

fe_spec *fe_read_launch(const fe_names *nm, const fe_launch_opts *opts, sym_ctx *s, lm_arena *a, lm_diag *d)
{
    lctx *c = LM_NEW(a, lctx);
    c->nm = nm;
    c->opts = opts;
    c->sym = s;
    c->a = a;
    c->d = d;
    c->file = nm->mod->file;
    fe_spec *sp = LM_NEW(a, fe_spec);
    c->spec = sp;
    if (setjmp(c->jb)) {
        fe_spec_free(c->spec);
        return NULL;
    }
    const char *only = NULL;
    sp->fn = choose_spec(c, &only);
    if (sp->fn->refusal)
        lfail(c, sp->fn->refusal_loc, "%s", sp->fn->refusal);
    sp->name = sp->fn->name;
    const fe_func *fn = sp->fn;
    int nlaunch = 0, nfree = 0;
    for (int i = 0; i < fn->nbody; i++)
        if (launch_target(fn->body[i])) {
            if (++nlaunch > FE_MAX_LAUNCHES)
                lfail(c, fn->body[i]->loc, "launch spec '%s' launches more than %d kernels; that is the limit",
                      fn->name, (int)FE_MAX_LAUNCHES);
            nfree += launched_kernel(c, launch_target(fn->body[i]))->nparams;
        }
    sp->launches = LM_NEWN(a, fe_launch, nlaunch ? nlaunch : 1);
    sp->frees = LM_NEWN(a, fe_symbol, nfree ? nfree : 1);
    read_params(c);
    for (int i = 0; i < fn->nbody; i++)
        if (launch_target(fn->body[i]))
            prescan_launch(c, fn->body[i]);
    bind_options(c);
    for (int i = 0; i < fn->nbody; i++)
        eval_stmt(c, fn->body[i], i == fn->nbody - 1);
    if (sp->nlaunches == 0)
        lfail(c, fn->loc, "launch spec '%s' launches no kernel", sp->name);
    for (int i = 0; i < sp->nlaunches; i++)
        sp->launches[i].selected = !only || !strcmp(sp->launches[i].kernel->name, only);
    return sp;
}

void fe_spec_free(fe_spec *spec)
{
    if (spec)
        sym_env_free(&spec->env);
}

/* ---- printing ------------------------------------------------------------------ */

static void print_shape(lm_buf *b, const tir_tensor *t)
{
    lm_buf_putc(b, '[');
    for (int i = 0; i < t->rank; i++) {
        if (i)
            lm_buf_puts(b, ", ");
        sym_print(b, t->shape[i]);
    }
    lm_buf_putc(b, ']');
}

static bool launch_uses_free(const fe_launch *l, const sym_expr *var)
{
    for (int i = 0; i < l->nargs; i++)
        if (l->args[i].kind == FE_ARG_FREE && l->args[i].ival == var)
            return true;
    for (int i = 0; i < l->nargs; i++)
        if (l->args[i].kind == FE_ARG_INT && sym_depends_on(l->args[i].ival, var))
            return true;
    for (int i = 0; i < l->grid_rank; i++)
        if (sym_depends_on(l->grid[i], var))
            return true;
    return false;
}

void fe_print_launch(lm_buf *b, const fe_spec *sp, const fe_launch *l)
{
    lm_buf_printf(b, "launch %d of %s: %s\n", l->index, sp->name, l->kernel->name);
    lm_buf_puts(b, "  grid: (");
    for (int i = 0; i < l->grid_rank; i++) {
        if (i)
            lm_buf_puts(b, ", ");
        sym_print(b, l->grid[i]);
    }
    lm_buf_puts(b, l->grid_rank == 1 ? ",)\n" : ")\n");
    if (sp->nsizes) {
        lm_buf_puts(b, "  sizes:");
        for (int i = 0; i < sp->nsizes; i++)
            lm_buf_printf(b, "%s %s = %lld", i ? "," : "", sp->sizes[i].name, (long long)sp->sizes[i].value);
        lm_buf_putc(b, '\n');
    }
    if (sp->noptions) {
        lm_buf_puts(b, "  options:");
        for (int i = 0; i < sp->noptions; i++)
            lm_buf_printf(b, "%s %s = %lld", i ? "," : "", sp->options[i].name, (long long)sp->options[i].value);
        lm_buf_putc(b, '\n');
    }
    bool any = false;
    for (int i = 0; i < sp->nfrees; i++) {
        const fe_symbol *f = &sp->frees[i];
        if (!launch_uses_free(l, f->var))
            continue;
        lm_buf_puts(b, any ? ", " : "  free constexprs: ");
        any = true;
        lm_buf_puts(b, f->name);
        if (f->bound)
            lm_buf_printf(b, " = %lld (pinned)", (long long)f->value);
    }
    if (any)
        lm_buf_putc(b, '\n');
    lm_buf_puts(b, "  tensors:\n");
    for (int i = 0; i < sp->ntensors; i++) {
        const tir_tensor *t = sp->tensors[i];
        bool used = false;
        for (int j = 0; j < l->nargs; j++)
            used |= l->args[j].kind == FE_ARG_TENSOR && l->args[j].tensor == t;
        if (!used)
            continue;
        lm_buf_printf(b, "    %s: %s ", t->name, tir_role_name(t->role));
        print_shape(b, t);
        lm_buf_printf(b, " %s\n", tir_elem_name(t->elem));
    }
    lm_buf_puts(b, "  arguments:\n");
    for (int i = 0; i < l->nargs; i++) {
        const fe_arg *a = &l->args[i];
        lm_buf_printf(b, "    %s%s = ", a->param->name, a->is_constexpr ? " (constexpr)" : "");
        switch (a->kind) {
        case FE_ARG_TENSOR: lm_buf_printf(b, "%s", a->tensor->name); break;
        case FE_ARG_INT:
            if (a->is_bool) {
                int64_t v = 0;
                sym_is_const(a->ival, &v);
                lm_buf_puts(b, v ? "True" : "False");
            } else {
                sym_print(b, a->ival);
            }
            break;
        case FE_ARG_FLOAT: {
            char s[40];
            tir_format_float(s, sizeof s, a->fval);
            lm_buf_puts(b, s);
            break;
        }
        case FE_ARG_STR: lm_buf_printf(b, "\"%s\"", a->str); break;
        case FE_ARG_NONE: lm_buf_puts(b, "None"); break;
        case FE_ARG_FREE:
            lm_buf_puts(b, "free");
            for (int k = 0; k < sp->nfrees; k++)
                if (sp->frees[k].var == a->ival && sp->frees[k].bound)
                    lm_buf_printf(b, ", pinned to %lld", (long long)sp->frees[k].value);
            break;
        }
        if (a->from_default)
            lm_buf_puts(b, " (default)");
        if (a->choice && sp->choices[a->choice - 1].flag)
            lm_buf_puts(b, " (a flag the kernel tests: True or False, chosen with the schedule)");
        else if (a->choice)
            lm_buf_printf(b, " (heuristic: %s, one of the values the schedule is chosen among)",
                          sp->choices[a->choice - 1].text);
        else if (a->from_heuristic)
            lm_buf_puts(b, " (heuristic)");
        lm_buf_putc(b, '\n');
    }
}
