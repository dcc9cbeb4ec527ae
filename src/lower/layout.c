/* layout.c - the DRAM tile layout of a tensor (2-D, padded to whole tiles,
 * or folded) and the decision to fold it (sched_tensor_folds); exported for
 * loomc run, which moves data in and out. Also the block pointer an access
 * goes through and whether it walks the tensor's own dimensions, which the
 * decision and the accesses (laccess.c) read. */
#include "lower/lower_int.h"

#include <string.h>

/* ======================================================================
 * Tensor layout (exported for loomc run, which moves data in and out)
 * ==================================================================== */

int64_t lw_pad32(int64_t n) { return (n + LW_TILE - 1) / LW_TILE * LW_TILE; }

void sched_tensor_dims(const int64_t *shape, int rank, bool fold, int64_t *rows, int64_t *cols)
{
    if (rank <= 0) {
        *rows = *cols = 1;
        return;
    }
    *cols = lw_pad32(shape[rank - 1]);
    if (rank == 1) {
        *rows = 1;
        return;
    }
    int64_t r = fold ? 1 : lw_pad32(shape[rank - 2]);
    for (int d = 0; d < rank - (fold ? 1 : 2); d++)
        r *= shape[d];
    *rows = fold ? lw_pad32(r) : r;
}

/* Row of the 2-D layout holding element idx of the tensor: the leading
 * indices in mixed radix, times the padded extent of dimension r-2 (or,
 * folded, all of them in mixed radix with dimension r-2). */
static int64_t layout_row(const int64_t *shape, int rank, bool fold, const int64_t *idx)
{
    if (rank < 2)
        return 0;
    int64_t lead = 0;
    for (int d = 0; d < rank - 2; d++)
        lead = lead * shape[d] + idx[d];
    return lead * (fold ? shape[rank - 2] : lw_pad32(shape[rank - 2])) + idx[rank - 2];
}

static void layout_move(const int64_t *shape, int rank, bool fold, float *nd, float *flat, bool to_flat)
{
    int64_t rows, cols;
    sched_tensor_dims(shape, rank, fold, &rows, &cols);
    int64_t n = 1;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    if (to_flat)
        memset(flat, 0, (size_t)(rows * cols) * sizeof *flat);
    int64_t idx[TIR_MAX_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t rem = e;
        for (int d = rank - 1; d >= 0; d--) {
            idx[d] = rem % shape[d];
            rem /= shape[d];
        }
        int64_t at = layout_row(shape, rank, fold, idx) * cols + (rank > 0 ? idx[rank - 1] : 0);
        if (to_flat)
            flat[at] = nd[e];
        else
            nd[e] = flat[at];
    }
}

void sched_tensor_to_2d(const float *nd, const int64_t *shape, int rank, bool fold, float *flat)
{
    layout_move(shape, rank, fold, (float *)nd, flat, true);
}

void sched_tensor_from_2d(const float *flat, const int64_t *shape, int rank, bool fold, float *nd)
{
    layout_move(shape, rank, fold, nd, (float *)flat, false);
}

/* The block pointer or descriptor an access goes through: its make op,
 * followed back through advances and loop-carried arguments. */
const tir_op *lw_make_of(const tir_value *v)
{
    for (int guard = 0; v && guard < 64; guard++) {
        if (v->def) {
            if (v->def->code == TIR_MAKE_BLOCK_PTR || v->def->code == TIR_MAKE_DESC)
                return v->def;
            if (v->def->code != TIR_ADVANCE)
                return NULL;
            v = v->def->opnds[0];
        } else if (v->block && v->block->owner && v->block->owner->code == TIR_FOR && v->argno >= 1) {
            v = tir_for_init(v->block->owner, v->argno - 1);
        } else {
            return NULL;
        }
    }
    return NULL;
}

/* True when the access analysis placed the access on its tensor's own
 * dimensions (every stride of the view is one of the tensor's); false when
 * the access's dimensions are a view's. */
bool lw_on_tensor_dims(const acc_access *aa)
{
    const tir_op *m = lw_make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    if (!m || !t || !t->strides)
        return true;
    int rk = m->rank;
    if (aa->rank != rk)
        return true;
    bool all = aa->rank == t->rank;
    for (int i = 0; i < rk && i < TIR_MAX_RANK; i++) {
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        bool found = false;
        for (int d = 0; d < t->rank; d++)
            found |= st && t->strides[d] == st;
        all &= found;
    }
    return all;
}

/* Whether an access reads or writes rows of several indices of the leading
 * dimensions as one run: its dimensions are a view's (q of [B, H, D] seen as
 * [B*HKV, H/HKV, D]), or a view dimension placed on dimension r-2 is longer
 * than it (o of [B, H, D] seen as [B*H, D]). */
static bool spans_leading(const acc_access *aa, int64_t inner, const sym_env *sizes)
{
    if (!lw_on_tensor_dims(aa))
        return true;
    const tir_op *m = lw_make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    if (!m || m->code != TIR_MAKE_BLOCK_PTR)
        return false;
    int rk = m->rank;
    bool used[TIR_MAX_RANK] = {0};
    for (int i = 0; i < rk; i++) {
        /* the tensor dimension the analysis placed view dimension i on */
        const sym_expr *st = m->opnds[1 + rk + i]->sym;
        int d = t->rank - 1;
        while (d >= 0 && (used[d] || !st || t->strides[d] != st))
            d--;
        if (d < 0)
            continue;
        used[d] = true;
        int64_t ext;
        if (d == t->rank - 2 && sym_eval(m->opnds[1 + i]->sym, sizes, &ext) == SYM_OK && ext > inner)
            return true;
    }
    return false;
}

bool sched_tensor_folds(const tir_tensor *t, const acc_result *const *acc, int n, const sym_env *sizes)
{
    int64_t inner;
    if (!t || t->rank < 3 || sym_eval(t->shape[t->rank - 2], sizes, &inner) != SYM_OK || inner == lw_pad32(inner))
        return false; /* both layouts are the same */
    for (int l = 0; l < n; l++)
        for (int i = 0; acc[l] && i < acc[l]->n; i++)
            if (acc[l]->acc[i].tensor == t && spans_leading(&acc[l]->acc[i], inner, sizes))
                return true;
    return false;
}
