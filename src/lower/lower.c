/* lower.c - a schedule becomes a dataflow program (sched_lower).
 *
 * The same lowering serves every kernel and every origin of schedule: it
 * reads the Tile IR, the access analysis and the schedule's placement,
 * transports and values, never a kernel's name. docs/scheduler.md
 * ("Lowering") describes the result; in short:
 *
 *  - Programs onto cores. Core (cx, cy) of the gx x gy sub-grid runs the
 *    programs the placement gives it: an axis on x takes pid = cx + gx*w for
 *    waves w = 0, 1, ... while pid is in range, on y likewise with cy, axes
 *    on xy are flattened (row-major) over the cores in row-major order, an
 *    axis on time is a loop on every core. Every kernel of a core runs the
 *    same loop nest; wave counts are runtime arguments of the core.
 *  - Reader and writer. Walking the IR in program order, each block load
 *    reserves its CB (depth x block pages), reads the block's tiles from
 *    DRAM (or takes part in a multicast / forwarding handshake), and pushes;
 *    each store waits, writes, barriers and pops. Loads with a core-to-core
 *    transport alternate between the reader and the writer kernel (two NoCs,
 *    as TTNN's 2-D multicast matmul does); DRAM loads stay in the reader.
 *  - Compute. The IR body is translated op by op into tile ops on CBs.
 *    Every tile value that needs storage gets a CB; views, broadcasts and
 *    transposes are aliases that only change how a consumer reads it.
 *    Loop-carried tiles live in one CB with room for the old and the new
 *    value (the new one is pushed when made and read behind the old one
 *    until the old one is popped at its last use); an accumulator
 *    `acc = dot(a, b, acc)` started from zeros stays in place with packer
 *    L1 accumulation. A value is waited for before the first op at its own
 *    loop level that uses it and popped after the last one.
 *  - DRAM layout. A tensor of rank r is stored as TT's tile layout does:
 *    2-D, rows = all leading dimensions times dimension r-2 padded to 32,
 *    columns = dimension r-1 padded to 32, padding zero; a tensor that some
 *    access of the job views with leading dimensions merged into its rows
 *    is folded instead (all leading dimensions and r-2 as rows, padded
 *    once: sched_tensor_folds). Every block access
 *    must cover whole tiles of that layout (offsets along the last two
 *    dimensions multiples of 32); a block may be shorter than a tile along
 *    dimension r-2 or r-1 only where the padding supplies the rest.
 *
 * What cannot be lowered is reported as an error naming the construct and
 * its source line; a lowered program is bound (df_bind) and ready for
 * df_validate and the simulator.
 */
#include "sched/sched.h"

#include "df/df.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LW_TILE = 32, LW_MAX_PRED = 8, LW_MAX_STORES = 128, LW_MAX_TEMPS = 256, LW_MAX_IVS = 16, LW_MAX_CHAINS = 64 };
/* The "CB" of a value held in Dst: tile ops that write it or read it become
 * one chain statement (kctx.ch). */
enum { LW_DST = -100 };
/* Ops one chain links at most: each adds at most one step, and the limit
   keeps well within DF_MAX_STEPS. */
enum { LW_MAX_LINKS = DF_MAX_STEPS / 2 };

/* ======================================================================
 * Tensor layout (exported for loomc run, which moves data in and out)
 * ==================================================================== */

static int64_t pad32(int64_t n) { return (n + LW_TILE - 1) / LW_TILE * LW_TILE; }

void sched_tensor_dims(const int64_t *shape, int rank, bool fold, int64_t *rows, int64_t *cols)
{
    if (rank <= 0) {
        *rows = *cols = 1;
        return;
    }
    *cols = pad32(shape[rank - 1]);
    if (rank == 1) {
        *rows = 1;
        return;
    }
    int64_t r = fold ? 1 : pad32(shape[rank - 2]);
    for (int d = 0; d < rank - (fold ? 1 : 2); d++)
        r *= shape[d];
    *rows = fold ? pad32(r) : r;
}

/* Row of the 2-D layout holding element idx of the tensor: the leading
 * indices in mixed radix, times the padded extent of dimension r-2 (or,
 * folded, all of them in mixed radix with dimension r-2). */
static int64_t layout_row(const int64_t *shape, int rank, bool fold, const int64_t *idx)
{
    if (rank < 2)
        return 0;
    int64_t lead = 0;
    for (int d = 0; d < rank - 2; d++)
        lead = lead * shape[d] + idx[d];
    return lead * (fold ? shape[rank - 2] : pad32(shape[rank - 2])) + idx[rank - 2];
}

static void layout_move(const int64_t *shape, int rank, bool fold, float *nd, float *flat, bool to_flat)
{
    int64_t rows, cols;
    sched_tensor_dims(shape, rank, fold, &rows, &cols);
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    if (to_flat)
        memset(flat, 0, (size_t)(rows * cols) * sizeof *flat);
    int64_t idx[TIR_MAX_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t rem = e;
        for (int d = rank - 1; d >= 0; d--) {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        int64_t at = layout_row(shape, rank, fold, idx) * cols + (rank > 0 ? idx[rank - 1] : 0);
        if (to_flat)
            flat[at] = nd[e];
        else
            nd[e] = flat[at];
    }
}

void sched_tensor_to_2d(const float *nd, const int64_t *shape, int rank, bool fold, float *flat)
{
    layout_move(shape, rank, fold, (float *)nd, flat, true);
}

void sched_tensor_from_2d(const float *flat, const int64_t *shape, int rank, bool fold, float *nd)
{
    layout_move(shape, rank, fold, nd, (float *)flat, false);
}

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

typedef enum bcast { BC_NONE, BC_COL, BC_SCALAR } bcast;

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
    int first, last;  /* OWN: lifetime in op order (CB sharing) */
    bool noshare;     /* OWN that never shares its CB (the masked copy of a load) */
    /* the L1 plan (sched_lower_l1): pages = stiles x smult as expressions of
       the schedule's symbols, times sind (NULL: 1); sbytes replaces the
       product (with its format) where the probe's values choose the format */
    const sym_expr *stiles, *smult, *sind, *sbytes;
    const char *what;
} store;

/* Where a computed root's tiles go: its own CB, the loop's carried CB, the
 * writer's CB, the pages of the dot that adds it, or Dst only (D_DST: the
 * next element-wise op takes it there, one chain; see plan_chains). */
typedef enum dkind { D_OWN, D_CARRY, D_OUT, D_DOT, D_DST } dkind;

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
    /* INDEX / MASK */
    int64_t ic[2];
    const sym_expr *ik;
    pred p[LW_MAX_PRED];
    int np;
    /* roots */
    int st;              /* store index, or -1 */
    role rl;
    dkind dest;
    int dest_ref;        /* D_DOT: uid of the dot's result; D_OUT: access index; D_DST: the op taking it */
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
    const sym_expr *scmds;           /* NoC commands per block: tiles, or row runs when moved by elements */
    /* tile coordinates: affine in pid/iv, already divided by 32 */
    int nterms;
    const sym_expr *var[ACC_MAX_TERMS * 4];
    int64_t rco[ACC_MAX_TERMS * 4], cco[ACC_MAX_TERMS * 4];
    int64_t r0, c0;
    bool stretched;       /* shared inside a loop whose trips differ within the group */
    int clean;            /* load cut short: the store of its masked copy (else 0) */
    bool elems;           /* not whole tiles: element moves (coordinates in elements) */
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
    int coldim;           /* the access dimension along the layout's columns */
    int64_t lrow[TIR_MAX_RANK]; /* rows of the 2-D layout a unit step along each dimension moves */
} access;

/* A temporary CB of one compute op (reciprocal, negation, a constant tile). */
typedef struct temp {
    const tir_op *op;
    int k;
    int st;
} temp;

/* A CB of the L1 plan that the probe's values leave out. */
typedef struct lw_virt {
    const tir_op *op;
    int k;
    arch_format fmt;
    const sym_expr *bytes;
    const char *what;
} lw_virt;

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
    int nstretch;
    struct opnum *nums;   /* preorder positions of the ops */
    int nnums;
    const tir_op **def;   /* defining op by value uid (NULL: block argument) */
    /* element-wise ops whose result stays in Dst for the next (plan_chains),
       in program order: from[i]'s result is taken by to[i] */
    const tir_op *chain_from[LW_MAX_CHAINS], *chain_to[LW_MAX_CHAINS];
    int nchains;
    /* recording the L1 plan (sched_lower_l1): CBs that exist only at other
       values than the probe's, each alone in its CB */
    bool record;
    lw_virt virt[LW_MAX_TEMPS];
    int nvirt;
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

static void fail(lw *L, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void fail(lw *L, lm_loc loc, const char *fmt, ...)
{
    if (L->failed)
        return;
    L->failed = true;
    va_list ap;
    va_start(ap, fmt);
    lm_buf b = {0};
    lm_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (loc.file)
        lm_error(L->d, loc, "cannot lower: %s", lm_buf_str(&b));
    else
        lm_error_plain(L->d, "cannot lower: %s", lm_buf_str(&b));
    lm_buf_free(&b);
}

/* ---- evaluation under the schedule's values ------------------------------- */

static bool ev(lw *L, const sym_expr *e, int64_t *out, lm_loc loc)
{
    sym_status st = sym_eval(e, &L->s->values, out);
    if (st == SYM_OK)
        return true;
    if (st == SYM_UNBOUND) {
        const sym_expr *vars[8];
        int n = sym_vars(e, vars, 8);
        const char *name = "?";
        for (int i = 0; i < n; i++) {
            int64_t lo, hi;
            if (!sym_env_get(&L->s->values, vars[i], &lo, &hi)) {
                name = vars[i]->name;
                break;
            }
        }
        fail(L, loc, "the schedule gives no value to '%s' (in %s)", name, sym_str(&L->ar, e));
    } else {
        fail(L, loc, "%s cannot be evaluated (division by zero or overflow)", sym_str(&L->ar, e));
    }
    return false;
}

static int64_t evd(lw *L, const sym_expr *e, int64_t dflt)
{
    int64_t v;
    return sym_eval(e, &L->s->values, &v) == SYM_OK ? v : dflt;
}

static int64_t value_of(lw *L, const char *name, int64_t dflt)
{
    return evd(L, sym_var(L->sc, name), dflt);
}

static int64_t cdiv64(int64_t a, int64_t b) { return (a + b - 1) / b; }

static bool elem_format(lw *L, tir_elem e, arch_format *f, lm_loc loc)
{
    switch (e) {
    case TIR_BF16:
        *f = ARCH_BF16;
        return true;
    case TIR_F32:
        *f = ARCH_FP32;
        return true;
    case TIR_F16:
        /* the descriptions have no f16 tile format: f16 values are exact in
           fp32 tiles (the rounding of f16 intermediates is not modelled) */
        *f = ARCH_FP32;
        return true;
    default:
        fail(L, loc, "%s tiles have no tile format on this chip (bf16, f16 and f32 are supported)", tir_elem_name(e));
        return false;
    }
}

/* The 2-D element shape of a tile type: leading 1s dropped, a vector is a
 * column [N, 1], a scalar [1, 1]. */
static bool shape2d(lw *L, const tir_type *t, int64_t *er, int64_t *ec, int *rank, const sym_expr **ser,
                    const sym_expr **sec, lm_loc loc)
{
    const sym_expr *one = sym_const(L->sc, 1);
    int64_t dims[TIR_MAX_RANK] = {0};
    for (int d = 0; d < t->rank; d++)
        if (!ev(L, t->shape[d], &dims[d], loc))
            return false;
    /* dimensions of extent 1 carry no data: a [1, NS, 1, D] block is the
       [NS, D] tile it holds; a lone extent is a column [N, 1] unless it is
       the last dimension of a longer shape ([1, N], a row) */
    int idx[TIR_MAX_RANK], nd = 0;
    for (int d = 0; d < t->rank; d++)
        if (dims[d] != 1)
            idx[nd++] = d;
    if (nd > 2) {
        fail(L, loc, "a tile with more than two dimensions above 1 (%s)", tir_type_str(&L->ar, t));
        return false;
    }
    *ser = *sec = one;
    if (t->rank == 0) {
        *rank = 0;
        *er = *ec = 1;
    } else if (nd == 2) {
        *rank = 2;
        *er = dims[idx[0]], *ec = dims[idx[1]];
        *ser = t->shape[idx[0]], *sec = t->shape[idx[1]];
    } else if (nd == 1 && t->rank == 1) {
        *rank = 1;
        *er = dims[idx[0]], *ec = 1;
        *ser = t->shape[idx[0]];
    } else if (nd == 1) {
        *rank = 2;
        bool last = idx[0] == t->rank - 1;
        *er = last ? 1 : dims[idx[0]];
        *ec = last ? dims[idx[0]] : 1;
        *(last ? sec : ser) = t->shape[idx[0]];
    } else {
        *rank = t->rank == 1 ? 1 : 2;
        *er = *ec = 1;
    }
    return true;
}

/* ======================================================================
 * Classification of values (program order)
 * ==================================================================== */

static vinfo *V(lw *L, const tir_value *x) { return &L->v[x->uid]; }

/* The CB format of the compute kernel's f32 values: fp32, or bf16 when the
 * schedule keeps its intermediates in 16-bit CBs (TTNN's SDPA). */
static arch_format interm_format(const lw *L) { return L->s->interm_16b ? ARCH_BF16 : ARCH_FP32; }

static void set_tile(lw *L, const tir_value *x, int root, lm_loc loc)
{
    vinfo *v = V(L, x);
    v->kind = VK_TILE;
    v->root = root;
    v->st = -1;
    if (!shape2d(L, &x->type, &v->er, &v->ec, &v->rank, &v->ser, &v->sec, loc))
        return;
    v->tr = cdiv64(v->er, LW_TILE);
    v->tc = cdiv64(v->ec, LW_TILE);
    if (tir_elem_is_float(x->type.elem) && elem_format(L, x->type.elem, &v->fmt, loc) && v->fmt == ARCH_FP32)
        v->fmt = interm_format(L);
}

static bool is_tile_value(const tir_value *x)
{
    return x->type.kind == TIR_TILE && x->type.rank >= 0 && tir_elem_is_float(x->type.elem);
}

/* Integer tiles and masks: map the coefficients of a value of rank `from`
 * and 2-D shape (fr, fc) onto a value of rank `to` and shape (tr_, tc_). */
static void redim(int64_t c[2], int from, int64_t fr, int64_t fc, int to, int64_t tr_, int64_t tc_)
{
    (void)fc;
    if (from == to)
        return;
    if (from <= 1 && to == 2) {
        /* a vector becomes a column ([N, 1]) or a row ([1, N], or numpy's
           leading dimension of a broadcast) */
        int64_t ci = c[0];
        if (from == 1 && tr_ == fr && (tc_ == 1 || fr != 1) && !(tr_ == 1 && tc_ != 1))
            c[0] = ci, c[1] = 0;
        else
            c[0] = 0, c[1] = ci;
        return;
    }
    if (from == 2 && to <= 1) {
        c[0] = c[0] ? c[0] : c[1];
        c[1] = 0;
    }
}

static void classify_block(lw *L, const tir_block *b);
static bool is_alias_op(tir_opcode c);

static bool host_float(lw *L, const tir_value *x, double *out)
{
    const vinfo *v = V(L, x);
    if (v->kind == VK_CONST) {
        *out = v->c;
        return true;
    }
    return false;
}

static void classify_index(lw *L, const tir_op *op)
{
    const tir_value *r = op->results[0];
    vinfo *v = V(L, r);
    int64_t er, ec;
    int rank;
    const sym_expr *ser, *sec;
    if (!shape2d(L, &r->type, &er, &ec, &rank, &ser, &sec, op->loc))
        return;
    v->rank = rank;
    v->er = er;
    v->ec = ec;
    switch (op->code) {
    case TIR_ARANGE:
        v->kind = VK_INDEX;
        v->ic[0] = 1;
        v->ic[1] = 0;
        v->ik = op->sym ? op->sym : sym_const(L->sc, 0);
        return;
    case TIR_SPLAT: {
        const tir_value *x = op->opnds[0];
        if (V(L, x)->kind == VK_INDEX || V(L, x)->kind == VK_MASK) {
            *v = *V(L, x);
            v->rank = rank, v->er = er, v->ec = ec;
            return;
        }
        if (!x->sym) {
            fail(L, op->loc, "an integer tile built from a value with no symbolic form");
            return;
        }
        v->kind = VK_INDEX;
        v->ic[0] = v->ic[1] = 0;
        v->ik = x->sym;
        return;
    }
    case TIR_EXPAND_DIMS:
    case TIR_BROADCAST:
    case TIR_VIEW: {
        const vinfo *x = V(L, op->opnds[0]);
        if (x->kind != VK_INDEX && x->kind != VK_MASK) {
            fail(L, op->loc, "an integer or boolean tile the lowering cannot express as index arithmetic");
            return;
        }
        *v = *x;
        v->rank = rank, v->er = er, v->ec = ec;
        if (op->code == TIR_EXPAND_DIMS && x->rank == 1 && rank == 2) {
            int64_t cc[2] = {0, 0};
            if (v->kind == VK_INDEX) {
                cc[op->ival == 0 ? 1 : 0] = x->ic[0];
                v->ic[0] = cc[0], v->ic[1] = cc[1];
            } else {
                for (int i = 0; i < v->np; i++) {
                    int64_t c0 = x->p[i].c[0];
                    v->p[i].c[0] = op->ival == 0 ? 0 : c0;
                    v->p[i].c[1] = op->ival == 0 ? c0 : 0;
                }
            }
            return;
        }
        if (v->kind == VK_INDEX)
            redim(v->ic, x->rank, x->er, x->ec, rank, er, ec);
        else
            for (int i = 0; i < v->np; i++)
                redim(v->p[i].c, x->rank, x->er, x->ec, rank, er, ec);
        return;
    }
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_INDEX || b->kind != VK_INDEX) {
            fail(L, op->loc, "integer tile arithmetic on values the lowering cannot follow");
            return;
        }
        v->kind = VK_INDEX;
        if (op->code == TIR_MUL) {
            int64_t ka;
            const vinfo *sc = NULL, *ot = NULL;
            if (!b->ic[0] && !b->ic[1] && sym_is_const(sym_subst(L->sc, b->ik, &L->s->values), &ka))
                sc = b, ot = a;
            else if (!a->ic[0] && !a->ic[1] && sym_is_const(sym_subst(L->sc, a->ik, &L->s->values), &ka))
                sc = a, ot = b;
            if (!sc) {
                fail(L, op->loc, "a product of two index tiles is not affine");
                return;
            }
            v->ic[0] = ot->ic[0] * ka;
            v->ic[1] = ot->ic[1] * ka;
            v->ik = sym_mul(L->sc, ot->ik, sym_const(L->sc, ka));
            return;
        }
        int sg = op->code == TIR_SUB ? -1 : 1;
        v->ic[0] = a->ic[0] + sg * b->ic[0];
        v->ic[1] = a->ic[1] + sg * b->ic[1];
        v->ik = sg > 0 ? sym_add(L->sc, a->ik, b->ik) : sym_sub(L->sc, a->ik, b->ik);
        return;
    }
    case TIR_CMP_LT:
    case TIR_CMP_LE:
    case TIR_CMP_GT:
    case TIR_CMP_GE: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_INDEX || b->kind != VK_INDEX) {
            fail(L, op->loc, "a comparison of data values used as a mask (only masks built from tl.arange "
                             "and program/loop indices can be lowered)");
            return;
        }
        /* a < b  <=>  b - a - 1 >= 0, ... */
        bool ab = op->code == TIR_CMP_GT || op->code == TIR_CMP_GE; /* a - b */
        bool strict = op->code == TIR_CMP_LT || op->code == TIR_CMP_GT;
        const vinfo *x = ab ? a : b, *y = ab ? b : a;
        v->kind = VK_MASK;
        v->np = 1;
        v->p[0].c[0] = x->ic[0] - y->ic[0];
        v->p[0].c[1] = x->ic[1] - y->ic[1];
        v->p[0].k = sym_sub(L->sc, x->ik, y->ik);
        if (strict)
            v->p[0].k = sym_sub(L->sc, v->p[0].k, sym_const(L->sc, 1));
        return;
    }
    case TIR_AND: {
        const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
        if (a->kind != VK_MASK || b->kind != VK_MASK || a->np + b->np > LW_MAX_PRED) {
            fail(L, op->loc, "a mask the lowering cannot follow (only '&' of index comparisons)");
            return;
        }
        v->kind = VK_MASK;
        v->np = 0;
        for (int i = 0; i < a->np; i++)
            v->p[v->np++] = a->p[i];
        for (int i = 0; i < b->np; i++)
            v->p[v->np++] = b->p[i];
        return;
    }
    case TIR_NOT: {
        const vinfo *a = V(L, op->opnds[0]);
        if (a->kind != VK_MASK || a->np != 1) {
            fail(L, op->loc, "the negation of a compound mask is a disjunction, which 'mask' cannot express");
            return;
        }
        v->kind = VK_MASK;
        v->np = 1;
        v->p[0].c[0] = -a->p[0].c[0];
        v->p[0].c[1] = -a->p[0].c[1];
        v->p[0].k = sym_sub(L->sc, sym_neg(L->sc, a->p[0].k), sym_const(L->sc, 1));
        return;
    }
    default:
        fail(L, op->loc, "integer tile op '%s' has no dataflow counterpart", tir_op_name(op->code));
        return;
    }
}

static double fold(tir_opcode c, double a, double b)
{
    switch (c) {
    case TIR_ADD: return a + b;
    case TIR_SUB: return a - b;
    case TIR_MUL: return a * b;
    case TIR_DIV: return a / b;
    case TIR_MAX: return a > b ? a : b;
    case TIR_MIN: return a < b ? a : b;
    case TIR_NEG: return -a;
    case TIR_EXP: return exp(a);
    case TIR_EXP2: return exp2(a);
    case TIR_LOG: return log(a);
    case TIR_LOG2: return log2(a);
    default: return NAN;
    }
}

static void classify_op(lw *L, const tir_op *op)
{
    if (L->failed)
        return;
    if (op->code == TIR_FOR) {
        const tir_block *body = op->regions[0];
        for (int i = 0; i < tir_for_ncarried(op); i++) {
            const tir_value *arg = tir_for_arg(op, i), *res = op->results[i];
            if (is_tile_value(arg) && arg->type.rank > 0) {
                set_tile(L, arg, arg->uid, op->loc);
                set_tile(L, res, res->uid, op->loc);
                V(L, arg)->rl = R_OLD;
                V(L, res)->rl = R_RESULT;
            } else if (is_tile_value(arg)) {
                fail(L, op->loc, "a loop-carried float scalar ('%s') has no dataflow counterpart",
                     arg->name ? arg->name : "?");
            }
        }
        classify_block(L, body);
        return;
    }
    if (op->code == TIR_IF) {
        fail(L, op->loc, "a branch inside the kernel (only constexpr conditions, resolved at compile time, "
                         "can be lowered)");
        return;
    }
    if (op->nresults != 1)
        return;
    const tir_value *r = op->results[0];
    vinfo *v = V(L, r);
    if (r->type.kind != TIR_TILE)
        return; /* pointers, block pointers, descriptors */
    bool data_cmp = tir_op_has(op->code, TIR_P_CMP) && op->nopnds == 2 &&
                    (tir_elem_is_float(op->opnds[0]->type.elem) || tir_elem_is_float(op->opnds[1]->type.elem));
    bool data_view = is_alias_op(op->code) && op->nopnds == 1 && V(L, op->opnds[0])->kind == VK_TILE;
    if (data_cmp) {
        /* a condition computed from data: a tile of 1.0 and 0.0 */
        set_tile(L, r, r->uid, op->loc);
        V(L, r)->fmt = interm_format(L);
        return;
    }
    if (!tir_elem_is_float(r->type.elem) && !data_view) {
        if (r->type.rank == 0)
            return; /* integer scalars: their symbolic values suffice */
        classify_index(L, op);
        return;
    }
    double a, b;
    switch (op->code) {
    case TIR_CONST:
        v->kind = VK_CONST;
        v->c = op->fval;
        return;
    case TIR_FULL:
        v->kind = VK_CONST;
        v->c = op->is_float ? op->fval : (double)op->ival;
        return;
    case TIR_CAST:
        if (host_float(L, op->opnds[0], &a)) {
            v->kind = VK_CONST;
            v->c = a;
            return;
        }
        if (!tir_elem_is_float(op->opnds[0]->type.elem)) {
            fail(L, op->loc, "a cast from an integer tile has no dataflow counterpart");
            return;
        }
        if (L->s->interm_16b && V(L, op->opnds[0])->kind == VK_TILE) {
            /* with 16-bit intermediates a cast between two float types that
               land in one CB format changes nothing: a view */
            const vinfo *xi = V(L, op->opnds[0]);
            arch_format rf;
            if (elem_format(L, r->type.elem, &rf, op->loc) && (rf == ARCH_FP32 ? interm_format(L) : rf) ==
                                                                   L->v[xi->root].fmt) {
                set_tile(L, r, xi->root, op->loc);
                v->bc = xi->bc;
                v->trans = xi->trans;
                v->tview = xi->tview;
                return;
            }
        }
        break;
    case TIR_SPLAT:
    case TIR_BROADCAST:
    case TIR_EXPAND_DIMS:
    case TIR_VIEW:
    case TIR_TRANS: {
        const tir_value *x = op->opnds[0];
        const vinfo *xi = V(L, x);
        if (xi->kind == VK_CONST) {
            v->kind = VK_CONST;
            v->c = xi->c;
            return;
        }
        if (xi->kind != VK_TILE) {
            fail(L, op->loc, "'%s' of a value the lowering does not hold in tiles", tir_op_name(op->code));
            return;
        }
        set_tile(L, r, xi->root, op->loc);
        v->bc = xi->bc;
        v->trans = xi->trans;
        v->tview = xi->tview;
        if (op->code == TIR_TRANS) {
            if (xi->bc != BC_NONE || xi->rank != 2) {
                fail(L, op->loc, "a transpose of a broadcast or a vector");
                return;
            }
            v->trans = !xi->trans;
            return;
        }
        if (xi->bc == BC_SCALAR || xi->rank == 0) {
            v->bc = BC_SCALAR;
            return;
        }
        if (v->er == xi->er && v->ec == xi->ec)
            return; /* same data, shape differs only by 1s */
        if (xi->bc == BC_NONE && xi->ec == 1 && v->er == xi->er && v->rank == 2) {
            v->bc = BC_COL; /* a column vector repeated across the columns */
            return;
        }
        if (xi->ec == 1 && v->er == 1 && v->ec == xi->er) {
            v->tview = true; /* [1, N] of a column vector: would need a transpose */
            return;
        }
        if (xi->bc == BC_COL && v->er == xi->er) {
            v->bc = BC_COL;
            return;
        }
        fail(L, op->loc, "a broadcast from %s to %s the tile ops cannot express", tir_type_str(&L->ar, &x->type),
             tir_type_str(&L->ar, &r->type));
        return;
    }
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_MIN:
        if (host_float(L, op->opnds[0], &a) && host_float(L, op->opnds[1], &b)) {
            v->kind = VK_CONST;
            v->c = fold(op->code, a, b);
            return;
        }
        break;
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
        if (host_float(L, op->opnds[0], &a)) {
            v->kind = VK_CONST;
            v->c = fold(op->code, a, 0);
            return;
        }
        break;
    case TIR_WHERE:
    case TIR_DOT:
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_SUM:
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        break;
    default:
        fail(L, op->loc, "'%s' on float tiles has no dataflow counterpart", tir_op_name(op->code));
        return;
    }
    /* a new root: computed on the chip (unary ops and casts of a broadcast
       view compute on the root and stay broadcast) */
    set_tile(L, r, r->uid, op->loc);
    if ((tir_op_has(op->code, TIR_P_UNARY) || op->code == TIR_CAST) && V(L, op->opnds[0])->kind == VK_TILE) {
        const vinfo *x = V(L, op->opnds[0]);
        if (x->bc != BC_NONE) {
            const vinfo *xr = &L->v[x->root];
            v->bc = x->bc;
            v->er = xr->er, v->ec = xr->ec, v->tr = xr->tr, v->tc = xr->tc, v->rank = xr->rank;
            v->ser = xr->ser, v->sec = xr->sec;
        }
    }
}

static void classify_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next)
        classify_op(L, op);
}

/* ======================================================================
 * Uses and lifetimes
 * ==================================================================== */

static bool is_alias_op(tir_opcode c)
{
    return c == TIR_VIEW || c == TIR_EXPAND_DIMS || c == TIR_BROADCAST || c == TIR_TRANS || c == TIR_SPLAT;
}

static const tir_block *def_block(const tir_value *x)
{
    if (x->def)
        return x->def->parent;
    return x->block;
}

/* The op of block b that is or contains op u. */
static const tir_op *top_in(const tir_op *u, const tir_block *b)
{
    while (u && u->parent != b)
        u = u->parent ? u->parent->owner : NULL;
    return u;
}

static int pos(lw *L, const tir_op *op);

static void note_use(lw *L, const tir_value *x, const tir_op *u)
{
    const vinfo *xi = V(L, x);
    if (xi->kind != VK_TILE)
        return;
    vinfo *r = &L->v[xi->root];
    r->nuses++;
    const tir_op *t = top_in(u, r->defblk);
    if (!t)
        return;
    if (!r->first_top || pos(L, t) < pos(L, r->first_top) ||
        (t == r->first_top && pos(L, u) < pos(L, r->first_use))) {
        if (!r->first_top || pos(L, t) < pos(L, r->first_top))
            r->first_top = t;
        if (!r->first_use || pos(L, u) < pos(L, r->first_use))
            r->first_use = u;
    }
    if (!r->last_top || pos(L, t) > pos(L, r->last_top))
        r->last_top = t;
}

/* Op positions: the preorder number of each op, found by a walk; ops are
 * few, so a linear table keyed by pointer is enough. */
typedef struct opnum {
    const tir_op *op;
    int pos, end;
} opnum;
typedef LM_VEC(opnum) opnums;

static void number_block(lw *L, const tir_block *b, opnums *out)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        size_t me = out->len;
        opnum n = {op, (int)out->len, 0};
        LM_PUSH(out, n);
        for (int r = 0; r < op->nregions; r++)
            number_block(L, op->regions[r], out);
        out->items[me].end = (int)out->len - 1;
    }
}

static int pos(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->nnums; i++)
        if (L->nums[i].op == op)
            return L->nums[i].pos;
    return -1;
}

static void uses_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->code == TIR_YIELD) {
            const tir_op *f = b->owner;
            for (int i = 0; i < op->nopnds; i++) {
                /* yielding the carried value itself is no use of it */
                if (f && f->code == TIR_FOR && op->opnds[i] == tir_for_arg(f, i))
                    continue;
                note_use(L, op->opnds[i], op);
            }
        } else if (!((is_alias_op(op->code) || op->code == TIR_CAST) && op->nresults == 1 &&
                     V(L, op->results[0])->kind == VK_TILE && V(L, op->results[0])->root != op->results[0]->uid)) {
            for (int i = 0; i < op->nopnds; i++)
                note_use(L, op->opnds[i], op);
        }
        for (int r = 0; r < op->nregions; r++)
            uses_block(L, op->regions[r]);
    }
}

static void defblocks(lw *L, const tir_block *b)
{
    for (int i = 0; i < b->nargs; i++)
        V(L, b->args[i])->defblk = b;
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            V(L, op->results[i])->defblk = def_block(op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            defblocks(L, op->regions[r]);
    }
}

/* The only op using root r (through aliases), or NULL. */
static const tir_op *only_use(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    return ri->nuses == 1 ? ri->first_use : NULL;
}

/* ======================================================================
 * Stores, CBs and destinations
 * ==================================================================== */

static int new_store(lw *L, stkind kind, int64_t tiles, int64_t pages, arch_format fmt, lm_loc loc)
{
    if (L->nst == LW_MAX_STORES) {
        fail(L, loc, "more than %d buffers", LW_MAX_STORES);
        return 0;
    }
    store *s = &L->st[L->nst];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->cb = -1;
    s->tiles = tiles;
    s->pages = pages;
    s->fmt = fmt;
    s->first = s->last = -1;
    return L->nst++;
}

/* Tiles of an er x ec element block, as an expression. */
static const sym_expr *sym_tiles(lw *L, const sym_expr *er, const sym_expr *ec)
{
    const sym_expr *t = sym_const(L->sc, LW_TILE);
    return sym_mul(L->sc, sym_cdiv(L->sc, er, t), sym_cdiv(L->sc, ec, t));
}

static const sym_expr *vtiles(lw *L, const vinfo *v) { return sym_tiles(L, v->ser, v->sec); }

/* The L1 plan's view of store s: its pages as tiles x mult. */
static void store_sym(lw *L, int s, const sym_expr *tiles, const sym_expr *mult, const char *what)
{
    store *st = &L->st[s];
    st->stiles = tiles;
    st->smult = mult ? mult : sym_const(L->sc, 1);
    st->what = what;
}

/* 1 when e > 0, else 0 (e >= 0). */
static const sym_expr *positive(lw *L, const sym_expr *e)
{
    return sym_min(L->sc, sym_const(L->sc, 1), sym_max(L->sc, sym_const(L->sc, 0), e));
}

/* A CB the probe's values leave out but others need (recorded once per op
 * and step), alone in its CB. */
static void plan_virtual(lw *L, const tir_op *op, int k, arch_format fmt, const sym_expr *bytes, const char *what)
{
    if (!L->record)
        return;
    for (int i = 0; i < L->nvirt; i++)
        if (L->virt[i].op == op && L->virt[i].k == k)
            return;
    if (L->nvirt == LW_MAX_TEMPS)
        return;
    L->virt[L->nvirt++] = (lw_virt){op, k, fmt, bytes, what};
}

static int next_cb(lw *L, lm_loc loc)
{
    int *n = L->la ? &L->la->ncbs : &L->ncbs; /* a fused consumer's ids follow its producer's */
    if (*n >= L->a->num_cbs) {
        fail(L, loc, "the program needs more than the %d circular buffers of a core", L->a->num_cbs);
        return 0;
    }
    return (*n)++;
}

static bool is_compute_root(lw *L, int r)
{
    const tir_value *x = NULL;
    (void)x;
    const vinfo *ri = &L->v[r];
    return ri->kind == VK_TILE && ri->root == r && ri->rl == R_PLAIN && ri->st < 0;
}

static void record_defs(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            L->def[op->results[i]->uid] = op;
        for (int r = 0; r < op->nregions; r++)
            record_defs(L, op->regions[r]);
    }
}

static bool computed_by_compute(lw *L, int r)
{
    const tir_op *d = L->def[r];
    return d && is_compute_root(L, r) && d->code != TIR_LOAD && d->code != TIR_DESC_LOAD && d->code != TIR_FOR;
}

static void plan_loop(lw *L, const tir_op *f)
{
    const tir_block *body = f->regions[0];
    const tir_op *y = tir_yield_of(body);
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i), *res = f->results[i];
        vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        if (ai->bc != BC_NONE || ai->tview) {
            fail(L, f->loc, "a loop-carried broadcast");
            return;
        }
        int64_t T = ai->tr * ai->tc;
        /* the summary's buffer may keep it in another format (a baseline's
           bf16 partials under a block-float output) */
        for (int b = 0; b < L->k->nbufs; b++)
            if (L->k->bufs[b].kind == SCHED_BUF_CARRY && L->k->bufs[b].value == arg)
                ai->fmt = V(L, res)->fmt = L->k->bufs[b].format;
        if (ai->fmt == ARCH_FP32)
            ai->fmt = V(L, res)->fmt = interm_format(L);
        int sti = new_store(L, ST_CARRY, T, 2 * T, ai->fmt, f->loc);
        store_sym(L, sti, vtiles(L, ai), sym_const(L->sc, 2),
                  lm_arena_printf(&L->ar, "%s (carried)", arg->name ? arg->name : "a tile"));
        ai->st = sti;
        V(L, res)->st = sti;
        const tir_value *yv = y->opnds[i];
        const vinfo *yi = V(L, yv);
        if (yv == arg) {
            L->st[sti].pages = T;
            L->st[sti].smult = sym_const(L->sc, 1);
            continue;
        }
        if (yi->kind != VK_TILE || yi->bc != BC_NONE || yi->trans || yi->tview) {
            continue; /* copied (or filled) at the yield */
        }
        int r = yi->root;
        /* the accumulator pattern: zeros in, the only use is dot's acc, the
           dot's only use is this yield */
        const tir_op *d = L->def[r];
        const vinfo *init = V(L, tir_for_init(f, i));
        if (d && d->code == TIR_DOT && d->nopnds == 3 && d->parent == body && d->opnds[2] == arg &&
            ai->nuses == 1 && only_use(L, r) == y && init->kind == VK_CONST && init->c == 0.0) {
            store *s = &L->st[sti];
            s->inplace = true;
            s->pages = T;
            s->smult = sym_const(L->sc, 1);
            vinfo *ri = &L->v[r];
            ri->st = sti;
            ri->rl = R_NEW;
            ri->dest = D_CARRY;
            /* a loop that may run no trip must still leave zeros */
            sym_env env = {0};
            for (int g = 0; g < L->f->grid_rank; g++)
                sym_env_set_range(&env, tir_pid_var(L->sc, g), 0, L->ext[g] - 1);
            int64_t lo = 0, hi = 0;
            const sym_expr *trips = f->sym ? sym_subst(L->sc, f->sym, &L->s->values) : NULL;
            s->fill_first = !trips || sym_bounds(trips, &env, &lo, &hi) != SYM_OK || lo < 1;
            sym_env_free(&env);
            continue;
        }
        bool twice = false;
        for (int j = 0; j < y->nopnds; j++)
            if (j != i && y->opnds[j] != tir_for_arg(f, j) && V(L, y->opnds[j])->kind == VK_TILE &&
                V(L, y->opnds[j])->root == r)
                twice = true;
        if (!twice && d && d->parent == body && computed_by_compute(L, r) && L->v[r].dest == D_OWN) {
            vinfo *ri = &L->v[r];
            ri->st = sti;
            ri->rl = R_NEW;
            ri->dest = D_CARRY;
        }
    }
}

static void plan_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        if (op->code == TIR_FOR) {
            plan_block(L, op->regions[0]);
            plan_loop(L, op);
        }
    }
}

static void plan_dot_acc(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            plan_dot_acc(L, op->regions[r]);
        if (op->code != TIR_DOT || op->nopnds < 3)
            continue;
        const vinfo *acc = V(L, op->opnds[2]);
        const vinfo *res = V(L, op->results[0]);
        if (res->st >= 0 && L->st[res->st].inplace)
            continue;
        if (acc->kind != VK_TILE || acc->bc != BC_NONE || acc->trans)
            continue;
        int r = acc->root;
        const tir_op *d = L->def[r];
        if (d && d->parent == op->parent && computed_by_compute(L, r) && L->v[r].dest == D_OWN &&
            only_use(L, r) == op && d->code != TIR_DOT) {
            L->v[r].dest = D_DOT;
            L->v[r].dest_ref = op->results[0]->uid;
        }
    }
}

/* ======================================================================
 * Chains in Dst
 * ==================================================================== */

/* Ops whose tile op works element by element on the tiles of one block, so
 * that a value another such op makes can stay in Dst for it: arithmetic,
 * SFPU functions, casts and masks by index predicates (not comparisons or
 * selections on data, whose lowering reads an operand twice). */
static bool elementwise(lw *L, const tir_op *op)
{
    switch (op->code) {
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
    case TIR_CAST:
        return true;
    case TIR_WHERE:
        return V(L, op->opnds[0])->kind == VK_MASK;
    default:
        return false;
    }
}

static int access_of(lw *L, const tir_op *op);

/* Whether op puts anything into the compute kernel. */
static bool emits(lw *L, const tir_op *op)
{
    if (op->nregions || op->code == TIR_YIELD || op->code == TIR_STORE || op->code == TIR_DESC_STORE)
        return true;
    if (op->code == TIR_LOAD || op->code == TIR_DESC_LOAD) {
        int i = access_of(L, op);
        return i >= 0 && L->ax[i].clean;
    }
    if (op->nresults != 1)
        return false;
    const vinfo *v = V(L, op->results[0]);
    return v->kind == VK_TILE && v->root == op->results[0]->uid;
}

/* The op that takes op's result in Dst, or NULL: the result is a plain
 * value of the compute kernel (not carried, stored or added by a dot) that
 * is read once, directly (no view), by an element-wise op of the same block
 * with a result of the same shape, and no op that emits anything comes in
 * between. Decided on the Tile IR and the value's shape as expressions, so
 * that every schedule gets the same chains. */
static const tir_op *chain_target(lw *L, const tir_op *op)
{
    if (op->nresults != 1 || op->nregions || !elementwise(L, op))
        return NULL;
    const tir_value *res = op->results[0];
    int r = res->uid;
    const vinfo *ri = &L->v[r];
    if (ri->kind != VK_TILE || ri->root != r || ri->bc != BC_NONE || ri->trans || ri->tview || ri->st >= 0 ||
        ri->dest != D_OWN || ri->rl != R_PLAIN || !computed_by_compute(L, r))
        return NULL;
    const tir_op *q = only_use(L, r);
    if (!q || q->parent != op->parent || q->nresults != 1 || !elementwise(L, q))
        return NULL;
    bool direct = false;
    for (int i = 0; i < q->nopnds; i++)
        direct |= q->opnds[i] == res;
    const vinfo *qi = V(L, q->results[0]);
    if (!direct || qi->kind != VK_TILE || qi->root != q->results[0]->uid || qi->bc != BC_NONE || qi->trans ||
        qi->tview || qi->ser != ri->ser || qi->sec != ri->sec)
        return NULL;
    for (const tir_op *o = op->next; o && o != q; o = o->next)
        if (emits(L, o))
            return NULL;
    return q;
}

/* Values that stay in Dst between two element-wise ops: the pair becomes
 * one chain (no CB, no pack and unpack between them). The values the first
 * op reads live on to the end of the chain: the chain reads them when it
 * runs, so nothing may take their CB before. */
static void plan_chains(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            plan_chains(L, op->regions[r]);
        const tir_op *q = chain_target(L, op);
        if (!q || L->nchains == LW_MAX_CHAINS)
            continue;
        /* the links before this one */
        int links = 1;
        for (const tir_op *p = op; links <= LW_MAX_LINKS;) {
            int j = L->nchains - 1;
            while (j >= 0 && L->chain_to[j] != p)
                j--;
            if (j < 0)
                break;
            links++;
            p = L->chain_from[j];
        }
        if (links > LW_MAX_LINKS)
            continue;
        vinfo *ri = V(L, op->results[0]);
        ri->dest = D_DST;
        ri->dest_ref = q->results[0]->uid;
        L->chain_from[L->nchains] = op;
        L->chain_to[L->nchains++] = q;
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].last_top == op)
                L->v[u].last_top = q;
    }
}

/* ======================================================================
 * Accesses: tensors, tile coordinates, transports
 * ==================================================================== */

static int tensor_index(lw *L, const tir_tensor *t)
{
    for (int i = 0; i < L->p->ntensors; i++)
        if (!strcmp(L->p->tensors[i].name, t->name))
            return i;
    return -1;
}

static bool add_term(lw *L, access *x, const sym_expr *var, int64_t rc, int64_t cc)
{
    for (int i = 0; i < x->nterms; i++)
        if (x->var[i] == var) {
            x->rco[i] += rc;
            x->cco[i] += cc;
            return true;
        }
    if (x->nterms == (int)LM_COUNT(x->var))
        return false;
    x->var[x->nterms] = var;
    x->rco[x->nterms] = rc;
    x->cco[x->nterms] = cc;
    x->nterms++;
    (void)L;
    return true;
}

/* The block pointer or descriptor an access goes through: its make op,
 * followed back through advances and loop-carried arguments. */
static const tir_op *make_of(const tir_value *v)
{
    for (int guard = 0; v && guard < 64; guard++) {
        if (v->def) {
            if (v->def->code == TIR_MAKE_BLOCK_PTR || v->def->code == TIR_MAKE_DESC)
                return v->def;
            if (v->def->code != TIR_ADVANCE)
                return NULL;
            v = v->def->opnds[0];
        } else if (v->block && v->block->owner && v->block->owner->code == TIR_FOR && v->argno >= 1) {
            v = tir_for_init(v->block->owner, v->argno - 1);
        } else {
            return NULL;
        }
    }
    return NULL;
}

/* Per access dimension: whether a boundary check clips it (descriptors clip
 * every dimension, block pointers the dimensions listed) and its extent
 * (the tensor's, or the view's when the dimensions are a view's). */
static void clip_info(lw *L, const acc_access *aa, bool view, bool *checked, const sym_expr **ext)
{
    const tir_op *m = make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    bool desc = aa->op->code == TIR_DESC_LOAD || aa->op->code == TIR_DESC_STORE;
    for (int d = 0; d < aa->rank; d++) {
        checked[d] = desc;
        ext[d] = view && m ? m->opnds[1 + d]->sym : d < t->rank ? t->shape[d] : NULL;
    }
    if (desc || !m)
        return;
    int rk = m->rank;
    bool used[TIR_MAX_RANK] = {0};
    for (int i = 0; i < rk; i++) {
        if (!(aa->op->bcheck >> i & 1))
            continue;
        if (view) {
            checked[i] = true;
            continue;
        }
        /* the tensor dimension this view dimension walks (as the analysis matched it) */
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        int d = t->rank - 1;
        while (d >= 0 && (used[d] || !st || t->strides[d] != st))
            d--;
        if (d >= 0) {
            used[d] = true;
            checked[d] = true;
        }
    }
    (void)L;
}

/* True when the access analysis placed the access on its tensor's own
 * dimensions (every stride of the view is one of the tensor's); false when
 * the access's dimensions are a view's. */
static bool on_tensor_dims(const acc_access *aa)
{
    const tir_op *m = make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    if (!m || !t || !t->strides)
        return true;
    int rk = m->rank;
    if (aa->rank != rk)
        return true;
    bool all = aa->rank == t->rank;
    for (int i = 0; i < rk && i < TIR_MAX_RANK; i++) {
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        bool found = false;
        for (int d = 0; d < t->rank; d++)
            found |= st && t->strides[d] == st;
        all &= found;
    }
    return all;
}

/* on_tensor_dims, with the view's strides in out. */
static bool view_strides(lw *L, const acc_access *aa, int64_t *out)
{
    const tir_op *m = make_of(aa->op->opnds[0]);
    if (m)
        for (int i = 0; i < m->rank && i < TIR_MAX_RANK; i++) {
            const sym_expr *st = m->opnds[1 + m->rank + i]->sym;
            out[i] = 0;
            if (st)
                sym_eval(st, &L->s->values, &out[i]);
        }
    return on_tensor_dims(aa);
}

/* Whether an access reads or writes rows of several indices of the leading
 * dimensions as one run: its dimensions are a view's (q of [B, H, D] seen as
 * [B*HKV, H/HKV, D]), or a view dimension placed on dimension r-2 is longer
 * than it (o of [B, H, D] seen as [B*H, D]). */
static bool spans_leading(const acc_access *aa, int64_t inner, const sym_env *sizes)
{
    if (!on_tensor_dims(aa))
        return true;
    const tir_op *m = make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    if (!m || m->code != TIR_MAKE_BLOCK_PTR)
        return false;
    int rk = m->rank;
    bool used[TIR_MAX_RANK] = {0};
    for (int i = 0; i < rk; i++) {
        /* the tensor dimension the analysis placed view dimension i on */
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        int d = t->rank - 1;
        while (d >= 0 && (used[d] || !st || t->strides[d] != st))
            d--;
        if (d < 0)
            continue;
        used[d] = true;
        int64_t ext;
        if (d == t->rank - 2 && sym_eval(m->opnds[1 + i]->sym, sizes, &ext) == SYM_OK && ext > inner)
            return true;
    }
    return false;
}

bool sched_tensor_folds(const tir_tensor *t, const acc_result *const *acc, int n, const sym_env *sizes)
{
    int64_t inner;
    if (!t || t->rank < 3 || sym_eval(t->shape[t->rank - 2], sizes, &inner) != SYM_OK || inner == pad32(inner))
        return false; /* both layouts are the same */
    for (int l = 0; l < n; l++)
        for (int i = 0; acc[l] && i < acc[l]->n; i++)
            if (acc[l]->acc[i].tensor == t && spans_leading(&acc[l]->acc[i], inner, sizes))
                return true;
    return false;
}

/* The data-movement kernel that runs on a NoC: the simulator gives the
 * reader NoC 0 and the writer NoC 1 (TT-Metalium's defaults), so a transport
 * whose schedule fixes its NoC goes on that kernel. */
static df_kernel_kind noc_kernel(sched_noc n) { return n == SCHED_NOC_1 ? DF_WRITER : DF_READER; }

static bool plan_access(lw *L, int idx)
{
    const acc_access *aa = &L->acc->acc[idx];
    access *x = &L->ax[idx];
    x->aa = aa;
    x->index = idx;
    x->is_store = aa->is_store;
    x->sem_ready = x->sem_valid = -1;
    lm_loc loc = aa->op->loc;
    if (!aa->tensor) {
        fail(L, loc, "a block access whose tensor is unknown");
        return false;
    }
    if (!aa->affine) {
        fail(L, loc, "the offsets of this access of '%s' are not affine in the program and loop indices",
             aa->tensor->name);
        return false;
    }
    x->tensor = tensor_index(L, aa->tensor);
    int r = aa->rank;
    const tir_tensor *tt = aa->tensor;
    int tr_ = tt->rank;
    int64_t dim[TIR_MAX_RANK] = {0}, blk[TIR_MAX_RANK] = {0};
    for (int d = 0; d < tr_; d++)
        if (!ev(L, tt->shape[d], &dim[d], loc))
            return false;
    for (int d = 0; d < r; d++)
        if (!ev(L, aa->block[d], &blk[d], loc))
            return false;
    /* lrow[d]: rows of the 2-D layout a unit step along access dimension d
       moves; coldim: the dimension along the layout's columns. When the
       analysis placed the offsets on the tensor's dimensions they are those;
       otherwise they are a view's, whose strides say where each step goes. */
    int64_t lrow[TIR_MAX_RANK] = {0};
    int coldim = r - 1;
    int64_t vstride[TIR_MAX_RANK];
    bool view = !view_strides(L, aa, vstride);
    bool fold = tt->fold_rows;
    if (!view) {
        if (r >= 2) {
            lrow[r - 2] = 1;
            for (int d = r - 3; d >= 0; d--)
                lrow[d] = lrow[d + 1] * (d + 1 == r - 2 && !fold ? pad32(dim[r - 2]) : dim[d + 1]);
        }
    } else {
        /* row-major element offsets of the view, laid onto the tensor's rows:
           exact when its rows are not padded, or there is one group of them,
           or the layout folds the leading dimensions into rows */
        int64_t rowlen = tr_ >= 1 ? dim[tr_ - 1] : 1, lead = 1;
        for (int d = 0; d + 2 < tr_; d++)
            lead *= dim[d];
        bool ok = rowlen == pad32(rowlen) &&
                  (tr_ < 2 || lead == 1 || fold || dim[tr_ - 2] == pad32(dim[tr_ - 2]));
        coldim = -1;
        for (int d = 0; ok && d < r; d++) {
            if (vstride[d] == 1 && coldim < 0)
                coldim = d;
            else if (vstride[d] % rowlen == 0)
                lrow[d] = vstride[d] / rowlen;
            else
                ok = false;
        }
        if (!ok || coldim < 0) {
            fail(L, loc, "the view of '%s' (strides that are not the tensor's) does not map onto its tile layout",
                 tt->name);
            return false;
        }
    }
    /* The block's rows: contiguous when the dimensions that span more than
       one index nest exactly (each step of an outer one is a whole inner
       run), or evenly spaced when a single one spans (e.g. one row per
       split); anything else is refused. */
    int64_t rows_el = 1, rstride = 1;
    int span[TIR_MAX_RANK], nspan = 0;
    for (int d = 0; d < r; d++)
        if (d != coldim && blk[d] > 1) {
            rows_el *= blk[d];
            span[nspan++] = d;
        }
    for (int i = 1; i < nspan; i++) /* outermost (largest step) first */
        for (int j = i; j > 0 && lrow[span[j - 1]] < lrow[span[j]]; j--) {
            int t = span[j];
            span[j] = span[j - 1];
            span[j - 1] = t;
        }
    if (nspan == 1) {
        rstride = lrow[span[0]];
    } else if (nspan > 1) {
        bool nested = lrow[span[nspan - 1]] == 1;
        for (int i = 0; i + 1 < nspan; i++)
            nested &= lrow[span[i]] == blk[span[i + 1]] * lrow[span[i + 1]];
        if (!nested) {
            fail(L, loc, "the block of '%s' is spread over its tile layout in more than one direction", tt->name);
            return false;
        }
    }
    int64_t cols_el = coldim >= 0 ? blk[coldim] : 1;
    /* boundary checks that can cut a block short: only the elements inside
       move (the rest of the pages keep what they held) */
    bool checked[TIR_MAX_RANK];
    const sym_expr *ext[TIR_MAX_RANK];
    clip_info(L, aa, view, checked, ext);
    for (int d = 0; d < r; d++) {
        int64_t e;
        if (!checked[d] || !ext[d] || sym_eval(ext[d], &L->s->values, &e) != SYM_OK || blk[d] <= 1)
            continue;
        /* whole blocks: the extent and every offset are multiples of the block
           (an offset with another remainder can still cross the end) */
        bool aligned = e % blk[d] == 0 && e >= blk[d] && aa->dims[d].affine;
        int64_t v = 0;
        if (aligned && aa->dims[d].constant)
            aligned = sym_eval(aa->dims[d].constant, &L->s->values, &v) == SYM_OK && v % blk[d] == 0;
        for (int t = 0; aligned && t < aa->dims[d].nterms; t++)
            aligned = sym_eval(aa->dims[d].terms[t].coeff, &L->s->values, &v) == SYM_OK && v % blk[d] == 0;
        if (aligned)
            continue;
        const sym_expr *left = sym_sub(L->sc, ext[d], aa->dims[d].offset ? aa->dims[d].offset : sym_const(L->sc, 0));
        if (d == coldim)
            x->clip_cols = left;
        else if (nspan == 1 && span[0] == d)
            x->clip_rows = left;
        else {
            fail(L, loc, "a boundary check of '%s' cuts its block along a dimension the element moves cannot "
                         "shorten", tt->name);
            return false;
        }
    }
    x->rows_el = rows_el;
    x->cols_el = cols_el;
    x->rstride = rstride;
    x->coldim = coldim;
    memcpy(x->lrow, lrow, sizeof x->lrow);
    x->tr = cdiv64(rows_el, LW_TILE);
    x->tc = cdiv64(cols_el, LW_TILE);
    x->tiles = x->tr * x->tc;
    int64_t rk = 0, ck = 0;
    for (int d = 0; d < r; d++) {
        const acc_dim *ad = &aa->dims[d];
        int64_t cst;
        if (!ev(L, ad->constant ? ad->constant : sym_const(L->sc, 0), &cst, loc))
            return false;
        bool is_col = d == coldim;
        if (is_col)
            ck += cst;
        else
            rk += cst * lrow[d];
        for (int t = 0; t < ad->nterms; t++) {
            int64_t co;
            if (!ev(L, ad->terms[t].coeff, &co, loc))
                return false;
            if (!add_term(L, x, ad->terms[t].var, is_col ? 0 : co * lrow[d], is_col ? co : 0)) {
                fail(L, loc, "too many index terms in an access of '%s'", aa->tensor->name);
                return false;
            }
        }
    }
    /* A padded dimension r-2 (not a multiple of 32) must not be walked past
       its extent by an offset: the next index lives a padded stride away. */
    if (!view && !fold && r >= 2 && dim[r - 2] != pad32(dim[r - 2])) {
        int64_t hi = 0;
        const acc_dim *ad = &aa->dims[r - 2];
        int64_t cst = 0;
        bool known = ev(L, ad->constant ? ad->constant : sym_const(L->sc, 0), &cst, loc);
        hi = cst;
        for (int t = 0; known && t < ad->nterms; t++) {
            int64_t co = 0, vmax = -1;
            known = ev(L, ad->terms[t].coeff, &co, loc);
            const char *vn = ad->terms[t].var->name;
            if (!strncmp(vn, "pid.", 4) && atoi(vn + 4) < L->f->grid_rank)
                vmax = L->ext[atoi(vn + 4)] - 1;
            else
                known = false; /* a loop index: bounded by the loop, not checked here */
            if (known)
                hi += co > 0 ? co * vmax : 0;
        }
        if (known && hi >= dim[r - 2]) {
            fail(L, loc, "an offset of '%s' along its dimension %d reaches %lld, past its extent %lld, which the tile "
                         "layout pads to %lld (view the tensor so that the offset stays inside, or make the extent a "
                         "multiple of %d)", aa->tensor->name, r - 2, (long long)hi, (long long)dim[r - 2],
                 (long long)pad32(dim[r - 2]), LW_TILE);
            return false;
        }
    }
    /* Whole tiles when the block starts on a tile boundary and its rows are
       contiguous; a store also needs whole tiles (it must not write what
       lies beside the block). Otherwise the block moves element by element. */
    bool aligned = rk % LW_TILE == 0 && ck % LW_TILE == 0 && rstride == 1;
    for (int t = 0; t < x->nterms; t++)
        aligned &= x->rco[t] % LW_TILE == 0 && x->cco[t] % LW_TILE == 0;
    if (x->is_store && (rows_el % LW_TILE || cols_el % LW_TILE))
        aligned = false;
    bool aligned0 = aligned; /* before the boundary checks (the L1 plan's indicator covers them) */
    if (x->clip_rows || x->clip_cols)
        aligned = false;
    x->elems = !aligned;
    x->r0 = aligned ? rk / LW_TILE : rk;
    x->c0 = aligned ? ck / LW_TILE : ck;
    if (aligned)
        for (int t = 0; t < x->nterms; t++)
            x->rco[t] /= LW_TILE, x->cco[t] /= LW_TILE;
    /* depth: the summary's buffer, else depth.<tensor>, else 2 (loads) / 1 (stores) */
    int64_t depth = -1;
    for (int b = 0; b < L->k->nbufs; b++)
        if (L->k->bufs[b].access == idx && L->k->bufs[b].depth)
            depth = evd(L, L->k->bufs[b].depth, -1);
    if (depth < 1)
        depth = value_of(L, lm_arena_printf(&L->ar, "depth.%s", aa->tensor->name), x->is_store ? 1 : 2);
    if (depth < 1)
        depth = 1;
    x->depth = depth;
    /* the same as expressions, for the L1 plan */
    const sym_expr *srows = sym_const(L->sc, 1), *sclip = sym_const(L->sc, 0);
    for (int d = 0; d < r; d++) {
        if (d != coldim && blk[d] > 1)
            srows = sym_mul(L->sc, srows, aa->block[d]);
        int64_t e;
        if (checked[d] && ext[d] && sym_eval(ext[d], &L->s->values, &e) == SYM_OK)
            sclip = sym_add(L->sc, sclip, sym_mod(L->sc, ext[d], aa->block[d]));
    }
    const sym_expr *scols = coldim >= 0 ? aa->block[coldim] : sym_const(L->sc, 1);
    x->stiles = sym_tiles(L, srows, scols);
    x->sclip = positive(L, sclip);
    /* element moves issue one command per row and tile column the row
       crosses; whole tiles one per tile */
    const sym_expr *selems = sym_mul(L->sc, srows, sym_cdiv(L->sc, scols, sym_const(L->sc, LW_TILE)));
    x->scmds = aligned0 ? sym_add(L->sc, x->stiles, sym_mul(L->sc, x->sclip, sym_sub(L->sc, selems, x->stiles)))
                        : selems;
    x->sdepth = sym_const(L->sc, depth);
    for (int b = 0; b < L->k->nbufs; b++)
        if (L->k->bufs[b].access == idx && L->k->bufs[b].depth && evd(L, L->k->bufs[b].depth, -1) >= 1)
            x->sdepth = L->k->bufs[b].depth;
    for (int t = 0; L->fz && t < L->fz->nt; t++)
        if ((L->la ? L->fz->t[t].load : L->fz->t[t].store) == idx)
            x->passed = true;
    if (x->passed && L->la) {
        x->depth = L->nmax; /* the blocks of all the programs dealt to the reducer */
        x->sdepth = sym_var(L->sc, SCHED_FUSED_PROGRAMS);
    }
    /* transport */
    x->how = (sched_operand){idx, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    for (int o = 0; o < L->s->cand.nops; o++)
        if (L->s->cand.ops[o].access == idx)
            x->how = L->s->cand.ops[o];
    x->kernel = x->is_store ? DF_WRITER : DF_READER;
    sched_noc noc = x->is_store ? L->s->cand.store_noc : x->how.noc;
    if (noc != SCHED_NOC_ANY)
        x->kernel = noc_kernel(noc);
    return true;
}

/* The most trips of a loop over every program (its count may depend on the
 * program ids only). */
static bool most_trips(lw *L, const sym_expr *trips, int64_t *most)
{
    int64_t n = 1;
    for (int g = 0; g < L->f->grid_rank; g++)
        n *= L->ext[g];
    if (n > (1 << 20))
        return false;
    sym_env env = {0};
    for (int i = 0; i < L->s->values.n; i++)
        sym_env_set(&env, L->s->values.b[i].var, L->s->values.b[i].lo);
    bool ok = true;
    *most = 0;
    for (int64_t q = 0; q < n && ok; q++) {
        int64_t rem = q;
        for (int g = L->f->grid_rank - 1; g >= 0; g--) {
            sym_env_set(&env, tir_pid_var(L->sc, g), rem % L->ext[g]);
            rem /= L->ext[g];
        }
        int64_t t;
        ok = sym_eval(trips, &env, &t) == SYM_OK;
        if (ok && t > *most)
            *most = t;
    }
    sym_env_free(&env);
    return ok;
}

/* A load with a core-to-core transport shares blocks with the cores of its
 * row (x), column (y) or the whole grid (xy); decide who sends, and check
 * that every core of the group needs the same block at the same step. */
static bool plan_transport(lw *L, access *x)
{
    const acc_access *aa = x->aa;
    lm_loc loc = aa->op->loc;
    sched_operand *h = &x->how;
    if (h->transport == SCHED_DRAM || h->transport == SCHED_FUSED)
        return true;
    const char *tn = aa->tensor->name;
    int64_t n = h->along == SCHED_ON_X ? L->gx : h->along == SCHED_ON_Y ? L->gy : L->gx * L->gy;
    if (n <= 1) {
        h->transport = SCHED_DRAM; /* a group of one core */
        return true;
    }
    if (h->transport == SCHED_FORWARD && h->along == SCHED_ON_XY) {
        fail(L, loc, "forwarding of '%s' over the whole grid (only along a row or a column)", tn);
        return false;
    }
    /* the axes whose program index differs between cores of the group */
    bool varies[TIR_MAX_GRID] = {false};
    for (int g = 0; g < L->f->grid_rank; g++) {
        sched_place pl = L->s->cand.place[g];
        if (pl == SCHED_ON_XY || (h->along == SCHED_ON_X && pl == SCHED_ON_X) ||
            (h->along == SCHED_ON_Y && pl == SCHED_ON_Y) ||
            (h->along == SCHED_ON_XY && (pl == SCHED_ON_X || pl == SCHED_ON_Y)))
            varies[g] = true;
    }
    for (int g = 0; g < L->f->grid_rank; g++)
        if (varies[g] && (aa->grid_dep >> g & 1)) {
            fail(L, loc, "'%s' is %s along %s, but its block depends on pid.%d, which differs between those "
                         "cores", tn, sched_transport_name(h->transport), sched_place_name(h->along), g);
            return false;
        }
    /* A loop around it whose trips differ between the cores of the group
       (causal attention: later query blocks see more keys) is stretched in
       the data-movement kernels to the most trips of any program: every core
       takes part in every block, and pushes only those of its own trips. */
    for (int l = 0; l < aa->nloops; l++) {
        const tir_op *lp = aa->loops[l];
        const sym_expr *trips = lp->sym;
        bool differs = false;
        for (int g = 0; g < L->f->grid_rank; g++)
            differs |= varies[g] && (!trips || sym_depends_on(trips, tir_pid_var(L->sc, g)));
        if (!differs)
            continue;
        int64_t most;
        if (!trips || !most_trips(L, trips, &most)) {
            fail(L, loc, "'%s' is %s along %s, but the trips of the loop around it (%s) differ between the cores "
                         "of a group and cannot be bounded over the programs; use DRAM for it",
                 tn, sched_transport_name(h->transport), sched_place_name(h->along),
                 trips ? sym_str(&L->ar, trips) : "unknown");
            return false;
        }
        x->stretched = true;
        bool known = false;
        for (int i = 0; i < L->nstretch; i++)
            known |= L->stretch[i] == lp;
        if (!known && L->nstretch < ACC_MAX_LOOPS) {
            L->stretch[L->nstretch] = lp;
            L->stretch_max[L->nstretch++] = most;
        }
    }
    for (int o = 0; o < L->s->cand.nops; o++)
        if (L->s->cand.ops[o].access == x->index)
            x->kernel = noc_kernel(sched_load_noc(&L->s->cand, o));
    L->lockstep = true;
    return true;
}

/* ======================================================================
 * Emission helpers
 * ==================================================================== */

typedef struct kctx {
    lw *L;
    df_program *p;
    df_class *c;
    df_kernel_kind kind;
    df_stmt *loop;        /* where statements go (NULL: the kernel body) */
    const df_expr *pid[TIR_MAX_GRID];
    const df_expr *wave[3];
    const df_expr *nw[3]; /* wave counts (args) */
    const df_expr *in[3]; /* 1 when the program's index along the group is in range */
    const df_expr *act;   /* 1 when the program exists (else the core only helps its groups) */
    const df_expr *live;  /* 1 inside the program's own trips of the stretched loops around */
    struct {
        const sym_expr *iv;
        const df_expr *e;
    } ivs[LW_MAX_IVS];
    int nivs;
    int ncond;
    int nloopvars;
    int x0, y0, x1, y1;   /* the class's rectangle */
    /* a chain being gathered: tile ops writing or reading Dst (LW_DST) in
       order, from the one that starts it to the one that packs; the pops of
       CBs they read wait until the chain statement is out */
    struct {
        df_stmt *op[DF_MAX_STEPS + 1];
        int n;
        df_stmt *pops[2 * DF_MAX_STEPS + 2];
        int npops;
    } ch;
} kctx;

static void put_now(kctx *K, df_stmt *s)
{
    if (K->loop)
        df_add_body(K->p, K->loop, s);
    else
        df_add_stmt(K->p, &K->c->kernels[K->kind], s);
}

static const df_expr *C(kctx *K, int64_t v) { return df_const(K->p, v); }

static bool reads_dst(const df_stmt *s) { return s->cb == LW_DST || s->cb_b == LW_DST; }

/* Whether the chain being gathered reads CB cb. */
static bool chain_reads(const kctx *K, int cb)
{
    for (int i = 0; i < K->ch.n; i++) {
        const df_stmt *s = K->ch.op[i];
        if (s->cb == cb || (s->op == DF_ELTWISE && s->cb_b == cb))
            return true;
    }
    return false;
}

/* The gathered tile ops as one statement: the first one's input unpacked,
 * each op a step on the Dst value, the last one's output packed. An op
 * that only moves the value (copy, a cast) is no step: the pack converts. */
static df_stmt *chain_stmt(kctx *K)
{
    df_stmt *first = K->ch.op[0], *last = K->ch.op[K->ch.n - 1];
    df_stmt *c = df_stmt_new(K->p, DF_CHAIN, (lm_loc){0});
    c->cb = first->cb;
    c->at = first->at;
    c->cb_out = last->cb_out;
    c->at_out = last->at_out;
    int64_t rows = -1, cols = -1, n = -1;
    for (int i = 0; i < K->ch.n; i++) {
        df_stmt *s = K->ch.op[i];
        if (s->op == DF_ELTWISE || s->op == DF_MASK) {
            int64_t r = s->rows->value, q = s->cols->value;
            if (rows >= 0 && (r != rows || q != cols))
                LM_BUG("a chain over blocks of two shapes");
            rows = r, cols = q;
        } else {
            n = s->n->value;
        }
        df_stmt *st = NULL;
        switch (s->op) {
        case DF_ELTWISE: {
            st = df_step_new(K->p, DF_ELTWISE, (lm_loc){0});
            st->sub = s->sub;
            bool dst_b = i > 0 && s->cb_b == LW_DST;
            if (dst_b && s->bcast != DF_BC_NONE)
                LM_BUG("a broadcast of a value in Dst");
            /* the Dst value is the first operand; as the second, commuted
               or reversed */
            st->cb_b = dst_b ? s->cb : s->cb_b;
            st->at_b = dst_b ? s->at : s->at_b;
            st->bcast = s->bcast;
            st->rev = dst_b && s->sub != DF_ADD && s->sub != DF_MUL && s->sub != DF_MAXOP;
            break;
        }
        case DF_SFPU:
            st = df_step_new(K->p, DF_SFPU, (lm_loc){0});
            st->sub = s->sub;
            st->exact = s->exact;
            st->scalar = s->scalar;
            break;
        case DF_MASK:
            st = df_step_new(K->p, DF_MASK, (lm_loc){0});
            st->row = s->row, st->col = s->col;
            st->p1r = s->p1r, st->p1c = s->p1c, st->p1k = s->p1k;
            st->p2r = s->p2r, st->p2c = s->p2c, st->p2k = s->p2k;
            st->scalar = s->scalar;
            break;
        case DF_COPY:
            break;
        default:
            LM_BUG("'%s' in a chain", df_ops[s->op].name);
        }
        if (st)
            df_add_body(K->p, c, st);
    }
    if (rows < 0)
        rows = 1, cols = n;
    else if (n >= 0 && n != rows * cols)
        LM_BUG("a chain over blocks of two sizes");
    c->rows = C(K, rows);
    c->cols = C(K, cols);
    return c;
}

/* The gathered ops out as statements: one chain, or the op itself when it
 * is the only step (a value made and cast on the way out), then the pops
 * that waited for it. */
static void chain_flush(kctx *K)
{
    df_stmt *c = chain_stmt(K);
    df_stmt *s = c;
    if (c->nbody == 0) {
        s = df_stmt_new(K->p, DF_COPY, (lm_loc){0});
        s->cb = c->cb, s->at = c->at, s->cb_out = c->cb_out, s->at_out = c->at_out;
        s->n = C(K, c->rows->value * c->cols->value);
    } else if (c->nbody == 1 && !c->body[0]->rev) {
        /* one step: the op it was, reading the chain's input */
        df_stmt *st = c->body[0];
        s = df_stmt_new(K->p, st->op, (lm_loc){0});
        s->sub = st->sub;
        s->cb = c->cb, s->at = c->at, s->cb_out = c->cb_out, s->at_out = c->at_out;
        if (st->op == DF_SFPU) {
            s->n = C(K, c->rows->value * c->cols->value);
            s->exact = st->exact;
            s->scalar = st->scalar;
        } else {
            s->rows = c->rows, s->cols = c->cols;
            s->cb_b = st->cb_b, s->at_b = st->at_b, s->bcast = st->bcast;
            s->row = st->row, s->col = st->col;
            s->p1r = st->p1r, s->p1c = st->p1c, s->p1k = st->p1k;
            s->p2r = st->p2r, s->p2c = st->p2c, s->p2k = st->p2k;
            s->scalar = st->scalar;
        }
    }
    put_now(K, s);
    for (int i = 0; i < K->ch.npops; i++)
        put_now(K, K->ch.pops[i]);
    K->ch.n = K->ch.npops = 0;
}

/* Every statement of a kernel goes through here. A tile op writing Dst
 * starts a chain, one reading it joins, and the first that also packs
 * ends it. Meanwhile other statements go out at once, ahead of the chain
 * (the waits and reserves it needs, a constant tile filled for a step),
 * except pops of the CBs the chain reads. */
static void put(kctx *K, df_stmt *s)
{
    bool tile = df_ops[s->op].engine == DF_ENGINE_COMPUTE && s->op != DF_CB_RESERVE;
    bool in = tile && reads_dst(s), out = tile && s->cb_out == LW_DST;
    if (!in && !out) {
        if (K->ch.n && s->op == DF_CB_POP && chain_reads(K, s->cb)) {
            if (K->ch.npops == (int)LM_COUNT(K->ch.pops))
                LM_BUG("too many pops behind a chain");
            K->ch.pops[K->ch.npops++] = s;
            return;
        }
        if (K->ch.n && s->op == DF_FOR)
            LM_BUG("a loop inside a chain");
        put_now(K, s);
        return;
    }
    if (in != (K->ch.n > 0) || K->ch.n == (int)LM_COUNT(K->ch.op))
        LM_BUG("a tile op %s Dst with %d ops gathered", in ? "reads" : "writes", K->ch.n);
    K->ch.op[K->ch.n++] = s;
    if (!out)
        chain_flush(K);
}

static const df_expr *BIN(kctx *K, df_xkind k, const df_expr *a, const df_expr *b) { return df_bin(K->p, k, a, b); }

static bool core_eval(kctx *K, const df_expr *e, int x, int y, int64_t *out);

/* Whether a loop's bounds, known on every core of the class, leave it empty
 * on all of them (a split past the end of a sequence, a core without a
 * program in the last wave). */
static bool empty_everywhere(kctx *K, const df_expr *lo, const df_expr *hi)
{
    for (int y = K->y0; y <= K->y1; y++)
        for (int x = K->x0; x <= K->x1; x++) {
            int64_t a, b;
            if (!core_eval(K, lo, x, y, &a) || !core_eval(K, hi, x, y, &b) || a < b)
                return false;
        }
    return true;
}

static df_stmt *open_for(kctx *K, const char *var, const df_expr *lo, const df_expr *hi, df_stmt **saved)
{
    df_stmt *f = df_for(K->p, K->c, var, lo, hi, NULL, (lm_loc){0});
    if (!f) {
        fail(K->L, (lm_loc){0}, "the program needs more loop variables than a class can hold");
        return NULL;
    }
    /* a loop no core of the class runs is left out: its body is built into
       the detached statement and dropped (the program is the same as with
       zero trips, and hand-written programs keep the check that flags
       such loops as mistakes) */
    if (!empty_everywhere(K, lo, hi))
        put(K, f);
    *saved = K->loop;
    K->loop = f;
    return f;
}

static void close_for(kctx *K, df_stmt *saved) { K->loop = saved; }

static bool core_eval(kctx *K, const df_expr *e, int x, int y, int64_t *out)
{
    int first_loop = DF_SLOT_PARAM0 + K->p->nparams + K->c->nargs;
    if (df_expr_uses_slots_from(e, first_loop))
        return false;
    int64_t slots[DF_MAX_SLOTS] = {0};
    slots[DF_SLOT_CX] = x;
    slots[DF_SLOT_CY] = y;
    for (int a = 0; a < K->c->nargs; a++)
        slots[DF_SLOT_PARAM0 + K->p->nparams + a] = df_eval(K->c->args[a], slots);
    *out = df_eval(e, slots);
    return true;
}

/* Open a block that runs when cond (0 or 1) is 1. Returns 0 when the block
 * never runs on this class (skip it), 1 when it always runs (nothing
 * opened), 2 when a one-trip loop was opened (close with close_for). */
static int open_if(kctx *K, const df_expr *cond, df_stmt **saved)
{
    bool stat = true, any = false, all = true;
    for (int y = K->y0; y <= K->y1 && stat; y++)
        for (int x = K->x0; x <= K->x1 && stat; x++) {
            int64_t v;
            stat = core_eval(K, cond, x, y, &v);
            any |= stat && v > 0;
            all &= stat && v > 0;
        }
    if (stat && !any)
        return 0;
    if (stat && all)
        return 1;
    char name[24];
    snprintf(name, sizeof name, "when%d", K->ncond++);
    return open_for(K, name, C(K, 0), cond, saved) ? 2 : 0;
}

static const df_expr *x_min(kctx *K, const df_expr *a, const df_expr *b) { return BIN(K, DF_X_MIN, a, b); }
static const df_expr *x_max(kctx *K, const df_expr *a, const df_expr *b) { return BIN(K, DF_X_MAX, a, b); }

/* sym -> df, with pid.N and iv.N mapped to this kernel's expressions. */
static const df_expr *xs_rec(kctx *K, const sym_expr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case SYM_CONST:
        return C(K, e->value);
    case SYM_VAR:
        if (!strncmp(e->name, "pid.", 4)) {
            int g = atoi(e->name + 4);
            if (g >= 0 && g < TIR_MAX_GRID && K->pid[g])
                return K->pid[g];
            return C(K, 0);
        }
        for (int i = 0; i < K->nivs; i++)
            if (K->ivs[i].iv == e)
                return K->ivs[i].e;
        fail(K->L, (lm_loc){0}, "the symbol '%s' has no value in the lowered program", e->name);
        return C(K, 0);
    case SYM_ADD:
    case SYM_MUL:
    case SYM_MIN:
    case SYM_MAX: {
        df_xkind k = e->kind == SYM_ADD ? DF_X_ADD : e->kind == SYM_MUL ? DF_X_MUL : e->kind == SYM_MIN ? DF_X_MIN : DF_X_MAX;
        const df_expr *r = xs_rec(K, e->args[0]);
        for (int i = 1; i < e->nargs; i++)
            r = BIN(K, k, r, xs_rec(K, e->args[i]));
        return r;
    }
    case SYM_FLOORDIV:
        return BIN(K, DF_X_DIV, xs_rec(K, e->args[0]), xs_rec(K, e->args[1]));
    case SYM_MOD:
        return BIN(K, DF_X_MOD, xs_rec(K, e->args[0]), xs_rec(K, e->args[1]));
    case SYM_CDIV: {
        /* ceil(a/b) = -floor(-a/b) */
        const df_expr *na = BIN(K, DF_X_SUB, C(K, 0), xs_rec(K, e->args[0]));
        return BIN(K, DF_X_SUB, C(K, 0), BIN(K, DF_X_DIV, na, xs_rec(K, e->args[1])));
    }
    }
    return C(K, 0);
}

static const df_expr *xs(kctx *K, const sym_expr *e)
{
    return xs_rec(K, sym_subst(K->L->sc, e, &K->L->s->values));
}

static const df_expr *affine(kctx *K, const access *x, bool row)
{
    const df_expr *e = C(K, row ? x->r0 : x->c0);
    for (int t = 0; t < x->nterms; t++) {
        int64_t co = row ? x->rco[t] : x->cco[t];
        if (co)
            e = BIN(K, DF_X_ADD, e, BIN(K, DF_X_MUL, C(K, co), xs_rec(K, x->var[t])));
    }
    return e;
}

static df_stmt *S(kctx *K, df_op op) { return df_stmt_new(K->p, op, (lm_loc){0}); }

static void cbop(kctx *K, df_op op, int cb, int64_t n)
{
    df_stmt *s = S(K, op);
    s->cb = cb;
    s->n = C(K, n);
    put(K, s);
}

/* ======================================================================
 * Reader and writer kernels
 * ==================================================================== */

static int access_of(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->acc->n; i++)
        if (L->acc->acc[i].op == op)
            return i;
    return -1;
}

static bool is_access_op(tir_opcode c)
{
    return c == TIR_LOAD || c == TIR_STORE || c == TIR_DESC_LOAD || c == TIR_DESC_STORE;
}

/* Whether a loop (or any op) holds an access the given kernel moves. */
static bool has_access(lw *L, const tir_block *b, df_kernel_kind kind)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (is_access_op(op->code)) {
            int i = access_of(L, op);
            if (i >= 0 && L->ax[i].kernel == kind)
                return true;
        }
        for (int r = 0; r < op->nregions; r++)
            if (has_access(L, op->regions[r], kind))
                return true;
    }
    return false;
}

static bool has_stretched(lw *L, const tir_block *b, df_kernel_kind kind)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (is_access_op(op->code)) {
            int i = access_of(L, op);
            if (i >= 0 && L->ax[i].kernel == kind && L->ax[i].stretched)
                return true;
        }
        for (int r = 0; r < op->nregions; r++)
            if (has_stretched(L, op->regions[r], kind))
                return true;
    }
    return false;
}

static void add_iv(kctx *K, const tir_op *f, const df_expr *e)
{
    if (K->nivs < LW_MAX_IVS) {
        K->ivs[K->nivs].iv = f->iv;
        K->ivs[K->nivs].e = e;
        K->nivs++;
    } else {
        fail(K->L, f->loc, "loops nested more than %d deep", LW_MAX_IVS);
    }
}

/* Open the loop of an IR `for`, counting its iterations from 0. */
static df_stmt *open_ir_loop(kctx *K, const tir_op *f, df_stmt **saved)
{
    if (!f->sym) {
        fail(K->L, f->loc, "a loop whose trip count is not known symbolically");
        return NULL;
    }
    const df_expr *hi = xs(K, f->sym);
    char name[24];
    snprintf(name, sizeof name, "i%s", f->iv && f->iv->name ? f->iv->name + 3 : "x");
    df_stmt *s = open_for(K, name, C(K, 0), hi, saved);
    if (!s)
        return NULL;
    add_iv(K, f, df_slot(K->p, s->var));
    return s;
}

/* Cores of the group a shared block goes to: all of them (lockstep). */
static int64_t group_size(lw *L, sched_place along)
{
    return along == SCHED_ON_X ? L->gx : along == SCHED_ON_Y ? L->gy : L->gx * L->gy;
}

/* 1 when the program's indices along the axes that stay the same within
 * the group are in range: the group has a block to share. */
static const df_expr *takes_part(kctx *K, sched_place along)
{
    if (along == SCHED_ON_X)
        return K->in[G_Y];
    if (along == SCHED_ON_Y)
        return K->in[G_X];
    return C(K, 1);
}

static int64_t sender_pos(lw *L, const access *x, int64_t n)
{
    return x->how.interior_sender ? (n - 1) / 2 : 0;
}

/* Rows or columns an element move covers: the block's, or what is left of
 * the extent when a boundary check cuts it. */
static const df_expr *moved(kctx *K, int64_t n, const sym_expr *left)
{
    if (!left)
        return C(K, n);
    return x_min(K, C(K, n), xs(K, left));
}

static void emit_read(kctx *K, const access *x)
{
    if (x->elems) {
        df_stmt *s = S(K, DF_READ_ELEMS);
        s->tensor = x->tensor;
        s->row = affine(K, x, true);
        s->col = affine(K, x, false);
        s->rows = moved(K, x->rows_el, x->clip_rows);
        s->cols = moved(K, x->cols_el, x->clip_cols);
        s->rstride = C(K, x->rstride);
        s->cb = x->cb;
        s->bw = C(K, x->tc);
        put(K, s);
        put(K, S(K, DF_READ_BARRIER));
        return;
    }
    df_stmt *s = S(K, DF_READ);
    s->tensor = x->tensor;
    s->row = affine(K, x, true);
    s->col = affine(K, x, false);
    s->rows = C(K, x->tr);
    s->cols = C(K, x->tc);
    s->cb = x->cb;
    put(K, s);
    put(K, S(K, DF_READ_BARRIER));
}

static void sem_op(kctx *K, df_op op, int sem, const df_expr *value, const df_expr *px, const df_expr *py)
{
    df_stmt *s = S(K, op);
    s->sem = sem;
    if (value)
        s->value = value;
    if (px)
        s->x = px, s->y = py;
    put(K, s);
}

/* A program that does not exist on this core (the last, partial wave)
 * still takes its part in the group's handshake, but its block is not
 * pushed to the compute kernel: the reserved pages are simply reused. A
 * sender then waits for its multicast to leave before the pages are
 * refilled. */
static void push_or_drop(kctx *K, const access *x, bool sender)
{
    df_stmt *saved;
    const df_expr *mine = BIN(K, DF_X_MUL, K->act, K->live);
    int w = open_if(K, mine, &saved);
    if (w) {
        cbop(K, DF_CB_PUSH, x->cb, x->tiles);
        if (w == 2)
            close_for(K, saved);
    }
    if (sender && w != 1) {
        w = open_if(K, BIN(K, DF_X_SUB, C(K, 1), mine), &saved);
        if (w) {
            put(K, S(K, DF_WRITE_BARRIER));
            if (w == 2)
                close_for(K, saved);
        }
    }
}

static void emit_load(kctx *K, const access *x)
{
    lw *L = K->L;
    const sched_operand *h = &x->how;
    int64_t T = x->tiles;
    cbop(K, DF_CB_RESERVE, x->cb, T);
    if (h->transport == SCHED_DRAM) {
        emit_read(K, x);
        cbop(K, DF_CB_PUSH, x->cb, T);
        return;
    }
    const df_expr *cx = df_slot(K->p, DF_SLOT_CX), *cy = df_slot(K->p, DF_SLOT_CY);
    const df_expr *A = C(K, group_size(L, h->along));
    df_stmt *saved;
    if (h->transport == SCHED_MCAST) {
        int64_t sx = 0, sy = 0;
        if (h->along == SCHED_ON_X)
            sx = sender_pos(L, x, L->gx);
        else if (h->along == SCHED_ON_Y)
            sy = sender_pos(L, x, L->gy);
        else
            sx = sender_pos(L, x, L->gx), sy = sender_pos(L, x, L->gy);
        bool sender = (h->along == SCHED_ON_Y || (K->x0 == sx && K->x1 == sx)) &&
                      (h->along == SCHED_ON_X || (K->y0 == sy && K->y1 == sy));
        if (sender) {
            emit_read(K, x);
            const df_expr *recv = BIN(K, DF_X_SUB, A, C(K, 1));
            sem_op(K, DF_SEM_WAIT, x->sem_ready, recv, NULL, NULL);
            sem_op(K, DF_SEM_SET, x->sem_ready, C(K, 0), NULL, NULL);
            int w = open_if(K, x_min(K, recv, C(K, 1)), &saved);
            if (w) {
                const df_expr *x0, *y0, *x1, *y1;
                bool edge = !h->interior_sender;
                if (h->along == SCHED_ON_X) {
                    x0 = C(K, edge ? 1 : 0), x1 = edge ? BIN(K, DF_X_SUB, A, C(K, 1)) : C(K, L->gx - 1);
                    y0 = y1 = cy;
                } else if (h->along == SCHED_ON_Y) {
                    y0 = C(K, edge ? 1 : 0), y1 = edge ? BIN(K, DF_X_SUB, A, C(K, 1)) : C(K, L->gy - 1);
                    x0 = x1 = cx;
                } else {
                    x0 = C(K, 0), y0 = C(K, 0), x1 = C(K, L->gx - 1), y1 = C(K, L->gy - 1);
                }
                df_stmt *m = S(K, DF_MCAST);
                m->cb = x->cb;
                m->n = C(K, T);
                m->x0 = x0, m->y0 = y0, m->x1 = x1, m->y1 = y1;
                put(K, m);
                df_stmt *sm = S(K, DF_SEM_MCAST);
                sm->sem = x->sem_valid;
                sm->value = C(K, 1);
                sm->x0 = x0, sm->y0 = y0, sm->x1 = x1, sm->y1 = y1;
                put(K, sm);
                /* with one page set the next read would overwrite what is still on the way */
                if (x->depth < 2)
                    put(K, S(K, DF_WRITE_BARRIER));
                if (w == 2)
                    close_for(K, saved);
            }
        } else {
            sem_op(K, DF_SEM_SET, x->sem_valid, C(K, 0), NULL, NULL);
            const df_expr *px = h->along == SCHED_ON_Y ? cx : C(K, sx);
            const df_expr *py = h->along == SCHED_ON_X ? cy : C(K, sy);
            sem_op(K, DF_SEM_INC, x->sem_ready, C(K, 1), px, py);
            sem_op(K, DF_SEM_WAIT, x->sem_valid, C(K, 1), NULL, NULL);
        }
        push_or_drop(K, x, sender);
        return;
    }
    /* forwarding: core 0 of the row (column) reads, each core passes the
       block on to the next one that takes part in this wave */
    bool along_x = h->along == SCHED_ON_X;
    const df_expr *me = along_x ? cx : cy;
    bool first = along_x ? (K->x0 == 0 && K->x1 == 0) : (K->y0 == 0 && K->y1 == 0);
    const df_expr *prev_x = along_x ? BIN(K, DF_X_SUB, cx, C(K, 1)) : cx;
    const df_expr *prev_y = along_x ? cy : BIN(K, DF_X_SUB, cy, C(K, 1));
    const df_expr *next_x = along_x ? BIN(K, DF_X_ADD, cx, C(K, 1)) : cx;
    const df_expr *next_y = along_x ? cy : BIN(K, DF_X_ADD, cy, C(K, 1));
    if (first) {
        emit_read(K, x);
    } else {
        sem_op(K, DF_SEM_SET, x->sem_valid, C(K, 0), NULL, NULL);
        sem_op(K, DF_SEM_INC, x->sem_ready, C(K, 1), prev_x, prev_y);
        sem_op(K, DF_SEM_WAIT, x->sem_valid, C(K, 1), NULL, NULL);
    }
    const df_expr *more = x_min(K, x_max(K, BIN(K, DF_X_SUB, BIN(K, DF_X_SUB, A, C(K, 1)), me), C(K, 0)), C(K, 1));
    int w = open_if(K, more, &saved);
    if (w) {
        sem_op(K, DF_SEM_WAIT, x->sem_ready, C(K, 1), NULL, NULL);
        sem_op(K, DF_SEM_SET, x->sem_ready, C(K, 0), NULL, NULL);
        df_stmt *sd = S(K, DF_SEND);
        sd->cb = x->cb;
        sd->n = C(K, T);
        sd->x = next_x;
        sd->y = next_y;
        put(K, sd);
        sem_op(K, DF_SEM_INC, x->sem_valid, C(K, 1), next_x, next_y);
        if (x->depth < 2)
            put(K, S(K, DF_WRITE_BARRIER));
        if (w == 2)
            close_for(K, saved);
    }
    push_or_drop(K, x, first);
}

static void emit_store_dm(kctx *K, const access *x)
{
    int64_t T = x->tiles;
    cbop(K, DF_CB_WAIT, x->cb, T);
    if (x->elems) {
        df_stmt *s = S(K, DF_WRITE_ELEMS);
        s->cb = x->cb;
        s->bw = C(K, x->tc);
        s->tensor = x->tensor;
        s->row = affine(K, x, true);
        s->col = affine(K, x, false);
        s->rows = moved(K, x->rows_el, x->clip_rows);
        s->cols = moved(K, x->cols_el, x->clip_cols);
        s->rstride = C(K, x->rstride);
        put(K, s);
        put(K, S(K, DF_WRITE_BARRIER));
        cbop(K, DF_CB_POP, x->cb, T);
        return;
    }
    df_stmt *s = S(K, DF_WRITE);
    s->cb = x->cb;
    s->tensor = x->tensor;
    s->row = affine(K, x, true);
    s->col = affine(K, x, false);
    s->rows = C(K, x->tr);
    s->cols = C(K, x->tc);
    put(K, s);
    put(K, S(K, DF_WRITE_BARRIER));
    cbop(K, DF_CB_POP, x->cb, T);
}

/* ---- a fused pair: partial results to the reducer core ------------------- */

/* Core (x, y) of the group's core at index `i` along the gather dimension
 * (the same row or column as this core). */
static void group_core(kctx *K, const df_expr *i, const df_expr **x, const df_expr **y)
{
    bool along_x = K->L->s->cand.fuse_along == SCHED_ON_X;
    *x = along_x ? i : df_slot(K->p, DF_SLOT_CX);
    *y = along_x ? df_slot(K->p, DF_SLOT_CY) : i;
}

/* The index of the current group among the groups (values of the key
 * axes) this core runs, in the order open_programs nests the loops: waves
 * along y, then x, then the axes in time. */
static const df_expr *group_count(kctx *K, lw *LA)
{
    const df_expr *w = C(K, 0);
    static const int order[2] = {G_Y, G_X};
    for (int i = 0; i < 2; i++) {
        int gr = order[i];
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (LA->ngrp[gr] && LA->grp[gr][0] != LA->fz->gather_axis)
            w = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, w, C(K, cdiv64(LA->E[gr], n))), K->wave[gr]);
    }
    for (int i = 0; i < LA->ntime; i++)
        w = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, w, C(K, LA->ext[LA->time[i]])), K->pid[LA->time[i]]);
    return w;
}

/* How many groups this core runs (those whose programs exist). */
static const df_expr *groups_here(kctx *K, lw *LA)
{
    const df_expr *w = C(K, 1);
    for (int gr = G_X; gr <= G_Y; gr++) {
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (!LA->ngrp[gr] || LA->grp[gr][0] == LA->fz->gather_axis)
            continue;
        const df_expr *idx = df_slot(K->p, gr == G_X ? DF_SLOT_CX : DF_SLOT_CY);
        const df_expr *left = BIN(K, DF_X_DIV, BIN(K, DF_X_SUB, C(K, LA->E[gr] + n - 1), idx), C(K, n));
        w = BIN(K, DF_X_MUL, w, x_max(K, left, C(K, 0)));
    }
    for (int i = 0; i < LA->ntime; i++)
        w = BIN(K, DF_X_MUL, w, C(K, LA->ext[LA->time[i]]));
    return w;
}

/* The producer's program ids along its key axes for the core's w-th group
 * (group_count the other way round). */
static void group_pids(kctx *K, lw *LA, const df_expr *w, const df_expr **pid)
{
    for (int i = LA->ntime - 1; i >= 0; i--) {
        int g = LA->time[i];
        pid[g] = BIN(K, DF_X_MOD, w, C(K, LA->ext[g]));
        w = BIN(K, DF_X_DIV, w, C(K, LA->ext[g]));
    }
    static const int order[2] = {G_X, G_Y};
    for (int i = 0; i < 2; i++) {
        int gr = order[i];
        int64_t n = gr == G_X ? LA->gx : LA->gy;
        if (!LA->ngrp[gr] || LA->grp[gr][0] == LA->fz->gather_axis)
            continue;
        int64_t W = cdiv64(LA->E[gr], n);
        const df_expr *wave = BIN(K, DF_X_MOD, w, C(K, W));
        w = BIN(K, DF_X_DIV, w, C(K, W));
        const df_expr *idx = df_slot(K->p, gr == G_X ? DF_SLOT_CX : DF_SLOT_CY);
        pid[LA->grp[gr][0]] = BIN(K, DF_X_ADD, idx, BIN(K, DF_X_MUL, C(K, n), wave));
    }
}

/* The consumer programs this core runs as a reducer: the producers of a
 * row (column) deal the consumer programs of their groups round-robin, the
 * G-th (G = w*nq + q: group w, program q) to core G mod np as its (G /
 * np)-th. */
static const df_expr *reducer_programs(kctx *K, lw *LA, const df_expr *gi)
{
    const df_expr *total = BIN(K, DF_X_MUL, groups_here(K, LA), C(K, LA->nq));
    return x_max(K, BIN(K, DF_X_DIV, BIN(K, DF_X_SUB, BIN(K, DF_X_ADD, total, C(K, LA->np - 1)), gi), C(K, LA->np)),
                 C(K, 0));
}

/* The consumer's program ids along its local axes from the flattened index
 * q of its program in the group (row-major, in axis order). */
static void local_pids(kctx *K, const lw *LB, const df_expr *q, const df_expr **pid)
{
    int first = -1;
    for (int g = 0; g < LB->f->grid_rank; g++)
        if (LB->fz->key_of[g] < 0 && first < 0)
            first = g;
    for (int g = LB->f->grid_rank - 1; g >= 0; g--) {
        if (LB->fz->key_of[g] >= 0)
            continue;
        if (g == first) {
            pid[g] = q;
        } else {
            pid[g] = BIN(K, DF_X_MOD, q, C(K, LB->ext[g]));
            q = BIN(K, DF_X_DIV, q, C(K, LB->ext[g]));
        }
    }
}

/* offset of an access dimension, with the consumer's program ids in pid[] */
static const df_expr *dim_offset(kctx *K, const acc_dim *ad, const df_expr *const *pid, int rank)
{
    int64_t v = 0;
    if (ad->constant)
        ev(K->L, ad->constant, &v, (lm_loc){0});
    const df_expr *e = C(K, v);
    for (int t = 0; t < ad->nterms; t++) {
        int64_t co = 0;
        ev(K->L, ad->terms[t].coeff, &co, (lm_loc){0});
        for (int g = 0; g < rank; g++)
            if (ad->terms[t].var == tir_pid_var(K->L->sc, g) && pid[g])
                e = BIN(K, DF_X_ADD, e, BIN(K, DF_X_MUL, C(K, co), pid[g]));
    }
    return e;
}

/* A producer's passed store: the block stays in its CB while each consumer
 * program of the group gets its part of it, row by row (send_elems), into
 * the pages its reducer reserved for it; after the program's last passed
 * store, valid is incremented there once per consumer program. */
static void emit_store_fused(kctx *K, const access *x)
{
    lw *LA = K->L, *LB = LA->lb;
    const sched_fusion *fz = LA->fz;
    const sched_fused_tensor *t = NULL;
    int last = -1;
    for (int i = 0; i < fz->nt; i++) {
        if (fz->t[i].store == x->index)
            t = &fz->t[i];
        if (fz->t[i].store > last)
            last = fz->t[i].store;
    }
    LM_ASSERT(t);
    const access *y = &LB->ax[t->load];
    const acc_access *xa = x->aa, *yb = y->aa;
    int r = t->tensor->rank;
    lm_loc loc = xa->op->loc;
    cbop(K, DF_CB_WAIT, x->cb, x->tiles);
    df_stmt *saved[TIR_MAX_GRID + TIR_MAX_RANK];
    int nsaved = 0;
    const df_expr *pid[TIR_MAX_GRID] = {NULL};
    df_stmt *fq = open_for(K, "q", C(K, 0), C(K, LA->nq), &saved[nsaved]);
    if (!fq)
        return;
    nsaved++;
    const df_expr *q = df_slot(K->p, fq->var);
    local_pids(K, LB, q, pid);
    /* the G-th consumer program of this row goes to core G mod np */
    const df_expr *G = BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, group_count(K, LA), C(K, LA->nq)), q);
    const df_expr *rx, *ry;
    group_core(K, BIN(K, DF_X_MOD, G, C(K, LA->np)), &rx, &ry);
    /* per dimension: where the moved part starts in each block, and how long it is */
    const df_expr *ra[TIR_MAX_RANK], *rb[TIR_MAX_RANK], *len[TIR_MAX_RANK];
    int64_t slen[TIR_MAX_RANK];
    const df_expr *g = K->pid[fz->gather_axis];
    for (int d = 0; d < r; d++) {
        int64_t ba = 1, bb = 1, E = 1;
        ev(LA, xa->block[d], &ba, loc);
        ev(LB, yb->block[d], &bb, loc);
        ev(LA, t->tensor->shape[d], &E, loc);
        ra[d] = rb[d] = C(K, 0);
        switch (t->dim[d]) {
        case SCHED_FD_KEY:
            len[d] = C(K, ba);
            slen[d] = ba;
            break;
        case SCHED_FD_GATHER:
            rb[d] = BIN(K, DF_X_MUL, g, C(K, ba));
            len[d] = x_min(K, C(K, ba), BIN(K, DF_X_SUB, C(K, E), rb[d]));
            slen[d] = ba;
            break;
        case SCHED_FD_SLICE:
            ra[d] = dim_offset(K, &yb->dims[d], pid, LB->f->grid_rank);
            len[d] = x_min(K, C(K, bb), BIN(K, DF_X_SUB, C(K, E), ra[d]));
            slen[d] = bb;
            break;
        case SCHED_FD_WHOLE:
            slen[d] = LM_MIN(E, LM_MIN(ba, bb));
            len[d] = C(K, slen[d]);
            break;
        }
    }
    /* element positions in the two CB blocks: rows along the layout (a step
       of the dimension moves lrow rows, the block keeps every rstride-th) */
    const df_expr *era = C(K, 0), *erb = C(K, 0);
    int64_t sa[TIR_MAX_RANK] = {0}, sb[TIR_MAX_RANK] = {0};
    int vary[TIR_MAX_RANK], nvary = 0;
    for (int d = 0; d < r; d++) {
        if (d == x->coldim)
            continue;
        sa[d] = x->lrow[d] / (x->rstride > 0 ? x->rstride : 1);
        sb[d] = y->lrow[d] / (y->rstride > 0 ? y->rstride : 1);
        era = BIN(K, DF_X_ADD, era, BIN(K, DF_X_MUL, ra[d], C(K, sa[d])));
        erb = BIN(K, DF_X_ADD, erb, BIN(K, DF_X_MUL, rb[d], C(K, sb[d])));
        if (slen[d] > 1)
            vary[nvary++] = d;
    }
    if (x->coldim != y->coldim || x->coldim < 0) {
        fail(LA, loc, "the store of '%s' and its fused load place the tensor's columns differently", t->tensor->name);
        return;
    }
    const df_expr *rows = C(K, 1);
    if (nvary == 1 && sa[vary[0]] == 1 && sb[vary[0]] == 1) {
        rows = len[vary[0]]; /* consecutive rows on both sides */
    } else {
        for (int i = 0; i < nvary; i++) {
            int d = vary[i];
            char name[16];
            snprintf(name, sizeof name, "e%d", d);
            df_stmt *f = open_for(K, name, C(K, 0), len[d], &saved[nsaved]);
            if (!f)
                return;
            nsaved++;
            const df_expr *j = df_slot(K->p, f->var);
            era = BIN(K, DF_X_ADD, era, BIN(K, DF_X_MUL, j, C(K, sa[d])));
            erb = BIN(K, DF_X_ADD, erb, BIN(K, DF_X_MUL, j, C(K, sb[d])));
        }
    }
    int cd = x->coldim;
    df_stmt *se = S(K, DF_SEND_ELEMS);
    se->cb = x->cb;
    se->er = era;
    se->ec = ra[cd];
    se->bw = C(K, x->tc);
    se->rows = rows;
    se->cols = len[cd];
    se->x = rx;
    se->y = ry;
    se->cb_out = y->cb;
    se->dst_at = BIN(K, DF_X_MUL, BIN(K, DF_X_DIV, G, C(K, LA->np)), C(K, y->tiles));
    se->der = erb;
    se->dec = rb[cd];
    se->dbw = C(K, y->tc);
    put(K, se);
    while (nsaved > 1)
        close_for(K, saved[--nsaved]);
    /* after the program's last passed block (the same channel as the data) */
    if (x->index == last)
        sem_op(K, DF_SEM_INC, LA->sem_fvalid, C(K, 1), rx, ry);
    close_for(K, saved[--nsaved]);
    put(K, S(K, DF_WRITE_BARRIER));
    cbop(K, DF_CB_POP, x->cb, x->tiles);
}

static void emit_dm_block(kctx *K, const tir_block *b);
static void emit_cblock(kctx *K, const tir_block *b);

/* Before a fused producer's program loops. Every producer's writer waits
 * until each reducer of its row (column) has room for all it will receive
 * (fused_ready counts them); a reducer's reader reserves the pages of all
 * the consumer programs it will run and says so to every producer. */
static void emit_fused_prologue(kctx *K, bool reducer)
{
    lw *LA = K->L, *LB = LA->lb;
    bool along_x = LA->s->cand.fuse_along == SCHED_ON_X;
    const df_expr *gi = df_slot(K->p, along_x ? DF_SLOT_CX : DF_SLOT_CY);
    if (K->kind == DF_WRITER) {
        const df_expr *rt = x_min(K, BIN(K, DF_X_MUL, groups_here(K, LA), C(K, LA->nq)), C(K, LA->np));
        sem_op(K, DF_SEM_WAIT, LA->sem_fready, rt, NULL, NULL);
    }
    if (K->kind != DF_READER || !reducer)
        return;
    const df_expr *np = reducer_programs(K, LA, gi);
    df_stmt *ws;
    int w = open_if(K, x_min(K, np, C(K, 1)), &ws);
    if (!w)
        return;
    for (int i = 0; i < LB->acc->n; i++)
        if (LB->ax[i].passed) {
            df_stmt *r = S(K, DF_CB_RESERVE);
            r->cb = LB->ax[i].cb;
            r->n = BIN(K, DF_X_MUL, np, C(K, LB->ax[i].tiles));
            put(K, r);
        }
    df_stmt *sv;
    df_stmt *fp = open_for(K, "p", C(K, 0), C(K, LA->np), &sv);
    if (fp) {
        const df_expr *px, *py;
        group_core(K, df_slot(K->p, fp->var), &px, &py);
        sem_op(K, DF_SEM_INC, LA->sem_fready, C(K, 1), px, py);
        close_for(K, sv);
    }
    if (w == 2)
        close_for(K, ws);
}

/* On a reducer core, after all the producer's programs: the consumer
 * programs dealt to it (program j is the row's G = gi + np*j-th: group
 * G / nq, program G mod nq of it), as a consumer launch would run them, its
 * key axes taking the group's program ids. The reader first waits until
 * every producer has sent all of them (fused_valid counts one per program
 * and producer) and pushes the passed blocks. */
static void emit_consumer(kctx *KA, df_kernel_kind kind)
{
    lw *LA = KA->L, *LB = LA->lb;
    kctx K;
    memset(&K, 0, sizeof K);
    K.L = LB;
    K.p = KA->p;
    K.c = KA->c;
    K.kind = kind;
    K.loop = KA->loop;
    K.x0 = KA->x0, K.y0 = KA->y0, K.x1 = KA->x1, K.y1 = KA->y1;
    K.live = K.act = C(&K, 1);
    for (int i = 0; i < 3; i++) {
        K.in[i] = C(&K, 1);
        K.wave[i] = C(&K, 0);
    }
    for (int s = 0; s < LB->nst; s++)
        LB->st[s].old_popped = false;
    for (int u = 0; u < LB->nv; u++)
        LB->v[u].reserved = false;
    bool along_x = LA->s->cand.fuse_along == SCHED_ON_X;
    const df_expr *gi = df_slot(K.p, along_x ? DF_SLOT_CX : DF_SLOT_CY);
    const df_expr *nloc = reducer_programs(KA, LA, gi);
    df_stmt *saved[2];
    int nsaved = 0;
    int w = open_if(&K, x_min(&K, nloc, C(&K, 1)), &saved[nsaved]);
    if (!w)
        return;
    if (w == 2)
        nsaved++;
    if (kind == DF_READER) {
        sem_op(&K, DF_SEM_WAIT, LA->sem_fvalid, BIN(&K, DF_X_MUL, nloc, C(&K, LB->np)), NULL, NULL);
        for (int i = 0; i < LB->acc->n; i++)
            if (LB->ax[i].passed) {
                df_stmt *r = S(&K, DF_CB_PUSH);
                r->cb = LB->ax[i].cb;
                r->n = BIN(&K, DF_X_MUL, nloc, C(&K, LB->ax[i].tiles));
                put(&K, r);
            }
    }
    if (!(kind == DF_READER && !has_access(LB, LB->f->body, kind))) { /* else nothing more to read */
        df_stmt *fj = open_for(&K, "j", C(&K, 0), nloc, &saved[nsaved]);
        if (!fj)
            return;
        nsaved++;
        const df_expr *G = BIN(&K, DF_X_ADD, gi, BIN(&K, DF_X_MUL, C(&K, LB->np), df_slot(K.p, fj->var)));
        const df_expr *pa[TIR_MAX_GRID] = {NULL};
        group_pids(KA, LA, BIN(&K, DF_X_DIV, G, C(&K, LB->nq)), pa);
        for (int g = 0; g < LB->f->grid_rank; g++)
            if (LB->fz->key_of[g] >= 0)
                K.pid[g] = pa[LB->fz->key_of[g]];
        local_pids(&K, LB, BIN(&K, DF_X_MOD, G, C(&K, LB->nq)), K.pid);
        if (kind == DF_COMPUTE)
            emit_cblock(&K, LB->f->body);
        else
            emit_dm_block(&K, LB->f->body);
    }
    while (nsaved > 0)
        close_for(&K, saved[--nsaved]);
    if (LB->failed)
        LA->failed = true;
}

static void emit_dm_block(kctx *K, const tir_block *b)
{
    lw *L = K->L;
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        if (op->code == TIR_FOR) {
            if (!has_access(L, op->regions[0], K->kind))
                continue;
            df_stmt *saved;
            int nivs = K->nivs;
            const df_expr *live = K->live;
            int64_t most = -1;
            for (int i = 0; i < L->nstretch; i++)
                if (L->stretch[i] == op && has_stretched(L, op->regions[0], K->kind))
                    most = L->stretch_max[i];
            if (most >= 0) {
                /* every core runs the most trips; its own ones are live */
                const df_expr *own = xs(K, op->sym);
                char name[24];
                snprintf(name, sizeof name, "i%s", op->iv && op->iv->name ? op->iv->name + 3 : "x");
                df_stmt *f = open_for(K, name, C(K, 0), C(K, most), &saved);
                if (!f)
                    return;
                const df_expr *iv = df_slot(K->p, f->var);
                add_iv(K, op, iv);
                const df_expr *mine = x_min(K, x_max(K, BIN(K, DF_X_SUB, own, iv), C(K, 0)), C(K, 1));
                K->live = BIN(K, DF_X_MUL, K->live, mine);
            } else if (!open_ir_loop(K, op, &saved)) {
                return;
            }
            emit_dm_block(K, op->regions[0]);
            close_for(K, saved);
            K->nivs = nivs;
            K->live = live;
            continue;
        }
        if (!is_access_op(op->code))
            continue;
        int i = access_of(L, op);
        if (i < 0 || L->ax[i].kernel != K->kind)
            continue;
        const access *x = &L->ax[i];
        if (x->passed && !x->is_store)
            continue; /* received for the whole group before its programs (emit_consumer) */
        bool shared = !x->is_store && x->how.transport != SCHED_DRAM;
        df_stmt *saved;
        int w = open_if(K, shared ? takes_part(K, x->how.along) : BIN(K, DF_X_MUL, K->act, K->live), &saved);
        if (!w)
            continue;
        if (x->is_store && x->passed)
            emit_store_fused(K, x);
        else if (x->is_store)
            emit_store_dm(K, x);
        else
            emit_load(K, x);
        if (w == 2)
            close_for(K, saved);
    }
}

/* ======================================================================
 * Compute kernel
 * ==================================================================== */

/* An operand of a tile op as the op reads it. */
typedef enum okind { O_FULL, O_COL, O_SCALAR, O_CONST } okind;
typedef struct opnd {
    okind k;
    double c;
    int cb;
    int64_t at;
    int64_t tiles; /* pages the op reads (the root's block) */
    const sym_expr *stiles; /* the same as an expression (the L1 plan) */
} opnd;

static store *root_store(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return NULL;
    if (ri->dest == D_DOT)
        return &L->st[L->v[ri->dest_ref].st];
    return ri->st >= 0 ? &L->st[ri->st] : NULL;
}

/* Where root r's pages are read from right now. */
static bool read_at(kctx *K, int r, int *cb, int64_t *at, lm_loc loc)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    if (ri->dest == D_DST) {
        *cb = LW_DST;
        *at = 0;
        return true;
    }
    store *s = root_store(L, r);
    if (!s || ri->dest == D_DOT || ri->dest == D_OUT || (ri->rl == R_NEW && s->inplace)) {
        fail(L, loc, "a value is read where the lowering keeps no readable copy of it");
        return false;
    }
    *cb = s->cb;
    *at = ri->rl == R_NEW && !s->old_popped ? s->tiles : 0;
    return true;
}

static bool get_opnd(kctx *K, const tir_value *x, const vinfo *res, opnd *o, lm_loc loc)
{
    lw *L = K->L;
    const vinfo *xi = V(L, x);
    memset(o, 0, sizeof *o);
    if (xi->kind == VK_CONST) {
        o->k = O_CONST;
        o->c = xi->c;
        return true;
    }
    if (xi->kind != VK_TILE || xi->trans || xi->tview) {
        fail(L, loc, "an operand the tile ops cannot read (a transposed or row view of a vector)");
        return false;
    }
    if (!read_at(K, xi->root, &o->cb, &o->at, loc))
        return false;
    const vinfo *ri = &L->v[xi->root];
    o->tiles = ri->tr * ri->tc;
    o->stiles = vtiles(L, ri);
    switch (xi->bc) {
    case BC_NONE:
        if (res && (ri->tr != res->tr || ri->tc != res->tc)) {
            fail(L, loc, "operand of %lldx%lld tiles in an op on %lldx%lld tiles", (long long)ri->tr,
                 (long long)ri->tc, (long long)res->tr, (long long)res->tc);
            return false;
        }
        o->k = O_FULL;
        return true;
    case BC_COL:
        o->k = O_COL;
        return true;
    case BC_SCALAR:
        o->k = O_SCALAR;
        return true;
    }
    return false;
}

/* A temporary CB for step k of an op, the same in every class. */
static int temp_cb(kctx *K, const tir_op *op, int k, int64_t tiles, const sym_expr *stiles, arch_format fmt)
{
    lw *L = K->L;
    for (int i = 0; i < L->ntmp; i++)
        if (L->tmp[i].op == op && L->tmp[i].k == k)
            return L->st[L->tmp[i].st].cb;
    if (L->ntmp == LW_MAX_TEMPS) {
        fail(L, op->loc, "too many temporary buffers");
        return 0;
    }
    int s = new_store(L, ST_TEMP, tiles, tiles, fmt, op->loc);
    store_sym(L, s, stiles, NULL, lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    L->st[s].cb = next_cb(L, op->loc);
    L->tmp[L->ntmp++] = (temp){op, k, s};
    return L->st[s].cb;
}

/* Begin writing root r: the CB and page offset it goes to (reserving). */
static int out_open(kctx *K, int r)
{
    lw *L = K->L;
    vinfo *ri = &L->v[r];
    if (ri->dest == D_DST)
        return LW_DST;
    store *s = root_store(L, r);
    if (ri->dest == D_DOT) {
        vinfo *t = &L->v[ri->dest_ref];
        store *ts = &L->st[t->st];
        if (!ts->inplace)
            cbop(K, DF_CB_RESERVE, ts->cb, ts->tiles);
        t->reserved = true;
        return ts->cb;
    }
    if (!(ri->dest == D_CARRY && s->inplace) && !ri->reserved)
        cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
    return s->cb;
}

static void out_close(kctx *K, int r)
{
    lw *L = K->L;
    vinfo *ri = &L->v[r];
    store *s = root_store(L, r);
    if (ri->dest == D_DST || ri->dest == D_DOT || (ri->dest == D_CARRY && s->inplace))
        return;
    cbop(K, DF_CB_PUSH, s->cb, s->tiles);
}

static df_stmt *elt(kctx *K, df_eltop op, int a, int64_t at, int b, int64_t at_b, df_bcast bc, int out, int64_t rows,
                    int64_t cols)
{
    df_stmt *s = S(K, DF_ELTWISE);
    s->sub = op;
    s->cb = a;
    s->at = C(K, at);
    s->cb_b = b;
    s->at_b = C(K, at_b);
    s->bcast = bc;
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    put(K, s);
    return s;
}

static df_stmt *sfpu(kctx *K, df_sfpuop op, int a, int64_t at, int out, int64_t n, double scalar)
{
    df_stmt *s = S(K, DF_SFPU);
    s->sub = op;
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->n = C(K, n);
    s->scalar = scalar;
    put(K, s);
    return s;
}

static void fill(kctx *K, int out, int64_t n, double c)
{
    df_stmt *s = S(K, DF_FILL);
    s->cb_out = out;
    s->n = C(K, n);
    s->scalar = c;
    put(K, s);
}

static void copy(kctx *K, int a, int64_t at, int out, int64_t n)
{
    df_stmt *s = S(K, DF_COPY);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->n = C(K, n);
    put(K, s);
}

static df_bcast bc_of(okind k) { return k == O_COL ? DF_BC_COL : k == O_SCALAR ? DF_BC_SCALAR : DF_BC_NONE; }

/* A constant as a one-tile operand: filled into a temporary CB. */
static void const_tile(kctx *K, const tir_op *op, int k, double c, opnd *o)
{
    int cb = temp_cb(K, op, k, 1, sym_const(K->L->sc, 1), interm_format(K->L));
    cbop(K, DF_CB_RESERVE, cb, 1);
    fill(K, cb, 1, c);
    cbop(K, DF_CB_PUSH, cb, 1);
    cbop(K, DF_CB_WAIT, cb, 1);
    o->k = O_SCALAR;
    o->cb = cb;
    o->at = 0;
    o->tiles = 1;
    o->stiles = sym_const(K->L->sc, 1);
}

static void end_temp(kctx *K, const opnd *o, bool was_temp)
{
    if (was_temp)
        cbop(K, DF_CB_POP, o->cb, o->tiles);
}

/* a (code) b into the reserved pages of `out`, rows x cols tiles; the
 * temporaries of this step are op's k0 and k0 + 1. False after reporting. */
static bool binop(kctx *K, const tir_op *op, int k0, tir_opcode code, opnd a, opnd b, int64_t rows, int64_t cols,
                  const sym_expr *sT, int out)
{
    lw *L = K->L;
    if (code == TIR_MIN) {
        fail(L, op->loc, "tl.minimum of tiles (the tile ops have max only)");
        return false;
    }
    bool comm = code == TIR_ADD || code == TIR_MUL || code == TIR_MAX;
    if (a.k != O_FULL && b.k == O_FULL && comm) {
        opnd t = a;
        a = b;
        b = t;
    }
    int64_t T = rows * cols;
    arch_format tf = interm_format(L);
    /* x * c, x / c: the SFPU scales */
    if (a.k == O_FULL && b.k == O_CONST && (code == TIR_MUL || code == TIR_DIV)) {
        sfpu(K, DF_SCALE, a.cb, a.at, out, T, code == TIR_MUL ? b.c : 1.0 / b.c);
        return true;
    }
    if (a.k == O_FULL && code == TIR_DIV) {
        /* x / y = x * (1/y), the reciprocal taken once over y's own tiles */
        int t = temp_cb(K, op, k0, b.tiles, b.stiles, tf);
        cbop(K, DF_CB_RESERVE, t, b.tiles);
        sfpu(K, DF_RECIP, b.cb, b.at, t, b.tiles, 1);
        cbop(K, DF_CB_PUSH, t, b.tiles);
        cbop(K, DF_CB_WAIT, t, b.tiles);
        elt(K, DF_MUL, a.cb, a.at, t, 0, bc_of(b.k), out, rows, cols);
        cbop(K, DF_CB_POP, t, b.tiles);
        return true;
    }
    if (a.k == O_CONST && b.k == O_FULL && code == TIR_DIV) {
        /* c / y */
        if (a.c == 1.0) {
            sfpu(K, DF_RECIP, b.cb, b.at, out, T, 1);
        } else {
            int t = temp_cb(K, op, k0, T, sT, tf);
            cbop(K, DF_CB_RESERVE, t, T);
            sfpu(K, DF_RECIP, b.cb, b.at, t, T, 1);
            cbop(K, DF_CB_PUSH, t, T);
            cbop(K, DF_CB_WAIT, t, T);
            sfpu(K, DF_SCALE, t, 0, out, T, a.c);
            cbop(K, DF_CB_POP, t, T);
        }
        return true;
    }
    if (a.k == O_CONST && b.k == O_FULL && code == TIR_SUB) {
        /* c - y = (-y) + c */
        int t = temp_cb(K, op, k0, T, sT, tf);
        cbop(K, DF_CB_RESERVE, t, T);
        sfpu(K, DF_NEG, b.cb, b.at, t, T, 1);
        cbop(K, DF_CB_PUSH, t, T);
        cbop(K, DF_CB_WAIT, t, T);
        opnd c;
        const_tile(K, op, k0 + 1, a.c, &c);
        elt(K, DF_ADD, t, 0, c.cb, 0, DF_BC_SCALAR, out, rows, cols);
        cbop(K, DF_CB_POP, t, T);
        end_temp(K, &c, true);
        return true;
    }
    df_eltop eo = code == TIR_ADD ? DF_ADD : code == TIR_SUB ? DF_SUB : code == TIR_MUL ? DF_MUL : DF_MAXOP;
    if (code != TIR_ADD && code != TIR_SUB && code != TIR_MUL && code != TIR_MAX) {
        fail(L, op->loc, "'%s' of these operands has no tile op", tir_op_name(code));
        return false;
    }
    if (a.k == O_FULL) {
        bool ct = b.k == O_CONST;
        if (ct)
            const_tile(K, op, k0 + 1, b.c, &b);
        elt(K, eo, a.cb, a.at, b.cb, b.at, bc_of(b.k), out, rows, cols);
        end_temp(K, &b, ct);
        return true;
    }
    if (b.k == O_FULL && code == TIR_SUB && (a.k == O_COL || a.k == O_SCALAR)) {
        /* v - x = -(x - v) */
        int t = temp_cb(K, op, k0, T, sT, tf);
        cbop(K, DF_CB_RESERVE, t, T);
        elt(K, DF_SUB, b.cb, b.at, a.cb, a.at, bc_of(a.k), t, rows, cols);
        cbop(K, DF_CB_PUSH, t, T);
        cbop(K, DF_CB_WAIT, t, T);
        sfpu(K, DF_NEG, t, 0, out, T, 1);
        cbop(K, DF_CB_POP, t, T);
        return true;
    }
    fail(L, op->loc, "'%s' of two broadcast operands", tir_op_name(code));
    return false;
}


static void emit_binary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    if (!get_opnd(K, op->opnds[0], rr, &a, op->loc) || !get_opnd(K, op->opnds[1], rr, &b, op->loc))
        return;
    int out = out_open(K, r);
    binop(K, op, 0, op->code, a, b, rr->tr, rr->tc, vtiles(L, rr), out);
    out_close(K, r);
}

/* A temporary of n tiles made by `fn`... the three steps of every temp. */
static int temp_open(kctx *K, const tir_op *op, int k, int64_t n, const sym_expr *sn)
{
    int t = temp_cb(K, op, k, n, sn, interm_format(K->L));
    cbop(K, DF_CB_RESERVE, t, n);
    return t;
}

static opnd temp_ready(kctx *K, int t, int64_t n, const sym_expr *sn)
{
    cbop(K, DF_CB_PUSH, t, n);
    cbop(K, DF_CB_WAIT, t, n);
    return (opnd){O_FULL, 0, t, 0, n, sn};
}

/* A comparison of data: 1.0 where it holds, 0.0 elsewhere (the SFPU's
 * comparisons with zero, after a subtraction). */
static void emit_cmp(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd a, b;
    if (!get_opnd(K, op->opnds[0], rr, &a, op->loc) || !get_opnd(K, op->opnds[1], rr, &b, op->loc))
        return;
    tir_opcode code = op->code;
    if (a.k != O_FULL && b.k == O_FULL) {
        /* c < y  <=>  y > c */
        opnd t = a;
        a = b;
        b = t;
        code = code == TIR_CMP_LT ? TIR_CMP_GT : code == TIR_CMP_GT ? TIR_CMP_LT : code == TIR_CMP_LE ? TIR_CMP_GE
               : code == TIR_CMP_GE ? TIR_CMP_LE : code;
    }
    if (a.k != O_FULL) {
        fail(L, op->loc, "a comparison of two broadcast values");
        return;
    }
    df_sfpuop so = code == TIR_CMP_GT ? DF_GTZ : code == TIR_CMP_GE ? DF_GEZ : code == TIR_CMP_LT ? DF_LTZ
                   : code == TIR_CMP_LE ? DF_LEZ : code == TIR_CMP_EQ ? DF_EQZ : DF_NEZ;
    int64_t T = rr->tr * rr->tc;
    const sym_expr *sT = vtiles(L, rr);
    bool diff = !(b.k == O_CONST && b.c == 0.0);
    opnd d = a;
    if (diff) {
        int t = temp_open(K, op, 0, T, sT);
        if (!binop(K, op, 1, TIR_SUB, a, b, rr->tr, rr->tc, sT, t))
            return;
        d = temp_ready(K, t, T, sT);
    }
    int out = out_open(K, r);
    sfpu(K, so, d.cb, d.at, out, T, 1);
    out_close(K, r);
    if (diff)
        cbop(K, DF_CB_POP, d.cb, T);
}

/* where(c, x, y) on a condition computed from data: y + c * (x - y). */
static void emit_select(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    opnd c, x, y;
    if (!get_opnd(K, op->opnds[0], rr, &c, op->loc) || !get_opnd(K, op->opnds[1], rr, &x, op->loc) ||
        !get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    if ((x.k == O_CONST && !isfinite(x.c)) || (y.k == O_CONST && !isfinite(y.c))) {
        fail(L, op->loc, "tl.where on data with an infinite value (it is computed as y + c*(x - y))");
        return;
    }
    int64_t rows = rr->tr, cols = rr->tc, T = rows * cols;
    const sym_expr *sT = vtiles(L, rr);
    int t1 = temp_open(K, op, 0, T, sT);
    if (x.k == O_CONST && y.k == O_CONST) {
        fill(K, t1, T, x.c - y.c);
    } else if (!binop(K, op, 1, TIR_SUB, x, y, rows, cols, sT, t1)) {
        return;
    }
    opnd d = temp_ready(K, t1, T, sT);
    int t2 = temp_open(K, op, 3, T, sT);
    if (!binop(K, op, 4, TIR_MUL, c, d, rows, cols, sT, t2))
        return;
    opnd e = temp_ready(K, t2, T, sT);
    int out = out_open(K, r);
    binop(K, op, 6, TIR_ADD, e, y, rows, cols, sT, out);
    out_close(K, r);
    cbop(K, DF_CB_POP, t1, T);
    cbop(K, DF_CB_POP, t2, T);
}

static void emit_unary(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    const vinfo *xi = V(L, op->opnds[0]);
    if (xi->kind != VK_TILE || xi->trans || xi->tview) {
        fail(L, op->loc, "'%s' of an operand the tile ops cannot read", tir_op_name(op->code));
        return;
    }
    int cb;
    int64_t at;
    if (!read_at(K, xi->root, &cb, &at, op->loc))
        return;
    int64_t T = rr->tr * rr->tc;
    if (op->code == TIR_CAST) {
        int out = out_open(K, r);
        copy(K, cb, at, out, T);
        out_close(K, r);
        return;
    }
    if (op->code == TIR_LOG2) {
        /* log2(x) = ln(x) / ln(2) */
        int t = temp_cb(K, op, 0, T, vtiles(L, rr), interm_format(L));
        cbop(K, DF_CB_RESERVE, t, T);
        sfpu(K, DF_LOG, cb, at, t, T, 1);
        cbop(K, DF_CB_PUSH, t, T);
        cbop(K, DF_CB_WAIT, t, T);
        int out = out_open(K, r);
        sfpu(K, DF_SCALE, t, 0, out, T, 1.0 / log(2.0));
        out_close(K, r);
        cbop(K, DF_CB_POP, t, T);
        return;
    }
    df_sfpuop so;
    switch (op->code) {
    case TIR_EXP: so = DF_EXP; break;
    case TIR_EXP2: so = DF_EXP2; break;
    case TIR_LOG: so = DF_LOG; break;
    case TIR_NEG: so = DF_NEG; break;
    default:
        fail(L, op->loc, "'%s' has no SFPU op", tir_op_name(op->code));
        return;
    }
    int out = out_open(K, r);
    sfpu(K, so, cb, at, out, T, 1);
    out_close(K, r);
}

static void mask_stmt(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols, const pred *p, int np,
                      double scalar);

/* Reductions become row reductions: along axis 0 the block is transposed
 * first (transpose_wh), and columns past the value's extent - padding or
 * whatever the pages held - are masked to the reduction's identity. */
static void emit_reduce(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *xi = V(L, op->opnds[0]);
    bool is_max = op->code == TIR_REDUCE_MAX;
    if (op->code == TIR_REDUCE_MIN || xi->kind != VK_TILE || xi->bc != BC_NONE || xi->trans || xi->tview ||
        (op->ival == 0 && op->keep_dims && xi->rank == 2) || op->ival > 1 || xi->rank == 0) {
        fail(L, op->loc, "'%s' along axis %lld of this value has no tile op", tir_op_name(op->code),
             (long long)op->ival);
        return;
    }
    int cb;
    int64_t at;
    if (!read_at(K, xi->root, &cb, &at, op->loc))
        return;
    const vinfo *xr = &L->v[xi->root];
    int64_t rows = xr->tr, cols = xr->tc, valid = xr->ec;
    const sym_expr *sn = vtiles(L, xr), *svalid = xr->sec;
    int tt = -1, tm = -1;
    if (op->ival == 0) {
        /* rows become columns: a 2-D block or a column vector */
        tt = temp_open(K, op, 0, rows * cols, sn);
        df_stmt *s = S(K, DF_TRANSPOSE);
        s->cb = cb;
        s->at = C(K, at);
        s->cb_out = tt;
        s->rows = C(K, rows);
        s->cols = C(K, cols);
        put(K, s);
        temp_ready(K, tt, rows * cols, sn);
        int64_t t = rows;
        rows = cols, cols = t;
        valid = xr->er;
        svalid = xr->ser;
        cb = tt, at = 0;
    }
    /* the masked copy exists where the reduced extent is not whole tiles */
    const sym_expr *partial = positive(L, sym_mod(L->sc, svalid, sym_const(L->sc, LW_TILE)));
    if (valid % LW_TILE) {
        tm = temp_open(K, op, 1, rows * cols, sn);
        for (int i = 0; i < L->ntmp; i++)
            if (L->tmp[i].op == op && L->tmp[i].k == 1)
                L->st[L->tmp[i].st].sind = partial;
        pred p = {{0, -1}, sym_const(L->sc, valid - 1)};
        mask_stmt(K, cb, at, tm, rows, cols, &p, 1, is_max ? -INFINITY : 0.0);
        temp_ready(K, tm, rows * cols, sn);
        cb = tm, at = 0;
    } else {
        plan_virtual(L, op, 1, ARCH_FP32,
                     sym_mul(L->sc, sym_mul(L->sc, sn, partial), sym_const(L->sc, L->a->tile_bytes[ARCH_FP32])),
                     lm_arena_printf(&L->ar, "a temporary of line %d", op->loc.line));
    }
    int out = out_open(K, r);
    df_stmt *s = S(K, DF_REDUCE);
    s->sub = is_max ? DF_RMAX : DF_RSUM;
    s->cb = cb;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    /* a sum over several tiles adds them in Dst first (8 cycles a tile
       where the row reduction takes about 98), then reduces one */
    s->fold = !is_max && cols > 1;
    put(K, s);
    out_close(K, r);
    if (tt >= 0)
        cbop(K, DF_CB_POP, tt, rows * cols);
    if (tm >= 0)
        cbop(K, DF_CB_POP, tm, rows * cols);
}

static void mask_stmt(kctx *K, int a, int64_t at, int out, int64_t rows, int64_t cols, const pred *p, int np,
                      double scalar)
{
    df_stmt *s = S(K, DF_MASK);
    s->cb = a;
    s->at = C(K, at);
    s->cb_out = out;
    s->rows = C(K, rows);
    s->cols = C(K, cols);
    s->scalar = scalar;
    if (np >= 1) {
        s->p1r = C(K, p[0].c[0]);
        s->p1c = C(K, p[0].c[1]);
        s->p1k = xs(K, p[0].k);
    }
    if (np >= 2) {
        s->p2r = C(K, p[1].c[0]);
        s->p2c = C(K, p[1].c[1]);
        s->p2k = xs(K, p[1].k);
    }
    put(K, s);
}

static void emit_where(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    const vinfo *rr = &L->v[r];
    const vinfo *m = V(L, op->opnds[0]);
    if (m->kind == VK_TILE) {
        emit_select(K, op);
        return;
    }
    if (m->kind != VK_MASK) {
        fail(L, op->loc, "tl.where on a condition the lowering cannot follow");
        return;
    }
    opnd x, y;
    if (!get_opnd(K, op->opnds[1], rr, &x, op->loc) || !get_opnd(K, op->opnds[2], rr, &y, op->loc))
        return;
    pred p[LW_MAX_PRED];
    int np = m->np;
    memcpy(p, m->p, sizeof p);
    opnd keep = x;
    double other;
    int filled = -1;
    int64_t T0 = rr->tr * rr->tc;
    if (x.k == O_CONST && y.k == O_CONST) {
        /* a tile of two constants: filled with one, masked to the other */
        filled = temp_open(K, op, 2, T0, vtiles(L, rr));
        fill(K, filled, T0, x.c);
        keep = temp_ready(K, filled, T0, vtiles(L, rr));
        x = keep;
    }
    if (x.k == O_FULL && y.k == O_CONST) {
        other = y.c;
    } else if (x.k == O_CONST && y.k == O_FULL && np == 1) {
        keep = y;
        other = x.c;
        p[0].c[0] = -p[0].c[0];
        p[0].c[1] = -p[0].c[1];
        p[0].k = sym_sub(L->sc, sym_neg(L->sc, p[0].k), sym_const(L->sc, 1));
    } else {
        fail(L, op->loc, "tl.where other than (mask, tile, constant) - the 'mask' op replaces by a constant");
        return;
    }
    if (np > 4) {
        fail(L, op->loc, "a mask of more than 4 comparisons");
        return;
    }
    int64_t T = rr->tr * rr->tc;
    if (np <= 2) {
        int out = out_open(K, r);
        mask_stmt(K, keep.cb, keep.at, out, rr->tr, rr->tc, p, np, other);
        out_close(K, r);
        if (filled >= 0)
            cbop(K, DF_CB_POP, filled, T);
        return;
    }
    int t = temp_cb(K, op, 0, T, vtiles(L, rr), rr->fmt);
    cbop(K, DF_CB_RESERVE, t, T);
    mask_stmt(K, keep.cb, keep.at, t, rr->tr, rr->tc, p, 2, other);
    cbop(K, DF_CB_PUSH, t, T);
    cbop(K, DF_CB_WAIT, t, T);
    int out = out_open(K, r);
    mask_stmt(K, t, 0, out, rr->tr, rr->tc, p + 2, np - 2, other);
    out_close(K, r);
    cbop(K, DF_CB_POP, t, T);
    if (filled >= 0)
        cbop(K, DF_CB_POP, filled, T);
}

/* The output sub-block of a matmul: the schedule's sub.h x sub.w when it
 * fits, else the largest h x w that divides the block and fits Dst. */
static void sub_block(lw *L, int64_t M, int64_t N, int64_t *sh, int64_t *sw)
{
    int64_t h = value_of(L, "sub.h", 0), w = value_of(L, "sub.w", 0);
    if (h >= 1 && w >= 1 && M % h == 0 && N % w == 0 && h * w <= L->dst_cap) {
        *sh = h, *sw = w;
        return;
    }
    *sh = *sw = 1;
    for (int64_t a = 1; a <= M; a++)
        for (int64_t b = 1; b <= N; b++)
            if (M % a == 0 && N % b == 0 && a * b <= L->dst_cap &&
                (a * b > *sh * *sw || (a * b == *sh * *sw && b > *sw)))
                *sh = a, *sw = b;
}

static const df_expr *iv_of(kctx *K, const tir_op *f)
{
    for (int i = K->nivs - 1; i >= 0; i--)
        if (K->ivs[i].iv == f->iv)
            return K->ivs[i].e;
    return C(K, 0);
}

static void emit_dot(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int r = V(L, op->results[0])->root;
    vinfo *rr = &L->v[r];
    const vinfo *a = V(L, op->opnds[0]), *b = V(L, op->opnds[1]);
    if (a->kind != VK_TILE || b->kind != VK_TILE || a->bc != BC_NONE || b->bc != BC_NONE || a->trans || a->tview ||
        b->tview || a->rank != 2 || b->rank != 2) {
        fail(L, op->loc, "tl.dot of operands that are not 2-D tiles held in CBs");
        return;
    }
    const vinfo *ar = &L->v[a->root], *br = &L->v[b->root];
    int64_t M = ar->tr, Kt = ar->tc, N, Kb;
    if (b->trans)
        N = br->tr, Kb = br->tc;
    else
        N = br->tc, Kb = br->tr;
    if (Kt != Kb || ar->ec % LW_TILE) {
        fail(L, op->loc, "tl.dot over K = %lld elements (K must be a multiple of %d so that no padding is summed)",
             (long long)ar->ec, LW_TILE);
        return;
    }
    int ca, cb;
    int64_t at_a, at_b;
    if (!read_at(K, a->root, &ca, &at_a, op->loc) || !read_at(K, b->root, &cb, &at_b, op->loc))
        return;
    store *s = root_store(L, r);
    const df_expr *acc = C(K, 0);
    if (s->inplace && rr->dest == D_CARRY) {
        acc = s->fill_first ? C(K, 1) : x_min(K, iv_of(K, op->parent->owner), C(K, 1));
    } else if (op->nopnds == 3) {
        const vinfo *ac = V(L, op->opnds[2]);
        if (ac->kind == VK_CONST) {
            if (ac->c != 0.0) {
                int out = out_open(K, r);
                fill(K, out, rr->tr * rr->tc, ac->c);
                rr->reserved = true;
            }
        } else if (ac->kind == VK_TILE && L->v[ac->root].dest == D_DOT && L->v[ac->root].dest_ref == r) {
            acc = C(K, 1); /* the producer wrote straight into our pages */
        } else {
            opnd o;
            if (!get_opnd(K, op->opnds[2], rr, &o, op->loc))
                return;
            if (o.k != O_FULL) {
                fail(L, op->loc, "a broadcast accumulator of tl.dot");
                return;
            }
            int out = out_open(K, r);
            copy(K, o.cb, o.at, out, rr->tr * rr->tc);
            rr->reserved = true;
            acc = C(K, 1);
        }
        if (ac->kind == VK_TILE && L->v[ac->root].dest == D_DOT)
            acc = C(K, 1);
    }
    int out = out_open(K, r);
    rr->reserved = false;
    int64_t sh, sw;
    sub_block(L, M, N, &sh, &sw);
    df_stmt *m = S(K, DF_MATMUL);
    m->cb = ca;
    m->at = C(K, at_a);
    m->cb_b = cb;
    m->at_b = C(K, at_b);
    m->cb_out = out;
    m->m = C(K, M);
    m->k = C(K, Kt);
    m->nn = C(K, N);
    m->sub_h = C(K, sh);
    m->sub_w = C(K, sw);
    m->trans_b = b->trans;
    m->acc = acc;
    put(K, m);
    out_close(K, r);
}

/* Roots read by the compute kernel, waited for and popped by it. */
static bool c_waits(lw *L, int r)
{
    const vinfo *ri = &L->v[r];
    if (ri->kind != VK_TILE || ri->root != r)
        return false;
    store *s = root_store(L, r);
    if (!s || ri->dest == D_DOT || ri->dest == D_OUT || ri->dest == D_DST)
        return false;
    if ((ri->rl == R_NEW || ri->rl == R_OLD) && s->inplace)
        return false; /* accumulated in reserved pages, pushed after the loop */
    if (ri->rl == R_RESULT && s->writer_pops)
        return false;
    return true;
}

static void c_wait(kctx *K, int r)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    store *s = root_store(L, r);
    int64_t n = s->tiles;
    if (ri->rl == R_NEW && !s->old_popped)
        n = 2 * s->tiles;
    cbop(K, DF_CB_WAIT, s->cb, n);
}

static void c_pop(kctx *K, int r)
{
    lw *L = K->L;
    const vinfo *ri = &L->v[r];
    if (ri->rl == R_NEW)
        return; /* the next iteration's value */
    store *s = root_store(L, r);
    cbop(K, DF_CB_POP, s->cb, s->tiles);
    if (ri->rl == R_OLD)
        s->old_popped = true;
}

static void emit_cblock(kctx *K, const tir_block *b);

static void emit_cfor(kctx *K, const tir_op *f)
{
    lw *L = K->L;
    int n = tir_for_ncarried(f);
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
        if (s->inplace) {
            if (s->fill_first)
                fill(K, s->cb, s->tiles, 0);
            continue;
        }
        const vinfo *in = V(L, tir_for_init(f, i));
        if (in->kind == VK_CONST) {
            fill(K, s->cb, s->tiles, in->c);
        } else {
            opnd o;
            if (!get_opnd(K, tir_for_init(f, i), ai, &o, f->loc))
                return;
            if (o.k != O_FULL) {
                fail(L, f->loc, "a broadcast initial value of a loop-carried tile");
                return;
            }
            copy(K, o.cb, o.at, s->cb, s->tiles);
        }
        cbop(K, DF_CB_PUSH, s->cb, s->tiles);
    }
    df_stmt *saved;
    int nivs = K->nivs;
    if (!open_ir_loop(K, f, &saved))
        return;
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind == VK_TILE)
            L->st[ai->st].old_popped = false;
    }
    emit_cblock(K, f->regions[0]);
    close_for(K, saved);
    K->nivs = nivs;
    for (int i = 0; i < n; i++) {
        const vinfo *ai = V(L, tir_for_arg(f, i));
        if (ai->kind == VK_TILE && L->st[ai->st].inplace)
            cbop(K, DF_CB_PUSH, L->st[ai->st].cb, L->st[ai->st].tiles);
    }
}

static void emit_yield(kctx *K, const tir_op *y)
{
    lw *L = K->L;
    const tir_op *f = y->parent->owner;
    if (!f || f->code != TIR_FOR)
        return;
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i);
        const vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        const tir_value *yv = y->opnds[i];
        const vinfo *yi = V(L, yv);
        if (s->inplace || yv == arg)
            continue;
        if (yi->kind == VK_TILE && L->v[yi->root].st == ai->st && L->v[yi->root].rl == R_NEW)
            continue;
        /* copy (or fill) the yielded value in behind the old one */
        cbop(K, DF_CB_RESERVE, s->cb, s->tiles);
        if (yi->kind == VK_CONST) {
            fill(K, s->cb, s->tiles, yi->c);
        } else {
            opnd o;
            if (!get_opnd(K, yv, ai, &o, y->loc))
                return;
            if (o.k != O_FULL) {
                fail(L, y->loc, "a broadcast yielded as a loop-carried tile");
                return;
            }
            copy(K, o.cb, o.at, s->cb, s->tiles);
        }
        cbop(K, DF_CB_PUSH, s->cb, s->tiles);
    }
}

static void end_of_body(kctx *K, const tir_op *f)
{
    lw *L = K->L;
    const tir_op *y = tir_yield_of(f->regions[0]);
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i);
        const vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        store *s = &L->st[ai->st];
        if (s->inplace || y->opnds[i] == arg || s->old_popped)
            continue;
        cbop(K, DF_CB_POP, s->cb, s->tiles);
        s->old_popped = true;
    }
}

static void emit_cstore(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int i = access_of(L, op);
    if (i < 0)
        return;
    access *x = &L->ax[i];
    if (!x->copy_in)
        return;
    const tir_value *val = op->opnds[1];
    const vinfo *vi = V(L, val);
    cbop(K, DF_CB_RESERVE, x->cb, x->tiles);
    if (vi->kind == VK_CONST) {
        fill(K, x->cb, x->tiles, vi->c);
    } else if (vi->kind == VK_TILE && vi->tview && vi->bc == BC_NONE) {
        int cb;
        int64_t at;
        if (!read_at(K, vi->root, &cb, &at, op->loc))
            return;
        df_stmt *s = S(K, DF_TRANSPOSE);
        s->cb = cb;
        s->at = C(K, at);
        s->cb_out = x->cb;
        s->rows = C(K, L->v[vi->root].tr);
        s->cols = C(K, 1);
        put(K, s);
    } else {
        opnd o;
        if (!get_opnd(K, val, NULL, &o, op->loc))
            return;
        if (o.k != O_FULL || o.tiles != x->tiles) {
            fail(L, op->loc, "the stored value (%lld tiles) does not match the block (%lld tiles)",
                 (long long)o.tiles, (long long)x->tiles);
            return;
        }
        copy(K, o.cb, o.at, x->cb, x->tiles);
    }
    cbop(K, DF_CB_PUSH, x->cb, x->tiles);
}

/* A load cut short by a boundary check: its pages past the extent hold
 * what they held before, so the values are copied with those elements set
 * to zero (the padding the kernel asked for) before anything reads them. */
static void emit_clean(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    int i = access_of(L, op);
    if (i < 0 || !L->ax[i].clean)
        return;
    const access *x = &L->ax[i];
    pred p[2];
    int np = 0;
    if (x->clip_rows)
        p[np++] = (pred){{-1, 0}, sym_sub(L->sc, x->clip_rows, sym_const(L->sc, 1))};
    if (x->clip_cols)
        p[np++] = (pred){{0, -1}, sym_sub(L->sc, x->clip_cols, sym_const(L->sc, 1))};
    int out = L->st[x->clean].cb;
    cbop(K, DF_CB_WAIT, x->cb, x->tiles);
    cbop(K, DF_CB_RESERVE, out, x->tiles);
    mask_stmt(K, x->cb, 0, out, x->tr, x->tc, p, np, 0.0);
    cbop(K, DF_CB_PUSH, out, x->tiles);
    cbop(K, DF_CB_POP, x->cb, x->tiles);
}

static void emit_cop(kctx *K, const tir_op *op)
{
    lw *L = K->L;
    switch (op->code) {
    case TIR_FOR:
        emit_cfor(K, op);
        return;
    case TIR_YIELD:
        emit_yield(K, op);
        return;
    case TIR_STORE:
    case TIR_DESC_STORE:
        emit_cstore(K, op);
        return;
    default:
        break;
    }
    if (op->nresults != 1)
        return;
    const vinfo *ri = V(L, op->results[0]);
    if (ri->kind != VK_TILE || ri->root != op->results[0]->uid)
        return; /* constants, index tiles, aliases, loads */
    switch (op->code) {
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_MIN:
        emit_binary(K, op);
        return;
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
    case TIR_CAST:
        emit_unary(K, op);
        return;
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_SUM:
        emit_reduce(K, op);
        return;
    case TIR_WHERE:
        emit_where(K, op);
        return;
    case TIR_CMP_EQ:
    case TIR_CMP_NE:
    case TIR_CMP_LT:
    case TIR_CMP_LE:
    case TIR_CMP_GT:
    case TIR_CMP_GE:
        emit_cmp(K, op);
        return;
    case TIR_DOT:
        emit_dot(K, op);
        return;
    case TIR_LOAD:
    case TIR_DESC_LOAD:
        emit_clean(K, op);
        return;
    default:
        fail(L, op->loc, "'%s' has no tile op", tir_op_name(op->code));
        return;
    }
}

static void emit_cblock(kctx *K, const tir_block *b)
{
    lw *L = K->L;
    /* carried values no op reads: free their pages at once */
    for (int i = 0; i < b->nargs; i++) {
        int u = b->args[i]->uid;
        if (c_waits(L, u) && L->v[u].defblk == b && !L->v[u].first_top) {
            c_wait(K, u);
            c_pop(K, u);
        }
    }
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].first_top == op && c_waits(L, u) && !(op->code == TIR_YIELD && L->v[u].rl == R_NEW))
                c_wait(K, u); /* (a yield does not read the value made in its place) */
        emit_cop(K, op);
        if (op->code == TIR_YIELD && b->owner)
            end_of_body(K, b->owner);
        for (int u = 0; u < L->nv; u++) {
            if (!c_waits(L, u))
                continue;
            const vinfo *v = &L->v[u];
            if (v->last_top == op)
                c_pop(K, u);
            else if (!v->first_top && v->defblk == b && L->def[u] == op) {
                c_wait(K, u); /* made or arrived, never read */
                c_pop(K, u);
            }
        }
    }
}

/* ======================================================================
 * Programs on cores, classes, the whole program
 * ==================================================================== */

static const char *grp_name[3] = {"x", "y", "xy"};

/* Open the loops over this core's programs and set pid expressions. */
static bool open_programs(kctx *K, df_stmt **saved, int *nsaved)
{
    lw *L = K->L;
    *nsaved = 0;
    const df_expr *cx = df_slot(K->p, DF_SLOT_CX), *cy = df_slot(K->p, DF_SLOT_CY);
    static const int order[3] = {G_Y, G_X, G_XY};
    for (int gr = 0; gr < 3; gr++)
        K->in[gr] = C(K, 1);
    for (int oi = 0; oi < 3; oi++) {
        int gr = order[oi];
        K->wave[gr] = C(K, 0);
        if (!L->ngrp[gr])
            continue;
        int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
        const df_expr *idx = gr == G_X ? cx : gr == G_Y ? cy : BIN(K, DF_X_ADD, BIN(K, DF_X_MUL, cy, C(K, L->gx)), cx);
        int64_t W = cdiv64(L->E[gr], n);
        if (L->lockstep ? W > 1 : L->E[gr] != n) {
            char name[16];
            snprintf(name, sizeof name, "w_%s", grp_name[gr]);
            df_stmt *f = open_for(K, name, C(K, 0), L->lockstep ? C(K, W) : K->nw[gr], &saved[*nsaved]);
            if (!f)
                return false;
            (*nsaved)++;
            K->wave[gr] = df_slot(K->p, f->var);
        }
        const df_expr *q = BIN(K, DF_X_ADD, idx, BIN(K, DF_X_MUL, C(K, n), K->wave[gr]));
        /* whole waves: every index is in range */
        K->in[gr] = L->E[gr] % n == 0 ? C(K, 1) : x_min(K, x_max(K, BIN(K, DF_X_SUB, C(K, L->E[gr]), q), C(K, 0)), C(K, 1));
        for (int i = L->ngrp[gr] - 1; i >= 0; i--) {
            int g = L->grp[gr][i];
            if (i == 0) {
                K->pid[g] = q;
            } else {
                K->pid[g] = BIN(K, DF_X_MOD, q, C(K, L->ext[g]));
                q = BIN(K, DF_X_DIV, q, C(K, L->ext[g]));
            }
        }
    }
    for (int i = 0; i < L->ntime; i++) {
        int g = L->time[i];
        char name[16];
        snprintf(name, sizeof name, "t%d", g);
        df_stmt *f = open_for(K, name, C(K, 0), C(K, L->ext[g]), &saved[*nsaved]);
        if (!f)
            return false;
        (*nsaved)++;
        K->pid[g] = df_slot(K->p, f->var);
    }
    K->act = BIN(K, DF_X_MUL, BIN(K, DF_X_MUL, K->in[G_X], K->in[G_Y]), K->in[G_XY]);
    return true;
}

static bool kernel_moves(lw *L, df_kernel_kind kind)
{
    for (int i = 0; i < L->acc->n; i++)
        if (L->ax[i].kernel == kind && !L->ax[i].is_store && L->ax[i].how.transport != SCHED_DRAM)
            return true;
    return false;
}

static void emit_kernel(lw *L, df_class *c, df_kernel_kind kind, const int rect[4], const df_expr *const nw[3])
{
    kctx K;
    memset(&K, 0, sizeof K);
    K.L = L;
    K.p = L->p;
    K.c = c;
    K.kind = kind;
    K.x0 = rect[0], K.y0 = rect[1], K.x1 = rect[2], K.y1 = rect[3];
    K.live = df_const(L->p, 1);
    for (int g = 0; g < 3; g++)
        K.nw[g] = nw[g];
    for (int s = 0; s < L->nst; s++)
        L->st[s].old_popped = false;
    for (int u = 0; u < L->nv; u++)
        L->v[u].reserved = false;
    /* a fused producer's reducer cores (the first along the gather
       dimension) run the consumer's programs dealt to them after their own */
    bool reducer = L->lb && (L->s->cand.fuse_along == SCHED_ON_X ? rect[2] < L->nred : rect[3] < L->nred);
    if (kind == DF_COMPUTE ? false
                           : !has_access(L, L->f->body, kind) && !(reducer && kind == DF_READER) &&
                                 !(reducer && has_access(L->lb, L->lb->f->body, kind)))
        return;
    if (L->lb && kind != DF_COMPUTE)
        emit_fused_prologue(&K, reducer);
    df_stmt *saved[3 + TIR_MAX_GRID];
    int nsaved;
    if (!open_programs(&K, saved, &nsaved))
        return;
    if (kind == DF_COMPUTE) {
        df_stmt *g;
        int w = open_if(&K, K.act, &g);
        if (w)
            emit_cblock(&K, L->f->body);
        if (w == 2)
            close_for(&K, g);
    } else {
        emit_dm_block(&K, L->f->body);
    }
    while (nsaved > 0)
        close_for(&K, saved[--nsaved]);
    if (reducer)
        emit_consumer(&K, kind);
    if (kind != DF_COMPUTE && kernel_moves(L, kind))
        put(&K, S(&K, DF_WRITE_BARRIER));
}

/* Column (row) boundaries where a core's role changes. */
static int cuts(lw *L, bool xdim, int64_t *out)
{
    int64_t n = xdim ? L->gx : L->gy;
    int k = 0;
    out[k++] = 0;
    for (int i = 0; i < L->acc->n; i++) {
        const access *x = &L->ax[i];
        if (x->is_store || x->how.transport == SCHED_DRAM)
            continue;
        sched_place al = x->how.along;
        bool mine = al == SCHED_ON_XY || (xdim ? al == SCHED_ON_X : al == SCHED_ON_Y);
        if (!mine)
            continue;
        int64_t s = x->how.transport == SCHED_MCAST ? sender_pos(L, x, n) : 0;
        out[k++] = s;
        out[k++] = s + 1;
        if (x->how.transport == SCHED_FORWARD)
            out[k++] = n - 1; /* the end of the chain passes nothing on */
    }
    if (L->lb && (L->s->cand.fuse_along == SCHED_ON_X) == xdim)
        out[k++] = L->nred; /* the cores that may be reducers (the first along the gather dimension) */
    out[k++] = n;
    /* sort, unique, within [0, n] */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < k; i++)
        if (out[i] <= n && (m == 0 || out[m - 1] != out[i]))
            out[m++] = out[i];
    return m;
}

static int64_t waves_at(lw *L, int gr, int64_t x, int64_t y)
{
    if (!L->ngrp[gr])
        return 1;
    int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
    int64_t idx = gr == G_X ? x : gr == G_Y ? y : y * L->gx + x;
    return L->E[gr] > idx ? cdiv64(L->E[gr] - idx, n) : 0;
}

/* The CBs of a class: a CB shared by several values is as large as the
 * largest; a fused consumer's CB that reuses its producer's id (on a
 * reducer core) grows the declaration already there. */
static void declare_cbs(lw *L, df_class *c)
{
    for (int s = 0; s < L->nst; s++) {
        const store *st = &L->st[s];
        bool first = st->cb >= 0;
        for (int o = 0; o < s && first; o++)
            first = L->st[o].cb != st->cb;
        if (!first)
            continue;
        int64_t pages = 0;
        for (int o = s; o < L->nst; o++)
            if (L->st[o].cb == st->cb)
                pages = LM_MAX(pages, L->st[o].pages);
        df_cb *have = NULL;
        for (int i = 0; i < c->ncbs; i++)
            if (c->cbs[i].id == st->cb)
                have = &c->cbs[i];
        if (!have) {
            df_add_cb(L->p, c, st->cb, st->fmt, df_const(L->p, pages), (lm_loc){0});
            continue;
        }
        if (have->format != st->fmt) {
            fail(L, (lm_loc){0}, "CB %d holds %s pages for one launch of the fused pair and %s for the other",
                 st->cb, df_format_name(have->format), df_format_name(st->fmt));
            return;
        }
        int64_t old = df_eval(have->pages_e, NULL);
        if (pages > old)
            have->pages_e = df_const(L->p, pages);
    }
}

static bool build_classes(lw *L)
{
    int64_t xs_[64], ys_[64];
    int nx = cuts(L, true, xs_), ny = cuts(L, false, ys_);
    for (int j = 0; j + 1 < ny; j++)
        for (int i = 0; i + 1 < nx; i++) {
            int rect[4] = {(int)xs_[i], (int)ys_[j], (int)xs_[i + 1] - 1, (int)ys_[j + 1] - 1};
            /* cores with no program at all are left idle */
            bool any = false;
            for (int y = rect[1]; y <= rect[3]; y++)
                for (int x = rect[0]; x <= rect[2]; x++) {
                    bool has = true;
                    for (int gr = 0; gr < 3; gr++)
                        has &= waves_at(L, gr, x, y) > 0;
                    any |= has;
                }
            if (!any && !L->lockstep)
                continue; /* (in lockstep an idle core still passes blocks on) */
            char name[40];
            snprintf(name, sizeof name, "cores_%d_%d", rect[0], rect[1]);
            df_class *c = df_add_class(L->p, name, df_const(L->p, rect[0]), df_const(L->p, rect[1]),
                                       df_const(L->p, rect[2]), df_const(L->p, rect[3]), (lm_loc){0});
            c->fidelity = L->s->fidelity;
            c->fp32_acc = L->s->fp32_acc;
            const df_expr *nw[3] = {NULL, NULL, NULL};
            const df_expr *cx = df_slot(L->p, DF_SLOT_CX), *cy = df_slot(L->p, DF_SLOT_CY);
            for (int gr = 0; gr < 3; gr++) {
                int64_t n = gr == G_X ? L->gx : gr == G_Y ? L->gy : L->gx * L->gy;
                if (!L->ngrp[gr] || L->E[gr] == n || L->lockstep)
                    continue;
                /* programs left for this core: ceil((E - index) / n), none past the end */
                const df_expr *idx = gr == G_X   ? cx
                                     : gr == G_Y ? cy
                                                 : df_bin(L->p, DF_X_ADD, df_bin(L->p, DF_X_MUL, cy, df_const(L->p, L->gx)), cx);
                const df_expr *e = df_bin(L->p, DF_X_SUB, df_const(L->p, L->E[gr] + n - 1), idx);
                e = df_bin(L->p, DF_X_MAX, df_bin(L->p, DF_X_DIV, e, df_const(L->p, n)), df_const(L->p, 0));
                char an[16];
                snprintf(an, sizeof an, "nw_%s", grp_name[gr]);
                int slot = df_add_arg(L->p, c, an, e);
                if (slot < 0) {
                    fail(L, (lm_loc){0}, "too many runtime arguments");
                    return false;
                }
                nw[gr] = df_slot(L->p, slot);
            }
            for (int kk = 0; kk < DF_NKERNELS && !L->failed; kk++)
                emit_kernel(L, c, (df_kernel_kind)kk, rect, nw);
            if (L->failed)
                return false;
            /* CBs last: the compute kernel may have asked for temporaries */
            declare_cbs(L, c);
            if (L->lb && (L->s->cand.fuse_along == SCHED_ON_X ? rect[2] < L->nred : rect[3] < L->nred))
                declare_cbs(L->lb, c);
            if (L->failed)
                return false;
        }
    if (L->p->nclasses == 0) {
        fail(L, (lm_loc){0}, "no core has a program to run");
        return false;
    }
    return true;
}

/* Whether a loop runs exactly one trip in every program. */
static bool one_trip(lw *L, const tir_op *f)
{
    if (!f || f->code != TIR_FOR || !f->sym)
        return false;
    int64_t n;
    return sym_eval(f->sym, &L->s->values, &n) == SYM_OK && n == 1;
}

static void plan_stores(lw *L)
{
    for (int i = 0; i < L->acc->n && !L->failed; i++) {
        access *x = &L->ax[i];
        if (!x->is_store)
            continue;
        const tir_op *op = x->aa->op;
        lm_loc loc = op->loc;
        const tir_value *val = op->opnds[1];
        const vinfo *vi = V(L, val);
        const sym_expr *many = NULL; /* the output's CB exists only when a loop runs more than once */
        arch_format tf;
        (void)tf;
        if (x->tensor < 0)
            return;
        tf = L->p->tensors[x->tensor].format;
        x->copy_in = true;
        if (vi->kind == VK_TILE) {
            if (vi->bc != BC_NONE || vi->trans) {
                fail(L, loc, "storing a broadcast or transposed view");
                return;
            }
            if (vi->tr != x->tr || vi->tc != x->tc) {
                fail(L, loc, "the stored tile (%lldx%lld tiles) does not match the block of '%s' (%lldx%lld tiles) "
                             "in its tile layout", (long long)vi->tr, (long long)vi->tc, x->aa->tensor->name,
                     (long long)x->tr, (long long)x->tc);
                return;
            }
            int r = vi->root;
            vinfo *ri = &L->v[r];
            /* An accumulator of another format than the tensor is packed in the
               tensor's format when its loop runs once, else copied out: the L1
               plan takes the format and the output's CB from the trip count. */
            if (L->record && !vi->tview && ri->rl == R_RESULT && only_use(L, r) == op && ri->fmt != tf &&
                L->st[ri->st].inplace) {
                const tir_op *lp = L->def[r];
                int64_t t;
                many = lp && lp->sym && sym_eval(lp->sym, &L->s->values, &t) == SYM_OK
                           ? positive(L, sym_sub(L->sc, lp->sym, sym_const(L->sc, 1)))
                           : sym_const(L->sc, 1);
                store *cs = &L->st[ri->st];
                const sym_expr *tb = sym_add(L->sc, sym_const(L->sc, L->a->tile_bytes[tf]),
                                             sym_mul(L->sc, many, sym_const(L->sc, L->a->tile_bytes[cs->fmt] -
                                                                                       L->a->tile_bytes[tf])));
                cs->sbytes = sym_mul(L->sc, sym_mul(L->sc, cs->stiles, cs->smult), tb);
            }
            if (vi->tview) {
                /* a column vector stored as a row: transposed into the CB */
            } else if (ri->rl == R_RESULT && only_use(L, r) == op &&
                       (ri->fmt == tf || (L->st[ri->st].inplace && one_trip(L, L->def[r])))) {
                /* written out straight from where it was made; an accumulator
                   whose loop runs once never adds in L1, so it can be packed
                   in the tensor's format at once */
                store *cs = &L->st[ri->st];
                cs->writer_pops = true;
                cs->fmt = tf;
                x->copy_in = false;
                x->root = r;
                x->cb = -2 - ri->st; /* resolved when CBs are numbered */
                if (many)
                    plan_virtual(L, op, 0, tf,
                                 sym_mul(L->sc, sym_mul(L->sc, many, sym_mul(L->sc, x->stiles, x->sdepth)),
                                         sym_const(L->sc, L->a->tile_bytes[tf])),
                                 lm_arena_printf(&L->ar, "%s (store)", x->aa->tensor->name));
                continue;
            }
            else if (computed_by_compute(L, r) && ri->dest == D_OWN && ri->fmt == tf && only_use(L, r) == op) {
                ri->dest = D_OUT;
                ri->dest_ref = i;
                x->copy_in = false;
                x->root = r;
            }
        } else if (vi->kind != VK_CONST) {
            fail(L, loc, "a stored value the lowering does not hold in tiles");
            return;
        }
        int s = new_store(L, ST_OUT, x->tiles, x->tiles * x->depth, tf, loc);
        store_sym(L, s, x->stiles, x->sdepth, lm_arena_printf(&L->ar, "%s (store)", x->aa->tensor->name));
        L->st[s].sind = many;
        x->cb = -2 - s;
        if (!x->copy_in)
            L->v[x->root].st = s;
    }
}

static int pos_end(lw *L, const tir_op *op)
{
    for (int i = 0; i < L->nnums; i++)
        if (L->nums[i].op == op)
            return L->nums[i].end;
    return -1;
}

/* Values of the compute kernel whose lifetimes never overlap share a CB
 * (of their format, as large as the largest): a value is popped before the
 * next one in the same CB is reserved, in program order, which the pack
 * engine (behind unpack) never waits on out of order. Lifetimes run from
 * the producing op to the end of the op, at the value's own level, that
 * holds its last use - a whole loop when it is read inside one. Taken in
 * order of production, a value goes to a free CB of its own shape (its
 * tiles as an expression), else borrows a free CB of another shape when it
 * ends before any value of that shape yet to come starts (so a small value
 * never keeps a large CB from the next large value), else to a CB of its
 * own. Shapes are compared as expressions, never by their sizes at one
 * schedule, so that every schedule shares the same way and the model's L1
 * (sched_lower_l1) is one expression. */
static bool same_shape(const store *a, const store *b) { return a->stiles == b->stiles; }

static void share_cbs(lw *L)
{
    int slot_of[LW_MAX_STORES], nslots = 0;
    struct {
        int last, first_store;
        arch_format fmt;
    } slot[LW_MAX_STORES];
    for (int s = 0; s < L->nst; s++) {
        slot_of[s] = -1;
        if (L->st[s].kind != ST_OWN)
            continue;
        for (int u = 0; u < L->nv; u++) {
            const vinfo *v = &L->v[u];
            if (v->kind != VK_TILE || v->root != u || v->st != s || v->dest != D_OWN || !L->def[u])
                continue;
            L->st[s].first = pos(L, L->def[u]);
            L->st[s].last = v->last_top ? LM_MAX(pos_end(L, v->last_top), L->st[s].first) : L->st[s].first;
        }
    }
    /* by first production; a slot whose last member ended before takes it */
    for (;;) {
        int best = -1;
        for (int s = 0; s < L->nst; s++)
            if (L->st[s].kind == ST_OWN && !L->st[s].noshare && slot_of[s] < 0 && L->st[s].first >= 0 &&
                (best < 0 || L->st[s].first < L->st[best].first))
                best = s;
        if (best < 0)
            break;
        store *b = &L->st[best];
        int k = -1;
        for (int i = 0; i < nslots && k < 0; i++)
            if (slot[i].fmt == b->fmt && slot[i].last < b->first && same_shape(&L->st[slot[i].first_store], b))
                k = i;
        for (int i = 0; i < nslots && k < 0; i++) {
            if (slot[i].fmt != b->fmt || slot[i].last >= b->first)
                continue;
            bool blocks = false;
            for (int u = 0; u < L->nst && !blocks; u++)
                blocks = u != best && L->st[u].kind == ST_OWN && !L->st[u].noshare && slot_of[u] < 0 &&
                         L->st[u].first >= 0 && L->st[u].fmt == b->fmt &&
                         same_shape(&L->st[u], &L->st[slot[i].first_store]) && L->st[u].first <= b->last;
            if (!blocks)
                k = i;
        }
        if (k < 0) {
            k = nslots++;
            slot[k].fmt = b->fmt;
            slot[k].first_store = best;
            slot[k].last = -1;
        }
        slot_of[best] = k;
        slot[k].last = b->last;
        store *f = &L->st[slot[k].first_store];
        if (f->pages < b->pages)
            f->pages = b->pages;
    }
    for (int s = 0; s < L->nst; s++)
        if (slot_of[s] >= 0 && slot[slot_of[s]].first_store != s)
            L->st[s].cb = -3 - slot[slot_of[s]].first_store; /* shares that store's CB */
}

static bool number_cbs(lw *L)
{
    /* loads, outputs, carried tiles, then values of the compute kernel */
    share_cbs(L);
    if (L->la) {
        /* a fused consumer's values take its producer's CBs of their format:
           on the reducer the two computations never overlap */
        bool taken[LW_MAX_STORES] = {false};
        for (int s = 0; s < L->nst; s++) {
            if (L->st[s].kind != ST_OWN || L->st[s].cb != -1 || L->st[s].noshare)
                continue;
            const lw *P = L->la;
            for (int a = 0; a < P->nst; a++) {
                bool leader = P->st[a].kind == ST_OWN && P->st[a].cb >= 0 && !P->st[a].noshare;
                for (int o = 0; o < a && leader; o++)
                    leader = P->st[o].cb != P->st[a].cb;
                if (leader && !taken[a] && P->st[a].fmt == L->st[s].fmt) {
                    taken[a] = true;
                    L->st[s].cb = P->st[a].cb;
                    break;
                }
            }
        }
    }
    static const stkind order[] = {ST_LOAD, ST_OUT, ST_CARRY, ST_OWN};
    for (size_t o = 0; o < LM_COUNT(order); o++)
        for (int s = 0; s < L->nst; s++)
            if (L->st[s].kind == order[o] && L->st[s].cb == -1)
                L->st[s].cb = next_cb(L, (lm_loc){0});
    for (int s = 0; s < L->nst; s++)
        if (L->st[s].cb <= -3) {
            const store *f = &L->st[-3 - L->st[s].cb];
            L->st[s].cb = f->cb;
        }
    for (int i = 0; i < L->acc->n; i++)
        if (L->ax[i].cb <= -2)
            L->ax[i].cb = L->st[-2 - L->ax[i].cb].cb;
    return !L->failed;
}

static bool setup_grid(lw *L)
{
    const tir_func *f = L->f;
    L->gx = value_of(L, "grid.x", 1);
    L->gy = value_of(L, "grid.y", 1);
    if (L->gx < 1 || L->gy < 1 || L->gx > L->a->grid_w || L->gy > L->a->grid_h) {
        fail(L, f->loc, "a %lldx%lld core grid does not fit the %dx%d grid of '%s'", (long long)L->gx,
             (long long)L->gy, L->a->grid_w, L->a->grid_h, L->a->name);
        return false;
    }
    for (int gr = 0; gr < 3; gr++)
        L->E[gr] = 1;
    for (int g = 0; g < f->grid_rank; g++) {
        if (!ev(L, f->grid[g], &L->ext[g], f->loc))
            return false;
        if (L->ext[g] < 1) {
            fail(L, f->loc, "grid axis %d has %lld programs", g, (long long)L->ext[g]);
            return false;
        }
        sched_place pl = L->s->cand.place[g];
        if (pl == SCHED_ON_TIME) {
            L->time[L->ntime++] = g;
            continue;
        }
        int gr = pl == SCHED_ON_X ? G_X : pl == SCHED_ON_Y ? G_Y : G_XY;
        L->grp[gr][L->ngrp[gr]++] = g;
        L->E[gr] *= L->ext[g];
    }
    if (L->ngrp[G_XY] && (L->ngrp[G_X] || L->ngrp[G_Y])) {
        fail(L, f->loc, "program axes flattened over the grid together with axes along x or y");
        return false;
    }
    L->dst_cap = L->s->fp32_acc ? L->a->dst_tiles_half_32b : L->a->dst_tiles_half_16b;
    return true;
}

/* The storage format of a tensor: the summary's IN/OUT buffer says it (a
 * baseline may have chosen a block float), else the element type. */
static bool tensor_format(lw *L, const tir_tensor *t, arch_format *fmt)
{
    for (int b = 0; b < L->k->nbufs; b++) {
        const sched_buf *sb = &L->k->bufs[b];
        if ((sb->kind == SCHED_BUF_IN || sb->kind == SCHED_BUF_OUT) && sb->access >= 0 && sb->access < L->acc->n &&
            L->acc->acc[sb->access].tensor == t) {
            *fmt = sb->format;
            return true;
        }
    }
    return elem_format(L, t->elem, fmt, t->loc);
}

static bool add_tensors(lw *L)
{
    /* every tensor the kernel touches, in launch-spec order of first access */
    for (int i = 0; i < L->acc->n; i++) {
        const tir_tensor *t = L->acc->acc[i].tensor;
        if (!t || tensor_index(L, t) >= 0)
            continue;
        int64_t shape[TIR_MAX_RANK];
        for (int d = 0; d < t->rank; d++)
            if (!ev(L, t->shape[d], &shape[d], t->loc))
                return false;
        int64_t rows, cols;
        sched_tensor_dims(shape, t->rank, t->fold_rows, &rows, &cols);
        arch_format fmt;
        if (!tensor_format(L, t, &fmt))
            return false;
        df_role role = t->role == TIR_INPUT ? DF_INPUT : t->role == TIR_OUTPUT ? DF_OUTPUT : DF_SCRATCH;
        int ti = df_add_tensor(L->p, t->name, df_const(L->p, rows), df_const(L->p, cols), fmt, role, t->loc);
        L->p->tensors[ti].seed = (uint64_t)ti + 1;
    }
    return true;
}

/* A unique semaphore name from `base`. */
static int add_sem_named(lw *L, const char *base, lm_loc loc)
{
    const char *name = base;
    for (int n = 2;; n++) {
        bool clash = false;
        for (int t = 0; t < L->p->ntensors; t++)
            clash |= !strcmp(L->p->tensors[t].name, name);
        for (int s = 0; s < L->p->nsems; s++)
            clash |= !strcmp(L->p->sems[s].name, name);
        if (!clash)
            break;
        name = lm_arena_printf(&L->ar, "%s%d", base, n);
    }
    return df_add_sem(L->p, name, df_const(L->p, 0), loc);
}

static bool add_sems(lw *L)
{
    for (int i = 0; i < L->acc->n; i++) {
        access *x = &L->ax[i];
        if (x->is_store || x->how.transport == SCHED_DRAM || x->how.transport == SCHED_FUSED)
            continue;
        for (int k = 0; k < 2; k++) {
            const char *base = lm_arena_printf(&L->ar, "%s_%s", x->aa->tensor->name, k ? "valid" : "ready");
            int s = add_sem_named(L, base, x->aa->op->loc);
            if (k)
                x->sem_valid = s;
            else
                x->sem_ready = s;
        }
    }
    return true;
}

/* The CBs of a lowered program as the L1 plan: every CB with the values
 * sharing it, then the CBs only other values need. A fused pair's plan
 * (n = 2: producer, consumer, whose CB ids come from one counter) is a
 * reducer core's, where both kernels' CBs are declared; each launch's
 * depths take its prefix (vprefix). */
static void record_plan(lw *const *Ls, int n, sched_l1_plan *plan, lm_arena *ar)
{
    sym_ctx *sc = Ls[0]->sc;
    const arch_desc *a = Ls[0]->a;
    int ncbs = Ls[0]->ncbs, total = ncbs;
    for (int l = 0; l < n; l++)
        total += Ls[l]->nvirt;
    plan->cbs = LM_NEWN(ar, sched_l1_cb, total ? total : 1);
    plan->ncbs = 0;
    /* per access of the (first) kernel: NoC commands and clipping */
    const lw *L0 = Ls[0];
    plan->nacc = L0->acc->n;
    plan->cmds = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    plan->clip = LM_NEWN(ar, const sym_expr *, plan->nacc ? plan->nacc : 1);
    for (int i = 0; i < plan->nacc; i++) {
        plan->cmds[i] = L0->ax[i].scmds;
        plan->clip[i] = L0->ax[i].sclip;
    }
    plan->nchains = L0->nchains;
    plan->chain_from = LM_NEWN(ar, const tir_op *, L0->nchains ? L0->nchains : 1);
    plan->chain_to = LM_NEWN(ar, const tir_op *, L0->nchains ? L0->nchains : 1);
    for (int i = 0; i < L0->nchains; i++) {
        plan->chain_from[i] = L0->chain_from[i];
        plan->chain_to[i] = L0->chain_to[i];
    }
    plan->bytes = plan->count = sym_const(sc, 0);
    const sym_expr *one = sym_const(sc, 1);
    for (int cb = 0; cb < ncbs; cb++) {
        int nu = 0;
        for (int l = 0; l < n; l++)
            for (int s = 0; s < Ls[l]->nst; s++)
                nu += Ls[l]->st[s].cb == cb;
        if (!nu)
            continue;
        sched_l1_cb *c = &plan->cbs[plan->ncbs++];
        c->uses = LM_NEWN(ar, sched_l1_use, nu);
        c->nuses = 0;
        const sym_expr *most = NULL;
        for (int l = 0; l < n; l++) {
            const lw *L = Ls[l];
            for (int s = 0; s < L->nst; s++) {
                const store *st = &L->st[s];
                if (st->cb != cb)
                    continue;
                if (!c->nuses)
                    c->format = st->fmt;
                const sym_expr *b = st->sbytes ? st->sbytes
                                               : sym_mul(sc, sym_mul(sc, st->stiles, st->smult),
                                                         sym_const(sc, a->tile_bytes[st->fmt]));
                if (st->sind)
                    b = sym_mul(sc, b, st->sind);
                b = sched_prefix_depths(L->k, b, sc, L->vprefix);
                c->uses[c->nuses++] = (sched_l1_use){lm_arena_strdup(ar, st->what ? st->what : "?"), b, l};
                most = most ? sym_max(sc, most, b) : b;
            }
        }
        plan->bytes = sym_add(sc, plan->bytes, most);
        plan->count = sym_add(sc, plan->count, sym_min(sc, one, most));
    }
    for (int l = 0; l < n; l++)
        for (int i = 0; i < Ls[l]->nvirt; i++) {
            const lw *L = Ls[l];
            sched_l1_cb *c = &plan->cbs[plan->ncbs++];
            const sym_expr *b = sched_prefix_depths(L->k, L->virt[i].bytes, sc, L->vprefix);
            c->format = L->virt[i].fmt;
            c->uses = LM_NEWN(ar, sched_l1_use, 1);
            c->uses[0] = (sched_l1_use){lm_arena_strdup(ar, L->virt[i].what), b, l};
            c->nuses = 1;
            plan->bytes = sym_add(sc, plan->bytes, b);
            plan->count = sym_add(sc, plan->count, sym_min(sc, one, b));
        }
}

static void lw_init(lw *L, const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc, lm_diag *d,
                    df_program *p)
{
    memset(L, 0, sizeof *L);
    L->k = k;
    L->s = s;
    L->a = a;
    L->sc = sc;
    L->d = d;
    L->f = k->f;
    L->acc = k->acc;
    lm_arena_init(&L->ar);
    L->p = p;
    L->nv = k->f->nvalues + 1;
    L->v = lm_xcalloc((size_t)L->nv, sizeof *L->v);
    L->ax = lm_xcalloc((size_t)(L->acc->n > 0 ? L->acc->n : 1), sizeof *L->ax);
    for (int u = 0; u < L->nv; u++)
        L->v[u].st = -1, L->v[u].root = u;
    opnums nums = {0};
    number_block(L, k->f->body, &nums);
    L->nums = nums.items;
    L->nnums = (int)nums.len;
    L->def = lm_xcalloc((size_t)L->nv, sizeof *L->def);
    record_defs(L, k->f->body);
}

static void lw_free(lw *L)
{
    free(L->v);
    free(L->ax);
    free(L->def);
    free(L->nums);
    lm_arena_free(&L->ar);
}

/* Everything before CB numbering: the grid, tensors, accesses and their
 * transports, what every value is, and its storage. */
static bool lw_plan(lw *L)
{
    const sched_kernel *k = L->k;
    bool ok = setup_grid(L) && add_tensors(L);
    if (ok && L->la) {
        /* a fused consumer: its programs of one group are its local axes' */
        L->nq = 1;
        for (int g = 0; g < L->f->grid_rank; g++)
            if (L->fz->key_of[g] < 0)
                L->nq *= L->ext[g];
        lw *P = L->la;
        bool along_x = P->s->cand.fuse_along == SCHED_ON_X;
        L->np = along_x ? P->gx : P->gy;
        L->nr = LM_MIN(L->nq, L->np);
        /* the cores that receive consumer programs: the first min(most groups
           of a core x programs of a group, np) */
        int other = along_x ? G_Y : G_X;
        int64_t W = 1;
        if (P->ngrp[other])
            W *= cdiv64(P->E[other], other == G_X ? P->gx : P->gy);
        for (int i = 0; i < P->ntime; i++)
            W *= P->ext[P->time[i]];
        L->nred = LM_MIN(W * L->nq, L->np);
        L->nmax = cdiv64(W * L->nq, L->np);
        P->nq = L->nq, P->np = L->np, P->nr = L->nr, P->nred = L->nred, P->nmax = L->nmax;
    }
    for (int i = 0; ok && i < L->acc->n; i++)
        ok = plan_access(L, i);
    for (int i = 0; ok && i < L->acc->n; i++)
        ok = plan_transport(L, &L->ax[i]);
    if (ok) {
        for (int i = 0; i < k->f->nparams; i++) {
            const tir_param *pm = &k->f->params[i];
            if (pm->has_fval) {
                V(L, pm->value)->kind = VK_CONST;
                V(L, pm->value)->c = pm->fval;
            }
        }
        classify_block(L, k->f->body);
        ok = !L->failed;
    }
    if (ok) {
        defblocks(L, k->f->body);
        uses_block(L, k->f->body);
        /* loads: their pages */
        for (int i = 0; i < L->acc->n; i++) {
            access *x = &L->ax[i];
            if (x->is_store)
                continue;
            const tir_value *r = x->aa->op->results[0];
            vinfo *ri = V(L, r);
            if (ri->kind != VK_TILE)
                continue;
            if (ri->tr != x->tr || ri->tc != x->tc) {
                fail(L, x->aa->op->loc, "the loaded tile (%lldx%lld tiles) does not match the block of '%s' "
                     "(%lldx%lld tiles) in its tile layout", (long long)ri->tr, (long long)ri->tc,
                     x->aa->tensor->name, (long long)x->tr, (long long)x->tc);
                break;
            }
            int ls = new_store(L, ST_LOAD, x->tiles, x->tiles * x->depth, L->p->tensors[x->tensor].format,
                               x->aa->op->loc);
            store_sym(L, ls, x->stiles, x->sdepth, lm_arena_printf(&L->ar, "%s (load)", x->aa->tensor->name));
            x->cb = -2 - ls;
            ri->st = ls;
            const char *cw = lm_arena_printf(&L->ar, "%s (masked copy)", x->aa->tensor->name);
            int64_t c0;
            if (x->clip_rows || x->clip_cols) {
                /* what a boundary check leaves out reads as padding: the compute
                   kernel masks it in a copy of its own (the pages hold stale data) */
                if (x->aa->op->code == TIR_LOAD && x->aa->op->padding == TIR_PAD_NAN) {
                    fail(L, x->aa->op->loc, "padding_option=\"nan\" on a block a boundary check cuts short");
                    break;
                }
                x->clean = new_store(L, ST_OWN, x->tiles, x->tiles, ri->fmt, x->aa->op->loc);
                /* alone in its CB: it exists only where the block is cut short */
                L->st[x->clean].noshare = true;
                store_sym(L, x->clean, x->stiles, NULL, cw);
                L->st[x->clean].sind = x->sclip;
                ri->st = x->clean;
            } else if (!(sym_is_const(x->sclip, &c0) && c0 == 0)) {
                plan_virtual(L, x->aa->op, 0, ri->fmt,
                             sym_mul(L->sc, sym_mul(L->sc, x->stiles, x->sclip), sym_const(L->sc, L->a->tile_bytes[ri->fmt])),
                             cw);
            }
        }
        plan_block(L, k->f->body);
        plan_dot_acc(L, k->f->body);
        plan_stores(L);
        plan_chains(L, k->f->body);
        for (int u = 0; u < L->nv && !L->failed; u++) {
            vinfo *v = &L->v[u];
            if (v->kind == VK_TILE && v->root == u && v->st < 0 && v->dest == D_OWN && computed_by_compute(L, u)) {
                v->st = new_store(L, ST_OWN, v->tr * v->tc, v->tr * v->tc, v->fmt, (lm_loc){0});
                const tir_op *dop = L->def[u];
                const char *nm = dop && dop->results[0]->name ? dop->results[0]->name
                                 : lm_arena_printf(&L->ar, "the value of line %d", dop ? dop->loc.line : 0);
                store_sym(L, v->st, vtiles(L, v), NULL, nm);
            }
        }
        ok = !L->failed;
    }
    return ok;
}

static struct df_program *lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                                lm_diag *d, sched_l1_plan *plan, lm_arena *par)
{
    lw L;
    lw_init(&L, k, s, a, sc, d, df_new(k->f->name));
    L.record = plan != NULL;
    bool ok = lw_plan(&L) && number_cbs(&L) && add_sems(&L) && build_classes(&L);
    df_program *p = L.p;
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    if (ok && plan) {
        lw *Ls[1] = {&L};
        record_plan(Ls, 1, plan, par);
    }
    lw_free(&L);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
}

struct df_program *sched_lower(const sched_kernel *k, const sched_schedule *s, const arch_desc *a, sym_ctx *sc,
                               lm_diag *d)
{
    return lower(k, s, a, sc, d, NULL, NULL);
}

/* A probe value of block size fr: the smallest tile multiple that divides
 * its dimension (so that no boundary check cuts a block at the probe) and
 * that no other block size took (so that two extents never coincide),
 * else the first that divides. */
static int64_t probe_block(const sched_free *fr, const arch_desc *a, const sym_env *bound, const int64_t *taken,
                           int ntaken)
{
    int64_t step = LM_MAX(a->tile_h, a->tile_w), dim = 0, first = step;
    if (!fr->dim || sym_eval(fr->dim, bound, &dim) != SYM_OK || dim < step)
        return step;
    bool have = false;
    for (int64_t v = step; v <= LM_MIN(dim, 1024); v += step) {
        if (dim % v)
            continue;
        bool used = false;
        for (int i = 0; i < ntaken; i++)
            used |= taken[i] == v;
        if (!used)
            return v;
        if (!have)
            first = v, have = true;
    }
    return first;
}

/* Probe values of the free constexprs of kernels k[0..n-1] (one value for
 * a constexpr they share) into vals: block sizes by probe_block; the first
 * three others are listed in ones[] (each is probed at 1 and at 2), the
 * rest take 2. */
static void probe_frees(const sched_kernel *const *k, int n, const arch_desc *a, const sym_env *bound, sym_env *vals,
                        const sym_expr **ones, int *n1)
{
    int64_t taken[SCHED_MAX_VARS * SCHED_MAX_LAUNCHES];
    int ntaken = 0;
    *n1 = 0;
    for (int i = 0; bound && i < bound->n; i++)
        sym_env_set(vals, bound->b[i].var, bound->b[i].lo);
    for (int l = 0; l < n; l++)
        for (int i = 0; i < k[l]->nfree; i++) {
            const sched_free *fr = &k[l]->frees[i];
            int64_t lo, hi;
            if (sym_env_get(vals, fr->var, &lo, &hi))
                continue;
            bool listed = false;
            for (int j = 0; j < *n1; j++)
                listed |= ones[j] == fr->var;
            if (listed)
                continue;
            if (fr->block_dim) {
                int64_t v = probe_block(fr, a, bound, taken, ntaken);
                taken[ntaken++] = v;
                sym_env_set(vals, fr->var, v);
            } else if (*n1 < 3) {
                ones[(*n1)++] = fr->var;
            } else {
                sym_env_set(vals, fr->var, 2);
            }
        }
}

/* The probe schedule of k at values `vals`: one core, every axis in time,
 * every load from DRAM, depths and sub-blocks 1. */
static void probe_schedule(sched_schedule *s, const sched_kernel *k, const sym_env *vals, sym_ctx *sc, lm_arena *ar)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    for (int i = 0; i < vals->n; i++)
        sym_env_set(&s->values, vals->b[i].var, vals->b[i].lo);
    sym_env_set(&s->values, sym_var(sc, "grid.x"), 1);
    sym_env_set(&s->values, sym_var(sc, "grid.y"), 1);
    sym_env_set(&s->values, sym_var(sc, "sub.h"), 1);
    sym_env_set(&s->values, sym_var(sc, "sub.w"), 1);
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT)
            sym_env_set(&s->values, sym_var(sc, lm_arena_printf(ar, "depth.%s", k->bufs[i].name)), 1);
    for (int g = 0; g < TIR_MAX_GRID; g++)
        s->cand.place[g] = SCHED_ON_TIME;
    for (int i = 0; i < k->acc->n; i++) {
        bool load = false;
        for (int b = 0; b < k->nbufs; b++)
            load |= k->bufs[b].kind == SCHED_BUF_IN && k->bufs[b].access == i;
        if (load && s->cand.nops < SCHED_MAX_OPS)
            s->cand.ops[s->cand.nops++] = (sched_operand){i, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    }
    s->fidelity = k->fidelity;
    s->fp32_acc = k->fp32_acc;
    s->origin = "probe";
    s->predicted_cycles = -1;
}

/* Case c of the probes over ones[0..n1-1] (bit j: ones[j] is 1, else 2)
 * set in each schedule; returns the case's indicator (1 at the values the
 * case stands for, else 0). */
static const sym_expr *probe_case(int c, const sym_expr *const *ones, int n1, sched_schedule *const *s, int ns,
                                  sym_ctx *sc)
{
    const sym_expr *when = sym_const(sc, 1);
    for (int j = 0; j < n1; j++) {
        const sym_expr *v = ones[j];
        bool one = (c >> j) & 1;
        for (int i = 0; i < ns; i++)
            sym_env_set(&s[i]->values, v, one ? 1 : 2);
        /* 1 where the constexpr is 1 (or above 1), else 0 */
        const sym_expr *ind = one ? sym_max(sc, sym_const(sc, 0), sym_sub(sc, sym_const(sc, 2), v))
                                  : sym_min(sc, sym_const(sc, 1), sym_max(sc, sym_const(sc, 0),
                                                                         sym_sub(sc, v, sym_const(sc, 1))));
        when = sym_mul(sc, when, ind);
    }
    return when;
}

/* The first line of a diagnostic text. */
static const char *first_line(const char *text, lm_arena *ar)
{
    size_t n = strcspn(text, "\n");
    return lm_arena_strdup(ar, lm_arena_printf(ar, "%.*s", (int)n, text));
}

bool sched_lower_l1(sched_kernel *k, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar)
{
    /* free constexprs other than block sizes may be 1, and a dimension of
       extent 1 is dropped from a tile's 2-D form: one probe with each at 1
       and one with it above */
    const sym_expr *ones[3];
    int n1 = 0;
    sym_env vals = {0};
    const sched_kernel *ks[1] = {k};
    probe_frees(ks, 1, a, bound, &vals, ones, &n1);
    sched_schedule s;
    probe_schedule(&s, k, &vals, sc, ar);
    sym_env_free(&vals);

    int np = 1 << n1;
    sched_l1_plan *plans = LM_NEWN(ar, sched_l1_plan, np);
    char *text = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&text, &len);
    lm_diag d;
    lm_diag_init(&d, sink);
    bool ok = sink != NULL;
    const sym_expr *total = sym_const(sc, 0), *used = sym_const(sc, 0);
    const sym_expr **cmds = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    const sym_expr **clip = LM_NEWN(ar, const sym_expr *, k->acc->n ? k->acc->n : 1);
    int most = 0;
    for (int c = 0; c < np && ok; c++) {
        sched_schedule *sp[1] = {&s};
        const sym_expr *when = probe_case(c, ones, n1, sp, 1, sc);
        struct df_program *p = lower(k, &s, a, sc, &d, &plans[c], ar);
        ok = p != NULL;
        df_free(p);
        if (!ok)
            break;
        plans[c].when = when;
        total = sym_add(sc, total, np > 1 ? sym_mul(sc, when, plans[c].bytes) : plans[c].bytes);
        for (int i = 0; i < k->acc->n && i < plans[c].nacc; i++) {
            const sym_expr *w = plans[c].cmds[i], *q = plans[c].clip[i];
            if (!w || !q)
                continue;
            cmds[i] = np > 1 ? sym_add(sc, cmds[i] ? cmds[i] : sym_const(sc, 0), sym_mul(sc, when, w)) : w;
            clip[i] = np > 1 ? sym_add(sc, clip[i] ? clip[i] : sym_const(sc, 0), sym_mul(sc, when, q)) : q;
        }
        used = sym_add(sc, used, np > 1 ? sym_mul(sc, when, plans[c].count) : plans[c].count);
        most = LM_MAX(most, plans[c].ncbs);
    }
    if (sink)
        fclose(sink);
    if (!ok && text)
        k->l1_why = first_line(text, ar); /* why, for --explain */
    free(text);
    sym_env_free(&s.values);
    if (!ok)
        return false;
    k->l1 = plans;
    k->nl1 = np;
    k->cb_bytes = total;
    k->cb_count = most;
    k->acc_cmds = cmds;
    k->acc_clip = clip;
    k->cb_used = used;
    /* the chains every probe made (they follow the Tile IR and shapes as
       expressions, so the probes agree) */
    k->chain_from = LM_NEWN(ar, const tir_op *, plans[0].nchains ? plans[0].nchains : 1);
    k->chain_to = LM_NEWN(ar, const tir_op *, plans[0].nchains ? plans[0].nchains : 1);
    k->nchains = 0;
    for (int i = 0; i < plans[0].nchains; i++) {
        bool all = true;
        for (int c = 1; c < np && all; c++) {
            bool found = false;
            for (int j = 0; j < plans[c].nchains; j++)
                found |= plans[c].chain_from[j] == plans[0].chain_from[i] && plans[c].chain_to[j] == plans[0].chain_to[i];
            all = found;
        }
        if (all) {
            k->chain_from[k->nchains] = plans[0].chain_from[i];
            k->chain_to[k->nchains++] = plans[0].chain_to[i];
        }
    }
    return true;
}

static struct df_program *lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                      const sched_schedule *sb, const sched_fusion *f, const arch_desc *a,
                                      sym_ctx *sc, lm_diag *d, sched_l1_plan *plan, const char *pa, const char *pb,
                                      lm_arena *par);

bool sched_lower_l1_fused(sched_fusion *f, const sched_kernel *ka, const sched_kernel *kb, const char *pa,
                          const char *pb, const arch_desc *a, const sym_env *bound, sym_ctx *sc, lm_arena *ar,
                          lm_buf *why)
{
    const sym_expr *ones[3];
    int n1 = 0;
    sym_env vals = {0};
    const sched_kernel *ks[2] = {ka, kb};
    probe_frees(ks, 2, a, bound, &vals, ones, &n1);
    sched_schedule sa, sb;
    probe_schedule(&sa, ka, &vals, sc, ar);
    probe_schedule(&sb, kb, &vals, sc, ar);
    sym_env_free(&vals);
    /* the producer's gather axis along x, a group on one row; the consumer's
       passed loads fused */
    sa.cand.place[f->gather_axis] = SCHED_ON_X;
    sa.cand.fuse = SCHED_FUSE_PRODUCER;
    sb.cand.fuse = SCHED_FUSE_CONSUMER;
    sa.cand.fuse_along = sb.cand.fuse_along = SCHED_ON_X;
    for (int t = 0; t < f->nt; t++) {
        if (f->t[t].store < 64)
            sa.cand.fused_acc |= (uint64_t)1 << f->t[t].store;
        if (f->t[t].load < 64)
            sb.cand.fused_acc |= (uint64_t)1 << f->t[t].load;
        for (int o = 0; o < sb.cand.nops; o++)
            if (sb.cand.ops[o].access == f->t[t].load)
                sb.cand.ops[o].transport = SCHED_FUSED;
    }

    int np = 1 << n1;
    sched_l1_plan *plans = LM_NEWN(ar, sched_l1_plan, np);
    char *text = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&text, &len);
    lm_diag d;
    lm_diag_init(&d, sink);
    bool ok = sink != NULL;
    const sym_expr *total = sym_const(sc, 0), *used = sym_const(sc, 0);
    int most = 0;
    for (int c = 0; c < np && ok; c++) {
        sched_schedule *sp[2] = {&sa, &sb};
        const sym_expr *when = probe_case(c, ones, n1, sp, 2, sc);
        int64_t g = 1;
        if (sym_eval(ka->f->grid[f->gather_axis], &sa.values, &g) != SYM_OK || g < 1 || g > a->grid_w) {
            lm_error_plain(&d, "the %lld programs along the gather axis at the probe do not fit one row of %d cores",
                           (long long)g, a->grid_w);
            ok = false;
            break;
        }
        sym_env_set(&sa.values, sym_var(sc, "grid.x"), g);
        struct df_program *p = lower_fused(ka, &sa, kb, &sb, f, a, sc, &d, &plans[c], pa, pb, ar);
        ok = p != NULL;
        df_free(p);
        if (!ok)
            break;
        plans[c].when = when;
        total = sym_add(sc, total, np > 1 ? sym_mul(sc, when, plans[c].bytes) : plans[c].bytes);
        used = sym_add(sc, used, np > 1 ? sym_mul(sc, when, plans[c].count) : plans[c].count);
        most = LM_MAX(most, plans[c].ncbs);
    }
    if (sink)
        fclose(sink);
    if (!ok && why)
        lm_buf_puts(why, text ? first_line(text, ar) : "the fused pair does not lower at a probe");
    free(text);
    sym_env_free(&sa.values);
    sym_env_free(&sb.values);
    if (!ok)
        return false;
    f->l1 = plans;
    f->nl1 = np;
    f->cb_bytes = total;
    f->cb_count = most;
    f->cb_used = used;
    return true;
}

static struct df_program *lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                      const sched_schedule *sb, const sched_fusion *f, const arch_desc *a,
                                      sym_ctx *sc, lm_diag *d, sched_l1_plan *plan, const char *pa, const char *pb,
                                      lm_arena *par)
{
    if (!sched_fused_pair(f, &sa->cand, &sb->cand)) {
        lm_error_plain(d, "cannot lower: the schedules of '%s' and '%s' are not a fused pair", ka->name, kb->name);
        return NULL;
    }
    char name[256];
    snprintf(name, sizeof name, "%s_%s", ka->f->name, kb->f->name);
    df_program *p = df_new(name);
    lw LA, LB;
    lw_init(&LA, ka, sa, a, sc, d, p);
    lw_init(&LB, kb, sb, a, sc, d, p);
    LA.fz = LB.fz = f;
    LA.lb = &LB;
    LB.la = &LA;
    LA.record = LB.record = plan != NULL;
    LA.vprefix = pa;
    LB.vprefix = pb;
    bool ok = lw_plan(&LA) && lw_plan(&LB);
    if (ok) {
        /* every program of a group in one row (column), in one wave */
        int gr = sa->cand.fuse_along == SCHED_ON_X ? G_X : G_Y;
        int64_t n = gr == G_X ? LA.gx : LA.gy;
        if (LA.ngrp[gr] != 1 || LA.grp[gr][0] != f->gather_axis || LA.E[gr] != n) {
            fail(&LA, ka->f->loc, "a fused pair needs the %lld programs along axis %d on one %s of %lld cores",
                 (long long)LA.ext[f->gather_axis], f->gather_axis, gr == G_X ? "row" : "column", (long long)n);
            ok = false;
        }
    }
    ok = ok && number_cbs(&LA) && number_cbs(&LB) && add_sems(&LA) && add_sems(&LB);
    if (ok) {
        LA.sem_fready = add_sem_named(&LA, "fused_ready", ka->f->loc);
        LA.sem_fvalid = add_sem_named(&LA, "fused_valid", ka->f->loc);

        ok = build_classes(&LA) && !LB.failed;
    }
    if (ok && !df_bind(p, NULL, 0, d))
        ok = false;
    if (ok && plan) {
        lw *Ls[2] = {&LA, &LB};
        record_plan(Ls, 2, plan, par);
    }
    lw_free(&LA);
    lw_free(&LB);
    if (!ok) {
        df_free(p);
        return NULL;
    }
    return p;
}

struct df_program *sched_lower_fused(const sched_kernel *ka, const sched_schedule *sa, const sched_kernel *kb,
                                     const sched_schedule *sb, const sched_fusion *f, const arch_desc *a, sym_ctx *sc,
                                     lm_diag *d)
{
    return lower_fused(ka, sa, kb, sb, f, a, sc, d, NULL, NULL, NULL, NULL);
}

struct df_program *sched_lower_launch(const sched_kernel *const *k, const sched_schedule *const *s, int n, int l,
                                      const arch_desc *a, sym_ctx *sc, lm_diag *d, int *covered)
{
    *covered = 1;
    if (s[l]->cand.fuse == SCHED_FUSE_CONSUMER) {
        lm_error_plain(d, "cannot lower: '%s' is scheduled as the consumer of a fused pair without its producer",
                       k[l]->name);
        return NULL;
    }
    if (s[l]->cand.fuse != SCHED_FUSE_PRODUCER)
        return sched_lower(k[l], s[l], a, sc, d);
    sched_fusion f;
    lm_buf why = {0};
    bool ok = l + 1 < n && s[l + 1]->cand.fuse == SCHED_FUSE_CONSUMER;
    if (ok && !sched_fusion_find(&f, k[l], k[l + 1], sc, &s[l]->values, &why))
        ok = false;
    if (!ok) {
        lm_error_plain(d, "cannot lower: '%s' is scheduled as the producer of a fused pair, but %s", k[l]->name,
                       why.len ? lm_buf_str(&why) : "the next launch is not its consumer");
        lm_buf_free(&why);
        return NULL;
    }
    lm_buf_free(&why);
    f.producer = l;
    f.consumer = l + 1;
    *covered = 2;
    return sched_lower_fused(k[l], s[l], k[l + 1], s[l + 1], &f, a, sc, d);
}
