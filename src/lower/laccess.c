/* laccess.c - the lowering's view of the block accesses: tensors, tile
 * coordinates, boundary checks and transports. */
#include "lower/lower_int.h"

#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Accesses: tensors, tile coordinates, transports
 * ==================================================================== */

int lw_tensor_index(lw *L, const tir_tensor *t)
{
    for (int i = 0; i < L->p->ntensors; i++)
        if (!strcmp(L->p->tensors[i].name, t->name))
            return i;
    return -1;
}

static bool add_term(lw *L, access *x, const sym_expr *var, int64_t rc, int64_t cc)
{
    for (int i = 0; i < x->nterms; i++)
        if (x->var[i] == var) {
            x->rco[i] += rc;
            x->cco[i] += cc;
            return true;
        }
    if (x->nterms == (int)LM_COUNT(x->var))
        return false;
    x->var[x->nterms] = var;
    x->rco[x->nterms] = rc;
    x->cco[x->nterms] = cc;
    x->nterms++;
    (void)L;
    return true;
}

/* The tensor dimension a view dimension of stride st walks: the innermost
 * not yet taken whose stride it is (as the access analysis matches them);
 * -1 if none. */
static int walked_dim(const tir_tensor *t, const sym_expr *st, const bool *used)
{
    int d = t->rank - 1;
    while (d >= 0 && (used[d] || !st || t->strides[d] != st))
        d--;
    return d;
}

/* Per access dimension: whether a boundary check clips it (descriptors clip
 * every dimension, block pointers the dimensions listed) and its extent
 * (the block pointer's shape along it, which may stop short of the
 * tensor's, else the tensor's; the view's when the dimensions are a
 * view's). */
static void clip_info(lw *L, const acc_access *aa, bool view, bool *checked, const sym_expr **ext)
{
    const tir_op *m = lw_make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    bool desc = aa->op->code == TIR_DESC_LOAD || aa->op->code == TIR_DESC_STORE;
    for (int d = 0; d < aa->rank; d++) {
        checked[d] = desc;
        ext[d] = view && m ? m->opnds[1 + d]->sym : d < t->rank ? t->shape[d] : NULL;
    }
    if (desc || !m)
        return;
    int rk = m->rank;
    bool used[TIR_MAX_RANK] = {0};
    for (int i = 0; i < rk; i++) {
        if (!(aa->op->bcheck >> i & 1))
            continue;
        if (view) {
            checked[i] = true;
            continue;
        }
        /* the tensor dimension this view dimension walks (as the analysis matched it) */
        int d = walked_dim(t, m->opnds[1 + rk + i]->sym, used);
        if (d >= 0) {
            used[d] = true;
            checked[d] = true;
            if (m->opnds[1 + i]->sym) /* the block pointer's shape, which may stop short of the tensor's */
                ext[d] = m->opnds[1 + i]->sym;
        }
    }
    (void)L;
}

/* lw_on_tensor_dims, with the view's strides in out. */
static bool view_strides(lw *L, const acc_access *aa, int64_t *out)
{
    const tir_op *m = lw_make_of(aa->op->opnds[0]);
    if (m)
        for (int i = 0; i < m->rank && i < TIR_MAX_RANK; i++) {
            const sym_expr *st = m->opnds[1 + m->rank + i]->sym;
            out[i] = 0;
            if (st)
                sym_eval(st, &L->s->values, &out[i]);
        }
    return lw_on_tensor_dims(aa);
}


/* The data-movement kernel that runs on a NoC: the simulator gives the
 * reader NoC 0 and the writer NoC 1 (TT-Metalium's defaults), so a transport
 * whose schedule fixes its NoC goes on that kernel. */
static df_kernel_kind noc_kernel(sched_noc n) { return n == SCHED_NOC_1 ? DF_WRITER : DF_READER; }

/* Whether a block pointer's dimensions of more than one element walk its
 * tensor's dimensions out of order (order=(0, 1): the tile is the
 * transpose of the block as the layout holds it). */
static bool view_permuted(lw *L, const acc_access *aa)
{
    const tir_op *m = lw_make_of(aa->op->opnds[0]);
    const tir_tensor *t = aa->tensor;
    const tir_type *bt = &aa->op->opnds[0]->type;
    if (!m || !t || !t->strides || m->code != TIR_MAKE_BLOCK_PTR || bt->rank != m->rank)
        return false;
    bool used[TIR_MAX_RANK] = {0};
    int last = -1;
    for (int i = 0; i < m->rank; i++) {
        int d = walked_dim(t, m->opnds[1 + m->rank + i]->sym, used);
        int64_t n;
        if (d < 0 || !lw_ev(L, bt->shape[i], &n, aa->op->loc))
            return false;
        used[d] = true;
        if (n <= 1)
            continue;
        if (d < last)
            return true;
        last = d;
    }
    return false;
}
/* Whether the rows inside the extent of a block of x (aa's, at these
 * values) move for less as runs of elements than as whole tiles, per tile
 * column: a command and a run of a tile row's elements for each row,
 * against a command and a tile (a 1-row operand; from the chip's command
 * cost and a core's NoC rate). Block floats move whole tiles only. */
static bool rows_cheaper(const lw *L, const access *x, const acc_access *aa, const int64_t *blk, int coldim,
                         const bool *checked, const sym_expr *const *ext)
{
    const arch_desc *a = L->a;
    arch_format f = L->p->tensors[x->tensor].format;
    if (f != ARCH_BF16 && f != ARCH_FP32)
        return false;
    int64_t rows = 1;
    for (int d = 0; d < aa->rank; d++) {
        int64_t e, b = blk[d];
        if (d == coldim)
            continue;
        if (checked[d] && ext[d] && sym_eval(ext[d], &L->s->values, &e) == SYM_OK && e < b)
            b = e;
        rows *= b;
    }
    double bpc = x->is_store ? a->core_write_bpc : a->core_read_bpc;
    double tile = (double)a->tile_bytes[f], run = tile / LW_TILE;
    return (double)rows * (a->noc_cmd_cycles + run / bpc) < a->noc_cmd_cycles + tile / bpc;
}

bool lw_plan_access(lw *L, int idx)
{
    const acc_access *aa = &L->acc->acc[idx];
    access *x = &L->ax[idx];
    x->aa = aa;
    x->index = idx;
    x->is_store = aa->is_store;
    x->sem_ready = x->sem_valid = -1;
    lm_loc loc = aa->op->loc;
    if (!aa->tensor) {
        lw_fail(L, loc, "a block access whose tensor is unknown");
        return false;
    }
    if (!aa->affine) {
        lw_fail(L, loc, "the offsets of this access of '%s' are not affine in the program and loop indices",
             aa->tensor->name);
        return false;
    }
    if (view_permuted(L, aa)) {
        lw_fail(L, loc, "this block of '%s' walks the tensor's dimensions out of order (its last dimension is not "
                        "the tensor's last): load the block in the tensor's order and transpose it with tl.trans",
                aa->tensor->name);
        return false;
    }
    x->tensor = lw_tensor_index(L, aa->tensor);
    int r = aa->rank;
    const tir_tensor *tt = aa->tensor;
    int tr_ = tt->rank;
    int64_t dim[TIR_MAX_RANK] = {0}, blk[TIR_MAX_RANK] = {0};
    for (int d = 0; d < tr_; d++)
        if (!lw_ev(L, tt->shape[d], &dim[d], loc))
            return false;
    for (int d = 0; d < r; d++)
        if (!lw_ev(L, aa->block[d], &blk[d], loc))
            return false;
    /* lrow[d]: rows of the 2-D layout a unit step along access dimension d
       moves; coldim: the dimension along the layout's columns. When the
       analysis placed the offsets on the tensor's dimensions they are those;
       otherwise they are a view's, whose strides say where each step goes. */
    int64_t lrow[TIR_MAX_RANK] = {0};
    int coldim = r - 1;
    int64_t vstride[TIR_MAX_RANK];
    bool view = !view_strides(L, aa, vstride);
    bool fold = tt->fold_rows;
    if (!view) {
        if (r >= 2) {
            lrow[r - 2] = 1;
            for (int d = r - 3; d >= 0; d--)
                lrow[d] = lrow[d + 1] * (d + 1 == r - 2 && !fold ? lw_pad32(dim[r - 2]) : dim[d + 1]);
        }
    } else {
        /* row-major element offsets of the view, laid onto the tensor's rows:
           exact when its rows are not padded, or there is one group of them,
           or the layout folds the leading dimensions into rows */
        int64_t rowlen = tr_ >= 1 ? dim[tr_ - 1] : 1, lead = 1;
        for (int d = 0; d + 2 < tr_; d++)
            lead *= dim[d];
        bool ok = rowlen == lw_pad32(rowlen) &&
                  (tr_ < 2 || lead == 1 || fold || dim[tr_ - 2] == lw_pad32(dim[tr_ - 2]));
        coldim = -1;
        for (int d = 0; ok && d < r; d++) {
            if (vstride[d] == 1 && coldim < 0)
                coldim = d;
            else if (vstride[d] % rowlen == 0)
                lrow[d] = vstride[d] / rowlen;
            else
                ok = false;
        }
        if (!ok || coldim < 0) {
            lw_fail(L, loc, "the view of '%s' (strides that are not the tensor's) does not map onto its tile layout",
                 tt->name);
            return false;
        }
    }
    /* The block's rows: contiguous when the dimensions that span more than
       one index nest exactly (each step of an outer one is a whole inner
       run), or evenly spaced when a single one spans (e.g. one row per
       split); anything else is refused. */
    int64_t rows_el = 1, rstride = 1;
    int span[TIR_MAX_RANK], nspan = 0;
    for (int d = 0; d < r; d++)
        if (d != coldim && blk[d] > 1) {
            rows_el *= blk[d];
            span[nspan++] = d;
        }
    for (int i = 1; i < nspan; i++) /* outermost (largest step) first */
        for (int j = i; j > 0 && lrow[span[j - 1]] < lrow[span[j]]; j--) {
            int t = span[j];
            span[j] = span[j - 1];
            span[j - 1] = t;
        }
    if (nspan == 1) {
        rstride = lrow[span[0]];
    } else if (nspan > 1) {
        bool nested = lrow[span[nspan - 1]] == 1;
        for (int i = 0; i + 1 < nspan; i++)
            nested &= lrow[span[i]] == blk[span[i + 1]] * lrow[span[i + 1]];
        if (!nested) {
            lw_fail(L, loc, "the block of '%s' is spread over its tile layout in more than one direction", tt->name);
            return false;
        }
    }
    int64_t cols_el = coldim >= 0 ? blk[coldim] : 1;
    /* boundary checks that can cut a block short: only the elements inside
       move (the rest of the pages keep what they held) */
    bool checked[TIR_MAX_RANK];
    const sym_expr *ext[TIR_MAX_RANK];
    clip_info(L, aa, view, checked, ext);
    bool pad_only = !view && !fold && r == tr_; /* every cut is at the tensor's own extent (below) */
    for (int d = 0; d < r; d++) {
        int64_t e;
        if (!checked[d] || !ext[d] || sym_eval(ext[d], &L->s->values, &e) != SYM_OK || blk[d] <= 1)
            continue;
        /* whole blocks: the extent and every offset are multiples of the block
           (an offset with another remainder can still cross the end) */
        bool aligned = e % blk[d] == 0 && e >= blk[d] && aa->dims[d].affine;
        int64_t v = 0;
        if (aligned && aa->dims[d].constant)
            aligned = sym_eval(aa->dims[d].constant, &L->s->values, &v) == SYM_OK && v % blk[d] == 0;
        for (int t = 0; aligned && t < aa->dims[d].nterms; t++)
            aligned = sym_eval(aa->dims[d].terms[t].coeff, &L->s->values, &v) == SYM_OK && v % blk[d] == 0;
        if (aligned)
            continue;
        pad_only &= e == dim[d];
        const sym_expr *left = sym_sub(L->sc, ext[d], aa->dims[d].offset ? aa->dims[d].offset : sym_const(L->sc, 0));
        if (d == coldim)
            x->clip_cols = left;
        else if (nspan == 1 && span[0] == d)
            x->clip_rows = left;
        else {
            lw_fail(L, loc, "a boundary check of '%s' cuts its block along a dimension the element moves cannot "
                         "shorten", tt->name);
            return false;
        }
    }
    x->rows_el = rows_el;
    x->cols_el = cols_el;
    x->rstride = rstride;
    x->coldim = coldim;
    memcpy(x->lrow, lrow, sizeof x->lrow);
    x->tr = lm_cdiv(rows_el, LW_TILE);
    x->tc = lm_cdiv(cols_el, LW_TILE);
    x->tiles = x->tr * x->tc;
    int64_t rk = 0, ck = 0;
    for (int d = 0; d < r; d++) {
        const acc_dim *ad = &aa->dims[d];
        int64_t cst;
        if (!lw_ev(L, ad->constant ? ad->constant : sym_const(L->sc, 0), &cst, loc))
            return false;
        bool is_col = d == coldim;
        if (is_col)
            ck += cst;
        else
            rk += cst * lrow[d];
        for (int t = 0; t < ad->nterms; t++) {
            int64_t co;
            if (!lw_ev(L, ad->terms[t].coeff, &co, loc))
                return false;
            if (!add_term(L, x, ad->terms[t].var, is_col ? 0 : co * lrow[d], is_col ? co : 0)) {
                lw_fail(L, loc, "too many index terms in an access of '%s'", aa->tensor->name);
                return false;
            }
        }
    }
    /* A padded dimension r-2 (not a multiple of 32) must not be walked past
       its extent by an offset: the next index lives a padded stride away. */
    if (!view && !fold && r >= 2 && dim[r - 2] != lw_pad32(dim[r - 2])) {
        int64_t hi = 0;
        const acc_dim *ad = &aa->dims[r - 2];
        int64_t cst = 0;
        bool known = lw_ev(L, ad->constant ? ad->constant : sym_const(L->sc, 0), &cst, loc);
        hi = cst;
        for (int t = 0; known && t < ad->nterms; t++) {
            int64_t co = 0, vmax = -1;
            known = lw_ev(L, ad->terms[t].coeff, &co, loc);
            const char *vn = ad->terms[t].var->name;
            if (!strncmp(vn, "pid.", 4) && atoi(vn + 4) < L->f->grid_rank)
                vmax = L->ext[atoi(vn + 4)] - 1;
            else
                known = false; /* a loop index: bounded by the loop, not checked here */
            if (known)
                hi += co > 0 ? co * vmax : 0;
        }
        if (known && hi >= dim[r - 2]) {
            lw_fail(L, loc, "an offset of '%s' along its dimension %d reaches %lld, past its extent %lld, which the tile "
                         "layout pads to %lld (view the tensor so that the offset stays inside, or make the extent a "
                         "multiple of %d)", aa->tensor->name, r - 2, (long long)hi, (long long)dim[r - 2],
                 (long long)lw_pad32(dim[r - 2]), LW_TILE);
            return false;
        }
    }
    /* Whole tiles when the block starts on a tile boundary and its rows are
       contiguous; a store also needs whole tiles (it must not write what
       lies beside the block). Otherwise the block moves element by element. */
    bool aligned = rk % LW_TILE == 0 && ck % LW_TILE == 0 && rstride == 1;
    for (int t = 0; t < x->nterms; t++)
        aligned &= x->rco[t] % LW_TILE == 0 && x->cco[t] % LW_TILE == 0;
    if (x->is_store && (rows_el % LW_TILE || cols_el % LW_TILE))
        aligned = false;
    bool aligned0 = aligned; /* before the boundary checks (the L1 plan's indicator covers them) */
    /* A block cut short by a boundary check still moves whole tiles when it
       starts on the tile grid: the tile layout pads the tensor to whole
       tiles, so the tiles holding the rows and columns inside the extent are
       there, fewer of them where the extent ends inside the block (cut
       across its tile columns, it moves them a tile row at a time, dm.c,
       unless the rows inside move for less as runs of elements: a 1-row
       operand). A load's masked copy sets what lies
       past the extent (emit_clean, kcompute.c); a store writes past it only
       where the cut is at the tensor's own extent in its padded layout: the
       rest of its tiles is padding, which holds no element (its block
       starts on the grid and is whole tiles, so no other block writes
       there). */
    x->tclip = aligned0 && (x->clip_rows || x->clip_cols) && (!x->is_store || pad_only) &&
               (!x->clip_cols || x->tc == 1 || !rows_cheaper(L, x, aa, blk, coldim, checked, ext));
    if ((x->clip_rows || x->clip_cols) && !x->tclip)
        aligned = false;
    x->elems = !aligned;
    x->r0 = aligned ? rk / LW_TILE : rk;
    x->c0 = aligned ? ck / LW_TILE : ck;
    if (aligned)
        for (int t = 0; t < x->nterms; t++)
            x->rco[t] /= LW_TILE, x->cco[t] /= LW_TILE;
    /* depth: the summary's buffer, else depth.<tensor>, else 2 (loads) / 1 (stores) */
    int64_t depth = -1;
    for (int b = 0; b < L->k->nbufs; b++)
        if (L->k->bufs[b].access == idx && L->k->bufs[b].depth)
            depth = lw_evd(L, L->k->bufs[b].depth, -1);
    if (depth < 1)
        depth = lw_value_of(L, lm_arena_printf(&L->ar, "depth.%s", aa->tensor->name), x->is_store ? 1 : 2);
    if (depth < 1)
        depth = 1;
    x->depth = depth;
    /* the same as expressions, for the L1 plan */
    /* srows/scols: the block's rows and columns; mrows/mcols: those a block
       can move at most, where a checked extent is smaller than the block
       (a 1-row operand in 32-row blocks moves 1 row) */
    const sym_expr *srows = sym_const(L->sc, 1), *sclip = sym_const(L->sc, 0), *mrows = srows;
    for (int d = 0; d < r; d++) {
        int64_t e;
        bool known = checked[d] && ext[d] && sym_eval(ext[d], &L->s->values, &e) == SYM_OK;
        if (d != coldim && blk[d] > 1) {
            srows = sym_mul(L->sc, srows, aa->block[d]);
            mrows = sym_mul(L->sc, mrows, known ? sym_min(L->sc, aa->block[d], ext[d]) : aa->block[d]);
        }
        if (known)
            sclip = sym_add(L->sc, sclip, sym_mod(L->sc, ext[d], aa->block[d]));
    }
    const sym_expr *scols = coldim >= 0 ? aa->block[coldim] : sym_const(L->sc, 1), *mcols = scols;
    int64_t ecol;
    const sym_expr *colcut = sym_const(L->sc, 0); /* 1 when a boundary check can cut across the columns */
    if (coldim >= 0 && checked[coldim] && ext[coldim] && sym_eval(ext[coldim], &L->s->values, &ecol) == SYM_OK) {
        mcols = sym_min(L->sc, scols, ext[coldim]);
        colcut = lw_positive(L, sym_mod(L->sc, ext[coldim], scols));
    }
    x->stiles = lw_sym_tiles(L, srows, scols);
    x->sclip = lw_positive(L, sclip);
    const sym_expr *tile_el = sym_const(L->sc, LW_TILE);
    x->ser = sym_mul(L->sc, sym_cdiv(L->sc, srows, tile_el), tile_el);
    x->sec = sym_mul(L->sc, sym_cdiv(L->sc, scols, tile_el), tile_el);
    /* element moves issue one command per row and tile column the row
       crosses; whole tiles one per tile. Whether a block cut short moves
       whole tiles (x->tclip at these values) as an expression of the
       schedule's: unless it is a store cut inside the tensor, or its rows
       move for less as elements and the cut crosses more than one tile
       column. */
    const sym_expr *one = sym_const(L->sc, 1), *tile = sym_const(L->sc, LW_TILE * LW_TILE);
    const sym_expr *wide = lw_positive(L, sym_sub(L->sc, sym_cdiv(L->sc, scols, sym_const(L->sc, LW_TILE)), one));
    const sym_expr *stclip =
        x->is_store && !pad_only                       ? sym_const(L->sc, 0)
        : rows_cheaper(L, x, aa, blk, coldim, checked, ext) ? sym_sub(L->sc, one, sym_mul(L->sc, colcut, wide))
                                                       : one;
    const sym_expr *selems = sym_mul(L->sc, mrows, sym_cdiv(L->sc, mcols, sym_const(L->sc, LW_TILE)));
    const sym_expr *inside = lw_sym_tiles(L, mrows, mcols); /* the tiles of the rows inside */
    const sym_expr *cut = sym_add(L->sc, sym_mul(L->sc, stclip, inside), sym_mul(L->sc, sym_sub(L->sc, one, stclip), selems));
    x->scmds = aligned0 ? sym_add(L->sc, x->stiles, sym_mul(L->sc, x->sclip, sym_sub(L->sc, cut, x->stiles))) : selems;
    /* and the elements those commands carry (a row of a tile column each,
       or whole tiles) */
    const sym_expr *tel = sym_mul(L->sc, x->stiles, tile), *eel = sym_mul(L->sc, mrows, mcols);
    const sym_expr *ecut = sym_add(L->sc, sym_mul(L->sc, stclip, sym_mul(L->sc, inside, tile)),
                                   sym_mul(L->sc, sym_sub(L->sc, one, stclip), eel));
    x->smoved = aligned0 ? sym_add(L->sc, tel, sym_mul(L->sc, x->sclip, sym_sub(L->sc, ecut, tel))) : eel;
    x->sdepth = sym_const(L->sc, depth);
    for (int b = 0; b < L->k->nbufs; b++)
        if (L->k->bufs[b].access == idx && L->k->bufs[b].depth && lw_evd(L, L->k->bufs[b].depth, -1) >= 1)
            x->sdepth = L->k->bufs[b].depth;
    for (int t = 0; L->fz && t < L->fz->nt; t++)
        if ((L->la ? L->fz->t[t].load : L->fz->t[t].store) == idx)
            x->passed = true;
    if (x->passed && L->la) {
        x->depth = L->nmax; /* the blocks of all the programs dealt to the reducer */
        x->sdepth = sym_var(L->sc, SCHED_FUSED_PROGRAMS);
    }
    /* transport */
    x->how = (sched_operand){idx, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    for (int o = 0; o < L->s->cand.nops; o++)
        if (L->s->cand.ops[o].access == idx)
            x->how = L->s->cand.ops[o];
    x->kernel = x->is_store ? DF_WRITER : DF_READER;
    sched_noc noc = x->is_store ? L->s->cand.store_noc : x->how.noc;
    if (noc != SCHED_NOC_ANY)
        x->kernel = noc_kernel(noc);
    return true;
}

/* The most trips of a loop over every program (its count may depend on the
 * program ids only). */
static bool most_trips(lw *L, const sym_expr *trips, int64_t *most)
{
    int64_t n = 1;
    for (int g = 0; g < L->f->grid_rank; g++)
        n *= L->ext[g];
    if (n > (1 << 20))
        return false;
    sym_env env = {0};
    for (int i = 0; i < L->s->values.n; i++)
        sym_env_set(&env, L->s->values.b[i].var, L->s->values.b[i].lo);
    bool ok = true;
    *most = 0;
    for (int64_t q = 0; q < n && ok; q++) {
        int64_t rem = q;
        for (int g = L->f->grid_rank - 1; g >= 0; g--) {
            sym_env_set(&env, tir_pid_var(L->sc, g), rem % L->ext[g]);
            rem /= L->ext[g];
        }
        int64_t t;
        ok = sym_eval(trips, &env, &t) == SYM_OK;
        if (ok && t > *most)
            *most = t;
    }
    sym_env_free(&env);
    return ok;
}

/* Whether trips never rise or never fall along grid axis g, the others
 * fixed, over every program: the most of a run of ids along g is then at
 * one of its ends. */
static bool monotone_along(lw *L, const sym_expr *trips, int g)
{
    int64_t n = 1;
    for (int a = 0; a < L->f->grid_rank; a++)
        n *= L->ext[a];
    sym_env env = {0};
    for (int i = 0; i < L->s->values.n; i++)
        sym_env_set(&env, L->s->values.b[i].var, L->s->values.b[i].lo);
    bool ok = true, rises = false, falls = false;
    for (int64_t q = 0; q < n && ok; q++) {
        int64_t rem = q, at[TIR_MAX_GRID] = {0}, t[2];
        for (int a = L->f->grid_rank - 1; a >= 0; a--) {
            at[a] = rem % L->ext[a];
            rem /= L->ext[a];
        }
        if (at[g] == 0)
            continue;
        for (int d = 0; d < 2 && ok; d++) {
            for (int a = 0; a < L->f->grid_rank; a++)
                sym_env_set(&env, tir_pid_var(L->sc, a), at[a] - (a == g && d == 0));
            ok = sym_eval(trips, &env, &t[d]) == SYM_OK;
        }
        rises |= ok && t[1] > t[0];
        falls |= ok && t[1] < t[0];
    }
    sym_env_free(&env);
    return ok && !(rises && falls);
}

/* The axis along which loop lp (stretched) runs each wave's most trips
 * (sched_wave_axis), where its trips are monotone along it; else -1. */
static int wave_axis(lw *L, const tir_op *lp)
{
    for (int i = 0; i < L->k->nloops; i++)
        if (L->k->loops[i].op == lp) {
            int g = sched_wave_axis(L->k, &L->s->cand, i, L->sc);
            return g >= 0 && monotone_along(L, lp->sym, g) ? g : -1;
        }
    return -1;
}

/* A load with a core-to-core transport shares blocks with the cores of its
 * row (x), column (y) or the whole grid (xy); decide who sends, and check
 * that every core of the group needs the same block at the same step. */
bool lw_plan_transport(lw *L, access *x)
{
    const acc_access *aa = x->aa;
    lm_loc loc = aa->op->loc;
    sched_operand *h = &x->how;
    if (h->transport == SCHED_DRAM || h->transport == SCHED_FUSED)
        return true;
    const char *tn = aa->tensor->name;
    int64_t n = h->along == SCHED_ON_X ? L->gx : h->along == SCHED_ON_Y ? L->gy : L->gx * L->gy;
    if (n <= 1) {
        /* a group of one core reads from DRAM; the schedules reaching here
           already say so (sched_solo_groups, and the model's grid) */
        h->transport = SCHED_DRAM;
        return true;
    }
    if (h->transport == SCHED_FORWARD && h->along == SCHED_ON_XY) {
        lw_fail(L, loc, "forwarding of '%s' over the whole grid (only along a row or a column)", tn);
        return false;
    }
    /* the axes whose program index differs between cores of the group */
    unsigned axes = sched_group_axes(&L->s->cand, h->along, L->f->grid_rank);
    bool varies[TIR_MAX_GRID] = {false};
    for (int g = 0; g < L->f->grid_rank; g++)
        varies[g] = axes >> g & 1;
    for (int g = 0; g < L->f->grid_rank; g++)
        if (varies[g] && (aa->grid_dep >> g & 1)) {
            lw_fail(L, loc, "'%s' is %s along %s, but its block depends on pid.%d, which differs between those "
                         "cores", tn, sched_transport_name(h->transport), sched_place_name(h->along), g);
            return false;
        }
    /* A loop around it whose trips differ between the cores of the group
       (causal attention: later query blocks see more keys) is stretched in
       the data-movement kernels to the most trips of any program (of the
       wave's programs where one axis dealt alone along x or y differs:
       wave_axis): every core takes part in every block, and pushes only
       those of its own trips. */
    for (int l = 0; l < aa->nloops; l++) {
        const tir_op *lp = aa->loops[l];
        const sym_expr *trips = lp->sym;
        bool differs = false;
        for (int g = 0; g < L->f->grid_rank; g++)
            differs |= varies[g] && (!trips || sym_depends_on(trips, tir_pid_var(L->sc, g)));
        if (!differs)
            continue;
        int64_t most;
        if (!trips || !most_trips(L, trips, &most)) {
            lw_fail(L, loc, "'%s' is %s along %s, but the trips of the loop around it (%s) differ between the cores "
                         "of a group and cannot be bounded over the programs; use DRAM for it",
                 tn, sched_transport_name(h->transport), sched_place_name(h->along),
                 trips ? sym_str(&L->ar, trips) : "unknown");
            return false;
        }
        x->stretched = true;
        bool known = false;
        for (int i = 0; i < L->nstretch; i++)
            known |= L->stretch[i] == lp;
        if (!known && L->nstretch < ACC_MAX_LOOPS) {
            L->stretch[L->nstretch] = lp;
            L->stretch_axis[L->nstretch] = wave_axis(L, lp);
            L->stretch_max[L->nstretch++] = most;
        }
    }
    for (int o = 0; o < L->s->cand.nops; o++)
        if (L->s->cand.ops[o].access == x->index)
            x->kernel = noc_kernel(sched_load_noc(&L->s->cand, o));
    L->lockstep = true;
    return true;
}
