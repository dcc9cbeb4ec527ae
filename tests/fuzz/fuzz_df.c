/* fuzz_df.c - libFuzzer harness for dataflow programs: df_parse on
 * arbitrary text; for a program it accepts, the documented round trip of
 * the canonical form (print(parse(print(p))) == print(p)), then df_bind,
 * df_validate against wormhole_n150 (loaded once, by name, from arch/) and,
 * for a program that validates, a simulation with tiny event, op, cycle and
 * data budgets and both reports. Seeds: tests/sim/ and the dataflow and
 * simulator error corpora (tests/fuzz/corpus.sh).
 */
#include "fuzz_common.h"

#include "arch/arch.h"
#include "df/df.h"
#include "sim/sim.h"

static arch_desc *chip;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    chip = arch_load("wormhole_n150", &d);
    if (!chip) {
        fprintf(stderr, "fuzz_df: cannot load the wormhole_n150 description\n");
        exit(1);
    }
    return 0;
}

/* Elements of every tensor: a functional run stores them all as floats. */
static int64_t tensor_elements(const df_program *p)
{
    int64_t total = 0;
    for (int i = 0; i < p->ntensors; i++) {
        int64_t n;
        if (!lm_mul_ok(p->tensors[i].rows, p->tensors[i].cols, &n) || !lm_add_ok(total, n, &total))
            return INT64_MAX;
    }
    return total;
}

static void simulate(const df_program *p, bool check)
{
    /* a functional run holds at most 2^18 elements: also the reference of a
       checked GEMM stays near 2^24 multiply-adds, a second or so under the
       sanitizers (the 2^27 default let a 512^3 seed take 20 s) */
    sim_options o = {.max_events = 20000, .max_cycles = 2e6, .timing_only = !check, .check = check,
                     .max_data_elems = 1 << 18};
    lm_diag d;
    fz_diag(&d);
    sim_result *r = sim_run(p, chip, &o, &d);
    if (r) {
        fz_require_clean(&d, "sim_run");
        lm_buf b = {0};
        sim_print_text(&b, r);
        sim_print_json(&b, r);
        lm_buf_free(&b);
        sim_result_free(r);
    } else {
        fz_require_error(&d, "sim_run");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES)
        return -1;
    char *text = fz_text(data, size);
    lm_diag d;
    fz_diag(&d);
    lm_diag_add_source(&d, "prog.df", text, size);
    df_program *p = df_parse("prog.df", text, size, &d);
    if (!p) {
        fz_require_error(&d, "df_parse");
        free(text);
        return 0;
    }
    fz_require_clean(&d, "df_parse");

    /* the canonical text parses back to the same canonical text */
    lm_buf once = {0}, twice = {0};
    df_print(&once, p);
    lm_diag d2;
    fz_diag(&d2);
    df_program *q = df_parse("canonical.df", lm_buf_str(&once), once.len, &d2);
    if (!q) {
        fprintf(stderr, "the canonical text does not parse:\n%s", lm_buf_str(&once));
        abort();
    }
    df_print(&twice, q);
    if (strcmp(lm_buf_str(&once), lm_buf_str(&twice)) != 0) {
        fprintf(stderr, "canonical text changes when parsed again:\n%s---\n%s", lm_buf_str(&once),
                lm_buf_str(&twice));
        abort();
    }
    lm_buf_free(&once);
    lm_buf_free(&twice);
    df_free(q);

    if (df_bind(p, NULL, 0, &d)) {
        fz_require_clean(&d, "df_bind");
        if (df_validate(p, chip, &d)) {
            fz_require_clean(&d, "df_validate");
            lm_buf b = {0};
            df_print(&b, p);
            lm_buf_free(&b);
            /* up to 2^19 elements a functional run with --check (past the
               harness's data budget of 2^18 it must refuse, with an error);
               beyond that timing only, as `loomc sim --timing-only` */
            simulate(p, tensor_elements(p) <= (1 << 19));
        } else {
            fz_require_error(&d, "df_validate");
        }
    } else {
        fz_require_error(&d, "df_bind");
    }
    df_free(p);
    free(text);
    return 0;
}
