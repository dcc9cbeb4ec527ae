/* fuzz_plan.c - libFuzzer harness for plan files (the JSON `loomc compile
 * -o` writes and `loomc run --schedule PLAN.json` reads): sched_plan_parse
 * on arbitrary text; for a plan it accepts, the writer's output must parse
 * back to the same text (write(parse(write(p))) == write(p)), and the plan
 * is applied to kernels/matmul.py compiled for wormhole_n150 at the plan's
 * own shape, as `loomc run --schedule` does (drv_schedule_plan). Seeds:
 * plans written by `loomc compile -o` (tests/fuzz/corpus.sh).
 */
#define _GNU_SOURCE
#include "fuzz_front.h"

#include "arch/arch.h"
#include "sched/sched.h"

static arch_desc *chip;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    chip = arch_load("wormhole_n150", &d);
    if (!chip) {
        fprintf(stderr, "fuzz_plan: cannot load the wormhole_n150 description\n");
        exit(1);
    }
    return 0;
}

/* Schedule kernels/matmul.py with the plan (skipped when the kernel file is
 * not there, i.e. when not run from the repository's root). */
static void apply(const sched_plan *p)
{
    static const char kernel[] = "kernels/matmul.py";
    if (access(kernel, R_OK) != 0)
        return;
    fe_kv shapes[8];
    int n = 0;
    for (int i = 0; i < p->nshape && n < 8; i++) {
        if (p->shape[i].value > 4096)
            return; /* keep each run small */
        shapes[n++] = (fe_kv){p->shape[i].name, p->shape[i].value};
    }
    drv_opts o = {.path = kernel};
    o.launch.shapes = shapes;
    o.launch.nshapes = n;
    lm_diag d;
    fz_diag(&d);
    drv_result r;
    if (drv_compile(&r, &o, &d)) {
        drv_sched_opts so = {.arch = chip};
        if (!drv_schedule_plan(&r, p, "plan.json", &so, &d))
            fz_require_error(&d, "drv_schedule_plan");
    }
    drv_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES)
        return -1;
    char *text = fz_text(data, size);
    lm_arena a;
    lm_arena_init(&a);
    lm_diag d;
    fz_diag(&d);
    lm_diag_add_source(&d, "plan.json", text, size);
    sched_plan *p = sched_plan_parse("plan.json", text, size, &a, &d);
    if (p) {
        fz_require_clean(&d, "sched_plan_parse");
        lm_buf once = {0}, twice = {0};
        sched_plan_write(&once, p);
        lm_diag d2;
        fz_diag(&d2);
        sched_plan *q = sched_plan_parse("written.json", lm_buf_str(&once), once.len, &a, &d2);
        if (!q) {
            fprintf(stderr, "the written plan does not parse:\n%s", lm_buf_str(&once));
            abort();
        }
        sched_plan_write(&twice, q);
        if (strcmp(lm_buf_str(&once), lm_buf_str(&twice)) != 0) {
            fprintf(stderr, "the written plan changes when read back:\n%s---\n%s", lm_buf_str(&once),
                    lm_buf_str(&twice));
            abort();
        }
        lm_buf_free(&once);
        lm_buf_free(&twice);
        apply(p);
    } else {
        fz_require_error(&d, "sched_plan_parse");
    }
    lm_arena_free(&a);
    free(text);
    return 0;
}
