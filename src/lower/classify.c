/* classify.c - what every value of the kernel is (constant, tile, index or
 * mask tile), in program order, and its uses and lifetimes. */
#include "lower/lower_int.h"

#include <math.h>

/* ======================================================================
 * Classification of values (program order)
 * ==================================================================== */

/* The CB format of the compute kernel's f32 temporaries: bf16 when the
 * schedule keeps its intermediates in 16-bit CBs (TTNN's SDPA), or when Dst
 * is 16-bit and the summary keeps the kernel's values in bf16 (they have no
 * more bits to keep: sched_kernel.temps_16b); fp32 otherwise. */
arch_format lw_interm_format(const lw *L)
{
    return L->s->interm_16b || (L->k->temps_16b && !L->s->fp32_acc) ? ARCH_BF16 : ARCH_FP32;
}

/* The CB format of f32 pages that carry a value from trip to trip or that
 * the packer accumulates into: fp32 but for TTNN's 16-bit intermediates. */
arch_format lw_accum_format(const lw *L) { return L->s->interm_16b ? ARCH_BF16 : ARCH_FP32; }

/* The CB format of float tile value x whose type's format is f: an f32
 * value the compute engine makes takes the format of its buffer in the
 * summary (bf16 where Dst is 16-bit and it is not carried). */
static arch_format value_format(const lw *L, const tir_value *x, arch_format f)
{
    if (f != ARCH_FP32)
        return f;
    if (L->s->interm_16b)
        return ARCH_BF16;
    if (L->s->fp32_acc)
        return f;
    for (int b = 0; b < L->k->nbufs; b++)
        if (L->k->bufs[b].kind == SCHED_BUF_TEMP && L->k->bufs[b].value == x)
            return L->k->bufs[b].format;
    return f;
}

static void set_tile(lw *L, const tir_value *x, int root, lm_loc loc)
{
    vinfo *v = V(L, x);
    v->kind = VK_TILE;
    v->root = root;
    v->st = -1;
    if (!lw_shape2d(L, x, &v->er, &v->ec, &v->rank, &v->ser, &v->sec, loc))
        return;
    v->tr = lm_cdiv(v->er, LW_TILE);
    v->tc = lm_cdiv(v->ec, LW_TILE);
    if (tir_elem_is_float(x->type.elem) && lw_elem_format(L, x->type.elem, &v->fmt, loc))
        v->fmt = value_format(L, x, v->fmt);
}

static bool is_tile_value(const tir_value *x)
{
    return x->type.kind == TIR_TILE && x->type.rank >= 0 && tir_elem_is_float(x->type.elem);
}

/* Integer tiles and masks: map the coefficients of a value of rank `from`
 * and 2-D shape (fr, fc) onto a value of rank `to` and shape (tr_, tc_). */
static void redim(int64_t c[2], int from, int64_t fr, int64_t fc, int to, int64_t tr_, int64_t tc_)
{
    (void)fc;
    if (from == to)
        return;
    if (from <= 1 && to == 2) {
        /* a vector becomes a column ([N, 1]) or a row ([1, N], or numpy's
           leading dimension of a broadcast) */
        int64_t ci = c[0];
        if (from == 1 && tr_ == fr && (tc_ == 1 || fr != 1) && !(tr_ == 1 && tc_ != 1))
            c[0] = ci, c[1] = 0;
        else
            c[0] = 0, c[1] = ci;
        return;
    }
    if (from == 2 && to <= 1) {
        c[0] = c[0] ? c[0] : c[1];
        c[1] = 0;
    }
}

static bool is_alias_op(tir_opcode c);

static bool host_float(lw *L, const tir_value *x, double *out)
{
    const vinfo *v = V(L, x);
    if (v->kind == VK_CONST) {
        *out = v->c;
        return true;
    }
    return false;
}

static void classify_index(lw *L, const tir_op *op)
{
    const tir_value *r = op->results[0];
    vinfo *v = V(L, r);
    int64_t er, ec;
    int rank;
    const sym_expr *ser, *sec;
    if (!lw_shape2d(L, r, &er, &ec, &rank, &ser, &sec, op->loc))
        return;
    v->rank = rank;
    v->er = er;
    v->ec = ec;
    switch (op->code) {
    case TIR_ARANGE:
        /* its index is i, or j along a row */
        v->kind = VK_INDEX;
        v->ic[0] = L->row[r->uid] ? 0 : 1;
        v->ic[1] = L->row[r->uid] ? 1 : 0;
        v->ik = op->sym ? op->sym : sym_const(L->sc, 0);
        return;
    case TIR_SPLAT: {
        const tir_value *x = op->opnds[0];
        if (V(L, x)->kind == VK_INDEX || V(L, x)->kind == VK_MASK) {
            *v = *V(L, x);
            v->rank = rank, v->er = er, v->ec = ec;
            return;
        }
        if (!x->sym) {
            lw_fail(L, op->loc, "an integer tile built from a value with no symbolic form");
            return;
        }
        v->kind = VK_INDEX;
        v->ic[0] = v->ic[1] = 0;
        v->ik = x->sym;
        return;
    }
    case TIR_EXPAND_DIMS:
    case TIR_BROADCAST:
    case TIR_VIEW: {
        const vinfo *x = V(L, op->opnds[0]);
        if (x->kind != VK_INDEX && x->kind != VK_MASK) {
            lw_fail(L, op->loc, "an integer or boolean tile the lowering cannot express as index arithmetic");
            return;
        }
        *v = *x;
        v->rank = rank, v->er = er, v->ec = ec;
        if (op->code == TIR_EXPAND_DIMS && x->rank == 1 && rank == 2) {
            int64_t cc[2] = {0, 0};
            if (v->kind == VK_INDEX) {
                cc[op->ival == 0 ? 1 : 0] = x->ic[0];
                v->ic[0] = cc[0], v->ic[1] = cc[1];
            } else {
                for (int i = 0; i < v->np; i++) {
                    int64_t c0 = x->p[i].c[0];
                    v->p[i].c[0] = op->ival == 0 ? 0 : c0;
                    v->p[i].c[1] = op->ival == 0 ? c0 : 0;
                }
            }
            return;
        }
        if (v->kind == VK_INDEX)
            redim(v->ic, x->rank, x->er, x->ec, rank, er, ec);
        else
            for (int i = 0; i < v->np; i++)
                redim(v->p[i].c, x->rank, x->er, x->ec, rank, er, ec);
        return;
    }
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_INDEX || b->kind != VK_INDEX) {
            lw_fail(L, op->loc, "integer tile arithmetic on values the lowering cannot follow");
            return;
        }
        v->kind = VK_INDEX;
        if (op->code == TIR_MUL) {
            int64_t ka;
            const vinfo *sc = NULL, *ot = NULL;
            if (!b->ic[0] && !b->ic[1] && sym_is_const(sym_subst(L->sc, b->ik, &L->s->values), &ka))
                sc = b, ot = a;
            else if (!a->ic[0] && !a->ic[1] && sym_is_const(sym_subst(L->sc, a->ik, &L->s->values), &ka))
                sc = a, ot = b;
            if (!sc) {
                lw_fail(L, op->loc, "a product of two index tiles is not affine");
                return;
            }
            v->ic[0] = ot->ic[0] * ka;
            v->ic[1] = ot->ic[1] * ka;
            v->ik = sym_mul(L->sc, ot->ik, sym_const(L->sc, ka));
            return;
        }
        int sg = op->code == TIR_SUB ? -1 : 1;
        v->ic[0] = a->ic[0] + sg * b->ic[0];
        v->ic[1] = a->ic[1] + sg * b->ic[1];
        v->ik = sg > 0 ? sym_add(L->sc, a->ik, b->ik) : sym_sub(L->sc, a->ik, b->ik);
        return;
    }
    case TIR_CMP_LT:
    case TIR_CMP_LE:
    case TIR_CMP_GT:
    case TIR_CMP_GE: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_INDEX || b->kind != VK_INDEX) {
            lw_fail(L, op->loc, "a comparison of data values used as a mask (only masks built from tl.arange "
                             "and program/loop indices can be lowered)");
            return;
        }
        /* a < b  <=>  b - a - 1 >= 0, ... */
        bool ab = op->code == TIR_CMP_GT || op->code == TIR_CMP_GE; /* a - b */
        bool strict = op->code == TIR_CMP_LT || op->code == TIR_CMP_GT;
        const vinfo *x = ab ? a : b, *y = ab ? b : a;
        v->kind = VK_MASK;
        v->np = 1;
        v->p[0].c[0] = x->ic[0] - y->ic[0];
        v->p[0].c[1] = x->ic[1] - y->ic[1];
        v->p[0].k = sym_sub(L->sc, x->ik, y->ik);
        if (strict)
            v->p[0].k = sym_sub(L->sc, v->p[0].k, sym_const(L->sc, 1));
        return;
    }
    case TIR_AND: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_MASK || b->kind != VK_MASK || a->np + b->np > LW_MAX_PRED) {
            lw_fail(L, op->loc, "a mask the lowering cannot follow (only '&' of index comparisons)");
            return;
        }
        v->kind = VK_MASK;
        v->np = 0;
        for (int i = 0; i < a->np; i++)
            v->p[v->np++] = a->p[i];
        for (int i = 0; i < b->np; i++)
            v->p[v->np++] = b->p[i];
        return;
    }
    case TIR_NOT: {
        const vinfo *a = V(L, op->opnds[0]);
        if (a->kind != VK_MASK || a->np != 1) {
            lw_fail(L, op->loc, "the negation of a compound mask is a disjunction, which 'mask' cannot express");
            return;
        }
        v->kind = VK_MASK;
        v->np = 1;
        v->p[0].c[0] = -a->p[0].c[0];
        v->p[0].c[1] = -a->p[0].c[1];
        v->p[0].k = sym_sub(L->sc, sym_neg(L->sc, a->p[0].k), sym_const(L->sc, 1));
        return;
    }
    default:
        lw_fail(L, op->loc, "integer tile op '%s' has no dataflow counterpart", tir_op_name(op->code));
        return;
    }
}

static double fold(tir_opcode c, double a, double b)
{
    switch (c) {
    case TIR_ADD: return a + b;
    case TIR_SUB: return a - b;
    case TIR_MUL: return a * b;
    case TIR_DIV: return a / b;
    case TIR_MAX: return a > b ? a : b;
    case TIR_MIN: return a < b ? a : b;
    case TIR_NEG: return -a;
    case TIR_EXP: return exp(a);
    case TIR_EXP2: return exp2(a);
    case TIR_LOG: return log(a);
    case TIR_LOG2: return log2(a);
    case TIR_SQRT: return sqrt(a);
    case TIR_RSQRT: return 1.0 / sqrt(a);
    case TIR_SIGMOID: return 1.0 / (1.0 + exp(-a));
    default: return NAN;
    }
}

/* r = op(x) holds x's data (an alias: a view, splat, broadcast, transpose,
 * or an op that is an identity here): x's root, read as r's shape needs. */
static void classify_view(lw *L, const tir_op *op, const tir_value *x)
{
    const tir_value *r = op->results[0];
    vinfo *v = V(L, r);
    const vinfo *xi = V(L, x);
    if (xi->kind == VK_CONST) {
        v->kind = VK_CONST;
        v->c = xi->c;
        return;
    }
    if (xi->kind != VK_TILE) {
        lw_fail(L, op->loc, "'%s' of a value the lowering does not hold in tiles", tir_op_name(op->code));
        return;
    }
    set_tile(L, r, xi->root, op->loc);
    v->bc = xi->bc;
    v->trans = xi->trans;
    v->tview = xi->tview;
    if (op->code == TIR_TRANS) {
        if (xi->bc != BC_NONE || xi->rank != 2) {
            lw_fail(L, op->loc, "a transpose of a broadcast or a vector");
            return;
        }
        v->trans = !xi->trans;
        return;
    }
    if (xi->bc == BC_NONE && xi->er == 1 && xi->ec == 1 && v->er == 1 && v->ec == 1)
        return; /* one element as it is (a scalar stored through a one-element block) */
    if (op->code == TIR_EXPAND_DIMS && x->type.rank == 1 && L->row[x->uid] && xi->bc == BC_NONE && !xi->trans &&
        v->ec == 1 && v->er == xi->ec && v->er > 1) {
        /* `x[:, None]` of a row: its column, a transpose of its own */
        set_tile(L, r, r->uid, op->loc);
        return;
    }
    if (xi->bc == BC_SCALAR || xi->rank == 0) {
        v->bc = BC_SCALAR;
        return;
    }
    if (v->er == xi->er && v->ec == xi->ec)
        return; /* same data, shape differs only by 1s */
    if (xi->bc == BC_NONE && xi->ec == 1 && v->er == xi->er && v->rank == 2) {
        v->bc = BC_COL; /* a column vector repeated across the columns */
        return;
    }
    if (xi->ec == 1 && v->er == 1 && v->ec == xi->er) {
        v->tview = true; /* [1, N] of a column vector: would need a transpose */
        return;
    }
    if (xi->bc == BC_COL && v->er == xi->er) {
        v->bc = BC_COL;
        return;
    }
    if ((xi->bc == BC_NONE || xi->bc == BC_ROW) && xi->er == 1 && !xi->trans && v->ec == xi->ec && v->rank == 2) {
        v->bc = BC_ROW; /* a row [1, N] repeated down the rows */
        return;
    }
    lw_fail(L, op->loc, "a broadcast from %s to %s the tile ops cannot express", tir_type_str(&L->ar, &x->type),
         tir_type_str(&L->ar, &r->type));
    return;
}

/* The op's result is an identity's (L->gone: the op emits nothing). */
static void mark_ident(lw *L, const tir_op *op)
{
    V(L, op->results[0])->ident = true;
    if (L->ngone < LW_MAX_CHAINS)
        L->gone[L->ngone++] = op;
}

static bool is_const_c(const vinfo *x, double c) { return x->kind == VK_CONST && x->c == c; }

/* Two reads of the same pages, the same way. */
static bool same_view(const vinfo *a, const vinfo *b)
{
    return a->kind == VK_TILE && b->kind == VK_TILE && a->root == b->root && a->bc == b->bc && a->trans == b->trans &&
           a->tview == b->tview && a->er == b->er && a->ec == b->ec && a->dom == b->dom;
}

/* r = op(x, ...) is x by an identity when it keeps x's 2-D shape: r is
 * then a view of x. */
static bool view_by_identity(lw *L, const tir_op *op, const tir_value *x)
{
    const vinfo *xi = V(L, x);
    int64_t er, ec;
    int rank;
    const sym_expr *ser, *sec;
    if (xi->kind != VK_TILE || !lw_shape2d(L, op->results[0], &er, &ec, &rank, &ser, &sec, op->loc) || er != xi->er ||
        ec != xi->ec)
        return false;
    classify_view(L, op, x);
    mark_ident(L, op);
    return true;
}

/* Identities the chip need not compute, taken at the schedule's values: a
 * reduction over one element is its operand, a reduction of a constant a
 * constant (n c for a sum over n); x - x is 0 (as IEEE has it for finite
 * x; an infinite x would give NaN); x * 1, 1 * x, x / 1, x + 0, 0 + x and
 * x - 0 are x. The ops they take emit nothing, and neither do the
 * constants folded from their results (a split count of 1 leaves flash
 * decode's combine a copy). Returns true when it classified op. */
static bool classify_identity(lw *L, const tir_op *op)
{
    vinfo *v = V(L, op->results[0]);
    if (tir_op_has(op->code, TIR_P_REDUCE) && op->code != TIR_REDUCE_MIN) {
        const vinfo *x = V(L, op->opnds[0]);
        int64_t n = lw_reduced_extent(L, op);
        if (x->kind == VK_CONST && n >= 1) {
            v->kind = VK_CONST;
            v->c = op->code == TIR_REDUCE_SUM ? x->c * (double)n : x->c;
            mark_ident(L, op);
            return true;
        }
        return n == 1 && view_by_identity(L, op, op->opnds[0]);
    }
    if (op->nopnds != 2 || !tir_op_has(op->code, TIR_P_ELEM))
        return false;
    const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
    switch (op->code) {
    case TIR_SUB:
        if (same_view(a, b)) {
            v->kind = VK_CONST;
            v->c = 0.0;
            mark_ident(L, op);
            return true;
        }
        return is_const_c(b, 0.0) && view_by_identity(L, op, op->opnds[0]);
    case TIR_ADD:
        return (is_const_c(b, 0.0) && view_by_identity(L, op, op->opnds[0])) ||
               (is_const_c(a, 0.0) && view_by_identity(L, op, op->opnds[1]));
    case TIR_MUL:
        return (is_const_c(b, 1.0) && view_by_identity(L, op, op->opnds[0])) ||
               (is_const_c(a, 1.0) && view_by_identity(L, op, op->opnds[1]));
    case TIR_DIV:
        return is_const_c(b, 1.0) && view_by_identity(L, op, op->opnds[0]);
    default:
        return false;
    }
}

/* A constant folded from an identity's result is one too (its op is a
 * tile op on the Tile IR). */
static void fold_ident(lw *L, const tir_op *op)
{
    for (int i = 0; i < op->nopnds; i++)
        if (V(L, op->opnds[i])->ident) {
            mark_ident(L, op);
            return;
        }
}

static void classify_op(lw *L, const tir_op *op)
{
    if (L->failed)
        return;
    if (op->code == TIR_FOR) {
        const tir_block *body = op->regions[0];
        for (int i = 0; i < tir_for_ncarried(op); i++) {
            const tir_value *arg = tir_for_arg(op, i), *res = op->results[i];
            /* a float scalar is carried as the one-element tile it is on the chip */
            if (is_tile_value(arg)) {
                set_tile(L, arg, arg->uid, op->loc);
                set_tile(L, res, res->uid, op->loc);
                V(L, arg)->rl = R_OLD;
                V(L, res)->rl = R_RESULT;
            }
        }
        lw_classify_block(L, body);
        return;
    }
    if (op->code == TIR_IF) {
        lw_fail(L, op->loc, "a branch inside the kernel (only constexpr conditions, resolved at compile time, "
                         "can be lowered)");
        return;
    }
    if (op->nresults != 1)
        return;
    const tir_value *r = op->results[0];
    vinfo *v = V(L, r);
    if (r->type.kind != TIR_TILE)
        return; /* pointers, block pointers, descriptors */
    bool data_cmp = tir_op_has(op->code, TIR_P_CMP) && op->nopnds == 2 &&
                    (tir_elem_is_float(op->opnds[0]->type.elem) || tir_elem_is_float(op->opnds[1]->type.elem));
    bool data_view = is_alias_op(op->code) && op->nopnds == 1 && V(L, op->opnds[0])->kind == VK_TILE;
    if (data_cmp) {
        /* a condition computed from data: a tile of 1.0 and 0.0 */
        set_tile(L, r, r->uid, op->loc);
        V(L, r)->fmt = lw_interm_format(L);
        return;
    }
    if (!tir_elem_is_float(r->type.elem) && !data_view) {
        if (r->type.rank == 0)
            return; /* integer scalars: their symbolic values suffice */
        classify_index(L, op);
        return;
    }
    if (classify_identity(L, op))
        return;
    double a, b;
    switch (op->code) {
    case TIR_CONST:
        v->kind = VK_CONST;
        v->c = op->fval;
        return;
    case TIR_FULL:
        v->kind = VK_CONST;
        v->c = op->is_float ? op->fval : (double)op->ival;
        return;
    case TIR_CAST:
        if (host_float(L, op->opnds[0], &a)) {
            v->kind = VK_CONST;
            v->c = a;
            fold_ident(L, op);
            return;
        }
        if (!tir_elem_is_float(op->opnds[0]->type.elem)) {
            /* an integer scalar the launch fixes (a size, `1 / N`): a float
               known on the host */
            int64_t k;
            const tir_value *x = op->opnds[0];
            if (x->type.rank == 0 && x->sym && sym_eval(x->sym, &L->s->values, &k) == SYM_OK) {
                v->kind = VK_CONST;
                v->c = (double)k;
                return;
            }
            lw_fail(L, op->loc, "a cast from an integer tile, or from an integer that changes from program to "
                                "program, has no dataflow counterpart");
            return;
        }
        if (L->s->interm_16b && V(L, op->opnds[0])->kind == VK_TILE) {
            /* with 16-bit intermediates a cast between two float types that
               land in one CB format changes nothing: a view */
            const vinfo *xi = V(L, op->opnds[0]);
            arch_format rf;
            if (lw_elem_format(L, r->type.elem, &rf, op->loc) && (rf == ARCH_FP32 ? lw_interm_format(L) : rf) ==
                                                                   L->v[xi->root].fmt) {
                set_tile(L, r, xi->root, op->loc);
                v->bc = xi->bc;
                v->trans = xi->trans;
                v->tview = xi->tview;
                return;
            }
        }
        break;
    case TIR_SPLAT:
    case TIR_BROADCAST:
    case TIR_EXPAND_DIMS:
    case TIR_VIEW:
    case TIR_TRANS:
        classify_view(L, op, op->opnds[0]);
        return;
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_MIN:
        if (host_float(L, op->opnds[0], &a) && host_float(L, op->opnds[1], &b)) {
            v->kind = VK_CONST;
            v->c = fold(op->code, a, b);
            fold_ident(L, op);
            return;
        }
        break;
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
    case TIR_SQRT:
    case TIR_RSQRT:
    case TIR_SIGMOID:
        if (host_float(L, op->opnds[0], &a)) {
            v->kind = VK_CONST;
            v->c = fold(op->code, a, 0);
            fold_ident(L, op);
            return;
        }
        break;
    case TIR_WHERE:
    case TIR_DOT:
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_SUM:
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        break;
    default:
        lw_fail(L, op->loc, "'%s' on float tiles has no dataflow counterpart", tir_op_name(op->code));
        return;
    }
    /* a new root: computed on the chip (unary ops and casts of a broadcast
       view compute on the root and stay broadcast) */
    set_tile(L, r, r->uid, op->loc);
    if ((tir_op_has(op->code, TIR_P_UNARY) || op->code == TIR_CAST) && V(L, op->opnds[0])->kind == VK_TILE) {
        const vinfo *x = V(L, op->opnds[0]);
        if (x->bc != BC_NONE) {
            const vinfo *xr = &L->v[x->root];
            v->bc = x->bc;
            v->er = xr->er, v->ec = xr->ec, v->tr = xr->tr, v->tc = xr->tc, v->rank = xr->rank;
            v->ser = xr->ser, v->sec = xr->sec;
        }
    }
}

void lw_classify_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next)
        classify_op(L, op);
}

/* ======================================================================
 * Uses and lifetimes
 * ==================================================================== */

static bool is_alias_op(tir_opcode c)
{
    return c == TIR_VIEW || c == TIR_EXPAND_DIMS || c == TIR_BROADCAST || c == TIR_TRANS || c == TIR_SPLAT;
}

static const tir_block *def_block(const tir_value *x)
{
    if (x->def)
        return x->def->parent;
    return x->block;
}

/* The op of block b that is or contains op u. */
static const tir_op *top_in(const tir_op *u, const tir_block *b)
{
    while (u && u->parent != b)
        u = u->parent ? u->parent->owner : NULL;
    return u;
}


static void note_use(lw *L, const tir_value *x, const tir_op *u)
{
    const vinfo *xi = V(L, x);
    if (xi->kind != VK_TILE)
        return;
    vinfo *r = &L->v[xi->root];
    r->nuses++;
    const tir_op *t = top_in(u, r->defblk);
    if (!t)
        return;
    if (!r->first_top || lw_pos(L, t) < lw_pos(L, r->first_top) ||
        (t == r->first_top && lw_pos(L, u) < lw_pos(L, r->first_use))) {
        if (!r->first_top || lw_pos(L, t) < lw_pos(L, r->first_top))
            r->first_top = t;
        if (!r->first_use || lw_pos(L, u) < lw_pos(L, r->first_use))
            r->first_use = u;
    }
    if (!r->last_top || lw_pos(L, t) > lw_pos(L, r->last_top))
        r->last_top = t;
}


void lw_number_block(lw *L, const tir_block *b, opnums *out)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        size_t me = out->len;
        opnum n = {op, (int)out->len, 0};
        LM_PUSH(out, n);
        for (int r = 0; r < op->nregions; r++)
            lw_number_block(L, op->regions[r], out);
        out->items[me].end = (int)out->len - 1;
    }
}

int lw_pos(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->nnums; i++)
        if (L->nums[i].op == op)
            return L->nums[i].pos;
    return -1;
}

void lw_uses_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->code == TIR_YIELD) {
            const tir_op *f = b->owner;
            for (int i = 0; i < op->nopnds; i++) {
                /* yielding the carried value itself is no use of it */
                if (f && f->code == TIR_FOR && op->opnds[i] == tir_for_arg(f, i))
                    continue;
                note_use(L, op->opnds[i], op);
            }
        } else if (!(op->nresults == 1 && V(L, op->results[0])->kind == VK_TILE &&
                     V(L, op->results[0])->root != op->results[0]->uid) &&
                   !(op->nresults == 1 && V(L, op->results[0])->kind == VK_CONST)) {
            /* (a view - an alias, a cast to the same CB format, a product
               by a scale folded into the exponentials, an identity - and a
               constant read nothing) */
            for (int i = 0; i < op->nopnds; i++)
                note_use(L, op->opnds[i], op);
        }
        for (int r = 0; r < op->nregions; r++)
            lw_uses_block(L, op->regions[r]);
    }
}

void lw_defblocks(lw *L, const tir_block *b)
{
    for (int i = 0; i < b->nargs; i++)
        V(L, b->args[i])->defblk = b;
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            V(L, op->results[i])->defblk = def_block(op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            lw_defblocks(L, op->regions[r]);
    }
}

/* The only op using root r (through aliases), or NULL. */
const tir_op *lw_only_use(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    return ri->nuses == 1 ? ri->first_use : NULL;
}

/* The index of the access op makes in the access analysis, or -1. */
int lw_access_of(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->acc->n; i++)
        if (L->acc->acc[i].op == op)
            return i;
    return -1;
}
