/* cmd_arch.c - 'loomc arch' (not built yet; see the open issues). */
#include "cli.h"

int cli_arch(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "loomc arch: error: not implemented yet\n");
    return LOOMC_EUSER;
}
