/* test_sim_gemm.c - end to end on a real description: the 4x4 multicast
 * GEMM of tests/sim/mcast_gemm.df on wormhole_n150 (arch/), checked
 * against the fp64 reference; its trace and report must be JSON (read back
 * with jansson) with the expected tracks and members; runs must be deterministic, and timing-only mode must
 * give the same cycles as functional mode (timing never depends on values).
 *
 * The tests run from the repository root (tests/run.sh does), where the
 * program and arch/ are.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim/sim_int.h"
#include "util/json.h"

/* ---- JSON, read back with jansson --------------------------------------- */

/* text as one JSON document whose "format" is `format`, or NULL. */
static json_t *json_doc(const char *text, const char *format)
{
    json_error_t e;
    json_t *v = json_loads(text, 0, &e);
    if (!v) {
        print_error("not JSON: %s at %d:%d\n", e.text, e.line, e.column);
        return NULL;
    }
    const char *f = json_string_value(json_object_get(v, "format"));
    if (!f || strcmp(f, format)) {
        print_error("format is %s, expected %s\n", f ? f : "(none)", format);
        json_decref(v);
        return NULL;
    }
    return v;
}

/* ---- helpers ------------------------------------------------------------------ */

static char *slurp(const char *path)
{
    char why[256];
    char *t = lm_read_file(path, NULL, why, sizeof why);
    if (!t)
        print_error("%s\n", why);
    assert_non_null(t);
    return t;
}

/* The program at path simulated on wormhole_n150; with trace_to, its trace
 * (a trace of this one run) written there. */
static sim_result *run_traced(const char *path, const char **params, int nparams, const sim_options *o,
                              FILE *trace_to)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    char *text = slurp(path);
    lm_diag_add_source(&d, path, text, strlen(text));
    arch_desc *a = arch_load("wormhole_n150", &d);
    assert_non_null(a);
    df_program *p = df_parse(path, text, strlen(text), &d);
    assert_non_null(p);
    assert_true(df_bind(p, params, nparams, &d));
    assert_true(df_validate(p, a, &d));
    sim_options so = *o;
    if (trace_to)
        so.trace = sim_trace_new(trace_to, a);
    sim_result *r = sim_run(p, a, &so, &d);
    if (so.trace)
        assert_true(sim_trace_end(so.trace));
    df_free(p);
    arch_free(a);
    free(text);
    return r;
}

static sim_result *run_file(const char *path, const char **params, int nparams, const sim_options *o)
{
    return run_traced(path, params, nparams, o, NULL);
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_mcast_gemm_numerics_and_trace(void **st)
{
    (void)st;
    char path[] = "/tmp/loomc_sim_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *tf = fdopen(fd, "w");
    assert_non_null(tf);
    sim_options o = {0};
    o.check = true;
    sim_result *r = run_traced("tests/sim/mcast_gemm.df", NULL, 0, &o, tf);
    assert_int_equal(fclose(tf), 0);
    assert_non_null(r);
    assert_int_equal(r->check, SIM_CHECK_PASS);
    assert_int_equal(r->nchecks, 1);
    assert_true(r->max_error < 1e-3);
    /* 4x4 cores, each 4x4 tiles of C over 16 K tiles */
    assert_true(r->flops == 16.0 * 16 * 16 * 2 * 32 * 32 * 32);
    assert_true(r->cycles > 0 && r->tflops > 0);
    char *trace = slurp(path);
    json_t *doc = json_doc(trace, "loomc-trace");
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "version")), SIM_TRACE_VERSION);
    assert_true(json_array_size(json_object_get(doc, "traceEvents")) > 100);
    json_decref(doc);
    assert_non_null(strstr(trace, "\"name\":\"core (0,0) corner\""));
    assert_non_null(strstr(trace, "\"args\":{\"name\":\"math\"}"));
    assert_non_null(strstr(trace, "\"ph\":\"X\",\"pid\":1,\"tid\":3,\"name\":\"matmul\""));
    assert_non_null(strstr(trace, "\"ph\":\"C\",\"pid\":0,\"name\":\"noc0"));
    assert_non_null(strstr(trace, "\"name\":\"dram bank"));

    /* the same run again writes the same trace, byte for byte */
    tf = fopen(path, "w");
    assert_non_null(tf);
    sim_result *r2 = run_traced("tests/sim/mcast_gemm.df", NULL, 0, &o, tf);
    assert_int_equal(fclose(tf), 0);
    assert_non_null(r2);
    char *trace2 = slurp(path);
    assert_string_equal(trace, trace2);
    assert_true(r2->cycles == r->cycles && r2->events == r->events);
    free(trace2);
    sim_result_free(r2);

    /* timing never depends on the values */
    sim_options t = {0};
    t.timing_only = true;
    sim_result *rt = run_file("tests/sim/mcast_gemm.df", NULL, 0, &t);
    assert_non_null(rt);
    assert_true(rt->cycles == r->cycles);
    assert_int_equal(rt->check, SIM_CHECK_SKIPPED);
    sim_result_free(rt);

    free(trace);
    sim_result_free(r);
    remove(path);
}

/* A wider GEMM with a non-square grid and another sub-block shape. */
static void test_mcast_gemm_params(void **st)
{
    (void)st;
    const char *params[] = {"GX=3", "GY=2", "PM=2", "PN=4", "KW=4", "KT=8", "SH=1", "SW=4"};
    sim_options o = {0};
    o.check = true;
    sim_result *r = run_file("tests/sim/mcast_gemm.df", params, (int)LM_COUNT(params), &o);
    assert_non_null(r);
    assert_int_equal(r->check, SIM_CHECK_PASS);
    sim_result_free(r);
}

/* The JSON report is valid JSON and has the documented keys. */
static void test_json_report(void **st)
{
    (void)st;
    sim_options o = {0};
    o.check = true;
    sim_result *r = run_file("tests/sim/stream_matmul.df", NULL, 0, &o);
    assert_non_null(r);
    lm_buf b = {0};
    sim_print_json(&b, r);
    json_t *doc = json_doc(lm_buf_str(&b), "loomc-sim-report");
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "version")), SIM_JSON_VERSION);
    static const char *keys[] = {"cycles", "seconds", "tflops", "check", "max_error", "engines", "dram_banks", "links"};
    for (size_t i = 0; i < LM_COUNT(keys); i++)
        assert_non_null(json_object_get(doc, keys[i]));
    assert_string_equal(json_string_value(json_object_get(doc, "check")), "pass");
    /* cycles are whole, rounded as printf rounds (to even) */
    assert_true(json_number_value(json_object_get(doc, "cycles")) == nearbyint(r->cycles));
    json_decref(doc);
    b.len = 0;
    sim_print_text(&b, r);
    assert_non_null(strstr(lm_buf_str(&b), "simulated cycles"));
    assert_non_null(strstr(lm_buf_str(&b), "simulated TFLOP/s"));
    lm_buf_free(&b);
    sim_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mcast_gemm_numerics_and_trace),
        cmocka_unit_test(test_mcast_gemm_params),
        cmocka_unit_test(test_json_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
