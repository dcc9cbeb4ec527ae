/* base.h - the few helpers every stage of loomc shares: arenas, growable
 * vectors, string buffers, source locations and diagnostics, checked and
 * Python-semantics integer arithmetic. JSON is util/json.h.
 *
 * Conventions (see docs/hacking.md):
 *  - Exported names carry a module prefix; this module's is `lm_`.
 *  - Memory of a compilation lives in one lm_arena and is released at once.
 *  - User errors are reported through an lm_diag as `file:line:col: error:`
 *    and make the caller return failure; they never exit the process.
 *    Internal invariant failures go through LM_BUG, which reports the place
 *    in loomc's own source and exits with status 2.
 */
#ifndef LOOMC_BASE_H
#define LOOMC_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h> /* free, in LM_VEC_FREE */

/* ---- internal errors ------------------------------------------------- */

#if defined(__GNUC__)
#define LM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define LM_NORETURN __attribute__((noreturn))
#define LM_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define LM_PRINTF(a, b)
#define LM_NORETURN
#define LM_ALWAYS_INLINE inline
#endif

/* Report a bug in loomc itself (never bad input) and exit with status 2;
 * under a trap (below), jump back to the trap's setter instead. */
LM_NORETURN void lm_bug_at(const char *file, int line, const char *fmt, ...) LM_PRINTF(3, 4);
#define LM_BUG(...) lm_bug_at(__FILE__, __LINE__, __VA_ARGS__)
#define LM_ASSERT(c) ((c) ? (void)0 : lm_bug_at(__FILE__, __LINE__, "assertion failed: %s", #c))

/* Where a library entry point catches a bug instead of the process
 * exiting (include/loomc.h): it sets a trap for the calling thread, then
 * setjmp(trap.env); a bug on that thread fills in the place and message,
 * clears the trap and longjmps there, printing nothing. Without a trap (the
 * command) a bug prints its message and exits 2 as always. */
typedef struct lm_bug_trap {
    jmp_buf env;
    const char *file; /* loomc's own source file and line of the bug */
    int line;
    char msg[1024];
} lm_bug_trap;

/* Set the calling thread's trap (NULL: none) and return the one before. */
lm_bug_trap *lm_bug_trap_swap(lm_bug_trap *t);

/* Allocation that reports exhaustion as a bug-class failure (exit 2). */
void *lm_xmalloc(size_t n);
void *lm_xcalloc(size_t n, size_t size);
void *lm_xrealloc(void *p, size_t n);
char *lm_xstrdup(const char *s);

/* ---- arena ----------------------------------------------------------- */

/* A bump allocator; everything allocated from it is freed by lm_arena_free.
 * Allocations are zeroed and aligned for any scalar type. */
typedef struct lm_arena_chunk lm_arena_chunk;
typedef struct lm_arena {
    lm_arena_chunk *head;
    size_t bytes; /* total bytes handed out, for limits and reports */
} lm_arena;

void lm_arena_init(lm_arena *a);
void *lm_arena_alloc(lm_arena *a, size_t n);
char *lm_arena_strdup(lm_arena *a, const char *s);
char *lm_arena_strndup(lm_arena *a, const char *s, size_t n);
char *lm_arena_printf(lm_arena *a, const char *fmt, ...) LM_PRINTF(2, 3);
void lm_arena_free(lm_arena *a);

#define LM_NEW(arena, T) ((T *)lm_arena_alloc((arena), sizeof(T)))
#define LM_NEWN(arena, T, n) ((T *)lm_arena_alloc((arena), sizeof(T) * (size_t)(n)))

/* ---- growable vectors (heap) ---------------------------------------- */

/* A typed vector: `LM_VEC(int) v = {0}; LM_PUSH(&v, 3); ... LM_VEC_FREE(&v);` */
#define LM_VEC(T) struct { T *items; size_t len, cap; }
#define LM_PUSH(v, x)                                                          \
    do {                                                                       \
        if ((v)->len == (v)->cap) {                                            \
            (v)->cap = (v)->cap ? 2 * (v)->cap : 8;                            \
            (v)->items = lm_xrealloc((v)->items, (v)->cap * sizeof *(v)->items); \
        }                                                                      \
        (v)->items[(v)->len++] = (x);                                          \
    } while (0)
#define LM_VEC_FREE(v) (free((v)->items), (v)->items = NULL, (v)->len = (v)->cap = 0)

/* ---- string buffer --------------------------------------------------- */

typedef struct lm_buf {
    char *s;
    size_t len, cap;
} lm_buf;

void lm_buf_printf(lm_buf *b, const char *fmt, ...) LM_PRINTF(2, 3);
void lm_buf_vprintf(lm_buf *b, const char *fmt, va_list ap);
void lm_buf_puts(lm_buf *b, const char *s);
void lm_buf_putc(lm_buf *b, char c);
void lm_buf_free(lm_buf *b);
/* Returns the contents ("" when empty); valid until the next append. */
const char *lm_buf_str(const lm_buf *b);

/* ---- files ----------------------------------------------------------- */

/* Limits on what loomc reads (docs/limits.md). */
#define LM_MAX_FILE_BYTES (16u << 20)

/* Read a whole file into a NUL-terminated heap string. On failure returns
 * NULL and writes a one-line reason into `why` (size `whylen`). */
char *lm_read_file(const char *path, size_t *len, char *why, size_t whylen);
/* Whether s is a whole decimal integer that fits in 64 bits (an optional
 * sign, no spaces); its value in *out. */
bool lm_parse_i64(const char *s, int64_t *out);
/* Whether path names a regular file / a folder. */
bool lm_is_file(const char *path);
bool lm_is_dir(const char *path);
/* The running program's own file (its absolute path) into buf; false if
 * it cannot be told. */
bool lm_self_exe(char *buf, size_t size);
/* Walking up from the folder of `file` (it and at most 4 folders above
 * it), the first FOLDER/REL that exists for one of rels[0..nrels-1], tried
 * in order at each level, as a folder (want_dir) or a regular file: a new
 * heap string, or NULL. How the command and the library find their data
 * (arch/, bench/) beside a source tree's build or an installed tree. */
char *lm_find_above(const char *file, const char *const *rels, int nrels, bool want_dir);

/* ---- source locations and diagnostics ------------------------------- */

typedef struct lm_loc {
    const char *file; /* as given by the user; not owned */
    int line, col;    /* 1-based; 0 means unknown */
} lm_loc;

/* One source file known to the diagnostics, for printing the line and caret. */
typedef struct lm_source {
    const char *name;
    const char *text;
    size_t len;
} lm_source;

/* A receiver of diagnostics as data instead of text: the kind ("error",
 * "warning", "note"), the place as reported, and the message alone. */
typedef void (*lm_diag_sink)(void *ctx, const char *kind, lm_loc loc, const char *msg);

typedef struct lm_diag {
    FILE *out;         /* where messages go (stderr by default) */
    lm_diag_sink sink; /* if set: every message goes here instead of out */
    void *sink_ctx;
    int nerrors;
    int nwarnings;
    int max_errors;    /* stop reporting after this many (0 = 20) */
    lm_source srcs[8]; /* files whose lines can be quoted */
    int nsrcs;
    bool no_caret;     /* do not quote source lines */
    bool unheard;      /* kept from the user (lm_diag_capture): no listener hears it */
} lm_diag;

/* Who hears, on the calling thread, every diagnostic shown to the user
 * (printed by an lm_diag without a sink, not captured) as data, besides the
 * text: the command's --json, which prints a failed command's diagnostics
 * as a document. `bug` hears an internal error (LM_BUG without a trap: the
 * file and line are loomc's own) just before the process exits 2. */
typedef struct lm_diag_listener lm_diag_listener;
struct lm_diag_listener {
    void (*heard)(lm_diag_listener *l, const char *kind, lm_loc loc, const char *msg);
    void (*bug)(lm_diag_listener *l, const char *file, int line, const char *msg);
};
/* Set the calling thread's listener (NULL: none) and return the one before. */
lm_diag_listener *lm_diag_listen_swap(lm_diag_listener *l);

void lm_diag_init(lm_diag *d, FILE *out);
void lm_diag_add_source(lm_diag *d, const char *name, const char *text, size_t len);
/* `file:line:col: error: msg`, then the source line and a caret. */
void lm_error(lm_diag *d, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
void lm_verror(lm_diag *d, lm_loc loc, const char *fmt, va_list ap);
void lm_warning(lm_diag *d, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
void lm_note(lm_diag *d, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
/* An error with no location: `loomc: error: msg`. */
void lm_error_plain(lm_diag *d, const char *fmt, ...) LM_PRINTF(2, 3);

/* ---- misc ------------------------------------------------------------ */

uint64_t lm_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t lm_hash_mix(uint64_t a, uint64_t b);

/* Checked 64-bit arithmetic: return false on overflow. */
static inline bool lm_add_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline bool lm_mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* ---- Python integer semantics ---------------------------------------- */

/* The one home of Python's integer division and modulo, which the symbolic
 * expressions, the solver, the interpreter, the dataflow evaluator and the
 * MiniZinc writer must agree on. Floor and ceiling division take b != 0 and
 * return false when the quotient does not fit (INT64_MIN / -1). */
static inline bool lm_fdiv_ok(int64_t a, int64_t b, int64_t *r)
{
    if (b == -1) {
        if (a == INT64_MIN)
            return false;
        *r = -a;
        return true;
    }
    int64_t q = a / b, m = a % b;
    *r = m != 0 && ((m < 0) != (b < 0)) ? q - 1 : q;
    return true;
}

static inline bool lm_cdiv_ok(int64_t a, int64_t b, int64_t *r)
{
    if (b == -1) {
        if (a == INT64_MIN)
            return false;
        *r = -a;
        return true;
    }
    int64_t q = a / b, m = a % b;
    *r = m != 0 && ((m < 0) == (b < 0)) ? q + 1 : q;
    return true;
}

/* Python's a % b for b != 0: the result has b's sign; it never overflows
 * (a % -1 traps in C for INT64_MIN, and is 0 for every a). */
static inline int64_t lm_pymod(int64_t a, int64_t b)
{
    if (b == -1)
        return 0;
    int64_t m = a % b;
    return m != 0 && ((m < 0) != (b < 0)) ? m + b : m;
}

/* The same floor division on 128-bit intermediates (b != 0), for sums and
 * products that may leave int64 before they are clamped. */
static inline __int128 lm_fdiv128(__int128 a, __int128 b)
{
    __int128 q = a / b;
    return a % b != 0 && ((a < 0) != (b < 0)) ? q - 1 : q;
}

/* ceil(a / b) for counts: a >= 0, b > 0 (tiles of a dimension, blocks of a
 * grid axis). */
static inline int64_t lm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

#define LM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LM_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- "did you mean" (suggest.c) -------------------------------------- */

/* Levenshtein distance of a[0..la) and b[0..lb); LM_EDIT_FAR when either is
 * longer than 64 characters (such words never get suggestions). */
#define LM_EDIT_FAR (1 << 20)
int lm_edit_distance(const char *a, int la, const char *b, int lb);

/* Which names count as close: keys of a configuration file, or names in a
 * program (suggest.c says how they differ). */
typedef enum lm_near_rule { LM_NEAR_KEY, LM_NEAR_NAME } lm_near_rule;

/* The closest of the names offered to a word, for names that do not sit in
 * one array: lm_near_init, lm_near_offer for each, then lm_near_best. */
typedef struct lm_near {
    const char *want;
    int wlen;
    lm_near_rule rule;
    const char *best;
    int score, dist;
    const char *abbrev; /* the last name that starts with the word */
    int nabbrev;        /* how many do */
} lm_near;

void lm_near_init(lm_near *s, const char *want, int wlen, lm_near_rule rule);
void lm_near_offer(lm_near *s, const char *name);
/* The suggestion, or NULL when no name offered is close. */
const char *lm_near_best(const lm_near *s);
/* The closest of names[0..n) to s, or NULL. */
const char *lm_closest(const char *s, const char *const *names, int n, lm_near_rule rule);

/* ---- running programs (proc.c) --------------------------------------- */

/* A program to run and how it ended. argv[0] is looked up on PATH unless it
 * holds a '/'; dir (the child's working folder) and the stream files are
 * optional (NULL inherits ours); out and err are created or truncated. */
typedef struct lm_proc {
    const char *const *argv;
    const char *dir;
    const char *in, *out, *err;
    int status; /* exit status; 126: dir not entered, 127: not run; -1: killed or never forked */
    int signal; /* the signal that ended it, or 0 */
    int errnum; /* why it did not run (errno of pipe, fork, chdir, open, exec or wait), or 0 */
} lm_proc;

/* Run p and wait for it; true when the program ran and exited (with any status). */
bool lm_proc_run(lm_proc *p);

/* ---- a progress line (progress.c) ------------------------------------ */

/* Seconds of a monotonic clock (for durations, never for output a test
 * compares). */
double lm_wall_seconds(void);

/* One line on a terminal that says how far long work has come: off unless
 * the stream is a terminal (and not quiet); lines start after a second of
 * work. The caller asks lm_progress_due whether to show a line now (cheap:
 * one clock read), shows it, and ends it before printing anything else. */
typedef struct lm_progress {
    FILE *out;
    bool on;    /* out is a terminal and not quiet */
    bool shown; /* a line is on the screen */
    double start, last, delay; /* seconds: when it began, the last line, before the first */
} lm_progress;

void lm_progress_init(lm_progress *p, FILE *out, bool quiet);
/* Whether a new line is due now (false when p is NULL or off). */
bool lm_progress_due(lm_progress *p);
/* Replace the line with this text (nothing when p is NULL or off). */
void lm_progress_show(lm_progress *p, const char *fmt, ...) LM_PRINTF(2, 3);
/* Erase the line, if one is shown. */
void lm_progress_end(lm_progress *p);

/* ---- diagnostics captured in memory ------------------------------------ */

/* Diagnostics written to memory instead of a stream, for callers that turn
 * a failure into a reason of their own (a table row, a refused point):
 * report through c->d (no source quoted) between begin and end. */
typedef struct lm_diag_capture {
    lm_diag d;
    FILE *f;
    char *text;
    size_t len;
    bool keep_prefix; /* set after begin: keep the first line's "error: " prefix */
} lm_diag_capture;

void lm_diag_capture_begin(lm_diag_capture *c);
/* Ends the capture: the first line reported, without its "loomc: error: " or
 * "file:l:c: error: " prefix unless keep_prefix, copied into ar ("" if
 * nothing was reported). */
const char *lm_diag_capture_end(lm_diag_capture *c, lm_arena *ar);

#endif
