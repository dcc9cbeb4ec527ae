/* api.c - the bottom of the public C API (include/loomc.h): the context,
 * its diagnostics as a list, and api_call, through which every entry point
 * runs so that nothing is printed and no bug exits the process. */
#include "api/api_int.h"

#include <stdlib.h>
#include <string.h>

const char *loomc_version(void) { return LOOMC_VERSION; }

loomc_ctx *loomc_ctx_new(void)
{
    loomc_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    lm_arena_init(&c->ar);
    lm_arena_init(&c->diag_ar);
    lm_arena_init(&c->job_ar);
    lm_arena_init(&c->run_ar);
    lm_diag_init(&c->d, NULL);
    return c;
}

void api_drop_run(loomc_ctx *c)
{
    lm_arena_free(&c->run_ar);
    c->programs = NULL;
    c->nprograms = 0;
    c->simulated = false;
    memset(&c->sim, 0, sizeof c->sim);
    LM_VEC_FREE(&c->outputs);
}

void api_drop_job(loomc_ctx *c)
{
    api_drop_run(c);
    if (c->job_live)
        drv_free(&c->r);
    c->job_live = c->compiled = false;
    lm_arena_free(&c->job_ar);
    c->scheds = NULL;
    c->tensors = NULL;
    c->nscheds = c->ntensors = 0;
}

void loomc_ctx_free(loomc_ctx *c)
{
    if (!c)
        return;
    /* after a bug the compilation may be half-built: it is left as it is */
    if (!c->broken)
        api_drop_job(c);
    else
        api_drop_run(c);
    if (c->arch)
        arch_free(c->arch);
    free(c->kernel_text);
    LM_VEC_FREE(&c->shapes);
    LM_VEC_FREE(&c->consts);
    LM_VEC_FREE(&c->includes);
    LM_VEC_FREE(&c->diags);
    lm_arena_free(&c->diag_ar);
    lm_arena_free(&c->ar);
    free(c);
}

/* ---- diagnostics --------------------------------------------------------- */

static void add_diag(loomc_ctx *c, loomc_severity sev, const char *file, int line, int col, const char *msg)
{
    loomc_diag g = {sev, file ? lm_arena_strdup(&c->diag_ar, file) : NULL, line, col,
                    lm_arena_strdup(&c->diag_ar, msg)};
    LM_PUSH(&c->diags, g);
}

/* lm_diag's sink: every message of the call into the list */
static void sink(void *ctx, const char *kind, lm_loc loc, const char *msg)
{
    loomc_severity sev = !strcmp(kind, "error") ? LOOMC_ERROR : !strcmp(kind, "warning") ? LOOMC_WARNING : LOOMC_NOTE;
    add_diag(ctx, sev, loc.file, loc.file ? loc.line : 0, loc.file && loc.line > 0 ? loc.col : 0, msg);
}

int loomc_diag_count(const loomc_ctx *c) { return c ? (int)c->diags.len : 0; }

const loomc_diag *loomc_diag_get(const loomc_ctx *c, int i)
{
    return c && i >= 0 && (size_t)i < c->diags.len ? &c->diags.items[i] : NULL;
}

/* ---- the call wrapper ---------------------------------------------------- */

static void start_call(loomc_ctx *c)
{
    c->diags.len = 0;
    lm_arena_free(&c->diag_ar);
    lm_diag_init(&c->d, NULL);
    c->d.sink = sink;
    c->d.sink_ctx = c;
    c->d.no_caret = true;
}

int api_call(loomc_ctx *c, const char *fname, api_fn fn, const void *args)
{
    if (!c)
        return LOOMC_EUSER;
    start_call(c);
    if (c->broken) {
        add_diag(c, LOOMC_INTERNAL, NULL, 0, 0,
                 lm_arena_printf(&c->diag_ar, "%s: the context is unusable after an internal error", fname));
        return LOOMC_EINTERNAL;
    }
    lm_bug_trap trap;
    lm_bug_trap *outer = lm_bug_trap_swap(&trap);
    int rc;
    if (setjmp(trap.env) == 0) {
        rc = fn(c, args);
        if (rc == LOOMC_OK && c->d.nerrors)
            rc = LOOMC_EUSER;
    } else {
        /* the trap was cleared by the bug; what the call built is left */
        c->broken = true;
        add_diag(c, LOOMC_INTERNAL, trap.file, trap.line, 0,
                 lm_arena_printf(&c->diag_ar, "internal error (a bug in loomc) in %s: %s", fname, trap.msg));
        rc = LOOMC_EINTERNAL;
    }
    lm_bug_trap_swap(outer);
    return rc;
}
