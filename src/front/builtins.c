/* builtins.c - the tl.* functions of the checker (check_int.h): Triton's
 * language functions that a kernel calls (tl.program_id, tl.load, tl.dot,
 * tl.where, reductions, ...), the tile and descriptor methods that stand
 * for them (x.to(), x.sum(), desc.load()), and how a dotted name or a
 * method reaches them. Each is a row of a table with its Python parameter
 * list; the evaluator (interp.c) evaluates and binds a call's arguments to
 * it, and the handler gets the bound values and builds Tile IR, or says in
 * its message why loomc does not compile the call. Nothing here evaluates
 * an expression: this file calls only the files below it (ops.c, ptile.c,
 * cval.c, pyfuncs.c for math.*).
 */
#include "front/check_int.h"

#include <math.h>
#include <string.h>

/* ======================================================================
 * the tl.* functions
 * ==================================================================== */

static cval grid_index(chk *c, const fe_expr *call, const cargs *a, bool pid)
{
    int64_t ax = chk_arg_const(c, a, 0, "the axis");
    if (ax < 0 || ax >= TIR_MAX_GRID)
        chk_fail(c, aloc(a, 0), "%s: axis must be 0, 1 or 2, got %lld", a->fname, (long long)ax);
    if (ax >= c->l->grid_rank)
        chk_fail(c, aloc(a, 0), "%s(%lld) asks for grid axis %lld, but launch %d of '%s' has a %d-D grid", a->fname,
                 (long long)ax, (long long)ax, c->l->index, c->spec->name, c->l->grid_rank);
    return cv_val(pid ? tir_program_id(&c->b, (int)ax) : tir_num_programs(&c->b, (int)ax));
}

static cval h_program_id(chk *c, const fe_expr *call, const cargs *a)
{
    return grid_index(c, call, a, true);
}

static cval h_num_programs(chk *c, const fe_expr *call, const cargs *a)
{
    return grid_index(c, call, a, false);
}

static cval h_arange(chk *c, const fe_expr *call, const cargs *a)
{
    for (int i = 0; i < 2; i++)
        if (a->v[i].kind != FE_V_INT || a->v[i].is_bool)
            chk_fail(c, aloc(a, i), "tl.arange bounds must be compile-time constants, got %s for '%s'",
                     chk_describe(c, &a->v[i]), i ? "end" : "start");
    const sym_expr *len = sym_sub(c->s, a->v[1].i, a->v[0].i);
    int64_t n;
    if (ct_known(c, len, &n)) {
        if (n < 1)
            chk_fail(c, call->loc, "tl.arange(%s, %s) is empty", sym_str(c->a, a->v[0].i), sym_str(c->a, a->v[1].i));
        if (n & (n - 1))
            chk_fail(c, call->loc, "the length of tl.arange must be a power of 2, got %lld", (long long)n);
    }
    tir_value *v = chk_build1(c, TIR_ARANGE, call->loc, chk_tile_t(c, TIR_I32, 1, &len), NULL, NULL, NULL);
    v->def->sym = a->v[0].i;
    v->def->sym2 = a->v[1].i;
    return cv_val(v);
}

/* A FULL tile of a compile-time number, or a splat of a run-time scalar. */
static cval make_full(chk *c, lm_loc loc, int rank, const sym_expr *const *dims, const cval *value, lm_loc vloc, tir_elem e)
{
    tir_type t = chk_tile_t(c, e, rank, dims);
    if (is_number(value)) {
        tir_value *v = chk_build1(c, TIR_FULL, loc, t, NULL, NULL, NULL);
        tir_op *op = v->def;
        op->is_float = tir_elem_is_float(e);
        if (value->kind == FE_V_FLOAT) {
            if (op->is_float)
                op->fval = value->f;
            else if (!(fabs(value->f) < 9e18))
                chk_fail(c, vloc, "value %g does not fit %s", value->f, tir_elem_name(e));
            else
                op->ival = (int64_t)value->f;
        } else {
            int64_t k = chk_ct_need(c, value->i, vloc, "the fill value");
            if (op->is_float)
                op->fval = (double)k;
            else
                op->ival = e == TIR_I1 ? k != 0 : k;
        }
        return cv_val(v);
    }
    if (value->kind == FE_V_TIR && value->v->type.kind == TIR_TILE && value->v->type.rank == 0) {
        tir_value *s = chk_cast_to(c, value->v, e, vloc);
        return cv_val(chk_broadcast_to(c, s, rank, dims, loc));
    }
    chk_fail(c, vloc, "the fill value must be a number or a scalar, got %s", chk_describe(c, value));
}

static cval h_zeros(chk *c, const fe_expr *call, const cargs *a)
{
    const sym_expr *dims[TIR_MAX_RANK];
    int r = chk_parse_shape(c, &a->v[0], aloc(a, 0), "the shape of tl.zeros", dims);
    cval zero = cv_int(sym_const(c->s, 0));
    return make_full(c, call->loc, r, dims, &zero, call->loc, chk_arg_dtype(c, a, 1));
}

static cval h_full(chk *c, const fe_expr *call, const cargs *a)
{
    const sym_expr *dims[TIR_MAX_RANK];
    int r = chk_parse_shape(c, &a->v[0], aloc(a, 0), "the shape of tl.full", dims);
    return make_full(c, call->loc, r, dims, &a->v[1], aloc(a, 1), chk_arg_dtype(c, a, 2));
}

static cval h_zeros_like(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = chk_arg_tile(c, a, 0, "the input");
    if (x->type.rank == 0)
        chk_fail(c, aloc(a, 0), "%s needs a tile, got %s", a->fname, chk_describe(c, &a->v[0]));
    cval zero = cv_int(sym_const(c->s, 0));
    return make_full(c, call->loc, x->type.rank, x->type.shape, &zero, call->loc, x->type.elem);
}

static cval h_make_block_ptr(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *base = chk_value_of_kind(c, a, 0, TIR_PTR, "the base");
    tir_value *sh[TIR_MAX_RANK], *st[TIR_MAX_RANK], *of[TIR_MAX_RANK];
    const sym_expr *blk[TIR_MAX_RANK];
    int r = chk_int_tuple(c, &a->v[1], aloc(a, 1), "the shape of tl.make_block_ptr", sh);
    int rs = chk_int_tuple(c, &a->v[2], aloc(a, 2), "the strides of tl.make_block_ptr", st);
    int ro = chk_int_tuple(c, &a->v[3], aloc(a, 3), "the offsets of tl.make_block_ptr", of);
    int rb = chk_parse_shape(c, &a->v[4], aloc(a, 4), "the block_shape of tl.make_block_ptr", blk);
    if (rs != r || ro != r || rb != r)
        chk_fail(c, call->loc, "tl.make_block_ptr: shape, strides, offsets and block_shape must have one entry per "
                               "dimension, got %d, %d, %d and %d",
                 r, rs, ro, rb);
    const cval *ov = &a->v[5];
    int order[TIR_MAX_RANK];
    if (ov->kind != FE_V_TUPLE || ov->n != r)
        chk_fail(c, aloc(a, 5), "the order of tl.make_block_ptr must be a tuple of %d dimension indices", r);
    unsigned seen = 0;
    for (int i = 0; i < r; i++) {
        int64_t k = chk_const_int_of(c, &ov->items[i], aloc(a, 5), "an entry of order");
        if (k < 0 || k >= r || (seen & (1u << k)))
            chk_fail(c, aloc(a, 5), "the order of tl.make_block_ptr must be a permutation of 0..%d", r - 1);
        seen |= 1u << k;
        order[i] = (int)k;
    }
    /* walking the tensor out of order: made in its order (ptile.c) */
    bool swap = chk_bptr_reversed(c, base, st, r);
    tir_value *ops[1 + 3 * TIR_MAX_RANK];
    ops[0] = base;
    for (int i = 0; i < r; i++) {
        int j = swap ? r - 1 - i : i;
        ops[1 + i] = sh[j];
        ops[1 + r + i] = st[j];
        ops[1 + 2 * r + i] = of[j];
    }
    if (swap) {
        const sym_expr *b0 = blk[0];
        blk[0] = blk[1];
        blk[1] = b0;
        for (int i = 0; i < r; i++)
            order[i] = r - 1 - order[i];
    }
    tir_type t = tir_t_bptr(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_BLOCK_PTR, call->loc, ops, 1 + 3 * r, &t, 1);
    op->rank = r;
    memcpy(op->order, order, sizeof order[0] * (size_t)r);
    if (swap)
        chk_bptr_note_swapped(c, op->results[0]);
    return cv_val(op->results[0]);
}

/* The type a kernel sees of a block pointer's tiles: a swapped one's
 * transposed. */
static tir_type seen_tile(chk *c, const tir_value *bp)
{
    const tir_type *t = &bp->type;
    if (!chk_bptr_swapped(c, bp))
        return tir_t_tile(c->a, t->elem, t->rank, t->shape);
    const sym_expr *s[2] = {t->shape[1], t->shape[0]};
    return tir_t_tile(c->a, t->elem, 2, s);
}

static cval h_advance(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *bp = chk_value_of_kind(c, a, 0, TIR_BPTR, "the base");
    tir_value *ops[1 + TIR_MAX_RANK];
    ops[0] = bp;
    int r = chk_int_tuple(c, &a->v[1], aloc(a, 1), "the offsets of tl.advance", ops + 1);
    if (r != bp->type.rank)
        chk_fail(c, aloc(a, 1), "tl.advance needs %d offsets for a %d-D block pointer, got %d", bp->type.rank,
                 bp->type.rank, r);
    bool swap = chk_bptr_swapped(c, bp);
    if (swap) {
        tir_value *o0 = ops[1];
        ops[1] = ops[2];
        ops[2] = o0;
    }
    tir_op *op = tir_op_build(&c->b, TIR_ADVANCE, call->loc, ops, 1 + r, &bp->type, 1);
    if (swap)
        chk_bptr_note_swapped(c, op->results[0]);
    return cv_val(op->results[0]);
}

static unsigned boundary_mask(chk *c, const cargs *a, int i, int rank)
{
    if (!given(a, i))
        return 0;
    const cval *v = &a->v[i];
    const cval *items = v;
    int n = 1;
    if (v->kind == FE_V_TUPLE) {
        items = v->items;
        n = v->n;
    }
    unsigned m = 0;
    for (int k = 0; k < n; k++) {
        int64_t d = chk_const_int_of(c, &items[k], aloc(a, i), "an entry of boundary_check");
        if (d < 0 || d >= rank)
            chk_fail(c, aloc(a, i), "boundary_check names dimension %lld of a %d-D block", (long long)d, rank);
        m |= 1u << d;
    }
    return m;
}

/* A tile of pointers, or a block pointer made from one (ptile.c). */
static bool is_ptile(chk *c, const cval *p)
{
    return p->kind == FE_V_TIR && ((p->v->type.kind == TIR_PTR && p->v->type.rank > 0) || chk_ptile_layout(c, p->v));
}

/* `tl.store(p, v)` then `x = tl.load(p)` with nothing stored in between
 * and no masks (a kernel round-tripping a value through a scratch buffer,
 * as FlashAttention's Triton forward does): x is v as stored, converted
 * to the pointee type. The store stays. */
static bool forwarded(chk *c, const cargs *a, cval *out)
{
    if (!c->fwd_ptr || a->v[0].v != c->fwd_ptr || c->b.block != c->fwd_block || given(a, 1) || given(a, 2))
        return false;
    *out = cv_val(c->fwd_val);
    return true;
}

static cval h_load(chk *c, const fe_expr *call, const cargs *a)
{
    const cval *p = &a->v[0];
    cval fwd;
    if (is_ptile(c, p) && forwarded(c, a, &fwd))
        return fwd;
    if (is_ptile(c, p))
        return chk_ptile_load(c, a, call->loc);
    if (p->kind == FE_V_TIR && p->v->type.kind == TIR_PTR)
        return chk_ptile_scalar_load(c, a, call->loc);
    if (p->kind == FE_V_TIR && p->v->type.kind == TIR_DESC)
        chk_fail(c, call->loc, "load through a tensor descriptor with desc.load([offsets])");
    tir_value *bp = chk_value_of_kind(c, a, 0, TIR_BPTR, "the pointer");
    if (given(a, 1) || given(a, 2))
        chk_fail(c, aloc(a, given(a, 1) ? 1 : 2), "tl.load through a block pointer takes boundary_check= and "
                                                    "padding_option=, not mask= or other=");
    unsigned m = boundary_mask(c, a, 3, bp->type.rank);
    tir_pad pad = TIR_PAD_NONE;
    if (given(a, 4)) {
        const cval *pv = &a->v[4];
        if (pv->kind != FE_V_STR)
            chk_fail(c, aloc(a, 4), "padding_option must be a string (\"zero\" or \"nan\"), got %s",
                     chk_describe(c, pv));
        if (!strcmp(pv->str, "zero"))
            pad = TIR_PAD_ZERO;
        else if (!strcmp(pv->str, "nan"))
            pad = TIR_PAD_NAN;
        else if (pv->str[0])
            chk_fail(c, aloc(a, 4), "padding_option must be \"zero\" or \"nan\", got \"%s\"", pv->str);
    }
    tir_type t = tir_t_tile(c->a, bp->type.elem, bp->type.rank, bp->type.shape);
    tir_value *v = chk_build1(c, TIR_LOAD, call->loc, t, bp, NULL, NULL);
    v->def->padding = pad;
    v->def->bcheck = m;
    if (chk_bptr_swapped(c, bp)) {
        v->def->bcheck = chk_bptr_swap_bits(m);
        v = chk_transpose(c, v, call->loc, "a block pointer walking its tensor out of order");
    }
    return cv_val(v);
}

static cval h_store(chk *c, const fe_expr *call, const cargs *a)
{
    const cval *p = &a->v[0];
    c->fwd_ptr = NULL;
    if (is_ptile(c, p)) {
        chk_ptile_store(c, a, call->loc);
        if (!given(a, 2) && p->v->type.kind == TIR_PTR) {
            const tir_type *pt = &p->v->type;
            tir_type whole = tir_t_tile(c->a, pt->elem, pt->rank, pt->shape);
            c->fwd_val = chk_store_value(c, &a->v[1], aloc(a, 1), &whole, "the stored value");
            c->fwd_ptr = p->v;
            c->fwd_block = c->b.block;
        }
        return cv_none();
    }
    if (p->kind == FE_V_TIR && p->v->type.kind == TIR_PTR) {
        chk_ptile_scalar_store(c, a, call->loc);
        return cv_none();
    }
    if (p->kind == FE_V_TIR && p->v->type.kind == TIR_DESC)
        chk_fail(c, call->loc, "store through a tensor descriptor with desc.store([offsets], value)");
    tir_value *bp = chk_value_of_kind(c, a, 0, TIR_BPTR, "the pointer");
    if (given(a, 2))
        chk_fail(c, aloc(a, 2), "tl.store through a block pointer takes boundary_check=, not mask=");
    unsigned m = boundary_mask(c, a, 3, bp->type.rank);
    tir_type seen = seen_tile(c, bp);
    tir_value *v = chk_store_value(c, &a->v[1], aloc(a, 1), &seen, "the stored value");
    if (chk_bptr_swapped(c, bp)) {
        m = chk_bptr_swap_bits(m);
        v = chk_transpose(c, v, call->loc, "a block pointer walking its tensor out of order");
    }
    tir_value *ops[2] = {bp, v};
    tir_op *op = tir_op_build(&c->b, TIR_STORE, call->loc, ops, 2, NULL, 0);
    op->bcheck = m;
    return cv_none();
}

static cval h_make_desc(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *base = chk_value_of_kind(c, a, 0, TIR_PTR, "the base");
    tir_value *sh[TIR_MAX_RANK], *st[TIR_MAX_RANK];
    const sym_expr *blk[TIR_MAX_RANK];
    int r = chk_int_tuple(c, &a->v[1], aloc(a, 1), "the shape of tl.make_tensor_descriptor", sh);
    int rs = chk_int_tuple(c, &a->v[2], aloc(a, 2), "the strides of tl.make_tensor_descriptor", st);
    int rb = chk_parse_shape(c, &a->v[3], aloc(a, 3), "the block_shape of tl.make_tensor_descriptor", blk);
    if (rs != r || rb != r)
        chk_fail(c, call->loc, "tl.make_tensor_descriptor: shape, strides and block_shape must have one entry per "
                               "dimension, got %d, %d and %d",
                 r, rs, rb);
    int64_t last;
    if (st[r - 1]->sym && fe_spec_eval(c->spec, st[r - 1]->sym, &last, NULL) && last != 1)
        chk_fail(c, aloc(a, 2), "the last stride of a tensor descriptor must be 1, got %lld", (long long)last);
    if (given(a, 4) && (a->v[4].kind != FE_V_STR || strcmp(a->v[4].str, "zero")))
        chk_fail(c, aloc(a, 4), "tensor descriptors in loomc kernels pad with zeros only (padding_option=\"zero\")");
    tir_value *ops[1 + 2 * TIR_MAX_RANK];
    ops[0] = base;
    for (int i = 0; i < r; i++) {
        ops[1 + i] = sh[i];
        ops[1 + r + i] = st[i];
    }
    tir_type t = tir_t_desc(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_DESC, call->loc, ops, 1 + 2 * r, &t, 1);
    op->rank = r;
    return cv_val(op->results[0]);
}

static cval desc_access(chk *c, const fe_expr *call, const cargs *a, int desc_i, int offs_i, int val_i)
{
    tir_value *d = chk_value_of_kind(c, a, desc_i, TIR_DESC, "the descriptor");
    tir_value *ops[2 + TIR_MAX_RANK];
    bool store = val_i >= 0;
    int first = store ? 2 : 1;
    int r = chk_int_tuple(c, &a->v[offs_i], aloc(a, offs_i), "the offsets", ops + first);
    if (r != d->type.rank)
        chk_fail(c, aloc(a, offs_i), "a %d-D tensor descriptor needs %d offsets, got %d", d->type.rank, d->type.rank,
                 r);
    ops[0] = d;
    if (!store) {
        tir_type t = tir_t_tile(c->a, d->type.elem, r, d->type.shape);
        tir_op *op = tir_op_build(&c->b, TIR_DESC_LOAD, call->loc, ops, 1 + r, &t, 1);
        return cv_val(op->results[0]);
    }
    ops[1] = chk_store_value(c, &a->v[val_i], aloc(a, val_i), &d->type, "the stored value");
    tir_op_build(&c->b, TIR_DESC_STORE, call->loc, ops, 2 + r, NULL, 0);
    c->fwd_ptr = NULL;
    return cv_none();
}

/* tl.load_tensor_descriptor(desc, offsets) and desc.load(offsets) */
static cval h_desc_load(chk *c, const fe_expr *call, const cargs *a) { return desc_access(c, call, a, 0, 1, -1); }

/* tl.store_tensor_descriptor(desc, offsets, value) and desc.store(offsets, value) */
static cval h_desc_store(chk *c, const fe_expr *call, const cargs *a) { return desc_access(c, call, a, 0, 1, 2); }

static tir_value *dot_operand(chk *c, const cargs *a, int i)
{
    const cval *v = &a->v[i];
    if (!is_tile_val(v) || v->v->type.rank != 2)
        chk_fail(c, aloc(a, i), "tl.dot needs 2-D operands, got %s", chk_describe(c, v));
    if (v->v->type.elem == TIR_I1)
        chk_fail(c, aloc(a, i), "tl.dot does not multiply boolean tiles");
    return v->v;
}

static cval h_dot(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = dot_operand(c, a, 0), *y = dot_operand(c, a, 1);
    if (x->type.shape[1] != y->type.shape[0])
        chk_fail(c, call->loc, "tl.dot inner dimensions differ: %s x %s (the columns of the first operand must be the "
                               "rows of the second)",
                 tshape(c, &x->type), tshape(c, &y->type));
    if (x->type.elem != y->type.elem)
        chk_fail(c, call->loc, "tl.dot operands have different element types (%s and %s); convert one with .to()",
                 tir_elem_name(x->type.elem), tir_elem_name(y->type.elem));
    bool fl = tir_elem_is_float(x->type.elem);
    if (fl != tir_elem_is_float(y->type.elem))
        LM_BUG("dot operand classes differ");
    tir_elem re = fl ? TIR_F32 : TIR_I32;
    bool explicit_out = given(a, 6);
    if (explicit_out)
        re = chk_arg_dtype(c, a, 6);
    if (fl != tir_elem_is_float(re))
        chk_fail(c, aloc(a, 6), "out_dtype %s does not suit %s operands", tir_elem_name(re),
                 tir_elem_name(x->type.elem));
    const sym_expr *rs[2] = {x->type.shape[0], y->type.shape[1]};
    tir_value *acc = NULL;
    if (given(a, 2)) {
        const cval *av = &a->v[2];
        if (!is_tile_val(av) || av->v->type.rank != 2 || av->v->type.shape[0] != rs[0] || av->v->type.shape[1] != rs[1])
            chk_fail(c, aloc(a, 2), "the accumulator of tl.dot must be a tile of shape %s, got %s",
                     chk_shape_str(c, 2, rs),
                     chk_describe(c, av));
        acc = av->v;
        if (explicit_out && acc->type.elem != re)
            chk_fail(c, aloc(a, 2), "the accumulator is %s but out_dtype is %s", tir_elem_name(acc->type.elem),
                     tir_elem_name(re));
        re = acc->type.elem;
    }
    const char *prec = NULL;
    if (given(a, 3)) {
        if (a->v[3].kind != FE_V_STR)
            chk_fail(c, aloc(a, 3), "input_precision must be a string such as \"tf32\" or \"ieee\"");
        static const char *const ok[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", "bf16"};
        for (size_t i = 0; i < LM_COUNT(ok) && !prec; i++)
            if (!strcmp(ok[i], a->v[3].str))
                prec = ok[i];
        if (!prec)
            chk_fail(c, aloc(a, 3), "unknown input_precision \"%s\"", a->v[3].str);
    }
    if (given(a, 4)) {
        if (prec)
            chk_fail(c, aloc(a, 4), "give tl.dot either input_precision= or allow_tf32=, not both");
        prec = chk_arg_bool(c, a, 4, true) ? "tf32" : "ieee";
    }
    if (given(a, 5))
        chk_arg_const(c, a, 5, "max_num_imprecise_acc");
    tir_value *v = chk_build1(c, TIR_DOT, call->loc, chk_tile_t(c, re, 2, rs), x, y, acc);
    v->def->precision = prec;
    return cv_val(v);
}

static tir_value *tile_arg_ranked(chk *c, const cargs *a, int i, const char *fname)
{
    tir_value *x = chk_arg_tile(c, a, i, "the input");
    if (x->type.rank == 0)
        chk_fail(c, aloc(a, i), "%s needs a tile, got %s", fname, chk_describe(c, &a->v[i]));
    return x;
}

/* Permutation dims for trans/permute: empty, (1, 0) or (0, 1). Returns
 * whether the dims swap. */
static bool perm_dims(chk *c, const cval *v, lm_loc loc, const char *fname)
{
    if (v->kind != FE_V_TUPLE || v->n != 2)
        chk_fail(c, loc, "%s: loomc supports 2-D permutations only, given as (1, 0)", fname);
    int64_t d0 = chk_const_int_of(c, &v->items[0], loc, "a dimension"), d1 = chk_const_int_of(c, &v->items[1], loc, "a dimension");
    if (d0 == 1 && d1 == 0)
        return true;
    if (d0 == 0 && d1 == 1)
        return false;
    chk_fail(c, loc, "%s: (%lld, %lld) is not a permutation of the two dimensions", fname, (long long)d0,
             (long long)d1);
}

static cval h_trans(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = tile_arg_ranked(c, a, 0, a->fname);
    if (given(a, 1) && (a->v[1].kind != FE_V_TUPLE || a->v[1].n > 0)) {
        if (x->type.rank != 2)
            chk_fail(c, aloc(a, 0), "%s needs a 2-D tile, got %s", a->fname, chk_describe(c, &a->v[0]));
        if (!perm_dims(c, &a->v[1], aloc(a, 1), a->fname))
            return cv_val(x);
    }
    return cv_val(chk_transpose(c, x, call->loc, a->fname));
}

static cval h_permute(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = tile_arg_ranked(c, a, 0, a->fname);
    if (x->type.rank != 2)
        chk_fail(c, aloc(a, 0), "%s needs a 2-D tile, got %s", a->fname, chk_describe(c, &a->v[0]));
    if (!perm_dims(c, &a->v[1], aloc(a, 1), a->fname))
        return cv_val(x);
    return cv_val(chk_transpose(c, x, call->loc, a->fname));
}

static cval h_reshape(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = tile_arg_ranked(c, a, 0, a->fname);
    const sym_expr *dims[TIR_MAX_RANK];
    int r = chk_parse_shape(c, &a->v[1], aloc(a, 1), "the new shape", dims);
    /* only dimensions of size 1 may come or go: anything else would move
       elements between the rows and columns a block is stored in */
    int i = 0, j = 0;
    bool ok = true;
    while (ok) {
        while (i < x->type.rank && is_one(x->type.shape[i]))
            i++;
        while (j < r && is_one(dims[j]))
            j++;
        if (i == x->type.rank || j == r) {
            ok = i == x->type.rank && j == r;
            break;
        }
        ok = x->type.shape[i++] == dims[j++];
    }
    if (!ok)
        chk_fail(c, call->loc, "%s from %s to %s is not supported: loomc reshapes only by adding or removing "
                               "dimensions of size 1",
                 a->fname, tshape(c, &x->type), chk_shape_str(c, r, dims));
    if (r == x->type.rank && tir_shape_eq(&x->type, &(tir_type){TIR_TILE, x->type.elem, r, dims}))
        return cv_val(x);
    return cv_val(chk_build1(c, TIR_VIEW, call->loc, chk_tile_t(c, x->type.elem, r, dims), x, NULL, NULL));
}

static cval h_expand_dims(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = chk_arg_tile(c, a, 0, "the input");
    const cval *ax = &a->v[1];
    if (ax->kind == FE_V_TUPLE) {
        for (int i = 0; i < ax->n; i++)
            x = chk_expand_dims(c, x, chk_const_int_of(c, &ax->items[i], aloc(a, 1), "an axis"), aloc(a, 1));
        return cv_val(x);
    }
    return cv_val(chk_expand_dims(c, x, chk_arg_const(c, a, 1, "the axis"), aloc(a, 1)));
}

static cval h_broadcast_to(chk *c, const fe_expr *call, const cargs *a)
{
    tir_value *x = chk_arg_tile(c, a, 0, "the input");
    const sym_expr *dims[TIR_MAX_RANK];
    int r = chk_parse_shape(c, &a->v[1], aloc(a, 1), "the shape", dims);
    tir_type want = chk_tile_t(c, x->type.elem, r, dims);
    int rr = 0;
    const sym_expr **sh = chk_broadcast_shape(c, &x->type, &want, &rr);
    bool ok = sh && rr == r;
    for (int i = 0; ok && i < r; i++)
        ok = sh[i] == dims[i];
    if (!ok)
        chk_fail(c, call->loc, "cannot broadcast a tile of shape %s to %s", tshape(c, &x->type),
                 chk_shape_str(c, r, dims));
    return cv_val(chk_broadcast_to(c, x, r, dims, call->loc));
}

static cval h_where(chk *c, const fe_expr *call, const cargs *a)
{
    bool t;
    if (!is_tile_val(&a->v[0]) && chk_truth_known(c, &a->v[0], &t) && !is_tile_val(&a->v[1]) && !is_tile_val(&a->v[2]))
        return t ? a->v[1] : a->v[2];
    tir_value *cond = chk_to_bool(c, chk_arg_tile(c, a, 0, "the condition"), aloc(a, 0));
    const cval *x = &a->v[1], *y = &a->v[2];
    for (int k = 1; k <= 2; k++)
        if (!is_number(&a->v[k]) && !is_tile_val(&a->v[k]))
            chk_fail(c, aloc(a, k), "the values of tl.where must be tiles or numbers, got %s",
                     chk_describe(c, &a->v[k]));
    tir_elem e;
    if (x->kind == FE_V_TIR && y->kind == FE_V_TIR)
        e = chk_promote(x->v->type.elem, y->v->type.elem);
    else if (x->kind == FE_V_TIR)
        e = chk_weak_elem(y, x->v->type.elem);
    else if (y->kind == FE_V_TIR)
        e = chk_weak_elem(x, y->v->type.elem);
    else
        e = chk_promote(chk_natural_elem(x), chk_natural_elem(y));
    tir_value *vx = x->kind == FE_V_TIR ? chk_cast_to(c, x->v, e, aloc(a, 1)) : chk_materialise(c, x, e, aloc(a, 1));
    tir_value *vy = y->kind == FE_V_TIR ? chk_cast_to(c, y->v, e, aloc(a, 2)) : chk_materialise(c, y, e, aloc(a, 2));
    int r1 = 0, r2 = 0;
    const sym_expr **s1 = chk_broadcast_shape(c, &vx->type, &vy->type, &r1);
    tir_type t1 = s1 ? chk_tile_t(c, e, r1, s1) : vx->type;
    const sym_expr **s2 = s1 ? chk_broadcast_shape(c, &cond->type, &t1, &r2) : NULL;
    if (!s2)
        chk_fail(c, call->loc, "shape mismatch in tl.where: condition %s, values %s and %s cannot be broadcast to one "
                               "shape",
                 tshape(c, &cond->type), tshape(c, &vx->type), tshape(c, &vy->type));
    cond = chk_broadcast_to(c, cond, r2, s2, call->loc);
    vx = chk_broadcast_to(c, vx, r2, s2, call->loc);
    vy = chk_broadcast_to(c, vy, r2, s2, call->loc);
    return cv_val(chk_build1(c, TIR_WHERE, call->loc, vx->type, cond, vx, vy));
}

static cval h_maxmin_elem(chk *c, const fe_expr *call, const cargs *a, bool is_max)
{
    for (int k = 0; k < 2; k++)
        if (!is_number(&a->v[k]) && !is_tile_val(&a->v[k]))
            chk_fail(c, aloc(a, k), "%s needs tiles or numbers, got %s", a->fname, chk_describe(c, &a->v[k]));
    return chk_minmax2(c, is_max, a->v[0], a->v[1], call->loc);
}

static cval h_maximum(chk *c, const fe_expr *call, const cargs *a)
{
    return h_maxmin_elem(c, call, a, true);
}

static cval h_minimum(chk *c, const fe_expr *call, const cargs *a)
{
    return h_maxmin_elem(c, call, a, false);
}

static cval unary_math(chk *c, const fe_expr *call, const cargs *a, tir_opcode code)
{
    tir_value *x = chk_arg_tile(c, a, 0, "the operand");
    if (tir_op_has(code, TIR_P_FLOATONLY) && !tir_elem_is_float(x->type.elem))
        chk_fail(c, aloc(a, 0), "%s needs a floating-point operand, got %s elements; convert it with .to(tl.float32)",
                 a->fname, tir_elem_name(x->type.elem));
    if (code == TIR_ABS && x->type.elem == TIR_I1)
        return cv_val(x);
    return cv_val(chk_build1(c, code, call->loc, x->type, x, NULL, NULL));
}

#define UNARY(name, code)                                                 \
    static cval h_##name(chk *c, const fe_expr *call, const cargs *a) \
    {                                                                 \
        return unary_math(c, call, a, code);                          \
    }
UNARY(exp, TIR_EXP)
UNARY(exp2, TIR_EXP2)
UNARY(log, TIR_LOG)
UNARY(log2, TIR_LOG2)
UNARY(sqrt, TIR_SQRT)
UNARY(rsqrt, TIR_RSQRT)
UNARY(sigmoid, TIR_SIGMOID)
UNARY(abs, TIR_ABS)
#undef UNARY

static tir_value *reduce1(chk *c, tir_value *x, tir_opcode code, int axis, bool keep, lm_loc loc)
{
    const tir_type *in = &x->type;
    const sym_expr *s[TIR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < in->rank; i++) {
        if (i != axis)
            s[r++] = in->shape[i];
        else if (keep)
            s[r++] = sym_const(c->s, 1);
    }
    tir_elem e = in->elem;
    if (code == TIR_REDUCE_SUM && e == TIR_I1)
        e = TIR_I32;
    tir_value *v = chk_build1(c, code, loc, chk_tile_t(c, e, r, s), x, NULL, NULL);
    v->def->ival = axis;
    v->def->keep_dims = keep;
    return v;
}

static cval reduction(chk *c, const fe_expr *call, const cargs *a, tir_opcode code)
{
    int keep_i = code == TIR_REDUCE_SUM ? 2 : 4;
    tir_value *x = tile_arg_ranked(c, a, 0, a->fname);
    if (code != TIR_REDUCE_SUM && chk_arg_bool(c, a, 2, false))
        chk_fail(c, aloc(a, 2), "%s(..., return_indices=True) is not supported in loomc kernels", a->fname);
    bool keep = chk_arg_bool(c, a, keep_i, false);
    if (code == TIR_REDUCE_SUM && given(a, 3))
        x = chk_cast_to(c, x, chk_arg_dtype(c, a, 3), aloc(a, 3));
    if (!given(a, 1)) {
        /* all axes */
        int r = x->type.rank;
        for (int i = 0; i < r; i++)
            x = reduce1(c, x, code, keep ? i : 0, keep, call->loc);
        return cv_val(x);
    }
    int64_t ax = chk_arg_const(c, a, 1, "the axis");
    int r = x->type.rank;
    if (ax < 0)
        ax += r;
    if (ax < 0 || ax >= r)
        chk_fail(c, aloc(a, 1), "%s: axis %lld is out of range for %s", a->fname,
                 (long long)chk_arg_const(c, a, 1, "the axis"), chk_describe(c, &a->v[0]));
    return cv_val(reduce1(c, x, code, (int)ax, keep, call->loc));
}

static cval h_max(chk *c, const fe_expr *call, const cargs *a)
{
    return reduction(c, call, a, TIR_REDUCE_MAX);
}
static cval h_min(chk *c, const fe_expr *call, const cargs *a)
{
    return reduction(c, call, a, TIR_REDUCE_MIN);
}
static cval h_sum(chk *c, const fe_expr *call, const cargs *a)
{
    return reduction(c, call, a, TIR_REDUCE_SUM);
}

static cval h_cdiv(chk *c, const fe_expr *call, const cargs *a)
{
    const cval *x = &a->v[0], *y = &a->v[1];
    if (x->kind == FE_V_INT && y->kind == FE_V_INT) {
        int64_t z;
        if (sym_is_const(y->i, &z) && z == 0)
            chk_fail(c, aloc(a, 1), "division by zero in %s", a->fname);
        return cv_int(sym_cdiv(c->s, x->i, y->i));
    }
    tir_value *vx = chk_int_scalar(c, x, aloc(a, 0), lm_arena_printf(c->a, "the dividend of %s", a->fname));
    tir_value *vy = chk_int_scalar(c, y, aloc(a, 1), lm_arena_printf(c->a, "the divisor of %s", a->fname));
    tir_elem e = chk_promote(vx->type.elem, vy->type.elem);
    vx = chk_cast_to(c, vx, e, call->loc);
    vy = chk_cast_to(c, vy, e, call->loc);
    return cv_val(chk_build1(c, TIR_CDIV, call->loc, tir_t_scalar(e), vx, vy, NULL));
}

/* The text of a simple condition, for explanations ("BLOCK_N <= HEAD_DIM"). */
static void cond_text(lm_buf *b, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_NAME: lm_buf_puts(b, e->name); return;
    case FE_E_INT: lm_buf_printf(b, "%lld", (long long)e->ival); return;
    case FE_E_ATTR:
        cond_text(b, e->a);
        lm_buf_printf(b, ".%s", e->name);
        return;
    case FE_E_BINOP:
    case FE_E_COMPARE:
        cond_text(b, e->a);
        lm_buf_printf(b, " %s ", e->op);
        cond_text(b, e->b);
        return;
    case FE_E_CALL:
        cond_text(b, e->a);
        lm_buf_putc(b, '(');
        for (int i = 0; i < e->nitems; i++) {
            if (i)
                lm_buf_puts(b, ", ");
            cond_text(b, e->items[i]);
        }
        lm_buf_putc(b, ')');
        return;
    default: lm_buf_puts(b, "..."); return;
    }
}

static cval h_static_assert(chk *c, const fe_expr *call, const cargs *a)
{
    bool t;
    if (!chk_truth_known(c, &a->v[0], &t)) {
        const char *dep = a->v[0].kind == FE_V_INT ? chk_ct_unbound(c, a->v[0].i) : a->v[0].free_dep;
        if (dep && a->v[0].cons) {
            /* a bound on a free constexpr: the solver keeps to it */
            tir_func *f = c->f;
            tir_assume *n = LM_NEWN(c->a, tir_assume, (size_t)f->nassumes + 1);
            if (f->nassumes)
                memcpy(n, f->assumes, sizeof *n * (size_t)f->nassumes);
            lm_buf tb = {0};
            cond_text(&tb, call->nitems ? call->items[0] : call);
            n[f->nassumes++] = (tir_assume){a->v[0].cons, lm_arena_strdup(c->a, lm_buf_str(&tb)), aloc(a, 0)};
            lm_buf_free(&tb);
            f->assumes = n;
            return cv_none();
        }
        if (dep)
            chk_fail(c, aloc(a, 0), "the condition of %s depends on free constexpr '%s', which the solver chooses; "
                                     "pin it with --const %s=VALUE",
                     a->fname, dep, dep);
        chk_fail(c, aloc(a, 0), "the condition of %s must be known at compile time", a->fname);
    }
    if (!t) {
        const char *msg = given(a, 1) && a->v[1].kind == FE_V_STR ? a->v[1].str : "";
        chk_fail(c, call->loc, "static assertion failed%s%s", msg[0] ? ": " : "", msg);
    }
    return cv_none();
}

static cval h_constexpr(chk *c, const fe_expr *call, const cargs *a)
{
    if (a->v[0].kind == FE_V_TIR)
        chk_fail(c, aloc(a, 0), "tl.constexpr needs a compile-time value, got %s", chk_describe(c, &a->v[0]));
    return a->v[0];
}

static cval h_to(chk *c, const fe_expr *call, const cargs *a)
{
    if (chk_arg_bool(c, a, 3, false))
        chk_fail(c, aloc(a, 3), "bitcasts are not supported in loomc kernels");
    if (given(a, 2) && (a->v[2].kind != FE_V_STR || strcmp(a->v[2].str, "rtne")))
        chk_fail(c, aloc(a, 2), "only round-to-nearest-even (\"rtne\") conversions are supported");
    return chk_convert(c, &a->v[0], aloc(a, 0), chk_arg_dtype(c, a, 1), call->loc);
}

static cval h_hint(chk *c, const fe_expr *call, const cargs *a)
{
    /* multiple_of / max_contiguous / max_constancy: facts about pointer
       tiles, which loomc kernels do not have; the value passes through */
    return a->v[0];
}

static cval h_fma(chk *c, const fe_expr *call, const cargs *a)
{
    cval p = chk_binop(c, "*", a->v[0], a->v[1], call->loc);
    return chk_binop(c, "+", p, a->v[2], call->loc);
}

/* A function of the table: its parameters and the first nreq required. */
#define FN(name, h, nreq, ...) {name, h, ARGS(__VA_ARGS__), nreq, NULL}

static const chk_builtin tl_fns[] = {
    FN("program_id", h_program_id, 1, "axis"),
    FN("num_programs", h_num_programs, 1, "axis"),
    FN("arange", h_arange, 2, "start", "end"),
    FN("zeros", h_zeros, 2, "shape", "dtype"),
    FN("zeros_like", h_zeros_like, 1, "input"),
    FN("full", h_full, 3, "shape", "value", "dtype"),
    FN("make_block_ptr", h_make_block_ptr, 6, "base", "shape", "strides", "offsets", "block_shape", "order"),
    FN("advance", h_advance, 2, "base", "offsets"),
    FN("load", h_load, 1, "pointer", "mask", "other", "boundary_check", "padding_option", "cache_modifier",
       "eviction_policy", "volatile"),
    FN("store", h_store, 2, "pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"),
    FN("make_tensor_descriptor", h_make_desc, 4, "base", "shape", "strides", "block_shape", "padding_option"),
    /* its name before Triton 3.4 */
    FN("_experimental_make_tensor_descriptor", h_make_desc, 4, "base", "shape", "strides", "block_shape",
       "padding_option"),
    FN("load_tensor_descriptor", h_desc_load, 2, "desc", "offsets"),
    FN("store_tensor_descriptor", h_desc_store, 3, "desc", "offsets", "value"),
    FN("dot", h_dot, 2, "input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc",
       "out_dtype"),
    FN("trans", h_trans, 1, "input", "*dims"),
    FN("permute", h_permute, 2, "input", "*dims"),
    FN("reshape", h_reshape, 2, "input", "*shape", "can_reorder"),
    FN("view", h_reshape, 2, "input", "*shape", "can_reorder"),
    FN("expand_dims", h_expand_dims, 2, "input", "axis"),
    FN("broadcast_to", h_broadcast_to, 2, "input", "*shape"),
    FN("where", h_where, 3, "condition", "x", "y"),
    FN("maximum", h_maximum, 2, "x", "y", "propagate_nan"),
    FN("minimum", h_minimum, 2, "x", "y", "propagate_nan"),
    FN("exp", h_exp, 1, "x"),
    FN("exp2", h_exp2, 1, "x"),
    FN("log", h_log, 1, "x"),
    FN("log2", h_log2, 1, "x"),
    FN("sqrt", h_sqrt, 1, "x"),
    FN("rsqrt", h_rsqrt, 1, "x"),
    FN("sigmoid", h_sigmoid, 1, "x"),
    FN("abs", h_abs, 1, "x"),
    FN("max", h_max, 1, "input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"),
    FN("min", h_min, 1, "input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"),
    FN("sum", h_sum, 1, "input", "axis", "keep_dims", "dtype"),
    FN("cdiv", h_cdiv, 2, "x", "div"),
    FN("static_assert", h_static_assert, 1, "cond", "msg"),
    FN("constexpr", h_constexpr, 1, "value"),
    FN("cast", h_to, 2, "input", "dtype", "fp_downcast_rounding", "bitcast"),
    FN("multiple_of", h_hint, 2, "input", "values"),
    FN("max_contiguous", h_hint, 2, "input", "values"),
    FN("max_constancy", h_hint, 2, "input", "values"),
    FN("fma", h_fma, 3, "x", "y", "z"),
    {"range", NULL, NULL, 0, chk_refuse_range},
    {"static_range", NULL, NULL, 0, chk_refuse_range},
};

/* The methods of tensor descriptors; self is the descriptor. */
static const chk_builtin desc_methods[] = {
    FN("load", h_desc_load, 2, "self", "offsets"),
    FN("store", h_desc_store, 3, "self", "offsets", "value"),
};
#undef FN

/* Triton functions loomc knows about but does not compile; they get a
 * "not supported" rather than an "unknown function". */
static const char *const tl_unsupported[] = {
    "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg",
    "atomic_xor", "device_print", "device_assert", "static_print", "argmax", "argmin", "cumsum", "cumprod",
    "sort", "histogram", "associative_scan", "reduce", "rand", "randn", "randint", "randint4x", "rand4x",
    "inline_asm_elementwise", "debug_barrier", "join", "split", "interleave", "dot_scaled", "gather", "flip",
    "ravel", "xor_sum", "umulhi", "sin", "cos", "floor", "ceil", "erf", "fdiv", "div_rn", "sqrt_rn", "log1p",
    "clamp", "softmax", "swizzle2d", "map_elementwise", "full_like", "topk", "assume",
    "make_tensor_descriptor_from_tensor", "cat", "split_dim", "tensor", "pointer_type", "block_type",
};

/* Methods of tiles that are the tl.* function of the same name (x.to() is tl.cast). */
static const char *const tile_methods[] = {"to", "trans", "permute", "reshape", "view", "expand_dims",
                                           "broadcast_to", "sum", "max", "min", "exp", "exp2", "log", "log2",
                                           "sqrt", "rsqrt", "sigmoid", "abs", "cast"};

static const chk_builtin *find_tl(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(tl_fns); i++)
        if (!strcmp(tl_fns[i].name, name))
            return &tl_fns[i];
    return NULL;
}

/* ---- how calls reach them ------------------------------------------------ */

/* libdevice's functions that are tl functions: tl.extra.cuda.libdevice.rsqrt
 * (and the older tl.libdevice, tl.extra.libdevice) is tl.rsqrt. Others keep
 * their dotted name, which is refused below. */
static const char *libdevice_name(const char *name)
{
    static const char *const mods[] = {"extra.cuda.libdevice.", "extra.hip.libdevice.", "extra.libdevice.",
                                       "libdevice."};
    static const char *const same[][2] = {
        {"rsqrt", "rsqrt"}, {"sqrt", "sqrt"}, {"exp", "exp"}, {"exp2", "exp2"}, {"log", "log"},
        {"log2", "log2"}, {"fabs", "abs"}, {"abs", "abs"}, {"fmax", "maximum"}, {"fmin", "minimum"},
        {"fast_expf", "exp"}, {"fast_logf", "log"}, {"sqrt_rn", "sqrt"}, {"rsqrtf", "rsqrt"},
    };
    for (size_t m = 0; m < LM_COUNT(mods); m++) {
        size_t n = strlen(mods[m]);
        if (strncmp(name, mods[m], n))
            continue;
        for (size_t i = 0; i < LM_COUNT(same); i++)
            if (!strcmp(name + n, same[i][0]))
                return same[i][1];
    }
    return name;
}

const chk_builtin *chk_builtin_qual(chk *c, const fe_expr *e, const char *q, const char **fname)
{
    static const char tl[] = "triton.language.";
    const char *name = NULL;
    if (!strncmp(q, tl, sizeof tl - 1)) {
        name = q + sizeof tl - 1;
        if (!strncmp(name, "math.", 5) && !strchr(name + 5, '.'))
            name += 5;
        else
            name = libdevice_name(name);
    } else if (!strcmp(q, "triton.cdiv")) {
        name = "cdiv";
    } else if (!strncmp(q, "math.", 5)) {
        *fname = q;
        return chk_builtin_math(c, e, q);
    } else if (!strcmp(q, "triton.jit") || !strncmp(q, "triton.", 7)) {
        chk_fail(c, e->loc, "%s is not supported inside loomc kernels", q);
    } else {
        return NULL;
    }
    *fname = pretty(c, q);
    if (strchr(name, '.'))
        chk_fail(c, e->loc, "%s is not supported in loomc kernels", *fname);
    const chk_builtin *b = find_tl(name);
    if (b)
        return b;
    for (size_t i = 0; i < LM_COUNT(tl_unsupported); i++)
        if (!strcmp(tl_unsupported[i], name))
            chk_fail(c, e->loc, "%s is not supported in loomc kernels", *fname);
    tir_elem el;
    if (fe_dtype(q, &el))
        chk_fail(c, e->loc, "%s is a dtype, not a function; convert values with x.to(%s)", *fname, *fname);
    chk_fail(c, e->loc, "unknown function %s", *fname);
}

const chk_builtin *chk_builtin_method(chk *c, const fe_expr *e, const cval *obj, const char **fname)
{
    const fe_expr *f = e->a;
    const char *n = f->name;
    const char *oname = f->a->kind == FE_E_NAME ? f->a->name : "x";
    *fname = lm_arena_printf(c->a, "%s.%s", oname, n);
    if (obj->kind == FE_V_TIR && obj->v->type.kind == TIR_DESC) {
        for (size_t i = 0; i < LM_COUNT(desc_methods); i++)
            if (!strcmp(desc_methods[i].name, n))
                return &desc_methods[i];
    }
    if (is_tile_val(obj)) {
        for (size_t i = 0; i < LM_COUNT(tile_methods); i++)
            if (!strcmp(tile_methods[i], n))
                return find_tl(!strcmp(n, "to") ? "cast" : n);
    }
    if (obj->kind == FE_V_TIR && obj->v->type.kind == TIR_BPTR && (!strcmp(n, "load") || !strcmp(n, "store")))
        chk_fail(c, f->loc, "block pointers have no methods; use tl.%s(%s, ...)", n, oname);
    chk_fail(c, f->loc, "method '%s' of %s is not supported in loomc kernels", n, chk_describe(c, obj));
}
