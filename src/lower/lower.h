/* lower.h - the back end's API: a schedule becomes a dataflow program
 * (sched_lower, sched_lower_fused, sched_lower_launch), the lowering's L1
 * plan for the model (sched_lower_l1, sched_lower_l1_fused), and the DRAM
 * tile layout of tensors (sched_tensor_*), with which loomc run moves data
 * in and out. The names keep the sched_ prefix they had in sched.h. The L1
 * plan's types (sched_l1_plan) stay in sched.h: the scheduler reads them,
 * and nothing in src/sched/ includes this header. The header is sectioned
 * by implementing file. */
#ifndef LOOMC_LOWER_H
#define LOOMC_LOWER_H

#include "sched/sched.h"

struct df_program;

/* ======================================================================
 * layout.c - the DRAM tile layout of a tensor
 * ==================================================================== */

/* DRAM layout of a tensor in a lowered program (TT's tile layout): 2-D,
 * rows = the leading dimensions times dimension r-2 padded to 32, columns =
 * dimension r-1 padded to 32; a vector is one row. Padding holds zeros.
 * Folded (`fold`, tir_tensor.fold_rows): the leading dimensions and r-2
 * together form the rows, padded once (the tensor tilized as a matrix of
 * its rows). loomc run moves host data in and out with these. */
void sched_tensor_dims(const int64_t *shape, int rank, bool fold, int64_t *rows, int64_t *cols);
/* Row-major N-D data -> the rows x cols array (padding zeroed), and back. */
void sched_tensor_to_2d(const float *nd, const int64_t *shape, int rank, bool fold, float *flat);
void sched_tensor_from_2d(const float *flat, const int64_t *shape, int rank, bool fold, float *nd);
/* Whether tensor t must be stored folded for the accesses of a job (acc[0..n-1],
 * one per launch; sizes bound in `sizes`): some access moves rows of several
 * indices of its leading dimensions as one run (a view that merges them
 * into the row dimension), which the padded layout cannot place when
 * dimension r-2 is not a multiple of 32. Otherwise the padded layout. */
bool sched_tensor_folds(const tir_tensor *t, const acc_result *const *acc, int n, const sym_env *sizes);

/* ======================================================================
 * probe.c - the L1 plan for the model
 * ==================================================================== */

/* The L1 plan of the lowering, for the model: the kernel is lowered at a
 * probe schedule (one core, every axis in time, every load from DRAM,
 * block sizes that divide their dimensions) and every CB is recorded with
 * the expressions its pages were computed from, so that the model's L1
 * total and the lowering's allocation are one rule. What values decide
 * beyond sizes - a block a boundary check cuts short, a loop of one trip,
 * a reduction over a partial tile - is recorded with an indicator; free
 * constexprs that may be 1 (a dimension of extent 1 is dropped) get one
 * probe per case. Sets k->cb_bytes, k->cb_count and k->l1; false (and
 * nothing set) when the kernel does not lower at a probe. */
bool sched_lower_l1(sched_kernel *k, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar);

/* The same for a fused pair (f, producer ka, consumer kb): the pair is
 * lowered as one program at a probe (the gather axis along x, its programs
 * on one row, everything else in time) and a reducer core's CBs - both
 * kernels', the consumer's values in the producer's CBs where the lowering
 * puts them - are recorded, ka's depths prefixed with pa and kb's with pb,
 * the passed blocks' pages as tiles x SCHED_FUSED_PROGRAMS. Sets f->cb_bytes,
 * f->cb_count and f->l1; false (the lowering's message in why) when the
 * pair does not lower at a probe. */
bool sched_lower_l1_fused(sched_fusion *f, const sched_kernel *ka, const sched_kernel *kb, const char *pa,
                          const char *pb, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar,
                          lm_buf *why);

/* ======================================================================
 * lower.c, fused.c - a schedule becomes a dataflow program
 * ==================================================================== */

/* The same lowering serves every kernel and every origin of schedule.
 * `s->values` must bind every symbol the kernel uses (sizes included). The
 * program is bound (df_bind) and ready for df_validate; NULL after an
 * error reported through d. Tensors keep the launch spec's names. */
struct df_program *sched_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                               lm_diag *d);
/* A fused pair as one program: producer ka with schedule sa (fuse ==
 * SCHED_FUSE_PRODUCER) and consumer kb with sb (SCHED_FUSE_CONSUMER) of
 * fusion f. Every core runs the producer's programs; each producer sends its
 * passed blocks, row by row, to the reducer of its group (the first core of
 * its row or column), which runs the consumer's programs of that group
 * after its own. */
struct df_program *sched_lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                     const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc,
                                     lm_diag *d);
/* Lower launch l of a job (k[0..n-1], s[0..n-1]): alone, or with launch l+1
 * when their schedules are a fused pair (then *covered is 2, else 1). */
struct df_program *sched_lower_launch(const sched_kernel *const *k, const sched_schedule *const *s, int n, int l,
                                      const arch_desc *a, sym_ctx *sc, lm_diag *d, int *covered);

#endif
