/* target.c - the job for a card instead of the simulator (drv_emit): lower
 * each launch as drv_simulate does (a fused pair is one program), validate
 * it, and hand the programs with the schedule's values and explanation to
 * the TT-Metalium emitter, which writes the program directory. */
#include "driver/driver.h"

#include "df/df.h"
#include "emit/emit.h"
#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

/* The schedule's values, each once by name (launches that share a symbol
 * share its value), in the order of the schedules. */
static int schedule_values(const sched_schedule *const *s, int n, emit_value *out, int cap, lm_arena *ar)
{
    int nv = 0;
    for (int l = 0; l < n; l++)
        for (int i = 0; i < s[l]->values.n && nv < cap; i++) {
            const sym_binding *bd = &s[l]->values.b[i];
            if (bd->lo != bd->hi)
                continue;
            lm_buf name = {0};
            sym_print(&name, bd->var);
            bool seen = false;
            for (int j = 0; j < nv && !seen; j++)
                seen = !strcmp(out[j].name, lm_buf_str(&name));
            if (!seen)
                out[nv++] = (emit_value){lm_arena_strdup(ar, lm_buf_str(&name)), bd->lo, NULL};
            lm_buf_free(&name);
        }
    return nv;
}

bool drv_emit_programs(const df_program *const *p, int n, const arch_desc *a, const char *source, const char *dir,
                       lm_diag *d)
{
    const char *base = strrchr(source, '/');
    emit_job j = {.programs = p, .nprograms = n, .arch = a, .kernel = base ? base + 1 : source,
                  .shape = "as the program gives it", .origin = "the dataflow program as written"};
    emit_set files = {0};
    bool ok = emit_job_files(&files, &j, d) && emit_write(&files, dir, d);
    emit_set_free(&files);
    return ok;
}

bool drv_lower_job(df_program **out, int *nout, const sched_kernel *const *k, const sched_schedule *const *s, int n,
                   const arch_desc *a, sym_ctx *sc, lm_diag *d)
{
    *nout = 0;
    for (int l = 0, cov = 1; l < n && *nout < SCHED_MAX_LAUNCHES; l += cov) {
        df_program *p = sched_lower_launch(k, s, n, l, a, sc, d, &cov);
        if (!p || !df_validate(p, a, d)) {
            df_free(p);
            return false;
        }
        out[(*nout)++] = p;
    }
    return true;
}

bool drv_emit(const drv_emit_opts *o, const sched_kernel *const *k, const sched_schedule *const *s, int n,
              const arch_desc *a, sym_ctx *sc, lm_diag *d)
{
    df_program *progs[SCHED_MAX_LAUNCHES];
    int np = 0;
    bool ok = drv_lower_job(progs, &np, k, s, n, a, sc, d);
    lm_arena ar;
    lm_arena_init(&ar);
    emit_value values[256];
    emit_job j = {.programs = (const df_program *const *)progs, .nprograms = np, .arch = a, .kernel = o->kernel,
                  .shape = o->shape, .origin = o->origin, .explain = o->explain ? lm_buf_str(o->explain) : NULL,
                  .values = values, .nvalues = schedule_values(s, n, values, (int)LM_COUNT(values), &ar)};
    emit_set files = {0};
    ok = ok && emit_job_files(&files, &j, d) && emit_write(&files, o->dir, d);
    emit_set_free(&files);
    lm_arena_free(&ar);
    for (int i = 0; i < np; i++)
        df_free(progs[i]);
    return ok;
}
