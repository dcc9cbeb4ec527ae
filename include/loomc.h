/* loomc.h - the public interface of libloomc, the library behind the loomc
 * command. loomc compiles Triton-style tile kernels for spatial dataflow
 * accelerators (Tenstorrent Wormhole, Blackhole) without tuning, and
 * simulates the result. docs/library.md describes the library, how to
 * build against it and an example.
 *
 * A compilation lives in a context (loomc_ctx): load a kernel and a
 * hardware description, bind the launch spec's sizes and constants, then
 * compile (the best schedules with their values, predicted cycles and the
 * reasons), lower (the dataflow programs as text), simulate (timing-only,
 * or functional on the caller's input values, with the outputs returned) or
 * emit a TT-Metalium program. Every call that can fail returns LOOMC_OK,
 * LOOMC_EUSER (bad input: the kernel, the description, a binding, a
 * schedule that does not fit) or LOOMC_EINTERNAL (a bug in loomc), and
 * leaves what went wrong in the context's diagnostics (file, line, column,
 * message). The library never prints and never exits the process.
 *
 * Thread safety: a context belongs to one thread at a time (calls on one
 * context must not overlap). Different contexts may be used at the same
 * time from different threads: the library keeps no shared mutable state.
 * What it reads from the process is read at each call: the environment
 * (LOOMC_ARCH_PATH for hardware descriptions by name, LOOMC_MINIZINC and
 * TMPDIR) and, for relative paths, the working directory.
 *
 * Lifetimes: strings passed in are copied. Pointers handed out (schedules,
 * tensors, programs, outputs, diagnostics) belong to the context and stay
 * valid until the context changes them (each function says when) or
 * loomc_ctx_free.
 *
 * Internal errors: a bug found by one of loomc's own checks during a call
 * ends that call with LOOMC_EINTERNAL and a LOOMC_INTERNAL diagnostic
 * naming loomc's own source file and line. The context is unusable after
 * it: every later call but the diagnostics' and loomc_ctx_free returns
 * LOOMC_EINTERNAL, and the memory of the failed compilation is not
 * released.
 */
#ifndef LOOMC_H
#define LOOMC_H

#ifdef __cplusplus
extern "C" {
#endif

#define LOOMC_VERSION "0.1.0"

/* What every call that can fail returns; the command's exit statuses. */
enum {
    LOOMC_OK = 0,        /* success */
    LOOMC_EUSER = 1,     /* bad input: reported as file:line:col: error: ... */
    LOOMC_EINTERNAL = 2, /* a bug in loomc, reported with where it happened */
};

/* "0.1.0": the library's version (LOOMC_VERSION of the library itself). */
const char *loomc_version(void);

/* ---- the context ------------------------------------------------------- */

typedef struct loomc_ctx loomc_ctx;

/* A new, empty context; NULL only when memory is exhausted. */
loomc_ctx *loomc_ctx_new(void);
/* Release the context and everything it handed out (NULL: nothing). */
void loomc_ctx_free(loomc_ctx *c);

/* ---- diagnostics ------------------------------------------------------- */

typedef enum loomc_severity {
    LOOMC_ERROR,    /* bad input */
    LOOMC_WARNING,
    LOOMC_NOTE,     /* more about the message before it */
    LOOMC_INTERNAL, /* a bug in loomc: file and line are loomc's own source */
} loomc_severity;

typedef struct loomc_diag {
    loomc_severity severity;
    const char *file;    /* the kernel's or description's name as given (NULL: no place) */
    int line, col;       /* 1-based; 0 when not known */
    const char *message; /* the message alone, without place or severity */
} loomc_diag;

/* The diagnostics of the last call that can fail (each such call starts a
 * new list), in the order they were reported. */
int loomc_diag_count(const loomc_ctx *c);
/* Diagnostic i (0 <= i < loomc_diag_count), or NULL. Valid until the next
 * call that can fail. */
const loomc_diag *loomc_diag_get(const loomc_ctx *c, int i);

/* ---- what to compile ----------------------------------------------------
 * Each of these drops what the context compiled, lowered or simulated. */

/* The kernel file (a Python file with @triton.jit kernels and a
 * @loomc.launch spec); it is read here. */
int loomc_load_kernel_file(loomc_ctx *c, const char *path);
/* The kernel's source text itself; `name` stands for the file in
 * diagnostics (and in an emitted program's comments). */
int loomc_load_kernel_string(loomc_ctx *c, const char *name, const char *source);
/* A folder the front end may search for files a kernel imports. The front
 * end resolves no imports of other files yet (triton, triton.language and
 * loomc are built in), so folders are checked and kept, not used. */
int loomc_add_include_dir(loomc_ctx *c, const char *dir);
/* The launch spec to use, or a kernel it launches, when the file has more
 * than one (the command's --kernel); NULL: the only one. */
int loomc_select_kernel(loomc_ctx *c, const char *name);

/* A size of the launch spec (the command's --shape NAME=VALUE); all are
 * required. Binding a name again replaces its value. */
int loomc_bind_shape(loomc_ctx *c, const char *name, long long value);
/* An option of the launch spec, or a free constexpr pinned to a value
 * (--const NAME=VALUE). Binding a name again replaces its value. */
int loomc_bind_const(loomc_ctx *c, const char *name, long long value);

/* The hardware description: a name on the search path (wormhole_n150,
 * blackhole_p150, ...; LOOMC_ARCH_PATH, ./arch, then the arch folder of the
 * installed tree or the source tree) or a YAML file (a path with '/' or
 * ending in .yaml). */
int loomc_set_arch(loomc_ctx *c, const char *name_or_file);
/* A description given as YAML text; `name` stands for its file in
 * diagnostics. */
int loomc_set_arch_string(loomc_ctx *c, const char *name, const char *yaml);

/* The matrix engine's fidelity: "LoFi", "HiFi2", "HiFi3" or "HiFi4" (NULL:
 * the default rule, HiFi2, or LoFi when both inputs are block-float). */
int loomc_set_fidelity(loomc_ctx *c, const char *fidelity);
/* The storage format of the DRAM tensors the kernels load and store:
 * "bf16", "bfp8_b" or "bfp4_b" (NULL: each element type's own). */
int loomc_set_format(loomc_ctx *c, const char *format);
/* The seed of the pseudo-random values of inputs a functional simulation
 * is not given (default 0, as the command's --seed). */
int loomc_set_seed(loomc_ctx *c, unsigned long long seed);

/* ---- compile ----------------------------------------------------------- */

typedef struct loomc_value {
    const char *name; /* M, BLOCK_M, grid.x, depth.a, sub.h, ... */
    long long value;
} loomc_value;

/* One launch of a schedule: a kernel the launch spec launches. */
typedef struct loomc_launch {
    const char *kernel;         /* the @triton.jit function */
    const char *mapping;        /* program axes on the grid and each load's transport, in words */
    const loomc_value *values;  /* every symbol's value, the spec's sizes included */
    int nvalues;
    long long predicted_cycles; /* loomc's model, this launch alone */
} loomc_launch;

/* One schedule of the whole job (every launch of the spec). */
typedef struct loomc_schedule {
    int rank;                    /* 0: the best */
    long long predicted_cycles;  /* loomc's model, the whole job (a prediction, not a simulation) */
    const loomc_launch *launches;
    int nlaunches;
    const char *explanation;     /* why: each value and what a step either way would do, the
                                    binding constraints, the latency terms (and, for rank 0,
                                    the runner-up), as text */
} loomc_schedule;

/* Compile and schedule: the front end, then loomc's solver for the chip,
 * keeping the `top_k` best schedules (at least 1). Drops what was lowered
 * or simulated. */
int loomc_compile(loomc_ctx *c, int top_k);
/* The schedules of the last loomc_compile, best first (0 when it failed). */
int loomc_schedule_count(const loomc_ctx *c);
/* Schedule `rank` (0 <= rank < loomc_schedule_count), or NULL; valid until
 * the next loomc_compile or a change of what to compile. */
const loomc_schedule *loomc_schedule_get(const loomc_ctx *c, int rank);

typedef enum loomc_role { LOOMC_INPUT, LOOMC_OUTPUT, LOOMC_SCRATCH } loomc_role;

enum { LOOMC_MAX_RANK = 8 };

/* A tensor of the job; with values for a simulation's outputs. */
typedef struct loomc_tensor {
    const char *name;
    loomc_role role;
    const char *dtype;                  /* "bf16", "f32", ... */
    int rank;
    long long shape[LOOMC_MAX_RANK];    /* with the sizes bound; -1 where not known */
    long long count;                    /* elements (the product of the shape) */
    const float *data;                  /* outputs: count values, row-major; else NULL */
} loomc_tensor;

/* The launch spec's tensors after a loomc_compile (0 when it failed), in
 * the spec's order; valid as the schedules are. */
int loomc_tensor_count(const loomc_ctx *c);
const loomc_tensor *loomc_tensor_get(const loomc_ctx *c, int i);

/* ---- lower ------------------------------------------------------------- */

/* Lower schedule `rank` of the last loomc_compile to dataflow programs
 * (one per launch, or per fused pair of launches) and validate them for the
 * chip. Without a compilation, rank 0 compiles first (top_k 1). */
int loomc_lower(loomc_ctx *c, int rank);
/* The programs of the last loomc_lower, in the text form `loomc sim` reads;
 * valid until the next loomc_lower, loomc_compile or change. */
int loomc_program_count(const loomc_ctx *c);
const char *loomc_program_text(const loomc_ctx *c, int i);

/* ---- simulate ---------------------------------------------------------- */

typedef enum loomc_sim_mode {
    LOOMC_SIM_TIMING,     /* cycles only: no arithmetic, no data (any size) */
    LOOMC_SIM_FUNCTIONAL, /* the values too: inputs in, outputs out, checked */
} loomc_sim_mode;

/* An input tensor's values, given by the caller: count values, row-major
 * in the tensor's shape (loomc_tensor_get tells it). They are converted to
 * the tensor's storage format as a host does (bf16: rounded to nearest
 * even) before the simulation and the reference both read them. */
typedef struct loomc_input {
    const char *name;
    const float *data;
    long long count;
} loomc_input;

typedef struct loomc_sim_result {
    double cycles;        /* simulated, the programs one after the other */
    double seconds;       /* simulated, at the chip's clock */
    int programs;         /* programs simulated */
    int checked;          /* functional: every output was compared with loomc's reference
                             interpreter run on the same inputs */
    int passed;           /* checked and within the tolerance of the chip's arithmetic */
    double max_rel_error; /* checked: the largest relative error of an output */
} loomc_sim_result;

/* Simulate schedule `rank` (as loomc_lower, compiling first for rank 0
 * when nothing is compiled). LOOMC_SIM_FUNCTIONAL takes the inputs given
 * (by name; each input not given is pseudo-random from the seed), returns
 * every output and checks them; a failed check is a LOOMC_WARNING, not a
 * failure. LOOMC_SIM_TIMING takes no inputs (ninputs 0). */
int loomc_simulate(loomc_ctx *c, int rank, loomc_sim_mode mode, const loomc_input *inputs, int ninputs);
/* The last successful loomc_simulate's figures, or NULL; valid until the
 * next loomc_simulate, loomc_compile or change. */
const loomc_sim_result *loomc_sim_get(const loomc_ctx *c);
/* Its outputs (functional: every output tensor, with data; else none). */
int loomc_output_count(const loomc_ctx *c);
const loomc_tensor *loomc_output_get(const loomc_ctx *c, int i);
/* The output of that name, or NULL. */
const loomc_tensor *loomc_output_find(const loomc_ctx *c, const char *name);

/* ---- emit -------------------------------------------------------------- */

/* Write the TT-Metalium program of schedule `rank` (host program, kernels,
 * CMake file, the schedule's values and why) into the folder dir
 * (docs/emit.md), as `loomc emit -o dir` does. */
int loomc_emit(loomc_ctx *c, int rank, const char *dir);

#ifdef __cplusplus
}
#endif

#endif
