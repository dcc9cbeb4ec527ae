/* sched_int.h - the latency model's state and the helpers its files share
 * (internal to src/sched/; the API is sched.h).
 *
 * Conventions of the model's files (model.c, which builds a candidate's
 * problem, and lowered.c, which prices the lowering's decisions in it):
 *  - `mctx` is the state of one candidate's model, always named `c`; the
 *    small helpers below (K, add, mul, mx, cdv, fix, xfer, ...) build its
 *    symbolic expressions in c's context.
 *  - Rates and per-tile costs are in thousandths (milli), divided back with
 *    cdiv as a transfer finishes on the cycle after its last byte.
 *  - Shared functions carry the prefix sched_; everything else stays static
 *    in its file.
 */
#ifndef LOOMC_SCHED_INT_H
#define LOOMC_SCHED_INT_H

#include "sched/sched.h"

#include <math.h>
#include <stdio.h>

typedef struct mctx {
    sched_model *m;
    const sched_kernel *k;
    const sched_candidate *c;
    const arch_desc *a;
    const sym_env *bound;
    const char *prefix;
    sym_ctx *s;
    lm_arena *ar;
    LM_VEC(solve_var) vars;
    LM_VEC(solve_constraint) cons;
    const sym_expr *gx, *gy, *cores, *waves;
    const sym_expr *nprog[TIR_MAX_GRID];
    const sym_expr *trips[SCHED_MAX_LOOPS]; /* effective trips of the busiest core's programs */
    const sym_expr *wg[TIR_MAX_GRID], *gs[TIR_MAX_GRID]; /* busiest_trips' programs and cores by axis */
    const sym_expr **masked; /* by sched_kernel.lowered: a SPLIT's trips that keep the mask (busiest core) */
    const sym_expr *subh, *subw;
    const sym_expr *depth[SCHED_MAX_BUFS];
    int64_t legs[2][2][ARCH_MAX_GRID + 1]; /* sched_leg_load by NoC, leg and cores, plus 1 (0: not yet) */
    /* a fused candidate: the pair, the other launch's kernel, candidate (for
       a consumer: a producer it pairs with) and variable prefix */
    const sched_fusion *fz;
    const sched_kernel *ok;
    const sched_candidate *oc;
    const char *oprefix;
    const sym_expr *groups;  /* a fused consumer: the groups a reducer's row (column) runs */
    const sym_expr *exposed; /* sched_model.exposed, summed over the levels */
} mctx;

/* ---- small helpers ---------------------------------------------------- */

static inline const sym_expr *K(mctx *c, int64_t v) { return sym_const(c->s, v); }
static inline const sym_expr *add(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_add(c->s, a, b); }
static inline const sym_expr *sub(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_sub(c->s, a, b); }
static inline const sym_expr *mul(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_mul(c->s, a, b); }
static inline const sym_expr *mx(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_max(c->s, a, b); }
static inline const sym_expr *mn(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_min(c->s, a, b); }
static inline const sym_expr *cdv(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_cdiv(c->s, a, b); }
static inline const sym_expr *fdv(mctx *c, const sym_expr *a, const sym_expr *b) { return sym_floordiv(c->s, a, b); }

/* Sizes and pinned constexprs substituted: what the solver sees. */
static inline const sym_expr *fix(mctx *c, const sym_expr *e) { return c->bound ? sym_subst(c->s, e, c->bound) : e; }

/* A rate or a per-tile cost in thousandths. */
static inline int64_t milli(double x) { return (int64_t)llround(x * 1000.0); }

/* Cycles to move `bytes` at `bpc` bytes/cycle. */
static inline const sym_expr *xfer(mctx *c, const sym_expr *bytes, double bpc)
{
    return cdv(c, mul(c, bytes, K(c, 1000)), K(c, LM_MAX(milli(bpc), 1)));
}

/* One tile op of a level as the compute engine's three stages see it: a
 * work op, or the work ops of a chain in Dst (the lowering's, from
 * sched_lower_l1) as the one tile op the lowering emits. */
enum { MAX_CHAINED = 16 };
typedef struct opcost {
    const sched_work_op *o;
    const tir_op *ops[MAX_CHAINED]; /* its Tile IR ops (several when chained) */
    int nops;
    bool dead;              /* merged into the chain that takes its result */
    const sym_expr *unpack; /* bytes */
    const sym_expr *math;   /* thousandths of a cycle */
    const sym_expr *pack;   /* bytes */
    const sym_expr *chunks; /* sub-blocks or Dst batches (>= 1) */
    const sym_expr *batches;/* Dst hand-offs */
    bool gone;              /* the lowering emits nothing for it (sched_lowered): free, but ops
                               reading its result still wait for what it reads */
} opcost;

/* ---- lowered.c -------------------------------------------------------- */

/* Fold each of the lowering's chains in Dst (sched_kernel.chain_from/to)
 * into one tile op of oc[0..n-1]; the op it absorbs is marked dead. */
void sched_merge_chains(mctx *c, opcost *oc, int n);
/* Price the lowering's other decisions (sched_kernel.lowered) in
 * oc[0..n-1]: ops it folds away, row sums the packer accumulates. */
void sched_lowered_ops(mctx *c, opcost *oc, int n, int level);

#endif
