/* cmd_ir.c - 'loomc ir KERNEL.py --shape ...': compile a kernel's launches
 * up to the analyses and print, per launch, the launch header, the Tile IR
 * and the access analysis. This is the front end's window for users and for
 * golden tests. */
#include "cli/cli.h"
#include "driver/driver.h"


enum { I_HELP };

static const cli_option ir_opts[] = {
    {"--shape", CLI_SHARED, 0, "NAME=N,...", NULL, 0, 0,
     "values of the launch spec's sizes (all are required);\nmay be given several times", 0},
    {"--const", CLI_SHARED, 0, "NAME=N", NULL, 0, 0,
     "set an option of the launch spec, or pin a free\n"
     "constexpr (it stays a symbol, with this value); repeatable", 0},
    {"--kernel", CLI_SHARED, 0, "NAME", NULL, 0, 0,
     "the launch spec to use, or a kernel it launches (only\n"
     "that kernel's launches are printed); needed when the\n"
     "file has several launch specs", 0},
    {"--include", CLI_SHARED, 0, "DIR", NULL, 0, 0,
     "a folder where the kernel's imports of its project's\n"
     "other modules are found, after the kernel's own;\n"
     "repeatable", 0},
    {"--help", CLI_FLAG, I_HELP, NULL, NULL, 0, 0, "show this text", 0},
    {"-h", CLI_FLAG, I_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command ir_cmd = {
    "ir",
    "usage: loomc ir KERNEL.py --shape NAME=N[,NAME=N...] [--const NAME=N]... [--kernel NAME]\n\n"
    "Read the Triton kernels and the @loomc.launch spec in KERNEL.py (docs/launch.md),\n"
    "bind the problem sizes, and print for each launch: the launch (grid, sizes,\n"
    "tensors, arguments, free constexprs), the kernel's Tile IR (docs/tile-ir.md)\n"
    "and the access analysis of its block loads and stores.\n\n"
    "options:\n",
    23, ir_opts, (int)LM_COUNT(ir_opts),
    "\n"
    "Values are integers; True and False stand for 1 and 0.\n"
    "exit status: 0 success, 1 bad input (FILE:LINE:COL: error: ...), 2 internal error.\n"};

int cli_ir(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "ir", NULL, &a);
    ko.table = &ir_cmd;
    int rc = LOOMC_EUSER;
    for (int i = 1; i < argc; i++) {
        const cli_option *opt = NULL;
        const char *v = NULL;
        int64_t n = 0;
        if (cli_table_opt(&ir_cmd, argc, argv, &i, &opt, &v, &n) == CLI_TAKEN) {
            cli_help_print(stdout, &ir_cmd);
            rc = LOOMC_OK;
            goto out;
        }
        cli_take t = cli_kernel_opt(&ko, argc, argv, &i);
        if (t == CLI_BAD || (t == CLI_OTHER && !cli_kernel_arg(&ko, argv[i])))
            goto out;
    }
    if (!cli_kernel_complete(&ko))
        goto out;

    drv_opts o;
    cli_kernel_drv_opts(&ko, &o);
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
            fe_print_autotune(&b, &r.names, dl->launch->kernel, &r.arena);
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
    cli_kernel_opts_free(&ko);
    lm_arena_free(&a);
    return rc;
}
