/* json.c - JSON through jansson (json.h): the rules of numbers, strings and
 * layout every document follows, streams, and reading with places. */
#include "util/json.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* jansson's dump flags of every document and stream: members in the order
 * they were added, reals with 15 significant digits */
#define DOC_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15) | JSON_ENCODE_ANY)
#define LINE_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* ---- building --------------------------------------------------------- */

static json_t *made(json_t *v)
{
    if (!v)
        LM_BUG("out of memory building JSON");
    return v;
}

json_t *lm_json_obj(void) { return made(json_object()); }
json_t *lm_json_arr(void) { return made(json_array()); }
json_t *lm_json_int(int64_t v) { return made(json_integer((json_int_t)v)); }
json_t *lm_json_bool(bool b) { return made(json_boolean(b)); }

/* The length of the valid UTF-8 sequence at p (n bytes left), or 0: no
 * overlong forms, no surrogates, nothing above U+10FFFF. */
static int utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0], cp, min;
    int len;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        len = 3, cp = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3Fu);
    }
    return cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : len;
}

static bool utf8_valid(const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int k = utf8_len((const unsigned char *)s + i, n - i);
        if (!k)
            return false;
        i += (size_t)k;
    }
    return true;
}

/* s with each byte outside valid UTF-8 replaced by U+FFFD, in b. */
static const char *utf8_mended(const char *s, lm_buf *b)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int k = utf8_len((const unsigned char *)s + i, n - i);
        if (k) {
            lm_buf_printf(b, "%.*s", k, s + i);
            i += (size_t)k;
        } else {
            lm_buf_puts(b, "\xef\xbf\xbd");
            i++;
        }
    }
    return lm_buf_str(b);
}

json_t *lm_json_string(const char *s)
{
    if (!s)
        return made(json_null());
    if (utf8_valid(s))
        return made(json_string_nocheck(s));
    lm_buf b = {0};
    json_t *v = made(json_string_nocheck(utf8_mended(s, &b)));
    lm_buf_free(&b);
    return v;
}

/* A figure as printf rounded it (text): whole numbers that a double holds
 * exactly become integers, the rest reals. */
static json_t *figure(const char *text)
{
    double d = strtod(text, NULL);
    if (d == floor(d) && fabs(d) < 9007199254740992.0) /* 2^53 */
        return made(json_integer((json_int_t)d));
    return made(json_real(d));
}

/* x * 10^decimals rounded to an integer as printf rounds (to nearest, ties
 * to even, from the exact binary value), when that can be had without
 * printing: the product is exact in a long double of 64 bits or more for
 * up to 3 decimals (10^3 has 7 significant bits, a double 53), and the
 * integer below 2^53. False otherwise. A trace holds millions of these. */
static bool fixed_quick(double x, int decimals, int64_t *n)
{
#if LDBL_MANT_DIG >= 64
    static const long double scale[] = {1, 10, 100, 1000};
    if (decimals > 3)
        return false;
    long double v = nearbyintl((long double)x * scale[decimals]);
    if (fabsl(v) >= 9007199254740992.0L)
        return false;
    *n = (int64_t)v;
    return true;
#else
    (void)x, (void)decimals, (void)n;
    return false;
#endif
}

json_t *lm_json_fixed(double x, int decimals)
{
    if (!isfinite(x))
        return made(json_null());
    if (decimals < 0 || decimals > 17)
        LM_BUG("%d decimals for a JSON figure", decimals);
    if (x == floor(x) && fabs(x) < 9007199254740992.0) /* what printf would round it to */
        return made(json_integer((json_int_t)x));
    int64_t n;
    if (fixed_quick(x, decimals, &n))
        return lm_json_scaled(n, decimals);
    char text[400]; /* %.17f of the largest double */
    snprintf(text, sizeof text, "%.*f", decimals, x);
    return figure(text);
}

json_t *lm_json_sig(double x, int digits)
{
    if (!isfinite(x))
        return made(json_null());
    if (digits < 1 || digits > 15)
        LM_BUG("%d significant digits for a JSON figure", digits);
    char text[64];
    snprintf(text, sizeof text, "%.*g", digits, x);
    return figure(text);
}

json_t *lm_json_scaled(int64_t n, int decimals)
{
    if (decimals < 0 || decimals > 15)
        LM_BUG("%d decimals for a scaled JSON number", decimals);
    int64_t p = 1;
    for (int i = 0; i < decimals; i++)
        p *= 10;
    if (n % p == 0)
        return made(json_integer((json_int_t)(n / p)));
    return made(json_real((double)n / (double)p)); /* the double nearest the decimal */
}

void lm_json_set(json_t *obj, const char *key, json_t *v)
{
    int rc;
    if (utf8_valid(key)) {
        rc = json_object_set_new_nocheck(obj, key, v);
    } else {
        lm_buf b = {0};
        rc = json_object_set_new_nocheck(obj, utf8_mended(key, &b), v);
        lm_buf_free(&b);
    }
    if (rc)
        LM_BUG("cannot set JSON member '%s'", key);
}

void lm_json_push(json_t *arr, json_t *v)
{
    if (json_array_append_new(arr, v))
        LM_BUG("cannot append to a JSON array");
}

json_t *lm_json_doc(const char *format, int version)
{
    json_t *d = lm_json_obj();
    lm_json_set(d, "format", lm_json_string(format));
    lm_json_set(d, "version", lm_json_int(version));
    return d;
}

/* ---- writing ---------------------------------------------------------- */

static int to_buf(const char *text, size_t size, void *data)
{
    lm_buf_printf(data, "%.*s", (int)size, text);
    return 0;
}

void lm_json_write(lm_buf *b, const json_t *v)
{
    if (json_dump_callback(v, to_buf, b, DOC_FLAGS))
        LM_BUG("cannot write a JSON document");
    lm_buf_putc(b, '\n');
}

bool lm_json_stream_begin(lm_json_stream *s, FILE *f, const json_t *head, const char *key)
{
    s->f = f;
    s->any = false;
    json_t *k = lm_json_string(key);
    fputc('{', f);
    /* the head's members without its braces, then the array's name */
    if (json_object_size(head) > 0) {
        json_dumpf(head, f, LINE_FLAGS | JSON_EMBED);
        fputc(',', f);
    }
    json_dumpf(k, f, LINE_FLAGS | JSON_ENCODE_ANY);
    fputs(":[", f);
    json_decref(k);
    return !ferror(f);
}

bool lm_json_stream_item(lm_json_stream *s, const json_t *item)
{
    /* into memory first, then one write: jansson writes a stream token by token */
    char small[1024];
    char *text = small;
    size_t n = json_dumpb(item, small, sizeof small, LINE_FLAGS);
    if (n > sizeof small) {
        text = lm_xmalloc(n);
        json_dumpb(item, text, n, LINE_FLAGS);
    }
    fputs(s->any ? ",\n" : "\n", s->f);
    s->any = true;
    bool ok = n > 0 && fwrite(text, 1, n, s->f) == n;
    if (text != small)
        free(text);
    return ok;
}

bool lm_json_stream_end(lm_json_stream *s)
{
    fputs("\n]}\n", s->f);
    return !ferror(s->f);
}

/* ---- reading, with places --------------------------------------------- */

const char *lm_json_kind_name(lm_jkind k)
{
    static const char *const n[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return n[k];
}

/* The text walked beside jansson's values: jansson has accepted it, so it
 * only has to be stepped through, keeping count of lines. */
typedef struct walk {
    const char *file, *p, *end, *line_start;
    int line;
    lm_arena *ar;
    lm_diag *d;
} walk;

static lm_loc here(const walk *w) { return (lm_loc){w->file, w->line, (int)(w->p - w->line_start) + 1}; }

/* One byte on, counting the line it ends: LF, CRLF (at its LF) and a lone
 * CR each end one. */
static void step(walk *w)
{
    char c = *w->p++;
    if (c == '\n' || (c == '\r' && (w->p == w->end || *w->p != '\n'))) {
        w->line++;
        w->line_start = w->p;
    }
}

static void skip_ws(walk *w)
{
    while (w->p < w->end && strchr(" \t\r\n", *w->p) && *w->p)
        step(w);
}

/* Past a string (no line ends inside one), a number or a word. */
static void skip_string(walk *w)
{
    for (w->p++; w->p < w->end && *w->p != '"'; w->p++)
        if (*w->p == '\\')
            w->p++;
    w->p++;
}

static void skip_scalar(walk *w)
{
    while (w->p < w->end && !strchr(",]} \t\r\n", *w->p))
        w->p++;
}

/* Past punctuation c (with the space before it), which must be there. */
static void expect_char(walk *w, char c)
{
    skip_ws(w);
    if (w->p >= w->end || *w->p != c)
        LM_BUG("the JSON text and jansson's reading of it disagree at %d:%d", w->line,
               (int)(w->p - w->line_start) + 1);
    w->p++;
}

static lm_jval *located(walk *w, const json_t *v, int depth);

static bool located_items(walk *w, const json_t *v, lm_jval *x, int depth)
{
    x->n = (int)(x->kind == LM_J_OBJ ? json_object_size(v) : json_array_size(v));
    x->items = LM_NEWN(w->ar, lm_jval *, x->n ? x->n : 1);
    expect_char(w, x->kind == LM_J_OBJ ? '{' : '[');
    if (x->kind == LM_J_OBJ) {
        x->keys = LM_NEWN(w->ar, const char *, x->n ? x->n : 1);
        x->key_locs = LM_NEWN(w->ar, lm_loc, x->n ? x->n : 1);
        const char *key;
        json_t *m;
        int i = 0;
        /* jansson keeps members in the file's order */
        json_object_foreach((json_t *)v, key, m) {
            if (i)
                expect_char(w, ',');
            skip_ws(w);
            x->key_locs[i] = here(w);
            x->keys[i] = lm_arena_strdup(w->ar, key);
            skip_string(w);
            expect_char(w, ':');
            if (!(x->items[i] = located(w, m, depth + 1)))
                return false;
            i++;
        }
    } else {
        for (int i = 0; i < x->n; i++) {
            if (i)
                expect_char(w, ',');
            if (!(x->items[i] = located(w, json_array_get(v, (size_t)i), depth + 1)))
                return false;
        }
    }
    expect_char(w, x->kind == LM_J_OBJ ? '}' : ']');
    return true;
}

static lm_jval *located(walk *w, const json_t *v, int depth)
{
    skip_ws(w);
    lm_jval *x = LM_NEW(w->ar, lm_jval);
    x->loc = here(w);
    if (depth > LM_JSON_MAX_DEPTH) {
        lm_error(w->d, x->loc, "values nested too deeply (more than %d levels)", LM_JSON_MAX_DEPTH);
        return NULL;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT:
    case JSON_ARRAY:
        x->kind = json_is_object(v) ? LM_J_OBJ : LM_J_ARR;
        return located_items(w, v, x, depth) ? x : NULL;
    case JSON_STRING:
        x->kind = LM_J_STR;
        x->s = lm_arena_strdup(w->ar, json_string_value(v));
        skip_string(w);
        return x;
    case JSON_INTEGER:
        x->kind = LM_J_NUM;
        x->is_int = true;
        x->i = json_integer_value(v);
        x->d = (double)x->i;
        break;
    case JSON_REAL:
        x->kind = LM_J_NUM;
        x->d = json_real_value(v);
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        x->kind = LM_J_BOOL;
        x->b = json_is_true(v);
        break;
    case JSON_NULL:
        x->kind = LM_J_NULL;
        break;
    }
    skip_scalar(w);
    return x;
}

/* Where byte offset off of the text is, counted from its start. */
static lm_loc place_of(walk *w, size_t off)
{
    const char *stop = w->p + off;
    while (w->p < stop)
        step(w);
    return here(w);
}

lm_jval *lm_json_read(const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d)
{
    walk w = {.file = file, .p = text, .end = text + len, .line_start = text, .line = 1, .ar = ar, .d = d};
    /* a UTF-8 byte order mark is not part of the text, as for every reader */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        w.p = w.line_start = text + 3;
    size_t n = (size_t)(w.end - w.p);
    /* jansson steps over a NUL byte after a number or a word ("4\0,"), where
       the text is no JSON: refused first */
    const char *nul = memchr(w.p, 0, n);
    if (nul) {
        lm_error(d, place_of(&w, (size_t)(nul - w.p)), "invalid JSON: a NUL byte");
        return NULL;
    }
    json_error_t e;
    json_t *root = json_loadb(w.p, n, JSON_REJECT_DUPLICATES, &e);
    if (!root) {
        /* jansson stops after the byte it could not take: point at that byte
           (or just past the end when the text ended too early) */
        size_t off = e.position < 0 ? 0 : (size_t)e.position;
        if (off > n)
            off = n;
        if (off > 0 && off < n)
            off--;
        lm_error(d, place_of(&w, off), "invalid JSON: %s", e.text);
        return NULL;
    }
    lm_jval *x = located(&w, root, 1);
    json_decref(root);
    return x;
}
