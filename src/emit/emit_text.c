/* emit_text.c - the emitter's text pieces: C++ names of a kernel's
 * variables, integer expressions as C++ (kernel and host side), tile formats
 * as tt-metal's DataFormat, kernel file names, and the file set itself. */
#include "emit/emit_int.h"

#include <stdlib.h>
#include <string.h>

/* Names a df variable may not keep in C++ (keywords, and names the kernel
 * API or the emitted sources declare at the same scope), each with the name
 * it is printed as. */
#define R(w) {w, w "_"}
static const char *const reserved[][2] = {
    R("auto"), R("bool"), R("break"), R("case"), R("char"), R("class"), R("const"), R("continue"),
    R("default"), R("delete"), R("do"), R("double"), R("else"), R("enum"), R("explicit"), R("extern"),
    R("false"), R("float"), R("for"), R("friend"), R("goto"), R("if"), R("inline"), R("int"), R("long"),
    R("namespace"), R("new"), R("operator"), R("private"), R("protected"), R("public"), R("register"),
    R("return"), R("short"), R("signed"), R("sizeof"), R("static"), R("struct"), R("switch"),
    R("template"), R("this"), R("throw"), R("true"), R("try"), R("typedef"), R("typename"), R("union"),
    R("unsigned"), R("using"), R("virtual"), R("void"), R("volatile"), R("while"), R("and"), R("or"),
    R("not"), R("xor"), R("main"), R("my_x"), R("my_y"), R("noc_index"), R("grid"), R("loomc"),
    R("NAMESPACE"), R("MAIN"), R("kernel_main"),
};
#undef R

const char *emit_name(const df_class *c, int slot)
{
    static const char *const fixed[] = {"cx", "cy"};
    const char *n = c && slot < c->nslots ? c->slot_names[slot] : slot < 2 ? fixed[slot] : "?";
    for (size_t i = 0; i < LM_COUNT(reserved); i++)
        if (!strcmp(n, reserved[i][0]))
            return reserved[i][1];
    return n;
}

/* Binding strength of C++'s operators among those printed. */
enum { P_SUM = 1, P_PROD = 2, P_ATOM = 3 };

static int prec(const df_expr *e)
{
    switch (e->kind) {
    case DF_X_ADD:
    case DF_X_SUB:
        return P_SUM;
    case DF_X_MUL:
        return P_PROD;
    case DF_X_CONST:
        return e->value < 0 ? P_SUM : P_ATOM;
    default:
        return P_ATOM;
    }
}

typedef struct side {
    const char *ns;   /* helper namespace */
    const char *lit;  /* suffix of a literal that does not fit in 32 bits */
    bool host;
} side;

static void expr(lm_buf *b, const df_class *c, const df_expr *e, const side *s);

static void operand(lm_buf *b, const df_class *c, const df_expr *e, int need, bool right, const side *s)
{
    int p = prec(e);
    bool paren = p < need || (right && p == need && need == P_SUM) || (right && need == P_PROD && p == P_PROD);
    if (paren)
        lm_buf_putc(b, '(');
    expr(b, c, e, s);
    if (paren)
        lm_buf_putc(b, ')');
}

static void call(lm_buf *b, const df_class *c, const char *fn, const df_expr *e, const side *s)
{
    lm_buf_printf(b, "%s::%s(", s->ns, fn);
    expr(b, c, e->a, s);
    lm_buf_puts(b, ", ");
    expr(b, c, e->b, s);
    lm_buf_putc(b, ')');
}

static void expr(lm_buf *b, const df_class *c, const df_expr *e, const side *s)
{
    switch (e->kind) {
    case DF_X_CONST:
        lm_buf_printf(b, "%lld", (long long)e->value);
        if (s->host && (e->value > INT32_MAX || e->value < INT32_MIN))
            lm_buf_puts(b, s->lit);
        return;
    case DF_X_VAR:
        lm_buf_puts(b, emit_name(c, e->slot));
        return;
    case DF_X_ADD:
    case DF_X_SUB:
        operand(b, c, e->a, P_SUM, false, s);
        lm_buf_puts(b, e->kind == DF_X_ADD ? " + " : " - ");
        operand(b, c, e->b, P_SUM, true, s);
        return;
    case DF_X_MUL:
        operand(b, c, e->a, P_PROD, false, s);
        lm_buf_puts(b, " * ");
        operand(b, c, e->b, P_PROD, true, s);
        return;
    case DF_X_DIV:
        call(b, c, "fdiv", e, s);
        return;
    case DF_X_MOD:
        call(b, c, "fmod", e, s);
        return;
    case DF_X_MIN:
        call(b, c, "min", e, s);
        return;
    case DF_X_MAX:
        call(b, c, "max", e, s);
        return;
    }
}

void emit_expr(lm_buf *b, const df_class *c, const df_expr *e)
{
    static const side k = {"loomc", "", false};
    expr(b, c, e, &k);
}

void emit_host_expr(lm_buf *b, const df_class *c, const df_expr *e)
{
    static const side h = {"loomc", "LL", true};
    expr(b, c, e, &h);
}

lm_buf *emit_add_file(emit_set *s, const char *name)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->files = lm_xrealloc(s->files, (size_t)s->cap * sizeof *s->files);
    }
    emit_file *f = &s->files[s->n++];
    f->name = lm_xstrdup(name);
    memset(&f->text, 0, sizeof f->text);
    return &f->text;
}

void emit_set_free(emit_set *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->files[i].name);
        lm_buf_free(&s->files[i].text);
    }
    free(s->files);
    memset(s, 0, sizeof *s);
}

const char *emit_format(arch_format f)
{
    switch (f) {
    case ARCH_BF16:
        return "tt::DataFormat::Float16_b";
    case ARCH_FP32:
        return "tt::DataFormat::Float32";
    case ARCH_BFP8_B:
        return "tt::DataFormat::Bfp8_b";
    case ARCH_BFP4_B:
        return "tt::DataFormat::Bfp4_b";
    default:
        return NULL;
    }
}

void emit_kernel_file(lm_buf *b, int launch, const df_class *c, df_kernel_kind k)
{
    lm_buf_printf(b, "l%d_%s_%s.cpp", launch, c->name, df_kernel_name(k));
}

/* ---- CB ids ----------------------------------------------------------------- */

static bool swaps(df_stmt *const *body, int n, int id)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_CB_SWAP && (s->cb == id || s->cb_b == id))
            return true;
        if (s->op == DF_FOR && swaps(s->body, s->nbody, id))
            return true;
    }
    return false;
}

bool emit_cb_swapped(const df_class *c, int id)
{
    const df_kernel *k = &c->kernels[DF_COMPUTE];
    return id >= 0 && swaps(k->body, k->nbody, id);
}

void emit_cb(lm_buf *b, const df_class *c, int id)
{
    if (emit_cb_swapped(c, id))
        lm_buf_printf(b, "loomc_cb%d", id);
    else
        lm_buf_printf(b, "%d", id);
}

static bool sends_elems(df_stmt *const *body, int n, int id)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_SEND_ELEMS && s->cb_out == id)
            return true;
        if (s->op == DF_FOR && sends_elems(s->body, s->nbody, id))
            return true;
    }
    return false;
}

bool emit_sends_elems_to(const df_class *c, int id)
{
    for (int k = 0; k < DF_NKERNELS; k++)
        if (sends_elems(c->kernels[k].body, c->kernels[k].nbody, id))
            return true;
    return false;
}

bool emit_class_has_cb(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return true;
    return emit_sends_elems_to(c, id);
}
