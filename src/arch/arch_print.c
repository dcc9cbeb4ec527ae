/* arch_print.c - printing a hardware description, as aligned text
 * (arch_print, `loomc arch`) and as JSON (arch_json, `loomc arch --json`).
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

/* ---- JSON (docs/arch.md, "JSON") -------------------------------------- */

/* A description's own figures keep 15 significant digits, as they were written. */
static json_t *fig(double x) { return lm_json_sig(x, 15); }

static json_t *json_xys(const arch_xy *v, int n)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < n; i++) {
        json_t *xy = lm_json_arr();
        lm_json_push(xy, lm_json_int(v[i].x));
        lm_json_push(xy, lm_json_int(v[i].y));
        lm_json_push(a, xy);
    }
    return a;
}

static json_t *json_ints(const int *v, int n)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < n; i++)
        lm_json_push(a, lm_json_int(v[i]));
    return a;
}

/* Members names[i]: values[i] added to o, figures as fig(); o. */
static json_t *add_figs(json_t *o, int n, const char *const *names, const double *values)
{
    for (int i = 0; i < n; i++)
        lm_json_set(o, names[i], fig(values[i]));
    return o;
}

static json_t *figs(int n, const char *const *names, const double *values)
{
    return add_figs(lm_json_obj(), n, names, values);
}

static json_t *json_structure(const arch_desc *a)
{
    json_t *s = lm_json_obj(), *o;
    lm_json_set(s, "clock_ghz", fig(a->clock_ghz));
    lm_json_set(s, "dispatch", lm_json_string(a->dispatch_on_eth ? "ethernet" : "tensix"));
    lm_json_set(s, "grid", o = lm_json_obj());
    lm_json_set(o, "width", lm_json_int(a->grid_w));
    lm_json_set(o, "height", lm_json_int(a->grid_h));
    lm_json_set(o, "noc_x", json_ints(a->core_noc_x, a->grid_w));
    lm_json_set(o, "noc_y", json_ints(a->core_noc_y, a->grid_h));
    lm_json_set(s, "l1", o = lm_json_obj());
    lm_json_set(o, "bytes", lm_json_int(a->l1_bytes));
    lm_json_set(o, "reserved_bytes", lm_json_int(a->l1_reserved_bytes));
    lm_json_set(o, "circular_buffers", lm_json_int(a->num_cbs));
    lm_json_set(s, "tile", o = lm_json_obj());
    lm_json_set(o, "height", lm_json_int(a->tile_h));
    lm_json_set(o, "width", lm_json_int(a->tile_w));
    json_t *tb = lm_json_obj();
    for (int f = 0; f < ARCH_NFORMATS; f++)
        lm_json_set(tb, arch_format_names[f], lm_json_int(a->tile_bytes[f]));
    lm_json_set(o, "bytes", tb);
    lm_json_set(s, "fpu", o = lm_json_obj());
    lm_json_set(o, "flops_per_cycle", lm_json_int(a->fpu_flops_per_cycle));
    lm_json_set(s, "dst", o = lm_json_obj());
    lm_json_set(o, "half_sync_tiles_16b", lm_json_int(a->dst_tiles_half_16b));
    lm_json_set(o, "half_sync_tiles_32b", lm_json_int(a->dst_tiles_half_32b));
    lm_json_set(s, "noc", o = lm_json_obj());
    lm_json_set(o, "count", lm_json_int(a->num_nocs));
    lm_json_set(o, "width", lm_json_int(a->noc_w));
    lm_json_set(o, "height", lm_json_int(a->noc_h));
    lm_json_set(o, "torus", lm_json_bool(a->noc_torus));
    lm_json_set(o, "link_bytes_per_cycle", lm_json_int(a->link_bytes_per_cycle));
    lm_json_set(o, "max_packet_bytes", lm_json_int(a->max_packet_bytes));
    lm_json_set(o, "header_flits", lm_json_int(a->header_flits));
    lm_json_set(o, "max_transaction_ids", lm_json_int(a->max_transaction_ids));
    json_t *mc = lm_json_obj();
    lm_json_set(mc, "rectangle", lm_json_bool(a->mcast_rect));
    lm_json_set(mc, "strided", lm_json_bool(a->mcast_strided));
    lm_json_set(mc, "l_shape", lm_json_bool(a->mcast_lshape));
    lm_json_set(o, "multicast", mc);
    lm_json_set(s, "dram", o = lm_json_obj());
    lm_json_set(o, "alignment_bytes", lm_json_int(a->dram_alignment));
    lm_json_set(o, "bank_bytes", lm_json_int(a->dram_bank_bytes));
    lm_json_set(o, "banks", json_xys(a->dram_bank_noc, a->num_dram_banks));
    lm_json_set(o, "banks_noc1", json_xys(a->dram_bank_noc1, a->num_dram_banks));
    return s;
}

static json_t *json_performance(const arch_desc *a)
{
    json_t *p = lm_json_obj();
    lm_json_set(p, "dram",
                figs(4, (const char *const[]){"bank_read_bytes_per_cycle", "bank_write_bytes_per_cycle",
                                              "read_latency_cycles", "write_latency_cycles"},
                     (const double[]){a->dram_bank_read_bpc, a->dram_bank_write_bpc, a->dram_latency_cycles,
                                      a->dram_write_latency_cycles}));
    lm_json_set(p, "core",
                figs(2, (const char *const[]){"read_bytes_per_cycle", "write_bytes_per_cycle"},
                     (const double[]){a->core_read_bpc, a->core_write_bpc}));
    lm_json_set(p, "noc",
                figs(4, (const char *const[]){"hop_cycles", "inject_cycles", "eject_cycles", "command_cycles"},
                     (const double[]){a->noc_hop_cycles, a->noc_inject_cycles, a->noc_eject_cycles,
                                      a->noc_cmd_cycles}));
    lm_json_set(p, "multicast",
                figs(2, (const char *const[]){"setup_cycles", "bytes_per_cycle"},
                     (const double[]){a->mcast_setup_cycles, a->mcast_bpc}));
    /* the matmul figures per fidelity first, as in the text */
    json_t *mm = lm_json_obj(), *compute = lm_json_obj();
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_json_set(mm, arch_fidelity_names[f], fig(a->matmul_tile_cycles[f]));
    lm_json_set(compute, "matmul_tile_cycles", mm);
    add_figs(compute, 13,
             (const char *const[]){"matmul_rows_granule", "eltwise_tile_cycles", "bcast_tile_cycles",
                                   "reduce_tile_cycles", "reduce_block_tile_cycles", "sfpu_exp_tile_cycles", "sfpu_exp_exact_tile_cycles",
                                   "sfpu_recip_tile_cycles", "sfpu_sqrt_tile_cycles", "sfpu_rsqrt_tile_cycles",
                                   "sfpu_sigmoid_tile_cycles", "unpack_bytes_per_cycle", "pack_bytes_per_cycle"},
             (const double[]){a->matmul_rows_granule, a->eltwise_tile_cycles, a->bcast_tile_cycles,
                              a->reduce_tile_cycles, a->reduce_block_tile_cycles, a->sfpu_exp_tile_cycles,
                              a->sfpu_exp_exact_tile_cycles, a->sfpu_recip_tile_cycles, a->sfpu_sqrt_tile_cycles,
                              a->sfpu_rsqrt_tile_cycles, a->sfpu_sigmoid_tile_cycles, a->unpack_bpc, a->pack_bpc});
    lm_json_set(p, "compute", compute);
    lm_json_set(p, "overhead",
                figs(6,
                     (const char *const[]){"kernel_launch_cycles", "cb_handshake_cycles", "semaphore_cycles",
                                           "barrier_cycles", "dst_handoff_cycles", "op_init_cycles"},
                     (const double[]){a->kernel_launch_cycles, a->cb_handshake_cycles, a->sem_cycles,
                                      a->barrier_cycles, a->dst_handoff_cycles, a->op_init_cycles}));
    return p;
}

static json_t *json_derived(const arch_desc *a)
{
    double rd = arch_dram_read_bpc(a), wr = arch_dram_write_bpc(a);
    json_t *d = lm_json_obj(), *pk = lm_json_obj();
    lm_json_set(d, "cores", lm_json_int(arch_num_cores(a)));
    lm_json_set(d, "usable_l1_bytes", lm_json_int(arch_usable_l1(a)));
    for (int f = 0; f < ARCH_NFIDELITIES; f++)
        lm_json_set(pk, arch_fidelity_names[f], fig(arch_peak_tflops(a, (arch_fidelity)f)));
    lm_json_set(d, "peak_tflops", pk);
    lm_json_set(d, "dram_read_bytes_per_cycle", fig(rd));
    lm_json_set(d, "dram_read_gb_per_s", fig(rd * a->clock_ghz));
    lm_json_set(d, "dram_write_bytes_per_cycle", fig(wr));
    lm_json_set(d, "dram_write_gb_per_s", fig(wr * a->clock_ghz));
    lm_json_set(d, "noc_link_gb_per_s", fig(a->link_bytes_per_cycle * a->clock_ghz));
    return d;
}

json_t *arch_json(const arch_desc *a)
{
    json_t *d = lm_json_doc("loomc-arch", ARCH_JSON_VERSION);
    lm_json_set(d, "name", lm_json_string(a->name));
    if (a->description)
        lm_json_set(d, "description", lm_json_string(a->description));
    lm_json_set(d, "structure", json_structure(a));
    lm_json_set(d, "performance", json_performance(a));
    lm_json_set(d, "derived", json_derived(a));
    return d;
}

void arch_print_json(lm_buf *b, const arch_desc *a)
{
    json_t *d = arch_json(a);
    lm_json_write(b, d);
    json_decref(d);
}
