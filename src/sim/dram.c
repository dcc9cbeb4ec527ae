/* dram.c - DRAM banks: where they sit on the NoC, how tensors are spread
 * over them, and their bandwidth as resources of the network model.
 *
 * A bank is an endpoint at its NoC position (each NoC may use a different
 * endpoint of the same bank, dram_bank_noc1). Its read and its write
 * bandwidth are two resources shared max-min fairly by the transfers that
 * use the bank, like links; a read also waits dram_latency_cycles before
 * its first byte leaves the bank, and a write's acknowledgement waits
 * dram_write_latency_cycles. Reads and writes are separate resources: the
 * descriptions give one figure for each, measured alone.
 */
#include "sim/sim_int.h"

arch_xy sim_dram_pos(const arch_desc *a, int bank, int noc)
{
    LM_ASSERT(bank >= 0 && bank < a->num_dram_banks);
    if (noc == 1) {
        arch_xy p = a->dram_bank_noc1[bank];
        /* a description without NoC 1 endpoints uses the NoC 0 one */
        if (p.x != 0 || p.y != 0)
            return p;
    }
    return a->dram_bank_noc[bank];
}

int sim_dram_bank(const arch_desc *a, int first_bank, int64_t page)
{
    int64_t b = (page + first_bank) % a->num_dram_banks;
    return (int)(b < 0 ? b + a->num_dram_banks : b);
}

void sim_dram_add_resources(sim_net *n)
{
    const arch_desc *a = n->a;
    for (int b = 0; b < a->num_dram_banks; b++) {
        sim_res *r = &n->res[n->bank_rd0 + b], *w = &n->res[n->bank_wr0 + b];
        r->kind = SIM_R_BANK_RD;
        w->kind = SIM_R_BANK_WR;
        r->bank = w->bank = b;
        r->x = w->x = (int16_t)a->dram_bank_noc[b].x;
        r->y = w->y = (int16_t)a->dram_bank_noc[b].y;
        r->cap = a->dram_bank_read_bpc;
        w->cap = a->dram_bank_write_bpc;
    }
}
