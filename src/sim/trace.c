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
 * Times are integer nanoseconds (written as microseconds with at most three
 * decimals, Chrome's unit, so every reader parses them exactly): an event's
 * start and end are each rounded from the simulated cycle, and its duration
 * is their difference, so slices that follow each other in cycles never
 * overlap after rounding. Each event also carries its cycles (one decimal)
 * and, where the statement has one, its source line. The same runs write
 * the same bytes.
 *
 * The document ("format": "loomc-trace", SIM_TRACE_VERSION) goes through
 * util's JSON, streamed: one event is built, written as one line and freed
 * at a time, so a trace of millions of events is never held in memory.
 */
#include "sim/sim_int.h"
#include "util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct sim_trace {
    lm_json_stream out;
    double ns_per_cycle;
    int grid_w, ncores;     /* the chip's logical grid: a core's process is 1 + y * grid_w + x */
    bool *named;            /* processes whose names are written */
    double base;            /* cycles before the current run */
    int *pid;               /* the current run's core index -> process */
    sim *s;                 /* the current run */
    long long nflows;       /* flow ids given so far */
    bool ok;                /* no write error so far */
};

/* Write event e (taken) as the next item of traceEvents. */
static void put(sim_trace *t, json_t *e)
{
    if (!lm_json_stream_item(&t->out, e))
        t->ok = false;
    json_decref(e);
}

/* An event of kind ph on process pid (and thread tid, when not 0). */
static json_t *event(const char *ph, int pid, int tid)
{
    json_t *e = lm_json_obj();
    lm_json_set(e, "ph", lm_json_string(ph));
    lm_json_set(e, "pid", lm_json_int(pid));
    if (tid)
        lm_json_set(e, "tid", lm_json_int(tid));
    return e;
}

/* A metadata event: name, and its one argument key = value (taken). */
static void meta(sim_trace *t, int pid, int tid, const char *name, const char *key, json_t *value)
{
    json_t *e = event("M", pid, tid), *args = lm_json_obj();
    lm_json_set(e, "name", lm_json_string(name));
    lm_json_set(args, key, value);
    lm_json_set(e, "args", args);
    put(t, e);
}

/* Cycle c of the current run as integer nanoseconds of the trace. */
static long long ns_at(const sim_trace *t, double c) { return llround((t->base + c) * t->ns_per_cycle); }

/* Nanoseconds as Chrome's microseconds, exactly. */
static json_t *us(long long ns) { return lm_json_scaled(ns, 3); }

sim_trace *sim_trace_new(FILE *f, const arch_desc *a)
{
    sim_trace *t = lm_xcalloc(1, sizeof *t);
    t->ns_per_cycle = 1.0 / a->clock_ghz;
    t->grid_w = a->grid_w;
    t->ncores = a->grid_w * a->grid_h;
    t->named = lm_xcalloc((size_t)t->ncores + 1, sizeof *t->named);
    json_t *head = lm_json_doc("loomc-trace", SIM_TRACE_VERSION), *other = lm_json_obj();
    lm_json_set(other, "note", lm_json_string("simulated by loomc, not measured"));
    lm_json_set(other, "time", lm_json_string("integer nanoseconds at the chip's clock; args.cycles is exact"));
    lm_json_set(head, "otherData", other);
    t->ok = lm_json_stream_begin(&t->out, f, head, "traceEvents");
    json_decref(head);
    meta(t, 0, 0, "process_name", "name", lm_json_string("NoC and DRAM"));
    meta(t, 0, 1, "thread_name", "name", lm_json_string("launches"));
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
    lm_buf name = {0};
    lm_buf_printf(&name, "core (%d,%d) %s", c->x, c->y, s->p->classes[c->cls].name);
    meta(t, pid, 0, "process_name", "name", lm_json_string(lm_buf_str(&name)));
    lm_buf_free(&name);
    meta(t, pid, 0, "process_sort_index", "sort_index", lm_json_int(pid));
    for (int k = 0; k < SIM_NENGINES; k++) {
        meta(t, pid, k + 1, "thread_name", "name", lm_json_string(sim_engine_name((sim_engine_kind)k)));
        meta(t, pid, k + 1, "thread_sort_index", "sort_index", lm_json_int(k + 1));
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

/* A complete ("X") slice from a to b nanoseconds, lasting `cycles`. */
static json_t *slice(int pid, int tid, const char *name, long long a, long long b, double cycles, json_t **args)
{
    json_t *e = event("X", pid, tid);
    lm_json_set(e, "name", lm_json_string(name));
    lm_json_set(e, "ts", us(a));
    lm_json_set(e, "dur", us(b - a));
    *args = lm_json_obj();
    lm_json_set(*args, "cycles", lm_json_fixed(cycles, 1));
    lm_json_set(e, "args", *args);
    return e;
}

void sim_trace_run_end(sim_trace *t, double t_end, const char *name)
{
    json_t *args;
    put(t, slice(0, 1, name, ns_at(t, 0), ns_at(t, t_end), t_end, &args));
    t->base += t_end;
    free(t->pid);
    t->pid = NULL;
    t->s = NULL;
}

bool sim_trace_end(sim_trace *t)
{
    bool ok = lm_json_stream_end(&t->out) && t->ok;
    free(t->named);
    free(t->pid);
    free(t);
    return ok;
}

void sim_trace_op(sim_trace *t, const sim_engine *e, const char *name, double t0, double t1, const df_stmt *st)
{
    json_t *args, *ev = slice(t->pid[e->core], e->kind + 1, name, ns_at(t, t0), ns_at(t, t1), t1 - t0, &args);
    if (st && st->loc.line > 0)
        lm_json_set(args, "line", lm_json_int(st->loc.line));
    lm_json_set(args, "op", lm_json_string(st ? df_ops[st->op].name : ""));
    put(t, ev);
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
    json_t *e = event("C", 0, 0), *args = lm_json_obj();
    lm_json_set(e, "name", lm_json_string(name));
    lm_json_set(e, "ts", us(ns_at(t, s->q.now)));
    lm_json_set(args, "B/cycle", lm_json_fixed(load, 3));
    lm_json_set(e, "args", args);
    put(t, e);
}

/* One end of a flow arrow: its start ("s") or finish ("f", bound to the
 * slice that encloses it). */
static json_t *flow_end(const char *ph, long long id, const char *name, int pid, int tid, long long ns)
{
    json_t *e = lm_json_obj();
    lm_json_set(e, "ph", lm_json_string(ph));
    if (ph[0] == 'f')
        lm_json_set(e, "bp", lm_json_string("e"));
    lm_json_set(e, "id", lm_json_int(id));
    lm_json_set(e, "cat", lm_json_string("noc"));
    lm_json_set(e, "name", lm_json_string(name));
    lm_json_set(e, "pid", lm_json_int(pid));
    lm_json_set(e, "tid", lm_json_int(tid));
    lm_json_set(e, "ts", us(ns));
    return e;
}

void sim_trace_flow(sim_trace *t, const sim *s, const sim_xfer *X, int dcore)
{
    static const char *const names[] = {
        [SIM_X_SEND] = "send", [SIM_X_MCAST] = "multicast", [SIM_X_SEM_INC] = "semaphore increment",
        [SIM_X_SEM_MCAST] = "semaphore multicast"};
    const sim_engine *e = &s->eng[X->owner];
    const char *name = X->kind < LM_COUNT(names) && names[X->kind] ? names[X->kind] : "noc";
    long long id = ++t->nflows;
    put(t, flow_end("s", id, name, t->pid[e->core], e->kind + 1, ns_at(t, X->t_issue)));
    put(t, flow_end("f", id, name, t->pid[dcore], e->kind + 1, ns_at(t, s->q.now)));
}
