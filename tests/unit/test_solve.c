/* test_solve.c - the exact solver: hand-made problems whose optima are
 * computed here by plain loops, infeasibility and per-constraint rejection
 * counts, the tie-breaking order, top-k order, evaluation errors, the effort
 * limit, and randomized proofs that branch and bound returns exactly what
 * exhaustive enumeration returns (fixed seeds, so every run checks the same
 * instances). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "solve/solve.h"

static sym_ctx *C;

static int setup(void **state)
{
    (void)state;
    C = sym_ctx_new();
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
static const sym_expr *cdiv(const sym_expr *a, const sym_expr *b) { return sym_cdiv(C, a, b); }

static int64_t ref_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; } /* a >= 0, b > 0 */

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

/* ---- the GEMM tile problem ------------------------------------------------ */

/* minimise cdiv(M, BM) * cdiv(N, BN) * (BM + BN)  (blocks times the bytes each
 * block reads per K step) subject to BM*BN + 2*BM*BK <= CAP, tile multiples. */
enum { GM = 1000, GN = 700, CAP = 40000 };
static int64_t tiles[] = {32, 64, 96, 128, 160, 192, 224, 256};

typedef struct gemm {
    solve_var vars[3];
    solve_constraint cons[1];
    solve_problem p;
    sym_env fixed;
} gemm;

static void gemm_build(gemm *g)
{
    memset(g, 0, sizeof *g);
    const sym_expr *BM = V("BM"), *BN = V("BN"), *BK = V("BK");
    for (int i = 0; i < 3; i++)
        g->vars[i] = (solve_var){i == 0 ? BM : i == 1 ? BN : BK, tiles, (int)LM_COUNT(tiles)};
    sym_env_set(&g->fixed, V("M"), GM);
    sym_env_set(&g->fixed, V("N"), GN);
    g->cons[0] = (solve_constraint){sub(add(mul(BM, BN), mul(K(2), mul(BM, BK))), V("CAP")), "L1 capacity"};
    sym_env_set(&g->fixed, V("CAP"), CAP);
    g->p = (solve_problem){.vars = g->vars,
                           .nvars = 3,
                           .cons = g->cons,
                           .ncons = 1,
                           .objective = mul(mul(cdiv(V("M"), BM), cdiv(V("N"), BN)), add(BM, BN)),
                           .fixed = &g->fixed};
}

typedef struct ref_sol {
    int64_t obj, tb;
    int pos[3];
} ref_sol;

static int ref_cmp(const void *x, const void *y)
{
    const ref_sol *a = x, *b = y;
    if (a->obj != b->obj)
        return a->obj < b->obj ? -1 : 1;
    if (a->tb != b->tb)
        return a->tb < b->tb ? -1 : 1;
    for (int i = 0; i < 3; i++)
        if (a->pos[i] != b->pos[i])
            return a->pos[i] < b->pos[i] ? -1 : 1;
    return 0;
}

static void gemm_known_optimum(void **state)
{
    (void)state;
    gemm g;
    gemm_build(&g);
    /* reference: every feasible assignment by loops, sorted by the solver's order */
    enum { NT = LM_COUNT(tiles) };
    ref_sol all[NT * NT * NT];
    int n = 0;
    for (int a = 0; a < NT; a++)
        for (int b = 0; b < NT; b++)
            for (int k = 0; k < NT; k++) {
                int64_t bm = tiles[a], bn = tiles[b], bk = tiles[k];
                if (bm * bn + 2 * bm * bk > CAP)
                    continue;
                all[n++] = (ref_sol){ref_cdiv(GM, bm) * ref_cdiv(GN, bn) * (bm + bn), 0, {a, b, k}};
            }
    qsort(all, (size_t)n, sizeof *all, ref_cmp);

    solve_solution out[6];
    int nout = 0;
    solve_stats st;
    solve_options o = {.top_k = 6};
    assert_int_equal(solve_run(&g.p, &o, out, &nout, &st, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 6);
    for (int i = 0; i < nout; i++) {
        assert_int_equal(out[i].objective, all[i].obj);
        for (int j = 0; j < 3; j++)
            assert_int_equal(out[i].values[j], tiles[all[i].pos[j]]);
    }
    /* BK only appears in the constraint, so ties on (BM, BN) are broken by
     * the smallest BK: 32 */
    assert_int_equal(out[0].values[2], 32);
    assert_true(st.nodes < NT * NT * NT); /* bounds pruned something */
    assert_true(st.rejected_by[0] > 0);
    solve_free_solutions(out, nout);
    solve_free_stats(&st);
    sym_env_free(&g.fixed);
}

/* ---- infeasibility and rejection counts ---------------------------------- */

static void infeasible_at_root(void **state)
{
    (void)state;
    gemm g;
    gemm_build(&g);
    sym_env_set(&g.fixed, V("CAP"), 100); /* smaller than any 32x32 block */
    solve_solution out[1];
    int nout = 7;
    solve_stats st;
    solve_options o = {.top_k = 1};
    assert_int_equal(solve_run(&g.p, &o, out, &nout, &st, NULL), SOLVE_INFEASIBLE);
    assert_int_equal(nout, 0);
    /* the bounds over the whole domains already prove it: one rejection */
    assert_int_equal(st.rejected_by[0], 1);
    assert_int_equal(st.nodes, 1);
    solve_free_stats(&st);
    assert_int_equal(solve_exhaustive(&g.p, &o, out, &nout, NULL), SOLVE_INFEASIBLE);
    assert_int_equal(nout, 0);
    sym_env_free(&g.fixed);
}

static void infeasible_combinations(void **state)
{
    (void)state;
    /* x + y >= 7 and x + y <= 3 can each be met, never both */
    static int64_t d[] = {1, 2, 3, 4, 5};
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, d, 5}, {y, d, 5}};
    solve_constraint cons[] = {{sub(K(7), add(x, y)), "big"}, {sub(add(x, y), K(3)), "small"}};
    solve_problem p = {.vars = vars, .nvars = 2, .cons = cons, .ncons = 2, .objective = x};
    solve_solution out[1];
    int nout = 0;
    solve_stats st;
    assert_int_equal(solve_run(&p, NULL, out, &nout, &st, NULL), SOLVE_INFEASIBLE);
    assert_int_equal(nout, 0);
    assert_int_equal(st.rejected_by[0] + st.rejected_by[1], st.pruned_infeasible);
    assert_true(st.rejected_by[0] > 0 && st.rejected_by[1] > 0);
    solve_free_stats(&st);
    assert_int_equal(solve_exhaustive(&p, NULL, out, &nout, NULL), SOLVE_INFEASIBLE);
}

static void rejected_by_counts(void **state)
{
    (void)state;
    /* one variable, so every rejection happens at a leaf: x = 9, 10 break
     * "a" (checked first), x = 6, 7, 8 break only "b" */
    static int64_t d[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const sym_expr *x = V("x");
    solve_var vars[] = {{x, d, 10}};
    solve_constraint cons[] = {{sub(x, K(8)), "a"}, {sub(x, K(5)), "b"}, {sub(x, K(100)), "never"}};
    solve_problem p = {.vars = vars, .nvars = 1, .cons = cons, .ncons = 3, .objective = sub(K(0), x)};
    solve_solution out[1];
    int nout = 0;
    solve_stats st;
    assert_int_equal(solve_run(&p, NULL, out, &nout, &st, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 1);
    assert_int_equal(out[0].values[0], 5);
    assert_int_equal(out[0].objective, -5);
    assert_int_equal(st.rejected_by[0], 2);
    assert_int_equal(st.rejected_by[1], 3);
    assert_int_equal(st.rejected_by[2], 0);
    assert_int_equal(st.nodes, 11); /* the root and ten leaves */
    solve_free_solutions(out, nout);
    solve_free_stats(&st);
}

/* Values pruned a range at a time: x in 1..16 with x <= 2, y in {1, 2},
 * minimise x + y. x goes first (14 of its 16 values are ruled out at the
 * root: score 15/16 against y's 1/2). Its values are halved: [1, 8] (x - 2
 * >= -1: kept), [1, 4] (kept), then 1, 2, 3, 4 one by one (a range of two
 * is not checked as a whole), 3 and 4 rejected; [5, 8] and [9, 16] rejected
 * whole (x - 2 >= 3 and >= 7). Below x = 1 the two leaves of y give x + y =
 * 2; x = 2's bound 3 is beaten. Nodes: the root, 4 ranges, 4 children, 2
 * leaves = 11, where one value at a time takes 1 + 16 + 2 = 19. Each
 * rejected value is charged once, those of a range with it: 14. */
static void ranges_pruned_whole(void **state)
{
    (void)state;
    static int64_t dx[16], dy[] = {1, 2};
    for (int i = 0; i < 16; i++)
        dx[i] = i + 1;
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, dx, 16}, {y, dy, 2}};
    solve_constraint cons[] = {{sub(x, K(2)), "x <= 2"}};
    solve_problem p = {.vars = vars, .nvars = 2, .cons = cons, .ncons = 1, .objective = add(x, y)};
    solve_options o = {.top_k = 1, .verify_bounds = true};
    solve_solution out[1];
    int nout = 0;
    solve_stats st;
    assert_int_equal(solve_run(&p, &o, out, &nout, &st, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 1);
    assert_int_equal(out[0].objective, 2);
    assert_int_equal(out[0].values[0], 1);
    assert_int_equal(out[0].values[1], 1);
    assert_int_equal(st.nodes, 11);
    assert_int_equal(st.rejected_by[0], 14);
    assert_int_equal(st.pruned_infeasible, 14);
    solve_free_solutions(out, nout);
    solve_free_stats(&st);
}

static void empty_domain_and_no_variables(void **state)
{
    (void)state;
    const sym_expr *x = V("x");
    solve_var vars[] = {{x, NULL, 0}};
    solve_problem p = {.vars = vars, .nvars = 1, .objective = x};
    solve_solution out[1];
    int nout = 3;
    assert_int_equal(solve_run(&p, NULL, out, &nout, NULL, NULL), SOLVE_INFEASIBLE);
    assert_int_equal(nout, 0);
    assert_int_equal(solve_exhaustive(&p, NULL, out, &nout, NULL), SOLVE_INFEASIBLE);

    /* no variables: the one empty assignment, if the constraints allow it */
    sym_env fixed = {0};
    sym_env_set(&fixed, V("F"), 6);
    solve_constraint cons[] = {{sub(V("F"), K(10)), "F <= 10"}};
    solve_problem q = {.ncons = 1, .cons = cons, .objective = mul(V("F"), K(3)), .fixed = &fixed};
    assert_int_equal(solve_run(&q, NULL, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 1);
    assert_int_equal(out[0].objective, 18);
    solve_free_solutions(out, nout);
    sym_env_set(&fixed, V("F"), 11);
    assert_int_equal(solve_run(&q, NULL, out, &nout, NULL, NULL), SOLVE_INFEASIBLE);
    assert_int_equal(solve_exhaustive(&q, NULL, out, &nout, NULL), SOLVE_INFEASIBLE);
    sym_env_free(&fixed);
}

/* ---- order of results -------------------------------------------------------- */

static void tie_break_order(void **state)
{
    (void)state;
    /* a constant objective ties everything; the result is then the first
     * assignment by domain position, not by value */
    static int64_t dx[] = {3, 1, 2}, dy[] = {20, 10};
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, dx, 3}, {y, dy, 2}};
    solve_problem p = {.vars = vars, .nvars = 2, .objective = K(5)};
    solve_options o = {.top_k = 6};
    solve_solution out[6], ex[6];
    int nout = 0, nex = 0;
    assert_int_equal(solve_run(&p, &o, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 6);
    for (int i = 0; i < 6; i++) { /* x turns slowest: it is first in the problem */
        assert_int_equal(out[i].values[0], dx[i / 2]);
        assert_int_equal(out[i].values[1], dy[i % 2]);
        assert_int_equal(out[i].objective, 5);
    }
    solve_free_solutions(out, nout);

    /* tiebreaks come before the positions, each in order: first the least
     * y, then the greatest x */
    p.tiebreak[0] = y;
    p.tiebreak[1] = sub(K(0), x);
    p.ntiebreak = 2;
    assert_int_equal(solve_run(&p, &o, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(solve_exhaustive(&p, &o, ex, &nex, NULL), SOLVE_OPTIMAL);
    static const int64_t want[6][2] = {{3, 10}, {2, 10}, {1, 10}, {3, 20}, {2, 20}, {1, 20}};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(out[i].values[0], want[i][0]);
        assert_int_equal(out[i].values[1], want[i][1]);
        assert_int_equal(out[i].tiebreak[0], want[i][1]);
        assert_int_equal(out[i].tiebreak[1], -want[i][0]);
        assert_int_equal(ex[i].values[0], want[i][0]);
        assert_int_equal(ex[i].values[1], want[i][1]);
    }
    solve_free_solutions(out, nout);
    solve_free_solutions(ex, nex);
}

static void top_k_order(void **state)
{
    (void)state;
    /* minimise (x - 4)^2 + y over x in 1..8, y in {2, 0, 1}: k = 7 must list
     * distances 0, 1, 1, ... with the smaller y first and, on equal value,
     * the earlier domain position */
    static int64_t dx[] = {1, 2, 3, 4, 5, 6, 7, 8}, dy[] = {2, 0, 1};
    const sym_expr *x = V("x"), *y = V("y");
    const sym_expr *dxm = sub(x, K(4));
    solve_var vars[] = {{x, dx, 8}, {y, dy, 3}};
    solve_problem p = {.vars = vars, .nvars = 2, .objective = add(mul(dxm, dxm), y)};
    enum { KK = 7 };
    solve_options o = {.top_k = KK};
    solve_solution out[KK];
    int nout = 0;
    assert_int_equal(solve_run(&p, &o, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, KK);
    ref_sol all[24];
    int n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 3; b++)
            all[n++] = (ref_sol){(dx[a] - 4) * (dx[a] - 4) + dy[b], 0, {a, b, 0}};
    qsort(all, (size_t)n, sizeof *all, ref_cmp);
    for (int i = 0; i < KK; i++) {
        assert_int_equal(out[i].objective, all[i].obj);
        assert_int_equal(out[i].values[0], dx[all[i].pos[0]]);
        assert_int_equal(out[i].values[1], dy[all[i].pos[1]]);
        if (i)
            assert_true(out[i - 1].objective <= out[i].objective);
    }
    assert_int_equal(out[0].values[0], 4);
    assert_int_equal(out[0].values[1], 0);
    solve_free_solutions(out, nout);

    /* more slots than assignments: all of them, in order */
    o.top_k = 30;
    solve_solution many[30];
    assert_int_equal(solve_run(&p, &o, many, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 24);
    for (int i = 0; i < 24; i++)
        assert_int_equal(many[i].objective, all[i].obj);
    solve_free_solutions(many, nout);
}

/* ---- errors ------------------------------------------------------------------ */

static void evaluation_errors(void **state)
{
    (void)state;
    static int64_t d[] = {1, 2, 3};
    const sym_expr *x = V("x");
    solve_var vars[] = {{x, d, 3}};
    solve_problem p = {.vars = vars, .nvars = 1, .objective = cdiv(K(12), sub(x, K(2)))};
    solve_solution out[1];
    int nout = 5;
    lm_buf why = {0};
    assert_int_equal(solve_run(&p, NULL, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_int_equal(nout, 0);
    assert_non_null(strstr(lm_buf_str(&why), "objective"));
    assert_non_null(strstr(lm_buf_str(&why), "x=2"));
    assert_non_null(strstr(lm_buf_str(&why), "division by zero"));
    lm_buf_free(&why);
    assert_int_equal(solve_exhaustive(&p, NULL, out, &nout, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "x=2"));
    lm_buf_free(&why);

    /* a constraint naming a symbol nobody binds */
    solve_constraint cons[] = {{sub(x, V("Q")), "uses Q"}};
    p.objective = x;
    p.cons = cons;
    p.ncons = 1;
    assert_int_equal(solve_run(&p, NULL, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "constraint 0 'uses Q'"));
    assert_non_null(strstr(lm_buf_str(&why), "no value"));
    lm_buf_free(&why);

    /* overflow in a tiebreak, at the best objective (a tiebreak is only
     * evaluated where the objective could still enter the top k) */
    p.ncons = 0;
    p.tiebreak[0] = mul(add(x, K(1)), V("HUGE"));
    p.ntiebreak = 1;
    sym_env fixed = {0};
    sym_env_set(&fixed, V("HUGE"), INT64_MAX / 2 + 1);
    p.fixed = &fixed;
    assert_int_equal(solve_run(&p, NULL, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "tiebreak 0"));
    assert_non_null(strstr(lm_buf_str(&why), "overflow"));
    lm_buf_free(&why);
    sym_env_free(&fixed);
}

/* Divisors whose range contains 0 before assignment must not stop the
 * search: interval evaluation fails, nothing is pruned on it, leaves are exact. */
static void divisor_range_spans_zero(void **state)
{
    (void)state;
    static int64_t dx[] = {-3, -1, 2, 5}, dy[] = {1, 2, 3, 4};
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, dx, 4}, {y, dy, 4}};
    solve_constraint cons[] = {{sub(sym_floordiv(C, K(20), x), y), "20 // x <= y"}};
    solve_problem p = {.vars = vars, .nvars = 2, .cons = cons, .ncons = 1,
                       .objective = add(sym_floordiv(C, K(100), x), y)};
    solve_options o = {.top_k = 3};
    solve_solution out[3], ex[3];
    int nout = 0, nex = 0;
    assert_int_equal(solve_run(&p, &o, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(solve_exhaustive(&p, &o, ex, &nex, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, nex);
    /* 100 // -1 + y is the least: -100 + 1 */
    assert_int_equal(out[0].objective, -99);
    assert_int_equal(out[0].values[0], -1);
    for (int i = 0; i < nout; i++) {
        assert_int_equal(out[i].objective, ex[i].objective);
        assert_int_equal(out[i].values[0], ex[i].values[0]);
        assert_int_equal(out[i].values[1], ex[i].values[1]);
    }
    solve_free_solutions(out, nout);
    solve_free_solutions(ex, nex);
}

/* Dividends and divisors on both sides of 2^32 (the solver divides in 32
 * bits below it): every interval against sym_bounds (verify_bounds), every
 * result against enumeration and against the quotients computed here. */
static void divisions_across_32_bits(void **state)
{
    (void)state;
    static int64_t dx[] = {4294967295LL, 4294967296LL, 4294967297LL, 8589934591LL, 7, 0};
    static int64_t dy[] = {1, 2, 3, 4294967295LL, 4294967296LL, 65536};
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, dx, 6}, {y, dy, 6}};
    /* the least of ceil(x/y) - 3 * (x // y), as a constraint and a tiebreak too */
    solve_constraint cons[] = {{sub(cdiv(x, y), K(8589934591LL)), "ceil(x/y) <= 2^33 - 1"}};
    solve_problem p = {.vars = vars, .nvars = 2, .cons = cons, .ncons = 1,
                       .objective = sub(cdiv(x, y), mul(K(3), sym_floordiv(C, x, y)))};
    p.tiebreak[0] = cdiv(add(x, K(1)), y);
    p.ntiebreak = 1;
    solve_options o = {.top_k = 36, .verify_bounds = true};
    solve_solution out[36], ex[36];
    int nout = 0, nex = 0;
    assert_int_equal(solve_run(&p, &o, out, &nout, NULL, NULL), SOLVE_OPTIMAL);
    assert_int_equal(solve_exhaustive(&p, &o, ex, &nex, NULL), SOLVE_OPTIMAL);
    assert_int_equal(nout, 36);
    assert_int_equal(nout, nex);
    for (int i = 0; i < nout; i++) {
        int64_t a = out[i].values[0], b = out[i].values[1];
        assert_int_equal(out[i].values[0], ex[i].values[0]);
        assert_int_equal(out[i].values[1], ex[i].values[1]);
        assert_int_equal(out[i].objective, ex[i].objective);
        assert_int_equal(out[i].objective, (a + b - 1) / b - 3 * (a / b));
        assert_int_equal(out[i].tiebreak[0], (a + b) / b);
    }
    solve_free_solutions(out, nout);
    solve_free_solutions(ex, nex);
}

/* ---- effort limit -------------------------------------------------------------- */

static void node_limit_is_deterministic(void **state)
{
    (void)state;
    /* mod keeps interval bounds loose until the last variable, so the
     * search has to visit most of the tree's nodes */
    static int64_t d[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const sym_expr *v[4] = {V("a"), V("b"), V("c"), V("e")};
    solve_var vars[4];
    for (int i = 0; i < 4; i++)
        vars[i] = (solve_var){v[i], d, 10};
    const sym_expr *sum = add(add(v[0], v[1]), add(v[2], v[3]));
    const sym_expr *prod = mul(mul(v[0], v[1]), mul(v[2], v[3]));
    solve_constraint cons[] = {{sym_mod(C, sum, K(11)), "sum divisible by 11"}};
    solve_problem p = {.vars = vars, .nvars = 4, .cons = cons, .ncons = 1, .objective = sym_mod(C, prod, K(13))};
    solve_options o = {.top_k = 2, .node_limit = 777};
    solve_solution out[2][2];
    int nout[2];
    solve_stats st[2];
    for (int r = 0; r < 2; r++)
        assert_int_equal(solve_run(&p, &o, out[r], &nout[r], &st[r], NULL), SOLVE_LIMIT);
    assert_int_equal(st[0].nodes, 777);
    assert_int_equal(st[1].nodes, 777);
    assert_int_equal(st[0].leaves, st[1].leaves);
    assert_int_equal(nout[0], nout[1]);
    assert_true(nout[0] >= 1); /* the best found so far is returned */
    for (int i = 0; i < nout[0]; i++) {
        assert_int_equal(out[0][i].objective, out[1][i].objective);
        for (int j = 0; j < 4; j++)
            assert_int_equal(out[0][i].values[j], out[1][i].values[j]);
    }
    for (int r = 0; r < 2; r++) {
        solve_free_solutions(out[r], nout[r]);
        solve_free_stats(&st[r]);
    }
    /* with the default limit it completes, and agrees with enumeration */
    o.node_limit = 0;
    solve_stats s;
    solve_solution ex[2];
    int nex = 0;
    assert_int_equal(solve_run(&p, &o, out[0], &nout[0], &s, NULL), SOLVE_OPTIMAL);
    assert_int_equal(solve_exhaustive(&p, &o, ex, &nex, NULL), SOLVE_OPTIMAL);
    /* at most the whole tree: 10 children and 4 ranges ([1, 5], [6, 10]
     * and the threes in them) under each of the 111 inner nodes, 10
     * leaves under each of the 1000 at the last level */
    assert_true(s.nodes > 777 && s.nodes <= 1 + 111 * (10 + 4) + 1000 * 10);
    assert_int_equal(nout[0], nex);
    for (int i = 0; i < nex; i++) {
        assert_int_equal(out[0][i].objective, ex[i].objective);
        for (int j = 0; j < 4; j++)
            assert_int_equal(out[0][i].values[j], ex[i].values[j]);
    }
    solve_free_solutions(out[0], nout[0]);
    solve_free_solutions(ex, nex);
    solve_free_stats(&s);
    /* the reference honours an explicit limit too, counting assignments */
    o.node_limit = 50;
    assert_int_equal(solve_exhaustive(&p, &o, ex, &nex, NULL), SOLVE_LIMIT);
    solve_free_solutions(ex, nex);
}

/* ---- randomized: branch and bound equals enumeration ------------------------------- */

/* Random expressions over the problem's variables and a fixed symbol F.
 * Tame instances use + * cdiv floordiv min max on positive values with
 * divisors of at least 1, so every assignment evaluates and the comparison
 * is purely about optimality. Wild instances add subtraction, mod, negative
 * values, divisors that can be 0 and constants large enough to overflow:
 * they test that interval bounds stay sound (and equal to sym_bounds) where
 * evaluation can fail. */
typedef struct rgen {
    rng *r;
    const sym_expr **vars;
    int nv;
    bool wild;
} rgen;

static const sym_expr *gen(rgen *g, int depth);

static const sym_expr *gen_leaf(rgen *g)
{
    int t = rint_(g->r, 6);
    if (t < 3)
        return g->vars[rint_(g->r, g->nv)];
    if (t == 3)
        return V("F");
    if (g->wild && rint_(g->r, 12) == 0)
        return K(rint_(g->r, 2) ? INT64_MAX / 3 : -((int64_t)1 << 40));
    return g->wild ? K(rint_(g->r, 11) - 4) : K(1 + rint_(g->r, 6));
}

static const sym_expr *gen_divisor(rgen *g, int depth)
{
    if (g->wild && rint_(g->r, 2))
        return gen(g, depth);
    int t = rint_(g->r, 4);
    if (t == 0)
        return K(1 + rint_(g->r, 5));
    if (t == 1 || depth <= 0)
        return g->vars[rint_(g->r, g->nv)];
    return add(g->vars[rint_(g->r, g->nv)], gen(g, depth - 1));
}

static const sym_expr *gen(rgen *g, int depth)
{
    if (depth <= 0 || rint_(g->r, 4) == 0)
        return gen_leaf(g);
    const sym_expr *a = gen(g, depth - 1);
    switch (rint_(g->r, g->wild ? 10 : 7)) {
    case 0:
        return add(a, gen(g, depth - 1));
    case 1:
        return mul(a, gen(g, depth - 1));
    case 2:
        return mul(K(1 + rint_(g->r, 4)), a);
    case 3:
        return cdiv(a, gen_divisor(g, depth - 1));
    case 4:
        return sym_floordiv(C, a, gen_divisor(g, depth - 1));
    case 5:
        return sym_min(C, a, gen(g, depth - 1));
    case 6:
        return sym_max(C, a, gen(g, depth - 1));
    case 7:
        return sub(a, gen(g, depth - 1));
    case 8:
        return sym_mod(C, a, gen_divisor(g, depth - 1));
    default:
        return sym_neg(C, a);
    }
}

typedef struct rcounts {
    int optimal, infeasible, ties, errors;
} rcounts;

/* One random instance, solved both ways (bounds verified against sym_bounds
 * at every node); the results must be identical unless enumeration meets an
 * evaluation error, which branch and bound may legitimately prune away. */
static void random_instance(uint64_t seed, bool wild, rcounts *n)
{
    static const char *names[] = {"v0", "v1", "v2", "v3", "v4"};
    rng r = {seed};
    int nv = 2 + rint_(&r, 4);
    const sym_expr *vars[5];
    int64_t doms[5][8];
    solve_var sv[5];
    for (int j = 0; j < nv; j++) {
        vars[j] = V(names[j]);
        int nd = 1 + rint_(&r, 8);
        for (int i = 0; i < nd; i++) /* any order, repeats allowed */
            doms[j][i] = wild ? rint_(&r, 19) - 6 : 1 + rint_(&r, 12);
        sv[j] = (solve_var){vars[j], doms[j], nd};
    }
    rgen g = {&r, vars, nv, wild};
    sym_env fixed = {0};
    sym_env_set(&fixed, V("F"), 1 + rint_(&r, 9));
    /* a random point, so that constraint thresholds are near real values */
    sym_env at = {0};
    for (int j = 0; j < nv; j++)
        sym_env_set(&at, vars[j], doms[j][rint_(&r, sv[j].ndomain)]);
    sym_env_set(&at, V("F"), fixed.b[0].lo);

    solve_constraint cons[3];
    int ncons = rint_(&r, 4);
    for (int c = 0; c < ncons; c++) {
        const sym_expr *e = gen(&g, 3);
        int64_t t = 0;
        if (sym_eval(e, &at, &t) != SYM_OK || t > 1000000 || t < -1000000)
            t = 0;
        t += rint_(&r, 5) - 2;
        cons[c] = (solve_constraint){rint_(&r, 2) ? sub(e, K(t)) : sub(K(t), e), "random"};
    }
    solve_problem p = {.vars = sv, .nvars = nv, .cons = cons, .ncons = ncons, .fixed = &fixed};
    /* Ties are where search order could leak into the result, so many
     * objectives mention only some variables (drawn from a shuffled subset,
     * so that unmentioned ones may come first in the problem while the
     * solver branches on others first), are coarse, or are constant. */
    const sym_expr *sub_vars[5];
    memcpy(sub_vars, vars, sizeof sub_vars);
    for (int j = nv - 1; j > 0; j--) {
        int k = rint_(&r, j + 1);
        const sym_expr *t = sub_vars[j];
        sub_vars[j] = sub_vars[k], sub_vars[k] = t;
    }
    rgen gs = {&r, sub_vars, 1 + rint_(&r, nv), wild};
    switch (rint_(&r, 8)) {
    case 0:
        p.objective = K(rint_(&r, 5));
        break;
    case 1:
    case 2:
        p.objective = sym_floordiv(C, gen(&gs, 4), K(2 + rint_(&r, 20)));
        break;
    case 3:
    case 4:
        p.objective = gen(&gs, 3);
        break;
    default:
        p.objective = gen(&g, 4);
        if (rint_(&r, 3) == 0)
            p.objective = sub(p.objective, gen(&g, 3));
    }
    p.ntiebreak = rint_(&r, 3);
    for (int i = 0; i < p.ntiebreak; i++)
        p.tiebreak[i] = rint_(&r, 2) ? gen(&gs, 2) : sym_floordiv(C, gen(&gs, 2), K(3));

    solve_options o = {.top_k = 1 + rint_(&r, 5), .verify_bounds = true};
    solve_solution a[5], b[5];
    int na = -1, nb = -1;
    solve_stats st;
    lm_buf why = {0};
    solve_status sa = solve_run(&p, &o, a, &na, &st, &why);
    solve_status sb = solve_exhaustive(&p, &o, b, &nb, &why);
    if (sb == SOLVE_ERROR) {
        n->errors++;
        assert_true(sa != SOLVE_LIMIT);
        goto out;
    }
    if (sa != sb || na != nb)
        fail_msg("seed %llx: status %d/%d, count %d/%d %s", (unsigned long long)seed, (int)sa, (int)sb, na, nb,
                 lm_buf_str(&why));
    assert_true(sa == SOLVE_OPTIMAL || sa == SOLVE_INFEASIBLE);
    n->optimal += sa == SOLVE_OPTIMAL;
    n->infeasible += sa == SOLVE_INFEASIBLE;
    for (int i = 0; i < na; i++) {
        if (a[i].objective != b[i].objective)
            fail_msg("seed %llx: solution %d objective %lld vs %lld", (unsigned long long)seed, i,
                     (long long)a[i].objective, (long long)b[i].objective);
        for (int t = 0; t < p.ntiebreak; t++)
            assert_int_equal(a[i].tiebreak[t], b[i].tiebreak[t]);
        for (int j = 0; j < nv; j++)
            if (a[i].values[j] != b[i].values[j])
                fail_msg("seed %llx: solution %d variable %d: %lld vs %lld", (unsigned long long)seed, i, j,
                         (long long)a[i].values[j], (long long)b[i].values[j]);
        if (i && a[i].objective == a[i - 1].objective)
            n->ties++;
    }
    int64_t total = 1;
    for (int j = 0; j < nv; j++)
        total *= sv[j].ndomain;
    assert_true(st.leaves <= total);
out:
    solve_free_solutions(a, na > 0 ? na : 0);
    solve_free_solutions(b, nb > 0 ? nb : 0);
    solve_free_stats(&st);
    lm_buf_free(&why);
    sym_env_free(&fixed);
    sym_env_free(&at);
}

static void random_matches_exhaustive(void **state)
{
    (void)state;
    enum { RUNS = 1500 };
    rcounts n = {0};
    for (int run = 0; run < RUNS; run++)
        random_instance(0x5eed0000u + (uint64_t)run, false, &n);
    /* the instances exercise both outcomes and the tie-breaking */
    assert_int_equal(n.errors, 0);
    assert_true(n.optimal > RUNS / 4);
    assert_true(n.infeasible > 10);
    assert_true(n.ties > RUNS / 2);
}

static void random_wild_matches_exhaustive(void **state)
{
    (void)state;
    enum { RUNS = 1500 };
    rcounts n = {0};
    for (int run = 0; run < RUNS; run++)
        random_instance(0x3117d000u + (uint64_t)run, true, &n);
    /* most instances are compared, and some do fail to evaluate */
    assert_true(n.optimal + n.infeasible > RUNS / 2);
    assert_true(n.errors > 20);
    assert_true(n.ties > RUNS / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(gemm_known_optimum, setup, teardown),
        cmocka_unit_test_setup_teardown(infeasible_at_root, setup, teardown),
        cmocka_unit_test_setup_teardown(infeasible_combinations, setup, teardown),
        cmocka_unit_test_setup_teardown(rejected_by_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(ranges_pruned_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_domain_and_no_variables, setup, teardown),
        cmocka_unit_test_setup_teardown(tie_break_order, setup, teardown),
        cmocka_unit_test_setup_teardown(top_k_order, setup, teardown),
        cmocka_unit_test_setup_teardown(evaluation_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(divisor_range_spans_zero, setup, teardown),
        cmocka_unit_test_setup_teardown(divisions_across_32_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(node_limit_is_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(random_matches_exhaustive, setup, teardown),
        cmocka_unit_test_setup_teardown(random_wild_matches_exhaustive, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
