/* ttnn_sdpa_prog.c - TTNN's SDPA prefill kernels (flash attention) written
 * directly as a dataflow program: the reader, compute and writer its
 * program factory builds, with the factory's CBs, for the config
 * ttnn_sdpa_prefill_default chose. Not loomc's lowering of
 * kernels/flash_attention.py: the comparison times TTNN's own kernel.
 *
 * The kernels follow tt-metal's ttnn/cpp/ttnn/operations/transformer/sdpa
 * (device/sdpa_program_factory.cpp; kernels/dataflow/reader_interleaved.cpp,
 * writer_interleaved.cpp; kernels/compute/sdpa.cpp with compute_common.hpp
 * and compute_streaming.hpp, the BF16-Dest streaming step of
 * sdpa_inner_loop_step), read as facts; docs/baselines.md ("TTNN's SDPA
 * kernels as dataflow programs") lists what is reproduced and what is not.
 * Per K chunk, per row group of the Q chunk: Q K^T sub-block by sub-block,
 * each followed by the previous row group's subtract-and-exp of that
 * column sub-block (the exp on the pack thread, the scale folded into it,
 * the row sums L1-accumulated by the packer, the result in place); the
 * causal stamp of the diagonal chunk; the block row maximum seeded with
 * the previous one. Then P V, the rescaling of the previous output and
 * sums (the statistics in ping-pong CBs), and on the last K chunk the
 * normalisation, row group by row group.
 */
#include "ttnn/ttnn_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The factory's CB ids (sdpa_program_factory.cpp), and a few of ours. */
enum {
    CB_Q = 0, CB_K = 1, CB_V = 2, CB_MASK = 3, CB_ZERO = 4, CB_COLID = 5, CB_RSCRATCH = 6, CB_RECIP = 7,
    CB_SYNC = 8, CB_OUT = 16, CB_QK = 24, CB_OUT_A = 25, CB_OUT_B = 26, CB_MAX_A = 27, CB_MAX_B = 28,
    CB_SUM_A = 29, CB_SUM_B = 30, CB_DIFF = 31,
};

/* One half of the ping-pong statistics: sum, max and output CBs. */
typedef struct half {
    int sum, max, out;
} half;

typedef struct pctx {
    const ttnn_sdpa_config *cfg;
    const ttnn_kernel_io *io;
    const arch_desc *a;
    int tq, tk, tv, to;          /* tensors */
    int64_t St;                  /* sequence tiles */
    int Sq, Sk, Dt;              /* chunk tiles, head dim tiles */
    int sbh, sbw, nrg, ncs;      /* Q K^T sub-block; row groups of a Q chunk; column sub-blocks of a K chunk */
    int pvh, pvw;                /* P V sub-block */
    bool narrow;                 /* causal: the diagonal chunk's columns past the diagonal are skipped */
    bool exp_on_pack;            /* the exponentials on the pack thread: the BF16-Dest streaming kernel; with
                                    fp32 Dst accumulation TTNN runs its legacy kernel, whose exps are on math */
    int thr;                     /* tiles read between read barriers */
    /* per-core values (class args) and loop state of the kernel being written */
    const df_expr *b0, *b1, *h0, *h1, *q0, *nqc;
} pctx;

/* ---- shared expressions ------------------------------------------------------ */

/* The Q chunk of iteration qi: in order, or under causal balance the first
 * half from the front and the second mirrored from the back
 * (BALANCED_Q_PARALLEL). */
static const df_expr *q_chunk(tk *t, const pctx *x, const df_expr *qi)
{
    const df_expr *lin = tk_add(t, x->q0, qi);
    if (!x->cfg->balanced)
        return lin;
    int hq = x->cfg->q_per_core / 2;
    /* f = 1 in the back half: chunk = q0 + qi + f (nq - 1 - 2 q0 - 2 qi + half) */
    const df_expr *f = tk_min(t, tk_div(t, qi, tk_n(t, hq)), tk_n(t, 1));
    const df_expr *back = tk_addn(t, tk_sub(t, tk_n(t, x->cfg->q_num_chunks - 1 + hq),
                                            tk_add(t, tk_muln(t, x->q0, 2), tk_muln(t, qi, 2))), 0);
    return tk_add(t, lin, tk_mul(t, f, back));
}

/* The last tile row + 1 a Q chunk starting at tile row qst attends to. */
static const df_expr *q_high(tk *t, const pctx *x, const df_expr *qst)
{
    if (!x->io->causal)
        return tk_n(t, x->St);
    return tk_min(t, tk_addn(t, qst, x->Sq), tk_n(t, x->St));
}

/* K chunks the Q chunk processes: all, or causal up to its diagonal. */
static const df_expr *k_chunks(tk *t, const pctx *x, const df_expr *qst)
{
    return tk_div(t, tk_addn(t, q_high(t, x, qst), x->Sk - 1), tk_n(t, x->Sk));
}

/* Active K tiles of chunk k: the valid rows of K, and under causal
 * narrowing not past the diagonal. */
static const df_expr *k_active(tk *t, const pctx *x, const df_expr *qst, const df_expr *k)
{
    const df_expr *k0 = tk_muln(t, k, x->Sk);
    const df_expr *act = tk_min(t, tk_n(t, x->Sk), tk_sub(t, tk_n(t, x->St), k0));
    if (x->narrow)
        act = tk_min(t, act, tk_sub(t, q_high(t, x, qst), k0));
    return act;
}

/* Row of tile row s of head h of batch b in a [B, heads, S, D] tensor. */
static const df_expr *head_row(tk *t, const pctx *x, const df_expr *b, const df_expr *h, int64_t heads,
                               const df_expr *s)
{
    return tk_add(t, tk_muln(t, tk_add(t, tk_muln(t, b, heads), h), x->St), s);
}

/* The core's (batch, head, Q chunk) loops, as the factory deals them; the
 * body is written by `body` with the chunk index. */
typedef void (*chunk_body)(tk *t, const pctx *x, const df_expr *b, const df_expr *h, const df_expr *qc);

static void for_chunks(tk *t, const pctx *x, chunk_body body)
{
    const df_expr *b = tk_for(t, "b", x->b0, x->b1);
    const df_expr *h = tk_for(t, "h", x->h0, x->h1);
    const df_expr *qi = tk_for(t, "qi", tk_n(t, 0), x->nqc);
    body(t, x, b, h, q_chunk(t, x, qi));
    tk_end(t);
    tk_end(t);
    tk_end(t);
}

/* ---- reader ------------------------------------------------------------------ */

/* `rows` tile rows of Dt tiles from tensor row `row` into cb, a read
 * barrier every x->thr tiles (read_chunk_with_padding); the CB reserved
 * and pushed whole (`pages`). */
static void read_block(tk *t, const pctx *x, int tensor, const df_expr *row, const df_expr *rows, int cb,
                       int64_t pages)
{
    tk_cb(t, DF_CB_RESERVE, cb, tk_n(t, pages));
    if (x->thr >= x->Dt) {
        int g = x->thr / x->Dt; /* whole rows between barriers */
        const df_expr *gi = tk_for(t, "rg", tk_n(t, 0), tk_div(t, tk_addn(t, rows, g - 1), tk_n(t, g)));
        const df_expr *r = tk_muln(t, gi, g);
        tk_read(t, tensor, tk_add(t, row, r), tk_n(t, 0), tk_min(t, tk_n(t, g), tk_sub(t, rows, r)), tk_n(t, x->Dt),
                cb, tk_muln(t, r, x->Dt));
        tk_barrier(t, DF_READ_BARRIER);
        tk_end(t);
    } else {
        const df_expr *r = tk_for(t, "rr", tk_n(t, 0), rows);
        int ng = (x->Dt + x->thr - 1) / x->thr;
        const df_expr *ci = tk_for(t, "rc", tk_n(t, 0), tk_n(t, ng));
        const df_expr *c = tk_muln(t, ci, x->thr);
        tk_read(t, tensor, tk_add(t, row, r), c, tk_n(t, 1), tk_min(t, tk_n(t, x->thr), tk_sub(t, tk_n(t, x->Dt), c)),
                cb, tk_add(t, tk_muln(t, r, x->Dt), c));
        tk_barrier(t, DF_READ_BARRIER);
        tk_end(t);
        tk_end(t);
    }
    tk_cb(t, DF_CB_PUSH, cb, tk_n(t, pages));
}

static void reader_chunk(tk *t, const pctx *x, const df_expr *b, const df_expr *h, const df_expr *qc)
{
    const df_expr *qst = tk_muln(t, qc, x->Sq);
    const df_expr *qrows = tk_min(t, tk_n(t, x->Sq), tk_sub(t, tk_n(t, x->St), qst));
    read_block(t, x, x->tq, head_row(t, x, b, h, x->io->H, qst), qrows, CB_Q, (int64_t)x->Sq * x->Dt);
    const df_expr *kh = tk_div(t, h, tk_n(t, x->io->H / x->io->HKV));
    const df_expr *k = tk_for(t, "k", tk_n(t, 0), k_chunks(t, x, qst));
    const df_expr *k0 = tk_muln(t, k, x->Sk);
    const df_expr *krows = tk_min(t, tk_n(t, x->Sk), tk_sub(t, tk_n(t, x->St), k0));
    read_block(t, x, x->tk, head_row(t, x, b, kh, x->io->HKV, k0), krows, CB_K, (int64_t)x->Sk * x->Dt);
    read_block(t, x, x->tv, head_row(t, x, b, kh, x->io->HKV, k0), krows, CB_V, (int64_t)x->Sk * x->Dt);
    tk_end(t);
}

/* ---- writer ------------------------------------------------------------------ */

static void writer_chunk(tk *t, const pctx *x, const df_expr *b, const df_expr *h, const df_expr *qc)
{
    const df_expr *qst = tk_muln(t, qc, x->Sq);
    const df_expr *qrows = tk_min(t, tk_n(t, x->Sq), tk_sub(t, tk_n(t, x->St), qst));
    int64_t pages = (int64_t)x->Sq * x->Dt;
    tk_cb(t, DF_CB_WAIT, CB_OUT, tk_n(t, pages));
    tk_write(t, CB_OUT, tk_n(t, 0), x->to, head_row(t, x, b, h, x->io->H, qst), tk_n(t, 0), qrows, tk_n(t, x->Dt));
    tk_barrier(t, DF_WRITE_BARRIER);
    tk_cb(t, DF_CB_POP, CB_OUT, tk_n(t, pages));
}

/* ---- compute: the pieces of one K-chunk step ------------------------------------ */

/* Page of tile (r, c) of row group g in the Q K^T CB, which holds each row
 * group as ncs column sub-blocks of sbh x sbw tiles (what the sub-block
 * matmuls write). */
static const df_expr *qk_page(tk *t, const pctx *x, const df_expr *g, const df_expr *r, const df_expr *c)
{
    const df_expr *blk = tk_add(t, tk_muln(t, g, x->ncs), tk_div(t, c, tk_n(t, x->sbw)));
    return tk_add(t, tk_muln(t, tk_add(t, tk_muln(t, blk, x->sbh), r), x->sbw), tk_mod(t, c, tk_n(t, x->sbw)));
}

/* Q K^T of row group g, column sub-block s, into its pages past the pushed
 * row groups (the CB's back is the row group's start). */
static void qk_matmul(tk *t, const pctx *x, const df_expr *g, const df_expr *s)
{
    df_stmt *m = tk_op(t, DF_MATMUL);
    m->cb = CB_Q;
    m->at = tk_muln(t, g, x->sbh * x->Dt);
    m->cb_b = CB_K;
    m->at_b = tk_muln(t, s, x->sbw * x->Dt);
    m->trans_b = true;
    m->cb_out = CB_QK;
    m->at_out = tk_muln(t, s, x->sbh * x->sbw);
    m->m = tk_n(t, x->sbh);
    m->k = tk_n(t, x->Dt);
    m->nn = tk_n(t, x->sbw);
    m->sub_h = tk_n(t, x->sbh);
    m->sub_w = tk_n(t, x->sbw);
    tk_put(t, m);
}

/* exp((QK - max) * scale) in place over row group g's column sub-block s,
 * the exp on the pack thread, each row's tiles added into C.sum
 * (sub_exp_block_bcast_cols). */
static void sub_exp(tk *t, const pctx *x, half C, const df_expr *g, const df_expr *s)
{
    df_stmt *p = tk_op(t, DF_PCHAIN);
    p->cb = p->cb_out = CB_QK;
    p->at = p->at_out = tk_muln(t, tk_add(t, tk_muln(t, g, x->ncs), s), x->sbh * x->sbw);
    p->front = true;
    p->pack_sfpu = x->exp_on_pack;
    p->scalar = x->io->scale;
    p->rows = tk_n(t, x->sbh);
    p->cols = tk_n(t, x->sbw);
    p->cb_sum = C.sum;
    p->at_sum = tk_muln(t, g, x->sbh);
    p->sum_acc = tk_min(t, s, tk_n(t, 1));
    df_stmt *sub = df_step_new(t->p, DF_ELTWISE, (lm_loc){0});
    sub->sub = DF_SUB;
    sub->cb_b = C.max;
    sub->at_b = tk_muln(t, g, x->sbh);
    sub->bcast = DF_BC_COL;
    df_add_body(t->p, p, sub);
    df_stmt *e = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    e->sub = DF_EXP;
    df_add_body(t->p, p, e);
    tk_put(t, p);
}

/* The causal stamp of row group g of chunk k (apply_lightweight_mask):
 * per row, the diagonal tile at its column and -inf tiles right of it, each
 * a one-tile copy added onto the scores (packer L1 accumulation). Rows
 * left of their diagonal in this chunk take none. */
static void causal_stamp(tk *t, const pctx *x, const df_expr *qst, const df_expr *k, const df_expr *g,
                         const df_expr *act)
{
    const df_expr *r = tk_for(t, "mr", tk_n(t, 0), tk_n(t, x->sbh));
    const df_expr *diag = tk_sub(t, tk_add(t, tk_add(t, qst, tk_muln(t, g, x->sbh)), r), tk_muln(t, k, x->Sk));
    for (int kind = 0; kind < 2; kind++) {
        /* kind 0: the diagonal tile (when in range); 1: the tiles after it */
        const df_expr *lo = kind ? tk_max(t, tk_addn(t, diag, 1), tk_n(t, 0)) : tk_max(t, diag, tk_n(t, 0));
        const df_expr *hi = kind ? act : tk_min(t, tk_addn(t, diag, 1), act);
        const df_expr *c = tk_for(t, kind ? "mn" : "md", lo, hi);
        df_stmt *cp = tk_op(t, DF_COPY);
        cp->cb = CB_MASK;
        cp->at = tk_n(t, kind ? 0 : 1);
        cp->cb_out = CB_QK;
        cp->at_out = tk_sub(t, qk_page(t, x, g, r, c), tk_muln(t, g, x->ncs * x->sbh * x->sbw));
        cp->n = tk_n(t, 1);
        cp->acc = tk_n(t, 1);
        tk_put(t, cp);
        tk_end(t);
    }
    tk_end(t);
}

/* Row group g's maximum over the active columns into C.max, seeded with the
 * previous maximum when `seed` (reduce_c_row_group). */
static void row_max(tk *t, const pctx *x, half C, half P, bool seed, const df_expr *g, const df_expr *act)
{
    df_stmt *m = tk_op(t, DF_ROWMAX);
    m->cb = CB_QK;
    m->at = tk_muln(t, g, x->ncs * x->sbh * x->sbw);
    m->rows = tk_n(t, x->sbh);
    m->cols = act;
    m->rs = tk_n(t, x->sbw);
    m->bw = tk_n(t, x->sbw);
    m->bs = tk_n(t, x->sbh * x->sbw);
    if (seed) {
        m->cb_b = P.max;
        m->at_b = tk_muln(t, g, x->sbh);
    }
    m->cb_out = C.max;
    tk_put(t, m);
}

/* A loop of one trip when cond (as a trip count 0 or 1) holds. */
static void tk_if(tk *t, const df_expr *trips) { tk_for(t, "if", tk_n(t, 0), trips); }

/* The end of row group g of phase 1: the causal stamp, the push that lets
 * the row group be read, its row maximum. */
static void row_group_tail(tk *t, const pctx *x, half C, half P, const df_expr *first, const df_expr *qst,
                           const df_expr *k, const df_expr *g, const df_expr *act)
{
    int64_t rg_pages = (int64_t)x->ncs * x->sbh * x->sbw;
    if (x->io->causal)
        causal_stamp(t, x, qst, k, g, act);
    tk_cb(t, DF_CB_PUSH, CB_QK, tk_n(t, rg_pages));
    tk_cb(t, DF_CB_WAIT, CB_QK, tk_muln(t, tk_addn(t, g, 1), rg_pages));
    tk_cb(t, DF_CB_RESERVE, C.max, tk_n(t, x->sbh));
    tk_if(t, first); /* the first K chunk: no previous maximum */
    row_max(t, x, C, P, false, g, act);
    tk_end(t);
    tk_if(t, tk_sub(t, tk_n(t, 1), first));
    row_max(t, x, C, P, true, g, act);
    tk_end(t);
    tk_cb(t, DF_CB_PUSH, C.max, tk_n(t, x->sbh));
    /* the pchains read this maximum from the front */
    tk_cb(t, DF_CB_WAIT, C.max, tk_muln(t, tk_addn(t, g, 1), x->sbh));
}

/* P V of row group g over column sub-block s into C.out at at_out, added
 * to what an earlier column sub-block put there when s > 0. */
static void pv_matmul(tk *t, const pctx *x, half C, const df_expr *g, const df_expr *s, const df_expr *at_out)
{
    df_stmt *m = tk_op(t, DF_MATMUL);
    m->cb = CB_QK;
    m->at = tk_muln(t, tk_add(t, tk_muln(t, g, x->ncs), s), x->sbh * x->sbw);
    m->cb_b = CB_V;
    m->at_b = tk_muln(t, s, x->sbw * x->Dt);
    m->cb_out = C.out;
    m->at_out = at_out;
    m->m = tk_n(t, x->sbh);
    m->k = tk_n(t, x->sbw);
    m->nn = tk_n(t, x->Dt);
    m->sub_h = tk_n(t, x->pvh);
    m->sub_w = tk_n(t, x->pvw);
    m->acc = tk_min(t, s, tk_n(t, 1));
    tk_put(t, m);
}

/* The pack thread's writes in place are seen by the unpacker only after a
 * handshake (the kernel's PACK_DONE semaphore): a one-page CB pushed by
 * pack and waited for by unpack. */
static void pack_to_unpack(tk *t)
{
    tk_cb(t, DF_CB_RESERVE, CB_SYNC, tk_n(t, 1));
    tk_cb(t, DF_CB_PUSH, CB_SYNC, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, CB_SYNC, tk_n(t, 1));
    tk_cb(t, DF_CB_POP, CB_SYNC, tk_n(t, 1));
}

/* exp((P.max - C.max) * scale) of row group g into CB_DIFF, column 0 only,
 * on the pack thread (sub_exp_first_col_blocks). */
static void exp_diff(tk *t, const pctx *x, half C, half P, const df_expr *g)
{
    tk_cb(t, DF_CB_RESERVE, CB_DIFF, tk_n(t, x->sbh));
    df_stmt *p = tk_op(t, DF_PCHAIN);
    p->cb = P.max;
    p->at = tk_muln(t, g, x->sbh);
    p->cb_out = CB_DIFF;
    p->rows = tk_n(t, x->sbh);
    p->cols = tk_n(t, 1);
    p->pack_sfpu = x->exp_on_pack;
    p->col0 = true;
    p->scalar = x->io->scale;
    df_stmt *sub = df_step_new(t->p, DF_ELTWISE, (lm_loc){0});
    sub->sub = DF_SUB;
    sub->cb_b = C.max;
    sub->at_b = tk_muln(t, g, x->sbh);
    df_add_body(t->p, p, sub);
    df_stmt *e = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    e->sub = DF_EXP;
    df_add_body(t->p, p, e);
    tk_put(t, p);
    tk_cb(t, DF_CB_PUSH, CB_DIFF, tk_n(t, x->sbh));
}

static void eltwise_bcol(tk *t, int a, const df_expr *at, int rows, int cols, int out, const df_expr *at_out)
{
    df_stmt *e = tk_op(t, DF_ELTWISE);
    e->sub = DF_MUL;
    e->cb = a;
    e->at = at;
    e->cb_b = CB_DIFF;
    e->bcast = DF_BC_COL;
    e->rows = tk_n(t, rows);
    e->cols = tk_n(t, cols);
    e->cb_out = out;
    e->at_out = at_out;
    e->acc = tk_n(t, 1);
    tk_put(t, e);
}

/* The correction of row group g (salad_correct_fused): the previous output
 * and sums times exp(previous max - max), added onto this chunk's. */
static void salad(tk *t, const pctx *x, half C, half P, const df_expr *g)
{
    tk_cb(t, DF_CB_WAIT, CB_DIFF, tk_n(t, x->sbh));
    tk_cb(t, DF_CB_WAIT, P.out, tk_n(t, (int64_t)x->sbh * x->Dt));
    eltwise_bcol(t, P.out, tk_n(t, 0), x->sbh, x->Dt, C.out, tk_n(t, 0));
    eltwise_bcol(t, P.sum, tk_muln(t, g, x->sbh), x->sbh, 1, C.sum, tk_n(t, 0));
    tk_cb(t, DF_CB_POP, CB_DIFF, tk_n(t, x->sbh));
    tk_cb(t, DF_CB_POP, P.out, tk_n(t, (int64_t)x->sbh * x->Dt));
}

/* The last K chunk's normalisation of a row group (normalize_row_streaming):
 * per row, its partial sums reduced by a matmul with a column of ones, the
 * reciprocal (column 0), the output rows times it into the output CB. */
static void normalize(tk *t, const pctx *x, half C)
{
    tk_cb(t, DF_CB_PUSH, C.sum, tk_n(t, x->sbh));
    tk_cb(t, DF_CB_PUSH, C.out, tk_n(t, (int64_t)x->sbh * x->Dt));
    tk_for(t, "nr", tk_n(t, 0), tk_n(t, x->sbh));
    tk_cb(t, DF_CB_WAIT, C.sum, tk_n(t, 1));
    tk_cb(t, DF_CB_RESERVE, CB_RSCRATCH, tk_n(t, 1));
    df_stmt *m = tk_op(t, DF_MATMUL);
    m->cb = C.sum;
    m->cb_b = CB_COLID;
    m->cb_out = CB_RSCRATCH;
    m->m = m->k = m->nn = tk_n(t, 1);
    tk_put(t, m);
    tk_cb(t, DF_CB_PUSH, CB_RSCRATCH, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, CB_RSCRATCH, tk_n(t, 1));
    tk_cb(t, DF_CB_RESERVE, CB_RECIP, tk_n(t, 1));
    df_stmt *r = tk_op(t, DF_PCHAIN);
    r->cb = CB_RSCRATCH;
    r->cb_out = CB_RECIP;
    r->col0 = true;
    df_stmt *rc = df_step_new(t->p, DF_SFPU, (lm_loc){0});
    rc->sub = DF_RECIP;
    df_add_body(t->p, r, rc);
    tk_put(t, r);
    tk_cb(t, DF_CB_PUSH, CB_RECIP, tk_n(t, 1));
    tk_cb(t, DF_CB_POP, CB_RSCRATCH, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, CB_RECIP, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, C.out, tk_n(t, x->Dt));
    tk_cb(t, DF_CB_RESERVE, CB_OUT, tk_n(t, x->Dt));
    df_stmt *e = tk_op(t, DF_ELTWISE);
    e->sub = DF_MUL;
    e->cb = C.out;
    e->cb_b = CB_RECIP;
    e->bcast = DF_BC_COL;
    e->cols = tk_n(t, x->Dt);
    e->cb_out = CB_OUT;
    tk_put(t, e);
    tk_cb(t, DF_CB_PUSH, CB_OUT, tk_n(t, x->Dt));
    tk_cb(t, DF_CB_POP, CB_RECIP, tk_n(t, 1));
    tk_cb(t, DF_CB_POP, C.out, tk_n(t, x->Dt));
    tk_cb(t, DF_CB_POP, C.sum, tk_n(t, 1));
    tk_end(t);
}

/* Row group g's statistics and output done: normalised on the last chunk,
 * else pushed for the next one. */
static void row_done(tk *t, const pctx *x, half C, const df_expr *last)
{
    tk_if(t, last);
    normalize(t, x, C);
    tk_end(t);
    tk_if(t, tk_sub(t, tk_n(t, 1), last));
    tk_cb(t, DF_CB_PUSH, C.sum, tk_n(t, x->sbh));
    tk_cb(t, DF_CB_PUSH, C.out, tk_n(t, (int64_t)x->sbh * x->Dt));
    tk_end(t);
}

/* Phase 2's correction and completion of row group g (not on the first
 * chunk: nothing to correct). */
static void correct_and_finish(tk *t, const pctx *x, half C, half P, const df_expr *first, const df_expr *last,
                               const df_expr *g)
{
    tk_if(t, tk_sub(t, tk_n(t, 1), first));
    salad(t, x, C, P, g);
    tk_end(t);
    row_done(t, x, C, last);
}

/* One K-chunk step (sdpa_inner_loop_step) with P the previous half and C
 * the current one; k the chunk, nk the chunks of this Q chunk. */
static void k_step(tk *t, const pctx *x, half P, half C, const df_expr *qst, const df_expr *k, const df_expr *nk)
{
    int64_t q_pages = (int64_t)x->Sq * x->Dt, kv_pages = (int64_t)x->Sk * x->Dt;
    int64_t qk_pages = (int64_t)x->Sq * x->ncs * x->sbw;
    const df_expr *first = tk_sub(t, tk_n(t, 1), tk_min(t, k, tk_n(t, 1)));
    const df_expr *last = tk_sub(t, tk_n(t, 1), tk_min(t, tk_sub(t, tk_addn(t, nk, -1), k), tk_n(t, 1)));
    const df_expr *act = k_active(t, x, qst, k);
    const df_expr *ncs = tk_div(t, act, tk_n(t, x->sbw));
    /* the previous statistics are read from the front */
    tk_if(t, tk_sub(t, tk_n(t, 1), first));
    tk_cb(t, DF_CB_WAIT, P.max, tk_n(t, x->Sq));
    tk_cb(t, DF_CB_WAIT, P.sum, tk_n(t, x->Sq));
    tk_end(t);
    tk_cb(t, DF_CB_WAIT, CB_K, tk_n(t, kv_pages));
    tk_cb(t, DF_CB_RESERVE, CB_QK, tk_n(t, qk_pages));
    tk_cb(t, DF_CB_RESERVE, C.sum, tk_n(t, x->Sq));
    /* phase 1: row group 0's Q K^T, then each next row group's interleaved
       with the previous one's subtract-and-exp */
    const df_expr *s = tk_for(t, "s", tk_n(t, 0), ncs);
    qk_matmul(t, x, tk_n(t, 0), s);
    tk_end(t);
    row_group_tail(t, x, C, P, first, qst, k, tk_n(t, 0), act);
    const df_expr *g;
    if (x->nrg > 1) {
        g = tk_for(t, "g", tk_n(t, 1), tk_n(t, x->nrg));
        s = tk_for(t, "s", tk_n(t, 0), ncs);
        sub_exp(t, x, C, tk_addn(t, g, -1), s);
        qk_matmul(t, x, g, s);
        tk_end(t);
        row_group_tail(t, x, C, P, first, qst, k, g, act);
        tk_end(t);
    }
    tk_cb(t, DF_CB_POP, CB_K, tk_n(t, kv_pages));
    tk_if(t, last);
    tk_cb(t, DF_CB_POP, CB_Q, tk_n(t, q_pages));
    tk_end(t);
    /* phase 2: the last row group's subtract-and-exp interleaved with row
       group 0's P V, then P V row group by row group with the previous
       row group's correction */
    tk_cb(t, DF_CB_RESERVE, C.out, tk_n(t, q_pages));
    tk_cb(t, DF_CB_WAIT, CB_V, tk_n(t, kv_pages));
    s = tk_for(t, "s", tk_n(t, 0), ncs);
    sub_exp(t, x, C, tk_n(t, x->nrg - 1), s);
    if (x->nrg == 1)
        pack_to_unpack(t);
    pv_matmul(t, x, C, tk_n(t, 0), s, tk_n(t, 0));
    tk_end(t);
    pack_to_unpack(t);
    if (x->nrg > 1) {
        g = tk_for(t, "g", tk_n(t, 1), tk_n(t, x->nrg));
        tk_if(t, tk_sub(t, tk_n(t, 1), first));
        exp_diff(t, x, C, P, tk_addn(t, g, -1));
        tk_end(t);
        s = tk_for(t, "s", tk_n(t, 0), ncs);
        pv_matmul(t, x, C, g, s, tk_n(t, (int64_t)x->sbh * x->Dt));
        tk_end(t);
        correct_and_finish(t, x, C, P, first, last, tk_addn(t, g, -1));
        tk_end(t);
    }
    /* the last row group */
    tk_if(t, tk_sub(t, tk_n(t, 1), first));
    exp_diff(t, x, C, P, tk_n(t, x->nrg - 1));
    tk_end(t);
    correct_and_finish(t, x, C, P, first, last, tk_n(t, x->nrg - 1));
    tk_if(t, tk_sub(t, tk_n(t, 1), first));
    tk_cb(t, DF_CB_POP, P.max, tk_n(t, x->Sq));
    tk_cb(t, DF_CB_POP, P.sum, tk_n(t, x->Sq));
    tk_end(t);
    tk_cb(t, DF_CB_POP, CB_V, tk_n(t, kv_pages));
    tk_cb(t, DF_CB_POP, CB_QK, tk_n(t, qk_pages));
    tk_if(t, last);
    tk_cb(t, DF_CB_POP, C.max, tk_n(t, x->Sq));
    tk_end(t);
}

static void compute_chunk(tk *t, const pctx *x, const df_expr *b, const df_expr *h, const df_expr *qc)
{
    (void)b, (void)h;
    const half A = {CB_SUM_A, CB_MAX_A, CB_OUT_A}, B = {CB_SUM_B, CB_MAX_B, CB_OUT_B};
    const df_expr *qst = tk_muln(t, qc, x->Sq);
    const df_expr *nk = k_chunks(t, x, qst);
    tk_cb(t, DF_CB_WAIT, CB_Q, tk_n(t, (int64_t)x->Sq * x->Dt));
    /* the statistics' halves swap every chunk (std::swap of the CB
       aliases): two steps per trip, the second guarded */
    const df_expr *kp = tk_for(t, "kp", tk_n(t, 0), tk_div(t, tk_addn(t, nk, 1), tk_n(t, 2)));
    const df_expr *k0 = tk_muln(t, kp, 2);
    const df_expr *k = tk_for(t, "ke", k0, tk_addn(t, k0, 1));
    k_step(t, x, A, B, qst, k, nk);
    tk_end(t);
    k = tk_for(t, "ko", tk_addn(t, k0, 1), tk_min(t, nk, tk_addn(t, k0, 2)));
    k_step(t, x, B, A, qst, k, nk);
    tk_end(t);
    tk_end(t);
}

/* Once per core: the -inf and diagonal tiles of the causal stamp (which
 * the writer prepares on the chip) and the column of ones of the row-sum
 * matmul, kept at their CBs' fronts. */
static void compute_prologue(tk *t, const pctx *x)
{
    if (x->io->causal) {
        tk_cb(t, DF_CB_RESERVE, CB_MASK, tk_n(t, 2));
        df_stmt *f = tk_op(t, DF_FILL);
        f->cb_out = CB_MASK;
        f->n = tk_n(t, 1);
        f->scalar = -INFINITY;
        tk_put(t, f);
        tk_cb(t, DF_CB_RESERVE, CB_ZERO, tk_n(t, 1));
        f = tk_op(t, DF_FILL);
        f->cb_out = CB_ZERO;
        f->n = tk_n(t, 1);
        tk_put(t, f);
        tk_cb(t, DF_CB_PUSH, CB_ZERO, tk_n(t, 1));
        tk_cb(t, DF_CB_WAIT, CB_ZERO, tk_n(t, 1));
        df_stmt *m = tk_op(t, DF_MASK);
        m->cb = CB_ZERO;
        m->cb_out = CB_MASK;
        m->at_out = tk_n(t, 1);
        m->p1r = tk_n(t, 1);
        m->p1c = tk_n(t, -1);
        tk_put(t, m);
        tk_cb(t, DF_CB_PUSH, CB_MASK, tk_n(t, 2));
        tk_cb(t, DF_CB_POP, CB_ZERO, tk_n(t, 1));
        tk_cb(t, DF_CB_WAIT, CB_MASK, tk_n(t, 2));
    }
    tk_cb(t, DF_CB_RESERVE, CB_COLID, tk_n(t, 1));
    df_stmt *f = tk_op(t, DF_FILL);
    f->cb_out = CB_COLID;
    f->n = tk_n(t, 1);
    f->scalar = 1.0;
    tk_put(t, f);
    tk_cb(t, DF_CB_PUSH, CB_COLID, tk_n(t, 1));
    tk_cb(t, DF_CB_WAIT, CB_COLID, tk_n(t, 1));
}

/* ---- the program ----------------------------------------------------------------- */

static bool refuse(char *why, size_t n, const char *fmt, const char *a, int64_t v)
{
    snprintf(why, n, fmt, a, (long long)v);
    return false;
}

/* The config and job as this program writes them; false with the reason. */
static bool plan(pctx *x, const ttnn_sdpa_config *cfg, const ttnn_kernel_io *io, const arch_desc *a, bool fp32_acc,
                 char *why, size_t n)
{
    memset(x, 0, sizeof *x);
    x->cfg = cfg;
    x->io = io;
    x->a = a;
    if (io->S % 32 || io->D % 32)
        return refuse(why, n, "%s: the sequence (%lld) must be whole tiles", "TTNN's SDPA kernel program", io->S);
    x->St = io->S / 32;
    x->Sq = cfg->Sq_chunk_t;
    x->Sk = cfg->Sk_chunk_t;
    x->Dt = cfg->DHt;
    x->sbh = cfg->qk_subblock_h;
    x->sbw = cfg->qk_subblock_w;
    if (x->Sq % x->sbh || x->Sk % x->sbw)
        return refuse(why, n, "%s: TTNN's Q K^T sub-block does not divide its chunks (k chunk %lld tiles)",
                      "TTNN's SDPA kernel program", x->Sk);
    x->nrg = x->Sq / x->sbh;
    x->ncs = x->Sk / x->sbw;
    /* the last chunk of a padded sequence is narrowed to its valid tiles */
    if ((x->St % x->Sk) % x->sbw)
        return refuse(why, n, "%s: the sequence's last K chunk (%lld tiles) is not whole sub-blocks",
                      "TTNN's SDPA kernel program", x->St % x->Sk);
    /* causal narrowing needs the diagonal to fall on a sub-block boundary */
    x->narrow = io->causal && x->Sq % x->sbw == 0;
    x->exp_on_pack = !fp32_acc;
    /* P V: TTNN's sub-block, its height within a row group */
    int dst = fp32_acc ? a->dst_tiles_half_32b : a->dst_tiles_half_16b;
    x->pvw = cfg->pv_subblock_w;
    if (x->Dt % x->pvw)
        return refuse(why, n, "%s: TTNN's P V sub-block width does not divide the head dim (%lld tiles)",
                      "TTNN's SDPA kernel program", x->Dt);
    x->pvh = LM_MIN(cfg->pv_subblock_h, x->sbh);
    while (x->sbh % x->pvh || x->pvh * x->pvw > dst)
        x->pvh--;
    /* read barrier threshold (get_barrier_read_threshold): 512 / cores
       1152-byte units of Q's tiles */
    int64_t tb = a->tile_bytes[io->fq];
    x->thr = (int)LM_MAX(1, ((512 / cfg->num_cores) * (1024 + 128)) / tb);
    return true;
}

static void declare_cbs(df_program *p, df_class *c, const pctx *x)
{
    const ttnn_kernel_io *io = x->io;
    int64_t sq = x->Sq, sk = x->Sk, dh = x->Dt;
    df_add_cb(p, c, CB_Q, io->fq, df_const(p, sq * dh * (x->cfg->q_per_core > 1 ? 2 : 1)), (lm_loc){0});
    df_add_cb(p, c, CB_K, io->fk, df_const(p, sk * dh * 2), (lm_loc){0});
    df_add_cb(p, c, CB_V, io->fv, df_const(p, sk * dh * 2), (lm_loc){0});
    if (io->causal) {
        df_add_cb(p, c, CB_MASK, ARCH_BF16, df_const(p, 2), (lm_loc){0});
        df_add_cb(p, c, CB_ZERO, ARCH_BF16, df_const(p, 1), (lm_loc){0});
    }
    df_add_cb(p, c, CB_COLID, ARCH_BF16, df_const(p, 1), (lm_loc){0});
    df_add_cb(p, c, CB_RSCRATCH, ARCH_BF16, df_const(p, 1), (lm_loc){0});
    df_add_cb(p, c, CB_RECIP, ARCH_BF16, df_const(p, 1), (lm_loc){0});
    df_add_cb(p, c, CB_SYNC, ARCH_BF16, df_const(p, 1), (lm_loc){0});
    df_add_cb(p, c, CB_OUT, io->fo, df_const(p, sq * dh), (lm_loc){0});
    df_add_cb(p, c, CB_QK, ARCH_BF16, df_const(p, sq * sk), (lm_loc){0});
    df_add_cb(p, c, CB_OUT_A, ARCH_BF16, df_const(p, sq * dh), (lm_loc){0});
    df_add_cb(p, c, CB_OUT_B, ARCH_BF16, df_const(p, sq * dh), (lm_loc){0});
    df_add_cb(p, c, CB_MAX_A, ARCH_BF16, df_const(p, sq), (lm_loc){0});
    df_add_cb(p, c, CB_MAX_B, ARCH_BF16, df_const(p, sq), (lm_loc){0});
    df_add_cb(p, c, CB_SUM_A, ARCH_BF16, df_const(p, sq), (lm_loc){0});
    df_add_cb(p, c, CB_SUM_B, ARCH_BF16, df_const(p, sq), (lm_loc){0});
    df_add_cb(p, c, CB_DIFF, ARCH_BF16, df_const(p, x->sbh), (lm_loc){0});
}

/* The core's ranges (ttnn_sdpa_prefill_core_work) as class arguments of
 * its index i = cy * gx + cx. */
static void core_args(df_program *p, df_class *c, pctx *x, tk *t)
{
    const ttnn_sdpa_config *cfg = x->cfg;
    const df_expr *i = tk_add(t, tk_muln(t, df_slot(p, DF_SLOT_CY), x->io->grid_x), df_slot(p, DF_SLOT_CX));
    int qp = cfg->q_parallel, hp = cfg->head_parallel;
    const df_expr *b0 = tk_muln(t, tk_div(t, i, tk_n(t, (int64_t)hp * qp)), cfg->batch_per_core);
    const df_expr *h0 = tk_muln(t, tk_mod(t, tk_div(t, i, tk_n(t, qp)), tk_n(t, hp)), cfg->heads_per_core);
    const df_expr *q0 = tk_muln(t, tk_mod(t, i, tk_n(t, qp)), cfg->q_per_core);
    const df_expr *nq = tk_n(t, cfg->q_num_chunks);
    x->b0 = df_slot(p, df_add_arg(p, c, "bat0", tk_min(t, b0, tk_n(t, cfg->B))));
    x->b1 = df_slot(p, df_add_arg(p, c, "bat1", tk_min(t, tk_addn(t, b0, cfg->batch_per_core), tk_n(t, cfg->B))));
    x->h0 = df_slot(p, df_add_arg(p, c, "head0", tk_min(t, h0, tk_n(t, cfg->NQH))));
    x->h1 = df_slot(p, df_add_arg(p, c, "head1", tk_min(t, tk_addn(t, h0, cfg->heads_per_core), tk_n(t, cfg->NQH))));
    x->q0 = df_slot(p, df_add_arg(p, c, "qch0", tk_min(t, q0, nq)));
    x->nqc = df_slot(p, df_add_arg(p, c, "qchn", tk_sub(t, tk_min(t, tk_addn(t, q0, cfg->q_per_core), nq), x->q0)));
}

struct df_program *ttnn_sdpa_prefill_program(const ttnn_sdpa_config *cfg, const ttnn_kernel_io *io,
                                             arch_fidelity fidelity, bool fp32_acc, const arch_desc *a, char *why,
                                             size_t whylen)
{
    pctx x;
    if (!plan(&x, cfg, io, a, fp32_acc, why, whylen))
        return NULL;
    df_program *p = df_new("ttnn_sdpa_prefill");
    int64_t rows_q = io->B * io->H * io->S, rows_kv = io->B * io->HKV * io->S;
    x.tq = df_add_tensor(p, io->q, df_const(p, rows_q), df_const(p, io->D), io->fq, DF_INPUT, (lm_loc){0});
    x.tk = df_add_tensor(p, io->k, df_const(p, rows_kv), df_const(p, io->D), io->fk, DF_INPUT, (lm_loc){0});
    x.tv = df_add_tensor(p, io->v, df_const(p, rows_kv), df_const(p, io->D), io->fv, DF_INPUT, (lm_loc){0});
    x.to = df_add_tensor(p, io->o, df_const(p, rows_q), df_const(p, io->D), io->fo, DF_OUTPUT, (lm_loc){0});
    df_class *c = df_add_class(p, "sdpa", df_const(p, 0), df_const(p, 0), df_const(p, io->grid_x - 1),
                               df_const(p, io->grid_y - 1), (lm_loc){0});
    c->fidelity = fidelity;
    c->fp32_acc = fp32_acc;
    tk t;
    tk_init(&t, p, c, DF_READER);
    core_args(p, c, &x, &t);
    declare_cbs(p, c, &x);
    for_chunks(&t, &x, reader_chunk);
    tk_init(&t, p, c, DF_COMPUTE);
    compute_prologue(&t, &x);
    for_chunks(&t, &x, compute_chunk);
    bool failed = t.failed;
    tk_init(&t, p, c, DF_WRITER);
    for_chunks(&t, &x, writer_chunk);
    failed |= t.failed;
    lm_diag d;
    lm_diag_init(&d, NULL);
    if (failed || !df_bind(p, NULL, 0, &d)) {
        snprintf(why, whylen, "TTNN's SDPA kernel program has more loops than a class has variables");
        df_free(p);
        return NULL;
    }
    return p;
}

struct df_program *ttnn_kernel_program(const ttnn_pick *r, arch_fidelity fidelity, bool fp32_acc, const arch_desc *a,
                                       char *why, size_t whylen)
{
    if (!r->ok) {
        snprintf(why, whylen, "%s", r->why);
        return NULL;
    }
    if (r->family == TTNN_FAMILY_SDPA_PREFILL)
        return ttnn_sdpa_prefill_program(&r->sdpa, &r->io, fidelity, fp32_acc, a, why, whylen);
    if (r->family == TTNN_FAMILY_SDPA_DECODE)
        return ttnn_sdpa_decode_program(&r->dec, &r->io, fidelity, fp32_acc, a, why, whylen);
    snprintf(why, whylen, "TTNN's kernels are written as dataflow programs for SDPA prefill and decode only; a %s "
                          "runs as TTNN's schedule (--schedule ttnn)",
             ttnn_family_name(r->family));
    return NULL;
}
