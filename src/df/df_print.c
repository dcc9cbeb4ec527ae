/* df_print.c - the canonical text form of a dataflow program.
 *
 * Canonical means: items in a fixed order (program, params, tensors,
 * semaphores, checks, classes; in a class its args, CBs, then the reader,
 * compute and writer kernels), op fields in op-table order, fields equal to
 * their default omitted, two spaces of indentation, expressions with only
 * the parentheses their tree needs. Parsing the output gives back the same
 * tree, so print(parse(print(parse(x)))) == print(parse(x)). Comments are
 * not kept.
 */
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

/* ---- expressions ---------------------------------------------------------------- */

/* Binding strength: sums, products, unary minus, atoms. */
enum { P_SUM = 1, P_PROD = 2, P_NEG = 3, P_ATOM = 4 };

static bool is_neg(const df_expr *e)
{
    return e->kind == DF_X_SUB && e->a->kind == DF_X_CONST && e->a->value == 0;
}

static int prec(const df_expr *e)
{
    switch (e->kind) {
    case DF_X_CONST:
        return e->value < 0 ? P_NEG : P_ATOM;
    case DF_X_ADD:
    case DF_X_SUB:
        return is_neg(e) ? P_NEG : P_SUM;
    case DF_X_MUL:
    case DF_X_DIV:
    case DF_X_MOD:
        return P_PROD;
    default:
        return P_ATOM;
    }
}

typedef struct names {
    const df_program *p;
    const df_class *c; /* NULL: program level (slots are cx, cy, params) */
} names;

static const char *slot_name(const names *n, int slot)
{
    if (n->c && slot < n->c->nslots)
        return n->c->slot_names[slot];
    if (slot == DF_SLOT_CX)
        return "cx";
    if (slot == DF_SLOT_CY)
        return "cy";
    if (slot >= DF_SLOT_PARAM0 && slot < DF_SLOT_PARAM0 + n->p->nparams)
        return n->p->params[slot - DF_SLOT_PARAM0].name;
    return "?";
}

static void pexpr(lm_buf *b, const df_expr *e, const names *n);

/* An operand: parenthesised when it binds weaker than `need`. A unary
 * minus on the right of an operator is parenthesised too, for the reader. */
static void operand(lm_buf *b, const df_expr *e, int need, bool right, const names *n)
{
    int p = prec(e);
    bool paren = p < need || (right && p == P_NEG);
    if (paren)
        lm_buf_putc(b, '(');
    pexpr(b, e, n);
    if (paren)
        lm_buf_putc(b, ')');
}

static void pexpr(lm_buf *b, const df_expr *e, const names *n)
{
    if (!e) {
        lm_buf_puts(b, "?");
        return;
    }
    static const char ops[] = {[DF_X_ADD] = '+', [DF_X_SUB] = '-', [DF_X_MUL] = '*', [DF_X_DIV] = '/',
                               [DF_X_MOD] = '%'};
    switch (e->kind) {
    case DF_X_CONST:
        if (e->value == INT64_MIN) /* its magnitude is no literal */
            lm_buf_puts(b, "(-9223372036854775807-1)");
        else
            lm_buf_printf(b, "%lld", (long long)e->value);
        return;
    case DF_X_VAR:
        lm_buf_puts(b, slot_name(n, e->slot));
        return;
    case DF_X_MIN:
    case DF_X_MAX:
        lm_buf_puts(b, e->kind == DF_X_MIN ? "min(" : "max(");
        pexpr(b, e->a, n);
        lm_buf_putc(b, ',');
        pexpr(b, e->b, n);
        lm_buf_putc(b, ')');
        return;
    default:
        break;
    }
    if (is_neg(e)) {
        lm_buf_putc(b, '-');
        operand(b, e->b, P_NEG, false, n);
        return;
    }
    int p = prec(e);
    /* left-associative: the left operand may bind as weakly as the
     * operator, the right one must bind more strongly */
    operand(b, e->a, p, false, n);
    lm_buf_putc(b, ops[e->kind]);
    operand(b, e->b, p + 1, true, n);
}

/* ---- values ----------------------------------------------------------------------- */

/* Shortest decimal that reads back as the same double. */
static void pfloat(lm_buf *b, double v)
{
    char s[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    lm_buf_puts(b, s);
}

static bool expr_is(const df_expr *e, const char *deflt)
{
    return e && e->kind == DF_X_CONST && e->value == strtoll(deflt, NULL, 10);
}

/* Whether field f of s holds its default (and can be left out). */
static bool at_default(const df_stmt *s, const df_field *f)
{
    if (f->required || !f->deflt)
        return false;
    const char *at = (const char *)s + f->offset;
    switch (f->kind) {
    case DF_F_EXPR:
        return expr_is(*(const df_expr *const *)at, f->deflt);
    case DF_F_FLAG:
        return *(const bool *)at == (f->deflt[0] == '1');
    case DF_F_FLOAT:
        return *(const double *)at == strtod(f->deflt, NULL);
    case DF_F_BCAST:
        return *(const int *)at == df_bcast_parse(f->deflt);
    case DF_F_SUB:
        return *(const int *)at == df_sub_parse(s->op, f->deflt);
    default:
        return *(const int *)at == (int)strtol(f->deflt, NULL, 10);
    }
}

static void pfield(lm_buf *b, const df_program *p, const df_stmt *s, const df_field *f, const names *n)
{
    const char *at = (const char *)s + f->offset;
    int i = f->kind == DF_F_EXPR || f->kind == DF_F_FLAG || f->kind == DF_F_FLOAT ? 0 : *(const int *)at;
    lm_buf_printf(b, " %s=", f->key);
    switch (f->kind) {
    case DF_F_EXPR:
        pexpr(b, *(const df_expr *const *)at, n);
        break;
    case DF_F_CB:
        if (i < 0)
            lm_buf_puts(b, "?");
        else
            lm_buf_printf(b, "%d", i);
        break;
    case DF_F_TENSOR:
        lm_buf_puts(b, i >= 0 && i < p->ntensors ? p->tensors[i].name : "?");
        break;
    case DF_F_SEM:
        lm_buf_puts(b, i >= 0 && i < p->nsems ? p->sems[i].name : "?");
        break;
    case DF_F_SUB:
        lm_buf_puts(b, df_sub_name(s->op, i));
        break;
    case DF_F_BCAST:
        lm_buf_puts(b, df_bcast_name((df_bcast)i));
        break;
    case DF_F_FLAG:
        lm_buf_putc(b, *(const bool *)at ? '1' : '0');
        break;
    case DF_F_FLOAT:
        pfloat(b, *(const double *)at);
        break;
    case DF_F_VAR:
        lm_buf_puts(b, i >= 0 ? slot_name(n, i) : "?");
        break;
    }
}

/* ---- statements ----------------------------------------------------------------------- */

static void indent(lm_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        lm_buf_puts(b, "  ");
}

/* The statement's own line, without indentation, braces or newline; oi is
 * its op's table (a chain's steps have their own). */
static void pline_of(lm_buf *b, const df_program *p, const df_stmt *s, const df_opinfo *oi, const names *n)
{
    lm_buf_puts(b, oi->name);
    for (int j = 0; j < oi->nfields; j++) {
        const df_field *f = &oi->fields[j];
        if (f->kind == DF_F_VAR) { /* the loop variable is positional */
            lm_buf_printf(b, " %s", s->var >= 0 ? slot_name(n, s->var) : "?");
            continue;
        }
        if (!at_default(s, f))
            pfield(b, p, s, f, n);
    }
}

static void pline(lm_buf *b, const df_program *p, const df_stmt *s, const names *n)
{
    pline_of(b, p, s, &df_ops[s->op], n);
}

void df_print_expr(lm_buf *b, const df_program *p, const df_class *c, const df_expr *e)
{
    names n = {p, c};
    pexpr(b, e, &n);
}

void df_print_stmt(lm_buf *b, const df_program *p, const df_class *c, const df_stmt *s)
{
    names n = {p, c};
    pline(b, p, s, &n);
}

static void pstmts(lm_buf *b, const df_program *p, df_stmt *const *body, int nbody, int depth, const names *n)
{
    for (int i = 0; i < nbody; i++) {
        const df_stmt *s = body[i];
        indent(b, depth);
        pline(b, p, s, n);
        if (s->op == DF_FOR) {
            lm_buf_puts(b, " {\n");
            pstmts(b, p, s->body, s->nbody, depth + 1, n);
            indent(b, depth);
            lm_buf_puts(b, "}");
        } else if (df_has_steps(s->op)) {
            lm_buf_puts(b, " {\n");
            for (int j = 0; j < s->nbody; j++) {
                const df_stmt *st = s->body[j];
                const df_opinfo *si = df_step_info(st->op);
                indent(b, depth + 1);
                if (si)
                    pline_of(b, p, st, si, n);
                else
                    lm_buf_puts(b, "?");
                lm_buf_putc(b, '\n');
            }
            indent(b, depth);
            lm_buf_puts(b, "}");
        }
        lm_buf_putc(b, '\n');
    }
}

/* ---- program ---------------------------------------------------------------------------- */

void df_print(lm_buf *b, const df_program *p)
{
    names pn = {p, NULL};
    lm_buf_printf(b, "program %s\n", p->name);
    for (int i = 0; i < p->nparams; i++)
        lm_buf_printf(b, "param %s = %lld\n", p->params[i].name, (long long)p->params[i].value);
    if (p->ntensors || p->nsems || p->nchecks)
        lm_buf_putc(b, '\n');
    for (int i = 0; i < p->ntensors; i++) {
        const df_tensor *t = &p->tensors[i];
        lm_buf_printf(b, "tensor %s rows=", t->name);
        pexpr(b, t->rows_e, &pn);
        lm_buf_puts(b, " cols=");
        pexpr(b, t->cols_e, &pn);
        lm_buf_printf(b, " format=%s role=%s", df_format_name(t->format), df_role_name(t->role));
        if (t->seed)
            lm_buf_printf(b, " seed=%llu", (unsigned long long)t->seed);
        if (t->first_bank)
            lm_buf_printf(b, " first_bank=%d", t->first_bank);
        lm_buf_putc(b, '\n');
    }
    for (int i = 0; i < p->nsems; i++) {
        const df_sem *s = &p->sems[i];
        lm_buf_printf(b, "sem %s", s->name);
        if (!expr_is(s->init_e, "0")) {
            lm_buf_puts(b, " init=");
            pexpr(b, s->init_e, &pn);
        }
        lm_buf_putc(b, '\n');
    }
    for (int i = 0; i < p->nchecks; i++) {
        const df_check *c = &p->checks[i];
#define TN(i) ((i) >= 0 && (i) < p->ntensors ? p->tensors[i].name : "?")
        if (c->kind == DF_CHECK_MATMUL) {
            lm_buf_printf(b, "check matmul out=%s a=%s b=%s\n", TN(c->out), TN(c->a), TN(c->b));
            continue;
        }
        lm_buf_printf(b, "check attention out=%s q=%s k=%s v=%s", TN(c->out), TN(c->a), TN(c->b), TN(c->c));
#undef TN
        const df_expr *g[6] = {c->batch_e, c->heads_e, c->kv_heads_e, c->seq_q_e, c->seq_k_e, c->dim_e};
        static const char *const gk[6] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "dim"};
        const int64_t gv[6] = {c->batch, c->heads, c->kv_heads, c->seq_q, c->seq_k, c->dim};
        for (int j = 0; j < 6; j++) {
            lm_buf_printf(b, " %s=", gk[j]);
            if (g[j])
                pexpr(b, g[j], &pn);
            else /* built in memory with numbers only */
                lm_buf_printf(b, "%lld", (long long)gv[j]);
        }
        lm_buf_puts(b, " scale=");
        pfloat(b, c->scale);
        if (c->causal)
            lm_buf_puts(b, " causal=1");
        lm_buf_putc(b, '\n');
    }
    for (int i = 0; i < p->nclasses; i++) {
        const df_class *c = &p->classes[i];
        names cn = {p, c};
        lm_buf_printf(b, "\nclass %s x0=", c->name);
        pexpr(b, c->x0_e, &pn);
        lm_buf_puts(b, " y0=");
        pexpr(b, c->y0_e, &pn);
        lm_buf_puts(b, " x1=");
        pexpr(b, c->x1_e, &pn);
        lm_buf_puts(b, " y1=");
        pexpr(b, c->y1_e, &pn);
        if (c->fidelity != ARCH_HIFI2)
            lm_buf_printf(b, " fidelity=%s", df_fidelity_name(c->fidelity));
        if (c->fp32_acc)
            lm_buf_puts(b, " fp32_acc=1");
        for (int s = 0; s < DF_NSUPPORT; s++)
            if (c->support[s] >= 0)
                lm_buf_printf(b, " %s=%d", df_support_names[s], c->support[s]);
        lm_buf_puts(b, " {\n");
        for (int j = 0; j < c->nargs; j++) {
            lm_buf_printf(b, "  arg %s = ", slot_name(&cn, DF_SLOT_PARAM0 + p->nparams + j));
            pexpr(b, c->args[j], &cn);
            lm_buf_putc(b, '\n');
        }
        for (int j = 0; j < c->ncbs; j++) {
            lm_buf_printf(b, "  cb %d format=%s pages=", c->cbs[j].id, df_format_name(c->cbs[j].format));
            pexpr(b, c->cbs[j].pages_e, &pn);
            lm_buf_putc(b, '\n');
        }
        for (int k = 0; k < DF_NKERNELS; k++) {
            const df_kernel *kn = &c->kernels[k];
            if (!kn->nbody)
                continue;
            lm_buf_printf(b, "  %s {\n", df_kernel_name((df_kernel_kind)k));
            pstmts(b, p, kn->body, kn->nbody, 2, &cn);
            lm_buf_puts(b, "  }\n");
        }
        lm_buf_puts(b, "}\n");
    }
}
