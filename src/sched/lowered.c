/* lowered.c - the lowering's decisions as the latency model prices them
 * (docs/scheduler.md, "Model"): the plan the lowering records for a
 * candidate (sched_kernel.chain_from/to and .lowered) says which work ops
 * it emits as one tile op in Dst, which it folds away, which row sums it
 * takes from a packer and which tile ops run before an op's last; the
 * model's tile ops (opcost) are rewritten to cost what is emitted.
 */
#include "sched/sched_int.h"

#include <string.h>

static bool has_op(const opcost *o, const tir_op *op)
{
    for (int i = 0; i < o->nops; i++)
        if (o->ops[i] == op)
            return true;
    return false;
}

/* The lowering's chains in Dst (sched_kernel.chain_from/to, from its plan),
 * priced as it emits them: the work op making a chained value and the one
 * taking it are one tile op - the first's unpack, the second's unpack of
 * its other operands, both maths (a cast in a chain is the pack's format:
 * no math), one pack and the second's Dst batches. Chains of several links
 * fold in program order. */
void sched_merge_chains(mctx *c, opcost *oc, int n)
{
    const sched_kernel *k = c->k;
    for (int ch = 0; ch < k->nchains; ch++) {
        const tir_op *from = k->chain_from[ch], *to = k->chain_to[ch];
        int i = -1, j = -1;
        for (int x = 0; x < n; x++)
            if (!oc[x].dead && has_op(&oc[x], from))
                i = x; /* the last: a division's multiply, not its reciprocal */
        for (int x = i + 1; i >= 0 && x < n && j < 0; x++) {
            if (oc[x].dead || oc[x].o->op != to)
                continue;
            for (int r = 0; r < oc[x].o->nreads; r++)
                if (oc[x].o->reads[r] == from->results[0])
                    j = x;
        }
        if (j < 0 || oc[i].nops + oc[j].nops > MAX_CHAINED)
            continue;
        opcost *a = &oc[i], *b = &oc[j];
        const sym_expr *u = a->unpack;
        for (int r = 0; r < b->o->nreads; r++)
            if (b->o->reads[r] != from->results[0])
                u = add(c, u, fix(c, b->o->read_bytes[r]));
        const sym_expr *ma = a->o->kind == SCHED_OP_COPY && a->nops == 1 ? K(c, 0) : a->math;
        const sym_expr *mb = b->o->kind == SCHED_OP_COPY ? K(c, 0) : b->math;
        b->unpack = u;
        b->math = add(c, ma, mb);
        const tir_op *ops[MAX_CHAINED];
        int nops = 0;
        for (int q = 0; q < a->nops; q++)
            ops[nops++] = a->ops[q];
        for (int q = 0; q < b->nops; q++)
            ops[nops++] = b->ops[q];
        memcpy(b->ops, ops, sizeof ops);
        b->nops = nops;
        a->dead = true;
    }
}

/* A row sum the packer accumulates (SCHED_LOWER_PACKSUM): the op making
 * its operand (oc[j], or the chain holding it) packs each tile a second
 * time, into its row's page in the sum's format, and the sum (oc[i]) reads
 * those pages - one a row - and reduces each once. */
static void packsum_cost(mctx *c, opcost *oi, opcost *oj)
{
    const arch_desc *a = c->a;
    const sched_work_op *o = oi->o;
    const sym_expr *pb = fix(c, o->pack_bytes), *rows = fix(c, o->out_tiles);
    oj->pack = add(c, oj->pack, cdv(c, mul(c, pb, fix(c, o->tiles)), rows));
    oi->unpack = pb;
    oi->math = mul(c, rows, K(c, milli(a->reduce_tile_cycles)));
}

/* An op the lowering emits nothing for: it costs nothing. */
static void gone(mctx *c, opcost *o)
{
    o->gone = true;
    o->unpack = o->math = o->pack = o->batches = K(c, 0);
    o->chunks = K(c, 1);
}

/* A cast packed by the op making its operand (SCHED_LOWER_PACKCAST): that
 * op (oc[j], or the chain it ends) packs the cast's bytes instead of its
 * own, and the cast (oc[i]) costs nothing. */
static void packcast_cost(mctx *c, opcost *oc, int n, int i, const tir_op *by)
{
    for (int j = 0; j < n; j++)
        if (!oc[j].dead && j != i && has_op(&oc[j], by)) {
            oc[j].pack = fix(c, oc[i].o->pack_bytes);
            break;
        }
    gone(c, &oc[i]);
}

/* A mask the lowering leaves out where it is the identity: its pass on
 * `masked` of the loop's `trips` trips, spread over them (the model prices
 * one trip of the level). */
static void split_cost(mctx *c, opcost *o, const sym_expr *masked, const sym_expr *trips)
{
    o->unpack = cdv(c, mul(c, o->unpack, masked), trips);
    o->math = cdv(c, mul(c, o->math, masked), trips);
    o->pack = cdv(c, mul(c, o->pack, masked), trips);
    o->batches = cdv(c, mul(c, o->batches, masked), trips);
}

/* An op the lowering leaves out where `when` is 1 (an identity at those
 * values: a reduction over one element): its costs are taken where it
 * runs only. */
static void gone_where(mctx *c, opcost *o, const sym_expr *when)
{
    const sym_expr *runs = sub(c, K(c, 1), when);
    o->unpack = mul(c, o->unpack, runs);
    o->math = mul(c, o->math, runs);
    o->pack = mul(c, o->pack, runs);
    o->batches = mul(c, o->batches, runs);
    o->chunks = add(c, mul(c, o->chunks, runs), when);
    o->gone_when = o->gone_when ? add(c, o->gone_when, when) : when;
}

/* Tile ops the lowering runs for an op before its last one
 * (SCHED_LOWER_PASSES: a reduction's transpose and mask, a select's
 * difference and product, the constant tiles they fill): each is a one-pass
 * tile op over `tiles` tiles - unpacked, one element-wise pass of math,
 * packed - and waits for the one before; several records of one op add up. */
static const sym_expr *plus(mctx *c, const sym_expr *acc, const sym_expr *x) { return acc ? add(c, acc, x) : x; }

const sym_expr *sched_on_trips(mctx *c, const sched_lowered *w, const sym_expr *x)
{
    return w->masked ? cdv(c, mul(c, x, w->masked), mx(c, K(c, 1), w->trips)) : x;
}

void sched_passes_cost(mctx *c, opcost *o, const sched_lowered *w)
{
    const arch_desc *a = c->a;
    const sym_expr *tiles = fix(c, w->tiles), *n = fix(c, w->passes);
    if (w->when)
        n = mul(c, n, fix(c, w->when));
    int dst = c->k->fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
    const sym_expr *bytes = mul(c, tiles, K(c, a->tile_bytes[w->format]));
    const sym_expr *math = mul(c, tiles, K(c, milli(a->eltwise_tile_cycles)));
    const sym_expr *batches = mx(c, K(c, 1), cdv(c, tiles, K(c, dst)));
    const sym_expr *u = xfer(c, bytes, a->unpack_bpc), *p = xfer(c, bytes, a->pack_bpc), *m = cdv(c, math, K(c, 1000));
    const sym_expr *steps = mx(c, K(c, 1), fdv(c, tiles, batches));
    const sym_expr *slow, *one = add(c, sched_op_time(c, u, m, p, batches, steps, &slow),
                                     K(c, llround(a->cb_handshake_cycles)));
    o->npass = plus(c, o->npass, n);
    o->pass_chain = plus(c, o->pass_chain, sched_on_trips(c, w, mul(c, n, one)));
    o->pass_unpack = plus(c, o->pass_unpack, sched_on_trips(c, w, mul(c, n, u)));
    o->pass_top = plus(c, o->pass_top, sched_on_trips(c, w, mul(c, n, slow)));
    o->pass_bytes = plus(c, o->pass_bytes, sched_on_trips(c, w, mul(c, n, bytes)));
    o->pass_math = plus(c, o->pass_math, sched_on_trips(c, w, mul(c, n, math)));
    o->pass_batches = plus(c, o->pass_batches, sched_on_trips(c, w, mul(c, n, batches)));
}

/* The lowering's other decisions (sched_kernel.lowered, from its plan),
 * priced as it emits them: an op it folds away costs nothing; a row sum
 * the packer accumulates reads a page a row; a mask split off its loop's
 * unmasked trips runs on the others only; the tile ops it runs before an
 * op's last (a reduction's transpose and mask, a select's steps) count on
 * the chain and in the totals (model.c). */
void sched_lowered_ops(mctx *c, opcost *oc, int n, int level)
{
    const sched_kernel *k = c->k;
    for (int l = 0; l < k->nlowered; l++) {
        const sched_lowered *w = &k->lowered[l];
        for (int i = 0; i < n; i++) {
            if (oc[i].dead || !has_op(&oc[i], w->op))
                continue;
            if (w->kind == SCHED_LOWER_PACKCAST) {
                packcast_cost(c, oc, n, i, w->by);
                continue;
            }
            if (w->kind == SCHED_LOWER_GONE && !w->when)
                gone(c, &oc[i]);
            if (w->kind == SCHED_LOWER_GONE && w->when)
                gone_where(c, &oc[i], fix(c, w->when));
            if (w->kind == SCHED_LOWER_PASSES)
                sched_passes_cost(c, &oc[i], w);
            if (w->kind == SCHED_LOWER_SPLIT && level > 0 && c->masked && c->masked[l] && oc[i].nops == 1 &&
                c->k->loops[level - 1].op == w->op->parent->owner)
                split_cost(c, &oc[i], c->masked[l], mx(c, K(c, 1), c->live[level - 1]));
            for (int j = 0; w->kind == SCHED_LOWER_PACKSUM && j < n; j++)
                if (!oc[j].dead && j != i && has_op(&oc[j], w->by) && oc[i].o->kind == SCHED_OP_REDUCE &&
                    oc[i].o->out_tiles) {
                    packsum_cost(c, &oc[i], &oc[j]);
                    break;
                }
        }
    }
}
