/* df.h - the dataflow program: what would run on the chip, and what the
 * simulator executes.
 *
 * A program has DRAM tensors, semaphores and core classes. A core class is a
 * rectangle of logical cores sharing the same circular buffers (CBs) and the
 * same three kernels (reader, compute, writer), specialised per core by
 * runtime arguments: affine expressions of the core's coordinates (cx, cy).
 * Kernels are small structured programs: `for` loops and ops whose operands
 * are integer expressions of core coordinates, arguments and loop variables.
 * The ops follow the TT-Metalium model (docs/dataflow.md gives the exact
 * semantics and the text form):
 *
 *  circular buffers  cb_reserve / cb_push (producer), cb_wait / cb_pop (consumer)
 *  NoC               read / write of tile blocks between DRAM tensors and CBs,
 *                    send (core to core) and mcast (to a rectangle of cores),
 *                    read_barrier / write_barrier
 *  semaphores        sem_inc (remote atomic add), sem_set, sem_wait, sem_mcast
 *  compute           matmul (block with sub-blocks in Dst), eltwise, sfpu,
 *                    reduce, copy, fill, mask, transpose, chain (a
 *                    sequence of eltwise, sfpu and mask steps on tiles held
 *                    in Dst), pchain (a chain with the packer's options:
 *                    SFPU steps on the pack thread, the result in place,
 *                    rows also accumulated into a second CB) and rowmax
 *                    (the block row maximum); all read CB pages at the
 *                    front of their input CBs and write pages at the back
 *                    of their output CB (pchain front=1: at its front).
 *
 * DRAM tensors are 2-D in tiles, interleaved page by page (one tile a page)
 * over the DRAM banks: tile (r, c) of a tensor with C tile columns is page
 * r*C + c and lives in bank (page + first_bank) mod banks.
 *
 * The text form is `op key=value ...` per line with `{ }` blocks; the printer
 * writes fields in table order so that print(parse(text)) is a fixed point.
 */
#ifndef LOOMC_DF_H
#define LOOMC_DF_H

#include "arch/arch.h"

/* ---- integer expressions -------------------------------------------------- */

typedef enum df_xkind {
    DF_X_CONST, /* value */
    DF_X_VAR,   /* slot: index into the kernel's variable slots */
    DF_X_ADD,
    DF_X_SUB,
    DF_X_MUL,
    DF_X_DIV,   /* floor division */
    DF_X_MOD,   /* Python-style modulo */
    DF_X_MIN,
    DF_X_MAX,
} df_xkind;

typedef struct df_expr df_expr;
struct df_expr {
    df_xkind kind;
    int64_t value;
    int slot;
    const df_expr *a, *b;
};

/* Variable slots of a core class: 0 = cx, 1 = cy (logical core coordinates
 * within the chip's compute grid), then the program's params (same slots in
 * every class), then the class's runtime arguments in order, then one slot
 * per `for` variable of its kernels. Program-level numbers (tensor sizes,
 * class rectangles, CB pages, semaphore inits) are expressions of params
 * only; df_bind resolves them. */
enum { DF_SLOT_CX = 0, DF_SLOT_CY = 1, DF_SLOT_PARAM0 = 2, DF_MAX_SLOTS = 256 };

/* ---- ops ------------------------------------------------------------------ */

/* Sub-operations of the compute ops. */
typedef enum df_eltop { DF_ADD, DF_SUB, DF_MUL, DF_MAXOP, DF_NELTOPS } df_eltop;
typedef enum df_sfpuop {
    DF_EXP,   /* exp; `exact=1` selects exact rather than the chip's approximate mode */
    DF_EXP2,
    DF_LOG,
    DF_RECIP,
    DF_SQRT,
    DF_RSQRT, /* 1 / sqrt(x) */
    DF_SIGMOID, /* 1 / (1 + exp(-x)), the SFPU's accurate form */
    DF_NEG,
    DF_SCALE, /* multiply by the float field `scalar` */
    DF_GTZ,   /* comparisons with zero: 1.0 where true, else 0.0 */
    DF_GEZ,
    DF_LTZ,
    DF_LEZ,
    DF_EQZ,
    DF_NEZ,
    DF_NSFPUOPS
} df_sfpuop;
typedef enum df_redop { DF_RMAX, DF_RSUM, DF_NREDOPS } df_redop;
/* Broadcast of the second operand of eltwise: none, its column 0 across the
 * tile (a per-row value), its row 0 down the tile (a per-column value), or
 * its element (0,0). */
typedef enum df_bcast { DF_BC_NONE, DF_BC_COL, DF_BC_ROW, DF_BC_SCALAR, DF_NBCASTS } df_bcast;

/* X(ENUM, text name). The fields each op takes and the kernels that may
 * use it are in the op table df_ops (df.c); docs/dataflow.md lists them. */
#define DF_OPS(X)                                                                   \
    X(FOR, "for")               /* var lo hi step { body } */                      \
    X(CB_RESERVE, "cb_reserve") /* cb n: block until n pages free at the back */   \
    X(CB_PUSH, "cb_push")       /* cb n: publish n reserved pages */               \
    X(CB_WAIT, "cb_wait")       /* cb n: block until n pages at the front */       \
    X(CB_POP, "cb_pop")         /* cb n: free n pages at the front */              \
    X(READ, "read")             /* tensor row col rows cols -> cb at: DRAM tiles into reserved pages */ \
    X(WRITE, "write")           /* cb at rows cols -> tensor row col: front pages to DRAM */ \
    X(READ_BARRIER, "read_barrier")   /* wait for this engine's outstanding reads (trid=T: those tagged T) */ \
    X(WRITE_BARRIER, "write_barrier") /* wait for this engine's outstanding writes/mcasts/sends */ \
    X(SEND, "send")             /* cb at n -> core (x, y) same cb, at its reserved pages + dst_at */ \
    X(MCAST, "mcast")           /* cb at n -> rectangle (x0,y0)-(x1,y1), same cb; loopback */ \
    X(SEM_INC, "sem_inc")       /* sem value -> core (x, y): remote atomic add */  \
    X(SEM_SET, "sem_set")       /* sem value: local store */                       \
    X(SEM_WAIT, "sem_wait")     /* sem value: block until local sem == value (ge=1: >=) */ \
    X(SEM_MCAST, "sem_mcast")   /* sem value -> rectangle: store on every core of it */ \
    X(MATMUL, "matmul")         /* a b -> out: m x k times k x n tiles, sub-blocks sub_h x sub_w */ \
    X(ELTWISE, "eltwise")       /* op a b -> out: rows x cols tiles, bcast of b */ \
    X(SFPU, "sfpu")             /* op a -> out: n tiles */                         \
    X(REDUCE, "reduce")         /* op a -> out: rows x cols tiles to rows x 1 */   \
    X(COPY, "copy")             /* a -> out: n tiles through Dst (unpack, pack) */ \
    X(FILL, "fill")             /* out: n tiles set to `scalar` */                 \
    X(MASK, "mask")             /* a -> out: rows x cols tiles; elements failing an affine index predicate become `scalar` */ \
    X(READ_ELEMS, "read_elems")   /* tensor elements (row + i*rstride, col + j) -> block element (er + i, ec + j) */ \
    X(WRITE_ELEMS, "write_elems") /* block element (er + i, ec + j) -> tensor element (row + i*rstride, col + j) */ \
    X(TRANSPOSE, "transpose")   /* a -> out: rows x cols tiles to cols x rows, each tile transposed */ \
    X(SEND_ELEMS, "send_elems") /* block element (er + i, ec + j) of cb -> core (x, y) cb dcb, its reserved block element (der + i, dec + j) */ \
    X(CHAIN, "chain")           /* a -> out: rows x cols tiles unpacked once, its steps applied in Dst, packed once */ \
    X(CB_SWAP, "cb_swap")       /* cb cb_b: from here on this kernel's references to the two CBs trade places */ \
    X(PCHAIN, "pchain")         /* a chain with the packer's options: SFPU steps on the pack thread, output in place at the front, row sums packed into `sum` */ \
    X(ROWMAX, "rowmax")         /* a -> out: per row of a rows x cols block (strided), its maximum; seeded by b's row tile when b is given */

typedef enum df_op {
#define X(e, s) DF_##e,
    DF_OPS(X)
#undef X
    DF_NOPS
} df_op;

typedef struct df_stmt df_stmt;
struct df_stmt {
    df_op op;
    lm_loc loc;
    /* references (-1 when absent) */
    int cb, cb_b, cb_out; /* CB ids 0..num_cbs-1: a/source, b, output */
    int tensor;           /* index into df_program.tensors */
    int sem;              /* index into df_program.sems */
    int var;              /* FOR: the loop variable's slot */
    int sub;              /* df_eltop / df_sfpuop / df_redop */
    int bcast;            /* df_bcast */
    /* flags */
    bool trans_b;         /* MATMUL: b pages hold B^T tiles (k x n given as n x k) */
    bool loopback;        /* MCAST/SEM_MCAST: the sender is written too when inside the rectangle */
    bool ge;              /* SEM_WAIT: wait for >= value instead of == */
    bool exact;           /* SFPU exp: exact rather than approximate */
    bool rev;             /* ELTWISE step of a CHAIN: the Dst value is the second operand (b op value) */
    bool fold;            /* REDUCE sum: add each row's tiles element-wise in Dst, then reduce that one tile */
    bool pack_sfpu;       /* PCHAIN: the SFPU steps run on the pack thread (after math's FPU steps) */
    bool front;           /* PCHAIN: the output pages are at the front of `out` (pushed, not popped): in place */
    bool col0;            /* PCHAIN: the SFPU steps compute column 0 of each tile only (a per-row statistic) */
    int cb_sum;           /* PCHAIN: CB whose page per block row the row's tiles are added into (-1: none) */
    /* expressions (NULL when absent; the op table gives defaults) */
    const df_expr *lo, *hi, *step;       /* FOR */
    const df_expr *n;                    /* page counts */
    const df_expr *row, *col;            /* READ/WRITE: first tile of the block in the tensor */
    const df_expr *rows, *cols;          /* READ/WRITE/ELTWISE/REDUCE: block shape in tiles */
    const df_expr *x, *y;                /* SEND/SEM_INC: destination core */
    const df_expr *x0, *y0, *x1, *y1;    /* MCAST/SEM_MCAST: rectangle, inclusive */
    const df_expr *m, *k, *nn;           /* MATMUL: tiles (nn is N) */
    const df_expr *sub_h, *sub_w;        /* MATMUL: output sub-block held in Dst */
    const df_expr *at, *at_b, *at_out;   /* page offsets from the CB's read (inputs) or write (outputs) pointer */
    const df_expr *dst_at;               /* SEND/MCAST: page offset at the destination's write pointer */
    const df_expr *value;                /* semaphores */
    const df_expr *trid;                 /* READ/READ_ELEMS: transaction id the reads carry (0: untagged);
                                            READ_BARRIER: the id waited for (0: every outstanding read) */
    const df_expr *acc;                  /* MATMUL/ELTWISE/COPY: non-zero = packer L1 accumulation
                                            (add into the output pages), e.g. acc=min(k,1) */
    const df_expr *p1r, *p1c, *p1k;      /* MASK: predicates p?r*i + p?c*j + p?k >= 0 over the global */
    const df_expr *p2r, *p2c, *p2k;      /*   element indices i = row*32 + r, j = col*32 + c (absent: 0) */
    const df_expr *er, *ec, *bw;         /* READ/WRITE_ELEMS: first element in the tile block, block width in tiles */
    const df_expr *rstride;              /* READ/WRITE_ELEMS: tensor rows between consecutive rows moved */
    const df_expr *der, *dec, *dbw;      /* SEND_ELEMS: first element in the destination's block, its width
                                            in tiles (the destination CB is cb_out) */
    const df_expr *at_sum, *sum_acc;     /* PCHAIN: first row page of `sum` (from its write pointer); non-zero:
                                            add the first tile of each row too (else it overwrites) */
    const df_expr *rs, *bs;              /* ROWMAX: pages between rows, between runs of bw tiles (0: contiguous) */
    double scalar;                       /* FILL value, SFPU scale factor, MASK replacement, PCHAIN exp scale */
    /* FOR body; CHAIN steps (ELTWISE, SFPU and MASK statements whose fields
       come from df_steps: the Dst value is their first operand) */
    df_stmt **body;
    int nbody;
};

/* Transaction ids of reads: 0 is untagged, 1..DF_MAX_TRID tag a read so that
 * a barrier can wait for those alone. The NoC of Wormhole and Blackhole counts
 * outstanding requests per id for 16 ids (NOC_MAX_TRANSACTION_ID = 0xF in
 * TT-Metalium's noc_parameters.h for both). */
enum { DF_MAX_TRID = 15 };

/* Field kinds of the text form, and where each field lives in df_stmt. */
typedef enum df_fkind { DF_F_EXPR, DF_F_CB, DF_F_TENSOR, DF_F_SEM, DF_F_VAR, DF_F_SUB, DF_F_BCAST, DF_F_FLAG, DF_F_FLOAT } df_fkind;
typedef struct df_field {
    const char *key;   /* text key, e.g. "n", "cb", "rows" */
    df_fkind kind;
    size_t offset;     /* offsetof(df_stmt, member) */
    bool required;
    const char *deflt; /* default in text form when optional ("0", "1", NULL) */
} df_field;
typedef struct df_opinfo {
    const char *name;
    const df_field *fields;
    int nfields;
    enum { DF_ENGINE_ANY, DF_ENGINE_DM, DF_ENGINE_COMPUTE } engine; /* which kernels may use it */
} df_opinfo;
extern const df_opinfo df_ops[DF_NOPS];
/* The steps of a chain: the ops that can work on tiles held in Dst, with
 * the fields they take there (no CB for the Dst value, no block shape: the
 * chain's). NULL for ops that cannot be a step. */
const df_opinfo *df_step_info(df_op op);
/* Most steps in one chain. */
enum { DF_MAX_STEPS = 16 };
/* Whether statements of op `op` hold steps (chain, pchain) in their body. */
static inline bool df_has_steps(df_op op) { return op == DF_CHAIN || op == DF_PCHAIN; }

/* ---- program -------------------------------------------------------------- */

typedef enum df_role { DF_INPUT, DF_OUTPUT, DF_SCRATCH } df_role;

typedef struct df_param {
    const char *name;
    int64_t value;          /* as written, or overridden by df_bind */
    lm_loc loc;
} df_param;

typedef struct df_tensor {
    const char *name;
    const df_expr *rows_e, *cols_e; /* as written (params only) */
    int64_t rows, cols;     /* resolved by df_bind: elements; tiles = ceil(rows/32) x ceil(cols/32) */
    arch_format format;
    df_role role;
    uint64_t seed;          /* inputs: deterministic random contents (num_fill_random) */
    int first_bank;         /* interleaving start bank */
    lm_loc loc;
} df_tensor;

typedef struct df_sem {
    const char *name;
    const df_expr *init_e;
    int64_t init;           /* resolved by df_bind */
    lm_loc loc;
} df_sem;

typedef struct df_cb {
    int id;                 /* 0 .. arch num_cbs-1 */
    arch_format format;     /* page = one tile of this format */
    const df_expr *pages_e;
    int64_t pages;          /* resolved by df_bind */
    lm_loc loc;
} df_cb;

typedef enum df_kernel_kind { DF_READER, DF_COMPUTE, DF_WRITER, DF_NKERNELS } df_kernel_kind;

typedef struct df_kernel {
    df_stmt **body;
    int nbody;
} df_kernel;

/* CBs a card's compute kernel needs beside those its ops name: the unit
 * tile its row reductions scale by (bf16, 1 page), the page a folded row
 * sum goes through (fp32, 1 page), the two index tiles its masks compare
 * (fp32, 2 pages). A class that names them declares them as CBs, so that
 * they take L1 on the simulated chip as on the card; the simulator's ops do
 * without them (docs/dataflow.md, docs/emit.md). */
typedef enum df_support { DF_SUP_SCALER, DF_SUP_FOLD, DF_SUP_IOTA, DF_NSUPPORT } df_support;
extern const char *const df_support_names[DF_NSUPPORT];   /* class keys: "scaler", "fold", "iota" */
extern const arch_format df_support_format[DF_NSUPPORT];
extern const int df_support_pages[DF_NSUPPORT];

typedef struct df_class {
    const char *name;
    const df_expr *x0_e, *y0_e, *x1_e, *y1_e;
    int x0, y0, x1, y1;      /* resolved by df_bind: inclusive rectangle of logical cores */
    const char **slot_names; /* nslots names: "cx", "cy", params..., args..., loop vars... */
    int nslots;
    const df_expr **args;    /* runtime arguments: slot DF_SLOT_PARAM0 + nparams + i =
                                args[i](cx, cy, params, earlier args) */
    int nargs;
    df_cb *cbs;
    int ncbs;
    df_kernel kernels[DF_NKERNELS];
    arch_fidelity fidelity;  /* matrix engine fidelity of the compute kernel */
    bool fp32_acc;           /* Dst in 32-bit mode (half the tiles) */
    int support[DF_NSUPPORT];/* CB ids of the card's support CBs, -1: none (df_support) */
    lm_loc loc;
} df_class;

/* What `--check` compares an output against. */
typedef enum df_check_kind { DF_CHECK_MATMUL, DF_CHECK_ATTENTION } df_check_kind;
typedef struct df_check {
    df_check_kind kind;
    int out, a, b, c;        /* tensors: out = a @ b; attention out = attn(q=a, k=b, v=c) */
    int64_t batch, heads, kv_heads, seq_q, seq_k, dim; /* attention geometry (resolved by df_bind) */
    const df_expr *batch_e, *heads_e, *kv_heads_e, *seq_q_e, *seq_k_e, *dim_e; /* as written */
    double scale;
    bool causal;
    lm_loc loc;
} df_check;

typedef struct df_program {
    const char *name;
    df_param *params;        /* slots DF_SLOT_PARAM0 + i */
    int nparams;
    df_tensor *tensors;
    int ntensors;
    df_sem *sems;
    int nsems;
    df_class *classes;
    int nclasses;
    df_check *checks;
    int nchecks;
    lm_arena arena;          /* owns everything above */
} df_program;

/* ---- text form (df_parse.c, df_print.c) ------------------------------------- */

/* Parse the text form. Reports `file:line:col: error:` through d and returns
 * NULL on failure. Parsing checks syntax, names and field kinds only. */
df_program *df_parse(const char *file, const char *text, size_t len, lm_diag *d);
/* Override params (`NAME=VALUE`, e.g. from `loomc sim --param`) and resolve
 * every program-level number. Reports unknown params and bad values. */
bool df_bind(df_program *p, const char **overrides, int noverrides, lm_diag *d);
/* Semantic checks against a chip (after df_bind): cores inside the grid, classes disjoint,
 * CB ids and total CB bytes within L1, every referenced CB declared, loop
 * bounds and ops well-formed. Returns false after reporting. */
bool df_validate(const df_program *p, const arch_desc *a, lm_diag *d);
void df_print(lm_buf *b, const df_program *p);
/* One expression or one statement (its line only: a FOR prints its header
 * without the body) in canonical text, for messages and traces. c names
 * the slots; NULL for program-level expressions. */
void df_print_expr(lm_buf *b, const df_program *p, const df_class *c, const df_expr *e);
void df_print_stmt(lm_buf *b, const df_program *p, const df_class *c, const df_stmt *s);
void df_free(df_program *p);

/* Evaluate an expression given the slot values. Never traps: division and
 * modulo by zero give 0, INT64_MIN / -1 and other 64-bit overflows wrap.
 * Validated programs do not rely on either; a caller that must report them
 * (the simulator, at the op that uses the value) uses df_eval_checked, which
 * returns the same value and sets *bad (sticky: never cleared) when any node
 * divided by zero or overflowed. */
int64_t df_eval(const df_expr *e, const int64_t *slots);
int64_t df_eval_checked(const df_expr *e, const int64_t *slots, bool *bad);
/* True when e reads a slot >= first_slot (e.g. a loop variable). */
bool df_expr_uses_slots_from(const df_expr *e, int first_slot);

/* Construction helpers (for the lowering and for tests). Everything is
 * allocated in p->arena. df_bin folds constant operands (unless folding
 * would hide a division by zero or an overflow) and drops identities
 * (x+0, x-0, x*1, x/1). */
df_program *df_new(const char *name);
const df_expr *df_const(df_program *p, int64_t v);
const df_expr *df_slot(df_program *p, int slot);
const df_expr *df_bin(df_program *p, df_xkind k, const df_expr *a, const df_expr *b);

/* A statement of op `op` with every reference -1, every optional field set to
 * its default from df_ops (expressions as constants, so consumers never see
 * NULL for a field the op takes), required fields -1/NULL until set. */
df_stmt *df_stmt_new(df_program *p, df_op op, lm_loc loc);

/* Programmatic construction. Params must all be added before the first
 * class (their slots precede every class's args); args before a class's
 * loop variables. Pointers returned into the program's arrays (df_class *,
 * df_cb *, df_check *) stay valid until the next df_add_* of the same kind.
 * The *_add_* functions returning an index or slot return -1 when a limit
 * is reached (DF_MAX_SLOTS); they never report. */
int df_add_param(df_program *p, const char *name, int64_t value, lm_loc loc);
int df_add_tensor(df_program *p, const char *name, const df_expr *rows, const df_expr *cols,
                  arch_format format, df_role role, lm_loc loc);
int df_add_sem(df_program *p, const char *name, const df_expr *init, lm_loc loc);
df_check *df_add_check(df_program *p, df_check_kind kind, lm_loc loc); /* tensors -1 */
/* A class with slots cx, cy and the params; fidelity HiFi2, fp32_acc off. */
df_class *df_add_class(df_program *p, const char *name, const df_expr *x0, const df_expr *y0,
                       const df_expr *x1, const df_expr *y1, lm_loc loc);
int df_add_arg(df_program *p, df_class *c, const char *name, const df_expr *e); /* its slot */
int df_add_loop_var(df_program *p, df_class *c, const char *name);               /* its slot */
df_cb *df_add_cb(df_program *p, df_class *c, int id, arch_format format, const df_expr *pages,
                 lm_loc loc);
/* A step of a chain (op ELTWISE, SFPU or MASK) with the step table's
 * defaults; required fields -1/NULL until set. */
df_stmt *df_step_new(df_program *p, df_op op, lm_loc loc);
/* Append a statement to a kernel's body or to a FOR statement's body, or a
 * step to a CHAIN statement. */
void df_add_stmt(df_program *p, df_kernel *k, df_stmt *s);
void df_add_body(df_program *p, df_stmt *loop, df_stmt *s);
/* A FOR statement over a fresh loop variable slot of class c (NULL when
 * the class is out of slots); step NULL means 1. */
df_stmt *df_for(df_program *p, df_class *c, const char *var, const df_expr *lo, const df_expr *hi,
                const df_expr *step, lm_loc loc);

/* ---- names and lookups (df.c) ------------------------------------------------ */

/* The op called `name`, or DF_NOPS. */
df_op df_op_lookup(const char *name);
/* The field of op called `key`, or NULL. */
const df_field *df_field_lookup(df_op op, const char *key);
/* Names of sub-operations (eltwise/sfpu/reduce by op), broadcasts, roles,
 * kernel kinds, check kinds; the *_parse functions return -1 when unknown. */
const char *df_sub_name(df_op op, int sub);
int df_sub_parse(df_op op, const char *s);
const char *df_bcast_name(df_bcast b);
int df_bcast_parse(const char *s);
const char *df_role_name(df_role r);
int df_role_parse(const char *s);
const char *df_kernel_name(df_kernel_kind k);
/* Tile format and fidelity names as in arch/ ("bf16", "HiFi2"); kept here
 * so that the dataflow library does not depend on the YAML loader. */
const char *df_format_name(arch_format f);
int df_format_parse(const char *s);
const char *df_fidelity_name(arch_fidelity f);
int df_fidelity_parse(const char *s);

#endif
