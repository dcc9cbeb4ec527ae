/* html.c - `loomc bench --html`: one self-contained page of a benchmark
 * run (docs/evaluation.md, "HTML"): the per-operator, per-chip summary,
 * per operator and chip the per-shape table, the plots (gnuplot's SVG,
 * inline) and the schedules. Nothing is fetched: the styles are in the
 * page, there is no script, and the SVG has no external reference. Every
 * figure is from the simulator and the page says so, at the top, in every
 * table's caption and under every plot.
 *
 * Cells that hold a row's figure name its member of the run's JSON
 * (`data-json`, in the row `data-row`, the index in its "rows"), and the
 * summary's cells their aggregate (`data-key`), so that a reader - the
 * tests (tests/html_check.py) - can hold the page against the JSON.
 */
#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- text ------------------------------------------------------------------ */

/* s with the characters HTML gives a meaning to escaped: the one escaper of the page. */
static void esc(lm_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': lm_buf_puts(b, "&amp;"); break;
        case '<': lm_buf_puts(b, "&lt;"); break;
        case '>': lm_buf_puts(b, "&gt;"); break;
        case '"': lm_buf_puts(b, "&quot;"); break;
        case '\'': lm_buf_puts(b, "&#39;"); break;
        default: lm_buf_putc(b, *s);
        }
    }
}

/* A cell of a figure (right-aligned) holding the row's JSON member `member`
 * (NULL: none), its text printf'd. */
static void num(lm_buf *b, const char *member, const char *fmt, ...) LM_PRINTF(3, 4);
static void num(lm_buf *b, const char *member, const char *fmt, ...)
{
    lm_buf_puts(b, "<td class=\"n\"");
    if (member)
        lm_buf_printf(b, " data-json=\"%s\"", member);
    lm_buf_putc(b, '>');
    lm_buf t = {0};
    va_list ap;
    va_start(ap, fmt);
    lm_buf_vprintf(&t, fmt, ap);
    va_end(ap);
    esc(b, lm_buf_str(&t));
    lm_buf_free(&t);
    lm_buf_puts(b, "</td>");
}

/* A summary cell: aggregate `key`. */
static void agg(lm_buf *b, const char *key, const char *text)
{
    lm_buf_printf(b, "<td class=\"n\" data-key=\"%s\">", key);
    esc(b, text);
    lm_buf_puts(b, "</td>");
}

static void pct_text(char *cell, size_t n, double x, bool lower)
{
    if (isnan(x))
        snprintf(cell, n, "-");
    else
        snprintf(cell, n, "%s%.1f%%", lower ? ">" : "", 100.0 * x);
}

/* ---- the page --------------------------------------------------------------- */

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#111;max-width:1500px}\n"
    "h1{font-size:1.5em}h2{font-size:1.25em;margin-top:2em}h3{font-size:1.05em}\n"
    "table{border-collapse:collapse;margin:.4em 0 1.2em}\n"
    "th,td{border:1px solid #bbb;padding:.2em .5em;vertical-align:top}\n"
    "th{background:#eee;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tr.failed td{color:#a00}\n"
    "caption{text-align:left;font-weight:600;padding:.3em 0}\n"
    "p.note{color:#333;max-width:70em}\n"
    "figure{margin:1em 0}figure svg{width:100%;max-width:1000px;height:auto;display:block}\n"
    "figcaption{color:#333;font-size:.9em}\n"
    "code{font-size:.9em;white-space:pre-wrap}\n";

static void head(lm_buf *b, const bench_result *r)
{
    lm_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>loomc bench (simulated)</title>\n<style>\n");
    lm_buf_puts(b, style);
    lm_buf_puts(b, "</style>\n</head>\n<body>\n<h1>loomc bench: every figure simulated</h1>\n"
                   "<p class=\"note\">Every figure on this page is simulated (loomc's cycle-approximate simulator, "
                   "timing-only runs); none is a hardware measurement. Regret = cycles / best known &minus; 1, where "
                   "best known is the best of the oracle, loomc's five best and the tuner (exact oracle: the "
                   "optimum). The oracle and the tuner search loomc's own space (its candidates, domains and "
                   "legality constraints).</p>\n<p class=\"note\">");
    if (r->opts.no_oracle)
        lm_buf_puts(b, "No oracle (--no-oracle): best known is the best of loomc's five and the tuner. ");
    else
        lm_buf_printf(b, "Oracle bound %lld schedules. ", (long long)r->opts.oracle_bound);
    if (r->opts.no_tuner || !r->ntrials)
        lm_buf_puts(b, "No tuner.");
    else
        lm_buf_printf(b, "Tuner seed %llu.", (unsigned long long)r->opts.seed);
    lm_buf_puts(b, "</p>\n");
}

/* A row's first cells: the operator and the chip. */
static void group_cells(lm_buf *b, const bench_group *g)
{
    lm_buf_puts(b, "<tr><td>");
    esc(b, g->op);
    lm_buf_puts(b, "</td><td>");
    esc(b, g->arch);
    lm_buf_puts(b, "</td>");
}

/* A group's summary line, each aggregate naming itself (data-key). */
static void summary_cells(lm_buf *b, const bench_result *r, const bench_group *g, const bench_summary *s)
{
    char cell[96];
    snprintf(cell, sizeof cell, "%d/%d", s->nok, g->n);
    agg(b, "shapes", cell);
    if (s->nsp)
        snprintf(cell, sizeof cell, "%.2fx [%.2fx, %.2fx]", s->sp_geo, s->sp_lo, s->sp_hi);
    agg(b, "speedup", s->nsp ? cell : "-");
    if (s->nok)
        snprintf(cell, sizeof cell, "%.1f%% / %.1f%%", 100 * s->r1_sum / s->nok, 100 * s->r1max);
    agg(b, "top1", s->nok ? cell : "-");
    pct_text(cell, sizeof cell, s->nok ? s->r5_sum / s->nok : NAN, false);
    agg(b, "top5", cell);
    for (int m = 0; m < r->ntrials; m++) {
        char key[32];
        snprintf(key, sizeof key, "tuner.%d", m);
        pct_text(cell, sizeof cell, s->tuner[m], s->tuner_lb[m]);
        agg(b, key, cell);
    }
    snprintf(cell, sizeof cell, "%.3f", s->nok ? s->compile_sum / s->nok : 0);
    agg(b, "compile", s->nok ? cell : "-");
    snprintf(cell, sizeof cell, "%.1f", s->nok ? s->tune_sum / s->nok : 0);
    agg(b, "tune", s->nok ? cell : "-");
    snprintf(cell, sizeof cell, "%d/%d", s->nexact, s->noracle);
    agg(b, "oracle", s->nok ? cell : "-");
}

/* The per-operator, per-chip summary. */
static void summary(lm_buf *b, const bench_result *r, const bench_group *g, int ng)
{
    lm_buf_puts(b, "<table id=\"summary\">\n<caption>Per operator and chip (simulated)</caption>\n<thead><tr>"
                   "<th>operator</th><th>chip</th><th>shapes</th><th>speedup vs TTNN<br>geomean [min, max]</th>"
                   "<th>top-1 regret<br>mean / max</th><th>top-5<br>mean</th>");
    for (int m = 0; m < r->ntrials; m++) {
        lm_buf_puts(b, "<th>tuner@");
        bench_trials_name(b, r->trials[m]);
        lm_buf_puts(b, "<br>mean</th>");
    }
    lm_buf_puts(b, "<th>compile s<br>mean</th><th>tune s<br>host CPU</th><th>oracle<br>exact/all</th></tr></thead>\n"
                   "<tbody>\n");
    for (int i = 0; i < ng; i++) {
        bench_summary s;
        bench_summarize(r, &g[i], &s);
        group_cells(b, &g[i]);
        summary_cells(b, r, &g[i], &s);
        lm_buf_puts(b, "</tr>\n");
    }
    lm_buf_puts(b, "</tbody>\n</table>\n");
}

/* Against TTNN's hand-tuned configs, for the groups with rows they cover. */
static void tuned_summary(lm_buf *b, const bench_result *r, const bench_group *g, int ng)
{
    bool any = false;
    for (int i = 0; i < ng; i++) {
        bench_summary s;
        bench_summarize(r, &g[i], &s);
        if (!s.ntuned)
            continue;
        if (!any)
            lm_buf_puts(b, "<table id=\"tuned\">\n<caption>Against TTNN's hand-tuned matmul configs (--schedule "
                           "ttnn-tuned), on the shapes they cover (simulated)</caption>\n<thead><tr><th>operator</th>"
                           "<th>chip</th><th>shapes</th><th>speedup<br>geomean [min, max]</th></tr></thead>\n"
                           "<tbody>\n");
        any = true;
        char cell[96];
        group_cells(b, &g[i]);
        snprintf(cell, sizeof cell, "%d/%d", s.ntuned, g[i].n);
        agg(b, "tuned_shapes", cell);
        snprintf(cell, sizeof cell, "%.2fx [%.2fx, %.2fx]", s.tuned_geo, s.tuned_lo, s.tuned_hi);
        agg(b, "tuned_speedup", cell);
        lm_buf_puts(b, "</tr>\n");
    }
    if (any)
        lm_buf_puts(b, "</tbody>\n</table>\n");
}

/* A row of the per-shape table: its figures, each naming its JSON member. */
static void shape_cells(lm_buf *b, const bench_result *r, const bench_row *w)
{
    num(b, "loomc.cycles", "%.0f", w->loomc_cycles);
    if (w->ttnn_ok) {
        num(b, "ttnn.cycles", "%.0f", w->ttnn_cycles);
        num(b, "ttnn.speedup_of_loomc", "%.2fx", w->ttnn_cycles / w->loomc_cycles);
    } else {
        num(b, "ttnn.cycles", "n/a");
        num(b, NULL, "-");
    }
    num(b, "best_known.cycles", "%.0f", w->best_cycles);
    num(b, "best_known.top1_regret", "%.1f%%", 100 * bench_regret(w->loomc_cycles, w->best_cycles));
    num(b, "best_known.top5_regret", "%.1f%%", 100 * bench_regret(w->top5_cycles, w->best_cycles));
    if (w->oracle_ran) {
        num(b, "oracle.loomc_rank oracle.ranked", "%lld/%lld", (long long)w->loomc_rank, (long long)w->ranked);
        num(b, "oracle.space", "%s%lld", w->oracle_exact || w->space_known ? "" : ">", (long long)w->space);
    } else {
        num(b, NULL, "-");
        num(b, NULL, "-");
    }
    for (int m = 0; m < r->ntrials; m++) {
        char cell[48], member[48];
        bool have = m < w->nmarks;
        double x = have && w->marks[m].best >= 0 ? bench_regret(w->marks[m].best_cycles, w->best_cycles) : NAN;
        pct_text(cell, sizeof cell, x, have && w->marks[m].lower_bound);
        snprintf(member, sizeof member, "tuner.%d.regret", m);
        num(b, have ? member : NULL, "%s", cell);
    }
    double tf, roof;
    if (bench_row_tflops(w, &tf, &roof))
        lm_buf_printf(b, "<td class=\"n\" data-key=\"tflops\">%.2f</td><td class=\"n\" data-key=\"roof\">%.0f%%</td>",
                      tf, roof > 0 ? 100 * tf / roof : 0);
    else
        lm_buf_puts(b, "<td class=\"n\">-</td><td class=\"n\">-</td>");
    num(b, "compile_seconds", "%.3f", w->compile_seconds);
}

/* The per-shape table of a group; a row that failed says why. */
static void shapes(lm_buf *b, const bench_result *r, const bench_group *g)
{
    lm_buf_puts(b, "<table class=\"shapes\">\n<caption>Per shape: cycles and TFLOP/s (simulated)</caption>\n"
                   "<thead><tr><th>shape</th><th>loomc<br>cycles</th><th>TTNN<br>cycles</th><th>speedup</th>"
                   "<th>best known<br>cycles</th><th>regret</th><th>top-5</th><th>rank</th><th>space</th>");
    for (int m = 0; m < r->ntrials; m++) {
        lm_buf_puts(b, "<th>@");
        bench_trials_name(b, r->trials[m]);
        lm_buf_puts(b, "</th>");
    }
    lm_buf_puts(b, "<th>TFLOP/s</th><th>roof</th><th>compile s</th></tr></thead>\n<tbody>\n");
    for (int k = 0; k < g->n; k++) {
        const bench_row *w = &r->rows[g->rows[k]];
        lm_buf_printf(b, "<tr data-row=\"%d\"%s><td>", g->rows[k], w->ok ? "" : " class=\"failed\"");
        esc(b, w->label);
        lm_buf_puts(b, "</td>");
        if (w->ok) {
            shape_cells(b, r, w);
        } else {
            lm_buf_printf(b, "<td colspan=\"%d\" data-json=\"error\">failed: ", 11 + r->ntrials);
            esc(b, w->why ? w->why : "?");
            lm_buf_puts(b, "</td>");
        }
        lm_buf_puts(b, "</tr>\n");
    }
    lm_buf_puts(b, "</tbody>\n</table>\n");
}

/* One line of the schedules table: who, and what (a JSON member, or none). */
static void sched_line(lm_buf *b, int row, const char *label, const char *who, const char *member, const char *text)
{
    lm_buf_printf(b, "<tr data-row=\"%d\"><td>", row);
    esc(b, label);
    lm_buf_puts(b, "</td><td>");
    esc(b, who);
    lm_buf_puts(b, "</td><td");
    if (member)
        lm_buf_printf(b, " data-json=\"%s\"", member);
    lm_buf_puts(b, "><code>");
    esc(b, text);
    lm_buf_puts(b, "</code></td></tr>\n");
}

/* The schedules of a group: loomc's, the best known when it is faster, and
 * why TTNN has none, the hand-tuned one's cycles, the points that failed. */
static void schedules(lm_buf *b, const bench_result *r, const bench_group *g, lm_arena *ar)
{
    lm_buf_puts(b, "<table class=\"schedules\">\n<caption>Schedules (their cycles simulated)</caption>\n"
                   "<thead><tr><th>shape</th><th>whose</th><th>schedule</th></tr></thead>\n<tbody>\n");
    for (int k = 0; k < g->n; k++) {
        const bench_row *w = &r->rows[g->rows[k]];
        int i = g->rows[k];
        if (!w->ok)
            continue;
        sched_line(b, i, w->label, "loomc", "loomc.schedule", w->loomc_label);
        if (w->best_cycles < w->loomc_cycles)
            sched_line(b, i, w->label, "best known", "best_known.schedule", w->best_label);
        if (!w->ttnn_ok && w->ttnn_why)
            sched_line(b, i, w->label, "TTNN (n/a)", "ttnn.why", w->ttnn_why);
        if (w->tuned_ok)
            sched_line(b, i, w->label, "TTNN hand-tuned", NULL,
                       lm_arena_printf(ar, "%.0f cycles (loomc %.2fx)", w->tuned_cycles,
                                       w->tuned_cycles / w->loomc_cycles));
        if (w->failures) {
            lm_buf t = {0};
            lm_buf_printf(&t, "%lld points could not be run:", (long long)w->failures);
            for (int q = 0; q < w->nfail_kinds; q++)
                lm_buf_printf(&t, "%s %lld '%s...'", q ? "," : "", (long long)w->fail_kinds[q].count,
                              w->fail_kinds[q].kind);
            lm_buf_printf(&t, "; first: %s (%s)", w->failure_why ? w->failure_why : "?",
                          w->failure_point ? w->failure_point : "?");
            sched_line(b, i, w->label, "failed points", NULL, lm_buf_str(&t));
            lm_buf_free(&t);
        }
    }
    lm_buf_puts(b, "</tbody>\n</table>\n");
}

/* ---- plots ------------------------------------------------------------------ */

/* The SVG gnuplot wrote at path, inline: from its <svg> on, with its ids
 * (and what refers to them) prefixed with `prefix`, so that several plots
 * in one page do not share one, and gnuplot's title ("Gnuplot") the plot's
 * own. False when there is none. */
static bool inline_svg(lm_buf *b, const char *path, const char *prefix, const char *title)
{
    char why[256];
    size_t len;
    char *text = lm_read_file(path, &len, why, sizeof why);
    const char *s = text ? strstr(text, "<svg") : NULL;
    if (!s) {
        free(text);
        return false;
    }
    static const char *const marks[] = {"id='", "id=\"", "href='#", "href=\"#", "url(#", "<title>Gnuplot</title>"};
    for (;;) {
        const char *at = NULL;
        size_t which = 0;
        for (size_t i = 0; i < LM_COUNT(marks); i++) {
            const char *f = strstr(s, marks[i]);
            if (f && (!at || f < at))
                at = f, which = i;
        }
        if (!at) {
            lm_buf_puts(b, s);
            break;
        }
        lm_buf_printf(b, "%.*s", (int)(at - s), s);
        s = at + strlen(marks[which]);
        if (which + 1 == LM_COUNT(marks)) {
            lm_buf_puts(b, "<title>");
            esc(b, title);
            lm_buf_puts(b, "</title>");
        } else {
            lm_buf_printf(b, "%s%s-", marks[which], prefix);
        }
    }
    free(text);
    return true;
}

/* A folder of our own for gnuplot's files (NULL after reporting). */
static char *temp_dir(lm_diag *d)
{
    const char *tmp = getenv("TMPDIR");
    lm_buf p = {0};
    lm_buf_printf(&p, "%s/loomc-html-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *dir = lm_xstrdup(lm_buf_str(&p));
    lm_buf_free(&p);
    if (!mkdtemp(dir)) {
        lm_error_plain(d, "cannot make a temporary folder for the plots: %s", strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

/* Remove dir and the files in it (it holds no folders). */
static void remove_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        lm_buf p = {0};
        lm_buf_printf(&p, "%s/%s", dir, e->d_name);
        unlink(lm_buf_str(&p));
        lm_buf_free(&p);
    }
    if (dp)
        closedir(dp);
    rmdir(dir);
}

/* The group's plots, each inline with its caption; a note when gnuplot did not draw them. */
static void plots(lm_buf *b, const bench_group *g, int gi, const char *dir, bool rendered, lm_arena *ar)
{
    static const struct {
        const char *suffix, *caption;
    } kinds[] = {
        {"_speedup.svg", "Speedup over TTNN's default schedule per shape, of loomc, the tuner at its last budget "
                         "and the best known (simulated)."},
        {"_roofline.svg", "Achieved TFLOP/s of loomc, TTNN and the best known against arithmetic intensity, under "
                          "the roofline of the chip (simulated)."},
        {"_rank.svg", "Simulated rank of loomc's pick among the oracle's points (1 = best), beside the number of "
                      "schedules ranked (simulated)."},
    };
    if (!rendered) {
        lm_buf_puts(b, "<p class=\"note\">No plots: gnuplot is not installed (Debian's gnuplot-nox).</p>\n");
        return;
    }
    for (size_t k = 0; k < LM_COUNT(kinds); k++) {
        const char *path = lm_arena_printf(ar, "%s/%s", dir, bench_plot_name(g->op, g->arch, kinds[k].suffix, ar));
        lm_buf svg = {0};
        if (inline_svg(&svg, path, lm_arena_printf(ar, "p%d-%zu", gi, k), kinds[k].caption)) {
            lm_buf_puts(b, "<figure>\n");
            lm_buf_puts(b, lm_buf_str(&svg));
            lm_buf_puts(b, "<figcaption>");
            esc(b, kinds[k].caption);
            lm_buf_puts(b, "</figcaption>\n</figure>\n");
        }
        lm_buf_free(&svg);
    }
}

bool bench_html(lm_buf *out, const bench_result *r, lm_diag *d)
{
    char *dir = temp_dir(d);
    if (!dir)
        return false;
    bool rendered = false;
    bool ok = bench_plot_svgs(r, dir, d, &rendered);
    lm_arena ar;
    lm_arena_init(&ar);
    bench_group *g;
    int ng = bench_groups(r, &g);
    head(out, r);
    summary(out, r, g, ng);
    tuned_summary(out, r, g, ng);
    for (int i = 0; i < ng && ok; i++) {
        lm_buf_printf(out, "<section id=\"g%d\">\n<h2>", i);
        esc(out, g[i].op);
        lm_buf_puts(out, " on ");
        esc(out, g[i].arch);
        lm_buf_puts(out, " (simulated)</h2>\n");
        shapes(out, r, &g[i]);
        plots(out, &g[i], i, dir, rendered, &ar);
        schedules(out, r, &g[i], &ar);
        lm_buf_puts(out, "</section>\n");
    }
    if (r->ntrials)
        lm_buf_puts(out, "<p class=\"note\">tuner@N, @N: the tuner's best after N simulated trials (regret against "
                         "best known; '&gt;' when every trial so far was stopped at the cap, so the regret is at least "
                         "that). compile s and tune s: host CPU seconds, the latter for the last budget.</p>\n");
    lm_buf_puts(out, "</body>\n</html>\n");
    bench_groups_free(g, ng);
    lm_arena_free(&ar);
    remove_dir(dir);
    free(dir);
    return ok;
}
