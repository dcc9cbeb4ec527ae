/* bench.h - loomc's evaluation: how good is a schedule picked without
 * profiling, compared with TTNN's defaults, with the best schedule that
 * exists (an oracle) and with what an autotuner finds in N trials - all
 * timed by the same lowering on the same simulator, so every figure here is
 * simulated, never measured.
 *
 * The pieces, sectioned by implementing file:
 *  - stats.c: the arithmetic of the tables (geometric mean, regret,
 *    ranks, Spearman's rank correlation) and a small deterministic RNG;
 *  - oracle.c: the schedule space of a job (one stratum per feasible
 *    combination of mapping candidates, each with its solver problem:
 *    variables, domains, legality constraints, predicted cycles), legal
 *    points, a memoising evaluator, and the oracle: every legal point
 *    simulated when the space is below a bound, a deterministic stratified
 *    sample (then a coordinate-descent polish) above it;
 *  - tuner.c: a budgeted autotuner (random plus local search, fixed seed);
 *  - suite.c: suite files (bench/NAME.suite; docs/evaluation.md);
 *  - bench.c: one suite entry end to end (compile, TTNN, oracle, tuner);
 *    report.c: the tables, the JSON and the gnuplot plots; html.c: all of
 *    them as one page;
 *  - csv_table.c: the published tables calibrate.c reads (CSV, libcsv).
 *
 * Nothing here changes what loomc decides: the oracle and the tuner search
 * the space loomc's solver searches (the same candidates, domains and
 * legality constraints), and evaluate points with the simulator only.
 */
#ifndef LOOMC_BASELINE_BENCH_H
#define LOOMC_BASELINE_BENCH_H

#include "arch/arch.h"
#include "front/front.h"
#include "sched/sched.h"
#include "util/base.h"

/* ======================================================================
 * stats.c - arithmetic
 * ==================================================================== */

/* Geometric mean of n > 0 positive values (0 if n == 0 or any value <= 0). */
double bench_geomean(const double *x, int n);
/* Relative regret of `cycles` against `best`: cycles / best - 1 (0 is optimal). */
double bench_regret(double cycles, double best);
/* 1-based ranks of x (ascending); tied values share the mean of their ranks. */
void bench_ranks(const double *x, int n, double *rank);
/* Spearman's rank correlation of (x, y): Pearson's correlation of their
 * ranks (ties averaged). 0 when n < 2 or either side is constant. */
double bench_spearman(const double *x, const double *y, int n);
/* The same over the points whose `sim` is among the best fraction `frac`
 * (at least min_n of them; ties by position): does the model also order
 * the good schedules, not just tell good from bad? *used = points taken. */
double bench_spearman_best(const double *pred, const double *sim, int n, double frac, int min_n, int *used);

/* splitmix64: the same sequence on every machine. */
uint64_t bench_rng_next(uint64_t *state);
/* Uniform in [0, n) (n >= 1). */
uint64_t bench_rng_below(uint64_t *state, uint64_t n);
/* Uniform in [0, 1). */
double bench_rng_unit(uint64_t *state);

/* CPU seconds of this process (the cost columns: compile and tuning time,
 * steady on a loaded machine; the wall clock is lm_wall_seconds). Never in
 * tested output. */
double bench_cpu_seconds(void);

/* ======================================================================
 * oracle.c - the schedule space, its points, the evaluator, the oracle
 * ==================================================================== */

/* One combination of mapping candidates and its solver problem. Points of
 * the stratum are value vectors in problem->vars order. */
typedef struct bench_stratum {
    const solve_problem *problem; /* variables (domains), constraints, objective */
    const sym_env *fixed;         /* sizes and pinned constexprs (may be NULL) */
    const void *tag;              /* the caller's (bench: the sched_choice) */
    const char *label;            /* for reports */
} bench_stratum;

typedef struct bench_space {
    bench_stratum *st;
    int nst;
} bench_space;

/* Is the point legal (every constraint evaluates and is <= 0)? */
bool bench_space_legal(const bench_space *sp, int s, const int64_t *values);
/* The model's cycles at a point (the problem's objective); -1 when it
 * cannot be evaluated. */
int64_t bench_space_predict(const bench_space *sp, int s, const int64_t *values);
/* Visit the legal points of stratum s in lexicographic order of domain
 * positions (depth-first, with interval-bound pruning), calling fn (may be
 * NULL) for each until it returns false or `limit` points were visited (0:
 * no limit). Returns the number visited; *all (may be NULL) tells whether
 * that was every legal point (the walk also stops at a node budget
 * proportional to the limit). */
typedef bool (*bench_point_fn)(void *ctx, int s, const int64_t *values);
int64_t bench_space_enum(const bench_space *sp, int s, int64_t limit, bench_point_fn fn, void *ctx, bool *all);
/* The legal point nearest to a target (a domain position per variable):
 * depth-first in variable order, each variable's values tried by distance
 * of their position from the target (nearer first, the lower position on a
 * tie). False when none is found within the search's node budget. */
bool bench_space_nearest(const bench_space *sp, int s, const int *target, int64_t *out);

/* What evaluating a point gave. */
typedef struct bench_eval {
    bool ok;             /* lowered and simulated */
    bool censored;       /* stopped at the cycle cap: cycles is a lower bound */
    double cycles;       /* simulated cycles (summed over the job's launches) */
    double sim_seconds;  /* cycles at the chip's clock */
    double wall_seconds; /* host CPU seconds the evaluation took */
    int64_t predicted;   /* the model's cycles, -1 if unknown */
} bench_eval;

/* Evaluate one point (bench: lower and simulate, timing-only). cap_cycles >
 * 0 lets the evaluation stop there and report `censored`. Returns false
 * with *why set (static or arena text) when the point cannot be run. */
typedef bool (*bench_eval_fn)(void *ctx, int s, const int64_t *values, double cap_cycles, bench_eval *out,
                           const char **why);

typedef struct bench_entry {
    int s;
    const int64_t *values; /* in the evaluator's arena */
    bench_eval e;
    uint64_t hash;
} bench_entry;

enum { BENCH_MAX_KINDS = 8 };

/* Failures grouped by the start of their reason (up to the first number,
 * quote or parenthesis): "lowering: read: tile block at", "simulation:
 * deadlock at cycle", ... The last kind collects the rest. */
typedef struct bench_fail_kind {
    const char *kind;
    int64_t count;
} bench_fail_kind;

/* Memoises evaluations: a point is simulated at most once per evaluator,
 * whoever asks (loomc's picks, the oracle, the tuner). */
typedef struct bench_evaluator {
    const bench_space *sp;
    bench_eval_fn fn;
    void *ctx;
    double cap_factor;    /* > 0: cap each run at cap_factor x the best so far */
    LM_VEC(bench_entry) entries;
    int *slots;           /* open-addressing index into entries (-1 empty) */
    size_t nslots;
    double best;          /* best ok, uncensored cycles so far (0: none) */
    int64_t runs;         /* evaluations actually performed */
    int64_t failures;
    int first_fail;       /* entry index of the first failure */
    const char *first_why;/* the first failure's reason */
    bench_fail_kind kinds[BENCH_MAX_KINDS];
    int nkinds;
    lm_arena ar;
    /* progress: called after every new evaluation when set */
    void (*progress)(void *ctx, int64_t runs);
    void *progress_ctx;
} bench_evaluator;

void bench_evaluator_init(bench_evaluator *ev, const bench_space *sp, bench_eval_fn fn, void *ctx, double cap_factor);
void bench_evaluator_free(bench_evaluator *ev);
/* The entry of a point, evaluating it if new. Returns its index. */
int bench_evaluate(bench_evaluator *ev, int s, const int64_t *values);
/* The entry of a point if already evaluated, else -1. */
int bench_evaluated(const bench_evaluator *ev, int s, const int64_t *values);
/* Cycles an entry counts as in comparisons: failed points are +infinity. */
double bench_entry_cycles(const bench_entry *e);

/* Legal points counted per stratum before the space is reported as "at
 * least" this many (counting runs at about a million points a second). */
enum { BENCH_COUNT_CAP = 2000000 };

typedef struct bench_oracle_opts {
    int64_t bound;   /* simulate every point up to this many; else run this many (points
                        that cannot be lowered or simulated do not count; attempts are
                        capped at four times the bound) */
    uint64_t seed;
} bench_oracle_opts;

typedef struct bench_oracle {
    bool exact;          /* every legal point was simulated */
    int64_t space;       /* legal points: exact count, or a lower bound when !space_known */
    bool space_known;
    int64_t sampled;     /* points from the stratified sample */
    int64_t polished;    /* points from the polish */
    int *pts;            /* entry indices the oracle evaluated (heap), in order */
    int npts;
    int best;            /* entry index of the best, -1 if none ran */
    double best_cycles;
} bench_oracle;

/* Run the oracle over the space. Deterministic for a given seed. */
void bench_oracle_run(bench_oracle *o, const bench_space *sp, bench_evaluator *ev, const bench_oracle_opts *opt);
void bench_oracle_free(bench_oracle *o);

/* ======================================================================
 * tuner.c - a budgeted autotuner
 * ==================================================================== */

enum { BENCH_MAX_MARKS = 8 };

typedef struct bench_tuner_mark {
    int64_t trials;      /* the checkpoint (trials asked for) */
    int64_t used;        /* trials actually run by then (less when the space ran out) */
    int best;            /* entry index of the best so far (-1: none ran) */
    double best_cycles;
    bool lower_bound;    /* every trial so far hit the cap: best_cycles is a lower bound */
    double sim_seconds;  /* simulated time of every trial so far: what tuning on the
                            device would spend running kernels */
    double wall_seconds; /* host CPU seconds the trials took in the simulator */
} bench_tuner_mark;

typedef struct bench_tuner_opts {
    int64_t marks[BENCH_MAX_MARKS]; /* increasing checkpoints; the last is the budget */
    int nmarks;
    uint64_t seed;
} bench_tuner_opts;

typedef struct bench_tuner {
    bench_tuner_mark marks[BENCH_MAX_MARKS];
    int nmarks;
    int64_t trials;      /* trials that ran (lowered and simulated) */
    int64_t attempts;    /* points tried, including those that could not run */
    int *pts;            /* entry indices, in the order tried (heap) */
} bench_tuner;

/* Random sampling plus local search from the incumbent, until
 * `marks[nmarks-1]` distinct points have run (a point that cannot be
 * lowered or simulated is not a trial; the tuner gives up when fewer than
 * one in eight of its points run). The choice of point t depends only on the results of the
 * points before it, so a checkpoint's figures equal those of a run with
 * that budget. */
void bench_tuner_run(bench_tuner *t, const bench_space *sp, bench_evaluator *ev, const bench_tuner_opts *opt);
void bench_tuner_free(bench_tuner *t);

/* ======================================================================
 * suite.c - suite files
 * ==================================================================== */

typedef struct bench_suite_shape {
    fe_kv *sizes;
    int nsizes;
    fe_kv *consts;
    int nconsts;
    const char *label;   /* "M=512 N=512 K=512" (+ consts) */
    lm_loc loc;
} bench_suite_shape;

/* One value of a drawn shape (a `form` line's NAME=GEN, generate.c). */
typedef enum bench_gen_kind {
    BENCH_GEN_LOG,  /* log(LO,HI[,ALIGN]): log-uniform integer in [LO, HI], rounded to ALIGN */
    BENCH_GEN_PICK, /* pick(V,...): one of the values, uniformly */
    BENCH_GEN_EXPR  /* an expression of the values drawn before it */
} bench_gen_kind;

typedef struct bench_gen_item {
    const char *name;    /* a size, a const (after `const`), or a helper (a name starting with '_') */
    bool is_const;
    bench_gen_kind kind;
    int64_t lo, hi, align;
    int64_t *vals;       /* pick's values */
    int nvals;
    const char *expr;    /* BENCH_GEN_EXPR */
    lm_loc loc;
} bench_gen_item;

/* A `form` line: one way of drawing a shape (square, skinny, ...). */
typedef struct bench_gen_form {
    const char *name;
    bench_gen_item *items;
    int nitems;
    lm_loc loc;
} bench_gen_form;

typedef struct bench_suite_op {
    const char *name;    /* "gemm" */
    const char *kernel;  /* path, resolved against the suite file's folder */
    const char *flops;   /* useful FLOPs as an expression of the sizes and consts */
    const char *bytes;   /* the least DRAM traffic in bytes, likewise (NULL: none) */
    lm_loc loc, flops_loc, bytes_loc;
    bench_suite_shape *shapes; /* the `shape` lines, then (bench_suite_draw) the drawn ones */
    int nshapes;
    /* drawn shapes (generate.c): `draw N`, `limit EXPR <= MAX`, `form` lines */
    int64_t draw;        /* shapes to draw (0: none) */
    lm_loc draw_loc;
    const char *limit;   /* a drawn shape keeps EXPR <= limit_max (NULL: no limit) */
    int64_t limit_max;
    bench_gen_form *forms;
    int nforms;
} bench_suite_op;

/* A `derive` line: a description made at run time from another by scaling
 * its compute, its DRAM bandwidth and its grid (generate.c). */
typedef struct bench_derive {
    const char *name;    /* the derived description's name */
    const char *from;    /* the description it starts from (a name or a path) */
    double compute;      /* compute engine speed factor (1: unchanged) */
    double dram;         /* DRAM bank bandwidth factor (1: unchanged) */
    double l1;           /* L1 size factor (0 or 1: unchanged) */
    int grid_w, grid_h;  /* the compute grid (0: unchanged) */
    lm_loc loc;
} bench_derive;

typedef struct bench_suite {
    const char *file;
    const char *name;
    const char **archs;  /* default chips */
    int narchs;
    int64_t oracle_bound;/* 0: not set */
    int64_t trials[BENCH_MAX_MARKS];
    int ntrials;         /* 0: not set */
    bool have_format;    /* 'format NAME': the storage format of every loaded and stored */
    arch_format format;  /* DRAM tensor, as loomc run --format (else the kernels' own) */
    bench_suite_op *ops;
    int nops;
    bench_derive *derives; /* derived chips, run after the `arch` line's */
    int nderives;
} bench_suite;

/* Parse a suite (docs/evaluation.md). Errors are `file:line:col: error:`
 * through d; returns false after the first. */
bool bench_suite_parse(bench_suite *out, const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d);
/* Tuner checkpoints such as "10,100,1000" (a suite's tuner-trials, bench's
 * --tuner-trials): up to BENCH_MAX_MARKS increasing positive counts into
 * out[0..*n-1]. False when text is not that, with *at the offset of the
 * item in the way and *why what is wrong. */
bool bench_parse_trials(const char *text, int64_t *out, int *n, size_t *at, const char **why, lm_arena *ar);
/* Read and parse the suites of `loomc bench SUITE...` into
 * suites[0..n-1]: a name with a '/' or ending in .suite is a file, any
 * other is looked up as bench/NAME.suite (NAME-quick.suite with quick)
 * from the current folder, then beside the program (docs/evaluation.md).
 * texts[i] gets suite i's text, which the suites point into: the caller
 * frees each (free) after the suites. Errors through d (which gets the
 * texts as sources); false after the first. */
bool bench_suites_load(const char *const *names, int n, bool quick, bench_suite *suites, char **texts, lm_arena *ar,
                       lm_diag *d);
/* Evaluate an op's flops/bytes expression for a shape; false (with why) if
 * it names something the shape does not give. */
bool bench_suite_eval(const char *expr, const bench_suite_shape *sh, double *out, const char **why, lm_arena *ar);

/* ======================================================================
 * generate.c - drawn shapes and derived descriptions
 * ==================================================================== */

/* Draw the shapes of every operator of s that has `form` lines: n per
 * operator (-1: its `draw N`), appended to its `shape` lines, the same for
 * every chip. Deterministic: the seed and the operator's name start the
 * stream, shape i uses form i mod forms and depends only on the draws
 * before it (so a shorter draw is the start of a longer one); a shape
 * outside the `limit` or drawn before is drawn again. Errors (a value
 * below 1, an expression that cannot be evaluated, no draw within the
 * limit) are reported through d at the form's line. */
bool bench_suite_draw(bench_suite *s, uint64_t seed, int64_t n, lm_arena *ar, lm_diag *d);
/* A log-uniform integer in [lo, hi] (1 <= lo <= hi) from the stream, in
 * integer arithmetic only (the same on every machine). */
int64_t bench_draw_log(uint64_t *rng, int64_t lo, int64_t hi);
/* The YAML of a description (text, as read from its file) changed as dv
 * says, into out (the description's comments are not kept). False with
 * *why when the text is not a description of the expected form. */
bool bench_derive_yaml(const bench_derive *dv, const char *text, size_t len, lm_buf *out, const char **why,
                       lm_arena *ar);
/* Derive: load dv->from, change its YAML (bench_derive_yaml) and parse the
 * result, so that every check of the loader applies to it. NULL after
 * reporting through d. */
arch_desc *bench_derive_load(const bench_derive *dv, lm_diag *d);
/* The chips a suite runs on: `archs` (--arch) when n > 0, else its `arch`
 * line (`all`: every description on the search path, arch_list; no line:
 * wormhole_n150) followed by its derived chips. Into *out (arena). */
int bench_suite_chips(const bench_suite *s, const char *const *archs, int n, const char ***out, lm_arena *ar);
/* Chip `name` of suite s: one of its derived chips, else arch_load. */
arch_desc *bench_chip_load(const bench_suite *s, const char *name, lm_diag *d);

/* ======================================================================
 * bench.c - running a suite
 * ==================================================================== */

typedef struct bench_opts {
    const char **archs;   /* --arch (overrides the suite's); NULL: the suite's */
    int narchs;
    int64_t oracle_bound; /* 0: the suite's, else BENCH_DEFAULT_BOUND */
    int64_t trials[BENCH_MAX_MARKS];
    int ntrials;          /* 0: the suite's, else 10,100,1000 */
    bool model_quality;   /* only loomc's pick and the oracle, every run uncapped */
    bool no_tuner, no_oracle;
    double cap_factor;    /* oracle/tuner runs stop at this x the best so far (0: 4) */
    uint64_t seed;
    bool progress;        /* a progress line when stderr is a terminal (false: --quiet) */
    bool points;          /* keep every simulated point of a row (bench_row.points, the JSON) */
} bench_opts;

enum { BENCH_DEFAULT_BOUND = 500 };

/* One simulated point of a row (--points): what the model predicted and
 * what the simulator ran, for studying the model's errors. */
typedef struct bench_point {
    const char *schedule; /* "label; NAME=V ..." */
    int64_t predicted;    /* -1 when the model cannot be evaluated there */
    double cycles;        /* simulated */
} bench_point;

typedef struct bench_row {
    int op, shape;         /* indices into the suite */
    const char *suite_op;  /* operator name */
    const char *label;
    const char *arch;
    bool ok;               /* compiled and loomc's pick simulated */
    const char *why;       /* when !ok */
    double compile_seconds; /* host CPU seconds of loomc compile */
    double flops, bytes;   /* useful work and least DRAM traffic (0: unknown) */
    double peak_tflops, dram_tflops; /* roofline: chip peak at the kernel's fidelity; DRAM bound */
    const char *fidelity;
    double clock_ghz;
    /* loomc */
    double loomc_cycles;
    int64_t loomc_predicted;
    const char *loomc_label;
    double top5_cycles;    /* best simulated of loomc's five best (predicted) */
    int ntop;
    /* TTNN default: matmul as TTNN's schedule (lowered by loomc); SDPA
       prefill and decode as TTNN's own kernels at its default config
       (--schedule ttnn-kernel) */
    bool ttnn_ok;
    const char *ttnn_why;
    double ttnn_cycles;
    /* TTNN tuned: matmul, the GEMM benchmark's hand-tuned config where one
       covers the row (--schedule ttnn-tuned); SDPA, TTNN's own kernels at the
       best of its legal program configs (tuned_label says which) */
    bool tuned_ok;
    const char *tuned_why;
    double tuned_cycles;
    const char *tuned_label;
    /* oracle */
    bool oracle_ran, oracle_exact, space_known;
    int64_t space, oracle_points; /* legal points; points the oracle tried */
    int64_t oracle_ran_points;    /* ... of which ran */
    double oracle_cycles;  /* the oracle's own best */
    double best_cycles;    /* best known: the oracle, loomc's five, the tuner */
    const char *best_label;
    int64_t loomc_rank, ranked; /* loomc's pick among every point simulated (1 = best) */
    double spearman;       /* predicted vs simulated over the oracle's points */
    int64_t spearman_n;
    double spearman_top;   /* ... over the best 10% of them (simulated; at least 10) */
    int spearman_top_n;
    double pair_error;     /* the model's error comparing two near-top schedules (bench_pair_error) */
    int pair_n;            /* ... over that many points */
    int64_t failures;      /* points that could not be lowered or simulated */
    const char *failure_why;
    const char *failure_point; /* the first of them */
    bench_fail_kind fail_kinds[BENCH_MAX_KINDS];
    int nfail_kinds;
    /* tuner */
    int nmarks;
    bench_tuner_mark marks[BENCH_MAX_MARKS];
    /* every point that ran to its end (--points) */
    bench_point *points;
    int npoints;
} bench_row;

typedef struct bench_result {
    const bench_suite *suites;
    int nsuites;
    bench_row *rows;
    int nrows;
    bench_opts opts;
    int64_t trials[BENCH_MAX_MARKS];
    int ntrials;
    lm_arena ar;
} bench_result;

/* Run every shape of every suite on every chip. Errors that stop a run
 * (an unknown chip) are reported through d; a shape that fails is a row
 * with ok = false. */
bool bench_run(bench_result *b, const bench_suite *suites, int nsuites, const bench_opts *o, lm_diag *d);
void bench_free(bench_result *b);
/* The per-operator, per-chip table (the paper's Table 2, extended) and the
 * per-shape table. */
void bench_print(lm_buf *out, const bench_result *b);
/* Every row as a JSON document ("format": "loomc-bench", docs/evaluation.md,
 * "JSON"); the caller owns it (json_decref). */
#define BENCH_JSON_VERSION 1
json_t *bench_json_doc(const bench_result *b);
/* ... and as text. */
void bench_json(lm_buf *out, const bench_result *b);
/* gnuplot data and scripts into dir, rendered when gnuplot is installed.
 * Returns false after reporting through d. */
bool bench_plots(const bench_result *b, const char *dir, lm_diag *d);

/* What the tables (report.c) and the page (html.c) share: the rows of one
 * operator on one chip, in the order they first appear... */
typedef struct bench_group {
    const char *op, *arch;
    int *rows; /* indices into the result's rows */
    int n;
} bench_group;
int bench_groups(const bench_result *b, bench_group **out);
void bench_groups_free(bench_group *g, int ng);
/* ... a group's summary line, over its rows that ran (nok) ... */
typedef struct bench_summary {
    int nok;
    int nsp;                          /* rows where TTNN's default ran: loomc's speedup over it */
    double sp_geo, sp_lo, sp_hi;
    int ntuned;                       /* rows TTNN's hand-tuned configs cover: the same over them */
    double tuned_geo, tuned_lo, tuned_hi;
    double r1_sum, r1max, r5_sum;     /* top-1 regret (sum, max) and top-5 regret (sum) */
    double tuner[BENCH_MAX_MARKS];    /* mean regret of the tuner at each checkpoint (NAN: none) */
    bool tuner_lb[BENCH_MAX_MARKS];   /* ... a lower bound (a trial stopped at the cap) */
    double compile_sum, tune_sum;     /* host CPU seconds */
    int nexact, noracle;              /* rows with an exact oracle, with an oracle */
} bench_summary;
void bench_summarize(const bench_result *b, const bench_group *g, bench_summary *m);
/* ... a row's simulated TFLOP/s and its roof (the lower of the chip's peak
 * and the DRAM bound); false when the row has no FLOPs ... */
bool bench_row_tflops(const bench_row *r, double *tflops, double *roof);
/* ... a tuner checkpoint as the tables name it (10, 100, 1k) ... */
void bench_trials_name(lm_buf *b, int64_t trials);
/* ... and the plots: the file name of a group's plot (what: "_speedup.svg",
 * "_roofline.svg", "_rank.svg", ".dat") in ar; its data, scripts and SVG
 * into dir, which exists (*rendered: gnuplot drew them; false when it is
 * not installed). False after reporting. */
const char *bench_plot_name(const char *op, const char *arch, const char *what, lm_arena *ar);
bool bench_plot_svgs(const bench_result *b, const char *dir, lm_diag *d, bool *rendered);

/* ======================================================================
 * html.c - the page of a run (`loomc bench --html`)
 * ==================================================================== */

/* One self-contained HTML page (docs/evaluation.md, "HTML"): the tables,
 * the plots inline as SVG and the schedules, every figure labelled
 * simulated. False after reporting through d (the plots could not be
 * made). */
bool bench_html(lm_buf *out, const bench_result *b, lm_diag *d);

/* ======================================================================
 * quality.c - how well the model picks and orders schedules
 * ==================================================================== */

/* The targets the model is measured against (docs/scheduler.md, "Model
 * quality"), per operator and chip: loomc's pick at most this far above
 * the best known schedule on average (per mille) and at worst, and its
 * predicted cycles within this share of the simulated ones on that share
 * of the rows. */
enum {
    BENCH_TARGET_REGRET_MEAN = 30,   /* 3.0% */
    BENCH_TARGET_REGRET_WORST = 100, /* 10.0% */
    BENCH_TARGET_PRED_BAND = 200,    /* +-20.0% */
    BENCH_TARGET_PRED_ROWS = 900     /* on 90.0% of the rows */
};

/* The model's error when it compares two good schedules: over the points
 * the model predicts fastest (the fraction frac of them, at least min_n),
 * each point's simulated / predicted ratio r; for every pair, |ln(ri /
 * rj)| - how far the predicted ratio of the two is from the simulated one;
 * the result is the median of those over the pairs, as a relative error
 * (e^x - 1). NAN with fewer than two points. *used = points taken. */
double bench_pair_error(const double *pred, const double *sim, int n, double frac, int min_n, int *used);
/* The model-quality report: per operator and chip the rank correlation,
 * top-1 regret (mean, worst, the worst row), the pick's predicted over
 * simulated cycles, the pair error and the targets; then every row. */
void bench_print_quality(lm_buf *out, const bench_result *b);

/* ======================================================================
 * csv_table.c - the published tables (CSV, read with libcsv)
 * ==================================================================== */

/* A table: the header's column names and the rows, every row with one
 * field per column; everything in the table's arena. */
typedef struct bench_table {
    const char *path;
    int ncols;
    const char **head;
    int header_line;
    int nrows;
    const char ***rows; /* rows[r][c] */
    int *line;          /* the line each row starts on */
    lm_arena arena;
} bench_table;

/* Read a table: '#' comment lines and blank lines between records are
 * skipped, the first record is the header. NULL after reporting an error
 * (`file:line:col: error: ...` for a malformed row or a row of another
 * number of fields than the header). */
bench_table *bench_table_read(const char *path, lm_diag *d);
void bench_table_free(bench_table *t);
/* The column called name, or -1. */
int bench_table_col(const bench_table *t, const char *name);
/* Every column of the NULL-terminated names present; each missing one is
 * an error naming it and the file. */
bool bench_table_need(const bench_table *t, const char *const *names, lm_diag *d);
/* Row r's field of column name; "" when the table has no such column (for
 * optional columns: check the required ones with bench_table_need). */
const char *bench_table_cell(const bench_table *t, int row, const char *name);

/* ======================================================================
 * calibrate.c - the simulator against TTNN's published measurements
 * ==================================================================== */

/* The chips a calibration run loaded, by name (owned; bench_arch_cache_free). */
typedef struct bench_arch_cache {
    struct {
        const char *name;
        arch_desc *a;
    } e[8];
} bench_arch_cache;

void bench_arch_cache_free(bench_arch_cache *c);

typedef struct bench_cal_opts {
    const char *data, *kernels; /* the published tables (bench/data), the kernels */
    int limit;                  /* only the first N rows of each table (0: all) */
    double max_mkn;             /* skip GEMM rows with M*K*N above this (0: none) */
    bool progress;              /* one line per row on standard error (a log, terminal or not) */
    bool quiet;                 /* no progress line on a terminal either */
    const char *only[8];        /* only these tables: oob, oob11, tuned, attention, decode */
    int nonly;                  /* 0: every table */
} bench_cal_opts;

/* Every row of the published tables simulated, and the Markdown report up
 * to (not including) its "## Corrections" section, appended to b. A table
 * that cannot be read is reported through d and left out. */
void bench_calibrate(lm_buf *b, const bench_cal_opts *o, lm_diag *d);
/* The report's Corrections section, appended to b: the existing file's
 * (from its heading to the end), kept across regenerations, or an empty
 * one when the file has none. */
void bench_calibration_corrections(lm_buf *b, const char *path);

#endif
