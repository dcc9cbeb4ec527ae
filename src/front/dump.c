/* dump.c - fe_dump: the syntax tree as stable S-expression text, for golden
 * tests and `loomc ast`.
 *
 * The format is meant to be read by people and diffed by tests, so it is
 * deterministic (no addresses, no locations) and close to Python's own ast:
 *
 *   (module STMT...)                 one statement per line, indented by depth
 *   (def NAME [(decorators E...)] (params P...) [(returns E)] (body STMT...))
 *       P is (NAME), (NAME ANNOTATION), (NAME = DEFAULT) or (NAME ANNOTATION = DEFAULT)
 *   (import I...)                    I is (MODULE), (MODULE as ALIAS),
 *                                    (from MODULE NAME) or (from MODULE NAME as ALIAS)
 *   (expr E)  (assign T... = E)  (augassign OP T E)  (annassign T ANN [= E])
 *   (if C (body ...) [(else ...)])   elif shows as (else (if ...))
 *   (for T ITER (body ...))  (while C (body ...) [(else ...)])
 *   (return [E])  (pass)  (break)  (continue)  (assert C [MSG])
 *   (other KEYWORD [T...] [E] [(body ...)] [(else ...)])   constructs kept only to be rejected
 *
 * Expressions stay on one line:
 *   (name x)  (int 5)  (float 0.5)  (str "text")  True  False  None  ...
 *   (attr E NAME)  (call F ARG... (kw NAME E)...)  (subscript E INDEX...)
 *   (slice LO HI STEP) with `-` for a missing part
 *   (tuple E...)  (list E...)  (binop OP A B)  (unop OP A)  (compare OP A B)
 *   (boolop and|or A B)  (ifexp A COND B)  (lambda (params X...) (kw NAME DEFAULT)... BODY)
 * Floats print with the fewest digits that read back to the same double;
 * strings escape `"`, `\` and control characters C-style.
 */
#include "front/ast.h"

#include <stdlib.h>
#include <string.h>

static void dump_expr(lm_buf *b, const fe_expr *e);

static void dump_str(lm_buf *b, const char *s)
{
    lm_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t run = 0; /* plain characters go out in one piece */
        while (p[run] >= 0x20 && p[run] != 0x7f && p[run] != '"' && p[run] != '\\')
            run++;
        if (run) {
            lm_buf_printf(b, "%.*s", (int)run, (const char *)p);
            p += run - 1;
            continue;
        }
        switch (*p) {
        case '"': lm_buf_puts(b, "\\\""); break;
        case '\\': lm_buf_puts(b, "\\\\"); break;
        case '\n': lm_buf_puts(b, "\\n"); break;
        case '\t': lm_buf_puts(b, "\\t"); break;
        case '\r': lm_buf_puts(b, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                lm_buf_printf(b, "\\x%02x", *p);
            else
                lm_buf_putc(b, (char)*p);
        }
    }
    lm_buf_putc(b, '"');
}

/* Like Python's repr of a float: the fewest significant digits that read
 * back to the same double, positional for exponents -4..15, else 1.5e-07. */
static void dump_float(lm_buf *b, double v)
{
    char s[48];
    for (int prec = 0; prec <= 16; prec++) {
        snprintf(s, sizeof s, "%.*e", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    if (!strchr(s, 'e')) { /* inf or nan; the lexer never makes them */
        lm_buf_puts(b, s);
        return;
    }
    const char *p = s;
    if (*p == '-') {
        lm_buf_putc(b, '-');
        p++;
    }
    char digits[24];
    int nd = 0;
    for (; *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    int exp = atoi(p + 1);
    if (exp < -4 || exp >= 16) {
        lm_buf_printf(b, "%c%s%s", digits[0], nd > 1 ? "." : "", digits + 1);
        lm_buf_printf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        lm_buf_puts(b, "0.");
        for (int i = 0; i < -exp - 1; i++)
            lm_buf_putc(b, '0');
        lm_buf_puts(b, digits);
    } else {
        for (int i = 0; i <= exp; i++)
            lm_buf_putc(b, i < nd ? digits[i] : '0');
        lm_buf_printf(b, ".%s", nd > exp + 1 ? digits + exp + 1 : "0");
    }
}

static void dump_opt(lm_buf *b, const fe_expr *e)
{
    if (e)
        dump_expr(b, e);
    else
        lm_buf_putc(b, '-');
}

static void dump_items(lm_buf *b, fe_expr *const *items, int n)
{
    for (int i = 0; i < n; i++) {
        lm_buf_putc(b, ' ');
        dump_expr(b, items[i]);
    }
}

static void dump_kws(lm_buf *b, const fe_keyword *kws, int n)
{
    for (int i = 0; i < n; i++) {
        lm_buf_printf(b, " (kw %s ", kws[i].name);
        dump_expr(b, kws[i].value);
        lm_buf_putc(b, ')');
    }
}

static void dump_expr(lm_buf *b, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_NAME: lm_buf_printf(b, "(name %s)", e->name); return;
    case FE_E_INT: lm_buf_printf(b, "(int %lld)", (long long)e->ival); return;
    case FE_E_FLOAT:
        lm_buf_puts(b, "(float ");
        dump_float(b, e->fval);
        lm_buf_putc(b, ')');
        return;
    case FE_E_STR:
        lm_buf_puts(b, "(str ");
        dump_str(b, e->str);
        lm_buf_putc(b, ')');
        return;
    case FE_E_BOOL: lm_buf_puts(b, e->ival ? "True" : "False"); return;
    case FE_E_NONE: lm_buf_puts(b, "None"); return;
    case FE_E_ELLIPSIS: lm_buf_puts(b, "..."); return;
    case FE_E_ATTR:
        lm_buf_puts(b, "(attr ");
        dump_expr(b, e->a);
        lm_buf_printf(b, " %s)", e->name);
        return;
    case FE_E_CALL:
        lm_buf_puts(b, "(call ");
        dump_expr(b, e->a);
        dump_items(b, e->items, e->nitems);
        dump_kws(b, e->kws, e->nkws);
        lm_buf_putc(b, ')');
        return;
    case FE_E_SUBSCRIPT:
        lm_buf_puts(b, "(subscript ");
        dump_expr(b, e->a);
        dump_items(b, e->items, e->nitems);
        lm_buf_putc(b, ')');
        return;
    case FE_E_SLICE:
        lm_buf_puts(b, "(slice ");
        dump_opt(b, e->a);
        lm_buf_putc(b, ' ');
        dump_opt(b, e->b);
        lm_buf_putc(b, ' ');
        dump_opt(b, e->c);
        lm_buf_putc(b, ')');
        return;
    case FE_E_TUPLE:
    case FE_E_LIST:
        lm_buf_puts(b, e->kind == FE_E_TUPLE ? "(tuple" : e->ival ? "(listcomp" : "(list");
        dump_items(b, e->items, e->nitems);
        lm_buf_putc(b, ')');
        return;
    case FE_E_BINOP:
    case FE_E_COMPARE:
    case FE_E_BOOLOP:
        lm_buf_printf(b, "(%s %s ", e->kind == FE_E_BINOP ? "binop" : e->kind == FE_E_COMPARE ? "compare" : "boolop",
                      e->op);
        dump_expr(b, e->a);
        lm_buf_putc(b, ' ');
        dump_expr(b, e->b);
        lm_buf_putc(b, ')');
        return;
    case FE_E_UNOP:
        lm_buf_printf(b, "(%s %s ", e->ival ? "unpack" : "unop", e->op);
        dump_expr(b, e->a);
        lm_buf_putc(b, ')');
        return;
    case FE_E_IFEXP:
        lm_buf_puts(b, "(ifexp ");
        dump_expr(b, e->a);
        lm_buf_putc(b, ' ');
        dump_expr(b, e->b);
        lm_buf_putc(b, ' ');
        dump_expr(b, e->c);
        lm_buf_putc(b, ')');
        return;
    case FE_E_DICT:
        lm_buf_puts(b, e->ival == 2 ? "(set" : "(dict");
        dump_items(b, e->items, e->nitems);
        lm_buf_putc(b, ')');
        return;
    case FE_E_LAMBDA:
        lm_buf_puts(b, "(lambda (params");
        dump_items(b, e->items, e->nitems);
        lm_buf_putc(b, ')');
        dump_kws(b, e->kws, e->nkws);
        lm_buf_putc(b, ' ');
        dump_expr(b, e->a);
        lm_buf_putc(b, ')');
        return;
    }
    LM_BUG("unknown expression kind %d", (int)e->kind);
}

static void dump_stmt(lm_buf *b, const fe_stmt *s, int ind);

static void newline(lm_buf *b, int ind) { lm_buf_printf(b, "\n%*s", 2 * ind, ""); }

/* `(TAG STMT...)` with each statement on its own line one level deeper. */
static void dump_block(lm_buf *b, const char *tag, fe_stmt *const *body, int n, int ind)
{
    newline(b, ind);
    lm_buf_printf(b, "(%s", tag);
    for (int i = 0; i < n; i++)
        dump_stmt(b, body[i], ind + 1);
    lm_buf_putc(b, ')');
}

static void dump_def(lm_buf *b, const fe_func *fn, int ind)
{
    lm_buf_printf(b, "(def %s", fn->name);
    if (fn->ndecorators) {
        newline(b, ind + 1);
        lm_buf_puts(b, "(decorators");
        dump_items(b, fn->decorators, fn->ndecorators);
        lm_buf_putc(b, ')');
    }
    newline(b, ind + 1);
    lm_buf_puts(b, "(params");
    for (int i = 0; i < fn->nparams; i++) {
        const fe_param *prm = &fn->params[i];
        lm_buf_printf(b, " (%s", prm->name);
        if (prm->annotation) {
            lm_buf_putc(b, ' ');
            dump_expr(b, prm->annotation);
        }
        if (prm->deflt) {
            lm_buf_puts(b, " = ");
            dump_expr(b, prm->deflt);
        }
        lm_buf_putc(b, ')');
    }
    lm_buf_putc(b, ')');
    if (fn->returns) {
        newline(b, ind + 1);
        lm_buf_puts(b, "(returns ");
        dump_expr(b, fn->returns);
        lm_buf_putc(b, ')');
    }
    dump_block(b, "body", fn->body, fn->nbody, ind + 1);
    lm_buf_putc(b, ')');
}

static void dump_stmt(lm_buf *b, const fe_stmt *s, int ind)
{
    newline(b, ind);
    switch (s->kind) {
    case FE_S_EXPR:
        lm_buf_puts(b, "(expr ");
        dump_expr(b, s->value);
        break;
    case FE_S_ASSIGN:
        lm_buf_puts(b, "(assign");
        dump_items(b, s->targets, s->ntargets);
        lm_buf_puts(b, " = ");
        dump_expr(b, s->value);
        break;
    case FE_S_AUGASSIGN:
        lm_buf_printf(b, "(augassign %s ", s->op);
        dump_expr(b, s->targets[0]);
        lm_buf_putc(b, ' ');
        dump_expr(b, s->value);
        break;
    case FE_S_ANNASSIGN:
        lm_buf_puts(b, "(annassign ");
        dump_expr(b, s->targets[0]);
        lm_buf_putc(b, ' ');
        dump_expr(b, s->annotation);
        if (s->value) {
            lm_buf_puts(b, " = ");
            dump_expr(b, s->value);
        }
        break;
    case FE_S_IF:
    case FE_S_WHILE:
        lm_buf_puts(b, s->kind == FE_S_IF ? "(if " : "(while ");
        dump_expr(b, s->cond);
        dump_block(b, "body", s->body, s->nbody, ind + 1);
        if (s->norelse)
            dump_block(b, "else", s->orelse, s->norelse, ind + 1);
        break;
    case FE_S_FOR:
        lm_buf_puts(b, "(for ");
        dump_expr(b, s->targets[0]);
        lm_buf_putc(b, ' ');
        dump_expr(b, s->iter);
        dump_block(b, "body", s->body, s->nbody, ind + 1);
        break;
    case FE_S_RETURN:
        lm_buf_puts(b, "(return");
        if (s->value) {
            lm_buf_putc(b, ' ');
            dump_expr(b, s->value);
        }
        break;
    case FE_S_PASS: lm_buf_puts(b, "(pass"); break;
    case FE_S_BREAK: lm_buf_puts(b, "(break"); break;
    case FE_S_CONTINUE: lm_buf_puts(b, "(continue"); break;
    case FE_S_DEF: dump_def(b, s->fn, ind); return;
    case FE_S_IMPORT:
        lm_buf_puts(b, "(import");
        for (int i = 0; i < s->nimports; i++) {
            const fe_import *im = &s->imports[i];
            if (im->name)
                lm_buf_printf(b, " (from %s %s", im->module, im->name);
            else
                lm_buf_printf(b, " (%s", im->module);
            if (im->alias)
                lm_buf_printf(b, " as %s", im->alias);
            lm_buf_putc(b, ')');
        }
        break;
    case FE_S_ASSERT:
        lm_buf_puts(b, "(assert ");
        dump_expr(b, s->value);
        if (s->msg) {
            lm_buf_putc(b, ' ');
            dump_expr(b, s->msg);
        }
        break;
    case FE_S_OTHER:
        lm_buf_printf(b, "(other %s", s->keyword);
        dump_items(b, s->targets, s->ntargets);
        if (s->value) {
            lm_buf_putc(b, ' ');
            dump_expr(b, s->value);
        }
        if (s->nbody)
            dump_block(b, "body", s->body, s->nbody, ind + 1);
        if (s->norelse)
            dump_block(b, "else", s->orelse, s->norelse, ind + 1);
        break;
    default: LM_BUG("unknown statement kind %d", (int)s->kind);
    }
    lm_buf_putc(b, ')');
}

void fe_dump(lm_buf *b, const fe_module *m)
{
    lm_buf_puts(b, "(module");
    for (int i = 0; i < m->nbody; i++)
        dump_stmt(b, m->body[i], 1);
    lm_buf_puts(b, ")\n");
}
