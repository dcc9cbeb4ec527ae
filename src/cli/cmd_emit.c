/* cmd_emit.c - 'loomc emit KERNEL.py --arch CHIP --shape ... -o DIR': compile
 * a kernel's launches, schedule them as 'loomc run' does (the same
 * --schedule, --set, --place, --transport, --format, --fidelity options),
 * lower each to a dataflow program and write the TT-Metalium program of the
 * job into DIR (docs/emit.md): nothing is simulated.
 *
 * Exit status: 0 when the program was written, 1 for bad input, a schedule
 * that cannot be lowered or a construct without a translation.
 */
#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/run_int.h"
#include "driver/driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E_OUT = R_NIDS };

static const cli_option emit_opts[] = {
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
    {"-o", CLI_VALUE, E_OUT, "DIR", NULL, 0, 0,
     "the program's directory (created; files in it are replaced)", 0},
    {"--schedule", CLI_VALUE, R_SCHEDULE, "loom", "loom", 0, 0,
     "loomc's solver chooses (default); also PLAN.json, ttnn,\n"
     "ttnn-tuned, manual, as for loomc run", 0},
    {"--set", CLI_VALUE, R_SET, "NAME=N,...", NULL, 0, 0,
     "override a value of the schedule (as for loomc run)", 0},
    {"--place", CLI_VALUE, R_PLACE, "AXIS=P,...", NULL, 0, 0,
     "put program axis AXIS on x, y, xy or time (as for loomc run)", 0},
    {"--transport", CLI_VALUE, R_TRANSPORT, "LOAD=T", NULL, 0, 0,
     "how loads of tensor LOAD travel (as for loomc run)", 0},
    {"--fidelity", CLI_VALUE, R_FIDELITY, "F", NULL, 0, 0,
     "matrix-engine fidelity: LoFi, HiFi2, HiFi3, HiFi4", 0},
    {"--format", CLI_VALUE, R_FORMAT, "F", NULL, 0, 0,
     "storage format of the DRAM tensors the kernel loads and stores", 0},
    {"--sdpa-config", CLI_VALUE, R_SDPA_CONFIG, "NAME=N,...", NULL, 0, 0,
     "--schedule ttnn for SDPA prefill with a program config", 0},
    {"--no-fuse", CLI_FLAG, R_NO_FUSE, NULL, NULL, 0, 0,
     "do not fuse launches (as for loomc run)", 0},
    {"--help", CLI_FLAG, R_HELP, NULL, NULL, 0, 0,
     "show this text", 0},
    {"-h", CLI_FLAG, R_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command emit_cmd = {
    "emit",
    "usage: loomc emit KERNEL.py --arch NAME|FILE --shape NAME=N[,...] [--const NAME=N]...\n"
    "                  [--kernel NAME] [--schedule loom|manual|ttnn|ttnn-tuned|PLAN.json]\n"
    "                  [--set NAME=N[,...]]... [--place AXIS=P[,...]] [--transport LOAD=T[,...]]\n"
    "                  [--fidelity F] [--format F] [--sdpa-config NAME=N[,...]] [--no-fuse] -o DIR\n"
    "\n"
    "Compile the kernel, choose a schedule as 'loomc run' does, lower every launch to a\n"
    "dataflow program and write the job as a TT-Metalium program into DIR: a host\n"
    "program, a reader, compute and writer kernel per core class and launch, the\n"
    "schedule's values with why they were chosen, and a CMake file that builds\n"
    "against an installed tt-metal. Nothing is simulated.\n"
    "\n"
    "options:\n",
    23, emit_opts, (int)LM_COUNT(emit_opts),
    "\n"
    "The program reads each input from DIR's inputs/NAME.f32 and writes each output\n"
    "to outputs/NAME.f32 (float32; 'loomc run --check --save-data' writes inputs and\n"
    "reference outputs in that layout, '--outputs-from' checks outputs). docs/emit.md\n"
    "names the tt-metal release it targets and the constructs it translates.\n"
    "exit status: 0 written, 1 bad input, a schedule that cannot be lowered or a\n"
    "construct without a translation, 2 internal error.\n"};

/* The shape and constants as given, for the program's comments. */
static void shape_text(lm_buf *b, const fe_launch_opts *lo)
{
    for (int i = 0; i < lo->nshapes; i++)
        lm_buf_printf(b, "%s%s=%lld", i ? "," : "", lo->shapes[i].name, (long long)lo->shapes[i].value);
    for (int i = 0; i < lo->nconsts; i++)
        lm_buf_printf(b, ", %s=%lld", lo->consts[i].name, (long long)lo->consts[i].value);
}

/* emit's own option: -o DIR */
static bool take_out(int id, const char *val, void *dir)
{
    if (id == E_OUT)
        *(const char **)dir = val;
    return true;
}

int cli_emit(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "emit", "missing --arch NAME|FILE", &a);
    run_args ra = {.schedule = cli_table_row(&emit_cmd, R_SCHEDULE)->dflt, .fidelity = ARCH_HIFI2, .fmt = ARCH_BF16};
    const char *dir = NULL;
    int rc = LOOMC_EUSER;
    drv_result r;
    memset(&r, 0, sizeof r);
    arch_desc *arch = NULL;
    lm_diag d;
    lm_diag_init(&d, stderr);
    switch (cli_run_read(&emit_cmd, argc, argv, &ko, &ra, &a, take_out, &dir)) {
    case CLI_READ_HELP:
        rc = LOOMC_OK;
        goto out;
    case CLI_READ_BAD:
        goto out;
    case CLI_READ_OK:
        break;
    }
    if (!dir) {
        cli_usage_error("emit", "missing -o DIR (the program's directory)");
        goto out;
    }
    if (!cli_output_dir_check("emit", "-o", dir))
        goto out;
    ttnn_sched_opts bo;
    drv_transport tops[16];
    drv_place pls[TIR_MAX_GRID];
    if (!cli_run_ttnn_options(&ra, &bo) || !cli_run_edit_options(&ra, tops, (int)LM_COUNT(tops), pls))
        goto out;
    arch = arch_load(ko.arch, &d);
    if (!arch)
        goto out;
    drv_job_opts jo = {.sched = {.arch = arch, .have_format = ra.have_format, .format = ra.fmt,
                                 .have_fidelity = ra.have_fidelity, .fidelity = ra.fidelity, .no_fuse = ra.no_fuse}};
    cli_kernel_drv_opts(&ko, &jo.front);
    lm_buf explained = {0}, shape = {0};
    /* manual schedules have no explanation to carry */
    bool manual = !strcmp(ra.schedule, "manual");
    cli_run_origin(&ra, &bo, tops, pls, manual ? NULL : &explained, &jo.origin);
    shape_text(&shape, &jo.front.launch);
    const char *base = strrchr(jo.front.path, '/');
    drv_emit_opts eo = {.dir = dir, .kernel = base ? base + 1 : jo.front.path, .shape = lm_buf_str(&shape),
                        .origin = ra.schedule, .explain = &explained};
    jo.emit = &eo;
    jo.run.run.arch = arch;
    drv_run_result res;
    if (drv_job(&r, &jo, &res, &d)) {
        printf("loomc emit: wrote the TT-Metalium program of %s for %s into %s\n", eo.kernel, arch->name, dir);
        rc = LOOMC_OK;
    }
    lm_buf_free(&explained);
    lm_buf_free(&shape);
out:
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
