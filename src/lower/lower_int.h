/* lower_int.h - the lowering's state and the helpers its files share
 * (internal to src/lower/; the API is lower.h).
 *
 * Conventions of the lowering's files:
 *  - `lw` is the state of one kernel's lowering (one launch; a fused pair has
 *    two, linked by la/lb), always named `L`; `kctx` is the state of the one
 *    kernel being written (its class of cores, its kind, where statements go,
 *    the program ids and loop variables as expressions), always named `K`,
 *    with K->L its lowering.
 *  - V(L, x) is the vinfo of Tile IR value x; C(K, n) a constant, BIN(K, op,
 *    a, b) a binary expression and S(K, op) a new statement of the kernel's
 *    program. Every statement goes through lw_put (which gathers Dst chains).
 *  - Fields and helpers prefixed `s` (ser, sec, stiles, sdepth, sclip, scmds,
 *    ...) are the symbolic twins of the figures next to them: the same
 *    quantity as an expression of the schedule's symbols, which the L1 plan
 *    for the model (probe.c) records instead of the value at the probe.
 *  - lw_fail reports the first thing that cannot be lowered and sets
 *    L->failed; later calls do nothing, so code goes on after a failure and
 *    checks L->failed (or the false a helper returns) where it matters.
 *  - Shared helpers carry the prefix lw_; everything else stays static in
 *    its file.
 *  - The files are layered: each calls only the files above it in the
 *    banners below, which group the declarations by the file that defines
 *    them, from lw.c (which nearly every file calls) down to lower.c (the
 *    whole program); probe.c (lower.h's sched_lower_l1) calls lower.c on
 *    top. No two files call each other in a loop.
 */
#ifndef LOOMC_LOWER_INT_H
#define LOOMC_LOWER_INT_H

#include "lower/lower.h"

#include "df/df.h"

enum { LW_MAX_CBS = 64, LW_TILE = 32, LW_MAX_PRED = 8, LW_MAX_STORES = 128, LW_MAX_TEMPS = 256, LW_MAX_IVS = 16, LW_MAX_CHAINS = 64, LW_MAX_RA = 8 };
/* The "CB" of a value held in Dst: tile ops that write it or read it become
 * one chain statement (kctx.ch). */
enum { LW_DST = -100 };
/* Ops one chain links at most: each adds at most one step, and the limit
   keeps well within DF_MAX_STEPS. */
enum { LW_MAX_LINKS = DF_MAX_STEPS / 2 };

/* ======================================================================
 * The plan: what every value is and where it lives
 * ==================================================================== */

typedef enum vkind {
    VK_NONE,  /* integer scalars, pointers: symbolic, nothing to emit */
    VK_CONST, /* a float known on the host (scalar or uniform tile) */
    VK_TILE,  /* a float tile in CB pages (itself or through an alias) */
    VK_INDEX, /* an integer tile affine in its element indices */
    VK_MASK,  /* an i1 tile: a conjunction of affine predicates */
} vkind;

/* p[0]*i + p[1]*j + k >= 0, i and j the element indices along the value's
 * two dimensions (one for a vector). */
typedef struct pred {
    int64_t c[2];
    const sym_expr *k;
} pred;

typedef enum bcast { BC_NONE, BC_COL, BC_ROW, BC_SCALAR } bcast;

typedef enum stkind { ST_LOAD, ST_OUT, ST_CARRY, ST_OWN, ST_TEMP } stkind;

typedef struct store {
    stkind kind;
    int cb;
    int64_t tiles;    /* one block */
    int64_t pages;
    arch_format fmt;
    bool inplace;     /* CARRY: accumulated in place (T pages) */
    bool fill_first;  /* inplace: fill zeros before the loop (the loop may run no trip) */
    bool writer_pops; /* CARRY: its final value is written out straight from it */
    bool old_popped;  /* emission state of a ping-pong CARRY */
    /* CARRY whose new value is read while the old one is still at its
       front: the two live in CBs of their own (cb: the current value, cb2:
       the next), and the compute kernel swaps their names at the end of
       each trip (cb_swap), as a card's unpacker cannot read across the
       end of one ring holding both */
    bool pair;
    int cb2;
    int first, last;  /* OWN: lifetime in op order (CB sharing) */
    bool noshare;     /* OWN that never shares its CB (the masked copy of a load) */
    bool mixed;       /* OWN, first of a shared CB whose values differ in size (lw_number_cbs) */
    /* the L1 plan (sched_lower_l1): pages = stiles x smult as expressions of
       the schedule's symbols, times sind (NULL: 1); sbytes replaces the
       product (with its format) where the probe's values choose the format */
    const sym_expr *stiles, *smult, *sind, *sbytes;
    const char *what;
} store;

/* Where a computed root's tiles go: its own CB, the loop's carried CB, the
 * writer's CB, the pages of the dot that adds it, or Dst only (D_DST: the
 * next element-wise op takes it there, one chain; see lw_plan_chains), or
 * nowhere (D_FUSED: made inside the one op that takes it - a row maximum
 * whose only use is a maximum with another column is one rowmax seeded
 * with that column; see lw_plan_rowmax). */
typedef enum dkind { D_OWN, D_CARRY, D_OUT, D_DOT, D_DST, D_FUSED } dkind;

typedef enum role { R_PLAIN, R_OLD, R_NEW, R_RESULT } role;

typedef struct vinfo {
    vkind kind;
    double c;            /* CONST */
    /* TILE */
    int root;            /* uid of the value that owns the pages */
    bcast bc;            /* how this value reads the root: as is, a column vector
                            broadcast across columns, element (0,0) everywhere */
    bool trans;          /* a transposed view of the root */
    bool tview;          /* a [1, N] view of a column vector: unusable as data */
    int64_t er, ec;      /* element shape as 2-D (a vector is [N, 1]) */
    int64_t tr, tc;      /* tiles of that shape */
    const sym_expr *ser, *sec; /* er and ec as expressions (the L1 plan) */
    arch_format fmt;
    int rank;
    double dom;          /* the factor its pages are short of its true value: a positive scale
                            folded into the exponentials (rewrite.c; 1 elsewhere) */
    bool ident;          /* a constant or a view only by an identity (classify.c: a reduction over
                            one element, x - x, x * 1, ...), or computed from one: its op, a tile
                            op on the Tile IR, emits nothing (L->gone) */
    /* INDEX / MASK */
    int64_t ic[2];
    const sym_expr *ik;
    pred p[LW_MAX_PRED];
    int np;
    /* roots */
    int st;              /* store index, or -1 */
    role rl;
    dkind dest;
    int dest_ref;        /* D_DOT: uid of the dot's result; D_OUT: access index; D_DST, D_FUSED: the op taking it */
    bool reserved;       /* D_DOT target: pages reserved by the fused producer */
    int nuses;           /* uses through aliases */
    const tir_op *first_top, *last_top; /* ops at the root's own level holding the first/last use */
    const tir_op *first_use;            /* the first using op itself */
    const tir_block *defblk;
} vinfo;

typedef struct access {
    const acc_access *aa;
    int index;
    bool is_store;
    int tensor;           /* df tensor */
    int cb;
    int64_t tr, tc, tiles, depth;
    const sym_expr *stiles, *sdepth; /* tiles and depth as expressions (the L1 plan) */
    const sym_expr *sclip;           /* 1 when a boundary check cuts the block short, else 0 */
    const sym_expr *ser, *sec;       /* the block's rows and columns of elements, whole tiles */
    const sym_expr *smasked;         /* the trips of its loop that keep its masked copy (lw_split_plan;
                                        NULL: not in a loop, or no copy) */
    const sym_expr *scmds;           /* NoC commands per block: tiles, or row runs when moved by elements */
    const sym_expr *smoved;          /* elements a block moves from or to DRAM: its tiles' (1024 each), or
                                        the rows and columns moved element by element */
    /* tile coordinates: affine in pid/iv, already divided by 32 */
    int nterms;
    const sym_expr *var[ACC_MAX_TERMS * 4];
    int64_t rco[ACC_MAX_TERMS * 4], cco[ACC_MAX_TERMS * 4];
    int64_t r0, c0;
    bool stretched;       /* shared inside a loop whose trips differ within the group */
    int clean;            /* load cut short: the store of its masked lw_copy (else 0) */
    bool elems;           /* not whole tiles: element moves (coordinates in elements) */
    bool tclip;           /* whole tiles of a block a boundary check cuts short: the rows inside */
    int64_t rows_el, cols_el, rstride;
    /* boundary checks: the rows (cols) moved are min(block, extent - offset)
       along the dimension that spans them; NULL when not clipped */
    const sym_expr *clip_rows, *clip_cols;
    sched_operand how;
    df_kernel_kind kernel; /* DF_READER or DF_WRITER */
    int sem_ready, sem_valid;
    int root;             /* store: uid of the stored root */
    bool copy_in;         /* store: compute copies the value into the CB */
    bool passed;          /* fused: a store sent to the reducer, or a load received from the producers */
    bool dead;            /* a load from DRAM whose value nothing reads (an identity left it
                             unused): not read, no CB */
    int coldim;           /* the access dimension along the layout's columns */
    int64_t lrow[TIR_MAX_RANK]; /* rows of the 2-D layout a unit step along each dimension moves */
} access;

/* A temporary CB of one compute op (reciprocal, negation, a constant tile). */
typedef struct temp {
    const tir_op *op;
    int k;
    int st;
    int lo, hi;  /* op positions it lives through: its op's, or its op's chain's */
} temp;

/* A CB of the L1 plan that the probe's values leave out. */
typedef struct lw_virt {
    const tir_op *op;
    int k;
    arch_format fmt;
    const sym_expr *bytes;
    const char *what;
} lw_virt;

/* One mask the split may leave out on some trips of its loop (msplit.c):
 * the trips where its predicates hold on the whole block, [0, pre) or
 * [suf, trips) - both NULL when none bounds them; flat when a predicate
 * does not move with the trip (its truth is a program's), bad when one is
 * not affine in it. */
typedef struct lw_split_note {
    const tir_op *loop;        /* the TIR_FOR the mask is in */
    const tir_op *op;          /* a where's op, or NULL */
    int access;                /* a load's masked copy: its access, else -1 */
    const sym_expr *pre, *suf;
    bool flat, bad;
} lw_split_note;

typedef struct lw {
    const sched_kernel *k;
    const sched_schedule *s;
    const arch_desc *a;
    sym_ctx *sc;
    lm_diag *d;
    const tir_func *f;
    const acc_result *acc;
    df_program *p;
    bool failed;
    lm_arena ar;
    vinfo *v;             /* by value uid */
    int nv;
    int *order;           /* preorder position of ops, by value-independent op index */
    access *ax;           /* by access index */
    store st[LW_MAX_STORES];
    int nst;
    temp tmp[LW_MAX_TEMPS];
    int ntmp;
    int ncbs;             /* CB ids handed out */
    /* a CB shared by values of different sizes moves in steps of its whole
       ring (0: in each op's own count), so no reservation or read crosses
       the ring's end, as a card's CBs require (lw_cbop) */
    int64_t cb_step[LW_MAX_CBS];
    int64_t ext[TIR_MAX_GRID];
    int64_t gx, gy;
    int grp[3][TIR_MAX_GRID]; /* axes on x, y, xy */
    int ngrp[3];
    int64_t E[3];         /* programs along each group */
    int ntime;
    int time[TIR_MAX_GRID];
    int64_t dst_cap;
    bool lockstep;        /* core-to-core transports: every core runs every wave */
    const tir_op *stretch[ACC_MAX_LOOPS]; /* loops whose trips differ within a group sharing blocks */
    int64_t stretch_max[ACC_MAX_LOOPS];    /* their most trips over all programs */
    int stretch_axis[ACC_MAX_LOOPS];       /* stretched per wave along it (sched_wave_axis), or -1 */
    int nstretch;
    struct opnum *nums;   /* preorder positions of the ops */
    int nnums;
    const tir_op **def;   /* defining op by value uid (NULL: block argument) */
    bool *row;            /* by value uid: a vector laid as a row [1, N] (orient.c) */
    /* element-wise ops whose result stays in Dst for the next (lw_plan_chains),
       in program order: from[i]'s result is taken by to[i] */
    const tir_op *chain_from[LW_MAX_CHAINS], *chain_to[LW_MAX_CHAINS];
    int nchains;
    /* products by a positive scale folded into the exponentials: views of
       their operand, nothing emitted (lw_plan_scales_block) */
    const tir_op *gone[LW_MAX_CHAINS];
    int ngone;
    /* row maxima taken inside the maximum that is their only use (one
       seeded rowmax, lw_plan_rowmax): fmax_red[i]'s result, D_FUSED, is an
       operand of fmax_max[i] */
    const tir_op *fmax_red[LW_MAX_CHAINS], *fmax_max[LW_MAX_CHAINS];
    int nfmax;
    /* row sums accumulated by the packer (lw_plan_packsums): psum_src[i]
       packs each tile of its result a second time, added into its block
       row's page of temporary 2 of psum_red[i], which reduces one tile a
       row from there */
    const tir_op *psum_red[LW_MAX_CHAINS], *psum_src[LW_MAX_CHAINS];
    int npsum;
    /* casts packed by the op before them (lw_plan_packcasts): pcast_op[i]'s
       operand, read otherwise only by a row sum the packer takes, is
       written in the cast's format by pcast_src[i], and the cast is a view
       of those pages */
    const tir_op *pcast_op[LW_MAX_CHAINS], *pcast_src[LW_MAX_CHAINS];
    int npcast;
    /* wheres on a mask the lowering leaves out on the trips of their loop
       where it is the identity (msplit.c): split_masked[i] is the trips of
       split_op[i]'s loop that keep it, for the model; the masked copies of
       loads cut short keep theirs in access.smasked. Planned from notes,
       one a mask, joined per loop (lw_split_plan) */
    const tir_op *split_op[LW_MAX_CHAINS];
    const sym_expr *split_masked[LW_MAX_CHAINS];
    int nsplit;
    lw_split_note notes[LW_MAX_CHAINS];
    int nnotes;
    /* reductions after whole-block passes over their operand (lw_plan_reduce):
       a transpose along axis 0, a mask where the reduced extent is not whole
       tiles; pass_n[i] passes (an expression: the mask's is an indicator)
       over pass_tiles[i] tiles in pass_fmt[i], for the model */
    const tir_op *pass_op[LW_MAX_CHAINS];
    const sym_expr *pass_n[LW_MAX_CHAINS], *pass_tiles[LW_MAX_CHAINS];
    arch_format pass_fmt[LW_MAX_CHAINS];
    int npass;
    /* recording the L1 plan (sched_lower_l1): CBs that exist only at other
       values than the probe's, each alone in its CB */
    bool record;
    lw_virt virt[LW_MAX_TEMPS];
    int nvirt;
    /* the card's support CBs (df_support) of the compute kernel: 1 where
       needed, 0 where not (NULL: never), and their CB ids (-1: none) */
    const sym_expr *sup[DF_NSUPPORT];
    int sup_cb[DF_NSUPPORT];
    /* a fused pair (sched_lower_fused): the producer's context points at its
       consumer's (lb), the consumer's at its producer's (la); CB ids come
       from the producer's counter */
    const sched_fusion *fz;
    struct lw *la, *lb;
    int64_t nq;           /* consumer programs of one group */
    int64_t np;           /* producers of one group (cores along the gather dimension) */
    int64_t nr;           /* reducer cores of one group: min(nq, np) */
    int64_t nred;         /* cores along the gather dimension that may be reducers */
    int64_t nmax;         /* most consumer programs a reducer runs (its passed blocks' pages) */
    int sem_fready, sem_fvalid;
    const char *vprefix;  /* the L1 plan of a fused pair: this launch's prefix of its depths */
} lw;

enum { G_X, G_Y, G_XY };

/* Op positions: the preorder number of each op, found by a walk; ops are
 * few, so a linear table keyed by pointer is enough. */
typedef struct opnum {
    const tir_op *op;
    int pos, end;
} opnum;
typedef LM_VEC(opnum) opnums;

/* ======================================================================
 * Emission: the kernel being written
 * ==================================================================== */

typedef struct kctx {
    lw *L;
    df_program *p;
    df_class *c;
    df_kernel_kind kind;
    df_stmt *loop;        /* where statements go (NULL: the kernel body) */
    lm_loc loc;           /* the Tile IR op being lowered: where its statements come from */
    const df_expr *pid[TIR_MAX_GRID];
    const df_expr *wave[3];
    const df_expr *nw[3]; /* wave counts (args) */
    const df_expr *in[3]; /* 1 when the program's index along the group is in range */
    const df_expr *act;   /* 1 when the program exists (else the core only helps its groups) */
    const df_expr *live;  /* 1 inside the program's own trips of the stretched loops around */
    /* loads read ahead in the loops being emitted (dm.c): block i + 1's reads
       are issued before block i's barrier, tagged by turns with ids trid and
       trid + 1; trid_next is the first id no open loop uses */
    struct {
        int access;
        int trid;
        const sym_expr *iv;    /* the IR loop's variable */
        const df_expr *next;   /* 1 when the loop has a next trip for this program */
    } ra[LW_MAX_RA];
    int nra;
    int trid_next;
    struct {
        const sym_expr *iv;
        const df_expr *e;
    } ivs[LW_MAX_IVS];
    int nivs;
    int ncond;
    int nloopvars;
    int x0, y0, x1, y1;   /* the class's rectangle */
    /* the compute kernel consuming, without using them, the blocks the
       data-movement kernels push where no program of this core takes them
       (lw_emit_drain) */
    bool drain;
    /* a chain being gathered: tile ops writing or reading Dst (LW_DST) in
       order, from the one that starts it to the one that packs; the pops of
       CBs they read wait until the chain statement is out */
    struct {
        df_stmt *op[DF_MAX_STEPS + 1];
        int n;
        df_stmt *pops[2 * DF_MAX_STEPS + 2];
        int npops;
    } ch;
    /* the statement writing CB sum_out also packs its row sums into CB
       sum_cb (a packer-accumulated row sum, lw_plan_packsums) */
    bool sum_on;
    int sum_cb, sum_out;
    int64_t sum_rows, sum_cols; /* the block written, in tiles */
} kctx;

/* An operand of a tile op as the op reads it. */
typedef enum okind { O_FULL, O_COL, O_ROW, O_SCALAR, O_CONST } okind;
typedef struct opnd {
    okind k;
    double c;
    int cb;
    int64_t at;
    int64_t tiles; /* pages the op reads (the root's block) */
    const sym_expr *stiles; /* the same as an expression (the L1 plan) */
} opnd;

/* ---- constructors (every file) --------------------------------------------- */

static inline vinfo *V(lw *L, const tir_value *x) { return &L->v[x->uid]; }
static inline const df_expr *C(kctx *K, int64_t v) { return df_const(K->p, v); }
static inline df_stmt *S(kctx *K, df_op op) { return df_stmt_new(K->p, op, K->loc); }
static inline const df_expr *BIN(kctx *K, df_xkind k, const df_expr *a, const df_expr *b) { return df_bin(K->p, k, a, b); }
static inline const df_expr *x_min(kctx *K, const df_expr *a, const df_expr *b) { return BIN(K, DF_X_MIN, a, b); }
static inline const df_expr *x_max(kctx *K, const df_expr *a, const df_expr *b) { return BIN(K, DF_X_MAX, a, b); }

/* ---- lw.c: failure, evaluation, formats and shapes ----------------------------- */

void lw_fail(lw *L, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
bool lw_ev(lw *L, const sym_expr *e, int64_t *out, lm_loc loc);
int64_t lw_evd(lw *L, const sym_expr *e, int64_t dflt);
int64_t lw_reduced_extent(lw *L, const tir_op *op);
int64_t lw_value_of(lw *L, const char *name, int64_t dflt);
bool lw_elem_format(lw *L, tir_elem e, arch_format *f, lm_loc loc);
bool lw_shape2d(lw *L, const tir_value *x, int64_t *er, int64_t *ec, int *rank, const sym_expr **ser,
                const sym_expr **sec, lm_loc loc);
int lw_axis(const lw *L, const tir_op *op);
bool lw_store_turns(const vinfo *vi, const access *x);

/* ---- layout.c ------------------------------------------------------------------ */

int64_t lw_pad32(int64_t n);
const tir_op *lw_make_of(const tir_value *v);
bool lw_on_tensor_dims(const acc_access *aa);

/* ---- emit.c -------------------------------------------------------------------- */

void lw_put(kctx *K, df_stmt *s);
df_stmt *lw_open_for(kctx *K, const char *var, const df_expr *lo, const df_expr *hi, df_stmt **saved);
void lw_close_for(kctx *K, df_stmt *saved);
int lw_open_if(kctx *K, const df_expr *cond, df_stmt **saved);
bool lw_empty_everywhere(kctx *K, const df_expr *lo, const df_expr *hi);
const df_expr *lw_xs(kctx *K, const sym_expr *e);
const df_expr *lw_affine(kctx *K, const access *x, bool row);
void lw_cbop(kctx *K, df_op op, int cb, int64_t n);

/* ---- orient.c ----------------------------------------------------------------- */

bool lw_orient(lw *L);

/* ---- classify.c ---------------------------------------------------------------- */

arch_format lw_interm_format(const lw *L);
arch_format lw_accum_format(const lw *L);
void lw_classify_block(lw *L, const tir_block *b);
void lw_number_block(lw *L, const tir_block *b, opnums *out);
int lw_pos(lw *L, const tir_op *op);
void lw_uses_block(lw *L, const tir_block *b);
void lw_defblocks(lw *L, const tir_block *b);
const tir_op *lw_only_use(lw *L, int r);
int lw_access_of(lw *L, const tir_op *op);

/* ---- rewrite.c ----------------------------------------------------------------- */

void lw_plan_scales_block(lw *L, const tir_block *b);
double lw_dom_const(const vinfo *res, double c);

/* ---- store.c ------------------------------------------------------------------- */

int lw_new_store(lw *L, stkind kind, int64_t tiles, int64_t pages, arch_format fmt, lm_loc loc);
const sym_expr *lw_sym_tiles(lw *L, const sym_expr *er, const sym_expr *ec);
const sym_expr *lw_vtiles(lw *L, const vinfo *v);
void lw_store_sym(lw *L, int s, const sym_expr *tiles, const sym_expr *mult, const char *what);
const sym_expr *lw_positive(lw *L, const sym_expr *e);
void lw_plan_virtual(lw *L, const tir_op *op, int k, arch_format fmt, const sym_expr *bytes, const char *what);
int lw_next_cb(lw *L, lm_loc loc);
void lw_need_support(lw *L, df_support k, const sym_expr *when);
bool lw_number_support(lw *L, const lw *other);
void lw_record_defs(lw *L, const tir_block *b);
bool lw_computed_by_compute(lw *L, int r);
void lw_plan_block(lw *L, const tir_block *b);
void lw_plan_dot_acc(lw *L, const tir_block *b);
void lw_plan_rowmax(lw *L, const tir_block *b);
const tir_op *lw_fused_reduce(const lw *L, const tir_op *max);
void lw_plan_packsums(lw *L, const tir_block *b);
void lw_plan_packcasts(lw *L);
const tir_op *lw_packsum_red(const lw *L, const tir_op *op);
bool lw_packsum_is_red(const lw *L, const tir_op *op);
void lw_plan_chains(lw *L, const tir_block *b);

/* ---- laccess.c ----------------------------------------------------------------- */

int lw_tensor_index(lw *L, const tir_tensor *t);
bool lw_plan_access(lw *L, int idx);
bool lw_plan_transport(lw *L, access *x);

/* ---- dm.c ---------------------------------------------------------------------- */

bool lw_has_access(lw *L, const tir_block *b, df_kernel_kind kind);
df_stmt *lw_open_ir_loop(kctx *K, const tir_op *f, df_stmt **saved);
int64_t lw_sender_pos(lw *L, const access *x, int64_t n);
void lw_sem_op(kctx *K, df_op op, int sem, const df_expr *value, const df_expr *px, const df_expr *py);
void lw_emit_dm_block(kctx *K, const tir_block *b);
bool lw_stretched_for(lw *L, const tir_op *f, df_kernel_kind kind, int64_t *most, int *axis);
void lw_emit_drain(kctx *K, const tir_block *b);
void lw_emit_dead_trips(kctx *K, const tir_op *f);
void lw_group_core(kctx *K, const df_expr *i, const df_expr **x, const df_expr **y);
void lw_local_pids(kctx *K, const lw *LB, const df_expr *q, const df_expr **pid);
void lw_emit_store_fused(kctx *K, const access *x);

/* ---- kstmt.c ------------------------------------------------------------------- */

int lw_store_cb(const store *s, const vinfo *ri);
store *lw_root_store(lw *L, int r);
bool lw_readable(lw *L, int r, lm_loc loc);
bool lw_read_at(kctx *K, int r, int *cb, int64_t *at, lm_loc loc);
bool lw_opnd_of(lw *L, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc);
bool lw_get_opnd(kctx *K, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc);
int lw_plan_temp(lw *L, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles, arch_format fmt);
int lw_plan_temp_from(lw *L, const tir_op *from, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles,
                      arch_format fmt);
int lw_temp(lw *L, const tir_op *op, int k);
void lw_plan_const_tile(lw *L, const tir_op *op, int k);
void lw_const_tile(kctx *K, const tir_op *op, int k, double c, opnd *o);
void lw_end_temp(kctx *K, const opnd *o, bool was_temp);
int lw_out_open(kctx *K, int r);
void lw_out_close(kctx *K, int r);
df_stmt *lw_elt(kctx *K, df_eltop op, int a, int64_t at, int b, int64_t at_b, df_bcast bc, int out, int64_t rows,
                int64_t cols);
df_stmt *lw_sfpu(kctx *K, df_sfpuop op, int a, int64_t at, int out, int64_t n, double scalar);
void lw_fill(kctx *K, int out, int64_t n, double c);
void lw_copy(kctx *K, int a, int64_t at, int out, int64_t n);
void lw_transpose(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols);
df_bcast lw_bc_of(okind k);
void lw_mask_stmt(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols, const pred *p, int np,
                  double scalar);

/* ---- kops.c: each op's temporaries (lw_plan_OP) and statements (lw_emit_OP) ---- */

void lw_plan_binary(lw *L, const tir_op *op);
void lw_emit_binary(kctx *K, const tir_op *op);
void lw_plan_cmp(lw *L, const tir_op *op);
void lw_emit_cmp(kctx *K, const tir_op *op);
void lw_plan_unary(lw *L, const tir_op *op);
void lw_emit_unary(kctx *K, const tir_op *op);
void lw_plan_reduce(lw *L, const tir_op *op);
void lw_emit_reduce(kctx *K, const tir_op *op);
void lw_plan_where(lw *L, const tir_op *op);
void lw_emit_where(kctx *K, const tir_op *op);
void lw_emit_dot(kctx *K, const tir_op *op);

/* ---- kcompute.c ---------------------------------------------------------------- */

bool lw_plan_temps(lw *L);
void lw_emit_cblock(kctx *K, const tir_block *b);

/* ---- fused.c ------------------------------------------------------------------- */

void lw_emit_fused_prologue(kctx *K, bool reducer);
void lw_emit_consumer(kctx *KA, df_kernel_kind kind);

/* ---- msplit.c ------------------------------------------------------------------ */

void lw_split_masks(lw *L, df_class *c, const int rect[4]);
/* The plan's side of the split: note a where on a mask (its predicates over
   the block of rr) or the masked copy of load access i, then join the notes
   of each loop into the trips that keep each mask. */
void lw_split_note_where(lw *L, const tir_op *op, const pred *p, int np, const vinfo *rr);
void lw_split_note_clean(lw *L, int i);
void lw_split_plan(lw *L);

/* ---- program.c ----------------------------------------------------------------- */

bool lw_build_classes(lw *L);
void lw_plan_stores(lw *L);
bool lw_number_cbs(lw *L);
bool lw_setup_grid(lw *L);
bool lw_add_tensors(lw *L);
int lw_add_sem_named(lw *L, const char *base, lm_loc loc);
bool lw_add_sems(lw *L);

/* ---- lower.c: the state, the plan, the whole program, its L1 plan -------------- */

void lw_init(lw *L, const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc, lm_diag *d,
             df_program *p);
void lw_free(lw *L);
bool lw_plan(lw *L);
void lw_record_plan(lw *const *Ls, int n, sched_l1_plan *plan, lm_arena *ar);
bool lw_plan_l1(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                sched_l1_plan *plan, lm_arena *par);
bool lw_plan_l1_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                      const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                      sched_l1_plan *plan, const char *pa, const char *pb, lm_arena *par);

#endif
