/* cmd_compile.c - 'loomc compile KERNEL.py --arch NAME --shape ...': schedule
 * a kernel's launches for a chip without tuning and report the decision -
 * the mapping, every symbol's value and the predicted cycles - as text, with
 * --explain the reasons, with --json one JSON object, and with -o a plan
 * file that `loomc run --schedule` replays. Everything printed is
 * deterministic except the JSON member compile_seconds. What it prints, and
 * the models of --emit-mzn, are compile_report.c.
 */
#include "cli/cli.h"
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { C_HELP, C_TOP, C_JSON, C_EXPLAIN, C_O, C_NODE_LIMIT, C_NO_FUSE, C_EMIT_MZN, C_SOLVER, C_FIDELITY, C_FORMAT };

static const cli_option compile_opts[] = {
    {"--arch", CLI_SHARED, 0, "NAME|FILE", NULL, 0, 0,
     "the chip: a name on the search path (loomc arch --list) or a\nYAML file", 0},
    {"--shape", CLI_SHARED, 0, "NAME=N,...", NULL, 0, 0,
     "values of the launch spec's sizes (all are required)", 0},
    {"--const", CLI_SHARED, 0, "NAME=N", NULL, 0, 0,
     "set an option of the launch spec, or pin a free constexpr\n(the scheduler then keeps that value); repeatable", 0},
    {"--kernel", CLI_SHARED, 0, "NAME", NULL, 0, 0,
     "the launch spec to use, or a kernel it launches", 0},
    {"--include", CLI_SHARED, 0, "DIR", NULL, 0, 0,
     "a folder where the kernel's imports of its project's\n"
     "other modules are found, after the kernel's own;\n"
     "repeatable", 0},
    {"--format", CLI_VALUE, C_FORMAT, "F", NULL, 0, 0,
     "storage format of the DRAM tensors the kernel loads and\n"
     "stores: bf16, bfp8_b, bfp4_b (schedule for it; give run the\n"
     "same --format to replay a plan)", 0},
    {"--fidelity", CLI_VALUE, C_FIDELITY, "F", NULL, 0, 0, CLI_FIDELITY_HELP, 0},
    {"--top", CLI_COUNT, C_TOP, "K", NULL, 1, 1000,
     "also list the K best schedules across candidates", 0},
    {"--json", CLI_FLAG, C_JSON, NULL, NULL, 0, 0,
     "print one JSON object: the plan, candidate counts, the top\n"
     "schedules and compile_seconds (the only non-deterministic member)", 0},
    {"--explain", CLI_FLAG, C_EXPLAIN, NULL, NULL, 0, 0,
     "why: each symbol's value and what one step either way would\n"
     "do, constraints and their slack, latency terms, the runner-up", 0},
    {"-o", CLI_VALUE, C_O, "PLAN.json", NULL, 0, 0,
     "write the chosen schedule as a plan file ('-': standard\n"
     "output, and the report goes to standard error)", 0},
    {"--node-limit", CLI_COUNT, C_NODE_LIMIT, "N", "2000000", 1, (int64_t)1 << 40,
     "solver effort per candidate, in search nodes (default 2000000)", 0},
    {"--no-fuse", CLI_FLAG, C_NO_FUSE, NULL, NULL, 0, 0,
     "do not fuse a launch with the next one that consumes its\n"
     "output block by block (docs/scheduler.md, Fused launch pairs)", 0},
    {"--emit-mzn", CLI_VALUE, C_EMIT_MZN, "DIR", NULL, 0, 0,
     "write each candidate's problem as a MiniZinc model (+ data file)", 0},
    {"--solver", CLI_VALUE, C_SOLVER, "S", "builtin", 0, 0,
     "builtin (default), or minizinc[:ID]: solve every candidate by\n"
     "running the minizinc executable (Gecode unless ID names another\n"
     "installed solver) and pick the best the same way", 0},
    {"--help", CLI_FLAG, C_HELP, NULL, NULL, 0, 0,
     "show this text", 0},
    {"-h", CLI_FLAG, C_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command compile_cmd = {
    "compile",
    "usage: loomc compile KERNEL.py --arch NAME|FILE --shape NAME=N[,NAME=N...] [--const NAME=N]...\n"
    "                     [--kernel NAME] [--format F] [--fidelity F] [--top K] [--json]\n"
    "                     [--explain] [-o PLAN.json]\n"
    "                     [--emit-mzn DIR] [--solver builtin|minizinc[:ID]] [--no-fuse]\n"
    "\n"
    "Schedule the launches of KERNEL.py for a chip without profiling: enumerate the\n"
    "mappings of program axes onto the core grid and the transports of each loaded\n"
    "block (DRAM, multicast, forwarding), drop dominated ones, derive each one's\n"
    "constraints and latency from the hardware description, solve for the block\n"
    "sizes, grid, buffer depths and matmul sub-block exactly, and report the best\n"
    "(docs/scheduler.md).\n"
    "\n"
    "options:\n",
    23, compile_opts, (int)LM_COUNT(compile_opts),
    "\n"
    "exit status: 0 success, 1 bad input or no schedule fits (the message names the\n"
    "constraint), 2 internal error.\n"};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compile_main(int argc, char **argv, cli_json_errors *je)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "compile", "missing --arch NAME|FILE (the chip to schedule for)", &a);
    const char *out_path = NULL, *mzn_dir = NULL, *mzn_solver = NULL;
    bool json = false, explain = false, no_fuse = false, have_format = false, have_fidelity = false;
    arch_format fmt = ARCH_BF16;
    arch_fidelity fidelity = ARCH_HIFI2;
    int64_t top = 0, node_limit = 0;
    int rc = LOOMC_EUSER;
    arch_desc *arch = NULL;
    ko.table = &compile_cmd;
    for (int i = 1; i < argc; i++) {
        const cli_option *opt = NULL;
        const char *val = NULL;
        int64_t count = 0;
        cli_take t = cli_table_opt(&compile_cmd, argc, argv, &i, &opt, &val, &count);
        if (t == CLI_OTHER)
            t = cli_kernel_opt(&ko, argc, argv, &i);
        else if (t == CLI_TAKEN && opt->id == C_HELP) {
            cli_help_print(stdout, &compile_cmd);
            rc = LOOMC_OK;
            goto out;
        } else if (t == CLI_TAKEN) {
            switch (opt->id) {
            case C_JSON:
                json = true;
                break;
            case C_EXPLAIN:
                explain = true;
                break;
            case C_NO_FUSE:
                no_fuse = true;
                break;
            case C_TOP:
                top = count;
                break;
            case C_FORMAT:
                have_format = true;
                if (!cli_parse_format("compile", val, &fmt))
                    goto out;
                break;
            case C_FIDELITY:
                have_fidelity = true;
                if (!cli_parse_fidelity("compile", val, &fidelity))
                    goto out;
                break;
            case C_NODE_LIMIT:
                node_limit = count;
                break;
            case C_EMIT_MZN:
                mzn_dir = val;
                break;
            case C_SOLVER:
                if (!strcmp(val, "builtin")) {
                    mzn_solver = NULL;
                } else if (!strncmp(val, "minizinc", 8) && (val[8] == 0 || (val[8] == ':' && val[9]))) {
                    mzn_solver = val[8] ? val + 9 : "gecode";
                } else {
                    cli_usage_error("compile", "--solver must be builtin, minizinc or minizinc:ID, got '%s'", val);
                    goto out;
                }
                break;
            case C_O:
                if (out_path) {
                    cli_usage_error("compile", "-o is given twice");
                    goto out;
                }
                out_path = val;
                break;
            }
        }
        if (t == CLI_BAD)
            goto out;
        if (t == CLI_OTHER && !cli_kernel_arg(&ko, argv[i]))
            goto out;
    }
    if (!cli_kernel_complete(&ko))
        goto out;
    /* -o -: the plan has standard output, the report (and --json's errors) stderr */
    if (cli_is_stdout(out_path))
        je->to = stderr;
    /* before any work, so that a long compile does not fail at its end */
    if (!cli_output_check("compile", out_path) || !cli_output_dir_check("compile", "--emit-mzn", mzn_dir))
        goto out;
    const char *path = ko.path;

    double t0 = now_seconds();
    lm_diag d;
    lm_diag_init(&d, stderr);
    arch = arch_load(ko.arch, &d);
    if (!arch)
        goto out;
    drv_opts o;
    cli_kernel_drv_opts(&ko, &o);
    drv_result r;
    drv_sched_opts so = {.arch = arch, .top_k = (int)(top > 0 ? top : 1), .node_limit = node_limit,
                         .mzn_solver = mzn_solver, .no_fuse = no_fuse, .have_format = have_format,
                         .format = fmt, .have_fidelity = have_fidelity, .fidelity = fidelity};
    if (drv_compile(&r, &o, &d) && drv_schedule(&r, &so, &d)) {
        double secs = now_seconds() - t0;
        const drv_sched *ds = r.sched;
        const sched_result *res = &ds->result;
        const fe_spec *spec = r.spec;
        lm_buf mzn_note = {0};
        if (mzn_dir && !cli_compile_emit_models(&r, arch, path, mzn_dir, &mzn_note)) {
            lm_buf_free(&mzn_note);
            drv_free(&r);
            goto out;
        }

        /* the plan */
        sched_plan_kv *sk = LM_NEWN(&a, sched_plan_kv, ko.shapes.len + 1);
        for (size_t i = 0; i < ko.shapes.len; i++)
            sk[i] = (sched_plan_kv){ko.shapes.items[i].name, ko.shapes.items[i].value};
        sched_plan_kv *ck = LM_NEWN(&a, sched_plan_kv, ko.consts.len + 1);
        for (size_t i = 0; i < ko.consts.len; i++)
            ck[i] = (sched_plan_kv){ko.consts.items[i].name, ko.consts.items[i].value};
        sched_plan plan;
        sched_plan_from(&plan, &ds->job, res, path, spec->name, sk, (int)ko.shapes.len, ck, (int)ko.consts.len, &r.arena);
        cli_compile_out co = {&r, arch, path, &ko.shapes, &ko.consts, &plan, mzn_dir, mzn_solver,
                              lm_buf_str(&mzn_note), secs, top, explain};
        lm_buf b = {0};
        cli_compile_report(&b, &co, json);
        bool wrote = true;
        if (out_path) {
            lm_buf pb = {0};
            sched_plan_write(&pb, &plan);
            wrote = cli_output_write("compile", out_path, lm_buf_str(&pb));
            lm_buf_free(&pb);
        }
        /* -o -: the plan has standard output, the report goes to stderr */
        if (wrote)
            fputs(lm_buf_str(&b), cli_is_stdout(out_path) ? stderr : stdout);
        lm_buf_free(&b);
        lm_buf_free(&mzn_note);
        rc = wrote ? LOOMC_OK : LOOMC_EUSER;
    }
    drv_free(&r);
out:
    if (arch)
        arch_free(arch);
    cli_kernel_opts_free(&ko);
    lm_arena_free(&a);
    return rc;
}

int cli_compile(int argc, char **argv)
{
    cli_json_errors je;
    cli_json_begin(&je, &compile_cmd, argc, argv, C_JSON);
    return cli_json_end(&je, compile_main(argc, argv, &je));
}
