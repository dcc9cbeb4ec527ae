/* cmd_sim.c - 'loomc sim': read a dataflow program, apply --param
 * overrides, check it against a chip and either print its canonical text
 * (--print) or hand it to the simulator (cli_sim_execute, cmd_sim_run.c).
 *
 * All of sim's options are parsed here so that the simulator side only
 * acts on a filled-in struct sim_cli_opts.
 */
#include "cli/cli.h"
#include "driver/driver.h"
#include "arch/arch.h"
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

enum { S_HELP, S_ARCH, S_PARAM, S_PRINT, S_CHECK, S_TRACE, S_JSON, S_TIMING_ONLY, S_EXACT_EXP, S_EMIT, S_SAVE_DATA };

static const cli_option sim_opts[] = {
    {"--arch", CLI_VALUE, S_ARCH, "NAME|FILE", NULL, 0, 0,
     "hardware description (a name from arch/ or a YAML file)", 0},
    {"--param", CLI_VALUE, S_PARAM, "NAME=VALUE", NULL, 0, 0, "override a program param (repeatable)", 0},
    {"--print", CLI_FLAG, S_PRINT, NULL, NULL, 0, 0,
     "print the program's canonical text and exit\n(with --arch, after checking it against the chip)", 0},
    {"--check", CLI_FLAG, S_CHECK, NULL, NULL, 0, 0, "compare the outputs with the program's check references", 0},
    {"--trace", CLI_VALUE, S_TRACE, "FILE", NULL, 0, 0,
     "write a Chrome/Perfetto trace of every engine ('-': standard\n"
     "output, and the report goes to standard error)", 0},
    {"--json", CLI_FLAG, S_JSON, NULL, NULL, 0, 0, "print the report as one JSON object", 0},
    {"--timing-only", CLI_FLAG, S_TIMING_ONLY, NULL, NULL, 0, 0, "skip the arithmetic (for big shapes)", 0},
    {"--exact-exp", CLI_FLAG, S_EXACT_EXP, NULL, NULL, 0, 0,
     "exp in exact rather than the chip's approximate mode", 0},
    {"--emit", CLI_VALUE, S_EMIT, "DIR", NULL, 0, 0,
     "write the program as a TT-Metalium program into DIR instead\nof simulating it (docs/emit.md)", 0},
    {"--save-data", CLI_VALUE, S_SAVE_DATA, "DIR", NULL, 0, 0,
     "write the inputs and the simulated outputs to\nDIR/{inputs,simulated}/NAME.f32 (float32, rows x columns)", 0},
    {"--help", CLI_FLAG, S_HELP, NULL, NULL, 0, 0, NULL, 0},
    {"-h", CLI_FLAG, S_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command sim_cmd = {
    "sim",
    "usage: loomc sim PROGRAM.df --arch NAME|FILE [options]\n\n"
    "Simulate a dataflow program (docs/dataflow.md) on a described chip.\n"
    "All performance figures are simulated, not measured.\n\n"
    "options:\n",
    22, sim_opts, (int)LM_COUNT(sim_opts),
    "exit status: 0 success, 1 bad input or failed check, 2 internal error\n"};

/* One of sim's own options (sim_opts). */
static void sim_option(struct sim_cli_opts *o, int id, const char *v, bool *print, const char **overrides,
                       int *noverrides)
{
    switch (id) {
    case S_ARCH:
        o->arch = v;
        break;
    case S_PARAM:
        overrides[(*noverrides)++] = v;
        break;
    case S_TRACE:
        o->trace_path = v;
        break;
    case S_PRINT:
        *print = true;
        break;
    case S_CHECK:
        o->check = true;
        break;
    case S_JSON:
        o->json = true;
        break;
    case S_TIMING_ONLY:
        o->timing_only = true;
        break;
    case S_EXACT_EXP:
        o->exact_exp = true;
        break;
    case S_EMIT:
        o->emit_dir = v;
        break;
    case S_SAVE_DATA:
        o->save_data = v;
        break;
    }
}

static int sim_main(int argc, char **argv, cli_json_errors *je)
{
    struct sim_cli_opts o = {0};
    bool print = false, err = false;
    const char **overrides = lm_xcalloc((size_t)argc + 1, sizeof *overrides);
    int noverrides = 0;
    for (int i = 1; i < argc && !err; i++) {
        const cli_option *opt = NULL;
        const char *v = NULL;
        int64_t n = 0;
        cli_take t = cli_table_opt(&sim_cmd, argc, argv, &i, &opt, &v, &n);
        if (t == CLI_TAKEN && opt->id == S_HELP) {
            cli_help_print(stdout, &sim_cmd);
            free(overrides);
            return LOOMC_OK;
        } else if (t == CLI_TAKEN) {
            sim_option(&o, opt->id, v, &print, overrides, &noverrides);
        } else if (t == CLI_BAD) {
            err = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option(&sim_cmd, argv[i], "option");
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
    /* before any work, so that a long simulation does not fail at its end */
    if (!err && !print &&
        (!cli_output_check("sim", o.trace_path) || !cli_output_dir_check("sim", "--emit", o.emit_dir) ||
         !cli_output_dir_check("sim", "--save-data", o.save_data)))
        err = true;
    if (err) {
        free(overrides);
        return LOOMC_EUSER;
    }
    /* --trace -: the trace has standard output, the report (and --json's errors) stderr */
    if (cli_is_stdout(o.trace_path))
        je->to = stderr;
    o.json_errors = je;

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

    if (o.emit_dir) {
        const df_program *one[1] = {p};
        if (drv_emit_programs(one, 1, a, o.program_path, o.emit_dir, &d)) {
            printf("loomc sim: wrote the TT-Metalium program of %s for %s into %s\n", o.program_path, a->name,
                   o.emit_dir);
            status = LOOMC_OK;
        }
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

int cli_sim(int argc, char **argv)
{
    cli_json_errors je;
    cli_json_begin(&je, &sim_cmd, argc, argv, S_JSON);
    return cli_json_end(&je, sim_main(argc, argv, &je));
}
