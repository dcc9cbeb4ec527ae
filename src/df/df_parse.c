/* df_parse.c - the text form of dataflow programs: parsing (df_parse).
 * Resolving program-level numbers after --param overrides is df_bind.c.
 *
 * The grammar is in docs/dataflow.md. The text is line oriented: an item is
 * a keyword followed by whitespace-separated words up to the end of the line
 * or a brace, so no value may contain spaces. Op fields are read through the
 * op table (df_ops), which keeps the parser, the printer and the table from
 * drifting apart. Names must be declared before they are used, which keeps
 * the parser single-pass and the messages local.
 *
 * Errors are reported at the word they concern and parsing continues with
 * the next item, so one run shows several mistakes; any error makes
 * df_parse return NULL.
 */
#include "df/df.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Limits (docs/dataflow.md, "Limits"). */
enum {
    MAX_WORDS = 64,       /* words on one line */
    MAX_NAME = 64,        /* characters of a name */
    MAX_LOOP_DEPTH = 16,  /* nested for loops in a kernel */
    MAX_EXPR_DEPTH = 64,  /* nesting of an expression tree (evaluation recurses) */
    MAX_CB_ID = 1023,     /* CB ids beyond this are certainly a typo; the chip's limit is checked by df_validate */
    /* Program-level items: every declaration looks its name up among all
       of them, so their number bounds the parse's quadratic part. Classes
       are disjoint rectangles of the grid, so no chip has more. */
    MAX_TENSORS = 1024,
    MAX_SEMS = 1024,
    MAX_CHECKS = 256,
    MAX_CLASSES = ARCH_MAX_GRID * ARCH_MAX_GRID,
};

/* ---- lexer -------------------------------------------------------------------- */

typedef enum { T_WORD, T_LBRACE, T_RBRACE, T_NL, T_EOF } tkind;

typedef struct tok {
    tkind kind;
    const char *s;
    int len;
    int line, col;
} tok;

typedef struct item {
    tok w[MAX_WORDS];
    int n;
    tok end; /* what ended it: T_NL, T_LBRACE, T_RBRACE or T_EOF */
    bool too_long;
} item;

typedef struct loopvar {
    const char *name;
    int slot;
} loopvar;

typedef struct parser {
    const char *file;
    const char *pos, *end;
    int line;
    const char *line_start;
    lm_diag *d;
    df_program *p;
    bool eof;          /* reached the end: outer blocks stop quietly */
    bool seen_class;
    /* expression scope */
    df_class *cls;     /* NULL: program level (params only) */
    int nargs_visible; /* args an expression may use */
    loopvar loops[MAX_LOOP_DEPTH];
    int nloops;
    int depth;         /* recursion guard of the expression parser */
} parser;

static lm_loc loc_of(const parser *P, const tok *t) { return (lm_loc){P->file, t->line, t->col}; }

static void next_tok(parser *P, tok *t)
{
    /* lines end with LF, CRLF or a lone CR (as in the kernel lexer) */
    while (P->pos < P->end &&
           (*P->pos == ' ' || *P->pos == '\t' || (*P->pos == '\r' && P->pos + 1 < P->end && P->pos[1] == '\n')))
        P->pos++;
    if (P->pos < P->end && *P->pos == '#')
        while (P->pos < P->end && *P->pos != '\n' && *P->pos != '\r')
            P->pos++;
    t->s = P->pos;
    t->line = P->line;
    t->col = (int)(P->pos - P->line_start) + 1;
    t->len = 1;
    if (P->pos >= P->end) {
        t->kind = T_EOF;
        t->len = 0;
        return;
    }
    char c = *P->pos;
    if (c == '\n' || c == '\r') {
        t->kind = T_NL;
        P->pos += c == '\r' && P->pos + 1 < P->end && P->pos[1] == '\n' ? 2 : 1;
        P->line++;
        P->line_start = P->pos;
        return;
    }
    if (c == '{' || c == '}') {
        t->kind = c == '{' ? T_LBRACE : T_RBRACE;
        P->pos++;
        return;
    }
    const char *s = P->pos;
    while (P->pos < P->end && !strchr(" \t\r\n{}#", *P->pos))
        P->pos++;
    t->kind = T_WORD;
    t->len = (int)(P->pos - s);
}

/* Read one item: the words of a line up to a newline or a brace. Empty
 * lines are skipped, so n == 0 means a lone brace or the end. */
static void next_item(parser *P, item *it)
{
    it->n = 0;
    it->too_long = false;
    for (;;) {
        tok t;
        next_tok(P, &t);
        if (t.kind == T_WORD) {
            if (it->n < MAX_WORDS)
                it->w[it->n++] = t;
            else
                it->too_long = true;
            continue;
        }
        if (t.kind == T_NL && it->n == 0)
            continue;
        it->end = t;
        if (t.kind == T_EOF)
            P->eof = true;
        break;
    }
    if (it->too_long)
        lm_error(P->d, loc_of(P, &it->w[0]), "too many words on one line (the limit is %d)", MAX_WORDS);
}

/* Skip a block whose '{' was just read, for recovery after an error. */
static void skip_block(parser *P)
{
    int depth = 1;
    while (depth > 0) {
        tok t;
        next_tok(P, &t);
        if (t.kind == T_EOF) {
            P->eof = true;
            return;
        }
        depth += t.kind == T_LBRACE ? 1 : t.kind == T_RBRACE ? -1 : 0;
    }
}

static bool word_is(const tok *t, const char *s) { return (int)strlen(s) == t->len && !memcmp(t->s, s, (size_t)t->len); }

static char *word_dup(parser *P, const char *s, int len) { return lm_arena_strndup(&P->p->arena, s, (size_t)len); }

/* ---- names and suggestions ------------------------------------------------------- */

static bool is_ident(const char *s, int len)
{
    if (len <= 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (int i = 1; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

/* " (did you mean 'x'?)" or "" */
static const char *suggest_text(parser *P, const lm_near *s)
{
    const char *best = lm_near_best(s);
    return best ? lm_arena_printf(&P->p->arena, " (did you mean '%s'?)", best) : "";
}

static bool reserved_name(const char *s, int len)
{
    static const char *const r[] = {"cx", "cy", "min", "max"};
    for (size_t i = 0; i < LM_COUNT(r); i++)
        if ((int)strlen(r[i]) == len && !memcmp(r[i], s, (size_t)len))
            return true;
    return false;
}

static bool eq(const char *a, const char *s, int len) { return (int)strlen(a) == len && !memcmp(a, s, (size_t)len); }

/* Program-level names (params, tensors, semaphores, classes) share one
 * namespace so that a name never means two things in a message. */
static const lm_loc *program_name_loc(parser *P, const char *s, int len)
{
    df_program *p = P->p;
    for (int i = 0; i < p->nparams; i++)
        if (eq(p->params[i].name, s, len))
            return &p->params[i].loc;
    for (int i = 0; i < p->ntensors; i++)
        if (eq(p->tensors[i].name, s, len))
            return &p->tensors[i].loc;
    for (int i = 0; i < p->nsems; i++)
        if (eq(p->sems[i].name, s, len))
            return &p->sems[i].loc;
    for (int i = 0; i < p->nclasses; i++)
        if (eq(p->classes[i].name, s, len))
            return &p->classes[i].loc;
    return NULL;
}

/* Check a name being declared; reports and returns false when it is not a
 * valid fresh program-level name. */
static bool new_program_name(parser *P, const tok *t, const char *s, int len, const char *what)
{
    lm_loc at = {P->file, t->line, t->col + (int)(s - t->s)};
    if (!is_ident(s, len)) {
        lm_error(P->d, at, "bad %s name '%.*s': expected letters, digits and '_', not starting with a digit",
                 what, len, s);
        return false;
    }
    if (len > MAX_NAME) {
        lm_error(P->d, at, "%s name is longer than %d characters", what, MAX_NAME);
        return false;
    }
    if (reserved_name(s, len)) {
        lm_error(P->d, at, "'%.*s' is reserved and cannot name a %s", len, s, what);
        return false;
    }
    const lm_loc *prev = program_name_loc(P, s, len);
    if (prev) {
        lm_error(P->d, at, "duplicate name '%.*s'", len, s);
        lm_note(P->d, *prev, "'%.*s' was declared here", len, s);
        return false;
    }
    return true;
}

/* ---- expressions ------------------------------------------------------------------ */

typedef struct xparse {
    parser *P;
    const char *s, *cur, *end;
    lm_loc at; /* location of s */
    bool failed;
} xparse;

typedef struct xres {
    const df_expr *e;
    int depth;
} xres;

static lm_loc xloc(const xparse *X, const char *where)
{
    lm_loc l = X->at;
    l.col += (int)(where - X->s);
    return l;
}

static void xerror(xparse *X, const char *where, const char *fmt, ...) LM_PRINTF(3, 4);
static void xerror(xparse *X, const char *where, const char *fmt, ...)
{
    if (X->failed)
        return;
    X->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lm_error(X->P->d, xloc(X, where), "bad expression '%.*s': %s", (int)(X->end - X->s), X->s, msg);
}

static const char *found(xparse *X)
{
    if (X->cur >= X->end)
        return "the end of the value";
    return lm_arena_printf(&X->P->p->arena, "'%c'", *X->cur);
}

/* Resolve a name to its slot in the current scope, or report. */
static int lookup_var(xparse *X, const char *s, int len)
{
    parser *P = X->P;
    df_program *p = P->p;
    for (int i = P->nloops - 1; i >= 0; i--)
        if (eq(P->loops[i].name, s, len))
            return P->loops[i].slot;
    if (P->cls) {
        for (int i = 0; i < P->nargs_visible; i++)
            if (eq(P->cls->slot_names[DF_SLOT_PARAM0 + p->nparams + i], s, len))
                return DF_SLOT_PARAM0 + p->nparams + i;
    }
    for (int i = 0; i < p->nparams; i++)
        if (eq(p->params[i].name, s, len))
            return DF_SLOT_PARAM0 + i;
    if (eq("cx", s, len) || eq("cy", s, len)) {
        if (P->cls)
            return eq("cx", s, len) ? DF_SLOT_CX : DF_SLOT_CY;
        xerror(X, s, "'%.*s' cannot be used here: program-level values may use params only", len, s);
        return -1;
    }
    if (!P->cls) {
        for (int c = 0; c < p->nclasses; c++)
            for (int i = 0; i < p->classes[c].nargs; i++)
                if (eq(p->classes[c].slot_names[DF_SLOT_PARAM0 + p->nparams + i], s, len)) {
                    xerror(X, s, "'%.*s' cannot be used here: program-level values may use params only",
                           len, s);
                    return -1;
                }
    }
    lm_near sg;
    lm_near_init(&sg, s, len, LM_NEAR_NAME);
    for (int i = P->nloops - 1; i >= 0; i--)
        lm_near_offer(&sg, P->loops[i].name);
    if (P->cls)
        for (int i = 0; i < P->nargs_visible; i++)
            lm_near_offer(&sg, P->cls->slot_names[DF_SLOT_PARAM0 + p->nparams + i]);
    for (int i = 0; i < p->nparams; i++)
        lm_near_offer(&sg, p->params[i].name);
    if (P->cls) {
        lm_near_offer(&sg, "cx");
        lm_near_offer(&sg, "cy");
    }
    xerror(X, s, "unknown name '%.*s'%s", len, s, suggest_text(P, &sg));
    return -1;
}

static xres x_sum(xparse *X);

static xres mk(xparse *X, df_xkind k, xres a, xres b, const char *where)
{
    xres r = {NULL, LM_MAX(a.depth, b.depth) + 1};
    if (!a.e || !b.e)
        return (xres){NULL, 0};
    if (r.depth > MAX_EXPR_DEPTH) {
        xerror(X, where, "nested more than %d levels deep", MAX_EXPR_DEPTH);
        return (xres){NULL, 0};
    }
    r.e = df_bin(X->P->p, k, a.e, b.e);
    return r;
}

static bool enter(xparse *X)
{
    if (++X->P->depth > MAX_EXPR_DEPTH) {
        xerror(X, X->cur, "nested more than %d levels deep", MAX_EXPR_DEPTH);
        return false;
    }
    return true;
}

static xres x_unary(xparse *X)
{
    xres fail = {NULL, 0};
    if (X->failed || !enter(X))
        return fail;
    xres r = fail;
    const char *c = X->cur;
    if (c < X->end && *c == '-') {
        X->cur++;
        xres a = x_unary(X);
        r = mk(X, DF_X_SUB, (xres){df_const(X->P->p, 0), 0}, a, c);
    } else if (c < X->end && *c == '(') {
        X->cur++;
        r = x_sum(X);
        if (!X->failed && (X->cur >= X->end || *X->cur != ')')) {
            xerror(X, X->cur, "expected ')' to close the '(' at column %d, found %s", xloc(X, c).col,
                   found(X));
            r = fail;
        } else
            X->cur++;
    } else if (c < X->end && *c >= '0' && *c <= '9') {
        int64_t v = 0;
        while (X->cur < X->end && *X->cur >= '0' && *X->cur <= '9') {
            if (!lm_mul_ok(v, 10, &v) || !lm_add_ok(v, *X->cur - '0', &v)) {
                xerror(X, c, "integer does not fit in 64 bits");
                X->P->depth--;
                return fail;
            }
            X->cur++;
        }
        if (X->cur < X->end && (is_ident(X->cur, 1))) {
            xerror(X, X->cur, "expected an operator after the number, found %s", found(X));
            X->P->depth--;
            return fail;
        }
        r = (xres){df_const(X->P->p, v), 0};
    } else if (c < X->end && is_ident(c, 1)) {
        while (X->cur < X->end && is_ident(c, (int)(X->cur - c) + 1))
            X->cur++;
        int len = (int)(X->cur - c);
        bool call = X->cur < X->end && *X->cur == '(';
        if (call && (eq("min", c, len) || eq("max", c, len))) {
            X->cur++;
            xres a = x_sum(X);
            if (!X->failed && (X->cur >= X->end || *X->cur != ',')) {
                xerror(X, X->cur, "expected ',' between the two operands of %.*s(), found %s", len, c,
                       found(X));
            } else if (!X->failed) {
                X->cur++;
                xres b = x_sum(X);
                if (!X->failed && (X->cur >= X->end || *X->cur != ')'))
                    xerror(X, X->cur, "expected ')' after the operands of %.*s(), found %s", len, c,
                           found(X));
                else if (!X->failed) {
                    X->cur++;
                    r = mk(X, eq("min", c, len) ? DF_X_MIN : DF_X_MAX, a, b, c);
                }
            }
        } else if (call) {
            xerror(X, c, "unknown function '%.*s' (only min() and max() exist)", len, c);
        } else {
            int slot = lookup_var(X, c, len);
            if (slot >= 0)
                r = (xres){df_slot(X->P->p, slot), 0};
        }
    } else {
        xerror(X, c, "expected a number, a name or '(', found %s", found(X));
    }
    X->P->depth--;
    return X->failed ? fail : r;
}

static xres x_product(xparse *X)
{
    xres a = x_unary(X);
    while (!X->failed && X->cur < X->end && strchr("*/%", *X->cur)) {
        const char *op = X->cur++;
        xres b = x_unary(X);
        a = mk(X, *op == '*' ? DF_X_MUL : *op == '/' ? DF_X_DIV : DF_X_MOD, a, b, op);
    }
    return a;
}

static xres x_sum(xparse *X)
{
    xres a = x_product(X);
    while (!X->failed && X->cur < X->end && (*X->cur == '+' || *X->cur == '-')) {
        const char *op = X->cur++;
        xres b = x_product(X);
        a = mk(X, *op == '+' ? DF_X_ADD : DF_X_SUB, a, b, op);
    }
    return a;
}

/* Parse a whole value as an expression in the current scope; NULL after
 * reporting. */
static const df_expr *parse_expr(parser *P, const char *s, int len, lm_loc at)
{
    xparse X = {P, s, s, s + len, at, false};
    P->depth = 0;
    if (len == 0) {
        lm_error(P->d, at, "missing value");
        return NULL;
    }
    xres r = x_sum(&X);
    if (!X.failed && X.cur < X.end)
        xerror(&X, X.cur, "unexpected %s", found(&X));
    return X.failed ? NULL : r.e;
}

/* ---- key=value words ---------------------------------------------------------------- */

typedef struct kv {
    const char *key, *val;
    int klen, vlen;
    lm_loc kloc, vloc;
} kv;

typedef struct kvs {
    kv v[MAX_WORDS];
    int n;
} kvs;

/* Split words[from..] into key=value pairs, reporting unknown keys (with
 * the closest allowed key), duplicates and words without '='. */
static bool split_kvs(parser *P, const item *it, int from, const char *const *keys, int nkeys,
                      const char *what, kvs *out)
{
    bool ok = true;
    out->n = 0;
    for (int i = from; i < it->n; i++) {
        const tok *t = &it->w[i];
        const char *eqs = memchr(t->s, '=', (size_t)t->len);
        lm_loc at = loc_of(P, t);
        if (!eqs || eqs == t->s) {
            lm_error(P->d, at, "expected key=value, found '%.*s'", t->len, t->s);
            ok = false;
            continue;
        }
        kv k = {t->s, eqs + 1, (int)(eqs - t->s), (int)(t->s + t->len - eqs - 1), at, at};
        k.vloc.col += k.klen + 1;
        int found = -1;
        for (int j = 0; j < nkeys; j++)
            if (eq(keys[j], k.key, k.klen))
                found = j;
        if (found < 0) {
            lm_near sg;
            lm_near_init(&sg, k.key, k.klen, LM_NEAR_NAME);
            for (int j = 0; j < nkeys; j++)
                lm_near_offer(&sg, keys[j]);
            lm_error(P->d, at, "unknown key '%.*s' for '%s'%s", k.klen, k.key, what, suggest_text(P, &sg));
            ok = false;
            continue;
        }
        bool dup = false;
        for (int j = 0; j < out->n; j++)
            if (out->v[j].klen == k.klen && !memcmp(out->v[j].key, k.key, (size_t)k.klen)) {
                lm_error(P->d, at, "duplicate key '%.*s'", k.klen, k.key);
                dup = true;
                ok = false;
            }
        if (dup)
            continue;
        if (k.vlen == 0) {
            lm_error(P->d, at, "missing value for '%.*s'", k.klen, k.key);
            ok = false;
            continue;
        }
        out->v[out->n++] = k;
    }
    return ok;
}

static const kv *get_kv(const kvs *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (eq(key, k->v[i].key, k->v[i].klen))
            return &k->v[i];
    return NULL;
}

/* A required key; reports at the item's first word when absent. */
static const kv *need_kv(parser *P, const item *it, const kvs *k, const char *key, const char *what)
{
    const kv *v = get_kv(k, key);
    if (!v)
        lm_error(P->d, loc_of(P, &it->w[0]), "missing required key '%s' for '%s'", key, what);
    return v;
}

static bool parse_int_word(parser *P, const char *s, int len, lm_loc at, int64_t lo, int64_t hi,
                           const char *what, int64_t *out)
{
    bool neg = len > 0 && s[0] == '-';
    int i = neg ? 1 : 0;
    int64_t v = 0;
    if (i == len)
        goto bad;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            goto bad;
        if (!lm_mul_ok(v, 10, &v) || !lm_add_ok(v, s[i] - '0', &v))
            goto range;
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        goto range;
    *out = v;
    return true;
bad:
    lm_error(P->d, at, "bad %s '%.*s': expected an integer", what, len, s);
    return false;
range:
    lm_error(P->d, at, "%s '%.*s' is out of range (%lld..%lld)", what, len, s, (long long)lo, (long long)hi);
    return false;
}

static bool parse_float_word(parser *P, const kv *k, double *out)
{
    char buf[64];
    if (k->vlen >= (int)sizeof buf)
        goto bad;
    memcpy(buf, k->val, (size_t)k->vlen);
    buf[k->vlen] = 0;
    /* Infinities are spelt out: masks and running maxima start at -inf. */
    if (!strcmp(buf, "inf") || !strcmp(buf, "+inf") || !strcmp(buf, "-inf")) {
        *out = buf[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    char *e;
    errno = 0;
    double v = strtod(buf, &e);
    /* strtod also takes hex floats and "inf"; the text form is decimal only */
    if (*e || errno || !isfinite(v) || strpbrk(buf, "xXnNiI"))
        goto bad;
    *out = v;
    return true;
bad:
    lm_error(P->d, k->vloc, "bad number '%.*s' for '%.*s'", k->vlen, k->val, k->klen, k->key);
    return false;
}

static bool parse_flag(parser *P, const kv *k, bool *out)
{
    if (k->vlen == 1 && (k->val[0] == '0' || k->val[0] == '1')) {
        *out = k->val[0] == '1';
        return true;
    }
    lm_error(P->d, k->vloc, "expected 0 or 1 for '%.*s', found '%.*s'", k->klen, k->key, k->vlen, k->val);
    return false;
}

/* An enumerated name (format, role, fidelity, sub-op, broadcast). */
static bool parse_enum(parser *P, const kv *k, const char *what, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (eq(names[i], k->val, k->vlen)) {
            *out = i;
            return true;
        }
    lm_buf b = {0};
    for (int i = 0; i < n; i++)
        lm_buf_printf(&b, "%s%s", i ? (i == n - 1 ? " or " : ", ") : "", names[i]);
    lm_near sg;
    lm_near_init(&sg, k->val, k->vlen, LM_NEAR_NAME);
    for (int i = 0; i < n; i++)
        lm_near_offer(&sg, names[i]);
    lm_error(P->d, k->vloc, "unknown %s '%.*s'%s; expected %s", what, k->vlen, k->val,
             suggest_text(P, &sg), lm_buf_str(&b));
    lm_buf_free(&b);
    return false;
}

/* Name tables for parse_enum, built from df.c's names so there is one list. */
static const char **names_of(parser *P, const char *(*fn)(int), int n)
{
    const char **v = LM_NEWN(&P->p->arena, const char *, n);
    for (int i = 0; i < n; i++)
        v[i] = fn(i);
    return v;
}
static const char *fmt_name(int i) { return df_format_name((arch_format)i); }
static const char *fid_name(int i) { return df_fidelity_name((arch_fidelity)i); }
static const char *role_name(int i) { return df_role_name((df_role)i); }
static const char *bcast_name(int i) { return df_bcast_name((df_bcast)i); }

static bool parse_format(parser *P, const kv *k, arch_format *out)
{
    int v;
    if (!parse_enum(P, k, "format", names_of(P, fmt_name, ARCH_NFORMATS), ARCH_NFORMATS, &v))
        return false;
    *out = (arch_format)v;
    return true;
}

static int tensor_lookup(parser *P, const kv *k)
{
    for (int i = 0; i < P->p->ntensors; i++)
        if (eq(P->p->tensors[i].name, k->val, k->vlen))
            return i;
    lm_near sg;
    lm_near_init(&sg, k->val, k->vlen, LM_NEAR_NAME);
    for (int i = 0; i < P->p->ntensors; i++)
        lm_near_offer(&sg, P->p->tensors[i].name);
    lm_error(P->d, k->vloc, "unknown tensor '%.*s'%s", k->vlen, k->val, suggest_text(P, &sg));
    return -1;
}

static int sem_lookup(parser *P, const kv *k)
{
    for (int i = 0; i < P->p->nsems; i++)
        if (eq(P->p->sems[i].name, k->val, k->vlen))
            return i;
    lm_near sg;
    lm_near_init(&sg, k->val, k->vlen, LM_NEAR_NAME);
    for (int i = 0; i < P->p->nsems; i++)
        lm_near_offer(&sg, P->p->sems[i].name);
    lm_error(P->d, k->vloc, "unknown semaphore '%.*s'%s", k->vlen, k->val, suggest_text(P, &sg));
    return -1;
}

static const df_expr *kv_expr(parser *P, const kv *k) { return parse_expr(P, k->val, k->vlen, k->vloc); }

/* ---- statements --------------------------------------------------------------------- */

static const char *const engine_what[] = {"", "a data-movement", "a compute"};

typedef struct sink {
    df_kernel *k;  /* append to a kernel ... */
    df_stmt *loop; /* ... or to a for body */
} sink;

static void put(parser *P, sink to, df_stmt *s)
{
    if (to.loop)
        df_add_body(P->p, to.loop, s);
    else
        df_add_stmt(P->p, to.k, s);
}

static void parse_stmts(parser *P, df_kernel_kind kk, sink to, const tok *open);
static void unclosed(parser *P, const tok *open, const char *what);

/* Read the fields of an op (or of a chain's step) through its table. */
static void parse_fields_of(parser *P, const item *it, int from, df_stmt *s, const df_opinfo *oi)
{
    const char *keys[32] = {0};
    int nkeys = 0;
    for (int i = 0; i < oi->nfields && nkeys < (int)LM_COUNT(keys); i++)
        if (oi->fields[i].kind != DF_F_VAR)
            keys[nkeys++] = oi->fields[i].key;
    kvs k;
    split_kvs(P, it, from, keys, nkeys, oi->name, &k);
    for (int i = 0; i < oi->nfields; i++) {
        const df_field *f = &oi->fields[i];
        if (f->kind == DF_F_VAR)
            continue;
        const kv *v = f->required ? need_kv(P, it, &k, f->key, oi->name) : get_kv(&k, f->key);
        if (!v)
            continue;
        char *at = (char *)s + f->offset;
        int64_t iv;
        switch (f->kind) {
        case DF_F_EXPR: {
            const df_expr *e = kv_expr(P, v);
            if (e)
                *(const df_expr **)at = e;
            break;
        }
        case DF_F_CB:
            if (parse_int_word(P, v->val, v->vlen, v->vloc, 0, MAX_CB_ID, "CB id", &iv))
                *(int *)at = (int)iv;
            break;
        case DF_F_TENSOR:
            *(int *)at = tensor_lookup(P, v);
            break;
        case DF_F_SEM:
            *(int *)at = sem_lookup(P, v);
            break;
        case DF_F_SUB: {
            const char *names[16];
            int n = 0;
            while (n < 16 && strcmp(df_sub_name(s->op, n), "?"))
                names[n] = df_sub_name(s->op, n), n++;
            int x;
            if (parse_enum(P, v, lm_arena_printf(&P->p->arena, "%s op", oi->name), names, n, &x))
                *(int *)at = x;
            break;
        }
        case DF_F_BCAST: {
            int x;
            if (parse_enum(P, v, "broadcast", names_of(P, bcast_name, DF_NBCASTS), DF_NBCASTS, &x))
                *(int *)at = x;
            break;
        }
        case DF_F_FLAG:
            parse_flag(P, v, (bool *)at);
            break;
        case DF_F_FLOAT:
            parse_float_word(P, v, (double *)at);
            break;
        case DF_F_VAR:
            break;
        }
    }
}

static void parse_fields(parser *P, const item *it, int from, df_stmt *s)
{
    parse_fields_of(P, it, from, s, &df_ops[s->op]);
}

/* `for VAR lo=E hi=E [step=E] {`: the variable gets a fresh slot of the
 * class; it may not hide any name an expression could mean. */
static void parse_for(parser *P, df_kernel_kind kk, sink to, const item *it)
{
    df_program *p = P->p;
    df_stmt *s = df_stmt_new(p, DF_FOR, loc_of(P, &it->w[0]));
    bool ok = true;      /* a usable variable: the body can be parsed */
    const char *name = "?";
    bool has_name = it->n >= 2 && !memchr(it->w[1].s, '=', (size_t)it->w[1].len);
    if (!has_name) {
        lm_error(P->d, loc_of(P, &it->w[0]), "expected a loop variable name after 'for'");
        ok = false;
    } else {
        const tok *v = &it->w[1];
        name = word_dup(P, v->s, v->len);
        if (!is_ident(v->s, v->len) || v->len > MAX_NAME) {
            lm_error(P->d, loc_of(P, v), "bad loop variable name '%s'", name);
            ok = false;
        } else if (reserved_name(v->s, v->len)) {
            lm_error(P->d, loc_of(P, v), "'%s' is reserved and cannot name a loop variable", name);
            ok = false;
        } else {
            const char *what = NULL;
            for (int i = 0; i < P->nloops; i++)
                if (!strcmp(P->loops[i].name, name))
                    what = "an enclosing loop's variable";
            for (int i = 0; i < P->cls->nargs; i++)
                if (!strcmp(P->cls->slot_names[DF_SLOT_PARAM0 + p->nparams + i], name))
                    what = "an argument of the class";
            for (int i = 0; i < p->nparams; i++)
                if (!strcmp(p->params[i].name, name))
                    what = "a param";
            /* still usable: the body is checked with the inner meaning */
            if (what)
                lm_error(P->d, loc_of(P, v), "loop variable '%s' shadows %s", name, what);
        }
    }
    parse_fields(P, it, has_name ? 2 : 1, s);
    if (P->nloops >= MAX_LOOP_DEPTH) {
        lm_error(P->d, loc_of(P, &it->w[0]), "loops nested more than %d deep", MAX_LOOP_DEPTH);
        ok = false;
    }
    if (ok) {
        s->var = df_add_loop_var(p, P->cls, name);
        if (s->var < 0) {
            lm_error(P->d, loc_of(P, &it->w[0]), "class '%s' has more than %d variables (cx, cy, params, "
                     "arguments and loop variables)", P->cls->name, DF_MAX_SLOTS);
            ok = false;
        }
    }
    put(P, to, s);
    if (it->end.kind != T_LBRACE) {
        lm_error(P->d, loc_of(P, &it->end), "expected '{' after the 'for' header");
        return;
    }
    if (!ok) {
        skip_block(P);
        return;
    }
    P->loops[P->nloops++] = (loopvar){name, s->var};
    parse_stmts(P, kk, (sink){NULL, s}, &it->end);
    P->nloops--;
}

/* The steps of a chain, up to the '}' matching `open`: eltwise, sfpu and
 * mask lines with the step tables' fields. */
static void parse_steps(parser *P, df_stmt *ch, const tok *open)
{
    for (;;) {
        item it;
        next_item(P, &it);
        if (it.n > 0) {
            const tok *w = &it.w[0];
            char *name = word_dup(P, w->s, w->len);
            df_op op = df_op_lookup(name);
            const df_opinfo *si = op == DF_NOPS ? NULL : df_step_info(op);
            if (!si) {
                lm_error(P->d, loc_of(P, w), "'%s' cannot be a step of a chain (the steps are eltwise, sfpu and mask)",
                         name);
            } else if (ch->nbody >= DF_MAX_STEPS) {
                lm_error(P->d, loc_of(P, w), "a chain of more than %d steps", DF_MAX_STEPS);
            } else {
                df_stmt *s = df_step_new(P->p, op, loc_of(P, w));
                parse_fields_of(P, &it, 1, s, si);
                df_add_body(P->p, ch, s);
            }
            if (it.end.kind == T_LBRACE) {
                lm_error(P->d, loc_of(P, &it.end), "unexpected '{' in a chain");
                skip_block(P);
            }
        } else if (it.end.kind == T_LBRACE) {
            lm_error(P->d, loc_of(P, &it.end), "unexpected '{'");
            skip_block(P);
        }
        if (it.end.kind == T_RBRACE)
            break;
        if (P->eof) {
            if (it.end.kind == T_EOF)
                unclosed(P, open, "this chain");
            return;
        }
    }
    if (ch->nbody == 0)
        lm_error(P->d, loc_of(P, open), "a chain needs at least one step");
}

/* `chain a=CB out=CB ... {` (or `pchain`) and its steps. */
static void parse_chain(parser *P, df_kernel_kind kk, sink to, const item *it, df_op op)
{
    const tok *w = &it->w[0];
    const char *name = df_ops[op].name;
    df_stmt *s = df_stmt_new(P->p, op, loc_of(P, w));
    if (kk != DF_COMPUTE)
        lm_error(P->d, loc_of(P, w), "'%s' is a compute op and cannot be used in a %s kernel", name,
                 df_kernel_name(kk));
    parse_fields(P, it, 1, s);
    put(P, to, s);
    if (it->end.kind != T_LBRACE) {
        lm_error(P->d, loc_of(P, &it->end), "expected '{' after the '%s' header", name);
        return;
    }
    parse_steps(P, s, &it->end);
}

static void parse_op(parser *P, df_kernel_kind kk, sink to, const item *it)
{
    const tok *w = &it->w[0];
    if (word_is(w, "for")) {
        parse_for(P, kk, to, it);
        return;
    }
    if (word_is(w, "chain") || word_is(w, "pchain")) {
        parse_chain(P, kk, to, it, word_is(w, "chain") ? DF_CHAIN : DF_PCHAIN);
        return;
    }
    char *name = word_dup(P, w->s, w->len);
    df_op op = df_op_lookup(name);
    if (op == DF_NOPS) {
        lm_near sg;
        lm_near_init(&sg, w->s, w->len, LM_NEAR_NAME);
        for (int i = 0; i < DF_NOPS; i++)
            lm_near_offer(&sg, df_ops[i].name);
        lm_error(P->d, loc_of(P, w), "unknown op '%s'%s", name, suggest_text(P, &sg));
    } else {
        df_stmt *s = df_stmt_new(P->p, op, loc_of(P, w));
        int eng = df_ops[op].engine;
        if ((eng == DF_ENGINE_DM && kk == DF_COMPUTE) || (eng == DF_ENGINE_COMPUTE && kk != DF_COMPUTE))
            lm_error(P->d, loc_of(P, w), "'%s' is %s op and cannot be used in a %s kernel", name,
                     engine_what[eng], df_kernel_name(kk));
        parse_fields(P, it, 1, s);
        put(P, to, s);
    }
    if (it->end.kind == T_LBRACE) {
        lm_error(P->d, loc_of(P, &it->end), "unexpected '{': only 'for', 'chain' and 'pchain' open a block in a kernel");
        skip_block(P);
    }
}

static void unclosed(parser *P, const tok *open, const char *what)
{
    lm_error(P->d, loc_of(P, open), "'{' of %s is never closed", what);
}

/* Statements up to the '}' matching `open`. */
static void parse_stmts(parser *P, df_kernel_kind kk, sink to, const tok *open)
{
    for (;;) {
        item it;
        next_item(P, &it);
        if (it.n > 0)
            parse_op(P, kk, to, &it);
        else if (it.end.kind == T_LBRACE) {
            lm_error(P->d, loc_of(P, &it.end), "unexpected '{'");
            skip_block(P);
        }
        if (it.end.kind == T_RBRACE)
            return;
        if (P->eof) {
            if (it.end.kind == T_EOF)
                unclosed(P, open, to.loop ? "this loop" : "this kernel");
            return;
        }
    }
}

/* ---- classes ------------------------------------------------------------------------ */

/* `arg NAME = E`, `param NAME = V`: the value is everything after '=',
 * which may be glued to the name or stand alone. Returns the value's word
 * span, or false after reporting. */
static bool name_eq_value(parser *P, const item *it, const char *what, const char **name, int *nlen,
                          const char **val, int *vlen, lm_loc *vloc)
{
    const tok *w = it->w;
    int i = 1;
    if (it->n < 2) {
        lm_error(P->d, loc_of(P, &w[0]), "expected '%s NAME = VALUE'", what);
        return false;
    }
    const char *e = memchr(w[1].s, '=', (size_t)w[1].len);
    *name = w[1].s;
    *nlen = e ? (int)(e - w[1].s) : w[1].len;
    const char *v = NULL;
    int vl = 0;
    lm_loc vl_loc = {0};
    if (e && e + 1 < w[1].s + w[1].len) { /* NAME=V */
        v = e + 1;
        vl = (int)(w[1].s + w[1].len - v);
        vl_loc = loc_of(P, &w[1]);
        vl_loc.col += (int)(v - w[1].s);
        i = 2;
    } else if (e) { /* NAME= V */
        if (it->n > 2) {
            v = w[2].s, vl = w[2].len, vl_loc = loc_of(P, &w[2]);
        }
        i = 3;
    } else if (it->n > 2 && w[2].s[0] == '=') { /* NAME = V or NAME =V */
        if (w[2].len > 1) {
            v = w[2].s + 1, vl = w[2].len - 1, vl_loc = loc_of(P, &w[2]), vl_loc.col++;
            i = 3;
        } else if (it->n > 3) {
            v = w[3].s, vl = w[3].len, vl_loc = loc_of(P, &w[3]);
            i = 4;
        } else
            i = 3;
    }
    if (!v) {
        lm_error(P->d, loc_of(P, &w[0]), "expected '%s NAME = VALUE'", what);
        return false;
    }
    if (i < it->n) {
        lm_error(P->d, loc_of(P, &w[i]), "unexpected '%.*s' after the value (values contain no spaces)",
                 w[i].len, w[i].s);
        return false;
    }
    *val = v;
    *vlen = vl;
    *vloc = vl_loc;
    return true;
}

static void parse_arg(parser *P, df_class *c, const item *it, bool after_kernels)
{
    const char *n, *v;
    int nl, vl;
    lm_loc vloc;
    if (!name_eq_value(P, it, "arg", &n, &nl, &v, &vl, &vloc))
        return;
    lm_loc nloc = loc_of(P, &it->w[1]);
    if (after_kernels) {
        lm_error(P->d, loc_of(P, &it->w[0]), "arguments must be declared before the kernels");
        return;
    }
    if (!is_ident(n, nl) || nl > MAX_NAME) {
        lm_error(P->d, nloc, "bad argument name '%.*s'", nl, n);
        return;
    }
    if (reserved_name(n, nl)) {
        lm_error(P->d, nloc, "'%.*s' is reserved and cannot name an argument", nl, n);
        return;
    }
    for (int i = DF_SLOT_PARAM0; i < c->nslots; i++)
        if (eq(c->slot_names[i], n, nl)) {
            lm_error(P->d, nloc, "argument '%.*s' %s", nl, n,
                     i < DF_SLOT_PARAM0 + P->p->nparams ? "shadows a param" : "is declared twice");
            return;
        }
    P->nargs_visible = c->nargs;
    const df_expr *e = parse_expr(P, v, vl, vloc);
    if (!e)
        return;
    if (df_add_arg(P->p, c, word_dup(P, n, nl), e) < 0)
        lm_error(P->d, nloc, "class '%s' has more than %d variables", c->name, DF_MAX_SLOTS);
}

static void parse_cb(parser *P, df_class *c, const item *it)
{
    static const char *const keys[] = {"format", "pages"};
    if (it->n < 2 || memchr(it->w[1].s, '=', (size_t)it->w[1].len)) {
        lm_error(P->d, loc_of(P, &it->w[0]), "expected 'cb ID format=F pages=N'");
        return;
    }
    int64_t id;
    bool ok = parse_int_word(P, it->w[1].s, it->w[1].len, loc_of(P, &it->w[1]), 0, MAX_CB_ID, "CB id", &id);
    kvs k;
    ok &= split_kvs(P, it, 2, keys, 2, "cb", &k);
    const kv *f = need_kv(P, it, &k, "format", "cb"), *pg = need_kv(P, it, &k, "pages", "cb");
    arch_format fmt = ARCH_BF16;
    ok &= f && parse_format(P, f, &fmt);
    P->cls = NULL; /* pages are program-level: params only */
    const df_expr *pages = pg ? kv_expr(P, pg) : NULL;
    P->cls = c;
    if (!ok || !pages)
        return;
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id) {
            lm_error(P->d, loc_of(P, &it->w[1]), "CB %lld is declared twice in class '%s'", (long long)id,
                     c->name);
            lm_note(P->d, c->cbs[i].loc, "first declared here");
            return;
        }
    df_add_cb(P->p, c, (int)id, fmt, pages, loc_of(P, &it->w[0]));
}

static void parse_class(parser *P, const item *it)
{
    static const char *const keys[] = {"x0", "y0", "x1", "y1", "fidelity", "fp32_acc", "scaler", "fold", "iota"};
    df_program *p = P->p;
    P->seen_class = true;
    const char *name = "?";
    bool ok = true;
    if (it->n < 2 || memchr(it->w[1].s, '=', (size_t)it->w[1].len)) {
        lm_error(P->d, loc_of(P, &it->w[0]), "expected 'class NAME x0=.. y0=.. x1=.. y1=.. {'");
        ok = false;
    } else {
        ok = new_program_name(P, &it->w[1], it->w[1].s, it->w[1].len, "class");
        name = word_dup(P, it->w[1].s, it->w[1].len);
    }
    kvs k;
    ok &= split_kvs(P, it, ok ? 2 : it->n, keys, (int)LM_COUNT(keys), "class", &k);
    P->cls = NULL;
    const df_expr *r[4] = {0};
    for (int i = 0; i < 4; i++) {
        const kv *v = need_kv(P, it, &k, keys[i], "class");
        r[i] = v ? kv_expr(P, v) : NULL;
        ok &= r[i] != NULL;
    }
    /* Even a broken header gets a class, so that its body is still checked. */
    df_class *c = df_add_class(p, ok ? name : "", r[0], r[1], r[2], r[3], loc_of(P, &it->w[0]));
    const kv *v;
    if ((v = get_kv(&k, "fidelity"))) {
        int f;
        if (parse_enum(P, v, "fidelity", names_of(P, fid_name, ARCH_NFIDELITIES), ARCH_NFIDELITIES, &f))
            c->fidelity = (arch_fidelity)f;
    }
    if ((v = get_kv(&k, "fp32_acc")))
        parse_flag(P, v, &c->fp32_acc);
    for (int s = 0; s < DF_NSUPPORT; s++) {
        int64_t id;
        if ((v = get_kv(&k, df_support_names[s])) &&
            parse_int_word(P, v->val, v->vlen, v->vloc, 0, MAX_CB_ID, "CB id", &id))
            c->support[s] = (int)id;
    }
    if (it->end.kind != T_LBRACE) {
        lm_error(P->d, loc_of(P, &it->end), "expected '{' after the class header");
        return;
    }
    int cidx = p->nclasses - 1;
    bool seen[DF_NKERNELS] = {0}, any_kernel = false;
    for (;;) {
        c = &p->classes[cidx]; /* df_add_* of other kinds never move classes, but stay safe */
        P->cls = c;
        P->nloops = 0;
        item in;
        next_item(P, &in);
        if (in.n > 0) {
            const tok *w = &in.w[0];
            int kk = -1;
            for (int i = 0; i < DF_NKERNELS; i++)
                if (word_is(w, df_kernel_name((df_kernel_kind)i)))
                    kk = i;
            if (word_is(w, "arg")) {
                parse_arg(P, c, &in, any_kernel);
            } else if (word_is(w, "cb")) {
                parse_cb(P, c, &in);
            } else if (kk >= 0) {
                any_kernel = true;
                if (in.n > 1)
                    lm_error(P->d, loc_of(P, &in.w[1]), "unexpected '%.*s' after '%s'", in.w[1].len,
                             in.w[1].s, df_kernel_name((df_kernel_kind)kk));
                if (seen[kk])
                    lm_error(P->d, loc_of(P, w), "class '%s' has two %s kernels", c->name,
                             df_kernel_name((df_kernel_kind)kk));
                seen[kk] = true;
                if (in.end.kind != T_LBRACE) {
                    lm_error(P->d, loc_of(P, &in.end), "expected '{' after '%s'", df_kernel_name((df_kernel_kind)kk));
                } else {
                    P->nargs_visible = c->nargs;
                    parse_stmts(P, (df_kernel_kind)kk, (sink){&c->kernels[kk], NULL}, &in.end);
                    if (P->eof)
                        break;
                    continue;
                }
            } else {
                lm_near sg;
                lm_near_init(&sg, w->s, w->len, LM_NEAR_NAME);
                static const char *const cands[] = {"arg", "cb", "reader", "compute", "writer"};
                for (size_t i = 0; i < LM_COUNT(cands); i++)
                    lm_near_offer(&sg, cands[i]);
                df_op op = df_op_lookup(word_dup(P, w->s, w->len));
                if (op != DF_NOPS || word_is(w, "for"))
                    lm_error(P->d, loc_of(P, w), "'%.*s' must be inside a reader, compute or writer kernel",
                             w->len, w->s);
                else
                    lm_error(P->d, loc_of(P, w), "unknown item '%.*s' in a class%s; expected arg, cb, "
                             "reader, compute or writer", w->len, w->s, suggest_text(P, &sg));
                if (in.end.kind == T_LBRACE)
                    skip_block(P);
            }
        } else if (in.end.kind == T_LBRACE) {
            lm_error(P->d, loc_of(P, &in.end), "unexpected '{'");
            skip_block(P);
        }
        if (in.end.kind == T_RBRACE)
            break;
        if (P->eof) {
            unclosed(P, &it->end, "this class");
            break;
        }
    }
    P->cls = NULL;
    P->nloops = 0;
}

/* ---- program-level items ------------------------------------------------------------- */

static void expect_no_block(parser *P, const item *it)
{
    if (it->end.kind == T_LBRACE) {
        lm_error(P->d, loc_of(P, &it->end), "unexpected '{' after '%.*s'", it->w[0].len, it->w[0].s);
        skip_block(P);
    }
}

static void parse_param(parser *P, const item *it)
{
    const char *n, *v;
    int nl, vl;
    lm_loc vloc;
    if (!name_eq_value(P, it, "param", &n, &nl, &v, &vl, &vloc))
        return;
    if (P->seen_class) {
        lm_error(P->d, loc_of(P, &it->w[0]), "params must be declared before the first class");
        return;
    }
    if (!new_program_name(P, &it->w[1], n, nl, "param"))
        return;
    int64_t val;
    if (!parse_int_word(P, v, vl, vloc, INT64_MIN + 1, INT64_MAX, "param value", &val))
        return;
    if (df_add_param(P->p, word_dup(P, n, nl), val, loc_of(P, &it->w[1])) < 0)
        lm_error(P->d, loc_of(P, &it->w[1]), "too many params: every class has room for %d variables (cx, cy, "
                 "params, arguments and loop variables)", DF_MAX_SLOTS);
}

static void parse_tensor(parser *P, const item *it)
{
    static const char *const keys[] = {"rows", "cols", "format", "role", "seed", "first_bank"};
    if (it->n < 2 || memchr(it->w[1].s, '=', (size_t)it->w[1].len)) {
        lm_error(P->d, loc_of(P, &it->w[0]), "expected 'tensor NAME rows=.. cols=.. format=.. role=..'");
        return;
    }
    if (P->p->ntensors >= MAX_TENSORS) {
        lm_error(P->d, loc_of(P, &it->w[0]), "more than %d tensors in one program", MAX_TENSORS);
        return;
    }
    bool ok = new_program_name(P, &it->w[1], it->w[1].s, it->w[1].len, "tensor");
    kvs k;
    ok &= split_kvs(P, it, 2, keys, (int)LM_COUNT(keys), "tensor", &k);
    const kv *r = need_kv(P, it, &k, "rows", "tensor"), *c = need_kv(P, it, &k, "cols", "tensor");
    const kv *f = need_kv(P, it, &k, "format", "tensor"), *ro = need_kv(P, it, &k, "role", "tensor");
    const df_expr *re = r ? kv_expr(P, r) : NULL, *ce = c ? kv_expr(P, c) : NULL;
    arch_format fmt = ARCH_BF16;
    int role = 0;
    ok &= re && ce && f && parse_format(P, f, &fmt);
    ok &= ro && parse_enum(P, ro, "role", names_of(P, role_name, 3), 3, &role);
    int64_t seed = 0, bank = 0;
    const kv *v;
    if ((v = get_kv(&k, "seed")))
        ok &= parse_int_word(P, v->val, v->vlen, v->vloc, 0, INT64_MAX, "seed", &seed);
    if ((v = get_kv(&k, "first_bank")))
        ok &= parse_int_word(P, v->val, v->vlen, v->vloc, 0, ARCH_MAX_DRAM_BANKS - 1, "first_bank", &bank);
    if (!ok)
        return;
    int t = df_add_tensor(P->p, word_dup(P, it->w[1].s, it->w[1].len), re, ce, fmt, (df_role)role,
                          loc_of(P, &it->w[1]));
    P->p->tensors[t].seed = (uint64_t)seed;
    P->p->tensors[t].first_bank = (int)bank;
}

static void parse_sem(parser *P, const item *it)
{
    static const char *const keys[] = {"init"};
    if (it->n < 2 || memchr(it->w[1].s, '=', (size_t)it->w[1].len)) {
        lm_error(P->d, loc_of(P, &it->w[0]), "expected 'sem NAME [init=..]'");
        return;
    }
    if (P->p->nsems >= MAX_SEMS) {
        lm_error(P->d, loc_of(P, &it->w[0]), "more than %d semaphores in one program", MAX_SEMS);
        return;
    }
    bool ok = new_program_name(P, &it->w[1], it->w[1].s, it->w[1].len, "semaphore");
    kvs k;
    ok &= split_kvs(P, it, 2, keys, 1, "sem", &k);
    const kv *v = get_kv(&k, "init");
    const df_expr *init = v ? kv_expr(P, v) : df_const(P->p, 0);
    if (ok && init)
        df_add_sem(P->p, word_dup(P, it->w[1].s, it->w[1].len), init, loc_of(P, &it->w[1]));
}

static void parse_check(parser *P, const item *it)
{
    static const char *const mm_keys[] = {"out", "a", "b"};
    static const char *const at_keys[] = {"out", "q", "k", "v", "batch", "heads", "kv_heads",
                                          "seq_q", "seq_k", "dim", "scale", "causal"};
    if (it->n < 2 || !(word_is(&it->w[1], "matmul") || word_is(&it->w[1], "attention"))) {
        lm_error(P->d, loc_of(P, it->n < 2 ? &it->w[0] : &it->w[1]),
                 "expected 'check matmul' or 'check attention'");
        return;
    }
    if (P->p->nchecks >= MAX_CHECKS) {
        lm_error(P->d, loc_of(P, &it->w[0]), "more than %d checks in one program", MAX_CHECKS);
        return;
    }
    bool mm = word_is(&it->w[1], "matmul");
    const char *what = mm ? "check matmul" : "check attention";
    kvs k;
    bool ok = mm ? split_kvs(P, it, 2, mm_keys, 3, what, &k)
                 : split_kvs(P, it, 2, at_keys, (int)LM_COUNT(at_keys), what, &k);
    int t[4] = {-1, -1, -1, -1};
    const char *const *tk = mm ? mm_keys : at_keys;
    for (int i = 0; i < (mm ? 3 : 4); i++) {
        const kv *v = need_kv(P, it, &k, tk[i], what);
        t[i] = v ? tensor_lookup(P, v) : -1;
        ok &= t[i] >= 0;
    }
    const df_expr *g[6] = {0};
    double scale = 1.0;
    bool causal = false;
    if (!mm) {
        for (int i = 0; i < 6; i++) {
            const kv *v = need_kv(P, it, &k, at_keys[4 + i], what);
            g[i] = v ? kv_expr(P, v) : NULL;
            ok &= g[i] != NULL;
        }
        const kv *v = need_kv(P, it, &k, "scale", what);
        ok &= v && parse_float_word(P, v, &scale);
        if ((v = get_kv(&k, "causal")))
            ok &= parse_flag(P, v, &causal);
    }
    if (!ok)
        return;
    df_check *c = df_add_check(P->p, mm ? DF_CHECK_MATMUL : DF_CHECK_ATTENTION, loc_of(P, &it->w[0]));
    c->out = t[0];
    c->a = t[1];
    c->b = t[2];
    c->c = t[3];
    c->batch_e = g[0];
    c->heads_e = g[1];
    c->kv_heads_e = g[2];
    c->seq_q_e = g[3];
    c->seq_k_e = g[4];
    c->dim_e = g[5];
    c->scale = scale;
    c->causal = causal;
}

df_program *df_parse(const char *file, const char *text, size_t len, lm_diag *d)
{
    parser P = {0};
    P.file = file;
    P.pos = text;
    P.end = text + len;
    P.line = 1;
    P.line_start = text;
    /* a UTF-8 byte order mark is not part of the text */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        P.pos = P.line_start = text + 3;
    P.d = d;
    P.p = df_new("program");
    int errors0 = d->nerrors;
    bool named = false, have_program = false;
    if (memchr(text, 0, len)) {
        lm_error(d, (lm_loc){file, 0, 0}, "contains a NUL byte; expected a text file");
        df_free(P.p);
        return NULL;
    }
    while (!P.eof) {
        item it;
        next_item(&P, &it);
        if (it.n == 0) {
            if (it.end.kind == T_RBRACE)
                lm_error(d, loc_of(&P, &it.end), "unmatched '}'");
            else if (it.end.kind == T_LBRACE) {
                lm_error(d, loc_of(&P, &it.end), "unexpected '{'");
                skip_block(&P);
            }
            continue;
        }
        const tok *w = &it.w[0];
        if (!named && !word_is(w, "program")) {
            lm_error(d, loc_of(&P, w), "expected 'program NAME' before anything else");
            named = true; /* once is enough */
        }
        if (word_is(w, "program")) {
            if (have_program)
                lm_error(d, loc_of(&P, w), "a second 'program' line");
            else if (it.n != 2 || !is_ident(it.w[1].s, it.w[1].len) || it.w[1].len > MAX_NAME)
                lm_error(d, loc_of(&P, w), "expected 'program NAME' (a name of letters, digits and '_')");
            else
                P.p->name = word_dup(&P, it.w[1].s, it.w[1].len);
            named = have_program = true;
            expect_no_block(&P, &it);
        } else if (word_is(w, "param")) {
            parse_param(&P, &it);
            expect_no_block(&P, &it);
        } else if (word_is(w, "tensor")) {
            parse_tensor(&P, &it);
            expect_no_block(&P, &it);
        } else if (word_is(w, "sem")) {
            parse_sem(&P, &it);
            expect_no_block(&P, &it);
        } else if (word_is(w, "check")) {
            parse_check(&P, &it);
            expect_no_block(&P, &it);
        } else if (word_is(w, "class")) {
            if (P.p->nclasses >= MAX_CLASSES) {
                lm_error(d, loc_of(&P, w), "more than %d classes in one program", MAX_CLASSES);
                if (it.end.kind == T_LBRACE)
                    skip_block(&P);
                continue;
            }
            parse_class(&P, &it);
            continue;
        } else {
            lm_near sg;
            lm_near_init(&sg, w->s, w->len, LM_NEAR_NAME);
            static const char *const cands[] = {"program", "param", "tensor", "sem", "check", "class"};
            for (size_t i = 0; i < LM_COUNT(cands); i++)
                lm_near_offer(&sg, cands[i]);
            df_op op = df_op_lookup(word_dup(&P, w->s, w->len));
            if (op != DF_NOPS || word_is(w, "for") || word_is(w, "arg") || word_is(w, "cb"))
                lm_error(d, loc_of(&P, w), "'%.*s' must be inside a class", w->len, w->s);
            else
                lm_error(d, loc_of(&P, w), "unknown item '%.*s'%s; expected program, param, tensor, sem, "
                         "check or class", w->len, w->s, suggest_text(&P, &sg));
            if (it.end.kind == T_LBRACE)
                skip_block(&P);
        }
        if (it.end.kind == T_RBRACE)
            lm_error(d, loc_of(&P, &it.end), "unmatched '}'");
    }
    if (!named && d->nerrors == errors0)
        lm_error(d, (lm_loc){file, 1, 1}, "empty program: expected 'program NAME'");
    if (d->nerrors > errors0) {
        df_free(P.p);
        return NULL;
    }
    return P.p;
}
