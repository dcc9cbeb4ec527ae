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
 *
 * Which resources a pass fills: of the hundred or more shared resources K
 * crosses, a handful bind. A pass fills only the watched ones (those that
 * bound in the last pass over them, or were nearly full) and checks that
 * the rates it gives leave every other one below its capacity; a pass
 * that fails the check watches the resources it should not have left out
 * and fills again. A resource left out that way could never have been
 * picked, so the rates are those of a filling of all of them, to the last
 * bit (below). Each channel keeps the positions of its route a pass looks
 * at, so that closing K and freezing pass over the links no pass fills.
 *
 * Why not a smaller K (closed only through the binding resources of flows
 * whose rate changed, grown pass by pass): in the attention runs of
 * docs/simulator.md a change moves rates across most of the binding part of
 * the network, so that K still reached about 64 flows (this one: about
 * 70), after about 6 passes per recomputation instead of 1.1 - slower,
 * and rounded differently.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>

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

void sim_share_ended(sim_net *n, int32_t r, double rate)
{
    sim_res *R = &n->res[r];
    R->flow -= rate;
    if (R->bind)
        push_i32(&n->seed_res, &n->nseed_res, &n->capseed_res, r);
}

static void k_add(sim_net *n, int32_t c)
{
    sim_chan *C = &n->ch[c];
    if (C->apos < 0 || C->kgen == n->kgen)
        return;
    C->kgen = n->kgen;
    int32_t cap = n->capkch;
    push_i32(&n->kch, &n->nkch, &n->capkch, c);
    if (n->capkch != cap) {
        n->kpcap = lm_xrealloc(n->kpcap, (size_t)n->capkch * sizeof *n->kpcap);
        n->kchg = lm_xrealloc(n->kchg, (size_t)n->capkch * sizeof *n->kchg);
    }
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

/* ---- the resources a pass looks at ---------------------------------------------- */

/* A pass looks only at the resources of a route that are watched (the
 * candidates among them) or that the channel alone crosses (its private
 * cap): each channel keeps the positions of those in its route, below 64,
 * as bits of `look`, updated as resources are watched or released and as
 * channels join and leave them. Positions from 64 on are tested as they
 * come; a full pass looks at every resource. */
static inline bool looked(const sim_res *R)
{
    return R->watch || R->nfl == 1;
}

static void look_mark(sim_net *n, sim_fref f, bool on)
{
    if (f.k < 64) {
        uint64_t bit = (uint64_t)1 << f.k;
        sim_chan *C = &n->ch[f.chan];
        C->look = on ? C->look | bit : C->look & ~bit;
    }
}

static void watch_set(sim_net *n, sim_res *R, bool on)
{
    if (R->watch == on)
        return;
    R->watch = on;
    bool keep = on || R->nfl == 1;
    for (int32_t j = 0; j < R->nfl; j++)
        look_mark(n, R->fl[j], keep);
}

void sim_share_joined(sim_net *n, int32_t c, int k)
{
    sim_res *R = &n->res[n->ch[c].res[k]];
    if (k == 0)
        n->ch[c].look = 0;
    look_mark(n, (sim_fref){c, k}, looked(R));
    /* a resource's flow is kept while two or more channels cross it */
    if (R->nfl == 2) {
        R->flow = n->ch[R->fl[0].chan].rate;
        if (!R->watch)
            look_mark(n, R->fl[0], false);
    }
}

void sim_share_left(sim_net *n, int32_t r)
{
    sim_res *R = &n->res[r];
    if (R->nfl == 1)
        look_mark(n, R->fl[0], true);
    else if (R->nfl == 0)
        R->watch = false; /* an idle resource starts afresh */
}

/* Visit position k of channel C's route in k_close: join its resource to
 * K's, count the channel on it, lower the private cap, follow a binding
 * resource. */
static inline void k_visit(sim_net *n, const sim_chan *C, int k, double *pcap)
{
    const uint32_t kgen = n->kgen;
    int32_t r = C->res[k];
    sim_res *R = &n->res[r];
    if (R->kgen != kgen) {
        R->kgen = kgen;
        R->nk = 0;
        n->kres[n->nkres++] = r;
    }
    R->nk++;
    if (R->nfl == 1 && (*pcap < 0 || R->cap < *pcap))
        *pcap = R->cap;
    if (R->bind && R->xgen != kgen)
        k_add_flows(n, r);
}

/* Close K under "shares a binding resource" and collect the resources its
 * flows cross that the pass looks at, counting on each the channels of K
 * (nk) and noting each channel's private cap: the smallest capacity of a
 * resource it alone crosses (-1 when none). */
static void k_close(sim_net *n)
{
    for (; n->kdone < n->nkch; n->kdone++) {
        const sim_chan *C = &n->ch[n->kch[n->kdone]];
        double pcap = -1;
        if (n->full) {
            for (int k = 0; k < C->nres; k++)
                k_visit(n, C, k, &pcap);
        } else {
            for (uint64_t m = C->look; m; m &= m - 1)
                k_visit(n, C, __builtin_ctzll(m), &pcap);
            for (int k = 64; k < C->nres; k++)
                if (looked(&n->res[C->res[k]]))
                    k_visit(n, C, k, &pcap);
        }
        n->kpcap[n->kdone] = pcap;
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

/* The candidates of a pass are K's watched shared resources (two or more
 * channel entries; see "the resources left out" below for the others), at
 * the capacity the flows outside K leave them, and K's
 * channels with a private cap (a resource only one channel crosses just
 * caps that channel, so it enters as the channel, keyed on the smallest
 * such cap). Each step freezes the candidate of the lowest level: a
 * resource's flows at its level, or a channel at its cap.
 *
 * Which candidate is lowest follows a key per candidate, not the level
 * alone, so that ties and rounding resolve in one fixed way: a resource's
 * key starts at its level and is raised to its level whenever the
 * candidate is looked at and found below it - looked at meaning it orders
 * before the one picked, by (key, id). The pick is the least (max(key,
 * level), id). Mathematically the levels only grow (freezing a channel at
 * the lowest level can only raise the level of its other resources: share
 * <= rem/u implies (rem - share)/(u - 1) >= rem/u), so the key is the level
 * up to rounding; this is the order of a heap keyed lazily on levels, the
 * form the fill had before, kept so that the simulated times stay the same
 * to the last bit. A scan finds the pick: a handful of resources bind per
 * pass, and those with no unfrozen channel left leave the list. */

/* A channel frozen at `share` takes it from a resource it crosses (only the
 * candidates' remainders are read). */
static inline void take(sim_res *R, double share)
{
    R->rem -= share;
    R->unfrozen--;
}

static void freeze(sim_net *n, int32_t c, double share, uint32_t gen)
{
    sim_chan *C = &n->ch[c];
    C->wgen = gen;
    C->newrate = share;
    n->nfrozen++;
    if (share != C->rate)
        n->kchg[n->nkchg++] = c;
    const int32_t *route = C->res;
    sim_res *res = n->res;
    if (n->full) {
        for (int k = 0, nres = C->nres; k < nres; k++)
            take(&res[route[k]], share);
        return;
    }
    for (uint64_t m = C->look; m; m &= m - 1)
        take(&res[route[__builtin_ctzll(m)]], share);
    for (int k = 64; k < C->nres; k++)
        take(&res[route[k]], share);
}

/* The capacity of R that the flows outside K leave, subtracting their
 * rates in the order of R's list. */
static double left_by_others(const sim_net *n, const sim_res *R)
{
    double rem = R->cap;
    if (R->nk < R->nfl)
        for (int32_t j = 0; j < R->nfl; j++) {
            const sim_chan *C = &n->ch[R->fl[j].chan];
            if (C->kgen != n->kgen)
                rem -= C->rate;
        }
    return rem;
}

/* A candidate enters the low part if its key is at most the cut. */
static void cand_add(sim_net *n, double key, int32_t x)
{
    sim_wslot w = {key, -HUGE_VAL, x};
    if (key <= n->wcut)
        n->wcand[n->nwlow++] = w;
    else
        n->wcand[--n->whi] = w;
}

static void fill_start(sim_net *n, uint32_t gen)
{
    if (n->capwcand < n->nkres + n->nkch) {
        n->capwcand = 2 * (n->nkres + n->nkch);
        n->wcand = lm_xrealloc(n->wcand, (size_t)n->capwcand * sizeof *n->wcand);
    }
    n->nwlow = 0;
    n->whi = n->wend = n->capwcand;
    n->wcut = n->wlast > 0 ? n->wlast : HUGE_VAL;
    for (int32_t i = 0; i < n->nkres; i++) {
        int32_t r = n->kres[i];
        sim_res *R = &n->res[r];
        R->unfrozen = R->nk;
        R->bnew = false;
        if (R->nfl >= 2 && (R->watch || n->full)) {
            R->cgen = gen;
            R->rem = left_by_others(n, R);
            cand_add(n, R->rem / R->unfrozen, r);
        }
    }
    for (int32_t i = 0; i < n->nkch; i++)
        if (n->kpcap[i] >= 0)
            cand_add(n, n->kpcap[i], -n->kch[i] - 1);
}

static inline bool lex_less(double a, int32_t xa, double b, int32_t xb)
{
    return a < b || (a == b && xa < xb);
}

/* Raise the cut (to at least `above` when given) and move the candidates
 * it now covers into the low part. */
static void raise_cut(sim_net *n, bool given, double above)
{
    double cut = 2 * n->wcut;
    if (given && above > cut)
        cut = above;
    if (!(cut > n->wcut))
        cut = HUGE_VAL;
    n->wcut = cut;
    for (int32_t i = n->whi; i < n->wend; i++)
        if (n->wcand[i].key <= cut) {
            n->wcand[n->nwlow++] = n->wcand[i];
            n->wcand[i] = n->wcand[n->whi++];
        }
}

/* The index of the pick among the candidates (-1 when none is left), its
 * level in *level. (pk, px) is the previous pick: the candidates that
 * ordered before it take the level they had then as their key. Candidates
 * without an unfrozen channel leave the list. Only the low part is looked
 * at while its best orders before every key above the cut. */
static int32_t pick(sim_net *n, uint32_t gen, double pk, int32_t px, double *level)
{
    int32_t best = -1;
    double be = HUGE_VAL;
    int32_t bx = INT32_MAX;
    const sim_res *res = n->res;
    const sim_chan *ch = n->ch;
    for (int32_t i = 0;;) {
        sim_wslot *cand = n->wcand;
        int32_t nlow = n->nwlow;
        while (i < nlow) {
            sim_wslot *w = &cand[i];
            if (w->lv > w->key && lex_less(w->key, w->x, pk, px))
                w->key = w->lv;
            int32_t x = w->x;
            bool gone = x < 0 ? ch[-x - 1].wgen == gen : res[x].unfrozen <= 0;
            if (gone) {
                *w = cand[--nlow];
                continue;
            }
            i++;
            if (lex_less(be, bx, w->key, x)) {
                w->lv = -HUGE_VAL; /* not looked at: orders after the pick */
                continue;
            }
            w->lv = x < 0 ? w->key : res[x].rem / res[x].unfrozen;
            double eff = w->lv > w->key ? w->lv : w->key;
            if (best < 0 || lex_less(eff, x, be, bx)) {
                best = i - 1;
                be = eff;
                bx = x;
            }
        }
        n->nwlow = nlow;
        if ((best >= 0 && be <= n->wcut) || n->whi == n->wend)
            break;
        raise_cut(n, best >= 0, be);
    }
    if (best >= 0)
        *level = n->wcand[best].lv;
    return best;
}

/* One pass over K: every channel of K gets its rate in newrate. Returns -1,
 * or a resource that binds flows outside K (K must grow). */
static int32_t fill(sim_net *n)
{
    uint32_t gen = ++n->wgen;
    fill_start(n, gen);
    n->nfrozen = n->nkchg = 0;
    double pk = -HUGE_VAL;
    int32_t px = 0;
    while (n->nfrozen < n->nkch) {
        double level;
        int32_t i = pick(n, gen, pk, px, &level);
        if (i < 0)
            break;
        sim_wslot w = n->wcand[i];
        pk = w.lv > w.key ? w.lv : w.key;
        px = w.x;
        double share = level < 1e-9 ? 1e-9 : level; /* rounding must never stop a flow */
        if (w.x < 0) {
            n->wcand[i] = n->wcand[--n->nwlow];
            freeze(n, -w.x - 1, share, gen);
            continue;
        }
        sim_res *R = &n->res[w.x];
        if (R->nk < R->nfl)
            return w.x;
        n->wcand[i] = n->wcand[--n->nwlow];
        R->bnew = true;
        for (int32_t j = 0; j < R->nfl; j++) {
            int32_t c = R->fl[j].chan;
            if (n->ch[c].wgen != gen)
                freeze(n, c, share, gen);
        }
    }
    /* a channel crossing no shared resource and no capped one cannot exist:
     * every route has an interface or a bank */
    n->wlast = pk;
    return -1;
}

/* ---- the resources left out --------------------------------------------------------- */

/* A pass leaves out the shared resources that are not watched; it stands
 * if none of them would have been picked by a pass over all of them. One
 * that is not picked at a step of level L has level rem/u > L there, and
 * its u unfrozen channels end at L or above: so if the rates the pass
 * gives keep its flow below its capacity, it is never picked (and its flow
 * is below capacity by the slack, so rounding cannot pick it either).
 * Picks and keys depend only on the candidates picked, so the pass then
 * gives the same rates to the last bit as one over all of them.
 *
 * Only flows that rise need looking at: a resource left out is not
 * watched, so its flow was below capacity by the slack before. A channel
 * of K no candidate froze crossed only resources left out: they are
 * watched from now on. Returns whether the pass stands; when not, the
 * resources it should not have left out are watched. */
enum { SHARE_SLACK_INV = 10000000 }; /* the slack: 1e-7 of the capacity */

static bool nearly_full(const sim_res *R, double flow, double slack)
{
    return flow > R->cap * (1 - slack / SHARE_SLACK_INV);
}

/* The flow of R at the rates of the pass, summed afresh. */
static double flow_after(const sim_net *n, const sim_res *R)
{
    double f = 0;
    for (int32_t j = 0; j < R->nfl; j++) {
        const sim_chan *C = &n->ch[R->fl[j].chan];
        f += C->kgen == n->kgen ? C->newrate : C->rate;
    }
    return f;
}

/* Watch a resource left out; the next pass looks at it over K. */
static void watch_left_out(sim_net *n, sim_res *R, int32_t r)
{
    watch_set(n, R, true);
    if (R->kgen == n->kgen)
        return;
    R->kgen = n->kgen;
    R->nk = 0;
    for (int32_t j = 0; j < R->nfl; j++)
        R->nk += n->ch[R->fl[j].chan].kgen == n->kgen;
    n->kres[n->nkres++] = r;
}

/* The channels of K no candidate froze make every resource left out on
 * their routes watched. Whether there were none. */
static bool all_frozen(sim_net *n, uint32_t gen)
{
    bool all = true;
    for (int32_t i = 0; n->nfrozen < n->nkch && i < n->nkch; i++) {
        const sim_chan *C = &n->ch[n->kch[i]];
        if (C->wgen == gen)
            continue;
        for (int k = 0; k < C->nres; k++) {
            sim_res *R = &n->res[C->res[k]];
            if (R->nfl >= 2 && R->cgen != gen) {
                watch_left_out(n, R, C->res[k]);
                all = false;
            }
        }
    }
    return all;
}

/* Each resource left out that a rising rate crosses, into n->rise, with
 * the sum of the rises over it in dflow. Their count. */
static int32_t rises(sim_net *n, uint32_t gen)
{
    uint32_t dgen = ++n->dgen;
    int32_t nrise = 0;
    for (int32_t i = 0; i < n->nkchg; i++) {
        const sim_chan *C = &n->ch[n->kchg[i]];
        double d = C->newrate - C->rate;
        if (!(d > 0))
            continue;
        for (int k = 0; k < C->nres; k++) {
            sim_res *R = &n->res[C->res[k]];
            if (R->nfl < 2 || R->cgen == gen)
                continue;
            if (R->dgen != dgen) {
                R->dgen = dgen;
                R->dflow = 0;
                n->rise[nrise++] = C->res[k];
            }
            R->dflow += d;
        }
    }
    return nrise;
}

static bool left_out_hold(sim_net *n, uint32_t gen)
{
    if (!all_frozen(n, gen))
        return false;
    bool hold = true;
    int32_t nrise = rises(n, gen);
    for (int32_t i = 0; i < nrise; i++) {
        sim_res *R = &n->res[n->rise[i]];
        R->dflow += R->flow; /* the bound after the pass, then the flow itself if near */
        if (nearly_full(R, R->dflow, 1)) {
            R->dflow = flow_after(n, R);
            if (nearly_full(R, R->dflow, 1)) {
                watch_left_out(n, R, n->rise[i]);
                hold = false;
            }
        }
    }
    if (hold)
        for (int32_t i = 0; i < nrise; i++) {
            sim_res *R = &n->res[n->rise[i]];
            R->flow = R->dflow;
        }
    return hold;
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
    /* insertion sort of the changed ones (frozen at a new rate in the
     * last filling) on their place in the list: few */
    int32_t nc = n->nkchg, *chg = n->kchg;
    for (int32_t i = 1; i < nc; i++) {
        int32_t c = chg[i], j = i, pos = n->ch[c].apos;
        while (j > 0 && n->ch[chg[j - 1]].apos > pos) {
            chg[j] = chg[j - 1];
            j--;
        }
        chg[j] = c;
    }
    for (int32_t i = 0; i < nc; i++) {
        sim_chan *C = &n->ch[chg[i]];
        C->rate = C->newrate;
        sim_q_at(n->q, C->ev, now + C->remaining / C->rate);
    }
    /* a candidate's flow is now what its filling gave out; it stays
     * watched while it binds or is nearly full (by twice the slack, so
     * that rounding never hides a full one) */
    uint32_t gen = n->wgen;
    for (int32_t i = 0; i < n->nkres; i++) {
        sim_res *R = &n->res[n->kres[i]];
        R->bind = R->bnew;
        if (R->cgen == gen) {
            R->flow = R->cap - R->rem;
            watch_set(n, R, R->bnew || nearly_full(R, R->flow, 2));
        }
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
    if (!n->kres) {
        n->kres = lm_xmalloc((size_t)n->nres * sizeof *n->kres);
        n->rise = lm_xmalloc((size_t)n->nres * sizeof *n->rise);
    }
    k_seed(n);
    for (;;) {
        k_close(n);
        int32_t r = fill(n);
        if (r >= 0)
            k_add_flows(n, r);
        else if (n->full || left_out_hold(n, n->wgen))
            break;
    }
    apply(n, now);
    if (n->on_load)
        report_loads(n);
}
