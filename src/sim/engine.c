/* engine.c - the simulator's event queue: an indexed binary min-heap of
 * events ordered by (time, sequence number).
 *
 * Every object that acts over time (an engine, a channel, a transfer) owns
 * one event for its whole life and moves it with sim_q_at; the heap keeps
 * each event's position, so moving or cancelling is O(log n) and nothing is
 * allocated per event once the pools have grown to the run's working set.
 * The sequence number is taken when an event is (re)scheduled: events at
 * the same time fire in the order they were scheduled, which makes runs
 * deterministic and same-cycle behaviour first-in first-out, as in esim.
 *
 * Also the two helpers every part of the simulator reports through (the
 * engines' names and sim_fail), kept here at the bottom so that no two
 * simulator files call each other.
 */
#include "sim/sim_int.h"

#include <stdlib.h>

void sim_q_init(sim_queue *q) { *q = (sim_queue){0}; }

void sim_q_free(sim_queue *q)
{
    free(q->ev);
    free(q->heap);
    *q = (sim_queue){0};
}

int32_t sim_q_new(sim_queue *q, int kind, int32_t obj)
{
    if (q->nev == q->capev) {
        q->capev = q->capev ? 2 * q->capev : 256;
        q->ev = lm_xrealloc(q->ev, (size_t)q->capev * sizeof *q->ev);
    }
    sim_event *e = &q->ev[q->nev];
    *e = (sim_event){.hpos = -1, .obj = obj, .kind = (uint8_t)kind};
    return q->nev++;
}

static inline bool before(const sim_hslot *x, const sim_hslot *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static inline void place(sim_queue *q, int32_t pos, sim_hslot h)
{
    q->heap[pos] = h;
    q->ev[h.e].hpos = pos;
}

static void sift_up(sim_queue *q, int32_t pos)
{
    sim_hslot h = q->heap[pos];
    while (pos > 0) {
        int32_t parent = (pos - 1) / 2;
        if (!before(&h, &q->heap[parent]))
            break;
        place(q, pos, q->heap[parent]);
        pos = parent;
    }
    place(q, pos, h);
}

static void sift_down(sim_queue *q, int32_t pos)
{
    sim_hslot h = q->heap[pos];
    for (;;) {
        int32_t c = 2 * pos + 1;
        if (c >= q->nheap)
            break;
        if (c + 1 < q->nheap && before(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!before(&q->heap[c], &h))
            break;
        place(q, pos, q->heap[c]);
        pos = c;
    }
    place(q, pos, h);
}

void sim_q_at(sim_queue *q, int32_t e, double t)
{
    LM_ASSERT(e >= 0 && e < q->nev);
    /* Times before `now` would reorder the past; a caller computing a time
     * from a rate may land a rounding error below it. */
    if (t < q->now)
        t = q->now;
    sim_event *ev = &q->ev[e];
    ev->t = t;
    ev->seq = q->seq++;
    sim_hslot h = {t, ev->seq, e};
    if (ev->hpos >= 0) {
        int32_t pos = ev->hpos;
        q->heap[pos] = h;
        sift_up(q, pos);
        sift_down(q, q->ev[e].hpos);
        return;
    }
    if (q->nheap == q->capheap) {
        q->capheap = q->capheap ? 2 * q->capheap : 256;
        q->heap = lm_xrealloc(q->heap, (size_t)q->capheap * sizeof *q->heap);
    }
    place(q, q->nheap++, h);
    sift_up(q, q->nheap - 1);
}

void sim_q_cancel(sim_queue *q, int32_t e)
{
    sim_event *ev = &q->ev[e];
    if (ev->hpos < 0)
        return;
    int32_t pos = ev->hpos;
    ev->hpos = -1;
    sim_hslot last = q->heap[--q->nheap];
    if (pos == q->nheap)
        return;
    place(q, pos, last);
    sift_up(q, pos);
    sift_down(q, q->ev[last.e].hpos);
}

int32_t sim_q_pop(sim_queue *q)
{
    if (q->nheap == 0)
        return -1;
    int32_t e = q->heap[0].e;
    q->ev[e].hpos = -1;
    sim_hslot last = q->heap[--q->nheap];
    if (q->nheap > 0) {
        place(q, 0, last);
        sift_down(q, 0);
    }
    q->now = q->ev[e].t;
    q->popped++;
    return e;
}

/* ---- names and errors ---------------------------------------------------- */

static const char *const engine_names[SIM_NENGINES] = {"reader", "unpack", "math", "pack", "writer"};

const char *sim_engine_name(sim_engine_kind k)
{
    return (unsigned)k < SIM_NENGINES ? engine_names[k] : "?";
}

void sim_fail(sim *s, const df_stmt *st, const char *fmt, ...)
{
    if (s->failed)
        return; /* the first error stops the run; later ones are its echoes */
    va_list ap;
    va_start(ap, fmt);
    lm_verror(s->d, st ? st->loc : (lm_loc){0}, fmt, ap);
    va_end(ap);
    s->failed = true;
}
