/* test_base.c - arenas, buffers, checked arithmetic, whole-integer reading,
 * finding files above a folder, and diagnostics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void parse_i64_whole(void **state)
{
    (void)state;
    int64_t v = 7;
    assert_true(lm_parse_i64("0", &v) && v == 0);
    assert_true(lm_parse_i64("-42", &v) && v == -42);
    assert_true(lm_parse_i64("9223372036854775807", &v) && v == INT64_MAX);
    assert_true(lm_parse_i64("-9223372036854775808", &v) && v == INT64_MIN);
    v = 7;
    static const char *const bad[] = {"", " 5", "5 ", "5x", "x", "1e3", "9223372036854775808", "--1", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(lm_parse_i64(bad[i], &v));
    assert_int_equal(v, 7); /* untouched when refused */
}

/* A file in a/b/c: data/x.txt in a/ and data/ (a folder) in a/b/ are found
 * from it, the nearer first, as a file or as a folder. */
static void find_above_walks_up(void **state)
{
    (void)state;
    char root[200];
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/loomc-test-XXXXXX", tmp && *tmp ? tmp : ".");
    assert_non_null(mkdtemp(root));
    char p[256];
    static const char *const dirs[] = {"a", "a/b", "a/b/c", "a/data", "a/b/data"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        assert_int_equal(mkdir(p, 0700), 0);
    }
    snprintf(p, sizeof p, "%s/a/data/x.txt", root);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fclose(f);
    assert_true(lm_is_file(p) && !lm_is_dir(p));
    char from[256], want[256];
    snprintf(from, sizeof from, "%s/a/b/c/prog", root);
    const char *rel[] = {"data/x.txt", "data"};
    char *got = lm_find_above(from, rel, 1, false);
    snprintf(want, sizeof want, "%s/a/data/x.txt", root);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    got = lm_find_above(from, rel + 1, 1, true);
    snprintf(want, sizeof want, "%s/a/b/data", root);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
    const char *none[] = {"data/y.txt"};
    assert_null(lm_find_above(from, none, 1, false));
    assert_null(lm_find_above("prog", rel, 1, false)); /* no folder in the name */
    char exe[4096];
    assert_true(lm_self_exe(exe, sizeof exe) && exe[0] == '/' && lm_is_file(exe));
    static const char *const rm[] = {"a/data/x.txt", "a/b/data", "a/data", "a/b/c", "a/b", "a", ""};
    for (size_t i = 0; i < sizeof rm / sizeof *rm; i++) {
        snprintf(p, sizeof p, "%s/%s", root, rm[i]);
        assert_int_equal(remove(p), 0);
    }
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

/* Under a trap, a bug jumps back with its place and message, prints
 * nothing, and clears the trap; traps nest. */
static void bug_trap_catches(void **state)
{
    (void)state;
    lm_bug_trap outer, inner;
    assert_null(lm_bug_trap_swap(&outer));
    volatile int line = 0;
    if (setjmp(outer.env) == 0) {
        lm_bug_trap *prev = lm_bug_trap_swap(&inner);
        assert_ptr_equal(prev, &outer);
        if (setjmp(inner.env) == 0) {
            line = __LINE__ + 1;
            LM_BUG("broken %s %d", "invariant", 7);
        }
        /* the inner trap was cleared by the bug; the outer one is set again */
        assert_string_equal(inner.msg, "broken invariant 7");
        assert_string_equal(inner.file, __FILE__);
        assert_int_equal(inner.line, line);
        assert_null(lm_bug_trap_swap(prev));
        LM_ASSERT(line < 0); /* a failed assertion is a bug too */
        fail();
    }
    assert_string_equal(outer.msg, "assertion failed: line < 0");
    assert_null(lm_bug_trap_swap(NULL));
}

/* With a sink, a diagnostic arrives as data and nothing is written. */
typedef struct sunk {
    char kind[16], file[16], msg[64];
    int line, col, n;
} sunk;

static void take(void *ctx, const char *kind, lm_loc loc, const char *msg)
{
    sunk *s = ctx;
    snprintf(s->kind, sizeof s->kind, "%s", kind);
    snprintf(s->file, sizeof s->file, "%s", loc.file ? loc.file : "-");
    snprintf(s->msg, sizeof s->msg, "%s", msg);
    s->line = loc.line, s->col = loc.col;
    s->n++;
}

static void diag_sink_gets_data(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lm_diag d;
    lm_diag_init(&d, f);
    sunk s = {0};
    d.sink = take;
    d.sink_ctx = &s;
    lm_error(&d, (lm_loc){"k.py", 3, 9}, "bad %s", "thing");
    assert_int_equal(d.nerrors, 1);
    assert_string_equal(s.kind, "error");
    assert_string_equal(s.file, "k.py");
    assert_int_equal(s.line, 3);
    assert_int_equal(s.col, 9);
    assert_string_equal(s.msg, "bad thing");
    lm_note(&d, (lm_loc){0}, "see %d", 2);
    assert_string_equal(s.kind, "note");
    assert_string_equal(s.file, "-");
    assert_string_equal(s.msg, "see 2");
    fclose(f);
    assert_int_equal(len, 0);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_zeroed_and_aligned),
        cmocka_unit_test(buf_appends),
        cmocka_unit_test(checked_arithmetic),
        cmocka_unit_test(parse_i64_whole),
        cmocka_unit_test(find_above_walks_up),
        cmocka_unit_test(diag_prints_location_and_caret),
        cmocka_unit_test(diag_quotes_lines_as_readers_count_them),
        cmocka_unit_test(bug_trap_catches),
        cmocka_unit_test(diag_sink_gets_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
