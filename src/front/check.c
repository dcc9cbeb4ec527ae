/* check.c - the checker: one launched Triton kernel -> Tile IR (declared in
 * front.h; docs/frontend.md describes the accepted subset).
 *
 * The kernel body is interpreted once, statement by statement, the way
 * Triton's code generator walks it: compile-time values (constexprs, Python
 * numbers, dtypes, tuples) are computed here, everything that exists at run
 * time becomes Tile IR. Compile-time integers are symbolic expressions, so a
 * free constexpr such as BLOCK_M stays a name in every shape and offset that
 * depends on it; the launch's bindings (sizes, pinned constexprs) are used
 * only where a value must be known (an `if` on a constexpr, a loop step).
 *
 * Loops are structured: names assigned in a loop body that were defined
 * before the loop become the loop's carried values (SSA over structured
 * control flow). An `if` must be decidable at compile time and is folded.
 *
 * The first error is reported with the kernel's own location and unwinds with
 * longjmp to fe_check; all memory comes from the compilation's arena, so an
 * error leaks nothing. A verifier failure on the result is a bug here.
 *
 * This file has the statements, loops and the entry; expressions are in
 * expr.c, the tl.* functions in builtins.c, operators in ops.c and the
 * values and the building of Tile IR values in cval.c; check_int.h is what
 * they share.
 */
#include "front/check_int.h"

#include <setjmp.h>
#include <string.h>

static const char *tstr(chk *c, const tir_type *t) { return tir_type_str(c->a, t); }

/* ======================================================================
 * environment
 * ==================================================================== */

static void env_set(chk *c, const char *name, cval v)
{
    if (v.kind == C_VAL && !v.v->name)
        v.v->name = name;
    binding *b = chk_env_find(c, name);
    if (b) {
        b->v = v;
        return;
    }
    /* lookups are linear and every loop saves the environment */
    if (c->nenv >= FE_MAX_NAMES)
        chk_fail(c, c->k->loc, "kernel '%s' binds more than %d names; that is the limit", c->k->name,
                 (int)FE_MAX_NAMES);
    if (c->nenv == c->capenv) {
        int cap = c->capenv ? 2 * c->capenv : 32;
        binding *n = LM_NEWN(c->a, binding, cap);
        if (c->nenv)
            memcpy(n, c->env, sizeof *n * (size_t)c->nenv);
        c->env = n;
        c->capenv = cap;
    }
    c->env[c->nenv++] = (binding){name, v};
}

static void note_gone(chk *c, const char *name, int line)
{
    if (c->ngone == c->capgone) {
        int cap = c->capgone ? 2 * c->capgone : 16;
        gone_name *n = LM_NEWN(c->a, gone_name, cap);
        if (c->ngone)
            memcpy(n, c->gone, sizeof *n * (size_t)c->ngone);
        c->gone = n;
        c->capgone = cap;
    }
    c->gone[c->ngone++] = (gone_name){name, line};
}

/* ======================================================================
 * statements
 * ==================================================================== */

static void exec_stmts(chk *c, fe_stmt *const *body, int n, bool kernel_body);

static void assign(chk *c, const fe_expr *t, cval v, lm_loc loc)
{
    switch (t->kind) {
    case FE_E_NAME: env_set(c, t->name, v); return;
    case FE_E_TUPLE:
    case FE_E_LIST:
        if (v.kind != C_TUPLE)
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

static LM_NORETURN void bad_iterable(chk *c, const fe_expr *it)
{
    chk_fail(c, it->loc, "loomc kernels loop over range(), tl.range() or tl.static_range() only");
}

static tir_value *loop_bound(chk *c, const cargs *a, int i, loop_kind k, const char *what)
{
    const cval *v = &a->v[i];
    if (k == L_STATIC && v->kind != C_INT)
        chk_fail(c, aloc(a, i), "the %s of tl.static_range must be a compile-time integer, got %s", what,
                 chk_describe(c, v));
    if (v->kind == C_INT && v->is_bool)
        chk_fail(c, aloc(a, i), "the %s of a loop must be an integer, got a bool", what);
    const char *name = lm_arena_printf(c->a, "the %s of %s", what, a->fname);
    tir_value *b = chk_int_scalar(c, v, aloc(a, i), name);
    chk_reject_from_memory(c, b, aloc(a, i), name);
    return b;
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
        chk_bind_args(c, it, NULL, fname,
                      ARGS("arg1", "arg2", "step", "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                           "flatten", "warp_specialize"),
                      1, &a);
    else
        chk_bind_args(c, it, NULL, fname, ARGS("arg1", "arg2", "step"), 1, &a);
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
        if (a.v[2].kind == C_INT && ct_known(c, a.v[2].i, &sv) && sv == 0)
            chk_fail(c, aloc(&a, 2), "the step of a loop must not be zero");
    } else {
        step = tir_const_int(&c->b, TIR_I32, 1);
    }
    tir_elem ie = chk_promote(chk_promote(lo->type.elem, hi->type.elem), step->type.elem);
    lo = chk_cast_to(c, lo, ie, it->loc);
    hi = chk_cast_to(c, hi, ie, it->loc);
    step = chk_cast_to(c, step, ie, it->loc);
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

    /* carried values: names the body assigns that exist before the loop */
    assigned_set as = {0};
    collect_assigned(c, &as, s->body, s->nbody);
    int nc = 0;
    const char **names = LM_NEWN(c->a, const char *, as.n ? as.n : 1);
    tir_value **inits = LM_NEWN(c->a, tir_value *, as.n ? as.n : 1);
    for (int i = 0; i < as.n; i++) {
        const char *n = as.items[i].name;
        if (!strcmp(n, tgt->name))
            continue;
        binding *b = chk_env_find(c, n);
        if (!b)
            continue;
        tir_value *v;
        if (b->v.kind == C_VAL && b->v.v->type.kind == TIR_PTR && b->v.v->type.rank > 0)
            v = chk_ptile_block(c, b->v.v, as.items[i].loc);
        else if (b->v.kind == C_VAL)
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
    fo->num_stages = num_stages;
    fo->unroll = kind == L_STATIC;
    tir_value *var = tir_block_add_arg(&c->b, body, tir_t_scalar(ie));
    var->name = tgt->name;
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
        env_set(c, names[i], cv_val(args[i]));
        args[i]->name = names[i];
    }
    env_set(c, tgt->name, cv_val(var));
    tir_block *outer = c->b.block;
    c->b.block = body;
    c->loop_depth++;
    exec_stmts(c, s->body, s->nbody, false);
    c->loop_depth--;

    tir_value **fin = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        cval v = chk_env_find(c, names[i])->v;
        tir_type want = args[i]->type;
        if (is_number(&v) && tir_is_scalar(&want))
            fin[i] = chk_materialise(c, &v, want.elem, s->loc);
        else if (v.kind == C_VAL && v.v->type.kind == TIR_PTR && v.v->type.rank > 0 && want.kind == TIR_BPTR)
            fin[i] = chk_ptile_block(c, v.v, s->loc);
        else if (v.kind == C_VAL)
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
    }
    tir_op_build(&c->b, TIR_YIELD, s->loc, fin, nc, NULL, 0);
    c->b.block = outer;

    /* names first assigned in the body end with the loop */
    for (int i = nenv0; i < c->nenv; i++)
        if (strcmp(c->env[i].name, tgt->name))
            note_gone(c, c->env[i].name, s->loc.line);
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
        env_set(c, names[i], cv_val(res[i]));
    }
    tir_sym_infer_for(&c->b, fo);
}

static void exec_if(chk *c, const fe_stmt *s)
{
    cval cond = chk_eval(c, s->cond);
    bool t;
    if (!chk_truth_known(c, &cond, &t))
        chk_runtime_condition(c, &cond, s->cond->loc, "the condition of this 'if'");
    if (t)
        exec_stmts(c, s->body, s->nbody, false);
    else
        exec_stmts(c, s->orelse, s->norelse, false);
}

static void exec_stmt(chk *c, const fe_stmt *s, bool last)
{
    switch (s->kind) {
    case FE_S_PASS: return;
    case FE_S_EXPR:
        if (s->value->kind == FE_E_STR)
            return; /* a docstring */
        chk_eval(c, s->value);
        return;
    case FE_S_ASSIGN: {
        cval v = chk_eval(c, s->value);
        for (int i = 0; i < s->ntargets; i++)
            assign(c, s->targets[i], v, s->loc);
        return;
    }
    case FE_S_ANNASSIGN:
        if (s->value)
            assign(c, s->targets[0], chk_eval(c, s->value), s->loc);
        return;
    case FE_S_AUGASSIGN: {
        const fe_expr *t = s->targets[0];
        if (t->kind != FE_E_NAME)
            chk_fail(c, t->loc, "augmented assignment to %s is not supported; tiles are values",
                     t->kind == FE_E_SUBSCRIPT ? "a part of a tile" : "this target");
        cval cur = chk_eval_name(c, t);
        cval v = chk_eval(c, s->value);
        env_set(c, t->name, chk_binop(c, s->op, cur, v, s->loc));
        return;
    }
    case FE_S_IF: exec_if(c, s); return;
    case FE_S_FOR: exec_for(c, s); return;
    case FE_S_WHILE:
        chk_fail(c, s->loc, "'while' loops are not supported in loomc kernels; use a for loop over range(), tl.range() "
                            "or tl.static_range()");
    case FE_S_RETURN:
        if (c->ncalls > 1) {
            if (c->loop_depth > c->call_loops[c->ncalls - 1])
                chk_fail(c, s->loc, "'return' inside a loop is not supported; loops run their whole trip count");
            c->retval = s->value ? chk_eval(c, s->value) : cv_none();
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
        cval v = chk_eval(c, s->value);
        bool t;
        if (chk_truth_known(c, &v, &t)) {
            if (!t) {
                const char *msg = s->msg && s->msg->kind == FE_E_STR ? s->msg->str : NULL;
                chk_fail(c, s->loc, "assertion failed%s%s", msg ? ": " : "", msg ? msg : "");
            }
        } else if (v.kind == C_INT) {
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
        exec_stmt(c, body[i], kernel_body && i == n - 1);
}

/* ======================================================================
 * entry
 * ==================================================================== */

/* Remove pure ops whose results nobody uses (the IR is what the scheduler
 * sees; dead index arithmetic would only be noise). */
static void count_uses(const tir_block *blk, int *uses)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            uses[op->opnds[i]->uid]++;
        for (int r = 0; r < op->nregions; r++)
            count_uses(op->regions[r], uses);
    }
}

static bool sweep(tir_func *f, tir_block *blk, const int *uses)
{
    bool changed = false;
    tir_op *prev;
    for (tir_op *op = blk->last; op; op = prev) {
        prev = op->prev;
        for (int r = 0; r < op->nregions; r++)
            changed |= sweep(f, op->regions[r], uses);
        if (!tir_op_has(op->code, TIR_P_PURE))
            continue;
        bool used = false;
        for (int i = 0; i < op->nresults; i++)
            used |= uses[op->results[i]->uid] > 0;
        if (used)
            continue;
        if (op == f->hoist_last)
            f->hoist_last = op->prev;
        tir_op_remove(op);
        changed = true;
    }
    return changed;
}

/* The limits on a checked kernel (docs/limits.md), enforced before the
 * passes whose cost grows faster than the kernel (common subexpressions,
 * dead code): the number of ops, and the elements of every tile whose shape
 * the bindings determine. Tiles sized by free constexprs are the solver's
 * to keep within the limit. */
/* " = [64, 2097152]" when some dimension of t is a name, else "". */
static const char *shape_values(chk *c, const tir_type *t)
{
    bool named = false;
    int64_t v;
    for (int i = 0; i < t->rank; i++)
        named |= !sym_is_const(t->shape[i], &v);
    if (!named)
        return "";
    lm_buf b = {0};
    lm_buf_puts(&b, " = [");
    for (int i = 0; i < t->rank; i++) {
        ct_known(c, t->shape[i], &v);
        lm_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)v);
    }
    lm_buf_putc(&b, ']');
    const char *s = lm_arena_strdup(c->a, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static void check_limits(chk *c, const tir_block *blk, int *nops)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (++*nops > FE_MAX_OPS)
            chk_fail(c, op->loc, "kernel '%s' has more than %d Tile IR operations; that is the limit", c->k->name,
                     (int)FE_MAX_OPS);
        for (int r = 0; r < op->nresults; r++) {
            const tir_type *t = &op->results[r]->type;
            int64_t n = 1, v;
            for (int i = 0; i < t->rank && n > 0; i++) {
                if (!ct_known(c, t->shape[i], &v))
                    n = 0;
                else if (v > 0 && (!lm_mul_ok(n, v, &n) || n > FE_MAX_TILE_ELEMS))
                    chk_fail(c, op->loc, "a tile of shape %s%s has more than %d elements; that is the limit (Triton's)",
                             chk_shape_str(c, t->rank, t->shape), shape_values(c, t), (int)FE_MAX_TILE_ELEMS);
            }
        }
        for (int r = 0; r < op->nregions; r++)
            check_limits(c, op->regions[r], nops);
    }
}

static void remove_dead(chk *c)
{
    bool changed = true;
    while (changed) {
        int *uses = LM_NEWN(c->a, int, c->f->nvalues ? c->f->nvalues : 1);
        count_uses(c->f->body, uses);
        changed = sweep(c->f, c->f->body, uses);
    }
}

/* Merge pure ops that compute the same thing from the same operands (the
 * same expression written twice in the source, e.g. a stride per block
 * pointer); an op may reuse one of its own block or of an enclosing block. */
static bool same_op(const tir_op *x, const tir_op *y)
{
    if (x->code != y->code || x->nopnds != y->nopnds || x->nresults != 1 || y->nresults != 1)
        return false;
    for (int i = 0; i < x->nopnds; i++)
        if (x->opnds[i] != y->opnds[i])
            return false;
    if (!tir_type_eq(&x->results[0]->type, &y->results[0]->type))
        return false;
    if (x->ival != y->ival || x->is_float != y->is_float || memcmp(&x->fval, &y->fval, sizeof x->fval) ||
        x->sym != y->sym || x->sym2 != y->sym2 || x->rank != y->rank || x->bcheck != y->bcheck ||
        x->padding != y->padding || x->keep_dims != y->keep_dims)
        return false;
    if ((x->precision == NULL) != (y->precision == NULL) || (x->precision && strcmp(x->precision, y->precision)))
        return false;
    for (int i = 0; i < x->rank && i < TIR_MAX_RANK; i++)
        if (x->order[i] != y->order[i])
            return false;
    return true;
}

typedef struct op_stack {
    tir_op **ops;
    int n, cap;
} op_stack;

static void cse_block(chk *c, tir_block *blk, op_stack *st)
{
    int mark = st->n;
    tir_op *next;
    for (tir_op *op = blk->first; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++)
            cse_block(c, op->regions[r], st);
        if (op->nregions || op->nresults != 1 || !tir_op_has(op->code, TIR_P_PURE) ||
            tir_op_has(op->code, TIR_P_HOIST))
            continue;
        tir_op *same = NULL;
        for (int i = st->n - 1; i >= 0 && !same; i--)
            if (same_op(st->ops[i], op))
                same = st->ops[i];
        if (same) {
            tir_replace_uses(c->f->body, op->results[0], same->results[0]);
            tir_op_remove(op);
            continue;
        }
        if (st->n == st->cap) {
            int cap = st->cap ? 2 * st->cap : 64;
            tir_op **n = LM_NEWN(c->a, tir_op *, cap);
            if (st->n)
                memcpy(n, st->ops, sizeof *n * (size_t)st->n);
            st->ops = n;
            st->cap = cap;
        }
        st->ops[st->n++] = op;
    }
    st->n = mark;
}

static void bind_params(chk *c)
{
    const fe_launch *l = c->l;
    for (int i = 0; i < l->nargs; i++) {
        const fe_arg *ar = &l->args[i];
        const fe_param *p = ar->param;
        cval v;
        if (ar->is_constexpr) {
            switch (ar->kind) {
            case FE_ARG_INT:
            case FE_ARG_FREE:
                v = cv_int(ar->ival);
                v.is_bool = ar->is_bool;
                break;
            case FE_ARG_FLOAT: v = (cval){.kind = C_FLOAT, .f = ar->fval}; break;
            case FE_ARG_STR: v = (cval){.kind = C_STR, .str = ar->str}; break;
            case FE_ARG_NONE: v = cv_none(); break;
            default: LM_BUG("constexpr parameter %s bound to a tensor", p->name);
            }
            env_set(c, p->name, v);
            continue;
        }
        if (ar->kind == FE_ARG_NONE) {
            /* Triton specialises a None argument: the kernel sees None */
            env_set(c, p->name, cv_none());
            continue;
        }
        tir_value *pv;
        switch (ar->kind) {
        case FE_ARG_TENSOR: pv = tir_add_param(&c->b, p->name, tir_t_ptr(ar->tensor->elem), NULL, ar->tensor); break;
        case FE_ARG_INT: {
            tir_elem e = TIR_I32;
            int64_t k;
            if (ar->is_bool)
                e = TIR_I1;
            else if (ct_known(c, ar->ival, &k) && (k > INT32_MAX || k < INT32_MIN))
                e = TIR_I64;
            pv = tir_add_param(&c->b, p->name, tir_t_scalar(e), ar->ival, NULL);
            break;
        }
        case FE_ARG_FLOAT:
            pv = tir_add_param(&c->b, p->name, tir_t_scalar(TIR_F32), NULL, NULL);
            c->f->params[c->f->nparams - 1].has_fval = true;
            c->f->params[c->f->nparams - 1].fval = ar->fval;
            break;
        default: LM_BUG("parameter %s is free but not a constexpr", p->name);
        }
        env_set(c, p->name, cv_val(pv));
    }
}

/* ======================================================================
 * helpers
 * ==================================================================== */

cval chk_call_helper(chk *c, const fe_expr *call, const fe_func *fn, const fe_names *in)
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
    chk_bind_args(c, call, NULL, fn->name, names, nreq, &a);

    /* the helper sees its parameters and the module, not the caller's names */
    binding *env = c->env;
    int nenv = c->nenv, capenv = c->capenv;
    c->env = NULL;
    c->nenv = c->capenv = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const fe_param *p = &fn->params[i];
        cval v = a.has[i] ? a.v[i] : chk_eval(c, p->deflt);
        const char *q = p->annotation ? chk_qual_of(c, p->annotation) : NULL;
        if (q && !strcmp(q, "triton.language.constexpr") && v.kind == C_VAL)
            chk_fail(c, aloc(&a, i), "parameter '%s' of '%s' is a tl.constexpr, but gets %s, known only at run time",
                     p->name, fn->name, chk_describe(c, &v));
        env_set(c, p->name, v);
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

tir_func *fe_check(const fe_names *nm, const fe_spec *spec, const fe_launch *l, sym_ctx *s, lm_arena *a,
                   lm_diag *d)
{
    chk *c = LM_NEW(a, chk);
    c->nm = nm;
    c->spec = spec;
    c->l = l;
    c->k = l->kernel;
    c->s = s;
    c->a = a;
    c->d = d;
    if (setjmp(c->jb))
        return NULL;
    const fe_func *k = l->kernel;
    c->calls[c->ncalls++] = k;
    tir_func *f = tir_func_new(a, k->name, k->loc);
    c->f = f;
    f->grid_rank = l->grid_rank;
    for (int i = 0; i < l->grid_rank; i++)
        f->grid[i] = l->grid[i];
    tir_builder_init(&c->b, a, s, f);
    bind_params(c);
    exec_stmts(c, k->body, k->nbody, true);
    chk_grid_delinearise(c);
    chk_ptile_verify(c);
    tir_op_build(&c->b, TIR_RETURN, k->loc, NULL, 0, NULL, 0);
    int nops = 0;
    check_limits(c, f->body, &nops);
    op_stack st = {0};
    cse_block(c, f->body, &st);
    remove_dead(c);
    tir_verify_or_bug(f, "the front end (fe_check)");
    return f;
}
