/* alloc.c - L1 allocation of virtual buffers: buffers whose lifetimes never
 * overlap share one slot of L1, found by colouring the interference graph of
 * their lifetimes. L1 capacity is what bounds block sizes, so the L1
 * constraint the solver sees is this allocation's size - a sum over slots of
 * the largest member - not the plain sum over buffers.
 *
 * Lifetimes are intervals of op positions (summary.c), so the interference
 * graph is an interval graph and colouring in order of start position is
 * optimal in the number of slots. Among free slots a buffer prefers one
 * whose members have the same size expression (so the slot's size stays one
 * term rather than a max of unrelated terms), then the lowest-numbered.
 */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct slot {
    int last;                 /* largest end position of its members */
    const sym_expr *bytes;    /* one member's instance size (for the preference) */
} slot;

static bool takes_space(const sched_buf *b) { return !(b->kind == SCHED_BUF_OUT && b->alias >= 0); }

int sched_alloc(sched_kernel *k)
{
    int order[SCHED_MAX_BUFS];
    int n = 0;
    for (int i = 0; i < k->nbufs; i++) {
        k->bufs[i].color = -1;
        if (takes_space(&k->bufs[i]))
            order[n++] = i;
    }
    /* insertion sort by (first, index): stable and tiny */
    for (int i = 1; i < n; i++) {
        int x = order[i], j = i - 1;
        while (j >= 0 && k->bufs[order[j]].first > k->bufs[x].first)
            order[j + 1] = order[j], j--;
        order[j + 1] = x;
    }
    slot slots[SCHED_MAX_BUFS];
    int ns = 0;
    for (int i = 0; i < n; i++) {
        sched_buf *b = &k->bufs[order[i]];
        int pick = -1;
        for (int c = 0; c < ns; c++) {
            if (slots[c].last >= b->first)
                continue; /* a member is still live */
            if (pick < 0 || (slots[c].bytes == b->bytes && slots[pick].bytes != b->bytes))
                pick = c;
        }
        if (pick < 0) {
            pick = ns++;
            slots[pick].bytes = b->bytes;
            slots[pick].last = -1;
        }
        slots[pick].last = LM_MAX(slots[pick].last, b->last);
        b->color = pick;
    }
    /* an OUT that aliases a CARRY lives in the carry's slot */
    for (int i = 0; i < k->nbufs; i++)
        if (!takes_space(&k->bufs[i]))
            k->bufs[i].color = k->bufs[k->bufs[i].alias].color;
    return ns;
}

/* Bytes of all instances of buffer b; IN and OUT depths are this launch's
 * solver variables. */
static const sym_expr *buf_l1(const sched_buf *b, sym_ctx *s, const char *prefix)
{
    const sym_expr *depth = b->depth;
    if (b->kind == SCHED_BUF_IN || b->kind == SCHED_BUF_OUT) {
        char name[256];
        snprintf(name, sizeof name, "%sdepth.%s", prefix, b->name);
        depth = sym_var(s, name);
    }
    return sym_mul(s, b->bytes, depth);
}

/* e with variable v replaced by r. */
static const sym_expr *replace(sym_ctx *s, const sym_expr *e, const sym_expr *v, const sym_expr *r)
{
    if (e == v)
        return r;
    if (e->kind == SYM_CONST || e->kind == SYM_VAR || !sym_depends_on(e, v))
        return e;
    const sym_expr *a[16];
    const sym_expr **args = e->nargs <= 16 ? a : lm_xmalloc(sizeof *args * (size_t)e->nargs);
    for (int i = 0; i < e->nargs; i++)
        args[i] = replace(s, e->args[i], v, r);
    const sym_expr *x = sym_make(s, e->kind, args, e->nargs);
    if (args != a)
        free(args);
    return x;
}

const sym_expr *sched_prefix_depths(const sched_kernel *k, const sym_expr *e, sym_ctx *s, const char *prefix)
{
    for (int i = 0; prefix && *prefix && i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT)
            continue;
        char name[256];
        snprintf(name, sizeof name, "depth.%s", b->name);
        const sym_expr *v = sym_var(s, name);
        snprintf(name, sizeof name, "%sdepth.%s", prefix, b->name);
        e = replace(s, e, v, sym_var(s, name));
    }
    return e;
}

bool sched_depth_free(const sched_kernel *k, int i, sym_ctx *s)
{
    const sched_buf *b = &k->bufs[i];
    if (b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT)
        return false;
    if (b->kind == SCHED_BUF_IN || b->alias < 0)
        return true;
    char name[256];
    snprintf(name, sizeof name, "depth.%s", b->name);
    return k->cb_bytes && sym_depends_on(k->cb_bytes, sym_var(s, name));
}

const sym_expr *sched_l1_bytes(const sched_kernel *k, sym_ctx *s, const char *prefix)
{
    if (k->cb_bytes) /* the lowering's own CBs (sched_lower_l1), with this launch's depths */
        return sched_prefix_depths(k, k->cb_bytes, s, prefix);
    int ns = 0;
    for (int i = 0; i < k->nbufs; i++)
        ns = LM_MAX(ns, k->bufs[i].color + 1);
    const sym_expr *total = sym_const(s, 0);
    for (int c = 0; c < ns; c++) {
        const sym_expr *m = NULL;
        for (int i = 0; i < k->nbufs; i++) {
            const sched_buf *b = &k->bufs[i];
            if (b->color != c || !takes_space(b))
                continue;
            const sym_expr *x = buf_l1(b, s, prefix);
            m = m ? sym_max(s, m, x) : x;
        }
        if (m)
            total = sym_add(s, total, m);
    }
    return total;
}
