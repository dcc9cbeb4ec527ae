/* tir_verify.c - the Tile IR verifier (declared in tir.h).
 *
 * Run after every pass. It checks what the passes assume without checking
 * themselves: operand and result counts from the op table, the type rule of
 * each op (shapes compared by sym pointer, which hash-consing makes exact),
 * region structure (a loop body ends in a yield of its carried values, the
 * function body in a return), and scoping: a value is used only after its
 * definition, in its own block or one nested inside it. A failure is a bug
 * in the pass that ran before, never bad input.
 */
#include "ir/tir.h"

#include <stdlib.h>
#include <string.h>

typedef struct vstate {
    const tir_func *f;
    lm_buf *why;
    bool bad;
    unsigned char *visible; /* by uid */
    unsigned char *defined; /* by uid: seen as a definition already */
    int *stack;             /* uids defined in the open scopes */
    int nstack;
} vstate;

static void fail(vstate *vs, const tir_op *op, const char *fmt, ...) LM_PRINTF(3, 4);
static void fail(vstate *vs, const tir_op *op, const char *fmt, ...)
{
    if (vs->bad)
        return;
    vs->bad = true;
    if (!vs->why)
        return;
    lm_buf_printf(vs->why, "func @%s: ", vs->f->name);
    if (op) {
        lm_buf_printf(vs->why, "op '%s'", tir_op_name(op->code));
        if (op->loc.file && op->loc.line > 0)
            lm_buf_printf(vs->why, " (from %s:%d:%d)", op->loc.file, op->loc.line, op->loc.col);
        lm_buf_puts(vs->why, ": ");
    }
    va_list ap;
    va_start(ap, fmt);
    lm_buf_vprintf(vs->why, fmt, ap);
    va_end(ap);
}

static bool is_one(const sym_expr *e)
{
    int64_t v;
    return e && sym_is_const(e, &v) && v == 1;
}

static const char *tstr(vstate *vs, const tir_type *t)
{
    (void)vs;
    /* per thread: each thread verifies its own compilations */
    static _Thread_local char buf[4][256];
    static _Thread_local int k;
    lm_buf b = {0};
    tir_print_type(&b, t);
    char *out = buf[k++ % 4];
    snprintf(out, sizeof buf[0], "%s", lm_buf_str(&b));
    lm_buf_free(&b);
    return out;
}

/* ---- definitions and scopes ------------------------------------------------ */

static void define(vstate *vs, const tir_op *op, const tir_value *v)
{
    if (!v) {
        fail(vs, op, "a result or argument is missing");
        return;
    }
    if (v->uid < 0 || v->uid >= vs->f->nvalues) {
        fail(vs, op, "value #%d does not belong to this function", v->uid);
        return;
    }
    if (vs->defined[v->uid]) {
        fail(vs, op, "value #%d is defined twice", v->uid);
        return;
    }
    vs->defined[v->uid] = 1;
    vs->visible[v->uid] = 1;
    vs->stack[vs->nstack++] = v->uid;
}

static void close_scope(vstate *vs, int mark)
{
    while (vs->nstack > mark)
        vs->visible[vs->stack[--vs->nstack]] = 0;
}

static void check_use(vstate *vs, const tir_op *op, int i)
{
    const tir_value *v = op->opnds[i];
    if (!v) {
        fail(vs, op, "operand %d is missing", i);
        return;
    }
    if (v->uid < 0 || v->uid >= vs->f->nvalues) {
        fail(vs, op, "operand %d does not belong to this function", i);
        return;
    }
    if (!vs->visible[v->uid])
        fail(vs, op, "operand %d (value #%d) is used where its definition is not visible", i, v->uid);
}

/* ---- type rules -------------------------------------------------------------- */

static bool is_tile(const tir_value *v) { return v->type.kind == TIR_TILE; }
static bool is_int_scalar(const tir_value *v) { return tir_is_int_scalar(&v->type); }

static void want_int_scalars(vstate *vs, const tir_op *op, int from, int to)
{
    for (int i = from; i < to && i < op->nopnds; i++)
        if (!is_int_scalar(op->opnds[i]))
            fail(vs, op, "operand %d must be an integer scalar, is %s", i, tstr(vs, &op->opnds[i]->type));
}

static void check_elem_class(vstate *vs, const tir_op *op, tir_elem e)
{
    if (tir_op_has(op->code, TIR_P_INTONLY) && tir_elem_is_float(e))
        fail(vs, op, "needs integer operands, got %s", tir_elem_name(e));
    if (tir_op_has(op->code, TIR_P_FLOATONLY) && !tir_elem_is_float(e))
        fail(vs, op, "needs floating-point operands, got %s", tir_elem_name(e));
}

static void check_reduce(vstate *vs, const tir_op *op, const tir_type *in, const tir_type *out)
{
    if (in->kind != TIR_TILE || in->rank < 1) {
        fail(vs, op, "operand must be a tile of rank >= 1, is %s", tstr(vs, in));
        return;
    }
    if (op->ival < 0 || op->ival >= in->rank) {
        fail(vs, op, "axis %lld out of range for rank %d", (long long)op->ival, in->rank);
        return;
    }
    int ax = (int)op->ival;
    tir_elem want = in->elem;
    if (op->code == TIR_REDUCE_SUM && in->elem == TIR_I1)
        want = TIR_I32;
    if (out->kind != TIR_TILE || out->elem != want) {
        fail(vs, op, "result must be %s elements, is %s", tir_elem_name(want), tstr(vs, out));
        return;
    }
    if (op->keep_dims) {
        bool ok = out->rank == in->rank;
        for (int i = 0; ok && i < in->rank; i++)
            ok = i == ax ? is_one(out->shape[i]) : out->shape[i] == in->shape[i];
        if (!ok)
            fail(vs, op, "keep_dims result %s does not match operand %s", tstr(vs, out), tstr(vs, in));
    } else {
        bool ok = out->rank == in->rank - 1;
        for (int i = 0, j = 0; ok && i < in->rank; i++)
            if (i != ax)
                ok = out->shape[j++] == in->shape[i];
        if (!ok)
            fail(vs, op, "result %s is not operand %s without axis %d", tstr(vs, out), tstr(vs, in), ax);
    }
}

static void check_yield_matches(vstate *vs, const tir_op *op, const tir_block *blk, const char *what)
{
    const tir_op *y = blk->last;
    if (!y || y->code != TIR_YIELD) {
        fail(vs, op, "%s does not end in a yield", what);
        return;
    }
    if (y->nopnds != op->nresults) {
        fail(vs, op, "%s yields %d values for %d results", what, y->nopnds, op->nresults);
        return;
    }
    for (int i = 0; i < y->nopnds; i++)
        if (y->opnds[i] && !tir_type_eq(&y->opnds[i]->type, &op->results[i]->type))
            fail(vs, op, "%s yields %s for result %d of type %s", what, tstr(vs, &y->opnds[i]->type), i,
                 tstr(vs, &op->results[i]->type));
}

static void check_types(vstate *vs, const tir_op *op)
{
    tir_value *const *o = op->opnds;
    int n = op->nopnds;
    const tir_type *r = op->nresults == 1 ? &op->results[0]->type : NULL;
    unsigned p = tir_opinfo_tab[op->code].props;

    if (p & TIR_P_BINARY) {
        if (!is_tile(o[0]) || !tir_type_eq(&o[0]->type, &o[1]->type)) {
            fail(vs, op, "operands must be tiles of one type, got %s and %s", tstr(vs, &o[0]->type),
                 tstr(vs, &o[1]->type));
            return;
        }
        check_elem_class(vs, op, o[0]->type.elem);
        tir_elem want = (p & TIR_P_CMP) ? TIR_I1 : o[0]->type.elem;
        if (r->kind != TIR_TILE || r->elem != want || !tir_shape_eq(r, &o[0]->type))
            fail(vs, op, "result %s does not match operands %s", tstr(vs, r), tstr(vs, &o[0]->type));
        return;
    }
    if ((p & TIR_P_UNARY) && op->code != TIR_CAST) {
        if (!is_tile(o[0]) || !tir_type_eq(&o[0]->type, r))
            fail(vs, op, "result %s differs from operand %s", tstr(vs, r), tstr(vs, &o[0]->type));
        check_elem_class(vs, op, o[0]->type.elem);
        return;
    }
    if (p & TIR_P_REDUCE) {
        check_reduce(vs, op, &o[0]->type, r);
        return;
    }

    switch (op->code) {
    case TIR_PROGRAM_ID:
    case TIR_NUM_PROGRAMS:
        if (!r || !tir_is_int_scalar(r) || r->elem != TIR_I32)
            fail(vs, op, "result must be i32");
        if (op->ival < 0 || op->ival >= TIR_MAX_GRID)
            fail(vs, op, "axis %lld out of range", (long long)op->ival);
        break;
    case TIR_CONST:
        if (!tir_is_scalar(r))
            fail(vs, op, "result must be a scalar, is %s", tstr(vs, r));
        else if (op->is_float != tir_elem_is_float(r->elem))
            fail(vs, op, "constant kind does not match its type %s", tstr(vs, r));
        break;
    case TIR_SYM:
        if (!tir_is_int_scalar(r) || !op->sym)
            fail(vs, op, "needs an expression and an integer scalar result");
        break;
    case TIR_ARANGE:
        if (r->kind != TIR_TILE || r->rank != 1 || r->elem != TIR_I32 || !op->sym || !op->sym2)
            fail(vs, op, "must give a 1-D i32 tile from start and end, gives %s", tstr(vs, r));
        break;
    case TIR_FULL:
        if (r->kind != TIR_TILE || r->rank < 1)
            fail(vs, op, "result must be a tile, is %s", tstr(vs, r));
        else if (op->is_float != tir_elem_is_float(r->elem))
            fail(vs, op, "value kind does not match its type %s", tstr(vs, r));
        break;
    case TIR_SPLAT:
        if (o[0]->type.rank != 0 || (o[0]->type.kind != TIR_TILE && o[0]->type.kind != TIR_PTR) ||
            r->kind != o[0]->type.kind || r->elem != o[0]->type.elem || r->rank < 1)
            fail(vs, op, "cannot splat %s to %s", tstr(vs, &o[0]->type), tstr(vs, r));
        break;
    case TIR_BROADCAST: {
        const tir_type *s = &o[0]->type;
        bool ok = (s->kind == TIR_TILE || s->kind == TIR_PTR) && r->kind == s->kind && r->elem == s->elem &&
                  s->rank >= 1 && s->rank <= r->rank;
        for (int i = 1; ok && i <= s->rank; i++) {
            const sym_expr *a = s->shape[s->rank - i], *b = r->shape[r->rank - i];
            ok = a == b || is_one(a);
        }
        if (!ok)
            fail(vs, op, "cannot broadcast %s to %s", tstr(vs, s), tstr(vs, r));
        break;
    }
    case TIR_EXPAND_DIMS: {
        const tir_type *s = &o[0]->type;
        bool ok = s->kind == TIR_TILE && r->kind == TIR_TILE && r->elem == s->elem && r->rank == s->rank + 1 &&
                  op->ival >= 0 && op->ival < r->rank;
        for (int i = 0, j = 0; ok && i < r->rank; i++)
            ok = i == op->ival ? is_one(r->shape[i]) : r->shape[i] == s->shape[j++];
        if (!ok)
            fail(vs, op, "%s is not %s with a 1 inserted at axis %lld", tstr(vs, r), tstr(vs, s),
                 (long long)op->ival);
        break;
    }
    case TIR_VIEW: {
        const tir_type *s = &o[0]->type;
        bool ok = s->kind == TIR_TILE && r->kind == TIR_TILE && r->elem == s->elem;
        int i = 0, j = 0;
        while (ok) {
            while (i < s->rank && is_one(s->shape[i]))
                i++;
            while (j < r->rank && is_one(r->shape[j]))
                j++;
            if (i == s->rank || j == r->rank) {
                ok = i == s->rank && j == r->rank;
                break;
            }
            ok = s->shape[i++] == r->shape[j++];
        }
        if (!ok)
            fail(vs, op, "%s is not a view of %s (only dimensions of size 1 may change)", tstr(vs, r),
                 tstr(vs, s));
        break;
    }
    case TIR_TRANS: {
        const tir_type *s = &o[0]->type;
        if (s->kind != TIR_TILE || s->rank != 2 || r->rank != 2 || r->elem != s->elem ||
            r->shape[0] != s->shape[1] || r->shape[1] != s->shape[0])
            fail(vs, op, "%s is not the transpose of %s", tstr(vs, r), tstr(vs, s));
        break;
    }
    case TIR_CAST:
        if (!is_tile(o[0]) || r->kind != TIR_TILE || !tir_shape_eq(r, &o[0]->type))
            fail(vs, op, "cannot cast %s to %s", tstr(vs, &o[0]->type), tstr(vs, r));
        break;
    case TIR_WHERE:
        if (!is_tile(o[0]) || o[0]->type.elem != TIR_I1 || !tir_shape_eq(&o[0]->type, r))
            fail(vs, op, "condition %s must be i1 of the result's shape", tstr(vs, &o[0]->type));
        else if (!tir_type_eq(&o[1]->type, r) || !tir_type_eq(&o[2]->type, r))
            fail(vs, op, "values %s and %s must both be %s", tstr(vs, &o[1]->type), tstr(vs, &o[2]->type),
                 tstr(vs, r));
        break;
    case TIR_DOT: {
        const tir_type *a = &o[0]->type, *b = &o[1]->type;
        if (a->kind != TIR_TILE || b->kind != TIR_TILE || a->rank != 2 || b->rank != 2) {
            fail(vs, op, "operands must be 2-D tiles, got %s and %s", tstr(vs, a), tstr(vs, b));
            break;
        }
        if (a->shape[1] != b->shape[0])
            fail(vs, op, "inner dimensions of %s and %s differ", tstr(vs, a), tstr(vs, b));
        else if (a->elem != b->elem)
            fail(vs, op, "operand element types differ: %s and %s", tstr(vs, a), tstr(vs, b));
        else if (r->kind != TIR_TILE || r->rank != 2 || r->shape[0] != a->shape[0] || r->shape[1] != b->shape[1])
            fail(vs, op, "result %s is not [%s rows x %s columns]", tstr(vs, r), "a", "b");
        else if (n == 3 && !tir_type_eq(&o[2]->type, r))
            fail(vs, op, "accumulator %s differs from result %s", tstr(vs, &o[2]->type), tstr(vs, r));
        break;
    }
    case TIR_CDIV:
        want_int_scalars(vs, op, 0, 2);
        if (!tir_is_int_scalar(r))
            fail(vs, op, "result must be an integer scalar");
        break;
    case TIR_ADDPTR:
        if (o[0]->type.kind != TIR_PTR || !is_tile(o[1]) || !tir_elem_is_int(o[1]->type.elem) ||
            !tir_shape_eq(&o[0]->type, &o[1]->type) || !tir_type_eq(r, &o[0]->type))
            fail(vs, op, "needs a pointer and an integer offset of one shape, got %s and %s",
                 tstr(vs, &o[0]->type), tstr(vs, &o[1]->type));
        break;
    case TIR_MAKE_BLOCK_PTR: {
        int rk = op->rank;
        if (rk < 1 || rk > TIR_MAX_RANK || n != 1 + 3 * rk) {
            fail(vs, op, "rank %d needs %d operands, has %d", rk, 1 + 3 * rk, n);
            break;
        }
        if (o[0]->type.kind != TIR_PTR || o[0]->type.rank != 0)
            fail(vs, op, "base must be a scalar pointer, is %s", tstr(vs, &o[0]->type));
        want_int_scalars(vs, op, 1, n);
        if (r->kind != TIR_BPTR || r->rank != rk || r->elem != o[0]->type.elem)
            fail(vs, op, "result %s is not a rank-%d block pointer to %s", tstr(vs, r), rk,
                 tir_elem_name(o[0]->type.elem));
        unsigned seen = 0;
        for (int i = 0; i < rk; i++) {
            if (op->order[i] < 0 || op->order[i] >= rk || (seen & (1u << op->order[i])))
                fail(vs, op, "order is not a permutation of 0..%d", rk - 1);
            else
                seen |= 1u << op->order[i];
        }
        break;
    }
    case TIR_ADVANCE:
        if (o[0]->type.kind != TIR_BPTR || n - 1 != o[0]->type.rank)
            fail(vs, op, "needs a block pointer and one offset per dimension");
        want_int_scalars(vs, op, 1, n);
        if (!tir_type_eq(r, &o[0]->type))
            fail(vs, op, "result %s differs from %s", tstr(vs, r), tstr(vs, &o[0]->type));
        break;
    case TIR_LOAD:
    case TIR_STORE: {
        const tir_type *pt = &o[0]->type;
        const tir_type *vt = op->code == TIR_LOAD ? r : &o[1]->type;
        if (pt->kind != TIR_BPTR) {
            fail(vs, op, "needs a block pointer, got %s", tstr(vs, pt));
            break;
        }
        if (vt->kind != TIR_TILE || vt->elem != pt->elem || !tir_shape_eq(vt, pt))
            fail(vs, op, "value %s does not match block %s", tstr(vs, vt), tstr(vs, pt));
        if (op->bcheck >> pt->rank)
            fail(vs, op, "boundary check on a dimension beyond rank %d", pt->rank);
        break;
    }
    case TIR_MAKE_DESC: {
        int rk = op->rank;
        if (rk < 1 || rk > TIR_MAX_RANK || n != 1 + 2 * rk) {
            fail(vs, op, "rank %d needs %d operands, has %d", rk, 1 + 2 * rk, n);
            break;
        }
        if (o[0]->type.kind != TIR_PTR || o[0]->type.rank != 0)
            fail(vs, op, "base must be a scalar pointer, is %s", tstr(vs, &o[0]->type));
        want_int_scalars(vs, op, 1, n);
        if (r->kind != TIR_DESC || r->rank != rk || r->elem != o[0]->type.elem)
            fail(vs, op, "result %s is not a rank-%d descriptor of %s", tstr(vs, r), rk,
                 tir_elem_name(o[0]->type.elem));
        break;
    }
    case TIR_DESC_LOAD:
    case TIR_DESC_STORE: {
        const tir_type *dt = &o[0]->type;
        int first = op->code == TIR_DESC_LOAD ? 1 : 2;
        const tir_type *vt = op->code == TIR_DESC_LOAD ? r : &o[1]->type;
        if (dt->kind != TIR_DESC) {
            fail(vs, op, "needs a tensor descriptor, got %s", tstr(vs, dt));
            break;
        }
        if (n - first != dt->rank)
            fail(vs, op, "needs %d offsets, has %d", dt->rank, n - first);
        want_int_scalars(vs, op, first, n);
        if (vt->kind != TIR_TILE || vt->elem != dt->elem || !tir_shape_eq(vt, dt))
            fail(vs, op, "value %s does not match block %s", tstr(vs, vt), tstr(vs, dt));
        break;
    }
    case TIR_FOR: {
        want_int_scalars(vs, op, 0, 3);
        if (op->nregions != 1) {
            fail(vs, op, "needs one region");
            break;
        }
        const tir_block *body = op->regions[0];
        int nc = n - 3;
        if (op->nresults != nc || body->nargs != 1 + nc) {
            fail(vs, op, "%d carried values, %d results and %d region arguments disagree", nc, op->nresults,
                 body->nargs);
            break;
        }
        if (!tir_is_int_scalar(&body->args[0]->type))
            fail(vs, op, "loop variable must be an integer scalar");
        for (int i = 0; i < nc; i++) {
            if (!tir_type_eq(&o[3 + i]->type, &body->args[1 + i]->type) ||
                !tir_type_eq(&o[3 + i]->type, &op->results[i]->type))
                fail(vs, op, "carried value %d: initial %s, argument %s and result %s differ", i,
                     tstr(vs, &o[3 + i]->type), tstr(vs, &body->args[1 + i]->type),
                     tstr(vs, &op->results[i]->type));
        }
        check_yield_matches(vs, op, body, "loop body");
        break;
    }
    case TIR_IF:
        if (!tir_is_scalar(&o[0]->type) || o[0]->type.elem != TIR_I1)
            fail(vs, op, "condition must be an i1 scalar, is %s", tstr(vs, &o[0]->type));
        if (op->nregions != 2) {
            fail(vs, op, "needs two regions");
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (op->regions[k]->nargs)
                fail(vs, op, "branch regions take no arguments");
            check_yield_matches(vs, op, op->regions[k], k ? "else branch" : "then branch");
        }
        break;
    case TIR_YIELD: {
        const tir_op *owner = op->parent ? op->parent->owner : NULL;
        if (!owner || (owner->code != TIR_FOR && owner->code != TIR_IF))
            fail(vs, op, "yield outside a loop or branch region");
        break;
    }
    case TIR_RETURN:
        if (!op->parent || op->parent != vs->f->body)
            fail(vs, op, "return outside the function body");
        break;
    default: break;
    }
}

/* ---- structure ------------------------------------------------------------- */

static void verify_block(vstate *vs, const tir_block *blk, const tir_op *owner)
{
    if (blk->owner != owner) {
        fail(vs, owner, "region does not point back to its op");
        return;
    }
    for (int i = 0; i < blk->nargs; i++) {
        const tir_value *a = blk->args[i];
        if (!a || a->def || a->block != blk || a->argno != i)
            fail(vs, owner, "region argument %d is not linked to its block", i);
        else
            define(vs, owner, a);
    }
    const tir_op *prev = NULL;
    for (const tir_op *op = blk->first; op && !vs->bad; prev = op, op = op->next) {
        if ((unsigned)op->code >= TIR_NOPS) {
            fail(vs, NULL, "bad opcode %d", (int)op->code);
            return;
        }
        const tir_opinfo *in = &tir_opinfo_tab[op->code];
        if (op->parent != blk || op->prev != prev)
            fail(vs, op, "op list links are broken");
        if (op->nopnds < in->min_opnds || (in->max_opnds >= 0 && op->nopnds > in->max_opnds))
            fail(vs, op, "has %d operands, needs %d..%d", op->nopnds, in->min_opnds, in->max_opnds);
        if (in->nresults >= 0 && op->nresults != in->nresults)
            fail(vs, op, "has %d results, needs %d", op->nresults, in->nresults);
        int want_regions = op->code == TIR_FOR ? 1 : op->code == TIR_IF ? 2 : 0;
        if (op->nregions != want_regions)
            fail(vs, op, "has %d regions, needs %d", op->nregions, want_regions);
        if ((in->props & TIR_P_TERM) && op->next)
            fail(vs, op, "terminator is not the last op of its block");
        for (int i = 0; i < op->nopnds && !vs->bad; i++)
            check_use(vs, op, i);
        for (int i = 0; i < op->nresults && !vs->bad; i++) {
            const tir_value *v = op->results[i];
            if (!v || v->def != op || v->resno != i)
                fail(vs, op, "result %d is not linked to its op", i);
            else if (v->sym && !tir_is_int_scalar(&v->type))
                fail(vs, op, "result %d has a symbolic value but is not an integer scalar", i);
        }
        if (vs->bad)
            return;
        check_types(vs, op);
        for (int r = 0; r < op->nregions && !vs->bad; r++) {
            int mark = vs->nstack;
            if (!op->regions[r]) {
                fail(vs, op, "region %d is missing", r);
                return;
            }
            verify_block(vs, op->regions[r], op);
            close_scope(vs, mark);
        }
        for (int i = 0; i < op->nresults && !vs->bad; i++)
            define(vs, op, op->results[i]);
    }
    if (!vs->bad && prev != blk->last)
        fail(vs, owner, "block's last-op link is broken");
}

bool tir_verify(const tir_func *f, lm_buf *why)
{
    vstate vs = {0};
    vs.f = f;
    vs.why = why;
    int n = f->nvalues > 0 ? f->nvalues : 1;
    vs.visible = lm_xcalloc((size_t)n, 1);
    vs.defined = lm_xcalloc((size_t)n, 1);
    vs.stack = lm_xcalloc((size_t)n, sizeof(int));
    if (!f->body) {
        fail(&vs, NULL, "function has no body");
    } else {
        verify_block(&vs, f->body, NULL);
        if (!vs.bad && (!f->body->last || f->body->last->code != TIR_RETURN))
            fail(&vs, NULL, "function body does not end in a return");
        if (!vs.bad && f->body->nargs != f->nparams)
            fail(&vs, NULL, "%d parameters but %d body arguments", f->nparams, f->body->nargs);
        for (int i = 0; !vs.bad && i < f->nparams; i++)
            if (f->params[i].value != f->body->args[i])
                fail(&vs, NULL, "parameter %d is not body argument %d", i, i);
    }
    free(vs.visible);
    free(vs.defined);
    free(vs.stack);
    return !vs.bad;
}

void tir_verify_or_bug(const tir_func *f, const char *after_pass)
{
    lm_buf why = {0};
    if (!tir_verify(f, &why)) {
        /* the message is copied out of the buffer by lm_bug_at's printf */
        LM_BUG("Tile IR verification failed after %s: %s", after_pass, lm_buf_str(&why));
    }
    lm_buf_free(&why);
}
