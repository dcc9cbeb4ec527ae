/* cmd_ir.c - 'loomc ir' (not built yet; see the open issues). */
#include "cli.h"

int cli_ir(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "loomc ir: error: not implemented yet\n");
    return LOOMC_EUSER;
}
