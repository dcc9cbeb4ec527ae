/* cand.c - the discrete choices of a schedule: where each program axis goes
 * on the core grid, and how each loaded block reaches the cores that need it.
 *
 * Enumeration is the full cross product: every program axis on x, y, xy
 * (flattened) or time (a loop on each core), times, per load, one of nine
 * transports (DRAM; multicast along x, y or the whole grid from an edge or an
 * interior sender; forwarding along x or y). A combination is legal when
 *  - at most one axis is on x and one on y, and flattened axes are not mixed
 *    with x/y axes;
 *  - a load multicast or forwarded along x (y) does not depend on the axis on
 *    x (y) - the cores of a row (column) then need the same block at the same
 *    step (acc_access.reuse); multicast to the whole grid needs a placement
 *    over both core dimensions and a load that depends on no spread axis;
 *  - the chip supports the multicast shape (rows, columns and the grid are
 *    rectangles: arch.mcast_rect).
 * Sub-grids smaller than the chip and several programs per core (waves) are
 * not enumerated here: grid.x and grid.y are solver variables.
 *
 * Dominance: candidate A dominates B when A's parallel extent (most cores it
 * can keep busy, at the smallest block sizes) is at least B's and, for every
 * load, A's reuse factor (cores sharing one DRAM read) is at least B's with
 * the same mechanism (or B has no reuse there), and A stretches no loop B
 * runs as is (sched_stretches); exact ties keep the earlier candidate.
 * Dominated candidates are not solved. A constexpr that is not a
 * block size (a split count) is taken at each of its values 1 to 64 as
 * well: dominance must hold at every one.
 */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

const char *sched_place_name(sched_place p)
{
    switch (p) {
    case SCHED_ON_X: return "x";
    case SCHED_ON_Y: return "y";
    case SCHED_ON_XY: return "xy";
    case SCHED_ON_TIME: return "time";
    }
    return "?";
}

const char *sched_transport_name(sched_transport t)
{
    switch (t) {
    case SCHED_DRAM: return "dram";
    case SCHED_MCAST: return "mcast";
    case SCHED_FORWARD: return "forward";
    case SCHED_FUSED: return "fused";
    }
    return "?";
}

const char *sched_noc_name(sched_noc n)
{
    switch (n) {
    case SCHED_NOC_ANY: return "any";
    case SCHED_NOC_0: return "NoC 0";
    case SCHED_NOC_1: return "NoC 1";
    }
    return "?";
}

sched_noc sched_load_noc(const sched_candidate *c, int i)
{
    const sched_operand *o = &c->ops[i];
    if (o->noc != SCHED_NOC_ANY)
        return o->noc;
    /* a fused consumer's passed blocks come from the producers: the reader
       waits for them and pushes them */
    if (o->transport == SCHED_DRAM || o->transport == SCHED_FUSED)
        return SCHED_NOC_0;
    int moved = 0;
    for (int j = 0; j < i; j++)
        moved += c->ops[j].transport != SCHED_DRAM && c->ops[j].transport != SCHED_FUSED &&
                 c->ops[j].noc == SCHED_NOC_ANY;
    return moved % 2 == 0 ? SCHED_NOC_0 : SCHED_NOC_1;
}

/* x and y exchanged (the whole grid and time stay as they are). */
static sched_place mirrored(sched_place p)
{
    return p == SCHED_ON_X ? SCHED_ON_Y : p == SCHED_ON_Y ? SCHED_ON_X : p;
}

/* Loads of c that move core to core on the NoC its rule gives (bit i: ops[i]). */
static unsigned rule_moved(const sched_candidate *c)
{
    unsigned bits = 0;
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].transport != SCHED_DRAM && c->ops[i].transport != SCHED_FUSED &&
            c->ops[i].noc == SCHED_NOC_ANY)
            bits |= 1u << i;
    return bits;
}

bool sched_noc_mirror(const sched_kernel *k, const sched_candidate *c, const arch_desc *a, sched_candidate *out,
                      lm_arena *ar)
{
    unsigned moved = rule_moved(c);
    if (c->fuse != SCHED_FUSE_NONE || __builtin_popcount(moved) < 2)
        return false;
    *out = *c;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        out->place[g] = mirrored(c->place[g]);
    for (int i = 0; i < c->nops; i++) {
        out->ops[i].along = mirrored(c->ops[i].along);
        if (moved >> i & 1)
            out->ops[i].noc = sched_load_noc(c, i) == SCHED_NOC_0 ? SCHED_NOC_1 : SCHED_NOC_0;
    }
    lm_buf why = {0};
    bool ok = sched_candidate_check(k, out, a, &why);
    lm_buf_free(&why);
    if (ok)
        out->label = sched_candidate_label(k, out, ar);
    return ok;
}

bool sched_same_mapping(const sched_candidate *a, const sched_candidate *b)
{
    if (a->nops != b->nops || a->fuse != b->fuse || a->store_noc != b->store_noc)
        return false;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        if (a->place[g] != b->place[g])
            return false;
    for (int i = 0; i < a->nops; i++) {
        const sched_operand *x = &a->ops[i], *y = &b->ops[i];
        if (x->access != y->access || x->transport != y->transport || x->along != y->along ||
            x->interior_sender != y->interior_sender || sched_load_noc(a, i) != sched_load_noc(b, i))
            return false;
    }
    return true;
}

/* The nine transports of one load, in enumeration order. */
static const sched_operand transports[] = {
    {0, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_X, false, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_X, true, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_Y, false, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_Y, true, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_XY, false, SCHED_NOC_ANY},
    {0, SCHED_MCAST, SCHED_ON_XY, true, SCHED_NOC_ANY},
    {0, SCHED_FORWARD, SCHED_ON_X, false, SCHED_NOC_ANY},
    {0, SCHED_FORWARD, SCHED_ON_Y, false, SCHED_NOC_ANY},
};
enum { NTRANSPORTS = (int)(sizeof transports / sizeof transports[0]) };

/* The name the kernel gives pid.g (`pid_m = tl.program_id(0)`), else pid.g. */
const char *sched_axis_name(const sched_kernel *k, int g, lm_arena *ar)
{
    for (const tir_op *op = k->f->body->first; op; op = op->next)
        if (op->code == TIR_PROGRAM_ID && op->ival == g && op->results[0]->name)
            return op->results[0]->name;
    return lm_arena_printf(ar, "pid.%d", g);
}

static const char *load_name(const sched_kernel *k, int access)
{
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN && k->bufs[i].access == access)
            return k->bufs[i].name;
    return k->acc->acc[access].tensor ? k->acc->acc[access].tensor->name : "?";
}

const char *sched_candidate_label(const sched_kernel *k, const sched_candidate *c, lm_arena *ar)
{
    lm_buf b = {0};
    for (int g = 0; g < k->f->grid_rank; g++)
        lm_buf_printf(&b, "%s%s->%s", g ? " " : "", sched_axis_name(k, g, ar), sched_place_name(c->place[g]));
    for (int i = 0; i < c->nops; i++) {
        const sched_operand *o = &c->ops[i];
        lm_buf_printf(&b, "; %s: %s", load_name(k, o->access), sched_transport_name(o->transport));
        if (o->transport == SCHED_FUSED)
            lm_buf_puts(&b, " from the producers of its group");
        else if (o->transport != SCHED_DRAM)
            lm_buf_printf(&b, " along %s", sched_place_name(o->along));
        if (o->transport == SCHED_MCAST)
            lm_buf_puts(&b, o->interior_sender ? " (interior sender)" : " (edge sender)");
        if (o->noc != SCHED_NOC_ANY)
            lm_buf_printf(&b, " on %s", sched_noc_name(o->noc));
    }
    if (c->store_noc != SCHED_NOC_ANY)
        lm_buf_printf(&b, "; stores on %s", sched_noc_name(c->store_noc));
    if (c->fuse == SCHED_FUSE_PRODUCER) {
        lm_buf_puts(&b, ";");
        int n = 0;
        for (int i = 0; i < k->nbufs; i++)
            if (k->bufs[i].kind == SCHED_BUF_OUT && k->bufs[i].access < 64 && (c->fused_acc >> k->bufs[i].access & 1u))
                lm_buf_printf(&b, "%s %s", n++ ? "," : "", k->bufs[i].name);
        lm_buf_printf(&b, ": fused, over the NoC to the reducer cores of each group (its first along %s)",
                      sched_place_name(c->fuse_along));
    } else if (c->fuse == SCHED_FUSE_CONSUMER) {
        lm_buf_puts(&b, " (fused: on the reducer cores)");
    }
    const char *s = lm_arena_strdup(ar, lm_buf_str(&b));
    lm_buf_free(&b);
    return s;
}

/* A valid assignment of axes to core dimensions. */
static bool placement_ok(const sched_place *p, int rank)
{
    int nx = 0, ny = 0, nxy = 0;
    for (int g = 0; g < rank; g++) {
        nx += p[g] == SCHED_ON_X;
        ny += p[g] == SCHED_ON_Y;
        nxy += p[g] == SCHED_ON_XY;
    }
    return nx <= 1 && ny <= 1 && !(nxy && (nx || ny));
}

/* The axis placed on dimension d (x or y), or -1. */
static int axis_on(const sched_place *p, int rank, sched_place d)
{
    for (int g = 0; g < rank; g++)
        if (p[g] == d)
            return g;
    return -1;
}

static bool transport_ok(const sched_operand *t, const acc_access *x, const sched_place *p, int rank,
                         const arch_desc *a)
{
    if (t->transport == SCHED_DRAM)
        return true;
    if (t->transport == SCHED_FUSED)
        return false; /* only a fused consumer's, which sched_candidate_check admits */
    if (t->transport == SCHED_MCAST && !a->mcast_rect)
        return false;
    if (t->along == SCHED_ON_XY) {
        /* the whole grid: only when the placement spreads over both core
           dimensions (with one, it is that row or column) */
        bool sx = false, sy = false;
        for (int g = 0; g < rank; g++) {
            if (p[g] == SCHED_ON_TIME)
                continue;
            sx |= p[g] == SCHED_ON_X || p[g] == SCHED_ON_XY;
            sy |= p[g] == SCHED_ON_Y || p[g] == SCHED_ON_XY;
            if (!((x->reuse >> g) & 1u))
                return false;
        }
        return sx && sy;
    }
    int g = axis_on(p, rank, t->along);
    return g >= 0 && ((x->reuse >> g) & 1u);
}

bool sched_candidate_check(const sched_kernel *k, const sched_candidate *c, const arch_desc *a, lm_buf *why)
{
    int rank = k->f->grid_rank;
    if (!placement_ok(c->place, rank)) {
        lm_buf_puts(why, "at most one program axis on x and one on y, and flattened (xy) axes with no x or y axis");
        return false;
    }
    int nl = 0;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN)
            nl++;
    if (c->nops != nl) {
        lm_buf_printf(why, "%d transports given for %d loads", c->nops, nl);
        return false;
    }
    for (int i = 0; i < c->nops; i++) {
        const sched_operand *o = &c->ops[i];
        bool is_load = false;
        for (int b = 0; b < k->nbufs; b++)
            is_load |= k->bufs[b].kind == SCHED_BUF_IN && k->bufs[b].access == o->access;
        if (!is_load || (i && c->ops[i - 1].access >= o->access)) {
            lm_buf_printf(why, "transport %d: access %d is not the next load of the kernel", i, o->access);
            return false;
        }
        arch_desc any = {.mcast_rect = true};
        if (o->transport == SCHED_FUSED && c->fuse == SCHED_FUSE_CONSUMER)
            continue; /* the pairing with the producer is checked with both kernels */
        if (!transport_ok(o, &k->acc->acc[o->access], c->place, rank, a ? a : &any)) {
            lm_buf_printf(why, "the load of '%s' cannot use %s along %s with this placement", load_name(k, o->access),
                          sched_transport_name(o->transport), sched_place_name(o->along));
            return false;
        }
    }
    return true;
}

/* Largest number of programs along each axis over the free constexprs'
 * ranges: block sizes from one tile up (with `blk` > 0: all at blk), other
 * constexprs up to 64, or, with `at` > 0, those other constexprs at `at`.
 * Returns whether the kernel has an unpinned constexpr other than a block
 * size; *blocks (when asked) whether it has an unpinned block size. */
static bool max_programs(const sched_kernel *k, const arch_desc *a, const sym_env *bound, int64_t at, int64_t blk,
                         int64_t *out, bool *blocks)
{
    bool other = false;
    if (blocks)
        *blocks = false;
    sym_env env = {0};
    for (int i = 0; bound && i < bound->n; i++)
        sym_env_set_range(&env, bound->b[i].var, bound->b[i].lo, bound->b[i].hi);
    for (int i = 0; i < k->nfree; i++) {
        int64_t lo, hi;
        if (sym_env_get(&env, k->frees[i].var, &lo, &hi))
            continue; /* pinned */
        if (k->frees[i].block_dim) {
            sym_env_set_range(&env, k->frees[i].var, blk > 0 ? blk : LM_MIN(a->tile_h, a->tile_w),
                              blk > 0 ? blk : 1 << 20);
            if (blocks)
                *blocks = true;
        } else {
            sym_env_set_range(&env, k->frees[i].var, at > 0 ? at : 1, at > 0 ? at : 64);
            other = true;
        }
    }
    for (int g = 0; g < k->f->grid_rank; g++) {
        int64_t lo, hi;
        if (sym_bounds(k->f->grid[g], &env, &lo, &hi) != SYM_OK || hi < 1)
            hi = 1;
        out[g] = hi;
    }
    sym_env_free(&env);
    return other;
}

unsigned sched_group_axes(const sched_candidate *c, sched_place along, int rank)
{
    unsigned axes = 0;
    for (int g = 0; g < rank; g++) {
        sched_place pl = c->place[g];
        if (pl == SCHED_ON_XY || (along == pl && pl != SCHED_ON_TIME) ||
            (along == SCHED_ON_XY && (pl == SCHED_ON_X || pl == SCHED_ON_Y)))
            axes |= 1u << g;
    }
    return axes;
}

unsigned sched_stretched_axes(const sched_kernel *k, const sched_candidate *c, int i)
{
    unsigned axes = 0;
    for (int j = 0; j < c->nops; j++) {
        const sched_operand *o = &c->ops[j];
        if (o->transport != SCHED_MCAST && o->transport != SCHED_FORWARD)
            continue;
        const acc_access *aa = &k->acc->acc[o->access];
        bool inside = false;
        for (int l = 0; l < aa->nloops; l++)
            inside |= aa->loops[l] == k->loops[i].op;
        if (inside)
            axes |= sched_group_axes(c, o->along, k->f->grid_rank);
    }
    return axes;
}

int sched_wave_axis(const sched_kernel *k, const sched_candidate *c, int i, sym_ctx *s)
{
    unsigned axes = sched_stretched_axes(k, c, i);
    int axis = -1, n = 0;
    for (int g = 0; g < k->f->grid_rank; g++)
        if ((axes >> g & 1) && (!k->loops[i].trips || sym_depends_on(k->loops[i].trips, tir_pid_var(s, g))))
            axis = g, n++;
    if (n != 1 || (c->place[axis] != SCHED_ON_X && c->place[axis] != SCHED_ON_Y))
        return -1;
    for (int g = 0; g < k->f->grid_rank; g++)
        if (g != axis && c->place[g] == c->place[axis])
            return -1;
    return axis;
}

bool sched_zigzag(const sched_kernel *k, const sched_candidate *c, sched_place pl, sym_ctx *s)
{
    if (c->fuse != SCHED_FUSE_NONE || pl == SCHED_ON_TIME)
        return false;
    for (int i = 0; i < k->nloops; i++)
        for (int g = 0; g < k->f->grid_rank; g++)
            if (c->place[g] == pl && (!k->loops[i].trips || sym_depends_on(k->loops[i].trips, tir_pid_var(s, g))))
                return true;
    return false;
}

/* Whether load ops[j] of c is shared over a group whose programs run
 * different trips of a loop around it: the group then moves its blocks on
 * every program's dead trips too. */
static bool op_stretches(const sched_kernel *k, const sched_candidate *c, int j, sym_ctx *s)
{
    const sched_operand *o = &c->ops[j];
    if (o->transport != SCHED_MCAST && o->transport != SCHED_FORWARD)
        return false;
    unsigned axes = sched_group_axes(c, o->along, k->f->grid_rank);
    const acc_access *aa = &k->acc->acc[o->access];
    for (int i = 0; i < k->nloops; i++) {
        bool inside = false;
        for (int l = 0; l < aa->nloops; l++)
            inside |= aa->loops[l] == k->loops[i].op;
        for (int g = 0; inside && g < k->f->grid_rank; g++)
            if ((axes >> g & 1) && k->loops[i].trips && sym_depends_on(k->loops[i].trips, tir_pid_var(s, g)))
                return true;
    }
    return false;
}

bool sched_stretches(const sched_kernel *k, const sched_candidate *c, sym_ctx *s)
{
    for (int j = 0; j < c->nops; j++)
        if (op_stretches(k, c, j, s))
            return true;
    return false;
}

typedef struct metrics {
    bool stretch;  /* some loop stretched to the most trips of its group (sched_stretches) */
    int64_t extent;
    int64_t reuse[SCHED_MAX_OPS];
    int mech[SCHED_MAX_OPS]; /* 0 none, 1 mcast edge, 2 mcast interior, 3 forward */
    int64_t line[SCHED_MAX_OPS]; /* readers that share one line of their NoC's last leg */
    bool dead[SCHED_MAX_OPS]; /* moved on the dead trips of a stretched loop too (op_stretches) */
    int64_t waves; /* programs per core on the whole grid (an axis's programs dealt over its cores) */
    int64_t ex, ey;  /* the core grid's extent along x and y at most */
    unsigned along;  /* the axes some load is shared along: bit 0 x, bit 1 y, bit 2 the whole grid */
    bool none;       /* some shared load has a group of one core at most: no schedule here (its model's
                        constraint) */
} metrics;

static void measure(const sched_candidate *c, int rank, const int64_t *nprog, const arch_desc *a, metrics *m)
{
    int64_t ext = 1, xy = 1, nxy = 1, waves = 1, cores = (int64_t)a->grid_w * a->grid_h;
    bool has_xy = false;
    for (int g = 0; g < rank; g++) {
        int64_t n = nprog[g], on = 1;
        switch (c->place[g]) {
        case SCHED_ON_X: on = LM_MIN(n, a->grid_w); break;
        case SCHED_ON_Y: on = LM_MIN(n, a->grid_h); break;
        case SCHED_ON_XY:
            xy = LM_MIN(xy * n, cores);
            nxy = LM_MIN(nxy * n, (int64_t)1 << 40);
            has_xy = true;
            continue;
        case SCHED_ON_TIME: break;
        }
        ext *= on;
        waves = LM_MIN(waves * lm_cdiv(n, on), (int64_t)1 << 40);
    }
    if (has_xy) {
        ext *= xy;
        waves = LM_MIN(waves * lm_cdiv(nxy, xy), (int64_t)1 << 40);
    }
    m->extent = ext;
    m->waves = waves;
    /* the core grid's extent along x and y at most */
    int64_t ex = 1, ey = 1;
    for (int g = 0; g < rank; g++) {
        if (c->place[g] == SCHED_ON_X)
            ex = LM_MIN(nprog[g], a->grid_w);
        else if (c->place[g] == SCHED_ON_Y)
            ey = LM_MIN(nprog[g], a->grid_h);
    }
    if (has_xy) {
        ex = LM_MIN(xy, a->grid_w);
        ey = LM_MIN(lm_cdiv(xy, ex), a->grid_h);
    }
    m->ex = ex;
    m->ey = ey;
    for (int i = 0; i < c->nops; i++) {
        const sched_operand *o = &c->ops[i];
        int64_t r = 1;
        if (o->transport != SCHED_DRAM) {
            if (o->along == SCHED_ON_XY) {
                r = ext;
            } else {
                int g = axis_on(c->place, rank, o->along);
                r = LM_MIN(nprog[g], o->along == SCHED_ON_X ? a->grid_w : a->grid_h);
            }
            m->along |= o->along == SCHED_ON_X ? 1u : o->along == SCHED_ON_Y ? 2u : 4u;
            m->none |= r <= 1;
        }
        m->reuse[i] = r;
        m->mech[i] = r <= 1 ? 0 : o->transport == SCHED_FORWARD ? 3 : o->interior_sender ? 2 : 1;
        /* The readers of a load that share one line of their NoC's last leg
           (a column on NoC 0, a row on NoC 1) take their DRAM data through
           that line's links (the model's line term): a placement and its
           transpose differ there, so neither dominates the other. */
        bool noc1 = sched_load_noc(c, i) == SCHED_NOC_1;
        if (o->transport == SCHED_DRAM || m->mech[i] == 0)
            m->line[i] = noc1 ? ex : ey;
        else if (o->along == SCHED_ON_XY)
            m->line[i] = 1;
        else if (o->along == SCHED_ON_X)
            m->line[i] = noc1 ? 1 : ey;
        else
            m->line[i] = noc1 ? ex : 1;
    }
}

/* A at least as good as B on extent, programs per core and every load's
 * reuse, and not
 * stretching a loop B runs as is (sharing a load whose loop's trips differ
 * over the group costs every program the most trips: causal attention with
 * K and V multicast against K and V from DRAM), nor sharing a load B reads
 * alone whose group moves it on dead trips (K multicast and V from DRAM
 * moves less on them than both multicast). */
static bool covers(const metrics *A, const metrics *B, int nops)
{
    if (B->none)
        return true;
    if (A->none || A->extent < B->extent || A->waves > B->waves || (A->stretch && !B->stretch))
        return false;
    /* a load shared along x keeps two cores or more on x: B's schedules
       with one core there (nothing of B on x) are not A's */
    if (((A->along & 1) && B->ex < 2) || ((A->along & 2) && B->ey < 2) || ((A->along & 4) && B->extent < 2))
        return false;
    for (int i = 0; i < nops; i++) {
        if (A->line[i] > B->line[i] || (A->dead[i] && B->mech[i] == 0))
            return false;
        if (B->mech[i] == 0)
            continue;
        if (A->mech[i] != B->mech[i] || A->reuse[i] < B->reuse[i])
            return false;
    }
    return true;
}

static bool equal(const metrics *A, const metrics *B, int nops)
{
    if (A->none || B->none)
        return A->none == B->none;
    if (A->extent != B->extent || A->waves != B->waves || A->stretch != B->stretch)
        return false;
    for (int i = 0; i < nops; i++)
        if (A->mech[i] != B->mech[i] || A->reuse[i] != B->reuse[i] || A->line[i] != B->line[i])
            return false;
    return true;
}

/* Candidate j dominates i: at least as good at every point (m[p * nm + i]),
 * and strictly better at one, or an exact tie won by the earlier one. */
static bool dominates(const metrics *m, size_t nm, int npoints, int nl, size_t j, size_t i)
{
    bool eq = true;
    for (int p = 0; p < npoints; p++) {
        if (!covers(&m[(size_t)p * nm + j], &m[(size_t)p * nm + i], nl))
            return false;
        eq = eq && equal(&m[(size_t)p * nm + j], &m[(size_t)p * nm + i], nl);
    }
    return !eq || j < i;
}

enum { PENDING, KEPT, PRUNED };

/* Which of n candidates to keep: those nothing dominates, then, in rounds,
 * those no kept candidate dominates that nothing left dominates. A shared
 * load's group of two cores or more makes dominance not transitive (A
 * multicasting along x dominates B, which dominates C with nothing on x;
 * A does not dominate C), so a candidate is pruned only for one that is
 * kept. Returns each one's state (free it). */
static char *prune(const metrics *m, size_t n, size_t nm, int npoints, int nl)
{
    char *state = lm_xcalloc(n ? n : 1, 1), *top = lm_xcalloc(n ? n : 1, 1);
    for (size_t left = n; left > 0;) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            top[i] = state[i] == PENDING;
            for (size_t j = 0; j < n && top[i]; j++)
                top[i] = !(j != i && state[j] == PENDING && dominates(m, nm, npoints, nl, j, i));
            any |= top[i];
        }
        for (size_t i = 0; i < n && !any; i++) /* a cycle: keep the first */
            any = (top[i] = state[i] == PENDING);
        for (size_t i = 0; i < n; i++)
            if (top[i]) {
                state[i] = KEPT;
                left--;
            }
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n && state[i] == PENDING; j++)
                if (state[j] == KEPT && dominates(m, nm, npoints, nl, j, i)) {
                    state[i] = PRUNED;
                    left--;
                }
    }
    free(top);
    return state;
}

/* Placements in preference order: two spread axes first (the first axis on
 * y, as TTNN lays M along rows), then one flattened, then one axis on a row
 * or column, then everything in time. */
static int placement_rank(const sched_place *p, int rank)
{
    int spread = 0, nxy = 0;
    for (int g = 0; g < rank; g++) {
        spread += p[g] != SCHED_ON_TIME;
        nxy += p[g] == SCHED_ON_XY;
    }
    if (spread == 0)
        return 4;
    if (nxy)
        return nxy > 1 ? 1 : 2;
    return spread >= 2 ? 0 : 3;
}

/* Which placements an enumeration keeps (NULL: every valid one). */
typedef bool (*place_filter)(const sched_place *p, int rank, const void *ctx);

/* Enumerate placements (those `keep` accepts) x transports, keep the legal
 * ones, drop dominated ones, and append the survivors to out (marked with
 * `fuse`, `along` and `facc`). */
static void enumerate(sched_cands *out, const sched_kernel *k, const arch_desc *a, const sym_env *bound,
                      sym_ctx *s, lm_arena *ar, place_filter keep, const void *kctx, sched_fuse fuse, sched_place along,
                      uint64_t facc)
{
    int rank = k->f->grid_rank;
    /* the loads, in access order */
    int loads[SCHED_MAX_OPS];
    int nl = 0;
    for (int i = 0; i < k->acc->n && nl < SCHED_MAX_OPS; i++) {
        bool is_buf = false;
        for (int b = 0; b < k->nbufs; b++)
            if (k->bufs[b].kind == SCHED_BUF_IN && k->bufs[b].access == i)
                is_buf = true;
        if (!k->acc->acc[i].is_store && is_buf)
            loads[nl++] = i;
    }
    /* The metrics are taken at the most programs per axis; a constexpr
       that is not a block size (a split count, which launches may share)
       is not the solver's to set as it likes, so the metrics are also taken
       at each of its values 1, 2, 4, ..., 64 and a candidate dominates
       another only if it does at every one of them (at one split, the
       split axis has a single program). */
    /* The points the dominance holds at: the most programs; each value of
       the other constexprs; every block size at 2, 4 and 8 tiles (a
       placement that spreads its programs over the grid at one-tile blocks
       may leave most of it idle at larger ones). */
    enum { NPOINTS = 16 };
    int64_t nprog[NPOINTS][TIR_MAX_GRID];
    int npoints = 1;
    bool blocks;
    for (int p = 0; p < NPOINTS; p++)
        nprog[p][0] = nprog[p][1] = nprog[p][2] = 1;
    if (max_programs(k, a, bound, 0, 0, nprog[0], &blocks))
        for (int64_t at = 1; at <= 64 && npoints < NPOINTS; at *= 2)
            max_programs(k, a, bound, at, 0, nprog[npoints++], NULL);
    int64_t tile = LM_MIN(a->tile_h, a->tile_w);
    for (int64_t blk = 2 * tile; blocks && blk <= 8 * tile && npoints < NPOINTS; blk *= 2)
        max_programs(k, a, bound, 0, blk, nprog[npoints++], NULL);

    /* placements: 4^rank combinations, sorted by preference (stable) */
    int nplace = 1;
    for (int g = 0; g < rank; g++)
        nplace *= 4;
    int64_t per_place = 1;
    for (int i = 0; i < nl; i++)
        per_place *= NTRANSPORTS;

    static const sched_place dims[4] = {SCHED_ON_Y, SCHED_ON_X, SCHED_ON_XY, SCHED_ON_TIME};
    sched_place places[64][TIR_MAX_GRID];
    int np = 0;
    for (int pr = 0; pr <= 4; pr++) {
        for (int code = 0; code < nplace; code++) {
            sched_place p[TIR_MAX_GRID] = {SCHED_ON_TIME, SCHED_ON_TIME, SCHED_ON_TIME};
            int x = code; /* the first axis is the most significant digit */
            for (int g = rank - 1; g >= 0; g--, x /= 4)
                p[g] = dims[x % 4];
            if (!placement_ok(p, rank) || placement_rank(p, rank) != pr || (keep && !keep(p, rank, kctx)))
                continue;
            memcpy(places[np++], p, sizeof p);
        }
    }
    out->enumerated += (int)LM_MIN((int64_t)(keep ? np : nplace) * per_place, (int64_t)1 << 30);

    LM_VEC(sched_candidate) all = {0};
    for (int pi = 0; pi < np; pi++) {
        /* per-load legal transports */
        int opts[SCHED_MAX_OPS][NTRANSPORTS], nopt[SCHED_MAX_OPS];
        for (int i = 0; i < nl; i++) {
            nopt[i] = 0;
            for (int t = 0; t < NTRANSPORTS; t++)
                if (transport_ok(&transports[t], &k->acc->acc[loads[i]], places[pi], rank, a))
                    opts[i][nopt[i]++] = t;
        }
        int idx[SCHED_MAX_OPS] = {0};
        for (;;) {
            sched_candidate c;
            memset(&c, 0, sizeof c);
            for (int g = 0; g < TIR_MAX_GRID; g++)
                c.place[g] = g < rank ? places[pi][g] : SCHED_ON_TIME;
            c.nops = nl;
            c.persistent = true;
            c.fuse = fuse;
            c.fuse_along = along;
            c.fused_acc = facc;
            for (int i = 0; i < nl; i++) {
                c.ops[i] = transports[opts[i][idx[i]]];
                c.ops[i].access = loads[i];
            }
            LM_PUSH(&all, c);
            int i = nl - 1;
            while (i >= 0 && ++idx[i] == nopt[i])
                idx[i--] = 0;
            if (i < 0)
                break;
        }
    }
    out->legal += (int)all.len;

    size_t nm = all.len ? all.len : 1;
    metrics *m = lm_xcalloc(nm * (size_t)npoints, sizeof *m); /* point p of candidate i: m[p * nm + i] */
    for (int p = 0; p < npoints; p++)
        for (size_t i = 0; i < all.len; i++)
            measure(&all.items[i], rank, nprog[p], a, &m[(size_t)p * nm + i]);
    for (size_t i = 0; i < all.len; i++)
        for (int j = 0; j < nl; j++) {
            bool st = op_stretches(k, &all.items[i], j, s);
            for (int p = 0; p < npoints; p++) {
                m[(size_t)p * nm + i].dead[j] = st;
                m[(size_t)p * nm + i].stretch |= st;
            }
        }
    sched_candidate *keepc = LM_NEWN(ar, sched_candidate, (size_t)out->n + all.len + 1);
    if (out->n)
        memcpy(keepc, out->c, sizeof *keepc * (size_t)out->n);
    out->c = keepc;
    int base = out->n;
    char *state = prune(m, all.len, nm, npoints, nl);
    for (size_t i = 0; i < all.len; i++) {
        if (state[i] != KEPT) {
            out->pruned++;
            continue;
        }
        sched_candidate *c = &out->c[out->n++];
        *c = all.items[i];
        c->id = base + (int)i;
        c->extent = m[i].extent;
        c->label = sched_candidate_label(k, c, ar);
    }
    free(state);
    free(m);
    LM_VEC_FREE(&all);
}

void sched_candidates(sched_cands *out, const sched_kernel *k, const arch_desc *a, const sym_env *bound,
                      sym_ctx *s, lm_arena *ar)
{
    memset(out, 0, sizeof *out);
    enumerate(out, k, a, bound, s, ar, NULL, NULL, SCHED_FUSE_NONE, SCHED_ON_TIME, 0);
}

/* ---- fused launch pairs ------------------------------------------------------ */

typedef struct fctx {
    const sched_fusion *f;
    sched_place along;
} fctx;

/* A fused producer: the gather axis alone along `along`, a key axis (when
 * there is one) on the other core dimension, the others in time. Every key
 * axis in time is left out: it is the same schedule as one key axis on the
 * other dimension with a grid of 1 there, which that candidate's grid
 * variable covers. */
static bool fused_placement(const sched_place *p, int rank, const void *ctx)
{
    const fctx *fc = ctx;
    sched_place other = fc->along == SCHED_ON_X ? SCHED_ON_Y : SCHED_ON_X;
    int keys = 0, across = 0;
    for (int g = 0; g < rank; g++) {
        if (g == fc->f->gather_axis) {
            if (p[g] != fc->along)
                return false;
            continue;
        }
        keys++;
        if (p[g] == other)
            across++;
        else if (p[g] != SCHED_ON_TIME)
            return false;
    }
    return keys == 0 || across == 1;
}

bool sched_fused_pair(const sched_fusion *f, const sched_candidate *pa, const sched_candidate *pb)
{
    if (pa->fuse != SCHED_FUSE_PRODUCER || pb->fuse != SCHED_FUSE_CONSUMER || pa->fuse_along != pb->fuse_along)
        return false;
    for (int g = 0; g < TIR_MAX_GRID; g++) {
        int ga = f->key_of[g];
        if (ga >= 0 ? pb->place[g] != pa->place[ga] : pb->place[g] != SCHED_ON_TIME)
            return false;
    }
    return true;
}

void sched_candidates_fused(sched_cands *pa, sched_cands *pb, const sched_fusion *f, const sched_kernel *a,
                            const sched_kernel *b, const arch_desc *arch, const sym_env *bound, sym_ctx *s,
                            lm_arena *ar)
{
    uint64_t sa = 0, lb = 0;
    for (int i = 0; i < f->nt; i++) {
        if (f->t[i].store < 64)
            sa |= (uint64_t)1 << f->t[i].store;
        if (f->t[i].load < 64)
            lb |= (uint64_t)1 << f->t[i].load;
    }
    int first = pa->n;
    static const sched_place alongs[2] = {SCHED_ON_X, SCHED_ON_Y};
    for (int o = 0; o < 2; o++) {
        fctx fc = {f, alongs[o]};
        enumerate(pa, a, arch, bound, s, ar, fused_placement, &fc, SCHED_FUSE_PRODUCER, alongs[o], sa);
    }
    /* one consumer per distinct placement of the key axes among them */
    int rb = b->f->grid_rank;
    for (int i = first; i < pa->n; i++) {
        const sched_candidate *p = &pa->c[i];
        sched_candidate c;
        memset(&c, 0, sizeof c);
        for (int g = 0; g < TIR_MAX_GRID; g++)
            c.place[g] = g < rb && f->key_of[g] >= 0 ? p->place[f->key_of[g]] : SCHED_ON_TIME;
        c.persistent = true;
        c.fuse = SCHED_FUSE_CONSUMER;
        c.fuse_along = p->fuse_along;
        c.fused_acc = lb;
        for (int j = 0; j < b->acc->n && c.nops < SCHED_MAX_OPS; j++) {
            bool is_load = false;
            for (int k = 0; k < b->nbufs; k++)
                is_load |= b->bufs[k].kind == SCHED_BUF_IN && b->bufs[k].access == j;
            if (!is_load)
                continue;
            bool passed = j < 64 && (lb >> j & 1u);
            c.ops[c.nops++] = (sched_operand){j, passed ? SCHED_FUSED : SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
        }
        bool seen = false;
        for (int j = 0; j < pb->n && !seen; j++)
            seen = pb->c[j].fuse == SCHED_FUSE_CONSUMER && pb->c[j].fuse_along == c.fuse_along &&
                   !memcmp(pb->c[j].place, c.place, sizeof c.place);
        if (seen)
            continue;
        sched_candidate *keep = LM_NEWN(ar, sched_candidate, (size_t)pb->n + 1);
        if (pb->n)
            memcpy(keep, pb->c, sizeof *keep * (size_t)pb->n);
        pb->c = keep;
        c.id = pb->legal++;
        pb->enumerated++;
        c.extent = 1;
        c.label = sched_candidate_label(b, &c, ar);
        pb->c[pb->n++] = c;
    }
    (void)s;
}

const char *sched_launch_prefix(const sched_job *job, int l, lm_arena *ar)
{
    return job->nlaunches > 1 ? lm_arena_printf(ar, "%s.", job->k[l]->name) : "";
}
