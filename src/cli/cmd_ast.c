/* cmd_ast.c - 'loomc ast' (not built yet; see the open issues). */
#include "cli.h"

int cli_ast(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "loomc ast: error: not implemented yet\n");
    return LOOMC_EUSER;
}
