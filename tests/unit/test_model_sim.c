/* test_model_sim.c - the rules the latency model (src/sched/model.c) uses
 * for how a dataflow program's kernels overlap (and one it does not use
 * yet: reads_ahead_chain), each checked against the
 * simulator on a small program whose cycles are derived here by hand from
 * the toy chip's figures (test_sim_common.h), independently of the model:
 * the program shows what the rule claims, and the rule applied to the same
 * stage times gives the same period (docs/scheduler.md, "Model").
 *
 * The simulator's rules used in the derivations (docs/simulator.md): every
 * engine starts at kernel_launch_cycles; cb_push and cb_pop cost
 * cb_handshake_cycles, sem_set sem_cycles; a reserve or a wait that finds
 * its pages costs nothing more.
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

static sim_result *run_ok(const char *text)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    sim_options o = {0};
    sim_result *r = NULL;
    df_program *p = df_parse("prog.df", text, strlen(text), &d);
    if (p && df_bind(p, NULL, 0, &d) && df_validate(p, &A, &d))
        r = sim_run(p, &A, &o, &d);
    df_free(p);
    fclose(f);
    if (!r)
        print_error("%s\n%s", text, buf);
    free(buf);
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

/* `n` sem_set lines (n x sem_cycles of work on the kernel running them). */
static void work(char *out, size_t size, int n)
{
    out[0] = 0;
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "      sem_set sem=busy value=%d\n", i + 1);
}

/* One page of a CB held by its consumer for only part of the consumer's
 * iteration (model.c, single_buffers: a load of depth 1 serialises its
 * read with the ops that hold the block, not with the whole compute).
 *
 * The producer works Wr per block and pushes (h); the consumer waits,
 * works Wh holding the block, pops (h) and works Wa more. With one page the
 * producer can reserve the next block only after the pop, so after each pop
 * at time t the block is back at t + Wr + h and the consumer, free again at
 * t + Wa, holds it Wh and pops: the period is max(Wa, Wr + h) + Wh + h.
 * With two pages the stages overlap and the slower one sets the period:
 * max(Wr + h, Wh + h + Wa). The model's rule: the period is the slowest
 * stage (top = max(Wr + h, Wh + h + Wa)), and with one page at least the
 * block's hold plus its read (Wh + h + Wr + h) - the same two figures. */
static void held_page(void **st)
{
    (void)st;
    const int N = 12;
    static const int cases[][3] = {{3, 2, 1}, {3, 2, 6}, {1, 4, 0}, {5, 1, 2}}; /* Wr, Wh, Wa in sem_sets */
    double s = A.sem_cycles, h = A.cb_handshake_cycles, L = A.kernel_launch_cycles;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double Wr = cases[c][0] * s, Wh = cases[c][1] * s, Wa = cases[c][2] * s;
        double period[3] = {0};
        for (int pages = 1; pages <= 2; pages++) {
            char wr[512], wh[512], wa[512], text[4096];
            work(wr, sizeof wr, cases[c][0]);
            work(wh, sizeof wh, cases[c][1]);
            work(wa, sizeof wa, cases[c][2]);
            double cyc[2];
            for (int k = 0; k < 2; k++) {
                /* N and 2N blocks: the difference is N periods, free of the
                   first block's start and the last one's end */
                snprintf(text, sizeof text,
                         "program held\n"
                         "sem busy\n"
                         "class c x0=0 y0=0 x1=0 y1=0 {\n"
                         "  cb 0 format=bf16 pages=%d\n"
                         "  reader {\n"
                         "    for i lo=0 hi=%d {\n"
                         "      cb_reserve cb=0 n=1\n%s"
                         "      cb_push cb=0 n=1\n"
                         "    }\n"
                         "  }\n"
                         "  writer {\n"
                         "    for i lo=0 hi=%d {\n"
                         "      cb_wait cb=0 n=1\n%s"
                         "      cb_pop cb=0 n=1\n%s"
                         "    }\n"
                         "  }\n"
                         "}\n",
                         pages, N * (k + 1), wr, N * (k + 1), wh, wa);
                sim_result *r = run_ok(text);
                cyc[k] = r->cycles;
                assert_true(r->cycles > L);
                sim_result_free(r);
            }
            period[pages] = (cyc[1] - cyc[0]) / N;
        }
        double top = fmax(Wr + h, Wh + h + Wa), hold_read = Wh + h + Wr + h;
        NEAR(period[1], fmax(Wa, Wr + h) + Wh + h, 1e-6);
        NEAR(period[2], top, 1e-6);
        /* the model's rule gives the same two periods */
        NEAR(period[1], fmax(top, hold_read), 1e-6);
        NEAR(period[2], top, 1e-6);
    }
}

/* Two loads on one kernel, the first in one page, the second in two: a
 * kernel issues its loads in order, so the second's next block waits behind
 * the first's, which waits for the consumer's pop (model.c, load_chain).
 *
 * The producer works W0 and pushes block 0 (h), then W1 and pushes block 1
 * (h); the consumer waits for both, works Wh, pops both (h each) and works
 * Wa. After the first pop at time t the producer is free: both blocks are
 * back at t + W0 + W1 + 2h; the consumer, after the second pop and Wa, is
 * free at t + h + Wa; it then works Wh and pops: the period is
 * max(h + Wa, W0 + W1 + 2h) + Wh + h. The model's rule: the slowest stage,
 * max(W0 + W1 + 2h, Wh + 2h + Wa), and the chain of the single load through
 * the one behind it, its hold (Wh and the pop) plus both reads: the same. */
static void in_order_loads(void **st)
{
    (void)st;
    const int N = 12;
    static const int cases[][4] = {{2, 1, 3, 1}, {1, 1, 2, 8}, {4, 2, 1, 0}}; /* W0, W1, Wh, Wa in sem_sets */
    double s = A.sem_cycles, h = A.cb_handshake_cycles;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double W0 = cases[c][0] * s, W1 = cases[c][1] * s, Wh = cases[c][2] * s, Wa = cases[c][3] * s;
        char w0[512], w1[512], wh[512], wa[512], text[4096];
        work(w0, sizeof w0, cases[c][0]);
        work(w1, sizeof w1, cases[c][1]);
        work(wh, sizeof wh, cases[c][2]);
        work(wa, sizeof wa, cases[c][3]);
        double cyc[2];
        for (int k = 0; k < 2; k++) {
            snprintf(text, sizeof text,
                     "program inorder\n"
                     "sem busy\n"
                     "class c x0=0 y0=0 x1=0 y1=0 {\n"
                     "  cb 0 format=bf16 pages=1\n"
                     "  cb 1 format=bf16 pages=2\n"
                     "  reader {\n"
                     "    for i lo=0 hi=%d {\n"
                     "      cb_reserve cb=0 n=1\n%s"
                     "      cb_push cb=0 n=1\n"
                     "      cb_reserve cb=1 n=1\n%s"
                     "      cb_push cb=1 n=1\n"
                     "    }\n"
                     "  }\n"
                     "  writer {\n"
                     "    for i lo=0 hi=%d {\n"
                     "      cb_wait cb=0 n=1\n"
                     "      cb_wait cb=1 n=1\n%s"
                     "      cb_pop cb=0 n=1\n"
                     "      cb_pop cb=1 n=1\n%s"
                     "    }\n"
                     "  }\n"
                     "}\n",
                     N * (k + 1), w0, w1, N * (k + 1), wh, wa);
            sim_result *r = run_ok(text);
            cyc[k] = r->cycles;
            sim_result_free(r);
        }
        double period = (cyc[1] - cyc[0]) / N;
        NEAR(period, fmax(h + Wa, W0 + W1 + 2 * h) + Wh + h, 1e-6);
        double top = fmax(W0 + W1 + 2 * h, Wh + 2 * h + Wa), chain = (W0 + h) + (W1 + h) + (Wh + h);
        NEAR(period, fmax(top, chain), 1e-6);
    }
}

/* Programs in sequence on one core (waves; model.c, level_latency: a loop's
 * later executions without its first step's loads). The producer streams
 * the blocks of every program into two pages, Wr and a push each; the
 * consumer takes n blocks per program (C and a pop each) and then works T
 * to finish the program. With C >= Wr the producer keeps ahead: it fills
 * the next program's first pages while the consumer finishes this one, so
 * only the first block ever keeps the consumer waiting - the prologue is
 * paid once per core, not once per program:
 * L + (Wr + h) + W (n (C + h) + T). */
static void loads_run_ahead(void **st)
{
    (void)st;
    static const int cases[][5] = {{3, 2, 5, 4, 2}, {3, 3, 2, 1, 4}, {1, 1, 5, 3, 3}}; /* W, n, C, Wr, T */
    double s = A.sem_cycles, h = A.cb_handshake_cycles, L = A.kernel_launch_cycles;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int W = cases[c][0], n = cases[c][1];
        double C = cases[c][2] * s, Wr = cases[c][3] * s, T = cases[c][4] * s;
        char wc[512], wr[512], wt[512], text[4096];
        work(wc, sizeof wc, cases[c][2]);
        work(wr, sizeof wr, cases[c][3]);
        work(wt, sizeof wt, cases[c][4]);
        snprintf(text, sizeof text,
                 "program ahead\n"
                 "sem busy\n"
                 "class c x0=0 y0=0 x1=0 y1=0 {\n"
                 "  cb 0 format=bf16 pages=2\n"
                 "  reader {\n"
                 "    for w lo=0 hi=%d {\n"
                 "      for i lo=0 hi=%d {\n"
                 "        cb_reserve cb=0 n=1\n%s"
                 "        cb_push cb=0 n=1\n"
                 "      }\n"
                 "    }\n"
                 "  }\n"
                 "  writer {\n"
                 "    for w lo=0 hi=%d {\n"
                 "      for i lo=0 hi=%d {\n"
                 "        cb_wait cb=0 n=1\n%s"
                 "        cb_pop cb=0 n=1\n"
                 "      }\n%s"
                 "    }\n"
                 "  }\n"
                 "}\n",
                 W, n, wr, W, n, wc, wt);
        sim_result *r = run_ok(text);
        assert_true(C >= Wr);
        NEAR(r->cycles, L + (Wr + h) + W * (n * (C + h) + T), 1e-6);
        /* paid once per program it would be (W - 1) (Wr + h) more */
        if (W > 1)
            assert_true(r->cycles < L + W * ((Wr + h) + n * (C + h) + T));
        sim_result_free(r);
    }
}

/* One core's reader loading tiles of tensors a and b from DRAM for a
 * consumer that pops at once. With `ahead`, each load reads one block
 * ahead into two pages the way the lowering does (block i + 1's reads
 * under their own transaction id, then the barrier on block i's); without,
 * it reads, waits and pushes. na, nb: tile rows of a's and b's blocks
 * (nb 0: a alone). */
static double reader_cycles(int iters, int na, int nb, bool ahead)
{
    char text[4096], loads[2][1024];
    const int rows[2] = {na, nb};
    for (int j = 0; j < 2; j++) {
        const char *t = j ? "b" : "a";
        int n = rows[j], id = 1 + 2 * j;
        if (!n)
            loads[j][0] = 0;
        else if (ahead)
            snprintf(loads[j], sizeof loads[j],
                     "      for w lo=0 hi=min(%d-i-1,1) {\n"
                     "        cb_reserve cb=%d n=%d\n"
                     "        read tensor=%s row=0 col=i+1 rows=%d cb=%d at=%d trid=%d+(i+1)%%2\n"
                     "      }\n"
                     "      read_barrier trid=%d+i%%2\n"
                     "      cb_push cb=%d n=%d\n",
                     iters, j, 2 * n, t, n, j, n, id, id, j, n);
        else
            snprintf(loads[j], sizeof loads[j],
                     "      cb_reserve cb=%d n=%d\n"
                     "      read tensor=%s row=0 col=i rows=%d cb=%d trid=%d\n"
                     "      read_barrier trid=%d\n"
                     "      cb_push cb=%d n=%d\n",
                     j, n, t, n, j, id, id, j, n);
    }
    char first[512] = "", pops[512] = "";
    for (int j = 0; j < 2; j++)
        if (rows[j]) {
            if (ahead)
                snprintf(first + strlen(first), sizeof first - strlen(first),
                         "    cb_reserve cb=%d n=%d\n    read tensor=%s row=0 col=0 rows=%d cb=%d trid=%d\n", j,
                         rows[j], j ? "b" : "a", rows[j], j, 1 + 2 * j);
            snprintf(pops + strlen(pops), sizeof pops - strlen(pops),
                     "      cb_wait cb=%d n=%d\n      cb_pop cb=%d n=%d\n", j, rows[j], j, rows[j]);
        }
    snprintf(text, sizeof text,
             "program chain\n"
             "tensor a rows=%d cols=%d format=bf16 role=input seed=1\n"
             "tensor b rows=%d cols=%d format=bf16 role=input seed=2\n"
             "class c x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 0 format=bf16 pages=%d\n"
             "  cb 1 format=bf16 pages=%d\n"
             "  reader {\n%s"
             "    for i lo=0 hi=%d {\n%s%s"
             "    }\n"
             "  }\n"
             "  writer {\n"
             "    for i lo=0 hi=%d {\n%s"
             "    }\n"
             "  }\n"
             "}\n",
             32 * LM_MAX(na, 1), 32 * iters, 32 * LM_MAX(nb, 1), 32 * iters, 2 * LM_MAX(na, 1), 2 * LM_MAX(nb, 1),
             first, iters, loads[0], loads[1], iters, pops);
    sim_result *r = run_ok(text);
    double cyc = r->cycles;
    sim_result_free(r);
    return cyc;
}

static double reader_period(int na, int nb, bool ahead)
{
    const int N = 24;
    return (reader_cycles(2 * N, na, nb, ahead) - reader_cycles(N, na, nb, ahead)) / N;
}

/* Loads that read ahead chain their waits: the simulator's pace, which the
 * model does not use yet (it adds half of each round trip; docs/
 * scheduler.md, Model quality, "Tried and left: the reads ahead as one
 * chain of round trips"). Block i of load j is issued one iteration
 * before its barrier, so the waits form a cycle: j's round trip T_j, the
 * reader's work up to the next load's barrier, that load's round trip, ...
 * back to j; each load on the way adds an iteration, the loop one more.
 * Any subset S of the loads closes one over 1 + |S| iterations, of length
 * sum over S of T_j, plus the issue of the others and every load's barrier
 * and push (h): the period is the longest such cycle over its iterations.
 * T_j, from the start of the read to its data in L1, is measured here
 * alone: a load that reads, waits and pushes runs at T_j + barrier + h.
 * With round trips of about the same length (blocks of 1 to 4 tiles: the
 * latency dominates) both loads close the longest cycle,
 * (T_a + T_b + 2 (barrier + h)) / 3, where half of each round trip added
 * up is about 1.6 times the period. (One load alone binds where its round
 * trip is more than twice the other's; on the toy chip that takes a block
 * whose transfer, not its round trip, sets the pace.) */
static void reads_ahead_chain(void **st)
{
    (void)st;
    static const int cases[][2] = {{1, 1}, {4, 1}, {2, 2}}; /* tile rows of a's and b's blocks */
    double fixed = A.barrier_cycles + A.cb_handshake_cycles;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int na = cases[c][0], nb = cases[c][1];
        double T[2] = {reader_period(na, 0, false) - fixed, reader_period(nb, 0, false) - fixed};
        double issue[2] = {na * A.noc_cmd_cycles, nb * A.noc_cmd_cycles};
        double want = 2 * fixed;
        for (int set = 1; set < 4; set++) {
            double len = 2 * fixed;
            for (int j = 0; j < 2; j++)
                len += set >> j & 1 ? T[j] : issue[j];
            want = fmax(want, len / (1 + __builtin_popcount(set)));
        }
        double got = reader_period(na, nb, true);
        /* within 3%: both loads share the core's interface while in flight */
        NEAR(got, want, 0.03 * want);
        /* half of each round trip, added up, is far off */
        assert_true(T[0] / 2 + T[1] / 2 + 2 * fixed > 1.15 * got);
    }
}

/* The first blocks of loads read ahead (model.c, first_arrival): the
 * lowering issues every such load's first reads before its loop, with no
 * barrier between them, so their round trips overlap. One iteration of
 * the reader above: a alone takes its round trip T (and a barrier and a
 * push); a and b read ahead add only b's issue and its tile's transfer
 * behind a's at the core's interface - at most x + h, x a tile's transfer
 * at min(core read rate, link) - where read one after the other (each
 * waited for before the next is issued) they add about b's round trip T
 * (its issue and its latency; the consumer's pop of a overlaps it). */
static void first_blocks_together(void **st)
{
    (void)st;
    double alone = reader_cycles(1, 1, 0, true), ahead = reader_cycles(1, 1, 1, true),
           serial = reader_cycles(1, 1, 1, false);
    double h = A.cb_handshake_cycles, bar = A.barrier_cycles;
    double x = fmax(A.tile_bytes[ARCH_BF16] / fmin(A.core_read_bpc, (double)A.link_bytes_per_cycle), A.noc_cmd_cycles);
    double T = reader_period(1, 0, false) - bar - h;
    assert_true(T > 400);                   /* the latency dominates a tile's round trip */
    if (ahead - alone > x + h + 1)
        print_error("ahead %.1f alone %.1f x %.1f\n", ahead, alone, x);
    assert_true(ahead - alone <= x + h + 1); /* b waits for a's issue and transfer, not its round trip */
    assert_true(serial - alone >= 0.9 * T); /* one after the other: about b's round trip more */
}

/* One load read ahead the lowering's way (block i + 1's pages reserved
 * beside block i's, its reads issued, then the barrier on block i and the
 * push) into a CB of `depth` blocks of one tile, for a consumer that holds
 * each block C (sem_set work between its wait and its pop): the period. */
static double ring_period(int depth, int cwork)
{
    char wc[4096], text[8192];
    work(wc, sizeof wc, cwork);
    double cyc[2];
    for (int k = 0; k < 2; k++) {
        int iters = 24 * (k + 1);
        snprintf(text, sizeof text,
                 "program ring\n"
                 "sem busy\n"
                 "tensor a rows=32 cols=%d format=bf16 role=input seed=1\n"
                 "class c x0=0 y0=0 x1=0 y1=0 {\n"
                 "  cb 0 format=bf16 pages=%d\n"
                 "  reader {\n"
                 "    cb_reserve cb=0 n=1\n"
                 "    read tensor=a row=0 col=0 rows=1 cb=0 trid=1\n"
                 "    for i lo=0 hi=%d {\n"
                 "      for w lo=0 hi=min(%d-i-1,1) {\n"
                 "        cb_reserve cb=0 n=2\n"
                 "        read tensor=a row=0 col=i+1 rows=1 cb=0 at=1 trid=1+(i+1)%%2\n"
                 "      }\n"
                 "      read_barrier trid=1+i%%2\n"
                 "      cb_push cb=0 n=1\n"
                 "    }\n"
                 "  }\n"
                 "  writer {\n"
                 "    for i lo=0 hi=%d {\n"
                 "      cb_wait cb=0 n=1\n%s"
                 "      cb_pop cb=0 n=1\n"
                 "    }\n"
                 "  }\n"
                 "}\n",
                 32 * iters, depth, iters, iters, iters, wc);
        sim_result *r = run_ok(text);
        cyc[k] = r->cycles;
        sim_result_free(r);
    }
    return (cyc[1] - cyc[0]) / 24;
}

/* A load read ahead at depth 2 holds the reader to the compute (model.c,
 * single_buffers): in trip i the reader reserves block i + 1's pages
 * beside block i's, and a CB of two blocks has them only once the
 * consumer has popped block i - 1. So the reserve waits for that pop;
 * then the reader issues block i + 1 (a command), waits for block i (its
 * round trip began a trip earlier: the barrier alone) and pushes it (h);
 * the consumer takes it, holds it C and pops it (h), which frees the next
 * reserve: the period is cmd + barrier + h + C + h, the block's round trip
 * out of it as the model's chain has it (stage.local, not the round trip,
 * besides the ops that hold the block). At depth 3 the CB has room for
 * block i - 1 besides, and the consumer alone sets the pace (C + h, the
 * wait finding the block there). */
static void ring_hold(void **st)
{
    (void)st;
    static const int holds[] = {60, 100}; /* sem_set lines the consumer holds a block: C > the round trip */
    double h = A.cb_handshake_cycles;
    for (size_t c = 0; c < sizeof holds / sizeof holds[0]; c++) {
        double C = holds[c] * A.sem_cycles;
        NEAR(ring_period(2, holds[c]), A.noc_cmd_cycles + A.barrier_cycles + h + C + h, 1e-6);
        NEAR(ring_period(3, holds[c]), C + h, 1e-6);
    }
}

/* Programs in sequence on one core whose producer also stores each
 * program's result, in program order (model.c, kernel_order: the writer
 * that reads a matmul's b and writes c). The producer streams n blocks per
 * program into two pages (Wr and a push each), then waits for the
 * consumer's result, stores it (S) and pops it; only then does it start the
 * next program's blocks. The consumer works P first (the compute before the
 * first op that reads the producer's load: `lead`), then takes the n
 * blocks (C and a pop each) and pushes its result (h). With C >= Wr the
 * producer is ahead within a program, so a program's consumer ends at
 * E = its start + P + n (C + h) + h; the producer, waiting for that push,
 * stores and pops (S + h) and fills the next program's first block (Wr +
 * h): it is there at E + S + 2h + Wr, which the next program's consumer
 * needs at E + P. Per program the period is P + n (C + h) + h + max(0, S +
 * 2h + Wr - P): the compute, and the store (S + h) and the next program's
 * first block (Wr + h) less the lead - the model's stall - where the store
 * following the loads and the last compute alone, n (Wr + h) + C + h + S,
 * would leave the compute alone when C >> Wr. */
static void store_between_programs(void **st)
{
    (void)st;
    static const int cases[][6] = {{3, 4, 5, 2, 6, 0}, {3, 4, 5, 2, 6, 12}, {3, 4, 5, 2, 6, 20}, {2, 3, 4, 1, 9, 3}}; /* W, n, C, Wr, S, P */
    double s = A.sem_cycles, h = A.cb_handshake_cycles, L = A.kernel_launch_cycles;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int W = cases[c][0], n = cases[c][1];
        double C = cases[c][2] * s, Wr = cases[c][3] * s, S = cases[c][4] * s, P = cases[c][5] * s;
        char wc[1024], wr[1024], ws[1024], wp[1024], text[8192];
        work(wc, sizeof wc, cases[c][2]);
        work(wr, sizeof wr, cases[c][3]);
        work(ws, sizeof ws, cases[c][4]);
        work(wp, sizeof wp, cases[c][5]);
        snprintf(text, sizeof text,
                 "program order\n"
                 "sem busy\n"
                 "class c x0=0 y0=0 x1=0 y1=0 {\n"
                 "  cb 0 format=bf16 pages=2\n"
                 "  cb 1 format=bf16 pages=2\n"
                 "  reader {\n"
                 "    for w lo=0 hi=%d {\n"
                 "      for i lo=0 hi=%d {\n"
                 "        cb_reserve cb=0 n=1\n%s"
                 "        cb_push cb=0 n=1\n"
                 "      }\n"
                 "      cb_wait cb=1 n=1\n%s"
                 "      cb_pop cb=1 n=1\n"
                 "    }\n"
                 "  }\n"
                 "  writer {\n"
                 "    for w lo=0 hi=%d {\n%s"
                 "      for i lo=0 hi=%d {\n"
                 "        cb_wait cb=0 n=1\n%s"
                 "        cb_pop cb=0 n=1\n"
                 "      }\n"
                 "      cb_reserve cb=1 n=1\n"
                 "      cb_push cb=1 n=1\n"
                 "    }\n"
                 "  }\n"
                 "}\n",
                 W, n, wr, ws, W, wp, n, wc);
        sim_result *r = run_ok(text);
        assert_true(C >= Wr);
        double period = P + n * (C + h) + h + fmax(0, S + 2 * h + Wr - P);
        /* the first program waits for its first block after P; the last
           ends with the producer's store */
        double first = fmax(P, Wr + h), last = n * (C + h) + 2 * h + S;
        NEAR(r->cycles, L + first + (W - 1) * period + last, 1e-6);
        /* the rule without the store between the programs' compute */
        double old = fmax(P + n * (C + h) + h, n * (Wr + h) + C + h + S);
        if (S + 2 * h + Wr > P)
            assert_true(r->cycles > L + first + (W - 1) * old + last);
        sim_result_free(r);
    }
}

/* A multicast sender's first read behind the grid's reads ahead
 * (model.c, grid_banks). The toy chip's 15 other cores each read one tile
 * row of v (R tiles, R/5 pages on each of the 5 banks: the tiles are
 * interleaved page by page), and core (0,0) reads a row of k (5 tiles, one
 * a bank), all at once; the sender then works W sem_sets, longer than
 * anything else, so the run ends W after k lands. Every bank serves 16
 * flows, a fair share each: k's flow has its 2048 bytes there after taking
 * from each of the 15 others as much as it took itself, or all of theirs
 * if they had less - 16 x 2048 / rate whether R is 5 or 10, not the 31
 * tiles a bank holds at R = 10. Besides that, k waits for its commands and
 * the round trip's latency, measured on its own (no v readers). */
static double sender_after(int R, bool grid)
{
    char text[8192], readers[2048] = "";
    const int W = 400;
    /* the 15 other cores in two rectangles, each reading its tile row of v */
    static const char *rects[] = {"x0=1 y0=0 x1=3 y1=0", "x0=0 y0=1 x1=3 y1=3"};
    for (int c = 0; grid && c < 2; c++)
        snprintf(readers + strlen(readers), sizeof readers - strlen(readers),
                 "class r%d %s {\n"
                 "  cb 0 format=bf16 pages=%d\n"
                 "  reader {\n"
                 "    cb_reserve cb=0 n=%d\n"
                 "    read tensor=v row=cy*4+cx-1 col=0 cols=%d cb=0 trid=1\n"
                 "    read_barrier trid=1\n"
                 "  }\n"
                 "}\n",
                 c, rects[c], R, R, R);
    snprintf(text, sizeof text,
             "program behind\n"
             "sem busy\n"
             "tensor k rows=32 cols=160 format=bf16 role=input seed=1\n"
             "tensor v rows=480 cols=%d format=bf16 role=input seed=2\n"
             "class s x0=0 y0=0 x1=0 y1=0 {\n"
             "  cb 1 format=bf16 pages=5\n"
             "  reader {\n"
             "    cb_reserve cb=1 n=5\n"
             "    read tensor=k row=0 col=0 cols=5 cb=1 trid=2\n"
             "    read_barrier trid=2\n"
             "    for w lo=0 hi=%d {\n"
             "      sem_set sem=busy value=1\n"
             "    }\n"
             "  }\n"
             "}\n"
             "%s",
             32 * R, W, readers);
    sim_result *r = run_ok(text);
    double c = r->cycles - A.kernel_launch_cycles - W * A.sem_cycles;
    sim_result_free(r);
    return c;
}

static void sender_behind_the_grid(void **st)
{
    (void)st;
    double alone = sender_after(5, false), at5 = sender_after(5, true), at10 = sender_after(10, true);
    double share = 16 * A.tile_bytes[ARCH_BF16] / A.dram_bank_read_bpc; /* 16 fair shares of one tile */
    double all10 = (15 * 2 + 1) * A.tile_bytes[ARCH_BF16] / A.dram_bank_read_bpc;
    double own = A.tile_bytes[ARCH_BF16] / A.dram_bank_read_bpc;
    /* behind the grid: at least the 16 shares in place of its own tile's
       time, give or take the commands' stagger (5 x noc_cmd_cycles); the
       toy chip's rows that carry two banks' flows add their links' shares
       on top (the model counts the banks) */
    double slack = 5 * A.noc_cmd_cycles;
    if (at5 < alone - own + share - slack || fabs(at10 - at5) > slack)
        print_error("alone %.1f, R=5 %.1f, R=10 %.1f, derived at least %.1f\n", alone, at5, at10, alone - own + share);
    assert_true(at5 >= alone - own + share - slack);
    /* and no more at R = 10: its share ends with its own bytes, not v's */
    assert_true(fabs(at10 - at5) <= slack);
    assert_true(at10 < alone - own + all10 - slack);
}

/* `cores` cores of a row each read a block of one tile, on bank cx (page
 * cx), and a next block of four tiles on the other four banks (pages
 * 6 + cx to 9 + cx), issued before the barrier on the first (`ahead`) or
 * after it; the consumer works 1,000 sem_sets (10,000 cycles) on the
 * first block, more than any transfer takes, before it pops both. The
 * toy's banks are slowed to 2 B/cycle, so that a tile's 1,024 cycles in
 * its bank, not its issue (20) or its links, set the pace: the cycles of
 * the whole program. */
static double bank_cycles(int cores, bool ahead)
{
    static char wc[40000], text[48000];
    work(wc, sizeof wc, 1000);
    const char *next = "    read tensor=a row=0 col=6+cx rows=1 cols=4 cb=0 at=1 trid=2\n";
    snprintf(text, sizeof text,
             "program banks\n"
             "sem busy\n"
             "tensor a rows=32 cols=512 format=bf16 role=input seed=1\n"
             "class c x0=0 y0=0 x1=%d y1=0 {\n"
             "  cb 0 format=bf16 pages=5\n"
             "  reader {\n"
             "    cb_reserve cb=0 n=5\n"
             "    read tensor=a row=0 col=cx rows=1 cols=1 cb=0 trid=1\n%s"
             "    read_barrier trid=1\n"
             "    cb_push cb=0 n=1\n%s"
             "    read_barrier trid=2\n"
             "    cb_push cb=0 n=4\n"
             "  }\n"
             "  writer {\n"
             "    cb_wait cb=0 n=1\n%s"
             "    cb_pop cb=0 n=1\n"
             "    cb_wait cb=0 n=4\n"
             "    cb_pop cb=0 n=4\n"
             "  }\n"
             "}\n",
             cores - 1, ahead ? next : "", ahead ? "" : next, wc);
    double bank = A.dram_bank_read_bpc;
    A.dram_bank_read_bpc = 2;
    sim_result *r = run_ok(text);
    A.dram_bank_read_bpc = bank;
    double cyc = r->cycles;
    sim_result_free(r);
    return cyc;
}

/* The blocks in flight at a loop's first barrier share the banks (model.c,
 * first_arrival, `inflight`): a core's reads from one bank are served in
 * order, so its own next block, on other banks, costs its first block
 * nothing; but a bank is shared fairly by the cores with reads on it, so
 * where the cores' next blocks fall on the bank of another core's first
 * block, that block waits for the bank to serve each of them a tile. Here
 * (bank_cycles) one core's first tile has its bank alone either way; with
 * four cores, each first tile shares its bank with the three other cores'
 * next tiles when those are issued before the barrier: 4 x 1,024 cycles
 * in place of 1,024. The program's cycles differ by that delay (the
 * consumer's work hides the rest). */
static void first_block_bank_share(void **st)
{
    (void)st;
    double tile = A.tile_bytes[ARCH_BF16] / 2.0; /* a tile's cycles in a bank at 2 B/cycle */
    double one = bank_cycles(1, true) - bank_cycles(1, false);
    double four = bank_cycles(4, true) - bank_cycles(4, false);
    double slack = 0.1 * tile;
    if (fabs(one) > slack || fabs(four - 3 * tile) > slack)
        print_error("one core %.1f, four cores %.1f, derived 0 and %.1f\n", one, four, 3 * tile);
    assert_true(fabs(one) <= slack);
    assert_true(fabs(four - 3 * tile) <= slack);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(held_page),
        cmocka_unit_test(in_order_loads),
        cmocka_unit_test(loads_run_ahead),
        cmocka_unit_test(reads_ahead_chain),
        cmocka_unit_test(ring_hold),
        cmocka_unit_test(first_blocks_together),
        cmocka_unit_test(first_block_bank_share),
        cmocka_unit_test(store_between_programs),
        cmocka_unit_test(sender_behind_the_grid),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
