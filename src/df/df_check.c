/* df_check.c - semantic checks of a bound dataflow program against a chip
 * (df_validate).
 *
 * What is checked here is everything that can be decided without running
 * the program: the layout (classes inside the grid and disjoint, CB ids and
 * L1 capacity), references (declared CBs, formats of DRAM transfers), the
 * check references' shapes, and every op operand that does not depend on a
 * loop variable, evaluated on each core of its class (block shapes, page
 * ranges within a CB, Dst capacity of matmul sub-blocks, NoC destinations
 * and multicast rectangles inside the grid, empty loops, steps). Operands
 * that depend on loop variables are checked by the simulator when the op
 * runs (docs/dataflow.md, "Checks").
 *
 * The chip's figures are read from the struct directly (l1_bytes minus
 * l1_reserved_bytes is the usable L1) so that this file needs nothing from
 * the YAML loader.
 */
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

typedef struct vctx {
    const df_program *p;
    const arch_desc *a;
    lm_diag *d;
    const df_class *c;
    int first_loop; /* first loop-variable slot of the class */
    int ncores, w;  /* cores of the class and its width */
    int64_t *slots; /* ncores x c->nslots: cx, cy, params, args (loop slots 0) */
    int dst_tiles;  /* Dst capacity of the class's accumulation mode */
    bool core_dep;  /* the statement being checked depends on cx, cy or an arg */
} vctx;

static int64_t tiles_of(int64_t elems, int tile) { return (elems + tile - 1) / tile; }

static const df_cb *find_cb(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return &c->cbs[i];
    return NULL;
}

/* ---- program-level checks ------------------------------------------------------------ */

static void check_tensors(const df_program *p, const arch_desc *a, lm_diag *d)
{
    int64_t total = 0, cap = 0;
    if (!lm_mul_ok(a->dram_bank_bytes, a->num_dram_banks, &cap))
        cap = INT64_MAX;
    for (int i = 0; i < p->ntensors; i++) {
        const df_tensor *t = &p->tensors[i];
        if (t->first_bank >= a->num_dram_banks)
            lm_error(d, t->loc, "tensor '%s': first_bank=%d but %s has %d DRAM banks", t->name, t->first_bank,
                     a->name, a->num_dram_banks);
        int64_t bytes = tiles_of(t->rows, a->tile_h) * tiles_of(t->cols, a->tile_w) * a->tile_bytes[t->format];
        if (!lm_add_ok(total, bytes, &total) || total > cap) {
            lm_error(d, t->loc, "tensor '%s' does not fit: the tensors up to it take more than the %lld bytes "
                     "of DRAM of %s", t->name, (long long)cap, a->name);
            return;
        }
    }
}

static bool same_shape(const df_tensor *t, int64_t rows, int64_t cols) { return t->rows == rows && t->cols == cols; }

static void check_checks(const df_program *p, lm_diag *d)
{
    for (int i = 0; i < p->nchecks; i++) {
        const df_check *c = &p->checks[i];
        const df_tensor *o = &p->tensors[c->out], *A = &p->tensors[c->a], *B = &p->tensors[c->b];
        if (o->role != DF_OUTPUT)
            lm_error(d, c->loc, "check: tensor '%s' is not an output (role=%s)", o->name, df_role_name(o->role));
        if (c->kind == DF_CHECK_MATMUL) {
            if (A->cols != B->rows || !same_shape(o, A->rows, B->cols))
                lm_error(d, c->loc, "check matmul: shapes do not match: %s is %lldx%lld, %s is %lldx%lld, "
                         "%s is %lldx%lld; expected out = a (MxK) times b (KxN) = MxN", o->name,
                         (long long)o->rows, (long long)o->cols, A->name, (long long)A->rows,
                         (long long)A->cols, B->name, (long long)B->rows, (long long)B->cols);
            continue;
        }
        const df_tensor *V = &p->tensors[c->c];
        int64_t qr, kr;
        if (!lm_mul_ok(c->batch, c->heads, &qr) || !lm_mul_ok(qr, c->seq_q, &qr) ||
            !lm_mul_ok(c->batch, c->kv_heads, &kr) || !lm_mul_ok(kr, c->seq_k, &kr)) {
            lm_error(d, c->loc, "check attention: batch x heads x seq overflows");
            continue;
        }
        if (c->heads % c->kv_heads != 0)
            lm_error(d, c->loc, "check attention: heads=%lld is not a multiple of kv_heads=%lld",
                     (long long)c->heads, (long long)c->kv_heads);
        const df_tensor *ts[4] = {o, A, B, V};
        const int64_t want_rows[4] = {qr, qr, kr, kr};
        static const char *const what[4] = {"out", "q", "k", "v"};
        for (int j = 0; j < 4; j++)
            if (!same_shape(ts[j], want_rows[j], c->dim))
                lm_error(d, c->loc, "check attention: %s=%s is %lldx%lld; expected %lldx%lld "
                         "(rows: batch x %s x %s, cols: dim)", what[j], ts[j]->name, (long long)ts[j]->rows,
                         (long long)ts[j]->cols, (long long)want_rows[j], (long long)c->dim,
                         j < 2 ? "heads" : "kv_heads", j < 2 ? "seq_q" : "seq_k");
    }
}

static bool check_layout(const df_program *p, const arch_desc *a, lm_diag *d)
{
    int errors0 = d->nerrors;
    int64_t usable = a->l1_bytes - a->l1_reserved_bytes;
    for (int i = 0; i < p->nclasses; i++) {
        const df_class *c = &p->classes[i];
        if (c->x1 >= a->grid_w || c->y1 >= a->grid_h)
            lm_error(d, c->loc, "class '%s' covers cores (%d,%d)-(%d,%d), outside the %dx%d core grid of %s "
                     "(x 0..%d, y 0..%d)", c->name, c->x0, c->y0, c->x1, c->y1, a->grid_w, a->grid_h, a->name,
                     a->grid_w - 1, a->grid_h - 1);
        for (int j = 0; j < i; j++) {
            const df_class *o = &p->classes[j];
            int x = LM_MAX(c->x0, o->x0), y = LM_MAX(c->y0, o->y0);
            if (x <= LM_MIN(c->x1, o->x1) && y <= LM_MIN(c->y1, o->y1)) {
                lm_error(d, c->loc, "classes '%s' and '%s' overlap: both contain core (%d,%d)", o->name, c->name,
                         x, y);
                lm_note(d, o->loc, "class '%s' is declared here", o->name);
            }
        }
        int64_t bytes = 0;
        for (int j = 0; j < c->ncbs; j++) {
            const df_cb *cb = &c->cbs[j];
            if (cb->id >= a->num_cbs)
                lm_error(d, cb->loc, "CB id %d is out of range: %s has CBs 0..%d", cb->id, a->name, a->num_cbs - 1);
            bytes += cb->pages * a->tile_bytes[cb->format]; /* pages <= 2^20: no overflow */
        }
        if (bytes > usable)
            lm_error(d, c->loc, "the CBs of class '%s' take %lld bytes of L1, more than the %lld bytes %s leaves "
                     "for CBs (%lld of L1 minus %lld reserved)", c->name, (long long)bytes, (long long)usable,
                     a->name, (long long)a->l1_bytes, (long long)a->l1_reserved_bytes);
    }
    return d->nerrors == errors0;
}

/* ---- per-core operand checks ---------------------------------------------------------- */

static void core_xy(const vctx *v, int i, int *x, int *y)
{
    *x = v->c->x0 + i % v->w;
    *y = v->c->y0 + i / v->w;
}

/* Report about statement s on core i; the core is named when the class has several. */
static void verr(const vctx *v, const df_stmt *s, int i, const char *fmt, ...) LM_PRINTF(4, 5);
static void verr(const vctx *v, const df_stmt *s, int i, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->ncores > 1 && v->core_dep) {
        int x, y;
        core_xy(v, i, &x, &y);
        lm_error(v->d, s->loc, "%s (on core (%d,%d) of class '%s')", msg, x, y, v->c->name);
    } else
        lm_error(v->d, s->loc, "%s", msg);
}

/* A static operand: one that does not depend on a loop variable. */
typedef struct sv {
    bool ok; /* static (and present) */
    int64_t v;
} sv;

static sv sval(const vctx *v, const df_expr *e, int core, bool *bad)
{
    sv r = {false, 0};
    if (!e || df_expr_uses_slots_from(e, v->first_loop))
        return r;
    r.ok = true;
    r.v = df_eval_checked(e, v->slots + (size_t)core * (size_t)v->c->nslots, bad);
    return r;
}

/* at + count pages must lie within the CB (count and at static). */
static bool pages_in(const vctx *v, const df_stmt *s, int i, int cbid, sv at, sv count, const char *what)
{
    const df_cb *cb = find_cb(v->c, cbid);
    if (!cb || !at.ok || !count.ok)
        return true;
    if (at.v < 0 || at.v > cb->pages - count.v) {
        verr(v, s, i, "%s: pages %lld..%lld of CB %d, which has %lld pages", what, (long long)at.v,
             (long long)(at.v + count.v - 1), cbid, (long long)cb->pages);
        return false;
    }
    return true;
}

static bool positive(const vctx *v, const df_stmt *s, int i, sv x, const char *key)
{
    if (x.ok && x.v < 1) {
        verr(v, s, i, "%s: %s=%lld; it must be at least 1", df_ops[s->op].name, key, (long long)x.v);
        return false;
    }
    return true;
}

/* A DRAM move of no rows or no columns (a count of 0 or less, known here):
 * a block wholly past a boundary check's extent, which moves nothing. */
static bool moves_nothing(sv rows, sv cols) { return (rows.ok && rows.v < 1) || (cols.ok && cols.v < 1); }

static bool in_grid(const vctx *v, const df_stmt *s, int i, sv x, sv y)
{
    if (x.ok && y.ok && (x.v < 0 || x.v >= v->a->grid_w || y.v < 0 || y.v >= v->a->grid_h)) {
        verr(v, s, i, "%s: core (%lld,%lld) is outside the %dx%d core grid", df_ops[s->op].name, (long long)x.v,
             (long long)y.v, v->a->grid_w, v->a->grid_h);
        return false;
    }
    return true;
}

static bool rect_in_grid(const vctx *v, const df_stmt *s, int i, sv x0, sv y0, sv x1, sv y1)
{
    if (!(x0.ok && y0.ok && x1.ok && y1.ok))
        return true;
    if (x1.v < x0.v || y1.v < y0.v) {
        verr(v, s, i, "%s: empty rectangle (%lld,%lld)-(%lld,%lld); x1 and y1 are inclusive", df_ops[s->op].name,
             (long long)x0.v, (long long)y0.v, (long long)x1.v, (long long)y1.v);
        return false;
    }
    return in_grid(v, s, i, x0, y0) && in_grid(v, s, i, x1, y1);
}

/* A transaction id the chip's NoC counts: 0 (untagged, or every read for a
 * barrier) to its max_transaction_ids (at most DF_MAX_TRID). */
static bool trid_in_range(const vctx *v, const df_stmt *s, int i, sv trid)
{
    int most = LM_MIN(DF_MAX_TRID, v->a->max_transaction_ids);
    if (trid.ok && (trid.v < 0 || trid.v > most)) {
        verr(v, s, i, "%s: transaction id %lld is outside 0..%d", df_ops[s->op].name, (long long)trid.v, most);
        return false;
    }
    return true;
}

static sv mul(sv a, sv b)
{
    sv r = {a.ok && b.ok, 0};
    if (r.ok && !lm_mul_ok(a.v, b.v, &r.v))
        r.ok = false;
    return r;
}

/* Checks of statement s on core i; false after the first report (one
 * message per statement is enough). */
static bool check_at(const vctx *v, const df_stmt *s, int i)
{
    bool bad = false;
    sv n = sval(v, s->n, i, &bad), at = sval(v, s->at, i, &bad), at_b = sval(v, s->at_b, i, &bad);
    sv at_out = sval(v, s->at_out, i, &bad), rows = sval(v, s->rows, i, &bad), cols = sval(v, s->cols, i, &bad);
    sv m = sval(v, s->m, i, &bad), k = sval(v, s->k, i, &bad), nn = sval(v, s->nn, i, &bad);
    sv sh = sval(v, s->sub_h, i, &bad), sw = sval(v, s->sub_w, i, &bad);
    sv x = sval(v, s->x, i, &bad), y = sval(v, s->y, i, &bad), dst_at = sval(v, s->dst_at, i, &bad);
    sv x0 = sval(v, s->x0, i, &bad), y0 = sval(v, s->y0, i, &bad);
    sv x1 = sval(v, s->x1, i, &bad), y1 = sval(v, s->y1, i, &bad);
    sv row = sval(v, s->row, i, &bad), col = sval(v, s->col, i, &bad);
    sv step = sval(v, s->step, i, &bad), trid = sval(v, s->trid, i, &bad);
    if (bad) {
        verr(v, s, i, "an operand of '%s' divides by zero or overflows", df_ops[s->op].name);
        return false;
    }
    const char *name = df_ops[s->op].name;
    sv block = mul(rows, cols);
    const df_cb *cb = find_cb(v->c, s->cb);
    switch (s->op) {
    case DF_FOR:
        if (step.ok && step.v < 1) {
            verr(v, s, i, "for: step=%lld; it must be at least 1", (long long)step.v);
            return false;
        }
        return true;
    case DF_CB_RESERVE:
    case DF_CB_PUSH:
    case DF_CB_WAIT:
    case DF_CB_POP:
        if (!positive(v, s, i, n, "n"))
            return false;
        if (cb && n.ok && n.v > cb->pages) {
            verr(v, s, i, "%s of %lld pages can never complete: CB %d has %lld pages", name, (long long)n.v,
                 s->cb, (long long)cb->pages);
            return false;
        }
        return true;
    case DF_READ_BARRIER:
        return trid_in_range(v, s, i, trid);
    case DF_READ:
    case DF_WRITE: {
        if (!trid_in_range(v, s, i, trid))
            return false;
        if (moves_nothing(rows, cols))
            return true;
        if (!pages_in(v, s, i, s->cb, at, block, name))
            return false;
        const df_tensor *t = &v->p->tensors[s->tensor];
        int64_t tr = tiles_of(t->rows, v->a->tile_h), tc = tiles_of(t->cols, v->a->tile_w);
        if ((row.ok && (row.v < 0 || (rows.ok && row.v > tr - rows.v))) ||
            (col.ok && (col.v < 0 || (cols.ok && col.v > tc - cols.v)))) {
            verr(v, s, i, "%s: tile block at (%lld,%lld) of %lldx%lld tiles is outside tensor '%s' (%lldx%lld tiles)",
                 name, (long long)row.v, (long long)col.v, (long long)(rows.ok ? rows.v : 1),
                 (long long)(cols.ok ? cols.v : 1), t->name, (long long)tr, (long long)tc);
            return false;
        }
        return true;
    }
    case DF_SEND:
        return positive(v, s, i, n, "n") && pages_in(v, s, i, s->cb, at, n, name) &&
               pages_in(v, s, i, s->cb, dst_at, n, "send destination") && in_grid(v, s, i, x, y);
    case DF_MCAST:
        return positive(v, s, i, n, "n") && pages_in(v, s, i, s->cb, at, n, name) &&
               pages_in(v, s, i, s->cb, dst_at, n, "mcast destination") && rect_in_grid(v, s, i, x0, y0, x1, y1);
    case DF_SEM_INC:
        return in_grid(v, s, i, x, y);
    case DF_SEM_MCAST:
        return rect_in_grid(v, s, i, x0, y0, x1, y1);
    case DF_MATMUL:
        if (!positive(v, s, i, m, "m") || !positive(v, s, i, k, "k") || !positive(v, s, i, nn, "nn") ||
            !positive(v, s, i, sh, "sub_h") || !positive(v, s, i, sw, "sub_w"))
            return false;
        if (sh.ok && sw.ok && sh.v * sw.v > v->dst_tiles) {
            verr(v, s, i, "matmul: a %lldx%lld sub-block needs %lld Dst tiles; Dst holds %d with fp32_acc=%d",
                 (long long)sh.v, (long long)sw.v, (long long)(sh.v * sw.v), v->dst_tiles, (int)v->c->fp32_acc);
            return false;
        }
        if ((m.ok && sh.ok && m.v % sh.v) || (nn.ok && sw.ok && nn.v % sw.v)) {
            verr(v, s, i, "matmul: the %lldx%lld output block is not a whole number of %lldx%lld sub-blocks",
                 (long long)m.v, (long long)nn.v, (long long)sh.v, (long long)sw.v);
            return false;
        }
        return pages_in(v, s, i, s->cb, at, mul(m, k), "matmul a") &&
               pages_in(v, s, i, s->cb_b, at_b, mul(k, nn), "matmul b") &&
               pages_in(v, s, i, s->cb_out, at_out, mul(m, nn), "matmul out");
    case DF_ELTWISE: {
        if (!positive(v, s, i, rows, "rows") || !positive(v, s, i, cols, "cols"))
            return false;
        /* the broadcast operand holds one tile per tile row (col), per tile
         * column (row) or a single tile (scalar) */
        sv bn = s->bcast == DF_BC_COL ? rows : s->bcast == DF_BC_ROW ? cols : block;
        if (s->bcast == DF_BC_SCALAR)
            bn = (sv){true, 1};
        return pages_in(v, s, i, s->cb, at, block, "eltwise a") && pages_in(v, s, i, s->cb_b, at_b, bn, "eltwise b") &&
               pages_in(v, s, i, s->cb_out, at_out, block, "eltwise out");
    }
    case DF_REDUCE:
        return positive(v, s, i, rows, "rows") && positive(v, s, i, cols, "cols") &&
               pages_in(v, s, i, s->cb, at, block, "reduce a") && pages_in(v, s, i, s->cb_out, at_out, rows, "reduce out");
    case DF_SFPU:
    case DF_COPY:
        return positive(v, s, i, n, "n") && pages_in(v, s, i, s->cb, at, n, name) &&
               pages_in(v, s, i, s->cb_out, at_out, n, name);
    case DF_FILL:
        return positive(v, s, i, n, "n") && pages_in(v, s, i, s->cb_out, at_out, n, name);
    case DF_TRANSPOSE:
        return positive(v, s, i, rows, "rows") && positive(v, s, i, cols, "cols") &&
               pages_in(v, s, i, s->cb, at, block, "transpose a") &&
               pages_in(v, s, i, s->cb_out, at_out, block, "transpose out");
    case DF_READ_ELEMS:
    case DF_WRITE_ELEMS:
        return trid_in_range(v, s, i, trid);
    case DF_SEND_ELEMS:
        return positive(v, s, i, rows, "rows") && positive(v, s, i, cols, "cols") && in_grid(v, s, i, x, y);
    case DF_MASK:
        return positive(v, s, i, rows, "rows") && positive(v, s, i, cols, "cols") &&
               pages_in(v, s, i, s->cb, at, block, "mask a") && pages_in(v, s, i, s->cb_out, at_out, block, "mask out");
    case DF_ROWMAX: {
        /* the last tile of the block: row rows-1, column cols-1 */
        sv rs = sval(v, s->rs, i, &bad), bw = sval(v, s->bw, i, &bad), bs = sval(v, s->bs, i, &bad);
        if (bad || !positive(v, s, i, rows, "rows") || !positive(v, s, i, cols, "cols"))
            return false;
        if ((rs.ok && rs.v < 0) || (bw.ok && bw.v < 0) || (bs.ok && bs.v < 0)) {
            verr(v, s, i, "rowmax: rs, bw and bs must not be negative");
            return false;
        }
        sv span = {false, 0};
        if (rows.ok && cols.ok && rs.ok && bw.ok && bs.ok) {
            int64_t R = rs.v ? rs.v : cols.v, W = bw.v ? bw.v : cols.v, S = bs.v ? bs.v : W;
            int64_t c = cols.v - 1;
            span = (sv){true, (rows.v - 1) * R + (c / W) * S + c % W + 1};
        }
        return pages_in(v, s, i, s->cb, at, span, "rowmax a") &&
               (s->cb_b < 0 || pages_in(v, s, i, s->cb_b, at_b, rows, "rowmax b")) &&
               pages_in(v, s, i, s->cb_out, at_out, rows, "rowmax out");
    }
    case DF_CHAIN:
    case DF_PCHAIN:
        if (!positive(v, s, i, rows, "rows") || !positive(v, s, i, cols, "cols") ||
            !pages_in(v, s, i, s->cb, at, block, "chain a") || !pages_in(v, s, i, s->cb_out, at_out, block, "chain out"))
            return false;
        if (s->op == DF_PCHAIN && s->cb_sum >= 0) {
            sv at_sum = sval(v, s->at_sum, i, &bad);
            if (bad || !pages_in(v, s, i, s->cb_sum, at_sum, rows, "pchain sum"))
                return false;
        }
        /* a binary step unpacks its operand as eltwise's b */
        for (int j = 0; j < s->nbody; j++) {
            const df_stmt *st = s->body[j];
            if (st->op != DF_ELTWISE)
                continue;
            sv sab = sval(v, st->at_b, i, &bad);
            sv bn = st->bcast == DF_BC_COL ? rows : st->bcast == DF_BC_ROW ? cols : block;
            if (st->bcast == DF_BC_SCALAR)
                bn = (sv){true, 1};
            if (bad) {
                verr(v, s, i, "an operand of a step of 'chain' divides by zero or overflows");
                return false;
            }
            if (!pages_in(v, st, i, st->cb_b, sab, bn, "chain step b"))
                return false;
        }
        return true;
    default:
        return true;
    }
}

/* The two names of a swap stand for each other's pages from then on, so
 * every op that uses either must find the same ring under both. */
static void check_swap(const vctx *v, const df_stmt *s)
{
    const df_cb *a = find_cb(v->c, s->cb), *b = find_cb(v->c, s->cb_b);
    if (s->cb == s->cb_b)
        lm_error(v->d, s->loc, "cb_swap of CB %d with itself", s->cb);
    else if (a && b && (a->format != b->format || a->pages != b->pages))
        lm_error(v->d, s->loc, "cb_swap: CB %d (%lld %s pages) and CB %d (%lld %s pages) must have one format and "
                 "size", a->id, (long long)a->pages, df_format_name(a->format), b->id, (long long)b->pages,
                 df_format_name(b->format));
}

/* Whether statement s (or a step of it) names CB id. */
static bool names_cb(const df_stmt *s, int id)
{
    if (s->cb == id || s->cb_b == id || (s->op != DF_SEND_ELEMS && s->cb_out == id))
        return true;
    for (int k = 0; k < s->nbody; k++)
        if (names_cb(s->body[k], id))
            return true;
    return false;
}

/* The first statement of body (at any depth) that names CB id. */
static const df_stmt *find_use(df_stmt *const *body, int n, int id)
{
    for (int j = 0; j < n; j++) {
        const df_stmt *s = body[j];
        if (names_cb(s, id))
            return s;
        const df_stmt *in = s->op == DF_FOR ? find_use(s->body, s->nbody, id) : NULL;
        if (in)
            return in;
    }
    return NULL;
}

/* A swap renames CBs in its own kernel only: the other kernels of the
 * class would reach the other ring, so they must not use either CB. */
static void check_swap_scope(const df_class *c, int k, df_stmt *const *body, int n, lm_diag *d)
{
    for (int j = 0; j < n; j++) {
        const df_stmt *s = body[j];
        if (s->op == DF_FOR)
            check_swap_scope(c, k, s->body, s->nbody, d);
        if (s->op != DF_CB_SWAP)
            continue;
        for (int o = 0; o < DF_NKERNELS; o++) {
            for (int m = 0; m < 2 && o != k; m++) {
                int id = m ? s->cb_b : s->cb;
                const df_stmt *use = find_use(c->kernels[o].body, c->kernels[o].nbody, id);
                if (use)
                    lm_error(d, use->loc, "CB %d of class '%s' is swapped by its %s kernel, so its %s kernel cannot "
                             "use it", id, c->name, df_kernel_name((df_kernel_kind)k), df_kernel_name((df_kernel_kind)o));
            }
        }
    }
}

/* A support CB is a declared CB of its format and size, which no op
 * names: the card's compute kernel fills and reads it itself. */
static void check_support(const df_class *c, lm_diag *d)
{
    for (int s = 0; s < DF_NSUPPORT; s++) {
        int id = c->support[s];
        if (id < 0)
            continue;
        const df_cb *cb = find_cb(c, id);
        if (!cb) {
            lm_error(d, c->loc, "%s=%d of class '%s': CB %d is not declared", df_support_names[s], id, c->name, id);
            continue;
        }
        if (cb->format != df_support_format[s] || cb->pages != df_support_pages[s])
            lm_error(d, cb->loc, "%s=%d of class '%s': the CB must hold %d %s page%s, not %lld %s", df_support_names[s],
                     id, c->name, df_support_pages[s], df_format_name(df_support_format[s]),
                     df_support_pages[s] > 1 ? "s" : "", (long long)cb->pages, df_format_name(cb->format));
        for (int o = 0; o < s; o++)
            if (c->support[o] == id)
                lm_error(d, c->loc, "%s=%d and %s=%d of class '%s' name one CB", df_support_names[o], id,
                         df_support_names[s], id, c->name);
        for (int k = 0; k < DF_NKERNELS; k++) {
            const df_stmt *use = find_use(c->kernels[k].body, c->kernels[k].nbody, id);
            if (use)
                lm_error(d, use->loc, "CB %d of class '%s' is its %s CB, which no op may name", id, c->name,
                         df_support_names[s]);
        }
    }
}

/* Checks that do not depend on the core. */
static void check_refs(const vctx *v, const df_stmt *s)
{
    /* send_elems names the destination core's CB in cb_out: the simulator
       checks it there */
    const int ids[3] = {s->cb, s->cb_b, s->op == DF_SEND_ELEMS ? -1 : s->cb_out};
    for (int j = 0; j < 3; j++) {
        bool dup = false;
        for (int k = 0; k < j; k++)
            dup |= ids[k] == ids[j];
        if (ids[j] >= 0 && !dup && !find_cb(v->c, ids[j]))
            lm_error(v->d, s->loc, "CB %d is not declared in class '%s'", ids[j], v->c->name);
    }
    if ((s->op == DF_READ || s->op == DF_WRITE || s->op == DF_READ_ELEMS || s->op == DF_WRITE_ELEMS) &&
        s->tensor >= 0) {
        const df_cb *cb = find_cb(v->c, s->cb);
        const df_tensor *t = &v->p->tensors[s->tensor];
        if (cb && cb->format != t->format)
            lm_error(v->d, s->loc, "%s: tensor '%s' is %s but CB %d holds %s pages; DRAM transfers copy tiles "
                     "unchanged", df_ops[s->op].name, t->name, df_format_name(t->format), cb->id,
                     df_format_name(cb->format));
    }
    if (s->op == DF_SFPU && s->exact && s->sub != DF_EXP && s->sub != DF_EXP2)
        lm_error(v->d, s->loc, "sfpu: exact=1 applies to op=exp and op=exp2 only");
    if (s->op == DF_CB_SWAP)
        check_swap(v, s);
    if (s->op == DF_REDUCE && s->fold && s->sub != DF_RSUM)
        lm_error(v->d, s->loc, "reduce: fold=1 applies to op=sum only (the matrix engine adds tiles, it has no element-wise max)");
    if (s->op == DF_PCHAIN && s->cb_sum >= 0 && !find_cb(v->c, s->cb_sum))
        lm_error(v->d, s->loc, "CB %d is not declared in class '%s'", s->cb_sum, v->c->name);
    if (s->op == DF_PCHAIN && s->cb_sum >= 0 && s->cb_sum == s->cb_out)
        lm_error(v->d, s->loc, "pchain: sum=%d is its output CB; the row sums need a CB of their own", s->cb_sum);
    if (!df_has_steps(s->op))
        return;
    for (int j = 0; j < s->nbody; j++) {
        const df_stmt *st = s->body[j];
        if (st->op == DF_ELTWISE && st->cb_b >= 0 && !find_cb(v->c, st->cb_b))
            lm_error(v->d, st->loc, "CB %d is not declared in class '%s'", st->cb_b, v->c->name);
        if (st->op == DF_ELTWISE && st->rev && st->bcast != DF_BC_NONE)
            lm_error(v->d, st->loc, "eltwise step: rev=1 takes the Dst value as the second operand, which the "
                     "matrix engine cannot pair with a broadcast first operand (bcast=%s)", df_bcast_name((df_bcast)st->bcast));
        if (st->op == DF_SFPU && st->exact && st->sub != DF_EXP && st->sub != DF_EXP2)
            lm_error(v->d, st->loc, "sfpu: exact=1 applies to op=exp and op=exp2 only");
    }
}

static void check_loop_nonempty(const vctx *v, const df_stmt *s)
{
    /* Empty on some cores is a legitimate way to give edge cores less
     * work; empty on every core is a mistake. */
    bool all_static = true, any_runs = false, bad = false;
    for (int i = 0; i < v->ncores && all_static; i++) {
        sv lo = sval(v, s->lo, i, &bad), hi = sval(v, s->hi, i, &bad);
        all_static = lo.ok && hi.ok;
        any_runs |= all_static && lo.v < hi.v;
    }
    if (all_static && !any_runs && !bad) {
        sv lo = sval(v, s->lo, 0, &bad), hi = sval(v, s->hi, 0, &bad);
        lm_error(v->d, s->loc, "for: the loop is empty on every core of class '%s' (lo=%lld, hi=%lld%s)",
                 v->c->name, (long long)lo.v, (long long)hi.v, v->ncores > 1 && v->core_dep ? " on the first core" : "");
    }
}

/* Whether e reads cx, cy or an argument (not only params and loop variables). */
static bool uses_core(const vctx *v, const df_expr *e)
{
    if (!e || e->kind == DF_X_CONST)
        return false;
    if (e->kind == DF_X_VAR)
        return e->slot < DF_SLOT_PARAM0 || (e->slot >= DF_SLOT_PARAM0 + v->p->nparams && e->slot < v->first_loop);
    return uses_core(v, e->a) || uses_core(v, e->b);
}

/* live[i]: core i of the class reaches these statements - no enclosing loop
 * is statically empty there. A loop of zero trips is how the lowering
 * guards a block a core does not take part in (an idle core of a partial
 * wave), so its operands are only checked on the cores that run it. */
static void check_body(vctx *v, df_stmt *const *body, int n, const bool *live)
{
    for (int j = 0; j < n; j++) {
        const df_stmt *s = body[j];
        const df_opinfo *oi = &df_ops[s->op];
        v->core_dep = false;
        for (int f = 0; f < oi->nfields; f++)
            if (oi->fields[f].kind == DF_F_EXPR)
                v->core_dep |= uses_core(v, *(const df_expr *const *)((const char *)s + oi->fields[f].offset));
        for (int k = 0; df_has_steps(s->op) && k < s->nbody; k++) {
            const df_opinfo *si = df_step_info(s->body[k]->op);
            for (int f = 0; si && f < si->nfields; f++)
                if (si->fields[f].kind == DF_F_EXPR)
                    v->core_dep |=
                        uses_core(v, *(const df_expr *const *)((const char *)s->body[k] + si->fields[f].offset));
        }
        check_refs(v, s);
        for (int i = 0; i < v->ncores; i++)
            if (live[i] && !check_at(v, s, i))
                break;
        if (s->op == DF_FOR) {
            check_loop_nonempty(v, s);
            bool *inner = lm_xcalloc((size_t)v->ncores, sizeof *inner);
            for (int i = 0; i < v->ncores; i++) {
                bool bad = false;
                sv lo = sval(v, s->lo, i, &bad), hi = sval(v, s->hi, i, &bad);
                inner[i] = live[i] && !(!bad && lo.ok && hi.ok && lo.v >= hi.v);
            }
            check_body(v, s->body, s->nbody, inner);
            free(inner);
        }
    }
}

static void check_class(const df_program *p, const arch_desc *a, const df_class *c, lm_diag *d)
{
    vctx v = {p, a, d, c, DF_SLOT_PARAM0 + p->nparams + c->nargs, 0, 0, NULL, 0, false};
    v.w = c->x1 - c->x0 + 1;
    v.ncores = v.w * (c->y1 - c->y0 + 1);
    v.dst_tiles = c->fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
    v.slots = lm_xcalloc((size_t)v.ncores * (size_t)c->nslots, sizeof *v.slots);
    for (int i = 0; i < v.ncores; i++) {
        int64_t *sl = v.slots + (size_t)i * (size_t)c->nslots;
        int x, y;
        core_xy(&v, i, &x, &y);
        sl[DF_SLOT_CX] = x;
        sl[DF_SLOT_CY] = y;
        for (int j = 0; j < p->nparams; j++)
            sl[DF_SLOT_PARAM0 + j] = p->params[j].value;
        for (int j = 0; j < c->nargs; j++) {
            bool bad = false;
            int slot = DF_SLOT_PARAM0 + p->nparams + j;
            sl[slot] = df_eval_checked(c->args[j], sl, &bad);
            if (bad) {
                lm_error(d, c->loc, "argument '%s' of class '%s' divides by zero or overflows on core (%d,%d)",
                         c->slot_names[slot], c->name, x, y);
                free(v.slots);
                return;
            }
        }
    }
    bool *live = lm_xcalloc((size_t)v.ncores, sizeof *live);
    for (int i = 0; i < v.ncores; i++)
        live[i] = true;
    for (int k = 0; k < DF_NKERNELS; k++)
        check_body(&v, c->kernels[k].body, c->kernels[k].nbody, live);
    for (int k = 0; k < DF_NKERNELS; k++)
        check_swap_scope(c, k, c->kernels[k].body, c->kernels[k].nbody, d);
    check_support(c, d);
    free(live);
    free(v.slots);
}

bool df_validate(const df_program *p, const arch_desc *a, lm_diag *d)
{
    int errors0 = d->nerrors;
    check_tensors(p, a, d);
    check_checks(p, d);
    /* per-core checks assume the classes are inside the grid */
    if (!check_layout(p, a, d))
        return false;
    for (int i = 0; i < p->nclasses; i++)
        check_class(p, a, &p->classes[i], d);
    return d->nerrors == errors0;
}
