/* emit.h - the TT-Metalium back end: the dataflow programs of a job become a
 * tt-metal program for a card - a host program, one reader, one compute and
 * one writer kernel source per core class and launch, the helpers they share
 * and a CMake file (docs/emit.md gives the layout, the API release it targets
 * and every function it uses).
 *
 * The emitter takes what the simulator takes - validated df_programs and the
 * chip's description - and nothing of the scheduler: what the schedule chose
 * reaches the sources as text (emit_job.schedule), written into a header of
 * named constants and comments. Every dataflow construct either has its
 * translation or is refused with an error that names it and its line; the
 * output is a set of files in memory, byte-identical for the same job, which
 * emit_write writes into a directory.
 */
#ifndef LOOMC_EMIT_H
#define LOOMC_EMIT_H

#include "df/df.h"

/* One emitted file: its path inside the output directory and its text. */
typedef struct emit_file {
    char *name;
    lm_buf text;
} emit_file;

typedef struct emit_set {
    emit_file *files;
    int n, cap;
} emit_set;

/* A named value of the schedule (a block size, a grid extent, a depth), with
 * where it comes from: the kernel's symbol and why the solver chose it. */
typedef struct emit_value {
    const char *name;   /* as the schedule names it: BLOCK_M, grid.x, depth.a */
    int64_t value;
    const char *why;    /* one line (NULL: none) */
} emit_value;

typedef struct emit_job {
    const df_program *const *programs; /* the launches in order (a fused pair is one) */
    int nprograms;
    const arch_desc *arch;
    const char *kernel;    /* the kernel file's base name, for comments */
    const char *shape;     /* "M=256,N=256,K=256", for comments */
    const char *origin;    /* where the schedule came from: "loomc", "ttnn", a plan file */
    const char *explain;   /* why this schedule, as loomc compile --explain prints it (NULL: none) */
    const emit_value *values;
    int nvalues;
} emit_job;

/* Translate the job. Errors (a construct without a translation, a CB that
 * two exchanging classes declare differently) go to d as
 * `file:line:col: error:` at the construct; returns false and leaves out
 * empty (to be freed either way). */
bool emit_job_files(emit_set *out, const emit_job *j, lm_diag *d);
/* Write every file below dir (created, with its subfolders, when missing).
 * False after reporting the first file that cannot be written. */
bool emit_write(const emit_set *s, const char *dir, lm_diag *d);
void emit_set_free(emit_set *s);

#endif
