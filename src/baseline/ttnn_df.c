/* ttnn_df.c - storage formats of a lowered program, taken from the
 * summary's buffers.
 *
 * `--format` (and the calibration against TTNN's tables, whose tensors are
 * bfp8_b or bfp4_b) changes the storage format of a kernel's DRAM tensors,
 * which the Tile IR's element types cannot express (they are bf16 or f32).
 * sched_set_formats records the formats on the summary's IN and OUT
 * buffers; this pass carries them into a lowered program: each DRAM
 * tensor takes the format of the buffer that loads or stores it, and so
 * does every circular buffer the program reads that tensor into or writes
 * it from (on every core class: a multicast lands in the same CB id).  A
 * lowering that already takes the buffers' formats makes this a no-op.
 */
#include "baseline/ttnn.h"
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

static int tensor_index(const df_program *p, const char *name)
{
    for (int i = 0; i < p->ntensors; i++)
        if (!strcmp(p->tensors[i].name, name))
            return i;
    return -1;
}

/* Mark, per CB id, the tensor read into it (reads) or written from it
 * (writes); -2 when two tensors with different formats meet in one id. */
static void walk(const df_program *p, df_stmt *const *body, int n, int *cb_tensor)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_FOR) {
            walk(p, s->body, s->nbody, cb_tensor);
            continue;
        }
        if ((s->op != DF_READ && s->op != DF_WRITE) || s->cb < 0 || s->tensor < 0)
            continue;
        int *t = &cb_tensor[s->cb];
        if (*t == -1)
            *t = s->tensor;
        else if (*t >= 0 && *t != s->tensor && p->tensors[*t].format != p->tensors[s->tensor].format)
            *t = -2;
    }
}

void bl_df_apply_formats(struct df_program *p, const sched_kernel *k)
{
    bool changed = false;
    for (int i = 0; i < k->nbufs; i++) {
        const sched_buf *b = &k->bufs[i];
        if ((b->kind != SCHED_BUF_IN && b->kind != SCHED_BUF_OUT) || b->access < 0)
            continue;
        const tir_tensor *t = k->acc->acc[b->access].tensor;
        int ti = t ? tensor_index(p, t->name) : -1;
        if (ti < 0 || p->tensors[ti].format == b->format)
            continue;
        p->tensors[ti].format = b->format;
        changed = true;
    }
    if (!changed)
        return;
    enum { NCB = 1024 }; /* the description schema's bound on circular buffers */
    int *map = lm_xmalloc(sizeof(int) * NCB * (size_t)(p->nclasses ? p->nclasses : 1));
    for (int c = 0; c < p->nclasses; c++) {
        int *m = map + (size_t)c * NCB;
        for (int i = 0; i < NCB; i++)
            m[i] = -1;
        for (int kk = 0; kk < DF_NKERNELS; kk++)
            walk(p, p->classes[c].kernels[kk].body, p->classes[c].kernels[kk].nbody, m);
    }
    for (int c = 0; c < p->nclasses; c++) {
        df_class *cl = &p->classes[c];
        for (int i = 0; i < cl->ncbs; i++) {
            int id = cl->cbs[i].id, t = id >= 0 && id < NCB ? map[(size_t)c * NCB + id] : -2;
            /* a multicast receiver never reads DRAM itself: its CB takes the
               format the same id has on a class that does */
            for (int o = 0; t == -1 && o < p->nclasses; o++)
                if (map[(size_t)o * NCB + id] >= 0)
                    t = map[(size_t)o * NCB + id];
            if (t >= 0)
                cl->cbs[i].format = p->tensors[t].format;
        }
    }
    free(map);
}

/* ---- TTNN's NoC assignment for matmul ------------------------------------ */

/* Whether kernel `body` reads (op READ) or writes (op WRITE) tensor t. */
static bool touches(df_stmt *const *body, int n, int t, df_op op)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_FOR && touches(s->body, s->nbody, t, op))
            return true;
        if (s->op == op && s->tensor == t)
            return true;
    }
    return false;
}

static int tensor_of_buf(const df_program *p, const sched_kernel *k, int buf)
{
    if (buf < 0 || k->bufs[buf].access < 0)
        return -1;
    const tir_tensor *t = k->acc->acc[k->bufs[buf].access].tensor;
    return t ? tensor_index(p, t->name) : -1;
}

bool bl_df_ttnn_nocs(struct df_program *p, const sched_kernel *k)
{
    if (k->ndots != 1)
        return false;
    int a = tensor_of_buf(p, k, sched_dot_operand_buf(k, 0, 0)), b = tensor_of_buf(p, k, sched_dot_operand_buf(k, 0, 1));
    int c = -1;
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_OUT)
            c = tensor_of_buf(p, k, i);
    if (a < 0 || b < 0 || c < 0)
        return false;
    /* TTNN's multicast matmul factories run in0 (A) on the NoC preferred for
       DRAM writes and in1 (B) with the output writer on the one preferred for
       DRAM reads: NoC 1 and NoC 0 on Wormhole.  The simulator puts the reader
       kernel on NoC 0 and the writer on NoC 1, so when the lowering gave A
       to the reader and B and C to the writer, exchanging the two kernels
       of every core gives TTNN's assignment. */
    for (int i = 0; i < p->nclasses; i++) {
        const df_kernel *rd = &p->classes[i].kernels[DF_READER], *wr = &p->classes[i].kernels[DF_WRITER];
        if (touches(rd->body, rd->nbody, b, DF_READ) || touches(rd->body, rd->nbody, c, DF_WRITE) ||
            touches(wr->body, wr->nbody, a, DF_READ))
            return false;
    }
    bool a_on_reader = false;
    for (int i = 0; i < p->nclasses; i++)
        a_on_reader |= touches(p->classes[i].kernels[DF_READER].body, p->classes[i].kernels[DF_READER].nbody, a, DF_READ);
    if (!a_on_reader)
        return false;
    for (int i = 0; i < p->nclasses; i++) {
        df_kernel t = p->classes[i].kernels[DF_READER];
        p->classes[i].kernels[DF_READER] = p->classes[i].kernels[DF_WRITER];
        p->classes[i].kernels[DF_WRITER] = t;
    }
    return true;
}
