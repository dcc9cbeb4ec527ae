/* test_sym.c - symbolic integer expressions: canonical simplification, hash-consing,
 * evaluation, interval bounds, substitution, affine decomposition, printing and
 * parsing. The randomized tests use fixed seeds, so every run checks the same
 * expressions; the reference for every value is brute-force evaluation of the
 * unsimplified tree (sym_raw), with Python floor/mod semantics computed here
 * independently of the module. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym.h"

/* ---- helpers ------------------------------------------------------------- */

/* When set, constants are drawn from values near the ends of int64 too. */
static bool big_constants;
static const int64_t big_values[] = {
    INT64_MIN, INT64_MIN + 1, -((int64_t)1 << 62), -((int64_t)1 << 32), -3, -2, -1, 0, 1, 2, 3,
    (int64_t)1 << 31, (int64_t)1 << 32, ((int64_t)1 << 62) + 1, INT64_MAX - 1, INT64_MAX,
};

static sym_ctx *C;

static int setup(void **state)
{
    (void)state;
    C = sym_ctx_new();
    big_constants = false;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sym_ctx_free(C);
    C = NULL;
    return 0;
}

static const sym_expr *V(const char *n) { return sym_var(C, n); }
static const sym_expr *K(int64_t v) { return sym_const(C, v); }
static const sym_expr *add(const sym_expr *a, const sym_expr *b) { return sym_add(C, a, b); }
static const sym_expr *sub(const sym_expr *a, const sym_expr *b) { return sym_sub(C, a, b); }
static const sym_expr *mul(const sym_expr *a, const sym_expr *b) { return sym_mul(C, a, b); }
static const sym_expr *raw2(sym_kind k, const sym_expr *a, const sym_expr *b)
{
    return sym_raw(C, k, (const sym_expr *[]){a, b}, 2);
}

/* Printed form, in a static buffer (tests compare it right away). */
static const char *S(const sym_expr *e)
{
    static char out[4][512];
    static int slot;
    lm_buf b = {0};
    sym_print(&b, e);
    char *o = out[slot++ % 4];
    snprintf(o, sizeof out[0], "%s", lm_buf_str(&b));
    lm_buf_free(&b);
    return o;
}

static const sym_expr *P(const char *text)
{
    const char *err = NULL;
    const sym_expr *e = sym_parse(C, text, &err);
    if (!e)
        fail_msg("parse of '%s' failed at offset %d", text, (int)(err - text));
    return e;
}

/* Python semantics, written out independently of sym.c. */
static int64_t ref_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (q * b != a && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t ref_mod(int64_t a, int64_t b) { return a - b * ref_floordiv(a, b); }
static int64_t ref_cdiv(int64_t a, int64_t b) { return -ref_floordiv(-a, b); }

static int64_t eval1(const sym_expr *e, const sym_env *env)
{
    int64_t v = 0;
    sym_status st = sym_eval(e, env, &v);
    if (st != SYM_OK)
        fail_msg("evaluating %s failed with status %d", S(e), (int)st);
    return v;
}

/* Deterministic PRNG (splitmix64). */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnext(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rint_(rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); }
static int64_t rrange(rng *r, int lo, int hi) { return lo + rint_(r, hi - lo + 1); }

/* A random tree built twice: exactly as drawn (raw) and through the simplifying
 * constructors (simp). With `swap`, commutative operations receive their
 * operands in the opposite order; the random draws are the same either way. */
typedef struct pair {
    const sym_expr *raw, *simp;
} pair;

static int64_t rconst(rng *r)
{
    if (big_constants && rint_(r, 2))
        return big_values[rint_(r, (int)LM_COUNT(big_values))];
    return rrange(r, -4, 4);
}

static pair gen(sym_ctx *c, rng *r, const sym_expr *const *vars, int nv, int depth, bool swap)
{
    if (depth == 0 || rint_(r, 5) == 0) {
        const sym_expr *e = rint_(r, 5) < 2 ? sym_const(c, rconst(r)) : vars[rint_(r, nv)];
        return (pair){e, e};
    }
    int op = rint_(r, 13);
    pair a = gen(c, r, vars, nv, depth - 1, swap), b, d;
    const sym_expr *m1 = sym_const(c, -1);
    switch (op) {
    case 0:
    case 1: /* a + b */
        b = gen(c, r, vars, nv, depth - 1, swap);
        if (swap)
            return (pair){sym_raw(c, SYM_ADD, (const sym_expr *[]){b.raw, a.raw}, 2), sym_add(c, b.simp, a.simp)};
        return (pair){sym_raw(c, SYM_ADD, (const sym_expr *[]){a.raw, b.raw}, 2), sym_add(c, a.simp, b.simp)};
    case 2: /* a - b */
        b = gen(c, r, vars, nv, depth - 1, swap);
        return (pair){sym_raw(c, SYM_ADD,
                              (const sym_expr *[]){a.raw, sym_raw(c, SYM_MUL, (const sym_expr *[]){m1, b.raw}, 2)}, 2),
                      sym_sub(c, a.simp, b.simp)};
    case 3: /* -a */
        return (pair){sym_raw(c, SYM_MUL, (const sym_expr *[]){m1, a.raw}, 2), sym_neg(c, a.simp)};
    case 4: { /* k * a, to exercise coefficients and content */
        const sym_expr *k = sym_const(c, rconst(r));
        if (swap)
            return (pair){sym_raw(c, SYM_MUL, (const sym_expr *[]){a.raw, k}, 2), sym_mul(c, a.simp, k)};
        return (pair){sym_raw(c, SYM_MUL, (const sym_expr *[]){k, a.raw}, 2), sym_mul(c, k, a.simp)};
    }
    case 5: /* a * b */
        b = gen(c, r, vars, nv, depth - 1, swap);
        if (swap)
            return (pair){sym_raw(c, SYM_MUL, (const sym_expr *[]){b.raw, a.raw}, 2), sym_mul(c, b.simp, a.simp)};
        return (pair){sym_raw(c, SYM_MUL, (const sym_expr *[]){a.raw, b.raw}, 2), sym_mul(c, a.simp, b.simp)};
    case 6: /* a + b + d, n-ary */
        b = gen(c, r, vars, nv, depth - 1, swap);
        d = gen(c, r, vars, nv, depth - 1, swap);
        {
            const sym_expr *ra[3] = {a.raw, b.raw, d.raw}, *sa[3] = {a.simp, b.simp, d.simp};
            if (swap) {
                ra[0] = d.raw, ra[2] = a.raw;
                sa[0] = d.simp, sa[2] = a.simp;
            }
            sym_kind k = rint_(r, 2) ? SYM_ADD : SYM_MUL;
            return (pair){sym_raw(c, k, ra, 3), sym_make(c, k, sa, 3)};
        }
    case 7:
    case 8:
    case 9: { /* division-like, usually by a small constant (sometimes 0 or negative) */
        static const sym_kind dk[] = {SYM_FLOORDIV, SYM_CDIV, SYM_MOD};
        sym_kind k = dk[op - 7];
        if (rint_(r, 3))
            b.raw = b.simp = sym_const(c, rint_(r, 8) ? rrange(r, 1, 6) : rrange(r, -4, 0));
        else
            b = gen(c, r, vars, nv, depth - 1, swap);
        return (pair){sym_raw(c, k, (const sym_expr *[]){a.raw, b.raw}, 2),
                      sym_make(c, k, (const sym_expr *[]){a.simp, b.simp}, 2)};
    }
    default: { /* min / max of 2 or 3 operands */
        sym_kind k = op % 2 ? SYM_MIN : SYM_MAX;
        b = gen(c, r, vars, nv, depth - 1, swap);
        int n = 2;
        if (rint_(r, 3) == 0) {
            d = gen(c, r, vars, nv, depth - 1, swap);
            n = 3;
        } else {
            d = a;
        }
        const sym_expr *ra[3] = {a.raw, b.raw, d.raw}, *sa[3] = {a.simp, b.simp, d.simp};
        if (swap) {
            const sym_expr *t = ra[0];
            ra[0] = ra[n - 1], ra[n - 1] = t;
            t = sa[0];
            sa[0] = sa[n - 1], sa[n - 1] = t;
        }
        return (pair){sym_raw(c, k, ra, n), sym_make(c, k, sa, n)};
    }
    }
}

/* Calls f on every assignment of vars[0..nv) over [lo, hi]^nv. */
typedef void (*assign_fn)(const sym_env *env, void *ud);

static void for_all(const sym_expr *const *vars, int nv, int lo, int hi, assign_fn f, void *ud)
{
    int val[8];
    sym_env env = {0};
    for (int i = 0; i < nv; i++)
        val[i] = lo;
    for (;;) {
        for (int i = 0; i < nv; i++)
            sym_env_set(&env, vars[i], val[i]);
        f(&env, ud);
        int i = 0;
        while (i < nv && val[i] == hi)
            val[i++] = lo;
        if (i == nv)
            break;
        val[i]++;
    }
    sym_env_free(&env);
}

/* ---- specific simplifications and printed forms ------------------------------ */

static void constants_and_identities(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y");
    assert_ptr_equal(add(K(2), K(3)), K(5));
    assert_ptr_equal(mul(K(-4), K(3)), K(-12));
    assert_ptr_equal(add(x, K(0)), x);
    assert_ptr_equal(add(K(0), x), x);
    assert_ptr_equal(mul(x, K(1)), x);
    assert_ptr_equal(mul(K(0), x), K(0));
    assert_ptr_equal(mul(x, K(0)), K(0));
    assert_ptr_equal(sub(x, x), K(0));
    assert_ptr_equal(sym_neg(C, sym_neg(C, x)), x);
    assert_ptr_equal(add(mul(K(2), x), mul(K(3), x)), mul(K(5), x));
    assert_string_equal(S(add(mul(K(2), x), mul(K(3), x))), "5*x");
    assert_ptr_equal(sub(add(x, y), y), x);
    assert_ptr_equal(add(add(x, K(4)), K(-4)), x);
    assert_ptr_equal(sub(mul(x, y), mul(y, x)), K(0));
    assert_string_equal(S(add(add(x, K(1)), add(x, K(2)))), "2*x + 3");
    /* flattening: one n-ary node */
    const sym_expr *s = add(add(x, y), add(V("z"), K(1)));
    assert_int_equal(s->kind, SYM_ADD);
    assert_int_equal(s->nargs, 4);
    const sym_expr *p = mul(mul(x, K(2)), mul(y, K(3)));
    assert_int_equal(p->kind, SYM_MUL);
    assert_int_equal(p->nargs, 3);
    assert_string_equal(S(p), "6*x*y");
    int64_t v;
    assert_true(sym_is_const(K(7), &v));
    assert_int_equal(v, 7);
    assert_false(sym_is_const(x, &v));
}

/* A cut-short print is the full text where it fits, else a prefix of it
 * with the operands not begun left out as one "...", parentheses closed,
 * whatever the full text's length: 40 levels of a term shared by two
 * operands print 2^40 leaves in full. */
static void short_prints(void **state)
{
    (void)state;
    const sym_expr *a = V("a"), *b = V("b");
    const sym_expr *small = sym_max(C, add(a, K(1)), mul(a, b));
    lm_buf s = {0};
    sym_print_short(&s, small, 100);
    assert_string_equal(lm_buf_str(&s), S(small));
    lm_buf_free(&s);

    const sym_expr *e = a;
    for (int i = 0; i < 40; i++)
        e = sym_max(C, mul(e, V(i % 2 ? "b" : "c")), sym_cdiv(C, e, V("d")));
    lm_buf t = {0};
    lm_buf_puts(&t, "x = ");
    sym_print_short(&t, e, 60);
    const char *txt = lm_buf_str(&t);
    assert_true(t.len > 64 && t.len < 64 + 200); /* the operand that crosses 60 finishes its own text */
    assert_non_null(strstr(txt, "..."));
    assert_int_equal(strncmp(txt, "x = max(", 8), 0);
    int depth = 0;
    for (const char *q = txt; *q; q++)
        depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
    assert_int_equal(depth, 0);
    lm_buf_free(&t);
}

static void printed_forms(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *N = V("N"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K");
    const sym_expr *a = V("a"), *b = V("b"), *c = V("c");
    assert_string_equal(S(sym_cdiv(C, M, BM)), "cdiv(M, BLOCK_M)");
    assert_string_equal(S(add(mul(K(2), BK), K(1))), "2*BLOCK_K + 1");
    assert_string_equal(S(add(K(1), mul(BK, K(2)))), "2*BLOCK_K + 1");
    assert_string_equal(S(sub(M, mul(K(3), N))), "M - 3*N");
    assert_string_equal(S(sub(mul(K(-3), N), M)), "-M - 3*N");
    assert_string_equal(S(sym_floordiv(C, a, b)), "floordiv(a, b)");
    assert_string_equal(S(sym_mod(C, a, b)), "mod(a, b)");
    assert_string_equal(S(sym_min(C, c, sym_min(C, b, a))), "min(a, b, c)");
    assert_string_equal(S(sym_max(C, K(4), a)), "max(a, 4)");
    assert_string_equal(S(sym_neg(C, a)), "-a");
    assert_string_equal(S(sub(K(1), a)), "-a + 1");
    assert_string_equal(S(sub(a, K(1))), "a - 1");
    assert_string_equal(S(mul(a, b)), "a*b");
    assert_string_equal(S(sym_neg(C, mul(a, b))), "-a*b");
    assert_string_equal(S(mul(add(a, K(1)), b)), "b*(a + 1)");
    assert_string_equal(S(sub(c, mul(add(a, K(1)), b))), "c - b*(a + 1)");
    assert_string_equal(S(mul(V("depth.a"), V("grid.x"))), "depth.a*grid.x");
    assert_string_equal(S(add(mul(V("pid"), BM), K(3))), "BLOCK_M*pid + 3");
    assert_string_equal(S(sym_min(C, BM, sub(M, mul(V("pid"), BM)))), "min(BLOCK_M, M - BLOCK_M*pid)");
    assert_string_equal(S(mul(K(2), sym_floordiv(C, add(a, b), K(3)))), "2*floordiv(a + b, 3)");
    assert_string_equal(S(K(-5)), "-5");
    /* raw nodes print faithfully, with parentheses where needed */
    assert_string_equal(S(raw2(SYM_ADD, a, K(0))), "a + 0");
    assert_string_equal(S(raw2(SYM_ADD, K(-2), a)), "a - 2");
    assert_string_equal(S(raw2(SYM_MUL, a, K(-3))), "a*(-3)");
    assert_string_equal(S(raw2(SYM_MUL, raw2(SYM_ADD, a, b), c)), "(a + b)*c");
    assert_string_equal(S(raw2(SYM_ADD, a, raw2(SYM_ADD, b, c))), "a + (b + c)");
    assert_string_equal(S(raw2(SYM_FLOORDIV, a, K(0))), "floordiv(a, 0)");
    lm_arena ar;
    lm_arena_init(&ar);
    assert_string_equal(sym_str(&ar, sym_cdiv(C, M, BM)), "cdiv(M, BLOCK_M)");
    lm_arena_free(&ar);
}

static void constants_distribute(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y");
    assert_string_equal(S(mul(K(2), add(x, K(1)))), "2*x + 2");
    assert_string_equal(S(sym_neg(C, sub(x, y))), "-x + y");
    /* a sum among several factors keeps its content outside: one node */
    const sym_expr *p1 = mul(add(mul(K(2), x), K(2)), y);
    const sym_expr *p2 = mul(K(2), mul(add(x, K(1)), y));
    assert_ptr_equal(p1, p2);
    assert_string_equal(S(p1), "2*y*(x + 1)");
    const sym_expr *p3 = mul(sub(K(-1), x), y);
    assert_ptr_equal(p3, sym_neg(C, mul(add(x, K(1)), y)));
    assert_string_equal(S(p3), "-y*(x + 1)");
    /* products of sums are not expanded */
    assert_string_equal(S(mul(add(x, K(1)), add(y, K(1)))), "(x + 1)*(y + 1)");
}

static void division_rules(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y"), *BM = V("BLOCK_M"), *pid = V("pid");
    /* by 1 and -1 */
    assert_ptr_equal(sym_floordiv(C, x, K(1)), x);
    assert_ptr_equal(sym_cdiv(C, x, K(1)), x);
    assert_ptr_equal(sym_mod(C, x, K(1)), K(0));
    assert_ptr_equal(sym_floordiv(C, x, K(-1)), sym_neg(C, x));
    assert_ptr_equal(sym_mod(C, x, K(-1)), K(0));
    /* constants, Python semantics */
    assert_ptr_equal(sym_floordiv(C, K(-7), K(2)), K(-4));
    assert_ptr_equal(sym_cdiv(C, K(-7), K(2)), K(-3));
    assert_ptr_equal(sym_cdiv(C, K(7), K(2)), K(4));
    assert_ptr_equal(sym_mod(C, K(-7), K(2)), K(1));
    assert_ptr_equal(sym_mod(C, K(7), K(-2)), K(-1));
    assert_ptr_equal(sym_floordiv(C, K(7), K(-2)), K(-4));
    /* division by constant zero is kept, to fail at evaluation */
    const sym_expr *z = sym_floordiv(C, x, K(0));
    assert_int_equal(z->kind, SYM_FLOORDIV);
    sym_env env = {0};
    sym_env_set(&env, x, 3);
    int64_t v;
    assert_int_equal(sym_eval(z, &env, &v), SYM_DIV_ZERO);
    sym_env_free(&env);
    /* exact multiples */
    assert_ptr_equal(sym_floordiv(C, mul(K(6), x), K(3)), mul(K(2), x));
    assert_ptr_equal(sym_cdiv(C, mul(K(6), x), K(3)), mul(K(2), x));
    assert_ptr_equal(sym_mod(C, mul(K(12), x), K(4)), K(0));
    assert_ptr_equal(sym_mod(C, mul(K(12), mul(x, y)), K(-4)), K(0));
    assert_string_equal(S(sym_floordiv(C, add(mul(K(4), x), K(5)), K(4))), "x + 1");
    assert_string_equal(S(sym_cdiv(C, add(mul(K(4), x), K(5)), K(4))), "x + 2");
    assert_string_equal(S(sym_mod(C, add(mul(K(12), x), K(7)), K(4))), "3");
    assert_string_equal(S(sym_floordiv(C, add(mul(K(4), x), y), K(4))), "x + floordiv(y, 4)");
    assert_string_equal(S(sym_mod(C, add(mul(K(4), x), add(y, K(6))), K(4))), "mod(y + 2, 4)");
    /* common content of dividend and divisor */
    assert_string_equal(S(sym_floordiv(C, mul(K(2), x), K(4))), "floordiv(x, 2)");
    assert_string_equal(S(sym_mod(C, mul(K(6), x), K(4))), "2*mod(3*x, 2)");
    /* not rewritten: 3x // 2 is not (3 // 2) * x */
    assert_string_equal(S(sym_floordiv(C, mul(K(3), x), K(2))), "floordiv(3*x, 2)");
    assert_string_equal(S(sym_cdiv(C, x, y)), "cdiv(x, y)");
    /* negative constant divisors move their sign to the dividend */
    assert_ptr_equal(sym_floordiv(C, x, K(-2)), sym_floordiv(C, sym_neg(C, x), K(2)));
    assert_ptr_equal(sym_mod(C, x, K(-2)), sym_neg(C, sym_mod(C, sym_neg(C, x), K(2))));
    /* nested divisions */
    assert_ptr_equal(sym_floordiv(C, sym_floordiv(C, x, K(2)), K(3)), sym_floordiv(C, x, K(6)));
    assert_ptr_equal(sym_cdiv(C, sym_cdiv(C, x, K(2)), K(3)), sym_cdiv(C, x, K(6)));
    assert_ptr_equal(sym_mod(C, sym_mod(C, x, K(8)), K(4)), sym_mod(C, x, K(4)));
    /* a mixed nest is not merged: cdiv(floordiv(x, 2), 3) differs from both */
    assert_int_equal(sym_cdiv(C, sym_floordiv(C, x, K(2)), K(3))->args[0]->kind, SYM_FLOORDIV);
    /* dividends known to lie in one period */
    assert_ptr_equal(sym_floordiv(C, sym_mod(C, x, K(4)), K(4)), K(0));
    assert_ptr_equal(sym_floordiv(C, add(sym_mod(C, x, K(4)), K(4)), K(8)), K(0));
    assert_ptr_equal(sym_mod(C, sym_mod(C, x, K(4)), K(8)), sym_mod(C, x, K(4)));
    /* symbolic divisors: cancel a common factor (valid wherever defined) */
    assert_ptr_equal(sym_floordiv(C, mul(pid, BM), BM), pid);
    assert_ptr_equal(sym_floordiv(C, x, x), K(1));
    assert_ptr_equal(sym_mod(C, x, x), K(0));
    assert_string_equal(S(sym_mod(C, add(mul(pid, BM), K(3)), BM)), "mod(3, BLOCK_M)");
    assert_string_equal(S(sym_floordiv(C, add(mul(pid, BM), K(3)), BM)), "pid + floordiv(3, BLOCK_M)");
    assert_string_equal(S(sym_floordiv(C, mul(K(4), x), mul(K(2), y))), "floordiv(2*x, y)");
}

static void minmax_rules(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y"), *z = V("z");
    assert_ptr_equal(sym_min(C, x, x), x);
    assert_ptr_equal(sym_max(C, K(3), K(5)), K(5));
    assert_ptr_equal(sym_min(C, K(3), K(5)), K(3));
    const sym_expr *m = sym_min(C, x, sym_min(C, K(5), sym_min(C, y, K(3))));
    assert_string_equal(S(m), "min(x, y, 3)");
    assert_int_equal(m->nargs, 3);
    assert_ptr_equal(sym_min(C, y, x), sym_min(C, x, y));
    assert_ptr_equal(sym_max(C, add(x, K(1)), add(x, K(3))), add(x, K(3)));
    assert_ptr_equal(sym_min(C, add(x, K(1)), add(x, K(3))), add(x, K(1)));
    assert_ptr_equal(sym_min(C, x, sym_max(C, x, y)), x);
    assert_ptr_equal(sym_max(C, sym_min(C, y, x), x), x);
    assert_ptr_equal(sym_min(C, sym_mod(C, x, K(4)), K(10)), sym_mod(C, x, K(4)));
    assert_ptr_equal(sym_max(C, sym_mod(C, x, K(4)), K(-1)), sym_mod(C, x, K(4)));
    assert_ptr_equal(sym_max(C, sym_mod(C, x, K(4)), K(3)), K(3));
    assert_string_equal(S(sym_max(C, sym_mod(C, x, K(4)), K(2))), "max(mod(x, 4), 2)");
    const sym_expr *ops[] = {z, y, x, y};
    assert_ptr_equal(sym_make(C, SYM_MAX, ops, 4), sym_max(C, x, sym_max(C, y, z)));
    assert_ptr_equal(sym_make(C, SYM_MIN, ops, 1), z);
}

/* The answers the context remembers for min and max (is w <= x?) are of
 * the ordered pair and the depth: asked again, in either order, under min
 * or max, nested in another min or max, after the context has seen many
 * other pairs, they are the answers a fresh context gives. */
static void minmax_remembered(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y");
    const sym_expr *lo = add(x, K(1)), *hi = add(x, K(3));
    for (int round = 0; round < 3; round++) {
        assert_ptr_equal(sym_max(C, lo, hi), hi);
        assert_ptr_equal(sym_max(C, hi, lo), hi);
        assert_ptr_equal(sym_min(C, lo, hi), lo);
        assert_ptr_equal(sym_min(C, hi, lo), lo);
        /* lo <= max(hi, y) through one operand of the max (one level down) */
        assert_ptr_equal(sym_max(C, lo, sym_max(C, hi, y)), sym_max(C, hi, y));
        assert_string_equal(S(sym_max(C, lo, y)), "max(y, x + 1)");
        for (int k = 0; k < 200 && round == 0; k++) /* fill the table past a growth or two */
            sym_max(C, add(x, K(k)), add(y, K(k)));
    }
    sym_ctx *fresh = sym_ctx_new();
    const sym_expr *fx = sym_var(fresh, "x");
    const sym_expr *flo = sym_add(fresh, fx, sym_const(fresh, 1)), *fhi = sym_add(fresh, fx, sym_const(fresh, 3));
    assert_int_equal(sym_compare(sym_max(fresh, flo, fhi), hi), 0);
    assert_int_equal(sym_compare(sym_min(fresh, fhi, flo), lo), 0);
    sym_ctx_free(fresh);
}

static void raw_is_unsimplified(void **state)
{
    (void)state;
    const sym_expr *x = V("x");
    const sym_expr *r = raw2(SYM_ADD, x, K(0));
    assert_ptr_not_equal(r, x);
    assert_ptr_equal(r, raw2(SYM_ADD, x, K(0))); /* still hash-consed */
    assert_ptr_not_equal(r, raw2(SYM_ADD, K(0), x)); /* order kept */
    assert_ptr_equal(sym_simplify(C, r), x);
    const sym_expr *one[] = {x};
    const sym_expr *r1 = sym_raw(C, SYM_MIN, one, 1);
    assert_int_equal(r1->kind, SYM_MIN);
    assert_ptr_equal(sym_simplify(C, r1), x);
}

static void hash_consing_identity(void **state)
{
    (void)state;
    const sym_expr *a = V("a"), *b = V("b"), *c = V("c");
    assert_ptr_equal(V("a"), a);
    char name[8] = "a";
    const sym_expr *a2 = sym_var(C, name);
    name[0] = 'q';
    assert_ptr_equal(a2, a);
    assert_string_equal(a->name, "a"); /* interned: the context owns the name */
    assert_ptr_not_equal(a->name, name);
    const sym_expr *e1 = add(add(mul(K(2), a), b), add(c, K(7)));
    const sym_expr *e2 = add(K(7), add(c, add(b, add(a, a))));
    const sym_expr *e3 = sub(add(c, mul(K(3), a)), sub(a, add(b, K(7))));
    assert_ptr_equal(e1, e2);
    assert_ptr_equal(e1, e3);
    assert_ptr_equal(mul(mul(a, b), c), mul(c, mul(b, a)));
    assert_ptr_equal(sym_max(C, sym_max(C, a, b), c), sym_max(C, c, sym_max(C, b, a)));
    assert_ptr_equal(sym_floordiv(C, add(a, b), c), sym_floordiv(C, add(b, a), c));
    assert_ptr_equal(sym_parse(C, "2*a + b + c + 7", NULL), e1);
    assert_true(e1->hash == e2->hash);
}

/* The same expression built in two contexts with different creation orders
 * prints the same: the order is structural, never by pointer or id. */
static void canonical_order_independent_of_creation(void **state)
{
    (void)state;
    for (int seed = 1; seed <= 300; seed++) {
        sym_ctx *c1 = sym_ctx_new(), *c2 = sym_ctx_new();
        const sym_expr *v1[3] = {sym_var(c1, "a"), sym_var(c1, "b"), sym_var(c1, "c")};
        /* c2 creates its variables backwards and some other nodes first */
        sym_const(c2, 99);
        sym_var(c2, "zz");
        const sym_expr *v2c = sym_var(c2, "c"), *v2b = sym_var(c2, "b"), *v2a = sym_var(c2, "a");
        const sym_expr *v2[3] = {v2a, v2b, v2c};
        rng r1 = {(uint64_t)seed}, r2 = {(uint64_t)seed};
        pair p1 = gen(c1, &r1, v1, 3, 4, false);
        pair p2 = gen(c2, &r2, v2, 3, 4, true);
        lm_buf b1 = {0}, b2 = {0};
        sym_print(&b1, p1.simp);
        sym_print(&b2, p2.simp);
        if (strcmp(lm_buf_str(&b1), lm_buf_str(&b2)) != 0)
            fail_msg("seed %d: '%s' vs '%s'", seed, lm_buf_str(&b1), lm_buf_str(&b2));
        assert_true(p1.simp->hash == p2.simp->hash);
        lm_buf_free(&b1);
        lm_buf_free(&b2);
        /* and in one context, swapped operand order gives the same pointer */
        rng r3 = {(uint64_t)seed};
        pair p3 = gen(c1, &r3, v1, 3, 4, true);
        assert_ptr_equal(p3.simp, p1.simp);
        sym_ctx_free(c1);
        sym_ctx_free(c2);
    }
}

/* Sums of random terms built in random orders are one node. */
static void random_hash_consing_orders(void **state)
{
    (void)state;
    rng r = {42};
    const sym_expr *vars[4] = {V("a"), V("b"), V("c"), V("d")};
    for (int iter = 0; iter < 500; iter++) {
        const sym_expr *terms[8];
        int n = 2 + rint_(&r, 6);
        for (int i = 0; i < n; i++)
            terms[i] = gen(C, &r, vars, 4, 2, false).simp;
        const sym_expr *s1 = K(0), *s2 = K(0), *p1 = K(1), *p2 = K(1);
        const sym_expr *m1 = terms[0], *m2 = terms[n - 1];
        for (int i = 0; i < n; i++) {
            s1 = add(s1, terms[i]);
            p1 = mul(p1, terms[i]);
            m1 = sym_min(C, m1, terms[i]);
        }
        int perm[8];
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = rint_(&r, i + 1), t = perm[i];
            perm[i] = perm[j], perm[j] = t;
        }
        for (int i = 0; i < n; i++) {
            s2 = add(terms[perm[i]], s2);
            p2 = mul(terms[perm[i]], p2);
            m2 = sym_min(C, terms[perm[i]], m2);
        }
        assert_ptr_equal(s1, s2);
        assert_ptr_equal(p1, p2);
        if (m1 != m2) {
            for (int i = 0; i < n; i++) print_message("term %s\n", S(terms[i]));
            fail_msg("%s vs %s", S(m1), S(m2));
        }
        assert_ptr_equal(sym_make(C, SYM_ADD, terms, n), s1);
    }
}

/* ---- randomized: simplification keeps values ------------------------------- */

typedef struct cmp_state {
    const sym_expr *raw, *simp;
    long compared, raw_failed, removed_failure;
} cmp_state;

static void compare_at(const sym_env *env, void *ud)
{
    cmp_state *s = ud;
    int64_t rv = 0, sv = 0;
    sym_status rs = sym_eval(s->raw, env, &rv);
    sym_status ss = sym_eval(s->simp, env, &sv);
    if (rs != SYM_OK) {
        /* only division by zero can occur with these small values; the
         * simplified form may have dropped it (x*0 -> 0) */
        assert_int_equal(rs, SYM_DIV_ZERO);
        s->raw_failed++;
        if (ss == SYM_OK)
            s->removed_failure++;
        return;
    }
    if (ss != SYM_OK || rv != sv) {
        lm_buf b = {0};
        for (int i = 0; i < env->n; i++)
            lm_buf_printf(&b, "%s=%lld ", env->b[i].var->name, (long long)env->b[i].lo);
        fail_msg("raw %s = %lld but simplified %s gives status %d value %lld at %s", S(s->raw), (long long)rv,
                 S(s->simp), (int)ss, (long long)sv, lm_buf_str(&b));
    }
    s->compared++;
}

static void random_simplification_preserves_value(void **state)
{
    (void)state;
    const sym_expr *v3[3] = {V("a"), V("b"), V("c")};
    const sym_expr *v4[4] = {V("a"), V("b"), V("c"), V("d")};
    long exprs = 0, compared = 0, raw_failed = 0, removed = 0;
    for (int seed = 1; seed <= 2500; seed++) {
        rng r = {(uint64_t)seed * 7919u};
        bool four = seed % 4 == 0;
        pair p = gen(C, &r, four ? v4 : v3, four ? 4 : 3, 1 + seed % 5, false);
        cmp_state s = {p.raw, p.simp, 0, 0, 0};
        if (four)
            for_all(v4, 4, -2, 2, compare_at, &s);
        else
            for_all(v3, 3, -3, 3, compare_at, &s);
        /* the constructors are a fixed point of themselves, and simplifying the
         * raw tree bottom-up is what the constructors did */
        assert_ptr_equal(sym_simplify(C, p.simp), p.simp);
        assert_ptr_equal(sym_simplify(C, p.raw), p.simp);
        exprs++;
        compared += s.compared;
        raw_failed += s.raw_failed;
        removed += s.removed_failure;
    }
    print_message("# simplification: %ld expressions, %ld assignments compared, %ld with a division by zero "
                  "in the raw tree (%ld of them removed by simplification)\n",
                  exprs, compared, raw_failed, removed);
    assert_true(compared > 500000);
}

/* ---- evaluation -------------------------------------------------------------- */

static void eval_semantics(void **state)
{
    (void)state;
    const sym_expr *a = V("a"), *b = V("b");
    const sym_expr *fd = raw2(SYM_FLOORDIV, a, b), *cd = raw2(SYM_CDIV, a, b), *md = raw2(SYM_MOD, a, b);
    sym_env env = {0};
    for (int x = -9; x <= 9; x++) {
        for (int y = -4; y <= 4; y++) {
            if (y == 0)
                continue;
            sym_env_set(&env, a, x);
            sym_env_set(&env, b, y);
            assert_int_equal(eval1(fd, &env), ref_floordiv(x, y));
            assert_int_equal(eval1(cd, &env), ref_cdiv(x, y));
            assert_int_equal(eval1(md, &env), ref_mod(x, y));
            assert_int_equal(eval1(sym_min(C, a, b), &env), x < y ? x : y);
            assert_int_equal(eval1(sym_max(C, a, b), &env), x > y ? x : y);
        }
    }
    int64_t v;
    sym_env_set(&env, b, 0);
    assert_int_equal(sym_eval(fd, &env, &v), SYM_DIV_ZERO);
    assert_int_equal(sym_eval(md, &env, &v), SYM_DIV_ZERO);
    assert_int_equal(sym_eval(add(a, V("unbound")), &env, &v), SYM_UNBOUND);
    assert_int_equal(sym_eval(a, NULL, &v), SYM_UNBOUND);
    sym_env_set_range(&env, a, 0, 3); /* a range is not a value */
    assert_int_equal(sym_eval(a, &env, &v), SYM_UNBOUND);
    sym_env_free(&env);
}

/* Expressions share their subexpressions: e(i+1) = max(e(i) + x, e(i) * 2)
 * names e(i) twice, so e(40) is a tree of 2^40 nodes but a DAG of about
 * 120. Evaluation keeps each shared node's result once the plain walk's
 * budget runs out: the value is the recurrence's, and a failure in the
 * shared part (x = 0 in a divisor) is reported as the walk would. */
static void eval_shared(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *e = x, *d = x;
    for (int i = 0; i < 40; i++) {
        e = raw2(SYM_MAX, raw2(SYM_ADD, e, x), raw2(SYM_MUL, e, K(2)));
        d = raw2(SYM_ADD, raw2(SYM_FLOORDIV, d, x), raw2(SYM_FLOORDIV, d, x));
    }
    sym_env env = {0};
    int64_t v, want = 1;
    sym_env_set(&env, x, 1);
    for (int i = 0; i < 40; i++)
        want = want + 1 > want * 2 ? want + 1 : want * 2;
    assert_int_equal(sym_eval(e, &env, &v), SYM_OK);
    assert_int_equal(v, want);
    assert_int_equal(v, (int64_t)1 << 40);
    assert_int_equal(sym_eval(d, &env, &v), SYM_OK);
    assert_int_equal(v, (int64_t)1 << 40);
    sym_env_set(&env, x, 0);
    assert_int_equal(sym_eval(d, &env, &v), SYM_DIV_ZERO);
    sym_env_free(&env);
}

static void overflow_detection(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y");
    sym_env env = {0};
    int64_t v;
    sym_env_set(&env, x, (int64_t)1 << 32);
    sym_env_set(&env, y, (int64_t)1 << 31);
    assert_int_equal(sym_eval(mul(x, y), &env, &v), SYM_OVERFLOW);
    sym_env_set(&env, y, ((int64_t)1 << 31) - 1);
    assert_int_equal(sym_eval(mul(x, y), &env, &v), SYM_OK);
    assert_int_equal(v, INT64_MAX - ((int64_t)1 << 32) + 1); /* 2^63 - 2^32 */
    sym_env_set(&env, x, INT64_MAX);
    assert_int_equal(sym_eval(add(x, K(1)), &env, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(sub(K(-2), x), &env, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(sub(K(-1), x), &env, &v), SYM_OK);
    assert_int_equal(v, INT64_MIN);

    /* constant folding that would overflow is left for evaluation to report */
    const sym_expr *big = add(K(INT64_MAX), K(1));
    assert_int_equal(big->kind, SYM_ADD);
    assert_int_equal(sym_eval(big, NULL, &v), SYM_OVERFLOW);
    assert_string_equal(S(big), "9223372036854775807 + 1");
    assert_int_equal(sym_eval(sym_neg(C, K(INT64_MIN)), NULL, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(mul(K(INT64_MIN), K(-1)), NULL, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(sym_floordiv(C, K(INT64_MIN), K(-1)), NULL, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(sym_cdiv(C, K(INT64_MIN), K(-1)), NULL, &v), SYM_OVERFLOW);
    assert_ptr_equal(sym_mod(C, K(INT64_MIN), K(-1)), K(0));
    assert_int_equal(sym_eval(raw2(SYM_MOD, K(INT64_MIN), K(-1)), NULL, &v), SYM_OK);
    assert_int_equal(v, 0);
    /* like terms whose coefficients overflow stay apart */
    const sym_expr *t = mul(K(INT64_MAX), x);
    const sym_expr *tt = add(t, t);
    sym_env_set(&env, x, 0);
    assert_int_equal(eval1(tt, &env), 0);
    sym_env_set(&env, x, 1);
    assert_int_equal(sym_eval(tt, &env, &v), SYM_OVERFLOW);
    assert_int_equal(sym_eval(mul(K(2), t), &env, &v), SYM_OVERFLOW);

    /* bounds */
    int64_t lo, hi;
    sym_env_set_range(&env, x, 0, INT64_MAX);
    assert_int_equal(sym_bounds(add(x, K(1)), &env, &lo, &hi), SYM_OVERFLOW);
    assert_int_equal(sym_bounds(x, &env, &lo, &hi), SYM_OK);
    sym_env_set_range(&env, x, -((int64_t)1 << 32), (int64_t)1 << 32);
    assert_int_equal(sym_bounds(mul(x, x), &env, &lo, &hi), SYM_OVERFLOW);
    sym_env_set_range(&env, x, INT64_MIN, 0);
    assert_int_equal(sym_bounds(raw2(SYM_FLOORDIV, x, K(-1)), &env, &lo, &hi), SYM_OVERFLOW);
    sym_env_free(&env);
}

/* ---- interval bounds ---------------------------------------------------------- */

static void bounds_cases(void **state)
{
    (void)state;
    const sym_expr *a = V("a"), *b = V("b");
    sym_env env = {0};
    int64_t lo, hi;
    sym_env_set_range(&env, a, 3, 10);
    sym_env_set_range(&env, b, -2, 4);
    assert_int_equal(sym_bounds(raw2(SYM_FLOORDIV, a, b), &env, &lo, &hi), SYM_DIV_ZERO);
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, b), &env, &lo, &hi), SYM_DIV_ZERO);
    assert_int_equal(sym_bounds(add(a, V("u")), &env, &lo, &hi), SYM_UNBOUND);
    assert_int_equal(sym_bounds(a, NULL, &lo, &hi), SYM_UNBOUND);
    /* mod with positive divisor: [0, hi-1], tightened by a non-negative dividend */
    sym_env_set_range(&env, b, 4, 20);
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, b), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 10);
    sym_env_set_range(&env, b, 11, 20); /* a < b always: mod is a itself */
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, b), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, 3);
    assert_int_equal(hi, 10);
    sym_env_set_range(&env, a, -30, 10);
    sym_env_set_range(&env, b, 2, 8);
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, b), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 7);
    /* mod by one constant within one period is exact */
    sym_env_set_range(&env, a, 9, 11);
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, K(8)), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 3);
    /* negative divisors */
    sym_env_set_range(&env, a, 3, 10);
    sym_env_set_range(&env, b, -4, -2);
    assert_int_equal(sym_bounds(raw2(SYM_FLOORDIV, a, b), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, -5);
    assert_int_equal(hi, -1);
    assert_int_equal(sym_bounds(raw2(SYM_MOD, a, b), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, -3);
    assert_int_equal(hi, 0);
    /* cdiv of the typical launch grid: cdiv(M, BLOCK_M) over M in [100, 1000], BLOCK_M in [32, 128] */
    const sym_expr *M = V("M"), *BM = V("BLOCK_M");
    sym_env_set_range(&env, M, 100, 1000);
    sym_env_set_range(&env, BM, 32, 128);
    assert_int_equal(sym_bounds(sym_cdiv(C, M, BM), &env, &lo, &hi), SYM_OK);
    assert_int_equal(lo, 1);   /* ceil(100/128) */
    assert_int_equal(hi, 32);  /* ceil(1000/32) */
    sym_env_free(&env);
}

typedef struct bnd_state {
    const sym_expr *e;
    int64_t lo, hi;      /* from sym_bounds */
    int64_t min, max;    /* brute force */
    long n;
} bnd_state;

static void check_in_bounds(const sym_env *env, void *ud)
{
    bnd_state *s = ud;
    int64_t v = 0;
    sym_status st = sym_eval(s->e, env, &v);
    /* sym_bounds succeeding means no divisor range contained 0 */
    if (st != SYM_OK)
        fail_msg("%s: bounds OK but evaluation failed with %d", S(s->e), (int)st);
    if (v < s->lo || v > s->hi)
        fail_msg("%s = %lld outside bounds [%lld, %lld]", S(s->e), (long long)v, (long long)s->lo,
                 (long long)s->hi);
    if (s->n++ == 0 || v < s->min)
        s->min = v;
    if (s->n == 1 || v > s->max)
        s->max = v;
}

/* Brute force over the ranges of env (each var in vars has one). */
static void brute(const sym_expr *e, const sym_expr *const *vars, int nv, const int64_t *lo, const int64_t *hi,
                  bnd_state *s)
{
    s->e = e;
    s->n = 0;
    int64_t val[8];
    sym_env env = {0};
    for (int i = 0; i < nv; i++)
        val[i] = lo[i];
    for (;;) {
        for (int i = 0; i < nv; i++)
            sym_env_set(&env, vars[i], val[i]);
        check_in_bounds(&env, s);
        int i = 0;
        while (i < nv && val[i] == hi[i]) {
            val[i] = lo[i];
            i++;
        }
        if (i == nv)
            break;
        val[i]++;
    }
    sym_env_free(&env);
}

static void random_bounds_sound(void **state)
{
    (void)state;
    const sym_expr *vars[3] = {V("a"), V("b"), V("c")};
    long ok = 0, exact = 0, divzero = 0;
    for (int seed = 1; seed <= 3000; seed++) {
        rng r = {(uint64_t)seed * 104729u};
        pair p = gen(C, &r, vars, 3, 1 + seed % 4, false);
        int64_t lo[3], hi[3];
        sym_env env = {0};
        for (int i = 0; i < 3; i++) {
            lo[i] = rrange(&r, -5, 4);
            hi[i] = lo[i] + rrange(&r, 0, 4);
            sym_env_set_range(&env, vars[i], lo[i], hi[i]);
        }
        for (int which = 0; which < 2; which++) {
            const sym_expr *e = which ? p.simp : p.raw;
            bnd_state s = {0};
            sym_status st = sym_bounds(e, &env, &s.lo, &s.hi);
            if (st == SYM_DIV_ZERO) {
                divzero++;
                continue;
            }
            assert_int_equal(st, SYM_OK);
            assert_true(s.lo <= s.hi);
            brute(e, vars, 3, lo, hi, &s);
            ok++;
            if (s.lo == s.min && s.hi == s.max)
                exact++;
        }
        sym_env_free(&env);
    }
    print_message("# bounds: %ld random expressions checked against brute force, exact in %ld; "
                  "%ld refused (divisor range contains 0)\n",
                  ok, exact, divzero);
    assert_true(ok > 3000);
}

/* Monotone cases must be exact, not only sound. */
static void bounds_exact_monotone(void **state)
{
    (void)state;
    const sym_expr *a = V("a"), *b = V("b");
    const sym_expr *vars[2] = {a, b};
    const sym_expr *cases[] = {
        add(a, b), mul(a, b), sub(a, b), add(mul(K(3), a), K(-7)), sym_min(C, a, b), sym_max(C, a, b),
        sym_floordiv(C, a, b), sym_cdiv(C, a, b), sym_floordiv(C, a, K(4)), sym_cdiv(C, a, K(4)),
    };
    rng r = {7};
    int nexact = 0;
    for (int iter = 0; iter < 200; iter++) {
        int64_t lo[2], hi[2];
        sym_env env = {0};
        for (int i = 0; i < 2; i++) {
            lo[i] = rrange(&r, 1, 30);
            hi[i] = lo[i] + rrange(&r, 0, 20);
            sym_env_set_range(&env, vars[i], lo[i], hi[i]);
        }
        for (size_t k = 0; k < LM_COUNT(cases); k++) {
            bnd_state s = {0};
            assert_int_equal(sym_bounds(cases[k], &env, &s.lo, &s.hi), SYM_OK);
            brute(cases[k], vars, 2, lo, hi, &s);
            if (s.lo != s.min || s.hi != s.max)
                fail_msg("%s over a in [%lld, %lld], b in [%lld, %lld]: bounds [%lld, %lld], actual [%lld, %lld]",
                         S(cases[k]), (long long)lo[0], (long long)hi[0], (long long)lo[1], (long long)hi[1],
                         (long long)s.lo, (long long)s.hi, (long long)s.min, (long long)s.max);
            nexact++;
        }
        sym_env_free(&env);
    }
    print_message("# bounds: exact in all %d monotone cases (a+b, a*b, a-b, 3a-7, min, max, a//b, cdiv(a,b), "
                  "a//4, cdiv(a,4) over positive ranges)\n",
                  nexact);
}

/* Near the ends of int64, simplification may move where an overflow happens
 * (2*(x - y) becomes 2*x - 2*y), but a value both forms compute must be the
 * same, and sym_bounds must stay sound or report the overflow. */
typedef struct big_state {
    const sym_expr *raw, *simp;
    long both, simp_overflow, raw_overflow;
} big_state;

static void compare_big(const sym_env *env, void *ud)
{
    big_state *s = ud;
    int64_t rv = 0, sv = 0;
    sym_status rs = sym_eval(s->raw, env, &rv), ss = sym_eval(s->simp, env, &sv);
    if (rs == SYM_OK && ss == SYM_OK) {
        if (rv != sv)
            fail_msg("raw %s = %lld but simplified %s = %lld", S(s->raw), (long long)rv, S(s->simp),
                     (long long)sv);
        s->both++;
    } else if (rs == SYM_OK) {
        assert_int_equal(ss, SYM_OVERFLOW);
        s->simp_overflow++;
    } else if (rs == SYM_OVERFLOW) {
        s->raw_overflow++;
    }
}

static void random_big_constants_never_wrong(void **state)
{
    (void)state;
    const sym_expr *vars[2] = {V("a"), V("b")};
    big_constants = true;
    long both = 0, simp_overflow = 0, raw_overflow = 0, bounds_ok = 0;
    for (int seed = 1; seed <= 3000; seed++) {
        rng r = {(uint64_t)seed * 1000003u};
        pair p = gen(C, &r, vars, 2, 1 + seed % 4, false);
        big_state s = {p.raw, p.simp, 0, 0, 0};
        sym_env env = {0};
        for (size_t i = 0; i < LM_COUNT(big_values); i++) {
            for (size_t j = 0; j < LM_COUNT(big_values); j += 3) {
                sym_env_set(&env, vars[0], big_values[i]);
                sym_env_set(&env, vars[1], big_values[j]);
                compare_big(&env, &s);
            }
        }
        /* bounds over small ranges near the extremes */
        int64_t lo[2], hi[2];
        for (int i = 0; i < 2; i++) {
            int64_t v = big_values[rint_(&r, (int)LM_COUNT(big_values))];
            lo[i] = v > INT64_MAX - 3 ? v - 3 : v;
            hi[i] = lo[i] + 3;
            sym_env_set_range(&env, vars[i], lo[i], hi[i]);
        }
        for (int which = 0; which < 2; which++) {
            bnd_state b = {0};
            const sym_expr *e = which ? p.simp : p.raw;
            if (sym_bounds(e, &env, &b.lo, &b.hi) != SYM_OK)
                continue;
            brute(e, vars, 2, lo, hi, &b); /* every value evaluates and lies within */
            bounds_ok++;
        }
        sym_env_free(&env);
        both += s.both;
        simp_overflow += s.simp_overflow;
        raw_overflow += s.raw_overflow;
    }
    big_constants = false;
    print_message("# big constants: %ld values agree, %ld overflow only after simplification, %ld only "
                  "before or in both; %ld bounds checked by brute force\n",
                  both, simp_overflow, raw_overflow, bounds_ok);
    assert_true(both > 10000);
    assert_true(bounds_ok > 1000);
}

/* ---- printing and parsing ------------------------------------------------------ */

static void parse_cases(void **state)
{
    (void)state;
    const sym_expr *M = V("M"), *N = V("N"), *BM = V("BLOCK_M"), *BK = V("BLOCK_K"), *x = V("x"), *y = V("y");
    assert_ptr_equal(P("cdiv(M, BLOCK_M)"), sym_cdiv(C, M, BM));
    assert_ptr_equal(P("2*BLOCK_K + 1"), add(mul(K(2), BK), K(1)));
    assert_ptr_equal(P("  M-3 *N "), sub(M, mul(K(3), N)));
    assert_ptr_equal(P("depth.a*grid.x"), mul(V("depth.a"), V("grid.x")));
    assert_ptr_equal(P("-x"), sym_neg(C, x));
    assert_ptr_equal(P("--x"), x);
    assert_ptr_equal(P("x - -3"), add(x, K(3)));
    assert_ptr_equal(P("-y*(x + 1)"), sym_neg(C, mul(add(x, K(1)), y)));
    assert_ptr_equal(P("2*(x + 1)"), add(mul(K(2), x), K(2)));
    assert_ptr_equal(P("min(x, y, 3)"), sym_min(C, x, sym_min(C, y, K(3))));
    assert_ptr_equal(P("max(7)"), K(7));
    assert_ptr_equal(P("mod(floordiv(x, 2), max(y, 1))"),
                     sym_mod(C, sym_floordiv(C, x, K(2)), sym_max(C, y, K(1))));
    assert_ptr_equal(P("-9223372036854775808"), K(INT64_MIN));
    assert_ptr_equal(P("9223372036854775807"), K(INT64_MAX));
    assert_ptr_equal(P("x + -9223372036854775808"), add(x, K(INT64_MIN)));
    assert_ptr_equal(P("min"), V("min")); /* a name, unless called */

    static const struct {
        const char *text;
        int err; /* offset of the reported character */
    } bad[] = {
        {"", 0},
        {"x +", 3},
        {"x + ", 4},
        {"floordiv(x)", 10},
        {"mod(x, y, z)", 8},
        {"3 $", 2},
        {"foo(x)", 0},
        {"(x + 1", 6},
        {"x y", 2},
        {"1x", 1},
        {".a", 0},
        {"cdiv(M, BLOCK_M", 15},
        {"9223372036854775808", 0},
        {"x - 9223372036854775808", 4},
        {"-99999999999999999999", 1},
        {"min()", 4},
        {"x * * y", 4},
        {"(x))", 3},
    };
    for (size_t i = 0; i < LM_COUNT(bad); i++) {
        const char *err = NULL;
        const sym_expr *e = sym_parse(C, bad[i].text, &err);
        if (e)
            fail_msg("'%s' parsed as %s", bad[i].text, S(e));
        assert_non_null(err);
        if (err - bad[i].text != bad[i].err)
            fail_msg("'%s': error at offset %d, expected %d", bad[i].text, (int)(err - bad[i].text), bad[i].err);
    }
    assert_null(sym_parse(C, "x +", NULL));
    /* deep nesting is an error, not a crash */
    char deep[4000];
    memset(deep, '(', 2000);
    memset(deep + 2000, 0, 2000);
    const char *err = NULL;
    assert_null(sym_parse(C, deep, &err));
    memset(deep, '-', 2000);
    deep[2000] = 'x';
    assert_null(sym_parse(C, deep, &err));
}

static void random_print_parse_roundtrip(void **state)
{
    (void)state;
    const sym_expr *vars[4] = {V("a"), V("b.x"), V("grid.y"), V("BLOCK_K")};
    lm_buf b = {0};
    for (int seed = 1; seed <= 3000; seed++) {
        rng r = {(uint64_t)seed * 31337u};
        pair p = gen(C, &r, vars, 4, 1 + seed % 6, false);
        for (int which = 0; which < 2; which++) {
            const sym_expr *e = which ? p.raw : p.simp;
            b.len = 0;
            sym_print(&b, e);
            const char *err = NULL;
            const sym_expr *back = sym_parse(C, lm_buf_str(&b), &err);
            if (!back)
                fail_msg("cannot parse '%s' (at offset %d)", lm_buf_str(&b), (int)(err - lm_buf_str(&b)));
            /* canonical forms come back as the same node; a raw tree comes back
             * as its simplification */
            const sym_expr *want = which ? sym_simplify(C, e) : e;
            if (back != want)
                fail_msg("'%s' parsed back as '%s', expected '%s'", lm_buf_str(&b), S(back), S(want));
        }
    }
    lm_buf_free(&b);
}

/* ---- inspection ------------------------------------------------------------------ */

static void affine_coeff_cases(void **state)
{
    (void)state;
    const sym_expr *pid = V("pid"), *BM = V("BLOCK_M"), *M = V("M"), *K_ = V("K");
    const sym_expr *co, *re;
    const sym_expr *e = add(mul(pid, BM), K(3));
    assert_true(sym_affine_coeff(C, e, pid, &co, &re));
    assert_ptr_equal(co, BM);
    assert_ptr_equal(re, K(3));
    assert_true(sym_affine_coeff(C, e, BM, &co, &re));
    assert_ptr_equal(co, pid);
    assert_true(sym_affine_coeff(C, mul(add(pid, K(1)), BM), pid, &co, &re));
    assert_ptr_equal(co, BM);
    assert_ptr_equal(re, BM);
    e = add(add(mul(K(2), pid), mul(K(3), mul(pid, K_))), M);
    assert_true(sym_affine_coeff(C, e, pid, &co, &re));
    assert_string_equal(S(co), "3*K + 2");
    assert_ptr_equal(re, M);
    assert_true(sym_affine_coeff(C, add(sym_floordiv(C, M, K(2)), pid), pid, &co, &re));
    assert_ptr_equal(co, K(1));
    assert_ptr_equal(re, sym_floordiv(C, M, K(2)));
    assert_true(sym_affine_coeff(C, M, pid, &co, &re));
    assert_ptr_equal(co, K(0));
    assert_ptr_equal(re, M);
    assert_true(sym_affine_coeff(C, pid, pid, &co, NULL));
    assert_ptr_equal(co, K(1));
    /* not affine */
    assert_false(sym_affine_coeff(C, mul(pid, pid), pid, &co, &re));
    assert_false(sym_affine_coeff(C, add(mul(pid, pid), pid), pid, &co, &re));
    assert_false(sym_affine_coeff(C, sym_floordiv(C, pid, K(2)), pid, &co, &re));
    assert_false(sym_affine_coeff(C, add(sym_min(C, pid, K(3)), M), pid, &co, &re));
    assert_false(sym_affine_coeff(C, sym_mod(C, M, pid), pid, &co, &re));
    assert_false(sym_affine_coeff(C, mul(add(pid, K(1)), sub(pid, K(1))), pid, &co, &re));
    assert_false(sym_affine_coeff(C, raw2(SYM_MUL, pid, pid), pid, &co, &re));

    /* randomized: whenever affine, coeff*var + rest has the same values and
     * neither part mentions var */
    const sym_expr *vars[3] = {V("a"), V("b"), V("c")};
    int affine = 0;
    for (int seed = 1; seed <= 1000; seed++) {
        rng r = {(uint64_t)seed * 65537u};
        pair p = gen(C, &r, vars, 3, 1 + seed % 4, false);
        if (!sym_affine_coeff(C, p.simp, vars[0], &co, &re))
            continue;
        affine++;
        assert_false(sym_depends_on(co, vars[0]));
        assert_false(sym_depends_on(re, vars[0]));
        cmp_state s = {p.simp, add(mul(co, vars[0]), re), 0, 0, 0};
        for_all(vars, 3, -3, 3, compare_at, &s);
    }
    assert_true(affine > 100);
}

static void subst_vars_depends(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y"), *z = V("z");
    const sym_expr *e = add(sym_cdiv(C, x, y), mul(z, x));
    assert_true(sym_depends_on(e, x));
    assert_false(sym_depends_on(e, V("w")));
    sym_env env = {0};
    sym_env_set(&env, y, 4);
    sym_env_set_range(&env, z, 0, 9); /* a range is not substituted */
    const sym_expr *s = sym_subst(C, e, &env);
    assert_ptr_equal(s, add(sym_cdiv(C, x, K(4)), mul(z, x)));
    sym_env_set(&env, x, 10);
    sym_env_set(&env, z, 2);
    assert_ptr_equal(sym_subst(C, e, &env), K(23));
    sym_env_free(&env);

    /* a variable replaced by an expression, re-simplified: cdiv(x, y) + z*x at
       x = y - 1 no longer mentions x and is cdiv(3, 4) + 3*3 = 10 at y = 4,
       z = 3; at x = 2*y it is 2 + 2*y*z */
    const sym_expr *r1 = sym_replace(C, e, x, sym_sub(C, y, K(1)));
    assert_false(sym_depends_on(r1, x));
    sym_env at = {0};
    sym_env_set(&at, y, 4);
    sym_env_set(&at, z, 3);
    int64_t v1;
    assert_int_equal(sym_eval(r1, &at, &v1), SYM_OK);
    assert_int_equal(v1, 10);
    sym_env_free(&at);
    assert_ptr_equal(sym_replace(C, e, x, mul(K(2), y)), add(K(2), mul(K(2), mul(y, z))));
    assert_ptr_equal(sym_replace(C, e, V("w"), K(5)), e);

    const sym_expr *r = sym_raw(C, SYM_ADD, (const sym_expr *[]){y, raw2(SYM_MUL, x, y), z}, 3);
    const sym_expr *out[3] = {0};
    assert_int_equal(sym_vars(r, out, 3), 3);
    assert_ptr_equal(out[0], y);
    assert_ptr_equal(out[1], x);
    assert_ptr_equal(out[2], z);
    out[1] = NULL;
    assert_int_equal(sym_vars(r, out, 1), 3); /* total count, only one stored */
    assert_null(out[1]);
    assert_int_equal(sym_vars(K(3), out, 3), 0);
}

static void env_bindings(void **state)
{
    (void)state;
    const sym_expr *x = V("x"), *y = V("y");
    sym_env env = {0};
    int64_t lo, hi;
    assert_false(sym_env_get(&env, x, &lo, &hi));
    for (int i = 0; i < 40; i++) /* rebinding updates, it does not append */
        sym_env_set(&env, x, i);
    assert_int_equal(env.n, 1);
    assert_true(sym_env_get(&env, x, &lo, &hi));
    assert_int_equal(lo, 39);
    assert_int_equal(hi, 39);
    sym_env_set_range(&env, y, -3, 5);
    assert_true(sym_env_get(&env, y, &lo, &hi));
    assert_int_equal(lo, -3);
    assert_int_equal(hi, 5);
    for (int i = 0; i < 40; i++) {
        char n[16];
        snprintf(n, sizeof n, "v%d", i);
        sym_env_set(&env, V(n), i);
    }
    assert_int_equal(env.n, 42);
    assert_true(sym_env_get(&env, V("v17"), &lo, &hi));
    assert_int_equal(lo, 17);
    sym_env_free(&env);
    assert_int_equal(env.n, 0);
}

/* sym_compare is a total order consistent with structural equality. */
static void compare_is_total_order(void **state)
{
    (void)state;
    assert_true(sym_compare(K(1), K(2)) < 0);
    assert_true(sym_compare(K(2), K(1)) > 0);
    assert_true(sym_compare(V("a"), V("b")) < 0);
    assert_true(sym_compare(K(100), V("a")) < 0);
    const sym_expr *vars[3] = {V("a"), V("b"), V("c")};
    enum { N = 120 };
    const sym_expr *e[N];
    rng r = {99};
    for (int i = 0; i < N; i++)
        e[i] = gen(C, &r, vars, 3, 3, false).simp;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            int ij = sym_compare(e[i], e[j]), ji = sym_compare(e[j], e[i]);
            assert_int_equal(ij > 0, ji < 0);
            assert_int_equal(ij == 0, e[i] == e[j]);
            for (int k = 0; k < N; k += 7)
                if (ij <= 0 && sym_compare(e[j], e[k]) <= 0)
                    assert_true(sym_compare(e[i], e[k]) <= 0);
        }
    }
    /* across contexts the order is the same */
    sym_ctx *c2 = sym_ctx_new();
    for (int i = 0; i + 1 < N; i++) {
        lm_buf b1 = {0}, b2 = {0};
        sym_print(&b1, e[i]);
        sym_print(&b2, e[i + 1]);
        const sym_expr *f1 = sym_parse(c2, lm_buf_str(&b1), NULL), *f2 = sym_parse(c2, lm_buf_str(&b2), NULL);
        assert_non_null(f1);
        assert_non_null(f2);
        int s1 = sym_compare(e[i], e[i + 1]), s2 = sym_compare(f1, f2);
        assert_int_equal((s1 > 0) - (s1 < 0), (s2 > 0) - (s2 < 0));
        lm_buf_free(&b1);
        lm_buf_free(&b2);
    }
    sym_ctx_free(c2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(constants_and_identities, setup, teardown),
        cmocka_unit_test_setup_teardown(printed_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(constants_distribute, setup, teardown),
        cmocka_unit_test_setup_teardown(division_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(eval_shared, setup, teardown),
        cmocka_unit_test_setup_teardown(minmax_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(minmax_remembered, setup, teardown),
        cmocka_unit_test_setup_teardown(raw_is_unsimplified, setup, teardown),
        cmocka_unit_test_setup_teardown(hash_consing_identity, setup, teardown),
        cmocka_unit_test_setup_teardown(canonical_order_independent_of_creation, setup, teardown),
        cmocka_unit_test_setup_teardown(random_hash_consing_orders, setup, teardown),
        cmocka_unit_test_setup_teardown(random_simplification_preserves_value, setup, teardown),
        cmocka_unit_test_setup_teardown(eval_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(overflow_detection, setup, teardown),
        cmocka_unit_test_setup_teardown(bounds_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(random_bounds_sound, setup, teardown),
        cmocka_unit_test_setup_teardown(bounds_exact_monotone, setup, teardown),
        cmocka_unit_test_setup_teardown(random_big_constants_never_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(parse_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(random_print_parse_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(affine_coeff_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(subst_vars_depends, setup, teardown),
        cmocka_unit_test_setup_teardown(env_bindings, setup, teardown),
        cmocka_unit_test_setup_teardown(compare_is_total_order, setup, teardown),
        cmocka_unit_test_setup_teardown(short_prints, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
