/* summary.c - the kernel as the scheduler sees it (sched_summarize): loops
 * and trip counts, virtual buffers with their tile shapes, formats and
 * lifetimes, the tile operations of every loop body, and the FLOPs. It reads
 * the Tile IR and the access analysis only - never the kernel's name - so
 * every kernel in the subset gets the same treatment.
 *
 * How values become buffers (docs/scheduler.md, "Summary"):
 *  - a block load is an IN buffer, a block store an OUT buffer;
 *  - a loop-carried float tile is a CARRY buffer; its initial fill and the
 *    op producing the value it carries into the next iteration write it;
 *  - every other float tile an op computes is a TEMP buffer;
 *  - views (view, broadcast, expand_dims, trans, splat) are the buffer they
 *    view; splats of scalars and constant fills are operands, not buffers;
 *  - integer and boolean tiles (indices, masks) are generated where they are
 *    used (the `where` that consumes a mask masks by tile coordinates), so
 *    they are neither buffers nor work.
 */
#include "sched/sched.h"

#include <string.h>

typedef struct sumctx {
    sched_kernel *k;
    const tir_func *f;
    const acc_result *acc;
    const arch_desc *a;
    sym_ctx *s;
    lm_arena *ar;
    lm_diag *d;
    int *buf_of;        /* value uid -> buffer index, -1 none */
    int *pos_of;        /* value uid -> position of its definition (-1: parameter/hoisted) */
    int *level_of;      /* value uid -> level of its definition */
    int *raw_last;      /* value uid -> position of its last use (no loop extension) */
    bool *yielded;      /* value uid -> carried into a loop's next trip */
    int lfirst[SCHED_MAX_LOOPS], llast[SCHED_MAX_LOOPS]; /* loop extents (prewalk) */
    int pos;            /* position counter */
    int loop_stack[SCHED_MAX_LOOPS];
    int depth;
    bool failed;
    int ntemp;
} sumctx;

const char *sched_bufkind_name(sched_bufkind k)
{
    switch (k) {
    case SCHED_BUF_IN: return "in";
    case SCHED_BUF_OUT: return "out";
    case SCHED_BUF_CARRY: return "carry";
    case SCHED_BUF_TEMP: return "temp";
    }
    return "?";
}

static bool is_view(tir_opcode c)
{
    return c == TIR_VIEW || c == TIR_BROADCAST || c == TIR_EXPAND_DIMS || c == TIR_TRANS || c == TIR_SPLAT;
}

static bool is_float_tile(const tir_type *t) { return t->kind == TIR_TILE && tir_elem_is_float(t->elem); }

static arch_format format_of(tir_elem e) { return e == TIR_F32 ? ARCH_FP32 : ARCH_BF16; }

/* The CB format of an f32 temporary: bf16 where Dst is 16-bit (k->temps_16b). */
static arch_format temp_format(const sumctx *c) { return c->k->temps_16b ? ARCH_BF16 : ARCH_FP32; }

/* The CB format of a value the compute engine makes: its type's, but an f32
 * value packed from a 16-bit Dst has 16 bits to keep, so bf16 holds all of
 * it (k->temps_16b) - unless it is carried into a loop's next trip, which
 * keeps its type's format (the packer may accumulate into it). */
static arch_format value_format(const sumctx *c, const tir_value *v)
{
    bool made = v->def && v->def->code != TIR_LOAD && v->def->code != TIR_DESC_LOAD && v->def->code != TIR_FOR;
    if (v->type.elem == TIR_F32 && made && !c->yielded[v->uid])
        return temp_format(c);
    return format_of(v->type.elem);
}

/* Peel views: the value whose storage an operand reads. Scalars and
 * splats of scalars come back as NULL (an operand the engine takes as a
 * constant, not a tile in L1). */
static const tir_value *root_of(const tir_value *v)
{
    while (v->def && is_view(v->def->code)) {
        if (v->def->code == TIR_SPLAT && v->def->opnds[0]->type.rank == 0)
            return NULL;
        v = v->def->opnds[0];
    }
    if (v->type.kind == TIR_TILE && v->type.rank == 0)
        return NULL;
    return v;
}

/* The shape as a 2-D block of tiles: leading dims fold into rows, a vector
 * is a column of tiles, a scalar one tile. */
static void tiles_of(sumctx *c, const tir_type *t, const sym_expr **rows, const sym_expr **cols)
{
    sym_ctx *s = c->s;
    const sym_expr *th = sym_const(s, c->a->tile_h), *tw = sym_const(s, c->a->tile_w);
    if (t->rank == 0) {
        *rows = *cols = sym_const(s, 1);
    } else if (t->rank == 1) {
        *rows = sym_cdiv(s, t->shape[0], th);
        *cols = sym_const(s, 1);
    } else {
        const sym_expr *r = sym_const(s, 1);
        for (int i = 0; i < t->rank - 1; i++)
            r = sym_mul(s, r, t->shape[i]);
        *rows = sym_cdiv(s, r, th);
        *cols = sym_cdiv(s, t->shape[t->rank - 1], tw);
    }
}

static const sym_expr *ntiles(sumctx *c, const tir_type *t)
{
    const sym_expr *r, *q;
    tiles_of(c, t, &r, &q);
    return sym_mul(c->s, r, q);
}

static const sym_expr *tile_bytes(sumctx *c, arch_format f) { return sym_const(c->s, c->a->tile_bytes[f]); }

static int cur_level(const sumctx *c) { return c->depth ? 1 + c->loop_stack[c->depth - 1] : 0; }

/* Names are unique within a kernel (a reassigned source name gets .1, .2):
 * they name solver variables (depth.<name>) and appear in explanations. */
static const char *unique_name(sumctx *c, const char *name, int self)
{
    const char *base = name;
    for (int n = 1;; n++) {
        bool dup = false;
        for (int j = 0; j < c->k->nbufs; j++)
            if (j != self && c->k->bufs[j].name && !strcmp(c->k->bufs[j].name, name))
                dup = true;
        if (!dup)
            return name;
        name = lm_arena_printf(c->ar, "%s.%d", base, n);
    }
}

static int new_buf(sumctx *c, sched_bufkind kind, const char *name, const tir_value *v, arch_format fmt)
{
    sched_kernel *k = c->k;
    if (k->nbufs == SCHED_MAX_BUFS) {
        lm_error(c->d, v->def ? v->def->loc : k->f->loc, "the kernel has more than %d tiles the scheduler must place",
                 SCHED_MAX_BUFS);
        c->failed = true;
        return -1;
    }
    int i = k->nbufs++;
    sched_buf *b = &k->bufs[i];
    memset(b, 0, sizeof *b);
    b->name = unique_name(c, name, i);
    b->kind = kind;
    b->access = -1;
    b->value = v;
    b->format = fmt;
    b->level = cur_level(c);
    b->loop = b->level - 1;
    b->alias = -1;
    b->color = -1;
    b->first = c->pos;
    b->last = c->pos;
    tiles_of(c, &v->type, &b->tile_rows, &b->tile_cols);
    b->tiles = sym_mul(c->s, b->tile_rows, b->tile_cols);
    b->bytes = sym_mul(c->s, b->tiles, tile_bytes(c, fmt));
    b->depth = sym_const(c->s, 1);
    return i;
}

static sched_work_op *add_work(sumctx *c, sched_opkind kind, const tir_op *op, const sym_expr *tiles,
                               const sym_expr *unpack, const sym_expr *pack, int dot)
{
    sched_kernel *k = c->k;
    if (k->nops == SCHED_MAX_WORK) {
        lm_error(c->d, op->loc, "the kernel has more than %d tile operations for the scheduler", SCHED_MAX_WORK);
        c->failed = true;
        return NULL;
    }
    sched_work_op *w = &k->ops[k->nops++];
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->op = op;
    w->level = cur_level(c);
    w->tiles = tiles;
    w->unpack_bytes = unpack;
    w->pack_bytes = pack;
    w->dot = dot;
    if (kind != SCHED_OP_MATMUL)
        w->dst_batches = sym_cdiv(c->s, tiles, sym_const(c->s, c->k->fp32_acc ? c->a->dst_tiles_half_32b
                                                                             : c->a->dst_tiles_half_16b));
    return w;
}

/* Bytes the unpacker reads for a float operand (0 for scalars and constant
 * fills: the engine takes them as a scalar). */
static const sym_expr *operand_bytes(sumctx *c, const tir_value *v)
{
    const tir_value *r = root_of(v);
    if (!r || (r->def && r->def->code == TIR_FULL && c->buf_of[r->uid] < 0) || !is_float_tile(&r->type))
        return sym_const(c->s, 0);
    return sym_mul(c->s, ntiles(c, &r->type), tile_bytes(c, value_format(c, r)));
}

/* How many quarters of a tile the unpacker reads of broadcast operand v
 * for each tile of the op (0: v is no broadcast): a column vector
 * broadcast across columns 2 (its tiles' faces 0 and 2), a single element
 * 1 (face 0), a row broadcast down the rows 4 (docs/simulator.md,
 * "Compute costs"). */
static int bcast_quarters(const tir_value *v)
{
    for (; v->def && is_view(v->def->code); v = v->def->opnds[0]) {
        if (v->def->code != TIR_BROADCAST)
            continue;
        const tir_type *t = &v->def->opnds[0]->type;
        if (t->rank < 2)
            return 4;
        int64_t nc = 0, nr = 0;
        bool one_col = sym_is_const(t->shape[t->rank - 1], &nc) && nc == 1;
        bool one_row = sym_is_const(t->shape[t->rank - 2], &nr) && nr == 1;
        return one_col && one_row ? 1 : one_col ? 2 : 4;
    }
    return 0;
}

/* An operand's unpacked bytes in an element-wise op of `tiles` tiles: its
 * own (operand_bytes), or for a broadcast the part of a tile the unpacker
 * reads for each of the op's. */
static const sym_expr *elt_operand_bytes(sumctx *c, const tir_value *v, const sym_expr *tiles)
{
    const tir_value *r = root_of(v);
    int q = r ? bcast_quarters(v) : 0;
    if (!q || !is_float_tile(&r->type) || (r->def && r->def->code == TIR_FULL && c->buf_of[r->uid] < 0))
        return operand_bytes(c, v);
    return sym_mul(c->s, tiles, sym_const(c->s, c->a->tile_bytes[value_format(c, r)] * q / 4));
}

/* An element-wise work op unpacking operands v[0..n-1] (NULL entries
 * skipped): unpack_bytes is the sum of theirs, each recorded. */
static void add_elt(sumctx *c, sched_opkind kind, const tir_op *op, const sym_expr *tiles, tir_value *const *v,
                    int n, const sym_expr *pack)
{
    const sym_expr *ub = sym_const(c->s, 0);
    for (int i = 0; i < n; i++)
        ub = sym_add(c->s, ub, elt_operand_bytes(c, v[i], tiles));
    sched_work_op *w = add_work(c, kind, op, tiles, ub, pack, -1);
    if (!w)
        return;
    for (int i = 0; i < n && w->nreads < 3; i++) {
        w->reads[w->nreads] = v[i];
        w->read_bytes[w->nreads++] = elt_operand_bytes(c, v[i], tiles);
    }
}

/* Record a use of v at the current position: extends the lifetime of the
 * buffer it reads. A use inside a loop that the definition is outside of
 * keeps the buffer alive to the end of that loop (every iteration reads it). */
static void use(sumctx *c, const tir_value *v)
{
    const tir_value *r = v;
    while (r->def && is_view(r->def->code))
        r = r->def->opnds[0];
    if (c->raw_last[r->uid] < c->pos)
        c->raw_last[r->uid] = c->pos;
    int b = c->buf_of[r->uid];
    if (b < 0)
        return;
    sched_buf *bb = &c->k->bufs[b];
    int p = c->pos;
    for (int i = 0; i < c->depth; i++) { /* outermost first */
        int li = c->loop_stack[i];
        bool inside = false;
        for (int l = bb->loop; l >= 0; l = c->k->loops[l].parent)
            if (l == li)
                inside = true;
        if (!inside) {
            p = c->llast[li];
            break;
        }
    }
    bb->last = LM_MAX(bb->last, p);
}

/* Positions of loop starts and ends, in the order the walk meets the loops,
 * so that a use inside a loop can extend a lifetime to the loop's end before
 * the walk gets there. Counts exactly as walk_block does. */
static void prewalk(sumctx *c, const tir_block *blk, int *nl)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if (op->code == TIR_FOR) {
            for (const tir_op *y = op->regions[0]->first; y; y = y->next)
                for (int i = 0; y->code == TIR_YIELD && i < y->nopnds && i < tir_for_ncarried(op); i++)
                    c->yielded[y->opnds[i]->uid] = true;
            int li = (*nl)++;
            if (li < SCHED_MAX_LOOPS)
                c->lfirst[li] = c->pos;
            c->pos++;
            prewalk(c, op->regions[0], nl);
            if (li < SCHED_MAX_LOOPS)
                c->llast[li] = c->pos;
            c->pos++;
            continue;
        }
        for (int r = 0; r < op->nregions; r++)
            prewalk(c, op->regions[r], nl);
        c->pos++;
    }
}

static void walk_block(sumctx *c, const tir_block *blk);

static void do_for(sumctx *c, const tir_op *op)
{
    sched_kernel *k = c->k;
    if (k->nloops == SCHED_MAX_LOOPS || c->depth == SCHED_MAX_LOOPS) {
        lm_error(c->d, op->loc, "the kernel has more than %d loops for the scheduler", SCHED_MAX_LOOPS);
        c->failed = true;
        return;
    }
    if (!op->sym) {
        lm_error(c->d, op->loc, "the scheduler needs the trip count of this loop as an expression of sizes, "
                                "constexprs and program ids");
        c->failed = true;
        return;
    }
    int li = k->nloops++;
    sched_loop *L = &k->loops[li];
    L->op = op;
    L->parent = c->depth ? c->loop_stack[c->depth - 1] : -1;
    L->trips = op->sym;
    L->first = c->pos;
    L->last = -1;

    /* carried float tiles: CARRY buffers, written first by their initial value */
    for (int i = 0; i < tir_for_ncarried(op); i++) {
        const tir_value *arg = tir_for_arg(op, i);
        if (!is_float_tile(&arg->type))
            continue;
        const tir_value *init = tir_for_init(op, i);
        const char *name = arg->name ? arg->name : lm_arena_printf(c->ar, "t%d", c->ntemp++);
        int b = new_buf(c, SCHED_BUF_CARRY, name, arg, format_of(arg->type.elem));
        if (b < 0)
            return;
        sched_buf *bb = &k->bufs[b];
        /* the buffer is produced before the loop */
        int ib = init->def ? c->buf_of[init->uid] : -1;
        if (init->def && init->def->code == TIR_FULL) {
            bb->first = c->pos_of[init->uid] >= 0 ? c->pos_of[init->uid] : c->pos;
            c->buf_of[init->uid] = b;
        } else if (ib >= 0) {
            use(c, init);
            sym_ctx *s = c->s;
            add_work(c, SCHED_OP_COPY, op, bb->tiles, operand_bytes(c, init),
                     sym_mul(s, bb->tiles, tile_bytes(c, bb->format)), -1);
        }
        c->buf_of[arg->uid] = b;
        c->buf_of[op->results[i]->uid] = b;
    }
    c->pos++;
    c->loop_stack[c->depth++] = li;
    walk_block(c, op->regions[0]);
    c->depth--;
    L->last = c->pos++;
    /* An error inside the body stops the walk early, so positions only
       agree with the first pass when the body was walked to its end. */
    LM_ASSERT(c->failed || (L->first == c->lfirst[li] && L->last == c->llast[li]));
}

static void do_load(sumctx *c, const tir_op *op)
{
    const acc_result *acc = c->acc;
    int ai = -1;
    for (int i = 0; i < acc->n; i++)
        if (acc->acc[i].op == op)
            ai = i;
    const acc_access *x = ai >= 0 ? &acc->acc[ai] : NULL;
    if (!x || !x->tensor) {
        lm_error(c->d, op->loc, "the scheduler cannot place this %s: its block pointer could not be traced to a "
                                "tensor of the launch", op->code == TIR_LOAD || op->code == TIR_DESC_LOAD ? "load" : "store");
        c->failed = true;
        return;
    }
    if (!x->affine) {
        lm_error(c->d, op->loc, "the scheduler cannot place the %s of '%s': its block offsets are not affine in "
                                "the program ids and loop indices",
                 x->is_store ? "store" : "load", x->tensor->name);
        c->failed = true;
        return;
    }
    if (x->is_store)
        return; /* stores are handled at their own op */
    const tir_value *v = op->results[0];
    if (!is_float_tile(&v->type)) {
        lm_error(c->d, op->loc, "the scheduler handles loads of float tiles only; '%s' holds %s", x->tensor->name,
                 tir_elem_name(v->type.elem));
        c->failed = true;
        return;
    }
    int b = new_buf(c, SCHED_BUF_IN, x->tensor->name, v, format_of(x->tensor->elem));
    if (b < 0)
        return;
    c->k->bufs[b].access = ai;
    c->buf_of[v->uid] = b;
}

static void do_store(sumctx *c, const tir_op *op)
{
    int ai = -1;
    for (int i = 0; i < c->acc->n; i++)
        if (c->acc->acc[i].op == op)
            ai = i;
    const acc_access *x = ai >= 0 ? &c->acc->acc[ai] : NULL;
    if (!x || !x->tensor || !x->affine) {
        do_load(c, op); /* reports */
        return;
    }
    const tir_value *sv = op->code == TIR_STORE ? op->opnds[1] : op->opnds[1];
    const tir_value *r = sv;
    while (r->def && is_view(r->def->code))
        r = r->def->opnds[0];
    arch_format fmt = format_of(x->tensor->elem);
    int rb = c->buf_of[r->uid];
    sched_kernel *k = c->k;
    if (rb >= 0 && k->bufs[rb].kind == SCHED_BUF_TEMP && k->bufs[rb].format == fmt) {
        /* the op computing the stored tile packs straight into the output buffer */
        sched_buf *bb = &k->bufs[rb];
        bb->kind = SCHED_BUF_OUT;
        bb->name = unique_name(c, x->tensor->name, rb);
        bb->access = ai;
        use(c, sv);
        return;
    }
    int b = new_buf(c, SCHED_BUF_OUT, x->tensor->name, sv, fmt);
    if (b < 0)
        return;
    k->bufs[b].access = ai;
    use(c, sv);
    if (rb >= 0 && k->bufs[rb].kind == SCHED_BUF_CARRY && k->bufs[rb].format == fmt) {
        k->bufs[b].alias = rb;
        return;
    }
    /* a conversion (or a copy of a loaded tile) into the output buffer */
    add_work(c, SCHED_OP_COPY, op, k->bufs[b].tiles, operand_bytes(c, sv),
             sym_mul(c->s, k->bufs[b].tiles, tile_bytes(c, fmt)), -1);
}

static bool v_named(const tir_value *v) { return v->name != NULL; }

/* Rows and columns of a dot operand as a matrix (leading dims folded). */
static void matrix_dims(sumctx *c, const tir_type *t, const sym_expr **rows, const sym_expr **cols)
{
    const sym_expr *r = sym_const(c->s, 1);
    for (int i = 0; i < t->rank - 1; i++)
        r = sym_mul(c->s, r, t->shape[i]);
    *rows = r;
    *cols = t->shape[t->rank - 1];
}

static void do_dot(sumctx *c, const tir_op *op, int b)
{
    sched_kernel *k = c->k;
    sym_ctx *s = c->s;
    if (k->ndots == SCHED_MAX_DOTS) {
        lm_error(c->d, op->loc, "the kernel has more than %d dots for the scheduler", SCHED_MAX_DOTS);
        c->failed = true;
        return;
    }
    const tir_type *ta = &op->opnds[0]->type, *tb = &op->opnds[1]->type, *to = &op->results[0]->type;
    const sym_expr *m, *kk, *kb, *n;
    matrix_dims(c, ta, &m, &kk);
    kb = tb->shape[tb->rank - 1];
    (void)kb;
    n = to->shape[to->rank - 1];
    const sym_expr *th = sym_const(s, c->a->tile_h), *tw = sym_const(s, c->a->tile_w);
    sched_dot *dt = &k->dots[k->ndots];
    dt->op = op;
    dt->level = cur_level(c);
    dt->m_tiles = sym_cdiv(s, m, th);
    dt->k_tiles = sym_cdiv(s, kk, tw);
    dt->n_tiles = sym_cdiv(s, n, tw);
    dt->m_rows = m;
    dt->a_format = format_of(ta->elem);
    dt->b_format = format_of(tb->elem);
    dt->out_format = value_format(c, op->results[0]);
    dt->out_name = v_named(op->results[0]) ? k->bufs[b].name : lm_arena_printf(c->ar, "the dot at line %d", op->loc.line);
    const sym_expr *prods = sym_mul(s, sym_mul(s, dt->m_tiles, dt->k_tiles), dt->n_tiles);
    add_work(c, SCHED_OP_MATMUL, op, prods, NULL,
             sym_mul(s, sym_mul(s, dt->m_tiles, dt->n_tiles), tile_bytes(c, dt->out_format)), k->ndots);
    k->ndots++;
    /* useful FLOPs: 2 M N K per product, times the trips of the loops around it */
    const sym_expr *fl = sym_mul(s, sym_const(s, 2), sym_mul(s, sym_mul(s, m, n), kk));
    for (int i = 0; i < c->depth; i++)
        fl = sym_mul(s, fl, k->loops[c->loop_stack[i]].trips);
    k->flops = sym_add(s, k->flops, fl);
}

/* A float tile computed by the compute engine. */
static void do_compute(sumctx *c, const tir_op *op)
{
    sym_ctx *s = c->s;
    const tir_value *v = op->results[0];
    for (int i = 0; i < op->nopnds; i++)
        use(c, op->opnds[i]);
    int b = c->buf_of[v->uid];
    if (b < 0) {
        const char *name = v->name ? v->name : lm_arena_printf(c->ar, "t%d", c->ntemp++);
        b = new_buf(c, SCHED_BUF_TEMP, name, v, value_format(c, v));
        if (b < 0)
            return;
        c->buf_of[v->uid] = b;
    }
    const sym_expr *tiles = ntiles(c, &v->type);
    const sym_expr *pack = sym_mul(s, tiles, tile_bytes(c, value_format(c, v)));
    switch (op->code) {
    case TIR_DOT:
        do_dot(c, op, b);
        break;
    case TIR_REDUCE_MAX:
    case TIR_REDUCE_MIN:
    case TIR_REDUCE_SUM: {
        const tir_value *r = root_of(op->opnds[0]);
        const sym_expr *in = r ? ntiles(c, &r->type) : sym_const(s, 1);
        sched_work_op *w = add_work(c, SCHED_OP_REDUCE, op, in, operand_bytes(c, op->opnds[0]), pack, -1);
        if (w)
            w->out_tiles = tiles;
        break;
    }
    case TIR_CAST:
        add_elt(c, SCHED_OP_COPY, op, tiles, op->opnds, 1, pack);
        break;
    case TIR_EXP:
    case TIR_EXP2:
    case TIR_LOG:
    case TIR_LOG2:
        add_elt(c, op->code == TIR_LOG || op->code == TIR_LOG2 ? SCHED_OP_LOG : SCHED_OP_EXP, op, tiles, op->opnds, 1,
                pack);
        break;
    case TIR_SQRT:
    case TIR_RSQRT:
    case TIR_SIGMOID:
        add_elt(c, op->code == TIR_SQRT ? SCHED_OP_SQRT : op->code == TIR_RSQRT ? SCHED_OP_RSQRT : SCHED_OP_SIGMOID, op,
                tiles, op->opnds, 1, pack);
        break;
    case TIR_DIV: {
        /* a / b = a * recip(b): the reciprocal on b's own tiles, then a multiply */
        const tir_value *r = root_of(op->opnds[1]);
        if (r && is_float_tile(&r->type) && r->type.rank > 0) {
            const sym_expr *rt = ntiles(c, &r->type);
            add_elt(c, SCHED_OP_RECIP, op, rt, op->opnds + 1, 1,
                    sym_mul(s, rt, tile_bytes(c, temp_format(c))));
        }
        add_elt(c, SCHED_OP_ELTWISE, op, tiles, op->opnds, 2, pack);
        break;
    }
    case TIR_WHERE:
        add_elt(c, SCHED_OP_ELTWISE, op, tiles, op->opnds + 1, 2, pack);
        break;
    default:
        add_elt(c, SCHED_OP_ELTWISE, op, tiles, op->opnds, op->nopnds < 3 ? op->nopnds : 3, pack);
        break;
    }
}

static void do_yield(sumctx *c, const tir_op *y)
{
    const tir_op *loop = y->parent ? y->parent->owner : NULL;
    for (int i = 0; i < y->nopnds; i++)
        use(c, y->opnds[i]);
    if (!loop || loop->code != TIR_FOR)
        return;
    /* the value carried into the next iteration: its producer writes the CARRY */
    for (int i = 0; i < y->nopnds && i < tir_for_ncarried(loop); i++) {
        const tir_value *arg = tir_for_arg(loop, i);
        int cb = c->buf_of[arg->uid];
        if (cb < 0)
            continue;
        const tir_value *yv = y->opnds[i];
        int yb = yv->def ? c->buf_of[yv->uid] : -1;
        if (yb < 0 || c->k->bufs[yb].kind != SCHED_BUF_TEMP || c->k->bufs[yb].format != c->k->bufs[cb].format) {
            if (yb >= 0 && yb != cb) {
                sched_buf *bb = &c->k->bufs[cb];
                add_work(c, SCHED_OP_COPY, y, bb->tiles, operand_bytes(c, yv),
                         sym_mul(c->s, bb->tiles, tile_bytes(c, bb->format)), -1);
            }
            continue;
        }
        /* fold the TEMP into the CARRY: it is the carry's next instance. When the
           old value is still read after the new one is produced, the carry needs
           two instances (old and new). */
        sched_buf *tb = &c->k->bufs[yb], *cbuf = &c->k->bufs[cb];
        bool both = c->raw_last[arg->uid] > c->pos_of[yv->uid];
        cbuf->depth = sym_const(c->s, both ? 2 : 1);
        tb->kind = SCHED_BUF_CARRY;
        for (int di = 0; di < c->k->ndots; di++)
            if (c->k->dots[di].out_name == tb->name)
                c->k->dots[di].out_name = cbuf->name;
        /* mark the temp as merged: it shares the carry's storage */
        tb->alias = cb;
        c->buf_of[yv->uid] = cb;
        cbuf->last = LM_MAX(cbuf->last, tb->last);
    }
}

/* Arithmetic on scalars only (e.g. a scale factor from parameters): done by
 * the RISC-V cores, not the compute engine. */
static bool scalar_only(const tir_op *op)
{
    for (int i = 0; i < op->nopnds; i++)
        if (op->opnds[i]->type.rank > 0)
            return false;
    return op->results[0]->type.rank == 0;
}

static void walk_block(sumctx *c, const tir_block *blk)
{
    for (const tir_op *op = blk->first; op && !c->failed; op = op->next) {
        for (int i = 0; i < op->nresults; i++) {
            c->pos_of[op->results[i]->uid] = c->pos;
            c->level_of[op->results[i]->uid] = cur_level(c);
        }
        switch (op->code) {
        case TIR_FOR:
            for (int i = 0; i < op->nopnds; i++)
                use(c, op->opnds[i]);
            do_for(c, op);
            continue; /* do_for advanced the position */
        case TIR_IF:
            /* both branches are counted: an upper bound of the work */
            use(c, op->opnds[0]);
            for (int r = 0; r < op->nregions; r++)
                walk_block(c, op->regions[r]);
            break;
        case TIR_LOAD:
        case TIR_DESC_LOAD:
            do_load(c, op);
            break;
        case TIR_STORE:
        case TIR_DESC_STORE:
            do_store(c, op);
            break;
        case TIR_YIELD:
            do_yield(c, op);
            break;
        case TIR_FULL:
            break; /* a constant: becomes a CARRY's fill or a scalar operand */
        default:
            if (op->nresults == 1 && !is_view(op->code) && is_float_tile(&op->results[0]->type) &&
                tir_op_has(op->code, TIR_P_PURE) && !scalar_only(op)) {
                do_compute(c, op);
            } else {
                for (int i = 0; i < op->nopnds; i++)
                    use(c, op->opnds[i]);
            }
            break;
        }
        c->pos++;
    }
}

/* Free constexprs: which are block sizes, along what, and whether some
 * access must divide its dimension. */
/* Does the kernel mention var anywhere (grid, shapes, symbolic values)? */
static bool mentions_in(const tir_block *blk, const sym_expr *var)
{
    for (const tir_op *op = blk->first; op; op = op->next) {
        if ((op->sym && sym_depends_on(op->sym, var)) || (op->sym2 && sym_depends_on(op->sym2, var)))
            return true;
        for (int i = 0; i < op->nresults; i++) {
            const tir_value *v = op->results[i];
            if (v->sym && sym_depends_on(v->sym, var))
                return true;
            for (int d = 0; d < v->type.rank; d++)
                if (sym_depends_on(v->type.shape[d], var))
                    return true;
        }
        for (int r = 0; r < op->nregions; r++)
            if (mentions_in(op->regions[r], var))
                return true;
    }
    return false;
}

static bool mentions(const tir_func *f, const sym_expr *var)
{
    for (int g = 0; g < f->grid_rank; g++)
        if (sym_depends_on(f->grid[g], var))
            return true;
    for (int i = 0; i < f->nparams; i++) {
        const tir_value *v = f->params[i].value;
        if (v->sym && sym_depends_on(v->sym, var))
            return true;
    }
    return mentions_in(f->body, var);
}

/* Whether access x pads dimension dd of its tensor (descriptors pad
 * everything, block pointers the dimensions boundary_check names). */
static bool pads_dim(const acc_access *x, int dd)
{
    if (x->op->code == TIR_DESC_LOAD || x->op->code == TIR_DESC_STORE)
        return true;
    /* a block pointer of lower rank than its tensor views the leading
       tensor dims as one: its dim j >= 1 is tensor dim j + off */
    int brank = x->op->opnds[0]->type.rank;
    int off = x->rank - brank;
    int j = dd - off >= 1 ? dd - off : 0;
    return off >= 0 && ((x->op->bcheck >> j) & 1u);
}

/* The number of values a term's variable takes: the grid's extent for
 * pid.g, the trip count of the loop whose iv it is; NULL if unknown. */
static const sym_expr *term_range(const sumctx *c, const acc_access *x, const sym_expr *var)
{
    for (int g = 0; g < c->f->grid_rank; g++)
        if (var == tir_pid_var(c->s, g))
            return c->f->grid[g];
    for (int i = 0; i < x->nloops; i++)
        if (x->loops[i]->iv == var)
            return x->loops[i]->sym;
    return NULL;
}

/* The end of the last block along dimension dd of x: the largest offset
 * over all trips (every coefficient non-negative) plus the block, as an
 * expression of the program ids; NULL when that cannot be said, or when it
 * is the plain tiling `BLOCK * i` over cdiv(extent, BLOCK) values that a
 * must_divide already covers. */
static const sym_expr *end_at(sumctx *c, const acc_access *x, int dd)
{
    sym_ctx *s = c->s;
    const acc_dim *d = &x->dims[dd];
    const sym_expr *blk = x->block[dd], *ext = x->extent[dd];
    int64_t one;
    if (!d->affine || !ext || (sym_is_const(blk, &one) && one == 1) || (sym_is_const(ext, &one) && one == 1))
        return NULL; /* a dimension of one element: a flat index may run on into the one before, or
                        the analysis placed a block on it that lies along another of equal stride */
    const sym_expr *hi = d->constant ? d->constant : sym_const(s, 0);
    if (!sym_at_least_on_sizes(hi, 0))
        return NULL;
    for (int i = 0; i < d->nterms; i++) {
        const sym_expr *n = term_range(c, x, d->terms[i].var);
        if (!n || !sym_at_least_on_sizes(d->terms[i].coeff, 0))
            return NULL;
        if (d->nterms == 1 && d->terms[i].coeff == blk && hi == sym_const(s, 0) && n == sym_cdiv(s, ext, blk))
            return NULL; /* must_divide's case */
        bool pid = false;
        for (int g = 0; g < c->f->grid_rank; g++)
            pid |= d->terms[i].var == tir_pid_var(s, g);
        /* a program id stays a variable here; a trip index takes its last value */
        const sym_expr *top = pid ? d->terms[i].var : sym_sub(s, n, sym_const(s, 1));
        hi = sym_add(s, hi, sym_mul(s, d->terms[i].coeff, top));
    }
    return sym_add(s, hi, blk);
}

/* end_at over the programs: at the first and the last program id along
 * each axis it depends on (the larger), which is its largest value when it
 * moves one way along each axis - a trip count that grows with the program
 * id (a causal loop) included. */
static const sym_expr *last_end(sumctx *c, const acc_access *x, int dd)
{
    const sym_expr *e = end_at(c, x, dd);
    for (int g = 0; e && g < c->f->grid_rank; g++) {
        const sym_expr *p = tir_pid_var(c->s, g);
        if (!sym_depends_on(e, p))
            continue;
        const sym_expr *lo = sym_replace(c->s, e, p, sym_const(c->s, 0));
        const sym_expr *hi = sym_replace(c->s, e, p, sym_sub(c->s, c->f->grid[g], sym_const(c->s, 1)));
        e = sym_max(c->s, lo, hi);
    }
    return e;
}

/* Accesses without boundary checks stay inside their tensors: for each
 * unpadded dimension, the last block's end is at most the extent. */
static void find_inbounds(sumctx *c)
{
    sched_kernel *k = c->k;
    for (int a = 0; a < c->acc->n; a++) {
        const acc_access *x = &c->acc->acc[a];
        if (!x->tensor || !x->extent)
            continue;
        for (int dd = 0; dd < x->rank && k->ninbounds < SCHED_MAX_INBOUNDS; dd++) {
            const sym_expr *end = pads_dim(x, dd) ? NULL : last_end(c, x, dd);
            if (end)
                k->inbounds[k->ninbounds++] =
                    (sched_inbound){end, x->extent[dd], x->tensor->name, dd, x->op->loc.line};
        }
    }
}

static void classify_frees(sumctx *c, const sched_free *frees, int nfrees)
{
    sched_kernel *k = c->k;
    for (int i = 0; i < nfrees && k->nfree < SCHED_MAX_VARS; i++) {
        if (!mentions(c->f, frees[i].var))
            continue; /* another launch's */
        sched_free *fr = &k->frees[k->nfree];
        *fr = frees[i];
        fr->block_dim = false;
        fr->dim = NULL;
        fr->must_divide = NULL;
        k->free_syms[k->nfree++] = fr->var;
        for (int a = 0; a < c->acc->n; a++) {
            const acc_access *x = &c->acc->acc[a];
            if (!x->tensor || x->rank != x->tensor->rank)
                continue;
            for (int dd = 0; dd < x->rank; dd++) {
                if (x->block[dd] != fr->var || sym_depends_on(x->tensor->shape[dd], fr->var))
                    continue;
                const sym_expr *dim = x->tensor->shape[dd];
                fr->dim = fr->block_dim ? sym_max(c->s, fr->dim, dim) : dim;
                fr->block_dim = true;
                if (!pads_dim(x, dd))
                    fr->must_divide = dim;
            }
        }
    }
}

static void sum_work(sumctx *c)
{
    sched_kernel *k = c->k;
    sym_ctx *s = c->s;
    for (int l = 0; l <= k->nloops; l++) {
        sched_work *w = &k->work[l];
        w->matmul = w->eltwise = w->sfpu = w->reduce = w->copy = sym_const(s, 0);
    }
    for (int i = 0; i < k->nops; i++) {
        const sched_work_op *o = &k->ops[i];
        sched_work *w = &k->work[o->level];
        const sym_expr **dst = NULL;
        switch (o->kind) {
        case SCHED_OP_MATMUL: dst = &w->matmul; break;
        case SCHED_OP_ELTWISE: dst = &w->eltwise; break;
        case SCHED_OP_EXP:
        case SCHED_OP_LOG:
        case SCHED_OP_RECIP:
        case SCHED_OP_SQRT:
        case SCHED_OP_RSQRT:
        case SCHED_OP_SIGMOID: dst = &w->sfpu; break;
        case SCHED_OP_REDUCE: dst = &w->reduce; break;
        case SCHED_OP_COPY: dst = &w->copy; break;
        }
        *dst = sym_add(s, *dst, o->tiles);
    }
}

bool sched_summarize(sched_kernel *k, const tir_func *f, const acc_result *acc, const arch_desc *a,
                     const sched_free *frees, int nfrees, sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    memset(k, 0, sizeof *k);
    k->f = f;
    k->acc = acc;
    k->name = f->name;
    k->flops = sym_const(s, 0);
    sumctx c = {.k = k, .f = f, .acc = acc, .a = a, .s = s, .ar = ar, .d = d};
    int nv = f->nvalues + 1;
    c.buf_of = LM_NEWN(ar, int, nv);
    c.pos_of = LM_NEWN(ar, int, nv);
    c.level_of = LM_NEWN(ar, int, nv);
    c.raw_last = LM_NEWN(ar, int, nv);
    c.yielded = LM_NEWN(ar, bool, nv);
    for (int i = 0; i < nv; i++)
        c.buf_of[i] = c.pos_of[i] = c.raw_last[i] = -1;
    int nl = 0;
    prewalk(&c, f->body, &nl);
    c.pos = 0;

    /* fp32 Dst accumulation when the kernel stores an fp32 result (decided
       before the walk: Dst batches of element-wise ops depend on it) */
    for (int i = 0; i < acc->n; i++)
        if (acc->acc[i].is_store && acc->acc[i].tensor && acc->acc[i].tensor->elem == TIR_F32)
            k->fp32_acc = true;
    k->temps_16b = !k->fp32_acc;

    classify_frees(&c, frees, nfrees);
    find_inbounds(&c);
    walk_block(&c, f->body);
    if (c.failed)
        return false;
    k->npositions = c.pos;

    int nin = 0;
    for (int i = 0; i < k->nbufs; i++)
        nin += k->bufs[i].kind == SCHED_BUF_IN;
    if (nin > SCHED_MAX_OPS) {
        lm_error(d, f->loc, "kernel '%s' loads %d blocks; the scheduler handles at most %d", f->name, nin,
                 SCHED_MAX_OPS);
        return false;
    }
    if (nfrees > SCHED_MAX_VARS) {
        lm_error(d, f->loc, "the launch leaves %d constexprs free; the scheduler handles at most %d", nfrees,
                 SCHED_MAX_VARS);
        return false;
    }

    /* merged temps (folded into a CARRY) leave the buffer list; renumber */
    int map[SCHED_MAX_BUFS];
    int n = 0;
    for (int i = 0; i < k->nbufs; i++) {
        bool merged = k->bufs[i].kind == SCHED_BUF_CARRY && k->bufs[i].alias >= 0;
        map[i] = merged ? -1 : n++;
    }
    for (int i = 0; i < k->nbufs; i++)
        if (map[i] < 0)
            map[i] = map[k->bufs[i].alias];
    sched_buf nb[SCHED_MAX_BUFS];
    int m = 0;
    for (int i = 0; i < k->nbufs; i++) {
        if (k->bufs[i].kind == SCHED_BUF_CARRY && k->bufs[i].alias >= 0)
            continue;
        nb[m] = k->bufs[i];
        if (nb[m].alias >= 0)
            nb[m].alias = map[nb[m].alias];
        m++;
    }
    memcpy(k->bufs, nb, sizeof nb[0] * (size_t)m);
    k->nbufs = m;

    /* IN and OUT buffers are filled and drained by the reader and writer while
       the compute engine works: they live as long as the outermost loop around
       them, and at the program level for the whole program (the next
       program's blocks arrive while this one finishes). */
    for (int i = 0; i < k->nbufs; i++) {
        sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT)
            continue;
        if (b->loop < 0) {
            b->first = 0;
            b->last = k->npositions;
        } else {
            int l = b->loop;
            while (k->loops[l].parent >= 0)
                l = k->loops[l].parent;
            b->first = LM_MIN(b->first, k->loops[l].first);
            b->last = LM_MAX(b->last, k->loops[l].last);
        }
        b->depth = sym_var(s, lm_arena_printf(ar, "depth.%s", b->name));
    }

    /* fidelity: TTNN's default rule (bf16 -> HiFi2; LoFi only when both inputs
       are block-float, which the Tile IR's element types never are) */
    k->fidelity = ARCH_HIFI2;
    if (k->ndots) {
        bool all_bfp = true;
        for (int i = 0; i < k->ndots; i++)
            if (!((k->dots[i].a_format == ARCH_BFP8_B || k->dots[i].a_format == ARCH_BFP4_B) &&
                  (k->dots[i].b_format == ARCH_BFP8_B || k->dots[i].b_format == ARCH_BFP4_B)))
                all_bfp = false;
        if (all_bfp)
            k->fidelity = ARCH_LOFI;
    }
    sum_work(&c);
    return true;
}

const char *sched_level_name(const sched_kernel *k, int level, lm_arena *ar)
{
    if (level <= 0)
        return "program";
    const sched_loop *L = &k->loops[level - 1];
    const tir_value *iv = tir_for_var(L->op);
    if (iv->name && strcmp(iv->name, "_"))
        return lm_arena_printf(ar, "loop %s (line %d)", iv->name, L->op->loc.line);
    return lm_arena_printf(ar, "loop at line %d", L->op->loc.line);
}

void sched_print_summary(lm_buf *b, const sched_kernel *k)
{
    lm_arena ar;
    lm_arena_init(&ar);
    lm_buf_printf(b, "kernel %s (launch %d)\n", k->name, k->launch);
    lm_buf_puts(b, "  programs:");
    for (int g = 0; g < k->f->grid_rank; g++)
        lm_buf_printf(b, "%s pid.%d in [0, %s)", g ? "," : "", g, sym_str(&ar, k->f->grid[g]));
    lm_buf_putc(b, '\n');
    for (int i = 0; i < k->nfree; i++) {
        const sched_free *fr = &k->frees[i];
        lm_buf_printf(b, "  free %s: %s", fr->var->name, fr->block_dim ? "block size" : "other");
        if (fr->block_dim)
            lm_buf_printf(b, " along %s", sym_str(&ar, fr->dim));
        if (fr->must_divide)
            lm_buf_printf(b, ", must divide %s", sym_str(&ar, fr->must_divide));
        if (fr->pinned)
            lm_buf_puts(b, ", pinned");
        lm_buf_putc(b, '\n');
    }
    for (int i = 0; i < k->nloops; i++) {
        const sched_loop *L = &k->loops[i];
        lm_buf_printf(b, "  loop %s (line %d): %s trips", L->op->iv ? L->op->iv->name : "?", L->op->loc.line,
                      sym_str(&ar, L->trips));
        if (L->parent >= 0)
            lm_buf_printf(b, ", inside %s", k->loops[L->parent].op->iv->name);
        lm_buf_putc(b, '\n');
    }
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *x = &k->bufs[i];
        lm_buf_printf(b, "  buffer %-8s %-5s %s x %s tiles %s, level %d, live [%d, %d], depth %s",
                      x->name, sched_bufkind_name(x->kind), sym_str(&ar, x->tile_rows), sym_str(&ar, x->tile_cols),
                      arch_format_name(x->format), x->level, x->first, x->last, sym_str(&ar, x->depth));
        if (x->alias >= 0)
            lm_buf_printf(b, ", shares %s", k->bufs[x->alias].name);
        lm_buf_putc(b, '\n');
    }
    for (int l = 0; l <= k->nloops; l++) {
        const sched_work *w = &k->work[l];
        if (l == 0)
            lm_buf_puts(b, "  work per program (outside loops):");
        else
            lm_buf_printf(b, "  work per iteration of %s:", k->loops[l - 1].op->iv->name);
        lm_buf_printf(b, " matmul %s, eltwise %s, sfpu %s, reduce %s, copy %s\n", sym_str(&ar, w->matmul),
                      sym_str(&ar, w->eltwise), sym_str(&ar, w->sfpu), sym_str(&ar, w->reduce), sym_str(&ar, w->copy));
    }
    lm_buf_printf(b, "  flops per program: %s\n", sym_str(&ar, k->flops));
    lm_buf_printf(b, "  math: %s, Dst %s accumulation\n", arch_fidelity_name(k->fidelity),
                  k->fp32_acc ? "fp32" : "16-bit");
    lm_arena_free(&ar);
}
