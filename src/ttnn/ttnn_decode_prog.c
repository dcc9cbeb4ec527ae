/* ttnn_decode_prog.c - TTNN's SDPA decode kernels (flash decode) written
 * directly as a dataflow program: every active core's reader, compute and
 * writer as the decode program factory sets them up for the config
 * ttnn_sdpa_decode_default chose, the tree reduction of the partial
 * results over the NoC included. Not loomc's lowering of
 * kernels/flash_decode.py: the comparison times TTNN's own kernels.
 *
 * The kernels follow tt-metal's ttnn/cpp/ttnn/operations/transformer/
 * sdpa_decode (device/sdpa_decode_program_factory.cpp; kernels/compute/
 * sdpa_flash_decode.cpp with the SDPA compute_common.hpp;
 * kernels/dataflow/reader_decode_all.cpp, writer_decode_all.cpp;
 * rt_args_common.hpp's get_workload_for_core; tree_reduction.hpp), read
 * as facts; docs/baselines.md lists what is reproduced and what is not.
 * Each core has a class of its own: its role (batch, kv head, rank in the
 * head's group of workers, parent and children in the tree) is a set of
 * constants, as the factory's runtime arguments are.
 *
 * Per K chunk of the core's range: Q K^T, the row maximum (the tile-by-tile
 * reduction, maxed with the previous one), exp((s - max) * scale) in place
 * on the math thread, the row sums, P V, and from the second chunk the
 * rescaling of the previous output and sums. Then per round of the tree:
 * a child's output, maximum and sums arrive over the NoC and are folded in;
 * the root normalises and writes the heads, the others send theirs to
 * their parent.
 */
#include "ttnn/ttnn_int.h"

#include <stdio.h>
#include <string.h>

/* CB ids of the decode factory (sdpa_flash_decode.cpp), and a sync CB. */
enum {
    CB_Q = 0, CB_K = 1, CB_V = 2, CB_COLID = 5, CB_SYNC = 8, CB_INPLACE = 9, CB_OUT_O = 16, CB_OUT_M = 17, CB_OUT_L = 18,
    CB_FINAL = 20, CB_SUM2 = 21, CB_DIFF2 = 22, CB_ACC2 = 23, CB_QK = 24, CB_OUT_IM = 25, CB_ACC = 26,
    CB_CUR_MAX = 27, CB_PREV_MAX = 28, CB_CUR_SUM = 29, CB_PREV_SUM = 30, CB_DIFF = 31,
};

typedef struct dctx {
    const ttnn_decode_config *cfg;
    const ttnn_kernel_io *io;
    const arch_desc *a;
    int tq, tk, tv, to;
    int sem_ready, sem_arrived;
    int64_t St;
    int Sk, Dt, R;        /* K chunk tiles, head dim tiles, Q tile rows (PNHt) */
    int qkw, pvw;         /* sub-block widths (one tile row high) */
    int thr;              /* tiles read between read barriers */
    int64_t nchunks;      /* of the whole cache */
} dctx;

/* One core's role: what the factory's runtime arguments say. */
typedef struct drole {
    int core, x, y;
    int batch, kvh0, rank;
    int64_t k0, k1;                   /* K chunk range */
    bool root;
    int parent;                       /* core index, -1: none */
    int child[TTNN_TREE_MAX_ROUNDS];  /* core index per round, -1: none */
    int rounds;
} drole;

/* Rows of a [B, H, D] tensor in the job's DRAM layout (whole tiles), and
 * the row of head h of batch b: folded, B x H rows padded once; else each
 * batch's H rows padded. */
static int64_t qo_rows(const ttnn_kernel_io *io, bool fold)
{
    return fold ? (io->B * io->H + 31) / 32 * 32 : io->B * ((io->H + 31) / 32 * 32);
}

static int64_t qo_row(const ttnn_kernel_io *io, bool fold, int64_t b, int64_t h)
{
    return (fold ? b * io->H : b * ((io->H + 31) / 32 * 32)) + h;
}

static void put_copy(tk *t, int a, int out, int64_t n)
{
    df_stmt *c = tk_op(t, DF_COPY);
    c->cb = a;
    c->cb_out = out;
    c->n = tk_n(t, n);
    tk_put(t, c);
}

/* move_block: n tiles from the front of a to a new block of out. */
static void move(tk *t, int a, int out, int64_t n)
{
    tk_cb(t, DF_CB_WAIT, a, tk_n(t, n));
    tk_cb(t, DF_CB_RESERVE, out, tk_n(t, n));
    put_copy(t, a, out, n);
    tk_cb(t, DF_CB_PUSH, out, tk_n(t, n));
    tk_cb(t, DF_CB_POP, a, tk_n(t, n));
}

/* An update in place is seen by the ops after it once the packer has
 * written it: the kernel pops and re-pushes the CB, so its next reader
 * waits for the push; here a one-page CB pushed by pack and waited for by
 * unpack. */
static void inplace_done(tk *t)
{
    tk_cb(t, DF_CB_RESERVE, CB_INPLACE, tk_n(t, 1));
    tk_cb(t, DF_CB_PUSH, CB_INPLACE, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, CB_INPLACE, tk_n(t, 1));
    tk_cb(t, DF_CB_POP, CB_INPLACE, tk_n(t, 1));
}

/* A pchain over rows x cols tiles of `a` with one element-wise step
 * (op, b, bcast) into `out`: in place at a's front when out == a. */
static df_stmt *elt(tk *t, int a, int rows, int cols, df_eltop op, int b, df_bcast bc, int out)
{
    df_stmt *p = tk_op(t, DF_PCHAIN);
    p->cb = a;
    p->cb_out = out;
    p->front = out == a;
    p->rows = tk_n(t, rows);
    p->cols = tk_n(t, cols);
    df_stmt *s = df_step_new(t->p, DF_ELTWISE, (lm_loc){0});
    s->sub = op;
    s->cb_b = b;
    s->bcast = bc;
    df_add_body(t->p, p, s);
    tk_put(t, p);
    return p;
}

/* exp((a - b) * scale) of n tiles into out, column 0 (sub_exp_block). */
static void sub_exp_col(tk *t, const dctx *x, int a, int b, int out, int n)
{
    tk_cb(t, DF_CB_RESERVE, out, tk_n(t, n));
    df_stmt *p = elt(t, a, n, 1, DF_SUB, b, DF_BC_NONE, out);
    p->col0 = true;
    p->scalar = x->io->scale;
    df_stmt *e = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    e->sub = DF_EXP;
    df_add_body(t->p, p, e);
    tk_cb(t, DF_CB_PUSH, out, tk_n(t, n));
}

/* ---- compute: the flash loop over the core's K chunks ---------------------------- */

static void reduce_rows(tk *t, const dctx *x, df_redop op, int out)
{
    df_stmt *r = tk_op(t, DF_REDUCE);
    r->sub = op;
    r->cb = CB_QK;
    r->cb_out = out;
    r->rows = tk_n(t, x->R);
    r->cols = tk_n(t, x->Sk);
    tk_put(t, r);
}

static void matmul(tk *t, int a, int b, int out, int m, int k, int nn, int sw, bool trans)
{
    df_stmt *mm = tk_op(t, DF_MATMUL);
    mm->cb = a;
    mm->cb_b = b;
    mm->cb_out = out;
    mm->m = tk_n(t, m);
    mm->k = tk_n(t, k);
    mm->nn = tk_n(t, nn);
    mm->sub_w = tk_n(t, sw);
    mm->trans_b = trans;
    tk_put(t, mm);
}

/* One K chunk; `first` the core's first (no previous statistics). */
static void flash_chunk(tk *t, const dctx *x, bool first)
{
    int R = x->R, qk = x->R * x->Sk, out = x->R * x->Dt;
    int64_t kv = (int64_t)x->Sk * x->Dt;
    tk_cb(t, DF_CB_WAIT, CB_K, tk_n(t, kv));
    tk_cb(t, DF_CB_RESERVE, CB_QK, tk_n(t, qk));
    matmul(t, CB_Q, CB_K, CB_QK, R, x->Dt, x->Sk, x->qkw, true);
    tk_cb(t, DF_CB_PUSH, CB_QK, tk_n(t, qk));
    tk_cb(t, DF_CB_POP, CB_K, tk_n(t, kv));
    tk_cb(t, DF_CB_WAIT, CB_QK, tk_n(t, qk));
    /* cur_max = max(prev_max, the rows' maxima) */
    tk_cb(t, DF_CB_RESERVE, CB_CUR_MAX, tk_n(t, R));
    reduce_rows(t, x, DF_RMAX, CB_CUR_MAX);
    tk_cb(t, DF_CB_PUSH, CB_CUR_MAX, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_CUR_MAX, tk_n(t, R));
    if (!first) {
        elt(t, CB_CUR_MAX, R, 1, DF_MAXOP, CB_PREV_MAX, DF_BC_NONE, CB_CUR_MAX);
        inplace_done(t);
    }
    /* QK = exp((QK - cur_max) * scale) in place, on the math thread */
    df_stmt *p = elt(t, CB_QK, R, x->Sk, DF_SUB, CB_CUR_MAX, DF_BC_COL, CB_QK);
    p->scalar = x->io->scale;
    df_stmt *e = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    e->sub = DF_EXP;
    df_add_body(t->p, p, e);
    inplace_done(t);
    /* cur_sum = the rows' sums */
    tk_cb(t, DF_CB_RESERVE, CB_CUR_SUM, tk_n(t, R));
    reduce_rows(t, x, DF_RSUM, CB_CUR_SUM);
    tk_cb(t, DF_CB_PUSH, CB_CUR_SUM, tk_n(t, R));
    /* P V into the accumulator (first chunk) or the chunk's product */
    int mm_out = first ? CB_ACC : CB_OUT_IM;
    tk_cb(t, DF_CB_WAIT, CB_V, tk_n(t, kv));
    tk_cb(t, DF_CB_RESERVE, mm_out, tk_n(t, out));
    matmul(t, CB_QK, CB_V, mm_out, R, x->Sk, x->Dt, x->pvw, false);
    tk_cb(t, DF_CB_PUSH, mm_out, tk_n(t, out));
    tk_cb(t, DF_CB_POP, CB_V, tk_n(t, kv));
    tk_cb(t, DF_CB_POP, CB_QK, tk_n(t, qk));
    if (!first) {
        /* the lazy softmax correction */
        tk_cb(t, DF_CB_WAIT, CB_PREV_MAX, tk_n(t, R));
        sub_exp_col(t, x, CB_PREV_MAX, CB_CUR_MAX, CB_DIFF, R);
        tk_cb(t, DF_CB_POP, CB_PREV_MAX, tk_n(t, R));
        tk_cb(t, DF_CB_WAIT, CB_DIFF, tk_n(t, R));
        tk_cb(t, DF_CB_WAIT, CB_PREV_SUM, tk_n(t, R));
        elt(t, CB_PREV_SUM, R, 1, DF_MUL, CB_DIFF, DF_BC_NONE, CB_PREV_SUM);
        tk_cb(t, DF_CB_WAIT, CB_ACC, tk_n(t, out));
        elt(t, CB_ACC, R, x->Dt, DF_MUL, CB_DIFF, DF_BC_COL, CB_ACC);
        inplace_done(t);
        tk_cb(t, DF_CB_POP, CB_DIFF, tk_n(t, R));
        tk_cb(t, DF_CB_WAIT, CB_CUR_SUM, tk_n(t, R));
        elt(t, CB_CUR_SUM, R, 1, DF_ADD, CB_PREV_SUM, DF_BC_NONE, CB_CUR_SUM);
        tk_cb(t, DF_CB_POP, CB_PREV_SUM, tk_n(t, R));
        tk_cb(t, DF_CB_WAIT, CB_OUT_IM, tk_n(t, out));
        elt(t, CB_ACC, R, x->Dt, DF_ADD, CB_OUT_IM, DF_BC_NONE, CB_ACC);
        inplace_done(t);
        tk_cb(t, DF_CB_POP, CB_OUT_IM, tk_n(t, out));
    }
    /* prev <- cur */
    move(t, CB_CUR_MAX, CB_PREV_MAX, R);
    move(t, CB_CUR_SUM, CB_PREV_SUM, R);
}

/* The correction with a child's results (correction_block): the maxima
 * combined, both sums and outputs rescaled, then added. */
static void fold_child(tk *t, const dctx *x)
{
    int R = x->R, out = x->R * x->Dt;
    move(t, CB_OUT_L, CB_SUM2, R);
    tk_cb(t, DF_CB_WAIT, CB_OUT_M, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_PREV_MAX, tk_n(t, R));
    tk_cb(t, DF_CB_RESERVE, CB_CUR_MAX, tk_n(t, R));
    elt(t, CB_PREV_MAX, R, 1, DF_MAXOP, CB_OUT_M, DF_BC_NONE, CB_CUR_MAX);
    tk_cb(t, DF_CB_PUSH, CB_CUR_MAX, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_CUR_MAX, tk_n(t, R));
    sub_exp_col(t, x, CB_OUT_M, CB_CUR_MAX, CB_DIFF2, R);
    sub_exp_col(t, x, CB_PREV_MAX, CB_CUR_MAX, CB_DIFF, R);
    tk_cb(t, DF_CB_WAIT, CB_DIFF2, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_DIFF, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_SUM2, tk_n(t, R));
    elt(t, CB_SUM2, R, 1, DF_MUL, CB_DIFF2, DF_BC_NONE, CB_SUM2);
    tk_cb(t, DF_CB_WAIT, CB_PREV_SUM, tk_n(t, R));
    elt(t, CB_PREV_SUM, R, 1, DF_MUL, CB_DIFF, DF_BC_NONE, CB_PREV_SUM);
    inplace_done(t);
    tk_cb(t, DF_CB_RESERVE, CB_CUR_SUM, tk_n(t, R));
    elt(t, CB_SUM2, R, 1, DF_ADD, CB_PREV_SUM, DF_BC_NONE, CB_CUR_SUM);
    tk_cb(t, DF_CB_PUSH, CB_CUR_SUM, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_SUM2, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_PREV_SUM, tk_n(t, R));
    /* the outputs */
    move(t, CB_OUT_O, CB_ACC2, out);
    tk_cb(t, DF_CB_WAIT, CB_ACC2, tk_n(t, out));
    elt(t, CB_ACC, R, x->Dt, DF_MUL, CB_DIFF, DF_BC_COL, CB_ACC);
    elt(t, CB_ACC2, R, x->Dt, DF_MUL, CB_DIFF2, DF_BC_COL, CB_ACC2);
    inplace_done(t);
    elt(t, CB_ACC, R, x->Dt, DF_ADD, CB_ACC2, DF_BC_NONE, CB_ACC);
    inplace_done(t);
    tk_cb(t, DF_CB_POP, CB_ACC2, tk_n(t, out));
    tk_cb(t, DF_CB_POP, CB_DIFF, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_DIFF2, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_PREV_MAX, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_OUT_M, tk_n(t, R));
    move(t, CB_CUR_MAX, CB_PREV_MAX, R);
    move(t, CB_CUR_SUM, CB_PREV_SUM, R);
}

/* The root: 1 / sum (column 0), the output times it into the writer's CB. */
static void finalize(tk *t, const dctx *x)
{
    int R = x->R, out = x->R * x->Dt;
    tk_cb(t, DF_CB_WAIT, CB_PREV_SUM, tk_n(t, R));
    df_stmt *r = tk_op(t, DF_PCHAIN);
    r->cb = r->cb_out = CB_PREV_SUM;
    r->front = true;
    r->col0 = true;
    r->rows = tk_n(t, R);
    df_stmt *rc = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    rc->sub = DF_RECIP;
    df_add_body(t->p, r, rc);
    tk_put(t, r);
    inplace_done(t);
    tk_cb(t, DF_CB_WAIT, CB_ACC, tk_n(t, out));
    tk_cb(t, DF_CB_RESERVE, CB_FINAL, tk_n(t, out));
    elt(t, CB_ACC, R, x->Dt, DF_MUL, CB_PREV_SUM, DF_BC_COL, CB_FINAL);
    tk_cb(t, DF_CB_PUSH, CB_FINAL, tk_n(t, out));
    tk_cb(t, DF_CB_POP, CB_ACC, tk_n(t, out));
    tk_cb(t, DF_CB_POP, CB_PREV_SUM, tk_n(t, R));
    tk_cb(t, DF_CB_WAIT, CB_PREV_MAX, tk_n(t, R));
    tk_cb(t, DF_CB_POP, CB_PREV_MAX, tk_n(t, R));
}

/* A non-root: its output, maximum and sums packed into the CBs its writer
 * sends from (the parent's receiving CBs, left unpushed: the send reads
 * the pages at the write pointer), then the writer is told. */
static void hand_to_parent(tk *t, const dctx *x)
{
    int R = x->R, out = x->R * x->Dt;
    const int from[3] = {CB_ACC, CB_PREV_MAX, CB_PREV_SUM}, to[3] = {CB_OUT_O, CB_OUT_M, CB_OUT_L};
    const int n[3] = {out, R, R};
    for (int i = 0; i < 3; i++) {
        tk_cb(t, DF_CB_WAIT, from[i], tk_n(t, n[i]));
        tk_cb(t, DF_CB_RESERVE, to[i], tk_n(t, n[i]));
        put_copy(t, from[i], to[i], n[i]);
        tk_cb(t, DF_CB_POP, from[i], tk_n(t, n[i]));
    }
    tk_cb(t, DF_CB_RESERVE, CB_SYNC, tk_n(t, 1));
    tk_cb(t, DF_CB_PUSH, CB_SYNC, tk_n(t, 1));
}

static void compute(tk *t, const dctx *x, const drole *r)
{
    for (int64_t k = r->k0; k < r->k1; k++)
        flash_chunk(t, x, k == r->k0);
    for (int i = 0; i < r->rounds; i++)
        if (r->child[i] >= 0)
            fold_child(t, x);
    if (r->root)
        finalize(t, x);
    else
        hand_to_parent(t, x);
}

/* ---- reader and writer ------------------------------------------------------------ */

/* `rows` tile rows of Dt tiles from tensor row `row`, a read barrier every
 * x->thr tiles. */
static void read_rows(tk *t, const dctx *x, int tensor, int64_t row, int cb)
{
    int64_t pages = (int64_t)x->Sk * x->Dt;
    tk_cb(t, DF_CB_RESERVE, cb, tk_n(t, pages));
    int g = LM_MAX(1, x->thr / x->Dt);
    for (int64_t r = 0; r < x->Sk; r += g) {
        int64_t rows = LM_MIN((int64_t)g, x->Sk - r);
        tk_read(t, tensor, tk_n(t, row + r), tk_n(t, 0), tk_n(t, rows), tk_n(t, x->Dt), cb, tk_n(t, r * x->Dt));
        tk_barrier(t, DF_READ_BARRIER);
    }
    tk_cb(t, DF_CB_PUSH, cb, tk_n(t, pages));
}

static void reader(tk *t, const dctx *x, const drole *r, int kvh)
{
    const ttnn_kernel_io *io = x->io;
    if (kvh == r->kvh0) {
        /* the batch's query heads, one per row of the Q tile rows */
        int64_t qp = (int64_t)x->R * x->Dt;
        tk_cb(t, DF_CB_RESERVE, CB_Q, tk_n(t, qp));
        df_stmt *q = tk_op(t, DF_READ_ELEMS);
        q->tensor = x->tq;
        q->row = tk_n(t, qo_row(io, io->q_fold, r->batch, 0));
        q->col = tk_n(t, 0);
        q->rows = tk_n(t, io->H);
        q->cols = tk_n(t, io->D);
        q->cb = CB_Q;
        q->bw = tk_n(t, x->Dt);
        tk_put(t, q);
        tk_barrier(t, DF_READ_BARRIER);
        tk_cb(t, DF_CB_PUSH, CB_Q, tk_n(t, qp));
    }
    int64_t base = ((int64_t)r->batch * io->HKV + kvh) * x->St;
    for (int64_t k = r->k0; k < r->k1; k++) {
        read_rows(t, x, x->tk, base + k * x->Sk, CB_K);
        read_rows(t, x, x->tv, base + k * x->Sk, CB_V);
    }
}

/* The writer: per round with a child, its CBs reserved, the child told,
 * its results awaited and pushed; then the root's output written, or the
 * core's results sent to its parent. */
static void writer(tk *t, const dctx *x, const drole *r, const drole *roles, int kvh, int *got)
{
    int R = x->R, out = x->R * x->Dt;
    const int cbs[3] = {CB_OUT_O, CB_OUT_M, CB_OUT_L};
    const int n[3] = {out, R, R};
    for (int i = 0; i < r->rounds; i++) {
        if (r->child[i] < 0)
            continue;
        for (int j = 0; j < 3; j++)
            tk_cb(t, DF_CB_RESERVE, cbs[j], tk_n(t, n[j]));
        df_stmt *s = tk_op(t, DF_SEM_INC);
        s->sem = x->sem_ready;
        s->x = tk_n(t, roles[r->child[i]].x);
        s->y = tk_n(t, roles[r->child[i]].y);
        tk_put(t, s);
        s = tk_op(t, DF_SEM_WAIT);
        s->sem = x->sem_arrived;
        s->value = tk_n(t, ++*got);
        s->ge = true;
        tk_put(t, s);
        for (int j = 0; j < 3; j++)
            tk_cb(t, DF_CB_PUSH, cbs[j], tk_n(t, n[j]));
    }
    if (r->root) {
        tk_cb(t, DF_CB_WAIT, CB_FINAL, tk_n(t, out));
        int g = (int)(x->io->H / x->io->HKV);
        df_stmt *w = tk_op(t, DF_WRITE_ELEMS);
        w->cb = CB_FINAL;
        w->er = tk_n(t, (int64_t)kvh * g);
        w->bw = tk_n(t, x->Dt);
        w->tensor = x->to;
        w->row = tk_n(t, qo_row(x->io, x->io->o_fold, r->batch, (int64_t)kvh * g));
        w->col = tk_n(t, 0);
        w->rows = tk_n(t, g);
        w->cols = tk_n(t, x->io->D);
        tk_put(t, w);
        tk_barrier(t, DF_WRITE_BARRIER);
        tk_cb(t, DF_CB_POP, CB_FINAL, tk_n(t, out));
        return;
    }
    /* to the parent, once it has reserved its CBs */
    tk_cb(t, DF_CB_WAIT, CB_SYNC, tk_n(t, 1));
    df_stmt *s = tk_op(t, DF_SEM_WAIT);
    s->sem = x->sem_ready;
    s->value = tk_n(t, ++got[1]);
    s->ge = true;
    tk_put(t, s);
    const drole *par = &roles[r->parent];
    for (int j = 0; j < 3; j++) {
        df_stmt *sd = tk_op(t, DF_SEND);
        sd->cb = cbs[j];
        sd->n = tk_n(t, n[j]);
        sd->x = tk_n(t, par->x);
        sd->y = tk_n(t, par->y);
        tk_put(t, sd);
    }
    tk_barrier(t, DF_WRITE_BARRIER);
    s = tk_op(t, DF_SEM_INC);
    s->sem = x->sem_arrived;
    s->x = tk_n(t, par->x);
    s->y = tk_n(t, par->y);
    tk_put(t, s);
    tk_cb(t, DF_CB_POP, CB_SYNC, tk_n(t, 1));
}

/* ---- roles and the program ----------------------------------------------------------- */

static void role_of(const dctx *x, int core, drole *r)
{
    const ttnn_decode_config *cfg = x->cfg;
    memset(r, 0, sizeof *r);
    ttnn_decode_role dr;
    ttnn_decode_core_role(cfg, core, &dr);
    r->core = core;
    r->x = core % x->io->grid_x;
    r->y = core / x->io->grid_x;
    r->batch = dr.batch;
    r->kvh0 = dr.first_kv_head;
    r->rank = dr.rank;
    ttnn_decode_kv_range(x->io->S, cfg->k_chunk, dr.rank, cfg->cores_per_head, &r->k0, &r->k1);
    ttnn_tree_node node;
    ttnn_decode_tree(dr.rank, cfg->cores_per_head, &node);
    int first = core - dr.rank; /* the head group's rank 0 */
    r->root = node.root;
    r->parent = node.parent >= 0 ? first + node.parent : -1;
    r->rounds = node.rounds;
    for (int i = 0; i < TTNN_TREE_MAX_ROUNDS; i++) {
        int c = node.children[i];
        /* a child with no chunks takes no part (sdpa_flash_decode.cpp) */
        r->child[i] = c >= 0 && c < x->nchunks ? first + c : -1;
    }
}

static void declare_cbs(df_program *p, df_class *c, const dctx *x)
{
    const ttnn_kernel_io *io = x->io;
    int64_t R = x->R, kv = (int64_t)x->Sk * x->Dt, out = R * x->Dt;
    struct {
        int id;
        arch_format f;
        int64_t pages;
    } cbs[] = {
        {CB_Q, io->fq, R * x->Dt}, {CB_K, io->fk, kv * 2}, {CB_V, io->fv, kv * 2}, {CB_SYNC, ARCH_BF16, 1},
        {CB_INPLACE, ARCH_BF16, 1},
        {CB_OUT_O, ARCH_BF16, out}, {CB_OUT_M, ARCH_BF16, R}, {CB_OUT_L, ARCH_BF16, R}, {CB_FINAL, io->fo, out},
        {CB_SUM2, ARCH_BF16, R}, {CB_DIFF2, ARCH_BF16, R}, {CB_ACC2, ARCH_BF16, out}, {CB_QK, ARCH_BF16, R * x->Sk},
        {CB_OUT_IM, ARCH_BF16, out}, {CB_ACC, ARCH_BF16, out}, {CB_CUR_MAX, ARCH_BF16, R},
        {CB_PREV_MAX, ARCH_BF16, R}, {CB_CUR_SUM, ARCH_BF16, R}, {CB_PREV_SUM, ARCH_BF16, R},
        {CB_DIFF, ARCH_BF16, R},
    };
    for (size_t i = 0; i < LM_COUNT(cbs); i++)
        df_add_cb(p, c, cbs[i].id, cbs[i].f, df_const(p, cbs[i].pages), (lm_loc){0});
}

static bool plan(dctx *x, const ttnn_decode_config *cfg, const ttnn_kernel_io *io, const arch_desc *a, bool fp32_acc,
                 char *why, size_t n)
{
    memset(x, 0, sizeof *x);
    x->cfg = cfg;
    x->io = io;
    x->a = a;
    if (io->S % 32 || io->D % 32) {
        snprintf(why, n, "TTNN's SDPA decode kernel program: the cache length (%lld) must be whole tiles",
                 (long long)io->S);
        return false;
    }
    if (io->S % cfg->k_chunk) {
        snprintf(why, n, "TTNN's SDPA decode kernel program: the cache length (%lld) must be whole K chunks (%d)",
                 (long long)io->S, cfg->k_chunk);
        return false;
    }
    if (cfg->reduce != TTNN_REDUCE_TREE) {
        snprintf(why, n, "TTNN's SDPA decode kernel program reduces over the tree only");
        return false;
    }
    x->St = io->S / 32;
    x->Sk = cfg->Sk_chunk_t;
    x->Dt = cfg->DHt;
    x->R = cfg->PNHt;
    x->nchunks = cfg->k_num_chunks;
    int dst = fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
    /* one tile row of query heads: sub-blocks 1 x min(width, Dst) that divide */
    x->qkw = LM_MIN(x->Sk, dst);
    while (x->Sk % x->qkw)
        x->qkw--;
    x->pvw = LM_MIN(x->Dt, dst);
    while (x->Dt % x->pvw)
        x->pvw--;
    int cores = io->grid_x * io->grid_y;
    x->thr = (int)LM_MAX(1, ((512 / cores) * (1024 + 128)) / a->tile_bytes[io->fk]);
    return true;
}

struct df_program *ttnn_sdpa_decode_program(const ttnn_decode_config *cfg, const ttnn_kernel_io *io,
                                            arch_fidelity fidelity, bool fp32_acc, const arch_desc *a, char *why,
                                            size_t whylen)
{
    dctx x;
    if (!plan(&x, cfg, io, a, fp32_acc, why, whylen))
        return NULL;
    df_program *p = df_new("ttnn_sdpa_decode");
    x.tq = df_add_tensor(p, io->q, df_const(p, qo_rows(io, io->q_fold)), df_const(p, io->D), io->fq, DF_INPUT,
                         (lm_loc){0});
    int64_t kv_rows = io->B * io->HKV * io->S;
    x.tk = df_add_tensor(p, io->k, df_const(p, kv_rows), df_const(p, io->D), io->fk, DF_INPUT, (lm_loc){0});
    x.tv = df_add_tensor(p, io->v, df_const(p, kv_rows), df_const(p, io->D), io->fv, DF_INPUT, (lm_loc){0});
    x.to = df_add_tensor(p, io->o, df_const(p, qo_rows(io, io->o_fold)), df_const(p, io->D), io->fo, DF_OUTPUT,
                         (lm_loc){0});
    x.sem_ready = df_add_sem(p, "ready", df_const(p, 0), (lm_loc){0});
    x.sem_arrived = df_add_sem(p, "arrived", df_const(p, 0), (lm_loc){0});
    int ncores = cfg->active_cores;
    drole *roles = lm_xcalloc((size_t)ncores, sizeof *roles);
    for (int i = 0; i < ncores; i++)
        role_of(&x, i, &roles[i]);
    for (int i = 0; i < ncores; i++) {
        const drole *r = &roles[i];
        char name[32];
        snprintf(name, sizeof name, "core%d", i);
        df_class *c = df_add_class(p, name, df_const(p, r->x), df_const(p, r->y), df_const(p, r->x),
                                   df_const(p, r->y), (lm_loc){0});
        c->fidelity = fidelity;
        c->fp32_acc = fp32_acc;
        declare_cbs(p, c, &x);
        tk t;
        int got[2] = {0, 0}; /* children received, parent readiness seen */
        for (int j = 0; j < cfg->heads_per_core; j++) {
            int kvh = r->kvh0 + j;
            if (kvh >= io->HKV || r->k0 == r->k1)
                break;
            tk_init(&t, p, c, DF_READER);
            reader(&t, &x, r, kvh);
            tk_init(&t, p, c, DF_COMPUTE);
            if (j == 0)
                tk_cb(&t, DF_CB_WAIT, CB_Q, tk_n(&t, (int64_t)x.R * x.Dt));
            compute(&t, &x, r);
            tk_init(&t, p, c, DF_WRITER);
            writer(&t, &x, r, roles, kvh, got);
        }
    }
    free(roles);
    lm_diag d;
    lm_diag_init(&d, NULL);
    if (!df_bind(p, NULL, 0, &d)) {
        snprintf(why, whylen, "TTNN's SDPA decode kernel program does not bind (internal)");
        df_free(p);
        return NULL;
    }
    return p;
}
