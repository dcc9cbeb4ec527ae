/* test_json.c - util's JSON (util/json.h): figures rounded as printf rounds
 * them and written back with the same digits, integers kept integers,
 * strings of any bytes written as valid JSON that reads back to them,
 * documents with their schema header, streams, and reading with the line
 * and column of every value. What is written is read back with jansson. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

/* v written as a document and read back with jansson. */
static json_t *round_trip(json_t *v)
{
    lm_buf b = {0};
    lm_json_write(&b, v);
    assert_int_equal(b.s[b.len - 1], '\n');
    json_error_t e;
    json_t *back = json_loads(lm_buf_str(&b), JSON_DECODE_ANY, &e);
    if (!back)
        fail_msg("not JSON (%s): %s", e.text, lm_buf_str(&b));
    lm_buf_free(&b);
    json_decref(v);
    return back;
}

/* What a reader gets from printf's text of x in format fmt, kept to 15
 * significant digits - the definition of the rule; *whole when printf's
 * rounding is a whole number (then the figure is an exact integer). */
static double printed(const char *fmt, int prec, double x, bool *whole)
{
    char t[512];
    snprintf(t, sizeof t, fmt, prec, x);
    double v = strtod(t, NULL);
    *whole = v == floor(v) && fabs(v) < 9007199254740992.0;
    if (*whole)
        return v;
    snprintf(t, sizeof t, "%.15g", v);
    return strtod(t, NULL);
}

/* One figure, written and read back, against printed(). */
static void check_figure(json_t *v, const char *fmt, int prec, double x)
{
    bool whole;
    double want = printed(fmt, prec, x, &whole);
    json_t *back = round_trip(v);
    if (whole) {
        if (!json_is_integer(back))
            fail_msg("%.17g as %s (%d): expected an integer", x, fmt, prec);
        assert_true((double)json_integer_value(back) == want);
    } else {
        if (!json_is_real(back))
            fail_msg("%.17g as %s (%d): expected a real", x, fmt, prec);
        if (json_real_value(back) != want)
            fail_msg("%.17g as %s (%d): read back %.17g, expected %.17g", x, fmt, prec, json_real_value(back), want);
    }
    json_decref(back);
}

static void figures_are_rounded_as_printf_rounds(void **state)
{
    (void)state;
    /* ties of the binary value (0.125, 2.5, 0.375 are exact) go to even, as printf's do;
       1e15 + 0.5 has more than 15 significant digits */
    static const double some[] = {0,        0.125,  0.375,    2.5,    3.5,      -2.5,    1e-9,     123.456789,
                                  0.1,      0.05,   1.0005,   -0.04,  1234.5678, 9.995,  99999.95, 1e15 + 0.5,
                                  -7.25e-3, 1e300, -1e-300,   4.35,   0.045,    1.15,   2.675,    1e17 / 3};
    for (size_t i = 0; i < LM_COUNT(some); i++)
        for (int d = 0; d <= 6; d++) {
            check_figure(lm_json_fixed(some[i], d), "%.*f", d, some[i]);
            if (d >= 1)
                check_figure(lm_json_sig(some[i], d + 9), "%.*g", d + 9, some[i]);
        }
    /* many more values, spread over magnitudes, against the same definition */
    unsigned long long s = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double x = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * pow(10, (int)(s % 17) - 6);
        int d = (int)(s % 4);
        check_figure(lm_json_fixed(x, d), "%.*f", d, x);
        check_figure(lm_json_sig(x, 6), "%.*g", 6, x);
    }
    /* no figure for what is not finite */
    json_t *n = round_trip(lm_json_fixed(NAN, 3));
    assert_true(json_is_null(n));
    json_decref(n);
    n = round_trip(lm_json_sig(-INFINITY, 6));
    assert_true(json_is_null(n));
    json_decref(n);
}

static void integers_stay_exact(void **state)
{
    (void)state;
    static const int64_t some[] = {0, -1, 1, INT64_MAX, INT64_MIN, 9007199254740993};
    for (size_t i = 0; i < LM_COUNT(some); i++) {
        json_t *back = round_trip(lm_json_int(some[i]));
        assert_true(json_is_integer(back));
        assert_true(json_integer_value(back) == some[i]);
        json_decref(back);
    }
    /* integer nanoseconds as microseconds: the decimal, exactly */
    json_t *back = round_trip(lm_json_scaled(1234567, 3));
    assert_true(json_real_value(back) == 1234.567);
    json_decref(back);
    back = round_trip(lm_json_scaled(-5000, 3));
    assert_true(json_is_integer(back) && json_integer_value(back) == -5);
    json_decref(back);
    lm_buf b = {0};
    json_t *v = lm_json_scaled(1234567, 3);
    lm_json_write(&b, v);
    assert_string_equal(lm_buf_str(&b), "1234.567\n");
    json_decref(v);
    lm_buf_free(&b);
}

/* Strings with quotes, backslashes, control characters and UTF-8 read back
 * as they were; bytes that are not UTF-8 become U+FFFD, in names too. */
static void strings_of_any_bytes(void **state)
{
    (void)state;
    static const char *const some[] = {"plain", "q\"uo\"te", "back\\slash\\", "tab\tnew\nline\rcr\x01\x1f\x7f",
                                       "na\xc3\xafve \xf0\x9f\x9a\x80 \xe2\x80\xa8", "", "/slash/"};
    for (size_t i = 0; i < LM_COUNT(some); i++) {
        json_t *o = lm_json_obj();
        lm_json_set(o, some[i], lm_json_string(some[i]));
        json_t *back = round_trip(o);
        assert_string_equal(json_string_value(json_object_get(back, some[i])), some[i]);
        json_decref(back);
    }
    json_t *o = lm_json_obj();
    lm_json_set(o, "bad\xff", lm_json_string("a\xc3(b\xed\xa0\x80\xf8"));
    lm_json_set(o, "null", lm_json_string(NULL));
    json_t *back = round_trip(o);
    assert_string_equal(json_string_value(json_object_get(back, "bad\xef\xbf\xbd")),
                        "a\xef\xbf\xbd(b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    assert_true(json_is_null(json_object_get(back, "null")));
    json_decref(back);
}

/* A document: format and version first, then the members in the order they
 * were added; indented by 2. */
static void documents_keep_their_order(void **state)
{
    (void)state;
    json_t *d = lm_json_doc("loomc-test", 7);
    lm_json_set(d, "z", lm_json_int(1));
    lm_json_set(d, "a", lm_json_arr());
    lm_json_push(json_object_get(d, "a"), lm_json_bool(true));
    lm_buf b = {0};
    lm_json_write(&b, d);
    assert_string_equal(lm_buf_str(&b), "{\n  \"format\": \"loomc-test\",\n  \"version\": 7,\n  \"z\": 1,\n"
                                        "  \"a\": [\n    true\n  ]\n}\n");
    json_decref(d);
    lm_buf_free(&b);
}

static void streams_write_one_item_a_line(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    lm_json_stream s;
    json_t *head = lm_json_doc("loomc-test", 1);
    assert_true(lm_json_stream_begin(&s, f, head, "items"));
    json_decref(head);
    for (int i = 0; i < 3; i++) {
        json_t *it = lm_json_obj();
        lm_json_set(it, "i", lm_json_int(i));
        lm_json_set(it, "s", lm_json_string("\"\n"));
        assert_true(lm_json_stream_item(&s, it));
        json_decref(it);
    }
    assert_true(lm_json_stream_end(&s));
    fclose(f);
    assert_string_equal(text, "{\"format\":\"loomc-test\",\"version\":1,\"items\":[\n{\"i\":0,\"s\":\"\\\"\\n\"},\n"
                              "{\"i\":1,\"s\":\"\\\"\\n\"},\n{\"i\":2,\"s\":\"\\\"\\n\"}\n]}\n");
    free(text);
}

/* ---- reading ------------------------------------------------------------ */

typedef struct reading {
    lm_arena ar;
    lm_diag d;
    char *msgs;
    size_t len;
    FILE *f;
} reading;

static lm_jval *read_text(reading *r, const char *text, size_t len)
{
    lm_arena_init(&r->ar);
    r->msgs = NULL;
    r->f = open_memstream(&r->msgs, &r->len);
    lm_diag_init(&r->d, r->f);
    r->d.no_caret = true;
    lm_jval *v = lm_json_read("t.json", text, len, &r->ar, &r->d);
    fflush(r->f);
    return v;
}

static void reading_done(reading *r)
{
    fclose(r->f);
    free(r->msgs);
    lm_arena_free(&r->ar);
}

static void values_know_their_place(void **state)
{
    (void)state;
    /* a byte order mark, CRLF, a lone CR and LF each end a line */
    const char text[] = "\xef\xbb\xbf{\"a\": 1,\r\n \"b\\\"c\": [true, null,\r  \"x\\u00e9\"],\n\t\"n\": -2.5e1}";
    reading r;
    lm_jval *v = read_text(&r, text, sizeof text - 1);
    assert_non_null(v);
    assert_int_equal(v->kind, LM_J_OBJ);
    assert_int_equal(v->n, 3);
    assert_int_equal(v->loc.line, 1);
    assert_int_equal(v->loc.col, 1);
    assert_string_equal(v->keys[1], "b\"c");
    assert_int_equal(v->key_locs[1].line, 2);
    assert_int_equal(v->key_locs[1].col, 2);
    assert_true(v->items[0]->is_int && v->items[0]->i == 1);
    assert_int_equal(v->items[0]->loc.col, 7);
    const lm_jval *arr = v->items[1];
    assert_int_equal(arr->kind, LM_J_ARR);
    assert_int_equal(arr->loc.col, 10);
    assert_int_equal(arr->items[1]->kind, LM_J_NULL);
    assert_int_equal(arr->items[1]->loc.col, 17);
    assert_string_equal(arr->items[2]->s, "x\xc3\xa9");
    assert_int_equal(arr->items[2]->loc.line, 3);
    assert_int_equal(arr->items[2]->loc.col, 3);
    assert_int_equal(v->items[2]->loc.line, 4);
    assert_int_equal(v->items[2]->loc.col, 7);
    assert_false(v->items[2]->is_int);
    assert_true(v->items[2]->d == -25);
    reading_done(&r);
}

static void bad_text_is_an_error_at_its_place(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{\"a\": 1,\n  \"b\": 2,,\n}", "t.json:2:10: error: invalid JSON: string or '}' expected near ','"},
        {"{\"a\": tru}", "t.json:1:9: error: invalid JSON: invalid token near 'tru'"},
        {"{\"a\": 1", "t.json:1:8: error: invalid JSON: '}' expected near end of file"},
        {"{\"a\": 1, \"a\": 2}", "t.json:1:12: error: invalid JSON: duplicate object key near '\"a\"'"},
        {"{\"a\": 99999999999999999999}", "error: invalid JSON: too big integer"},
        {"{\"a\": \"\\u0000\"}", "error: invalid JSON: \\u0000 is not allowed"},
        {"{\"a\": \"\xff\"}", "t.json:1:7: error: invalid JSON: unable to decode byte 0xff near '\"'"},
        {"{} {}", "t.json:1:4: error: invalid JSON: end of file expected"},
        {"", "t.json:1:1: error: invalid JSON: '[' or '{' expected near end of file"},
    };
    for (size_t i = 0; i < LM_COUNT(cases); i++) {
        reading r;
        lm_jval *v = read_text(&r, cases[i].text, strlen(cases[i].text));
        assert_null(v);
        if (!strstr(r.msgs, cases[i].want))
            fail_msg("case %zu: expected '%s' in '%s'", i, cases[i].want, r.msgs);
        reading_done(&r);
    }
    /* a NUL byte, which jansson steps over after a number (found by fuzzing:
       the walk then disagreed with jansson and stopped as an internal error) */
    static const char nul[] = "{\"a\": [1,\n 4\0, 5]}";
    reading r0;
    assert_null(read_text(&r0, nul, sizeof nul - 1));
    assert_non_null(strstr(r0.msgs, "t.json:2:3: error: invalid JSON: a NUL byte"));
    reading_done(&r0);
    /* nesting: up to the limit, and one level more */
    for (int k = LM_JSON_MAX_DEPTH; k <= LM_JSON_MAX_DEPTH + 1; k++) {
        char deep[2 * (LM_JSON_MAX_DEPTH + 1) + 1];
        memset(deep, '[', (size_t)k);
        memset(deep + k, ']', (size_t)k);
        deep[2 * k] = 0;
        reading r;
        lm_jval *v = read_text(&r, deep, strlen(deep));
        if (k <= LM_JSON_MAX_DEPTH)
            assert_non_null(v);
        else
            assert_non_null(strstr(r.msgs, "t.json:1:65: error: values nested too deeply (more than 64 levels)"));
        reading_done(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_are_rounded_as_printf_rounds),
        cmocka_unit_test(integers_stay_exact),
        cmocka_unit_test(strings_of_any_bytes),
        cmocka_unit_test(documents_keep_their_order),
        cmocka_unit_test(streams_write_one_item_a_line),
        cmocka_unit_test(values_know_their_place),
        cmocka_unit_test(bad_text_is_an_error_at_its_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
