/* test_mzn.c - open models: the MiniZinc translation evaluates every
 * operator exactly as loomc does (checked by running minizinc on batches of
 * random expressions), the model's names, layout and data file, the 32-bit
 * bounds and their proofs, the error messages, and randomized cross-checks
 * that MiniZinc with Gecode finds the same optimum and the same assignment
 * as loomc's own solver. These tests need the `minizinc` executable (Debian's
 * minizinc package, which `make test` installs): without it they fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "solve/mzn.h"

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

/* The tests cannot say anything without minizinc: fail loudly, never skip. */
static void need_minizinc(void)
{
    lm_buf out = {0}, why = {0};
    bool ok = mzn_run("solve satisfy;\n", NULL, NULL, NULL, &out, &why);
    if (!ok)
        fail_msg("these tests need the minizinc executable with Gecode (Debian's minizinc package; "
                 "`make test` installs it): %s", lm_buf_str(&why));
    lm_buf_free(&out);
    lm_buf_free(&why);
}

/* How cross_check runs mzn_solve: by default (the optimum, then every
 * assignment reaching it, ranked) with tabulated subexpressions; `staged`
 * reaches loomc's order in stages of weighted keys (the fallback for
 * problems with too many tied assignments); `no_tables` leaves every
 * operator to the solver's propagation. */
static bool g_staged, g_no_tables;

/* Compare mzn_solve with solve_run on one problem: same status, and the same
 * solutions (values, objective, tie-breaks) in the same order. */
static void cross_check(const solve_problem *p, int top_k, const char *what, mzn_report *rep_out)
{
    solve_options so = {.top_k = top_k};
    solve_solution a[8], b[8];
    int na = 0, nb = 0;
    lm_buf why = {0};
    solve_status sa = solve_run(p, &so, a, &na, NULL, &why);
    assert_true(sa == SOLVE_OPTIMAL || sa == SOLVE_INFEASIBLE);
    mzn_solve_options mo = {.top_k = top_k, .staged = g_staged, .no_tables = g_no_tables};
    mzn_report rep;
    solve_status sb = mzn_solve(p, &mo, b, &nb, &rep, &why);
    if (sa != sb || na != nb)
        fail_msg("%s: loomc status %d (%d solutions), minizinc status %d (%d): %s", what, (int)sa, na, (int)sb, nb,
                 lm_buf_str(&why));
    for (int i = 0; i < na; i++) {
        if (a[i].objective != b[i].objective)
            fail_msg("%s: solution %d objective loomc %lld, minizinc %lld", what, i, (long long)a[i].objective,
                     (long long)b[i].objective);
        for (int t = 0; t < p->ntiebreak; t++)
            assert_int_equal(a[i].tiebreak[t], b[i].tiebreak[t]);
        for (int j = 0; j < p->nvars; j++)
            if (a[i].values[j] != b[i].values[j])
                fail_msg("%s: solution %d variable %s: loomc %lld, minizinc %lld", what, i, p->vars[j].var->name,
                         (long long)a[i].values[j], (long long)b[i].values[j]);
    }
    if (rep_out)
        *rep_out = rep;
    solve_free_solutions(a, na);
    solve_free_solutions(b, nb);
    lm_buf_free(&why);
}

/* ---- names, layout, data file ---------------------------------------------------- */

static void names_layout_and_data_file(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t dd[] = {3, 1, 2}, dm[] = {64, 32, 128}, dk[] = {1, 2};
    /* `depth.a` and `depth_a` both sanitise to depth_a; `var` is a keyword */
    const sym_expr *da = V("depth.a"), *du = V("depth_a"), *bm = V("BLOCK_M"), *kw = V("var");
    solve_var vars[] = {{da, dd, 3}, {du, dd, 3}, {bm, dm, 3}, {kw, dk, 2}};
    sym_env fixed = {0};
    sym_env_set(&fixed, V("M"), 1000);
    sym_env_set(&fixed, V("CAP"), 700);
    solve_constraint cons[] = {{sub(add(mul(bm, da), mul(bm, du)), V("CAP")), "L1 capacity"}};
    solve_problem p = {.vars = vars, .nvars = 4, .cons = cons, .ncons = 1, .fixed = &fixed,
                       .objective = add(mul(sym_cdiv(C, V("M"), bm), add(da, du)), kw),
                       .tiebreak = {sub(K(0), da)}, .ntiebreak = 1};
    lm_arena ar;
    lm_arena_init(&ar);
    assert_string_equal(mzn_name(&p, da, &ar), "depth_a");
    assert_string_equal(mzn_name(&p, du, &ar), "depth_a_2");
    assert_string_equal(mzn_name(&p, kw, &ar), "var_2");
    assert_string_equal(mzn_name(&p, bm, &ar), "BLOCK_M");
    assert_string_equal(mzn_name(&p, V("M"), &ar), "M");
    assert_null(mzn_name(&p, V("unused"), &ar));

    lm_buf m = {0}, m2 = {0}, why = {0};
    mzn_options plain = {.no_tables = true};
    assert_true(mzn_write_model(&m, &p, "candidate 3: test\nrun: minizinc model.mzn", &plain, &why));
    const char *s = lm_buf_str(&m);
    assert_non_null(strstr(s, "% candidate 3: test\n% run: minizinc model.mzn\n"));
    assert_non_null(strstr(s, "var {1, 2, 3}: depth_a = loomc_dom_depth_a[loomc_pos_depth_a];"));
    assert_non_null(strstr(s, "array[1..3] of int: loomc_dom_depth_a = [3, 1, 2];"));
    assert_non_null(strstr(s, "var {32, 64, 128}: BLOCK_M"));
    assert_non_null(strstr(s, "depth.a -> depth_a\n"));
    assert_non_null(strstr(s, "depth_a -> depth_a_2\n"));
    assert_non_null(strstr(s, "var -> var_2\n"));
    assert_non_null(strstr(s, "int: M = 1000;"));
    assert_non_null(strstr(s, "% L1 capacity: "));
    assert_non_null(strstr(s, "loomc_cdiv(M, BLOCK_M)"));
    assert_non_null(strstr(s, "solve :: int_search([loomc_pos_depth_a, loomc_pos_depth_a_2, loomc_pos_BLOCK_M, "
                              "loomc_pos_var_2], input_order, indomain_min, complete)\n    minimize loomc_objective;"));
    assert_non_null(strstr(s, "the model is exact for a solver with 32-bit integers"));
    assert_non_null(strstr(s, "1. -depth.a"));
    /* deterministic */
    assert_true(mzn_write_model(&m2, &p, "candidate 3: test\nrun: minizinc model.mzn", &plain, &why));
    assert_string_equal(lm_buf_str(&m), lm_buf_str(&m2));
    /* by default, non-linear subexpressions of few variables are tables that
     * MiniZinc computes from the expression itself: cdiv(M, BLOCK_M) over
     * BLOCK_M's positions; the objective (4 variables, 3*3*3*2 assignments)
     * over all positions, its entries reading the smaller tables at the same
     * positions (row-major: the last variable varies fastest) */
    lm_buf mt = {0};
    assert_true(mzn_write_model(&mt, &p, NULL, NULL, &why));
    const char *t = lm_buf_str(&mt);
    assert_non_null(strstr(t, "array[1..3] of int: loomc_v3 = [loomc_cdiv(M, loomc_dom_BLOCK_M[loomc_i2]) | "
                              "loomc_i2 in 1..3];"));
    assert_non_null(strstr(t, "array[1..54] of int: loomc_v5 = [(loomc_dom_var_2[loomc_i3] + loomc_v4[(loomc_i2 - 1) * 1 "
                              "+ (loomc_i1 - 1) * 3 + (loomc_i0 - 1) * 9 + 1]) | loomc_i0 in 1..3, loomc_i1 in 1..3, "
                              "loomc_i2 in 1..3, loomc_i3 in 1..2];"));
    assert_non_null(strstr(t, "constraint table_int([loomc_pos_depth_a, loomc_pos_depth_a_2, loomc_pos_BLOCK_M, "
                              "loomc_pos_var_2, loomc_t5], loomc_tab5);"));
    assert_non_null(strstr(t, "var 17..194: loomc_objective = loomc_t5;"));
    lm_buf_free(&mt);

    /* the exported model's optimum is loomc's */
    solve_solution a[1];
    int na = 0;
    assert_int_equal(solve_run(&p, NULL, a, &na, NULL, NULL), SOLVE_OPTIMAL);
    lm_buf out = {0};
    assert_true(mzn_run(s, "gecode", NULL, NULL, &out, &why));
    char want[64];
    snprintf(want, sizeof want, "loomc_objective = %lld\n", (long long)a[0].objective);
    assert_non_null(strstr(lm_buf_str(&out), want));
    assert_int_equal(mzn_objective(&p, NULL, a[0].objective), a[0].objective);

    /* with a data file, the model declares and the data defines */
    lm_buf dzn = {0}, m3 = {0};
    mzn_options o = {.dzn = &dzn, .known = a[0].values, .known_objective = a[0].objective};
    assert_true(mzn_write_model(&m3, &p, NULL, &o, &why));
    assert_non_null(strstr(lm_buf_str(&m3), "int: M;\n"));
    assert_non_null(strstr(lm_buf_str(&dzn), "M = 1000;\n"));
    assert_non_null(strstr(lm_buf_str(&dzn), "CAP = 700;\n"));
    snprintf(want, sizeof want, "(mzn_objective): %lld\n", (long long)a[0].objective);
    assert_non_null(strstr(lm_buf_str(&m3), want));

    /* the full lexicographic answer */
    cross_check(&p, 3, "names problem", NULL);

    solve_free_solutions(a, na);
    lm_buf_free(&m);
    lm_buf_free(&m2);
    lm_buf_free(&m3);
    lm_buf_free(&dzn);
    lm_buf_free(&out);
    lm_buf_free(&why);
    lm_arena_free(&ar);
    sym_env_free(&fixed);
}

/* ---- exact translation of every operator ----------------------------------------- */

static const sym_expr *gen_expr(rng *r, const sym_expr **vars, int nv, int depth)
{
    if (depth <= 0 || rint_(r, 5) == 0) {
        if (rint_(r, 3))
            return vars[rint_(r, nv)];
        return K(rint_(r, 41) - 20);
    }
    const sym_expr *a = gen_expr(r, vars, nv, depth - 1), *b = gen_expr(r, vars, nv, depth - 1);
    switch (rint_(r, 9)) {
    case 0:
        return add(a, b);
    case 1:
        return sub(a, b);
    case 2:
        return mul(a, b);
    case 3:
        return sym_floordiv(C, a, b);
    case 4:
        return sym_cdiv(C, a, b);
    case 5:
        return sym_mod(C, a, b);
    case 6:
        return sym_min(C, a, b);
    case 7:
        return sym_max(C, sym_max(C, a, b), gen_expr(r, vars, nv, depth - 1));
    default:
        return sym_neg(C, a);
    }
}

/* Random expressions with mixed signs, evaluated at random points by loomc
 * and by MiniZinc, both with the symbols as solver variables and as fixed
 * parameters (MiniZinc evaluates those at compile time, through the par
 * versions of the functions). Division by zero is left out: loomc reports
 * it as an error. */
static void translation_matches_sym_eval(void **state)
{
    (void)state;
    need_minizinc();
    static const char *names[] = {"a", "b.c", "d", "e"};
    enum { NEXPR = 150, ROUNDS = 2 };
    rng r = {0x6d7a6e01};
    const sym_expr *vars[4];
    for (int i = 0; i < 4; i++)
        vars[i] = V(names[i]);
    int checked = 0, neg_div = 0;
    for (int round = 0; round < ROUNDS; round++) {
        sym_env env = {0};
        for (int i = 0; i < 4; i++)
            sym_env_set(&env, vars[i], rint_(&r, 31) - 15);
        const sym_expr *ex[NEXPR];
        int64_t want[NEXPR];
        int n = 0;
        while (n < NEXPR) {
            const sym_expr *e = gen_expr(&r, vars, 4, 4);
            int64_t v;
            if (sym_eval(e, &env, &v) != SYM_OK || v > 1000000000 || v < -1000000000)
                continue;
            if (e->kind == SYM_FLOORDIV || e->kind == SYM_CDIV || e->kind == SYM_MOD) {
                int64_t a, d;
                if (sym_eval(e->args[0], &env, &a) == SYM_OK && sym_eval(e->args[1], &env, &d) == SYM_OK &&
                    (a < 0) != (d < 0) && a % d)
                    neg_div++;
            }
            ex[n] = e;
            want[n++] = v;
        }
        for (int as_vars = 0; as_vars < 2; as_vars++) {
            lm_buf m = {0}, out = {0}, why = {0};
            if (!mzn_write_eval(&m, ex, n, &env, as_vars, &why))
                fail_msg("cannot write the evaluation model: %s", lm_buf_str(&why));
            if (!mzn_run(lm_buf_str(&m), "gecode", NULL, NULL, &out, &why))
                fail_msg("minizinc failed on the evaluation model: %s", lm_buf_str(&why));
            const char *s = strstr(lm_buf_str(&out), "loomc-eval");
            assert_non_null(s);
            s += strlen("loomc-eval");
            for (int i = 0; i < n; i++) {
                char *end;
                long long v = strtoll(s, &end, 10);
                assert_true(end != s);
                s = end;
                if (v != want[i]) {
                    lm_buf t = {0};
                    sym_print(&t, ex[i]);
                    fail_msg("%s at round %d (%s): loomc %lld, minizinc %lld", lm_buf_str(&t), round,
                             as_vars ? "variables" : "parameters", (long long)want[i], v);
                }
                checked++;
            }
            lm_buf_free(&m);
            lm_buf_free(&out);
            lm_buf_free(&why);
        }
        sym_env_free(&env);
    }
    assert_int_equal(checked, 2 * NEXPR * ROUNDS);
    assert_true(neg_div > 5); /* the rounding direction was really exercised */
}

/* Each division operator over whole domains of mixed signs, where the solver
 * (not the compiler) does the work: the least and the greatest value, and the
 * assignment loomc's tie-breaks pick among the pairs that reach it. */
static void operators_over_domains(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t dx[] = {-7, -6, -1, 0, 1, 5, 7}, dy[] = {-3, -2, -1, 1, 2, 3};
    const sym_expr *x = V("x"), *y = V("y");
    sym_kind kinds[] = {SYM_FLOORDIV, SYM_CDIV, SYM_MOD};
    for (size_t k = 0; k < LM_COUNT(kinds); k++) {
        const sym_expr *ops[2] = {x, y};
        const sym_expr *e = sym_raw(C, kinds[k], ops, 2);
        /* the least and the greatest value, with ties broken through the operator again */
        solve_var vars[] = {{x, dx, 7}, {y, dy, 6}};
        solve_problem p = {.vars = vars, .nvars = 2, .objective = e, .tiebreak = {mul(e, y)}, .ntiebreak = 1};
        /* the solver propagates the operator itself; then as a table */
        for (int tables = 0; tables < 2; tables++) {
            g_no_tables = !tables;
            cross_check(&p, 2, "operator over domains", NULL);
            p.objective = sub(K(0), e);
            cross_check(&p, 1, "operator over domains, maximised", NULL);
            p.objective = e;
        }
        g_no_tables = false;
    }
}

/* ---- randomized cross-check with loomc's solver --------------------------------------- */

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
        return V("F.x");
    return g->wild ? K(rint_(g->r, 11) - 4) : K(1 + rint_(g->r, 6));
}

static const sym_expr *gen_divisor(rgen *g, int depth)
{
    if (g->wild && rint_(g->r, 2))
        return gen(g, depth);
    int t = rint_(g->r, 3);
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
        return sym_cdiv(C, a, gen_divisor(g, depth - 1));
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
    int compared, optimal, infeasible, skipped, multi_stage;
} rcounts;

/* One random instance like test_solve's (tame: positive values, divisors >= 1;
 * wild: subtraction, mod, negative values, divisors that can be 0). Instances
 * where enumeration meets an evaluation error are skipped: there loomc reports
 * an error and the model counts the assignment infeasible. */
static void random_instance(uint64_t seed, bool wild, rcounts *n)
{
    static const char *names[] = {"v0", "depth.v1", "v2", "v3"};
    rng r = {seed};
    int nv = 2 + rint_(&r, 3);
    const sym_expr *vars[4];
    int64_t doms[4][6];
    solve_var sv[4];
    for (int j = 0; j < nv; j++) {
        vars[j] = V(names[j]);
        int nd = 1 + rint_(&r, 6);
        for (int i = 0; i < nd; i++) /* any order, repeats allowed */
            doms[j][i] = wild ? rint_(&r, 19) - 6 : 1 + rint_(&r, 12);
        sv[j] = (solve_var){vars[j], doms[j], nd};
    }
    rgen g = {&r, vars, nv, wild};
    sym_env fixed = {0};
    sym_env_set(&fixed, V("F.x"), 1 + rint_(&r, 9));
    sym_env at = {0};
    for (int j = 0; j < nv; j++)
        sym_env_set(&at, vars[j], doms[j][rint_(&r, sv[j].ndomain)]);
    sym_env_set(&at, V("F.x"), fixed.b[0].lo);
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
    const sym_expr *sub_vars[4];
    memcpy(sub_vars, vars, sizeof sub_vars);
    for (int j = nv - 1; j > 0; j--) {
        int k = rint_(&r, j + 1);
        const sym_expr *t = sub_vars[j];
        sub_vars[j] = sub_vars[k], sub_vars[k] = t;
    }
    rgen gs = {&r, sub_vars, 1 + rint_(&r, nv), wild};
    switch (rint_(&r, 6)) {
    case 0:
        p.objective = K(rint_(&r, 5));
        break;
    case 1:
        p.objective = sym_floordiv(C, gen(&gs, 4), K(2 + rint_(&r, 20)));
        break;
    case 2:
    case 3:
        p.objective = gen(&gs, 3);
        break;
    default:
        p.objective = gen(&g, 4);
    }
    p.ntiebreak = rint_(&r, 3);
    for (int i = 0; i < p.ntiebreak; i++)
        p.tiebreak[i] = rint_(&r, 2) ? gen(&gs, 2) : sym_floordiv(C, gen(&gs, 2), K(3));
    int top_k = rint_(&r, 6) == 0 ? 2 : 1;

    solve_options o = {.top_k = top_k};
    solve_solution b[2];
    int nb = 0;
    if (solve_exhaustive(&p, &o, b, &nb, NULL) == SOLVE_ERROR) {
        n->skipped++;
    } else {
        char what[64];
        snprintf(what, sizeof what, "seed %llx (%s)", (unsigned long long)seed, wild ? "wild" : "tame");
        mzn_report rep;
        memset(&rep, 0, sizeof rep);
        /* every way of solving gets its share */
        g_staged = seed % 4 == 3;
        g_no_tables = seed % 3 == 2;
        cross_check(&p, top_k, what, &rep);
        g_staged = g_no_tables = false;
        n->compared++;
        n->optimal += nb > 0;
        n->infeasible += nb == 0;
        n->multi_stage += rep.stages > 1;
    }
    solve_free_solutions(b, nb);
    sym_env_free(&fixed);
    sym_env_free(&at);
}

static void random_problems_match_builtin(void **state)
{
    (void)state;
    need_minizinc();
    enum { TAME = 16, WILD = 16 };
    rcounts n = {0};
    for (int i = 0; i < TAME; i++)
        random_instance(0x4d5a0000u + (uint64_t)i, false, &n);
    for (int i = 0; i < WILD; i++)
        random_instance(0x4d5b0000u + (uint64_t)i, true, &n);
    assert_true(n.compared >= (TAME + WILD) * 2 / 3);
    assert_true(n.optimal > 10);
    assert_true(n.infeasible >= 1);
}

/* ---- the GEMM tile problem ------------------------------------------------------------- */

static void gemm_problem(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t tiles[] = {32, 64, 96, 128, 160, 192, 224, 256}, depth[] = {1, 2, 3};
    const sym_expr *BM = V("BLOCK_M"), *BN = V("BLOCK_N"), *BK = V("BLOCK_K"), *D = V("depth.a");
    solve_var vars[] = {{BM, tiles, 8}, {BN, tiles, 8}, {BK, tiles, 8}, {D, depth, 3}};
    sym_env fixed = {0};
    sym_env_set(&fixed, V("M"), 1000);
    sym_env_set(&fixed, V("N"), 700);
    sym_env_set(&fixed, V("K"), 4096);
    sym_env_set(&fixed, V("CAP"), 120000);
    const sym_expr *read = add(mul(BM, BK), mul(BN, BK)), *compute = sym_floordiv(C, mul(mul(BM, BN), BK), K(256));
    const sym_expr *steps = sym_cdiv(C, V("K"), BK);
    const sym_expr *lat = mul(mul(sym_cdiv(C, V("M"), BM), sym_cdiv(C, V("N"), BN)),
                              add(mul(steps, add(sym_max(C, read, compute), sym_floordiv(C, sym_min(C, read, compute), D))),
                                  mul(BM, BN)));
    solve_constraint cons[] = {{sub(add(mul(D, read), mul(BM, BN)), V("CAP")), "L1 capacity"}};
    solve_problem p = {.vars = vars, .nvars = 4, .cons = cons, .ncons = 1, .fixed = &fixed, .objective = lat,
                       .tiebreak = {mul(mul(sym_cdiv(C, V("M"), BM), sym_cdiv(C, V("N"), BN)), read),
                                    sub(K(0), D)},
                       .ntiebreak = 2};
    cross_check(&p, 2, "gemm", NULL);
    g_staged = true;
    cross_check(&p, 2, "gemm, staged", NULL);
    g_staged = false;
    sym_env_free(&fixed);
}

/* ---- 32-bit ranges ---------------------------------------------------------------------- */

static void ranges_beyond_32_bits(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t dx[] = {1, 10, 100, 1000, 10000}, dy[] = {1, 7, 50, 300, 9000};
    const sym_expr *x = V("x"), *y = V("y");
    solve_var vars[] = {{x, dx, 5}, {y, dy, 5}};
    sym_env fixed = {0};
    sym_env_set(&fixed, V("BIG"), 40000);
    sym_env_set(&fixed, V("CAP"), 2000000000);
    mzn_report rep;

    /* the objective can reach 3.6e12 over the domains; its optimum is small */
    solve_constraint c1[] = {{sub(K(1500), add(x, y)), "x + y >= 1500"}};
    solve_problem p = {.vars = vars, .nvars = 2, .cons = c1, .ncons = 1, .fixed = &fixed,
                       .objective = mul(mul(x, y), V("BIG"))};
    cross_check(&p, 1, "big objective", &rep);
    assert_true(rep.clipped >= 1);
    lm_buf m = {0}, why = {0};
    assert_true(mzn_write_model(&m, &p, NULL, NULL, &why));
    assert_non_null(strstr(lm_buf_str(&m), "explicit bounds"));
    assert_non_null(strstr(lm_buf_str(&m), "bounded above by"));
    lm_buf_free(&m);

    /* the same objective under a bound from better candidates (objective - B
     * <= 0, as the selection adds): the objective's own bound is then proven
     * harmless by that constraint, so infeasibility is certain, and a
     * feasible bound gives the same optimum */
    solve_constraint cb[] = {c1[0], {sub(p.objective, K(1000)), "(bound from better candidates)"}};
    p.cons = cb;
    p.ncons = 2;
    cross_check(&p, 1, "big objective, infeasible bound", NULL);
    cb[1].expr = sub(p.objective, K(2000000000));
    cross_check(&p, 1, "big objective, feasible bound", NULL);

    /* a constraint whose left side overflows: clipped, with a constraint proof */
    solve_constraint c2[] = {{sub(mul(mul(x, y), K(1000)), V("CAP")), "x*y*1000 <= CAP"},
                             {sub(K(20), add(x, y)), "x + y >= 20"}};
    p.cons = c2;
    p.ncons = 2;
    p.objective = sub(K(100000), add(x, y));
    cross_check(&p, 1, "big constraint", &rep);
    assert_true(rep.clipped >= 1);
    assert_true(mzn_write_model(&m, &p, NULL, NULL, &why));
    assert_non_null(strstr(lm_buf_str(&m), "a constraint is violated"));
    lm_buf_free(&m);

    /* bytes over bandwidth: a huge product divided down, inside the objective,
     * with a huge tie-break (DRAM bytes) */
    p.cons = c1;
    p.ncons = 1;
    p.objective = add(sym_floordiv(C, mul(mul(x, y), V("BIG")), K(1000)), y);
    p.tiebreak[0] = mul(mul(x, K(1000000)), y);
    p.ntiebreak = 1;
    cross_check(&p, 2, "bytes over bandwidth", &rep);
    assert_true(rep.clipped >= 1);
    assert_true(rep.ranked >= 1); /* the tie-break is ranked by loomc */
    /* the third best has x*y*BIG beyond the bound and an objective above its
     * threshold: not certifiable, and said so */
    solve_solution o3[3];
    int n3 = 0;
    mzn_solve_options mo3 = {.top_k = 3};
    assert_int_equal(mzn_solve(&p, &mo3, o3, &n3, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "no further solution within the solver's integers"));
    lm_buf_free(&why);

    /* an optimum beyond 32 bits cannot be certified: a clear error */
    static int64_t dz[] = {60000, 70000};
    solve_var v3[] = {{x, dz, 2}, {y, dz, 2}};
    solve_problem q = {.vars = v3, .nvars = 2, .objective = mul(x, y)};
    solve_solution out[1];
    int nout = 0;
    mzn_solve_options mo = {.top_k = 1};
    assert_int_equal(mzn_solve(&q, &mo, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "64-bit"));
    lm_buf_free(&why);

    /* unbounded below: no exact export at all */
    q.objective = sub(K(0), mul(mul(x, y), K(5)));
    assert_false(mzn_write_model(&m, &q, NULL, NULL, &why));
    assert_non_null(strstr(lm_buf_str(&why), "below the solver's integers"));
    lm_buf_free(&why);
    lm_buf_free(&m);
    sym_env_free(&fixed);
}

/* A subexpression whose interval leaves the solver's integers only because
 * interval arithmetic forgets that its factors share a variable, with too
 * many assignments of its variables to evaluate them all:
 * N = 2^21 * cdiv(n, 4) * cdiv(min(n*g, 100), n) over n, g in 1..100. The
 * factors' intervals are [1, 25] and [1, 100], so N <= 2^21 * 2500 = 5.2e9
 * by intervals; but cdiv(min(n*g, 100), n) <= cdiv(100, n), and cdiv(n, 4) *
 * cdiv(100, n) <= (n + 3)/4 * (n + 99)/n = n/4 + 25.5 + 74.25/n, at most 100
 * on 1..100 (convex, 100 at n = 1), so N <= 2^21 * 100 = 2.1e8, well within.
 * The objective is cdiv(N, g) + 1000*h with h >= 50000 by a constraint: its
 * optimum is 5e7 plus at most 2^21, but "N beyond 32 bits" proves only
 * objective >= 2^31/100 + 1000 (h's least value), about 2.1e7. With the
 * bound from better candidates at 3e7 (between the two) the problem is
 * infeasible, and only N's exact range proves it certainly so. */
static void correlated_subexpression(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t d100[100], dh[] = {1, 50000, 60000};
    for (int i = 0; i < 100; i++)
        d100[i] = i + 1;
    const sym_expr *n = V("n"), *g = V("g"), *h = V("h");
    solve_var vars[] = {{n, d100, 100}, {g, d100, 100}, {h, dh, 3}};
    const sym_expr *N = mul(mul(K((int64_t)1 << 21), sym_cdiv(C, n, K(4))),
                            sym_cdiv(C, sym_min(C, mul(n, g), K(100)), n));
    solve_constraint cons[] = {{sub(K(50000), h), "h >= 50000"}, {NULL, "(bound from better candidates)"}};
    solve_problem p = {.vars = vars, .nvars = 3, .cons = cons, .ncons = 1,
                       .objective = add(sym_cdiv(C, N, g), mul(K(1000), h))};
    cons[1].expr = sub(p.objective, K(30000000));
    p.ncons = 2;
    mzn_report rep;
    cross_check(&p, 1, "correlated subexpression, infeasible bound", &rep);
    assert_int_equal(rep.clipped, 0); /* N's exact range fits: nothing is bounded */
    cons[1].expr = sub(p.objective, K(60000000));
    cross_check(&p, 1, "correlated subexpression, feasible bound", NULL);
    p.ncons = 1;
    cross_check(&p, 2, "correlated subexpression", NULL);
    lm_buf m = {0}, why = {0};
    assert_true(mzn_write_model(&m, &p, NULL, NULL, &why));
    assert_null(strstr(lm_buf_str(&m), "explicit bounds"));
    lm_buf_free(&m);
    lm_buf_free(&why);
    /* N's exact range is reached, not cut: maximising N gives 2^21 * 100 at
     * n = 1, g = 100 (n = 1 gives N = 2^21 * g; for n >= 2 the bound above,
     * n/4 + 25.5 + 74.25/n, is at most 63) */
    p.objective = sub(K(300000000), N);
    cross_check(&p, 2, "correlated subexpression, maximised", NULL);
    solve_solution o[1];
    int no = 0;
    mzn_solve_options mo = {.top_k = 1};
    assert_int_equal(mzn_solve(&p, &mo, o, &no, &rep, NULL), SOLVE_OPTIMAL);
    assert_int_equal(no, 1);
    assert_int_equal(o[0].objective, 300000000 - ((int64_t)1 << 21) * 100);
    assert_int_equal(o[0].values[0], 1);
    assert_int_equal(o[0].values[1], 100);
    assert_int_equal(rep.clipped, 0);
    solve_free_solutions(o, no);
}

/* ---- errors ------------------------------------------------------------------------------ */

static void error_messages(void **state)
{
    (void)state;
    need_minizinc();
    static int64_t d[] = {1, 2};
    const sym_expr *x = V("x");
    solve_var vars[] = {{x, d, 2}};
    solve_problem p = {.vars = vars, .nvars = 1, .objective = x};
    solve_solution out[1];
    int nout = 5;
    lm_buf why = {0};
    mzn_solve_options o = {.solver = "no-such-solver"};
    assert_int_equal(mzn_solve(&p, &o, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_int_equal(nout, 0);
    assert_non_null(strstr(lm_buf_str(&why), "MiniZinc has no solver 'no-such-solver'"));
    assert_non_null(strstr(lm_buf_str(&why), "org.gecode.gecode")); /* the installed ones are listed */
    lm_buf_free(&why);

    o = (mzn_solve_options){.minizinc = "/nonexistent/minizinc"};
    assert_int_equal(mzn_solve(&p, &o, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "minizinc not found"));
    assert_non_null(strstr(lm_buf_str(&why), "install Debian's minizinc package or use --solver builtin"));
    lm_buf_free(&why);
    o.minizinc = "no-such-minizinc-program";
    assert_int_equal(mzn_solve(&p, &o, out, &nout, NULL, &why), SOLVE_ERROR);
    assert_non_null(strstr(lm_buf_str(&why), "minizinc not found"));
    lm_buf_free(&why);

    /* a symbol nobody binds */
    p.objective = add(x, V("Q"));
    lm_buf m = {0};
    assert_false(mzn_write_model(&m, &p, NULL, NULL, &why));
    assert_non_null(strstr(lm_buf_str(&why), "symbol Q has no value"));
    lm_buf_free(&why);
    lm_buf_free(&m);

    /* infeasible and empty problems */
    p.objective = x;
    solve_constraint cons[] = {{sub(K(5), x), "x >= 5"}};
    p.cons = cons;
    p.ncons = 1;
    cross_check(&p, 1, "infeasible", NULL);
    solve_problem q = {.objective = K(7)};
    cross_check(&q, 1, "no variables", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(names_layout_and_data_file, setup, teardown),
        cmocka_unit_test_setup_teardown(translation_matches_sym_eval, setup, teardown),
        cmocka_unit_test_setup_teardown(operators_over_domains, setup, teardown),
        cmocka_unit_test_setup_teardown(random_problems_match_builtin, setup, teardown),
        cmocka_unit_test_setup_teardown(gemm_problem, setup, teardown),
        cmocka_unit_test_setup_teardown(ranges_beyond_32_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(correlated_subexpression, setup, teardown),
        cmocka_unit_test_setup_teardown(error_messages, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
