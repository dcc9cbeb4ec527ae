/* busiest.c - the busiest core's counts: the trips of a loop whose count
 * depends on the program id, as the core that runs the most of them runs
 * them (the count at its programs' mean id, the ceilings each program
 * rounds on its own), by the placement's dealing of programs to cores. */
#include "sched/sched_int.h"

/* The slots of the last wave that no program fills when n programs are
 * dealt to G cores: (-n) mod G (G W - n where each core runs W). */
static const sym_expr *idle_slots(mctx *c, const sym_expr *n, const sym_expr *G)
{
    return sym_mod(c->s, sub(c, K(c, 0), n), G);
}

/* Trip counts that depend on the program id: the busiest core runs W
   programs; for a count monotone in the program id it is bounded by the
   larger of the first program's count and that of the mean program of the
   busiest core's share. Along an axis dealt to g cores (core c runs programs
   c, c + g, ...; on time g = 1: every core runs all n), the programs of the
   last core with W of them have mean id n - 1 - g (W - 1) / 2 - for a
   count that grows with the id (causal attention) that core is the
   busiest, and its W programs take W times the count at their mean id
   (for a count linear in the id; rounded up, half a program's count over
   when g (W - 1) is odd). Written as (n + g - idle) / 2 - 1 with idle =
   g W - n = (-n) mod g, the slots of the last wave no program fills: no
   product of g and W, whose bound would stay loose while the grid is open
   and slow the solver down. Dealt back and forth in whole waves
   (sched_zigzag, idle = 0) the busiest core's mean id is (n - 1) / 2,
   (g - 1) / 2W more for W odd (its forward first wave unpaired). Axes flattened
   over the grid (xy; wg[g] the programs a core runs) keep the centre
   n/2 + n/2W (a count linear in the id is corrected by flat_sum).
   gs[g]: the cores along axis g (NULL for xy). */
static const sym_expr *busiest(mctx *c, const sym_expr *e, unsigned stretched, unsigned wave,
                               const sym_expr **live);

static const sym_expr *busiest_rounding(mctx *c, const sym_expr *e, unsigned stretched, const sym_expr *trips);

/* The most programs along an axis that active_programs counts one by one. */
#define ACTIVE_MAX 64

/* Bounds of e over the solver variables' domains, with the program id pv
 * (when given) over 0..pmax; false where they cannot be told. */
static bool most_over_domains(mctx *c, const sym_expr *e, const sym_expr *pv, int64_t pmax, int64_t *lo,
                              int64_t *hi)
{
    sym_env env = {0};
    for (size_t v = 0; v < c->vars.len; v++) {
        const solve_var *sv = &c->vars.items[v];
        int64_t a = sv->domain[0], b = sv->domain[0];
        for (int j = 1; j < sv->ndomain; j++)
            a = LM_MIN(a, sv->domain[j]), b = LM_MAX(b, sv->domain[j]);
        sym_env_set_range(&env, sv->var, a, b);
    }
    if (pv)
        sym_env_set_range(&env, pv, 0, pmax);
    bool ok = sym_bounds(e, &env, lo, hi) == SYM_OK;
    sym_env_free(&env);
    return ok;
}

/* A loop of the program body whose trip count depends on one program axis
 * g alone and falls to 0 or below at some ids (flash decode's split of the
 * sequence into NUM_SPLITS runs of whole blocks: with fewer blocks than
 * splits the last splits read nothing): c->active[i], the programs of the
 * axis with a trip, and c->trip_sum[i], their trips added up - the count
 * taken at each id p < n in turn, for axes of at most ACTIVE_MAX programs.
 * (Halving for the first id without a trip, in a few copies of the count,
 * slows the solver more than one copy per id: its bounds lose their grip.) */
static void active_programs(mctx *c, int i)
{
    const sched_kernel *k = c->k;
    c->active[i] = c->trip_sum[i] = NULL;
    if (k->loops[i].parent >= 0 || (c->fz && c->c->fuse == SCHED_FUSE_CONSUMER))
        return;
    const sym_expr *e = fix(c, k->loops[i].trips), *pv = NULL;
    int g = -1;
    for (int a = 0; a < k->f->grid_rank; a++)
        if (sym_depends_on(e, tir_pid_var(c->s, a))) {
            if (g >= 0)
                return;
            g = a;
            pv = tir_pid_var(c->s, a);
        }
    if (g < 0)
        return;
    for (int j = 0; j < k->nloops; j++)
        if (k->loops[j].op->iv && sym_depends_on(e, k->loops[j].op->iv))
            return;
    int64_t nlo, nhi, elo, ehi;
    if (!most_over_domains(c, c->nprog[g], NULL, 0, &nlo, &nhi) || nhi > ACTIVE_MAX || nlo < 1 ||
        !most_over_domains(c, e, pv, nhi - 1, &elo, &ehi) || elo >= 1)
        return; /* too many programs to count, or every one has a trip */
    const sym_expr *n = c->nprog[g], *act = K(c, 0), *sum = K(c, 0);
    for (int64_t p = 0; p < nhi; p++) {
        const sym_expr *ep = mx(c, K(c, 0), sym_replace(c->s, e, pv, K(c, p)));
        const sym_expr *in = p < nlo ? K(c, 1) : mn(c, K(c, 1), mx(c, K(c, 0), sub(c, n, K(c, p))));
        act = add(c, act, mul(c, in, mn(c, K(c, 1), ep)));
        sum = add(c, sum, mul(c, in, ep));
    }
    c->active[i] = act;
    c->trip_sum[i] = sum;
    c->active_g[i] = g;
}

void sched_busiest_trips(mctx *c, const sym_expr *const *wg, const sym_expr *const *gs)
{
    const sched_kernel *k = c->k;
    bool consumer = c->fz && c->c->fuse == SCHED_FUSE_CONSUMER;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        c->wg[g] = wg[g], c->gs[g] = gs[g];
    for (int i = 0; i < k->nloops; i++) {
        int w = consumer ? -1 : sched_wave_axis(k, c->c, i, c->s);
        c->trips[i] = busiest(c, k->loops[i].trips, consumer ? 0 : sched_stretched_axes(k, c->c, i),
                              w >= 0 ? 1u << w : 0, &c->live[i]);
    }
    for (int i = 0; i < k->nloops; i++)
        c->extra[i] = consumer || k->loops[i].parent >= 0
                          ? NULL
                          : busiest_rounding(c, k->loops[i].trips, sched_stretched_axes(k, c->c, i), c->trips[i]);
    for (int i = 0; i < k->nloops; i++)
        active_programs(c, i);
    /* the trips that keep a mask the lowering leaves out on the others */
    c->masked = LM_NEWN(c->ar, const sym_expr *, k->nlowered ? k->nlowered : 1);
    for (int l = 0; l < k->nlowered; l++)
        c->masked[l] = k->lowered[l].kind == SCHED_LOWER_SPLIT ? busiest(c, k->lowered[l].masked, 0, 0, NULL) : NULL;
    /* and the masked copies of blocks cut short */
    int nacc = k->acc ? k->acc->n : 0;
    c->clip_kept = LM_NEWN(c->ar, const sym_expr *, nacc ? nacc : 1);
    for (int i = 0; k->acc_clip_kept && i < nacc; i++)
        c->clip_kept[i] = k->acc_clip_kept[i] ? busiest(c, k->acc_clip_kept[i], 0, 0, NULL) : NULL;
}

/* A count e (a trip count, the trips that keep a mask) of the busiest
 * core's programs, as sched_busiest_trips takes it; along the axes `stretched`
 * (sched_stretched_axes) every program runs the count of the last program
 * (of a count that grows with the id; the first's when it falls) where the
 * axis has more than one core. *live (when asked): of those, the trips that
 * run at the pace of a core that computes them. A group moves each block in
 * step, so a wave's trips up to its last program's count run at that
 * program's pace and the rest move data alone: the count at the mean of the
 * waves' last ids, (n + idle + g) / 2 - 1 - idle / W (every wave's last id
 * is g - 1 past its first but the last wave's, idle short of it). An axis
 * flattened over the grid is taken whole (live = the stretched count). Along
 * the axis `wave` (bit g: sched_wave_axis) the lowering stretches each wave
 * to its own last program: the count is the live one, no trip past it. */
static const sym_expr *busiest(mctx *c, const sym_expr *e, unsigned stretched, unsigned wave, const sym_expr **live)
{
    const sched_kernel *k = c->k;
    int rank = k->f->grid_rank;
    const sym_expr *t0 = fix(c, e), *tb = t0, *tl = t0;
    for (int g = 0; g < rank; g++) {
        const sym_expr *pv = tir_pid_var(c->s, g);
        if (!sym_depends_on(t0, pv))
            continue;
        const sym_expr *n = c->nprog[g], *idle = c->gs[g] ? idle_slots(c, n, c->gs[g]) : NULL;
        const sym_expr *pb =
            c->gs[g] ? mx(c, K(c, 0), sub(c, cdv(c, sub(c, add(c, n, c->gs[g]), idle), K(c, 2)), K(c, 1)))
                     : add(c, fdv(c, n, K(c, 2)), fdv(c, n, mul(c, K(c, 2), c->wg[g])));
        if (c->gs[g] && c->c->place[g] != SCHED_ON_TIME && sched_zigzag(k, c->c, c->c->place[g], c->s)) {
            /* whole waves dealt back and forth: (n - 1) / 2, and with W odd
               its one unpaired wave, forward, adds (g - 1) / 2W; a partial
               last wave keeps the one direction (min(1, idle) picks) */
            const sym_expr *W = c->wg[g];
            const sym_expr *zig = add(c, cdv(c, sub(c, n, K(c, 1)), K(c, 2)),
                                      mul(c, sym_mod(c->s, W, K(c, 2)),
                                          cdv(c, sub(c, c->gs[g], K(c, 1)), mul(c, K(c, 2), W))));
            pb = add(c, zig, mul(c, mn(c, K(c, 1), idle), sub(c, pb, zig)));
        }
        pb = mn(c, sub(c, n, K(c, 1)), pb);
        const sym_expr *pl = pb;
        if (stretched >> g & 1) {
            /* the last program's id where the axis's cores are more than one */
            const sym_expr *many = c->gs[g] ? mn(c, K(c, 1), mx(c, K(c, 0), sub(c, c->gs[g], K(c, 1)))) : K(c, 1);
            const sym_expr *last = sub(c, n, K(c, 1));
            pb = add(c, pb, mul(c, many, sub(c, last, pb)));
            pl = pb;
            if (c->gs[g]) {
                pl = sub(c, sub(c, cdv(c, add(c, add(c, n, idle), c->gs[g]), K(c, 2)), K(c, 1)),
                         fdv(c, idle, c->wg[g]));
                pl = mn(c, last, mx(c, K(c, 0), pl));
                /* stretched per wave: no trip past the wave's last program */
                if (wave >> g & 1)
                    pb = pl;
            }
        }
        t0 = sym_replace(c->s, t0, pv, K(c, 0));
        tb = sym_replace(c->s, tb, pv, pb);
        tl = sym_replace(c->s, tl, pv, pl);
    }
    /* a count that depends on an enclosing loop's index: taken at index 0 */
    for (int j = 0; j < k->nloops; j++) {
        const sym_expr *iv = k->loops[j].op->iv;
        if (iv && sym_depends_on(t0, iv)) {
            t0 = sym_replace(c->s, t0, iv, K(c, 0));
            tb = sym_replace(c->s, tb, iv, K(c, 0));
            tl = sym_replace(c->s, tl, iv, K(c, 0));
        }
    }
    const sym_expr *most = t0 == tb ? t0 : mx(c, t0, tb);
    if (live)
        *live = tl == tb ? most : t0 == tl ? t0 : mx(c, t0, tl);
    return most;
}

/* A count of the form busiest_rounding prices: cdiv(A, B), A = min(X, R)
 * or X, X = step * pid_g + off with step and B positive. */
typedef struct linear_count {
    int g;                          /* the program axis */
    bool flat;                      /* g flattened over the grid (xy), its slowest axis */
    const sym_expr *e0, *pv, *B;    /* the count, pid_g, the divisor */
    const sym_expr *step, *off, *R; /* R: NULL without the min */
} linear_count;

/* Whether e (fixed) has that form along one program axis, not stretched,
 * dealt to cores or flattened over the grid as the slowest of the
 * flattened axes, and depends on no loop index. */
static bool linear_form(mctx *c, const sym_expr *e, unsigned stretched, linear_count *lc)
{
    const sched_kernel *k = c->k;
    int rank = k->f->grid_rank;
    lc->g = -1;
    lc->e0 = fix(c, e);
    if (lc->e0->kind != SYM_CDIV)
        return false;
    const sym_expr *A = lc->e0->args[0];
    lc->B = lc->e0->args[1];
    for (int h = 0; h < rank; h++) {
        if (sym_depends_on(lc->B, tir_pid_var(c->s, h)))
            return false;
        if (sym_depends_on(A, tir_pid_var(c->s, h))) {
            if (lc->g >= 0)
                return false;
            lc->g = h;
        }
    }
    if (lc->g < 0 || (stretched >> lc->g & 1))
        return false;
    lc->flat = !c->gs[lc->g];
    for (int h = 0; lc->flat && h < lc->g; h++)
        if (c->c->place[h] == SCHED_ON_XY)
            return false; /* a slower flattened axis before g: g's ids wrap */
    for (int j = 0; j < k->nloops; j++)
        if (k->loops[j].op->iv && sym_depends_on(A, k->loops[j].op->iv))
            return false;
    lc->pv = tir_pid_var(c->s, lc->g);
    const sym_expr *X = A;
    lc->R = NULL;
    if (A->kind == SYM_MIN) { /* min(X, R...) with X the one term of the id */
        const sym_expr *rest[8];
        int nr = 0;
        X = NULL;
        for (int i = 0; i < A->nargs; i++) {
            if (sym_depends_on(A->args[i], lc->pv)) {
                if (X)
                    return false;
                X = A->args[i];
            } else if (nr < 8) {
                rest[nr++] = A->args[i];
            } else {
                return false;
            }
        }
        lc->R = sym_make(c->s, SYM_MIN, rest, nr);
    }
    return sym_affine_coeff(c->s, X, lc->pv, &lc->step, &lc->off) && sym_at_least_on_sizes(lc->step, 1) &&
           sym_at_least_on_sizes(lc->B, 1);
}

/* Twice the mean program id of the busiest core along axis g (whole: the
 * sched_busiest_trips rule's n + g - idle - 2, or n - 1 dealt back and forth). */
static const sym_expr *busiest_mean2(mctx *c, int g)
{
    const sym_expr *n = c->nprog[g], *G = c->gs[g], *W = c->wg[g];
    const sym_expr *idle = idle_slots(c, n, G);
    const sym_expr *m2 = mx(c, K(c, 0), sub(c, add(c, n, G), add(c, idle, K(c, 2))));
    if (c->c->place[g] != SCHED_ON_TIME && sched_zigzag(c->k, c->c, c->c->place[g], c->s)) {
        const sym_expr *zig = add(c, sub(c, n, K(c, 1)),
                                  mul(c, sym_mod(c->s, W, K(c, 2)), cdv(c, sub(c, G, K(c, 1)), W)));
        m2 = add(c, zig, mul(c, mn(c, K(c, 1), idle), sub(c, m2, zig)));
    }
    return mn(c, m2, mul(c, K(c, 2), sub(c, n, K(c, 1))));
}

/* The ceilings of n programs' counts cdiv(A_j, B) whose A_j sum to sa
 * (busiest_rounding): each rounds A_j up by up to B - gcd(step, B), their
 * sum taken as (n + 1) / 2n of the most (all of it for one program, half
 * of it for many: a sum of many residues strays less from their mean),
 * rounded down, and no less than one rounding of the sum. The gcd is the
 * smaller of step and B where one divides the other, else 1. */
static const sym_expr *ceilings(mctx *c, const linear_count *lc, const sym_expr *sa, const sym_expr *n)
{
    const sym_expr *B = lc->B, *lo = mn(c, lc->step, B), *hi = mx(c, lc->step, B);
    const sym_expr *gcd = add(c, K(c, 1), mul(c, sub(c, lo, K(c, 1)),
                                              sub(c, K(c, 1), mn(c, K(c, 1), sym_mod(c->s, hi, lo)))));
    const sym_expr *sum = fdv(c, add(c, mul(c, K(c, 2), sa), mul(c, add(c, n, K(c, 1)), sub(c, B, gcd))),
                              mul(c, K(c, 2), B));
    return mx(c, sum, cdv(c, sa, B));
}

/* Along an axis dealt to cores: the W programs' trips from W A(mean), A
 * at the mean id exactly (busiest_mean2), and no less than W times the
 * first program's count (a count capped by the sequence leaves the
 * lattice the gcd describes). */
static const sym_expr *dealt_sum(mctx *c, const linear_count *lc)
{
    const sym_expr *W = c->wg[lc->g];
    const sym_expr *wa =
        fdv(c, mul(c, W, add(c, mul(c, lc->step, busiest_mean2(c, lc->g)), mul(c, K(c, 2), lc->off))), K(c, 2));
    if (lc->R)
        wa = mn(c, wa, mul(c, W, lc->R));
    return mx(c, ceilings(c, lc, wa, W), mul(c, W, sym_replace(c->s, lc->e0, lc->pv, K(c, 0))));
}

/* The exact counts flat_sum takes before the rest's mean. */
enum { FLAT_EXACT = 3 };

/* The programs of the flattened axes after g: how many of them share each
 * id of g. */
static const sym_expr *flat_faster(mctx *c, int g)
{
    const sym_expr *faster = K(c, 1);
    for (int h = g + 1; h < c->k->f->grid_rank; h++)
        if (c->c->place[h] == SCHED_ON_XY)
            faster = mul(c, faster, c->nprog[h]);
    return faster;
}

/* The trips of one core's W programs along a flattened axis (flat_sum):
 * its j-th program from its last lies d_j = j G (+ back where j + par is
 * odd) programs before the grid's last, at id n - 1 - floor(d_j / faster).
 * The first FLAT_EXACT counts exactly; of the rest, those at the last id
 * (par 0: the last core with W programs, where G < faster) at that id's
 * count, the others at the mean of their d_j (their floors short by
 * (faster - 1) / 2 each) through `ceilings`. */
static const sym_expr *flat_core(mctx *c, const linear_count *lc, const sym_expr *back, int par)
{
    const sym_expr *n = c->nprog[lc->g], *G = c->cores, *W = c->wg[lc->g], *faster = flat_faster(c, lc->g);
    const sym_expr *top = sub(c, n, K(c, 1)), *sum = K(c, 0);
    for (int j = 0; j < FLAT_EXACT; j++) {
        const sym_expr *d = add(c, mul(c, K(c, j), G), (j + par) % 2 ? back : K(c, 0));
        const sym_expr *id = mx(c, K(c, 0), sub(c, top, fdv(c, d, faster)));
        const sym_expr *runs = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, W, K(c, j))));
        sum = add(c, sum, mul(c, runs, sym_replace(c->s, lc->e0, lc->pv, id)));
    }
    const sym_expr *rest = mx(c, K(c, 0), sub(c, W, K(c, FLAT_EXACT)));
    const sym_expr *at_top =
        par ? K(c, 0) : mx(c, K(c, 0), sub(c, mn(c, W, cdv(c, faster, G)), K(c, FLAT_EXACT)));
    const sym_expr *others = sub(c, rest, at_top);
    sum = add(c, sum, mul(c, at_top, sym_replace(c->s, lc->e0, lc->pv, top)));
    /* twice the rest's d_j: G (FLAT_EXACT + W - 1) per program, and `back`
       on those of j + par odd */
    const sym_expr *odd = mul(c, mn(c, K(c, 1), rest), sub(c, fdv(c, W, K(c, 2)), K(c, FLAT_EXACT / 2)));
    if (par)
        odd = sub(c, rest, odd);
    const sym_expr *d2 = add(c, mul(c, mul(c, G, add(c, W, K(c, FLAT_EXACT - 1))), rest),
                             mul(c, mul(c, K(c, 2), back), odd));
    const sym_expr *floors = mx(c, K(c, 0), fdv(c, sub(c, d2, mul(c, rest, sub(c, faster, K(c, 1)))),
                                                mul(c, K(c, 2), faster)));
    const sym_expr *sa = mx(c, K(c, 0), add(c, mul(c, lc->step, sub(c, mul(c, others, top), floors)),
                                            mul(c, others, lc->off)));
    if (lc->R)
        sa = mn(c, sa, mul(c, others, lc->R));
    return add(c, sum, ceilings(c, lc, sa, others));
}

/* Flattened over the grid (g the slowest of the flattened axes, `faster`
 * programs of the others to each of its ids): core i runs programs i,
 * i + G, ... of the n x faster, and the busiest is the last core with W of
 * them (flat_core, par 0). Dealt back and forth in whole waves
 * (sched_zigzag) every core's programs pair up to the same mean and the
 * ceilings decide: cores G - 1 (its odd programs from the last backward,
 * G - 1 further back) and 0 (its even ones), the more of the two. Against
 * the busiest core dealt by hand (sequences 32..8192, blocks 32..288 by
 * 32..512, 1..64 heads, 1..192 cores) 0.6% off on average, where the count
 * at the mean id is 14.7% off (W = 2, n = 3: ids 1 and 2, where the mean
 * id's count takes id 1 twice); whole waves back and forth, 2..4 to a
 * core: 1.4% off (core G - 1 alone 3.1%, the mean id 24%). */
static const sym_expr *flat_sum(mctx *c, const linear_count *lc)
{
    if (!sched_zigzag(c->k, c->c, SCHED_ON_XY, c->s))
        return flat_core(c, lc, K(c, 0), 0);
    const sym_expr *G = c->cores, *W = c->wg[lc->g];
    const sym_expr *idle = idle_slots(c, mul(c, c->nprog[lc->g], flat_faster(c, lc->g)), G);
    const sym_expr *back =
        mul(c, mul(c, sub(c, K(c, 1), mn(c, K(c, 1), idle)), mn(c, K(c, 1), sub(c, W, K(c, 1)))), sub(c, G, K(c, 1)));
    return mx(c, flat_core(c, lc, back, 0), flat_core(c, lc, back, 1));
}

/* The trips the busiest core's programs run past waves x trips (its W
 * programs along the axis at the count of their mean id) for a count
 * cdiv(A, B) whose A grows linearly with one program id (or is the smaller
 * of such a term and a bound: causal attention's key blocks,
 * cdiv(min((m + 1)*BLOCK_M, S), BLOCK_N)). Each program rounds its own A up
 * to a multiple of B; the mean's count rounds once, for all W (n150
 * S=2048, blocks 128 and 416: programs of 3 and 4 trips where the mean
 * counts 3 twice). Dealt to cores (dealt_sum), against the busiest core's
 * trips dealt by hand over sequences 36..4096, blocks 32..512 and 1..12
 * cores, 2.7% off on average where the count at the mean is 7.9% off;
 * flattened over the grid, flat_sum. NULL where e has no such form
 * (linear_form). The difference may be negative: the mean id of a
 * flattened axis (busiest) is a bound, not the mean. */
static const sym_expr *busiest_rounding(mctx *c, const sym_expr *e, unsigned stretched, const sym_expr *trips)
{
    linear_count lc;
    if (!linear_form(c, e, stretched, &lc))
        return NULL;
    const sym_expr *sum = lc.flat ? flat_sum(c, &lc) : dealt_sum(c, &lc);
    const sym_expr *others = K(c, 1); /* the programs of the other axes (not flattened with g) */
    for (int h = 0; h < c->k->f->grid_rank; h++)
        if (h != lc.g && !(lc.flat && c->c->place[h] == SCHED_ON_XY))
            others = mul(c, others, c->wg[h]);
    return mul(c, others, sub(c, sum, mul(c, c->wg[lc.g], trips)));
}
