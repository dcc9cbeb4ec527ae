/* ttnn.h - TTNN's default schedules, re-derived as pure functions.
 *
 * loomc's results are compared against what TTNN would run for the same op
 * when the user gives no program config.  This module answers "which
 * schedule would TTNN pick, and why" for:
 *   - ttnn.matmul with DRAM-interleaved A, B, C and no program config
 *     (the legacy default selector and the factories' CB sizing);
 *   - the hand-tuned 2D matmul configs of TTNN's GEMM benchmark;
 *   - SDPA prefill (flash attention) defaults;
 *   - SDPA decode (flash decode) defaults.
 * Every result carries, per parameter, the rule that chose it, so the CLI
 * can print it with --explain.  The rules come from the sourced paraphrase
 * of TTNN in the shared hardware notes; docs/baselines.md lists each rule,
 * its source, and every decision taken where the paraphrase was silent.
 *
 * Nothing here reads an arch_desc: callers pass grid sizes, usable L1 and
 * tile sizes as plain numbers, so the functions stay pure and testable.
 * Nothing allocates memory that outlives a call.
 */
#ifndef LOOMC_BASELINE_TTNN_H
#define LOOMC_BASELINE_TTNN_H

#include "arch/arch.h"
#include "util/base.h"

/* ---- explanations ----------------------------------------------------- */

enum { TTNN_EXPLAIN_MAX = 48, TTNN_RULE_MAX = 256, TTNN_WHY_MAX = 200 };

/* One chosen parameter with the rule that chose it. */
typedef struct ttnn_explain_item {
    const char *param; /* static name, e.g. "in0_block_w" */
    int64_t value;
    char rule[TTNN_RULE_MAX];
} ttnn_explain_item;

typedef struct ttnn_explain {
    int n;
    ttnn_explain_item item[TTNN_EXPLAIN_MAX];
} ttnn_explain;

/* The last item recorded for `param`, or NULL. */
const ttnn_explain_item *ttnn_explain_find(const ttnn_explain *e, const char *param);
/* Record a choice (the rule is printf-formatted and truncated to fit). */
void ttnn_explain_add(ttnn_explain *e, const char *param, int64_t value, const char *fmt, ...)
    LM_PRINTF(4, 5);
/* One line per item: "  param = value    rule". */
void ttnn_explain_print(lm_buf *b, const ttnn_explain *e);

/* Chip family: only the fp32 fidelity rule depends on it. */
typedef enum ttnn_chip { TTNN_CHIP_WORMHOLE, TTNN_CHIP_BLACKHOLE } ttnn_chip;

const char *ttnn_format_name(arch_format f);
const char *ttnn_fidelity_name(arch_fidelity f);

/* ---- matmul: default selection ------------------------------------------ */

typedef enum ttnn_mm_kind {
    TTNN_MM_MCAST_2D,     /* MatmulMultiCoreReuseMultiCastProgramConfig */
    TTNN_MM_MCAST_1D_IN0, /* ...MultiCast1DProgramConfig, mcast_in0 = true */
    TTNN_MM_MCAST_1D_IN1, /* ...MultiCast1DProgramConfig, mcast_in0 = false */
    TTNN_MM_REUSE,        /* MatmulMultiCoreReuseProgramConfig (never chosen by the
                           default selector; kept so callers can name it) */
    TTNN_MM_MULTICORE,    /* MatmulMultiCoreProgramConfig: the no-reuse fallback */
} ttnn_mm_kind;

const char *ttnn_mm_kind_name(ttnn_mm_kind k);

typedef struct ttnn_mm_input {
    int64_t M, K, N;     /* elements; M is per batch (A is batch x M x K) */
    int batch_a;         /* product of A's leading dims (1 = unbatched) */
    int batch_b;         /* product of B's leading dims */
    arch_format fmt_a, fmt_b, fmt_c;
    int grid_x, grid_y;  /* compute_with_storage_grid_size */
    int64_t l1_usable;   /* bytes the CB estimate is compared against
                            (TTNN's get_max_l1_space) */
    int64_t tile_bytes[ARCH_NFORMATS]; /* bytes of one 32x32 tile per format */
    ttnn_chip chip;
    /* A, B and C interleaved in L1 instead of DRAM.  Off by default; it is
       the only way to reach the MULTICORE fallback and the non-DRAM 2D
       branch of the selector. */
    bool l1_interleaved;
} ttnn_mm_input;

/* Circular buffers of one core as the chosen factory allocates them. */
typedef struct ttnn_mm_cbs {
    int64_t in0_tiles, in1_tiles, out_tiles, interm_tiles;
    int64_t in0_bytes, in1_bytes, out_bytes, interm_bytes, total_bytes;
    arch_format interm_fmt;
    bool interm_shared; /* interm lives in the output CB's memory (0 extra bytes) */
    bool double_buffered; /* in0/in1 hold two K blocks */
} ttnn_mm_cbs;

typedef struct ttnn_mm_config {
    bool ok;                 /* false: input rejected, see why */
    char why[TTNN_WHY_MAX];
    ttnn_mm_kind kind;
    int64_t Mt, Kt, Nt;      /* tiles, per batch, after padding to 32 */
    int batch;               /* batches the program loops over */
    int grid_x, grid_y;      /* grid handed to the factory */
    int in0_block_w;         /* K block depth in tiles */
    int out_subblock_h, out_subblock_w;
    int out_block_h, out_block_w;
    int per_core_M, per_core_N;
    bool transpose_mcast, fuse_batch;
    /* compute config */
    arch_fidelity fidelity;
    bool math_approx, fp32_acc;
    bool packer_l1_acc;      /* as configured */
    bool packer_l1_acc_used; /* as the factory actually enables it */
    int num_k_blocks;        /* Kt / in0_block_w (0 for MULTICORE) */
    /* cores that compute output: rows x cols of the output-block grid; for
       1D configs the blocks are laid row-major over the grid, so work_rows x
       work_cols is their bounding box and num_cores the exact count. */
    int work_rows, work_cols, num_cores;
    int64_t tiles_per_core;  /* MULTICORE: output tiles of the busiest core */
    ttnn_mm_cbs cb;
    /* intermediate facts of the selector, for tests and --explain */
    bool narrow, wide, tall;
    int per_core_factor;
    ttnn_explain explain;
} ttnn_mm_config;

/* TTNN's pick for A @ B with no program config.  Returns cfg->ok. */
bool ttnn_mm_default(const ttnn_mm_input *in, ttnn_mm_config *cfg);

/* Default compute kernel config of ttnn.matmul without a program config. */
void ttnn_mm_compute_defaults(arch_format a, arch_format b, arch_format c, ttnn_chip chip,
                            arch_fidelity *fidelity, bool *fp32_acc, bool *packer_l1_acc);

/* The selector's helpers, exported for tests. */
int64_t ttnn_mm_est_cb_bytes(const ttnn_mm_input *in, int per_core_m, int per_core_n, int k_w);
bool ttnn_mm_is_narrow(int64_t height, int64_t width, bool all_dram);
/* First sub-block of TTNN's ordered list that divides (m, n) under the
 * constraints; false (and 1x1) when none does. */
bool ttnn_mm_subblock(int m, int n, bool h_eq_m, bool w_eq_n, bool fp32_acc, int *h, int *w);
/* Largest near-square output block (and K depth if adjust_k) whose CB
 * estimate fits: out = {block_h, block_w, k_w}. */
void ttnn_mm_multi_dim_factor(const ttnn_mm_input *in, int per_core_m, int per_core_n, int k_w,
                            bool adjust_k, int out[3]);

/* ---- matmul: the benchmark's hand-tuned configs ------------------------- */

typedef struct ttnn_mm_tuned {
    bool covered;           /* false: shape/format/grid not in the table (see why) */
    char why[TTNN_WHY_MAX];
    int base_m, base_k, base_n; /* per-core base shape in elements */
    int grid_x, grid_y;
    int in0_block_w, per_core_M, per_core_N;
    int out_block_h, out_block_w, num_out_blocks_h, num_out_blocks_w;
    int out_subblock_h, out_subblock_w;
    int num_k_blocks;
    bool in0_sharded, out_sharded, transpose_mcast;
    unsigned fidelities;    /* bit (1u << f) for each arch_fidelity the benchmark ran */
    bool fp32_acc, packer_l1_acc, math_approx;
    ttnn_explain explain;
} ttnn_mm_tuned;

/* The 2D config TTNN's GEMM benchmark hand-tunes for this shape on the
 * N150 8x8 or P150 13x10 / 11x10 grid.  A, B and C must share one format.
 * Returns out->covered. */
bool ttnn_mm_tuned_lookup(int64_t M, int64_t K, int64_t N, arch_format a, arch_format b,
                        arch_format c, int grid_x, int grid_y, ttnn_mm_tuned *out);

/* ---- SDPA prefill (flash attention) ------------------------------------- */

typedef struct ttnn_sdpa_input {
    int B, NQH, NKH;       /* batch, query heads, key/value heads */
    int64_t Sq, Sk;        /* query and key sequence lengths (elements) */
    int DH;                /* head dim, a multiple of 32 */
    int grid_x, grid_y;
    int q_chunk, k_chunk;  /* 0 = TTNN's default (32) */
    bool causal;
    bool fp32_acc;         /* compute kernel config: fp32_dest_acc_en (default off) */
    arch_format fmt_q, fmt_k, fmt_v, fmt_out;
    int64_t tile_bytes[ARCH_NFORMATS];
} ttnn_sdpa_input;

typedef enum ttnn_sdpa_cb_id {
    TTNN_SDPA_CB_Q,       /* Q chunk */
    TTNN_SDPA_CB_K,       /* K chunk, double-buffered */
    TTNN_SDPA_CB_V,       /* V chunk, double-buffered */
    TTNN_SDPA_CB_MASK,    /* attention mask, double-buffered (only when used) */
    TTNN_SDPA_CB_QK,      /* QK^T scratch */
    TTNN_SDPA_CB_OUT_IM,  /* P V product of one K chunk */
    TTNN_SDPA_CB_OUT_ACC, /* running output accumulator */
    TTNN_SDPA_CB_OUT,     /* output chunk */
    TTNN_SDPA_CB_STATS,   /* five row-statistic CBs (cur/prev max, cur/prev sum, exp diff) */
    TTNN_SDPA_CB_SCALAR,  /* two one-tile scalar CBs (identity scalar, identity column) */
    TTNN_SDPA_NCB
} ttnn_sdpa_cb_id;

typedef struct ttnn_sdpa_cb {
    bool present;
    arch_format fmt;
    int64_t tiles, bytes;
} ttnn_sdpa_cb;

typedef struct ttnn_sdpa_config {
    bool ok;
    char why[TTNN_WHY_MAX];
    int B, NQH, NKH;                 /* copied from the input for per-core queries */
    int q_chunk, k_chunk;            /* elements */
    int Sq_chunk_t, Sk_chunk_t, DHt; /* tiles */
    int64_t padded_Sq, padded_Sk;
    int q_num_chunks, k_num_chunks;
    int num_cores;                   /* grid_x * grid_y: every core gets the kernels */
    int batch_parallel, head_parallel, q_parallel;      /* bpf, hpf, qpf */
    int batch_per_core, heads_per_core, q_per_core;
    int active_cores;                /* cores whose batch/head/chunk ranges are non-empty */
    bool balanced;                   /* causal low/high chunk pairing in effect */
    bool padded_mask;                /* non-causal with padded sequences: a mask is generated */
    int dst_size;                    /* Dst tiles per half-sync bank: 8, or 4 with fp32 acc */
    int qk_in0_block_w, qk_subblock_h, qk_subblock_w;
    int pv_in0_block_w, pv_subblock_h, pv_subblock_w;
    arch_fidelity fidelity;
    bool math_approx, exp_approx, fp32_acc, packer_l1_acc;
    ttnn_sdpa_cb cb[TTNN_SDPA_NCB];
    int64_t cb_total_bytes;
    ttnn_explain explain;
} ttnn_sdpa_config;

bool ttnn_sdpa_prefill_default(const ttnn_sdpa_input *in, ttnn_sdpa_config *cfg);

/* What core `core` (row-major index over the grid) computes. */
typedef struct ttnn_sdpa_core_work {
    int batch_start, batch_end; /* [start, end) */
    int head_start, head_end;
    int q_start, q_end;         /* contiguous chunk range the core is given */
    int nchunks;                /* Q chunks processed per (batch, head) */
} ttnn_sdpa_core_work;

/* Fills `w` and writes the Q chunk indices the core processes, in order,
 * into chunks[0..cap) (balanced pairing applied).  Returns how many chunks
 * there are (may exceed cap; only cap are written). */
int ttnn_sdpa_prefill_core_work(const ttnn_sdpa_config *cfg, int core, ttnn_sdpa_core_work *w,
                              int *chunks, int cap);

/* ---- SDPA decode (flash decode) ----------------------------------------- */

typedef enum ttnn_reduce_kind {
    TTNN_REDUCE_TREE,   /* current: binary tree, ceil(log2(cores_per_head)) rounds */
    TTNN_REDUCE_SINGLE, /* older: every worker sends to one reducer per (batch, kv head) */
} ttnn_reduce_kind;

typedef struct ttnn_decode_input {
    int B, NQH, NKV;
    int64_t S;              /* KV cache length (K's sequence dim) */
    int DH;                 /* head dim, a multiple of 32 */
    int grid_x, grid_y;
    int k_chunk;            /* 0 = TTNN's default get_chunk_size(S) */
    int max_cores_per_head; /* 0 = no program config (all cores may serve one head) */
    ttnn_reduce_kind reduce;
} ttnn_decode_input;

typedef struct ttnn_decode_config {
    bool ok;
    char why[TTNN_WHY_MAX];
    int k_chunk, Sk_chunk_t;
    int64_t k_num_chunks;     /* chunks of the full cache */
    int PNH, PNHt;            /* Q heads padded to tile rows */
    int q_heads_per_kv;       /* rows each core uses against its KV head */
    int DHt;
    int cores_available, max_cores_per_head;
    int cores_per_batch, cores_per_head, heads_per_core;
    int active_cores, num_reducers, num_output_cores;
    ttnn_reduce_kind reduce;
    int tree_rounds;          /* ceil(log2(cores_per_head)) */
    int single_combines;      /* partials the single reducer folds in: cores_per_head - 1 */
    int reduction_steps;      /* steps on the critical path for the chosen kind */
    arch_fidelity fidelity;
    bool math_approx, exp_approx, fp32_acc, packer_l1_acc;
    /* CB tile counts of one core */
    int64_t k_tiles, v_tiles, qk_tiles, out_tiles, stats_tiles;
    ttnn_explain explain;
} ttnn_decode_config;

bool ttnn_sdpa_decode_default(const ttnn_decode_input *in, ttnn_decode_config *cfg);

/* TTNN's get_chunk_size: the largest power-of-two divisor of s (at least 2),
 * capped at 512.  May be below 32, which TTNN then rejects. */
int ttnn_decode_chunk_size(int64_t s);

/* KV chunks [start, end) worked by `rank` of the cores_per_head workers of
 * one head when positions [0, valid_len) are attended. */
void ttnn_decode_kv_range(int64_t valid_len, int k_chunk, int rank, int cores_per_head,
                        int64_t *start, int64_t *end);

enum { TTNN_TREE_MAX_ROUNDS = 6 };

/* One rank's place in the decode reduction tree over n ranks (rank 0 is the
 * root).  children[r] is the rank received from in round r, or -1. */
typedef struct ttnn_tree_node {
    int rounds;       /* ceil(log2(n)) */
    bool root;
    int parent;       /* -1 for the root */
    int send_round;   /* round in which this rank sends; -1 for the root */
    int children[TTNN_TREE_MAX_ROUNDS];
} ttnn_tree_node;

void ttnn_decode_tree(int rank, int n, ttnn_tree_node *t);

/* Row-major core index -> role.  Valid for the linear layout TTNN uses when
 * Q and the output are interleaved. */
typedef struct ttnn_decode_role {
    bool active;
    int batch, first_kv_head, rank; /* rank within its head's workers */
    bool reducer, output;
} ttnn_decode_role;

void ttnn_decode_core_role(const ttnn_decode_config *cfg, int core, ttnn_decode_role *r);

/* ---- TTNN's decisions as points of loomc's schedule space (ttnn_sched.c) --
 *
 * The functions above say what TTNN would run; these express it as a
 * sched_schedule of the kernel loomc compiles (placement of each program
 * axis, transport of each load, a value for every symbol), so the same
 * lowering and the same simulator time TTNN's choice and loomc's.  The
 * operands' roles come from the kernel's structure (the dots, the access
 * analysis' dependence and reuse bits), never from names.  Whatever TTNN
 * does that the schedule space cannot say is listed, per case, in `notes`
 * and in docs/baselines.md ("TTNN's schedules in loomc's space").
 */

#include "sched/sched.h"

typedef enum ttnn_family {
    TTNN_FAMILY_NONE,
    TTNN_FAMILY_MATMUL,       /* one launch, one dot of two block loads */
    TTNN_FAMILY_SDPA_PREFILL, /* one launch, two dots (Q K^T, P V), K/V streamed in a loop */
    TTNN_FAMILY_SDPA_DECODE,  /* two launches: split-K attention, then the combine */
} ttnn_family;

const char *ttnn_family_name(ttnn_family f);

typedef enum ttnn_sched_kind {
    TTNN_SCHED_DEFAULT, /* --schedule ttnn: no program config */
    TTNN_SCHED_TUNED,   /* --schedule ttnn-tuned: the GEMM benchmark's hand-tuned config */
} ttnn_sched_kind;

typedef struct ttnn_sched_opts {
    ttnn_sched_kind kind;
    bool have_fidelity;     /* --fidelity given: overrides TTNN's rule */
    arch_fidelity fidelity;
    /* SDPA prefill: the parts of an SDPAProgramConfig and compute kernel
       config a caller gives (0 / false: TTNN's defaults) */
    int sdpa_q_chunk, sdpa_k_chunk;  /* q_chunk_size, k_chunk_size (elements) */
    int sdpa_grid_x, sdpa_grid_y;    /* compute_with_storage_grid_size: at most the chip's grid */
    bool have_fp32_acc;              /* fp32_dest_acc_en given */
    bool fp32_acc;
    bool sdpa_interm_16b;            /* TTNN's bf16 intermediate CBs (sched_schedule.interm_16b) */
    int sdpa_max_cores_per_head;     /* SDPA decode: max_cores_per_head_batch of a program config (0: none);
                                        sdpa_k_chunk is decode's k_chunk_size too */
    bool no_fuse;                    /* SDPA decode: never as a fused launch pair (two launches) */
} ttnn_sched_opts;

/* What TTNN's kernels, written as dataflow programs (ttnn_kernel_program),
 * need of the job: its tensors' names and sizes as the job lays them out
 * in DRAM (rows of the leading dimensions and the sequence, the head dim as
 * columns), the mask, the formats and the softmax scale. */
typedef struct ttnn_kernel_io {
    const char *q, *k, *v, *o;   /* tensor names */
    int64_t B, H, HKV, S, D;     /* prefill: Q, O [B, H, S, D]; decode: Q, O [B, H, D]; K, V [B, HKV, S, D] */
    bool causal;
    arch_format fq, fk, fv, fo;
    double scale;                /* of Q K^T: 1 / sqrt(D), TTNN's default */
    int grid_x, grid_y;          /* the program grid (compute_with_storage_grid_size) */
    bool q_fold, o_fold;         /* decode: Q's and O's [B, H, D] rows folded (B x H rows, padded once to
                                    whole tiles) rather than each batch's H rows padded (tir_tensor.fold_rows) */
} ttnn_kernel_io;

enum { TTNN_NOTES_MAX = 16 };

typedef struct ttnn_pick {
    bool ok;                 /* false: not expressible or not covered, see why */
    char why[TTNN_WHY_MAX];
    ttnn_family family;
    ttnn_sched_kind kind;
    int nlaunches;
    sched_schedule s[SCHED_MAX_LAUNCHES]; /* values are heap: ttnn_pick_free */
    /* per launch: each schedule symbol and placement with the TTNN parameter
       and rule it comes from */
    ttnn_explain map[SCHED_MAX_LAUNCHES];
    /* TTNN's own decisions (the ttnn_* config's explain table) */
    ttnn_mm_config mm;         /* MATMUL (both kinds: the default is always computed) */
    ttnn_mm_tuned tuned;       /* MATMUL, TTNN_SCHED_TUNED */
    ttnn_sdpa_config sdpa;     /* SDPA_PREFILL */
    ttnn_decode_config dec;    /* SDPA_DECODE */
    ttnn_kernel_io io;         /* SDPA_PREFILL, SDPA_DECODE: for ttnn_kernel_program */
    /* approximations that apply to this case (static strings) */
    const char *notes[TTNN_NOTES_MAX];
    int nnotes;
} ttnn_pick;

/* TTNN's schedule for the job's launches (k[0..nlaunches)), with the sizes
 * and pinned constexprs of `bound`, on chip `a`.  Formats are the kernel
 * buffers' (see sched_set_formats).  The result is large: allocate it
 * on the heap.  Returns out->ok; release with ttnn_pick_free either way. */
bool ttnn_schedule(ttnn_pick *out, sched_kernel *const *k, int nlaunches, const sym_env *bound,
                      const arch_desc *a, const ttnn_sched_opts *o, sym_ctx *s, lm_arena *ar);
void ttnn_pick_free(ttnn_pick *r);
/* `--explain` for a TTNN schedule: TTNN's rules, then where each schedule
 * value came from, then the approximations. */
void ttnn_pick_explain_print(lm_buf *b, const ttnn_pick *r, sched_kernel *const *k);

/* ---- TTNN's kernels as dataflow programs (ttnn_sdpa_prog.c, ttnn_decode_prog.c)
 *
 * TTNN's own SDPA kernels - its reader, compute and writer, as its program
 * factory builds them for the config in `r` - written directly as a
 * dataflow program, not lowered from the kernel loomc compiles: the same
 * simulator times them. The whole job is one program (decode's reduction
 * included). `fidelity` and `fp32_acc` are the compute config's. NULL with
 * the reason in why when the case is not covered (docs/baselines.md). The
 * program is bound (df_bind) and ready for df_validate. */
struct df_program *ttnn_kernel_program(const ttnn_pick *r, arch_fidelity fidelity, bool fp32_acc, const arch_desc *a,
                                       char *why, size_t whylen);
struct df_program *ttnn_sdpa_prefill_program(const ttnn_sdpa_config *cfg, const ttnn_kernel_io *io,
                                             arch_fidelity fidelity, bool fp32_acc, const arch_desc *a, char *why,
                                             size_t whylen);
struct df_program *ttnn_sdpa_decode_program(const ttnn_decode_config *cfg, const ttnn_kernel_io *io,
                                            arch_fidelity fidelity, bool fp32_acc, const arch_desc *a, char *why,
                                            size_t whylen);

/* ttnn.matmul's default math fidelity when no compute config is given:
 * HiFi2, or LoFi when both inputs are block-float (bfp8_b/bfp4_b); with
 * both inputs fp32, HiFi3 on Wormhole and HiFi4 on Blackhole. */
arch_fidelity ttnn_default_fidelity(arch_format a, arch_format b, ttnn_chip chip);
/* The chip family of a description (Blackhole has L-shaped multicast). */
ttnn_chip ttnn_chip_of(const arch_desc *a);

#endif
