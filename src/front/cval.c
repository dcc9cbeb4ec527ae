/* cval.c - the checker's values (check_int.h): errors and the text of
 * messages, the environment (finding and binding names), compile-time integers whose
 * value must be known, building Tile IR values (materialising numbers, casts,
 * Triton's type promotion, broadcasting) and the helpers that read a bound
 * call argument as a tile, a dtype, a constant or a shape. It calls nothing
 * else of the checker: operators (ops.c), the functions a kernel calls
 * (pyfuncs.c, builtins.c), the evaluator (atoms.c, interp.c) and the entry
 * (check.c) are built on it.
 */
#include "front/check_int.h"

#include <string.h>

/* ======================================================================
 * values of the interpreter
 * ==================================================================== */

void chk_fail(chk *c, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(c->d, loc, fmt, ap);
    va_end(ap);
    longjmp(c->jb, 1);
}

/* ---- text for messages ------------------------------------------------------ */

const char *chk_shape_str(chk *c, int rank, const sym_expr *const *shape)
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

const char *chk_describe(chk *c, const cval *v)
{
    switch (v->kind) {
    case FE_V_NONE: return "None";
    case FE_V_INT: return v->is_bool ? "a compile-time bool" : "a compile-time integer";
    case FE_V_FLOAT: return "a float constant";
    case FE_V_STR: return "a string";
    case FE_V_DTYPE: return "a dtype";
    case FE_V_TUPLE: return "a tuple";
    case FE_V_TENSOR: LM_BUG("a kernel holds a launch spec's tensor");
    case FE_V_TIR: break;
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

/* ---- environment ---------------------------------------------------------- */

binding *chk_env_find(chk *c, const char *name)
{
    for (int i = c->nenv - 1; i >= 0; i--)
        if (!strcmp(c->env[i].name, name))
            return &c->env[i];
    return NULL;
}

/* Bind a name (a new one, or again); a Tile IR value gets it as its name. */
void chk_env_set(chk *c, const char *name, cval v)
{
    if (v.kind == FE_V_TIR && !v.v->name)
        v.v->name = name;
    binding *b = chk_env_find(c, name);
    if (b) {
        b->v = v;
        return;
    }
    /* lookups are linear and every loop saves the environment */
    if (c->nenv >= FE_MAX_NAMES)
        chk_fail(c, c->k->loc, "kernel '%s' binds more than %d names; that is the limit", c->k->name,
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

/* A name assigned only inside a loop that has ended (for messages). */
void chk_note_gone(chk *c, const char *name, int line)
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

/* The first variable of e without a value (a free constexpr), for messages. */
const char *chk_ct_unbound(chk *c, const sym_expr *e)
{
    int64_t v;
    const char *unb = NULL;
    if (fe_spec_eval(c->spec, e, &v, &unb))
        return NULL;
    return unb;
}

/* A compile-time integer whose value is needed now. */
int64_t chk_ct_need(chk *c, const sym_expr *e, lm_loc loc, const char *what)
{
    int64_t v;
    if (ct_known(c, e, &v))
        return v;
    const char *unb = chk_ct_unbound(c, e);
    if (unb)
        chk_fail(c, loc, "%s must be known at compile time, but depends on free constexpr '%s', which the solver "
                         "chooses (pin it with --const %s=VALUE)",
                 what, unb, unb);
    chk_fail(c, loc, "%s cannot be computed (division by zero or overflow)", what);
}

/* An integer constant written in the kernel (axis=, order=, boundary_check=). */
int64_t chk_const_int_of(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (v->kind != FE_V_INT)
        chk_fail(c, loc, "%s must be a compile-time integer, got %s", what, chk_describe(c, v));
    return chk_ct_need(c, v->i, loc, what);
}

/* ======================================================================
 * building Tile IR values
 * ==================================================================== */

tir_value *chk_build1(chk *c, tir_opcode code, lm_loc loc, tir_type t, tir_value *o0, tir_value *o1,
                      tir_value *o2)
{
    return tir_build1(&c->b, code, loc, t, o0, o1, o2, NULL);
}

tir_type chk_tile_t(chk *c, tir_elem e, int rank, const sym_expr *const *shape)
{
    return tir_t_tile(c->a, e, rank, shape);
}

/* A compile-time number as a scalar of element type e. */
tir_value *chk_materialise(chk *c, const cval *v, tir_elem e, lm_loc loc)
{
    if (v->kind == FE_V_INT) {
        if (tir_elem_is_float(e)) {
            int64_t k;
            if (sym_is_const(v->i, &k))
                return tir_const_float(&c->b, e, (double)k);
            /* a symbolic integer keeps its name: converted at run time */
            tir_value *iv = tir_sym_value(&c->b, TIR_I32, v->i);
            return chk_build1(c, TIR_CAST, loc, tir_t_scalar(e), iv, NULL, NULL);
        }
        if (e == TIR_I1) {
            int64_t k;
            if (!sym_is_const(v->i, &k))
                k = chk_ct_need(c, v->i, loc, "a boolean");
            return tir_const_int(&c->b, TIR_I1, k != 0);
        }
        return tir_sym_value(&c->b, e, v->i);
    }
    if (v->kind == FE_V_FLOAT) {
        if (!tir_elem_is_float(e))
            e = TIR_F32;
        return tir_const_float(&c->b, e, v->f);
    }
    LM_BUG("materialise of a non-number");
}

/* The natural scalar type of a compile-time number. */
tir_elem chk_natural_elem(const cval *v)
{
    if (v->kind == FE_V_FLOAT)
        return TIR_F32;
    return v->is_bool ? TIR_I1 : TIR_I32;
}

/* A value usable as a tile operand: a tile, a run-time scalar, or a number
 * (materialised with its natural type). */
tir_value *chk_as_tile(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (is_number(v))
        return chk_materialise(c, v, chk_natural_elem(v), loc);
    if (is_tile_val(v))
        return v->v;
    if (v->kind == FE_V_TIR && v->v->type.kind == TIR_PTR)
        chk_fail(c, loc, "%s cannot be a pointer; pointers are only offset, loaded and stored", what);
    chk_fail(c, loc, "%s must be a tile or a scalar, got %s", what, chk_describe(c, v));
}

tir_value *chk_cast_to(chk *c, tir_value *v, tir_elem e, lm_loc loc)
{
    if (v->type.elem == e)
        return v;
    return chk_build1(c, TIR_CAST, loc, tir_t_with_elem(v->type, e), v, NULL, NULL);
}

/* Element type of a binary operation between two typed operands: bool <
 * integers < floats; the wider float wins; bf16 with f16 gives f32. */
tir_elem chk_promote(tir_elem a, tir_elem b)
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
tir_elem chk_weak_elem(const cval *num, tir_elem t)
{
    if (num->kind == FE_V_FLOAT)
        return tir_elem_is_float(t) ? t : TIR_F32;
    if (num->is_bool)
        return t;
    return t == TIR_I1 ? TIR_I32 : t;
}

/* Numpy-style broadcast of two shapes; NULL (and *rank unset) if they do not
 * broadcast. */
const sym_expr **chk_broadcast_shape(chk *c, const tir_type *x, const tir_type *y, int *rank)
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

/* The scalar a uniform tile repeats (a scalar itself, or a splat's), or NULL. */
static tir_value *uniform_scalar(tir_value *x)
{
    if (x->type.rank == 0)
        return x;
    if (x->def && x->def->code == TIR_SPLAT)
        return x->def->opnds[0];
    return NULL;
}

/* A float select between two uniform values (tl.where(cols < n, 0, -inf)),
 * extended to a wider shape: the select made at that shape, its condition
 * extended, as a block is masked by its element indices but a computed row
 * is not repeated down a block (the narrow select, now unused, is swept as
 * dead code). NULL when v is not such a select. */
static tir_value *widen_select(chk *c, tir_value *v, int rank, const sym_expr *const *shape, lm_loc loc)
{
    const tir_op *d = v->def;
    if (!d || d->code != TIR_WHERE || v->type.rank == 0 || !tir_elem_is_float(v->type.elem))
        return NULL;
    tir_value *a = uniform_scalar(d->opnds[1]), *b = uniform_scalar(d->opnds[2]);
    if (!a || !b)
        return NULL;
    tir_value *cond = chk_broadcast_to(c, d->opnds[0], rank, shape, loc);
    a = chk_broadcast_to(c, a, rank, shape, loc);
    b = chk_broadcast_to(c, b, rank, shape, loc);
    return chk_build1(c, TIR_WHERE, loc, a->type, cond, a, b);
}

/* v (a tile or a scalar, or a pointer) extended to the given shape. */
tir_value *chk_broadcast_to(chk *c, tir_value *v, int rank, const sym_expr *const *shape, lm_loc loc)
{
    tir_type t = v->type;
    if (t.rank == rank) {
        bool same = true;
        for (int i = 0; i < rank; i++)
            same &= t.shape[i] == shape[i];
        if (same)
            return v;
    }
    tir_value *w = widen_select(c, v, rank, shape, loc);
    if (w)
        return w;
    tir_type r = tir_t_tile(c->a, t.elem, rank, shape);
    r.kind = t.kind;
    return chk_build1(c, t.rank == 0 ? TIR_SPLAT : TIR_BROADCAST, loc, r, v, NULL, NULL);
}

/* Bring two operands to one shape, or report both shapes. */
void chk_broadcast_pair(chk *c, tir_value **x, tir_value **y, lm_loc loc, const char *what)
{
    int r = 0;
    const sym_expr **sh = chk_broadcast_shape(c, &(*x)->type, &(*y)->type, &r);
    if (!sh)
        chk_fail(c, loc, "shape mismatch in %s: %s and %s cannot be broadcast to one shape", what,
                 tshape(c, &(*x)->type), tshape(c, &(*y)->type));
    *x = chk_broadcast_to(c, *x, r, sh, loc);
    *y = chk_broadcast_to(c, *y, r, sh, loc);
}

tir_value *chk_transpose(chk *c, tir_value *x, lm_loc loc, const char *what)
{
    if (x->type.kind != TIR_TILE || x->type.rank != 2)
        chk_fail(c, loc, "%s needs a 2-D tile, got %s", what, chk_describe(c, &(cval){.kind = FE_V_TIR, .v = x}));
    const sym_expr *s[2] = {x->type.shape[1], x->type.shape[0]};
    return chk_build1(c, TIR_TRANS, loc, chk_tile_t(c, x->type.elem, 2, s), x, NULL, NULL);
}

tir_value *chk_expand_dims(chk *c, tir_value *x, int64_t axis, lm_loc loc)
{
    int r = x->type.rank;
    if (axis < 0)
        axis += r + 1;
    if (axis < 0 || axis > r)
        chk_fail(c, loc, "axis %lld is out of range for expanding a %d-D tile", (long long)axis, r);
    if (r + 1 > TIR_MAX_RANK)
        chk_fail(c, loc, "tiles have at most %d dimensions", TIR_MAX_RANK);
    const sym_expr *s[TIR_MAX_RANK];
    for (int i = 0, j = 0; i <= r; i++)
        s[i] = i == axis ? sym_const(c->s, 1) : x->type.shape[j++];
    tir_value *v = chk_build1(c, TIR_EXPAND_DIMS, loc, chk_tile_t(c, x->type.elem, r + 1, s), x, NULL, NULL);
    v->def->ival = axis;
    return v;
}

cval chk_convert(chk *c, const cval *x, lm_loc xloc, tir_elem e, lm_loc loc)
{
    if (x->kind == FE_V_INT || x->kind == FE_V_FLOAT) {
        tir_value *v = chk_materialise(c, x, chk_natural_elem(x), xloc);
        return cv_val(chk_cast_to(c, v, e, loc));
    }
    if (!is_tile_val(x))
        chk_fail(c, xloc, "only tiles and scalars can be converted, got %s", chk_describe(c, x));
    return cv_val(chk_cast_to(c, x->v, e, loc));
}

/* A value to store into blocks of type bt: converted and broadcast. */
tir_value *chk_store_value(chk *c, const cval *v, lm_loc loc, const tir_type *bt, const char *what)
{
    tir_value *x = chk_as_tile(c, v, loc, what);
    x = chk_cast_to(c, x, bt->elem, loc);
    int r = 0;
    tir_type blk = tir_t_tile(c->a, bt->elem, bt->rank, bt->shape);
    const sym_expr **sh = chk_broadcast_shape(c, &x->type, &blk, &r);
    bool ok = sh && r == bt->rank;
    for (int i = 0; ok && i < r; i++)
        ok = sh[i] == bt->shape[i];
    if (!ok)
        chk_fail(c, loc, "%s has shape %s, which does not fit blocks of shape %s", what, tshape(c, &x->type),
                 tshape(c, bt));
    return chk_broadcast_to(c, x, bt->rank, bt->shape, loc);
}

/* ======================================================================
 * reading bound call arguments
 * ==================================================================== */

/* A tile argument: a tile or scalar value, or a number. */
tir_value *chk_arg_tile(chk *c, const cargs *a, int i, const char *what)
{
    return chk_as_tile(c, &a->v[i], aloc(a, i), lm_arena_printf(c->a, "%s of %s", what, a->fname));
}

tir_elem chk_arg_dtype(chk *c, const cargs *a, int i)
{
    const cval *v = &a->v[i];
    if (v->kind != FE_V_DTYPE || v->ptr_dtype)
        chk_fail(c, aloc(a, i), "%s needs a dtype such as tl.float32 here, got %s", a->fname, chk_describe(c, v));
    if (v->dtype == TIR_NELEMS)
        chk_fail(c, aloc(a, i), "dtype %s is not supported in loomc kernels (supported: tl.float32, tl.float16, "
                                "tl.bfloat16, tl.int32, tl.int64, tl.int1)",
                 v->str);
    return v->dtype;
}

int64_t chk_arg_const(chk *c, const cargs *a, int i, const char *what)
{
    return chk_const_int_of(c, &a->v[i], aloc(a, i), lm_arena_printf(c->a, "%s of %s", what, a->fname));
}

bool chk_arg_bool(chk *c, const cargs *a, int i, bool dflt)
{
    if (!given(a, i))
        return dflt;
    bool t;
    if (!chk_truth_known(c, &a->v[i], &t))
        chk_fail(c, aloc(a, i), "argument of %s must be a compile-time bool", a->fname);
    return t;
}

/* A shape: a tuple (or list) of compile-time integers, or one integer. */
int chk_parse_shape(chk *c, const cval *v, lm_loc loc, const char *what, const sym_expr **dims)
{
    const cval *items = v;
    int n = 1;
    if (v->kind == FE_V_TUPLE) {
        items = v->items;
        n = v->n;
    } else if (v->kind != FE_V_INT) {
        chk_fail(c, loc, "%s must be a tuple of compile-time integers, got %s", what, chk_describe(c, v));
    }
    if (n < 1 || n > TIR_MAX_RANK)
        chk_fail(c, loc, "%s must have 1 to %d dimensions, has %d", what, TIR_MAX_RANK, n);
    for (int i = 0; i < n; i++) {
        if (items[i].kind != FE_V_INT)
            chk_fail(c, loc, "dimension %d of %s must be a compile-time integer (a tl.constexpr), got %s", i, what,
                     chk_describe(c, &items[i]));
        int64_t k;
        if (ct_known(c, items[i].i, &k) && k < 1)
            chk_fail(c, loc, "dimension %d of %s is %lld; dimensions must be at least 1", i, what, (long long)k);
        dims[i] = items[i].i;
    }
    return n;
}

/* An integer scalar operand (offsets, shapes and strides of block pointers). */
tir_value *chk_int_scalar(chk *c, const cval *v, lm_loc loc, const char *what)
{
    if (v->kind == FE_V_INT)
        return chk_materialise(c, v, TIR_I32, loc);
    if (v->kind == FE_V_TIR && tir_is_int_scalar(&v->v->type))
        return v->v;
    chk_fail(c, loc, "%s must be an integer scalar, got %s", what, chk_describe(c, v));
}

/* A tuple of r integer scalars. */
int chk_int_tuple(chk *c, const cval *v, lm_loc loc, const char *what, tir_value **out)
{
    if (v->kind != FE_V_TUPLE) {
        if (v->kind == FE_V_INT || (v->kind == FE_V_TIR && tir_is_int_scalar(&v->v->type))) {
            out[0] = chk_int_scalar(c, v, loc, what);
            return 1;
        }
        chk_fail(c, loc, "%s must be a tuple of integers, got %s", what, chk_describe(c, v));
    }
    if (v->n < 1 || v->n > TIR_MAX_RANK)
        chk_fail(c, loc, "%s must have 1 to %d entries, has %d", what, TIR_MAX_RANK, v->n);
    for (int i = 0; i < v->n; i++)
        out[i] = chk_int_scalar(c, &v->items[i], loc, lm_arena_printf(c->a, "entry %d of %s", i, what));
    return v->n;
}

tir_value *chk_value_of_kind(chk *c, const cargs *a, int i, tir_kind k, const char *what)
{
    const cval *v = &a->v[i];
    if (v->kind == FE_V_TIR && v->v->type.kind == k && (k != TIR_PTR || v->v->type.rank == 0))
        return v->v;
    chk_fail(c, aloc(a, i), "%s of %s must be %s, got %s", what, a->fname,
             k == TIR_PTR    ? "a pointer argument of the kernel"
             : k == TIR_BPTR ? "a block pointer"
                             : "a tensor descriptor",
             chk_describe(c, v));
}

/* Whether an integer value depends on what a load reads (a sequence length
 * or a page number taken from a tensor). */
static bool from_memory_depth(const tir_value *v, int depth)
{
    const tir_op *d = v ? v->def : NULL;
    if (!d || depth > 64)
        return false;
    if (d->code == TIR_LOAD || d->code == TIR_DESC_LOAD)
        return true;
    for (int i = 0; i < d->nopnds; i++)
        if (d->opnds[i]->type.kind == TIR_TILE && from_memory_depth(d->opnds[i], depth + 1))
            return true;
    return false;
}

void chk_reject_from_memory(chk *c, const tir_value *v, lm_loc loc, const char *what)
{
    if (from_memory_depth(v, 0))
        chk_fail(c, loc, "%s is read from memory at run time (a ragged length or a page table): loomc schedules "
                         "problems whose sizes are known when it compiles, and cannot size or place programs by "
                         "what the data holds",
                 what);
}
