/* noc.c - the network model: routes on the two NoCs, the shared resources
 * (links, NoC interfaces, multicast engines, DRAM banks) and a fluid model
 * of the traffic.
 *
 * Why fluid: a tile is 64 flits and a GEMM moves hundreds of thousands of
 * them; stepping flits would make every simulation minutes long. Instead
 * every transfer is a flow over the resources of its route, and a flow's
 * rate is its max-min fair share of those resources (progressive filling:
 * raise all rates together, freeze the flows of the resource that fills
 * first, repeat). Rates change only when a flow starts or ends, so the
 * model recomputes them then, and only once per simulated instant however
 * many flows changed in it (sim_net_update runs before time advances).
 * (share.c computes the shares.)
 * Packetisation is charged as header flits per packet in the wire bytes,
 * and the pipeline (injection, one hop latency per router, ejection) as a
 * latency after the last byte leaves. tests/unit/test_sim_noc.c compares the
 * result with a flit-level run (pktref.c) on small cases.
 *
 * Channels: transfers issued by the same engine over the same route are
 * served in order (one NoC interface queue, one virtual channel, as on the
 * chip), so they form one flow whose head transfer moves; the next starts
 * at the same rate when the head drains, without a recomputation. This also
 * keeps a semaphore update behind the data it announces.
 *
 * Routing (tt-isa-documentation, NoC routing paths): NoC 0 goes +x then +y,
 * NoC 1 goes -y then -x, both wrapping around when the description says the
 * NoC is a torus (without a torus a step goes toward the target instead).
 * A rectangle multicast with X as major axis goes along x to the
 * rectangle's first column, along y through its rows, then along x across
 * each row; the flow occupies every link of that tree once (a link the tree
 * crosses twice, as when the sender sits inside the rectangle's rows, is
 * counted twice).
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- geometry ------------------------------------------------------------- */

static int nnocs(const arch_desc *a) { return a->num_nocs >= 2 ? 2 : 1; }

static inline int32_t link_id(const sim_net *n, int noc, int x, int y, int dir)
{
    return n->link0 + ((noc * n->H + y) * n->W + x) * 4 + dir;
}
static inline int node(const sim_net *n, arch_xy p) { return p.y * n->W + p.x; }

double sim_net_wire_bytes(const arch_desc *a, double payload)
{
    double pk = a->max_packet_bytes > 0 ? ceil(payload / (double)a->max_packet_bytes) : 1;
    if (pk < 1)
        pk = 1;
    return payload + pk * a->header_flits * (double)a->link_bytes_per_cycle;
}

double sim_net_path_lat(const arch_desc *a, int hops)
{
    return a->noc_inject_cycles + hops * a->noc_hop_cycles + a->noc_eject_cycles;
}

/* Distance along one axis in the NoC's direction of travel. */
static int axis_dist(const sim_net *n, int from, int to, int size, bool positive)
{
    if (!n->torus)
        return abs(to - from);
    int d = positive ? to - from : from - to;
    return ((d % size) + size) % size;
}

int sim_net_hops(const sim_net *n, int noc, arch_xy a, arch_xy b)
{
    bool pos = noc == 0;
    return axis_dist(n, a.x, b.x, n->W, pos) + axis_dist(n, a.y, b.y, n->H, pos);
}

/* One step along an axis toward `to`; returns the direction taken. */
static int step(const sim_net *n, int noc, bool xaxis, int *c, int to)
{
    int size = xaxis ? n->W : n->H;
    int dir;
    if (n->torus) {
        bool pos = noc == 0;
        dir = xaxis ? (pos ? SIM_E : SIM_W) : (pos ? SIM_S : SIM_N);
        *c = pos ? (*c + 1) % size : (*c - 1 + size) % size;
    } else {
        bool up = to > *c;
        dir = xaxis ? (up ? SIM_E : SIM_W) : (up ? SIM_S : SIM_N);
        *c += up ? 1 : -1;
    }
    return dir;
}

/* ---- route building --------------------------------------------------------- */

static int add_stage(sim_net *n, int32_t res, int32_t parent, double lat, bool leaf)
{
    if (n->nst == n->capst) {
        n->capst = n->capst ? 2 * n->capst : 64;
        n->st = lm_xrealloc(n->st, (size_t)n->capst * sizeof *n->st);
    }
    n->st[n->nst] = (sim_stage){res, parent, lat, leaf};
    return n->nst++;
}

/* Walk from `at` along one axis to coordinate `to`, appending link stages;
 * returns the last stage. `at` is updated. */
static int walk(sim_net *n, int noc, bool xaxis, arch_xy *at, int to, int parent)
{
    double hop = n->a->noc_hop_cycles;
    while ((xaxis ? at->x : at->y) != to) {
        int x = at->x, y = at->y;
        int *c = xaxis ? &at->x : &at->y;
        int dir = step(n, noc, xaxis, c, to);
        parent = add_stage(n, link_id(n, noc, x, y, dir), parent, hop, false);
        n->mark[node(n, *at)] = parent + 1;
    }
    return parent;
}

/* Unicast: NoC 0 x then y, NoC 1 y then x. */
static int unicast(sim_net *n, int noc, arch_xy from, arch_xy to, int parent)
{
    arch_xy at = from;
    if (noc == 0) {
        parent = walk(n, noc, true, &at, to.x, parent);
        parent = walk(n, noc, false, &at, to.y, parent);
    } else {
        parent = walk(n, noc, false, &at, to.y, parent);
        parent = walk(n, noc, true, &at, to.x, parent);
    }
    return parent;
}

/* Rows (or columns) of [lo, hi] in the order a walk from c visits them,
 * and the coordinate where the walk can stop. */
static int last_needed(const sim_net *n, int noc, int c, int lo, int hi, int size)
{
    if (!n->torus)
        return c < lo ? hi : lo; /* callers split the inside case */
    bool pos = noc == 0;
    /* Walking from c in the NoC's direction, the last coordinate of [lo,hi]
     * reached is the one just "behind" c within the range, or the far end. */
    if (c >= lo && c <= hi) {
        if (pos)
            return c == lo ? hi : c - 1;
        return c == hi ? lo : c + 1;
    }
    (void)size;
    return pos ? hi : lo;
}

/* Rectangle multicast tree, X as major axis. */
static void mcast_tree(sim_net *n, int noc, arch_xy src, arch_xy r0, arch_xy r1, int root)
{
    bool pos = noc == 0;
    int startx = n->torus ? (pos ? r0.x : r1.x) : (src.x <= r0.x ? r0.x : src.x >= r1.x ? r1.x : src.x);
    int endx_from = startx;
    arch_xy at = src;
    n->mark[node(n, at)] = root + 1;
    int p = walk(n, noc, true, &at, startx, root);
    /* along the column: every row of [r0.y, r1.y] */
    int col_stage_of_row_first = p;
    (void)col_stage_of_row_first;
    if (n->torus) {
        int stop = last_needed(n, noc, at.y, r0.y, r1.y, n->H);
        walk(n, noc, false, &at, stop, p);
    } else {
        arch_xy up = at, down = at;
        if (at.y > r0.y)
            walk(n, noc, false, &up, r0.y, p);
        if (at.y < r1.y)
            walk(n, noc, false, &down, r1.y, p);
    }
    /* across each row from the start column */
    for (int y = r0.y; y <= r1.y; y++) {
        arch_xy rs = {endx_from, y};
        int rp = n->mark[node(n, rs)] - 1;
        LM_ASSERT(rp >= 0);
        if (n->torus) {
            int to = pos ? r1.x : r0.x;
            walk(n, noc, true, &rs, to, rp);
        } else {
            arch_xy l = rs, r = rs;
            if (rs.x > r0.x)
                walk(n, noc, true, &l, r0.x, rp);
            if (rs.x < r1.x)
                walk(n, noc, true, &r, r1.x, rp);
        }
    }
}

int sim_net_route(sim_net *n, const sim_xspec *s)
{
    const arch_desc *a = n->a;
    int noc = s->noc;
    n->nst = 0;
    memset(n->mark, 0, (size_t)n->W * n->H * sizeof *n->mark);
    int nn = n->W * n->H;
    switch (s->kind) {
    case SIM_X_READ: {
        arch_xy b = sim_dram_pos(a, s->bank, noc);
        int r = add_stage(n, n->bank_rd0 + s->bank, -1, a->noc_inject_cycles, false);
        int p = unicast(n, noc, b, s->src, r);
        add_stage(n, n->niu_in0 + noc * nn + node(n, s->src), p, a->noc_eject_cycles, true);
        break;
    }
    case SIM_X_WRITE: {
        arch_xy b = sim_dram_pos(a, s->bank, noc);
        int r = add_stage(n, n->niu_out0 + noc * nn + node(n, s->src), -1, a->noc_inject_cycles, false);
        int p = unicast(n, noc, s->src, b, r);
        add_stage(n, n->bank_wr0 + s->bank, p, a->noc_eject_cycles, true);
        break;
    }
    case SIM_X_SEND:
    case SIM_X_SEM_INC: {
        int r = add_stage(n, n->niu_out0 + noc * nn + node(n, s->src), -1, a->noc_inject_cycles, false);
        int p = unicast(n, noc, s->src, s->dst, r);
        add_stage(n, n->niu_in0 + noc * nn + node(n, s->dst), p, a->noc_eject_cycles, true);
        break;
    }
    case SIM_X_MCAST:
    case SIM_X_SEM_MCAST: {
        int r = add_stage(n, n->niu_out0 + noc * nn + node(n, s->src), -1,
                          a->mcast_bpc > 0 ? 0 : a->noc_inject_cycles, false);
        if (a->mcast_bpc > 0)
            r = add_stage(n, n->mcast0 + noc * nn + node(n, s->src), r, a->noc_inject_cycles, false);
        mcast_tree(n, noc, s->src, s->r0, s->r1, r);
        for (int i = 0; i < s->ndests; i++) {
            int at = n->mark[node(n, s->dests[i])] - 1;
            if (at < 0)
                LM_BUG("multicast tree misses (%d,%d)", s->dests[i].x, s->dests[i].y);
            add_stage(n, n->niu_in0 + noc * nn + node(n, s->dests[i]), at, a->noc_eject_cycles, true);
        }
        break;
    }
    }
    return n->nst;
}

/* ---- set-up ----------------------------------------------------------------- */

void sim_net_init(sim_net *n, const arch_desc *a, sim_queue *q, int nowners)
{
    *n = (sim_net){0};
    n->a = a;
    n->q = q;
    n->W = a->noc_w;
    n->H = a->noc_h;
    n->torus = a->noc_torus;
    n->flit = a->link_bytes_per_cycle;
    n->free_ch = n->free_xf = -1;
    int nn = n->W * n->H, nocs = nnocs(a);
    n->link0 = 0;
    n->niu_out0 = n->link0 + nocs * nn * 4;
    n->niu_in0 = n->niu_out0 + nocs * nn;
    n->mcast0 = n->niu_in0 + nocs * nn;
    n->bank_rd0 = n->mcast0 + nocs * nn;
    n->bank_wr0 = n->bank_rd0 + a->num_dram_banks;
    n->nres = n->bank_wr0 + a->num_dram_banks;
    n->res = lm_xcalloc((size_t)n->nres, sizeof *n->res);
    n->ares = lm_xmalloc((size_t)n->nres * sizeof *n->ares);
    n->mark = lm_xcalloc((size_t)nn, sizeof *n->mark);
    for (int32_t r = 0; r < n->nres; r++) {
        sim_res *R = &n->res[r];
        R->apos = -1;
        R->bank = -1;
        if (r < n->niu_out0) {
            int i = r - n->link0;
            R->kind = SIM_R_LINK;
            R->dir = (int8_t)(i % 4);
            R->x = (int16_t)(i / 4 % n->W);
            R->y = (int16_t)(i / 4 / n->W % n->H);
            R->noc = (int8_t)(i / 4 / nn);
            R->cap = a->link_bytes_per_cycle;
        } else if (r < n->bank_rd0) {
            int base = r < n->niu_in0 ? n->niu_out0 : r < n->mcast0 ? n->niu_in0 : n->mcast0;
            int i = r - base;
            R->kind = r < n->niu_in0 ? SIM_R_NIU_OUT : r < n->mcast0 ? SIM_R_NIU_IN : SIM_R_MCAST;
            R->x = (int16_t)(i % n->W);
            R->y = (int16_t)(i / n->W % n->H);
            R->noc = (int8_t)(i / nn);
            R->cap = R->kind == SIM_R_NIU_OUT ? a->core_write_bpc
                   : R->kind == SIM_R_NIU_IN  ? a->core_read_bpc
                                              : a->mcast_bpc;
        }
    }
    sim_dram_add_resources(n);
    n->nowners = nowners;
    n->own = lm_xcalloc((size_t)(nowners > 0 ? nowners : 1), sizeof *n->own);
    n->nown = lm_xcalloc((size_t)(nowners > 0 ? nowners : 1), sizeof *n->nown);
    n->capown = lm_xcalloc((size_t)(nowners > 0 ? nowners : 1), sizeof *n->capown);
}

void sim_net_free(sim_net *n)
{
    for (int32_t r = 0; r < n->nres; r++)
        free(n->res[r].fl);
    free(n->res);
    for (int32_t c = 0; c < n->nch; c++) {
        free(n->ch[c].res);
        free(n->ch[c].slot);
    }
    free(n->ch);
    free(n->xf);
    free(n->active);
    free(n->ares);
    free(n->wcand);
    free(n->seed_ch);
    free(n->seed_res);
    free(n->kch);
    free(n->kpcap);
    free(n->kchg);
    free(n->kres);
    free(n->rise);
    free(n->mark);
    free(n->st);
    for (int i = 0; i < n->nowners; i++)
        free(n->own[i]);
    free(n->own);
    free(n->nown);
    free(n->capown);
    *n = (sim_net){0};
}

void sim_net_res_name(const sim_net *n, int32_t r, char *buf, size_t len)
{
    const sim_res *R = &n->res[r];
    static const char dirs[] = "ESWN";
    switch ((sim_rkind)R->kind) {
    case SIM_R_LINK:
        snprintf(buf, len, "noc%d (%d,%d)%c", R->noc, R->x, R->y, dirs[R->dir]);
        break;
    case SIM_R_NIU_OUT:
        snprintf(buf, len, "noc%d niu-out (%d,%d)", R->noc, R->x, R->y);
        break;
    case SIM_R_NIU_IN:
        snprintf(buf, len, "noc%d niu-in (%d,%d)", R->noc, R->x, R->y);
        break;
    case SIM_R_MCAST:
        snprintf(buf, len, "noc%d mcast (%d,%d)", R->noc, R->x, R->y);
        break;
    case SIM_R_BANK_RD:
        snprintf(buf, len, "dram bank %d read", R->bank);
        break;
    case SIM_R_BANK_WR:
        snprintf(buf, len, "dram bank %d write", R->bank);
        break;
    }
}

/* ---- pools ------------------------------------------------------------------ */

static int32_t xfer_alloc(sim_net *n)
{
    int32_t x;
    if (n->free_xf >= 0) {
        x = n->free_xf;
        n->free_xf = n->xf[x].next_free;
    } else {
        if (n->nxf == n->capxf) {
            n->capxf = n->capxf ? 2 * n->capxf : 256;
            n->xf = lm_xrealloc(n->xf, (size_t)n->capxf * sizeof *n->xf);
        }
        x = n->nxf++;
        n->xf[x].ev = sim_q_new(n->q, SIM_EV_XFER, x);
    }
    int32_t ev = n->xf[x].ev;
    n->xf[x] = (sim_xfer){0};
    n->xf[x].ev = ev;
    n->xf[x].next = n->xf[x].chan = -1;
    return x;
}

static void xfer_free(sim_net *n, int32_t x)
{
    n->xf[x].next_free = n->free_xf;
    n->free_xf = x;
}

static int32_t chan_alloc(sim_net *n)
{
    int32_t c;
    if (n->free_ch >= 0) {
        c = n->free_ch;
        n->free_ch = n->ch[c].next_free;
    } else {
        if (n->nch == n->capch) {
            n->capch = n->capch ? 2 * n->capch : 64;
            n->ch = lm_xrealloc(n->ch, (size_t)n->capch * sizeof *n->ch);
        }
        c = n->nch++;
        n->ch[c] = (sim_chan){0};
        n->ch[c].ev = sim_q_new(n->q, SIM_EV_CHAN, c);
    }
    sim_chan *C = &n->ch[c];
    C->head = C->last = -1;
    C->apos = -1;
    C->rate = C->remaining = 0;
    C->bytes = C->payload = 0;
    C->nres = 0;
    C->live = true;
    return c;
}

static void chan_flush(sim_net *n, sim_chan *C)
{
    /* Every byte crossed every resource of the route once per use. */
    for (int k = 0; k < C->nres; k++) {
        n->res[C->res[k]].bytes += C->bytes;
        n->res[C->res[k]].payload += C->payload;
    }
    C->bytes = C->payload = 0;
}

static void chan_release(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    chan_flush(n, C);
    int o = C->key[2];
    for (int i = 0; i < n->nown[o]; i++)
        if (n->own[o][i] == c) {
            n->own[o][i] = n->own[o][--n->nown[o]];
            break;
        }
    C->live = false;
    C->next_free = n->free_ch;
    n->free_ch = c;
}

void sim_net_flush(sim_net *n)
{
    for (int32_t c = 0; c < n->nch; c++)
        if (n->ch[c].live)
            chan_flush(n, &n->ch[c]);
}

/* ---- moving channels and the resources they cross ------------------------------ */

static void res_add(sim_net *n, int32_t c, int k)
{
    sim_chan *C = &n->ch[c];
    sim_res *R = &n->res[C->res[k]];
    if (R->nfl == R->capfl) {
        R->capfl = R->capfl ? 2 * R->capfl : 4;
        R->fl = lm_xrealloc(R->fl, (size_t)R->capfl * sizeof *R->fl);
    }
    C->slot[k] = R->nfl;
    R->fl[R->nfl++] = (sim_fref){c, k};
    sim_share_joined(n, c, k);
    if (R->nfl == 1) {
        R->apos = n->nares;
        n->ares[n->nares++] = C->res[k];
    }
}

static void res_remove(sim_net *n, int32_t c, int k)
{
    sim_chan *C = &n->ch[c];
    int32_t r = C->res[k];
    sim_res *R = &n->res[r];
    int32_t pos = C->slot[k];
    sim_fref last = R->fl[--R->nfl];
    if (pos != R->nfl) {
        R->fl[pos] = last;
        n->ch[last.chan].slot[last.k] = pos;
    }
    sim_share_left(n, r);
    if (R->nfl == 0) {
        int32_t moved = n->ares[--n->nares];
        if (R->apos != n->nares) {
            n->ares[R->apos] = moved;
            n->res[moved].apos = R->apos;
        }
        R->apos = -1;
        R->bind = false;
        if (R->load != 0) {
            R->load = 0;
            if (n->on_load)
                n->on_load(n->ctx, r, 0);
        }
    }
}

static void activate(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    LM_ASSERT(C->apos < 0 && C->head >= 0);
    sim_xfer *X = &n->xf[C->head];
    C->remaining = X->wire;
    C->tset = n->q->now;
    C->rate = 0;
    C->bytes += X->wire;
    C->payload += X->payload;
    if (n->nactive == n->capactive) {
        n->capactive = n->capactive ? 2 * n->capactive : 64;
        n->active = lm_xrealloc(n->active, (size_t)n->capactive * sizeof *n->active);
    }
    C->apos = n->nactive;
    n->active[n->nactive++] = c;
    for (int k = 0; k < C->nres; k++)
        res_add(n, c, k);
    sim_share_started(n, c);
    n->dirty = true;
}

static void deactivate(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    LM_ASSERT(C->apos >= 0);
    for (int k = 0; k < C->nres; k++) {
        sim_share_ended(n, C->res[k], C->rate);
        res_remove(n, c, k);
    }
    int32_t moved = n->active[--n->nactive];
    if (C->apos != n->nactive) {
        n->active[C->apos] = moved;
        n->ch[moved].apos = C->apos;
    }
    C->apos = -1;
    C->rate = 0;
    sim_q_cancel(n->q, C->ev);
    n->dirty = true;
}

/* ---- issue ------------------------------------------------------------------ */

void sim_net_key(const sim_net *n, const sim_xspec *s, int32_t key[8])
{
    memset(key, 0, 8 * sizeof *key);
    /* semaphore traffic shares the channel of the data it follows */
    sim_xkind k = s->kind == SIM_X_SEM_INC ? SIM_X_SEND : s->kind == SIM_X_SEM_MCAST ? SIM_X_MCAST : s->kind;
    key[0] = (int32_t)k;
    key[1] = s->noc;
    key[2] = s->owner;
    switch (k) {
    case SIM_X_READ:
    case SIM_X_WRITE:
        key[3] = s->bank;
        key[4] = node(n, s->src);
        break;
    case SIM_X_SEND:
        key[3] = node(n, s->src);
        key[4] = node(n, s->dst);
        break;
    default:
        key[3] = node(n, s->src);
        key[4] = node(n, s->r0);
        key[5] = node(n, s->r1);
        key[6] = s->ndests;
        key[7] = s->ndests > 0 ? node(n, s->dests[0]) : -1;
        break;
    }
}

double sim_net_req(const sim_net *n, const sim_xspec *s)
{
    const arch_desc *a = n->a;
    if (s->kind != SIM_X_READ)
        return 0;
    return sim_net_path_lat(a, sim_net_hops(n, s->noc, s->src, sim_dram_pos(a, s->bank, s->noc))) +
           a->dram_latency_cycles;
}

double sim_net_ack(const sim_net *n, const sim_xspec *s)
{
    const arch_desc *a = n->a;
    double ack = 0;
    switch (s->kind) {
    case SIM_X_READ:
        break; /* the data is the answer */
    case SIM_X_WRITE:
        ack = a->dram_write_latency_cycles +
              sim_net_path_lat(a, sim_net_hops(n, s->noc, sim_dram_pos(a, s->bank, s->noc), s->src));
        break;
    case SIM_X_SEND:
    case SIM_X_SEM_INC:
        ack = sim_net_path_lat(a, sim_net_hops(n, s->noc, s->dst, s->src));
        break;
    default: /* the last of the destinations' acknowledgements */
        for (int i = 0; i < s->ndests; i++) {
            double l = sim_net_path_lat(a, sim_net_hops(n, s->noc, s->dests[i], s->src));
            if (l > ack)
                ack = l;
        }
        break;
    }
    return ack;
}

double sim_net_tail(const sim_net *n, int ns)
{
    double tail = 0, cum_local[256];
    double *cum = ns <= 256 ? cum_local : lm_xmalloc((size_t)ns * sizeof *cum);
    for (int i = 0; i < ns; i++) {
        cum[i] = (n->st[i].parent >= 0 ? cum[n->st[i].parent] : 0) + n->st[i].lat;
        if (n->st[i].leaf && cum[i] > tail)
            tail = cum[i];
    }
    if (cum != cum_local)
        free(cum);
    return tail;
}

/* The channel a transfer joins: an existing one of the same key, or a new
 * one with the route built now. */
static int32_t find_chan(sim_net *n, const sim_xspec *s)
{
    int32_t key[8];
    sim_net_key(n, s, key);
    int o = s->owner;
    LM_ASSERT(o >= 0 && o < n->nowners);
    for (int i = 0; i < n->nown[o]; i++) {
        sim_chan *C = &n->ch[n->own[o][i]];
        if (memcmp(C->key, key, sizeof key) == 0)
            return n->own[o][i];
    }
    int32_t c = chan_alloc(n);
    sim_chan *C = &n->ch[c];
    memcpy(C->key, key, sizeof key);
    int ns = sim_net_route(n, s);
    if (ns > C->capres) {
        C->capres = ns;
        C->res = lm_xrealloc(C->res, (size_t)ns * sizeof *C->res);
        C->slot = lm_xrealloc(C->slot, (size_t)ns * sizeof *C->slot);
    }
    for (int i = 0; i < ns; i++)
        C->res[i] = n->st[i].res;
    C->nres = ns;
    C->tail = sim_net_tail(n, ns);
    C->ack = sim_net_ack(n, s);
    if (n->nown[o] == n->capown[o]) {
        n->capown[o] = n->capown[o] ? 2 * n->capown[o] : 8;
        n->own[o] = lm_xrealloc(n->own[o], (size_t)n->capown[o] * sizeof *n->own[o]);
    }
    n->own[o][n->nown[o]++] = c;
    return c;
}

int32_t sim_net_issue(sim_net *n, const sim_xspec *s, double t)
{
    const arch_desc *a = n->a;
    double req = sim_net_req(n, s);
    int32_t c = find_chan(n, s);
    int32_t x = xfer_alloc(n);
    sim_xfer *X = &n->xf[x];
    sim_chan *C = &n->ch[c];
    X->chan = c;
    X->owner = s->owner;
    X->kind = (uint8_t)s->kind;
    X->t_issue = t;
    X->payload = s->kind == SIM_X_SEM_INC || s->kind == SIM_X_SEM_MCAST ? 0 : s->payload;
    X->wire = sim_net_wire_bytes(a, X->payload);
    X->ready = t + req;
    if (s->kind == SIM_X_MCAST || s->kind == SIM_X_SEM_MCAST)
        X->ready += a->mcast_setup_cycles;
    X->ack = C->ack;
    if (X->payload == 0 && C->head < 0) {
        /* A lone header-only packet (a semaphore update) on an idle route:
         * one flit cannot take a measurable share of any link, so it pays
         * its serialisation at the slowest resource and the pipeline, and
         * does not start a flow (which would cost two rate updates). Behind
         * queued data it joins the queue instead, keeping the order. */
        double cap = n->res[C->res[0]].cap;
        for (int k = 1; k < C->nres; k++)
            cap = fmin(cap, n->res[C->res[k]].cap);
        C->bytes += X->wire;
        X->chan = -1;
        sim_q_at(n->q, X->ev, X->ready + X->wire / cap + C->tail);
        chan_release(n, c);
        return x;
    }
    if (C->head < 0) {
        C->head = C->last = x;
        if (X->ready <= n->q->now)
            activate(n, c);
        else
            sim_q_at(n->q, C->ev, X->ready);
    } else {
        /* in order: a transfer never overtakes the one before it */
        if (X->ready < n->xf[C->last].ready)
            X->ready = n->xf[C->last].ready;
        n->xf[C->last].next = x;
        C->last = x;
    }
    return x;
}

/* ---- events ----------------------------------------------------------------- */

void sim_net_chan_event(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    double now = n->q->now;
    if (C->apos < 0) {
        /* the head's data is ready at the source */
        activate(n, c);
        return;
    }
    /* the head transfer drained: its last byte left the source */
    int32_t x = C->head;
    sim_xfer *X = &n->xf[x];
    sim_q_at(n->q, X->ev, now + C->tail);
    C->head = X->next;
    if (C->head < 0) {
        C->last = -1;
        deactivate(n, c);
        chan_release(n, c);
        return;
    }
    sim_xfer *Y = &n->xf[C->head];
    if (Y->ready <= now) {
        C->remaining = Y->wire;
        C->tset = now;
        C->bytes += Y->wire;
        C->payload += Y->payload;
        if (C->rate > 0)
            sim_q_at(n->q, C->ev, now + C->remaining / C->rate);
    } else {
        deactivate(n, c);
        sim_q_at(n->q, C->ev, Y->ready);
    }
}

void sim_net_xfer_event(sim_net *n, int32_t x)
{
    sim_xfer *X = &n->xf[x];
    if (X->phase == 0) {
        X->t_arrive = n->q->now;
        if (n->on_arrive)
            n->on_arrive(n->ctx, x);
        if (X->ack > 0) {
            X->phase = 1;
            sim_q_at(n->q, X->ev, n->q->now + X->ack);
            return;
        }
    }
    if (n->on_done)
        n->on_done(n->ctx, x);
    xfer_free(n, x);
}
