/* sim.c - sim_run: lay the program onto the chip's cores, run the event
 * loop, and turn the end of the run into a result, a deadlock report or a
 * budget error.
 *
 * The loop pops events in (time, sequence) order. Before time advances past
 * an instant, the network recomputes its fair shares if any flow started or
 * ended in that instant (sim_net_update), so all the changes of one instant
 * cost one recomputation.
 *
 * Budgets: a run stops with an error after max_events events, after
 * 4 x max_events interpreted ops (loops of free ops advance no clock), or
 * past max_cycles simulated cycles (sim_options; defaults in sim.h), so a
 * runaway program is reported, never a hang. A deadlock is the event queue
 * running dry while some engine still waits: every waiting engine is named
 * with its op, source line and what it waits on.
 */
#include "sim/sim_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- kernels flattened ------------------------------------------------------- */

static void emit(sim_code *c, int *cap, sim_ins in)
{
    if (c->n == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        c->ins = lm_xrealloc(c->ins, (size_t)*cap * sizeof *c->ins);
    }
    c->ins[c->n++] = in;
}

static void flatten(sim_code *c, int *cap, df_stmt **body, int n, int depth)
{
    for (int i = 0; i < n; i++) {
        df_stmt *st = body[i];
        if (st->op != DF_FOR) {
            emit(c, cap, (sim_ins){SIM_I_OP, (int16_t)depth, -1, st});
            continue;
        }
        int head = c->n;
        emit(c, cap, (sim_ins){SIM_I_FOR, (int16_t)depth, -1, st});
        if (depth + 1 > c->depth)
            c->depth = depth + 1;
        flatten(c, cap, st->body, st->nbody, depth + 1);
        emit(c, cap, (sim_ins){SIM_I_END, (int16_t)depth, head + 1, st});
        c->ins[head].jump = c->n;
    }
}

/* ---- set-up ------------------------------------------------------------------- */

static bool check_arch(const arch_desc *a, lm_diag *d)
{
    struct {
        const char *name;
        double v;
    } pos[] = {
        {"clock_ghz", a->clock_ghz},
        {"link_bytes_per_cycle", a->link_bytes_per_cycle},
        {"core_read_bpc", a->core_read_bpc},
        {"core_write_bpc", a->core_write_bpc},
        {"dram_bank_read_bpc", a->dram_bank_read_bpc},
        {"dram_bank_write_bpc", a->dram_bank_write_bpc},
        {"unpack_bpc", a->unpack_bpc},
        {"pack_bpc", a->pack_bpc},
        {"noc width", a->noc_w},
        {"noc height", a->noc_h},
        {"num_dram_banks", a->num_dram_banks},
    };
    for (size_t i = 0; i < LM_COUNT(pos); i++)
        if (!(pos[i].v > 0)) {
            lm_error_plain(d, "hardware description '%s': %s must be positive to simulate", a->name, pos[i].name);
            return false;
        }
    return true;
}

/* Tensors in DRAM: tile-major pages; inputs filled from their seed unless
 * the caller gives the contents. */
static void setup_tensors(sim *s)
{
    const df_program *p = s->p;
    int th = s->a->tile_h, tw = s->a->tile_w;
    s->tens = lm_xcalloc((size_t)(p->ntensors > 0 ? p->ntensors : 1), sizeof *s->tens);
    for (int t = 0; t < p->ntensors; t++) {
        const df_tensor *T = &p->tensors[t];
        sim_tensor_data *D = &s->tens[t];
        D->tr = (T->rows + th - 1) / th;
        D->tc = (T->cols + tw - 1) / tw;
        if (!s->functional)
            continue;
        D->pages = lm_xcalloc((size_t)(D->tr * D->tc) * NUM_TILE_ELEMS, sizeof(float));
        const float *given = s->o->tensor_init ? s->o->tensor_init[t] : NULL;
        if (T->role != DF_INPUT && !given)
            continue;
        float *rm = lm_xmalloc((size_t)(T->rows * T->cols + 1) * sizeof *rm);
        if (given)
            memcpy(rm, given, (size_t)(T->rows * T->cols) * sizeof *rm);
        else
            num_fill_random(rm, T->rows * T->cols, T->seed, T->format);
        for (int64_t r = 0; r < T->rows; r++)
            for (int64_t c = 0; c < T->cols; c++) {
                int64_t page = (r / th) * D->tc + c / tw;
                D->pages[(size_t)page * NUM_TILE_ELEMS + (size_t)((r % th) * NUM_TILE + c % tw)] = rm[r * T->cols + c];
            }
        free(rm);
    }
}

/* A functional run stores every tensor as float tiles: refuse a program
 * whose data would exceed the budget, before anything is allocated. */
static bool data_fits(const df_program *p, const arch_desc *a, const sim_options *o, lm_diag *d)
{
    int64_t limit = o->max_data_elems > 0 ? o->max_data_elems : SIM_DEFAULT_MAX_DATA_ELEMS;
    int64_t total = 0;
    bool fits64 = true;
    for (int t = 0; t < p->ntensors && fits64; t++) {
        const df_tensor *T = &p->tensors[t];
        int64_t tiles, n;
        fits64 = lm_mul_ok((T->rows + a->tile_h - 1) / a->tile_h, (T->cols + a->tile_w - 1) / a->tile_w, &tiles) &&
                 lm_mul_ok(tiles, (int64_t)a->tile_h * a->tile_w, &n) && lm_add_ok(total, n, &total);
    }
    if (fits64 && total <= limit)
        return true;
    if (fits64)
        lm_error_plain(d, "a functional simulation would hold %lld tensor elements (padded to whole tiles), more than "
                          "the limit of %lld; simulate timing only (--timing-only)",
                       (long long)total, (long long)limit);
    else
        lm_error_plain(d, "a functional simulation would hold more than 2^63 tensor elements, more than the limit of "
                          "%lld; simulate timing only (--timing-only)",
                       (long long)limit);
    return false;
}

static bool setup_cores(sim *s)
{
    const df_program *p = s->p;
    const arch_desc *a = s->a;
    int gw = a->grid_w, gh = a->grid_h;
    s->core_at = lm_xmalloc((size_t)gw * gh * sizeof *s->core_at);
    for (int i = 0; i < gw * gh; i++)
        s->core_at[i] = -1;
    int n = 0;
    for (int k = 0; k < p->nclasses; k++) {
        const df_class *c = &p->classes[k];
        if (c->x0 < 0 || c->y0 < 0 || c->x1 >= gw || c->y1 >= gh || c->x0 > c->x1 || c->y0 > c->y1) {
            lm_error(s->d, c->loc, "class '%s' covers cores (%d,%d)-(%d,%d), outside the %dx%d grid of '%s'", c->name,
                     c->x0, c->y0, c->x1, c->y1, gw, gh, a->name);
            return false;
        }
        n += (c->x1 - c->x0 + 1) * (c->y1 - c->y0 + 1);
    }
    s->ncores = n;
    s->cores = lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *s->cores);
    s->neng = n * SIM_NENGINES;
    s->eng = lm_xcalloc((size_t)(s->neng > 0 ? s->neng : 1), sizeof *s->eng);
    s->dests = lm_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *s->dests);
    s->code = lm_xcalloc((size_t)(p->nclasses > 0 ? p->nclasses : 1), sizeof *s->code);
    for (int k = 0; k < p->nclasses; k++)
        for (int kk = 0; kk < DF_NKERNELS; kk++) {
            int cap = 0;
            flatten(&s->code[k][kk], &cap, p->classes[k].kernels[kk].body, p->classes[k].kernels[kk].nbody, 0);
        }
    int ci = 0;
    for (int k = 0; k < p->nclasses; k++) {
        const df_class *cl = &p->classes[k];
        for (int y = cl->y0; y <= cl->y1; y++)
            for (int x = cl->x0; x <= cl->x1; x++, ci++) {
                if (s->core_at[y * gw + x] >= 0) {
                    lm_error(s->d, cl->loc, "class '%s' and class '%s' both claim core (%d,%d)", cl->name,
                             p->classes[s->cores[s->core_at[y * gw + x]].cls].name, x, y);
                    return false;
                }
                s->core_at[y * gw + x] = ci;
                sim_core *c = &s->cores[ci];
                c->x = x;
                c->y = y;
                c->cls = k;
                c->noc = (arch_xy){a->core_noc_x[x], a->core_noc_y[y]};
                c->cb = lm_xcalloc((size_t)a->num_cbs, sizeof *c->cb);
                for (int b = 0; b < cl->ncbs; b++) {
                    const df_cb *cb = &cl->cbs[b];
                    if (cb->id < 0 || cb->id >= a->num_cbs || cb->pages <= 0) {
                        lm_error(s->d, cb->loc, "CB %d with %lld pages cannot be simulated on '%s' (%d CBs)", cb->id,
                                 (long long)cb->pages, a->name, a->num_cbs);
                        return false;
                    }
                    sim_cbs *S = &c->cb[cb->id];
                    S->used = true;
                    S->format = cb->format;
                    S->pages = cb->pages;
                    S->bytes = a->tile_bytes[cb->format];
                    S->landing = lm_xcalloc((size_t)cb->pages, sizeof *S->landing);
                    if (s->functional)
                        S->data = lm_xcalloc((size_t)cb->pages * NUM_TILE_ELEMS, sizeof(float));
                }
                c->sem = lm_xcalloc((size_t)(p->nsems > 0 ? p->nsems : 1), sizeof *c->sem);
                c->sem_waiters = lm_xcalloc((size_t)(p->nsems > 0 ? p->nsems : 1), 1);
                for (int m = 0; m < p->nsems; m++)
                    c->sem[m] = p->sems[m].init;
                if (s->functional)
                    for (int b = 0; b < SIM_NBUF; b++)
                        c->buf[b] = lm_xcalloc((size_t)16 * NUM_TILE_ELEMS, sizeof(float));
                /* the core's slots: cx, cy, params, args in order */
                int64_t *base = lm_xcalloc((size_t)(cl->nslots > 0 ? cl->nslots : 1), sizeof *base);
                base[DF_SLOT_CX] = x;
                base[DF_SLOT_CY] = y;
                for (int m = 0; m < p->nparams; m++)
                    base[DF_SLOT_PARAM0 + m] = p->params[m].value;
                for (int m = 0; m < cl->nargs; m++) {
                    bool bad = false;
                    base[DF_SLOT_PARAM0 + p->nparams + m] = df_eval_checked(cl->args[m], base, &bad);
                    if (bad) {
                        lm_error(s->d, cl->loc, "runtime argument '%s' of class '%s' divides by zero or overflows on "
                                 "core (%d,%d)", cl->slot_names[DF_SLOT_PARAM0 + p->nparams + m], cl->name, x, y);
                        free(base);
                        return false;
                    }
                }
                static const df_kernel_kind kern[SIM_NENGINES] = {DF_READER, DF_COMPUTE, DF_COMPUTE, DF_COMPUTE,
                                                                  DF_WRITER};
                for (int k2 = 0; k2 < SIM_NENGINES; k2++) {
                    int32_t ei = ci * SIM_NENGINES + k2;
                    sim_engine *e = &s->eng[ei];
                    c->eng[k2] = ei;
                    e->core = ci;
                    e->kind = (uint8_t)k2;
                    e->noc = k2 == SIM_WRITER && a->num_nocs >= 2 ? 1 : 0;
                    e->code = &s->code[k][kern[k2]];
                    e->slots = lm_xmalloc((size_t)(cl->nslots > 0 ? cl->nslots : 1) * sizeof *e->slots);
                    memcpy(e->slots, base, (size_t)cl->nslots * sizeof *e->slots);
                    int depth = e->code->depth > 0 ? e->code->depth : 1;
                    e->hi = lm_xcalloc((size_t)depth, sizeof *e->hi);
                    e->step = lm_xcalloc((size_t)depth, sizeof *e->step);
                    e->ev = sim_q_new(&s->q, SIM_EV_ENGINE, ei);
                }
                free(base);
            }
    }
    return true;
}

static void teardown(sim *s)
{
    for (int i = 0; i < s->ncores; i++) {
        sim_core *c = &s->cores[i];
        if (c->cb)
            for (int b = 0; b < s->a->num_cbs; b++) {
                free(c->cb[b].data);
                free(c->cb[b].landing);
            }
        free(c->cb);
        free(c->sem);
        free(c->sem_waiters);
        for (int b = 0; b < SIM_NBUF; b++)
            free(c->buf[b]);
    }
    for (int i = 0; i < s->neng; i++) {
        free(s->eng[i].slots);
        free(s->eng[i].hi);
        free(s->eng[i].step);
    }
    if (s->code)
        for (int k = 0; k < s->p->nclasses; k++)
            for (int kk = 0; kk < DF_NKERNELS; kk++)
                free(s->code[k][kk].ins);
    if (s->tens)
        for (int t = 0; t < s->p->ntensors; t++)
            free(s->tens[t].pages);
    free(s->tens);
    free(s->code);
    free(s->cores);
    free(s->eng);
    free(s->core_at);
    free(s->dests);
    sim_net_free(&s->net);
    sim_q_free(&s->q);
    lm_arena_free(&s->arena);
}

/* ---- the run ------------------------------------------------------------------ */

static void report_deadlock(sim *s)
{
    int n = 0;
    const sim_engine *first = NULL;
    for (int i = 0; i < s->neng; i++)
        if (s->eng[i].state != SIM_ES_DONE) {
            if (s->eng[i].state != SIM_ES_BLOCKED)
                LM_BUG("engine %d neither done nor blocked with no event pending", i);
            if (!first)
                first = &s->eng[i];
            n++;
        }
    const df_stmt *st = first->code->ins[first->pc].s;
    lm_error(s->d, st->loc, "deadlock at cycle %.0f: no event is pending and %d engine%s wait%s", s->q.now, n,
             n == 1 ? "" : "s", n == 1 ? "s" : "");
    lm_buf b = {0};
    int shown = 0;
    for (int i = 0; i < s->neng; i++) {
        const sim_engine *e = &s->eng[i];
        if (e->state == SIM_ES_DONE)
            continue;
        if (shown == 32) {
            lm_note(s->d, (lm_loc){0}, "... and %d more waiting engines", n - shown);
            break;
        }
        b.len = 0;
        sim_describe_wait(s, e, &b);
        lm_note(s->d, e->code->ins[e->pc].s->loc, "%s", lm_buf_str(&b));
        shown++;
    }
    lm_buf_free(&b);
    s->failed = true;
}

sim_result *sim_run(const df_program *p, const arch_desc *a, const sim_options *o, lm_diag *d)
{
    static const sim_options defaults = {0};
    if (!o)
        o = &defaults;
    if (!check_arch(a, d))
        return NULL;
    if (!o->timing_only && !data_fits(p, a, o, d))
        return NULL;
    sim s = {0};
    s.p = p;
    s.a = a;
    s.o = o;
    s.d = d;
    s.functional = !o->timing_only;
    s.max_events = o->max_events ? o->max_events : SIM_DEFAULT_MAX_EVENTS;
    s.max_cycles = o->max_cycles > 0 ? o->max_cycles : SIM_DEFAULT_MAX_CYCLES;
    s.max_instr = 4 * s.max_events;
    lm_arena_init(&s.arena);
    sim_q_init(&s.q);
    sim_result *r = NULL;
    if (!setup_cores(&s)) {
        teardown(&s);
        return NULL;
    }
    sim_net_init(&s.net, a, &s.q, s.neng);
    s.net.ctx = &s;
    s.net.on_arrive = sim_xfer_arrived;
    s.net.on_done = sim_xfer_done;
    setup_tensors(&s);
    if (o->trace) {
        s.trace = o->trace;
        sim_trace_run_begin(s.trace, &s);
        s.net.on_load = sim_trace_load;
    }
    for (int i = 0; i < s.neng; i++)
        sim_q_at(&s.q, s.eng[i].ev, a->kernel_launch_cycles);

    for (;;) {
        if (s.failed)
            break;
        if (s.net.dirty && (sim_q_empty(&s.q) || sim_q_next_time(&s.q) > s.q.now))
            sim_net_update(&s.net);
        int32_t e = sim_q_pop(&s.q);
        if (e < 0)
            break;
        if (s.q.popped > s.max_events) {
            lm_error_plain(d, "simulation stopped after %llu events at cycle %.0f: the event budget is spent "
                           "(a runaway program, or raise the budget)", (unsigned long long)s.max_events, s.q.now);
            s.failed = true;
            break;
        }
        if (s.q.now > s.max_cycles) {
            lm_error_plain(d, "simulation stopped at cycle %.0f: past the budget of %.0f cycles", s.q.now,
                           s.max_cycles);
            s.failed = true;
            break;
        }
        /* every 4096 events a clock read; a line a few times a second */
        if (!(s.q.popped & 4095) && lm_progress_due(o->progress))
            lm_progress_show(o->progress, "%s: simulated cycle %.0f", o->progress_label ? o->progress_label : "sim",
                             s.q.now);
        const sim_event *ev = &s.q.ev[e];
        switch (ev->kind) {
        case SIM_EV_ENGINE:
            sim_engine_run(&s, ev->obj);
            break;
        case SIM_EV_CHAN:
            sim_net_chan_event(&s.net, ev->obj);
            break;
        case SIM_EV_XFER:
            sim_net_xfer_event(&s.net, ev->obj);
            break;
        default:
            LM_BUG("bad event kind %d", ev->kind);
        }
    }
    /* The run ends when the last engine has finished and the last data has
     * landed; acknowledgements still travelling back do not count. */
    s.t_end = s.t_last;
    for (int i = 0; i < s.neng; i++)
        if (s.eng[i].t_done > s.t_end)
            s.t_end = s.eng[i].t_done;
    if (!s.failed)
        for (int i = 0; i < s.neng; i++)
            if (s.eng[i].state != SIM_ES_DONE) {
                report_deadlock(&s);
                break;
            }
    /* a write error stays on the stream, for its owner to report */
    if (s.trace)
        sim_trace_run_end(s.trace, s.t_end, o->trace_name ? o->trace_name : p->name);
    s.trace = NULL;
    if (!s.failed) {
        sim_net_flush(&s.net);
        r = sim_report(&s);
    }
    teardown(&s);
    return r;
}
