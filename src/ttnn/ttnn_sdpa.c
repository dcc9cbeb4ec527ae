/* ttnn_sdpa.c - TTNN's default SDPA schedules: flash-attention prefill and
 * flash decode, re-derived.
 *
 * Prefill: how TTNN chunks Q and K, spreads (batch, head, Q chunk) work
 * over the grid, pairs low and high Q chunks under a causal mask, picks the
 * two matmuls' sub-blocks and sizes its circular buffers when the user
 * gives no program config.  Decode: the default K chunk, how cores are
 * dealt to (batch, KV head) groups, how each group splits the KV cache and
 * how the partial results are reduced.  docs/baselines.md lists the rules,
 * their sources and the decisions taken where the paraphrase was silent.
 */
#include "ttnn/ttnn.h"

#include <string.h>

/* ---- prefill ------------------------------------------------------------ */

static bool sdpa_reject(ttnn_sdpa_config *c, const char *why)
{
    c->ok = false;
    snprintf(c->why, sizeof c->why, "%s", why);
    return false;
}

/* QK^T and PV sub-blocks: as wide as Dst allows (up to the full row); when
 * that is the full row, as tall as the rest of Dst allows.  For QK^T a full
 * Dst-wide single row becomes 2 x dst/2 when both chunks are even, which
 * feeds the matrix engine more rows per operation. */
static void sdpa_subblocks(ttnn_sdpa_config *c)
{
    int dst = c->dst_size;
    int w = LM_MIN(c->Sk_chunk_t, dst);
    int h = w == c->Sk_chunk_t ? LM_MIN(c->Sq_chunk_t, dst / w) : 1;
    bool tweak = false;
    if (w == dst && h == 1 && c->Sk_chunk_t % 2 == 0 && c->Sq_chunk_t % 2 == 0) {
        w = dst / 2;
        h = 2;
        tweak = true;
    }
    c->qk_in0_block_w = c->DHt;
    c->qk_subblock_h = h;
    c->qk_subblock_w = w;

    int pw = LM_MIN(c->DHt, dst);
    int ph = pw == c->DHt ? LM_MIN(c->Sq_chunk_t, dst / pw) : 1;
    c->pv_in0_block_w = c->Sk_chunk_t;
    c->pv_subblock_h = ph;
    c->pv_subblock_w = pw;

    ttnn_explain *e = &c->explain;
    ttnn_explain_add(e, "qk_in0_block_w", c->qk_in0_block_w, "DHt: the whole head dim in one K block");
    ttnn_explain_add(e, "qk_subblock_w", w, "%s",
                   tweak ? "min(Sk_chunk_t, dst) halved: 2 x dst/2 since both chunks are even"
                         : "min(Sk_chunk_t, dst)");
    ttnn_explain_add(e, "qk_subblock_h", h, "%s",
                   tweak ? "2 (see qk_subblock_w)"
                   : w == c->Sk_chunk_t ? "min(Sq_chunk_t, dst / sub_w): sub_w is the full row"
                                        : "1: sub_w is not the full row");
    ttnn_explain_add(e, "pv_in0_block_w", c->pv_in0_block_w, "Sk_chunk_t: the whole K chunk in one block");
    ttnn_explain_add(e, "pv_subblock_w", pw, "min(DHt, dst)");
    ttnn_explain_add(e, "pv_subblock_h", ph, "%s",
                   pw == c->DHt ? "min(Sq_chunk_t, dst / sub_w): sub_w is the full row"
                                : "1: sub_w is not the full row");
    /* TTNN does not check these divide; say so instead of failing. */
    if (c->Sq_chunk_t % h || c->Sk_chunk_t % w || c->Sq_chunk_t % ph || c->DHt % pw)
        ttnn_explain_add(e, "warning", 0, "a sub-block does not divide its block; TTNN would compute "
                       "wrong tile counts for this shape");
}

static void set_cb(ttnn_sdpa_config *c, const ttnn_sdpa_input *in, ttnn_sdpa_cb_id id, arch_format f,
                   int64_t tiles)
{
    c->cb[id].present = true;
    c->cb[id].fmt = f;
    c->cb[id].tiles = tiles;
    c->cb[id].bytes = tiles * in->tile_bytes[f];
    c->cb_total_bytes += c->cb[id].bytes;
}

static void sdpa_cbs(ttnn_sdpa_config *c, const ttnn_sdpa_input *in)
{
    int64_t sq = c->Sq_chunk_t, sk = c->Sk_chunk_t, dh = c->DHt;
    int qbuf = c->q_per_core > 1 ? 2 : 1;
    /* Intermediates are bf16 even with fp32 accumulation (TTNN disabled
       fp32 CBs there); the generated mask is bfp4_b on the default path. */
    set_cb(c, in, TTNN_SDPA_CB_Q, in->fmt_q, sq * dh * qbuf);
    set_cb(c, in, TTNN_SDPA_CB_K, in->fmt_k, sk * dh * 2);
    set_cb(c, in, TTNN_SDPA_CB_V, in->fmt_v, sk * dh * 2);
    if (in->causal || c->padded_mask)
        set_cb(c, in, TTNN_SDPA_CB_MASK, ARCH_BFP4_B, sq * sk * 2);
    set_cb(c, in, TTNN_SDPA_CB_QK, ARCH_BF16, sq * sk);
    set_cb(c, in, TTNN_SDPA_CB_OUT_IM, ARCH_BF16, sq * dh);
    set_cb(c, in, TTNN_SDPA_CB_OUT_ACC, ARCH_BF16, sq * dh);
    set_cb(c, in, TTNN_SDPA_CB_OUT, in->fmt_out, sq * dh);
    set_cb(c, in, TTNN_SDPA_CB_STATS, ARCH_BF16, 5 * sq);
    set_cb(c, in, TTNN_SDPA_CB_SCALAR, ARCH_BF16, 2);

    ttnn_explain *e = &c->explain;
    ttnn_explain_add(e, "cb_q_tiles", c->cb[TTNN_SDPA_CB_Q].tiles, "Sq_chunk_t x DHt%s",
                   qbuf == 2 ? " x 2: doubled because a core takes more than one Q chunk"
                             : ": single because a core takes one Q chunk");
    ttnn_explain_add(e, "cb_k_tiles", c->cb[TTNN_SDPA_CB_K].tiles, "Sk_chunk_t x DHt x 2 (double-buffered)");
    ttnn_explain_add(e, "cb_v_tiles", c->cb[TTNN_SDPA_CB_V].tiles, "Sk_chunk_t x DHt x 2 (double-buffered)");
    ttnn_explain_add(e, "cb_mask_tiles", c->cb[TTNN_SDPA_CB_MASK].tiles, "%s",
                   c->cb[TTNN_SDPA_CB_MASK].present
                       ? "Sq_chunk_t x Sk_chunk_t x 2 in bfp4_b (double-buffered)"
                       : "no mask: not causal and no padding");
    ttnn_explain_add(e, "cb_qk_tiles", c->cb[TTNN_SDPA_CB_QK].tiles, "Sq_chunk_t x Sk_chunk_t scores, bf16");
    ttnn_explain_add(e, "cb_out_acc_tiles", c->cb[TTNN_SDPA_CB_OUT_ACC].tiles,
                   "Sq_chunk_t x DHt, bf16 (and as much again for the chunk's P V product)");
    ttnn_explain_add(e, "cb_total_bytes", c->cb_total_bytes,
                   "all CBs incl. output, five statistics CBs and two scalar tiles");
}

bool ttnn_sdpa_prefill_default(const ttnn_sdpa_input *in, ttnn_sdpa_config *c)
{
    memset(c, 0, sizeof *c);
    c->ok = true;
    if (in->B < 1 || in->NQH < 1 || in->NKH < 1 || in->Sq < 1 || in->Sk < 1 || in->DH < 1)
        return sdpa_reject(c, "B, heads, sequence lengths and head dim must be positive");
    if (in->NQH % in->NKH)
        return sdpa_reject(c, "query heads must be a multiple of key/value heads");
    if (in->DH % 32)
        return sdpa_reject(c, "the head dim must be a multiple of 32");
    if (in->grid_x < 1 || in->grid_y < 1)
        return sdpa_reject(c, "the grid must have at least one core");
    if (in->q_chunk < 0 || in->k_chunk < 0 || in->q_chunk % 32 || in->k_chunk % 32)
        return sdpa_reject(c, "chunk sizes must be multiples of 32");
    const arch_format fm[4] = {in->fmt_q, in->fmt_k, in->fmt_v, in->fmt_out};
    for (int i = 0; i < 4; i++)
        if ((unsigned)fm[i] >= ARCH_NFORMATS)
            return sdpa_reject(c, "unknown tile format");
    for (int f = 0; f < ARCH_NFORMATS; f++)
        if (in->tile_bytes[f] <= 0)
            return sdpa_reject(c, "tile sizes must be given for every format");

    ttnn_explain *e = &c->explain;
    c->B = in->B;
    c->NQH = in->NQH;
    c->NKH = in->NKH;
    c->q_chunk = in->q_chunk ? in->q_chunk : 32;
    c->k_chunk = in->k_chunk ? in->k_chunk : 32;
    ttnn_explain_add(e, "q_chunk", c->q_chunk, "%s", in->q_chunk ? "given" : "default 32 (no program config)");
    ttnn_explain_add(e, "k_chunk", c->k_chunk, "%s", in->k_chunk ? "given" : "default 32 (no program config)");
    c->Sq_chunk_t = c->q_chunk / 32;
    c->Sk_chunk_t = c->k_chunk / 32;
    c->DHt = in->DH / 32;
    /* Sequences are padded up to whole chunks. */
    c->padded_Sq = lm_cdiv(in->Sq, c->q_chunk) * c->q_chunk;
    c->padded_Sk = lm_cdiv(in->Sk, c->k_chunk) * c->k_chunk;
    if (c->padded_Sq / c->q_chunk > (1 << 24) || c->padded_Sk / c->k_chunk > (1 << 24))
        return sdpa_reject(c, "sequence too long");
    c->q_num_chunks = (int)(c->padded_Sq / c->q_chunk);
    c->k_num_chunks = (int)(c->padded_Sk / c->k_chunk);
    c->padded_mask = !in->causal && (c->padded_Sq != in->Sq || c->padded_Sk != in->Sk);
    ttnn_explain_add(e, "q_num_chunks", c->q_num_chunks, "Sq padded to %lld = whole q chunks",
                   (long long)c->padded_Sq);
    ttnn_explain_add(e, "k_num_chunks", c->k_num_chunks, "Sk padded to %lld = whole k chunks",
                   (long long)c->padded_Sk);

    /* Fill the grid with batches first, then heads, then Q chunks. */
    int cores = in->grid_x * in->grid_y;
    c->num_cores = cores;
    c->batch_parallel = LM_MIN(in->B, cores);
    c->head_parallel = LM_MIN(cores / c->batch_parallel, in->NQH);
    c->q_parallel = LM_MIN(cores / (c->batch_parallel * c->head_parallel), c->q_num_chunks);
    c->batch_per_core = (int)lm_cdiv(in->B, c->batch_parallel);
    c->heads_per_core = (int)lm_cdiv(in->NQH, c->head_parallel);
    c->q_per_core = (int)lm_cdiv(c->q_num_chunks, c->q_parallel);
    ttnn_explain_add(e, "batch_parallel", c->batch_parallel, "min(B %d, cores %d)", in->B, cores);
    ttnn_explain_add(e, "head_parallel", c->head_parallel, "min(cores / batch_parallel, NQH %d)", in->NQH);
    ttnn_explain_add(e, "q_parallel", c->q_parallel, "min(cores / (batch x head parallel), q chunks %d)",
                   c->q_num_chunks);
    ttnn_explain_add(e, "batch_per_core", c->batch_per_core, "ceil(B / batch_parallel)");
    ttnn_explain_add(e, "heads_per_core", c->heads_per_core, "ceil(NQH / head_parallel)");
    ttnn_explain_add(e, "q_per_core", c->q_per_core, "ceil(q chunks / q_parallel)");

    /* Pairing low with high chunks balances causal work only when every
       core holds the same even number of chunks covering the sequence. */
    c->balanced = in->causal && (int64_t)c->q_per_core * c->q_parallel == c->q_num_chunks &&
                  c->q_per_core % 2 == 0;
    ttnn_explain_add(e, "balanced", c->balanced, "%s",
                   !in->causal ? "not causal: chunks in order"
                   : c->balanced ? "causal, chunks split evenly in an even count per core: "
                                   "each core takes half its chunks from the front and the mirror "
                                   "half from the back"
                                 : "causal but the chunk count per core is odd or uneven: chunks in order");

    c->active_cores = 0;
    for (int i = 0; i < cores; i++) {
        ttnn_sdpa_core_work w;
        if (ttnn_sdpa_prefill_core_work(c, i, &w, NULL, 0) > 0)
            c->active_cores++;
    }
    ttnn_explain_add(e, "active_cores", c->active_cores, "cores whose batch, head and Q-chunk ranges are "
                   "all non-empty (of %d)", cores);

    /* Compute config when none is given (fp32 accumulation may be given). */
    c->fidelity = ARCH_HIFI2;
    c->math_approx = true;
    c->exp_approx = true;
    c->fp32_acc = in->fp32_acc;
    c->packer_l1_acc = false;
    c->dst_size = c->fp32_acc ? 4 : 8;
    ttnn_explain_add(e, "fidelity", c->fidelity, "HiFi2, approximate math and exp, %s, "
                   "no packer L1 acc: SDPA's defaults", in->fp32_acc ? "fp32 acc given" : "no fp32 acc");
    ttnn_explain_add(e, "dst_size", c->dst_size, "8 Dst tiles in half-sync mode (4 with fp32 acc)");
    sdpa_subblocks(c);
    sdpa_cbs(c, in);
    return true;
}

int ttnn_sdpa_prefill_core_work(const ttnn_sdpa_config *c, int core, ttnn_sdpa_core_work *w, int *chunks,
                              int cap)
{
    /* Core i's coordinates in the (batch, head, q) parallel grid, q fastest. */
    int qp = c->q_parallel, hp = c->head_parallel;
    int64_t b0 = (int64_t)(core / (hp * qp)) * c->batch_per_core;
    int64_t h0 = (int64_t)((core / qp) % hp) * c->heads_per_core;
    int64_t q0 = (int64_t)(core % qp) * c->q_per_core;
    w->batch_start = (int)LM_MIN(b0, c->B);
    w->batch_end = (int)LM_MIN(b0 + c->batch_per_core, c->B);
    w->head_start = (int)LM_MIN(h0, c->NQH);
    w->head_end = (int)LM_MIN(h0 + c->heads_per_core, c->NQH);
    w->q_start = (int)LM_MIN(q0, c->q_num_chunks);
    w->q_end = (int)LM_MIN(q0 + c->q_per_core, c->q_num_chunks);
    bool any = w->batch_end > w->batch_start && w->head_end > w->head_start && w->q_end > w->q_start;
    w->nchunks = any ? w->q_end - w->q_start : 0;

    int half = w->nchunks / 2;
    for (int i = 0; i < w->nchunks && i < cap; i++) {
        if (c->balanced && i >= half)
            chunks[i] = c->q_num_chunks - 1 - (w->q_start + (i - half));
        else
            chunks[i] = w->q_start + i;
    }
    return w->nchunks;
}

/* ---- decode ------------------------------------------------------------- */

static bool dec_reject(ttnn_decode_config *c, const char *why)
{
    c->ok = false;
    snprintf(c->why, sizeof c->why, "%s", why);
    return false;
}

int ttnn_decode_chunk_size(int64_t s)
{
    /* The loop starts at 2^1 without testing it, so an odd length gives 2. */
    int i = 1;
    while (i < 62 && i < s && s % ((int64_t)1 << (i + 1)) == 0)
        i++;
    int64_t v = (int64_t)1 << i;
    return (int)LM_MIN(v, 512);
}

void ttnn_decode_kv_range(int64_t valid_len, int k_chunk, int rank, int cph, int64_t *start, int64_t *end)
{
    int64_t n = lm_cdiv(valid_len, k_chunk);
    /* Ranks are dealt from the back of the cache: rank 0 (the reducer)
       gets the last chunks, so the root's own work ends last. */
    if (cph > n) {
        if (rank < n) {
            *start = n - rank - 1;
            *end = n - rank;
        } else {
            *start = *end = 0;
        }
        return;
    }
    int64_t per = n / cph, extra = n % cph;
    int64_t rev = cph - rank - 1;
    *start = rev * per + LM_MIN(extra, rev);
    *end = *start + per + (rev < extra ? 1 : 0);
}

static int trailing_ones(unsigned v)
{
    int t = 0;
    while (v & 1u) {
        v >>= 1;
        t++;
    }
    return t;
}

void ttnn_decode_tree(int rank, int n, ttnn_tree_node *t)
{
    memset(t, 0, sizeof *t);
    for (int r = 0; r < TTNN_TREE_MAX_ROUNDS; r++)
        t->children[r] = -1;
    t->parent = -1;
    t->send_round = -1;
    if (n <= 1) {
        t->root = true;
        return;
    }
    /* Binary tree on "virtual ids" vid = n-1-rank, so rank 0 is the root.
       A vid whose low r+1 bits are all ones receives from vid - 2^r in
       round r; every other vid sends to vid + 2^(its trailing ones) in the
       round equal to that count.  With n not a power of two a parent can
       fall past the end; such an orphan sends to the root instead. */
    int rounds = 0;
    while ((1 << rounds) < n)
        rounds++;
    t->rounds = rounds;
    unsigned vid = (unsigned)(n - 1 - rank);
    t->root = rank == 0;
    for (int r = 0; r < rounds && r < TTNN_TREE_MAX_ROUNDS; r++) {
        unsigned mask = (2u << r) - 1;
        if ((vid & mask) == mask) {
            unsigned child = vid - (1u << r);
            if (child < (unsigned)n)
                t->children[r] = n - 1 - (int)child;
        }
    }
    if (!t->root) {
        int k = trailing_ones(vid);
        unsigned pv = vid + (1u << k);
        t->parent = pv < (unsigned)n ? n - 1 - (int)pv : 0;
        t->send_round = k;
    } else {
        for (int cr = 1; cr < n; cr++) {
            unsigned cv = (unsigned)(n - 1 - cr);
            int k = trailing_ones(cv);
            if (cv + (1u << k) >= (unsigned)n && k < TTNN_TREE_MAX_ROUNDS && t->children[k] < 0)
                t->children[k] = cr;
        }
    }
}

bool ttnn_sdpa_decode_default(const ttnn_decode_input *in, ttnn_decode_config *c)
{
    memset(c, 0, sizeof *c);
    c->ok = true;
    if (in->B < 1 || in->NQH < 1 || in->NKV < 1 || in->S < 1 || in->DH < 1)
        return dec_reject(c, "B, heads, sequence length and head dim must be positive");
    if (in->NQH % in->NKV)
        return dec_reject(c, "query heads must be a multiple of key/value heads");
    if (in->DH % 32)
        return dec_reject(c, "the head dim must be a multiple of 32");
    if (in->grid_x < 1 || in->grid_y < 1 || in->max_cores_per_head < 0)
        return dec_reject(c, "the grid must have at least one core");

    ttnn_explain *e = &c->explain;
    if (in->k_chunk) {
        if (in->k_chunk % 32 || (in->k_chunk & (in->k_chunk - 1)))
            return dec_reject(c, "a given k_chunk must be a power of two and a multiple of 32");
        c->k_chunk = in->k_chunk;
        ttnn_explain_add(e, "k_chunk", c->k_chunk, "given");
    } else {
        c->k_chunk = ttnn_decode_chunk_size(in->S);
        if (c->k_chunk % 32) {
            snprintf(c->why, sizeof c->why,
                     "default k_chunk %d (largest power-of-two divisor of S = %lld) is not a "
                     "multiple of 32; TTNN rejects this shape",
                     c->k_chunk, (long long)in->S);
            c->ok = false;
            return false;
        }
        ttnn_explain_add(e, "k_chunk", c->k_chunk, "largest power-of-two divisor of S %lld, capped at 512",
                       (long long)in->S);
    }
    c->Sk_chunk_t = c->k_chunk / 32;
    c->k_num_chunks = lm_cdiv(in->S, c->k_chunk);
    c->DHt = in->DH / 32;
    /* Q heads sit in a tile's rows: one padded tile row block per batch. */
    c->PNH = (int)lm_cdiv(in->NQH, 32) * 32;
    c->PNHt = c->PNH / 32;
    c->q_heads_per_kv = in->NQH / in->NKV;
    ttnn_explain_add(e, "PNHt", c->PNHt, "NQH %d padded to %d rows = %d tile(s)", in->NQH, c->PNH, c->PNHt);
    ttnn_explain_add(e, "q_heads_per_kv", c->q_heads_per_kv, "Q rows each core uses against its KV head");

    int avail = in->grid_x * in->grid_y;
    if (avail < in->B)
        return dec_reject(c, "TTNN requires at least one core per batch");
    c->cores_available = avail;
    c->max_cores_per_head = in->max_cores_per_head ? in->max_cores_per_head : avail;
    int64_t cap = (int64_t)c->max_cores_per_head * in->B * in->NKV;
    c->cores_per_batch = (int)(LM_MIN((int64_t)avail, cap) / in->B);
    c->cores_per_head = LM_MAX(1, c->cores_per_batch / in->NKV);
    c->heads_per_core = (int)LM_MAX(1, lm_cdiv(in->NKV, c->cores_per_batch));
    c->active_cores = (int)((int64_t)c->cores_per_head * in->NKV * in->B / c->heads_per_core);
    c->num_reducers = in->NKV * in->B / c->heads_per_core;
    c->num_output_cores = in->B;
    ttnn_explain_add(e, "max_cores_per_head", c->max_cores_per_head, "%s",
                   in->max_cores_per_head ? "from the program config"
                                          : "no program config: every core may serve one head");
    ttnn_explain_add(e, "cores_per_batch", c->cores_per_batch, "min(cores %d, cap x B x NKV) / B %d", avail,
                   in->B);
    ttnn_explain_add(e, "cores_per_head", c->cores_per_head, "max(1, cores_per_batch / NKV %d)", in->NKV);
    ttnn_explain_add(e, "heads_per_core", c->heads_per_core, "max(1, ceil(NKV / cores_per_batch))");
    ttnn_explain_add(e, "active_cores", c->active_cores, "cores_per_head x NKV x B / heads_per_core");

    c->reduce = in->reduce;
    c->tree_rounds = 0;
    while ((1 << c->tree_rounds) < c->cores_per_head)
        c->tree_rounds++;
    c->single_combines = c->cores_per_head - 1;
    c->reduction_steps = c->reduce == TTNN_REDUCE_TREE ? c->tree_rounds : c->single_combines;
    if (c->reduce == TTNN_REDUCE_TREE && c->tree_rounds > TTNN_TREE_MAX_ROUNDS)
        return dec_reject(c, "the tree reduction supports at most 64 cores per head");
    ttnn_explain_add(e, "reduction_steps", c->reduction_steps, "%s",
                   c->reduce == TTNN_REDUCE_TREE
                       ? "tree (current TTNN): ceil(log2(cores_per_head)) rounds"
                       : "single reducer (older TTNN): it folds in cores_per_head - 1 partials");

    c->fidelity = ARCH_HIFI2;
    c->math_approx = true;
    c->exp_approx = true;
    c->fp32_acc = false;
    c->packer_l1_acc = false;
    ttnn_explain_add(e, "fidelity", c->fidelity, "HiFi2 with approximate math: decode's defaults");

    c->k_tiles = (int64_t)c->Sk_chunk_t * c->DHt * 2;
    c->v_tiles = (int64_t)c->Sk_chunk_t * c->DHt * 2;
    c->qk_tiles = (int64_t)c->PNHt * c->Sk_chunk_t;
    c->out_tiles = (int64_t)c->PNHt * c->DHt;
    c->stats_tiles = c->PNHt;
    ttnn_explain_add(e, "cb_k_tiles", c->k_tiles, "Sk_chunk_t x DHt x 2 (double-buffered); V the same");
    return true;
}

void ttnn_decode_core_role(const ttnn_decode_config *c, int core, ttnn_decode_role *r)
{
    memset(r, 0, sizeof *r);
    r->active = core >= 0 && core < c->active_cores;
    if (!r->active)
        return;
    /* Cores are taken row-major: a batch's cores are consecutive, and within
       them each KV head's workers are consecutive. */
    int in_batch = core % c->cores_per_batch;
    r->batch = core / c->cores_per_batch;
    r->first_kv_head = (in_batch / c->cores_per_head) * c->heads_per_core;
    r->rank = in_batch % c->cores_per_head;
    r->reducer = core % c->cores_per_head == 0;
    r->output = core % c->cores_per_batch == 0;
}
