/* cmd_arch.c - 'loomc arch': validate a hardware description and print it
 * with its derived figures (cores, usable L1, peak FLOP/s, DRAM and NoC
 * bandwidth), as text or JSON. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"

static void help(void)
{
    printf("usage: loomc arch [--json] NAME|FILE\n"
           "       loomc arch --list\n\n"
           "Check a hardware description against the schema (docs/arch.md) and print it\n"
           "with derived figures: cores, usable L1, peak TFLOP/s per math fidelity,\n"
           "aggregate DRAM and NoC bandwidth, and the DRAM-bound intensity per data format.\n\n"
           "NAME is looked up as NAME.yaml in $LOOMC_ARCH_PATH (colon-separated), then ./arch,\n"
           "then the arch/ folder of the loomc installation; an argument containing '/' or\n"
           "ending in .yaml is a path.\n\n"
           "options:\n"
           "  --json    print the description and derived figures as one JSON object\n"
           "  --list    list the descriptions found on the search path\n"
           "  --help    this text\n"
           "exit status: 0 valid, 1 bad input (file:line:col: error: ...)\n");
}

int cli_arch(int argc, char **argv)
{
    const char *what = NULL;
    bool json = false, list = false;
    for (int i = 1; i < argc; i++) {
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            help();
            return LOOMC_OK;
        } else if (cli_flag(argv, i, "--json")) {
            json = true;
        } else if (cli_flag(argv, i, "--list")) {
            list = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_usage_error("arch", "unknown option '%s'", argv[i]);
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
