/* fuse.c - launch sequences whose second kernel consumes the first's
 * output block by block (sched_fusion_find).
 *
 * Two consecutive launches A (producer) and B (consumer) can run as one
 * program in which A's partial results travel over the NoC to reducer
 * cores that run B, instead of through DRAM and a second launch. That is
 * legal when every tensor A stores and B loads is a scratch tensor between
 * them and B reads it exactly in blocks A wrote. The relation is read from
 * the access analysis alone, dimension by dimension of the tensor:
 *
 *   KEY     A tiles the dimension by one of its program axes, B by one of
 *           its own with the same block: the two axes are the same index
 *           (the batch-and-kv-head axis of flash decode);
 *   GATHER  A tiles it by one axis, B reads it whole: one B program needs
 *           every A program along that axis (the splits);
 *   SLICE   A writes it whole, B reads a part at an offset of its own axes
 *           (each combine program takes one query head's row);
 *   WHOLE   both take all of it.
 *
 * A's axes are then key or gather axes, B's key or local axes. A *group* is
 * one value of the key axes: the A programs along the gather axis produce
 * what the B programs along the local axes of that group consume. Nothing
 * here knows a kernel: names never matter, only the affine maps.
 */
#include "sched/sched.h"

#include <string.h>

static const sym_expr *fixb(sym_ctx *s, const sym_expr *e, const sym_env *bound)
{
    return e && bound ? sym_subst(s, e, bound) : e;
}

/* e1 == e2: the same expression once the sizes are bound, or equal values. */
static bool same(sym_ctx *s, const sym_expr *a, const sym_expr *b, const sym_env *bound)
{
    if (!a || !b)
        return false;
    a = fixb(s, a, bound);
    b = fixb(s, b, bound);
    if (a == b)
        return true;
    int64_t x, y;
    return sym_is_const(a, &x) && sym_is_const(b, &y) && x == y;
}

/* block >= extent, provably (the same expression, or both known). */
static bool covers(sym_ctx *s, const sym_expr *block, const sym_expr *extent, const sym_env *bound)
{
    if (same(s, block, extent, bound))
        return true;
    int64_t x, y;
    return sym_is_const(fixb(s, block, bound), &x) && sym_is_const(fixb(s, extent, bound), &y) && x >= y;
}

static bool is_zero_off(const acc_dim *d)
{
    int64_t v;
    return d->affine && d->nterms == 0 && (!d->constant || (sym_is_const(d->constant, &v) && v == 0));
}

/* offset = block * pid.g (one term, no constant): the axis g, else -1. */
static int tiling_axis(sym_ctx *s, const acc_dim *d, const sym_expr *block, int rank, const sym_env *bound)
{
    int64_t v;
    if (!d->affine || d->nterms != 1 || (d->constant && !(sym_is_const(d->constant, &v) && v == 0)))
        return -1;
    for (int g = 0; g < rank; g++)
        if (d->terms[0].var == tir_pid_var(s, g))
            return same(s, d->terms[0].coeff, block, bound) ? g : -1;
    return -1;
}

/* The grid axes (bits) an offset mentions; false if it mentions a loop. */
static bool pid_axes(sym_ctx *s, const acc_dim *d, int rank, unsigned *out)
{
    *out = 0;
    if (!d->affine)
        return false;
    for (int t = 0; t < d->nterms; t++) {
        int g = 0;
        while (g < rank && d->terms[t].var != tir_pid_var(s, g))
            g++;
        if (g == rank)
            return false;
        *out |= 1u << g;
    }
    return true;
}

static const sched_buf *buf_of(const sched_kernel *k, int access)
{
    for (int i = 0; i < k->nbufs; i++)
        if ((k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT) && k->bufs[i].access == access)
            return &k->bufs[i];
    return NULL;
}

/* The access's dimensions are its tensor's (the analysis placed them). */
static bool placed(const acc_access *x) { return x->tensor && x->rank == x->tensor->rank; }

#define WHY(...) (lm_buf_printf(why, __VA_ARGS__), false)

bool sched_fusion_find(sched_fusion *f, const sched_kernel *a, const sched_kernel *b, sym_ctx *s,
                       const sym_env *bound, lm_buf *why)
{
    memset(f, 0, sizeof *f);
    f->gather_axis = -1;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        f->key_of[g] = -1;
    int ra = a->f->grid_rank, rb = b->f->grid_rank;
    int a_of_key[TIR_MAX_GRID];
    for (int g = 0; g < TIR_MAX_GRID; g++)
        a_of_key[g] = -1;
    unsigned local = 0; /* B axes seen in SLICE dimensions */
    /* every load of B from a tensor A stores */
    for (int j = 0; j < b->acc->n; j++) {
        const acc_access *y = &b->acc->acc[j];
        if (y->is_store || !y->tensor)
            continue;
        int store = -1, nstores = 0;
        for (int i = 0; i < a->acc->n; i++) {
            const acc_access *x = &a->acc->acc[i];
            if (x->tensor == y->tensor && x->is_store) {
                store = i;
                nstores++;
            }
            if (x->tensor == y->tensor && !x->is_store)
                return WHY("'%s' reads '%s', which it also writes", a->name, y->tensor->name);
        }
        if (!nstores)
            continue;
        const acc_access *x = &a->acc->acc[store];
        const char *tn = y->tensor->name;
        if (y->tensor->role != TIR_SCRATCH)
            return WHY("'%s' is not a scratch tensor between the launches", tn);
        if (nstores > 1)
            return WHY("'%s' stores '%s' more than once", a->name, tn);
        if (x->nloops || y->nloops)
            return WHY("'%s' is written or read inside a loop, not once per program", tn);
        if (!placed(x) || !placed(y) || !x->affine || !y->affine)
            return WHY("the accesses of '%s' are not affine maps on its own dimensions", tn);
        for (int i = 0; i < b->acc->n; i++)
            if (i != j && b->acc->acc[i].tensor == y->tensor)
                return WHY("'%s' accesses '%s' more than once", b->name, tn);
        const sched_buf *bx = buf_of(a, store), *by = buf_of(b, j);
        if (!bx || !by || bx->format != by->format)
            return WHY("'%s' is stored and loaded in different formats", tn);
        if (f->nt == SCHED_MAX_OPS)
            return WHY("more than %d tensors pass between the launches", SCHED_MAX_OPS);
        sched_fused_tensor *t = &f->t[f->nt++];
        t->tensor = y->tensor;
        t->store = store;
        t->load = j;
        for (int d = 0; d < y->tensor->rank; d++) {
            const sym_expr *E = y->tensor->shape[d];
            const acc_dim *dx = &x->dims[d], *dy = &y->dims[d];
            int ga = tiling_axis(s, dx, x->block[d], ra, bound);
            int gb = tiling_axis(s, dy, y->block[d], rb, bound);
            bool xa_whole = is_zero_off(dx) && covers(s, x->block[d], E, bound);
            bool yb_whole = is_zero_off(dy) && covers(s, y->block[d], E, bound);
            unsigned yaxes;
            if (ga >= 0 && gb >= 0 && same(s, x->block[d], y->block[d], bound)) {
                if ((a_of_key[gb] >= 0 && a_of_key[gb] != ga) || (f->gather >> ga & 1u) || (local >> gb & 1u))
                    return WHY("dimension %d of '%s' ties program axes inconsistently", d, tn);
                if (!same(s, a->f->grid[ga], b->f->grid[gb], bound))
                    return WHY("axis %d of '%s' and axis %d of '%s' have different extents", ga, a->name, gb, b->name);
                a_of_key[gb] = ga;
                t->dim[d] = SCHED_FD_KEY;
            } else if (ga >= 0 && yb_whole) {
                for (int g = 0; g < rb; g++)
                    if (a_of_key[g] == ga)
                        return WHY("dimension %d of '%s' ties program axes inconsistently", d, tn);
                /* every element B reads is written: A's blocks along the axis cover it */
                if (!covers(s, sym_mul(s, a->f->grid[ga], x->block[d]), E, bound))
                    return WHY("the blocks '%s' writes along dimension %d of '%s' do not cover it", a->name, d, tn);
                f->gather |= 1u << ga;
                t->dim[d] = SCHED_FD_GATHER;
            } else if (xa_whole && yb_whole) {
                t->dim[d] = SCHED_FD_WHOLE;
            } else if (xa_whole && pid_axes(s, dy, rb, &yaxes)) {
                for (int g = 0; g < rb; g++)
                    if ((yaxes >> g & 1u) && a_of_key[g] >= 0)
                        return WHY("dimension %d of '%s' ties program axes inconsistently", d, tn);
                local |= yaxes;
                t->dim[d] = SCHED_FD_SLICE;
            } else {
                return WHY("'%s' reads dimension %d of '%s' in blocks '%s' did not write", b->name, d, tn, a->name);
            }
        }
    }
    if (!f->nt)
        return WHY("'%s' reads nothing '%s' writes", b->name, a->name);
    for (int g = 0; g < rb; g++)
        f->key_of[g] = a_of_key[g];
    int ngather = 0;
    for (int g = 0; g < ra; g++) {
        bool key = false;
        for (int h = 0; h < rb; h++)
            key |= a_of_key[h] == g;
        bool gat = f->gather >> g & 1u;
        if (!key && !gat)
            return WHY("programs of '%s' along axis %d write the same blocks", a->name, g);
        if (gat) {
            f->gather_axis = g;
            ngather++;
        }
    }
    if (ngather != 1)
        return WHY("'%s' is gathered along %d program axes (one is supported)", a->name, ngather);
    for (int g = 0; g < rb; g++)
        if (f->key_of[g] >= 0 && (local >> g & 1u))
            return WHY("axis %d of '%s' is both a key and a local axis", g, b->name);
    return true;
}

#undef WHY
