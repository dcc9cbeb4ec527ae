/* cmd_calibrate.c - 'loomc calibrate': its options and where the report
 * goes. The harness (the published tables, TTNN's schedule per row, the
 * simulated utilisation, the Markdown report) is bench/calibrate.c. */
#include "bench/bench.h"
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static void cal_help(FILE *f)
{
    fprintf(f, "usage: loomc calibrate [--data DIR] [--kernels DIR] [--out FILE] [--table NAME]...\n"
               "                       [--limit N] [--max-mkn X] [--progress]\n\n"
               "Simulate TTNN's schedules for every row of the published GEMM tables, of SDPA\n"
               "prefill (attention) and of Flash Decode, and write the simulated device\n"
               "utilisation beside the published one\n"
               "(Markdown, docs/calibration.md). Timing-only simulation throughout.\n\n"
               "options:\n"
               "  --data DIR      the published tables (default bench/data)\n"
               "  --kernels DIR   the kernels (default kernels)\n"
               "  --out FILE      write here, keeping the file's '## Corrections' section\n"
               "                  (default: standard output)\n"
               "  --table NAME    only this table: oob, oob11, tuned, attention, decode (repeatable)\n"
               "  --limit N       only the first N rows of each table (quick checks)\n"
               "  --max-mkn X     skip GEMM rows with M*K*N above X (quick checks)\n"
               "  --progress      one line per row on standard error\n"
               "  --help          show this text\n");
}

int cli_calibrate(int argc, char **argv)
{
    bench_cal_opts co = {.data = "bench/data", .kernels = "kernels"};
    const char *outp = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        bool err = false;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            cal_help(stdout);
            return LOOMC_OK;
        } else if (cli_opt(argc, argv, &i, "--data", &v, &err)) {
            co.data = v;
        } else if (cli_opt(argc, argv, &i, "--kernels", &v, &err)) {
            co.kernels = v;
        } else if (cli_opt(argc, argv, &i, "--out", &v, &err)) {
            outp = v;
        } else if (cli_opt(argc, argv, &i, "--limit", &v, &err)) {
            int64_t n = 0;
            if (err || !cli_parse_count("calibrate", "--limit", v, 0, INT32_MAX, &n))
                return LOOMC_EUSER;
            co.limit = (int)n;
        } else if (cli_opt(argc, argv, &i, "--max-mkn", &v, &err)) {
            char *end = NULL;
            if (!err)
                co.max_mkn = strtod(v, &end);
            if (!err && (!*v || *end || !(co.max_mkn >= 0))) {
                cli_usage_error("calibrate", "--max-mkn needs a non-negative number, got '%s'", v);
                return LOOMC_EUSER;
            }
        } else if (cli_opt(argc, argv, &i, "--table", &v, &err)) {
            if (!err && strcmp(v, "oob") && strcmp(v, "oob11") && strcmp(v, "tuned") && strcmp(v, "attention") &&
                strcmp(v, "decode")) {
                cli_usage_error("calibrate", "unknown table '%s' (oob, oob11, tuned, attention, decode)", v);
                return LOOMC_EUSER;
            }
            if (!err && co.nonly < (int)LM_COUNT(co.only))
                co.only[co.nonly++] = v;
        } else if (cli_flag(argv, i, "--progress")) {
            co.progress = true;
        } else {
            cli_usage_error("calibrate", "unknown argument '%s'", argv[i]);
            return LOOMC_EUSER;
        }
        if (err)
            return LOOMC_EUSER;
    }
    lm_diag d;
    lm_diag_init(&d, stderr);
    lm_buf b = {0};
    bench_calibrate(&b, &co, &d);
    int rc = LOOMC_OK;
    if (outp) {
        bench_calibration_corrections(&b, outp);
        FILE *f = fopen(outp, "w");
        if (!f || fputs(lm_buf_str(&b), f) < 0 || fclose(f) != 0) {
            lm_error(&d, (lm_loc){"loomc calibrate", 0, 0}, "cannot write %s", outp);
            rc = LOOMC_EUSER;
        }
    } else {
        fputs(lm_buf_str(&b), stdout);
    }
    lm_buf_free(&b);
    return rc;
}
