/* access.h - access analysis: for every block load and store of a kernel,
 * the affine map from (program ids, loop iteration indices) to the block's
 * element offsets in each tensor dimension, and the grid axes the access
 * does not depend on. An operand that does not depend on grid axis g is
 * read identically by every program along g: that reuse is what the
 * scheduler turns into multicast or core-to-core forwarding.
 *
 * Variables are the Tile IR's `pid.N` (program id along grid axis N) and
 * `iv.N` (iteration index of loop N, counting 0, 1, 2, ... whatever the
 * loop's lo and step); coefficients are symbolic (e.g. BLOCK_M).
 */
#ifndef LOOMC_ACCESS_H
#define LOOMC_ACCESS_H

#include "ir/tir.h"

enum { ACC_MAX_TERMS = 8, ACC_MAX_LOOPS = 8 };

/* coeff * var */
typedef struct acc_term {
    const sym_expr *var;   /* pid.N or iv.N */
    const sym_expr *coeff; /* free of every pid/iv variable */
} acc_term;

/* The offset of the block along one tensor dimension. */
typedef struct acc_dim {
    const sym_expr *offset; /* the full symbolic offset (always set when known) */
    bool affine;            /* offset = sum(terms) + constant */
    acc_term terms[ACC_MAX_TERMS];
    int nterms;
    const sym_expr *constant; /* free of pid/iv variables */
} acc_dim;

typedef struct acc_access {
    tir_op *op;                /* LOAD, STORE, DESC_LOAD, DESC_STORE */
    bool is_store;
    const tir_tensor *tensor;  /* NULL if it could not be traced to a tensor */
    int rank;
    const sym_expr *const *block; /* block shape, rank entries */
    const sym_expr *const *extent; /* the extent of each of those dimensions: the tensor's, or the
                                      view's where the offsets are a view's; NULL if unknown */
    acc_dim dims[TIR_MAX_RANK];
    tir_op *loops[ACC_MAX_LOOPS]; /* enclosing FOR ops, outermost first */
    int nloops;
    unsigned grid_dep;         /* bit g: the offsets depend on pid.g */
    unsigned loop_dep;         /* bit i: the offsets depend on loops[i]'s iv */
    unsigned reuse;            /* bit g (g < grid rank): independent of pid.g */
    bool affine;               /* every dim affine */
} acc_access;

typedef struct acc_result {
    acc_access *acc;
    int n;
} acc_result;

/* Analyse every block load and store of f. Never fails: what is not affine
 * is marked so. */
acc_result *acc_analyze(const tir_func *f, sym_ctx *s, lm_arena *a);
/* Stable text, e.g.
 *   load a  block [BLOCK_M, BLOCK_K]  at [BLOCK_M*pid.0, BLOCK_K*iv.0]
 *     depends on grid axes {0}, loops {iv.0}; reused along grid axis 1 (cdiv(N, BLOCK_N)) */
void acc_print(lm_buf *b, const tir_func *f, const acc_result *r);

#endif
