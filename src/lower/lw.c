/* lw.c - what nearly every file of the lowering calls: failure (lw_fail),
 * evaluation under the schedule's values, element formats and the 2-D
 * shape of a tile type. */
#include "lower/lower_int.h"

void lw_fail(lw *L, lm_loc loc, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    va_list ap;
    va_start(ap, fmt);
    lm_buf b = {0};
    lm_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (loc.file)
        lm_error(L->d, loc, "cannot lower: %s", lm_buf_str(&b));
    else
        lm_error_plain(L->d, "cannot lower: %s", lm_buf_str(&b));
    lm_buf_free(&b);
}

/* ---- evaluation under the schedule's values ------------------------------- */

bool lw_ev(lw *L, const sym_expr *e, int64_t *out, lm_loc loc)
{
    sym_status st = sym_eval(e, &L->s->values, out);
    if (st == SYM_OK)
        return true;
    if (st == SYM_UNBOUND) {
        const sym_expr *vars[8];
        int n = sym_vars(e, vars, 8);
        const char *name = "?";
        for (int i = 0; i < n; i++) {
            int64_t lo, hi;
            if (!sym_env_get(&L->s->values, vars[i], &lo, &hi)) {
                name = vars[i]->name;
                break;
            }
        }
        lw_fail(L, loc, "the schedule gives no value to '%s' (in %s)", name, sym_str(&L->ar, e));
    } else {
        lw_fail(L, loc, "%s cannot be evaluated (division by zero or overflow)", sym_str(&L->ar, e));
    }
    return false;
}

int64_t lw_evd(lw *L, const sym_expr *e, int64_t dflt)
{
    int64_t v;
    return sym_eval(e, &L->s->values, &v) == SYM_OK ? v : dflt;
}

int64_t lw_value_of(lw *L, const char *name, int64_t dflt)
{
    return lw_evd(L, sym_var(L->sc, name), dflt);
}

bool lw_elem_format(lw *L, tir_elem e, arch_format *f, lm_loc loc)
{
    switch (e) {
    case TIR_BF16:
        *f = ARCH_BF16;
        return true;
    case TIR_F32:
        *f = ARCH_FP32;
        return true;
    case TIR_F16:
        /* the descriptions have no f16 tile format: f16 values are exact in
           fp32 tiles (the rounding of f16 intermediates is not modelled) */
        *f = ARCH_FP32;
        return true;
    default:
        lw_fail(L, loc, "%s tiles have no tile format on this chip (bf16, f16 and f32 are supported)", tir_elem_name(e));
        return false;
    }
}

/* The 2-D element shape of a tile value: leading 1s dropped, a vector is a
 * column [N, 1] or, where orient.c found it one, a row [1, N] (held as the
 * 2-D value it is on the chip), a scalar [1, 1]. */
bool lw_shape2d(lw *L, const tir_value *x, int64_t *er, int64_t *ec, int *rank, const sym_expr **ser,
                const sym_expr **sec, lm_loc loc)
{
    const tir_type *t = &x->type;
    const sym_expr *one = sym_const(L->sc, 1);
    int64_t dims[TIR_MAX_RANK] = {0};
    for (int d = 0; d < t->rank; d++)
        if (!lw_ev(L, t->shape[d], &dims[d], loc))
            return false;
    /* dimensions of extent 1 carry no data: a [1, NS, 1, D] block is the
       [NS, D] tile it holds; a lone extent is a column [N, 1] unless it is
       the last dimension of a longer shape ([1, N], a row) */
    int idx[TIR_MAX_RANK], nd = 0;
    for (int d = 0; d < t->rank; d++)
        if (dims[d] != 1)
            idx[nd++] = d;
    if (nd > 2) {
        lw_fail(L, loc, "a tile with more than two dimensions above 1 (%s)", tir_type_str(&L->ar, t));
        return false;
    }
    *ser = *sec = one;
    if (t->rank == 0) {
        *rank = 0;
        *er = *ec = 1;
    } else if (nd == 2) {
        *rank = 2;
        *er = dims[idx[0]], *ec = dims[idx[1]];
        *ser = t->shape[idx[0]], *sec = t->shape[idx[1]];
    } else if (nd == 1 && t->rank == 1 && L->row && L->row[x->uid]) {
        *rank = 2;
        *er = 1, *ec = dims[idx[0]];
        *sec = t->shape[idx[0]];
    } else if (nd == 1 && t->rank == 1) {
        *rank = 1;
        *er = dims[idx[0]], *ec = 1;
        *ser = t->shape[idx[0]];
    } else if (nd == 1) {
        *rank = 2;
        bool last = idx[0] == t->rank - 1;
        *er = last ? 1 : dims[idx[0]];
        *ec = last ? dims[idx[0]] : 1;
        *(last ? sec : ser) = t->shape[idx[0]];
    } else {
        *rank = t->rank == 1 ? 1 : 2;
        *er = *ec = 1;
    }
    return true;
}

/* The extent of the axis a reduction reduces, at the schedule's values
 * (-1 when unknown): a reduction over one element is its operand. */
int64_t lw_reduced_extent(lw *L, const tir_op *op)
{
    const tir_value *x = op->opnds[0];
    if (!tir_op_has(op->code, TIR_P_REDUCE) || op->ival < 0 || op->ival >= x->type.rank)
        return -1;
    return lw_evd(L, x->type.shape[op->ival], -1);
}

/* The axis a reduction works along on the chip: a row's only axis is its
 * columns. */
int lw_axis(const lw *L, const tir_op *op)
{
    const tir_value *x = op->opnds[0];
    if (x->type.rank == 1 && L->row && L->row[x->uid])
        return 1;
    return (int)op->ival;
}

/* Whether a store writes a column vector as a row: a [1, N] view of one,
 * or one stored through a block one element high (a 1-D block, which lies
 * along the layout's columns). The compute transposes it into the writer's
 * CB. */
bool lw_store_turns(const vinfo *vi, const access *x)
{
    if (vi->kind != VK_TILE || vi->bc != BC_NONE || vi->trans)
        return false;
    return vi->tview || (vi->rank == 1 && x->rows_el == 1 && x->cols_el > 1);
}
