/* cli.h - the loomc command line: one function per subcommand, each in its
 * own cmd_<name>.c, dispatched from main.c. A subcommand returns the exit
 * status (LOOMC_OK, LOOMC_EUSER; internal errors exit 2 through LM_BUG). */
#ifndef LOOMC_CLI_H
#define LOOMC_CLI_H

#include "loomc.h"
#include "util/base.h"

typedef int (*cli_fn)(int argc, char **argv);

int cli_ir(int argc, char **argv);   /* cmd_ir.c */
int cli_arch(int argc, char **argv); /* cmd_arch.c */
int cli_sim(int argc, char **argv);  /* cmd_sim.c */
int cli_ast(int argc, char **argv);  /* cmd_ast.c */

/* Shared option helpers (opts.c). */
/* True when argv[*i] is `--name VALUE` or `--name=VALUE`; sets *val and
 * advances *i past a separate value. Reports a missing value. */
bool cli_opt(int argc, char **argv, int *i, const char *name, const char **val, bool *err);
bool cli_flag(char **argv, int i, const char *name);
void cli_usage_error(const char *cmd, const char *fmt, ...) LM_PRINTF(2, 3);

#endif
