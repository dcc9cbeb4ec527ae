/* parse.c - the recursive-descent parser that turns tokens into the syntax
 * tree of ast.h (fe_parse).
 *
 * Conventions:
 *  - One function per grammar symbol, named after it; each returns its node,
 *    or NULL once an error has been reported. The first error stops the whole
 *    parse (p->failed), so later messages never stem from a bad recovery and
 *    every loop is guaranteed to end: loops either consume a token or see
 *    p->failed and leave.
 *  - Precedence follows Python, lowest first: lambda, `a if c else b`, `or`,
 *    `and`, `not`, comparisons, `|`, `^`, `&`, shifts, `+ -`,
 *    `* / // % @`, unary `- + ~`, `**` (right-associative; its right operand
 *    may carry a unary sign), then calls, subscripts and attributes.
 *  - Depth: every construct that makes the tree one level deeper counts
 *    against FE_MAX_DEPTH: blocks (and elif clauses) on one count, and on
 *    another bracketed or unary operands, each operator of a chain and each
 *    trailer. The limit bounds this parser's recursion and, because it
 *    bounds the height of the tree, the recursion of every pass that walks
 *    the tree later.
 *  - Constructs outside loomc's subset that the tree can still represent
 *    (while, class, with, try, lambda, global, ...) are parsed into
 *    FE_S_WHILE, FE_S_OTHER or FE_E_LAMBDA so that the checker rejects them
 *    only where they matter (inside a kernel) and names them. Constructs the
 *    tree has no room for (comprehensions, dict displays, *args, f-strings)
 *    are rejected here, naming the construct.
 *  - Lists grow inside the arena (the old copy is simply abandoned), so an
 *    error half way through a list leaks nothing.
 */
#include "front/ast.h"

#include <string.h>

typedef struct parser {
    const fe_token *t;
    int n, pos;
    lm_arena *a;
    lm_diag *d;
    int depth[2]; /* nesting of expressions [0] and of blocks [1] */
    int elifs;    /* the part of depth[1] that is elif clauses */
    bool failed;
} parser;

/* Append x to the arena-backed array arr of length n and capacity cap. */
#define APUSH(p, arr, n, cap, x)                                                     \
    do {                                                                             \
        if ((n) == (cap)) {                                                          \
            int nc_ = (cap) ? 2 * (cap) : 4;                                         \
            void *na_ = lm_arena_alloc((p)->a, sizeof *(arr) * (size_t)nc_);         \
            if (n)                                                                   \
                memcpy(na_, (arr), sizeof *(arr) * (size_t)(n));                     \
            (arr) = na_;                                                             \
            (cap) = nc_;                                                             \
        }                                                                            \
        (arr)[(n)++] = (x);                                                          \
    } while (0)

static bool is_keyword(const char *s) { return fe_is_keyword(s); }

/* ---- token access ---------------------------------------------------------- */

static const fe_token *cur(const parser *p) { return &p->t[p->pos]; }

static const fe_token *ahead(const parser *p, int k)
{
    int i = p->pos + k;
    return &p->t[i < p->n ? i : p->n - 1];
}

/* Never moves past the final EOF token. */
static void advance(parser *p)
{
    if (p->pos < p->n - 1)
        p->pos++;
}

static bool tok_is_op(const fe_token *t, const char *op) { return t->kind == FE_T_OP && !strcmp(t->text, op); }
static bool tok_is_kw(const fe_token *t, const char *kw) { return t->kind == FE_T_NAME && !strcmp(t->text, kw); }
static bool is_op(const parser *p, const char *op) { return tok_is_op(cur(p), op); }
static bool is_kw(const parser *p, const char *kw) { return tok_is_kw(cur(p), kw); }
static bool is_kind(const parser *p, fe_tok_kind k) { return cur(p)->kind == k; }

static bool accept_op(parser *p, const char *op)
{
    if (!is_op(p, op))
        return false;
    advance(p);
    return true;
}

static bool accept_kw(parser *p, const char *kw)
{
    if (!is_kw(p, kw))
        return false;
    advance(p);
    return true;
}

/* ---- errors ---------------------------------------------------------------- */

static void *perr(parser *p, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void *perr(parser *p, lm_loc loc, const char *fmt, ...)
{
    if (!p->failed) {
        va_list ap;
        va_start(ap, fmt);
        lm_verror(p->d, loc, fmt, ap);
        va_end(ap);
        p->failed = true;
    }
    return NULL;
}

static const char *describe(parser *p, const fe_token *t) { return fe_token_describe(t, p->a); }

static void *expected(parser *p, const char *what)
{
    return perr(p, cur(p)->loc, "expected %s, found %s", what, describe(p, cur(p)));
}

static bool expect_op(parser *p, const char *op, const char *where)
{
    if (accept_op(p, op))
        return true;
    perr(p, cur(p)->loc, "expected '%s' %s, found %s", op, where, describe(p, cur(p)));
    return false;
}

/* A plain identifier (not a keyword), or NULL after reporting `what`. */
static const char *expect_name(parser *p, const char *what)
{
    const fe_token *t = cur(p);
    if (t->kind != FE_T_NAME || is_keyword(t->text))
        return expected(p, what);
    advance(p);
    return t->text;
}

/* What a level of nesting is, for enter()'s message. */
typedef enum nest { DEEP_EXPR, DEEP_BLOCK, DEEP_ELIF, DEEP_DECORATOR } nest;

/* Count one level of nesting; false (with the error reported) beyond the
 * limit. Blocks and expressions are counted apart, so that the message names
 * what is too deep; the tree's height stays bounded by twice the limit. */
static bool enter(parser *p, lm_loc loc, nest what)
{
    int *depth = &p->depth[what == DEEP_BLOCK || what == DEEP_ELIF];
    if (*depth < FE_MAX_DEPTH) {
        ++*depth;
        return true;
    }
    int lim = FE_MAX_DEPTH;
    if (what == DEEP_BLOCK && p->elifs > FE_MAX_DEPTH / 2)
        what = DEEP_ELIF; /* mostly a long elif chain: say so */
    switch (what) {
    case DEEP_EXPR:
        perr(p, loc, "expression is nested too deeply: the limit is %d levels of brackets, operators and calls", lim);
        break;
    case DEEP_BLOCK: perr(p, loc, "blocks are nested too deeply: the limit is %d levels", lim); break;
    case DEEP_ELIF:
        perr(p, loc, "too many 'elif' clauses: each nests one level deeper, and the limit is %d levels", lim);
        break;
    case DEEP_DECORATOR: perr(p, loc, "decorator is nested too deeply: the limit is %d levels", lim); break;
    }
    return false;
}

static void leave(parser *p, int levels) { p->depth[0] -= levels; }
static void leave_block(parser *p) { p->depth[1]--; }

/* ---- nodes ----------------------------------------------------------------- */

static fe_expr *new_expr(parser *p, fe_expr_kind k, lm_loc loc)
{
    fe_expr *e = LM_NEW(p->a, fe_expr);
    e->kind = k;
    e->loc = loc;
    return e;
}

static fe_expr *new_binary(parser *p, fe_expr_kind k, const char *op, fe_expr *a, fe_expr *b)
{
    fe_expr *e = new_expr(p, k, a->loc);
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

static fe_stmt *new_stmt(parser *p, fe_stmt_kind k, lm_loc loc)
{
    fe_stmt *s = LM_NEW(p->a, fe_stmt);
    s->kind = k;
    s->loc = loc;
    return s;
}

/* ---- expressions ------------------------------------------------------------- */

static fe_expr *test(parser *p);
static fe_expr *factor(parser *p);
static fe_expr *bitor_expr(parser *p);

/* Could the current token begin an expression? Decides whether a trailing
 * comma ends a tuple and whether `return` has a value. */
static bool starts_expr(const parser *p)
{
    const fe_token *t = cur(p);
    switch (t->kind) {
    case FE_T_INT:
    case FE_T_FLOAT:
    case FE_T_STRING: return true;
    case FE_T_NAME:
        return !is_keyword(t->text) || tok_is_kw(t, "True") || tok_is_kw(t, "False") || tok_is_kw(t, "None") ||
               tok_is_kw(t, "lambda") || tok_is_kw(t, "not") || tok_is_kw(t, "await") || tok_is_kw(t, "yield");
    case FE_T_OP:
        return tok_is_op(t, "(") || tok_is_op(t, "[") || tok_is_op(t, "{") || tok_is_op(t, "-") ||
               tok_is_op(t, "+") || tok_is_op(t, "~") || tok_is_op(t, "...") || tok_is_op(t, "*") ||
               tok_is_op(t, "**");
    default: return false;
    }
}

/* Call arguments after '(' up to and including ')': positional first, then
 * keyword arguments. Fills e->items and e->kws. */
static bool call_args(parser *p, fe_expr *e)
{
    int cap = 0, kcap = 0;
    while (!p->failed && !is_op(p, ")")) {
        const fe_token *t = cur(p);
        if (is_op(p, "*") || is_op(p, "**")) {
            /* host code unpacks arguments: a unary '*' or '**' with ival 1,
               refused where it is evaluated */
            fe_expr *st = new_expr(p, FE_E_UNOP, t->loc);
            st->op = t->text, st->ival = 1;
            advance(p);
            if (!(st->a = test(p)) || e->nitems + e->nkws >= FE_MAX_ARGS)
                return st->a ? perr(p, t->loc, "more than %d arguments in one call", (int)FE_MAX_ARGS) : false;
            APUSH(p, e->items, e->nitems, cap, st);
        } else if (t->kind == FE_T_NAME && tok_is_op(ahead(p, 1), "=")) {
            const char *name = expect_name(p, "a keyword argument name");
            if (!name)
                return false;
            for (int i = 0; i < e->nkws; i++)
                if (!strcmp(e->kws[i].name, name))
                    return perr(p, t->loc, "keyword argument '%s' is repeated", name);
            advance(p); /* '=' */
            fe_expr *v = test(p);
            if (!v)
                return false;
            fe_keyword kw = {name, v, t->loc};
            if (e->nitems + e->nkws >= FE_MAX_ARGS)
                return perr(p, t->loc, "more than %d arguments in one call", (int)FE_MAX_ARGS);
            APUSH(p, e->kws, e->nkws, kcap, kw);
        } else {
            if (e->nkws)
                return perr(p, t->loc, "positional argument follows keyword argument");
            fe_expr *v = test(p);
            if (!v)
                return false;
            if (is_kw(p, "for"))
                return perr(p, cur(p)->loc, "generator expressions are not supported");
            if (is_op(p, "="))
                return perr(p, cur(p)->loc, "expected a name before '=' in a keyword argument");
            if (e->nitems >= FE_MAX_ARGS)
                return perr(p, t->loc, "more than %d arguments in one call", (int)FE_MAX_ARGS);
            APUSH(p, e->items, e->nitems, cap, v);
        }
        if (!accept_op(p, ","))
            break;
    }
    return !p->failed && expect_op(p, ")", "to close the argument list");
}

/* One subscript index: an expression or a slice lo:hi:step, parts optional. */
static fe_expr *subscript_item(parser *p)
{
    lm_loc loc = cur(p)->loc;
    fe_expr *lo = NULL;
    if (!is_op(p, ":")) {
        lo = test(p);
        if (!lo || !is_op(p, ":"))
            return lo;
    }
    advance(p); /* ':' */
    fe_expr *s = new_expr(p, FE_E_SLICE, loc);
    s->a = lo;
    if (!is_op(p, ":") && !is_op(p, ",") && !is_op(p, "]") && !(s->b = test(p)))
        return NULL;
    if (accept_op(p, ":") && !is_op(p, ",") && !is_op(p, "]") && !(s->c = test(p)))
        return NULL;
    return s;
}

static bool subscript_items(parser *p, fe_expr *e)
{
    int cap = 0;
    if (is_op(p, "]"))
        return perr(p, cur(p)->loc, "empty subscript: expected an index between '[' and ']'");
    while (!p->failed) {
        fe_expr *item = subscript_item(p);
        if (!item)
            return false;
        APUSH(p, e->items, e->nitems, cap, item);
        if (!accept_op(p, ",") || is_op(p, "]"))
            break;
    }
    return !p->failed && expect_op(p, "]", "to close the subscript");
}

/* The rest of a parenthesised or bracketed sequence after its first item:
 * `, item`* with an optional trailing comma, up to and including `close`. */
static bool seq_rest(parser *p, fe_expr *e, int *cap, const char *close, const char *what)
{
    while (!p->failed && accept_op(p, ",")) {
        if (is_op(p, close))
            break;
        fe_expr *item = test(p);
        if (!item)
            return false;
        APUSH(p, e->items, e->nitems, *cap, item);
    }
    if (p->failed)
        return false;
    if (!is_op(p, close)) {
        expected(p, lm_arena_printf(p->a, "',' or '%s' in %s", close, what));
        return false;
    }
    advance(p);
    return true;
}

static fe_expr *paren_atom(parser *p)
{
    lm_loc loc = cur(p)->loc;
    advance(p); /* '(' */
    if (accept_op(p, ")"))
        return new_expr(p, FE_E_TUPLE, loc);
    if (is_kw(p, "yield"))
        return perr(p, cur(p)->loc, "'yield' expressions are not supported");
    fe_expr *first = test(p);
    if (!first)
        return NULL;
    if (is_kw(p, "for"))
        return perr(p, cur(p)->loc, "generator expressions are not supported");
    if (accept_op(p, ")"))
        return first;
    if (!is_op(p, ","))
        return expected(p, "',' or ')' in a parenthesised expression");
    fe_expr *t = new_expr(p, FE_E_TUPLE, loc);
    int cap = 0;
    APUSH(p, t->items, t->nitems, cap, first);
    return seq_rest(p, t, &cap, ")", "a tuple") ? t : NULL;
}

static fe_expr *list_atom(parser *p)
{
    fe_expr *l = new_expr(p, FE_E_LIST, cur(p)->loc);
    advance(p); /* '[' */
    if (accept_op(p, "]"))
        return l;
    fe_expr *first = test(p);
    if (!first)
        return NULL;
    if (is_kw(p, "for")) {
        /* read past, never evaluated (decorator arguments of host code such
           as x_vals=[128 * i for i in range(2, 33)]): ival 1 marks it */
        for (int depth = 1; depth > 0 && !is_kind(p, FE_T_EOF);) {
            const fe_token *t = cur(p);
            if (t->kind == FE_T_OP && (!strcmp(t->text, "[") || !strcmp(t->text, "(") || !strcmp(t->text, "{")))
                depth++;
            else if (t->kind == FE_T_OP && (!strcmp(t->text, "]") || !strcmp(t->text, ")") || !strcmp(t->text, "}")))
                depth--;
            advance(p);
        }
        l->ival = 1;
        return l;
    }
    int cap = 0;
    APUSH(p, l->items, l->nitems, cap, first);
    if (accept_op(p, "]"))
        return l;
    return seq_rest(p, l, &cap, "]", "a list") ? l : NULL;
}

/* {k: v, ...}: read so that decorator arguments parse; the checker and the
 * launch-spec reader never evaluate one. */
static fe_expr *dict_atom(parser *p)
{
    fe_expr *d = new_expr(p, FE_E_DICT, cur(p)->loc);
    advance(p); /* '{' */
    int cap = 0;
    while (!accept_op(p, "}")) {
        if (tok_is_op(cur(p), "**"))
            return perr(p, cur(p)->loc, "unpacking with '**' is not supported");
        fe_expr *k = test(p);
        if (!k)
            return NULL;
        if (is_kw(p, "for"))
            return perr(p, cur(p)->loc, "comprehensions are not supported");
        if (!tok_is_op(cur(p), ":") && (d->nitems == 0 || d->ival == 2)) {
            /* a set display (host code's `assert D in {16, 32}`): ival 2 */
            d->ival = 2;
            APUSH(p, d->items, d->nitems, cap, k);
            if (!accept_op(p, ",") && !tok_is_op(cur(p), "}"))
                return expected(p, "',' or '}' in the set display");
            continue;
        }
        if (!tok_is_op(cur(p), ":") || d->ival == 2)
            return perr(p, cur(p)->loc, "expected ':' after a key of the dict display");
        advance(p);
        fe_expr *v = test(p);
        if (!v)
            return NULL;
        if (is_kw(p, "for"))
            return perr(p, cur(p)->loc, "comprehensions are not supported");
        APUSH(p, d->items, d->nitems, cap, k);
        APUSH(p, d->items, d->nitems, cap, v);
        if (!accept_op(p, ",") && !tok_is_op(cur(p), "}"))
            return expected(p, "',' or '}' in the dict display");
    }
    return d;
}

static fe_expr *atom(parser *p)
{
    const fe_token *t = cur(p);
    fe_expr *e;
    switch (t->kind) {
    case FE_T_INT:
        e = new_expr(p, FE_E_INT, t->loc);
        e->ival = t->ival;
        advance(p);
        return e;
    case FE_T_FLOAT:
        e = new_expr(p, FE_E_FLOAT, t->loc);
        e->fval = t->fval;
        advance(p);
        return e;
    case FE_T_STRING: {
        /* adjacent literals concatenate, as in Python */
        e = new_expr(p, FE_E_STR, t->loc);
        e->str = t->text;
        e->ival = t->ival;
        advance(p);
        while (is_kind(p, FE_T_STRING)) {
            e->ival |= cur(p)->ival;
            e->str = lm_arena_printf(p->a, "%s%s", e->str, cur(p)->text);
            advance(p);
        }
        return e;
    }
    case FE_T_NAME:
        if (tok_is_kw(t, "True") || tok_is_kw(t, "False")) {
            e = new_expr(p, FE_E_BOOL, t->loc);
            e->ival = tok_is_kw(t, "True");
            advance(p);
            return e;
        }
        if (tok_is_kw(t, "None")) {
            advance(p);
            return new_expr(p, FE_E_NONE, t->loc);
        }
        if (tok_is_kw(t, "yield"))
            return perr(p, t->loc, "'yield' expressions are not supported");
        if (tok_is_kw(t, "await"))
            return perr(p, t->loc, "'await' is not supported");
        if (is_keyword(t->text))
            return expected(p, "an expression");
        e = new_expr(p, FE_E_NAME, t->loc);
        e->name = t->text;
        advance(p);
        return e;
    case FE_T_OP:
        if (tok_is_op(t, "("))
            return paren_atom(p);
        if (tok_is_op(t, "["))
            return list_atom(p);
        if (tok_is_op(t, "{"))
            return dict_atom(p);
        if (tok_is_op(t, "...")) {
            advance(p);
            return new_expr(p, FE_E_ELLIPSIS, t->loc);
        }
        if (tok_is_op(t, "*") || tok_is_op(t, "**"))
            return perr(p, t->loc, "unpacking with '%s' is not supported", t->text);
        return expected(p, "an expression");
    default:
        return expected(p, "an expression");
    }
}

/* primary: atom followed by `.name`, `(args)` and `[indices]` trailers. */
static fe_expr *primary(parser *p)
{
    fe_expr *e = atom(p);
    int levels = 0;
    while (e && !p->failed) {
        const fe_token *t = cur(p);
        if (!tok_is_op(t, ".") && !tok_is_op(t, "(") && !tok_is_op(t, "["))
            break;
        if (!enter(p, t->loc, DEEP_EXPR)) {
            e = NULL;
            break;
        }
        levels++;
        advance(p);
        if (tok_is_op(t, ".")) {
            const char *name = expect_name(p, "an attribute name after '.'");
            fe_expr *x = new_expr(p, FE_E_ATTR, e->loc);
            x->a = e;
            x->name = name;
            e = name ? x : NULL;
        } else if (tok_is_op(t, "(")) {
            fe_expr *x = new_expr(p, FE_E_CALL, e->loc);
            x->a = e;
            e = call_args(p, x) ? x : NULL;
        } else {
            fe_expr *x = new_expr(p, FE_E_SUBSCRIPT, e->loc);
            x->a = e;
            e = subscript_items(p, x) ? x : NULL;
        }
    }
    leave(p, levels);
    return p->failed ? NULL : e;
}

/* power: primary ['**' factor]; `-2 ** 2` is -(2 ** 2) and `2 ** -1` works. */
static fe_expr *power(parser *p)
{
    fe_expr *base = primary(p);
    if (!base || !is_op(p, "**"))
        return base;
    if (!enter(p, cur(p)->loc, DEEP_EXPR))
        return NULL;
    advance(p);
    fe_expr *exp = factor(p);
    leave(p, 1);
    return exp ? new_binary(p, FE_E_BINOP, "**", base, exp) : NULL;
}

static fe_expr *factor(parser *p)
{
    const fe_token *t = cur(p);
    if (!tok_is_op(t, "-") && !tok_is_op(t, "+") && !tok_is_op(t, "~"))
        return power(p);
    if (!enter(p, t->loc, DEEP_EXPR))
        return NULL;
    advance(p);
    fe_expr *a = factor(p);
    leave(p, 1);
    if (!a)
        return NULL;
    fe_expr *e = new_expr(p, FE_E_UNOP, t->loc);
    e->op = t->text;
    e->a = a;
    return e;
}

/* The left-associative binary levels from `*` up to `|`, tightest first. */
static const char *const binary_levels[][5] = {
    {"*", "/", "//", "%", "@"},
    {"+", "-"},
    {"<<", ">>"},
    {"&"},
    {"^"},
    {"|"},
};

static const char *binary_op_at(const parser *p, int level)
{
    if (!is_kind(p, FE_T_OP))
        return NULL;
    for (int i = 0; i < 5 && binary_levels[level][i]; i++)
        if (!strcmp(cur(p)->text, binary_levels[level][i]))
            return binary_levels[level][i];
    return NULL;
}

static fe_expr *binary(parser *p, int level)
{
    fe_expr *e = level == 0 ? factor(p) : binary(p, level - 1);
    int levels = 0;
    const char *op;
    while (e && (op = binary_op_at(p, level))) {
        if (!enter(p, cur(p)->loc, DEEP_EXPR)) {
            e = NULL;
            break;
        }
        levels++;
        advance(p);
        fe_expr *b = level == 0 ? factor(p) : binary(p, level - 1);
        e = b ? new_binary(p, FE_E_BINOP, op, e, b) : NULL;
    }
    leave(p, levels);
    return e;
}

static fe_expr *bitor_expr(parser *p) { return binary(p, (int)LM_COUNT(binary_levels) - 1); }

/* The comparison operator at the cursor, consuming it, or NULL. */
static const char *comp_op(parser *p)
{
    static const char *const ops[] = {"<", ">", "==", ">=", "<=", "!="};
    const fe_token *t = cur(p);
    if (t->kind == FE_T_OP) {
        for (size_t i = 0; i < LM_COUNT(ops); i++)
            if (!strcmp(t->text, ops[i])) {
                advance(p);
                return ops[i];
            }
        return NULL;
    }
    if (tok_is_kw(t, "in")) {
        advance(p);
        return "in";
    }
    if (tok_is_kw(t, "not") && tok_is_kw(ahead(p, 1), "in")) {
        advance(p);
        advance(p);
        return "not in";
    }
    if (tok_is_kw(t, "is")) {
        advance(p);
        return accept_kw(p, "not") ? "is not" : "is";
    }
    return NULL;
}

/* comparison: `a < b < c` becomes `(a < b) and (b < c)`, sharing b. */
static fe_expr *comparison(parser *p)
{
    fe_expr *e = bitor_expr(p);
    fe_expr *last = e;
    int levels = 0;
    while (e && !p->failed) {
        lm_loc oploc = cur(p)->loc;
        const char *op = comp_op(p);
        if (!op)
            break;
        if (!enter(p, oploc, DEEP_EXPR)) {
            e = NULL;
            break;
        }
        levels++;
        fe_expr *rhs = bitor_expr(p);
        if (!rhs) {
            e = NULL;
            break;
        }
        fe_expr *cmp = new_binary(p, FE_E_COMPARE, op, last, rhs);
        e = levels == 1 ? cmp : new_binary(p, FE_E_BOOLOP, "and", e, cmp);
        last = rhs;
    }
    leave(p, levels);
    return p->failed ? NULL : e;
}

static fe_expr *not_test(parser *p)
{
    const fe_token *t = cur(p);
    if (!tok_is_kw(t, "not"))
        return comparison(p);
    if (!enter(p, t->loc, DEEP_EXPR))
        return NULL;
    advance(p);
    fe_expr *a = not_test(p);
    leave(p, 1);
    if (!a)
        return NULL;
    fe_expr *e = new_expr(p, FE_E_UNOP, t->loc);
    e->op = "not";
    e->a = a;
    return e;
}

/* `and` (and, one level up, `or`) chains, left-nested. */
static fe_expr *bool_chain(parser *p, const char *kw)
{
    bool is_and = !strcmp(kw, "and");
    fe_expr *e = is_and ? not_test(p) : bool_chain(p, "and");
    int levels = 0;
    while (e && is_kw(p, kw)) {
        if (!enter(p, cur(p)->loc, DEEP_EXPR)) {
            e = NULL;
            break;
        }
        levels++;
        advance(p);
        fe_expr *b = is_and ? not_test(p) : bool_chain(p, "and");
        e = b ? new_binary(p, FE_E_BOOLOP, is_and ? "and" : "or", e, b) : NULL;
    }
    leave(p, levels);
    return e;
}

static bool lambda_params(parser *p, fe_expr *e);

static fe_expr *lambda_expr(parser *p)
{
    fe_expr *e = new_expr(p, FE_E_LAMBDA, cur(p)->loc);
    advance(p); /* 'lambda' */
    if (!lambda_params(p, e) || !expect_op(p, ":", "after the lambda's parameters"))
        return NULL;
    e->a = test(p);
    return e->a ? e : NULL;
}

/* test: lambda, or `a if cond else b`, or an or-chain. Every bracketed or
 * argument expression enters the grammar here, so this is where depth is
 * counted for brackets. */
static fe_expr *test(parser *p)
{
    if (!enter(p, cur(p)->loc, DEEP_EXPR))
        return NULL;
    fe_expr *e;
    if (is_kw(p, "lambda")) {
        e = lambda_expr(p);
    } else {
        e = bool_chain(p, "or");
        if (e && is_kw(p, "if")) {
            advance(p);
            fe_expr *cond = bool_chain(p, "or");
            if (cond && !is_kw(p, "else"))
                cond = expected(p, "'else' in the conditional expression");
            if (cond) {
                advance(p);
                fe_expr *other = test(p);
                fe_expr *x = new_expr(p, FE_E_IFEXP, e->loc);
                x->a = e;
                x->b = cond;
                x->c = other;
                e = other ? x : NULL;
            } else {
                e = NULL;
            }
        }
    }
    if (e && is_op(p, ":="))
        e = perr(p, cur(p)->loc, "assignment expressions (':=') are not supported");
    leave(p, 1);
    return p->failed ? NULL : e;
}

/* A comma-separated list of `item`s that becomes a TUPLE when there is a
 * comma (`a, b = ...`, `return x, y`), allowing a trailing comma. */
static fe_expr *expr_list(parser *p, fe_expr *(*item)(parser *))
{
    lm_loc loc = cur(p)->loc;
    fe_expr *first = item(p);
    if (!first || !is_op(p, ","))
        return first;
    fe_expr *t = new_expr(p, FE_E_TUPLE, loc);
    int cap = 0;
    APUSH(p, t->items, t->nitems, cap, first);
    while (!p->failed && accept_op(p, ",") && starts_expr(p)) {
        fe_expr *x = item(p);
        if (!x)
            return NULL;
        APUSH(p, t->items, t->nitems, cap, x);
    }
    return p->failed ? NULL : t;
}

static fe_expr *test_list(parser *p) { return expr_list(p, test); }

/* ---- parameters ------------------------------------------------------------ */

/* `*args`, `**kw`, a bare `*` or `/` in a def: host code has them, so they
 * are read past and the first is kept as the function's refusal (in a
 * lambda, fn NULL, they are errors at once). */
static bool odd_param(parser *p, fe_func *fn, bool annotations)
{
    const fe_token *t = cur(p), *nt = ahead(p, 1);
    bool named = !tok_is_op(t, "/") && nt->kind == FE_T_NAME && !is_keyword(nt->text);
    const char *why = named ? lm_arena_printf(p->a, "'%s%s' parameters are not supported; list the parameters "
                                                    "explicitly", t->text, nt->text)
                      : tok_is_op(t, "/") ? "positional-only parameters ('/') are not supported"
                                          : "keyword-only parameters ('*') are not supported";
    if (!fn)
        return perr(p, t->loc, "%s", why);
    if (!fn->refusal)
        fn->refusal = why, fn->refusal_loc = t->loc;
    advance(p);
    if (named)
        advance(p);
    return !(named && annotations && accept_op(p, ":") && !test(p));
}

/* Parameters of a def (annotations allowed) or of a lambda, up to `close`. */
static bool params(parser *p, fe_param **out, int *n, const char *close, bool annotations, fe_func *fn)
{
    int cap = 0;
    bool seen_default = false;
    while (!p->failed && !is_op(p, close)) {
        const fe_token *t = cur(p);
        if (tok_is_op(t, "*") || tok_is_op(t, "**") || tok_is_op(t, "/")) {
            if (!odd_param(p, fn, annotations))
                return false;
            /* what follows a bare `*` is keyword-only and may lack defaults */
            seen_default = false;
            if (!accept_op(p, ","))
                break;
            continue;
        }
        fe_param prm = {.loc = t->loc};
        if (!(prm.name = expect_name(p, "a parameter name")))
            return false;
        if (*n >= FE_MAX_PARAMS)
            return perr(p, t->loc, "more than %d parameters", (int)FE_MAX_PARAMS);
        for (int i = 0; i < *n; i++)
            if (!strcmp((*out)[i].name, prm.name))
                return perr(p, t->loc, "duplicate parameter '%s'", prm.name);
        if (annotations && accept_op(p, ":") && !(prm.annotation = test(p)))
            return false;
        if (accept_op(p, "=")) {
            if (!(prm.deflt = test(p)))
                return false;
            seen_default = true;
        } else if (seen_default) {
            return perr(p, t->loc, "parameter '%s' without a default follows a parameter with a default",
                        prm.name);
        }
        APUSH(p, *out, *n, cap, prm);
        if (!accept_op(p, ","))
            break;
    }
    return !p->failed;
}

/* Lambda parameters: plain ones in items (as names), defaulted ones in kws. */
static bool lambda_params(parser *p, fe_expr *e)
{
    fe_param *ps = NULL;
    int n = 0;
    if (!params(p, &ps, &n, ":", false, NULL))
        return false;
    int cap = 0, kcap = 0;
    for (int i = 0; i < n; i++) {
        if (ps[i].deflt) {
            fe_keyword kw = {ps[i].name, ps[i].deflt, ps[i].loc};
            APUSH(p, e->kws, e->nkws, kcap, kw);
        } else {
            fe_expr *x = new_expr(p, FE_E_NAME, ps[i].loc);
            x->name = ps[i].name;
            APUSH(p, e->items, e->nitems, cap, x);
        }
    }
    return true;
}

/* ---- statements ------------------------------------------------------------ */

typedef struct stmt_list {
    fe_stmt **v;
    int n, cap;
} stmt_list;

static bool statement(parser *p, stmt_list *out);
static bool simple_stmts(parser *p, stmt_list *out);

/* A block after ':' — an indented suite, or simple statements on the same
 * line. `what` names the construct for "expected an indented block after". */
static fe_stmt **block(parser *p, const char *what, lm_loc hdr, int *n)
{
    stmt_list l = {0};
    *n = 0;
    if (!enter(p, hdr, DEEP_BLOCK))
        return NULL;
    if (!is_kind(p, FE_T_NEWLINE)) {
        /* `if x: return y`: only simple statements may share the header's line */
        static const char *const compound[] = {"def", "class", "if", "for", "while", "with", "try", "async"};
        for (size_t i = 0; i < LM_COUNT(compound); i++)
            if (is_kw(p, compound[i]))
                perr(p, cur(p)->loc, "'%s' cannot follow ':' on the same line; start it on a new, indented line",
                     compound[i]);
        if (!p->failed)
            simple_stmts(p, &l);
    } else {
        advance(p);
        if (!is_kind(p, FE_T_INDENT)) {
            /* at the end of the file there is no line to point at: point at the header */
            lm_loc at = cur(p)->loc, end = p->t[p->n - 1].loc;
            if (at.line == end.line && at.col == end.col)
                at = hdr;
            perr(p, at, "expected an indented block after %s on line %d", what, hdr.line);
        } else {
            advance(p);
            while (!p->failed && !is_kind(p, FE_T_DEDENT) && !is_kind(p, FE_T_EOF))
                statement(p, &l);
            if (!p->failed)
                advance(p); /* DEDENT */
        }
    }
    leave_block(p);
    if (p->failed)
        return NULL;
    *n = l.n;
    return l.v;
}

static bool header_colon(parser *p, const char *what)
{
    return expect_op(p, ":", lm_arena_printf(p->a, "at the end of the %s line", what));
}

/* Check that e can be assigned to; tuples and lists of targets only when
 * allow_tuple (plain assignment, for, del). */
static bool check_target(parser *p, const fe_expr *e, bool allow_tuple)
{
    switch (e->kind) {
    case FE_E_NAME:
    case FE_E_ATTR:
    case FE_E_SUBSCRIPT: return true;
    case FE_E_TUPLE:
    case FE_E_LIST:
        if (!allow_tuple) {
            perr(p, e->loc, "a tuple cannot be the target of an augmented or annotated assignment");
            return false;
        }
        for (int i = 0; i < e->nitems; i++)
            if (!check_target(p, e->items[i], true))
                return false;
        return true;
    case FE_E_CALL: perr(p, e->loc, "cannot assign to a function call"); return false;
    case FE_E_INT:
    case FE_E_FLOAT:
    case FE_E_STR:
    case FE_E_ELLIPSIS: perr(p, e->loc, "cannot assign to a literal"); return false;
    case FE_E_BOOL: perr(p, e->loc, "cannot assign to %s", e->ival ? "True" : "False"); return false;
    case FE_E_NONE: perr(p, e->loc, "cannot assign to None"); return false;
    case FE_E_LAMBDA: perr(p, e->loc, "cannot assign to a lambda"); return false;
    case FE_E_DICT: perr(p, e->loc, "cannot assign to a dict display"); return false;
    case FE_E_IFEXP: perr(p, e->loc, "cannot assign to a conditional expression"); return false;
    case FE_E_SLICE:
    case FE_E_BINOP:
    case FE_E_UNOP:
    case FE_E_COMPARE:
    case FE_E_BOOLOP: perr(p, e->loc, "cannot assign to an expression"); return false;
    }
    return false;
}

static const char *const aug_ops[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=",
                                      "&=", "|=", "^=", "<<=", ">>="};

/* The operator of an augmented assignment at the cursor ("+" for "+="), or NULL. */
static const char *aug_op(parser *p)
{
    if (!is_kind(p, FE_T_OP))
        return NULL;
    for (size_t i = 0; i < LM_COUNT(aug_ops); i++)
        if (!strcmp(cur(p)->text, aug_ops[i]))
            return lm_arena_strndup(p->a, aug_ops[i], strlen(aug_ops[i]) - 1);
    return NULL;
}

static fe_expr *assigned_value(parser *p)
{
    if (is_kw(p, "yield"))
        return perr(p, cur(p)->loc, "'yield' expressions are not supported");
    return test_list(p);
}

/* Expression statements and the three kinds of assignment. */
static fe_stmt *expr_stmt(parser *p)
{
    lm_loc loc = cur(p)->loc;
    fe_expr *first = test_list(p);
    if (!first)
        return NULL;
    const char *op;
    if (is_op(p, "=")) {
        fe_stmt *s = new_stmt(p, FE_S_ASSIGN, loc);
        int cap = 0;
        fe_expr *e = first;
        while (accept_op(p, "=")) {
            if (!check_target(p, e, true))
                return NULL;
            APUSH(p, s->targets, s->ntargets, cap, e);
            if (!(e = assigned_value(p)))
                return NULL;
        }
        s->value = e;
        return s;
    }
    if ((op = aug_op(p))) {
        if (!check_target(p, first, false))
            return NULL;
        advance(p);
        fe_stmt *s = new_stmt(p, FE_S_AUGASSIGN, loc);
        s->op = op;
        s->targets = LM_NEWN(p->a, fe_expr *, 1);
        s->targets[0] = first;
        s->ntargets = 1;
        return (s->value = assigned_value(p)) ? s : NULL;
    }
    if (is_op(p, ":")) {
        if (!check_target(p, first, false))
            return NULL;
        advance(p);
        fe_stmt *s = new_stmt(p, FE_S_ANNASSIGN, loc);
        s->targets = LM_NEWN(p->a, fe_expr *, 1);
        s->targets[0] = first;
        s->ntargets = 1;
        if (!(s->annotation = test(p)))
            return NULL;
        if (accept_op(p, "=") && !(s->value = assigned_value(p)))
            return NULL;
        return s;
    }
    fe_stmt *s = new_stmt(p, FE_S_EXPR, loc);
    s->value = first;
    return s;
}

/* A dotted module name: `triton.language`, or relative `..pkg` after `from`. */
static const char *dotted_name(parser *p, bool relative)
{
    lm_buf b = {0};
    if (relative)
        while (is_op(p, ".") || is_op(p, "...")) {
            lm_buf_puts(&b, cur(p)->text);
            advance(p);
        }
    const char *res = NULL;
    if (relative && b.len && is_kw(p, "import")) {
        res = lm_arena_strdup(p->a, lm_buf_str(&b));
        goto done;
    }
    for (;;) {
        const char *n = expect_name(p, "a module name");
        if (!n)
            goto done;
        lm_buf_puts(&b, n);
        if (!is_op(p, "."))
            break;
        advance(p);
        lm_buf_putc(&b, '.');
    }
    res = lm_arena_strdup(p->a, lm_buf_str(&b));
done:
    lm_buf_free(&b);
    return res;
}

static fe_stmt *import_stmt(parser *p)
{
    fe_stmt *s = new_stmt(p, FE_S_IMPORT, cur(p)->loc);
    int cap = 0;
    if (accept_kw(p, "import")) {
        do {
            fe_import im = {0};
            if (!(im.module = dotted_name(p, false)))
                return NULL;
            if (accept_kw(p, "as") && !(im.alias = expect_name(p, "a name after 'as'")))
                return NULL;
            APUSH(p, s->imports, s->nimports, cap, im);
        } while (accept_op(p, ","));
        return s;
    }
    advance(p); /* 'from' */
    const char *module = dotted_name(p, true);
    if (!module)
        return NULL;
    if (!is_kw(p, "import"))
        return expected(p, "'import' after the module name");
    advance(p);
    if (is_op(p, "*"))
        return perr(p, cur(p)->loc, "'from %s import *' is not supported; import the names you use", module);
    bool paren = accept_op(p, "(");
    do {
        if (paren && is_op(p, ")"))
            break;
        fe_import im = {.module = module};
        if (!(im.name = expect_name(p, "a name to import")))
            return NULL;
        if (accept_kw(p, "as") && !(im.alias = expect_name(p, "a name after 'as'")))
            return NULL;
        APUSH(p, s->imports, s->nimports, cap, im);
    } while (accept_op(p, ","));
    if (paren && !expect_op(p, ")", "to close the list of imported names"))
        return NULL;
    return s;
}

static fe_stmt *other_stmt(parser *p, const char *kw)
{
    fe_stmt *s = new_stmt(p, FE_S_OTHER, cur(p)->loc);
    s->keyword = kw;
    advance(p);
    return s;
}

/* global, nonlocal, del, raise, yield: parsed so the checker can name them. */
static fe_stmt *rejected_simple_stmt(parser *p, const char *kw)
{
    fe_stmt *s = other_stmt(p, kw);
    int cap = 0;
    if (!strcmp(kw, "global") || !strcmp(kw, "nonlocal")) {
        do {
            lm_loc loc = cur(p)->loc;
            const char *n = expect_name(p, "a name");
            if (!n)
                return NULL;
            fe_expr *x = new_expr(p, FE_E_NAME, loc);
            x->name = n;
            APUSH(p, s->targets, s->ntargets, cap, x);
        } while (accept_op(p, ","));
    } else if (!strcmp(kw, "del")) {
        fe_expr *t = expr_list(p, bitor_expr);
        if (!t || !check_target(p, t, true))
            return NULL;
        APUSH(p, s->targets, s->ntargets, cap, t);
    } else if (starts_expr(p)) { /* raise X [from Y], yield X, yield from X */
        if (!strcmp(kw, "yield") && accept_kw(p, "from"))
            s->keyword = "yield from";
        if (!(s->value = test_list(p)))
            return NULL;
        if (!strcmp(kw, "raise") && accept_kw(p, "from") && !test(p))
            return NULL;
    }
    return s;
}

static fe_stmt *simple_stmt(parser *p)
{
    const fe_token *t = cur(p);
    fe_stmt *s;
    if (t->kind != FE_T_NAME)
        return expr_stmt(p);
    if (tok_is_kw(t, "pass") || tok_is_kw(t, "break") || tok_is_kw(t, "continue")) {
        fe_stmt_kind k = tok_is_kw(t, "pass") ? FE_S_PASS : tok_is_kw(t, "break") ? FE_S_BREAK : FE_S_CONTINUE;
        advance(p);
        return new_stmt(p, k, t->loc);
    }
    if (tok_is_kw(t, "return")) {
        advance(p);
        s = new_stmt(p, FE_S_RETURN, t->loc);
        if (starts_expr(p) && !(s->value = test_list(p)))
            return NULL;
        return s;
    }
    if (tok_is_kw(t, "assert")) {
        advance(p);
        s = new_stmt(p, FE_S_ASSERT, t->loc);
        if (!(s->value = test(p)))
            return NULL;
        if (accept_op(p, ",") && !(s->msg = test(p)))
            return NULL;
        return s;
    }
    if (tok_is_kw(t, "import") || tok_is_kw(t, "from"))
        return import_stmt(p);
    static const char *const rejected[] = {"global", "nonlocal", "del", "raise", "yield"};
    for (size_t i = 0; i < LM_COUNT(rejected); i++)
        if (tok_is_kw(t, rejected[i]))
            return rejected_simple_stmt(p, rejected[i]);
    return expr_stmt(p);
}

/* Simple statements separated by ';' up to the end of the line. */
static bool simple_stmts(parser *p, stmt_list *out)
{
    for (;;) {
        fe_stmt *s = simple_stmt(p);
        if (!s)
            return false;
        APUSH(p, out->v, out->n, out->cap, s);
        if (!accept_op(p, ";") || is_kind(p, FE_T_NEWLINE))
            break;
    }
    if (!is_kind(p, FE_T_NEWLINE)) {
        if (is_op(p, "="))
            expected(p, "end of line after the statement (use '==' to compare)");
        else
            expected(p, "end of line after the statement");
        return false;
    }
    advance(p);
    return true;
}

static fe_stmt *if_stmt(parser *p)
{
    const fe_token *t = cur(p); /* 'if' or 'elif' */
    const char *what = tok_is_kw(t, "if") ? "'if' statement" : "'elif' clause";
    fe_stmt *s = new_stmt(p, FE_S_IF, t->loc);
    advance(p);
    if (!(s->cond = test(p)) || !header_colon(p, tok_is_kw(t, "if") ? "'if'" : "'elif'"))
        return NULL;
    if (!(s->body = block(p, what, t->loc, &s->nbody)))
        return NULL;
    if (is_kw(p, "elif")) {
        /* each elif nests one IF deeper in the tree */
        if (!enter(p, cur(p)->loc, DEEP_ELIF))
            return NULL;
        p->elifs++;
        fe_stmt *e = if_stmt(p);
        p->elifs--;
        leave_block(p);
        if (!e)
            return NULL;
        s->orelse = LM_NEWN(p->a, fe_stmt *, 1);
        s->orelse[0] = e;
        s->norelse = 1;
    } else if (is_kw(p, "else")) {
        lm_loc eloc = cur(p)->loc;
        advance(p);
        if (!header_colon(p, "'else'") || !(s->orelse = block(p, "'else'", eloc, &s->norelse)))
            return NULL;
    }
    return s;
}

static fe_stmt *while_stmt(parser *p)
{
    fe_stmt *s = new_stmt(p, FE_S_WHILE, cur(p)->loc);
    advance(p);
    if (!(s->cond = test(p)) || !header_colon(p, "'while'") ||
        !(s->body = block(p, "'while' statement", s->loc, &s->nbody)))
        return NULL;
    if (is_kw(p, "else")) {
        lm_loc eloc = cur(p)->loc;
        advance(p);
        if (!header_colon(p, "'else'") || !(s->orelse = block(p, "'else'", eloc, &s->norelse)))
            return NULL;
    }
    return s;
}

static fe_stmt *for_stmt(parser *p)
{
    fe_stmt *s = new_stmt(p, FE_S_FOR, cur(p)->loc);
    advance(p);
    fe_expr *target = expr_list(p, bitor_expr);
    if (!target || !check_target(p, target, true))
        return NULL;
    if (!is_kw(p, "in"))
        return expected(p, "'in' after the 'for' loop variable");
    advance(p);
    s->targets = LM_NEWN(p->a, fe_expr *, 1);
    s->targets[0] = target;
    s->ntargets = 1;
    if (!(s->iter = test_list(p)) || !header_colon(p, "'for'") ||
        !(s->body = block(p, "'for' statement", s->loc, &s->nbody)))
        return NULL;
    if (is_kw(p, "else"))
        return perr(p, cur(p)->loc, "'else' after a 'for' loop is not supported");
    return s;
}

static fe_stmt *def_stmt(parser *p, lm_loc loc, fe_expr **decorators, int ndecorators)
{
    fe_func *fn = LM_NEW(p->a, fe_func);
    fn->loc = cur(p)->loc;
    fn->decorators = decorators;
    fn->ndecorators = ndecorators;
    advance(p); /* 'def' */
    if (!(fn->name = expect_name(p, "a function name after 'def'")))
        return NULL;
    if (!expect_op(p, "(", lm_arena_printf(p->a, "after the function name '%s'", fn->name)))
        return NULL;
    if (!params(p, &fn->params, &fn->nparams, ")", true, fn))
        return NULL;
    if (!is_op(p, ")"))
        return expected(p, "',' or ')' in the parameter list");
    advance(p);
    if (accept_op(p, "->") && !(fn->returns = test(p)))
        return NULL;
    if (!header_colon(p, "'def'"))
        return NULL;
    if (!(fn->body = block(p, lm_arena_printf(p->a, "function definition '%s'", fn->name), fn->loc, &fn->nbody)))
        return NULL;
    fe_stmt *s = new_stmt(p, FE_S_DEF, loc);
    s->fn = fn;
    return s;
}

static fe_stmt *class_stmt(parser *p, lm_loc loc)
{
    fe_stmt *s = other_stmt(p, "class");
    s->loc = loc;
    if (!expect_name(p, "a class name after 'class'"))
        return NULL;
    if (accept_op(p, "(")) {
        fe_expr bases = {0};
        if (!call_args(p, &bases))
            return NULL;
    }
    if (!header_colon(p, "'class'"))
        return NULL;
    return (s->body = block(p, "class definition", s->loc, &s->nbody)) ? s : NULL;
}

static fe_stmt *with_stmt(parser *p)
{
    fe_stmt *s = other_stmt(p, "with");
    do {
        if (!test(p))
            return NULL;
        if (accept_kw(p, "as") && !bitor_expr(p))
            return NULL;
    } while (accept_op(p, ","));
    if (!header_colon(p, "'with'"))
        return NULL;
    return (s->body = block(p, "'with' statement", s->loc, &s->nbody)) ? s : NULL;
}

/* try: the try block in body; the except/else/finally blocks in orelse. */
static fe_stmt *try_stmt(parser *p)
{
    fe_stmt *s = other_stmt(p, "try");
    if (!header_colon(p, "'try'") || !(s->body = block(p, "'try' statement", s->loc, &s->nbody)))
        return NULL;
    int cap = 0;
    bool handlers = false;
    while (!p->failed && (is_kw(p, "except") || is_kw(p, "else") || is_kw(p, "finally"))) {
        const fe_token *t = cur(p);
        advance(p);
        if (tok_is_kw(t, "except") && !is_op(p, ":")) {
            accept_op(p, "*");
            if (!test(p))
                return NULL;
            if (accept_kw(p, "as") && !expect_name(p, "a name after 'as'"))
                return NULL;
        }
        handlers |= !tok_is_kw(t, "else");
        int n = 0;
        fe_stmt **b;
        if (!header_colon(p, lm_arena_printf(p->a, "'%s'", t->text)) ||
            !(b = block(p, lm_arena_printf(p->a, "'%s'", t->text), t->loc, &n)))
            return NULL;
        for (int i = 0; i < n; i++)
            APUSH(p, s->orelse, s->norelse, cap, b[i]);
    }
    if (!handlers)
        return expected(p, "'except' or 'finally' after the 'try' block");
    return s;
}

static fe_stmt *compound_or_simple(parser *p, lm_loc loc, fe_expr **decorators, int ndecorators);

/* async def/for/with: the statement it prefixes becomes the body. */
static fe_stmt *async_stmt(parser *p)
{
    fe_stmt *s = other_stmt(p, "async");
    if (!is_kw(p, "def") && !is_kw(p, "for") && !is_kw(p, "with"))
        return expected(p, "'def', 'for' or 'with' after 'async'");
    fe_stmt *inner = compound_or_simple(p, cur(p)->loc, NULL, 0);
    if (!inner)
        return NULL;
    s->body = LM_NEWN(p->a, fe_stmt *, 1);
    s->body[0] = inner;
    s->nbody = 1;
    return s;
}

/* One decorator: a dotted name, optionally called: `@triton.jit(debug=True)`. */
static fe_expr *decorator(parser *p)
{
    lm_loc at = cur(p)->loc;
    advance(p); /* '@' */
    const fe_token *t = cur(p);
    if (t->kind != FE_T_NAME || is_keyword(t->text))
        return perr(p, t->loc, "a decorator must be a dotted name such as 'triton.jit', optionally called "
                               "with arguments; found %s",
                    describe(p, t));
    fe_expr *e = new_expr(p, FE_E_NAME, t->loc);
    e->name = t->text;
    advance(p);
    int levels = 0;
    while (accept_op(p, ".")) {
        if (!enter(p, at, DEEP_DECORATOR))
            return NULL;
        levels++;
        fe_expr *x = new_expr(p, FE_E_ATTR, e->loc);
        x->a = e;
        if (!(x->name = expect_name(p, "an attribute name after '.'")))
            return NULL;
        e = x;
    }
    leave(p, levels);
    if (accept_op(p, "(")) {
        fe_expr *x = new_expr(p, FE_E_CALL, e->loc);
        x->a = e;
        if (!call_args(p, x))
            return NULL;
        e = x;
    }
    if (!is_kind(p, FE_T_NEWLINE))
        return expected(p, "end of line after the decorator");
    advance(p);
    return e;
}

static fe_stmt *decorated(parser *p)
{
    lm_loc loc = cur(p)->loc;
    fe_expr **decs = NULL;
    int n = 0, cap = 0;
    while (is_op(p, "@") && !p->failed) {
        fe_expr *d = decorator(p);
        if (!d)
            return NULL;
        APUSH(p, decs, n, cap, d);
    }
    if (!is_kw(p, "def") && !is_kw(p, "class") && !is_kw(p, "async"))
        return expected(p, "'def' or 'class' after the decorator");
    return compound_or_simple(p, loc, decs, n);
}

/* Statements that are not simple statements; NULL (without error) when the
 * cursor is not at one. */
static fe_stmt *compound_or_simple(parser *p, lm_loc loc, fe_expr **decorators, int ndecorators)
{
    if (is_kw(p, "def"))
        return def_stmt(p, loc, decorators, ndecorators);
    if (is_kw(p, "class"))
        return class_stmt(p, loc);
    if (is_kw(p, "if"))
        return if_stmt(p);
    if (is_kw(p, "for"))
        return for_stmt(p);
    if (is_kw(p, "while"))
        return while_stmt(p);
    if (is_kw(p, "with"))
        return with_stmt(p);
    if (is_kw(p, "try"))
        return try_stmt(p);
    if (is_kw(p, "async"))
        return async_stmt(p);
    return NULL;
}

/* One statement line: a compound statement, or simple statements. */
static bool statement(parser *p, stmt_list *out)
{
    const fe_token *t = cur(p);
    if (t->kind == FE_T_INDENT)
        return perr(p, t->loc, "unexpected indent");
    if (t->kind == FE_T_NEWLINE || t->kind == FE_T_DEDENT || t->kind == FE_T_EOF)
        return expected(p, "a statement");
    if (tok_is_kw(t, "elif") || tok_is_kw(t, "else"))
        return perr(p, t->loc, "'%s' without a matching 'if' (or it is indented differently)", t->text);
    if (tok_is_kw(t, "except") || tok_is_kw(t, "finally"))
        return perr(p, t->loc, "'%s' without a matching 'try' (or it is indented differently)", t->text);
    fe_stmt *s = NULL;
    if (tok_is_op(t, "@"))
        s = decorated(p);
    else if (t->kind == FE_T_NAME)
        s = compound_or_simple(p, t->loc, NULL, 0);
    else
        return simple_stmts(p, out);
    if (!s && !p->failed)
        return simple_stmts(p, out);
    if (!s)
        return false;
    APUSH(p, out->v, out->n, out->cap, s);
    return true;
}

fe_module *fe_parse(const char *file, const char *src, size_t len, lm_arena *a, lm_diag *d)
{
    fe_tokens toks;
    if (!fe_lex(file, src, len, a, d, &toks))
        return NULL;
    parser p = {.t = toks.t, .n = toks.n, .a = a, .d = d};
    stmt_list body = {0};
    int nfuncs = 0;
    while (!p.failed && !is_kind(&p, FE_T_EOF)) {
        int before = body.n;
        statement(&p, &body);
        for (int i = before; i < body.n && !p.failed; i++)
            if (body.v[i]->kind == FE_S_DEF && ++nfuncs > FE_MAX_FUNCS)
                perr(&p, body.v[i]->loc, "more than %d functions in one file", (int)FE_MAX_FUNCS);
    }
    if (p.failed)
        return NULL;
    LM_ASSERT(p.depth[0] == 0 && p.depth[1] == 0);
    fe_module *m = LM_NEW(a, fe_module);
    m->file = file;
    m->body = body.v;
    m->nbody = body.n;
    return m;
}
