/* test_mzn_kernels.c - MiniZinc with Gecode against loomc's own solver on the
 * real scheduling problems of the kernels in kernels/ (matmul, flash
 * attention, flash decode) on both chips, over small shapes:
 *  - every problem the selection solves (each candidate of each launch, at
 *    each value of the constexprs the launches share) is solved by both, with
 *    the bound from better candidates off so that each answer is the
 *    candidate's own optimum: same status, same objective and tie-breaks,
 *    same values;
 *  - the selection with MiniZinc as its solver picks the same schedule as the
 *    default selection (with its bound): same candidates, values and cycles;
 *    for one shape also with the bound, as `loomc compile --solver minizinc`
 *    runs it: the same problems feasible and the same best of each;
 *  - the exported models (mzn_write_model with a data file, as `loomc
 *    compile --emit-mzn` writes them) run as written reach loomc's optimum,
 *    a launch's candidates and fused pairs' joint problems alike.
 * Run from the repository root (as tests/run.sh does). Needs the minizinc
 * executable with Gecode (Debian's minizinc package, which `make test`
 * installs): without it the tests fail, they never skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "solve/mzn.h"

/* ---- one solved problem, as an observer of sched_select sees it ------------- */

typedef struct seen {
    int launch, cand, sigma;
    int launch2, cand2; /* a fused pair's consumer, else -1 */
    solve_status status;
    int nsol, nvars;
    int64_t objective, tiebreak[SOLVE_MAX_TIEBREAK];
    int64_t values[SCHED_MAX_VARS * 4];
} seen;

typedef LM_VEC(seen) seen_vec;

static void observe(void *ud, const sched_solved *s)
{
    seen_vec *v = ud;
    seen e;
    memset(&e, 0, sizeof e);
    e.launch = s->launch, e.cand = s->cand, e.sigma = s->sigma;
    e.launch2 = s->launch2, e.cand2 = s->cand2;
    e.status = s->status;
    e.nsol = s->nsol;
    e.nvars = s->problem->nvars;
    assert_true(e.nvars <= (int)LM_COUNT(e.values));
    if (s->nsol) {
        e.objective = s->sols[0].objective;
        memcpy(e.tiebreak, s->sols[0].tiebreak, sizeof e.tiebreak);
        memcpy(e.values, s->sols[0].values, sizeof(int64_t) * (size_t)e.nvars);
    }
    LM_PUSH(v, e);
}

/* ---- compiling a kernel ------------------------------------------------------- */

typedef struct job {
    drv_result r;
    arch_desc *a;
    lm_diag d;
    fe_kv kv[8];
    char names[8][16];
} job;

/* "M=64,N=64" into j->kv[first..]; returns the count */
static int parse(job *j, int first, const char *text)
{
    int n = first;
    for (const char *p = text; p && *p;) {
        const char *eq = strchr(p, '=');
        assert_non_null(eq);
        assert_true(n < 8 && eq - p < 16);
        memcpy(j->names[n], p, (size_t)(eq - p));
        j->kv[n] = (fe_kv){j->names[n], atoll(eq + 1)};
        n++;
        p = strchr(eq, ',');
        p = p ? p + 1 : NULL;
    }
    return n - first;
}

static void compile(job *j, const char *path, const char *arch, const char *shapes, const char *consts)
{
    memset(j, 0, sizeof *j);
    int n = parse(j, 0, shapes);
    int nc = consts ? parse(j, n, consts) : 0;
    lm_diag_init(&j->d, stderr);
    char apath[64];
    snprintf(apath, sizeof apath, "arch/%s.yaml", arch);
    j->a = arch_load(apath, &j->d);
    assert_non_null(j->a);
    drv_opts o = {.path = path};
    o.launch.shapes = j->kv;
    o.launch.nshapes = n;
    o.launch.consts = j->kv + n;
    o.launch.nconsts = nc;
    assert_true(drv_compile(&j->r, &o, &j->d));
    drv_sched_opts so = {.arch = j->a, .top_k = 1};
    assert_true(drv_schedule(&j->r, &so, &j->d)); /* the default selection: loomc's solver, with its bound */
}

static void release(job *j)
{
    drv_free(&j->r);
    arch_free(j->a);
}

/* A problem's model with its data file, as `loomc compile --emit-mzn`
 * writes them, run by MiniZinc: it reaches loomc's optimum. */
static void model_reaches_optimum(const solve_problem *p, const char *what)
{
    solve_solution a[1];
    int na = 0;
    assert_int_equal(solve_run(p, NULL, a, &na, NULL, NULL), SOLVE_OPTIMAL);
    lm_buf text = {0}, dzn = {0}, out = {0}, why = {0};
    mzn_options mo = {.dzn = &dzn};
    assert_true(mzn_write_model(&text, p, "test", &mo, &why));
    lm_buf_puts(&text, lm_buf_str(&dzn)); /* the data file's assignments, as `minizinc X.mzn X.dzn` */
    if (!mzn_run(lm_buf_str(&text), "gecode", NULL, NULL, &out, &why))
        fail_msg("%s: %s", what, lm_buf_str(&why));
    char want[64];
    snprintf(want, sizeof want, "loomc_objective = %lld\n", (long long)a[0].objective);
    if (!strstr(lm_buf_str(&out), want) || !strstr(lm_buf_str(&out), "=========="))
        fail_msg("%s as written: want %s got %s", what, want, lm_buf_str(&out));
    solve_free_solutions(a, na);
    lm_buf_free(&text);
    lm_buf_free(&dzn);
    lm_buf_free(&out);
    lm_buf_free(&why);
}

/* ---- the checks ------------------------------------------------------------------ */

static void same_choice(const sched_choice *a, const sched_choice *b, int nl, const char *what)
{
    for (int l = 0; l < nl; l++)
        if (a->cand[l] != b->cand[l])
            fail_msg("%s: launch %d: candidate %d vs %d", what, l, a->cand[l], b->cand[l]);
    assert_int_equal(a->sol.objective, b->sol.objective);
    for (int t = 0; t < SOLVE_MAX_TIEBREAK; t++)
        assert_int_equal(a->sol.tiebreak[t], b->sol.tiebreak[t]);
    assert_int_equal(a->problem.nvars, b->problem.nvars);
    for (int v = 0; v < a->problem.nvars; v++) {
        assert_ptr_equal(a->problem.vars[v].var, b->problem.vars[v].var);
        if (a->sol.values[v] != b->sol.values[v])
            fail_msg("%s: %s = %lld vs %lld", what, a->problem.vars[v].var->name, (long long)a->sol.values[v],
                     (long long)b->sol.values[v]);
    }
}

static void same_schedule(const sched_schedule *a, const sched_schedule *b, const char *what)
{
    assert_string_equal(a->cand.label, b->cand.label);
    assert_int_equal(a->predicted_cycles, b->predicted_cycles);
    assert_int_equal(a->values.n, b->values.n);
    for (int i = 0; i < a->values.n; i++) {
        assert_ptr_equal(a->values.b[i].var, b->values.b[i].var);
        if (a->values.b[i].lo != b->values.b[i].lo)
            fail_msg("%s: %s = %lld vs %lld", what, a->values.b[i].var->name, (long long)a->values.b[i].lo,
                     (long long)b->values.b[i].lo);
    }
}

/* loomc's optimum of every problem (candidate x sigma) equals MiniZinc's, and
 * both selections pick the default schedule; with `full`, also the default
 * selection run with MiniZinc and the exported models as written. Returns
 * the problems compared. */
static int cross_check(const char *kernel, const char *arch, const char *shape, const char *consts, bool full)
{
    char what[200];
    snprintf(what, sizeof what, "%s on %s, %s%s%s", kernel, arch, shape, consts ? ", " : "", consts ? consts : "");
    job j;
    compile(&j, kernel, arch, shape, consts);
    drv_sched *ds = j.r.sched;
    sched_job *sj = &ds->job;
    int nl = sj->nlaunches;

    seen_vec mine = {0}, theirs = {0};
    sched_result rb, rm;
    sched_select_opts ob = {.top_k = 1, .no_cut = true, .observe = observe, .observe_ud = &mine};
    sched_select_opts om = ob;
    om.observe_ud = &theirs;
    om.mzn_solver = "gecode";
    assert_true(sched_select(&rb, sj, &ob, j.r.sym, &j.r.arena, &j.d));
    if (!sched_select(&rm, sj, &om, j.r.sym, &j.r.arena, &j.d))
        fail_msg("%s: the selection with MiniZinc failed (is Debian's minizinc package installed?)", what);

    /* every problem, in the same order */
    assert_int_equal(mine.len, (size_t)rb.combos);
    assert_int_equal(theirs.len, mine.len);
    assert_true(rm.mzn_runs > rm.combos); /* each problem went to minizinc */
    int feasible = 0;
    for (size_t i = 0; i < mine.len; i++) {
        const seen *a = &mine.items[i], *b = &theirs.items[i];
        assert_int_equal(a->launch, b->launch);
        assert_int_equal(a->cand, b->cand);
        assert_int_equal(a->cand2, b->cand2);
        assert_int_equal(a->sigma, b->sigma);
        assert_true(a->status == SOLVE_OPTIMAL || a->status == SOLVE_INFEASIBLE);
        if (a->status != b->status || a->nsol != b->nsol)
            fail_msg("%s, launch %d candidate %d sigma %d: loomc status %d, MiniZinc %d", what, a->launch, a->cand,
                     a->sigma, (int)a->status, (int)b->status);
        if (!a->nsol)
            continue;
        feasible++;
        if (a->objective != b->objective)
            fail_msg("%s, launch %d candidate %d sigma %d: optimum %lld (loomc) vs %lld (MiniZinc)", what, a->launch,
                     a->cand, a->sigma, (long long)a->objective, (long long)b->objective);
        for (int t = 0; t < SOLVE_MAX_TIEBREAK; t++)
            assert_int_equal(a->tiebreak[t], b->tiebreak[t]);
        for (int v = 0; v < a->nvars; v++)
            if (a->values[v] != b->values[v])
                fail_msg("%s, launch %d candidate %d sigma %d: variable %d: %lld vs %lld", what, a->launch, a->cand,
                         a->sigma, v, (long long)a->values[v], (long long)b->values[v]);
    }
    assert_true(feasible > 0);
    /* every candidate of every launch was among them */
    for (int l = 0; l < nl; l++)
        for (int c = 0; c < sj->cands[l].n; c++) {
            bool found = false;
            for (size_t i = 0; i < mine.len && !found; i++)
                found = (mine.items[i].launch == l && mine.items[i].cand == c) ||
                        (mine.items[i].launch2 == l && mine.items[i].cand2 == c); /* a fused pair's consumer */
            assert_true(found);
        }

    /* the same pick: the default selection's, with MiniZinc's and without the bound */
    const sched_result *r0 = &ds->result;
    same_choice(&r0->top[0], &rb.top[0], nl, what);
    same_choice(&r0->top[0], &rm.top[0], nl, what);
    assert_int_equal(r0->cycles, rm.cycles);
    for (int l = 0; l < nl; l++)
        same_schedule(&r0->best[l], &rm.best[l], what);

    /* and the default selection itself (with the bound from better
     * candidates, which makes later problems infeasible) with MiniZinc: the
     * same counts and every candidate's best in the same order */
    if (full) {
        sched_result rc;
        sched_select_opts oc = {.top_k = 1, .mzn_solver = "gecode"};
        assert_true(sched_select(&rc, sj, &oc, j.r.sym, &j.r.arena, &j.d));
        assert_int_equal(rc.combos, r0->combos);
        assert_int_equal(rc.feasible, r0->feasible);
        assert_true(r0->feasible < r0->combos); /* the bound did cut */
        assert_int_equal(rc.nbests, r0->nbests);
        for (int i = 0; i < rc.nbests; i++)
            same_choice(&r0->bests[i], &rc.bests[i], nl, what);
        sched_result_free(&rc);
    }

    /* the exported models, run as written, reach each candidate's optimum */
    if (full) {
        for (int l = 0; l < nl; l++) {
            const char *prefix = nl > 1 ? lm_arena_printf(&j.r.arena, "%s.", sj->k[l]->name) : "";
            for (int c = 0; c < sj->cands[l].n; c++) {
                if (sj->cands[l].c[c].fuse != SCHED_FUSE_NONE)
                    continue; /* a fused pair's joint problem: fused_models below */
                sched_model m;
                assert_true(sched_model_build(&m, sj->k[l], &sj->cands[l].c[c], sj->arch, sj->bound, prefix, j.r.sym,
                                              &j.r.arena, &j.d));
                model_reaches_optimum(&m.problem, lm_arena_printf(&j.r.arena, "%s: candidate %d's model", what, c));
            }
        }
    }
    int n = (int)mine.len;
    LM_VEC_FREE(&mine);
    LM_VEC_FREE(&theirs);
    sched_result_free(&rb);
    sched_result_free(&rm);
    release(&j);
    return n;
}

/* Every fused pair's joint problem (sched_fused_problem, as `--emit-mzn`
 * writes it), run by MiniZinc as written, reaches loomc's optimum; returns
 * the number of pairs. */
static int fused_models(const char *path, const char *arch, const char *shapes, const char *consts)
{
    job j;
    compile(&j, path, arch, shapes, consts);
    const sched_job *sj = &j.r.sched->job;
    int n = 0;
    for (int u = 0; u < sj->nfusions; u++) {
        const sched_fusion *f = &sj->fusion[u];
        for (int a = 0; a < sj->cands[f->producer].n; a++)
            for (int b = 0; b < sj->cands[f->consumer].n; b++) {
                if (!sched_fused_pair(f, &sj->cands[f->producer].c[a], &sj->cands[f->consumer].c[b]))
                    continue;
                solve_problem p;
                sched_model ms[2];
                assert_true(sched_fused_problem(&p, ms, sj, f, a, b, j.r.sym, &j.r.arena, &j.d));
                model_reaches_optimum(&p, lm_arena_printf(&j.r.arena, "%s on %s: fused pair %d+%d", path, arch, a, b));
                n++;
            }
    }
    release(&j);
    return n;
}

/* ---- the kernels --------------------------------------------------------------------- */

/* Small shapes, one or two per kernel and chip: each problem costs two
 * minizinc runs (about a third of a second of CPU each, mostly MiniZinc's
 * start-up), so the shapes are chosen for their number of surviving
 * candidates (1 to 19), not their size. Larger shapes are compared by
 * bench/mzn_vs_builtin.sh. */

static void matmul(void **state)
{
    (void)state;
    assert_int_equal(cross_check("kernels/matmul.py", "wormhole_n150", "M=32,N=64,K=64", NULL, false), 7);
    assert_int_equal(cross_check("kernels/matmul.py", "blackhole_p150", "M=96,N=32,K=160", NULL, true), 7);
}

static void flash_attention(void **state)
{
    (void)state;
    assert_int_equal(cross_check("kernels/flash_attention.py", "wormhole_n150", "B=1,H=1,S=64,D=64", NULL, false), 19);
    assert_int_equal(cross_check("kernels/flash_attention.py", "blackhole_p150", "B=2,H=1,S=32,D=64", NULL, false), 1);
}

/* Two launches that share NUM_SPLITS. Free, its seven values (powers of two
 * 1..64) make seven problems of every candidate; here it is pinned (one
 * value of the shared constexprs), the benchmark leaves it free. Besides
 * the two launches' own problems (the split launch: q multicast from an
 * edge or an interior sender or forwarded, along x or along y, or both
 * axes flattened with q from DRAM, 7; the combine, 1), each fused pair is
 * one problem: the split axis along x or along y, q multicast from an edge
 * or an interior sender or forwarded along it (six). */
static void flash_decode(void **state)
{
    (void)state;
    assert_int_equal(
        cross_check("kernels/flash_decode.py", "wormhole_n150", "B=1,H=8,HKV=1,S=64,D=64", "NUM_SPLITS=2", false),
        8 + 6);
    assert_int_equal(
        cross_check("kernels/flash_decode.py", "blackhole_p150", "B=1,H=4,HKV=1,S=128,D=32", "NUM_SPLITS=4", false),
        8 + 6);
    assert_int_equal(fused_models("kernels/flash_decode.py", "wormhole_n150", "B=1,H=8,HKV=1,S=64,D=64", "NUM_SPLITS=2"), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul),
        cmocka_unit_test(flash_attention),
        cmocka_unit_test(flash_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
