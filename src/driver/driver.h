/* driver.h - one compilation, start to finish: the pass order of loomc in
 * one place. drv_job (driver.c) reads the whole order in one function;
 * commands call it, or the steps they need, and read what each stage
 * produced from the result.
 *
 * Pass order: read the file -> fe_lex/fe_parse -> fe_names_init ->
 * fe_read_launch -> for each selected launch: fe_check -> tir verify ->
 * acc_analyze (drv_compile); then, for a chip (drv_summarize): for each
 * launch sched_summarize -> sched_set_formats (--format) -> sched_alloc;
 * then the schedule by origin: loomc's (drv_schedule: for each launch
 * sched_lower_l1 -> sched_candidates; then, for the whole job,
 * sched_fuse_job and sched_select, a model per candidate, solved, ranked),
 * a plan file's (drv_schedule_plan), TTNN's or the manual one
 * (drv_pick_schedules, which also applies --set/--place/--transport); then
 * for each program: lower -> df_validate -> sim_run -> the reference check
 * (drv_simulate, run.c), or lower -> df_validate -> the TT-Metalium program
 * (drv_emit, target.c).
 */
#ifndef LOOMC_DRIVER_H
#define LOOMC_DRIVER_H

#include "analysis/access.h"
#include "front/front.h"
#include "sched/sched.h"
#include "ttnn/ttnn.h"

typedef struct drv_opts {
    const char *path;        /* the kernel file; with text, the name in messages */
    const char *text;        /* if set: the kernel's source itself, instead of reading path */
    fe_launch_opts launch;   /* --shape, --const, --kernel */
    const char *const *includes; /* --include: folders other modules of the project are found in,
                                    after the kernel's own */
    int nincludes;
} drv_opts;

/* ---- modules.c: the project's other modules (imported helpers) ---- */

enum { DRV_MAX_MODULES = 64 };

typedef struct drv_module {
    const char *name;       /* dotted */
    char *src;              /* heap; NULL if not found */
    const fe_names *names;  /* NULL if not found or not parsed */
} drv_module;

typedef struct drv_modules {
    fe_loader loader;       /* the front end's hook (fe_names.loader) */
    const char **dirs;
    int ndirs;
    drv_module mods[DRV_MAX_MODULES];
    int n;
    lm_arena *arena;
    lm_diag *d;
} drv_modules;

void drv_modules_init(drv_modules *ms, const drv_opts *o, lm_arena *a, lm_diag *d);
void drv_modules_free(drv_modules *ms);

/* What the compilation of one launch produced. */
typedef struct drv_launch {
    const fe_launch *launch;
    tir_func *func;
    acc_result *access;
    /* drv_schedule: */
    sched_kernel *summary;
    const sched_schedule *schedule; /* the chosen schedule (in drv_result.sched) */
} drv_launch;

/* What drv_schedule produced for the whole job. */
typedef struct drv_sched {
    sched_job job;
    sched_kernel kernels[SCHED_MAX_LAUNCHES];
    sched_result result;
    sym_env bound;       /* sizes and pinned constexprs (heap) */
    /* drv_pick_schedules: the schedules to run (their values on the heap),
       and TTNN's pick when they are TTNN's */
    sched_schedule run[SCHED_MAX_LAUNCHES];
    int nrun;
    ttnn_pick *ttnn;
} drv_sched;

typedef struct drv_sched_opts {
    const arch_desc *arch;
    int top_k;           /* solutions kept across candidates (0: 1) */
    int64_t node_limit;  /* solver effort per candidate (0: the solver's default) */
    bool no_fuse;        /* do not offer fused launch pairs (drv_schedule's fuse step) */
    /* --format: the storage format of the DRAM tensors the kernels load and
       store (sched_set_formats), set on every summary before allocation, so
       the schedule is chosen for it; otherwise the element types' formats */
    bool have_format;
    arch_format format;
    /* --fidelity: the matrix engine's fidelity instead of the default rule */
    bool have_fidelity;
    arch_fidelity fidelity;
    const char *mzn_solver; /* NULL: loomc's solver; else solve with MiniZinc and this
                               solver id (sched_select_opts.mzn_solver) */
    /* if set: called on each launch's summary after its L1 allocation
       (calibrate stores a published row's tensors in the row's formats) */
    void (*after_alloc)(sched_kernel *k, int launch, const arch_desc *a, sym_ctx *sc, void *ctx);
    void *after_alloc_ctx;
} drv_sched_opts;

typedef struct drv_result {
    /* everything below lives in the arena, except the source text (heap)
       and the symbol context, both released by drv_free */
    lm_arena arena;
    sym_ctx *sym;
    char *src;
    size_t len;
    fe_module *mod;
    fe_names names;
    drv_modules *modules; /* heap: the project's other modules the kernel imports from */
    fe_spec *spec;
    drv_launch *launches; /* the selected launches, in spec order */
    int nlaunches;
    drv_sched *sched;     /* drv_schedule's results (NULL before) */
} drv_result;

/* Compile. Errors are reported through d (the file's text is registered
 * with d, so messages quote the line); returns false after the first one.
 * r is filled as far as the compilation got and must be released with
 * drv_free in either case, after d is no longer used. */
bool drv_compile(drv_result *r, const drv_opts *o, lm_diag *d);
/* After drv_compile: summarise every selected launch for one chip, in o's
 * formats and at o's fidelity, with its L1 allocation (r->sched->kernels,
 * drv_launch.summary), without scheduling: for schedules made elsewhere
 * (TTNN's, a manual one). drv_schedule and drv_schedule_plan start here. */
bool drv_summarize(drv_result *r, const drv_sched_opts *o, lm_diag *d);
/* After drv_compile: schedule all selected launches for one chip. Errors
 * (a kernel the scheduler cannot place, a shape no candidate fits) are
 * reported through d; returns false. */
bool drv_schedule(drv_result *r, const drv_sched_opts *o, lm_diag *d);
/* After drv_compile: instead of solving, take the schedules of a plan file
 * (sched_plan_read) for the selected launches: each launch is summarised
 * (with o's formats and fidelity; top_k and node_limit are not used) and
 * its plan entry checked against it (kernel, mapping, every symbol the
 * lowering reads). `plan_file` names the plan in messages. */
bool drv_schedule_plan(drv_result *r, const sched_plan *p, const char *plan_file, const drv_sched_opts *o,
                       lm_diag *d);
/* ---- lower, validate, simulate, check (run.c) ---------------------------- */

typedef struct drv_run_opts {
    sched_run_opts run;      /* the chip, --check, --timing-only, --exact-exp, --trace, --seed, --print */
    double max_cycles;       /* > 0: stop once the programs' summed cycles reach this (censored; bench) */
    bool math_window;        /* device_cycles ends each program with its last math kernel (calibrate) */
    lm_diag *validate_diag;  /* where the validator reports (NULL: the run's diagnostics) */
    /* with run.check: write every tensor's data, in its DRAM rows x columns
       (float32 files DIR/{inputs,reference,simulated}/NAME.f32) */
    const char *save_data;
    /* with run.check: compare the outputs in DIR/NAME.f32 (same layout; a
       program emitted for a card, run elsewhere) instead of the simulator's */
    const char *outputs_from;
    /* with run.check: values of input tensors given by the caller, by name,
       each row-major with as many values as the tensor has elements; they
       are converted to the tensor's storage format as the pseudo-random
       ones are (an input not given is pseudo-random from run.seed) */
    const struct drv_tensor_data *inputs;
    int ninputs;
    /* with run.check: called after the run with each output tensor's
       simulated values (row-major, n of them, shape[0..t->rank)) */
    void (*output)(void *ctx, const tir_tensor *t, const int64_t *shape, const float *v, int64_t n);
    void *output_ctx;
    /* set: the job is one program, TTNN's own kernels for this pick
       (ttnn_kernel_program), instead of the lowering of the schedules; the
       schedules still give the reference its values */
    const ttnn_pick *kernel;
} drv_run_opts;

/* One tensor's values by name (drv_run_opts.inputs). */
typedef struct drv_tensor_data {
    const char *name;
    const float *v;
    int64_t n;
} drv_tensor_data;

typedef enum drv_run_stage {
    DRV_RUN_OK, DRV_RUN_INPUTS, DRV_RUN_LOWER, DRV_RUN_VALIDATE, DRV_RUN_SIMULATE, DRV_RUN_CHECK
} drv_run_stage;

typedef struct drv_run_result {
    sched_run_result run;    /* per program and summed: cycles, seconds, FLOPs; the check */
    drv_run_stage failed;    /* where the run stopped (DRV_RUN_OK: it did not) */
    int failed_launch;       /* the first launch of the program that failed */
    bool censored;           /* max_cycles reached before a program: run.cycles is max_cycles */
    double device_cycles;    /* summed over programs: from the kernels' start (after the kernel
                                launch) to the end, or to the last math kernel's end (math_window) */
} drv_run_result;

/* Lower each launch of a job (a fused pair is one program), validate,
 * simulate the programs in order and, with o->run.check, compare every
 * output with the Tile IR reference interpreter run on the same inputs.
 * The job's tensors are needed for the check only (NULL, 0 without it:
 * bench and calibrate). The one path from schedules to simulated figures
 * (loomc run, bench, calibrate; sched_run_job). */
bool drv_simulate(drv_run_result *out, const sched_kernel *const *k, const sched_schedule *const *s, int n,
                  const tir_tensor *const *tensors, int ntensors, const drv_run_opts *o, sym_ctx *sc, lm_diag *d);

/* ---- a TT-Metalium program instead of a simulation (target.c) -------------- */

struct df_program;

typedef struct drv_emit_opts {
    const char *dir;              /* the program directory to write */
    const char *kernel, *shape;   /* the kernel file and the shape as given, for comments */
    const char *origin;           /* where the schedule came from, for comments */
    const lm_buf *explain;        /* why this schedule (filled by the origin step), or NULL */
} drv_emit_opts;

/* Lower each launch of a job (a fused pair is one program), validate, and
 * write the TT-Metalium program of the whole job into o->dir (emit/). A
 * construct without a translation is an error at it; false after reporting. */
bool drv_emit(const drv_emit_opts *o, const sched_kernel *const *k, const sched_schedule *const *s, int n,
              const arch_desc *a, sym_ctx *sc, lm_diag *d);

/* Lower each launch of a job (a fused pair is one program) and validate
 * each program for a: the programs in *out (at most SCHED_MAX_LAUNCHES,
 * their number in *nout; df_free each, also after a failure), as drv_emit
 * writes them. False after reporting. */
bool drv_lower_job(struct df_program **out, int *nout, const sched_kernel *const *k, const sched_schedule *const *s,
                   int n, const arch_desc *a, sym_ctx *sc, lm_diag *d);

/* The same for dataflow programs as they are (loomc sim --emit): programs
 * bound and validated for a; `source` names them in the emitted comments. */
bool drv_emit_programs(const struct df_program *const *p, int n, const arch_desc *a, const char *source,
                       const char *dir, lm_diag *d);

/* One tensor's values as dir/sub/NAME.f32 (n little-endian float32 values, its
 * DRAM rows x columns): what --save-data writes and a program emitted for a
 * card reads. False after reporting. */
bool drv_save_tensor(const char *dir, const char *sub, const char *name, const float *v, int64_t n, lm_diag *d);

/* The CB ops each core of program number `program` of a job saw in the
 * simulation, as lines of dir/cb_counts.txt (started anew by program 0):
 * what the emitted program's run on the emulation must repeat. The card's
 * support CBs of p's classes are left out: the emitted compute kernel uses
 * them, the simulated ops do not. */
struct sim_result;
bool drv_save_cb_counts(const char *dir, int program, const struct df_program *p, const struct sim_result *r, lm_diag *d);

/* ---- where the schedules come from (origin.c) ------------------------------ */

typedef enum drv_origin_kind {
    DRV_ORIGIN_LOOM,       /* loomc's solver */
    DRV_ORIGIN_PLAN,       /* a plan file (loomc compile -o) */
    DRV_ORIGIN_TTNN,       /* TTNN's default schedule for the op */
    DRV_ORIGIN_TTNN_TUNED, /* the hand-tuned config of TTNN's GEMM benchmark */
    DRV_ORIGIN_TTNN_KERNEL, /* TTNN's own SDPA kernels for its default schedule, as dataflow programs
                               (ttnn_kernel_program): the schedules are TTNN's, the programs not lowered */
    DRV_ORIGIN_MANUAL,     /* a placement without a solver (drv_pick_schedules) */
} drv_origin_kind;

/* --place AXIS=P and --transport TENSOR=T, parsed */
typedef struct drv_place {
    int axis;
    sched_place place;
} drv_place;

typedef struct drv_transport {
    const char *tensor;
    sched_operand op;      /* its access is the load's own */
} drv_transport;

typedef struct drv_origin {
    drv_origin_kind kind;
    const char *name;      /* as the user gave it (--schedule): the plan file, messages */
    ttnn_sched_opts ttnn;  /* TTNN's options (its kind follows `kind`) */
    lm_buf *explain;       /* if not NULL: why this schedule (loomc's or TTNN's rules) */
    /* edits on top of every origin's schedules: --set, --place, --transport */
    const fe_kv *sets;
    int nsets;
    const drv_place *places;
    int nplaces;
    const drv_transport *transports;
    int ntransports;
} drv_origin;

/* The whole job (loomc run), in pass order: front end -> summary -> the
 * schedule by origin (loomc's: L1 probe -> candidates -> fuse -> select; or
 * a plan file, TTNN's, the manual one) and the edits -> lower -> validate
 * -> simulate -> check. r must be released with drv_free. */
typedef struct drv_job_opts {
    drv_opts front;
    drv_sched_opts sched;
    drv_origin origin;
    drv_run_opts run;
    const drv_emit_opts *emit; /* set: the last step writes a TT-Metalium program instead of simulating */
} drv_job_opts;

bool drv_job(drv_result *r, const drv_job_opts *o, drv_run_result *out, lm_diag *d);
/* The end of drv_job's order, after drv_pick_schedules: lower -> validate
 * -> simulate -> check, or lower -> validate -> the TT-Metalium program
 * (o->emit), on r->sched->run. o->front and o->origin are not used. */
bool drv_finish(drv_result *r, const drv_job_opts *o, drv_run_result *out, lm_diag *d);

/* After drv_schedule, drv_schedule_plan or drv_summarize (by origin): the
 * schedules to run (r->sched->run), the origin's own (TTNN's computed here,
 * the manual one built here), with the edits on top and their labels. */
bool drv_pick_schedules(drv_result *r, const drv_origin *org, const drv_sched_opts *o, lm_diag *d);
/* After drv_schedule: make the solution of rank `rank` (0: the best) of
 * r->sched->result.top every launch's chosen schedule, which the next
 * drv_pick_schedules of loomc's origin then takes. rank < result.ntop. */
void drv_choose(drv_result *r, int rank);
/* After drv_pick_schedules: each launch's summary and schedule to run, as
 * the arrays drv_simulate, drv_emit and drv_lower_job take; their number. */
int drv_picked(const drv_result *r, const sched_kernel **kp, const sched_schedule **sp);
/* TTNN's schedule of the summarised job: false with out->why when TTNN has
 * none (reported by the caller). out is released with ttnn_pick_free. */
bool drv_ttnn_schedule(ttnn_pick *out, drv_result *r, const ttnn_sched_opts *to, const arch_desc *a);

void drv_free(drv_result *r);

#endif
