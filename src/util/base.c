/* base.c - arenas, vectors, buffers, files (reading them, finding data
 * beside the program) and diagnostics shared by every stage (declared in
 * base.h). */
#include "util/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- internal errors ------------------------------------------------- */

/* the calling thread's trap: each thread runs its own entry points */
static _Thread_local lm_bug_trap *bug_trap;

lm_bug_trap *lm_bug_trap_swap(lm_bug_trap *t)
{
    lm_bug_trap *old = bug_trap;
    bug_trap = t;
    return old;
}

void lm_bug_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    lm_bug_trap *t = bug_trap;
    if (t) {
        /* cleared first: a bug while unwinding to it exits as usual */
        bug_trap = NULL;
        t->file = file;
        t->line = line;
        va_start(ap, fmt);
        vsnprintf(t->msg, sizeof t->msg, fmt, ap);
        va_end(ap);
        longjmp(t->env, 1);
    }
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "loomc: internal error (a bug in loomc) at %s:%d: %s\n", file, line, msg);
    fprintf(stderr, "please report it with the command line and input files\n");
    /* cleared first: a bug while it listens exits as above */
    lm_diag_listener *l = lm_diag_listen_swap(NULL);
    if (l && l->bug)
        l->bug(l, file, line, msg);
    exit(2);
}

void *lm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        LM_BUG("out of memory allocating %zu bytes", n);
    return p;
}

void *lm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        LM_BUG("out of memory allocating %zu x %zu bytes", n, size);
    return p;
}

void *lm_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        LM_BUG("out of memory reallocating to %zu bytes", n);
    return q;
}

char *lm_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lm_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

/* ---- arena ----------------------------------------------------------- */

struct lm_arena_chunk {
    lm_arena_chunk *next;
    size_t used, size;
    max_align_t data[];
};

enum { ARENA_CHUNK = 64 * 1024 };

void lm_arena_init(lm_arena *a)
{
    a->head = NULL;
    a->bytes = 0;
}

void *lm_arena_alloc(lm_arena *a, size_t n)
{
    const size_t align = _Alignof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    lm_arena_chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;
        c = lm_xmalloc(sizeof *c + size);
        c->used = 0;
        c->size = size;
        c->next = a->head;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    a->bytes += n;
    memset(p, 0, n);
    return p;
}

char *lm_arena_strndup(lm_arena *a, const char *s, size_t n)
{
    char *p = lm_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *lm_arena_strdup(lm_arena *a, const char *s) { return lm_arena_strndup(a, s, strlen(s)); }

char *lm_arena_printf(lm_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        LM_BUG("bad format string %s", fmt);
    char *p = lm_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void lm_arena_free(lm_arena *a)
{
    lm_arena_chunk *c = a->head;
    while (c) {
        lm_arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    a->head = NULL;
    a->bytes = 0;
}

/* ---- string buffer --------------------------------------------------- */

void lm_buf_vprintf(lm_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        LM_BUG("bad format string %s", fmt);
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        b->s = lm_xrealloc(b->s, cap);
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

void lm_buf_printf(lm_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void lm_buf_puts(lm_buf *b, const char *s) { lm_buf_printf(b, "%s", s); }
void lm_buf_putc(lm_buf *b, char c) { lm_buf_printf(b, "%c", c); }

void lm_buf_free(lm_buf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

const char *lm_buf_str(const lm_buf *b) { return b->s ? b->s : ""; }

/* ---- files ----------------------------------------------------------- */

char *lm_read_file(const char *path, size_t *len, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *s = lm_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            cap *= 2;
            s = lm_xrealloc(s, cap);
        }
        size_t got = fread(s + n, 1, cap - n - 1, f);
        n += got;
        if (n > LM_MAX_FILE_BYTES) {
            snprintf(why, whylen, "'%s' is larger than the limit of %u bytes", path,
                     (unsigned)LM_MAX_FILE_BYTES);
            free(s);
            fclose(f);
            return NULL;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(why, whylen, "cannot read '%s': %s", path, strerror(errno));
        free(s);
        fclose(f);
        return NULL;
    }
    fclose(f);
    s[n] = 0;
    if (memchr(s, 0, n)) {
        snprintf(why, whylen, "'%s' contains a NUL byte; expected a text file", path);
        free(s);
        return NULL;
    }
    if (len)
        *len = n;
    return s;
}

bool lm_parse_i64(const char *s, int64_t *out)
{
    if (!*s || isspace((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno)
        return false;
    *out = v;
    return true;
}

bool lm_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool lm_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool lm_self_exe(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    buf[n] = 0;
    return true;
}

char *lm_find_above(const char *file, const char *const *rels, int nrels, bool want_dir)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return NULL;
    *slash = 0; /* the file's folder */
    for (int level = 0; level <= 4; level++) {
        for (int i = 0; i < nrels; i++) {
            char cand[4600];
            snprintf(cand, sizeof cand, "%s/%s", dir, rels[i]);
            if (want_dir ? lm_is_dir(cand) : lm_is_file(cand))
                return lm_xstrdup(cand);
        }
        slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return NULL;
        *slash = 0;
    }
    return NULL;
}

/* ---- diagnostics ----------------------------------------------------- */

/* the calling thread's listener (lm_diag_listen_swap) */
static _Thread_local lm_diag_listener *listener;

lm_diag_listener *lm_diag_listen_swap(lm_diag_listener *l)
{
    lm_diag_listener *old = listener;
    listener = l;
    return old;
}

/* Tell the listener, if any, of a message the user is shown. */
static void tell(const lm_diag *d, const char *kind, lm_loc loc, const char *msg)
{
    if (listener && listener->heard && !d->unheard && !d->sink)
        listener->heard(listener, kind, loc, msg);
}

void lm_diag_init(lm_diag *d, FILE *out)
{
    memset(d, 0, sizeof *d);
    d->out = out ? out : stderr;
    d->max_errors = 20;
}

void lm_diag_add_source(lm_diag *d, const char *name, const char *text, size_t len)
{
    if (d->nsrcs == (int)LM_COUNT(d->srcs))
        return;
    d->srcs[d->nsrcs++] = (lm_source){name, text, len};
}

/* Print the quoted source line and a caret under column `col`. Lines are
 * counted as every reader counts them: LF, CRLF and a lone CR each end one,
 * and a UTF-8 byte order mark at the start is not part of the first. */
static void quote_line(lm_diag *d, lm_loc loc)
{
    if (d->no_caret || !loc.file || loc.line <= 0)
        return;
    for (int i = 0; i < d->nsrcs; i++) {
        const lm_source *s = &d->srcs[i];
        if (strcmp(s->name, loc.file) != 0)
            continue;
        const char *p = s->text, *end = s->text + s->len;
        if (s->len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
            p += 3;
        for (int l = 1; l < loc.line && p < end; l++) {
            while (p < end && *p != '\n' && *p != '\r')
                p++;
            if (p < end && *p == '\r' && p + 1 < end && p[1] == '\n')
                p++;
            if (p < end)
                p++;
        }
        if (p >= end)
            return;
        const char *e = p;
        while (e < end && *e != '\n' && *e != '\r')
            e++;
        fprintf(d->out, "  %.*s\n  ", (int)(e - p), p);
        for (int c = 1; c < loc.col && p + c - 1 < e; c++)
            fputc(p[c - 1] == '\t' ? '\t' : ' ', d->out);
        fputs("^\n", d->out);
        return;
    }
}

/* The message alone, to the sink. */
static void to_sink(lm_diag *d, lm_loc loc, const char *kind, const char *fmt, va_list ap)
{
    lm_buf b = {0};
    lm_buf_vprintf(&b, fmt, ap);
    d->sink(d->sink_ctx, kind, loc, lm_buf_str(&b));
    lm_buf_free(&b);
}

static void report(lm_diag *d, lm_loc loc, const char *kind, const char *fmt, va_list ap)
{
    if (d->sink) {
        to_sink(d, loc, kind, fmt, ap);
        return;
    }
    lm_buf msg = {0};
    lm_buf_vprintf(&msg, fmt, ap);
    if (loc.file && loc.line > 0)
        fprintf(d->out, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col > 0 ? loc.col : 1, kind);
    else if (loc.file)
        fprintf(d->out, "%s: %s: ", loc.file, kind);
    else
        fprintf(d->out, "loomc: %s: ", kind);
    fprintf(d->out, "%s\n", lm_buf_str(&msg));
    quote_line(d, loc);
    tell(d, kind, loc, lm_buf_str(&msg));
    lm_buf_free(&msg);
}

void lm_verror(lm_diag *d, lm_loc loc, const char *fmt, va_list ap)
{
    d->nerrors++;
    if (d->nerrors > d->max_errors)
        return;
    report(d, loc, "error", fmt, ap);
    if (d->nerrors == d->max_errors && d->sink)
        d->sink(d->sink_ctx, "note", (lm_loc){0}, "too many errors; stopping");
    else if (d->nerrors == d->max_errors) {
        fprintf(d->out, "loomc: too many errors; stopping\n");
        tell(d, "note", (lm_loc){0}, "too many errors; stopping");
    }
}

void lm_error(lm_diag *d, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(d, loc, fmt, ap);
    va_end(ap);
}

void lm_warning(lm_diag *d, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    d->nwarnings++;
    va_start(ap, fmt);
    report(d, loc, "warning", fmt, ap);
    va_end(ap);
}

void lm_note(lm_diag *d, lm_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, "note", fmt, ap);
    va_end(ap);
}

void lm_error_plain(lm_diag *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lm_verror(d, (lm_loc){0}, fmt, ap);
    va_end(ap);
}

/* ---- hashing --------------------------------------------------------- */

uint64_t lm_hash_mix(uint64_t a, uint64_t b)
{
    uint64_t h = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

uint64_t lm_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull ^ seed; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ---- diagnostics captured in memory ------------------------------------ */

static void discard(void *ctx, const char *kind, lm_loc loc, const char *msg)
{
    (void)ctx, (void)kind, (void)loc, (void)msg;
}

void lm_diag_capture_begin(lm_diag_capture *c)
{
    memset(c, 0, sizeof *c);
    c->f = open_memstream(&c->text, &c->len);
    lm_diag_init(&c->d, c->f ? c->f : stderr);
    c->d.no_caret = true;
    c->d.unheard = true;
    /* no memory for the stream: the messages are lost, never printed */
    if (!c->f)
        c->d.sink = discard;
}

const char *lm_diag_capture_end(lm_diag_capture *c, lm_arena *ar)
{
    if (c->f)
        fclose(c->f);
    const char *r = "";
    if (c->text) {
        size_t n = strcspn(c->text, "\n");
        const char *t = c->text;
        /* drop the "loomc: error: " / "file:l:c: error: " prefix for tables */
        const char *e = c->keep_prefix ? NULL : strstr(t, "error: ");
        if (e && (size_t)(e - t) < n) {
            n -= (size_t)(e + 7 - t);
            t = e + 7;
        }
        r = lm_arena_strndup(ar, t, n);
    }
    free(c->text);
    memset(c, 0, sizeof *c);
    return r;
}
