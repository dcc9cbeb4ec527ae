/* msplit.c - a compute loop split where its masks are the identity: the
 * trips on which every predicate of its `mask`s holds on every element of
 * their blocks run a copy of the body without them, reading each masked
 * value's input in its place; the other trips keep them (docs/scheduler.md,
 * "A mask split off the trips where it is the identity"). The masks are a
 * kernel's own (a `tl.where` on a mask) and the masked copies of loads a
 * boundary check cuts short, whose pages past the extent hold stale data
 * only on the trips whose block crosses it.
 *
 * The split is derived from the mask's predicates, not from the kernel's
 * shape: each predicate pr*i + pc*j + k >= 0 over the block's global
 * element indices has k (with the block's first row and column folded in)
 * affine in the loop variable t, k = a*t + b; its least value over the
 * block is a*t + b + m with m the most negative the row and column terms
 * reach, so it holds everywhere exactly when a*t + b + m >= 0. A negative a
 * makes that a prefix of the trips, a positive one a suffix; the masks of a
 * loop are left out together, on the trips where all of them hold. The
 * masked value's two CBs (the mask's input and output) trade names in the
 * copy from the mask on, so nothing is allocated anew and the data-movement
 * kernels keep their one loop: they never see those CBs, or (a load's
 * copy) push the input a block a trip either way.
 *
 * The plan's side (the model prices the split from it): the same bound on
 * the Tile IR's predicates, as expressions of the schedule's symbols, at the
 * bottom.
 */
#include "lower/lower_int.h"

/* ---- expressions ------------------------------------------------------------ */

static bool uses_slot(const df_expr *e, int v)
{
    if (!e)
        return false;
    if (e->kind == DF_X_VAR)
        return e->slot == v;
    return uses_slot(e->a, v) || uses_slot(e->b, v);
}

/* e with slot `from[i]` replaced by to[i] (rebuilt through df_bin, which
 * folds what becomes constant). */
static const df_expr *subst(df_program *p, const df_expr *e, const int *from, const df_expr *const *to, int n)
{
    if (!e)
        return NULL;
    if (e->kind == DF_X_CONST)
        return e;
    if (e->kind == DF_X_VAR) {
        for (int i = 0; i < n; i++)
            if (e->slot == from[i])
                return to[i];
        return e;
    }
    return df_bin(p, e->kind, subst(p, e->a, from, to, n), subst(p, e->b, from, to, n));
}

/* The coefficient of slot v in e; false when e is not affine in v (v under
 * a product with another non-constant, a division, a modulo, min or max). */
static bool coef_of(const df_expr *e, int v, int64_t *a)
{
    int64_t x, y;
    if (!uses_slot(e, v)) {
        *a = 0;
        return true;
    }
    switch (e->kind) {
    case DF_X_VAR: *a = 1; return true;
    case DF_X_ADD:
    case DF_X_SUB:
        if (!coef_of(e->a, v, &x) || !coef_of(e->b, v, &y))
            return false;
        *a = e->kind == DF_X_ADD ? x + y : x - y;
        return true;
    case DF_X_MUL:
        if (e->a->kind == DF_X_CONST && coef_of(e->b, v, &y)) {
            *a = e->a->value * y;
            return true;
        }
        if (e->b->kind == DF_X_CONST && coef_of(e->a, v, &x)) {
            *a = e->b->value * x;
            return true;
        }
        return false;
    default: return false;
    }
}

static bool const_of(const df_expr *e, int64_t *v)
{
    if (!e || e->kind != DF_X_CONST)
        return false;
    *v = e->value;
    return true;
}

/* ---- the trips a mask is the identity on ------------------------------------- */

/* Where the unmasked trips of loop `f` end (prefix) or start (suffix). */
typedef struct bound {
    const df_expr *at;
    bool suffix;   /* the unmasked trips are [at, hi); else [lo, at) */
} bound;

/* One predicate r*i + c*j + k >= 0 of mask s over trips t of the loop on
 * slot v. The mask reads element (r0, c0) of tile (row + u / cols, col +
 * u % cols), i.e. i = 32*row + x and j = 32*col + y with 0 <= x < 32*rows,
 * 0 <= y < 32*cols. So the predicate's value is K + r*x + c*y with
 * K = k + 32*r*row + 32*c*col, and its least value over the block is
 * K + m, m = min(r, 0)*(32*rows - 1) + min(c, 0)*(32*cols - 1) (each term
 * least at an end of its range, independently). With K = a*t + b (affine in
 * t), the predicate holds on the whole block iff a*t + b + m >= 0:
 *  a < 0: t <= (b + m) / -a, i.e. t < floor((b + m) / -a) + 1 (exact in
 *         integers, floor division);
 *  a > 0: t >= ceil(-(b + m) / a) = -floor((b + m) / a);
 *  a = 0: every trip or none: [b + m >= 0] = min(max(b + m + 1, 0), 1).
 * Returns 0 when the predicate is not of that form, 1 for a prefix bound
 * (t < *at), 2 for a suffix bound (t >= *at), 3 for a = 0 (*at is the 0/1
 * condition). */
static int pred_bound(df_program *p, const df_stmt *s, const df_expr *pr, const df_expr *pc, const df_expr *pk,
                      int v, const df_expr **at)
{
    int64_t r, c, rows, cols, a;
    if (!const_of(pr, &r) || !const_of(pc, &c) || !const_of(s->rows, &rows) || !const_of(s->cols, &cols))
        return 0;
    const df_expr *K = df_bin(p, DF_X_ADD, pk,
                              df_bin(p, DF_X_ADD, df_bin(p, DF_X_MUL, df_const(p, LW_TILE * r), s->row),
                                     df_bin(p, DF_X_MUL, df_const(p, LW_TILE * c), s->col)));
    if (!coef_of(K, v, &a))
        return 0;
    int64_t m = (r < 0 ? r * (LW_TILE * rows - 1) : 0) + (c < 0 ? c * (LW_TILE * cols - 1) : 0);
    int from[1] = {v};
    const df_expr *zero[1] = {df_const(p, 0)};
    const df_expr *bm = df_bin(p, DF_X_ADD, subst(p, K, from, zero, 1), df_const(p, m));
    if (a < 0) {
        *at = df_bin(p, DF_X_ADD, df_bin(p, DF_X_DIV, bm, df_const(p, -a)), df_const(p, 1));
        return 1;
    }
    if (a > 0) {
        *at = df_bin(p, DF_X_SUB, df_const(p, 0), df_bin(p, DF_X_DIV, bm, df_const(p, a)));
        return 2;
    }
    *at = df_bin(p, DF_X_MIN, df_bin(p, DF_X_MAX, df_bin(p, DF_X_ADD, bm, df_const(p, 1)), df_const(p, 0)),
                 df_const(p, 1));
    return 3;
}

/* The trips of loop f on which masks m[0..n) are all the identity, as a
 * bound within [lo, hi]; false when their predicates give no such bound
 * (a prefix and a suffix: the unmasked trips would be a middle run). */
static bool masks_bound(df_program *p, const df_stmt *f, df_stmt *const *m, int n, bound *out)
{
    const df_expr *pre = NULL, *suf = NULL, *all = df_const(p, 1);
    for (int i = 0; i < n; i++) {
        const df_stmt *s = m[i];
        const df_expr *pr[2] = {s->p1r, s->p2r}, *pc[2] = {s->p1c, s->p2c}, *pk[2] = {s->p1k, s->p2k};
        for (int q = 0; q < 2; q++) {
            const df_expr *at;
            switch (pred_bound(p, s, pr[q], pc[q], pk[q], f->var, &at)) {
            case 0: return false;
            case 1: pre = pre ? df_bin(p, DF_X_MIN, pre, at) : at; break;
            case 2: suf = suf ? df_bin(p, DF_X_MAX, suf, at) : at; break;
            default: all = df_bin(p, DF_X_MIN, all, at); break;
            }
        }
    }
    if (pre && suf)
        return false;
    out->suffix = suf != NULL;
    const df_expr *at = out->suffix ? suf : pre ? pre : f->hi;
    /* a = 0: the condition c (0 or 1; constant 1 when every such predicate
       is absent) empties the unmasked run when 0: a prefix [lo, lo +
       c*(hi - lo)), a suffix [hi - c*(hi - lo), hi) */
    if (all->kind != DF_X_CONST || all->value != 1) {
        const df_expr *cs = df_bin(p, DF_X_MUL, all, df_bin(p, DF_X_SUB, f->hi, f->lo));
        at = out->suffix ? df_bin(p, DF_X_MAX, at, df_bin(p, DF_X_SUB, f->hi, cs))
                         : df_bin(p, DF_X_MIN, at, df_bin(p, DF_X_ADD, f->lo, cs));
    }
    out->at = df_bin(p, DF_X_MAX, f->lo, df_bin(p, DF_X_MIN, f->hi, at));
    return true;
}

/* ---- the masked value's CBs ---------------------------------------------------- */

/* Whether s (a step of a chain when `step`) names CB cb, in its steps or
   body too. */
static bool names_cb(const df_stmt *s, bool step, int cb)
{
    const df_opinfo *oi = step ? df_step_info(s->op) : &df_ops[s->op];
    for (int f = 0; f < oi->nfields; f++)
        if (oi->fields[f].kind == DF_F_CB && *(const int *)((const char *)s + oi->fields[f].offset) == cb)
            return true;
    for (int i = 0; i < s->nbody; i++)
        if (names_cb(s->body[i], df_has_steps(s->op), cb))
            return true;
    return false;
}

static bool refs_cb(const df_stmt *s, int cb) { return names_cb(s, false, cb); }

static bool body_refs(df_stmt *const *body, int n, int cb)
{
    for (int i = 0; i < n; i++)
        if (refs_cb(body[i], cb))
            return true;
    return false;
}

static bool is_cbop(const df_stmt *s)
{
    return s->op == DF_CB_RESERVE || s->op == DF_CB_PUSH || s->op == DF_CB_WAIT || s->op == DF_CB_POP;
}

/* Every CB op on cb in the body moves n pages (its whole ring), and no
   swap names it. */
static bool whole_ring(df_stmt *const *body, int nb, int cb, int64_t n)
{
    for (int i = 0; i < nb; i++) {
        const df_stmt *s = body[i];
        int64_t v;
        if (s->op == DF_CB_SWAP && (s->cb == cb || s->cb_b == cb))
            return false;
        if (is_cbop(s) && s->cb == cb && (!const_of(s->n, &v) || v != n))
            return false;
        if (s->op == DF_FOR && !whole_ring(s->body, s->nbody, cb, n))
            return false;
    }
    return true;
}

static const df_cb *cb_decl(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return &c->cbs[i];
    return NULL;
}

/* The statements naming CB a or b in f's body from index `from` on (step
 * 1) or back (step -1): up to n of them into at[]; how many. */
static int refs_from(const df_stmt *f, int from, int step, int a, int b, int *at, int n)
{
    int k = 0;
    for (int i = from; i >= 0 && i < f->nbody && k < n; i += step)
        if (refs_cb(f->body[i], a) || refs_cb(f->body[i], b))
            at[k++] = i;
    return k;
}

static bool is_op_on(const df_stmt *s, df_op op, int cb) { return s->op == op && s->cb == cb; }

/* What a mask's CBs must satisfy to trade names from the mask on in a trip,
 * whoever pushes its input: its block whole at offset 0 of both, n =
 * rows*cols pages, the output a CB of n pages in one format with the input
 * that only the compute kernel names; every CB op of the compute kernel on
 * either moves n pages and no swap names them (so the output is always
 * empty or full, its pointers at the start of its ring); in the trip only
 * the loop body's own statements name them (not a nested loop's), and the
 * mask's reserve of the output, push of the output and pop of the input
 * are the statements next to it that name either: the input is full and
 * the output empty before it, the reverse after it. *n gets the block's
 * pages, *after the index of the second statement after the mask. */
static bool mask_cbs(const df_class *c, const df_stmt *f, int mi, int64_t *n, int *after)
{
    const df_stmt *s = f->body[mi];
    int a = s->cb, b = s->cb_out;
    int64_t rows, cols, at, ato, pb;
    if (a == b || !const_of(s->rows, &rows) || !const_of(s->cols, &cols) || !const_of(s->at, &at) ||
        !const_of(s->at_out, &ato) || at || ato)
        return false;
    *n = rows * cols;
    const df_cb *ca = cb_decl(c, a), *cbb = cb_decl(c, b);
    if (!ca || !cbb || ca->format != cbb->format || !const_of(cbb->pages_e, &pb) || pb != *n)
        return false;
    for (int k = 0; k < DF_NSUPPORT; k++)
        if (c->support[k] == a || c->support[k] == b)
            return false;
    for (int k = 0; k < DF_NKERNELS; k++)
        if (k != DF_COMPUTE && body_refs(c->kernels[k].body, c->kernels[k].nbody, b))
            return false;
    const df_kernel *ck = &c->kernels[DF_COMPUTE];
    if (!whole_ring(ck->body, ck->nbody, a, *n) || !whole_ring(ck->body, ck->nbody, b, *n))
        return false;
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i]->op == DF_FOR && (refs_cb(f->body[i], a) || refs_cb(f->body[i], b)))
            return false;
    int prev, next[2];
    if (refs_from(f, mi - 1, -1, a, b, &prev, 1) < 1 || !is_op_on(f->body[prev], DF_CB_RESERVE, b) ||
        refs_from(f, mi + 1, 1, a, b, next, 2) < 2)
        return false;
    bool push_b = false, pop_a = false;
    for (int q = 0; q < 2; q++) {
        push_b |= is_op_on(f->body[next[q]], DF_CB_PUSH, b);
        pop_a |= is_op_on(f->body[next[q]], DF_CB_POP, a);
    }
    *after = next[1];
    return push_b && pop_a;
}

/* How full CB x ends the trip, from `full` after statement `from`. */
static int64_t ends(const df_stmt *f, int from, int x, int64_t full)
{
    for (int i = from + 1; i < f->nbody; i++) {
        const df_stmt *t = f->body[i];
        full += is_op_on(t, DF_CB_PUSH, x) ? 1 : is_op_on(t, DF_CB_POP, x) ? -1 : 0;
    }
    return full;
}

/* Whether the masked value's CBs a (input) and b (output) may trade names
 * from mask f->body[mi] on in a trip of loop f: mask_cbs, a of n pages
 * too and named by the compute kernel only, and from there to the end of
 * the trip the two end up equally full, so the trip that traded names
 * leaves both as the trip that did not. */
static bool can_swap(const df_class *c, const df_stmt *f, int mi)
{
    int a = f->body[mi]->cb, b = f->body[mi]->cb_out, after;
    int64_t n, pa;
    if (!mask_cbs(c, f, mi, &n, &after) || !const_of(cb_decl(c, a)->pages_e, &pa) || pa != n)
        return false;
    for (int k = 0; k < DF_NKERNELS; k++)
        if (k != DF_COMPUTE && body_refs(c->kernels[k].body, c->kernels[k].nbody, a))
            return false;
    /* a empty and b full after the mask */
    return ends(f, after, a, 0) == ends(f, after, b, 1);
}

/* Whether mask f->body[mi] is the masked copy of a load cut short whose
 * input CB a another kernel pushes (any number of blocks deep) and whose
 * output b takes its place in the trip: mask_cbs, the compute kernel waits
 * for a's block just before (the reserve of b between), nothing in the
 * trip names a after its pop, and b is emptied by the end of the trip and
 * not named before the wait. Then trading the names from the mask on
 * renames b to a: the trip reads the input's block where it is and pops it
 * where it popped the copy, and the other kernel's pushes and the compute
 * kernel's pops of a stay one a trip. */
static bool can_clean(const df_class *c, const df_stmt *f, int mi)
{
    int a = f->body[mi]->cb, b = f->body[mi]->cb_out, after, back[2];
    int64_t n;
    if (!mask_cbs(c, f, mi, &n, &after) || refs_from(f, mi - 1, -1, a, b, back, 2) < 2 ||
        !is_op_on(f->body[back[1]], DF_CB_WAIT, a) || refs_from(f, back[1] - 1, -1, a, b, back, 1) > 0)
        return false;
    for (int i = after + 1; i < f->nbody; i++)
        if (refs_cb(f->body[i], a))
            return false;
    return ends(f, after, b, 1) == 0;
}

/* ---- the copy without the mask ------------------------------------------------- */

typedef struct clonectx {
    df_program *p;
    df_class *c;
    int from[DF_MAX_SLOTS];
    const df_expr *to[DF_MAX_SLOTS];
    int n;
    bool full; /* out of loop variable slots */
} clonectx;

/* A copy of s whose expressions read the copies' loop variables, each loop
   of it on a slot of its own (named as the original). */
static df_stmt *clone_stmt(clonectx *X, const df_stmt *s, bool step)
{
    df_stmt *n = LM_NEW(&X->p->arena, df_stmt);
    *n = *s;
    n->body = NULL;
    n->nbody = 0;
    if (s->op == DF_FOR) {
        int slot = df_add_loop_var(X->p, X->c, X->c->slot_names[s->var]);
        if (slot < 0 || X->n == DF_MAX_SLOTS) {
            X->full = true;
            return n;
        }
        n->var = slot;
        X->from[X->n] = s->var;
        X->to[X->n++] = df_slot(X->p, slot);
    }
    const df_opinfo *oi = step ? df_step_info(s->op) : &df_ops[s->op];
    for (int f = 0; f < oi->nfields; f++)
        if (oi->fields[f].kind == DF_F_EXPR) {
            const df_expr **e = (const df_expr **)((char *)n + oi->fields[f].offset);
            *e = subst(X->p, *e, X->from, X->to, X->n);
        }
    for (int i = 0; i < s->nbody; i++)
        df_add_body(X->p, n, clone_stmt(X, s->body[i], df_has_steps(s->op)));
    return n;
}

/* Trade CB names a and b in s (its steps and body too). */
static void swap_cbs(df_stmt *s, bool step, int a, int b)
{
    const df_opinfo *oi = step ? df_step_info(s->op) : &df_ops[s->op];
    for (int f = 0; f < oi->nfields; f++)
        if (oi->fields[f].kind == DF_F_CB) {
            int *id = (int *)((char *)s + oi->fields[f].offset);
            *id = *id == a ? b : *id == b ? a : *id;
        }
    for (int i = 0; i < s->nbody; i++)
        swap_cbs(s->body[i], df_has_steps(s->op), a, b);
}

/* Leave mask g->body[mi] out of loop copy g: its reserve, push and pop
 * (and the wait on its input just before it) go too, and from there on the
 * input's CB stands for the output's and back. */
static void drop_mask(df_program *p, df_stmt *g, int mi)
{
    const df_stmt *s = g->body[mi];
    int a = s->cb, b = s->cb_out, prev = -1, wait = -1, next[3];
    df_stmt *const *body = g->body;
    int n = g->nbody, npop = 0, npush = 0;
    refs_from(g, mi - 1, -1, a, b, &prev, 1); /* the reserve of b (mask_cbs) */
    bool has_wait = refs_from(g, prev - 1, -1, a, b, &wait, 1) == 1;
    /* the wait goes only when the value's next reader waits for it anew
       (the first statement naming either after the push and pop) */
    bool drop_wait = has_wait && is_op_on(body[wait], DF_CB_WAIT, a) && refs_from(g, mi + 1, 1, a, b, next, 3) == 3 &&
                     is_op_on(body[next[2]], DF_CB_WAIT, b);
    g->body = NULL;
    g->nbody = 0;
    for (int i = 0; i < n; i++) {
        df_stmt *t = body[i];
        bool gone = i == mi || i == prev || (drop_wait && i == wait);
        if (i > mi && !npush && is_op_on(t, DF_CB_PUSH, b))
            gone = true, npush++;
        else if (i > mi && !npop && is_op_on(t, DF_CB_POP, a))
            gone = true, npop++;
        else if (i > mi && !gone)
            swap_cbs(t, false, a, b);
        if (!gone)
            df_add_body(p, g, t);
    }
}

/* The body of f without masks mi[0..n). */
static df_stmt *unmasked_copy(clonectx *X, const df_stmt *f, const int *mi, int n)
{
    df_stmt *g = clone_stmt(X, f, false);
    if (X->full)
        return NULL;
    df_stmt *m[LW_MAX_PRED];
    for (int q = 0; q < n; q++)
        m[q] = g->body[mi[q]];
    for (int q = 0; q < n; q++)
        for (int i = 0; i < g->nbody; i++)
            if (g->body[i] == m[q]) {
                drop_mask(X->p, g, i);
                break;
            }
    return g;
}

/* ---- the split ------------------------------------------------------------------- */

/* The masks among f's own statements the split leaves out, into mi[]:
 * every masked copy of a load cut short (can_clean) and the one mask whose
 * CBs may trade names (can_swap; none when several: a mask in two steps),
 * that one first; how many, and in *bd the trips where all are the
 * identity. Where the copies' bound and the mask's do not meet (a prefix
 * and a suffix), the mask alone. */
static int split_masks(kctx *K, const df_stmt *f, int *mi, bound *bd)
{
    int n = 0, nswap = 0, swap = -1, clean[LW_MAX_PRED], nclean = 0;
    for (int i = 0; i < f->nbody; i++) {
        if (f->body[i]->op != DF_MASK)
            continue;
        if (can_swap(K->c, f, i))
            nswap++, swap = i;
        else if (can_clean(K->c, f, i) && nclean + 1 < LW_MAX_PRED)
            clean[nclean++] = i;
    }
    if (nswap == 1)
        mi[n++] = swap;
    for (int q = 0; q < nclean; q++)
        mi[n++] = clean[q];
    df_stmt *m[LW_MAX_PRED];
    for (int q = 0; q < n; q++)
        m[q] = f->body[mi[q]];
    if (n && masks_bound(K->p, f, m, n, bd))
        return n;
    return nswap == 1 && masks_bound(K->p, f, m, 1, bd) ? 1 : 0;
}

/* Split loop body[at] where its masks are the identity; returns the
 * statements that now stand in its place (1 or 2). */
static int split_loop(kctx *K, df_stmt *const *body, int at, df_stmt **out)
{
    df_stmt *f = body[at];
    out[0] = f;
    int mi[LW_MAX_PRED], nm;
    int64_t step;
    bound bd;
    if (!const_of(f->step, &step) || step != 1 || !(nm = split_masks(K, f, mi, &bd)))
        return 1;
    /* the unmasked run [u0, u1), the masked one [m0, m1) */
    const df_expr *u0 = bd.suffix ? bd.at : f->lo, *u1 = bd.suffix ? f->hi : bd.at;
    const df_expr *m0 = bd.suffix ? f->lo : bd.at, *m1 = bd.suffix ? bd.at : f->hi;
    if (lw_empty_everywhere(K, u0, u1))
        return 1;
    clonectx X = {.p = K->p, .c = K->c};
    df_stmt *g = unmasked_copy(&X, f, mi, nm);
    if (!g)
        return 1;
    g->lo = u0, g->hi = u1;
    bool masked = !lw_empty_everywhere(K, m0, m1);
    f->lo = m0, f->hi = m1;
    if (!masked) {
        out[0] = g;
        return 1;
    }
    out[0] = bd.suffix ? f : g;
    out[1] = bd.suffix ? g : f;
    return 2;
}

/* The loops of a body, innermost first; the body is rebuilt (its array
   grows by the df helpers' rule) when a loop becomes two. */
static void split_body(kctx *K, df_stmt ***body, int *nbody)
{
    df_stmt tmp = {.op = DF_FOR};
    bool grew = false;
    for (int i = 0; i < *nbody; i++) {
        df_stmt *s = (*body)[i], *out[2] = {s, NULL};
        int n = 1;
        if (s->op == DF_FOR) {
            split_body(K, &s->body, &s->nbody);
            n = split_loop(K, *body, i, out);
        }
        grew |= n == 2 || out[0] != s;
        for (int q = 0; q < n; q++)
            df_add_body(K->p, &tmp, out[q]);
    }
    if (grew) {
        *body = tmp.body;
        *nbody = tmp.nbody;
    }
}

void lw_split_masks(lw *L, df_class *c, const int rect[4])
{
    kctx K = {.L = L, .p = L->p, .c = c, .kind = DF_COMPUTE};
    K.x0 = rect[0], K.y0 = rect[1], K.x1 = rect[2], K.y1 = rect[3];
    df_kernel *k = &c->kernels[DF_COMPUTE];
    split_body(&K, &k->body, &k->nbody);
}

/* ---- the plan: the trips that keep each mask -------------------------------------- */

/* The trips of the loop around a mask whose predicates may all hold on the
 * whole block: the lowering runs them without it (above, on the program it
 * emits), so the model prices the mask on the others only. Each predicate
 * c0*i + c1*j + k >= 0 over the block's elements (0 <= i < ER, 0 <= j < EC)
 * holds on all of it iff k + min(c0, 0)(ER - 1) + min(c1, 0)(EC - 1) >= 0;
 * with k = a*iv + b (iv the trip index) that is iv < floor((b + m) / -a) +
 * 1 when a < 0, iv >= -floor((b + m) / a) when a > 0 (pred_bound's rule on
 * the Tile IR's predicates, as expressions of the schedule's symbols and
 * program ids). */
static void note(lw *L, const tir_op *at, const tir_op *op, int acc, const pred *p, int np, const sym_expr *er,
                 const sym_expr *ec)
{
    sym_ctx *sc = L->sc;
    const tir_op *f = at->parent ? at->parent->owner : NULL;
    if (!f || f->code != TIR_FOR || !f->iv || L->nnotes == LW_MAX_CHAINS || !er || !ec)
        return;
    lw_split_note *n = &L->notes[L->nnotes++];
    *n = (lw_split_note){.loop = f, .op = op, .access = acc};
    const sym_expr *one = sym_const(sc, 1);
    for (int q = 0; q < np; q++) {
        const sym_expr *a, *b;
        int64_t av;
        if (!sym_affine_coeff(sc, p[q].k, f->iv, &a, &b) || sym_eval(a, &L->s->values, &av) != SYM_OK) {
            n->bad = true;
            continue;
        }
        if (av == 0) {
            n->flat = true;
            continue;
        }
        const sym_expr *m = sym_add(sc, sym_mul(sc, sym_const(sc, LM_MIN(p[q].c[0], 0)), sym_sub(sc, er, one)),
                                    sym_mul(sc, sym_const(sc, LM_MIN(p[q].c[1], 0)), sym_sub(sc, ec, one)));
        const sym_expr *bm = sym_add(sc, b, m);
        if (av < 0) {
            const sym_expr *t = sym_add(sc, sym_floordiv(sc, bm, sym_neg(sc, a)), one);
            n->pre = n->pre ? sym_min(sc, n->pre, t) : t;
        } else {
            const sym_expr *t = sym_neg(sc, sym_floordiv(sc, bm, a));
            n->suf = n->suf ? sym_max(sc, n->suf, t) : t;
        }
    }
}

void lw_split_note_where(lw *L, const tir_op *op, const pred *p, int np, const vinfo *rr)
{
    note(L, op, op, -1, p, np, rr->ser, rr->sec);
}

void lw_split_note_clean(lw *L, int i)
{
    const access *x = &L->ax[i];
    pred p[2];
    int np = 0;
    const sym_expr *one = sym_const(L->sc, 1);
    if (x->clip_rows)
        p[np++] = (pred){{-1, 0}, sym_sub(L->sc, x->clip_rows, one)};
    if (x->clip_cols)
        p[np++] = (pred){{0, -1}, sym_sub(L->sc, x->clip_cols, one)};
    note(L, x->aa->op, NULL, i, p, np, x->ser, x->sec);
}

/* Whether the split leaves the masks of notes sel[0..n) out together
 * (split_masks: their bounds meet), and in *kept the trips of the loop
 * that keep them: NULL for every trip. A predicate constant in the trip
 * splits each core its own way; the busiest core is taken to be one where
 * it fails: every trip. */
static bool kept_trips(lw *L, const sym_expr *trips, const int *sel, int n, const sym_expr **kept)
{
    sym_ctx *sc = L->sc;
    const sym_expr *pre = NULL, *suf = NULL;
    bool flat = false;
    *kept = NULL;
    for (int q = 0; q < n; q++) {
        const lw_split_note *x = &L->notes[sel[q]];
        if (x->bad)
            return false;
        flat |= x->flat;
        if (x->pre)
            pre = pre ? sym_min(sc, pre, x->pre) : x->pre;
        if (x->suf)
            suf = suf ? sym_max(sc, suf, x->suf) : x->suf;
    }
    if (pre && suf)
        return false;
    if (flat || (!pre && !suf))
        return true;
    const sym_expr *at = sym_max(sc, sym_const(sc, 0), sym_min(sc, trips, pre ? pre : suf));
    *kept = pre ? sym_sub(sc, trips, at) : at;
    return true;
}

/* Join the notes of each loop as split_masks joins its masks: the one
 * where (none when several) and every masked copy, together where their
 * bounds meet, else the where alone. Each where the split leaves out on
 * some trips gets them in split_op/split_masked; each masked copy its
 * loop's trips that keep it in smasked. */
void lw_split_plan(lw *L)
{
    bool done[LW_MAX_CHAINS] = {false};
    for (int i = 0; i < L->nnotes; i++) {
        if (done[i])
            continue;
        const tir_op *f = L->notes[i].loop;
        const sym_expr *trips = NULL;
        for (int l = 0; l < L->k->nloops; l++)
            if (L->k->loops[l].op == f)
                trips = L->k->loops[l].trips;
        int where[LW_MAX_CHAINS], nw = 0, sel[LW_MAX_CHAINS], n = 0;
        for (int j = i; j < L->nnotes; j++)
            if (L->notes[j].loop == f) {
                done[j] = true;
                if (L->notes[j].op)
                    where[nw++] = j;
                else
                    sel[n++] = j;
            }
        if (!trips)
            continue;
        int nclean = n;
        if (nw == 1)
            sel[n++] = where[0];
        const sym_expr *kept;
        if (!kept_trips(L, trips, sel, n, &kept)) {
            nclean = 0;
            if (nw != 1 || !kept_trips(L, trips, where, 1, &kept))
                continue;
        }
        for (int q = 0; q < n && kept; q++) {
            const lw_split_note *x = &L->notes[sel[q]];
            if (x->op && L->nsplit < LW_MAX_CHAINS) {
                L->split_op[L->nsplit] = x->op;
                L->split_masked[L->nsplit++] = kept;
            } else if (!x->op && q < nclean) {
                L->ax[x->access].smasked = kept;
            }
        }
    }
}
