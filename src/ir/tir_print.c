/* tir_print.c - the stable text form of the Tile IR (declared in tir.h).
 *
 * Golden tests compare this text, so it depends only on the IR: values are
 * numbered %0, %1, ... in the order they appear in the text, shapes are
 * printed with sym_print (canonical, so independent of construction order),
 * floats in their shortest round-trip form. docs/tile-ir.md shows examples.
 */
#include "ir/tir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tir_format_float(char *out, size_t n, double v)
{
    if (isnan(v)) {
        snprintf(out, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, n, v < 0 ? "-inf" : "inf");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            break;
    }
    /* keep a float recognisable as one */
    if (!strpbrk(out, ".e"))
        snprintf(out + strlen(out), n - strlen(out), ".0");
}

static void print_dim(lm_buf *b, const sym_expr *e)
{
    if (!e) {
        lm_buf_puts(b, "?");
        return;
    }
    bool paren = e->kind == SYM_ADD;
    if (paren)
        lm_buf_putc(b, '(');
    sym_print(b, e);
    if (paren)
        lm_buf_putc(b, ')');
}

static void print_dims(lm_buf *b, const tir_type *t)
{
    for (int i = 0; i < t->rank; i++) {
        print_dim(b, t->shape[i]);
        lm_buf_puts(b, " x ");
    }
}

void tir_print_type(lm_buf *b, const tir_type *t)
{
    const char *e = tir_elem_name(t->elem);
    switch (t->kind) {
    case TIR_TILE:
        if (t->rank == 0) {
            lm_buf_puts(b, e);
            return;
        }
        lm_buf_puts(b, "tile<");
        print_dims(b, t);
        lm_buf_printf(b, "%s>", e);
        return;
    case TIR_PTR:
        if (t->rank == 0) {
            lm_buf_printf(b, "ptr<%s>", e);
            return;
        }
        lm_buf_puts(b, "tile<");
        print_dims(b, t);
        lm_buf_printf(b, "ptr<%s>>", e);
        return;
    case TIR_BPTR:
        lm_buf_puts(b, "bptr<");
        print_dims(b, t);
        lm_buf_printf(b, "%s>", e);
        return;
    case TIR_DESC:
        lm_buf_puts(b, "desc<");
        print_dims(b, t);
        lm_buf_printf(b, "%s>", e);
        return;
    }
    LM_BUG("bad type kind %d", (int)t->kind);
}

const char *tir_type_str(lm_arena *a, const tir_type *t)
{
    lm_buf b = {0};
    tir_print_type(&b, t);
    const char *s = lm_arena_strdup(a, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

/* ---- numbering ----------------------------------------------------------- */

static void number_block(const tir_block *blk, int *n)
{
    for (int i = 0; i < blk->nargs; i++)
        blk->args[i]->num = (*n)++;
    for (const tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            op->results[i]->num = (*n)++;
        for (int r = 0; r < op->nregions; r++)
            number_block(op->regions[r], n);
    }
}

void tir_number(tir_func *f)
{
    int n = 0;
    number_block(f->body, &n);
}

/* ---- ops ----------------------------------------------------------------- */

static void pv(lm_buf *b, const tir_value *v)
{
    if (!v)
        lm_buf_puts(b, "%<null>");
    else if (v->num < 0)
        lm_buf_printf(b, "%%<unnumbered #%d>", v->uid);
    else
        lm_buf_printf(b, "%%%d", v->num);
}

static void pv_list(lm_buf *b, tir_value *const *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (i)
            lm_buf_puts(b, ", ");
        pv(b, v[i]);
    }
}

static void pv_bracket(lm_buf *b, tir_value *const *v, int n)
{
    lm_buf_putc(b, '[');
    pv_list(b, v, n);
    lm_buf_putc(b, ']');
}

static void print_number(lm_buf *b, const tir_op *op)
{
    if (op->is_float) {
        char s[40];
        tir_format_float(s, sizeof s, op->fval);
        lm_buf_puts(b, s);
    } else {
        lm_buf_printf(b, "%lld", (long long)op->ival);
    }
}

static void print_bcheck(lm_buf *b, unsigned mask)
{
    if (!mask)
        return;
    lm_buf_puts(b, ", boundary_check=[");
    bool first = true;
    for (int d = 0; d < TIR_MAX_RANK; d++) {
        if (!(mask & (1u << d)))
            continue;
        lm_buf_printf(b, first ? "%d" : ", %d", d);
        first = false;
    }
    lm_buf_putc(b, ']');
}

static void indent_to(lm_buf *b, int indent)
{
    for (int i = 0; i < indent; i++)
        lm_buf_puts(b, "  ");
}

static void print_block_ops(lm_buf *b, const tir_block *blk, int indent)
{
    for (const tir_op *op = blk->first; op; op = op->next)
        tir_print_op(b, op, indent);
}

/* The part of an op line between its name and the ` : types`. */
static void print_operands(lm_buf *b, const tir_op *op)
{
    tir_value *const *o = op->opnds;
    int n = op->nopnds;
    switch (op->code) {
    case TIR_PROGRAM_ID:
    case TIR_NUM_PROGRAMS: lm_buf_printf(b, " %lld", (long long)op->ival); return;
    case TIR_CONST:
    case TIR_FULL: lm_buf_putc(b, ' '); print_number(b, op); return;
    case TIR_SYM: lm_buf_putc(b, ' '); sym_print(b, op->sym); return;
    case TIR_ARANGE:
        lm_buf_putc(b, ' ');
        sym_print(b, op->sym);
        lm_buf_puts(b, ", ");
        sym_print(b, op->sym2);
        return;
    case TIR_EXPAND_DIMS:
        lm_buf_putc(b, ' ');
        pv_list(b, o, n);
        lm_buf_printf(b, ", axis=%lld", (long long)op->ival);
        return;
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_MIN:
    case TIR_REDUCE_SUM:
        lm_buf_putc(b, ' ');
        pv_list(b, o, n);
        lm_buf_printf(b, ", axis=%lld%s", (long long)op->ival, op->keep_dims ? ", keep_dims" : "");
        return;
    case TIR_DOT:
        lm_buf_putc(b, ' ');
        pv_list(b, o, n < 2 ? n : 2);
        if (n > 2) {
            lm_buf_puts(b, ", acc=");
            pv(b, o[2]);
        }
        if (op->precision)
            lm_buf_printf(b, ", input_precision=%s", op->precision);
        return;
    case TIR_MAKE_BLOCK_PTR: {
        int r = op->rank;
        if (n != 1 + 3 * r)
            break;
        lm_buf_putc(b, ' ');
        pv(b, o[0]);
        lm_buf_puts(b, ", shape=");
        pv_bracket(b, o + 1, r);
        lm_buf_puts(b, ", strides=");
        pv_bracket(b, o + 1 + r, r);
        lm_buf_puts(b, ", offsets=");
        pv_bracket(b, o + 1 + 2 * r, r);
        lm_buf_puts(b, ", order=[");
        for (int i = 0; i < r; i++)
            lm_buf_printf(b, i ? ", %d" : "%d", op->order[i]);
        lm_buf_putc(b, ']');
        return;
    }
    case TIR_MAKE_DESC: {
        int r = op->rank;
        if (n != 1 + 2 * r)
            break;
        lm_buf_putc(b, ' ');
        pv(b, o[0]);
        lm_buf_puts(b, ", shape=");
        pv_bracket(b, o + 1, r);
        lm_buf_puts(b, ", strides=");
        pv_bracket(b, o + 1 + r, r);
        return;
    }
    case TIR_ADVANCE:
        if (n < 1)
            break;
        lm_buf_putc(b, ' ');
        pv(b, o[0]);
        lm_buf_puts(b, ", ");
        pv_bracket(b, o + 1, n - 1);
        return;
    case TIR_LOAD:
        lm_buf_putc(b, ' ');
        pv_list(b, o, n);
        print_bcheck(b, op->bcheck);
        if (op->padding == TIR_PAD_ZERO)
            lm_buf_puts(b, ", padding=zero");
        else if (op->padding == TIR_PAD_NAN)
            lm_buf_puts(b, ", padding=nan");
        return;
    case TIR_STORE:
        lm_buf_putc(b, ' ');
        pv_list(b, o, n);
        print_bcheck(b, op->bcheck);
        return;
    case TIR_DESC_LOAD:
        if (n < 1)
            break;
        lm_buf_putc(b, ' ');
        pv(b, o[0]);
        pv_bracket(b, o + 1, n - 1);
        return;
    case TIR_DESC_STORE:
        if (n < 2)
            break;
        lm_buf_putc(b, ' ');
        pv(b, o[0]);
        pv_bracket(b, o + 2, n - 2);
        lm_buf_puts(b, ", ");
        pv(b, o[1]);
        return;
    default: break;
    }
    if (n) {
        lm_buf_putc(b, ' ');
        pv_list(b, o, n);
    }
}

static void print_result_types(lm_buf *b, const tir_op *op)
{
    if (!op->nresults)
        return;
    lm_buf_puts(b, " : ");
    for (int i = 0; i < op->nresults; i++) {
        if (i)
            lm_buf_puts(b, ", ");
        tir_print_type(b, &op->results[i]->type);
    }
    if (op->nresults == 1 && op->results[0]->sym) {
        lm_buf_puts(b, " {");
        sym_print(b, op->results[0]->sym);
        lm_buf_putc(b, '}');
    }
}

static void print_for(lm_buf *b, const tir_op *op, int indent)
{
    const tir_block *body = op->regions[0];
    lm_buf_puts(b, "for ");
    pv(b, body->nargs ? body->args[0] : NULL);
    lm_buf_puts(b, " = ");
    pv(b, op->opnds[0]);
    lm_buf_puts(b, " to ");
    pv(b, op->opnds[1]);
    lm_buf_puts(b, " step ");
    pv(b, op->opnds[2]);
    int nc = op->nopnds - 3;
    if (nc > 0) {
        lm_buf_puts(b, " iter(");
        for (int i = 0; i < nc; i++) {
            if (i)
                lm_buf_puts(b, ", ");
            pv(b, 1 + i < body->nargs ? body->args[1 + i] : NULL);
            lm_buf_puts(b, " = ");
            pv(b, op->opnds[3 + i]);
        }
        lm_buf_putc(b, ')');
    }
    if (op->iv) {
        lm_buf_putc(b, ' ');
        sym_print(b, op->iv);
    }
    if (op->sym) {
        lm_buf_puts(b, " trip=");
        sym_print(b, op->sym);
    }
    if (op->num_stages)
        lm_buf_printf(b, " num_stages=%d", op->num_stages);
    if (op->unroll)
        lm_buf_puts(b, " static");
    print_result_types(b, op);
    lm_buf_puts(b, " {\n");
    print_block_ops(b, body, indent + 1);
    indent_to(b, indent);
    lm_buf_puts(b, "}\n");
}

void tir_print_op(lm_buf *b, const tir_op *op, int indent)
{
    indent_to(b, indent);
    if (op->nresults) {
        pv_list(b, op->results, op->nresults);
        lm_buf_puts(b, " = ");
    }
    if (op->code == TIR_FOR && op->nregions == 1) {
        print_for(b, op, indent);
        return;
    }
    lm_buf_puts(b, tir_op_name(op->code));
    print_operands(b, op);
    print_result_types(b, op);
    if (op->code == TIR_IF && op->nregions == 2) {
        lm_buf_puts(b, " {\n");
        print_block_ops(b, op->regions[0], indent + 1);
        indent_to(b, indent);
        lm_buf_puts(b, "} else {\n");
        print_block_ops(b, op->regions[1], indent + 1);
        indent_to(b, indent);
        lm_buf_puts(b, "}\n");
        return;
    }
    lm_buf_putc(b, '\n');
}

void tir_print_func(lm_buf *b, tir_func *f)
{
    tir_number(f);
    lm_buf_printf(b, "func @%s", f->name);
    if (f->grid_rank > 0) {
        lm_buf_puts(b, " grid(");
        for (int i = 0; i < f->grid_rank; i++) {
            if (i)
                lm_buf_puts(b, ", ");
            if (f->grid[i])
                sym_print(b, f->grid[i]);
            else
                lm_buf_putc(b, '?');
        }
        lm_buf_putc(b, ')');
    }
    lm_buf_puts(b, " {\n");
    for (int i = 0; i < f->nassumes; i++) {
        lm_buf_puts(b, "  assume ");
        sym_print(b, f->assumes[i].expr);
        lm_buf_printf(b, " <= 0  (%s, line %d)\n", f->assumes[i].text, f->assumes[i].loc.line);
    }
    for (int i = 0; i < f->nparams; i++) {
        const tir_param *p = &f->params[i];
        lm_buf_puts(b, "  ");
        pv(b, p->value);
        lm_buf_printf(b, " = param %s : ", p->name);
        tir_print_type(b, &p->value->type);
        if (p->tensor)
            lm_buf_printf(b, " -> %s", p->tensor->name);
        if (p->value->sym) {
            lm_buf_puts(b, " {");
            sym_print(b, p->value->sym);
            lm_buf_putc(b, '}');
        }
        if (p->has_fval) {
            char s[40];
            tir_format_float(s, sizeof s, p->fval);
            lm_buf_printf(b, " = %s", s);
        }
        lm_buf_putc(b, '\n');
    }
    print_block_ops(b, f->body, 1);
    lm_buf_puts(b, "}\n");
}
