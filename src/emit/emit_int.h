/* emit_int.h - what the TT-Metalium emitter's files share.
 *
 * Conventions: the emitter reads validated df_programs and never changes
 * them. Text is built in lm_bufs; a kernel's variables are its df slots,
 * printed by name (emit_name: a name that is a C++ keyword or one of the
 * kernel API's gets a trailing '_'), and expressions are printed as C++ over
 * int32_t with the dataflow program's floor division and modulo as calls of
 * loomc::fdiv / loomc::fmod (emit_expr). Files are added to the set in the
 * order they are written, so the set is deterministic. Layering inside the
 * folder: emit_text.c (names, expressions, the file set) < emit_rt.c (the
 * helper headers' text) < emit_compute.c (compute ops) < emit_kernel.c
 * (kernel sources) < emit_host.c (the
 * host program, CMake) < emit.c (the job, writing the directory).
 */
#ifndef LOOMC_EMIT_INT_H
#define LOOMC_EMIT_INT_H

#include "emit/emit.h"

/* ---- emit_text.c ---------------------------------------------------------- */

/* A df slot's name in C++ (c: the class; slots past the class are "?"). */
const char *emit_name(const df_class *c, int slot);
/* An expression as C++ (kernel side: int32_t, loomc:: helpers). */
void emit_expr(lm_buf *b, const df_class *c, const df_expr *e);
/* The same on the host side (int64_t, the host helpers), for runtime args. */
void emit_host_expr(lm_buf *b, const df_class *c, const df_expr *e);
/* A new file of the set; its text is appended to by the caller. */
lm_buf *emit_add_file(emit_set *s, const char *name);
/* tt-metal's DataFormat enumerator of a tile format (NULL: none emitted). */
const char *emit_format(arch_format f);
/* Whether a cb_swap of class c's compute kernel renames CB id; such a CB
 * is a variable of the kernel (loomc_cb<id>), the others are literals. */
bool emit_cb_swapped(const df_class *c, int id);
/* CB id as the kernel names it. */
void emit_cb(lm_buf *b, const df_class *c, int id);
/* Whether class c sends elements (send_elems) into CB id of another core:
 * the CB then exists on c's cores too, unused, so that it has the same
 * address there as on the receiver and c's kernels can compute it. */
bool emit_sends_elems_to(const df_class *c, int id);
/* Whether CB id exists on class c's cores: declared, or sent into. */
bool emit_class_has_cb(const df_class *c, int id);
/* A kernel source's file name: l<launch>_<class>_<kind>.cpp. */
void emit_kernel_file(lm_buf *b, int launch, const df_class *c, df_kernel_kind k);

/* ---- emit_rt.c ------------------------------------------------------------ */

/* The helper headers that every emitted program carries, by name. */
extern const char *const emit_rt_names[];
extern const char *const *const emit_rt_texts[];
extern const int emit_rt_count;

/* ---- the extra CBs (emit_compute.c) ------------------------------------------ */

/* CBs a class needs beyond its program's, for the compute ops' translations
 * (-1: not needed): the unit tile row reductions scale by (bf16, 1 page),
 * the fp32 page a folded row sum goes through, and the two index tiles
 * masks compare (fp32, 2 pages, made by the reader). */
typedef struct emit_extras {
    int scaler, fold, iota;
} emit_extras;

/* ---- emit_compute.c -------------------------------------------------------- */

/* The extra CBs class c needs, at ids its program leaves free; false after
 * reporting when there are not enough free ids. */
bool emit_class_extras(const df_program *p, const df_class *c, const arch_desc *a, emit_extras *x, lm_diag *d);
/* Whether compute op st (not matmul) has a translation as it stands;
 * false after reporting what it lacks. */
bool emit_compute_ok(const df_program *p, const df_class *c, const df_stmt *st, lm_diag *d);
/* The translation of compute op st (not matmul, not a CB op) at depth. */
void emit_compute_stmt(lm_buf *b, int depth, const df_program *p, const df_class *c, const df_stmt *st,
                       const emit_extras *x);

/* ---- emit_kernel.c ---------------------------------------------------------- */

/* What the host must know of one kernel to create it: its compile-time args
 * are the semaphores' ids (in df order, then the scratch semaphore of a
 * kernel that multicasts a semaphore), its common runtime args the DRAM
 * tensors it reaches (addresses, in df tensor order) then, if it talks to
 * other cores, the NoC columns and rows of the grid. */
typedef struct emit_kinfo {
    bool present;           /* the kernel has statements */
    bool tensors[1024];     /* df tensors it reads or writes (df limit: 1024) */
    bool noc;               /* it sends to other cores: the NoC tables follow */
    bool scratch_sem;       /* it multicasts a semaphore: one scratch semaphore */
    bool approx_exp;        /* compute: an exp in the chip's approximate mode */
} emit_kinfo;

/* The source of kernel k of class c of program p (launch `launch`), its
 * facts in info. False after reporting a construct with no translation. */
bool emit_kernel(lm_buf *out, const df_program *p, int launch, const df_class *c, df_kernel_kind k,
                 const arch_desc *a, const emit_extras *x, emit_kinfo *info, lm_diag *d);

/* ---- emit_host.c ----------------------------------------------------------- */

/* One launch as the host creates it: its program and what the kernel
 * emitter found out about each class's kernels. */
typedef struct emit_launch {
    const df_program *p;
    emit_kinfo (*kinfo)[DF_NKERNELS]; /* per class */
    emit_extras *extras;              /* per class */
} emit_launch;

void emit_host(lm_buf *out, const emit_job *j, const emit_launch *l, int n);
void emit_cmake(lm_buf *out, const emit_job *j, const emit_launch *l, int n);
void emit_schedule_header(lm_buf *out, const emit_job *j);
void emit_readme(lm_buf *out, const emit_job *j);

#endif
