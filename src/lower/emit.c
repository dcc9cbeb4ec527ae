/* emit.c - emission helpers: statements, loops, conditions and
 * expressions of the kernel being written, and the Dst chain gatherer every
 * statement goes through. */
#include "lower/lower_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Emission helpers
 * ==================================================================== */


static void put_now(kctx *K, df_stmt *s)
{
    if (K->loop)
        df_add_body(K->p, K->loop, s);
    else
        df_add_stmt(K->p, &K->c->kernels[K->kind], s);
}

static bool reads_dst(const df_stmt *s) { return s->cb == LW_DST || s->cb_b == LW_DST; }

/* Whether the chain being gathered reads CB cb. */
static bool chain_reads(const kctx *K, int cb)
{
    for (int i = 0; i < K->ch.n; i++) {
        const df_stmt *s = K->ch.op[i];
        if (s->cb == cb || (s->op == DF_ELTWISE && s->cb_b == cb))
            return true;
    }
    return false;
}

/* The gathered tile ops as one statement: the first one's input unpacked,
 * each op a step on the Dst value, the last one's output packed. An op
 * that only moves the value (copy, a cast) is no step: the pack converts. */
static bool scaled_exp(const df_stmt *s)
{
    return s->op == DF_SFPU && (s->sub == DF_EXP || s->sub == DF_EXP2) && s->scalar != 1.0;
}

/* The scale the gathered ops' exponentials take (1: none); a chain's
   exponentials share one (lw_plan_chains). */
static double chain_scale(const kctx *K)
{
    double sc = 1.0;
    for (int i = 0; i < K->ch.n; i++)
        if (scaled_exp(K->ch.op[i])) {
            if (sc != 1.0 && sc != K->ch.op[i]->scalar)
                LM_BUG("a chain of exponentials of two scales");
            sc = K->ch.op[i]->scalar;
        }
    return sc;
}

static df_stmt *chain_stmt(kctx *K)
{
    df_stmt *first = K->ch.op[0], *last = K->ch.op[K->ch.n - 1];
    double scale = chain_scale(K);
    df_stmt *c = df_stmt_new(K->p, scale != 1.0 ? DF_PCHAIN : DF_CHAIN, (lm_loc){0});
    c->scalar = scale;
    c->cb = first->cb;
    c->at = first->at;
    c->cb_out = last->cb_out;
    c->at_out = last->at_out;
    int64_t rows = -1, cols = -1, n = -1;
    for (int i = 0; i < K->ch.n; i++) {
        df_stmt *s = K->ch.op[i];
        if (s->op == DF_ELTWISE || s->op == DF_MASK) {
            int64_t r = s->rows->value, q = s->cols->value;
            if (rows >= 0 && (r != rows || q != cols))
                LM_BUG("a chain over blocks of two shapes");
            rows = r, cols = q;
        } else {
            n = s->n->value;
        }
        df_stmt *st = NULL;
        switch (s->op) {
        case DF_ELTWISE: {
            st = df_step_new(K->p, DF_ELTWISE, (lm_loc){0});
            st->sub = s->sub;
            bool dst_b = i > 0 && s->cb_b == LW_DST;
            if (dst_b && s->bcast != DF_BC_NONE)
                LM_BUG("a broadcast of a value in Dst");
            /* the Dst value is the first operand; as the second, commuted
               or reversed */
            st->cb_b = dst_b ? s->cb : s->cb_b;
            st->at_b = dst_b ? s->at : s->at_b;
            st->bcast = s->bcast;
            st->rev = dst_b && s->sub != DF_ADD && s->sub != DF_MUL && s->sub != DF_MAXOP;
            break;
        }
        case DF_SFPU:
            st = df_step_new(K->p, DF_SFPU, (lm_loc){0});
            st->sub = s->sub;
            st->exact = s->exact;
            st->scalar = scaled_exp(s) ? 1.0 : s->scalar; /* the pchain's scale */
            break;
        case DF_MASK:
            st = df_step_new(K->p, DF_MASK, (lm_loc){0});
            st->row = s->row, st->col = s->col;
            st->p1r = s->p1r, st->p1c = s->p1c, st->p1k = s->p1k;
            st->p2r = s->p2r, st->p2c = s->p2c, st->p2k = s->p2k;
            st->scalar = s->scalar;
            break;
        case DF_COPY:
            break;
        default:
            LM_BUG("'%s' in a chain", df_ops[s->op].name);
        }
        if (st)
            df_add_body(K->p, c, st);
    }
    if (rows < 0)
        rows = 1, cols = n;
    else if (n >= 0 && n != rows * cols)
        LM_BUG("a chain over blocks of two sizes");
    if (K->sum_on && c->cb_out == K->sum_out) {
        /* the block's row sums packed too (lw_plan_packsums): a pchain over
           the block's rows, each tile added into its row's page */
        if (rows * cols != K->sum_rows * K->sum_cols)
            LM_BUG("row sums of a block of %lld tiles packed by a statement of %lld", (long long)(K->sum_rows * K->sum_cols),
                   (long long)(rows * cols));
        c->op = DF_PCHAIN;
        rows = K->sum_rows, cols = K->sum_cols;
        c->cb_sum = K->sum_cb;
        c->at_sum = C(K, 0);
        c->sum_acc = C(K, 0);
        K->sum_on = false;
    }
    c->rows = C(K, rows);
    c->cols = C(K, cols);
    return c;
}

/* The gathered ops out as statements: one chain, or the op itself when it
 * is the only step (a value made and cast on the way out), then the pops
 * that waited for it. */
static void chain_flush(kctx *K)
{
    df_stmt *c = chain_stmt(K);
    df_stmt *s = c;
    if (c->nbody == 0) {
        s = df_stmt_new(K->p, DF_COPY, (lm_loc){0});
        s->cb = c->cb, s->at = c->at, s->cb_out = c->cb_out, s->at_out = c->at_out;
        s->n = C(K, c->rows->value * c->cols->value);
    } else if (c->nbody == 1 && !c->body[0]->rev && c->op == DF_CHAIN) {
        /* one step: the op it was, reading the chain's input */
        df_stmt *st = c->body[0];
        s = df_stmt_new(K->p, st->op, (lm_loc){0});
        s->sub = st->sub;
        s->cb = c->cb, s->at = c->at, s->cb_out = c->cb_out, s->at_out = c->at_out;
        if (st->op == DF_SFPU) {
            s->n = C(K, c->rows->value * c->cols->value);
            s->exact = st->exact;
            s->scalar = st->scalar;
        } else {
            s->rows = c->rows, s->cols = c->cols;
            s->cb_b = st->cb_b, s->at_b = st->at_b, s->bcast = st->bcast;
            s->row = st->row, s->col = st->col;
            s->p1r = st->p1r, s->p1c = st->p1c, s->p1k = st->p1k;
            s->p2r = st->p2r, s->p2c = st->p2c, s->p2k = st->p2k;
            s->scalar = st->scalar;
        }
    }
    put_now(K, s);
    for (int i = 0; i < K->ch.npops; i++)
        put_now(K, K->ch.pops[i]);
    K->ch.n = K->ch.npops = 0;
}

/* Whether tile statement s writes the block whose row sums are packed
 * besides it (an element-wise op, as lw_plan_packsums chose). */
static bool packs_sums(const kctx *K, const df_stmt *s)
{
    if (!K->sum_on || s->cb_out != K->sum_out || df_ops[s->op].engine != DF_ENGINE_COMPUTE || s->op == DF_CB_RESERVE ||
        s->op == DF_CB_PUSH || s->op == DF_CB_POP || s->op == DF_CB_WAIT)
        return false;
    if (s->op != DF_SFPU && s->op != DF_ELTWISE)
        LM_BUG("row sums planned for a '%s'", df_ops[s->op].name);
    return true;
}

/* Every statement of a kernel goes through here. A tile op writing Dst
 * starts a chain, one reading it joins, and the first that also packs
 * ends it. Meanwhile other statements go out at once, ahead of the chain
 * (the waits and reserves it needs, a constant tile filled for a step),
 * except pops of the CBs the chain reads. */
void lw_put(kctx *K, df_stmt *s)
{
    bool tile = df_ops[s->op].engine == DF_ENGINE_COMPUTE && s->op != DF_CB_RESERVE;
    bool in = tile && reads_dst(s), out = tile && s->cb_out == LW_DST;
    if (!in && !out && (scaled_exp(s) || packs_sums(K, s))) {
        /* an exponential with a scale folded in, or an op packing row sums
           besides its result, on its own: a pchain of that one step */
        if (K->ch.n)
            LM_BUG("a pchain inside a chain");
        K->ch.op[0] = s;
        K->ch.n = 1;
        df_stmt *c = chain_stmt(K);
        K->ch.n = 0;
        put_now(K, c);
        return;
    }
    if (!in && !out) {
        if (K->ch.n && s->op == DF_CB_POP && chain_reads(K, s->cb)) {
            if (K->ch.npops == (int)LM_COUNT(K->ch.pops))
                LM_BUG("too many pops behind a chain");
            K->ch.pops[K->ch.npops++] = s;
            return;
        }
        if (K->ch.n && s->op == DF_FOR)
            LM_BUG("a loop inside a chain");
        put_now(K, s);
        return;
    }
    if (in != (K->ch.n > 0) || K->ch.n == (int)LM_COUNT(K->ch.op))
        LM_BUG("a tile op %s Dst with %d ops gathered", in ? "reads" : "writes", K->ch.n);
    K->ch.op[K->ch.n++] = s;
    if (!out)
        chain_flush(K);
}

static bool core_eval(kctx *K, const df_expr *e, int x, int y, int64_t *out);

/* Whether a loop's bounds, known on every core of the class, leave it empty
 * on all of them (a split past the end of a sequence, a core without a
 * program in the last wave). */
bool lw_empty_everywhere(kctx *K, const df_expr *lo, const df_expr *hi)
{
    for (int y = K->y0; y <= K->y1; y++)
        for (int x = K->x0; x <= K->x1; x++) {
            int64_t a, b;
            if (!core_eval(K, lo, x, y, &a) || !core_eval(K, hi, x, y, &b) || a < b)
                return false;
        }
    return true;
}

df_stmt *lw_open_for(kctx *K, const char *var, const df_expr *lo, const df_expr *hi, df_stmt **saved)
{
    df_stmt *f = df_for(K->p, K->c, var, lo, hi, NULL, (lm_loc){0});
    if (!f) {
        lw_fail(K->L, (lm_loc){0}, "the program needs more loop variables than a class can hold");
        return NULL;
    }
    /* a loop no core of the class runs is left out: its body is built into
       the detached statement and dropped (the program is the same as with
       zero trips, and hand-written programs keep the check that flags
       such loops as mistakes) */
    if (!lw_empty_everywhere(K, lo, hi))
        lw_put(K, f);
    *saved = K->loop;
    K->loop = f;
    return f;
}

void lw_close_for(kctx *K, df_stmt *saved) { K->loop = saved; }

static bool core_eval(kctx *K, const df_expr *e, int x, int y, int64_t *out)
{
    int first_loop = DF_SLOT_PARAM0 + K->p->nparams + K->c->nargs;
    if (df_expr_uses_slots_from(e, first_loop))
        return false;
    int64_t slots[DF_MAX_SLOTS] = {0};
    slots[DF_SLOT_CX] = x;
    slots[DF_SLOT_CY] = y;
    for (int a = 0; a < K->c->nargs; a++)
        slots[DF_SLOT_PARAM0 + K->p->nparams + a] = df_eval(K->c->args[a], slots);
    *out = df_eval(e, slots);
    return true;
}

/* Open a block that runs when cond (0 or 1) is 1. Returns 0 when the block
 * never runs on this class (skip it), 1 when it always runs (nothing
 * opened), 2 when a one-trip loop was opened (close with lw_close_for). */
int lw_open_if(kctx *K, const df_expr *cond, df_stmt **saved)
{
    bool stat = true, any = false, all = true;
    for (int y = K->y0; y <= K->y1 && stat; y++)
        for (int x = K->x0; x <= K->x1 && stat; x++) {
            int64_t v;
            stat = core_eval(K, cond, x, y, &v);
            any |= stat && v > 0;
            all &= stat && v > 0;
        }
    if (stat && !any)
        return 0;
    if (stat && all)
        return 1;
    char name[24];
    snprintf(name, sizeof name, "when%d", K->ncond++);
    return lw_open_for(K, name, C(K, 0), cond, saved) ? 2 : 0;
}

/* sym -> df, with pid.N and iv.N mapped to this kernel's expressions. */
static const df_expr *xs_rec(kctx *K, const sym_expr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case SYM_CONST:
        return C(K, e->value);
    case SYM_VAR:
        if (!strncmp(e->name, "pid.", 4)) {
            int g = atoi(e->name + 4);
            if (g >= 0 && g < TIR_MAX_GRID && K->pid[g])
                return K->pid[g];
            return C(K, 0);
        }
        for (int i = 0; i < K->nivs; i++)
            if (K->ivs[i].iv == e)
                return K->ivs[i].e;
        lw_fail(K->L, (lm_loc){0}, "the symbol '%s' has no value in the lowered program", e->name);
        return C(K, 0);
    case SYM_ADD:
    case SYM_MUL:
    case SYM_MIN:
    case SYM_MAX: {
        df_xkind k = e->kind == SYM_ADD ? DF_X_ADD : e->kind == SYM_MUL ? DF_X_MUL : e->kind == SYM_MIN ? DF_X_MIN : DF_X_MAX;
        const df_expr *r = xs_rec(K, e->args[0]);
        for (int i = 1; i < e->nargs; i++)
            r = BIN(K, k, r, xs_rec(K, e->args[i]));
        return r;
    }
    case SYM_FLOORDIV:
        return BIN(K, DF_X_DIV, xs_rec(K, e->args[0]), xs_rec(K, e->args[1]));
    case SYM_MOD:
        return BIN(K, DF_X_MOD, xs_rec(K, e->args[0]), xs_rec(K, e->args[1]));
    case SYM_CDIV: {
        /* ceil(a/b) = -floor(-a/b) */
        const df_expr *na = BIN(K, DF_X_SUB, C(K, 0), xs_rec(K, e->args[0]));
        return BIN(K, DF_X_SUB, C(K, 0), BIN(K, DF_X_DIV, na, xs_rec(K, e->args[1])));
    }
    }
    return C(K, 0);
}

const df_expr *lw_xs(kctx *K, const sym_expr *e)
{
    return xs_rec(K, sym_subst(K->L->sc, e, &K->L->s->values));
}

const df_expr *lw_affine(kctx *K, const access *x, bool row)
{
    const df_expr *e = C(K, row ? x->r0 : x->c0);
    for (int t = 0; t < x->nterms; t++) {
        int64_t co = row ? x->rco[t] : x->cco[t];
        if (co)
            e = BIN(K, DF_X_ADD, e, BIN(K, DF_X_MUL, C(K, co), xs_rec(K, x->var[t])));
    }
    return e;
}

void lw_cbop(kctx *K, df_op op, int cb, int64_t n)
{
    const lw *L = K->L;
    if (cb >= 0 && cb < (int)LM_COUNT(L->cb_step) && L->cb_step[cb] > 0)
        n = L->cb_step[cb];
    df_stmt *s = S(K, op);
    s->cb = cb;
    s->n = C(K, n);
    lw_put(K, s);
}
