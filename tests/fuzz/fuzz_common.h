/* fuzz_common.h - helpers shared by the libFuzzer harnesses of tests/fuzz/.
 *
 * Every harness feeds one reader with arbitrary bytes and checks the
 * project's promise about bad input (docs/hacking.md): a reader either
 * succeeds or reports at least one error through its lm_diag and returns
 * failure - it never crashes, never exits, never leaks and never fails
 * silently. A silent failure aborts here so that libFuzzer keeps the input.
 *
 * Messages go to /dev/null: the fuzzer measures behaviour, not wording.
 */
#ifndef LOOMC_FUZZ_COMMON_H
#define LOOMC_FUZZ_COMMON_H

#include "util/base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* One stream for every diagnostic of the run. */
static inline FILE *fz_sink(void)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    return devnull;
}

/* A fresh diagnostics context writing to the sink. */
static inline void fz_diag(lm_diag *d)
{
    lm_diag_init(d, fz_sink());
}

/* The bytes as a heap string with a terminating NUL, as lm_read_file
 * returns them (embedded NULs are kept: the readers take a length). */
static inline char *fz_text(const uint8_t *data, size_t size)
{
    char *s = lm_xmalloc(size + 1);
    if (size)
        memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A reader returned failure: it must have said why. */
static inline void fz_require_error(const lm_diag *d, const char *reader)
{
    if (d->nerrors == 0) {
        fprintf(stderr, "%s failed without reporting an error\n", reader);
        abort();
    }
}

/* A reader succeeded: it must not have reported an error. */
static inline void fz_require_clean(const lm_diag *d, const char *reader)
{
    if (d->nerrors != 0) {
        fprintf(stderr, "%s succeeded after reporting %d error(s)\n", reader, d->nerrors);
        abort();
    }
}

#endif
