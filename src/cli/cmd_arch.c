/* cmd_arch.c - 'loomc arch': validate a hardware description and print it
 * with its derived figures (cores, usable L1, peak FLOP/s, DRAM and NoC
 * bandwidth), as text or JSON. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"

enum { A_HELP, A_JSON, A_LIST };

static const cli_option arch_opts[] = {
    {"--json", CLI_FLAG, A_JSON, NULL, NULL, 0, 0, "print the description and derived figures as one JSON object", 0},
    {"--list", CLI_FLAG, A_LIST, NULL, NULL, 0, 0, "list the descriptions found on the search path", 0},
    {"--help", CLI_FLAG, A_HELP, NULL, NULL, 0, 0, "this text", 0},
    {"-h", CLI_FLAG, A_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command arch_cmd = {
    "arch",
    "usage: loomc arch [--json] NAME|FILE\n"
    "       loomc arch --list\n\n"
    "Check a hardware description against the schema (docs/arch.md) and print it\n"
    "with derived figures: cores, usable L1, peak TFLOP/s per math fidelity,\n"
    "aggregate DRAM and NoC bandwidth, and the DRAM-bound intensity per data format.\n\n"
    "NAME is looked up as NAME.yaml in $LOOMC_ARCH_PATH (colon-separated), then ./arch,\n"
    "then the arch/ folder of the loomc installation; an argument containing '/' or\n"
    "ending in .yaml is a path.\n\n"
    "options:\n",
    12, arch_opts, (int)LM_COUNT(arch_opts),
    "exit status: 0 valid, 1 bad input (file:line:col: error: ...)\n"};

static int arch_main(int argc, char **argv)
{
    const char *what = NULL;
    bool json = false, list = false;
    for (int i = 1; i < argc; i++) {
        const cli_option *o = NULL;
        const char *v = NULL;
        int64_t n = 0;
        cli_take t = cli_table_opt(&arch_cmd, argc, argv, &i, &o, &v, &n);
        if (t == CLI_TAKEN && o->id == A_HELP) {
            cli_help_print(stdout, &arch_cmd);
            return LOOMC_OK;
        } else if (t == CLI_TAKEN) {
            json |= o->id == A_JSON;
            list |= o->id == A_LIST;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option(&arch_cmd, argv[i], "option");
            return LOOMC_EUSER;
        } else if (what) {
            cli_usage_error("arch", "expected one description, got '%s' and '%s'", what, argv[i]);
            return LOOMC_EUSER;
        } else {
            what = argv[i];
        }
    }
    lm_buf b = {0};
    if (list) {
        if (what) {
            cli_usage_error("arch", "--list takes no description");
            return LOOMC_EUSER;
        }
        arch_list(&b);
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        return LOOMC_OK;
    }
    if (!what) {
        cli_usage_error("arch", "expected a description name or file");
        return LOOMC_EUSER;
    }
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = arch_load(what, &d);
    if (!a)
        return LOOMC_EUSER;
    if (json)
        arch_print_json(&b, a);
    else
        arch_print(&b, a);
    fputs(lm_buf_str(&b), stdout);
    lm_buf_free(&b);
    arch_free(a);
    return LOOMC_OK;
}

int cli_arch(int argc, char **argv)
{
    cli_json_errors je;
    cli_json_begin(&je, &arch_cmd, argc, argv, A_JSON);
    return cli_json_end(&je, arch_main(argc, argv));
}
