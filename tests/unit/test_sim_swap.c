/* test_sim_swap.c - cb_swap: a compute kernel's two names of CBs trading
 * places (docs/dataflow.md). The running maximum of tests/sim/running_max.df
 * against the arithmetic done here on its input (each trip reads the old
 * and the new value, so a swap that did not happen, or happened on one of
 * the three compute threads only, ends in a deadlock or wrong numbers);
 * the swap's cost (none: the same program with the two CBs' roles written
 * out trip by trip runs in the same cycles); and what validation refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sim/sim_int.h"
#include "test_sim_common.h"

static arch_desc A;

static int setup(void **st)
{
    (void)st;
    toy_arch(&A);
    return 0;
}

/* Parse, bind, validate and simulate; NULL with the messages in *err. */
static sim_result *run(const char *text, const char **params, int nparams, const sim_options *o, char **err)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    sim_result *r = NULL;
    df_program *p = df_parse("prog.df", text, strlen(text), &d);
    if (p && df_bind(p, params, nparams, &d) && df_validate(p, &A, &d))
        r = sim_run(p, &A, o, &d);
    df_free(p);
    fclose(f);
    *err = buf;
    return r;
}

static char *running_max(void)
{
    char why[256];
    size_t len;
    char *text = lm_read_file("tests/sim/running_max.df", &len, why, sizeof why);
    if (!text)
        fail_msg("tests/sim/running_max.df: %s", why);
    return text;
}

static void test_swap_values(void **st)
{
    (void)st;
    char *text = running_max(), *err = NULL;
    sim_options o = {.keep_tensors = true};
    sim_result *r = run(text, NULL, 0, &o, &err);
    if (!r)
        fail_msg("%s", err);
    free(err);
    assert_int_equal(r->ntensors, 3);
    const float *x = r->tensor_data[0], *dd = r->tensor_data[1], *m = r->tensor_data[2];
    const int nt = 4, w = nt * 32;
    int64_t wrong = 0, rises = 0;
    for (int i = 0; i < 32; i++)
        for (int j = 0; j < 32; j++) {
            float cur = 0.0f; /* the fill before the loop */
            for (int t = 0; t < nt; t++) {
                float next = fmaxf(cur, x[i * w + t * 32 + j]);
                float rise = next - cur;
                wrong += memcmp(&rise, &dd[i * w + t * 32 + j], sizeof rise) != 0;
                rises += t > 0 && rise != 0.0f;
                cur = next;
            }
            wrong += memcmp(&cur, &m[i * 32 + j], sizeof cur) != 0;
        }
    assert_int_equal(wrong, 0);
    /* the maximum moves after the first trip too (about 0.9 times an
       element for inputs uniform in [-1, 1]), so the rises read both copies */
    if (rises < 32 * 32 / 2)
        fail_msg("only %lld rises after the first trip are not zero", (long long)rises);
    sim_result_free(r);
    free(text);
}

/* The trips unrolled in pairs with the CB ids written out: what the swap
 * stands for. It must take the same cycles: a swap costs no time. */
static const char *UNROLLED =
    "program running_max_unrolled\n"
    "param NT = 4\n"
    "tensor X rows=32 cols=NT*32 format=bf16 role=input seed=3\n"
    "tensor D rows=32 cols=NT*32 format=fp32 role=output\n"
    "tensor M rows=32 cols=32 format=fp32 role=output\n"
    "class main x0=0 y0=0 x1=0 y1=0 fp32_acc=1 {\n"
    "  cb 0 format=bf16 pages=2\n"
    "  cb 1 format=fp32 pages=1\n"
    "  cb 2 format=fp32 pages=1\n"
    "  cb 3 format=fp32 pages=2\n"
    "  cb 4 format=fp32 pages=1\n"
    "  reader {\n"
    "    for i lo=0 hi=NT {\n"
    "      cb_reserve cb=0 n=1\n"
    "      read tensor=X row=0 col=i cb=0\n"
    "      read_barrier\n"
    "      cb_push cb=0 n=1\n"
    "    }\n"
    "  }\n"
    "  compute {\n"
    "    cb_reserve cb=1 n=1\n"
    "    fill out=1 n=1 scalar=0\n"
    "    cb_push cb=1 n=1\n"
    "    for i lo=0 hi=NT/2 {\n"
    "      cb_wait cb=0 n=1\n"
    "      cb_wait cb=1 n=1\n"
    "      cb_reserve cb=2 n=1\n"
    "      eltwise op=max a=1 b=0 out=2\n"
    "      cb_push cb=2 n=1\n"
    "      cb_wait cb=2 n=1\n"
    "      cb_reserve cb=3 n=1\n"
    "      eltwise op=sub a=2 b=1 out=3\n"
    "      cb_push cb=3 n=1\n"
    "      cb_pop cb=0 n=1\n"
    "      cb_pop cb=1 n=1\n"
    "      cb_wait cb=0 n=1\n"
    "      cb_wait cb=2 n=1\n"
    "      cb_reserve cb=1 n=1\n"
    "      eltwise op=max a=2 b=0 out=1\n"
    "      cb_push cb=1 n=1\n"
    "      cb_wait cb=1 n=1\n"
    "      cb_reserve cb=3 n=1\n"
    "      eltwise op=sub a=1 b=2 out=3\n"
    "      cb_push cb=3 n=1\n"
    "      cb_pop cb=0 n=1\n"
    "      cb_pop cb=2 n=1\n"
    "    }\n"
    "    cb_wait cb=1 n=1\n"
    "    cb_reserve cb=4 n=1\n"
    "    copy a=1 out=4 n=1\n"
    "    cb_push cb=4 n=1\n"
    "    cb_pop cb=1 n=1\n"
    "  }\n"
    "  writer {\n"
    "    for i lo=0 hi=NT {\n"
    "      cb_wait cb=3 n=1\n"
    "      write cb=3 tensor=D row=0 col=i\n"
    "      write_barrier\n"
    "      cb_pop cb=3 n=1\n"
    "    }\n"
    "    cb_wait cb=4 n=1\n"
    "    write cb=4 tensor=M row=0 col=0\n"
    "    write_barrier\n"
    "    cb_pop cb=4 n=1\n"
    "  }\n"
    "}\n";

static void test_swap_costs_nothing(void **st)
{
    (void)st;
    char *text = running_max(), *e1 = NULL, *e2 = NULL;
    const char *nt[] = {"NT=8"};
    sim_options o = {.keep_tensors = true};
    sim_result *a = run(text, nt, 1, &o, &e1), *b = run(UNROLLED, nt, 1, &o, &e2);
    if (!a || !b)
        fail_msg("%s%s", e1, e2);
    assert_true(a->cycles > 0);
    assert_true(a->cycles == b->cycles);
    for (int t = 0; t < 3; t++)
        assert_memory_equal(a->tensor_data[t], b->tensor_data[t], t == 2 ? 32 * 32 * 4 : 32 * 8 * 32 * 4);
    sim_result_free(a);
    sim_result_free(b);
    free(e1);
    free(e2);
    free(text);
}

/* A swap's CBs must be one ring apiece of one format and size, and only
 * the kernel that swaps them may use them. */
static void assert_rejected(const char *from, const char *to, const char *want)
{
    char *text = running_max(), *err = NULL;
    char *at = strstr(text, from);
    assert_non_null(at);
    lm_buf b = {0};
    lm_buf_printf(&b, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    sim_options o = {.timing_only = true};
    sim_result *r = run(lm_buf_str(&b), NULL, 0, &o, &err);
    if (r || !strstr(err, want))
        fail_msg("expected '%s' in:\n%s", want, err);
    sim_result_free(r);
    free(err);
    lm_buf_free(&b);
    free(text);
}

static void test_swap_refused(void **st)
{
    (void)st;
    assert_rejected("cb_swap a=1 b=2", "cb_swap a=1 b=1", "error: cb_swap of CB 1 with itself");
    assert_rejected("cb 2 format=fp32 pages=1", "cb 2 format=fp32 pages=2",
                    "error: cb_swap: CB 1 (1 fp32 pages) and CB 2 (2 fp32 pages) must have one format and size");
    assert_rejected("cb 2 format=fp32 pages=1", "cb 2 format=bf16 pages=1",
                    "error: cb_swap: CB 1 (1 fp32 pages) and CB 2 (1 bf16 pages) must have one format and size");
    assert_rejected("cb_swap a=1 b=2", "cb_swap a=1 b=7", "error: CB 7 is not declared in class 'main'");
    assert_rejected("      write cb=3 tensor=D row=0 col=i\n", "      write cb=2 tensor=D row=0 col=i\n",
                    "error: CB 2 of class 'main' is swapped by its compute kernel, so its writer kernel cannot use it");
    assert_rejected("      read_barrier\n", "      read_barrier\n      cb_swap a=1 b=2\n",
                    "'cb_swap' is a compute op");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swap_values),
        cmocka_unit_test(test_swap_costs_nothing),
        cmocka_unit_test(test_swap_refused),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
