/* csv_table.c - the published tables of bench/data (CSV with '#' comment
 * lines and a header row) read with Debian's libcsv, for loomc calibrate.
 *
 * libcsv does the quoting (a field in double quotes may hold commas, line
 * breaks and "" for a quote) in strict mode; this file adds what the tables
 * need on top: comment and blank lines between records are skipped, the
 * line each record starts on is kept for messages, and every record must
 * have the header's number of fields. There is no limit on columns or rows
 * beyond the size of a file loomc reads (LM_MAX_FILE_BYTES). Errors are
 * `file:line:col: error: ...` with the line quoted; a column a table needs
 * and lacks is `file: error: ...` naming it (bench_table_need). Declared in
 * bench.h.
 */
#include "bench/bench.h"

#include <csv.h>
#include <stdarg.h>
#include <string.h>

typedef LM_VEC(const char *) str_vec;

/* The reader's state between libcsv's callbacks. */
typedef struct reader {
    bench_table *t;
    str_vec fields;           /* the record being read */
    LM_VEC(const char **) rows;
    LM_VEC(int) lines;
    int line;                 /* the physical line being fed */
    int rec_line;             /* the line the record being read started on */
    bool ended;               /* a record ended during the last feed */
    bool failed;
    const char *text;         /* for quoting lines in messages */
    size_t len;
    lm_diag *d;
} reader;

/* An error at a line of the file, with the line quoted (the text is known
 * to the diagnostics only for this message: it is freed after reading). */
static void table_error(reader *r, int line, int col, const char *fmt, ...) LM_PRINTF(4, 5);
static void table_error(reader *r, int line, int col, const char *fmt, ...)
{
    int n0 = r->d->nsrcs;
    lm_diag_add_source(r->d, r->t->path, r->text, r->len);
    va_list ap;
    va_start(ap, fmt);
    lm_verror(r->d, (lm_loc){r->t->path, line, col}, fmt, ap);
    va_end(ap);
    r->d->nsrcs = n0;
    r->failed = true;
}

static void on_field(void *s, size_t n, void *data)
{
    reader *r = data;
    LM_PUSH(&r->fields, s ? lm_arena_strndup(&r->t->arena, s, n) : "");
}

/* The header's names, each once. */
static void take_header(reader *r)
{
    bench_table *t = r->t;
    t->ncols = (int)r->fields.len;
    t->head = LM_NEWN(&t->arena, const char *, t->ncols);
    for (int i = 0; i < t->ncols; i++) {
        t->head[i] = r->fields.items[i];
        for (int j = 0; j < i && !r->failed; j++)
            if (!strcmp(t->head[j], t->head[i]))
                table_error(r, r->rec_line, 1, "the header names column '%s' twice (columns %d and %d)",
                            t->head[i], j + 1, i + 1);
    }
    t->header_line = r->rec_line;
}

static void on_record(int term, void *data)
{
    (void)term;
    reader *r = data;
    r->ended = true;
    if (r->failed)
        return;
    bench_table *t = r->t;
    if (!t->head) {
        take_header(r);
    } else if ((int)r->fields.len != t->ncols) {
        table_error(r, r->rec_line, 1, "a row of %d fields; the header (line %d) has %d", (int)r->fields.len,
                    t->header_line, t->ncols);
    } else {
        const char **row = LM_NEWN(&t->arena, const char *, t->ncols);
        memcpy(row, r->fields.items, sizeof *row * (size_t)t->ncols);
        LM_PUSH(&r->rows, row);
        LM_PUSH(&r->lines, r->rec_line);
    }
    r->fields.len = 0;
}

/* A line that holds nothing but blanks, or a '#' comment: skipped where a
 * record would start. */
static bool skipped_line(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p == e || *p == '\n' || *p == '\r' || *p == '#';
}

/* The end of the physical line at p: past its LF, CRLF or lone CR. */
static const char *line_end(const char *p, const char *e)
{
    while (p < e && *p != '\n' && *p != '\r')
        p++;
    if (p < e && *p == '\r' && p + 1 < e && p[1] == '\n')
        p++;
    return p < e ? p + 1 : p;
}

/* Feed the text to libcsv a physical line at a time. */
static void feed(reader *r, struct csv_parser *p)
{
    const char *s = r->text, *e = r->text + r->len;
    if (r->len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
        s += 3; /* a byte order mark is not part of the text */
    bool in_record = false;
    for (r->line = 1; s < e && !r->failed; r->line++) {
        const char *next = line_end(s, e);
        if (in_record || !skipped_line(s, next)) {
            if (!in_record)
                r->rec_line = r->line;
            r->ended = false;
            size_t n = csv_parse(p, s, (size_t)(next - s), on_field, on_record, r);
            if (n != (size_t)(next - s) && !r->failed) {
                if (csv_error(p) != CSV_EPARSE)
                    LM_BUG("libcsv: %s", csv_strerror(csv_error(p)));
                /* strict mode stops at the offending character */
                table_error(r, r->line, (int)n + 1,
                            "malformed row: a quote inside an unquoted field, or text after a closing quote");
                return;
            }
            /* a record still open at the line's end goes on (a quoted line break) */
            in_record = !r->ended || r->fields.len > 0;
        }
        s = next;
    }
    if (r->failed)
        return;
    if (csv_fini(p, on_field, on_record, r) != 0 && !r->failed)
        table_error(r, r->rec_line, 1, "malformed row: a quoted field is not closed before the end of the file");
}

bench_table *bench_table_read(const char *path, lm_diag *d)
{
    char why[512];
    size_t len;
    char *text = lm_read_file(path, &len, why, sizeof why);
    if (!text) {
        lm_error(d, (lm_loc){"loomc calibrate", 0, 0}, "%s", why);
        return NULL;
    }
    bench_table *t = lm_xcalloc(1, sizeof *t);
    lm_arena_init(&t->arena);
    t->path = lm_arena_strdup(&t->arena, path);
    reader r = {.t = t, .text = text, .len = len, .d = d};
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        LM_BUG("libcsv: csv_init failed");
    feed(&r, &p);
    csv_free(&p);
    if (!r.failed && !t->head)
        table_error(&r, 0, 0, "the table has no header row (only comments)");
    free(text);
    t->nrows = (int)r.rows.len;
    t->rows = LM_NEWN(&t->arena, const char **, t->nrows ? t->nrows : 1);
    t->line = LM_NEWN(&t->arena, int, t->nrows ? t->nrows : 1);
    if (t->nrows) {
        memcpy(t->rows, r.rows.items, sizeof *t->rows * (size_t)t->nrows);
        memcpy(t->line, r.lines.items, sizeof *t->line * (size_t)t->nrows);
    }
    LM_VEC_FREE(&r.fields);
    LM_VEC_FREE(&r.rows);
    LM_VEC_FREE(&r.lines);
    if (r.failed) {
        bench_table_free(t);
        return NULL;
    }
    return t;
}

void bench_table_free(bench_table *t)
{
    if (t) {
        lm_arena_free(&t->arena);
        free(t);
    }
}

int bench_table_col(const bench_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (!strcmp(t->head[i], name))
            return i;
    return -1;
}

bool bench_table_need(const bench_table *t, const char *const *names, lm_diag *d)
{
    bool ok = true;
    for (int i = 0; names[i]; i++)
        if (bench_table_col(t, names[i]) < 0) {
            lm_error(d, (lm_loc){t->path, 0, 0}, "the table has no column '%s' (its header is line %d)", names[i],
                     t->header_line);
            ok = false;
        }
    return ok;
}

const char *bench_table_cell(const bench_table *t, int row, const char *name)
{
    int c = bench_table_col(t, name);
    return c < 0 ? "" : t->rows[row][c];
}
