/* test_ttnn_sched.c - TTNN's schedules as points of loomc's schedule space.
 *
 * For each case the kernel (a file of kernels/) is compiled and summarised for a
 * shape, TTNN's decision is converted (ttnn_schedule), and the schedule's
 * values are compared with what TTNN's rules give by hand; the derivations
 * sit beside the expectations (the matmul ones are those of test_ttnn.c,
 * carried into the schedule: BLOCK_M = out_block_h x 32, BLOCK_N =
 * out_block_w x 32, BLOCK_K = in0_block_w x 32, grid = the cores that
 * compute).  Every converted schedule must then lower to a program that
 * validates and simulates (timing only) on wormhole_n150 and
 * blackhole_p150.
 *
 * Constants: usable L1 Wormhole 1,466,080 B, Blackhole (p150) 1,532,448 B;
 * tiles bf16 2048 B, fp32 4096, bfp8_b 1088, bfp4_b 576.
 * The tests run from the repository root (tests/run.sh does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ttnn/ttnn.h"
#include "df/df.h"
#include "driver/driver.h"
#include "lower/lower.h"
#include "sim/sim.h"

/* ---- a compiled, summarised job ----------------------------------------- */

typedef struct job {
    drv_result r;
    lm_diag d;
    arch_desc *a;
    sched_kernel k[SCHED_MAX_LAUNCHES];
    sched_kernel *kp[SCHED_MAX_LAUNCHES];
    int n;
    sym_env bound;
    ttnn_pick *bs;
} job;

/* "M=512,N=512,K=512" -> --shape pairs */
static int parse_kv(const char *text, fe_kv *kv, char *store, size_t cap)
{
    snprintf(store, cap, "%s", text);
    int n = 0;
    for (char *t = strtok(store, ","); t; t = strtok(NULL, ",")) {
        char *eq = strchr(t, '=');
        assert_non_null(eq);
        *eq = 0;
        kv[n].name = t;
        kv[n].value = atoll(eq + 1);
        n++;
    }
    return n;
}

static job *compile_c(const char *kernel, const char *shape, const char *consts, const char *arch)
{
    job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    lm_diag_init(&j->d, stderr);
    j->a = arch_load(arch, &j->d);
    assert_non_null(j->a);
    static char store[256], cstore[256];
    fe_kv kv[16], cv[4];
    int nkv = parse_kv(shape, kv, store, sizeof store);
    int ncv = consts ? parse_kv(consts, cv, cstore, sizeof cstore) : 0;
    drv_opts o = {.path = kernel, .launch = {.shapes = kv, .nshapes = nkv, .consts = cv, .nconsts = ncv}};
    assert_true(drv_compile(&j->r, &o, &j->d));
    const fe_spec *spec = j->r.spec;
    for (int i = 0; i < spec->env.n; i++)
        sym_env_set_range(&j->bound, spec->env.b[i].var, spec->env.b[i].lo, spec->env.b[i].hi);
    sched_free frees[SCHED_MAX_VARS];
    int nf = 0;
    for (int i = 0; i < spec->nfrees; i++)
        frees[nf++] = (sched_free){.var = spec->frees[i].var, .pinned = spec->frees[i].bound};
    j->n = j->r.nlaunches;
    for (int i = 0; i < j->n; i++) {
        assert_true(sched_summarize(&j->k[i], j->r.launches[i].func, j->r.launches[i].access, j->a, frees, nf,
                                    j->r.sym, &j->r.arena, &j->d));
        sched_alloc(&j->k[i]);
        j->kp[i] = &j->k[i];
    }
    return j;
}

static job *compile(const char *kernel, const char *shape, const char *arch)
{
    return compile_c(kernel, shape, NULL, arch);
}

static void formats(job *j, arch_format f)
{
    for (int i = 0; i < j->n; i++)
        sched_set_formats(&j->k[i], f, f, true, j->a, j->r.sym);
}

static bool convert(job *j, ttnn_sched_kind kind)
{
    j->bs = calloc(1, sizeof *j->bs);
    assert_non_null(j->bs);
    ttnn_sched_opts o = {.kind = kind};
    return ttnn_schedule(j->bs, j->kp, j->n, &j->bound, j->a, &o, j->r.sym, &j->r.arena);
}

static void release(job *j)
{
    if (j->bs) {
        ttnn_pick_free(j->bs);
        free(j->bs);
    }
    sym_env_free(&j->bound);
    drv_free(&j->r);
    arch_free(j->a);
    free(j);
}

static int64_t val(const job *j, int l, const char *name)
{
    int64_t lo = -1, hi = -1;
    if (!sym_env_get(&j->bs->s[l].values, sym_var(j->r.sym, name), &lo, &hi)) {
        fprintf(stderr, "unbound schedule symbol %s\n", name);
        fail();
    }
    assert_int_equal(lo, hi);
    return lo;
}

/* Lower, validate and simulate (timing only) one launch's schedule. */
static void lower_and_run(job *j)
{
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    for (int l = 0; l < j->n; l++)
        kp[l] = &j->k[l], sp[l] = &j->bs->s[l];
    for (int l = 0, cov = 1; l < j->n; l += cov) {
        struct df_program *p = sched_lower_launch(kp, sp, j->n, l, j->a, j->r.sym, &j->d, &cov);
        if (!p)
            fprintf(stderr, "lowering %s failed: %s\n", j->k[l].name, j->bs->s[l].cand.label);
        assert_non_null(p);
        assert_true(df_validate(p, j->a, &j->d));
        sim_options so = {.timing_only = true};
        sim_result *sr = sim_run(p, j->a, &so, &j->d);
        assert_non_null(sr);
        assert_true(sr->cycles > 0);
        sim_result_free(sr);
        df_free(p);
    }
}

/* The matmul values of one schedule. */
#define CHECK_MMS(j, BM, BN, BK, GX, GY, SH, SW, DEPTH)                                              \
    do {                                                                                              \
        assert_int_equal(val(j, 0, "BLOCK_M"), (BM));                                               \
        assert_int_equal(val(j, 0, "BLOCK_N"), (BN));                                               \
        assert_int_equal(val(j, 0, "BLOCK_K"), (BK));                                               \
        assert_int_equal(val(j, 0, "grid.x"), (GX));                                                \
        assert_int_equal(val(j, 0, "grid.y"), (GY));                                                \
        assert_int_equal(val(j, 0, "sub.h"), (SH));                                                 \
        assert_int_equal(val(j, 0, "sub.w"), (SW));                                                 \
        assert_int_equal(val(j, 0, "depth.a"), (DEPTH));                                            \
        assert_int_equal(val(j, 0, "depth.b"), (DEPTH));                                            \
    } while (0)

/* Placement and transports: pid.0 (M), pid.1 (N); loads a, b in access order. */
static void check_cand(const job *j, sched_place p0, sched_place p1, sched_transport ta, sched_place aa,
                       sched_transport tb, sched_place ab)
{
    const sched_candidate *c = &j->bs->s[0].cand;
    assert_int_equal(c->place[0], p0);
    assert_int_equal(c->place[1], p1);
    assert_int_equal(c->nops, 2);
    assert_int_equal(c->ops[0].transport, ta);
    assert_int_equal(c->ops[1].transport, tb);
    if (ta != SCHED_DRAM) {
        assert_int_equal(c->ops[0].along, aa);
        assert_false(c->ops[0].interior_sender);
    }
    if (tb != SCHED_DRAM) {
        assert_int_equal(c->ops[1].along, ab);
        assert_false(c->ops[1].interior_sender);
    }
}

static void check_2d(const job *j)
{
    /* M on rows, N on columns; A along the rows from the left column, B down
       the columns from the top row. */
    check_cand(j, SCHED_ON_Y, SCHED_ON_X, SCHED_MCAST, SCHED_ON_X, SCHED_MCAST, SCHED_ON_Y);
    /* TTNN's NoCs: in0 on the one preferred for DRAM writes (NoC 1), in1 and
       the output writer on the one preferred for DRAM reads (NoC 0) */
    const sched_candidate *c = &j->bs->s[0].cand;
    assert_int_equal(c->ops[0].noc, SCHED_NOC_1);
    assert_int_equal(c->ops[1].noc, SCHED_NOC_0);
    assert_int_equal(c->store_noc, SCHED_NOC_0);
}

/* Whether kernel k of class c reads (DF_READ) or writes (DF_WRITE) tensor t. */
static bool kernel_touches(df_stmt *const *body, int n, int t, df_op op)
{
    for (int i = 0; i < n; i++) {
        if (body[i]->op == DF_FOR && kernel_touches(body[i]->body, body[i]->nbody, t, op))
            return true;
        if (body[i]->op == op && body[i]->tensor == t)
            return true;
    }
    return false;
}

/* The lowered 2D program runs every transfer on the NoC TTNN gives it: A's
 * reads on the writer kernel (NoC 1 in the simulator), B's reads and C's
 * writes on the reader kernel (NoC 0), on every core class. */
static void check_2d_nocs(job *j)
{
    struct df_program *p = sched_lower(&j->k[0], &j->bs->s[0], j->a, j->r.sym, &j->d);
    assert_non_null(p);
    int ta = -1, tb = -1, tc = -1;
    for (int t = 0; t < p->ntensors; t++) {
        ta = !strcmp(p->tensors[t].name, "a") ? t : ta;
        tb = !strcmp(p->tensors[t].name, "b") ? t : tb;
        tc = !strcmp(p->tensors[t].name, "c") ? t : tc;
    }
    assert_true(ta >= 0 && tb >= 0 && tc >= 0);
    int a_reads = 0, b_reads = 0, c_writes = 0;
    for (int i = 0; i < p->nclasses; i++) {
        const df_kernel *rd = &p->classes[i].kernels[DF_READER], *wr = &p->classes[i].kernels[DF_WRITER];
        assert_false(kernel_touches(rd->body, rd->nbody, ta, DF_READ));
        assert_false(kernel_touches(wr->body, wr->nbody, tb, DF_READ));
        assert_false(kernel_touches(wr->body, wr->nbody, tc, DF_WRITE));
        a_reads += kernel_touches(wr->body, wr->nbody, ta, DF_READ);
        b_reads += kernel_touches(rd->body, rd->nbody, tb, DF_READ);
        c_writes += kernel_touches(rd->body, rd->nbody, tc, DF_WRITE);
    }
    /* the left column and the top row (the corner is both) read; every class writes */
    assert_true(a_reads >= 1 && b_reads >= 1);
    assert_int_equal(c_writes, p->nclasses);
    df_free(p);
}

/* ---- matmul, default selection, Wormhole n150 8x8 ------------------------ */

static void mm_512_cubed(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=512,N=512,K=512", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D, per_core 2x2, in0_block_w 16/8 = 2, out block 2x2, sub (2,2); 8x8 cores;
       8 K blocks -> in0/in1 double-buffered. */
    CHECK_MMS(j, 64, 64, 64, 8, 8, 2, 2, 2);
    check_2d(j);
    assert_int_equal(val(j, 0, "depth.c"), 1);
    assert_int_equal(val(j, 0, "M"), 512);
    assert_int_equal(j->bs->s[0].fidelity, ARCH_HIFI2);
    assert_false(j->bs->s[0].fp32_acc);
    assert_string_equal(j->bs->s[0].origin, "ttnn");
    /* the explanation names TTNN's rules and the mapping */
    lm_buf b = {0};
    ttnn_pick_explain_print(&b, j->bs, j->kp);
    assert_non_null(strstr(lm_buf_str(&b), "MCAST_2D"));
    assert_non_null(strstr(lm_buf_str(&b), "in0_block_w"));
    assert_non_null(strstr(lm_buf_str(&b), "BLOCK_K"));
    assert_non_null(strstr(lm_buf_str(&b), "noc a"));
    lm_buf_free(&b);
    check_2d_nocs(j);
    lower_and_run(j);
    release(j);
}

static void mm_1024_cubed(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=1024,N=1024,K=1024", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: in0_block_w 32/8 = 4, per_core 4x4 fits whole, sub 4x4 -> (4,2). */
    CHECK_MMS(j, 128, 128, 128, 8, 8, 4, 2, 2);
    check_2d(j);
    lower_and_run(j);
    release(j);
}

static void mm_4096_cubed(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=4096,N=4096,K=4096", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: in0_block_w 128/8 = 16, per_core 16x16; multi_dim_factor -> out block 8x8 at
       K depth 16; sub (4,2).  BLOCK = the out block: 256 x 256 x 512; 128/16 = 8 core
       rows and columns; each core runs 2x2 out blocks (programs in waves). */
    CHECK_MMS(j, 256, 256, 512, 8, 8, 4, 2, 2);
    check_2d(j);
    assert_true(j->bs->nnotes > 0);
    lower_and_run(j);
    release(j);
}

static void mm_8192_cubed(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=8192,N=8192,K=8192", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: in0_block_w 32, per_core 32x32, out block 4x4 at depth 32 (test_ttnn.c), sub (4,2). */
    CHECK_MMS(j, 128, 128, 1024, 8, 8, 4, 2, 2);
    check_2d(j);
    release(j); /* too large to simulate in a unit test */
}

static void mm_row_1d(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=512,N=1024,K=1024", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 1D mcast_in0: per_core_M = Mt = 16, per_core_N = ceil(ceil(1024/64)/32) = 1, kw 2,
       sub (8,1); 32 N blocks -> 32 cores = 8 x 4.  M runs in time on every core, N blocks
       are flattened over the grid; A goes from core (0,0) to the whole grid, B from DRAM. */
    CHECK_MMS(j, 512, 32, 64, 8, 4, 8, 1, 2);
    check_cand(j, SCHED_ON_TIME, SCHED_ON_XY, SCHED_MCAST, SCHED_ON_XY, SCHED_DRAM, SCHED_ON_TIME);
    lower_and_run(j);
    release(j);
}

static void mm_narrow(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=32,N=4096,K=4096", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* wide: 1D mcast_in0, per_core 1 x 2, kw 2, sub (1,2); Nt/2 = 64 cores = 8 x 8. */
    CHECK_MMS(j, 32, 64, 64, 8, 8, 1, 2, 2);
    check_cand(j, SCHED_ON_TIME, SCHED_ON_XY, SCHED_MCAST, SCHED_ON_XY, SCHED_DRAM, SCHED_ON_TIME);
    lower_and_run(j);
    release(j);

    j = compile("kernels/matmul.py", "M=4096,N=32,K=1024", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* tall: 1D mcast_in1, per_core 2 x 1, kw 2, sub (2,1); 128/2 = 64 cores.  N runs in
       time, M blocks flattened; B from core (0,0) to the whole grid, A from DRAM. */
    CHECK_MMS(j, 64, 32, 64, 8, 8, 2, 1, 2);
    check_cand(j, SCHED_ON_XY, SCHED_ON_TIME, SCHED_DRAM, SCHED_ON_TIME, SCHED_MCAST, SCHED_ON_XY);
    lower_and_run(j);
    release(j);
}

static void mm_k_one_tile(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=4096,N=4096,K=32", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: in0_block_w 1, per_core 16x16 fits whole, sub (4,2); one K block ->
       single-buffered inputs. */
    CHECK_MMS(j, 512, 512, 32, 8, 8, 4, 2, 1);
    check_2d(j);
    lower_and_run(j);
    release(j);
}

static void mm_unaligned(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=1000,N=1000,K=976", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* padded Mt 32, Kt 31, Nt 32: 2D, 31 % 8 -> in0_block_w 1, per_core 4x4, sub (4,2). */
    CHECK_MMS(j, 128, 128, 32, 8, 8, 4, 2, 2);
    lower_and_run(j);
    release(j);

    j = compile("kernels/matmul.py", "M=100,N=512,K=512", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* Mt 4: 2D, per_core 1 x 2, kw 2, sub (1,2); 4 core rows x 8 columns compute. */
    CHECK_MMS(j, 32, 64, 64, 8, 4, 1, 2, 2);
    lower_and_run(j);
    release(j);
}

static void mm_block_float(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=4096,N=4096,K=4096", "wormhole_n150");
    formats(j, ARCH_BFP8_B);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* bfp8_b: out block 8x16 at depth 16 (test_ttnn.c), sub (4,2), LoFi. */
    CHECK_MMS(j, 256, 512, 512, 8, 8, 4, 2, 2);
    assert_int_equal(j->bs->s[0].fidelity, ARCH_LOFI);
    /* the store is bfp8_b; the accumulator keeps bf16 partials in a buffer of its own */
    for (int i = 0; i < j->k[0].nbufs; i++) {
        const sched_buf *b = &j->k[0].bufs[i];
        if (b->kind == SCHED_BUF_OUT) {
            assert_int_equal(b->format, ARCH_BFP8_B);
            assert_int_equal(b->alias, -1);
        }
        if (b->kind == SCHED_BUF_CARRY)
            assert_int_equal(b->format, ARCH_BF16);
    }
    lower_and_run(j);
    release(j);

    j = compile("kernels/matmul.py", "M=4096,N=4096,K=4096", "wormhole_n150");
    formats(j, ARCH_BFP4_B);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* bfp4_b: the whole 16x16 block at depth 16. */
    CHECK_MMS(j, 512, 512, 512, 8, 8, 4, 2, 2);
    assert_int_equal(j->bs->s[0].fidelity, ARCH_LOFI);
    lower_and_run(j);
    release(j);
}

static void mm_kernel_formats(void **state)
{
    (void)state;
    /* The kernel as written: bf16 inputs, fp32 output.  fp32 accumulation, HiFi2;
       factor 8, per_core 4x4, kw 4, sub with h*w <= 4 -> (2,2) (test_ttnn.c). */
    job *j = compile("kernels/matmul.py", "M=1024,N=1024,K=1024", "wormhole_n150");
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    CHECK_MMS(j, 128, 128, 128, 8, 8, 2, 2, 2);
    assert_true(j->bs->s[0].fp32_acc);
    assert_int_equal(j->bs->s[0].fidelity, ARCH_HIFI2);
    lower_and_run(j);
    release(j);
}

/* ---- matmul, Blackhole p150 13x10 ----------------------------------------- */

static void mm_blackhole(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=512,N=512,K=512", "blackhole_p150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: 16 % 13 -> kw 1, per_core ceil(16/10) = 2 x ceil(16/13) = 2, sub (2,2);
       8 rows x 8 columns of the 13x10 grid compute. */
    CHECK_MMS(j, 64, 64, 32, 8, 8, 2, 2, 2);
    check_2d(j);
    lower_and_run(j);
    release(j);

    j = compile("kernels/matmul.py", "M=4096,N=4096,K=4096", "blackhole_p150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* 2D: kw 1, per_core 13 x 10, sub (1,5); 10 rows x 13 columns. */
    CHECK_MMS(j, 416, 320, 32, 13, 10, 1, 5, 2);
    release(j);
}

/* ---- matmul, hand-tuned ----------------------------------------------------- */

static void mm_tuned(void **state)
{
    (void)state;
    job *j = compile("kernels/matmul.py", "M=4096,N=4096,K=4096", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_TUNED));
    /* row (512, 512, 512): per_core 16x16, in0_block_w 16, 2x2 out blocks of 8x8, sub (4,2);
       DRAM-interleaved A and C; HiFi2 (bf16's default pairing). */
    CHECK_MMS(j, 256, 256, 512, 8, 8, 4, 2, 2);
    check_2d(j);
    assert_string_equal(j->bs->s[0].origin, "ttnn-tuned");
    assert_int_equal(j->bs->s[0].fidelity, ARCH_HIFI2);
    lower_and_run(j);
    release(j);

    j = compile("kernels/matmul.py", "M=2048,N=2048,K=2048", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_true(convert(j, TTNN_SCHED_TUNED));
    /* row (256, 256, 256): per_core 8x8, in0_block_w 8, one out block, sharded output ->
       sub h = 1: (1,8).  The sharded A and C are noted. */
    CHECK_MMS(j, 256, 256, 256, 8, 8, 1, 8, 2);
    bool sharded = false;
    for (int i = 0; i < j->bs->nnotes; i++)
        sharded |= strstr(j->bs->notes[i], "sharded A") != NULL;
    assert_true(sharded);
    lower_and_run(j);
    release(j);

    /* not covered: no row for 3000 = 375 x 8 */
    j = compile("kernels/matmul.py", "M=3000,N=3000,K=3000", "wormhole_n150");
    formats(j, ARCH_BF16);
    assert_false(convert(j, TTNN_SCHED_TUNED));
    assert_non_null(strstr(j->bs->why, "no hand-tuned"));
    release(j);
}

/* ---- SDPA ------------------------------------------------------------------ */

static void sdpa_prefill(void **state)
{
    (void)state;
    job *j = compile("kernels/flash_attention.py", "B=1,H=8,S=1024,D=64", "wormhole_n150");
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    assert_int_equal(j->bs->family, TTNN_FAMILY_SDPA_PREFILL);
    /* chunks 32/32.  bpf = min(1, 64) = 1, hpf = min(64, 8) = 8, qpf = min(64/8, 32) = 8:
       query chunks on the 8 columns, heads on the 8 rows.  q_per_core = 32/8 = 4 > 1 ->
       Q double-buffered.  QK^T out 1x1 tile: sub (1,1); P V out 1x2: (1,2); (1,1) divides both. */
    assert_int_equal(val(j, 0, "BLOCK_M"), 32);
    assert_int_equal(val(j, 0, "BLOCK_N"), 32);
    assert_int_equal(val(j, 0, "grid.x"), 8);
    assert_int_equal(val(j, 0, "grid.y"), 8);
    assert_int_equal(val(j, 0, "depth.q"), 2);
    assert_int_equal(val(j, 0, "depth.k"), 2);
    assert_int_equal(val(j, 0, "depth.v"), 2);
    assert_int_equal(val(j, 0, "sub.h"), 1);
    assert_int_equal(val(j, 0, "sub.w"), 1);
    const sched_candidate *c = &j->bs->s[0].cand;
    assert_int_equal(c->place[0], SCHED_ON_X);
    assert_int_equal(c->place[1], SCHED_ON_Y);
    for (int i = 0; i < c->nops; i++)
        assert_int_equal(c->ops[i].transport, SCHED_DRAM);
    assert_int_equal(j->bs->s[0].fidelity, ARCH_HIFI2);
    lower_and_run(j);
    release(j);

    j = compile_c("kernels/flash_attention.py", "B=1,H=8,S=1024,D=64", "CAUSAL=1", "wormhole_n150");
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    /* causal: the pairing is noted as not expressible */
    bool pairing = false;
    for (int i = 0; i < j->bs->nnotes; i++)
        pairing |= strstr(j->bs->notes[i], "causal") != NULL;
    assert_true(pairing);
    release(j);
}

/* Ops `op` in a statement list, inside loops too. */
static int count_ops(df_stmt *const *body, int n, df_op op)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        c += body[i]->op == op;
        if (body[i]->op == DF_FOR)
            c += count_ops(body[i]->body, body[i]->nbody, op);
    }
    return c;
}

/* A program config: chunks, a restricted grid, fp32 accumulation, and
 * TTNN's bf16 intermediates, carried into the lowered program. */
static void sdpa_program_config(void **state)
{
    (void)state;
    job *j = compile("kernels/flash_attention.py", "B=1,H=2,S=1024,D=128", "blackhole_p150_fw19");
    j->bs = calloc(1, sizeof *j->bs);
    ttnn_sched_opts o = {.kind = TTNN_SCHED_DEFAULT, .sdpa_q_chunk = 256, .sdpa_k_chunk = 512, .sdpa_grid_x = 1,
                       .sdpa_grid_y = 1, .sdpa_interm_16b = true};
    assert_true(ttnn_schedule(j->bs, j->kp, j->n, &j->bound, j->a, &o, j->r.sym, &j->r.arena));
    /* one core: bpf = hpf = qpf = 1, so both axes go round the one core in
       waves; 4 query chunks per core -> Q double-buffered. QK^T out 8x16 tiles:
       sub_w = min(16, 8) = 8 = dst, h = 1, both chunks even -> 2 x 4; P V out
       8x4: sub_w = 4 = DHt, sub_h = min(8, 8/4) = 2; 2x4 divides both. */
    assert_int_equal(val(j, 0, "BLOCK_M"), 256);
    assert_int_equal(val(j, 0, "BLOCK_N"), 512);
    assert_int_equal(val(j, 0, "grid.x"), 1);
    assert_int_equal(val(j, 0, "grid.y"), 1);
    assert_int_equal(val(j, 0, "depth.q"), 2);
    assert_int_equal(val(j, 0, "sub.h"), 2);
    assert_int_equal(val(j, 0, "sub.w"), 4);
    assert_true(j->bs->s[0].interm_16b);
    assert_false(j->bs->s[0].fp32_acc);
    /* every CB of the compute kernel's values is bf16 (the card's support
       CBs have formats of their own), and the cast of P to bf16 is a view:
       no copy op */
    struct df_program *p = sched_lower(&j->k[0], &j->bs->s[0], j->a, j->r.sym, &j->d);
    assert_non_null(p);
    assert_true(df_validate(p, j->a, &j->d));
    int ncb = 0, copies = 0;
    for (int c = 0; c < p->nclasses; c++) {
        const df_class *dc = &p->classes[c];
        for (int i = 0; i < dc->ncbs; i++) {
            bool support = false;
            for (int k = 0; k < DF_NSUPPORT; k++)
                support |= dc->support[k] == dc->cbs[i].id;
            if (!support)
                assert_int_equal(dc->cbs[i].format, ARCH_BF16), ncb++;
        }
        const df_kernel *kc = &p->classes[c].kernels[DF_COMPUTE];
        copies += count_ops(kc->body, kc->nbody, DF_COPY);
    }
    assert_true(ncb > 6);
    assert_int_equal(copies, 0);
    df_free(p);
    release(j);

    /* a grid larger than the chip's is refused */
    j = compile("kernels/flash_attention.py", "B=1,H=2,S=1024,D=128", "wormhole_n150");
    j->bs = calloc(1, sizeof *j->bs);
    ttnn_sched_opts big = {.kind = TTNN_SCHED_DEFAULT, .sdpa_grid_x = 9, .sdpa_grid_y = 8};
    assert_false(ttnn_schedule(j->bs, j->kp, j->n, &j->bound, j->a, &big, j->r.sym, &j->r.arena));
    assert_non_null(strstr(j->bs->why, "larger"));
    release(j);

    /* fp32 accumulation halves Dst: QK^T 1x1 tiles of 32/32 chunks stay 1x1 */
    j = compile("kernels/flash_attention.py", "B=1,H=8,S=1024,D=64", "wormhole_n150");
    j->bs = calloc(1, sizeof *j->bs);
    ttnn_sched_opts f32 = {.kind = TTNN_SCHED_DEFAULT, .have_fp32_acc = true, .fp32_acc = true};
    assert_true(ttnn_schedule(j->bs, j->kp, j->n, &j->bound, j->a, &f32, j->r.sym, &j->r.arena));
    assert_true(j->bs->s[0].fp32_acc);
    assert_int_equal(j->bs->sdpa.dst_size, 4);
    release(j);
}

static void sdpa_decode(void **state)
{
    (void)state;
    job *j = compile("kernels/flash_decode.py", "B=1,H=32,HKV=8,S=8192,D=128", "wormhole_n150");
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    assert_int_equal(j->bs->family, TTNN_FAMILY_SDPA_DECODE);
    /* k_chunk = get_chunk_size(8192) = 512 (largest power-of-two divisor, capped);
       cores_per_batch = min(64, 64 x 1 x 8) / 1 = 64; cores_per_head = 64 / 8 = 8:
       NUM_SPLITS 8, 8 x 8 = 64 programs on 64 cores.  QK^T out 1 x 16 tiles: sub 1 x 8;
       P V out 1 x 4: 1 x 4; (1,8) does not divide 4, (1,4) divides 16 -> (1,4). */
    assert_int_equal(val(j, 0, "BLOCK_N"), 512);
    assert_int_equal(val(j, 0, "NUM_SPLITS"), 8);
    assert_int_equal(val(j, 0, "grid.x"), 8);
    assert_int_equal(val(j, 0, "grid.y"), 8);
    assert_int_equal(val(j, 0, "sub.h"), 1);
    assert_int_equal(val(j, 0, "sub.w"), 4);
    assert_int_equal(val(j, 1, "NUM_SPLITS"), 8);
    /* cores_per_head = 8 = the grid's width: under TTNN's linear core order
       kv head h's workers are row h, so TTNN's reduction in L1 over the NoC
       is a fused pair - the split axis along x, the kv axis down the 8 rows,
       the combine's query heads in time on the row's cores, both its loads
       passed over the NoC */
    const sched_candidate *c = &j->bs->s[0].cand, *c1 = &j->bs->s[1].cand;
    assert_int_equal(c->place[0], SCHED_ON_Y);
    assert_int_equal(c->place[1], SCHED_ON_X);
    assert_int_equal(c->fuse, SCHED_FUSE_PRODUCER);
    assert_int_equal(c->fuse_along, SCHED_ON_X);
    assert_int_equal(c1->fuse, SCHED_FUSE_CONSUMER);
    assert_int_equal(c1->place[0], SCHED_ON_Y);
    assert_int_equal(c1->place[1], SCHED_ON_TIME);
    assert_int_equal(c1->nops, 2);
    assert_int_equal(c1->ops[0].transport, SCHED_FUSED);
    assert_int_equal(c1->ops[1].transport, SCHED_FUSED);
    lower_and_run(j);
    release(j);

    /* without fusion (--no-fuse) the same rules, as two launches */
    j = compile("kernels/flash_decode.py", "B=1,H=32,HKV=8,S=8192,D=128", "wormhole_n150");
    j->bs = calloc(1, sizeof *j->bs);
    assert_non_null(j->bs);
    ttnn_sched_opts nf = {.kind = TTNN_SCHED_DEFAULT, .no_fuse = true};
    assert_true(ttnn_schedule(j->bs, j->kp, j->n, &j->bound, j->a, &nf, j->r.sym, &j->r.arena));
    assert_int_equal(j->bs->s[0].cand.fuse, SCHED_FUSE_NONE);
    assert_int_equal(j->bs->s[0].cand.place[0], SCHED_ON_XY);
    release(j);

    /* 32 kv heads: cores_per_head = 64 / 32 = 2, two heads per row; not a
       fused pair, so the two launches, and the notes say why */
    j = compile("kernels/flash_decode.py", "B=1,H=32,HKV=32,S=4096,D=128", "wormhole_n150");
    assert_true(convert(j, TTNN_SCHED_DEFAULT));
    assert_int_equal(val(j, 0, "NUM_SPLITS"), 2);
    c = &j->bs->s[0].cand;
    assert_int_equal(c->fuse, SCHED_FUSE_NONE);
    assert_int_equal(c->place[0], SCHED_ON_XY);
    assert_int_equal(c->place[1], SCHED_ON_XY);
    /* combine: B x H = 32 programs -> 8 x 4 */
    assert_int_equal(val(j, 1, "grid.x"), 8);
    assert_int_equal(val(j, 1, "grid.y"), 4);
    bool said = false;
    for (int i = 0; i < j->bs->nnotes; i++)
        said |= strstr(j->bs->notes[i], "cores_per_head = 2 is not the grid's width (8)") != NULL;
    assert_true(said);
    lower_and_run(j);
    release(j);
}

static void not_ttnn(void **state)
{
    (void)state;
    /* --const pinning a block size TTNN chooses is refused with a reason */
    job *j = calloc(1, sizeof *j);
    assert_non_null(j);
    lm_diag_init(&j->d, stderr);
    j->a = arch_load("wormhole_n150", &j->d);
    fe_kv kv[3] = {{"M", 512}, {"N", 512}, {"K", 512}};
    fe_kv cs[1] = {{"BLOCK_K", 64}};
    drv_opts o = {.path = "kernels/matmul.py", .launch = {.shapes = kv, .nshapes = 3, .consts = cs, .nconsts = 1}};
    assert_true(drv_compile(&j->r, &o, &j->d));
    const fe_spec *spec = j->r.spec;
    for (int i = 0; i < spec->env.n; i++)
        sym_env_set_range(&j->bound, spec->env.b[i].var, spec->env.b[i].lo, spec->env.b[i].hi);
    sched_free frees[SCHED_MAX_VARS];
    int nf = 0;
    for (int i = 0; i < spec->nfrees; i++)
        frees[nf++] = (sched_free){.var = spec->frees[i].var, .pinned = spec->frees[i].bound};
    assert_true(sched_summarize(&j->k[0], j->r.launches[0].func, j->r.launches[0].access, j->a, frees, nf,
                                j->r.sym, &j->r.arena, &j->d));
    j->kp[0] = &j->k[0];
    j->n = 1;
    assert_false(convert(j, TTNN_SCHED_DEFAULT));
    assert_non_null(strstr(j->bs->why, "pinned"));
    release(j);
}

static void default_fidelity(void **state)
{
    (void)state;
    assert_int_equal(ttnn_default_fidelity(ARCH_BF16, ARCH_BF16, TTNN_CHIP_WORMHOLE), ARCH_HIFI2);
    assert_int_equal(ttnn_default_fidelity(ARCH_BFP8_B, ARCH_BFP4_B, TTNN_CHIP_WORMHOLE), ARCH_LOFI);
    assert_int_equal(ttnn_default_fidelity(ARCH_BFP8_B, ARCH_BF16, TTNN_CHIP_BLACKHOLE), ARCH_HIFI2);
    assert_int_equal(ttnn_default_fidelity(ARCH_FP32, ARCH_FP32, TTNN_CHIP_BLACKHOLE), ARCH_HIFI4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_fidelity), cmocka_unit_test(mm_512_cubed),   cmocka_unit_test(mm_1024_cubed),
        cmocka_unit_test(mm_4096_cubed),    cmocka_unit_test(mm_8192_cubed),  cmocka_unit_test(mm_row_1d),
        cmocka_unit_test(mm_narrow),        cmocka_unit_test(mm_k_one_tile),  cmocka_unit_test(mm_unaligned),
        cmocka_unit_test(mm_block_float),   cmocka_unit_test(mm_kernel_formats), cmocka_unit_test(mm_blackhole),
        cmocka_unit_test(mm_tuned),         cmocka_unit_test(sdpa_prefill),   cmocka_unit_test(sdpa_program_config),   cmocka_unit_test(sdpa_decode),
        cmocka_unit_test(not_ttnn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
