/* opts.c - option parsing shared by the subcommands (opts.h): one reader
 * for `--name VALUE`, one for NAME=N lists, and the kernel options of ir,
 * compile and run, so each is accepted and rejected in one place. */
#include "cli/opts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cli_opt(int argc, char **argv, int *i, const char *name, const char **val, bool *err)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return false;
    if (a[n] == '=') {
        *val = a + n + 1;
        return true;
    }
    if (a[n] != 0)
        return false;
    if (*i + 1 >= argc) {
        lm_diag d;
        lm_diag_init(&d, stderr);
        lm_error_plain(&d, "option '%s' needs a value", name);
        *err = true;
        return true;
    }
    *val = argv[++*i];
    return true;
}

bool cli_flag(char **argv, int i, const char *name) { return strcmp(argv[i], name) == 0; }

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char who[64];
    snprintf(who, sizeof who, "loomc %s", cmd);
    lm_diag d;
    lm_diag_init(&d, stderr);
    va_list ap;
    va_start(ap, fmt);
    lm_verror(&d, (lm_loc){who, 0, 0}, fmt, ap);
    va_end(ap);
    fprintf(d.out, "(see 'loomc %s --help')\n", cmd);
}

void cli_error(const char *cmd, const char *fmt, ...)
{
    char who[64];
    snprintf(who, sizeof who, "loomc %s", cmd);
    lm_diag d;
    lm_diag_init(&d, stderr);
    va_list ap;
    va_start(ap, fmt);
    lm_verror(&d, (lm_loc){who, 0, 0}, fmt, ap);
    va_end(ap);
}

static bool is_name(const char *s)
{
    for (const char *q = s; *q; q++)
        if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (q > s && *q >= '0' && *q <= '9')))
            return false;
    return true;
}

bool cli_parse_kvs(const char *cmd, const char *opt, const char *text, unsigned flags, cli_kvs *v, lm_arena *a)
{
    const char *p = text;
    if (!*p) {
        cli_usage_error(cmd, "%s needs NAME=VALUE", opt);
        return false;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = lm_arena_strndup(a, p, n);
        char *eq = strchr(item, '=');
        if (!eq || eq == item) {
            cli_usage_error(cmd, "%s: expected NAME=VALUE, got '%s'", opt, item);
            return false;
        }
        *eq = 0;
        const char *val = eq + 1;
        if ((flags & CLI_KV_NAMES) && !is_name(item)) {
            cli_usage_error(cmd, "%s: '%s' is not a name", opt, item);
            return false;
        }
        int64_t x;
        if (!strcmp(val, "True")) {
            x = 1;
        } else if (!strcmp(val, "False")) {
            x = 0;
        } else {
            if (!lm_parse_i64(val, &x)) {
                cli_usage_error(cmd, "%s: the value of %s must be an integer, got '%s'", opt, item, val);
                return false;
            }
        }
        bool dup = false;
        for (size_t i = 0; i < v->len; i++)
            if (!strcmp(v->items[i].name, item)) {
                if (!(flags & CLI_KV_LATER_WINS)) {
                    cli_usage_error(cmd, "%s: '%s' is given twice", opt, item);
                    return false;
                }
                v->items[i].value = x;
                dup = true;
            }
        if (!dup)
            LM_PUSH(v, ((fe_kv){item, x}));
        if (!comma)
            break;
        p = comma + 1;
        if (!*p) {
            cli_usage_error(cmd, "%s: trailing ','", opt);
            return false;
        }
    }
    return true;
}

bool cli_parse_count(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t x;
    if (!lm_parse_i64(val, &x) || x < lo || x > hi) {
        cli_usage_error(cmd, "%s needs an integer from %lld to %lld, got '%s'", opt, (long long)lo, (long long)hi,
                        val);
        return false;
    }
    *out = x;
    return true;
}

bool cli_parse_fidelity(const char *cmd, const char *val, arch_fidelity *out)
{
    if (arch_fidelity_parse(val, out))
        return true;
    cli_usage_error(cmd, "--fidelity must be LoFi, HiFi2, HiFi3 or HiFi4, got '%s'", val);
    return false;
}

bool cli_parse_format(const char *cmd, const char *val, arch_format *out)
{
    if (arch_format_parse(val, out) && *out != ARCH_FP32)
        return true;
    cli_usage_error(cmd, "--format must be bf16, bfp8_b or bfp4_b, got '%s'", val);
    return false;
}

void cli_kernel_opts_init(cli_kernel_opts *k, const char *cmd, const char *arch_needed, lm_arena *a)
{
    memset(k, 0, sizeof *k);
    k->cmd = cmd;
    k->arch_needed = arch_needed;
    k->arena = a;
}

/* A single-valued option given twice is an error rather than a silent
   override: a command line built by a script should not depend on order. */
static cli_take once(cli_kernel_opts *k, const char *opt, const char **slot, const char *val)
{
    if (*slot) {
        cli_usage_error(k->cmd, "%s is given twice", opt);
        return CLI_BAD;
    }
    *slot = val;
    return CLI_TAKEN;
}

static cli_take push_include(cli_kernel_opts *k, const char *dir)
{
    LM_PUSH(&k->includes, dir);
    return CLI_TAKEN;
}

cli_take cli_kernel_opt(cli_kernel_opts *k, int argc, char **argv, int *i)
{
    const char *val = NULL;
    bool err = false;
    cli_take t;
    if (cli_opt(argc, argv, i, "--shape", &val, &err))
        t = err || !cli_parse_kvs(k->cmd, "--shape", val, CLI_KV_NAMES, &k->shapes, k->arena) ? CLI_BAD : CLI_TAKEN;
    else if (cli_opt(argc, argv, i, "--const", &val, &err))
        t = err || !cli_parse_kvs(k->cmd, "--const", val, CLI_KV_NAMES, &k->consts, k->arena) ? CLI_BAD : CLI_TAKEN;
    else if (cli_opt(argc, argv, i, "--kernel", &val, &err))
        t = err ? CLI_BAD : once(k, "--kernel", &k->kernel, val);
    else if (cli_opt(argc, argv, i, "--include", &val, &err))
        t = err ? CLI_BAD : push_include(k, val);
    else if (k->arch_needed && cli_opt(argc, argv, i, "--arch", &val, &err))
        t = err ? CLI_BAD : once(k, "--arch", &k->arch, val);
    else
        t = CLI_OTHER;
    return t;
}

bool cli_kernel_arg(cli_kernel_opts *k, const char *arg)
{
    if (arg[0] == '-' && arg[1]) {
        if (k->table)
            cli_unknown_option(k->table, arg, "option");
        else
            cli_usage_error(k->cmd, "unknown option '%s'", arg);
        return false;
    }
    if (k->path) {
        cli_usage_error(k->cmd, "expected one kernel file, got '%s' and '%s'", k->path, arg);
        return false;
    }
    k->path = arg;
    return true;
}

bool cli_kernel_complete(const cli_kernel_opts *k)
{
    if (!k->path) {
        cli_usage_error(k->cmd, "missing the kernel file");
        return false;
    }
    if (k->arch_needed && !k->arch) {
        cli_usage_error(k->cmd, "%s", k->arch_needed);
        return false;
    }
    for (size_t i = 0; i < k->includes.len; i++) {
        struct stat st;
        if (stat(k->includes.items[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            cli_usage_error(k->cmd, "--include %s: %s", k->includes.items[i],
                            errno && stat(k->includes.items[i], &st) != 0 ? strerror(errno) : "not a folder");
            return false;
        }
    }
    return true;
}

void cli_kernel_drv_opts(const cli_kernel_opts *k, drv_opts *o)
{
    memset(o, 0, sizeof *o);
    o->path = k->path;
    o->launch.kernel = k->kernel;
    o->launch.shapes = k->shapes.items;
    o->launch.nshapes = (int)k->shapes.len;
    o->launch.consts = k->consts.items;
    o->launch.nconsts = (int)k->consts.len;
    o->includes = k->includes.items;
    o->nincludes = (int)k->includes.len;
}

void cli_kernel_opts_free(cli_kernel_opts *k)
{
    LM_VEC_FREE(&k->shapes);
    LM_VEC_FREE(&k->consts);
    LM_VEC_FREE(&k->includes);
}

/* ---- option tables ---------------------------------------------------------- */

void cli_help_print(FILE *f, const cli_command *c)
{
    fputs(c->before, f);
    for (int i = 0; i < c->nopts; i++) {
        const cli_option *o = &c->opts[i];
        if (!o->help)
            continue;
        int n = fprintf(f, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        /* the help column, or two spaces past a longer name */
        fprintf(f, "%*s", n < c->column ? c->column - n : 2, "");
        for (const char *h = o->help; *h;) {
            const char *nl = strchr(h, '\n');
            int len = nl ? (int)(nl - h) : (int)strlen(h);
            const char *dn = strstr(h, "%N");
            if (dn && dn - h < len)
                fprintf(f, "%.*s%lld%.*s\n", (int)(dn - h), h, (long long)o->dflt_n, len - (int)(dn - h) - 2, dn + 2);
            else
                fprintf(f, "%.*s\n", len, h);
            if (!nl)
                break;
            h = nl + 1;
            fprintf(f, "%*s", c->column, "");
        }
    }
    fputs(c->after, f);
}

const cli_option *cli_table_row(const cli_command *c, int id)
{
    for (int i = 0; i < c->nopts; i++)
        if (c->opts[i].id == id && c->opts[i].kind != CLI_MORE && c->opts[i].kind != CLI_SHARED)
            return &c->opts[i];
    return NULL;
}

/* The row of c that argument a names (NULL: none). */
static const cli_option *row_named(const cli_command *c, const char *a)
{
    for (int r = 0; r < c->nopts; r++) {
        const cli_option *o = &c->opts[r];
        size_t n = o->name ? strlen(o->name) : 0;
        if (o->kind != CLI_MORE && n && !strncmp(a, o->name, n) && (a[n] == 0 || (a[n] == '=' && o->arg)))
            return o;
    }
    return NULL;
}

bool cli_table_given(const cli_command *c, int argc, char **argv, int id)
{
    for (int i = 1; i < argc; i++) {
        const cli_option *o = row_named(c, argv[i]);
        if (!o)
            continue;
        if (o->id == id && o->kind != CLI_SHARED)
            return true;
        if (o->arg && !strchr(argv[i], '='))
            i++; /* its value */
    }
    return false;
}

cli_take cli_table_opt(const cli_command *c, int argc, char **argv, int *i, const cli_option **opt, const char **val,
                       int64_t *count)
{
    *val = NULL;
    for (int r = 0; r < c->nopts; r++) {
        const cli_option *o = &c->opts[r];
        bool err = false;
        if (o->kind == CLI_FLAG) {
            if (!cli_flag(argv, *i, o->name))
                continue;
        } else if (o->kind == CLI_VALUE || o->kind == CLI_COUNT) {
            if (!cli_opt(argc, argv, i, o->name, val, &err))
                continue;
            if (err)
                return CLI_BAD;
            if (o->kind == CLI_COUNT && !cli_parse_count(c->name, o->name, *val, o->lo, o->hi, count))
                return CLI_BAD;
        } else {
            continue;
        }
        *opt = o;
        return CLI_TAKEN;
    }
    return CLI_OTHER;
}

void cli_unknown_option(const cli_command *c, const char *arg, const char *what)
{
    const char *names[64];
    int n = 0;
    for (int i = 0; i < c->nopts && n < (int)LM_COUNT(names); i++)
        if (c->opts[i].kind != CLI_MORE)
            names[n++] = c->opts[i].name;
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    const char *near = arg[0] == '-' ? lm_closest(name, names, n, LM_NEAR_NAME) : NULL;
    if (near)
        cli_usage_error(c->name, "unknown %s '%s' (did you mean '%s'?)", what, arg, near);
    else
        cli_usage_error(c->name, "unknown %s '%s'", what, arg);
}
