/* api_load.c - what a context compiles (include/loomc.h): the kernel, the
 * include folders, the launch spec's bindings, the hardware description
 * and the options. Each setter drops what was compiled before. */
#include "api/api_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The arguments of a setter: up to two strings and a number. */
typedef struct set_args {
    const char *a, *b;
    long long n;
} set_args;

static bool need(loomc_ctx *c, const void *p, const char *fname, const char *what)
{
    if (!p)
        lm_error_plain(&c->d, "%s: %s is NULL", fname, what);
    return p != NULL;
}

static int load_file(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    if (!need(c, x->a, "loomc_load_kernel_file", "the path"))
        return LOOMC_EUSER;
    api_drop_job(c);
    free(c->kernel_text);
    c->kernel_text = NULL;
    c->kernel_name = NULL;
    /* read now, so that a missing file is reported by this call */
    char why[512];
    size_t len;
    char *text = lm_read_file(x->a, &len, why, sizeof why);
    if (!text) {
        lm_error_plain(&c->d, "%s", why);
        return LOOMC_EUSER;
    }
    c->kernel_text = text;
    c->kernel_name = lm_arena_strdup(&c->ar, x->a);
    return LOOMC_OK;
}

int loomc_load_kernel_file(loomc_ctx *c, const char *path)
{
    set_args x = {path, NULL, 0};
    return api_call(c, "loomc_load_kernel_file", load_file, &x);
}

static int load_string(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    if (!need(c, x->a, "loomc_load_kernel_string", "the name") ||
        !need(c, x->b, "loomc_load_kernel_string", "the source"))
        return LOOMC_EUSER;
    api_drop_job(c);
    free(c->kernel_text);
    c->kernel_text = lm_xstrdup(x->b);
    c->kernel_name = lm_arena_strdup(&c->ar, x->a);
    return LOOMC_OK;
}

int loomc_load_kernel_string(loomc_ctx *c, const char *name, const char *source)
{
    set_args x = {name, source, 0};
    return api_call(c, "loomc_load_kernel_string", load_string, &x);
}

static int add_include(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    if (!need(c, x->a, "loomc_add_include_dir", "the folder"))
        return LOOMC_EUSER;
    struct stat st;
    if (stat(x->a, &st) != 0) {
        lm_error_plain(&c->d, "cannot use include folder '%s': %s", x->a, strerror(errno));
        return LOOMC_EUSER;
    }
    if (!S_ISDIR(st.st_mode)) {
        lm_error_plain(&c->d, "include folder '%s' is not a folder", x->a);
        return LOOMC_EUSER;
    }
    api_drop_job(c);
    LM_PUSH(&c->includes, lm_arena_strdup(&c->ar, x->a));
    return LOOMC_OK;
}

int loomc_add_include_dir(loomc_ctx *c, const char *dir)
{
    set_args x = {dir, NULL, 0};
    return api_call(c, "loomc_add_include_dir", add_include, &x);
}

static int select_kernel(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    api_drop_job(c);
    c->select = x->a ? lm_arena_strdup(&c->ar, x->a) : NULL;
    return LOOMC_OK;
}

int loomc_select_kernel(loomc_ctx *c, const char *name)
{
    set_args x = {name, NULL, 0};
    return api_call(c, "loomc_select_kernel", select_kernel, &x);
}

/* ---- bindings ------------------------------------------------------------ */

/* NAME as the command line takes it: an identifier. */
static bool is_ident(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static int bind(loomc_ctx *c, api_kvs *v, const set_args *x, const char *fname)
{
    if (!need(c, x->a, fname, "the name"))
        return LOOMC_EUSER;
    if (!is_ident(x->a)) {
        lm_error_plain(&c->d, "%s: '%s' is not a name", fname, x->a);
        return LOOMC_EUSER;
    }
    api_drop_job(c);
    for (size_t i = 0; i < v->len; i++)
        if (!strcmp(v->items[i].name, x->a)) {
            v->items[i].value = x->n;
            return LOOMC_OK;
        }
    fe_kv kv = {lm_arena_strdup(&c->ar, x->a), x->n};
    LM_PUSH(v, kv);
    return LOOMC_OK;
}

static int bind_shape(loomc_ctx *c, const void *args)
{
    return bind(c, &c->shapes, args, "loomc_bind_shape");
}

static int bind_const(loomc_ctx *c, const void *args)
{
    return bind(c, &c->consts, args, "loomc_bind_const");
}

int loomc_bind_shape(loomc_ctx *c, const char *name, long long value)
{
    set_args x = {name, NULL, value};
    return api_call(c, "loomc_bind_shape", bind_shape, &x);
}

int loomc_bind_const(loomc_ctx *c, const char *name, long long value)
{
    set_args x = {name, NULL, value};
    return api_call(c, "loomc_bind_const", bind_const, &x);
}

/* ---- the hardware description and options ---------------------------------- */

static int take_arch(loomc_ctx *c, arch_desc *a)
{
    if (!a)
        return LOOMC_EUSER;
    api_drop_job(c);
    if (c->arch)
        arch_free(c->arch);
    c->arch = a;
    return LOOMC_OK;
}

static int set_arch(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    if (!need(c, x->a, "loomc_set_arch", "the name or file"))
        return LOOMC_EUSER;
    return take_arch(c, arch_load(x->a, &c->d));
}

static int set_arch_string(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    if (!need(c, x->a, "loomc_set_arch_string", "the name") || !need(c, x->b, "loomc_set_arch_string", "the text"))
        return LOOMC_EUSER;
    return take_arch(c, arch_parse(x->a, x->b, strlen(x->b), &c->d));
}

int loomc_set_arch(loomc_ctx *c, const char *name_or_file)
{
    set_args x = {name_or_file, NULL, 0};
    return api_call(c, "loomc_set_arch", set_arch, &x);
}

int loomc_set_arch_string(loomc_ctx *c, const char *name, const char *yaml)
{
    set_args x = {name, yaml, 0};
    return api_call(c, "loomc_set_arch_string", set_arch_string, &x);
}

static int set_fidelity(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    arch_fidelity f = ARCH_HIFI2;
    if (x->a && !arch_fidelity_parse(x->a, &f)) {
        lm_error_plain(&c->d, "loomc_set_fidelity: '%s' is not a fidelity (LoFi, HiFi2, HiFi3, HiFi4)", x->a);
        return LOOMC_EUSER;
    }
    api_drop_job(c);
    c->have_fidelity = x->a != NULL;
    c->fidelity = f;
    return LOOMC_OK;
}

int loomc_set_fidelity(loomc_ctx *c, const char *fidelity)
{
    set_args x = {fidelity, NULL, 0};
    return api_call(c, "loomc_set_fidelity", set_fidelity, &x);
}

static int set_format(loomc_ctx *c, const void *args)
{
    const set_args *x = args;
    arch_format f = ARCH_BF16;
    if (x->a && (!arch_format_parse(x->a, &f) || f == ARCH_FP32)) {
        lm_error_plain(&c->d, "loomc_set_format: '%s' is not a storage format (bf16, bfp8_b, bfp4_b)", x->a);
        return LOOMC_EUSER;
    }
    api_drop_job(c);
    c->have_format = x->a != NULL;
    c->format = f;
    return LOOMC_OK;
}

int loomc_set_format(loomc_ctx *c, const char *format)
{
    set_args x = {format, NULL, 0};
    return api_call(c, "loomc_set_format", set_format, &x);
}

static int set_seed(loomc_ctx *c, const void *args)
{
    api_drop_run(c);
    c->seed = *(const unsigned long long *)args;
    return LOOMC_OK;
}

int loomc_set_seed(loomc_ctx *c, unsigned long long seed)
{
    return api_call(c, "loomc_set_seed", set_seed, &seed);
}
