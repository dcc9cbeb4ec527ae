/* core.c - the kernel interpreter: each core's engines stepping through
 * their kernels, circular buffers, semaphores and barriers.
 *
 * Engines. A core has five: the reader and writer data-movement RISC-Vs
 * (NoC 0 and NoC 1 respectively, by the TT-Metalium convention; every
 * transfer an engine issues uses its NoC), and the compute kernel run as
 * three engines, unpack, math and pack, as the three compute RISC-Vs run
 * it. All three step through the same compute kernel: unpack executes
 * cb_wait/cb_pop and the unpack part of each tile op, pack executes
 * cb_reserve/cb_push and the pack part, math only the math part. A tile op
 * is cut into chunks (a matmul sub-block, or at most one Dst half of
 * tiles); a chunk goes unpack -> source registers (two deep: unpack fills
 * one while math reads the other) -> math, which holds one of the two Dst
 * halves (half-sync) -> pack, which releases the half. So the three stages
 * overlap and stall on each other exactly through those hand-offs. Within a
 * chunk math follows the unpacker unit by unit (chunk_math): a chunk takes
 * its source-register slot when its unpack starts.
 *
 * Op timing. An op that costs time makes its engine busy for the cost and
 * takes effect at the end (a cb_push is visible to the consumer when its
 * handshake is done). An op that waits (cb_reserve, cb_wait, sem_wait,
 * barriers, a full Dst) blocks without being busy until what it waits for
 * happens, then pays its cost. A NoC command costs noc_cmd_cycles of the
 * issuing engine per packet; the transfer then proceeds on its own in the
 * network model, and barriers wait for the engine's outstanding ones.
 *
 * Costs charged (all from the description): cb_push and cb_pop pay
 * cb_handshake_cycles (the description's reserve/push or wait/pop pair;
 * reserve and wait only poll); sem_set and sem_wait pay sem_cycles;
 * barriers barrier_cycles; math pays dst_handoff_cycles per chunk for the
 * Dst acquire/commit with pack.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline double now(const sim *s) { return s->q.now; }
static inline sim_core *core_of(sim *s, const sim_engine *e) { return &s->cores[e->core]; }
static inline const df_stmt *cur_stmt(const sim_engine *e) { return e->code->ins[e->pc].s; }

static int64_t ev(sim *s, sim_engine *e, const df_expr *x)
{
    bool bad = false;
    int64_t v = df_eval_checked(x, e->slots, &bad);
    if (bad)
        sim_fail(s, cur_stmt(e), "division by zero or 64-bit overflow in an expression of '%s'",
                 df_ops[cur_stmt(e)->op].name);
    return v;
}

/* ---- waking and blocking -------------------------------------------------- */

static void wake(sim *s, int32_t ei)
{
    sim_engine *e = &s->eng[ei];
    if (e->state == SIM_ES_BLOCKED) {
        e->state = SIM_ES_RUN;
        sim_q_at(&s->q, e->ev, now(s));
    }
}

static void wake_mask(sim *s, sim_core *c, uint8_t *mask)
{
    uint8_t m = *mask;
    *mask = 0;
    for (int k = 0; k < SIM_NENGINES; k++)
        if (m & (1u << k))
            wake(s, c->eng[k]);
}

enum { STEP_NEXT, STEP_WAIT, STEP_AGAIN };

static int block(sim *s, sim_engine *e, sim_block why, int arg, int64_t need)
{
    if (e->block == SIM_B_NONE)
        e->t_block = now(s);
    e->block = why;
    e->block_arg = arg;
    e->block_need = need;
    e->state = SIM_ES_BLOCKED;
    return STEP_WAIT;
}

/* The wait is over: trace it. */
static void unblock(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->block == SIM_B_NONE)
        return;
    if (s->trace && now(s) > e->t_block)
        sim_trace_op(s->trace, e, "wait", e->t_block, now(s), st);
    e->block = SIM_B_NONE;
}

/* Start an op's cost; its effect comes in phase 1. */
static int busy_for(sim *s, sim_engine *e, double cost)
{
    e->t_op = now(s);
    e->t_free = now(s) + (cost > 0 ? cost : 0);
    e->phase = 1;
    if (cost <= 0)
        return STEP_AGAIN;
    e->busy += cost;
    e->state = SIM_ES_SLEEP;
    sim_q_at(&s->q, e->ev, now(s) + cost);
    return STEP_WAIT;
}

static void trace_done(sim *s, sim_engine *e, const df_stmt *st)
{
    if (s->trace && now(s) > e->t_op)
        sim_trace_op(s->trace, e, df_ops[st->op].name, e->t_op, now(s), st);
}

/* ---- circular buffers --------------------------------------------------- */

static sim_cbs *get_cb(sim *s, sim_engine *e, int id)
{
    sim_core *c = core_of(s, e);
    id = sim_cb_id(e, id);
    if (id < 0 || id >= s->a->num_cbs || !c->cb[id].used) {
        sim_fail(s, cur_stmt(e), "CB %d is not declared in this core's class", id);
        return NULL;
    }
    return &c->cb[id];
}

/* A push publishes pages whose DRAM reads have landed: one still in flight
 * means the kernel's read barrier (or its transaction id) misses it. */
static bool pushed_pages_landed(sim *s, const df_stmt *st, const sim_cbs *cb, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t page = (cb->wr + i) % cb->pages;
        if (cb->landing[page] > 0) {
            sim_fail(s, st, "cb_push publishes page %lld of CB %d while a read into it is still in flight (no read "
                     "barrier waits for it)", (long long)page, st->cb);
            return false;
        }
    }
    return true;
}

static int cb_op(sim *s, sim_engine *e, const df_stmt *st)
{
    sim_cbs *cb = get_cb(s, e, st->cb);
    if (!cb)
        return STEP_WAIT;
    int64_t n = ev(s, e, st->n);
    sim_core *c = core_of(s, e);
    if (n < 0 || n > cb->pages) {
        sim_fail(s, st, "%s of %lld pages on CB %d, which holds %lld", df_ops[st->op].name, (long long)n,
                 st->cb, (long long)cb->pages);
        return STEP_WAIT;
    }
    switch (st->op) {
    case DF_CB_RESERVE:
        if (cb->pages - cb->count < n) {
            cb->waiters |= (uint8_t)(1u << e->kind);
            return block(s, e, SIM_B_CB_BACK, sim_cb_id(e, st->cb), n);
        }
        unblock(s, e, st);
        return STEP_NEXT;
    case DF_CB_WAIT:
        if (cb->count < n) {
            cb->waiters |= (uint8_t)(1u << e->kind);
            return block(s, e, SIM_B_CB_FRONT, sim_cb_id(e, st->cb), n);
        }
        unblock(s, e, st);
        return STEP_NEXT;
    case DF_CB_PUSH:
        if (e->phase == 0)
            return busy_for(s, e, s->a->cb_handshake_cycles);
        if (cb->count + n > cb->pages) {
            sim_fail(s, st, "cb_push of %lld pages overfills CB %d (%lld of %lld pages already full)",
                     (long long)n, st->cb, (long long)cb->count, (long long)cb->pages);
            return STEP_WAIT;
        }
        if (!pushed_pages_landed(s, st, cb, n))
            return STEP_WAIT;
        cb->count += n;
        cb->wr = (cb->wr + n) % cb->pages;
        cb->pushes++, cb->pushed += n;
        wake_mask(s, c, &cb->waiters);
        trace_done(s, e, st);
        return STEP_NEXT;
    case DF_CB_POP:
        if (e->phase == 0)
            return busy_for(s, e, s->a->cb_handshake_cycles);
        if (cb->count < n) {
            sim_fail(s, st, "cb_pop of %lld pages from CB %d, which has only %lld", (long long)n, st->cb,
                     (long long)cb->count);
            return STEP_WAIT;
        }
        cb->count -= n;
        cb->rd = (cb->rd + n) % cb->pages;
        cb->pops++, cb->popped += n;
        wake_mask(s, c, &cb->waiters);
        trace_done(s, e, st);
        return STEP_NEXT;
    default:
        LM_BUG("not a CB op");
    }
}

/* ---- NoC ops ------------------------------------------------------------- */

/* The transaction id of a read or read barrier (0 when it names none);
 * -1 after reporting one the NoC does not count. */
static int trid_of(sim *s, sim_engine *e, const df_stmt *st)
{
    int64_t t = ev(s, e, st->trid);
    int most = LM_MIN(DF_MAX_TRID, s->a->max_transaction_ids);
    if (t < 0 || t > most) {
        sim_fail(s, st, "%s: transaction id %lld is outside 0..%d", df_ops[st->op].name, (long long)t, most);
        return -1;
    }
    return (int)t;
}

/* A read of this engine into CB page `page` of its core leaves, tagged trid. */
static void read_issued(sim *s, sim_engine *e, sim_xfer *X, int trid)
{
    X->u.trid = (uint8_t)trid;
    e->nreads++;
    e->nreads_id[trid]++;
    s->cores[X->u.core].cb[X->u.cb].landing[X->u.page]++;
}

static int core_index(sim *s, int x, int y)
{
    if (x < 0 || y < 0 || x >= s->a->grid_w || y >= s->a->grid_h)
        return -1;
    return s->core_at[y * s->a->grid_w + x];
}

static arch_xy noc_pos(const sim *s, int x, int y)
{
    return (arch_xy){s->a->core_noc_x[x], s->a->core_noc_y[y]};
}

static double packets(const sim *s, double bytes)
{
    double p = s->a->max_packet_bytes > 0 ? ceil(bytes / (double)s->a->max_packet_bytes) : 1;
    return p < 1 ? 1 : p;
}

/* read_elems / write_elems: one transfer per row segment that stays within
 * one tensor tile and one CB tile (on the chip: a NoC read or write of the
 * face-row bytes); each costs a command. The arrival copies the segment.
 * No rows or no columns (a count of 0 or less) move nothing, as the
 * emitted loops do. */
static int elems_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->phase == 1) {
        trace_done(s, e, st);
        return STEP_NEXT;
    }
    const df_tensor *t = &s->p->tensors[st->tensor];
    int64_t row = ev(s, e, st->row), col = ev(s, e, st->col), rows = ev(s, e, st->rows), cols = ev(s, e, st->cols);
    int64_t rs = ev(s, e, st->rstride), at = ev(s, e, st->at), er = ev(s, e, st->er), ec = ev(s, e, st->ec);
    int64_t bw = ev(s, e, st->bw);
    sim_cbs *cb = get_cb(s, e, st->cb);
    if (!cb || s->failed)
        return STEP_WAIT;
    if (rows < 1 || cols < 1)
        return busy_for(s, e, 0); /* a block wholly past a boundary check's extent: nothing moves */
    if (rows < 1 || cols < 1 || rs < 1 || bw < 1 || er < 0 || ec < 0 || row < 0 || col < 0 ||
        row + (rows - 1) * rs >= t->rows || col + cols > t->cols) {
        sim_fail(s, st, "elements rows %lld..%lld (every %lld), cols %lld..%lld are outside tensor '%s' (%lld x %lld)",
                 (long long)row, (long long)(row + (rows - 1) * rs), (long long)rs, (long long)col,
                 (long long)(col + cols - 1), t->name, (long long)t->rows, (long long)t->cols);
        return STEP_WAIT;
    }
    int64_t last = at + ((er + rows - 1) / NUM_TILE) * bw + (ec + cols - 1) / NUM_TILE;
    if (at < 0 || (ec + cols - 1) / NUM_TILE >= bw || last >= cb->pages) {
        sim_fail(s, st, "block elements (%lld,%lld)..(%lld,%lld) of a %lld-tile-wide block at page %lld are outside "
                 "CB %d (%lld pages)", (long long)er, (long long)ec, (long long)(er + rows - 1),
                 (long long)(ec + cols - 1), (long long)bw, (long long)at, st->cb, (long long)cb->pages);
        return STEP_WAIT;
    }
    bool is_read = st->op == DF_READ_ELEMS;
    int trid = is_read ? trid_of(s, e, st) : 0;
    if (trid < 0)
        return STEP_WAIT;
    const sim_tensor_data *td = &s->tens[st->tensor];
    sim_core *c = core_of(s, e);
    double esize = (double)s->a->tile_bytes[t->format] / NUM_TILE_ELEMS;
    double cmd = s->a->noc_cmd_cycles;
    sim_xspec x = {0};
    x.kind = is_read ? SIM_X_READ : SIM_X_WRITE;
    x.noc = e->noc;
    x.owner = (int32_t)(e - s->eng);
    x.src = c->noc;
    int64_t n = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t tr = row + i * rs, br = er + i;
        for (int64_t j = 0; j < cols;) {
            int64_t tc = col + j, bc = ec + j;
            int64_t w = LM_MIN(cols - j, LM_MIN(NUM_TILE - tc % NUM_TILE, NUM_TILE - bc % NUM_TILE));
            int64_t tpage = (tr / NUM_TILE) * td->tc + tc / NUM_TILE;
            int64_t bpage = at + (br / NUM_TILE) * bw + bc / NUM_TILE;
            x.payload = (double)w * esize;
            x.bank = sim_dram_bank(s->a, t->first_bank, tpage);
            int32_t xi = sim_net_issue(&s->net, &x, now(s) + (double)(n + 1) * cmd);
            sim_xfer *X = &s->net.xf[xi];
            X->u.core = e->core;
            X->u.cb = st->cb;
            X->u.page = (int32_t)(((is_read ? cb->wr : cb->rd) + bpage) % cb->pages);
            X->u.tensor = st->tensor;
            X->u.tpage = (int32_t)tpage;
            X->u.elems = true;
            X->u.tr = (uint8_t)(tr % NUM_TILE), X->u.tc = (uint8_t)(tc % NUM_TILE);
            X->u.br = (uint8_t)(br % NUM_TILE), X->u.bc = (uint8_t)(bc % NUM_TILE);
            X->u.w = (uint8_t)w;
            if (is_read)
                read_issued(s, e, X, trid);
            else
                e->nwrites++;
            n++;
            j += w;
        }
    }
    return busy_for(s, e, (double)n * cmd);
}

static int dram_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->phase == 1) {
        trace_done(s, e, st);
        return STEP_NEXT;
    }
    const df_tensor *t = &s->p->tensors[st->tensor];
    int64_t row = ev(s, e, st->row), col = ev(s, e, st->col);
    int64_t rows = ev(s, e, st->rows), cols = ev(s, e, st->cols), at = ev(s, e, st->at);
    sim_cbs *cb = get_cb(s, e, st->cb);
    if (!cb || s->failed)
        return STEP_WAIT;
    const sim_tensor_data *td = &s->tens[st->tensor];
    if (rows < 1 || cols < 1)
        return busy_for(s, e, 0); /* nothing to move, as the emitted loops do */
    if (row < 0 || col < 0 || row + rows > td->tr || col + cols > td->tc) {
        sim_fail(s, st, "tile block rows %lld..%lld, cols %lld..%lld is outside tensor '%s' (%lld x %lld tiles)",
                 (long long)row, (long long)(row + rows - 1), (long long)col, (long long)(col + cols - 1),
                 t->name, (long long)td->tr, (long long)td->tc);
        return STEP_WAIT;
    }
    int64_t ntiles = rows * cols;
    if (at < 0 || at + ntiles > cb->pages) {
        sim_fail(s, st, "pages %lld..%lld are outside CB %d (%lld pages)", (long long)at,
                 (long long)(at + ntiles - 1), st->cb, (long long)cb->pages);
        return STEP_WAIT;
    }
    bool is_read = st->op == DF_READ;
    int trid = is_read ? trid_of(s, e, st) : 0;
    if (trid < 0)
        return STEP_WAIT;
    sim_core *c = core_of(s, e);
    double bytes = (double)s->a->tile_bytes[t->format];
    double cmd = s->a->noc_cmd_cycles * packets(s, bytes);
    sim_xspec x = {0};
    x.kind = is_read ? SIM_X_READ : SIM_X_WRITE;
    x.noc = e->noc;
    x.owner = (int32_t)(e - s->eng);
    x.src = c->noc;
    x.payload = bytes;
    for (int64_t i = 0; i < ntiles; i++) {
        int64_t page = (row + i / cols) * td->tc + col + i % cols;
        x.bank = sim_dram_bank(s->a, t->first_bank, page);
        int32_t xi = sim_net_issue(&s->net, &x, now(s) + (double)(i + 1) * cmd);
        sim_xfer *X = &s->net.xf[xi];
        X->u.core = e->core;
        X->u.cb = st->cb;
        X->u.page = (int32_t)(((is_read ? cb->wr : cb->rd) + at + i) % cb->pages);
        X->u.tensor = st->tensor;
        X->u.tpage = (int32_t)page;
        if (is_read)
            read_issued(s, e, X, trid);
        else
            e->nwrites++;
    }
    return busy_for(s, e, (double)ntiles * cmd);
}

/* send_elems: one core-to-core write per row segment that stays within one
 * tile of the source block and one of the destination block (on the chip:
 * a NoC write of the face-row bytes), each with its command cost. The
 * destination pages are resolved on arrival from the receiver's write
 * pointer, as for send. Formats must agree: a partial row of a block float
 * cannot be re-encoded on its own. */
static int send_elems_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->phase == 1) {
        trace_done(s, e, st);
        return STEP_NEXT;
    }
    int64_t at = ev(s, e, st->at), er = ev(s, e, st->er), ec = ev(s, e, st->ec), bw = ev(s, e, st->bw);
    int64_t rows = ev(s, e, st->rows), cols = ev(s, e, st->cols);
    int64_t dat = ev(s, e, st->dst_at), der = ev(s, e, st->der), dec = ev(s, e, st->dec), dbw = ev(s, e, st->dbw);
    int dx = (int)ev(s, e, st->x), dy = (int)ev(s, e, st->y);
    sim_cbs *cb = get_cb(s, e, st->cb);
    if (!cb || s->failed)
        return STEP_WAIT;
    int dc = core_index(s, dx, dy);
    if (dc < 0) {
        sim_fail(s, st, "send_elems to (%d,%d), which is not a core of the program", dx, dy);
        return STEP_WAIT;
    }
    const sim_cbs *D = &s->cores[dc].cb[st->cb_out];
    if (st->cb_out < 0 || st->cb_out >= s->a->num_cbs || !D->used) {
        sim_fail(s, st, "send_elems to (%d,%d): its CB %d is not declared", dx, dy, st->cb_out);
        return STEP_WAIT;
    }
    if (D->format != cb->format) {
        sim_fail(s, st, "send_elems from %s pages to %s pages: element moves need one format",
                 df_format_name(cb->format), df_format_name(D->format));
        return STEP_WAIT;
    }
    int64_t last = at + ((er + rows - 1) / NUM_TILE) * bw + (ec + cols - 1) / NUM_TILE;
    int64_t dlast = dat + ((der + rows - 1) / NUM_TILE) * dbw + (dec + cols - 1) / NUM_TILE;
    if (rows < 1 || cols < 1 || bw < 1 || dbw < 1 || er < 0 || ec < 0 || der < 0 || dec < 0 || at < 0 || dat < 0 ||
        (ec + cols - 1) / NUM_TILE >= bw || (dec + cols - 1) / NUM_TILE >= dbw || last >= cb->pages ||
        dlast >= D->pages) {
        sim_fail(s, st, "send_elems of elements (%lld,%lld)..(%lld,%lld) of a %lld-tile-wide block at page %lld "
                 "(CB %d, %lld pages) to (%lld,%lld) of a %lld-tile-wide block at page %lld (CB %d, %lld pages) is "
                 "out of range", (long long)er, (long long)ec, (long long)(er + rows - 1), (long long)(ec + cols - 1),
                 (long long)bw, (long long)at, st->cb, (long long)cb->pages, (long long)der, (long long)dec,
                 (long long)dbw, (long long)dat, st->cb_out, (long long)D->pages);
        return STEP_WAIT;
    }
    sim_core *c = core_of(s, e);
    double esize = (double)s->a->tile_bytes[cb->format] / NUM_TILE_ELEMS;
    double cmd = s->a->noc_cmd_cycles;
    sim_xspec x = {0};
    x.kind = SIM_X_SEND;
    x.noc = e->noc;
    x.owner = (int32_t)(e - s->eng);
    x.src = c->noc;
    x.dst = noc_pos(s, dx, dy);
    int64_t n = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t sr = er + i, dr = der + i;
        for (int64_t j = 0; j < cols;) {
            int64_t sc = ec + j, dcol = dec + j;
            int64_t w = LM_MIN(cols - j, LM_MIN(NUM_TILE - sc % NUM_TILE, NUM_TILE - dcol % NUM_TILE));
            x.payload = (double)w * esize;
            int32_t xi = sim_net_issue(&s->net, &x, now(s) + (double)(n + 1) * cmd);
            sim_xfer *X = &s->net.xf[xi];
            X->u.core = e->core;
            X->u.cb = st->cb;
            X->u.page = (int32_t)((cb->rd + at + (sr / NUM_TILE) * bw + sc / NUM_TILE) % cb->pages);
            X->u.dcore = dc;
            X->u.dcb = st->cb_out;
            X->u.dat = (int32_t)(dat + (dr / NUM_TILE) * dbw + dcol / NUM_TILE);
            X->u.n = 1;
            X->u.elems = true;
            X->u.br = (uint8_t)(sr % NUM_TILE), X->u.bc = (uint8_t)(sc % NUM_TILE);
            X->u.tr = (uint8_t)(dr % NUM_TILE), X->u.tc = (uint8_t)(dcol % NUM_TILE);
            X->u.w = (uint8_t)w;
            e->nwrites++;
            n++;
            j += w;
        }
    }
    return busy_for(s, e, (double)n * cmd);
}

/* Cores of a rectangle that receive a multicast, as NoC positions. */
static int mcast_dests(sim *s, sim_engine *e, const df_stmt *st, int x0, int y0, int x1, int y1, bool loopback)
{
    sim_core *me = core_of(s, e);
    if (x0 > x1 || y0 > y1 || core_index(s, x0, y0) < 0 || core_index(s, x1, y1) < 0) {
        sim_fail(s, st, "multicast rectangle (%d,%d)-(%d,%d) is empty or has corners that are not cores of the "
                 "program", x0, y0, x1, y1);
        return -1;
    }
    int n = 0;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if (core_index(s, x, y) < 0)
                continue;
            if (x == me->x && y == me->y && !loopback)
                continue;
            s->dests[n++] = noc_pos(s, x, y);
        }
    return n;
}

static int xfer_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->phase == 1) {
        if (st->op == DF_SEM_SET) {
            int64_t v = ev(s, e, st->value);
            sim_core *c = core_of(s, e);
            c->sem[st->sem] = v;
            wake_mask(s, c, &c->sem_waiters[st->sem]);
        }
        trace_done(s, e, st);
        return STEP_NEXT;
    }
    sim_core *c = core_of(s, e);
    sim_xspec x = {0};
    x.noc = e->noc;
    x.owner = (int32_t)(e - s->eng);
    x.src = c->noc;
    sim_xfer tmp = {0};
    double cmd = s->a->noc_cmd_cycles;
    switch (st->op) {
    case DF_SEM_SET:
        return busy_for(s, e, s->a->sem_cycles);
    case DF_SEND:
    case DF_MCAST: {
        sim_cbs *cb = get_cb(s, e, st->cb);
        if (!cb)
            return STEP_WAIT;
        int64_t at = ev(s, e, st->at), n = ev(s, e, st->n), dst_at = ev(s, e, st->dst_at);
        if (n < 0 || at < 0 || at + n > cb->pages || dst_at < 0 || dst_at + n > cb->pages) {
            sim_fail(s, st, "%s of pages %lld..%lld to page offset %lld is outside CB %d (%lld pages)",
                     df_ops[st->op].name, (long long)at, (long long)(at + n - 1), (long long)dst_at, st->cb,
                     (long long)cb->pages);
            return STEP_WAIT;
        }
        x.payload = (double)n * (double)cb->bytes;
        cmd *= packets(s, x.payload);
        tmp.u.core = e->core;
        tmp.u.cb = st->cb;
        tmp.u.page = (int32_t)((cb->wr + at) % cb->pages);
        tmp.u.n = (int32_t)n;
        tmp.u.dat = (int32_t)dst_at;
        if (st->op == DF_SEND) {
            int dx = (int)ev(s, e, st->x), dy = (int)ev(s, e, st->y);
            int dc = core_index(s, dx, dy);
            if (dc < 0) {
                sim_fail(s, st, "send to (%d,%d), which is not a core of the program", dx, dy);
                return STEP_WAIT;
            }
            if (!s->cores[dc].cb[st->cb].used || s->cores[dc].cb[st->cb].pages < n) {
                sim_fail(s, st, "send to (%d,%d): its CB %d is not declared or holds fewer than %lld pages", dx,
                         dy, st->cb, (long long)n);
                return STEP_WAIT;
            }
            x.kind = SIM_X_SEND;
            x.dst = noc_pos(s, dx, dy);
            tmp.u.dcore = dc;
        } else {
            int x0 = (int)ev(s, e, st->x0), y0 = (int)ev(s, e, st->y0);
            int x1 = (int)ev(s, e, st->x1), y1 = (int)ev(s, e, st->y1);
            int nd = mcast_dests(s, e, st, x0, y0, x1, y1, st->loopback);
            if (nd < 0)
                return STEP_WAIT;
            x.kind = SIM_X_MCAST;
            x.r0 = noc_pos(s, x0, y0);
            x.r1 = noc_pos(s, x1, y1);
            x.dests = s->dests;
            x.ndests = nd;
            tmp.u.x0 = x0, tmp.u.y0 = y0, tmp.u.x1 = x1, tmp.u.y1 = y1;
            tmp.u.loopback = st->loopback;
            if (nd == 0)
                return busy_for(s, e, cmd); /* nothing to send to */
        }
        break;
    }
    case DF_SEM_INC: {
        int dx = (int)ev(s, e, st->x), dy = (int)ev(s, e, st->y);
        int dc = core_index(s, dx, dy);
        if (dc < 0) {
            sim_fail(s, st, "sem_inc of (%d,%d), which is not a core of the program", dx, dy);
            return STEP_WAIT;
        }
        x.kind = SIM_X_SEM_INC;
        x.dst = noc_pos(s, dx, dy);
        tmp.u.dcore = dc;
        tmp.u.sem = st->sem;
        tmp.u.value = ev(s, e, st->value);
        break;
    }
    case DF_SEM_MCAST: {
        int x0 = (int)ev(s, e, st->x0), y0 = (int)ev(s, e, st->y0);
        int x1 = (int)ev(s, e, st->x1), y1 = (int)ev(s, e, st->y1);
        int nd = mcast_dests(s, e, st, x0, y0, x1, y1, st->loopback);
        if (nd < 0)
            return STEP_WAIT;
        x.kind = SIM_X_SEM_MCAST;
        tmp.u.core = e->core; /* the arrival skips the sender (without loopback) by this */
        x.r0 = noc_pos(s, x0, y0);
        x.r1 = noc_pos(s, x1, y1);
        x.dests = s->dests;
        x.ndests = nd;
        tmp.u.x0 = x0, tmp.u.y0 = y0, tmp.u.x1 = x1, tmp.u.y1 = y1;
        tmp.u.loopback = st->loopback;
        tmp.u.sem = st->sem;
        tmp.u.value = ev(s, e, st->value);
        if (nd == 0)
            return busy_for(s, e, cmd);
        break;
    }
    default:
        LM_BUG("not a transfer op");
    }
    if (s->failed)
        return STEP_WAIT;
    int32_t xi = sim_net_issue(&s->net, &x, now(s) + cmd);
    sim_xfer *X = &s->net.xf[xi];
    X->u = tmp.u;
    e->nwrites++;
    return busy_for(s, e, cmd);
}

static int wait_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (e->phase == 1) {
        trace_done(s, e, st);
        return STEP_NEXT;
    }
    sim_core *c = core_of(s, e);
    switch (st->op) {
    case DF_SEM_WAIT: {
        int64_t want = ev(s, e, st->value), v = c->sem[st->sem];
        if (st->ge ? v < want : v != want) {
            c->sem_waiters[st->sem] |= (uint8_t)(1u << e->kind);
            return block(s, e, SIM_B_SEM, st->sem, want);
        }
        unblock(s, e, st);
        return busy_for(s, e, s->a->sem_cycles);
    }
    case DF_READ_BARRIER: {
        int trid = trid_of(s, e, st);
        if (trid < 0)
            return STEP_WAIT;
        if ((trid ? e->nreads_id[trid] : e->nreads) > 0)
            return block(s, e, SIM_B_READS, trid, 0);
        unblock(s, e, st);
        return busy_for(s, e, s->a->barrier_cycles);
    }
    case DF_WRITE_BARRIER:
        if (e->nwrites > 0)
            return block(s, e, SIM_B_WRITES, 0, 0);
        unblock(s, e, st);
        return busy_for(s, e, s->a->barrier_cycles);
    default:
        LM_BUG("not a wait op");
    }
}

/* Arrival of a transfer's data (or semaphore update) at its destination. */
static void copy_pages(sim *s, int sc, int scb, int32_t spage, int dc, int dcb, int32_t dpage, int n)
{
    sim_cbs *S = &s->cores[sc].cb[scb], *D = &s->cores[dc].cb[dcb];
    for (int i = 0; i < n; i++) {
        float *src = S->data + (size_t)((spage + i) % S->pages) * NUM_TILE_ELEMS;
        float *dst = D->data + (size_t)((dpage + i) % D->pages) * NUM_TILE_ELEMS;
        if (src != dst)
            memcpy(dst, src, NUM_TILE_ELEMS * sizeof *dst);
        if (D->format != S->format)
            num_round_tile(dst, D->format);
    }
}

/* The trace's flow arrows of core-to-core transfer X: one per destination
 * core (a multicast's rectangle without its sender, unless looped back, and
 * for data only the cores that declare the CB). */
static void trace_flows(sim *s, const sim_xfer *X)
{
    if (X->kind == SIM_X_SEND || X->kind == SIM_X_SEM_INC) {
        sim_trace_flow(s->trace, s, X, X->u.dcore);
        return;
    }
    if (X->kind != SIM_X_MCAST && X->kind != SIM_X_SEM_MCAST)
        return;
    for (int y = X->u.y0; y <= X->u.y1; y++)
        for (int x = X->u.x0; x <= X->u.x1; x++) {
            int dc = core_index(s, x, y);
            /* data lands only where the CB is declared, as above */
            if (dc >= 0 && (dc != X->u.core || X->u.loopback) &&
                (X->kind == SIM_X_SEM_MCAST || s->cores[dc].cb[X->u.cb].used))
                sim_trace_flow(s->trace, s, X, dc);
        }
}

void sim_xfer_arrived(void *ctx, int32_t xi)
{
    sim *s = ctx;
    sim_xfer *X = &s->net.xf[xi];
    s->t_last = now(s);
    if (s->trace)
        trace_flows(s, X);
    switch ((sim_xkind)X->kind) {
    case SIM_X_READ:
        if (s->functional && X->u.elems) {
            sim_cbs *D = &s->cores[X->u.core].cb[X->u.cb];
            memcpy(D->data + (size_t)X->u.page * NUM_TILE_ELEMS + X->u.br * NUM_TILE + X->u.bc,
                   s->tens[X->u.tensor].pages + (size_t)X->u.tpage * NUM_TILE_ELEMS + X->u.tr * NUM_TILE + X->u.tc,
                   X->u.w * sizeof(float));
        } else if (s->functional) {
            sim_cbs *D = &s->cores[X->u.core].cb[X->u.cb];
            float *dst = D->data + (size_t)X->u.page * NUM_TILE_ELEMS;
            memcpy(dst, s->tens[X->u.tensor].pages + (size_t)X->u.tpage * NUM_TILE_ELEMS,
                   NUM_TILE_ELEMS * sizeof *dst);
            if (D->format != s->p->tensors[X->u.tensor].format)
                num_round_tile(dst, D->format);
        }
        break;
    case SIM_X_WRITE:
        if (s->functional && X->u.elems) {
            sim_cbs *S = &s->cores[X->u.core].cb[X->u.cb];
            memcpy(s->tens[X->u.tensor].pages + (size_t)X->u.tpage * NUM_TILE_ELEMS + X->u.tr * NUM_TILE + X->u.tc,
                   S->data + (size_t)X->u.page * NUM_TILE_ELEMS + X->u.br * NUM_TILE + X->u.bc,
                   X->u.w * sizeof(float));
        } else if (s->functional) {
            sim_cbs *S = &s->cores[X->u.core].cb[X->u.cb];
            float *dst = s->tens[X->u.tensor].pages + (size_t)X->u.tpage * NUM_TILE_ELEMS;
            memcpy(dst, S->data + (size_t)X->u.page * NUM_TILE_ELEMS, NUM_TILE_ELEMS * sizeof *dst);
            if (S->format != s->p->tensors[X->u.tensor].format)
                num_round_tile(dst, s->p->tensors[X->u.tensor].format);
        }
        break;
    case SIM_X_SEND:
        if (s->functional && X->u.elems) {
            /* send_elems: w elements of one row, (br, bc) of the source page to
               (tr, tc) of the destination page */
            sim_cbs *S = &s->cores[X->u.core].cb[X->u.cb], *D = &s->cores[X->u.dcore].cb[X->u.dcb];
            memcpy(D->data + (size_t)((D->wr + X->u.dat) % D->pages) * NUM_TILE_ELEMS + X->u.tr * NUM_TILE + X->u.tc,
                   S->data + (size_t)X->u.page * NUM_TILE_ELEMS + X->u.br * NUM_TILE + X->u.bc,
                   X->u.w * sizeof(float));
        } else if (s->functional) {
            sim_cbs *D = &s->cores[X->u.dcore].cb[X->u.cb];
            copy_pages(s, X->u.core, X->u.cb, X->u.page, X->u.dcore, X->u.cb, (int32_t)((D->wr + X->u.dat) % D->pages),
                       X->u.n);
        }
        break;
    case SIM_X_MCAST:
        if (s->functional) {
            const sim_core *me = &s->cores[X->u.core];
            for (int y = X->u.y0; y <= X->u.y1; y++)
                for (int x = X->u.x0; x <= X->u.x1; x++) {
                    int dc = core_index(s, x, y);
                    if (dc < 0 || (x == me->x && y == me->y && !X->u.loopback))
                        continue;
                    sim_cbs *D = &s->cores[dc].cb[X->u.cb];
                    if (!D->used)
                        continue;
                    copy_pages(s, X->u.core, X->u.cb, X->u.page, dc, X->u.cb,
                               (int32_t)((D->wr + X->u.dat) % D->pages), X->u.n);
                }
        }
        break;
    case SIM_X_SEM_INC: {
        sim_core *d = &s->cores[X->u.dcore];
        d->sem[X->u.sem] += X->u.value;
        wake_mask(s, d, &d->sem_waiters[X->u.sem]);
        break;
    }
    case SIM_X_SEM_MCAST: {
        const sim_core *me = &s->cores[X->u.core];
        for (int y = X->u.y0; y <= X->u.y1; y++)
            for (int x = X->u.x0; x <= X->u.x1; x++) {
                int dc = core_index(s, x, y);
                if (dc < 0 || (x == me->x && y == me->y && !X->u.loopback))
                    continue;
                sim_core *d = &s->cores[dc];
                d->sem[X->u.sem] = X->u.value;
                wake_mask(s, d, &d->sem_waiters[X->u.sem]);
            }
        break;
    }
    }
}

void sim_xfer_done(void *ctx, int32_t xi)
{
    sim *s = ctx;
    sim_xfer *X = &s->net.xf[xi];
    sim_engine *e = &s->eng[X->owner];
    if (X->kind == SIM_X_READ) {
        int t = X->u.trid;
        e->nreads--;
        e->nreads_id[t]--;
        s->cores[X->u.core].cb[X->u.cb].landing[X->u.page]--;
        if (e->block == SIM_B_READS && (e->block_arg ? e->nreads_id[e->block_arg] : e->nreads) == 0)
            wake(s, X->owner);
    } else {
        if (--e->nwrites == 0 && e->block == SIM_B_WRITES)
            wake(s, X->owner);
    }
}

/* ---- compute engines ------------------------------------------------------ */

static bool is_compute_op(df_op op) { return df_ops[op].engine == DF_ENGINE_COMPUTE; }

/* How long math spends on the chunk it takes (e->cur), from now: its
 * init, then its units one after the other, each once the unpacker has put
 * it in the source registers (they hold a unit or two, not a chunk, as on
 * the chip's srcA/srcB), so math starts after the chunk's first unit is
 * unpacked and ends no sooner than a unit after its last. With units
 * unpacked and worked at even rates the latest of those is the first unit
 * or the last (the ends are linear in the unit's index). */
static double chunk_math(sim *s, sim_engine *e, const df_stmt *st)
{
    const sim_chunk *k = &e->cur;
    double t0 = now(s) + sim_compute_init(s, e, st);
    double start = t0 > k->u_first ? t0 : k->u_first;
    double end = start + k->math, last = k->u_end + k->math / k->steps;
    return (end > last ? end : last) - now(s);
}

static int compute_op(sim *s, sim_engine *e, const df_stmt *st)
{
    sim_core *c = core_of(s, e);
    if (e->phase == 0 && e->sub == 0) {
        e->nsub = sim_compute_nchunks(s, e, st);
        if (s->failed)
            return STEP_WAIT;
        if (e->nsub == 0)
            return STEP_NEXT;
    }
    switch (e->kind) {
    case SIM_UNPACK:
        if (e->phase == 0) {
            if (c->nsrc >= SIM_SRCQ) {
                return block(s, e, SIM_B_SRC, 0, 0);
            }
            unblock(s, e, st);
            double cost = sim_compute_unpack(s, e, st, e->sub, &e->cur);
            if (s->failed)
                return STEP_WAIT;
            /* the chunk takes its source-register slot now: math follows
               the unpacker unit by unit (chunk_math) */
            double init = sim_compute_init(s, e, st);
            e->cur.u_first = now(s) + init + cost / e->cur.steps;
            e->cur.u_end = now(s) + init + cost;
            c->srcq[(c->src_head + c->nsrc) % SIM_SRCQ] = e->cur;
            c->nsrc++;
            wake(s, c->eng[SIM_MATH]);
            return busy_for(s, e, cost + init);
        }
        break;
    case SIM_MATH:
        if (e->phase == 0) {
            if (c->nsrc == 0)
                return block(s, e, SIM_B_UNPACKED, 0, 0);
            if (c->dst_held >= 2)
                return block(s, e, SIM_B_DST, 0, 0);
            unblock(s, e, st);
            e->cur = c->srcq[c->src_head];
            if (e->cur.s != st)
                LM_BUG("compute stages disagree on the op order");
            c->dst_held++;
            return busy_for(s, e, chunk_math(s, e, st) + s->a->dst_handoff_cycles);
        }
        /* the source registers are free again; the Dst half goes to pack */
        c->src_head = (c->src_head + 1) % SIM_SRCQ;
        c->nsrc--;
        wake(s, c->eng[SIM_UNPACK]);
        c->dstq[(c->dst_head + c->ndst) % 2] = e->cur;
        c->ndst++;
        s->flops += e->cur.flops;
        wake(s, c->eng[SIM_PACK]);
        break;
    case SIM_PACK:
        if (e->phase == 0) {
            if (c->ndst == 0)
                return block(s, e, SIM_B_PACKQ, 0, 0);
            unblock(s, e, st);
            e->cur = c->dstq[c->dst_head];
            if (e->cur.s != st)
                LM_BUG("compute stages disagree on the op order");
            return busy_for(s, e, e->cur.pack + sim_compute_init(s, e, st));
        }
        sim_compute_pack(s, e, &e->cur, st->cb_out);
        if (s->failed)
            return STEP_WAIT;
        c->dst_head = (c->dst_head + 1) % 2;
        c->ndst--;
        c->dst_held--;
        wake(s, c->eng[SIM_MATH]);
        break;
    default:
        LM_BUG("compute op on a data-movement engine");
    }
    trace_done(s, e, st);
    e->phase = 0;
    if (++e->sub < e->nsub)
        return STEP_AGAIN;
    return STEP_NEXT;
}

/* cb_swap: from here on this thread's names of the two CBs trade places.
 * It costs nothing: the kernel swaps two variables. */
static int swap_op(sim *s, sim_engine *e, const df_stmt *st)
{
    if (!e->cbmap) {
        e->cbmap = LM_NEWN(&s->arena, int32_t, s->a->num_cbs);
        for (int i = 0; i < s->a->num_cbs; i++)
            e->cbmap[i] = i;
    }
    if (!get_cb(s, e, st->cb) || !get_cb(s, e, st->cb_b))
        return STEP_WAIT;
    int32_t t = e->cbmap[st->cb];
    e->cbmap[st->cb] = e->cbmap[st->cb_b];
    e->cbmap[st->cb_b] = t;
    return STEP_NEXT;
}

/* ---- dispatch ---------------------------------------------------------------- */

static int step_op(sim *s, sim_engine *e, const df_stmt *st)
{
    bool dm = e->kind == SIM_READER || e->kind == SIM_WRITER;
    if (dm && is_compute_op(st->op)) {
        sim_fail(s, st, "'%s' is a compute op; the %s kernel cannot run it", df_ops[st->op].name,
                 sim_engine_name(e->kind));
        return STEP_WAIT;
    }
    if (!dm && df_ops[st->op].engine == DF_ENGINE_DM) {
        sim_fail(s, st, "'%s' needs a data-movement engine; the compute kernel cannot run it", df_ops[st->op].name);
        return STEP_WAIT;
    }
    switch (st->op) {
    case DF_CB_RESERVE:
    case DF_CB_PUSH:
        if (!dm && e->kind != SIM_PACK)
            return STEP_NEXT; /* the pack engine owns the output side */
        return cb_op(s, e, st);
    case DF_CB_WAIT:
    case DF_CB_POP:
        if (!dm && e->kind != SIM_UNPACK)
            return STEP_NEXT; /* the unpack engine owns the input side */
        return cb_op(s, e, st);
    case DF_READ:
    case DF_WRITE:
        return dram_op(s, e, st);
    case DF_READ_ELEMS:
    case DF_WRITE_ELEMS:
        return elems_op(s, e, st);
    case DF_SEND_ELEMS:
        return send_elems_op(s, e, st);
    case DF_SEND:
    case DF_MCAST:
    case DF_SEM_INC:
    case DF_SEM_SET:
    case DF_SEM_MCAST:
        return xfer_op(s, e, st);
    case DF_SEM_WAIT:
    case DF_READ_BARRIER:
    case DF_WRITE_BARRIER:
        return wait_op(s, e, st);
    case DF_MATMUL:
    case DF_ELTWISE:
    case DF_SFPU:
    case DF_REDUCE:
    case DF_COPY:
    case DF_FILL:
    case DF_MASK:
    case DF_TRANSPOSE:
    case DF_CHAIN:
    case DF_PCHAIN:
    case DF_ROWMAX:
        return compute_op(s, e, st);
    case DF_CB_SWAP:
        return swap_op(s, e, st);
    default:
        LM_BUG("unexpected op %d", (int)st->op);
    }
}

void sim_engine_run(sim *s, int32_t ei)
{
    sim_engine *e = &s->eng[ei];
    e->state = SIM_ES_RUN;
    for (;;) {
        if (s->failed)
            return;
        /* loops of ops that cost nothing (the math engine skips every CB
         * op) advance no clock, so the event budget alone cannot stop them */
        if (++s->ninstr > s->max_instr) {
            sim_fail(s, e->pc < e->code->n ? e->code->ins[e->pc].s : NULL,
                     "simulation stopped after %llu interpreted ops: the budget is spent (a runaway loop?)",
                     (unsigned long long)s->max_instr);
            return;
        }
        if (e->pc >= e->code->n) {
            e->state = SIM_ES_DONE;
            e->t_done = now(s);
            return;
        }
        const sim_ins *in = &e->code->ins[e->pc];
        const df_stmt *st = in->s;
        if (in->kind == SIM_I_FOR) {
            int64_t lo = ev(s, e, st->lo), hi = ev(s, e, st->hi), step = ev(s, e, st->step);
            if (step <= 0) {
                sim_fail(s, st, "loop '%s' has step %lld; it must be positive",
                         s->p->classes[core_of(s, e)->cls].slot_names[st->var], (long long)step);
                return;
            }
            e->slots[st->var] = lo;
            e->hi[in->depth] = hi;
            e->step[in->depth] = step;
            e->pc = lo < hi ? e->pc + 1 : in->jump;
            continue;
        }
        if (in->kind == SIM_I_END) {
            e->slots[st->var] += e->step[in->depth];
            e->pc = e->slots[st->var] < e->hi[in->depth] ? in->jump : e->pc + 1;
            continue;
        }
        int r = step_op(s, e, st);
        if (r == STEP_WAIT)
            return;
        if (r == STEP_AGAIN)
            continue;
        e->n_ops++;
        e->pc++;
        e->phase = 0;
        e->sub = 0;
    }
}

/* ---- deadlock report ---------------------------------------------------------- */

void sim_describe_wait(sim *s, const sim_engine *e, lm_buf *b)
{
    const sim_core *c = &s->cores[e->core];
    const df_stmt *st = e->pc < e->code->n ? e->code->ins[e->pc].s : NULL;
    lm_buf_printf(b, "core (%d,%d) %s waits in '%s': ", c->x, c->y, sim_engine_name(e->kind),
                  st ? df_ops[st->op].name : "?");
    switch (e->block) {
    case SIM_B_CB_FRONT: {
        const sim_cbs *cb = &c->cb[e->block_arg];
        lm_buf_printf(b, "CB %d has %lld of its %lld pages filled; it needs %lld", e->block_arg,
                      (long long)cb->count, (long long)cb->pages, (long long)e->block_need);
        break;
    }
    case SIM_B_CB_BACK: {
        const sim_cbs *cb = &c->cb[e->block_arg];
        lm_buf_printf(b, "CB %d has %lld of its %lld pages free; it needs %lld", e->block_arg,
                      (long long)(cb->pages - cb->count), (long long)cb->pages, (long long)e->block_need);
        break;
    }
    case SIM_B_SEM:
        lm_buf_printf(b, "semaphore '%s' is %lld; it waits for %s%lld", s->p->sems[e->block_arg].name,
                      (long long)c->sem[e->block_arg], st && st->ge ? ">= " : "", (long long)e->block_need);
        break;
    case SIM_B_READS:
        if (e->block_arg)
            lm_buf_printf(b, "%d reads with transaction id %d outstanding", e->nreads_id[e->block_arg], e->block_arg);
        else
            lm_buf_printf(b, "%d reads outstanding", e->nreads);
        break;
    case SIM_B_WRITES:
        lm_buf_printf(b, "%d writes outstanding", e->nwrites);
        break;
    case SIM_B_SRC:
        lm_buf_puts(b, "the source registers are full (math has not taken the last chunks)");
        break;
    case SIM_B_UNPACKED:
        lm_buf_puts(b, "nothing unpacked for it (unpack waits elsewhere)");
        break;
    case SIM_B_DST:
        lm_buf_puts(b, "both Dst halves are held (pack has not released one)");
        break;
    case SIM_B_PACKQ:
        lm_buf_puts(b, "no Dst half committed by math");
        break;
    case SIM_B_NONE:
        lm_buf_puts(b, "nothing (not blocked)");
        break;
    }
}
