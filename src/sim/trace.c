/* trace.c - the simulator's timeline as Chrome trace-event JSON, which
 * Perfetto's UI (and chrome://tracing) open directly.
 *
 * One trace holds one or more runs (the launches of a job) one after the
 * other in time: a run starts where the previous one ended (sim_trace_new,
 * sim_options.trace, sim_trace_end). Layout: one process per logical core
 * ("core (x,y) CLASS", the class of the first run that uses the core), one
 * thread per engine (reader, unpack, math, pack, writer) with a complete
 * ("X") event per op execution and per wait; one more process, "NoC and
 * DRAM", with a thread "launches" holding one slice per run and a counter
 * ("C") track per link and per DRAM bank direction giving its load in
 * bytes/cycle whenever the fair shares change. Each core-to-core NoC
 * transfer (a send, a multicast, a semaphore increment or store) is a flow
 * arrow per destination core: from the issuing engine's track at the issue
 * to the same engine's track of the destination core at the arrival (a
 * reader multicasts to the readers that wait for it, a writer to writers),
 * bound to the slice that encloses it; DRAM traffic shows on the counters
 * instead.
 *
 * Times are integer nanoseconds (written as microseconds with three
 * decimals, Chrome's unit, so every reader parses them exactly): an event's
 * start and end are each rounded from the simulated cycle, and its duration
 * is their difference, so slices that follow each other in cycles never
 * overlap after rounding. Each event also carries its exact cycles and,
 * where the statement has one, its source line. The same runs write the
 * same bytes.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct sim_trace {
    FILE *f;
    double ns_per_cycle;
    int grid_w, ncores;     /* the chip's logical grid: a core's process is 1 + y * grid_w + x */
    bool *named;            /* processes whose names are written */
    double base;            /* cycles before the current run */
    int *pid;               /* the current run's core index -> process */
    sim *s;                 /* the current run */
    bool any;
    long long nflows;       /* flow ids given so far */
    lm_buf scratch;         /* for JSON strings */
};

static void sep(sim_trace *t)
{
    fputs(t->any ? ",\n" : "\n", t->f);
    t->any = true;
}

/* A JSON string through util's one escaper, by way of a scratch buffer. */
static void jstr(sim_trace *t, const char *s)
{
    t->scratch.len = 0;
    lm_json_str(&t->scratch, s);
    fputs(lm_buf_str(&t->scratch), t->f);
}

/* Cycle c of the current run as integer nanoseconds of the trace. */
static long long ns_at(const sim_trace *t, double c) { return llround((t->base + c) * t->ns_per_cycle); }

/* Nanoseconds as Chrome's microseconds, exactly. */
static void put_us(sim_trace *t, const char *key, long long ns)
{
    fprintf(t->f, ",\"%s\":%lld.%03lld", key, ns / 1000, ns % 1000);
}

sim_trace *sim_trace_new(FILE *f, const arch_desc *a)
{
    sim_trace *t = lm_xcalloc(1, sizeof *t);
    t->f = f;
    t->ns_per_cycle = 1.0 / a->clock_ghz;
    t->grid_w = a->grid_w;
    t->ncores = a->grid_w * a->grid_h;
    t->named = lm_xcalloc((size_t)t->ncores + 1, sizeof *t->named);
    fputs("{\"otherData\":{\"note\":\"simulated by loomc, not measured\",\"time\":\"integer nanoseconds at the "
          "chip's clock; args.cycles is exact\"},\"traceEvents\":[",
          f);
    sep(t);
    fprintf(f, "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"NoC and DRAM\"}}");
    sep(t);
    fprintf(f, "{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"launches\"}}");
    return t;
}

/* The names of core i's process and threads, when no run wrote them yet. */
static void name_core(sim_trace *t, const sim *s, int i)
{
    const sim_core *c = &s->cores[i];
    int pid = t->pid[i];
    if (t->named[pid])
        return;
    t->named[pid] = true;
    FILE *f = t->f;
    sep(t);
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", pid);
    t->scratch.len = 0;
    lm_buf_printf(&t->scratch, "core (%d,%d) %s", c->x, c->y, s->p->classes[c->cls].name);
    char *name = lm_xstrdup(lm_buf_str(&t->scratch));
    jstr(t, name);
    free(name);
    fputs("}}", f);
    sep(t);
    fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}", pid, pid);
    for (int k = 0; k < SIM_NENGINES; k++) {
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}", pid,
                k + 1, sim_engine_name((sim_engine_kind)k));
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                pid, k + 1, k + 1);
    }
}

void sim_trace_run_begin(sim_trace *t, sim *s)
{
    t->s = s;
    t->pid = lm_xcalloc((size_t)s->ncores + 1, sizeof *t->pid);
    for (int i = 0; i < s->ncores; i++) {
        const sim_core *c = &s->cores[i];
        t->pid[i] = 1 + c->y * t->grid_w + c->x;
        if (t->pid[i] < 1 || t->pid[i] > t->ncores)
            LM_BUG("core (%d,%d) outside the %d-wide grid of the trace", c->x, c->y, t->grid_w);
        name_core(t, s, i);
    }
}

void sim_trace_run_end(sim_trace *t, double t_end, const char *name)
{
    long long t0 = ns_at(t, 0), t1 = ns_at(t, t_end);
    sep(t);
    fputs("{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"name\":", t->f);
    jstr(t, name);
    put_us(t, "ts", t0);
    put_us(t, "dur", t1 - t0);
    fprintf(t->f, ",\"args\":{\"cycles\":%.1f}}", t_end);
    t->base += t_end;
    free(t->pid);
    t->pid = NULL;
    t->s = NULL;
}

bool sim_trace_end(sim_trace *t)
{
    fputs("\n]}\n", t->f);
    bool ok = !ferror(t->f);
    lm_buf_free(&t->scratch);
    free(t->named);
    free(t->pid);
    free(t);
    return ok;
}

void sim_trace_op(sim_trace *t, const sim_engine *e, const char *name, double t0, double t1, const df_stmt *st)
{
    long long a = ns_at(t, t0), b = ns_at(t, t1);
    sep(t);
    fprintf(t->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":", t->pid[e->core], e->kind + 1);
    jstr(t, name);
    put_us(t, "ts", a);
    put_us(t, "dur", b - a);
    fprintf(t->f, ",\"args\":{\"cycles\":%.1f", t1 - t0);
    if (st && st->loc.line > 0)
        fprintf(t->f, ",\"line\":%d", st->loc.line);
    fprintf(t->f, ",\"op\":\"%s\"}}", st ? df_ops[st->op].name : "");
}

void sim_trace_load(void *ctx, int32_t res, double load)
{
    sim *s = ctx;
    sim_trace *t = s->trace;
    if (!t)
        return;
    const sim_res *R = &s->net.res[res];
    if (R->kind != SIM_R_LINK && R->kind != SIM_R_BANK_RD && R->kind != SIM_R_BANK_WR)
        return;
    char name[64];
    sim_net_res_name(&s->net, res, name, sizeof name);
    sep(t);
    fputs("{\"ph\":\"C\",\"pid\":0,\"name\":", t->f);
    jstr(t, name);
    put_us(t, "ts", ns_at(t, s->q.now));
    fprintf(t->f, ",\"args\":{\"B/cycle\":%.3f}}", load);
}

void sim_trace_flow(sim_trace *t, const sim *s, const sim_xfer *X, int dcore)
{
    static const char *const names[] = {
        [SIM_X_SEND] = "send", [SIM_X_MCAST] = "multicast", [SIM_X_SEM_INC] = "semaphore increment",
        [SIM_X_SEM_MCAST] = "semaphore multicast"};
    const sim_engine *e = &s->eng[X->owner];
    const char *name = X->kind < LM_COUNT(names) && names[X->kind] ? names[X->kind] : "noc";
    long long id = ++t->nflows;
    sep(t);
    fprintf(t->f, "{\"ph\":\"s\",\"id\":%lld,\"cat\":\"noc\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d", id, name,
            t->pid[e->core], e->kind + 1);
    put_us(t, "ts", ns_at(t, X->t_issue));
    fputs("}", t->f);
    sep(t);
    fprintf(t->f, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%lld,\"cat\":\"noc\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d", id,
            name, t->pid[dcore], e->kind + 1);
    put_us(t, "ts", ns_at(t, s->q.now));
    fputs("}", t->f);
}
