/* sim.h - the simulator's public interface: run a dataflow program on a
 * described chip and get cycles, derived figures, numerics checks and a
 * trace.
 *
 * The simulator is discrete-event and cycle-approximate. It executes every
 * core's reader, writer and compute kernels as engines (the compute kernel
 * as three: unpack, math, pack, joined through source registers and the two
 * halves of Dst), circular buffers with back-pressure, semaphores, a fluid
 * model of both NoCs (each transfer is a flow over the links of its route;
 * links, NoC interfaces and DRAM banks are shared max-min fairly) and DRAM
 * banks at their NoC positions. docs/simulator.md describes the model, the
 * arch fields it reads and its limits.
 *
 * Time is kept in cycles of the chip's clock as a double. Every decision is
 * deterministic: simultaneous events run in the order they were scheduled
 * (a sequence number breaks ties), and nothing depends on addresses or hash
 * order, so the same program, chip and options give the same figures and
 * the same trace bytes.
 *
 * The simulator is written independently of loomc's scheduler latency
 * model and never calls it: it simulates mechanisms (queues, flows, stages)
 * and never evaluates a closed-form total latency.
 */
#ifndef LOOMC_SIM_H
#define LOOMC_SIM_H

#include "arch/arch.h"
#include "df/df.h"

/* Budgets that turn a runaway simulation into a clear error. */
enum {
    SIM_DEFAULT_MAX_EVENTS = 400000000, /* ~1 minute of simulation on a laptop core */
    SIM_DEFAULT_TOP_LINKS = 8,          /* hottest links listed in reports */
};
#define SIM_DEFAULT_MAX_CYCLES 1e12     /* 1000 s at 1 GHz: no real kernel runs this long */
/* Tensor data a functional run may hold: the elements of every tensor,
 * padded to whole tiles, summed. 2^27 floats are 512 MiB, and a checked run
 * keeps a few copies besides; the 4096^3 GEMM needs 3 x 2^24. A program
 * declaring more is simulated timing only (its arithmetic would take hours
 * anyway). */
#define SIM_DEFAULT_MAX_DATA_ELEMS ((int64_t)1 << 27)

/* A Chrome/Perfetto trace (trace.c) written to a stream the caller owns:
 * one or more runs (the launches of a job), each after the one before in
 * time. sim_trace_end finishes the JSON (the stream stays open) and frees
 * the trace; false when the stream had a write error. Its "format" is
 * "loomc-trace", its schema version this: */
#define SIM_TRACE_VERSION 1
typedef struct sim_trace sim_trace;
sim_trace *sim_trace_new(FILE *f, const arch_desc *a);
bool sim_trace_end(sim_trace *t);

typedef struct sim_options {
    bool timing_only;      /* skip all arithmetic and data storage (big shapes) */
    bool check;            /* compare outputs with the program's `check` references */
    sim_trace *trace;      /* add this run to a trace (NULL: none), after the runs already in it */
    const char *trace_name;/* the run's name in the trace (NULL: the program's) */
    bool exact_exp;        /* every exp in exact mode (cost and values) */
    uint64_t max_events;   /* 0: SIM_DEFAULT_MAX_EVENTS */
    double max_cycles;     /* 0: SIM_DEFAULT_MAX_CYCLES */
    int top_links;         /* 0: SIM_DEFAULT_TOP_LINKS */
    int64_t max_data_elems;/* functional runs: 0 = SIM_DEFAULT_MAX_DATA_ELEMS */
    /* Initial contents per tensor (indexed like df_program.tensors; rows x
     * cols floats, row-major, already in the tensor's format), or NULL for
     * the default: inputs from their seed, everything else zero. A caller
     * that checks against its own reference (loomc run) passes the same
     * data to both, and carries scratch tensors from launch to launch. */
    const float *const *tensor_init;
    bool keep_tensors;     /* functional runs: return every tensor's final contents */
    lm_progress *progress; /* a progress line to keep up while it runs (NULL: none) */
    const char *progress_label; /* what the line says before the cycle it has reached */
} sim_options;

/* Engines of a core, in the order reports list them. */
typedef enum sim_engine_kind {
    SIM_READER,
    SIM_UNPACK,
    SIM_MATH,
    SIM_PACK,
    SIM_WRITER,
    SIM_NENGINES
} sim_engine_kind;
const char *sim_engine_name(sim_engine_kind k); /* "reader", "unpack", ... */

typedef struct sim_core_stat {
    int x, y;                       /* logical core */
    double busy[SIM_NENGINES];      /* fraction of the run each engine was busy */
    double done[SIM_NENGINES];      /* cycle at which each engine finished its kernel */
} sim_core_stat;

/* One CB of one core: the CB ops it saw (the emitted program's run on the
 * TT-Metalium emulation is checked against these, docs/emit.md). */
typedef struct sim_cb_stat {
    int x, y, cb;
    int64_t pushes, pops, pushed, popped; /* ops, and the pages they moved */
} sim_cb_stat;

typedef struct sim_link_stat {
    int noc;                        /* 0 or 1 */
    int x, y;                       /* NoC coordinates of the router the link leaves */
    char dir;                       /* 'E', 'S', 'W', 'N' */
    double bytes;                   /* bytes on the wire (payload + packet headers) */
    double utilisation;             /* bytes / (link bytes per cycle x cycles) */
} sim_link_stat;

typedef struct sim_bank_stat {
    int bank;
    int x, y;                       /* NoC 0 position of the bank's endpoint */
    double read_bytes, write_bytes; /* payload bytes */
    double read_util, write_util;   /* bytes / (bank bytes per cycle x cycles) */
} sim_bank_stat;

typedef enum sim_check_status { SIM_CHECK_SKIPPED, SIM_CHECK_PASS, SIM_CHECK_FAIL } sim_check_status;

typedef struct sim_check_result {
    const char *tensor;             /* output tensor checked */
    sim_check_status status;
    double max_abs, max_rel;
    int64_t nonfinite;
} sim_check_result;

typedef struct sim_result {
    const char *program, *arch;
    double cycles;                  /* simulated cycles from launch to the last event */
    double seconds;                 /* cycles at the chip's clock */
    double flops;                   /* 2*th*tw*tw per tile matmul */
    double tflops;                  /* flops / seconds / 1e12 */
    uint64_t events;                /* events processed */
    uint64_t rate_updates;          /* fair-share recomputations of the NoC model */
    double busy_avg[SIM_NENGINES];  /* busy fraction per engine kind, averaged over cores */
    double engine_done[SIM_NENGINES]; /* cycle at which the last core's engine of each kind
                                         finished its kernel (a profiler's per-RISC kernel
                                         window ends there: e.g. the math kernel's duration
                                         excludes the final pack and output writes) */
    double kernel_start;            /* cycle at which every engine starts its kernel */
    sim_core_stat *cores;
    int ncores;
    sim_cb_stat *cbs;               /* every declared CB of every core, by core then CB id */
    int ncbs;
    sim_link_stat *links;           /* hottest links first (at most top_links) */
    int nlinks;
    int links_used;                 /* links that carried any byte */
    sim_bank_stat *banks;
    int nbanks;
    sim_check_status check;         /* overall: FAIL if any output failed */
    double max_error;               /* largest |got - ref| over checked outputs */
    double max_rel_error;
    sim_check_result *checks;
    int nchecks;
    bool timing_only;
    /* With sim_options.keep_tensors (functional runs): ntensors arrays, each
     * the tensor's rows x cols floats row-major after the run; else NULL. */
    float **tensor_data;
    int ntensors;
} sim_result;

/* Run `p` (bound and validated) on `a`. Returns NULL after reporting through
 * `d` when the program is wrong at run time: a deadlock (naming every
 * waiting engine, its op and source line, and the CB or semaphore it waits
 * on), a Dst overflow, an out-of-range page or tile, or an exceeded budget. */
sim_result *sim_run(const df_program *p, const arch_desc *a, const sim_options *o, lm_diag *d);
void sim_result_free(sim_result *r);

/* Human-readable report; every performance figure is labelled simulated. */
void sim_print_text(lm_buf *b, const sim_result *r);
/* The same as a JSON document ("format": "loomc-sim-report", docs/simulator.md)
 * with members cycles, seconds, tflops, check, max_error, engines,
 * dram_banks, links (and a few more); the caller owns it (json_decref). */
#define SIM_JSON_VERSION 1
json_t *sim_json(const sim_result *r);
/* ... and as text. */
void sim_print_json(lm_buf *b, const sim_result *r);

/* ---- device-profile CSV (profile.c) ----------------------------------
 * The simulated runs in the column layout of tt-metal's device profiler
 * log (profile_log_device.csv, docs/simulator.md): the two header lines,
 * then per core and RISC its firmware and kernel zones, ZONE_START and
 * ZONE_END, in cycles. Every figure is simulated. */
void sim_profile_header(FILE *f, const arch_desc *a);
/* The rows of one run (run_id: its launch, from 1), its cycles counted
 * from `base` (the cycles of the runs before it). */
void sim_profile_rows(FILE *f, const sim_result *r, const arch_desc *a, int run_id, double base);

#endif
