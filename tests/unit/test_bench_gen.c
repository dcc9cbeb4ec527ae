/* test_bench_gen.c - what the model-quality benchmark generates instead of
 * listing (bench/generate.c): shapes drawn from `form` lines (the same seed
 * draws the same shapes, a shorter draw is the start of a longer one,
 * every value lies where its form says, log-uniform draws put equal mass
 * in every octave), the suite lines and their errors, and descriptions
 * derived from a shipped one (the derived YAML loads, and differs from its
 * base exactly where the derivation says). Nothing here simulates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

typedef struct drawn {
    bool ok;
    bench_suite s;
    char *errs;
    lm_arena ar;
} drawn;

/* Parse text as a suite and draw n shapes per operator (-1: its own). */
static void draw(drawn *p, const char *text, uint64_t seed, int64_t n)
{
    size_t len = 0;
    FILE *f = open_memstream(&p->errs, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    lm_arena_init(&p->ar);
    p->ok = bench_suite_parse(&p->s, "t.suite", text, strlen(text), &p->ar, &d) &&
            bench_suite_draw(&p->s, seed, n, &p->ar, &d);
    fclose(f);
}

static void drawn_free(drawn *p)
{
    free(p->errs);
    lm_arena_free(&p->ar);
}

static int64_t value(const bench_suite_shape *sh, const char *name)
{
    for (int i = 0; i < sh->nsizes; i++)
        if (!strcmp(sh->sizes[i].name, name))
            return sh->sizes[i].value;
    for (int i = 0; i < sh->nconsts; i++)
        if (!strcmp(sh->consts[i].name, name))
            return sh->consts[i].value;
    fail_msg("the shape '%s' has no %s", sh->label, name);
    return -1;
}

static bool has(const bench_suite_shape *sh, const char *name)
{
    for (int i = 0; i < sh->nsizes; i++)
        if (!strcmp(sh->sizes[i].name, name))
            return true;
    for (int i = 0; i < sh->nconsts; i++)
        if (!strcmp(sh->consts[i].name, name))
            return true;
    return false;
}

static const char *GEMM = "operator gemm\n"
                          "kernel k.py\n"
                          "flops 2*M*N*K\n"
                          "shape M=7 N=8 K=9\n"
                          "draw 30\n"
                          "limit M*N*K <= 1000000000\n"
                          "form square M=log(32,1000) N=M K=M\n"
                          "form skinny M=log(1,16) N=log(100,4000) K=log(100,4000)\n"
                          "form aligned M=log(64,2048,64) N=log(64,2048,64) K=pick(128,256)\n"
                          "operator decode\n"
                          "kernel d.py\n"
                          "flops B*H\n"
                          "draw 12\n"
                          "form gqa B=log(1,8) _G=pick(4,8) HKV=pick(1,2) H=HKV*_G const SPLIT=pick(0,1)\n";

static void same_seed_same_shapes(void **state)
{
    (void)state;
    drawn a, b, c, d;
    draw(&a, GEMM, 7, -1);
    draw(&b, GEMM, 7, -1);
    draw(&c, GEMM, 8, -1);
    draw(&d, GEMM, 7, 5);
    assert_true(a.ok && b.ok && c.ok && d.ok);
    /* the listed shape first, then the draw line's 30 */
    assert_int_equal(a.s.ops[0].nshapes, 31);
    assert_string_equal(a.s.ops[0].shapes[0].label, "M=7 N=8 K=9");
    assert_int_equal(a.s.ops[1].nshapes, 12);
    int differ = 0;
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < a.s.ops[o].nshapes; i++) {
            assert_string_equal(a.s.ops[o].shapes[i].label, b.s.ops[o].shapes[i].label);
            differ += strcmp(a.s.ops[o].shapes[i].label, c.s.ops[o].shapes[i].label) != 0;
        }
    /* another seed, other shapes (all but the listed one could coincide only by chance) */
    assert_true(differ >= 30);
    /* --draws 5: the first five of the longer draw */
    assert_int_equal(d.s.ops[0].nshapes, 6);
    assert_int_equal(d.s.ops[1].nshapes, 5);
    for (int o = 0; o < 2; o++)
        for (int i = 0; i < d.s.ops[o].nshapes; i++)
            assert_string_equal(d.s.ops[o].shapes[i].label, a.s.ops[o].shapes[i].label);
    drawn_free(&a);
    drawn_free(&b);
    drawn_free(&c);
    drawn_free(&d);
}

static void shapes_follow_their_forms(void **state)
{
    (void)state;
    drawn a;
    draw(&a, GEMM, 3, -1);
    assert_true(a.ok);
    const bench_suite_op *g = &a.s.ops[0];
    int odd = 0;
    for (int i = 1; i < g->nshapes; i++) {
        const bench_suite_shape *sh = &g->shapes[i];
        int64_t m = value(sh, "M"), n = value(sh, "N"), k = value(sh, "K");
        assert_true(m * n * k <= 1000000000); /* the limit */
        switch ((i - 1) % 3) {                /* shape i of the draw uses form i mod 3 */
        case 0:
            assert_true(m >= 32 && m <= 1000);
            assert_true(n == m && k == m);
            odd += m % 32 != 0;
            break;
        case 1:
            assert_true(m >= 1 && m <= 16);
            assert_true(n >= 100 && n <= 4000 && k >= 100 && k <= 4000);
            break;
        default:
            assert_true(m % 64 == 0 && n % 64 == 0 && m >= 64 && m <= 2048 && n >= 64 && n <= 2048);
            assert_true(k == 128 || k == 256);
        }
        for (int j = 1; j < i; j++) /* never the same shape twice */
            assert_string_not_equal(g->shapes[j].label, sh->label);
    }
    /* log(32,1000) is odd in 31 of every 32 values: some of the ten squares are */
    assert_true(odd >= 5);
    const bench_suite_op *dc = &a.s.ops[1];
    for (int i = 0; i < dc->nshapes; i++) {
        const bench_suite_shape *sh = &dc->shapes[i];
        int64_t h = value(sh, "H"), hkv = value(sh, "HKV");
        assert_true(h == 4 * hkv || h == 8 * hkv);
        assert_true(value(sh, "SPLIT") == 0 || value(sh, "SPLIT") == 1);
        assert_int_equal(sh->nconsts, 1);
        assert_false(has(sh, "_G")); /* a helper is drawn, not passed */
        assert_non_null(strstr(sh->label, "SPLIT="));
    }
    drawn_free(&a);
}

/* Log-uniform: every octave [2^k, 2^(k+1)) of [1, 1024) gets a tenth of the
 * draws; the bounds are never left. */
static void log_uniform_octaves(void **state)
{
    (void)state;
    uint64_t rng = 42;
    int count[10] = {0};
    const int n = 40000;
    for (int i = 0; i < n; i++) {
        int64_t v = bench_draw_log(&rng, 1, 1023);
        assert_true(v >= 1 && v <= 1023);
        int k = 0;
        while ((v >> (k + 1)) > 0)
            k++;
        count[k]++;
    }
    /* binomial(n, 1/10): sd = sqrt(n * 0.09) = 60; allow 6 sd */
    for (int k = 0; k < 10; k++)
        assert_true(abs(count[k] - n / 10) <= 360);
    /* a one-value range, and the range's end reachable */
    assert_int_equal(bench_draw_log(&rng, 5, 5), 5);
    bool top = false;
    for (int i = 0; i < 200 && !top; i++)
        top = bench_draw_log(&rng, 2, 3) == 3;
    assert_true(top);
}

/* One bad suite or draw: the first error message, exactly. */
static void expect_error(const char *text, const char *msg)
{
    drawn p;
    draw(&p, text, 1, -1);
    assert_false(p.ok);
    char *nl = strchr(p.errs, '\n');
    if (nl)
        *nl = 0;
    assert_string_equal(p.errs, msg);
    drawn_free(&p);
}

static void draw_errors(void **state)
{
    (void)state;
    const char *op = "operator g\nkernel k.py\nflops M\n";
    char buf[512];
    snprintf(buf, sizeof buf, "%sdraw 3\nform f M=log(5,2)\n", op);
    expect_error(buf, "t.suite:5:10: error: expected log(LO,HI) or log(LO,HI,ALIGN) with 1 <= LO <= HI and "
                      "ALIGN >= 1, got 'log(5,2)'");
    snprintf(buf, sizeof buf, "%sdraw 3\nform f M=pick()\n", op);
    expect_error(buf, "t.suite:5:10: error: expected pick(V,...) with up to 64 integers, got 'pick()'");
    snprintf(buf, sizeof buf, "%sdraw 3\nform f M=N N=4\n", op);
    expect_error(buf, "t.suite:5:10: error: 'N' names N, which the form does not draw before it");
    snprintf(buf, sizeof buf, "%sdraw 3\nform f M=4 M=5\n", op);
    expect_error(buf, "t.suite:5:12: error: 'M' is drawn twice");
    snprintf(buf, sizeof buf, "%sform f M=4\n", op);
    expect_error(buf, "t.suite:1:10: error: operator 'g' has 'form' lines but no 'draw N'");
    snprintf(buf, sizeof buf, "%sdraw 2\n", op);
    expect_error(buf, "t.suite:1:10: error: operator 'g' draws shapes but has no 'form' line");
    snprintf(buf, sizeof buf, "%sdraw 0\n", op);
    expect_error(buf, "t.suite:4:1: error: expected 'draw N' with N >= 1");
    snprintf(buf, sizeof buf, "%sdraw 2\nlimit M < 3\nform f M=4\n", op);
    expect_error(buf, "t.suite:5:6: error: expected 'limit EXPR <= N'");
    /* at draw time: a size below 1, and a limit no new shape meets */
    snprintf(buf, sizeof buf, "%sdraw 2\nform f _A=pick(1,2) M=_A-2\n", op);
    expect_error(buf, "t.suite:5:1: error: operator 'g', form 'f': size M was drawn as -1; sizes are at least 1");
    snprintf(buf, sizeof buf, "%sdraw 2\nlimit M <= 10\nform f M=log(20,30)\n", op);
    expect_error(buf, "t.suite:6:1: error: operator 'g', form 'f': no new shape within the limit 'M <= 10' in "
                      "1000 draws");
    /* two shapes asked of a form that has one */
    snprintf(buf, sizeof buf, "%sdraw 2\nform f M=3\n", op);
    expect_error(buf, "t.suite:5:1: error: operator 'g', form 'f': no new shape in 1000 draws (the form may have "
                      "fewer shapes than asked for)");
    expect_error("derive x wormhole_n150 compute=0\n",
                 "t.suite:1:24: error: a factor is a number in [1/64, 64], got '0'");
    expect_error("derive x wormhole_n150 grid=4\n", "t.suite:1:24: error: expected grid=WxH with W and H in 1..64, "
                                                   "got '4'");
    expect_error("derive x wormhole_n150 speed=2\n",
                 "t.suite:1:24: error: expected compute=F, dram=F, l1=F or grid=WxH, got 'speed=2'");
    expect_error("derive x wormhole_n150 l1=100\n",
                 "t.suite:1:24: error: a factor is a number in [1/64, 64], got '100'");
    expect_error("derive x\n",
                 "t.suite:1:1: error: expected 'derive NAME FROM [compute=F] [dram=F] [l1=F] [grid=WxH]'");
}

/* ---- derived descriptions --------------------------------------------------- */

static arch_desc *load(const char *name)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = arch_load(name, &d);
    assert_non_null(a);
    return a;
}

static arch_desc *derive(const bench_derive *dv)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = bench_derive_load(dv, &d);
    assert_non_null(a);
    return a;
}

/* A derivation the loader refuses: no description, and an error that
 * contains `what`. */
static void derive_refused(const bench_derive *dv, const char *what)
{
    char *errs = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&errs, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    arch_desc *a = bench_derive_load(dv, &d);
    fclose(f);
    assert_null(a);
    if (!strstr(errs, what))
        fail_msg("expected '%s' in: %s", what, errs);
    free(errs);
}

/* Every figure of b and a is equal except those the derivation changes:
 * checked field by field for the ones it may change, and for the rest by
 * comparing the two with those fields copied over. */
static void same_elsewhere(const arch_desc *base, const arch_desc *der)
{
    arch_desc x;
    memcpy(&x, der, sizeof x); /* padding too: both were allocated zeroed */
    /* what a derivation may change */
    x.name = base->name;
    x.file = base->file;
    x.description = base->description;
    x.grid_w = base->grid_w;
    x.grid_h = base->grid_h;
    memcpy(x.core_noc_x, base->core_noc_x, sizeof x.core_noc_x);
    memcpy(x.core_noc_y, base->core_noc_y, sizeof x.core_noc_y);
    x.noc_w = base->noc_w;
    x.noc_h = base->noc_h;
    x.fpu_flops_per_cycle = base->fpu_flops_per_cycle;
    memcpy(x.matmul_tile_cycles, base->matmul_tile_cycles, sizeof x.matmul_tile_cycles);
    x.eltwise_tile_cycles = base->eltwise_tile_cycles;
    x.bcast_tile_cycles = base->bcast_tile_cycles;
    x.reduce_tile_cycles = base->reduce_tile_cycles;
    x.reduce_block_tile_cycles = base->reduce_block_tile_cycles;
    x.sfpu_exp_tile_cycles = base->sfpu_exp_tile_cycles;
    x.sfpu_exp_exact_tile_cycles = base->sfpu_exp_exact_tile_cycles;
    x.sfpu_recip_tile_cycles = base->sfpu_recip_tile_cycles;
    x.sfpu_sqrt_tile_cycles = base->sfpu_sqrt_tile_cycles;
    x.sfpu_rsqrt_tile_cycles = base->sfpu_rsqrt_tile_cycles;
    x.sfpu_sigmoid_tile_cycles = base->sfpu_sigmoid_tile_cycles;
    x.unpack_bpc = base->unpack_bpc;
    x.pack_bpc = base->pack_bpc;
    x.dram_bank_read_bpc = base->dram_bank_read_bpc;
    x.dram_bank_write_bpc = base->dram_bank_write_bpc;
    assert_memory_equal(&x, base, sizeof x);
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-6 * fabs(b); }

static void derived_descriptions(void **state)
{
    (void)state;
    arch_desc *wh = load("wormhole_n150");
    /* compute x2, DRAM x0.5, grid 10x9: two more NoC columns and one more row */
    bench_derive dv = {.name = "wh_derived", .from = "wormhole_n150", .compute = 2, .dram = 0.5, .grid_w = 10,
                       .grid_h = 9};
    arch_desc *a = derive(&dv);
    assert_string_equal(a->name, "wh_derived");
    assert_non_null(strstr(a->description, "derived by loomc bench from wormhole_n150"));
    assert_int_equal(a->grid_w, 10);
    assert_int_equal(a->grid_h, 9);
    assert_int_equal(a->noc_w, wh->noc_w + 2);
    assert_int_equal(a->noc_h, wh->noc_h + 1);
    for (int i = 0; i < wh->grid_w; i++)
        assert_int_equal(a->core_noc_x[i], wh->core_noc_x[i]);
    assert_int_equal(a->core_noc_x[8], wh->noc_w);
    assert_int_equal(a->core_noc_x[9], wh->noc_w + 1);
    assert_int_equal(a->core_noc_y[8], wh->noc_h);
    assert_int_equal(a->fpu_flops_per_cycle, 2 * wh->fpu_flops_per_cycle);
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        assert_true(near(a->matmul_tile_cycles[f], wh->matmul_tile_cycles[f] / 2));
    assert_true(near(a->eltwise_tile_cycles, wh->eltwise_tile_cycles / 2));
    assert_true(near(a->sfpu_exp_tile_cycles, wh->sfpu_exp_tile_cycles / 2));
    assert_true(near(a->sfpu_sigmoid_tile_cycles, wh->sfpu_sigmoid_tile_cycles / 2));
    assert_true(near(a->reduce_tile_cycles, wh->reduce_tile_cycles / 2));
    assert_true(near(a->reduce_block_tile_cycles, wh->reduce_block_tile_cycles / 2));
    assert_true(near(a->unpack_bpc, 2 * wh->unpack_bpc));
    assert_true(near(a->pack_bpc, 2 * wh->pack_bpc));
    assert_true(near(a->dram_bank_read_bpc, wh->dram_bank_read_bpc / 2));
    assert_true(near(a->dram_bank_write_bpc, wh->dram_bank_write_bpc / 2));
    assert_true(near(arch_peak_tflops(a, ARCH_HIFI2), 2 * arch_peak_tflops(wh, ARCH_HIFI2) * 90 / 64));
    same_elsewhere(wh, a);
    arch_free(a);

    /* only a smaller grid: the first NoC positions, the NoC unchanged */
    dv = (bench_derive){.name = "wh_small", .from = "wormhole_n150", .compute = 1, .dram = 1, .grid_w = 4, .grid_h = 2};
    a = derive(&dv);
    assert_int_equal(a->grid_w, 4);
    assert_int_equal(a->grid_h, 2);
    assert_int_equal(a->noc_w, wh->noc_w);
    assert_int_equal(a->core_noc_y[1], wh->core_noc_y[1]);
    assert_true(a->dram_bank_read_bpc == wh->dram_bank_read_bpc);
    same_elsewhere(wh, a);
    arch_free(a);

    /* a smaller L1 (rounded to a byte), everything else as it was; an L1
       smaller than what the firmware reserves is refused by the loader */
    dv = (bench_derive){.name = "wh_small_l1", .from = "wormhole_n150", .compute = 1, .dram = 1, .l1 = 0.7};
    a = derive(&dv);
    assert_int_equal(a->l1_bytes, llround(0.7 * (double)wh->l1_bytes));
    assert_int_equal(a->l1_reserved_bytes, wh->l1_reserved_bytes);
    assert_non_null(strstr(a->description, "L1 x0.7"));
    a->l1_bytes = wh->l1_bytes;
    same_elsewhere(wh, a);
    arch_free(a);
    dv.l1 = 1.0 / 64;
    derive_refused(&dv, "structure.l1.reserved_bytes");

    /* Blackhole keeps its NoC 1 DRAM endpoints */
    arch_desc *bh = load("blackhole_p150");
    dv = (bench_derive){.name = "bh_big", .from = "blackhole_p150", .compute = 1, .dram = 1.5, .grid_w = 16, .grid_h = 12};
    a = derive(&dv);
    assert_int_equal(a->grid_w, 16);
    assert_int_equal(a->num_dram_banks, bh->num_dram_banks);
    assert_memory_equal(a->dram_bank_noc1, bh->dram_bank_noc1, sizeof a->dram_bank_noc1);
    assert_true(near(a->dram_bank_read_bpc, 1.5 * bh->dram_bank_read_bpc));
    same_elsewhere(bh, a);
    arch_free(a);
    arch_free(bh);
    arch_free(wh);
}

/* The chips of a suite: its arch line (`all`: every description on the
 * search path, as arch_list gives them), the default chip without one, the
 * derived chips after them, each once; --arch replaces all of it. */
static void suite_chips(void **state)
{
    (void)state;
    drawn p;
    draw(&p, "arch wormhole_n150 blackhole_p150 wormhole_n150\nderive syn blackhole_p150 dram=2\n"
             "operator g\nkernel k.py\nflops M\nshape M=1\n",
         1, -1);
    assert_true(p.ok);
    const char **chips;
    int n = bench_suite_chips(&p.s, NULL, 0, &chips, &p.ar);
    assert_int_equal(n, 3);
    assert_string_equal(chips[0], "wormhole_n150");
    assert_string_equal(chips[1], "blackhole_p150");
    assert_string_equal(chips[2], "syn");
    static const char *const over[] = {"syn", "wormhole_n300"};
    n = bench_suite_chips(&p.s, over, 2, &chips, &p.ar);
    assert_int_equal(n, 2);
    assert_string_equal(chips[1], "wormhole_n300");
    /* a derived chip is made when it is loaded */
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = bench_chip_load(&p.s, "syn", &d);
    assert_non_null(a);
    assert_string_equal(a->name, "syn");
    arch_free(a);
    drawn_free(&p);

    draw(&p, "arch all\nderive syn wormhole_n150 grid=2x2\noperator g\nkernel k.py\nflops M\nshape M=1\n", 1, -1);
    assert_true(p.ok);
    lm_buf names = {0};
    int nall = arch_list(&names);
    assert_true(nall >= 1);
    n = bench_suite_chips(&p.s, NULL, 0, &chips, &p.ar);
    assert_int_equal(n, nall + 1);
    const char *at = names.s;
    for (int i = 0; i < nall; i++) {
        size_t len = strcspn(at, "\n");
        assert_int_equal(strlen(chips[i]), len);
        assert_memory_equal(chips[i], at, len);
        at += len + 1;
    }
    assert_string_equal(chips[nall], "syn");
    lm_buf_free(&names);
    drawn_free(&p);

    draw(&p, "derive syn wormhole_n150 grid=2x2\noperator g\nkernel k.py\nflops M\nshape M=1\n", 1, -1);
    n = bench_suite_chips(&p.s, NULL, 0, &chips, &p.ar);
    assert_int_equal(n, 2);
    assert_string_equal(chips[0], "wormhole_n150");
    drawn_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_shapes),
        cmocka_unit_test(shapes_follow_their_forms),
        cmocka_unit_test(log_uniform_octaves),
        cmocka_unit_test(draw_errors),
        cmocka_unit_test(derived_descriptions),
        cmocka_unit_test(suite_chips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
