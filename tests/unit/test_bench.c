/* test_bench.c - the parts of loomc bench that need no long runs: the suite
 * parser (and its file:line:col errors), the arithmetic of the tables
 * (geometric mean, regret, ranks, Spearman) on hand-made data, the legal
 * points of a hand-built space, the oracle against brute force on that
 * space, the tuner's determinism, and the reader of the published tables
 * (quoting, comments, line ends, no limit on columns or rows, its errors).
 * Points are "evaluated" by a synthetic cost function, so nothing here
 * lowers or simulates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

/* ---- the suite parser -------------------------------------------------- */

typedef struct parsed {
    bool ok;
    bench_suite s;
    char *errs;
    lm_arena ar;
} parsed;

static void parse(parsed *p, const char *file, const char *text)
{
    size_t len = 0;
    FILE *f = open_memstream(&p->errs, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    lm_arena_init(&p->ar);
    p->ok = bench_suite_parse(&p->s, file, text, strlen(text), &p->ar, &d);
    fclose(f);
}

static void parsed_free(parsed *p)
{
    free(p->errs);
    lm_arena_free(&p->ar);
}

static void suite_parses(void **state)
{
    (void)state;
    parsed p;
    parse(&p, "bench/x.suite",
          "# a comment\n"
          "suite demo\n"
          "arch wormhole_n150 blackhole_p150   # two chips\n"
          "oracle-bound 300\n"
          "tuner-trials 10,100,1000\n"
          "format BFP8_B\n"
          "\n"
          "operator gemm\n"
          "kernel ../kernels/matmul.py\n"
          "flops 2*M*N*K\n"
          "bytes 2*M*K + 2*K*N\n"
          "shape M=512 N=256 K=128\n"
          "operator attention\n"
          "  kernel /abs/fa.py\n"
          "  flops floordiv(4*B*S*S, 1 + CAUSAL)\n"
          "  shape B=1 S=64 const CAUSAL=1\n");
    assert_true(p.ok);
    assert_string_equal(p.errs, "");
    assert_string_equal(p.s.name, "demo");
    assert_int_equal(p.s.narchs, 2);
    assert_string_equal(p.s.archs[1], "blackhole_p150");
    assert_int_equal(p.s.oracle_bound, 300);
    assert_int_equal(p.s.ntrials, 3);
    assert_int_equal(p.s.trials[2], 1000);
    assert_true(p.s.have_format);
    assert_int_equal(p.s.format, ARCH_BFP8_B);
    assert_int_equal(p.s.nops, 2);
    const bench_suite_op *g = &p.s.ops[0];
    assert_string_equal(g->name, "gemm");
    assert_string_equal(g->kernel, "bench/../kernels/matmul.py"); /* relative to the suite */
    assert_string_equal(g->flops, "2*M*N*K");
    assert_string_equal(g->bytes, "2*M*K + 2*K*N");
    assert_int_equal(g->nshapes, 1);
    assert_int_equal(g->shapes[0].nsizes, 3);
    assert_string_equal(g->shapes[0].sizes[1].name, "N");
    assert_int_equal(g->shapes[0].sizes[1].value, 256);
    assert_string_equal(g->shapes[0].label, "M=512 N=256 K=128");
    assert_int_equal(g->shapes[0].loc.line, 12);
    const bench_suite_op *a = &p.s.ops[1];
    assert_string_equal(a->kernel, "/abs/fa.py");
    assert_null(a->bytes);
    assert_int_equal(a->shapes[0].nsizes, 2);
    assert_int_equal(a->shapes[0].nconsts, 1);
    assert_string_equal(a->shapes[0].consts[0].name, "CAUSAL");
    assert_string_equal(a->shapes[0].label, "B=1 S=64 CAUSAL=1");

    /* the expressions, evaluated for a shape: 2*512*256*128 and 4*1*64*64 // 2 */
    double v = 0;
    const char *why = NULL;
    assert_true(bench_suite_eval(g->flops, &g->shapes[0], &v, &why, &p.ar));
    assert_true(v == 33554432.0);
    assert_true(bench_suite_eval(a->flops, &a->shapes[0], &v, &why, &p.ar));
    assert_true(v == 8192.0);
    /* a name the shape does not give */
    assert_false(bench_suite_eval("2*M*Q", &g->shapes[0], &v, &why, &p.ar));
    assert_non_null(strstr(why, "names Q"));
    parsed_free(&p);

    /* CRLF line ends are accepted */
    parse(&p, "crlf.suite", "operator g\r\nkernel k.py\r\nflops 2*M\r\nshape M=3\r\n");
    assert_true(p.ok);
    assert_string_equal(p.s.ops[0].flops, "2*M");
    assert_string_equal(p.s.ops[0].kernel, "./k.py");
    parsed_free(&p);
    /* and old Mac ones (a lone CR), mixed with the others, after a byte order mark */
    parse(&p, "cr.suite", "\xef\xbb\xbfsuite cr\roperator g\r\nkernel k.py\rflops 2*M\nshape M=3\r");
    assert_true(p.ok);
    assert_string_equal(p.s.name, "cr");
    assert_string_equal(p.s.ops[0].flops, "2*M");
    assert_int_equal(p.s.ops[0].shapes[0].loc.line, 5);
    parsed_free(&p);

    /* no 'suite' line: named after the file */
    parse(&p, "dir/quick-one.suite", "operator g\nkernel k.py\nflops M\nshape M=1\n");
    assert_true(p.ok);
    assert_string_equal(p.s.name, "quick-one");
    assert_string_equal(p.s.ops[0].kernel, "dir/k.py");
    assert_int_equal(p.s.narchs, 0);
    assert_int_equal(p.s.ntrials, 0);
    assert_false(p.s.have_format); /* the kernels' own formats */
    parsed_free(&p);
}

/* One bad suite: the first error message, exactly. */
static void expect_error(const char *text, const char *msg)
{
    parsed p;
    parse(&p, "t.suite", text);
    assert_false(p.ok);
    char *nl = strchr(p.errs, '\n');
    if (nl)
        *nl = 0;
    assert_string_equal(p.errs, msg);
    parsed_free(&p);
}

static void suite_errors(void **state)
{
    (void)state;
    const char *op = "operator g\nkernel k.py\nflops M\n";
    expect_error("suite a\nfrobnicate 3\n",
                 "t.suite:2:1: error: unknown directive 'frobnicate' (expected suite, arch, derive, format, "
                 "oracle-bound, tuner-trials, operator, kernel, flops, bytes, shape, draw, limit or form)");
    expect_error("# x\n  shape M=1\n", "t.suite:2:3: error: 'shape' before any 'operator' line");
    char buf[256];
    snprintf(buf, sizeof buf, "%sshape M=1 N512\n", op);
    expect_error(buf, "t.suite:4:11: error: expected NAME=VALUE, got 'N512'");
    snprintf(buf, sizeof buf, "%sshape M=1 N=5x\n", op);
    expect_error(buf, "t.suite:4:13: error: the value of N must be an integer, got '5x'");
    snprintf(buf, sizeof buf, "%sshape M=0\n", op);
    expect_error(buf, "t.suite:4:7: error: size M must be at least 1, got 0");
    snprintf(buf, sizeof buf, "%sshape M=1 M=2\n", op);
    expect_error(buf, "t.suite:4:11: error: 'M' is given twice");
    snprintf(buf, sizeof buf, "%sshape const X=1\n", op);
    expect_error(buf, "t.suite:4:1: error: expected 'shape NAME=N...' with at least one size");
    /* the column of the character the expression parser stopped at */
    expect_error("operator g\nflops 2*M*\n",
                 "t.suite:2:11: error: cannot read the expression '2*M*' (integers, names, + - *, parentheses, "
                 "cdiv, floordiv, mod, min, max)");
    expect_error("operator g\nkernel k.py\nkernel j.py\n", "t.suite:3:1: error: operator 'g' already has a kernel");
    /* an operator's missing line is reported at the operator */
    expect_error("suite s\noperator g\nflops M\nshape M=1\n", "t.suite:2:10: error: operator 'g' has no 'kernel' line");
    expect_error("operator g\nkernel k.py\nflops M\noperator h\n",
                 "t.suite:1:10: error: operator 'g' has no 'shape' or 'form' line");
    expect_error("operator g\nkernel k.py\nshape M=1\n", "t.suite:1:10: error: operator 'g' has no 'flops' line");
    expect_error("tuner-trials 10,5\n", "t.suite:1:17: error: trial counts must increase (5 after 10)");
    expect_error("tuner-trials 10,x\n", "t.suite:1:17: error: trial counts are positive integers, got 'x'");
    expect_error("oracle-bound -3\n", "t.suite:1:14: error: the oracle bound is a positive integer, got '-3'");
    expect_error("suite a\nsuite b\n", "t.suite:2:1: error: the suite is already named 'a'");
    expect_error("# nothing\n", "t.suite:1:1: error: the suite has no 'operator'");
    /* a lone CR ends a line: the unknown word is on line 3 */
    expect_error("suite a\r\rbogus 1\r", "t.suite:3:1: error: unknown directive 'bogus' (expected suite, arch, "
                                          "derive, format, oracle-bound, tuner-trials, operator, kernel, flops, "
                                          "bytes, shape, draw, limit or form)");
    expect_error("format bf16\nformat bfp8_b\n", "t.suite:2:1: error: the suite's format is already set");
    expect_error("format bfp3\n", "t.suite:1:8: error: the format must be bf16, bfp8_b or bfp4_b, got 'bfp3'");
    expect_error("format\n", "t.suite:1:1: error: expected 'format NAME'");
}

/* ---- arithmetic ------------------------------------------------------- */

static void geomean_and_regret(void **state)
{
    (void)state;
    double a[] = {2, 8};           /* sqrt(16) */
    assert_true(fabs(bench_geomean(a, 2) - 4.0) < 1e-12);
    double b[] = {1, 10, 100};     /* cbrt(1000) */
    assert_true(fabs(bench_geomean(b, 3) - 10.0) < 1e-12);
    double c[] = {0.5, 2};         /* speedups that cancel */
    assert_true(fabs(bench_geomean(c, 2) - 1.0) < 1e-12);
    assert_true(bench_geomean(a, 0) == 0);
    double z[] = {1, 0};
    assert_true(bench_geomean(z, 2) == 0);
    assert_true(fabs(bench_regret(110, 100) - 0.10) < 1e-12);
    assert_true(bench_regret(100, 100) == 0);
    assert_true(fabs(bench_regret(300, 200) - 0.5) < 1e-12);
}

static void ranks_and_spearman(void **state)
{
    (void)state;
    /* ties share the mean of their ranks: 5 -> 1, 10 -> 2, the two 20s -> (3 + 4) / 2 */
    double x[] = {10, 20, 20, 5}, r[4];
    bench_ranks(x, 4, r);
    assert_true(r[0] == 2 && r[1] == 3.5 && r[2] == 3.5 && r[3] == 1);

    /* no ties: rho = 1 - 6 sum d^2 / (n (n^2 - 1)); d = (-1, 1, -1, 1, 0): 1 - 24/120 = 0.8 */
    double p[] = {1, 2, 3, 4, 5}, q[] = {2, 1, 4, 3, 5};
    assert_true(fabs(bench_spearman(p, q, 5) - 0.8) < 1e-12);
    /* same order, whatever the scale: 1; reversed: -1 */
    double s[] = {10, 200, 3000, 40000, 500000}, t[] = {9, 8, 7, 6, 5};
    assert_true(fabs(bench_spearman(p, s, 5) - 1.0) < 1e-12);
    assert_true(fabs(bench_spearman(p, t, 5) + 1.0) < 1e-12);
    /* with a tie: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): Pearson of the ranks is
       4.5 / sqrt(4.5 * 5) = 3 / sqrt(10) */
    double u[] = {1, 2, 2, 3}, v[] = {1, 2, 3, 4};
    assert_true(fabs(bench_spearman(u, v, 4) - 3.0 / sqrt(10.0)) < 1e-12);
    /* over the best 40% by the second list (at least 2): of q = (2, 1, 4, 3, 5) the two
       smallest are q = 1 (p = 2) and q = 2 (p = 1): the model orders them backwards */
    int used = 0;
    assert_true(fabs(bench_spearman_best(p, q, 5, 0.4, 2, &used) + 1.0) < 1e-12);
    assert_int_equal(used, 2);
    /* the floor wins over the fraction: the best 3 are q = 1, 2, 3 with p = 2, 1, 4:
       ranks (2, 1, 3) against (1, 2, 3), d = (1, -1, 0): 1 - 6*2/24 = 0.5 */
    assert_true(fabs(bench_spearman_best(p, q, 5, 0.1, 3, &used) - 0.5) < 1e-12);
    assert_int_equal(used, 3);
    /* degenerate: too few points, or a constant side */
    double k[] = {7, 7, 7};
    assert_true(bench_spearman(p, q, 1) == 0);
    assert_true(bench_spearman(k, p, 3) == 0);
}

static void rng_is_deterministic(void **state)
{
    (void)state;
    uint64_t a = 42, b = 42, c = 43;
    bool differs = false;
    for (int i = 0; i < 100; i++) {
        uint64_t x = bench_rng_next(&a), y = bench_rng_next(&b), z = bench_rng_next(&c);
        assert_true(x == y);
        differs |= x != z;
    }
    assert_true(differs);
    uint64_t s = 7;
    for (int i = 0; i < 1000; i++) {
        assert_true(bench_rng_below(&s, 6) < 6);
        double u = bench_rng_unit(&s);
        assert_true(u >= 0 && u < 1);
    }
    assert_true(bench_rng_below(&s, 1) == 0);
}

/* ---- a hand-built space ------------------------------------------------------
 *
 * Stratum 0: x in 1..6, y in {1, 2, 4, 8}, x*y <= 12. By hand: x = 1 allows all four
 * y, x = 2 and 3 three (y <= 4), x = 4, 5, 6 two (y <= 2): 16 points.
 * Stratum 1: x in 1..6, x >= 2: 5 points. Objective (the "model"): x + y, and x.
 * Cost (the "simulator"): stratum 0: 100 + 10 (x - 3)^2 + 7 (y - 2)^2, and x = 5 cannot
 * run; stratum 1: 104 + 10 (x - 4)^2. The best is stratum 0 at x = 3, y = 2: 100.
 */

static const int64_t dom_x[] = {1, 2, 3, 4, 5, 6};
static const int64_t dom_y[] = {1, 2, 4, 8};

typedef struct tiny {
    sym_ctx *sc;
    solve_var v0[2], v1[1];
    solve_constraint c0[1], c1[1];
    solve_problem p0, p1;
    bench_stratum st[2];
    bench_space sp;
    int calls;
} tiny;

static void tiny_init(tiny *t)
{
    memset(t, 0, sizeof *t);
    sym_ctx *s = t->sc = sym_ctx_new();
    const sym_expr *x = sym_var(s, "x"), *y = sym_var(s, "y");
    t->v0[0] = (solve_var){x, dom_x, 6};
    t->v0[1] = (solve_var){y, dom_y, 4};
    t->c0[0] = (solve_constraint){sym_sub(s, sym_mul(s, x, y), sym_const(s, 12)), "x*y <= 12"};
    t->p0 = (solve_problem){.vars = t->v0, .nvars = 2, .cons = t->c0, .ncons = 1, .objective = sym_add(s, x, y)};
    t->v1[0] = (solve_var){x, dom_x, 6};
    t->c1[0] = (solve_constraint){sym_sub(s, sym_const(s, 2), x), "x >= 2"};
    t->p1 = (solve_problem){.vars = t->v1, .nvars = 1, .cons = t->c1, .ncons = 1, .objective = x};
    t->st[0] = (bench_stratum){&t->p0, NULL, NULL, "s0"};
    t->st[1] = (bench_stratum){&t->p1, NULL, NULL, "s1"};
    t->sp = (bench_space){t->st, 2};
}

static bool tiny_runs(int s, const int64_t *v) { return !(s == 0 && v[0] == 5); }

static double tiny_cost(int s, const int64_t *v)
{
    if (s == 0)
        return 100.0 + 10.0 * (double)((v[0] - 3) * (v[0] - 3)) + 7.0 * (double)((v[1] - 2) * (v[1] - 2));
    return 104.0 + 10.0 * (double)((v[0] - 4) * (v[0] - 4));
}

static bool tiny_eval(void *ctx, int s, const int64_t *v, double cap, bench_eval *out, const char **why)
{
    tiny *t = ctx;
    t->calls++;
    out->predicted = bench_space_predict(&t->sp, s, v);
    if (!tiny_runs(s, v)) {
        *why = "x = 5 cannot run";
        return false;
    }
    out->ok = true;
    out->cycles = tiny_cost(s, v);
    out->sim_seconds = out->cycles * 1e-9;
    return true;
}

static bool count_pt(void *ctx, int s, const int64_t *v)
{
    (void)s;
    (void)v;
    (*(int *)ctx)++;
    return true;
}

static void space_points(void **state)
{
    (void)state;
    tiny t;
    tiny_init(&t);
    bool all = false;
    int n = 0;
    assert_int_equal(bench_space_enum(&t.sp, 0, 0, count_pt, &n, &all), 16);
    assert_true(all);
    assert_int_equal(n, 16);
    assert_int_equal(bench_space_enum(&t.sp, 1, 0, NULL, NULL, &all), 5);
    /* a limit stops the walk and says it did */
    assert_int_equal(bench_space_enum(&t.sp, 0, 10, NULL, NULL, &all), 10);
    assert_false(all);
    int64_t ok[] = {3, 4}, bad[] = {4, 4};
    assert_true(bench_space_legal(&t.sp, 0, ok));
    assert_false(bench_space_legal(&t.sp, 0, bad));
    assert_int_equal(bench_space_predict(&t.sp, 0, ok), 7);
    /* nearest to (x = 6, y = 8): x stays 6; y by distance from position 3: 8 (48),
       then position 2: 4 (24), position 1: 2 (12, legal) */
    int tgt[] = {5, 3};
    int64_t out[2];
    assert_true(bench_space_nearest(&t.sp, 0, tgt, out));
    assert_true(out[0] == 6 && out[1] == 2);
    /* stratum 1 from position 0 (x = 1, illegal): the next position out is 1 (x = 2) */
    int t1[] = {0};
    assert_true(bench_space_nearest(&t.sp, 1, t1, out));
    assert_true(out[0] == 2);
    sym_ctx_free(t.sc);
}

static void oracle_equals_brute_force(void **state)
{
    (void)state;
    tiny t;
    tiny_init(&t);
    /* brute force over both strata, by loops written here */
    double best = INFINITY;
    int legal = 0, runnable = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) {
            int64_t v[] = {dom_x[i], dom_y[j]};
            if (v[0] * v[1] > 12)
                continue;
            legal++;
            if (tiny_runs(0, v)) {
                runnable++;
                best = LM_MIN(best, tiny_cost(0, v));
            }
        }
    for (int i = 0; i < 6; i++) {
        int64_t v[] = {dom_x[i]};
        if (v[0] < 2)
            continue;
        legal++;
        runnable++;
        best = LM_MIN(best, tiny_cost(1, v));
    }
    assert_int_equal(legal, 21);
    assert_true(best == 100.0);

    bench_evaluator ev;
    bench_evaluator_init(&ev, &t.sp, tiny_eval, &t, 0);
    bench_oracle o;
    bench_oracle_opts oo = {.bound = 21, .seed = 1};
    bench_oracle_run(&o, &t.sp, &ev, &oo);
    assert_true(o.exact);
    assert_true(o.space_known);
    assert_int_equal(o.space, 21);
    assert_int_equal(o.npts, 21);
    assert_int_equal(t.calls, 21);
    assert_int_equal(ev.failures, legal - runnable);
    assert_true(o.best_cycles == best);
    const bench_entry *e = &ev.entries.items[o.best];
    assert_true(e->s == 0 && e->values[0] == 3 && e->values[1] == 2);
    /* memoised: asking again simulates nothing */
    int64_t again[] = {3, 2};
    assert_int_equal(bench_evaluate(&ev, 0, again), o.best);
    assert_int_equal(t.calls, 21);
    bench_oracle_free(&o);
    bench_evaluator_free(&ev);

    /* one point below the space: sampled, never better than the optimum, deterministic */
    int *first = NULL;
    int nfirst = 0;
    for (int run = 0; run < 2; run++) {
        bench_evaluator_init(&ev, &t.sp, tiny_eval, &t, 0);
        oo.bound = 8;
        bench_oracle_run(&o, &t.sp, &ev, &oo);
        assert_false(o.exact);
        assert_true(o.space_known); /* counted exactly, too many to simulate */
        assert_int_equal(o.space, 21);
        assert_true(o.best >= 0 && o.best_cycles >= best);
        int ran = 0;
        for (int i = 0; i < o.npts; i++)
            ran += ev.entries.items[o.pts[i]].e.ok;
        assert_true(ran <= 8);
        if (run == 0) {
            nfirst = o.npts;
            first = malloc(sizeof *first * (size_t)o.npts);
            for (int i = 0; i < o.npts; i++) {
                const bench_entry *x = &ev.entries.items[o.pts[i]];
                first[i] = x->s * 100 + (int)x->values[0] * 10 + (x->s == 0 ? (int)x->values[1] : 0);
            }
        } else {
            assert_int_equal(o.npts, nfirst);
            for (int i = 0; i < o.npts; i++) {
                const bench_entry *x = &ev.entries.items[o.pts[i]];
                assert_int_equal(first[i], x->s * 100 + (int)x->values[0] * 10 + (x->s == 0 ? (int)x->values[1] : 0));
            }
        }
        bench_oracle_free(&o);
        bench_evaluator_free(&ev);
    }
    free(first);
    sym_ctx_free(t.sc);
}

static void tuner_is_deterministic(void **state)
{
    (void)state;
    tiny t;
    tiny_init(&t);
    bench_tuner a, b, c;
    bench_evaluator ea, eb, ec;
    bench_tuner_opts o = {.marks = {3, 6, 12}, .nmarks = 3, .seed = 99};
    bench_evaluator_init(&ea, &t.sp, tiny_eval, &t, 0);
    bench_evaluator_init(&eb, &t.sp, tiny_eval, &t, 0);
    bench_tuner_run(&a, &t.sp, &ea, &o);
    bench_tuner_run(&b, &t.sp, &eb, &o);
    assert_int_equal(a.trials, 12);
    assert_int_equal(a.trials, b.trials);
    assert_int_equal(a.attempts, b.attempts);
    for (int64_t i = 0; i < a.attempts; i++) {
        const bench_entry *x = &ea.entries.items[a.pts[i]], *y = &eb.entries.items[b.pts[i]];
        assert_int_equal(x->s, y->s);
        assert_int_equal(x->values[0], y->values[0]);
    }
    for (int m = 0; m < 3; m++) {
        assert_false(a.marks[m].lower_bound); /* nothing is capped here */
        assert_true(a.marks[m].best_cycles == b.marks[m].best_cycles);
        assert_int_equal(a.marks[m].used, o.marks[m]);
        if (m)
            assert_true(a.marks[m].best_cycles <= a.marks[m - 1].best_cycles);
    }
    /* a shorter budget is a prefix: its result equals the checkpoint */
    bench_tuner_opts o6 = {.marks = {6}, .nmarks = 1, .seed = 99};
    bench_evaluator_init(&ec, &t.sp, tiny_eval, &t, 0);
    bench_tuner_run(&c, &t.sp, &ec, &o6);
    assert_true(c.marks[0].best_cycles == a.marks[1].best_cycles);
    assert_true(c.marks[0].sim_seconds == a.marks[1].sim_seconds);
    bench_tuner_free(&c);
    bench_evaluator_free(&ec);

    /* more trials than runnable points (16 - 2 + 5 = 19): it stops, having tried each at
       most once, and finds the optimum */
    bench_tuner_opts big = {.marks = {1000}, .nmarks = 1, .seed = 5};
    bench_evaluator_init(&ec, &t.sp, tiny_eval, &t, 0);
    bench_tuner_run(&c, &t.sp, &ec, &big);
    assert_true(c.trials <= 19);
    assert_true(c.attempts <= 21);
    assert_int_equal((int64_t)ec.entries.len, c.attempts);
    assert_int_equal(c.marks[0].used, c.trials);
    assert_true(c.marks[0].best_cycles >= 100.0);
    bench_tuner_free(&c);
    bench_evaluator_free(&ec);

    bench_tuner_free(&a);
    bench_tuner_free(&b);
    bench_evaluator_free(&ea);
    bench_evaluator_free(&eb);
    sym_ctx_free(t.sc);
}

/* ---- the published tables (csv_table.c) ------------------------------- */

/* Read `text` as a table from a temporary file; the messages into *errs
 * (heap, "" when it read). */
static bench_table *read_text(const char *text, size_t len, char **errs)
{
    const char *dir = getenv("TMPDIR");
    lm_buf b = {0};
    lm_buf_printf(&b, "%s/loomc_table_XXXXXX", dir && *dir ? dir : "/tmp");
    char *path = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    size_t n = 0;
    FILE *e = open_memstream(errs, &n);
    lm_diag d;
    lm_diag_init(&d, e);
    d.no_caret = true;
    bench_table *t = bench_table_read(path, &d);
    fclose(e);
    unlink(path);
    free(path);
    assert_true((t != NULL) == (d.nerrors == 0));
    return t;
}

static void table_reads_quotes_comments_and_line_ends(void **state)
{
    (void)state;
    /* a BOM; comments and blank lines around the header; a quoted comma, a
       doubled quote, a quoted line break holding a '#' line (part of the
       field, not a comment); CRLF, a lone CR, and no line end at the end */
    static const char text[] = "\xef\xbb\xbf# source\n\na,b,c\r\n# between rows\n"
                               "1,\"x, y\",\"say \"\"hi\"\"\"\n"
                               "  \n"
                               "2,\"two\n# not a comment\nlines\",z\r"
                               "3,,last";
    char *errs = NULL;
    bench_table *t = read_text(text, sizeof text - 1, &errs);
    assert_string_equal(errs, "");
    assert_non_null(t);
    assert_int_equal(t->ncols, 3);
    assert_int_equal(t->header_line, 3);
    assert_int_equal(t->nrows, 3);
    assert_string_equal(bench_table_cell(t, 0, "b"), "x, y");
    assert_string_equal(bench_table_cell(t, 0, "c"), "say \"hi\"");
    assert_string_equal(bench_table_cell(t, 1, "b"), "two\n# not a comment\nlines");
    assert_string_equal(bench_table_cell(t, 1, "c"), "z");
    assert_string_equal(bench_table_cell(t, 2, "b"), "");
    assert_string_equal(bench_table_cell(t, 2, "c"), "last");
    /* the lines the rows start on: 5, 7 (spanning 7-9), 10 (after the lone CR) */
    assert_int_equal(t->line[0], 5);
    assert_int_equal(t->line[1], 7);
    assert_int_equal(t->line[2], 10);
    assert_string_equal(bench_table_cell(t, 0, "no such column"), "");
    assert_int_equal(bench_table_col(t, "c"), 2);
    bench_table_free(t);
    free(errs);
}

/* 1000 columns and 5000 rows, every cell where it belongs: row r holds
   r*1000 + 100*k in fields 0 to 9, nothing in fields 10 to 998 and
   r*1000 + 999 in the last one. */
static void table_has_no_column_or_row_limit(void **state)
{
    (void)state;
    enum { NC = 1000, NR = 5000 };
    lm_buf b = {0};
    for (int c = 0; c < NC; c++)
        lm_buf_printf(&b, "%sc%d", c ? "," : "", c);
    lm_buf_putc(&b, '\n');
    for (int r = 0; r < NR; r++) {
        for (int k = 0; k < 10; k++)
            lm_buf_printf(&b, "%s%d", k ? "," : "", r * 1000 + 100 * k);
        for (int c = 10; c < NC - 1; c++)
            lm_buf_putc(&b, ',');
        lm_buf_printf(&b, ",%d\n", r * 1000 + NC - 1);
    }
    char *errs = NULL;
    bench_table *t = read_text(lm_buf_str(&b), b.len, &errs);
    lm_buf_free(&b);
    assert_string_equal(errs, "");
    assert_non_null(t);
    assert_int_equal(t->ncols, NC);
    assert_int_equal(t->nrows, NR);
    char want[32];
    snprintf(want, sizeof want, "%d", (NR - 1) * 1000 + NC - 1);
    assert_string_equal(bench_table_cell(t, NR - 1, "c999"), want);
    snprintf(want, sizeof want, "%d", 4321 * 1000 + 900);
    assert_string_equal(t->rows[4321][9], want);
    assert_string_equal(t->rows[4321][500], "");
    bench_table_free(t);
    free(errs);
}

static void table_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"a,b\n1,2,3\n", ":2:1: error: a row of 3 fields; the header (line 1) has 2"},
        {"# c\na,b\n1\n", ":3:1: error: a row of 1 fields; the header (line 2) has 2"},
        {"a,b\n1,x\"y\n", ":2:4: error: malformed row: a quote inside an unquoted field"},
        {"a,b\n1,\"x\"y\n", ":2:6: error: malformed row: a quote inside an unquoted field, or text after a closing quote"},
        {"a,b\n1,2\n3,\"open\nstill open\n", ":3:1: error: malformed row: a quoted field is not closed before the end of the file"},
        {"a,b,a\n", ":1:1: error: the header names column 'a' twice (columns 1 and 3)"},
        {"# only a comment\n\n", ": error: the table has no header row (only comments)"},
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        char *errs = NULL;
        bench_table *t = read_text(cases[i].text, strlen(cases[i].text), &errs);
        if (!strstr(errs, cases[i].msg))
            fail_msg("case %zu: expected '%s' in:\n%s", i, cases[i].msg, errs);
        assert_null(t);
        free(errs);
    }
    /* a missing column a table needs: named with the file */
    char *errs = NULL;
    bench_table *t = read_text("a,b\n1,2\n", 8, &errs);
    assert_non_null(t);
    size_t n = 0;
    char *msgs = NULL;
    FILE *e = open_memstream(&msgs, &n);
    lm_diag d;
    lm_diag_init(&d, e);
    static const char *const need[] = {"a", "M", "b", "N", NULL};
    assert_false(bench_table_need(t, need, &d));
    fclose(e);
    assert_int_equal(d.nerrors, 2);
    assert_non_null(strstr(msgs, ": error: the table has no column 'M' (its header is line 1)"));
    assert_non_null(strstr(msgs, ": error: the table has no column 'N' (its header is line 1)"));
    assert_non_null(strstr(msgs, t->path));
    free(msgs);
    free(errs);
    bench_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(suite_parses),
        cmocka_unit_test(suite_errors),
        cmocka_unit_test(geomean_and_regret),
        cmocka_unit_test(ranks_and_spearman),
        cmocka_unit_test(rng_is_deterministic),
        cmocka_unit_test(space_points),
        cmocka_unit_test(oracle_equals_brute_force),
        cmocka_unit_test(tuner_is_deterministic),
        cmocka_unit_test(table_reads_quotes_comments_and_line_ends),
        cmocka_unit_test(table_has_no_column_or_row_limit),
        cmocka_unit_test(table_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
