/* cmd_sim_run.c - the simulating half of 'loomc sim' (a placeholder until
 * the simulator is wired in: cmd_sim.c has already parsed, bound and
 * validated the program and filled in the options). */
#include "cli.h"

int cli_sim_execute(const struct df_program *p, const struct arch_desc *a, const struct sim_cli_opts *o)
{
    (void)p;
    (void)a;
    fprintf(stderr, "loomc sim: error: simulation not available yet (%s parsed and validated; "
                    "use --print to see it)\n", o->program_path);
    return LOOMC_EUSER;
}
