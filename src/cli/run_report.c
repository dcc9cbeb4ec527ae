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

static json_t *launches_json(const sched_run_result *res)
{
    json_t *a = lm_json_arr();
    for (int l = 0; l < res->nlaunches; l++) {
        const sched_run_launch *rl = &res->launches[l];
        json_t *o = lm_json_obj();
        lm_json_set(o, "kernel", lm_json_string(rl->kernel));
        lm_json_set(o, "cycles", lm_json_fixed(rl->cycles, 0));
        lm_json_set(o, "cores", lm_json_int(rl->cores));
        if (rl->fused) {
            lm_json_set(o, "fused", lm_json_bool(true));
            lm_json_set(o, "first", lm_json_int(rl->first));
            lm_json_set(o, "count", lm_json_int(rl->count));
        }
        lm_json_push(a, o);
    }
    return a;
}

static json_t *outputs_json(const sched_run_result *res)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < res->noutputs; i++) {
        const sched_run_output *ro = &res->outputs[i];
        json_t *o = lm_json_obj();
        lm_json_set(o, "tensor", lm_json_string(ro->tensor));
        lm_json_set(o, "pass", lm_json_bool(ro->pass));
        lm_json_set(o, "max_abs", lm_json_sig(ro->max_abs, 6));
        lm_json_set(o, "max_rel", lm_json_sig(ro->max_rel, 6));
        lm_json_set(o, "tolerance", lm_json_sig(ro->tolerance, 6));
        lm_json_push(a, o);
    }
    return a;
}

/* The schedule each launch ran, its values in name order. */
static json_t *schedule_json(const drv_result *r)
{
    const sched_schedule *s = r->sched->run;
    sym_binding vals[256];
    int nvals;
    json_t *sc = lm_json_obj(), *ls = lm_json_arr();
    lm_json_set(sc, "origin", lm_json_string(s[0].origin ? s[0].origin : "?"));
    for (int l = 0; l < r->sched->nrun; l++) {
        json_t *o = lm_json_obj(), *v = lm_json_obj();
        lm_json_set(o, "kernel", lm_json_string(r->launches[l].summary->f->name));
        lm_json_set(o, "label", lm_json_string(s[l].cand.label ? s[l].cand.label : ""));
        lm_json_set(o, "fidelity", lm_json_string(arch_fidelity_name(s[l].fidelity)));
        lm_json_set(o, "fp32_acc", lm_json_bool(s[l].fp32_acc));
        lm_json_set(o, "predicted_cycles", lm_json_int(s[l].predicted_cycles));
        sorted_values(&s[l].values, vals, &nvals);
        for (int i = 0; i < nvals; i++)
            lm_json_set(v, vals[i].var->name, lm_json_int(vals[i].lo));
        lm_json_set(o, "values", v);
        lm_json_push(ls, o);
    }
    lm_json_set(sc, "launches", ls);
    return sc;
}

static void report_json(lm_buf *b, const drv_result *r, const arch_desc *arch, const sched_run_result *res)
{
    json_t *d = lm_json_doc("loomc-run-report", CLI_RUN_JSON_VERSION);
    lm_json_set(d, "kernel", lm_json_string(r->spec->name ? r->spec->name : "?"));
    lm_json_set(d, "arch", lm_json_string(arch->name));
    lm_json_set(d, "simulated", lm_json_bool(true));
    lm_json_set(d, "cycles", lm_json_fixed(res->cycles, 0));
    lm_json_set(d, "seconds", lm_json_sig(res->seconds, 9));
    lm_json_set(d, "tflops", lm_json_sig(res->tflops, 6));
    lm_json_set(d, "check", lm_json_string(check_name(res->check)));
    lm_json_set(d, "max_error", lm_json_sig(res->max_error, 6));
    lm_json_set(d, "max_rel_error", lm_json_sig(res->max_rel_error, 6));
    lm_json_set(d, "launches", launches_json(res));
    lm_json_set(d, "outputs", outputs_json(res));
    lm_json_set(d, "schedule", schedule_json(r));
    lm_json_write(b, d);
    json_decref(d);
}

void cli_run_report(lm_buf *b, const drv_result *r, const arch_desc *arch, const sched_run_result *res, bool json)
{
    const sched_schedule *s = r->sched->run;
    int n = r->sched->nrun;
    sym_binding vals[256];
    int nvals;
    if (json) {
        report_json(b, r, arch, res);
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
