/* suite.c - the benchmark suite files of bench/ (*.suite), a small
 * line format documented in docs/evaluation.md:
 *
 *   suite gemm-quick                # a name for reports
 *   arch wormhole_n150 blackhole_p150
 *   oracle-bound 300                # optional budgets (the command line wins)
 *   tuner-trials 10,100
 *   operator gemm                   # starts an operator
 *   kernel ../kernels/matmul.py     # relative to the suite file
 *   flops 2*M*N*K                   # useful FLOPs (an expression of sizes and consts)
 *   bytes 2*M*K + 2*K*N + 4*M*N     # least DRAM traffic (optional)
 *   shape M=512 N=512 K=512 [const NAME=N ...]
 *   draw 40                         # shapes drawn by the generator (generate.c)
 *   limit 2*M*N*K <= 68719476736    # ... each within this
 *   form square M=log(64,2048) N=M K=M   # one way of drawing: log-uniform,
 *                                   # pick(V,...) or an expression; _NAME a helper
 *   derive NAME FROM [compute=F] [dram=F] [l1=F] [grid=WxH]   # a chip derived at run time
 *
 * Everything after '#' is a comment. Errors name file:line:col. Also how
 * `loomc bench` finds a suite by its name (bench_suites_load).
 */
#include "bench/bench.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct tok {
    const char *s; /* arena copy */
    int col;       /* 1-based */
} tok;

typedef struct pctx {
    const char *file;
    lm_arena *ar;
    lm_diag *d;
    int line;
    bool failed;
} pctx;

static void err(pctx *p, int col, const char *fmt, ...) LM_PRINTF(3, 4);
static void err(pctx *p, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(p->d, (lm_loc){p->file, p->line, col}, fmt, ap);
    va_end(ap);
    p->failed = true;
}

static bool is_name(const char *s)
{
    if (!(*s == '_' || isalpha((unsigned char)*s)))
        return false;
    for (s++; *s; s++)
        if (!(*s == '_' || isalnum((unsigned char)*s)))
            return false;
    return true;
}

/* NAME=N with N > 0 for sizes (any integer for consts). */
static bool parse_kv(pctx *p, const tok *t, fe_kv *out)
{
    const char *eq = strchr(t->s, '=');
    if (!eq || eq == t->s) {
        err(p, t->col, "expected NAME=VALUE, got '%s'", t->s);
        return false;
    }
    char *name = lm_arena_strndup(p->ar, t->s, (size_t)(eq - t->s));
    if (!is_name(name)) {
        err(p, t->col, "'%s' is not a name", name);
        return false;
    }
    int64_t v;
    if (!lm_parse_i64(eq + 1, &v)) {
        err(p, t->col + (int)(eq - t->s) + 1, "the value of %s must be an integer, got '%s'", name, eq + 1);
        return false;
    }
    *out = (fe_kv){name, v};
    return true;
}

/* The expression text after a keyword: checked with the symbolic parser so
 * a typo is reported here rather than when the shape runs. */
static const char *parse_expr(pctx *p, const char *text, int col)
{
    while (*text == ' ' || *text == '\t') {
        text++;
        col++;
    }
    size_t n = strlen(text);
    while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\r'))
        n--;
    if (!n) {
        err(p, col, "expected an expression");
        return NULL;
    }
    char *e = lm_arena_strndup(p->ar, text, n);
    sym_ctx *sc = sym_ctx_new();
    const char *pos = NULL;
    const sym_expr *x = sym_parse(sc, e, &pos);
    int ecol = col + (pos ? (int)(pos - e) : 0);
    sym_ctx_free(sc);
    if (!x) {
        err(p, ecol, "cannot read the expression '%s' (integers, names, + - *, parentheses, cdiv, floordiv, mod, "
                     "min, max)",
            e);
        return NULL;
    }
    return e;
}

static const char *dirname_of(lm_arena *ar, const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? lm_arena_strndup(ar, path, (size_t)(slash - path)) : ".";
}

bool bench_parse_trials(const char *text, int64_t *out, int *n, size_t *at, const char **why, lm_arena *ar)
{
    *n = 0;
    *at = 0;
    for (const char *s = text; *s;) {
        const char *c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        char *item = lm_arena_strndup(ar, s, len);
        int64_t v;
        *at = (size_t)(s - text);
        if (!lm_parse_i64(item, &v) || v <= 0)
            *why = lm_arena_printf(ar, "trial counts are positive integers, got '%s'", item);
        else if (*n == BENCH_MAX_MARKS)
            *why = lm_arena_printf(ar, "at most %d trial counts", BENCH_MAX_MARKS);
        else if (*n && v <= out[*n - 1])
            *why = lm_arena_printf(ar, "trial counts must increase (%lld after %lld)", (long long)v,
                                   (long long)out[*n - 1]);
        else
            *why = NULL;
        if (*why)
            return false;
        out[(*n)++] = v;
        if (!c)
            break;
        s = c + 1;
    }
    if (*n > 0)
        return true;
    *at = 0;
    *why = "expected trial counts such as 10,100,1000";
    return false;
}

static bool parse_trials(pctx *p, const tok *t, int64_t *out, int *n)
{
    size_t at;
    const char *why;
    if (bench_parse_trials(t->s, out, n, &at, &why, p->ar))
        return true;
    err(p, t->col + (int)at, "%s", why);
    return false;
}

/* The integer arguments of NAME(A,B,...) in text (after "NAME(" up to the
 * closing parenthesis) into out[0..*n-1]; false when they are not that. */
static bool int_args(const char *text, size_t skip, int64_t *out, int *n, int most, lm_arena *ar)
{
    size_t len = strlen(text);
    if (len <= skip || text[len - 1] != ')')
        return false;
    char *args = lm_arena_strndup(ar, text + skip, len - skip - 1);
    *n = 0;
    for (char *s = args; *n < most;) {
        char *c = strchr(s, ',');
        if (c)
            *c = 0;
        if (!lm_parse_i64(s, &out[(*n)++]))
            return false;
        if (!c)
            return true;
        s = c + 1;
    }
    return false;
}

/* One NAME=GEN of a `form` line: log(LO,HI[,ALIGN]), pick(V,...) or an
 * expression of the names the form draws before it. */
static bool parse_gen(pctx *p, const tok *t, const bench_gen_item *before, int nbefore, bool is_const,
                      bench_gen_item *out)
{
    const char *eq = strchr(t->s, '=');
    if (!eq || eq == t->s || !eq[1]) {
        err(p, t->col, "expected NAME=log(LO,HI), NAME=pick(V,...) or NAME=EXPR, got '%s'", t->s);
        return false;
    }
    char *name = lm_arena_strndup(p->ar, t->s, (size_t)(eq - t->s));
    const char *g = eq + 1;
    int gcol = t->col + (int)(eq - t->s) + 1;
    if (!is_name(name)) {
        err(p, t->col, "'%s' is not a name", name);
        return false;
    }
    for (int i = 0; i < nbefore; i++)
        if (!strcmp(before[i].name, name)) {
            err(p, t->col, "'%s' is drawn twice", name);
            return false;
        }
    *out = (bench_gen_item){.name = name, .is_const = is_const, .loc = {p->file, p->line, t->col}};
    int64_t v[64];
    int n = 0;
    if (!strncmp(g, "log(", 4)) {
        if (!int_args(g, 4, v, &n, 3, p->ar) || n < 2 || v[0] < 1 || v[1] < v[0] || (n == 3 && v[2] < 1)) {
            err(p, gcol, "expected log(LO,HI) or log(LO,HI,ALIGN) with 1 <= LO <= HI and ALIGN >= 1, got '%s'", g);
            return false;
        }
        out->kind = BENCH_GEN_LOG;
        out->lo = v[0];
        out->hi = v[1];
        out->align = n == 3 ? v[2] : 1;
        return true;
    }
    if (!strncmp(g, "pick(", 5)) {
        if (!int_args(g, 5, v, &n, 64, p->ar) || n < 1) {
            err(p, gcol, "expected pick(V,...) with up to 64 integers, got '%s'", g);
            return false;
        }
        out->kind = BENCH_GEN_PICK;
        out->vals = LM_NEWN(p->ar, int64_t, n);
        memcpy(out->vals, v, sizeof *v * (size_t)n);
        out->nvals = n;
        return true;
    }
    const char *e = parse_expr(p, g, gcol);
    if (!e)
        return false;
    sym_ctx *sc = sym_ctx_new();
    const sym_expr *vars[16];
    int nv = sym_vars(sym_parse(sc, e, NULL), vars, 16);
    const char *missing = NULL;
    for (int i = 0; i < nv && !missing; i++) {
        bool known = false;
        for (int j = 0; j < nbefore && !known; j++)
            known = !strcmp(before[j].name, vars[i]->name);
        if (!known)
            missing = lm_arena_strdup(p->ar, vars[i]->name);
    }
    sym_ctx_free(sc);
    if (missing) {
        err(p, gcol, "'%s' names %s, which the form does not draw before it", g, missing);
        return false;
    }
    out->kind = BENCH_GEN_EXPR;
    out->expr = e;
    return true;
}

/* `form NAME ITEM... [const ITEM...]`. */
static bool parse_form(pctx *p, const tok *t, size_t nt, bench_gen_form *out)
{
    if (nt < 3 || strchr(t[1].s, '=')) {
        err(p, t[0].col, "expected 'form NAME NAME=GEN... [const NAME=GEN...]'");
        return false;
    }
    LM_VEC(bench_gen_item) items = {0};
    bool in_const = false, ok = true;
    for (size_t i = 2; i < nt && ok; i++) {
        if (!strcmp(t[i].s, "const")) {
            if (in_const) {
                err(p, t[i].col, "'const' given twice");
                ok = false;
            }
            in_const = true;
            continue;
        }
        bench_gen_item it;
        ok = parse_gen(p, &t[i], items.items, (int)items.len, in_const, &it);
        if (ok)
            LM_PUSH(&items, it);
    }
    if (ok) {
        *out = (bench_gen_form){.name = t[1].s, .nitems = (int)items.len, .loc = {p->file, p->line, t[0].col}};
        out->items = LM_NEWN(p->ar, bench_gen_item, items.len ? items.len : 1);
        if (items.len)
            memcpy(out->items, items.items, sizeof *out->items * items.len);
    }
    LM_VEC_FREE(&items);
    return ok;
}

/* `limit EXPR <= MAX` of an operator. */
static void parse_limit(pctx *p, bench_suite_op *op, const char *rest, int rcol)
{
    const char *le = strstr(rest, "<=");
    int64_t v;
    const char *num = le ? le + 2 : "";
    while (*num == ' ' || *num == '\t')
        num++;
    size_t n = strlen(num);
    while (n && (num[n - 1] == ' ' || num[n - 1] == '\t' || num[n - 1] == '\r'))
        n--;
    if (!le || !lm_parse_i64(lm_arena_strndup(p->ar, num, n), &v)) {
        err(p, rcol, "expected 'limit EXPR <= N'");
        return;
    }
    op->limit = parse_expr(p, lm_arena_strndup(p->ar, rest, (size_t)(le - rest)), rcol);
    op->limit_max = v;
}

/* `derive NAME FROM [compute=F] [dram=F] [l1=F] [grid=WxH]`. */
static bool parse_derive(pctx *p, const tok *t, size_t nt, bench_derive *out)
{
    if (nt < 3) {
        err(p, t[0].col, "expected 'derive NAME FROM [compute=F] [dram=F] [l1=F] [grid=WxH]'");
        return false;
    }
    *out = (bench_derive){.name = t[1].s, .from = t[2].s, .compute = 1, .dram = 1, .l1 = 1,
                           .loc = {p->file, p->line, t[0].col}};
    for (size_t i = 3; i < nt; i++) {
        const char *s = t[i].s, *eq = strchr(s, '=');
        char *end = NULL;
        if (eq && (!strncmp(s, "compute=", 8) || !strncmp(s, "dram=", 5) || !strncmp(s, "l1=", 3))) {
            double f = strtod(eq + 1, &end);
            if (*end || !(f >= 1.0 / 64 && f <= 64)) {
                err(p, t[i].col, "a factor is a number in [1/64, 64], got '%s'", eq + 1);
                return false;
            }
            *(s[0] == 'c' ? &out->compute : s[0] == 'd' ? &out->dram : &out->l1) = f;
        } else if (eq && !strncmp(s, "grid=", 5)) {
            long w = strtol(eq + 1, &end, 10), h = *end == 'x' ? strtol(end + 1, &end, 10) : 0;
            if (*end || w < 1 || h < 1 || w > ARCH_MAX_GRID || h > ARCH_MAX_GRID) {
                err(p, t[i].col, "expected grid=WxH with W and H in 1..%d, got '%s'", ARCH_MAX_GRID, eq + 1);
                return false;
            }
            out->grid_w = (int)w;
            out->grid_h = (int)h;
        } else {
            err(p, t[i].col, "expected compute=F, dram=F, l1=F or grid=WxH, got '%s'", s);
            return false;
        }
    }
    return true;
}

bool bench_suite_parse(bench_suite *out, const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d)
{
    memset(out, 0, sizeof *out);
    out->file = file;
    pctx p = {file, ar, d, 0, false};
    const char *dir = dirname_of(ar, file);
    LM_VEC(bench_suite_op) ops = {0};
    LM_VEC(bench_suite_shape) shapes = {0};
    LM_VEC(bench_gen_form) forms = {0};
    LM_VEC(bench_derive) derives = {0};
    LM_VEC(const char *) archs = {0};
    bench_suite_op *op = NULL;
    const char *pos = text, *end = text + len;
    int op_line = 0;
    /* a UTF-8 byte order mark is not part of the text, as for every reader */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        pos += 3;

#define FINISH_OP()                                                                                                \
    do {                                                                                                           \
        if (op) {                                                                                                  \
            int save = p.line;                                                                                     \
            p.line = op_line;                                                                                      \
            if (!op->kernel)                                                                                       \
                err(&p, op->loc.col, "operator '%s' has no 'kernel' line", op->name);                              \
            else if (!op->flops)                                                                                   \
                err(&p, op->loc.col, "operator '%s' has no 'flops' line", op->name);                               \
            else if (op->draw && !forms.len)                                                                       \
                err(&p, op->loc.col, "operator '%s' draws shapes but has no 'form' line", op->name);               \
            else if (forms.len && !op->draw)                                                                       \
                err(&p, op->loc.col, "operator '%s' has 'form' lines but no 'draw N'", op->name);                  \
            else if (!shapes.len && !forms.len)                                                                    \
                err(&p, op->loc.col, "operator '%s' has no 'shape' or 'form' line", op->name);                     \
            p.line = save;                                                                                         \
            op->nforms = (int)forms.len;                                                                           \
            op->forms = LM_NEWN(ar, bench_gen_form, forms.len ? forms.len : 1);                                    \
            if (forms.len)                                                                                         \
                memcpy(op->forms, forms.items, sizeof *op->forms * forms.len);                                     \
            forms.len = 0;                                                                                         \
            op->nshapes = (int)shapes.len;                                                                         \
            op->shapes = LM_NEWN(ar, bench_suite_shape, shapes.len ? shapes.len : 1);                                 \
            if (shapes.len)                                                                                        \
                memcpy(op->shapes, shapes.items, sizeof *op->shapes * shapes.len);                                 \
            shapes.len = 0;                                                                                        \
        }                                                                                                          \
    } while (0)

    while (pos < end && !p.failed) {
        p.line++;
        /* LF, CRLF and a lone CR each end a line, as in every reader */
        const char *nl = pos;
        while (nl < end && *nl != '\n' && *nl != '\r')
            nl++;
        char *line = lm_arena_strndup(ar, pos, (size_t)(nl - pos));
        pos = nl < end && *nl == '\r' && nl + 1 < end && nl[1] == '\n' ? nl + 2 : nl < end ? nl + 1 : end;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        /* tokens */
        LM_VEC(tok) t = {0};
        for (char *c = line; *c;) {
            if (*c == ' ' || *c == '\t' || *c == '\r') {
                c++;
                continue;
            }
            char *st = c;
            while (*c && *c != ' ' && *c != '\t' && *c != '\r')
                c++;
            LM_PUSH(&t, ((tok){lm_arena_strndup(ar, st, (size_t)(c - st)), (int)(st - line) + 1}));
        }
        if (!t.len) {
            LM_VEC_FREE(&t);
            continue;
        }
        const char *kw = t.items[0].s;
        int kcol = t.items[0].col;
        const char *rest = line + kcol - 1 + strlen(kw);
        int rcol = kcol + (int)strlen(kw);
        if (!strcmp(kw, "suite")) {
            if (t.len != 2)
                err(&p, kcol, "expected 'suite NAME'");
            else if (out->name)
                err(&p, kcol, "the suite is already named '%s'", out->name);
            else
                out->name = t.items[1].s;
        } else if (!strcmp(kw, "arch")) {
            if (t.len < 2)
                err(&p, kcol, "expected 'arch NAME...'");
            for (size_t i = 1; i < t.len; i++)
                LM_PUSH(&archs, t.items[i].s);
        } else if (!strcmp(kw, "format")) {
            if (t.len != 2)
                err(&p, kcol, "expected 'format NAME'");
            else if (out->have_format)
                err(&p, kcol, "the suite's format is already set");
            else if (!arch_format_parse(t.items[1].s, &out->format) || out->format == ARCH_FP32)
                err(&p, t.items[1].col, "the format must be bf16, bfp8_b or bfp4_b, got '%s'", t.items[1].s);
            else
                out->have_format = true;
        } else if (!strcmp(kw, "oracle-bound")) {
            int64_t v;
            if (t.len != 2)
                err(&p, kcol, "expected 'oracle-bound N'");
            else if (!lm_parse_i64(t.items[1].s, &v) || v <= 0)
                err(&p, t.items[1].col, "the oracle bound is a positive integer, got '%s'", t.items[1].s);
            else
                out->oracle_bound = v;
        } else if (!strcmp(kw, "tuner-trials")) {
            if (t.len != 2)
                err(&p, kcol, "expected 'tuner-trials N[,N...]'");
            else
                parse_trials(&p, &t.items[1], out->trials, &out->ntrials);
        } else if (!strcmp(kw, "operator")) {
            if (t.len != 2) {
                err(&p, kcol, "expected 'operator NAME'");
            } else {
                op = ops.len ? &ops.items[ops.len - 1] : NULL;
                FINISH_OP();
                if (!p.failed) {
                    LM_PUSH(&ops, ((bench_suite_op){.name = t.items[1].s, .loc = {file, p.line, t.items[1].col}}));
                    op = &ops.items[ops.len - 1];
                    op_line = p.line;
                }
            }
        } else if (!strcmp(kw, "derive")) {
            bench_derive dv;
            if (parse_derive(&p, t.items, t.len, &dv))
                LM_PUSH(&derives, dv);
        } else if (!strcmp(kw, "draw") || !strcmp(kw, "limit") || !strcmp(kw, "form")) {
            op = ops.len ? &ops.items[ops.len - 1] : NULL;
            int64_t v;
            if (!op) {
                err(&p, kcol, "'%s' before any 'operator' line", kw);
            } else if (!strcmp(kw, "draw")) {
                if (t.len != 2 || !lm_parse_i64(t.items[1].s, &v) || v < 1)
                    err(&p, kcol, "expected 'draw N' with N >= 1");
                else if (op->draw)
                    err(&p, kcol, "operator '%s' already has a 'draw' line", op->name);
                else {
                    op->draw = v;
                    op->draw_loc = (lm_loc){file, p.line, kcol};
                }
            } else if (!strcmp(kw, "limit")) {
                if (op->limit)
                    err(&p, kcol, "operator '%s' already has a 'limit' line", op->name);
                else
                    parse_limit(&p, op, rest, rcol);
            } else {
                bench_gen_form f;
                if (parse_form(&p, t.items, t.len, &f))
                    LM_PUSH(&forms, f);
            }
        } else if (!strcmp(kw, "kernel") || !strcmp(kw, "flops") || !strcmp(kw, "bytes") || !strcmp(kw, "shape")) {
            /* ops may move as the vector grows: always use the last */
            op = ops.len ? &ops.items[ops.len - 1] : NULL;
            if (!op) {
                err(&p, kcol, "'%s' before any 'operator' line", kw);
            } else if (!strcmp(kw, "kernel")) {
                if (t.len != 2)
                    err(&p, kcol, "expected 'kernel PATH'");
                else if (op->kernel)
                    err(&p, kcol, "operator '%s' already has a kernel", op->name);
                else
                    op->kernel = t.items[1].s[0] == '/' ? t.items[1].s
                                                        : lm_arena_printf(ar, "%s/%s", dir, t.items[1].s);
            } else if (!strcmp(kw, "flops") || !strcmp(kw, "bytes")) {
                const char **dst = kw[0] == 'f' ? &op->flops : &op->bytes;
                if (*dst) {
                    err(&p, kcol, "operator '%s' already has a '%s' line", op->name, kw);
                } else {
                    *dst = parse_expr(&p, rest, rcol);
                    lm_loc *l = kw[0] == 'f' ? &op->flops_loc : &op->bytes_loc;
                    *l = (lm_loc){file, p.line, rcol + 1};
                }
            } else {
                LM_VEC(fe_kv) sizes = {0};
                LM_VEC(fe_kv) consts = {0};
                bool in_const = false;
                lm_buf label = {0};
                for (size_t i = 1; i < t.len && !p.failed; i++) {
                    if (!strcmp(t.items[i].s, "const")) {
                        if (in_const)
                            err(&p, t.items[i].col, "'const' given twice");
                        in_const = true;
                        continue;
                    }
                    fe_kv kv;
                    if (!parse_kv(&p, &t.items[i], &kv))
                        break;
                    for (size_t j = 0; j < sizes.len; j++)
                        if (!strcmp(sizes.items[j].name, kv.name))
                            err(&p, t.items[i].col, "'%s' is given twice", kv.name);
                    for (size_t j = 0; j < consts.len; j++)
                        if (!strcmp(consts.items[j].name, kv.name))
                            err(&p, t.items[i].col, "'%s' is given twice", kv.name);
                    if (!in_const && kv.value <= 0)
                        err(&p, t.items[i].col, "size %s must be at least 1, got %lld", kv.name, (long long)kv.value);
                    if (in_const)
                        LM_PUSH(&consts, kv);
                    else
                        LM_PUSH(&sizes, kv);
                    lm_buf_printf(&label, "%s%s=%lld", label.len ? " " : "", kv.name, (long long)kv.value);
                }
                if (!p.failed && !sizes.len)
                    err(&p, kcol, "expected 'shape NAME=N...' with at least one size");
                if (!p.failed) {
                    bench_suite_shape sh = {.label = lm_arena_strdup(ar, lm_buf_str(&label)), .loc = {file, p.line, kcol}};
                    sh.nsizes = (int)sizes.len;
                    sh.sizes = LM_NEWN(ar, fe_kv, sizes.len ? sizes.len : 1);
                    if (sizes.len)
                        memcpy(sh.sizes, sizes.items, sizeof *sh.sizes * sizes.len);
                    sh.nconsts = (int)consts.len;
                    sh.consts = LM_NEWN(ar, fe_kv, consts.len ? consts.len : 1);
                    if (consts.len)
                        memcpy(sh.consts, consts.items, sizeof *sh.consts * consts.len);
                    LM_PUSH(&shapes, sh);
                }
                LM_VEC_FREE(&sizes);
                LM_VEC_FREE(&consts);
                lm_buf_free(&label);
            }
        } else {
            err(&p, kcol,
                "unknown directive '%s' (expected suite, arch, derive, format, oracle-bound, tuner-trials, operator, "
                "kernel, flops, bytes, shape, draw, limit or form)",
                kw);
        }
        LM_VEC_FREE(&t);
    }
    if (!p.failed) {
        op = ops.len ? &ops.items[ops.len - 1] : NULL;
        FINISH_OP();
    }
#undef FINISH_OP
    if (!p.failed && !ops.len) {
        p.line = LM_MAX(p.line, 1);
        err(&p, 1, "the suite has no 'operator'");
    }
    if (!p.failed) {
        if (!out->name) {
            /* the file name without folder and extension */
            const char *b = strrchr(file, '/');
            b = b ? b + 1 : file;
            const char *dot = strrchr(b, '.');
            out->name = lm_arena_strndup(ar, b, dot ? (size_t)(dot - b) : strlen(b));
        }
        out->nops = (int)ops.len;
        out->ops = LM_NEWN(ar, bench_suite_op, ops.len);
        memcpy(out->ops, ops.items, sizeof *out->ops * ops.len);
        out->nderives = (int)derives.len;
        out->derives = LM_NEWN(ar, bench_derive, derives.len ? derives.len : 1);
        if (derives.len)
            memcpy(out->derives, derives.items, sizeof *out->derives * derives.len);
        out->narchs = (int)archs.len;
        out->archs = LM_NEWN(ar, const char *, archs.len ? archs.len : 1);
        if (archs.len)
            memcpy(out->archs, archs.items, sizeof *out->archs * archs.len);
    }
    LM_VEC_FREE(&ops);
    LM_VEC_FREE(&shapes);
    LM_VEC_FREE(&forms);
    LM_VEC_FREE(&derives);
    LM_VEC_FREE(&archs);
    return !p.failed;
}

bool bench_suite_eval(const char *expr, const bench_suite_shape *sh, double *out, const char **why, lm_arena *ar)
{
    sym_ctx *sc = sym_ctx_new();
    const sym_expr *e = sym_parse(sc, expr, NULL);
    bool ok = false;
    if (!e) {
        *why = lm_arena_printf(ar, "cannot read '%s'", expr);
    } else {
        sym_env env = {0};
        for (int i = 0; i < sh->nsizes; i++)
            sym_env_set(&env, sym_var(sc, sh->sizes[i].name), sh->sizes[i].value);
        for (int i = 0; i < sh->nconsts; i++)
            sym_env_set(&env, sym_var(sc, sh->consts[i].name), sh->consts[i].value);
        int64_t v;
        sym_status st = sym_eval(e, &env, &v);
        if (st == SYM_OK) {
            *out = (double)v;
            ok = true;
        } else {
            const sym_expr *vars[16];
            int nv = sym_vars(e, vars, 16);
            const char *missing = NULL;
            for (int i = 0; i < nv && !missing; i++) {
                int64_t lo, hi;
                if (vars[i]->kind == SYM_VAR && !sym_env_get(&env, vars[i], &lo, &hi))
                    missing = vars[i]->name;
            }
            *why = missing ? lm_arena_printf(ar, "'%s' names %s, which the shape does not give", expr, missing)
                           : lm_arena_printf(ar, "'%s' cannot be evaluated (%s)", expr,
                                             st == SYM_DIV_ZERO ? "division by zero" : "overflow");
        }
        sym_env_free(&env);
    }
    sym_ctx_free(sc);
    return ok;
}

/* ---- finding and reading suites -------------------------------------- */

/* The file of a suite named `name`, or NULL. */
static char *find_suite(const char *name, lm_arena *ar)
{
    const char *rel = lm_arena_printf(ar, "bench/%s.suite", name);
    if (lm_is_file(rel))
        return lm_xstrdup(rel);
    char exe[4096];
    return lm_self_exe(exe, sizeof exe) ? lm_find_above(exe, &rel, 1, false) : NULL;
}

static bool is_suite_path(const char *nm)
{
    size_t n = strlen(nm);
    return strchr(nm, '/') || (n > 6 && !strcmp(nm + n - 6, ".suite"));
}

bool bench_suites_load(const char *const *names, int n, bool quick, bench_suite *suites, char **texts, lm_arena *ar,
                       lm_diag *d)
{
    for (int i = 0; i < n; i++) {
        const char *nm = names[i];
        char *path = NULL;
        if (is_suite_path(nm)) {
            path = lm_xstrdup(nm);
        } else {
            const char *want = quick ? lm_arena_printf(ar, "%s-quick", nm) : nm;
            path = find_suite(want, ar);
            if (!path) {
                lm_error_plain(d, "no suite named '%s' (looked for bench/%s.suite)", want, want);
                return false;
            }
        }
        char why[512];
        size_t len = 0;
        texts[i] = lm_read_file(path, &len, why, sizeof why);
        const char *file = lm_arena_strdup(ar, path);
        free(path);
        if (!texts[i]) {
            lm_error_plain(d, "%s", why);
            return false;
        }
        lm_diag_add_source(d, file, texts[i], len);
        if (!bench_suite_parse(&suites[i], file, texts[i], len, ar, d))
            return false;
    }
    return true;
}
