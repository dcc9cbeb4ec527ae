/* tir.c - Tile IR types, values, ops and the builder (declared in tir.h).
 *
 * Besides plain construction, the builder keeps two invariants the rest of
 * the compiler relies on:
 *  - ops that depend on nothing (constants, symbols, program ids) are created
 *    once per function, at the top of the body, so they dominate every use
 *    and the printed IR lists them first;
 *  - integer scalars carry their symbolic value, computed from their
 *    operands as ops are built (tir_sym_infer) and, for loop-carried values,
 *    once the loop is complete (tir_sym_infer_for).
 */
#include "ir/tir.h"

#include <string.h>

/* ---- the op table ------------------------------------------------------ */

#define PURE TIR_P_PURE
#define ELEM TIR_P_ELEM
#define BINARY TIR_P_BINARY
#define UNARY TIR_P_UNARY
#define CMP TIR_P_CMP
#define INTONLY TIR_P_INTONLY
#define FLOATONLY TIR_P_FLOATONLY
#define READ TIR_P_READ
#define WRITE TIR_P_WRITE
#define REDUCE TIR_P_REDUCE
#define REGION TIR_P_REGION
#define TERM TIR_P_TERM
#define HOIST TIR_P_HOIST
const tir_opinfo tir_opinfo_tab[TIR_NOPS] = {
#define TIR_X_INFO(e, n, mn, mx, nr, p) [TIR_##e] = {n, mn, mx, nr, (unsigned)(p)},
    TIR_OPS(TIR_X_INFO)
#undef TIR_X_INFO
};
#undef PURE
#undef ELEM
#undef BINARY
#undef UNARY
#undef CMP
#undef INTONLY
#undef FLOATONLY
#undef READ
#undef WRITE
#undef REDUCE
#undef REGION
#undef TERM
#undef HOIST

/* ---- element types and types ------------------------------------------- */

static const struct {
    const char *name;
    int bits;
    bool is_float;
} elems[TIR_NELEMS] = {
    [TIR_I1] = {"i1", 1, false},    [TIR_I32] = {"i32", 32, false}, [TIR_I64] = {"i64", 64, false},
    [TIR_F16] = {"f16", 16, true},  [TIR_BF16] = {"bf16", 16, true}, [TIR_F32] = {"f32", 32, true},
};

const char *tir_elem_name(tir_elem e)
{
    if ((unsigned)e >= TIR_NELEMS)
        LM_BUG("bad element type %d", (int)e);
    return elems[e].name;
}

int tir_elem_bits(tir_elem e) { return elems[e].bits; }
int tir_elem_bytes(tir_elem e) { return elems[e].bits < 8 ? 1 : elems[e].bits / 8; }
bool tir_elem_is_float(tir_elem e) { return elems[e].is_float; }

const char *tir_role_name(tir_role r)
{
    switch (r) {
    case TIR_INPUT: return "input";
    case TIR_OUTPUT: return "output";
    case TIR_SCRATCH: return "scratch";
    }
    return "?";
}

tir_type tir_t_scalar(tir_elem e) { return (tir_type){TIR_TILE, e, 0, NULL}; }
tir_type tir_t_ptr(tir_elem pointee) { return (tir_type){TIR_PTR, pointee, 0, NULL}; }

static tir_type shaped(lm_arena *a, tir_kind k, tir_elem e, int rank, const sym_expr *const *shape)
{
    if (rank < 0 || rank > TIR_MAX_RANK)
        LM_BUG("rank %d out of range", rank);
    const sym_expr **s = NULL;
    if (rank > 0) {
        s = LM_NEWN(a, const sym_expr *, rank);
        for (int i = 0; i < rank; i++) {
            if (!shape[i])
                LM_BUG("missing dimension %d of a shape", i);
            s[i] = shape[i];
        }
    }
    return (tir_type){k, e, rank, s};
}

tir_type tir_t_tile(lm_arena *a, tir_elem e, int rank, const sym_expr *const *shape)
{
    return shaped(a, TIR_TILE, e, rank, shape);
}
tir_type tir_t_bptr(lm_arena *a, tir_elem e, int rank, const sym_expr *const *block)
{
    return shaped(a, TIR_BPTR, e, rank, block);
}
tir_type tir_t_desc(lm_arena *a, tir_elem e, int rank, const sym_expr *const *block)
{
    return shaped(a, TIR_DESC, e, rank, block);
}

tir_type tir_t_with_elem(tir_type t, tir_elem e)
{
    t.elem = e;
    return t;
}

bool tir_shape_eq(const tir_type *a, const tir_type *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

bool tir_type_eq(const tir_type *a, const tir_type *b)
{
    return a->kind == b->kind && a->elem == b->elem && tir_shape_eq(a, b);
}

/* ---- functions, blocks, values ----------------------------------------- */

tir_func *tir_func_new(lm_arena *a, const char *name, lm_loc loc)
{
    tir_func *f = LM_NEW(a, tir_func);
    f->name = lm_arena_strdup(a, name);
    f->loc = loc;
    f->body = LM_NEW(a, tir_block);
    return f;
}

void tir_builder_init(tir_builder *b, lm_arena *a, sym_ctx *s, tir_func *f)
{
    b->arena = a;
    b->sym = s;
    b->func = f;
    b->block = f->body;
}

static tir_value *new_value(tir_builder *b, tir_type t)
{
    tir_value *v = LM_NEW(b->arena, tir_value);
    v->type = t;
    v->uid = b->func->nvalues++;
    v->num = -1;
    return v;
}

tir_block *tir_block_new(tir_builder *b, tir_op *owner)
{
    tir_block *blk = LM_NEW(b->arena, tir_block);
    blk->owner = owner;
    return blk;
}

tir_value *tir_block_add_arg(tir_builder *b, tir_block *blk, tir_type t)
{
    if (blk->nargs == blk->capargs) {
        int cap = blk->capargs ? 2 * blk->capargs : 4;
        tir_value **args = LM_NEWN(b->arena, tir_value *, cap);
        if (blk->nargs)
            memcpy(args, blk->args, sizeof *args * (size_t)blk->nargs);
        blk->args = args;
        blk->capargs = cap;
    }
    tir_value *v = new_value(b, t);
    v->block = blk;
    v->argno = blk->nargs;
    blk->args[blk->nargs++] = v;
    return v;
}

void tir_block_remove_arg(tir_block *blk, int i)
{
    if (i < 0 || i >= blk->nargs)
        LM_BUG("block argument %d out of range", i);
    for (int j = i; j + 1 < blk->nargs; j++) {
        blk->args[j] = blk->args[j + 1];
        blk->args[j]->argno = j;
    }
    blk->nargs--;
}

tir_value *tir_add_param(tir_builder *b, const char *name, tir_type t, const sym_expr *sym,
                         const tir_tensor *tensor)
{
    tir_func *f = b->func;
    tir_value *v = tir_block_add_arg(b, f->body, t);
    v->name = name;
    if (tir_is_int_scalar(&t))
        v->sym = sym;
    if (f->nparams == f->capparams) {
        int cap = f->capparams ? 2 * f->capparams : 8;
        tir_param *p = LM_NEWN(b->arena, tir_param, cap);
        if (f->nparams)
            memcpy(p, f->params, sizeof *p * (size_t)f->nparams);
        f->params = p;
        f->capparams = cap;
    }
    f->params[f->nparams++] = (tir_param){name, v, tensor, false, 0};
    return v;
}

/* ---- op lists ------------------------------------------------------------ */

void tir_op_insert_after(tir_block *blk, tir_op *after, tir_op *op)
{
    op->parent = blk;
    op->prev = after;
    op->next = after ? after->next : blk->first;
    if (op->next)
        op->next->prev = op;
    else
        blk->last = op;
    if (after)
        after->next = op;
    else
        blk->first = op;
}

void tir_op_append(tir_block *blk, tir_op *op) { tir_op_insert_after(blk, blk->last, op); }

void tir_op_remove(tir_op *op)
{
    tir_block *blk = op->parent;
    if (!blk)
        LM_BUG("removing an op that is in no block");
    if (op->prev)
        op->prev->next = op->next;
    else
        blk->first = op->next;
    if (op->next)
        op->next->prev = op->prev;
    else
        blk->last = op->prev;
    op->parent = NULL;
    op->prev = op->next = NULL;
}

void tir_op_set_opnds(tir_builder *b, tir_op *op, tir_value *const *opnds, int n)
{
    op->opnds = n ? LM_NEWN(b->arena, tir_value *, n) : NULL;
    for (int i = 0; i < n; i++) {
        if (!opnds[i])
            LM_BUG("operand %d of %s is missing", i, tir_op_name(op->code));
        op->opnds[i] = opnds[i];
    }
    op->nopnds = n;
}

void tir_replace_uses(tir_block *blk, tir_value *from, tir_value *to)
{
    for (tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            if (op->opnds[i] == from)
                op->opnds[i] = to;
        for (int r = 0; r < op->nregions; r++)
            tir_replace_uses(op->regions[r], from, to);
    }
}

void tir_for_drop_carried(tir_op *f, int i)
{
    if (f->code != TIR_FOR || i < 0 || i >= f->nresults)
        LM_BUG("no loop-carried value %d to drop", i);
    for (int j = 3 + i; j + 1 < f->nopnds; j++)
        f->opnds[j] = f->opnds[j + 1];
    f->nopnds--;
    for (int j = i; j + 1 < f->nresults; j++) {
        f->results[j] = f->results[j + 1];
        f->results[j]->resno = j;
    }
    f->nresults--;
    tir_block_remove_arg(f->regions[0], 1 + i);
    tir_op *y = tir_yield_of(f->regions[0]);
    if (!y || y->code != TIR_YIELD || i >= y->nopnds)
        LM_BUG("loop body does not end in a yield with value %d", i);
    for (int j = i; j + 1 < y->nopnds; j++)
        y->opnds[j] = y->opnds[j + 1];
    y->nopnds--;
}

/* ---- building ------------------------------------------------------------ */

tir_op *tir_op_build(tir_builder *b, tir_opcode code, lm_loc loc, tir_value *const *opnds, int nopnds,
                     const tir_type *rtypes, int nresults)
{
    if ((unsigned)code >= TIR_NOPS)
        LM_BUG("bad opcode %d", (int)code);
    tir_op *op = LM_NEW(b->arena, tir_op);
    op->code = code;
    op->loc = loc;
    tir_op_set_opnds(b, op, opnds, nopnds);
    op->results = nresults ? LM_NEWN(b->arena, tir_value *, nresults) : NULL;
    op->nresults = nresults;
    for (int i = 0; i < nresults; i++) {
        tir_value *v = new_value(b, rtypes[i]);
        v->def = op;
        v->resno = i;
        op->results[i] = v;
    }
    if (tir_op_has(code, TIR_P_HOIST)) {
        tir_op_insert_after(b->func->body, b->func->hoist_last, op);
        b->func->hoist_last = op;
    } else {
        if (!b->block)
            LM_BUG("builder has no insertion block");
        tir_op_append(b->block, op);
    }
    return op;
}

tir_value *tir_build1(tir_builder *b, tir_opcode code, lm_loc loc, tir_type t, tir_value *o0,
                      tir_value *o1, tir_value *o2, tir_value *o3)
{
    tir_value *ops[4] = {o0, o1, o2, o3};
    int n = 0;
    while (n < 4 && ops[n])
        n++;
    tir_op *op = tir_op_build(b, code, loc, ops, n, &t, 1);
    tir_sym_infer(b, op);
    return op->results[0];
}

/* Find an identical hoisted op, so each constant exists once. */
static tir_value *find_hoisted(tir_builder *b, tir_opcode code, tir_elem e, int64_t iv, double fv,
                               bool is_float, const sym_expr *s)
{
    tir_func *f = b->func;
    if (!f->hoist_last)
        return NULL;
    for (tir_op *op = f->body->first; op; op = op->next) {
        if (op->code == code && op->results[0]->type.elem == e && op->ival == iv &&
            op->is_float == is_float && op->sym == s &&
            (!is_float || memcmp(&op->fval, &fv, sizeof fv) == 0))
            return op->results[0];
        if (op == f->hoist_last)
            break;
    }
    return NULL;
}

static tir_value *hoisted(tir_builder *b, tir_opcode code, tir_elem e, int64_t iv, double fv,
                          bool is_float, const sym_expr *s)
{
    tir_value *v = find_hoisted(b, code, e, iv, fv, is_float, s);
    if (v)
        return v;
    tir_type t = tir_t_scalar(e);
    tir_op *op = tir_op_build(b, code, (lm_loc){0}, NULL, 0, &t, 1);
    op->ival = iv;
    op->fval = fv;
    op->is_float = is_float;
    op->sym = s;
    tir_sym_infer(b, op);
    return op->results[0];
}

tir_value *tir_const_int(tir_builder *b, tir_elem e, int64_t v)
{
    if (tir_elem_is_float(e))
        return tir_const_float(b, e, (double)v);
    return hoisted(b, TIR_CONST, e, v, 0, false, NULL);
}

tir_value *tir_const_float(tir_builder *b, tir_elem e, double v)
{
    if (!tir_elem_is_float(e))
        LM_BUG("float constant of integer type %s", tir_elem_name(e));
    return hoisted(b, TIR_CONST, e, 0, v, true, NULL);
}

tir_value *tir_sym_value(tir_builder *b, tir_elem e, const sym_expr *s)
{
    int64_t v;
    if (sym_is_const(s, &v))
        return tir_const_int(b, e, v);
    return hoisted(b, TIR_SYM, e, 0, 0, false, s);
}

tir_value *tir_program_id(tir_builder *b, int axis)
{
    return hoisted(b, TIR_PROGRAM_ID, TIR_I32, axis, 0, false, NULL);
}

tir_value *tir_num_programs(tir_builder *b, int axis)
{
    return hoisted(b, TIR_NUM_PROGRAMS, TIR_I32, axis, 0, false, NULL);
}

const sym_expr *tir_pid_var(sym_ctx *s, int axis)
{
    char name[32];
    snprintf(name, sizeof name, "pid.%d", axis);
    return sym_var(s, name);
}

const sym_expr *tir_iv_var(sym_ctx *s, int loop)
{
    char name[32];
    snprintf(name, sizeof name, "iv.%d", loop);
    return sym_var(s, name);
}

/* ---- symbolic values ----------------------------------------------------- */

static bool is_zero(const sym_expr *e)
{
    int64_t v;
    return sym_is_const(e, &v) && v == 0;
}

void tir_sym_infer(tir_builder *b, tir_op *op)
{
    if (op->nresults != 1 || !tir_is_int_scalar(&op->results[0]->type))
        return;
    sym_ctx *s = b->sym;
    const sym_expr *x = op->nopnds > 0 ? op->opnds[0]->sym : NULL;
    const sym_expr *y = op->nopnds > 1 ? op->opnds[1]->sym : NULL;
    bool two = x && y;
    const sym_expr *r = NULL;
    switch (op->code) {
    case TIR_CONST: r = op->is_float ? NULL : sym_const(s, op->ival); break;
    case TIR_SYM: r = op->sym; break;
    case TIR_PROGRAM_ID: r = tir_pid_var(s, (int)op->ival); break;
    case TIR_NUM_PROGRAMS:
        if (op->ival < b->func->grid_rank)
            r = b->func->grid[op->ival];
        else
            r = sym_const(s, 1);
        break;
    case TIR_ADD: r = two ? sym_add(s, x, y) : NULL; break;
    case TIR_SUB: r = two ? sym_sub(s, x, y) : NULL; break;
    case TIR_MUL: r = two ? sym_mul(s, x, y) : NULL; break;
    case TIR_MAX: r = two ? sym_max(s, x, y) : NULL; break;
    case TIR_MIN: r = two ? sym_min(s, x, y) : NULL; break;
    case TIR_FLOORDIV: r = two && !is_zero(y) ? sym_floordiv(s, x, y) : NULL; break;
    case TIR_MOD: r = two && !is_zero(y) ? sym_mod(s, x, y) : NULL; break;
    case TIR_CDIV: r = two && !is_zero(y) ? sym_cdiv(s, x, y) : NULL; break;
    case TIR_NEG: r = x ? sym_neg(s, x) : NULL; break;
    case TIR_CAST:
        /* integer widening or narrowing keeps the value (narrowing of
           values that do not fit is the program's own business) */
        r = tir_elem_is_int(op->opnds[0]->type.elem) && op->opnds[0]->type.elem != TIR_I1 ? x : NULL;
        break;
    default: r = NULL; break;
    }
    op->results[0]->sym = r;
}

static void infer_block(tir_builder *b, tir_block *blk, int depth);

static void infer_for(tir_builder *b, tir_op *f, int depth)
{
    if (depth > 64)
        LM_BUG("loops nested too deeply for symbolic inference");
    sym_ctx *s = b->sym;
    tir_block *body = f->regions[0];
    const sym_expr *lo = tir_for_lo(f)->sym, *hi = tir_for_hi(f)->sym, *st = tir_for_step(f)->sym;
    tir_value *var = tir_for_var(f);
    var->sym = lo && st && f->iv ? sym_add(s, lo, sym_mul(s, st, f->iv)) : NULL;
    f->sym = lo && hi && st && !is_zero(st) ? sym_cdiv(s, sym_sub(s, hi, lo), st) : NULL;

    int n = tir_for_ncarried(f), nint = 0;
    for (int i = 0; i < n; i++) {
        tir_value *a = tir_for_arg(f, i);
        if (!tir_is_int_scalar(&a->type))
            continue;
        nint++;
        if (!a->carry)
            a->carry = sym_var(s, lm_arena_printf(b->arena, "carry.%d", b->func->ncarry++));
        a->sym = a->carry;
    }
    infer_block(b, body, depth + 1);
    if (nint == 0)
        return;

    tir_op *y = tir_yield_of(body);
    if (!y || y->code != TIR_YIELD || y->nopnds != n)
        LM_BUG("loop body does not end in a yield of %d values", n);
    const sym_expr **fin = LM_NEWN(b->arena, const sym_expr *, n);
    for (int i = 0; i < n; i++) {
        tir_value *a = tir_for_arg(f, i);
        if (!tir_is_int_scalar(&a->type))
            continue;
        const sym_expr *init = tir_for_init(f, i)->sym, *next = y->opnds[i]->sym;
        const sym_expr *coeff = NULL, *rest = NULL;
        int64_t c;
        if (!init || !next || !f->iv)
            continue;
        if (next == a->carry) {
            fin[i] = init;
            continue;
        }
        if (!sym_affine_coeff(s, next, a->carry, &coeff, &rest) || !sym_is_const(coeff, &c) || c != 1)
            continue;
        bool clean = !sym_depends_on(rest, f->iv);
        for (int j = 0; j < n && clean; j++) {
            tir_value *o = tir_for_arg(f, j);
            if (o->carry && sym_depends_on(rest, o->carry))
                clean = false;
        }
        if (clean)
            fin[i] = sym_add(s, init, sym_mul(s, rest, f->iv));
    }
    for (int i = 0; i < n; i++) {
        tir_value *a = tir_for_arg(f, i);
        if (tir_is_int_scalar(&a->type))
            a->sym = fin[i];
    }
    infer_block(b, body, depth + 1);
}

static void infer_block(tir_builder *b, tir_block *blk, int depth)
{
    for (tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_FOR)
            infer_for(b, op, depth);
        else if (op->code == TIR_IF)
            for (int r = 0; r < op->nregions; r++)
                infer_block(b, op->regions[r], depth + 1);
        else
            tir_sym_infer(b, op);
    }
}

void tir_sym_infer_for(tir_builder *b, tir_op *forop)
{
    if (forop->code != TIR_FOR)
        LM_BUG("tir_sym_infer_for on %s", tir_op_name(forop->code));
    infer_for(b, forop, 0);
}
