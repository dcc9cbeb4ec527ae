/* cmd_calibrate.c - 'loomc calibrate': its options and where the report
 * goes. The harness (the published tables, TTNN's schedule per row, the
 * simulated utilisation, the Markdown report) is bench/calibrate.c. */
#include "bench/bench.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

enum { O_HELP, O_DATA, O_KERNELS, O_OUT, O_TABLE, O_LIMIT, O_MAX_MKN, O_PROGRESS, O_QUIET };

static const cli_option cal_opts[] = {
    {"--data", CLI_VALUE, O_DATA, "DIR", "bench/data", 0, 0, "the published tables (default bench/data)", 0},
    {"--kernels", CLI_VALUE, O_KERNELS, "DIR", "kernels", 0, 0, "the kernels (default kernels)", 0},
    {"--out", CLI_VALUE, O_OUT, "FILE", NULL, 0, 0,
     "write here, keeping the file's '## Corrections' section\n(default, and '-': standard output)", 0},
    {"--table", CLI_VALUE, O_TABLE, "NAME", NULL, 0, 0,
     "only this table: oob, oob11, tuned, attention, decode (repeatable)", 0},
    {"--limit", CLI_COUNT, O_LIMIT, "N", "0", 0, INT32_MAX, "only the first N rows of each table (quick checks)", 0},
    {"--max-mkn", CLI_VALUE, O_MAX_MKN, "X", "0", 0, 0, "skip GEMM rows with M*K*N above X (quick checks)", 0},
    {"--progress", CLI_FLAG, O_PROGRESS, NULL, NULL, 0, 0,
     "one line per row on standard error (a log, terminal or not)", 0},
    {"--quiet", CLI_FLAG, O_QUIET, NULL, NULL, 0, 0, "no progress line on a terminal", 0},
    {"--help", CLI_FLAG, O_HELP, NULL, NULL, 0, 0, "show this text", 0},
    {"-h", CLI_FLAG, O_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command cal_cmd = {
    "calibrate",
    "usage: loomc calibrate [--data DIR] [--kernels DIR] [--out FILE] [--table NAME]...\n"
    "                       [--limit N] [--max-mkn X] [--progress] [--quiet]\n\n"
    "Simulate TTNN's schedules for every row of the published GEMM tables, and\n"
    "TTNN's own SDPA kernels (written as dataflow programs) for the SDPA prefill\n"
    "(attention) and Flash Decode rows, and write the simulated device utilisation\n"
    "beside the published one\n"
    "(Markdown, docs/calibration.md). Timing-only simulation throughout.\n\n"
    "options:\n",
    18, cal_opts, (int)LM_COUNT(cal_opts), ""};

static bool known_table(const char *v)
{
    return !strcmp(v, "oob") || !strcmp(v, "oob11") || !strcmp(v, "tuned") || !strcmp(v, "attention") ||
           !strcmp(v, "decode");
}

int cli_calibrate(int argc, char **argv)
{
    bench_cal_opts co = {.data = cli_table_row(&cal_cmd, O_DATA)->dflt,
                         .kernels = cli_table_row(&cal_cmd, O_KERNELS)->dflt};
    const char *outp = NULL;
    for (int i = 1; i < argc; i++) {
        const cli_option *o = NULL;
        const char *v = NULL;
        int64_t n = 0;
        cli_take t = cli_table_opt(&cal_cmd, argc, argv, &i, &o, &v, &n);
        if (t == CLI_BAD)
            return LOOMC_EUSER;
        if (t == CLI_OTHER) {
            cli_unknown_option(&cal_cmd, argv[i], "argument");
            return LOOMC_EUSER;
        }
        switch (o->id) {
        case O_HELP:
            cli_help_print(stdout, &cal_cmd);
            return LOOMC_OK;
        case O_DATA:
            co.data = v;
            break;
        case O_KERNELS:
            co.kernels = v;
            break;
        case O_OUT:
            outp = v;
            break;
        case O_LIMIT:
            co.limit = (int)n;
            break;
        case O_MAX_MKN: {
            char *end = NULL;
            co.max_mkn = strtod(v, &end);
            if (!*v || *end || !(co.max_mkn >= 0)) {
                cli_usage_error("calibrate", "--max-mkn needs a non-negative number, got '%s'", v);
                return LOOMC_EUSER;
            }
            break;
        }
        case O_TABLE:
            if (!known_table(v)) {
                cli_usage_error("calibrate", "unknown table '%s' (oob, oob11, tuned, attention, decode)", v);
                return LOOMC_EUSER;
            }
            if (co.nonly < (int)LM_COUNT(co.only))
                co.only[co.nonly++] = v;
            break;
        case O_PROGRESS:
            co.progress = true;
            break;
        case O_QUIET:
            co.quiet = true;
            break;
        }
    }
    /* before any work: the whole calibration runs for a long time */
    if (cli_is_stdout(outp))
        outp = NULL;
    if (!cli_output_check("calibrate", outp))
        return LOOMC_EUSER;
    lm_diag d;
    lm_diag_init(&d, stderr);
    lm_buf b = {0};
    bench_calibrate(&b, &co, &d);
    int rc = LOOMC_OK;
    if (d.nerrors) {
        /* a table that cannot be read leaves the report incomplete: none is written */
        rc = LOOMC_EUSER;
    } else if (outp) {
        bench_calibration_corrections(&b, outp);
        if (!cli_output_write("calibrate", outp, lm_buf_str(&b)))
            rc = LOOMC_EUSER;
    } else {
        fputs(lm_buf_str(&b), stdout);
    }
    lm_buf_free(&b);
    return rc;
}
