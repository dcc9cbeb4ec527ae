/* lex.c - the tokenizer for the Python subset loomc reads (declared in ast.h).
 *
 * It follows Python's own tokenizer rules so that a file Python accepts is
 * tokenised the same way, and a file Python rejects is rejected here with a
 * message in Python's words:
 *  - A logical line ends with NEWLINE; blank and comment-only lines produce
 *    nothing. Inside (), [] and {} newlines are ignored (implicit joining),
 *    and a backslash before the newline joins lines explicitly.
 *  - Indentation is compared against a stack of levels: deeper pushes and
 *    emits INDENT, shallower pops one DEDENT per level and must land exactly
 *    on an outer level. Tabs advance to the next multiple of 8; the line is
 *    also measured with tabs counting 1, and if the two measures disagree on
 *    the comparison the file mixes tabs and spaces ambiguously (TabError).
 *  - Indentation is settled lazily, when the first token of a logical line
 *    is emitted, so a line holding only a comment or a continuation never
 *    opens or closes a block.
 *  - Literals are decoded here: integers (checked against int64), floats,
 *    strings with escapes (an f-string's text is kept as written and its
 *    token marked, ival 1). Bytes are recognised only to be
 *    rejected by name.
 * The lexer stops at the first error: everything after it would be guesswork.
 */
#include "front/ast.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bracket {
    char c;
    lm_loc loc;
} bracket;

typedef struct lexer {
    const char *file;
    const char *src;
    size_t len, pos;
    int line;          /* current physical line, 1-based */
    size_t line_start; /* offset of its first byte */
    lm_arena *a;
    lm_diag *d;
    bool failed;

    LM_VEC(fe_token) toks;
    LM_VEC(int) levels;     /* indentation stack, tabs to multiples of 8 */
    LM_VEC(int) alt_levels; /* the same lines measured with tabs as 1 */
    LM_VEC(bracket) brackets;

    bool line_has_tokens; /* the current logical line emitted a token */
    int ind_col, ind_alt; /* indentation measured at the start of the line */
    lm_loc ind_loc;       /* where that line's first non-blank character is */
} lexer;

static lm_loc loc_at(const lexer *l, size_t pos)
{
    return (lm_loc){l->file, l->line, (int)(pos - l->line_start) + 1};
}

static void lex_error(lexer *l, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void lex_error(lexer *l, lm_loc loc, const char *fmt, ...)
{
    if (l->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    lm_verror(l->d, loc, fmt, ap);
    va_end(ap);
    l->failed = true;
}

static int peekc(const lexer *l, size_t k)
{
    return l->pos + k < l->len ? (unsigned char)l->src[l->pos + k] : -1;
}

static bool is_newline(int c) { return c == '\n' || c == '\r'; }
static bool is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }

/* Consume one line ending (\n, \r\n or \r) at l->pos and start a new line. */
static void take_newline(lexer *l)
{
    if (l->src[l->pos] == '\r' && peekc(l, 1) == '\n')
        l->pos++;
    l->pos++;
    l->line++;
    l->line_start = l->pos;
}

/* ---- indentation --------------------------------------------------------- */

static void push_tok(lexer *l, fe_tok_kind kind, const char *text, lm_loc loc)
{
    /* tokens take far more memory than their text: bound them */
    if (l->toks.len >= FE_MAX_TOKENS) {
        lex_error(l, loc, "the file has more than %d tokens; that is the limit", (int)FE_MAX_TOKENS);
        return;
    }
    fe_token t = {.kind = kind, .text = text, .loc = loc};
    LM_PUSH(&l->toks, t);
}

static void tab_error(lexer *l)
{
    lex_error(l, l->ind_loc, "inconsistent use of tabs and spaces in indentation");
}

/* Compare the pending line's indentation with the stack (Python's rules). */
static void settle_indent(lexer *l)
{
    int col = l->ind_col, alt = l->ind_alt;
    int top = l->levels.items[l->levels.len - 1];
    int alt_top = l->alt_levels.items[l->alt_levels.len - 1];
    if (col == top) {
        if (alt != alt_top)
            tab_error(l);
    } else if (col > top) {
        if (alt <= alt_top) {
            tab_error(l);
            return;
        }
        LM_PUSH(&l->levels, col);
        LM_PUSH(&l->alt_levels, alt);
        push_tok(l, FE_T_INDENT, "<indent>", l->ind_loc);
    } else {
        while (l->levels.len > 1 && l->levels.items[l->levels.len - 1] > col) {
            l->levels.len--;
            l->alt_levels.len--;
            push_tok(l, FE_T_DEDENT, "<dedent>", l->ind_loc);
        }
        if (l->levels.items[l->levels.len - 1] != col)
            lex_error(l, l->ind_loc, "unindent does not match any outer indentation level");
        else if (l->alt_levels.items[l->alt_levels.len - 1] != alt)
            tab_error(l);
    }
}

/* Every token goes through here: the first token of a logical line settles
 * the line's indentation first. */
static fe_token *emit(lexer *l, fe_tok_kind kind, const char *text, lm_loc loc)
{
    if (!l->line_has_tokens) {
        settle_indent(l);
        l->line_has_tokens = true;
    }
    push_tok(l, kind, text, loc);
    return &l->toks.items[l->toks.len - 1];
}

/* Measure the indentation of the physical line starting at l->pos and leave
 * l->pos on its first non-blank character. */
static void measure_indent(lexer *l)
{
    int col = 0, alt = 0;
    for (;;) {
        int c = peekc(l, 0);
        if (c == ' ') {
            col++;
            alt++;
        } else if (c == '\t') {
            col = (col / 8 + 1) * 8;
            alt++;
        } else if (c == '\f') {
            col = alt = 0; /* Python resets the count on a form feed */
        } else {
            break;
        }
        l->pos++;
    }
    l->ind_col = col;
    l->ind_alt = alt;
    l->ind_loc = loc_at(l, l->pos);
}

/* ---- names and unexpected characters -------------------------------------- */

/* Decode one UTF-8 sequence at s (n bytes available); returns its length or
 * 0 when it is not valid UTF-8. */
static int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
    int len;
    uint32_t v;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    } else if ((s[0] & 0xe0) == 0xc0) {
        len = 2;
        v = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        len = 3;
        v = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        len = 4;
        v = s[0] & 0x07;
    } else {
        return 0;
    }
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    /* overlong forms, UTF-16 surrogates and code points past U+10FFFF are
       not UTF-8 either (Python refuses them too) */
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
        return 0;
    *cp = v;
    return len;
}

/* The length of the character at l->pos; 0 (reported) when it is not
 * UTF-8. Strings and comments keep their bytes, but the file must be text. */
static int char_len(lexer *l)
{
    const unsigned char *s = (const unsigned char *)l->src + l->pos;
    uint32_t cp;
    if (s[0] < 0x80)
        return 1;
    int n = utf8_decode(s, l->len - l->pos, &cp);
    if (n == 0)
        lex_error(l, loc_at(l, l->pos), "unexpected byte 0x%02X (the file is not valid UTF-8)", s[0]);
    return n;
}

static void unexpected_char(lexer *l)
{
    lm_loc loc = loc_at(l, l->pos);
    const unsigned char *s = (const unsigned char *)l->src + l->pos;
    uint32_t cp = 0;
    int n = utf8_decode(s, l->len - l->pos, &cp);
    if (n == 0)
        lex_error(l, loc, "unexpected byte 0x%02X (the file is not valid UTF-8)", s[0]);
    else if (n > 1)
        lex_error(l, loc, "unexpected character '%.*s' (U+%04X)", n, (const char *)s, (unsigned)cp);
    else if (cp < 0x20 || cp == 0x7f)
        lex_error(l, loc, "unexpected character U+%04X", (unsigned)cp);
    else
        lex_error(l, loc, "unexpected character '%c'", (int)cp);
}

static void lex_name(lexer *l)
{
    size_t start = l->pos;
    while (is_ident_char(peekc(l, 0)))
        l->pos++;
    size_t n = l->pos - start;
    if (n > FE_MAX_IDENT) {
        lex_error(l, loc_at(l, start), "identifier is %zu characters long; the limit is %d", n,
                  (int)FE_MAX_IDENT);
        return;
    }
    emit(l, FE_T_NAME, lm_arena_strndup(l->a, l->src + start, n), loc_at(l, start));
}

/* ---- numbers ------------------------------------------------------------- */

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Scan digits of `base` with single underscores between them into buf
 * (underscores dropped). `lead_us` allows an underscore before the first
 * digit (after a 0x prefix). Returns false on a misplaced underscore. */
static bool scan_digits(lexer *l, int base, bool lead_us, lm_buf *buf)
{
    bool any = false;
    for (;;) {
        int c = peekc(l, 0);
        if (c == '_') {
            if ((!any && !lead_us) || digit_value(peekc(l, 1)) >= base)
                return false;
            l->pos++;
            continue;
        }
        if (digit_value(c) >= base)
            return true;
        lm_buf_putc(buf, (char)c);
        l->pos++;
        any = true;
    }
}

static void lex_number(lexer *l)
{
    size_t start = l->pos;
    lm_loc loc = loc_at(l, start);
    lm_buf digits = {0};
    int c0 = peekc(l, 0), c1 = peekc(l, 1);
    int base = 10;
    const char *what = "decimal";
    if (c0 == '0' && (c1 == 'x' || c1 == 'X'))
        base = 16, what = "hexadecimal";
    else if (c0 == '0' && (c1 == 'o' || c1 == 'O'))
        base = 8, what = "octal";
    else if (c0 == '0' && (c1 == 'b' || c1 == 'B'))
        base = 2, what = "binary";

    if (base != 10) {
        l->pos += 2;
        if (!scan_digits(l, base, true, &digits) || digits.len == 0 || is_ident_char(peekc(l, 0))) {
            lex_error(l, loc, "invalid %s literal", what);
            goto done;
        }
    } else {
        bool is_float = false;
        if (!scan_digits(l, 10, false, &digits))
            goto bad_decimal;
        if (peekc(l, 0) == '.') {
            is_float = true;
            lm_buf_putc(&digits, '.');
            l->pos++;
            if (is_digit(peekc(l, 0)) && !scan_digits(l, 10, false, &digits))
                goto bad_decimal;
        }
        int e = peekc(l, 0);
        if (e == 'e' || e == 'E') {
            int s = peekc(l, 1);
            size_t k = (s == '+' || s == '-') ? 2 : 1;
            if (is_digit(peekc(l, k))) {
                is_float = true;
                lm_buf_putc(&digits, 'e');
                if (k == 2)
                    lm_buf_putc(&digits, (char)s);
                l->pos += k;
                if (!scan_digits(l, 10, false, &digits))
                    goto bad_decimal;
            }
        }
        int c = peekc(l, 0);
        if (c == 'j' || c == 'J') {
            lex_error(l, loc, "complex literals are not supported");
            goto done;
        }
        if (is_ident_char(c))
            goto bad_decimal;
        const char *s = lm_buf_str(&digits);
        if (is_float) {
            errno = 0;
            double v = strtod(s, NULL);
            if (errno == ERANGE && isinf(v)) {
                lex_error(l, loc, "float literal '%.*s' is too large for a 64-bit float",
                          (int)(l->pos - start), l->src + start);
                goto done;
            }
            fe_token *t = emit(l, FE_T_FLOAT, lm_arena_strndup(l->a, l->src + start, l->pos - start), loc);
            t->fval = v;
            goto done;
        }
        if (s[0] == '0' && strspn(s, "0") != strlen(s)) {
            lex_error(l, loc, "leading zeros in decimal integer literals are not permitted; "
                              "use an 0o prefix for octal integers");
            goto done;
        }
    }
    /* an integer in `digits`, already checked for its base */
    {
        int64_t v = 0;
        for (const char *p = lm_buf_str(&digits); *p; p++) {
            if (!lm_mul_ok(v, base, &v) || !lm_add_ok(v, digit_value(*p), &v)) {
                lex_error(l, loc, "integer literal '%.*s' is too large; the limit is %lld (2**63 - 1)",
                          (int)(l->pos - start), l->src + start, (long long)INT64_MAX);
                goto done;
            }
        }
        fe_token *t = emit(l, FE_T_INT, lm_arena_strndup(l->a, l->src + start, l->pos - start), loc);
        t->ival = v;
    }
    goto done;
bad_decimal:
    lex_error(l, loc, "invalid decimal literal");
done:
    lm_buf_free(&digits);
}

/* ---- strings ------------------------------------------------------------- */

/* Decoded string contents grow one byte at a time; lm_buf would format each. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_putc(sbuf *b, char c)
{
    if (b->len == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->s = lm_xrealloc(b->s, b->cap);
    }
    b->s[b->len++] = c;
}

static void put_utf8(sbuf *b, uint32_t cp)
{
    if (cp < 0x80) {
        sb_putc(b, (char)cp);
    } else if (cp < 0x800) {
        sb_putc(b, (char)(0xc0 | cp >> 6));
        sb_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        sb_putc(b, (char)(0xe0 | cp >> 12));
        sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_putc(b, (char)(0x80 | (cp & 0x3f)));
    } else {
        sb_putc(b, (char)(0xf0 | cp >> 18));
        sb_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
        sb_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
        sb_putc(b, (char)(0x80 | (cp & 0x3f)));
    }
}

/* Decode the escape whose backslash is at l->pos into b. */
static void lex_escape(lexer *l, sbuf *b)
{
    lm_loc loc = loc_at(l, l->pos);
    int c = peekc(l, 1);
    l->pos += 2;
    uint32_t cp;
    int ndig = 0;
    switch (c) {
    case '\n':
    case '\r':
        l->pos--; /* a backslash-newline inside a string joins the lines */
        take_newline(l);
        return;
    case '\\': sb_putc(b, '\\'); return;
    case '\'': sb_putc(b, '\''); return;
    case '"': sb_putc(b, '"'); return;
    case 'a': sb_putc(b, '\a'); return;
    case 'b': sb_putc(b, '\b'); return;
    case 'f': sb_putc(b, '\f'); return;
    case 'n': sb_putc(b, '\n'); return;
    case 'r': sb_putc(b, '\r'); return;
    case 't': sb_putc(b, '\t'); return;
    case 'v': sb_putc(b, '\v'); return;
    case 'x': ndig = 2; break;
    case 'u': ndig = 4; break;
    case 'U': ndig = 8; break;
    case 'N':
        lex_error(l, loc, "'\\N{...}' escapes are not supported");
        return;
    default:
        if (c >= '0' && c <= '7') {
            cp = (uint32_t)(c - '0');
            for (int i = 0; i < 2 && peekc(l, 0) >= '0' && peekc(l, 0) <= '7'; i++)
                cp = cp * 8 + (uint32_t)(l->src[l->pos++] - '0');
            goto codepoint;
        }
        /* Python keeps an unknown escape as written */
        sb_putc(b, '\\');
        l->pos--;
        return;
    }
    cp = 0;
    for (int i = 0; i < ndig; i++) {
        int v = digit_value(peekc(l, 0));
        if (v >= 16) {
            lex_error(l, loc, "invalid '\\%c' escape: expected %d hexadecimal digits", c, ndig);
            return;
        }
        cp = cp * 16 + (uint32_t)v;
        l->pos++;
    }
    if (cp > 0x10ffff) {
        lex_error(l, loc, "escape '\\%c%08X' is beyond the last Unicode character U+10FFFF", c, (unsigned)cp);
        return;
    }
codepoint:
    if (cp == 0) {
        lex_error(l, loc, "a NUL character in a string literal is not supported");
        return;
    }
    put_utf8(b, cp);
}

/* If an identifier at l->pos is a string prefix (r, b, f, u and their
 * combinations) directly followed by a quote, return its length. */
static size_t string_prefix(const lexer *l)
{
    static const char *const prefixes[] = {"r", "u", "b", "f", "br", "rb", "fr", "rf"};
    for (size_t i = 0; i < LM_COUNT(prefixes); i++) {
        size_t n = strlen(prefixes[i]);
        bool ok = true;
        for (size_t k = 0; k < n && ok; k++) {
            int c = peekc(l, k);
            ok = c >= 0 && (c | 0x20) == prefixes[i][k];
        }
        int q = peekc(l, n);
        if (ok && (q == '\'' || q == '"'))
            return n;
    }
    return 0;
}

static void lex_string(lexer *l, size_t nprefix)
{
    size_t start = l->pos;
    lm_loc loc = loc_at(l, start);
    bool raw = false, fstr = false;
    for (size_t k = 0; k < nprefix; k++) {
        int c = l->src[start + k] | 0x20;
        /* an f-string is read as the text it is written with (host code
           around a kernel prints with them); only evaluating one is refused */
        fstr |= c == 'f';
        if (c == 'b') {
            lex_error(l, loc, "bytes literals are not supported");
            return;
        }
        raw |= c == 'r';
    }
    l->pos += nprefix;
    char q = l->src[l->pos];
    bool triple = peekc(l, 1) == q && peekc(l, 2) == q;
    l->pos += triple ? 3 : 1;
    sbuf b = {0};
    for (;;) {
        int c = peekc(l, 0);
        if (c < 0 || (!triple && is_newline(c))) {
            /* like Python, blame the last line that has text on it */
            int last = l->line - (c < 0 && l->pos == l->line_start && l->line > loc.line);
            lex_error(l, loc, "unterminated %sstring literal (detected at line %d)", triple ? "triple-quoted " : "",
                      last);
            break;
        }
        if (c == q && (!triple || (peekc(l, 1) == q && peekc(l, 2) == q))) {
            l->pos += triple ? 3 : 1;
            emit(l, FE_T_STRING, lm_arena_strndup(l->a, b.s ? b.s : "", b.len), loc)->ival = fstr;
            break;
        }
        if (c == '\\' && !raw) {
            if (peekc(l, 1) < 0) {
                l->pos++;
                continue; /* reported as unterminated on the next round */
            }
            lex_escape(l, &b);
            if (l->failed)
                break;
            continue;
        }
        if (c == '\\') {
            /* a raw string keeps the backslash and the character after it,
             * which therefore never ends the string */
            sb_putc(&b, '\\');
            l->pos++;
            c = peekc(l, 0);
            if (c < 0)
                continue;
        }
        if (is_newline(c)) {
            sb_putc(&b, '\n');
            take_newline(l);
            continue;
        }
        int n = char_len(l);
        if (n == 0)
            break;
        for (int k = 0; k < n; k++)
            sb_putc(&b, l->src[l->pos + (size_t)k]);
        l->pos += (size_t)n;
    }
    free(b.s);
}

/* ---- operators and brackets ---------------------------------------------- */

/* Longest first, so that the first match is the longest. */
static const char *const operators[] = {
    "**=", "//=", ">>=", "<<=", "...",
    "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=",
    "+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">",
    "(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "=",
};

static void lex_op(lexer *l)
{
    lm_loc loc = loc_at(l, l->pos);
    for (size_t i = 0; i < LM_COUNT(operators); i++) {
        const char *op = operators[i];
        size_t n = strlen(op);
        if (l->len - l->pos < n || memcmp(l->src + l->pos, op, n) != 0)
            continue;
        char c = op[0];
        if (n == 1 && (c == '(' || c == '[' || c == '{')) {
            bracket br = {c, loc};
            LM_PUSH(&l->brackets, br);
        } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
            if (l->brackets.len == 0) {
                lex_error(l, loc, "unmatched '%c'", c);
                return;
            }
            bracket open = l->brackets.items[l->brackets.len - 1];
            char want = open.c == '(' ? ')' : open.c == '[' ? ']' : '}';
            if (c != want) {
                if (open.loc.line == loc.line)
                    lex_error(l, loc, "closing '%c' does not match opening '%c'", c, open.c);
                else
                    lex_error(l, loc, "closing '%c' does not match opening '%c' on line %d", c, open.c,
                              open.loc.line);
                return;
            }
            l->brackets.len--;
        }
        l->pos += n;
        emit(l, FE_T_OP, op, loc);
        return;
    }
    unexpected_char(l);
}

/* ---- driver -------------------------------------------------------------- */

static void lex_all(lexer *l)
{
    bool at_line_start = true;
    while (!l->failed) {
        if (at_line_start) {
            measure_indent(l);
            at_line_start = false;
        }
        int c = peekc(l, 0);
        if (c == ' ' || c == '\t' || c == '\f') {
            l->pos++;
            continue;
        }
        if (c < 0)
            break;
        if (c == '#') {
            while (l->pos < l->len && !is_newline(l->src[l->pos])) {
                int n = char_len(l);
                if (n == 0)
                    break;
                l->pos += (size_t)n;
            }
            continue;
        }
        if (is_newline(c)) {
            if (l->brackets.len == 0 && l->line_has_tokens) {
                emit(l, FE_T_NEWLINE, "<newline>", loc_at(l, l->pos));
                l->line_has_tokens = false;
            }
            take_newline(l);
            at_line_start = l->brackets.len == 0;
            continue;
        }
        if (c == '\\') {
            int n = peekc(l, 1);
            if (n < 0) {
                lex_error(l, loc_at(l, l->pos), "unexpected end of file after line continuation character");
            } else if (!is_newline(n)) {
                lex_error(l, loc_at(l, l->pos), "unexpected character after line continuation character");
            } else {
                l->pos++;
                take_newline(l);
            }
            continue;
        }
        if (is_ident_start(c)) {
            size_t np = string_prefix(l);
            if (np)
                lex_string(l, np);
            else
                lex_name(l);
            continue;
        }
        if (is_digit(c) || (c == '.' && is_digit(peekc(l, 1)))) {
            lex_number(l);
            continue;
        }
        if (c == '\'' || c == '"') {
            lex_string(l, 0);
            continue;
        }
        lex_op(l);
    }
    if (l->failed)
        return;
    if (l->brackets.len) {
        bracket open = l->brackets.items[l->brackets.len - 1];
        lex_error(l, open.loc, "'%c' was never closed", open.c);
        return;
    }
    /* the end of the file ends the last logical line and every block */
    lm_loc eof = loc_at(l, l->pos);
    if (l->line_has_tokens)
        push_tok(l, FE_T_NEWLINE, "<newline>", eof);
    if (eof.col > 1)
        eof = (lm_loc){l->file, l->line + 1, 1};
    while (l->levels.len > 1) {
        l->levels.len--;
        push_tok(l, FE_T_DEDENT, "<dedent>", eof);
    }
    push_tok(l, FE_T_EOF, "<eof>", eof);
}

bool fe_lex(const char *file, const char *src, size_t len, lm_arena *a, lm_diag *d, fe_tokens *out)
{
    lexer l = {.file = file, .src = src, .len = len, .line = 1, .a = a, .d = d};
    LM_PUSH(&l.levels, 0);
    LM_PUSH(&l.alt_levels, 0);
    /* a UTF-8 byte order mark is not part of the text */
    if (len >= 3 && memcmp(src, "\xef\xbb\xbf", 3) == 0)
        l.pos = l.line_start = 3;
    lex_all(&l);
    out->t = NULL;
    out->n = 0;
    if (!l.failed) {
        out->n = (int)l.toks.len;
        out->t = LM_NEWN(a, fe_token, l.toks.len);
        memcpy(out->t, l.toks.items, l.toks.len * sizeof *out->t);
    }
    LM_VEC_FREE(&l.toks);
    LM_VEC_FREE(&l.levels);
    LM_VEC_FREE(&l.alt_levels);
    LM_VEC_FREE(&l.brackets);
    return !l.failed;
}

/* ---- keywords and the words of messages ------------------------------------ */

static const char *const keywords[] = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
    "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield",
};

bool fe_is_keyword(const char *s)
{
    for (size_t i = 0; i < LM_COUNT(keywords); i++)
        if (!strcmp(s, keywords[i]))
            return true;
    return false;
}

const char *fe_token_describe(const fe_token *t, lm_arena *a)
{
    switch (t->kind) {
    case FE_T_EOF: return "end of file";
    case FE_T_NEWLINE: return "end of line";
    case FE_T_INDENT: return "an indented line";
    case FE_T_DEDENT: return "the end of the indented block";
    case FE_T_NAME: return lm_arena_printf(a, "%s '%s'", fe_is_keyword(t->text) ? "keyword" : "name", t->text);
    case FE_T_INT: return lm_arena_printf(a, "integer '%s'", t->text);
    case FE_T_FLOAT: return lm_arena_printf(a, "number '%s'", t->text);
    case FE_T_STRING: return "a string literal";
    case FE_T_OP: return lm_arena_printf(a, "'%s'", t->text);
    }
    return "?";
}
