/* main.c - the loomc command: dispatch to a subcommand. */
#include "cli/cli.h"

#include <string.h>

static const struct {
    const char *name;
    cli_fn fn;
    const char *help;
} commands[] = {
    {"ir", cli_ir, "print a kernel's Tile IR and its access analysis"},
    {"compile", cli_compile, "schedule a kernel for a chip without tuning; explain, write a plan"},
    {"arch", cli_arch, "validate and print a hardware description"},
    {"sim", cli_sim, "simulate a dataflow program on a chip"},
    {"run", cli_run, "compile, schedule, lower and simulate a kernel (--check: against the interpreter)"},
    {"emit", cli_emit, "write the TT-Metalium program of a kernel's schedule (host, kernels, CMake)"},
    {"calibrate", cli_calibrate, "simulate TTNN's schedules beside TTNN's published measurements"},
    {"bench", cli_bench, "benchmark suites: loomc against TTNN, an oracle and a tuner (simulated)"},
    {"ast", cli_ast, "print the syntax tree of a Python file (for debugging the front end)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: loomc COMMAND [ARGS]...\n\n"
               "loomc compiles Triton tile kernels for spatial dataflow accelerators\n"
               "(Tenstorrent Wormhole and Blackhole) without tuning, and simulates them.\n\n"
               "commands:\n");
    for (size_t i = 0; i < LM_COUNT(commands); i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'loomc COMMAND --help' describes a command's options.\n"
               "options: --help, --version\n"
               "exit status: 0 success, 1 bad input, 2 internal error (a bug in loomc)\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LOOMC_EUSER;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return LOOMC_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("loomc %s\n", loomc_version());
        return LOOMC_OK;
    }
    for (size_t i = 0; i < LM_COUNT(commands); i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    const char *names[LM_COUNT(commands)];
    for (size_t i = 0; i < LM_COUNT(commands); i++)
        names[i] = commands[i].name;
    const char *near = lm_closest(argv[1], names, (int)LM_COUNT(names), LM_NEAR_NAME);
    lm_diag d;
    lm_diag_init(&d, stderr);
    if (near)
        lm_error_plain(&d, "unknown command '%s' (did you mean '%s'?)", argv[1], near);
    else
        lm_error_plain(&d, "unknown command '%s'", argv[1]);
    usage(stderr);
    return LOOMC_EUSER;
}
