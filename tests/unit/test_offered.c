/* test_offered.c - a value the schedule reports is the value that runs:
 * every variable the scheduler offers the solver changes the program the
 * schedule lowers to (docs/scheduler.md, "Model"). For every candidate of
 * matmul (in the kernel's formats and with a block-float output), flash
 * attention (causal and not) and flash decode (its two launches, and their
 * fused pairs), the candidate's own optimum is lowered, then each variable
 * of its problem - free constexprs, grid extents, buffer depths, the matmul
 * sub-block, split counts - is moved one legal step either way (to the
 * nearest value of its domain at which every constraint of the problem
 * still holds) and lowered again: the printed dataflow program (df_print)
 * must differ. A variable whose step leaves the text as it was is one the
 * model prices but the lowering ignores. The moved schedule must lower
 * too: a legal point the lowering refuses is as much a broken promise.
 * Run from the repository root (as tests/run.sh does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <string.h>

#include "df/df.h"
#include "driver/driver.h"
#include "lower/lower.h"
#include "sched/sched.h"
#include "test_kv.h"

typedef struct job {
    drv_result r;
    const arch_desc *a;
    arch_desc *own;
    lm_diag d;
    FILE *err;
    char *errtext;
    size_t errlen;
    fe_kv sk[16], ck[16];
    char sbuf[256], cbuf[256], pbuf[256];
    /* tallies */
    int points, steps, bad;
    int seen_depth_alias; /* steps of a depth of an output stored from its accumulator */
} job;

/* Compile and schedule (the candidates, the L1 plans and the fused pairs
 * are what the checks below read). */
static void open_job(job *j, const char *arch, const char *path, const char *shapes, const char *consts,
                     const char *format)
{
    memset(j, 0, sizeof *j);
    j->err = open_memstream(&j->errtext, &j->errlen);
    lm_diag_init(&j->d, j->err);
    j->own = arch_load(arch, &j->d);
    assert_non_null(j->own);
    j->a = j->own;
    /* "FILE:SPEC" names a launch spec of the file */
    snprintf(j->pbuf, sizeof j->pbuf, "%s", path);
    char *spec = strchr(j->pbuf, ':');
    if (spec)
        *spec++ = 0;
    drv_opts o = {0};
    o.path = j->pbuf;
    o.launch.kernel = spec;
    o.launch.shapes = j->sk;
    o.launch.nshapes = parse_kv(shapes, j->sk, 16, j->sbuf, sizeof j->sbuf);
    o.launch.consts = j->ck;
    o.launch.nconsts = consts ? parse_kv(consts, j->ck, 16, j->cbuf, sizeof j->cbuf) : 0;
    drv_sched_opts so = {.arch = j->a, .top_k = 1};
    if (format) {
        so.have_format = true;
        assert_true(arch_format_parse(format, &so.format));
    }
    bool ok = drv_compile(&j->r, &o, &j->d) && drv_schedule(&j->r, &so, &j->d);
    fflush(j->err);
    if (!ok)
        print_error("%s %s: %s\n", path, shapes, j->errtext);
    assert_true(ok);
}

static void close_job(job *j)
{
    drv_free(&j->r);
    arch_free(j->own);
    fclose(j->err);
    free(j->errtext);
}

/* Every constraint of p holds at values (and the sizes). */
static bool feasible(const job *j, const solve_problem *p, const int64_t *values)
{
    sym_env env = {0};
    for (int i = 0; i < p->nvars; i++)
        sym_env_set(&env, p->vars[i].var, values[i]);
    const sym_env *b = &j->r.sched->bound;
    for (int i = 0; i < b->n; i++)
        sym_env_set_range(&env, b->b[i].var, b->b[i].lo, b->b[i].hi);
    bool ok = true;
    for (int c = 0; c < p->ncons && ok; c++) {
        int64_t v;
        ok = sym_eval(p->cons[c].expr, &env, &v) == SYM_OK && v <= 0;
    }
    sym_env_free(&env);
    return ok;
}

/* A point: problem p of launch l (with l + 1 when ms[1] is set: a fused
 * pair), the launches' models ms. */
typedef struct point {
    const solve_problem *p;
    int l;
    const sched_model *ms[2];
    const char *what;
} point;

/* The program of the point at values, as text (NULL and the reason in
 * *why when it does not lower). */
static char *lower_text(job *j, const point *pt, const int64_t *values, const char **why)
{
    const sched_job *sj = &j->r.sched->job;
    sched_schedule sc[SCHED_MAX_LAUNCHES];
    memset(sc, 0, sizeof sc);
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    for (int l = 0; l < sj->nlaunches; l++)
        kp[l] = sj->k[l], sp[l] = &sc[l];
    for (int u = 0; u < 2 && pt->ms[u]; u++)
        sched_launch_schedule(sj, pt->l + u, pt->ms[u], pt->p, values, &sc[pt->l + u], j->r.sym);
    long pos = ftell(j->err);
    int cov = 0;
    df_program *prog = sched_lower_launch(kp, sp, sj->nlaunches, pt->l, j->a, j->r.sym, &j->d, &cov);
    char *text = NULL;
    if (prog && cov == (pt->ms[1] ? 2 : 1)) {
        lm_buf b = {0};
        df_print(&b, prog);
        text = strdup(lm_buf_str(&b));
        lm_buf_free(&b);
    } else {
        fflush(j->err);
        *why = prog ? "lowered as another pairing" : lm_arena_strdup(&j->r.arena, j->errtext + pos);
    }
    df_free(prog);
    for (int l = 0; l < sj->nlaunches; l++)
        sym_env_free(&sc[l].values);
    return text;
}

/* Whether variable v is the depth of an OUT buffer stored straight from a
 * loop-carried tile (matmul's c). */
static bool alias_depth(const job *j, const point *pt, const sym_expr *v)
{
    for (int u = 0; u < 2 && pt->ms[u]; u++) {
        const sched_kernel *k = pt->ms[u]->k;
        for (int i = 0; i < k->nbufs; i++) {
            char name[256];
            snprintf(name, sizeof name, "%sdepth.%s", pt->ms[u]->prefix, k->bufs[i].name);
            if (k->bufs[i].kind == SCHED_BUF_OUT && k->bufs[i].alias >= 0 && !strcmp(v->name, name))
                return true;
        }
    }
    (void)j;
    return false;
}

/* Solve the point's problem for its own optimum and move every variable. */
static void check_point(job *j, const point *pt)
{
    solve_solution sol;
    int n = 0;
    solve_status st = solve_run(pt->p, NULL, &sol, &n, NULL, NULL);
    if (st != SOLVE_OPTIMAL || n == 0) {
        if (n)
            solve_free_solutions(&sol, n);
        return; /* no schedule for this candidate at this shape */
    }
    j->points++;
    const char *why = "";
    char *base = lower_text(j, pt, sol.values, &why);
    if (!base) {
        print_error("%s: its optimum does not lower: %s\n", pt->what, why);
        j->bad++;
        solve_free_solutions(&sol, n);
        return;
    }
    int64_t *v = malloc(sizeof *v * (size_t)(pt->p->nvars ? pt->p->nvars : 1));
    for (int i = 0; i < pt->p->nvars; i++) {
        const solve_var *var = &pt->p->vars[i];
        int at = -1;
        for (int d = 0; d < var->ndomain; d++)
            if (var->domain[d] == sol.values[i])
                at = d;
        assert_true(at >= 0);
        for (int dir = -1; dir <= 1; dir += 2) {
            memcpy(v, sol.values, sizeof *v * (size_t)pt->p->nvars);
            int d = at + dir;
            while (d >= 0 && d < var->ndomain) {
                v[i] = var->domain[d];
                if (feasible(j, pt->p, v))
                    break;
                d += dir;
            }
            if (d < 0 || d >= var->ndomain)
                continue; /* no legal step this way */
            j->steps++;
            j->seen_depth_alias += alias_depth(j, pt, var->var);
            char *moved = lower_text(j, pt, v, &why);
            if (!moved) {
                print_error("%s: %s %lld -> %lld is legal but does not lower: %s\n", pt->what, var->var->name,
                            (long long)sol.values[i], (long long)v[i], why);
                j->bad++;
            } else if (!strcmp(moved, base)) {
                print_error("%s: %s %lld -> %lld leaves the lowered program as it was\n", pt->what,
                            var->var->name, (long long)sol.values[i], (long long)v[i]);
                j->bad++;
            }
            free(moved);
        }
    }
    free(v);
    free(base);
    solve_free_solutions(&sol, n);
}

/* Every candidate of every launch, and every fused pair. */
static void check_job(job *j, const char *what)
{
    const sched_job *sj = &j->r.sched->job;
    lm_arena *ar = &j->r.arena;
    for (int l = 0; l < sj->nlaunches; l++) {
        const char *prefix = sched_launch_prefix(sj, l, ar);
        for (int i = 0; i < sj->cands[l].n; i++) {
            const sched_candidate *c = &sj->cands[l].c[i];
            if (c->fuse != SCHED_FUSE_NONE)
                continue;
            sched_model *m = LM_NEW(ar, sched_model);
            assert_true(sched_model_build(m, sj->k[l], c, sj->arch, sj->bound, prefix, j->r.sym, ar, &j->d));
            point pt = {&m->problem, l, {m, NULL},
                        lm_arena_printf(ar, "%s launch %d candidate %d (%s)", what, l, i, c->label)};
            check_point(j, &pt);
        }
    }
    for (int u = 0; u < sj->nfusions; u++) {
        const sched_fusion *f = &sj->fusion[u];
        for (int a = 0; a < sj->cands[f->producer].n; a++)
            for (int b = 0; b < sj->cands[f->consumer].n; b++) {
                const sched_candidate *ca = &sj->cands[f->producer].c[a], *cb = &sj->cands[f->consumer].c[b];
                if (ca->fuse != SCHED_FUSE_PRODUCER || cb->fuse != SCHED_FUSE_CONSUMER ||
                    !sched_fused_pair(f, ca, cb))
                    continue;
                solve_problem *p = LM_NEW(ar, solve_problem);
                sched_model *ms = LM_NEWN(ar, sched_model, 2);
                assert_true(sched_fused_problem(p, ms, sj, f, a, b, j->r.sym, ar, &j->d));
                point pt = {p, f->producer, {&ms[0], &ms[1]},
                            lm_arena_printf(ar, "%s fused pair %d+%d (%s | %s)", what, a, b, ca->label, cb->label)};
                check_point(j, &pt);
            }
    }
}

static void run_case(const char *arch, const char *path, const char *shapes, const char *consts, const char *format,
                     int *alias_steps)
{
    job j;
    open_job(&j, arch, path, shapes, consts, format);
    const char *what = lm_arena_printf(&j.r.arena, "%s on %s at %s%s%s%s%s", path, arch, shapes, consts ? " " : "",
                                       consts ? consts : "", format ? " --format " : "", format ? format : "");
    check_job(&j, what);
    if (alias_steps)
        *alias_steps += j.seen_depth_alias;
    assert_true(j.points > 0);
    assert_true(j.steps > 0);
    int bad = j.bad;
    close_job(&j);
    assert_int_equal(bad, 0);
}

/* matmul: c is stored from the accumulator (in place), so its depth is the
 * accumulator's CB's; with a block-float output the accumulator is bf16
 * and c a store of its own. Both ways depth.c is offered and must show. */
static void matmul(void **st)
{
    (void)st;
    int alias = 0;
    run_case("wormhole_n150", "kernels/matmul.py", "M=512,N=512,K=512", NULL, NULL, &alias);
    run_case("wormhole_n150", "kernels/matmul.py", "M=1024,N=2048,K=2048", NULL, "bf16", &alias);
    run_case("blackhole_p150", "kernels/matmul.py", "M=256,N=384,K=64", NULL, "bfp8_b", NULL);
    assert_true(alias > 0); /* depth.c of the in-place accumulator was offered and moved */
}

static void attention(void **st)
{
    (void)st;
    run_case("wormhole_n150", "kernels/flash_attention.py", "B=1,H=4,S=512,D=64", "CAUSAL=0", NULL, NULL);
    run_case("wormhole_n150", "kernels/flash_attention.py", "B=1,H=4,S=512,D=64", "CAUSAL=1", NULL, NULL);
}

static void decode(void **st)
{
    (void)st;
    run_case("wormhole_n150", "kernels/flash_decode.py", "B=2,H=32,HKV=8,S=1000,D=64", NULL, NULL, NULL);
    run_case("blackhole_p150", "kernels/flash_decode.py", "B=1,H=8,HKV=8,S=300,D=128", NULL, NULL, NULL);
}

/* A split-K row sum (tests/kernels/splitk_sum.py), plain and fused: its
 * partial sums are stored from the loop's carried tile as a row, copied
 * into a CB of their own, whose depth is offered and realised. */
static void splitk(void **st)
{
    (void)st;
    run_case("wormhole_n150", "tests/kernels/splitk_sum.py:splitk_sum", "M=512,K=4096", NULL, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matmul),
        cmocka_unit_test(attention),
        cmocka_unit_test(decode),
        cmocka_unit_test(splitk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
