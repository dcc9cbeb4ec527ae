/* driver.c - the pass order of one compilation (declared in driver.h). */
#include "driver.h"

#include <stdlib.h>
#include <string.h>

bool drv_compile(drv_result *r, const drv_opts *o, lm_diag *d)
{
    memset(r, 0, sizeof *r);
    lm_arena_init(&r->arena);
    r->sym = sym_ctx_new();

    char why[512];
    r->src = lm_read_file(o->path, &r->len, why, sizeof why);
    if (!r->src) {
        lm_error_plain(d, "%s", why);
        return false;
    }
    lm_diag_add_source(d, o->path, r->src, r->len);

    /* syntax */
    r->mod = fe_parse(o->path, r->src, r->len, &r->arena, d);
    if (!r->mod || d->nerrors)
        return false;

    /* names and the launch spec */
    fe_names_init(&r->names, r->mod, &r->arena);
    r->spec = fe_read_launch(&r->names, &o->launch, r->sym, &r->arena, d);
    if (!r->spec)
        return false;

    /* per launch: Tile IR, then analyses */
    r->launches = LM_NEWN(&r->arena, drv_launch, r->spec->nlaunches ? r->spec->nlaunches : 1);
    for (int i = 0; i < r->spec->nlaunches; i++) {
        const fe_launch *l = &r->spec->launches[i];
        if (!l->selected)
            continue;
        drv_launch *dl = &r->launches[r->nlaunches++];
        dl->launch = l;
        dl->func = fe_check(&r->names, r->spec, l, r->sym, &r->arena, d);
        if (!dl->func)
            return false;
        tir_verify_or_bug(dl->func, "checking");
        dl->access = acc_analyze(dl->func, r->sym, &r->arena);
    }
    return true;
}

void drv_free(drv_result *r)
{
    fe_spec_free(r->spec);
    lm_arena_free(&r->arena);
    if (r->sym)
        sym_ctx_free(r->sym);
    free(r->src);
    memset(r, 0, sizeof *r);
}
