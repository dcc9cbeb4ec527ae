/* run_int.h - what cmd_run.c, cmd_emit.c and run_edits.c share: the command
 * line of 'loomc run' (and of 'loomc emit', a subset) as read (run_args) and
 * the readers of its schedule options. */
#ifndef LOOMC_CLI_RUN_INT_H
#define LOOMC_CLI_RUN_INT_H

#include "cli/cli.h"
#include "driver/driver.h"
#include "ttnn/ttnn.h"

typedef struct strpair {
    const char *key, *val;
} strpair;
typedef LM_VEC(strpair) sp_vec;

/* What the command line asks for. */
typedef struct run_args {
    cli_kvs sets, sdpa;              /* --set, --sdpa-config */
    sp_vec places, transports;       /* --place, --transport, before they are read */
    const char *schedule, *trace;
    const char *save_data;           /* --save-data DIR */
    const char *outputs_from;        /* --outputs-from DIR */
    const char *profile;             /* --profile-csv FILE */
    bool check, timing_only, json, exact_exp, print, no_fuse, explain, quiet;
    uint64_t seed;
    bool have_fidelity, have_format;
    arch_fidelity fidelity;
    arch_format fmt;
} run_args;

/* The ids of run's options in its table (cmd_run.c); loomc emit's table
 * uses the same ids for the options it shares. */
enum {
    R_HELP, R_SCHEDULE, R_SET, R_PLACE, R_TRANSPORT, R_CHECK, R_TIMING_ONLY, R_TRACE, R_JSON, R_EXACT_EXP,
    R_PRINT, R_SEED, R_FIDELITY, R_FORMAT, R_EXPLAIN, R_SDPA_CONFIG, R_NO_FUSE, R_SAVE_DATA, R_OUTPUTS_FROM,
    R_QUIET, R_PROFILE_CSV, R_NIDS
};

/* One of run's own options (by id) into ra; false after reporting. */
bool cli_run_option(run_args *ra, int id, const char *val, lm_arena *a);

/* The command line of run or emit, by its table: the kernel options into ko
 * (whose table is set here), run's options into ra, and options with ids
 * past R_NIDS to `own` (false: reported, stop). --help prints the help. */
cli_read_status cli_run_read(const cli_command *cmd, int argc, char **argv, cli_kernel_opts *ko, run_args *ra,
                             lm_arena *a, bool (*own)(int id, const char *val, void *ctx), void *ctx);

/* KEY=VALUE[,...] appended to v (--place, --transport); false after reporting. */
bool cli_run_parse_pairs(const char *opt, const char *text, sp_vec *v, lm_arena *a);
/* TTNN's options: the fidelity, and an SDPA program config; false after
 * reporting. */
bool cli_run_ttnn_options(const run_args *ra, ttnn_sched_opts *bo);
/* --transport and --place, read for the driver; false after reporting. */
bool cli_run_edit_options(const run_args *ra, drv_transport *tops, int ntops, drv_place *pls);

/* Where the schedule comes from (--schedule) with the edits on top, for the
 * driver; explain: where its explanation goes, or NULL. */
void cli_run_origin(const run_args *ra, const ttnn_sched_opts *bo, const drv_transport *tops, const drv_place *pls,
                    lm_buf *explain, drv_origin *org);

#endif
