/* cmd_sim.c - 'loomc sim': read a dataflow program, apply --param
 * overrides, check it against a chip and either print its canonical text
 * (--print) or hand it to the simulator (cli_sim_execute, cmd_sim_run.c).
 *
 * All of sim's options are parsed here so that the simulator side only
 * acts on a filled-in struct sim_cli_opts.
 */
#include "cli/cli.h"
#include "arch/arch.h"
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: loomc sim PROGRAM.df --arch NAME|FILE [options]\n\n"
            "Simulate a dataflow program (docs/dataflow.md) on a described chip.\n"
            "All performance figures are simulated, not measured.\n\n"
            "options:\n"
            "  --arch NAME|FILE    hardware description (a name from arch/ or a YAML file)\n"
            "  --param NAME=VALUE  override a program param (repeatable)\n"
            "  --print             print the program's canonical text and exit\n"
            "                      (with --arch, after checking it against the chip)\n"
            "  --check             compare the outputs with the program's check references\n"
            "  --trace FILE        write a Chrome/Perfetto trace of every engine\n"
            "  --json              print the report as one JSON object\n"
            "  --timing-only       skip the arithmetic (for big shapes)\n"
            "  --exact-exp         exp in exact rather than the chip's approximate mode\n"
            "exit status: 0 success, 1 bad input or failed check, 2 internal error\n");
}

int cli_sim(int argc, char **argv)
{
    struct sim_cli_opts o = {0};
    bool print = false, err = false;
    const char **overrides = lm_xcalloc((size_t)argc + 1, sizeof *overrides);
    int noverrides = 0;
    for (int i = 1; i < argc && !err; i++) {
        const char *v = NULL;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            usage(stdout);
            free(overrides);
            return LOOMC_OK;
        } else if (cli_opt(argc, argv, &i, "--arch", &v, &err)) {
            o.arch = v;
        } else if (cli_opt(argc, argv, &i, "--param", &v, &err)) {
            if (v)
                overrides[noverrides++] = v;
        } else if (cli_opt(argc, argv, &i, "--trace", &v, &err)) {
            o.trace_path = v;
        } else if (cli_flag(argv, i, "--print")) {
            print = true;
        } else if (cli_flag(argv, i, "--check")) {
            o.check = true;
        } else if (cli_flag(argv, i, "--json")) {
            o.json = true;
        } else if (cli_flag(argv, i, "--timing-only")) {
            o.timing_only = true;
        } else if (cli_flag(argv, i, "--exact-exp")) {
            o.exact_exp = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_usage_error("sim", "unknown option '%s'", argv[i]);
            err = true;
        } else if (o.program_path) {
            cli_usage_error("sim", "more than one program given ('%s' and '%s')", o.program_path, argv[i]);
            err = true;
        } else {
            o.program_path = argv[i];
        }
    }
    if (!err && !o.program_path) {
        cli_usage_error("sim", "no program given");
        err = true;
    }
    if (!err && !o.arch && !print) {
        cli_usage_error("sim", "--arch is required to simulate");
        err = true;
    }
    if (!err && o.check && o.timing_only) {
        cli_usage_error("sim", "--check needs the arithmetic; it cannot be combined with --timing-only");
        err = true;
    }
    if (err) {
        free(overrides);
        return LOOMC_EUSER;
    }

    int status = LOOMC_EUSER;
    lm_diag d;
    lm_diag_init(&d, stderr);
    o.diag = &d;
    char why[512];
    size_t len = 0;
    char *text = lm_read_file(o.program_path, &len, why, sizeof why);
    df_program *p = NULL;
    arch_desc *a = NULL;
    if (!text) {
        lm_error_plain(&d, "%s", why);
        goto out;
    }
    lm_diag_add_source(&d, o.program_path, text, len);
    p = df_parse(o.program_path, text, len, &d);
    if (!p || !df_bind(p, overrides, noverrides, &d))
        goto out;
    if (o.arch) {
        a = arch_load(o.arch, &d);
        if (!a || !df_validate(p, a, &d))
            goto out;
    }
    if (print) {
        lm_buf b = {0};
        df_print(&b, p);
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        status = LOOMC_OK;
        goto out;
    }

    /* ---- simulation: everything past this point lives in cmd_sim_run.c ---- */
    status = cli_sim_execute(p, a, &o);

out:
    arch_free(a);
    df_free(p);
    free(text);
    free(overrides);
    return status;
}
