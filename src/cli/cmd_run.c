/* cmd_run.c - 'loomc run KERNEL.py --arch CHIP --shape ...': compile a
 * kernel's launches, schedule them (loomc's solver, or a placement given on
 * the command line), lower each to a dataflow program, simulate the
 * launches in order and, with --check, compare the outputs with the Tile IR
 * reference interpreter run on the same inputs. Every figure it prints is
 * the simulator's: labelled simulated, never a measurement.
 *
 * Exit status: 0 when the run finished (and --check passed), 1 for bad
 * input, a kernel or schedule that cannot be lowered, a run-time error of
 * the program, or a failed check.
 */
#include "cli/run_int.h"
#include "sched/sched.h"

static const cli_option run_opts[] = {
    {"--arch", CLI_SHARED, 0, "NAME|FILE", NULL, 0, 0,
     "hardware description (arch/NAME.yaml or a file)", 0},
    {"--shape", CLI_SHARED, 0, "NAME=N,...", NULL, 0, 0,
     "values of the launch spec's sizes (all are required)", 0},
    {"--const", CLI_SHARED, 0, "NAME=N", NULL, 0, 0,
     "an option of the launch spec, or pin a free constexpr", 0},
    {"--kernel", CLI_SHARED, 0, "NAME", NULL, 0, 0,
     "the launch spec to use, or a kernel it launches", 0},
    {"--include", CLI_SHARED, 0, "DIR", NULL, 0, 0,
     "a folder where the kernel's imports of its project's\n"
     "other modules are found, after the kernel's own;\n"
     "repeatable", 0},
    {"--schedule", CLI_VALUE, R_SCHEDULE, "loom", "loom", 0, 0,
     "loomc's solver chooses (default)", 0},
    {"--schedule", CLI_MORE, R_SCHEDULE, "PLAN.json", NULL, 0, 0,
     "the schedules of a plan file (loomc compile -o)", 0},
    {"--schedule", CLI_MORE, R_SCHEDULE, "ttnn", NULL, 0, 0,
     "TTNN's default schedule for the op (matmul, SDPA prefill,\n"
     "SDPA decode) as a loomc schedule (docs/baselines.md)", 0},
    {"--schedule", CLI_MORE, R_SCHEDULE, "ttnn-tuned", NULL, 0, 0,
     "the hand-tuned config of TTNN's GEMM benchmark (matmul)", 0},
    {"--schedule", CLI_MORE, R_SCHEDULE, "ttnn-kernel", NULL, 0, 0,
     "TTNN's own SDPA kernels (prefill, decode) for TTNN's\n"
     "config, written as dataflow programs, not lowered from\n"
     "the kernel (docs/baselines.md)", 0},
    {"--schedule", CLI_MORE, R_SCHEDULE, "manual", NULL, 0, 0,
     "program axis 0 on core rows (y), axis 1 on columns (x),\n"
     "others a loop on each core; every load from DRAM; the\n"
     "grid as large as the programs allow; free constexprs must\n"
     "be given with --const or --set", 0},
    {"--set", CLI_VALUE, R_SET, "NAME=N,...", NULL, 0, 0,
     "override a value of the schedule: a free constexpr,\ngrid.x, grid.y, depth.TENSOR, sub.h, sub.w; KERNEL.NAME\n(not a free constexpr) for that kernel's launches only", 0},
    {"--place", CLI_VALUE, R_PLACE, "AXIS=P,...", NULL, 0, 0,
     "put program axis AXIS (0, 1, 2) on x, y, xy or time", 0},
    {"--transport", CLI_VALUE, R_TRANSPORT, "LOAD=T", NULL, 0, 0,
     "how loads of tensor LOAD travel: dram, mcast:x, mcast:y,\n"
     "mcast:xy, forward:x, forward:y (':mid' after mcast:x/y/xy:\n"
     "the middle core sends; '@noc0' or '@noc1' after any: the NoC,\n"
     "so the kernel, that carries it - NoC 0 the reader, NoC 1 the writer)", 0},
    {"--check", CLI_FLAG, R_CHECK, NULL, NULL, 0, 0,
     "compare every output with the reference interpreter", 0},
    {"--timing-only", CLI_FLAG, R_TIMING_ONLY, NULL, NULL, 0, 0,
     "no arithmetic in the simulator (big shapes; no check)", 0},
    {"--trace", CLI_VALUE, R_TRACE, "FILE", NULL, 0, 0,
     "Chrome/Perfetto trace of every launch, one after the other\n"
     "('-': standard output, and the report goes to standard error)", 0},
    {"--profile-csv", CLI_VALUE, R_PROFILE_CSV, "FILE", NULL, 0, 0,
     "every launch's per-core, per-RISC kernel zones in the columns\n"
     "of tt-metal's device profiler log (docs/simulator.md)", 0},
    {"--json", CLI_FLAG, R_JSON, NULL, NULL, 0, 0,
     "the report as one JSON object", 0},
    {"--exact-exp", CLI_FLAG, R_EXACT_EXP, NULL, NULL, 0, 0,
     "exp in exact rather than the chip's approximate mode", 0},
    {"--print", CLI_FLAG, R_PRINT, NULL, NULL, 0, 0,
     "print the lowered dataflow programs first", 0},
    {"--seed", CLI_VALUE, R_SEED, "N", "0", 0, 0,
     "inputs are pseudo-random from N (default 0)", 0},
    {"--fidelity", CLI_VALUE, R_FIDELITY, "F", NULL, 0, 0, CLI_FIDELITY_HELP, 0},
    {"--format", CLI_VALUE, R_FORMAT, "F", NULL, 0, 0,
     "storage format of the DRAM tensors the kernel loads and\nstores: bf16, bfp8_b, bfp4_b (every schedule)", 0},
    {"--explain", CLI_FLAG, R_EXPLAIN, NULL, NULL, 0, 0,
     "why this schedule: for ttnn, the TTNN rule behind each value;\n"
     "with --set, --place, --transport or --schedule manual, the\n"
     "model's terms for the schedule as run too", 0},
    {"--sdpa-config", CLI_VALUE, R_SDPA_CONFIG, "NAME=N,...", NULL, 0, 0,
     "--schedule ttnn or ttnn-kernel with an SDPA program\n"
     "config: q_chunk, k_chunk (elements; decode: k_chunk),\n"
     "grid_x, grid_y (the cores prefill may use), fp32_acc\n"
     "(0/1), interm_bf16 (1, ttnn only: TTNN's bf16\n"
     "intermediate CBs instead of fp32), max_cores_per_head\n"
     "(decode)", 0},
    {"--no-fuse", CLI_FLAG, R_NO_FUSE, NULL, NULL, 0, 0,
     "(loom) do not fuse a launch with the next one that consumes\n"
     "its output block by block; (ttnn) keep SDPA decode's two launches", 0},
    {"--save-data", CLI_VALUE, R_SAVE_DATA, "DIR", NULL, 0, 0,
     "(with --check) write the inputs, the reference's and the\n"
     "simulator's outputs to DIR/{inputs,reference,simulated}/NAME.f32\n"
     "(float32, each tensor's DRAM rows x columns; docs/emit.md)", 0},
    {"--outputs-from", CLI_VALUE, R_OUTPUTS_FROM, "DIR", NULL, 0, 0,
     "(with --check) compare the outputs in DIR/NAME.f32 (a\n"
     "program from loomc emit, run elsewhere) with the reference\n"
     "instead of the simulator's", 0},
    {"--quiet", CLI_FLAG, R_QUIET, NULL, NULL, 0, 0,
     "no progress line on a terminal during long simulations", 0},
    {"--help", CLI_FLAG, R_HELP, NULL, NULL, 0, 0,
     "show this text", 0},
    {"-h", CLI_FLAG, R_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command run_cmd = {
    "run",
    "usage: loomc run KERNEL.py --arch NAME|FILE --shape NAME=N[,...] [--const NAME=N]...\n"
    "                 [--kernel NAME] [--schedule loom|manual|ttnn|ttnn-tuned|PLAN.json]\n"
    "                 [--set NAME=N[,...]]... [--format F] [--explain]\n"
    "                 [--place AXIS=P[,...]] [--transport LOAD=T[,...]] [--check]\n"
    "                 [--timing-only] [--trace FILE] [--profile-csv FILE] [--json]\n"
    "                 [--exact-exp] [--print] [--seed N] [--fidelity F]\n"
    "                 [--sdpa-config NAME=N[,...]] [--no-fuse] [--save-data DIR]\n"
    "                 [--outputs-from DIR] [--quiet]\n"
    "\n"
    "Compile the kernel, choose a schedule, lower every launch to a dataflow program\n"
    "(per-core reader, compute and writer kernels), simulate the launches one after\n"
    "the other on the chip and report the simulated cycles. With --check, the outputs\n"
    "are compared with the Tile IR reference interpreter run on the same inputs.\n"
    "\n"
    "options:\n",
    23, run_opts, (int)LM_COUNT(run_opts),
    "\n"
    "A job of several launches (a split kernel and its combine kernel) runs them in\n"
    "order; scratch tensors carry the data between them and the cycles add up, unless\n"
    "the schedule fuses two of them into one program (partial results over the NoC).\n"
    "exit status: 0 success (and check passed), 1 bad input, a schedule that cannot\n"
    "be lowered, a run-time error or a failed check, 2 internal error.\n"};

/* Options that do not go together, and the output paths, before any work
 * (a long run must not fail at its end); TTNN's options and the schedule
 * edits read for the driver. False after reporting. */
static bool check_args(const run_args *ra, ttnn_sched_opts *bo, drv_transport *tops, int ntops, drv_place *pls)
{
    if ((ra->save_data || ra->outputs_from) && !ra->check) {
        cli_usage_error("run", "%s needs --check", ra->save_data ? "--save-data" : "--outputs-from");
        return false;
    }
    if (ra->check && ra->timing_only) {
        cli_usage_error("run", "--check needs the arithmetic that --timing-only skips");
        return false;
    }
    if (cli_is_stdout(ra->trace) && cli_is_stdout(ra->profile)) {
        cli_usage_error("run", "--trace and --profile-csv cannot both write to standard output");
        return false;
    }
    return cli_output_check("run", ra->trace) && cli_output_check("run", ra->profile) &&
           cli_output_dir_check("run", "--save-data", ra->save_data) &&
           cli_run_ttnn_options(ra, bo) && cli_run_edit_options(ra, tops, ntops, pls);
}

/* The report of a finished job, to rep; the exit status (a failed check is 1). */
static int report(FILE *rep, const run_args *ra, const drv_result *r, const arch_desc *arch, const drv_run_result *res,
                  cli_json_errors *je)
{
    lm_buf b = {0};
    cli_run_report(&b, r, arch, &res->run, ra->json);
    if (ra->outputs_from && !ra->json)
        lm_buf_printf(&b, "the outputs checked are %s/NAME.f32, not the simulator's\n", ra->outputs_from);
    fputs(lm_buf_str(&b), rep);
    je->reported = ra->json; /* a failed check is in the report: no second document */
    lm_buf_free(&b);
    if (res->run.check != SCHED_CHECK_FAIL)
        return LOOMC_OK;
    cli_error("run", "the simulated outputs differ from the reference interpreter beyond the tolerance");
    return LOOMC_EUSER;
}

/* Compile, schedule, lower, simulate and check the job, then report. */
static int run_job(const cli_kernel_opts *ko, const run_args *ra, drv_job_opts *jo, drv_result *r, lm_diag *d,
                   cli_json_errors *je)
{
    const arch_desc *arch = jo->sched.arch;
    lm_buf explained = {0}, progs = {0};
    jo->origin.explain = ra->explain ? &explained : NULL;
    cli_kernel_drv_opts(ko, &jo->front);
    /* --trace - (or --profile-csv -): that file has standard output, the
       report goes to stderr */
    FILE *trace = ra->trace ? cli_output_open("run", ra->trace) : NULL;
    if (ra->trace && !trace)
        return LOOMC_EUSER;
    FILE *prof = ra->profile ? cli_output_open("run", ra->profile) : NULL;
    if (ra->profile && !prof) {
        if (trace)
            cli_output_close("run", ra->trace, trace);
        return LOOMC_EUSER;
    }
    FILE *rep = cli_is_stdout(ra->trace) || cli_is_stdout(ra->profile) ? stderr : stdout;
    je->to = rep;
    jo->run.run = (sched_run_opts){.arch = arch, .check = ra->check, .timing_only = ra->timing_only,
                                   .exact_exp = ra->exact_exp, .trace_file = trace, .seed = ra->seed,
                                   .programs = ra->print ? &progs : NULL, .profile_file = prof};
    jo->run.save_data = ra->save_data;
    jo->run.outputs_from = ra->outputs_from;
    lm_progress prog;
    lm_progress_init(&prog, stderr, ra->quiet);
    jo->run.run.progress = &prog;
    drv_run_result res;
    bool ok = drv_job(r, jo, &res, d);
    if (trace && !cli_output_close("run", ra->trace, trace))
        ok = false;
    if (prof && !cli_output_close("run", ra->profile, prof))
        ok = false;
    fputs(lm_buf_str(&explained), rep);
    fputs(lm_buf_str(&progs), rep);
    lm_buf_free(&explained);
    lm_buf_free(&progs);
    return ok ? report(rep, ra, r, arch, &res, je) : LOOMC_EUSER;
}

static int run_main(int argc, char **argv, cli_json_errors *je)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "run", "missing --arch NAME|FILE", &a);
    run_args ra = {.schedule = cli_table_row(&run_cmd, R_SCHEDULE)->dflt, .fidelity = ARCH_HIFI2, .fmt = ARCH_BF16};
    drv_result r = {0};
    lm_diag d;
    lm_diag_init(&d, stderr);
    ttnn_sched_opts bo;
    drv_transport tops[16];
    drv_place pls[TIR_MAX_GRID];
    int rc = LOOMC_EUSER;
    cli_read_status st = cli_run_read(&run_cmd, argc, argv, &ko, &ra, &a, NULL, NULL);
    if (st == CLI_READ_HELP)
        rc = LOOMC_OK;
    arch_desc *arch = NULL;
    if (st == CLI_READ_OK && check_args(&ra, &bo, tops, (int)LM_COUNT(tops), pls) && (arch = arch_load(ko.arch, &d))) {
        /* the format and fidelity reach every origin of a schedule through
           the driver, each on the summary before it is scheduled */
        drv_job_opts jo = {.sched = {.arch = arch, .have_format = ra.have_format, .format = ra.fmt,
                                     .have_fidelity = ra.have_fidelity, .fidelity = ra.fidelity,
                                     .no_fuse = ra.no_fuse}};
        cli_run_origin(&ra, &bo, tops, pls, NULL, &jo.origin);
        rc = run_job(&ko, &ra, &jo, &r, &d, je);
    }
    drv_free(&r);
    if (arch)
        arch_free(arch);
    cli_kernel_opts_free(&ko);
    LM_VEC_FREE(&ra.sets);
    LM_VEC_FREE(&ra.sdpa);
    LM_VEC_FREE(&ra.places);
    LM_VEC_FREE(&ra.transports);
    lm_arena_free(&a);
    return rc;
}

int cli_run(int argc, char **argv)
{
    cli_json_errors je;
    cli_json_begin(&je, &run_cmd, argc, argv, R_JSON);
    return cli_json_end(&je, run_main(argc, argv, &je));
}
