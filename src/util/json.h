/* json.h - every JSON document loomc writes or reads goes through here, on
 * Debian's jansson. This is the one home of the rules the documents share
 * (docs/hacking.md, "JSON"):
 *  - numbers: an integer is written as an integer; a figure (a double) is
 *    first rounded as printf would print it with the writer's own format
 *    (%.Nf or %.Ng), and then written as an integer when that rounding is
 *    a whole number (below 2^53), else as a real with at most 15
 *    significant digits (jansson's JSON_REAL_PRECISION(15)), which gives
 *    back the digits the rounding made; a figure that is not finite is
 *    null;
 *  - strings: UTF-8; a byte that is not part of valid UTF-8 becomes U+FFFD;
 *    quotes, backslashes and control characters are escaped, nothing else;
 *  - members in the order the writer adds them (no sorting);
 *  - a document starts with "format" (its name) and "version" (its schema
 *    version) and is indented by 2, one member or item a line; a stream
 *    (the trace) writes one compact item a line.
 * Building functions return a new reference and never NULL (running out of
 * memory is LM_BUG); lm_json_set and lm_json_push take the reference.
 *
 * Reading keeps the line and column of every value, which jansson does not
 * report, so that a reader's messages point into the file: jansson parses
 * (syntax, escapes, numbers, duplicate members), then one walk over the text
 * beside the parsed values gives each its place.
 */
#ifndef LOOMC_JSON_H
#define LOOMC_JSON_H

#include <jansson.h>

#include "util/base.h"

/* ---- building --------------------------------------------------------- */

json_t *lm_json_obj(void);
json_t *lm_json_arr(void);
json_t *lm_json_int(int64_t v);
json_t *lm_json_bool(bool b);
/* s as a JSON string; NULL is null. */
json_t *lm_json_string(const char *s);
/* x rounded as printf's %.{decimals}f. */
json_t *lm_json_fixed(double x, int decimals);
/* x rounded as printf's %.{digits}g (1 to 15 digits). */
json_t *lm_json_sig(double x, int digits);
/* n / 10^decimals exactly (integer nanoseconds as microseconds: 3). */
json_t *lm_json_scaled(int64_t n, int decimals);
/* obj[key] = v, after the members already there (key: UTF-8 as strings are). */
void lm_json_set(json_t *obj, const char *key, json_t *v);
void lm_json_push(json_t *arr, json_t *v);
/* A new document: an object with "format" and "version" first. */
json_t *lm_json_doc(const char *format, int version);

/* ---- writing ---------------------------------------------------------- */

/* v as a document: indented by 2, a newline at the end. */
void lm_json_write(lm_buf *b, const json_t *v);

/* A document too long to hold in memory (a trace): the members of head,
 * then one array member, key, whose items are written one compact item a
 * line as they come. False on a write error of the stream. */
typedef struct lm_json_stream {
    FILE *f;
    bool any; /* an item was written */
} lm_json_stream;
bool lm_json_stream_begin(lm_json_stream *s, FILE *f, const json_t *head, const char *key);
bool lm_json_stream_item(lm_json_stream *s, const json_t *item);
bool lm_json_stream_end(lm_json_stream *s);

/* ---- reading, with places --------------------------------------------- */

typedef enum lm_jkind { LM_J_NULL, LM_J_BOOL, LM_J_NUM, LM_J_STR, LM_J_ARR, LM_J_OBJ } lm_jkind;

/* A value read from a file, with where it starts there; in an arena. */
typedef struct lm_jval lm_jval;
struct lm_jval {
    lm_jkind kind;
    lm_loc loc;
    bool b;             /* LM_J_BOOL */
    bool is_int;        /* LM_J_NUM: written without a fraction or exponent */
    int64_t i;          /* LM_J_NUM, is_int */
    double d;           /* LM_J_NUM */
    const char *s;      /* LM_J_STR (UTF-8, no NUL inside) */
    lm_jval **items;    /* LM_J_ARR items, LM_J_OBJ member values */
    const char **keys;  /* LM_J_OBJ member names, in the file's order */
    lm_loc *key_locs;   /* where each name starts */
    int n;
};

/* The document in text[0..len) of file (a UTF-8 byte order mark is
 * skipped), its values and places in ar; NULL after reporting
 * `file:line:col: error: invalid JSON: ...` through d. Lines are counted as
 * every reader of loomc counts them (LF, CRLF and a lone CR each end one);
 * columns are bytes. Nesting deeper than LM_JSON_MAX_DEPTH is refused. */
#define LM_JSON_MAX_DEPTH 64
lm_jval *lm_json_read(const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d);
/* "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *lm_json_kind_name(lm_jkind k);

#endif
