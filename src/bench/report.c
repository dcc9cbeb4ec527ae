/* report.c - what a benchmark run prints: the per-operator, per-chip
 * table (the paper's Table 2 with the tuner's columns added), the
 * per-shape table, the JSON of every row, and
 * gnuplot data and scripts for the plots (speedup per shape, achieved
 * TFLOP/s against the roofline, simulated rank of loomc's pick).
 *
 * Every performance figure is from the simulator and says so.
 */
#include "bench/bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- groups: one operator on one chip ----------------------------------- */

typedef struct group {
    const char *op, *arch;
    int *rows;
    int n;
} group;

static int groups_of(const bench_result *b, group **out)
{
    group *g = lm_xcalloc((size_t)(b->nrows ? b->nrows : 1), sizeof *g);
    int ng = 0;
    for (int i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        int j = 0;
        while (j < ng && !(strcmp(g[j].op, r->suite_op) == 0 && strcmp(g[j].arch, r->arch) == 0))
            j++;
        if (j == ng) {
            g[ng].op = r->suite_op;
            g[ng].arch = r->arch;
            g[ng].rows = lm_xcalloc((size_t)b->nrows, sizeof *g[ng].rows);
            ng++;
        }
        g[j].rows[g[j].n++] = i;
    }
    *out = g;
    return ng;
}

static void groups_free(group *g, int ng)
{
    for (int i = 0; i < ng; i++)
        free(g[i].rows);
    free(g);
}

static double regret_or_nan(double c, double best) { return isfinite(c) && best > 0 ? bench_regret(c, best) : NAN; }

static void pct(lm_buf *b, int w, double x)
{
    if (isnan(x))
        lm_buf_printf(b, "%*s", w, "-");
    else
        lm_buf_printf(b, "%*.1f%%", w - 1, 100.0 * x);
}

/* A regret that may be a lower bound (">300.0%"). */
static void pct_lb(lm_buf *b, int w, double x, bool lower)
{
    if (isnan(x) || !lower) {
        pct(b, w, x);
        return;
    }
    char cell[32];
    snprintf(cell, sizeof cell, ">%.1f%%", 100.0 * x);
    lm_buf_printf(b, "%*s", w, cell);
}

static void trials_name(lm_buf *b, int64_t t)
{
    if (t >= 1000 && t % 1000 == 0)
        lm_buf_printf(b, "%lldk", (long long)(t / 1000));
    else
        lm_buf_printf(b, "%lld", (long long)t);
}

/* ---- the tables ------------------------------------------------------------ */

void bench_print(lm_buf *out, const bench_result *b)
{
    group *g;
    int ng = groups_of(b, &g);
    lm_buf_puts(out, "loomc bench: every figure is simulated (cycle-approximate simulator, timing-only runs);\n"
                     "none is a hardware measurement. Regret = cycles / best known - 1, where best known is\n"
                     "the best of the oracle, loomc's five best and the tuner (exact oracle: the optimum).\n"
                     "The oracle and the tuner search loomc's own space (its candidates, domains and\n"
                     "legality constraints).\n");
    if (b->opts.no_oracle)
        lm_buf_puts(out, "no oracle (--no-oracle): best known is the best of loomc's five and the tuner; ");
    else
        lm_buf_printf(out, "oracle bound %lld schedules; ", (long long)b->opts.oracle_bound);
    if (b->opts.no_tuner || !b->ntrials)
        lm_buf_puts(out, "no tuner.\n\n");
    else
        lm_buf_printf(out, "tuner seed %llu.\n\n", (unsigned long long)b->opts.seed);

    /* Table: per operator and chip */
    lm_buf_printf(out, "%-10s %-15s %6s  %-26s %-15s %7s", "operator", "chip", "shapes", "speedup vs TTNN",
                  "top-1 regret", "top-5");
    for (int m = 0; m < b->ntrials; m++) {
        lm_buf t = {0};
        lm_buf_puts(&t, "tuner@");
        trials_name(&t, b->trials[m]);
        lm_buf_printf(out, " %10s", lm_buf_str(&t));
        lm_buf_free(&t);
    }
    lm_buf_printf(out, " %10s %9s  %s\n", "compile s", "tune s", "oracle");
    lm_buf_printf(out, "%-10s %-15s %6s  %-26s %-15s %7s", "", "", "", "geomean [min, max]", "mean / max", "mean");
    for (int m = 0; m < b->ntrials; m++)
        lm_buf_printf(out, " %10s", "mean");
    lm_buf_printf(out, " %10s %9s  %s\n", "mean", "host CPU", "exact/all");
    for (int i = 0; i < ng; i++) {
        double *sp = lm_xcalloc((size_t)g[i].n, sizeof *sp);
        int nsp = 0, nok = 0, nexact = 0, noracle = 0;
        double r1 = 0, r1max = 0, r5 = 0, comp = 0, tune = 0;
        double tr[BENCH_MAX_MARKS] = {0};
        int ntr[BENCH_MAX_MARKS] = {0};
        bool trlow[BENCH_MAX_MARKS] = {0};
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            if (!r->ok)
                continue;
            nok++;
            if (r->ttnn_ok)
                sp[nsp++] = r->ttnn_cycles / r->loomc_cycles;
            double x = bench_regret(r->loomc_cycles, r->best_cycles);
            r1 += x;
            r1max = LM_MAX(r1max, x);
            r5 += bench_regret(r->top5_cycles, r->best_cycles);
            comp += r->compile_seconds;
            noracle += r->oracle_ran;
            nexact += r->oracle_exact;
            for (int m = 0; m < r->nmarks && m < b->ntrials; m++) {
                double y = regret_or_nan(r->marks[m].best_cycles, r->best_cycles);
                if (!isnan(y)) {
                    tr[m] += y;
                    ntr[m]++;
                    trlow[m] |= r->marks[m].lower_bound;
                }
            }
            if (r->nmarks)
                tune += r->marks[r->nmarks - 1].wall_seconds;
        }
        lm_buf_printf(out, "%-10s %-15s %3d/%-2d  ", g[i].op, g[i].arch, nok, g[i].n);
        if (nsp) {
            double lo = sp[0], hi = sp[0];
            for (int k = 1; k < nsp; k++) {
                lo = LM_MIN(lo, sp[k]);
                hi = LM_MAX(hi, sp[k]);
            }
            char cell[64];
            snprintf(cell, sizeof cell, "%.2fx [%.2fx, %.2fx]", bench_geomean(sp, nsp), lo, hi);
            lm_buf_printf(out, "%-26s ", cell);
        } else {
            lm_buf_printf(out, "%-26s ", "-");
        }
        if (nok) {
            char cell[64];
            snprintf(cell, sizeof cell, "%.1f%% / %.1f%%", 100 * r1 / nok, 100 * r1max);
            lm_buf_printf(out, "%-15s", cell);
            pct(out, 8, r5 / nok);
        } else {
            lm_buf_printf(out, "%-15s %7s", "-", "-");
        }
        for (int m = 0; m < b->ntrials; m++)
            pct_lb(out, 11, ntr[m] ? tr[m] / ntr[m] : NAN, trlow[m]);
        if (nok)
            lm_buf_printf(out, " %10.3f %9.1f  %d/%d\n", comp / nok, tune / nok, nexact, noracle);
        else
            lm_buf_printf(out, " %10s %9s  -\n", "-", "-");
        free(sp);
    }

    /* TTNN's hand-tuned configs, for the groups with rows they cover */
    bool any_tuned = false;
    for (int i = 0; i < ng; i++) {
        double *sp = lm_xcalloc((size_t)g[i].n, sizeof *sp);
        int nsp = 0;
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            if (r->ok && r->tuned_ok)
                sp[nsp++] = r->tuned_cycles / r->loomc_cycles;
        }
        if (nsp) {
            if (!any_tuned)
                lm_buf_puts(out, "\nagainst TTNN's hand-tuned matmul configs (--schedule ttnn-tuned), on the shapes "
                                 "they cover:\n");
            any_tuned = true;
            double lo = sp[0], hi = sp[0];
            for (int k = 1; k < nsp; k++) {
                lo = LM_MIN(lo, sp[k]);
                hi = LM_MAX(hi, sp[k]);
            }
            lm_buf_printf(out, "%-10s %-15s %3d/%-2d  %.2fx [%.2fx, %.2fx]\n", g[i].op, g[i].arch, nsp, g[i].n,
                          bench_geomean(sp, nsp), lo, hi);
        }
        free(sp);
    }

    /* per shape */
    for (int i = 0; i < ng; i++) {
        lm_buf_printf(out, "\n%s on %s (cycles and TFLOP/s simulated)\n", g[i].op, g[i].arch);
        lm_buf_printf(out, "%-32s %11s %11s %8s %11s %7s %7s %11s %10s", "shape", "loomc", "ttnn", "speedup",
                      "best known", "regret", "top-5", "rank", "space");
        for (int m = 0; m < b->ntrials; m++) {
            lm_buf t = {0};
            lm_buf_puts(&t, "@");
            trials_name(&t, b->trials[m]);
            lm_buf_printf(out, " %7s", lm_buf_str(&t));
            lm_buf_free(&t);
        }
        lm_buf_printf(out, " %8s %6s %9s\n", "TFLOP/s", "roof", "compile s");
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            lm_buf_printf(out, "%-32s ", r->label);
            if (!r->ok) {
                lm_buf_printf(out, "failed: %s\n", r->why ? r->why : "?");
                continue;
            }
            lm_buf_printf(out, "%11.0f ", r->loomc_cycles);
            if (r->ttnn_ok)
                lm_buf_printf(out, "%11.0f %7.2fx ", r->ttnn_cycles, r->ttnn_cycles / r->loomc_cycles);
            else
                lm_buf_printf(out, "%11s %8s ", "n/a", "-");
            lm_buf_printf(out, "%11.0f", r->best_cycles);
            pct(out, 8, bench_regret(r->loomc_cycles, r->best_cycles));
            pct(out, 8, bench_regret(r->top5_cycles, r->best_cycles));
            if (r->oracle_ran) {
                char cell[48];
                snprintf(cell, sizeof cell, "%lld/%lld", (long long)r->loomc_rank, (long long)r->ranked);
                lm_buf_printf(out, " %11s", cell);
                snprintf(cell, sizeof cell, "%s%lld", r->oracle_exact ? "" : (r->space_known ? "" : ">"),
                         (long long)r->space);
                lm_buf_printf(out, " %10s", cell);
            } else {
                lm_buf_printf(out, " %11s %10s", "-", "-");
            }
            for (int m = 0; m < b->ntrials; m++)
                pct_lb(out, 8, m < r->nmarks ? regret_or_nan(r->marks[m].best_cycles, r->best_cycles) : NAN,
                       m < r->nmarks && r->marks[m].lower_bound);
            double secs = r->loomc_cycles / (r->clock_ghz * 1e9);
            double tf = r->flops > 0 ? r->flops / secs / 1e12 : 0;
            double roof = r->dram_tflops > 0 ? LM_MIN(r->peak_tflops, r->dram_tflops) : r->peak_tflops;
            if (tf > 0)
                lm_buf_printf(out, " %8.2f %5.0f%%", tf, roof > 0 ? 100 * tf / roof : 0);
            else
                lm_buf_printf(out, " %8s %6s", "-", "-");
            lm_buf_printf(out, " %9.3f\n", r->compile_seconds);
        }
        /* notes: failures, TTNN unavailable, loomc's and the best schedules */
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            if (!r->ok)
                continue;
            lm_buf_printf(out, "  %s\n    loomc: %s\n", r->label, r->loomc_label);
            if (r->best_cycles < r->loomc_cycles)
                lm_buf_printf(out, "    best:  %s\n", r->best_label);
            if (!r->ttnn_ok && r->ttnn_why)
                lm_buf_printf(out, "    ttnn n/a: %s\n", r->ttnn_why);
            if (r->tuned_ok)
                lm_buf_printf(out, "    ttnn-tuned: %.0f cycles (loomc %.2fx)\n", r->tuned_cycles,
                              r->tuned_cycles / r->loomc_cycles);
            if (r->failures) {
                lm_buf_printf(out, "    %lld points could not be run:", (long long)r->failures);
                for (int q = 0; q < r->nfail_kinds; q++)
                    lm_buf_printf(out, "%s %lld '%s...'", q ? "," : "", (long long)r->fail_kinds[q].count,
                                  r->fail_kinds[q].kind);
                lm_buf_printf(out, "\n      first: %s\n      (%s)\n", r->failure_why ? r->failure_why : "?",
                              r->failure_point ? r->failure_point : "?");
            }
        }
    }
    if (b->ntrials) {
        lm_buf_printf(out, "\ntuner@N: the tuner's best after N simulated trials (regret against best known; '>' when\n"
                           "every trial so far was stopped at the cap, so the regret is at least that; "
                           "'compile s' and 'tune s' = host CPU seconds, the latter for the last budget; the simulated kernel time of tuning is in the JSON).\n");
    }
    groups_free(g, ng);
}

/* ---- JSON ---------------------------------------------------------------- */

static void jnum(lm_buf *b, double x)
{
    if (!isfinite(x))
        lm_buf_puts(b, "null");
    else if (x == floor(x) && fabs(x) < 9e15)
        lm_buf_printf(b, "%.0f", x);
    else
        lm_buf_printf(b, "%.6g", x);
}

/* A baseline's member: its cycles and loomc's speedup over it, or why it has none. */
static void jbaseline(lm_buf *out, bool ok, double cycles, double loomc_cycles, const char *why)
{
    if (ok) {
        lm_buf_puts(out, "{\"cycles\": ");
        jnum(out, cycles);
        lm_buf_puts(out, ", \"speedup_of_loomc\": ");
        jnum(out, cycles / loomc_cycles);
        lm_buf_puts(out, "}");
    } else {
        lm_buf_puts(out, "{\"cycles\": null, \"why\": ");
        lm_json_str(out, why);
        lm_buf_puts(out, "}");
    }
}

void bench_json(lm_buf *out, const bench_result *b)
{
    lm_buf_printf(out, "{\n  \"simulated\": true,\n  \"oracle_bound\": %lld,\n  \"seed\": %llu,\n  \"rows\": [",
                  (long long)b->opts.oracle_bound, (unsigned long long)b->opts.seed);
    for (int i = 0; i < b->nrows; i++) {
        const bench_row *r = &b->rows[i];
        lm_buf_puts(out, i ? ",\n    {" : "\n    {");
        lm_buf_puts(out, "\"operator\": ");
        lm_json_str(out, r->suite_op);
        lm_buf_puts(out, ", \"shape\": ");
        lm_json_str(out, r->label);
        lm_buf_puts(out, ", \"arch\": ");
        lm_json_str(out, r->arch);
        lm_buf_printf(out, ", \"ok\": %s", r->ok ? "true" : "false");
        if (!r->ok) {
            lm_buf_puts(out, ", \"error\": ");
            lm_json_str(out, r->why);
            lm_buf_puts(out, "}");
            continue;
        }
        lm_buf_puts(out, ", \"compile_seconds\": ");
        jnum(out, r->compile_seconds);
        lm_buf_puts(out, ", \"flops\": ");
        jnum(out, r->flops);
        lm_buf_puts(out, ", \"bytes\": ");
        jnum(out, r->bytes);
        lm_buf_puts(out, ", \"fidelity\": ");
        lm_json_str(out, r->fidelity);
        lm_buf_puts(out, ", \"peak_tflops\": ");
        jnum(out, r->peak_tflops);
        lm_buf_puts(out, ", \"dram_bound_tflops\": ");
        jnum(out, r->dram_tflops > 0 ? r->dram_tflops : NAN);
        lm_buf_puts(out, ", \"clock_ghz\": ");
        jnum(out, r->clock_ghz);
        lm_buf_puts(out, ",\n     \"loomc\": {\"cycles\": ");
        jnum(out, r->loomc_cycles);
        lm_buf_puts(out, ", \"predicted_cycles\": ");
        jnum(out, (double)r->loomc_predicted);
        lm_buf_puts(out, ", \"top5_cycles\": ");
        jnum(out, r->top5_cycles);
        lm_buf_puts(out, ", \"schedule\": ");
        lm_json_str(out, r->loomc_label);
        lm_buf_puts(out, "},\n     \"ttnn\": ");
        jbaseline(out, r->ttnn_ok, r->ttnn_cycles, r->loomc_cycles, r->ttnn_why);
        lm_buf_puts(out, ",\n     \"ttnn_tuned\": ");
        jbaseline(out, r->tuned_ok, r->tuned_cycles, r->loomc_cycles, r->tuned_why);
        lm_buf_puts(out, ",\n     \"best_known\": {\"cycles\": ");
        jnum(out, r->best_cycles);
        lm_buf_puts(out, ", \"schedule\": ");
        lm_json_str(out, r->best_label);
        lm_buf_puts(out, ", \"top1_regret\": ");
        jnum(out, bench_regret(r->loomc_cycles, r->best_cycles));
        lm_buf_puts(out, ", \"top5_regret\": ");
        jnum(out, bench_regret(r->top5_cycles, r->best_cycles));
        lm_buf_puts(out, "}");
        if (r->oracle_ran) {
            lm_buf_printf(out,
                          ",\n     \"oracle\": {\"exact\": %s, \"space\": %lld, \"space_known\": %s, \"points\": %lld, "
                          "\"points_ran\": %lld",
                          r->oracle_exact ? "true" : "false", (long long)r->space, r->space_known ? "true" : "false",
                          (long long)r->oracle_points, (long long)r->oracle_ran_points);
            lm_buf_puts(out, ", \"cycles\": ");
            jnum(out, r->oracle_cycles);
            lm_buf_printf(out, ", \"loomc_rank\": %lld, \"ranked\": %lld, \"spearman\": ", (long long)r->loomc_rank,
                          (long long)r->ranked);
            jnum(out, r->spearman);
            lm_buf_printf(out, ", \"spearman_points\": %lld, \"spearman_best10\": ", (long long)r->spearman_n);
            jnum(out, r->spearman_top);
            lm_buf_printf(out, ", \"spearman_best10_points\": %d, \"pair_error\": ", r->spearman_top_n);
            jnum(out, r->pair_error);
            lm_buf_printf(out, ", \"pair_error_points\": %d}", r->pair_n);
        }
        if (r->nmarks) {
            lm_buf_puts(out, ",\n     \"tuner\": [");
            for (int m = 0; m < r->nmarks; m++) {
                const bench_tuner_mark *k = &r->marks[m];
                lm_buf_printf(out, "%s{\"trials\": %lld, \"used\": %lld, \"cycles\": ", m ? ", " : "",
                              (long long)k->trials, (long long)k->used);
                jnum(out, k->best >= 0 ? k->best_cycles : NAN);
                lm_buf_puts(out, ", \"regret\": ");
                jnum(out, k->best >= 0 ? bench_regret(k->best_cycles, r->best_cycles) : NAN);
                lm_buf_printf(out, ", \"lower_bound\": %s", k->lower_bound ? "true" : "false");
                lm_buf_puts(out, ", \"simulated_seconds\": ");
                jnum(out, k->sim_seconds);
                lm_buf_puts(out, ", \"host_seconds\": ");
                jnum(out, k->wall_seconds);
                lm_buf_puts(out, "}");
            }
            lm_buf_puts(out, "]");
        }
        if (r->npoints) {
            lm_buf_puts(out, ",\n     \"points\": [");
            for (int q = 0; q < r->npoints; q++) {
                lm_buf_puts(out, q ? ",\n       {\"schedule\": " : "\n       {\"schedule\": ");
                lm_json_str(out, r->points[q].schedule);
                lm_buf_printf(out, ", \"predicted\": %lld, \"cycles\": ", (long long)r->points[q].predicted);
                jnum(out, r->points[q].cycles);
                lm_buf_puts(out, "}");
            }
            lm_buf_puts(out, "]");
        }
        lm_buf_printf(out, ",\n     \"failed_points\": %lld", (long long)r->failures);
        if (r->failure_why) {
            lm_buf_puts(out, ", \"failed_example\": ");
            lm_json_str(out, r->failure_why);
            lm_buf_puts(out, ", \"failed_schedule\": ");
            lm_json_str(out, r->failure_point);
            lm_buf_puts(out, ", \"failed_kinds\": {");
            for (int q = 0; q < r->nfail_kinds; q++) {
                lm_buf_puts(out, q ? ", " : "");
                lm_json_str(out, r->fail_kinds[q].kind);
                lm_buf_printf(out, ": %lld", (long long)r->fail_kinds[q].count);
            }
            lm_buf_puts(out, "}");
        }
        lm_buf_puts(out, "}");
    }
    lm_buf_puts(out, "\n  ]\n}\n");
}

/* ---- plots ------------------------------------------------------------------ */

static const char *fname(const char *op, const char *arch, const char *what, lm_arena *ar)
{
    char *s = lm_arena_printf(ar, "%s_%s%s", op, arch, what);
    for (char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
              *c == '-' || *c == '.'))
            *c = '_';
    return s;
}

static bool write_file(const char *dir, const char *name, const lm_buf *b, lm_diag *d)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fwrite(b->s ? b->s : "", 1, b->len, f) != b->len) {
        lm_error_plain(d, "cannot write '%s': %s", path, strerror(errno));
        if (f)
            fclose(f);
        return false;
    }
    fclose(f);
    return true;
}

/* gnuplot SCRIPT with dir as the working folder; its exit status (127: not found). */
static int run_gnuplot(const char *dir, const char *script)
{
    const char *argv[] = {"gnuplot", script, NULL};
    lm_proc p = {.argv = argv, .dir = dir};
    lm_proc_run(&p);
    return p.signal ? -1 : p.status;
}

static void dat_num(lm_buf *b, double x)
{
    if (isfinite(x) && x > 0)
        lm_buf_printf(b, " %.6g", x);
    else
        lm_buf_puts(b, " ?");
}

bool bench_plots(const bench_result *b, const char *dir, lm_diag *d)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        lm_error_plain(d, "cannot create '%s': %s", dir, strerror(errno));
        return false;
    }
    lm_arena ar;
    lm_arena_init(&ar);
    group *g;
    int ng = groups_of(b, &g);
    bool ok = true;
    LM_VEC(const char *) scripts = {0};
    int64_t last = b->ntrials ? b->trials[b->ntrials - 1] : 0;
    for (int i = 0; i < ng && ok; i++) {
        const char *dat = fname(g[i].op, g[i].arch, ".dat", &ar);
        lm_buf db = {0};
        lm_buf_printf(&db, "# %s on %s, simulated. columns: index shape loomc_speedup tuner_speedup best_speedup "
                           "intensity loomc_tflops ttnn_tflops best_tflops rank ranked\n",
                      g[i].op, g[i].arch);
        double peak = 0, bw = 0, aimin = INFINITY, aimax = 0;
        bool any_roof = false, any_rank = false, any_speedup = false;
        for (int k = 0; k < g[i].n; k++) {
            const bench_row *r = &b->rows[g[i].rows[k]];
            lm_buf_printf(&db, "%d \"%s\"", k, r->label);
            if (!r->ok) {
                lm_buf_puts(&db, " ? ? ? ? ? ? ? ? ?\n");
                continue;
            }
            const bench_tuner_mark *lm = r->nmarks ? &r->marks[r->nmarks - 1] : NULL;
            double tun = lm && lm->best >= 0 && !lm->lower_bound ? lm->best_cycles : NAN;
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / r->loomc_cycles : NAN);
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / tun : NAN);
            dat_num(&db, r->ttnn_ok ? r->ttnn_cycles / r->best_cycles : NAN);
            double ai = r->bytes > 0 ? r->flops / r->bytes : NAN;
            double sec = 1.0 / (r->clock_ghz * 1e9);
            dat_num(&db, ai);
            dat_num(&db, r->flops / (r->loomc_cycles * sec) / 1e12);
            dat_num(&db, r->ttnn_ok ? r->flops / (r->ttnn_cycles * sec) / 1e12 : NAN);
            dat_num(&db, r->flops / (r->best_cycles * sec) / 1e12);
            dat_num(&db, r->oracle_ran ? (double)r->loomc_rank : NAN);
            dat_num(&db, r->oracle_ran ? (double)r->ranked : NAN);
            lm_buf_putc(&db, '\n');
            peak = LM_MAX(peak, r->peak_tflops);
            if (isfinite(ai) && r->flops > 0) {
                any_roof = true;
                bw = r->dram_tflops / ai; /* TB/s */
                aimin = LM_MIN(aimin, ai);
                aimax = LM_MAX(aimax, ai);
            }
            any_rank |= r->oracle_ran;
            any_speedup |= r->ttnn_ok;
        }
        ok = write_file(dir, dat, &db, d);
        lm_buf_free(&db);

        const char *title = lm_arena_printf(&ar, "%s on %s", g[i].op, g[i].arch);
        /* speedup per shape (gnuplot rejects a plot with no point: groups whose
           rows all failed get the data file only) */
        lm_buf s = {0};
        const char *png = fname(g[i].op, g[i].arch, "_speedup.svg", &ar);
        const char *gp;
        if (any_speedup) {
            lm_buf_printf(&s,
                          "# speedup over TTNN's default schedule per shape (simulated)\n"
                          "set terminal svg size 1000,460 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\n"
                          "set datafile missing '?'\n"
                          "set title '%s: speedup over TTNN defaults (simulated)'\n"
                          "set style data histograms\nset style histogram clustered gap 1\n"
                          "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
                          "set ylabel 'speedup over TTNN (x, simulated)'\nset yrange [0:*]\n"
                          "set xtics rotate by -30 left font ',8'\nset grid ytics\nset key top left\n"
                          "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'gray40'\n"
                          "plot '%s' using 3:xtic(2) title 'loomc', '' using 4 title 'tuner@%lld', "
                          "'' using 5 title 'best known'\n",
                          png, title, dat, (long long)last);
            gp = fname(g[i].op, g[i].arch, "_speedup.gp", &ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(&scripts, gp);
            lm_buf_free(&s);
        }
        /* roofline */
        if (any_roof) {
            lm_buf_printf(&s,
                          "# achieved TFLOP/s against the roofline (simulated)\n"
                          "set terminal svg size 800,560 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\nset datafile missing '?'\n"
                          "set title '%s: achieved TFLOP/s against the roofline (simulated)'\n"
                          "set logscale xy\nset grid\nset key bottom right\n"
                          "set xlabel 'arithmetic intensity (FLOP per byte of least DRAM traffic)'\n"
                          "set ylabel 'TFLOP/s (simulated)'\n"
                          "peak = %.6g\nbw = %.6g\n"
                          "set xrange [%.6g:%.6g]\n"
                          "roof(x) = (bw * x < peak) ? bw * x : peak\n"
                          "plot roof(x) title sprintf('roofline (peak %%.0f TFLOP/s at %s, DRAM %%.2f TB/s)', peak, bw) "
                          "lc rgb 'black', "
                          "'%s' using 6:7 with points pt 7 ps 1.2 title 'loomc', "
                          "'' using 6:8 with points pt 5 ps 1.0 title 'TTNN default', "
                          "'' using 6:9 with points pt 6 ps 1.6 title 'best known'\n",
                          fname(g[i].op, g[i].arch, "_roofline.svg", &ar), title, peak, bw, aimin / 2,
                          LM_MAX(aimax, peak / bw) * 2,
                          b->rows[g[i].rows[0]].fidelity ? b->rows[g[i].rows[0]].fidelity : "?", dat);
            gp = fname(g[i].op, g[i].arch, "_roofline.gp", &ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(&scripts, gp);
            lm_buf_free(&s);
        }
        /* rank of loomc's pick */
        if (any_rank) {
            lm_buf_printf(&s,
                          "# simulated rank of loomc's pick among the oracle's points (1 = best)\n"
                          "set terminal svg size 1000,460 dynamic font 'sans,10'\nset termoption noenhanced\n"
                          "set output '%s'\nset datafile missing '?'\n"
                          "set title \"%s: simulated rank of loomc's pick (1 = best)\"\n"
                          "set logscale y\nset yrange [0.8:*]\nset grid ytics\nset key top left\n"
                          "set xtics rotate by -30 left font ',8'\nset style fill solid 0.85 border -1\n"
                          "set boxwidth 0.6\nset ylabel 'rank (simulated, log scale)'\n"
                          "plot '%s' using 1:10:xtic(2) with boxes title \"rank of loomc's pick\", "
                          "'' using 1:11 with linespoints pt 2 title 'schedules ranked'\n",
                          fname(g[i].op, g[i].arch, "_rank.svg", &ar), title, dat);
            gp = fname(g[i].op, g[i].arch, "_rank.gp", &ar);
            ok = ok && write_file(dir, gp, &s, d);
            LM_PUSH(&scripts, gp);
            lm_buf_free(&s);
        }
    }
    for (size_t i = 0; ok && i < scripts.len; i++) {
        int st = run_gnuplot(dir, scripts.items[i]);
        if (st == 127) {
            fprintf(stderr, "loomc bench: gnuplot is not installed: the scripts are in %s (run them there)\n", dir);
            break;
        }
        if (st != 0) {
            lm_error_plain(d, "gnuplot failed on %s/%s (status %d)", dir, scripts.items[i], st);
            ok = false;
        }
    }
    LM_VEC_FREE(&scripts);
    groups_free(g, ng);
    lm_arena_free(&ar);
    return ok;
}
