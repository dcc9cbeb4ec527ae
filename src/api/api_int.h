/* api_int.h - what the files of the public C API (include/loomc.h) share:
 * the context, the call wrapper every entry point goes through, and the
 * release of what a context compiled.
 *
 * Conventions: public names are loomc_* (declared in include/loomc.h), the
 * folder's own api_*. Every entry point that can fail runs its body
 * through api_call: it starts the call's diagnostics (the context's lm_diag
 * writes into the list instead of a stream), sets the calling thread's bug
 * trap (util/base.h) so that an LM_BUG becomes a LOOMC_INTERNAL diagnostic
 * instead of an exit, and refuses a context broken by an earlier bug.
 * api.c is the bottom file (context, diagnostics, api_call, release);
 * api_load.c (what to compile) and api_run.c (compile, lower, simulate,
 * emit) build on it.
 */
#ifndef LOOMC_API_INT_H
#define LOOMC_API_INT_H

#include "loomc.h"

#include "driver/driver.h"

typedef LM_VEC(fe_kv) api_kvs;

struct loomc_ctx {
    lm_arena ar;                  /* the settings' strings, for the context's life */
    /* diagnostics of the current call */
    lm_diag d;
    lm_arena diag_ar;
    LM_VEC(loomc_diag) diags;
    bool broken;                  /* an internal error happened: only free and diagnostics */
    /* what to compile */
    const char *kernel_name;      /* the file, or the name of a kernel given as text */
    char *kernel_text;            /* heap: a kernel given as text (NULL: read kernel_name) */
    const char *select;           /* loomc_select_kernel, or NULL */
    api_kvs shapes, consts;       /* names in ar */
    LM_VEC(const char *) includes;
    arch_desc *arch;
    bool have_fidelity, have_format;
    arch_fidelity fidelity;
    arch_format format;
    uint64_t seed;
    /* loomc_compile's results (job_live: r must be released) */
    bool job_live, compiled;
    drv_result r;
    lm_arena job_ar;
    loomc_schedule *scheds;
    int nscheds;
    loomc_tensor *tensors;
    int ntensors;
    /* loomc_lower's and loomc_simulate's (run_ar) */
    lm_arena run_ar;
    const char **programs;
    int nprograms;
    bool simulated;
    loomc_sim_result sim;
    LM_VEC(loomc_tensor) outputs;
};

/* The body of an entry point: LOOMC_OK, or LOOMC_EUSER after reporting
 * through c->d. */
typedef int (*api_fn)(loomc_ctx *c, const void *args);

/* Run fn(c, args) as entry point `fname` (for messages): a new list of
 * diagnostics, bugs caught. LOOMC_EUSER for a NULL context. */
int api_call(loomc_ctx *c, const char *fname, api_fn fn, const void *args);

/* Drop what the context compiled (and lowered and simulated). */
void api_drop_job(loomc_ctx *c);
/* Drop what it lowered and simulated only. */
void api_drop_run(loomc_ctx *c);

#endif
