/* test_base.c - arenas, buffers, checked arithmetic and diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util/base.h"

static void arena_zeroed_and_aligned(void **state)
{
    (void)state;
    lm_arena a;
    lm_arena_init(&a);
    for (int i = 1; i < 5000; i += 37) {
        unsigned char *p = lm_arena_alloc(&a, (size_t)i);
        assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
        for (int j = 0; j < i; j++)
            assert_int_equal(p[j], 0);
        memset(p, 0xab, (size_t)i);
    }
    char *big = lm_arena_alloc(&a, 1 << 20); /* larger than a chunk */
    big[(1 << 20) - 1] = 1;
    assert_string_equal(lm_arena_printf(&a, "%s-%d", "x", 42), "x-42");
    lm_arena_free(&a);
}

static void buf_appends(void **state)
{
    (void)state;
    lm_buf b = {0};
    assert_string_equal(lm_buf_str(&b), "");
    for (int i = 0; i < 1000; i++)
        lm_buf_printf(&b, "%d,", i % 10);
    assert_int_equal(b.len, 2000);
    assert_memory_equal(b.s, "0,1,2,", 6);
    lm_buf_free(&b);
}

static void checked_arithmetic(void **state)
{
    (void)state;
    int64_t r;
    assert_true(lm_mul_ok(1 << 20, 1 << 20, &r));
    assert_int_equal(r, (int64_t)1 << 40);
    assert_false(lm_mul_ok(INT64_MAX / 2 + 1, 2, &r));
    assert_false(lm_add_ok(INT64_MAX, 1, &r));
}

static void diag_prints_location_and_caret(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    const char *src = "def k():\n    while x:\n";
    lm_diag_add_source(&d, "k.py", src, strlen(src));
    lm_error(&d, (lm_loc){"k.py", 2, 5}, "'while' loops are not supported");
    fclose(f);
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(text, "k.py:2:5: error: 'while' loops are not supported\n"
                              "      while x:\n"
                              "      ^\n");
    free(text);
}

/* The quoted line is found by counting lines as every reader does: LF,
 * CRLF and a lone CR each end one; a byte order mark is not quoted. */
static void diag_quotes_lines_as_readers_count_them(void **state)
{
    (void)state;
    static const struct {
        const char *src;
        int line, col;
        const char *quote;
    } cases[] = {
        {"a\rbb\rccc = $\r", 3, 7, "  ccc = $\n        ^\n"},   /* old Mac line ends */
        {"a\nb\r\nc\rd = $\n", 4, 5, "  d = $\n      ^\n"},    /* LF, CRLF and CR mixed */
        {"a\r\n\r\n\rd\r", 4, 1, "  d\n  ^\n"},             /* empty lines of each kind */
        {"\xef\xbb\xbfx = $\n", 1, 5, "  x = $\n      ^\n"},  /* the mark is not part of line 1 */
        {"a\rb\r", 3, 1, ""},                                 /* past the end: nothing quoted */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        lm_diag d;
        lm_diag_init(&d, f);
        lm_diag_add_source(&d, "k.py", cases[i].src, strlen(cases[i].src));
        lm_error(&d, (lm_loc){"k.py", cases[i].line, cases[i].col}, "bad");
        fclose(f);
        char head[64];
        snprintf(head, sizeof head, "k.py:%d:%d: error: bad\n", cases[i].line, cases[i].col);
        assert_int_equal(strncmp(text, head, strlen(head)), 0);
        assert_string_equal(text + strlen(head), cases[i].quote);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_zeroed_and_aligned),
        cmocka_unit_test(buf_appends),
        cmocka_unit_test(checked_arithmetic),
        cmocka_unit_test(diag_prints_location_and_caret),
        cmocka_unit_test(diag_quotes_lines_as_readers_count_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
