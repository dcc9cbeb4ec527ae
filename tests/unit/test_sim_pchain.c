/* test_sim_pchain.c - the packer's options of a chain (pchain: SFPU steps
 * on the pack thread, column-0 SFPU work, a scale folded into exp, an
 * output in place at the front of its CB, rows packed a second time into a
 * CB of row sums) and the block row maximum (rowmax), docs/dataflow.md and
 * docs/simulator.md. Cycles are derived here, stage by stage, from the toy
 * chip's figures (test_sim_common.h); values against the arithmetic done
 * here on the input tensors; then the text form and validation.
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
    /* a figure of its own, so that a wrong one shows */
    A.reduce_block_tile_cycles = 20;
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

static double cycles_of(const char *text)
{
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    double c = r->cycles;
    sim_result_free(r);
    return c;
}

#define NEAR(x, want, tol)                                                                      \
    do {                                                                                        \
        double x_ = (x), w_ = (want);                                                           \
        if (fabs(x_ - w_) > (tol))                                                              \
            print_error("%s = %.3f, derived %.3f\n", #x, x_, w_);                              \
        assert_true(fabs(x_ - w_) <= (tol));                                                    \
    } while (0)

/* ---- cycles of one op over 12 fp32 tiles ---------------------------------------- */

/* CB 0 is filled with 12 fp32 tiles, then `op` (a pchain or rowmax over
 * them, writing CB 3 and, for sums, CB 4) runs; `extra` is declared CBs. */
static double op_cycles(const char *op, int out_pages)
{
    char text[2048];
    snprintf(text, sizeof text,
             "program p\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=fp32 pages=12\n"
             "  cb 3 format=fp32 pages=12\n"
             "  cb 4 format=fp32 pages=2\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=12\n"
             "    fill out=0 n=12 scalar=1\n"
             "    cb_push cb=0 n=12\n"
             "    cb_wait cb=0 n=12\n"
             "    cb_reserve cb=3 n=%d\n"
             "    cb_reserve cb=4 n=2\n"
             "%s"
             "    cb_push cb=3 n=%d\n"
             "  }\n"
             "}\n",
             out_pages, op, out_pages);
    return cycles_of(text);
}

/* The fill's end (test_sim_chain.c derives it): math chunks of 8 and 4
 * tiles, pack 8 and 4 fp32 tiles, then the push. */
static double fill_done(void)
{
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles;
    double fm1 = 8 * A.eltwise_tile_cycles + ho, fm2 = 4 * A.eltwise_tile_cycles + ho;
    double fp1 = 8 * 4096.0 / A.pack_bpc, fp2 = 4 * 4096.0 / A.pack_bpc;
    return fmax(fm1 + fp1, fm1 + fm2) + fp2 + h;
}

/* Two chunks of 8 and 4 tiles through the three stages: `nu` fp32 tiles
 * unpacked per output tile, math `pm` and pack `pp` cycles a tile on top of
 * the hand-off and the tiles' packing. */
static double two_chunks_u(double nu, double pm, double pp)
{
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles, t0 = fill_done();
    double u1 = nu * 8 * 4096.0 / A.unpack_bpc, u2 = nu * 4 * 4096.0 / A.unpack_bpc;
    double fp1 = 8 * 4096.0 / A.pack_bpc, fp2 = 4 * 4096.0 / A.pack_bpc;
    /* math follows the unpacker tile by tile; chunk 2 is unpacked while
       math works on chunk 1 */
    double math1 = toy_math_end(t0, t0, u1, 8 * pm, 8) + ho;
    double math2 = toy_math_end(math1, t0 + u1, u2, 4 * pm, 4) + ho;
    double pack1 = math1 + fp1 + 8 * pp;
    double pack2 = fmax(pack1, math2) + fp2 + 4 * pp;
    return A.kernel_launch_cycles + pack2 + h;
}

static double two_chunks(double pm, double pp) { return two_chunks_u(1, pm, pp); }

/* pchain with its options off is a chain; pack=1 moves the SFPU steps'
 * cycles from math to pack; col0=1 takes a quarter of them; sum=CB packs
 * every tile a second time (fp32 here); a broadcast operand is unpacked in
 * part. */
static void test_pchain_cycles(void **st)
{
    (void)st;
    double e = A.sfpu_exp_tile_cycles, el = A.eltwise_tile_cycles, sum = 4096.0 / A.pack_bpc;
    NEAR(op_cycles("    pchain a=0 out=3 cols=12 {\n      sfpu op=exp\n    }\n", 12), two_chunks(e, 0), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 cols=12 pack=1 {\n      sfpu op=exp\n    }\n", 12), two_chunks(0, e), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 cols=12 pack=1 {\n      eltwise op=add b=0\n      sfpu op=exp\n    }\n", 12),
         two_chunks_u(2, el, e), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 cols=12 col0=1 {\n      sfpu op=exp\n    }\n", 12), two_chunks(e / 4, 0), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 cols=12 pack=1 col0=1 {\n      sfpu op=exp\n    }\n", 12),
         two_chunks(0, e / 4), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 rows=2 cols=6 sum=4 {\n      sfpu op=neg\n    }\n", 12),
         two_chunks(el, sum), 1e-6);
    /* a broadcast operand: the unpacker reads a column broadcast's faces 0
       and 2 (half a tile per tile of the block), a scalar's face 0 (a
       quarter), a row broadcast's upper faces twice (a whole tile) */
    double bc = A.bcast_tile_cycles;
    NEAR(op_cycles("    pchain a=0 out=3 rows=2 cols=6 {\n      eltwise op=sub b=0 bcast=col\n    }\n", 12),
         two_chunks_u(1.5, bc, 0), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 rows=2 cols=6 {\n      eltwise op=sub b=0 bcast=scalar\n    }\n", 12),
         two_chunks_u(1.25, bc, 0), 1e-6);
    NEAR(op_cycles("    pchain a=0 out=3 rows=2 cols=6 {\n      eltwise op=sub b=0 bcast=row\n    }\n", 12),
         two_chunks_u(2, bc, 0), 1e-6);
    NEAR(op_cycles("    eltwise op=sub a=0 b=0 out=3 rows=2 cols=6 bcast=col\n", 12), two_chunks_u(1.5, bc, 0), 1e-6);
}

/* A pchain whose exp runs on the pack thread lets the next op's math start
 * while pack still takes the exponentials; on math it waits for them.
 * CBs 0 and 1 are filled (8 tiles each), then pchain a=0 (exp, on pack or
 * math) and pchain a=1 (exp on math), one chunk each. */
static double overlap_cycles(bool on_pack)
{
    char text[2048];
    snprintf(text, sizeof text,
             "program p\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=fp32 pages=8\n  cb 1 format=fp32 pages=8\n"
             "  cb 2 format=fp32 pages=8\n  cb 3 format=fp32 pages=8\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=8\n    fill out=0 n=8 scalar=1\n    cb_push cb=0 n=8\n"
             "    cb_reserve cb=1 n=8\n    fill out=1 n=8 scalar=2\n    cb_push cb=1 n=8\n"
             "    cb_wait cb=0 n=8\n    cb_wait cb=1 n=8\n"
             "    cb_reserve cb=2 n=8\n    cb_reserve cb=3 n=8\n"
             "    pchain a=0 out=2 cols=8 pack=%d {\n      sfpu op=exp\n    }\n"
             "    pchain a=1 out=3 cols=8 {\n      sfpu op=exp\n    }\n"
             "    cb_push cb=2 n=8\n    cb_push cb=3 n=8\n"
             "  }\n"
             "}\n",
             on_pack ? 1 : 0);
    return cycles_of(text);
}

static void test_pchain_overlap(void **st)
{
    (void)st;
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles, el = A.eltwise_tile_cycles;
    double e = A.sfpu_exp_tile_cycles, fp = 8 * 4096.0 / A.pack_bpc;
    /* the two fills (test_sim_chain.c): the second's math overlaps the
       first's pack */
    double fm = 8 * el + ho;
    double t0 = fmax(fm + fp + h, 2 * fm) + fp + h;
    double u1 = 8 * 4096.0 / A.unpack_bpc, u2 = 8 * 4096.0 / A.unpack_bpc;
    for (int on_pack = 0; on_pack < 2; on_pack++) {
        double math1 = toy_math_end(t0, t0, u1, on_pack ? 0 : 8 * e, 8) + ho;
        double pack1 = math1 + fp + (on_pack ? 8 * e : 0);
        double math2 = toy_math_end(math1, t0 + u1, u2, 8 * e, 8) + ho;
        double pack2 = fmax(pack1, math2) + fp;
        NEAR(overlap_cycles(on_pack), A.kernel_launch_cycles + pack2 + 2 * h, 1e-6);
    }
    /* on the pack thread the first exponentials overlap the second's */
    assert_true(overlap_cycles(true) < overlap_cycles(false));
}

/* rowmax over rows x cols tiles: every input tile unpacked and pooled at
 * reduce_block_tile_cycles, one tile packed per row; seeded, one more tile
 * unpacked and one element-wise pass per row. One chunk: 2 rows. */
static void test_rowmax_cycles(void **st)
{
    (void)st;
    double h = A.cb_handshake_cycles, ho = A.dst_handoff_cycles, t0 = fill_done();
    for (int seeded = 0; seeded < 2; seeded++) {
        double u = (12 + (seeded ? 2 : 0)) * 4096.0 / A.unpack_bpc;
        double m = 12 * A.reduce_block_tile_cycles + (seeded ? 2 * A.eltwise_tile_cycles : 0);
        double p = 2 * 4096.0 / A.pack_bpc;
        /* the pool follows the unpacker over the 12 input tiles */
        double want = A.kernel_launch_cycles + toy_math_end(t0, t0, u, m, 12) + ho + p + h;
        NEAR(op_cycles(seeded ? "    rowmax a=0 out=3 rows=2 cols=6 b=0 at_b=10\n" : "    rowmax a=0 out=3 rows=2 cols=6\n", 2),
             want, 1e-6);
    }
}

/* ---- values ------------------------------------------------------------------------ */

/* exp((a - b's column 0) * 0.5) over 2x3 tiles with its rows summed into
 * S, once into a new CB (O) and once in place over the input (I, written
 * out from the input's CB). */
static const char *PCHAIN_PROG =
    "program values\n"
    "tensor A rows=64 cols=96 format=fp32 role=input seed=1\n"
    "tensor B rows=64 cols=32 format=fp32 role=input seed=2\n"
    "tensor O rows=64 cols=96 format=fp32 role=output\n"
    "tensor I rows=64 cols=96 format=fp32 role=output\n"
    "tensor S rows=64 cols=32 format=fp32 role=output\n"
    "tensor T rows=64 cols=32 format=fp32 role=output\n"
    "class c x0=0 y0=0 x1=0 y1=0 {\n"
    "  cb 0 format=fp32 pages=6\n  cb 1 format=fp32 pages=2\n  cb 2 format=fp32 pages=6\n"
    "  cb 3 format=fp32 pages=2\n  cb 4 format=fp32 pages=2\n  cb 5 format=fp32 pages=2\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=6\n    read tensor=A row=0 col=0 rows=2 cols=3 cb=0\n"
    "    cb_reserve cb=1 n=2\n    read tensor=B row=0 col=0 rows=2 cb=1\n"
    "    read_barrier\n    cb_push cb=0 n=6\n    cb_push cb=1 n=2\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=6\n    cb_wait cb=1 n=2\n"
    "    cb_reserve cb=2 n=6\n    cb_reserve cb=3 n=2\n    cb_reserve cb=4 n=2\n"
    "    pchain a=0 out=2 rows=2 cols=3 pack=1 scale=0.5 sum=3 {\n"
    "      eltwise op=sub b=1 bcast=col\n      sfpu op=exp\n    }\n"
    "    pchain a=0 out=0 rows=2 cols=3 front=1 scale=0.5 sum=4 {\n"
    "      eltwise op=sub b=1 bcast=col\n      sfpu op=exp\n    }\n"
    "    cb_reserve cb=5 n=2\n"
    "    pchain a=1 out=5 rows=2 cols=1 sum=4 sum_acc=1 {\n      sfpu op=neg\n    }\n"
    "    cb_push cb=2 n=6\n    cb_push cb=3 n=2\n    cb_push cb=4 n=2\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=2 n=6\n    write cb=2 tensor=O row=0 col=0 rows=2 cols=3\n"
    "    cb_wait cb=3 n=2\n    write cb=3 tensor=S row=0 col=0 rows=2\n"
    "    cb_wait cb=4 n=2\n    write cb=4 tensor=T row=0 col=0 rows=2\n"
    "    write_barrier\n"
    "  }\n"
    "}\n"
    "class d x0=1 y0=0 x1=1 y1=0 {\n"
    "  cb 0 format=fp32 pages=6\n  cb 1 format=fp32 pages=2\n  cb 4 format=fp32 pages=2\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=6\n    read tensor=A row=0 col=0 rows=2 cols=3 cb=0\n"
    "    cb_reserve cb=1 n=2\n    read tensor=B row=0 col=0 rows=2 cb=1\n"
    "    read_barrier\n    cb_push cb=0 n=6\n    cb_push cb=1 n=2\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=6\n    cb_wait cb=1 n=2\n    cb_reserve cb=4 n=2\n"
    "    pchain a=0 out=0 rows=2 cols=3 front=1 scale=0.5 sum=4 {\n"
    "      eltwise op=sub b=1 bcast=col\n      sfpu op=exp\n    }\n"
    "    cb_push cb=4 n=2\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=4 n=2\n    write_barrier\n"
    "    cb_wait cb=0 n=6\n    write cb=0 tensor=I row=0 col=0 rows=2 cols=3\n    write_barrier\n"
    "  }\n"
    "}\n";

/* Element (i, j) of 2x3 tiles of 96 columns: exp((a - b_i0) * 0.5). */
static float pexp(const float *a, const float *b, int i, int j)
{
    float d = a[i * 96 + j] - b[i * 32];
    return num_exp_approx(d * 0.5f);
}

static void test_pchain_values(void **st)
{
    (void)st;
    sim_options o = {.keep_tensors = true};
    sim_result *r = run_ok(PCHAIN_PROG, &o);
    const float *a = r->tensor_data[0], *b = r->tensor_data[1], *out = r->tensor_data[2], *in = r->tensor_data[3];
    const float *sum = r->tensor_data[4], *tsum = r->tensor_data[5];
    int64_t wrong = 0, wrong_in = 0, wrong_sum = 0, wrong_acc = 0, distinct = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 96; j++) {
            float v = pexp(a, b, i, j);
            wrong += memcmp(&v, &out[i * 96 + j], sizeof v) != 0;
            wrong_in += memcmp(&v, &in[i * 96 + j], sizeof v) != 0;
            distinct += v != pexp(a, b, i, 0);
        }
    /* the row sums: per element of the row's tile, its three tiles added
       in order (the first overwriting); T adds -b to the same sums */
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 32; j++) {
            float s = pexp(a, b, i, j);
            s += pexp(a, b, i, j + 32);
            s += pexp(a, b, i, j + 64);
            float t = s + -b[i * 32 + j];
            wrong_sum += memcmp(&s, &sum[i * 32 + j], sizeof s) != 0;
            wrong_acc += memcmp(&t, &tsum[i * 32 + j], sizeof t) != 0;
        }
    assert_int_equal(wrong, 0);
    assert_int_equal(wrong_in, 0);
    assert_int_equal(wrong_sum, 0);
    assert_int_equal(wrong_acc, 0);
    assert_true(distinct > 64 * 96 / 2);
    sim_result_free(r);
}

/* rowmax over a 2 x 4 tile block stored in 2 x 2 sub-blocks (sub-block
 * (0, 0), then (0, 1); rows 2 tiles apart inside one), seeded with M. */
static const char *ROWMAX_PROG =
    "program rowmax\n"
    "tensor A rows=64 cols=128 format=fp32 role=input seed=1\n"
    "tensor M rows=64 cols=32 format=fp32 role=input seed=2\n"
    "tensor R rows=64 cols=32 format=fp32 role=output\n"
    "class c x0=0 y0=0 x1=0 y1=0 {\n"
    "  cb 0 format=fp32 pages=8\n  cb 1 format=fp32 pages=2\n  cb 2 format=fp32 pages=2\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=8\n"
    "    read tensor=A row=0 col=0 rows=2 cols=2 cb=0\n"
    "    read tensor=A row=0 col=2 rows=2 cols=2 cb=0 at=4\n"
    "    cb_reserve cb=1 n=2\n    read tensor=M row=0 col=0 rows=2 cb=1\n"
    "    read_barrier\n    cb_push cb=0 n=8\n    cb_push cb=1 n=2\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=8\n    cb_wait cb=1 n=2\n    cb_reserve cb=2 n=2\n"
    "    rowmax a=0 out=2 rows=2 cols=4 rs=2 bw=2 bs=4 b=1\n"
    "    cb_push cb=2 n=2\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=2 n=2\n    write cb=2 tensor=R row=0 col=0 rows=2\n    write_barrier\n"
    "  }\n"
    "}\n";

static void test_rowmax_values(void **st)
{
    (void)st;
    sim_options o = {.keep_tensors = true};
    sim_result *r = run_ok(ROWMAX_PROG, &o);
    const float *a = r->tensor_data[0], *m = r->tensor_data[1], *res = r->tensor_data[2];
    int64_t wrong = 0, seeded = 0;
    for (int i = 0; i < 64; i++) {
        float v = a[i * 128];
        for (int j = 1; j < 128; j++)
            v = fmaxf(v, a[i * 128 + j]);
        seeded += m[i * 32] > v;
        v = fmaxf(v, m[i * 32]);
        wrong += memcmp(&v, &res[i * 32], sizeof v) != 0;
        for (int j = 1; j < 32; j++)
            wrong += res[i * 32 + j] != 0.0f;
    }
    assert_int_equal(wrong, 0);
    (void)seeded;
    sim_result_free(r);
}

/* ---- text form and validation ------------------------------------------------------- */

static void test_pchain_round_trip(void **st)
{
    (void)st;
    char *err = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&err, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    df_program *p = df_parse("v.df", PCHAIN_PROG, strlen(PCHAIN_PROG), &d);
    df_program *p2 = df_parse("r.df", ROWMAX_PROG, strlen(ROWMAX_PROG), &d);
    assert_non_null(p);
    assert_non_null(p2);
    lm_buf once = {0}, twice = {0};
    df_print(&once, p);
    df_print(&once, p2);
    assert_non_null(strstr(lm_buf_str(&once), "    pchain a=0 out=2 rows=2 cols=3 pack=1 scale=0.5 sum=3 {\n"
                                                "      eltwise op=sub b=1 bcast=col\n"
                                                "      sfpu op=exp\n    }\n"));
    assert_non_null(strstr(lm_buf_str(&once), "    rowmax a=0 out=2 rows=2 cols=4 rs=2 bw=2 bs=4 b=1\n"));
    /* the printed programs parse back to the same text */
    lm_buf one = {0};
    df_print(&one, p);
    df_program *q = df_parse("once.df", lm_buf_str(&one), one.len, &d);
    assert_non_null(q);
    df_print(&twice, q);
    assert_string_equal(lm_buf_str(&one), lm_buf_str(&twice));
    fclose(f);
    free(err);
    lm_buf_free(&once);
    lm_buf_free(&one);
    lm_buf_free(&twice);
    df_free(p);
    df_free(p2);
    df_free(q);
}

static const char *prog_with(const char *ops)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "program p\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=4\n"
             "  cb 3 format=fp32 pages=4\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=4\n    fill out=0 n=4\n    cb_push cb=0 n=4\n"
             "    cb_wait cb=0 n=4\n    cb_reserve cb=3 n=4\n"
             "%s"
             "  }\n"
             "}\n",
             ops);
    return text;
}

static void test_pchain_errors(void **st)
{
    (void)st;
    assert_rejected(prog_with("    rowmax a=0 out=3 rows=2 cols=2 rs=3\n"), "rowmax a: pages 0..4 of CB 0, which has 4 pages");
    assert_rejected(prog_with("    rowmax a=0 out=3 rows=2 cols=2 b=0 at_b=3\n"), "rowmax b: pages 3..4 of CB 0");
    assert_rejected(prog_with("    pchain a=0 out=3 cols=4 sum=7 {\n      sfpu op=exp\n    }\n"),
                    "CB 7 is not declared in class 'c'");
    assert_rejected(prog_with("    pchain a=0 out=3 cols=4 sum=3 {\n      sfpu op=exp\n    }\n"),
                    "pchain: sum=3 is its output CB");
    assert_rejected(prog_with("    pchain a=0 out=3 rows=2 cols=2 sum=0 at_sum=3 {\n      sfpu op=exp\n    }\n"),
                    "pchain sum: pages 3..4 of CB 0");
    assert_rejected(prog_with("    pchain a=0 out=3 cols=4 {\n    }\n"), "a chain needs at least one step");
    /* in place: the pages must be at the front (pushed, waited for) */
    assert_rejected(prog_with("    pchain a=0 out=3 cols=4 front=1 {\n      sfpu op=neg\n    }\n"),
                    "'pchain' writes page 0 in place at the front of CB 3, which has 0 pages there");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pchain_cycles),
        cmocka_unit_test(test_pchain_overlap),
        cmocka_unit_test(test_rowmax_cycles),
        cmocka_unit_test(test_pchain_values),
        cmocka_unit_test(test_rowmax_values),
        cmocka_unit_test(test_pchain_round_trip),
        cmocka_unit_test(test_pchain_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
