/* select.c - solve every candidate of a job and pick (sched_select).
 *
 * A job is all launches of one compilation. Launches run one after another
 * and may share free constexprs (flash decode's NUM_SPLITS shapes both its
 * split and its combine launch); the job's latency is the sum of the
 * launches'. Because the launches' problems only meet in those shared
 * constexprs, the job is solved exactly by enumerating the shared values
 * (sigma) and, for each, solving every launch's candidates on their own:
 *   min over sigma of  sum over launches l of  min over candidates c of  f(l, c, sigma).
 * A single launch has no shared values: each candidate is solved once, with
 * the requested top k.
 *
 * Every problem is solved exactly with solve_run under a deterministic
 * effort limit. Once two candidates of a launch (at one sigma) have
 * solutions, later candidates get a constraint "latency <= the k-th best /
 * the second best so far": anything above cannot enter the result or be
 * the runner-up, and the bound lets the search prune it early.
 *
 * Choices are ordered by (cycles, critical path, DRAM bytes, L1 bytes,
 * handshakes, busy cycles, candidates in enumeration order, sigma, rank) -
 * deterministic. The critical path (sched_model.path: the most block
 * transfers in sequence of any load) comes first among the tie-breaks
 * because it is the only one that tells candidates of equal cycles apart by
 * how their blocks travel: a multicast reaches every core of a row in one
 * transfer after the read, a forwarding chain in one per core, so where the
 * model cannot separate them the shorter chain is the one less exposed to
 * what the model leaves out (a chain's fill grows with its length). Each
 * launch's two best candidates at a sigma are taken in the same order.
 *
 * With sched_select_opts.mzn_solver, each problem goes to MiniZinc
 * (mzn_solve) instead of solve_run; both return the same solutions in the
 * same order, so everything around them - the bound, top k, the ranking of
 * choices - is this one code path for either solver.
 */
#include "sched/sched.h"
#include "solve/mzn.h"

#include <stdlib.h>
#include <string.h>

/* One solved problem: a launch's candidate at one value of the shared
 * constexprs. */
typedef struct solved {
    int launch, cand, sigma, rank;
    int64_t path;               /* the launch's (a fused pair's: both) critical path at sol */
    int launch2, cand2;         /* a fused pair's consumer and its candidate (else -1) */
    const solve_problem *prob;  /* whose variables sol.values follow: the launch's model, or the
                                   pair's joint problem */
    solve_solution sol; /* values in prob's variable order (arena) */
} solved;

typedef LM_VEC(solved) solved_vec;

static int cmp_choice(const sched_choice *a, const sched_choice *b, int nl)
{
    if (a->sol.objective != b->sol.objective)
        return a->sol.objective < b->sol.objective ? -1 : 1;
    if (a->path != b->path)
        return a->path < b->path ? -1 : 1;
    for (int i = 0; i < SOLVE_MAX_TIEBREAK; i++)
        if (a->sol.tiebreak[i] != b->sol.tiebreak[i])
            return a->sol.tiebreak[i] < b->sol.tiebreak[i] ? -1 : 1;
    for (int l = 0; l < nl; l++)
        if (a->cand[l] != b->cand[l])
            return a->cand[l] < b->cand[l] ? -1 : 1;
    return a->rank_in_candidate - b->rank_in_candidate;
}

/* The order of two solved problems of one launch (or fused pair) at one
 * sigma, as cmp_choice orders choices: cycles, critical path, the
 * tie-breaks; equal ones keep the order they were solved in (enumeration
 * order). True when a comes before b. */
static bool solved_before(const solved *a, const solved *b)
{
    if (a->sol.objective != b->sol.objective)
        return a->sol.objective < b->sol.objective;
    if (a->path != b->path)
        return a->path < b->path;
    for (int i = 0; i < SOLVE_MAX_TIEBREAK; i++)
        if (a->sol.tiebreak[i] != b->sol.tiebreak[i])
            return a->sol.tiebreak[i] < b->sol.tiebreak[i];
    return false;
}

/* Sort choices by cmp_choice, stably (equal choices keep their order), by
 * merging runs through a scratch copy; nl is the job's launch count. */
static void sort_choices(sched_choice *v, size_t n, int nl)
{
    if (n < 2)
        return;
    sched_choice *tmp = lm_xmalloc(n * sizeof *tmp);
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = LM_MIN(lo + w, n), hi = LM_MIN(lo + 2 * w, n), i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp_choice(&v[j], &v[i], nl) < 0 ? v[j++] : v[i++];
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
    free(tmp);
}

/* The k-th smallest of n values (k <= n). */
static int64_t kth(const int64_t *vals, size_t n, int k)
{
    int64_t *v = lm_xmalloc(sizeof *v * (n ? n : 1));
    memcpy(v, vals, sizeof *v * n);
    for (int i = 0; i < k; i++)
        for (size_t j = (size_t)i + 1; j < n; j++)
            if (v[j] < v[i]) {
                int64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
    int64_t r = v[k - 1];
    free(v);
    return r;
}

/* The union of the launches' problems: shared variables once, all
 * constraints (named after their launch when there are several), the sum
 * of the objectives and of the tie-breaks. */
static void joint(solve_problem *p, sched_model *const *ms, int nl, sym_ctx *s, lm_arena *ar)
{
    int nv = 0, nc = 0;
    for (int l = 0; l < nl; l++) {
        nv += ms[l]->problem.nvars;
        nc += ms[l]->problem.ncons;
    }
    memset(p, 0, sizeof *p);
    p->vars = LM_NEWN(ar, solve_var, nv ? nv : 1);
    p->cons = LM_NEWN(ar, solve_constraint, nc ? nc : 1);
    p->objective = sym_const(s, 0);
    p->ntiebreak = SOLVE_MAX_TIEBREAK;
    for (int t = 0; t < SOLVE_MAX_TIEBREAK; t++)
        p->tiebreak[t] = sym_const(s, 0);
    for (int l = 0; l < nl; l++) {
        const solve_problem *q = &ms[l]->problem;
        for (int i = 0; i < q->nvars; i++) {
            bool dup = false;
            for (int j = 0; j < p->nvars; j++)
                dup |= p->vars[j].var == q->vars[i].var;
            if (!dup)
                p->vars[p->nvars++] = q->vars[i];
        }
        for (int i = 0; i < q->ncons; i++) {
            p->cons[p->ncons] = q->cons[i];
            if (nl > 1)
                p->cons[p->ncons].name = lm_arena_printf(ar, "%s: %s", ms[l]->k->name, q->cons[i].name);
            p->ncons++;
        }
        p->objective = sym_add(s, p->objective, q->objective);
        for (int t = 0; t < SOLVE_MAX_TIEBREAK; t++)
            p->tiebreak[t] = sym_add(s, p->tiebreak[t], q->tiebreak[t]);
    }
}

bool sched_fused_problem(solve_problem *p, sched_model ms[2], const sched_job *job, const sched_fusion *f, int ip,
                         int jc, sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    int la = f->producer, lb = f->consumer;
    const sched_candidate *ci = &job->cands[la].c[ip], *cj = &job->cands[lb].c[jc];
    LM_ASSERT(sched_fused_pair(f, ci, cj));
    const char *pa = sched_launch_prefix(job, la, ar), *pb = sched_launch_prefix(job, lb, ar);
    if (!sched_model_build_fused(&ms[0], job->k[la], ci, f, job->k[lb], cj, pb, job->arch, job->bound, pa, s, ar, d) ||
        !sched_model_build_fused(&ms[1], job->k[lb], cj, f, job->k[la], ci, pa, job->arch, job->bound, pb, s, ar, d))
        return false;
    sched_model *const mp[2] = {&ms[0], &ms[1]};
    joint(p, mp, 2, s, ar);
    return true;
}

typedef struct selctx {
    sched_job *job;
    const sched_select_opts *o;
    sym_ctx *s;
    lm_arena *ar;
    lm_diag *d;
    sched_result *r;
    sched_model *models[SCHED_MAX_LAUNCHES];
    LM_VEC(const char *) rnames; /* rejections summed by constraint name */
    LM_VEC(int64_t) rcounts;
    bool failed;
} selctx;

/* The critical path (sched_model.path) of models ms[0..n-1] at values of
 * problem q (their own problem, or their joint one). */
static int64_t path_at(const selctx *x, sched_model *const *ms, int n, const solve_problem *q, const int64_t *values)
{
    sym_env env = {0};
    for (int i = 0; i < q->nvars; i++)
        sym_env_set(&env, q->vars[i].var, values[i]);
    for (int i = 0; x->job->bound && i < x->job->bound->n; i++)
        sym_env_set_range(&env, x->job->bound->b[i].var, x->job->bound->b[i].lo, x->job->bound->b[i].hi);
    int64_t total = 0;
    for (int l = 0; l < n; l++) {
        int64_t v = 0;
        if (ms[l]->path && sym_eval(ms[l]->path, &env, &v) == SYM_OK)
            total += v;
    }
    sym_env_free(&env);
    return total;
}

/* p: a copy of q with room for one more constraint (the bound from better
 * candidates), its variables fixed where `fix` gives them a value. Returns
 * the pinned values' storage; the caller frees it with p's vars and cons. */
static int64_t *problem_copy(solve_problem *p, const solve_problem *q, const sym_env *fix)
{
    *p = *q;
    p->vars = lm_xmalloc(sizeof *p->vars * (size_t)(q->nvars ? q->nvars : 1));
    if (q->nvars)
        memcpy(p->vars, q->vars, sizeof *p->vars * (size_t)q->nvars);
    p->cons = lm_xmalloc(sizeof *p->cons * (size_t)(q->ncons + 1));
    memcpy(p->cons, q->cons, sizeof *p->cons * (size_t)q->ncons);
    int64_t *pinned = lm_xmalloc(sizeof *pinned * (size_t)(q->nvars ? q->nvars : 1));
    for (int v = 0; fix && v < p->nvars; v++) {
        int64_t lo, hi;
        if (sym_env_get(fix, p->vars[v].var, &lo, &hi)) {
            pinned[v] = lo;
            p->vars[v].domain = &pinned[v];
            p->vars[v].ndomain = 1;
        }
    }
    return pinned;
}

static void tally(selctx *x, const solve_problem *p, const solve_stats *st, int skip)
{
    for (int i = 0; st->rejected_by && i < p->ncons; i++) {
        if (!st->rejected_by[i] || i == skip)
            continue;
        size_t j = 0;
        while (j < x->rnames.len && strcmp(x->rnames.items[j], p->cons[i].name))
            j++;
        if (j == x->rnames.len) {
            LM_PUSH(&x->rnames, p->cons[i].name);
            LM_PUSH(&x->rcounts, 0);
        }
        x->rcounts.items[j] += st->rejected_by[i];
    }
}

/* One problem, by loomc's solver or (sched_select_opts.mzn_solver) by MiniZinc. */
static solve_status solve_one(selctx *x, const solve_problem *p, int topk, solve_solution *sols, int *nsol,
                              solve_stats *st, lm_buf *why)
{
    memset(st, 0, sizeof *st);
    if (x->o && x->o->mzn_solver) {
        mzn_solve_options mo = {.solver = x->o->mzn_solver, .minizinc = x->o->minizinc, .top_k = topk};
        mzn_report rep;
        solve_status stt = mzn_solve(p, &mo, sols, nsol, &rep, why);
        x->r->mzn_runs += rep.runs;
        return stt;
    }
    solve_options so = {.top_k = topk, .node_limit = x->o ? x->o->node_limit : 0};
    return solve_run(p, &so, sols, nsol, st, why);
}

/* The most cycles a schedule within the model's error of `best` can take
 * (sched_close_call): the bound from better candidates never cuts one, so
 * that the explanation counts every mapping that close whatever order the
 * candidates are solved in (it cut some: n150 GEMM 512^3 has 3 other
 * mappings within 8%, of which 2 were found). */
static int64_t close_reach(int64_t best)
{
    return best + best * SCHED_MODEL_ERROR_PERMILLE / 1000;
}

typedef LM_VEC(int64_t) i64vec;

/* Solve candidate i of launch l with the shared variables fixed at `fix`
 * (NULL: none) under the bound the better candidates so far give (objs:
 * every solution so far, cbest: each candidate's best); appends its
 * solutions to *out. */
static void solve_cand(selctx *x, int l, int i, const sym_env *fix, int sigma, int topk, solved_vec *out,
                       i64vec *objs, i64vec *cbest)
{
    sched_job *job = x->job;
    sym_ctx *s = x->s;
    const solve_problem *q = &x->models[l][i].problem;
    solve_problem p;
    int64_t *pinned = problem_copy(&p, q, fix);
    int cut = -1;
    if (objs->len >= (size_t)topk && cbest->len >= 2 && !(x->o && x->o->no_cut)) {
        int64_t bound = LM_MAX(LM_MAX(kth(objs->items, objs->len, topk), kth(cbest->items, cbest->len, 2)),
                               close_reach(kth(cbest->items, cbest->len, 1)));
        cut = p.ncons;
        p.cons[p.ncons++] = (solve_constraint){sym_sub(s, p.objective, sym_const(s, bound)),
                                               "(bound from better candidates)"};
    }
    solve_solution *sols = lm_xcalloc((size_t)topk, sizeof *sols);
    int nsol = 0;
    solve_stats st;
    memset(&st, 0, sizeof st);
    lm_buf why = {0};
    solve_status stt = solve_one(x, &p, topk, sols, &nsol, &st, &why);
    x->r->nodes += st.nodes;
    x->r->combos++;
    if (stt == SOLVE_ERROR && x->o && x->o->mzn_solver) {
        lm_error_plain(x->d, "MiniZinc (%s) on candidate '%s' of %s: %s", x->o->mzn_solver,
                       job->cands[l].c[i].label, job->k[l]->name, lm_buf_str(&why));
        x->failed = true;
    } else if (stt == SOLVE_ERROR) {
        lm_error_plain(x->d, "the model of candidate '%s' of %s cannot be evaluated: %s",
                       job->cands[l].c[i].label, job->k[l]->name, lm_buf_str(&why));
        x->failed = true;
    }
    if (x->o && x->o->observe && !x->failed)
        x->o->observe(x->o->observe_ud, &(sched_solved){.launch = l, .cand = i, .sigma = sigma, .launch2 = -1, .cand2 = -1, .problem = &p,
                                                          .status = stt, .sols = sols, .nsol = nsol});
    if (stt == SOLVE_LIMIT)
        x->r->limited++;
    tally(x, &p, &st, cut);
    if (nsol)
        x->r->feasible++;
    for (int k = 0; k < nsol; k++) {
        solved sv = {.launch = l, .cand = i, .sigma = sigma, .rank = k, .launch2 = -1, .cand2 = -1, .prob = q,
                     .sol = sols[k]};
        sv.sol.values = LM_NEWN(x->ar, int64_t, q->nvars ? q->nvars : 1);
        if (q->nvars)
            memcpy(sv.sol.values, sols[k].values, sizeof(int64_t) * (size_t)q->nvars);
        sched_model *const m1[1] = {&x->models[l][i]};
        sv.path = path_at(x, m1, 1, q, sv.sol.values);
        LM_PUSH(out, sv);
        LM_PUSH(objs, sols[k].objective);
        if (k == 0)
            LM_PUSH(cbest, sols[k].objective);
    }
    solve_free_solutions(sols, nsol);
    free(sols);
    solve_free_stats(&st);
    lm_buf_free(&why);
    free(p.vars);
    free(p.cons);
    free(pinned);
}

/* Append the NoC mirror (sched_noc_mirror) of launch l's best candidate so
 * far (the best solution from out->items[first] on), with its model, unless
 * it is among the candidates already; returns whether it appended one. */
static bool add_noc_mirror(selctx *x, int l, const solved_vec *out, size_t first)
{
    sched_job *job = x->job;
    sched_cands *cs = &job->cands[l];
    const solved *best = NULL;
    for (size_t i = first; i < out->len; i++)
        if (!best || solved_before(&out->items[i], best))
            best = &out->items[i];
    sched_candidate v;
    if (!best || !sched_noc_mirror(job->k[l], &cs->c[best->cand], job->arch, &v, x->ar))
        return false;
    for (int i = 0; i < cs->n; i++)
        if (sched_same_mapping(&cs->c[i], &v))
            return false;
    /* the candidates and models grow by one (both in the arena); the models
       point at their candidates */
    int n = cs->n;
    sched_candidate *nc = LM_NEWN(x->ar, sched_candidate, (size_t)n + 1);
    sched_model *nm = LM_NEWN(x->ar, sched_model, (size_t)n + 1);
    memcpy(nc, cs->c, sizeof *nc * (size_t)n);
    memcpy(nm, x->models[l], sizeof *nm * (size_t)n);
    for (int i = 0; i < n; i++)
        nm[i].cand = &nc[i];
    nc[n] = v;
    nc[n].id = -1;
    cs->c = nc;
    cs->n = n + 1;
    x->models[l] = nm;
    x->r->mirrors++;
    if (!sched_model_build(&nm[n], job->k[l], &nc[n], job->arch, job->bound, sched_launch_prefix(job, l, x->ar),
                           x->s, x->ar, x->d))
        x->failed = true;
    return !x->failed;
}

/* Solve every candidate of launch l with the shared variables fixed at
 * `fix` (NULL: none); appends solutions to *out. A job of one launch then
 * solves the NoC mirror of the best candidate too (add_noc_mirror). */
static void solve_launch(selctx *x, int l, const sym_env *fix, int sigma, int topk, solved_vec *out)
{
    sched_job *job = x->job;
    i64vec objs = {0};  /* every solution of this launch and sigma */
    i64vec cbest = {0}; /* each candidate's best */
    size_t first = out->len;
    for (int i = 0; i < job->cands[l].n && !x->failed; i++)
        if (job->cands[l].c[i].fuse == SCHED_FUSE_NONE) /* else solved with its partner (solve_fused) */
            solve_cand(x, l, i, fix, sigma, topk, out, &objs, &cbest);
    if (job->nlaunches == 1 && !x->failed && !(x->o && x->o->no_noc_mirror))
        if (add_noc_mirror(x, l, out, first))
            solve_cand(x, l, job->cands[l].n - 1, fix, sigma, topk, out, &objs, &cbest);
    LM_VEC_FREE(&objs);
    LM_VEC_FREE(&cbest);
}

/* The job totals known at this sigma, each with its combination of
 * candidates: earlier sigmas' choices, this sigma's combinations of each
 * launch's two best, and the fused pairs solved so far. */
typedef struct known {
    LM_VEC(int64_t) tot;
    LM_VEC(int) tup; /* nl candidate indices per total */
    int nl;
} known;

static void known_add(known *k, int64_t total, const int *cand)
{
    LM_PUSH(&k->tot, total);
    for (int l = 0; l < k->nl; l++)
        LM_PUSH(&k->tup, cand[l]);
}

static void known_init(known *k, const sched_choice *all, size_t nall, const solved *const (*best2)[2],
                       const int *nb, int nl)
{
    memset(k, 0, sizeof *k);
    k->nl = nl;
    for (size_t i = 0; i < nall; i++)
        known_add(k, all[i].cycles, all[i].cand);
    int idx[SCHED_MAX_LAUNCHES] = {0};
    bool some = true;
    for (int l = 0; l < nl; l++)
        some &= nb[l] > 0;
    while (some) {
        int64_t t = 0;
        int cand[SCHED_MAX_LAUNCHES];
        for (int l = 0; l < nl; l++)
            t += best2[l][idx[l]]->sol.objective, cand[l] = best2[l][idx[l]]->cand;
        known_add(k, t, cand);
        int l = nl - 1;
        while (l >= 0 && ++idx[l] == nb[l])
            idx[l--] = 0;
        if (l < 0)
            break;
    }
}

/* The bound a job total must meet to matter: no worse than the topk-th best
 * known, nor than the best total of a combination of candidates other than
 * the best one, nor than the model's error above the best (close_reach) - a
 * schedule above all three can enter neither the result, nor the runner-up,
 * nor the explanation's count of close mappings. -1: no bound yet. */
static int64_t known_bound(const known *k, int topk)
{
    size_t n = k->tot.len, nl = (size_t)k->nl;
    if (n < (size_t)topk || !n)
        return -1;
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (k->tot.items[i] < k->tot.items[b])
            b = i;
    int64_t second = -1;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&k->tup.items[i * nl], &k->tup.items[b * nl], sizeof(int) * nl) &&
            (second < 0 || k->tot.items[i] < second))
            second = k->tot.items[i];
    return second < 0 ? -1 : LM_MAX(LM_MAX(kth(k->tot.items, n, topk), second), close_reach(k->tot.items[b]));
}

static void known_free(known *k)
{
    LM_VEC_FREE(&k->tot);
    LM_VEC_FREE(&k->tup);
}

/* Solve every pairing of fused candidates of fusion f as one problem (the
 * producer's model and the consumer's, whose terms reach the producer's
 * grid), with the shared variables fixed at `fix`; appends solutions. */
static void solve_fused(selctx *x, const sched_fusion *f, const sym_env *fix, int sigma, int topk, known *kn,
                        int64_t others, const int *cand, int btopk, solved_vec *out)
{
    sched_job *job = x->job;
    int la = f->producer, lb = f->consumer;
    /* the producer's programs along the gather axis at this value: more
       than a row (column) of the chip holds leaves no fused pair to solve */
    int64_t ng = -1;
    const sym_expr *ge = job->k[la]->f->grid[f->gather_axis];
    if (job->bound)
        ge = sym_subst(x->s, ge, job->bound);
    sym_env none = {0};
    if (sym_eval(ge, fix ? fix : &none, &ng) != SYM_OK)
        ng = -1;
    for (int i = 0; i < job->cands[la].n && !x->failed; i++)
        for (int j = 0; j < job->cands[lb].n && !x->failed; j++) {
            if (!sched_fused_pair(f, &job->cands[la].c[i], &job->cands[lb].c[j]))
                continue;
            if (ng > (job->cands[la].c[i].fuse_along == SCHED_ON_X ? job->arch->grid_w : job->arch->grid_h))
                continue;
            sched_model *ms[2] = {&x->models[la][i], &x->models[lb][j]};
            solve_problem *q = LM_NEW(x->ar, solve_problem);
            joint(q, ms, 2, x->s, x->ar);
            solve_problem p;
            int64_t *pinned = problem_copy(&p, q, fix);
            int cut = -1;
            /* the bound from what is known, tightened by each fused pair solved */
            int64_t bound = kn ? known_bound(kn, btopk) : -1;
            if (bound >= 0)
                bound -= others;
            if (bound >= 0) {
                cut = p.ncons;
                p.cons[p.ncons++] = (solve_constraint){sym_sub(x->s, p.objective, sym_const(x->s, bound)),
                                                       "(bound from better candidates)"};
            }
            solve_solution *sols = lm_xcalloc((size_t)topk, sizeof *sols);
            int nsol = 0;
            solve_stats st;
            lm_buf why = {0};
            solve_status stt = solve_one(x, &p, topk, sols, &nsol, &st, &why);
            x->r->nodes += st.nodes;
            x->r->combos++;
            if (stt == SOLVE_ERROR) {
                lm_error_plain(x->d, "%s of the fused candidates '%s' and '%s'%s: %s",
                               x->o && x->o->mzn_solver ? "MiniZinc on the model" : "the model",
                               job->cands[la].c[i].label, job->cands[lb].c[j].label,
                               x->o && x->o->mzn_solver ? "" : " cannot be evaluated", lm_buf_str(&why));
                x->failed = true;
            }
            if (x->o && x->o->observe && !x->failed)
                x->o->observe(x->o->observe_ud, &(sched_solved){.launch = la, .cand = i, .sigma = sigma, .launch2 = lb, .cand2 = j, .problem = &p,
                                                                  .status = stt, .sols = sols, .nsol = nsol});
            if (stt == SOLVE_LIMIT)
                x->r->limited++;
            tally(x, &p, &st, cut);
            if (nsol)
                x->r->feasible++;
            if (kn && nsol) {
                int c[SCHED_MAX_LAUNCHES];
                memcpy(c, cand, sizeof(int) * (size_t)kn->nl);
                c[la] = i;
                c[lb] = j;
                known_add(kn, sols[0].objective + others, c);
            }
            for (int k = 0; k < nsol; k++) {
                solved sv = {.launch = la, .cand = i, .sigma = sigma, .rank = k, .launch2 = lb, .cand2 = j, .prob = q,
                             .sol = sols[k]};
                sv.sol.values = LM_NEWN(x->ar, int64_t, q->nvars ? q->nvars : 1);
                if (q->nvars)
                    memcpy(sv.sol.values, sols[k].values, sizeof(int64_t) * (size_t)q->nvars);
                sv.path = path_at(x, ms, 2, q, sv.sol.values);
                LM_PUSH(out, sv);
            }
            solve_free_solutions(sols, nsol);
            free(sols);
            solve_free_stats(&st);
            lm_buf_free(&why);
            free(p.vars);
            free(p.cons);
            free(pinned);
        }
}


/* A choice from one solved problem per launch (a fused pair's solution
 * stands for both of its launches). */
static sched_choice make_choice(selctx *x, const solved *const *parts)
{
    sched_job *job = x->job;
    int nl = job->nlaunches;
    sched_choice ch;
    memset(&ch, 0, sizeof ch);
    sched_model *ms[SCHED_MAX_LAUNCHES];
    for (int l = 0; l < nl; l++) {
        ch.cand[l] = parts[l]->launch2 == l ? parts[l]->cand2 : parts[l]->cand;
        ch.m[l] = ms[l] = &x->models[l][ch.cand[l]];
    }
    if (nl == 1) {
        ch.problem = ms[0]->problem;
        ch.sol = parts[0]->sol;
        ch.path = parts[0]->path;
    } else {
        joint(&ch.problem, ms, nl, x->s, x->ar);
        ch.sol.values = LM_NEWN(x->ar, int64_t, ch.problem.nvars ? ch.problem.nvars : 1);
        for (int v = 0; v < ch.problem.nvars; v++)
            for (int l = 0; l < nl; l++)
                for (int w = 0; w < parts[l]->prob->nvars; w++)
                    if (parts[l]->prob->vars[w].var == ch.problem.vars[v].var)
                        ch.sol.values[v] = parts[l]->sol.values[w];
        for (int l = 0; l < nl; l++) {
            if (parts[l]->launch2 == l)
                continue; /* counted with its producer */
            ch.sol.objective += parts[l]->sol.objective;
            ch.path += parts[l]->path;
            for (int t = 0; t < SOLVE_MAX_TIEBREAK; t++)
                ch.sol.tiebreak[t] += parts[l]->sol.tiebreak[t];
        }
    }
    ch.cycles = ch.sol.objective;
    ch.rank_in_candidate = parts[0]->rank + 1000 * parts[0]->sigma;
    return ch;
}

bool sched_select(sched_result *r, sched_job *job, const sched_select_opts *o, sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    memset(r, 0, sizeof *r);
    int nl = job->nlaunches;
    int topk = o && o->top_k > 0 ? o->top_k : 1;
    selctx x = {.job = job, .o = o, .s = s, .ar = ar, .d = d, .r = r};
    for (int l = 0; l < nl; l++) {
        r->enumerated += job->cands[l].enumerated;
        r->legal += job->cands[l].legal;
        r->pruned += job->cands[l].pruned;
        if (job->cands[l].n == 0) {
            lm_error_plain(d, "no mapping candidate for kernel '%s'", job->k[l]->name);
            return false;
        }
    }

    /* MiniZinc and the solver are there (a clear error now rather than one
       per candidate) */
    if (o && o->mzn_solver) {
        lm_buf out = {0}, why = {0};
        bool ok = mzn_run("solve satisfy;\n", o->mzn_solver, o->minizinc, NULL, &out, &why);
        r->mzn_runs++;
        if (!ok)
            lm_error_plain(d, "--solver minizinc:%s: %s", o->mzn_solver, lm_buf_str(&why));
        lm_buf_free(&out);
        lm_buf_free(&why);
        if (!ok)
            return false;
    }

    /* the models of every surviving candidate of every launch */
    for (int l = 0; l < nl; l++) {
        const char *prefix = sched_launch_prefix(job, l, ar);
        x.models[l] = LM_NEWN(ar, sched_model, job->cands[l].n);
        for (int i = 0; i < job->cands[l].n; i++) {
            const sched_candidate *c = &job->cands[l].c[i];
            bool ok;
            if (c->fuse == SCHED_FUSE_NONE) {
                ok = sched_model_build(&x.models[l][i], job->k[l], c, job->arch, job->bound, prefix, s, ar, d);
            } else {
                /* a partner it pairs with gives the other kernel's placement */
                const sched_fusion *f = NULL;
                for (int u = 0; u < job->nfusions; u++)
                    if (job->fusion[u].producer == l || job->fusion[u].consumer == l)
                        f = &job->fusion[u];
                LM_ASSERT(f);
                int other = f->producer == l ? f->consumer : f->producer;
                const sched_candidate *oc = NULL;
                for (int j = 0; j < job->cands[other].n && !oc; j++) {
                    const sched_candidate *t = &job->cands[other].c[j];
                    if (other == f->consumer ? sched_fused_pair(f, c, t) : sched_fused_pair(f, t, c))
                        oc = t;
                }
                LM_ASSERT(oc);
                ok = sched_model_build_fused(&x.models[l][i], job->k[l], c, f, job->k[other], oc,
                                             sched_launch_prefix(job, other, ar), job->arch, job->bound,
                                             prefix, s, ar, d);
            }
            if (!ok)
                return false;
        }
    }

    /* variables several launches share (free constexprs), with their domains */
    solve_var shared[SCHED_MAX_VARS];
    int nshared = 0;
    for (int l = 0; l < nl; l++)
        for (int i = 0; i < x.models[l][0].problem.nvars; i++) {
            const solve_var *v = &x.models[l][0].problem.vars[i];
            bool other = false, seen = false;
            for (int m = 0; m < nl; m++)
                for (int j = 0; m != l && j < x.models[m][0].problem.nvars; j++)
                    other |= x.models[m][0].problem.vars[j].var == v->var;
            for (int j = 0; j < nshared; j++)
                seen |= shared[j].var == v->var;
            if (other && !seen && nshared < SCHED_MAX_VARS)
                shared[nshared++] = *v;
        }
    int64_t nsigma = 1;
    for (int i = 0; i < nshared; i++)
        nsigma *= shared[i].ndomain;
    if (nsigma > 4096) {
        lm_error_plain(d, "the launches share constexprs with %lld combinations of values: too many to solve",
                       (long long)nsigma);
        return false;
    }

    solved_vec sols = {0};
    LM_VEC(sched_choice) all = {0};
    for (int64_t sg = 0; sg < nsigma && !x.failed; sg++) {
        sym_env fix = {0};
        int64_t rest = sg;
        for (int i = nshared - 1; i >= 0; i--) {
            sym_env_set(&fix, shared[i].var, shared[i].domain[rest % shared[i].ndomain]);
            rest /= shared[i].ndomain;
        }
        size_t first[SCHED_MAX_LAUNCHES + 1], ffirst[SCHED_MAX_LAUNCHES + 1];
        for (int l = 0; l < nl && !x.failed; l++) {
            first[l] = sols.len;
            solve_launch(&x, l, nshared ? &fix : NULL, (int)sg, nl == 1 ? topk : 1, &sols);
        }
        first[nl] = sols.len;
        /* each launch's two best candidates at this sigma (pointers into
           sols, taken once the fused problems have been appended) */
        size_t b2[SCHED_MAX_LAUNCHES][2];
        int nb[SCHED_MAX_LAUNCHES];
        for (int l = 0; l < nl; l++) {
            nb[l] = 0;
            for (size_t i = first[l]; i < first[l + 1]; i++) {
                if (nb[l] < 2) {
                    b2[l][nb[l]++] = i;
                } else if (solved_before(&sols.items[i], &sols.items[b2[l][1]])) {
                    b2[l][1] = i;
                }
                if (nb[l] == 2 && solved_before(&sols.items[b2[l][1]], &sols.items[b2[l][0]])) {
                    size_t t = b2[l][0];
                    b2[l][0] = b2[l][1];
                    b2[l][1] = t;
                }
            }
        }
        for (int u = 0; u < job->nfusions && !x.failed; u++) {
            /* fused pairs get the bound from better combinations too; the
               other launches come at their best of this sigma */
            known kn;
            const sched_fusion *f = &job->fusion[u];
            bool cut = !(o && o->no_cut);
            int64_t others = 0;
            int cand[SCHED_MAX_LAUNCHES] = {0};
            for (int l = 0; l < nl; l++)
                if (l != f->producer && l != f->consumer && nb[l]) {
                    others += sols.items[b2[l][0]].sol.objective;
                    cand[l] = sols.items[b2[l][0]].cand;
                }
            if (cut) {
                const solved *bp[SCHED_MAX_LAUNCHES][2];
                for (int l = 0; l < nl; l++)
                    for (int i = 0; i < nb[l]; i++)
                        bp[l][i] = &sols.items[b2[l][i]];
                known_init(&kn, all.items, all.len, (const solved *const(*)[2])bp, nb, nl);
            }
            ffirst[u] = sols.len;
            solve_fused(&x, f, nshared ? &fix : NULL, (int)sg, 1, cut ? &kn : NULL, others, cand, topk, &sols);
            if (cut)
                known_free(&kn);
        }
        ffirst[job->nfusions] = sols.len;
        sym_env_free(&fix);
        if (x.failed)
            break;
        /* combinations: for one launch every solution; for several, each
           launch's two best candidates at this sigma */
        if (nl == 1) {
            for (size_t i = first[0]; i < first[1]; i++) {
                const solved *p[1] = {&sols.items[i]};
                LM_PUSH(&all, make_choice(&x, p));
            }
            continue;
        }
        const solved *best2[SCHED_MAX_LAUNCHES][2];
        bool any = true;
        for (int l = 0; l < nl; l++) {
            for (int i = 0; i < nb[l]; i++)
                best2[l][i] = &sols.items[b2[l][i]];
            any &= nb[l] > 0;
        }
        /* per unit (a launch, or a fusable pair): its options, each one
           solved problem per launch it covers */
        typedef struct option {
            const solved *p[2];
        } option;
        option opts[SCHED_MAX_LAUNCHES][8];
        int nopt[SCHED_MAX_LAUNCHES], ul[SCHED_MAX_LAUNCHES], nu = 0;
        for (int l = 0; l < nl; l++) {
            int fu = -1;
            for (int u = 0; u < job->nfusions; u++)
                if (job->fusion[u].producer == l)
                    fu = u;
            int k = nu++;
            ul[k] = l;
            nopt[k] = 0;
            if (fu < 0) {
                for (int i = 0; i < nb[l]; i++)
                    opts[k][nopt[k]++] = (option){{best2[l][i], NULL}};
                continue;
            }
            for (int i = 0; i < nb[l]; i++)
                for (int j = 0; j < nb[l + 1]; j++)
                    opts[k][nopt[k]++] = (option){{best2[l][i], best2[l + 1][j]}};
            /* the fused pair's two best */
            const solved *fb[2] = {NULL, NULL};
            for (size_t i = ffirst[fu]; i < ffirst[fu + 1]; i++) {
                const solved *sv = &sols.items[i];
                if (!fb[0] || solved_before(sv, fb[0])) {
                    fb[1] = fb[0];
                    fb[0] = sv;
                } else if (!fb[1] || solved_before(sv, fb[1])) {
                    fb[1] = sv;
                }
            }
            for (int i = 0; i < 2; i++)
                if (fb[i])
                    opts[k][nopt[k]++] = (option){{fb[i], fb[i]}};
            l++;
        }
        bool anyu = true;
        for (int k = 0; k < nu; k++)
            anyu &= nopt[k] > 0;
        if (!anyu)
            continue;
        (void)any;
        int idx[SCHED_MAX_LAUNCHES] = {0};
        for (;;) {
            const solved *p[SCHED_MAX_LAUNCHES];
            for (int k = 0; k < nu; k++) {
                p[ul[k]] = opts[k][idx[k]].p[0];
                if (opts[k][idx[k]].p[1])
                    p[ul[k] + 1] = opts[k][idx[k]].p[1];
            }
            LM_PUSH(&all, make_choice(&x, p));
            int k = nu - 1;
            while (k >= 0 && ++idx[k] == nopt[k])
                idx[k--] = 0;
            if (k < 0)
                break;
        }
    }

    bool ok = !x.failed;
    if (ok && all.len == 0) {
        size_t w = 0;
        for (size_t j = 1; j < x.rnames.len; j++)
            if (x.rcounts.items[j] > x.rcounts.items[w])
                w = j;
        r->rejected = x.rnames.len ? x.rnames.items[w] : NULL;
        if (r->limited) {
            /* the search stopped before it found anything: say so, rather
               than blame a constraint that may not be the cause */
            int64_t limit = o && o->node_limit > 0 ? o->node_limit : SOLVE_DEFAULT_NODE_LIMIT;
            lm_error_plain(d,
                           "no schedule found: the solver's effort limit of %lld search node%s per candidate "
                           "problem was reached in %d of %d problems before any schedule was found; raise the "
                           "limit with --node-limit N (default %d)%s%s%s",
                           (long long)limit, limit == 1 ? "" : "s", r->limited, r->combos, (int)SOLVE_DEFAULT_NODE_LIMIT,
                           r->rejected ? "; the constraint that rejected most was '" : "",
                           r->rejected ? r->rejected : "", r->rejected ? "'" : "");
        } else if (r->rejected) {
            lm_error_plain(d,
                           "no schedule fits: no candidate could meet the constraint '%s' (%d candidate problems "
                           "solved)",
                           r->rejected, r->combos);
        } else {
            lm_error_plain(d, "no schedule fits: none of the %d candidate problems has a solution", r->combos);
        }
        ok = false;
    }
    if (ok) {
        sort_choices(all.items, all.len, nl);
        r->ntop = (int)LM_MIN(all.len, (size_t)topk);
        r->top = LM_NEWN(ar, sched_choice, r->ntop);
        memcpy(r->top, all.items, sizeof *r->top * (size_t)r->ntop);
        /* each combination of candidates once, at its best */
        r->bests = LM_NEWN(ar, sched_choice, all.len);
        for (size_t i = 0; i < all.len; i++) {
            bool seen = false;
            for (int j = 0; j < r->nbests && !seen; j++)
                seen = !memcmp(r->bests[j].cand, all.items[i].cand, sizeof(int) * (size_t)nl);
            if (!seen)
                r->bests[r->nbests++] = all.items[i];
        }
        r->cycles = r->top[0].cycles;
        sched_choice_schedules(job, &r->top[0], r->best, s);
    }
    LM_VEC_FREE(&sols);
    LM_VEC_FREE(&all);
    LM_VEC_FREE(&x.rnames);
    LM_VEC_FREE(&x.rcounts);
    return ok;
}

bool sched_close_call(int64_t best, int64_t other)
{
    return other >= best && (other - best) * 1000 <= best * SCHED_MODEL_ERROR_PERMILLE;
}

void sched_result_free(sched_result *r)
{
    for (int l = 0; l < SCHED_MAX_LAUNCHES; l++)
        sym_env_free(&r->best[l].values);
}

bool sched_choice_eval(const sched_job *job, const sched_choice *c, const sym_expr *e, int64_t *out)
{
    sym_env env = {0};
    for (int i = 0; i < c->problem.nvars; i++)
        sym_env_set(&env, c->problem.vars[i].var, c->sol.values[i]);
    for (int i = 0; job->bound && i < job->bound->n; i++)
        sym_env_set_range(&env, job->bound->b[i].var, job->bound->b[i].lo, job->bound->b[i].hi);
    sym_status st = sym_eval(e, &env, out);
    sym_env_free(&env);
    return st == SYM_OK;
}

void sched_launch_schedule(const sched_job *job, int l, const sched_model *m, const solve_problem *p,
                           const int64_t *values, sched_schedule *sc, sym_ctx *s)
{
    const sched_kernel *k = job->k[l];
    sym_env_free(&sc->values);
    memset(sc, 0, sizeof *sc);
    sc->k = k;
    sc->cand = *m->cand;
    sc->fidelity = k->fidelity;
    sc->fp32_acc = k->fp32_acc;
    sc->origin = "loomc";
    /* the solution by name: shared symbols as they are, this launch's
       without its prefix, other launches' left out */
    sym_env sol = {0};
    size_t pl = strlen(m->prefix);
    for (int i = 0; i < p->nvars; i++) {
        const char *name = p->vars[i].var->name;
        bool own = pl && !strncmp(name, m->prefix, pl);
        bool other = false;
        for (int j = 0; j < job->nlaunches && !own && job->nlaunches > 1; j++) {
            size_t n = strlen(job->k[j]->name);
            if (j != l && !strncmp(name, job->k[j]->name, n) && name[n] == '.')
                other = true;
        }
        if (!other)
            sym_env_set(&sol, own ? sym_var(s, name + pl) : p->vars[i].var, values[i]);
    }
    for (int i = 0; job->bound && i < job->bound->n; i++)
        sym_env_set_range(&sol, job->bound->b[i].var, job->bound->b[i].lo, job->bound->b[i].hi);
    /* in a fixed order: sizes and pinned constexprs (the spec's order), the
       free constexprs, the grid, the depths, the sub-block; a symbol the
       candidate does not vary is 1 */
    int64_t lo, hi;
    for (int i = 0; job->bound && i < job->bound->n; i++)
        sym_env_set_range(&sc->values, job->bound->b[i].var, job->bound->b[i].lo, job->bound->b[i].hi);
    for (int j = 0; j < job->nlaunches; j++)
        for (int i = 0; i < job->k[j]->nfree; i++) {
            const sym_expr *v = job->k[j]->frees[i].var;
            if (!sym_env_get(&sc->values, v, &lo, &hi) && sym_env_get(&sol, v, &lo, &hi))
                sym_env_set(&sc->values, v, lo);
        }
    const sym_expr *own[SCHED_MAX_BUFS + 4];
    int nown = 0;
    own[nown++] = sym_var(s, "grid.x");
    own[nown++] = sym_var(s, "grid.y");
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT)
            own[nown++] = k->bufs[i].depth;
    own[nown++] = sym_var(s, "sub.h");
    own[nown++] = sym_var(s, "sub.w");
    for (int i = 0; i < nown; i++)
        sym_env_set(&sc->values, own[i], sym_env_get(&sol, own[i], &lo, &hi) ? lo : 1);
    sym_env_free(&sol);
    /* this launch's own latency at the solution */
    sym_env env = {0};
    for (int i = 0; i < p->nvars; i++)
        sym_env_set(&env, p->vars[i].var, values[i]);
    for (int i = 0; job->bound && i < job->bound->n; i++)
        sym_env_set_range(&env, job->bound->b[i].var, job->bound->b[i].lo, job->bound->b[i].hi);
    int64_t cyc = -1;
    sc->predicted_cycles = sym_eval(m->cycles, &env, &cyc) == SYM_OK ? cyc : -1;
    sym_env_free(&env);
}

bool sched_schedule_model(const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym, lm_arena *ar,
                          sched_model *m, int64_t **values)
{
    if (l < 0 || l >= job->nlaunches || s->cand.fuse != SCHED_FUSE_NONE)
        return false;
    const char *prefix = sched_launch_prefix(job, l, ar);
    size_t np = strlen(prefix);
    lm_diag_capture quiet; /* an edit the model cannot price is no error: the run reports none */
    lm_diag_capture_begin(&quiet);
    bool built = sched_model_build(m, job->k[l], &s->cand, job->arch, job->bound, prefix, sym, ar, &quiet.d);
    lm_diag_capture_end(&quiet, ar);
    if (!built)
        return false;
    int64_t *v = LM_NEWN(ar, int64_t, m->problem.nvars ? m->problem.nvars : 1);
    for (int i = 0; i < m->problem.nvars; i++) {
        /* the schedule names a launch's own variables without the prefix */
        const char *name = m->problem.vars[i].var->name;
        int64_t hi;
        if (!(np && !strncmp(name, prefix, np) && sym_env_get(&s->values, sym_var(sym, name + np), &v[i], &hi)) &&
            !sym_env_get(&s->values, m->problem.vars[i].var, &v[i], &hi))
            return false;
    }
    *values = v;
    return true;
}

int64_t sched_reprice(const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym, lm_arena *ar)
{
    sched_model m;
    int64_t *values, cyc = -1;
    if (!sched_schedule_model(job, l, s, sym, ar, &m, &values))
        return -1;
    sym_env env = {0};
    for (int i = 0; i < s->values.n; i++)
        sym_env_set(&env, s->values.b[i].var, s->values.b[i].lo);
    for (int i = 0; i < m.problem.nvars; i++)
        sym_env_set(&env, m.problem.vars[i].var, values[i]);
    if (sym_eval(m.cycles, &env, &cyc) != SYM_OK)
        cyc = -1;
    sym_env_free(&env);
    return cyc;
}

int sched_solo_groups(sched_schedule *s, sym_ctx *sym)
{
    int64_t gx = 1, gy = 1, hi;
    if (!sym_env_get(&s->values, sym_var(sym, "grid.x"), &gx, &hi))
        gx = 1;
    if (!sym_env_get(&s->values, sym_var(sym, "grid.y"), &gy, &hi))
        gy = 1;
    const sched_candidate was = s->cand;
    int n = 0;
    for (int i = 0; i < s->cand.nops; i++) {
        sched_operand *o = &s->cand.ops[i];
        if (o->transport != SCHED_MCAST && o->transport != SCHED_FORWARD)
            continue;
        int64_t g = o->along == SCHED_ON_XY ? gx * gy : o->along == SCHED_ON_X ? gx : gy;
        if (g <= 1) {
            *o = (sched_operand){o->access, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
            n++;
        }
    }
    /* the other shared loads keep their NoCs (sched_load_noc alternates
       over the loads moved core to core) */
    for (int i = 0; n && i < s->cand.nops; i++)
        if (s->cand.ops[i].transport != SCHED_DRAM && sched_load_noc(&s->cand, i) != sched_load_noc(&was, i))
            s->cand.ops[i].noc = sched_load_noc(&was, i);
    return n;
}

void sched_choice_schedules(const sched_job *job, const sched_choice *c, sched_schedule *out, sym_ctx *s)
{
    for (int l = 0; l < job->nlaunches; l++)
        sched_launch_schedule(job, l, c->m[l], &c->problem, c->sol.values, &out[l], s);
}
