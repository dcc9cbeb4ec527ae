/* sym.h - symbolic integer expressions: the language in which tile shapes,
 * block sizes, buffer depths, byte counts and latencies stay unknown until
 * the solver picks values.
 *
 * Expressions are immutable and hash-consed inside a sym_ctx: structurally
 * equal expressions are the same pointer, so `a == b` is equality. The
 * constructors (sym_add, sym_mul, ...) return canonical, simplified forms;
 * sym_raw builds a node exactly as given (tests compare the two).
 *
 * Semantics are those of mathematical integers (64-bit, overflow is an
 * evaluation failure, never a silent wrap):
 *   floordiv(a, b) = floor(a / b)      mod(a, b) = a - b * floordiv(a, b)
 *   cdiv(a, b)     = ceil(a / b)       (b must be non-zero; negative b allowed)
 */
#ifndef LOOMC_SYM_H
#define LOOMC_SYM_H

#include "util/base.h"

typedef enum sym_kind {
    SYM_CONST,    /* value */
    SYM_VAR,      /* name */
    SYM_ADD,      /* n-ary sum of args */
    SYM_MUL,      /* n-ary product of args */
    SYM_FLOORDIV, /* args[0] // args[1] */
    SYM_CDIV,     /* ceil(args[0] / args[1]) */
    SYM_MOD,      /* args[0] mod args[1] (Python semantics) */
    SYM_MIN,      /* n-ary minimum */
    SYM_MAX,      /* n-ary maximum */
} sym_kind;

typedef struct sym_expr sym_expr;
struct sym_expr {
    sym_kind kind;
    int64_t value;          /* SYM_CONST */
    const char *name;       /* SYM_VAR; interned, owned by the context */
    int nargs;
    const sym_expr **args;  /* operands, owned by the context */
    uint32_t id;            /* creation order, for deterministic ordering */
    uint64_t hash;
};

typedef struct sym_ctx sym_ctx;

sym_ctx *sym_ctx_new(void);
void sym_ctx_free(sym_ctx *c);

/* ---- construction (canonical, simplified) ---------------------------- */
const sym_expr *sym_const(sym_ctx *c, int64_t v);
const sym_expr *sym_var(sym_ctx *c, const char *name);
const sym_expr *sym_add(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_sub(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_neg(sym_ctx *c, const sym_expr *a);
const sym_expr *sym_mul(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_floordiv(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_cdiv(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_mod(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_min(sym_ctx *c, const sym_expr *a, const sym_expr *b);
const sym_expr *sym_max(sym_ctx *c, const sym_expr *a, const sym_expr *b);
/* Build by kind from operands, simplifying (n-ary kinds take any n >= 1). */
const sym_expr *sym_make(sym_ctx *c, sym_kind k, const sym_expr **args, int nargs);
/* Build exactly this node, without simplification (still hash-consed). */
const sym_expr *sym_raw(sym_ctx *c, sym_kind k, const sym_expr **args, int nargs);

/* ---- inspection ------------------------------------------------------- */
bool sym_is_const(const sym_expr *e, int64_t *v);
bool sym_depends_on(const sym_expr *e, const sym_expr *var);
/* Collect the distinct variables of e, in order of first appearance. */
int sym_vars(const sym_expr *e, const sym_expr **out, int max);
/* If e is affine in `var` (e = coeff * var + rest, with coeff and rest free
 * of var), return true and the coefficient (which may itself be symbolic). */
bool sym_affine_coeff(sym_ctx *c, const sym_expr *e, const sym_expr *var,
                      const sym_expr **coeff, const sym_expr **rest);

/* ---- environments ----------------------------------------------------- */
/* A binding of variables to values or to closed intervals [lo, hi]. */
typedef struct sym_binding {
    const sym_expr *var;
    int64_t lo, hi; /* a value binding has lo == hi */
} sym_binding;

typedef struct sym_env {
    sym_binding *b;
    int n, cap;
} sym_env;

void sym_env_set(sym_env *env, const sym_expr *var, int64_t value);
void sym_env_set_range(sym_env *env, const sym_expr *var, int64_t lo, int64_t hi);
bool sym_env_get(const sym_env *env, const sym_expr *var, int64_t *lo, int64_t *hi);
void sym_env_free(sym_env *env);

/* ---- evaluation ------------------------------------------------------- */
typedef enum sym_status {
    SYM_OK,
    SYM_UNBOUND,     /* a variable has no value */
    SYM_DIV_ZERO,    /* division or mod by zero */
    SYM_OVERFLOW,    /* a result does not fit in int64 */
} sym_status;

/* Evaluate under value bindings. */
sym_status sym_eval(const sym_expr *e, const sym_env *env, int64_t *out);
/* Sound interval bounds: for every assignment within the ranges of env,
 * lo <= value <= hi. Bounds may be loose but never wrong. A divisor
 * interval that contains 0 gives SYM_DIV_ZERO. */
sym_status sym_bounds(const sym_expr *e, const sym_env *env, int64_t *lo, int64_t *hi);
/* Whether e >= v wherever each of its variables is a size, 1..2^24, by
 * sym_bounds (false where that cannot tell, or past 16 variables). */
bool sym_at_least_on_sizes(const sym_expr *e, int64_t v);
/* Replace bound variables by their values and re-simplify. */
const sym_expr *sym_subst(sym_ctx *c, const sym_expr *e, const sym_env *env);
/* Replace every occurrence of the variable var by the expression `by`, and
 * re-simplify. */
const sym_expr *sym_replace(sym_ctx *c, const sym_expr *e, const sym_expr *var, const sym_expr *by);

/* ---- text --------------------------------------------------------------- */
/* Stable, readable text: `cdiv(M, BLOCK_M)`, `2*BLOCK_K + 1`, `min(a, b)`. */
void sym_print(lm_buf *b, const sym_expr *e);
/* The same text, cut short: once about `max` characters are written, the
 * operands not yet begun print as one "..." (the text stays a readable
 * prefix; it no longer parses). For comments and messages, where a large
 * expression would otherwise print at full length. */
void sym_print_short(lm_buf *b, const sym_expr *e, size_t max);
/* Print into an arena-allocated string. */
const char *sym_str(lm_arena *a, const sym_expr *e);

/* ---- additions -------------------------------------------------------- */
/* What simplification promises: a constructor's result has the same value as
 * the operation it was asked for at every assignment where that operation is
 * defined. It may be defined where the original is not (x*0 is 0 even when x
 * divides by zero; floordiv(b*x, b) is x) and, because constants are
 * distributed (2*(x - y) is 2*x - 2*y), it may overflow int64 at a different
 * place. Constant folding that would overflow is not done: the node is kept
 * as built, so evaluation reports SYM_OVERFLOW. */

/* The structural total order behind canonical operand order: by kind, then
 * constant value, variable name, or operands left to right (then count).
 * It never looks at pointers or creation order, so a canonical expression
 * prints the same whichever order it was built in. 0 only for equal trees. */
int sym_compare(const sym_expr *a, const sym_expr *b);
/* Rebuild e bottom-up through the simplifying constructors (e.g. a tree made
 * with sym_raw). */
const sym_expr *sym_simplify(sym_ctx *c, const sym_expr *e);
/* Parse the text sym_print produces: integers, names [A-Za-z_][A-Za-z0-9_.]*,
 * + - * (and unary minus), parentheses, and the calls cdiv/floordiv/mod (two
 * operands) and min/max (one or more). The result is simplified, so
 * sym_parse(sym_str(e)) == e for canonical e. On error returns NULL and, if
 * err_pos is not NULL, points *err_pos at the offending character (at the
 * terminating NUL when the text ends too early). */
const sym_expr *sym_parse(sym_ctx *c, const char *text, const char **err_pos);

#endif
