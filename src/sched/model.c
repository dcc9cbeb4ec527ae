/* model.c - the symbolic problem of one candidate: its variables and their
 * domains, its legality constraints, and its latency expression, all derived
 * from the kernel summary and the hardware description alone
 * (docs/scheduler.md, "Model").
 *
 * Integer arithmetic: sym expressions are integers, so rates from the
 * description (bytes per cycle, cycles per tile, both fractional) are scaled
 * to thousandths and divided back with cdiv: moving `b` bytes at `r` B/cycle
 * takes cdiv(b * 1000, round(r * 1000)) cycles, which rounds up exactly as
 * a transfer finishes on the cycle after its last byte.
 *
 * The latency is a hierarchical execution graph. Each level (the program,
 * then each loop body) has three stages - the reader (its loads: DRAM reads,
 * multicasts, forwards), the compute engine (unpack, math and pack of its
 * tile ops, plus the loops nested in it) and the writer (its stores). A loop
 * of n iterations whose buffers are all at least double-buffered overlaps
 * its stages: prologue + (n - 1) x max(stage) + epilogue = n x max + (sum -
 * max); a single-buffered block serialises its producer with the ops that
 * hold it (single_buffers). The program level is the
 * loop over the programs a core runs (its waves). Shared DRAM bandwidth
 * bounds the whole launch from below. The lowering's decisions (chains in
 * Dst, ops folded away, row sums from a packer) are priced in lowered.c.
 */
#include "sched/sched_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const sym_expr *local_var(mctx *c, const char *name)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s", c->prefix, name);
    return sym_var(c->s, buf);
}

static void add_var(mctx *c, const sym_expr *v, const int64_t *dom, int n)
{
    for (size_t i = 0; i < c->vars.len; i++)
        if (c->vars.items[i].var == v)
            return;
    int64_t *d = LM_NEWN(c->ar, int64_t, n);
    memcpy(d, dom, sizeof *d * (size_t)n);
    LM_PUSH(&c->vars, ((solve_var){v, d, n}));
}

static void add_range_var(mctx *c, const sym_expr *v, int64_t lo, int64_t hi)
{
    int64_t dom[1024];
    int n = 0;
    for (int64_t x = lo; x <= hi && n < 1024; x++)
        dom[n++] = x;
    add_var(c, v, dom, n);
}

/* Feasible iff e <= 0. */
static void add_con(mctx *c, const sym_expr *e, const char *name)
{
    int64_t v;
    if (sym_is_const(e, &v) && v <= 0)
        return; /* always holds */
    LM_PUSH(&c->cons, ((solve_constraint){e, name}));
}

static sched_term *add_term(mctx *c, sched_termkind kind, const char *name, const sym_expr *cycles, int level)
{
    sched_model *m = c->m;
    if (m->nterms == SCHED_MAX_TERMS)
        return NULL;
    m->terms[m->nterms] = (sched_term){name, cycles, level, kind, false, 0};
    return &m->terms[m->nterms++];
}

/* ---- variables --------------------------------------------------------- */

static void free_vars(mctx *c)
{
    const arch_desc *a = c->a;
    int64_t step = LM_MAX(a->tile_h, a->tile_w);
    for (int i = 0; i < c->k->nfree; i++) {
        const sched_free *fr = &c->k->frees[i];
        int64_t lo, hi;
        if (c->bound && sym_env_get(c->bound, fr->var, &lo, &hi))
            continue; /* pinned */
        if (fr->block_dim) {
            /* multiples of the tile up to the tensor dimension rounded up to a
               tile, at most 1024 (a larger block along one dimension leaves no
               L1 for the others) */
            int64_t cap = 1024, dim;
            if (sym_eval(fix(c, fr->dim), c->bound, &dim) == SYM_OK)
                cap = LM_MIN(cap, LM_MAX(step, (dim + step - 1) / step * step));
            int64_t dom[64];
            int n = 0;
            /* When every access pads, a block larger than the smallest one giving
               the same number of blocks along its dimension only adds padded
               work, bytes and L1: it is left out of the domain. */
            bool prune = !fr->must_divide && fr->dim->kind != SYM_MAX &&
                         sym_eval(fix(c, fr->dim), c->bound, &dim) == SYM_OK && dim > 0;
            int64_t last = -1;
            for (int64_t x = step; x <= cap && n < 64; x += step) {
                int64_t cnt = prune ? (dim + x - 1) / x : x;
                if (cnt == last)
                    continue;
                last = cnt;
                dom[n++] = x;
            }
            add_var(c, fr->var, dom, n);
        } else {
            /* other constexprs (a split count, ...): powers of two 1..64 */
            int64_t dom[7] = {1, 2, 4, 8, 16, 32, 64};
            add_var(c, fr->var, dom, 7);
        }
    }
}

/* ---- the placement --------------------------------------------------- */

static void placement_consumer(mctx *c);

static void placement(mctx *c)
{
    if (c->fz && c->c->fuse == SCHED_FUSE_CONSUMER) {
        placement_consumer(c);
        return;
    }
    const sched_kernel *k = c->k;
    const sched_candidate *cd = c->c;
    int rank = k->f->grid_rank;
    bool use_x = false, use_y = false;
    for (int g = 0; g < rank; g++) {
        use_x |= cd->place[g] == SCHED_ON_X || cd->place[g] == SCHED_ON_XY;
        use_y |= cd->place[g] == SCHED_ON_Y || cd->place[g] == SCHED_ON_XY;
    }
    c->gx = use_x ? local_var(c, "grid.x") : K(c, 1);
    c->gy = use_y ? local_var(c, "grid.y") : K(c, 1);
    /* a load multicast or forwarded along x has two cores or more there
       (shared_groups) */
    int64_t least[2] = {1, 1};
    for (int i = 0; i < cd->nops; i++)
        if (cd->ops[i].transport == SCHED_MCAST || cd->ops[i].transport == SCHED_FORWARD) {
            if (cd->ops[i].along == SCHED_ON_X)
                least[0] = 2;
            else if (cd->ops[i].along == SCHED_ON_Y)
                least[1] = 2;
        }
    if (use_x)
        add_range_var(c, c->gx, least[0], c->a->grid_w);
    if (use_y)
        add_range_var(c, c->gy, least[1], c->a->grid_h);
    c->cores = mul(c, c->gx, c->gy);

    const sym_expr *w = K(c, 1), *nxy = K(c, 1);
    bool has_xy = false;
    const sym_expr *wg[TIR_MAX_GRID], *gs[TIR_MAX_GRID];
    for (int g = 0; g < rank; g++) {
        const sym_expr *n = c->nprog[g] = fix(c, k->f->grid[g]);
        gs[g] = cd->place[g] == SCHED_ON_X ? c->gx : cd->place[g] == SCHED_ON_Y ? c->gy
                : cd->place[g] == SCHED_ON_TIME ? K(c, 1) : NULL;
        switch (cd->place[g]) {
        case SCHED_ON_X:
            wg[g] = cdv(c, n, c->gx);
            add_con(c, sub(c, c->gx, n), lm_arena_printf(c->ar, "grid.x <= programs along %s",
                                                          "x"));
            break;
        case SCHED_ON_Y:
            wg[g] = cdv(c, n, c->gy);
            add_con(c, sub(c, c->gy, n), lm_arena_printf(c->ar, "grid.y <= programs along %s", "y"));
            break;
        case SCHED_ON_XY:
            nxy = mul(c, nxy, n);
            has_xy = true;
            wg[g] = NULL;
            break;
        case SCHED_ON_TIME:
            wg[g] = n;
            break;
        }
        if (wg[g])
            w = mul(c, w, wg[g]);
    }
    if (has_xy) {
        const sym_expr *wf = cdv(c, nxy, c->cores);
        w = mul(c, w, wf);
        add_con(c, sub(c, c->cores, nxy), "grid.x*grid.y <= programs flattened over the grid");
        for (int g = 0; g < rank; g++)
            if (cd->place[g] == SCHED_ON_XY)
                wg[g] = wf;
    }
    c->waves = w;
    sched_busiest_trips(c, wg, gs);
}

/* ---- fused launch pairs -------------------------------------------------- */

/* The passed tensor of access i of this launch (fused candidates), else NULL. */
static const sched_fused_tensor *passed(const mctx *c, int access)
{
    if (!c->fz || c->c->fuse == SCHED_FUSE_NONE)
        return NULL;
    for (int t = 0; t < c->fz->nt; t++)
        if ((c->c->fuse == SCHED_FUSE_PRODUCER ? c->fz->t[t].store : c->fz->t[t].load) == access)
            return &c->fz->t[t];
    return NULL;
}

/* A fused consumer runs on the reducer cores, after the producer's
 * programs: the producers of a row (column) deal the consumer programs of
 * all the groups they run round-robin over the row, so a core runs
 * ceil(groups x programs of a group / producers of a group) of them. No
 * grid variables of its own: its cores are the producer's reducers. */
static void placement_consumer(mctx *c)
{
    const sched_kernel *k = c->k;
    int rank = k->f->grid_rank;
    const sym_expr *w = K(c, 1), *wg[TIR_MAX_GRID], *gs[TIR_MAX_GRID];
    for (int g = 0; g < rank; g++) {
        const sym_expr *n = c->nprog[g] = fix(c, k->f->grid[g]);
        int ga = c->fz->key_of[g];
        sched_place pl = ga >= 0 ? c->oc->place[ga] : SCHED_ON_TIME;
        wg[g] = pl == SCHED_ON_X || pl == SCHED_ON_Y ? cdv(c, n, sched_other_grid(c, pl)) : n;
        gs[g] = pl == SCHED_ON_X || pl == SCHED_ON_Y ? sched_other_grid(c, pl) : K(c, 1);
        if (ga >= 0)
            w = mul(c, w, wg[g]);
    }
    c->groups = w;
    sched_place along = c->c->fuse_along, across = along == SCHED_ON_X ? SCHED_ON_Y : SCHED_ON_X;
    const sym_expr *nq = sched_group_programs(c, k), *np = sched_other_grid(c, along);
    w = cdv(c, mul(c, w, nq), np);
    c->waves = w;
    /* the reducers, which run at once: the first min(groups x programs of a
       group, producers of a group) cores of each of the producer's rows
       (columns); their DRAM traffic shares the banks and lines as any
       grid's does */
    bool lines = false;
    for (int g = 0; g < c->ok->f->grid_rank; g++)
        lines |= c->oc->place[g] == across;
    const sym_expr *per = mn(c, mul(c, c->groups, nq), np), *nl = lines ? sched_other_grid(c, across) : K(c, 1);
    c->gx = along == SCHED_ON_X ? per : nl;
    c->gy = along == SCHED_ON_X ? nl : per;
    c->cores = mul(c, c->gx, c->gy);
    sched_busiest_trips(c, wg, gs);
}

/* ---- stages ------------------------------------------------------------ */

/* Cores that share one read (1 for DRAM). */
static const sym_expr *share(mctx *c, const sched_operand *o)
{
    if (!o || o->transport == SCHED_DRAM)
        return K(c, 1);
    if (o->along == SCHED_ON_XY)
        return c->cores;
    return o->along == SCHED_ON_X ? c->gx : c->gy;
}


static bool is_view_op(tir_opcode op)
{
    return op == TIR_VIEW || op == TIR_BROADCAST || op == TIR_EXPAND_DIMS || op == TIR_TRANS || op == TIR_SPLAT;
}

/* The value whose pages an operand reads (views peeled). */
static const tir_value *peel(const tir_value *v)
{
    while (v->def && is_view_op(v->def->code) && v->def->nopnds)
        v = v->def->opnds[0];
    return v;
}

/* Does op j read what op i (earlier, same level) produced? A second work op
 * of the same Tile IR op (a division's multiply after its reciprocal) reads
 * the first's result. */
static bool reads(const opcost *oj, const opcost *oi)
{
    for (int p = 0; p < oi->nops; p++)
        for (int q = 0; q < oj->nops; q++) {
            const tir_op *a = oi->ops[p], *b = oj->ops[q];
            if (a == b)
                return true;
            if (a->nresults != 1)
                continue;
            for (int x = 0; x < b->nopnds; x++)
                if (peel(b->opnds[x]) == a->results[0])
                    return true;
        }
    return false;
}


/* Loaded blocks of a level and when each is in its CB at the first
 * execution of the level (the loads of one data-movement kernel arrive one
 * after the other). */
typedef struct arrivals {
    const tir_value *v[SCHED_MAX_BUFS];
    const sym_expr *at[SCHED_MAX_BUFS];
    int n;
    /* set by compute_cost, for the buffer-depth pairing in level_latency:
       per loaded block, the compute that holds it, from the first op of the
       level that reads it to the last (NULL: no op of the level reads it, so
       it is held for the whole level); per stored value (out_v[0..nout-1], set by the caller),
       the compute from the op that makes it on (NULL: the whole level) */
    const sym_expr *pre[SCHED_MAX_BUFS];
    int fop[SCHED_MAX_BUFS], lop[SCHED_MAX_BUFS]; /* the first and last op reading it (-1: none) */
    const sym_expr *top[SCHED_MAX_WORK];          /* each op at its slowest stage (NULL: merged) */
    int nops;
    const tir_value *out_v[SCHED_MAX_BUFS];
    const sym_expr *post[SCHED_MAX_BUFS];
    int nout;
} arrivals;

/* The tile ops the lowering runs for op o before its last (opcost.npass):
 * their latency along the chain (*chain), the unpacker's share of it
 * (*unpack) and their slowest stages added up (*top). Zero without. */
static void passes_time(mctx *c, const opcost *o, const sym_expr **chain, const sym_expr **unpack,
                        const sym_expr **top)
{
    *chain = *unpack = *top = K(c, 0);
    if (!o->npass)
        return;
    *chain = o->pass_chain;
    *unpack = o->pass_unpack;
    *top = o->pass_top;
}

/* The chain bound of a level's compute: an op that reads the result of an
 * earlier op of the same iteration starts unpacking only when that result
 * is pushed, after its last chunk is packed; so along a chain of dependent
 * ops the three stages overlap only within each op. Such an op of c chunks
 * takes max(u, m, p) + fill / c: its first chunk passes all three stages,
 * math following the unpacker unit by unit, the rest stream at the slowest
 * (sched_op_time). In steady state an op that
 * reads only loads and carried values overlaps the previous op (or
 * iteration) and counts its slowest stage only; the bound is the longest
 * path through the ops, where no op starts before the unpacker - one
 * thread, taking the ops in program order - has unpacked the ops before it
 * (an op off the path still delays the ops after it). At the first
 * execution of the level (*first) every
 * op pays its first chunk, and one that reads a loaded block starts no
 * earlier than the block arrives - so compute on the first load overlaps
 * the arrival of the next. */
static const sym_expr *chain(mctx *c, const opcost *oc, int n, const arrivals *arr, const sym_expr **first)
{
    const arch_desc *a = c->a;
    const sym_expr *dp[SCHED_MAX_WORK], *df[SCHED_MAX_WORK], *longest = K(c, 0), *lfirst = K(c, 0);
    const sym_expr *ufree = K(c, 0); /* when the unpacker has unpacked the ops so far */
    for (int j = 0; j < n; j++) {
        dp[j] = df[j] = K(c, 0);
        if (oc[j].dead)
            continue;
        const sym_expr *u = xfer(c, oc[j].unpack, a->unpack_bpc), *m = cdv(c, oc[j].math, K(c, 1000));
        const sym_expr *p = xfer(c, oc[j].pack, a->pack_bpc);
        const sym_expr *top, *full = sched_op_time(c, u, m, p, oc[j].chunks, oc[j].steps, &top);
        const sym_expr *before = NULL, *bfirst = K(c, 0);
        for (int i = 0; i < j; i++)
            if (!oc[i].dead && reads(&oc[j], &oc[i])) {
                before = before ? mx(c, before, dp[i]) : dp[i];
                bfirst = mx(c, bfirst, df[i]);
            }
        for (int q = 0; q < oc[j].nops; q++) {
            const tir_op *op = oc[j].ops[q];
            for (int x = 0; x < op->nopnds; x++)
                for (int l = 0; l < arr->n; l++)
                    if (peel(op->opnds[x]) == arr->v[l])
                        bfirst = mx(c, bfirst, arr->at[l]);
        }
        /* an op that reads an earlier op's result starts once that result
           is pushed: the push (a CB handshake) lies on the path too; and no
           op starts before the unpacker, which takes the ops in program
           order, has unpacked the ops before it */
        const sym_expr *hs = K(c, llround(a->cb_handshake_cycles));
        const sym_expr *start = before ? mx(c, ufree, add(c, before, hs)) : ufree;
        /* the lowering's passes over its operand come first, and the op
           waits for the last one's result */
        const sym_expr *pre, *pre_u, *pre_top;
        passes_time(c, &oc[j], &pre, &pre_u, &pre_top);
        const sym_expr *after = oc[j].npass ? mx(c, top, add(c, pre, mul(c, mn(c, K(c, 1), oc[j].npass), full))) : top;
        dp[j] = add(c, start, before ? add(c, pre, full) : after);
        ufree = add(c, add(c, start, pre_u), u);
        df[j] = add(c, add(c, bfirst, pre), full);
        if (before)
            df[j] = add(c, df[j], hs);
        longest = mx(c, longest, dp[j]);
        lfirst = mx(c, lfirst, df[j]);
    }
    *first = lfirst;
    return longest;
}

/* Does tile op o read value v (through views)? */
static bool op_reads(const opcost *o, const tir_value *v)
{
    for (int q = 0; q < o->nops; q++)
        for (int x = 0; x < o->ops[q]->nopnds; x++)
            if (peel(o->ops[q]->opnds[x]) == v)
                return true;
    return false;
}

/* Does tile op o make value v? */
static bool op_makes(const opcost *o, const tir_value *v)
{
    for (int q = 0; q < o->nops; q++)
        for (int x = 0; x < o->ops[q]->nresults; x++)
            if (o->ops[q]->results[x] == v)
                return true;
    return false;
}

/* Where a single-buffered block blocks its producer (docs/scheduler.md,
 * "Model": buffer depths). The compute waits for a loaded block before the
 * first op of the iteration that reads it and pops it after the last, and
 * only then can the reader refill a CB of one page set: arr->pre[l] is the
 * compute that holds the block, those ops at their slowest stage, in
 * program order. A stored value is reserved just before the op that makes
 * it and the writer pops it after its write: arr->post[o] is that op's time
 * (NULL, the whole level, when no op of the level makes it: an accumulator
 * written in place, reserved before its loop). */
static void pops_and_pushes(mctx *c, const opcost *oc, int n, arrivals *arr)
{
    const arch_desc *a = c->a;
    const sym_expr **top = arr->top;
    arr->nops = n;
    for (int j = 0; j < n; j++) {
        top[j] = oc[j].dead ? NULL
                            : mx(c, mx(c, xfer(c, oc[j].unpack, a->unpack_bpc), cdv(c, oc[j].math, K(c, 1000))),
                                 xfer(c, oc[j].pack, a->pack_bpc));
        const sym_expr *pre, *pre_u, *pre_top;
        passes_time(c, &oc[j], &pre, &pre_u, &pre_top);
        if (top[j] && oc[j].npass)
            top[j] = add(c, top[j], pre_top);
    }
    for (int l = 0; l < arr->n; l++) {
        int f = -1, last = -1;
        for (int j = 0; j < n; j++)
            if (!oc[j].dead && op_reads(&oc[j], arr->v[l])) {
                f = f < 0 ? j : f;
                last = j;
            }
        arr->pre[l] = NULL;
        arr->fop[l] = f;
        arr->lop[l] = last;
        for (int j = f; f >= 0 && j <= last; j++)
            if (top[j])
                arr->pre[l] = arr->pre[l] ? add(c, arr->pre[l], top[j]) : top[j];
    }
    for (int o = 0; o < arr->nout; o++) {
        arr->post[o] = NULL;
        for (int j = 0; j < n && !arr->post[o]; j++)
            if (!oc[j].dead && op_makes(&oc[j], arr->out_v[o]))
                arr->post[o] = top[j];
    }
}

/* The masked copy of a loaded block a boundary check cuts short (where the
 * lowering's plan says so, acc_clip) runs just before the first op reading
 * the block (the lowering's emit_clean), which waits for it: a pass of that
 * op, on the chain and in the totals. cleaned[i]: buffer i's copy is one. */
static void clean_passes(mctx *c, opcost *oc, int n, int level, bool *cleaned)
{
    const sched_kernel *k = c->k;
    for (int i = 0; k->acc_clip && i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN || b->level != level || b->access < 0 || !k->acc_clip[b->access])
            continue;
        for (int j = 0; j < n && !cleaned[i]; j++)
            if (!oc[j].dead && op_reads(&oc[j], b->value)) {
                sched_lowered w = {.kind = SCHED_LOWER_PASSES, .passes = K(c, 1), .tiles = b->tiles,
                                   .format = b->format, .when = k->acc_clip[b->access]};
                if (level > 0) { /* on the trips that keep it only (msplit.c) */
                    w.masked = c->clip_kept[b->access];
                    w.trips = c->live[level - 1];
                }
                sched_passes_cost(c, &oc[j], &w);
                cleaned[i] = true;
            }
    }
}

/* Compute engine at one level: unpack, math and pack run on their own
 * threads and overlap, so the stage is the slowest of the three, plus one
 * Dst hand-off per batch of tiles and the CB handshakes of its operands. */
static const sym_expr *compute_cost(mctx *c, int level, arrivals *arr, const sym_expr **first_out,
                                    const sym_expr **unpack_out, const sym_expr **math_out, const sym_expr **pack_out)
{
    const arch_desc *a = c->a;
    const sched_kernel *k = c->k;
    const sym_expr *unpack = K(c, 0), *math_m = K(c, 0), *pack = K(c, 0), *batches = K(c, 0);
    int64_t per_tile = LM_MAX(1, (int64_t)llround(a->tile_h / a->matmul_rows_granule));
    /* each op's own unpack bytes, math (thousandths) and pack bytes, and its
       chunks (sub-blocks, Dst batches), for the chain bound below */
    opcost oc[SCHED_MAX_WORK];
    int noc = 0;
    for (int i = 0; i < k->nops; i++) {
        const sched_work_op *o = &k->ops[i];
        if (o->level != level)
            continue;
        const sym_expr *tiles = fix(c, o->tiles);
        double cyc = 0;
        const sym_expr *math = NULL; /* thousandths; NULL: tiles x cyc */
        switch (o->kind) {
        case SCHED_OP_MATMUL: {
            const sched_dot *dt = &k->dots[o->dot];
            const sym_expr *mt = fix(c, dt->m_tiles), *nt = fix(c, dt->n_tiles), *kt = fix(c, dt->k_tiles);
            const sym_expr *nsub = mul(c, fdv(c, mt, c->subh), fdv(c, nt, c->subw));
            /* The unpacker feeds the matrix engine one tile of each operand per
               tile product and holds one operand's tile while it streams the
               other's along the sub-block's longer side (in0 is held when
               sub.w >= sub.h); per K tile a sub-block therefore unpacks
               min(h, w) tiles of the held operand and h*w of the streamed one
               (docs/scheduler.md, "Model"). */
            int64_t tba = a->tile_bytes[dt->a_format], tbb = a->tile_bytes[dt->b_format];
            const sym_expr *hw = mul(c, c->subh, c->subw), *lo = mn(c, c->subh, c->subw);
            const sym_expr *ub;
            if (tba == tbb) {
                ub = mul(c, add(c, lo, hw), K(c, tba));
            } else {
                /* held_a = 1 when sub.w >= sub.h (in0 held), else 0 */
                const sym_expr *held_a = mn(c, K(c, 1), mx(c, K(c, 0), add(c, sub(c, c->subw, c->subh), K(c, 1))));
                const sym_expr *held_b = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, c->subh, c->subw)));
                ub = add(c, mul(c, held_a, add(c, mul(c, c->subh, K(c, tba)), mul(c, hw, K(c, tbb)))),
                         mul(c, held_b, add(c, mul(c, c->subw, K(c, tbb)), mul(c, hw, K(c, tba)))));
            }
            const sym_expr *ubytes = mul(c, mul(c, kt, nsub), ub);
            /* The same quantity is at least kt mt nt min(bytes per tile product)
               over the sub-blocks Dst holds: TBheld/max(h, w) + TBstreamed.
               Writing that floor into the expression (a max that never changes
               its value where the sub-block divides the block) keeps the
               solver's bound tight while sub.h and sub.w are still open;
               without it the bound falls to the 8x8 corner. */
            int dst = k->fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
            int64_t best = INT64_MAX;
            for (int h = 1; h <= LM_MIN(8, dst); h++)
                for (int w = 1; w <= LM_MIN(8, dst) && h * w <= dst; w++)
                    best = LM_MIN(best, w >= h ? tba / w + tbb : tbb / h + tba);
            const sym_expr *mnk = mul(c, mul(c, kt, mt), nt);
            const sym_expr *mu = mx(c, ubytes, mul(c, mnk, K(c, best)));
            nsub = mx(c, nsub, cdv(c, mul(c, mt, nt), K(c, dst)));
            /* in0 rows below a tile cost by the matrix engine's row granule */
            const sym_expr *gran = mn(c, cdv(c, fix(c, dt->m_rows), K(c, llround(a->matmul_rows_granule))),
                                      mul(c, mt, K(c, per_tile)));
            const sym_expr *ops = mul(c, mul(c, kt, nt), gran);
            const sym_expr *mm =
                cdv(c, mul(c, ops, K(c, milli(a->matmul_tile_cycles[k->fidelity]))), K(c, per_tile));
            /* math takes a sub-block's tile products one by one: kt x h x w a chunk */
            oc[noc++] = (opcost){.o = o, .ops = {o->op}, .nops = 1, .unpack = mu, .math = mm,
                                 .pack = fix(c, o->pack_bytes), .chunks = nsub, .batches = nsub,
                                 .steps = mx(c, K(c, 1), mul(c, kt, hw))};
            continue;
        }
        case SCHED_OP_ELTWISE: cyc = a->eltwise_tile_cycles; break;
        case SCHED_OP_EXP: cyc = a->sfpu_exp_tile_cycles; break;
        /* no description gives a log: it costs an exact exp, as the
           simulator charges it (its polynomial is of that length) */
        case SCHED_OP_LOG: cyc = a->sfpu_exp_exact_tile_cycles; break;
        case SCHED_OP_RECIP: cyc = a->sfpu_recip_tile_cycles; break;
        case SCHED_OP_SQRT: cyc = a->sfpu_sqrt_tile_cycles; break;
        case SCHED_OP_RSQRT: cyc = a->sfpu_rsqrt_tile_cycles; break;
        case SCHED_OP_SIGMOID: cyc = a->sfpu_sigmoid_tile_cycles; break;
        case SCHED_OP_REDUCE:
            /* a maximum is the block row reduction (the lowering's rowmax) */
            cyc = o->op->code == TIR_REDUCE_MAX ? a->reduce_block_tile_cycles : a->reduce_tile_cycles;
            /* the lowering folds a sum: each input tile one element-wise
               pass, each output tile one row reduction in place of one */
            if (o->op->code == TIR_REDUCE_SUM && o->out_tiles)
                math = add(c, mul(c, tiles, K(c, milli(a->eltwise_tile_cycles))),
                           mul(c, fix(c, o->out_tiles), K(c, milli(cyc) - milli(a->eltwise_tile_cycles))));
            break;
        case SCHED_OP_COPY: cyc = a->eltwise_tile_cycles; break;
        }
        const sym_expr *chunks = mx(c, K(c, 1), fix(c, o->dst_batches));
        oc[noc++] = (opcost){.o = o, .ops = {o->op}, .nops = 1, .unpack = fix(c, o->unpack_bytes),
                             .math = math ? math : mul(c, tiles, K(c, milli(cyc))), .pack = fix(c, o->pack_bytes),
                             .chunks = chunks, .batches = fix(c, o->dst_batches),
                             .steps = mx(c, K(c, 1), fdv(c, tiles, chunks))};
    }
    sched_merge_chains(c, oc, noc);
    sched_lowered_ops(c, oc, noc, level);
    bool cleaned[SCHED_MAX_BUFS] = {false};
    clean_passes(c, oc, noc, level, cleaned);
    pops_and_pushes(c, oc, noc, arr);
    const sym_expr *npass = K(c, 0); /* the passes' tile ops, beside the work ops */
    for (int i = 0; i < noc; i++) {
        if (oc[i].dead)
            continue;
        unpack = add(c, unpack, oc[i].unpack);
        math_m = add(c, math_m, oc[i].math);
        pack = add(c, pack, oc[i].pack);
        batches = add(c, batches, oc[i].batches);
        if (oc[i].npass) {
            npass = add(c, npass, oc[i].npass);
            unpack = add(c, unpack, oc[i].pass_bytes);
            math_m = add(c, math_m, oc[i].pass_math);
            pack = add(c, pack, oc[i].pass_bytes);
            batches = add(c, batches, oc[i].pass_batches);
        }
    }
    int nio = 0;
    for (int i = 0; i < k->nbufs; i++)
        if ((k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT) && k->bufs[i].level == level)
            nio++;
    /* a loaded block a boundary check cuts short is first copied through a
       mask (one element-wise pass per tile) where the lowering says so; one
       no op of the level reads (clean_passes) counts in the totals only */
    for (int i = 0; k->acc_clip && i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN || b->level != level || b->access < 0 || !k->acc_clip[b->access] || cleaned[i])
            continue;
        const sym_expr *ind = fix(c, k->acc_clip[b->access]), *tiles = fix(c, b->tiles);
        /* on the trips that keep it only, on average (msplit.c) */
        sched_lowered w = {.masked = level > 0 ? c->clip_kept[b->access] : NULL,
                           .trips = level > 0 ? c->live[level - 1] : NULL};
        math_m = add(c, math_m, sched_on_trips(c, &w, mul(c, ind, mul(c, tiles, K(c, milli(a->eltwise_tile_cycles))))));
        unpack = add(c, unpack, sched_on_trips(c, &w, mul(c, ind, fix(c, b->bytes))));
        pack = add(c, pack, sched_on_trips(c, &w, mul(c, ind, fix(c, b->bytes))));
        batches = add(c, batches, sched_on_trips(c, &w, mul(c, ind, cdv(c, tiles, K(c, k->fp32_acc ? a->dst_tiles_half_32b
                                                                                              : a->dst_tiles_half_16b)))));
    }
    /* An op configured differently from the op before it has each thread
       run the LLK init and format reconfig (op_init_cycles) first. A thread
       does it while it would wait for the op's inputs, so it counts in the
       threads' busy totals, not along the chain of dependent ops. A level of
       several ops pays every op's each iteration; the single op of a level
       (a matmul over K) keeps its configuration from one iteration to the
       next, and its one init per execution of the level hides behind the
       level's first loads. */
    int nlive = 0;
    const sym_expr *nwhere = NULL; /* ops the lowering leaves out at some values */
    for (int i = 0; i < noc; i++) {
        nlive += !oc[i].dead && !oc[i].gone;
        if (!oc[i].dead && !oc[i].gone && oc[i].gone_when)
            nwhere = nwhere ? add(c, nwhere, oc[i].gone_when) : oc[i].gone_when;
    }
    int64_t init = llround(a->op_init_cycles), hs = llround(a->cb_handshake_cycles);
    const sym_expr *live_inits = K(c, nlive >= 2 ? nlive * init : 0),
                   *live_hss = K(c, nlive >= 2 ? (nlive - 1) * hs : 0);
    if (nwhere) {
        /* the same, of the ops that run at the values taken */
        const sym_expr *n = sub(c, K(c, nlive), nwhere), *two = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, n, K(c, 1))));
        live_inits = mul(c, two, mul(c, n, K(c, init)));
        live_hss = mul(c, two, mul(c, sub(c, n, K(c, 1)), K(c, hs)));
    }
    const sym_expr *inits = add(c, live_inits, mul(c, npass, K(c, init)));
    /* each op's result is pushed by the packer and its operands popped by
       the unpacker: a CB handshake per op on each (the loads' and stores'
       are in `extra`, below) */
    const sym_expr *hss = add(c, live_hss, mul(c, npass, K(c, hs)));
    const sym_expr *ucyc = add(c, add(c, xfer(c, unpack, a->unpack_bpc), inits), hss);
    const sym_expr *mcyc = add(c, cdv(c, math_m, K(c, 1000)), inits);
    const sym_expr *pcyc = add(c, add(c, xfer(c, pack, a->pack_bpc), inits), hss);
    *unpack_out = ucyc;
    *math_out = mcyc;
    *pack_out = pcyc;
    const sym_expr *first;
    const sym_expr *steady = mx(c, mx(c, mx(c, ucyc, mcyc), pcyc), chain(c, oc, noc, arr, &first));
    const sym_expr *extra = add(c, mul(c, batches, K(c, llround(a->dst_handoff_cycles))),
                                K(c, nio * llround(a->cb_handshake_cycles)));
    /* the first execution: no shorter than the steady one after the first
       block arrives, nor than the chain with its arrivals */
    const sym_expr *earliest = NULL;
    for (int l = 0; l < arr->n; l++)
        earliest = earliest ? mn(c, earliest, arr->at[l]) : arr->at[l];
    *first_out = add(c, mx(c, first, add(c, earliest ? earliest : K(c, 0), steady)), extra);
    return add(c, steady, extra);
}

/* When load i's first block arrives in the first execution of its level,
 * from the kernel's start; advances the kernel's two sums (level_latency).
 * A DRAM load read ahead (depth 2 or more, st->local set) has its first
 * block's reads issued before the loop, beside the other loads read ahead,
 * with no barrier between them: their round trips' latencies overlap, and
 * only what they share comes one after the other - each core's own
 * commands and rate (stage.local) and the banks' time of every core's
 * blocks (banks_pre); their links' shares overlap - so two one-tile loads
 * read ahead arrive about together, not one round trip after the other
 * (n150 GEMM 62^3 on 4 cores, 32^3 blocks from DRAM: a's and b's first
 * blocks both about 780 cycles after the start, the first iteration 1,179
 * cycles; summed round trips made it 1,635), and on n150 decode (B=2
 * HKV=4 H=16 S=591 D=128, 96-row blocks) V's first block lands 11,300
 * cycles after q, not after K's whole transfer at its busiest link's share
 * (12,805). A single-buffered load before it still costs its whole round
 * trip. A load read at depth 1 in the loop, or moved core to core, waits
 * in iteration 0 for every earlier load's barrier: their round trips in
 * turn.
 * Where the banks bind (every core reading at once), a core's reads from
 * one bank are served in order but the bank is shared fairly by the cores
 * with reads on it, so a block whose tiles lie on fewer banks than the
 * core has tiles in flight waits for the bank to serve every reader one
 * tile (`inflight`, the tiles each core has issued by its loop's first
 * barrier: every first block read ahead, and the next block of the loop's
 * first load read ahead, which the loop issues before that barrier when
 * it runs a second trip; a load read at depth 1 is issued after the blocks
 * read ahead and adds its own): the banks' time of its step (stage.bank,
 * over the banks its readers hit) times ceil(tiles / banks hit) x
 * min(banks hit, tiles in flight) / tiles, its rounds at a bank that
 * serves every reader. Decode on a chip with little DRAM bandwidth per
 * core (12 x 9 grid, 99 B/cycle, B=3 HKV=1 S=1306 D=64, two 96-row blocks
 * per split): K's first block of 6 tiles lands after some 6,000 cycles,
 * twice its 3,000 at the banks' full rate, with K's and V's first blocks
 * and K's second, 18 tiles, in flight on 12 banks. */
static const sym_expr *first_arrival(mctx *c, int level, int i, const stage *st, const sym_expr *local,
                                     const sym_expr *live, const sym_expr **serial, const sym_expr **ahead_pre,
                                     const sym_expr **banks_pre, const sym_expr **inflight, bool *next_issued)
{
    const sym_expr *at = add(c, *serial, st->first);
    if (local && st->lat && c->depth[i]) {
        const sym_expr *one = sched_single(c, i), *more = sub(c, K(c, 1), one);
        const sym_expr *n = fix(c, c->k->bufs[i].tiles);
        if (level > 0 && !*next_issued) {
            const sym_expr *again = mn(c, K(c, 1), mx(c, K(c, 0), sub(c, c->trips[level - 1], K(c, 1))));
            *inflight = add(c, *inflight, mul(c, more, mul(c, again, n)));
            *next_issued = true;
        }
        const sym_expr *ahead = add(c, *ahead_pre, st->first), *single = at;
        if (st->bank) {
            const sym_expr *hit = st->banks ? st->banks : K(c, c->a->num_dram_banks);
            const sym_expr *bank = live ? mul(c, st->bank, live) : st->bank;
            *banks_pre = add(c, *banks_pre, mul(c, more, bank));
            ahead = mx(c, ahead, add(c, st->lat, *banks_pre));
            const sym_expr *rounds = cdv(c, n, hit);
            ahead = mx(c, ahead, add(c, st->lat, cdv(c, mul(c, mul(c, bank, rounds), mn(c, hit, *inflight)), n)));
            single = mx(c, single, add(c, st->lat, cdv(c, mul(c, mul(c, bank, rounds), mn(c, hit, add(c, *inflight, n))), n)));
        }
        at = add(c, mul(c, one, single), mul(c, more, ahead));
        *ahead_pre = add(c, *ahead_pre, add(c, mul(c, one, st->first), mul(c, more, local)));
    } else {
        *ahead_pre = add(c, *ahead_pre, st->first);
    }
    *serial = add(c, *serial, st->first);
    return at;
}

/* Latency of `n` executions of a level: the first execution runs its
 * stages one after the other (`first`: its reads as every core starts at
 * once, its writes as every core ends at once); each later one adds the
 * period: the slowest stage (`top`) when every buffer is at least double,
 * else at least what a single buffer serialises (`held`, level_latency):
 * first + (n - 1) x max(top, held). Written without subtracting correlated
 * terms, so that interval bounds stay tight for the solver. */
static const sym_expr *pipeline(mctx *c, const sym_expr *n, const sym_expr *first, const sym_expr *top,
                                const sym_expr *held)
{
    return add(c, first, mul(c, sub(c, n, K(c, 1)), mx(c, top, held)));
}

/* Is buffer b last used inside a loop nested in its level (so that its
 * block is popped only after that loop)? */
static bool used_in_nested(const sched_kernel *k, const sched_buf *b)
{
    for (int i = 0; i < k->nloops; i++)
        if (k->loops[i].parent + 1 == b->level && k->loops[i].first <= b->last && b->last <= k->loops[i].last)
            return true;
    return false;
}

/* A single-buffered load i of the level: the most any load y at or after
 * it in its kernel's order waits behind it (single_buffers). */
static const sym_expr *load_chain(mctx *c, int level, const arrivals *arr, const sym_expr *const *cost, const int *slot,
                                  const int *kern, int i, const sym_expr *cc, const sym_expr *own)
{
    const sched_kernel *k = c->k;
    int x = slot[i];
    bool whole = !arr->pre[x] || used_in_nested(k, &k->bufs[i]);
    const sym_expr *reads = K(c, 0), *most = NULL;
    for (int j = i; j < k->nbufs; j++) {
        const sched_buf *y = &k->bufs[j];
        if (y->kind != SCHED_BUF_IN || y->level != level || !cost[j] || kern[j] != kern[i])
            continue;
        reads = add(c, reads, j == i && own ? own : cost[j]);
        /* the ops holding x from y's first use (or x's) to x's last */
        const sym_expr *held = whole ? cc : NULL;
        int from = LM_MAX(arr->fop[x], arr->fop[slot[j]]);
        for (int o = from; !whole && arr->fop[slot[j]] >= 0 && o <= arr->lop[x]; o++)
            if (arr->top[o])
                held = held ? add(c, held, arr->top[o]) : arr->top[o];
        const sym_expr *ch = held ? add(c, reads, held) : reads;
        most = most ? mx(c, most, ch) : ch;
    }
    return most ? most : K(c, 0);
}

/* What single-buffered blocks of a level serialise per execution (the
 * period's floor besides the slowest stage), from where the program waits
 * for a CB of one page set:
 *  - a load x of depth 1: its kernel reserves x's next block only when the
 *    compute has popped the current one, after the ops that hold it (from
 *    the first that reads it to the last: pre), and reads it then, and every
 *    load y after it in the kernel's order after that (a kernel issues its
 *    loads in order, whatever their depths): y's next block arrives x's
 *    read and the reads up to y's after the pop, and the compute holds x
 *    from y's first use (or x's, if later) to x's last: the reads from x to
 *    y plus those ops. The compute outside them, the other kernel's loads
 *    and loads before x still overlap;
 *  - a store y of depth 1: the compute reserves y's next block just before
 *    the op that makes it (post; the whole level for an accumulator written
 *    in place, reserved before its loop), and only after the writer has
 *    written and popped the current one: post + y's write.
 *  - a load x read ahead at depth 2 (local: what the reader spends on a
 *    block that is there): block i + 1's pages are reserved in trip i,
 *    beside block i's, so the reserve waits for the compute to pop block
 *    i - 1 as at depth 1, and the same chain follows with x's round trip
 *    out of it (block i was issued a trip earlier); at depth 3 the CB has
 *    room for block i - 1 besides.
 * The largest of these, each times its indicator (depth 1; depth 2). */
static const sym_expr *single_buffers(mctx *c, int level, const arrivals *arr, const sym_expr *const *cost,
                                      const sym_expr *const *local, const int *slot, const int *kern,
                                      const sym_expr *cc)
{
    const sched_kernel *k = c->k;
    const sym_expr *held = K(c, 0);
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->level != level || !cost[i])
            continue;
        const sym_expr *chain;
        if (b->kind == SCHED_BUF_IN) {
            if (!c->depth[i])
                continue; /* a fused consumer's block: there once, for every program */
            chain = load_chain(c, level, arr, cost, slot, kern, i, cc, NULL);
            if (local[i]) {
                /* [depth = 2]: [depth >= 2] - [depth >= 3] */
                const sym_expr *d = c->depth[i];
                const sym_expr *two = sub(c, mn(c, K(c, 1), mx(c, K(c, 0), sub(c, d, K(c, 1)))),
                                          mn(c, K(c, 1), mx(c, K(c, 0), sub(c, d, K(c, 2)))));
                held = mx(c, held, mul(c, two, load_chain(c, level, arr, cost, slot, kern, i, cc, local[i])));
            }
        } else {
            const sym_expr *post = arr->post[slot[i]] ? arr->post[slot[i]] : cc;
            chain = add(c, post, cost[i]);
        }
        held = mx(c, held, mul(c, sched_single(c, i), chain));
    }
    return held;
}

static const sym_expr *trips_to(mctx *c, int level);

/* sched_model.exposed: each execution of the level adds the transfers of
 * its buffers of one page set (a depth variable at 1). */
static void expose(mctx *c, int level, const sym_expr *const *cost)
{
    const sym_expr *e = K(c, 0);
    for (int i = 0; i < c->k->nbufs; i++)
        if (c->k->bufs[i].level == level && cost[i] && c->depth[i])
            e = add(c, e, mul(c, sched_single(c, i), cost[i]));
    c->exposed = add(c, c->exposed, mul(c, mul(c, c->waves, trips_to(c, level)), e));
}

/* What a level tells the level it is nested in, besides its latency. */
typedef struct level_cost {
    const sym_expr *busy;     /* the same with no overlap at all: the time the core's engines are busy */
    const sym_expr *next;     /* all executions, the loads running ahead of the compute */
    const sym_expr *loads[2]; /* per data-movement kernel, its loads over all executions (nested ones too) */
    const sym_expr *step;     /* the compute of one execution: what follows a level's last load */
    const sym_expr *compute;  /* all executions' compute alone, its blocks there */
    const sym_expr *lead[2];  /* per data-movement kernel, an execution's compute before the first op
                                 that reads one of its loads (NULL: it loads nothing here) */
    const sym_expr *first[2]; /* per data-movement kernel, its loads of an execution's first step */
    const sym_expr *per;      /* one iteration at the steady pace (a loop level) */
} level_cost;

/* A data-movement kernel issues its transfers in program order: a kernel
 * that loads blocks in nested loops and then stores the level's result
 * (the writer that reads a matmul's b and writes c) reaches the next
 * execution's loads only after the store, and the store waits for the
 * compute that follows the last load. Per execution it needs its loads,
 * the nested loops' own loads, the compute after the last and its stores
 * in turn; and the compute of the next execution waits at the first op
 * that reads one of this kernel's nested loads for the store that came
 * before it and that load's first block (`first`: its whole round trip),
 * less the compute before that op (`lead`, nothing for a matmul's b, most
 * of an attention step for its v). With several programs a core that
 * stall comes between the programs' compute (p150 GEMM 2048^3,
 * 160 x 128 blocks, two programs a core on 13 x 8 cores: a store of 22,000
 * cycles, all cores writing at once, 197,124 simulated against 174,544
 * predicted before). */
static const sym_expr *kernel_order(mctx *c, const sym_expr *nested_loads, const sym_expr *nested_compute,
                                    const sym_expr *lead, const sym_expr *first, const sym_expr *loads,
                                    const sym_expr *stores, const sym_expr *tail, bool stores_after_nested)
{
    const sym_expr *own = add(c, loads, stores);
    if (!stores_after_nested)
        return own;
    const sym_expr *wait = add(c, stores, first);
    const sym_expr *stall = lead ? mx(c, K(c, 0), sub(c, wait, lead)) : wait;
    return add(c, loads, mx(c, add(c, add(c, nested_loads, tail), stores), add(c, nested_compute, stall)));
}

/* Per data-movement kernel, the compute of an execution of `level` before
 * the first op that reads one of its loads there (the ops at their slowest
 * stage, in program order: arrivals.top); the whole execution's (cc) where
 * no op of the level reads them; NULL where it loads nothing here. */
static void lead_of_loads(mctx *c, const arrivals *arr, const int *kern, const int *slot, int level,
                          const sym_expr *cc, const sym_expr **lead)
{
    int first[2] = {-1, -1};
    bool any[2] = {false, false};
    for (int i = 0; i < c->k->nbufs; i++) {
        const sched_buf *b = &c->k->bufs[i];
        if (b->level != level || b->kind != SCHED_BUF_IN)
            continue;
        int e = kern[i], f = arr->fop[slot[i]];
        any[e] = true;
        if (f >= 0 && (first[e] < 0 || f < first[e]))
            first[e] = f;
    }
    for (int e = 0; e < 2; e++) {
        lead[e] = NULL;
        if (!any[e])
            continue;
        if (first[e] < 0) {
            lead[e] = cc;
            continue;
        }
        lead[e] = K(c, 0);
        for (int j = 0; j < first[e]; j++)
            if (arr->top[j])
                lead[e] = add(c, lead[e], arr->top[j]);
    }
}

/* One trip's loads of the level that a sharing group moves together (a
 * multicast or forwarding transport), the slower data-movement kernel's:
 * what a trip of a stretched loop past a core's own costs (the lowering
 * skips its other loads there and the compute pops those blocks unused). */
static const sym_expr *shared_loads(mctx *c, int level, const sym_expr *const *cost, const int *kern)
{
    const sym_expr *per[2] = {K(c, 0), K(c, 0)};
    for (int i = 0; i < c->k->nbufs; i++) {
        const sched_buf *b = &c->k->bufs[i];
        const sched_operand *o = b->kind == SCHED_BUF_IN && b->level == level && cost[i] && b->access >= 0
                                     ? sched_operand_of(c, b)
                                     : NULL;
        if (o && (o->transport == SCHED_MCAST || o->transport == SCHED_FORWARD))
            per[kern[i]] = add(c, per[kern[i]], cost[i]);
    }
    return mx(c, per[0], per[1]);
}

/* DRAM bank sharing across the grid at a level's first execution: the
 * lowering issues the first block of every load read ahead (DRAM, depth 2
 * or more) before the loop, on every core at once, and a multicast or
 * forwarding sender reads its first block inside the loop's first trip,
 * behind them. Its read shares each bank with the n cores' flows there,
 * one fair share each: it ends when it has its own bytes and, from each of
 * the n, as many as it took itself or as many as that core has there,
 * whichever is less - the banks' time for all the blocks read ahead, or n
 * times its own block's, the less, on top of its senders' own
 * (sender_behind_the_grid in tests/unit/test_model_sim.c). Its
 * transfer is at least that (causal attention n150 B=1 H=7 S=158 D=128, k
 * multicast along y, v read ahead on 35 cores: the sender's k read waited
 * 5,400 cycles behind the grid's 1.4 MB of v, priced at its own 770).
 * grid_banks adds load i's share to *ahead or records it as a shared load;
 * level_latency moves the recorded arrivals. */
typedef struct bank_wait {
    int slot, kern;                /* its place in the arrivals, its kernel */
    const sym_expr *x, *bank;      /* its sender's read: transfer, banks' time */
    const sym_expr *per_core;      /* the banks' time were every core to read its block */
} bank_wait;

static void grid_banks(mctx *c, int i, const sched_buf *b, const stage *st, const sym_expr *live,
                       const sym_expr **ahead, bank_wait *behind, int *nbehind, int slot)
{
    if (!st->bank || !st->xfer)
        return;
    const sym_expr *bank = live ? mul(c, st->bank, live) : st->bank, *x = live ? mul(c, st->xfer, live) : st->xfer;
    const sched_operand *o = b->access >= 0 ? sched_operand_of(c, b) : NULL;
    if (st->local && st->lat && c->depth[i]) {
        *ahead = add(c, *ahead, mul(c, sub(c, K(c, 1), sched_single(c, i)), bank));
    } else if (o && (o->transport == SCHED_MCAST || o->transport == SCHED_FORWARD) && b->level >= 1) {
        behind[*nbehind] = (bank_wait){.slot = slot, .kern = sched_buf_noc(c, b), .x = x, .bank = bank,
                                       .per_core = cdv(c, mul(c, bank, c->cores), mx(c, K(c, 1), st->readers))};
        (*nbehind)++;
    }
}

/* Load i's stage, scaled by the trips that read it (*live; NULL: all),
 * and, read ahead, its first block's tiles added to its kernel's tiles in
 * flight (first_arrival). */
static void read_stage(mctx *c, int i, stage *st, const sym_expr **live, const sym_expr **inflight)
{
    const sched_buf *b = &c->k->bufs[i];
    *st = sched_read_cost(c, b);
    *live = sched_buf_live(c, b);
    if (st->local && st->lat && c->depth[i]) {
        const sym_expr *n = mul(c, sub(c, K(c, 1), sched_single(c, i)), fix(c, b->tiles));
        inflight[sched_buf_noc(c, b)] = add(c, inflight[sched_buf_noc(c, b)], *live ? mul(c, n, *live) : n);
    }
    if (*live) {
        st->cycles = mul(c, st->cycles, *live);
        st->first = mul(c, st->first, *live);
        st->fill = mul(c, st->fill, *live);
    }
}

/* The latency of one execution of level `level` (a loop body: all its
 * iterations; the program level: all programs of the busiest core); *out
 * gets what the enclosing level needs (level_cost; *busy is the last
 * tie-break: among schedules of equal latency, the one with the most
 * slack). */
static const sym_expr *level_latency(mctx *c, int level, level_cost *out)
{
    const sched_kernel *k = c->k;
    /* per data-movement kernel (0 the reader on NoC 0, 1 the writer on
       NoC 1): its loads (steady and first) and its stores (steady and last) */
    const sym_expr *ld[2] = {K(c, 0), K(c, 0)}, *ldf[2] = {K(c, 0), K(c, 0)};
    /* per kernel, before its next load's first block: every earlier load's
       whole first round trip (in iteration 0 the kernel waits at each
       earlier load's barrier), what precedes a first read issued ahead,
       and the banks' time of the first blocks read ahead so far
       (first_arrival) */
    const sym_expr *serial[2] = {K(c, 0), K(c, 0)}, *ahead_pre[2] = {K(c, 0), K(c, 0)}, *banks_pre[2] = {K(c, 0), K(c, 0)};
    bool next_issued[2] = {false, false}; /* a next block read ahead counted (first_arrival) */
    /* per kernel, the tiles of every first block read ahead */
    const sym_expr *inflight[2] = {K(c, 0), K(c, 0)};
    stage sts[SCHED_MAX_BUFS];
    const sym_expr *lives[SCHED_MAX_BUFS];
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].level == level && k->bufs[i].kind == SCHED_BUF_IN)
            read_stage(c, i, &sts[i], &lives[i], inflight);
    const sym_expr *st_[2] = {K(c, 0), K(c, 0)}, *stl[2] = {K(c, 0), K(c, 0)}, *fill = K(c, 0);
    const sym_expr *press = K(c, 0); /* the loads' times on shared links and banks (stage.press) */
    /* the banks' time for every core's first blocks of the loads read ahead
       (grid_banks), and the shared loads whose senders read behind them */
    const sym_expr *ahead_banks = K(c, 0);
    bank_wait behind[SCHED_MAX_BUFS];
    int nbehind = 0;
    bool has_store[2] = {false, false};
    arrivals arr;
    arr.n = arr.nout = 0;
    /* per IN and OUT buffer of the level: its stage's cycles, its place in
       arr and its data-movement kernel */
    const sym_expr *cost[SCHED_MAX_BUFS] = {0}, *local[SCHED_MAX_BUFS] = {0}; /* local: stage.local */
    int slot[SCHED_MAX_BUFS] = {0}, kern[SCHED_MAX_BUFS] = {0};
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->level != level)
            continue;
        int e = sched_buf_noc(c, b);
        kern[i] = e;
        if (b->kind == SCHED_BUF_IN) {
            stage st = sts[i];
            const sym_expr *live = lives[i];
            cost[i] = st.cycles;
            local[i] = st.local && live ? mul(c, st.local, live) : st.local;
            if (st.press)
                press = add(c, press, live ? mul(c, st.press, live) : st.press);
            slot[i] = arr.n;
            ld[e] = add(c, ld[e], st.cycles);
            grid_banks(c, i, b, &st, live, &ahead_banks, behind, &nbehind, arr.n);
            const sym_expr *at = first_arrival(c, level, i, &st, local[i], live, &serial[e], &ahead_pre[e],
                                               &banks_pre[e], &inflight[e], &next_issued[e]);
            ldf[e] = ldf[e] == K(c, 0) ? at : mx(c, ldf[e], at);
            arr.v[arr.n] = b->value;
            arr.at[arr.n++] = at;
            fill = add(c, fill, st.fill);
            if (b->access >= 0 && sched_operand_of(c, b) && sched_operand_of(c, b)->transport == SCHED_FORWARD)
                add_term(c, SCHED_T_FILL, lm_arena_printf(c->ar, "fill the forwarding chain of %s", b->name), st.fill,
                         level);
            sched_term *tm = add_term(c, SCHED_T_READ,
                                      lm_arena_printf(c->ar, passed(c, b->access) ? "receive %s from the producers%s"
                                                                                    : "read %s%s",
                                                      b->name, e ? " (writer, NoC 1)" : ""),
                                      st.cycles, level);
            if (tm)
                tm->writer = e == 1;
            sched_term *bt = st.banks ? add_term(c, SCHED_T_COUNT,
                                                 lm_arena_printf(c->ar, "DRAM banks' worth of bandwidth the readers of %s get (of %d)",
                                                                 b->name, c->a->num_dram_banks),
                                                 st.banks, level)
                                      : NULL;
            if (bt)
                bt->plain = c->a->num_dram_banks;
        } else if (b->kind == SCHED_BUF_OUT) {
            const sched_fused_tensor *ft = passed(c, b->access);
            stage st = ft ? sched_send_cost(c, b, ft) : sched_write_cost(c, b);
            cost[i] = st.cycles;
            slot[i] = arr.nout;
            arr.out_v[arr.nout++] = b->value;
            st_[e] = add(c, st_[e], st.cycles);
            has_store[e] = true;
            stl[e] = add(c, stl[e], st.first);
            sched_term *tm = add_term(c, SCHED_T_WRITE,
                                      lm_arena_printf(c->ar, ft ? "send %s to the reducer%s" : "write %s%s", b->name,
                                                      e ? "" : " (reader, NoC 0)"),
                                      st.cycles, level);
            if (tm)
                tm->writer = e == 1;
        }
    }
    for (int j = 0; j < nbehind; j++) {
        int l = behind[j].slot;
        const sym_expr *wait = add(c, mn(c, ahead_banks, behind[j].per_core), behind[j].bank);
        arr.at[l] = add(c, arr.at[l], mx(c, K(c, 0), sub(c, wait, behind[j].x)));
        ldf[behind[j].kern] = mx(c, ldf[behind[j].kern], arr.at[l]);
    }
    /* the reads of both kernels run side by side, then compute, then the writes */
    const sym_expr *r = mx(c, ld[0], ld[1]), *w = add(c, st_[0], st_[1]);
    const sym_expr *rf = mx(c, ldf[0], ldf[1]), *wl = add(c, stl[0], stl[1]);
    const sym_expr *u, *mth, *p, *ccf;
    const sym_expr *cc = compute_cost(c, level, &arr, &ccf, &u, &mth, &p);
    const sym_expr *own_first = mx(c, rf, ccf);
    int64_t zero;
    if (!(sym_is_const(mth, &zero) && zero == 0)) {
        add_term(c, SCHED_T_DETAIL, "unpack", u, level);
        add_term(c, SCHED_T_DETAIL, "math", mth, level);
        add_term(c, SCHED_T_DETAIL, "pack", p, level);
    }
    /* the nested loops: all of a loop's iterations in the first execution
       (cc), and without its first iteration's loads in the later ones
       (ccn): a data-movement kernel runs on into the next execution's
       blocks while the compute finishes this one (depth permitting: what a
       single buffer holds back is `held`, below, and the loop's own) */
    const sym_expr *ccb = cc, *ccn = cc, *nested = K(c, 0), *nl[2] = {K(c, 0), K(c, 0)}, *tail = K(c, 0);
    const sym_expr *ncomp = K(c, 0); /* the nested loops' compute alone */
    const sym_expr *nlead[2] = {NULL, NULL}; /* the first nested loop's lead per kernel */
    const sym_expr *nfirst[2] = {NULL, NULL}; /* and its first step's loads */
    bool nested_on[2] = {false, false};
    const sym_expr *rounding = K(c, 0); /* level 0: busiest_rounding's trips at their loop's pace */
    for (int i = 0; i < k->nloops; i++)
        if (k->loops[i].parent + 1 == level) {
            level_cost lc;
            const sym_expr *lt = level_latency(c, 1 + i, &lc);
            if (level == 0 && c->extra[i])
                rounding = add(c, rounding, mul(c, c->extra[i], lc.per));
            cc = add(c, cc, lt);
            ccn = add(c, ccn, lc.next);
            nested = add(c, nested, lt);
            ccb = add(c, ccb, lc.busy);
            tail = lc.step;
            ncomp = add(c, ncomp, lc.compute);
            for (int e = 0; e < 2; e++)
                if (!nfirst[e] && lc.lead[e]) {
                    nlead[e] = lc.lead[e];
                    nfirst[e] = lc.first[e];
                }
            for (int e = 0; e < 2; e++) {
                int64_t z;
                nested_on[e] |= !(sym_is_const(lc.loads[e], &z) && z == 0);
                nl[e] = add(c, nl[e], lc.loads[e]);
            }
        }
    add_term(c, SCHED_T_COMPUTE, "compute", cc, level);
    const sym_expr *n = level == 0 ? c->waves : c->trips[level - 1];
    /* a stretched loop's trips past the core's own: its shared loads alone */
    const sym_expr *nlive = level == 0 ? n : c->live[level - 1], *dead = K(c, 0);
    if (nlive != n) {
        dead = mul(c, sub(c, n, nlive), shared_loads(c, level, cost, kern));
        add_term(c, SCHED_T_DETAIL, "trips past the core's own (shared loads alone)", dead, level);
    }
    const sym_expr *top = ccn;
    for (int e = 0; e < 2; e++)
        top = mx(c, top, kernel_order(c, nl[e], ncomp, nlead[e], nfirst[e] ? nfirst[e] : K(c, 0), ld[e], st_[e], tail,
                                      nested_on[e] && has_store[e]));
    /* the first execution: the loads, the compute as its blocks arrive (the
       chain with arrivals), the nested loops, the stores */
    const sym_expr *first = add(c, add(c, own_first, nested), wl);
    const sym_expr *held = single_buffers(c, level, &arr, cost, local, slot, kern, cc);
    expose(c, level, cost);
    const sym_expr *t = add(c, add(c, add(c, pipeline(c, nlive, first, top, held), fill), dead), rounding);
    if (rounding != K(c, 0))
        add_term(c, SCHED_T_DETAIL, "iterations the programs' own ceilings add", rounding, level);
    out->next = add(c, add(c, mul(c, nlive, mx(c, top, held)), fill), dead);
    if (level > 0) {
        add_term(c, SCHED_T_DETAIL, "the first iteration", first, level);
        add_term(c, SCHED_T_DETAIL, "each later iteration", mx(c, top, held), level);
        add_term(c, SCHED_T_DETAIL, "all iterations, the loads run ahead", out->next, level);
    }
    out->busy = add(c, add(c, mul(c, nlive, add(c, add(c, add(c, r, press), ccb), w)), fill), dead);
    for (int e = 0; e < 2; e++)
        out->loads[e] = mul(c, n, add(c, ld[e], nl[e]));
    out->step = cc;
    out->compute = mul(c, nlive, cc);
    lead_of_loads(c, &arr, kern, slot, level, cc, out->lead);
    for (int e = 0; e < 2; e++)
        out->first[e] = ldf[e];
    out->per = mx(c, top, held);
    add_term(c, SCHED_T_COUNT, level == 0 ? "programs per core" : "iterations", n, level);
    if (level > 0 && c->active[level - 1])
        add_term(c, SCHED_T_COUNT,
                 lm_arena_printf(c->ar, "programs along %s that run an iteration",
                                 sched_axis_name(k, c->active_g[level - 1], c->ar)),
                 c->active[level - 1], level);
    if (level > 0 && c->extra[level - 1])
        add_term(c, SCHED_T_COUNT, "iterations the programs' own ceilings add, all programs", c->extra[level - 1],
                 level);
    add_term(c, SCHED_T_LEVEL, level == 0 ? "all programs of the busiest core" : "all iterations", t, level);
    return t;
}

/* sched_model.path: over the loads, the most transfers one block goes
 * through in sequence, from the candidate's transports and the extent of
 * the cores along each. */
static const sym_expr *critical_path(mctx *c)
{
    const sym_expr *most = K(c, 0);
    for (int i = 0; i < c->k->nbufs; i++) {
        const sched_buf *b = &c->k->bufs[i];
        if (b->kind != SCHED_BUF_IN || b->access < 0)
            continue;
        const sched_operand *o = sched_operand_of(c, b);
        const sym_expr *n = K(c, 1);
        if (o && (o->transport == SCHED_MCAST || o->transport == SCHED_FORWARD)) {
            const sym_expr *g = o->along == SCHED_ON_XY ? c->cores : o->along == SCHED_ON_X ? c->gx : c->gy;
            const sym_expr *others = sub(c, g, K(c, 1));
            if (o->transport == SCHED_FORWARD)
                n = add(c, n, others);
            else
                n = add(c, n, mn(c, others, K(c, o->interior_sender ? 2 : 1)));
        }
        most = mx(c, most, n);
    }
    return most;
}

/* Product of the trips of the loops enclosing level `level` (1 at level 0). */
static const sym_expr *trips_to(mctx *c, int level)
{
    const sym_expr *t = K(c, 1);
    for (int l = level - 1; l >= 0; l = c->k->loops[l].parent)
        t = mul(c, t, c->trips[l]);
    return t;
}

/* A multicast or forward has two cores or more in its group: one core
 * would read its block from DRAM, which is another candidate's schedule
 * (the same placement with that load from DRAM), priced as that one. Along
 * x or y the grid's domain starts at 2 (placement); over the whole grid, a
 * constraint. */
static void shared_groups(mctx *c)
{
    for (int i = 0; i < c->k->nbufs; i++) {
        const sched_buf *b = &c->k->bufs[i];
        const sched_operand *o = b->kind == SCHED_BUF_IN && b->access >= 0 ? sched_operand_of(c, b) : NULL;
        if (!o || (o->transport != SCHED_MCAST && o->transport != SCHED_FORWARD) ||
            (o->along != SCHED_ON_XY && !(c->fz && c->c->fuse == SCHED_FUSE_CONSUMER)))
            continue;
        const char *g = o->along == SCHED_ON_XY ? "grid.x*grid.y" : o->along == SCHED_ON_X ? "grid.x" : "grid.y";
        add_con(c, sub(c, K(c, 2), share(c, o)),
                lm_arena_printf(c->ar, "%s >= 2: '%s' is %s to the cores along %s", g, b->name,
                                o->transport == SCHED_MCAST ? "multicast" : "forwarded", sched_place_name(o->along)));
    }
}

static bool build(sched_model *m, const sched_kernel *k, const sched_candidate *cand, const arch_desc *a,
                  const sym_env *bound, const char *prefix, const sched_fusion *fz, const sched_kernel *ok,
                  const sched_candidate *oc, const char *oprefix, sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    memset(m, 0, sizeof *m);
    m->k = k;
    m->cand = cand;
    m->prefix = prefix ? prefix : "";
    mctx cx = {.m = m, .k = k, .c = cand, .a = a, .bound = bound, .prefix = m->prefix, .s = s, .ar = ar,
               .fz = fz, .ok = ok, .oc = oc, .oprefix = oprefix ? oprefix : ""};
    mctx *c = &cx;
    c->exposed = K(c, 0);
    bool consumer = fz && cand->fuse == SCHED_FUSE_CONSUMER;

    free_vars(c);
    placement(c);
    m->gx = c->gx;
    m->gy = c->gy;

    /* buffer depths */
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT)
            continue;
        c->depth[i] = local_var(c, lm_arena_printf(ar, "depth.%s", b->name));
        if (!sched_depth_free(k, i, s)) {
            c->depth[i] = NULL; /* stored from a carry that holds it once */
            continue;
        }
        if (consumer && passed(c, b->access)) {
            c->depth[i] = NULL; /* holds the blocks of the whole group (below) */
            continue;
        }
        add_range_var(c, local_var(c, lm_arena_printf(ar, "depth.%s", b->name)), 1,
                      b->kind == SCHED_BUF_IN ? 3 : 2);
        /* a load the lowering leaves out at some values has no pages there:
           its depth is 1, not a choice */
        const sym_expr *live = sched_buf_live(c, b);
        if (live)
            add_con(c, mul(c, sub(c, c->depth[i], K(c, 1)), sub(c, K(c, 1), live)),
                    lm_arena_printf(ar, "depth.%s is 1 where nothing reads %s (not loaded)", b->name, b->name));
    }
    /* sub-block of the matmul output, in tiles */
    c->subh = c->subw = K(c, 1);
    if (k->ndots) {
        c->subh = local_var(c, "sub.h");
        c->subw = local_var(c, "sub.w");
        /* 1..8, capped at the Dst capacity: a larger side never fits */
        int dst = k->fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
        add_range_var(c, c->subh, 1, LM_MIN(8, dst));
        add_range_var(c, c->subw, 1, LM_MIN(8, dst));
    }

    /* ---- legality ---- */
    const sym_expr *l1 = fix(c, sched_l1_bytes(k, s, m->prefix));
    /* an OUT whose depth is not a variable (sched_depth_free): 1 */
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT && !sched_depth_free(k, i, s))
            l1 = sym_replace(s, l1, local_var(c, lm_arena_printf(ar, "depth.%s", k->bufs[i].name)), K(c, 1));
    int ncb = k->cb_bytes ? k->cb_count : k->nbufs;
    /* the CBs that exist at the values, where the most any value needs is
       more than a core has (a CB of a block cut short, say, exists only at
       some values) */
    const sym_expr *used = k->cb_bytes && k->cb_used ? fix(c, sched_prefix_depths(k, k->cb_used, s, m->prefix)) : NULL;
    const char *where = "";
    if (consumer && fz->cb_bytes) {
        /* a reducer core holds both kernels' CBs as the fused lowering
           allocates them (sched_lower_l1_fused), the passed blocks of every
           consumer program dealt to it at once */
        const sym_expr *e[2] = {fz->cb_bytes, fz->cb_used};
        for (int x = 0; x < 2; x++) {
            e[x] = fix(c, sym_replace(s, e[x], sym_var(s, SCHED_FUSED_PROGRAMS), c->waves));
            for (int i = 0; i < ok->nbufs; i++)
                if (ok->bufs[i].kind == SCHED_BUF_OUT && !sched_depth_free(ok, i, s))
                    e[x] = sym_replace(s, e[x],
                                  sym_var(s, lm_arena_printf(ar, "%sdepth.%s", c->oprefix, ok->bufs[i].name)), K(c, 1));
            for (int i = 0; i < k->nbufs; i++)
                if (k->bufs[i].kind == SCHED_BUF_OUT && !sched_depth_free(k, i, s))
                    e[x] = sym_replace(s, e[x], local_var(c, lm_arena_printf(ar, "depth.%s", k->bufs[i].name)), K(c, 1));
        }
        l1 = e[0];
        used = e[1];
        ncb = fz->cb_count;
        where = " of a reducer core, both kernels";
    }
    m->l1_bytes = l1;
    add_con(c, sub(c, l1, K(c, arch_usable_l1(a))),
            lm_arena_printf(ar, "L1 capacity%s (%lld usable bytes)", where, (long long)arch_usable_l1(a)));
    if (ncb <= a->num_cbs || !used)
        add_con(c, K(c, ncb - a->num_cbs),
                lm_arena_printf(ar, "circular buffers%s (%d needed, %d per core)", where, ncb, a->num_cbs));
    else
        add_con(c, sub(c, used, K(c, a->num_cbs)),
                lm_arena_printf(ar, "circular buffers%s (up to %d needed, %d per core)", where, ncb, a->num_cbs));
    if (fz && cand->fuse == SCHED_FUSE_PRODUCER) {
        /* every program of a group in one row (column): the reducer, the
           first core of it, takes all their partial results in one wave */
        const sym_expr *g = cand->fuse_along == SCHED_ON_X ? c->gx : c->gy;
        add_con(c, sub(c, c->nprog[fz->gather_axis], g),
                lm_arena_printf(ar, "fusion: all programs of a group along %s on one %s (grid.%s = programs along %s)",
                                sched_place_name(cand->fuse_along), cand->fuse_along == SCHED_ON_X ? "row" : "column",
                                sched_place_name(cand->fuse_along), sched_place_name(cand->fuse_along)));
    }
    shared_groups(c);
    if (k->ndots) {
        int dst = k->fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
        add_con(c, sub(c, mul(c, c->subh, c->subw), K(c, dst)),
                lm_arena_printf(ar, "sub.h*sub.w <= %d Dst tiles (%s accumulation)", dst,
                                k->fp32_acc ? "fp32" : "16-bit"));
        for (int i = 0; i < k->ndots; i++) {
            const sched_dot *dt = &k->dots[i];
            add_con(c, sym_mod(s, fix(c, dt->m_tiles), c->subh),
                    lm_arena_printf(ar, "sub.h divides the tile rows of %s", dt->out_name));
            add_con(c, sym_mod(s, fix(c, dt->n_tiles), c->subw),
                    lm_arena_printf(ar, "sub.w divides the tile columns of %s", dt->out_name));
        }
    }
    for (int i = 0; i < k->f->nassumes; i++) {
        const tir_assume *as = &k->f->assumes[i];
        add_con(c, fix(c, as->expr),
                lm_arena_printf(ar, "tl.static_assert(%s) at line %d", as->text, as->loc.line));
    }
    for (int i = 0; i < k->ninbounds; i++) {
        const sched_inbound *ib = &k->inbounds[i];
        add_con(c, sub(c, fix(c, ib->last_end), fix(c, ib->extent)),
                lm_arena_printf(ar, "the last block of '%s' at line %d ends inside dimension %d (no boundary check)",
                                ib->tensor, ib->line, ib->dim));
    }
    for (int i = 0; i < k->nfree; i++) {
        const sched_free *fr = &k->frees[i];
        if (fr->must_divide)
            add_con(c, sym_mod(s, fix(c, fr->must_divide), fix(c, fr->var)),
                    lm_arena_printf(ar, "%s divides %s (no boundary check)", fr->var->name,
                                    sym_str(ar, fr->must_divide)));
    }

    /* ---- latency ---- */
    level_cost top;
    const sym_expr *core = level_latency(c, 0, &top);
    const sym_expr *busy = top.busy;
    /* a fused consumer runs in the producer's program: no launch of its own */
    const sym_expr *launch = K(c, consumer ? 0 : llround(a->kernel_launch_cycles));
    const sym_expr *total = add(c, launch, core);

    /* DRAM traffic of the whole launch and the bound it sets */
    const sym_expr *nprog = K(c, 1);
    for (int g = 0; g < k->f->grid_rank; g++)
        nprog = mul(c, nprog, c->nprog[g]);
    const sym_expr *rd = K(c, 0), *wr = K(c, 0), *hs = K(c, 0);
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        const sym_expr *times = mul(c, nprog, trips_to(c, b->level));
        if (b->level >= 1 && c->active[b->level - 1]) {
            /* every program's own trips, not the busiest core's */
            const sym_expr *others = K(c, 1);
            for (int g = 0; g < k->f->grid_rank; g++)
                if (g != c->active_g[b->level - 1])
                    others = mul(c, others, c->nprog[g]);
            times = mul(c, others, c->trip_sum[b->level - 1]);
        }
        if ((b->kind == SCHED_BUF_IN || b->kind == SCHED_BUF_OUT) && passed(c, b->access)) {
            hs = add(c, hs, mul(c, c->waves, K(c, 4))); /* over the NoC: CB pair and semaphore pair */
            continue;
        }
        if (b->kind == SCHED_BUF_IN) {
            const sched_operand *o = sched_operand_of(c, b);
            const sym_expr *live = sched_buf_live(c, b);
            if (live)
                times = mul(c, times, live);
            rd = add(c, rd, cdv(c, mul(c, sched_dram_bytes(c, b), times), share(c, o)));
            int per = (o && o->transport != SCHED_DRAM) ? 4 : 2; /* CB pair (+ semaphore pair) */
            hs = add(c, hs, mul(c, mul(c, c->waves, mul(c, trips_to(c, b->level), live ? live : K(c, 1))), K(c, per)));
        } else if (b->kind == SCHED_BUF_OUT) {
            wr = add(c, wr, mul(c, sched_dram_bytes(c, b), times));
            hs = add(c, hs, mul(c, mul(c, c->waves, trips_to(c, b->level)), K(c, 2)));
        }
    }
    m->dram_bytes = add(c, rd, wr);
    m->handshakes = hs;
    double rbank = LM_MIN(a->dram_bank_read_bpc, (double)a->link_bytes_per_cycle) * a->num_dram_banks;
    double wbank = LM_MIN(a->dram_bank_write_bpc, (double)a->link_bytes_per_cycle) * a->num_dram_banks;
    const sym_expr *dram_bound = add(c, xfer(c, rd, rbank), xfer(c, wr, wbank));
    add_term(c, SCHED_T_BOUND, "DRAM bandwidth bound (all banks, reads and writes)", dram_bound, -1);
    add_term(c, SCHED_T_FIXED, "kernel launch", launch, -1);
    m->cycles = mx(c, total, add(c, launch, dram_bound));
    add_term(c, SCHED_T_TOTAL, "total", m->cycles, -1);

    solve_problem *p = &m->problem;
    p->vars = c->vars.items;
    p->nvars = (int)c->vars.len;
    p->cons = c->cons.items;
    p->ncons = (int)c->cons.len;
    p->objective = m->cycles;
    p->tiebreak[0] = m->dram_bytes;
    p->tiebreak[1] = m->exposed = c->exposed;
    p->tiebreak[2] = m->l1_bytes;
    p->tiebreak[3] = m->handshakes;
    p->tiebreak[4] = m->busy = busy;
    m->path = critical_path(c);
    p->ntiebreak = 5;
    p->fixed = NULL;
    /* the vectors' storage moves to the arena (the model outlives this call) */
    solve_var *vv = LM_NEWN(ar, solve_var, p->nvars ? p->nvars : 1);
    if (p->nvars)
        memcpy(vv, p->vars, sizeof *vv * (size_t)p->nvars);
    solve_constraint *cc = LM_NEWN(ar, solve_constraint, p->ncons ? p->ncons : 1);
    if (p->ncons)
        memcpy(cc, p->cons, sizeof *cc * (size_t)p->ncons);
    LM_VEC_FREE(&c->vars);
    LM_VEC_FREE(&c->cons);
    p->vars = vv;
    p->cons = cc;
    (void)d;
    return true;
}

bool sched_model_build(sched_model *m, const sched_kernel *k, const sched_candidate *cand, const arch_desc *a,
                       const sym_env *bound, const char *prefix, sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    return build(m, k, cand, a, bound, prefix, NULL, NULL, NULL, NULL, s, ar, d);
}

bool sched_model_build_fused(sched_model *m, const sched_kernel *k, const sched_candidate *cand,
                             const sched_fusion *f, const sched_kernel *other, const sched_candidate *other_cand,
                             const char *other_prefix, const arch_desc *a, const sym_env *bound, const char *prefix,
                             sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    return build(m, k, cand, a, bound, prefix, f, other, other_cand, other_prefix, s, ar, d);
}
