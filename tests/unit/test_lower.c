/* test_lower.c - the lowering (src/lower/lower.c) end to end: kernels of
 * kernels/ compiled through the driver, schedules built here by hand (every
 * placement and transport the lowering supports), lowered, validated,
 * simulated on the Wormhole n150 description and compared with the Tile IR
 * interpreter through sched_run_job. Also: the structure of the programs
 * (roles as classes, multicast handshakes, CBs), the text round trip, the
 * tensor layout helpers, the 'mask' op against first principles, and the
 * errors for what cannot be lowered.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "df/df.h"
#include "driver/driver.h"
#include "lower/lower.h"
#include "sched/sched.h"
#include "num/num.h"
#include "sim/sim.h"
#include "test_kv.h"

static arch_desc *WH;

static int setup(void **st)
{
    (void)st;
    lm_diag d;
    lm_diag_init(&d, stderr);
    WH = arch_load("wormhole_n150", &d);
    return WH ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    arch_free(WH);
    return 0;
}

/* ---- a compiled job and hand-made schedules ------------------------------------ */

typedef struct job {
    drv_result r;
    lm_diag d;
    FILE *err;          /* diagnostics, kept for assertions on messages */
    char *errtext;
    size_t errlen;
    sched_kernel k[SCHED_MAX_LAUNCHES];
    sched_schedule s[SCHED_MAX_LAUNCHES];
} job;

/* Compile, summarise, and give every launch a schedule: axis 0 on y, axis
 * 1 on x, loads from DRAM, values = the spec's plus `values`. */
static void job_open(job *j, const char *path, const char *shapes, const char *consts, const char *values)
{
    static char sbuf[256], cbuf[256], vbuf[256];
    fe_kv sk[16], ck[16], vk[16];
    memset(j, 0, sizeof *j);
    j->err = open_memstream(&j->errtext, &j->errlen);
    lm_diag_init(&j->d, j->err);
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shapes, sk, 16, sbuf, sizeof sbuf);
    o.launch.consts = ck;
    o.launch.nconsts = consts ? parse_kv(consts, ck, 16, cbuf, sizeof cbuf) : 0;
    bool ok = drv_compile(&j->r, &o, &j->d);
    fflush(j->err);
    if (!ok)
        print_error("%s\n", j->errtext);
    assert_true(ok);
    int nv = parse_kv(values, vk, 16, vbuf, sizeof vbuf);
    const fe_spec *spec = j->r.spec;
    sched_free frees[SCHED_MAX_VARS];
    int nf = 0;
    for (int i = 0; i < spec->nfrees; i++)
        frees[nf++] = (sched_free){.var = spec->frees[i].var, .pinned = spec->frees[i].bound};
    for (int l = 0; l < j->r.nlaunches; l++) {
        drv_launch *dl = &j->r.launches[l];
        ok = sched_summarize(&j->k[l], dl->func, dl->access, WH, frees, nf, j->r.sym, &j->r.arena, &j->d);
        assert_true(ok);
        sched_schedule *s = &j->s[l];
        s->k = &j->k[l];
        for (int g = 0; g < TIR_MAX_GRID; g++)
            s->cand.place[g] = g == 0 ? SCHED_ON_Y : g == 1 ? SCHED_ON_X : SCHED_ON_TIME;
        for (int i = 0; i < dl->access->n; i++)
            if (!dl->access->acc[i].is_store)
                s->cand.ops[s->cand.nops++] = (sched_operand){i, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
        for (int i = 0; i < spec->env.n; i++)
            sym_env_set(&s->values, spec->env.b[i].var, spec->env.b[i].lo);
        for (int i = 0; i < nv; i++)
            sym_env_set(&s->values, sym_var(j->r.sym, vk[i].name), vk[i].value);
        s->fidelity = j->k[l].fidelity;
        s->fp32_acc = j->k[l].fp32_acc;
        s->origin = "test";
        s->predicted_cycles = -1;
    }
}

static void job_close(job *j)
{
    for (int l = 0; l < j->r.nlaunches; l++)
        sym_env_free(&j->s[l].values);
    drv_free(&j->r);
    fclose(j->err);
    free(j->errtext);
}

static void place(job *j, int l, int axis, sched_place p) { j->s[l].cand.place[axis] = p; }

/* Set the transport of the loads of tensor `name` in launch l. */
static void transport(job *j, int l, const char *name, sched_transport t, sched_place along, bool mid)
{
    bool found = false;
    for (int i = 0; i < j->s[l].cand.nops; i++) {
        sched_operand *o = &j->s[l].cand.ops[i];
        const acc_access *aa = &j->k[l].acc->acc[o->access];
        if (aa->tensor && !strcmp(aa->tensor->name, name)) {
            o->transport = t;
            o->along = along;
            o->interior_sender = mid;
            found = true;
        }
    }
    assert_true(found);
}

static df_program *lower(job *j, int l)
{
    df_program *p = sched_lower(&j->k[l], &j->s[l], WH, j->r.sym, &j->d);
    fflush(j->err);
    if (!p)
        print_error("%s\n", j->errtext);
    return p;
}

/* Lower, validate, simulate and check the whole job; returns the result. */
static sched_run_result run_checked(job *j)
{
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    for (int l = 0; l < j->r.nlaunches; l++)
        kp[l] = &j->k[l], sp[l] = &j->s[l];
    sched_run_opts o = {.arch = WH, .check = true, .seed = 7};
    sched_run_result r;
    bool ok = sched_run_job(&r, kp, sp, j->r.nlaunches, (const tir_tensor *const *)j->r.spec->tensors,
                            j->r.spec->ntensors, &o, j->r.sym, &j->d);
    fflush(j->err);
    if (!ok)
        print_error("%s\n", j->errtext);
    assert_true(ok);
    for (int i = 0; i < r.noutputs; i++)
        if (!r.outputs[i].pass)
            print_error("%s: max abs %g, max rel %g > tolerance %g\n", r.outputs[i].tensor, r.outputs[i].max_abs,
                        r.outputs[i].max_rel, r.outputs[i].tolerance);
    assert_int_equal(r.check, SCHED_CHECK_PASS);
    assert_true(r.noutputs >= 1);
    assert_true(r.cycles > 0);
    return r;
}

/* Statements of op `op`, in loops and as steps of chains. */
static int count_ops(df_stmt *const *body, int n, df_op op)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        c += body[i]->op == op;
        if (body[i]->op == DF_FOR || body[i]->op == DF_CHAIN || body[i]->op == DF_PCHAIN)
            c += count_ops(body[i]->body, body[i]->nbody, op);
    }
    return c;
}

/* The i-th statement of op `op` of a kernel (in program order), or NULL. */
static const df_stmt *nth_op(df_stmt *const *body, int n, df_op op, int *i)
{
    for (int k = 0; k < n; k++) {
        if (body[k]->op == op && (*i)-- == 0)
            return body[k];
        if (body[k]->op == DF_FOR) {
            const df_stmt *c = nth_op(body[k]->body, body[k]->nbody, op, i);
            if (c)
                return c;
        }
    }
    return NULL;
}

/* The format of CB id in class c (fails the test when it is not declared). */
static arch_format cb_format(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return c->cbs[i].format;
    fail_msg("CB %d is not declared", id);
    return ARCH_FP32;
}

static const df_stmt *compute_op(const df_class *c, df_op op, int i)
{
    return nth_op(c->kernels[DF_COMPUTE].body, c->kernels[DF_COMPUTE].nbody, op, &i);
}

static const df_stmt *chain_of(const df_class *c, int i) { return compute_op(c, DF_CHAIN, i); }

static int class_ops(const df_class *c, df_kernel_kind k, df_op op)
{
    return count_ops(c->kernels[k].body, c->kernels[k].nbody, op);
}

static const df_class *class_at(const df_program *p, int x, int y)
{
    for (int i = 0; i < p->nclasses; i++) {
        const df_class *c = &p->classes[i];
        if (x >= c->x0 && x <= c->x1 && y >= c->y0 && y <= c->y1)
            return c;
    }
    return NULL;
}

/* The printed program parses back to the same text. */
static void round_trip(const df_program *p)
{
    lm_buf a = {0}, b = {0};
    df_print(&a, p);
    lm_diag d;
    lm_diag_init(&d, stderr);
    df_program *q = df_parse("lowered", lm_buf_str(&a), a.len, &d);
    assert_non_null(q);
    assert_true(df_bind(q, NULL, 0, &d));
    assert_true(df_validate(q, WH, &d));
    df_print(&b, q);
    assert_string_equal(lm_buf_str(&a), lm_buf_str(&b));
    df_free(q);
    lm_buf_free(&a);
    lm_buf_free(&b);
}

/* ---- matmul --------------------------------------------------------------------- */

static const char *MM = "kernels/matmul.py";

static void matmul_dram(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=256,N=256,K=256", NULL, "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=4,grid.y=4");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    /* one class, every core alike: 16 programs on 16 cores, no waves */
    assert_int_equal(p->nclasses, 1);
    const df_class *c = &p->classes[0];
    assert_int_equal(c->x1 - c->x0 + 1, 4);
    assert_int_equal(c->y1 - c->y0 + 1, 4);
    assert_int_equal(p->nsems, 0);
    /* K loop of 4 blocks: two reads per step in the reader, one matmul
       accumulating in place in the compute kernel, one write; the CBs hold
       two blocks, so each read is also issued before the loop (the first
       step's block) and each step waits for its own block's id alone */
    assert_int_equal(class_ops(c, DF_READER, DF_READ), 4);
    assert_int_equal(class_ops(c, DF_READER, DF_READ_BARRIER), 2);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_MATMUL), 1);
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE), 1);
    assert_true(df_validate(p, WH, &j.d));
    round_trip(p);
    df_free(p);
    sched_run_result r = run_checked(&j);
    /* 2*M*N*K FLOPs in tile matmuls */
    assert_true(fabs(r.flops - 2.0 * 256 * 256 * 256) < 1);
    job_close(&j);
}

static void matmul_mcast(void **st, int n, bool mid)
{
    (void)st;
    job j;
    char shapes[64], vals[128];
    snprintf(shapes, sizeof shapes, "M=%d,N=%d,K=256", 64 * n, 64 * n);
    snprintf(vals, sizeof vals, "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=%d,grid.y=%d", n, n);
    job_open(&j, MM, shapes, NULL, vals);
    /* pid.0 (rows of C) on y, pid.1 on x: a is shared along a row, b along a column */
    transport(&j, 0, "a", SCHED_MCAST, SCHED_ON_X, mid);
    transport(&j, 0, "b", SCHED_MCAST, SCHED_ON_Y, mid);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    assert_int_equal(p->nsems, 4); /* ready and valid per multicast operand */
    int sx = mid ? (n - 1) / 2 : 0;
    /* the sender of a reads and multicasts; the others receive */
    const df_class *snd = class_at(p, sx, sx), *rcv = class_at(p, (sx + 1) % n, (sx + 1) % n);
    assert_non_null(snd);
    assert_non_null(rcv);
    assert_int_equal(class_ops(snd, DF_READER, DF_READ), 1);
    assert_int_equal(class_ops(snd, DF_READER, DF_MCAST), 1);
    assert_int_equal(class_ops(snd, DF_READER, DF_SEM_MCAST), 1);
    assert_int_equal(class_ops(rcv, DF_READER, DF_READ), 0);
    assert_int_equal(class_ops(rcv, DF_READER, DF_SEM_INC), 1);
    /* b moves in the writer kernel, on the other NoC */
    assert_int_equal(class_ops(snd, DF_WRITER, DF_MCAST), 1);
    assert_int_equal(class_ops(rcv, DF_WRITER, DF_SEM_WAIT), 1);
    /* roles: sender column/row bands -> 4 classes (edge) or 9 (middle of 3+) */
    assert_int_equal(p->nclasses, mid && n > 2 ? 9 : 4);
    assert_true(df_validate(p, WH, &j.d));
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

static void matmul_mcast_2x2(void **st) { matmul_mcast(st, 2, false); }
static void matmul_mcast_4x4(void **st) { matmul_mcast(st, 4, false); }
static void matmul_mcast_4x4_middle(void **st) { matmul_mcast(st, 4, true); }

/* A NoC fixed per transport, as TTNN's 2D multicast matmul fixes it (in0
 * on NoC 1, in1 and the output on NoC 0), also in the transposed layout
 * (transpose_mcast: M on the columns, A multicast down them from the top
 * row, B along the rows from the left column): each transfer goes on the
 * data-movement kernel that runs on its NoC - the reader on NoC 0, the
 * writer on NoC 1 - whatever its direction, and the result is right. */
static void matmul_mcast_nocs(void **st, bool transposed)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=256,N=256,K=256", NULL, "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=4,grid.y=4");
    sched_place mp = transposed ? SCHED_ON_X : SCHED_ON_Y, np = transposed ? SCHED_ON_Y : SCHED_ON_X;
    place(&j, 0, 0, mp);
    place(&j, 0, 1, np);
    transport(&j, 0, "a", SCHED_MCAST, np, false);
    transport(&j, 0, "b", SCHED_MCAST, mp, false);
    for (int i = 0; i < j.s[0].cand.nops; i++)
        j.s[0].cand.ops[i].noc = i == 0 ? SCHED_NOC_1 : SCHED_NOC_0;
    j.s[0].cand.store_noc = SCHED_NOC_0;
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    /* the corner core sends both: A from the writer, B from the reader,
       which also writes C */
    const df_class *c = class_at(p, 0, 0);
    assert_non_null(c);
    assert_int_equal(class_ops(c, DF_WRITER, DF_READ), 1);
    assert_int_equal(class_ops(c, DF_WRITER, DF_MCAST), 1);
    assert_int_equal(class_ops(c, DF_READER, DF_READ), 1);
    assert_int_equal(class_ops(c, DF_READER, DF_MCAST), 1);
    assert_int_equal(class_ops(c, DF_READER, DF_WRITE), 1);
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE), 0);
    /* A travels along x untransposed, along y transposed */
    const df_class *a_rcv = transposed ? class_at(p, 0, 1) : class_at(p, 1, 0);
    assert_non_null(a_rcv);
    assert_int_equal(class_ops(a_rcv, DF_WRITER, DF_SEM_INC), 1); /* ready to A's sender, on NoC 1 */
    assert_int_equal(class_ops(a_rcv, DF_WRITER, DF_READ), 0);
    /* every core writes its C block from the reader (NoC 0) */
    for (int i = 0; i < p->nclasses; i++) {
        assert_int_equal(class_ops(&p->classes[i], DF_READER, DF_WRITE), 1);
        assert_int_equal(class_ops(&p->classes[i], DF_WRITER, DF_WRITE), 0);
    }
    assert_true(df_validate(p, WH, &j.d));
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

static void matmul_mcast_nocs_2d(void **st) { matmul_mcast_nocs(st, false); }
static void matmul_mcast_nocs_transposed(void **st) { matmul_mcast_nocs(st, true); }

/* More programs than cores: waves, the last one partial, so the multicast
 * groups shrink; forwarding along rows and columns. */
static void matmul_waves_forward(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=256,N=256,K=128", NULL, "BLOCK_M=32,BLOCK_N=64,BLOCK_K=64,grid.x=3,grid.y=3");
    transport(&j, 0, "a", SCHED_FORWARD, SCHED_ON_X, false);
    transport(&j, 0, "b", SCHED_FORWARD, SCHED_ON_Y, false);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    /* 8 row blocks on 3 rows, 4 column blocks on 3 columns: every core runs
       3 x 2 waves in lockstep (a core without a program in the last wave
       still passes blocks on), so no wave count depends on the core */
    const df_class *c = class_at(p, 1, 1);
    assert_non_null(c);
    assert_int_equal(c->nargs, 0);
    assert_int_equal(class_ops(c, DF_READER, DF_SEND), 1);
    bool wy = false;
    for (int i = 0; i < c->nslots; i++)
        wy |= !strcmp(c->slot_names[i], "w_y");
    assert_true(wy);
    df_free(p);
    run_checked(&j);
    /* the same with multicast from the edge */
    transport(&j, 0, "a", SCHED_MCAST, SCHED_ON_X, false);
    transport(&j, 0, "b", SCHED_MCAST, SCHED_ON_Y, false);
    run_checked(&j);
    job_close(&j);
}

/* Axes flattened over the grid, and an axis looped in time with a
 * multicast of the operand that does not depend on the spread axis. */
static void matmul_xy_and_time(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=128,N=192,K=64", NULL, "BLOCK_M=32,BLOCK_N=64,BLOCK_K=32,grid.x=3,grid.y=2");
    place(&j, 0, 0, SCHED_ON_XY);
    place(&j, 0, 1, SCHED_ON_XY);
    run_checked(&j);
    place(&j, 0, 0, SCHED_ON_TIME);
    place(&j, 0, 1, SCHED_ON_X);
    transport(&j, 0, "a", SCHED_MCAST, SCHED_ON_X, false);
    sym_env_set(&j.s[0].values, sym_var(j.r.sym, "grid.y"), 1);
    run_checked(&j);
    job_close(&j);
}

/* Blocks of 48 rows do not start on tile boundaries: they move element by
 * element (read_elems/write_elems); the rows past 48 in the second tile
 * of a block are never stored. */
static void matmul_unaligned_blocks(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=96,N=64,K=64", NULL, "BLOCK_M=48,BLOCK_N=32,BLOCK_K=32,grid.x=2,grid.y=2");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    /* each read twice: the first step's block before the K loop, the next
       one's inside it (read ahead) */
    assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 2);
    assert_int_equal(class_ops(c, DF_READER, DF_READ), 2);
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), 1);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* M = 100 in 64-row blocks: the boundary check cuts the second block of a
 * and c short at row 100, which the tile layout pads to 128. The block
 * still starts on the tile grid, so it moves whole tiles: the tiles that
 * hold rows 64..99 (two of them, the second partly padding), which the
 * compute kernel's masked copy then cuts for a, and whose padding c's
 * store writes. No element moves. */
static void clipped_rows_move_tiles(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=100,N=64,K=64", NULL, "BLOCK_M=64,BLOCK_N=32,BLOCK_K=32,grid.x=2,grid.y=2");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 0);
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), 0);
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE), 1);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_MASK), 1); /* a's masked copy */
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* K = 80 in 64-column steps: a's second block (columns 64..127) is cut
 * across its two tile columns, one of them inside the extent; K = 160 in
 * 96s: columns 96..191, two of three inside; N = 100 in 64s: b's and c's
 * second column block, 36 columns in both tile columns. The blocks start
 * on the tile grid, so they still move whole tiles - the tile columns
 * inside, a read or write a tile row so that each row of pages stays a
 * block's width apart - and the masked copy zeroes the rest of a load (c's
 * store writes padding past N); no element moves. The product checks
 * against the reference, which a page out of place would fail. */
static void clipped_cols_move_tiles(void **st)
{
    (void)st;
    static const struct {
        const char *shape, *values;
    } cases[] = {
        {"M=64,N=64,K=80", "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=1,grid.y=1"},
        {"M=64,N=96,K=160", "BLOCK_M=64,BLOCK_N=96,BLOCK_K=96,grid.x=1,grid.y=1"},
        {"M=64,N=100,K=64", "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=2,grid.y=1"},
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        job j;
        job_open(&j, MM, cases[i].shape, NULL, cases[i].values);
        df_program *p = lower(&j, 0);
        assert_non_null(p);
        const df_class *c = &p->classes[0];
        assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 0);
        assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), 0);
        /* the cut block's moves of one tile row each, in a loop over the rows */
        static const df_kernel_kind dm[2] = {DF_READER, DF_WRITER};
        static const df_op moves[2] = {DF_READ, DF_WRITE};
        bool row_moves = false;
        for (int d = 0; d < 2; d++)
            for (int k = 0; k < class_ops(c, dm[d], moves[d]); k++) {
                int n = k;
                const df_stmt *r = nth_op(c->kernels[dm[d]].body, c->kernels[dm[d]].nbody, moves[d], &n);
                row_moves |= r->rows->kind == DF_X_CONST && r->rows->value == 1;
            }
        assert_true(row_moves);
        df_free(p);
        run_checked(&j);
        job_close(&j);
    }
}

/* A store whose block pointer stops 20 rows short of the tensor
 * (tests/unit/data/short_store.py, M = 100: z's rows 80..99 are never
 * written). Its cut lies inside the tensor, so the store moves only the
 * rows inside, element by element; the load, cut at the tensor's own
 * extent, moves whole tiles. In 32-row blocks the fourth program's block
 * lies wholly past row 80 and stores nothing. */
static void short_store_moves_elements(void **st)
{
    (void)st;
    static const char *const blocks[] = {"BLOCK_M=64,grid.x=1,grid.y=2", "BLOCK_M=32,grid.x=1,grid.y=4"};
    for (size_t i = 0; i < LM_COUNT(blocks); i++) {
        job j;
        job_open(&j, "tests/unit/data/short_store.py", "M=100,N=64", NULL, blocks[i]);
        df_program *p = lower(&j, 0);
        assert_non_null(p);
        const df_class *c = &p->classes[0];
        assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 0);
        assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), 1);
        df_free(p);
        run_checked(&j);
        job_close(&j);
    }
}

/* The reader's data-movement ops in program order, one letter each (loops
 * and their 0-or-1-trip guards flattened): R read, E read_elems, B
 * read_barrier, P cb_push, V cb_reserve. */
static void reader_order(df_stmt *const *body, int n, lm_buf *out)
{
    for (int i = 0; i < n; i++) {
        switch (body[i]->op) {
        case DF_READ: lm_buf_puts(out, "R"); break;
        case DF_READ_ELEMS: lm_buf_puts(out, "E"); break;
        case DF_READ_BARRIER: lm_buf_puts(out, "B"); break;
        case DF_CB_PUSH: lm_buf_puts(out, "P"); break;
        case DF_CB_RESERVE: lm_buf_puts(out, "V"); break;
        case DF_FOR: reader_order(body[i]->body, body[i]->nbody, out); break;
        default: break;
        }
    }
}

/* The same blocks in the K loop, read ahead: b's tile reads issue its next
 * block before waiting for the current one (reserve two blocks, read,
 * barrier, push), a's element moves push the current block first and issue
 * the next after (barrier, push, reserve one block, read_elems), so that a
 * block is not held back while the next one's commands are issued. */
static void element_moves_push_first(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=96,N=64,K=128", NULL, "BLOCK_M=48,BLOCK_N=32,BLOCK_K=32,grid.x=2,grid.y=2");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_kernel *r = &p->classes[0].kernels[DF_READER];
    const df_stmt *loop = NULL;
    for (int i = 0; i < r->nbody && !loop; i++)
        if (r->body[i]->op == DF_FOR && count_ops(r->body[i]->body, r->body[i]->nbody, DF_READ_ELEMS))
            loop = r->body[i];
    assert_non_null(loop);
    lm_buf o = {0};
    reader_order(loop->body, loop->nbody, &o);
    const char *got = lm_buf_str(&o);
    /* the K loop itself (the program loop's body holds the first blocks) */
    const char *k = strstr(got, "BPVE");
    assert_non_null(k);
    assert_non_null(strstr(got, "VRBP"));
    assert_null(strstr(got, "VEBP"));
    lm_buf_free(&o);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* K = 96 in blocks of 64: the boundary check cuts the last block of a and
 * b short; on one core running both programs the pages past K hold the
 * previous program's data, so the compute kernel masks them to zero. */
static void matmul_k_tail(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=128,N=128,K=96", NULL,
             "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=1,grid.y=1,depth.a=1,depth.b=1");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    assert_int_equal(class_ops(&p->classes[0], DF_COMPUTE, DF_MASK), 2);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* ---- attention ------------------------------------------------------------------- */

/* The partial sums of a bf16 matmul between K blocks (--format bf16: the
 * partials kept in the output's format, TTNN's interm CB with packer L1
 * accumulation). Emulated here from the primitives: per K block the block's
 * tile products are summed in fp32 in Dst, the packer adds them to the bf16
 * partial in L1 and rounds the sum to bf16 - once per block. The simulated
 * output must be exactly that, and differ from one rounding at the end (the
 * partials are rounded). The check of the run allows for those roundings. */
static void matmul_bf16_partials(void **st)
{
    (void)st;
    enum { M = 64, N = 64, K = 1024, BK = 32, T = 32 };
    job j;
    job_open(&j, MM, "M=64,N=64,K=1024", NULL, "BLOCK_M=32,BLOCK_N=32,BLOCK_K=32,grid.x=2,grid.y=2");
    sched_set_formats(&j.k[0], ARCH_BF16, ARCH_BF16, true, WH, j.r.sym);
    j.s[0].fidelity = ARCH_HIFI4;
    j.s[0].fp32_acc = j.k[0].fp32_acc;
    assert_false(j.s[0].fp32_acc);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    num_fill_random(A, M * K, 5, ARCH_BF16);
    num_fill_random(B, K * N, 6, ARCH_BF16);
    const float *init[8] = {0};
    int tc = -1;
    for (int t = 0; t < p->ntensors; t++) {
        if (!strcmp(p->tensors[t].name, "a"))
            init[t] = A;
        else if (!strcmp(p->tensors[t].name, "b"))
            init[t] = B;
        else if (!strcmp(p->tensors[t].name, "c"))
            tc = t;
    }
    assert_true(tc >= 0);
    assert_int_equal(p->tensors[tc].format, ARCH_BF16);
    sim_options so = {.tensor_init = init, .keep_tensors = true};
    sim_result *r = sim_run(p, WH, &so, &j.d);
    assert_non_null(r);
    const float *C = r->tensor_data[tc];

    static float ta[T * T], tb[T * T], blk[T * T], part[T * T], once[T * T];
    int64_t same = 0, differs_from_once = 0;
    for (int ti = 0; ti < M / T; ti++)
        for (int tj = 0; tj < N / T; tj++) {
            memset(once, 0, sizeof once);
            for (int kb = 0; kb < K / BK; kb++) {
                memset(blk, 0, sizeof blk);
                for (int tk = kb * BK / T; tk < (kb + 1) * BK / T; tk++) {
                    for (int i = 0; i < T; i++) {
                        memcpy(ta + i * T, A + (size_t)(ti * T + i) * K + tk * T, T * sizeof(float));
                        memcpy(tb + i * T, B + (size_t)(tk * T + i) * N + tj * T, T * sizeof(float));
                    }
                    num_tile_matmul_acc(blk, ta, tb, ARCH_HIFI4);
                    num_tile_matmul_acc(once, ta, tb, ARCH_HIFI4);
                }
                for (int q = 0; q < T * T; q++)
                    part[q] = kb ? part[q] + blk[q] : blk[q];
                num_pack_tile(part, ARCH_BF16);
            }
            num_pack_tile(once, ARCH_BF16);
            for (int i = 0; i < T; i++)
                for (int q = 0; q < T; q++) {
                    float got = C[(size_t)(ti * T + i) * N + tj * T + q];
                    same += memcmp(&got, &part[i * T + q], sizeof got) == 0;
                    differs_from_once += got != once[i * T + q];
                }
        }
    assert_int_equal(same, M * N);
    assert_true(differs_from_once > 0);
    sim_result_free(r);
    df_free(p);
    free(A);
    free(B);
    /* the check of such a run allows for the K/BK - 1 roundings of the
       partials (and the default fidelity's error) */
    j.s[0].fidelity = j.k[0].fidelity;
    sched_run_result rr = run_checked(&j);
    assert_int_equal(rr.noutputs, 1);
    assert_true(fabs(rr.outputs[0].tolerance -
                     num_tolerance_packed(ARCH_BF16, K, j.k[0].fidelity, ARCH_BF16, K / BK - 1)) < 1e-12);
    job_close(&j);
}

static const char *FA = "kernels/flash_attention.py";

/* The last loop (deepest, in program order) whose own statements hold a
 * row maximum: the loop over key blocks, or its part that keeps the mask
 * when the lowering split it (docs/scheduler.md, "A mask split off the trips where it is the identity"). */
static const df_stmt *last_score_loop(df_stmt *const *body, int n)
{
    const df_stmt *last = NULL;
    for (int i = 0; i < n; i++) {
        const df_stmt *f = body[i];
        if (f->op != DF_FOR)
            continue;
        const df_stmt *in = last_score_loop(f->body, f->nbody);
        for (int k = 0; !in && k < f->nbody; k++)
            if (f->body[k]->op == DF_ROWMAX)
                in = f;
        last = in ? in : last;
    }
    return last;
}

static void attention(void **st, bool causal, bool mcast)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=2,S=128,D=64", causal ? "CAUSAL=1" : "CAUSAL=0",
             "BLOCK_M=64,BLOCK_N=64,grid.x=2,grid.y=2");
    if (mcast) {
        /* query blocks along x share every key and value block */
        place(&j, 0, 0, SCHED_ON_X);
        place(&j, 0, 1, SCHED_ON_Y);
        transport(&j, 0, "k", SCHED_MCAST, SCHED_ON_X, false);
        transport(&j, 0, "v", SCHED_MCAST, SCHED_ON_X, false);
    }
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    /* per key block two dots, the mask (causal: the diagonal block; S is a
       multiple of the key block, so no block has keys past it and the
       plain form masks none), one row maximum and one row sum; -inf starts
       the running maximum */
    const df_stmt *sl = last_score_loop(c->kernels[DF_COMPUTE].body, c->kernels[DF_COMPUTE].nbody);
    assert_non_null(sl);
    assert_int_equal(count_ops(sl->body, sl->nbody, DF_MATMUL), 2);
    assert_int_equal(count_ops(sl->body, sl->nbody, DF_MASK), causal);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_MASK), causal);
    assert_int_equal(count_ops(sl->body, sl->nbody, DF_REDUCE), 1);
    assert_int_equal(count_ops(sl->body, sl->nbody, DF_ROWMAX), 1);
    /* the row sum of p over the key block's 2 tile columns comes from the
       packer: p's pchain adds each tile into its block row's page, and the
       sum reduces those pages, one a row (no fold) */
    const df_stmt *rs = compute_op(c, DF_REDUCE, 0);
    assert_int_equal(rs->sub, DF_RSUM);
    assert_false(rs->fold);
    assert_int_equal(rs->cols->value, 1);
    assert_int_equal(compute_op(c, DF_PCHAIN, 1)->cb_sum, rs->cb);
    assert_int_equal(compute_op(c, DF_PCHAIN, 0)->cb_sum, -1);
    /* maximum(m_i, max(s, axis=1)) is one block row maximum seeded with
       m_i: it reads the running maximum's current CB (filled with -inf
       before the loop) and writes its next one, and the two trade names at
       the end of the trip; no element-wise max remains */
    const df_stmt *rm = compute_op(c, DF_ROWMAX, 0);
    assert_true(rm->cb_b >= 0 && rm->cb_b != rm->cb_out);
    assert_int_equal(rm->cols->value, 2);
    const df_stmt *fl = NULL;
    for (int i = 0; (fl = compute_op(c, DF_FILL, i)) && fl->cb_out != rm->cb_b; i++)
        ;
    assert_non_null(fl);
    assert_true(isinf(fl->scalar) && fl->scalar < 0);
    const df_stmt *sw = compute_op(c, DF_CB_SWAP, 0);
    assert_non_null(sw);
    assert_true((sw->cb == rm->cb_b && sw->cb_b == rm->cb_out) || (sw->cb == rm->cb_out && sw->cb_b == rm->cb_b));
    for (int i = 0; compute_op(c, DF_ELTWISE, i); i++)
        assert_int_not_equal(compute_op(c, DF_ELTWISE, i)->sub, DF_MAXOP);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_FILL), 3);
    /* the scale sm_scale * log2(e) is positive and the scores are read by
       the maximum and the subtraction only: it is folded into the
       exponentials, so no SFPU scale remains and the mask reads the dot's
       pages; chains in Dst: m_i - m_new into exp2 (alpha) and s - m_new into
       exp2 (p), each a pchain with the scale in its exponential's argument;
       p (summed and cast) and alpha (read twice) are not chained further */
    for (int i = 0; compute_op(c, DF_SFPU, i); i++)
        assert_int_not_equal(compute_op(c, DF_SFPU, i)->sub, DF_SCALE);
    int zero = 0;
    if (causal)
        assert_int_equal(compute_op(c, DF_MASK, 0)->cb, nth_op(sl->body, sl->nbody, DF_MATMUL, &zero)->cb_out);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_CHAIN), 0);
    assert_int_equal(count_ops(sl->body, sl->nbody, DF_PCHAIN), 2);
    for (int i = 0; i < 2; i++) {
        const df_stmt *ch = compute_op(c, DF_PCHAIN, i);
        assert_true(fabs(ch->scalar - 0.125 * 1.4426950408889634) < 1e-15);
        assert_int_equal(ch->nbody, 2);
        assert_int_equal(ch->body[0]->op, DF_ELTWISE);
        assert_int_equal(ch->body[0]->sub, DF_SUB);
        assert_int_equal(ch->body[0]->bcast, i == 0 ? DF_BC_NONE : DF_BC_COL);
        assert_int_equal(ch->body[1]->op, DF_SFPU);
        assert_int_equal(ch->body[1]->sub, DF_EXP2);
    }
    assert_true(df_validate(p, WH, &j.d));
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

static void attention_plain(void **st) { attention(st, false, false); }
static void attention_causal(void **st) { attention(st, true, false); }
static void attention_mcast(void **st) { attention(st, false, true); }

static void attention_small_blocks(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=2,S=128,D=64", "CAUSAL=1", "BLOCK_M=32,BLOCK_N=32,grid.x=2,grid.y=4");
    run_checked(&j);
    job_close(&j);
}

/* S = 96 in blocks of 64: the last query and key blocks are cut short (the
 * descriptor clips), the sequence-end mask hides the missing keys. */
static void attention_tail(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=2,S=96,D=64", "CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,grid.x=1,grid.y=1");
    run_checked(&j);
    job_close(&j);
}

/* The compute ops of a kernel body in program order, one letter each for
 * the masks and the products (loops flattened). */
static void mask_dot_order(df_stmt *const *body, int n, lm_buf *out)
{
    for (int i = 0; i < n; i++) {
        if (body[i]->op == DF_MASK)
            lm_buf_puts(out, "M");
        else if (body[i]->op == DF_MATMUL)
            lm_buf_puts(out, "X");
        else if (body[i]->op == DF_FOR)
            mask_dot_order(body[i]->body, body[i]->nbody, out);
    }
}

/* S = 80 in key blocks of 64: K and V, loaded side by side at the top of
 * the loop, are cut short, and each is masked in a copy of its own. V's
 * copy runs before V's first reader, the P V product, not where V is
 * loaded: Q K^T then waits for K alone. The loop's compute reads: K's copy,
 * Q K^T, the score mask, V's copy, P V - "MXMMX" (q's copy is before the
 * loop). */
static void clean_before_first_use(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=1,S=80,D=32", "CAUSAL=0", "BLOCK_M=32,BLOCK_N=64,grid.x=1,grid.y=1");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_kernel *c = &p->classes[0].kernels[DF_COMPUTE];
    lm_buf o = {0};
    mask_dot_order(c->body, c->nbody, &o);
    const char *got = lm_buf_str(&o);
    if (!strstr(got, "MXMMX"))
        print_error("masks and products: %s\n", got);
    assert_non_null(strstr(got, "MXMMX"));
    lm_buf_free(&o);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* The tutorial-style attention kernel (f16, tl.where(mask, 0, -1e6) added to
 * the scores, two heads per program): nothing in the lowering knows it. */
static void attention_tutorial(void **st)
{
    (void)st;
    for (int causal = 0; causal <= 1; causal++) {
        job j;
        job_open(&j, "tests/kernels/tutorial_attention.py", "Z=1,H=4,N_CTX=256,HEAD_DIM=64",
                 causal ? "CAUSAL=1" : "CAUSAL=0", "BLOCK_M=64,BLOCK_N=32,grid.x=2,grid.y=4");
        run_checked(&j);
        job_close(&j);
    }
}

/* tests/unit/data/rowmax_seed.py: m = maximum(max(x, axis=1), max(y,
 * axis=1)). Each row maximum is one block reduction (rowmax); the one whose
 * only use is the maximum is taken inside it, seeded with the other's CB,
 * so no element-wise max and no reduce remain; the outputs match the
 * interpreter. */
static void rowmax_seed(void **st)
{
    (void)st;
    job j;
    job_open(&j, "tests/unit/data/rowmax_seed.py", "M=256,N=128", NULL, "BLOCK_M=64,grid.x=1,grid.y=4");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_ROWMAX), 2);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_REDUCE), 0);
    const df_stmt *a = compute_op(c, DF_ROWMAX, 0), *b = compute_op(c, DF_ROWMAX, 1);
    assert_int_equal(a->cb_b, -1);
    assert_int_equal(b->cb_b, a->cb_out);
    assert_int_equal(a->rows->value, 2);
    assert_int_equal(a->cols->value, 4);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_ELTWISE), 1); /* x - m[:, None] */
    assert_int_equal(compute_op(c, DF_ELTWISE, 0)->sub, DF_SUB);
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* tests/unit/data/scale_fold.py: s = x * c, p = exp(s - max(s)). With c =
 * 0.5 the product is folded into the exponential - no SFPU scale, the row
 * maximum reads x's own pages, one pchain with scale 0.5 subtracts and
 * exponentiates; when s is also stored (its true value needed), or c is
 * negative (the maximum does not commute with it), the product stays; a
 * constant the class reads (maximum(s, 1.0)) is filled divided by c. Every
 * case matches the interpreter. */
static void scale_fold(void **st)
{
    (void)st;
    static const char *consts[] = {"CASE=0", "CASE=1", "CASE=2", "CASE=3"};
    for (int k = 0; k < 4; k++) {
        job j;
        job_open(&j, "tests/unit/data/scale_fold.py", "M=256,N=128", consts[k], "BLOCK_M=64,grid.x=1,grid.y=4");
        df_program *p = lower(&j, 0);
        assert_non_null(p);
        const df_class *c = &p->classes[0];
        bool folded = k == 0 || k == 3;
        int scales = 0;
        for (int i = 0; compute_op(c, DF_SFPU, i); i++)
            scales += compute_op(c, DF_SFPU, i)->sub == DF_SCALE;
        assert_int_equal(scales, folded ? 0 : 1);
        assert_int_equal(class_ops(c, DF_COMPUTE, DF_PCHAIN), folded ? 1 : 0);
        const df_stmt *x = compute_op(c, DF_PCHAIN, 0);
        if (folded) {
            assert_true(x->scalar == 0.5);
            assert_int_equal(x->nbody, 2);
            assert_int_equal(x->body[0]->sub, DF_SUB);
            assert_int_equal(x->body[1]->sub, DF_EXP);
            assert_true(x->body[1]->scalar == 1.0);
        }
        if (k == 0) /* the row maximum reads the load's pages */
            assert_int_equal(compute_op(c, DF_ROWMAX, 0)->cb, x->cb);
        if (k == 3)
            assert_true(compute_op(c, DF_FILL, 0)->scalar == 2.0);
        round_trip(p);
        df_free(p);
        run_checked(&j);
        job_close(&j);
    }
}

/* tests/unit/data/packsum.py: l = sum(p, axis=1) where p = exp(x - max)
 * (CASE 0) is taken from the packer: the pchain making p also packs each
 * tile into its block row's page of a CB of its own (sum=, the row's first
 * tile overwriting), and the sum reduces that one page a row - cols 1, no
 * fold; summing the loaded x (CASE 1) adds the row's tiles in Dst (fold)
 * as before. Where p is otherwise read only through p.to(bfloat16) (CASE
 * 2, by a dot), the pchain packs p in bf16 into the CB the dot reads and
 * no copy casts it; the sums still come from Dst. All match the
 * interpreter. */
static void packsum(void **st)
{
    (void)st;
    static const char *consts[] = {"CASE=0", "CASE=1", "CASE=2"};
    for (int k = 0; k < 3; k++) {
        job j;
        job_open(&j, "tests/unit/data/packsum.py", "M=256,N=128", consts[k], "BLOCK_M=64,grid.x=1,grid.y=4");
        df_program *p = lower(&j, 0);
        assert_non_null(p);
        const df_class *c = &p->classes[0];
        const df_stmt *pc = compute_op(c, DF_PCHAIN, 0), *red = compute_op(c, DF_REDUCE, 0);
        assert_non_null(red);
        assert_int_equal(red->rows->value, 2);
        if (k == 2) {
            assert_non_null(pc);
            assert_true(pc->cb_sum >= 0);
            assert_null(compute_op(c, DF_COPY, 0));
            const df_stmt *mm = compute_op(c, DF_MATMUL, 0);
            assert_non_null(mm);
            assert_int_equal(mm->cb, pc->cb_out);
            assert_int_equal(cb_format(c, pc->cb_out), ARCH_BF16);
            assert_int_equal(cb_format(c, pc->cb_sum), ARCH_FP32);
        } else if (k == 0) {
            assert_non_null(pc);
            assert_true(pc->cb_sum >= 0);
            assert_int_equal(pc->rows->value, 2);
            assert_int_equal(pc->cols->value, 4);
            assert_int_equal(pc->at_sum->value, 0);
            assert_int_equal(pc->sum_acc->value, 0);
            assert_int_equal(red->cb, pc->cb_sum);
            assert_int_equal(red->cols->value, 1);
            assert_false(red->fold);
        } else {
            assert_null(pc);
            assert_int_equal(red->cols->value, 4);
            assert_true(red->fold);
        }
        round_trip(p);
        df_free(p);
        run_checked(&j);
        job_close(&j);
    }
}

/* ---- a loop split where its mask is the identity ------------------------------------- */

/* One trip of a loop of score blocks (a loop whose own statements hold the
 * row maximum) as a core runs it: the trip's index and whether the body it
 * runs holds a mask. */
typedef struct strip {
    int64_t t;
    int masked; /* the masks it runs */
} strip;

typedef struct swalk {
    int64_t slots[DF_MAX_SLOTS];
    strip trips[64];
    int n;
    df_op mark;                        /* the op whose body is one trip */
    bool (*is_mask)(const df_stmt *s); /* the masks a trip runs */
} swalk;

/* The scores' mask (to -inf; a load cut short is masked to 0). */
static bool score_mask(const df_stmt *s) { return s->op == DF_MASK && isinf(s->scalar) && s->scalar < 0; }

/* A load's masked copy (to 0). */
static bool clean_mask(const df_stmt *s) { return s->op == DF_MASK && s->scalar == 0; }

/* Run the loops of a compute kernel (their bounds only) on one core. A
 * body holding the op w->mark (the row maximum of the score loop, a
 * matmul) is one trip: the index of the innermost loop of the Tile IR
 * around it (a loop variable i<N>; 0 when the lowering left out a loop of
 * one trip), and how many masks it runs. */
static void walk_loops(swalk *w, const df_class *c, df_stmt *const *body, int n, int64_t t)
{
    for (int i = 0; i < n; i++)
        if (body[i]->op == w->mark) {
            assert_true(w->n < (int)LM_COUNT(w->trips));
            int masked = 0;
            for (int k = 0; k < n; k++)
                masked += w->is_mask(body[k]);
            w->trips[w->n++] = (strip){t, masked};
            break;
        }
    for (int i = 0; i < n; i++) {
        const df_stmt *f = body[i];
        if (f->op != DF_FOR)
            continue;
        int64_t lo = df_eval(f->lo, w->slots), hi = df_eval(f->hi, w->slots);
        bool ir = c->slot_names[f->var][0] == 'i';
        for (int64_t v = lo; v < hi; v++) {
            w->slots[f->var] = v;
            walk_loops(w, c, f->body, f->nbody, ir ? v : t);
        }
    }
}

/* walk_loops over the compute kernel of class c on core (x, y). */
static void walk_core(swalk *w, const df_program *p, const df_class *c, int x, int y, df_op mark,
                      bool (*is_mask)(const df_stmt *))
{
    memset(w, 0, sizeof *w);
    w->mark = mark, w->is_mask = is_mask;
    w->slots[DF_SLOT_CX] = x, w->slots[DF_SLOT_CY] = y;
    for (int i = 0; i < p->nparams; i++)
        w->slots[DF_SLOT_PARAM0 + i] = p->params[i].value;
    for (int a = 0; a < c->nargs; a++)
        w->slots[DF_SLOT_PARAM0 + p->nparams + a] = df_eval(c->args[a], w->slots);
    const df_kernel *k = &c->kernels[DF_COMPUTE];
    walk_loops(w, c, k->body, k->nbody, 0);
}

/* The loop holding statement s among its own, or NULL. */
static const df_stmt *loop_of(df_stmt *const *body, int n, const df_stmt *s)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *f = body[i];
        if (f->op != DF_FOR)
            continue;
        for (int k = 0; k < f->nbody; k++)
            if (f->body[k] == s)
                return f;
        const df_stmt *in = loop_of(f->body, f->nbody, s);
        if (in)
            return in;
    }
    return NULL;
}

/* Whether every element of mask m's block passes both predicates (from
 * the op's definition: element (x, y) of the block is global element
 * (32*row + x, 32*col + y), kept when r*i + c*j + k >= 0). */
static bool mask_all_true(const df_stmt *m, const int64_t *slots)
{
    int64_t row = df_eval(m->row, slots), col = df_eval(m->col, slots);
    int64_t rows = df_eval(m->rows, slots), cols = df_eval(m->cols, slots);
    const df_expr *pr[2] = {m->p1r, m->p2r}, *pc[2] = {m->p1c, m->p2c}, *pk[2] = {m->p1k, m->p2k};
    for (int q = 0; q < 2; q++) {
        int64_t r = df_eval(pr[q], slots), c = df_eval(pc[q], slots), k = df_eval(pk[q], slots);
        for (int64_t i = 32 * row; i < 32 * (row + rows); i++)
            for (int64_t j = 32 * col; j < 32 * (col + cols); j++)
                if (r * i + c * j + k < 0)
                    return false;
    }
    return true;
}

/* Flash attention with one program a core (grid.y query blocks, one head):
 * on every core, the score loop's trips are 0 .. its key blocks - 1, each
 * once (ceil(min((q + 1) BLOCK_M, S) / BLOCK_N) causal, ceil(S / BLOCK_N)
 * not), and a trip runs the body with the mask exactly when its block has
 * a key past S or, causal, above the diagonal - which the mask's own
 * predicates, evaluated element by element, say too. Returns
 * the trips that keep the mask, over all cores. */
static int split_trips(const char *shape, const char *causal, const char *values, int64_t S, int64_t bm, int64_t bn)
{
    job j;
    job_open(&j, FA, shape, causal, values);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    bool is_causal = !strcmp(causal, "CAUSAL=1");
    int masked = 0;
    for (int ci = 0; ci < p->nclasses; ci++) {
        const df_class *c = &p->classes[ci];
        const df_kernel *k = &c->kernels[DF_COMPUTE];
        const df_stmt *m = NULL;
        for (int i = 0; compute_op(c, DF_MASK, i) && !m; i++)
            m = score_mask(compute_op(c, DF_MASK, i)) ? compute_op(c, DF_MASK, i) : NULL;
        const df_stmt *mf = m ? loop_of(k->body, k->nbody, m) : NULL;
        /* (no loop around the mask: a loop of one trip left out) */
        for (int y = c->y0; y <= c->y1; y++)
            for (int x = c->x0; x <= c->x1; x++) {
                swalk w;
                walk_core(&w, p, c, x, y, DF_ROWMAX, score_mask);
                int64_t q = y, end = is_causal ? ((q + 1) * bm < S ? (q + 1) * bm : S) : S;
                int64_t nkb = (end + bn - 1) / bn;
                assert_int_equal(w.n, nkb);
                for (int i = 0; i < w.n; i++) {
                    int seen = 0;
                    for (int e = 0; e < w.n; e++)
                        seen += w.trips[e].t == i;
                    assert_int_equal(seen, 1);
                    /* from the kernel: key block t (columns t*bn ..
                       (t+1)*bn - 1) of query block q (rows q*bm ..) is
                       whole when it ends inside S and, causal, its last
                       column is at most its first row */
                    int64_t t = w.trips[i].t;
                    bool whole = (t + 1) * bn <= S && (!is_causal || q * bm >= (t + 1) * bn - 1);
                    assert_int_equal(w.trips[i].masked, !whole);
                    /* and from the mask's own predicates at this trip (its
                       loop variable set to it), element by element */
                    if (m) {
                        int64_t sl[DF_MAX_SLOTS];
                        memcpy(sl, w.slots, sizeof sl);
                        if (mf)
                            sl[mf->var] = t;
                        assert_int_equal(mask_all_true(m, sl), whole);
                    }
                    masked += w.trips[i].masked;
                }
            }
    }
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
    return masked;
}

/* The split point on blocks at the boundaries. Causal, 64 x 64 blocks: key
 * block q - 1 of query block q is below the diagonal (i - j >= 1 on all of
 * it: unmasked), block q holds it (masked): one masked trip a program, and
 * with S = 200 the last query block's key block 3 also ends past S. Not
 * causal, S = 256 in 64-column blocks: every block inside, no mask left;
 * S = 257: the last key block is one column over (masked), only it. Causal
 * with 32-row query blocks and 128-column key blocks: the key block of a
 * query block q is unmasked only when it ends at or before the block's first
 * row (32 q >= 128 t + 127), one row over keeps the mask. */
static void mask_split(void **st)
{
    (void)st;
    assert_int_equal(split_trips("B=1,H=1,S=256,D=64", "CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,grid.x=1,grid.y=4", 256, 64, 64),
                     4);
    assert_int_equal(split_trips("B=1,H=1,S=200,D=64", "CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,grid.x=1,grid.y=4", 200, 64, 64),
                     4);
    assert_int_equal(split_trips("B=1,H=1,S=256,D=64", "CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,grid.x=1,grid.y=4", 256, 64, 64),
                     0);
    assert_int_equal(split_trips("B=1,H=1,S=257,D=64", "CAUSAL=0", "BLOCK_M=64,BLOCK_N=64,grid.x=1,grid.y=5", 257, 64, 64),
                     5);
    /* q = 0..7: trips t with 128 t + 127 <= 32 q - 0 are unmasked: t = 0
       for q = 4..7 (32 q >= 127 from q = 4); every program masks its last
       trip, and programs 0..3 have one trip: 8 masked */
    assert_int_equal(split_trips("B=1,H=1,S=256,D=64", "CAUSAL=1", "BLOCK_M=32,BLOCK_N=128,grid.x=1,grid.y=8", 256, 32, 128),
                     8);
}

/* GEMM with blocks the boundary checks cut short: a's block of program
 * (pid_m, K trip t) rows pid_m*BM .. and columns t*BK .., b's rows t*BK ..
 * and columns pid_n*BN ..; a block crossing M, N or K is cut short and
 * its masked copy runs. Trip t of core (pid_n, pid_m) (axis 0 on y) runs
 * the copies (of a and of b, those some block of which is cut short) when
 * a or b is cut short at it and none otherwise (the split leaves the loop's
 * masks out together), and the model's plan says how many trips keep
 * them. Returns the masked trips over all cores. */
static int gemm_clean_trips(const char *shape, int64_t M, int64_t N, int64_t K, int64_t bm, int64_t bn, int64_t bk,
                            int64_t kept)
{
    char values[128];
    int64_t gy = (M + bm - 1) / bm, gx = (N + bn - 1) / bn, trips = (K + bk - 1) / bk;
    snprintf(values, sizeof values, "BLOCK_M=%lld,BLOCK_N=%lld,BLOCK_K=%lld,grid.x=%lld,grid.y=%lld", (long long)bm,
             (long long)bn, (long long)bk, (long long)gx, (long long)gy);
    job j;
    job_open(&j, MM, shape, NULL, values);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    int masked = 0;
    for (int ci = 0; ci < p->nclasses; ci++) {
        const df_class *c = &p->classes[ci];
        for (int y = c->y0; y <= c->y1; y++)
            for (int x = c->x0; x <= c->x1; x++) {
                swalk w;
                walk_core(&w, p, c, x, y, DF_MATMUL, clean_mask);
                assert_int_equal(w.n, trips);
                for (int i = 0; i < w.n; i++) {
                    int64_t t = w.trips[i].t;
                    assert_int_equal(t, i);
                    bool cut = (y + 1) * bm > M || (x + 1) * bn > N || (t + 1) * bk > K;
                    /* a copy of each load some block of which is cut short */
                    int copies = (M % bm || K % bk) + (K % bk || N % bn);
                    assert_int_equal(w.trips[i].masked, cut ? copies : 0);
                    masked += cut;
                }
            }
    }
    /* the model's count (the lowering's plan at these values): the trips of
       the busiest core's loop that keep a's copy */
    drv_result r;
    static char sbuf[256];
    fe_kv sk[16];
    drv_opts o = {.path = MM};
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shape, sk, 16, sbuf, sizeof sbuf);
    assert_true(drv_compile(&r, &o, &j.d));
    drv_sched_opts so = {.arch = WH};
    assert_true(drv_summarize(&r, &so, &j.d));
    sched_kernel *k = r.sched->job.k[0];
    sym_env at = {0};
    for (int i = 0; i < j.s[0].values.n; i++) /* the same symbols by name in this compilation */
        sym_env_set(&at, sym_var(r.sym, j.s[0].values.b[i].var->name), j.s[0].values.b[i].lo);
    assert_true(sched_lower_l1(k, WH, &at, r.sym, &r.arena));
    for (int i = 0; i < k->acc->n; i++)
        if (!k->acc->acc[i].is_store && !strcmp(k->acc->acc[i].tensor->name, "a")) {
            int64_t v = -1;
            if (kept < 0)
                assert_null(k->acc_clip_kept[i]);
            else
                assert_int_equal(sym_eval(k->acc_clip_kept[i], &at, &v), SYM_OK);
            if (kept >= 0)
                assert_int_equal(v, kept);
        }
    sym_env_free(&at);
    drv_free(&r);
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
    return masked;
}

/* K = 300 in 64-column steps: trips 0..3 whole, trip 4 (columns 256..319)
 * crosses K; M and N whole blocks: one masked trip a core, and the plan
 * keeps the copies on 1 of the 5. M = 100 and N = 70 in 64s: the second
 * block along each is cut on every trip, so those cores mask every trip
 * and the plan, for the busiest core, every trip (NULL). K = 256 and N =
 * 70: only b is ever cut, on the cores of pid_n = 1, on every trip; a has
 * no copy (its plan entry NULL too). */
static void gemm_clean_split(void **st)
{
    (void)st;
    assert_int_equal(gemm_clean_trips("M=128,N=128,K=300", 128, 128, 300, 64, 64, 64, 1), 4);
    assert_int_equal(gemm_clean_trips("M=100,N=70,K=300", 100, 70, 300, 64, 64, 64, -1), 5 + 5 + 5 + 1);
    assert_int_equal(gemm_clean_trips("M=128,N=70,K=256", 128, 70, 256, 64, 64, 64, -1), 2 * 4);
}

/* ---- flash decode: two launches through scratch tensors ----------------------------- */

static const char *FD = "kernels/flash_decode.py";

/* The split kernel reads 16-row query blocks of 4 heads, stores partial
 * outputs and per-row log-sum-exps (a column vector stored as a row, via a
 * transpose); the combine kernel reads one row of each split (element moves
 * a tile apart), reduces along axis 0 (transpose, mask, row reduce) and
 * stores one row. */
static void decode(void **st, const char *shapes, const char *values, bool forward)
{
    (void)st;
    job j;
    job_open(&j, FD, shapes, NULL, values);
    assert_int_equal(j.r.nlaunches, 2);
    if (forward) {
        /* the query block is the same for every split of a kv head: pass it on */
        transport(&j, 0, "q", SCHED_FORWARD, SCHED_ON_X, false);
    }
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_TRANSPOSE), 1);                   /* lse as a row */
    assert_true(class_ops(c, DF_COMPUTE, DF_SFPU) >= 4);                           /* exp2 x2, gtz, log, ... */
    assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), 2);                  /* part (16 rows), lse */
    round_trip(p);
    df_free(p);
    p = lower(&j, 1);
    assert_non_null(p);
    c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 2);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_TRANSPOSE), 4); /* max, two sums, the stored row */
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_REDUCE), 2);    /* the sums */
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_ROWMAX), 1);    /* the maximum, read twice: not seeded */
    assert_int_equal(compute_op(c, DF_ROWMAX, 0)->cb_b, -1);
    round_trip(p);
    df_free(p);
    sched_run_result r = run_checked(&j);
    assert_int_equal(r.nlaunches, 2);
    assert_true(fabs(r.cycles - (r.launches[0].cycles + r.launches[1].cycles)) < 1e-6);
    job_close(&j);
}

/* tests/kernels/eltwise_chain.py: which values stay in Dst. x * 0.5 is
 * read only by exp2, the next op: the positive scale is folded into the
 * exponential, one pchain of exp2 with scale 0.5 into exp2's CB. exp2's result is
 * read twice: stored. b - max is read only by the multiply by y, whose
 * result only by the cast, whose result only by a store: one chain packed
 * straight into the output's CB, in its format. x - 1 is read after a
 * reduction: stored, and its scale is an op of its own. */
static void eltwise_chains(void **st)
{
    (void)st;
    job j;
    job_open(&j, "tests/kernels/eltwise_chain.py", "M=128,N=64", NULL, "BLOCK_M=32,grid.y=4");
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_CHAIN), 1);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_PCHAIN), 1);
    const df_stmt *a = compute_op(c, DF_PCHAIN, 0), *b = chain_of(c, 0);
    assert_int_equal(a->nbody, 1);
    assert_true(a->scalar == 0.5);
    assert_int_equal(a->body[0]->sub, DF_EXP2);
    assert_int_equal(b->nbody, 2);
    assert_int_equal(b->body[0]->op, DF_ELTWISE);
    assert_int_equal(b->body[0]->sub, DF_SUB);
    assert_int_equal(b->body[0]->bcast, DF_BC_COL);
    assert_int_equal(b->body[1]->op, DF_ELTWISE);
    assert_int_equal(b->body[1]->sub, DF_MUL);
    assert_int_equal(b->body[1]->bcast, DF_BC_NONE);
    /* the second chain packs where the writer writes o from, in bf16 */
    const df_stmt *const *wb = (const df_stmt *const *)c->kernels[DF_WRITER].body;
    int wcb = -1;
    for (int i = 0; i < c->kernels[DF_WRITER].nbody; i++)
        if (wb[i]->op == DF_WRITE && !strcmp(p->tensors[wb[i]->tensor].name, "o"))
            wcb = wb[i]->cb;
    assert_int_equal(b->cb_out, wcb);
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == wcb)
            assert_int_equal(c->cbs[i].format, ARCH_BF16);
    /* g * 3 stays an op (g is stored: its true value is needed): one SFPU
       scale besides the pchain's exp2 */
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_SFPU), 2);
    assert_true(df_validate(p, WH, &j.d));
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

static void decode_gqa(void **st)
{
    decode(st, "B=1,H=8,HKV=2,S=512,D=64", "BLOCK_N=64,NUM_SPLITS=4,grid.x=4,grid.y=2", false);
}

static void decode_mha_forward(void **st)
{
    decode(st, "B=1,H=4,HKV=4,S=256,D=64", "BLOCK_N=32,NUM_SPLITS=3,grid.x=3,grid.y=4", true);
}

/* One split: the combine's reductions run over one element, so its
 * maximum is the log-sum-exp itself, lse - max is 0, the weight exp2(0) is
 * 1 and the sums are their operands - the combine is a copy of the partial
 * output into the output's format, with no transpose, reduction or
 * element-wise op; nothing reads the log-sum-exp, so it is not loaded. */
static void decode_one_split(void **st)
{
    (void)st;
    job j;
    job_open(&j, FD, "B=2,H=8,HKV=2,S=256,D=64", NULL, "BLOCK_N=64,NUM_SPLITS=1,grid.x=1,grid.y=4");
    df_program *p = lower(&j, 1);
    assert_non_null(p);
    const df_class *c = &p->classes[0];
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_COPY), 1);
    int ops[] = {DF_TRANSPOSE, DF_REDUCE, DF_ROWMAX, DF_ELTWISE, DF_SFPU, DF_CHAIN, DF_PCHAIN, DF_MASK};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        assert_int_equal(class_ops(c, DF_COMPUTE, (df_op)ops[i]), 0);
    /* the partial output alone is read: the log-sum-exp is left in DRAM */
    assert_int_equal(class_ops(c, DF_READER, DF_READ_ELEMS), 1);
    assert_int_equal(class_ops(c, DF_COMPUTE, DF_CB_WAIT), 1);
    round_trip(p);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* tests/kernels/identities.py: with one row per block every op of the
 * fold is an identity (a reduction over one row, x - x, x * 1, x + 0, x / 1,
 * ...) and the compute is one copy from the load's CB into the output's;
 * with three rows the maximum and the sum run. Both check against the
 * interpreter. */
static void identities_at_one_row(void **st)
{
    (void)st;
    for (int r = 1; r <= 3; r += 2) {
        job j;
        job_open(&j, "tests/kernels/identities.py", r == 1 ? "M=40,N=96,R=1" : "M=40,N=96,R=3", NULL,
                 "grid.y=8");
        df_program *p = lower(&j, 0);
        assert_non_null(p);
        const df_class *c = &p->classes[0];
        assert_int_equal(class_ops(c, DF_COMPUTE, DF_ROWMAX), r == 1 ? 0 : 1);
        assert_int_equal(class_ops(c, DF_COMPUTE, DF_REDUCE), r == 1 ? 0 : 1);
        /* R = 3: the maximum's and the sum's operands (axis 0), and the result, a column, into the stored row */
        assert_int_equal(class_ops(c, DF_COMPUTE, DF_TRANSPOSE), r == 1 ? 0 : 3);
        if (r == 1) {
            int ops[] = {DF_ELTWISE, DF_SFPU, DF_CHAIN, DF_PCHAIN, DF_MASK, DF_FILL};
            for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
                assert_int_equal(class_ops(c, DF_COMPUTE, (df_op)ops[i]), 0);
            const df_stmt *cp = compute_op(c, DF_COPY, 0);
            assert_non_null(cp);
            assert_null(compute_op(c, DF_COPY, 1));
        }
        df_free(p);
        run_checked(&j);
        job_close(&j);
    }
}

/* Batches with grouped heads: the split kernel views q [B, H, D] as [B*HKV,
 * H/HKV, D] and the combine kernel o as [B*H, D], so both tensors move rows
 * of several batches as one run. With H not a multiple of 32 the padded
 * layout (32 rows per batch) cannot place them; those two tensors are
 * stored folded (B*H rows, padded once), the scratch tensors, accessed on
 * their own dimensions, stay padded. Checked against the interpreter for
 * several batches and group sizes (1, 2, 4, 8 query heads per kv head). */
static void decode_batched(void **st)
{
    (void)st;
    static const struct {
        int b, h, hkv, splits, gx, gy;
        bool forward;
    } cases[] = {
        {2, 8, 2, 2, 2, 4, false}, {3, 8, 8, 2, 2, 8, false}, {4, 8, 2, 4, 4, 8, true},
        {2, 8, 1, 2, 2, 2, false}, {2, 12, 4, 2, 2, 6, true},
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        int B = cases[i].b, H = cases[i].h, HKV = cases[i].hkv, NS = cases[i].splits;
        char shapes[96], values[96];
        snprintf(shapes, sizeof shapes, "B=%d,H=%d,HKV=%d,S=256,D=64", B, H, HKV);
        snprintf(values, sizeof values, "BLOCK_N=64,NUM_SPLITS=%d,grid.x=%d,grid.y=%d", NS, cases[i].gx, cases[i].gy);
        job j;
        job_open(&j, FD, shapes, NULL, values);
        if (cases[i].forward)
            transport(&j, 0, "q", SCHED_FORWARD, SCHED_ON_X, false);
        int64_t group = H / HKV, pad_group = (group + 31) / 32 * 32;
        for (int l = 0; l < 2; l++) {
            df_program *p = lower(&j, l);
            assert_non_null(p);
            for (int t = 0; t < p->ntensors; t++) {
                const df_tensor *dt = &p->tensors[t];
                int64_t rows = dt->rows;
                if (!strcmp(dt->name, "q") || !strcmp(dt->name, "o"))
                    assert_int_equal(rows, (B * H + 31) / 32 * 32); /* folded */
                else if (!strcmp(dt->name, "part"))
                    assert_int_equal(rows, (int64_t)B * HKV * NS * pad_group); /* padded per split */
                else if (!strcmp(dt->name, "k"))
                    assert_int_equal(rows, (int64_t)B * HKV * 256);
            }
            round_trip(p);
            df_free(p);
        }
        run_checked(&j);
        job_close(&j);
    }
}

/* ---- element moves, transpose and comparisons in the simulator ---------------------- */

/* A 20 x 40 rectangle of A, every other row from (3, 5), lands at element
 * (1, 2) of a 2 x 2 tile block; the block is transposed; the whole of it is
 * written to C; gtz of C's copy marks the positive values. */
static void elems_transpose_compare(void **st)
{
    (void)st;
    const char *text = "program el\n"
                       "tensor A rows=64 cols=64 format=fp32 role=input\n"
                       "tensor C rows=64 cols=64 format=fp32 role=output\n"
                       "tensor G rows=64 cols=64 format=fp32 role=output\n"
                       "class main x0=0 y0=0 x1=0 y1=0 {\n"
                       "  cb 0 format=fp32 pages=4\n"
                       "  cb 1 format=fp32 pages=4\n"
                       "  cb 2 format=fp32 pages=4\n"
                       "  reader {\n"
                       "    cb_reserve cb=0 n=4\n"
                       "    read_elems tensor=A row=3 col=5 rows=20 cols=40 rstride=2 cb=0 er=1 ec=2 bw=2\n"
                       "    read_barrier\n"
                       "    cb_push cb=0 n=4\n"
                       "  }\n"
                       "  compute {\n"
                       "    cb_wait cb=0 n=4\n"
                       "    cb_reserve cb=1 n=4\n"
                       "    transpose a=0 out=1 rows=2 cols=2\n"
                       "    cb_push cb=1 n=4\n"
                       "    cb_reserve cb=2 n=4\n"
                       "    sfpu op=gtz a=0 out=2 n=4\n"
                       "    cb_push cb=2 n=4\n"
                       "    cb_pop cb=0 n=4\n"
                       "  }\n"
                       "  writer {\n"
                       "    cb_wait cb=1 n=4\n"
                       "    write_elems cb=1 bw=2 tensor=C row=0 col=0 rows=64 cols=64\n"
                       "    write_barrier\n"
                       "    cb_pop cb=1 n=4\n"
                       "    cb_wait cb=2 n=4\n"
                       "    write tensor=G cb=2 row=0 col=0 rows=2 cols=2\n"
                       "    write_barrier\n"
                       "    cb_pop cb=2 n=4\n"
                       "  }\n"
                       "}\n";
    lm_diag d;
    lm_diag_init(&d, stderr);
    df_program *p = df_parse("el.df", text, strlen(text), &d);
    assert_non_null(p);
    assert_true(df_bind(p, NULL, 0, &d));
    assert_true(df_validate(p, WH, &d));
    float *a = malloc(64 * 64 * sizeof *a);
    for (int i = 0; i < 64 * 64; i++)
        a[i] = (float)(i % 7) - 3.0f;
    const float *init[3] = {a, NULL, NULL};
    sim_options o = {.tensor_init = init, .keep_tensors = true};
    sim_result *r = sim_run(p, WH, &o, &d);
    assert_non_null(r);
    const float *c = r->tensor_data[1], *g = r->tensor_data[2];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            /* block element (x, y) holds A(3 + 2*(x-1), 5 + (y-2)) inside the rectangle, 0 elsewhere
               (fresh pages); C(y, x) is block element (x, y) */
            bool in = x >= 1 && x < 21 && y >= 2 && y < 42;
            float want = in ? a[(3 + 2 * (x - 1)) * 64 + 5 + (y - 2)] : 0.0f;
            assert_true(c[y * 64 + x] == want);
            /* G(y, x) is block element (y, x), not transposed */
            bool in2 = y >= 1 && y < 21 && x >= 2 && x < 42;
            float bv = in2 ? a[(3 + 2 * (y - 1)) * 64 + 5 + (x - 2)] : 0.0f;
            assert_true(g[y * 64 + x] == (bv > 0 ? 1.0f : 0.0f));
        }
    sim_result_free(r);
    free(a);
    df_free(p);
}

/* ---- flash decode fused: partial results over the NoC to reducer cores ------------- */

/* Make launches 0 and 1 of a decode job a fused pair: the split axis (the
 * gather axis) along `along`, the kv axis on the other dimension (or in
 * time), the combine's query-head axis in time on the reducers, part and
 * lse passed. */
static void fuse_decode(job *j, sched_place along, sched_place key)
{
    sched_fusion f;
    lm_buf why = {0};
    bool ok = sched_fusion_find(&f, &j->k[0], &j->k[1], j->r.sym, &j->s[0].values, &why);
    if (!ok)
        print_error("%s\n", lm_buf_str(&why));
    lm_buf_free(&why);
    assert_true(ok);
    sched_candidate *a = &j->s[0].cand, *b = &j->s[1].cand;
    a->place[0] = key;
    a->place[1] = along;
    a->fuse = SCHED_FUSE_PRODUCER;
    a->fuse_along = along;
    b->place[0] = key;
    b->place[1] = SCHED_ON_TIME;
    b->fuse = SCHED_FUSE_CONSUMER;
    b->fuse_along = along;
    for (int t = 0; t < f.nt; t++) {
        a->fused_acc |= (uint64_t)1 << f.t[t].store;
        b->fused_acc |= (uint64_t)1 << f.t[t].load;
        for (int i = 0; i < b->nops; i++)
            if (b->ops[i].access == f.t[t].load)
                b->ops[i].transport = SCHED_FUSED;
    }
    assert_true(sched_fused_pair(&f, a, b));
}

/* One program for both launches. The NUM_SPLITS programs of a kv head run
 * on one row (column) of that many cores; the cores of a row deal the
 * combine programs of all the kv heads they run round-robin over the row
 * (the G-th to core G mod NUM_SPLITS), so the first min(heads x GROUP,
 * NUM_SPLITS) cores are reducers and run theirs after all their split
 * programs. Every producer's writer first waits for the reducers' ready,
 * then sends, per combine program of its group, one row of part (D values,
 * a run per tile column) and one lse value - two send_elems in loops over
 * the group's programs - each program followed by a valid increment there;
 * a reducer's reader increments ready on every producer of its row, waits
 * for all valid increments and pushes, and its writer stores the combine's
 * output row (write_elems). Nothing of part or lse goes to DRAM. The checked
 * runs cover both orientations, the kv axis in time, more combine programs
 * than reducers, and waves. */
static void decode_fused(void **st)
{
    (void)st;
    static const struct {
        int b, h, hkv, splits, gkey, nred; /* nred: the reducers of a row */
        sched_place along, key;
    } cases[] = {
        {1, 8, 2, 4, 2, 4, SCHED_ON_X, SCHED_ON_Y},    /* 4 combine programs on 4 reducers */
        {1, 8, 2, 8, 2, 4, SCHED_ON_Y, SCHED_ON_X},    /* 4 on the first 4 of 8 */
        {2, 16, 2, 2, 3, 2, SCHED_ON_X, SCHED_ON_Y},   /* 8 programs on 2 reducers; 4 groups on 3 rows: waves */
        {2, 8, 8, 4, 1, 4, SCHED_ON_X, SCHED_ON_TIME}, /* one query head per kv head; 16 groups in time */
        {2, 8, 4, 4, 2, 4, SCHED_ON_Y, SCHED_ON_X},    /* 2 programs of each of 8 groups on 2 columns */
        {1, 4, 4, 8, 4, 1, SCHED_ON_X, SCHED_ON_Y},    /* one group per row, one program: one reducer */
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        int B = cases[i].b, H = cases[i].h, HKV = cases[i].hkv, NS = cases[i].splits, G = H / HKV;
        bool along_x = cases[i].along == SCHED_ON_X;
        int gx = along_x ? NS : cases[i].gkey, gy = along_x ? cases[i].gkey : NS;
        char shapes[96], values[128];
        snprintf(shapes, sizeof shapes, "B=%d,H=%d,HKV=%d,S=256,D=64", B, H, HKV);
        snprintf(values, sizeof values, "BLOCK_N=64,NUM_SPLITS=%d,grid.x=%d,grid.y=%d", NS, gx, gy);
        job j;
        job_open(&j, FD, shapes, NULL, values);
        sym_env_set(&j.s[1].values, sym_var(j.r.sym, "grid.x"), 1);
        sym_env_set(&j.s[1].values, sym_var(j.r.sym, "grid.y"), 1);
        fuse_decode(&j, cases[i].along, cases[i].key);
        const sched_kernel *kp[2] = {&j.k[0], &j.k[1]};
        const sched_schedule *sp[2] = {&j.s[0], &j.s[1]};
        int cov = 0;
        df_program *p = sched_lower_launch(kp, sp, 2, 0, WH, j.r.sym, &j.d, &cov);
        fflush(j.err);
        if (!p)
            print_error("%s\n", j.errtext);
        assert_non_null(p);
        assert_int_equal(cov, 2);
        (void)G;
        for (int y = 0; y < (along_x ? 1 : NS); y++)
            for (int x = 0; x < (along_x ? NS : 1); x++) {
                const df_class *c = class_at(p, x, y);
                assert_non_null(c);
                int gi = along_x ? x : y;
                bool red = gi < cases[i].nred;
                assert_int_equal(class_ops(c, DF_WRITER, DF_SEND_ELEMS), 2);
                assert_int_equal(class_ops(c, DF_WRITER, DF_SEM_INC), 1);  /* valid, per program */
                assert_int_equal(class_ops(c, DF_WRITER, DF_SEM_WAIT), 1); /* ready, once */
                /* reducers: the ready increments, the wait for valid, the combine's store of o */
                assert_int_equal(class_ops(c, DF_READER, DF_SEM_INC), red ? 1 : 0);
                assert_int_equal(class_ops(c, DF_READER, DF_SEM_WAIT), red ? 1 : 0);
                assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE_ELEMS), red ? 1 : 0);
                /* nothing of part or lse goes to DRAM */
                assert_int_equal(class_ops(c, DF_WRITER, DF_WRITE), 0);
            }
        round_trip(p);
        df_free(p);
        sched_run_result r = run_checked(&j);
        assert_int_equal(r.nlaunches, 1);
        assert_true(r.launches[0].fused);
        assert_int_equal(r.launches[0].count, 2);
        job_close(&j);
    }
}

/* send_elems: core (0,0) holds a 64 x 64 block of A and sends rows 3..5,
 * columns 20..59 (across a tile boundary) to core (1,0), whose CB (declared
 * only there) takes them at element (33, 10) of its 2 x 2 tile block, behind
 * a ready/valid handshake; (1,0) writes the block to C. Every other element
 * of C is 0 (fresh pages). A destination CB the receiver does not declare is
 * an error of the simulation. */
static void send_elems_op(void **st)
{
    (void)st;
    const char *text = "program se\n"
                       "tensor A rows=64 cols=64 format=fp32 role=input\n"
                       "tensor C rows=64 cols=64 format=fp32 role=output\n"
                       "sem ready\n"
                       "sem valid\n"
                       "class src x0=0 y0=0 x1=0 y1=0 {\n"
                       "  cb 0 format=fp32 pages=4\n"
                       "  reader {\n"
                       "    cb_reserve cb=0 n=4\n"
                       "    read tensor=A row=0 col=0 rows=2 cols=2 cb=0\n"
                       "    read_barrier\n"
                       "    cb_push cb=0 n=4\n"
                       "  }\n"
                       "  writer {\n"
                       "    cb_wait cb=0 n=4\n"
                       "    sem_wait sem=ready value=1\n"
                       "    send_elems cb=0 er=3 ec=20 bw=2 rows=3 cols=40 x=1 y=0 dcb=DCB der=33 dec=10 dbw=2\n"
                       "    sem_inc sem=valid x=1 y=0\n"
                       "    write_barrier\n"
                       "    cb_pop cb=0 n=4\n"
                       "  }\n"
                       "}\n"
                       "class dst x0=1 y0=0 x1=1 y1=0 {\n"
                       "  cb 1 format=fp32 pages=4\n"
                       "  reader {\n"
                       "    cb_reserve cb=1 n=4\n"
                       "    sem_inc sem=ready x=0 y=0\n"
                       "    sem_wait sem=valid value=1\n"
                       "    cb_push cb=1 n=4\n"
                       "  }\n"
                       "  writer {\n"
                       "    cb_wait cb=1 n=4\n"
                       "    write cb=1 tensor=C row=0 col=0 rows=2 cols=2\n"
                       "    write_barrier\n"
                       "    cb_pop cb=1 n=4\n"
                       "  }\n"
                       "}\n";
    for (int bad = 0; bad <= 1; bad++) {
        char prog[4096];
        const char *at = strstr(text, "DCB");
        snprintf(prog, sizeof prog, "%.*s%s%s", (int)(at - text), text, bad ? "2" : "1", at + 3);
        char *errtext = NULL;
        size_t errlen = 0;
        FILE *ef = open_memstream(&errtext, &errlen);
        lm_diag d;
        lm_diag_init(&d, ef);
        df_program *p = df_parse("se.df", prog, strlen(prog), &d);
        assert_non_null(p);
        assert_true(df_bind(p, NULL, 0, &d));
        assert_true(df_validate(p, WH, &d));
        round_trip(p);
        float *a = malloc(64 * 64 * sizeof *a);
        for (int i = 0; i < 64 * 64; i++)
            a[i] = (float)(i % 11) - 5.0f;
        const float *init[2] = {a, NULL};
        sim_options o = {.tensor_init = init, .keep_tensors = true};
        sim_result *r = sim_run(p, WH, &o, &d);
        fflush(ef);
        if (bad) {
            assert_null(r);
            assert_non_null(strstr(errtext, "its CB 2 is not declared"));
        } else {
            assert_non_null(r);
            const float *c = r->tensor_data[1];
            for (int y = 0; y < 64; y++)
                for (int x = 0; x < 64; x++) {
                    bool in = y >= 33 && y < 36 && x >= 10 && x < 50;
                    float want = in ? a[(3 + y - 33) * 64 + 20 + x - 10] : 0.0f;
                    assert_true(c[y * 64 + x] == want);
                }
            sim_result_free(r);
        }
        fclose(ef);
        free(errtext);
        free(a);
        df_free(p);
    }
}

/* ---- what cannot be lowered ------------------------------------------------------- */

static bool err_has(job *j, const char *text)
{
    fflush(j->err);
    return j->errtext && strstr(j->errtext, text);
}

/* The causal loop runs fewer key blocks for earlier query blocks: the
 * cores of a row run the most trips in their data-movement kernels, take
 * part in every multicast and push only their own blocks. */
static void attention_causal_mcast(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=2,S=256,D=64", "CAUSAL=1", "BLOCK_M=64,BLOCK_N=64,grid.x=4,grid.y=2");
    place(&j, 0, 0, SCHED_ON_X);
    place(&j, 0, 1, SCHED_ON_Y);
    transport(&j, 0, "k", SCHED_MCAST, SCHED_ON_X, false);
    transport(&j, 0, "v", SCHED_MCAST, SCHED_ON_X, true);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    /* the key loop of the reader runs 4 trips on every core */
    const df_class *c = class_at(p, 1, 0);
    const df_stmt *loop = NULL;
    for (int i = 0; i < c->kernels[DF_READER].nbody && !loop; i++)
        if (c->kernels[DF_READER].body[i]->op == DF_FOR)
            loop = c->kernels[DF_READER].body[i];
    assert_non_null(loop);
    assert_int_equal(loop->hi->kind, DF_X_CONST);
    assert_int_equal(loop->hi->value, 4);
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* The first FOR statement of body[0..n), or NULL. */
static const df_stmt *first_for(df_stmt *const *body, int n)
{
    for (int i = 0; i < n; i++)
        if (body[i]->op == DF_FOR)
            return body[i];
    return NULL;
}

/* With two waves of query blocks per core (8 blocks of 32 rows on 4 core
 * columns), the cores of a row stretch the key loop of each wave to the
 * most trips of that wave's blocks: block p sees p + 1 key blocks, so wave
 * w runs 4 w + 4 trips on every core of the row, not 8 in both. */
static void attention_causal_stretch_per_wave(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=2,S=256,D=64", "CAUSAL=1", "BLOCK_M=32,BLOCK_N=32,grid.x=4,grid.y=2");
    place(&j, 0, 0, SCHED_ON_X);
    place(&j, 0, 1, SCHED_ON_Y);
    transport(&j, 0, "k", SCHED_MCAST, SCHED_ON_X, false);
    transport(&j, 0, "v", SCHED_MCAST, SCHED_ON_X, false);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    for (int x = 0; x < 4; x++) {
        const df_class *c = class_at(p, x, 0);
        /* the reader: the loop over its waves, the key loop inside */
        const df_stmt *wave = first_for(c->kernels[DF_READER].body, c->kernels[DF_READER].nbody);
        assert_non_null(wave);
        assert_int_equal(df_eval(wave->hi, (int64_t[DF_MAX_SLOTS]){0}), 2);
        const df_stmt *key = first_for(wave->body, wave->nbody);
        assert_non_null(key);
        for (int w = 0; w < 2; w++) {
            int64_t slots[DF_MAX_SLOTS] = {0};
            slots[DF_SLOT_CX] = x;
            slots[wave->var] = w;
            assert_int_equal(df_eval(key->hi, slots), 4 * w + 4);
        }
    }
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

/* The first READ statement of body[0..n) at any depth, or NULL. */
static const df_stmt *first_read(df_stmt *const *body, int n)
{
    for (int i = 0; i < n; i++) {
        if (body[i]->op == DF_READ)
            return body[i];
        const df_stmt *r = body[i]->op == DF_FOR ? first_read(body[i]->body, body[i]->nbody) : NULL;
        if (r)
            return r;
    }
    return NULL;
}

/* Causal attention with K and V from DRAM, 8 query blocks in two whole
 * waves over 4 core rows: the rows take them back and forth (row c runs
 * blocks 3 - c and 4 + c: 9 key blocks each), where one direction gives
 * the last row 4 + 8 = 12 and the first 1 + 5 = 6. */
static void attention_causal_back_and_forth(void **st)
{
    (void)st;
    job j;
    job_open(&j, FA, "B=1,H=1,S=256,D=64", "CAUSAL=1", "BLOCK_M=32,BLOCK_N=32,grid.x=1,grid.y=4");
    place(&j, 0, 0, SCHED_ON_Y);
    place(&j, 0, 1, SCHED_ON_X);
    df_program *p = lower(&j, 0);
    assert_non_null(p);
    for (int y = 0; y < 4; y++) {
        const df_class *c = class_at(p, 0, y);
        const df_stmt *wave = first_for(c->kernels[DF_READER].body, c->kernels[DF_READER].nbody);
        assert_non_null(wave);
        const df_stmt *q = first_read(wave->body, wave->nbody);
        assert_non_null(q);
        for (int w = 0; w < 2; w++) {
            int64_t slots[DF_MAX_SLOTS] = {0};
            slots[DF_SLOT_CY] = y;
            slots[wave->var] = w;
            /* the query block's first tile row: its index (32-row blocks) */
            assert_int_equal(df_eval(q->row, slots), w == 0 ? 3 - y : 4 + y);
        }
    }
    df_free(p);
    run_checked(&j);
    job_close(&j);
}

static void error_mcast_dependent(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=128,N=128,K=64", NULL, "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=2,grid.y=2");
    transport(&j, 0, "b", SCHED_MCAST, SCHED_ON_X, false);
    assert_null(sched_lower(&j.k[0], &j.s[0], WH, j.r.sym, &j.d));
    assert_true(err_has(&j, "depends on pid.1"));
    job_close(&j);
}

static void error_unbound_and_grid(void **st)
{
    (void)st;
    job j;
    job_open(&j, MM, "M=128,N=128,K=64", NULL, "BLOCK_M=64,BLOCK_N=64,grid.x=2,grid.y=2");
    assert_null(sched_lower(&j.k[0], &j.s[0], WH, j.r.sym, &j.d));
    assert_true(err_has(&j, "no value to 'BLOCK_K'"));
    job_close(&j);
    job_open(&j, MM, "M=128,N=128,K=64", NULL, "BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,grid.x=9,grid.y=2");
    assert_null(sched_lower(&j.k[0], &j.s[0], WH, j.r.sym, &j.d));
    assert_true(err_has(&j, "does not fit"));
    job_close(&j);
}

/* ---- tensor layout ------------------------------------------------------------------ */

static void layout_dims(void **st)
{
    (void)st;
    int64_t r, c;
    int64_t s1[] = {40};
    sched_tensor_dims(s1, 1, false, &r, &c);
    assert_int_equal(r, 1);
    assert_int_equal(c, 64);
    int64_t s2[] = {33, 64};
    sched_tensor_dims(s2, 2, false, &r, &c);
    assert_int_equal(r, 64);
    assert_int_equal(c, 64);
    /* [B, H, S, D]: B*H heads of S rows, S padded per head */
    int64_t s4[] = {2, 3, 40, 16};
    sched_tensor_dims(s4, 4, false, &r, &c);
    assert_int_equal(r, 2 * 3 * 64);
    assert_int_equal(c, 32);
    /* element (1, 2, 5, 7) lands at row (1*3 + 2)*64 + 5, column 7; padding is zero */
    int64_t n = 2 * 3 * 40 * 16;
    float *nd = malloc((size_t)n * sizeof *nd), *back = malloc((size_t)n * sizeof *back);
    float *flat = malloc((size_t)(r * c) * sizeof *flat);
    for (int64_t i = 0; i < n; i++)
        nd[i] = (float)(i + 1);
    sched_tensor_to_2d(nd, s4, 4, false, flat);
    int64_t e = ((1 * 3 + 2) * 40 + 5) * 16 + 7;
    assert_true(flat[((1 * 3 + 2) * 64 + 5) * 32 + 7] == nd[e]);
    assert_true(flat[(0 * 64 + 45) * 32 + 3] == 0.0f);
    assert_true(flat[5 * 32 + 20] == 0.0f);
    sched_tensor_from_2d(flat, s4, 4, false, back);
    assert_memory_equal(nd, back, (size_t)n * sizeof *nd);
    free(flat);
    /* folded: the 2*3*40 = 240 rows run on without padding, padded once to 256;
       element (1, 2, 5, 7) is row (1*3 + 2)*40 + 5 */
    sched_tensor_dims(s4, 4, true, &r, &c);
    assert_int_equal(r, 256);
    assert_int_equal(c, 32);
    flat = malloc((size_t)(r * c) * sizeof *flat);
    sched_tensor_to_2d(nd, s4, 4, true, flat);
    assert_true(flat[((1 * 3 + 2) * 40 + 5) * 32 + 7] == nd[e]);
    assert_true(flat[(0 * 40 + 39 + 1) * 32 + 3] == nd[((0 * 3 + 1) * 40 + 0) * 16 + 3]); /* next head follows */
    assert_true(flat[245 * 32 + 3] == 0.0f);
    sched_tensor_from_2d(flat, s4, 4, true, back);
    assert_memory_equal(nd, back, (size_t)n * sizeof *nd);
    /* rank 2 and below: one group of rows, the same either way */
    sched_tensor_dims(s2, 2, true, &r, &c);
    assert_int_equal(r, 64);
    free(nd);
    free(back);
    free(flat);
}

/* ---- the mask op ----------------------------------------------------------------- */

/* Element (i, j) of a 64 x 64 block keeps its value when i - j >= 0 and
 * -j + 40 >= 0 (j <= 40); otherwise it becomes the scalar. */
static void mask_op(void **st)
{
    (void)st;
    const char *text = "program m\n"
                       "tensor A rows=64 cols=64 format=fp32 role=input\n"
                       "tensor C rows=64 cols=64 format=fp32 role=output\n"
                       "class main x0=0 y0=0 x1=0 y1=0 {\n"
                       "  cb 0 format=fp32 pages=4\n"
                       "  cb 1 format=fp32 pages=4\n"
                       "  reader {\n"
                       "    cb_reserve cb=0 n=4\n"
                       "    read tensor=A row=0 col=0 rows=2 cols=2 cb=0\n"
                       "    read_barrier\n"
                       "    cb_push cb=0 n=4\n"
                       "  }\n"
                       "  compute {\n"
                       "    cb_wait cb=0 n=4\n"
                       "    cb_reserve cb=1 n=4\n"
                       "    mask a=0 out=1 rows=2 cols=2 p1r=1 p1c=-1 p2c=-1 p2k=40 scalar=-2.5\n"
                       "    cb_pop cb=0 n=4\n"
                       "    cb_push cb=1 n=4\n"
                       "  }\n"
                       "  writer {\n"
                       "    cb_wait cb=1 n=4\n"
                       "    write cb=1 tensor=C row=0 col=0 rows=2 cols=2\n"
                       "    write_barrier\n"
                       "    cb_pop cb=1 n=4\n"
                       "  }\n"
                       "}\n";
    lm_diag d;
    lm_diag_init(&d, stderr);
    df_program *p = df_parse("mask.df", text, strlen(text), &d);
    assert_non_null(p);
    assert_true(df_bind(p, NULL, 0, &d));
    assert_true(df_validate(p, WH, &d));
    float *a = malloc(64 * 64 * sizeof *a);
    for (int i = 0; i < 64 * 64; i++)
        a[i] = (float)i;
    const float *init[2] = {a, NULL};
    sim_options o = {.tensor_init = init, .keep_tensors = true};
    sim_result *r = sim_run(p, WH, &o, &d);
    assert_non_null(r);
    assert_int_equal(r->ntensors, 2);
    const float *out = r->tensor_data[1];
    for (int i = 0; i < 64; i++)
        for (int jj = 0; jj < 64; jj++) {
            bool keep = i - jj >= 0 && 40 - jj >= 0;
            assert_true(out[i * 64 + jj] == (keep ? a[i * 64 + jj] : -2.5f));
        }
    /* the given input came back unchanged */
    assert_memory_equal(r->tensor_data[0], a, 64 * 64 * sizeof *a);
    sim_result_free(r);
    free(a);
    df_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_dims),
        cmocka_unit_test(mask_op),
        cmocka_unit_test(matmul_dram),
        cmocka_unit_test(matmul_bf16_partials),
        cmocka_unit_test(matmul_mcast_2x2),
        cmocka_unit_test(matmul_mcast_4x4),
        cmocka_unit_test(matmul_mcast_4x4_middle),
        cmocka_unit_test(matmul_mcast_nocs_2d),
        cmocka_unit_test(matmul_mcast_nocs_transposed),
        cmocka_unit_test(matmul_waves_forward),
        cmocka_unit_test(matmul_xy_and_time),
        cmocka_unit_test(attention_plain),
        cmocka_unit_test(attention_causal),
        cmocka_unit_test(attention_mcast),
        cmocka_unit_test(attention_small_blocks),
        cmocka_unit_test(attention_tail),
        cmocka_unit_test(clean_before_first_use),
        cmocka_unit_test(attention_tutorial),
        cmocka_unit_test(rowmax_seed),
        cmocka_unit_test(scale_fold),
        cmocka_unit_test(packsum),
        cmocka_unit_test(mask_split),
        cmocka_unit_test(gemm_clean_split),
        cmocka_unit_test(matmul_k_tail),
        cmocka_unit_test(eltwise_chains),
        cmocka_unit_test(decode_gqa),
        cmocka_unit_test(decode_mha_forward),
        cmocka_unit_test(decode_one_split),
        cmocka_unit_test(identities_at_one_row),
        cmocka_unit_test(decode_batched),
        cmocka_unit_test(decode_fused),
        cmocka_unit_test(send_elems_op),
        cmocka_unit_test(elems_transpose_compare),
        cmocka_unit_test(attention_causal_mcast),
        cmocka_unit_test(attention_causal_stretch_per_wave),
        cmocka_unit_test(attention_causal_back_and_forth),
        cmocka_unit_test(error_mcast_dependent),
        cmocka_unit_test(error_unbound_and_grid),
        cmocka_unit_test(matmul_unaligned_blocks),
        cmocka_unit_test(clipped_rows_move_tiles),
        cmocka_unit_test(clipped_cols_move_tiles),
        cmocka_unit_test(short_store_moves_elements),
        cmocka_unit_test(element_moves_push_first),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
