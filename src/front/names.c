/* names.c - the module-level names of a kernel file (declared in front.h):
 * its imports, top-level functions and constants, the dotted paths names
 * stand for (`tl.dot` -> "triton.language.dot"), the decorators that make a
 * function a kernel or a launch spec, and the dtypes loomc supports. The
 * launch-spec evaluator (launch.c) and the checker (check.c) look names up
 * here.
 */
#include "front/front.h"

#include <string.h>

/* ======================================================================
 * names of a module
 * ==================================================================== */

/* Module-level `if` and `try` blocks hold imports too (a libdevice import
 * tried first and a fallback in the handler): their statements are read in
 * order, and the first binding of a name wins, since loomc cannot run the
 * test or the import. */
static bool nested_block(const fe_stmt *s)
{
    return s->kind == FE_S_IF || (s->kind == FE_S_OTHER && s->keyword && !strcmp(s->keyword, "try"));
}

static void count_stmts(fe_stmt *const *body, int n, int *na, int *nf, int *ng)
{
    for (int i = 0; i < n; i++) {
        const fe_stmt *s = body[i];
        if (s->kind == FE_S_IMPORT)
            *na += s->nimports;
        else if (s->kind == FE_S_DEF)
            (*nf)++;
        else if (s->kind == FE_S_ASSIGN || s->kind == FE_S_ANNASSIGN)
            (*ng)++;
        else if (nested_block(s)) {
            count_stmts(s->body, s->nbody, na, nf, ng);
            count_stmts(s->orelse, s->norelse, na, nf, ng);
        }
    }
}

static bool alias_bound(const fe_names *nm, const char *name)
{
    for (int i = 0; i < nm->naliases; i++)
        if (!strcmp(nm->aliases[i].name, name))
            return true;
    return false;
}

static void add_import(fe_names *nm, const fe_import *im, lm_arena *a, bool top)
{
    fe_alias al;
    if (im->name) { /* from M import name [as alias] */
        al.name = im->alias ? im->alias : im->name;
        al.target = lm_arena_printf(a, "%s.%s", im->module, im->name);
    } else if (im->alias) { /* import a.b as x */
        al.name = im->alias;
        al.target = im->module;
    } else { /* import a.b binds a */
        const char *dot = strchr(im->module, '.');
        al.name = dot ? lm_arena_strndup(a, im->module, (size_t)(dot - im->module)) : im->module;
        al.target = al.name;
    }
    if (top || !alias_bound(nm, al.name))
        nm->aliases[nm->naliases++] = al;
}

static void add_stmts(fe_names *nm, fe_stmt *const *body, int n, lm_arena *a, bool top)
{
    for (int i = 0; i < n; i++) {
        const fe_stmt *s = body[i];
        if (s->kind == FE_S_IMPORT) {
            for (int k = 0; k < s->nimports; k++)
                add_import(nm, &s->imports[k], a, top);
        } else if (s->kind == FE_S_DEF) {
            nm->funcs[nm->nfuncs++] = s->fn;
        } else if ((s->kind == FE_S_ASSIGN && s->ntargets == 1) || (s->kind == FE_S_ANNASSIGN && s->value)) {
            const fe_expr *t = s->targets[0];
            if (t->kind == FE_E_NAME && (top || !alias_bound(nm, t->name)))
                nm->globals[nm->nglobals++] = (fe_global){t->name, s->value, s->loc};
        } else if (nested_block(s)) {
            add_stmts(nm, s->body, s->nbody, a, false);
            add_stmts(nm, s->orelse, s->norelse, a, false);
        }
    }
}

void fe_names_init(fe_names *nm, const fe_module *m, lm_arena *a)
{
    memset(nm, 0, sizeof *nm);
    nm->mod = m;
    int na = 0, nf = 0, ng = 0;
    count_stmts(m->body, m->nbody, &na, &nf, &ng);
    nm->aliases = LM_NEWN(a, fe_alias, na ? na : 1);
    nm->funcs = LM_NEWN(a, const fe_func *, nf ? nf : 1);
    nm->globals = LM_NEWN(a, fe_global, ng ? ng : 1);
    add_stmts(nm, m->body, m->nbody, a, true);
}

static const char *alias_of(const fe_names *nm, const char *name)
{
    /* the last import of a name wins, as in Python */
    for (int i = nm->naliases - 1; i >= 0; i--)
        if (!strcmp(nm->aliases[i].name, name))
            return nm->aliases[i].target;
    return NULL;
}

/* Whether a dotted path starts in a module loomc knows itself. */
static bool known_root(const char *q)
{
    static const char *const roots[] = {"triton", "math", "loomc", "torch", "numpy"};
    for (size_t i = 0; i < LM_COUNT(roots); i++) {
        size_t n = strlen(roots[i]);
        if (!strncmp(q, roots[i], n) && (q[n] == 0 || q[n] == '.'))
            return true;
    }
    return false;
}

/* A path through a re-export: `mylib.tl`, where the project's module mylib
 * does `import triton.language as tl`, is triton.language (followed a few
 * modules deep). Anything else is returned as it is. */
static const char *reexported(const fe_names *nm, const char *q)
{
    for (int hop = 0; hop < 8 && nm->loader && !known_root(q); hop++) {
        const char *dot = strrchr(q, '.');
        if (!dot)
            return q;
        char mod[512];
        size_t n = (size_t)(dot - q);
        if (n >= sizeof mod)
            return q;
        memcpy(mod, q, n);
        mod[n] = 0;
        const fe_names *m = nm->loader->load(nm->loader->ctx, mod);
        const char *t = m ? alias_of(m, dot + 1) : NULL;
        if (!t)
            return q;
        q = t;
    }
    return q;
}

const char *fe_qualname(const fe_names *nm, const fe_expr *e, lm_arena *a)
{
    if (!e)
        return NULL;
    if (e->kind == FE_E_NAME) {
        const char *t = alias_of(nm, e->name);
        return t ? reexported(nm, t) : NULL;
    }
    if (e->kind == FE_E_ATTR) {
        const char *base = fe_qualname(nm, e->a, a);
        return base ? reexported(nm, lm_arena_printf(a, "%s.%s", base, e->name)) : NULL;
    }
    return NULL;
}

const fe_func *fe_find_module_func(const fe_names *nm, const char *qual, const fe_names **in, lm_arena *a)
{
    const char *dot = strrchr(qual, '.');
    if (!nm->loader || !dot || known_root(qual))
        return NULL;
    const char *mod = lm_arena_printf(a, "%.*s", (int)(dot - qual), qual);
    const fe_names *m = nm->loader->load(nm->loader->ctx, mod);
    const fe_func *f = m ? fe_find_func(m, dot + 1) : NULL;
    if (!f || !fe_is_jit(m, f, a))
        return NULL;
    *in = m;
    return f;
}

const char *fe_pretty_qualname(const char *qual, lm_arena *a)
{
    static const char tl[] = "triton.language.";
    if (!strncmp(qual, tl, sizeof tl - 1))
        return lm_arena_printf(a, "tl.%s", qual + sizeof tl - 1);
    return qual;
}

const fe_func *fe_find_func(const fe_names *nm, const char *name)
{
    for (int i = nm->nfuncs - 1; i >= 0; i--)
        if (!strcmp(nm->funcs[i]->name, name))
            return nm->funcs[i];
    return NULL;
}

const fe_global *fe_find_global(const fe_names *nm, const char *name)
{
    for (int i = nm->nglobals - 1; i >= 0; i--)
        if (!strcmp(nm->globals[i].name, name))
            return &nm->globals[i];
    return NULL;
}

static bool decorated(const fe_names *nm, const fe_func *f, const char *what, lm_arena *a)
{
    for (int i = 0; i < f->ndecorators; i++) {
        const fe_expr *d = f->decorators[i];
        if (d->kind == FE_E_CALL)
            d = d->a;
        const char *q = fe_qualname(nm, d, a);
        if (q && !strcmp(q, what))
            return true;
    }
    return false;
}

bool fe_is_jit(const fe_names *nm, const fe_func *f, lm_arena *a) { return decorated(nm, f, "triton.jit", a); }
bool fe_is_launch_spec(const fe_names *nm, const fe_func *f, lm_arena *a)
{
    return decorated(nm, f, "loomc.launch", a);
}

/* A literal of a config: numbers, strings, booleans, None; else "...". */
static void print_literal(lm_buf *b, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_INT: lm_buf_printf(b, "%lld", (long long)e->ival); return;
    case FE_E_FLOAT: lm_buf_printf(b, "%g", e->fval); return;
    case FE_E_STR: lm_buf_printf(b, "\"%s\"", e->str); return;
    case FE_E_BOOL: lm_buf_puts(b, e->ival ? "True" : "False"); return;
    case FE_E_NONE: lm_buf_puts(b, "None"); return;
    default: lm_buf_puts(b, "..."); return;
    }
}

static void print_config(lm_buf *b, const fe_names *nm, const fe_expr *cfg, int k, lm_arena *a)
{
    lm_buf_printf(b, "  autotune config %d:", k);
    const char *q = cfg->kind == FE_E_CALL ? fe_qualname(nm, cfg->a, a) : NULL;
    if (!q || strcmp(q, "triton.Config")) {
        lm_buf_puts(b, " (not a triton.Config)\n");
        return;
    }
    if (cfg->nitems > 0 && cfg->items[0]->kind == FE_E_DICT) {
        const fe_expr *d = cfg->items[0];
        for (int i = 0; i + 1 < d->nitems; i += 2) {
            lm_buf_putc(b, ' ');
            if (d->items[i]->kind == FE_E_STR)
                lm_buf_puts(b, d->items[i]->str);
            else
                print_literal(b, d->items[i]);
            lm_buf_putc(b, '=');
            print_literal(b, d->items[i + 1]);
        }
    }
    for (int i = 0; i < cfg->nkws; i++) {
        lm_buf_printf(b, " %s=", cfg->kws[i].name);
        print_literal(b, cfg->kws[i].value);
    }
    lm_buf_putc(b, '\n');
}

void fe_print_autotune(lm_buf *b, const fe_names *nm, const fe_func *f, lm_arena *a)
{
    for (int i = 0; i < f->ndecorators; i++) {
        const fe_expr *d = f->decorators[i];
        const char *q = d->kind == FE_E_CALL ? fe_qualname(nm, d->a, a) : NULL;
        if (!q || strcmp(q, "triton.autotune"))
            continue;
        const fe_expr *list = d->nitems > 0 ? d->items[0] : NULL;
        for (int k = 0; k < d->nkws; k++)
            if (!strcmp(d->kws[k].name, "configs"))
                list = d->kws[k].value;
        if (!list || (list->kind != FE_E_LIST && list->kind != FE_E_TUPLE))
            continue;
        lm_buf_printf(b, "  autotune: %d config%s a tuner would try (loomc chooses the values itself)\n",
                      list->nitems, list->nitems == 1 ? "" : "s");
        for (int k = 0; k < list->nitems; k++)
            print_config(b, nm, list->items[k], k + 1, a);
    }
}

bool fe_is_constexpr_param(const fe_names *nm, const fe_param *p, lm_arena *a)
{
    if (!p->annotation)
        return false;
    const char *q = fe_qualname(nm, p->annotation, a);
    if (q && (!strcmp(q, "triton.language.constexpr") || !strcmp(q, "triton.language.core.constexpr")))
        return true;
    /* a string annotation "tl.constexpr" */
    return p->annotation->kind == FE_E_STR &&
           (!strcmp(p->annotation->str, "tl.constexpr") || !strcmp(p->annotation->str, "constexpr"));
}

int fe_dtype(const char *qual, tir_elem *out)
{
    static const char tl[] = "triton.language.";
    if (!qual || strncmp(qual, tl, sizeof tl - 1) != 0)
        return 0;
    const char *n = qual + sizeof tl - 1;
    static const struct {
        const char *name;
        tir_elem e;
    } ok[] = {{"float32", TIR_F32}, {"float16", TIR_F16}, {"bfloat16", TIR_BF16},
              {"int32", TIR_I32},   {"int64", TIR_I64},   {"int1", TIR_I1}};
    for (size_t i = 0; i < LM_COUNT(ok); i++)
        if (!strcmp(n, ok[i].name)) {
            *out = ok[i].e;
            return 1;
        }
    static const char *const known[] = {"float64", "int8", "int16", "uint8", "uint16", "uint32", "uint64",
                                        "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
                                        "float8e4b15x4", "float8_e4m3fn", "float8_e5m2", "void"};
    for (size_t i = 0; i < LM_COUNT(known); i++)
        if (!strcmp(n, known[i]))
            return -1;
    return 0;
}
