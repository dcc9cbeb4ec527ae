/* explain.c - why loomc chose this schedule, in the kernel's own names:
 * each symbol's value and what moving it one step in its domain would do
 * (which constraint it would break, or how many cycles it would cost), the
 * constraints with their slack (binding ones first), the latency terms at
 * the chosen values with the dominant stage of each level marked, and the
 * runner-up - the best schedule of another candidate - with the terms where
 * it loses. Everything printed is computed from the model and the solution;
 * nothing here decides.
 */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

/* An environment holding a choice's solution and the job's bound symbols. */
static void choice_env(const sched_job *job, const sched_choice *c, sym_env *env)
{
    for (int i = 0; i < c->problem.nvars; i++)
        sym_env_set(env, c->problem.vars[i].var, c->sol.values[i]);
    for (int i = 0; job->bound && i < job->bound->n; i++)
        sym_env_set_range(env, job->bound->b[i].var, job->bound->b[i].lo, job->bound->b[i].hi);
}

static bool eval_in(const sym_expr *e, const sym_env *env, int64_t *out) { return sym_eval(e, env, out) == SYM_OK; }

/* The first constraint violated under env (NULL when all hold). */
static const solve_constraint *violated(const solve_problem *p, const sym_env *env)
{
    for (int i = 0; i < p->ncons; i++) {
        int64_t v;
        if (!eval_in(p->cons[i].expr, env, &v) || v > 0)
            return &p->cons[i];
    }
    return NULL;
}

bool sched_job_flops(const sched_job *job, const sched_choice *c, double *out)
{
    double total = 0;
    sym_env e2 = {0};
    choice_env(job, c, &e2);
    bool ok = true;
    for (int l = 0; l < job->nlaunches && ok; l++) {
        const sched_kernel *k = job->k[l];
        double progs = 1;
        for (int g = 0; g < k->f->grid_rank; g++) {
            int64_t n;
            if (!eval_in(k->f->grid[g], &e2, &n) || n < 1) {
                ok = false;
                break;
            }
            progs *= (double)n;
            /* bind pid.g to the middle program */
            const sym_expr *pv = NULL;
            for (const tir_op *op = k->f->body->first; op; op = op->next)
                if (op->code == TIR_PROGRAM_ID && op->ival == g)
                    pv = op->results[0]->sym;
            if (pv)
                sym_env_set(&e2, pv, (n - 1) / 2);
        }
        int64_t fl;
        if (!ok || !eval_in(k->flops, &e2, &fl)) {
            ok = false;
            break;
        }
        total += progs * (double)fl;
    }
    sym_env_free(&e2);
    *out = total;
    return ok;
}

/* ---- values ------------------------------------------------------------- */

/* grid.x or grid.y, a launch's own (with its prefix) or not. */
static bool grid_var(const char *name)
{
    size_t n = strlen(name);
    return n >= 6 && (!strcmp(name + n - 6, "grid.x") || !strcmp(name + n - 6, "grid.y"));
}

static void explain_values(lm_buf *b, const sched_job *job, const sched_choice *c)
{
    const solve_problem *p = &c->problem;
    lm_buf_puts(b, "values (and what one step either way in the domain would do):\n");
    sym_env env = {0};
    choice_env(job, c, &env);
    for (int i = 0; i < p->nvars; i++) {
        const solve_var *v = &p->vars[i];
        int64_t val = c->sol.values[i];
        int pos = 0;
        while (pos < v->ndomain && v->domain[pos] != val)
            pos++;
        lm_buf_printf(b, "  %-22s = %-6lld", v->var->name, (long long)val);
        bool any = false;
        for (int dir = -1; dir <= 1; dir += 2) {
            int np = pos + dir;
            if (np < 0 && v->ndomain && v->domain[0] == 2 && grid_var(v->var->name)) {
                /* the model's grid keeps two cores in a multicast's group */
                lm_buf_puts(b, any ? "; " : "  (");
                any = true;
                lm_buf_puts(b, "1: a load shared along it needs two cores (from DRAM it is another candidate)");
                continue;
            }
            if (np < 0 || np >= v->ndomain)
                continue;
            int64_t alt = v->domain[np];
            sym_env_set(&env, v->var, alt);
            const solve_constraint *bad = violated(p, &env);
            int64_t obj;
            lm_buf_puts(b, any ? "; " : "  (");
            any = true;
            if (bad)
                lm_buf_printf(b, "%lld breaks '%s'", (long long)alt, bad->name);
            else if (eval_in(p->objective, &env, &obj))
                lm_buf_printf(b, "%lld: %+lld cycles", (long long)alt, (long long)(obj - c->sol.objective));
            else
                lm_buf_printf(b, "%lld: not evaluable", (long long)alt);
            sym_env_set(&env, v->var, val);
        }
        if (!any)
            lm_buf_puts(b, "  (the only value of its domain");
        lm_buf_puts(b, ")\n");
    }
    sym_env_free(&env);
}

/* ---- constraints ------------------------------------------------------ */

static void explain_constraints(lm_buf *b, const sched_job *job, const sched_choice *c)
{
    const solve_problem *p = &c->problem;
    sym_env env = {0};
    choice_env(job, c, &env);
    int64_t *slack = lm_xcalloc((size_t)(p->ncons ? p->ncons : 1), sizeof *slack);
    int *order = lm_xcalloc((size_t)(p->ncons ? p->ncons : 1), sizeof *order);
    for (int i = 0; i < p->ncons; i++) {
        int64_t v = 0;
        eval_in(p->cons[i].expr, &env, &v);
        slack[i] = -v;
        order[i] = i;
    }
    /* binding first: by slack, then problem order */
    for (int i = 1; i < p->ncons; i++) {
        int x = order[i], j = i - 1;
        while (j >= 0 && slack[order[j]] > slack[x])
            order[j + 1] = order[j], j--;
        order[j + 1] = x;
    }
    lm_buf_puts(b, "constraints (slack at these values; 0 = binding):\n");
    if (!p->ncons)
        lm_buf_puts(b, "  none\n");
    for (int i = 0; i < p->ncons; i++) {
        const solve_constraint *k = &p->cons[order[i]];
        lm_buf_printf(b, "  %-58s slack %lld%s\n", k->name, (long long)slack[order[i]],
                      slack[order[i]] == 0 ? "  (binding)" : "");
    }
    free(slack);
    free(order);
    sym_env_free(&env);
}

/* ---- latency terms ---------------------------------------------------- */

static int64_t term_value(const sym_env *env, const sched_term *t)
{
    int64_t v = -1;
    eval_in(t->cycles, env, &v);
    return v;
}

static void explain_terms(lm_buf *b, const sched_job *job, const sched_choice *c, lm_arena *ar)
{
    sym_env env = {0};
    choice_env(job, c, &env);
    for (int l = 0; l < job->nlaunches; l++) {
        const sched_model *m = c->m[l];
        const sched_kernel *k = m->k;
        lm_buf_printf(b, "latency of %s (cycles at these values; per execution of each level):\n", k->name);
        /* levels innermost first, as the model nests them */
        for (int lev = k->nloops; lev >= 0; lev--) {
            int64_t stage[3] = {0, 0, 0}; /* read, compute, write */
            bool present = false;
            for (int i = 0; i < m->nterms; i++) {
                const sched_term *t = &m->terms[i];
                if (t->level != lev)
                    continue;
                present = true;
                int64_t v = term_value(&env, t);
                if (t->kind == SCHED_T_READ || t->kind == SCHED_T_WRITE)
                    stage[t->writer ? 2 : 0] += v;
                else if (t->kind == SCHED_T_COMPUTE)
                    stage[1] += v;
            }
            if (!present)
                continue;
            int top = 0;
            for (int s = 1; s < 3; s++)
                if (stage[s] > stage[top])
                    top = s;
            static const char *const stname[3] = {"reader", "compute", "writer"};
            lm_buf_printf(b, "  %s:\n", sched_level_name(k, lev, ar));
            for (int i = 0; i < m->nterms; i++) {
                const sched_term *t = &m->terms[i];
                if (t->level != lev)
                    continue;
                int64_t v = term_value(&env, t);
                if (t->plain && v == t->plain)
                    continue;
                const char *indent = t->kind == SCHED_T_DETAIL ? "      " : "    ";
                lm_buf_printf(b, "%s%-40s %lld\n", indent, t->name, (long long)v);
            }
            lm_buf_printf(b, "    stages: reader %lld, compute %lld, writer %lld: %s-bound\n", (long long)stage[0],
                          (long long)stage[1], (long long)stage[2], stname[top]);
        }
        int64_t total = 0, bound = 0, launch = 0, core = 0;
        for (int i = 0; i < m->nterms; i++) {
            const sched_term *t = &m->terms[i];
            int64_t v = term_value(&env, t);
            if (t->kind == SCHED_T_BOUND)
                bound = v;
            else if (t->kind == SCHED_T_FIXED)
                launch = v;
            else if (t->kind == SCHED_T_TOTAL)
                total = v;
            else if (t->kind == SCHED_T_LEVEL && t->level == 0)
                core = v;
        }
        if (m->cand->fuse == SCHED_FUSE_CONSUMER)
            lm_buf_printf(b, "  fused into %s's program (no launch of its own): busiest reducer core %lld; DRAM "
                             "bandwidth bound %lld\n",
                          job->k[l > 0 ? l - 1 : 0]->name, (long long)core, (long long)bound);
        else
            lm_buf_printf(b, "  launch: kernel launch %lld + busiest core %lld = %lld; DRAM bandwidth bound %lld + %lld\n",
                          (long long)launch, (long long)core, (long long)(launch + core), (long long)launch,
                          (long long)bound);
        lm_buf_printf(b, "  total %lld: %s\n", (long long)total,
                      launch + core >= launch + bound ? "the per-core path dominates"
                                                      : "shared DRAM bandwidth dominates");
    }
    sym_env_free(&env);
}

/* ---- runner-up --------------------------------------------------------- */

/* The loads behind a choice's critical path (sched_model.path), in words:
 * the load with the most transfers in sequence of each launch. */
static const char *path_why(const sched_job *job, const sched_choice *c, lm_arena *ar)
{
    sym_env env = {0};
    choice_env(job, c, &env);
    lm_buf t = {0};
    for (int l = 0; l < job->nlaunches; l++) {
        const sched_model *m = c->m[l];
        const sched_candidate *cd = m->cand;
        int64_t most = -1, gx = 1, gy = 1;
        eval_in(m->gx, &env, &gx);
        eval_in(m->gy, &env, &gy);
        const char *what = NULL;
        for (int i = 0; i < cd->nops; i++) {
            const sched_operand *o = &cd->ops[i];
            int64_t g = o->along == SCHED_ON_XY ? gx * gy : o->along == SCHED_ON_X ? gx : gy, n = 1;
            const char *how = "read from DRAM";
            if (o->transport == SCHED_FORWARD) {
                n = g;
                how = lm_arena_printf(ar, "forwarded along %lld cores: the read and %lld sends", (long long)g,
                                      (long long)(g - 1));
            } else if (o->transport == SCHED_MCAST) {
                n = 1 + LM_MIN(g - 1, o->interior_sender ? 2 : 1);
                how = n == 3   ? "multicast from an interior sender: the read and one multicast to each side"
                      : n == 2 ? "multicast: the read and one multicast"
                               : "multicast to no other core: the read";
            } else if (o->transport == SCHED_FUSED) {
                how = "sent by its producer";
            }
            if (n > most) {
                most = n;
                what = lm_arena_printf(ar, "%s %s", c->m[l]->k->acc->acc[o->access].tensor->name, how);
            }
        }
        if (what)
            lm_buf_printf(&t, "%s%s%s%s", t.len ? "; " : "", job->nlaunches > 1 ? job->k[l]->name : "",
                          job->nlaunches > 1 ? ": " : "", what);
    }
    sym_env_free(&env);
    const char *r = lm_arena_strdup(ar, t.len ? lm_buf_str(&t) : "no loads");
    lm_buf_free(&t);
    return r;
}

/* When the runner-up's prediction is within the model's error of the
 * chosen one's (SCHED_MODEL_ERROR_PERMILLE), the choice is close: say so,
 * and how many other mappings are that close. */
static void explain_close_call(lm_buf *b, const sched_job *job, const sched_result *r, const sched_choice *w,
                               const sched_choice *ru)
{
    if (!sched_close_call(w->cycles, ru->cycles))
        return;
    int others = 0;
    for (int i = 0; i < r->nbests; i++)
        others += memcmp(r->bests[i].cand, w->cand, sizeof(int) * (size_t)job->nlaunches) &&
                  sched_close_call(w->cycles, r->bests[i].cycles);
    lm_buf_printf(b,
                  "  a close choice: the runner-up is within the model's error (%d%%) of the chosen schedule, so "
                  "the model cannot be trusted to order the two (docs/scheduler.md, \"Model quality\"); %d "
                  "mapping%s other than the chosen one %s that close (--top K lists the K best schedules)\n",
                  SCHED_MODEL_ERROR_PERMILLE / 10, others, others == 1 ? "" : "s", others == 1 ? "is" : "are");
}

static void explain_runner_up(lm_buf *b, const sched_job *job, const sched_result *r, lm_arena *ar)
{
    const sched_choice *w = &r->top[0];
    const sched_choice *ru = NULL;
    for (int i = 0; i < r->nbests && !ru; i++)
        if (memcmp(r->bests[i].cand, w->cand, sizeof(int) * (size_t)job->nlaunches))
            ru = &r->bests[i];
    lm_buf_puts(b, "runner-up:\n");
    if (!ru) {
        lm_buf_puts(b, "  none: no other candidate has a feasible schedule within the bound\n");
        return;
    }
    for (int l = 0; l < job->nlaunches; l++)
        lm_buf_printf(b, "  %s: %s\n", job->k[l]->name, ru->m[l]->cand->label);
    lm_buf_puts(b, "   ");
    for (int i = 0; i < ru->problem.nvars; i++)
        lm_buf_printf(b, " %s=%lld", ru->problem.vars[i].var->name, (long long)ru->sol.values[i]);
    lm_buf_putc(b, '\n');
    int64_t d = ru->cycles - w->cycles;
    if (d > 0) {
        lm_buf_printf(b, "  predicted %lld cycles: %lld more (+%.1f%%)\n", (long long)ru->cycles, (long long)d,
                      100.0 * (double)d / (double)(w->cycles ? w->cycles : 1));
    } else if (ru->path != w->path) {
        lm_buf_printf(b,
                      "  predicted %lld cycles, a tie; broken by the critical path: a block of the chosen schedule "
                      "goes through at most %lld transfers in sequence before its last core has it, of the "
                      "runner-up %lld (%s)\n",
                      (long long)ru->cycles, (long long)w->path, (long long)ru->path, path_why(job, ru, ar));
    } else {
        static const char *const tb[SOLVE_MAX_TIEBREAK] = {"DRAM traffic", "cycles exposed by single buffers",
                                                           "L1 use", "handshakes", "engine busy cycles"};
        int t = 0;
        while (t < SOLVE_MAX_TIEBREAK && ru->sol.tiebreak[t] == w->sol.tiebreak[t])
            t++;
        if (t < SOLVE_MAX_TIEBREAK)
            lm_buf_printf(b, "  predicted %lld cycles, a tie; it loses on %s (%lld vs %lld)\n", (long long)ru->cycles,
                          tb[t], (long long)ru->sol.tiebreak[t], (long long)w->sol.tiebreak[t]);
        else
            lm_buf_printf(b, "  predicted %lld cycles, a tie on every tie-break; the chosen one comes first in "
                             "enumeration order\n",
                          (long long)ru->cycles);
    }
    explain_close_call(b, job, r, w, ru);
    /* where it loses: terms of the same name and level, largest increase first */
    sym_env ew = {0}, er = {0};
    choice_env(job, w, &ew);
    choice_env(job, ru, &er);
    typedef struct diff {
        const char *what;
        int64_t a, b;
    } diff;
    diff ds[SCHED_MAX_LAUNCHES * SCHED_MAX_TERMS];
    int nd = 0;
    for (int l = 0; l < job->nlaunches; l++) {
        const sched_model *mw = w->m[l], *mr = ru->m[l];
        for (int i = 0; i < mr->nterms; i++) {
            const sched_term *tr = &mr->terms[i];
            if (tr->kind == SCHED_T_COUNT || tr->kind == SCHED_T_TOTAL || tr->kind == SCHED_T_FIXED)
                continue;
            int64_t vr = term_value(&er, tr), vw = 0;
            bool found = false;
            for (int j = 0; j < mw->nterms && !found; j++)
                if (mw->terms[j].level == tr->level && mw->terms[j].kind == tr->kind &&
                    !strcmp(mw->terms[j].name, tr->name)) {
                    vw = term_value(&ew, &mw->terms[j]);
                    found = true;
                }
            if (vr == vw || (d > 0 && vr < vw))
                continue;
            const char *what = tr->level < 0 || (tr->kind == SCHED_T_LEVEL && tr->level == 0)
                                   ? tr->name
                                   : lm_arena_printf(ar, "%s, %s", sched_level_name(mr->k, tr->level, ar), tr->name);
            if (job->nlaunches > 1)
                what = lm_arena_printf(ar, "%s: %s", mr->k->name, what);
            ds[nd++] = (diff){what, vw, vr};
        }
    }
    /* largest difference first (stable) */
    for (int i = 1; i < nd; i++) {
        diff x = ds[i];
        int j = i - 1;
        while (j >= 0 && llabs(ds[j].b - ds[j].a) < llabs(x.b - x.a))
            ds[j + 1] = ds[j], j--;
        ds[j + 1] = x;
    }
    if (nd)
        lm_buf_puts(b, d > 0 ? "  where it is slower (chosen -> runner-up, cycles):\n"
                             : "  where the two differ (chosen -> runner-up, cycles):\n");
    for (int i = 0; i < nd && i < 4; i++)
        lm_buf_printf(b, "    %-52s %lld -> %lld\n", ds[i].what, (long long)ds[i].a, (long long)ds[i].b);
    sym_env_free(&ew);
    sym_env_free(&er);
}

/* A fused pair of the choice: which launches, what passes between them,
 * and where the consumer runs. */
static void explain_fusion(lm_buf *b, const sched_job *job, const sched_choice *c)
{
    sym_env env = {0};
    choice_env(job, c, &env);
    for (int u = 0; u < job->nfusions; u++) {
        const sched_fusion *f = &job->fusion[u];
        const sched_candidate *pa = c->m[f->producer]->cand, *pb = c->m[f->consumer]->cand;
        if (pa->fuse != SCHED_FUSE_PRODUCER || pb->fuse != SCHED_FUSE_CONSUMER)
            continue;
        const sched_kernel *ka = job->k[f->producer], *kb = job->k[f->consumer];
        int64_t np = 0, nq = 1;
        eval_in(ka->f->grid[f->gather_axis], &env, &np);
        for (int g = 0; g < kb->f->grid_rank; g++) {
            int64_t e = 1;
            if (f->key_of[g] < 0 && eval_in(kb->f->grid[g], &env, &e))
                nq *= e;
        }
        int64_t per = 0; /* consumer programs on the busiest reducer */
        const sched_model *mb = c->m[f->consumer];
        for (int i = 0; i < mb->nterms; i++)
            if (mb->terms[i].kind == SCHED_T_COUNT && mb->terms[i].level == 0)
                eval_in(mb->terms[i].cycles, &env, &per);
        lm_buf_printf(b, "fused: %s and %s run as one program. A group (one value of their key axes) has its %lld "
                         "programs of %s on one %s of cores; each sends its",
                      ka->name, kb->name, (long long)np, ka->name, pa->fuse_along == SCHED_ON_X ? "row" : "column");
        for (int t = 0; t < f->nt; t++)
            lm_buf_printf(b, "%s %s", t ? (t + 1 == f->nt ? " and" : ",") : "", f->t[t].tensor->name);
        lm_buf_printf(b, " blocks over the NoC, row by row, to the cores of its %s, which deal the %lld programs of "
                         "%s of each group round-robin (at most %lld on a core) and run them after all their own: no "
                         "DRAM round trip, no second launch\n",
                      pa->fuse_along == SCHED_ON_X ? "row" : "column", (long long)nq, kb->name, (long long)per);
    }
    sym_env_free(&env);
}

void sched_explain(lm_buf *b, const sched_job *job, const sched_result *r, sym_ctx *s, lm_arena *ar)
{
    sched_explain_choice(b, job, &r->top[0], s, ar);
    explain_runner_up(b, job, r, ar);
}

void sched_explain_choice(lm_buf *b, const sched_job *job, const sched_choice *w, sym_ctx *s, lm_arena *ar)
{
    explain_fusion(b, job, w);
    for (int l = 0; l < job->nlaunches; l++) {
        const sched_kernel *k = job->k[l];
        lm_buf_printf(b, "kernel %s: %s math, Dst %s accumulation (%d tiles per half)\n", k->name,
                      arch_fidelity_name(k->fidelity), k->fp32_acc ? "fp32" : "16-bit",
                      k->fp32_acc ? job->arch->dst_tiles_half_32b : job->arch->dst_tiles_half_16b);
        /* buffers and their L1 slots at the chosen values */
        sym_env env = {0};
        choice_env(job, w, &env);
        const sched_model *m = w->m[l];
        int64_t l1 = 0;
        eval_in(m->l1_bytes, &env, &l1);
        const sched_fusion *fz = NULL;
        for (int u = 0; u < job->nfusions && m->cand->fuse == SCHED_FUSE_CONSUMER; u++)
            if (job->fusion[u].consumer == l && job->fusion[u].l1)
                fz = &job->fusion[u];
        if (k->l1 || fz) {
            /* the lowering's CBs (sched_lower_l1), this launch's variables
               unprefixed; a reducer core's (sched_lower_l1_fused) are in the
               job's variables, with the consumer programs it runs */
            size_t pl = strlen(m->prefix);
            for (int i = 0; pl && !fz && i < w->problem.nvars; i++) {
                const char *nm = w->problem.vars[i].var->name;
                if (!strncmp(nm, m->prefix, pl))
                    sym_env_set(&env, sym_var(s, nm + pl), w->sol.values[i]);
            }
            const sched_l1_plan *plans = fz ? fz->l1 : k->l1;
            int nplans = fz ? fz->nl1 : k->nl1;
            if (fz) {
                int64_t per = 0;
                for (int i = 0; i < m->nterms; i++)
                    if (m->terms[i].kind == SCHED_T_COUNT && m->terms[i].level == 0)
                        eval_in(m->terms[i].cycles, &env, &per);
                sym_env_set(&env, sym_var(s, SCHED_FUSED_PROGRAMS), per);
            }
            const sched_l1_plan *pn = &plans[0];
            for (int i = 0; i < nplans; i++) {
                int64_t on = 0;
                if (eval_in(plans[i].when, &env, &on) && on)
                    pn = &plans[i];
            }
            int used = 0;
            for (int i = 0; i < pn->ncbs; i++) {
                int64_t most = 0;
                for (int u = 0; u < pn->cbs[i].nuses; u++) {
                    int64_t v = 0;
                    eval_in(pn->cbs[i].uses[u].bytes, &env, &v);
                    most = LM_MAX(most, v);
                }
                used += most > 0;
            }
            lm_buf_printf(b, "  L1%s: %lld of %lld usable bytes in %d CBs (values never live at once share one)\n",
                          fz ? lm_arena_printf(ar, " of a reducer core (both kernels' CBs, %s's marked *)", k->name)
                             : "",
                          (long long)l1, (long long)arch_usable_l1(job->arch), used);
            for (int i = 0; i < pn->ncbs; i++) {
                const sched_l1_cb *cb = &pn->cbs[i];
                lm_buf tmp = {0};
                int64_t most = 0;
                for (int u = 0; u < cb->nuses; u++) {
                    int64_t v = 0;
                    eval_in(cb->uses[u].bytes, &env, &v);
                    most = LM_MAX(most, v);
                    if (v > 0)
                        lm_buf_printf(&tmp, "%s%s%s %lld B", tmp.len ? ", " : "", fz && cb->uses[u].launch ? "*" : "",
                                      cb->uses[u].what, (long long)v);
                }
                if (most > 0)
                    lm_buf_printf(b, "    %-5s %s\n", arch_format_name(cb->format), lm_buf_str(&tmp));
                lm_buf_free(&tmp);
            }
            sym_env_free(&env);
            continue;
        }
        int nslots = 0;
        for (int i = 0; i < k->nbufs; i++)
            nslots = LM_MAX(nslots, k->bufs[i].color + 1);
        if (k->l1_why)
            lm_buf_printf(b, "  (the lowering's CBs are not known: %s; the allocation's estimate follows)\n",
                          k->l1_why);
        lm_buf_printf(b, "  L1%s: %lld of %lld usable bytes; %d buffers in %d slots (buffers never live at once share one)\n",
                      m->cand->fuse == SCHED_FUSE_CONSUMER ? " of a reducer core (both kernels' buffers)" : "",
                      (long long)l1, (long long)arch_usable_l1(job->arch), k->nbufs, nslots);
        for (int sl = 0; sl < nslots; sl++) {
            lm_buf_printf(b, "    slot %d:", sl);
            for (int i = 0; i < k->nbufs; i++) {
                const sched_buf *x = &k->bufs[i];
                if (x->color != sl)
                    continue;
                int64_t bytes = 0;
                eval_in(x->bytes, &env, &bytes);
                lm_buf_printf(b, " %s (%s, %lld B%s)", x->name, sched_bufkind_name(x->kind), (long long)bytes,
                              x->alias >= 0 && x->kind == SCHED_BUF_OUT ? ", in place" : "");
            }
            lm_buf_putc(b, '\n');
        }
        sym_env_free(&env);
    }
    explain_values(b, job, w);
    explain_constraints(b, job, w);
    explain_terms(b, job, w, ar);
}

void sched_explain_schedule(lm_buf *b, const sched_job *job, int l, const sched_schedule *s, sym_ctx *sym,
                            lm_arena *ar)
{
    sched_model m;
    int64_t *values;
    if (!sched_schedule_model(job, l, s, sym, ar, &m, &values)) {
        lm_buf_printf(b, "the model does not price launch %d's schedule as run (%s)\n", l,
                      s->cand.fuse != SCHED_FUSE_NONE ? "a fused launch is priced with its pair only"
                                                      : "its model does not build, or a variable has no value");
        return;
    }
    /* a job of this launch alone, whose one choice is the schedule */
    sched_job one = *job;
    one.nlaunches = 1;
    one.k[0] = job->k[l];
    one.cands[0] = job->cands[l];
    one.nfusions = 0;
    sched_choice w = {.m = {&m}, .problem = m.problem, .sol = {.values = values}, .rank_in_candidate = -1};
    if (!sched_choice_eval(&one, &w, m.problem.objective, &w.sol.objective))
        w.sol.objective = -1;
    w.cycles = w.sol.objective;
    sched_explain_choice(b, &one, &w, sym, ar);
}
