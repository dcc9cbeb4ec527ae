/* modules.c - the project's other modules, for the front end: a kernel
 * that imports a @triton.jit helper (`from mylib.acts import leaky`) or a
 * re-exported `tl` from a module of its own project has that module read
 * from the kernel's folder or a folder given with --include, as Python
 * would find it there (a/b.py or a/b/__init__.py for `a.b`). Each module is
 * read, parsed and named once per compilation; its text stays registered
 * with the diagnostics, so messages inside it quote its lines. */
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>

/* Whether a dotted module name is one Python could import. */
static bool module_name_ok(const char *m)
{
    if (!*m || *m == '.')
        return false;
    for (const char *p = m; *p; p++)
        if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9')) || (p[0] == '.' && (p[1] == '.' || p[1] == 0)))
            return false;
    return true;
}

/* The text of module m in folder dir, and its path; NULL if it is not there. */
static char *find_in(drv_modules *ms, const char *dir, const char *m, const char **path, size_t *len)
{
    char rel[1024];
    size_t n = strlen(m);
    if (n >= sizeof rel)
        return NULL;
    for (size_t i = 0; i <= n; i++)
        rel[i] = m[i] == '.' ? '/' : m[i];
    static const char *const forms[] = {"%s/%s.py", "%s/%s/__init__.py"};
    for (size_t f = 0; f < LM_COUNT(forms); f++) {
        const char *p = lm_arena_printf(ms->arena, forms[f], dir, rel);
        char why[256];
        char *src = lm_read_file(p, len, why, sizeof why);
        if (src) {
            *path = p;
            return src;
        }
    }
    return NULL;
}

static const fe_names *load(void *ctx, const char *m)
{
    drv_modules *ms = ctx;
    for (int i = 0; i < ms->n; i++)
        if (!strcmp(ms->mods[i].name, m))
            return ms->mods[i].names;
    if (!module_name_ok(m) || ms->n == DRV_MAX_MODULES)
        return NULL;
    drv_module *e = &ms->mods[ms->n++];
    memset(e, 0, sizeof *e);
    e->name = lm_arena_strdup(ms->arena, m);
    const char *path = NULL;
    size_t len = 0;
    for (int i = 0; i < ms->ndirs && !e->src; i++)
        e->src = find_in(ms, ms->dirs[i], m, &path, &len);
    if (!e->src)
        return NULL;
    lm_diag_add_source(ms->d, path, e->src, len);
    fe_module *mod = fe_parse(path, e->src, len, ms->arena, ms->d);
    if (!mod)
        return NULL;
    fe_names *nm = LM_NEW(ms->arena, fe_names);
    fe_names_init(nm, mod, ms->arena);
    nm->loader = &ms->loader;
    e->names = nm;
    return nm;
}

void drv_modules_init(drv_modules *ms, const drv_opts *o, lm_arena *a, lm_diag *d)
{
    memset(ms, 0, sizeof *ms);
    ms->arena = a;
    ms->d = d;
    ms->loader = (fe_loader){load, ms};
    ms->dirs = LM_NEWN(a, const char *, (size_t)o->nincludes + 1);
    /* the kernel's own folder first, as Python puts the script's */
    if (!o->text) {
        const char *slash = strrchr(o->path, '/');
        ms->dirs[ms->ndirs++] = slash ? lm_arena_printf(a, "%.*s", (int)(slash - o->path), o->path) : ".";
    }
    for (int i = 0; i < o->nincludes; i++)
        ms->dirs[ms->ndirs++] = o->includes[i];
}

void drv_modules_free(drv_modules *ms)
{
    for (int i = 0; i < ms->n; i++)
        free(ms->mods[i].src);
    ms->n = 0;
}
