/* grid.c - linear grids read as the 2-D grids they stand for.
 *
 * Many Triton kernels launch a 1-D grid of cdiv(M, BM) * cdiv(N, BN)
 * programs and split the program id into a row and a column block:
 *
 *   pid_m = pid // num_pid_n;  pid_n = pid % num_pid_n           (row-major)
 *
 * or, to share panels of B in a GPU's L2, the GROUP_SIZE_M swizzle of
 * Triton's matmul tutorial:
 *
 *   num_pid_in_group = GROUP_SIZE_M * num_pid_n
 *   first_pid_m = (pid // num_pid_in_group) * GROUP_SIZE_M
 *   group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
 *   pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)   (or pid % group_size_m)
 *   pid_n = (pid % num_pid_in_group) // group_size_m
 *
 * Both are bijections from [0, A*B) onto [0, A) x [0, B) for any positive
 * A = num_pid_m, B = num_pid_n and G = GROUP_SIZE_M: within group g the ids
 * g*G*B .. g*G*B + gsm*B - 1 (gsm = the group's rows, G or what is left) are
 * ordered column by column, gsm rows to a column, and any gsm consecutive
 * ids take every residue mod gsm, so both forms of pid_m name each of the
 * group's rows once in each column. On a spatial chip every program has a
 * core of its own and the order programs run in is not a choice, so the
 * kernel is the same kernel over the 2-D grid (A, B): the scheduler and the
 * access analysis see pid_m and pid_n as program ids, and the reuse of A's
 * rows along n and B's columns along m.
 *
 * The pass recognises the expressions by their symbolic values: it builds
 * the canonical value of pid_m and pid_n for each way of splitting the grid
 * extent into A * B (and each G that divides a divisor of the program id),
 * and where both occur, makes them program ids of a grid axis each. A plain
 * split (row- or column-major) is exact whatever else the kernel does with
 * the linear id, since pid = pid_m * B + pid_n (pid_n * A + pid_m): its
 * other uses (flash attention's `off_hb // H`, `off_hb % H` and `off_hb`
 * itself as an offset) are rewritten so. A swizzle is read only if the
 * linear id serves nothing else; else the kernel keeps its 1-D grid.
 * A full grid whose last axis has one program gives that axis up first.
 *
 * First, a persistent loop - `for tile in tl.range(pid, num_tiles, G)`
 * over G programs, the whole kernel - is unfolded into the grid of
 * num_tiles programs it folds (unfold_persistent), so its tile id can be
 * split like any program id.
 */
#include "front/check_int.h"

#include <string.h>

enum { FORM_ROWMAJOR, FORM_COLMAJOR, FORM_GROUPED };

typedef struct gfind {
    const sym_expr *want[2];
    tir_value **hits[2];
    int nhits[2], cap[2];
    const sym_expr *divs[16]; /* X in pid // X, pid % X */
    int ndivs;
    const sym_expr *pid;
    tir_elem elem; /* the program id's */
    lm_arena *a;
} gfind;

static void note_value(gfind *g, tir_value *v)
{
    if (!v->sym || !tir_is_int_scalar(&v->type))
        return;
    const sym_expr *e = v->sym;
    if ((e->kind == SYM_FLOORDIV || e->kind == SYM_MOD) && e->nargs == 2 && e->args[0] == g->pid &&
        g->ndivs < (int)LM_COUNT(g->divs)) {
        bool seen = false;
        for (int i = 0; i < g->ndivs; i++)
            seen |= g->divs[i] == e->args[1];
        if (!seen)
            g->divs[g->ndivs++] = e->args[1];
    }
    for (int k = 0; k < 2; k++) {
        /* a cast of the value (off_z.to(tl.int64)) follows it */
        if (!g->want[k] || e != g->want[k] || v->type.elem != g->elem)
            continue;
        if (g->nhits[k] == g->cap[k]) {
            int cap = g->cap[k] ? 2 * g->cap[k] : 4;
            tir_value **n = LM_NEWN(g->a, tir_value *, (size_t)cap);
            if (g->nhits[k])
                memcpy(n, g->hits[k], sizeof *n * (size_t)g->nhits[k]);
            g->hits[k] = n;
            g->cap[k] = cap;
        }
        g->hits[k][g->nhits[k]++] = v;
    }
}

static void scan(gfind *g, tir_block *blk)
{
    for (tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nresults; i++)
            note_value(g, op->results[i]);
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                scan(g, op->regions[r]);
    }
}

static tir_value *program_id_value(tir_func *f, int axis)
{
    for (tir_op *op = f->body->first; op; op = op->next)
        if (op->code == TIR_PROGRAM_ID && op->ival == axis)
            return op->results[0];
    return NULL;
}

/* The values whose symbolic value is m and n, found in f. */
static bool find_pair(chk *c, tir_value *pid, const sym_expr *m, const sym_expr *n, gfind *out)
{
    memset(out, 0, sizeof *out);
    out->pid = pid->sym;
    out->elem = pid->type.elem;
    out->a = c->a;
    out->want[0] = m;
    out->want[1] = n;
    scan(out, c->f->body);
    return out->nhits[0] && out->nhits[1];
}

/* Recompute every symbolic value in order (loops with their carried values). */
static void reinfer(chk *c, tir_block *blk)
{
    for (tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_FOR) {
            tir_sym_infer_for(&c->b, op);
            continue;
        }
        tir_sym_infer(&c->b, op);
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                reinfer(c, op->regions[r]);
    }
}

static bool uses_value(const tir_block *blk, const tir_value *v)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            if (op->opnds[i] == v)
                return true;
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r] && uses_value(op->regions[r], v))
                return true;
    }
    return false;
}

/* The pair becomes program ids: pid_m the id of axis g (now over A row
 * blocks), pid_n that of a new last axis over B. The ops that computed
 * them from the linear id are left for the dead-code sweep. */
/* The linear id's other uses (after the split, pid is the row id) become
 * `pid * B + pn` (row-major) or `pn * A + pid` (column-major), built at
 * the top of the body, after the hoisted ids. */
static void relinearise(chk *c, tir_value *pid, tir_value *pn, const sym_expr *A, const sym_expr *B, bool colmajor)
{
    tir_func *f = c->f;
    tir_value *outer = colmajor ? pn : pid, *inner = colmajor ? pid : pn;
    tir_value *n = tir_sym_value(&c->b, TIR_I32, colmajor ? A : B);
    tir_value *mul = chk_build1(c, TIR_MUL, (lm_loc){0}, tir_t_scalar(TIR_I32), outer, n, NULL);
    tir_value *lin = chk_build1(c, TIR_ADD, (lm_loc){0}, tir_t_scalar(TIR_I32), mul, inner, NULL);
    lin->name = pid->name;
    tir_op_remove(mul->def);
    tir_op_remove(lin->def);
    tir_op_insert_after(f->body, f->hoist_last, mul->def);
    tir_op_insert_after(f->body, mul->def, lin->def);
    tir_replace_uses(f->body, pid, lin);
    /* the row id itself stays in the product */
    for (int i = 0; i < 2; i++)
        if (mul->def->opnds[i] == lin)
            mul->def->opnds[i] = pid;
    for (int i = 0; i < 2; i++)
        if (lin->def->opnds[i] == lin)
            lin->def->opnds[i] = pid;
}

static void split_axis(chk *c, int g, tir_value *pid, const gfind *h, const sym_expr *A, const sym_expr *B,
                       int form)
{
    tir_func *f = c->f;
    int ng = f->grid_rank;
    tir_value *pn = tir_program_id(&c->b, ng);
    if (form != FORM_GROUPED)
        relinearise(c, pid, pn, A, B, form == FORM_COLMAJOR);
    /* the axes take the kernel's names for them (pid_m, pid_n) */
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < h->nhits[k]; i++)
            if (h->hits[k][i]->name) {
                (k ? pn : pid)->name = h->hits[k][i]->name;
                break;
            }
    for (int i = 0; i < h->nhits[0]; i++)
        tir_replace_uses(f->body, h->hits[0][i], pid);
    for (int i = 0; i < h->nhits[1]; i++)
        tir_replace_uses(f->body, h->hits[1][i], pn);
    f->grid[g] = A;
    f->grid[ng] = B;
    f->grid_rank = ng + 1;
    reinfer(c, f->body);
}

/* Does anything with an effect reach the linear id other than through the
 * pair's values? (Walked back from the operands of every op that is not
 * pure: loads, stores, loops, yields.) */
static bool reached(const tir_value *v, const tir_value *pid, const gfind *h, bool *seen, int n)
{
    for (;;) {
        if (v->uid < 0 || v->uid >= n || seen[v->uid])
            return false;
        seen[v->uid] = true;
        if (v == pid)
            return true;
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < h->nhits[k]; i++)
                if (h->hits[k][i] == v)
                    return false;
        if (!v->def)
            return false;
        for (int i = 1; i < v->def->nopnds; i++)
            if (reached(v->def->opnds[i], pid, h, seen, n))
                return true;
        if (!v->def->nopnds)
            return false;
        v = v->def->opnds[0];
    }
}

static bool reached_from(const tir_block *blk, const tir_value *pid, const gfind *h, bool *seen, int n)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (!tir_op_has(op->code, TIR_P_PURE))
            for (int i = 0; i < op->nopnds; i++)
                if (reached(op->opnds[i], pid, h, seen, n))
                    return true;
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r] && reached_from(op->regions[r], pid, h, seen, n))
                return true;
    }
    return false;
}

static bool only_through(chk *c, const tir_value *pid, const gfind *h)
{
    int n = c->f->nvalues;
    bool *seen = LM_NEWN(c->a, bool, (size_t)n + 1);
    return !reached_from(c->f->body, pid, h, seen, n);
}

/* The canonical pid_m, pid_n of a split A x B, simple or grouped by G,
 * and the form of each. */
static int pairs_for(chk *c, const sym_expr *P, const sym_expr *A, const sym_expr *B, const sym_expr *X,
                     bool colmajor, const sym_expr *out[][2], int *form)
{
    sym_ctx *s = c->s;
    int n = 0;
    if (colmajor) { /* pid_m = pid % A, pid_n = pid // A */
        if (X == A) {
            form[n] = FORM_COLMAJOR;
            out[n][0] = sym_mod(s, P, A);
            out[n++][1] = sym_floordiv(s, P, A);
        }
        return n;
    }
    if (X == B) {
        form[n] = FORM_ROWMAJOR;
        out[n][0] = sym_floordiv(s, P, B);
        out[n++][1] = sym_mod(s, P, B);
    }
    const sym_expr *G = sym_floordiv(s, X, B);
    if (sym_mul(s, G, B) == X && G != sym_const(s, 1)) {
        const sym_expr *first = sym_mul(s, sym_floordiv(s, P, X), G);
        const sym_expr *gsm = sym_min(s, sym_sub(s, A, first), G);
        const sym_expr *r = sym_mod(s, P, X);
        const sym_expr *pn = sym_floordiv(s, r, gsm);
        for (int k = 0; k < 2; k++) {
            form[n] = FORM_GROUPED;
            out[n][0] = sym_add(s, first, sym_mod(s, k ? P : r, gsm));
            out[n++][1] = pn;
        }
    }
    return n;
}

/* A full grid gives up its last axis if it has one program: its id is
 * 0 and its number of programs 1. */
static bool free_last_axis(chk *c)
{
    tir_func *f = c->f;
    int last = f->grid_rank - 1;
    if (f->grid[last] != sym_const(c->s, 1))
        return false;
    for (tir_op *op = f->body->first; op; op = op->next) {
        if (op->code == TIR_PROGRAM_ID && op->ival == last)
            tir_replace_uses(f->body, op->results[0], tir_const_int(&c->b, TIR_I32, 0));
        if (op->code == TIR_NUM_PROGRAMS && op->ival == last)
            tir_replace_uses(f->body, op->results[0], tir_const_int(&c->b, TIR_I32, 1));
    }
    f->grid[last] = NULL;
    f->grid_rank = last;
    return true;
}

/* Try the splits of axis g; true if one was made. */
static bool try_axis(chk *c, int g)
{
    tir_func *f = c->f;
    tir_value *pid = program_id_value(f, g);
    const sym_expr *E = f->grid[g];
    if (!pid || !pid->sym || !E || E->kind != SYM_MUL)
        return false;
    /* tl.num_programs(g) would change its meaning */
    for (tir_op *op = f->body->first; op; op = op->next)
        if (op->code == TIR_NUM_PROGRAMS && op->ival == g && uses_value(f->body, op->results[0]))
            return false;
    gfind d;
    find_pair(c, pid, NULL, NULL, &d);
    if (!d.ndivs)
        return false;
    /* row-major and grouped forms first, so a kernel that could be read
       either way keeps its row blocks on the first axis */
    for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < E->nargs; i++) {
        /* B: one factor of the extent, A: the others */
        const sym_expr *B = E->args[pass ? E->nargs - 1 - i : i];
        const sym_expr *A = sym_floordiv(c->s, E, B);
        if (sym_mul(c->s, A, B) != E)
            continue;
        for (int k = 0; k < d.ndivs; k++) {
            const sym_expr *cand[4][2];
            int form[4];
            int nc = pairs_for(c, pid->sym, A, B, d.divs[k], pass == 1, cand, form);
            for (int j = 0; j < nc; j++) {
                gfind h;
                if (!find_pair(c, pid, cand[j][0], cand[j][1], &h) ||
                    (form[j] == FORM_GROUPED && !only_through(c, pid, &h)))
                    continue;
                if (f->grid_rank >= TIR_MAX_GRID && (g == f->grid_rank - 1 || !free_last_axis(c)))
                    return false;
                split_axis(c, g, pid, &h, A, B, form[j]);
                return true;
            }
        }
    }
    return false;
}

/* ---- persistent loops ---------------------------------------------------- */

/* How many ops of blk (and the regions in it) read v. */
static int count_uses(const tir_block *blk, const tir_value *v)
{
    int n = 0;
    for (const tir_op *op = blk->first; op; op = op->next) {
        for (int i = 0; i < op->nopnds; i++)
            n += op->opnds[i] == v;
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r])
                n += count_uses(op->regions[r], v);
    }
    return n;
}

static bool has_effect(const tir_op *op)
{
    return op->code == TIR_FOR || op->code == TIR_IF || tir_op_has(op->code, TIR_P_READ) ||
           tir_op_has(op->code, TIR_P_WRITE);
}

/* The persistent loop over axis g, `for t in range(pid, T, G)` with G the
 * axis's number of programs (or S over min(S, T) programs), carrying nothing, where the program id and
 * tl.num_programs(g) serve only that loop and nothing else at the top of
 * the kernel reads or writes memory; NULL if there is none. */
static tir_op *persistent_loop(chk *c, int g, tir_value *pid)
{
    tir_func *f = c->f;
    tir_op *loop = NULL;
    for (tir_op *op = f->body->first; op; op = op->next) {
        if (op->code == TIR_FOR && !loop)
            loop = op;
        else if (has_effect(op))
            return NULL;
    }
    if (!loop || tir_for_ncarried(loop) || tir_for_lo(loop) != pid || count_uses(f->body, pid) != 1)
        return NULL;
    const tir_value *step = tir_for_step(loop), *hi = tir_for_hi(loop);
    /* over min(S, T) programs with step S the visits are a partition too:
       each program takes one tile where T <= S */
    if (!step->sym || !hi->sym || (step->sym != f->grid[g] && sym_min(c->s, step->sym, hi->sym) != f->grid[g]))
        return NULL;
    for (int k = 0; k < f->grid_rank; k++)
        if (sym_depends_on(hi->sym, tir_pid_var(c->s, k)))
            return NULL;
    for (tir_op *op = f->body->first; op; op = op->next)
        if (op->code == TIR_NUM_PROGRAMS && op->ival == g && op->results[0] != step &&
            count_uses(f->body, op->results[0]))
            return NULL;
    return loop;
}

/* A carried integer of the loop that steps with it: at the top of each
 * trip init + step * iv, the loop variable lo + step * iv, so it is the
 * variable plus init - lo, a number no program id moves (tutorial 09 keeps
 * such a second tile counter, `tile_id_c = start_pid - NUM_SMS` and
 * `tile_id_c += NUM_SMS` in the loop). That offset in *off, or false. */
static bool counter_offset(chk *c, const tir_op *loop, int i, const sym_expr **off)
{
    const tir_value *arg = tir_for_arg(loop, i), *init = tir_for_init(loop, i);
    const sym_expr *coef, *rest, *lo = tir_for_lo(loop)->sym, *step = tir_for_step(loop)->sym;
    if (!tir_is_int_scalar(&arg->type) || arg->type.elem != tir_for_var(loop)->type.elem || !arg->sym ||
        !init->sym || !lo || !step ||
        count_uses(c->f->body, loop->results[i]) ||
        !sym_affine_coeff(c->s, arg->sym, loop->iv, &coef, &rest) || coef != step)
        return false;
    *off = sym_sub(c->s, init->sym, lo);
    for (int k = 0; k < c->f->grid_rank; k++)
        if (sym_depends_on(*off, tir_pid_var(c->s, k)))
            return false;
    return true;
}

/* Pure ops at the top of the body that nothing reads (a dropped counter's
 * start), so that the program id's uses count only what is left. */
static void sweep_top(chk *c)
{
    tir_func *f = c->f;
    bool changed = true;
    while (changed) {
        changed = false;
        for (tir_op *op = f->body->last, *prev; op; op = prev) {
            prev = op->prev;
            if (!tir_op_has(op->code, TIR_P_PURE) || op->nregions || op->nresults != 1 ||
                count_uses(f->body, op->results[0]))
                continue;
            if (op == f->hoist_last)
                f->hoist_last = op->prev;
            tir_op_remove(op);
            changed = true;
        }
    }
}

/* The first loop at the top of the body, if its counters (counter_offset)
 * can all be dropped: each becomes the loop variable plus its offset. */
static void drop_counters(chk *c, tir_value *pid)
{
    tir_op *loop = NULL;
    for (tir_op *op = c->f->body->first; op && !loop; op = op->next)
        if (op->code == TIR_FOR)
            loop = op;
    if (!loop || !tir_for_ncarried(loop) || tir_for_lo(loop) != pid)
        return;
    const sym_expr *off[64];
    int n = tir_for_ncarried(loop);
    if (n > (int)LM_COUNT(off))
        return;
    for (int i = 0; i < n; i++)
        if (!counter_offset(c, loop, i, &off[i]))
            return;
    tir_block *body = loop->regions[0];
    tir_value *var = tir_for_var(loop);
    for (int i = n - 1; i >= 0; i--) {
        tir_value *arg = tir_for_arg(loop, i);
        tir_value *ov = tir_sym_value(&c->b, var->type.elem, off[i]);
        tir_value *v = chk_build1(c, TIR_ADD, (lm_loc){0}, var->type, var, ov, NULL);
        tir_op_remove(v->def);
        tir_op_insert_after(body, NULL, v->def);
        tir_replace_uses(body, arg, v);
        tir_for_drop_carried(loop, i);
    }
    sweep_top(c);
}

/* `for t in range(pid, T, G)` over G programs visits every t in [0, T)
 * exactly once, so it is the kernel over a grid of T programs with t the
 * program id, folded onto G: on a spatial chip, where the scheduler places
 * the programs, the loop unfolds. Its body moves to the top level. */
static void unfold_persistent(chk *c, int g)
{
    tir_func *f = c->f;
    tir_value *pid = program_id_value(f, g);
    if (pid)
        drop_counters(c, pid);
    tir_op *loop = pid ? persistent_loop(c, g, pid) : NULL;
    if (!loop)
        return;
    tir_value *var = tir_for_var(loop);
    const sym_expr *T = tir_for_hi(loop)->sym;
    tir_op *at = loop;
    for (tir_op *op = loop->regions[0]->first, *next; op; op = next) {
        next = op->next;
        if (op->code == TIR_YIELD)
            continue;
        tir_op_remove(op);
        tir_op_insert_after(f->body, at, op);
        at = op;
    }
    tir_op_remove(loop);
    tir_replace_uses(f->body, var, pid);
    if (var->name)
        pid->name = var->name;
    f->grid[g] = T;
    reinfer(c, f->body);
}

/* ---- guards on the program ids ------------------------------------------------ */

#define GUARD_FORM "loomc reads a run-time 'if' as a guard on the programs that do the kernel's work: bounds " \
                   "`pid < n` on program ids (through <, <=, >, >=, min, and, not) over the rest of the kernel"

/* The one grid axis e depends on; -1 if none, -2 if several. */
static int pid_axis(chk *c, const sym_expr *e)
{
    int axis = -1;
    for (int k = 0; k < c->f->grid_rank; k++)
        if (sym_depends_on(e, tir_pid_var(c->s, k)))
            axis = axis < 0 ? k : -2;
    return axis;
}

/* Whether e is negative for every value of the sizes and free constexprs
 * (all positive): at these sizes, or a negative constant times symbols. */
static bool negative(chk *c, const sym_expr *e)
{
    int64_t v;
    if (ct_known(c, e, &v))
        return v < 0;
    if (e->kind != SYM_MUL || !sym_is_const(e->args[0], &v) || v >= 0)
        return false;
    for (int i = 1; i < e->nargs; i++)
        if (e->args[i]->kind != SYM_VAR)
            return false;
    return true;
}

static void add_guard(chk *c, int axis, const sym_expr *bound, lm_loc loc)
{
    if (c->nguards == CHK_MAX_GUARDS)
        chk_fail(c, loc, "a kernel may have at most %d guards on its program ids", CHK_MAX_GUARDS);
    c->guards[c->nguards++] = (chk_guard){axis, bound, loc};
}

/* x < y, a condition of the guard */
static void guard_less(chk *c, const sym_expr *x, const sym_expr *y, lm_loc loc)
{
    if (y->kind == SYM_MIN || x->kind == SYM_MAX) { /* x < min(a, b): x < a and x < b */
        const sym_expr *m = y->kind == SYM_MIN ? y : x;
        for (int i = 0; i < m->nargs; i++)
            guard_less(c, m == y ? x : m->args[i], m == y ? m->args[i] : y, loc);
        return;
    }
    const sym_expr *diff = sym_sub(c->s, y, x); /* > 0 */
    int axis = pid_axis(c, diff);
    int64_t v;
    if (axis == -1) {
        if (!ct_known(c, diff, &v))
            chk_fail(c, loc, "%s; a part of this condition (%s < %s) depends on a free constexpr, which the solver "
                             "chooses (pin it with --const)",
                     GUARD_FORM, sym_str(c->a, x), sym_str(c->a, y));
        if (v <= 0)
            chk_fail(c, loc, "this condition is false for every program at these sizes (%s < %s), so no program "
                             "would do the work it guards",
                     sym_str(c->a, x), sym_str(c->a, y));
        return;
    }
    if (axis == -2)
        chk_fail(c, loc, "%s; %s < %s bounds several program ids together, which is no grid", GUARD_FORM,
                 sym_str(c->a, x), sym_str(c->a, y));
    const sym_expr *coef, *rest;
    if (!sym_affine_coeff(c->s, diff, tir_pid_var(c->s, axis), &coef, &rest) || pid_axis(c, coef) != -1)
        chk_fail(c, loc, "%s; %s < %s is not affine in the program id", GUARD_FORM, sym_str(c->a, x),
                 sym_str(c->a, y));
    if (!negative(c, coef))
        chk_fail(c, loc, "%s; %s < %s bounds program id %d from below (the grid would have to start past 0)",
                 GUARD_FORM, sym_str(c->a, x), sym_str(c->a, y), axis);
    /* coef * pid + rest > 0  <=>  pid < cdiv(rest, -coef) */
    const sym_expr *bound = sym_cdiv(c->s, rest, sym_neg(c->s, coef));
    if (ct_known(c, bound, &v) && v <= 0)
        chk_fail(c, loc, "this condition is false for every program at these sizes (program id %d < %lld), so no "
                         "program would do the work it guards",
                 axis, (long long)v);
    add_guard(c, axis, bound, loc);
}

static void guard_atoms(chk *c, const tir_value *v, bool neg, lm_loc loc)
{
    const tir_op *d = v->def;
    tir_opcode code = d ? d->code : TIR_NOPS;
    if ((code == TIR_AND && !neg) || (code == TIR_OR && neg)) {
        guard_atoms(c, d->opnds[0], neg, loc);
        guard_atoms(c, d->opnds[1], neg, loc);
        return;
    }
    if (code == TIR_NOT || (code == TIR_CAST && d->opnds[0]->type.elem == TIR_I1)) {
        guard_atoms(c, d->opnds[0], neg ^ (code == TIR_NOT), loc);
        return;
    }
    if (code == TIR_CMP_LT || code == TIR_CMP_LE || code == TIR_CMP_GT || code == TIR_CMP_GE) {
        const sym_expr *x = d->opnds[0]->sym, *y = d->opnds[1]->sym;
        if (!x || !y || !tir_elem_is_int(d->opnds[0]->type.elem))
            chk_fail(c, d->loc, "%s; this comparison is not of integers computed from program ids and sizes",
                     GUARD_FORM);
        if (neg) /* not (x < y) is y <= x, ... */
            code = code == TIR_CMP_LT ? TIR_CMP_GE : code == TIR_CMP_LE ? TIR_CMP_GT
                                                   : code == TIR_CMP_GT ? TIR_CMP_LE : TIR_CMP_LT;
        const sym_expr *one = sym_const(c->s, 1);
        switch (code) {
        case TIR_CMP_LT: guard_less(c, x, y, d->loc); break;
        case TIR_CMP_LE: guard_less(c, x, sym_add(c->s, y, one), d->loc); break;
        case TIR_CMP_GT: guard_less(c, y, x, d->loc); break;
        default: guard_less(c, y, sym_add(c->s, x, one), d->loc); break;
        }
        return;
    }
    chk_fail(c, d ? d->loc : loc, "%s; this condition is not of that form", GUARD_FORM);
}

void chk_grid_guard(chk *c, const tir_value *cond, bool negate, lm_loc loc)
{
    chk_reject_from_memory(c, cond, loc, "the condition of this 'if'");
    guard_atoms(c, cond, negate, loc);
}

/* Only the programs below each guard's bound do anything: the grid is
 * those, as long as the kernel does not ask how many programs it has. */
static void apply_guards(chk *c)
{
    tir_func *f = c->f;
    for (int i = 0; i < c->nguards; i++) {
        const chk_guard *g = &c->guards[i];
        for (tir_op *op = f->body->first; op; op = op->next)
            if (op->code == TIR_NUM_PROGRAMS && op->ival == g->axis && count_uses(f->body, op->results[0]))
                chk_fail(c, g->loc, "this guard leaves out programs of axis %d, whose number the kernel reads with "
                                    "tl.num_programs(%d); loomc cannot run it on fewer programs",
                         g->axis, g->axis);
        f->grid[g->axis] = sym_min(c->s, f->grid[g->axis], g->bound);
    }
}

void chk_grid_delinearise(chk *c)
{
    apply_guards(c);
    int rank = c->f->grid_rank;
    for (int g = 0; g < rank; g++) {
        unfold_persistent(c, g);
        try_axis(c, g);
    }
}
