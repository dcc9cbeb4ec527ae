/* test_sim_chain.c - the chain op: element-wise, SFPU and mask steps on
 * tiles held in Dst (docs/dataflow.md, docs/simulator.md). Its cycles
 * against the same ops run one by one through a CB, derived here from the
 * toy chip's figures (test_sim_common.h); its values against the separate
 * ops (with fp32 intermediates: packing them loses nothing, so the two must
 * agree bit for bit) and against the arithmetic done here on the input
 * tensors; the text form and validation of its steps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "num/num.h"
#include "sim/sim_int.h"
#include "test_sim_common.h"

static arch_desc A;

static int setup(void **st)
{
    (void)st;
    toy_arch(&A);
    return 0;
}

/* Parse, bind, validate and simulate; NULL with the messages in *err. */
static sim_result *run(const char *text, const sim_options *o, char **err)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    sim_result *r = NULL;
    df_program *p = df_parse("prog.df", text, strlen(text), &d);
    if (p && df_bind(p, NULL, 0, &d) && df_validate(p, &A, &d))
        r = sim_run(p, &A, o, &d);
    df_free(p);
    fclose(f);
    *err = buf;
    return r;
}

static sim_result *run_ok(const char *text, const sim_options *o)
{
    char *err = NULL;
    sim_result *r = run(text, o, &err);
    if (!r)
        print_error("%s\n%s", text, err);
    free(err);
    assert_non_null(r);
    return r;
}

/* The errors of a program that must fail to parse, bind or validate. */
static void assert_rejected(const char *text, const char *want)
{
    char *err = NULL;
    sim_options o = {.timing_only = true};
    sim_result *r = run(text, &o, &err);
    if (r || !strstr(err, want))
        fail_msg("expected '%s' in:\n%s", want, err);
    sim_result_free(r);
    free(err);
}

#define NEAR(x, want, tol)                                                                      \
    do {                                                                                        \
        double x_ = (x), w_ = (want);                                                           \
        if (fabs(x_ - w_) > (tol))                                                              \
            print_error("%s = %.3f, derived %.3f\n", #x, x_, w_);                              \
        assert_true(fabs(x_ - w_) <= (tol));                                                    \
    } while (0)

/* ---- cycles ------------------------------------------------------------------ */

/* N tiles of a and b (bf16) are filled, then out = exp(a - b) (fp32):
 * either as eltwise into an fp32 CB and sfpu from it, or as one chain. */
static double sub_exp_cycles(int n, bool chained)
{
    char text[4096];
    const char *ops =
        chained ? "    cb_reserve cb=3 n=%d\n"
                  "    chain a=0 out=3 cols=%d {\n"
                  "      eltwise op=sub b=1\n"
                  "      sfpu op=exp\n"
                  "    }\n"
                  "    cb_push cb=3 n=%d\n"
                  "    cb_pop cb=0 n=%d\n"
                  "    cb_pop cb=1 n=%d\n"
                : "    cb_reserve cb=2 n=%d\n"
                  "    eltwise op=sub a=0 b=1 out=2 cols=%d\n"
                  "    cb_push cb=2 n=%d\n"
                  "    cb_pop cb=0 n=%d\n"
                  "    cb_pop cb=1 n=%d\n"
                  "    cb_wait cb=2 n=N\n"
                  "    cb_reserve cb=3 n=N\n"
                  "    sfpu op=exp a=2 out=3 n=N\n"
                  "    cb_push cb=3 n=N\n"
                  "    cb_pop cb=2 n=N\n";
    char body[1024];
    snprintf(body, sizeof body, ops, n, n, n, n, n);
    snprintf(text, sizeof text,
             "program p\n"
             "param N = %d\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=N\n"
             "  cb 1 format=bf16 pages=N\n"
             "  cb 2 format=fp32 pages=N\n"
             "  cb 3 format=fp32 pages=N\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=N\n"
             "    fill out=0 n=N scalar=1\n"
             "    cb_push cb=0 n=N\n"
             "    cb_reserve cb=1 n=N\n"
             "    fill out=1 n=N scalar=2\n"
             "    cb_push cb=1 n=N\n"
             "    cb_wait cb=0 n=N\n"
             "    cb_wait cb=1 n=N\n"
             "%s"
             "  }\n"
             "}\n",
             n, body);
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    double c = r->cycles;
    sim_result_free(r);
    return c;
}

/* Stage by stage (n tiles fit one Dst half, so each op is one chunk):
 *   fills: math n*eltwise + hand-off, pack n bf16 tiles, push; the second
 *     fill's math overlaps the first's pack (as in test_sim_run.c);
 *   separate: unpack 2n bf16 tiles, math n*eltwise + hand-off, pack n fp32
 *     tiles, push; unpack pops a and b and waits for that push, then
 *     unpacks n fp32 tiles, math n*exp + hand-off, pack n fp32, push;
 *   chain: unpack 2n bf16 tiles, math n*(eltwise + exp) + one hand-off,
 *     pack n fp32 tiles, push.
 * The chain saves per tile one fp32 pack and one fp32 unpack, and per
 * chunk a Dst hand-off and a CB handshake (the push the second op waited
 * for). */
static void test_chain_saves_a_pass(void **st)
{
    (void)st;
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles;
    for (int n = 1; n <= 8; n *= 2) {
        double fm = n * A.eltwise_tile_cycles + ho, fp = n * 2048.0 / A.pack_bpc;
        double pack1 = fmax(fm + fp + h, 2 * fm);
        double t0 = pack1 + fp + h; /* both inputs pushed */
        double u = n * 2.0 * 2048 / A.unpack_bpc, pk = n * 4096.0 / A.pack_bpc, u32 = n * 4096.0 / A.unpack_bpc;
        /* math follows the unpacker tile by tile (n units) */
        double chain =
            toy_math_end(t0, t0, u, n * (A.eltwise_tile_cycles + A.sfpu_exp_tile_cycles), n) + ho + pk + h;
        double pushed = toy_math_end(t0, t0, u, n * A.eltwise_tile_cycles, n) + ho + pk + h;
        double start2 = fmax(t0 + u + 2 * h, pushed); /* after its pops and the push */
        double sep = toy_math_end(start2, start2, u32, n * A.sfpu_exp_tile_cycles, n) + ho + pk + h;
        double got_chain = sub_exp_cycles(n, true), got_sep = sub_exp_cycles(n, false);
        NEAR(got_chain, A.kernel_launch_cycles + chain, 1e-6);
        NEAR(got_sep, A.kernel_launch_cycles + sep, 1e-6);
        /* the saving named in docs/simulator.md, when the pops hide under
           the first op's math and pack (they do on the toy chip): at least
           one fp32 pack, a handshake and a hand-off (the second op's unpack
           and math take no less than the chain's extra step) */
        assert_true(t0 + u + 2 * h <= pushed);
        assert_true(got_sep - got_chain >= pk + h + ho - 1e-6);
    }
}

/* The cycles of a chain of `steps` over n = 12 fp32 tiles of a filled CB. */
static double chain_chunk_cycles(const char *steps)
{
    const int n = 12;
    char text[2048];
    snprintf(text, sizeof text,
             "program p\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=fp32 pages=%d\n"
             "  cb 3 format=fp32 pages=%d\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=%d\n"
             "    fill out=0 n=%d scalar=1\n"
             "    cb_push cb=0 n=%d\n"
             "    cb_wait cb=0 n=%d\n"
             "    cb_reserve cb=3 n=%d\n"
             "    chain a=0 out=3 cols=%d {\n"
             "%s"
             "    }\n"
             "    cb_push cb=3 n=%d\n"
             "    cb_pop cb=0 n=%d\n"
             "  }\n"
             "}\n",
             n, n, n, n, n, n, n, n, steps, n, n);
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    double c = r->cycles;
    sim_result_free(r);
    return c;
}

/* What chain_chunk_cycles takes when its steps cost `per` cycles a tile. */
static double chain_chunk_derived(double per)
{
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles;
    /* fill: math chunks 8 and 4 (eltwise + hand-off), pack 8 and 4 fp32
       tiles; the chain's chunks: unpack 8 (4) fp32 tiles, math 8 (4) x
       steps + hand-off, pack 8 (4) tiles */
    double fm1 = 8 * A.eltwise_tile_cycles + ho, fm2 = 4 * A.eltwise_tile_cycles + ho;
    double fp1 = 8 * 4096.0 / A.pack_bpc, fp2 = 4 * 4096.0 / A.pack_bpc;
    double fill_done = fmax(fm1 + fp1, fm1 + fm2) + fp2 + h; /* pack of chunk 2 after its math and chunk 1's pack */
    double u1 = 8 * 4096.0 / A.unpack_bpc, u2 = 4 * 4096.0 / A.unpack_bpc;
    double m1 = 8 * per + ho, m2 = 4 * per + ho;
    /* unpack chunk 2 while math works on chunk 1, math following the
       unpacker tile by tile; pack after each math */
    double math1 = toy_math_end(fill_done, fill_done, u1, m1 - ho, 8) + ho;
    double math2 = toy_math_end(math1, fill_done + u1, u2, m2 - ho, 4) + ho;
    double pack1 = math1 + fp1;
    double pack2 = fmax(pack1, math2) + fp2;
    return A.kernel_launch_cycles + pack2 + h;
}

/* More tiles than one Dst half: chunks of 8 tiles pipeline through the
 * three stages, and the chain is one such op whose math is the sum of its
 * steps: n=12 runs as 8 + 4, with one step and with two. */
static void test_chain_chunks(void **st)
{
    (void)st;
    NEAR(chain_chunk_cycles("      sfpu op=exp\n"), chain_chunk_derived(A.sfpu_exp_tile_cycles), 1e-6);
    NEAR(chain_chunk_cycles("      sfpu op=exp\n      sfpu op=neg\n"),
         chain_chunk_derived(A.sfpu_exp_tile_cycles + A.eltwise_tile_cycles), 1e-6);
}

/* sqrt, rsqrt and sigmoid cost their own figures of the description, alone
 * and after an exp (the toy chip's figures differ from each other and from
 * every other op's, so a wrong figure shows). */
static void test_chain_sfpu_figures(void **st)
{
    (void)st;
    const char *ops[] = {"sqrt", "rsqrt", "sigmoid"};
    const double per[] = {A.sfpu_sqrt_tile_cycles, A.sfpu_rsqrt_tile_cycles, A.sfpu_sigmoid_tile_cycles};
    for (int i = 0; i < 3; i++) {
        char steps[128];
        snprintf(steps, sizeof steps, "      sfpu op=%s\n", ops[i]);
        NEAR(chain_chunk_cycles(steps), chain_chunk_derived(per[i]), 1e-6);
        snprintf(steps, sizeof steps, "      sfpu op=exp\n      sfpu op=%s\n", ops[i]);
        NEAR(chain_chunk_cycles(steps), chain_chunk_derived(A.sfpu_exp_tile_cycles + per[i]), 1e-6);
    }
}

/* ---- values ------------------------------------------------------------------- */

/* Two cores compute the same chain over 4x3 tiles (two Dst chunks) of
 * random inputs: core (0,0) as one chain op, core (1,0) as its steps one
 * by one through fp32 CBs. */
static const char *VALUES_PROG =
    "program values\n"
    "tensor A rows=128 cols=96 format=bf16 role=input seed=1\n"
    "tensor B rows=128 cols=32 format=bf16 role=input seed=2\n"
    "tensor R rows=32 cols=96 format=bf16 role=input seed=3\n"
    "tensor C rows=128 cols=96 format=bf16 role=input seed=4\n"
    "tensor S rows=32 cols=32 format=bf16 role=input seed=6\n"
    "tensor OC rows=128 cols=96 format=fp32 role=output\n"
    "tensor OS rows=128 cols=96 format=fp32 role=output\n"
    "\n"
    "class chained x0=0 y0=0 x1=0 y1=0 {\n"
    "  cb 0 format=bf16 pages=12\n"
    "  cb 1 format=bf16 pages=4\n"
    "  cb 2 format=bf16 pages=3\n"
    "  cb 3 format=bf16 pages=12\n"
    "  cb 4 format=bf16 pages=1\n"
    "  cb 5 format=fp32 pages=12\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=12\n    read tensor=A row=0 col=0 rows=4 cols=3 cb=0\n"
    "    cb_reserve cb=1 n=4\n    read tensor=B row=0 col=0 rows=4 cb=1\n"
    "    cb_reserve cb=2 n=3\n    read tensor=R row=0 col=0 cols=3 cb=2\n"
    "    cb_reserve cb=3 n=12\n    read tensor=C row=0 col=0 rows=4 cols=3 cb=3\n"
    "    cb_reserve cb=4 n=1\n    read tensor=S row=0 col=0 cb=4\n"
    "    read_barrier\n"
    "    cb_push cb=0 n=12\n    cb_push cb=1 n=4\n    cb_push cb=2 n=3\n    cb_push cb=3 n=12\n    cb_push cb=4 n=1\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=12\n    cb_wait cb=1 n=4\n    cb_wait cb=2 n=3\n    cb_wait cb=3 n=12\n    cb_wait cb=4 n=1\n"
    "    cb_reserve cb=5 n=12\n"
    "    chain a=0 out=5 rows=4 cols=3 {\n"
    "      eltwise op=sub b=1 bcast=col\n"
    "      sfpu op=scale scalar=0.75\n"
    "      mask p1r=1 p1c=-1 p1k=8 scalar=-3\n"
    "      sfpu op=exp2\n"
    "      eltwise op=mul b=2 bcast=row\n"
    "      eltwise op=sub b=3 rev=1\n"
    "      eltwise op=max b=4 bcast=scalar\n"
    "      sfpu op=neg\n"
    "    }\n"
    "    cb_push cb=5 n=12\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=5 n=12\n    write cb=5 tensor=OC row=0 col=0 rows=4 cols=3\n    write_barrier\n    cb_pop cb=5 n=12\n"
    "  }\n"
    "}\n"
    "\n"
    "class separate x0=1 y0=0 x1=1 y1=0 {\n"
    "  cb 0 format=bf16 pages=12\n"
    "  cb 1 format=bf16 pages=4\n"
    "  cb 2 format=bf16 pages=3\n"
    "  cb 3 format=bf16 pages=12\n"
    "  cb 4 format=bf16 pages=1\n"
    "  cb 5 format=fp32 pages=12\n"
    "  cb 6 format=fp32 pages=12\n"
    "  cb 7 format=fp32 pages=12\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=12\n    read tensor=A row=0 col=0 rows=4 cols=3 cb=0\n"
    "    cb_reserve cb=1 n=4\n    read tensor=B row=0 col=0 rows=4 cb=1\n"
    "    cb_reserve cb=2 n=3\n    read tensor=R row=0 col=0 cols=3 cb=2\n"
    "    cb_reserve cb=3 n=12\n    read tensor=C row=0 col=0 rows=4 cols=3 cb=3\n"
    "    cb_reserve cb=4 n=1\n    read tensor=S row=0 col=0 cb=4\n"
    "    read_barrier\n"
    "    cb_push cb=0 n=12\n    cb_push cb=1 n=4\n    cb_push cb=2 n=3\n    cb_push cb=3 n=12\n    cb_push cb=4 n=1\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=12\n    cb_wait cb=1 n=4\n    cb_wait cb=2 n=3\n    cb_wait cb=3 n=12\n    cb_wait cb=4 n=1\n"
    "    cb_reserve cb=6 n=12\n    eltwise op=sub a=0 b=1 out=6 rows=4 cols=3 bcast=col\n    cb_push cb=6 n=12\n"
    "    cb_wait cb=6 n=12\n    cb_reserve cb=7 n=12\n    sfpu op=scale a=6 out=7 n=12 scalar=0.75\n"
    "    cb_push cb=7 n=12\n    cb_pop cb=6 n=12\n"
    "    cb_wait cb=7 n=12\n    cb_reserve cb=6 n=12\n    mask a=7 out=6 rows=4 cols=3 p1r=1 p1c=-1 p1k=8 scalar=-3\n"
    "    cb_push cb=6 n=12\n    cb_pop cb=7 n=12\n"
    "    cb_wait cb=6 n=12\n    cb_reserve cb=7 n=12\n    sfpu op=exp2 a=6 out=7 n=12\n"
    "    cb_push cb=7 n=12\n    cb_pop cb=6 n=12\n"
    "    cb_wait cb=7 n=12\n    cb_reserve cb=6 n=12\n    eltwise op=mul a=7 b=2 out=6 rows=4 cols=3 bcast=row\n"
    "    cb_push cb=6 n=12\n    cb_pop cb=7 n=12\n"
    "    cb_wait cb=6 n=12\n    cb_reserve cb=7 n=12\n    eltwise op=sub a=3 b=6 out=7 rows=4 cols=3\n"
    "    cb_push cb=7 n=12\n    cb_pop cb=6 n=12\n"
    "    cb_wait cb=7 n=12\n    cb_reserve cb=6 n=12\n    eltwise op=max a=7 b=4 out=6 rows=4 cols=3 bcast=scalar\n"
    "    cb_push cb=6 n=12\n    cb_pop cb=7 n=12\n"
    "    cb_wait cb=6 n=12\n    cb_reserve cb=5 n=12\n    sfpu op=neg a=6 out=5 n=12\n"
    "    cb_push cb=5 n=12\n    cb_pop cb=6 n=12\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=5 n=12\n    write cb=5 tensor=OS row=0 col=0 rows=4 cols=3\n    write_barrier\n    cb_pop cb=5 n=12\n"
    "  }\n"
    "}\n";

static void test_chain_values(void **st)
{
    (void)st;
    sim_options o = {.keep_tensors = true};
    sim_result *r = run_ok(VALUES_PROG, &o);
    assert_int_equal(r->ntensors, 7);
    const float *a = r->tensor_data[0], *b = r->tensor_data[1], *rr = r->tensor_data[2], *c = r->tensor_data[3];
    const float *s = r->tensor_data[4], *oc = r->tensor_data[5], *os = r->tensor_data[6];
    int64_t mism = 0, wrong = 0, unclamped = 0;
    for (int i = 0; i < 128; i++)
        for (int j = 0; j < 96; j++) {
            /* the steps as documented, in fp32: b's column 0 per row, r's
               row 0 per column, s's element (0,0) */
            float v = a[i * 96 + j] - b[i * 32];
            v = v * 0.75f;
            if (!(1 * i - 1 * j + 8 >= 0))
                v = -3.0f;
            v = num_exp2_approx(v);
            v = v * rr[j];
            v = c[i * 96 + j] - v;
            v = fmaxf(v, s[0]);
            v = -v;
            wrong += memcmp(&v, &oc[i * 96 + j], sizeof v) != 0;
            mism += memcmp(&os[i * 96 + j], &oc[i * 96 + j], sizeof v) != 0;
            unclamped += v != -s[0];
        }
    assert_int_equal(mism, 0);
    assert_int_equal(wrong, 0);
    /* most elements are not the max's constant, so equality says something */
    if (unclamped < 128 * 96 / 4)
        fail_msg("only %lld of the elements escape the max", (long long)unclamped);
    sim_result_free(r);
}

/* ---- text form and validation ---------------------------------------------------- */

static void test_chain_round_trip(void **st)
{
    (void)st;
    char *err = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&err, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    df_program *p = df_parse("v.df", VALUES_PROG, strlen(VALUES_PROG), &d);
    assert_non_null(p);
    lm_buf once = {0}, twice = {0};
    df_print(&once, p);
    /* defaults left out, steps indented under their chain */
    assert_non_null(strstr(lm_buf_str(&once), "    chain a=0 out=5 rows=4 cols=3 {\n"
                                                "      eltwise op=sub b=1 bcast=col\n"
                                                "      sfpu op=scale scalar=0.75\n"
                                                "      mask p1r=1 p1c=-1 p1k=8 scalar=-3\n"
                                                "      sfpu op=exp2\n"));
    df_program *q = df_parse("once.df", lm_buf_str(&once), once.len, &d);
    assert_non_null(q);
    df_print(&twice, q);
    assert_string_equal(lm_buf_str(&once), lm_buf_str(&twice));
    assert_int_equal(q->classes[0].kernels[DF_COMPUTE].body[6]->nbody, 8);
    fclose(f);
    free(err);
    lm_buf_free(&once);
    lm_buf_free(&twice);
    df_free(p);
    df_free(q);
}

static const char *chain_prog(const char *chain)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "program p\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=4\n"
             "  cb 1 format=bf16 pages=2\n"
             "  cb 3 format=fp32 pages=4\n"
             "  compute {\n"
             "%s"
             "  }\n"
             "}\n",
             chain);
    return text;
}

static void test_chain_errors(void **st)
{
    (void)st;
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n      matmul a=0 b=1 out=3 m=1 k=1 nn=1\n    }\n"),
                    "prog.df:8:7: error: 'matmul' cannot be a step of a chain (the steps are eltwise, sfpu and mask)");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n    }\n"), "prog.df:7:28: error: a chain needs at least one step");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4\n"), "expected '{' after the 'chain' header");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n      eltwise op=sub a=0 b=1\n    }\n"),
                    "unknown key 'a' for 'eltwise'");
    assert_rejected("program p\nclass c x0=0 y0=0 x1=0 y1=0 {\n  compute {\n    chain a=0 out=3 {\n      sfpu op=exp\n",
                    "prog.df:4:21: error: '{' of this chain is never closed");
    /* validation: the step's operand pages, its CB, rev with a broadcast */
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n      eltwise op=add b=1\n    }\n"),
                    "chain step b: pages 0..3 of CB 1, which has 2 pages");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n      eltwise op=add b=2 bcast=scalar\n    }\n"),
                    "CB 2 is not declared in class 'c'");
    assert_rejected(chain_prog("    chain a=0 out=3 rows=2 cols=2 {\n      eltwise op=sub b=1 bcast=col rev=1\n    }\n"),
                    "rev=1 takes the Dst value as the second operand");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=5 {\n      sfpu op=neg\n    }\n"), "chain a: pages 0..4 of CB 0");
    assert_rejected(chain_prog("    chain a=0 out=3 cols=4 {\n      sfpu op=neg exact=1\n    }\n"),
                    "sfpu: exact=1 applies to op=exp and op=exp2 only");
    /* a chain belongs to the compute kernel */
    assert_rejected("program p\nclass c x0=0 y0=0 x1=0 y1=0 {\n  cb 0 format=bf16 pages=1\n  reader {\n"
                    "    chain a=0 out=0 {\n      sfpu op=neg\n    }\n  }\n}\n",
                    "'chain' is a compute op and cannot be used in a reader kernel");
}

/* A step reading pages past what was waited for is an error at run time,
 * at the chain's line. */
static void test_chain_runtime_pages(void **st)
{
    (void)st;
    assert_rejected(chain_prog("    cb_reserve cb=0 n=4\n    fill out=0 n=4\n    cb_push cb=0 n=4\n"
                               "    cb_reserve cb=1 n=1\n    fill out=1 n=1\n    cb_push cb=1 n=1\n"
                               "    cb_wait cb=0 n=4\n    cb_wait cb=1 n=1\n    cb_reserve cb=3 n=4\n"
                               "    chain a=0 out=3 rows=2 cols=2 {\n      eltwise op=add b=1 bcast=col\n    }\n"),
                    "prog.df:16:5: error: 'chain' reads page 1 of CB 1, but only 1 pages are at its front");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_saves_a_pass),
        cmocka_unit_test(test_chain_chunks),
        cmocka_unit_test(test_chain_sfpu_figures),
        cmocka_unit_test(test_chain_values),
        cmocka_unit_test(test_chain_round_trip),
        cmocka_unit_test(test_chain_errors),
        cmocka_unit_test(test_chain_runtime_pages),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
