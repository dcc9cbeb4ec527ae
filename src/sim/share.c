/* share.c - the fluid model's max-min fair shares (progressive filling),
 * recomputed only over the part of the network a change can reach.
 *
 * Why not all flows each time: a run with every core streaming tiles from
 * DRAM starts and ends a flow every few cycles while a hundred or more are
 * moving, and refilling all of them for each change made the fair shares
 * nearly all of a long simulation's time.
 *
 * What a change can reach: a resource is binding when the last filling over
 * it froze a flow at its level. The max-min shares of a set of flows depend
 * only on the flows joined to them through binding resources (a resource
 * that binds nobody limits nobody), so a pass refills the set K made of the
 * flows that started and, closed under "shares a binding resource", the
 * flows of every binding resource a flow that started or ended crossed.
 * Flows outside K keep their rates and take their share of the capacity of
 * the resources K crosses. If in the pass a resource that also carries
 * flows outside K binds, K was too small (the change made a resource
 * binding that was not): its flows join K and the pass starts again. K only
 * grows, so this ends; with `full` set K is every moving flow, which is the
 * plain progressive filling the tests compare with.
 *
 * The filled levels are those of a filling of all flows: a binding
 * resource's flows all lie in K, so its level comes from its capacity and
 * the same earlier freezes in the same order. Channels whose rate changed
 * are rescheduled in the order of the moving list, as a full pass would.
 */
#include "sim/sim_int.h"

#include <stdlib.h>

/* ---- the heap of levels ------------------------------------------------------- */

/* The heap holds the shared resources of K (two or more channel entries),
 * keyed on their level: capacity left divided by the channels still
 * unfrozen on them, as it was when last sifted (the key sits in the slot). A resource only one channel
 * crosses just caps that channel, so it enters as the channel's private cap
 * instead (the channel is an entry keyed on the smallest such cap, which
 * never changes): that keeps the heap to the contended resources. Freezing
 * a channel at the current minimum level can only raise the level of its
 * other resources (share <= rem/u implies (rem - share)/(u - 1) >= rem/u),
 * so keys only grow and are updated lazily: a resource that reaches the top
 * with a stale key is sifted down again, one left with no unfrozen channel
 * is dropped when it surfaces. Each freeze is then O(1) per resource. */
static inline bool wless(sim_wslot a, sim_wslot b)
{
    return a.key < b.key || (a.key == b.key && a.x < b.x);
}

static void wdown(sim_net *n, int32_t pos)
{
    sim_wslot *h = n->wheap;
    sim_wslot x = h[pos];
    for (;;) {
        int32_t c = 2 * pos + 1;
        if (c >= n->nwheap)
            break;
        if (c + 1 < n->nwheap && wless(h[c + 1], h[c]))
            c++;
        if (!wless(h[c], x))
            break;
        h[pos] = h[c];
        pos = c;
    }
    h[pos] = x;
}

static void wpop(sim_net *n)
{
    sim_wslot last = n->wheap[--n->nwheap];
    if (n->nwheap > 0) {
        n->wheap[0] = last;
        wdown(n, 0);
    }
}

/* ---- the set K ------------------------------------------------------------------- */

static void push_i32(int32_t **v, int32_t *nv, int32_t *cap, int32_t x)
{
    if (*nv == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *v = lm_xrealloc(*v, (size_t)*cap * sizeof **v);
    }
    (*v)[(*nv)++] = x;
}

void sim_share_started(sim_net *n, int32_t c)
{
    push_i32(&n->seed_ch, &n->nseed_ch, &n->capseed_ch, c);
}

void sim_share_ended(sim_net *n, int32_t r)
{
    if (n->res[r].bind)
        push_i32(&n->seed_res, &n->nseed_res, &n->capseed_res, r);
}

static void k_add(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    if (C->apos < 0 || C->kgen == n->kgen)
        return;
    C->kgen = n->kgen;
    push_i32(&n->kch, &n->nkch, &n->capkch, c);
}

/* Every flow of resource r joins K. */
static void k_add_flows(sim_net *n, int32_t r)
{
    sim_res *R = &n->res[r];
    if (R->xgen == n->kgen)
        return;
    R->xgen = n->kgen;
    for (int32_t i = 0; i < R->nfl; i++)
        k_add(n, R->fl[i].chan);
}

/* Close K under "shares a binding resource" and collect the resources its
 * flows cross. */
static void k_close(sim_net *n)
{
    for (; n->kdone < n->nkch; n->kdone++) {
        const sim_chan *C = &n->ch[n->kch[n->kdone]];
        for (int k = 0; k < C->nres; k++) {
            int32_t r = C->res[k];
            sim_res *R = &n->res[r];
            if (R->kgen != n->kgen) {
                R->kgen = n->kgen;
                n->kres[n->nkres++] = r;
            }
            if (R->bind)
                k_add_flows(n, r);
        }
    }
}

static void k_seed(sim_net *n)
{
    n->kgen++;
    n->nkch = n->nkres = n->kdone = 0;
    if (n->full) {
        for (int32_t i = 0; i < n->nactive; i++)
            k_add(n, n->active[i]);
    } else {
        for (int32_t i = 0; i < n->nseed_ch; i++)
            k_add(n, n->seed_ch[i]);
        for (int32_t i = 0; i < n->nseed_res; i++)
            k_add_flows(n, n->seed_res[i]);
    }
    n->nseed_ch = n->nseed_res = 0;
}

/* ---- progressive filling over K ------------------------------------------------------ */

static void freeze(sim_net *n, int32_t c, double share, uint32_t gen)
{
    sim_chan *C = &n->ch[c];
    C->wgen = gen;
    C->newrate = share;
    n->nfrozen++;
    for (int k = 0; k < C->nres; k++) {
        sim_res *R2 = &n->res[C->res[k]];
        R2->rem -= share;
        R2->unfrozen--;
    }
}

/* The heap of one pass: K's shared resources, at the capacity the flows
 * outside K leave them, and K's channels with a private cap. */
static void fill_start(sim_net *n)
{
    if (n->capwheap < n->nkres + n->nkch) {
        n->capwheap = 2 * (n->nkres + n->nkch);
        n->wheap = lm_xrealloc(n->wheap, (size_t)n->capwheap * sizeof *n->wheap);
    }
    n->nwheap = 0;
    for (int32_t i = 0; i < n->nkres; i++) {
        sim_res *R = &n->res[n->kres[i]];
        R->unfrozen = 0;
        R->bnew = false;
    }
    for (int32_t i = 0; i < n->nkch; i++) {
        int32_t c = n->kch[i];
        const sim_chan *C = &n->ch[c];
        double pcap = -1; /* its key in the heap */
        for (int k = 0; k < C->nres; k++) {
            sim_res *R = &n->res[C->res[k]];
            R->unfrozen++;
            if (R->nfl == 1 && (pcap < 0 || R->cap < pcap))
                pcap = R->cap;
        }
        if (pcap >= 0)
            n->wheap[n->nwheap++] = (sim_wslot){pcap, -c - 1};
    }
    for (int32_t i = 0; i < n->nkres; i++) {
        int32_t r = n->kres[i];
        sim_res *R = &n->res[r];
        R->rem = R->cap;
        R->nk = R->unfrozen;
        if (R->nk < R->nfl) /* the flows outside K keep their rates */
            for (int32_t j = 0; j < R->nfl; j++) {
                const sim_chan *C = &n->ch[R->fl[j].chan];
                if (C->kgen != n->kgen)
                    R->rem -= C->rate;
            }
        if (R->nfl >= 2)
            n->wheap[n->nwheap++] = (sim_wslot){R->rem / R->unfrozen, r};
    }
    for (int32_t i = n->nwheap / 2 - 1; i >= 0; i--)
        wdown(n, i);
}

/* One pass over K: every channel of K gets its rate in newrate. Returns -1,
 * or a resource that binds flows outside K (K must grow). */
static int32_t fill(sim_net *n)
{
    uint32_t gen = ++n->wgen;
    fill_start(n);
    n->nfrozen = 0;
    while (n->nwheap > 0 && n->nfrozen < n->nkch) {
        sim_wslot top = n->wheap[0];
        int32_t x = top.x;
        if (x < 0) {
            int32_t c = -x - 1;
            wpop(n);
            if (n->ch[c].wgen != gen) {
                double share = top.key; /* its private cap */
                freeze(n, c, share < 1e-9 ? 1e-9 : share, gen);
            }
            continue;
        }
        sim_res *R = &n->res[x];
        if (R->unfrozen <= 0) {
            wpop(n);
            continue;
        }
        double level = R->rem / R->unfrozen;
        if (level > top.key) {
            n->wheap[0].key = level; /* stale: it rose since it was sifted */
            wdown(n, 0);
            continue;
        }
        if (R->nk < R->nfl)
            return x;
        wpop(n);
        R->bnew = true;
        double share = level < 1e-9 ? 1e-9 : level; /* rounding must never stop a flow */
        for (int32_t i = 0; i < R->nfl; i++) {
            int32_t c = R->fl[i].chan;
            if (n->ch[c].wgen != gen)
                freeze(n, c, share, gen);
        }
    }
    /* a channel crossing no shared resource and no capped one cannot exist:
     * every route has an interface or a bank */
    return -1;
}

/* ---- a recomputation ---------------------------------------------------------------- */

/* Every moving channel's remaining bytes, at its rate since the last pass. */
static void advance(sim_net *n, double now)
{
    for (int32_t i = 0; i < n->nactive; i++) {
        sim_chan *C = &n->ch[n->active[i]];
        C->remaining -= C->rate * (now - C->tset);
        if (C->remaining < 0)
            C->remaining = 0;
        C->tset = now;
    }
}

/* The new rates take effect, channel by channel in the order of the moving
 * list (the order of their events' sequence numbers). */
static void apply(sim_net *n, double now)
{
    int32_t nc = 0;
    for (int32_t i = 0; i < n->nkch; i++) {
        const sim_chan *C = &n->ch[n->kch[i]];
        if (C->newrate != C->rate)
            n->kch[nc++] = n->kch[i];
    }
    /* insertion sort of the changed ones on their place in the list: few */
    for (int32_t i = 1; i < nc; i++) {
        int32_t c = n->kch[i], j = i, pos = n->ch[c].apos;
        while (j > 0 && n->ch[n->kch[j - 1]].apos > pos) {
            n->kch[j] = n->kch[j - 1];
            j--;
        }
        n->kch[j] = c;
    }
    for (int32_t i = 0; i < nc; i++) {
        sim_chan *C = &n->ch[n->kch[i]];
        C->rate = C->newrate;
        sim_q_at(n->q, C->ev, now + C->remaining / C->rate);
    }
    for (int32_t i = 0; i < n->nkres; i++) {
        sim_res *R = &n->res[n->kres[i]];
        R->bind = R->bnew;
    }
}

static void report_loads(sim_net *n)
{
    for (int32_t i = 0; i < n->nares; i++) {
        int32_t r = n->ares[i];
        sim_res *R = &n->res[r];
        double load = 0;
        for (int32_t j = 0; j < R->nfl; j++)
            load += n->ch[R->fl[j].chan].rate;
        if (load != R->load) {
            R->load = load;
            n->on_load(n->ctx, r, load);
        }
    }
}

void sim_net_update(sim_net *n)
{
    if (!n->dirty)
        return;
    n->dirty = false;
    n->recomputes++;
    double now = n->q->now;
    advance(n, now);
    if (!n->kres)
        n->kres = lm_xmalloc((size_t)n->nres * sizeof *n->kres);
    k_seed(n);
    for (;;) {
        k_close(n);
        int32_t r = fill(n);
        if (r < 0)
            break;
        k_add_flows(n, r);
    }
    apply(n, now);
    if (n->on_load)
        report_loads(n);
}
