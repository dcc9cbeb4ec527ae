/* fuzz_suite.c - libFuzzer harness for benchmark suite files (the line
 * format `loomc bench SUITE` reads, docs/evaluation.md): bench_suite_parse on
 * arbitrary text; for a suite it accepts, every operator's FLOP and byte
 * expressions are evaluated at each of its shapes, as the bench does before
 * it runs anything. Nothing is compiled or simulated: the kernels a suite
 * names are not opened. Seeds: the suites of bench/ (tests/fuzz/corpus.sh).
 */
#include "fuzz_common.h"

#include "bench/bench.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

/* An expression either evaluates or says why not. */
static void eval(const char *expr, const bench_suite_shape *sh, lm_arena *ar)
{
    double v = 0;
    const char *why = NULL;
    if (!bench_suite_eval(expr, sh, &v, &why, ar) && !why) {
        fprintf(stderr, "bench_suite_eval failed without a reason for '%s'\n", expr);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the command never sees a NUL byte: lm_read_file refuses the file */
    if (size > LM_MAX_FILE_BYTES || memchr(data, 0, size))
        return -1;
    char *text = fz_text(data, size);
    lm_arena a;
    lm_arena_init(&a);
    lm_diag d;
    fz_diag(&d);
    lm_diag_add_source(&d, "bench/fuzz.suite", text, size);
    bench_suite s;
    if (bench_suite_parse(&s, "bench/fuzz.suite", text, size, &a, &d)) {
        fz_require_clean(&d, "bench_suite_parse");
        for (int i = 0; i < s.nops; i++)
            for (int k = 0; k < s.ops[i].nshapes; k++) {
                eval(s.ops[i].flops, &s.ops[i].shapes[k], &a);
                if (s.ops[i].bytes)
                    eval(s.ops[i].bytes, &s.ops[i].shapes[k], &a);
            }
    } else {
        fz_require_error(&d, "bench_suite_parse");
    }
    lm_arena_free(&a);
    free(text);
    return 0;
}
