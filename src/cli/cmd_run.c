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
#include "ttnn/ttnn.h"
#include "cli/cli.h"
#include "driver/driver.h"
#include "sched/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void run_help(FILE *f)
{
    fprintf(f,
            "usage: loomc run KERNEL.py --arch NAME|FILE --shape NAME=N[,...] [--const NAME=N]...\n"
            "                 [--kernel NAME] [--schedule loom|manual|ttnn|ttnn-tuned|PLAN.json]\n"
            "                 [--set NAME=N[,...]]... [--format F] [--explain]\n"
            "                 [--place AXIS=P[,...]] [--transport LOAD=T[,...]] [--check]\n"
            "                 [--timing-only] [--trace FILE] [--json] [--exact-exp] [--print]\n"
            "                 [--seed N] [--fidelity F] [--sdpa-config NAME=N[,...]] [--no-fuse]\n\n"
            "Compile the kernel, choose a schedule, lower every launch to a dataflow program\n"
            "(per-core reader, compute and writer kernels), simulate the launches one after\n"
            "the other on the chip and report the simulated cycles. With --check, the outputs\n"
            "are compared with the Tile IR reference interpreter run on the same inputs.\n\n"
            "options:\n"
            "  --arch NAME|FILE     hardware description (arch/NAME.yaml or a file)\n"
            "  --shape NAME=N,...   values of the launch spec's sizes (all are required)\n"
            "  --const NAME=N       an option of the launch spec, or pin a free constexpr\n"
            "  --kernel NAME        the launch spec to use, or a kernel it launches\n"
            "  --schedule loom      loomc's solver chooses (default)\n"
            "  --schedule PLAN.json the schedules of a plan file (loomc compile -o)\n"
            "  --schedule ttnn      TTNN's default schedule for the op (matmul, SDPA prefill,\n"
            "                       SDPA decode) as a loomc schedule (docs/baselines.md)\n"
            "  --schedule ttnn-tuned  the hand-tuned config of TTNN's GEMM benchmark (matmul)\n"
            "  --schedule manual    program axis 0 on core rows (y), axis 1 on columns (x),\n"
            "                       others a loop on each core; every load from DRAM; the\n"
            "                       grid as large as the programs allow; free constexprs must\n"
            "                       be given with --const or --set\n"
            "  --set NAME=N,...     override a value of the schedule: a free constexpr,\n"
            "                       grid.x, grid.y, depth.TENSOR, sub.h, sub.w\n"
            "  --place AXIS=P,...   put program axis AXIS (0, 1, 2) on x, y, xy or time\n"
            "  --transport LOAD=T   how loads of tensor LOAD travel: dram, mcast:x, mcast:y,\n"
            "                       mcast:xy, forward:x, forward:y (':mid' after mcast:x/y/xy:\n"
            "                       the middle core sends)\n"
            "  --check              compare every output with the reference interpreter\n"
            "  --timing-only        no arithmetic in the simulator (big shapes; no check)\n"
            "  --trace FILE         Chrome/Perfetto trace of the (first) launch\n"
            "  --json               the report as one JSON object\n"
            "  --exact-exp          exp in exact rather than the chip's approximate mode\n"
            "  --print              print the lowered dataflow programs first\n"
            "  --seed N             inputs are pseudo-random from N (default 0)\n"
            "  --fidelity F         matrix-engine fidelity: LoFi, HiFi2, HiFi3, HiFi4 (default:\n"
            "                       TTNN's rule, HiFi2, or LoFi when both inputs are block-float)\n"
            "  --format F           storage format of the DRAM tensors the kernel loads and\n"
            "                       stores: bf16, bfp8_b, bfp4_b (every schedule)\n"
            "  --explain            why this schedule: for ttnn, the TTNN rule behind each value\n"
            "  --sdpa-config NAME=N,...  --schedule ttnn for SDPA prefill with a program config:\n"
            "                       q_chunk, k_chunk (elements), grid_x, grid_y (the cores it\n"
            "                       may use), fp32_acc (0/1), interm_bf16 (1: TTNN's bf16\n"
            "                       intermediate CBs instead of fp32)\n"
            "  --no-fuse            (loom) do not fuse a launch with the next one that consumes\n"
            "                       its output block by block; (ttnn) keep SDPA decode's two launches\n"
            "  --help               show this text\n\n"
            "A job of several launches (a split kernel and its combine kernel) runs them in\n"
            "order; scratch tensors carry the data between them and the cycles add up, unless\n"
            "the schedule fuses two of them into one program (partial results over the NoC).\n"
            "exit status: 0 success (and check passed), 1 bad input, a schedule that cannot\n"
            "be lowered, a run-time error or a failed check, 2 internal error.\n");
}

typedef struct strpair {
    const char *key, *val;
} strpair;
typedef LM_VEC(strpair) sp_vec;

static bool parse_pairs(const char *opt, const char *text, sp_vec *v, lm_arena *a)
{
    const char *p = text;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = lm_arena_strndup(a, p, n);
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            cli_usage_error("run", "%s: expected KEY=VALUE, got '%s'", opt, item);
            return false;
        }
        *eq = 0;
        LM_PUSH(v, ((strpair){item, eq + 1}));
        if (!comma)
            break;
        p = comma + 1;
    }
    if (!v->len) {
        cli_usage_error("run", "%s needs KEY=VALUE", opt);
        return false;
    }
    return true;
}

static bool parse_place(const char *s, sched_place *out)
{
    static const struct {
        const char *n;
        sched_place p;
    } t[] = {{"x", SCHED_ON_X}, {"y", SCHED_ON_Y}, {"xy", SCHED_ON_XY}, {"time", SCHED_ON_TIME}};
    for (size_t i = 0; i < LM_COUNT(t); i++)
        if (!strcmp(s, t[i].n)) {
            *out = t[i].p;
            return true;
        }
    return false;
}

static bool parse_transport(const char *s, sched_operand *o)
{
    o->interior_sender = false;
    o->noc = SCHED_NOC_ANY;
    if (!strcmp(s, "dram")) {
        o->transport = SCHED_DRAM;
        o->along = SCHED_ON_TIME;
        return true;
    }
    char kind[16], along[8], mid[8] = "";
    int n = sscanf(s, "%15[a-z]:%7[a-z]:%7[a-z]", kind, along, mid);
    if (n < 2)
        return false;
    if (!strcmp(kind, "mcast"))
        o->transport = SCHED_MCAST;
    else if (!strcmp(kind, "forward"))
        o->transport = SCHED_FORWARD;
    else
        return false;
    if (!parse_place(along, &o->along) || o->along == SCHED_ON_TIME)
        return false;
    if (o->transport == SCHED_FORWARD && o->along == SCHED_ON_XY)
        return false;
    if (n == 3) {
        if (strcmp(mid, "mid") || o->transport != SCHED_MCAST)
            return false;
        o->interior_sender = true;
    }
    return true;
}

int cli_run(int argc, char **argv)
{
    lm_arena a;
    lm_arena_init(&a);
    cli_kernel_opts ko;
    cli_kernel_opts_init(&ko, "run", "missing --arch NAME|FILE", &a);
    cli_kvs sets = {0}, sdpa = {0};
    sp_vec places = {0}, transports = {0};
    const char *schedule = "loom", *trace = NULL;
    bool check = false, timing_only = false, json = false, exact_exp = false, print = false, no_fuse = false;
    uint64_t seed = 0;
    bool have_fidelity = false, have_format = false;
    arch_fidelity fidelity = ARCH_HIFI2;
    arch_format fmt = ARCH_BF16;
    bool explain = false;
    int rc = LOOMC_EUSER;
    bool err = false;
    drv_result r;
    memset(&r, 0, sizeof r);
    arch_desc *arch = NULL;
    lm_diag d;
    lm_diag_init(&d, stderr);
    for (int i = 1; i < argc && !err; i++) {
        const char *val = NULL;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            run_help(stdout);
            rc = LOOMC_OK;
            goto out;
        }
        cli_take t = cli_kernel_opt(&ko, argc, argv, &i);
        if (t == CLI_BAD)
            goto out;
        if (t == CLI_TAKEN)
            continue;
        if (cli_opt(argc, argv, &i, "--set", &val, &err)) {
            /* overrides on top of a base line: the later value wins */
            if (!err && !cli_parse_kvs("run", "--set", val, CLI_KV_LATER_WINS, &sets, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--sdpa-config", &val, &err)) {
            if (!err && !cli_parse_kvs("run", "--sdpa-config", val, CLI_KV_NAMES, &sdpa, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--place", &val, &err)) {
            if (!err && !parse_pairs("--place", val, &places, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--transport", &val, &err)) {
            if (!err && !parse_pairs("--transport", val, &transports, &a))
                goto out;
        } else if (cli_opt(argc, argv, &i, "--schedule", &val, &err)) {
            schedule = val; /* loom, manual, ttnn, ttnn-tuned or a plan file */
        } else if (cli_opt(argc, argv, &i, "--seed", &val, &err)) {
            char *end;
            if (!err) {
                errno = 0;
                unsigned long long v = strtoull(val, &end, 10);
                if (!*val || *end || errno) {
                    cli_usage_error("run", "--seed needs a non-negative integer, got '%s'", val);
                    goto out;
                }
                seed = v;
            }
        } else if (cli_opt(argc, argv, &i, "--fidelity", &val, &err)) {
            if (!err && !cli_parse_fidelity("run", val, &fidelity))
                goto out;
            have_fidelity = true;
        } else if (cli_opt(argc, argv, &i, "--format", &val, &err)) {
            if (!err && !cli_parse_format("run", val, &fmt))
                goto out;
            have_format = true;
        } else if (cli_flag(argv, i, "--explain")) {
            explain = true;
        } else if (cli_opt(argc, argv, &i, "--trace", &val, &err)) {
            trace = val;
        } else if (cli_flag(argv, i, "--no-fuse")) {
            no_fuse = true;
        } else if (cli_flag(argv, i, "--check")) {
            check = true;
        } else if (cli_flag(argv, i, "--timing-only")) {
            timing_only = true;
        } else if (cli_flag(argv, i, "--json")) {
            json = true;
        } else if (cli_flag(argv, i, "--exact-exp")) {
            exact_exp = true;
        } else if (cli_flag(argv, i, "--print")) {
            print = true;
        } else if (!cli_kernel_arg(&ko, argv[i])) {
            goto out;
        }
    }
    if (err || !cli_kernel_complete(&ko))
        goto out;
    if (check && timing_only) {
        cli_usage_error("run", "--check needs the arithmetic that --timing-only skips");
        goto out;
    }
    /* TTNN's options: the fidelity, and an SDPA program config */
    ttnn_sched_opts bo = {0};
    bo.have_fidelity = have_fidelity;
    bo.fidelity = fidelity;
    bo.no_fuse = no_fuse;
    if (sdpa.len && strcmp(schedule, "ttnn")) {
        cli_usage_error("run", "--sdpa-config goes with --schedule ttnn");
        goto out;
    }
    for (size_t i = 0; i < sdpa.len; i++) {
        const char *k = sdpa.items[i].name;
        int64_t v = sdpa.items[i].value;
        bool flag = !strcmp(k, "fp32_acc") || !strcmp(k, "interm_bf16");
        if (flag ? v != 0 && v != 1 : v < 0 || v > 1 << 20) {
            cli_usage_error("run", "--sdpa-config %s=%lld is out of range", k, (long long)v);
            goto out;
        }
        if (!strcmp(k, "q_chunk"))
            bo.sdpa_q_chunk = (int)v;
        else if (!strcmp(k, "k_chunk"))
            bo.sdpa_k_chunk = (int)v;
        else if (!strcmp(k, "grid_x"))
            bo.sdpa_grid_x = (int)v;
        else if (!strcmp(k, "grid_y"))
            bo.sdpa_grid_y = (int)v;
        else if (!strcmp(k, "fp32_acc"))
            bo.have_fp32_acc = true, bo.fp32_acc = v != 0;
        else if (!strcmp(k, "interm_bf16"))
            bo.sdpa_interm_16b = v != 0;
        else {
            cli_usage_error("run", "--sdpa-config: unknown name '%s' (q_chunk, k_chunk, grid_x, grid_y, fp32_acc, "
                            "interm_bf16)", k);
            goto out;
        }
    }
    drv_transport tops[16];
    for (size_t i = 0; i < transports.len; i++)
        if (i >= LM_COUNT(tops) || !parse_transport(transports.items[i].val, &tops[i].op)) {
            cli_usage_error("run", "--transport %s=%s: expected dram, mcast:x, mcast:y, mcast:xy (optionally :mid), "
                            "forward:x or forward:y", transports.items[i].key, transports.items[i].val);
            goto out;
        } else {
            tops[i].tensor = transports.items[i].key;
        }
    drv_place pls[TIR_MAX_GRID];
    for (size_t i = 0; i < places.len; i++) {
        char *end;
        long ax = strtol(places.items[i].key, &end, 10);
        if (i >= TIR_MAX_GRID || *end || ax < 0 || ax >= TIR_MAX_GRID || !parse_place(places.items[i].val, &pls[i].place)) {
            cli_usage_error("run", "--place %s=%s: expected AXIS=x|y|xy|time with AXIS 0, 1 or 2",
                            places.items[i].key, places.items[i].val);
            goto out;
        }
        pls[i].axis = (int)ax;
    }

    arch = arch_load(ko.arch, &d);
    if (!arch)
        goto out;
    /* the format and fidelity reach loomc's solver and a plan through the
       driver, TTNN's and the manual schedule too, each on the summary
       before it is scheduled */
    drv_job_opts jo = {.sched = {.arch = arch, .have_format = have_format, .format = fmt,
                                 .have_fidelity = have_fidelity, .fidelity = fidelity, .no_fuse = no_fuse}};
    cli_kernel_drv_opts(&ko, &jo.front);
    lm_buf explained = {0}, progs = {0};
    drv_origin *org = &jo.origin;
    org->kind = !strcmp(schedule, "loom")         ? DRV_ORIGIN_LOOM
                : !strcmp(schedule, "manual")     ? DRV_ORIGIN_MANUAL
                : !strcmp(schedule, "ttnn")       ? DRV_ORIGIN_TTNN
                : !strcmp(schedule, "ttnn-tuned") ? DRV_ORIGIN_TTNN_TUNED
                                                  : DRV_ORIGIN_PLAN;
    org->name = schedule;
    org->ttnn = bo;
    org->explain = explain ? &explained : NULL;
    org->sets = sets.items;
    org->nsets = (int)sets.len;
    org->places = pls;
    org->nplaces = (int)places.len;
    org->transports = tops;
    org->ntransports = (int)transports.len;
    jo.run.run = (sched_run_opts){.arch = arch, .check = check, .timing_only = timing_only, .exact_exp = exact_exp,
                                  .trace_path = trace, .seed = seed, .programs = print ? &progs : NULL};
    drv_run_result res;
    bool ok = drv_job(&r, &jo, &res, &d);
    fputs(lm_buf_str(&explained), stdout);
    if (print)
        fputs(lm_buf_str(&progs), stdout);
    lm_buf_free(&explained);
    lm_buf_free(&progs);
    if (ok) {
        lm_buf b = {0};
        cli_run_report(&b, &r, arch, &res.run, json);
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        rc = res.run.check == SCHED_CHECK_FAIL ? LOOMC_EUSER : LOOMC_OK;
        if (rc != LOOMC_OK)
            lm_error(&d, (lm_loc){"loomc run", 0, 0},
                     "the simulated outputs differ from the reference interpreter beyond the tolerance");
    }
out:
    drv_free(&r);
    if (arch)
        arch_free(arch);
    cli_kernel_opts_free(&ko);
    LM_VEC_FREE(&sets);
    LM_VEC_FREE(&sdpa);
    LM_VEC_FREE(&places);
    LM_VEC_FREE(&transports);
    lm_arena_free(&a);
    return rc;
}
