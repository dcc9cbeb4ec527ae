/* df_bind.c - resolving a parsed program's program-level numbers (tensor
 * sizes, semaphore initial values, class rectangles, CB pages, attention
 * geometry) after --param NAME=VALUE overrides (df_bind, df.h); called after
 * df_parse and by the lowering.
 */
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

static bool eq(const char *a, const char *s, int len) { return (int)strlen(a) == len && !memcmp(a, s, (size_t)len); }

/* Evaluate a program-level expression; reports division by zero/overflow at
 * the item that holds it. */
static bool eval_prog(const df_program *p, const int64_t *slots, const df_expr *e, lm_loc loc,
                      const char *what, lm_diag *d, int64_t *out)
{
    bool bad = false;
    LM_ASSERT(e);
    *out = df_eval_checked(e, slots, &bad);
    if (bad)
        lm_error(d, loc, "%s divides by zero or overflows", what);
    return !bad;
}

static bool in_range(int64_t v, int64_t lo, int64_t hi, lm_loc loc, const char *what, lm_diag *d)
{
    if (v >= lo && v <= hi)
        return true;
    lm_error(d, loc, "%s is %lld; it must be in %lld..%lld", what, (long long)v, (long long)lo, (long long)hi);
    return false;
}

bool df_bind(df_program *p, const char **overrides, int noverrides, lm_diag *d)
{
    int errors0 = d->nerrors;
    for (int i = 0; i < noverrides; i++) {
        const char *o = overrides[i], *e = strchr(o, '=');
        if (!e || e == o) {
            lm_error_plain(d, "bad param override '%s': expected NAME=VALUE", o);
            continue;
        }
        int nl = (int)(e - o), found = -1;
        for (int j = 0; j < p->nparams; j++)
            if (eq(p->params[j].name, o, nl))
                found = j;
        if (found < 0) {
            lm_near sg;
            lm_near_init(&sg, o, nl, LM_NEAR_NAME);
            for (int j = 0; j < p->nparams; j++)
                lm_near_offer(&sg, p->params[j].name);
            const char *near = lm_near_best(&sg);
            lm_error_plain(d, "unknown param '%.*s' in override '%s'%s", nl, o, o,
                           near ? lm_arena_printf(&p->arena, " (did you mean '%s'?)", near) : "");
            continue;
        }
        int64_t v;
        if (!lm_parse_i64(e + 1, &v) || e[1] == '+') {
            lm_error_plain(d, "bad value in param override '%s': expected an integer", o);
            continue;
        }
        p->params[found].value = v;
    }
    if (d->nerrors > errors0)
        return false;

    int64_t slots[DF_MAX_SLOTS] = {0};
    for (int i = 0; i < p->nparams; i++)
        slots[DF_SLOT_PARAM0 + i] = p->params[i].value;
    /* Bounds keep every derived figure (bytes, tile counts, cycle counts)
     * far from 64-bit overflow in the simulator. */
    const int64_t big = (int64_t)1 << 31;
    for (int i = 0; i < p->ntensors; i++) {
        df_tensor *t = &p->tensors[i];
        const char *w = lm_arena_printf(&p->arena, "rows of tensor '%s'", t->name);
        if (eval_prog(p, slots, t->rows_e, t->loc, w, d, &t->rows))
            in_range(t->rows, 1, big, t->loc, w, d);
        w = lm_arena_printf(&p->arena, "cols of tensor '%s'", t->name);
        if (eval_prog(p, slots, t->cols_e, t->loc, w, d, &t->cols))
            in_range(t->cols, 1, big, t->loc, w, d);
    }
    for (int i = 0; i < p->nsems; i++) {
        df_sem *s = &p->sems[i];
        const char *w = lm_arena_printf(&p->arena, "init of semaphore '%s'", s->name);
        if (eval_prog(p, slots, s->init_e, s->loc, w, d, &s->init))
            in_range(s->init, -big, big, s->loc, w, d);
    }
    for (int i = 0; i < p->nchecks; i++) {
        df_check *c = &p->checks[i];
        if (c->kind != DF_CHECK_ATTENTION)
            continue;
        const df_expr *e[6] = {c->batch_e, c->heads_e, c->kv_heads_e, c->seq_q_e, c->seq_k_e, c->dim_e};
        int64_t *o[6] = {&c->batch, &c->heads, &c->kv_heads, &c->seq_q, &c->seq_k, &c->dim};
        static const char *const names[6] = {"batch", "heads", "kv_heads", "seq_q", "seq_k", "dim"};
        for (int j = 0; j < 6; j++)
            if (e[j] && eval_prog(p, slots, e[j], c->loc, names[j], d, o[j]))
                in_range(*o[j], 1, big, c->loc, names[j], d);
    }
    for (int i = 0; i < p->nclasses; i++) {
        df_class *c = &p->classes[i];
        const df_expr *e[4] = {c->x0_e, c->y0_e, c->x1_e, c->y1_e};
        int *o[4] = {&c->x0, &c->y0, &c->x1, &c->y1};
        static const char *const names[4] = {"x0", "y0", "x1", "y1"};
        for (int j = 0; j < 4; j++) {
            int64_t v = 0;
            const char *w = lm_arena_printf(&p->arena, "%s of class '%s'", names[j], c->name);
            if (e[j] && eval_prog(p, slots, e[j], c->loc, w, d, &v) && in_range(v, 0, ARCH_MAX_GRID - 1, c->loc, w, d))
                *o[j] = (int)v;
        }
        if (c->x1 < c->x0 || c->y1 < c->y0)
            lm_error(d, c->loc, "class '%s' has an empty rectangle (%d,%d)-(%d,%d): x1 and y1 are inclusive "
                     "and must not be below x0 and y0", c->name, c->x0, c->y0, c->x1, c->y1);
        for (int j = 0; j < c->ncbs; j++) {
            df_cb *cb = &c->cbs[j];
            const char *w = lm_arena_printf(&p->arena, "pages of CB %d", cb->id);
            if (eval_prog(p, slots, cb->pages_e, cb->loc, w, d, &cb->pages))
                in_range(cb->pages, 1, 1 << 20, cb->loc, w, d);
        }
    }
    return d->nerrors == errors0;
}
