/* routes.c - where the NoC's traffic goes, computed from a description's
 * core and DRAM bank positions and the NoCs' directions, for the latency
 * model (model.c): the busiest link when DRAM reads reach a line of cores,
 * when a fused producer's row sends its partial results, and along a
 * forwarding chain. Pure functions of the description (routes follow NoC 0
 * +x then +y, NoC 1 -y then -x, around the torus when the description
 * says so).
 */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

/* Loads on the NoC's links from DRAM reads, computed from the description:
 * a read's data goes bank -> core along the NoC's first dimension, then
 * along its second (NoC 0: +x then +y, NoC 1: -y then -x; around the torus
 * when the description says so, else toward the target). Every bank holds
 * an equal share of each block (pages interleave over the banks).
 *  - second leg: k cores that share one line of it (the first k core rows of
 *    a column on NoC 0, the first k columns of a row on NoC 1) take their
 *    data through that line's links, entering where the banks' first legs
 *    end; S(k) is the busiest such link's load, in thousandths of one core's
 *    block;
 *  - first leg: when every core reads, the links out of the banks along
 *    their row (NoC 0) or column (NoC 1) carry the banks' shares for every
 *    core column (row) they pass; P(k) is the busiest link's load for k core
 *    columns (rows), in thousandths of one core's block, per core of a column. */
static void ring_add(int *load, int n, int from, int to, int dir, bool torus)
{
    if (!torus)
        dir = to >= from ? 1 : -1;
    for (int p = from, guard = 0; p != to && guard < n; guard++) {
        load[p]++;
        p = (p + dir + n) % n;
    }
}

/* Hops from `from` to `to` on a ring of n routers going `dir` (around the
 * torus), or straight toward it when the description has none. */
static int ring_dist(int n, int from, int to, int dir, bool torus)
{
    if (!torus)
        return abs(to - from);
    return (((to - from) * dir) % n + n) % n;
}

/* A round trip between a core and a bank goes out and back on the same NoC
 * (NoC 0 +x then +y, NoC 1 -y then -x): around a torus each NoC runs one
 * way round its rings, so along an axis where the two positions differ the
 * two legs add up to the ring's whole length. Averaged over every core of
 * the grid and every bank (a block's pages interleave over the banks). */
int64_t sched_dram_trip_hops(const arch_desc *a, int noc)
{
    int dir = noc == 0 ? 1 : -1;
    int64_t sum = 0, n = 0;
    for (int b = 0; b < a->num_dram_banks; b++) {
        arch_xy bk = noc == 1 && (a->dram_bank_noc1[b].x || a->dram_bank_noc1[b].y) ? a->dram_bank_noc1[b]
                                                                                   : a->dram_bank_noc[b];
        for (int y = 0; y < a->grid_h; y++)
            for (int x = 0; x < a->grid_w; x++, n++) {
                int cx = a->core_noc_x[x], cy = a->core_noc_y[y];
                sum += ring_dist(a->noc_w, cx, bk.x, dir, a->noc_torus) + ring_dist(a->noc_w, bk.x, cx, dir, a->noc_torus) +
                       ring_dist(a->noc_h, cy, bk.y, dir, a->noc_torus) + ring_dist(a->noc_h, bk.y, cy, dir, a->noc_torus);
            }
    }
    return n ? (sum * 1000 + n / 2) / n : 0;
}

int64_t sched_leg_load(const arch_desc *a, int noc, bool second, int k)
{
    int nx = a->noc_w, ny = a->noc_h, n = LM_MAX(nx, ny);
    int *buf = lm_xcalloc((size_t)n * (size_t)n, sizeof *buf);
    int most = 0;
    for (int b = 0; b < a->num_dram_banks; b++) {
        arch_xy bk = noc == 0 ? a->dram_bank_noc[b] : a->dram_bank_noc1[b];
        for (int j = 0; j < k; j++) {
            if (noc == 0 && second) /* +y along the core's column, entering at the bank's row */
                ring_add(buf, ny, bk.y, a->core_noc_y[j], 1, a->noc_torus);
            else if (noc == 1 && second) /* -x along the core's row, entering at the bank's column */
                ring_add(buf, nx, bk.x, a->core_noc_x[j], -1, a->noc_torus);
            else if (noc == 0) /* +x along the bank's row to core column j */
                ring_add(buf + (size_t)bk.y * (size_t)n, nx, bk.x, a->core_noc_x[j], 1, a->noc_torus);
            else /* -y along the bank's column to core row j */
                ring_add(buf + (size_t)bk.x * (size_t)n, ny, bk.y, a->core_noc_y[j], -1, a->noc_torus);
        }
    }
    for (int i = 0; i < n * n; i++)
        most = LM_MAX(most, buf[i]);
    free(buf);
    return a->num_dram_banks ? (int64_t)most * 1000 / a->num_dram_banks : 1000;
}

/* Sends of a fused producer's row (column) of g cores, each sending one
 * block to each of the q consumer programs of its group, dealt to the row's
 * cores 0, 1, ... (mod g): the busiest link's load in blocks, from the
 * description's core positions and the NoC's direction (as leg_load: NoC 0
 * +x / +y, NoC 1 -x / -y, around the torus when the description says so). */
int64_t sched_send_load(const arch_desc *a, int noc, bool along_x, int g, int64_t q)
{
    int n = along_x ? a->noc_w : a->noc_h;
    int *buf = lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *buf);
    for (int p = 0; p < g; p++)
        for (int64_t i = 0; i < q; i++) {
            int d = (int)(i % g);
            if (d != p)
                ring_add(buf, n, along_x ? a->core_noc_x[p] : a->core_noc_y[p],
                         along_x ? a->core_noc_x[d] : a->core_noc_y[d], noc == 0 ? 1 : -1, a->noc_torus);
        }
    int64_t most = 0;
    for (int i = 0; i < n; i++)
        most = LM_MAX(most, buf[i]);
    free(buf);
    return most;
}

/* A forwarding chain of j cores along a row (column) of the description on
 * NoC `noc`, core p sending to core p + 1 (as the lowering chains them):
 * for each j = 0..n, the busiest link's load when all the chain's sends run
 * at once (in thousandths of one block, for link_time), the longest send's
 * route and the longest way back (the ready semaphore, p + 1 to p), in hops,
 * each a running maximum. Routes follow the NoC's direction (NoC 0 +x / +y,
 * NoC 1 -x / -y, around the torus when the description says so), so a chain
 * that runs against its NoC's direction goes around the ring on every step
 * and its sends share most of its links. */
void sched_chain_route(const arch_desc *a, int noc, bool along_x, int n, int64_t *load, int64_t *fwd,
                        int64_t *back)
{
    int w = along_x ? a->noc_w : a->noc_h, dir = noc == 0 ? 1 : -1;
    const int *pos = along_x ? a->core_noc_x : a->core_noc_y;
    int *links = lm_xcalloc((size_t)(w > 0 ? w : 1), sizeof *links);
    int *one = lm_xcalloc((size_t)(w > 0 ? w : 1), sizeof *one);
    load[0] = fwd[0] = back[0] = 0;
    for (int j = 1; j <= n; j++) {
        load[j] = load[j - 1], fwd[j] = fwd[j - 1], back[j] = back[j - 1];
        if (j < 2)
            continue;
        int from = pos[j - 2], to = pos[j - 1];
        int64_t hops = 0, ret = 0;
        memset(one, 0, sizeof *one * (size_t)w);
        ring_add(one, w, from, to, dir, a->noc_torus);
        for (int i = 0; i < w; i++)
            hops += one[i], links[i] += one[i];
        memset(one, 0, sizeof *one * (size_t)w);
        ring_add(one, w, to, from, dir, a->noc_torus);
        for (int i = 0; i < w; i++)
            ret += one[i];
        for (int i = 0; i < w; i++)
            load[j] = LM_MAX(load[j], (int64_t)links[i] * 1000);
        fwd[j] = LM_MAX(fwd[j], hops);
        back[j] = LM_MAX(back[j], ret);
    }
    free(one);
    free(links);
}

