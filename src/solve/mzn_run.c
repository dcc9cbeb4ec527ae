/* mzn_run.c - running the `minizinc` executable on a model written by
 * mzn.c, and the staged lexicographic solve that reaches loomc's order with
 * it: the optimum, then the assignments that tie on it listed and ranked, or
 * solved in stages when too many tie (mzn.h; docs/scheduler.md, "Open models
 * (MiniZinc)").
 */
#include "solve/mzn_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- running minizinc ------------------------------------------------------------- */

static const char *mzn_exe(const char *given)
{
    if (given && *given)
        return given;
    const char *e = getenv("LOOMC_MINIZINC");
    return e && *e ? e : "minizinc";
}

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Run argv; stdout and stderr to files in dir. Returns the exit
 * status, or -1 (errno in *err) when it could not be started. */
static int spawn_wait(char *const *argv, const char *outp, const char *errp, int *err)
{
    lm_proc p = {.argv = (const char *const *)argv, .in = "/dev/null", .out = outp, .err = errp};
    lm_proc_run(&p);
    if (p.errnum) {
        *err = p.errnum;
        return -1;
    }
    if (p.status == 127) {
        /* a shell wrapper may report a missing program as its exit 127 */
        *err = ENOENT;
        return -1;
    }
    return p.signal ? 128 + p.signal : p.status;
}

static char *slurp(const char *path)
{
    char why[128];
    size_t n;
    char *s = lm_read_file(path, &n, why, sizeof why);
    return s ? s : lm_xstrdup("");
}

static void not_found(lm_buf *why, const char *exe)
{
    lm_buf_printf(why, "minizinc not found (tried '%s'); install Debian's minizinc package or use --solver builtin",
                  exe);
}

/* The installed solver configurations, from `minizinc --solvers`. */
static void list_solvers(const char *exe, const char *dir, lm_buf *why)
{
    char op[4200], ep[4200];
    if (strlen(dir) > 4096)
        return;
    snprintf(op, sizeof op, "%.4096s/solvers.out", dir);
    snprintf(ep, sizeof ep, "%.4096s/solvers.err", dir);
    char *argv[] = {(char *)exe, (char *)"--solvers", NULL};
    int err = 0;
    if (spawn_wait(argv, op, ep, &err) != 0)
        return;
    char *s = slurp(op);
    const char *line = s;
    bool first = true;
    while (*line) {
        const char *e = strchr(line, '\n');
        size_t n = e ? (size_t)(e - line) : strlen(line);
        if (n > 2 && line[0] == ' ' && memchr(line, '(', n)) {
            lm_buf_puts(why, first ? "; installed: " : ", ");
            first = false;
            const char *t = line;
            while (*t == ' ')
                t++;
            const char *paren = memchr(t, '(', n - (size_t)(t - line));
            const char *comma = paren ? memchr(paren, ',', n - (size_t)(paren - line)) : NULL;
            const char *close = paren ? memchr(paren, ')', n - (size_t)(paren - line)) : NULL;
            const char *end = comma && (!close || comma < close) ? comma : close;
            if (paren && end)
                lm_buf_printf(why, "%.*s", (int)(end - paren - 1), paren + 1);
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    free(s);
    unlink(op);
    unlink(ep);
}

bool mzn_run(const char *model, const char *solver, const char *minizinc, const char *const *args, lm_buf *out,
             lm_buf *why)
{
    const char *exe = mzn_exe(minizinc);
    const char *sid = solver && *solver ? solver : "gecode";
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%.4000s/loomc-mzn-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        lm_buf_printf(why, "cannot make a temporary folder: %s", strerror(errno));
        return false;
    }
    char mp[4200], op[4200], ep[4200];
    snprintf(mp, sizeof mp, "%.4096s/model.mzn", dir);
    snprintf(op, sizeof op, "%.4096s/out.txt", dir);
    snprintf(ep, sizeof ep, "%.4096s/err.txt", dir);
    bool ok = false;
    if (!write_file(mp, model)) {
        lm_buf_printf(why, "cannot write %s: %s", mp, strerror(errno));
        goto done;
    }
    const char *argv[32];
    int na = 0;
    argv[na++] = exe;
    argv[na++] = "--solver";
    argv[na++] = sid;
    for (int i = 0; args && args[i] && na < 29; i++)
        argv[na++] = args[i];
    argv[na++] = mp;
    argv[na] = NULL;
    int err = 0;
    int rc = spawn_wait((char *const *)argv, op, ep, &err);
    if (rc < 0) {
        if (err == ENOENT || err == EACCES || err == ENOTDIR)
            not_found(why, exe);
        else
            lm_buf_printf(why, "cannot run %s: %s", exe, strerror(err));
        goto done;
    }
    char *so = slurp(op), *se = slurp(ep);
    if (rc != 0 || strstr(so, "=====ERROR=====")) {
        if (strstr(se, "no solver with tag") || strstr(se, "no solver with id")) {
            lm_buf_printf(why, "MiniZinc has no solver '%s'", sid);
            list_solvers(exe, dir, why);
        } else {
            /* minizinc's own message, first lines */
            lm_buf_printf(why, "minizinc --solver %s failed (exit %d)", sid, rc);
            const char *s = se;
            int lines = 0;
            while (*s && lines < 6) {
                const char *e = strchr(s, '\n');
                size_t n = e ? (size_t)(e - s) : strlen(s);
                if (n && !strstr(s, "overrides a global constraint")) {
                    lm_buf_printf(why, "%s%.*s", lines ? " | " : ": ", (int)n, s);
                    lines++;
                }
                s += n + (e ? 1 : 0);
            }
        }
    } else {
        lm_buf_puts(out, so);
        ok = true;
    }
    free(so);
    free(se);
done:
    unlink(mp);
    unlink(op);
    unlink(ep);
    rmdir(dir);
    return ok;
}

/* ---- staged lexicographic solve -------------------------------------------------- */

/* One key of loomc's order: an objective/tie-break (index < nkeys) or a
 * variable's domain position. */
typedef struct lkey {
    const char *expr; /* MiniZinc name */
    int64_t lo, hi;
} lkey;

typedef struct stage {
    int first, count; /* keys [first, first + count) */
} stage;

static bool is_gecode(const char *sid) { return !sid || !*sid || strstr(sid, "gecode") != NULL; }

static int64_t solver_int_max(const mzn_solve_options *o)
{
    if (o && o->int_max > 0)
        return o->int_max;
    const char *sid = o ? o->solver : NULL;
    if (!is_gecode(sid) && (strstr(sid, "cp-sat") || strstr(sid, "cpsat") || strstr(sid, "or-tools") ||
                            strstr(sid, "ortools")))
        return (int64_t)1 << 60;
    return MZN_GECODE_INT_MAX;
}

/* The model of stage s of the lexicographic solve (stages before it fixed
 * to their optima), or with enumerate, the model listing every assignment
 * that ties on all stages. `excl` holds the position vectors of solutions
 * already returned (top k). */
static void stage_model(mctx *c, lm_buf *m, const lkey *keys, const stage *stages, int s, int kmax,
                        const int64_t *stage_val, const int64_t *excl, int nexcl, bool enumerate)
{
    const solve_problem *p = c->p;
    lm_buf_printf(m, "%% loomc lexicographic %s %d\n", enumerate ? "enumeration after stage" : "stage", s + 1);
    mzn_write_body(c, m, NULL, kmax);
    lm_buf_puts(m, "\n% Stages: consecutive keys of loomc's order, weighted exactly within their ranges\n");
    for (int t = 0; t <= s; t++) {
        i128 w = 1;
        for (int k = stages[t].first; k < stages[t].first + stages[t].count; k++)
            w *= (i128)keys[k].hi - keys[k].lo + 1;
        lm_buf_printf(m, "var 0..%lld: loomc_stage_%d = 0", (long long)(w - 1), t + 1);
        for (int k = stages[t].first; k < stages[t].first + stages[t].count; k++) {
            w /= (i128)keys[k].hi - keys[k].lo + 1;
            lm_buf_printf(m, " + (%s - ", keys[k].expr);
            mzn_put_int(m, keys[k].lo);
            lm_buf_printf(m, ") * %lld", (long long)w);
        }
        lm_buf_puts(m, ";\n");
        if (t < s || enumerate)
            lm_buf_printf(m, "constraint loomc_stage_%d = %lld;\n", t + 1, (long long)stage_val[t]);
    }
    for (int q = 0; q < nexcl && p->nvars; q++) {
        lm_buf_puts(m, "constraint not (");
        for (int j = 0; j < p->nvars; j++)
            lm_buf_printf(m, "%sloomc_pos_%s = %lld", j ? " /\\ " : "", c->syms.items[j].name,
                          (long long)excl[q * p->nvars + j]);
        lm_buf_puts(m, ");\n");
    }
    if (enumerate)
        lm_buf_puts(m, "\nsolve satisfy;\n");
    else
        lm_buf_printf(m, "\nsolve minimize loomc_stage_%d;\n", s + 1);
    lm_buf_puts(m, "output [\"loomc-solution\"");
    for (int t = 0; t <= s; t++)
        lm_buf_printf(m, ", \" \\(loomc_stage_%d)\"", t + 1);
    for (int j = 0; j < p->nvars; j++)
        lm_buf_printf(m, ", \" \\(loomc_pos_%s)\"", c->syms.items[j].name);
    for (int k = 0; k <= kmax; k++)
        lm_buf_printf(m, ", \" \\(%s)\"", keys[k].expr);
    lm_buf_puts(m, ", \"\\n\"];\n");
}

/* Read every `loomc-solution` line of nvals integers; returns the number of
 * lines, -1 on a malformed answer. */
static int parse_lines(const char *out, int nvals, int64_t **vals, lm_buf *why)
{
    int n = 0, cap = 0;
    *vals = NULL;
    for (const char *s = out; (s = strstr(s, "loomc-solution")) != NULL;) {
        s += strlen("loomc-solution");
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            *vals = lm_xrealloc(*vals, sizeof(int64_t) * (size_t)cap * (size_t)(nvals + 1));
        }
        for (int i = 0; i < nvals; i++) {
            char *end;
            errno = 0;
            long long v = strtoll(s, &end, 10);
            if (end == s || errno) {
                lm_buf_puts(why, "cannot read minizinc's solution line");
                return -1;
            }
            (*vals)[(size_t)n * (size_t)nvals + (size_t)i] = v;
            s = end;
        }
        n++;
    }
    return n;
}

/* Values of an assignment given by domain positions; false if one is outside. */
static bool positions_to_env(const solve_problem *p, const int64_t *pos, int64_t *values, sym_env *env)
{
    for (int i = 0; p->fixed && i < p->fixed->n; i++)
        sym_env_set_range(env, p->fixed->b[i].var, p->fixed->b[i].lo, p->fixed->b[i].hi);
    for (int j = 0; j < p->nvars; j++) {
        if (pos[j] < 1 || pos[j] > p->vars[j].ndomain)
            return false;
        values[j] = p->vars[j].domain[pos[j] - 1];
        sym_env_set(env, p->vars[j].var, values[j]);
    }
    return true;
}

enum { MZN_MAX_TIES = 200000 };

static void write_exclusions(mctx *c, lm_buf *m, const int64_t *excl, int nexcl)
{
    const solve_problem *p = c->p;
    for (int q = 0; q < nexcl && p->nvars; q++) {
        lm_buf_puts(m, "constraint not (");
        for (int j = 0; j < p->nvars; j++)
            lm_buf_printf(m, "%sloomc_pos_%s = %lld", j ? " /\\ " : "", c->syms.items[j].name,
                          (long long)excl[q * p->nvars + j]);
        lm_buf_puts(m, ");\n");
    }
}

static const char *key_name(const mctx *c, int k) { return c->roots.items[c->key_root[k]].name; }

/* The objective's own bound (clip) removes nothing feasible: its range fits,
 * or it is an explicit bound with a constraint proof (as when the problem
 * carries a bound from better candidates, objective - B <= 0). */
static bool obj_bound_harmless(const mctx *c)
{
    const mnode *o = &c->n.items[c->roots.items[c->key_root[0]].node];
    return o->hi <= c->clip || (o->hoist && o->cons_proof);
}

/* No solution in a model with keys 0..km: certain unless an explicit bound
 * without a constraint proof, or the objective's own bound, took part. */
static bool infeasible_certain(mctx *c, int km, int sol, lm_buf *why)
{
    for (size_t i = 0; i < c->n.len; i++) {
        const mnode *nd = &c->n.items[i];
        if (nd->hoist && !nd->cons_proof && mzn_node_in_stage(c, (int)i, km)) {
            lm_buf_printf(why, "no %ssolution within the solver's integers; loomc's may exceed %lld - "
                               "use a solver with 64-bit integers (minizinc:cp-sat)",
                          sol ? "further " : "", (long long)c->clip);
            return false;
        }
    }
    if (!obj_bound_harmless(c)) {
        lm_buf_printf(why, "no %ssolution with an objective within %lld; loomc's may exceed it"
                           " - use a solver with 64-bit integers (minizinc:cp-sat)",
                      sol ? "further " : "", (long long)c->clip);
        return false;
    }
    return true;
}

/* Each explicit bound in a model with keys 0..km is proven harmless by a
 * constraint, or by the key it certifies staying below its threshold at the
 * answer's key values kval. */
static bool answer_certified(mctx *c, const int64_t *kval, int km, lm_buf *why)
{
    for (size_t i = 0; i < c->n.len; i++) {
        const mnode *nd = &c->n.items[i];
        if (!nd->hoist || nd->cons_proof || !mzn_node_in_stage(c, (int)i, km))
            continue;
        if (nd->cert_key <= km && kval[nd->cert_key] >= nd->thresh) {
            lm_buf_printf(why, "the answer's %s (%lld) reaches the threshold (%lld) of an explicit "
                               "bound; use a solver with 64-bit integers (minizinc:cp-sat)",
                          key_name(c, nd->cert_key), (long long)kval[nd->cert_key], (long long)nd->thresh);
            return false;
        }
    }
    if (kval[0] >= c->clip && !obj_bound_harmless(c)) {
        lm_buf_printf(why, "the answer's objective reaches the model's bound %lld; use a solver with "
                           "64-bit integers (minizinc:cp-sat)", (long long)c->clip);
        return false;
    }
    return true;
}

/* Of nl listed assignments (domain positions at lines[l * nvals + off]),
 * the one loomc's order puts first by the tie-breaks t0.. and then the
 * positions. Returns its index, -1 with a reason in why. */
static int rank_ties(const solve_problem *p, const int64_t *lines, int nl, int nvals, int off, int t0,
                     int64_t *tmpv, lm_buf *why)
{
    if (nl > MZN_MAX_TIES) {
        lm_buf_printf(why, "%d assignments tie before a tie-break that does not fit the solver's "
                           "integers; too many to rank", nl);
        return -1;
    }
    int best = -1;
    int64_t btb[SOLVE_MAX_TIEBREAK] = {0};
    for (int l = 0; l < nl; l++) {
        const int64_t *lp = &lines[(size_t)l * (size_t)nvals + (size_t)off];
        sym_env env = {0};
        bool ok = positions_to_env(p, lp, tmpv, &env);
        int64_t tb[SOLVE_MAX_TIEBREAK] = {0};
        for (int t = t0; ok && t < p->ntiebreak; t++)
            ok = sym_eval(p->tiebreak[t], &env, &tb[t]) == SYM_OK;
        sym_env_free(&env);
        if (!ok) {
            lm_buf_puts(why, "loomc cannot evaluate a tie-break at an assignment minizinc listed");
            return -1;
        }
        int cmp = best < 0 ? -1 : 0;
        for (int t = t0; !cmp && t < p->ntiebreak; t++)
            cmp = tb[t] < btb[t] ? -1 : tb[t] > btb[t];
        const int64_t *bp = best >= 0 ? &lines[(size_t)best * (size_t)nvals + (size_t)off] : NULL;
        for (int j = 0; !cmp && j < p->nvars; j++)
            cmp = lp[j] < bp[j] ? -1 : lp[j] > bp[j];
        if (cmp < 0) {
            best = l;
            memcpy(btb, tb, sizeof tb);
        }
    }
    return best;
}

/* Map domain positions back to values, evaluate objective and tie-breaks with
 * loomc's semantics, and require minizinc's figures for keys 0..km to agree. */
static bool finish_solution(mctx *c, const int64_t *pos, const int64_t *kval, int km, solve_solution *so,
                            lm_buf *why)
{
    const solve_problem *p = c->p;
    memset(so, 0, sizeof *so);
    so->values = lm_xcalloc((size_t)p->nvars + 1, sizeof(int64_t));
    sym_env env = {0};
    bool ok = positions_to_env(p, pos, so->values, &env);
    ok = ok && sym_eval(p->objective, &env, &so->objective) == SYM_OK;
    for (int t = 0; ok && t < p->ntiebreak; t++)
        ok = sym_eval(p->tiebreak[t], &env, &so->tiebreak[t]) == SYM_OK;
    sym_env_free(&env);
    if (!ok) {
        lm_buf_puts(why, "loomc cannot evaluate minizinc's solution");
        return false;
    }
    for (int k = 0; k <= km; k++) {
        int64_t mine = k == 0 ? so->objective : so->tiebreak[k - 1];
        if (mine != kval[k]) {
            lm_buf_printf(why, "minizinc's %s is %lld, loomc's %lld at the same assignment", key_name(c, k),
                          (long long)kval[k], (long long)mine);
            return false;
        }
    }
    return true;
}

/* Run a model and read its `loomc-solution` lines (nvals integers each).
 * Returns the number of lines (0: unsatisfiable), -1 on failure; with
 * need_proof, an answer without minizinc's "search complete" mark fails. */
static int run_lines(const char *model, const char *solver, const char *exe, const char *const *args, int nvals,
                     int64_t **lines, mzn_report *rep, lm_buf *why)
{
    lm_buf res = {0};
    rep->runs++;
    free(*lines);
    *lines = NULL;
    if (!mzn_run(model, solver, exe, args, &res, why)) {
        lm_buf_free(&res);
        return -1;
    }
    const char *out = lm_buf_str(&res);
    int nl;
    if (strstr(out, "=====UNSATISFIABLE=====")) {
        nl = 0;
    } else if (!strstr(out, "==========")) {
        lm_buf_puts(why, "minizinc did not complete its search (no '==========' in its output)");
        nl = -1;
    } else {
        nl = parse_lines(out, nvals, lines, why);
        if (nl == 0) {
            lm_buf_puts(why, "minizinc reported a complete search but no solution line");
            nl = -1;
        }
    }
    lm_buf_free(&res);
    return nl;
}

/* Ties listed by one run at most; beyond that the staged solve takes over. */
enum { MZN_LIST_MAX = 20000 };

static solve_status solve_staged(mctx *c, const char *solver, const char *exe, int top_k, solve_solution *out,
                                 int *nout, mzn_report *rep, lm_buf *why);

/* Two runs per solution: the model mzn_write_model writes (branch and bound
 * on the objective), then one listing every assignment that reaches the
 * optimum, with the tie-breaks that fit the solver's integers as MiniZinc
 * computes them; loomc ranks the list by those, the remaining tie-breaks and
 * the domain positions. Nothing depends on the solver's search order. Returns
 * SOLVE_LIMIT (nothing in out) when the ties are too many to list. */
static solve_status solve_listed(mctx *c, const char *solver, const char *exe, int top_k, solve_solution *out,
                                 int *nout, mzn_report *rep, lm_buf *why)
{
    const solve_problem *p = c->p;
    int kx = mzn_exact_keys(c), km = kx - 1;
    int64_t *lines = NULL, *excl = lm_xcalloc((size_t)top_k * (size_t)(p->nvars + 1), sizeof *excl);
    int64_t *tmpv = lm_xcalloc((size_t)p->nvars + 1, sizeof *tmpv);
    int64_t kval[SOLVE_MAX_TIEBREAK + 1] = {0};
    solve_status status = SOLVE_ERROR;
    rep->stages = 1 + (c->nkeys > 1 && p->nvars > 0);
    for (int sol = 0; sol < top_k; sol++) {
        lm_buf m = {0};
        lm_buf_printf(&m, "%% loomc: the objective's optimum%s\n", sol ? ", earlier solutions excluded" : "");
        mzn_write_body(c, &m, NULL, 0);
        write_exclusions(c, &m, excl, sol);
        mzn_write_solve(c, &m, true);
        lm_buf_puts(&m, "output [\"loomc-solution \\(loomc_objective)\"");
        for (int j = 0; j < p->nvars; j++)
            lm_buf_printf(&m, ", \" \\(loomc_pos_%s)\"", c->syms.items[j].name);
        lm_buf_puts(&m, ", \"\\n\"];\n");
        int nl = run_lines(lm_buf_str(&m), solver, exe, NULL, 1 + p->nvars, &lines, rep, why);
        lm_buf_free(&m);
        if (nl < 0)
            goto end;
        if (nl == 0) {
            if (!infeasible_certain(c, 0, sol, why))
                goto end;
            break;
        }
        const int64_t *ln = &lines[(size_t)(nl - 1) * (size_t)(1 + p->nvars)]; /* the last is the optimum */
        kval[0] = ln[0];
        int64_t *pos = &excl[(size_t)sol * (size_t)p->nvars];
        memcpy(pos, ln + 1, sizeof(int64_t) * (size_t)p->nvars);
        if (!answer_certified(c, kval, 0, why))
            goto end;
        if (c->nkeys > 1 && p->nvars) {
            /* every assignment reaching the optimum, with the tie-breaks that fit */
            lm_buf e = {0};
            lm_buf_puts(&e, "% loomc: every assignment that reaches the optimum\n");
            mzn_write_body(c, &e, NULL, km);
            write_exclusions(c, &e, excl, sol);
            lm_buf_printf(&e, "constraint loomc_objective = %lld;\n", (long long)kval[0]);
            mzn_write_solve(c, &e, false);
            lm_buf_puts(&e, "output [\"loomc-solution\"");
            for (int k = 1; k < kx; k++)
                lm_buf_printf(&e, ", \" \\(%s)\"", key_name(c, k));
            for (int j = 0; j < p->nvars; j++)
                lm_buf_printf(&e, ", \" \\(loomc_pos_%s)\"", c->syms.items[j].name);
            lm_buf_puts(&e, ", \"\\n\"];\n");
            char limit[32];
            snprintf(limit, sizeof limit, "%d", MZN_LIST_MAX + 1);
            const char *const args[] = {"-n", limit, NULL};
            int nv = km + p->nvars;
            lm_buf res = {0};
            rep->runs++;
            bool ran = mzn_run(lm_buf_str(&e), solver, exe, args, &res, why);
            lm_buf_free(&e);
            int ne = -1;
            free(lines);
            lines = NULL;
            if (ran) {
                ne = parse_lines(lm_buf_str(&res), nv, &lines, why);
                if (ne >= 0 && ne <= MZN_LIST_MAX && !strstr(lm_buf_str(&res), "=========="))
                    ne = -2;
            }
            lm_buf_free(&res);
            if (ne > MZN_LIST_MAX) {
                status = SOLVE_LIMIT;
                goto end;
            }
            if (ne <= 0) {
                if (ne == 0 || ne == -2)
                    lm_buf_puts(why, ne == 0 ? "minizinc listed no assignment for an optimum it had found"
                                             : "minizinc did not finish listing the assignments at the optimum");
                goto end;
            }
            rep->ranked += ne;
            /* rank: MiniZinc's tie-breaks 1..kx-1, then loomc's from kx on, then positions */
            int best = -1;
            int64_t btb[SOLVE_MAX_TIEBREAK] = {0};
            for (int l = 0; l < ne; l++) {
                const int64_t *lp = &lines[(size_t)l * (size_t)nv];
                int64_t tb[SOLVE_MAX_TIEBREAK] = {0};
                for (int t = 0; t < km; t++)
                    tb[t] = lp[t];
                if (kx < c->nkeys) {
                    sym_env env = {0};
                    bool ok = positions_to_env(p, lp + km, tmpv, &env);
                    for (int t = km; ok && t < p->ntiebreak; t++)
                        ok = sym_eval(p->tiebreak[t], &env, &tb[t]) == SYM_OK;
                    sym_env_free(&env);
                    if (!ok) {
                        lm_buf_puts(why, "loomc cannot evaluate a tie-break at an assignment minizinc listed");
                        goto end;
                    }
                }
                int cmp = best < 0 ? -1 : 0;
                for (int t = 0; !cmp && t < p->ntiebreak; t++)
                    cmp = tb[t] < btb[t] ? -1 : tb[t] > btb[t];
                const int64_t *bp = best >= 0 ? &lines[(size_t)best * (size_t)nv + (size_t)km] : NULL;
                for (int j = 0; !cmp && j < p->nvars; j++)
                    cmp = lp[km + j] < bp[j] ? -1 : lp[km + j] > bp[j];
                if (cmp < 0) {
                    best = l;
                    memcpy(btb, tb, sizeof tb);
                }
            }
            for (int k = 1; k < kx; k++)
                kval[k] = btb[k - 1];
            memcpy(pos, &lines[(size_t)best * (size_t)nv + (size_t)km], sizeof(int64_t) * (size_t)p->nvars);
            if (!answer_certified(c, kval, km, why))
                goto end;
        }
        if (!finish_solution(c, pos, kval, c->nkeys > 1 && p->nvars ? km : 0, &out[*nout], why))
            goto end;
        (*nout)++;
        if (!p->nvars)
            break;
    }
    status = *nout ? SOLVE_OPTIMAL : SOLVE_INFEASIBLE;
end:
    if (status == SOLVE_LIMIT) {
        solve_free_solutions(out, *nout);
        *nout = 0;
    }
    free(lines);
    free(excl);
    free(tmpv);
    return status;
}

/* The same order reached in stages, each minimising one weighted group of
 * keys with the groups before it fixed: for problems whose optimum too many
 * assignments reach to list them. */
static solve_status solve_staged(mctx *c, const char *solver, const char *exe, int top_k, solve_solution *out,
                                 int *nout, mzn_report *rep, lm_buf *why)
{
    const solve_problem *p = c->p;
    solve_status status = SOLVE_ERROR;
    /* keys the solver minimises: the objective and the tie-breaks up to the
     * first one that does not fit, then (if all fit) the domain positions */
    int kx = mzn_exact_keys(c);
    int nk = kx + (kx == c->nkeys ? p->nvars : 0);
    lkey *keys = lm_xcalloc((size_t)nk + 1, sizeof *keys);
    for (int k = 0; k < kx; k++) {
        keys[k].expr = key_name(c, k);
        mzn_key_range(c, k, &keys[k].lo, &keys[k].hi);
    }
    for (int k = kx; k < nk; k++) {
        int j = k - kx;
        keys[k].expr = lm_arena_printf(&c->ar, "loomc_pos_%s", c->syms.items[j].name);
        keys[k].lo = 1;
        keys[k].hi = p->vars[j].ndomain;
    }
    stage *stages = lm_xcalloc((size_t)nk + 1, sizeof *stages);
    int ns = 0;
    for (int k = 0; k < nk;) {
        i128 w = 1;
        int cnt = 0;
        while (k + cnt < nk) {
            i128 nw = w * ((i128)keys[k + cnt].hi - keys[k + cnt].lo + 1);
            if (cnt > 0 && nw > c->clip)
                break;
            w = nw;
            cnt++;
            if (w > c->clip)
                break;
        }
        stages[ns++] = (stage){k, cnt};
        k += cnt;
    }
    rep->stages = ns + (kx < c->nkeys);
    int kmax = kx - 1;
    int64_t *pos = lm_xcalloc((size_t)p->nvars + 1, sizeof *pos);
    int64_t *kval = lm_xcalloc((size_t)kx + 1, sizeof *kval);
    int64_t *excl = lm_xcalloc((size_t)top_k * (size_t)(p->nvars + 1), sizeof *excl);
    int64_t *stage_val = lm_xcalloc((size_t)ns + 1, sizeof *stage_val);
    int64_t *tmpv = lm_xcalloc((size_t)p->nvars + 1, sizeof *tmpv);
    int64_t *lines = NULL;

    for (int sol = 0; sol < top_k; sol++) {
        bool infeasible = false;
        for (int s = 0; s < ns; s++) {
            /* the keys whose expressions this stage's model needs */
            int km = -1;
            for (int k = 0; k < stages[s].first + stages[s].count && k < kx; k++)
                km = k;
            lm_buf m = {0};
            stage_model(c, &m, keys, stages, s, km, stage_val, excl, sol, false);
            int nvals = (s + 1) + p->nvars + (km + 1);
            int nl = run_lines(lm_buf_str(&m), solver, exe, NULL, nvals, &lines, rep, why);
            lm_buf_free(&m);
            if (nl < 0)
                goto end;
            if (nl == 0) {
                if (s > 0) {
                    lm_buf_puts(why, "a later stage found no solution although the one before did");
                    goto end;
                }
                if (!infeasible_certain(c, km, sol, why))
                    goto end;
                infeasible = true;
                break;
            }
            const int64_t *ln = &lines[(size_t)(nl - 1) * (size_t)nvals]; /* the last is the optimum */
            stage_val[s] = ln[s];
            for (int j = 0; j < p->nvars; j++)
                pos[j] = ln[s + 1 + j];
            for (int k = 0; k <= km; k++)
                kval[k] = ln[s + 1 + p->nvars + k];
            if (!answer_certified(c, kval, km, why))
                goto end;
        }
        if (infeasible)
            break;
        if (kx < c->nkeys) {
            /* the remaining tie-breaks do not fit the solver's integers:
             * list every assignment tied so far and rank them exactly */
            lm_buf m = {0};
            stage_model(c, &m, keys, stages, ns - 1, kmax, stage_val, excl, sol, true);
            static const char *const all[] = {"-a", NULL};
            int nvals = ns + p->nvars + kx;
            int nl = run_lines(lm_buf_str(&m), solver, exe, all, nvals, &lines, rep, why);
            lm_buf_free(&m);
            if (nl <= 0) {
                if (nl == 0)
                    lm_buf_puts(why, "minizinc listed no assignment for an optimum it had found");
                goto end;
            }
            rep->ranked += nl;
            int best = rank_ties(p, lines, nl, nvals, ns, kx - 1, tmpv, why);
            if (best < 0)
                goto end;
            memcpy(pos, &lines[(size_t)best * (size_t)nvals + (size_t)ns], sizeof(int64_t) * (size_t)p->nvars);
        }
        if (!finish_solution(c, pos, kval, kmax, &out[*nout], why))
            goto end;
        (*nout)++;
        memcpy(&excl[(size_t)sol * (size_t)p->nvars], pos, sizeof(int64_t) * (size_t)p->nvars);
        if (!p->nvars)
            break;
    }
    status = *nout ? SOLVE_OPTIMAL : SOLVE_INFEASIBLE;
end:
    free(keys);
    free(stages);
    free(pos);
    free(kval);
    free(excl);
    free(stage_val);
    free(lines);
    free(tmpv);
    return status;
}

solve_status mzn_solve(const solve_problem *p, const mzn_solve_options *o, solve_solution *out, int *nout,
                       mzn_report *rep, lm_buf *why)
{
    lm_buf dummy = {0};
    if (!why)
        why = &dummy;
    mzn_report rdummy;
    if (!rep)
        rep = &rdummy;
    memset(rep, 0, sizeof *rep);
    *nout = 0;
    int top_k = o && o->top_k > 0 ? o->top_k : 1;
    const char *solver = o ? o->solver : NULL, *exe = o ? o->minizinc : NULL;
    mctx c;
    mzn_ctx_init(&c, p, solver_int_max(o), why);
    if (o && o->no_tables)
        c.tables = false;
    solve_status status = SOLVE_ERROR;
    if (!p->objective) {
        lm_buf_puts(why, "the problem has no objective");
        goto end;
    }
    if (!mzn_ctx_build(&c, true))
        goto end;
    mzn_check_division_temps(&c);
    if (c.failed)
        goto end;
    for (size_t i = 0; i < c.n.len; i++)
        rep->clipped += c.n.items[i].hoist;
    if (!(o && o->staged))
        status = solve_listed(&c, solver, exe, top_k, out, nout, rep, why);
    if ((o && o->staged) || status == SOLVE_LIMIT) {
        int runs = rep->runs;
        status = solve_staged(&c, solver, exe, top_k, out, nout, rep, why);
        rep->runs += runs;
    }
end:
    if (status == SOLVE_ERROR) {
        solve_free_solutions(out, *nout);
        *nout = 0;
    }
    mzn_ctx_free(&c);
    lm_buf_free(&dummy);
    return status;
}
