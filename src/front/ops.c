/* ops.c - Python's operators in the checker (check_int.h): folding
 * comparisons and arithmetic of compile-time values (value.c's algebra,
 * with the checker's messages), the binary operators on tiles, scalars and pointers
 * (Triton's type promotion and broadcasting, through cval.c), the unary
 * operators, max/min of two values and a value as a condition. They take
 * evaluated operands: the functions a kernel calls (pyfuncs.c, builtins.c)
 * and the evaluator (interp.c) use them.
 */
#include "front/check_int.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * operators
 * ==================================================================== */

/* A binary operator on two compile-time numbers (value.c's algebra).
 * Returns false when it has to be computed at run time (symbolic operands
 * the operator cannot keep symbolic); *dep then names the free constexpr in
 * the way. */
bool chk_fold_binop(chk *c, const char *op, const cval *x, const cval *y, lm_loc loc, cval *out, const char **dep)
{
    const char *msg;
    *dep = NULL;
    switch (fe_value_fold(c->spec, c->s, c->a, op, x, y, out, &msg)) {
    case FE_FOLD_DONE: return true;
    case FE_FOLD_LATER: *dep = msg; return false;
    case FE_FOLD_ERROR: chk_fail(c, loc, "%s", msg);
    }
    LM_BUG("fold of '%s' gave no answer", op);
}

static tir_opcode binop_code(const char *op)
{
    static const struct {
        const char *op;
        tir_opcode code;
    } tab[] = {{"+", TIR_ADD},     {"-", TIR_SUB},     {"*", TIR_MUL},     {"/", TIR_DIV},
               {"//", TIR_FLOORDIV}, {"%", TIR_MOD},   {"&", TIR_AND},     {"|", TIR_OR},
               {"^", TIR_XOR},     {"==", TIR_CMP_EQ}, {"!=", TIR_CMP_NE}, {"<", TIR_CMP_LT},
               {"<=", TIR_CMP_LE}, {">", TIR_CMP_GT},  {">=", TIR_CMP_GE}, {"max", TIR_MAX},
               {"min", TIR_MIN}};
    for (size_t i = 0; i < LM_COUNT(tab); i++)
        if (!strcmp(tab[i].op, op))
            return tab[i].code;
    return TIR_NOPS;
}

/* Pointer + integer: the only pointer arithmetic there is. A tile of
 * pointers stays Tile IR arithmetic until it is loaded, stored or carried
 * (ptile.c); once it is a block pointer, adding a scalar advances it. */
static cval pointer_arith(chk *c, const char *op, const cval *x, const cval *y, lm_loc loc)
{
    bool px = x->kind == FE_V_TIR && (x->v->type.kind == TIR_PTR || chk_ptile_layout(c, x->v));
    const cval *p = px ? x : y, *o = px ? y : x;
    if (strcmp(op, "+") && !(px && !strcmp(op, "-")))
        chk_fail(c, loc, "operator '%s' cannot be applied to %s", op, chk_describe(c, p));
    if (p->v->type.kind == TIR_BPTR) {
        if (!(o->kind == FE_V_INT || (o->kind == FE_V_TIR && tir_is_int_scalar(&o->v->type))))
            chk_fail(c, loc, "a tile of pointers that a loop carries can only be moved by a scalar step, got %s",
                     chk_describe(c, o));
        return chk_ptile_advance(c, p->v, chk_int_scalar(c, o, loc, "the step"), !strcmp(op, "-"), loc);
    }
    tir_value *off;
    if (o->kind == FE_V_INT)
        off = chk_materialise(c, o, TIR_I32, loc);
    else if (is_tile_val(o) && tir_elem_is_int(o->v->type.elem) && o->v->type.elem != TIR_I1)
        off = o->v;
    else
        chk_fail(c, loc, "a pointer can only be offset by integers, got %s", chk_describe(c, o));
    if (!strcmp(op, "-"))
        off = chk_build1(c, TIR_NEG, loc, off->type, off, NULL, NULL);
    tir_value *pv = p->v;
    chk_broadcast_pair(c, &pv, &off, loc, "pointer arithmetic");
    return cv_val(chk_build1(c, TIR_ADDPTR, loc, pv->type, pv, off, NULL));
}

cval chk_binop(chk *c, const char *op, cval x, cval y, lm_loc loc)
{
    if (!strcmp(op, "is") || !strcmp(op, "is not")) {
        if (x.kind != FE_V_NONE && y.kind != FE_V_NONE)
            chk_fail(c, loc, "'%s' is only supported with None", op);
        bool same = x.kind == FE_V_NONE && y.kind == FE_V_NONE;
        return cv_bool(c, !strcmp(op, "is") ? same : !same);
    }
    if (!strcmp(op, "in") || !strcmp(op, "not in"))
        chk_fail(c, loc, "'%s' is not supported in loomc kernels", op);
    if (!strcmp(op, "@"))
        chk_fail(c, loc, "operator '@' is not supported; use tl.dot(a, b)");
    /* compile-time values that are not numbers: only (in)equality */
    bool xo = !is_number(&x) && x.kind != FE_V_TIR, yo = !is_number(&y) && y.kind != FE_V_TIR;
    if (xo || yo) {
        if ((!strcmp(op, "==") || !strcmp(op, "!=")) && xo && yo) {
            bool eq;
            if (!fe_value_same(&x, &y, &eq))
                chk_fail(c, loc, "comparing tuples is not supported");
            return cv_bool(c, !strcmp(op, "==") ? eq : !eq);
        }
        chk_fail(c, loc, "operator '%s' cannot be applied to %s and %s", op, chk_describe(c, &x), chk_describe(c, &y));
    }
    const char *dep = NULL;
    if (is_number(&x) && is_number(&y)) {
        cval r;
        if (chk_fold_binop(c, op, &x, &y, loc, &r, &dep))
            return r;
        if (!strcmp(op, "<<") || !strcmp(op, ">>"))
            chk_fail(c, loc, "operator '%s' needs known integers; it depends on free constexpr '%s'", op,
                     dep ? dep : "?");
    }
    if ((x.kind == FE_V_TIR && (x.v->type.kind == TIR_PTR || chk_ptile_layout(c, x.v))) ||
        (y.kind == FE_V_TIR && (y.v->type.kind == TIR_PTR || chk_ptile_layout(c, y.v))))
        return pointer_arith(c, op, &x, &y, loc);
    for (int k = 0; k < 2; k++) {
        const cval *v = k ? &y : &x;
        if (v->kind == FE_V_TIR && v->v->type.kind != TIR_TILE)
            chk_fail(c, loc, "operator '%s' cannot be applied to %s", op, chk_describe(c, v));
    }
    if (!strcmp(op, "**"))
        chk_fail(c, loc, "operator '**' is only supported on compile-time numbers; use tl.exp2/tl.log2 or repeated "
                         "multiplication on tiles");
    if (!strcmp(op, "<<") || !strcmp(op, ">>"))
        chk_fail(c, loc, "shift operators on tiles are not supported in loomc kernels");
    tir_opcode code = binop_code(op);
    if (code == TIR_NOPS)
        chk_fail(c, loc, "operator '%s' is not supported in loomc kernels", op);

    tir_elem e;
    if (x.kind == FE_V_TIR && y.kind == FE_V_TIR)
        e = chk_promote(x.v->type.elem, y.v->type.elem);
    else if (x.kind == FE_V_TIR)
        e = chk_weak_elem(&y, x.v->type.elem);
    else if (y.kind == FE_V_TIR)
        e = chk_weak_elem(&x, y.v->type.elem);
    else
        e = chk_promote(chk_natural_elem(&x), chk_natural_elem(&y));
    if (code == TIR_DIV && !tir_elem_is_float(e))
        e = TIR_F32; /* true division of integers gives a float, as in Triton */
    if (code == TIR_FLOORDIV && tir_elem_is_float(e))
        chk_fail(c, loc, "'//' needs integer operands, got %s; use '/' for floats", tir_elem_name(e));
    if ((code == TIR_AND || code == TIR_OR || code == TIR_XOR) && tir_elem_is_float(e))
        chk_fail(c, loc, "operator '%s' needs integer or boolean operands, got %s", op, tir_elem_name(e));
    if (code == TIR_ADD && e == TIR_I1)
        e = TIR_I32;
    tir_value *vx = x.kind == FE_V_TIR ? chk_cast_to(c, x.v, e, loc) : chk_materialise(c, &x, e, loc);
    tir_value *vy = y.kind == FE_V_TIR ? chk_cast_to(c, y.v, e, loc) : chk_materialise(c, &y, e, loc);
    chk_broadcast_pair(c, &vx, &vy, loc, lm_arena_printf(c->a, "'%s'", op));
    tir_elem re = tir_op_has(code, TIR_P_CMP) ? TIR_I1 : e;
    cval r = cv_val(chk_build1(c, code, loc, tir_t_with_elem(vx->type, re), vx, vy, NULL));
    r.free_dep = dep;
    if (x.kind == FE_V_INT && y.kind == FE_V_INT) {
        const sym_expr *one = sym_const(c->s, 1);
        if (!strcmp(op, "<="))
            r.cons = sym_sub(c->s, x.i, y.i);
        else if (!strcmp(op, "<"))
            r.cons = sym_add(c->s, sym_sub(c->s, x.i, y.i), one);
        else if (!strcmp(op, ">="))
            r.cons = sym_sub(c->s, y.i, x.i);
        else if (!strcmp(op, ">"))
            r.cons = sym_add(c->s, sym_sub(c->s, y.i, x.i), one);
    }
    return r;
}

/* A unary operator (not, +, -, ~) on a value. */
cval chk_unop(chk *c, const char *op, cval x, lm_loc loc)
{
    if (!strcmp(op, "not")) {
        bool t;
        if (chk_truth_known(c, &x, &t))
            return cv_bool(c, !t);
        if (x.kind == FE_V_INT) {
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
    if (x.kind == FE_V_INT && !strcmp(op, "-")) {
        int64_t k;
        if (ct_known(c, x.i, &k) && k == INT64_MIN)
            chk_fail(c, loc, "integer overflow in unary '-' (-(%lld) does not fit in 64 bits)", (long long)k);
        return cv_int(sym_neg(c->s, x.i));
    }
    if (x.kind == FE_V_FLOAT && !strcmp(op, "-"))
        return (cval){.kind = FE_V_FLOAT, .f = -x.f};
    if (x.kind == FE_V_INT && !strcmp(op, "~")) {
        int64_t k = chk_ct_need(c, x.i, loc, "the operand of '~'");
        return cv_int(sym_const(c->s, ~k));
    }
    if (x.kind == FE_V_FLOAT)
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

cval chk_minmax2(chk *c, bool is_max, cval x, cval y, lm_loc loc)
{
    if (x.kind == FE_V_INT && y.kind == FE_V_INT)
        return cv_int(is_max ? sym_max(c->s, x.i, y.i) : sym_min(c->s, x.i, y.i));
    if (is_number(&x) && is_number(&y)) {
        cval r;
        const char *dep;
        if (chk_fold_binop(c, is_max ? ">" : "<", &x, &y, loc, &r, &dep)) {
            int64_t k = 0;
            sym_is_const(r.i, &k);
            return k ? x : y;
        }
    }
    return chk_binop(c, is_max ? "max" : "min", x, y, loc);
}

/* A value as an i1 condition of the same shape (x != 0 for numbers). */
tir_value *chk_to_bool(chk *c, tir_value *v, lm_loc loc)
{
    if (v->type.elem == TIR_I1)
        return v;
    tir_value *zero = tir_elem_is_float(v->type.elem) ? tir_const_float(&c->b, v->type.elem, 0)
                                                      : tir_const_int(&c->b, v->type.elem, 0);
    zero = chk_broadcast_to(c, zero, v->type.rank, v->type.shape, loc);
    return chk_build1(c, TIR_CMP_NE, loc, tir_t_with_elem(v->type, TIR_I1), v, zero, NULL);
}
