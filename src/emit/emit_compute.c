/* emit_compute.c - the compute ops of a dataflow program other than matmul
 * (eltwise, sfpu, reduce, copy, fill, mask, transpose, chain) as calls of
 * loomc_compute.h's helpers, one tile at a time through Dst; the checks
 * their translations need; and the extra CBs a class's compute kernel needs
 * for them (emit_class_extras).
 *
 * A chain is written out inline: for each tile of its block, the tile
 * enters Dst (through its first step when that is an element-wise op on
 * the chain's input, so that a broadcast operand is unpacked with it, as
 * TTNN's SDPA does for `sub_tiles_bcast_cols`), each later step works on
 * it there (an element-wise op with Dst as one operand - a broadcast
 * operand broadcast into a second Dst tile and combined on the SFPU -, an
 * SFPU function, a mask), and it is packed once.
 */
#include "emit/emit_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void indent(lm_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        lm_buf_puts(b, "    ");
}

static const char *const binop_names[DF_NELTOPS] = {"loomc::ADD", "loomc::SUB", "loomc::MUL", "loomc::MAX"};
static const char *const bcast_names[DF_NBCASTS] = {"loomc::NO_BCAST", "loomc::BCAST_COL", "loomc::BCAST_ROW",
                                                    "loomc::BCAST_SCALAR"};
static const char *const sfpu_names[DF_NSFPUOPS] = {
    [DF_EXP] = "loomc::EXP", [DF_EXP2] = "loomc::EXP2", [DF_LOG] = "loomc::LOG", [DF_RECIP] = "loomc::RECIP",
    [DF_SQRT] = "loomc::SQRT", [DF_RSQRT] = "loomc::RSQRT", [DF_SIGMOID] = "loomc::SIGMOID",
    [DF_NEG] = "loomc::NEG", [DF_SCALE] = "loomc::SCALE", [DF_GTZ] = "loomc::GTZ", [DF_GEZ] = "loomc::GEZ",
    [DF_LTZ] = "loomc::LTZ", [DF_LEZ] = "loomc::LEZ", [DF_EQZ] = "loomc::EQZ", [DF_NEZ] = "loomc::NEZ",
};

/* A float constant as C++ (the infinities by name; "1" becomes "1.0f"). */
static void flt(lm_buf *b, double v)
{
    if (isinf(v)) {
        lm_buf_puts(b, v < 0 ? "-__builtin_inff()" : "__builtin_inff()");
        return;
    }
    char t[64];
    snprintf(t, sizeof t, "%.9g", v);
    lm_buf_printf(b, "%s%sf", t, strpbrk(t, ".e") ? "" : ".0");
}

static void ex(lm_buf *b, const df_class *c, const df_expr *e) { emit_expr(b, c, e); }

/* ---- checks --------------------------------------------------------------------- */

bool emit_compute_ok(const df_program *p, const df_class *c, const df_stmt *st, lm_diag *d)
{
    (void)p;
    if (st->op == DF_PCHAIN && st->front) {
        lm_error(d, st->loc, "no TT-Metalium translation of a pchain whose result is written in place (front=1) yet "
                 "(class '%s')", c->name);
        return false;
    }
    return true;
}

/* ---- what a class's compute kernel needs ------------------------------------------ */

static bool needs_mask(const df_stmt *st)
{
    if (st->op == DF_MASK)
        return true;
    if (st->op == DF_CHAIN || st->op == DF_PCHAIN)
        for (int k = 0; k < st->nbody; k++)
            if (st->body[k]->op == DF_MASK)
                return true;
    return false;
}

static void scan_needs(df_stmt *const *body, int n, bool *reduce, bool *fold, bool *mask)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *st = body[i];
        *reduce |= st->op == DF_REDUCE || st->op == DF_ROWMAX;
        *fold |= st->op == DF_REDUCE && st->fold;
        *mask |= needs_mask(st);
        if (st->op == DF_FOR)
            scan_needs(st->body, st->nbody, reduce, fold, mask);
    }
}

bool emit_class_extras(const df_program *p, const df_class *c, const arch_desc *a, emit_extras *x, lm_diag *d)
{
    (void)p;
    x->scaler = x->fold = x->iota = -1;
    bool reduce = false, fold = false, mask = false;
    const df_kernel *k = &c->kernels[DF_COMPUTE];
    scan_needs(k->body, k->nbody, &reduce, &fold, &mask);
    int *want[DF_NSUPPORT] = {[DF_SUP_SCALER] = reduce ? &x->scaler : NULL, [DF_SUP_FOLD] = fold ? &x->fold : NULL,
                              [DF_SUP_IOTA] = mask ? &x->iota : NULL};
    int id = a->num_cbs - 1;
    for (int w = 0; w < DF_NSUPPORT; w++) {
        if (!want[w])
            continue;
        if (c->support[w] >= 0) {
            *want[w] = c->support[w]; /* the program's own: declared, so created with its CBs */
            continue;
        }
        while (id >= 0 && emit_class_has_cb(c, id))
            id--;
        if (id < 0) {
            lm_error(d, c->loc, "class '%s' uses every CB id; loomc emit needs free ones for its reductions and masks",
                     c->name);
            return false;
        }
        *want[w] = id--;
    }
    return true;
}

/* ---- statements ----------------------------------------------------------------- */

/* `{r, c, k}` of a mask predicate. */
static void pred(lm_buf *b, const df_class *c, const df_expr *r, const df_expr *cc, const df_expr *k)
{
    lm_buf_puts(b, "{");
    ex(b, c, r);
    lm_buf_puts(b, ", ");
    ex(b, c, cc);
    lm_buf_puts(b, ", ");
    ex(b, c, k);
    lm_buf_puts(b, "}");
}

/* The call that applies chain step sp to Dst[0], for tile `t` of the chain's block. */
static void chain_step(lm_buf *b, int depth, const df_class *c, const df_stmt *chain, const df_stmt *sp,
                       const emit_extras *x)
{
    indent(b, depth);
    switch (sp->op) {
    case DF_SFPU:
        if (chain->op == DF_PCHAIN && chain->scalar != 1.0 && (sp->sub == DF_EXP || sp->sub == DF_EXP2)) {
            /* the pchain's scale, taken into the exponential's argument */
            lm_buf_puts(b, "loomc::sfpu(loomc::SCALE, false, ");
            flt(b, chain->scalar);
            lm_buf_puts(b, ", 0);\n");
            indent(b, depth);
        }
        lm_buf_printf(b, "loomc::sfpu(%s, %s, ", sfpu_names[sp->sub], sp->exact ? "true" : "false");
        flt(b, sp->scalar);
        lm_buf_puts(b, ", 0);\n");
        return;
    case DF_ELTWISE:
        if (sp->bcast != DF_BC_NONE) {
            /* (rev never comes with a broadcast: df_validate) */
            lm_buf_printf(b, "loomc::binary_dst_bcast(%s, %s, ", binop_names[sp->sub], bcast_names[sp->bcast]);
            emit_cb(b, c, sp->cb_b);
            lm_buf_puts(b, ", ");
            ex(b, c, sp->at_b);
            lm_buf_printf(b, " + loomc::bcast_page(%s, loomc_tile, ", bcast_names[sp->bcast]);
            ex(b, c, chain->cols);
            lm_buf_puts(b, "));\n");
            return;
        }
        lm_buf_printf(b, "loomc::binary_dst(%s, %s, ", binop_names[sp->sub], sp->rev ? "true" : "false");
        emit_cb(b, c, sp->cb_b);
        lm_buf_puts(b, ", ");
        ex(b, c, sp->at_b);
        lm_buf_puts(b, " + loomc_tile);\n");
        return;
    case DF_MASK:
        lm_buf_printf(b, "loomc::mask(%d, ", x->iota); /* an extra CB: never swapped */
        ex(b, c, sp->row);
        lm_buf_puts(b, " + loomc_tile / ");
        ex(b, c, chain->cols);
        lm_buf_puts(b, ", ");
        ex(b, c, sp->col);
        lm_buf_puts(b, " + loomc_tile % ");
        ex(b, c, chain->cols);
        lm_buf_puts(b, ", ");
        pred(b, c, sp->p1r, sp->p1c, sp->p1k);
        lm_buf_puts(b, ", ");
        pred(b, c, sp->p2r, sp->p2c, sp->p2k);
        lm_buf_puts(b, ", ");
        flt(b, sp->scalar);
        lm_buf_puts(b, ");\n");
        return;
    default:
        LM_BUG("emit: chain step '%s'", df_ops[sp->op].name);
    }
}

/* An expression tested != 0, as a C++ bool. */
static void call_arg_flag(lm_buf *b, const df_class *c, const df_expr *e)
{
    if (e->kind == DF_X_CONST) {
        lm_buf_puts(b, e->value ? "true" : "false");
        return;
    }
    lm_buf_puts(b, "(");
    ex(b, c, e);
    lm_buf_puts(b, ") != 0");
}

/* A chain, or a pchain (its SFPU steps on the math thread - the values are
   the same; its scale multiplied into the argument of its exponentials just
   before them; column 0 alone asked of its SFPU steps computed over the
   whole tile, column 0 the same; in place refused above). */
static void stmt_chain(lm_buf *b, int depth, const df_class *c, const df_stmt *st, const emit_extras *x)
{
    indent(b, depth);
    lm_buf_puts(b, "for (int32_t loomc_tile = 0; loomc_tile < ");
    ex(b, c, st->rows);
    lm_buf_puts(b, " * ");
    ex(b, c, st->cols);
    lm_buf_puts(b, "; loomc_tile++) {\n");
    indent(b, depth + 1);
    lm_buf_puts(b, "tile_regs_acquire();\n");
    int k0 = 0;
    const df_stmt *s0 = st->nbody ? st->body[0] : NULL;
    indent(b, depth + 1);
    if (s0 && s0->op == DF_ELTWISE && !s0->rev) {
        /* the first step unpacks the chain's input with its operand */
        lm_buf_printf(b, "loomc::binary(%s, %s, ", binop_names[s0->sub], bcast_names[s0->bcast]);
        emit_cb(b, c, st->cb);
        lm_buf_puts(b, ", ");
        ex(b, c, st->at);
        lm_buf_puts(b, " + loomc_tile, ");
        emit_cb(b, c, s0->cb_b);
        lm_buf_puts(b, ", ");
        ex(b, c, s0->at_b);
        lm_buf_printf(b, " + loomc::bcast_page(%s, loomc_tile, ", bcast_names[s0->bcast]);
        ex(b, c, st->cols);
        lm_buf_puts(b, "));\n");
        k0 = 1;
    } else {
        lm_buf_puts(b, "loomc::load(");
        emit_cb(b, c, st->cb);
        lm_buf_puts(b, ", ");
        ex(b, c, st->at);
        lm_buf_puts(b, " + loomc_tile, 0);\n");
    }
    for (int k = k0; k < st->nbody; k++)
        chain_step(b, depth + 1, c, st, st->body[k], x);
    indent(b, depth + 1);
    if (st->op == DF_PCHAIN && st->cb_sum >= 0) {
        /* packed twice: the result, and into its row's page of the sums
           with packer L1 accumulation (the row's first tile overwrites
           unless sum_acc) */
        lm_buf_puts(b, "loomc::pack_sum(");
        emit_cb(b, c, st->cb_out);
        lm_buf_puts(b, ", ");
        ex(b, c, st->at_out);
        lm_buf_puts(b, " + loomc_tile, ");
        emit_cb(b, c, st->cb_sum);
        lm_buf_puts(b, ", ");
        ex(b, c, st->at_sum);
        lm_buf_puts(b, " + loomc_tile / ");
        ex(b, c, st->cols);
        lm_buf_puts(b, ", loomc_tile % ");
        ex(b, c, st->cols);
        lm_buf_puts(b, " != 0 || ");
        call_arg_flag(b, c, st->sum_acc);
        lm_buf_puts(b, ");\n");
    } else {
        lm_buf_puts(b, "loomc::pack_one(");
        emit_cb(b, c, st->cb_out);
        lm_buf_puts(b, ", ");
        ex(b, c, st->at_out);
        lm_buf_puts(b, " + loomc_tile, false);\n");
    }
    indent(b, depth);
    lm_buf_puts(b, "}\n");
}

/* `fn(fields...)` where fmt lists the fields: 'e' an expression, 'c' a CB
 * id, 'f' a flag, 'x' a float, 't' text, 'a' an expression tested != 0. */
static void call(lm_buf *b, int depth, const df_class *c, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    indent(b, depth);
    lm_buf_printf(b, "%s(", fn);
    for (const char *f = fmt; *f; f++) {
        if (f != fmt)
            lm_buf_puts(b, ", ");
        switch (*f) {
        case 'e':
            ex(b, c, va_arg(ap, const df_expr *));
            break;
        case 'a': {
            const df_expr *e = va_arg(ap, const df_expr *);
            if (e->kind == DF_X_CONST) {
                lm_buf_puts(b, e->value ? "true" : "false");
            } else {
                ex(b, c, e);
                lm_buf_puts(b, " != 0");
            }
            break;
        }
        case 'c':
            emit_cb(b, c, va_arg(ap, int));
            break;
        case 'f':
            lm_buf_puts(b, va_arg(ap, int) ? "true" : "false");
            break;
        case 'x':
            flt(b, va_arg(ap, double));
            break;
        case 't':
            lm_buf_puts(b, va_arg(ap, const char *));
            break;
        }
    }
    va_end(ap);
    lm_buf_puts(b, ");\n");
}

void emit_compute_stmt(lm_buf *b, int depth, const df_program *p, const df_class *c, const df_stmt *st,
                       const emit_extras *x)
{
    (void)p;
    switch (st->op) {
    case DF_FILL:
        call(b, depth, c, "loomc::fill", "cexe", st->cb_out, st->n, st->scalar, st->at_out);
        return;
    case DF_COPY:
        call(b, depth, c, "loomc::copy", "cceeea", st->cb, st->cb_out, st->n, st->at, st->at_out, st->acc);
        return;
    case DF_ELTWISE:
        call(b, depth, c, "loomc::eltwise", "tccceeteeea", binop_names[st->sub], st->cb, st->cb_b, st->cb_out, st->rows,
             st->cols, bcast_names[st->bcast], st->at, st->at_b, st->at_out, st->acc);
        return;
    case DF_SFPU:
        call(b, depth, c, "loomc::sfpu_op", "tfxcceee", sfpu_names[st->sub], st->exact, st->scalar, st->cb, st->cb_out,
             st->n, st->at, st->at_out);
        return;
    case DF_TRANSPOSE:
        call(b, depth, c, "loomc::transpose", "cceeee", st->cb, st->cb_out, st->rows, st->cols, st->at, st->at_out);
        return;
    case DF_REDUCE:
        call(b, depth, c, st->sub == DF_RMAX ? "loomc::reduce_rows<PoolType::MAX>" : "loomc::reduce_rows<PoolType::SUM>",
             "cceeeefcc", st->cb, st->cb_out, st->rows, st->cols, st->at, st->at_out, st->fold, x->scaler,
             x->fold >= 0 ? x->fold : x->scaler);
        return;
    case DF_MASK: {
        indent(b, depth);
        lm_buf_printf(b, "loomc::mask_op(%d, ", x->iota);
        emit_cb(b, c, st->cb);
        lm_buf_puts(b, ", ");
        emit_cb(b, c, st->cb_out);
        lm_buf_puts(b, ", ");
        const df_expr *e[] = {st->rows, st->cols, st->at, st->at_out, st->row, st->col};
        for (size_t i = 0; i < LM_COUNT(e); i++) {
            ex(b, c, e[i]);
            lm_buf_puts(b, ", ");
        }
        pred(b, c, st->p1r, st->p1c, st->p1k);
        lm_buf_puts(b, ", ");
        pred(b, c, st->p2r, st->p2c, st->p2k);
        lm_buf_puts(b, ", ");
        flt(b, st->scalar);
        lm_buf_puts(b, ");\n");
        return;
    }
    case DF_CHAIN:
    case DF_PCHAIN:
        stmt_chain(b, depth, c, st, x);
        return;
    case DF_ROWMAX:
        indent(b, depth);
        lm_buf_puts(b, "loomc::rowmax(");
        emit_cb(b, c, st->cb);
        lm_buf_puts(b, ", ");
        emit_cb(b, c, st->cb_out);
        lm_buf_puts(b, ", ");
        if (st->cb_b >= 0)
            emit_cb(b, c, st->cb_b);
        else
            lm_buf_puts(b, "-1");
        {
            const df_expr *e[] = {st->rows, st->cols, st->at, st->rs, st->bw, st->bs, st->at_b, st->at_out};
            for (size_t i = 0; i < LM_COUNT(e); i++) {
                lm_buf_puts(b, ", ");
                ex(b, c, e[i]);
            }
        }
        lm_buf_printf(b, ", %d);\n", x->scaler);
        return;
    default:
        LM_BUG("emit: compute op '%s'", df_ops[st->op].name);
    }
}
