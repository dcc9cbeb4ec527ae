/* pktref.c - a flit-level reference of the network, to check the fluid
 * model against (tests only; it steps every cycle, so small cases only).
 *
 * It shares nothing with the fluid model but the routes (sim_net_route),
 * the request/ack latencies and the wire-byte count, so that a disagreement
 * points at the rate model. Each channel (the same grouping as the fluid
 * model: one issuer, one route, transfers in order) is a virtual channel
 * with its own buffer at every stage of its route (just deep enough for
 * one flit per cycle across the stage's latency); a
 * stage's resource forwards one flit when it has the credit for it (a token
 * bucket filled at the resource's bytes/cycle), the flit is waiting, and
 * every next stage has buffer room (credit-based flow control, so a flow
 * stalled downstream stops taking bandwidth upstream). Each resource serves
 * its virtual channels round-robin, one flit at a time, as routers
 * interleave packets of different virtual channels (tt-isa-documentation:
 * NoC congestion). A multicast flit is forwarded to every branch at once.
 * A flit spends the stage's latency between stages, as in the fluid model.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ring size per stage; the credit limit of a stage is the smallest buffer
 * that still lets a flow run at one flit per cycle over the latency from
 * its parent (the credit round trip), as routers size their buffers. Deeper
 * buffers would let a source run ahead of its bottleneck into the network,
 * which the fluid model (no buffers) does not do. */
enum { BUF_FLITS = 64 };

typedef struct pflow {
    int32_t key[8];
    sim_stage *st;
    int nst;
    int *cstart, *clist;  /* children of each stage (CSR) */
    long *inq;            /* flits waiting at each stage */
    long *occ;            /* flits waiting or in flight into each stage */
    long *lim;            /* credit limit of each stage */
    double *pipe;         /* per stage ring of arrival times (BUF_FLITS) */
    int *ph, *pn;
    long rootsent;
    int *tx;              /* transfers in order */
    int ntx;
    long *cum;            /* cumulative flits through transfer j */
    double *ready;        /* ready time of transfer j (in order) */
    long *deliv;          /* per stage (leaves): flits delivered */
    int *nextj;           /* per stage (leaves): next transfer to complete */
    double tail_ack;      /* acknowledgement latency */
} pflow;

typedef struct pent {
    int f, s;
} pent;

typedef struct pres {
    pent *e;
    int n, cap, rr;
    double credit;
} pres;

static void add_ent(pres *r, int f, int s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 4;
        r->e = lm_xrealloc(r->e, (size_t)r->cap * sizeof *r->e);
    }
    r->e[r->n++] = (pent){f, s};
}

bool sim_pktref_run(const arch_desc *a, sim_pkt_xfer *xs, int n, double max_cycles)
{
    sim_queue q;
    sim_q_init(&q);
    sim_net net;
    sim_net_init(&net, a, &q, 1 << 16);
    double flit = a->link_bytes_per_cycle;

    /* group transfers into channels, in issue order */
    pflow *fl = lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *fl);
    int nfl = 0;
    int *order = lm_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    for (int i = 0; i < n; i++)
        order[i] = i;
    /* stable sort by issue time (insertion sort: n is small) */
    for (int i = 1; i < n; i++) {
        int v = order[i], j = i;
        while (j > 0 && xs[order[j - 1]].t_issue > xs[v].t_issue)
            order[j] = order[j - 1], j--;
        order[j] = v;
    }
    int *flow_of = lm_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *flow_of);
    for (int oi = 0; oi < n; oi++) {
        int i = order[oi];
        int32_t key[8];
        sim_net_key(&net, &xs[i].spec, key);
        int f = -1;
        for (int k = 0; k < nfl; k++)
            if (!memcmp(fl[k].key, key, sizeof key))
                f = k;
        if (f < 0) {
            f = nfl++;
            pflow *F = &fl[f];
            memcpy(F->key, key, sizeof key);
            int ns = sim_net_route(&net, &xs[i].spec);
            F->nst = ns;
            F->st = lm_xmalloc((size_t)ns * sizeof *F->st);
            memcpy(F->st, net.st, (size_t)ns * sizeof *F->st);
            F->cstart = lm_xcalloc((size_t)ns + 1, sizeof *F->cstart);
            F->clist = lm_xmalloc((size_t)(ns > 0 ? ns : 1) * sizeof *F->clist);
            for (int s = 0; s < ns; s++)
                if (F->st[s].parent >= 0)
                    F->cstart[F->st[s].parent + 1]++;
            for (int s = 0; s < ns; s++)
                F->cstart[s + 1] += F->cstart[s];
            int *fillp = lm_xcalloc((size_t)ns, sizeof *fillp);
            for (int s = 0; s < ns; s++)
                if (F->st[s].parent >= 0) {
                    int p = F->st[s].parent;
                    F->clist[F->cstart[p] + fillp[p]++] = s;
                }
            free(fillp);
            F->inq = lm_xcalloc((size_t)ns, sizeof *F->inq);
            F->occ = lm_xcalloc((size_t)ns, sizeof *F->occ);
            F->lim = lm_xcalloc((size_t)ns, sizeof *F->lim);
            for (int s = 1; s < ns; s++) {
                const sim_stage *p = &F->st[F->st[s].parent];
                double per_cycle = fmax(1.0, net.res[p->res].cap / flit);
                long l = (long)ceil((ceil(p->lat) + 2) * per_cycle);
                F->lim[s] = l < BUF_FLITS ? l : BUF_FLITS;
            }
            F->pipe = lm_xcalloc((size_t)ns * BUF_FLITS, sizeof *F->pipe);
            F->ph = lm_xcalloc((size_t)ns, sizeof *F->ph);
            F->pn = lm_xcalloc((size_t)ns, sizeof *F->pn);
            F->deliv = lm_xcalloc((size_t)ns, sizeof *F->deliv);
            F->nextj = lm_xcalloc((size_t)ns, sizeof *F->nextj);
            F->tx = lm_xmalloc((size_t)n * sizeof *F->tx);
            F->cum = lm_xmalloc((size_t)n * sizeof *F->cum);
            F->ready = lm_xmalloc((size_t)n * sizeof *F->ready);
            F->tail_ack = sim_net_ack(&net, &xs[i].spec);
        }
        pflow *F = &fl[f];
        flow_of[i] = f;
        const sim_xspec *s = &xs[i].spec;
        double payload = s->kind == SIM_X_SEM_INC || s->kind == SIM_X_SEM_MCAST ? 0 : s->payload;
        long flits = (long)ceil(sim_net_wire_bytes(a, payload) / flit - 1e-9);
        double ready = xs[i].t_issue + sim_net_req(&net, s);
        if (s->kind == SIM_X_MCAST || s->kind == SIM_X_SEM_MCAST)
            ready += a->mcast_setup_cycles;
        if (F->ntx > 0 && ready < F->ready[F->ntx - 1])
            ready = F->ready[F->ntx - 1];
        F->cum[F->ntx] = (F->ntx ? F->cum[F->ntx - 1] : 0) + flits;
        F->ready[F->ntx] = ready;
        F->tx[F->ntx++] = i;
        xs[i].t_arrive = 0;
    }

    /* resources and the (flow, stage) pairs they serve */
    pres *rs = lm_xcalloc((size_t)net.nres, sizeof *rs);
    for (int f = 0; f < nfl; f++)
        for (int s = 0; s < fl[f].nst; s++)
            add_ent(&rs[fl[f].st[s].res], f, s);

    int remaining = n;
    bool ok = true;
    double t = 0;
    for (int f = 0; f < nfl; f++)
        if (fl[f].ntx && (t == 0 || fl[f].ready[0] < t))
            t = floor(fl[f].ready[0]);
    for (; remaining > 0; t += 1) {
        if (t > max_cycles) {
            ok = false;
            break;
        }
        /* arrivals and source availability */
        for (int f = 0; f < nfl; f++) {
            pflow *F = &fl[f];
            long avail = 0;
            for (int j = 0; j < F->ntx && F->ready[j] <= t; j++)
                avail = F->cum[j];
            F->inq[0] = avail - F->rootsent;
            for (int s = 1; s < F->nst; s++) {
                double *ring = &F->pipe[(size_t)s * BUF_FLITS];
                while (F->pn[s] > 0 && ring[F->ph[s]] <= t) {
                    F->ph[s] = (F->ph[s] + 1) % BUF_FLITS;
                    F->pn[s]--;
                    F->inq[s]++;
                }
            }
        }
        /* every resource forwards what its credit allows, round-robin */
        for (int32_t r = 0; r < net.nres; r++) {
            pres *R = &rs[r];
            if (R->n == 0)
                continue;
            double cap = net.res[r].cap;
            R->credit += cap;
            for (;;) {
                if (R->credit < flit - 1e-9)
                    break;
                int pick = -1;
                for (int k = 0; k < R->n; k++) {
                    int idx = (R->rr + k) % R->n;
                    pflow *F = &fl[R->e[idx].f];
                    int s = R->e[idx].s;
                    if (F->inq[s] <= 0)
                        continue;
                    bool room = true;
                    for (int c = F->cstart[s]; c < F->cstart[s + 1]; c++)
                        if (F->occ[F->clist[c]] >= F->lim[F->clist[c]])
                            room = false;
                    if (room) {
                        pick = idx;
                        break;
                    }
                }
                if (pick < 0)
                    break;
                R->rr = (pick + 1) % R->n;
                R->credit -= flit;
                int f = R->e[pick].f, s = R->e[pick].s;
                pflow *F = &fl[f];
                F->inq[s]--;
                if (s == 0)
                    F->rootsent++;
                else
                    F->occ[s]--;
                double at = t + F->st[s].lat;
                for (int c = F->cstart[s]; c < F->cstart[s + 1]; c++) {
                    int ch = F->clist[c];
                    double *ring = &F->pipe[(size_t)ch * BUF_FLITS];
                    ring[(F->ph[ch] + F->pn[ch]) % BUF_FLITS] = at;
                    F->pn[ch]++;
                    F->occ[ch]++;
                }
                if (F->st[s].leaf) {
                    long d = ++F->deliv[s];
                    while (F->nextj[s] < F->ntx && d >= F->cum[F->nextj[s]]) {
                        int i = F->tx[F->nextj[s]++];
                        if (at > xs[i].t_arrive)
                            xs[i].t_arrive = at;
                    }
                }
            }
            /* an idle resource does not bank bandwidth */
            double burst = cap > flit ? cap : flit;
            if (R->credit > burst)
                R->credit = burst;
        }
        /* transfers complete when every leaf has all their flits */
        remaining = 0;
        for (int f = 0; f < nfl; f++) {
            pflow *F = &fl[f];
            for (int j = 0; j < F->ntx; j++) {
                bool all = true;
                for (int s = 0; s < F->nst; s++)
                    if (F->st[s].leaf && F->deliv[s] < F->cum[j])
                        all = false;
                if (!all)
                    remaining++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        xs[i].t_done = xs[i].t_arrive + fl[flow_of[i]].tail_ack;

    for (int f = 0; f < nfl; f++) {
        pflow *F = &fl[f];
        free(F->st), free(F->cstart), free(F->clist), free(F->inq), free(F->occ), free(F->lim);
        free(F->pipe), free(F->ph), free(F->pn), free(F->deliv), free(F->nextj);
        free(F->tx), free(F->cum), free(F->ready);
    }
    for (int32_t r = 0; r < net.nres; r++)
        free(rs[r].e);
    free(rs);
    free(fl);
    free(order);
    free(flow_of);
    sim_net_free(&net);
    sim_q_free(&q);
    return ok;
}

/* ---- the same transfers through the fluid model alone ------------------------ */

typedef struct fluid_ctx {
    sim_net *net;
    sim_pkt_xfer *xs;
    int *of_xfer; /* network transfer id -> index in xs */
} fluid_ctx;

static void fluid_arrive(void *ctx, int32_t x)
{
    fluid_ctx *c = ctx;
    c->xs[c->of_xfer[x]].t_arrive = c->net->q->now;
}

static void fluid_done(void *ctx, int32_t x)
{
    fluid_ctx *c = ctx;
    c->xs[c->of_xfer[x]].t_done = c->net->q->now;
}

/* Issue events carry the index of the transfer to issue. */
uint64_t sim_fluid_run(const arch_desc *a, sim_pkt_xfer *xs, int n, bool full)
{
    sim_queue q;
    sim_q_init(&q);
    sim_net net;
    sim_net_init(&net, a, &q, 1 << 16);
    net.full = full;
    fluid_ctx c = {&net, xs, lm_xcalloc((size_t)n * 4 + 16, sizeof(int))};
    net.ctx = &c;
    net.on_arrive = fluid_arrive;
    net.on_done = fluid_done;
    /* issue in time order; ties in index order */
    int32_t *iev = lm_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *iev);
    for (int i = 0; i < n; i++) {
        iev[i] = sim_q_new(&q, SIM_EV_ENGINE, i);
        sim_q_at(&q, iev[i], xs[i].t_issue);
    }
    for (;;) {
        if (net.dirty && (sim_q_empty(&q) || sim_q_next_time(&q) > q.now))
            sim_net_update(&net);
        int32_t e = sim_q_pop(&q);
        if (e < 0)
            break;
        sim_event *ev = &q.ev[e];
        switch (ev->kind) {
        case SIM_EV_ENGINE: {
            int i = ev->obj;
            int32_t x = sim_net_issue(&net, &xs[i].spec, q.now);
            LM_ASSERT(x < n * 4 + 16);
            c.of_xfer[x] = i;
            break;
        }
        case SIM_EV_CHAN:
            sim_net_chan_event(&net, ev->obj);
            break;
        case SIM_EV_XFER:
            sim_net_xfer_event(&net, ev->obj);
            break;
        }
    }
    uint64_t updates = net.recomputes;
    free(iev);
    free(c.of_xfer);
    sim_net_free(&net);
    sim_q_free(&q);
    return updates;
}
