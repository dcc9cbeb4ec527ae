/* test_fuse.c - fused launch pairs: the detection (src/sched/fuse.c), the
 * fused candidates (cand.c), their models (model.c) and their selection
 * (select.c), on flash decode and on a split-K row sum
 * (tests/kernels/splitk_sum.py), compiled through the driver from the
 * repository root:
 *  - which dimension of each passed tensor is a key, gathered, sliced or
 *    whole, and which program axes are keys, the gather axis and local;
 *  - pairs that cannot be fused, each with its reason;
 *  - the fused candidates: the gather axis alone along x or y, the key axes
 *    elsewhere, and the consumers they pair with;
 *  - the model of a fused choice at its solution: the send of a passed
 *    block derived here from the hardware description, the consumer
 *    without a launch of its own, the reducer's L1 over both kernels;
 *  - --no-fuse (drv_sched_opts.no_fuse) offers no fused candidate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"

typedef struct job {
    drv_result r;
    arch_desc *a;
    lm_diag d;
    char *errtext;
    size_t errlen;
    FILE *err;
    fe_kv kv[8];
    char names[8][16];
} job;

/* Compile `path` (launch spec `spec`, or the only one) with `shapes`
 * ("M=256,K=1024") and schedule it for wormhole_n150. */
static void open_job(job *j, const char *path, const char *spec, const char *shapes, bool no_fuse)
{
    memset(j, 0, sizeof *j);
    int n = 0;
    for (const char *p = shapes; p && *p && n < 8;) {
        const char *eq = strchr(p, '=');
        assert_non_null(eq);
        memcpy(j->names[n], p, (size_t)(eq - p));
        j->kv[n] = (fe_kv){j->names[n], atoll(eq + 1)};
        n++;
        p = strchr(eq, ',');
        if (p)
            p++;
    }
    j->err = open_memstream(&j->errtext, &j->errlen);
    lm_diag_init(&j->d, j->err);
    j->a = arch_load("arch/wormhole_n150.yaml", &j->d);
    assert_non_null(j->a);
    drv_opts o = {.path = path};
    o.launch.shapes = j->kv;
    o.launch.nshapes = n;
    o.launch.kernel = spec;
    bool ok = drv_compile(&j->r, &o, &j->d);
    drv_sched_opts so = {.arch = j->a, .top_k = 1, .no_fuse = no_fuse};
    ok = ok && drv_schedule(&j->r, &so, &j->d);
    fflush(j->err);
    if (!ok)
        print_error("%s\n", j->errtext);
    assert_true(ok);
}

static void close_job(job *j)
{
    drv_free(&j->r);
    arch_free(j->a);
    fclose(j->err);
    free(j->errtext);
}

static const sched_fused_tensor *passed(const sched_fusion *f, const char *name)
{
    for (int t = 0; t < f->nt; t++)
        if (!strcmp(f->t[t].tensor->name, name))
            return &f->t[t];
    return NULL;
}

/* Flash decode: part [B*HKV, NUM_SPLITS, GROUP, D] is written per (kv,
 * split) as a [1, 1, BLOCK_H, D] block and read per (kv, row) as [1,
 * NUM_SPLITS, 1, D]: kv is a key (both tile it by one), the splits are
 * gathered (the combine reads them all), the query-head dimension is
 * sliced (the split writes all of it, BLOCK_H >= GROUP, the combine one
 * row), D whole. lse is the same without D. The combine's row axis is local. */
static void decode_dimensions(void **st)
{
    (void)st;
    job j;
    open_job(&j, "kernels/flash_decode.py", NULL, "B=2,H=8,HKV=2,S=256,D=64", false);
    const sched_job *job = &j.r.sched->job;
    assert_int_equal(job->nfusions, 1);
    const sched_fusion *f = &job->fusion[0];
    assert_int_equal(f->producer, 0);
    assert_int_equal(f->consumer, 1);
    assert_int_equal(f->nt, 2);
    const sched_fused_tensor *part = passed(f, "part"), *lse = passed(f, "lse");
    assert_non_null(part);
    assert_non_null(lse);
    static const sched_fdim want_part[4] = {SCHED_FD_KEY, SCHED_FD_GATHER, SCHED_FD_SLICE, SCHED_FD_WHOLE};
    for (int d = 0; d < 4; d++)
        assert_int_equal(part->dim[d], want_part[d]);
    for (int d = 0; d < 3; d++)
        assert_int_equal(lse->dim[d], want_part[d]);
    assert_int_equal(f->gather_axis, 1);
    assert_int_equal(f->gather, 1u << 1);
    assert_int_equal(f->key_of[0], 0);
    assert_int_equal(f->key_of[1], -1);
    /* the split's stores and the combine's loads of them */
    assert_true(job->k[0]->acc->acc[part->store].is_store);
    assert_false(job->k[1]->acc->acc[part->load].is_store);
    close_job(&j);
}

/* Split-K row sums: part [NS, M] written per (row block, split) as [1, BM],
 * read per row block as [NS, BM]: the splits are gathered, M is a key of
 * block BM. The combine has no local axis: one program per group. */
static void splitk_dimensions(void **st)
{
    (void)st;
    job j;
    open_job(&j, "tests/kernels/splitk_sum.py", "splitk_sum", "M=256,K=1024", false);
    const sched_job *job = &j.r.sched->job;
    assert_int_equal(job->nfusions, 1);
    const sched_fusion *f = &job->fusion[0];
    const sched_fused_tensor *part = passed(f, "part");
    assert_non_null(part);
    assert_int_equal(f->nt, 1);
    assert_int_equal(part->dim[0], SCHED_FD_GATHER);
    assert_int_equal(part->dim[1], SCHED_FD_KEY);
    assert_int_equal(f->gather_axis, 1);
    assert_int_equal(f->key_of[0], 0);
    close_job(&j);
}

/* Pairs that are not fusable, each with its reason; their jobs are
 * scheduled without fused candidates. */
static void not_fusable(void **st)
{
    (void)st;
    static const struct {
        const char *spec, *why;
    } cases[] = {
        {"shifted", "reads dimension 1 of 'part' in blocks 'partial_sums' did not write"},
        /* every split writes row 0; the total reads all NS rows */
        {"same_block", "reads dimension 0 of 'part' in blocks 'partial_same_block' did not write"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        job j;
        open_job(&j, "tests/kernels/splitk_sum.py", cases[i].spec, "M=256,K=1024", false);
        const sched_job *job = &j.r.sched->job;
        assert_int_equal(job->nfusions, 0);
        sched_fusion f;
        lm_buf why = {0};
        assert_false(sched_fusion_find(&f, job->k[0], job->k[1], j.r.sym, job->bound, &why));
        if (!strstr(lm_buf_str(&why), cases[i].why))
            print_error("got: %s\n", lm_buf_str(&why));
        assert_non_null(strstr(lm_buf_str(&why), cases[i].why));
        lm_buf_free(&why);
        for (int l = 0; l < job->nlaunches; l++)
            for (int c = 0; c < job->cands[l].n; c++)
                assert_int_equal(job->cands[l].c[c].fuse, SCHED_FUSE_NONE);
        close_job(&j);
    }
    /* one launch alone has nothing to fuse with */
    job j;
    open_job(&j, "kernels/matmul.py", NULL, "M=256,N=256,K=256", false);
    assert_int_equal(j.r.sched->job.nfusions, 0);
    close_job(&j);
}

/* Fused producers put the gather axis (split) alone along their dimension
 * and the key axis (kv) on the other or in time; every producer has a
 * consumer with the key axis placed the same way and the local axis in
 * time, whose passed loads are fused and other loads from DRAM. */
static void fused_candidates(void **st)
{
    (void)st;
    job j;
    open_job(&j, "kernels/flash_decode.py", NULL, "B=1,H=8,HKV=2,S=256,D=64", false);
    const sched_job *job = &j.r.sched->job;
    const sched_fusion *f = &job->fusion[0];
    int np = 0, nc = 0;
    for (int i = 0; i < job->cands[0].n; i++) {
        const sched_candidate *a = &job->cands[0].c[i];
        if (a->fuse == SCHED_FUSE_NONE)
            continue;
        assert_int_equal(a->fuse, SCHED_FUSE_PRODUCER);
        np++;
        sched_place other = a->fuse_along == SCHED_ON_X ? SCHED_ON_Y : SCHED_ON_X;
        assert_int_equal(a->place[1], a->fuse_along);
        assert_true(a->place[0] == other || a->place[0] == SCHED_ON_TIME);
        int pairs = 0;
        for (int k = 0; k < job->cands[1].n; k++)
            pairs += sched_fused_pair(f, a, &job->cands[1].c[k]);
        assert_int_equal(pairs, 1);
    }
    for (int k = 0; k < job->cands[1].n; k++) {
        const sched_candidate *b = &job->cands[1].c[k];
        if (b->fuse == SCHED_FUSE_NONE)
            continue;
        nc++;
        assert_int_equal(b->place[1], SCHED_ON_TIME);
        for (int i = 0; i < b->nops; i++)
            assert_int_equal(b->ops[i].transport, SCHED_FUSED); /* both loads of the combine are passed */
    }
    assert_true(np >= 2); /* along x and along y */
    assert_true(nc >= 2);
    close_job(&j);
}

static int64_t term(const sched_job *job, const sched_choice *c, const sched_model *m, const char *name)
{
    for (int i = 0; i < m->nterms; i++)
        if (!strcmp(m->terms[i].name, name)) {
            int64_t v = -1;
            assert_true(sched_choice_eval(job, c, m->terms[i].cycles, &v));
            return v;
        }
    fail_msg("no term '%s'", name);
    return -1;
}

static int64_t value_of(const sched_choice *c, const char *name)
{
    for (int i = 0; i < c->problem.nvars; i++)
        if (!strcmp(c->problem.vars[i].var->name, name))
            return c->sol.values[i];
    fail_msg("no variable '%s'", name);
    return -1;
}

/* Decode B=1 H=8 HKV=2 S=256 D=64 on Wormhole is fused (predicted: no second
 * launch, no DRAM round trip of part and lse). At the solution, a split
 * program sends, for each of the GROUP = 4 combine programs of its kv head,
 * one row of part: 64 fp32 values (2 runs, one per tile column), 4 x 64 x 4
 * bytes in all (at its write rate, or the row's busiest link's when the g
 * producers' blocks crossing it take longer), increments valid once per
 * combine program (4), pops the CB
 * after a barrier (its CB handshake), and its farthest row neighbour is
 * grid.x - 1 hops from the first. The combine has no launch cost; its L1
 * constraint counts both kernels. */
static void fused_model(void **st)
{
    (void)st;
    job j;
    open_job(&j, "kernels/flash_decode.py", NULL, "B=1,H=8,HKV=2,S=256,D=64", false);
    const drv_sched *ds = j.r.sched;
    const sched_job *job = &ds->job;
    const sched_choice *c = &ds->result.top[0];
    const sched_model *ma = c->m[0], *mb = c->m[1];
    assert_int_equal(ma->cand->fuse, SCHED_FUSE_PRODUCER);
    assert_int_equal(mb->cand->fuse, SCHED_FUSE_CONSUMER);
    assert_int_equal(ds->result.best[0].cand.fuse, SCHED_FUSE_PRODUCER);
    const arch_desc *a = j.a;
    int64_t g = value_of(c, ma->cand->fuse_along == SCHED_ON_X ? "decode_split.grid.x" : "decode_split.grid.y");
    assert_int_equal(g, value_of(c, "NUM_SPLITS")); /* a group on one row (column) */
    int64_t nq = 4, runs = nq * 2, bytes = nq * 64 * 4;
    int64_t rate = llround(LM_MIN(a->core_write_bpc, (double)a->link_bytes_per_cycle) * 1000);
    int64_t own = (bytes * 1000 + rate - 1) / rate, cmds = runs * llround(a->noc_cmd_cycles);
    /* the g producers of a row send at once, each one block of 64 x 4 bytes
       to each of the 4 reducers (cores 0..3 of the row, NoC 1 of the writer
       running toward -x): the busiest link of the row carries the blocks of
       every pair whose route crosses it, for this g or a smaller one */
    int64_t link = 0;
    for (int64_t j = 1; j <= g; j++) {
        int load[64] = {0};
        for (int p = 0; p < j; p++)
            for (int q = 0; q < nq; q++) {
                int d = (int)(q % j), from = a->core_noc_x[p], to = a->core_noc_x[d];
                int dir = a->noc_torus ? -1 : (to >= from ? 1 : -1);
                for (int x = from, n = 0; x != to && n < a->noc_w; n++, x = (x + dir + a->noc_w) % a->noc_w)
                    load[x]++;
            }
        for (int x = 0; x < a->noc_w; x++)
            link = LM_MAX(link, (int64_t)load[x]);
    }
    int64_t lrate = llround((double)a->link_bytes_per_cycle * 1000);
    int64_t ltime = (64 * 4 * link * 1000 + lrate - 1) / lrate;
    int64_t want = llround(a->cb_handshake_cycles + a->barrier_cycles) + nq * llround(a->noc_cmd_cycles) +
                   llround(a->noc_inject_cycles + a->noc_eject_cycles) + (g - 1) * llround(a->noc_hop_cycles) +
                   LM_MAX(LM_MAX(own, ltime), cmds);
    assert_int_equal(term(job, c, ma, "send part to the reducer"), want);
    assert_int_equal(term(job, c, mb, "kernel launch"), 0);
    assert_true(term(job, c, ma, "kernel launch") > 0);
    /* the reducer holds both kernels: more than the combine alone */
    int64_t la = 0, lb = 0;
    assert_true(sched_choice_eval(job, c, ma->l1_bytes, &la));
    assert_true(sched_choice_eval(job, c, mb->l1_bytes, &lb));
    assert_true(lb > la);
    bool named = false;
    for (int i = 0; i < c->problem.ncons; i++)
        named |= strstr(c->problem.cons[i].name, "L1 capacity of a reducer core") != NULL;
    assert_true(named);
    /* the job's prediction is the two launches' sum, the consumer's without a launch */
    assert_int_equal(ds->result.cycles, ds->result.best[0].predicted_cycles + ds->result.best[1].predicted_cycles);
    close_job(&j);

    /* without fusion: plain candidates only, two launches */
    open_job(&j, "kernels/flash_decode.py", NULL, "B=1,H=8,HKV=2,S=256,D=64", true);
    assert_int_equal(j.r.sched->job.nfusions, 0);
    assert_int_equal(j.r.sched->result.best[0].cand.fuse, SCHED_FUSE_NONE);
    assert_int_equal(j.r.sched->result.best[1].cand.fuse, SCHED_FUSE_NONE);
    close_job(&j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_dimensions), cmocka_unit_test(splitk_dimensions), cmocka_unit_test(not_fusable),
        cmocka_unit_test(fused_candidates),  cmocka_unit_test(fused_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
