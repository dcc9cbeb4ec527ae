/* sym_text.c - symbolic expressions as text (declared in sym.h): the
 * stable printed form, cut short on request, and the parser that reads it
 * back. */
#include "sym/sym.h"
#include "sym/sym_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- printing ---------------------------------------------------------------- */

/* Where an expression is printed: anywhere, as a term of a sum, or as a
 * factor of a product (not the first). */
enum { P_ANY, P_TERM, P_FACTOR };

/* The buffer printed into and the length past which a bounded print stops
 * descending (a tree that shares subexpressions prints each share in full,
 * which can be exponential in its depth). */
typedef struct printer {
    lm_buf *b;
    size_t stop;
    bool cut; /* "..." written: the rest of the operands are left out */
} printer;

static void print_rec(printer *p, const sym_expr *e, int prec);

/* A product; with `magnitude`, its negative coefficient is printed without
 * the sign (the caller wrote " - "). */
static void print_mul(printer *p, const sym_expr *e, bool magnitude)
{
    lm_buf *b = p->b;
    int i = 0;
    bool star = false;
    if (has_coef(e)) {
        int64_t k = e->args[0]->value;
        if (magnitude)
            k = -k;
        if (k == -1) {
            lm_buf_putc(b, '-');
        } else if (!(k == 1 && magnitude)) {
            lm_buf_printf(b, "%" PRId64, k);
            star = true;
        }
        i = 1;
    }
    for (; i < e->nargs && !p->cut; i++) {
        if (star)
            lm_buf_putc(b, '*');
        print_rec(p, e->args[i], P_FACTOR);
        star = true;
    }
}

/* Printed as a subtraction inside a sum (INT64_MIN has no positive magnitude). */
static bool is_negative_term(const sym_expr *t)
{
    if (t->kind == SYM_CONST)
        return t->value < 0 && t->value != INT64_MIN;
    return has_coef(t) && t->args[0]->value < 0 && t->args[0]->value != INT64_MIN;
}

static void print_sum(printer *p, const sym_expr *e)
{
    lm_buf *b = p->b;
    /* non-constant terms first, then constants, whatever the operand order */
    int printed = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < e->nargs && !p->cut; i++) {
            const sym_expr *t = e->args[i];
            if ((t->kind == SYM_CONST) != (pass == 1))
                continue;
            if (printed++ == 0) {
                print_rec(p, t, P_TERM);
            } else if (is_negative_term(t)) {
                lm_buf_puts(b, " - ");
                if (t->kind == SYM_CONST)
                    lm_buf_printf(b, "%" PRId64, -t->value);
                else
                    print_mul(p, t, true);
            } else {
                lm_buf_puts(b, " + ");
                print_rec(p, t, P_TERM);
            }
        }
    }
}

static void print_rec(printer *p, const sym_expr *e, int prec)
{
    lm_buf *b = p->b;
    if (p->cut)
        return;
    if (b->len >= p->stop) {
        lm_buf_puts(b, "...");
        p->cut = true;
        return;
    }
    static const char *const fname[] = {
        [SYM_FLOORDIV] = "floordiv", [SYM_CDIV] = "cdiv", [SYM_MOD] = "mod",
        [SYM_MIN] = "min",           [SYM_MAX] = "max",
    };
    bool paren;
    switch (e->kind) {
    case SYM_CONST:
        paren = prec == P_FACTOR && e->value < 0;
        lm_buf_printf(b, paren ? "(%" PRId64 ")" : "%" PRId64, e->value);
        return;
    case SYM_VAR:
        lm_buf_puts(b, e->name);
        return;
    case SYM_ADD:
        paren = prec != P_ANY && e->nargs > 1;
        if (paren)
            lm_buf_putc(b, '(');
        print_sum(p, e);
        if (paren)
            lm_buf_putc(b, ')');
        return;
    case SYM_MUL:
        /* a leading minus is fine at the start of a term, not after a '*' */
        paren = prec == P_FACTOR && has_coef(e) && e->args[0]->value < 0;
        if (paren)
            lm_buf_putc(b, '(');
        print_mul(p, e, false);
        if (paren)
            lm_buf_putc(b, ')');
        return;
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD:
    case SYM_MIN:
    case SYM_MAX:
        lm_buf_puts(b, fname[e->kind]);
        lm_buf_putc(b, '(');
        for (int i = 0; i < e->nargs && !p->cut; i++) {
            if (i)
                lm_buf_puts(b, ", ");
            print_rec(p, e->args[i], P_ANY);
        }
        lm_buf_putc(b, ')');
        return;
    }
    LM_BUG("sym_print: bad kind %d", (int)e->kind);
}

void sym_print(lm_buf *b, const sym_expr *e)
{
    printer p = {b, SIZE_MAX, false};
    print_rec(&p, e, P_ANY);
}

void sym_print_short(lm_buf *b, const sym_expr *e, size_t max)
{
    printer p = {b, b->len + max, false};
    print_rec(&p, e, P_ANY);
}

const char *sym_str(lm_arena *a, const sym_expr *e)
{
    lm_buf b = {0};
    sym_print(&b, e);
    const char *s = lm_arena_strdup(a, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

/* ---- parsing ------------------------------------------------------------------ */

typedef struct parser {
    sym_ctx *c;
    const char *p;
    const char *err; /* first error position, NULL while all is well */
    int depth;
} parser;

/* Nesting limit, so hostile input cannot exhaust the stack. */
enum { PARSE_MAX_DEPTH = 500 };

static const sym_expr *p_sum(parser *ps);

static bool is_name_start(char ch) { return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_'; }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_name_char(char ch) { return is_name_start(ch) || is_digit(ch) || ch == '.'; }

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

static const sym_expr *fail_at(parser *ps, const char *at)
{
    if (!ps->err)
        ps->err = at;
    return NULL;
}

/* A decimal literal at ps->p; `negative` allows a magnitude of 2^63. */
static const sym_expr *p_number(parser *ps, bool negative)
{
    const char *start = ps->p;
    uint64_t v = 0, limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (is_digit(*ps->p)) {
        uint64_t d = (uint64_t)(*ps->p - '0');
        if (v > (limit - d) / 10)
            return fail_at(ps, start);
        v = v * 10 + d;
        ps->p++;
    }
    if (negative)
        return sym_const(ps->c, v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v);
    return sym_const(ps->c, (int64_t)v);
}

static const sym_expr *p_call(parser *ps, sym_kind k)
{
    exprvec args = {0};
    const sym_expr *r = NULL;
    ps->p++; /* '(' */
    for (;;) {
        skip_ws(ps);
        if (is_div(k) && args.len == 2) { /* a third operand */
            fail_at(ps, ps->p);
            goto out;
        }
        const sym_expr *a = p_sum(ps);
        if (!a)
            goto out;
        LM_PUSH(&args, a);
        skip_ws(ps);
        if (*ps->p == ',') {
            const char *comma = ps->p++;
            if (is_div(k) && args.len == 2) {
                fail_at(ps, comma);
                goto out;
            }
            continue;
        }
        if (*ps->p != ')') {
            fail_at(ps, ps->p);
            goto out;
        }
        if (is_div(k) && args.len != 2) {
            fail_at(ps, ps->p);
            goto out;
        }
        ps->p++;
        break;
    }
    r = sym_make(ps->c, k, args.items, (int)args.len);
out:
    LM_VEC_FREE(&args);
    return r;
}

static const sym_expr *p_primary(parser *ps)
{
    skip_ws(ps);
    const char *start = ps->p;
    if (is_digit(*ps->p))
        return p_number(ps, false);
    if (*ps->p == '(') {
        ps->p++;
        const sym_expr *e = p_sum(ps);
        if (!e)
            return NULL;
        skip_ws(ps);
        if (*ps->p != ')')
            return fail_at(ps, ps->p);
        ps->p++;
        return e;
    }
    if (!is_name_start(*ps->p))
        return fail_at(ps, ps->p);
    while (is_name_char(*ps->p))
        ps->p++;
    size_t len = (size_t)(ps->p - start);
    const char *after = ps->p;
    skip_ws(ps);
    if (*ps->p == '(') {
        static const struct { const char *name; sym_kind k; } calls[] = {
            {"floordiv", SYM_FLOORDIV}, {"cdiv", SYM_CDIV}, {"mod", SYM_MOD},
            {"min", SYM_MIN},           {"max", SYM_MAX},
        };
        for (size_t i = 0; i < LM_COUNT(calls); i++)
            if (strlen(calls[i].name) == len && memcmp(calls[i].name, start, len) == 0)
                return p_call(ps, calls[i].k);
        return fail_at(ps, start); /* an unknown function */
    }
    ps->p = after;
    char *name = lm_xmalloc(len + 1);
    memcpy(name, start, len);
    name[len] = 0;
    const sym_expr *v = sym_var(ps->c, name);
    free(name);
    return v;
}

static const sym_expr *p_unary(parser *ps)
{
    skip_ws(ps);
    if (*ps->p != '-')
        return p_primary(ps);
    const char *minus = ps->p++;
    if (++ps->depth > PARSE_MAX_DEPTH)
        return fail_at(ps, minus);
    skip_ws(ps);
    const sym_expr *e;
    if (is_digit(*ps->p)) /* a negative literal, so INT64_MIN can be written */
        e = p_number(ps, true);
    else if ((e = p_unary(ps)))
        e = sym_neg(ps->c, e);
    ps->depth--;
    return e;
}

static const sym_expr *p_product(parser *ps)
{
    const sym_expr *e = p_unary(ps);
    for (;;) {
        if (!e)
            return NULL;
        skip_ws(ps);
        if (*ps->p != '*')
            return e;
        ps->p++;
        const sym_expr *f = p_unary(ps);
        e = f ? sym_mul(ps->c, e, f) : NULL;
    }
}

static const sym_expr *p_sum(parser *ps)
{
    if (++ps->depth > PARSE_MAX_DEPTH)
        return fail_at(ps, ps->p);
    const sym_expr *e = p_product(ps);
    for (;;) {
        if (!e)
            break;
        skip_ws(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            break;
        ps->p++;
        const sym_expr *t = p_product(ps);
        e = !t ? NULL : op == '+' ? sym_add(ps->c, e, t) : sym_sub(ps->c, e, t);
    }
    ps->depth--;
    return e;
}

const sym_expr *sym_parse(sym_ctx *c, const char *text, const char **err_pos)
{
    parser ps = {c, text, NULL, 0};
    const sym_expr *e = p_sum(&ps);
    if (e) {
        skip_ws(&ps);
        if (*ps.p)
            e = fail_at(&ps, ps.p);
    }
    if (!e && err_pos)
        *err_pos = ps.err ? ps.err : ps.p;
    return e;
}
