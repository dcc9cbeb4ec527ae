/* sym.c - symbolic integer expressions (declared in sym.h): hash-consed,
 * canonicalising construction, checked evaluation, sound interval bounds,
 * substitution and affine decomposition (printing and parsing: sym_text.c).
 *
 * Canonical forms the constructors produce (and the rules below rely on):
 *  - ADD: >= 2 operands, flattened. Each non-constant operand is a term
 *    `coef*mono` (stored as mono itself when coef == 1, else MUL[coef, ...]),
 *    monomials distinct and sorted by sym_compare; at most one constant, non-zero
 *    and stored last.
 *  - MUL: flattened; the constant coefficient (never 0 or 1) first, then >= 1
 *    non-constant factors sorted by sym_compare. A constant times one sum is
 *    distributed; a sum among >= 2 factors is primitive (its content and sign
 *    are pulled into the coefficient), so equal products look the same.
 *  - MIN/MAX: >= 2 operands, flattened, distinct, non-constants sorted by
 *    sym_compare, at most one constant, stored last.
 *  - FLOORDIV/CDIV/MOD: constant divisors are >= 2 and share no factor with
 *    the dividend's content.
 *
 * Soundness: each rewrite keeps the value for every integer assignment at
 * which the original expression is defined. A rewrite may make an undefined
 * expression defined (x*0 -> 0 drops a division by zero inside x, and
 * floordiv(b*x, b) -> x assumes b != 0 because otherwise the original is
 * undefined anyway); it never changes a defined value. Arithmetic on
 * constants is checked: when folding would overflow, the constructor returns
 * the operation unsimplified, so evaluation reports the overflow instead.
 */
#include "sym/sym.h"
#include "sym/sym_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct sym_ctx {
    lm_arena arena;            /* every node, operand array and name */
    const sym_expr **tab;      /* open-addressing hash table of nodes (heap) */
    size_t cap, count;
    uint32_t next_id;
    const sym_expr *zero, *one;
    struct le_memo *le;        /* provably_le's answers (open addressing, heap) */
    size_t lecap, lecount;
};

/* ---- hash-consing ------------------------------------------------------ */

static uint64_t node_hash(sym_kind k, int64_t v, const char *name, const sym_expr *const *args, int n)
{
    /* Built from the operands' hashes, not their addresses, so the hash too
     * is structural (and the same in every context). */
    uint64_t h = lm_hash_mix(0x73796d, (uint64_t)k);
    if (k == SYM_CONST)
        return lm_hash_mix(h, (uint64_t)v);
    if (k == SYM_VAR)
        return lm_hash_mix(h, lm_hash_bytes(name, strlen(name), 0));
    h = lm_hash_mix(h, (uint64_t)n);
    for (int i = 0; i < n; i++)
        h = lm_hash_mix(h, args[i]->hash);
    return h;
}

static bool node_eq(const sym_expr *e, sym_kind k, int64_t v, const char *name,
                    const sym_expr *const *args, int n)
{
    if (e->kind != k || e->nargs != n)
        return false;
    if (k == SYM_CONST)
        return e->value == v;
    if (k == SYM_VAR)
        return strcmp(e->name, name) == 0;
    for (int i = 0; i < n; i++)
        if (e->args[i] != args[i]) /* operands are hash-consed already */
            return false;
    return true;
}

static void table_grow(sym_ctx *c)
{
    size_t ncap = c->cap * 2;
    const sym_expr **nt = lm_xcalloc(ncap, sizeof *nt);
    for (size_t i = 0; i < c->cap; i++) {
        const sym_expr *e = c->tab[i];
        if (!e)
            continue;
        size_t j = e->hash & (ncap - 1);
        while (nt[j])
            j = (j + 1) & (ncap - 1);
        nt[j] = e;
    }
    free(c->tab);
    c->tab = nt;
    c->cap = ncap;
}

static const sym_expr *intern(sym_ctx *c, sym_kind k, int64_t v, const char *name,
                              const sym_expr *const *args, int n)
{
    uint64_t h = node_hash(k, v, name, args, n);
    size_t mask = c->cap - 1, i = h & mask;
    for (; c->tab[i]; i = (i + 1) & mask)
        if (c->tab[i]->hash == h && node_eq(c->tab[i], k, v, name, args, n))
            return c->tab[i];
    sym_expr *e = LM_NEW(&c->arena, sym_expr);
    e->kind = k;
    e->value = k == SYM_CONST ? v : 0;
    e->name = k == SYM_VAR ? lm_arena_strdup(&c->arena, name) : NULL;
    e->nargs = n;
    if (n > 0) {
        const sym_expr **a = LM_NEWN(&c->arena, const sym_expr *, n);
        memcpy(a, args, sizeof *a * (size_t)n);
        e->args = a;
    }
    e->id = c->next_id++;
    e->hash = h;
    c->tab[i] = e;
    if (++c->count * 2 > c->cap)
        table_grow(c);
    return e;
}

sym_ctx *sym_ctx_new(void)
{
    sym_ctx *c = lm_xcalloc(1, sizeof *c);
    lm_arena_init(&c->arena);
    c->cap = 1024;
    c->tab = lm_xcalloc(c->cap, sizeof *c->tab);
    c->zero = sym_const(c, 0);
    c->one = sym_const(c, 1);
    return c;
}

void sym_ctx_free(sym_ctx *c)
{
    if (!c)
        return;
    lm_arena_free(&c->arena);
    free(c->tab);
    free(c->le);
    free(c);
}

const sym_expr *sym_const(sym_ctx *c, int64_t v) { return intern(c, SYM_CONST, v, NULL, NULL, 0); }

const sym_expr *sym_var(sym_ctx *c, const char *name)
{
    LM_ASSERT(name && *name);
    return intern(c, SYM_VAR, 0, name, NULL, 0);
}

static bool is_nary(sym_kind k) { return k == SYM_ADD || k == SYM_MUL || k == SYM_MIN || k == SYM_MAX; }
const sym_expr *sym_raw(sym_ctx *c, sym_kind k, const sym_expr **args, int nargs)
{
    if (is_nary(k))
        LM_ASSERT(nargs >= 1);
    else if (is_div(k))
        LM_ASSERT(nargs == 2);
    else
        LM_BUG("sym_raw: kind %d has no operands (use sym_const / sym_var)", (int)k);
    for (int i = 0; i < nargs; i++)
        LM_ASSERT(args[i] != NULL);
    return intern(c, k, 0, NULL, args, nargs);
}

/* ---- ordering ------------------------------------------------------------ */

int sym_compare(const sym_expr *a, const sym_expr *b)
{
    if (a == b)
        return 0;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->kind == SYM_CONST)
        return a->value < b->value ? -1 : a->value > b->value;
    if (a->kind == SYM_VAR) {
        int r = strcmp(a->name, b->name);
        return r < 0 ? -1 : r > 0;
    }
    int n = LM_MIN(a->nargs, b->nargs);
    for (int i = 0; i < n; i++) {
        int r = sym_compare(a->args[i], b->args[i]);
        if (r)
            return r;
    }
    return a->nargs < b->nargs ? -1 : a->nargs > b->nargs;
}

static int cmp_expr_ptr(const void *x, const void *y)
{
    return sym_compare(*(const sym_expr *const *)x, *(const sym_expr *const *)y);
}

/* ---- checked integer helpers ------------------------------------------- */

/* One division-like operation on values, b != 0, with Python's semantics
 * (util/base.h's lm_fdiv_ok, lm_cdiv_ok, lm_pymod). False on overflow. */
static bool div_op(sym_kind k, int64_t a, int64_t b, int64_t *r)
{
    if (k == SYM_FLOORDIV)
        return lm_fdiv_ok(a, b, r);
    if (k == SYM_CDIV)
        return lm_cdiv_ok(a, b, r);
    *r = lm_pymod(a, b);
    return true;
}

static uint64_t uabs64(int64_t v) { return v < 0 ? -(uint64_t)v : (uint64_t)v; }

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

bool sym_is_const(const sym_expr *e, int64_t *v)
{
    if (e->kind != SYM_CONST)
        return false;
    if (v)
        *v = e->value;
    return true;
}

/* ---- interval bounds (also used by the simplifier) --------------------- */

/* With env == NULL every variable ranges over all of int64: the simplifier
 * asks this way to learn what holds whatever the variables are (mod(x, 4) is
 * in [0, 3]). That mode gives up below a fixed depth to stay cheap. */
enum { STATIC_DEPTH = 12 };

static sym_status bounds_rec(const sym_expr *e, const sym_env *env, int depth, int64_t *lo, int64_t *hi)
{
    if (!env && depth > STATIC_DEPTH) {
        *lo = INT64_MIN;
        *hi = INT64_MAX;
        return SYM_OK;
    }
    sym_status st;
    int64_t al = 0, ah = 0, bl = 0, bh = 0;
    switch (e->kind) {
    case SYM_CONST:
        *lo = *hi = e->value;
        return SYM_OK;
    case SYM_VAR:
        if (!env) {
            *lo = INT64_MIN;
            *hi = INT64_MAX;
            return SYM_OK;
        }
        return sym_env_get(env, e, lo, hi) ? SYM_OK : SYM_UNBOUND;
    case SYM_ADD:
        al = ah = 0;
        for (int i = 0; i < e->nargs; i++) {
            if ((st = bounds_rec(e->args[i], env, depth + 1, &bl, &bh)) != SYM_OK)
                return st;
            if (!lm_add_ok(al, bl, &al) || !lm_add_ok(ah, bh, &ah))
                return SYM_OVERFLOW;
        }
        *lo = al;
        *hi = ah;
        return SYM_OK;
    case SYM_MUL:
        al = ah = 1;
        for (int i = 0; i < e->nargs; i++) {
            if ((st = bounds_rec(e->args[i], env, depth + 1, &bl, &bh)) != SYM_OK)
                return st;
            /* the extremes of a product of intervals are among the corners */
            int64_t p[4];
            if (!lm_mul_ok(al, bl, &p[0]) || !lm_mul_ok(al, bh, &p[1]) ||
                !lm_mul_ok(ah, bl, &p[2]) || !lm_mul_ok(ah, bh, &p[3]))
                return SYM_OVERFLOW;
            al = ah = p[0];
            for (int j = 1; j < 4; j++) {
                al = LM_MIN(al, p[j]);
                ah = LM_MAX(ah, p[j]);
            }
        }
        *lo = al;
        *hi = ah;
        return SYM_OK;
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD:
        if ((st = bounds_rec(e->args[0], env, depth + 1, &al, &ah)) != SYM_OK)
            return st;
        if ((st = bounds_rec(e->args[1], env, depth + 1, &bl, &bh)) != SYM_OK)
            return st;
        if (bl <= 0 && bh >= 0)
            return SYM_DIV_ZERO;
        if (e->kind != SYM_MOD) {
            /* With the divisor's sign fixed, a/b is monotone in a (one way for
             * every b) and then monotone in b, and floor/ceil preserve order,
             * so the extremes are at the corners. */
            int64_t p[4];
            if (!div_op(e->kind, al, bl, &p[0]) || !div_op(e->kind, al, bh, &p[1]) ||
                !div_op(e->kind, ah, bl, &p[2]) || !div_op(e->kind, ah, bh, &p[3]))
                return SYM_OVERFLOW;
            *lo = *hi = p[0];
            for (int j = 1; j < 4; j++) {
                *lo = LM_MIN(*lo, p[j]);
                *hi = LM_MAX(*hi, p[j]);
            }
            return SYM_OK;
        }
        if (bl == bh) {
            /* one divisor and the whole dividend range in one period: mod is
             * a - b*q there, increasing in a */
            int64_t q1, q2;
            if (lm_fdiv_ok(al, bl, &q1) && lm_fdiv_ok(ah, bl, &q2) && q1 == q2) {
                *lo = lm_pymod(al, bl);
                *hi = lm_pymod(ah, bl);
                return SYM_OK;
            }
        }
        if (bl > 0) { /* result in [0, b-1]; a itself when 0 <= a < every b */
            if (al >= 0 && ah < bl) {
                *lo = al;
                *hi = ah;
            } else {
                *lo = 0;
                *hi = al >= 0 ? LM_MIN(ah, bh - 1) : bh - 1;
            }
        } else { /* negative divisors: result in [b+1, 0] */
            if (ah <= 0 && al > bh) {
                *lo = al;
                *hi = ah;
            } else {
                *lo = ah <= 0 ? LM_MAX(al, bl + 1) : bl + 1;
                *hi = 0;
            }
        }
        return SYM_OK;
    case SYM_MIN:
    case SYM_MAX:
        for (int i = 0; i < e->nargs; i++) {
            if ((st = bounds_rec(e->args[i], env, depth + 1, &bl, &bh)) != SYM_OK)
                return st;
            if (i == 0) {
                al = bl;
                ah = bh;
            } else if (e->kind == SYM_MIN) {
                al = LM_MIN(al, bl);
                ah = LM_MIN(ah, bh);
            } else {
                al = LM_MAX(al, bl);
                ah = LM_MAX(ah, bh);
            }
        }
        *lo = al;
        *hi = ah;
        return SYM_OK;
    }
    LM_BUG("sym_bounds: bad kind %d", (int)e->kind);
}

sym_status sym_bounds(const sym_expr *e, const sym_env *env, int64_t *lo, int64_t *hi)
{
    static const sym_env empty = {0};
    return bounds_rec(e, env ? env : &empty, 0, lo, hi);
}

bool sym_at_least_on_sizes(const sym_expr *e, int64_t v)
{
    const sym_expr *vars[16];
    int n = sym_vars(e, vars, 16);
    if (n > 16)
        return false;
    sym_env env = {0};
    for (int i = 0; i < n; i++)
        sym_env_set_range(&env, vars[i], 1, (int64_t)1 << 24);
    int64_t lo, hi;
    bool ok = sym_bounds(e, &env, &lo, &hi) == SYM_OK && lo >= v;
    sym_env_free(&env);
    return ok;
}

/* What holds for every value of the variables; false when nothing is known. */
static bool static_bounds(const sym_expr *e, int64_t *lo, int64_t *hi)
{
    return bounds_rec(e, NULL, 0, lo, hi) == SYM_OK;
}

/* ---- sums ----------------------------------------------------------------- */

/* A term coef*mono; mono == NULL stands for the constant 1. */
typedef struct term {
    int64_t coef;
    const sym_expr *mono;
} term;

/* Accumulates a sum as terms plus a constant; `fail` records an overflow. */
typedef struct addb {
    LM_VEC(term) t;
    int64_t k;
    bool fail;
} addb;

static const sym_expr *build_mul(sym_ctx *c, const sym_expr *const *ops, int n);

/* e = coef * mono, reading a canonical product's leading coefficient. */
static void split_term(sym_ctx *c, const sym_expr *e, int64_t *coef, const sym_expr **mono)
{
    if (e->kind == SYM_CONST) {
        *coef = e->value;
        *mono = NULL;
    } else if (has_coef(e)) {
        *coef = e->args[0]->value;
        /* the remaining factors are sorted and non-constant already, so the
         * bare node is the canonical monomial */
        *mono = e->nargs == 2 ? e->args[1] : intern(c, SYM_MUL, 0, NULL, e->args + 1, e->nargs - 1);
    } else {
        *coef = 1;
        *mono = e;
    }
}

static void addb_put(sym_ctx *c, addb *b, const sym_expr *e, int64_t scale)
{
    if (b->fail)
        return;
    if (e->kind == SYM_ADD) {
        for (int i = 0; i < e->nargs; i++)
            addb_put(c, b, e->args[i], scale);
        return;
    }
    int64_t k, s;
    const sym_expr *m;
    split_term(c, e, &k, &m);
    if (!lm_mul_ok(k, scale, &s)) {
        b->fail = true;
        return;
    }
    if (!m) {
        if (!lm_add_ok(b->k, s, &b->k))
            b->fail = true;
        return;
    }
    /* a non-canonical operand (from sym_raw) such as 2*(x + 1) or 2*(3*x):
     * open it up rather than keep a sum or a coefficient as a monomial */
    if (m->kind == SYM_ADD || has_coef(m)) {
        addb_put(c, b, m, s);
        return;
    }
    if (s != 0)
        LM_PUSH(&b->t, ((term){s, m}));
}

static int cmp_term(const void *x, const void *y)
{
    const term *a = x, *b = y;
    int r = sym_compare(a->mono, b->mono);
    if (r)
        return r;
    return a->coef < b->coef ? -1 : a->coef > b->coef;
}

/* coef*mono in canonical form; mono is a canonical monomial. */
static const sym_expr *make_term(sym_ctx *c, int64_t coef, const sym_expr *mono)
{
    if (coef == 1)
        return mono;
    const sym_expr *k = sym_const(c, coef);
    if (mono->kind != SYM_MUL)
        return intern(c, SYM_MUL, 0, NULL, (const sym_expr *[]){k, mono}, 2);
    exprvec v = {0};
    LM_PUSH(&v, k);
    for (int i = 0; i < mono->nargs; i++)
        LM_PUSH(&v, mono->args[i]);
    const sym_expr *r = intern(c, SYM_MUL, 0, NULL, v.items, (int)v.len);
    LM_VEC_FREE(&v);
    return r;
}

/* The canonical sum; NULL on overflow. Frees the builder either way. */
static const sym_expr *addb_finish(sym_ctx *c, addb *b)
{
    const sym_expr *r = NULL;
    if (b->fail)
        goto out;
    if (b->t.len > 1) /* qsort must not see the NULL of an empty vector */
        qsort(b->t.items, b->t.len, sizeof(term), cmp_term);
    size_t n = 0;
    for (size_t i = 0; i < b->t.len; i++) {
        if (n > 0 && b->t.items[n - 1].mono == b->t.items[i].mono) {
            if (!lm_add_ok(b->t.items[n - 1].coef, b->t.items[i].coef, &b->t.items[n - 1].coef))
                goto out;
        } else {
            b->t.items[n++] = b->t.items[i];
        }
    }
    exprvec args = {0};
    for (size_t i = 0; i < n; i++)
        if (b->t.items[i].coef != 0)
            LM_PUSH(&args, make_term(c, b->t.items[i].coef, b->t.items[i].mono));
    if (b->k != 0 || args.len == 0)
        LM_PUSH(&args, sym_const(c, b->k));
    r = args.len == 1 ? args.items[0] : intern(c, SYM_ADD, 0, NULL, args.items, (int)args.len);
    LM_VEC_FREE(&args);
out:
    LM_VEC_FREE(&b->t);
    return r;
}

static const sym_expr *build_add(sym_ctx *c, const sym_expr *const *ops, const int64_t *scale, int n)
{
    addb b = {0};
    for (int i = 0; i < n; i++)
        addb_put(c, &b, ops[i], scale ? scale[i] : 1);
    return addb_finish(c, &b);
}

/* The operands of e read as a sum (one operand when e is not a sum). */
static const sym_expr *const *sum_terms(const sym_expr *const *self, int *n)
{
    const sym_expr *e = *self;
    if (e->kind == SYM_ADD) {
        *n = e->nargs;
        return e->args;
    }
    *n = 1;
    return self;
}

/* gcd of the absolute coefficients of e read as a sum (0 for e == 0). */
static uint64_t content(sym_ctx *c, const sym_expr *e)
{
    int n;
    const sym_expr *const *t = sum_terms(&e, &n);
    uint64_t g = 0;
    for (int i = 0; i < n; i++) {
        int64_t k;
        const sym_expr *m;
        split_term(c, t[i], &k, &m);
        g = gcd64(g, uabs64(k));
    }
    return g;
}

/* e / g where g divides every coefficient of e; NULL on overflow. */
static const sym_expr *div_exact(sym_ctx *c, const sym_expr *e, int64_t g)
{
    if (g == 1)
        return e;
    int n;
    const sym_expr *const *t = sum_terms(&e, &n);
    addb b = {0};
    for (int i = 0; i < n && !b.fail; i++) {
        int64_t k;
        const sym_expr *m;
        split_term(c, t[i], &k, &m);
        if ((k == INT64_MIN && g == -1) || k % g != 0) { /* INT64_MIN % -1 traps */
            b.fail = true;
        } else if (m) {
            addb_put(c, &b, m, k / g);
        } else if (!lm_add_ok(b.k, k / g, &b.k)) {
            b.fail = true;
        }
    }
    return addb_finish(c, &b);
}

const sym_expr *sym_add(sym_ctx *c, const sym_expr *a, const sym_expr *b)
{
    return sym_make(c, SYM_ADD, (const sym_expr *[]){a, b}, 2);
}

const sym_expr *sym_sub(sym_ctx *c, const sym_expr *a, const sym_expr *b)
{
    const sym_expr *r = build_add(c, (const sym_expr *[]){a, b}, (const int64_t[]){1, -1}, 2);
    if (r)
        return r;
    const sym_expr *nb = sym_raw(c, SYM_MUL, (const sym_expr *[]){sym_const(c, -1), b}, 2);
    return sym_raw(c, SYM_ADD, (const sym_expr *[]){a, nb}, 2);
}

const sym_expr *sym_neg(sym_ctx *c, const sym_expr *a) { return sym_mul(c, sym_const(c, -1), a); }

/* ---- products ------------------------------------------------------------ */

static bool mul_collect(const sym_expr *e, int64_t *k, exprvec *f)
{
    if (e->kind == SYM_CONST)
        return lm_mul_ok(*k, e->value, k);
    if (e->kind == SYM_MUL) {
        for (int i = 0; i < e->nargs; i++)
            if (!mul_collect(e->args[i], k, f))
                return false;
        return true;
    }
    LM_PUSH(f, e);
    return true;
}

static const sym_expr *build_mul(sym_ctx *c, const sym_expr *const *ops, int n)
{
    int64_t k = 1;
    exprvec f = {0};
    const sym_expr *r = NULL;
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = mul_collect(ops[i], &k, &f);
    if (!ok)
        goto out;
    if (k == 0 || f.len == 0) {
        r = sym_const(c, k);
        goto out;
    }
    qsort(f.items, f.len, sizeof *f.items, cmp_expr_ptr);
    if (f.len == 1) {
        if (k == 1)
            r = f.items[0];
        else if (f.items[0]->kind == SYM_ADD) /* c*(x + y) = c*x + c*y */
            r = build_add(c, f.items, &k, 1);
        else
            r = intern(c, SYM_MUL, 0, NULL, (const sym_expr *[]){sym_const(c, k), f.items[0]}, 2);
        goto out;
    }
    /* Pull each sum factor's content (signed like its first term) into the
     * coefficient, so (2*x + 2)*y and 2*(x + 1)*y are one node. */
    bool changed = false;
    for (size_t i = 0; i < f.len; i++) {
        const sym_expr *s = f.items[i];
        if (s->kind != SYM_ADD)
            continue;
        uint64_t g = content(c, s);
        int64_t lead;
        const sym_expr *m;
        split_term(c, s->args[0], &lead, &m);
        if (g == 0 || g > INT64_MAX)
            continue;
        int64_t sg = lead < 0 ? -(int64_t)g : (int64_t)g;
        if (sg == 1)
            continue;
        const sym_expr *d = div_exact(c, s, sg);
        if (!d || !lm_mul_ok(k, sg, &k)) {
            ok = false;
            goto out;
        }
        f.items[i] = d;
        changed = true;
    }
    if (changed)
        qsort(f.items, f.len, sizeof *f.items, cmp_expr_ptr);
    exprvec args = {0};
    if (k != 1)
        LM_PUSH(&args, sym_const(c, k));
    for (size_t i = 0; i < f.len; i++)
        LM_PUSH(&args, f.items[i]);
    r = intern(c, SYM_MUL, 0, NULL, args.items, (int)args.len);
    LM_VEC_FREE(&args);
out:
    LM_VEC_FREE(&f);
    return r; /* NULL on overflow */
}

const sym_expr *sym_mul(sym_ctx *c, const sym_expr *a, const sym_expr *b)
{
    return sym_make(c, SYM_MUL, (const sym_expr *[]){a, b}, 2);
}

/* If the factors of monomial d are a sub-multiset of those of monomial m,
 * return true with *q the remaining product (NULL when nothing remains). */
static bool mono_div(sym_ctx *c, const sym_expr *m, const sym_expr *d, const sym_expr **q)
{
    if (!d) {
        *q = m;
        return true;
    }
    int nm, nd;
    const sym_expr *const *fm = m->kind == SYM_MUL ? m->args : &m;
    const sym_expr *const *fd = d->kind == SYM_MUL ? d->args : &d;
    nm = m->kind == SYM_MUL ? m->nargs : 1;
    nd = d->kind == SYM_MUL ? d->nargs : 1;
    if (nd > nm)
        return false;
    bool *used = lm_xcalloc((size_t)nm, sizeof *used);
    for (int j = 0; j < nd; j++) {
        int i = 0;
        while (i < nm && (used[i] || fm[i] != fd[j]))
            i++;
        if (i == nm) {
            free(used);
            return false;
        }
        used[i] = true;
    }
    exprvec rest = {0};
    for (int i = 0; i < nm; i++)
        if (!used[i])
            LM_PUSH(&rest, fm[i]);
    *q = rest.len == 0 ? NULL : rest.len == 1 ? rest.items[0] : build_mul(c, rest.items, (int)rest.len);
    LM_VEC_FREE(&rest);
    free(used);
    return *q != NULL || nm == nd;
}

/* ---- divisions ------------------------------------------------------------ */

static const sym_expr *build_div(sym_ctx *c, sym_kind k, const sym_expr *a, const sym_expr *d)
{
    const sym_expr *ops[2] = {a, d};
    int64_t av = 0, dv = 0;
    bool ac = sym_is_const(a, &av), dc = sym_is_const(d, &dv);

    if (dc && dv == 0) /* keep it, so evaluation reports the division by zero */
        return sym_raw(c, k, ops, 2);
    if (ac && dc) {
        int64_t r;
        return div_op(k, av, dv, &r) ? sym_const(c, r) : sym_raw(c, k, ops, 2);
    }
    if (dc && (dv == 1 || dv == -1)) {
        if (k == SYM_MOD)
            return c->zero;
        return dv == 1 ? a : sym_neg(c, a);
    }
    if (ac && av == 0)
        return c->zero;
    if (a == d)
        return k == SYM_MOD ? c->zero : c->one;

    /* a / -b is exactly (-a) / b as rationals, so floor and ceiling agree;
     * mod(a, -b) = -mod(-a, b). Only positive constant divisors remain. */
    if (dc && dv < 0 && dv != INT64_MIN) {
        const sym_expr *r = build_div(c, k, sym_neg(c, a), sym_const(c, -dv));
        return k == SYM_MOD ? sym_neg(c, r) : r;
    }

    /* (g*a) / (g*d) is a / d as rationals; mod(g*a, g*d) = g*mod(a, d). */
    uint64_t g = gcd64(content(c, a), content(c, d));
    if (g > 1 && g <= INT64_MAX) {
        const sym_expr *na = div_exact(c, a, (int64_t)g), *nd = div_exact(c, d, (int64_t)g);
        if (na && nd) {
            const sym_expr *r = build_div(c, k, na, nd);
            return k == SYM_MOD ? sym_mul(c, sym_const(c, (int64_t)g), r) : r;
        }
    }

    /* Split off the part of a that is a multiple of d: for a = q*d + r with
     * integer q, floordiv(a, d) = q + floordiv(r, d), cdiv likewise, and
     * mod(a, d) = mod(r, d). A term is a multiple when d's coefficient divides
     * its coefficient and d's factors are among its factors; a constant
     * divisor also splits the constant term. */
    if (d->kind != SYM_ADD) {
        int64_t dk;
        const sym_expr *dm;
        split_term(c, d, &dk, &dm);
        if (dk != 0) {
            addb qb = {0}, rb = {0};
            int n;
            const sym_expr *const *t = sum_terms(&a, &n);
            for (int i = 0; i < n; i++) {
                int64_t tk, q;
                const sym_expr *tm, *qm;
                split_term(c, t[i], &tk, &tm);
                if (!tm) {
                    if (!dm && lm_fdiv_ok(tk, dk, &q)) {
                        if (!lm_add_ok(qb.k, q, &qb.k) || !lm_add_ok(rb.k, lm_pymod(tk, dk), &rb.k))
                            qb.fail = true;
                    } else if (!lm_add_ok(rb.k, tk, &rb.k)) {
                        rb.fail = true;
                    }
                } else if (!(tk == INT64_MIN && dk == -1) && tk % dk == 0 && mono_div(c, tm, dm, &qm)) {
                    if (qm)
                        addb_put(c, &qb, qm, tk / dk);
                    else if (!lm_add_ok(qb.k, tk / dk, &qb.k))
                        qb.fail = true;
                } else {
                    addb_put(c, &rb, t[i], 1);
                }
            }
            const sym_expr *qe = addb_finish(c, &qb), *re = addb_finish(c, &rb);
            if (qe && re && qe != c->zero) {
                const sym_expr *r = build_div(c, k, re, d);
                return k == SYM_MOD ? r : sym_add(c, qe, r);
            }
        }
    }

    if (dc && dv > 0) {
        /* floordiv(floordiv(x, a), b) = floordiv(x, a*b) for a, b > 0;
         * the same holds for ceiling division. */
        int64_t iv, p;
        if ((k == SYM_FLOORDIV || k == SYM_CDIV) && a->kind == k && sym_is_const(a->args[1], &iv) &&
            iv > 0 && lm_mul_ok(iv, dv, &p))
            return build_div(c, k, a->args[0], sym_const(c, p));
        /* mod(mod(x, m), b) = mod(x, b) when b divides m: they differ by a
         * multiple of m, hence of b */
        if (k == SYM_MOD && a->kind == SYM_MOD && sym_is_const(a->args[1], &iv) && iv != 0 &&
            iv % dv == 0)
            return build_div(c, k, a->args[0], d);
        /* the dividend provably stays in one period of the divisor */
        int64_t lo, hi, q1, q2;
        if (static_bounds(a, &lo, &hi)) {
            if (k == SYM_CDIV) {
                if (lm_cdiv_ok(lo, dv, &q1) && lm_cdiv_ok(hi, dv, &q2) && q1 == q2)
                    return sym_const(c, q1);
            } else if (lm_fdiv_ok(lo, dv, &q1) && lm_fdiv_ok(hi, dv, &q2) && q1 == q2) {
                if (k == SYM_FLOORDIV)
                    return sym_const(c, q1);
                if (q1 == 0)
                    return a;
                if (lm_mul_ok(q1, dv, &p))
                    return sym_sub(c, a, sym_const(c, p));
            }
        }
    }
    return intern(c, k, 0, NULL, ops, 2);
}

const sym_expr *sym_floordiv(sym_ctx *c, const sym_expr *a, const sym_expr *b) { return build_div(c, SYM_FLOORDIV, a, b); }
const sym_expr *sym_cdiv(sym_ctx *c, const sym_expr *a, const sym_expr *b) { return build_div(c, SYM_CDIV, a, b); }
const sym_expr *sym_mod(sym_ctx *c, const sym_expr *a, const sym_expr *b) { return build_div(c, SYM_MOD, a, b); }

/* ---- min / max -------------------------------------------------------------- */

static void mm_collect(sym_kind k, const sym_expr *e, exprvec *f, bool *hk, int64_t *kv)
{
    if (e->kind == k) {
        for (int i = 0; i < e->nargs; i++)
            mm_collect(k, e->args[i], f, hk, kv);
    } else if (e->kind == SYM_CONST) {
        if (!*hk)
            *kv = e->value;
        else
            *kv = k == SYM_MIN ? LM_MIN(*kv, e->value) : LM_MAX(*kv, e->value);
        *hk = true;
    } else {
        LM_PUSH(f, e);
    }
}

static bool provably_le(sym_ctx *c, const sym_expr *w, const sym_expr *x, int depth);

/* provably_le's answers, remembered per (w, x, depth): building a model
 * asks the same questions many times (every max over a model's terms
 * compares each pair of operands, each through a subtraction it interns),
 * and the answer is a function of the three alone (operands are
 * hash-consed; static_bounds reads no environment). */
typedef struct le_memo {
    const sym_expr *w, *x;
    int depth; /* -1: a free slot */
    bool le;
} le_memo;

static size_t le_slot(const sym_ctx *c, const sym_expr *w, const sym_expr *x, int depth)
{
    uint64_t h = lm_hash_mix(lm_hash_mix(w->hash, x->hash), (uint64_t)depth);
    return (size_t)h & (c->lecap - 1);
}

static void le_grow(sym_ctx *c)
{
    le_memo *old = c->le;
    size_t ocap = c->lecap;
    c->lecap = ocap ? 2 * ocap : 1024;
    c->le = lm_xmalloc(c->lecap * sizeof *c->le);
    for (size_t i = 0; i < c->lecap; i++)
        c->le[i].depth = -1;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].depth < 0)
            continue;
        size_t j = le_slot(c, old[i].w, old[i].x, old[i].depth);
        while (c->le[j].depth >= 0)
            j = (j + 1) & (c->lecap - 1);
        c->le[j] = old[i];
    }
    free(old);
}

/* Remember an answer not yet in the table. */
static void le_put(sym_ctx *c, const sym_expr *w, const sym_expr *x, int depth, bool le)
{
    if ((c->lecount + 1) * 2 > c->lecap)
        le_grow(c);
    size_t i = le_slot(c, w, x, depth);
    while (c->le[i].depth >= 0)
        i = (i + 1) & (c->lecap - 1);
    c->le[i] = (le_memo){w, x, depth, le};
    c->lecount++;
}

static bool provably_le_memo(sym_ctx *c, const sym_expr *w, const sym_expr *x, int depth)
{
    if (w == x)
        return true;
    for (size_t i = c->lecap ? le_slot(c, w, x, depth) : 0; c->lecap && c->le[i].depth >= 0;
         i = (i + 1) & (c->lecap - 1))
        if (c->le[i].w == w && c->le[i].x == x && c->le[i].depth == depth)
            return c->le[i].le;
    /* not asked before; its own questions are deeper, so they are other keys */
    bool le = provably_le(c, w, x, depth);
    le_put(c, w, x, depth, le);
    return le;
}

/* Is w <= x for every value of the variables (wherever both are defined)?
 * Incomplete but cheap; looking through the operands of min and max keeps the
 * answer independent of which operands an earlier step already dropped (so
 * min(d - 2, max(d, y)) is d - 2 whether or not d was seen in between). */
static bool provably_le(sym_ctx *c, const sym_expr *w, const sym_expr *x, int depth)
{
    if (w == x)
        return true;
    int64_t diff, wl, wh, xl, xh;
    if (sym_is_const(sym_sub(c, x, w), &diff)) /* like x + 1 and x + 3 */
        return diff >= 0;
    if (depth < 3) {
        if (x->kind == SYM_MAX) /* w <= one operand of a max */
            for (int i = 0; i < x->nargs; i++)
                if (provably_le_memo(c, w, x->args[i], depth + 1))
                    return true;
        if (w->kind == SYM_MIN) /* one operand of a min <= x */
            for (int i = 0; i < w->nargs; i++)
                if (provably_le_memo(c, w->args[i], x, depth + 1))
                    return true;
        if (x->kind == SYM_MIN) { /* w <= every operand of a min */
            int i = 0;
            while (i < x->nargs && provably_le_memo(c, w, x->args[i], depth + 1))
                i++;
            if (i == x->nargs)
                return true;
        }
        if (w->kind == SYM_MAX) { /* every operand of a max <= x */
            int i = 0;
            while (i < w->nargs && provably_le_memo(c, w->args[i], x, depth + 1))
                i++;
            if (i == w->nargs)
                return true;
        }
    }
    return static_bounds(w, &wl, &wh) && static_bounds(x, &xl, &xh) && wh <= xl;
}

static const sym_expr *build_minmax(sym_ctx *c, sym_kind k, const sym_expr *const *ops, int n)
{
    exprvec f = {0};
    bool hk = false;
    int64_t kv = 0;
    for (int i = 0; i < n; i++)
        mm_collect(k, ops[i], &f, &hk, &kv);
    if (f.len > 1)
        qsort(f.items, f.len, sizeof *f.items, cmp_expr_ptr);
    size_t m = 0;
    for (size_t i = 0; i < f.len; i++)
        if (m == 0 || f.items[m - 1] != f.items[i])
            f.items[m++] = f.items[i];
    f.len = m;
    if (hk) /* the merged constant goes last */
        LM_PUSH(&f, sym_const(c, kv));

    /* Drop operands one at a time, each only while its witness is still
     * present; a dropped operand is then never below (for MIN) one that stays. */
    bool *gone = lm_xcalloc(f.len, sizeof *gone);
    for (size_t i = 0; i < f.len; i++) {
        for (size_t j = 0; j < f.len && !gone[i]; j++) {
            if (j == i || gone[j])
                continue;
            if (k == SYM_MIN ? provably_le_memo(c, f.items[j], f.items[i], 0)
                             : provably_le_memo(c, f.items[i], f.items[j], 0))
                gone[i] = true;
        }
    }
    exprvec args = {0};
    for (size_t i = 0; i < f.len; i++)
        if (!gone[i])
            LM_PUSH(&args, f.items[i]);
    const sym_expr *r = args.len == 1 ? args.items[0] : intern(c, k, 0, NULL, args.items, (int)args.len);
    free(gone);
    LM_VEC_FREE(&args);
    LM_VEC_FREE(&f);
    return r;
}

const sym_expr *sym_min(sym_ctx *c, const sym_expr *a, const sym_expr *b)
{
    return build_minmax(c, SYM_MIN, (const sym_expr *[]){a, b}, 2);
}

const sym_expr *sym_max(sym_ctx *c, const sym_expr *a, const sym_expr *b)
{
    return build_minmax(c, SYM_MAX, (const sym_expr *[]){a, b}, 2);
}

const sym_expr *sym_make(sym_ctx *c, sym_kind k, const sym_expr **args, int nargs)
{
    const sym_expr *r;
    switch (k) {
    case SYM_ADD:
        LM_ASSERT(nargs >= 1);
        r = build_add(c, args, NULL, nargs);
        return r ? r : sym_raw(c, k, args, nargs);
    case SYM_MUL:
        LM_ASSERT(nargs >= 1);
        r = build_mul(c, args, nargs);
        return r ? r : sym_raw(c, k, args, nargs);
    case SYM_MIN:
    case SYM_MAX:
        LM_ASSERT(nargs >= 1);
        return build_minmax(c, k, args, nargs);
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD:
        LM_ASSERT(nargs == 2);
        return build_div(c, k, args[0], args[1]);
    case SYM_CONST:
    case SYM_VAR:
        break;
    }
    LM_BUG("sym_make: kind %d has no operands (use sym_const / sym_var)", (int)k);
}

/* ---- inspection ------------------------------------------------------------ */

bool sym_depends_on(const sym_expr *e, const sym_expr *var)
{
    if (e == var)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (sym_depends_on(e->args[i], var))
            return true;
    return false;
}

static void vars_rec(const sym_expr *e, exprvec *seen)
{
    if (e->kind == SYM_VAR) {
        for (size_t i = 0; i < seen->len; i++)
            if (seen->items[i] == e)
                return;
        LM_PUSH(seen, e);
        return;
    }
    for (int i = 0; i < e->nargs; i++)
        vars_rec(e->args[i], seen);
}

/* Stores at most max variables and returns how many there are in all, so a
 * caller can tell that `out` was too small. */
int sym_vars(const sym_expr *e, const sym_expr **out, int max)
{
    exprvec seen = {0};
    vars_rec(e, &seen);
    for (size_t i = 0; i < seen.len && (int)i < max; i++)
        out[i] = seen.items[i];
    int n = (int)seen.len;
    LM_VEC_FREE(&seen);
    return n;
}

static bool affine_rec(sym_ctx *c, const sym_expr *e, const sym_expr *var, const sym_expr **co,
                       const sym_expr **re)
{
    if (e == var) {
        *co = c->one;
        *re = c->zero;
        return true;
    }
    if (!sym_depends_on(e, var)) {
        *co = c->zero;
        *re = e;
        return true;
    }
    if (e->kind == SYM_ADD) {
        const sym_expr *ca = c->zero, *ra = c->zero;
        for (int i = 0; i < e->nargs; i++) {
            const sym_expr *ci, *ri;
            if (!affine_rec(c, e->args[i], var, &ci, &ri))
                return false;
            ca = sym_add(c, ca, ci);
            ra = sym_add(c, ra, ri);
        }
        *co = ca;
        *re = ra;
        return true;
    }
    if (e->kind == SYM_MUL) {
        /* linear only if exactly one factor mentions var (x*x is not) */
        int dep = -1;
        exprvec others = {0};
        for (int i = 0; i < e->nargs; i++) {
            if (!sym_depends_on(e->args[i], var)) {
                LM_PUSH(&others, e->args[i]);
            } else if (dep >= 0) {
                LM_VEC_FREE(&others);
                return false;
            } else {
                dep = i;
            }
        }
        const sym_expr *o = others.len ? sym_make(c, SYM_MUL, others.items, (int)others.len) : c->one;
        LM_VEC_FREE(&others);
        const sym_expr *ci, *ri;
        if (!affine_rec(c, e->args[dep], var, &ci, &ri))
            return false;
        *co = sym_mul(c, ci, o);
        *re = sym_mul(c, ri, o);
        return true;
    }
    return false; /* var inside a division, mod, min or max */
}

bool sym_affine_coeff(sym_ctx *c, const sym_expr *e, const sym_expr *var, const sym_expr **coeff,
                      const sym_expr **rest)
{
    const sym_expr *co, *re;
    if (!affine_rec(c, e, var, &co, &re))
        return false;
    if (coeff)
        *coeff = co;
    if (rest)
        *rest = re;
    return true;
}

/* ---- environments -------------------------------------------------------- */

void sym_env_set(sym_env *env, const sym_expr *var, int64_t value) { sym_env_set_range(env, var, value, value); }

void sym_env_set_range(sym_env *env, const sym_expr *var, int64_t lo, int64_t hi)
{
    LM_ASSERT(lo <= hi);
    for (int i = 0; i < env->n; i++) {
        if (env->b[i].var == var) {
            env->b[i].lo = lo;
            env->b[i].hi = hi;
            return;
        }
    }
    if (env->n == env->cap) {
        env->cap = env->cap ? 2 * env->cap : 8;
        env->b = lm_xrealloc(env->b, (size_t)env->cap * sizeof *env->b);
    }
    env->b[env->n++] = (sym_binding){var, lo, hi};
}

bool sym_env_get(const sym_env *env, const sym_expr *var, int64_t *lo, int64_t *hi)
{
    for (int i = 0; i < env->n; i++) {
        if (env->b[i].var == var) {
            *lo = env->b[i].lo;
            *hi = env->b[i].hi;
            return true;
        }
    }
    return false;
}

void sym_env_free(sym_env *env)
{
    free(env->b);
    env->b = NULL;
    env->n = env->cap = 0;
}

/* ---- evaluation ------------------------------------------------------------ */

/* An evaluation in progress. Expressions are DAGs: a model's latency
 * shares its subexpressions many times over, and walked as a tree it took
 * a fifth of a small attention compile. The walk is a plain recursion for
 * the small expressions most calls evaluate; past `budget` visits it starts
 * again with each shared node's result kept (`memo`, open addressing by
 * node). A node's result is a function of the node alone, so the second
 * walk returns exactly what the first would have. */
typedef struct eval_memo_ent {
    const sym_expr *e;
    int64_t v;
    sym_status st;
} eval_memo_ent;

typedef struct evalctx {
    const sym_env *env;
    eval_memo_ent *memo; /* NULL: the plain walk */
    size_t cap, n;
    long budget;
    bool over;           /* the plain walk ran out of budget */
} evalctx;

enum { EVAL_PLAIN_BUDGET = 4096 };

static eval_memo_ent *memo_slot(const evalctx *x, const sym_expr *e)
{
    size_t i = (size_t)e->hash & (x->cap - 1);
    while (x->memo[i].e && x->memo[i].e != e)
        i = (i + 1) & (x->cap - 1);
    return &x->memo[i];
}

static void memo_put(evalctx *x, const sym_expr *e, int64_t v, sym_status st)
{
    if ((x->n + 1) * 2 > x->cap) {
        eval_memo_ent *old = x->memo;
        size_t ocap = x->cap;
        x->cap *= 2;
        x->memo = lm_xcalloc(x->cap, sizeof *x->memo);
        for (size_t i = 0; i < ocap; i++)
            if (old[i].e)
                *memo_slot(x, old[i].e) = old[i];
        free(old);
    }
    *memo_slot(x, e) = (eval_memo_ent){e, v, st};
    x->n++;
}

static sym_status eval_rec(evalctx *x, const sym_expr *e, int64_t *out);

/* The operation rules, operands evaluated through eval_rec. */
static sym_status eval_op(evalctx *x, const sym_expr *e, int64_t *out)
{
    sym_status st;
    int64_t a = 0, b;
    switch (e->kind) {
    case SYM_CONST:
    case SYM_VAR:
        break; /* eval_rec's */
    case SYM_ADD:
    case SYM_MUL:
        a = e->kind == SYM_ADD ? 0 : 1;
        for (int i = 0; i < e->nargs; i++) {
            if ((st = eval_rec(x, e->args[i], &b)) != SYM_OK)
                return st;
            if (!(e->kind == SYM_ADD ? lm_add_ok(a, b, &a) : lm_mul_ok(a, b, &a)))
                return SYM_OVERFLOW;
        }
        *out = a;
        return SYM_OK;
    case SYM_FLOORDIV:
    case SYM_CDIV:
    case SYM_MOD:
        if ((st = eval_rec(x, e->args[0], &a)) != SYM_OK)
            return st;
        if ((st = eval_rec(x, e->args[1], &b)) != SYM_OK)
            return st;
        if (b == 0)
            return SYM_DIV_ZERO;
        return div_op(e->kind, a, b, out) ? SYM_OK : SYM_OVERFLOW;
    case SYM_MIN:
    case SYM_MAX:
        for (int i = 0; i < e->nargs; i++) {
            if ((st = eval_rec(x, e->args[i], &b)) != SYM_OK)
                return st;
            if (i == 0 || (e->kind == SYM_MIN ? b < a : b > a))
                a = b;
        }
        *out = a;
        return SYM_OK;
    }
    LM_BUG("sym_eval: bad kind %d", (int)e->kind);
}

static sym_status eval_rec(evalctx *x, const sym_expr *e, int64_t *out)
{
    int64_t a, b;
    if (e->kind == SYM_CONST) {
        *out = e->value;
        return SYM_OK;
    }
    if (e->kind == SYM_VAR) {
        if (!x->env || !sym_env_get(x->env, e, &a, &b) || a != b)
            return SYM_UNBOUND;
        *out = a;
        return SYM_OK;
    }
    if (!x->memo) {
        if (--x->budget < 0) {
            x->over = true;
            return SYM_UNBOUND; /* unwinds: every caller returns a failed operand's status */
        }
        return eval_op(x, e, out);
    }
    const eval_memo_ent *m = memo_slot(x, e);
    if (m->e) {
        if (m->st == SYM_OK)
            *out = m->v;
        return m->st;
    }
    int64_t v = 0;
    sym_status st = eval_op(x, e, &v);
    memo_put(x, e, v, st);
    if (st == SYM_OK)
        *out = v;
    return st;
}

/* A variable bound to a range (lo < hi) has no single value: SYM_UNBOUND. */
sym_status sym_eval(const sym_expr *e, const sym_env *env, int64_t *out)
{
    evalctx x = {.env = env, .budget = EVAL_PLAIN_BUDGET};
    sym_status st = eval_rec(&x, e, out);
    if (!x.over)
        return st;
    x.cap = 1024;
    x.memo = lm_xcalloc(x.cap, sizeof *x.memo);
    st = eval_rec(&x, e, out);
    free(x.memo);
    return st;
}

/* ---- substitution ---------------------------------------------------------- */

static const sym_expr *rebuild(sym_ctx *c, const sym_expr *e, const sym_env *env)
{
    if (e->kind == SYM_CONST)
        return e;
    if (e->kind == SYM_VAR) {
        int64_t lo, hi;
        if (env && sym_env_get(env, e, &lo, &hi) && lo == hi)
            return sym_const(c, lo);
        return e;
    }
    exprvec a = {0};
    for (int i = 0; i < e->nargs; i++)
        LM_PUSH(&a, rebuild(c, e->args[i], env));
    const sym_expr *r = sym_make(c, e->kind, a.items, (int)a.len);
    LM_VEC_FREE(&a);
    return r;
}

const sym_expr *sym_subst(sym_ctx *c, const sym_expr *e, const sym_env *env) { return rebuild(c, e, env); }

const sym_expr *sym_replace(sym_ctx *c, const sym_expr *e, const sym_expr *var, const sym_expr *by)
{
    if (e == var)
        return by;
    if (e->kind == SYM_CONST || e->kind == SYM_VAR || !sym_depends_on(e, var))
        return e;
    exprvec a = {0};
    for (int i = 0; i < e->nargs; i++)
        LM_PUSH(&a, sym_replace(c, e->args[i], var, by));
    const sym_expr *r = sym_make(c, e->kind, a.items, (int)a.len);
    LM_VEC_FREE(&a);
    return r;
}
const sym_expr *sym_simplify(sym_ctx *c, const sym_expr *e) { return rebuild(c, e, NULL); }
