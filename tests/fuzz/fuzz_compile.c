/* fuzz_compile.c - libFuzzer harness for the whole `loomc compile` path:
 * the input is laid out as for fuzz_launch.c (the --shape value, the --const
 * value and an optional --kernel name on the first three lines, then a kernel
 * file); the front end runs, then the scheduler (summaries, buffers,
 * candidates, the solver with a small effort limit) for wormhole_n150, and
 * the chosen plan is written. Sizes above 4096 are skipped to keep each run
 * short. Seeds: the kernels with their golden shapes (tests/fuzz/corpus.sh).
 */
#define _GNU_SOURCE
#include "fuzz_front.h"

#include "arch/arch.h"

#include <errno.h>

enum { MAX_KV = 16 };

static arch_desc *chip;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    lm_diag d;
    lm_diag_init(&d, stderr);
    chip = arch_load("wormhole_n150", &d);
    if (!chip) {
        fprintf(stderr, "fuzz_compile: cannot load the wormhole_n150 description\n");
        exit(1);
    }
    return 0;
}

/* NAME=VALUE,... as the command line reads it; false when malformed. */
static bool parse_kvs(char *line, fe_kv *out, int *n)
{
    *n = 0;
    if (!*line)
        return true;
    for (char *item = line; item;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = 0;
        char *eq = strchr(item, '=');
        if (!eq || eq == item || *n == MAX_KV)
            return false;
        *eq = 0;
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (!eq[1] || *end || errno)
            return false;
        out[(*n)++] = (fe_kv){item, v};
        item = comma ? comma + 1 : NULL;
    }
    return true;
}

static char *next_line(char **p)
{
    char *s = *p;
    if (!s)
        return NULL;
    char *nl = strchr(s, '\n');
    if (nl) {
        *nl = 0;
        *p = nl + 1;
    } else {
        *p = NULL;
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES || memchr(data, 0, size))
        return -1;
    char *text = fz_text(data, size);
    char *p = text;
    char *shape_line = next_line(&p), *const_line = next_line(&p), *kernel_line = next_line(&p);
    fe_kv shapes[MAX_KV], consts[MAX_KV];
    int nshapes, nconsts;
    bool small = true;
    if (p && parse_kvs(shape_line, shapes, &nshapes) && parse_kvs(const_line, consts, &nconsts)) {
        for (int i = 0; i < nshapes; i++)
            small &= shapes[i].value <= 4096;
        char path[64];
        size_t len = size - (size_t)(p - text);
        int fd = small ? fz_memfile(p, len, path, sizeof path) : -1;
        if (fd >= 0) {
            drv_opts o = {.path = path};
            o.launch = (fe_launch_opts){.shapes = shapes, .nshapes = nshapes, .consts = consts, .nconsts = nconsts,
                                        .kernel = *kernel_line ? kernel_line : NULL};
            drv_sched_opts so = {.arch = chip, .top_k = 2, .node_limit = 20000};
            lm_diag d;
            fz_diag(&d);
            drv_result r;
            if (drv_compile(&r, &o, &d)) {
                if (drv_schedule(&r, &so, &d)) {
                    fz_require_clean(&d, "drv_schedule");
                    sched_plan_kv sk[MAX_KV], ck[MAX_KV];
                    for (int i = 0; i < nshapes; i++)
                        sk[i] = (sched_plan_kv){shapes[i].name, shapes[i].value};
                    for (int i = 0; i < nconsts; i++)
                        ck[i] = (sched_plan_kv){consts[i].name, consts[i].value};
                    sched_plan plan;
                    lm_buf b = {0};
                    sched_plan_from(&plan, &r.sched->job, &r.sched->result, path, r.spec->name, sk, nshapes, ck,
                                    nconsts, &r.arena);
                    sched_plan_write(&b, &plan);
                    lm_buf_free(&b);
                } else {
                    fz_require_error(&d, "drv_schedule");
                }
            } else {
                fz_require_error(&d, "drv_compile");
            }
            drv_free(&r);
            close(fd);
        }
    }
    free(text);
    return 0;
}
