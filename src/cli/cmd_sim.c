/* cmd_sim.c - 'loomc sim' (not built yet; see the open issues). */
#include "cli.h"

int cli_sim(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "loomc sim: error: not implemented yet\n");
    return LOOMC_EUSER;
}
