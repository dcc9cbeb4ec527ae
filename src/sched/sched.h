/* sched.h - the symbolic scheduler's IR: what loomc knows of a kernel when
 * it decides (the summary), the discrete choices it enumerates (candidates),
 * the symbolic problem of each candidate (model), and the decision itself
 * (a schedule), which the lowering turns into a dataflow program.
 *
 * Nothing here is specific to a kernel: every fact comes from the Tile IR,
 * the access analysis, the launch spec and the hardware description.
 * docs/scheduler.md describes the model. The header is sectioned by
 * implementing file.
 *
 * Vocabulary:
 *  - program axis g: an axis of the launch grid (pid.g);
 *  - core grid: gx columns x gy rows of cores (gx <= grid_w, gy <= grid_h),
 *    both solver variables named `grid.x` and `grid.y`;
 *  - buffer: a virtual buffer, one per producer->consumer tile handoff;
 *  - transport: how an input buffer's blocks reach the cores that need them.
 */
#ifndef LOOMC_SCHED_H
#define LOOMC_SCHED_H

#include "../analysis/access.h"
#include "../arch/arch.h"
#include "solve.h"

enum { SCHED_MAX_BUFS = 64, SCHED_MAX_LOOPS = 8, SCHED_MAX_OPS = 16, SCHED_MAX_VARS = 32 };

/* ======================================================================
 * summary.c - the kernel as the scheduler sees it
 * ==================================================================== */

typedef enum sched_bufkind {
    SCHED_BUF_IN,    /* DRAM -> reader -> compute: a block load */
    SCHED_BUF_OUT,   /* compute -> writer -> DRAM: a block store */
    SCHED_BUF_CARRY, /* a loop-carried tile held by the compute engine */
    SCHED_BUF_TEMP,  /* a tile computed and consumed within one iteration */
} sched_bufkind;

/* A virtual buffer: reserve/commit on the producer side, acquire/release on
 * the consumer side; `depth` instances in flight. */
typedef struct sched_buf {
    const char *name;          /* source name when known ("a", "acc", "qk"), else "t<N>" */
    sched_bufkind kind;
    int access;                /* IN/OUT: index into the kernel's acc_result; else -1 */
    const tir_value *value;    /* IN: the load's result; OUT: the stored value; else the tile */
    const sym_expr *tile_rows; /* the instance as a 2-D block of tiles (leading dims folded) */
    const sym_expr *tile_cols;
    arch_format format;        /* storage format of its pages */
    int loop;                  /* innermost loop it is produced in (index into loops), -1 = program level */
    const sym_expr *depth;     /* a solver variable `depth.<name>` for IN/OUT, a constant otherwise */
    int first, last;           /* positions (op order) of its first production and last use: lifetimes */
} sched_buf;

typedef struct sched_loop {
    const tir_op *op;       /* the FOR */
    int parent;             /* enclosing loop index, -1 = program level */
    const sym_expr *trips;  /* trip count */
} sched_loop;

/* Work of one execution of a loop body (or of the program level outside
 * every loop), counted in tile operations of 32x32 tiles. */
typedef struct sched_work {
    const sym_expr *matmul;  /* 32x32x32 tile products */
    const sym_expr *eltwise; /* binary element-wise tile ops (incl. broadcasts) */
    const sym_expr *sfpu;    /* exp/log/recip/... tile ops */
    const sym_expr *reduce;  /* row-reduction tile ops */
    const sym_expr *copy;    /* format conversions and moves through Dst */
} sched_work;

typedef struct sched_kernel {
    const tir_func *f;
    const acc_result *acc;
    sched_loop loops[SCHED_MAX_LOOPS];
    int nloops;
    sched_buf bufs[SCHED_MAX_BUFS];
    int nbufs;
    sched_work work[SCHED_MAX_LOOPS + 1]; /* [0]: program level; [1 + i]: loop i's body */
    const sym_expr *free_syms[SCHED_MAX_VARS]; /* the kernel's free constexprs */
    int nfree;
    const sym_expr *flops;   /* useful FLOPs of one program (for TFLOP/s), symbolic */
} sched_kernel;

/* Build the summary of a checked kernel. Reports (through d) constructs the
 * scheduler cannot place (e.g. a non-affine block access) and returns false. */
bool sched_summarize(sched_kernel *k, const tir_func *f, const acc_result *acc, sym_ctx *s, lm_arena *a,
                     lm_diag *d);

/* ======================================================================
 * cand.c - the discrete choices
 * ==================================================================== */

/* Where a program axis goes on the core grid. */
typedef enum sched_place {
    SCHED_ON_X,    /* along the core columns: program index -> core x (cyclic waves if more programs) */
    SCHED_ON_Y,    /* along the core rows */
    SCHED_ON_XY,   /* flattened over all gx*gy cores in row-major order */
    SCHED_ON_TIME, /* a loop on every core (the axis is not spread) */
} sched_place;

typedef enum sched_transport {
    SCHED_DRAM,    /* each core reads its blocks from DRAM */
    SCHED_MCAST,   /* one sender per row/column reads and multicasts along it */
    SCHED_FORWARD, /* the first core reads; each core forwards to its neighbour */
} sched_transport;

typedef struct sched_operand {
    int access;                /* a load: index into the kernel's acc_result */
    sched_transport transport;
    sched_place along;         /* MCAST/FORWARD: SCHED_ON_X (along a row) or SCHED_ON_Y */
    bool interior_sender;      /* MCAST: the sender is the middle core of its row/column */
} sched_operand;

typedef struct sched_candidate {
    int id;
    sched_place place[TIR_MAX_GRID]; /* per program axis */
    sched_operand ops[SCHED_MAX_OPS];
    int nops;
    bool persistent;                 /* programs per core run as one loop (vs. waves) */
    const char *label;               /* "pid.0->y pid.1->x; a: mcast along x; b: mcast along y" */
} sched_candidate;

typedef struct sched_cands {
    sched_candidate *c;
    int n;
    int enumerated, pruned; /* counts for reports */
} sched_cands;

/* Enumerate the mappings and transports the access analysis allows and drop
 * dominated ones (another candidate at least as good on parallel extent and
 * on reuse). */
void sched_candidates(sched_cands *out, const sched_kernel *k, const arch_desc *a, lm_arena *ar);

/* ======================================================================
 * model.c - latency expression and legality constraints of a candidate
 * ==================================================================== */

typedef struct sched_term {
    const char *name;      /* "DRAM read of a per K step", "matmul per K step", ... */
    const sym_expr *cycles;
} sched_term;

typedef struct sched_model {
    const sched_candidate *cand;
    solve_problem problem;  /* variables, constraints, objective (cycles) and tie-breaks */
    sched_term terms[32];   /* the named parts of the objective, for explanations */
    int nterms;
    const sym_expr *dram_bytes;   /* tie-break 1: DRAM traffic */
    const sym_expr *l1_bytes;     /* L1 in use (tie-break 2: more headroom preferred) */
    const sym_expr *handshakes;   /* tie-break 3: CB/semaphore handshakes */
} sched_model;

/* Build the model of one candidate from the hardware description only. */
bool sched_model_build(sched_model *m, const sched_kernel *k, const sched_candidate *c, const arch_desc *a,
                       const sym_env *bound, sym_ctx *s, lm_arena *ar, lm_diag *d);

/* ======================================================================
 * schedule.c - a decision, whoever made it
 * ==================================================================== */

typedef struct sched_schedule {
    const sched_kernel *k;
    sched_candidate cand;
    sym_env values;           /* every free symbol: BLOCK_M, grid.x, grid.y, depth.a, sub.h, sub.w, ... */
    arch_fidelity fidelity;
    bool fp32_acc;            /* Dst in 32-bit mode */
    int64_t predicted_cycles; /* loomc's model; -1 when not modelled */
    const char *origin;       /* "loomc", "ttnn", "ttnn-tuned", "oracle", "tuner" */
} sched_schedule;

/* ======================================================================
 * lower.c - a schedule becomes a dataflow program
 * ==================================================================== */

struct df_program;
/* The same lowering serves every kernel and every origin of schedule. */
struct df_program *sched_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                               lm_diag *d);

#endif
