/* test_sim_common.h - a small chip described by hand for the simulator's
 * first-principles tests, so that they depend on no YAML file: every
 * expected figure in the tests is derived from the fields set here.
 *
 * The toy chip: a 6x6 NoC torus (both NoCs), a 4x4 compute grid at NoC
 * positions x, y in 1..4, four DRAM banks in column 0 (rows 1..4) and one
 * in column 5. Bandwidths are chosen so that each kind of resource can be
 * made the bottleneck: links 32 B/cycle, a core's interface 64 B/cycle,
 * banks 24 B/cycle, multicast 16 B/cycle.
 */
#ifndef TEST_SIM_COMMON_H
#define TEST_SIM_COMMON_H

#include <math.h>
#include <string.h>

#include "arch/arch.h"

static inline void toy_arch(arch_desc *a)
{
    memset(a, 0, sizeof *a);
    a->name = "toy";
    a->file = "toy";
    a->clock_ghz = 1.0;
    a->grid_w = 4;
    a->grid_h = 4;
    a->noc_w = 6;
    a->noc_h = 6;
    for (int i = 0; i < 4; i++) {
        a->core_noc_x[i] = 1 + i;
        a->core_noc_y[i] = 1 + i;
    }
    a->l1_bytes = 1 << 20;
    a->l1_reserved_bytes = 0;
    a->tile_h = a->tile_w = 32;
    a->tile_bytes[ARCH_BF16] = 2048;
    a->tile_bytes[ARCH_FP32] = 4096;
    a->tile_bytes[ARCH_BFP8_B] = 1088;
    a->tile_bytes[ARCH_BFP4_B] = 576;
    a->dst_tiles_half_16b = 8;
    a->dst_tiles_half_32b = 4;
    a->num_cbs = 32;
    a->num_nocs = 2;
    a->noc_torus = true;
    a->link_bytes_per_cycle = 32;
    a->max_packet_bytes = 8192;
    a->header_flits = 1;
    a->max_transaction_ids = 15;
    a->mcast_rect = true;
    a->dram_alignment = 32;
    a->num_dram_banks = 5;
    for (int b = 0; b < 4; b++)
        a->dram_bank_noc[b] = a->dram_bank_noc1[b] = (arch_xy){0, 1 + b};
    a->dram_bank_noc[4] = a->dram_bank_noc1[4] = (arch_xy){5, 2};
    a->dram_bank_bytes = 1 << 30;
    a->fpu_flops_per_cycle = 4096;
    a->dram_bank_read_bpc = 24;
    a->dram_bank_write_bpc = 24;
    a->dram_latency_cycles = 400;
    a->dram_write_latency_cycles = 300;
    a->core_read_bpc = 64;
    a->core_write_bpc = 64;
    a->noc_hop_cycles = 9;
    a->noc_inject_cycles = 5;
    a->noc_eject_cycles = 5;
    a->noc_cmd_cycles = 20;
    a->mcast_setup_cycles = 50;
    a->mcast_bpc = 16;
    a->matmul_tile_cycles[ARCH_LOFI] = 16;
    a->matmul_tile_cycles[ARCH_HIFI2] = 32;
    a->matmul_tile_cycles[ARCH_HIFI3] = 48;
    a->matmul_tile_cycles[ARCH_HIFI4] = 64;
    a->matmul_rows_granule = 8;
    a->eltwise_tile_cycles = 8;
    a->sfpu_exp_tile_cycles = 256;
    a->sfpu_exp_exact_tile_cycles = 768;
    a->sfpu_recip_tile_cycles = 512;
    a->sfpu_sqrt_tile_cycles = 896;
    a->sfpu_rsqrt_tile_cycles = 1024;
    a->sfpu_sigmoid_tile_cycles = 1355;
    a->reduce_tile_cycles = 32;
    a->bcast_tile_cycles = 8;
    a->unpack_bpc = 64;
    a->pack_bpc = 64;
    a->kernel_launch_cycles = 1000;
    a->cb_handshake_cycles = 30;
    a->sem_cycles = 10;
    a->barrier_cycles = 10;
    a->dst_handoff_cycles = 16;
    a->op_init_cycles = 0; /* the tests of op inits set their own */
}

/* Wire bytes of one transfer: payload plus one header flit per packet. */
static inline double toy_wire(const arch_desc *a, double payload)
{
    double packets = ceil(payload / (double)a->max_packet_bytes);
    if (packets < 1)
        packets = 1;
    return payload + packets * a->header_flits * a->link_bytes_per_cycle;
}

/* Latency of a path of `hops` links: injection, routers, ejection. */
static inline double toy_path(const arch_desc *a, int hops)
{
    return a->noc_inject_cycles + hops * a->noc_hop_cycles + a->noc_eject_cycles;
}

/* When math is done with a chunk of `steps` units (before its Dst
 * hand-off): it may take the chunk at `ready` and works `math` cycles, unit
 * by unit, each once the unpacker has put it in the source registers; the
 * chunk's unpack started at `u0` and takes `u` cycles at an even rate. So
 * math starts no sooner than the first unit is there and ends no sooner
 * than a unit's math after the last. */
static inline double toy_math_end(double ready, double u0, double u, double math, int steps)
{
    double start = fmax(ready, u0 + u / steps);
    return fmax(start + math, u0 + u + math / steps);
}

#endif
