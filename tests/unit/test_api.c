/* test_api.c - the public C API (include/loomc.h, src/api/): diagnostics
 * as data and nothing printed, internal errors caught, schedules, tensors,
 * functional and timing-only simulation with the caller's inputs, lowering,
 * emitting, and contexts used from several threads at once. Run from the
 * repository root (kernels/, arch/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api_int.h"
#include "df/df.h"

#define MATMUL "kernels/matmul.py"

/* ---- what the process prints meanwhile ------------------------------------ */

typedef struct quiet {
    int saved[2];
    FILE *f;
} quiet;

/* Standard output and error into a file, to check the library wrote nothing. */
static void quiet_begin(quiet *q)
{
    fflush(stdout);
    fflush(stderr);
    q->f = tmpfile();
    assert_non_null(q->f);
    for (int i = 0; i < 2; i++) {
        q->saved[i] = dup(i + 1);
        dup2(fileno(q->f), i + 1);
    }
}

/* Back to the streams; the bytes written meanwhile. */
static long quiet_end(quiet *q)
{
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 2; i++) {
        dup2(q->saved[i], i + 1);
        close(q->saved[i]);
    }
    struct stat st;
    long n = fstat(fileno(q->f), &st) == 0 ? (long)st.st_size : -1;
    fclose(q->f);
    return n;
}

static loomc_ctx *matmul_ctx(long long m, long long n, long long k)
{
    loomc_ctx *c = loomc_ctx_new();
    assert_non_null(c);
    assert_int_equal(loomc_load_kernel_file(c, MATMUL), LOOMC_OK);
    assert_int_equal(loomc_set_arch(c, "wormhole_n150"), LOOMC_OK);
    assert_int_equal(loomc_bind_shape(c, "M", m), LOOMC_OK);
    assert_int_equal(loomc_bind_shape(c, "N", n), LOOMC_OK);
    assert_int_equal(loomc_bind_shape(c, "K", k), LOOMC_OK);
    return c;
}

static const loomc_diag *first_error(const loomc_ctx *c)
{
    for (int i = 0; i < loomc_diag_count(c); i++)
        if (loomc_diag_get(c, i)->severity == LOOMC_ERROR)
            return loomc_diag_get(c, i);
    return NULL;
}

/* ---- internal errors ------------------------------------------------------ */

static int bug_line;

static int buggy(loomc_ctx *c, const void *args)
{
    (void)c, (void)args;
    bug_line = __LINE__ + 1;
    LM_BUG("a broken invariant (%d)", 42);
}

/* A bug inside an entry point ends the call with LOOMC_EINTERNAL and a
 * diagnostic at loomc's own source line, prints nothing and does not exit;
 * the context refuses further work but is still released cleanly. */
static void internal_error_is_a_diagnostic(void **state)
{
    (void)state;
    quiet q;
    quiet_begin(&q);
    loomc_ctx *c = loomc_ctx_new();
    int rc = api_call(c, "loomc_test", buggy, NULL);
    int rc2 = loomc_compile(c, 1);
    long printed = quiet_end(&q);
    assert_int_equal(rc, LOOMC_EINTERNAL);
    assert_int_equal(printed, 0);
    assert_int_equal(rc2, LOOMC_EINTERNAL);
    assert_int_equal(loomc_diag_count(c), 1);
    assert_non_null(strstr(loomc_diag_get(c, 0)->message, "unusable after an internal error"));
    loomc_ctx_free(c);

    c = loomc_ctx_new();
    assert_int_equal(api_call(c, "loomc_test", buggy, NULL), LOOMC_EINTERNAL);
    assert_int_equal(loomc_diag_count(c), 1);
    const loomc_diag *d = loomc_diag_get(c, 0);
    assert_int_equal(d->severity, LOOMC_INTERNAL);
    assert_string_equal(d->file, __FILE__);
    assert_int_equal(d->line, bug_line);
    assert_string_equal(d->message, "internal error (a bug in loomc) in loomc_test: a broken invariant (42)");
    /* no trap is left behind: the thread's next bug would exit as always */
    assert_null(lm_bug_trap_swap(NULL));
    loomc_ctx_free(c);
}

/* ---- bad input: diagnostics as data ------------------------------------------ */

static void bad_input_is_reported_as_data(void **state)
{
    (void)state;
    quiet q;
    quiet_begin(&q);
    loomc_ctx *c = loomc_ctx_new();
    int no_kernel = loomc_compile(c, 1);
    int nk = loomc_diag_count(c);
    const char *src = "import triton\n\n@triton.jit\ndef k(x):\n    y = (1 +\n        2) ? 3\n";
    int load = loomc_load_kernel_string(c, "k.py", src);
    int arch = loomc_set_arch(c, "wormhole_n15");
    char arch_msg[256];
    snprintf(arch_msg, sizeof arch_msg, "%s", first_error(c) ? first_error(c)->message : "");
    int nd_arch = loomc_diag_count(c);
    int arch_ok = loomc_set_arch(c, "wormhole_n150");
    int comp = loomc_compile(c, 1);
    long printed = quiet_end(&q);
    assert_int_equal(printed, 0);
    assert_int_equal(no_kernel, LOOMC_EUSER);
    assert_int_equal(nk, 1);
    assert_int_equal(load, LOOMC_OK);
    assert_int_equal(arch, LOOMC_EUSER);
    assert_string_equal(arch_msg, "unknown hardware description 'wormhole_n15' (did you mean 'wormhole_n150'?)");
    assert_int_equal(nd_arch, 2); /* and a note naming the descriptions */
    assert_int_equal(arch_ok, LOOMC_OK);
    assert_int_equal(comp, LOOMC_EUSER);
    /* '?' is no Python operator: line 6, column 12 of the text */
    const loomc_diag *d = first_error(c);
    assert_non_null(d);
    assert_string_equal(d->file, "k.py");
    assert_int_equal(d->line, 6);
    assert_int_equal(d->col, 12);
    assert_non_null(strstr(d->message, "'?'"));
    assert_int_equal(loomc_schedule_count(c), 0);
    loomc_ctx_free(c);
}

static void bad_settings_are_refused(void **state)
{
    (void)state;
    quiet q;
    quiet_begin(&q);
    loomc_ctx *c = loomc_ctx_new();
    int rcs[8] = {
        loomc_bind_shape(c, "1M", 3),
        loomc_bind_const(c, NULL, 3),
        loomc_set_fidelity(c, "HiFi5"),
        loomc_set_format(c, "fp32"),
        loomc_add_include_dir(c, "no/such/folder"),
        loomc_add_include_dir(c, MATMUL),
        loomc_load_kernel_file(c, "no/such/kernel.py"),
        loomc_set_arch_string(c, "chip.yaml", "name: x\nstructure: [1,\n"),
    };
    const loomc_diag *d = first_error(c);
    int line = d ? d->line : -1;
    char file[32];
    snprintf(file, sizeof file, "%s", d && d->file ? d->file : "");
    int good = loomc_add_include_dir(c, "kernels");
    long printed = quiet_end(&q);
    assert_int_equal(printed, 0);
    for (int i = 0; i < 8; i++)
        assert_int_equal(rcs[i], LOOMC_EUSER);
    assert_int_equal(good, LOOMC_OK);
    /* the YAML error names the text's name and a line of it */
    assert_string_equal(file, "chip.yaml");
    assert_true(line >= 2);
    assert_int_equal(loomc_diag_count(NULL), 0);
    assert_int_equal(loomc_compile(NULL, 1), LOOMC_EUSER);
    loomc_ctx_free(c);
    loomc_ctx_free(NULL);
}

/* ---- compile ---------------------------------------------------------------- */

static long long value_of(const loomc_launch *l, const char *name)
{
    for (int i = 0; i < l->nvalues; i++)
        if (!strcmp(l->values[i].name, name))
            return l->values[i].value;
    return -1;
}

static void compile_gives_schedules_and_tensors(void **state)
{
    (void)state;
    loomc_ctx *c = matmul_ctx(64, 96, 128);
    assert_int_equal(loomc_compile(c, 3), LOOMC_OK);
    assert_int_equal(loomc_schedule_count(c), 3);
    assert_null(loomc_schedule_get(c, 3));
    long long last = 0;
    for (int r = 0; r < 3; r++) {
        const loomc_schedule *s = loomc_schedule_get(c, r);
        assert_int_equal(s->rank, r);
        assert_int_equal(s->nlaunches, 1);
        assert_true(s->predicted_cycles >= last); /* best first */
        last = s->predicted_cycles;
        const loomc_launch *l = &s->launches[0];
        assert_string_equal(l->kernel, "matmul_kernel");
        assert_int_equal(l->predicted_cycles, s->predicted_cycles); /* one launch: the job */
        assert_int_equal(value_of(l, "M"), 64);
        assert_int_equal(value_of(l, "K"), 128);
        /* every core of the grid has a program of the output's blocks,
           whatever the placement (an axis on x, y, both or in time) */
        long long bm = value_of(l, "BLOCK_M"), bn = value_of(l, "BLOCK_N");
        long long gx = value_of(l, "grid.x"), gy = value_of(l, "grid.y");
        assert_true(bm > 0 && bn > 0 && gx > 0 && gy > 0);
        assert_true(gx * gy <= ((64 + bm - 1) / bm) * ((96 + bn - 1) / bn));
        assert_non_null(strstr(s->explanation, "kernel matmul_kernel:"));
    }
    /* the tensors at the bound sizes */
    assert_int_equal(loomc_tensor_count(c), 3);
    const loomc_tensor *a = loomc_tensor_get(c, 0), *b = loomc_tensor_get(c, 1), *o = loomc_tensor_get(c, 2);
    assert_string_equal(a->name, "a");
    assert_int_equal(a->role, LOOMC_INPUT);
    assert_string_equal(a->dtype, "bf16");
    assert_int_equal(a->rank, 2);
    assert_int_equal(a->shape[0], 64);
    assert_int_equal(a->shape[1], 128);
    assert_int_equal(a->count, 64 * 128);
    assert_int_equal(b->shape[0], 128);
    assert_int_equal(b->shape[1], 96);
    assert_string_equal(o->name, "c");
    assert_int_equal(o->role, LOOMC_OUTPUT);
    assert_string_equal(o->dtype, "f32");
    assert_int_equal(o->count, 64 * 96);
    /* a change of what to compile drops the results */
    assert_int_equal(loomc_bind_shape(c, "M", 32), LOOMC_OK);
    assert_int_equal(loomc_schedule_count(c), 0);
    assert_int_equal(loomc_tensor_count(c), 0);
    loomc_ctx_free(c);
}

/* The same description as a file by name and as YAML text compiles to the
 * same schedule. */
static void arch_as_text(void **state)
{
    (void)state;
    FILE *f = fopen("arch/wormhole_n150.yaml", "rb");
    assert_non_null(f);
    static char yaml[1 << 16];
    size_t n = fread(yaml, 1, sizeof yaml - 1, f);
    fclose(f);
    yaml[n] = 0;
    loomc_ctx *c = matmul_ctx(64, 96, 128);
    assert_int_equal(loomc_compile(c, 1), LOOMC_OK);
    long long by_name = loomc_schedule_get(c, 0)->predicted_cycles;
    assert_int_equal(loomc_set_arch_string(c, "n150.yaml", yaml), LOOMC_OK);
    assert_int_equal(loomc_compile(c, 1), LOOMC_OK);
    assert_int_equal(loomc_schedule_get(c, 0)->predicted_cycles, by_name);
    loomc_ctx_free(c);
}

/* A kernel given as text imports a helper and tl from a package found only
 * through an include folder: without it the compilation fails, with it the
 * kernel compiles. */
static void include_dirs_find_modules(void **state)
{
    (void)state;
    const char *src = "import triton\nimport loomc\nfrom kit import tl, square\n\n"
                      "@triton.jit\ndef k(x_ptr, y_ptr, M, BLOCK: tl.constexpr):\n"
                      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                      "    tl.store(y_ptr + offs, square(tl.load(x_ptr + offs, mask=offs < M)), mask=offs < M)\n\n"
                      "@loomc.launch\ndef spec(M):\n"
                      "    x = loomc.tensor((M,), tl.float32)\n    y = loomc.output((M,), tl.float32)\n"
                      "    k[(triton.cdiv(M, BLOCK),)](x, y, M)\n";
    quiet q;
    quiet_begin(&q);
    loomc_ctx *c = loomc_ctx_new();
    int load = loomc_load_kernel_string(c, "k.py", src);
    int arch = loomc_set_arch(c, "wormhole_n150");
    int shape = loomc_bind_shape(c, "M", 1000);
    int without = loomc_compile(c, 1);
    int inc = loomc_add_include_dir(c, "tests/expect/front/modules/extra");
    int with = loomc_compile(c, 1);
    quiet_end(&q);
    assert_int_equal(load | arch | shape | inc, LOOMC_OK);
    assert_int_equal(without, LOOMC_EUSER);
    assert_int_equal(with, LOOMC_OK);
    assert_true(loomc_schedule_count(c) >= 1);
    loomc_ctx_free(c);
}

/* ---- simulate ------------------------------------------------------------------ */

/* With A the identity (M = K), C = A B is B itself, exactly: every product
 * is 1 * b or 0 * b and every sum adds zeros, so the simulated output must
 * equal B's bf16 values bit for bit. */
static void functional_simulation_takes_inputs(void **state)
{
    (void)state;
    enum { M = 64, N = 96, K = 64 };
    loomc_ctx *c = matmul_ctx(M, N, K);
    static float a[M * K], b[K * N];
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            a[i * K + k] = i == k;
    for (int i = 0; i < K * N; i++)
        b[i] = (float)((i * 37) % 101 - 50) / 16.0f; /* exact in bf16: at most 7 bits */
    loomc_input in[2] = {{"a", a, M * K}, {"b", b, K * N}};
    /* nothing compiled yet: rank 0 compiles first */
    assert_int_equal(loomc_simulate(c, 0, LOOMC_SIM_FUNCTIONAL, in, 2), LOOMC_OK);
    assert_int_equal(loomc_schedule_count(c), 1);
    const loomc_sim_result *r = loomc_sim_get(c);
    assert_non_null(r);
    assert_true(r->cycles > 0);
    assert_int_equal(r->programs, 1);
    assert_true(r->checked && r->passed);
    assert_int_equal(loomc_output_count(c), 1);
    const loomc_tensor *o = loomc_output_find(c, "c");
    assert_non_null(o);
    assert_ptr_equal(o, loomc_output_get(c, 0));
    assert_int_equal(o->rank, 2);
    assert_int_equal(o->shape[0], M);
    assert_int_equal(o->shape[1], N);
    assert_int_equal(o->count, M * N);
    assert_memory_equal(o->data, b, sizeof b);
    double cycles = r->cycles;

    /* timing only: the same program, no values */
    assert_int_equal(loomc_simulate(c, 0, LOOMC_SIM_TIMING, NULL, 0), LOOMC_OK);
    assert_int_equal(loomc_output_count(c), 0);
    assert_null(loomc_output_find(c, "c"));
    assert_false(loomc_sim_get(c)->checked);
    assert_true(loomc_sim_get(c)->cycles > 0);
    (void)cycles;
    loomc_ctx_free(c);
}

static void bad_inputs_are_refused(void **state)
{
    (void)state;
    loomc_ctx *c = matmul_ctx(64, 96, 64);
    static float v[64 * 96];
    const struct {
        loomc_sim_mode mode;
        loomc_input in;
        int rank;
        const char *msg;
    } cases[] = {
        {LOOMC_SIM_FUNCTIONAL, {"a", v, 10}, 0, "input tensor 'a' has 4096 elements; 10 values were given"},
        {LOOMC_SIM_FUNCTIONAL, {"x", v, 10}, 0, "no tensor 'x' in the job (its inputs: a, b)"},
        {LOOMC_SIM_FUNCTIONAL, {"c", v, 64 * 96}, 0, "tensor 'c' is not an input of the job (its role: output)"},
        {LOOMC_SIM_TIMING, {"a", v, 4096}, 0, "a timing-only simulation takes no inputs"},
        {LOOMC_SIM_TIMING, {NULL, NULL, 0}, 1, "no schedule 1; the compilation kept 1"},
    };
    quiet q;
    quiet_begin(&q);
    int rcs[5];
    char msgs[5][160];
    for (int i = 0; i < 5; i++) {
        rcs[i] = loomc_simulate(c, cases[i].rank, cases[i].mode, &cases[i].in, cases[i].in.name ? 1 : 0);
        snprintf(msgs[i], sizeof msgs[i], "%s", first_error(c) ? first_error(c)->message : "");
    }
    long printed = quiet_end(&q);
    assert_int_equal(printed, 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rcs[i], LOOMC_EUSER);
        assert_non_null(strstr(msgs[i], cases[i].msg));
        assert_int_equal(loomc_output_count(c), 0);
    }
    assert_null(loomc_sim_get(c));
    loomc_ctx_free(c);
}

/* ---- lower and emit ----------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    lm_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        lm_buf_printf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    return b.s ? b.s : lm_xstrdup("");
}

/* The lowered program's text is a program the dataflow reader takes back
 * and the chip accepts. */
static void lower_gives_program_text(void **state)
{
    (void)state;
    loomc_ctx *c = matmul_ctx(64, 96, 128);
    assert_int_equal(loomc_compile(c, 2), LOOMC_OK);
    assert_int_equal(loomc_lower(c, 1), LOOMC_OK);
    assert_int_equal(loomc_program_count(c), 1);
    const char *text = loomc_program_text(c, 0);
    assert_non_null(text);
    assert_null(loomc_program_text(c, 1));
    lm_diag d;
    lm_diag_init(&d, stderr);
    df_program *p = df_parse("lowered.df", text, strlen(text), &d);
    assert_non_null(p);
    assert_true(df_bind(p, NULL, 0, &d));
    assert_true(df_validate(p, c->arch, &d));
    df_free(p);
    loomc_ctx_free(c);
}

/* loomc_emit writes what the driver's whole job writes for the same
 * kernel, shape and chip (the command's path, drv_job). */
static void emit_matches_the_driver(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    char dir[512], ref[600];
    snprintf(dir, sizeof dir, "%.400s/loomc_api_emit_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    snprintf(ref, sizeof ref, "%s/ref", dir);
    loomc_ctx *c = matmul_ctx(64, 96, 128);
    assert_int_equal(loomc_emit(c, 0, dir), LOOMC_OK);

    lm_diag d;
    lm_diag_init(&d, stderr);
    fe_kv shapes[3] = {{"M", 64}, {"N", 96}, {"K", 128}};
    lm_buf why = {0};
    drv_emit_opts eo = {.dir = ref, .kernel = "matmul.py", .shape = "M=64,N=96,K=128", .origin = "loom",
                        .explain = &why};
    drv_job_opts jo = {.front = {.path = MATMUL, .launch = {.shapes = shapes, .nshapes = 3}},
                       .sched = {.arch = c->arch},
                       .origin = {.kind = DRV_ORIGIN_LOOM, .explain = &why},
                       .emit = &eo};
    drv_result r;
    drv_run_result res;
    assert_true(drv_job(&r, &jo, &res, &d));
    drv_free(&r);
    lm_buf_free(&why);
    static const char *const files[] = {"host.cpp", "schedule.h", "CMakeLists.txt", "README.md",
                                        "kernels/l0_cores_0_0_compute.cpp", "kernels/l0_cores_0_0_reader.cpp"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p1[1200], p2[1200];
        snprintf(p1, sizeof p1, "%s/%s", dir, files[i]);
        snprintf(p2, sizeof p2, "%s/%s", ref, files[i]);
        char *t1 = slurp(p1), *t2 = slurp(p2);
        assert_non_null(t1);
        assert_non_null(t2);
        assert_string_equal(t1, t2);
        free(t1);
        free(t2);
    }
    loomc_ctx_free(c);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- threads ------------------------------------------------------------------- */

typedef struct job {
    long long m, n, k;
    double cycles;
    long long predicted;
    float *out;
    int rc;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    loomc_ctx *c = loomc_ctx_new();
    j->rc = loomc_load_kernel_file(c, MATMUL) | loomc_set_arch(c, "wormhole_n150") | loomc_bind_shape(c, "M", j->m) |
            loomc_bind_shape(c, "N", j->n) | loomc_bind_shape(c, "K", j->k) | loomc_compile(c, 2) |
            loomc_simulate(c, 0, LOOMC_SIM_FUNCTIONAL, NULL, 0);
    if (j->rc == LOOMC_OK) {
        const loomc_tensor *o = loomc_output_find(c, "c");
        j->cycles = loomc_sim_get(c)->cycles;
        j->predicted = loomc_schedule_get(c, 0)->predicted_cycles;
        j->out = malloc(sizeof(float) * (size_t)o->count);
        memcpy(j->out, o->data, sizeof(float) * (size_t)o->count);
    }
    loomc_ctx_free(c);
    return NULL;
}

/* Contexts in threads at once give what each gives alone. */
static void contexts_in_threads(void **state)
{
    (void)state;
    enum { NJ = 3 };
    job alone[NJ] = {{.m = 64, .n = 96, .k = 128}, {.m = 96, .n = 64, .k = 64}, {.m = 32, .n = 160, .k = 96}};
    job together[NJ];
    memcpy(together, alone, sizeof alone);
    for (int i = 0; i < NJ; i++)
        run_job(&alone[i]);
    pthread_t t[NJ];
    for (int i = 0; i < NJ; i++)
        assert_int_equal(pthread_create(&t[i], NULL, run_job, &together[i]), 0);
    for (int i = 0; i < NJ; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < NJ; i++) {
        assert_int_equal(alone[i].rc, LOOMC_OK);
        assert_int_equal(together[i].rc, LOOMC_OK);
        assert_true(alone[i].cycles == together[i].cycles);
        assert_int_equal(alone[i].predicted, together[i].predicted);
        assert_memory_equal(alone[i].out, together[i].out, sizeof(float) * (size_t)(alone[i].m * alone[i].n));
        free(alone[i].out);
        free(together[i].out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(internal_error_is_a_diagnostic),
        cmocka_unit_test(bad_input_is_reported_as_data),
        cmocka_unit_test(bad_settings_are_refused),
        cmocka_unit_test(compile_gives_schedules_and_tensors),
        cmocka_unit_test(arch_as_text),
        cmocka_unit_test(include_dirs_find_modules),
        cmocka_unit_test(functional_simulation_takes_inputs),
        cmocka_unit_test(bad_inputs_are_refused),
        cmocka_unit_test(lower_gives_program_text),
        cmocka_unit_test(emit_matches_the_driver),
        cmocka_unit_test(contexts_in_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
