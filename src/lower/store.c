/* store.c - the storage of the lowering: stores and their CBs, where a
 * computed value goes, the values that stay in Dst (chains), the row sums
 * the packer accumulates and the casts it packs. */
#include "lower/lower_int.h"

#include <string.h>

/* ======================================================================
 * Stores, CBs and destinations
 * ==================================================================== */

int lw_new_store(lw *L, stkind kind, int64_t tiles, int64_t pages, arch_format fmt, lm_loc loc)
{
    if (L->nst == LW_MAX_STORES) {
        lw_fail(L, loc, "more than %d buffers", LW_MAX_STORES);
        return 0;
    }
    store *s = &L->st[L->nst];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->cb = s->cb2 = -1;
    s->tiles = tiles;
    s->pages = pages;
    s->fmt = fmt;
    s->first = s->last = -1;
    return L->nst++;
}

/* Tiles of an er x ec element block, as an expression. */
const sym_expr *lw_sym_tiles(lw *L, const sym_expr *er, const sym_expr *ec)
{
    const sym_expr *t = sym_const(L->sc, LW_TILE);
    return sym_mul(L->sc, sym_cdiv(L->sc, er, t), sym_cdiv(L->sc, ec, t));
}

const sym_expr *lw_vtiles(lw *L, const vinfo *v) { return lw_sym_tiles(L, v->ser, v->sec); }

/* The L1 plan's view of store s: its pages as tiles x mult. */
void lw_store_sym(lw *L, int s, const sym_expr *tiles, const sym_expr *mult, const char *what)
{
    store *st = &L->st[s];
    st->stiles = tiles;
    st->smult = mult ? mult : sym_const(L->sc, 1);
    st->what = what;
}

/* 1 when e > 0, else 0 (e >= 0). */
const sym_expr *lw_positive(lw *L, const sym_expr *e)
{
    return sym_min(L->sc, sym_const(L->sc, 1), sym_max(L->sc, sym_const(L->sc, 0), e));
}

/* A CB the probe's values leave out but others need (recorded once per op
 * and step), alone in its CB. */
void lw_plan_virtual(lw *L, const tir_op *op, int k, arch_format fmt, const sym_expr *bytes, const char *what)
{
    if (!L->record)
        return;
    for (int i = 0; i < L->nvirt; i++)
        if (L->virt[i].op == op && L->virt[i].k == k)
            return;
    if (L->nvirt == LW_MAX_TEMPS)
        return;
    L->virt[L->nvirt++] = (lw_virt){op, k, fmt, bytes, what};
}

/* Support CB k is needed where `when` (0 or 1) is 1. */
void lw_need_support(lw *L, df_support k, const sym_expr *when)
{
    L->sup[k] = L->sup[k] ? lw_positive(L, sym_add(L->sc, L->sup[k], when)) : when;
}

/* The support CBs the compute kernel needs at the schedule's values (of
 * this launch, or of either launch of a fused pair), after all others. */
bool lw_number_support(lw *L, const lw *other)
{
    for (int k = 0; k < DF_NSUPPORT; k++) {
        int64_t a = 0, b = 0;
        if ((L->sup[k] && !lw_ev(L, L->sup[k], &a, L->f->loc)) ||
            (other && other->sup[k] && !lw_ev(L, other->sup[k], &b, L->f->loc)))
            return false;
        L->sup_cb[k] = a > 0 || b > 0 ? lw_next_cb(L, L->f->loc) : -1;
    }
    return !L->failed;
}

int lw_next_cb(lw *L, lm_loc loc)
{
    int *n = L->la ? &L->la->ncbs : &L->ncbs; /* a fused consumer's ids follow its producer's */
    if (*n >= L->a->num_cbs) {
        lw_fail(L, loc, "the program needs more than the %d circular buffers of a core", L->a->num_cbs);
        return 0;
    }
    return (*n)++;
}

static bool is_compute_root(lw *L, int r)
{
    const tir_value *x = NULL;
    (void)x;
    const vinfo *ri = &L->v[r];
    return ri->kind == VK_TILE && ri->root == r && ri->rl == R_PLAIN && ri->st < 0;
}

void lw_record_defs(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            L->def[op->results[i]->uid] = op;
        for (int r = 0; r < op->nregions; r++)
            lw_record_defs(L, op->regions[r]);
    }
}

bool lw_computed_by_compute(lw *L, int r)
{
    const tir_op *d = L->def[r];
    return d && is_compute_root(L, r) && d->code != TIR_LOAD && d->code != TIR_DESC_LOAD && d->code != TIR_FOR;
}

/* Whether the body reads new value ri while carried value ai (its old
 * value) is still waiting at the CB's front: the compute kernel pops a
 * carried value after the op of its last use and waits for the new one
 * before the op of its first use (a yield alone does not read it). */
static bool read_beside_old(lw *L, const vinfo *ai, const vinfo *ri)
{
    if (!ri->first_top || ri->first_top->code == TIR_YIELD)
        return false;
    if (!ai->first_top)
        return false; /* unused: popped as the trip begins */
    return lw_pos(L, ri->first_top) <= lw_pos(L, ai->last_top);
}

static void plan_loop(lw *L, const tir_op *f)
{
    const tir_block *body = f->regions[0];
    const tir_op *y = tir_yield_of(body);
    for (int i = 0; i < tir_for_ncarried(f); i++) {
        const tir_value *arg = tir_for_arg(f, i), *res = f->results[i];
        vinfo *ai = V(L, arg);
        if (ai->kind != VK_TILE)
            continue;
        if (ai->bc != BC_NONE || ai->tview) {
            lw_fail(L, f->loc, "a loop-carried broadcast");
            return;
        }
        int64_t T = ai->tr * ai->tc;
        /* the summary's buffer may keep it in another format (a baseline's
           bf16 partials under a block-float output) */
        for (int b = 0; b < L->k->nbufs; b++)
            if (L->k->bufs[b].kind == SCHED_BUF_CARRY && L->k->bufs[b].value == arg)
                ai->fmt = V(L, res)->fmt = L->k->bufs[b].format;
        if (ai->fmt == ARCH_FP32)
            ai->fmt = V(L, res)->fmt = lw_accum_format(L);
        int sti = lw_new_store(L, ST_CARRY, T, 2 * T, ai->fmt, f->loc);
        lw_store_sym(L, sti, lw_vtiles(L, ai), sym_const(L->sc, 2),
                  lm_arena_printf(&L->ar, "%s (carried)", arg->name ? arg->name : "a tile"));
        ai->st = sti;
        V(L, res)->st = sti;
        const tir_value *yv = y->opnds[i];
        const vinfo *yi = V(L, yv);
        if (yv == arg) {
            L->st[sti].pages = T;
            L->st[sti].smult = sym_const(L->sc, 1);
            continue;
        }
        if (yi->kind != VK_TILE || yi->bc != BC_NONE || yi->trans || yi->tview) {
            continue; /* copied (or filled) at the yield */
        }
        int r = yi->root;
        /* the accumulator pattern: zeros in, the only use is dot's acc, the
           dot's only use is this yield */
        const tir_op *d = L->def[r];
        const vinfo *init = V(L, tir_for_init(f, i));
        if (d && d->code == TIR_DOT && d->nopnds == 3 && d->parent == body && d->opnds[2] == arg &&
            ai->nuses == 1 && lw_only_use(L, r) == y && init->kind == VK_CONST && init->c == 0.0) {
            store *s = &L->st[sti];
            s->inplace = true;
            s->pages = T;
            s->smult = sym_const(L->sc, 1);
            vinfo *ri = &L->v[r];
            ri->st = sti;
            ri->rl = R_NEW;
            ri->dest = D_CARRY;
            /* a loop that may run no trip must still leave zeros */
            sym_env env = {0};
            for (int g = 0; g < L->f->grid_rank; g++)
                sym_env_set_range(&env, tir_pid_var(L->sc, g), 0, L->ext[g] - 1);
            int64_t lo = 0, hi = 0;
            const sym_expr *trips = f->sym ? sym_subst(L->sc, f->sym, &L->s->values) : NULL;
            s->fill_first = !trips || sym_bounds(trips, &env, &lo, &hi) != SYM_OK || lo < 1;
            sym_env_free(&env);
            continue;
        }
        bool twice = false;
        for (int j = 0; j < y->nopnds; j++)
            if (j != i && y->opnds[j] != tir_for_arg(f, j) && V(L, y->opnds[j])->kind == VK_TILE &&
                V(L, y->opnds[j])->root == r)
                twice = true;
        if (!twice && d && d->parent == body && lw_computed_by_compute(L, r) && L->v[r].dest == D_OWN) {
            vinfo *ri = &L->v[r];
            ri->st = sti;
            ri->rl = R_NEW;
            ri->dest = D_CARRY;
            L->st[sti].pair = read_beside_old(L, ai, ri);
        }
    }
}

void lw_plan_block(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        if (op->code == TIR_FOR) {
            lw_plan_block(L, op->regions[0]);
            plan_loop(L, op);
        }
    }
}

void lw_plan_dot_acc(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            lw_plan_dot_acc(L, op->regions[r]);
        if (op->code != TIR_DOT || op->nopnds < 3)
            continue;
        const vinfo *acc = V(L, op->opnds[2]);
        const vinfo *res = V(L, op->results[0]);
        if (res->st >= 0 && L->st[res->st].inplace)
            continue;
        if (acc->kind != VK_TILE || acc->bc != BC_NONE || acc->trans)
            continue;
        int r = acc->root;
        const tir_op *d = L->def[r];
        if (d && d->parent == op->parent && lw_computed_by_compute(L, r) && L->v[r].dest == D_OWN &&
            lw_only_use(L, r) == op && d->code != TIR_DOT) {
            L->v[r].dest = D_DOT;
            L->v[r].dest_ref = op->results[0]->uid;
        }
    }
}

/* ======================================================================
 * Row maxima seeded with a running maximum
 * ==================================================================== */

/* The reduction whose result maximum op `max` takes inside one rowmax, or
 * NULL. */
const tir_op *lw_fused_reduce(const lw *L, const tir_op *max)
{
    for (int i = 0; i < L->nfmax; i++)
        if (L->fmax_max[i] == max)
            return L->fmax_red[i];
    return NULL;
}

/* A plain column vector of the compute kernel's tiles (no view). */
static bool plain_tile(const vinfo *v)
{
    return v->kind == VK_TILE && v->bc == BC_NONE && !v->trans && !v->tview;
}

/* Whether reduce_max `red` (axis 1, along whole tiles) can be taken inside
 * maximum `q` whose other operand is `m`: the result is read by q alone, at
 * q's level, and m is a column of the same tiles in a CB of its own. */
static bool seedable(lw *L, const tir_op *red, const tir_op *q, const tir_value *m)
{
    const vinfo *r = V(L, red->results[0]), *x = V(L, red->opnds[0]), *mv = V(L, m);
    if (red->parent != q->parent || lw_axis(L, red) != 1 || !plain_tile(x) || lw_only_use(L, r->root) != q ||
        r->root != red->results[0]->uid)
        return false;
    const vinfo *xr = &L->v[x->root], *qr = V(L, q->results[0]);
    if (xr->rank != 2 || xr->ec % LW_TILE || !plain_tile(mv) || mv->root == r->root || qr->root != q->results[0]->uid)
        return false;
    const vinfo *mr = &L->v[mv->root];
    return mr->tr == r->tr && mr->tc == r->tc && qr->tr == r->tr && qr->tc == r->tc;
}

/* maximum(m, max(x, axis=1)) is one rowmax of x seeded with m, as the LLK's
 * block reduction takes the previous maximum in Dst first: the row maximum
 * is never packed (D_FUSED), and what x's last use was moves to the
 * maximum (x is read there). */
void lw_plan_rowmax(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            lw_plan_rowmax(L, op->regions[r]);
        if (op->code != TIR_MAX || op->nopnds != 2 || op->nresults != 1 || L->nfmax == LW_MAX_CHAINS)
            continue;
        for (int i = 0; i < 2; i++) {
            const tir_op *red = op->opnds[i]->def;
            if (!red || red->code != TIR_REDUCE_MAX || !seedable(L, red, op, op->opnds[1 - i]))
                continue;
            vinfo *rv = V(L, red->results[0]);
            rv->dest = D_FUSED;
            rv->dest_ref = op->results[0]->uid;
            L->fmax_red[L->nfmax] = red;
            L->fmax_max[L->nfmax++] = op;
            for (int u = 0; u < L->nv; u++)
                if (L->v[u].last_top == red)
                    L->v[u].last_top = op;
            break;
        }
    }
}

/* ======================================================================
 * Row sums accumulated by the packer
 * ==================================================================== */

/* The op whose result sum `red` (axis 1) can take from the packer: sum(x,
 * axis=1) is the row reduction of one tile per block row, the element-wise
 * sum of the row's tiles, and the packer adds each tile of x into its row's
 * page as it writes x (packer L1 accumulation) - so the op making x packs
 * twice and the reduction reads one tile a row instead of the block. Taken
 * where x is a plain block of whole tiles with its own pages, made at red's
 * level by an element-wise op whose last statement writes those pages (an
 * exponential or an arithmetic op: a chain's end or one tile op); NULL
 * otherwise. */
static const tir_op *packsum_src(lw *L, const tir_op *red)
{
    if (red->code != TIR_REDUCE_SUM || red->nopnds != 1 || lw_axis(L, red) != 1)
        return NULL;
    const tir_value *x = red->opnds[0];
    const vinfo *xv = V(L, x), *r = V(L, red->results[0]);
    if (!plain_tile(xv) || xv->root != x->uid || xv->rank != 2 || xv->ec % LW_TILE || xv->dest != D_OWN ||
        r->root != red->results[0]->uid || r->dest == D_FUSED || r->tc != 1 || r->tr != xv->tr)
        return NULL;
    const tir_op *src = x->def;
    if (!src || src->parent != red->parent || src->nresults != 1 || lw_fused_reduce(L, src))
        return NULL;
    switch (src->code) {
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
        return src;
    default:
        return NULL;
    }
}

void lw_plan_packsums(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            lw_plan_packsums(L, op->regions[r]);
        const tir_op *src = packsum_src(L, op);
        if (!src || L->npsum == LW_MAX_CHAINS || lw_packsum_red(L, src))
            continue;
        L->psum_red[L->npsum] = op;
        L->psum_src[L->npsum++] = src;
    }
}

/* The sum whose row sums op `src` packs (lw_plan_packsums), or NULL. */
const tir_op *lw_packsum_red(const lw *L, const tir_op *src)
{
    for (int i = 0; src && i < L->npsum; i++)
        if (L->psum_src[i] == src)
            return L->psum_red[i];
    return NULL;
}

/* Whether op is a sum reading the packer's row sums. */
bool lw_packsum_is_red(const lw *L, const tir_op *op)
{
    for (int i = 0; i < L->npsum; i++)
        if (L->psum_red[i] == op)
            return true;
    return false;
}

/* ======================================================================
 * Casts packed by the op before them
 * ==================================================================== */

/* The op of block b other than `not` that reads x directly, when exactly
 * one does; NULL otherwise (none, several, or one inside a region). */
static const tir_op *other_reader(const tir_block *b, const tir_value *x, const tir_op *not)
{
    const tir_op *found = NULL;
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op == not)
            continue;
        for (int i = 0; i < op->nopnds; i++)
            if (op->opnds[i] == x) {
                if (found && found != op)
                    return NULL;
                found = op;
            }
    }
    return found;
}

/* y = cast(x) where x's pages have no reader but the cast: x's other use is
 * a row sum the packer takes from Dst while it writes x (lw_plan_packsums),
 * not from x's pages. Then the op making x writes its pages in y's format
 * (the pack converts, as the cast's copy would: to the nearest) and y is a
 * view of them; the cast emits nothing and the sum still adds x's values as
 * computed. A block of an fp32 value cast to bf16 is packed once at half
 * the bytes instead of packed, unpacked and packed again, and needs no
 * second CB; one already in y's format (a bf16 temporary of a 16-bit Dst)
 * needs no copy. */
static const tir_op *packcast_of(lw *L, const tir_op *red)
{
    const tir_value *x = red->opnds[0];
    vinfo *xv = V(L, x);
    if (xv->root != x->uid || xv->nuses != 2 || xv->st >= 0 || xv->dest != D_OWN || xv->rl != R_PLAIN)
        return NULL;
    const tir_op *c = other_reader(red->parent, x, red);
    if (!c || c->code != TIR_CAST || c->nresults != 1 || c->opnds[0] != x)
        return NULL;
    const tir_value *y = c->results[0];
    const vinfo *yv = V(L, y);
    if (!plain_tile(yv) || yv->root != y->uid || yv->st >= 0 || yv->dest != D_OWN || yv->rl != R_PLAIN ||
        !lw_computed_by_compute(L, y->uid) || yv->tr != xv->tr || yv->tc != xv->tc || yv->rank != xv->rank ||
        yv->dom != xv->dom)
        return NULL;
    return c;
}

void lw_plan_packcasts(lw *L)
{
    for (int i = 0; i < L->npsum && L->npcast < LW_MAX_CHAINS; i++) {
        const tir_op *red = L->psum_red[i], *c = packcast_of(L, red);
        if (!c)
            continue;
        const tir_value *x = red->opnds[0];
        vinfo *xv = V(L, x), *yv = V(L, c->results[0]);
        /* y's pages are x's: its uses are theirs, the cast's is none */
        xv->fmt = yv->fmt;
        xv->nuses = 1 + yv->nuses;
        if (yv->last_top && (!xv->last_top || lw_pos(L, yv->last_top) > lw_pos(L, xv->last_top)))
            xv->last_top = yv->last_top;
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].kind == VK_TILE && L->v[u].root == c->results[0]->uid)
                L->v[u].root = x->uid;
        L->pcast_op[L->npcast] = c;
        L->pcast_src[L->npcast++] = L->psum_src[i];
    }
}

/* ======================================================================
 * Chains in Dst
 * ==================================================================== */

/* Ops whose tile op works element by element on the tiles of one block, so
 * that a value another such op makes can stay in Dst for it: arithmetic,
 * SFPU functions, casts and masks by index predicates (not comparisons or
 * selections on data, whose lowering reads an operand twice). */
static bool elementwise(lw *L, const tir_op *op)
{
    switch (op->code) {
    case TIR_ADD:
    case TIR_SUB:
    case TIR_MUL:
    case TIR_DIV:
    case TIR_MAX:
    case TIR_NEG:
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
    case TIR_SQRT:
    case TIR_RSQRT:
    case TIR_SIGMOID:
    case TIR_CAST:
        return true;
    case TIR_WHERE:
        return V(L, op->opnds[0])->kind == VK_MASK;
    default:
        return false;
    }
}


/* Whether op puts anything into the compute kernel. */
static bool emits(lw *L, const tir_op *op)
{
    if (op->nregions || op->code == TIR_YIELD || op->code == TIR_STORE || op->code == TIR_DESC_STORE)
        return true;
    if (op->code == TIR_LOAD || op->code == TIR_DESC_LOAD) {
        int i = lw_access_of(L, op);
        return i >= 0 && L->ax[i].clean;
    }
    if (op->nresults != 1)
        return false;
    const vinfo *v = V(L, op->results[0]);
    return v->kind == VK_TILE && v->root == op->results[0]->uid;
}

/* The op that takes op's result in Dst, or NULL: the result is a plain
 * value of the compute kernel (not carried, stored or added by a dot) that
 * is read once, directly (no view), by an element-wise op of the same block
 * with a result of the same shape, and no op that emits anything comes in
 * between. Decided on the Tile IR and the value's shape as expressions, so
 * that every schedule gets the same chains. */
static const tir_op *chain_target(lw *L, const tir_op *op)
{
    if (op->nresults != 1 || op->nregions || !elementwise(L, op))
        return NULL;
    const tir_value *res = op->results[0];
    int r = res->uid;
    const vinfo *ri = &L->v[r];
    if (ri->kind != VK_TILE || ri->root != r || ri->bc != BC_NONE || ri->trans || ri->tview || ri->st >= 0 ||
        ri->dest != D_OWN || ri->rl != R_PLAIN || !lw_computed_by_compute(L, r))
        return NULL;
    const tir_op *q = lw_only_use(L, r);
    if (!q || q->parent != op->parent || q->nresults != 1 || !elementwise(L, q) || lw_fused_reduce(L, op) ||
        lw_fused_reduce(L, q))
        return NULL;
    bool direct = false;
    for (int i = 0; i < q->nopnds; i++)
        direct |= q->opnds[i] == res;
    const vinfo *qi = V(L, q->results[0]);
    if (!direct || qi->kind != VK_TILE || qi->root != q->results[0]->uid || qi->bc != BC_NONE || qi->trans ||
        qi->tview || qi->ser != ri->ser || qi->sec != ri->sec)
        return NULL;
    for (const tir_op *o = op->next; o && o != q; o = o->next)
        if (emits(L, o))
            return NULL;
    return q;
}

/* The scale an exponential op takes into its argument (its operand's
 * folded scale, rewrite.c), or 0 for any other op. */
static double exp_scale(lw *L, const tir_op *op)
{
    return op->code == TIR_EXP || op->code == TIR_EXP2 ? V(L, op->opnds[0])->dom : 0;
}

/* Whether the chain ending at op, with q added, has its exponentials at
 * one scale: a chain's exponentials share its one (a pchain's scale). */
static bool one_scale(lw *L, const tir_op *op, const tir_op *q)
{
    double sc = exp_scale(L, q);
    for (const tir_op *p = op; p;) {
        double e = exp_scale(L, p);
        if (e != 0 && sc != 0 && e != sc)
            return false;
        if (e != 0)
            sc = e;
        int j = L->nchains - 1;
        while (j >= 0 && L->chain_to[j] != p)
            j--;
        p = j >= 0 ? L->chain_from[j] : NULL;
    }
    return true;
}

/* Values that stay in Dst between two element-wise ops: the pair becomes
 * one chain (no CB, no pack and unpack between them). The values the first
 * op reads live on to the end of the chain: the chain reads them when it
 * runs, so nothing may take their CB before. */
void lw_plan_chains(lw *L, const tir_block *b)
{
    for (const tir_op *op = b->first; op && !L->failed; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            lw_plan_chains(L, op->regions[r]);
        const tir_op *q = chain_target(L, op);
        if (!q || L->nchains == LW_MAX_CHAINS)
            continue;
        /* the links before this one */
        int links = 1;
        for (const tir_op *p = op; links <= LW_MAX_LINKS;) {
            int j = L->nchains - 1;
            while (j >= 0 && L->chain_to[j] != p)
                j--;
            if (j < 0)
                break;
            links++;
            p = L->chain_from[j];
        }
        if (links > LW_MAX_LINKS || !one_scale(L, op, q))
            continue;
        vinfo *ri = V(L, op->results[0]);
        ri->dest = D_DST;
        ri->dest_ref = q->results[0]->uid;
        L->chain_from[L->nchains] = op;
        L->chain_to[L->nchains++] = q;
        for (int u = 0; u < L->nv; u++)
            if (L->v[u].last_top == op)
                L->v[u].last_top = q;
    }
}
