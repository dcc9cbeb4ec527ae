/* sched.h - the symbolic scheduler's IR: what loomc knows of a kernel when
 * it decides (the summary), the discrete choices it enumerates (candidates),
 * the symbolic problem of each candidate (model), the decision itself (a
 * schedule, which the lowering turns into a dataflow program), and plan
 * files that carry a decision between commands.
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
 *  - level: 0 is the program level (outside every loop), 1 + i the body of
 *    loop i;
 *  - buffer: a virtual buffer, one per producer->consumer tile handoff;
 *  - transport: how an input buffer's blocks reach the cores that need them.
 *
 * Symbols a schedule binds (sched_schedule.values): the launch sizes (M, K,
 * ...), every free constexpr of the launch spec (BLOCK_M, NUM_SPLITS, ...),
 * `grid.x`, `grid.y` (1 when the placement does not use that core
 * dimension), `depth.<buffer>` for every IN and OUT buffer, `sub.h` and
 * `sub.w` (the matmul output sub-block in tiles; 1 when the kernel has no
 * dot).
 */
#ifndef LOOMC_SCHED_H
#define LOOMC_SCHED_H

#include "analysis/access.h"
#include "arch/arch.h"
#include "solve/solve.h"
#include "util/json.h"

enum {
    SCHED_MAX_BUFS = 64,
    SCHED_MAX_LOOPS = 8,
    SCHED_MAX_OPS = 16,   /* loads per kernel (operands of a candidate) */
    SCHED_MAX_VARS = 32,
    SCHED_MAX_WORK = 96,  /* tile operations per kernel */
    SCHED_MAX_DOTS = 8,
    SCHED_MAX_LAUNCHES = 4,
    SCHED_MAX_TERMS = 48,
};

/* ======================================================================
 * summary.c - the kernel as the scheduler sees it
 * ==================================================================== */

typedef enum sched_bufkind {
    SCHED_BUF_IN,    /* DRAM -> reader -> compute: a block load */
    SCHED_BUF_OUT,   /* compute -> writer -> DRAM: a block store */
    SCHED_BUF_CARRY, /* a loop-carried tile held by the compute engine */
    SCHED_BUF_TEMP,  /* a tile computed and consumed within one iteration */
} sched_bufkind;

const char *sched_bufkind_name(sched_bufkind k); /* "in", "out", "carry", "temp" */

/* A virtual buffer: reserve/commit on the producer side, acquire/release on
 * the consumer side; `depth` instances in flight. */
typedef struct sched_buf {
    const char *name;          /* IN/OUT: the tensor's name ("a", "part"); CARRY/TEMP: the
                                  source name ("acc", "p") when known, else "t<N>" */
    sched_bufkind kind;
    int access;                /* IN/OUT: index into the kernel's acc_result; else -1 */
    const tir_value *value;    /* IN: the load's result; OUT: the stored value; else the tile */
    const sym_expr *tile_rows; /* the instance as a 2-D block of tiles (leading dims folded) */
    const sym_expr *tile_cols;
    const sym_expr *tiles;     /* tile_rows * tile_cols */
    const sym_expr *bytes;     /* one instance: tiles * bytes per tile of `format` (from the arch
                                  passed to sched_summarize) */
    arch_format format;        /* storage format of its pages */
    int loop;                  /* innermost loop it is produced in (index into loops), -1 = program level */
    int level;                 /* the same as a level: loop + 1 */
    const sym_expr *depth;     /* IN/OUT: the solver variable `depth.<name>`; else a constant */
    int first, last;           /* op positions of its first production and last use (lifetime) */
    int alias;                 /* OUT stored straight from a CARRY of the same format: that
                                  CARRY's index (they share storage); else -1 */
    int color;                 /* alloc.c: the L1 slot it shares with buffers it never
                                  overlaps in time */
} sched_buf;

typedef struct sched_loop {
    const tir_op *op;       /* the FOR */
    int parent;             /* enclosing loop index, -1 = program level */
    const sym_expr *trips;  /* trip count (may mention pid.N: the model picks the programs) */
    int first, last;        /* op positions of the loop's start and end */
} sched_loop;

/* Work of one execution of a loop body (or of the program level outside
 * every loop), counted in tile operations of 32x32 tiles. */
typedef struct sched_work {
    const sym_expr *matmul;  /* 32x32x32 tile products */
    const sym_expr *eltwise; /* binary element-wise tile ops (incl. broadcasts and where) */
    const sym_expr *sfpu;    /* exp/log/recip/... tile ops */
    const sym_expr *reduce;  /* row-reduction tile ops (tiles of the reduced operand) */
    const sym_expr *copy;    /* format conversions and moves through Dst */
} sched_work;

/* One tile operation of the compute engine, for the cost model. */
typedef enum sched_opkind {
    SCHED_OP_MATMUL,  /* a dot (see sched_dot) */
    SCHED_OP_ELTWISE, /* binary element-wise on the FPU (incl. a broadcast operand, where) */
    SCHED_OP_EXP,     /* exp/exp2 on the SFPU (the fast approximate one, as the lowering emits) */
    SCHED_OP_LOG,     /* log/log2 on the SFPU: an exact exp's cost (docs/simulator.md) */
    SCHED_OP_RECIP,   /* reciprocal on the SFPU (the divisor of a div) */
    SCHED_OP_SQRT,    /* sqrt, rsqrt, sigmoid on the SFPU, each its own figure */
    SCHED_OP_RSQRT,
    SCHED_OP_SIGMOID,
    SCHED_OP_REDUCE,  /* row or column reduction */
    SCHED_OP_COPY,    /* a format conversion or move through Dst */
} sched_opkind;

typedef struct sched_work_op {
    sched_opkind kind;
    const tir_op *op;
    int level;
    const sym_expr *tiles;        /* tile operations (MATMUL: tile products) */
    const sym_expr *unpack_bytes; /* bytes the unpacker reads from L1 (MATMUL: set by the model) */
    const sym_expr *pack_bytes;   /* bytes the packer writes to L1 */
    const sym_expr *dst_batches;  /* Dst acquire/release rounds (MATMUL: set by the model) */
    const sym_expr *out_tiles;    /* REDUCE: the tiles it reduces into (one per row of tiles) */
    int dot;                      /* MATMUL: index into sched_kernel.dots */
    /* element-wise ops: the operands it unpacks, each with its bytes
       (unpack_bytes is their sum), so that the model can leave out one that
       a chain keeps in Dst */
    const tir_value *reads[3];
    const sym_expr *read_bytes[3];
    int nreads;
} sched_work_op;

/* A matrix product [M, K] x [K, N], in tiles. */
typedef struct sched_dot {
    const tir_op *op;
    int level;
    const sym_expr *m_tiles, *n_tiles, *k_tiles;
    const sym_expr *m_rows;   /* rows of in0 (elements): products of fewer than 32 rows cost
                                 by the matrix engine's row granule */
    arch_format a_format, b_format, out_format;
    const char *out_name;     /* the accumulator's source name, for messages */
} sched_dot;

/* A free constexpr and how the scheduler treats it. */
typedef struct sched_free {
    const sym_expr *var;
    bool block_dim;           /* used as a block size along a tensor dimension it tiles */
    const sym_expr *dim;      /* block_dim: the largest tensor dimension it tiles */
    const sym_expr *must_divide; /* a dimension some access tiles without padding (no
                                    boundary check): the block must divide it; NULL if none */
    bool pinned;              /* --const gave it a value */
} sched_free;

/* An access dimension no boundary check pads, whose offsets are not the
 * plain tiling a must_divide covers: its last block must end inside the
 * tensor, `last_end <= extent` (sched_summarize; a constraint of the model). */
typedef struct sched_inbound {
    const sym_expr *last_end; /* the largest offset over programs and trips, plus the block */
    const sym_expr *extent;
    const char *tensor;
    int dim;
    int line;
} sched_inbound;

enum { SCHED_MAX_INBOUNDS = 32 };

typedef struct sched_kernel {
    const tir_func *f;
    const acc_result *acc;
    const char *name;        /* the kernel function's name */
    int launch;              /* index of its launch in the spec */
    sched_loop loops[SCHED_MAX_LOOPS];
    int nloops;
    sched_buf bufs[SCHED_MAX_BUFS];
    int nbufs;
    sched_work work[SCHED_MAX_LOOPS + 1]; /* [0]: program level; [1 + i]: loop i's body */
    sched_work_op ops[SCHED_MAX_WORK];
    int nops;
    sched_dot dots[SCHED_MAX_DOTS];
    int ndots;
    const sym_expr *free_syms[SCHED_MAX_VARS]; /* the kernel's free constexprs */
    int nfree;
    sched_free frees[SCHED_MAX_VARS];          /* the same, classified */
    sched_inbound inbounds[SCHED_MAX_INBOUNDS];
    int ninbounds;
    const sym_expr *flops;   /* useful FLOPs of one program (2*M*N*K per dot), symbolic */
    arch_fidelity fidelity;  /* TTNN's default: HiFi2, LoFi when both dot inputs are block-float */
    bool fp32_acc;           /* Dst in 32-bit mode: the kernel stores an fp32 result */
    bool temps_16b;          /* f32 values the compute engine makes (not carried) live in bf16
                                CBs: packed from a 16-bit Dst, they have no more bits to keep */
    int npositions;          /* op positions used by lifetimes */
    /* sched_lower_l1: the L1 the lowering's CBs take, as an expression of
       the schedule's symbols (depth.<buffer> unprefixed); NULL when the
       kernel does not lower at the probe (the allocation's figure then) */
    const sym_expr *cb_bytes;
    int cb_count;                     /* CBs of the lowering (the most of any plan) */
    const sym_expr *cb_used;          /* the CBs that exist at the values (sched_l1_plan.count) */
    const struct sched_l1_plan *l1;   /* the plans, one per probe (see sched_lower_l1) */
    int nl1;
    const char *l1_why;               /* why there is no plan (the lowering's message), or NULL */
    const sym_expr **acc_cmds;        /* per access (sched_lower_l1): NoC commands per block moved */
    const sym_expr **acc_clip;        /* per access: 1 when the block is cut short (a masked copy) */
    const sym_expr **acc_clip_kept;   /* per access: the trips of its loop that keep that copy (NULL:
                                         every trip) */
    const sym_expr **acc_moved;       /* per access: elements a block moves to or from DRAM */
    const sym_expr **acc_live;        /* per access: 1 where the load is read, 0 where nothing reads
                                         its value (an identity left it unused: not loaded) */
    /* sched_lower_l1: the lowering's chains in Dst - chain_from[i]'s result
       stays in Dst for chain_to[i] (one tile op, no pack and unpack between) */
    const tir_op **chain_from, **chain_to;
    int nchains;
    /* sched_lower_l1: what else the lowering makes of its work ops (every
       probe agreeing), priced as emitted */
    const struct sched_lowered *lowered;
    int nlowered;
} sched_kernel;

/* Build the summary of a checked kernel (one launch). `frees` are the
 * launch spec's free constexprs with `pinned` set for those --const gave.
 * Tile byte counts come from `a`. Reports (through d) constructs the
 * scheduler cannot place (e.g. a non-affine block access) and returns false. */
bool sched_summarize(sched_kernel *k, const tir_func *f, const acc_result *acc, const arch_desc *a,
                     const sched_free *frees, int nfrees, sym_ctx *s, lm_arena *ar, lm_diag *d);
/* "program" for level 0; "loop k (line 28)" or "loop at line 28" for a loop body. */
const char *sched_level_name(const sched_kernel *k, int level, lm_arena *ar);
/* Text of the summary (loops, buffers, work, FLOPs), stable, for tests and --explain. */
void sched_print_summary(lm_buf *b, const sched_kernel *k);

/* ======================================================================
 * format.c - storage formats of the buffers (--format)
 * ==================================================================== */

/* Storage formats of a summarised kernel, as `--format` sets them: every
 * block load (IN buffer) gets `in`, every block store (OUT buffer) `out`;
 * a store straight from the accumulator keeps the partial sums between K
 * blocks in `out` when that is bf16 or fp32, else in bf16 (TTNN's rule).
 * The dots' operand formats, the buffers' byte counts, Dst accumulation
 * (fp32 only for an fp32 store) and the kernel's default fidelity follow.
 * Loads and stores of scratch tensors written by another launch of the job
 * are left alone when `keep_scratch` is set. Call before sched_alloc. */
void sched_set_formats(sched_kernel *k, arch_format in, arch_format out, bool keep_scratch, const arch_desc *a,
                       sym_ctx *s);
/* One buffer's storage format (an IN or OUT buffer, e.g. only the KV cache
 * of a decode kernel); the rest follows as in sched_set_formats. */
void sched_set_buf_format(sched_kernel *k, int buf, arch_format f, const arch_desc *a, sym_ctx *s);
/* The IN buffer holding the value v (views peeled), or -1. */
int sched_operand_buf(const sched_kernel *k, const tir_value *v);
/* The buffer operand `which` (0: in0, 1: in1) of dot `dot` reads, or -1. */
int sched_dot_operand_buf(const sched_kernel *k, int dot, int which);

/* ======================================================================
 * alloc.c - L1 allocation of the virtual buffers
 * ==================================================================== */

/* Colour the interference graph of buffer lifetimes (sets bufs[].color):
 * buffers whose lifetimes never overlap share a slot. Returns the number of
 * slots. */
int sched_alloc(sched_kernel *k);
/* L1 bytes of the allocation: the sum over slots of the largest member's
 * bytes x depth (symbolic; OUT buffers aliasing a CARRY take no space). */
const sym_expr *sched_l1_bytes(const sched_kernel *k, sym_ctx *s, const char *prefix);
/* Whether buffer i's depth (`depth.<buffer>`) is a variable of the
 * schedule: every IN and OUT buffer's, except an OUT stored straight from a
 * loop-carried tile (alias), whose depth is the lowering's only where its L1
 * plan (sched_lower_l1) sizes that tile's CB by it - an accumulator in
 * place, written out from where it is made, holds depth blocks; a carry
 * that holds its old and new values does not. */
bool sched_depth_free(const sched_kernel *k, int i, sym_ctx *s);
/* e with k's depth.<buffer> variables renamed prefix + depth.<buffer>. */
const sym_expr *sched_prefix_depths(const sched_kernel *k, const sym_expr *e, sym_ctx *s, const char *prefix);

/* ======================================================================
 * fuse.c - a launch whose programs consume the previous launch's output
 * block by block
 * ==================================================================== */

/* How the producer's store and the consumer's load of a passed tensor
 * relate along one tensor dimension (see fuse.c). */
typedef enum sched_fdim {
    SCHED_FD_KEY,    /* both tile it by an axis with the same block: the axes are one index */
    SCHED_FD_GATHER, /* the producer tiles it by an axis, the consumer reads it whole */
    SCHED_FD_SLICE,  /* the producer writes it whole, the consumer reads a part */
    SCHED_FD_WHOLE,  /* both take all of it */
} sched_fdim;

typedef struct sched_fused_tensor {
    const tir_tensor *tensor;
    int store;                    /* the producer's store of it (access index) */
    int load;                     /* the consumer's load of it (access index) */
    sched_fdim dim[TIR_MAX_RANK];
} sched_fused_tensor;

/* Producer A and consumer B of a launch sequence, fusable: every tensor A
 * stores and B loads is a scratch tensor B reads in blocks A wrote. A group
 * is one value of the key axes; the A programs along the gather axis make
 * what the B programs of the group (its local axes) consume. */
typedef struct sched_fusion {
    int producer, consumer;       /* launches of the job (set by the caller) */
    sched_fused_tensor t[SCHED_MAX_OPS];
    int nt;
    int key_of[TIR_MAX_GRID];     /* consumer axis -> the producer axis it equals; -1: a local axis */
    unsigned gather;              /* producer axes (bits) a consumer program reads every program of */
    int gather_axis;              /* the (one) gather axis */
    /* The L1 of a reducer core: both kernels' CBs as the fused lowering
       allocates them at a probe (sched_lower_l1_fused), in the job's
       variables (each launch's depths with its prefix, sched_launch_prefix)
       and SCHED_FUSED_PROGRAMS for the consumer programs a reducer runs. */
    const sym_expr *cb_bytes;
    int cb_count;
    const sym_expr *cb_used;
    const struct sched_l1_plan *l1;
    int nl1;
} sched_fusion;

/* The variable of a fused pair's L1 plan that stands for the consumer
 * programs one reducer core runs (the passed blocks of all of them are in
 * its CBs at once); the consumer's model puts its own count there. */
#define SCHED_FUSED_PROGRAMS "fused.programs"


/* Is the pair (a, b) fusable? Fills f; otherwise says why not in `why`.
 * `bound` holds the sizes and pinned constexprs. */
bool sched_fusion_find(sched_fusion *f, const sched_kernel *a, const sched_kernel *b, sym_ctx *s,
                       const sym_env *bound, lm_buf *why);

/* ======================================================================
 * cand.c - the discrete choices
 * ==================================================================== */

/* Where a program axis goes on the core grid. */
typedef enum sched_place {
    SCHED_ON_X,    /* along the core columns: program index -> core x (cyclic waves if more programs) */
    SCHED_ON_Y,    /* along the core rows */
    SCHED_ON_XY,   /* the axes marked XY are flattened (row-major, in axis order) over all
                      gx*gy cores in row-major order, cyclic waves if more programs */
    SCHED_ON_TIME, /* a loop on every core (the axis is not spread) */
} sched_place;

typedef enum sched_transport {
    SCHED_DRAM,    /* each core reads its blocks from DRAM */
    SCHED_MCAST,   /* one sender per row/column (or per grid) reads and multicasts */
    SCHED_FORWARD, /* the first core of each row/column reads; each core forwards to its neighbour */
    SCHED_FUSED,   /* a fused consumer's load: the producing cores of its group send the block over the
                      NoC (sched_fusion) */
} sched_transport;

/* A candidate's part in a fused launch pair (sched_fusion). */
typedef enum sched_fuse {
    SCHED_FUSE_NONE,
    SCHED_FUSE_PRODUCER, /* the passed stores go over the NoC to the reducer core of the group */
    SCHED_FUSE_CONSUMER, /* runs on the producer's reducer cores, its passed loads from the producers */
} sched_fuse;

const char *sched_place_name(sched_place p);         /* "x", "y", "xy", "time" */
const char *sched_transport_name(sched_transport t); /* "dram", "mcast", "forward", "fused" */

/* Which NoC carries a transport's traffic (its DRAM reads or writes, its
 * multicasts or forwards and their handshakes). loomc's own schedules leave
 * it to the lowering; a baseline that fixes it (TTNN's multicast matmul:
 * in0 on NoC 1, in1 and the output on NoC 0) sets it. The lowering puts
 * the transport on the data-movement kernel that runs on that NoC (the
 * reader on NoC 0, the writer on NoC 1, as the simulator runs them). */
typedef enum sched_noc { SCHED_NOC_ANY, SCHED_NOC_0, SCHED_NOC_1 } sched_noc;

typedef struct sched_operand {
    int access;                /* a load: index into the kernel's acc_result */
    sched_transport transport;
    sched_place along;         /* MCAST/FORWARD: SCHED_ON_X (along a row), SCHED_ON_Y (along a
                                  column) or SCHED_ON_XY (MCAST only: the whole gx x gy grid) */
    bool interior_sender;      /* MCAST: the sender is the middle core of its row/column */
    sched_noc noc;             /* SCHED_NOC_ANY: the lowering chooses */
} sched_operand;

const char *sched_noc_name(sched_noc n); /* "any", "NoC 0", "NoC 1" */

typedef struct sched_candidate {
    int id;                          /* position in enumeration order (-1: a NoC mirror, select.c) */
    sched_place place[TIR_MAX_GRID]; /* per program axis */
    sched_operand ops[SCHED_MAX_OPS];/* one per load, in access order */
    int nops;
    bool persistent;                 /* always true: a core runs its programs as one loop */
    sched_noc store_noc;             /* the NoC of the block stores (SCHED_NOC_ANY: the lowering's) */
    sched_fuse fuse;                 /* part in a fused launch pair */
    sched_place fuse_along;          /* fused: the core dimension (x or y) the producer's gather axis
                                        lies along; a group is one row (column), its first core the
                                        reducer. A consumer's key axes are placed as the producer's,
                                        its local axes in time on the reducer. */
    uint64_t fused_acc;              /* fused: bit i = access i passes over the NoC (the producer's
                                        stores, the consumer's loads) */
    int64_t extent;                  /* parallel extent: most cores it can keep busy */
    const char *label;               /* "pid.0->y pid.1->x; a: mcast along x; b: mcast along y" */
} sched_candidate;

typedef struct sched_cands {
    sched_candidate *c;      /* the surviving (legal, undominated) candidates */
    int n;
    int enumerated, legal, pruned; /* counts for reports */
} sched_cands;

/* Enumerate the mappings and transports, keep those the access analysis and
 * the chip allow, and drop dominated ones (another candidate at least as
 * good on parallel extent and on reuse). `bound` gives the launch sizes,
 * used to compute parallel extents. */
void sched_candidates(sched_cands *out, const sched_kernel *k, const arch_desc *a, const sym_env *bound,
                      sym_ctx *s, lm_arena *ar);
/* Is c a valid mapping of k: at most one axis per core dimension, flattened
 * axes alone, one transport per load (in access order), multicast and
 * forwarding only along a core dimension whose axis the load does not
 * depend on, and (when a is given) a multicast shape the chip supports?
 * Describes the first problem in why. */
bool sched_candidate_check(const sched_kernel *k, const sched_candidate *c, const arch_desc *a, lm_buf *why);
/* The NoC (so the data-movement kernel: NoC 0 the reader, NoC 1 the writer)
 * that carries load ops[i] of candidate c: the one it names; DRAM loads (and
 * a fused consumer's passed blocks, which its reader pushes) on NoC 0;
 * loads moved core to core alternate, in access order, between the
 * two (as TTNN's 2-D multicast matmul does). The lowering and the model
 * both take it from here. */
sched_noc sched_load_noc(const sched_candidate *c, int i);
/* The NoC mirror of candidate c (docs/scheduler.md, "Which NoC each shared
 * load takes"): x and y exchanged in the placement and in each load's
 * direction, and each load c moves core to core by the rule
 * (sched_load_noc) named on the other NoC. A load keeps the kind of line
 * its NoC's last leg gives it (shared along x on NoC 0 in c, along y on
 * NoC 1 in the mirror: a column of readers either way), and the loads
 * exchange kernels (NoC 0 the reader, NoC 1 the writer, which also
 * stores). False (out undefined) for a fused candidate, one with fewer than
 * two loads whose NoC the rule gives, or a mirror k or a do not allow. */
bool sched_noc_mirror(const sched_kernel *k, const sched_candidate *c, const arch_desc *a, sched_candidate *out,
                      lm_arena *ar);
/* Do a and b map the programs and move every load the same way, each on
 * the same NoC (whether named or by the rule)? */
bool sched_same_mapping(const sched_candidate *a, const sched_candidate *b);
/* Build a candidate's label from its fields. */
const char *sched_candidate_label(const sched_kernel *k, const sched_candidate *c, lm_arena *ar);
/* The grid axes (bit g) whose program index differs between the cores of a
 * group that shares a load along `along` under candidate c (x: the axes
 * placed on x; y: on y; the whole grid: both; an axis flattened over the
 * grid differs along either). The lowering checks a shared block against
 * them and the model takes its stretched loops from them. */
unsigned sched_group_axes(const sched_candidate *c, sched_place along, int rank);
/* The grid axes (bit g) whose program index differs between the cores that
 * share a load of loop i of k - a multicast or forwarding group around it:
 * where the loop's trips depend on such an axis, the lowering runs it in
 * every program for the most trips of any (laccess.c), so that the group
 * moves each block together. */
unsigned sched_stretched_axes(const sched_kernel *k, const sched_candidate *c, int i);
/* The one grid axis of those whose program index the trips of loop i
 * depend on, where it is the only axis dealt along its core dimension (x
 * or y): the lowering then runs the loop in each wave of the group's
 * programs for the most trips of that wave's programs (the count at the
 * wave's first or last program id), not of all. -1 where no axis or
 * several stretch the loop, or the axis is flattened over the grid or
 * shares its dimension: those run the most trips of any program. */
int sched_wave_axis(const sched_kernel *k, const sched_candidate *c, int i, sym_ctx *s);
/* Whether the programs dealt along core dimension `pl` (x, y or the whole
 * grid) go back and forth when they fill whole waves: where some loop's
 * trips depend on an axis placed there (causal attention's query blocks),
 * a core's programs alternate between the low and the high end of the
 * waves (the last wave forward, the one before it backward, ...), so every
 * core's share of the trips is about the mean where dealing in one
 * direction gives the last core the most of every wave. A partial last
 * wave keeps one direction: its cores have a program more, and the low
 * end of every wave makes up for it. Not for a fused pair (its groups are
 * dealt by the gather). */
bool sched_zigzag(const sched_kernel *k, const sched_candidate *c, sched_place pl, sym_ctx *s);
/* Whether some loop of k is stretched so under candidate c. */
bool sched_stretches(const sched_kernel *k, const sched_candidate *c, sym_ctx *s);
/* The fused variants of a fusable pair (f): producer candidates of a (its
 * gather axis alone along x or y, its key axes on the other dimension or in
 * time, every legal transport of its loads, dominated ones pruned) appended
 * to *pa, and one consumer candidate of b per distinct placement of the key
 * axes appended to *pb. */
void sched_candidates_fused(sched_cands *pa, sched_cands *pb, const sched_fusion *f, const sched_kernel *a,
                            const sched_kernel *b, const arch_desc *ar_, const sym_env *bound, sym_ctx *s,
                            lm_arena *ar);
/* Whether a fused producer candidate and a fused consumer candidate go
 * together (the same dimension and the same placement of the key axes). */
bool sched_fused_pair(const sched_fusion *f, const sched_candidate *pa, const sched_candidate *pb);

/* ======================================================================
 * model.c - latency expression and legality constraints of a candidate
 * ==================================================================== */

typedef enum sched_termkind {
    SCHED_T_READ,    /* reader stage part: one load, one execution of its level */
    SCHED_T_WRITE,   /* writer stage part: one store */
    SCHED_T_COMPUTE, /* compute stage of a level (incl. nested loops) */
    SCHED_T_DETAIL,  /* unpack / math / pack inside a compute stage */
    SCHED_T_COUNT,   /* iterations of a loop, programs of a core (a count, not cycles) */
    SCHED_T_LEVEL,   /* all executions of a level */
    SCHED_T_BOUND,   /* a whole-launch lower bound (DRAM bandwidth) */
    SCHED_T_FIXED,   /* fixed costs (kernel launch) */
    SCHED_T_TOTAL,   /* the launch's latency */
    SCHED_T_FILL,    /* filling a forwarding chain, once per execution of a level */
} sched_termkind;

typedef struct sched_term {
    const char *name;      /* "read a (loop k)", "compute (loop k)", ... */
    const sym_expr *cycles;
    int level;             /* where it applies; -1 for totals */
    sched_termkind kind;
    bool writer;           /* READ/WRITE: on the writer kernel (NoC 1), else the reader (NoC 0) */
    int64_t plain;         /* COUNT: the value --explain leaves unsaid (the banks all hit); 0: none */
} sched_term;

typedef struct sched_model {
    const sched_kernel *k;
    const sched_candidate *cand;
    const char *prefix;     /* prefix of this launch's own variables ("" for one launch) */
    solve_problem problem;  /* variables, constraints, objective (cycles) and tie-breaks */
    sched_term terms[SCHED_MAX_TERMS]; /* the named parts of the objective, for explanations */
    int nterms;
    const sym_expr *cycles;       /* the objective of this launch alone */
    const sym_expr *dram_bytes;   /* tie-break 1: DRAM traffic */
    const sym_expr *exposed;      /* tie-break 2: the cycles of the transfers whose buffer has
                                     one page set, which serialise them with the compute when
                                     the model's overlap does not hold (fewer preferred) */
    const sym_expr *l1_bytes;     /* L1 in use (tie-break 3: more headroom preferred) */
    const sym_expr *handshakes;   /* tie-break 4: CB/semaphore handshakes */
    const sym_expr *busy;         /* tie-break 5: engine busy cycles with no overlap (less is
                                     more slack for the same latency) */
    const sym_expr *path;         /* the critical path of a step: the most block transfers one
                                     load goes through in sequence before its last core has it
                                     (1 from DRAM or a fused producer; by multicast 2, the read
                                     and the multicast, 3 from an interior sender, which sends
                                     its two sides one after the other; forwarded along g
                                     cores g, the read and g - 1 sends). Between candidates
                                     the selection breaks a tie of cycles by it, shortest first:
                                     each transfer in sequence adds latency and a chance that the
                                     model's overlap does not happen. */
    const sym_expr *gx, *gy;      /* the core grid (variables or 1) */
} sched_model;

/* Build the model of one candidate from the hardware description only.
 * `bound` holds the sizes and pinned constexprs; `prefix` names this
 * launch's own variables (grid, depths, sub-block) apart from other
 * launches' in a joint problem. */
bool sched_model_build(sched_model *m, const sched_kernel *k, const sched_candidate *c, const arch_desc *a,
                       const sym_env *bound, const char *prefix, sym_ctx *s, lm_arena *ar, lm_diag *d);
/* The same for a fused candidate (c->fuse != SCHED_FUSE_NONE) of pair f;
 * `other` is the pair's other kernel, `other_cand` a candidate of it that
 * pairs with c (sched_fused_pair) and `other_prefix` its variables' prefix.
 * A producer prices its passed stores as NoC sends to the reducer core of
 * its group and needs the group's programs on one row (column); a consumer
 * runs on the reducer cores after the producer's programs (no launch of its
 * own: the job's sum is then the fused program's latency), receives its
 * passed loads through a semaphore handshake, and its L1 and CB
 * constraints count both kernels, as the reducer core holds both. */
bool sched_model_build_fused(sched_model *m, const sched_kernel *k, const sched_candidate *c, const sched_fusion *f,
                             const sched_kernel *other, const sched_candidate *other_cand, const char *other_prefix,
                             const arch_desc *a, const sym_env *bound, const char *prefix, sym_ctx *s, lm_arena *ar,
                             lm_diag *d);

/* ======================================================================
 * schedule - a decision, whoever made it
 * ==================================================================== */

typedef struct sched_schedule {
    const sched_kernel *k;
    sched_candidate cand;
    sym_env values;           /* every symbol: M, BLOCK_M, grid.x, grid.y, depth.a, sub.h, sub.w, ...
                                 (heap; sym_env_free) */
    arch_fidelity fidelity;
    bool fp32_acc;            /* Dst in 32-bit mode */
    bool interm_16b;          /* the compute kernel's f32 values live in bf16 CBs (TTNN's SDPA
                                 intermediates); a cast to bf16 of such a value is a view */
    int64_t predicted_cycles; /* loomc's model; -1 when not modelled */
    const char *origin;       /* "loomc", "ttnn", "ttnn-tuned", "oracle", "tuner" */
} sched_schedule;

/* ======================================================================
 * routes.c - NoC traffic from the description's positions (for model.c)
 * ==================================================================== */

/* The busiest link's load, in thousandths of one core's block, when k
 * cores read from every DRAM bank on NoC `noc`: along the second leg of the
 * route (the cores sharing one line) or the first (the banks' rows or
 * columns, per core of a line). */
int64_t sched_leg_load(const arch_desc *a, int noc, bool second, int k);
/* The mean NoC hops of a DRAM round trip on NoC `noc` (a read's request
 * and its data, a write's data and its acknowledgement), in thousandths,
 * over the description's cores and banks. */
int64_t sched_dram_trip_hops(const arch_desc *a, int noc);
/* The busiest link's load, in blocks, when g cores of a row (along_x) or
 * column each send one block to each of q consumers dealt round-robin over
 * the g cores. */
int64_t sched_send_load(const arch_desc *a, int noc, bool along_x, int g, int64_t q);
/* A forwarding chain of j = 0..n cores, core p sending to p + 1: per j the
 * busiest link's load when all sends run at once (thousandths of a block),
 * the longest send's route and the longest way back, in hops (running
 * maxima). */
void sched_chain_route(const arch_desc *a, int noc, bool along_x, int n, int64_t *load, int64_t *fwd,
                       int64_t *back);

/* ======================================================================
 * select.c - solve every candidate of a job, rank, pick
 * ==================================================================== */

/* All launches of one compilation, scheduled together: launches run one
 * after the other (scratch tensors go through DRAM) and share the spec's
 * free constexprs, so the job's objective is the sum of the launches'.
 * Constexprs that several launches use are enumerated; for each of their
 * values every launch's candidates are solved on their own. */
typedef struct sched_job {
    const arch_desc *arch;
    int nlaunches;
    sched_kernel *k[SCHED_MAX_LAUNCHES];
    sched_cands cands[SCHED_MAX_LAUNCHES];
    const sym_env *bound;     /* sizes and pinned constexprs */
    /* fusable pairs of consecutive launches (the driver's fuse step); their
       fused candidates follow the plain ones in cands[] */
    sched_fusion fusion[SCHED_MAX_LAUNCHES];
    int nfusions;
} sched_job;

/* The prefix of launch l's own variables (grid, depths, sub-blocks) in the
 * job's joint problems: "" for a single launch, else "<kernel>.". */
const char *sched_launch_prefix(const sched_job *job, int l, lm_arena *ar);
/* The one problem of fused pair f at producer candidate `ip` and consumer
 * candidate `jc` (they must pair, sched_fused_pair), as the selection
 * solves it: both kernels' fused models (ms[0] the producer's, ms[1] the
 * consumer's) joined - shared variables once, the constraints named after
 * their kernel, objectives and tie-breaks summed. The job's shared
 * constexprs are left free. */
bool sched_fused_problem(solve_problem *p, sched_model ms[2], const sched_job *job, const sched_fusion *f, int ip,
                         int jc, sym_ctx *s, lm_arena *ar, lm_diag *d);

/* One solved combination of candidates (one per launch). */
typedef struct sched_choice {
    int cand[SCHED_MAX_LAUNCHES];          /* index into job->cands[l].c */
    sched_model *m[SCHED_MAX_LAUNCHES];
    solve_problem problem;                 /* the joint problem */
    solve_solution sol;                    /* values in problem.vars order */
    int64_t cycles;
    int rank_in_candidate;                 /* 0 = the candidate's own best */
    int64_t path;                          /* sched_model.path at the solution, summed over the
                                              launches (the first tie-break after cycles) */
} sched_choice;

/* One problem sched_select solved, shown to an observer (tests): launch l's
 * candidate at one value (sigma) of the constexprs the launches share. */
typedef struct sched_solved {
    int launch, cand, sigma;
    int launch2, cand2;           /* a fused pair's problem: its consumer's (launch, cand: its producer's); else -1 */
    const solve_problem *problem; /* as solved: shared constexprs pinned */
    solve_status status;
    const solve_solution *sols;   /* best first */
    int nsol;
} sched_solved;

typedef struct sched_select_opts {
    int top_k;              /* solutions kept across candidates (>= 1) */
    int64_t node_limit;     /* solver effort per combination (0: default) */
    /* NULL: loomc's solver. Else a MiniZinc solver id ("gecode"): every
     * problem is solved by running the minizinc executable instead (mzn.h),
     * and everything else - the bound from better candidates, top k, the
     * order of choices - stays the same. */
    const char *mzn_solver;
    const char *minizinc;   /* that executable (NULL: $LOOMC_MINIZINC, else minizinc) */
    /* Tests: solve every candidate without the bound from better candidates
     * (each problem's answer is then the candidate's own optimum), and show
     * each solved problem to observe(observe_ud, ...). */
    bool no_cut;
    bool no_noc_mirror;     /* the NoCs of the rule only: no NoC mirror of the best (select.c) */
    void (*observe)(void *ud, const sched_solved *s);
    void *observe_ud;
} sched_select_opts;

typedef struct sched_result {
    int enumerated, legal, pruned; /* summed over launches */
    int combos;                    /* candidate problems solved (per launch and, when
                                      launches share constexprs, per value of those) */
    int feasible;                  /* of them, with a solution under the bound */
    int limited;                   /* of them, whose solve hit the effort limit */
    sched_choice *top;             /* best first, across combinations */
    int ntop;
    sched_choice *bests;           /* each feasible combination's best, best first (the
                                      runner-up of the explanation is bests[1]) */
    int nbests;
    const char *rejected;          /* no feasible combination: the constraint that rejected most
                                      (NULL when none rejected anything) */
    sched_schedule best[SCHED_MAX_LAUNCHES]; /* the chosen schedule of each launch */
    int64_t cycles;                /* predicted cycles of the whole job */
    int mirrors;                   /* NoC mirrors of a best candidate solved besides (select.c) */
    int64_t nodes;                 /* solver nodes visited, summed */
    int mzn_runs;                  /* minizinc runs (sched_select_opts.mzn_solver) */
} sched_result;

/* The model's error when it compares two good schedules, in per mille of
 * the faster one's predicted cycles: how far the predicted ratio of two of
 * the schedules it predicts fastest is from their simulated ratio, the
 * median over the rows of the model-quality benchmark (docs/scheduler.md,
 * "Model quality", where the figure is measured). Schedules whose
 * predictions are closer than this are a close choice: the model cannot be
 * trusted to order them, and --explain and --top say so. */
enum { SCHED_MODEL_ERROR_PERMILLE = 80 };
/* Is `other` (predicted cycles) within the model's error of `best`? */
bool sched_close_call(int64_t best, int64_t other);

/* Build, solve and rank. Reports an infeasible job (naming the constraint
 * that rejected most) or a model error through d and returns false. */
bool sched_select(sched_result *r, sched_job *job, const sched_select_opts *o, sym_ctx *s, lm_arena *ar,
                  lm_diag *d);
void sched_result_free(sched_result *r);
/* Turn a choice into per-launch schedules (values incl. sizes and unprefixed
 * launch variables). */
void sched_choice_schedules(const sched_job *job, const sched_choice *c, sched_schedule *out, sym_ctx *s);
/* Launch l's schedule at `values` of problem p (p's variables in order:
 * launch l's model m's own problem, or a joint one whose other launches'
 * variables are left out); sched_choice_schedules for one launch. */
void sched_launch_schedule(const sched_job *job, int l, const sched_model *m, const solve_problem *p,
                           const int64_t *values, sched_schedule *out, sym_ctx *s);
/* The model's cycles for launch l of the job at schedule s (its candidate
 * and values: a schedule edited by hand, a plan's), or -1 where the model
 * does not price it: a fused candidate (priced with its pair only), a
 * candidate whose model does not build or a variable without a value. */
int64_t sched_reprice(const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym, lm_arena *ar);
/* What sched_reprice prices: launch l's model at schedule s (*m) and the
 * schedule's value of each of the model's variables, in its problem's
 * order (*values, in ar). False where sched_reprice gives -1. */
bool sched_schedule_model(const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym, lm_arena *ar,
                          sched_model *m, int64_t **values);
/* A load multicast or forwarded to a group of one core (grid.x = 1 for one
 * shared along x, say) is read from DRAM: the schedule says so, as its
 * lowering and model do (the solver's schedules never have such a group:
 * the model keeps two cores or more in it). Returns how many loads changed.
 * For schedules edited by hand or made by another's rules. */
int sched_solo_groups(sched_schedule *s, sym_ctx *sym);
/* Evaluate an expression of a choice's model at its solution. */
bool sched_choice_eval(const sched_job *job, const sched_choice *c, const sym_expr *e, int64_t *out);

/* ======================================================================
 * explain.c - why this schedule
 * ==================================================================== */

/* Each symbol's value and what stops it moving, the binding constraints
 * with their slack, the dominant latency terms, and the runner-up and why
 * it lost - in the kernel's own names. */
void sched_explain(lm_buf *b, const sched_job *job, const sched_result *r, sym_ctx *s, lm_arena *ar);
/* The same for one solution of the job (any of r->top), without the
 * runner-up: its buffers, values, constraints and latency terms. */
void sched_explain_choice(lm_buf *b, const sched_job *job, const sched_choice *c, sym_ctx *s, lm_arena *ar);
/* The same for launch l run at schedule s (edited by hand: --set, --place,
 * --transport, --schedule manual), as the model prices it; says so where
 * the model does not (sched_reprice). */
void sched_explain_schedule(lm_buf *b, const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym,
                            lm_arena *ar);
/* Useful FLOPs of the whole job at a choice (each launch's programs times
 * the FLOPs of a program of average work); false if not evaluable. */
bool sched_job_flops(const sched_job *job, const sched_choice *c, double *out);

/* ======================================================================
 * plan.c - plan files: a chosen schedule as JSON, and back
 * ==================================================================== */

typedef struct sched_plan_kv {
    const char *name;
    int64_t value;
} sched_plan_kv;

typedef struct sched_plan_operand {
    const char *load;            /* the loaded tensor's name, for readers */
    sched_operand op;
} sched_plan_operand;

typedef struct sched_plan_launch {
    int launch;                  /* index in the spec */
    const char *kernel;          /* the kernel function's name */
    int grid_rank;
    sched_place place[TIR_MAX_GRID];
    sched_fuse fuse;             /* "fused": "producer" / "consumer" of a fused pair (absent: none) */
    sched_place fuse_along;      /* "fused_along": "x" or "y" */
    sched_plan_operand ops[SCHED_MAX_OPS];
    int nops;
    const char *mapping;         /* the candidate's label (written for readers; not read back) */
    sched_plan_kv *values;       /* every symbol, unprefixed: sizes, free constexprs, grid,
                                    depths, sub-block */
    int nvalues;
    arch_fidelity fidelity;
    bool fp32_acc;
    int64_t predicted_cycles;
} sched_plan_launch;

typedef struct sched_plan {
    const char *kernel_file;     /* as given to loomc compile */
    const char *spec;            /* the launch spec's name */
    const char *arch;            /* the arch's name */
    sched_plan_kv *shape;        /* --shape values */
    int nshape;
    sched_plan_kv *consts;       /* --const values */
    int nconsts;
    sched_plan_launch launches[SCHED_MAX_LAUNCHES];
    int nlaunches;
    int64_t predicted_cycles;
} sched_plan;

/* Fill a plan from a job's chosen schedules (strings point into ar or at
 * the job's long-lived names). */
void sched_plan_from(sched_plan *p, const sched_job *job, const sched_result *r, const char *kernel_file,
                     const char *spec, const sched_plan_kv *shape, int nshape, const sched_plan_kv *consts,
                     int nconsts, lm_arena *ar);
/* The schema version of plan files this loomc writes and reads. */
#define SCHED_PLAN_VERSION 1
/* The plan as a JSON document ("format": "loomc-plan"), members in the
 * order of docs/scheduler.md; `loomc compile --json` adds its own after
 * them. The caller owns it (json_decref). */
json_t *sched_plan_json(const sched_plan *p);
/* The plan as JSON text. */
void sched_plan_write(lm_buf *b, const sched_plan *p);
/* Read and validate a plan file; errors are `file:line:col: error: ...`
 * through d. NULL on error. */
sched_plan *sched_plan_read(const char *path, lm_arena *ar, lm_diag *d);
/* The same from memory (`file` names the text in messages). */
sched_plan *sched_plan_parse(const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d);
/* A plan launch as a schedule for kernel k: the candidate is checked
 * against k (grid rank, loads, transports the access analysis allows) and
 * the values bound in s. Reports mismatches through d (naming `file`). */
bool sched_plan_schedule(const sched_plan_launch *pl, const sched_kernel *k, const char *file, sched_schedule *out,
                         sym_ctx *s, lm_arena *ar, lm_diag *d);

/* ======================================================================
 * The L1 plan - the lowering's CBs as the model prices them (made by the
 * lowering's probe, sched_lower_l1; read by alloc.c, model.c, explain.c)
 * ==================================================================== */

/* The lowering's L1, CB by CB, as the model prices it (sched_lower_l1). */
typedef struct sched_l1_use {
    const char *what;        /* "a (load)", "acc (carried)", "s", "a temporary of line 58" */
    const sym_expr *bytes;   /* its pages x bytes per page; 0 where it does not exist */
    int launch;              /* a fused pair's plan: 0 a value of the producer, 1 of the consumer */
} sched_l1_use;

typedef struct sched_l1_cb {
    arch_format format;
    sched_l1_use *uses;      /* the values sharing the CB (it is as large as the largest) */
    int nuses;
} sched_l1_cb;

/* What the lowering makes of a work op besides chains in Dst (its plan,
 * sched_lower_l1), so that the model prices what it emits. */
typedef enum sched_lkind {
    SCHED_LOWER_GONE,    /* emits nothing: a product by a positive scale folded into the exponentials */
    SCHED_LOWER_PACKSUM, /* a row sum reading one page a block row that the packer of `by` (the op
                            making its operand) accumulated while writing that operand */
    SCHED_LOWER_SPLIT,   /* a where on a mask, left out on the trips of its loop where the mask holds
                            on the whole block: it runs on `masked` of them */
    SCHED_LOWER_PASSES,  /* a reduction whose operand first goes through `passes` whole-block tile
                            ops of its own (a transpose along axis 0, a mask of a partial tile) */
    SCHED_LOWER_PACKCAST, /* a cast that emits nothing: `by`, the op making its operand, packs that
                             operand in the cast's format (the operand's other reader is a row sum
                             the packer takes) */
} sched_lkind;

typedef struct sched_lowered {
    sched_lkind kind;
    const tir_op *op;
    const tir_op *by;           /* PACKSUM: the op whose pack adds the rows up; PACKCAST: the op
                                   packing the cast's operand */
    const sym_expr *masked;     /* SPLIT: the trips of its loop that keep the mask (may mention pid.N);
                                   PASSES: the trips of `trips` that run them (NULL: every trip) */
    const sym_expr *trips;      /* PASSES with masked: the trips of their loop (busiest core) */
    const sym_expr *passes;     /* PASSES: how many (an expression) */
    const sym_expr *tiles;      /* PASSES: the tiles each pass reads and writes */
    arch_format format;         /* PASSES: their format */
    const sym_expr *when;       /* GONE, PASSES: 1 at the values where the lowering decided so, else 0
                                   (a probe's indicator: a split count of 1 drops a reduction); NULL:
                                   at every value */
} sched_lowered;

typedef struct sched_l1_plan {
    const sym_expr *when;    /* 1 where this plan applies, else 0 */
    sched_l1_cb *cbs;
    int ncbs;
    const sym_expr *bytes;   /* sum over CBs of the largest use */
    const sym_expr **cmds;   /* per access: NoC commands per block (tiles, or row runs by elements) */
    const sym_expr **clip;   /* per access: 1 when a boundary check cuts the block short */
    const sym_expr **clip_kept; /* per access: the trips of its loop that keep the masked copy of a
                                   block cut short (msplit.c; NULL: every trip) */
    const sym_expr **moved;  /* per access: elements a block moves over the NoC (its tiles', or the
                                rows and columns moved element by element) */
    const sym_expr **live;   /* per access: 1, or 0 for a load nothing reads (not loaded) */
    int nacc;
    const sym_expr *count;   /* the CBs that exist: sum over CBs of min(1, largest use) */
    const tir_op **chain_from, **chain_to; /* the chains in Dst of the (first) kernel, in program order */
    int nchains;
    const sched_lowered *lowered;          /* the other decisions the model prices (of the first kernel) */
    int nlowered;
} sched_l1_plan;

/* ======================================================================
 * driver/run.c - a job lowered, simulated and checked (loomc run, tests)
 * ==================================================================== */

enum { SCHED_MAX_OUTPUTS = 16 };

typedef enum sched_check { SCHED_CHECK_SKIPPED, SCHED_CHECK_PASS, SCHED_CHECK_FAIL } sched_check;

typedef struct sched_run_opts {
    const arch_desc *arch;
    bool check;             /* run the Tile IR interpreter on the same inputs and compare */
    bool timing_only;       /* no arithmetic in the simulator (no check) */
    bool exact_exp;
    FILE *trace_file;       /* a trace of every launch, one after the other, to this stream (NULL: none;
                               not closed) */
    uint64_t seed;          /* input i is filled with seed + i + 1 */
    lm_buf *programs;       /* if not NULL: the lowered programs' text is appended */
    lm_progress *progress;  /* a progress line for long simulations (NULL: none) */
    FILE *profile_file;     /* a device-profile CSV of every launch, one after the other (NULL: none;
                               not closed) */
} sched_run_opts;

typedef struct sched_run_launch {
    const char *kernel;     /* a fused pair: the program's name (both kernels') */
    bool fused;             /* one program for two launches (sched_lower_launch) */
    int first, count;       /* the launches it ran: first .. first + count - 1 */
    double cycles, flops;   /* simulated */
    int cores;
} sched_run_launch;

typedef struct sched_run_output {
    const char *tensor;
    bool pass;
    double max_abs, max_rel, tolerance; /* max_rel is the measure compared with the tolerance */
    bool block_rel;                     /* max_rel is relative to a block's largest magnitude (bfp outputs) */
    int64_t nonfinite;
} sched_run_output;

typedef struct sched_run_result {
    sched_run_launch launches[SCHED_MAX_LAUNCHES];
    int nlaunches;
    double cycles, seconds, flops, tflops; /* simulated; launches run one after the other */
    sched_check check;
    double max_error, max_rel_error;
    sched_run_output outputs[SCHED_MAX_OUTPUTS];
    int noutputs;
} sched_run_result;

/* Lower, validate and simulate launch l = 0..n-1 of a job (kernel k[l] with
 * schedule s[l]) in order over the spec's tensors; with o->check also run
 * the reference interpreter and compare the outputs. Errors (lowering,
 * validation, a deadlock) are reported through d: false. */
bool sched_run_job(sched_run_result *out, const sched_kernel *const *k, const sched_schedule *const *s, int n,
                   const tir_tensor *const *tensors, int ntensors, const sched_run_opts *o, sym_ctx *sc,
                   lm_diag *d);

#endif
