/* format.c - storage formats of a summarised kernel's buffers.
 *
 * The Tile IR's element types say bf16 or f32; `--format` (and the
 * calibration against TTNN's tables, whose tensors are bfp8_b or bfp4_b)
 * stores a kernel's DRAM tensors in another format. Setting the formats on
 * the summary before the scheduler and the lowering read it makes every
 * schedule - loomc's solver, a plan, TTNN's or a manual one - size its
 * circular buffers in the format's tile bytes, cost its math at the
 * format's default fidelity and lower its tensors in that format, all from
 * one place.
 */
#include "sched/sched.h"

static const sym_expr *buf_bytes(sym_ctx *s, const sched_buf *b, const arch_desc *a)
{
    return sym_mul(s, b->tiles, sym_const(s, a->tile_bytes[b->format]));
}

int sched_operand_buf(const sched_kernel *k, const tir_value *v)
{
    while (v->def && (v->def->code == TIR_VIEW || v->def->code == TIR_TRANS || v->def->code == TIR_BROADCAST ||
                      v->def->code == TIR_EXPAND_DIMS))
        v = v->def->opnds[0];
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].value == v)
            return i;
    return -1;
}

int sched_dot_operand_buf(const sched_kernel *k, int dot, int which)
{
    if (dot < 0 || dot >= k->ndots || which < 0 || which > 1)
        return -1;
    return sched_operand_buf(k, k->dots[dot].op->opnds[which]);
}

static bool is_scratch(const sched_kernel *k, const sched_buf *b)
{
    if (b->access < 0)
        return false;
    const tir_tensor *t = k->acc->acc[b->access].tensor;
    return t && t->role == TIR_SCRATCH;
}

/* The dots' operand formats, Dst accumulation and the default fidelity
   from the buffers. The fidelity is TTNN's default rule (sched_summarize's
   too): HiFi2, LoFi when both inputs of every dot are block-float. */
static void follow_formats(sched_kernel *k)
{
    k->fp32_acc = false;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT && k->bufs[i].format == ARCH_FP32)
            k->fp32_acc = true;
    bool all_bfp = k->ndots > 0;
    for (int i = 0; i < k->ndots; i++) {
        sched_dot *d = &k->dots[i];
        int ba = sched_operand_buf(k, d->op->opnds[0]), bb = sched_operand_buf(k, d->op->opnds[1]);
        if (ba >= 0)
            d->a_format = k->bufs[ba].format;
        if (bb >= 0)
            d->b_format = k->bufs[bb].format;
        bool bfp_a = d->a_format == ARCH_BFP8_B || d->a_format == ARCH_BFP4_B;
        bool bfp_b = d->b_format == ARCH_BFP8_B || d->b_format == ARCH_BFP4_B;
        if (!(bfp_a && bfp_b))
            all_bfp = false;
    }
    k->fidelity = all_bfp ? ARCH_LOFI : ARCH_HIFI2;
}

void sched_set_buf_format(sched_kernel *k, int buf, arch_format f, const arch_desc *a, sym_ctx *s)
{
    if (buf < 0 || buf >= k->nbufs)
        return;
    sched_buf *b = &k->bufs[buf];
    b->format = f;
    b->bytes = buf_bytes(s, b, a);
    follow_formats(k);
}

void sched_set_formats(sched_kernel *k, arch_format in, arch_format out, bool keep_scratch, const arch_desc *a,
                       sym_ctx *s)
{
    for (int i = 0; i < k->nbufs; i++) {
        sched_buf *b = &k->bufs[i];
        if (b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT)
            continue;
        if (keep_scratch && is_scratch(k, b))
            continue;
        b->format = b->kind == SCHED_BUF_IN ? in : out;
        b->bytes = buf_bytes(s, b, a);
        if (b->kind != SCHED_BUF_OUT || b->alias < 0)
            continue;
        /* A store straight from the accumulator: TTNN keeps the partial sums
           between K blocks in the output's format when that is bf16 or fp32
           (the partials CB shares the output CB), else in bf16 in a CB of
           their own. */
        sched_buf *acc = &k->bufs[b->alias];
        if (out == ARCH_BF16 || out == ARCH_FP32) {
            acc->format = out;
        } else {
            acc->format = ARCH_BF16;
            b->alias = -1;
        }
        acc->bytes = buf_bytes(s, acc, a);
    }
    follow_formats(k);
}
