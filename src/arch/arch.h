/* arch.h - a hardware description: what loomc knows about one chip.
 *
 * Two kinds of facts are kept apart, as in the YAML files of arch/:
 *  - structure, from specifications (grid, L1, tiles, Dst, NoC, DRAM banks);
 *  - performance, from microbenchmarks (bandwidths, latencies, cycles per
 *    tile, fixed costs).
 * The scheduler and the simulator both read this struct; neither reads the
 * YAML. docs/arch.md documents every key, its unit and its meaning.
 */
#ifndef LOOMC_ARCH_H
#define LOOMC_ARCH_H

#include "util/base.h"
#include "util/json.h"

/* Storage formats of tiles. */
typedef enum arch_format {
    ARCH_BF16,
    ARCH_FP32,
    ARCH_BFP8_B,
    ARCH_BFP4_B,
    ARCH_NFORMATS
} arch_format;

/* Math fidelity of the matrix engine: number of multiply phases 1..4. */
typedef enum arch_fidelity {
    ARCH_LOFI,
    ARCH_HIFI2,
    ARCH_HIFI3,
    ARCH_HIFI4,
    ARCH_NFIDELITIES
} arch_fidelity;

const char *arch_format_name(arch_format f);            /* "bf16", "bfp8_b", ... */
bool arch_format_parse(const char *s, arch_format *f);
const char *arch_fidelity_name(arch_fidelity f);        /* "LoFi", "HiFi2", ... */
bool arch_fidelity_parse(const char *s, arch_fidelity *f);

typedef struct arch_xy {
    int x, y;
} arch_xy;

enum { ARCH_MAX_GRID = 64, ARCH_MAX_DRAM_BANKS = 64 };

typedef struct arch_desc {
    const char *name; /* e.g. "wormhole_n150" */
    const char *file; /* the YAML it came from */
    const char *description; /* free text, may be NULL */

    /* ---- structure (specifications) ---------------------------------- */
    double clock_ghz;          /* AI clock; cycles are counted at this clock */
    int grid_w, grid_h;        /* compute grid: logical cores (x in [0,w), y in [0,h)) */
    int noc_w, noc_h;          /* physical NoC grid incl. DRAM/ethernet/harvested tiles */
    int core_noc_x[ARCH_MAX_GRID]; /* NoC column of logical core column x */
    int core_noc_y[ARCH_MAX_GRID]; /* NoC row of logical core row y */
    int64_t l1_bytes;          /* L1 SRAM per core */
    int64_t l1_reserved_bytes; /* firmware, kernels, runtime args; not for CBs */
    int tile_h, tile_w;        /* 32 x 32 */
    int64_t tile_bytes[ARCH_NFORMATS]; /* bytes of one tile per format */
    int dst_tiles_half_16b;    /* Dst tiles in half-sync mode, 16-bit accumulation */
    int dst_tiles_half_32b;    /* ... fp32 accumulation */
    int num_cbs;               /* circular buffers per core */
    int num_nocs;              /* 2 */
    bool noc_torus;            /* links wrap around */
    int link_bytes_per_cycle;  /* flit width: bytes per cycle per link per direction */
    int64_t max_packet_bytes;  /* largest payload of one NoC packet */
    int header_flits;          /* flits of header per packet */
    int max_transaction_ids;   /* outstanding transaction ids per NoC interface */
    bool mcast_rect;           /* rectangular multicast */
    bool mcast_strided;        /* strided multicast (Blackhole) */
    bool mcast_lshape;         /* L-shaped multicast (Blackhole) */
    int dram_alignment;        /* bytes */
    int num_dram_banks;
    arch_xy dram_bank_noc[ARCH_MAX_DRAM_BANKS]; /* NoC position of each bank's endpoint */
    int64_t dram_bank_bytes;   /* capacity per bank */
    /* Added for the simulator and for retargeting: */
    arch_xy dram_bank_noc1[ARCH_MAX_DRAM_BANKS]; /* endpoint used from NoC 1 (= dram_bank_noc
                                                    unless the description says otherwise);
                                                    all NoC positions are in NoC 0 coordinates */
    int fpu_flops_per_cycle;   /* matrix-engine FLOP/cycle/core at LoFi (one phase) */
    bool dispatch_on_eth;      /* command dispatch runs on ethernet cores, not on Tensix */

    /* ---- performance (microbenchmarks) ------------------------------- */
    double dram_bank_read_bpc;   /* bytes/cycle one bank delivers for reads */
    double dram_bank_write_bpc;  /* bytes/cycle one bank accepts for writes */
    double dram_latency_cycles;  /* request to first byte, excluding NoC hops */
    double core_read_bpc;        /* bytes/cycle one core's NoC interface can sink */
    double core_write_bpc;       /* bytes/cycle one core's NoC interface can source */
    double noc_hop_cycles;       /* per router hop */
    double noc_inject_cycles;    /* NIU to router */
    double noc_eject_cycles;     /* router to NIU */
    double noc_cmd_cycles;       /* issuing one read/write command from a RISC-V */
    double mcast_setup_cycles;   /* path reservation of a multicast, per transfer */
    double mcast_bpc;            /* achieved multicast bytes/cycle (one sender) */
    double matmul_tile_cycles[ARCH_NFIDELITIES]; /* one 32x32x32 tile matmul */
    double matmul_rows_granule;  /* rows of in0 per matrix-engine op (8) */
    double eltwise_tile_cycles;  /* binary element-wise add/sub/mul on a tile */
    double sfpu_exp_tile_cycles; /* exp on one tile (approximate mode) */
    double sfpu_exp_exact_tile_cycles;
    double sfpu_recip_tile_cycles;
    double sfpu_sqrt_tile_cycles;    /* sqrt, rsqrt and sigmoid of one tile, accurate modes */
    double sfpu_rsqrt_tile_cycles;
    double sfpu_sigmoid_tile_cycles;
    double reduce_tile_cycles;   /* row reduction (max or sum) of one tile */
    double reduce_block_tile_cycles; /* one tile of the block row maximum (the LLK's block reduction) */
    double bcast_tile_cycles;    /* element-wise op with a broadcast operand */
    double unpack_bpc;           /* unpacker bytes/cycle from L1 */
    double pack_bpc;             /* packer bytes/cycle to L1 */
    double kernel_launch_cycles; /* start of a program on a core */
    double cb_handshake_cycles;  /* one reserve/push or wait/pop pair */
    double sem_cycles;           /* local semaphore update or poll */
    double barrier_cycles;       /* a NoC barrier with nothing outstanding */
    double dst_handoff_cycles;   /* math -> pack Dst acquire/release */
    double op_init_cycles;       /* LLK init and format reconfig when a compute op differs from the last */
    double dram_write_latency_cycles; /* write request to acknowledgement, excluding NoC hops */
} arch_desc;

/* Load a description by path (anything containing '/' or ending in .yaml)
 * or by name, looked up as NAME.yaml in each folder of $LOOMC_ARCH_PATH
 * (colon-separated), then ./arch, then the arch/ or share/loomc/arch
 * folder found by walking up from the executable's folder (at most 4
 * levels; the source tree's or an installed tree's), then the same from the
 * folder of the shared library loomc runs in. On error reports through
 * `d` as `file:line:col: error: ...` naming the key, and returns NULL. */
arch_desc *arch_load(const char *name_or_path, lm_diag *d);
/* Parse from memory; `file` names the text in messages. */
arch_desc *arch_parse(const char *file, const char *text, size_t len, lm_diag *d);
/* Every key of the schema as its dotted path, one per line in schema order
 * ("structure.grid.width"); a mapping's path ends in '.' ("structure.grid.").
 * docs/arch.md documents the same keys (test_arch checks both ways). */
void arch_schema_keys(lm_buf *b);
void arch_free(arch_desc *a);

/* Derived figures. */
int64_t arch_usable_l1(const arch_desc *a);
int arch_num_cores(const arch_desc *a);
/* Peak FLOP/s of the whole compute grid at a fidelity (format-independent). */
double arch_peak_tflops(const arch_desc *a, arch_fidelity f);
/* Aggregate DRAM read bytes/cycle of all banks. */
double arch_dram_read_bpc(const arch_desc *a);
/* Aggregate DRAM write bytes/cycle of all banks. */
double arch_dram_write_bpc(const arch_desc *a);
/* NoC position of logical core (x, y). */
arch_xy arch_core_noc(const arch_desc *a, int x, int y);

/* Print a validated description with its derived figures. */
void arch_print(lm_buf *b, const arch_desc *a);
/* The same as a JSON document ("format": "loomc-arch", docs/arch.md); the
 * caller owns it (json_decref). */
#define ARCH_JSON_VERSION 1
json_t *arch_json(const arch_desc *a);
/* ... and as text. */
void arch_print_json(lm_buf *b, const arch_desc *a);
/* Names of the descriptions found on the search path (sorted, one per
 * line); returns how many. */
int arch_list(lm_buf *b);

#endif
