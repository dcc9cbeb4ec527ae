/* cmd_bench.c - 'loomc bench SUITE...': run benchmark suites (bench/NAME.suite,
 * docs/evaluation.md) and print the evaluation table - loomc against
 * TTNN's defaults, an oracle and a budgeted tuner, all on the simulator -
 * with optional JSON, gnuplot plots and an HTML page; '--model-quality'
 * prints how well loomc's predicted cycles rank schedules instead.
 *
 * A SUITE is a file (a path, or anything ending in .suite) or a name looked
 * up as NAME.suite in ./bench, then in the bench/ folder found by walking up
 * from the executable's folder. '--quick' turns a name into NAME-quick and,
 * with no SUITE, runs every quick suite.
 */
#include "cli/cli.h"
#include "bench/bench.h"

#include <stdlib.h>
#include <string.h>

enum {
    B_HELP, B_ARCH, B_ORACLE_BOUND, B_TUNER_TRIALS, B_NO_TUNER, B_NO_ORACLE, B_QUICK, B_MODEL_QUALITY, B_DRAWS,
    B_LIST, B_POINTS, B_JSON, B_PLOTS, B_HTML, B_SEED, B_CAP, B_QUIET
};

static const cli_option bench_rows[] = {
    {"--arch", CLI_VALUE, B_ARCH, "NAME", NULL, 0, 0,
     "chip to run on, or one the suite derives (repeatable; default:\nthe suite's 'arch' line and its derived chips)", 0},
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
     "how well the model picks and orders schedules: rank correlation\n"
     "of predicted and simulated cycles over the oracle's points,\n"
     "top-1 regret, the pick's predicted over simulated cycles and\n"
     "the targets (no TTNN, no tuner)", 0},
    {"--draws", CLI_VALUE, B_DRAWS, "N", NULL, 0, 0,
     "shapes drawn per operator with 'form' lines (default: its\n'draw N'); the same seed draws the same shapes", 0},
    {"--list", CLI_FLAG, B_LIST, NULL, NULL, 0, 0,
     "print the chips (derived ones made and checked) and the shapes\nof every operator, and run nothing", 0},
    {"--json", CLI_VALUE, B_JSON, "FILE", NULL, 0, 0,
     "every row as JSON ('-': standard output, and the table goes\n"
     "to standard error)", 0},
    {"--points", CLI_FLAG, B_POINTS, NULL, NULL, 0, 0,
     "with --json: every simulated schedule of a row, predicted and\nsimulated cycles (for studying the model)", 0},
    {"--plots", CLI_VALUE, B_PLOTS, "DIR", NULL, 0, 0,
     "gnuplot data, scripts and SVG plots (speedup, roofline, rank)", 0},
    {"--html", CLI_VALUE, B_HTML, "FILE", NULL, 0, 0,
     "one self-contained page: the tables, the plots and the\n"
     "schedules ('-': standard output, and the table goes to\n"
     "standard error)", 0},
    {"--seed", CLI_VALUE, B_SEED, "N", "1", 0, 0,
     "seed of the drawn shapes, the oracle's sample and the tuner\n(default 1)", 0},
    {"--cap", CLI_VALUE, B_CAP, "F", "4", 0, 0,
     "stop oracle and tuner runs at F x the best so far (default 4)", 0},
    {"--quiet", CLI_FLAG, B_QUIET, NULL, NULL, 0, 0,
     "no progress line on a terminal", 0},
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

typedef LM_VEC(const char *) str_vec;

/* What bench's command line asks for. */
typedef struct bench_args {
    bench_opts o;
    int64_t draws;                   /* --draws (-1: each operator's own) */
    const char *json, *plots, *html; /* NULL: not asked for */
    bool quick, list;
    str_vec names, archs;
    lm_arena ar;
} bench_args;


/* One of bench's own options (bench_rows); false after reporting. */
static bool bench_option(bench_args *ba, int id, const char *v)
{
    bench_opts *o = &ba->o;
    switch (id) {
    case B_ARCH:
        LM_PUSH(&ba->archs, v);
        return true;
    case B_HTML:
        ba->html = v;
        return true;
    case B_JSON:
        ba->json = v;
        return true;
    case B_PLOTS:
        ba->plots = v;
        return true;
    case B_ORACLE_BOUND:
        if (!lm_parse_i64(v, &o->oracle_bound) || o->oracle_bound <= 0) {
            cli_usage_error("bench", "--oracle-bound needs a positive integer, got '%s'", v);
            return false;
        }
        return true;
    case B_TUNER_TRIALS: {
        size_t at;
        const char *why;
        if (!bench_parse_trials(v, o->trials, &o->ntrials, &at, &why, &ba->ar)) {
            cli_usage_error("bench", "--tuner-trials needs up to %d increasing positive counts, got '%s'",
                            BENCH_MAX_MARKS, v);
            return false;
        }
        return true;
    }
    case B_SEED: {
        int64_t s;
        if (!lm_parse_i64(v, &s)) {
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
    case B_DRAWS:
        if (!lm_parse_i64(v, &ba->draws) || ba->draws < 0) {
            cli_usage_error("bench", "--draws needs a count of at least 0, got '%s'", v);
            return false;
        }
        return true;
    case B_LIST:
        ba->list = true;
        return true;
    case B_POINTS:
        o->points = true;
        return true;
    case B_QUICK:
        ba->quick = true;
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

/* The command line into ba, checked as a whole; 'help' is asked for. */
static cli_read_status read_args(bench_args *ba, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const cli_option *opt = NULL;
        const char *v = NULL;
        int64_t count;
        cli_take t = cli_table_opt(&bench_cmd, argc, argv, &i, &opt, &v, &count);
        if (t == CLI_BAD)
            return CLI_READ_BAD;
        if (t == CLI_OTHER && argv[i][0] == '-' && argv[i][1]) {
            cli_unknown_option(&bench_cmd, argv[i], "option");
            return CLI_READ_BAD;
        }
        if (t == CLI_OTHER) {
            LM_PUSH(&ba->names, argv[i]);
        } else if (opt->id == B_HELP) {
            cli_help_print(stdout, &bench_cmd);
            return CLI_READ_HELP;
        } else if (!bench_option(ba, opt->id, v)) {
            return CLI_READ_BAD;
        }
    }
    if (!ba->names.len && !ba->quick) {
        cli_usage_error("bench", "no suite given");
        return CLI_READ_BAD;
    }
    if (ba->o.model_quality && ba->o.no_oracle) {
        cli_usage_error("bench", "--model-quality needs the oracle; it cannot be combined with --no-oracle");
        return CLI_READ_BAD;
    }
    if (ba->o.model_quality && ba->html) {
        cli_usage_error("bench", "--html shows the benchmark's tables; --model-quality has its own (--json keeps it)");
        return CLI_READ_BAD;
    }
    if (cli_is_stdout(ba->json) && cli_is_stdout(ba->html)) {
        cli_usage_error("bench", "--json and --html cannot both write to standard output");
        return CLI_READ_BAD;
    }
    /* before any work: a suite runs for hours, and must not fail at its end */
    if (!cli_output_check("bench", ba->json) || !cli_output_check("bench", ba->html) ||
        !cli_output_dir_check("bench", "--plots", ba->plots))
        return CLI_READ_BAD;
    if (!ba->names.len) {
        static const char *const all[] = {"gemm", "attention", "decode"};
        for (size_t i = 0; i < LM_COUNT(all); i++)
            LM_PUSH(&ba->names, all[i]);
    }
    return CLI_READ_OK;
}

/* The table (or the model's quality), the JSON and the plots of a run. */
static int report(const bench_args *ba, const bench_result *b, lm_diag *d, cli_json_errors *je)
{
    lm_buf out = {0};
    if (ba->o.model_quality)
        bench_print_quality(&out, b);
    else
        bench_print(&out, b);
    /* --json - or --html -: that file has standard output, the table goes to stderr */
    fputs(lm_buf_str(&out), cli_is_stdout(ba->json) || cli_is_stdout(ba->html) ? stderr : stdout);
    lm_buf_free(&out);
    int status = LOOMC_OK;
    if (ba->json) {
        lm_buf j = {0};
        bench_json(&j, b);
        if (!cli_output_write("bench", ba->json, lm_buf_str(&j)))
            status = LOOMC_EUSER;
        else if (cli_is_stdout(ba->json))
            je->reported = true; /* standard output holds the rows: no second document */
        lm_buf_free(&j);
    }
    if (ba->plots && !bench_plots(b, ba->plots, d))
        status = LOOMC_EUSER;
    if (ba->html) {
        lm_buf h = {0};
        if (!bench_html(&h, b, d) || !cli_output_write("bench", ba->html, lm_buf_str(&h)))
            status = LOOMC_EUSER;
        lm_buf_free(&h);
    }
    return status;
}

/* --list: each suite's chips (derived ones made, so that they are checked)
 * and each operator's shapes, listed and drawn. */
static int list_suites(const bench_args *ba, const bench_suite *suites, int nsu, lm_diag *d)
{
    lm_arena ar;
    lm_arena_init(&ar);
    bool ok = true;
    for (int i = 0; i < nsu && ok; i++) {
        const bench_suite *su = &suites[i];
        const char **chips;
        int nc = bench_suite_chips(su, ba->archs.items, (int)ba->archs.len, &chips, &ar);
        printf("suite %s (%s)\n", su->name, su->file);
        for (int c = 0; c < nc && ok; c++) {
            arch_desc *a = bench_chip_load(su, chips[c], d);
            ok = a != NULL;
            if (a)
                printf("  chip %s: %dx%d cores, %s\n", a->name, a->grid_w, a->grid_h,
                       a->description ? a->description : "");
            arch_free(a);
        }
        for (int o = 0; o < su->nops && ok; o++) {
            printf("  operator %s: %d shapes\n", su->ops[o].name, su->ops[o].nshapes);
            for (int k = 0; k < su->ops[o].nshapes; k++)
                printf("    %s\n", su->ops[o].shapes[k].label);
        }
    }
    lm_arena_free(&ar);
    return ok ? LOOMC_OK : LOOMC_EUSER;
}

/* Read the suites, run them, report. */
static int run_suites(bench_args *ba, cli_json_errors *je)
{
    int status = LOOMC_EUSER;
    lm_diag d;
    lm_diag_init(&d, stderr);
    int nsu = (int)ba->names.len;
    bench_suite *suites = lm_xcalloc((size_t)nsu, sizeof *suites);
    char **texts = lm_xcalloc((size_t)nsu, sizeof *texts);
    bool loaded = bench_suites_load(ba->names.items, nsu, ba->quick, suites, texts, &ba->ar, &d);
    for (int i = 0; i < nsu && loaded; i++)
        loaded = bench_suite_draw(&suites[i], ba->o.seed, ba->draws, &ba->ar, &d);
    if (loaded && ba->list) {
        status = list_suites(ba, suites, nsu, &d);
    } else if (loaded) {
        ba->o.archs = ba->archs.items;
        ba->o.narchs = (int)ba->archs.len;
        bench_result b = {0};
        if (bench_run(&b, suites, nsu, &ba->o, &d))
            status = report(ba, &b, &d, je);
        bench_free(&b);
    }
    for (int i = 0; i < nsu; i++)
        free(texts[i]);
    free(texts);
    free(suites);
    return status;
}

int cli_bench(int argc, char **argv)
{
    cli_json_errors je;
    cli_json_begin(&je, &bench_cmd, argc, argv, B_JSON);
    bench_args ba = {.o = {.seed = 1, .progress = true}, .draws = -1};
    lm_arena_init(&ba.ar);
    int status = LOOMC_EUSER;
    switch (read_args(&ba, argc, argv)) {
    case CLI_READ_HELP:
        status = LOOMC_OK;
        break;
    case CLI_READ_BAD:
        break;
    case CLI_READ_OK:
        if (cli_is_stdout(ba.html))
            je.to = stderr; /* standard output is the page's */
        status = run_suites(&ba, &je);
        break;
    }
    lm_arena_free(&ba.ar);
    LM_VEC_FREE(&ba.names);
    LM_VEC_FREE(&ba.archs);
    return cli_json_end(&je, status);
}
