/* front.h - the front end past the syntax tree: module-level names and
 * imports (names.c), launch specs (launch.c), the compile-time values and
 * their algebra both evaluate with (value.c) and the checker that turns a launched
 * kernel into Tile IR (check.c, interp.c, atoms.c, builtins.c, pyfuncs.c,
 * ops.c, cval.c; their shared internals are in check_int.h). The syntax tree itself is in ast.h.
 *
 * Flow (driver.c): fe_parse -> fe_names_init -> fe_read_launch -> for each
 * launch, fe_check -> Tile IR. Everything lives in the compilation's arena
 * except the spec's value environment (fe_spec_free releases it).
 */
#ifndef LOOMC_FRONT_H
#define LOOMC_FRONT_H

#include "sym/sym.h"
#include "ir/tir.h"
#include "front/ast.h"

/* ======================================================================
 * names.c - names of a module
 * ==================================================================== */

typedef struct fe_alias {
    const char *name;   /* the local name an import binds */
    const char *target; /* the dotted path it stands for: "triton.language" */
} fe_alias;

typedef struct fe_global {
    const char *name;
    const fe_expr *value; /* a top-level `NAME = value` (kernels may read constants) */
    lm_loc loc;
} fe_global;

/* Another module of the project, found by its dotted name (`mylib.acts`)
 * on the driver's search path, read and named once; NULL if there is none.
 * The front end calls it only for imports that are not triton's. */
typedef struct fe_loader {
    const struct fe_names *(*load)(void *ctx, const char *module);
    void *ctx;
} fe_loader;

typedef struct fe_names {
    const fe_module *mod;
    const fe_loader *loader; /* NULL: no other module can be read */
    fe_alias *aliases;
    int naliases;
    const fe_func **funcs; /* every top-level def, in order */
    int nfuncs;
    fe_global *globals;
    int nglobals;
} fe_names;

void fe_names_init(fe_names *nm, const fe_module *m, lm_arena *a);
/* The dotted path a name or attribute chain stands for through the module's
 * imports (`tl.dot` -> "triton.language.dot"), or NULL if it does not start
 * at an import. */
const char *fe_qualname(const fe_names *nm, const fe_expr *e, lm_arena *a);
/* How to write a path in a message: "triton.language.dot" -> "tl.dot". */
const char *fe_pretty_qualname(const char *qual, lm_arena *a);
const fe_func *fe_find_func(const fe_names *nm, const char *name);
/* The @triton.jit function a dotted path names in another module of the
 * project (`mylib.acts.leaky`), and that module's names in *in; NULL if the
 * path names no such function. */
const fe_func *fe_find_module_func(const fe_names *nm, const char *qual, const fe_names **in, lm_arena *a);
const fe_global *fe_find_global(const fe_names *nm, const char *name);
bool fe_is_jit(const fe_names *nm, const fe_func *f, lm_arena *a);
bool fe_is_launch_spec(const fe_names *nm, const fe_func *f, lm_arena *a);
bool fe_is_constexpr_param(const fe_names *nm, const fe_param *p, lm_arena *a);
/* The configurations of a `@triton.autotune(configs=[triton.Config({...}),
 * ...])` on f, one line each ("  autotune config 1: BLOCK_M=128 ..."), as
 * the space a tuner would search: loomc reads them but does not use them. */
void fe_print_autotune(lm_buf *b, const fe_names *nm, const fe_func *f, lm_arena *a);
/* A dtype path ("triton.language.bfloat16") to an element type. Returns 1 if
 * supported, 0 if it is not a dtype, -1 if it is a dtype loomc does not
 * support. */
int fe_dtype(const char *qual, tir_elem *out);

/* ======================================================================
 * launch.c - launch specs (docs/launch.md)
 * ==================================================================== */

/* NAME=VALUE from --shape and --const. */
typedef struct fe_kv {
    const char *name;
    int64_t value;
} fe_kv;

/* Limits (docs/limits.md). Sizes and --const values lie within
 * +-FE_MAX_SIZE, so that the product of any two fits in 64 bits; a tensor
 * has at most FE_MAX_TENSOR_ELEMS elements, so that its bytes and offsets
 * fit with room to spare; a launch spec launches at most FE_MAX_LAUNCHES
 * kernels; a tile whose shape is known has at most FE_MAX_TILE_ELEMS
 * elements (Triton's own limit); a kernel checks into at most FE_MAX_OPS
 * Tile IR operations; a kernel or a launch spec binds at most FE_MAX_NAMES
 * names (their lookups are linear). */
#define FE_MAX_SIZE INT64_C(2147483647)
#define FE_MAX_TENSOR_ELEMS (INT64_C(1) << 40)
enum { FE_MAX_LAUNCHES = 64, FE_MAX_TILE_ELEMS = 1 << 20, FE_MAX_OPS = 5000, FE_MAX_NAMES = 512 };

typedef struct fe_launch_opts {
    const char *kernel; /* --kernel: a launch spec or a kernel it launches; NULL */
    const fe_kv *shapes;
    int nshapes;
    const fe_kv *consts;
    int nconsts;
} fe_launch_opts;

/* A named integer of the spec: a size, an option, or a free constexpr. */
typedef struct fe_symbol {
    const char *name;
    const sym_expr *var; /* sizes and free constexprs: the symbol; options: NULL */
    bool bound;          /* has a value (sizes always; options always; free: pinned) */
    int64_t value;
    lm_loc loc;
} fe_symbol;

typedef enum fe_arg_kind {
    FE_ARG_TENSOR, /* a tensor of the spec: a pointer parameter */
    FE_ARG_INT,    /* an integer (symbolic) value */
    FE_ARG_FLOAT,  /* a float value */
    FE_ARG_FREE,   /* a constexpr the launch leaves to the solver */
    FE_ARG_STR,    /* a string (constexpr parameters: ACTIVATION="leaky_relu") */
    FE_ARG_NONE,   /* None (an optional pointer or value left out, as Triton
                      specialises it: the kernel sees None at compile time) */
} fe_arg_kind;

typedef struct fe_arg {
    const fe_param *param;
    bool is_constexpr;
    fe_arg_kind kind;
    const tir_tensor *tensor; /* TENSOR */
    const sym_expr *ival;     /* INT: the value; FREE: the symbol */
    bool is_bool;             /* INT written as True/False */
    double fval;              /* FLOAT */
    const char *str;          /* STR */
    bool from_default;        /* taken from the kernel signature's default */
    bool from_heuristic;      /* computed by the kernel's @triton.heuristics */
    int choice;               /* a heuristic's value that waits for the solver: its fe_choice + 1; 0 */
    lm_loc loc;
} fe_arg;

/* A value of a @triton.heuristics lambda that depends on a free constexpr
 * (`"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0` with BLOCK_K
 * the solver's): a comparison lhs OP rhs whose truth is a choice; or a
 * free constexpr the kernel tests for truth (`if EPILOGUE_SUBTILE:`), a
 * flag an autotuner sets, whose two values need no constraint. Each
 * value comes with the solver constraints (expressions <= 0) that make it
 * the heuristic's value, where they can be written so; the driver
 * schedules each value that can (fe_spec_pick) and keeps the best. */
typedef struct fe_choice {
    int launch;               /* the launch, and the parameter of its kernel */
    int param;
    const char *name;
    const char *text;         /* the comparison, as loomc prints it */
    lm_loc loc;
    bool can[2];              /* [0]: True, [1]: False */
    const sym_expr *cons[2][2];
    int ncons[2];
    int pick;                 /* 0: True, 1: False */
    bool flag;                /* not a heuristic: a free constexpr the kernel tests for truth */
} fe_choice;

enum { FE_MAX_CHOICES = 4 };

typedef struct fe_launch {
    int index; /* position in the spec */
    const fe_func *kernel;
    lm_loc loc;
    int grid_rank;
    const sym_expr *grid[TIR_MAX_GRID];
    fe_arg *args; /* one per kernel parameter, in order */
    int nargs;
    bool selected; /* checked and printed (--kernel may pick some launches only) */
} fe_launch;

typedef struct fe_spec {
    const fe_func *fn;
    const char *name;
    fe_symbol *sizes;
    int nsizes;
    fe_symbol *options;
    int noptions;
    fe_symbol *frees;
    int nfrees;
    tir_tensor **tensors;
    int ntensors;
    fe_launch *launches;
    int nlaunches;
    sym_env env; /* values of the sizes and of pinned free constexprs */
    fe_choice choices[FE_MAX_CHOICES];
    int nchoices;
} fe_spec;

/* Give choice i the value True (value 0) or False (1): its launch's
 * argument, and the constraints fe_check adds. False if that value cannot
 * be written as constraints. */
bool fe_spec_pick(fe_spec *spec, int i, int value, sym_ctx *s);

/* Find the launch spec (the only one, or the one --kernel names), bind the
 * sizes and constants, and evaluate it. NULL after reporting an error. */
fe_spec *fe_read_launch(const fe_names *nm, const fe_launch_opts *opts, sym_ctx *s, lm_arena *a, lm_diag *d);
void fe_spec_free(fe_spec *spec);
/* The launch header printed by `loomc ir`. */
void fe_print_launch(lm_buf *b, const fe_spec *spec, const fe_launch *l);

/* ======================================================================
 * value.c - compile-time values and their algebra (launch specs and kernels)
 * ==================================================================== */

/* A value of the front end's two Python evaluators, the launch-spec reader
 * (launch.c) and the checker (check.c and its files). Both make the
 * compile-time kinds; only a launch spec makes tensors, only the checker
 * Tile IR values (a kernel never sees a tensor object, only the pointer
 * parameter the launch binds to it, and a launch spec runs no kernel code),
 * so a tuple of one holds only kinds of that one. */
typedef enum fe_vkind {
    FE_V_NONE,   /* None */
    FE_V_INT,    /* integer (symbolic); is_bool for True/False */
    FE_V_FLOAT,  /* float */
    FE_V_STR,    /* string literal (padding_option=, ACTIVATION="relu") */
    FE_V_DTYPE,  /* tl.float32, ...; ptr_dtype for `p.dtype` of a pointer; TIR_NELEMS and the
                    name in str for a dtype loomc does not support */
    FE_V_TUPLE,  /* tuple or list of values */
    FE_V_TENSOR, /* launch specs: a tensor (loomc.tensor(...)) */
    FE_V_TIR,    /* kernels: a Tile IR value (tile, scalar, pointer, block pointer, descriptor) */
} fe_vkind;

typedef struct fe_value {
    fe_vkind kind;
    const sym_expr *i; /* INT */
    bool is_bool;
    double f;          /* FLOAT */
    const char *str;   /* STR */
    tir_elem dtype;    /* DTYPE */
    bool ptr_dtype;
    struct fe_value *items; /* TUPLE */
    int n;
    tir_tensor *t; /* TENSOR */
    tir_value *v;  /* TIR */
    /* TIR made from a comparison of compile-time integers that could not
       be decided: the free constexpr it waits for (for messages), and, for
       <, <=, > and >=, the expression that is <= 0 exactly when it holds */
    const char *free_dep;
    const sym_expr *cons;
} fe_value;

static inline fe_value fe_v_int(const sym_expr *e) { return (fe_value){.kind = FE_V_INT, .i = e}; }
static inline fe_value fe_v_float(double f) { return (fe_value){.kind = FE_V_FLOAT, .f = f}; }
static inline fe_value fe_v_str(const char *s) { return (fe_value){.kind = FE_V_STR, .str = s}; }
static inline fe_value fe_v_none(void) { return (fe_value){.kind = FE_V_NONE}; }
static inline fe_value fe_v_bool(sym_ctx *s, bool b)
{
    fe_value v = fe_v_int(sym_const(s, b));
    v.is_bool = true;
    return v;
}
static inline bool fe_v_is_number(const fe_value *v) { return v->kind == FE_V_INT || v->kind == FE_V_FLOAT; }

/* Evaluate e under the spec's bindings; false if some symbol has no value
 * (*unbound, if not NULL, gets the first one's name). */
bool fe_spec_eval(const fe_spec *spec, const sym_expr *e, int64_t *out, const char **unbound);
/* x OP y for Python's integer operators + - * // % and ** on compile-time
 * integers, under the spec's bindings. False if op is none of these, or is
 * ** without known operands and a power >= 0 (the caller goes on). When
 * true, *out is the result, or NULL and *why says why there is none
 * (division by zero, an overflow). */
bool fe_int_arith(const fe_spec *spec, sym_ctx *s, lm_arena *a, const char *op, const sym_expr *x,
                  const sym_expr *y, const sym_expr **out, const char **why);
/* r = x OP y: the message if x and y have values and r has none (it does
 * not fit in 64 bits), else NULL. */
const char *fe_int_overflow(const fe_spec *spec, lm_arena *a, const char *op, const sym_expr *x, const sym_expr *y,
                            const sym_expr *r);
/* x OP y on floats for + - * / // % **; false if op is none of these. When
 * true, *why is NULL or says why there is no result. */
bool fe_float_arith(const char *op, double x, double y, double *out, const char **why);

/* Whether op is one of Python's comparisons == != < <= > >=. */
bool fe_is_compare(const char *op);
/* x OP y on two numbers: arithmetic (+ - * / // % ** & | ^ << >>) and
 * comparisons, symbolic where the operator can keep free names. */
typedef enum fe_fold {
    FE_FOLD_DONE,  /* *out is the result */
    FE_FOLD_LATER, /* it needs values the bindings do not give (or an operand is no
                      number): *msg is the free constexpr in the way, or NULL */
    FE_FOLD_ERROR, /* *msg says why there is no result (division by zero, overflow) */
} fe_fold;
fe_fold fe_value_fold(const fe_spec *spec, sym_ctx *s, lm_arena *a, const char *op, const fe_value *x,
                      const fe_value *y, fe_value *out, const char **msg);
/* Python's truth of a value, if it is known now: false if it is a symbolic
 * integer without a value, a tensor or a Tile IR value. */
bool fe_value_truth(const fe_spec *spec, const fe_value *v, bool *out);
/* x == y for None, strings and dtypes (an unsupported dtype equals only
 * itself); values of different kinds differ. False if they are of one kind
 * that these do not compare (tuples, numbers, tensors, Tile IR values). */
bool fe_value_same(const fe_value *x, const fe_value *y, bool *eq);
/* Item i of a tuple, counted from the end if negative; NULL if out of range. */
const fe_value *fe_value_item(const fe_value *t, int64_t i);

/* ======================================================================
 * check.c - kernel -> Tile IR
 * ==================================================================== */

/* Check the kernel of one launch with that launch's bindings and build its
 * Tile IR. Reports the first error (file:line:col, naming the construct)
 * and returns NULL. */
tir_func *fe_check(const fe_names *nm, const fe_spec *spec, const fe_launch *l, sym_ctx *s, lm_arena *a,
                   lm_diag *d);

#endif
