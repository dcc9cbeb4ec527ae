/* cmd_sim_run.c - the simulating half of 'loomc sim': cmd_sim.c has parsed
 * the options, read, bound and validated the program; this runs the
 * simulator and prints its report (text, or JSON with --json).
 *
 * Exit status: 0 when the run finished (and --check passed), 1 for a
 * run-time error in the program (deadlock, Dst overflow, budget) or a
 * failed check.
 */
#include "cli/cli.h"
#include "df/df.h"
#include "driver/driver.h"
#include "sim/sim.h"

#include <sys/resource.h>

/* Peak resident memory of this process in MiB (0 when unknown). */
static double peak_rss_mib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

int cli_sim_execute(const struct df_program *p, const struct arch_desc *a, const struct sim_cli_opts *o)
{
    sim_options so = {0};
    so.timing_only = o->timing_only;
    so.check = o->check;
    so.exact_exp = o->exact_exp;
    so.keep_tensors = o->save_data != NULL;
    FILE *tf = NULL;
    if (o->trace_path && !(tf = cli_output_open("sim", o->trace_path)))
        return LOOMC_EUSER;
    so.trace = tf ? sim_trace_new(tf, a) : NULL;
    sim_result *r = sim_run(p, a, &so, o->diag);
    if (so.trace)
        sim_trace_end(so.trace);
    bool wrote = !tf || cli_output_close("sim", o->trace_path, tf);
    if (!r || !wrote) {
        sim_result_free(r);
        return LOOMC_EUSER;
    }
    /* every tensor's data: the inputs as the simulator filled them, the rest as it left them */
    for (int t = 0; o->save_data && r->tensor_data && t < p->ntensors; t++)
        if (!drv_save_tensor(o->save_data, p->tensors[t].role == DF_INPUT ? "inputs" : "simulated",
                             p->tensors[t].name, r->tensor_data[t], p->tensors[t].rows * p->tensors[t].cols,
                             o->diag)) {
            sim_result_free(r);
            return LOOMC_EUSER;
        }
    if (o->save_data && !drv_save_cb_counts(o->save_data, 0, p, r, o->diag)) {
        sim_result_free(r);
        return LOOMC_EUSER;
    }
    lm_buf b = {0};
    if (o->json) {
        json_t *j = sim_json(r);
        /* the process's peak memory last: it is about this run of loomc,
         * not about the simulated chip */
        lm_json_set(j, "peak_rss_mib", lm_json_fixed(peak_rss_mib(), 1));
        lm_json_write(&b, j);
        json_decref(j);
    } else {
        sim_print_text(&b, r);
    }
    /* --trace -: the trace has standard output, the report goes to stderr */
    fputs(lm_buf_str(&b), cli_is_stdout(o->trace_path) ? stderr : stdout);
    if (o->json && o->json_errors)
        o->json_errors->reported = true; /* a failed check is in the report: no second document */
    lm_buf_free(&b);
    int status = r->check == SIM_CHECK_FAIL ? LOOMC_EUSER : LOOMC_OK;
    if (status != LOOMC_OK)
        cli_error("sim", "the simulated outputs differ from the reference beyond the tolerance");
    sim_result_free(r);
    return status;
}
