/* test_arch.c - hardware descriptions: the four shipped descriptions load and
 * their derived figures match what the published specifications imply
 * (computed here from first principles), and broken descriptions given as
 * in-memory text produce the documented `file:line:col: error:` messages;
 * docs/arch.md documents exactly the keys of the schema. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"

/* ---- helpers --------------------------------------------------------- */

static arch_desc *load(const char *path)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = arch_load(path, &d);
    if (!a)
        fail_msg("cannot load %s", path);
    assert_int_equal(d.nerrors, 0);
    return a;
}

/* Relative closeness, for figures derived in floating point. */
static void assert_close(double got, double want)
{
    if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
        fail_msg("got %.12g, expected %.12g", got, want);
}

/* 2*32*32*32 FLOP in one tile matmul; the FPU does 4096 FLOP/cycle at LoFi
 * (tenstorrent.md 1.3) and each extra fidelity phase repeats the multiply. */
static double tflops(int cores, double ghz, int phases)
{
    return cores * (4096.0 / phases) * ghz * 1e9 / 1e12;
}

static void check_common_tensix(const arch_desc *a)
{
    /* Tiles: 32x32 elements; bf16 2 bytes each, fp32 4, block floats one
     * (bfp8) or half (bfp4) a byte of mantissa plus one exponent byte per 16. */
    assert_int_equal(a->tile_h, 32);
    assert_int_equal(a->tile_w, 32);
    assert_int_equal(a->tile_bytes[ARCH_BF16], 32 * 32 * 2);
    assert_int_equal(a->tile_bytes[ARCH_FP32], 32 * 32 * 4);
    assert_int_equal(a->tile_bytes[ARCH_BFP8_B], 32 * 32 + 32 * 32 / 16);
    assert_int_equal(a->tile_bytes[ARCH_BFP4_B], 32 * 32 / 2 + 32 * 32 / 16);
    /* The descriptions give the sustained rate: the ideal 2*32^3 FLOP at
     * 4096/phases FLOP/cycle divided by the best measured utilisation (93% on
     * N150, 96% on P150; docs/calibration.md) - never faster than the ideal,
     * and within 10% of it. */
    for (int f = 0; f < ARCH_NFIDELITIES; f++) {
        double ideal = 2.0 * 32 * 32 * 32 * (f + 1) / 4096.0;
        if (a->matmul_tile_cycles[f] < ideal || a->matmul_tile_cycles[f] > ideal / 0.9)
            fail_msg("matmul_tile_cycles[%d] = %g, ideal %g", f, a->matmul_tile_cycles[f], ideal);
    }
    assert_int_equal(a->num_cbs, 32);
    assert_int_equal(a->num_nocs, 2);
    /* Dst: 16 bf16 tiles in full-sync mode, half of that per half. */
    assert_int_equal(a->dst_tiles_half_16b, 16 / 2);
    assert_int_equal(a->dst_tiles_half_32b, 8 / 2);
    /* Every core has a distinct NoC position and no DRAM endpoint sits on one. */
    for (int x = 0; x < a->grid_w; x++)
        for (int y = 0; y < a->grid_h; y++) {
            arch_xy p = arch_core_noc(a, x, y);
            assert_true(p.x >= 0 && p.x < a->noc_w && p.y >= 0 && p.y < a->noc_h);
            for (int b = 0; b < a->num_dram_banks; b++) {
                assert_false(a->dram_bank_noc[b].x == p.x && a->dram_bank_noc[b].y == p.y);
                assert_false(a->dram_bank_noc1[b].x == p.x && a->dram_bank_noc1[b].y == p.y);
            }
            for (int x2 = 0; x2 < a->grid_w; x2++)
                for (int y2 = 0; y2 < a->grid_h; y2++) {
                    arch_xy q = arch_core_noc(a, x2, y2);
                    if (x2 != x || y2 != y)
                        assert_false(p.x == q.x && p.y == q.y);
                }
        }
    /* One packet: 256 data flits of one link width (tenstorrent.md 1.4). */
    assert_int_equal(a->max_packet_bytes, 256 * a->link_bytes_per_cycle);
    assert_true(arch_usable_l1(a) > 0 && arch_usable_l1(a) < a->l1_bytes);
}

/* ---- the shipped descriptions --------------------------------------- */

static void wormhole_n150(void **state)
{
    (void)state;
    arch_desc *a = load("arch/wormhole_n150.yaml");
    assert_string_equal(a->name, "wormhole_n150");
    check_common_tensix(a);
    assert_int_equal(arch_num_cores(a), 8 * 8);
    assert_close(a->clock_ghz, 1.0);
    assert_false(a->dispatch_on_eth);
    /* L1: 1464 KiB, minus MEM_MAP_END 0x8120. */
    assert_int_equal(a->l1_bytes, 1464 * 1024);
    assert_int_equal(arch_usable_l1(a), 1464 * 1024 - 0x8120);
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        assert_close(arch_peak_tflops(a, (arch_fidelity)f), tflops(64, 1.0, f + 1));
    /* The published "FP8 262 TFLOPS" is 64 cores at LoFi. */
    assert_int_equal((int)(arch_peak_tflops(a, ARCH_LOFI) + 0.5), 262);
    /* DRAM: 12 banks sharing 288 GB/s nominal, of which about 92% is achieved. */
    assert_int_equal(a->num_dram_banks, 12);
    double gbs = arch_dram_read_bpc(a) * a->clock_ghz;
    assert_close(gbs, 12 * a->dram_bank_read_bpc);
    assert_true(gbs >= 0.91 * 288 && gbs <= 0.93 * 288);
    assert_true(arch_dram_write_bpc(a) <= arch_dram_read_bpc(a));
    /* Per-core DRAM read saturates near 37 B/cycle, above one link's 32. */
    assert_close(a->core_read_bpc, 37);
    assert_int_equal(a->link_bytes_per_cycle, 256 / 8);
    /* NoC: 10x12 with DRAM columns 0 and 5, both NoCs use the same endpoint. */
    assert_int_equal(a->noc_w, 10);
    assert_int_equal(a->noc_h, 12);
    for (int b = 0; b < a->num_dram_banks; b++) {
        assert_true(a->dram_bank_noc[b].x == 0 || a->dram_bank_noc[b].x == 5);
        assert_int_equal(a->dram_bank_noc1[b].x, a->dram_bank_noc[b].x);
        assert_int_equal(a->dram_bank_noc1[b].y, a->dram_bank_noc[b].y);
    }
    assert_int_equal((int64_t)a->num_dram_banks * a->dram_bank_bytes, (int64_t)12 << 30);
    /* Column 5 is DRAM, so logical column 4 sits at NoC x 6; row 6 is ethernet. */
    arch_xy p = arch_core_noc(a, 4, 5);
    assert_int_equal(p.x, 6);
    assert_int_equal(p.y, 7);
    assert_true(a->mcast_rect && !a->mcast_strided && !a->mcast_lshape);
    assert_int_equal(a->dram_alignment, 32);
    arch_free(a);
}

static void wormhole_n300_matches_n150_but_dispatch(void **state)
{
    (void)state;
    arch_desc *a = load("arch/wormhole_n300.yaml");
    arch_desc *b = load("arch/wormhole_n150.yaml");
    check_common_tensix(a);
    assert_string_equal(a->name, "wormhole_n300");
    assert_true(a->dispatch_on_eth);
    assert_int_equal(arch_num_cores(a), arch_num_cores(b));
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        assert_close(arch_peak_tflops(a, (arch_fidelity)f), arch_peak_tflops(b, (arch_fidelity)f));
    /* One ASIC of two: half of 576 GB/s nominal. */
    assert_close(arch_dram_read_bpc(a), arch_dram_read_bpc(b));
    assert_true(arch_dram_read_bpc(a) * a->clock_ghz <= 576 / 2);
    assert_int_equal(arch_usable_l1(a), arch_usable_l1(b));
    assert_int_equal(memcmp(a->core_noc_x, b->core_noc_x, sizeof a->core_noc_x), 0);
    assert_int_equal(memcmp(a->dram_bank_noc, b->dram_bank_noc, sizeof a->dram_bank_noc), 0);
    arch_free(a);
    arch_free(b);
}

static void check_blackhole(const arch_desc *a)
{
    check_common_tensix(a);
    assert_close(a->clock_ghz, 1.35);
    assert_int_equal(a->noc_w, 17);
    assert_int_equal(a->noc_h, 12);
    assert_int_equal(a->link_bytes_per_cycle, 512 / 8);
    assert_int_equal(a->dram_alignment, 64);
    assert_true(a->mcast_rect && a->mcast_strided && a->mcast_lshape);
    /* 1536 KiB of L1, minus MEM_MAP_END 0x9DE0. */
    assert_int_equal(arch_usable_l1(a), 1536 * 1024 - 0x9DE0);
    /* 8 banks; 500 of 512 GB/s achieved with one reader per bank. */
    assert_int_equal(a->num_dram_banks, 8);
    double gbs = arch_dram_read_bpc(a) * a->clock_ghz;
    assert_true(gbs >= 0.97 * 512 && gbs <= 512);
    /* Per-bank rate is one reader's 46.3 B/cycle: 500 GB/s / 8 / 1.35 GHz. */
    assert_true(fabs(a->dram_bank_read_bpc - 500.0 / 8 / 1.35) < 0.05);
    /* NoC 0 and NoC 1 use different endpoints of the same channel column. */
    bool differ = false;
    for (int b = 0; b < a->num_dram_banks; b++) {
        assert_int_equal(a->dram_bank_noc1[b].x, a->dram_bank_noc[b].x);
        differ |= a->dram_bank_noc1[b].y != a->dram_bank_noc[b].y;
    }
    assert_true(differ);
}

static void blackhole_p150(void **state)
{
    (void)state;
    arch_desc *a = load("arch/blackhole_p150.yaml");
    check_blackhole(a);
    assert_int_equal(a->grid_w, 13);
    assert_int_equal(a->grid_h, 10);
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        assert_close(arch_peak_tflops(a, (arch_fidelity)f), tflops(130, 1.35, f + 1));
    /* Columns 8 and 9 are not Tensix: logical column 7 sits at NoC x 10. */
    assert_int_equal(arch_core_noc(a, 7, 0).x, 10);
    assert_int_equal(arch_core_noc(a, 0, 0).y, 2);
    arch_free(a);
}

static void blackhole_p150_fw19(void **state)
{
    (void)state;
    arch_desc *a = load("arch/blackhole_p150_fw19.yaml");
    check_blackhole(a);
    assert_int_equal(arch_num_cores(a), 11 * 10);
    /* The published 332 BF16 / 664 BLOCKFP8 TFLOPS count all 120 enabled
     * Tensix (11x10 compute plus a 1x10 dispatch column). */
    int enabled = (a->grid_w + 1) * a->grid_h;
    assert_int_equal(enabled, 120);
    assert_int_equal((int)(tflops(enabled, a->clock_ghz, 2) + 0.5), 332);
    assert_int_equal((int)(tflops(enabled, a->clock_ghz, 1) + 0.5), 664);
    assert_close(arch_peak_tflops(a, ARCH_HIFI2), tflops(110, 1.35, 2));
    arch_free(a);
}

static void print_shows_derived_figures(void **state)
{
    (void)state;
    arch_desc *a = load("arch/wormhole_n150.yaml");
    lm_buf b = {0};
    arch_print(&b, a);
    const char *s = lm_buf_str(&b);
    assert_non_null(strstr(s, "8 x 8 = 64 cores"));
    char want[128];
    snprintf(want, sizeof want, "LoFi %.1f, HiFi2 %.1f, HiFi3 %.1f, HiFi4 %.1f", tflops(64, 1, 1),
             tflops(64, 1, 2), tflops(64, 1, 3), tflops(64, 1, 4));
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof want, "read %.1f B/cycle = %.1f GB/s", 12 * 22.25, 12 * 22.25);
    assert_non_null(strstr(s, want));
    snprintf(want, sizeof want, "usable L1 per core           %d B", 1499136 - 33056);
    assert_non_null(strstr(s, want));
    lm_buf_free(&b);
    arch_print_json(&b, a);
    assert_non_null(strstr(lm_buf_str(&b), "\"cores\": 64"));
    lm_buf_free(&b);
    arch_free(a);
}

static void lookup_by_name(void **state)
{
    (void)state;
    setenv("LOOMC_ARCH_PATH", "/nonexistent:arch", 1);
    arch_desc *a = load("blackhole_p150");
    assert_string_equal(a->name, "blackhole_p150");
    assert_non_null(strstr(a->file, "blackhole_p150.yaml"));
    arch_free(a);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    assert_null(arch_load("blackhole_p15O", &d));
    fclose(f);
    assert_non_null(strstr(text, "unknown hardware description 'blackhole_p15O'"));
    assert_non_null(strstr(text, "did you mean 'blackhole_p150'?"));
    assert_non_null(strstr(text, "wormhole_n300"));
    free(text);

    lm_buf b = {0};
    assert_true(arch_list(&b) >= 4);
    assert_non_null(strstr(lm_buf_str(&b), "blackhole_p150_fw19\n"));
    lm_buf_free(&b);
}

static void names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < ARCH_NFORMATS; i++) {
        arch_format f;
        assert_true(arch_format_parse(arch_format_name((arch_format)i), &f));
        assert_int_equal(f, i);
    }
    for (int i = 0; i < ARCH_NFIDELITIES; i++) {
        arch_fidelity f;
        assert_true(arch_fidelity_parse(arch_fidelity_name((arch_fidelity)i), &f));
        assert_int_equal(f, i);
    }
    arch_format f;
    assert_true(arch_format_parse("bfloat8_b", &f));
    assert_int_equal(f, ARCH_BFP8_B);
    assert_false(arch_format_parse("fp8", &f));
    arch_fidelity g;
    assert_true(arch_fidelity_parse("hifi2", &g));
    assert_int_equal(g, ARCH_HIFI2);
    assert_false(arch_fidelity_parse("HiFi5", &g));
}

/* ---- errors from in-memory text -------------------------------------- */

/* A small valid description; line numbers below count from its first line. */
static const char tiny[] =
    "name: tiny\n"                                                                  /* 1 */
    "structure:\n"                                                                  /* 2 */
    "  clock_ghz: 1.0\n"                                                            /* 3 */
    "  grid: {width: 2, height: 2, noc_x: [1, 2], noc_y: [1, 2]}\n"                 /* 4 */
    "  l1: {bytes: 1499136, reserved_bytes: 33056, circular_buffers: 32}\n"         /* 5 */
    "  tile:\n"                                                                     /* 6 */
    "    height: 32\n"                                                              /* 7 */
    "    width: 32\n"                                                               /* 8 */
    "    bytes: {bf16: 2048, fp32: 4096, bfp8_b: 1088, bfp4_b: 576}\n"              /* 9 */
    "  fpu: {flops_per_cycle: 4096}\n"                                              /* 10 */
    "  dst: {half_sync_tiles_16b: 8, half_sync_tiles_32b: 4}\n"                     /* 11 */
    "  noc:\n"                                                                      /* 12 */
    "    count: 2\n"                                                                /* 13 */
    "    width: 4\n"                                                                /* 14 */
    "    height: 4\n"                                                               /* 15 */
    "    torus: true\n"                                                             /* 16 */
    "    link_bytes_per_cycle: 32\n"                                                /* 17 */
    "    max_packet_bytes: 8192\n"                                                  /* 18 */
    "    header_flits: 1\n"                                                         /* 19 */
    "    max_transaction_ids: 15\n"                                                 /* 20 */
    "    multicast: {rectangle: true, strided: false, l_shape: false}\n"            /* 21 */
    "  dram:\n"                                                                     /* 22 */
    "    alignment_bytes: 32\n"                                                     /* 23 */
    "    bank_bytes: 1073741824\n"                                                  /* 24 */
    "    banks: [[0, 0], [3, 3]]\n"                                                 /* 25 */
    "performance:\n"                                                                /* 26 */
    "  dram: {bank_read_bytes_per_cycle: 22.25, bank_write_bytes_per_cycle: 21.24,"
    " read_latency_cycles: 400, write_latency_cycles: 400}\n"                       /* 27 */
    "  core: {read_bytes_per_cycle: 37, write_bytes_per_cycle: 31}\n"               /* 28 */
    "  noc: {hop_cycles: 9, inject_cycles: 5, eject_cycles: 5, command_cycles: 20}\n" /* 29 */
    "  multicast: {setup_cycles: 50, bytes_per_cycle: 22}\n"                        /* 30 */
    "  compute:\n"                                                                  /* 31 */
    "    matmul_tile_cycles: {LoFi: 16, HiFi2: 32, HiFi3: 48, HiFi4: 64}\n"         /* 32 */
    "    matmul_rows_granule: 8\n"                                                  /* 33 */
    "    eltwise_tile_cycles: 8\n"                                                  /* 34 */
    "    bcast_tile_cycles: 8\n"                                                    /* 35 */
    "    reduce_tile_cycles: 32\n"                                                  /* 36 */
    "    sfpu_exp_tile_cycles: 256\n"                                               /* 37 */
    "    sfpu_exp_exact_tile_cycles: 768\n"                                         /* 38 */
    "    sfpu_recip_tile_cycles: 512\n"                                             /* 39 */
    "    sfpu_sqrt_tile_cycles: 896\n"                                              /* 40 */
    "    sfpu_rsqrt_tile_cycles: 1024\n"                                            /* 41 */
    "    sfpu_sigmoid_tile_cycles: 1355\n"                                          /* 42 */
    "    unpack_bytes_per_cycle: 64\n"                                              /* 43 */
    "    pack_bytes_per_cycle: 64\n"                                                /* 44 */
    "  overhead: {kernel_launch_cycles: 1000, cb_handshake_cycles: 30,"
    " semaphore_cycles: 10, barrier_cycles: 10, dst_handoff_cycles: 16, op_init_cycles: 70}\n";         /* 45 */

/* `tiny` with the first `from` replaced by `to`. */
static char *edit(const char *from, const char *to)
{
    const char *at = strstr(tiny, from);
    if (!at)
        fail_msg("'%s' is not in the test description", from);
    size_t pre = (size_t)(at - tiny), n = strlen(tiny) - strlen(from) + strlen(to);
    char *s = malloc(n + 1);
    memcpy(s, tiny, pre);
    strcpy(s + pre, to);
    strcat(s, at + strlen(from));
    return s;
}

/* Parse `text`; returns what the diagnostics printed (caller frees) and
 * whether the parse succeeded. */
static char *parse(const char *text, bool *ok)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    arch_desc *a = arch_parse("t.yaml", text, strlen(text), &d);
    *ok = a != NULL;
    assert_int_equal(d.nsrcs, 0); /* the text is not kept past the call */
    assert_int_equal(a ? 0 : 1, d.nerrors > 0);
    arch_free(a);
    fclose(f);
    return out;
}

static void expect_error(const char *from, const char *to, const char *want)
{
    char *text = edit(from, to);
    bool ok;
    char *out = parse(text, &ok);
    if (ok || !strstr(out, want))
        fail_msg("editing '%s' to '%s': expected an error containing\n  %s\ngot:\n%s", from, to,
                 want, out);
    free(out);
    free(text);
}

static void tiny_is_valid(void **state)
{
    (void)state;
    bool ok;
    char *out = parse(tiny, &ok);
    assert_true(ok);
    assert_string_equal(out, "");
    free(out);

    lm_diag d;
    lm_diag_init(&d, stderr);
    arch_desc *a = arch_parse("t.yaml", tiny, strlen(tiny), &d);
    assert_non_null(a);
    assert_string_equal(a->file, "t.yaml");
    assert_null(a->description);
    assert_int_equal(arch_num_cores(a), 4);
    assert_int_equal(a->num_dram_banks, 2);
    /* Without banks_noc1, NoC 1 uses the NoC 0 endpoints. */
    assert_int_equal(a->dram_bank_noc1[1].x, 3);
    assert_int_equal(a->dram_bank_noc1[1].y, 3);
    assert_close(arch_dram_read_bpc(a), 2 * 22.25);
    assert_close(arch_dram_write_bpc(a), 2 * 21.24);
    assert_close(arch_peak_tflops(a, ARCH_HIFI4), tflops(4, 1.0, 4));
    arch_free(a);

    /* Accepted spellings: underscores in numbers, hex, TTNN format names. */
    char *t1 = edit("bank_bytes: 1073741824", "bank_bytes: 0x4000_0000");
    char *t2 = edit("bfp8_b: 1088", "bfloat8_b: 1_088");
    out = parse(t1, &ok);
    assert_true(ok);
    free(out);
    out = parse(t2, &ok);
    assert_true(ok);
    free(out);
    free(t1);
    free(t2);
}

static void structural_errors(void **state)
{
    (void)state;
    expect_error("grid: {width: 2,", "grid: {widht: 2,",
                 "t.yaml:4:10: error: structure.grid: unknown key 'widht' (did you mean 'width'?)");
    expect_error("    header_flits: 1\n", "    header_flits: 1\n    hop_cycles: 9\n",
                 "t.yaml:20:5: error: structure.noc: unknown key 'hop_cycles' (it belongs in "
                 "'performance.noc')");
    expect_error("    link_bytes_per_cycle: 32\n", "",
                 "t.yaml:12:3: error: structure.noc: missing key 'link_bytes_per_cycle'");
    expect_error("    height: 4\n", "    height: 4\n    width: 6\n",
                 "t.yaml:16:5: error: structure.noc: duplicate key 'width' (first given at line 14)");
    expect_error("performance:\n", "perf:\n",
                 "t.yaml:26:1: error: unknown key 'perf' (did you mean 'performance'?)");
    expect_error("    bytes: {bf16: 2048, fp32: 4096, bfp8_b: 1088, bfp4_b: 576}",
                 "    bytes: [2048, 4096, 1088, 576]",
                 "t.yaml:9:12: error: structure.tile.bytes: expected a mapping of data formats to "
                 "bytes per tile, got a list");
    expect_error("bfp8_b: 1088", "bfp8: 1088",
                 "t.yaml:9:37: error: structure.tile.bytes: unknown data format 'bfp8' (did you "
                 "mean 'bfp8_b'?)");
    expect_error("HiFi4: 64", "HiFi5: 64",
                 "t.yaml:32:58: error: performance.compute.matmul_tile_cycles: unknown math "
                 "fidelity 'HiFi5' (did you mean 'HiFi4'?)");
    expect_error(", bfp4_b: 576}", "}", "structure.tile.bytes: missing data format 'bfp4_b'");
    expect_error("  fpu: {flops_per_cycle: 4096}", "  fpu: {flops_per_cycle: 4096",
                 "t.yaml:11:6: error: YAML syntax error: did not find expected ',' or '}'");
    expect_error("banks: [[0, 0], [3, 3]]", "banks: [[0, 0], 3]",
                 "t.yaml:25:21: error: structure.dram.banks[1]: expected a NoC position [x, y], "
                 "got '3'");
}

static void value_errors(void **state)
{
    (void)state;
    expect_error("bank_read_bytes_per_cycle: 22.25", "bank_read_bytes_per_cycle: fast",
                 "t.yaml:27:37: error: performance.dram.bank_read_bytes_per_cycle: expected a "
                 "positive number, got 'fast'");
    expect_error("    count: 2\n", "    count: 1.5\n",
                 "t.yaml:13:12: error: structure.noc.count: expected a positive integer, got '1.5' "
                 "(not a whole number)");
    expect_error("torus: true", "torus: yes",
                 "t.yaml:16:12: error: structure.noc.torus: expected true or false, got 'yes'");
    expect_error("    height: 32\n", "    height: \"32\"\n",
                 "t.yaml:7:13: error: structure.tile.height: expected a positive integer, got the "
                 "quoted string '32'");
    expect_error("clock_ghz: 1.0", "clock_ghz: -1",
                 "t.yaml:3:14: error: structure.clock_ghz: expected a positive number, got '-1'");
    expect_error("clock_ghz: 1.0", "clock_ghz: 1e3",
                 "structure.clock_ghz: expected a positive number no larger than 10, got '1e3'");
    expect_error("half_sync_tiles_16b: 8", "half_sync_tiles_16b: 0",
                 "structure.dst.half_sync_tiles_16b: expected a positive integer, got '0'");
    expect_error("hop_cycles: 9", "hop_cycles: -9",
                 "performance.noc.hop_cycles: expected a non-negative number, got '-9'");
    expect_error("grid: {width: 2,", "grid: {width: 65,",
                 "t.yaml:4:17: error: structure.grid.width: expected a positive integer no larger "
                 "than 64, got '65'");
    expect_error("clock_ghz: 1.0", "clock_ghz:",
                 "structure.clock_ghz: expected a positive number, got nothing");
    expect_error("clock_ghz: 1.0", "clock_ghz: .nan",
                 "structure.clock_ghz: expected a positive number, got '.nan'");
    expect_error("name: tiny", "name: [tiny]", "t.yaml:1:7: error: name: expected a string, got a list");
    expect_error("name: tiny", "name: my chip", "name: expected letters, digits");
}

static void cross_errors(void **state)
{
    (void)state;
    expect_error("grid: {width: 2, height: 2, noc_x: [1, 2]", "grid: {width: 5, height: 2, noc_x: [0, 1, 2, 3, 4]",
                 "t.yaml:4:17: error: structure.grid.width: expected at most structure.noc.width "
                 "(4), got 5");
    expect_error("noc_x: [1, 2]", "noc_x: [2, 2]",
                 "t.yaml:4:42: error: structure.grid.noc_x[1]: NoC column 2 is already core column "
                 "0's");
    expect_error("noc_y: [1, 2]", "noc_y: [1, 7]",
                 "structure.grid.noc_y[1]: NoC row 7 is outside the NoC grid");
    expect_error("noc_x: [1, 2]", "noc_x: [1]",
                 "structure.grid.noc_x: expected 2 NoC columns (one per core column, "
                 "structure.grid.width), got 1");
    expect_error("banks: [[0, 0], [3, 3]]", "banks: [[0, 0], [3, 4]]",
                 "t.yaml:25:21: error: structure.dram.banks[1]: NoC position [3, 4] is outside the "
                 "4x4 NoC grid");
    expect_error("banks: [[0, 0], [3, 3]]", "banks: [[0, 0], [2, 1]]",
                 "structure.dram.banks[1]: NoC position [2, 1] is core (1, 0)");
    expect_error("banks: [[0, 0], [3, 3]]", "banks: [[0, 0], [3, 3]]\n    banks_noc1: [[0, 1]]",
                 "structure.dram.banks_noc1: expected 2 NoC positions");
    expect_error("reserved_bytes: 33056", "reserved_bytes: 1499136",
                 "t.yaml:5:40: error: structure.l1.reserved_bytes: expected less than "
                 "structure.l1.bytes (1499136), got 1499136");
    expect_error("half_sync_tiles_32b: 4", "half_sync_tiles_32b: 9",
                 "structure.dst.half_sync_tiles_32b: expected at most half_sync_tiles_16b");
    expect_error("LoFi: 16,", "LoFi: 8,",
                 "t.yaml:32:32: error: performance.compute.matmul_tile_cycles.LoFi: expected at "
                 "least 16");
    expect_error("HiFi3: 48", "HiFi3: 40",
                 "performance.compute.matmul_tile_cycles.HiFi3: expected at least 48");
    expect_error("read_bytes_per_cycle: 37", "read_bytes_per_cycle: 65",
                 "performance.core.read_bytes_per_cycle: expected at most 64");
    expect_error("alignment_bytes: 32", "alignment_bytes: 48",
                 "structure.dram.alignment_bytes: expected a power of two, got 48");
}

static void empty_and_odd_documents(void **state)
{
    (void)state;
    bool ok;
    char *out = parse("", &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "t.yaml:1:1: error: empty hardware description"));
    free(out);
    out = parse("# only a comment\n", &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "empty hardware description"));
    free(out);
    out = parse("- 1\n- 2\n", &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "t.yaml:1:1: error: expected a mapping with keys name, "
                                "description, structure, performance, got a list"));
    free(out);
    out = parse("name: x\n---\nname: y\n", &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "t.yaml:3:1: error: a second YAML document"));
    free(out);
    /* A section left out entirely. */
    char *cut = strndup(tiny, (size_t)(strstr(tiny, "performance:") - tiny));
    out = parse(cut, &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "t.yaml:1:1: error: missing section 'performance'"));
    free(out);
    free(cut);
    /* An unknown key is reported even when it only holds an anchor. */
    char *t = edit("name: tiny\n", "name: tiny\nx_common: &c {hop_cycles: 1}\n");
    out = parse(t, &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "unknown key 'x_common'"));
    free(out);
    free(t);
    /* Invalid UTF-8 is a reader error with a position. */
    out = parse("name: \xff\n", &ok);
    assert_false(ok);
    assert_non_null(strstr(out, "t.yaml:1:"));
    assert_non_null(strstr(out, "YAML syntax error"));
    free(out);
    /* Quoting: the offending line and a caret follow the message. */
    char *u = edit("torus: true", "torus: maybe");
    out = parse(u, &ok);
    assert_non_null(strstr(out, "\n      torus: maybe\n             ^\n"));
    free(out);
    free(u);
}

/* ---- docs/arch.md names the schema's keys --------------------------------- */

/* Whether line `key` (NUL-terminated) is one of the lines of `list`. */
static bool has_line(const char *list, const char *key)
{
    size_t n = strlen(key);
    for (const char *l = list; *l; l = strchr(l, '\n') + 1)
        if (!strncmp(l, key, n) && l[n] == '\n')
            return true;
    return false;
}

static bool line_is(const char *l, int n, const char *s) { return n == (int)strlen(s) && !memcmp(l, s, (size_t)n); }

/* The keys the page documents, one per line: the table of top-level keys
 * under "Two kinds of facts", and the tables under "### `structure`" and
 * "### `performance`" with their section prepended. */
static void doc_keys(const char *text, lm_buf *out, int *nsections)
{
    const char *section = NULL;
    *nsections = 0;
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        if (n >= 2 && l[0] == '#') {
            section = NULL;
            if (line_is(l, n, "## Two kinds of facts"))
                section = "";
            else if (line_is(l, n, "### `structure`"))
                section = "structure.";
            else if (line_is(l, n, "### `performance`"))
                section = "performance.";
            *nsections += section != NULL;
        } else if (section && n > 3 && !strncmp(l, "| `", 3)) {
            const char *k = l + 3, *end = memchr(k, '`', (size_t)(n - 3));
            if (end)
                lm_buf_printf(out, "%s%.*s\n", section, (int)(end - k), k);
        }
        l += n + (e ? 1 : 0);
    }
}

/* Every key of the schema table is documented in docs/arch.md, and every
 * key the page documents is in the table. Mappings below the top level
 * ("structure.grid") have no row of their own; their keys do. */
static void docs_name_every_key(void **state)
{
    (void)state;
    size_t len;
    char why[256];
    char *text = lm_read_file("docs/arch.md", &len, why, sizeof why);
    if (!text)
        fail_msg("docs/arch.md: %s (the tests run from the repository root)", why);
    lm_buf doc = {0}, schema = {0};
    int nsections;
    doc_keys(text, &doc, &nsections);
    assert_int_equal(nsections, 3);
    arch_schema_keys(&schema);
    const char *sk = lm_buf_str(&schema), *dk = lm_buf_str(&doc);
    int nkeys = 0;
    for (const char *l = sk; *l; l = strchr(l, '\n') + 1) {
        char key[128];
        int n = (int)(strchr(l, '\n') - l);
        assert_true(n > 0 && n < (int)sizeof key);
        snprintf(key, sizeof key, "%.*s", n, l);
        if (key[n - 1] == '.') {
            key[n - 1] = 0;
            if (strchr(key, '.'))
                continue;
        }
        nkeys++;
        if (!has_line(dk, key))
            fail_msg("schema key '%s' is not documented in docs/arch.md", key);
    }
    assert_true(nkeys > 50);
    for (const char *l = dk; *l; l = strchr(l, '\n') + 1) {
        char key[128];
        int n = (int)(strchr(l, '\n') - l);
        snprintf(key, sizeof key, "%.*s", n, l);
        char map[130];
        snprintf(map, sizeof map, "%s.", key);
        if (!has_line(sk, key) && (strchr(key, '.') || !has_line(sk, map)))
            fail_msg("docs/arch.md documents '%s', which is not a key of the schema", key);
    }
    lm_buf_free(&doc);
    lm_buf_free(&schema);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wormhole_n150),
        cmocka_unit_test(wormhole_n300_matches_n150_but_dispatch),
        cmocka_unit_test(blackhole_p150),
        cmocka_unit_test(blackhole_p150_fw19),
        cmocka_unit_test(print_shows_derived_figures),
        cmocka_unit_test(lookup_by_name),
        cmocka_unit_test(names_round_trip),
        cmocka_unit_test(tiny_is_valid),
        cmocka_unit_test(structural_errors),
        cmocka_unit_test(value_errors),
        cmocka_unit_test(cross_errors),
        cmocka_unit_test(empty_and_odd_documents),
        cmocka_unit_test(docs_name_every_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
