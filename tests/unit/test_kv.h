/* test_kv.h - "M=72,N=40" strings into the front end's key/value pairs, for
 * the unit tests that compile a kernel of kernels/ as `loomc --shape` and
 * `--const` would. Include after <cmocka.h> and "front/..." (fe_kv).
 */
#ifndef TEST_KV_H
#define TEST_KV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pairs of `text` into out[0..max-1], the names kept in `store`; the count. */
static inline int parse_kv(const char *text, fe_kv *out, int max, char *store, size_t storelen)
{
    int n = 0;
    snprintf(store, storelen, "%s", text);
    for (char *save = NULL, *tok = strtok_r(store, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        assert_non_null(eq);
        *eq = 0;
        out[n].name = tok;
        out[n].value = strtoll(eq + 1, NULL, 10);
        n++;
    }
    return n;
}

#endif
