/* tir.h - the Tile IR: SSA on tiles whose shapes are symbolic expressions.
 *
 * One function per launched kernel. Values are tiles (an element type and a
 * shape, a list of sym expressions; the empty shape is a scalar), pointers,
 * block pointers or tensor descriptors. Integer scalars also carry, where it
 * can be computed, their symbolic value: `pid.0` for program id 0, `iv.0` for
 * the iteration index of the first loop, sizes such as `M`, free constexprs
 * such as `BLOCK_M`. Those values are what make the access analysis a matter
 * of reading coefficients.
 *
 * Control flow is structured: a `for` op owns one region (a block whose
 * arguments are the loop variable and the loop-carried values, ended by a
 * `yield`), an `if` op owns two. Ops live in doubly linked lists so passes
 * can insert and remove. All memory comes from the lm_arena of the
 * compilation.
 *
 * The header is sectioned by implementing file: tir.c (types, building,
 * symbolic values), tir_print.c (the text form), tir_verify.c (the
 * verifier). docs/tile-ir.md describes the ops, their types and the printed
 * form.
 */
#ifndef LOOMC_TIR_H
#define LOOMC_TIR_H

#include "util/base.h"
#include "sym/sym.h"
#include "ir/tir_ops.h"

enum { TIR_MAX_RANK = 6, TIR_MAX_GRID = 3 };

/* ======================================================================
 * tir.c - types, values, ops, building
 * ==================================================================== */

typedef enum tir_opcode {
#define TIR_X_ENUM(e, n, mn, mx, nr, p) TIR_##e,
    TIR_OPS(TIR_X_ENUM)
#undef TIR_X_ENUM
    TIR_NOPS
} tir_opcode;

/* Op properties; the table in tir_ops.h names them without the prefix. */
enum {
    TIR_P_PURE = 1u << 0,
    TIR_P_ELEM = 1u << 1,
    TIR_P_BINARY = 1u << 2,
    TIR_P_UNARY = 1u << 3,
    TIR_P_CMP = 1u << 4,
    TIR_P_INTONLY = 1u << 5,
    TIR_P_FLOATONLY = 1u << 6,
    TIR_P_READ = 1u << 7,
    TIR_P_WRITE = 1u << 8,
    TIR_P_REDUCE = 1u << 9,
    TIR_P_REGION = 1u << 10,
    TIR_P_TERM = 1u << 11,
    TIR_P_HOIST = 1u << 12,
};

typedef struct tir_opinfo {
    const char *name;
    int min_opnds, max_opnds; /* max -1: any number */
    int nresults;             /* -1: variadic (for, if) */
    unsigned props;
} tir_opinfo;

extern const tir_opinfo tir_opinfo_tab[TIR_NOPS];
static inline const char *tir_op_name(tir_opcode c) { return tir_opinfo_tab[c].name; }
static inline bool tir_op_has(tir_opcode c, unsigned prop) { return (tir_opinfo_tab[c].props & prop) != 0; }

/* Element types. Pointer-like kinds use `elem` for what they point to. */
typedef enum tir_elem { TIR_I1, TIR_I32, TIR_I64, TIR_F16, TIR_BF16, TIR_F32, TIR_NELEMS } tir_elem;

const char *tir_elem_name(tir_elem e); /* "i1", "bf16", ... */
int tir_elem_bytes(tir_elem e);        /* i1 counts as one byte */
int tir_elem_bits(tir_elem e);         /* 1, 32, 64, 16, 16, 32 */
bool tir_elem_is_float(tir_elem e);
static inline bool tir_elem_is_int(tir_elem e) { return !tir_elem_is_float(e); }

typedef enum tir_kind {
    TIR_TILE, /* a tile of elements; rank 0 is a scalar */
    TIR_PTR,  /* a pointer (rank 0) or a tile of pointers (pointer arithmetic) */
    TIR_BPTR, /* a block pointer; shape is the block shape */
    TIR_DESC, /* a tensor descriptor; shape is the block shape */
} tir_kind;

typedef struct tir_type {
    tir_kind kind;
    tir_elem elem;
    int rank;
    const sym_expr *const *shape; /* rank entries; hash-consed, so == compares */
} tir_type;

tir_type tir_t_scalar(tir_elem e);
tir_type tir_t_ptr(tir_elem pointee);
/* Shape arrays are copied into the arena. */
tir_type tir_t_tile(lm_arena *a, tir_elem e, int rank, const sym_expr *const *shape);
tir_type tir_t_bptr(lm_arena *a, tir_elem pointee, int rank, const sym_expr *const *block);
tir_type tir_t_desc(lm_arena *a, tir_elem pointee, int rank, const sym_expr *const *block);
/* Same kind, rank and shape, with another element type / as a plain tile. */
tir_type tir_t_with_elem(tir_type t, tir_elem e);
bool tir_shape_eq(const tir_type *a, const tir_type *b);
bool tir_type_eq(const tir_type *a, const tir_type *b);
static inline bool tir_is_scalar(const tir_type *t) { return t->kind == TIR_TILE && t->rank == 0; }
static inline bool tir_is_int_scalar(const tir_type *t)
{
    return t->kind == TIR_TILE && t->rank == 0 && tir_elem_is_int(t->elem) && t->elem != TIR_I1;
}

typedef struct tir_op tir_op;
typedef struct tir_block tir_block;

typedef struct tir_value {
    tir_type type;
    const sym_expr *sym;   /* integer scalars: symbolic value when known, else NULL */
    tir_op *def;           /* defining op; NULL for block arguments */
    int resno;             /* which result of def */
    tir_block *block;      /* block arguments: the block, and the position */
    int argno;
    const sym_expr *carry; /* loop-carried integer scalar: its placeholder
                              symbol while the loop's symbolic values are inferred */
    const char *name;      /* source name it was bound to, if any (for messages) */
    int uid;               /* creation order in the function (verifier) */
    int num;               /* number in the printed form (tir_number) */
} tir_value;

/* Operand layouts of the ops with operand lists (r = rank):
 *   MAKE_BLOCK_PTR  base, shape[r], strides[r], offsets[r]
 *   ADVANCE         block pointer, offsets[r]
 *   MAKE_DESC       base, shape[r], strides[r]
 *   DESC_LOAD       descriptor, offsets[r]
 *   DESC_STORE      descriptor, value, offsets[r]
 *   DOT             a, b (, acc)
 *   WHERE           condition, a, b
 *   ADDPTR          pointer, element offset
 *   FOR             lo, hi, step, initial values of the carried values;
 *                   region arguments: loop variable, carried values;
 *                   results: the carried values after the last iteration
 *   IF              condition; two regions; results: what both yield */
typedef enum tir_pad { TIR_PAD_NONE, TIR_PAD_ZERO, TIR_PAD_NAN } tir_pad;

struct tir_op {
    tir_opcode code;
    lm_loc loc;
    tir_value **opnds;
    int nopnds;
    tir_value **results;
    int nresults;
    tir_block *regions[2];
    int nregions;
    tir_block *parent;
    tir_op *prev, *next;
    /* Attributes; docs/tile-ir.md lists which op uses which. */
    int64_t ival;           /* CONST, FULL (integer value); axis of PROGRAM_ID,
                               NUM_PROGRAMS, EXPAND_DIMS, REDUCE_* */
    double fval;            /* CONST, FULL when is_float */
    bool is_float;
    const sym_expr *sym;    /* SYM: the value; ARANGE: start; FOR: trip count
                               (may be NULL) */
    const sym_expr *sym2;   /* ARANGE: end */
    const sym_expr *iv;     /* FOR: its iteration-index variable `iv.N` */
    int rank;               /* MAKE_BLOCK_PTR, MAKE_DESC: number of dims */
    int order[TIR_MAX_RANK];/* MAKE_BLOCK_PTR */
    unsigned bcheck;        /* LOAD, STORE: bit d set = boundary check on dim d */
    tir_pad padding;        /* LOAD */
    bool keep_dims;         /* REDUCE_* */
    int num_stages;         /* FOR: pipelining hint of tl.range (0 = none given) */
    bool unroll;            /* FOR: written as tl.static_range but kept as a loop */
    const char *precision;  /* DOT: input_precision ("tf32", "ieee", ...) or NULL */
};

struct tir_block {
    tir_value **args;
    int nargs, capargs;
    tir_op *first, *last;
    tir_op *owner; /* the op owning this region; NULL for a function body */
};

/* What a pointer parameter points to: a tensor of the launch spec. */
typedef enum tir_role { TIR_INPUT, TIR_OUTPUT, TIR_SCRATCH } tir_role;
const char *tir_role_name(tir_role r);

typedef struct tir_tensor {
    const char *name;
    tir_role role;
    tir_elem elem;
    int rank;
    const sym_expr **shape;   /* sizes, symbolic */
    const sym_expr **strides; /* row-major: product of the sizes after each dim */
    bool fold_rows;           /* DRAM layout: the leading dimensions are folded into rows before
                                 padding to the tile (set for the job by sched_tensor_folds) */
    lm_loc loc;
} tir_tensor;

typedef struct tir_param {
    const char *name;
    tir_value *value;         /* a block argument of the body */
    const tir_tensor *tensor; /* pointer parameters: the tensor bound to it */
    bool has_fval;            /* float scalars: the value bound at launch */
    double fval;
} tir_param;

/* What the kernel states about its compile-time values and the checker
 * could not decide: a `tl.static_assert(BLOCK_N <= HEAD_DIM)` on a free
 * constexpr. It holds iff expr <= 0; the scheduler makes it a constraint. */
typedef struct tir_assume {
    const sym_expr *expr;
    const char *text; /* the condition as written, for explanations */
    lm_loc loc;
} tir_assume;

typedef struct tir_func {
    const char *name;
    lm_loc loc;
    tir_param *params;
    int nparams, capparams;
    tir_block *body;
    int grid_rank;
    const sym_expr *grid[TIR_MAX_GRID]; /* number of programs along each axis */
    int nvalues;        /* uid counter */
    int nloops;         /* iv counter */
    tir_assume *assumes;
    int nassumes;
    int ncarry;         /* placeholder counter */
    tir_op *hoist_last; /* last op of the hoisted prefix of the body */
} tir_func;

/* Where new ops go. */
typedef struct tir_builder {
    lm_arena *arena;
    sym_ctx *sym;
    tir_func *func;
    tir_block *block; /* ops are appended at its end */
} tir_builder;

tir_func *tir_func_new(lm_arena *a, const char *name, lm_loc loc);
void tir_builder_init(tir_builder *b, lm_arena *a, sym_ctx *s, tir_func *f);
/* Add a parameter (a body argument). Integer scalars get `sym` as value. */
tir_value *tir_add_param(tir_builder *b, const char *name, tir_type t, const sym_expr *sym,
                         const tir_tensor *tensor);

tir_block *tir_block_new(tir_builder *b, tir_op *owner);
tir_value *tir_block_add_arg(tir_builder *b, tir_block *blk, tir_type t);
void tir_block_remove_arg(tir_block *blk, int i);

/* Create an op with the given operands and result types and append it to
 * the builder's block (HOIST ops go to the top of the body instead). Symbolic
 * values of integer-scalar results are computed here. */
tir_op *tir_op_build(tir_builder *b, tir_opcode code, lm_loc loc, tir_value *const *opnds, int nopnds,
                     const tir_type *rtypes, int nresults);
/* One-result shorthand with up to four operands (unused ones NULL). */
tir_value *tir_build1(tir_builder *b, tir_opcode code, lm_loc loc, tir_type t, tir_value *o0,
                      tir_value *o1, tir_value *o2, tir_value *o3);

/* Materialised scalars, created once per function at the top of the body. */
tir_value *tir_const_int(tir_builder *b, tir_elem e, int64_t v);
tir_value *tir_const_float(tir_builder *b, tir_elem e, double v);
tir_value *tir_sym_value(tir_builder *b, tir_elem e, const sym_expr *s); /* const if s is */
tir_value *tir_program_id(tir_builder *b, int axis);
tir_value *tir_num_programs(tir_builder *b, int axis);

/* The `pid.N` and `iv.N` variables. */
const sym_expr *tir_pid_var(sym_ctx *s, int axis);
const sym_expr *tir_iv_var(sym_ctx *s, int loop);

void tir_op_append(tir_block *blk, tir_op *op);
void tir_op_insert_after(tir_block *blk, tir_op *after, tir_op *op); /* after NULL: at front */
void tir_op_remove(tir_op *op);
void tir_op_set_opnds(tir_builder *b, tir_op *op, tir_value *const *opnds, int n);
/* Replace every use of `from` by `to` in blk and the regions nested in it. */
void tir_replace_uses(tir_block *blk, tir_value *from, tir_value *to);
/* Drop result i of a FOR op together with its iter arg, init and yield operand. */
void tir_for_drop_carried(tir_op *forop, int i);

/* Symbolic values. tir_sym_infer recomputes one op's integer results from its
 * operands. tir_sym_infer_for (re)computes a FOR's loop variable, trip count
 * and loop-carried integers: a carried integer that changes by a
 * loop-invariant amount d each iteration has value init + d*iv; anything
 * else gets no symbolic value. It recomputes the body, so call it on a
 * finished loop. */
void tir_sym_infer(tir_builder *b, tir_op *op);
void tir_sym_infer_for(tir_builder *b, tir_op *forop);

/* Accessors for the operands of the ops with structured operand lists. */
static inline tir_value *tir_for_lo(const tir_op *f) { return f->opnds[0]; }
static inline tir_value *tir_for_hi(const tir_op *f) { return f->opnds[1]; }
static inline tir_value *tir_for_step(const tir_op *f) { return f->opnds[2]; }
static inline int tir_for_ncarried(const tir_op *f) { return f->nopnds - 3; }
static inline tir_value *tir_for_init(const tir_op *f, int i) { return f->opnds[3 + i]; }
static inline tir_value *tir_for_var(const tir_op *f) { return f->regions[0]->args[0]; }
static inline tir_value *tir_for_arg(const tir_op *f, int i) { return f->regions[0]->args[1 + i]; }
static inline tir_op *tir_yield_of(const tir_block *blk) { return blk->last; }

/* ======================================================================
 * tir_print.c - the stable text form
 * ==================================================================== */

/* `tile<BLOCK_M x BLOCK_N x f32>`, `i32`, `ptr<bf16>`, `bptr<BM x BK x bf16>`,
 * `desc<BM x D x bf16>`. */
void tir_print_type(lm_buf *b, const tir_type *t);
const char *tir_type_str(lm_arena *a, const tir_type *t);
/* Shortest decimal that reads back as the same double ("0.125", "-inf"). */
void tir_format_float(char *out, size_t n, double v);
/* Number the values %0, %1, ... in print order (parameters first). */
void tir_number(tir_func *f);
/* Number, then print the whole function. */
void tir_print_func(lm_buf *b, tir_func *f);
/* One op (and its regions) at the given indent; values must be numbered. */
void tir_print_op(lm_buf *b, const tir_op *op, int indent);

/* ======================================================================
 * tir_verify.c - the verifier, run after every pass
 * ==================================================================== */

/* Check operand counts, types and shapes, region structure, and that every
 * value is defined before use in its own or an enclosing block. Returns false
 * and describes the first problem in `why` (if not NULL). */
bool tir_verify(const tir_func *f, lm_buf *why);
/* The same, as an internal error naming the pass that broke the IR. */
void tir_verify_or_bug(const tir_func *f, const char *after_pass);

#endif
