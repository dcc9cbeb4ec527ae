/* check.c - the checker: one launched Triton kernel -> Tile IR (declared in
 * front.h; docs/frontend.md describes the accepted subset).
 *
 * The kernel body is interpreted once, statement by statement, the way
 * Triton's code generator walks it (interp.c): compile-time values
 * (constexprs, Python numbers, dtypes, tuples) are computed there,
 * everything that exists at run time becomes Tile IR. Compile-time integers
 * are symbolic expressions, so a free constexpr such as BLOCK_M stays a name
 * in every shape and offset that depends on it; the launch's bindings
 * (sizes, pinned constexprs) are used only where a value must be known (an
 * `if` on a constexpr, a loop step).
 *
 * This file is the entry, fe_check: it binds the launch's arguments to the
 * kernel's parameters, runs the body, and then works on the finished
 * function - the linear grid split (grid.c), the proofs of masks (ptile.c),
 * the limits on its size, merging identical pure ops and removing dead
 * ones, and the verifier. The first error is reported with the kernel's own
 * location and unwinds with longjmp to fe_check; all memory comes from the
 * compilation's arena, so an error leaks nothing. A verifier failure on the
 * result is a bug here.
 *
 * Statements and expressions are in interp.c, the names and values they
 * read in atoms.c, the tl.* functions in builtins.c, Python's builtins in
 * pyfuncs.c, operators in ops.c and the values and the building of Tile IR
 * values in cval.c; check_int.h is what they share.
 */
#include "front/check_int.h"

#include <setjmp.h>
#include <string.h>

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
            case FE_ARG_FLOAT: v = (cval){.kind = FE_V_FLOAT, .f = ar->fval}; break;
            case FE_ARG_STR: v = (cval){.kind = FE_V_STR, .str = ar->str}; break;
            case FE_ARG_NONE: v = cv_none(); break;
            default: LM_BUG("constexpr parameter %s bound to a tensor", p->name);
            }
            chk_env_set(c, p->name, v);
            continue;
        }
        if (ar->kind == FE_ARG_NONE) {
            /* Triton specialises a None argument: the kernel sees None */
            chk_env_set(c, p->name, cv_none());
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
        chk_env_set(c, p->name, cv_val(pv));
    }
}

/* A heuristic's value chosen with the schedule holds only under its
 * constraints (fe_choice): the solver's. */
static void choice_assumes(chk *c)
{
    tir_func *f = c->f;
    for (int i = 0; i < c->spec->nchoices; i++) {
        const fe_choice *ch = &c->spec->choices[i];
        if (ch->launch != c->l->index)
            continue;
        int n = ch->ncons[ch->pick];
        tir_assume *as = LM_NEWN(c->a, tir_assume, (size_t)f->nassumes + (size_t)n);
        if (f->nassumes)
            memcpy(as, f->assumes, sizeof *as * (size_t)f->nassumes);
        const char *text = lm_arena_printf(c->a, "heuristic %s: %s%s", ch->name, ch->pick ? "not " : "", ch->text);
        for (int k = 0; k < n; k++)
            as[f->nassumes++] = (tir_assume){ch->cons[ch->pick][k], text, ch->loc};
        f->assumes = as;
    }
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
    choice_assumes(c);
    chk_exec_body(c, k->body, k->nbody);
    /* values computed and never used (a while loop's counter after it)
       would count as uses of the program id; the limits first, as the
       kernel was written */
    int nops = 0;
    check_limits(c, f->body, &nops);
    remove_dead(c);
    chk_grid_delinearise(c);
    chk_ptile_verify(c);
    tir_op_build(&c->b, TIR_RETURN, k->loc, NULL, 0, NULL, 0);
    nops = 0;
    check_limits(c, f->body, &nops);
    op_stack st = {0};
    cse_block(c, f->body, &st);
    remove_dead(c);
    tir_verify_or_bug(f, "the front end (fe_check)");
    return f;
}
