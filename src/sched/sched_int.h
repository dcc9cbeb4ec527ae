/* sched_int.h - the latency model's state and the helpers its files share
 * (internal to src/sched/; the API is sched.h).
 *
 * Conventions of the model's files (model.c, which builds a candidate's
 * problem, busiest.c, the busiest core's counts in it, and lowered.c,
 * which prices the lowering's decisions in it):
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
    /* of those, the trips it computes: less where a loop is stretched over a
       sharing group (sched_stretched_axes) and the others only move data */
    const sym_expr *live[SCHED_MAX_LOOPS];
    /* per loop of the program body: the trips the busiest core's programs
       run past waves x trips, their ceilings rounding each on its own
       (busiest_rounding); NULL where not known */
    const sym_expr *extra[SCHED_MAX_LOOPS];
    const sym_expr *wg[TIR_MAX_GRID], *gs[TIR_MAX_GRID]; /* sched_busiest_trips' programs and cores by axis */
    /* per loop of the program body whose trips some programs of axis
       active_g[i] do not run at all (a sequence split into more parts than
       it has blocks): the programs of that axis with a trip, and the trips
       of all programs of the axis added up; NULL elsewhere */
    const sym_expr *active[SCHED_MAX_LOOPS], *trip_sum[SCHED_MAX_LOOPS];
    int active_g[SCHED_MAX_LOOPS];
    const sym_expr **masked; /* by sched_kernel.lowered: a SPLIT's trips that keep the mask (busiest core) */
    const sym_expr **clip_kept; /* per access: the trips that keep its masked copy (busiest core; NULL:
                                   every trip), from sched_kernel.acc_clip_kept */
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

/* A tile op whose unpack, math and pack take u, m and p cycles, in `chunks`
 * chunks of `steps` units each (a matmul's tile products, else its input
 * tiles): its first chunk passes all three stages and the rest stream at
 * the slowest, max(u, m, p) + fill / chunks. Math follows the unpacker unit
 * by unit through the source registers and pack takes the chunk after math
 * (Dst's halves), so the first chunk takes max(u + m / s, u / s + m) + p,
 * less the slowest stage: the two smaller stages, a slower unpack or math
 * counting only one unit of the other -
 *     fill = min(max(u + m/s, u/s + m), u/s + p, m/s + p)
 * (each term the fill where p, m or u is the slowest, and the least of the
 * three; with s = 1 the two smaller stages added up). Written without
 * subtracting correlated terms, for the solver's bounds. *slow gets the
 * slowest stage. */
static inline const sym_expr *sched_op_time(mctx *c, const sym_expr *u, const sym_expr *m, const sym_expr *p,
                                            const sym_expr *chunks, const sym_expr *steps, const sym_expr **slow)
{
    *slow = mx(c, mx(c, u, m), p);
    const sym_expr *us = steps ? cdv(c, u, steps) : u, *ms = steps ? cdv(c, m, steps) : m;
    const sym_expr *um = mx(c, add(c, u, ms), add(c, us, m));
    const sym_expr *fill = mn(c, mn(c, um, add(c, us, p)), add(c, ms, p));
    return add(c, *slow, cdv(c, fill, chunks));
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
    const sym_expr *steps;  /* units per chunk math takes one by one from the unpacker (>= 1; NULL: 1) */
    const sym_expr *batches;/* Dst hand-offs */
    bool gone;              /* the lowering emits nothing for it (sched_lowered): free, but ops
                               reading its result still wait for what it reads */
    const sym_expr *gone_when; /* NULL, or 1 where it emits nothing (a GONE with a `when`) */
    /* the tile ops the lowering runs for it before its last, each waiting
       for the one before (SCHED_LOWER_PASSES; NULL: none): how many, their
       latency along the chain, the unpacker's share of it and their slowest
       stages added up, and for the threads' totals the bytes each unpacks
       and packs, their math (thousandths) and Dst batches */
    const sym_expr *npass, *pass_chain, *pass_unpack, *pass_top;
    const sym_expr *pass_bytes, *pass_math, *pass_batches;
} opcost;

/* ---- the context's shared answers (model.c and transfer.c) ------------------ */

/* The candidate's operand that buffer b loads or stores (NULL: none). */
static inline const sched_operand *sched_operand_of(mctx *c, const sched_buf *b)
{
    for (int i = 0; i < c->c->nops; i++)
        if (c->c->ops[i].access == b->access)
            return &c->c->ops[i];
    return NULL;
}

/* The consumer's programs of one group: the product of its local axes. */
static inline const sym_expr *sched_group_programs(mctx *c, const sched_kernel *cons)
{
    const sym_expr *n = K(c, 1);
    for (int g = 0; g < cons->f->grid_rank; g++)
        if (c->fz->key_of[g] < 0)
            n = mul(c, n, fix(c, cons->f->grid[g]));
    return n;
}

/* A producer's core dimension along the gather axis: its grid variable. */
static inline const sym_expr *sched_other_grid(mctx *c, sched_place along)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%sgrid.%s", c->oprefix, along == SCHED_ON_X ? "x" : "y");
    return sym_var(c->s, buf);
}

/* 1 when buffer i is single-buffered (depth 1), else 0: max(0, 2 - depth);
 * 1 for an OUT whose depth is not a variable (it holds one block). */
static inline const sym_expr *sched_single(mctx *c, int i)
{
    return c->depth[i] ? mx(c, K(c, 0), sub(c, K(c, 2), c->depth[i])) : K(c, 1);
}

/* ---- transfer.c: one block's transfer -------------------------------------- */

/* A transfer's cycles per execution of its level, at its first execution
 * and, for a forwarding chain, its fill. */
typedef struct stage {
    const sym_expr *cycles;
    const sym_expr *fill;  /* once per execution of the level (forward chains) */
    const sym_expr *first; /* the first execution, when every core reads at once (set by the caller) */
    const sym_expr *banks; /* a DRAM read: the banks' worth of bandwidth its readers get at once, where less
                              than all can be (banks_hit) */
    const sym_expr *press; /* a DRAM read: its times on the shared links and banks added up, where the
                              stage takes their maximum (NULL: none); separates equal maxima */
    const sym_expr *local; /* a DRAM load of a loop: the reader's own time on a block that is there
                              (its commands or its rate, and the handshake; NULL elsewhere) */
    const sym_expr *lat;   /* with local: the round trip's latency, part of first */
    const sym_expr *xfer;  /* a read from DRAM (a shared load: its sender's): its transfer, the
                              slowest of its own rate, its links and the banks (NULL: none) */
    const sym_expr *bank;  /* and the time its readers' blocks of one step take through the banks */
    const sym_expr *readers; /* and how many cores read those blocks at once */
} stage;

/* The NoC a buffer's block travels on (0 or 1). */
int sched_buf_noc(mctx *c, const sched_buf *b);
/* 1 where IN buffer b is loaded, 0 where nothing reads its value and the
 * lowering leaves the load out (sched_kernel.acc_live; NULL: always 1). */
const sym_expr *sched_buf_live(mctx *c, const sched_buf *b);
/* The bytes one block of IN/OUT buffer b moves from or to DRAM: its pages,
 * or, moved element by element, the rows and columns that exist (a 4-row
 * query block of 32-row tiles moves 4 rows). */
const sym_expr *sched_dram_bytes(mctx *c, const sched_buf *b);
/* A load: read from DRAM (ahead where it can), then multicast or forwarded, or fused. */
stage sched_read_cost(mctx *c, const sched_buf *b);
/* A store to DRAM. */
stage sched_write_cost(mctx *c, const sched_buf *b);
/* A fused producer's block sent to its reducer cores. */
stage sched_send_cost(mctx *c, const sched_buf *b, const sched_fused_tensor *t);

/* The name a kernel gives program axis g (tl.program_id(g)), else pid.g. */
const char *sched_axis_name(const sched_kernel *k, int g, lm_arena *ar);

/* ---- busiest.c: the busiest core's counts --------------------------------- */

/* Set c->trips, c->live, c->extra, c->active, c->masked and c->clip_kept for the busiest core of
 * the placement, whose programs wg[g] and cores gs[g] along each axis g
 * (gs NULL for an axis flattened over the grid) the caller has worked out. */
void sched_busiest_trips(mctx *c, const sym_expr *const *wg, const sym_expr *const *gs);

/* ---- lowered.c -------------------------------------------------------- */

/* Fold each of the lowering's chains in Dst (sched_kernel.chain_from/to)
 * into one tile op of oc[0..n-1]; the op it absorbs is marked dead. */
void sched_merge_chains(mctx *c, opcost *oc, int n);
/* Price the lowering's other decisions (sched_kernel.lowered) in
 * oc[0..n-1]: ops it folds away, row sums the packer accumulates. */
void sched_lowered_ops(mctx *c, opcost *oc, int n, int level);
/* One-pass tile ops the lowering runs before op o (a SCHED_LOWER_PASSES
 * record, or the masked copy of a block cut short): on its chain and in
 * the totals. */
void sched_passes_cost(mctx *c, opcost *o, const sched_lowered *w);
/* A per-trip cost x of passes that run on w->masked of w->trips trips only
 * (w->masked NULL: every trip): its share of a trip, on average. */
const sym_expr *sched_on_trips(mctx *c, const sched_lowered *w, const sym_expr *x);

#endif
