/* test_lex.c - the tokenizer: indentation, line joining, literals, operators,
 * locations and every lexical error, on small inputs written for each rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "front/ast.h"

/* Token kinds as short marks in a one-line rendering of the token stream. */
static void render_tok(lm_buf *b, const fe_token *t)
{
    switch (t->kind) {
    case FE_T_EOF: lm_buf_puts(b, "$"); break;
    case FE_T_NEWLINE: lm_buf_puts(b, "NL"); break;
    case FE_T_INDENT: lm_buf_puts(b, ">"); break;
    case FE_T_DEDENT: lm_buf_puts(b, "<"); break;
    case FE_T_NAME:
    case FE_T_OP: lm_buf_puts(b, t->text); break;
    case FE_T_INT: lm_buf_printf(b, "i:%lld", (long long)t->ival); break;
    case FE_T_FLOAT: lm_buf_printf(b, "f:%g", t->fval); break;
    case FE_T_STRING: lm_buf_printf(b, "s:[%s]", t->text); break;
    }
}

typedef struct lexed {
    bool ok;
    fe_tokens toks;
    char *tokens; /* rendering, heap */
    char *errors; /* diagnostics text, heap */
    lm_arena arena;
} lexed;

static lexed lex_n(const char *src, size_t len)
{
    lexed r = {0};
    size_t elen = 0;
    FILE *f = open_memstream(&r.errors, &elen);
    lm_diag d;
    lm_diag_init(&d, f);
    d.no_caret = true;
    lm_arena_init(&r.arena);
    r.ok = fe_lex("t.py", src, len, &r.arena, &d, &r.toks);
    fclose(f);
    lm_buf b = {0};
    for (int i = 0; i < r.toks.n; i++) {
        if (i)
            lm_buf_putc(&b, ' ');
        render_tok(&b, &r.toks.t[i]);
    }
    r.tokens = lm_xstrdup(lm_buf_str(&b));
    lm_buf_free(&b);
    if (r.ok)
        assert_int_equal(d.nerrors, 0);
    else
        assert_int_equal(d.nerrors, 1);
    return r;
}

static lexed lex(const char *src) { return lex_n(src, strlen(src)); }

static void lexed_free(lexed *r)
{
    free(r->tokens);
    free(r->errors);
    lm_arena_free(&r->arena);
}

/* The source must tokenise to exactly `want`. */
static void check_tokens(const char *src, const char *want)
{
    lexed r = lex(src);
    if (!r.ok)
        fail_msg("unexpected lex error for %s: %s", src, r.errors);
    assert_string_equal(r.tokens, want);
    lexed_free(&r);
}

/* The source must fail with a message containing `want` (with location). */
static void check_error(const char *src, const char *want)
{
    lexed r = lex(src);
    if (r.ok)
        fail_msg("expected an error for %s, got tokens %s", src, r.tokens);
    if (!strstr(r.errors, want))
        fail_msg("error for %s is\n%s\nexpected it to contain\n%s", src, r.errors, want);
    lexed_free(&r);
}

static void simple_line(void **state)
{
    (void)state;
    check_tokens("x = 1\n", "x = i:1 NL $");
    check_tokens("", "$");
    check_tokens("\n\n", "$");
    check_tokens("x", "x NL $"); /* the end of the file ends the line */
}

static void indentation(void **state)
{
    (void)state;
    check_tokens("if a:\n    if b:\n        c\nd\n", "if a : NL > if b : NL > c NL < < d NL $");
    check_tokens("if a:\n  b\n  c\n", "if a : NL > b NL c NL < $");
    /* blocks still open at the end of the file are closed there */
    check_tokens("def f():\n    if x:\n        return 1", "def f ( ) : NL > if x : NL > return i:1 NL < < $");
    /* dedent to an intermediate level */
    check_tokens("a:\n  b:\n    c\n  d\ne\n", "a : NL > b : NL > c NL < d NL < e NL $");
    /* tabs alone are consistent; a tab counts to the next multiple of 8 */
    check_tokens("if a:\n\tb\n\tif c:\n\t\td\n", "if a : NL > b NL if c : NL > d NL < < $");
    /* CRLF and lone CR line endings */
    check_tokens("if a:\r\n  b\r\nc\r\n", "if a : NL > b NL < c NL $");
    check_tokens("if a:\r  b\rc\r", "if a : NL > b NL < c NL $");
}

static void blank_and_comment_lines(void **state)
{
    (void)state;
    /* blank lines and comment-only lines, whatever their indentation, make no tokens */
    check_tokens("x\n\n   # c\n\n  \t \ny  # trailing\n", "x NL y NL $");
    check_tokens("# only a comment", "$");
    check_tokens("if a:\n    b\n# at column 1 inside the block\n    c\n", "if a : NL > b NL c NL < $");
    check_tokens("if a:\n    b\n        # deeper comment\n\n    c\n", "if a : NL > b NL c NL < $");
    /* a byte order mark is skipped */
    check_tokens("\xef\xbb\xbfx = 1\n", "x = i:1 NL $");
}

static void line_joining(void **state)
{
    (void)state;
    /* inside brackets newlines, indentation and comments are ignored */
    check_tokens("f(a,  # first\n      b,\n\n   c)\nx\n", "f ( a , b , c ) NL x NL $");
    check_tokens("x = [\n1,\n  2]\n", "x = [ i:1 , i:2 ] NL $");
    check_tokens("if a:\n    y = {\n1: 2}\n    z\n", "if a : NL > y = { i:1 : i:2 } NL z NL < $");
    /* explicit continuation; the continued line's indentation does not count */
    check_tokens("x = 1 + \\\n        2\ny\n", "x = i:1 + i:2 NL y NL $");
    check_tokens("if a and \\\nb:\n  c\n", "if a and b : NL > c NL < $");
}

static void integers(void **state)
{
    (void)state;
    check_tokens("0 7 00 0x1F 0X_ff 0o17 0b101 1_000_000", "i:0 i:7 i:0 i:31 i:255 i:15 i:5 i:1000000 NL $");
    check_tokens("9223372036854775807 0x7fffffffffffffff", "i:9223372036854775807 i:9223372036854775807 NL $");
    /* a literal followed by a method: `1 .real` is fine, the space matters */
    check_tokens("x[1:]", "x [ i:1 : ] NL $");
}

static void floats(void **state)
{
    (void)state;
    lexed r = lex("1.0 .5 1e-3 1_000.0 3. 2E+2 1.5e3 0.0");
    assert_true(r.ok);
    double want[] = {1.0, 0.5, 1e-3, 1000.0, 3.0, 200.0, 1500.0, 0.0};
    assert_int_equal(r.toks.n, 8 + 2);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(r.toks.t[i].kind, FE_T_FLOAT);
        assert_true(r.toks.t[i].fval == want[i]);
    }
    /* the spelling is kept for messages */
    assert_string_equal(r.toks.t[3].text, "1_000.0");
    lexed_free(&r);
    /* `...` is an operator, `.5` a number, `x.y` an attribute */
    check_tokens("x.y ... a[..., 0]", "x . y ... a [ ... , i:0 ] NL $");
}

static void strings(void **state)
{
    (void)state;
    check_tokens("'a' \"b\" ''", "s:[a] s:[b] s:[] NL $");
    check_tokens("'it\\'s' \"q\\\"q\" 'x\\\\y'", "s:[it's] s:[q\"q] s:[x\\y] NL $");
    check_tokens("'\\t|\\n|\\x41|\\101|\\u00e9|\\U0001F600|\\q'", "s:[\t|\n|A|A|\xc3\xa9|\xf0\x9f\x98\x80|\\q] NL $");
    /* raw strings keep backslashes; an escaped quote does not end them */
    check_tokens("r'\\d+\\'' R\"\\n\"", "s:[\\d+\\'] s:[\\n] NL $");
    check_tokens("u'x' U\"y\"", "s:[x] s:[y] NL $");
    /* triple-quoted strings span lines, and line numbers keep counting */
    lexed r = lex("x = \"\"\"one\n'two' \"\n\"\"\"\ny\n");
    assert_true(r.ok);
    assert_string_equal(r.tokens, "x = s:[one\n'two' \"\n] NL y NL $");
    assert_int_equal(r.toks.t[5].loc.line, 4); /* y */
    lexed_free(&r);
    /* backslash-newline inside a string joins the lines */
    check_tokens("'ab\\\ncd' e", "s:[abcd] e NL $");
    check_tokens("'''a\\\nb'''", "s:[ab] NL $");
    /* a prefix-like name not followed by a quote is a name */
    check_tokens("rb br f u x", "rb br f u x NL $");
}

static void operators(void **state)
{
    (void)state;
    check_tokens("a ** b // c -> d := e @ f", "a ** b // c -> d := e @ f NL $");
    check_tokens("+= -= *= /= //= %= **= @= &= |= ^= <<= >>=", "+= -= *= /= //= %= **= @= &= |= ^= <<= >>= NL $");
    check_tokens("< > <= >= == != << >> ~ ^ | & % ; , .", "< > <= >= == != << >> ~ ^ | & % ; , . NL $");
    /* longest match first */
    check_tokens("a**-b", "a ** - b NL $");
    check_tokens("x[:,None]", "x [ : , None ] NL $");
    check_tokens("a<<=b>>c", "a <<= b >> c NL $");
}

static void locations(void **state)
{
    (void)state;
    lexed r = lex("def f(x):\n\treturn x  +  1\n");
    assert_true(r.ok);
    /* def f ( x ) : NL > return x + 1 NL < $ */
    const fe_token *t = r.toks.t;
    assert_int_equal(t[0].loc.line, 1);
    assert_int_equal(t[0].loc.col, 1);
    assert_int_equal(t[2].loc.col, 6); /* ( */
    assert_int_equal(t[7].kind, FE_T_INDENT);
    assert_int_equal(t[7].loc.line, 2);
    assert_int_equal(t[7].loc.col, 2); /* byte columns: the tab is one */
    assert_int_equal(t[8].loc.col, 2); /* return */
    assert_int_equal(t[10].loc.col, 12); /* + */
    assert_int_equal(t[11].loc.col, 15); /* 1 */
    assert_string_equal(t[0].loc.file, "t.py");
    lexed_free(&r);
}

static void indentation_errors(void **state)
{
    (void)state;
    check_error("if a:\n    b\n  c\n", "t.py:3:3: error: unindent does not match any outer indentation level");
    /* a tab and 8 spaces reach the same column but only by the tab-size rule */
    check_error("if a:\n\tb\n        c\n", "t.py:3:9: error: inconsistent use of tabs and spaces in indentation");
    check_error("if a:\n        b\n\tc\n", "t.py:3:2: error: inconsistent use of tabs and spaces in indentation");
    check_error("if a:\n    \tb\n\t    c\n", "inconsistent use of tabs and spaces in indentation");
}

static void string_errors(void **state)
{
    (void)state;
    check_error("x = 'abc\ny = 1\n", "t.py:1:5: error: unterminated string literal (detected at line 1)");
    check_error("x = \"abc", "t.py:1:5: error: unterminated string literal (detected at line 1)");
    check_error("x = \"\"\"abc\n\ndef", "t.py:1:5: error: unterminated triple-quoted string literal (detected at line 3)");
    check_error("x = 'abc\\", "unterminated string literal");
    check_error("x = r'abc\\", "unterminated string literal");
    check_error("x = f'{a}", "t.py:1:5: error: unterminated string literal");
    check_error("x = b'ab'", "t.py:1:5: error: bytes literals are not supported");
    check_error("x = Rb'ab'", "bytes literals are not supported");
    check_error("x = '\\x4'", "t.py:1:6: error: invalid '\\x' escape: expected 2 hexadecimal digits");
    check_error("x = '\\0'", "a NUL character in a string literal is not supported");
    check_error("x = '\\N{BULLET}'", "'\\N{...}' escapes are not supported");
    check_error("x = '\\U00110000'", "beyond the last Unicode character");
}

static void number_errors(void **state)
{
    (void)state;
    check_error("x = 9223372036854775808",
                "t.py:1:5: error: integer literal '9223372036854775808' is too large; the limit is "
                "9223372036854775807 (2**63 - 1)");
    check_error("x = 0x8000000000000000", "is too large; the limit is 9223372036854775807");
    check_error("x = 1__0", "t.py:1:5: error: invalid decimal literal");
    check_error("x = 1_", "invalid decimal literal");
    check_error("x = 1abc", "invalid decimal literal");
    check_error("x = 1e", "invalid decimal literal");
    check_error("x = 0x", "invalid hexadecimal literal");
    check_error("x = 0b102", "invalid binary literal");
    check_error("x = 0o8", "invalid octal literal");
    check_error("x = 007", "leading zeros in decimal integer literals are not permitted");
    check_error("x = 2j", "complex literals are not supported");
    check_error("x = 1e999", "float literal '1e999' is too large for a 64-bit float");
}

static void character_errors(void **state)
{
    (void)state;
    check_error("x = $y", "t.py:1:5: error: unexpected character '$'");
    check_error("x = a ? b", "unexpected character '?'");
    check_error("x = !a", "unexpected character '!'");
    check_error("x = `a`", "unexpected character '`'");
    check_error("caf\xc3\xa9 = 1", "t.py:1:4: error: unexpected character '\xc3\xa9' (U+00E9)");
    check_error("x = \x01", "unexpected character U+0001");
    check_error("x = \xff", "unexpected byte 0xFF (the file is not valid UTF-8)");
    check_error("x = 1 \\ 2", "t.py:1:7: error: unexpected character after line continuation character");
    check_error("x = 1 \\", "unexpected end of file after line continuation character");
}

static void bracket_errors(void **state)
{
    (void)state;
    check_error("x = (1, 2]", "t.py:1:10: error: closing ']' does not match opening '('");
    check_error("x = [1,\n 2)", "t.py:2:3: error: closing ')' does not match opening '[' on line 1");
    check_error("x = 1)", "t.py:1:6: error: unmatched ')'");
    check_error("x = f(a, [b\ny = 2\n", "t.py:1:10: error: '[' was never closed");
    check_error("def f(:\n", "'(' was never closed");
}

static void identifier_limit(void **state)
{
    (void)state;
    char src[600];
    memset(src, 'a', FE_MAX_IDENT);
    strcpy(src + FE_MAX_IDENT, " = 1\n");
    lexed r = lex(src);
    assert_true(r.ok); /* exactly at the limit */
    assert_int_equal((int)strlen(r.toks.t[0].text), FE_MAX_IDENT);
    lexed_free(&r);
    memset(src, 'b', FE_MAX_IDENT + 1);
    strcpy(src + FE_MAX_IDENT + 1, " = 1\n");
    check_error(src, "t.py:1:1: error: identifier is 256 characters long; the limit is 255");
}

static void deep_brackets_lex(void **state)
{
    (void)state;
    /* the lexer itself has no depth limit; nesting is the parser's business */
    enum { N = 5000 };
    char *src = malloc(2 * N + 2);
    memset(src, '(', N);
    memset(src + N, ')', N);
    src[2 * N] = '\n';
    src[2 * N + 1] = 0;
    lexed r = lex(src);
    assert_true(r.ok);
    assert_int_equal(r.toks.n, 2 * N + 2);
    lexed_free(&r);
    free(src);
}

/* The line and column of an error and the quoted line agree, whatever ends
 * the lines: the diagnostics count lines as the lexer does. */
static void error_quote_follows_line_ends(void **state)
{
    (void)state;
    static const char *const ends[][3] = {
        {"\n", "\n", "\n"}, {"\r\n", "\r\n", "\r\n"}, {"\r", "\r", "\r"}, {"\r", "\r\n", "\n"}, {"\n", "\r", "\r\n"},
    };
    for (size_t i = 0; i < LM_COUNT(ends); i++) {
        char src[128];
        /* the bad character is on line 4, column 9 */
        snprintf(src, sizeof src, "import triton%s%sx = 1%s    y = $ + 1\n", ends[i][0], ends[i][1], ends[i][2]);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        lm_diag d;
        lm_diag_init(&d, f);
        lm_diag_add_source(&d, "t.py", src, strlen(src));
        lm_arena a;
        lm_arena_init(&a);
        fe_tokens toks;
        assert_false(fe_lex("t.py", src, strlen(src), &a, &d, &toks));
        fclose(f);
        assert_string_equal(text, "t.py:4:9: error: unexpected character '$'\n"
                                  "      y = $ + 1\n"
                                  "          ^\n");
        free(text);
        lm_arena_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simple_line),
        cmocka_unit_test(indentation),
        cmocka_unit_test(blank_and_comment_lines),
        cmocka_unit_test(line_joining),
        cmocka_unit_test(integers),
        cmocka_unit_test(floats),
        cmocka_unit_test(strings),
        cmocka_unit_test(operators),
        cmocka_unit_test(locations),
        cmocka_unit_test(indentation_errors),
        cmocka_unit_test(string_errors),
        cmocka_unit_test(number_errors),
        cmocka_unit_test(character_errors),
        cmocka_unit_test(bracket_errors),
        cmocka_unit_test(identifier_limit),
        cmocka_unit_test(deep_brackets_lex),
        cmocka_unit_test(error_quote_follows_line_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
