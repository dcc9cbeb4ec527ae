/* trace.c - the simulator's timeline as Chrome trace-event JSON, which
 * Perfetto's UI (and chrome://tracing) open directly.
 *
 * Layout: one process per core ("core (x,y)"), one thread per engine
 * (reader, unpack, math, pack, writer) with a complete ("X") event per op
 * execution and per wait; one more process, "NoC and DRAM", with a counter
 * ("C") track per link and per DRAM bank direction giving its load in
 * bytes/cycle whenever the fair shares change. Timestamps are microseconds
 * at the chip's clock (Chrome's unit), printed with fixed precision so the
 * same run writes the same bytes; each event also carries its cycles.
 */
#include "sim/sim_int.h"

#include <stdio.h>
#include <stdlib.h>

struct sim_trace {
    FILE *f;
    sim *s;
    double us_per_cycle;
    bool any;
    bool err;
    lm_buf scratch; /* for JSON strings */
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

sim_trace *sim_trace_open(sim *s, FILE *f)
{
    sim_trace *t = lm_xcalloc(1, sizeof *t);
    t->f = f;
    t->s = s;
    t->us_per_cycle = 1.0 / (s->a->clock_ghz * 1000.0);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"note\":\"simulated by loomc, not measured\"},"
          "\"traceEvents\":[",
          f);
    sep(t);
    fprintf(f, "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"NoC and DRAM\"}}");
    for (int i = 0; i < s->ncores; i++) {
        const sim_core *c = &s->cores[i];
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"core (%d,%d) %s\"}}",
                i + 1, c->x, c->y, s->p->classes[c->cls].name);
        sep(t);
        fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}", i + 1,
                i + 1);
        for (int k = 0; k < SIM_NENGINES; k++) {
            sep(t);
            fprintf(f, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
                    i + 1, k + 1, sim_engine_name((sim_engine_kind)k));
            sep(t);
            fprintf(f,
                    "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
                    i + 1, k + 1, k + 1);
        }
    }
    return t;
}

void sim_trace_op(sim_trace *t, const sim_engine *e, const char *name, double t0, double t1, const df_stmt *st)
{
    sep(t);
    fprintf(t->f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"name\":", e->core + 1, e->kind + 1);
    jstr(t, name);
    fprintf(t->f, ",\"ts\":%.4f,\"dur\":%.4f,\"args\":{\"cycles\":%.1f,\"line\":%d,\"op\":\"%s\"}}",
            t0 * t->us_per_cycle, (t1 - t0) * t->us_per_cycle, t1 - t0, st ? st->loc.line : 0,
            st ? df_ops[st->op].name : "");
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
    fprintf(t->f, ",\"ts\":%.4f,\"args\":{\"B/cycle\":%.3f}}", s->q.now * t->us_per_cycle, load);
}

bool sim_trace_close(sim_trace *t, double t_end)
{
    (void)t_end;
    fputs("\n]}\n", t->f);
    bool ok = !ferror(t->f);
    lm_buf_free(&t->scratch);
    free(t);
    return ok;
}
