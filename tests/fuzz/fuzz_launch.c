/* fuzz_launch.c - libFuzzer harness for launch specs and their bindings:
 * the input is the `--shape` value on its first line, the `--const` value
 * on its second, an optional `--kernel` name on its third, then a kernel
 * file. The bindings are parsed like the command line (NAME=VALUE,...;
 * values as 64-bit integers, so huge, zero and negative sizes get through)
 * and the whole front end runs as in `loomc ir`. Seeds: the kernels with
 * the shapes of their golden tests (tests/fuzz/corpus.sh).
 */
#define _GNU_SOURCE
#include "fuzz_front.h"

#include <errno.h>

enum { MAX_KV = 16 };

/* Split one line of NAME=VALUE items; false when it is not well formed
 * (the command line would have refused it before the front end ran). */
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
        for (int i = 0; i < *n; i++)
            if (!strcmp(out[i].name, item))
                return false;
        out[(*n)++] = (fe_kv){item, v};
        item = comma ? comma + 1 : NULL;
    }
    return true;
}

/* Cut the next line off *p (NULL at the end of the text). */
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

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES || memchr(data, 0, size))
        return -1;
    char *text = fz_text(data, size);
    char *p = text;
    char *shape_line = next_line(&p), *const_line = next_line(&p), *kernel_line = next_line(&p);
    fe_kv shapes[MAX_KV], consts[MAX_KV];
    int nshapes, nconsts;
    if (p && parse_kvs(shape_line, shapes, &nshapes) && parse_kvs(const_line, consts, &nconsts)) {
        size_t len = size - (size_t)(p - text);
        if (fz_parse_and_dump(p, len)) {
            fe_launch_opts lo = {.shapes = shapes, .nshapes = nshapes, .consts = consts, .nconsts = nconsts,
                                 .kernel = *kernel_line ? kernel_line : NULL};
            fz_compile(p, len, &lo);
        }
    }
    free(text);
    return 0;
}
