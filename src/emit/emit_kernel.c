/* emit_kernel.c - one kernel of one core class as a TT-Metalium kernel
 * source: the data-movement kernels (reader, writer) on dataflow_api.h and
 * the helpers of loomc_dm.h, the compute kernel on the compute kernel API
 * and loomc_compute.h.
 *
 * A kernel is emitted in two walks. The first (scan) finds what it uses -
 * variables, semaphores, DRAM tensors, whether it talks to other cores -
 * and refuses an op that has no translation; the second writes the source:
 * the compile-time args (semaphore ids), the runtime args it reads (its
 * core's cx, cy and the class's args), the tensors and the grid's NoC
 * tables (common runtime args), the params as named constants, then the
 * statements, loops kept as loops, each data-movement or compute op under
 * a comment with its dataflow text.
 */
#include "emit/emit_int.h"

#include <stdarg.h>
#include <string.h>

typedef struct scan {
    const df_program *p;
    const df_class *c;
    df_kernel_kind kind;
    bool slots[DF_MAX_SLOTS];
    bool sems[1024];
    emit_kinfo *info;
    lm_diag *d;
    bool ok;
    bool exact_exp2;      /* an exp2 in exact mode (approximate ones: info->approx_exp) */
    bool sqrt;            /* a sqrt, accurate only with math_approx_mode off */
    bool ring[64];        /* CBs a tagged read fills (their ring's start is taken at the kernel's start) */
} scan;

/* Whether a read or read barrier names a transaction id (else it is untagged, or
 * waits for every read). */
static bool tagged(const df_stmt *st) { return st->trid && !(st->trid->kind == DF_X_CONST && st->trid->value == 0); }

static void use_expr(scan *s, const df_expr *e)
{
    if (!e)
        return;
    if (e->kind == DF_X_VAR && e->slot >= 0 && e->slot < DF_MAX_SLOTS)
        s->slots[e->slot] = true;
    use_expr(s, e->a);
    use_expr(s, e->b);
}

/* Every expression field of a statement, through the op table. */
static void use_fields(scan *s, const df_stmt *st)
{
    const df_opinfo *oi = &df_ops[st->op];
    for (int f = 0; f < oi->nfields; f++)
        if (oi->fields[f].kind == DF_F_EXPR)
            use_expr(s, *(const df_expr *const *)((const char *)st + oi->fields[f].offset));
}

/* The ops this emitter translates so far; the others are refused by name. */
static bool translated(df_op op)
{
    switch (op) {
    case DF_FOR:
    case DF_CB_RESERVE:
    case DF_CB_PUSH:
    case DF_CB_WAIT:
    case DF_CB_POP:
    case DF_READ:
    case DF_WRITE:
    case DF_READ_BARRIER:
    case DF_WRITE_BARRIER:
    case DF_SEND:
    case DF_MCAST:
    case DF_SEM_INC:
    case DF_SEM_SET:
    case DF_SEM_WAIT:
    case DF_SEM_MCAST:
    case DF_READ_ELEMS:
    case DF_WRITE_ELEMS:
    case DF_MATMUL:
    case DF_ELTWISE:
    case DF_SFPU:
    case DF_REDUCE:
    case DF_COPY:
    case DF_FILL:
    case DF_MASK:
    case DF_TRANSPOSE:
    case DF_CHAIN:
    case DF_CB_SWAP:
    case DF_SEND_ELEMS:
    case DF_ROWMAX:
    case DF_PCHAIN:
        return true;
    default:
        return false;
    }
}

/* The exp2 and sqrt calls of a kernel share its math_approx_mode (sqrt_tile
 * has no mode of its own; the simulator computes it in the accurate mode):
 * note which modes it needs. */
static void note_mode(scan *s, const df_stmt *st)
{
    if (st->op == DF_SFPU && st->sub == DF_EXP2) {
        if (st->exact)
            s->exact_exp2 = true;
        else
            s->info->approx_exp = true;
    }
    if (st->op == DF_SFPU && st->sub == DF_SQRT)
        s->sqrt = true;
    if (st->op == DF_CHAIN || st->op == DF_PCHAIN)
        for (int k = 0; k < st->nbody; k++)
            note_mode(s, st->body[k]);
}

/* False after reporting a kernel that needs both math_approx_modes. */
static bool one_mode(scan *s, const df_stmt *st)
{
    if (!s->info->approx_exp || (!s->exact_exp2 && !s->sqrt))
        return true;
    if (s->exact_exp2)
        lm_error(s->d, st->loc, "the compute kernel of class '%s' has exp2 both exact and in the approximate mode; "
                 "loomc emit sets one math_approx_mode per kernel", s->c->name);
    else
        lm_error(s->d, st->loc, "the compute kernel of class '%s' has a sqrt, whose accurate mode needs "
                 "math_approx_mode off, and an exp2 in the approximate mode; loomc emit sets one "
                 "math_approx_mode per kernel", s->c->name);
    return false;
}

static void scan_body(scan *s, df_stmt *const *body, int n)
{
    for (int i = 0; i < n && s->ok; i++) {
        const df_stmt *st = body[i];
        if (!translated(st->op)) {
            lm_error(s->d, st->loc,
                     "no TT-Metalium translation of the dataflow op '%s' yet (in the %s kernel of class '%s' of "
                     "program '%s'); docs/emit.md lists the ops loomc emit translates",
                     df_ops[st->op].name, df_kernel_name(s->kind), s->c->name, s->p->name);
            s->ok = false;
            return;
        }
        if ((st->op == DF_READ_ELEMS || st->op == DF_WRITE_ELEMS) && st->tensor >= 0 &&
            (s->p->tensors[st->tensor].format == ARCH_BFP8_B || s->p->tensors[st->tensor].format == ARCH_BFP4_B)) {
            lm_error(s->d, st->loc,
                     "no TT-Metalium translation of '%s' on block-float tensor '%s' (class '%s'): a run of a face "
                     "row shares its exponent with the rest of the row, so the elements cannot move alone",
                     df_ops[st->op].name, s->p->tensors[st->tensor].name, s->c->name);
            s->ok = false;
            return;
        }
        if (df_ops[st->op].engine == DF_ENGINE_COMPUTE && st->op != DF_MATMUL && !emit_compute_ok(s->p, s->c, st, s->d)) {
            s->ok = false;
            return;
        }
        note_mode(s, st);
        if (!one_mode(s, st)) {
            s->ok = false;
            return;
        }
        use_fields(s, st);
        if (st->op == DF_CHAIN || st->op == DF_PCHAIN)
            for (int k = 0; k < st->nbody; k++)
                use_fields(s, st->body[k]);
        if (st->sem >= 0 && st->sem < (int)LM_COUNT(s->sems))
            s->sems[st->sem] = true;
        if ((st->op == DF_READ || st->op == DF_READ_ELEMS) && tagged(st) && st->cb >= 0 && st->cb < (int)LM_COUNT(s->ring))
            s->ring[st->cb] = true;
        if (st->tensor >= 0 && st->tensor < (int)LM_COUNT(s->info->tensors))
            s->info->tensors[st->tensor] = true;
        if (st->op == DF_SEND || st->op == DF_MCAST || st->op == DF_SEM_INC || st->op == DF_SEM_MCAST ||
            st->op == DF_SEND_ELEMS)
            s->info->noc = true;
        if (st->op == DF_MCAST || st->op == DF_SEM_MCAST)
            s->slots[DF_SLOT_CX] = s->slots[DF_SLOT_CY] = true;
        if (st->op == DF_SEM_MCAST)
            s->info->scratch_sem = true;
        if (st->op == DF_FOR)
            scan_body(s, st->body, st->nbody);
    }
}

/* ---- writing ---------------------------------------------------------------- */

typedef struct writer {
    lm_buf *b;
    const df_program *p;
    const df_class *c;
    const arch_desc *a;
    const emit_extras *x;
    int depth;
} writer;

static void indent(writer *w)
{
    for (int i = 0; i < w->depth; i++)
        lm_buf_puts(w->b, "    ");
}

static void x(writer *w, const df_expr *e) { emit_expr(w->b, w->c, e); }

static int64_t page_bytes(writer *w, int cb)
{
    for (int i = 0; i < w->c->ncbs; i++)
        if (w->c->cbs[i].id == cb)
            return w->a->tile_bytes[w->c->cbs[i].format];
    return 0;
}

static int64_t cb_pages(writer *w, int cb)
{
    for (int i = 0; i < w->c->ncbs; i++)
        if (w->c->cbs[i].id == cb)
            return w->c->cbs[i].pages;
    return 0;
}

/* The dataflow text of an op, as a comment above its translation. */
static void df_comment(writer *w, const df_stmt *st)
{
    lm_buf t = {0};
    df_print_stmt(&t, w->p, w->c, st);
    indent(w);
    lm_buf_printf(w->b, "// %s\n", lm_buf_str(&t));
    lm_buf_free(&t);
}

/* `name(e1, e2, ...)` where the arguments are given as a format of
 * expressions ('e'), CB ids ('c'), flags ('f'), literal text ('t'). */
static void call(writer *w, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    indent(w);
    lm_buf_printf(w->b, "%s(", fn);
    for (const char *f = fmt; *f; f++) {
        if (f != fmt)
            lm_buf_puts(w->b, ", ");
        switch (*f) {
        case 'e':
            x(w, va_arg(ap, const df_expr *));
            break;
        case 'c':
            emit_cb(w->b, w->c, va_arg(ap, int));
            break;
        case 'f':
            lm_buf_puts(w->b, va_arg(ap, int) ? "true" : "false");
            break;
        case 't':
            lm_buf_puts(w->b, va_arg(ap, const char *));
            break;
        }
    }
    va_end(ap);
    lm_buf_puts(w->b, ");\n");
}

/* A DRAM tensor's variable: dram_NAME (df names never clash with it). */
static void tensor_var(writer *w, int t, char *out, size_t n) { snprintf(out, n, "dram_%s", w->p->tensors[t].name); }

/* Bytes of one element of a tensor's tiles, as text (bf16 and fp32 only are emitted). */
static const char *esize(writer *w, int t) { return w->p->tensors[t].format == ARCH_FP32 ? "4" : "2"; }

static void sem_var(writer *w, int sem, char *out, size_t n) { snprintf(out, n, "sem_%s", w->p->sems[sem].name); }

static void body(writer *w, df_stmt *const *stmts, int n);

static void stmt_for(writer *w, const df_stmt *st)
{
    const char *v = emit_name(w->c, st->var);
    indent(w);
    lm_buf_printf(w->b, "for (int32_t %s = ", v);
    x(w, st->lo);
    lm_buf_printf(w->b, "; %s < ", v);
    x(w, st->hi);
    if (st->step->kind == DF_X_CONST && st->step->value == 1) {
        lm_buf_printf(w->b, "; %s++) {\n", v);
    } else {
        lm_buf_printf(w->b, "; %s += ", v);
        x(w, st->step);
        lm_buf_puts(w->b, ") {\n");
    }
    w->depth++;
    body(w, st->body, st->nbody);
    w->depth--;
    indent(w);
    lm_buf_puts(w->b, "}\n");
}

static void stmt_cb(writer *w, const df_stmt *st)
{
    static const char *const fn[] = {
        [DF_CB_RESERVE] = "cb_reserve_back", [DF_CB_PUSH] = "cb_push_back",
        [DF_CB_WAIT] = "cb_wait_front",      [DF_CB_POP] = "cb_pop_front",
    };
    call(w, fn[st->op], "ce", st->cb, st->n);
}

static void stmt_dm(writer *w, const df_stmt *st)
{
    char sem[96] = "", pg[32] = "", tv[96] = "";
    if (st->sem >= 0)
        sem_var(w, st->sem, sem, sizeof sem);
    if (st->tensor >= 0)
        tensor_var(w, st->tensor, tv, sizeof tv);
    if (st->cb >= 0)
        snprintf(pg, sizeof pg, "%lld", (long long)page_bytes(w, st->cb));
    switch (st->op) {
    case DF_READ_BARRIER:
        if (tagged(st))
            call(w, "loomc::read_barrier", "e", st->trid);
        else
            call(w, "noc_async_read_barrier", "");
        return;
    case DF_WRITE_BARRIER:
        call(w, "noc_async_write_barrier", "");
        return;
    case DF_SEM_SET:
        call(w, "loomc::sem_set", "te", sem, st->value);
        return;
    case DF_SEM_WAIT:
        call(w, "loomc::sem_wait", "tef", sem, st->value, st->ge);
        return;
    default:
        break;
    }
    df_comment(w, st);
    bool tag = (st->op == DF_READ || st->op == DF_READ_ELEMS) && tagged(st);
    if (tag)
        call(w, "noc_async_read_set_trid", "e", st->trid);
    switch (st->op) {
    case DF_READ:
        if (tag) {
            char ring[24];
            snprintf(ring, sizeof ring, "ring_%d", st->cb);
            call(w, "loomc::read_tiles_ring", "teeeete", tv, st->row, st->col, st->rows, st->cols, ring, st->at);
        } else {
            call(w, "loomc::read_tiles", "teeeece", tv, st->row, st->col, st->rows, st->cols, st->cb, st->at);
        }
        break;
    case DF_WRITE:
        call(w, "loomc::write_tiles", "ceteeee", st->cb, st->at, tv, st->row, st->col,
             st->rows, st->cols);
        break;
    case DF_READ_ELEMS:
        if (tag) {
            char ring[24];
            snprintf(ring, sizeof ring, "ring_%d", st->cb);
            call(w, "loomc::read_elems_ring", "teeeeeteeeet", tv, st->row, st->col, st->rows, st->cols, st->rstride,
                 ring, st->at, st->er, st->ec, st->bw, esize(w, st->tensor));
        } else {
            call(w, "loomc::read_elems", "teeeeeceeeet", tv, st->row, st->col, st->rows, st->cols, st->rstride,
                 st->cb, st->at, st->er, st->ec, st->bw, esize(w, st->tensor));
        }
        break;
    case DF_WRITE_ELEMS:
        call(w, "loomc::write_elems", "ceeeeteeeeet", st->cb, st->at, st->er, st->ec, st->bw, tv, st->row, st->col,
             st->rows, st->cols, st->rstride, esize(w, st->tensor));
        break;
    case DF_SEND:
        call(w, "loomc::send_pages", "tcteeeee", "grid", st->cb, pg, st->at, st->n, st->x, st->y, st->dst_at);
        break;
    case DF_MCAST:
        call(w, "loomc::mcast_pages", "tttcteeeeeeef", "grid", "cx", "cy", st->cb, pg, st->at, st->n, st->x0, st->y0,
             st->x1, st->y1, st->dst_at, st->loopback);
        break;
    case DF_SEND_ELEMS: {
        char es[16];
        snprintf(es, sizeof es, "%lld", (long long)(page_bytes(w, st->cb) / (w->a->tile_h * w->a->tile_w)));
        call(w, "loomc::send_elems", "tcteeeeeeeeceeeet", "grid", st->cb, pg, st->at, st->er, st->ec, st->bw, st->rows,
             st->cols, st->x, st->y, st->cb_out, st->dst_at, st->der, st->dec, st->dbw, es);
        break;
    }
    case DF_SEM_INC:
        call(w, "loomc::sem_inc", "tteee", "grid", sem, st->value, st->x, st->y);
        break;
    case DF_SEM_MCAST:
        call(w, "loomc::sem_mcast", "ttttteeeeef", "grid", "cx", "cy", sem, "sem_scratch", st->value, st->x0,
             st->y0, st->x1, st->y1, st->loopback);
        break;
    default:
        LM_BUG("emit: data-movement op '%s' without a translation", df_ops[st->op].name);
    }
    if (tag) /* the id sticks to the NoC's read command buffer: later reads are untagged again */
        call(w, "noc_async_read_set_trid", "t", "0");
}

static void stmt_matmul(writer *w, const df_stmt *st)
{
    df_comment(w, st);
    indent(w);
    lm_buf_puts(w->b, "loomc::matmul(");
    const int cbs[] = {st->cb, st->cb_b, st->cb_out};
    for (size_t i = 0; i < LM_COUNT(cbs); i++) {
        emit_cb(w->b, w->c, cbs[i]);
        lm_buf_puts(w->b, ", ");
    }
    const df_expr *e[] = {st->m, st->k, st->nn, st->sub_h, st->sub_w};
    for (size_t i = 0; i < LM_COUNT(e); i++) {
        x(w, e[i]);
        lm_buf_puts(w->b, ", ");
    }
    lm_buf_puts(w->b, st->trans_b ? "true, " : "false, ");
    x(w, st->at);
    lm_buf_puts(w->b, ", ");
    x(w, st->at_b);
    lm_buf_puts(w->b, ", ");
    x(w, st->at_out);
    lm_buf_puts(w->b, ", ");
    if (st->acc->kind == DF_X_CONST) {
        lm_buf_puts(w->b, st->acc->value ? "true);\n" : "false);\n");
    } else {
        x(w, st->acc);
        lm_buf_puts(w->b, " != 0);\n");
    }
}

static void body(writer *w, df_stmt *const *stmts, int n)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *st = stmts[i];
        switch (st->op) {
        case DF_FOR:
            stmt_for(w, st);
            break;
        case DF_CB_RESERVE:
        case DF_CB_PUSH:
        case DF_CB_WAIT:
        case DF_CB_POP:
            stmt_cb(w, st);
            break;
        case DF_MATMUL:
            stmt_matmul(w, st);
            break;
        case DF_CB_SWAP:
            df_comment(w, st);
            call(w, "loomc::swap_cbs", "cc", st->cb, st->cb_b);
            break;
        default:
            if (df_ops[st->op].engine == DF_ENGINE_COMPUTE) {
                df_comment(w, st);
                emit_compute_stmt(w->b, w->depth, w->p, w->c, st, w->x);
            } else {
                stmt_dm(w, st);
            }
            break;
        }
    }
}

/* ---- the prologue -------------------------------------------------------------- */

/* The first compute op of a kernel (for the one full init a compute kernel makes). */
static const df_stmt *first_op(df_stmt *const *stmts, int n)
{
    for (int i = 0; i < n; i++) {
        if (stmts[i]->op == DF_FOR) {
            const df_stmt *m = first_op(stmts[i]->body, stmts[i]->nbody);
            if (m)
                return m;
        } else if (df_ops[stmts[i]->op].engine == DF_ENGINE_COMPUTE && stmts[i]->op != DF_CB_SWAP) {
            return stmts[i];
        }
    }
    return NULL;
}

/* The compute kernel's one full init (the hardware's formats for its first
 * op; each op's own short init and format reconfiguration follow it), and
 * the extra CBs its ops read. */
static void prologue_compute(writer *w, const df_kernel *kn)
{
    bool any = false;
    for (int i = 0; i < w->c->ncbs; i++) {
        int id = w->c->cbs[i].id;
        if (!emit_cb_swapped(w->c, id))
            continue;
        if (!any)
            lm_buf_puts(w->b, "    // CBs whose names trade places (a running value's current and next copy)\n");
        any = true;
        lm_buf_printf(w->b, "    uint32_t loomc_cb%d = %d;\n", id, id);
    }
    const df_stmt *op = first_op(kn->body, kn->nbody);
    if (op && op->op == DF_MATMUL) {
        call(w, "mm_init", "ccct", op->cb, op->cb_b, op->cb_out, op->trans_b ? "1" : "0");
    } else if (op) {
        int a = op->cb >= 0 ? op->cb : op->cb_out;
        call(w, "binary_op_init_common", "ccc", a, op->cb_b >= 0 ? op->cb_b : a, op->cb_out);
    }
    if (w->x->scaler >= 0)
        lm_buf_printf(w->b, "    loomc::make_scaler(%d);  // the unit tile of the row reductions\n", w->x->scaler);
    if (w->x->iota >= 0)
        lm_buf_printf(w->b, "    cb_wait_front(%d, 2);  // the index tiles of the masks (from the reader)\n", w->x->iota);
}

static void header(writer *w, int launch, df_kernel_kind k)
{
    lm_buf f = {0};
    emit_kernel_file(&f, launch, w->c, k);
    lm_buf_printf(w->b,
                  "// %s - written by loomc: the %s kernel of core class %s, cores (%d,%d)..(%d,%d),\n"
                  "// of launch %d (program %s). Each core of the class runs it with its own coordinates\n"
                  "// (cx, cy) and the class's runtime args.\n",
                  lm_buf_str(&f), df_kernel_name(k), w->c->name, w->c->x0, w->c->y0, w->c->x1, w->c->y1, launch,
                  w->p->name);
    lm_buf_free(&f);
    lm_buf_puts(w->b, k == DF_COMPUTE ? "#include \"loomc_compute.h\"\n\n" : "#include \"loomc_dm.h\"\n\n");
}

static void prologue_dm(writer *w, const scan *s)
{
    int ct = 0;
    bool any = false;
    for (int i = 0; i < w->p->nsems; i++)
        if (s->sems[i]) {
            if (!any)
                lm_buf_puts(w->b, "    // semaphore ids (compile-time args)\n");
            any = true;
            lm_buf_printf(w->b, "    constexpr uint32_t sem_%s = get_compile_time_arg_val(%d);\n", w->p->sems[i].name,
                          i);
        }
    ct = w->p->nsems;
    if (s->info->scratch_sem)
        lm_buf_printf(w->b,
                      "    // this kernel's own word, the source of its semaphore multicasts\n"
                      "    constexpr uint32_t sem_scratch = get_compile_time_arg_val(%d);\n",
                      ct);
    int arg = 0;
    any = false;
    for (int t = 0; t < w->p->ntensors; t++)
        if (s->info->tensors[t]) {
            const df_tensor *dt = &w->p->tensors[t];
            if (!any)
                lm_buf_puts(w->b, "    // DRAM tensors (their addresses are common runtime args)\n");
            any = true;
            lm_buf_printf(w->b, "    const loomc::Tensor dram_%s = loomc::tensor(%d, %lld, %s, %lld);\n", dt->name, arg++,
                          (long long)w->a->tile_bytes[dt->format], emit_format(dt->format),
                          (long long)((dt->cols + w->a->tile_w - 1) / w->a->tile_w));
        }
    any = false;
    for (int cb = 0; cb < (int)LM_COUNT(s->ring); cb++)
        if (s->ring[cb]) {
            if (!any)
                lm_buf_puts(w->b, "    // rings of the CBs read ahead into, from their first page (no push has moved them yet)\n");
            any = true;
            lm_buf_printf(w->b, "    const loomc::Ring ring_%d = loomc::ring(%d, %lld);\n", cb, cb,
                          (long long)(page_bytes(w, cb) * cb_pages(w, cb)));
        }
    if (s->info->noc)
        lm_buf_printf(w->b,
                      "    // NoC coordinates of the grid's %d columns and %d rows (common runtime args)\n"
                      "    const loomc::Grid grid = {%d, %d};\n",
                      w->a->grid_w, w->a->grid_h, arg, w->a->grid_w);
}

static void prologue_args(writer *w, const scan *s)
{
    bool any = false;
    for (int i = 0; i < w->p->nparams; i++)
        if (s->slots[DF_SLOT_PARAM0 + i]) {
            if (!any)
                lm_buf_puts(w->b, "    // the program's params\n");
            any = true;
            lm_buf_printf(w->b, "    constexpr int32_t %s = %lld;\n", emit_name(w->c, DF_SLOT_PARAM0 + i),
                          (long long)w->p->params[i].value);
        }
    int first_arg = DF_SLOT_PARAM0 + w->p->nparams;
    any = false;
    for (int slot = 0; slot < first_arg + w->c->nargs; slot++) {
        if (slot >= DF_SLOT_PARAM0 && slot < first_arg)
            continue;
        if (!s->slots[slot])
            continue;
        if (!any)
            lm_buf_puts(w->b, "    // this core (runtime args)\n");
        any = true;
        int idx = slot < DF_SLOT_PARAM0 ? slot : 2 + (slot - first_arg);
        lm_buf_printf(w->b, "    const int32_t %s = loomc::arg(%d);", emit_name(w->c, slot), idx);
        if (slot >= first_arg) {
            lm_buf_puts(w->b, "  // ");
            df_print_expr(w->b, w->p, w->c, w->c->args[slot - first_arg]);
        }
        lm_buf_putc(w->b, '\n');
    }
}

bool emit_kernel(lm_buf *out, const df_program *p, int launch, const df_class *c, df_kernel_kind k,
                 const arch_desc *a, const emit_extras *x, emit_kinfo *info, lm_diag *d)
{
    memset(info, 0, sizeof *info);
    const df_kernel *kn = &c->kernels[k];
    bool iota = k == DF_READER && x->iota >= 0;
    if (kn->nbody == 0 && !iota)
        return true;
    info->present = true;
    scan s = {.p = p, .c = c, .kind = k, .info = info, .d = d, .ok = true};
    scan_body(&s, kn->body, kn->nbody);
    if (!s.ok)
        return false;
    writer w = {.b = out, .p = p, .c = c, .a = a, .x = x, .depth = 1};
    header(&w, launch, k);
    if (k == DF_COMPUTE)
        lm_buf_puts(out, "namespace NAMESPACE {\nvoid MAIN {\n");
    else
        lm_buf_puts(out, "void kernel_main() {\n");
    if (k != DF_COMPUTE)
        prologue_dm(&w, &s);
    prologue_args(&w, &s);
    if (k == DF_COMPUTE)
        prologue_compute(&w, kn);
    if (iota)
        lm_buf_printf(out, "    loomc::iota_tiles(%d);  // the index tiles the compute kernel's masks read\n", x->iota);
    lm_buf_putc(out, '\n');
    body(&w, kn->body, kn->nbody);
    lm_buf_puts(out, k == DF_COMPUTE ? "}\n}  // namespace NAMESPACE\n" : "}\n");
    return true;
}
