/* ttnn_int.h - internals shared by the files of src/ttnn/ that write TTNN's
 * kernels as dataflow programs (ttnn_prog.c: the writing helpers;
 * ttnn_sdpa_prog.c: SDPA prefill; ttnn_decode_prog.c: SDPA decode).
 *
 * A kernel is written statement by statement into the innermost open loop
 * (tk_for ... tk_end), so the C code that writes it reads like the kernel.
 * Expressions are built with the short helpers below; every one folds
 * constants (df_bin). Nothing here allocates outside the program's arena.
 */
#ifndef LOOMC_TTNN_INT_H
#define LOOMC_TTNN_INT_H

#include "df/df.h"
#include "ttnn/ttnn.h"

enum { TK_MAX_DEPTH = 24 };

/* One kernel being written. */
typedef struct tk {
    df_program *p;
    df_class *c;
    df_kernel *k;
    df_stmt *open[TK_MAX_DEPTH]; /* the loops being written, innermost last */
    int depth;
    int nvars;                   /* loop variables made, for fresh names */
    bool failed;                 /* out of variable slots or loop depth */
} tk;

void tk_init(tk *t, df_program *p, df_class *c, df_kernel_kind kind);

/* Expressions. */
const df_expr *tk_n(const tk *t, int64_t v);
const df_expr *tk_add(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_sub(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_mul(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_div(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_mod(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_min(const tk *t, const df_expr *a, const df_expr *b);
const df_expr *tk_max(const tk *t, const df_expr *a, const df_expr *b);
/* a + k, a * k with a constant */
const df_expr *tk_addn(const tk *t, const df_expr *a, int64_t k);
const df_expr *tk_muln(const tk *t, const df_expr *a, int64_t k);

/* A loop `for VAR lo hi` opened in the kernel; its variable. tk_end closes
 * the innermost loop. A loop of 0 or 1 trips is how a kernel says "if". */
const df_expr *tk_for(tk *t, const char *name, const df_expr *lo, const df_expr *hi);
void tk_end(tk *t);
/* Statement s appended where the kernel is being written. */
void tk_put(tk *t, df_stmt *s);
/* A new statement of op `op` (fields at the op table's defaults). */
df_stmt *tk_op(tk *t, df_op op);

/* The common statements. */
void tk_cb(tk *t, df_op op, int cb, const df_expr *n);
void tk_read(tk *t, int tensor, const df_expr *row, const df_expr *col, const df_expr *rows, const df_expr *cols,
             int cb, const df_expr *at);
void tk_write(tk *t, int cb, const df_expr *at, int tensor, const df_expr *row, const df_expr *col,
              const df_expr *rows, const df_expr *cols);
void tk_barrier(tk *t, df_op op);

#endif
