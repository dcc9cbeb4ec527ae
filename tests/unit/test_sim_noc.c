/* test_sim_noc.c - the simulator's network model on its own: routes, the
 * fluid fair-share model against figures derived from the toy chip's
 * parameters, and against the flit-level reference (pktref.c).
 *
 * Tolerance of fluid vs flit-level: 3% of the transfer's duration plus 2
 * cycles per route stage. The flit model forwards whole flits (a 24 B/cycle
 * bank sends a 32 B flit every 4/3 cycles on average), spends at least one
 * cycle per stage and shares round-robin flit by flit, so it lags the fluid
 * model by a few cycles per stage and wobbles around the fair rates.
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

static sim_xspec send_spec(int owner, int sx, int sy, int dx, int dy, double bytes)
{
    sim_xspec s = {0};
    s.kind = SIM_X_SEND;
    s.noc = 0;
    s.owner = owner;
    s.src = (arch_xy){sx, sy};
    s.dst = (arch_xy){dx, dy};
    s.payload = bytes;
    return s;
}

static sim_xspec read_spec(int owner, int noc, int cx, int cy, int bank, double bytes)
{
    sim_xspec s = {0};
    s.kind = SIM_X_READ;
    s.noc = noc;
    s.owner = owner;
    s.src = (arch_xy){cx, cy};
    s.bank = bank;
    s.payload = bytes;
    return s;
}

/* Number of stages of a route (for the tolerance). */
static int stages(const sim_xspec *s)
{
    sim_queue q;
    sim_q_init(&q);
    sim_net n;
    sim_net_init(&n, &A, &q, 4);
    int k = sim_net_route(&n, s);
    sim_net_free(&n);
    sim_q_free(&q);
    return k;
}

/* Pipeline latency from source to the farthest destination. */
static double route_latency(const sim_xspec *s)
{
    sim_queue q;
    sim_q_init(&q);
    sim_net n;
    sim_net_init(&n, &A, &q, 4);
    double t = sim_net_tail(&n, sim_net_route(&n, s));
    sim_net_free(&n);
    sim_q_free(&q);
    return t;
}

/* Run both models and check each transfer's arrival agrees. */
static void compare(sim_pkt_xfer *xs, int n)
{
    sim_pkt_xfer *ref = malloc((size_t)n * sizeof *ref);
    memcpy(ref, xs, (size_t)n * sizeof *ref);
    sim_fluid_run(&A, xs, n, false);
    assert_true(sim_pktref_run(&A, ref, n, 1e6));
    bool ok = true;
    double fill = 0;
    for (int i = 0; i < n; i++)
        fill = fmax(fill, route_latency(&xs[i].spec));
    for (int i = 0; i < n; i++) {
        double dur = ref[i].t_arrive - ref[i].t_issue;
        double tol = 0.03 * dur + 2.0 * stages(&xs[i].spec) + (n > 1 ? fill : 0);
        double err = fabs(xs[i].t_arrive - ref[i].t_arrive);
        if (err > tol || getenv("SIM_NOC_VERBOSE"))
            print_error("transfer %d (kind %d noc %d owner %d src %d,%d dst %d,%d bank %d bytes %.0f at %.0f): "
                        "fluid %.1f, flit-level %.1f (tolerance %.1f)\n",
                        i, xs[i].spec.kind, xs[i].spec.noc, xs[i].spec.owner, xs[i].spec.src.x,
                        xs[i].spec.src.y, xs[i].spec.dst.x, xs[i].spec.dst.y, xs[i].spec.bank, xs[i].spec.payload,
                        xs[i].t_issue, xs[i].t_arrive, ref[i].t_arrive, tol);
        ok = ok && err <= tol && fabs(xs[i].t_done - ref[i].t_done) <= tol;
    }
    assert_true(ok);
    free(ref);
}

/* Routes follow the documented dimension order and wrap around. */
static void test_routes(void **st)
{
    (void)st;
    sim_queue q;
    sim_q_init(&q);
    sim_net n;
    sim_net_init(&n, &A, &q, 4);
    /* NoC 0 from (1,1) to (0,1): +x only, wrapping: 1->2->3->4->5->0 */
    assert_int_equal(sim_net_hops(&n, 0, (arch_xy){1, 1}, (arch_xy){0, 1}), 5);
    /* NoC 1 goes the other way: one hop */
    assert_int_equal(sim_net_hops(&n, 1, (arch_xy){1, 1}, (arch_xy){0, 1}), 1);
    /* NoC 0: x first then y; (1,1) -> (3,3) is E,E,S,S */
    sim_xspec s = send_spec(0, 1, 1, 3, 3, 64);
    int k = sim_net_route(&n, &s);
    assert_int_equal(k, 6); /* niu-out, 4 links, niu-in */
    const int want_dir[4] = {SIM_E, SIM_E, SIM_S, SIM_S};
    for (int i = 0; i < 4; i++) {
        sim_res *r = &n.res[n.st[1 + i].res];
        assert_int_equal(r->kind, SIM_R_LINK);
        assert_int_equal(r->dir, want_dir[i]);
    }
    /* NoC 1: y first then x, both negative: (3,3) -> (1,1) is N,N,W,W */
    s = send_spec(0, 3, 3, 1, 1, 64);
    s.noc = 1;
    k = sim_net_route(&n, &s);
    assert_int_equal(k, 6);
    const int want1[4] = {SIM_N, SIM_N, SIM_W, SIM_W};
    for (int i = 0; i < 4; i++)
        assert_int_equal(n.res[n.st[1 + i].res].dir, want1[i]);
    sim_net_free(&n);
    sim_q_free(&q);
}

/* One read alone: request latency + DRAM latency, then the payload and its
 * header at the slowest resource (the bank), then the pipeline. */
static void test_single_read(void **st)
{
    (void)st;
    sim_pkt_xfer x = {.spec = read_spec(0, 0, 1, 1, 0, 4096), .t_issue = 0};
    /* request: core (1,1) -> bank (0,1) on NoC 0 wraps: 5 hops; data back: 1 hop */
    double rate = fmin(A.dram_bank_read_bpc, fmin(A.link_bytes_per_cycle, A.core_read_bpc));
    double want = toy_path(&A, 5) + A.dram_latency_cycles + toy_wire(&A, 4096) / rate + toy_path(&A, 1);
    sim_fluid_run(&A, &x, 1, false);
    assert_true(fabs(x.t_arrive - want) < 1e-6);
    assert_true(fabs(x.t_done - want) < 1e-6); /* a read completes when its data lands */
    sim_pkt_xfer r = {.spec = read_spec(0, 0, 1, 1, 0, 4096), .t_issue = 0};
    compare(&r, 1);
}

/* Two sends sharing one link each get half of it: together they take
 * longer than alone by wire/(link/2) - wire/link. */
static void test_link_contention(void **st)
{
    (void)st;
    double bytes = 16384, wire = toy_wire(&A, bytes);
    sim_pkt_xfer one = {.spec = send_spec(0, 1, 1, 3, 1, bytes)};
    sim_fluid_run(&A, &one, 1, false);
    sim_pkt_xfer two[2] = {{.spec = send_spec(0, 1, 1, 3, 1, bytes)}, {.spec = send_spec(1, 2, 1, 4, 1, bytes)}};
    sim_fluid_run(&A, two, 2, false);
    double link = A.link_bytes_per_cycle;
    double extra = wire / (link / 2) - wire / link;
    assert_true(fabs(two[0].t_arrive - one.t_arrive - extra) < 1e-6);
    /* the second one's route is as long, so it finishes at the same time */
    assert_true(fabs(two[1].t_arrive - two[0].t_arrive) < 1e-6);
    sim_pkt_xfer r[2] = {{.spec = send_spec(0, 1, 1, 3, 1, bytes)}, {.spec = send_spec(1, 2, 1, 4, 1, bytes)}};
    compare(r, 2);
}

/* Max-min fairness: X shares link (1,1)E with three others (8 B/cycle
 * each) and link (2,1)E with Y; Y gets what X cannot use there: 32 - 8. */
static void test_max_min(void **st)
{
    (void)st;
    double bytes = 16384, wire = toy_wire(&A, bytes);
    sim_pkt_xfer xs[5] = {
        {.spec = send_spec(0, 1, 1, 4, 1, bytes)}, /* X */
        {.spec = send_spec(1, 2, 1, 3, 1, bytes)}, /* Y */
        {.spec = send_spec(2, 1, 1, 2, 2, bytes)}, /* W1..W3 turn south at x=2 */
        {.spec = send_spec(3, 1, 1, 2, 3, bytes)},
        {.spec = send_spec(4, 1, 1, 2, 4, bytes)},
    };
    sim_pkt_xfer ref[5];
    memcpy(ref, xs, sizeof xs);
    sim_fluid_run(&A, xs, 5, false);
    double link = A.link_bytes_per_cycle;
    double x_rate = link / 4, y_rate = link - x_rate;
    assert_true(fabs(xs[1].t_arrive - (wire / y_rate + toy_path(&A, 1))) < 1e-6);
    assert_true(fabs(xs[0].t_arrive - (wire / x_rate + toy_path(&A, 3))) < 1e-6);
    compare(ref, 5);
}

/* A link no pass looked at starts to bind: X streams alone over three
 * links at the link rate (the links are its own: a pass leaves them out of
 * its filling); Y joins the middle one at t1 and the two share it half and
 * half until Y is done; then X has the whole link again. */
static void test_link_starts_to_bind(void **st)
{
    (void)st;
    double bx = 16384, by = 4096, wx = toy_wire(&A, bx), wy = toy_wire(&A, by);
    double link = A.link_bytes_per_cycle, half = link / 2, t1 = 100;
    sim_pkt_xfer xs[2] = {
        {.spec = send_spec(0, 1, 1, 4, 1, bx)},
        {.spec = send_spec(1, 2, 1, 3, 1, by), .t_issue = t1},
    };
    sim_fluid_run(&A, xs, 2, false);
    double y_end = t1 + wy / half;
    double x_end = y_end + (wx - link * t1 - half * (y_end - t1)) / link;
    assert_true(x_end > y_end);
    assert_true(fabs(xs[1].t_arrive - (y_end + toy_path(&A, 1))) < 1e-6);
    assert_true(fabs(xs[0].t_arrive - (x_end + toy_path(&A, 3))) < 1e-6);
}

/* A row multicast: one flow over the tree, limited by the multicast rate,
 * delivered at the farthest destination after the path reservation. */
static void test_mcast(void **st)
{
    (void)st;
    static const arch_xy dests[3] = {{2, 1}, {3, 1}, {4, 1}};
    sim_xspec m = {0};
    m.kind = SIM_X_MCAST;
    m.owner = 0;
    m.src = (arch_xy){1, 1};
    m.r0 = (arch_xy){2, 1};
    m.r1 = (arch_xy){4, 1};
    m.dests = dests;
    m.ndests = 3;
    m.payload = 8192;
    sim_pkt_xfer x = {.spec = m};
    sim_fluid_run(&A, &x, 1, false);
    double want = A.mcast_setup_cycles + toy_wire(&A, 8192) / A.mcast_bpc + toy_path(&A, 3);
    assert_true(fabs(x.t_arrive - want) < 1e-6);
    /* and with a unicast on the tree's last link: it gets the rest of it */
    double t0 = A.mcast_setup_cycles; /* the unicast starts when the multicast's data does */
    sim_pkt_xfer xs[2] = {{.spec = m}, {.spec = send_spec(1, 3, 1, 4, 1, 8192), .t_issue = t0}};
    sim_pkt_xfer ref[2];
    memcpy(ref, xs, sizeof xs);
    sim_fluid_run(&A, xs, 2, false);
    double u = t0 + toy_wire(&A, 8192) / (A.link_bytes_per_cycle - A.mcast_bpc) + toy_path(&A, 1);
    assert_true(fabs(xs[1].t_arrive - u) < 1e-6);
    compare(ref, 2);
    /* a 2-D rectangle from outside it (X major: along the row, down the
     * first column, across each row) */
    static const arch_xy d2[4] = {{3, 3}, {4, 3}, {3, 4}, {4, 4}};
    sim_xspec r = m;
    r.r0 = (arch_xy){3, 3};
    r.r1 = (arch_xy){4, 4};
    r.dests = d2;
    r.ndests = 4;
    sim_queue q;
    sim_q_init(&q);
    sim_net n;
    sim_net_init(&n, &A, &q, 4);
    int k = sim_net_route(&n, &r);
    /* niu-out, mcast, links (1,1)E (2,1)E (3,1)S (3,2)S (3,3)E (3,4)S (3,4)E... */
    int links = 0;
    for (int i = 0; i < k; i++)
        links += n.res[n.st[i].res].kind == SIM_R_LINK;
    assert_int_equal(links, 2 + 3 + 2); /* 2 along x, 3 down column 3, 1 across each row */
    sim_net_free(&n);
    sim_q_free(&q);
    sim_pkt_xfer rr = {.spec = r};
    compare(&rr, 1);
}

/* Transfers of one issuer to one bank are served in order at the bank's
 * rate: each drains after the one before. */
static void test_fifo_channel(void **st)
{
    (void)st;
    sim_pkt_xfer xs[4], ref[4];
    for (int i = 0; i < 4; i++)
        xs[i] = (sim_pkt_xfer){.spec = read_spec(0, 0, 1, 1, 0, 2048), .t_issue = 20.0 * i};
    memcpy(ref, xs, sizeof xs);
    sim_fluid_run(&A, xs, 4, false);
    double ready = toy_path(&A, 5) + A.dram_latency_cycles, drain = toy_wire(&A, 2048) / A.dram_bank_read_bpc;
    double t = 0;
    for (int i = 0; i < 4; i++) {
        double start = fmax(t, ready + 20.0 * i);
        t = start + drain;
        assert_true(fabs(xs[i].t_arrive - (t + toy_path(&A, 1))) < 1e-6);
    }
    compare(ref, 4);
}

/* A DRAM bank shared by readers: its bandwidth divides among them. */
static void test_bank_shared(void **st)
{
    (void)st;
    sim_pkt_xfer xs[3] = {
        {.spec = read_spec(0, 0, 1, 1, 0, 8192)},
        {.spec = read_spec(1, 0, 1, 2, 0, 8192)},
        {.spec = read_spec(2, 1, 2, 3, 0, 8192)},
    };
    sim_pkt_xfer ref[3];
    memcpy(ref, xs, sizeof xs);
    sim_fluid_run(&A, xs, 3, false);
    /* all three start at once only if their request latencies match; check
     * the shared-rate phase through the reference instead */
    compare(ref, 3);
}

static int rnd(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return (int)(*seed >> 33);
}

/* Random mixes of 16-48 KB transfers on the toy chip (smaller ones would
 * measure the flit model's router buffers, which the fluid model has not). */
static void test_random_mix(void **st)
{
    (void)st;
    static arch_xy dests[16];
    int nd = 0;
    for (int y = 2; y <= 3; y++)
        for (int x = 2; x <= 4; x++)
            dests[nd++] = (arch_xy){x, y};
    uint64_t seed = 12345;
#define RND() rnd(&seed)
    for (int round = 0; round < 6; round++) {
        sim_pkt_xfer xs[10];
        for (int i = 0; i < 10; i++) {
            sim_xspec s = {0};
            int kind = RND() % 4;
            s.owner = RND() % 4;
            s.noc = RND() % 2;
            s.src.x = 1 + RND() % 4;
            s.src.y = 1 + RND() % 4;
            s.payload = 4096.0 * (4 + RND() % 9);
            if (kind == 0) {
                s.kind = SIM_X_READ;
                s.bank = RND() % A.num_dram_banks;
            } else if (kind == 1) {
                s.kind = SIM_X_WRITE;
                s.bank = RND() % A.num_dram_banks;
            } else if (kind == 2) {
                s.kind = SIM_X_SEND;
                s.dst.x = 1 + RND() % 4;
                s.dst.y = 1 + RND() % 4;
            } else {
                s.kind = SIM_X_MCAST;
                s.r0 = (arch_xy){2, 2};
                s.r1 = (arch_xy){4, 3};
                s.dests = dests;
                s.ndests = nd;
            }
            xs[i] = (sim_pkt_xfer){.spec = s, .t_issue = (double)(RND() % 400)};
        }
        compare(xs, 10);
    }
#undef RND
}

/* The fair shares recomputed over what each change can reach are those of
 * a filling of every moving flow, to rounding: many overlapping reads, writes, sends
 * and multicasts of 1-32 KB from 16 issuers, on both NoCs, on the toy chip
 * with the uneven rates of a Wormhole (banks 22.25 B/cycle, interfaces 37
 * and 31, multicast 22), whose shares are rarely exact in binary. */
static void test_incremental_shares(void **st)
{
    (void)st;
    arch_desc W = A;
    W.dram_bank_read_bpc = 22.25;
    W.dram_bank_write_bpc = 21.24;
    W.core_read_bpc = 37;
    W.core_write_bpc = 31;
    W.mcast_bpc = 22;
    static arch_xy dests[16];
    int nd = 0;
    for (int y = 1; y <= 2; y++)
        for (int x = 1; x <= 3; x++)
            dests[nd++] = (arch_xy){x, y};
    uint64_t seed = 777;
#define RND() rnd(&seed)
    enum { N = 400 };
    static sim_pkt_xfer xs[N], full[N];
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < N; i++) {
            sim_xspec s = {0};
            int kind = RND() % 8;
            s.owner = RND() % 16;
            s.noc = RND() % 2;
            s.src.x = 1 + RND() % 4;
            s.src.y = 1 + RND() % 4;
            s.payload = 1024.0 * (1 + RND() % 32);
            if (kind < 4) {
                s.kind = SIM_X_READ;
                s.bank = RND() % A.num_dram_banks;
            } else if (kind < 6) {
                s.kind = SIM_X_WRITE;
                s.bank = RND() % A.num_dram_banks;
            } else if (kind == 6) {
                s.kind = SIM_X_SEND;
                s.dst.x = 1 + RND() % 4;
                s.dst.y = 1 + RND() % 4;
            } else {
                s.kind = SIM_X_MCAST;
                s.r0 = (arch_xy){1, 1};
                s.r1 = (arch_xy){3, 2};
                s.dests = dests;
                s.ndests = nd;
            }
            xs[i] = (sim_pkt_xfer){.spec = s, .t_issue = (double)(RND() % (500 + 4000 * round))};
        }
        memcpy(full, xs, sizeof xs);
        uint64_t u1 = sim_fluid_run(&W, xs, N, false);
        uint64_t u2 = sim_fluid_run(&W, full, N, true);
        assert_int_equal(u1, u2);
        for (int i = 0; i < N; i++) {
            /* rounding apart: two resources at one level in exact arithmetic
             * may be filled in another order (docs/simulator.md) */
            double tol = 1e-9 * fmax(1, full[i].t_done);
            bool ok = fabs(xs[i].t_arrive - full[i].t_arrive) <= tol && fabs(xs[i].t_done - full[i].t_done) <= tol;
            if (!ok)
                print_error("round %d transfer %d: arrive %.17g / %.17g, done %.17g / %.17g\n", round, i,
                            xs[i].t_arrive, full[i].t_arrive, xs[i].t_done, full[i].t_done);
            assert_true(ok);
        }
    }
#undef RND
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_single_read),
        cmocka_unit_test(test_link_contention),
        cmocka_unit_test(test_max_min),
        cmocka_unit_test(test_link_starts_to_bind),
        cmocka_unit_test(test_mcast),
        cmocka_unit_test(test_fifo_channel),
        cmocka_unit_test(test_bank_shared),
        cmocka_unit_test(test_random_mix),
        cmocka_unit_test(test_incremental_shares),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
