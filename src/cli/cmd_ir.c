/* cmd_ir.c - 'loomc ir KERNEL.py --shape ...': compile a kernel's launches
 * up to the analyses and print, per launch, the launch header, the Tile IR
 * and the access analysis. This is the front end's window for users and for
 * golden tests. */
#include "cli.h"
#include "driver/driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void ir_help(FILE *f)
{
    fprintf(f, "usage: loomc ir KERNEL.py --shape NAME=N[,NAME=N...] [--const NAME=N]... [--kernel NAME]\n\n"
               "Read the Triton kernels and the @loomc.launch spec in KERNEL.py (docs/launch.md),\n"
               "bind the problem sizes, and print for each launch: the launch (grid, sizes,\n"
               "tensors, arguments, free constexprs), the kernel's Tile IR (docs/tile-ir.md)\n"
               "and the access analysis of its block loads and stores.\n\n"
               "options:\n"
               "  --shape NAME=N,...   values of the launch spec's sizes (all are required);\n"
               "                       may be given several times\n"
               "  --const NAME=N       set an option of the launch spec, or pin a free\n"
               "                       constexpr (it stays a symbol, with this value); repeatable\n"
               "  --kernel NAME        the launch spec to use, or a kernel it launches (only\n"
               "                       that kernel's launches are printed); needed when the\n"
               "                       file has several launch specs\n"
               "  --help               show this text\n\n"
               "Values are integers; True and False stand for 1 and 0.\n"
               "exit status: 0 success, 1 bad input (FILE:LINE:COL: error: ...), 2 internal error.\n");
}

typedef LM_VEC(fe_kv) kv_vec;

/* NAME=N[,NAME=N...] appended to v; false after reporting a usage error. */
static bool parse_kvs(const char *opt, const char *text, kv_vec *v, lm_arena *a)
{
    const char *p = text;
    if (!*p) {
        cli_usage_error("ir", "%s needs NAME=VALUE", opt);
        return false;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = lm_arena_strndup(a, p, n);
        char *eq = strchr(item, '=');
        if (!eq || eq == item) {
            cli_usage_error("ir", "%s: expected NAME=VALUE, got '%s'", opt, item);
            return false;
        }
        *eq = 0;
        const char *val = eq + 1;
        for (const char *q = item; *q; q++)
            if (!(*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (q > item && *q >= '0' && *q <= '9'))) {
                cli_usage_error("ir", "%s: '%s' is not a name", opt, item);
                return false;
            }
        int64_t x;
        if (!strcmp(val, "True")) {
            x = 1;
        } else if (!strcmp(val, "False")) {
            x = 0;
        } else {
            char *end;
            errno = 0;
            long long ll = strtoll(val, &end, 10);
            if (!*val || *end || errno) {
                cli_usage_error("ir", "%s: the value of %s must be an integer, got '%s'", opt, item, val);
                return false;
            }
            x = ll;
        }
        for (size_t i = 0; i < v->len; i++)
            if (!strcmp(v->items[i].name, item)) {
                cli_usage_error("ir", "%s: '%s' is given twice", opt, item);
                return false;
            }
        LM_PUSH(v, ((fe_kv){item, x}));
        if (!comma)
            break;
        p = comma + 1;
        if (!*p) {
            cli_usage_error("ir", "%s: trailing ','", opt);
            return false;
        }
    }
    return true;
}

int cli_ir(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    kv_vec shapes = {0}, consts = {0};
    const char *path = NULL, *kernel = NULL;
    int rc = LOOMC_EUSER;
    bool err = false;
    for (int i = 1; i < argc && !err; i++) {
        const char *val = NULL;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            ir_help(stdout);
            rc = LOOMC_OK;
            goto out;
        }
        if (cli_opt(argc, argv, &i, "--shape", &val, &err)) {
            if (!err && !parse_kvs("--shape", val, &shapes, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--const", &val, &err)) {
            if (!err && !parse_kvs("--const", val, &consts, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--kernel", &val, &err)) {
            if (!err && kernel) {
                cli_usage_error("ir", "--kernel is given twice");
                goto out;
            }
            kernel = val;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_usage_error("ir", "unknown option '%s'", argv[i]);
            goto out;
        } else if (path) {
            cli_usage_error("ir", "expected one kernel file, got '%s' and '%s'", path, argv[i]);
            goto out;
        } else {
            path = argv[i];
        }
    }
    if (err)
        goto out;
    if (!path) {
        cli_usage_error("ir", "missing the kernel file");
        goto out;
    }

    drv_opts o = {.path = path};
    o.launch.kernel = kernel;
    o.launch.shapes = shapes.items;
    o.launch.nshapes = (int)shapes.len;
    o.launch.consts = consts.items;
    o.launch.nconsts = (int)consts.len;
    lm_diag d;
    lm_diag_init(&d, stderr);
    drv_result r;
    if (drv_compile(&r, &o, &d)) {
        lm_buf b = {0};
        for (int i = 0; i < r.nlaunches; i++) {
            const drv_launch *dl = &r.launches[i];
            if (i)
                lm_buf_putc(&b, '\n');
            fe_print_launch(&b, r.spec, dl->launch);
            lm_buf_putc(&b, '\n');
            tir_print_func(&b, dl->func);
            lm_buf_puts(&b, "\naccesses:\n");
            acc_print(&b, dl->func, dl->access);
        }
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        rc = LOOMC_OK;
    }
    drv_free(&r);
out:
    LM_VEC_FREE(&shapes);
    LM_VEC_FREE(&consts);
    lm_arena_free(&a);
    return rc;
}
