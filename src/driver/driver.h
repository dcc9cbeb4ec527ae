/* driver.h - one compilation, start to finish: the pass order of loomc in
 * one place. Commands (loomc ir, and the scheduling commands that follow)
 * call drv_compile and read what each stage produced from the result.
 *
 * Pass order: read the file -> fe_lex/fe_parse -> fe_names_init ->
 * fe_read_launch -> for each selected launch: fe_check -> tir verify ->
 * acc_analyze. Later stages append their passes to drv_compile.
 */
#ifndef LOOMC_DRIVER_H
#define LOOMC_DRIVER_H

#include "../analysis/access.h"
#include "../front/front.h"

typedef struct drv_opts {
    const char *path;        /* the kernel file */
    fe_launch_opts launch;   /* --shape, --const, --kernel */
} drv_opts;

/* What the compilation of one launch produced. */
typedef struct drv_launch {
    const fe_launch *launch;
    tir_func *func;
    acc_result *access;
} drv_launch;

typedef struct drv_result {
    /* everything below lives in the arena, except the source text (heap)
       and the symbol context, both released by drv_free */
    lm_arena arena;
    sym_ctx *sym;
    char *src;
    size_t len;
    fe_module *mod;
    fe_names names;
    fe_spec *spec;
    drv_launch *launches; /* the selected launches, in spec order */
    int nlaunches;
} drv_result;

/* Compile. Errors are reported through d (the file's text is registered
 * with d, so messages quote the line); returns false after the first one.
 * r is filled as far as the compilation got and must be released with
 * drv_free in either case, after d is no longer used. */
bool drv_compile(drv_result *r, const drv_opts *o, lm_diag *d);
void drv_free(drv_result *r);

#endif
