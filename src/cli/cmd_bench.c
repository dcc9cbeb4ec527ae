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

static void usage(FILE *f)
{
    fprintf(f,
            "usage: loomc bench SUITE... [options]\n"
            "       loomc bench --quick [SUITE...] [options]\n"
            "       loomc bench --model-quality SUITE... [options]\n\n"
            "Compile every shape of the suites with loomc and simulate (timing-only) loomc's pick,\n"
            "its next four, TTNN's default schedule, an oracle over loomc's schedule space and a\n"
            "budgeted tuner. Prints, per operator and chip: the speedup of loomc over TTNN\n"
            "(geomean, min, max), top-1 and top-5 regret against the best known schedule, the\n"
            "tuner's regret after N trials, and compile seconds; then a table per shape.\n"
            "Every figure is simulated, none is a hardware measurement (docs/evaluation.md).\n\n"
            "SUITE is a .suite file or a name in bench/ (gemm, attention, decode, ...).\n\n"
            "options:\n"
            "  --arch NAME           chip to run on (repeatable; default: the suite's 'arch' line)\n"
            "  --oracle-bound N      simulate every legal schedule when there are at most N,\n"
            "                        else a stratified sample of N (default: the suite's, else %d)\n"
            "  --tuner-trials LIST   the tuner's checkpoints, e.g. 10,100,1000 (default: the\n"
            "                        suite's, else 10,100,1000)\n"
            "  --no-tuner            skip the tuner\n"
            "  --no-oracle           skip the oracle (regret is then against loomc's five and the tuner)\n"
            "  --quick               the NAME-quick suites (all of them when no SUITE is given)\n"
            "  --model-quality       rank correlation of predicted and simulated cycles over the\n"
            "                        oracle's points, and the model's top-1 gap (no TTNN, no tuner)\n"
            "  --json FILE           every row as JSON\n"
            "  --plots DIR           gnuplot data, scripts and SVG plots (speedup, roofline, rank)\n"
            "  --seed N              seed of the oracle's sample and the tuner (default 1)\n"
            "  --cap F               stop oracle and tuner runs at F x the best so far (default 4)\n"
            "  --quiet               no progress lines on stderr\n"
            "exit status: 0 success, 1 bad input, 2 internal error\n",
            BENCH_DEFAULT_BOUND);
}

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

int cli_bench(int argc, char **argv)
{
    bench_opts o = {.seed = 1, .progress = true};
    const char *json = NULL, *plots = NULL;
    bool quick = false, err = false;
    LM_VEC(const char *) names = {0};
    LM_VEC(const char *) archs = {0};
    for (int i = 1; i < argc && !err; i++) {
        const char *v = NULL;
        if (cli_flag(argv, i, "--help") || cli_flag(argv, i, "-h")) {
            usage(stdout);
            LM_VEC_FREE(&names);
            LM_VEC_FREE(&archs);
            return LOOMC_OK;
        } else if (cli_opt(argc, argv, &i, "--arch", &v, &err)) {
            if (v)
                LM_PUSH(&archs, v);
        } else if (cli_opt(argc, argv, &i, "--json", &v, &err)) {
            json = v;
        } else if (cli_opt(argc, argv, &i, "--plots", &v, &err)) {
            plots = v;
        } else if (cli_opt(argc, argv, &i, "--oracle-bound", &v, &err)) {
            if (v && (!parse_i64(v, &o.oracle_bound) || o.oracle_bound <= 0)) {
                cli_usage_error("bench", "--oracle-bound needs a positive integer, got '%s'", v);
                err = true;
            }
        } else if (cli_opt(argc, argv, &i, "--tuner-trials", &v, &err)) {
            if (!v)
                continue;
            o.ntrials = 0;
            for (const char *p = v; !err;) {
                const char *c = strchr(p, ',');
                char item[32];
                size_t n = c ? (size_t)(c - p) : strlen(p);
                int64_t t;
                snprintf(item, sizeof item, "%.*s", (int)LM_MIN(n, sizeof item - 1), p);
                if (n >= sizeof item || !parse_i64(item, &t) || t <= 0 ||
                    (o.ntrials && t <= o.trials[o.ntrials - 1]) || o.ntrials == BENCH_MAX_MARKS) {
                    cli_usage_error("bench", "--tuner-trials needs up to %d increasing positive counts, got '%s'",
                                    BENCH_MAX_MARKS, v);
                    err = true;
                    break;
                }
                o.trials[o.ntrials++] = t;
                if (!c)
                    break;
                p = c + 1;
            }
        } else if (cli_opt(argc, argv, &i, "--seed", &v, &err)) {
            int64_t s;
            if (v && !parse_i64(v, &s)) {
                cli_usage_error("bench", "--seed needs an integer, got '%s'", v);
                err = true;
            } else if (v) {
                o.seed = (uint64_t)s;
            }
        } else if (cli_opt(argc, argv, &i, "--cap", &v, &err)) {
            if (v) {
                char *end;
                o.cap_factor = strtod(v, &end);
                if (*end || !(o.cap_factor >= 1.0)) {
                    cli_usage_error("bench", "--cap needs a factor of at least 1, got '%s'", v);
                    err = true;
                }
            }
        } else if (cli_flag(argv, i, "--quick")) {
            quick = true;
        } else if (cli_flag(argv, i, "--model-quality")) {
            o.model_quality = true;
        } else if (cli_flag(argv, i, "--no-tuner")) {
            o.no_tuner = true;
        } else if (cli_flag(argv, i, "--no-oracle")) {
            o.no_oracle = true;
        } else if (cli_flag(argv, i, "--quiet")) {
            o.progress = false;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_usage_error("bench", "unknown option '%s'", argv[i]);
            err = true;
        } else {
            LM_PUSH(&names, argv[i]);
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
    fputs(lm_buf_str(&out), stdout);
    lm_buf_free(&out);
    status = LOOMC_OK;
    if (json) {
        lm_buf j = {0};
        bench_json(&j, &b);
        FILE *f = fopen(json, "w");
        if (!f || fwrite(j.s ? j.s : "", 1, j.len, f) != j.len) {
            lm_error_plain(&d, "cannot write '%s': %s", json, strerror(errno));
            status = LOOMC_EUSER;
        }
        if (f)
            fclose(f);
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
