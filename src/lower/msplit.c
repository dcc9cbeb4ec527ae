/* msplit.c - a compute loop split where its mask is the identity: the trips
 * on which every predicate of a `mask` holds on every element of the block
 * run a copy of the body without that mask, reading the masked value's
 * input in its place; the other trips keep it (docs/scheduler.md, "A mask split off the trips
 * where it is the identity").
 *
 * The split is derived from the mask's predicates, not from the kernel's
 * shape: each predicate pr*i + pc*j + k >= 0 over the block's global
 * element indices has k (with the block's first row and column folded in)
 * affine in the loop variable t, k = a*t + b; its least value over the
 * block is a*t + b + m with m the most negative the row and column terms
 * reach, so it holds everywhere exactly when a*t + b + m >= 0. A negative a
 * makes that a prefix of the trips, a positive one a suffix. The masked
 * value's two CBs (the mask's input and output) trade names in the copy
 * from the mask on, so nothing is allocated anew and the data-movement
 * kernels, which never see those CBs, keep their one loop.
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

/* The trips of loop f on which mask s is the identity, as a bound within
 * [lo, hi]; false when its predicates give no such bound (one prefix and
 * one suffix: the unmasked trips would be a middle run). */
static bool mask_bound(df_program *p, const df_stmt *f, const df_stmt *s, bound *out)
{
    const df_expr *pr[2] = {s->p1r, s->p2r}, *pc[2] = {s->p1c, s->p2c}, *pk[2] = {s->p1k, s->p2k};
    const df_expr *pre = NULL, *suf = NULL, *all = df_const(p, 1);
    for (int q = 0; q < 2; q++) {
        const df_expr *at;
        switch (pred_bound(p, s, pr[q], pc[q], pk[q], f->var, &at)) {
        case 0: return false;
        case 1: pre = pre ? df_bin(p, DF_X_MIN, pre, at) : at; break;
        case 2: suf = suf ? df_bin(p, DF_X_MAX, suf, at) : at; break;
        default: all = df_bin(p, DF_X_MIN, all, at); break;
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

/* Whether the masked value's CBs a (input) and b (output) may trade names
 * from mask s on in a trip. Sufficient conditions, each checked:
 *  - only the compute kernel names them (no support CB, no other kernel),
 *  - they are one format and n = rows*cols pages each, and every CB op of
 *    the compute kernel on them moves n pages and no swap names them: so
 *    each is always empty or full, with its pointers at the start of its
 *    ring, and the two are interchangeable whenever they hold the same;
 *  - in the trip, only the loop body's own statements name them (not a
 *    nested loop's), and the mask's reserve of b, push of b and pop of a
 *    are the statements next to it that name either: so a is full and b
 *    empty before it, the reverse after it;
 *  - from there to the end of the trip the two end up equally full, so the
 *    trip that traded names leaves both as the trip that did not. */
static bool can_swap(const df_class *c, const df_stmt *f, int mi)
{
    const df_stmt *s = f->body[mi];
    int a = s->cb, b = s->cb_out;
    int64_t rows, cols, at, ato;
    if (a == b || !const_of(s->rows, &rows) || !const_of(s->cols, &cols) || !const_of(s->at, &at) ||
        !const_of(s->at_out, &ato) || at || ato)
        return false;
    int64_t n = rows * cols, pa, pb;
    const df_cb *ca = cb_decl(c, a), *cbb = cb_decl(c, b);
    if (!ca || !cbb || ca->format != cbb->format || !const_of(ca->pages_e, &pa) || !const_of(cbb->pages_e, &pb) ||
        pa != n || pb != n)
        return false;
    for (int k = 0; k < DF_NSUPPORT; k++)
        if (c->support[k] == a || c->support[k] == b)
            return false;
    for (int k = 0; k < DF_NKERNELS; k++)
        if (k != DF_COMPUTE &&
            (body_refs(c->kernels[k].body, c->kernels[k].nbody, a) || body_refs(c->kernels[k].body, c->kernels[k].nbody, b)))
            return false;
    const df_kernel *ck = &c->kernels[DF_COMPUTE];
    if (!whole_ring(ck->body, ck->nbody, a, n) || !whole_ring(ck->body, ck->nbody, b, n))
        return false;
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i]->op == DF_FOR && (refs_cb(f->body[i], a) || refs_cb(f->body[i], b)))
            return false;
    /* the statements naming a or b next to the mask */
    int prev = mi - 1;
    while (prev >= 0 && !refs_cb(f->body[prev], a) && !refs_cb(f->body[prev], b))
        prev--;
    if (prev < 0 || f->body[prev]->op != DF_CB_RESERVE || f->body[prev]->cb != b)
        return false;
    int next[2], nn = 0;
    for (int i = mi + 1; i < f->nbody && nn < 2; i++)
        if (refs_cb(f->body[i], a) || refs_cb(f->body[i], b))
            next[nn++] = i;
    if (nn < 2)
        return false;
    bool push_b = false, pop_a = false;
    for (int q = 0; q < 2; q++) {
        const df_stmt *t = f->body[next[q]];
        push_b |= t->op == DF_CB_PUSH && t->cb == b;
        pop_a |= t->op == DF_CB_POP && t->cb == a;
    }
    if (!push_b || !pop_a)
        return false;
    /* a empty and b full after the mask: how full each ends the trip */
    int64_t fa = 0, fb = 1;
    for (int i = next[1] + 1; i < f->nbody; i++) {
        const df_stmt *t = f->body[i];
        int d = t->op == DF_CB_PUSH ? 1 : t->op == DF_CB_POP ? -1 : 0;
        fa += t->cb == a ? d : 0;
        fb += t->cb == b ? d : 0;
    }
    return fa == fb;
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

/* The body of f without mask mi: its reserve, push and pop (and the wait
 * on its input just before it) go too, and from there on the input's CB
 * stands for the output's and back. */
static df_stmt *unmasked_copy(clonectx *X, const df_stmt *f, int mi)
{
    const df_stmt *s = f->body[mi];
    int a = s->cb, b = s->cb_out;
    df_stmt *g = clone_stmt(X, f, false);
    if (X->full)
        return NULL;
    df_stmt *keep = LM_NEW(&X->p->arena, df_stmt);
    *keep = *g;
    g->body = NULL;
    g->nbody = 0;
    int prev = mi - 1, npop = 0, npush = 0;
    while (prev >= 0 && !refs_cb(f->body[prev], a) && !refs_cb(f->body[prev], b))
        prev--; /* the reserve of b (can_swap) */
    int wait = prev - 1;
    while (wait >= 0 && !refs_cb(f->body[wait], a) && !refs_cb(f->body[wait], b))
        wait--;
    /* the wait goes only when the value's next reader waits for it anew
       (the first statement naming either after the push and pop) */
    int after = -1, seen = 0;
    for (int i = mi + 1; i < f->nbody && after < 0; i++)
        if ((refs_cb(f->body[i], a) || refs_cb(f->body[i], b)) && ++seen == 3)
            after = i;
    bool drop_wait = wait >= 0 && f->body[wait]->op == DF_CB_WAIT && f->body[wait]->cb == a && after >= 0 &&
                     f->body[after]->op == DF_CB_WAIT && f->body[after]->cb == b;
    for (int i = 0; i < keep->nbody; i++) {
        df_stmt *t = keep->body[i];
        bool gone = i == mi || i == prev || (drop_wait && i == wait);
        if (i > mi && !npush && t->op == DF_CB_PUSH && t->cb == b)
            gone = true, npush++;
        else if (i > mi && !npop && t->op == DF_CB_POP && t->cb == a)
            gone = true, npop++;
        else if (i > mi && !gone)
            swap_cbs(t, false, a, b);
        if (!gone)
            df_add_body(X->p, g, t);
    }
    return g;
}

/* ---- the split ------------------------------------------------------------------- */

/* The one mask among f's own statements whose CBs may trade names, or -1
 * (none, or several: a mask in two steps). Others (the copy of a load cut
 * short, whose input the reader pushes) stay in both bodies. */
static int only_mask(const df_class *c, const df_stmt *f)
{
    int m = -1;
    for (int i = 0; i < f->nbody; i++)
        if (f->body[i]->op == DF_MASK && can_swap(c, f, i)) {
            if (m >= 0)
                return -1;
            m = i;
        }
    return m;
}

/* Split loop body[at] where its mask is the identity; returns the
 * statements that now stand in its place (1 or 2). */
static int split_loop(kctx *K, df_stmt *const *body, int at, df_stmt **out)
{
    df_stmt *f = body[at];
    out[0] = f;
    int mi = only_mask(K->c, f);
    int64_t step;
    bound bd;
    if (mi < 0 || !const_of(f->step, &step) || step != 1 || !mask_bound(K->p, f, f->body[mi], &bd))
        return 1;
    /* the unmasked run [u0, u1), the masked one [m0, m1) */
    const df_expr *u0 = bd.suffix ? bd.at : f->lo, *u1 = bd.suffix ? f->hi : bd.at;
    const df_expr *m0 = bd.suffix ? f->lo : bd.at, *m1 = bd.suffix ? bd.at : f->hi;
    if (lw_empty_everywhere(K, u0, u1))
        return 1;
    clonectx X = {.p = K->p, .c = K->c};
    df_stmt *g = unmasked_copy(&X, f, mi);
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
