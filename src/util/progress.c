/* progress.c - one progress line on a terminal for long work (declared in
 * base.h): shown only when its stream is a terminal and the work has run
 * for a second, rewritten in place at most a few times a second, and
 * erased when the work ends, so that what follows (a report, an error)
 * starts on a clean line. A stream that is not a terminal (a log, a pipe,
 * the tests) gets nothing at all. LOOMC_PROGRESS_DELAY (seconds, default
 * 1) sets when the first line may come; 0 shows it at once (the tests of
 * the line use it). Also the monotonic clock it reads.
 */
#include "util/base.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Seconds of work before the first line (unless the environment says), and
 * between two lines. */
#define FIRST_AFTER 1.0
#define EVERY 0.25

static double first_after(void)
{
    const char *s = getenv("LOOMC_PROGRESS_DELAY");
    if (!s || !*s)
        return FIRST_AFTER;
    char *end;
    double v = strtod(s, &end);
    return *end || !(v >= 0) ? FIRST_AFTER : v; /* not a number of seconds: the default */
}

double lm_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void lm_progress_init(lm_progress *p, FILE *out, bool quiet)
{
    *p = (lm_progress){.out = out};
    p->on = !quiet && out && isatty(fileno(out));
    p->start = p->on ? lm_wall_seconds() : 0;
    p->last = p->start - EVERY;
    p->delay = p->on ? first_after() : FIRST_AFTER;
}

bool lm_progress_due(lm_progress *p)
{
    if (!p || !p->on)
        return false;
    double now = lm_wall_seconds();
    if (now - p->start < p->delay || now - p->last < EVERY)
        return false;
    p->last = now;
    return true;
}

void lm_progress_show(lm_progress *p, const char *fmt, ...)
{
    if (!p || !p->on)
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* back to the line's start, the new text, the rest of the old erased */
    fprintf(p->out, "\r%s\033[K", line);
    fflush(p->out);
    p->shown = true;
}

void lm_progress_end(lm_progress *p)
{
    if (!p || !p->shown)
        return;
    fputs("\r\033[K", p->out);
    fflush(p->out);
    p->shown = false;
}
