/* test_sim_run.c - the simulator running whole dataflow programs on the
 * hand-described toy chip (test_sim_common.h). Every expected cycle count is
 * derived here from the chip's parameters and the model's rules
 * (docs/simulator.md); the fluid network is exact when nothing changes
 * during a transfer, so most checks hold to a fraction of a cycle.
 *
 * Rules used in the derivations: all engines start at kernel_launch_cycles;
 * a NoC command costs noc_cmd_cycles per packet and the transfer is issued
 * when the command is done; a read's data leaves the bank after the request
 * path and dram_latency_cycles; a path of h links costs inject + h*hop +
 * eject; cb_push/cb_pop cost cb_handshake_cycles, sem_set/sem_wait
 * sem_cycles, barriers barrier_cycles; effects land when the cost is paid;
 * a run ends when the last engine is done and the last data has landed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/sim_int.h"
#include "test_sim_common.h"

static arch_desc A;

static int setup(void **st)
{
    (void)st;
    toy_arch(&A);
    return 0;
}

/* Parse, bind, validate and simulate `text`; messages go to *err (caller
 * frees). Returns NULL when any step failed. */
static sim_result *run(const char *text, const arch_desc *a, const sim_options *o, char **err)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    sim_result *r = NULL;
    df_program *p = df_parse("prog.df", text, strlen(text), &d);
    if (p && df_bind(p, NULL, 0, &d) && df_validate(p, a, &d))
        r = sim_run(p, a, o, &d);
    df_free(p);
    fclose(f);
    if (err)
        *err = buf;
    else
        free(buf);
    return r;
}

static sim_result *run_ok(const char *text, const sim_options *o)
{
    char *err = NULL;
    sim_result *r = run(text, &A, o, &err);
    if (!r)
        print_error("%s", err);
    free(err);
    assert_non_null(r);
    return r;
}

#define NEAR(x, want, tol)                                                                      \
    do {                                                                                        \
        double x_ = (x), w_ = (want);                                                           \
        if (fabs(x_ - w_) > (tol))                                                              \
            print_error("%s = %.3f, derived %.3f\n", #x, x_, w_);                              \
        assert_true(fabs(x_ - w_) <= (tol));                                                    \
    } while (0)

/* ---- DRAM reads ------------------------------------------------------------ */

/* One reader issues N single-tile reads that all land in bank 0 (every 5th
 * tile of a tensor interleaved over 5 banks), then one barrier. The reads
 * queue at the bank and stream at min(bank, link, interface) bytes/cycle. */
static void test_one_bank_stream(void **st)
{
    (void)st;
    const int N = 12;
    char text[2048];
    snprintf(text, sizeof text,
             "program one_bank\n"
             "tensor T rows=32 cols=5*%d*32 format=bf16 role=input seed=1\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=%d\n"
             "  reader {\n"
             "    cb_reserve cb=0 n=%d\n"
             "    for i lo=0 hi=%d {\n"
             "      read tensor=T row=0 col=5*i cb=0 at=i\n"
             "    }\n"
             "    read_barrier\n"
             "    cb_push cb=0 n=%d\n"
             "  }\n"
             "}\n",
             N, N, N, N, N);
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    /* core (0,0) sits at NoC (1,1), bank 0 at (0,1): the request wraps
     * around NoC 0 (+x): 5 hops; the data comes back in 1 hop */
    double rate = fmin(A.dram_bank_read_bpc, fmin(A.link_bytes_per_cycle, A.core_read_bpc));
    double first = A.kernel_launch_cycles + A.noc_cmd_cycles + toy_path(&A, 5) + A.dram_latency_cycles;
    double want = first + N * toy_wire(&A, 2048) / rate + toy_path(&A, 1) + A.barrier_cycles + A.cb_handshake_cycles;
    NEAR(r->cycles, want, 1e-6);
    assert_true(r->banks[0].read_bytes == N * 2048.0);
    assert_true(r->banks[1].read_bytes == 0);
    sim_result_free(r);
}

/* Two readers next to their banks against two readers far away whose
 * routes share a link: the near ones each get their bank's bandwidth, the
 * far ones share link (3,2)S and wait longer for their requests. */
static void test_near_beats_far(void **st)
{
    (void)st;
    const int N = 16;
    const char *fmt =
        "program placement\n"
        "tensor T rows=32 cols=5*%d*32 format=bf16 role=input seed=1\n"
        "class p x0=%d y0=%d x1=%d y1=%d {\n"
        "  cb 0 format=bf16 pages=%d\n"
        "  reader {\n"
        "    cb_reserve cb=0 n=%d\n"
        "    for i lo=0 hi=%d {\n"
        "      read tensor=T row=0 col=5*i+%d cb=0 at=i\n" /* bank 0 */
        "    }\n"
        "    read_barrier\n"
        "    cb_push cb=0 n=%d\n"
        "  }\n"
        "}\n"
        "class q x0=%d y0=%d x1=%d y1=%d {\n"
        "  cb 0 format=bf16 pages=%d\n"
        "  reader {\n"
        "    cb_reserve cb=0 n=%d\n"
        "    for i lo=0 hi=%d {\n"
        "      read tensor=T row=0 col=5*i+1 cb=0 at=i\n" /* bank 1 */
        "    }\n"
        "    read_barrier\n"
        "    cb_push cb=0 n=%d\n"
        "  }\n"
        "}\n";
    char text[4096];
    sim_options o = {0};
    /* near: (0,0) at NoC (1,1) next to bank 0 at (0,1); (0,1) at (1,2) next to bank 1 at (0,2) */
    snprintf(text, sizeof text, fmt, N, 0, 0, 0, 0, N, N, N, 0, N, 0, 1, 0, 1, N, N, N, N);
    sim_result *near = run_ok(text, &o);
    /* far: (2,2) at NoC (3,3) reads bank 0 over (0,1)E (1,1)E (2,1)E (3,1)S (3,2)S;
     *      (2,3) at NoC (3,4) reads bank 1 over (0,2)E (1,2)E (2,2)E (3,2)S (3,3)S */
    snprintf(text, sizeof text, fmt, N, 2, 2, 2, 2, N, N, N, 0, N, 2, 3, 2, 3, N, N, N, N);
    sim_result *far = run_ok(text, &o);
    double wire = toy_wire(&A, 2048), tail = A.barrier_cycles + A.cb_handshake_cycles;
    double near_rate = fmin(A.dram_bank_read_bpc, A.link_bytes_per_cycle);
    double want_near = A.kernel_launch_cycles + A.noc_cmd_cycles + toy_path(&A, 5) + A.dram_latency_cycles +
                       N * wire / near_rate + toy_path(&A, 1) + tail;
    /* far requests: 3 hops in x (wrapping) and 4 in y (wrapping); both
     * streams start together and split the shared link */
    double far_rate = fmin(A.dram_bank_read_bpc, A.link_bytes_per_cycle / 2);
    double want_far = A.kernel_launch_cycles + A.noc_cmd_cycles + toy_path(&A, 7) + A.dram_latency_cycles +
                      N * wire / far_rate + toy_path(&A, 5) + tail;
    NEAR(near->cycles, want_near, 1e-6);
    NEAR(far->cycles, want_far, 1e-6);
    assert_true(near->cycles < far->cycles);
    /* the shared link is the hottest one and carried both streams */
    assert_int_equal(far->links[0].noc, 0);
    assert_int_equal(far->links[0].x, 3);
    assert_int_equal(far->links[0].y, 2);
    assert_int_equal(far->links[0].dir, 'S');
    NEAR(far->links[0].bytes, 2 * N * wire, 1e-6);
    sim_result_free(near);
    sim_result_free(far);
}

/* ---- circular buffers ------------------------------------------------------- */

/* Producer (reader) and consumer (writer) each spend W cycles per page
 * (three sem_set of sem_cycles each) around a one-page handshake. With one
 * page they alternate: a page's period is both works and both handshakes.
 * With two pages the producer fills the next page while the consumer
 * drains this one: the period is one work and one handshake. */
static void test_cb_backpressure(void **st)
{
    (void)st;
    const int N = 10;
    const char *fmt = "program pc\n"
                      "sem busy\n"
                      "class c x0=0 y0=0 x1=0 y1=0 {\n"
                      "  cb 0 format=bf16 pages=%d\n"
                      "  reader {\n"
                      "    for i lo=0 hi=%d {\n"
                      "      cb_reserve cb=0 n=1\n"
                      "      sem_set sem=busy value=1\n"
                      "      sem_set sem=busy value=2\n"
                      "      sem_set sem=busy value=3\n"
                      "      cb_push cb=0 n=1\n"
                      "    }\n"
                      "  }\n"
                      "  writer {\n"
                      "    for i lo=0 hi=%d {\n"
                      "      cb_wait cb=0 n=1\n"
                      "      sem_set sem=busy value=4\n"
                      "      sem_set sem=busy value=5\n"
                      "      sem_set sem=busy value=6\n"
                      "      cb_pop cb=0 n=1\n"
                      "    }\n"
                      "  }\n"
                      "}\n";
    char text[2048];
    sim_options o = {0};
    double W = 3 * A.sem_cycles, h = A.cb_handshake_cycles, L = A.kernel_launch_cycles;
    snprintf(text, sizeof text, fmt, 1, N, N);
    sim_result *one = run_ok(text, &o);
    NEAR(one->cycles, L + N * (W + h + W + h), 1e-6);
    snprintf(text, sizeof text, fmt, 2, N, N);
    sim_result *two = run_ok(text, &o);
    NEAR(two->cycles, L + N * (W + h) + W + h, 1e-6);
    assert_true(two->cycles < one->cycles);
    /* with one page the producer is busy half the time, with two almost always */
    NEAR(one->busy_avg[SIM_READER], N * (W + h) / one->cycles, 1e-9);
    sim_result_free(one);
    sim_result_free(two);
}

/* ---- transaction ids ---------------------------------------------------------- */

/* The reader reads block A (one tile, bank 0) with id 1 and block B (four
 * tiles, all in bank 1: column 1 of a 5-tile-wide tensor) with id 2, then
 * waits for id 1 alone and pushes A, then for id 2 and pushes B. The writer
 * works W cycles on A (sem_sets) before it takes B. With per-id barriers, A
 * is pushed when its one tile lands, long before B's four: the run ends at
 * A's landing + barrier + push + W + pop. Were the barrier to wait for every
 * read, A's push would wait for B's last tile, which cannot land before its
 * DRAM latency and four tiles' streaming after B's first command. */
static const char *trid_fmt = "program trids\n"
                              "sem busy\n"
                              "tensor T rows=4*32 cols=5*32 format=bf16 role=input seed=1\n"
                              "class c x0=0 y0=0 x1=0 y1=0 {\n"
                              "  cb 0 format=bf16 pages=5\n"
                              "  reader {\n"
                              "    cb_reserve cb=0 n=5\n"
                              "    read tensor=T row=0 col=0 cb=0 trid=%d\n"
                              "    read tensor=T row=0 col=1 rows=4 cb=0 at=1 trid=%d\n"
                              "    read_barrier trid=%d\n"
                              "    cb_push cb=0 n=1\n"
                              "    read_barrier trid=%d\n"
                              "    cb_push cb=0 n=4\n"
                              "  }\n"
                              "  writer {\n"
                              "    cb_wait cb=0 n=1\n"
                              "    for k lo=0 hi=%d {\n"
                              "      sem_set sem=busy value=k\n"
                              "    }\n"
                              "    cb_wait cb=0 n=5\n"
                              "    cb_pop cb=0 n=5\n"
                              "  }\n"
                              "}\n";

static void test_trid_barrier(void **st)
{
    (void)st;
    const int K = 100;
    char text[2048];
    sim_options o = {0};
    double L = A.kernel_launch_cycles, C = A.noc_cmd_cycles, Ld = A.dram_latency_cycles;
    double B = A.barrier_cycles, h = A.cb_handshake_cycles, W = K * A.sem_cycles;
    double rate = fmin(A.dram_bank_read_bpc, fmin(A.link_bytes_per_cycle, A.core_read_bpc));
    double X = toy_wire(&A, 2048) / rate;
    /* A: its command, the request (core (1,1) to bank 0 at (0,1): 5 hops
     * round the +x ring), the bank's latency, the tile, the data's one hop */
    double a_lands = L + C + toy_path(&A, 5) + Ld + X + toy_path(&A, 1);
    snprintf(text, sizeof text, trid_fmt, 1, 2, 1, 2, K);
    sim_result *tagged = run_ok(text, &o);
    NEAR(tagged->cycles, a_lands + B + h + W + h, 1e-6);
    /* the same reads untagged, each barrier waiting for all of them: B's
     * last tile lands no earlier than its first command's end, the bank's
     * latency and four tiles at the bank's rate */
    snprintf(text, sizeof text, trid_fmt, 0, 0, 0, 0, K);
    sim_result *all = run_ok(text, &o);
    double b_lands_min = L + 2 * C + Ld + 4 * X;
    assert_true(all->cycles >= b_lands_min + B + h + W + h);
    assert_true(all->cycles > tagged->cycles + (b_lands_min - a_lands));
    sim_result_free(tagged);
    sim_result_free(all);
}

/* A push of pages a read still fills, when the barrier waits for the other
 * id only, is refused; so is an id the chip's NoC does not count. */
static void test_trid_errors(void **st)
{
    (void)st;
    char text[2048], *err = NULL;
    sim_options o = {0};
    snprintf(text, sizeof text, trid_fmt, 2, 1, 2, 2, 1); /* B (pages 1..4) has id 1, never waited for */
    assert_null(run(text, &A, &o, &err));
    assert_non_null(strstr(err, "prog.df:13:"));
    assert_non_null(strstr(err, "of CB 0 while a read into it is still in flight"));
    free(err);
    snprintf(text, sizeof text, trid_fmt, 1, 16, 1, 2, 1);
    assert_null(run(text, &A, &o, &err));
    assert_non_null(strstr(err, "read: transaction id 16 is outside 0..15"));
    free(err);
    /* an id computed at run time is checked as it is used */
    const char *dyn = "program dyn\n"
                      "tensor T rows=32 cols=32 format=bf16 role=input seed=1\n"
                      "class c x0=0 y0=0 x1=0 y1=0 {\n"
                      "  cb 0 format=bf16 pages=1\n"
                      "  reader {\n"
                      "    for i lo=0 hi=1 {\n"
                      "      read_barrier trid=i-1\n"
                      "    }\n"
                      "  }\n"
                      "}\n";
    assert_null(run(dyn, &A, &o, &err));
    assert_non_null(strstr(err, "read_barrier: transaction id -1 is outside 0..15"));
    free(err);
}

/* ---- semaphores ----------------------------------------------------------------- */

/* Ping-pong of a semaphore increment between neighbours (0,0) and (1,0),
 * at NoC (1,1) and (2,1). Per round trip: the command, one flit at the
 * slowest resource of the route and the path, the poll that sees it, and
 * back; NoC 0 only goes +x, so the way back wraps around: 5 hops. */
static void test_semaphore_pingpong(void **st)
{
    (void)st;
    const int N = 20;
    char text[2048];
    snprintf(text, sizeof text,
             "program pingpong\n"
             "sem ball\n"
             "class ping x0=0 y0=0 x1=0 y1=0 {\n"
             "  reader {\n"
             "    for i lo=0 hi=%d {\n"
             "      sem_inc sem=ball x=1 y=0\n"
             "      sem_wait sem=ball value=i+1\n"
             "    }\n"
             "  }\n"
             "}\n"
             "class pong x0=1 y0=0 x1=1 y1=0 {\n"
             "  reader {\n"
             "    for i lo=0 hi=%d {\n"
             "      sem_wait sem=ball value=i+1\n"
             "      sem_inc sem=ball x=0 y=0\n"
             "    }\n"
             "  }\n"
             "}\n",
             N, N);
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    double flit = toy_wire(&A, 0) / A.link_bytes_per_cycle; /* one header flit over a 32 B/cycle link */
    double there = A.noc_cmd_cycles + flit + toy_path(&A, 1) + A.sem_cycles;
    double back = A.noc_cmd_cycles + flit + toy_path(&A, 5) + A.sem_cycles;
    NEAR(r->cycles, A.kernel_launch_cycles + N * (there + back), 1e-6);
    sim_result_free(r);
}

/* ---- compute ------------------------------------------------------------------------ */

/* A 1 x K x 1 matmul after its inputs are filled: unpack, math and pack of
 * the one sub-block run in sequence, so its time moves with the fidelity by
 * exactly K x the difference in cycles per tile matmul. */
static double matmul_cycles(const char *fid, int K, const char *extra, double *flops)
{
    char text[2048];
    snprintf(text, sizeof text,
             "program mm\n"
             "class c x0=0 y0=0 x1=0 y1=0 fidelity=%s%s {\n"
             "  cb 0 format=bf16 pages=%d\n"
             "  cb 1 format=bf16 pages=%d\n"
             "  cb 16 format=fp32 pages=1\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=%d\n"
             "    fill out=0 n=%d scalar=1\n"
             "    cb_push cb=0 n=%d\n"
             "    cb_reserve cb=1 n=%d\n"
             "    fill out=1 n=%d scalar=1\n"
             "    cb_push cb=1 n=%d\n"
             "    cb_wait cb=0 n=%d\n"
             "    cb_wait cb=1 n=%d\n"
             "    cb_reserve cb=16 n=1\n"
             "    matmul a=0 b=1 out=16 m=1 k=%d nn=1\n"
             "    cb_push cb=16 n=1\n"
             "    cb_pop cb=0 n=%d\n"
             "    cb_pop cb=1 n=%d\n"
             "  }\n"
             "}\n",
             fid, extra, K, K, K, K, K, K, K, K, K, K, K, K, K);
    sim_options o = {0};
    sim_result *r = run_ok(text, &o);
    double c = r->cycles;
    if (flops)
        *flops = r->flops;
    sim_result_free(r);
    return c;
}

static void test_matmul_fidelity(void **st)
{
    (void)st;
    const int K = 6;
    static const char *names[ARCH_NFIDELITIES] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};
    double flops = 0;
    double base = matmul_cycles("LoFi", K, "", &flops);
    NEAR(flops, K * 2.0 * 32 * 32 * 32, 1e-6);
    /* math follows the unpacker K tile by K tile (2K bf16 tiles unpacked),
       from the same start */
    double u = 2.0 * K * 2048 / A.unpack_bpc, lofi = toy_math_end(0, 0, u, K * A.matmul_tile_cycles[ARCH_LOFI], K);
    for (int f = 1; f < ARCH_NFIDELITIES; f++) {
        double t = matmul_cycles(names[f], K, "", NULL);
        NEAR(t - base, toy_math_end(0, 0, u, K * A.matmul_tile_cycles[f], K) - lofi, 1e-6);
    }
    /* where the unpacker is the slower stage (LoFi and HiFi2 on the toy
       chip: 64 cycles a K tile against 16 and 32) math's rate shows only
       in the last K tile's products */
    assert_true(u / K >= A.matmul_tile_cycles[ARCH_HIFI2]);
    NEAR(matmul_cycles("HiFi2", K, "", NULL) - base, A.matmul_tile_cycles[ARCH_HIFI2] - A.matmul_tile_cycles[ARCH_LOFI],
         1e-6);
}

/* The same op's absolute time, stage by stage: after the fills, cb_wait
 * sees the pages when the push lands; unpack reads 2K bf16 tiles, math does
 * K tile matmuls and hands Dst to pack, pack writes one fp32 tile, then the
 * pack's cb_push and, on unpack, the two pops (after the unpack's part). */
static void test_matmul_stages(void **st)
{
    (void)st;
    const int K = 4;
    double t = matmul_cycles("HiFi2", K, "", NULL);
    /* fills: K tiles in chunks of at most 8 (one Dst half): unpack nothing,
     * math K eltwise passes (+ handoff per chunk), pack K bf16 tiles; then
     * the push. The two fills pipeline: the second's math runs while the
     * first packs. */
    double fm = K * A.eltwise_tile_cycles + A.dst_handoff_cycles, fp = K * 2048.0 / A.pack_bpc;
    double h = A.cb_handshake_cycles;
    /* fill 0: math [0, fm], pack [fm, fm+fp], push [.., +h];
     * fill 1: math [fm, 2fm] (Dst half free), pack after push 0 and its
     * math: starts at max(fm+fp+h, 2fm) */
    double pack1 = fmax(fm + fp + h, 2 * fm);
    double push1 = pack1 + fp + h;
    /* matmul: unpack waits for both pushes (cb_wait on unpack) */
    double unpack = 2.0 * K * 2048 / A.unpack_bpc;
    double math = K * A.matmul_tile_cycles[ARCH_HIFI2];
    double pack = 4096.0 / A.pack_bpc;
    /* math follows the unpacker K tile by K tile, then hands Dst to pack */
    double end_pack = toy_math_end(push1, push1, unpack, math, K) + A.dst_handoff_cycles + pack + h;
    double end_unpack = push1 + unpack + 2 * h;                 /* unpack then its two pops */
    NEAR(t, A.kernel_launch_cycles + fmax(end_pack, end_unpack), 1e-6);
}

/* Eight iterations of two ops on one core, each reading the filled CB 0
 * and writing its own 4-tile CB. With op_init_cycles = I the threads pay
 * I before an op whose configuration differs from the op before. */
static double init_cycles(double init, const char *op1, const char *op2, bool dependent)
{
    char text[2048];
    snprintf(text, sizeof text,
             "program ops\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=4\n"
             "  cb 1 format=bf16 pages=4\n"
             "  cb 2 format=bf16 pages=4\n"
             "  compute {\n"
             "    cb_reserve cb=0 n=4\n"
             "    fill out=0 n=4 scalar=1\n"
             "    cb_push cb=0 n=4\n"
             "    cb_wait cb=0 n=4\n"
             "    for i lo=0 hi=8 {\n"
             "      cb_reserve cb=1 n=4\n"
             "      %s a=0 out=1 n=4\n"
             "      cb_push cb=1 n=4\n"
             "      %s"
             "      cb_reserve cb=2 n=4\n"
             "      %s a=%d out=2 n=4\n"
             "      cb_push cb=2 n=4\n"
             "      %s"
             "      cb_pop cb=1 n=4\n"
             "      cb_wait cb=2 n=4\n"
             "      cb_pop cb=2 n=4\n"
             "    }\n"
             "  }\n"
             "}\n",
             op1, dependent ? "cb_wait cb=1 n=4\n" : "", op2, dependent ? 1 : 0,
             dependent ? "" : "cb_wait cb=1 n=4\n");
    arch_desc a = A;
    a.op_init_cycles = init;
    char *err = NULL;
    sim_options o = {0};
    sim_result *r = run(text, &a, &o, &err);
    if (!r)
        print_error("%s", err);
    free(err);
    assert_non_null(r);
    double c = r->cycles;
    sim_result_free(r);
    return c;
}

/* The op init: two different ops that stream (the second reads the fill,
 * not the first's output) keep the threads busy, so each op after the first
 * adds the init (15 of the 16); the same op twice configures once, after
 * the fill, while waiting for it. When the second op reads the first's
 * result, each thread runs the second's init while it waits for that
 * result, and only the first op's init, which the unpacker starts right
 * after the second op's unpack, shows: about half as much. */
static void test_op_init(void **st)
{
    (void)st;
    const double I = 100;
    const char *exp = "sfpu op=exp", *neg = "sfpu op=neg";
    double alt0 = init_cycles(0, exp, neg, false), alt = init_cycles(I, exp, neg, false);
    assert_true(alt - alt0 >= 15 * I - 1e-6 && alt - alt0 <= 16 * I + 1e-6);
    double same0 = init_cycles(0, exp, exp, false), same = init_cycles(I, exp, exp, false);
    assert_true(same - same0 <= 1e-6);
    double dep0 = init_cycles(0, exp, neg, true), dep = init_cycles(I, exp, neg, true);
    assert_true(dep - dep0 >= 6 * I && dep - dep0 <= 8 * I + 1e-6);
}

/* A row sum of 2 x 4 random bf16 tiles, as the LLK's row reduction per
 * tile (fold=0) and folded (fold=1: the row's tiles added in Dst, then one
 * tile reduced): the same sums up to fp32 rounding, and the folded one
 * spends (cols - 1) element-wise passes and one reduction per row where
 * the other spends cols reductions; the op is one chunk, so its unpack,
 * math and pack run one after the other and the difference is exactly the
 * math's. */
static const char *FOLD_PROG =
    "program fold\n"
    "tensor A rows=64 cols=128 format=bf16 role=input seed=7\n"
    "tensor O rows=64 cols=32 format=fp32 role=output\n"
    "class c x0=0 y0=0 x1=0 y1=0 {\n"
    "  cb 0 format=bf16 pages=8\n"
    "  cb 1 format=fp32 pages=2\n"
    "  reader {\n"
    "    cb_reserve cb=0 n=8\n    read tensor=A row=0 col=0 rows=2 cols=4 cb=0\n    read_barrier\n"
    "    cb_push cb=0 n=8\n"
    "  }\n"
    "  compute {\n"
    "    cb_wait cb=0 n=8\n    cb_reserve cb=1 n=2\n"
    "    reduce op=sum a=0 out=1 rows=2 cols=4 fold=%d\n"
    "    cb_push cb=1 n=2\n    cb_pop cb=0 n=8\n"
    "  }\n"
    "  writer {\n"
    "    cb_wait cb=1 n=2\n    write cb=1 tensor=O row=0 col=0 rows=2\n    write_barrier\n    cb_pop cb=1 n=2\n"
    "  }\n"
    "}\n";

static void test_reduce_fold(void **st)
{
    (void)st;
    double cyc[2];
    for (int fold = 0; fold < 2; fold++) {
        char text[2048];
        snprintf(text, sizeof text, FOLD_PROG, fold);
        sim_options o = {.keep_tensors = true};
        sim_result *r = run_ok(text, &o);
        const float *a = r->tensor_data[0], *out = r->tensor_data[1];
        for (int i = 0; i < 64; i++) {
            double want = 0, mag = 0;
            for (int j = 0; j < 128; j++) {
                want += a[i * 128 + j];
                mag += fabs(a[i * 128 + j]);
            }
            if (fabs(out[i * 32] - want) > 1e-6 * mag + 1e-30)
                fail_msg("fold=%d row %d: %g, want %g", fold, i, (double)out[i * 32], want);
        }
        cyc[fold] = r->cycles;
        sim_result_free(r);
    }
    double plain = 2 * 4 * A.reduce_tile_cycles, folded = 2 * (3 * A.eltwise_tile_cycles + A.reduce_tile_cycles);
    /* one chunk of 8 input tiles (bf16), math following the unpacker tile
       by tile from the same start */
    double u = 8 * 2048.0 / A.unpack_bpc;
    NEAR(cyc[0] - cyc[1], toy_math_end(0, 0, u, plain, 8) - toy_math_end(0, 0, u, folded, 8), 1e-6);
    assert_true(cyc[1] < cyc[0]);
}

/* A sub-block larger than a Dst half is rejected, naming the limit. */
static void test_dst_overflow(void **st)
{
    (void)st;
    const char *fmt = "program mm\n"
                      "class c x0=0 y0=0 x1=0 y1=0%s {\n"
                      "  cb 0 format=bf16 pages=4\n"
                      "  cb 1 format=bf16 pages=4\n"
                      "  cb 16 format=fp32 pages=16\n"
                      "  compute {\n"
                      "    cb_reserve cb=0 n=4\n"
                      "    fill out=0 n=4\n"
                      "    cb_push cb=0 n=4\n"
                      "    cb_reserve cb=1 n=4\n"
                      "    fill out=1 n=4\n"
                      "    cb_push cb=1 n=4\n"
                      "    cb_wait cb=0 n=4\n"
                      "    cb_wait cb=1 n=4\n"
                      "    cb_reserve cb=16 n=16\n"
                      "    matmul a=0 b=1 out=16 m=4 k=1 nn=4 sub_h=%d sub_w=%d\n"
                      "    cb_push cb=16 n=16\n"
                      "  }\n"
                      "}\n";
    char text[2048], *err = NULL;
    sim_options o = {0};
    snprintf(text, sizeof text, fmt, "", 4, 4); /* 16 tiles > 8 */
    sim_result *r = run(text, &A, &o, &err);
    assert_null(r);
    /* df_validate or the simulator (for sizes known only at run time) */
    assert_non_null(strstr(err, "prog.df:16:"));
    assert_non_null(strstr(err, "Dst"));
    free(err);
    snprintf(text, sizeof text, fmt, " fp32_acc=1", 2, 4); /* 8 tiles > 4 in fp32 mode */
    r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "Dst"));
    free(err);
    /* a sub-block size that only a loop variable gives: the simulator's check */
    char loop[2048];
    snprintf(loop, sizeof loop, fmt, "", 1, 1);
    char *at = strstr(loop, "    matmul");
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s    for s lo=4 hi=5 {\n      matmul a=0 b=1 out=16 m=4 k=1 nn=4 sub_h=s "
             "sub_w=4\n    }\n    cb_push cb=16 n=16\n  }\n}\n", (int)(at - loop), loop);
    r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "Dst"));
    free(err);
    snprintf(text, sizeof text, fmt, " fp32_acc=1", 2, 2); /* fits */
    r = run(text, &A, &o, &err);
    if (!r)
        print_error("%s", err);
    assert_non_null(r);
    free(err);
    sim_result_free(r);
}

/* ---- deadlock and budgets -------------------------------------------------------- */

static void test_deadlock_cb(void **st)
{
    (void)st;
    const char *text = "program stuck\n"
                       "class c x0=1 y0=2 x1=1 y1=2 {\n"
                       "  cb 0 format=bf16 pages=2\n"
                       "  cb 16 format=bf16 pages=1\n"
                       "  reader {\n"
                       "    cb_reserve cb=0 n=1\n"
                       "  }\n"
                       "  compute {\n"
                       "    cb_wait cb=0 n=1\n"
                       "    cb_pop cb=0 n=1\n"
                       "  }\n"
                       "}\n";
    char *err = NULL;
    sim_options o = {0};
    sim_result *r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "deadlock"));
    assert_non_null(strstr(err, "prog.df:9:"));
    assert_non_null(strstr(err, "core (1,2) unpack waits in 'cb_wait': CB 0 has 0 of its 2 pages filled; it needs 1"));
    free(err);
}

static void test_deadlock_sem(void **st)
{
    (void)st;
    const char *text = "program stuck\n"
                       "sem go init=0\n"
                       "class a x0=0 y0=0 x1=0 y1=0 {\n"
                       "  writer {\n"
                       "    sem_wait sem=go value=2\n"
                       "  }\n"
                       "}\n"
                       "class b x0=1 y0=0 x1=1 y1=0 {\n"
                       "  reader {\n"
                       "    sem_inc sem=go x=0 y=0\n"
                       "  }\n"
                       "}\n";
    char *err = NULL;
    sim_options o = {0};
    sim_result *r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "deadlock"));
    assert_non_null(strstr(err, "prog.df:5:"));
    assert_non_null(strstr(err, "core (0,0) writer waits in 'sem_wait': semaphore 'go' is 1; it waits for 2"));
    free(err);
}

static void test_event_budget(void **st)
{
    (void)st;
    const char *text = "program long\n"
                       "sem s\n"
                       "class c x0=0 y0=0 x1=0 y1=0 {\n"
                       "  reader {\n"
                       "    for i lo=0 hi=1000 {\n"
                       "      sem_set sem=s value=i\n"
                       "    }\n"
                       "  }\n"
                       "}\n";
    char *err = NULL;
    sim_options o = {0};
    o.max_events = 100;
    sim_result *r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "event budget"));
    free(err);
}

/* A loop of ops that cost the math engine nothing advances no clock: the
 * op budget (4 per event of the budget) stops it. */
static void test_op_budget(void **st)
{
    (void)st;
    const char *text = "program spin\n"
                       "class c x0=0 y0=0 x1=0 y1=0 {\n"
                       "  cb 0 format=bf16 pages=1\n"
                       "  compute {\n"
                       "    for i lo=0 hi=1000000 {\n"
                       "      cb_reserve cb=0 n=1\n"
                       "    }\n"
                       "  }\n"
                       "}\n";
    char *err = NULL;
    sim_options o = {0};
    o.max_events = 1000;
    sim_result *r = run(text, &A, &o, &err);
    assert_null(r);
    assert_non_null(strstr(err, "interpreted ops"));
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_bank_stream),
        cmocka_unit_test(test_near_beats_far),
        cmocka_unit_test(test_cb_backpressure),
        cmocka_unit_test(test_trid_barrier),
        cmocka_unit_test(test_trid_errors),
        cmocka_unit_test(test_semaphore_pingpong),
        cmocka_unit_test(test_matmul_fidelity),
        cmocka_unit_test(test_matmul_stages),
        cmocka_unit_test(test_op_init),
        cmocka_unit_test(test_reduce_fold),
        cmocka_unit_test(test_dst_overflow),
        cmocka_unit_test(test_deadlock_cb),
        cmocka_unit_test(test_deadlock_sem),
        cmocka_unit_test(test_event_budget),
        cmocka_unit_test(test_op_budget),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
