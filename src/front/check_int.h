/* check_int.h - the checker's own interface between its files, bottom to
 * top: cval.c (values, errors, the environment, building Tile IR values,
 * reading bound arguments), ptile.c (tiles of pointers read as block
 * accesses), grid.c (linear grids), ops.c (operators), pyfuncs.c (Python's
 * builtins, math.*), builtins.c (the tl.* functions), atoms.c (names and
 * attributes), interp.c (statements and expressions, argument binding,
 * helpers inlined) and check.c (the entry fe_check and the passes on the
 * finished function). Each calls only the files below it: the evaluator's
 * recursion (a helper call in an expression runs the helper's statements)
 * is inside interp.c, and the functions a call reaches get their arguments
 * evaluated and bound from their table rows (chk_builtin). Only these files
 * include it; the rest of loomc sees the checker through fe_check in
 * front.h.
 *
 * The state of checking one launched kernel is a chk; the interpreter's
 * values are cvals (compile-time values, or a Tile IR value). The first
 * error is reported with chk_fail, which unwinds with longjmp to fe_check.
 *
 * Naming: a function that one checker file defines and another calls is
 * declared here and carries the chk_ prefix (chk_fail, chk_env_set, chk_binop);
 * one-line constructors and tests of values (cv_int, is_number, given, aloc)
 * are static inline here and keep their short names; everything else is
 * static in its file. The comments on what each function does are at its
 * definition.
 */
#ifndef LOOMC_FRONT_CHECK_INT_H
#define LOOMC_FRONT_CHECK_INT_H

#include "front/front.h"

#include <setjmp.h>

/* ======================================================================
 * values of the interpreter
 * ==================================================================== */

/* The checker's values are front.h's compile-time values (fe_value), of
 * which it makes every kind but FE_V_TENSOR; cval is its short name. */
typedef fe_value cval;

typedef struct binding {
    const char *name;
    cval v;
} binding;

/* A name that was assigned only inside a finished loop (for messages). */
typedef struct gone_name {
    const char *name;
    int line;
} gone_name;

/* A block pointer made from a tile of pointers, and how it maps onto the
 * tile (ptile.c). */
typedef struct chk_playout chk_playout;
typedef struct chk_ptile {
    const tir_value *bp;
    const chk_playout *lay;
} chk_ptile;

/* A mask or wrap read as a boundary check, to be proved on the finished
 * function: bound - start (+1 if le) plus the block's offset along tensor
 * dimension tdim is the tensor's extent there. */
typedef struct chk_proof {
    const tir_op *op;
    const tir_tensor *tensor;
    int tdim;
    const tir_value *start, *bound;
    bool le, wrap;
    lm_loc loc;
} chk_proof;

/* A guard on the programs that do the kernel's work (`if pid < n:` over
 * the rest of the kernel): only programs below bound along axis run. */
typedef struct chk_guard {
    int axis;
    const sym_expr *bound;
    lm_loc loc;
} chk_guard;

enum { CHK_MAX_CALLS = 16, CHK_MAX_GUARDS = 8 };

typedef struct chk {
    const fe_names *nm;
    const fe_spec *spec;
    const fe_launch *l;
    const fe_func *k;
    sym_ctx *s;
    lm_arena *a;
    lm_diag *d;
    jmp_buf jb;
    tir_builder b;
    tir_func *f;
    binding *env;
    int nenv, capenv;
    gone_name *gone;
    int ngone, capgone;
    chk_ptile *ptiles;
    int nptiles, capptiles;
    chk_proof *proofs;
    int nproofs, capproofs;
    /* @triton.jit helpers being inlined, outermost first (the kernel is
       calls[0]), and the loop depth each was called at */
    const fe_func *calls[CHK_MAX_CALLS];
    int call_loops[CHK_MAX_CALLS];
    int ncalls;
    int loop_depth;
    bool returned; /* a helper's `return` was executed */
    cval retval;
    chk_guard guards[CHK_MAX_GUARDS];
    int nguards;
    /* the last store, if it was an unmasked one through a tile of pointers
       and nothing has been stored since: a load of the same pointers in
       the same block reads the stored value (builtins.c) */
    tir_value *fwd_ptr, *fwd_val;
    tir_block *fwd_block;
} chk;

static inline cval cv_int(const sym_expr *e) { return fe_v_int(e); }
static inline cval cv_val(tir_value *v) { return (cval){.kind = FE_V_TIR, .v = v}; }
static inline cval cv_none(void) { return fe_v_none(); }
static inline cval cv_bool(chk *c, bool b) { return fe_v_bool(c->s, b); }

static inline bool is_one(const sym_expr *e)
{
    int64_t v;
    return sym_is_const(e, &v) && v == 1;
}

static inline bool is_number(const cval *v) { return fe_v_is_number(v); }

static inline bool is_tile_val(const cval *v) { return v->kind == FE_V_TIR && v->v->type.kind == TIR_TILE; }

/* ======================================================================
 * cval.c - errors, text for messages, environment, compile-time integers
 * ==================================================================== */

LM_NORETURN void chk_fail(chk *c, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);

/* ---- text for messages ------------------------------------------------------ */

const char *chk_shape_str(chk *c, int rank, const sym_expr *const *shape);
static inline const char *tshape(chk *c, const tir_type *t) { return chk_shape_str(c, t->rank, t->shape); }
const char *chk_describe(chk *c, const cval *v);
static inline const char *pretty(chk *c, const char *qual) { return fe_pretty_qualname(qual, c->a); }

/* ---- environment ---------------------------------------------------------- */

binding *chk_env_find(chk *c, const char *name);
void chk_env_set(chk *c, const char *name, cval v);
void chk_note_gone(chk *c, const char *name, int line);

/* ---- compile-time integers -------------------------------------------------- */

/* The value of a compile-time integer if the launch's bindings give one. */
static inline bool ct_known(chk *c, const sym_expr *e, int64_t *v) { return fe_spec_eval(c->spec, e, v, NULL); }
const char *chk_ct_unbound(chk *c, const sym_expr *e);
int64_t chk_ct_need(chk *c, const sym_expr *e, lm_loc loc, const char *what);
int64_t chk_const_int_of(chk *c, const cval *v, lm_loc loc, const char *what);
/* Whether a compile-time value is true, if that is known now. */
static inline bool chk_truth_known(chk *c, const cval *v, bool *out) { return fe_value_truth(c->spec, v, out); }

/* ======================================================================
 * cval.c - building Tile IR values
 * ==================================================================== */

tir_value *chk_build1(chk *c, tir_opcode code, lm_loc loc, tir_type t, tir_value *o0, tir_value *o1,
                      tir_value *o2);
tir_type chk_tile_t(chk *c, tir_elem e, int rank, const sym_expr *const *shape);
tir_value *chk_materialise(chk *c, const cval *v, tir_elem e, lm_loc loc);
tir_elem chk_natural_elem(const cval *v);
tir_value *chk_as_tile(chk *c, const cval *v, lm_loc loc, const char *what);
tir_value *chk_cast_to(chk *c, tir_value *v, tir_elem e, lm_loc loc);
tir_elem chk_promote(tir_elem a, tir_elem b);
tir_elem chk_weak_elem(const cval *num, tir_elem t);
const sym_expr **chk_broadcast_shape(chk *c, const tir_type *x, const tir_type *y, int *rank);
tir_value *chk_broadcast_to(chk *c, tir_value *v, int rank, const sym_expr *const *shape, lm_loc loc);
void chk_broadcast_pair(chk *c, tir_value **x, tir_value **y, lm_loc loc, const char *what);
tir_value *chk_transpose(chk *c, tir_value *x, lm_loc loc, const char *what);
tir_value *chk_expand_dims(chk *c, tir_value *x, int64_t axis, lm_loc loc);
cval chk_convert(chk *c, const cval *x, lm_loc xloc, tir_elem e, lm_loc loc);

/* ======================================================================
 * cval.c - reading bound call arguments (interp.c binds them)
 * ==================================================================== */

/* tl builtins take a few; @triton.jit helpers of real kernels take up to ~20 */
enum { MAX_ARGS = 32 };

typedef struct cargs {
    cval v[MAX_ARGS];
    bool has[MAX_ARGS];
    lm_loc loc[MAX_ARGS];
    lm_loc call;
    const char *fname;
} cargs;

/* The parameter names of a Triton function (chk_builtin.params). */
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static inline bool given(const cargs *a, int i) { return a->has[i] && a->v[i].kind != FE_V_NONE; }
static inline lm_loc aloc(const cargs *a, int i) { return a->has[i] ? a->loc[i] : a->call; }

tir_value *chk_arg_tile(chk *c, const cargs *a, int i, const char *what);
tir_elem chk_arg_dtype(chk *c, const cargs *a, int i);
int64_t chk_arg_const(chk *c, const cargs *a, int i, const char *what);
bool chk_arg_bool(chk *c, const cargs *a, int i, bool dflt);
int chk_parse_shape(chk *c, const cval *v, lm_loc loc, const char *what, const sym_expr **dims);
tir_value *chk_int_scalar(chk *c, const cval *v, lm_loc loc, const char *what);
int chk_int_tuple(chk *c, const cval *v, lm_loc loc, const char *what, tir_value **out);
tir_value *chk_value_of_kind(chk *c, const cargs *a, int i, tir_kind k, const char *what);

tir_value *chk_store_value(chk *c, const cval *v, lm_loc loc, const tir_type *bt, const char *what);
/* Fail, saying why, if the integer v depends on data loaded from memory. */
void chk_reject_from_memory(chk *c, const tir_value *v, lm_loc loc, const char *what);

/* ======================================================================
 * ptile.c - tiles of pointers as block accesses
 * ==================================================================== */

/* The block pointer of a tile of pointers (a TIR_PTR tile, made here), or
 * the block pointer itself if it already is one made from such a tile. */
tir_value *chk_ptile_block(chk *c, tir_value *p, lm_loc loc);
/* The layout of a block pointer made from a tile of pointers, else NULL. */
const chk_playout *chk_ptile_layout(chk *c, const tir_value *v);
bool chk_ptile_same(const chk_playout *x, const chk_playout *y);
/* `to` (a loop's argument or result) has the layout of `from`. */
void chk_ptile_carry(chk *c, tir_value *from, tir_value *to);
/* bp + step (bp - step): an advance along the dimensions whose strides divide step. */
cval chk_ptile_advance(chk *c, tir_value *bp, tir_value *step, bool negate, lm_loc loc);
/* tl.load / tl.store with their bound arguments (pointer, mask, other, ...). */
cval chk_ptile_load(chk *c, const cargs *a, lm_loc call);
void chk_ptile_store(chk *c, const cargs *a, lm_loc call);
cval chk_ptile_scalar_load(chk *c, const cargs *a, lm_loc call);
void chk_ptile_scalar_store(chk *c, const cargs *a, lm_loc call);
/* Prove the masks and wraps read as boundary checks; on the finished function. */
void chk_ptile_verify(chk *c);
/* A 2-D block pointer over base with these strides walks its tensor's
 * dimensions in reverse (order=(0, 1)): it is made swapped, in the
 * tensor's order, and noted (chk_bptr_note_swapped); tl.advance, tl.load
 * and tl.store of a swapped one swap offsets and boundary-check bits
 * (chk_bptr_swap_bits) and transpose the tile. */
bool chk_bptr_reversed(chk *c, const tir_value *base, tir_value *const *strides, int rank);
void chk_bptr_note_swapped(chk *c, tir_value *bp);
bool chk_bptr_swapped(chk *c, const tir_value *bp);
unsigned chk_bptr_swap_bits(unsigned bits);

/* ======================================================================
 * grid.c - linear grids split into the 2-D grids they stand for
 * ==================================================================== */

/* pid // B, pid % B and the GROUP_SIZE_M swizzle over a grid of A*B
 * programs become the program ids of a grid (A, B); on the finished
 * function. */
void chk_grid_delinearise(chk *c);
/* A run-time condition on the program ids (cond, or its negation) that
 * guards the rest of the kernel, read as bounds on the grid's axes; fails,
 * saying why, if it is not of that form. */
void chk_grid_guard(chk *c, const tir_value *cond, bool negate, lm_loc loc);

/* ======================================================================
 * ops.c - operators
 * ==================================================================== */

bool chk_fold_binop(chk *c, const char *op, const cval *x, const cval *y, lm_loc loc, cval *out,
                    const char **dep);
cval chk_binop(chk *c, const char *op, cval x, cval y, lm_loc loc);
cval chk_unop(chk *c, const char *op, cval x, lm_loc loc);
cval chk_minmax2(chk *c, bool is_max, cval x, cval y, lm_loc loc);
tir_value *chk_to_bool(chk *c, tir_value *v, lm_loc loc);

/* ======================================================================
 * pyfuncs.c, builtins.c - the functions a kernel calls
 * ==================================================================== */

/* A function a kernel may call (tl.dot, x.sum(), min, math.log2) and how
 * it takes its arguments. The evaluator (interp.c) evaluates a call's
 * arguments, binds them to these parameters and hands the handler the
 * bound values, so that no handler evaluates an expression. */
typedef cval (*chk_handler)(chk *c, const fe_expr *call, const cargs *a);
typedef struct chk_builtin {
    const char *name;
    chk_handler fn; /* NULL if refuse always refuses */
    /* the parameter names (ARGS(...); a "*dims" parameter takes the
       remaining positional arguments, or one tuple), the first nreq
       required; NULL: positional arguments only, in v[0..nitems-1]
       (Python's builtins, math.*), which refuse has limited to MAX_ARGS and
       no keywords */
    const char *const *params;
    int nreq;
    /* what is refused before any argument is evaluated (a call that takes
       no keywords, range() outside a for); NULL if nothing */
    void (*refuse)(chk *c, const fe_expr *call, const char *fname);
} chk_builtin;

/* pyfuncs.c: range(), tl.range() and tl.static_range() outside a for. */
void chk_refuse_range(chk *c, const fe_expr *call, const char *fname);
/* One of Python's builtins (min, float, len, ...), or NULL. */
const chk_builtin *chk_builtin_python(const char *name);
/* math.NAME; fails if loomc has no such function. */
const chk_builtin *chk_builtin_math(chk *c, const fe_expr *call, const char *q);

/* builtins.c: the function a dotted import path names (tl.dot,
 * math.log2), and in *fname the name messages call it by; NULL if the path
 * is outside triton and math (a helper of another module). Fails for one
 * loomc does not compile. */
const chk_builtin *chk_builtin_qual(chk *c, const fe_expr *call, const char *q, const char **fname);
/* The method of obj a call names (x.to(), desc.load()); fails if there is none. */
const chk_builtin *chk_builtin_method(chk *c, const fe_expr *call, const cval *obj, const char **fname);

/* ======================================================================
 * atoms.c - the parts of expressions that evaluate nothing further
 * ==================================================================== */

const char *chk_qual_of(chk *c, const fe_expr *e);
cval chk_eval_name(chk *c, const fe_expr *e);
cval chk_qual_value(chk *c, const fe_expr *e, const char *q);
cval chk_attr(chk *c, const fe_expr *e, const cval *obj);
cval chk_index_tile(chk *c, const fe_expr *e, const cval *obj);
LM_NORETURN void chk_runtime_condition(chk *c, const cval *v, lm_loc loc, const char *what);

/* ======================================================================
 * interp.c - statements and expressions
 * ==================================================================== */

/* Run a function body (the kernel's, with its parameters bound). */
void chk_exec_body(chk *c, fe_stmt *const *body, int n);

#endif
