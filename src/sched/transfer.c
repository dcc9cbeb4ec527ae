/* transfer.c - what one block's transfer costs a level's stage, from the
 * candidate's transport and the hardware description: a DRAM read (the
 * core's rate, its commands, the banks' share and the busiest link of each
 * leg), a multicast or a forward after it, a read ahead, a fused
 * producer's send and a store (docs/scheduler.md, "Model"). Pure
 * functions of the model's context; model.c adds them up per level.
 */
#include "sched/sched_int.h"

#include <math.h>

/* Elements one producer program sends to one consumer program of its group
 * for passed tensor t, as rows x cols of the consumer's block. */
static void pair_elems(mctx *c, const sched_fused_tensor *t, const sched_kernel *prod, const sched_kernel *cons,
                       const sym_expr **rows, const sym_expr **cols)
{
    const acc_access *x = &prod->acc->acc[t->store], *y = &cons->acc->acc[t->load];
    int r = t->tensor->rank;
    *rows = K(c, 1);
    *cols = K(c, 1);
    for (int d = 0; d < r; d++) {
        const sym_expr *len = t->dim[d] == SCHED_FD_SLICE ? y->block[d]
                              : t->dim[d] == SCHED_FD_WHOLE ? t->tensor->shape[d]
                                                            : x->block[d];
        if (d == r - 1)
            *cols = fix(c, len);
        else
            *rows = mul(c, *rows, fix(c, len));
    }
}

static const sym_expr *noc_latency(mctx *c, const sym_expr *hops)
{
    const arch_desc *a = c->a;
    return add(c, K(c, llround(a->noc_inject_cycles + a->noc_eject_cycles)), mul(c, hops, K(c, llround(a->noc_hop_cycles))));
}

/* The NoC's part of a DRAM round trip on NoC noc (a read's request and its
 * data, a write's data and its acknowledgement): two packets' injection and
 * ejection and the mean hops of both legs (sched_dram_trip_hops). */
static const sym_expr *dram_trip(mctx *c, int noc)
{
    const arch_desc *a = c->a;
    double hops = (double)sched_dram_trip_hops(a, noc) / 1000;
    return K(c, llround(2 * (a->noc_inject_cycles + a->noc_eject_cycles) + hops * a->noc_hop_cycles));
}

/* Reading `bytes` in `ncmds` NoC commands from DRAM: the transfer (the
 * result) after the round trip's latency (*lat). The core's NoC
 * interface and its link bound the rate; the commands (one per tile, one per
 * row run when the block moves element by element) are issued meanwhile. The
 * banks' share when all active cores read is the same quantity summed over
 * the cores, so it is applied once, to the whole launch (the DRAM bound in
 * sched_model_build): kept per transfer it would multiply a count that
 * falls with the grid by a time that rises with it, and the solver's
 * interval bounds would lose all grip on grid.x and grid.y. */
static const sym_expr *dram_read(mctx *c, int noc, const sym_expr *bytes, const sym_expr *ncmds, const sym_expr *line,
                                 const sym_expr **lat, const sym_expr **alone)
{
    const arch_desc *a = c->a;
    const sym_expr *own = xfer(c, bytes, LM_MIN(a->core_read_bpc, (double)a->link_bytes_per_cycle));
    const sym_expr *cmds = mul(c, ncmds, K(c, llround(a->noc_cmd_cycles)));
    *lat = add(c, K(c, llround(a->dram_latency_cycles)), dram_trip(c, noc));
    *alone = mx(c, own, cmds);
    return mx(c, *alone, line);
}

/* A DRAM load of a loop, read ahead where its CB holds two blocks (the
 * lowering issues block i + 1's reads before it waits for block i's, under
 * their own transaction id): two blocks' round trips overlap, so a block
 * costs its transfer, or half a round trip when the latency is the longer;
 * a single-buffered one (depth 1) waits out the whole round trip. */
static const sym_expr *read_ahead(mctx *c, const sched_buf *b, const sym_expr *lat, const sym_expr *x)
{
    const sym_expr *trip = add(c, lat, x), *d = c->depth[b - c->k->bufs];
    const sym_expr *single1 = d ? mx(c, K(c, 0), sub(c, K(c, 2), d)) : K(c, 1);
    return mx(c, mx(c, x, cdv(c, trip, K(c, 2))), mul(c, single1, trip));
}

/* A load factor of k cores as an expression of k: the table of leg_load
 * written as max over j of [k >= j] x F(j) (F never falls as k grows). */
static const sym_expr *leg_factor(mctx *c, int noc, bool second, const sym_expr *kv, int kmax)
{
    int64_t kc;
    kmax = LM_MIN(kmax, ARCH_MAX_GRID);
    if (!c->legs[noc][second][0]) {
        for (int j = 0; j <= kmax; j++)
            c->legs[noc][second][j] = 1 + sched_leg_load(c->a, noc, second, j); /* 0: not computed */
    }
    if (sym_is_const(kv, &kc))
        return K(c, c->legs[noc][second][LM_MIN(LM_MAX(kc, 0), kmax)] - 1);
    const sym_expr *f = K(c, 0);
    for (int j = 1; j <= kmax; j++) {
        const sym_expr *on = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, kv, K(c, j - 1))));
        f = mx(c, f, mul(c, on, K(c, c->legs[noc][second][j] - 1)));
    }
    return f;
}

/* The NoC a buffer's block travels on: a load's from the candidate's rule
 * (sched_load_noc), a store's from the candidate (the writer's NoC 1 by
 * default). */
int sched_buf_noc(mctx *c, const sched_buf *b)
{
    if (b->kind == SCHED_BUF_OUT)
        return c->c->store_noc == SCHED_NOC_0 ? 0 : 1;
    for (int i = 0; i < c->c->nops; i++)
        if (c->c->ops[i].access == b->access)
            return sched_load_noc(c->c, i) == SCHED_NOC_1 ? 1 : 0;
    return 0;
}

/* Cores that read a load's blocks from DRAM at the same step (all of them,
 * or one sender per row, column or grid), and how many of them share one
 * line of the reading NoC's second leg. */
static void readers(mctx *c, const sched_buf *b, const sym_expr **total, const sym_expr **line)
{
    const sched_operand *o = sched_operand_of(c, b);
    int noc = sched_buf_noc(c, b);
    if (!o || o->transport == SCHED_DRAM) {
        *total = c->cores;
        *line = noc == 0 ? c->gy : c->gx;
    } else if (o->along == SCHED_ON_XY) {
        *total = *line = K(c, 1);
    } else if (o->along == SCHED_ON_X) {
        /* one sender per row, all in one column */
        *total = c->gy;
        *line = noc == 0 ? c->gy : K(c, 1);
    } else {
        *total = c->gx;
        *line = noc == 1 ? c->gx : K(c, 1);
    }
}

/* 1 where d divides v, else 0. */
static const sym_expr *divides(mctx *c, int64_t d, const sym_expr *v)
{
    return sub(c, K(c, 1), mn(c, K(c, 1), sym_mod(c->s, v, K(c, d))));
}

/* The page stride, in tiles of the 2-D layout (docs/scheduler.md, DRAM
 * layout), between the blocks of access x that programs one apart along
 * axis g read, as an expression of the block sizes; *whole is 1 where the
 * step is a whole number of tiles (else the blocks do not start on tile
 * boundaries and are taken as spread over the banks). NULL where the
 * stride cannot be written (a folded tensor, an extent not a constant). */
static const sym_expr *page_stride(mctx *c, const acc_access *x, int g, const sym_expr **whole)
{
    const sym_expr *pv = tir_pid_var(c->s, g);
    int r = x->rank, th = c->a->tile_h, tw = c->a->tile_w;
    int64_t unit = 1, ext, width;
    if (!x->affine || !x->tensor || x->tensor->fold_rows || r < 2 || !x->extent || !x->extent[r - 1] ||
        !sym_is_const(fix(c, x->extent[r - 1]), &width))
        return NULL;
    const sym_expr *rows = K(c, 0), *cols = K(c, 0);
    for (int d = r - 1; d >= 0; d--) {
        const sym_expr *co = K(c, 0);
        for (int t = 0; t < x->dims[d].nterms; t++)
            if (x->dims[d].terms[t].var == pv)
                co = add(c, co, fix(c, x->dims[d].terms[t].coeff));
        if (d == r - 1) {
            cols = co;
            continue;
        }
        rows = add(c, rows, mul(c, co, K(c, unit)));
        if (!x->extent[d] || !sym_is_const(fix(c, x->extent[d]), &ext))
            return NULL;
        unit *= d == r - 2 ? (ext + th - 1) / th * th : ext;
    }
    *whole = mul(c, divides(c, th, rows), divides(c, tw, cols));
    return add(c, mul(c, fdv(c, rows, K(c, th)), K(c, (width + tw - 1) / tw)), fdv(c, cols, K(c, tw)));
}

/* Whether the cores that read a load's block at one step (readers) hold
 * different ids along an axis placed at pl: all cores where every core
 * reads, a multicast's senders along the other dimension. */
static bool readers_differ(const sched_operand *o, sched_place pl)
{
    bool all = !o || o->transport == SCHED_DRAM;
    return pl == SCHED_ON_XY || (pl == SCHED_ON_X && (all || o->along == SCHED_ON_Y)) ||
           (pl == SCHED_ON_Y && (all || o->along == SCHED_ON_X));
}

/* The cores of a shared load's group: a row, a column or the grid. */
static const sym_expr *group_cores(mctx *c, const sched_operand *o)
{
    return o->along == SCHED_ON_XY ? c->cores : o->along == SCHED_ON_X ? c->gx : c->gy;
}

/* Whether the readers of load b keep in step with each other: another load
 * of its level is multicast or forwarded among them, and its handshakes
 * hold every reader within a block or two of the others. Readers that
 * nothing couples drift apart, and a step's reads spread over the banks
 * (docs/scheduler.md, Model, the reader). */
static bool readers_coupled(mctx *c, const sched_buf *b)
{
    const sched_kernel *k = c->k;
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *o = &k->bufs[i];
        const sched_operand *op = o != b && o->kind == SCHED_BUF_IN && o->level == b->level ? sched_operand_of(c, o)
                                                                                            : NULL;
        if (op && (op->transport == SCHED_MCAST || op->transport == SCHED_FORWARD))
            return true;
    }
    return false;
}

/* The banks' worth of bandwidth G-spaced runs from F first pages get: the
 * banks they cover, (F - 1) min(run, G) + run at most, or fewer where the
 * runs overlap on some banks (below); the first pages' steps `step` (G: the
 * largest divisor of the banks that divides every step). */
static const sym_expr *runs_cover(mctx *c, const sym_expr *starts, const sym_expr *run, const sym_expr *const *step,
                                  int ns)
{
    int nb = c->a->num_dram_banks;
    const sym_expr *gcd = K(c, 1);
    for (int d = 2; d <= nb; d++) {
        if (nb % d)
            continue;
        const sym_expr *all = K(c, 1);
        for (int i = 0; i < ns; i++)
            all = mn(c, all, divides(c, d, step[i]));
        gcd = mx(c, gcd, mul(c, all, K(c, d)));
    }
    const sym_expr *f = mn(c, starts, fdv(c, K(c, nb), gcd));
    const sym_expr *cover = add(c, mul(c, sub(c, f, K(c, 1)), mn(c, run, gcd)), run);
    /* a bank holds pages of at most min(F, ceil(run / G)) of the runs: the
       F runs' pages over that many are the banks' worth of bandwidth they
       get (rounded to the nearest), never more than the banks they cover -
       a minimum that keeps the count's upper bound, which the solver's
       bounds divide by, as tight as the cover's alone. At least 1 at every
       value, and written so for ranges too: a count whose range reaches 0
       divides the bank time by it, the bound is unknown and nothing is
       pruned (GEMM 4096^3 on p150: 177,093 nodes -> 569,662) */
    const sym_expr *most = mn(c, f, cdv(c, run, gcd)), *pages = mul(c, f, run);
    const sym_expr *worth = mx(c, K(c, 1), fdv(c, add(c, mul(c, K(c, 2), pages), most), mul(c, K(c, 2), most)));
    return mn(c, K(c, nb), mn(c, cover, worth));
}

/* Whether the readers of a load (access x) hold ids whose blocks sit a
 * stride of a block size apart, or one that cannot be written. */
static bool drifting(mctx *c, const sched_operand *o, const acc_access *x)
{
    int64_t v;
    for (int g = 0; g < c->k->f->grid_rank; g++) {
        if (!readers_differ(o, c->c->place[g]) || !(x->grid_dep >> g & 1))
            continue;
        const sym_expr *whole, *st = page_stride(c, x, g, &whole);
        if (!st || !(sym_is_const(st, &v) && sym_is_const(whole, &v) && v == 1))
            return true;
    }
    return false;
}

/* The DRAM banks the `total` readers of one step of load b hit, counted in
 * lockstep or not (banks_hit); NULL where they are taken as spread over
 * every bank. */
static const sym_expr *banks_counted(mctx *c, const sched_buf *b, bool lockstep, const sym_expr *total)
{
    const sched_kernel *k = c->k;
    int nb = c->a->num_dram_banks, tw = c->a->tile_w, th = c->a->tile_h;
    const sched_operand *o = sched_operand_of(c, b);
    const acc_access *x = &k->acc->acc[b->access];
    int r = x->rank;
    int64_t width, bw;
    if (r < 2 || !x->extent || !x->extent[r - 1] || !sym_is_const(fix(c, x->extent[r - 1]), &width) || !x->block ||
        !x->block[r - 1] || !x->block[r - 2])
        return NULL;
    int64_t cols = (width + tw - 1) / tw;
    const sym_expr *h = cdv(c, fix(c, x->block[r - 2]), K(c, th));
    const sym_expr *run, *starts = K(c, 1), *step[TIR_MAX_GRID + 1];
    int ns = 0;
    if (sym_is_const(fix(c, x->block[r - 1]), &bw) && (bw + tw - 1) / tw >= cols) {
        run = mul(c, h, K(c, cols));
    } else {
        /* a run a tile row, the next one a layout row on */
        run = mn(c, cdv(c, fix(c, x->block[r - 1]), K(c, tw)), K(c, cols));
        starts = h;
        step[ns++] = mul(c, mn(c, K(c, 1), sub(c, h, K(c, 1))), K(c, cols));
    }
    /* readers that drift apart (a stride of a block size and nothing that
       couples them) read different steps at once, over every bank: each is
       bound by its own block's banks, all of them by total x those */
    if (!lockstep && drifting(c, o, x))
        return mn(c, K(c, nb), mul(c, runs_cover(c, starts, run, step, ns), total));
    for (int g = 0; g < k->f->grid_rank; g++) {
        sched_place pl = c->c->place[g];
        if (!readers_differ(o, pl) || !(x->grid_dep >> g & 1))
            continue;
        const sym_expr *whole, *st = page_stride(c, x, g, &whole);
        if (!st)
            return NULL;
        step[ns++] = add(c, mul(c, whole, st), sub(c, K(c, 1), whole)); /* a step off the tiles: as 1 */
        starts = mul(c, starts, pl == SCHED_ON_X ? c->gx : pl == SCHED_ON_Y ? c->gy : mn(c, c->cores, c->nprog[g]));
    }
    return runs_cover(c, starts, run, step, ns);
}

/* The pages of the tensor access x reads (tiles: the last dimension in
 * tile columns, the one before it padded to whole tiles, the others
 * multiplying): no reads of it hit more banks than that, whatever the
 * readers' blocks (M=1028 N=46 K=45 on n150: every core reads the one block
 * of b, 4 pages on 4 banks). NULL where the layout is not known. */
static const sym_expr *tensor_pages(mctx *c, const acc_access *x)
{
    int r = x->rank;
    if (r < 2 || !x->extent || !x->tensor || x->tensor->fold_rows)
        return NULL;
    for (int d = 0; d < r; d++)
        if (!x->extent[d])
            return NULL;
    const sym_expr *n = mul(c, cdv(c, fix(c, x->extent[r - 1]), K(c, c->a->tile_w)),
                            cdv(c, fix(c, x->extent[r - 2]), K(c, c->a->tile_h)));
    for (int d = 0; d < r - 2; d++)
        n = mul(c, n, fix(c, x->extent[d]));
    return n;
}

/* The DRAM banks' worth of bandwidth the readers of one step of load b
 * get: the banks their pages fall on, fewer where some banks hold more of
 * them than others (runs_cover), and never more than the tensor's pages
 * (tensor_pages). Tensors are
 * interleaved page by page, a page a tile. A block is a run of `run`
 * contiguous pages (a tile row of it, or the whole block where it spans
 * every tile column), repeated for each of its tile rows a layout row
 * apart; the readers' blocks sit `stride` pages apart per program along
 * each axis they differ in (page_stride). The runs' first pages then fall
 * on F multiples of G, the largest divisor of the banks that divides every
 * step, banks / G of them at most, and the runs cover (F - 1) min(run, G)
 * + run banks at most - causal attention at S=75 D=64 on n150 (6 pages a
 * head, 12 banks): each step's K blocks of every head fall on 4 banks;
 * GEMM at M=322 K=941 (30 tile columns) on 4 cores of 96-row a blocks:
 * every step's 12 tiles fall on 2. That holds for readers that keep in
 * step (readers_coupled), and for others whose blocks sit a constant
 * number of pages apart; others drift apart, each bound by its own block's
 * banks (banks_counted). All the banks, within the tensor's pages, where
 * a multicast to the whole grid has one reader. */
static const sym_expr *banks_hit(mctx *c, const sched_buf *b, const sym_expr *total)
{
    const sched_kernel *k = c->k;
    int nb = c->a->num_dram_banks;
    const sched_operand *o = sched_operand_of(c, b);
    if (b->access < 0 || b->access >= k->acc->n)
        return K(c, nb);
    const sym_expr *n = NULL;
    if (!o || o->transport == SCHED_DRAM || o->along != SCHED_ON_XY)
        n = banks_counted(c, b, readers_coupled(c, b), total);
    const sym_expr *pages = tensor_pages(c, &k->acc->acc[b->access]);
    n = n ? n : K(c, nb);
    return pages ? mn(c, n, pages) : n;
}

/* The readers of a load on the banks' first legs (NoC 0: along the bank
 * rows to the readers' columns; NoC 1: along the bank columns to their
 * rows): how many lines they sit on (*across: columns on NoC 0, rows on
 * NoC 1) and how many readers each line has (*per). Every core reads a
 * DRAM load; a multicast along x has one sender per row, all in one column,
 * and one along y one per column, all in one row. False when one core
 * reads (a multicast to the whole grid): no link carries two readers'
 * shares there. */
static bool first_legs(mctx *c, const sched_operand *o, int noc, const sym_expr **per, const sym_expr **across)
{
    const sym_expr *cols, *rows;
    if (!o || o->transport == SCHED_DRAM)
        cols = c->gx, rows = c->gy;
    else if (o->along == SCHED_ON_X)
        cols = K(c, 1), rows = c->gy;
    else if (o->along == SCHED_ON_Y)
        cols = c->gx, rows = K(c, 1);
    else
        return false;
    *across = noc == 0 ? cols : rows;
    *per = noc == 0 ? rows : cols;
    return true;
}

/* Cycles for a load factor (thousandths of a block) of `bytes` over one link. */
static const sym_expr *link_time(mctx *c, const sym_expr *factor, const sym_expr *bytes)
{
    return cdv(c, mul(c, bytes, factor), K(c, LM_MAX(milli((double)c->a->link_bytes_per_cycle), 1)));
}

/* The semaphore round trip of a sender and its receivers `dist` hops away:
 * receivers signal ready, the sender polls, the data's flag is set. */
static const sym_expr *sem_round_trip(mctx *c, const sym_expr *dist)
{
    return add(c, K(c, llround(2 * c->a->sem_cycles)), mul(c, K(c, 2), noc_latency(c, dist)));
}

/* A producer's passed store: the block goes row by row to the consumer
 * programs of its group on their reducer cores (in its row or column, at
 * most g - 1 hops away), each followed by a semaphore increment there
 * (the reducers made room for everything at the start). Each row of a tile
 * is one NoC write with its command (an element move, as a block a boundary
 * check cuts short). The producers of a row send in lockstep, so their
 * blocks share the row's busiest link (sched_send_load), as readers share a line. */
stage sched_send_cost(mctx *c, const sched_buf *b, const sched_fused_tensor *t)
{
    const arch_desc *a = c->a;
    const sym_expr *rows, *cols;
    pair_elems(c, t, c->k, c->ok, &rows, &cols);
    const sym_expr *nq = sched_group_programs(c, c->ok);
    const sym_expr *runs = mul(c, mul(c, nq, rows), cdv(c, cols, K(c, a->tile_w)));
    int64_t te = (int64_t)a->tile_h * a->tile_w;
    const sym_expr *pair = cdv(c, mul(c, mul(c, rows, cols), K(c, a->tile_bytes[b->format])), K(c, te));
    const sym_expr *bytes = cdv(c, mul(c, mul(c, mul(c, nq, rows), cols), K(c, a->tile_bytes[b->format])), K(c, te));
    bool along_x = c->c->fuse_along == SCHED_ON_X;
    const sym_expr *g = along_x ? c->gx : c->gy;
    const sym_expr *own = xfer(c, bytes, LM_MIN(a->core_write_bpc, (double)a->link_bytes_per_cycle));
    int64_t q, gc;
    if (sym_is_const(nq, &q)) {
        /* the busiest link of the row as a function of g (a running maximum:
           never falls as g grows) */
        int noc = sched_buf_noc(c, b), gmax = LM_MIN(along_x ? a->grid_w : a->grid_h, ARCH_MAX_GRID);
        int64_t f[ARCH_MAX_GRID + 1] = {0};
        for (int j = 1; j <= gmax; j++)
            f[j] = LM_MAX(f[j - 1], sched_send_load(a, noc, along_x, j, q) * 1000);
        const sym_expr *fac = K(c, 0);
        if (sym_is_const(g, &gc)) {
            fac = K(c, f[LM_MIN(LM_MAX(gc, 0), gmax)]);
        } else {
            for (int j = 1; j <= gmax; j++) {
                const sym_expr *on = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, g, K(c, j - 1))));
                fac = mx(c, fac, mul(c, on, K(c, f[j])));
            }
        }
        own = mx(c, own, link_time(c, fac, pair));
    }
    const sym_expr *cmds = mul(c, runs, K(c, llround(a->noc_cmd_cycles)));
    const sym_expr *fixed = K(c, llround(a->cb_handshake_cycles + a->barrier_cycles));
    /* one valid increment per consumer program */
    const sym_expr *incs = mul(c, nq, K(c, llround(a->noc_cmd_cycles)));
    stage st = {.cycles = add(c, add(c, add(c, fixed, incs), noc_latency(c, sub(c, g, K(c, 1)))), mx(c, own, cmds)),
                .fill = K(c, 0)};
    st.first = st.cycles;
    return st;
}

/* A table f[0..n] that never falls as its index grows, as an expression of
 * a count g (1..n): max over j of [g >= j] x f[j]. */
static const sym_expr *by_count(mctx *c, const sym_expr *g, const int64_t *f, int n)
{
    int64_t gc;
    if (sym_is_const(g, &gc))
        return K(c, f[LM_MIN(LM_MAX(gc, 0), n)]);
    const sym_expr *e = K(c, 0);
    for (int j = 1; j <= n; j++)
        e = mx(c, e, mul(c, mn(c, K(c, 1), mx(c, K(c, 0), sub(c, g, K(c, j - 1)))), K(c, f[j])));
    return e;
}

/* NoC commands that move one block of buffer b: one per tile, or, where the
 * lowering moves the block element by element (a block a boundary check
 * cuts short, rows off the tile grid), one per row and tile column - as the
 * lowering's plan says (sched_lower_l1). */
static const sym_expr *commands(mctx *c, const sched_buf *b)
{
    const sched_kernel *k = c->k;
    if (k->acc_cmds && b->access >= 0 && b->access < k->acc->n && k->acc_cmds[b->access])
        return fix(c, k->acc_cmds[b->access]);
    return fix(c, b->tiles);
}

const sym_expr *sched_buf_live(mctx *c, const sched_buf *b)
{
    const sched_kernel *k = c->k;
    int64_t one;
    if (!k->acc_live || b->kind != SCHED_BUF_IN || b->access < 0 || b->access >= k->acc->n || !k->acc_live[b->access] ||
        (sym_is_const(k->acc_live[b->access], &one) && one == 1))
        return NULL;
    /* the lowering leaves out loads from DRAM only (a shared or passed
       block still moves: the probes read every load from DRAM); a fused
       pair's loads are priced as read */
    const sched_operand *o = sched_operand_of(c, b);
    if ((o && o->transport != SCHED_DRAM) || c->c->fuse != SCHED_FUSE_NONE)
        return NULL;
    return fix(c, k->acc_live[b->access]);
}

const sym_expr *sched_dram_bytes(mctx *c, const sched_buf *b)
{
    const sched_kernel *k = c->k;
    if (!k->acc_moved || b->access < 0 || b->access >= k->acc->n || !k->acc_moved[b->access])
        return fix(c, b->bytes);
    int64_t te = (int64_t)c->a->tile_h * c->a->tile_w;
    return cdv(c, mul(c, fix(c, k->acc_moved[b->access]), K(c, c->a->tile_bytes[b->format])), K(c, te));
}

/* A multicast sender's step: it reads block i + 1 into another page set
 * while block i's multicast leaves its L1, so with two or more page sets a
 * step costs the longer of the two - unless the read's last leg runs along
 * the multicast's line on the same NoC (NoC 0 reaches a core along its
 * column, +y, NoC 1 along its row, -x), where the multicast and the read
 * share those links: a step then moves the whole block over the line plus
 * the read's share of its busiest link. A multicast to the whole grid
 * shares them on either NoC (its tree runs down the sender's column and
 * along its row): there the links' bytes alone bound the step, the read's
 * latency passing during the multicast's flight. With one page set, both
 * in turn. */
static const sym_expr *overlap_mcast(mctx *c, const sched_buf *b, const sched_operand *o, int noc,
                                     const sym_expr *read, const sym_expr *mc, const sym_expr *bytes)
{
    const sym_expr *step = mx(c, read, mc);
    bool grid = o->along == SCHED_ON_XY;
    bool same_line = grid || (o->along == SCHED_ON_Y && noc == 0) || (o->along == SCHED_ON_X && noc == 1);
    if (same_line) {
        int kmax = noc == 0 ? c->a->grid_h : c->a->grid_w;
        const sym_expr *f = add(c, K(c, 1000), leg_factor(c, noc, true, K(c, 1), kmax));
        const sym_expr *lat = sub(c, read, xfer(c, bytes, c->a->link_bytes_per_cycle));
        step = mx(c, step, grid ? link_time(c, f, bytes) : add(c, link_time(c, f, bytes), lat));
    }
    return add(c, step, mul(c, sched_single(c, (int)(b - c->k->bufs)), mn(c, read, mc)));
}

/* A shared load's stage (st: its sender's read): a multicast's turn after
 * the read, or a forward along the chain. */
static stage shared_cost(mctx *c, const sched_buf *b, const sched_operand *o, int noc, stage st)
{
    const arch_desc *a = c->a;
    const sym_expr *bytes = fix(c, b->bytes);
    const sym_expr *g = group_cores(c, o);
    const sym_expr *mrate = xfer(c, bytes, LM_MIN(a->mcast_bpc, (double)a->link_bytes_per_cycle));
    if (o->transport == SCHED_MCAST) {
        /* an edge sender reaches the far end of its row (g - 1 hops; the whole
           grid: gx + gy - 2); an interior sender covers the two sides as two
           rectangles: twice the setup and injection, half the distance */
        const sym_expr *dist = o->along == SCHED_ON_XY ? add(c, c->gx, sub(c, c->gy, K(c, 2))) : sub(c, g, K(c, 1));
        const sym_expr *times = K(c, 1);
        if (o->interior_sender) {
            dist = o->along == SCHED_ON_XY ? add(c, fdv(c, c->gx, K(c, 2)), fdv(c, c->gy, K(c, 2))) : fdv(c, g, K(c, 2));
            times = K(c, 2);
        }
        const sym_expr *mc = add(c, mul(c, times, add(c, K(c, llround(a->mcast_setup_cycles)), mrate)),
                                 noc_latency(c, dist));
        st.cycles = add(c, overlap_mcast(c, b, o, noc, st.cycles, mc, bytes), sem_round_trip(c, dist));
        st.first = add(c, add(c, st.first, mc), sem_round_trip(c, dist));
        return st;
    }
    /* forward: every core passes the block to its neighbour along the NoC's
       route (sched_chain_route); in steady state every core of the chain sends at
       once, so each step costs the busiest link's share of the sends, the
       longest route and the handshake, and the chain fills once per
       execution of the level, one uncontended send after the other */
    bool along_x = o->along == SCHED_ON_X;
    int gmax = LM_MIN(along_x ? a->grid_w : a->grid_h, ARCH_MAX_GRID);
    int64_t load[ARCH_MAX_GRID + 1], fwd[ARCH_MAX_GRID + 1], back[ARCH_MAX_GRID + 1];
    sched_chain_route(a, noc, along_x, gmax, load, fwd, back);
    const sym_expr *own = xfer(c, bytes, LM_MIN(a->core_write_bpc, (double)a->link_bytes_per_cycle));
    /* the data and its valid semaphore along the send's route, the ready
       semaphore the way back */
    const sym_expr *there = noc_latency(c, by_count(c, g, fwd, gmax));
    const sym_expr *lat = add(c, add(c, K(c, llround(2 * a->sem_cycles)), mul(c, K(c, 2), there)),
                              noc_latency(c, by_count(c, g, back, gmax)));
    const sym_expr *steady = mx(c, own, link_time(c, by_count(c, g, load, gmax), bytes));
    const sym_expr *fw = add(c, steady, lat), *one = add(c, own, lat);
    st.cycles = add(c, st.cycles, fw);
    st.first = add(c, st.first, one);
    st.fill = mul(c, sub(c, g, K(c, 1)), one);
    return st;
}

stage sched_read_cost(mctx *c, const sched_buf *b)
{
    const arch_desc *a = c->a;
    const sched_operand *o = sched_operand_of(c, b);
    const sym_expr *cb = K(c, llround(a->cb_handshake_cycles));
    if (o && o->transport == SCHED_FUSED) {
        /* the block arrived while the producers ran: the reducer made room
           for all of them once, at the start, and waits for the producers'
           increments once; per program the CB handshake remains, with the
           ready increments to the producers of its row spread over them */
        const sym_expr *np = sched_other_grid(c, c->c->fuse_along);
        const sym_expr *once = add(c, K(c, llround(2 * a->sem_cycles)), mul(c, np, K(c, llround(a->noc_cmd_cycles))));
        stage st = {.cycles = add(c, cb, cdv(c, once, c->waves)), .fill = K(c, 0)};
        st.first = st.cycles;
        return st;
    }
    const sym_expr *total, *line;
    readers(c, b, &total, &line);
    if (b->level >= 1 && c->active[b->level - 1]) /* cores whose programs read nothing here */
        total = cdv(c, mul(c, total, c->active[b->level - 1]), c->nprog[c->active_g[b->level - 1]]);
    /* the readers of one step read at once, in lockstep: their blocks share
       the banks (and, on a shared line, its busiest entry) */
    double rbank = LM_MIN(a->dram_bank_read_bpc, (double)a->link_bytes_per_cycle) * a->num_dram_banks;
    int noc = sched_buf_noc(c, b);
    int kmax = noc == 0 ? c->a->grid_h : c->a->grid_w;
    const sym_expr *moved = sched_dram_bytes(c, b);
    const sym_expr *banks = banks_hit(c, b, total);
    const sym_expr *spread = cdv(c, mul(c, mul(c, total, moved), K(c, a->num_dram_banks)), banks);
    const sym_expr *leg2 = link_time(c, leg_factor(c, noc, true, line, kmax), moved), *bank = xfer(c, spread, rbank);
    const sym_expr *shared = mx(c, leg2, bank), *press = add(c, leg2, bank);
    const sym_expr *per, *across;
    if (first_legs(c, o, noc, &per, &across)) {
        /* the banks' first legs carry the shares of every reader they pass */
        int amax = noc == 0 ? c->a->grid_w : c->a->grid_h;
        const sym_expr *leg1 = link_time(c, mul(c, per, leg_factor(c, noc, false, across, amax)), moved);
        shared = mx(c, shared, leg1);
        press = add(c, press, leg1);
    }
    const sym_expr *trip0, *alone, *x = dram_read(c, noc, moved, commands(c, b), shared, &trip0, &alone);
    stage st = {.cycles = add(c, add(c, trip0, x), cb), .fill = K(c, 0), .press = press, .xfer = x, .bank = bank,
                .readers = total};
    st.first = st.cycles;
    int64_t all;
    if (!(sym_is_const(banks, &all) && all == a->num_dram_banks))
        st.banks = banks;
    if (!o || o->transport == SCHED_DRAM) {
        if (b->level >= 1) {
            st.cycles = add(c, read_ahead(c, b, trip0, x), cb);
            st.local = add(c, alone, cb);
            st.lat = trip0;
        }
        return st;
    }
    return shared_cost(c, b, o, noc, st);
}

/* A store: every core writes its block at about the same step (in
 * lockstep), so their blocks share the banks' write bandwidth. */
stage sched_write_cost(mctx *c, const sched_buf *b)
{
    const arch_desc *a = c->a;
    const sym_expr *bytes = sched_dram_bytes(c, b);
    const sym_expr *own = xfer(c, bytes, LM_MIN(a->core_write_bpc, (double)a->link_bytes_per_cycle));
    const sym_expr *cmds = mul(c, commands(c, b), K(c, llround(a->noc_cmd_cycles)));
    const sym_expr *fixed = add(c, K(c, llround(a->dram_write_latency_cycles + a->cb_handshake_cycles +
                                                 a->barrier_cycles)),
                                dram_trip(c, sched_buf_noc(c, b)));
    double wbank = LM_MIN(a->dram_bank_write_bpc, (double)a->link_bytes_per_cycle) * a->num_dram_banks;
    stage st = {.cycles = add(c, fixed, mx(c, mx(c, own, cmds), xfer(c, mul(c, c->cores, bytes), wbank))),
                .fill = K(c, 0)};
    st.first = st.cycles;
    return st;
}
