/* fuzz_kernel.c - libFuzzer harness for kernel files: the lexer and parser
 * on raw bytes, then, when the text parses, the whole front end (launch
 * spec, checker, Tile IR verifier, access analysis and the printers of
 * `loomc ir`) with every size of the first launch spec bound to a small
 * value. Seeds: the kernels of kernels/ and tests/, and the front-end error
 * corpus (tests/fuzz/corpus.sh).
 */
#define _GNU_SOURCE
#include "fuzz_front.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LM_MAX_FILE_BYTES)
        return -1;
    char *src = fz_text(data, size);
    /* the command never sees a NUL byte (lm_read_file refuses the file),
       but the lexer is given a length and must cope */
    if (fz_parse_and_dump(src, size) && !memchr(src, 0, size)) {
        fz_sizes sz;
        fz_find_sizes(src, size, &sz);
        /* small sizes, varied with the input so that both tile-multiple and
           ragged sizes are seen */
        static const int64_t small[] = {64, 128, 32, 1, 96, 50};
        uint64_t h = lm_hash_bytes(data, size, 0);
        fe_kv shapes[16];
        for (int i = 0; i < sz.n; i++)
            shapes[i] = (fe_kv){sz.names[i], small[(h + (uint64_t)i) % LM_COUNT(small)]};
        fe_launch_opts lo = {.shapes = shapes, .nshapes = sz.n, .kernel = sz.nspecs > 1 ? sz.spec : NULL};
        fz_compile(src, size, &lo);
    }
    free(src);
    return 0;
}
