/* run_report.c - what 'loomc run' prints after a run: the report as text or
 * as one JSON object (--json). Every figure is the simulator's. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char *check_name(sched_check c)
{
    return c == SCHED_CHECK_PASS ? "pass" : c == SCHED_CHECK_FAIL ? "fail" : "skipped";
}

/* Values in name order, for stable output. */
static int cmp_binding(const void *a, const void *b)
{
    const sym_binding *x = a, *y = b;
    return strcmp(x->var->name, y->var->name);
}

static void sorted_values(const sym_env *env, sym_binding *out, int *n)
{
    *n = env->n;
    memcpy(out, env->b, sizeof *out * (size_t)env->n);
    qsort(out, (size_t)*n, sizeof *out, cmp_binding);
}

void cli_run_report(lm_buf *b, const drv_result *r, const arch_desc *arch, const sched_run_result *res, bool json)
{
    const sched_schedule *s = r->sched->run;
    int n = r->sched->nrun;
    sym_binding vals[256];
    int nvals;
    if (json) {
        lm_buf_puts(b, "{\"kernel\":");
        lm_json_str(b, r->spec->name ? r->spec->name : "?");
        lm_buf_puts(b, ",\"arch\":");
        lm_json_str(b, arch->name);
        lm_buf_printf(b, ",\"simulated\":true,\"cycles\":%.0f,\"seconds\":%.9g,\"tflops\":%.6g,\"check\":\"%s\","
                          "\"max_error\":%.6g,\"max_rel_error\":%.6g",
                      res->cycles, res->seconds, res->tflops, check_name(res->check), res->max_error, res->max_rel_error);
        lm_buf_puts(b, ",\"launches\":[");
        for (int l = 0; l < res->nlaunches; l++) {
            lm_buf_printf(b, "%s{\"kernel\":", l ? "," : "");
            lm_json_str(b, res->launches[l].kernel);
            lm_buf_printf(b, ",\"cycles\":%.0f,\"cores\":%d", res->launches[l].cycles, res->launches[l].cores);
            if (res->launches[l].fused)
                lm_buf_printf(b, ",\"fused\":true,\"first\":%d,\"count\":%d", res->launches[l].first,
                              res->launches[l].count);
            lm_buf_putc(b, '}');
        }
        lm_buf_puts(b, "],\"outputs\":[");
        for (int i = 0; i < res->noutputs; i++) {
            const sched_run_output *ro = &res->outputs[i];
            lm_buf_printf(b, "%s{\"tensor\":", i ? "," : "");
            lm_json_str(b, ro->tensor);
            lm_buf_printf(b, ",\"pass\":%s,\"max_abs\":%.6g,\"max_rel\":%.6g,\"tolerance\":%.6g}",
                          ro->pass ? "true" : "false", ro->max_abs, ro->max_rel, ro->tolerance);
        }
        lm_buf_puts(b, "],\"schedule\":{\"origin\":");
        lm_json_str(b, s[0].origin ? s[0].origin : "?");
        lm_buf_puts(b, ",\"launches\":[");
        for (int l = 0; l < n; l++) {
            lm_buf_printf(b, "%s{\"kernel\":", l ? "," : "");
            lm_json_str(b, r->launches[l].summary->f->name);
            lm_buf_puts(b, ",\"label\":");
            lm_json_str(b, s[l].cand.label ? s[l].cand.label : "");
            lm_buf_printf(b, ",\"fidelity\":\"%s\",\"fp32_acc\":%s,\"predicted_cycles\":%lld,\"values\":{",
                          arch_fidelity_name(s[l].fidelity), s[l].fp32_acc ? "true" : "false",
                          (long long)s[l].predicted_cycles);
            sorted_values(&s[l].values, vals, &nvals);
            for (int i = 0; i < nvals; i++) {
                lm_buf_printf(b, "%s", i ? "," : "");
                lm_json_str(b, vals[i].var->name);
                lm_buf_printf(b, ":%lld", (long long)vals[i].lo);
            }
            lm_buf_puts(b, "}}");
        }
        lm_buf_puts(b, "]}}\n");
    } else {
        lm_buf_printf(b, "job %s on %s (simulated)\n", r->spec->name ? r->spec->name : "?", arch->name);
        for (int l = 0; l < n; l++) {
            lm_buf_printf(b, "launch %d %s: schedule (%s) %s\n", l, r->launches[l].summary->f->name,
                          s[l].origin ? s[l].origin : "?", s[l].cand.label ? s[l].cand.label : "");
            sorted_values(&s[l].values, vals, &nvals);
            lm_buf_puts(b, "  values:");
            for (int i = 0; i < nvals; i++)
                lm_buf_printf(b, " %s=%lld", vals[i].var->name, (long long)vals[i].lo);
            lm_buf_printf(b, "\n  math %s, Dst %s accumulation\n", arch_fidelity_name(s[l].fidelity),
                          s[l].fp32_acc ? "fp32" : "16-bit");
            for (int j = 0; j < res->nlaunches; j++) {
                const sched_run_launch *rl = &res->launches[j];
                if (l == rl->first + rl->count - 1 && rl->count > 1)
                    lm_buf_printf(b, "  simulated cycles %.0f on %d cores, launches %d to %d fused in one program\n",
                                  rl->cycles, rl->cores, rl->first, l);
                else if (l == rl->first && rl->count == 1)
                    lm_buf_printf(b, "  simulated cycles %.0f on %d cores\n", rl->cycles, rl->cores);
            }
        }
        if (res->nlaunches > 1)
            lm_buf_puts(b, "programs run one after the other; their simulated cycles add up\n");
        lm_buf_printf(b, "simulated cycles     %.0f\n", res->cycles);
        lm_buf_printf(b, "simulated time       %.3f us\n", res->seconds * 1e6);
        lm_buf_printf(b, "simulated TFLOP/s    %.3f\n", res->tflops);
        lm_buf_printf(b, "check                %s", check_name(res->check));
        if (res->check != SCHED_CHECK_SKIPPED)
            lm_buf_printf(b, " (largest error %.3g, relative %.3g)", res->max_error, res->max_rel_error);
        lm_buf_putc(b, '\n');
        for (int i = 0; i < res->noutputs; i++) {
            const sched_run_output *ro = &res->outputs[i];
            lm_buf_printf(b, "  %s: %s, max abs %.3g, max rel%s %.3g (tolerance %.3g)%s\n", ro->tensor,
                          ro->pass ? "pass" : "fail", ro->max_abs, ro->block_rel ? " to block max" : "",
                          ro->max_rel, ro->tolerance,
                          ro->nonfinite ? ", non-finite values" : "");
        }
    }
}
