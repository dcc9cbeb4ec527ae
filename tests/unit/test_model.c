/* test_model.c - the latency model (src/sched/model.c) against what the
 * lowering builds: every top-k pick of several kernels and shapes (on both
 * chips, with blocks that divide their dimensions and blocks a boundary
 * check cuts short, split counts of 1 and more, fused launch pairs) lowers
 * and validates, and the L1 its CBs take is the model's L1 figure exactly.
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
#include "test_fill.h"
#include "test_kv.h"

static arch_desc *WH, *BH;

static int setup(void **st)
{
    (void)st;
    lm_diag d;
    lm_diag_init(&d, stderr);
    WH = arch_load("wormhole_n150", &d);
    BH = arch_load("blackhole_p150", &d);
    return WH && BH ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    arch_free(WH);
    arch_free(BH);
    return 0;
}

/* The largest CB total of any class of a lowered program. */
static int64_t cb_bytes(const df_program *p, const arch_desc *a)
{
    int64_t most = 0;
    for (int i = 0; i < p->nclasses; i++) {
        int64_t b = 0;
        for (int j = 0; j < p->classes[i].ncbs; j++)
            b += p->classes[i].cbs[j].pages * a->tile_bytes[p->classes[i].cbs[j].format];
        most = LM_MAX(most, b);
    }
    return most;
}

/* A kernel compiled and scheduled for the checks below, its messages
 * collected in errtext. */
typedef struct scheduled {
    drv_result r;
    lm_diag d;
    FILE *err;
    char *errtext;
    size_t errlen;
    fe_kv sk[16], ck[16];
    char sbuf[256], cbuf[256];
} scheduled;

static void schedule_open(scheduled *x, const arch_desc *a, const char *path, const char *spec, const char *shapes,
                          const char *consts, int topk)
{
    x->errtext = NULL;
    x->errlen = 0;
    x->err = open_memstream(&x->errtext, &x->errlen);
    lm_diag_init(&x->d, x->err);
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = x->sk;
    o.launch.nshapes = parse_kv(shapes, x->sk, 16, x->sbuf, sizeof x->sbuf);
    o.launch.consts = x->ck;
    o.launch.nconsts = consts ? parse_kv(consts, x->ck, 16, x->cbuf, sizeof x->cbuf) : 0;
    o.launch.kernel = spec;
    bool ok = drv_compile(&x->r, &o, &x->d);
    drv_sched_opts so = {.arch = a, .top_k = topk};
    ok = ok && drv_schedule(&x->r, &so, &x->d);
    fflush(x->err);
    if (!ok)
        print_error("%s\n", x->errtext);
    assert_true(ok);
}

static void schedule_close(scheduled *x)
{
    drv_free(&x->r);
    fclose(x->err);
    free(x->errtext);
}

static int nfused; /* fused pairs lowered by l1_agrees */

/* Schedule with the top `topk`, lower every pick and compare its CB bytes
 * with the model's L1 figure at the pick (a fused pair's: a reducer
 * core's, which holds both kernels). `path` may name a spec: "FILE:SPEC". */
static void l1_agrees(const arch_desc *a, const char *path, const char *shapes, const char *consts, int topk)
{
    static char pbuf[256];
    snprintf(pbuf, sizeof pbuf, "%s", path);
    char *spec = strchr(pbuf, ':');
    if (spec)
        *spec++ = 0;
    path = pbuf;
    scheduled x;
    schedule_open(&x, a, path, spec, shapes, consts, topk);
    const sched_job *job = &x.r.sched->job;
    const sched_result *res = &x.r.sched->result;
    int bad = 0;
    for (int t = 0; t < res->ntop; t++) {
        const sched_choice *ch = &res->top[t];
        sched_schedule sc[SCHED_MAX_LAUNCHES];
        memset(sc, 0, sizeof sc);
        sched_choice_schedules(job, ch, sc, x.r.sym);
        const sched_kernel *kp[SCHED_MAX_LAUNCHES];
        const sched_schedule *sp[SCHED_MAX_LAUNCHES];
        for (int l = 0; l < job->nlaunches; l++)
            kp[l] = job->k[l], sp[l] = &sc[l];
        for (int l = 0, cov = 1; l < job->nlaunches; l += cov) {
            int64_t model = -1;
            assert_non_null(job->k[l]->cb_bytes); /* the lowering's plan, not the allocation's estimate */
            /* a fused pair is one program: its reducer cores hold both kernels,
               which the consumer's model counts */
            int lm = sc[l].cand.fuse == SCHED_FUSE_PRODUCER ? l + 1 : l;
            assert_true(sched_choice_eval(job, ch, ch->m[lm]->l1_bytes, &model));
            df_program *p = sched_lower_launch(kp, sp, job->nlaunches, l, a, x.r.sym, &x.d, &cov);
            fflush(x.err);
            if (!p) {
                print_error("%s %s top %d launch %d (%s): does not lower: %s\n", path, shapes, t, l,
                            job->cands[l].c[ch->cand[l]].label, x.errtext);
                bad++;
                continue;
            }
            nfused += cov == 2;
            int64_t got = cb_bytes(p, a);
            if (!df_validate(p, a, &x.d)) {
                fflush(x.err);
                print_error("%s %s top %d launch %d: does not validate: %s\n", path, shapes, t, l, x.errtext);
                bad++;
            }
            if (got != model) {
                print_error("%s %s %s top %d launch %d (%s): CBs %lld bytes, model %lld\n", path, shapes,
                            consts ? consts : "", t, l, job->cands[l].c[ch->cand[l]].label, (long long)got,
                            (long long)model);
                bad++;
            }
            df_free(p);
        }
        for (int l = 0; l < job->nlaunches; l++)
            sym_env_free(&sc[l].values);
    }
    schedule_close(&x);
    assert_int_equal(bad, 0);
}

/* Every candidate the scheduler offers lowers: each feasible candidate's
 * best schedule is lowered and validated. */
static void cands_lower(const arch_desc *a, const char *path, const char *shapes, const char *consts)
{
    scheduled x;
    schedule_open(&x, a, path, NULL, shapes, consts, 1);
    const sched_job *job = &x.r.sched->job;
    const sched_result *res = &x.r.sched->result;
    int bad = 0;
    for (int t = 0; t < res->nbests; t++) {
        const sched_choice *ch = &res->bests[t];
        sched_schedule sc[SCHED_MAX_LAUNCHES];
        memset(sc, 0, sizeof sc);
        sched_choice_schedules(job, ch, sc, x.r.sym);
        const sched_kernel *kp[SCHED_MAX_LAUNCHES];
        const sched_schedule *sp[SCHED_MAX_LAUNCHES];
        for (int l = 0; l < job->nlaunches; l++)
            kp[l] = job->k[l], sp[l] = &sc[l];
        for (int l = 0, cov = 1; l < job->nlaunches; l += cov) {
            long pos = ftell(x.err);
            df_program *p = sched_lower_launch(kp, sp, job->nlaunches, l, a, x.r.sym, &x.d, &cov);
            bool v = p && df_validate(p, a, &x.d);
            fflush(x.err);
            if (!v) {
                print_error("%s %s %s candidate %d launch %d (%s): %s\n", path, shapes, consts ? consts : "", t, l,
                            job->cands[l].c[ch->cand[l]].label, x.errtext + pos);
                bad++;
            }
            df_free(p);
        }
        for (int l = 0; l < job->nlaunches; l++)
            sym_env_free(&sc[l].values);
    }
    schedule_close(&x);
    assert_int_equal(bad, 0);
}

static void candidates_lower(void **st)
{
    (void)st;
    cands_lower(WH, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=64", "CAUSAL=1,BLOCK_M=128");
    cands_lower(WH, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=64", "CAUSAL=1,BLOCK_M=64,BLOCK_N=64");
    cands_lower(WH, "kernels/flash_attention.py", "B=1,H=4,S=512,D=64", "CAUSAL=0");
    cands_lower(WH, "kernels/matmul.py", "M=512,N=512,K=512", NULL);
    cands_lower(WH, "kernels/flash_decode.py", "B=2,H=32,HKV=32,S=300,D=128", NULL);
    cands_lower(WH, "kernels/flash_decode.py", "B=2,H=32,HKV=32,S=300,D=128", "NUM_SPLITS=8");
    cands_lower(BH, "kernels/flash_decode.py", "B=1,H=32,HKV=8,S=1000,D=64", NULL);
}

/* ---- terms of the latency model at a point ------------------------------------- */

typedef struct compiled {
    drv_result r;
    lm_diag d;
    sched_model m;
} compiled;

/* Compile path at shapes, summarise with the lowering's plan, and build the
 * model of the first candidate. */
static void compile_model_on(compiled *x, const char *path, const char *shapes, const arch_desc *a)
{
    static char sbuf[256];
    fe_kv sk[16];
    memset(x, 0, sizeof *x);
    lm_diag_init(&x->d, stderr);
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shapes, sk, 16, sbuf, sizeof sbuf);
    assert_true(drv_compile(&x->r, &o, &x->d));
    drv_sched_opts so = {.arch = a};
    assert_true(drv_summarize(&x->r, &so, &x->d));
    sched_kernel *k = x->r.sched->job.k[0];
    assert_true(sched_lower_l1(k, a, &x->r.sched->bound, x->r.sym, &x->r.arena));
    sched_cands cs;
    sched_candidates(&cs, k, a, &x->r.sched->bound, x->r.sym, &x->r.arena);
    assert_true(cs.n >= 1);
    assert_true(sched_model_build(&x->m, k, &cs.c[0], a, &x->r.sched->bound, "", x->r.sym, &x->r.arena, &x->d));
}

static void compile_model(compiled *x, const char *path, const char *shapes) { compile_model_on(x, path, shapes, WH); }

static int64_t term_at(compiled *x, sched_termkind kind, int level, const char *name, const char *at)
{
    static char vbuf[256];
    fe_kv vk[16];
    int nv = parse_kv(at, vk, 16, vbuf, sizeof vbuf);
    sym_env env = {0};
    for (int i = 0; i < x->r.sched->bound.n; i++)
        sym_env_set(&env, x->r.sched->bound.b[i].var, x->r.sched->bound.b[i].lo);
    for (int i = 0; i < nv; i++)
        sym_env_set(&env, sym_var(x->r.sym, vk[i].name), vk[i].value);
    int64_t v = -1;
    bool found = false;
    for (int i = 0; i < x->m.nterms && !found; i++) {
        const sched_term *t = &x->m.terms[i];
        if (t->kind == kind && t->level == level && !strcmp(t->name, name)) {
            assert_int_equal(sym_eval(t->cycles, &env, &v), SYM_OK);
            found = true;
        }
    }
    sym_env_free(&env);
    if (!found)
        fail_msg("no term '%s' at level %d", name, level);
    return v;
}

/* The one decision of `kind` the lowering recorded for the model; the only
 * others allowed are passes before a reduction that come to none here (a
 * mask of a partial tile, at a reduced extent of whole tiles). */
static const sched_lowered *lowered_one(compiled *x, sched_lkind kind)
{
    sched_kernel *k = x->r.sched->job.k[0];
    const sched_lowered *w = NULL;
    sym_env env = {0};
    for (int i = 0; i < x->r.sched->bound.n; i++)
        sym_env_set(&env, x->r.sched->bound.b[i].var, x->r.sched->bound.b[i].lo);
    for (int l = 0; l < k->nlowered; l++) {
        if (k->lowered[l].kind == kind) {
            assert_null(w);
            w = &k->lowered[l];
            continue;
        }
        int64_t n = -1;
        assert_int_equal(k->lowered[l].kind, SCHED_LOWER_PASSES);
        assert_int_equal(sym_eval(k->lowered[l].passes, &env, &n), SYM_OK);
        assert_int_equal(n, 0);
    }
    sym_env_free(&env);
    assert_non_null(w);
    return w;
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t milli(double x) { return llround(x * 1000); }

/* y = exp(x) then z = y * y on a 64 x 128 fp32 block (2 x 4 tiles; Dst holds
 * 4 fp32 tiles, so each op is 2 chunks). The multiply reads what the exp
 * made, so it starts after the exp's last chunk is packed: the compute
 * stage is the chain exp (its slowest stage: it reads only the load and
 * overlaps the previous program) + multiply (slowest stage + its first
 * chunk's fill over its 2 chunks: op_fill), above the engines' totals; then one Dst
 * hand-off per chunk and the CB handshakes of x and z. The multiply waits
 * for y's push, a CB handshake on the path between the two (the simulator
 * charges it there: test_sim_chain.c, sub_exp_cycles). The two ops differ,
 * so each thread also runs two op inits a program: they count in the
 * threads' totals (a thread runs them while it would wait for the op's
 * inputs), not along the chain, as does y's push on the packer and its
 * pop on the unpacker. */
static void chain_of_ops(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/chain.py", "M=1024,N=128");
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.z=2";
    int64_t tb = a->tile_bytes[ARCH_FP32], T = 8;
    int64_t u_exp = cdiv(T * tb * 1000, milli(a->unpack_bpc)), p_exp = cdiv(T * tb * 1000, milli(a->pack_bpc));
    int64_t m_exp = cdiv(T * milli(a->sfpu_exp_tile_cycles), 1000);
    int64_t u_mul = cdiv(2 * T * tb * 1000, milli(a->unpack_bpc)), p_mul = p_exp;
    int64_t m_mul = cdiv(T * milli(a->eltwise_tile_cycles), 1000);
    int64_t top_mul = LM_MAX(LM_MAX(u_mul, m_mul), p_mul);
    int64_t two = test_op_fill(u_mul, m_mul, p_mul, T / 2);
    int64_t hs = llround(a->cb_handshake_cycles);
    int64_t chain = LM_MAX(LM_MAX(u_exp, m_exp), p_exp) + hs + top_mul + cdiv(two, 2);
    int64_t inits = 2 * llround(a->op_init_cycles);
    int64_t totals = LM_MAX(LM_MAX(cdiv(3 * T * tb * 1000, milli(a->unpack_bpc)) + inits + hs,
                                   cdiv(T * (milli(a->sfpu_exp_tile_cycles) + milli(a->eltwise_tile_cycles)), 1000) + inits),
                            cdiv(2 * T * tb * 1000, milli(a->pack_bpc)) + inits + hs);
    int64_t want = LM_MAX(chain, totals) + 4 * llround(a->dst_handoff_cycles) + 2 * hs;
    assert_true(a->op_init_cycles > 0);
    assert_true(chain > totals); /* the chain decides here */
    /* the inits are in each thread's total, and y's pop: the unpacker reads x, then x and y */
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at),
                     cdiv(3 * T * tb * 1000, milli(a->unpack_bpc)) + inits + hs);
    assert_int_equal(term_at(&x, SCHED_T_COMPUTE, 0, "compute", at), want);
    drv_free(&x.r);
}

/* y = exp(x), w = x * x, z = exp(y) in that order on a 64 x 128 fp32 block
 * (tests/unit/data/unpack_order.py; 8 tiles, two chunks of Dst). The
 * multiply reads only the load, so alone it would overlap the exps; but
 * the unpacker is one thread that takes the ops in program order, so z's
 * exp cannot start unpacking y before the unpacker has read x for the exp
 * (8 tiles) and x twice for the multiply (16 tiles), even though y was
 * pushed long before: the chain is u(exp) + u(mul) + z's full op, not
 * exp + handshake + z's full op. Here that path is the compute stage:
 * above every engine's total, plus a Dst hand-off per chunk of each op
 * and the CB handshakes of x, w and z. */
static void unpack_in_order(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/unpack_order.py", "M=1024,N=128");
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.w=2,depth.z=2";
    int64_t tb = a->tile_bytes[ARCH_FP32], T = 8, hs = llround(a->cb_handshake_cycles);
    int64_t u_exp = cdiv(T * tb * 1000, milli(a->unpack_bpc)), p_exp = cdiv(T * tb * 1000, milli(a->pack_bpc));
    int64_t m_exp = cdiv(T * milli(a->sfpu_exp_tile_cycles), 1000);
    int64_t u_mul = cdiv(2 * T * tb * 1000, milli(a->unpack_bpc));
    int64_t top_exp = LM_MAX(LM_MAX(u_exp, m_exp), p_exp);
    int64_t two = test_op_fill(u_exp, m_exp, p_exp, T / 2);
    int64_t start_z = LM_MAX(u_exp + u_mul, top_exp + hs);
    int64_t chain = start_z + top_exp + cdiv(two, 2);
    assert_true(u_exp + u_mul > top_exp + hs); /* the unpacker's order decides */
    /* every engine's total, with an op init per op on each thread and the
       pops and pushes of y, is below the chain */
    int64_t inits = 3 * llround(a->op_init_cycles);
    int64_t totals = LM_MAX(LM_MAX(cdiv(4 * T * tb * 1000, milli(a->unpack_bpc)),
                                   cdiv(T * (2 * milli(a->sfpu_exp_tile_cycles) + milli(a->eltwise_tile_cycles)), 1000)),
                            cdiv(3 * T * tb * 1000, milli(a->pack_bpc))) + inits + hs;
    assert_true(chain > totals);
    int64_t want = chain + 6 * llround(a->dst_handoff_cycles) + 3 * hs;
    assert_int_equal(term_at(&x, SCHED_T_COMPUTE, 0, "compute", at), want);
    drv_free(&x.r);
}

/* sqrt, rsqrt and sigmoid, each read once by the next, then z = y * w
 * (tests/unit/data/sfpu_chain.py): one chain of four steps, priced as in
 * chain_in_dst with its math the sum of the steps' figures, each read from
 * the description (on both chips, whose figures differ). */
static void sfpu_chain_figures(void **st)
{
    (void)st;
    const arch_desc *as[] = {WH, BH};
    for (int i = 0; i < 2; i++) {
        const arch_desc *a = as[i];
        compiled x;
        compile_model_on(&x, "tests/unit/data/sfpu_chain.py", "M=1024,N=128", a);
        sched_kernel *k = x.r.sched->job.k[0];
        assert_int_equal(k->nchains, 3);
        const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.w=2,depth.z=2";
        int64_t tb = a->tile_bytes[ARCH_FP32], T = 8;
        int64_t u = cdiv(2 * T * tb * 1000, milli(a->unpack_bpc)), p = cdiv(T * tb * 1000, milli(a->pack_bpc));
        int64_t m = cdiv(T * (milli(a->sfpu_sqrt_tile_cycles) + milli(a->sfpu_rsqrt_tile_cycles) +
                              milli(a->sfpu_sigmoid_tile_cycles) + milli(a->eltwise_tile_cycles)),
                         1000);
        int64_t want = LM_MAX(LM_MAX(u, m), p) + 2 * llround(a->dst_handoff_cycles) +
                       3 * llround(a->cb_handshake_cycles);
        assert_int_equal(term_at(&x, SCHED_T_COMPUTE, 0, "compute", at), want);
        drv_free(&x.r);
    }
}

/* y = log2(x) read once, by z = y * w (tests/unit/data/log_chain.py): the
 * chain of chain_in_dst with a log for its SFPU step, whose math is the
 * description's exact exp per tile - what the simulator charges a log - on
 * both chips (it was priced at the fast exp's figure: Wormhole 106.7
 * against 748 cycles a tile). */
static void log_at_exact_exp(void **st)
{
    (void)st;
    const arch_desc *as[] = {WH, BH};
    for (int i = 0; i < 2; i++) {
        const arch_desc *a = as[i];
        compiled x;
        compile_model_on(&x, "tests/unit/data/log_chain.py", "M=1024,N=128", a);
        sched_kernel *k = x.r.sched->job.k[0];
        assert_int_equal(k->nchains, 1);
        assert_int_equal(k->chain_from[0]->code, TIR_LOG2);
        const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.w=2,depth.z=2";
        int64_t tb = a->tile_bytes[ARCH_FP32], T = 8;
        int64_t u = cdiv(2 * T * tb * 1000, milli(a->unpack_bpc)), p = cdiv(T * tb * 1000, milli(a->pack_bpc));
        int64_t m = cdiv(T * (milli(a->sfpu_exp_exact_tile_cycles) + milli(a->eltwise_tile_cycles)), 1000);
        assert_true(m > LM_MAX(u, p)); /* the math decides */
        int64_t want = m + 2 * llround(a->dst_handoff_cycles) + 3 * llround(a->cb_handshake_cycles);
        assert_int_equal(term_at(&x, SCHED_T_COMPUTE, 0, "compute", at), want);
        drv_free(&x.r);
    }
}

/* y = exp(x) read once, by z = y * w (tests/unit/data/dst_chain.py): the
 * lowering keeps y in Dst and emits one chain (checked here), and the model
 * prices it as that one tile op, 64 x 128 fp32 (8 tiles, Dst holds 4: two
 * chunks): unpack x and w once (16 tiles), math 8 exps and 8 multiplies,
 * pack z once (8 tiles); it reads only loads, so in steady state it counts
 * its slowest stage; then a Dst hand-off per chunk (2, not 4) and the CB
 * handshakes of x, w and z; the one op never switches, so no op init. */
static void chain_in_dst(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/dst_chain.py", "M=1024,N=128");
    sched_kernel *k = x.r.sched->job.k[0];
    assert_int_equal(k->nchains, 1);
    assert_int_equal(k->chain_from[0]->code, TIR_EXP);
    assert_int_equal(k->chain_to[0]->code, TIR_MUL);
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.w=2,depth.z=2";
    int64_t tb = a->tile_bytes[ARCH_FP32], T = 8;
    int64_t u = cdiv(2 * T * tb * 1000, milli(a->unpack_bpc)), p = cdiv(T * tb * 1000, milli(a->pack_bpc));
    int64_t m = cdiv(T * (milli(a->sfpu_exp_tile_cycles) + milli(a->eltwise_tile_cycles)), 1000);
    int64_t want = LM_MAX(LM_MAX(u, m), p) + 2 * llround(a->dst_handoff_cycles) + 3 * llround(a->cb_handshake_cycles);
    assert_int_equal(term_at(&x, SCHED_T_COMPUTE, 0, "compute", at), want);

    /* what the lowering emits at those values: one chain, exp then the
       multiply by w's pages, and no other tile op */
    sched_schedule s;
    memset(&s, 0, sizeof s);
    s.k = k;
    s.cand = *x.m.cand;
    for (int i = 0; i < x.r.sched->bound.n; i++)
        sym_env_set(&s.values, x.r.sched->bound.b[i].var, x.r.sched->bound.b[i].lo);
    sym_env_set(&s.values, sym_var(x.r.sym, "BLOCK_M"), 64);
    sym_env_set(&s.values, sym_var(x.r.sym, "grid.x"), 1);
    sym_env_set(&s.values, sym_var(x.r.sym, "grid.y"), 1);
    s.fidelity = k->fidelity;
    s.origin = "test";
    s.predicted_cycles = -1;
    struct df_program *prog = sched_lower(k, &s, a, x.r.sym, &x.d);
    assert_non_null(prog);
    int chains = 0, tileops = 0;
    for (int c = 0; c < prog->nclasses; c++) {
        const df_kernel *kc = &prog->classes[c].kernels[DF_COMPUTE];
        for (int i = 0; i < kc->nbody; i++) {
            const df_stmt *st2 = kc->body[i];
            df_stmt *const *body = st2->op == DF_FOR ? st2->body : &kc->body[i];
            int n = st2->op == DF_FOR ? st2->nbody : 1;
            for (int j = 0; j < n; j++) {
                if (df_ops[body[j]->op].engine != DF_ENGINE_COMPUTE)
                    continue;
                tileops++;
                if (body[j]->op == DF_CHAIN) {
                    chains++;
                    assert_int_equal(body[j]->nbody, 2);
                    assert_int_equal(body[j]->body[0]->sub, DF_EXP);
                    assert_int_equal(body[j]->body[1]->sub, DF_MUL);
                }
            }
        }
    }
    assert_int_equal(chains, 1);
    assert_int_equal(tileops, 1);
    df_free(prog);
    sym_env_free(&s.values);
    drv_free(&x.r);
}

/* m = maximum(max(x, axis=1), max(y, axis=1)), o = x - m[:, None]
 * (tests/unit/data/rowmax_seed.py), on 64 x 128 fp32 blocks (T = 8 tiles
 * in R = 2 rows): the lowering takes the row maxima with the block
 * reduction (rowmax) and the row maximum of x inside the maximum, seeded
 * with y's (one op: the plan links the two like a chain in Dst). The
 * model prices what it emits: math T x reduce_block_tile_cycles for each
 * block, one element-wise pass per row for the seed, T element-wise tiles
 * for the subtraction; the unpacker reads y, then x and the seed, then x
 * and m for the subtraction (m broadcast along the rows: half of a tile
 * for each of x's, the faces holding column 0); three ops, each with its init on every
 * thread, and a CB handshake on the unpacker for each op after the first
 * (its operands' pop). */
static void rowmax_seeded(void **st)
{
    (void)st;
    const arch_desc *as[] = {WH, BH};
    for (int i = 0; i < 2; i++) {
        const arch_desc *a = as[i];
        compiled x;
        compile_model_on(&x, "tests/unit/data/rowmax_seed.py", "M=1024,N=128", a);
        sched_kernel *k = x.r.sched->job.k[0];
        assert_int_equal(k->nchains, 1);
        assert_int_equal(k->chain_from[0]->code, TIR_REDUCE_MAX);
        assert_int_equal(k->chain_to[0]->code, TIR_MAX);
        const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.y=2,depth.o=2";
        int64_t tb = a->tile_bytes[ARCH_FP32], T = 8, R = 2, init = llround(a->op_init_cycles);
        int64_t math = cdiv(2 * T * milli(a->reduce_block_tile_cycles) + R * milli(a->eltwise_tile_cycles) +
                                T * milli(a->eltwise_tile_cycles),
                            1000);
        /* (a column broadcast operand: half a tile per tile of the op) */
        int64_t unpack = cdiv((T + (T + R) + (T + T / 2)) * tb * 1000, milli(a->unpack_bpc));
        assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "math", at), math + 3 * init);
        int64_t hs = llround(a->cb_handshake_cycles);
        assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at), unpack + 3 * init + 2 * hs);
        drv_free(&x.r);
    }
}

/* s = x * 0.5, p = exp(s - max(s, axis=1)[:, None]) (tests/unit/data/
 * scale_fold.py, CASE 0) on 64 x 128 fp32 blocks (T = 8 tiles): the
 * lowering folds the product into the exponential and emits two ops - the
 * row maximum of x's pages, and one pchain that subtracts and
 * exponentiates with the scale in its argument. The model prices those:
 * the product costs nothing (no math, no unpack, no init, no handshake),
 * the rest as emitted (the broadcast maximum half a tile for each of the
 * block's): the pchain's pop of its operands is the unpacker's one CB
 * handshake between the two ops. */
static void scale_folded(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/scale_fold.py", "M=1024,N=128");
    assert_int_equal(lowered_one(&x, SCHED_LOWER_GONE)->op->code, TIR_MUL);
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.p=2";
    int64_t tb = a->tile_bytes[ARCH_FP32], T = 8, init = llround(a->op_init_cycles);
    int64_t math = cdiv(T * milli(a->reduce_block_tile_cycles) + T * milli(a->eltwise_tile_cycles) +
                            T * milli(a->sfpu_exp_tile_cycles),
                        1000);
    int64_t unpack = cdiv((T + T + T / 2) * tb * 1000, milli(a->unpack_bpc));
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "math", at), math + 2 * init);
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at),
                     unpack + 2 * init + llround(a->cb_handshake_cycles));
    drv_free(&x.r);
}

/* p = exp(x - max(x, axis=1)[:, None]), l = sum(p, axis=1), o = p * l[:,
 * None] (tests/unit/data/packsum.py, CASE 0) on 64 x 128 fp32 blocks (T = 8
 * tiles, R = 2 block rows): the lowering takes l from the packer. The model
 * prices what it emits: the rowmax (T tiles in, R out), the pchain making p
 * (T tiles and the broadcast maximum's half tile for each of them in; T
 * out, and T again into the row pages), the sum reading the R row pages and
 * reducing each once, and the product (T + T/2 in, l broadcast as the
 * maximum; T out); one op init per op and thread, and for
 * each of the three ops after the first a CB handshake on the unpacker (its
 * operands' pop) and on the packer (its result's push). */
static void packsum_priced(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/packsum.py", "M=1024,N=128");
    const sched_lowered *w = lowered_one(&x, SCHED_LOWER_PACKSUM);
    assert_int_equal(w->op->code, TIR_REDUCE_SUM);
    assert_int_equal(w->by->code, TIR_EXP);
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.o=2";
    int64_t tb = a->tile_bytes[ARCH_FP32], T = 8, R = 2, init = 4 * llround(a->op_init_cycles);
    int64_t math = cdiv(T * milli(a->reduce_block_tile_cycles) + T * milli(a->eltwise_tile_cycles) +
                            T * milli(a->sfpu_exp_tile_cycles) + R * milli(a->reduce_tile_cycles) +
                            T * milli(a->eltwise_tile_cycles),
                        1000);
    int64_t unpack = cdiv((T + (T + T / 2) + R + (T + T / 2)) * tb * 1000, milli(a->unpack_bpc));
    int64_t pack = cdiv((R + 2 * T + R + T) * tb * 1000, milli(a->pack_bpc));
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "math", at), math + init);
    int64_t hs = 3 * llround(a->cb_handshake_cycles);
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at), unpack + init + hs);
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "pack", at), pack + init + hs);
    drv_free(&x.r);
}

/* Flash attention's scores masked by `cols < S` and, causal, by the
 * diagonal: the lowering leaves the mask out on the trips where it holds on
 * the whole block and records, for the model, the trips that keep it as an
 * expression of the schedule's symbols and the program id. Evaluated at
 * each query block q, it is the count from the kernel's definition: of the
 * key blocks t < ceil(min((q + 1) BLOCK_M, S) / BLOCK_N) (causal; else
 * ceil(S / BLOCK_N)), those that end past S or, causal, whose last column
 * is past the block's first row. */
static void mask_split_priced(void **st)
{
    (void)st;
    static const struct {
        const char *shape, *causal;
        int64_t S, bm, bn;
    } cases[] = {
        {"B=1,H=1,S=256,D=64", "CAUSAL=1", 256, 64, 64},   {"B=1,H=1,S=256,D=64", "CAUSAL=1", 256, 32, 128},
        {"B=1,H=1,S=256,D=64", "CAUSAL=0", 256, 64, 64},   {"B=1,H=1,S=256,D=64", "CAUSAL=0", 256, 64, 96},
        {"B=1,H=1,S=512,D=64", "CAUSAL=1", 512, 128, 96},
    };
    for (size_t ci = 0; ci < LM_COUNT(cases); ci++) {
        static char sbuf[256], cbuf[64];
        fe_kv sk[16], ck[4];
        compiled x;
        memset(&x, 0, sizeof x);
        lm_diag_init(&x.d, stderr);
        drv_opts o = {0};
        o.path = "kernels/flash_attention.py";
        o.launch.shapes = sk;
        o.launch.nshapes = parse_kv(cases[ci].shape, sk, 16, sbuf, sizeof sbuf);
        o.launch.consts = ck;
        o.launch.nconsts = parse_kv(cases[ci].causal, ck, 4, cbuf, sizeof cbuf);
        assert_true(drv_compile(&x.r, &o, &x.d));
        drv_sched_opts so = {.arch = WH};
        assert_true(drv_summarize(&x.r, &so, &x.d));
        sched_kernel *k = x.r.sched->job.k[0];
        assert_true(sched_lower_l1(k, WH, &x.r.sched->bound, x.r.sym, &x.r.arena));
        const sched_lowered *w = NULL;
        for (int l = 0; l < k->nlowered; l++)
            if (k->lowered[l].kind == SCHED_LOWER_SPLIT) {
                assert_null(w);
                w = &k->lowered[l];
            }
        assert_non_null(w);
        assert_int_equal(w->op->code, TIR_WHERE);
        bool causal = !strcmp(cases[ci].causal, "CAUSAL=1");
        int64_t S = cases[ci].S, bm = cases[ci].bm, bn = cases[ci].bn;
        for (int64_t q = 0; q * bm < S; q++) {
            sym_env env = {0};
            for (int i = 0; i < x.r.sched->bound.n; i++)
                sym_env_set(&env, x.r.sched->bound.b[i].var, x.r.sched->bound.b[i].lo);
            sym_env_set(&env, sym_var(x.r.sym, "BLOCK_M"), bm);
            sym_env_set(&env, sym_var(x.r.sym, "BLOCK_N"), bn);
            sym_env_set(&env, tir_pid_var(x.r.sym, 0), q);
            int64_t got;
            assert_int_equal(sym_eval(w->masked, &env, &got), SYM_OK);
            int64_t end = causal && (q + 1) * bm < S ? (q + 1) * bm : S, want = 0;
            for (int64_t t = 0; t * bn < end; t++)
                want += !((t + 1) * bn <= S && (!causal || q * bm >= (t + 1) * bn - 1));
            if (got != want)
                print_error("%s %s BLOCK_M=%lld BLOCK_N=%lld q=%lld\n", cases[ci].shape, cases[ci].causal, (long long)bm,
                            (long long)bn, (long long)q);
            assert_int_equal(got, want);
            sym_env_free(&env);
        }
        drv_free(&x.r);
    }
}

/* A load a boundary check cuts short still moves whole tiles when it starts
 * on the tile grid (the layout pads the tensor to whole tiles): one NoC
 * command per tile, the 8 of a 64 x 128 fp32 block at M = 1000 as at
 * M = 1024; where the tensor has fewer rows than the block only the tiles
 * holding its rows move (M = 20: one tile row of 4).
 * One core reads: the banks' and the links' shares cannot exceed its own
 * rate, so the read is latency + the NoC's round trip + max(the tiles'
 * bytes at its rate, commands). */
static void clipped_block_commands(void **st)
{
    (void)st;
    const arch_desc *a = WH;
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.z=2";
    double trip = 2 * (a->noc_inject_cycles + a->noc_eject_cycles) +
                  (double)sched_dram_trip_hops(a, 0) / 1000 * a->noc_hop_cycles; /* (dram_trip_hops) */
    int64_t fixed = llround(a->dram_latency_cycles) + llround(trip) + llround(a->cb_handshake_cycles);
    int64_t cmd = llround(a->noc_cmd_cycles);
    static const struct {
        const char *shape;
        int64_t cmds;
    } cases[] = {{"M=1024,N=128", 8}, {"M=1000,N=128", 8}, {"M=20,N=128", 4}};
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        compiled x;
        compile_model(&x, "tests/unit/data/chain.py", cases[i].shape);
        int64_t bytes = cases[i].cmds * a->tile_bytes[ARCH_FP32]; /* a tile per command */
        int64_t own = cdiv(bytes * 1000, milli(LM_MIN(a->core_read_bpc, a->link_bytes_per_cycle)));
        assert_int_equal(term_at(&x, SCHED_T_READ, 0, "read x", at), fixed + LM_MAX(own, cases[i].cmds * cmd));
        drv_free(&x.r);
    }
}

/* The NoC's part of a DRAM round trip, counted by hand on a 10 x 12 torus
 * with one bank at (0, 0) and two cores, at (1, 1) and (0, 1): NoC 0 runs
 * +x then +y, so from (1, 1) the request goes 9 + 11 hops around to the
 * bank and the data 1 + 1 back, 22 in all (both rings); from (0, 1), in the
 * bank's column, the ring of its rows only: 12; the mean 17. NoC 1 runs the
 * other way round the same rings: the same. Without a torus each leg goes
 * straight there: 2 x (1 + 1) and 2 x 1, mean 3. */
static void dram_trip_hops(void **st)
{
    (void)st;
    arch_desc a = *WH;
    a.noc_w = 10, a.noc_h = 12;
    a.num_dram_banks = 1;
    a.dram_bank_noc[0] = (arch_xy){0, 0};
    a.dram_bank_noc1[0] = (arch_xy){0, 0};
    a.grid_w = 2, a.grid_h = 1;
    a.core_noc_x[0] = 1, a.core_noc_x[1] = 0;
    a.core_noc_y[0] = 1;
    a.noc_torus = true;
    assert_int_equal(sched_dram_trip_hops(&a, 0), (22 + 12) * 1000 / 2);
    assert_int_equal(sched_dram_trip_hops(&a, 1), (22 + 12) * 1000 / 2);
    a.noc_torus = false;
    assert_int_equal(sched_dram_trip_hops(&a, 0), (4 + 2) * 1000 / 2);
}

/* The DRAM bytes of a block a boundary check cuts short are those its moves
 * carry: tests/unit/data/chain.py loads and stores 64 x 128 fp32 blocks (8
 * tiles, 32 KiB), cut at the tensor's own extent: at M = 40 the one block
 * moves the 2 x 4 tiles that hold its 40 rows each way (32 KiB); at
 * M = 1000 each of the 16 blocks at most a whole block's tiles, as at
 * M = 1024. tests/unit/data/short_store.py stores 64 x 64 fp32 blocks
 * through a block pointer 20 rows short of the tensor: at M = 40 its load
 * moves the 2 x 2 tiles of 40 rows (16 KiB) and its store, element by
 * element, the 20 rows inside (20 x 64 x 4 bytes). */
static void moved_bytes(void **st)
{
    (void)st;
    static const struct {
        const char *path, *shape;
        int64_t bytes;
    } cases[] = {{"tests/unit/data/chain.py", "M=1024,N=128", 16 * 2 * 32768},
                 {"tests/unit/data/chain.py", "M=1000,N=128", 16 * 2 * 32768},
                 {"tests/unit/data/chain.py", "M=40,N=128", 2 * 32768},
                 {"tests/unit/data/short_store.py", "M=40,N=64", 16384 + 20 * 64 * 4}};
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        compiled x;
        compile_model(&x, cases[i].path, cases[i].shape);
        sym_env env = {0};
        for (int j = 0; j < x.r.sched->bound.n; j++)
            sym_env_set(&env, x.r.sched->bound.b[j].var, x.r.sched->bound.b[j].lo);
        static const char *const vals[] = {"BLOCK_M", "grid.x", "grid.y", "depth.x", "depth.z"};
        static const int64_t vv[] = {64, 1, 1, 2, 2};
        for (size_t j = 0; j < LM_COUNT(vals); j++)
            sym_env_set(&env, sym_var(x.r.sym, vals[j]), vv[j]);
        int64_t v = -1;
        assert_int_equal(sym_eval(x.m.dram_bytes, &env, &v), SYM_OK);
        assert_int_equal(v, cases[i].bytes);
        sym_env_free(&env);
        drv_free(&x.r);
    }
}

/* A column sum (tests/unit/data/colsum.py) is a row reduction of the block
 * transposed: the lowering runs a transpose over the operand first and,
 * where the reduced extent (ROWS = M) is not whole tiles, a mask of the
 * rows past it - each a tile op of its own, recorded for the model as
 * passes before the sum (1 at M = 64, 2 at M = 16; `loomc run --print`
 * shows them). Each pass unpacks and packs the operand's tiles once and
 * runs one element-wise pass of math; the unpacker's total is the sum's
 * read plus the passes', with an op init and a CB handshake for each pass
 * (the sum alone would have neither: one op a level keeps its config). */
static void reduce_passes(void **st)
{
    (void)st;
    static const struct {
        const char *shape;
        int64_t npass, rows;
    } cases[] = {{"M=64,N=1024", 1, 2}, {"M=16,N=1024", 2, 1}};
    const arch_desc *a = WH;
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        compiled x;
        compile_model(&x, "tests/unit/data/colsum.py", cases[i].shape);
        sched_kernel *k = x.r.sched->job.k[0];
        const sched_lowered *w = NULL;
        for (int l = 0; l < k->nlowered; l++)
            if (k->lowered[l].kind == SCHED_LOWER_PASSES)
                w = &k->lowered[l];
        assert_non_null(w);
        assert_int_equal(w->op->code, TIR_REDUCE_SUM);
        const char *at = "BLOCK_N=128,grid.x=1,grid.y=1,depth.x=2,depth.o=2";
        int64_t T = cases[i].rows * 4, tb = a->tile_bytes[ARCH_FP32], n = cases[i].npass;
        int64_t unpack = cdiv((1 + n) * T * tb * 1000, milli(a->unpack_bpc)) +
                         n * (llround(a->op_init_cycles) + llround(a->cb_handshake_cycles));
        assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at), unpack);
        drv_free(&x.r);
    }
}

/* A where on data (tests/unit/data/select.py: where(x > 0, x, 1.0) on a
 * 64 x 128 fp32 block, T = 8 tiles) is 1.0 + c * (x - 1.0): the lowering
 * fills a constant tile, takes the difference and the product into
 * temporaries, fills the sum's constant tile, then sums - four tile ops
 * before the sum (`loomc run --print` lists them), recorded as passes of
 * T, T, 1 and 1 tiles. The unpacker's total is the where's own read of x
 * (T) and the passes' 2T + 2, with an op init and a CB handshake for each
 * pass (the where alone would have neither). The comparison's own SFPU op
 * (gtz) is not a work op of the model yet: a known gap (docs/scheduler.md). */
static void select_passes(void **st)
{
    (void)st;
    compiled x;
    compile_model(&x, "tests/unit/data/select.py", "M=1024,N=128");
    sched_kernel *k = x.r.sched->job.k[0];
    const char *at = "BLOCK_M=64,grid.x=1,grid.y=1,depth.x=2,depth.y=2";
    sym_env env = {0};
    for (int i = 0; i < x.r.sched->bound.n; i++)
        sym_env_set(&env, x.r.sched->bound.b[i].var, x.r.sched->bound.b[i].lo);
    sym_env_set(&env, sym_var(x.r.sym, "BLOCK_M"), 64);
    int64_t n = 0, tiles = 0;
    for (int l = 0; l < k->nlowered; l++) {
        const sched_lowered *w = &k->lowered[l];
        if (w->kind != SCHED_LOWER_PASSES)
            continue;
        assert_int_equal(w->op->code, TIR_WHERE);
        int64_t pn, pt;
        assert_int_equal(sym_eval(w->passes, &env, &pn), SYM_OK);
        assert_int_equal(sym_eval(w->tiles, &env, &pt), SYM_OK);
        n += pn;
        tiles += pn * pt;
    }
    sym_env_free(&env);
    const arch_desc *a = WH;
    int64_t T = 8, tb = a->tile_bytes[ARCH_FP32];
    assert_int_equal(n, 4);
    assert_int_equal(tiles, 2 * T + 2);
    int64_t unpack = cdiv((T + 2 * T + 2) * tb * 1000, milli(a->unpack_bpc)) +
                     4 * (llround(a->op_init_cycles) + llround(a->cb_handshake_cycles));
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 0, "unpack", at), unpack);
    drv_free(&x.r);
}

/* Compile path at shapes in format `fmt` (NULL: the kernel's), summarise
 * with the lowering's plan, and build the model of the candidate labelled
 * `label`. */
static void compile_cand_c(compiled *x, const char *path, const char *shapes, const char *consts, const char *fmt,
                           const char *label)
{
    static char sbuf[256], cbuf[256];
    fe_kv sk[16], ck[16];
    memset(x, 0, sizeof *x);
    lm_diag_init(&x->d, stderr);
    drv_opts o = {0};
    o.path = path;
    o.launch.shapes = sk;
    o.launch.nshapes = parse_kv(shapes, sk, 16, sbuf, sizeof sbuf);
    o.launch.consts = ck;
    o.launch.nconsts = consts ? parse_kv(consts, ck, 16, cbuf, sizeof cbuf) : 0;
    assert_true(drv_compile(&x->r, &o, &x->d));
    drv_sched_opts so = {.arch = WH};
    if (fmt) {
        so.have_format = true;
        assert_true(arch_format_parse(fmt, &so.format));
    }
    assert_true(drv_summarize(&x->r, &so, &x->d));
    sched_kernel *k = x->r.sched->job.k[0];
    assert_true(sched_lower_l1(k, WH, &x->r.sched->bound, x->r.sym, &x->r.arena));
    sched_cands cs;
    sched_candidates(&cs, k, WH, &x->r.sched->bound, x->r.sym, &x->r.arena);
    int at = -1;
    for (int i = 0; i < cs.n; i++)
        if (!strcmp(cs.c[i].label, label))
            at = i;
    if (at < 0) {
        for (int i = 0; i < cs.n; i++)
            print_message("candidate: %s\n", cs.c[i].label);
        fail_msg("no candidate '%s'", label);
    }
    assert_true(sched_model_build(&x->m, k, &cs.c[at], WH, &x->r.sched->bound, "", x->r.sym, &x->r.arena, &x->d));
}

static void compile_cand(compiled *x, const char *path, const char *shapes, const char *fmt, const char *label)
{
    compile_cand_c(x, path, shapes, NULL, fmt, label);
}

/* Hops from NoC column (row) `from` to `to` on a ring of n routers in
 * direction dir (+1 or -1), around the torus: the route the NoC takes. */
static int ring_hops(int from, int to, int dir, int n) { return ((to - from) * dir % n + n) % n; }

/* A forwarding chain along a row of the 8x8 grid: core p sends its block to
 * core p + 1. On NoC 1, which runs -x, each send goes around the ring the
 * long way and the 7 sends of a step share its links; on NoC 0 (+x) each
 * send has its own links. The model's per-step cost is the busiest link's
 * share of the step's sends (or the core's own write rate, when slower),
 * the longest route for the data and its valid semaphore, the way back for
 * the ready one and two semaphore operations; the chain fills with one
 * uncontended send per further core. Derived here by walking the routes of
 * the description's core columns: b of matmul (the second core-to-core
 * load, on NoC 1 - sched_load_noc) forwarded along x, 8 cores against 2
 * (the DRAM read of the chain's first core is the same in both, so the
 * difference of the two read terms is the difference of the steps). */
static void forward_along_route(void **st)
{
    (void)st;
    const arch_desc *a = WH;
    compiled x;
    compile_cand(&x, "kernels/matmul.py", "M=1024,N=2048,K=2048", "bf16",
                 "pid_m->x pid_n->y; a: mcast along y (edge sender); b: forward along x");
    int64_t bytes = 2 * 8 * a->tile_bytes[ARCH_BF16]; /* BLOCK_K x BLOCK_N = 64 x 256 */
    int64_t own = cdiv(bytes * 1000, milli(LM_MIN(a->core_write_bpc, a->link_bytes_per_cycle)));
    int64_t lat1 = llround(a->noc_inject_cycles + a->noc_eject_cycles);
    int64_t hop = llround(a->noc_hop_cycles);
    int64_t step[9] = {0}, one[9] = {0};
    for (int g = 2; g <= 8; g++) {
        int load[64] = {0}, fwd = 0, back = 0, most = 0;
        for (int p = 0; p + 1 < g; p++) {
            int from = a->core_noc_x[p], to = a->core_noc_x[p + 1];
            int h = ring_hops(from, to, -1, a->noc_w);
            for (int i = 0, at = from; i < h; i++, at = (at - 1 + a->noc_w) % a->noc_w)
                load[at]++;
            fwd = LM_MAX(fwd, h);
            back = LM_MAX(back, ring_hops(to, from, -1, a->noc_w));
        }
        for (int i = 0; i < a->noc_w; i++)
            most = LM_MAX(most, load[i]);
        int64_t lat = llround(2 * a->sem_cycles) + 2 * (lat1 + fwd * hop) + lat1 + back * hop;
        step[g] = LM_MAX(own, cdiv(bytes * most * 1000, milli(a->link_bytes_per_cycle))) + lat;
        one[g] = own + lat;
        if (g == 8) {
            assert_true(most >= 6);        /* nearly every send crosses the busiest link */
            assert_true(fwd >= a->noc_w - 2); /* the long way round */
        }
    }
    const char *at8 = "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,grid.x=8,grid.y=8,depth.a=2,depth.b=2,depth.c=1,sub.h=1,sub.w=8";
    const char *at2 = "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,grid.x=2,grid.y=8,depth.a=2,depth.b=2,depth.c=1,sub.h=1,sub.w=8";
    assert_int_equal(term_at(&x, SCHED_T_FILL, 1, "fill the forwarding chain of b", at8), 7 * one[8]);
    assert_int_equal(term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", at8) -
                         term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", at2),
                     step[8] - step[2]);
    drv_free(&x.r);

    /* a along y on NoC 0 (+y): each send a short way down links of its
       own (the step at the core's write rate), the ready semaphore back
       to the core above the long way round */
    compile_cand(&x, "kernels/matmul.py", "M=1024,N=2048,K=2048", "bf16",
                 "pid_m->x pid_n->y; a: forward along y; b: mcast along x (edge sender)");
    int64_t abytes = 4 * 2 * a->tile_bytes[ARCH_BF16]; /* BLOCK_M x BLOCK_K = 128 x 64 */
    int64_t aown = cdiv(abytes * 1000, milli(LM_MIN(a->core_write_bpc, a->link_bytes_per_cycle)));
    int fwd = 0, back = 0;
    for (int p = 0; p + 1 < 8; p++) {
        fwd = LM_MAX(fwd, ring_hops(a->core_noc_y[p], a->core_noc_y[p + 1], 1, a->noc_h));
        back = LM_MAX(back, ring_hops(a->core_noc_y[p + 1], a->core_noc_y[p], 1, a->noc_h));
    }
    assert_true(fwd <= 2);
    int64_t lat = llround(2 * a->sem_cycles) + 2 * (lat1 + fwd * hop) + lat1 + back * hop;
    assert_int_equal(term_at(&x, SCHED_T_FILL, 1, "fill the forwarding chain of a", at8), 7 * (aown + lat));
    drv_free(&x.r);
}

/* Multicast senders read DRAM through the banks' first legs too. matmul's
 * b multicast along x has one sender per core row, all in core column 0,
 * reading on NoC 1, whose data leaves each bank -y along the bank's column
 * to the sender's row: the 8 senders' shares of every bank in a column go
 * up that column's links. Walked here from the description's bank and core
 * positions: the busiest link carries `most` bank shares (of 12) of one
 * block; the read takes at least the DRAM latency plus that link's bytes
 * (the step of a depth-1 b, where the multicast follows the read, the
 * multicast too). Without the first legs the model priced only the banks'
 * aggregate rate, which 8 senders reach in a third of the time. */
static void mcast_first_legs(void **st)
{
    (void)st;
    const arch_desc *a = WH;
    compiled x;
    compile_cand(&x, "kernels/matmul.py", "M=1024,N=2048,K=2048", "bf16",
                 "pid_m->x pid_n->y; a: mcast along y (edge sender); b: mcast along x (edge sender)");
    int64_t bytes = 2 * 8 * a->tile_bytes[ARCH_BF16]; /* BLOCK_K x BLOCK_N = 64 x 256 */
    int load[16][16] = {{0}}, most = 0;
    for (int b = 0; b < a->num_dram_banks; b++)
        for (int r = 0; r < 8; r++) {
            arch_xy bk = a->dram_bank_noc1[b];
            int h = ring_hops(bk.y, a->core_noc_y[r], -1, a->noc_h);
            for (int i = 0, at = bk.y; i < h; i++, at = (at - 1 + a->noc_h) % a->noc_h)
                most = LM_MAX(most, ++load[bk.x][at]);
        }
    assert_true(most >= 2 * a->num_dram_banks / 3); /* most of a bank column's shares share a link */
    int64_t link = cdiv(bytes * (most * 1000 / a->num_dram_banks), milli(a->link_bytes_per_cycle));
    int64_t banks = cdiv(8 * bytes * 1000, milli(a->dram_bank_read_bpc * a->num_dram_banks));
    assert_true(link > banks);
    const char *at = "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,grid.x=8,grid.y=8,depth.a=2,depth.b=1,depth.c=1,sub.h=1,sub.w=8";
    int64_t mc = cdiv(bytes * 1000, milli(LM_MIN(a->mcast_bpc, a->link_bytes_per_cycle)));
    assert_true(term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", at) >= llround(a->dram_latency_cycles) + link + mc);
    drv_free(&x.r);
}

/* A block in a CB of one page set holds up its producer only for the ops
 * that hold it (model.c, single_buffers; the simulator's side of the rule
 * is tests/unit/test_model_sim.c). matmul's K loop has one op, the matmul,
 * which holds a and b for the whole iteration: with a single-buffered the
 * reader (NoC 0) reads the next a only after the matmul pops the current
 * one, so each iteration after the first takes at least the matmul (its
 * slowest stage: one op, no inits) and a's read; b, on the writer (NoC 1),
 * still overlaps; with both single the two reads run side by side after
 * the pop. The program level: the accumulator c is written in place, so
 * with depth.c = 1 the next program's compute (reserved before its K loop)
 * waits for c's write: the level's compute plus the write, per further
 * program. Derived from the model's own stage terms at each point. */
static void single_buffer_hold(void **st)
{
    (void)st;
    compiled x;
    compile_cand(&x, "kernels/matmul.py", "M=1024,N=2048,K=2048", "bf16",
                 "pid_m->x pid_n->y; a: mcast along y (edge sender); b: mcast along x (edge sender)");
    const char *fmt = "BLOCK_M=128,BLOCK_N=256,BLOCK_K=64,grid.x=%d,grid.y=8,depth.a=%d,depth.b=%d,depth.c=%d,sub.h=1,"
                      "sub.w=4";
    /* (reassigned below for the second candidate) */
    char at22[256], at12[256], at21[256], at11[256];
    snprintf(at22, sizeof at22, fmt, 8, 2, 2, 2);
    snprintf(at12, sizeof at12, fmt, 8, 1, 2, 2);
    snprintf(at21, sizeof at21, fmt, 8, 2, 1, 2);
    snprintf(at11, sizeof at11, fmt, 8, 1, 1, 2);
    int64_t n = term_at(&x, SCHED_T_COUNT, 1, "iterations", at22);
    assert_int_equal(n, 2048 / 64);
    int64_t ra = term_at(&x, SCHED_T_READ, 1, "read a", at22), rb = term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", at22);
    int64_t cc = term_at(&x, SCHED_T_COMPUTE, 1, "compute", at22);
    int64_t hold = LM_MAX(LM_MAX(term_at(&x, SCHED_T_DETAIL, 1, "unpack", at22), term_at(&x, SCHED_T_DETAIL, 1, "math", at22)),
                          term_at(&x, SCHED_T_DETAIL, 1, "pack", at22));
    int64_t top = LM_MAX(LM_MAX(ra, rb), cc), all22 = term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at22);
    /* a single-buffered multicast load also reads and sends in turn (its
       step is read_cost's at that depth; the first execution reads and
       sends in turn at any depth): the period is the larger of the other
       stages and the held chain */
    int64_t ra1 = term_at(&x, SCHED_T_READ, 1, "read a", at12), rb1 = term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", at21);
    int64_t top12 = LM_MAX(LM_MAX(ra1, rb), cc), top21 = LM_MAX(LM_MAX(ra, rb1), cc), top11 = LM_MAX(LM_MAX(ra1, rb1), cc);
    assert_true(hold + ra1 > top12); /* the rule decides at these values */
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at12) - all22,
                     (n - 1) * (LM_MAX(top12, hold + ra1) - top));
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at21) - all22,
                     (n - 1) * (LM_MAX(top21, hold + rb1) - top));
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at11) - all22,
                     (n - 1) * (LM_MAX(top11, hold + LM_MAX(ra1, rb1)) - top));
    /* a later execution of the loop (the next program on the core) finds
       its first blocks read ahead: every step is a period */
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 1, "all iterations, the loads run ahead", at22), n * top);
    assert_int_equal(term_at(&x, SCHED_T_DETAIL, 1, "all iterations, the loads run ahead", at12),
                     n * LM_MAX(top12, hold + ra1));
    assert_true(n * top < all22); /* the first execution pays the first loads */

    /* two programs per core (4 columns for 8 program columns) */
    char c1[256], c2[256];
    snprintf(c1, sizeof c1, fmt, 4, 2, 2, 1);
    snprintf(c2, sizeof c2, fmt, 4, 2, 2, 2);
    int64_t w = term_at(&x, SCHED_T_COUNT, 0, "programs per core", c2);
    assert_int_equal(w, 2);
    int64_t cc0 = term_at(&x, SCHED_T_COMPUTE, 0, "compute", c2), wc = term_at(&x, SCHED_T_WRITE, 0, "write c", c2);
    /* a later program's compute: its K loop without the first step's loads,
       which ran ahead while the previous program finished (below) */
    int64_t ccn0 = cc0 - term_at(&x, SCHED_T_LEVEL, 1, "all iterations", c2) +
                   term_at(&x, SCHED_T_DETAIL, 1, "all iterations, the loads run ahead", c2);
    /* the writer reads b in the K loop and then writes c, in program
       order: per program all of b's reads, the last step's compute, then
       the write; and the next program's matmul, which reads b first (no
       compute before it to hide the write), waits for that write and b's
       first block after the K loop's compute (model.c, kernel_order). Here
       the writer's reads bind: the K loop's compute plus the write is
       under them by more than a block's round trip */
    int64_t n1 = term_at(&x, SCHED_T_COUNT, 1, "iterations", c2), cc1 = term_at(&x, SCHED_T_COMPUTE, 1, "compute", c2);
    int64_t rb2 = term_at(&x, SCHED_T_READ, 1, "read b (writer, NoC 1)", c2);
    int64_t chain = n1 * rb2 + cc1 + wc;
    assert_true(n1 * cc1 + wc + 4 * rb2 < chain);
    int64_t top0 = LM_MAX(ccn0, chain);
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 0, "all programs of the busiest core", c1) -
                         term_at(&x, SCHED_T_LEVEL, 0, "all programs of the busiest core", c2),
                     (w - 1) * (LM_MAX(top0, cc0 + wc) - top0));
    drv_free(&x.r);

    /* a multicast and b from DRAM: both on the reader, a first. A kernel
       issues its loads in order, so with a single-buffered the next b is
       read only after the next a, and the matmul waits for both after its
       pop: the two reads and the matmul. With only b single, a's next block
       is read ahead and only b's read follows the pop */
    compile_cand(&x, "kernels/matmul.py", "M=32,N=3360,K=3072", "bf16",
                 "pid_m->time pid_n->xy; a: mcast along xy (edge sender); b: dram");
    fmt = "BLOCK_M=32,BLOCK_N=96,BLOCK_K=384,grid.x=5,grid.y=7,depth.a=%d,depth.b=%d,depth.c=1,sub.h=1,sub.w=1";
    snprintf(at22, sizeof at22, fmt, 2, 2);
    snprintf(at12, sizeof at12, fmt, 1, 2);
    snprintf(at21, sizeof at21, fmt, 2, 1);
    n = term_at(&x, SCHED_T_COUNT, 1, "iterations", at22);
    assert_int_equal(n, 3072 / 384);
    ra = term_at(&x, SCHED_T_READ, 1, "read a", at22);
    rb = term_at(&x, SCHED_T_READ, 1, "read b", at22);
    cc = term_at(&x, SCHED_T_COMPUTE, 1, "compute", at22);
    hold = LM_MAX(LM_MAX(term_at(&x, SCHED_T_DETAIL, 1, "unpack", at22), term_at(&x, SCHED_T_DETAIL, 1, "math", at22)),
                  term_at(&x, SCHED_T_DETAIL, 1, "pack", at22));
    top = LM_MAX(ra + rb, cc);
    all22 = term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at22);
    ra1 = term_at(&x, SCHED_T_READ, 1, "read a", at12); /* a single multicast reads and sends in turn */
    assert_true(ra1 > ra);
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at12) - all22,
                     (n - 1) * (LM_MAX(LM_MAX(ra1 + rb, cc), hold + ra1 + rb) - top));
    /* single-buffered, b is not read ahead: each of its blocks waits out
       the whole round trip, which the depth-2 b overlaps with the next
       block's (docs/scheduler.md, Model) */
    rb1 = term_at(&x, SCHED_T_READ, 1, "read b", at21);
    assert_true(rb1 > rb);
    assert_int_equal(term_at(&x, SCHED_T_LEVEL, 1, "all iterations", at21) - all22,
                     (n - 1) * (LM_MAX(LM_MAX(ra + rb1, cc), hold + rb1) - top));
    drv_free(&x.r);
}

/* Flash decode splits the sequence into NUM_SPLITS runs of whole blocks
 * (split_len = cdiv(cdiv(S, NUM_SPLITS), BLOCK_N) * BLOCK_N, split p from
 * p * split_len): with fewer blocks than splits the last splits read no
 * key at all. The model counts the splits that run an iteration (their
 * cores alone share the banks at a step, and the launch reads only their
 * blocks); derived here by walking the splits as the kernel does. */
static void decode_empty_splits(void **st)
{
    (void)st;
    compiled x;
    const int S = 341;
    compile_cand(&x, "kernels/flash_decode.py", "B=3,H=16,HKV=4,S=341,D=128", NULL,
                 "kv->x split->y; q: mcast along y (edge sender); k: dram; v: dram");
    static const int cases[][2] = {{128, 8}, {32, 8}, {64, 8}, {64, 4}, {96, 16}}; /* BLOCK_N, NUM_SPLITS */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int bn = cases[i][0], ns = cases[i][1], len = ((S + ns - 1) / ns + bn - 1) / bn * bn, with = 0;
        for (int p = 0; p < ns; p++)
            with += p * len < S;
        char at[64];
        snprintf(at, sizeof at, "BLOCK_N=%d,NUM_SPLITS=%d", bn, ns);
        assert_true(with < ns); /* each case leaves splits empty */
        assert_int_equal(term_at(&x, SCHED_T_COUNT, 1, "programs along split that run an iteration", at), with);
    }
    drv_free(&x.r);
}

/* Causal attention: query block p sees p + 1 key blocks (BLOCK_M =
 * BLOCK_N), and the lowering deals the query blocks along y to the g core
 * rows cyclically (row c runs blocks c, c + g, ...). With K and V from
 * DRAM the busiest row runs the most key blocks; the model charges its W
 * programs the count at one program id (the loop's iterations term): their
 * mean, rounded up to a whole block (half a block per program over).
 * Derived here by dealing the blocks. With K and V multicast along y the
 * rows of a column move every block together: the lowering stretches the
 * key loop of every program of a wave to the most trips of the wave's
 * programs (its last query block's), unless a column has one core. */
static void causal_busiest_core(void **st)
{
    (void)st;
    static const char *const cands[] = {
        "start_m->y bh->x; q: dram; k: dram; v: dram",
        "start_m->y bh->x; q: dram; k: mcast along y (edge sender); v: mcast along y (edge sender)"};
    const int n = 1024 / 128;
    for (int m = 0; m < 2; m++) {
        compiled x;
        compile_cand_c(&x, "kernels/flash_attention.py", "B=1,H=8,S=1024,D=64", "CAUSAL=1", NULL, cands[m]);
        for (int g = 1; g <= n; g++) {
            char at[256];
            snprintf(at, sizeof at,
                     "BLOCK_M=128,BLOCK_N=128,grid.x=8,grid.y=%d,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,"
                     "sub.w=1", g);
            /* dealt as the lowering deals them: whole waves back and forth
               (wave w backward where W - 1 - w is odd), else in one
               direction (row c runs blocks c, c + g, ...) */
            int most = 0, progs = 0, nw = (n + g - 1) / g;
            bool zig = n % g == 0 && nw > 1;
            for (int c = 0; c < g; c++) {
                int total = 0, w = 0;
                for (; w * g + c < n; w++)
                    total += w * g + (zig && (nw - 1 - w) % 2 ? g - 1 - c : c) + 1;
                if (total > most) {
                    most = total;
                    progs = w;
                }
            }
            int64_t W = term_at(&x, SCHED_T_COUNT, 0, "programs per core", at);
            int64_t it = term_at(&x, SCHED_T_COUNT, 1, "iterations", at);
            assert_int_equal(W, progs);
            if (m == 1 && g > 1) {
                /* the group's waves each run to their last program's trips
                   (id + 1): the count at the mean of those ids, as dealt */
                int waves = (n + g - 1) / g, lastsum = 0;
                for (int w = 0; w < waves; w++)
                    lastsum += (w * g + g - 1 < n ? w * g + g - 1 : n - 1);
                int idle = waves * g - n;
                assert_int_equal(2 * lastsum, waves * (n + idle + g - 2) - 2 * idle);
                assert_int_equal(it, (n + idle + g + 1) / 2 - 1 - idle / waves + 1);
                /* the busiest core runs no trip past its own */
                for (int i = 0; i < x.m.nterms; i++)
                    assert_false(strstr(x.m.terms[i].name, "trips past the core's own"));
            }
            else if (zig && m == 0) {
                /* back and forth every row runs the same: its mean block is
                   (n - 1) / 2, rounded up (W is even for each whole-wave
                   dealing of 8 blocks: half a block per program over) */
                assert_int_equal(2 * W * it, 2 * most + W);
            }
            else if (g * (W - 1) % 2 == 0)
                assert_int_equal(W * it, most);
            else
                assert_int_equal(2 * W * it, 2 * most + W);
        }
        drv_free(&x.r);
    }
}

/* Causal attention's key blocks at S = 2048, BLOCK_M = 128 (16 query
 * blocks dealt back and forth to 8 core rows, 2 per row): a query block's
 * count cdiv(min((p + 1) 128, S), BLOCK_N) rounds each program up on its
 * own, so a row's sum is not twice the count at the mean block. The model
 * adds the difference as a count of its own: exact where one block size
 * divides the other (128, 256: the rounding is the same on every row),
 * within a block where it does not (416: the rows round by up to 384 rows
 * each, the model takes (W + 1) / 2W of that bound). At S = 236 the last
 * query block is cut by the sequence: four block pairs and row counts
 * where the sum must be the dealt one. Derived by dealing the blocks. */
static void causal_rounding(void **st)
{
    (void)st;
    compiled x;
    compile_cand_c(&x, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=64", "CAUSAL=1", NULL,
                   "start_m->y bh->x; q: dram; k: dram; v: dram");
    const int S = 2048, bm = 128, n = S / bm, g = 8;
    static const int bns[] = {128, 256, 416};
    for (int i = 0; i < 3; i++) {
        int bn = bns[i], most = 0;
        int64_t sum_a = 0; /* the rows' sum of min((p + 1) 128, S): the same on every row */
        for (int c = 0; c < g; c++) {
            int total = 0;
            sum_a = 0;
            for (int w = 0; w < n / g; w++) {
                int p = w * g + ((n / g - 1 - w) % 2 ? g - 1 - c : c), a = LM_MIN((p + 1) * bm, S);
                total += (a + bn - 1) / bn;
                sum_a += a;
            }
            most = LM_MAX(most, total);
        }
        char at[256];
        snprintf(at, sizeof at,
                 "BLOCK_M=128,BLOCK_N=%d,grid.x=8,grid.y=8,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,sub.w=1", bn);
        int64_t W = term_at(&x, SCHED_T_COUNT, 0, "programs per core", at);
        int64_t it = term_at(&x, SCHED_T_COUNT, 1, "iterations", at);
        int64_t extra = term_at(&x, SCHED_T_COUNT, 1, "iterations the programs' own ceilings add, all programs", at);
        assert_int_equal(W, 2);
        if (bn % bm == 0) {
            assert_int_equal(W * it + extra, most);
        } else {
            int64_t gcd = 1, r = bn - gcd; /* neither divides the other: the rule's gcd is 1 */
            assert_int_equal(W * it + extra, (2 * sum_a + (W + 1) * r) / (2 * bn));
            assert_true(llabs(W * it + extra - most) <= 1);
        }
    }
    drv_free(&x.r);

    /* S = 236: the sequence caps the last query block's rows (a count off
       the lattice of the blocks); the model's sum is the dealt one here */
    compile_cand_c(&x, "kernels/flash_attention.py", "B=1,H=8,S=236,D=64", "CAUSAL=1", NULL,
                   "start_m->y bh->x; q: dram; k: dram; v: dram");
    static const int short_cases[][3] = {{256, 256, 1}, {64, 128, 2}, {32, 128, 4}, {32, 64, 8}};
    for (int i = 0; i < 4; i++) {
        int m = short_cases[i][0], bn = short_cases[i][1], rows = short_cases[i][2];
        int nq = (236 + m - 1) / m, waves = (nq + rows - 1) / rows, most = 0;
        bool zig = nq % rows == 0 && waves > 1;
        for (int c = 0; c < rows; c++) {
            int total = 0;
            for (int w = 0; w * rows + c < nq; w++) {
                int p = w * rows + (zig && (waves - 1 - w) % 2 ? rows - 1 - c : c);
                total += (LM_MIN((p + 1) * m, 236) + bn - 1) / bn;
            }
            most = LM_MAX(most, total);
        }
        char at[256];
        snprintf(at, sizeof at,
                 "BLOCK_M=%d,BLOCK_N=%d,grid.x=8,grid.y=%d,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,sub.w=1", m,
                 bn, rows);
        int64_t W = term_at(&x, SCHED_T_COUNT, 0, "programs per core", at);
        int64_t it = term_at(&x, SCHED_T_COUNT, 1, "iterations", at);
        int64_t extra = term_at(&x, SCHED_T_COUNT, 1, "iterations the programs' own ceilings add, all programs", at);
        assert_int_equal(W, waves);
        if (W * it + extra != most)
            fail_msg("S=236 BLOCK_M=%d BLOCK_N=%d on %d rows: the model counts %lld trips, dealt %d", m, bn, rows,
                     (long long)(W * it + extra), most);
    }
    drv_free(&x.r);
    compile_cand_c(&x, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=64", "CAUSAL=1", NULL,
                   "start_m->y bh->x; q: dram; k: dram; v: dram");
    /* and the cycles: those iterations at the loop's steady pace, on the program's chain */
    assert_true(term_at(&x, SCHED_T_DETAIL, 0, "iterations the programs' own ceilings add",
                        "BLOCK_M=128,BLOCK_N=256,grid.x=8,grid.y=8,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,"
                        "sub.w=1") < 0);
    drv_free(&x.r);
}

/* Causal attention's key trips dealt by hand as the lowering deals query
 * blocks flattened with the heads over G cores (f = m x heads + bh; core i
 * runs f = i, i + G, ...; whole waves back and forth, the last forward):
 * the most any core runs, and (*on) the most cores `at` and `or` run. */
static int flat_dealt(int S, int bm, int bn, int heads, int G, int at, int or, int *on)
{
    int nq = (S + bm - 1) / bm, n = nq * heads, W = (n + G - 1) / G, most = 0;
    bool zig = n % G == 0 && W > 1;
    for (int c = 0; c < G; c++) {
        int total = 0;
        for (int w = 0; w < W; w++) {
            int f = w * G + (zig && (W - 1 - w) % 2 ? G - 1 - c : c);
            if (f < n)
                total += (LM_MIN((f / heads + 1) * bm, S) + bn - 1) / bn;
        }
        most = LM_MAX(most, total);
        if (c == at || c == or)
            *on = LM_MAX(*on, total);
    }
    return most;
}

/* The same count with the query blocks flattened over the grid with the
 * heads: the busiest core is the last with W programs (in whole waves
 * back and forth, the more of cores G - 1 and 0); its first three counts
 * exact, the rest at their mean (flat_sum). */
static void causal_flat_rounding(void **st)
{
    (void)st;
    static const struct {
        int B, H, S, D, bm, bn, gx, gy;
    } cases[] = {
        {3, 13, 69, 32, 32, 64, 8, 8},   /* W = 2, a wave part-filled: ids 1 and 2, 1 + 2 trips */
        {2, 8, 512, 64, 64, 96, 8, 8},    /* W = 2, whole waves back and forth */
        {1, 16, 1536, 64, 160, 256, 8, 10}, /* W = 2 back and forth on p150's 8 x 10: cores 0, 79 run 4 + 4, 1 + 6 */
        {2, 8, 1024, 64, 32, 96, 8, 8},   /* W = 8, whole waves */
        {2, 7, 1024, 64, 32, 96, 8, 6},   /* W = 10, the last wave part-filled */
        {2, 6, 1000, 64, 64, 160, 8, 5},  /* W = 5 */
        {2, 8, 256, 64, 32, 64, 1, 2},    /* W = 64 on 2 cores: several programs at the last id */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char shape[64], at[256];
        snprintf(shape, sizeof shape, "B=%d,H=%d,S=%d,D=%d", cases[i].B, cases[i].H, cases[i].S, cases[i].D);
        compiled x;
        compile_cand_c(&x, "kernels/flash_attention.py", shape, "CAUSAL=1", NULL,
                       "start_m->xy bh->xy; q: dram; k: dram; v: dram");
        int heads = cases[i].B * cases[i].H, G = cases[i].gx * cases[i].gy;
        int nq = (cases[i].S + cases[i].bm - 1) / cases[i].bm, n = nq * heads, W = (n + G - 1) / G;
        bool zig = n % G == 0 && W > 1;
        int busiest = zig ? G - 1 : n - 1 - (W - 1) * G, on = 0;
        int most = flat_dealt(cases[i].S, cases[i].bm, cases[i].bn, heads, G, busiest, zig ? 0 : busiest, &on);
        snprintf(at, sizeof at,
                 "BLOCK_M=%d,BLOCK_N=%d,grid.x=%d,grid.y=%d,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,sub.w=1",
                 cases[i].bm, cases[i].bn, cases[i].gx, cases[i].gy);
        int64_t w = term_at(&x, SCHED_T_COUNT, 0, "programs per core", at);
        int64_t it = term_at(&x, SCHED_T_COUNT, 1, "iterations", at);
        int64_t extra = term_at(&x, SCHED_T_COUNT, 1, "iterations the programs' own ceilings add, all programs", at);
        assert_int_equal(w, W);
        int64_t model = w * it + extra;
        if (W <= 3 && model != on)
            fail_msg("%s: the model counts %lld trips, core %d (or 0) runs %d", shape, (long long)model, busiest, on);
        if (llabs(model - most) > LM_MAX(1, most / 20))
            fail_msg("%s: the model counts %lld trips, the busiest core runs %d", shape, (long long)model, most);
        drv_free(&x.r);
    }
}

/* The DRAM banks the cores hit when each reads its step's K block at once,
 * dealt by hand from the layout (docs/scheduler.md, DRAM layout): K is
 * [B, H, S, D], tile (r, c) of its 2-D layout is page r x D/32 + c, in
 * bank page mod 12 on n150; core i runs program f = i, whose head is
 * f mod B H, and its first K block is the block's tile rows of that head. */
static int banks_dealt(int heads, int S, int D, int bn, int G)
{
    bool hit[64] = {false};
    int n = 0, per_head = (S + 31) / 32 * (D / 32), pages = bn / 32 * (D / 32);
    for (int f = 0; f < G; f++)
        for (int p = 0; p < pages; p++) {
            int bank = ((f % heads) * per_head + p) % 12;
            n += !hit[bank];
            hit[bank] = true;
        }
    return n;
}

/* Where the cores' blocks sit a constant number of pages apart (heads of
 * attention: 6 pages at S=75 D=64, 12 at D=128), each step's reads fall
 * on the banks that stride reaches, not on all 12 (with one head, on the
 * block's own pages); with a stride of a block size (Q's rows, BLOCK_M
 * apart) the model keeps them spread. */
static void dram_banks(void **st)
{
    (void)st;
    static const struct {
        int B, H, D, bn, banks; /* banks: the model's, as dealt by hand below */
        bool time;              /* one head: every core at it (one row of cores) */
    } cases[] = {{3, 8, 64, 32, 4, false},  {3, 8, 64, 96, 12, false}, {3, 8, 128, 32, 4, false},
                 {3, 8, 128, 64, 8, false}, {1, 1, 64, 32, 2, true},   {1, 1, 128, 96, 12, true}};
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        char shape[64], at[256];
        snprintf(shape, sizeof shape, "B=%d,H=%d,S=75,D=%d", cases[i].B, cases[i].H, cases[i].D);
        compiled x;
        compile_cand_c(&x, "kernels/flash_attention.py", shape, "CAUSAL=1", NULL,
                       cases[i].time ? "start_m->x bh->y; q: dram; k: dram; v: mcast along x (edge sender)"
                                     : "start_m->xy bh->xy; q: dram; k: dram; v: dram");
        int gy = cases[i].time ? 1 : 6;
        snprintf(at, sizeof at,
                 "BLOCK_M=32,BLOCK_N=%d,grid.x=6,grid.y=%d,depth.q=2,depth.k=2,depth.v=2,depth.o=2,sub.h=1,sub.w=1",
                 cases[i].bn, gy);
        int64_t banks = term_at(&x, SCHED_T_COUNT, 1, "DRAM banks' worth of bandwidth the readers of k get (of 12)", at);
        assert_int_equal(banks_dealt(cases[i].B * cases[i].H, 75, cases[i].D, cases[i].bn, 6 * gy), cases[i].banks);
        assert_int_equal(banks, cases[i].banks);
        if (!cases[i].time) /* 36 readers of q drifting apart: spread */
            assert_int_equal(term_at(&x, SCHED_T_COUNT, 0, "DRAM banks' worth of bandwidth the readers of q get (of 12)", at), 12);
        drv_free(&x.r);
    }
}

/* The banks the a blocks of one GEMM step fall on, dealt by hand: a is
 * [M, K], tile (r, c) of it is page r x Kt + c (Kt tile columns), in bank
 * page mod 12 on n150; the gx cores along x read blocks of h tile rows,
 * core i rows i h to i h + h - 1, all at tile column 0. */
static int banks_gemm(int kt, int h, int gx)
{
    bool hit[12] = {false};
    int n = 0;
    for (int r = 0; r < gx * h; r++) {
        int bank = r * kt % 12;
        n += !hit[bank];
        hit[bank] = true;
    }
    return n;
}

/* Readers that a multicast of the other operand keeps in step hit the
 * banks of their step's blocks at once: a block of several tile rows Kt
 * pages apart, and blocks BLOCK_M rows apart (a stride of a block size),
 * fall on the banks those strides reach - at K = 941 (Kt 30) every step's
 * a blocks sit on 2 of the 12 banks, whatever BLOCK_M. Where nothing
 * couples the readers (b from DRAM too) they drift apart: each reader's
 * block still falls on its own rows' banks, and the readers spread, so
 * the count is that of one block times the readers (2 here), at most 12. */
static void dram_banks_coupled(void **st)
{
    (void)st;
    static const struct {
        int K, bm, gx;
    } cases[] = {{941, 96, 4}, {941, 32, 8}, {307, 64, 6}, {200, 32, 4}, {200, 64, 4}, {200, 128, 3}};
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        char shape[64], at[256];
        int kt = (cases[i].K + 31) / 32, h = cases[i].bm / 32;
        snprintf(shape, sizeof shape, "M=322,N=17,K=%d", cases[i].K);
        snprintf(at, sizeof at,
                 "BLOCK_M=%d,BLOCK_N=32,BLOCK_K=32,grid.x=%d,grid.y=1,depth.a=2,depth.b=2,depth.c=2,sub.h=1,sub.w=1",
                 cases[i].bm, cases[i].gx);
        compiled x;
        compile_cand(&x, "kernels/matmul.py", shape, NULL,
                     "pid_m->x pid_n->y; a: dram; b: mcast along x (interior sender)");
        int64_t banks = term_at(&x, SCHED_T_COUNT, 1, "DRAM banks' worth of bandwidth the readers of a get (of 12)", at);
        assert_int_equal(banks, banks_gemm(kt, h, cases[i].gx));
        drv_free(&x.r);
        snprintf(shape, sizeof shape, "M=322,N=64,K=%d", cases[i].K); /* two b blocks: b read too */
        snprintf(at, sizeof at,
                 "BLOCK_M=%d,BLOCK_N=32,BLOCK_K=32,grid.x=2,grid.y=1,depth.a=2,depth.b=2,depth.c=2,sub.h=1,sub.w=1",
                 cases[i].bm);
        compile_cand(&x, "kernels/matmul.py", shape, NULL, "pid_m->xy pid_n->xy; a: dram; b: dram");
        banks = term_at(&x, SCHED_T_COUNT, 1, "DRAM banks' worth of bandwidth the readers of a get (of 12)", at);
        assert_int_equal(banks, LM_MIN(12, 2 * banks_gemm(kt, h, 1)));
        drv_free(&x.r);
    }
    assert_int_equal(banks_gemm(30, 3, 4), 2);
    assert_int_equal(banks_gemm(7, 4, 1), 4);
}

/* The bandwidth of the banks the pages of one GEMM step's a blocks fall on,
 * dealt by hand: rows [0, rows) of a at tile columns [0, run), page
 * r x kt + c, bank page mod 12 on n150. A bank serves its pages one after
 * the other, so the step takes as long as its busiest bank: the banks'
 * worth the readers get is the pages over the busiest bank's, rounded to
 * the nearest (the model's rounding). */
static int banks_worth(int kt, int rows, int run)
{
    int load[12] = {0}, most = 0, pages = rows * run;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < run; c++) {
            int b = (r * kt + c) % 12;
            load[b]++;
            most = LM_MAX(most, load[b]);
        }
    return (2 * pages + most) / (2 * most);
}

/* Two ways the banks give the readers less than all of them: a tensor of
 * fewer pages than banks (b at N=46 K=45 is 2 x 2 tiles: every core reads
 * its 4 pages, on 4 banks), and runs of pages that overlap on some banks
 * (a at K=633 is 20 tile columns; each core's 9-row block of 5 columns is a
 * run of 5 pages per row, the rows 20 pages apart, so they start on banks
 * 0, 8 and 4 in turn and banks 0, 4 and 8 hold twice the others' pages:
 * 270 pages at 36 on the busiest, 7.5 banks' worth rather than 12). */
static void dram_banks_uneven(void **st)
{
    (void)st;
    compiled x;
    compile_cand(&x, "kernels/matmul.py", "M=1028,N=46,K=45", NULL, "pid_m->xy pid_n->xy; a: dram; b: dram");
    int64_t banks = term_at(&x, SCHED_T_COUNT, 1, "DRAM banks' worth of bandwidth the readers of b get (of 12)",
                            "BLOCK_M=32,BLOCK_N=64,BLOCK_K=64,grid.x=6,grid.y=3,depth.a=3,depth.b=2,depth.c=2,"
                            "sub.h=1,sub.w=2");
    assert_int_equal(banks, banks_worth(2, 2, 2));
    assert_int_equal(banks, 4);
    drv_free(&x.r);
    compile_cand(&x, "kernels/matmul.py", "M=1622,N=4,K=633", NULL,
                 "pid_m->xy pid_n->time; a: dram; b: mcast along xy (edge sender)");
    banks = term_at(&x, SCHED_T_COUNT, 1, "DRAM banks' worth of bandwidth the readers of a get (of 12)",
                    "BLOCK_M=288,BLOCK_N=32,BLOCK_K=160,grid.x=6,grid.y=1,depth.a=3,depth.b=2,depth.c=2,sub.h=3,"
                    "sub.w=1");
    assert_int_equal(banks, banks_worth(20, 6 * 9, 5));
    assert_int_equal(banks, 8);
    drv_free(&x.r);
}

static void l1_matmul(void **st)
{
    (void)st;
    l1_agrees(WH, "kernels/matmul.py", "M=512,N=512,K=512", NULL, 5);
    l1_agrees(WH, "kernels/matmul.py", "M=32,N=1024,K=1024", NULL, 5);
    l1_agrees(WH, "kernels/matmul.py", "M=4096,N=4096,K=4096", NULL, 5);
    l1_agrees(BH, "kernels/matmul.py", "M=1024,N=1024,K=1024", NULL, 5);
    l1_agrees(WH, "kernels/matmul.py", "M=1000,N=700,K=300", NULL, 8);
    l1_agrees(BH, "kernels/matmul.py", "M=64,N=4096,K=2048", NULL, 8);
}

static void l1_attention(void **st)
{
    (void)st;
    l1_agrees(WH, "kernels/flash_attention.py", "B=1,H=4,S=512,D=64", "CAUSAL=0", 5);
    l1_agrees(WH, "kernels/flash_attention.py", "B=1,H=4,S=512,D=64", "CAUSAL=1", 5);
    l1_agrees(WH, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=128", "CAUSAL=0", 5);
    l1_agrees(WH, "kernels/flash_attention.py", "B=1,H=8,S=2048,D=128", "CAUSAL=1", 5);
    l1_agrees(BH, "kernels/flash_attention.py", "B=2,H=4,S=1000,D=64", "CAUSAL=1", 5);
}

static void l1_decode(void **st)
{
    (void)st;
    l1_agrees(WH, "kernels/flash_decode.py", "B=1,H=8,HKV=8,S=1024,D=64", NULL, 5);
    l1_agrees(WH, "kernels/flash_decode.py", "B=1,H=32,HKV=8,S=8192,D=128", NULL, 5);
    l1_agrees(BH, "kernels/flash_decode.py", "B=1,H=32,HKV=8,S=1000,D=64", NULL, 8);
    l1_agrees(WH, "kernels/flash_decode.py", "B=2,H=32,HKV=32,S=300,D=128", NULL, 8);
    l1_agrees(BH, "kernels/flash_decode.py", "B=4,H=8,HKV=2,S=100,D=64", NULL, 8);
}

/* Fused pairs (flash decode's split and combine, a split-K row sum): the
 * reducer cores' L1 - both kernels' CBs - is the model's. */
static void l1_fused(void **st)
{
    (void)st;
    nfused = 0;
    l1_agrees(WH, "kernels/flash_decode.py", "B=1,H=8,HKV=2,S=256,D=64", NULL, 8);
    l1_agrees(WH, "kernels/flash_decode.py", "B=4,H=32,HKV=8,S=4096,D=128", NULL, 8);
    l1_agrees(BH, "kernels/flash_decode.py", "B=2,H=16,HKV=2,S=1000,D=64", NULL, 8);
    l1_agrees(WH, "tests/kernels/splitk_sum.py:splitk_sum", "M=512,K=4096", NULL, 8);
    l1_agrees(BH, "tests/kernels/splitk_sum.py:splitk_sum", "M=512,K=3000", NULL, 8);
    assert_true(nfused > 0); /* the picks include fused pairs */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(l1_matmul),
        cmocka_unit_test(l1_attention),
        cmocka_unit_test(l1_decode),
        cmocka_unit_test(l1_fused),
        cmocka_unit_test(candidates_lower),
        cmocka_unit_test(chain_of_ops),
        cmocka_unit_test(unpack_in_order),
        cmocka_unit_test(chain_in_dst),
        cmocka_unit_test(sfpu_chain_figures),
        cmocka_unit_test(log_at_exact_exp),
        cmocka_unit_test(rowmax_seeded),
        cmocka_unit_test(scale_folded),
        cmocka_unit_test(packsum_priced),
        cmocka_unit_test(mask_split_priced),
        cmocka_unit_test(dram_trip_hops),
        cmocka_unit_test(clipped_block_commands),
        cmocka_unit_test(moved_bytes),
        cmocka_unit_test(reduce_passes),
        cmocka_unit_test(select_passes),
        cmocka_unit_test(forward_along_route),
        cmocka_unit_test(mcast_first_legs),
        cmocka_unit_test(single_buffer_hold),
        cmocka_unit_test(causal_busiest_core),
        cmocka_unit_test(decode_empty_splits),
        cmocka_unit_test(causal_rounding),
        cmocka_unit_test(causal_flat_rounding),
        cmocka_unit_test(dram_banks),
        cmocka_unit_test(dram_banks_coupled),
        cmocka_unit_test(dram_banks_uneven),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
