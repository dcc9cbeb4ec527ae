/* arch_print.c - printing a hardware description, as aligned text
 * (arch_print, `loomc arch`) and as JSON (arch_print_json).
 */
#include "arch/arch_int.h"

/* ---- printing -------------------------------------------------------- */

static void print_ints(lm_buf *b, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        lm_buf_printf(b, "%s%d", i ? " " : "", v[i]);
}

static void print_xys(lm_buf *b, const arch_xy *v, int n)
{
    for (int i = 0; i < n; i++)
        lm_buf_printf(b, "%s[%d,%d]", i ? " " : "", v[i].x, v[i].y);
}

static bool same_xys(const arch_xy *p, const arch_xy *q, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i].x != q[i].x || p[i].y != q[i].y)
            return false;
    return true;
}

#define ROW "  %-28s "

void arch_print(lm_buf *b, const arch_desc *a)
{
    double ghz = a->clock_ghz;
    lm_buf_printf(b, "arch %s\n", a->name);
    if (a->description)
        lm_buf_printf(b, "  %s\n", a->description);

    lm_buf_printf(b, "\nstructure (specifications)\n");
    lm_buf_printf(b, ROW "%g GHz\n", "clock", ghz);
    lm_buf_printf(b, ROW "%d x %d = %d cores (command dispatch on %s cores)\n", "compute grid",
                  a->grid_w, a->grid_h, arch_num_cores(a), a->dispatch_on_eth ? "ethernet" : "Tensix");
    lm_buf_printf(b, ROW, "core columns at NoC x");
    print_ints(b, a->core_noc_x, a->grid_w);
    lm_buf_printf(b, "\n" ROW, "core rows at NoC y");
    print_ints(b, a->core_noc_y, a->grid_h);
    lm_buf_printf(b, "\n");
    lm_buf_printf(b, ROW "%lld B, reserved %lld B, usable %lld B (%.1f KiB)\n", "L1 per core",
                  (long long)a->l1_bytes, (long long)a->l1_reserved_bytes,
                  (long long)arch_usable_l1(a), arch_usable_l1(a) / 1024.0);
    lm_buf_printf(b, ROW "%d per core\n", "circular buffers", a->num_cbs);
    lm_buf_printf(b, ROW "%d x %d;", "tile", a->tile_h, a->tile_w);
    for (int f = 0; f < ARCH_NFORMATS; f++)
        lm_buf_printf(b, " %s %lld B%s", arch_format_names[f], (long long)a->tile_bytes[f],
                      f + 1 < ARCH_NFORMATS ? "," : "\n");
    lm_buf_printf(b, ROW "%d FLOP/cycle/core at LoFi, divided by the fidelity phases\n",
                  "matrix engine", a->fpu_flops_per_cycle);
    lm_buf_printf(b, ROW "%d tiles (16-bit), %d tiles (32-bit)\n", "Dst in half-sync mode",
                  a->dst_tiles_half_16b, a->dst_tiles_half_32b);
    lm_buf_printf(b, ROW "%d x %d, %d NoC%s, %s\n", "NoC grid", a->noc_w, a->noc_h, a->num_nocs,
                  a->num_nocs == 1 ? "" : "s", a->noc_torus ? "torus" : "mesh");
    lm_buf_printf(b, ROW "%d B/cycle per direction; packets up to %lld B + %d header flit%s\n",
                  "NoC link", a->link_bytes_per_cycle, (long long)a->max_packet_bytes,
                  a->header_flits, a->header_flits == 1 ? "" : "s");
    lm_buf_printf(b, ROW "%d per NoC interface\n", "transaction ids", a->max_transaction_ids);
    lm_buf_printf(b, ROW "%s%s%s%s\n", "multicast shapes", a->mcast_rect ? "rectangle" : "",
                  a->mcast_strided ? (a->mcast_rect ? ", strided" : "strided") : "",
                  a->mcast_lshape ? (a->mcast_rect || a->mcast_strided ? ", L-shaped" : "L-shaped")
                                  : "",
                  !a->mcast_rect && !a->mcast_strided && !a->mcast_lshape ? "none" : "");
    lm_buf_printf(b, ROW "%d x %lld B = %.2f GiB; alignment %d B\n", "DRAM banks", a->num_dram_banks,
                  (long long)a->dram_bank_bytes,
                  (double)a->num_dram_banks * (double)a->dram_bank_bytes / (1024.0 * 1024 * 1024),
                  a->dram_alignment);
    bool same = same_xys(a->dram_bank_noc, a->dram_bank_noc1, a->num_dram_banks);
    lm_buf_printf(b, ROW, same ? "DRAM endpoints [x,y]" : "DRAM endpoints, NoC 0");
    print_xys(b, a->dram_bank_noc, a->num_dram_banks);
    lm_buf_printf(b, "\n");
    if (!same) {
        lm_buf_printf(b, ROW, "DRAM endpoints, NoC 1");
        print_xys(b, a->dram_bank_noc1, a->num_dram_banks);
        lm_buf_printf(b, "\n");
    }

    lm_buf_printf(b, "\nperformance (microbenchmarks and estimates)\n");
    lm_buf_printf(b, ROW "read %g B/cycle, write %g B/cycle\n", "DRAM per bank",
                  a->dram_bank_read_bpc, a->dram_bank_write_bpc);
    lm_buf_printf(b, ROW "read %g cycles, write %g cycles\n", "DRAM latency", a->dram_latency_cycles,
                  a->dram_write_latency_cycles);
    lm_buf_printf(b, ROW "read %g B/cycle, write %g B/cycle\n", "one core's NoC traffic",
                  a->core_read_bpc, a->core_write_bpc);
    lm_buf_printf(b, ROW "hop %g, inject %g, eject %g, command %g cycles\n", "NoC latency",
                  a->noc_hop_cycles, a->noc_inject_cycles, a->noc_eject_cycles, a->noc_cmd_cycles);
    lm_buf_printf(b, ROW "%g B/cycle, setup %g cycles\n", "multicast", a->mcast_bpc,
                  a->mcast_setup_cycles);
    lm_buf_printf(b, ROW, "matmul cycles per tile");
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_buf_printf(b, "%s%s %g", f ? ", " : "", arch_fidelity_names[f], a->matmul_tile_cycles[f]);
    lm_buf_printf(b, "; in0 rows granule %g\n", a->matmul_rows_granule);
    lm_buf_printf(b, ROW "eltwise %g, bcast %g, reduce %g, block row max %g\n", "FPU cycles per tile",
                  a->eltwise_tile_cycles, a->bcast_tile_cycles, a->reduce_tile_cycles,
                  a->reduce_block_tile_cycles);
    lm_buf_printf(b, ROW "exp %g (approx.), exp %g (exact), recip %g, sqrt %g, rsqrt %g, sigmoid %g\n",
                  "SFPU cycles per tile", a->sfpu_exp_tile_cycles, a->sfpu_exp_exact_tile_cycles,
                  a->sfpu_recip_tile_cycles, a->sfpu_sqrt_tile_cycles, a->sfpu_rsqrt_tile_cycles,
                  a->sfpu_sigmoid_tile_cycles);
    lm_buf_printf(b, ROW "unpack %g B/cycle, pack %g B/cycle\n", "unpack/pack", a->unpack_bpc,
                  a->pack_bpc);
    lm_buf_printf(b, ROW "launch %g, CB handshake %g, semaphore %g, barrier %g, Dst handoff %g, op init %g\n",
                  "fixed costs (cycles)", a->kernel_launch_cycles, a->cb_handshake_cycles,
                  a->sem_cycles, a->barrier_cycles, a->dst_handoff_cycles, a->op_init_cycles);

    double rd = arch_dram_read_bpc(a), wr = arch_dram_write_bpc(a);
    lm_buf_printf(b, "\nderived\n");
    lm_buf_printf(b, ROW "%d\n", "cores", arch_num_cores(a));
    lm_buf_printf(b, ROW "%lld B\n", "usable L1 per core", (long long)arch_usable_l1(a));
    lm_buf_printf(b, ROW, "peak TFLOP/s (any format)");
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_buf_printf(b, "%s%s %.1f", f ? ", " : "", arch_fidelity_names[f],
                      arch_peak_tflops(a, (arch_fidelity)f));
    lm_buf_printf(b, "\n");
    lm_buf_printf(b, ROW "read %.1f B/cycle = %.1f GB/s, write %.1f B/cycle = %.1f GB/s\n",
                  "DRAM aggregate", rd, rd * ghz, wr, wr * ghz);
    lm_buf_printf(b, ROW "%d B/cycle = %.1f GB/s per direction\n", "NoC link",
                  a->link_bytes_per_cycle, a->link_bytes_per_cycle * ghz);
    lm_buf_printf(b, ROW "%.1f B/cycle = %.1f GB/s\n", "multicast", a->mcast_bpc, a->mcast_bpc * ghz);
    lm_buf_printf(b, "  DRAM-bound below this many FLOP per element read from DRAM:\n");
    lm_buf_printf(b, "    %-8s %10s %10s", "format", "B/tile", "B/element");
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_buf_printf(b, " %8s", arch_fidelity_names[f]);
    lm_buf_printf(b, "\n");
    double elems = (double)a->tile_h * a->tile_w;
    for (int fm = 0; fm < ARCH_NFORMATS; fm++) {
        double bpe = (double)a->tile_bytes[fm] / elems;
        lm_buf_printf(b, "    %-8s %10lld %10.4f", arch_format_names[fm], (long long)a->tile_bytes[fm],
                      bpe);
        for (int f = 0; f < ARCH_NFIDELITIES; f++) {
            /* FLOP/s at peak over DRAM bytes/s, times bytes per element. */
            double ridge = arch_peak_tflops(a, (arch_fidelity)f) * 1e12 / (rd * ghz * 1e9) * bpe;
            lm_buf_printf(b, " %8.1f", ridge);
        }
        lm_buf_printf(b, "\n");
    }
}

static void json_xys(lm_buf *b, const arch_xy *v, int n)
{
    lm_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        lm_buf_printf(b, "%s[%d, %d]", i ? ", " : "", v[i].x, v[i].y);
    lm_buf_putc(b, ']');
}

static void json_ints(lm_buf *b, const int *v, int n)
{
    lm_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        lm_buf_printf(b, "%s%d", i ? ", " : "", v[i]);
    lm_buf_putc(b, ']');
}

#define JB(x) ((x) ? "true" : "false")

void arch_print_json(lm_buf *b, const arch_desc *a)
{
    lm_buf_printf(b, "{\n  \"name\": ");
    lm_json_str(b, a->name);
    if (a->description) {
        lm_buf_printf(b, ",\n  \"description\": ");
        lm_json_str(b, a->description);
    }
    lm_buf_printf(b, ",\n  \"structure\": {\n");
    lm_buf_printf(b, "    \"clock_ghz\": %.15g,\n", a->clock_ghz);
    lm_buf_printf(b, "    \"dispatch\": \"%s\",\n", a->dispatch_on_eth ? "ethernet" : "tensix");
    lm_buf_printf(b, "    \"grid\": {\"width\": %d, \"height\": %d, \"noc_x\": ", a->grid_w,
                  a->grid_h);
    json_ints(b, a->core_noc_x, a->grid_w);
    lm_buf_printf(b, ", \"noc_y\": ");
    json_ints(b, a->core_noc_y, a->grid_h);
    lm_buf_printf(b, "},\n    \"l1\": {\"bytes\": %lld, \"reserved_bytes\": %lld, "
                     "\"circular_buffers\": %d},\n",
                  (long long)a->l1_bytes, (long long)a->l1_reserved_bytes, a->num_cbs);
    lm_buf_printf(b, "    \"tile\": {\"height\": %d, \"width\": %d, \"bytes\": {", a->tile_h,
                  a->tile_w);
    for (int f = 0; f < ARCH_NFORMATS; f++)
        lm_buf_printf(b, "%s\"%s\": %lld", f ? ", " : "", arch_format_names[f],
                      (long long)a->tile_bytes[f]);
    lm_buf_printf(b, "}},\n    \"fpu\": {\"flops_per_cycle\": %d},\n", a->fpu_flops_per_cycle);
    lm_buf_printf(b, "    \"dst\": {\"half_sync_tiles_16b\": %d, \"half_sync_tiles_32b\": %d},\n",
                  a->dst_tiles_half_16b, a->dst_tiles_half_32b);
    lm_buf_printf(b, "    \"noc\": {\"count\": %d, \"width\": %d, \"height\": %d, \"torus\": %s, "
                     "\"link_bytes_per_cycle\": %d, \"max_packet_bytes\": %lld, "
                     "\"header_flits\": %d, \"max_transaction_ids\": %d, \"multicast\": "
                     "{\"rectangle\": %s, \"strided\": %s, \"l_shape\": %s}},\n",
                  a->num_nocs, a->noc_w, a->noc_h, JB(a->noc_torus), a->link_bytes_per_cycle,
                  (long long)a->max_packet_bytes, a->header_flits, a->max_transaction_ids,
                  JB(a->mcast_rect), JB(a->mcast_strided), JB(a->mcast_lshape));
    lm_buf_printf(b, "    \"dram\": {\"alignment_bytes\": %d, \"bank_bytes\": %lld, \"banks\": ",
                  a->dram_alignment, (long long)a->dram_bank_bytes);
    json_xys(b, a->dram_bank_noc, a->num_dram_banks);
    lm_buf_printf(b, ", \"banks_noc1\": ");
    json_xys(b, a->dram_bank_noc1, a->num_dram_banks);
    lm_buf_printf(b, "}\n  },\n  \"performance\": {\n");
    lm_buf_printf(b, "    \"dram\": {\"bank_read_bytes_per_cycle\": %.15g, "
                     "\"bank_write_bytes_per_cycle\": %.15g, \"read_latency_cycles\": %.15g, "
                     "\"write_latency_cycles\": %.15g},\n",
                  a->dram_bank_read_bpc, a->dram_bank_write_bpc, a->dram_latency_cycles,
                  a->dram_write_latency_cycles);
    lm_buf_printf(b, "    \"core\": {\"read_bytes_per_cycle\": %.15g, \"write_bytes_per_cycle\": "
                     "%.15g},\n",
                  a->core_read_bpc, a->core_write_bpc);
    lm_buf_printf(b, "    \"noc\": {\"hop_cycles\": %.15g, \"inject_cycles\": %.15g, "
                     "\"eject_cycles\": %.15g, \"command_cycles\": %.15g},\n",
                  a->noc_hop_cycles, a->noc_inject_cycles, a->noc_eject_cycles, a->noc_cmd_cycles);
    lm_buf_printf(b, "    \"multicast\": {\"setup_cycles\": %.15g, \"bytes_per_cycle\": %.15g},\n",
                  a->mcast_setup_cycles, a->mcast_bpc);
    lm_buf_printf(b, "    \"compute\": {\"matmul_tile_cycles\": {");
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_buf_printf(b, "%s\"%s\": %.15g", f ? ", " : "", arch_fidelity_names[f],
                      a->matmul_tile_cycles[f]);
    lm_buf_printf(b, "}, \"matmul_rows_granule\": %.15g, \"eltwise_tile_cycles\": %.15g, "
                     "\"bcast_tile_cycles\": %.15g, \"reduce_tile_cycles\": %.15g, "
                     "\"reduce_block_tile_cycles\": %.15g, "
                     "\"sfpu_exp_tile_cycles\": %.15g, \"sfpu_exp_exact_tile_cycles\": %.15g, "
                     "\"sfpu_recip_tile_cycles\": %.15g, \"sfpu_sqrt_tile_cycles\": %.15g, "
                     "\"sfpu_rsqrt_tile_cycles\": %.15g, \"sfpu_sigmoid_tile_cycles\": %.15g, "
                     "\"unpack_bytes_per_cycle\": %.15g, \"pack_bytes_per_cycle\": %.15g},\n",
                  a->matmul_rows_granule, a->eltwise_tile_cycles, a->bcast_tile_cycles,
                  a->reduce_tile_cycles, a->reduce_block_tile_cycles, a->sfpu_exp_tile_cycles,
                  a->sfpu_exp_exact_tile_cycles, a->sfpu_recip_tile_cycles, a->sfpu_sqrt_tile_cycles,
                  a->sfpu_rsqrt_tile_cycles, a->sfpu_sigmoid_tile_cycles, a->unpack_bpc, a->pack_bpc);
    lm_buf_printf(b, "    \"overhead\": {\"kernel_launch_cycles\": %.15g, \"cb_handshake_cycles\": "
                     "%.15g, \"semaphore_cycles\": %.15g, \"barrier_cycles\": %.15g, "
                     "\"dst_handoff_cycles\": %.15g, \"op_init_cycles\": %.15g}\n  },\n",
                  a->kernel_launch_cycles, a->cb_handshake_cycles, a->sem_cycles,
                  a->barrier_cycles, a->dst_handoff_cycles, a->op_init_cycles);
    double rd = arch_dram_read_bpc(a), wr = arch_dram_write_bpc(a);
    lm_buf_printf(b, "  \"derived\": {\"cores\": %d, \"usable_l1_bytes\": %lld, \"peak_tflops\": {",
                  arch_num_cores(a), (long long)arch_usable_l1(a));
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_buf_printf(b, "%s\"%s\": %.15g", f ? ", " : "", arch_fidelity_names[f],
                      arch_peak_tflops(a, (arch_fidelity)f));
    lm_buf_printf(b, "}, \"dram_read_bytes_per_cycle\": %.15g, \"dram_read_gb_per_s\": %.15g, "
                     "\"dram_write_bytes_per_cycle\": %.15g, \"dram_write_gb_per_s\": %.15g, "
                     "\"noc_link_gb_per_s\": %.15g}\n}\n",
                  rd, rd * a->clock_ghz, wr, wr * a->clock_ghz,
                  a->link_bytes_per_cycle * a->clock_ghz);
}
