/* check.c - the checker: one launched Triton kernel -> Tile IR (declared in
 * front.h; docs/frontend.md describes the accepted subset).
 *
 * The kernel body is interpreted once, statement by statement, the way
 * Triton's code generator walks it: compile-time values (constexprs, Python
 * numbers, dtypes, tuples) are computed here, everything that exists at run
 * time becomes Tile IR. Compile-time integers are symbolic expressions, so a
 * free constexpr such as BLOCK_M stays a name in every shape and offset that
 * depends on it; the launch's bindings (sizes, pinned constexprs) are used
 * only where a value must be known (an `if` on a constexpr, a loop step).
 *
 * Loops are structured: names assigned in a loop body that were defined
 * before the loop become the loop's carried values (SSA over structured
 * control flow). An `if` must be decidable at compile time and is folded.
 *
 * The first error is reported with the kernel's own location and unwinds with
 * longjmp to fe_check; all memory comes from the compilation's arena, so an
 * error leaks nothing. A verifier failure on the result is a bug here.
 */
#include "front/front.h"

#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * values of the interpreter
 * ==================================================================== */

typedef enum ckind {
    C_NONE,  /* None */
    C_INT,   /* compile-time integer (symbolic); is_bool for True/False */
    C_FLOAT, /* compile-time float */
    C_STR,   /* string literal (padding_option=, input_precision=) */
    C_DTYPE, /* tl.float32, ...; ptr_dtype for `p.dtype` of a pointer */
    C_TUPLE, /* tuple or list of values */
    C_VAL,   /* a Tile IR value: tile, scalar, pointer, block pointer, descriptor */
} ckind;

typedef struct cval {
    ckind kind;
    const sym_expr *i;
    bool is_bool;
    double f;
    const char *str;
    tir_elem dtype;
    bool ptr_dtype;
    struct cval *items;
    int n;
    tir_value *v;
    /* C_VAL made from a comparison of compile-time integers that could not
       be decided: the free constexpr it waits for (for messages) */
    const char *free_dep;
} cval;

typedef struct binding {
    const char *name;
    cval v;
} binding;

/* A name that was assigned only inside a finished loop (for messages). */
typedef struct gone_name {
    const char *name;
    int line;
} gone_name;

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
} chk;

static LM_NORETURN void cfail(chk *c, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void cfail(chk *c, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(c->d, loc, fmt, ap);
    va_end(ap);
    longjmp(c->jb, 1);
}

static cval cv_int(const sym_expr *e) { return (cval){.kind = C_INT, .i = e}; }
static cval cv_val(tir_value *v) { return (cval){.kind = C_VAL, .v = v}; }
static cval cv_none(void) { return (cval){.kind = C_NONE}; }

static bool is_one(const sym_expr *e)
{
    int64_t v;
    return sym_is_const(e, &v) && v == 1;
}

/* ---- text for messages ------------------------------------------------------ */

static const char *shape_str(chk *c, int rank, const sym_expr *const *shape)
{
    lm_buf b = {0};
    lm_buf_putc(&b, '[');
    for (int i = 0; i < rank; i++) {
        if (i)
            lm_buf_puts(&b, ", ");
        sym_print(&b, shape[i]);
    }
    lm_buf_putc(&b, ']');
    const char *s = lm_arena_strdup(c->a, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static const char *tshape(chk *c, const tir_type *t) { return shape_str(c, t->rank, t->shape); }
static const char *tstr(chk *c, const tir_type *t) { return tir_type_str(c->a, t); }

static const char *describe(chk *c, const cval *v)
{
    switch (v->kind) {
    case C_NONE: return "None";
    case C_INT: return v->is_bool ? "a compile-time bool" : "a compile-time integer";
    case C_FLOAT: return "a float constant";
    case C_STR: return "a string";
    case C_DTYPE: return "a dtype";
    case C_TUPLE: return "a tuple";
    case C_VAL: break;
    }
    const tir_type *t = &v->v->type;
    switch (t->kind) {
    case TIR_TILE:
        if (t->rank == 0)
            return lm_arena_printf(c->a, "an %s scalar", tir_elem_name(t->elem));
        return lm_arena_printf(c->a, "a %d-D tile of shape %s", t->rank, tshape(c, t));
    case TIR_PTR:
        if (t->rank == 0)
            return lm_arena_printf(c->a, "a pointer to %s", tir_elem_name(t->elem));
        return lm_arena_printf(c->a, "a tile of pointers of shape %s", tshape(c, t));
    case TIR_BPTR: return lm_arena_printf(c->a, "a block pointer to %s blocks of shape %s", tir_elem_name(t->elem), tshape(c, t));
    case TIR_DESC: return lm_arena_printf(c->a, "a tensor descriptor of %s blocks of shape %s", tir_elem_name(t->elem), tshape(c, t));
    }
    return "a value";
}

static const char *pretty(chk *c, const char *qual) { return fe_pretty_qualname(qual, c->a); }

/* ---- environment ---------------------------------------------------------- */

static binding *env_find(chk *c, const char *name)
{
    for (int i = c->nenv - 1; i >= 0; i--)
        if (!strcmp(c->env[i].name, name))
            return &c->env[i];
    return NULL;
}

static void env_set(chk *c, const char *name, cval v)
{
    if (v.kind == C_VAL && !v.v->name)
        v.v->name = name;
    binding *b = env_find(c, name);
    if (b) {
        b->v = v;
        return;
    }
    /* lookups are linear and every loop saves the environment */
    if (c->nenv >= FE_MAX_NAMES)
        cfail(c, c->k->loc, "kernel '%s' binds more than %d names; that is the limit", c->k->name,
              (int)FE_MAX_NAMES);
    if (c->nenv == c->capenv) {
        int cap = c->capenv ? 2 * c->capenv : 32;
        binding *n = LM_NEWN(c->a, binding, cap);
        if (c->nenv)
            memcpy(n, c->env, sizeof *n * (size_t)c->nenv);
        c->env = n;
        c->capenv = cap;
    }
    c->env[c->nenv++] = (binding){name, v};
}

static void note_gone(chk *c, const char *name, int line)
{
    if (c->ngone == c->capgone) {
        int cap = c->capgone ? 2 * c->capgone : 16;
        gone_name *n = LM_NEWN(c->a, gone_name, cap);
        if (c->ngone)
            memcpy(n, c->gone, sizeof *n * (size_t)c->ngone);
        c->gone = n;
        c->capgone = cap;
    }
    c->gone[c->ngone++] = (gone_name){name, line};
}

/* ---- compile-time integers -------------------------------------------------- */

/* The value of a compile-time integer if the launch's bindings give one. */
static bool ct_known(chk *c, const sym_expr *e, int64_t *v) { return fe_spec_eval(c->spec, e, v, NULL); }

/* The first variable of e without a value (a free constexpr), for messages. */
static const char *ct_unbound(chk *c, const sym_expr *e)
{
    int64_t v;
    const char *unb = NULL;
    if (fe_spec_eval(c->spec, e, &v, &unb))
        return NULL;
    return unb;
}

/* A compile-time integer whose value is needed now. */
static int64_t ct_need(chk *c, const sym_expr *e, lm_loc loc, const char *what)
{
    int64_t v;
    if (ct_known(c, e, &v))
        return v;
    const char *unb = ct_unbound(c, e);
    if (unb)
        cfail(c, loc, "%s must be known at compile time, but depends on free constexpr '%s', which the solver "
                      "chooses (pin it with --const %s=VALUE)",
              what, unb, unb);
    cfail(c, loc, "%s cannot be computed (division by zero or overflow)", what);
}

/* An integer constant written in the kernel (axis=, order=, boundary_check=). */
static int64_t const_int_of(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (v->kind != C_INT)
        cfail(c, loc, "%s must be a compile-time integer, got %s", what, describe(c, v));
    return ct_need(c, v->i, loc, what);
}

/* ======================================================================
 * building Tile IR values
 * ==================================================================== */

static tir_value *build1(chk *c, tir_opcode code, lm_loc loc, tir_type t, tir_value *o0, tir_value *o1,
                         tir_value *o2)
{
    return tir_build1(&c->b, code, loc, t, o0, o1, o2, NULL);
}

static tir_type tile_t(chk *c, tir_elem e, int rank, const sym_expr *const *shape)
{
    return tir_t_tile(c->a, e, rank, shape);
}

/* A compile-time number as a scalar of element type e. */
static tir_value *materialise(chk *c, const cval *v, tir_elem e, lm_loc loc)
{
    if (v->kind == C_INT) {
        if (tir_elem_is_float(e)) {
            int64_t k;
            if (sym_is_const(v->i, &k))
                return tir_const_float(&c->b, e, (double)k);
            /* a symbolic integer keeps its name: converted at run time */
            tir_value *iv = tir_sym_value(&c->b, TIR_I32, v->i);
            return build1(c, TIR_CAST, loc, tir_t_scalar(e), iv, NULL, NULL);
        }
        if (e == TIR_I1) {
            int64_t k;
            if (!sym_is_const(v->i, &k))
                k = ct_need(c, v->i, loc, "a boolean");
            return tir_const_int(&c->b, TIR_I1, k != 0);
        }
        return tir_sym_value(&c->b, e, v->i);
    }
    if (v->kind == C_FLOAT) {
        if (!tir_elem_is_float(e))
            e = TIR_F32;
        return tir_const_float(&c->b, e, v->f);
    }
    LM_BUG("materialise of a non-number");
}

/* The natural scalar type of a compile-time number. */
static tir_elem natural_elem(const cval *v)
{
    if (v->kind == C_FLOAT)
        return TIR_F32;
    return v->is_bool ? TIR_I1 : TIR_I32;
}

static bool is_number(const cval *v) { return v->kind == C_INT || v->kind == C_FLOAT; }

static bool is_tile_val(const cval *v) { return v->kind == C_VAL && v->v->type.kind == TIR_TILE; }

/* A value usable as a tile operand: a tile, a run-time scalar, or a number
 * (materialised with its natural type). */
static tir_value *as_tile(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (is_number(v))
        return materialise(c, v, natural_elem(v), loc);
    if (is_tile_val(v))
        return v->v;
    if (v->kind == C_VAL && v->v->type.kind == TIR_PTR)
        cfail(c, loc, "%s cannot be a pointer; loomc kernels address memory through tl.make_block_ptr or tensor "
                      "descriptors",
              what);
    cfail(c, loc, "%s must be a tile or a scalar, got %s", what, describe(c, v));
}

static tir_value *cast_to(chk *c, tir_value *v, tir_elem e, lm_loc loc)
{
    if (v->type.elem == e)
        return v;
    return build1(c, TIR_CAST, loc, tir_t_with_elem(v->type, e), v, NULL, NULL);
}

/* Element type of a binary operation between two typed operands: bool <
 * integers < floats; the wider float wins; bf16 with f16 gives f32. */
static tir_elem promote(tir_elem a, tir_elem b)
{
    if (a == b)
        return a;
    bool fa = tir_elem_is_float(a), fb = tir_elem_is_float(b);
    if (fa && fb) {
        int ba = tir_elem_bits(a), bb = tir_elem_bits(b);
        if (ba != bb)
            return ba > bb ? a : b;
        return TIR_F32;
    }
    if (fa)
        return a;
    if (fb)
        return b;
    return tir_elem_bits(a) >= tir_elem_bits(b) ? a : b;
}

/* The element type a Python number takes next to a tile of element type t. */
static tir_elem weak_elem(const cval *num, tir_elem t)
{
    if (num->kind == C_FLOAT)
        return tir_elem_is_float(t) ? t : TIR_F32;
    if (num->is_bool)
        return t;
    return t == TIR_I1 ? TIR_I32 : t;
}

/* Numpy-style broadcast of two shapes; NULL (and *rank unset) if they do not
 * broadcast. */
static const sym_expr **broadcast_shape(chk *c, const tir_type *x, const tir_type *y, int *rank)
{
    int r = LM_MAX(x->rank, y->rank);
    const sym_expr **out = LM_NEWN(c->a, const sym_expr *, r ? r : 1);
    for (int i = 1; i <= r; i++) {
        const sym_expr *a = i <= x->rank ? x->shape[x->rank - i] : NULL;
        const sym_expr *b = i <= y->rank ? y->shape[y->rank - i] : NULL;
        const sym_expr *d;
        if (!a)
            d = b;
        else if (!b)
            d = a;
        else if (a == b)
            d = a;
        else if (is_one(a))
            d = b;
        else if (is_one(b))
            d = a;
        else
            return NULL;
        out[r - i] = d;
    }
    *rank = r;
    return out;
}

/* v (a tile or a scalar, or a pointer) extended to the given shape. */
static tir_value *broadcast_to(chk *c, tir_value *v, int rank, const sym_expr *const *shape, lm_loc loc)
{
    tir_type t = v->type;
    if (t.rank == rank) {
        bool same = true;
        for (int i = 0; i < rank; i++)
            same &= t.shape[i] == shape[i];
        if (same)
            return v;
    }
    tir_type r = tir_t_tile(c->a, t.elem, rank, shape);
    r.kind = t.kind;
    return build1(c, t.rank == 0 ? TIR_SPLAT : TIR_BROADCAST, loc, r, v, NULL, NULL);
}

/* Bring two operands to one shape, or report both shapes. */
static void broadcast_pair(chk *c, tir_value **x, tir_value **y, lm_loc loc, const char *what)
{
    int r = 0;
    const sym_expr **sh = broadcast_shape(c, &(*x)->type, &(*y)->type, &r);
    if (!sh)
        cfail(c, loc, "shape mismatch in %s: %s and %s cannot be broadcast to one shape", what,
              tshape(c, &(*x)->type), tshape(c, &(*y)->type));
    *x = broadcast_to(c, *x, r, sh, loc);
    *y = broadcast_to(c, *y, r, sh, loc);
}

/* ======================================================================
 * operators
 * ==================================================================== */

static bool truth_known(chk *c, const cval *v, bool *out)
{
    int64_t k;
    switch (v->kind) {
    case C_NONE: *out = false; return true;
    case C_INT:
        if (!ct_known(c, v->i, &k))
            return false;
        *out = k != 0;
        return true;
    case C_FLOAT: *out = v->f != 0; return true;
    case C_STR: *out = v->str[0] != 0; return true;
    case C_DTYPE: *out = true; return true;
    case C_TUPLE: *out = v->n > 0; return true;
    case C_VAL: return false;
    }
    return false;
}

static cval cv_bool(chk *c, bool b)
{
    cval v = cv_int(sym_const(c->s, b));
    v.is_bool = true;
    return v;
}

static bool is_cmp(const char *op)
{
    return !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") ||
           !strcmp(op, ">=");
}

static bool cmp_result(const char *op, int c3)
{
    if (!strcmp(op, "=="))
        return c3 == 0;
    if (!strcmp(op, "!="))
        return c3 != 0;
    if (!strcmp(op, "<"))
        return c3 < 0;
    if (!strcmp(op, "<="))
        return c3 <= 0;
    if (!strcmp(op, ">"))
        return c3 > 0;
    return c3 >= 0;
}

static int64_t ipow(chk *c, int64_t b, int64_t p, lm_loc loc)
{
    /* bases 0 and +-1 never overflow, so they must not loop p times */
    if (b == 0 || b == 1)
        return p == 0 ? 1 : b;
    if (b == -1)
        return p % 2 ? -1 : 1;
    int64_t r = 1;
    for (int64_t k = 0; k < p; k++)
        if (!lm_mul_ok(r, b, &r))
            cfail(c, loc, "integer overflow in '**'");
    return r;
}

/* A binary operator on two compile-time numbers. Returns false when it has
 * to be computed at run time (symbolic operands the operator cannot keep
 * symbolic); *dep then names the free constexpr in the way. */
static bool fold_binop(chk *c, const char *op, const cval *x, const cval *y, lm_loc loc, cval *out, const char **dep)
{
    sym_ctx *s = c->s;
    *dep = NULL;
    if (x->kind == C_INT && y->kind == C_INT) {
        const sym_expr *a = x->i, *b = y->i;
        int64_t av, bv, bz;
        bool bzero = sym_is_const(b, &bz) && bz == 0;
        const sym_expr *r = NULL;
        if (!strcmp(op, "+"))
            r = sym_add(s, a, b);
        else if (!strcmp(op, "-"))
            r = sym_sub(s, a, b);
        else if (!strcmp(op, "*"))
            r = sym_mul(s, a, b);
        else if (!strcmp(op, "//") || !strcmp(op, "%")) {
            if (bzero)
                cfail(c, loc, "division by zero");
            r = !strcmp(op, "//") ? sym_floordiv(s, a, b) : sym_mod(s, a, b);
        }
        if (r) {
            /* integers are 64-bit: known operands whose result cannot be
               computed overflowed (2**62 * 4, -2**63 // -1) */
            if (ct_known(c, a, &av) && ct_known(c, b, &bv) && !ct_known(c, r, &bz))
                cfail(c, loc, "integer overflow in '%s' (%lld %s %lld does not fit in 64 bits)", op, (long long)av,
                      op, (long long)bv);
            *out = cv_int(r);
            return true;
        }
        if (is_cmp(op)) {
            const sym_expr *d = sym_sub(s, a, b);
            int64_t dv;
            if (sym_is_const(d, &dv)) {
                *out = cv_bool(c, cmp_result(op, dv < 0 ? -1 : dv > 0));
                return true;
            }
            /* known values are compared directly: their difference may not
               fit in 64 bits (0 < -2**63) */
            if (ct_known(c, a, &av) && ct_known(c, b, &bv)) {
                *out = cv_bool(c, cmp_result(op, av < bv ? -1 : av > bv));
                return true;
            }
            *dep = ct_unbound(c, d);
            return false;
        }
        bool known = ct_known(c, a, &av) && ct_known(c, b, &bv);
        if (!known) {
            *dep = ct_unbound(c, sym_add(s, a, b));
            return false;
        }
        if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^")) {
            int64_t bits = !strcmp(op, "&") ? (av & bv) : !strcmp(op, "|") ? (av | bv) : (av ^ bv);
            *out = cv_int(sym_const(s, bits));
            out->is_bool = x->is_bool && y->is_bool;
            return true;
        }
        if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
            if (bv < 0 || bv > 62)
                cfail(c, loc, "shift count %lld out of range", (long long)bv);
            if (!strcmp(op, ">>")) {
                *out = cv_int(sym_const(s, av >> bv));
                return true;
            }
            if (av > (INT64_MAX >> bv) || av < (INT64_MIN >> bv))
                cfail(c, loc, "integer overflow in '<<'");
            *out = cv_int(sym_const(s, (int64_t)((uint64_t)av << bv)));
            return true;
        }
        if (!strcmp(op, "**") && bv >= 0) {
            *out = cv_int(sym_const(s, ipow(c, av, bv, loc)));
            return true;
        }
        /* '/' and negative powers give floats */
    }
    if (!is_number(x) || !is_number(y))
        return false;
    double a, b;
    int64_t k;
    if (x->kind == C_FLOAT) {
        a = x->f;
    } else if (ct_known(c, x->i, &k)) {
        a = (double)k;
    } else {
        *dep = ct_unbound(c, x->i);
        return false;
    }
    if (y->kind == C_FLOAT) {
        b = y->f;
    } else if (ct_known(c, y->i, &k)) {
        b = (double)k;
    } else {
        *dep = ct_unbound(c, y->i);
        return false;
    }
    if (is_cmp(op)) {
        *out = cv_bool(c, cmp_result(op, a < b ? -1 : a > b));
        return true;
    }
    double r;
    if (!strcmp(op, "+"))
        r = a + b;
    else if (!strcmp(op, "-"))
        r = a - b;
    else if (!strcmp(op, "*"))
        r = a * b;
    else if (!strcmp(op, "/") || !strcmp(op, "//") || !strcmp(op, "%")) {
        if (b == 0)
            cfail(c, loc, "division by zero");
        r = !strcmp(op, "/") ? a / b : !strcmp(op, "//") ? floor(a / b) : a - b * floor(a / b);
    } else if (!strcmp(op, "**")) {
        if (a < 0 && floor(b) != b)
            cfail(c, loc, "fractional power of a negative number");
        r = pow(a, b);
    } else
        cfail(c, loc, "operator '%s' is not supported on floats", op);
    *out = (cval){.kind = C_FLOAT, .f = r};
    return true;
}

static tir_opcode binop_code(const char *op)
{
    static const struct {
        const char *op;
        tir_opcode code;
    } tab[] = {{"+", TIR_ADD},     {"-", TIR_SUB},     {"*", TIR_MUL},     {"/", TIR_DIV},
               {"//", TIR_FLOORDIV}, {"%", TIR_MOD},   {"&", TIR_AND},     {"|", TIR_OR},
               {"^", TIR_XOR},     {"==", TIR_CMP_EQ}, {"!=", TIR_CMP_NE}, {"<", TIR_CMP_LT},
               {"<=", TIR_CMP_LE}, {">", TIR_CMP_GT},  {">=", TIR_CMP_GE}, {"max", TIR_MAX},
               {"min", TIR_MIN}};
    for (size_t i = 0; i < LM_COUNT(tab); i++)
        if (!strcmp(tab[i].op, op))
            return tab[i].code;
    return TIR_NOPS;
}

/* Pointer + integer: the only pointer arithmetic there is (its loads and
 * stores are rejected, with the reason, where they happen). */
static cval pointer_arith(chk *c, const char *op, const cval *x, const cval *y, lm_loc loc)
{
    bool px = x->kind == C_VAL && x->v->type.kind == TIR_PTR;
    const cval *p = px ? x : y, *o = px ? y : x;
    if (strcmp(op, "+") && !(px && !strcmp(op, "-")))
        cfail(c, loc, "operator '%s' cannot be applied to %s", op, describe(c, p));
    tir_value *off;
    if (o->kind == C_INT)
        off = materialise(c, o, TIR_I32, loc);
    else if (is_tile_val(o) && tir_elem_is_int(o->v->type.elem) && o->v->type.elem != TIR_I1)
        off = o->v;
    else
        cfail(c, loc, "a pointer can only be offset by integers, got %s", describe(c, o));
    if (!strcmp(op, "-"))
        off = build1(c, TIR_NEG, loc, off->type, off, NULL, NULL);
    tir_value *pv = p->v;
    broadcast_pair(c, &pv, &off, loc, "pointer arithmetic");
    return cv_val(build1(c, TIR_ADDPTR, loc, pv->type, pv, off, NULL));
}

static cval binop(chk *c, const char *op, cval x, cval y, lm_loc loc)
{
    if (!strcmp(op, "is") || !strcmp(op, "is not")) {
        if (x.kind != C_NONE && y.kind != C_NONE)
            cfail(c, loc, "'%s' is only supported with None", op);
        bool same = x.kind == C_NONE && y.kind == C_NONE;
        return cv_bool(c, !strcmp(op, "is") ? same : !same);
    }
    if (!strcmp(op, "in") || !strcmp(op, "not in"))
        cfail(c, loc, "'%s' is not supported in loomc kernels", op);
    if (!strcmp(op, "@"))
        cfail(c, loc, "operator '@' is not supported; use tl.dot(a, b)");
    /* compile-time values that are not numbers: only (in)equality */
    bool xo = !is_number(&x) && x.kind != C_VAL, yo = !is_number(&y) && y.kind != C_VAL;
    if (xo || yo) {
        if ((!strcmp(op, "==") || !strcmp(op, "!=")) && xo && yo) {
            bool eq = x.kind == y.kind;
            if (eq && x.kind == C_DTYPE)
                eq = x.dtype == y.dtype && x.ptr_dtype == y.ptr_dtype;
            else if (eq && x.kind == C_STR)
                eq = !strcmp(x.str, y.str);
            else if (eq && x.kind == C_TUPLE)
                cfail(c, loc, "comparing tuples is not supported");
            return cv_bool(c, !strcmp(op, "==") ? eq : !eq);
        }
        cfail(c, loc, "operator '%s' cannot be applied to %s and %s", op, describe(c, &x), describe(c, &y));
    }
    const char *dep = NULL;
    if (is_number(&x) && is_number(&y)) {
        cval r;
        if (fold_binop(c, op, &x, &y, loc, &r, &dep))
            return r;
        if (!strcmp(op, "<<") || !strcmp(op, ">>"))
            cfail(c, loc, "operator '%s' needs known integers; it depends on free constexpr '%s'", op,
                  dep ? dep : "?");
    }
    if ((x.kind == C_VAL && x.v->type.kind == TIR_PTR) || (y.kind == C_VAL && y.v->type.kind == TIR_PTR))
        return pointer_arith(c, op, &x, &y, loc);
    for (int k = 0; k < 2; k++) {
        const cval *v = k ? &y : &x;
        if (v->kind == C_VAL && v->v->type.kind != TIR_TILE)
            cfail(c, loc, "operator '%s' cannot be applied to %s", op, describe(c, v));
    }
    if (!strcmp(op, "**"))
        cfail(c, loc, "operator '**' is only supported on compile-time numbers; use tl.exp2/tl.log2 or repeated "
                      "multiplication on tiles");
    if (!strcmp(op, "<<") || !strcmp(op, ">>"))
        cfail(c, loc, "shift operators on tiles are not supported in loomc kernels");
    tir_opcode code = binop_code(op);
    if (code == TIR_NOPS)
        cfail(c, loc, "operator '%s' is not supported in loomc kernels", op);

    tir_elem e;
    if (x.kind == C_VAL && y.kind == C_VAL)
        e = promote(x.v->type.elem, y.v->type.elem);
    else if (x.kind == C_VAL)
        e = weak_elem(&y, x.v->type.elem);
    else if (y.kind == C_VAL)
        e = weak_elem(&x, y.v->type.elem);
    else
        e = promote(natural_elem(&x), natural_elem(&y));
    if (code == TIR_DIV && !tir_elem_is_float(e))
        e = TIR_F32; /* true division of integers gives a float, as in Triton */
    if (code == TIR_FLOORDIV && tir_elem_is_float(e))
        cfail(c, loc, "'//' needs integer operands, got %s; use '/' for floats", tir_elem_name(e));
    if ((code == TIR_AND || code == TIR_OR || code == TIR_XOR) && tir_elem_is_float(e))
        cfail(c, loc, "operator '%s' needs integer or boolean operands, got %s", op, tir_elem_name(e));
    if (code == TIR_ADD && e == TIR_I1)
        e = TIR_I32;
    tir_value *vx = x.kind == C_VAL ? cast_to(c, x.v, e, loc) : materialise(c, &x, e, loc);
    tir_value *vy = y.kind == C_VAL ? cast_to(c, y.v, e, loc) : materialise(c, &y, e, loc);
    broadcast_pair(c, &vx, &vy, loc, lm_arena_printf(c->a, "'%s'", op));
    tir_elem re = tir_op_has(code, TIR_P_CMP) ? TIR_I1 : e;
    cval r = cv_val(build1(c, code, loc, tir_t_with_elem(vx->type, re), vx, vy, NULL));
    r.free_dep = dep;
    return r;
}

/* A value as an i1 condition of the same shape (x != 0 for numbers). */
static tir_value *to_bool(chk *c, tir_value *v, lm_loc loc)
{
    if (v->type.elem == TIR_I1)
        return v;
    tir_value *zero = tir_elem_is_float(v->type.elem) ? tir_const_float(&c->b, v->type.elem, 0)
                                                      : tir_const_int(&c->b, v->type.elem, 0);
    zero = broadcast_to(c, zero, v->type.rank, v->type.shape, loc);
    return build1(c, TIR_CMP_NE, loc, tir_t_with_elem(v->type, TIR_I1), v, zero, NULL);
}

static cval unop(chk *c, const char *op, cval x, lm_loc loc)
{
    if (!strcmp(op, "not")) {
        bool t;
        if (truth_known(c, &x, &t))
            return cv_bool(c, !t);
        if (x.kind == C_INT) {
            cval r = cv_val(build1(c, TIR_CMP_EQ, loc, tir_t_scalar(TIR_I1), materialise(c, &x, TIR_I32, loc),
                                   tir_const_int(&c->b, TIR_I32, 0), NULL));
            r.free_dep = ct_unbound(c, x.i);
            return r;
        }
        tir_value *v = as_tile(c, &x, loc, "the operand of 'not'");
        cval r = cv_val(build1(c, TIR_NOT, loc, tir_t_with_elem(v->type, TIR_I1), to_bool(c, v, loc), NULL, NULL));
        r.free_dep = x.free_dep;
        return r;
    }
    if (!strcmp(op, "+")) {
        as_tile(c, &x, loc, "the operand of unary '+'");
        return x;
    }
    if (x.kind == C_INT && !strcmp(op, "-")) {
        int64_t k;
        if (ct_known(c, x.i, &k) && k == INT64_MIN)
            cfail(c, loc, "integer overflow in unary '-' (-(%lld) does not fit in 64 bits)", (long long)k);
        return cv_int(sym_neg(c->s, x.i));
    }
    if (x.kind == C_FLOAT && !strcmp(op, "-"))
        return (cval){.kind = C_FLOAT, .f = -x.f};
    if (x.kind == C_INT && !strcmp(op, "~")) {
        int64_t k = ct_need(c, x.i, loc, "the operand of '~'");
        return cv_int(sym_const(c->s, ~k));
    }
    if (x.kind == C_FLOAT)
        cfail(c, loc, "operator '%s' cannot be applied to a float", op);
    tir_value *v = as_tile(c, &x, loc, lm_arena_printf(c->a, "the operand of unary '%s'", op));
    if (!strcmp(op, "-")) {
        if (v->type.elem == TIR_I1)
            v = cast_to(c, v, TIR_I32, loc);
        return cv_val(build1(c, TIR_NEG, loc, v->type, v, NULL, NULL));
    }
    if (!strcmp(op, "~")) {
        if (tir_elem_is_float(v->type.elem))
            cfail(c, loc, "operator '~' needs an integer operand, got %s", tir_elem_name(v->type.elem));
        return cv_val(build1(c, TIR_NOT, loc, v->type, v, NULL, NULL));
    }
    cfail(c, loc, "operator '%s' is not supported", op);
}

/* ======================================================================
 * calls: argument binding and small helpers
 * ==================================================================== */

enum { MAX_ARGS = 12 };

typedef struct cargs {
    cval v[MAX_ARGS];
    bool has[MAX_ARGS];
    lm_loc loc[MAX_ARGS];
    lm_loc call;
    const char *fname;
} cargs;

static cval eval(chk *c, const fe_expr *e);

/* Bind a call's arguments to the parameter names of a Triton function
 * (NULL-terminated); the first nreq are required. self, if not NULL, is the
 * object of a method call and binds the first parameter. */
static void bind_args(chk *c, const fe_expr *call, const cval *self, const char *fname, const char *const *names,
                      int nreq, cargs *out)
{
    memset(out, 0, sizeof *out);
    out->call = call->loc;
    out->fname = fname;
    int n = 0;
    while (names[n])
        n++;
    if (n > MAX_ARGS)
        LM_BUG("too many parameters for %s", fname);
    int k = 0;
    if (self) {
        out->v[0] = *self;
        out->has[0] = true;
        out->loc[0] = call->loc;
        k = 1;
    }
    for (int i = 0; i < call->nitems; i++, k++) {
        if (k < n && names[k][0] == '*') {
            /* *shape: the remaining positional arguments, or one tuple */
            int rest = call->nitems - i;
            cval t = {.kind = C_TUPLE, .n = rest, .items = LM_NEWN(c->a, cval, rest)};
            for (int j = 0; j < rest; j++)
                t.items[j] = eval(c, call->items[i + j]);
            if (rest == 1 && t.items[0].kind == C_TUPLE)
                t = t.items[0];
            out->v[k] = t;
            out->has[k] = true;
            out->loc[k] = call->items[i]->loc;
            k++;
            break;
        }
        if (k >= n)
            cfail(c, call->items[i]->loc, "%s takes at most %d arguments, got %d", fname, n - (self ? 1 : 0),
                  call->nitems);
        out->v[k] = eval(c, call->items[i]);
        out->has[k] = true;
        out->loc[k] = call->items[i]->loc;
    }
    for (int j = 0; j < call->nkws; j++) {
        const fe_keyword *kw = &call->kws[j];
        int p = -1;
        for (int i = 0; i < n && p < 0; i++)
            if (!strcmp(names[i] + (names[i][0] == '*'), kw->name))
                p = i;
        if (p < 0)
            cfail(c, kw->loc, "%s got an unexpected keyword argument '%s'", fname, kw->name);
        if (out->has[p])
            cfail(c, kw->loc, "%s got multiple values for argument '%s'", fname, kw->name);
        out->v[p] = eval(c, kw->value);
        out->has[p] = true;
        out->loc[p] = kw->loc;
    }
    for (int i = 0; i < nreq; i++)
        if (!out->has[i])
            cfail(c, call->loc, "%s is missing its argument '%s'", fname, names[i] + (names[i][0] == '*'));
}

static bool given(const cargs *a, int i) { return a->has[i] && a->v[i].kind != C_NONE; }
static lm_loc aloc(const cargs *a, int i) { return a->has[i] ? a->loc[i] : a->call; }

/* A tile argument: a tile or scalar value, or a number. */
static tir_value *arg_tile(chk *c, const cargs *a, int i, const char *what)
{
    return as_tile(c, &a->v[i], aloc(a, i), lm_arena_printf(c->a, "%s of %s", what, a->fname));
}

static tir_elem arg_dtype(chk *c, const cargs *a, int i)
{
    const cval *v = &a->v[i];
    if (v->kind != C_DTYPE || v->ptr_dtype)
        cfail(c, aloc(a, i), "%s needs a dtype such as tl.float32 here, got %s", a->fname, describe(c, v));
    return v->dtype;
}

static int64_t arg_const(chk *c, const cargs *a, int i, const char *what)
{
    return const_int_of(c, &a->v[i], aloc(a, i), lm_arena_printf(c->a, "%s of %s", what, a->fname));
}

static bool arg_bool(chk *c, const cargs *a, int i, bool dflt)
{
    if (!given(a, i))
        return dflt;
    bool t;
    if (!truth_known(c, &a->v[i], &t))
        cfail(c, aloc(a, i), "argument of %s must be a compile-time bool", a->fname);
    return t;
}

/* A shape: a tuple (or list) of compile-time integers, or one integer. */
static int parse_shape(chk *c, const cval *v, lm_loc loc, const char *what, const sym_expr **dims)
{
    const cval *items = v;
    int n = 1;
    if (v->kind == C_TUPLE) {
        items = v->items;
        n = v->n;
    } else if (v->kind != C_INT) {
        cfail(c, loc, "%s must be a tuple of compile-time integers, got %s", what, describe(c, v));
    }
    if (n < 1 || n > TIR_MAX_RANK)
        cfail(c, loc, "%s must have 1 to %d dimensions, has %d", what, TIR_MAX_RANK, n);
    for (int i = 0; i < n; i++) {
        if (items[i].kind != C_INT)
            cfail(c, loc, "dimension %d of %s must be a compile-time integer (a tl.constexpr), got %s", i, what,
                  describe(c, &items[i]));
        int64_t k;
        if (ct_known(c, items[i].i, &k) && k < 1)
            cfail(c, loc, "dimension %d of %s is %lld; dimensions must be at least 1", i, what, (long long)k);
        dims[i] = items[i].i;
    }
    return n;
}

/* An integer scalar operand (offsets, shapes and strides of block pointers). */
static tir_value *int_scalar(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (v->kind == C_INT)
        return materialise(c, v, TIR_I32, loc);
    if (v->kind == C_VAL && tir_is_int_scalar(&v->v->type))
        return v->v;
    cfail(c, loc, "%s must be an integer scalar, got %s", what, describe(c, v));
}

/* A tuple of r integer scalars. */
static int int_tuple(chk *c, const cval *v, lm_loc loc, const char *what, tir_value **out)
{
    if (v->kind != C_TUPLE) {
        if (v->kind == C_INT || (v->kind == C_VAL && tir_is_int_scalar(&v->v->type))) {
            out[0] = int_scalar(c, v, loc, what);
            return 1;
        }
        cfail(c, loc, "%s must be a tuple of integers, got %s", what, describe(c, v));
    }
    if (v->n < 1 || v->n > TIR_MAX_RANK)
        cfail(c, loc, "%s must have 1 to %d entries, has %d", what, TIR_MAX_RANK, v->n);
    for (int i = 0; i < v->n; i++)
        out[i] = int_scalar(c, &v->items[i], loc, lm_arena_printf(c->a, "entry %d of %s", i, what));
    return v->n;
}

static cval tuple_of_syms(chk *c, int n, const sym_expr *const *s)
{
    cval t = {.kind = C_TUPLE, .n = n};
    t.items = LM_NEWN(c->a, cval, n ? n : 1);
    for (int i = 0; i < n; i++)
        t.items[i] = cv_int(s[i]);
    return t;
}

static tir_value *value_of_kind(chk *c, const cargs *a, int i, tir_kind k, const char *what)
{
    const cval *v = &a->v[i];
    if (v->kind == C_VAL && v->v->type.kind == k && (k != TIR_PTR || v->v->type.rank == 0))
        return v->v;
    cfail(c, aloc(a, i), "%s of %s must be %s, got %s", what, a->fname,
          k == TIR_PTR ? "a pointer argument of the kernel" : k == TIR_BPTR ? "a block pointer" : "a tensor descriptor",
          describe(c, v));
}

/* ======================================================================
 * the tl.* functions
 * ==================================================================== */

typedef cval (*handler)(chk *c, const fe_expr *call, const cval *self, const char *fname);

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static cval grid_index(chk *c, const fe_expr *call, const cval *self, const char *fname, bool pid)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("axis"), 1, &a);
    int64_t ax = arg_const(c, &a, 0, "the axis");
    if (ax < 0 || ax >= TIR_MAX_GRID)
        cfail(c, aloc(&a, 0), "%s: axis must be 0, 1 or 2, got %lld", fname, (long long)ax);
    if (ax >= c->l->grid_rank)
        cfail(c, aloc(&a, 0), "%s(%lld) asks for grid axis %lld, but launch %d of '%s' has a %d-D grid", fname,
              (long long)ax, (long long)ax, c->l->index, c->spec->name, c->l->grid_rank);
    return cv_val(pid ? tir_program_id(&c->b, (int)ax) : tir_num_programs(&c->b, (int)ax));
}

static cval h_program_id(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return grid_index(c, call, self, fname, true);
}

static cval h_num_programs(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return grid_index(c, call, self, fname, false);
}

static cval h_arange(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("start", "end"), 2, &a);
    for (int i = 0; i < 2; i++)
        if (a.v[i].kind != C_INT || a.v[i].is_bool)
            cfail(c, aloc(&a, i), "tl.arange bounds must be compile-time constants, got %s for '%s'",
                  describe(c, &a.v[i]), i ? "end" : "start");
    const sym_expr *len = sym_sub(c->s, a.v[1].i, a.v[0].i);
    int64_t n;
    if (ct_known(c, len, &n)) {
        if (n < 1)
            cfail(c, call->loc, "tl.arange(%s, %s) is empty", sym_str(c->a, a.v[0].i), sym_str(c->a, a.v[1].i));
        if (n & (n - 1))
            cfail(c, call->loc, "the length of tl.arange must be a power of 2, got %lld", (long long)n);
    }
    tir_value *v = build1(c, TIR_ARANGE, call->loc, tile_t(c, TIR_I32, 1, &len), NULL, NULL, NULL);
    v->def->sym = a.v[0].i;
    v->def->sym2 = a.v[1].i;
    return cv_val(v);
}

/* A FULL tile of a compile-time number, or a splat of a run-time scalar. */
static cval make_full(chk *c, lm_loc loc, int rank, const sym_expr *const *dims, const cval *value, lm_loc vloc, tir_elem e)
{
    tir_type t = tile_t(c, e, rank, dims);
    if (is_number(value)) {
        tir_value *v = build1(c, TIR_FULL, loc, t, NULL, NULL, NULL);
        tir_op *op = v->def;
        op->is_float = tir_elem_is_float(e);
        if (value->kind == C_FLOAT) {
            if (op->is_float)
                op->fval = value->f;
            else if (!(fabs(value->f) < 9e18))
                cfail(c, vloc, "value %g does not fit %s", value->f, tir_elem_name(e));
            else
                op->ival = (int64_t)value->f;
        } else {
            int64_t k = ct_need(c, value->i, vloc, "the fill value");
            if (op->is_float)
                op->fval = (double)k;
            else
                op->ival = e == TIR_I1 ? k != 0 : k;
        }
        return cv_val(v);
    }
    if (value->kind == C_VAL && value->v->type.kind == TIR_TILE && value->v->type.rank == 0) {
        tir_value *s = cast_to(c, value->v, e, vloc);
        return cv_val(broadcast_to(c, s, rank, dims, loc));
    }
    cfail(c, vloc, "the fill value must be a number or a scalar, got %s", describe(c, value));
}

static cval h_zeros(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("shape", "dtype"), 2, &a);
    const sym_expr *dims[TIR_MAX_RANK];
    int r = parse_shape(c, &a.v[0], aloc(&a, 0), "the shape of tl.zeros", dims);
    cval zero = cv_int(sym_const(c->s, 0));
    return make_full(c, call->loc, r, dims, &zero, call->loc, arg_dtype(c, &a, 1));
}

static cval h_full(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("shape", "value", "dtype"), 3, &a);
    const sym_expr *dims[TIR_MAX_RANK];
    int r = parse_shape(c, &a.v[0], aloc(&a, 0), "the shape of tl.full", dims);
    return make_full(c, call->loc, r, dims, &a.v[1], aloc(&a, 1), arg_dtype(c, &a, 2));
}

static cval h_zeros_like(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input"), 1, &a);
    tir_value *x = arg_tile(c, &a, 0, "the input");
    if (x->type.rank == 0)
        cfail(c, aloc(&a, 0), "%s needs a tile, got %s", fname, describe(c, &a.v[0]));
    cval zero = cv_int(sym_const(c->s, 0));
    return make_full(c, call->loc, x->type.rank, x->type.shape, &zero, call->loc, x->type.elem);
}

static cval h_make_block_ptr(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("base", "shape", "strides", "offsets", "block_shape", "order"), 6, &a);
    tir_value *base = value_of_kind(c, &a, 0, TIR_PTR, "the base");
    tir_value *sh[TIR_MAX_RANK], *st[TIR_MAX_RANK], *of[TIR_MAX_RANK];
    const sym_expr *blk[TIR_MAX_RANK];
    int r = int_tuple(c, &a.v[1], aloc(&a, 1), "the shape of tl.make_block_ptr", sh);
    int rs = int_tuple(c, &a.v[2], aloc(&a, 2), "the strides of tl.make_block_ptr", st);
    int ro = int_tuple(c, &a.v[3], aloc(&a, 3), "the offsets of tl.make_block_ptr", of);
    int rb = parse_shape(c, &a.v[4], aloc(&a, 4), "the block_shape of tl.make_block_ptr", blk);
    if (rs != r || ro != r || rb != r)
        cfail(c, call->loc, "tl.make_block_ptr: shape, strides, offsets and block_shape must have one entry per "
                            "dimension, got %d, %d, %d and %d",
              r, rs, ro, rb);
    const cval *ov = &a.v[5];
    int order[TIR_MAX_RANK];
    if (ov->kind != C_TUPLE || ov->n != r)
        cfail(c, aloc(&a, 5), "the order of tl.make_block_ptr must be a tuple of %d dimension indices", r);
    unsigned seen = 0;
    for (int i = 0; i < r; i++) {
        int64_t k = const_int_of(c, &ov->items[i], aloc(&a, 5), "an entry of order");
        if (k < 0 || k >= r || (seen & (1u << k)))
            cfail(c, aloc(&a, 5), "the order of tl.make_block_ptr must be a permutation of 0..%d", r - 1);
        seen |= 1u << k;
        order[i] = (int)k;
    }
    tir_value *ops[1 + 3 * TIR_MAX_RANK];
    ops[0] = base;
    for (int i = 0; i < r; i++) {
        ops[1 + i] = sh[i];
        ops[1 + r + i] = st[i];
        ops[1 + 2 * r + i] = of[i];
    }
    tir_type t = tir_t_bptr(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_BLOCK_PTR, call->loc, ops, 1 + 3 * r, &t, 1);
    op->rank = r;
    memcpy(op->order, order, sizeof order[0] * (size_t)r);
    return cv_val(op->results[0]);
}

static cval h_advance(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("base", "offsets"), 2, &a);
    tir_value *bp = value_of_kind(c, &a, 0, TIR_BPTR, "the base");
    tir_value *ops[1 + TIR_MAX_RANK];
    ops[0] = bp;
    int r = int_tuple(c, &a.v[1], aloc(&a, 1), "the offsets of tl.advance", ops + 1);
    if (r != bp->type.rank)
        cfail(c, aloc(&a, 1), "tl.advance needs %d offsets for a %d-D block pointer, got %d", bp->type.rank,
              bp->type.rank, r);
    tir_op *op = tir_op_build(&c->b, TIR_ADVANCE, call->loc, ops, 1 + r, &bp->type, 1);
    return cv_val(op->results[0]);
}

static unsigned boundary_mask(chk *c, const cargs *a, int i, int rank)
{
    if (!given(a, i))
        return 0;
    const cval *v = &a->v[i];
    const cval *items = v;
    int n = 1;
    if (v->kind == C_TUPLE) {
        items = v->items;
        n = v->n;
    }
    unsigned m = 0;
    for (int k = 0; k < n; k++) {
        int64_t d = const_int_of(c, &items[k], aloc(a, i), "an entry of boundary_check");
        if (d < 0 || d >= rank)
            cfail(c, aloc(a, i), "boundary_check names dimension %lld of a %d-D block", (long long)d, rank);
        m |= 1u << d;
    }
    return m;
}

static LM_NORETURN void reject_pointer_tiles(chk *c, lm_loc loc, bool store)
{
    cfail(c, loc, "%s through tensors of pointers (pointer arithmetic) are not supported; use tl.make_block_ptr "
                  "or a tensor descriptor",
          store ? "stores" : "loads");
}

static cval h_load(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname,
              ARGS("pointer", "mask", "other", "boundary_check", "padding_option", "cache_modifier",
                   "eviction_policy", "volatile"),
              1, &a);
    const cval *p = &a.v[0];
    if (p->kind == C_VAL && p->v->type.kind == TIR_PTR)
        reject_pointer_tiles(c, call->loc, false);
    if (p->kind == C_VAL && p->v->type.kind == TIR_DESC)
        cfail(c, call->loc, "load through a tensor descriptor with desc.load([offsets])");
    tir_value *bp = value_of_kind(c, &a, 0, TIR_BPTR, "the pointer");
    if (given(&a, 1) || given(&a, 2))
        cfail(c, aloc(&a, given(&a, 1) ? 1 : 2), "tl.load through a block pointer takes boundary_check= and "
                                                 "padding_option=, not mask= or other=");
    unsigned m = boundary_mask(c, &a, 3, bp->type.rank);
    tir_pad pad = TIR_PAD_NONE;
    if (given(&a, 4)) {
        const cval *pv = &a.v[4];
        if (pv->kind != C_STR)
            cfail(c, aloc(&a, 4), "padding_option must be a string (\"zero\" or \"nan\"), got %s", describe(c, pv));
        if (!strcmp(pv->str, "zero"))
            pad = TIR_PAD_ZERO;
        else if (!strcmp(pv->str, "nan"))
            pad = TIR_PAD_NAN;
        else if (pv->str[0])
            cfail(c, aloc(&a, 4), "padding_option must be \"zero\" or \"nan\", got \"%s\"", pv->str);
    }
    tir_type t = tir_t_tile(c->a, bp->type.elem, bp->type.rank, bp->type.shape);
    tir_value *v = build1(c, TIR_LOAD, call->loc, t, bp, NULL, NULL);
    v->def->bcheck = m;
    v->def->padding = pad;
    return cv_val(v);
}

/* A value to store into blocks of type bt: converted and broadcast. */
static tir_value *store_value(chk *c, const cval *v, lm_loc loc, const tir_type *bt, const char *what)
{
    tir_value *x = as_tile(c, v, loc, what);
    x = cast_to(c, x, bt->elem, loc);
    int r = 0;
    tir_type blk = tir_t_tile(c->a, bt->elem, bt->rank, bt->shape);
    const sym_expr **sh = broadcast_shape(c, &x->type, &blk, &r);
    bool ok = sh && r == bt->rank;
    for (int i = 0; ok && i < r; i++)
        ok = sh[i] == bt->shape[i];
    if (!ok)
        cfail(c, loc, "%s has shape %s, which does not fit blocks of shape %s", what, tshape(c, &x->type),
              tshape(c, bt));
    return broadcast_to(c, x, bt->rank, bt->shape, loc);
}

static cval h_store(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname,
              ARGS("pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"), 2, &a);
    const cval *p = &a.v[0];
    if (p->kind == C_VAL && p->v->type.kind == TIR_PTR)
        reject_pointer_tiles(c, call->loc, true);
    if (p->kind == C_VAL && p->v->type.kind == TIR_DESC)
        cfail(c, call->loc, "store through a tensor descriptor with desc.store([offsets], value)");
    tir_value *bp = value_of_kind(c, &a, 0, TIR_BPTR, "the pointer");
    if (given(&a, 2))
        cfail(c, aloc(&a, 2), "tl.store through a block pointer takes boundary_check=, not mask=");
    unsigned m = boundary_mask(c, &a, 3, bp->type.rank);
    tir_value *v = store_value(c, &a.v[1], aloc(&a, 1), &bp->type, "the stored value");
    tir_value *ops[2] = {bp, v};
    tir_op *op = tir_op_build(&c->b, TIR_STORE, call->loc, ops, 2, NULL, 0);
    op->bcheck = m;
    return cv_none();
}

static cval h_make_desc(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("base", "shape", "strides", "block_shape", "padding_option"), 4, &a);
    tir_value *base = value_of_kind(c, &a, 0, TIR_PTR, "the base");
    tir_value *sh[TIR_MAX_RANK], *st[TIR_MAX_RANK];
    const sym_expr *blk[TIR_MAX_RANK];
    int r = int_tuple(c, &a.v[1], aloc(&a, 1), "the shape of tl.make_tensor_descriptor", sh);
    int rs = int_tuple(c, &a.v[2], aloc(&a, 2), "the strides of tl.make_tensor_descriptor", st);
    int rb = parse_shape(c, &a.v[3], aloc(&a, 3), "the block_shape of tl.make_tensor_descriptor", blk);
    if (rs != r || rb != r)
        cfail(c, call->loc, "tl.make_tensor_descriptor: shape, strides and block_shape must have one entry per "
                            "dimension, got %d, %d and %d",
              r, rs, rb);
    int64_t last;
    if (st[r - 1]->sym && fe_spec_eval(c->spec, st[r - 1]->sym, &last, NULL) && last != 1)
        cfail(c, aloc(&a, 2), "the last stride of a tensor descriptor must be 1, got %lld", (long long)last);
    if (given(&a, 4) && (a.v[4].kind != C_STR || strcmp(a.v[4].str, "zero")))
        cfail(c, aloc(&a, 4), "tensor descriptors in loomc kernels pad with zeros only (padding_option=\"zero\")");
    tir_value *ops[1 + 2 * TIR_MAX_RANK];
    ops[0] = base;
    for (int i = 0; i < r; i++) {
        ops[1 + i] = sh[i];
        ops[1 + r + i] = st[i];
    }
    tir_type t = tir_t_desc(c->a, base->type.elem, r, blk);
    tir_op *op = tir_op_build(&c->b, TIR_MAKE_DESC, call->loc, ops, 1 + 2 * r, &t, 1);
    op->rank = r;
    return cv_val(op->results[0]);
}

static cval desc_access(chk *c, const fe_expr *call, const cargs *a, int desc_i, int offs_i, int val_i)
{
    tir_value *d = value_of_kind(c, a, desc_i, TIR_DESC, "the descriptor");
    tir_value *ops[2 + TIR_MAX_RANK];
    bool store = val_i >= 0;
    int first = store ? 2 : 1;
    int r = int_tuple(c, &a->v[offs_i], aloc(a, offs_i), "the offsets", ops + first);
    if (r != d->type.rank)
        cfail(c, aloc(a, offs_i), "a %d-D tensor descriptor needs %d offsets, got %d", d->type.rank, d->type.rank, r);
    ops[0] = d;
    if (!store) {
        tir_type t = tir_t_tile(c->a, d->type.elem, r, d->type.shape);
        tir_op *op = tir_op_build(&c->b, TIR_DESC_LOAD, call->loc, ops, 1 + r, &t, 1);
        return cv_val(op->results[0]);
    }
    ops[1] = store_value(c, &a->v[val_i], aloc(a, val_i), &d->type, "the stored value");
    tir_op_build(&c->b, TIR_DESC_STORE, call->loc, ops, 2 + r, NULL, 0);
    return cv_none();
}

static cval h_desc_load_method(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("self", "offsets"), 2, &a);
    return desc_access(c, call, &a, 0, 1, -1);
}

static cval h_desc_store_method(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("self", "offsets", "value"), 3, &a);
    return desc_access(c, call, &a, 0, 1, 2);
}

static cval h_load_desc(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("desc", "offsets"), 2, &a);
    return desc_access(c, call, &a, 0, 1, -1);
}

static cval h_store_desc(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("desc", "offsets", "value"), 3, &a);
    return desc_access(c, call, &a, 0, 1, 2);
}

static tir_value *dot_operand(chk *c, const cargs *a, int i)
{
    const cval *v = &a->v[i];
    if (!is_tile_val(v) || v->v->type.rank != 2)
        cfail(c, aloc(a, i), "tl.dot needs 2-D operands, got %s", describe(c, v));
    if (v->v->type.elem == TIR_I1)
        cfail(c, aloc(a, i), "tl.dot does not multiply boolean tiles");
    return v->v;
}

static cval h_dot(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname,
              ARGS("input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc", "out_dtype"),
              2, &a);
    tir_value *x = dot_operand(c, &a, 0), *y = dot_operand(c, &a, 1);
    if (x->type.shape[1] != y->type.shape[0])
        cfail(c, call->loc, "tl.dot inner dimensions differ: %s x %s (the columns of the first operand must be the "
                            "rows of the second)",
              tshape(c, &x->type), tshape(c, &y->type));
    if (x->type.elem != y->type.elem)
        cfail(c, call->loc, "tl.dot operands have different element types (%s and %s); convert one with .to()",
              tir_elem_name(x->type.elem), tir_elem_name(y->type.elem));
    bool fl = tir_elem_is_float(x->type.elem);
    if (fl != tir_elem_is_float(y->type.elem))
        LM_BUG("dot operand classes differ");
    tir_elem re = fl ? TIR_F32 : TIR_I32;
    bool explicit_out = given(&a, 6);
    if (explicit_out)
        re = arg_dtype(c, &a, 6);
    if (fl != tir_elem_is_float(re))
        cfail(c, aloc(&a, 6), "out_dtype %s does not suit %s operands", tir_elem_name(re), tir_elem_name(x->type.elem));
    const sym_expr *rs[2] = {x->type.shape[0], y->type.shape[1]};
    tir_value *acc = NULL;
    if (given(&a, 2)) {
        const cval *av = &a.v[2];
        if (!is_tile_val(av) || av->v->type.rank != 2 || av->v->type.shape[0] != rs[0] || av->v->type.shape[1] != rs[1])
            cfail(c, aloc(&a, 2), "the accumulator of tl.dot must be a tile of shape %s, got %s", shape_str(c, 2, rs),
                  describe(c, av));
        acc = av->v;
        if (explicit_out && acc->type.elem != re)
            cfail(c, aloc(&a, 2), "the accumulator is %s but out_dtype is %s", tir_elem_name(acc->type.elem),
                  tir_elem_name(re));
        re = acc->type.elem;
    }
    const char *prec = NULL;
    if (given(&a, 3)) {
        if (a.v[3].kind != C_STR)
            cfail(c, aloc(&a, 3), "input_precision must be a string such as \"tf32\" or \"ieee\"");
        static const char *const ok[] = {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6", "bf16"};
        for (size_t i = 0; i < LM_COUNT(ok) && !prec; i++)
            if (!strcmp(ok[i], a.v[3].str))
                prec = ok[i];
        if (!prec)
            cfail(c, aloc(&a, 3), "unknown input_precision \"%s\"", a.v[3].str);
    }
    if (given(&a, 4)) {
        if (prec)
            cfail(c, aloc(&a, 4), "give tl.dot either input_precision= or allow_tf32=, not both");
        prec = arg_bool(c, &a, 4, true) ? "tf32" : "ieee";
    }
    if (given(&a, 5))
        arg_const(c, &a, 5, "max_num_imprecise_acc");
    tir_value *v = build1(c, TIR_DOT, call->loc, tile_t(c, re, 2, rs), x, y, acc);
    v->def->precision = prec;
    return cv_val(v);
}

static tir_value *tile_arg_ranked(chk *c, const cargs *a, int i, const char *fname)
{
    tir_value *x = arg_tile(c, a, i, "the input");
    if (x->type.rank == 0)
        cfail(c, aloc(a, i), "%s needs a tile, got %s", fname, describe(c, &a->v[i]));
    return x;
}

static tir_value *transpose(chk *c, tir_value *x, lm_loc loc, const char *what)
{
    if (x->type.kind != TIR_TILE || x->type.rank != 2)
        cfail(c, loc, "%s needs a 2-D tile, got %s", what, describe(c, &(cval){.kind = C_VAL, .v = x}));
    const sym_expr *s[2] = {x->type.shape[1], x->type.shape[0]};
    return build1(c, TIR_TRANS, loc, tile_t(c, x->type.elem, 2, s), x, NULL, NULL);
}

/* Permutation dims for trans/permute: empty, (1, 0) or (0, 1). Returns
 * whether the dims swap. */
static bool perm_dims(chk *c, const cval *v, lm_loc loc, const char *fname)
{
    if (v->kind != C_TUPLE || v->n != 2)
        cfail(c, loc, "%s: loomc supports 2-D permutations only, given as (1, 0)", fname);
    int64_t d0 = const_int_of(c, &v->items[0], loc, "a dimension"), d1 = const_int_of(c, &v->items[1], loc, "a dimension");
    if (d0 == 1 && d1 == 0)
        return true;
    if (d0 == 0 && d1 == 1)
        return false;
    cfail(c, loc, "%s: (%lld, %lld) is not a permutation of the two dimensions", fname, (long long)d0, (long long)d1);
}

static cval h_trans(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "*dims"), 1, &a);
    tir_value *x = tile_arg_ranked(c, &a, 0, fname);
    if (given(&a, 1) && (a.v[1].kind != C_TUPLE || a.v[1].n > 0)) {
        if (x->type.rank != 2)
            cfail(c, aloc(&a, 0), "%s needs a 2-D tile, got %s", fname, describe(c, &a.v[0]));
        if (!perm_dims(c, &a.v[1], aloc(&a, 1), fname))
            return cv_val(x);
    }
    return cv_val(transpose(c, x, call->loc, fname));
}

static cval h_permute(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "*dims"), 2, &a);
    tir_value *x = tile_arg_ranked(c, &a, 0, fname);
    if (x->type.rank != 2)
        cfail(c, aloc(&a, 0), "%s needs a 2-D tile, got %s", fname, describe(c, &a.v[0]));
    if (!perm_dims(c, &a.v[1], aloc(&a, 1), fname))
        return cv_val(x);
    return cv_val(transpose(c, x, call->loc, fname));
}

static cval h_reshape(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "*shape", "can_reorder"), 2, &a);
    tir_value *x = tile_arg_ranked(c, &a, 0, fname);
    const sym_expr *dims[TIR_MAX_RANK];
    int r = parse_shape(c, &a.v[1], aloc(&a, 1), "the new shape", dims);
    /* only dimensions of size 1 may come or go: anything else would move
       elements between the rows and columns a block is stored in */
    int i = 0, j = 0;
    bool ok = true;
    while (ok) {
        while (i < x->type.rank && is_one(x->type.shape[i]))
            i++;
        while (j < r && is_one(dims[j]))
            j++;
        if (i == x->type.rank || j == r) {
            ok = i == x->type.rank && j == r;
            break;
        }
        ok = x->type.shape[i++] == dims[j++];
    }
    if (!ok)
        cfail(c, call->loc, "%s from %s to %s is not supported: loomc reshapes only by adding or removing "
                            "dimensions of size 1",
              fname, tshape(c, &x->type), shape_str(c, r, dims));
    if (r == x->type.rank && tir_shape_eq(&x->type, &(tir_type){TIR_TILE, x->type.elem, r, dims}))
        return cv_val(x);
    return cv_val(build1(c, TIR_VIEW, call->loc, tile_t(c, x->type.elem, r, dims), x, NULL, NULL));
}

static tir_value *expand_dims(chk *c, tir_value *x, int64_t axis, lm_loc loc)
{
    int r = x->type.rank;
    if (axis < 0)
        axis += r + 1;
    if (axis < 0 || axis > r)
        cfail(c, loc, "axis %lld is out of range for expanding a %d-D tile", (long long)axis, r);
    if (r + 1 > TIR_MAX_RANK)
        cfail(c, loc, "tiles have at most %d dimensions", TIR_MAX_RANK);
    const sym_expr *s[TIR_MAX_RANK];
    for (int i = 0, j = 0; i <= r; i++)
        s[i] = i == axis ? sym_const(c->s, 1) : x->type.shape[j++];
    tir_value *v = build1(c, TIR_EXPAND_DIMS, loc, tile_t(c, x->type.elem, r + 1, s), x, NULL, NULL);
    v->def->ival = axis;
    return v;
}

static cval h_expand_dims(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "axis"), 2, &a);
    tir_value *x = arg_tile(c, &a, 0, "the input");
    const cval *ax = &a.v[1];
    if (ax->kind == C_TUPLE) {
        for (int i = 0; i < ax->n; i++)
            x = expand_dims(c, x, const_int_of(c, &ax->items[i], aloc(&a, 1), "an axis"), aloc(&a, 1));
        return cv_val(x);
    }
    return cv_val(expand_dims(c, x, arg_const(c, &a, 1, "the axis"), aloc(&a, 1)));
}

static cval h_broadcast_to(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "*shape"), 2, &a);
    tir_value *x = arg_tile(c, &a, 0, "the input");
    const sym_expr *dims[TIR_MAX_RANK];
    int r = parse_shape(c, &a.v[1], aloc(&a, 1), "the shape", dims);
    tir_type want = tile_t(c, x->type.elem, r, dims);
    int rr = 0;
    const sym_expr **sh = broadcast_shape(c, &x->type, &want, &rr);
    bool ok = sh && rr == r;
    for (int i = 0; ok && i < r; i++)
        ok = sh[i] == dims[i];
    if (!ok)
        cfail(c, call->loc, "cannot broadcast a tile of shape %s to %s", tshape(c, &x->type), shape_str(c, r, dims));
    return cv_val(broadcast_to(c, x, r, dims, call->loc));
}

static cval h_where(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("condition", "x", "y"), 3, &a);
    bool t;
    if (!is_tile_val(&a.v[0]) && truth_known(c, &a.v[0], &t) && !is_tile_val(&a.v[1]) && !is_tile_val(&a.v[2]))
        return t ? a.v[1] : a.v[2];
    tir_value *cond = to_bool(c, arg_tile(c, &a, 0, "the condition"), aloc(&a, 0));
    const cval *x = &a.v[1], *y = &a.v[2];
    for (int k = 1; k <= 2; k++)
        if (!is_number(&a.v[k]) && !is_tile_val(&a.v[k]))
            cfail(c, aloc(&a, k), "the values of tl.where must be tiles or numbers, got %s", describe(c, &a.v[k]));
    tir_elem e;
    if (x->kind == C_VAL && y->kind == C_VAL)
        e = promote(x->v->type.elem, y->v->type.elem);
    else if (x->kind == C_VAL)
        e = weak_elem(y, x->v->type.elem);
    else if (y->kind == C_VAL)
        e = weak_elem(x, y->v->type.elem);
    else
        e = promote(natural_elem(x), natural_elem(y));
    tir_value *vx = x->kind == C_VAL ? cast_to(c, x->v, e, aloc(&a, 1)) : materialise(c, x, e, aloc(&a, 1));
    tir_value *vy = y->kind == C_VAL ? cast_to(c, y->v, e, aloc(&a, 2)) : materialise(c, y, e, aloc(&a, 2));
    int r1 = 0, r2 = 0;
    const sym_expr **s1 = broadcast_shape(c, &vx->type, &vy->type, &r1);
    tir_type t1 = s1 ? tile_t(c, e, r1, s1) : vx->type;
    const sym_expr **s2 = s1 ? broadcast_shape(c, &cond->type, &t1, &r2) : NULL;
    if (!s2)
        cfail(c, call->loc, "shape mismatch in tl.where: condition %s, values %s and %s cannot be broadcast to one "
                            "shape",
              tshape(c, &cond->type), tshape(c, &vx->type), tshape(c, &vy->type));
    cond = broadcast_to(c, cond, r2, s2, call->loc);
    vx = broadcast_to(c, vx, r2, s2, call->loc);
    vy = broadcast_to(c, vy, r2, s2, call->loc);
    return cv_val(build1(c, TIR_WHERE, call->loc, vx->type, cond, vx, vy));
}

static cval minmax2(chk *c, bool is_max, cval x, cval y, lm_loc loc)
{
    if (x.kind == C_INT && y.kind == C_INT)
        return cv_int(is_max ? sym_max(c->s, x.i, y.i) : sym_min(c->s, x.i, y.i));
    if (is_number(&x) && is_number(&y)) {
        cval r;
        const char *dep;
        if (fold_binop(c, is_max ? ">" : "<", &x, &y, loc, &r, &dep)) {
            int64_t k = 0;
            sym_is_const(r.i, &k);
            return k ? x : y;
        }
    }
    return binop(c, is_max ? "max" : "min", x, y, loc);
}

static cval h_maxmin_elem(chk *c, const fe_expr *call, const cval *self, const char *fname, bool is_max)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("x", "y", "propagate_nan"), 2, &a);
    for (int k = 0; k < 2; k++)
        if (!is_number(&a.v[k]) && !is_tile_val(&a.v[k]))
            cfail(c, aloc(&a, k), "%s needs tiles or numbers, got %s", fname, describe(c, &a.v[k]));
    return minmax2(c, is_max, a.v[0], a.v[1], call->loc);
}

static cval h_maximum(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return h_maxmin_elem(c, call, self, fname, true);
}

static cval h_minimum(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return h_maxmin_elem(c, call, self, fname, false);
}

static cval unary_math(chk *c, const fe_expr *call, const cval *self, const char *fname, tir_opcode code)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("x"), 1, &a);
    tir_value *x = arg_tile(c, &a, 0, "the operand");
    if (tir_op_has(code, TIR_P_FLOATONLY) && !tir_elem_is_float(x->type.elem))
        cfail(c, aloc(&a, 0), "%s needs a floating-point operand, got %s elements; convert it with .to(tl.float32)",
              fname, tir_elem_name(x->type.elem));
    if (code == TIR_ABS && x->type.elem == TIR_I1)
        return cv_val(x);
    return cv_val(build1(c, code, call->loc, x->type, x, NULL, NULL));
}

#define UNARY(name, code)                                                                   \
    static cval h_##name(chk *c, const fe_expr *call, const cval *self, const char *fname) \
    {                                                                                       \
        return unary_math(c, call, self, fname, code);                                      \
    }
UNARY(exp, TIR_EXP)
UNARY(exp2, TIR_EXP2)
UNARY(log, TIR_LOG)
UNARY(log2, TIR_LOG2)
UNARY(sqrt, TIR_SQRT)
UNARY(rsqrt, TIR_RSQRT)
UNARY(abs, TIR_ABS)
#undef UNARY

static tir_value *reduce1(chk *c, tir_value *x, tir_opcode code, int axis, bool keep, lm_loc loc)
{
    const tir_type *in = &x->type;
    const sym_expr *s[TIR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < in->rank; i++) {
        if (i != axis)
            s[r++] = in->shape[i];
        else if (keep)
            s[r++] = sym_const(c->s, 1);
    }
    tir_elem e = in->elem;
    if (code == TIR_REDUCE_SUM && e == TIR_I1)
        e = TIR_I32;
    tir_value *v = build1(c, code, loc, tile_t(c, e, r, s), x, NULL, NULL);
    v->def->ival = axis;
    v->def->keep_dims = keep;
    return v;
}

static cval reduction(chk *c, const fe_expr *call, const cval *self, const char *fname, tir_opcode code)
{
    cargs a;
    if (code == TIR_REDUCE_SUM)
        bind_args(c, call, self, fname, ARGS("input", "axis", "keep_dims", "dtype"), 1, &a);
    else
        bind_args(c, call, self, fname,
                  ARGS("input", "axis", "return_indices", "return_indices_tie_break_left", "keep_dims"), 1, &a);
    int keep_i = code == TIR_REDUCE_SUM ? 2 : 4;
    tir_value *x = tile_arg_ranked(c, &a, 0, fname);
    if (code != TIR_REDUCE_SUM && arg_bool(c, &a, 2, false))
        cfail(c, aloc(&a, 2), "%s(..., return_indices=True) is not supported in loomc kernels", fname);
    bool keep = arg_bool(c, &a, keep_i, false);
    if (code == TIR_REDUCE_SUM && given(&a, 3))
        x = cast_to(c, x, arg_dtype(c, &a, 3), aloc(&a, 3));
    if (!given(&a, 1)) {
        /* all axes */
        int r = x->type.rank;
        for (int i = 0; i < r; i++)
            x = reduce1(c, x, code, keep ? i : 0, keep, call->loc);
        return cv_val(x);
    }
    int64_t ax = arg_const(c, &a, 1, "the axis");
    int r = x->type.rank;
    if (ax < 0)
        ax += r;
    if (ax < 0 || ax >= r)
        cfail(c, aloc(&a, 1), "%s: axis %lld is out of range for %s", fname, (long long)arg_const(c, &a, 1, "the axis"),
              describe(c, &a.v[0]));
    return cv_val(reduce1(c, x, code, (int)ax, keep, call->loc));
}

static cval h_max(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return reduction(c, call, self, fname, TIR_REDUCE_MAX);
}
static cval h_min(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return reduction(c, call, self, fname, TIR_REDUCE_MIN);
}
static cval h_sum(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    return reduction(c, call, self, fname, TIR_REDUCE_SUM);
}

static cval h_cdiv(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("x", "div"), 2, &a);
    const cval *x = &a.v[0], *y = &a.v[1];
    if (x->kind == C_INT && y->kind == C_INT) {
        int64_t z;
        if (sym_is_const(y->i, &z) && z == 0)
            cfail(c, aloc(&a, 1), "division by zero in %s", fname);
        return cv_int(sym_cdiv(c->s, x->i, y->i));
    }
    tir_value *vx = int_scalar(c, x, aloc(&a, 0), lm_arena_printf(c->a, "the dividend of %s", fname));
    tir_value *vy = int_scalar(c, y, aloc(&a, 1), lm_arena_printf(c->a, "the divisor of %s", fname));
    tir_elem e = promote(vx->type.elem, vy->type.elem);
    vx = cast_to(c, vx, e, call->loc);
    vy = cast_to(c, vy, e, call->loc);
    return cv_val(build1(c, TIR_CDIV, call->loc, tir_t_scalar(e), vx, vy, NULL));
}

static cval h_static_assert(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("cond", "msg"), 1, &a);
    bool t;
    if (!truth_known(c, &a.v[0], &t)) {
        const char *dep = a.v[0].kind == C_INT ? ct_unbound(c, a.v[0].i) : a.v[0].free_dep;
        if (dep)
            cfail(c, aloc(&a, 0), "the condition of %s depends on free constexpr '%s', which the solver chooses; "
                                  "pin it with --const %s=VALUE",
                  fname, dep, dep);
        cfail(c, aloc(&a, 0), "the condition of %s must be known at compile time", fname);
    }
    if (!t) {
        const char *msg = given(&a, 1) && a.v[1].kind == C_STR ? a.v[1].str : "";
        cfail(c, call->loc, "static assertion failed%s%s", msg[0] ? ": " : "", msg);
    }
    return cv_none();
}

static cval h_constexpr(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("value"), 1, &a);
    if (a.v[0].kind == C_VAL)
        cfail(c, aloc(&a, 0), "tl.constexpr needs a compile-time value, got %s", describe(c, &a.v[0]));
    return a.v[0];
}

static cval convert(chk *c, const cval *x, lm_loc xloc, tir_elem e, lm_loc loc)
{
    if (x->kind == C_INT || x->kind == C_FLOAT) {
        tir_value *v = materialise(c, x, natural_elem(x), xloc);
        return cv_val(cast_to(c, v, e, loc));
    }
    if (!is_tile_val(x))
        cfail(c, xloc, "only tiles and scalars can be converted, got %s", describe(c, x));
    return cv_val(cast_to(c, x->v, e, loc));
}

static cval h_to(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "dtype", "fp_downcast_rounding", "bitcast"), 2, &a);
    if (arg_bool(c, &a, 3, false))
        cfail(c, aloc(&a, 3), "bitcasts are not supported in loomc kernels");
    if (given(&a, 2) && (a.v[2].kind != C_STR || strcmp(a.v[2].str, "rtne")))
        cfail(c, aloc(&a, 2), "only round-to-nearest-even (\"rtne\") conversions are supported");
    return convert(c, &a.v[0], aloc(&a, 0), arg_dtype(c, &a, 1), call->loc);
}

static cval h_hint(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    /* multiple_of / max_contiguous / max_constancy: facts about pointer
       tiles, which loomc kernels do not have; the value passes through */
    cargs a;
    bind_args(c, call, self, fname, ARGS("input", "values"), 2, &a);
    return a.v[0];
}

static cval h_fma(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cargs a;
    bind_args(c, call, self, fname, ARGS("x", "y", "z"), 3, &a);
    cval p = binop(c, "*", a.v[0], a.v[1], call->loc);
    return binop(c, "+", p, a.v[2], call->loc);
}

static cval h_range_outside(chk *c, const fe_expr *call, const cval *self, const char *fname)
{
    cfail(c, call->loc, "%s() is only supported as the iterable of a for loop", fname);
}

typedef struct tl_fn {
    const char *name;
    handler fn;
} tl_fn;

static const tl_fn tl_fns[] = {
    {"program_id", h_program_id},
    {"num_programs", h_num_programs},
    {"arange", h_arange},
    {"zeros", h_zeros},
    {"zeros_like", h_zeros_like},
    {"full", h_full},
    {"make_block_ptr", h_make_block_ptr},
    {"advance", h_advance},
    {"load", h_load},
    {"store", h_store},
    {"make_tensor_descriptor", h_make_desc},
    {"load_tensor_descriptor", h_load_desc},
    {"store_tensor_descriptor", h_store_desc},
    {"dot", h_dot},
    {"trans", h_trans},
    {"permute", h_permute},
    {"reshape", h_reshape},
    {"view", h_reshape},
    {"expand_dims", h_expand_dims},
    {"broadcast_to", h_broadcast_to},
    {"where", h_where},
    {"maximum", h_maximum},
    {"minimum", h_minimum},
    {"exp", h_exp},
    {"exp2", h_exp2},
    {"log", h_log},
    {"log2", h_log2},
    {"sqrt", h_sqrt},
    {"rsqrt", h_rsqrt},
    {"abs", h_abs},
    {"max", h_max},
    {"min", h_min},
    {"sum", h_sum},
    {"cdiv", h_cdiv},
    {"static_assert", h_static_assert},
    {"constexpr", h_constexpr},
    {"cast", h_to},
    {"multiple_of", h_hint},
    {"max_contiguous", h_hint},
    {"max_constancy", h_hint},
    {"fma", h_fma},
    {"range", h_range_outside},
    {"static_range", h_range_outside},
};

/* Triton functions loomc knows about but does not compile; they get a
 * "not supported" rather than an "unknown function". */
static const char *const tl_unsupported[] = {
    "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min", "atomic_or", "atomic_xchg",
    "atomic_xor", "device_print", "device_assert", "static_print", "argmax", "argmin", "cumsum", "cumprod",
    "sort", "histogram", "associative_scan", "reduce", "rand", "randn", "randint", "randint4x", "rand4x",
    "inline_asm_elementwise", "debug_barrier", "join", "split", "interleave", "dot_scaled", "gather", "flip",
    "ravel", "xor_sum", "umulhi", "sin", "cos", "floor", "ceil", "erf", "fdiv", "div_rn", "sqrt_rn", "log1p",
    "clamp", "softmax", "sigmoid", "swizzle2d", "map_elementwise", "full_like", "topk", "assume",
    "make_tensor_descriptor_from_tensor", "cat", "split_dim", "tensor", "pointer_type", "block_type",
};

/* Methods of tiles that are the tl.* function of the same name. */
static const char *const tile_methods[] = {"to", "trans", "permute", "reshape", "view", "expand_dims",
                                           "broadcast_to", "sum", "max", "min", "exp", "exp2", "log", "log2",
                                           "sqrt", "rsqrt", "abs", "cast"};

static handler find_tl(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(tl_fns); i++)
        if (!strcmp(tl_fns[i].name, name))
            return tl_fns[i].fn;
    return NULL;
}

/* ======================================================================
 * expressions
 * ==================================================================== */

/* The dotted import path an expression stands for, unless its first name is
 * a variable of the kernel (which shadows the import). */
static const char *qual_of(chk *c, const fe_expr *e)
{
    const fe_expr *base = e;
    while (base->kind == FE_E_ATTR)
        base = base->a;
    if (base->kind != FE_E_NAME || env_find(c, base->name))
        return NULL;
    return fe_qualname(c->nm, e, c->a);
}

static const char *const builtins[] = {"range", "min", "max", "float", "int", "abs", "len", "print", "bool"};

static bool is_builtin(const char *name)
{
    for (size_t i = 0; i < LM_COUNT(builtins); i++)
        if (!strcmp(builtins[i], name))
            return true;
    return false;
}

/* A module-level constant: a literal, or tl.constexpr(literal). */
static cval eval_global(chk *c, const fe_global *g, lm_loc use)
{
    const fe_expr *e = g->value;
    if (e->kind == FE_E_CALL && e->nitems == 1 && e->nkws == 0) {
        const char *q = fe_qualname(c->nm, e->a, c->a);
        if (q && !strcmp(q, "triton.language.constexpr"))
            e = e->items[0];
    }
    bool neg = false;
    if (e->kind == FE_E_UNOP && !strcmp(e->op, "-")) {
        neg = true;
        e = e->a;
    }
    switch (e->kind) {
    case FE_E_INT: return cv_int(sym_const(c->s, neg ? -e->ival : e->ival));
    case FE_E_FLOAT: return (cval){.kind = C_FLOAT, .f = neg ? -e->fval : e->fval};
    case FE_E_BOOL:
        if (!neg)
            return cv_bool(c, e->ival != 0);
        break;
    case FE_E_STR:
        if (!neg)
            return (cval){.kind = C_STR, .str = e->str};
        break;
    default: break;
    }
    cfail(c, use, "global '%s' (line %d) is not a constant; kernels can read module-level integers, floats, bools "
                  "and strings (optionally wrapped in tl.constexpr)",
          g->name, g->loc.line);
}

static cval eval_name(chk *c, const fe_expr *e)
{
    binding *b = env_find(c, e->name);
    if (b)
        return b->v;
    const fe_global *g = fe_find_global(c->nm, e->name);
    if (g)
        return eval_global(c, g, e->loc);
    if (fe_qualname(c->nm, e, c->a))
        cfail(c, e->loc, "module '%s' cannot be used as a value", e->name);
    if (fe_find_func(c->nm, e->name))
        cfail(c, e->loc, "function '%s' cannot be used as a value", e->name);
    if (is_builtin(e->name))
        cfail(c, e->loc, "builtin '%s' cannot be used as a value", e->name);
    for (int i = c->ngone - 1; i >= 0; i--)
        if (!strcmp(c->gone[i].name, e->name))
            cfail(c, e->loc, "name '%s' is not defined here: it is assigned only inside the loop on line %d; assign "
                             "it before the loop to use it after",
                  e->name, c->gone[i].line);
    cfail(c, e->loc, "name '%s' is not defined", e->name);
}

static cval dtype_val(tir_elem e, bool ptr) { return (cval){.kind = C_DTYPE, .dtype = e, .ptr_dtype = ptr}; }

static cval eval_attr(chk *c, const fe_expr *e)
{
    const char *q = qual_of(c, e);
    if (q) {
        tir_elem el;
        int k = fe_dtype(q, &el);
        if (k == 1)
            return dtype_val(el, false);
        if (k < 0)
            cfail(c, e->loc, "dtype %s is not supported in loomc kernels (supported: tl.float32, tl.float16, "
                             "tl.bfloat16, tl.int32, tl.int64, tl.int1)",
                  pretty(c, q));
        if (!strcmp(q, "math.inf"))
            return (cval){.kind = C_FLOAT, .f = INFINITY};
        if (!strcmp(q, "math.pi"))
            return (cval){.kind = C_FLOAT, .f = 3.14159265358979323846};
        if (!strcmp(q, "math.e"))
            return (cval){.kind = C_FLOAT, .f = 2.71828182845904523536};
        cfail(c, e->loc, "%s cannot be used as a value here", pretty(c, q));
    }
    cval obj = eval(c, e->a);
    const char *n = e->name;
    if (obj.kind == C_DTYPE) {
        if (obj.ptr_dtype && !strcmp(n, "element_ty"))
            return dtype_val(obj.dtype, false);
        cfail(c, e->loc, "attribute '%s' of a dtype is not supported", n);
    }
    if (obj.kind == C_VAL) {
        const tir_type *t = &obj.v->type;
        if (t->kind == TIR_TILE) {
            if (!strcmp(n, "T"))
                return cv_val(transpose(c, obj.v, e->loc, "'.T'"));
            if (!strcmp(n, "shape"))
                return tuple_of_syms(c, t->rank, t->shape);
            if (!strcmp(n, "dtype"))
                return dtype_val(t->elem, false);
            if (!strcmp(n, "ndim"))
                return cv_int(sym_const(c->s, t->rank));
        } else if (t->kind == TIR_PTR) {
            if (!strcmp(n, "dtype") || !strcmp(n, "type"))
                return dtype_val(t->elem, true);
        } else {
            if (!strcmp(n, "dtype"))
                return dtype_val(t->elem, false);
            if (!strcmp(n, "block_shape"))
                return tuple_of_syms(c, t->rank, t->shape);
        }
    }
    cfail(c, e->loc, "attribute '%s' of %s is not supported in loomc kernels", n, describe(c, &obj));
}

static cval eval_subscript(chk *c, const fe_expr *e)
{
    cval obj = eval(c, e->a);
    if (obj.kind == C_TUPLE) {
        if (e->nitems != 1 || e->items[0]->kind == FE_E_SLICE)
            cfail(c, e->loc, "a tuple can only be indexed with one integer");
        cval iv = eval(c, e->items[0]);
        int64_t i = const_int_of(c, &iv, e->items[0]->loc, "a tuple index");
        if (i < 0)
            i += obj.n;
        if (i < 0 || i >= obj.n)
            cfail(c, e->items[0]->loc, "index %lld is out of range for a tuple of %d items",
                  (long long)const_int_of(c, &iv, e->items[0]->loc, "a tuple index"), obj.n);
        return obj.items[i];
    }
    if (!is_tile_val(&obj))
        cfail(c, e->loc, "%s cannot be indexed", describe(c, &obj));
    tir_value *v = obj.v;
    int rank = v->type.rank, consumed = 0, pos = 0;
    for (int k = 0; k < e->nitems; k++) {
        const fe_expr *it = e->items[k];
        if (it->kind == FE_E_NONE) {
            v = expand_dims(c, v, pos, it->loc);
            pos++;
        } else if (it->kind == FE_E_SLICE && !it->a && !it->b && !it->c) {
            if (consumed == rank)
                cfail(c, it->loc, "too many ':' for %s", describe(c, &obj));
            consumed++;
            pos++;
        } else if (it->kind == FE_E_SLICE) {
            cfail(c, it->loc, "slicing a tile with bounds is not supported in loomc kernels; tiles are indexed only "
                              "with ':' and None");
        } else {
            cfail(c, it->loc, "indexing a tile with %s is not supported in loomc kernels; tiles are indexed only "
                              "with ':' and None (x[:, None], x[None, :])",
                  it->kind == FE_E_ELLIPSIS ? "'...'" : "a value");
        }
    }
    return cv_val(v);
}

static cval builtin_call(chk *c, const fe_expr *e, const char *name)
{
    lm_loc loc = e->loc;
    if (!strcmp(name, "range"))
        cfail(c, loc, "range() is only supported as the iterable of a for loop");
    if (!strcmp(name, "print"))
        cfail(c, loc, "print() is not supported in loomc kernels");
    if (e->nkws)
        cfail(c, e->kws[0].loc, "%s() takes no keyword arguments here", name);
    cval args[MAX_ARGS];
    if (e->nitems > MAX_ARGS)
        cfail(c, loc, "too many arguments to %s()", name);
    for (int i = 0; i < e->nitems; i++)
        args[i] = eval(c, e->items[i]);
    if (!strcmp(name, "min") || !strcmp(name, "max")) {
        if (e->nitems < 2)
            cfail(c, loc, "%s() needs at least two arguments", name);
        cval r = args[0];
        for (int i = 1; i < e->nitems; i++) {
            for (int k = 0; k < 2; k++) {
                const cval *v = k ? &args[i] : &r;
                if (!is_number(v) && !is_tile_val(v))
                    cfail(c, e->items[k ? i : 0]->loc, "%s() needs numbers or scalars, got %s", name, describe(c, v));
            }
            r = minmax2(c, !strcmp(name, "max"), r, args[i], loc);
        }
        return r;
    }
    if (e->nitems != 1)
        cfail(c, loc, "%s() takes one argument", name);
    cval x = args[0];
    lm_loc xl = e->items[0]->loc;
    if (!strcmp(name, "float")) {
        if (x.kind == C_STR) {
            const char *s = x.str;
            double f;
            if (!strcmp(s, "inf") || !strcmp(s, "+inf"))
                f = INFINITY;
            else if (!strcmp(s, "-inf"))
                f = -INFINITY;
            else if (!strcmp(s, "nan"))
                f = NAN;
            else {
                char *end;
                f = strtod(s, &end);
                if (!*s || *end)
                    cfail(c, xl, "float() of \"%s\" is not a number", s);
            }
            return (cval){.kind = C_FLOAT, .f = f};
        }
        if (x.kind == C_FLOAT)
            return x;
        if (x.kind == C_INT)
            return (cval){.kind = C_FLOAT, .f = (double)ct_need(c, x.i, xl, "the argument of float()")};
        return convert(c, &x, xl, TIR_F32, loc);
    }
    if (!strcmp(name, "int")) {
        if (x.kind == C_INT)
            return cv_int(x.i);
        if (x.kind == C_FLOAT) {
            if (!(fabs(x.f) < 9e18))
                cfail(c, xl, "int() of %g is out of range", x.f);
            return cv_int(sym_const(c->s, (int64_t)x.f));
        }
        return convert(c, &x, xl, TIR_I32, loc);
    }
    if (!strcmp(name, "bool")) {
        bool t;
        if (truth_known(c, &x, &t))
            return cv_bool(c, t);
        return cv_val(to_bool(c, as_tile(c, &x, xl, "the argument of bool()"), loc));
    }
    if (!strcmp(name, "abs")) {
        if (x.kind == C_FLOAT)
            return (cval){.kind = C_FLOAT, .f = fabs(x.f)};
        if (x.kind == C_INT)
            return cv_int(sym_max(c->s, x.i, sym_neg(c->s, x.i)));
        tir_value *v = as_tile(c, &x, xl, "the argument of abs()");
        return cv_val(build1(c, TIR_ABS, loc, v->type, v, NULL, NULL));
    }
    if (!strcmp(name, "len")) {
        if (x.kind == C_TUPLE)
            return cv_int(sym_const(c->s, x.n));
        if (is_tile_val(&x) && x.v->type.rank > 0)
            return cv_int(x.v->type.shape[0]);
        cfail(c, xl, "len() of %s is not supported", describe(c, &x));
    }
    LM_BUG("builtin %s has no implementation", name);
}

static cval math_call(chk *c, const fe_expr *e, const char *q)
{
    const char *n = q + 5;
    static const char *const fns[] = {"log2", "log", "exp", "exp2", "sqrt"};
    bool known = false;
    for (size_t i = 0; i < LM_COUNT(fns); i++)
        known |= !strcmp(fns[i], n);
    if (!known)
        cfail(c, e->loc, "%s is not supported in loomc kernels", q);
    if (e->nitems != 1 || e->nkws)
        cfail(c, e->loc, "%s() takes one argument", q);
    cval x = eval(c, e->items[0]);
    double v;
    if (x.kind == C_FLOAT)
        v = x.f;
    else if (x.kind == C_INT)
        v = (double)ct_need(c, x.i, e->items[0]->loc, "the argument of a math function");
    else
        cfail(c, e->items[0]->loc, "%s() works on compile-time numbers; use tl.%s on tiles", q, n);
    double r = !strcmp(n, "log2") ? log2(v) : !strcmp(n, "log") ? log(v) : !strcmp(n, "exp") ? exp(v)
             : !strcmp(n, "exp2") ? exp2(v) : sqrt(v);
    if (isnan(r) && !isnan(v))
        cfail(c, e->loc, "%s(%g) is not a number", q, v);
    return (cval){.kind = C_FLOAT, .f = r};
}

static cval call_qual(chk *c, const fe_expr *e, const char *q)
{
    static const char tl[] = "triton.language.";
    const char *name = NULL;
    if (!strncmp(q, tl, sizeof tl - 1)) {
        name = q + sizeof tl - 1;
        if (!strncmp(name, "math.", 5) && !strchr(name + 5, '.'))
            name += 5;
    } else if (!strcmp(q, "triton.cdiv")) {
        name = "cdiv";
    } else if (!strncmp(q, "math.", 5)) {
        return math_call(c, e, q);
    } else if (!strcmp(q, "triton.jit") || !strncmp(q, "triton.", 7)) {
        cfail(c, e->loc, "%s is not supported inside loomc kernels", q);
    } else {
        cfail(c, e->loc, "calls to %s are not supported in loomc kernels", q);
    }
    const char *fname = pretty(c, q);
    if (strchr(name, '.'))
        cfail(c, e->loc, "%s is not supported in loomc kernels", fname);
    handler h = find_tl(name);
    if (h)
        return h(c, e, NULL, fname);
    for (size_t i = 0; i < LM_COUNT(tl_unsupported); i++)
        if (!strcmp(tl_unsupported[i], name))
            cfail(c, e->loc, "%s is not supported in loomc kernels", fname);
    tir_elem el;
    if (fe_dtype(q, &el))
        cfail(c, e->loc, "%s is a dtype, not a function; convert values with x.to(%s)", fname, fname);
    cfail(c, e->loc, "unknown function %s", fname);
}

static cval call_method(chk *c, const fe_expr *e, const cval *obj)
{
    const fe_expr *f = e->a;
    const char *n = f->name;
    const char *oname = f->a->kind == FE_E_NAME ? f->a->name : "x";
    const char *fname = lm_arena_printf(c->a, "%s.%s", oname, n);
    if (obj->kind == C_VAL && obj->v->type.kind == TIR_DESC) {
        if (!strcmp(n, "load"))
            return h_desc_load_method(c, e, obj, fname);
        if (!strcmp(n, "store"))
            return h_desc_store_method(c, e, obj, fname);
    }
    if (is_tile_val(obj)) {
        for (size_t i = 0; i < LM_COUNT(tile_methods); i++)
            if (!strcmp(tile_methods[i], n))
                return (!strcmp(n, "to") ? h_to : find_tl(n))(c, e, obj, fname);
    }
    if (obj->kind == C_VAL && obj->v->type.kind == TIR_BPTR && (!strcmp(n, "load") || !strcmp(n, "store")))
        cfail(c, f->loc, "block pointers have no methods; use tl.%s(%s, ...)", n, oname);
    cfail(c, f->loc, "method '%s' of %s is not supported in loomc kernels", n, describe(c, obj));
}

static cval eval_call(chk *c, const fe_expr *e)
{
    const fe_expr *f = e->a;
    const char *q = qual_of(c, f);
    if (q)
        return call_qual(c, e, q);
    if (f->kind == FE_E_ATTR) {
        cval obj = eval(c, f->a);
        return call_method(c, e, &obj);
    }
    if (f->kind == FE_E_NAME) {
        binding *b = env_find(c, f->name);
        if (b)
            cfail(c, f->loc, "'%s' is %s, which cannot be called", f->name, describe(c, &b->v));
        if (is_builtin(f->name))
            return builtin_call(c, e, f->name);
        const fe_func *fn = fe_find_func(c->nm, f->name);
        if (fn)
            cfail(c, e->loc, "calls to other functions are not supported in loomc kernels ('%s' calls '%s'; "
                             "write its body into the kernel)",
                  c->k->name, f->name);
        cfail(c, f->loc, "name '%s' is not defined", f->name);
    }
    cfail(c, e->loc, "this call is not supported in loomc kernels");
}

static cval eval_boolop(chk *c, const fe_expr *e)
{
    bool is_and = !strcmp(e->op, "and");
    cval x = eval(c, e->a);
    bool t;
    if (truth_known(c, &x, &t)) {
        if (is_and ? !t : t)
            return x;
        return eval(c, e->b);
    }
    cval y = eval(c, e->b);
    if (truth_known(c, &y, &t) && !is_tile_val(&x)) {
        /* a symbolic left side and a known right side */
        if (is_and ? !t : t)
            return y;
    }
    tir_value *vx = to_bool(c, as_tile(c, &x, e->a->loc, lm_arena_printf(c->a, "the operand of '%s'", e->op)), e->loc);
    tir_value *vy = to_bool(c, as_tile(c, &y, e->b->loc, lm_arena_printf(c->a, "the operand of '%s'", e->op)), e->loc);
    broadcast_pair(c, &vx, &vy, e->loc, lm_arena_printf(c->a, "'%s'", e->op));
    cval r = cv_val(build1(c, is_and ? TIR_AND : TIR_OR, e->loc, vx->type, vx, vy, NULL));
    r.free_dep = x.free_dep ? x.free_dep : y.free_dep;
    if (!r.free_dep && x.kind == C_INT)
        r.free_dep = ct_unbound(c, x.i);
    return r;
}

static LM_NORETURN void runtime_condition(chk *c, const cval *v, lm_loc loc, const char *what)
{
    const char *dep = v->kind == C_INT ? ct_unbound(c, v->i) : v->free_dep;
    if (dep)
        cfail(c, loc, "%s depends on free constexpr '%s', which the solver chooses; loomc decides conditions at "
                      "compile time (pin it with --const %s=VALUE, or use tl.where)",
              what, dep, dep);
    cfail(c, loc, "%s is %s, known only at run time; loomc kernels branch only on compile-time conditions "
                  "(tl.constexpr); use tl.where to choose between values",
          what, describe(c, v));
}

static cval eval(chk *c, const fe_expr *e)
{
    switch (e->kind) {
    case FE_E_INT: return cv_int(sym_const(c->s, e->ival));
    case FE_E_FLOAT: return (cval){.kind = C_FLOAT, .f = e->fval};
    case FE_E_STR: return (cval){.kind = C_STR, .str = e->str};
    case FE_E_BOOL: return cv_bool(c, e->ival != 0);
    case FE_E_NONE: return cv_none();
    case FE_E_NAME: return eval_name(c, e);
    case FE_E_ATTR: return eval_attr(c, e);
    case FE_E_CALL: return eval_call(c, e);
    case FE_E_SUBSCRIPT: return eval_subscript(c, e);
    case FE_E_TUPLE:
    case FE_E_LIST: {
        cval t = {.kind = C_TUPLE, .n = e->nitems};
        t.items = LM_NEWN(c->a, cval, e->nitems ? e->nitems : 1);
        for (int i = 0; i < e->nitems; i++)
            t.items[i] = eval(c, e->items[i]);
        return t;
    }
    case FE_E_BINOP:
    case FE_E_COMPARE: {
        cval x = eval(c, e->a);
        cval y = eval(c, e->b);
        return binop(c, e->op, x, y, e->loc);
    }
    case FE_E_BOOLOP: return eval_boolop(c, e);
    case FE_E_UNOP: return unop(c, e->op, eval(c, e->a), e->loc);
    case FE_E_IFEXP: {
        cval cond = eval(c, e->b);
        bool t;
        if (!truth_known(c, &cond, &t))
            runtime_condition(c, &cond, e->b->loc, "the condition of 'a if c else b'");
        return eval(c, t ? e->a : e->c);
    }
    case FE_E_LAMBDA: cfail(c, e->loc, "lambda is not supported in loomc kernels");
    case FE_E_SLICE: cfail(c, e->loc, "a slice is only allowed inside a subscript");
    case FE_E_ELLIPSIS: cfail(c, e->loc, "'...' is not supported in loomc kernels");
    }
    LM_BUG("unknown expression kind %d", (int)e->kind);
}

/* ======================================================================
 * statements
 * ==================================================================== */

static void exec_stmts(chk *c, fe_stmt *const *body, int n, bool kernel_body);

static void assign(chk *c, const fe_expr *t, cval v, lm_loc loc)
{
    switch (t->kind) {
    case FE_E_NAME: env_set(c, t->name, v); return;
    case FE_E_TUPLE:
    case FE_E_LIST:
        if (v.kind != C_TUPLE)
            cfail(c, loc, "cannot unpack %s into %d names", describe(c, &v), t->nitems);
        if (v.n != t->nitems)
            cfail(c, loc, "cannot unpack a tuple of %d values into %d names", v.n, t->nitems);
        for (int i = 0; i < v.n; i++)
            assign(c, t->items[i], v.items[i], loc);
        return;
    case FE_E_SUBSCRIPT:
        cfail(c, t->loc, "assignment to a part of a tile is not supported; tiles are values (build a new one, e.g. "
                         "with tl.where)");
    case FE_E_ATTR: cfail(c, t->loc, "assignment to an attribute is not supported in loomc kernels");
    default: cfail(c, t->loc, "this assignment target is not supported in loomc kernels");
    }
}

/* ---- loops -------------------------------------------------------------------- */

typedef struct assigned {
    const char *name;
    lm_loc loc;
} assigned;

typedef struct assigned_set {
    assigned *items;
    int n, cap;
} assigned_set;

static void add_assigned(chk *c, assigned_set *s, const fe_expr *t)
{
    if (t->kind == FE_E_TUPLE || t->kind == FE_E_LIST) {
        for (int i = 0; i < t->nitems; i++)
            add_assigned(c, s, t->items[i]);
        return;
    }
    if (t->kind != FE_E_NAME)
        return;
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->items[i].name, t->name))
            return;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        assigned *n = LM_NEWN(c->a, assigned, cap);
        if (s->n)
            memcpy(n, s->items, sizeof *n * (size_t)s->n);
        s->items = n;
        s->cap = cap;
    }
    s->items[s->n++] = (assigned){t->name, t->loc};
}

/* Every name a block assigns, nested blocks included, in order. */
static void collect_assigned(chk *c, assigned_set *s, fe_stmt *const *body, int n)
{
    for (int i = 0; i < n; i++) {
        const fe_stmt *st = body[i];
        switch (st->kind) {
        case FE_S_ASSIGN:
            for (int k = 0; k < st->ntargets; k++)
                add_assigned(c, s, st->targets[k]);
            break;
        case FE_S_AUGASSIGN:
        case FE_S_ANNASSIGN: add_assigned(c, s, st->targets[0]); break;
        case FE_S_FOR:
            add_assigned(c, s, st->targets[0]);
            collect_assigned(c, s, st->body, st->nbody);
            break;
        case FE_S_IF:
        case FE_S_WHILE:
            collect_assigned(c, s, st->body, st->nbody);
            collect_assigned(c, s, st->orelse, st->norelse);
            break;
        default: break;
        }
    }
}

typedef enum loop_kind { L_RANGE, L_TL_RANGE, L_STATIC } loop_kind;

static LM_NORETURN void bad_iterable(chk *c, const fe_expr *it)
{
    cfail(c, it->loc, "loomc kernels loop over range(), tl.range() or tl.static_range() only");
}

static tir_value *loop_bound(chk *c, const cargs *a, int i, loop_kind k, const char *what)
{
    const cval *v = &a->v[i];
    if (k == L_STATIC && v->kind != C_INT)
        cfail(c, aloc(a, i), "the %s of tl.static_range must be a compile-time integer, got %s", what,
              describe(c, v));
    if (v->kind == C_INT && v->is_bool)
        cfail(c, aloc(a, i), "the %s of a loop must be an integer, got a bool", what);
    return int_scalar(c, v, aloc(a, i), lm_arena_printf(c->a, "the %s of %s", what, a->fname));
}

static void exec_for(chk *c, const fe_stmt *s)
{
    const fe_expr *it = s->iter, *tgt = s->targets[0];
    if (it->kind != FE_E_CALL)
        bad_iterable(c, it);
    loop_kind kind;
    const char *q = qual_of(c, it->a);
    if (q && !strcmp(q, "triton.language.range"))
        kind = L_TL_RANGE;
    else if (q && !strcmp(q, "triton.language.static_range"))
        kind = L_STATIC;
    else if (!q && it->a->kind == FE_E_NAME && !strcmp(it->a->name, "range") && !env_find(c, "range"))
        kind = L_RANGE;
    else
        bad_iterable(c, it);
    if (tgt->kind != FE_E_NAME)
        cfail(c, tgt->loc, "the loop variable must be a single name");

    const char *fname = kind == L_RANGE ? "range" : pretty(c, q);
    cargs a;
    if (kind == L_TL_RANGE)
        bind_args(c, it, NULL, fname,
                  ARGS("arg1", "arg2", "step", "num_stages", "loop_unroll_factor", "disallow_acc_multi_buffer",
                       "flatten", "warp_specialize"),
                  1, &a);
    else
        bind_args(c, it, NULL, fname, ARGS("arg1", "arg2", "step"), 1, &a);
    tir_value *lo, *hi, *step;
    if (given(&a, 1)) {
        lo = loop_bound(c, &a, 0, kind, "start");
        hi = loop_bound(c, &a, 1, kind, "end");
    } else {
        lo = tir_const_int(&c->b, TIR_I32, 0);
        hi = loop_bound(c, &a, 0, kind, "end");
    }
    if (given(&a, 2)) {
        step = loop_bound(c, &a, 2, kind, "step");
        int64_t sv;
        if (a.v[2].kind == C_INT && ct_known(c, a.v[2].i, &sv) && sv == 0)
            cfail(c, aloc(&a, 2), "the step of a loop must not be zero");
    } else {
        step = tir_const_int(&c->b, TIR_I32, 1);
    }
    tir_elem ie = promote(promote(lo->type.elem, hi->type.elem), step->type.elem);
    lo = cast_to(c, lo, ie, it->loc);
    hi = cast_to(c, hi, ie, it->loc);
    step = cast_to(c, step, ie, it->loc);
    int num_stages = 0;
    if (kind == L_TL_RANGE) {
        if (given(&a, 3)) {
            int64_t ns = arg_const(c, &a, 3, "num_stages");
            if (ns < 0 || ns > 64)
                cfail(c, aloc(&a, 3), "num_stages must be between 0 and 64, got %lld", (long long)ns);
            num_stages = (int)ns;
        }
        if (given(&a, 4))
            arg_const(c, &a, 4, "loop_unroll_factor");
        for (int i = 5; i <= 7; i++)
            arg_bool(c, &a, i, false);
    }

    /* carried values: names the body assigns that exist before the loop */
    assigned_set as = {0};
    collect_assigned(c, &as, s->body, s->nbody);
    int nc = 0;
    const char **names = LM_NEWN(c->a, const char *, as.n ? as.n : 1);
    tir_value **inits = LM_NEWN(c->a, tir_value *, as.n ? as.n : 1);
    for (int i = 0; i < as.n; i++) {
        const char *n = as.items[i].name;
        if (!strcmp(n, tgt->name))
            continue;
        binding *b = env_find(c, n);
        if (!b)
            continue;
        tir_value *v;
        if (b->v.kind == C_VAL)
            v = b->v.v;
        else if (is_number(&b->v))
            v = materialise(c, &b->v, natural_elem(&b->v), as.items[i].loc);
        else
            cfail(c, as.items[i].loc, "'%s' is %s and is assigned inside a loop; only tiles and scalars can change "
                                      "from one iteration to the next",
                  n, describe(c, &b->v));
        names[nc] = n;
        inits[nc++] = v;
    }

    tir_value **opnds = LM_NEWN(c->a, tir_value *, 3 + nc);
    tir_type *rt = LM_NEWN(c->a, tir_type, nc ? nc : 1);
    opnds[0] = lo;
    opnds[1] = hi;
    opnds[2] = step;
    for (int i = 0; i < nc; i++) {
        opnds[3 + i] = inits[i];
        rt[i] = inits[i]->type;
    }
    tir_op *fo = tir_op_build(&c->b, TIR_FOR, s->loc, opnds, 3 + nc, rt, nc);
    tir_block *body = tir_block_new(&c->b, fo);
    fo->regions[0] = body;
    fo->nregions = 1;
    fo->iv = tir_iv_var(c->s, c->f->nloops++);
    fo->num_stages = num_stages;
    fo->unroll = kind == L_STATIC;
    tir_value *var = tir_block_add_arg(&c->b, body, tir_t_scalar(ie));
    var->name = tgt->name;

    /* the body sees the loop variable and the carried values as arguments */
    int nenv0 = c->nenv;
    binding *saved = LM_NEWN(c->a, binding, nenv0 ? nenv0 : 1);
    if (nenv0)
        memcpy(saved, c->env, sizeof *saved * (size_t)nenv0);
    tir_value **args = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        args[i] = tir_block_add_arg(&c->b, body, inits[i]->type);
        env_set(c, names[i], cv_val(args[i]));
        args[i]->name = names[i];
    }
    env_set(c, tgt->name, cv_val(var));
    tir_block *outer = c->b.block;
    c->b.block = body;
    exec_stmts(c, s->body, s->nbody, false);

    tir_value **fin = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++) {
        cval v = env_find(c, names[i])->v;
        tir_type want = args[i]->type;
        if (is_number(&v) && tir_is_scalar(&want))
            fin[i] = materialise(c, &v, want.elem, s->loc);
        else if (v.kind == C_VAL)
            fin[i] = v.v;
        else
            cfail(c, s->loc, "loop-carried variable '%s' is %s at the end of the loop body; it must stay a tile or "
                             "scalar",
                  names[i], describe(c, &v));
        if (!tir_type_eq(&fin[i]->type, &want))
            cfail(c, s->loc, "loop-carried variable '%s' changes type in the loop: %s before the loop, %s at the end "
                             "of the body; give it its loop type before the loop (with .to() or the dtype of "
                             "tl.zeros/tl.full)",
                  names[i], tstr(c, &want), tstr(c, &fin[i]->type));
    }
    tir_op_build(&c->b, TIR_YIELD, s->loc, fin, nc, NULL, 0);
    c->b.block = outer;

    /* names first assigned in the body end with the loop */
    for (int i = nenv0; i < c->nenv; i++)
        if (strcmp(c->env[i].name, tgt->name))
            note_gone(c, c->env[i].name, s->loc.line);
    memcpy(c->env, saved, sizeof *saved * (size_t)nenv0);
    c->nenv = nenv0;

    /* values the body passes through unchanged are not carried */
    tir_value **res = LM_NEWN(c->a, tir_value *, nc ? nc : 1);
    for (int i = 0; i < nc; i++)
        res[i] = fo->results[i];
    for (int i = nc - 1; i >= 0; i--) {
        if (fin[i] != args[i])
            continue;
        tir_replace_uses(body, args[i], inits[i]);
        tir_for_drop_carried(fo, i);
        res[i] = inits[i];
    }
    for (int i = 0; i < nc; i++) {
        if (res[i] != inits[i])
            res[i]->name = names[i];
        env_set(c, names[i], cv_val(res[i]));
    }
    tir_sym_infer_for(&c->b, fo);
}

static void exec_if(chk *c, const fe_stmt *s)
{
    cval cond = eval(c, s->cond);
    bool t;
    if (!truth_known(c, &cond, &t))
        runtime_condition(c, &cond, s->cond->loc, "the condition of this 'if'");
    if (t)
        exec_stmts(c, s->body, s->nbody, false);
    else
        exec_stmts(c, s->orelse, s->norelse, false);
}

static void exec_stmt(chk *c, const fe_stmt *s, bool last)
{
    switch (s->kind) {
    case FE_S_PASS: return;
    case FE_S_EXPR:
        if (s->value->kind == FE_E_STR)
            return; /* a docstring */
        eval(c, s->value);
        return;
    case FE_S_ASSIGN: {
        cval v = eval(c, s->value);
        for (int i = 0; i < s->ntargets; i++)
            assign(c, s->targets[i], v, s->loc);
        return;
    }
    case FE_S_ANNASSIGN:
        if (s->value)
            assign(c, s->targets[0], eval(c, s->value), s->loc);
        return;
    case FE_S_AUGASSIGN: {
        const fe_expr *t = s->targets[0];
        if (t->kind != FE_E_NAME)
            cfail(c, t->loc, "augmented assignment to %s is not supported; tiles are values",
                  t->kind == FE_E_SUBSCRIPT ? "a part of a tile" : "this target");
        cval cur = eval_name(c, t);
        cval v = eval(c, s->value);
        env_set(c, t->name, binop(c, s->op, cur, v, s->loc));
        return;
    }
    case FE_S_IF: exec_if(c, s); return;
    case FE_S_FOR: exec_for(c, s); return;
    case FE_S_WHILE:
        cfail(c, s->loc, "'while' loops are not supported in loomc kernels; use a for loop over range(), tl.range() "
                         "or tl.static_range()");
    case FE_S_RETURN:
        if (s->value)
            cfail(c, s->loc, "kernels cannot return values; write results with tl.store or desc.store");
        if (!last)
            cfail(c, s->loc, "'return' is only supported as the last statement of a kernel");
        return;
    case FE_S_BREAK:
    case FE_S_CONTINUE:
        cfail(c, s->loc, "'%s' is not supported in loomc kernels; loops run their whole trip count",
              s->kind == FE_S_BREAK ? "break" : "continue");
    case FE_S_DEF: cfail(c, s->loc, "nested function definitions are not supported in loomc kernels");
    case FE_S_IMPORT: cfail(c, s->loc, "imports inside a kernel are not supported");
    case FE_S_ASSERT: {
        cval v = eval(c, s->value);
        bool t;
        if (truth_known(c, &v, &t)) {
            if (!t) {
                const char *msg = s->msg && s->msg->kind == FE_E_STR ? s->msg->str : NULL;
                cfail(c, s->loc, "assertion failed%s%s", msg ? ": " : "", msg ? msg : "");
            }
        } else if (v.kind == C_INT) {
            runtime_condition(c, &v, s->value->loc, "this assertion");
        }
        /* a run-time assert is a debugging aid Triton drops unless
           debugging is on; it does not change what the kernel computes */
        return;
    }
    case FE_S_OTHER: cfail(c, s->loc, "'%s' statements are not supported in loomc kernels", s->keyword);
    }
    LM_BUG("unknown statement kind %d", (int)s->kind);
}

static void exec_stmts(chk *c, fe_stmt *const *body, int n, bool kernel_body)
{
    for (int i = 0; i < n; i++)
        exec_stmt(c, body[i], kernel_body && i == n - 1);
}

/* ======================================================================
 * entry
 * ==================================================================== */

/* Remove pure ops whose results nobody uses (the IR is what the scheduler
 * sees; dead index arithmetic would only be noise). */
static void count_uses(const tir_block *blk, int *uses)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            uses[op->opnds[i]->uid]++;
        for (int r = 0; r < op->nregions; r++)
            count_uses(op->regions[r], uses);
    }
}

static bool sweep(tir_func *f, tir_block *blk, const int *uses)
{
    bool changed = false;
    tir_op *prev;
    for (tir_op *op = blk->last; op; op = prev) {
        prev = op->prev;
        for (int r = 0; r < op->nregions; r++)
            changed |= sweep(f, op->regions[r], uses);
        if (!tir_op_has(op->code, TIR_P_PURE))
            continue;
        bool used = false;
        for (int i = 0; i < op->nresults; i++)
            used |= uses[op->results[i]->uid] > 0;
        if (used)
            continue;
        if (op == f->hoist_last)
            f->hoist_last = op->prev;
        tir_op_remove(op);
        changed = true;
    }
    return changed;
}

/* The limits on a checked kernel (docs/limits.md), enforced before the
 * passes whose cost grows faster than the kernel (common subexpressions,
 * dead code): the number of ops, and the elements of every tile whose shape
 * the bindings determine. Tiles sized by free constexprs are the solver's
 * to keep within the limit. */
/* " = [64, 2097152]" when some dimension of t is a name, else "". */
static const char *shape_values(chk *c, const tir_type *t)
{
    bool named = false;
    int64_t v;
    for (int i = 0; i < t->rank; i++)
        named |= !sym_is_const(t->shape[i], &v);
    if (!named)
        return "";
    lm_buf b = {0};
    lm_buf_puts(&b, " = [");
    for (int i = 0; i < t->rank; i++) {
        ct_known(c, t->shape[i], &v);
        lm_buf_printf(&b, "%s%lld", i ? ", " : "", (long long)v);
    }
    lm_buf_putc(&b, ']');
    const char *s = lm_arena_strdup(c->a, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

static void check_limits(chk *c, const tir_block *blk, int *nops)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (++*nops > FE_MAX_OPS)
            cfail(c, op->loc, "kernel '%s' has more than %d Tile IR operations; that is the limit", c->k->name,
                  (int)FE_MAX_OPS);
        for (int r = 0; r < op->nresults; r++) {
            const tir_type *t = &op->results[r]->type;
            int64_t n = 1, v;
            for (int i = 0; i < t->rank && n > 0; i++) {
                if (!ct_known(c, t->shape[i], &v))
                    n = 0;
                else if (v > 0 && (!lm_mul_ok(n, v, &n) || n > FE_MAX_TILE_ELEMS))
                    cfail(c, op->loc, "a tile of shape %s%s has more than %d elements; that is the limit (Triton's)",
                          shape_str(c, t->rank, t->shape), shape_values(c, t), (int)FE_MAX_TILE_ELEMS);
            }
        }
        for (int r = 0; r < op->nregions; r++)
            check_limits(c, op->regions[r], nops);
    }
}

static void remove_dead(chk *c)
{
    bool changed = true;
    while (changed) {
        int *uses = LM_NEWN(c->a, int, c->f->nvalues ? c->f->nvalues : 1);
        count_uses(c->f->body, uses);
        changed = sweep(c->f, c->f->body, uses);
    }
}

/* Merge pure ops that compute the same thing from the same operands (the
 * same expression written twice in the source, e.g. a stride per block
 * pointer); an op may reuse one of its own block or of an enclosing block. */
static bool same_op(const tir_op *x, const tir_op *y)
{
    if (x->code != y->code || x->nopnds != y->nopnds || x->nresults != 1 || y->nresults != 1)
        return false;
    for (int i = 0; i < x->nopnds; i++)
        if (x->opnds[i] != y->opnds[i])
            return false;
    if (!tir_type_eq(&x->results[0]->type, &y->results[0]->type))
        return false;
    if (x->ival != y->ival || x->is_float != y->is_float || memcmp(&x->fval, &y->fval, sizeof x->fval) ||
        x->sym != y->sym || x->sym2 != y->sym2 || x->rank != y->rank || x->bcheck != y->bcheck ||
        x->padding != y->padding || x->keep_dims != y->keep_dims)
        return false;
    if ((x->precision == NULL) != (y->precision == NULL) || (x->precision && strcmp(x->precision, y->precision)))
        return false;
    for (int i = 0; i < x->rank && i < TIR_MAX_RANK; i++)
        if (x->order[i] != y->order[i])
            return false;
    return true;
}

typedef struct op_stack {
    tir_op **ops;
    int n, cap;
} op_stack;

static void cse_block(chk *c, tir_block *blk, op_stack *st)
{
    int mark = st->n;
    tir_op *next;
    for (tir_op *op = blk->first; op; op = next) {
        next = op->next;
        for (int r = 0; r < op->nregions; r++)
            cse_block(c, op->regions[r], st);
        if (op->nregions || op->nresults != 1 || !tir_op_has(op->code, TIR_P_PURE) ||
            tir_op_has(op->code, TIR_P_HOIST))
            continue;
        tir_op *same = NULL;
        for (int i = st->n - 1; i >= 0 && !same; i--)
            if (same_op(st->ops[i], op))
                same = st->ops[i];
        if (same) {
            tir_replace_uses(c->f->body, op->results[0], same->results[0]);
            tir_op_remove(op);
            continue;
        }
        if (st->n == st->cap) {
            int cap = st->cap ? 2 * st->cap : 64;
            tir_op **n = LM_NEWN(c->a, tir_op *, cap);
            if (st->n)
                memcpy(n, st->ops, sizeof *n * (size_t)st->n);
            st->ops = n;
            st->cap = cap;
        }
        st->ops[st->n++] = op;
    }
    st->n = mark;
}

static void bind_params(chk *c)
{
    const fe_launch *l = c->l;
    for (int i = 0; i < l->nargs; i++) {
        const fe_arg *ar = &l->args[i];
        const fe_param *p = ar->param;
        cval v;
        if (ar->is_constexpr) {
            switch (ar->kind) {
            case FE_ARG_INT:
            case FE_ARG_FREE:
                v = cv_int(ar->ival);
                v.is_bool = ar->is_bool;
                break;
            case FE_ARG_FLOAT: v = (cval){.kind = C_FLOAT, .f = ar->fval}; break;
            default: LM_BUG("constexpr parameter %s bound to a tensor", p->name);
            }
            env_set(c, p->name, v);
            continue;
        }
        tir_value *pv;
        switch (ar->kind) {
        case FE_ARG_TENSOR: pv = tir_add_param(&c->b, p->name, tir_t_ptr(ar->tensor->elem), NULL, ar->tensor); break;
        case FE_ARG_INT: {
            tir_elem e = TIR_I32;
            int64_t k;
            if (ar->is_bool)
                e = TIR_I1;
            else if (ct_known(c, ar->ival, &k) && (k > INT32_MAX || k < INT32_MIN))
                e = TIR_I64;
            pv = tir_add_param(&c->b, p->name, tir_t_scalar(e), ar->ival, NULL);
            break;
        }
        case FE_ARG_FLOAT:
            pv = tir_add_param(&c->b, p->name, tir_t_scalar(TIR_F32), NULL, NULL);
            c->f->params[c->f->nparams - 1].has_fval = true;
            c->f->params[c->f->nparams - 1].fval = ar->fval;
            break;
        default: LM_BUG("parameter %s is free but not a constexpr", p->name);
        }
        env_set(c, p->name, cv_val(pv));
    }
}

tir_func *fe_check(const fe_names *nm, const fe_spec *spec, const fe_launch *l, sym_ctx *s, lm_arena *a,
                   lm_diag *d)
{
    chk *c = LM_NEW(a, chk);
    c->nm = nm;
    c->spec = spec;
    c->l = l;
    c->k = l->kernel;
    c->s = s;
    c->a = a;
    c->d = d;
    if (setjmp(c->jb))
        return NULL;
    const fe_func *k = l->kernel;
    tir_func *f = tir_func_new(a, k->name, k->loc);
    c->f = f;
    f->grid_rank = l->grid_rank;
    for (int i = 0; i < l->grid_rank; i++)
        f->grid[i] = l->grid[i];
    tir_builder_init(&c->b, a, s, f);
    bind_params(c);
    exec_stmts(c, k->body, k->nbody, true);
    tir_op_build(&c->b, TIR_RETURN, k->loc, NULL, 0, NULL, 0);
    int nops = 0;
    check_limits(c, f->body, &nops);
    op_stack st = {0};
    cse_block(c, f->body, &st);
    remove_dead(c);
    tir_verify_or_bug(f, "the front end (fe_check)");
    return f;
}
