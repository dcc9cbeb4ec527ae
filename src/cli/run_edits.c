/* run_edits.c - how 'loomc run' and 'loomc emit' read their command line
 * (cli_run_read, over either command's table; cli_run_option, run's own
 * options into run_args), the options that edit a schedule (--place,
 * --transport) and TTNN's options (--fidelity, --sdpa-config) for the
 * driver, and the schedule's origin; cmd_run.c and cmd_emit.c have the
 * tables and the calls. */
#include "cli/run_int.h"
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

bool cli_run_parse_pairs(const char *opt, const char *text, sp_vec *v, lm_arena *a)
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

/* T, or T@noc0 / T@noc1: the load on that NoC (its kernel: NoC 0 the
   reader, NoC 1 the writer) rather than the one the rule gives */
static bool parse_transport(const char *arg, sched_operand *o)
{
    char s[32];
    const char *at = strchr(arg, '@');
    size_t len = at ? (size_t)(at - arg) : strlen(arg);
    if (len >= sizeof s)
        return false;
    memcpy(s, arg, len);
    s[len] = 0;
    o->interior_sender = false;
    o->noc = SCHED_NOC_ANY;
    if (at && strcmp(at, "@noc0") && strcmp(at, "@noc1"))
        return false;
    if (at)
        o->noc = at[4] == '1' ? SCHED_NOC_1 : SCHED_NOC_0;
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

/* TTNN's options: the fidelity, and an SDPA program config; false after
 * reporting. */
bool cli_run_ttnn_options(const run_args *ra, ttnn_sched_opts *bo)
{
    *bo = (ttnn_sched_opts){0};
    bo->have_fidelity = ra->have_fidelity;
    bo->fidelity = ra->fidelity;
    bo->no_fuse = ra->no_fuse;
    if (ra->sdpa.len && strcmp(ra->schedule, "ttnn") && strcmp(ra->schedule, "ttnn-kernel")) {
        cli_usage_error("run", "--sdpa-config goes with --schedule ttnn or ttnn-kernel");
        return false;
    }
    for (size_t i = 0; i < ra->sdpa.len; i++) {
        const char *k = ra->sdpa.items[i].name;
        int64_t v = ra->sdpa.items[i].value;
        bool flag = !strcmp(k, "fp32_acc") || !strcmp(k, "interm_bf16");
        if (flag ? v != 0 && v != 1 : v < 0 || v > 1 << 20) {
            cli_usage_error("run", "--sdpa-config %s=%lld is out of range", k, (long long)v);
            return false;
        }
        if (!strcmp(k, "q_chunk"))
            bo->sdpa_q_chunk = (int)v;
        else if (!strcmp(k, "k_chunk"))
            bo->sdpa_k_chunk = (int)v;
        else if (!strcmp(k, "grid_x"))
            bo->sdpa_grid_x = (int)v;
        else if (!strcmp(k, "grid_y"))
            bo->sdpa_grid_y = (int)v;
        else if (!strcmp(k, "fp32_acc"))
            bo->have_fp32_acc = true, bo->fp32_acc = v != 0;
        else if (!strcmp(k, "interm_bf16"))
            bo->sdpa_interm_16b = v != 0;
        else if (!strcmp(k, "max_cores_per_head"))
            bo->sdpa_max_cores_per_head = (int)v;
        else {
            cli_usage_error("run", "--sdpa-config: unknown name '%s' (q_chunk, k_chunk, grid_x, grid_y, fp32_acc, "
                            "interm_bf16, max_cores_per_head)", k);
            return false;
        }
    }
    return true;
}

/* --transport and --place, read for the driver; false after reporting. */
bool cli_run_edit_options(const run_args *ra, drv_transport *tops, int ntops, drv_place *pls)
{
    for (size_t i = 0; i < ra->transports.len; i++)
        if (i >= (size_t)ntops || !parse_transport(ra->transports.items[i].val, &tops[i].op)) {
            cli_usage_error("run", "--transport %s=%s: expected dram, mcast:x, mcast:y, mcast:xy (optionally :mid), "
                            "forward:x or forward:y, optionally followed by @noc0 or @noc1", ra->transports.items[i].key, ra->transports.items[i].val);
            return false;
        } else {
            tops[i].tensor = ra->transports.items[i].key;
        }
    for (size_t i = 0; i < ra->places.len; i++) {
        char *end;
        long ax = strtol(ra->places.items[i].key, &end, 10);
        if (i >= TIR_MAX_GRID || *end || ax < 0 || ax >= TIR_MAX_GRID ||
            !parse_place(ra->places.items[i].val, &pls[i].place)) {
            cli_usage_error("run", "--place %s=%s: expected AXIS=x|y|xy|time with AXIS 0, 1 or 2",
                            ra->places.items[i].key, ra->places.items[i].val);
            return false;
        }
        pls[i].axis = (int)ax;
    }
    return true;
}


void cli_run_origin(const run_args *ra, const ttnn_sched_opts *bo, const drv_transport *tops, const drv_place *pls,
                    lm_buf *explain, drv_origin *org)
{
    org->kind = !strcmp(ra->schedule, "loom")         ? DRV_ORIGIN_LOOM
                : !strcmp(ra->schedule, "manual")     ? DRV_ORIGIN_MANUAL
                : !strcmp(ra->schedule, "ttnn")       ? DRV_ORIGIN_TTNN
                : !strcmp(ra->schedule, "ttnn-tuned") ? DRV_ORIGIN_TTNN_TUNED
                : !strcmp(ra->schedule, "ttnn-kernel") ? DRV_ORIGIN_TTNN_KERNEL
                                                       : DRV_ORIGIN_PLAN;
    org->name = ra->schedule;
    org->ttnn = *bo;
    org->explain = explain;
    org->sets = ra->sets.items;
    org->nsets = (int)ra->sets.len;
    org->places = pls;
    org->nplaces = (int)ra->places.len;
    org->transports = tops;
    org->ntransports = (int)ra->transports.len;
}

bool cli_run_option(run_args *ra, int id, const char *val, lm_arena *a)
{
    switch (id) {
    case R_SET:
        /* overrides on top of a base line: the later value wins */
        return cli_parse_kvs("run", "--set", val, CLI_KV_LATER_WINS, &ra->sets, a);
    case R_SDPA_CONFIG:
        return cli_parse_kvs("run", "--sdpa-config", val, CLI_KV_NAMES, &ra->sdpa, a);
    case R_PLACE:
        return cli_run_parse_pairs("--place", val, &ra->places, a);
    case R_TRANSPORT:
        return cli_run_parse_pairs("--transport", val, &ra->transports, a);
    case R_SCHEDULE:
        ra->schedule = val; /* loom, manual, ttnn, ttnn-tuned, ttnn-kernel or a plan file */
        return true;
    case R_SEED: {
        int64_t v;
        if (!lm_parse_i64(val, &v) || v < 0) {
            cli_usage_error("run", "--seed needs a non-negative integer, got '%s'", val);
            return false;
        }
        ra->seed = (uint64_t)v;
        return true;
    }
    case R_FIDELITY:
        ra->have_fidelity = true;
        return cli_parse_fidelity("run", val, &ra->fidelity);
    case R_FORMAT:
        ra->have_format = true;
        return cli_parse_format("run", val, &ra->fmt);
    case R_TRACE:
        ra->trace = val;
        return true;
    case R_EXPLAIN:
        ra->explain = true;
        return true;
    case R_NO_FUSE:
        ra->no_fuse = true;
        return true;
    case R_CHECK:
        ra->check = true;
        return true;
    case R_TIMING_ONLY:
        ra->timing_only = true;
        return true;
    case R_JSON:
        ra->json = true;
        return true;
    case R_EXACT_EXP:
        ra->exact_exp = true;
        return true;
    case R_PRINT:
        ra->print = true;
        return true;
    case R_QUIET:
        ra->quiet = true;
        return true;
    case R_PROFILE_CSV:
        ra->profile = val;
        return true;
    case R_SAVE_DATA:
        ra->save_data = val;
        return true;
    case R_OUTPUTS_FROM:
        ra->outputs_from = val;
        return true;
    }
    return true;
}

cli_read_status cli_run_read(const cli_command *cmd, int argc, char **argv, cli_kernel_opts *ko, run_args *ra,
                             lm_arena *a, bool (*own)(int id, const char *val, void *ctx), void *ctx)
{
    ko->table = cmd;
    for (int i = 1; i < argc; i++) {
        const cli_option *opt = NULL;
        const char *val = NULL;
        int64_t count;
        cli_take t = cli_table_opt(cmd, argc, argv, &i, &opt, &val, &count);
        if (t == CLI_TAKEN && opt->id == R_HELP) {
            cli_help_print(stdout, cmd);
            return CLI_READ_HELP;
        }
        if (t == CLI_TAKEN && opt->id >= R_NIDS) {
            if (!own || !own(opt->id, val, ctx))
                return CLI_READ_BAD;
        } else if (t == CLI_OTHER) {
            t = cli_kernel_opt(ko, argc, argv, &i);
        } else if (t == CLI_TAKEN && !cli_run_option(ra, opt->id, val, a)) {
            return CLI_READ_BAD;
        }
        if (t == CLI_BAD || (t == CLI_OTHER && !cli_kernel_arg(ko, argv[i])))
            return CLI_READ_BAD;
    }
    return cli_kernel_complete(ko) ? CLI_READ_OK : CLI_READ_BAD;
}
