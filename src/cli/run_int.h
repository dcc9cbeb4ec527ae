/* run_int.h - what cmd_run.c and run_edits.c share: the command line of
 * 'loomc run' as read (run_args) and the readers of its schedule options. */
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
    bool check, timing_only, json, exact_exp, print, no_fuse, explain;
    uint64_t seed;
    bool have_fidelity, have_format;
    arch_fidelity fidelity;
    arch_format fmt;
} run_args;

/* KEY=VALUE[,...] appended to v (--place, --transport); false after reporting. */
bool cli_run_parse_pairs(const char *opt, const char *text, sp_vec *v, lm_arena *a);
/* TTNN's options: the fidelity, and an SDPA program config; false after
 * reporting. */
bool cli_run_ttnn_options(const run_args *ra, ttnn_sched_opts *bo);
/* --transport and --place, read for the driver; false after reporting. */
bool cli_run_edit_options(const run_args *ra, drv_transport *tops, int ntops, drv_place *pls);

#endif
