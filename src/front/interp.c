/* interp.c - the checker's evaluator (check_int.h): statements and
 * expressions, interpreted once the way Triton's code generator walks a
 * kernel. The two are one mutual recursion - an expression that calls a
 * @triton.jit helper runs the helper's statements, which hold expressions -
 * and it is all here, so that no other file calls back into it.
 *
 * A call's arguments are evaluated and bound here to the callee's
 * parameters as Python binds them (positional, keyword, "*dims", a
 * helper's defaults), each argument evaluated as it is bound, left to
 * right, so a bad call fails at its first bad argument; a tl.* function or
 * one of Python's builtins gets its parameter list from its row of the
 * tables of builtins.c and pyfuncs.c, and then the bound values.
 * Names, attributes of values and the like are atoms.c's, operators
 * ops.c's, values cval.c's; check.c sets the kernel up and runs its body.
 *
 * Loops are structured: names assigned in a loop body that were defined
 * before the loop become the loop's carried values (SSA over structured
 * control flow). An `if` must be decidable at compile time and is folded.
 */
#include "front/check_int.h"

#include <string.h>

static cval eval(chk *c, const fe_expr *e);
static void exec_stmts(chk *c, fe_stmt *const *body, int n, bool kernel_body);
static cval call_helper(chk *c, const fe_expr *call, const fe_func *fn, const fe_names *in);

static const char *tstr(chk *c, const tir_type *t) { return tir_type_str(c->a, t); }

/* ======================================================================
 * calls
 * ==================================================================== */

/* Bind a call's arguments to the parameter names of a Triton function
 * (NULL-terminated); the first nreq are required. self, if not NULL, is the
 * object of a method call and binds the first parameter. */
static void bind_args(chk *c, const fe_expr *call, const cval *self, const char *fname, const char *const *names,
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
            cval t = {.kind = FE_V_TUPLE, .n = rest, .items = LM_NEWN(c->a, cval, rest)};
            for (int j = 0; j < rest; j++)
                t.items[j] = eval(c, call->items[i + j]);
            if (rest == 1 && t.items[0].kind == FE_V_TUPLE)
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
        out->v[k] = eval(c, call->items[i]);
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
        out->v[p] = eval(c, kw->value);
        out->has[p] = true;
        out->loc[p] = kw->loc;
    }
    for (int i = 0; i < nreq; i++)
        if (!out->has[i])
            chk_fail(c, call->loc, "%s is missing its argument '%s'", fname, names[i] + (names[i][0] == '*'));
}

/* A call of a builtin: what it refuses before evaluating anything, then
 * its arguments evaluated and bound, then its handler on them. */
static cval call_builtin(chk *c, const fe_expr *e, const chk_builtin *b, const cval *self, const char *fname)
{
    if (b->refuse)
        b->refuse(c, e, fname);
    if (!b->fn)
        LM_BUG("builtin %s has no handler and did not refuse the call", b->name);
    cargs a;
    if (b->params) {
        bind_args(c, e, self, fname, b->params, b->nreq, &a);
        return b->fn(c, e, &a);
    }
    if (self || e->nkws || e->nitems > MAX_ARGS)
        LM_BUG("positional builtin %s got a call it should have refused", b->name);
    memset(&a, 0, sizeof a);
    a.call = e->loc;
    a.fname = fname;
    for (int i = 0; i < e->nitems; i++) {
        a.v[i] = eval(c, e->items[i]);
        a.has[i] = true;
        a.loc[i] = e->items[i]->loc;
    }
    return b->fn(c, e, &a);
}

static cval eval_subscript(chk *c, const fe_expr *e)
{
    cval obj = eval(c, e->a);
    if (obj.kind != FE_V_TUPLE)
        return chk_index_tile(c, e, &obj);
    if (e->nitems != 1 || e->items[0]->kind == FE_E_SLICE)
        chk_fail(c, e->loc, "a tuple can only be indexed with one integer");
    cval iv = eval(c, e->items[0]);
    int64_t i = chk_const_int_of(c, &iv, e->items[0]->loc, "a tuple index");
    const cval *item = fe_value_item(&obj, i);
    if (!item)
        chk_fail(c, e->items[0]->loc, "index %lld is out of range for a tuple of %d items", (long long)i, obj.n);
    return *item;
}

static cval eval_call(chk *c, const fe_expr *e)
{
    const fe_expr *f = e->a;
    const char *fname;
    const char *q = chk_qual_of(c, f);
    if (q) {
        const chk_builtin *b = chk_builtin_qual(c, e, q, &fname);
        if (b)
            return call_builtin(c, e, b, NULL, fname);
        const fe_names *in;
        const fe_func *fn = fe_find_module_func(c->nm, q, &in, c->a);
        if (fn)
            return call_helper(c, e, fn, in);
        chk_fail(c, e->loc, "calls to %s are not supported in loomc kernels (a @triton.jit helper of another module "
                            "is found on the kernel's folder and --include folders)",
                 q);
    }
    if (f->kind == FE_E_ATTR) {
        cval obj = eval(c, f->a);
        const chk_builtin *b = chk_builtin_method(c, e, &obj, &fname);
        return call_builtin(c, e, b, &obj, fname);
    }
    if (f->kind == FE_E_NAME) {
        binding *b = chk_env_find(c, f->name);
        if (b)
            chk_fail(c, f->loc, "'%s' is %s, which cannot be called", f->name, chk_describe(c, &b->v));
        const chk_builtin *py = chk_builtin_python(f->name);
        if (py)
            return call_builtin(c, e, py, NULL, f->name);
        const fe_func *fn = fe_find_func(c->nm, f->name);
        if (fn && fe_is_jit(c->nm, fn, c->a))
            return call_helper(c, e, fn, NULL);
        if (fn)
            chk_fail(c, e->loc, "'%s' is not a @triton.jit function; a kernel can only call those", f->name);
        chk_fail(c, f->loc, "name '%s' is not defined", f->name);
    }
    chk_fail(c, e->loc, "this call is not supported in loomc kernels");
}

/* ======================================================================
 * expressions
 * ==================================================================== */

static cval eval_boolop(chk *c, const fe_expr *e)
{
    bool is_and = !strcmp(e->op, "and");
    cval x = eval(c, e->a);
    bool t;
    if (chk_truth_known(c, &x, &t)) {
        if (is_and ? !t : t)
            return x;
        return eval(c, e->b);
    }
    cval y = eval(c, e->b);
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
    if (!r.free_dep && x.kind == FE_V_INT)
        r.free_dep = chk_ct_unbound(c, x.i);
    return r;
}

static cval eval(chk *c, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_INT: return cv_int(sym_const(c->s, e->ival));
    case FE_E_FLOAT: return (cval){.kind = FE_V_FLOAT, .f = e->fval};
    case FE_E_STR:
        if (e->ival)
            chk_fail(c, e->loc, "f-strings are not supported in loomc kernels; use a plain string literal");
        return (cval){.kind = FE_V_STR, .str = e->str};
    case FE_E_BOOL: return cv_bool(c, e->ival != 0);
    case FE_E_NONE: return cv_none();
    case FE_E_NAME: return chk_eval_name(c, e);
    case FE_E_ATTR: {
        const char *q = chk_qual_of(c, e);
        if (q)
            return chk_qual_value(c, e, q);
        cval obj = eval(c, e->a);
        return chk_attr(c, e, &obj);
    }
    case FE_E_CALL: return eval_call(c, e);
    case FE_E_SUBSCRIPT: return eval_subscript(c, e);
    case FE_E_TUPLE:
    case FE_E_LIST: {
        if (e->ival)
            chk_fail(c, e->loc, "list comprehensions are not supported in loomc kernels");
        cval t = {.kind = FE_V_TUPLE, .n = e->nitems};
        t.items = LM_NEWN(c->a, cval, e->nitems ? e->nitems : 1);
        for (int i = 0; i < e->nitems; i++)
            t.items[i] = eval(c, e->items[i]);
        return t;
    }
    case FE_E_BINOP:
    case FE_E_COMPARE: {
        cval x = eval(c, e->a);
        cval y = eval(c, e->b);
        return chk_binop(c, e->op, x, y, e->loc);
    }
    case FE_E_BOOLOP: return eval_boolop(c, e);
    case FE_E_UNOP:
        if (e->ival)
            chk_fail(c, e->loc, "argument unpacking ('%s') is not supported; pass the arguments one by one", e->op);
        return chk_unop(c, e->op, eval(c, e->a), e->loc);
    case FE_E_IFEXP: {
        cval cond = eval(c, e->b);
        bool t;
        if (!chk_truth_known(c, &cond, &t))
            chk_runtime_condition(c, &cond, e->b->loc, "the condition of 'a if c else b'");
        return eval(c, t ? e->a : e->c);
    }
    case FE_E_LAMBDA: chk_fail(c, e->loc, "lambda is not supported in loomc kernels");
    case FE_E_DICT:
        chk_fail(c, e->loc, "%s displays are not supported in loomc kernels", e->ival == 2 ? "set" : "dict");
    case FE_E_SLICE: chk_fail(c, e->loc, "a slice is only allowed inside a subscript");
    case FE_E_ELLIPSIS: chk_fail(c, e->loc, "'...' is not supported in loomc kernels");
    }
    LM_BUG("unknown expression kind %d", (int)e->kind);
}

/* ======================================================================
 * statements
 * ==================================================================== */

static void assign(chk *c, const fe_expr *t, cval v, lm_loc loc)
{
    switch (t->kind) {
    case FE_E_NAME: chk_env_set(c, t->name, v); return;
    case FE_E_TUPLE:
    case FE_E_LIST:
        if (v.kind != FE_V_TUPLE)
            chk_fail(c, loc, "cannot unpack %s into %d names", chk_describe(c, &v), t->nitems);
        if (v.n != t->nitems)
            chk_fail(c, loc, "cannot unpack a tuple of %d values into %d names", v.n, t->nitems);
        for (int i = 0; i < v.n; i++)
            assign(c, t->items[i], v.items[i], loc);
        return;
    case FE_E_SUBSCRIPT:
        chk_fail(c, t->loc, "assignment to a part of a tile is not supported; tiles are values (build a new one, e.g. "
                            "with tl.where)");
    case FE_E_ATTR: chk_fail(c, t->loc, "assignment to an attribute is not supported in loomc kernels");
    default: chk_fail(c, t->loc, "this assignment target is not supported in loomc kernels");
    }
}

/* ---- loops -------------------------------------------------------------------- */

typedef struct assigned {
    const char *name;
    lm_loc loc;
} assigned;

typedef struct assigned_set {
    assigned *items;
    int n, cap;
} assigned_set;

static void add_assigned(chk *c, assigned_set *s, const fe_expr *t)
{
    if (t->kind == FE_E_TUPLE || t->kind == FE_E_LIST) {
        for (int i = 0; i < t->nitems; i++)
            add_assigned(c, s, t->items[i]);
        return;
    }
    if (t->kind != FE_E_NAME)
        return;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->items[i].name, t->name))
            return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        assigned *n = LM_NEWN(c->a, assigned, cap);
        if (s->n)
            memcpy(n, s->items, sizeof *n * (size_t)s->n);
        s->items = n;
        s->cap = cap;
    }
    s->items[s->n++] = (assigned){t->name, t->loc};
}

/* Every name a block assigns, nested blocks included, in order. */
static void collect_assigned(chk *c, assigned_set *s, fe_stmt *const *body, int n)
{
    for (int i = 0; i < n; i++) {
        const fe_stmt *st = body[i];
        switch (st->kind) {
        case FE_S_ASSIGN:
            for (int k = 0; k < st->ntargets; k++)
                add_assigned(c, s, st->targets[k]);
            break;
        case FE_S_AUGASSIGN:
        case FE_S_ANNASSIGN: add_assigned(c, s, st->targets[0]); break;
        case FE_S_FOR:
            add_assigned(c, s, st->targets[0]);
            collect_assigned(c, s, st->body, st->nbody);
            break;
        case FE_S_IF:
        case FE_S_WHILE:
            collect_assigned(c, s, st->body, st->nbody);
            collect_assigned(c, s, st->orelse, st->norelse);
            break;
        default: break;
        }
    }
}

typedef enum loop_kind { L_RANGE, L_TL_RANGE, L_STATIC } loop_kind;

/* What a loop runs over, however it was written (for, counting while). */
typedef struct loop_spec {
    const char *var;
    tir_value *lo, *hi, *step; /* of one integer type */
    int num_stages;
    bool unroll;
} loop_spec;

static void run_loop(chk *c, const fe_stmt *s, const loop_spec *ls, fe_stmt *const *body, int nbody);

static LM_NORETURN void bad_iterable(chk *c, const fe_expr *it)
{
    chk_fail(c, it->loc, "loomc kernels loop over range(), tl.range() or tl.static_range() only");
}

static tir_value *loop_bound(chk *c, const cargs *a, int i, loop_kind k, const char *what)
{
    const cval *v = &a->v[i];
    if (k == L_STATIC && v->kind != FE_V_INT)
        chk_fail(c, aloc(a, i), "the %s of tl.static_range must be a compile-time integer, got %s", what,
                 chk_describe(c, v));
    if (v->kind == FE_V_INT && v->is_bool)
        chk_fail(c, aloc(a, i), "the %s of a loop must be an integer, got a bool", what);
    const char *name = lm_arena_printf(c->a, "the %s of %s", what, a->fname);
    tir_value *b = chk_int_scalar(c, v, aloc(a, i), name);
    chk_reject_from_memory(c, b, aloc(a, i), name);
    return b;
}

/* The bounds and step of a loop in one integer type. */
static void same_int_type(chk *c, tir_value **lo, tir_value **hi, tir_value **step, lm_loc loc)
{
    tir_elem ie = chk_promote(chk_promote((*lo)->type.elem, (*hi)->type.elem), (*step)->type.elem);
    *lo = chk_cast_to(c, *lo, ie, loc);
    *hi = chk_cast_to(c, *hi, ie, loc);
    *step = chk_cast_to(c, *step, ie, loc);
}

static void exec_for(chk *c, const fe_stmt *s)
{
    const fe_expr *it = s->iter, *tgt = s->targets[0];
    if (it->kind != FE_E_CALL)
        bad_iterable(c, it);
    loop_kind kind;
    const char *q = chk_qual_of(c, it->a);
    if (q && !strcmp(q, "triton.language.range"))
        kind = L_TL_RANGE;
    else if (q && !strcmp(q, "triton.language.static_range"))
        kind = L_STATIC;
    else if (!q && it->a->kind == FE_E_NAME && !strcmp(it->a->name, "range") && !chk_env_find(c, "range"))
        kind = L_RANGE;
    else
        bad_iterable(c, it);
    if (tgt->kind != FE_E_NAME)
        chk_fail(c, tgt->loc, "the loop variable must be a single name");

    const char *fname = kind == L_RANGE ? "range" : pretty(c, q);
    cargs a;
    if (kind == L_TL_RANGE)
        bind_args(c, it, NULL, fname,
                      ARGS("arg1", "arg2", "step", "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                           "flatten", "warp_specialize"),
                      1, &a);
    else
        bind_args(c, it, NULL, fname, ARGS("arg1", "arg2", "step"), 1, &a);
    tir_value *lo, *hi, *step;
    if (given(&a, 1)) {
        lo = loop_bound(c, &a, 0, kind, "start");
        hi = loop_bound(c, &a, 1, kind, "end");
    } else {
        lo = tir_const_int(&c->b, TIR_I32, 0);
        hi = loop_bound(c, &a, 0, kind, "end");
    }
    if (given(&a, 2)) {
        step = loop_bound(c, &a, 2, kind, "step");
        int64_t sv;
        if (a.v[2].kind == FE_V_INT && ct_known(c, a.v[2].i, &sv) && sv == 0)
            chk_fail(c, aloc(&a, 2), "the step of a loop must not be zero");
    } else {
        step = tir_const_int(&c->b, TIR_I32, 1);
    }
    same_int_type(c, &lo, &hi, &step, it->loc);
    int num_stages = 0;
    if (kind == L_TL_RANGE) {
        if (given(&a, 3)) {
            int64_t ns = chk_arg_const(c, &a, 3, "num_stages");
            if (ns < 0 || ns > 64)
                chk_fail(c, aloc(&a, 3), "num_stages must be between 0 and 64, got %lld", (long long)ns);
            num_stages = (int)ns;
        }
        if (given(&a, 4))
            chk_arg_const(c, &a, 4, "loop_unroll_factor");
        for (int i = 5; i <= 7; i++)
            chk_arg_bool(c, &a, i, false);
    }
    loop_spec ls = {tgt->name, lo, hi, step, num_stages, kind == L_STATIC};
    run_loop(c, s, &ls, s->body, s->nbody);
}

/* A loop over range(lo, hi, step) whose variable is ls->var, running body:
 * the for op, its carried values and the body's statements. */
static void run_loop(chk *c, const fe_stmt *s, const loop_spec *ls, fe_stmt *const *sbody, int nsbody)
{
    tir_value *lo = ls->lo, *hi = ls->hi, *step = ls->step;
    const char *tname = ls->var;
    tir_elem ie = lo->type.elem;

    /* carried values: names the body assigns that exist before the loop */
    assigned_set as = {0};
    collect_assigned(c, &as, sbody, nsbody);
    int nc = 0;
    const char **names = LM_NEWN(c->a, const char *, as.n ? as.n : 1);
    tir_value **inits = LM_NEWN(c->a, tir_value *, as.n ? as.n : 1);
    for (int i = 0; i < as.n; i++) {
        const char *n = as.items[i].name;
        if (!strcmp(n, tname))
            continue;
        binding *b = chk_env_find(c, n);
        if (!b)
            continue;
        tir_value *v;
        if (b->v.kind == FE_V_TIR && b->v.v->type.kind == TIR_PTR && b->v.v->type.rank > 0)
            v = chk_ptile_block(c, b->v.v, as.items[i].loc);
        else if (b->v.kind == FE_V_TIR)
            v = b->v.v;
        else if (is_number(&b->v))
            v = chk_materialise(c, &b->v, chk_natural_elem(&b->v), as.items[i].loc);
        else
            chk_fail(c, as.items[i].loc, "'%s' is %s and is assigned inside a loop; only tiles and scalars can change "
                                         "from one iteration to the next",
                     n, chk_describe(c, &b->v));
        names[nc] = n;
        inits[nc++] = v;
    }

    tir_value **opnds = LM_NEWN(c->a, tir_value *, 3 + nc);
    tir_type *rt = LM_NEWN(c->a, tir_type, nc ? nc : 1);
    opnds[0] = lo;
    opnds[1] = hi;
    opnds[2] = step;
    for (int i = 0; i < nc; i++) {
        opnds[3 + i] = inits[i];
        rt[i] = inits[i]->type;
    }
    tir_op *fo = tir_op_build(&c->b, TIR_FOR, s->loc, opnds, 3 + nc, rt, nc);
    tir_block *body = tir_block_new(&c->b, fo);
    fo->regions[0] = body;
    fo->nregions = 1;
    fo->iv = tir_iv_var(c->s, c->f->nloops++);
    fo->num_stages = ls->num_stages;
    fo->unroll = ls->unroll;
    tir_value *var = tir_block_add_arg(&c->b, body, tir_t_scalar(ie));
    var->name = tname;
    /* its symbolic value now, as tir_sym_infer_for will give it, so that the
       body's offsets (a tile of pointers moved by the loop variable) have
       theirs */
    if (lo->sym && step->sym)
        var->sym = sym_add(c->s, lo->sym, sym_mul(c->s, step->sym, fo->iv));

    /* the body sees the loop variable and the carried values as arguments */
    int nenv0 = c->nenv;
    binding *saved = LM_NEWN(c->a, binding, nenv0 ? nenv0 : 1);
    if (nenv0)
        memcpy(saved, c->env, sizeof *saved * (size_t)nenv0);
    tir_value **args = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        args[i] = tir_block_add_arg(&c->b, body, inits[i]->type);
        chk_ptile_carry(c, inits[i], args[i]);
        chk_env_set(c, names[i], cv_val(args[i]));
        args[i]->name = names[i];
    }
    chk_env_set(c, tname, cv_val(var));
    tir_block *outer = c->b.block;
    c->b.block = body;
    c->loop_depth++;
    exec_stmts(c, sbody, nsbody, false);
    c->loop_depth--;

    tir_value **fin = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        cval v = chk_env_find(c, names[i])->v;
        tir_type want = args[i]->type;
        if (is_number(&v) && tir_is_scalar(&want))
            fin[i] = chk_materialise(c, &v, want.elem, s->loc);
        else if (v.kind == FE_V_TIR && v.v->type.kind == TIR_PTR && v.v->type.rank > 0 && want.kind == TIR_BPTR)
            fin[i] = chk_ptile_block(c, v.v, s->loc);
        else if (v.kind == FE_V_TIR)
            fin[i] = v.v;
        else
            chk_fail(c, s->loc, "loop-carried variable '%s' is %s at the end of the loop body; it must stay a tile or "
                                "scalar",
                     names[i], chk_describe(c, &v));
        if (!tir_type_eq(&fin[i]->type, &want))
            chk_fail(c, s->loc,
                     "loop-carried variable '%s' changes type in the loop: %s before the loop, %s at the end "
                     "of the body; give it its loop type before the loop (with .to() or the dtype of "
                     "tl.zeros/tl.full)",
                     names[i], tstr(c, &want), tstr(c, &fin[i]->type));
        if (!chk_ptile_same(chk_ptile_layout(c, args[i]), chk_ptile_layout(c, fin[i])))
            chk_fail(c, s->loc, "the tile of pointers '%s' walks other dimensions of its tensor at the end of the "
                                "loop body than before the loop",
                     names[i]);
        if (chk_bptr_swapped(c, args[i]) != chk_bptr_swapped(c, fin[i]))
            chk_fail(c, s->loc, "the block pointer '%s' walks its tensor's dimensions in another order at the end "
                                "of the loop body than before the loop",
                     names[i]);
    }
    tir_op_build(&c->b, TIR_YIELD, s->loc, fin, nc, NULL, 0);
    c->b.block = outer;

    /* names first assigned in the body end with the loop */
    for (int i = nenv0; i < c->nenv; i++)
        if (strcmp(c->env[i].name, tname))
            chk_note_gone(c, c->env[i].name, s->loc.line);
    memcpy(c->env, saved, sizeof *saved * (size_t)nenv0);
    c->nenv = nenv0;

    /* values the body passes through unchanged are not carried */
    tir_value **res = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++)
        res[i] = fo->results[i];
    for (int i = nc - 1; i >= 0; i--) {
        if (fin[i] != args[i])
            continue;
        tir_replace_uses(body, args[i], inits[i]);
        tir_for_drop_carried(fo, i);
        res[i] = inits[i];
    }
    for (int i = 0; i < nc; i++) {
        chk_ptile_carry(c, inits[i], res[i]);
        if (res[i] != inits[i])
            res[i]->name = names[i];
        chk_env_set(c, names[i], cv_val(res[i]));
    }
    tir_sym_infer_for(&c->b, fo);
}

/* ---- counting while loops ------------------------------------------------------- */

#define COUNTING "loomc reads a 'while' loop as a counting loop, `while i < n:` (or `<=`) with `i += step` as " \
                 "the last statement of its body, n and step unchanged in it"

/* Whether e reads a name the set holds; its first such name in *name. */
static bool reads_any(const fe_expr *e, const assigned_set *as, const char **name)
{
    if (!e)
        return false;
    if (e->kind == FE_E_NAME)
        for (int i = 0; i < as->n; i++)
            if (!strcmp(as->items[i].name, e->name)) {
                *name = e->name;
                return true;
            }
    if (reads_any(e->a, as, name) || reads_any(e->b, as, name) || reads_any(e->c, as, name))
        return true;
    for (int i = 0; i < e->nitems; i++)
        if (reads_any(e->items[i], as, name))
            return true;
    for (int i = 0; i < e->nkws; i++)
        if (reads_any(e->kws[i].value, as, name))
            return true;
    return false;
}

/* The step of `var += step` or `var = var + step` (`step + var`); NULL if
 * st is not one. */
static const fe_expr *step_of(const fe_stmt *st, const char *var)
{
    const fe_expr *t = st->ntargets == 1 ? st->targets[0] : NULL;
    if (!t || t->kind != FE_E_NAME || strcmp(t->name, var))
        return NULL;
    if (st->kind == FE_S_AUGASSIGN)
        return !strcmp(st->op, "+") ? st->value : NULL;
    const fe_expr *v = st->value;
    if (st->kind != FE_S_ASSIGN || v->kind != FE_E_BINOP || strcmp(v->op, "+"))
        return NULL;
    if (v->a->kind == FE_E_NAME && !strcmp(v->a->name, var))
        return v->b;
    if (v->b->kind == FE_E_NAME && !strcmp(v->b->name, var))
        return v->a;
    return NULL;
}

static tir_value *while_bound(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (v->kind == FE_V_INT && v->is_bool)
        chk_fail(c, loc, "the %s of this 'while' loop must be an integer, got a bool", what);
    const char *name = lm_arena_printf(c->a, "the %s of this 'while' loop", what);
    tir_value *b = chk_int_scalar(c, v, loc, name);
    chk_reject_from_memory(c, b, loc, name);
    return b;
}

/* `while i < n: ... i += step` is `for i in range(i, n, step)` (n + 1 for
 * `<=`; the test may be written `n > i`): the loop's trip count is known
 * from its bounds, which is what the scheduler needs. After it, i holds
 * the first value that fails the test, i + step * cdiv(max(n - i, 0), step). */
static void exec_while(chk *c, const fe_stmt *s)
{
    const fe_expr *t = s->cond;
    if (s->norelse)
        chk_fail(c, s->loc, "'while ... else' is not supported in loomc kernels");
    const fe_expr *ve = NULL, *be = NULL;
    bool lt = t->kind == FE_E_COMPARE && (!strcmp(t->op, "<") || !strcmp(t->op, "<="));
    bool gt = t->kind == FE_E_COMPARE && (!strcmp(t->op, ">") || !strcmp(t->op, ">="));
    bool le = (lt || gt) && t->op[1] == '=';
    if (lt || gt) {
        ve = lt ? t->a : t->b; /* the counter is below the bound */
        be = lt ? t->b : t->a;
        if (ve->kind != FE_E_NAME && be->kind == FE_E_NAME)
            chk_fail(c, t->loc, "%s; this loop counts '%s' down, and loomc reads only loops that count up", COUNTING,
                     be->name);
    }
    if (!ve || ve->kind != FE_E_NAME) {
        /* a test read from memory is refused for that, whatever its form */
        cval tv = eval(c, t);
        if (tv.kind == FE_V_TIR)
            chk_reject_from_memory(c, tv.v, t->loc, "the test of this 'while' loop");
        chk_fail(c, t->loc, "%s; this test is not a name compared with a bound by < or <=", COUNTING);
    }
    const char *var = ve->name;
    const fe_stmt *last = s->nbody ? s->body[s->nbody - 1] : NULL;
    const fe_expr *se = last ? step_of(last, var) : NULL;
    if (!se)
        chk_fail(c, last ? last->loc : s->loc, "%s; the last statement of this body does not step '%s'", COUNTING,
                 var);
    assigned_set as = {0};
    collect_assigned(c, &as, s->body, s->nbody - 1);
    for (int i = 0; i < as.n; i++)
        if (!strcmp(as.items[i].name, var))
            chk_fail(c, as.items[i].loc, "%s; '%s' is assigned here too", COUNTING, var);
    const char *changed;
    if (reads_any(be, &as, &changed) || reads_any(se, &as, &changed))
        chk_fail(c, reads_any(be, &as, &changed) ? be->loc : se->loc, "%s; '%s' changes in the loop", COUNTING,
                 changed);

    cval lo = chk_eval_name(c, ve), hi = eval(c, be), step = eval(c, se);
    if (le)
        hi = chk_binop(c, "+", hi, cv_int(sym_const(c->s, 1)), be->loc);
    int64_t sv;
    if (step.kind == FE_V_INT && ct_known(c, step.i, &sv) && sv <= 0)
        chk_fail(c, se->loc, "%s; this step is %lld, and loomc reads only loops that count up", COUNTING,
                 (long long)sv);
    loop_spec ls = {var, while_bound(c, &lo, ve->loc, "counter"), while_bound(c, &hi, be->loc, "bound"),
                    while_bound(c, &step, se->loc, "step"), 0, false};
    same_int_type(c, &ls.lo, &ls.hi, &ls.step, s->loc);
    run_loop(c, s, &ls, s->body, s->nbody - 1);
    /* the counter's value after the loop (no negative operand divided) */
    cval zero = cv_int(sym_const(c->s, 0)), one = cv_int(sym_const(c->s, 1));
    cval span = chk_minmax2(c, true, chk_binop(c, "-", hi, lo, s->loc), zero, s->loc);
    cval up = chk_binop(c, "-", chk_binop(c, "+", span, step, s->loc), one, s->loc);
    cval trips = chk_binop(c, "//", up, step, s->loc);
    chk_env_set(c, var, chk_binop(c, "+", lo, chk_binop(c, "*", step, trips, s->loc), s->loc));
}

/* Whether the kernel has stored anything so far. */
static bool stores_in(const tir_block *blk)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_STORE || op->code == TIR_DESC_STORE)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r] && stores_in(op->regions[r]))
                return true;
    }
    return false;
}

/* A run-time `if` at the top of the kernel that guards the rest of it -
 * `if C:` as its last statement, or `if C: return` (then the rest runs
 * where C is false) - is a bound on the programs that do the work
 * (grid.c); true if s is one and was run. */
static bool exec_guard(chk *c, const fe_stmt *s, const cval *cond, bool last)
{
    bool early = s->nbody == 1 && s->body[0]->kind == FE_S_RETURN && !s->body[0]->value && !s->norelse;
    if (!is_tile_val(cond) || cond->v->type.rank != 0)
        return false;
    if (!early && (!last || s->norelse))
        chk_fail(c, s->cond->loc, "this 'if' on a run-time condition %s; loomc reads such an 'if' only as a guard on "
                                  "a program's work: `if C:` as the kernel's last statement, without else, or `if C: "
                                  "return` (choose values with tl.where)",
                 s->norelse ? "has an else" : "does not guard the rest of the kernel");
    if (stores_in(c->f->body))
        chk_fail(c, s->cond->loc, "this 'if' on a run-time condition comes after a store; loomc reads such an 'if' "
                                  "only as a guard on all of a program's work");
    chk_grid_guard(c, cond->v, early, s->cond->loc);
    if (!early)
        exec_stmts(c, s->body, s->nbody, false);
    return true;
}

static void exec_if(chk *c, const fe_stmt *s, bool top, bool last)
{
    cval cond = eval(c, s->cond);
    bool t;
    if (!chk_truth_known(c, &cond, &t)) {
        if (top && !cond.free_dep && exec_guard(c, s, &cond, last))
            return;
        chk_runtime_condition(c, &cond, s->cond->loc, "the condition of this 'if'");
    }
    if (t)
        exec_stmts(c, s->body, s->nbody, false);
    else
        exec_stmts(c, s->orelse, s->norelse, false);
}

static void exec_stmt(chk *c, const fe_stmt *s, bool top, bool last)
{
    switch (s->kind) {
    case FE_S_PASS: return;
    case FE_S_EXPR:
        if (s->value->kind == FE_E_STR)
            return; /* a docstring */
        eval(c, s->value);
        return;
    case FE_S_ASSIGN: {
        cval v = eval(c, s->value);
        for (int i = 0; i < s->ntargets; i++)
            assign(c, s->targets[i], v, s->loc);
        return;
    }
    case FE_S_ANNASSIGN:
        if (s->value)
            assign(c, s->targets[0], eval(c, s->value), s->loc);
        return;
    case FE_S_AUGASSIGN: {
        const fe_expr *t = s->targets[0];
        if (t->kind != FE_E_NAME)
            chk_fail(c, t->loc, "augmented assignment to %s is not supported; tiles are values",
                     t->kind == FE_E_SUBSCRIPT ? "a part of a tile" : "this target");
        cval cur = chk_eval_name(c, t);
        cval v = eval(c, s->value);
        chk_env_set(c, t->name, chk_binop(c, s->op, cur, v, s->loc));
        return;
    }
    case FE_S_IF: exec_if(c, s, top, last); return;
    case FE_S_FOR: exec_for(c, s); return;
    case FE_S_WHILE: exec_while(c, s); return;
    case FE_S_RETURN:
        if (c->ncalls > 1) {
            if (c->loop_depth > c->call_loops[c->ncalls - 1])
                chk_fail(c, s->loc, "'return' inside a loop is not supported; loops run their whole trip count");
            c->retval = s->value ? eval(c, s->value) : cv_none();
            c->returned = true;
            return;
        }
        if (s->value)
            chk_fail(c, s->loc, "kernels cannot return values; write results with tl.store or desc.store");
        if (!last)
            chk_fail(c, s->loc, "'return' is only supported as the last statement of a kernel");
        return;
    case FE_S_BREAK:
    case FE_S_CONTINUE:
        chk_fail(c, s->loc, "'%s' is not supported in loomc kernels; loops run their whole trip count",
                 s->kind == FE_S_BREAK ? "break" : "continue");
    case FE_S_DEF: chk_fail(c, s->loc, "nested function definitions are not supported in loomc kernels");
    case FE_S_IMPORT: chk_fail(c, s->loc, "imports inside a kernel are not supported");
    case FE_S_ASSERT: {
        cval v = eval(c, s->value);
        bool t;
        if (chk_truth_known(c, &v, &t)) {
            if (!t) {
                const char *msg = s->msg && s->msg->kind == FE_E_STR ? s->msg->str : NULL;
                chk_fail(c, s->loc, "assertion failed%s%s", msg ? ": " : "", msg ? msg : "");
            }
        } else if (v.kind == FE_V_INT) {
            chk_runtime_condition(c, &v, s->value->loc, "this assertion");
        }
        /* a run-time assert is a debugging aid Triton drops unless
           debugging is on; it does not change what the kernel computes */
        return;
    }
    case FE_S_OTHER: chk_fail(c, s->loc, "'%s' statements are not supported in loomc kernels", s->keyword);
    }
    LM_BUG("unknown statement kind %d", (int)s->kind);
}

static void exec_stmts(chk *c, fe_stmt *const *body, int n, bool kernel_body)
{
    for (int i = 0; i < n && !c->returned; i++)
        exec_stmt(c, body[i], kernel_body, kernel_body && i == n - 1);
}

/* ======================================================================
 * helpers and the kernel's body
 * ==================================================================== */

/* A call of a @triton.jit helper, inlined: its body runs in a scope of its
 * own with the arguments bound to its parameters; the value is what it
 * returns. */
static cval call_helper(chk *c, const fe_expr *call, const fe_func *fn, const fe_names *in)
{
    for (int i = 0; i < c->ncalls; i++)
        if (c->calls[i] == fn)
            chk_fail(c, call->loc, "'%s' calls itself (through '%s'); loomc inlines helpers and cannot inline a "
                                   "recursive one",
                     fn->name, c->calls[c->ncalls - 1]->name);
    if (c->ncalls == CHK_MAX_CALLS)
        chk_fail(c, call->loc, "helpers are nested more than %d deep", CHK_MAX_CALLS - 1);
    if (fn->refusal)
        chk_fail(c, fn->refusal_loc, "%s", fn->refusal);
    if (fn->nparams > MAX_ARGS)
        chk_fail(c, fn->loc, "helper '%s' has %d parameters; loomc inlines helpers of at most %d", fn->name,
                 fn->nparams, MAX_ARGS);
    const char **names = LM_NEWN(c->a, const char *, (size_t)fn->nparams + 1);
    int nreq = 0;
    for (int i = 0; i < fn->nparams; i++) {
        names[i] = fn->params[i].name;
        if (!fn->params[i].deflt)
            nreq = i + 1;
    }
    cargs a;
    bind_args(c, call, NULL, fn->name, names, nreq, &a);

    /* the helper sees its parameters and the module, not the caller's names */
    binding *env = c->env;
    int nenv = c->nenv, capenv = c->capenv;
    c->env = NULL;
    c->nenv = c->capenv = 0;
    /* a helper's parameter is a constexpr when its argument is one: Triton
       specialises a helper on the values it gets and ignores a tl.constexpr
       annotation there (the tutorials pass index tiles to such parameters) */
    for (int i = 0; i < fn->nparams; i++) {
        const fe_param *p = &fn->params[i];
        chk_env_set(c, p->name, a.has[i] ? a.v[i] : eval(c, p->deflt));
    }
    c->calls[c->ncalls] = fn;
    c->call_loops[c->ncalls++] = c->loop_depth;
    /* a helper of another module reads that module's names */
    const fe_names *caller = c->nm;
    if (in)
        c->nm = in;
    exec_stmts(c, fn->body, fn->nbody, false);
    c->nm = caller;
    cval r = c->returned ? c->retval : cv_none();
    c->returned = false;
    c->ncalls--;
    c->env = env;
    c->nenv = nenv;
    c->capenv = capenv;
    return r;
}

void chk_exec_body(chk *c, fe_stmt *const *body, int n) { exec_stmts(c, body, n, true); }
