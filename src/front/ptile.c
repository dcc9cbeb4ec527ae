/* ptile.c - tiles of pointers read as block accesses.
 *
 * Most Triton kernels address memory through tiles of pointers:
 * `a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak`, with
 * a mask for the edges and `ptrs += BLOCK_K * stride_ak` in the loop. The
 * checker builds that arithmetic as Tile IR (addptr, splat, arange, ...) as
 * it goes; where such a tile is loaded, stored or carried through a loop,
 * this file reads it back as Triton's axis analysis does: the offset tile is
 * a sum of terms mult * (start + index along one tile dimension), one per
 * dimension, plus a scalar. Each term's multiplier is a stride of the
 * tensor under the base pointer, which says the tensor dimension that tile
 * dimension walks. The tile becomes a block pointer over that view of the
 * tensor (make_block_ptr with the strides as given), `ptrs += step` an
 * advance, and the masks boundary checks - the same Tile IR block pointers
 * give, so nothing after the front end tells the two styles apart.
 *
 * A mask `offs < bound` only becomes a boundary check once it is shown to
 * say "inside the tensor": bound - start, plus the block's offset along that
 * tensor dimension, must be the tensor's extent. The block's offset is only
 * known after the loops' symbolic values are inferred, so those proofs are
 * collected and run on the finished function (chk_ptile_verify), with the
 * access analysis giving the offsets. The `% M` wrap and the
 * `tl.where(offs < M, offs, 0)` clamp are proved the same way and read as
 * boundary checks too: the rows they fold back are rows whose results a
 * masked store drops.
 *
 * A scalar pointer (`tl.store(Mean + row, mean)`) is a one-element block:
 * one view dimension of extent 1 per tensor dimension.
 *
 * What is not of this form (offsets read from memory, products of two index
 * tiles, a mask that is not a bound) is an error naming the term.
 */
#include "front/check_int.h"
#include "analysis/access.h"

#include <string.h>

/* mult * (start + index along tile dimension dim); NULL mult is 1, NULL start 0 */
typedef struct pterm {
    int dim;
    tir_value *mult, *start;
    tir_value *wrap; /* `% wrap` or clamped below wrap; NULL if neither */
    lm_loc wloc;
} pterm;

enum { MAX_TERMS = 2 * TIR_MAX_RANK };

/* An integer tile as terms plus a scalar. */
typedef struct pform {
    int rank;
    pterm t[MAX_TERMS];
    int n;
    tir_value *loose; /* NULL: 0 */
} pform;

/* How a block pointer made from a pointer tile maps onto the tile. */
struct chk_playout {
    const tir_tensor *tensor;
    int rank;                          /* the pointer tile's */
    const sym_expr *const *shape;
    int vrank;                         /* the block pointer's */
    int vdim[TIR_MAX_RANK];            /* tile dim -> view dim, -1: a dropped dimension of size 1 */
    int tdim[TIR_MAX_RANK];            /* view dim -> tensor dim */
    const sym_expr *mult[TIR_MAX_RANK];/* view dim -> its stride */
    tir_value *multv[TIR_MAX_RANK];
    int nwrap;
    pterm wrap[TIR_MAX_RANK];          /* dim: the tile dim wrapped */
    bool trans;                        /* the block is the transpose of the tile (see in_tensor_order) */
    bool bptr;                         /* a block pointer of the kernel's, its dimensions swapped */
};

/* ---- scalar arithmetic ------------------------------------------------------ */

static tir_value *s_binop(chk *c, tir_opcode code, tir_value *x, tir_value *y, lm_loc loc)
{
    tir_elem e = chk_promote(x->type.elem, y->type.elem);
    x = chk_cast_to(c, x, e, loc);
    y = chk_cast_to(c, y, e, loc);
    return chk_build1(c, code, loc, tir_t_scalar(e), x, y, NULL);
}

static tir_value *s_add(chk *c, tir_value *x, tir_value *y, lm_loc loc)
{
    if (!x)
        return y;
    if (!y)
        return x;
    return s_binop(c, TIR_ADD, x, y, loc);
}

static tir_value *s_mul(chk *c, tir_value *x, tir_value *y, lm_loc loc)
{
    if (!x)
        return y;
    if (!y)
        return x;
    return s_binop(c, TIR_MUL, x, y, loc);
}

static const sym_expr *sym_or(chk *c, const tir_value *v, int64_t dflt)
{
    return v ? v->sym : sym_const(c->s, dflt);
}

/* ---- the offset tile as terms ------------------------------------------------ */

static LM_NORETURN void not_affine(chk *c, const tir_op *op, lm_loc use, const char *why)
{
    chk_fail(c, op ? op->loc : use,
             "the offsets of a tile of pointers must be sums of tl.arange ranges times scalars (used at line %d); "
             "%s",
             use.line, why);
}

/* The single term of a one-term, unit-stride form, with the scalar folded
 * into its start: the index space `start + arange` of a mask or a wrap. */
static bool as_index(chk *c, pform *f, lm_loc loc)
{
    if (f->n != 1 || f->t[0].mult || f->t[0].wrap)
        return false;
    f->t[0].start = s_add(c, f->t[0].start, f->loose, loc);
    f->loose = NULL;
    return true;
}

static void int_form(chk *c, const tir_value *v, lm_loc use, pform *out);

/* x % b, or tl.where(x < b, x, 0): x an index range wrapped or clamped by b */
static void wrapped(chk *c, const tir_op *op, const tir_value *x, const tir_value *b, lm_loc use, pform *out)
{
    int_form(c, x, use, out);
    if (!as_index(c, out, op->loc) || !b->def || b->def->code != TIR_SPLAT)
        not_affine(c, op, use, "a wrap (% or tl.where) must apply to one tl.arange range plus a scalar, by a "
                               "scalar bound");
    out->t[0].wrap = b->def->opnds[0];
    out->t[0].wloc = op->loc;
}

static bool is_zero_splat(const tir_value *v)
{
    const tir_op *d = v->def;
    if (!d || d->code != TIR_SPLAT)
        return false;
    const tir_value *s = d->opnds[0];
    int64_t k;
    return s->sym && sym_is_const(s->sym, &k) && k == 0;
}

static void shift_dims(pform *f, int from_rank, int to_rank, int axis_inserted)
{
    for (int i = 0; i < f->n; i++) {
        if (axis_inserted >= 0)
            f->t[i].dim += f->t[i].dim >= axis_inserted;
        else
            f->t[i].dim += to_rank - from_rank;
    }
    f->rank = to_rank;
}

#define GATHER "these offsets are loaded from memory (a gather), which loomc cannot schedule as block moves"

static void int_form(chk *c, const tir_value *v, lm_loc use, pform *out)
{
    memset(out, 0, sizeof *out);
    out->rank = v->type.rank;
    const tir_op *d = v->def;
    if (!d)
        not_affine(c, NULL, use, lm_arena_printf(c->a, "'%s' is carried through a loop; advance the pointers "
                                                       "instead (ptrs += step)",
                                                 v->name ? v->name : "an offset tile"));
    pform x, y;
    switch (d->code) {
    case TIR_ARANGE:
        out->n = 1;
        out->t[0].dim = 0;
        if (d->sym != sym_const(c->s, 0))
            out->t[0].start = tir_sym_value(&c->b, v->type.elem, d->sym);
        return;
    case TIR_SPLAT: out->loose = d->opnds[0]; return;
    case TIR_FULL:
        if (d->is_float)
            break;
        out->loose = tir_const_int(&c->b, v->type.elem, d->ival);
        return;
    case TIR_CAST: {
        const tir_value *src = d->opnds[0];
        if (tir_elem_is_int(src->type.elem) && src->type.elem != TIR_I1) {
            int_form(c, src, use, out);
            return;
        }
        if (src->def && (src->def->code == TIR_LOAD || src->def->code == TIR_DESC_LOAD))
            not_affine(c, src->def, use, GATHER);
        not_affine(c, d, use, "these offsets are converted from floats or booleans");
    }
    case TIR_BROADCAST:
        int_form(c, d->opnds[0], use, out);
        shift_dims(out, d->opnds[0]->type.rank, v->type.rank, -1);
        return;
    case TIR_EXPAND_DIMS:
        int_form(c, d->opnds[0], use, out);
        shift_dims(out, d->opnds[0]->type.rank, v->type.rank, (int)d->ival);
        return;
    case TIR_ADD:
    case TIR_SUB:
        int_form(c, d->opnds[0], use, &x);
        int_form(c, d->opnds[1], use, &y);
        if (d->code == TIR_SUB && y.n)
            not_affine(c, d, use, "a tl.arange range is subtracted here");
        if (x.n + y.n > MAX_TERMS)
            not_affine(c, d, use, "too many index ranges are added here");
        *out = x;
        memcpy(out->t + x.n, y.t, sizeof y.t[0] * (size_t)y.n);
        out->n = x.n + y.n;
        out->loose = d->code == TIR_SUB ? (y.loose ? (x.loose ? s_binop(c, TIR_SUB, x.loose, y.loose, d->loc)
                                                              : chk_build1(c, TIR_NEG, d->loc, y.loose->type,
                                                                           y.loose, NULL, NULL))
                                                   : x.loose)
                                        : s_add(c, x.loose, y.loose, d->loc);
        return;
    case TIR_MUL:
        int_form(c, d->opnds[0], use, &x);
        int_form(c, d->opnds[1], use, &y);
        if (x.n && y.n)
            not_affine(c, d, use, "two tiles of indices are multiplied here");
        if (!x.n) {
            pform t = x;
            x = y;
            y = t;
        }
        /* an index range times a stride: its scalar is a position along it */
        if (x.loose)
            as_index(c, &x, d->loc);
        *out = x;
        for (int i = 0; i < out->n; i++)
            out->t[i].mult = s_mul(c, out->t[i].mult, y.loose, d->loc);
        out->loose = x.loose && y.loose ? s_mul(c, x.loose, y.loose, d->loc) : NULL;
        if (!y.loose) /* times zero */
            out->n = 0;
        return;
    case TIR_MOD: wrapped(c, d, d->opnds[0], d->opnds[1], use, out); return;
    case TIR_WHERE: {
        const tir_op *cd = d->opnds[0]->def;
        if (cd && cd->code == TIR_CMP_LT && cd->opnds[0] == d->opnds[1] && is_zero_splat(d->opnds[2])) {
            wrapped(c, d, d->opnds[1], cd->opnds[1], use, out);
            return;
        }
        not_affine(c, d, use, "this tl.where is not the clamp tl.where(offs < bound, offs, 0)");
    }
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        not_affine(c, d, use, GATHER);
    default: break;
    }
    not_affine(c, d, use, lm_arena_printf(c->a, "'%s' is not one of +, -, * by a scalar, %%, broadcasting or a "
                                                "cast",
                                          tir_op_name(d->code)));
}

/* The base pointer and the offset form of a tile of pointers. */
static tir_value *ptr_form(chk *c, tir_value *p, lm_loc use, pform *out)
{
    const tir_op *d = p->def;
    if (d && d->code == TIR_SPLAT && d->opnds[0]->type.rank == 0) {
        memset(out, 0, sizeof *out);
        out->rank = p->type.rank;
        return d->opnds[0];
    }
    if (d && (d->code == TIR_BROADCAST || d->code == TIR_EXPAND_DIMS)) {
        tir_value *b = ptr_form(c, d->opnds[0], use, out);
        shift_dims(out, d->opnds[0]->type.rank, p->type.rank, d->code == TIR_EXPAND_DIMS ? (int)d->ival : -1);
        return b;
    }
    if (d && d->code == TIR_ADDPTR) {
        tir_value *b = ptr_form(c, d->opnds[0], use, out);
        pform o;
        int_form(c, d->opnds[1], use, &o);
        if (out->n + o.n > MAX_TERMS)
            not_affine(c, d, use, "too many index ranges are added here");
        memcpy(out->t + out->n, o.t, sizeof o.t[0] * (size_t)o.n);
        out->n += o.n;
        out->loose = s_add(c, out->loose, o.loose, d->loc);
        return b;
    }
    chk_fail(c, d ? d->loc : use, "this tile of pointers is not a pointer argument plus offsets");
}

/* The tensor a scalar pointer points into. */
static const tir_tensor *tensor_of(chk *c, const tir_value *p)
{
    while (p->def && p->def->code == TIR_ADDPTR)
        p = p->def->opnds[0];
    for (int i = 0; i < c->f->nparams; i++)
        if (c->f->params[i].value == p)
            return c->f->params[i].tensor;
    return NULL;
}

/* ---- layouts of the block pointers made here -------------------------------- */

static void remember(chk *c, tir_value *bp, const chk_playout *lay)
{
    if (c->nptiles == c->capptiles) {
        int cap = c->capptiles ? 2 * c->capptiles : 8;
        chk_ptile *n = LM_NEWN(c->a, chk_ptile, (size_t)cap);
        if (c->nptiles)
            memcpy(n, c->ptiles, sizeof *n * (size_t)c->nptiles);
        c->ptiles = n;
        c->capptiles = cap;
    }
    c->ptiles[c->nptiles++] = (chk_ptile){bp, lay};
}

static const chk_playout *layout_of(chk *c, const tir_value *v)
{
    for (int i = c->nptiles - 1; i >= 0; i--)
        if (c->ptiles[i].bp == v)
            return c->ptiles[i].lay;
    return NULL;
}

const chk_playout *chk_ptile_layout(chk *c, const tir_value *v)
{
    const chk_playout *lay = layout_of(c, v);
    return lay && !lay->bptr ? lay : NULL;
}

void chk_ptile_carry(chk *c, tir_value *from, tir_value *to)
{
    const chk_playout *lay = layout_of(c, from);
    if (lay)
        remember(c, to, lay);
}

bool chk_ptile_same(const chk_playout *x, const chk_playout *y)
{
    if (x == y)
        return true;
    if (!x || !y || x->tensor != y->tensor || x->rank != y->rank || x->vrank != y->vrank)
        return false;
    for (int i = 0; i < x->rank; i++)
        if (x->vdim[i] != y->vdim[i])
            return false;
    for (int i = 0; i < x->vrank; i++)
        if (x->tdim[i] != y->tdim[i])
            return false;
    return true;
}

/* The view dimensions of a form: one per tile dimension with a term. */
static void place_view(chk *c, const pform *f, const tir_type *pt, lm_loc loc, chk_playout *lay, const pterm **vt)
{
    const tir_tensor *t = lay->tensor;
    bool used[TIR_MAX_RANK] = {0};
    for (int i = 0; i < f->rank; i++) {
        const pterm *term = NULL;
        for (int k = 0; k < f->n; k++) {
            if (f->t[k].dim != i)
                continue;
            if (term)
                chk_fail(c, loc, "dimension %d of this tile of pointers adds two tl.arange ranges; each dimension "
                                 "must walk one dimension of the tensor",
                         i);
            term = &f->t[k];
        }
        if (!term) {
            if (!is_one(pt->shape[i]))
                chk_fail(c, loc, "dimension %d of this tile of pointers (%s) does not move: every element along it "
                                 "points to the same place; load a tile with a dimension of 1 there and broadcast it",
                         i, tshape(c, pt));
            lay->vdim[i] = -1;
            continue;
        }
        int vd = lay->vrank++;
        const sym_expr *m = sym_or(c, term->mult, 1);
        int td = t->rank - 1;
        /* innermost first, as the access analysis places views */
        while (td >= 0 && (used[td] || !m || t->strides[td] != m))
            td--;
        if (td < 0)
            chk_fail(c, loc, "dimension %d of this tile of pointers moves by %s elements, which is no stride of "
                             "tensor '%s' (its strides are %s)",
                     i, m ? sym_str(c->a, m) : "an unknown number of", t->name,
                     chk_shape_str(c, t->rank, t->strides));
        used[td] = true;
        lay->vdim[i] = vd;
        lay->tdim[vd] = td;
        lay->mult[vd] = m;
        lay->multv[vd] = term->mult;
        vt[vd] = term;
        if (term->wrap)
            lay->wrap[lay->nwrap++] = *term;
    }
    if (!lay->vrank)
        chk_fail(c, loc, "this tile of pointers has no tl.arange range: all its elements point to one place");
}

/* A 2-D tile whose first dimension walks the tensor's later dimension (B
 * read as b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] with B
 * stored [N, K]; K^T of attention): its view takes the tensor's order and
 * the tile is the transpose of the block, as `tl.trans` of a block pointer
 * in that order gives - the form the tile layout holds. */
static void in_tensor_order(chk_playout *lay, const pterm **vt)
{
    if (lay->vrank != 2 || lay->tdim[0] < lay->tdim[1])
        return;
    int t = lay->tdim[0];
    lay->tdim[0] = lay->tdim[1], lay->tdim[1] = t;
    const sym_expr *m = lay->mult[0];
    lay->mult[0] = lay->mult[1], lay->mult[1] = m;
    tir_value *mv = lay->multv[0];
    lay->multv[0] = lay->multv[1], lay->multv[1] = mv;
    const pterm *p = vt[0];
    vt[0] = vt[1], vt[1] = p;
    for (int i = 0; i < lay->rank; i++)
        if (lay->vdim[i] >= 0)
            lay->vdim[i] = 1 - lay->vdim[i];
    lay->trans = true;
}

/* The summands of an integer scalar built with + and -, a product of a
 * sum and a scalar distributed (`(b * H + h) * stride`: each summand
 * lies along its own tensor dimension). */
static int summands(chk *c, tir_value *v, tir_value **out, int n, int max, lm_loc loc)
{
    const tir_op *d = v->def;
    if (d && d->code == TIR_MUL && tir_is_int_scalar(&v->type)) {
        for (int k = 0; k < 2; k++) {
            const tir_op *sd = d->opnds[k]->def;
            if (!sd || (sd->code != TIR_ADD && sd->code != TIR_SUB))
                continue;
            int first = n;
            n = summands(c, d->opnds[k], out, n, max, loc);
            for (int i = first; i < n; i++)
                out[i] = s_mul(c, out[i], d->opnds[1 - k], loc);
            return n;
        }
    }
    if (d && d->code == TIR_ADD && tir_is_int_scalar(&v->type)) {
        n = summands(c, d->opnds[0], out, n, max, loc);
        return summands(c, d->opnds[1], out, n, max, loc);
    }
    if (d && d->code == TIR_SUB && tir_is_int_scalar(&v->type)) {
        n = summands(c, d->opnds[0], out, n, max, loc);
        tir_value *neg = chk_build1(c, TIR_NEG, loc, d->opnds[1]->type, d->opnds[1], NULL, NULL);
        return summands(c, neg, out, n, max, loc);
    }
    if (n == max)
        chk_fail(c, loc, "the scalar part of this tile of pointers has more than %d terms", max);
    out[n++] = v;
    return n;
}

/* The tensor dimension a scalar offset lies along, as the access analysis
 * places a base offset: the outermost whose stride divides it; -1 if it is
 * not one monomial or no stride divides it. */
static int dim_of(chk *c, const tir_tensor *t, const sym_expr *e)
{
    if (!e || e->kind == SYM_ADD)
        return -1;
    for (int d = 0; d < t->rank; d++) {
        const sym_expr *st = t->strides[d];
        if (st && st != sym_const(c->s, 0) && sym_mul(c->s, sym_floordiv(c->s, e, st), st) == e)
            return d;
    }
    return -1;
}

/* x / stride as a value: x written as y * stride, or x itself for stride 1. */
static tir_value *quotient(chk *c, tir_value *x, const sym_expr *st)
{
    if (st == sym_const(c->s, 1))
        return x;
    const tir_op *d = x->def;
    if (d && d->code == TIR_MUL)
        for (int k = 0; k < 2; k++)
            if (d->opnds[k]->sym == st)
                return d->opnds[1 - k];
    return NULL;
}

/* The scalar part of the offsets: a summand along a dimension the view
 * walks joins that dimension's start (so the block's boundary checks see
 * it), any other moves the base pointer (a batch, a row of a row-wise
 * kernel). */
static tir_value *place_loose(chk *c, const chk_playout *lay, tir_value *base, tir_value *loose, tir_value **start,
                              lm_loc loc)
{
    chk_reject_from_memory(c, loose, loc, "an offset of this tile of pointers");
    tir_value *parts[32];
    int n = summands(c, loose, parts, 0, (int)LM_COUNT(parts), loc);
    tir_value *rest = NULL;
    for (int i = 0; i < n; i++) {
        int td = dim_of(c, lay->tensor, parts[i]->sym), vd = -1;
        for (int v = 0; v < lay->vrank && td >= 0; v++)
            if (lay->tdim[v] == td)
                vd = v;
        tir_value *q = vd >= 0 ? quotient(c, parts[i], lay->tensor->strides[td]) : NULL;
        if (vd >= 0 && !q)
            chk_fail(c, loc, "the offset %s of this tile of pointers moves it along dimension %d of '%s', but is not "
                             "written as a multiple of that dimension's stride",
                     sym_str(c->a, parts[i]->sym), td, lay->tensor->name);
        if (q)
            start[vd] = s_add(c, start[vd], q, loc);
        else
            rest = s_add(c, rest, parts[i], loc);
    }
    return rest ? chk_build1(c, TIR_ADDPTR, loc, base->type, base, rest, NULL) : base;
}

/* A block pointer for the tile of pointers p (built at the current point). */
static tir_value *materialise(chk *c, tir_value *p, lm_loc loc)
{
    pform f;
    tir_value *base = ptr_form(c, p, loc, &f);
    for (const tir_value *b = base; b->def && b->def->code == TIR_ADDPTR; b = b->def->opnds[0])
        chk_reject_from_memory(c, b->def->opnds[1], loc, "an offset of this tile of pointers");
    chk_playout *lay = LM_NEW(c->a, chk_playout);
    lay->tensor = tensor_of(c, base);
    if (!lay->tensor || !lay->tensor->strides)
        chk_fail(c, loc, "the base of this tile of pointers is not a pointer argument bound to a tensor");
    lay->rank = p->type.rank;
    lay->shape = p->type.shape;
    const pterm *vt[TIR_MAX_RANK];
    place_view(c, &f, &p->type, loc, lay, vt);
    in_tensor_order(lay, vt);
    tir_value *start[TIR_MAX_RANK];
    for (int v = 0; v < lay->vrank; v++)
        start[v] = vt[v]->start;
    if (f.loose)
        base = place_loose(c, lay, base, f.loose, start, loc);

    int r = lay->vrank;
    const sym_expr *blk[TIR_MAX_RANK];
    tir_value *ops[1 + 3 * TIR_MAX_RANK];
    ops[0] = base;
    for (int i = 0; i < lay->rank; i++)
        if (lay->vdim[i] >= 0)
            blk[lay->vdim[i]] = p->type.shape[i];
    for (int v = 0; v < r; v++) {
        ops[1 + v] = tir_sym_value(&c->b, TIR_I32, lay->tensor->shape[lay->tdim[v]]);
        ops[1 + r + v] = vt[v]->mult ? vt[v]->mult : tir_const_int(&c->b, TIR_I32, 1);
        ops[1 + 2 * r + v] = start[v] ? start[v] : tir_const_int(&c->b, TIR_I32, 0);
    }
    tir_type t = tir_t_bptr(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_BLOCK_PTR, loc, ops, 1 + 3 * r, &t, 1);
    op->rank = r;
    /* order: fastest-varying first, i.e. by tensor dimension, innermost first */
    for (int k = 0, td = lay->tensor->rank - 1; td >= 0; td--)
        for (int v = 0; v < r; v++)
            if (lay->tdim[v] == td)
                op->order[k++] = v;
    remember(c, op->results[0], lay);
    return op->results[0];
}

tir_value *chk_ptile_block(chk *c, tir_value *p, lm_loc loc)
{
    if (p->type.kind == TIR_BPTR)
        return p;
    return materialise(c, p, loc);
}

/* ---- ptrs += step ---------------------------------------------------------- */

cval chk_ptile_advance(chk *c, tir_value *bp, tir_value *step, bool negate, lm_loc loc)
{
    const chk_playout *lay = chk_ptile_layout(c, bp);
    int r = lay->vrank;
    tir_value *ops[1 + TIR_MAX_RANK] = {bp};
    for (int v = 0; v < r; v++)
        ops[1 + v] = NULL;
    const tir_op *d = step->def;
    /* step = x * stride of a view dimension, as written */
    for (int v = 0; d && d->code == TIR_MUL && v < r; v++) {
        for (int k = 0; k < 2; k++) {
            const tir_value *m = d->opnds[k];
            if (m == lay->multv[v] || (m->sym && m->sym == lay->mult[v] && !is_one(m->sym))) {
                ops[1 + v] = d->opnds[1 - k];
                goto built;
            }
        }
    }
    /* else by its symbolic value: each monomial on the outermost view
       dimension whose stride divides it */
    if (!step->sym)
        chk_fail(c, loc, "cannot tell which dimension this step of a tile of pointers moves along");
    const sym_expr *e = step->sym;
    int nm = e->kind == SYM_ADD ? e->nargs : 1;
    const sym_expr *q[TIR_MAX_RANK] = {0};
    for (int k = 0; k < nm; k++) {
        const sym_expr *mono = e->kind == SYM_ADD ? e->args[k] : e;
        int best = -1;
        for (int v = 0; v < r; v++) {
            const sym_expr *m = lay->mult[v];
            if (m == sym_const(c->s, 0))
                continue;
            if (sym_mul(c->s, sym_floordiv(c->s, mono, m), m) == mono &&
                (best < 0 || lay->tdim[v] < lay->tdim[best]))
                best = v;
        }
        if (best < 0)
            chk_fail(c, loc, "this step of a tile of pointers (%s) is not a multiple of any of its strides",
                     sym_str(c->a, e));
        const sym_expr *part = sym_floordiv(c->s, mono, lay->mult[best]);
        q[best] = q[best] ? sym_add(c->s, q[best], part) : part;
    }
    for (int v = 0; v < r; v++)
        if (q[v])
            ops[1 + v] = tir_sym_value(&c->b, step->type.elem, q[v]);
built:
    for (int v = 0; v < r; v++) {
        if (!ops[1 + v])
            ops[1 + v] = tir_const_int(&c->b, TIR_I32, 0);
        else if (negate)
            ops[1 + v] = chk_build1(c, TIR_NEG, loc, ops[1 + v]->type, ops[1 + v], NULL, NULL);
    }
    tir_op *op = tir_op_build(&c->b, TIR_ADVANCE, loc, ops, 1 + r, &bp->type, 1);
    remember(c, op->results[0], lay);
    return cv_val(op->results[0]);
}

/* ---- masks ------------------------------------------------------------------- */

typedef struct pcond {
    bool has;
    tir_value *start, *bound; /* start + index < bound (+1 if le) */
    bool le;
} pcond;

/* map: dims of m -> dims of the mask as given */
static void mask_form(chk *c, const tir_value *m, const int *map, lm_loc use, pcond *out)
{
    const tir_op *d = m->def;
    int sub[TIR_MAX_RANK];
    if (d && (d->code == TIR_BROADCAST || d->code == TIR_EXPAND_DIMS)) {
        const tir_value *x = d->opnds[0];
        for (int j = 0; j < x->type.rank; j++)
            sub[j] = map[d->code == TIR_EXPAND_DIMS ? j + (j >= d->ival) : j + m->type.rank - x->type.rank];
        mask_form(c, x, sub, use, out);
        return;
    }
    if (d && d->code == TIR_AND) {
        mask_form(c, d->opnds[0], map, use, out);
        mask_form(c, d->opnds[1], map, use, out);
        return;
    }
    if (d && (d->code == TIR_CMP_LT || d->code == TIR_CMP_LE || d->code == TIR_CMP_GT || d->code == TIR_CMP_GE)) {
        bool flip = d->code == TIR_CMP_GT || d->code == TIR_CMP_GE;
        pform x, b;
        int_form(c, d->opnds[flip], use, &x);
        int_form(c, d->opnds[!flip], use, &b);
        if (!b.n && b.loose && as_index(c, &x, d->loc)) {
            pcond *pc = &out[map[x.t[0].dim]];
            if (pc->has)
                chk_fail(c, d->loc, "this mask bounds one dimension twice; loomc reads masks as one bound per "
                                    "dimension");
            *pc = (pcond){true, x.t[0].start, b.loose, d->code == TIR_CMP_LE || d->code == TIR_CMP_GE};
            return;
        }
    }
    chk_fail(c, d ? d->loc : use, "loomc reads the mask of a load or store through a tile of pointers as "
                                  "boundary checks: `offs < bound` on each dimension, combined with &; this is not "
                                  "of that form (used at line %d)",
             use.line);
}

/* The bound each tile dimension of the mask sets; the mask is broadcast to
 * the pointer tile's shape as Triton does. */
static void read_mask(chk *c, const cval *mv, lm_loc mloc, const chk_playout *lay, pcond *out)
{
    memset(out, 0, sizeof *out * TIR_MAX_RANK);
    if (!is_tile_val(mv) || mv->v->type.elem != TIR_I1)
        chk_fail(c, mloc, "the mask must be a tile of booleans (a comparison), got %s", chk_describe(c, mv));
    const tir_value *m = mv->v;
    if (m->type.rank > lay->rank)
        chk_fail(c, mloc, "the mask has shape %s, which does not fit the pointer tile %s", tshape(c, &m->type),
                 chk_shape_str(c, lay->rank, lay->shape));
    int map[TIR_MAX_RANK];
    for (int j = 0; j < m->type.rank; j++)
        map[j] = j + lay->rank - m->type.rank;
    mask_form(c, m, map, mloc, out);
}

/* ---- proofs, run on the finished function -------------------------------------- */

static void defer(chk *c, const tir_op *op, const chk_playout *lay, int vd, tir_value *start, tir_value *bound,
                  bool le, bool wrap, lm_loc loc)
{
    chk_reject_from_memory(c, bound, loc, "the bound of this mask");
    if (c->nproofs == c->capproofs) {
        int cap = c->capproofs ? 2 * c->capproofs : 8;
        chk_proof *n = LM_NEWN(c->a, chk_proof, (size_t)cap);
        if (c->nproofs)
            memcpy(n, c->proofs, sizeof *n * (size_t)c->nproofs);
        c->proofs = n;
        c->capproofs = cap;
    }
    c->proofs[c->nproofs++] =
        (chk_proof){op, lay->tensor, lay->tdim[vd], start, bound, le, wrap, loc};
}

/* Boundary-check bits (per view dimension) from the mask and the wraps. */
static unsigned bounds_of(chk *c, const cargs *a, int mi, const chk_playout *lay, pcond *conds, lm_loc *locs)
{
    unsigned bits = 0;
    memset(conds, 0, sizeof *conds * TIR_MAX_RANK);
    if (given(a, mi))
        read_mask(c, &a->v[mi], aloc(a, mi), lay, conds);
    for (int i = 0; i < lay->rank; i++) {
        if (!conds[i].has)
            continue;
        if (lay->vdim[i] < 0)
            chk_fail(c, aloc(a, mi), "the mask bounds dimension %d of the pointer tile, which has size 1 and does "
                                     "not move",
                     i);
        bits |= 1u << lay->vdim[i];
        locs[i] = aloc(a, mi);
    }
    for (int w = 0; w < lay->nwrap; w++)
        bits |= 1u << lay->vdim[lay->wrap[w].dim];
    return bits;
}

static void defer_all(chk *c, const tir_op *op, const chk_playout *lay, const pcond *conds, const lm_loc *locs)
{
    for (int i = 0; i < lay->rank; i++)
        if (conds[i].has)
            defer(c, op, lay, lay->vdim[i], conds[i].start, conds[i].bound, conds[i].le, false, locs[i]);
    for (int w = 0; w < lay->nwrap; w++) {
        const pterm *t = &lay->wrap[w];
        defer(c, op, lay, lay->vdim[t->dim], t->start, t->wrap, false, true, t->wloc);
    }
}

static void prove(chk *c, const chk_proof *p, const acc_result *r)
{
    const acc_access *acc = NULL;
    for (int i = 0; i < r->n && !acc; i++)
        if (r->acc[i].op == p->op)
            acc = &r->acc[i];
    const sym_expr *ext = p->tensor->shape[p->tdim];
    const sym_expr *off = acc && acc->tensor == p->tensor && acc->rank == p->tensor->rank ? acc->dims[p->tdim].offset
                                                                                         : NULL;
    const sym_expr *lim = NULL;
    if (off && p->bound->sym && (!p->start || p->start->sym)) {
        lim = sym_add(c->s, sym_sub(c->s, p->bound->sym, sym_or(c, p->start, 0)), off);
        if (p->le)
            lim = sym_add(c->s, lim, sym_const(c->s, 1));
    }
    int64_t lv, ev;
    /* equal as written, or at this launch's sizes (the job is compiled for them) */
    if (lim == ext || (lim && ct_known(c, lim, &lv) && ct_known(c, ext, &ev) && lv == ev))
        return;
    const char *what = p->wrap ? "this wrap" : "this mask";
    if (!lim)
        chk_fail(c, p->loc, "cannot show that %s keeps dimension %d of '%s' inside the tensor; loomc reads masks "
                            "and wraps only as boundary checks",
                 what, p->tdim, p->tensor->name);
    chk_fail(c, p->loc, "%s is not the edge of '%s': along its dimension %d it keeps indices below %s, but the "
                        "extent is %s; loomc reads masks and wraps only as boundary checks",
             what, p->tensor->name, p->tdim, sym_str(c->a, lim), sym_str(c->a, ext));
}

void chk_ptile_verify(chk *c)
{
    if (!c->nproofs)
        return;
    acc_result *r = acc_analyze(c->f, c->s, c->a);
    for (int i = 0; i < c->nproofs; i++)
        prove(c, &c->proofs[i], r);
}

/* ---- block pointers that walk their tensor out of order ------------------------- */

/* A 2-D block pointer whose first dimension walks the tensor's later one
 * (K^T of attention: make_block_ptr(K, (D, S), (stride_kd, stride_ks), ...,
 * order=(0, 1))) is made in the tensor's order instead - shape, strides,
 * offsets and block swapped, builtins.c - and remembered as swapped: an
 * advance swaps its offsets, a load its boundary-check bits and transposes
 * the tile, a store transposes the value. That is the Tile IR a tile of
 * pointers with swapped strides gives (in_tensor_order), which the
 * lowering reads. The tensor dimension a stride walks is matched as the
 * access analysis and place_view match it: the innermost one not taken. */
bool chk_bptr_reversed(chk *c, const tir_value *base, tir_value *const *strides, int rank)
{
    const tir_tensor *t = rank == 2 ? tensor_of(c, base) : NULL;
    if (!t || !t->strides)
        return false;
    bool used[TIR_MAX_RANK] = {0};
    int td[2];
    for (int i = 0; i < 2; i++) {
        const sym_expr *st = strides[i]->sym;
        int d = t->rank - 1;
        while (d >= 0 && (used[d] || !st || t->strides[d] != st))
            d--;
        if (d < 0)
            return false;
        used[d] = true;
        td[i] = d;
    }
    return td[0] > td[1];
}

void chk_bptr_note_swapped(chk *c, tir_value *bp)
{
    chk_playout *lay = LM_NEW(c->a, chk_playout);
    lay->bptr = lay->trans = true;
    lay->rank = lay->vrank = 2;
    remember(c, bp, lay);
}

bool chk_bptr_swapped(chk *c, const tir_value *bp)
{
    const chk_playout *lay = layout_of(c, bp);
    return lay && lay->bptr;
}

unsigned chk_bptr_swap_bits(unsigned bits) { return (bits & ~3u) | (bits >> 1 & 1u) | (bits << 1 & 2u); }

/* ---- loads and stores ----------------------------------------------------------- */

/* A block load's tile brought back to the pointer tile's shape. */
static tir_value *unview(chk *c, tir_value *x, const chk_playout *lay, lm_loc loc)
{
    if (lay->trans)
        x = chk_transpose(c, x, loc, "a transposed tile of pointers");
    if (lay->vrank == lay->rank)
        return x;
    return chk_build1(c, TIR_VIEW, loc, chk_tile_t(c, x->type.elem, lay->rank, lay->shape), x, NULL, NULL);
}

cval chk_ptile_load(chk *c, const cargs *a, lm_loc call)
{
    if (given(a, 3) || given(a, 4))
        chk_fail(c, aloc(a, given(a, 3) ? 3 : 4), "tl.load through a tile of pointers takes mask= and other=, not "
                                                 "boundary_check= or padding_option=");
    tir_value *bp = chk_ptile_block(c, a->v[0].v, call);
    const chk_playout *lay = chk_ptile_layout(c, bp);
    pcond conds[TIR_MAX_RANK];
    lm_loc locs[TIR_MAX_RANK];
    unsigned bits = bounds_of(c, a, 1, lay, conds, locs);
    tir_type t = tir_t_tile(c->a, bp->type.elem, bp->type.rank, bp->type.shape);
    tir_value *v = chk_build1(c, TIR_LOAD, call, t, bp, NULL, NULL);
    v->def->bcheck = bits;
    v->def->padding = bits ? TIR_PAD_ZERO : TIR_PAD_NONE;
    defer_all(c, v->def, lay, conds, locs);
    v = unview(c, v, lay, call);
    /* other= where it is not the zero the padding gives */
    if (given(a, 1) && given(a, 2)) {
        const cval *o = &a->v[2];
        bool zero = (o->kind == FE_V_INT && o->i == sym_const(c->s, 0)) ||
                    (o->kind == FE_V_FLOAT && o->f == 0.0);
        if (!zero) {
            tir_value *ov = chk_cast_to(c, chk_as_tile(c, o, aloc(a, 2), "other="), v->type.elem, aloc(a, 2));
            tir_value *m = chk_broadcast_to(c, a->v[1].v, v->type.rank, v->type.shape, aloc(a, 1));
            ov = chk_broadcast_to(c, ov, v->type.rank, v->type.shape, aloc(a, 2));
            v = chk_build1(c, TIR_WHERE, call, v->type, m, v, ov);
        }
    }
    return cv_val(v);
}

void chk_ptile_store(chk *c, const cargs *a, lm_loc call)
{
    if (given(a, 3))
        chk_fail(c, aloc(a, 3), "tl.store through a tile of pointers takes mask=, not boundary_check=");
    tir_value *bp = chk_ptile_block(c, a->v[0].v, call);
    const chk_playout *lay = chk_ptile_layout(c, bp);
    pcond conds[TIR_MAX_RANK];
    lm_loc locs[TIR_MAX_RANK];
    unsigned bits = bounds_of(c, a, 2, lay, conds, locs);
    tir_type whole = tir_t_tile(c->a, bp->type.elem, lay->rank, lay->shape);
    tir_value *v = chk_store_value(c, &a->v[1], aloc(a, 1), &whole, "the stored value");
    if (lay->trans) {
        const sym_expr *sh[2] = {bp->type.shape[1], bp->type.shape[0]};
        if (lay->vrank != lay->rank)
            v = chk_build1(c, TIR_VIEW, call, chk_tile_t(c, v->type.elem, 2, sh), v, NULL, NULL);
        v = chk_transpose(c, v, call, "a transposed tile of pointers");
    } else if (lay->vrank != lay->rank) {
        v = chk_build1(c, TIR_VIEW, call, chk_tile_t(c, v->type.elem, bp->type.rank, bp->type.shape), v, NULL, NULL);
    }
    tir_value *ops[2] = {bp, v};
    tir_op *op = tir_op_build(&c->b, TIR_STORE, call, ops, 2, NULL, 0);
    op->bcheck = bits;
    defer_all(c, op, lay, conds, locs);
}

/* ---- one element through a scalar pointer --------------------------------------- */

/* A scalar pointer `base + offset` as a one-element block over the whole
 * tensor: each summand of the offset on the outermost dimension whose
 * stride divides it (as base offsets are placed), what no stride divides
 * moving the base. */
static tir_value *scalar_block(chk *c, tir_value *p, lm_loc loc)
{
    tir_value *base = p, *off = NULL;
    while (base->def && base->def->code == TIR_ADDPTR) {
        off = s_add(c, base->def->opnds[1], off, loc);
        base = base->def->opnds[0];
    }
    const tir_tensor *t = tensor_of(c, base);
    if (!t || !t->strides)
        chk_fail(c, loc, "the base of this pointer is not a pointer argument bound to a tensor");
    if (off)
        chk_reject_from_memory(c, off, loc, "the offset of this pointer");
    int r = t->rank;
    tir_value *start[TIR_MAX_RANK] = {0}, *rest = NULL, *parts[32];
    int n = off ? summands(c, off, parts, 0, (int)LM_COUNT(parts), loc) : 0;
    for (int i = 0; i < n; i++) {
        int td = dim_of(c, t, parts[i]->sym);
        tir_value *q = td >= 0 ? quotient(c, parts[i], t->strides[td]) : NULL;
        if (q)
            start[td] = s_add(c, start[td], q, loc);
        else
            rest = s_add(c, rest, parts[i], loc);
    }
    if (rest)
        base = chk_build1(c, TIR_ADDPTR, loc, base->type, base, rest, NULL);
    const sym_expr *blk[TIR_MAX_RANK];
    tir_value *ops[1 + 3 * TIR_MAX_RANK] = {base};
    for (int d = 0; d < r; d++) {
        blk[d] = sym_const(c->s, 1);
        ops[1 + d] = tir_sym_value(&c->b, TIR_I32, t->shape[d]);
        ops[1 + r + d] = tir_sym_value(&c->b, TIR_I32, t->strides[d]);
        ops[1 + 2 * r + d] = start[d] ? start[d] : tir_const_int(&c->b, TIR_I32, 0);
    }
    tir_type bt = tir_t_bptr(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_BLOCK_PTR, loc, ops, 1 + 3 * r, &bt, 1);
    op->rank = r;
    for (int k = 0; k < r; k++)
        op->order[k] = r - 1 - k;
    return op->results[0];
}

static void no_mask(chk *c, const cargs *a, int mi, bool store)
{
    if (given(a, mi))
        chk_fail(c, aloc(a, mi), "a mask on a %s of one element through a scalar pointer is not supported; "
                                 "the element must always be in the tensor",
                 store ? "store" : "load");
}

cval chk_ptile_scalar_load(chk *c, const cargs *a, lm_loc call)
{
    no_mask(c, a, 1, false);
    if (given(a, 3) || given(a, 4))
        chk_fail(c, aloc(a, given(a, 3) ? 3 : 4), "tl.load through a scalar pointer takes no boundary_check= or "
                                                 "padding_option=");
    tir_value *bp = scalar_block(c, a->v[0].v, call);
    tir_value *v = chk_build1(c, TIR_LOAD, call, tir_t_tile(c->a, bp->type.elem, bp->type.rank, bp->type.shape),
                              bp, NULL, NULL);
    return cv_val(chk_build1(c, TIR_VIEW, call, tir_t_scalar(bp->type.elem), v, NULL, NULL));
}

void chk_ptile_scalar_store(chk *c, const cargs *a, lm_loc call)
{
    no_mask(c, a, 2, true);
    if (given(a, 3))
        chk_fail(c, aloc(a, 3), "tl.store through a scalar pointer takes no boundary_check=");
    tir_value *bp = scalar_block(c, a->v[0].v, call);
    tir_type one = tir_t_scalar(bp->type.elem);
    tir_value *v = chk_store_value(c, &a->v[1], aloc(a, 1), &one, "the stored value");
    v = chk_build1(c, TIR_VIEW, call, chk_tile_t(c, v->type.elem, bp->type.rank, bp->type.shape), v, NULL, NULL);
    tir_value *ops[2] = {bp, v};
    tir_op_build(&c->b, TIR_STORE, call, ops, 2, NULL, 0);
}
