/* cmd_bench.c - 'loomc bench SUITE...': run benchmark suites (bench/NAME.suite,
 * docs/evaluation.md) and print the evaluation table - loomc against
 * TTNN's defaults, an oracle and a budgeted tuner, all on the simulator -
 * with optional JSON and gnuplot plots; '--model-quality' prints how well
 * loomc's predicted cycles rank schedules instead.
 *
 * A SUITE is a file (a path, or anything ending in .suite) or a name looked
 * up as NAME.suite in ./bench, then in the bench/ folder found by walking up
 * from the executable's folder. '--quick' turns a name into NAME-quick and,
 * with no SUITE, runs every quick suite.
 */
#include "cli/cli.h"
#include "bench/bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    B_HELP, B_ARCH, B_ORACLE_BOUND, B_TUNER_TRIALS, B_NO_TUNER, B_NO_ORACLE, B_QUICK, B_MODEL_QUALITY, B_JSON,
    B_PLOTS, B_SEED, B_CAP, B_QUIET
};

static const cli_option bench_rows[] = {
    {"--arch", CLI_VALUE, B_ARCH, "NAME", NULL, 0, 0,
     "chip to run on (repeatable; default: the suite's 'arch' line)", 0},
    {"--oracle-bound", CLI_VALUE, B_ORACLE_BOUND, "N", NULL, 0, 0,
     "simulate every legal schedule when there are at most N,\n"
     "else a stratified sample of N (default: the suite's, else %N)",
     BENCH_DEFAULT_BOUND},
    {"--tuner-trials", CLI_VALUE, B_TUNER_TRIALS, "LIST", NULL, 0, 0,
     "the tuner's checkpoints, e.g. 10,100,1000 (default: the\nsuite's, else 10,100,1000)", 0},
    {"--no-tuner", CLI_FLAG, B_NO_TUNER, NULL, NULL, 0, 0,
     "skip the tuner", 0},
    {"--no-oracle", CLI_FLAG, B_NO_ORACLE, NULL, NULL, 0, 0,
     "skip the oracle (regret is then against loomc's five and the tuner)", 0},
    {"--quick", CLI_FLAG, B_QUICK, NULL, NULL, 0, 0,
     "the NAME-quick suites (all of them when no SUITE is given)", 0},
    {"--model-quality", CLI_FLAG, B_MODEL_QUALITY, NULL, NULL, 0, 0,
     "rank correlation of predicted and simulated cycles over the\n"
     "oracle's points, and the model's top-1 gap (no TTNN, no tuner)", 0},
    {"--json", CLI_VALUE, B_JSON, "FILE", NULL, 0, 0,
     "every row as JSON ('-': standard output, and the table goes\n"
     "to standard error)", 0},
    {"--plots", CLI_VALUE, B_PLOTS, "DIR", NULL, 0, 0,
     "gnuplot data, scripts and SVG plots (speedup, roofline, rank)", 0},
    {"--seed", CLI_VALUE, B_SEED, "N", "1", 0, 0,
     "seed of the oracle's sample and the tuner (default 1)", 0},
    {"--cap", CLI_VALUE, B_CAP, "F", "4", 0, 0,
     "stop oracle and tuner runs at F x the best so far (default 4)", 0},
    {"--quiet", CLI_FLAG, B_QUIET, NULL, NULL, 0, 0,
     "no progress lines on stderr", 0},
    {"--help", CLI_FLAG, B_HELP, NULL, NULL, 0, 0, NULL, 0},
    {"-h", CLI_FLAG, B_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command bench_cmd = {
    "bench",
    "usage: loomc bench SUITE... [options]\n"
    "       loomc bench --quick [SUITE...] [options]\n"
    "       loomc bench --model-quality SUITE... [options]\n"
    "\n"
    "Compile every shape of the suites with loomc and simulate (timing-only) loomc's pick,\n"
    "its next four, TTNN's default schedule, an oracle over loomc's schedule space and a\n"
    "budgeted tuner. Prints, per operator and chip: the speedup of loomc over TTNN\n"
    "(geomean, min, max), top-1 and top-5 regret against the best known schedule, the\n"
    "tuner's regret after N trials, and compile seconds; then a table per shape.\n"
    "Every figure is simulated, none is a hardware measurement (docs/evaluation.md).\n"
    "\n"
    "SUITE is a .suite file or a name in bench/ (gemm, attention, decode, ...).\n"
    "\n"
    "options:\n",
    24, bench_rows, (int)LM_COUNT(bench_rows),
    "exit status: 0 success, 1 bad input, 2 internal error\n"};

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The suite file for a name, or NULL. */
static char *find_suite(const char *name)
{
    char path[4600];
    snprintf(path, sizeof path, "bench/%s.suite", name);
    if (is_file(path))
        return lm_xstrdup(path);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    for (int level = 0; level <= 4; level++) {
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe)
            return NULL;
        *slash = 0;
        snprintf(path, sizeof path, "%s/bench/%s.suite", exe, name);
        if (is_file(path))
            return lm_xstrdup(path);
    }
    return NULL;
}

static bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return false;
    *out = v;
    return true;
}

typedef LM_VEC(const char *) str_vec;

/* One of bench's own options (bench_rows); false after reporting. */
static bool bench_option(bench_opts *o, int id, const char *v, str_vec *archs, const char **json, const char **plots,
                         bool *quick)
{
    switch (id) {
    case B_ARCH:
        LM_PUSH(archs, v);
        return true;
    case B_JSON:
        *json = v;
        return true;
    case B_PLOTS:
        *plots = v;
        return true;
    case B_ORACLE_BOUND:
        if (!parse_i64(v, &o->oracle_bound) || o->oracle_bound <= 0) {
            cli_usage_error("bench", "--oracle-bound needs a positive integer, got '%s'", v);
            return false;
        }
        return true;
    case B_TUNER_TRIALS:
        o->ntrials = 0;
        for (const char *p = v;;) {
            const char *c = strchr(p, ',');
            char item[32];
            size_t n = c ? (size_t)(c - p) : strlen(p);
            int64_t t;
            snprintf(item, sizeof item, "%.*s", (int)LM_MIN(n, sizeof item - 1), p);
            if (n >= sizeof item || !parse_i64(item, &t) || t <= 0 ||
                (o->ntrials && t <= o->trials[o->ntrials - 1]) || o->ntrials == BENCH_MAX_MARKS) {
                cli_usage_error("bench", "--tuner-trials needs up to %d increasing positive counts, got '%s'",
                                BENCH_MAX_MARKS, v);
                return false;
            }
            o->trials[o->ntrials++] = t;
            if (!c)
                break;
            p = c + 1;
        }
        return true;
    case B_SEED: {
        int64_t s;
        if (!parse_i64(v, &s)) {
            cli_usage_error("bench", "--seed needs an integer, got '%s'", v);
            return false;
        }
        o->seed = (uint64_t)s;
        return true;
    }
    case B_CAP: {
        char *end;
        o->cap_factor = strtod(v, &end);
        if (*end || !(o->cap_factor >= 1.0)) {
            cli_usage_error("bench", "--cap needs a factor of at least 1, got '%s'", v);
            return false;
        }
        return true;
    }
    case B_QUICK:
        *quick = true;
        return true;
    case B_MODEL_QUALITY:
        o->model_quality = true;
        return true;
    case B_NO_TUNER:
        o->no_tuner = true;
        return true;
    case B_NO_ORACLE:
        o->no_oracle = true;
        return true;
    case B_QUIET:
        o->progress = false;
        return true;
    }
    return true;
}

int cli_bench(int argc, char **argv)
{
    bench_opts o = {.seed = 1, .progress = true};
    const char *json = NULL, *plots = NULL;
    bool quick = false, err = false;
    str_vec names = {0}, archs = {0};
    for (int i = 1; i < argc && !err; i++) {
        const cli_option *opt = NULL;
        const char *v = NULL;
        int64_t count;
        cli_take t = cli_table_opt(&bench_cmd, argc, argv, &i, &opt, &v, &count);
        if (t == CLI_BAD) {
            err = true;
        } else if (t == CLI_OTHER && argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option(&bench_cmd, argv[i], "option");
            err = true;
        } else if (t == CLI_OTHER) {
            LM_PUSH(&names, argv[i]);
        } else if (opt->id == B_HELP) {
            cli_help_print(stdout, &bench_cmd);
            LM_VEC_FREE(&names);
            LM_VEC_FREE(&archs);
            return LOOMC_OK;
        } else {
            err = !bench_option(&o, opt->id, v, &archs, &json, &plots, &quick);
        }
    }
    if (!err && !names.len && !quick) {
        cli_usage_error("bench", "no suite given");
        err = true;
    }
    if (!err && o.model_quality && o.no_oracle) {
        cli_usage_error("bench", "--model-quality needs the oracle; it cannot be combined with --no-oracle");
        err = true;
    }
    /* before any work: a suite runs for hours, and must not fail at its end */
    if (!err && (!cli_output_check("bench", json) || !cli_output_dir_check("bench", "--plots", plots)))
        err = true;
    if (err) {
        LM_VEC_FREE(&names);
        LM_VEC_FREE(&archs);
        return LOOMC_EUSER;
    }
    if (!names.len) {
        static const char *const all[] = {"gemm", "attention", "decode"};
        for (size_t i = 0; i < LM_COUNT(all); i++)
            LM_PUSH(&names, all[i]);
    }

    int status = LOOMC_EUSER;
    lm_diag d;
    lm_diag_init(&d, stderr);
    lm_arena ar;
    lm_arena_init(&ar);
    size_t nsu = names.len;
    bench_suite *suites = lm_xcalloc(nsu, sizeof *suites);
    char **texts = lm_xcalloc(nsu, sizeof *texts);
    bench_result b = {0};
    bool ran = false;
    for (size_t i = 0; i < nsu; i++) {
        const char *nm = names.items[i];
        char *path = NULL;
        size_t ln = strlen(nm);
        if (strchr(nm, '/') || (ln > 6 && !strcmp(nm + ln - 6, ".suite"))) {
            path = lm_xstrdup(nm);
        } else {
            const char *want = quick ? lm_arena_printf(&ar, "%s-quick", nm) : nm;
            path = find_suite(want);
            if (!path) {
                lm_error_plain(&d, "no suite named '%s' (looked for bench/%s.suite)", want, want);
                goto out;
            }
        }
        char why[512];
        size_t len = 0;
        texts[i] = lm_read_file(path, &len, why, sizeof why);
        const char *file = lm_arena_strdup(&ar, path);
        free(path);
        if (!texts[i]) {
            lm_error_plain(&d, "%s", why);
            goto out;
        }
        lm_diag_add_source(&d, file, texts[i], len);
        if (!bench_suite_parse(&suites[i], file, texts[i], len, &ar, &d))
            goto out;
    }
    o.archs = archs.items;
    o.narchs = (int)archs.len;
    ran = true;
    if (!bench_run(&b, suites, (int)nsu, &o, &d))
        goto out;
    lm_buf out = {0};
    if (o.model_quality)
        bench_print_quality(&out, &b);
    else
        bench_print(&out, &b);
    /* --json -: the JSON has standard output, the table goes to stderr */
    fputs(lm_buf_str(&out), cli_is_stdout(json) ? stderr : stdout);
    lm_buf_free(&out);
    status = LOOMC_OK;
    if (json) {
        lm_buf j = {0};
        bench_json(&j, &b);
        if (!cli_output_write("bench", json, lm_buf_str(&j)))
            status = LOOMC_EUSER;
        lm_buf_free(&j);
    }
    if (plots && !bench_plots(&b, plots, &d))
        status = LOOMC_EUSER;
out:
    if (ran)
        bench_free(&b);
    for (size_t i = 0; i < nsu; i++)
        free(texts[i]);
    free(texts);
    free(suites);
    lm_arena_free(&ar);
    LM_VEC_FREE(&names);
    LM_VEC_FREE(&archs);
    return status;
}
