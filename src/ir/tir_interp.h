/* tir_interp.h - the reference interpreter of the Tile IR: it runs a kernel's
 * tir_func for every program of its launch grid on host float arrays.
 *
 * `loomc run --check` compares what the generated dataflow program computes
 * with what the kernel itself means; this interpreter is that meaning. It
 * reads nothing but the Tile IR, so it works for any kernel the front end
 * accepts, and it is deliberately plain: tiles are dense arrays, a dot
 * accumulates exact products in double, every value of a bf16 or f16 tile is
 * rounded to its type. docs/tile-ir.md ("Reference interpreter") gives the
 * semantics op by op.
 *
 * A job of several launches (flash decode: split kernel, then combine
 * kernel through a scratch tensor) is run by calling tirx_run once per
 * launch, in order, over one array of tensors: pointer parameters find their
 * tensor by name, so the scratch tensor written by the first launch is the
 * one the second reads.
 */
#ifndef LOOMC_TIR_INTERP_H
#define LOOMC_TIR_INTERP_H

#include "ir/tir.h"

/* One tensor of the job, as host memory. Values are floats whatever the
 * element type; a bf16 or f16 tensor holds values already rounded to it (the
 * interpreter rounds what it stores), an integer tensor holds integers. */
typedef struct tirx_tensor {
    const tir_tensor *t;           /* the launch spec's tensor; matched by t->name */
    int rank;
    int64_t shape[TIR_MAX_RANK];   /* evaluated sizes */
    int64_t numel;
    float *data;                   /* numel values, row-major */
    float *terms;                  /* their term scales (a run with tirx_opts.terms), else NULL */
    bool owned;                    /* data was allocated by tirx_tensor_init */
} tirx_tensor;

/* Evaluate t's shape under `values` and allocate zeroed data (freed by
 * tirx_tensor_free). False, with the reason in `why`, if a size is unbound,
 * negative or too large. */
bool tirx_tensor_init(tirx_tensor *x, const tir_tensor *t, const sym_env *values, lm_buf *why);
void tirx_tensor_free(tirx_tensor *x);
/* The tensor of that name, or NULL. */
tirx_tensor *tirx_find(tirx_tensor *ts, int n, const char *name);
/* Fill with deterministic pseudo-random values in [-1, 1), rounded to the
 * tensor's element type (integers: small values in [-4, 4)). */
void tirx_tensor_fill_random(tirx_tensor *x, uint64_t seed);

/* A value as a tile of element type e holds it: bf16 and f16 round to
 * nearest even (f16 overflows to infinity and has subnormals), f32 is
 * unchanged, integer types truncate toward zero and wrap to their width
 * (i1 is v != 0). */
float tirx_round(tir_elem e, float v);

/* Run every program of f's grid (f->grid evaluated under `values`), in
 * row-major order of program ids, over `tensors`. `values` binds every
 * symbol the function uses: sizes, fixed and free constexprs. Integer scalar
 * parameters take the value of their symbol, float scalars tir_param.fval,
 * pointer parameters the tensor of their tir_tensor's name.
 *
 * Besides computing, the run checks what the rest of loomc assumes: every
 * integer scalar that carries a symbolic value (tir_value.sym) must equal it
 * with pid.N and iv.N bound to the current program and iteration; accesses
 * must stay inside their tensor and, on dimensions without boundary check,
 * inside the block pointer's shape; nothing may be stored into an input.
 * The first violation, a division by zero or anything unsupported stops the
 * run: false, with the program, op and reason in `why` (if not NULL).
 * Tensors may then be partly written. */
bool tirx_run(const tir_func *f, const sym_env *values, tirx_tensor *tensors, int ntensors, lm_buf *why);

/* Options of a run: the functions tl.exp and tl.exp2 compute (NULL: the C
 * library's expf and exp2f). A caller comparing with a simulation that uses
 * the chip's approximate exp passes that approximation, so the comparison
 * checks everything else at the format's tolerance.
 *
 * With `terms`, the run also computes every stored element's term scale
 * into its tensor's `terms` (allocated by the run, freed by
 * tirx_tensor_free): the root of the sum of the squares of the terms the
 * value is a sum of, written out down to the loaded values and the results
 * of functions other than sums and products (tir_interp.c gives the rules).
 * A tensor that has no `terms` yet starts with its values' magnitudes; one
 * that has keeps them, so a scratch tensor carries its scales from one
 * launch to the next. A sum's rounding errors scale with its terms, not
 * with its value, which cancellation can make small. */
typedef struct tirx_opts {
    float (*exp)(float);
    float (*exp2)(float);
    bool terms;
} tirx_opts;
bool tirx_run_opts(const tir_func *f, const sym_env *values, tirx_tensor *tensors, int ntensors, const tirx_opts *o,
                   lm_buf *why);

#endif
