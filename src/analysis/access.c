/* access.c - access analysis (declared in access.h): for every block load
 * and store, the block's offsets in its tensor as affine maps of the program
 * ids and loop iteration indices, and from them the grid axes along which
 * every program reads the same block (reuse, the source of multicast).
 *
 * The Tile IR already gives integer scalars their symbolic values (tir.c),
 * so most of the work is following a block pointer back to the op that made
 * it: through ADVANCEs (offsets add up), loop-carried block pointers (a
 * pointer advanced by a loop-invariant amount d each iteration is at
 * init + d*iv inside the loop and at init + d*trip after it) and IFs whose
 * branches agree. Then the view's offsets are placed on the tensor's own
 * dimensions by matching the view's strides with the tensor's, which also
 * places an element offset added to the base pointer (a batch or head
 * offset) on the dimension it steps along.
 *
 * Whatever cannot be followed is reported as such and counted, for reuse,
 * as depending on every grid axis and loop: claiming reuse that is not there
 * would make the scheduler multicast the wrong data.
 */
#include "analysis/access.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BINDS = 64, MAX_DEPTH = 200 };

/* What a block pointer or descriptor value stands for: the op that made it
 * and its offsets along the view's dimensions (MAKE_DESC: zero; the offsets
 * of a descriptor access are added at the access). off[i] NULL: unknown. */
typedef struct bref {
    const tir_op *make; /* NULL: not traced */
    const sym_expr *off[TIR_MAX_RANK];
} bref;

/* A loop-carried block pointer under study, bound to placeholder offsets. */
typedef struct bind {
    const tir_value *arg;
    bref val;
} bind;

typedef struct actx {
    const tir_func *f;
    sym_ctx *s;
    lm_arena *a;
    const sym_expr *zero, *one;
    bind binds[MAX_BINDS];
    int nbinds;
    int nph;   /* placeholders made so far */
    int depth; /* recursion guard */
} actx;

static bool make_ok(const tir_op *m)
{
    int per = m->code == TIR_MAKE_BLOCK_PTR ? 3 : 2;
    return m->rank >= 1 && m->rank <= TIR_MAX_RANK && m->nopnds == 1 + per * m->rank;
}

static const sym_expr *add_opt(actx *ax, const sym_expr *x, const sym_expr *y)
{
    return x && y ? sym_add(ax->s, x, y) : NULL;
}

static bool is_zero(const sym_expr *e)
{
    int64_t v;
    return e && sym_is_const(e, &v) && v == 0;
}

static bref trace(actx *ax, const tir_value *v);

/* Loop-carried value j of `loop`: its initial offsets and, per dim, the
 * loop-invariant amount it moves by each iteration (NULL: not such an
 * amount). False if the pointer cannot be followed at all. The carried
 * argument is bound to fresh placeholder offsets p while the yielded value
 * is traced; the yield then reads p + d when the pointer moves by d. */
static bool carried(actx *ax, const tir_op *loop, int j, bref *init, const sym_expr **delta)
{
    if (loop->nregions != 1 || !loop->regions[0] || j < 0 || j >= tir_for_ncarried(loop))
        return false;
    const tir_block *body = loop->regions[0];
    const tir_op *y = body->last;
    int n = tir_for_ncarried(loop);
    if (body->nargs != 1 + n || !y || y->code != TIR_YIELD || y->nopnds != n)
        return false;
    const tir_value *arg = body->args[1 + j];
    for (int i = 0; i < ax->nbinds; i++)
        if (ax->binds[i].arg == arg)
            return false; /* reached itself other than through the binding */
    if (ax->nbinds == MAX_BINDS)
        return false;

    *init = trace(ax, tir_for_init(loop, j));
    if (!init->make)
        return false;
    int rk = init->make->rank;
    bref ph = {init->make, {0}};
    for (int i = 0; i < rk; i++) {
        /* the dot keeps these apart from every name a kernel can use */
        char name[40];
        snprintf(name, sizeof name, "acc.p.%d", ax->nph++);
        ph.off[i] = sym_var(ax->s, name);
    }
    ax->binds[ax->nbinds++] = (bind){arg, ph};
    bref nx = trace(ax, y->opnds[j]);
    ax->nbinds--;
    if (nx.make != init->make)
        return false; /* a different pointer comes round: only iteration 0 is known */

    for (int i = 0; i < rk; i++) {
        const sym_expr *co, *rest;
        int64_t c;
        delta[i] = NULL;
        if (!nx.off[i] || !init->off[i] || !sym_affine_coeff(ax->s, nx.off[i], ph.off[i], &co, &rest) ||
            !sym_is_const(co, &c))
            continue;
        if (c == 0 && rest == init->off[i])
            rest = ax->zero; /* the same pointer every iteration */
        else if (c != 1)
            continue;
        bool clean = !(loop->iv && sym_depends_on(rest, loop->iv));
        for (int k = 0; k < rk && clean; k++)
            clean = !sym_depends_on(rest, ph.off[k]);
        if (clean)
            delta[i] = rest;
    }
    return true;
}

/* offsets of carried value j: inside the loop (at = iv) or after it
 * (at = trip count) */
static bref carried_at(actx *ax, const tir_op *loop, int j, const sym_expr *at)
{
    bref init, r = {0};
    const sym_expr *delta[TIR_MAX_RANK];
    if (!carried(ax, loop, j, &init, delta))
        return r;
    r.make = init.make;
    for (int i = 0; i < init.make->rank; i++) {
        if (delta[i] && is_zero(delta[i]))
            r.off[i] = init.off[i];
        else
            r.off[i] = delta[i] && at ? add_opt(ax, init.off[i], sym_mul(ax->s, delta[i], at)) : NULL;
    }
    return r;
}

/* result k of an IF: known where both branches yield the same */
static bref if_result(actx *ax, const tir_op *op, int k)
{
    bref r = {0}, br[2];
    if (op->nregions != 2)
        return r;
    for (int b = 0; b < 2; b++) {
        const tir_op *y = op->regions[b] ? op->regions[b]->last : NULL;
        if (!y || y->code != TIR_YIELD || k >= y->nopnds)
            return r;
        br[b] = trace(ax, y->opnds[k]);
    }
    if (!br[0].make || br[0].make != br[1].make)
        return r;
    r.make = br[0].make;
    for (int i = 0; i < r.make->rank; i++)
        r.off[i] = br[0].off[i] == br[1].off[i] ? br[0].off[i] : NULL;
    return r;
}

static bref trace(actx *ax, const tir_value *v)
{
    bref r = {0};
    if (!v || ax->depth >= MAX_DEPTH)
        return r;
    for (int i = ax->nbinds - 1; i >= 0; i--)
        if (ax->binds[i].arg == v)
            return ax->binds[i].val;
    ax->depth++;
    const tir_op *d = v->def;
    if (d) {
        switch (d->code) {
        case TIR_MAKE_BLOCK_PTR:
            if (!make_ok(d))
                break;
            r.make = d;
            for (int i = 0; i < d->rank; i++)
                r.off[i] = d->opnds[1 + 2 * d->rank + i]->sym;
            break;
        case TIR_MAKE_DESC:
            if (!make_ok(d))
                break;
            r.make = d;
            for (int i = 0; i < d->rank; i++)
                r.off[i] = ax->zero;
            break;
        case TIR_ADVANCE: {
            bref p = trace(ax, d->opnds[0]);
            if (!p.make || p.make->code != TIR_MAKE_BLOCK_PTR || d->nopnds != 1 + p.make->rank)
                break;
            r.make = p.make;
            for (int i = 0; i < p.make->rank; i++)
                r.off[i] = add_opt(ax, p.off[i], d->opnds[1 + i]->sym);
            break;
        }
        case TIR_FOR: r = carried_at(ax, d, v->resno, d->sym); break;
        case TIR_IF: r = if_result(ax, d, v->resno); break;
        default: break;
        }
    } else if (v->block && v->block->owner && v->block->owner->code == TIR_FOR && v->argno >= 1) {
        const tir_op *loop = v->block->owner;
        r = carried_at(ax, loop, v->argno - 1, loop->iv);
    }
    ax->depth--;
    return r;
}

/* The tensor under a base pointer: a pointer parameter, possibly moved by
 * ADDPTRs whose element offsets are summed into *eoff (NULL if unknown). */
static const tir_tensor *base_tensor(actx *ax, const tir_value *p, const sym_expr **eoff)
{
    const sym_expr *e = ax->zero;
    for (int n = 0; p && n < MAX_DEPTH; n++) {
        if (p->def && p->def->code == TIR_ADDPTR && p->def->nopnds == 2) {
            e = add_opt(ax, e, p->def->opnds[1]->sym);
            p = p->def->opnds[0];
            continue;
        }
        if (!p->def && p->block == ax->f->body) {
            for (int i = 0; i < ax->f->nparams; i++) {
                if (ax->f->params[i].value == p) {
                    *eoff = e;
                    return ax->f->params[i].tensor;
                }
            }
        }
        break;
    }
    *eoff = e;
    return NULL;
}

/* Place the view's offsets and the base offset on the tensor's dimensions.
 * A view dimension is the tensor dimension whose stride it has (the launch
 * binds stride arguments to the tensor's strides). Each monomial of the base
 * offset goes to the outermost dimension whose stride divides it exactly;
 * the innermost stride is 1, so the address is always right even where a
 * monomial is not a whole number of rows. False if a view stride is unknown
 * or matches no dimension. */
/* e with its products of sums multiplied out, a few levels deep, so that
 * `(pid_b * H + pid_h) * N` gives a monomial per dimension. */
static const sym_expr *expand(actx *ax, const sym_expr *e, int depth)
{
    if (depth > 4 || (e->kind != SYM_ADD && e->kind != SYM_MUL))
        return e;
    if (e->kind == SYM_ADD) {
        const sym_expr *r = ax->zero;
        for (int i = 0; i < e->nargs; i++)
            r = sym_add(ax->s, r, expand(ax, e->args[i], depth + 1));
        return r;
    }
    for (int i = 0; i < e->nargs; i++) {
        if (e->args[i]->kind != SYM_ADD)
            continue;
        const sym_expr *rest = ax->one, *r = ax->zero;
        for (int j = 0; j < e->nargs; j++)
            if (j != i)
                rest = sym_mul(ax->s, rest, e->args[j]);
        for (int k = 0; k < e->args[i]->nargs; k++)
            r = sym_add(ax->s, r, expand(ax, sym_mul(ax->s, e->args[i]->args[k], rest), depth + 1));
        return r;
    }
    return e;
}

static bool place(actx *ax, const tir_tensor *t, const bref *r, const sym_expr *eoff,
                  const sym_expr *const *vblock, const sym_expr **off, const sym_expr **blk)
{
    const tir_op *m = r->make;
    int rk = m->rank;
    if (!t || !eoff || t->rank < rk || t->rank > TIR_MAX_RANK || !t->strides)
        return false;
    bool used[TIR_MAX_RANK] = {0};
    for (int d = 0; d < t->rank; d++) {
        off[d] = ax->zero;
        blk[d] = ax->one;
    }
    for (int i = 0; i < rk; i++) {
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        int d = t->rank - 1;
        /* innermost first: a dimension of size 1 shares its stride with
           the next one in, and the view means the dimension that has extent */
        while (d >= 0 && (used[d] || !st || t->strides[d] != st))
            d--;
        if (d < 0)
            return false;
        used[d] = true;
        off[d] = r->off[i];
        blk[d] = vblock[i];
    }
    if (is_zero(eoff))
        return true;
    eoff = expand(ax, eoff, 0);
    int nm = eoff->kind == SYM_ADD ? eoff->nargs : 1;
    for (int k = 0; k < nm; k++) {
        const sym_expr *mono = eoff->kind == SYM_ADD ? eoff->args[k] : eoff;
        int d;
        const sym_expr *q = NULL;
        for (d = 0; d < t->rank; d++) {
            const sym_expr *st = t->strides[d];
            if (!st || is_zero(st))
                continue;
            q = sym_floordiv(ax->s, mono, st);
            if (sym_mul(ax->s, q, st) == mono)
                break;
        }
        if (d == t->rank)
            return false;
        off[d] = add_opt(ax, off[d], q);
    }
    return true;
}

/* ---- decomposition and dependences ----------------------------------------- */

static bool is_index_var(const sym_expr *e)
{
    return e->kind == SYM_VAR && (strncmp(e->name, "pid.", 4) == 0 || strncmp(e->name, "iv.", 3) == 0);
}

static bool has_index_var(const sym_expr *e)
{
    if (is_index_var(e))
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (has_index_var(e->args[i]))
            return true;
    return false;
}

/* offset = sum(coeff * var) + constant over the pid/iv variables in it:
 * program ids by axis, then the enclosing loops outermost first, then any
 * other index variable in order of appearance. */
static void decompose(actx *ax, acc_dim *dim, const sym_expr *e, tir_op *const *loops, int nloops)
{
    memset(dim, 0, sizeof *dim);
    dim->offset = e;
    if (!e)
        return;
    enum { WINDOW = 32 };
    const sym_expr *order[TIR_MAX_GRID + ACC_MAX_LOOPS + WINDOW];
    int nv = 0;
    for (int g = 0; g < TIR_MAX_GRID; g++) {
        const sym_expr *v = tir_pid_var(ax->s, g);
        if (sym_depends_on(e, v))
            order[nv++] = v;
    }
    for (int i = 0; i < nloops; i++)
        if (loops[i]->iv && sym_depends_on(e, loops[i]->iv))
            order[nv++] = loops[i]->iv;
    const sym_expr *vars[WINDOW];
    int all = sym_vars(e, vars, WINDOW);
    for (int i = 0; i < all && i < WINDOW; i++) {
        bool seen = !is_index_var(vars[i]);
        for (int k = 0; k < nv && !seen; k++)
            seen = order[k] == vars[i];
        if (!seen)
            order[nv++] = vars[i];
    }
    /* sym_vars may have stopped early: an index variable past its window
       is still caught by the check of the constant below */
    const sym_expr *rest = e;
    for (int k = 0; k < nv; k++) {
        const sym_expr *co, *re;
        if (!sym_affine_coeff(ax->s, rest, order[k], &co, &re) || has_index_var(co))
            goto nonaffine;
        if (is_zero(co))
            continue;
        if (dim->nterms == ACC_MAX_TERMS)
            goto nonaffine;
        dim->terms[dim->nterms++] = (acc_term){order[k], co};
        rest = re;
    }
    if (has_index_var(rest))
        goto nonaffine;
    dim->constant = rest;
    dim->affine = true;
    return;
nonaffine:
    dim->nterms = 0;
    dim->constant = NULL;
    dim->affine = false;
}

static unsigned all_bits(int n) { return n >= 32 ? ~0u : (1u << n) - 1; }

/* e NULL: unknown, so depends on everything */
static void add_deps(actx *ax, acc_access *acc, const sym_expr *e)
{
    if (!e) {
        acc->grid_dep |= all_bits(ax->f->grid_rank);
        acc->loop_dep |= all_bits(acc->nloops);
        return;
    }
    for (int g = 0; g < TIR_MAX_GRID; g++)
        if (sym_depends_on(e, tir_pid_var(ax->s, g)))
            acc->grid_dep |= 1u << g;
    for (int i = 0; i < acc->nloops; i++)
        if (acc->loops[i]->iv && sym_depends_on(e, acc->loops[i]->iv))
            acc->loop_dep |= 1u << i;
}

/* ---- one access ------------------------------------------------------------ */

static void analyze_op(actx *ax, acc_access *acc, tir_op *op)
{
    bool desc = op->code == TIR_DESC_LOAD || op->code == TIR_DESC_STORE;
    acc->op = op;
    acc->is_store = op->code == TIR_STORE || op->code == TIR_DESC_STORE;
    const tir_value *p = op->nopnds > 0 ? op->opnds[0] : NULL;
    int vrank = p ? p->type.rank : 0;
    if (vrank > TIR_MAX_RANK)
        vrank = TIR_MAX_RANK;
    const sym_expr *const *vblock = p ? p->type.shape : NULL;

    bref r = trace(ax, p);
    if (r.make && (r.make->rank != vrank || (r.make->code == TIR_MAKE_DESC) != desc))
        r = (bref){0};
    int first = op->code == TIR_DESC_LOAD ? 1 : 2;
    if (r.make && desc) {
        if (op->nopnds != first + vrank)
            r = (bref){0};
        else
            for (int i = 0; i < vrank; i++)
                r.off[i] = add_opt(ax, r.off[i], op->opnds[first + i]->sym);
    }

    const sym_expr *eoff = ax->zero;
    const tir_tensor *t = r.make ? base_tensor(ax, r.make->opnds[0], &eoff) : NULL;
    const sym_expr *off[TIR_MAX_RANK], *blk[TIR_MAX_RANK];
    bool base_lost = false;
    if (r.make && place(ax, t, &r, eoff, vblock, off, blk)) {
        acc->rank = t->rank;
        const sym_expr **b = LM_NEWN(ax->a, const sym_expr *, t->rank);
        memcpy(b, blk, sizeof *b * (size_t)t->rank);
        acc->block = b;
        acc->extent = t->shape;
    } else {
        /* the view's own dimensions, taken as the tensor's */
        acc->rank = vrank;
        acc->block = vblock;
        if (r.make) {
            const sym_expr **e = LM_NEWN(ax->a, const sym_expr *, vrank ? vrank : 1);
            for (int i = 0; i < vrank; i++)
                e[i] = r.make->opnds[1 + i]->sym;
            acc->extent = e;
        }
        for (int i = 0; i < vrank; i++)
            off[i] = r.off[i];
        base_lost = !is_zero(eoff);
    }
    acc->tensor = t;
    acc->affine = true;
    for (int d = 0; d < acc->rank; d++) {
        decompose(ax, &acc->dims[d], off[d], acc->loops, acc->nloops);
        if (base_lost)
            acc->dims[d].affine = false; /* offsets are relative to a moved base */
        acc->affine &= acc->dims[d].affine;
        add_deps(ax, acc, off[d]);
    }
    if (base_lost)
        add_deps(ax, acc, eoff);
    acc->reuse = all_bits(ax->f->grid_rank) & ~acc->grid_dep;
}

typedef LM_VEC(acc_access) accvec;

static void walk(actx *ax, const tir_block *blk, tir_op **loops, int nloops, accvec *out)
{
    for (tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_LOAD || op->code == TIR_STORE || op->code == TIR_DESC_LOAD ||
            op->code == TIR_DESC_STORE) {
            acc_access acc;
            memset(&acc, 0, sizeof acc);
            memcpy(acc.loops, loops, sizeof *loops * (size_t)nloops);
            acc.nloops = nloops;
            analyze_op(ax, &acc, op);
            LM_PUSH(out, acc);
        }
        for (int r = 0; r < op->nregions; r++) {
            if (!op->regions[r])
                continue;
            /* loops nested deeper than ACC_MAX_LOOPS are not listed */
            int n = nloops;
            if (op->code == TIR_FOR && n < ACC_MAX_LOOPS)
                loops[n++] = op;
            walk(ax, op->regions[r], loops, n, out);
        }
    }
}

acc_result *acc_analyze(const tir_func *f, sym_ctx *s, lm_arena *a)
{
    actx ax = {0};
    ax.f = f;
    ax.s = s;
    ax.a = a;
    ax.zero = sym_const(s, 0);
    ax.one = sym_const(s, 1);
    accvec v = {0};
    tir_op *loops[ACC_MAX_LOOPS];
    if (f->body)
        walk(&ax, f->body, loops, 0, &v);
    acc_result *r = LM_NEW(a, acc_result);
    r->n = (int)v.len;
    r->acc = r->n ? LM_NEWN(a, acc_access, r->n) : NULL;
    if (r->n)
        memcpy(r->acc, v.items, sizeof *v.items * v.len);
    LM_VEC_FREE(&v);
    return r;
}

/* ---- text -------------------------------------------------------------------- */

static void print_opt(lm_buf *b, const sym_expr *e)
{
    if (e)
        sym_print(b, e);
    else
        lm_buf_putc(b, '?');
}

static void print_axes(lm_buf *b, const tir_func *f, unsigned mask)
{
    int n = 0;
    for (int g = 0; g < f->grid_rank; g++)
        n += (mask >> g) & 1;
    if (n == 0) {
        lm_buf_puts(b, "not reused");
        return;
    }
    lm_buf_printf(b, "reused along grid axis%s ", n > 1 ? "es" : "");
    bool first = true;
    for (int g = 0; g < f->grid_rank; g++) {
        if (!((mask >> g) & 1))
            continue;
        lm_buf_printf(b, first ? "%d (" : ", %d (", g);
        print_opt(b, f->grid[g]);
        lm_buf_putc(b, ')');
        first = false;
    }
}

static void print_loops(lm_buf *b, const acc_access *acc, unsigned mask)
{
    lm_buf_putc(b, '{');
    bool first = true;
    for (int i = 0; i < acc->nloops; i++) {
        if (!((mask >> i) & 1))
            continue;
        if (!first)
            lm_buf_puts(b, ", ");
        print_opt(b, acc->loops[i]->iv);
        first = false;
    }
    lm_buf_putc(b, '}');
}

static void print_access(lm_buf *b, const tir_func *f, const acc_access *acc)
{
    lm_buf_printf(b, "%s %s  block [", tir_op_name(acc->op->code), acc->tensor ? acc->tensor->name : "?");
    for (int d = 0; d < acc->rank; d++) {
        if (d)
            lm_buf_puts(b, ", ");
        print_opt(b, acc->block ? acc->block[d] : NULL);
    }
    lm_buf_puts(b, "]  at [");
    for (int d = 0; d < acc->rank; d++) {
        if (d)
            lm_buf_puts(b, ", ");
        print_opt(b, acc->dims[d].offset);
    }
    lm_buf_putc(b, ']');
    if (!acc->affine)
        lm_buf_puts(b, "  not affine");
    if (acc->op->loc.line > 0)
        lm_buf_printf(b, "  (line %d)", acc->op->loc.line);
    lm_buf_puts(b, "\n  depends on grid axes {");
    bool first = true;
    for (int g = 0; g < TIR_MAX_GRID; g++) {
        if (!((acc->grid_dep >> g) & 1))
            continue;
        lm_buf_printf(b, first ? "%d" : ", %d", g);
        first = false;
    }
    lm_buf_puts(b, "}, loops ");
    print_loops(b, acc, acc->loop_dep);
    lm_buf_puts(b, "; ");
    print_axes(b, f, acc->reuse);
    unsigned inv = all_bits(acc->nloops) & ~acc->loop_dep;
    if (inv) {
        lm_buf_puts(b, "; invariant in loops ");
        print_loops(b, acc, inv);
    }
    lm_buf_putc(b, '\n');
}

void acc_print(lm_buf *b, const tir_func *f, const acc_result *r)
{
    if (!r || r->n == 0) {
        lm_buf_puts(b, "no block accesses\n");
        return;
    }
    for (int i = 0; i < r->n; i++)
        print_access(b, f, &r->acc[i]);
    /* per tensor, in parameter order: reused along g if every access is */
    bool blank = false;
    for (int p = 0; p < f->nparams; p++) {
        const tir_tensor *t = f->params[p].tensor;
        bool dup = false;
        for (int q = 0; q < p && !dup; q++)
            dup = f->params[q].tensor == t;
        if (!t || dup)
            continue;
        unsigned reuse = all_bits(f->grid_rank);
        int n = 0;
        for (int i = 0; i < r->n; i++) {
            if (r->acc[i].tensor == t) {
                reuse &= r->acc[i].reuse;
                n++;
            }
        }
        if (!n)
            continue;
        if (!blank)
            lm_buf_putc(b, '\n');
        blank = true;
        lm_buf_printf(b, "%s: ", t->name);
        print_axes(b, f, reuse);
        lm_buf_putc(b, '\n');
    }
}
