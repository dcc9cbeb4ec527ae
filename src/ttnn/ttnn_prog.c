/* ttnn_prog.c - helpers that write a kernel of a dataflow program statement
 * by statement, for TTNN's kernels written directly as dataflow programs
 * (ttnn_sdpa_prog.c, ttnn_decode_prog.c). Declared in ttnn_int.h.
 */
#include "ttnn/ttnn_int.h"

#include <stdio.h>

void tk_init(tk *t, df_program *p, df_class *c, df_kernel_kind kind)
{
    t->p = p;
    t->c = c;
    t->k = &c->kernels[kind];
    t->depth = 0;
    t->nvars = 0;
    t->failed = false;
}

const df_expr *tk_n(const tk *t, int64_t v) { return df_const(t->p, v); }
const df_expr *tk_add(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_ADD, a, b); }
const df_expr *tk_sub(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_SUB, a, b); }
const df_expr *tk_mul(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_MUL, a, b); }
const df_expr *tk_div(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_DIV, a, b); }
const df_expr *tk_mod(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_MOD, a, b); }
const df_expr *tk_min(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_MIN, a, b); }
const df_expr *tk_max(const tk *t, const df_expr *a, const df_expr *b) { return df_bin(t->p, DF_X_MAX, a, b); }
const df_expr *tk_addn(const tk *t, const df_expr *a, int64_t k) { return tk_add(t, a, tk_n(t, k)); }
const df_expr *tk_muln(const tk *t, const df_expr *a, int64_t k) { return tk_mul(t, a, tk_n(t, k)); }

void tk_put(tk *t, df_stmt *s)
{
    if (t->depth > 0)
        df_add_body(t->p, t->open[t->depth - 1], s);
    else
        df_add_stmt(t->p, t->k, s);
}

df_stmt *tk_op(tk *t, df_op op) { return df_stmt_new(t->p, op, (lm_loc){0}); }

const df_expr *tk_for(tk *t, const char *name, const df_expr *lo, const df_expr *hi)
{
    /* the kernels' nesting is fixed by their writers: deeper is a bug */
    LM_ASSERT(t->depth < TK_MAX_DEPTH);
    char var[64];
    snprintf(var, sizeof var, "%s%d", name, t->nvars++);
    df_stmt *s = df_for(t->p, t->c, var, lo, hi, NULL, (lm_loc){0});
    if (!s) {
        /* out of variable slots: the program is refused; a loop of its own
           keeps the caller's tk_end paired */
        t->failed = true;
        s = df_stmt_new(t->p, DF_FOR, (lm_loc){0});
        s->var = DF_SLOT_CX;
        s->lo = lo;
        s->hi = hi;
    } else {
        tk_put(t, s);
    }
    t->open[t->depth++] = s;
    return df_slot(t->p, s->var);
}

void tk_end(tk *t)
{
    LM_ASSERT(t->depth > 0);
    t->depth--;
}

void tk_cb(tk *t, df_op op, int cb, const df_expr *n)
{
    df_stmt *s = tk_op(t, op);
    s->cb = cb;
    s->n = n;
    tk_put(t, s);
}

void tk_read(tk *t, int tensor, const df_expr *row, const df_expr *col, const df_expr *rows, const df_expr *cols,
             int cb, const df_expr *at)
{
    df_stmt *s = tk_op(t, DF_READ);
    s->tensor = tensor;
    s->row = row;
    s->col = col;
    s->rows = rows;
    s->cols = cols;
    s->cb = cb;
    s->at = at;
    tk_put(t, s);
}

void tk_write(tk *t, int cb, const df_expr *at, int tensor, const df_expr *row, const df_expr *col,
              const df_expr *rows, const df_expr *cols)
{
    df_stmt *s = tk_op(t, DF_WRITE);
    s->cb = cb;
    s->at = at;
    s->tensor = tensor;
    s->row = row;
    s->col = col;
    s->rows = rows;
    s->cols = cols;
    tk_put(t, s);
}

void tk_barrier(tk *t, df_op op) { tk_put(t, tk_op(t, op)); }
