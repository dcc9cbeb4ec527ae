/* df.c - the dataflow program's op table, expression evaluation and the
 * helpers that build programs in memory (used by the parser, the lowering
 * and the tests).
 *
 * The op table is the single description of what each op takes: the parser,
 * the printer, df_stmt_new's defaults and the kernel-kind check all read it,
 * so adding a field is one line here.
 */
#include "df/df.h"

#include <stdlib.h>
#include <string.h>

/* ---- the op table ---------------------------------------------------------- */

#define F(key, kind, member, req, def) {key, DF_F_##kind, offsetof(df_stmt, member), req, def}
#define REQ true
#define OPT false

static const df_field f_for[] = {
    F("var", VAR, var, REQ, NULL),
    F("lo", EXPR, lo, REQ, NULL),
    F("hi", EXPR, hi, REQ, NULL),
    F("step", EXPR, step, OPT, "1"),
};
/* The page count of the CB ops is required: a silent default of one page
 * hides block-size mistakes, the most common bug in hand-written kernels. */
static const df_field f_cbop[] = {
    F("cb", CB, cb, REQ, NULL),
    F("n", EXPR, n, REQ, NULL),
};
/* Two CBs of one format and size, as a compute kernel's two names for a
 * running value's current and next copy (docs/dataflow.md). */
static const df_field f_cb_swap[] = {
    F("a", CB, cb, REQ, NULL),
    F("b", CB, cb_b, REQ, NULL),
};
static const df_field f_read[] = {
    F("tensor", TENSOR, tensor, REQ, NULL),
    F("row", EXPR, row, REQ, NULL),
    F("col", EXPR, col, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("trid", EXPR, trid, OPT, "0"),
};
/* The id a read barrier waits for; 0 waits for all (docs/dataflow.md). */
static const df_field f_read_barrier[] = {
    F("trid", EXPR, trid, OPT, "0"),
};
static const df_field f_write[] = {
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("tensor", TENSOR, tensor, REQ, NULL),
    F("row", EXPR, row, REQ, NULL),
    F("col", EXPR, col, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
};
static const df_field f_send[] = {
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("n", EXPR, n, REQ, NULL),
    F("x", EXPR, x, REQ, NULL),
    F("y", EXPR, y, REQ, NULL),
    F("dst_at", EXPR, dst_at, OPT, "0"),
};
static const df_field f_mcast[] = {
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("n", EXPR, n, REQ, NULL),
    F("x0", EXPR, x0, REQ, NULL),
    F("y0", EXPR, y0, REQ, NULL),
    F("x1", EXPR, x1, REQ, NULL),
    F("y1", EXPR, y1, REQ, NULL),
    F("dst_at", EXPR, dst_at, OPT, "0"),
    F("loopback", FLAG, loopback, OPT, "0"),
};
static const df_field f_sem_inc[] = {
    F("sem", SEM, sem, REQ, NULL),
    F("value", EXPR, value, OPT, "1"),
    F("x", EXPR, x, REQ, NULL),
    F("y", EXPR, y, REQ, NULL),
};
static const df_field f_sem_set[] = {
    F("sem", SEM, sem, REQ, NULL),
    F("value", EXPR, value, REQ, NULL),
};
static const df_field f_sem_wait[] = {
    F("sem", SEM, sem, REQ, NULL),
    F("value", EXPR, value, REQ, NULL),
    F("ge", FLAG, ge, OPT, "0"),
};
static const df_field f_sem_mcast[] = {
    F("sem", SEM, sem, REQ, NULL),
    F("value", EXPR, value, REQ, NULL),
    F("x0", EXPR, x0, REQ, NULL),
    F("y0", EXPR, y0, REQ, NULL),
    F("x1", EXPR, x1, REQ, NULL),
    F("y1", EXPR, y1, REQ, NULL),
    F("loopback", FLAG, loopback, OPT, "0"),
};
static const df_field f_matmul[] = {
    F("a", CB, cb, REQ, NULL),
    F("b", CB, cb_b, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("m", EXPR, m, REQ, NULL),
    F("k", EXPR, k, REQ, NULL),
    F("nn", EXPR, nn, REQ, NULL),
    F("sub_h", EXPR, sub_h, OPT, "1"),
    F("sub_w", EXPR, sub_w, OPT, "1"),
    F("trans_b", FLAG, trans_b, OPT, "0"),
    F("at", EXPR, at, OPT, "0"),
    F("at_b", EXPR, at_b, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
    F("acc", EXPR, acc, OPT, "0"),
};
static const df_field f_eltwise[] = {
    F("op", SUB, sub, REQ, NULL),
    F("a", CB, cb, REQ, NULL),
    F("b", CB, cb_b, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("bcast", BCAST, bcast, OPT, "none"),
    F("at", EXPR, at, OPT, "0"),
    F("at_b", EXPR, at_b, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
    F("acc", EXPR, acc, OPT, "0"),
};
static const df_field f_sfpu[] = {
    F("op", SUB, sub, REQ, NULL),
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("n", EXPR, n, REQ, NULL),
    F("exact", FLAG, exact, OPT, "0"),
    F("scalar", FLOAT, scalar, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};
static const df_field f_reduce[] = {
    F("op", SUB, sub, REQ, NULL),
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
    F("fold", FLAG, fold, OPT, "0"),
};
static const df_field f_copy[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("n", EXPR, n, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
    F("acc", EXPR, acc, OPT, "0"),
};
static const df_field f_fill[] = {
    F("out", CB, cb_out, REQ, NULL),
    F("n", EXPR, n, REQ, NULL),
    F("scalar", FLOAT, scalar, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};

/* Causal and sequence-end masks of attention: element (r, c) of the block
 * whose top-left tile is (row, col) keeps its value when both affine
 * predicates of its global indices hold. Absent predicates are 0 >= 0. */
static const df_field f_mask[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("row", EXPR, row, OPT, "0"),
    F("col", EXPR, col, OPT, "0"),
    F("p1r", EXPR, p1r, OPT, "0"),
    F("p1c", EXPR, p1c, OPT, "0"),
    F("p1k", EXPR, p1k, OPT, "0"),
    F("p2r", EXPR, p2r, OPT, "0"),
    F("p2c", EXPR, p2c, OPT, "0"),
    F("p2k", EXPR, p2k, OPT, "0"),
    F("scalar", FLOAT, scalar, OPT, "-inf"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};

/* Element-granular moves between a DRAM tensor and a CB tile block: a
 * rows x cols rectangle of elements (rows rstride apart in the tensor) and
 * the block's elements from (er, ec), the block bw tiles wide. */
static const df_field f_read_elems[] = {
    F("tensor", TENSOR, tensor, REQ, NULL),
    F("row", EXPR, row, REQ, NULL),
    F("col", EXPR, col, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("rstride", EXPR, rstride, OPT, "1"),
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("er", EXPR, er, OPT, "0"),
    F("ec", EXPR, ec, OPT, "0"),
    F("bw", EXPR, bw, OPT, "1"),
    F("trid", EXPR, trid, OPT, "0"),
};
static const df_field f_write_elems[] = {
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("er", EXPR, er, OPT, "0"),
    F("ec", EXPR, ec, OPT, "0"),
    F("bw", EXPR, bw, OPT, "1"),
    F("tensor", TENSOR, tensor, REQ, NULL),
    F("row", EXPR, row, REQ, NULL),
    F("col", EXPR, col, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("rstride", EXPR, rstride, OPT, "1"),
};
/* Element-granular move from the front pages of a CB to another core's
 * reserved pages: a rows x cols rectangle of the block at (er, ec), bw
 * tiles wide, to the destination CB's block at (der, dec), dbw tiles wide,
 * from its write pointer + dst_at. Partial results travel to a reducer core
 * this way, each row of a tile one NoC write. */
static const df_field f_send_elems[] = {
    F("cb", CB, cb, REQ, NULL),
    F("at", EXPR, at, OPT, "0"),
    F("er", EXPR, er, OPT, "0"),
    F("ec", EXPR, ec, OPT, "0"),
    F("bw", EXPR, bw, OPT, "1"),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("x", EXPR, x, REQ, NULL),
    F("y", EXPR, y, REQ, NULL),
    F("dcb", CB, cb_out, REQ, NULL),
    F("dst_at", EXPR, dst_at, OPT, "0"),
    F("der", EXPR, der, OPT, "0"),
    F("dec", EXPR, dec, OPT, "0"),
    F("dbw", EXPR, dbw, OPT, "1"),
};
static const df_field f_transpose[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};

/* A chain: the rows x cols block of `a` unpacked once into Dst, its steps
 * (the statement's body) applied there one after the other, packed once
 * into `out`. The steps' fields are below. */
static const df_field f_chain[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};

/* A pchain: a chain with the packer's options. pack=1: its SFPU steps run
 * on the pack thread once math has done the FPU steps (tt-metal's
 * exp_packthread_tile), so math moves on to the next chunk meanwhile;
 * front=1: the output goes to pages at the front of `out`, pushed and not
 * popped (an update in place of a block its consumers already see);
 * sum=CB: each output tile is also packed into page at_sum + its block row
 * of that CB, added to it (packer L1 accumulation) - the first tile of each
 * row overwriting unless sum_acc is non-zero; col0=1: the SFPU steps work on
 * column 0 of each tile only (a per-row statistic: a quarter of the passes);
 * scale: its exp and exp2 steps take exp(scale * x) (the scale folded into
 * the approximation's constants). */
static const df_field f_pchain[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
    F("front", FLAG, front, OPT, "0"),
    F("pack", FLAG, pack_sfpu, OPT, "0"),
    F("col0", FLAG, col0, OPT, "0"),
    F("scale", FLOAT, scalar, OPT, "1"),
    F("sum", CB, cb_sum, OPT, "-1"),
    F("at_sum", EXPR, at_sum, OPT, "0"),
    F("sum_acc", EXPR, sum_acc, OPT, "0"),
};

/* The block row maximum (the LLK's block reduction): per row r of a
 * rows x cols block, the maximum over its tiles in column 0 of one output
 * tile. Tile (r, c) is page at + r*rs + (c / bw)*bs + c % bw of `a` (0 for
 * rs and bw: cols, for bs: bw - a row-major block), so a block laid out in
 * sub-blocks is read in place. With b, row r's result is also the maximum
 * with column 0 of b's page at_b + r (the previous maximum, copied into Dst
 * before the reduction). */
static const df_field f_rowmax[] = {
    F("a", CB, cb, REQ, NULL),
    F("out", CB, cb_out, REQ, NULL),
    F("rows", EXPR, rows, OPT, "1"),
    F("cols", EXPR, cols, OPT, "1"),
    F("at", EXPR, at, OPT, "0"),
    F("rs", EXPR, rs, OPT, "0"),
    F("bw", EXPR, bw, OPT, "0"),
    F("bs", EXPR, bs, OPT, "0"),
    F("b", CB, cb_b, OPT, "-1"),
    F("at_b", EXPR, at_b, OPT, "0"),
    F("at_out", EXPR, at_out, OPT, "0"),
};

/* Steps of a chain: the Dst value is the first operand (with rev=1 the
 * second, a - value); a binary step unpacks its other operand from `b`,
 * broadcast as eltwise's `b`; a mask step indexes the chain's block. */
static const df_field f_step_eltwise[] = {
    F("op", SUB, sub, REQ, NULL),
    F("b", CB, cb_b, REQ, NULL),
    F("bcast", BCAST, bcast, OPT, "none"),
    F("at_b", EXPR, at_b, OPT, "0"),
    F("rev", FLAG, rev, OPT, "0"),
};
static const df_field f_step_sfpu[] = {
    F("op", SUB, sub, REQ, NULL),
    F("exact", FLAG, exact, OPT, "0"),
    F("scalar", FLOAT, scalar, OPT, "1"),
};
static const df_field f_step_mask[] = {
    F("row", EXPR, row, OPT, "0"),
    F("col", EXPR, col, OPT, "0"),
    F("p1r", EXPR, p1r, OPT, "0"),
    F("p1c", EXPR, p1c, OPT, "0"),
    F("p1k", EXPR, p1k, OPT, "0"),
    F("p2r", EXPR, p2r, OPT, "0"),
    F("p2c", EXPR, p2c, OPT, "0"),
    F("p2k", EXPR, p2k, OPT, "0"),
    F("scalar", FLOAT, scalar, OPT, "-inf"),
};

#define FIELDS(a) a, (int)LM_COUNT(a)
#define NOFIELDS NULL, 0

/* Engines follow the chip: NoC traffic and semaphores belong to the two
 * data-movement RISC-Vs (the compute RISC-Vs have no NoC access), tile math
 * to the compute kernel; CB handshakes and loops are everywhere. */
const df_opinfo df_ops[DF_NOPS] = {
    [DF_FOR] = {"for", FIELDS(f_for), DF_ENGINE_ANY},
    [DF_CB_RESERVE] = {"cb_reserve", FIELDS(f_cbop), DF_ENGINE_ANY},
    [DF_CB_PUSH] = {"cb_push", FIELDS(f_cbop), DF_ENGINE_ANY},
    [DF_CB_WAIT] = {"cb_wait", FIELDS(f_cbop), DF_ENGINE_ANY},
    [DF_CB_POP] = {"cb_pop", FIELDS(f_cbop), DF_ENGINE_ANY},
    [DF_READ] = {"read", FIELDS(f_read), DF_ENGINE_DM},
    [DF_WRITE] = {"write", FIELDS(f_write), DF_ENGINE_DM},
    [DF_READ_BARRIER] = {"read_barrier", FIELDS(f_read_barrier), DF_ENGINE_DM},
    [DF_WRITE_BARRIER] = {"write_barrier", NOFIELDS, DF_ENGINE_DM},
    [DF_SEND] = {"send", FIELDS(f_send), DF_ENGINE_DM},
    [DF_MCAST] = {"mcast", FIELDS(f_mcast), DF_ENGINE_DM},
    [DF_SEM_INC] = {"sem_inc", FIELDS(f_sem_inc), DF_ENGINE_DM},
    [DF_SEM_SET] = {"sem_set", FIELDS(f_sem_set), DF_ENGINE_DM},
    [DF_SEM_WAIT] = {"sem_wait", FIELDS(f_sem_wait), DF_ENGINE_DM},
    [DF_SEM_MCAST] = {"sem_mcast", FIELDS(f_sem_mcast), DF_ENGINE_DM},
    [DF_MATMUL] = {"matmul", FIELDS(f_matmul), DF_ENGINE_COMPUTE},
    [DF_ELTWISE] = {"eltwise", FIELDS(f_eltwise), DF_ENGINE_COMPUTE},
    [DF_SFPU] = {"sfpu", FIELDS(f_sfpu), DF_ENGINE_COMPUTE},
    [DF_REDUCE] = {"reduce", FIELDS(f_reduce), DF_ENGINE_COMPUTE},
    [DF_COPY] = {"copy", FIELDS(f_copy), DF_ENGINE_COMPUTE},
    [DF_FILL] = {"fill", FIELDS(f_fill), DF_ENGINE_COMPUTE},
    [DF_MASK] = {"mask", FIELDS(f_mask), DF_ENGINE_COMPUTE},
    [DF_READ_ELEMS] = {"read_elems", FIELDS(f_read_elems), DF_ENGINE_DM},
    [DF_WRITE_ELEMS] = {"write_elems", FIELDS(f_write_elems), DF_ENGINE_DM},
    [DF_TRANSPOSE] = {"transpose", FIELDS(f_transpose), DF_ENGINE_COMPUTE},
    [DF_SEND_ELEMS] = {"send_elems", FIELDS(f_send_elems), DF_ENGINE_DM},
    [DF_CHAIN] = {"chain", FIELDS(f_chain), DF_ENGINE_COMPUTE},
    [DF_CB_SWAP] = {"cb_swap", FIELDS(f_cb_swap), DF_ENGINE_COMPUTE},
    [DF_PCHAIN] = {"pchain", FIELDS(f_pchain), DF_ENGINE_COMPUTE},
    [DF_ROWMAX] = {"rowmax", FIELDS(f_rowmax), DF_ENGINE_COMPUTE},
};

static const df_opinfo step_ops[] = {
    {"eltwise", FIELDS(f_step_eltwise), DF_ENGINE_COMPUTE},
    {"sfpu", FIELDS(f_step_sfpu), DF_ENGINE_COMPUTE},
    {"mask", FIELDS(f_step_mask), DF_ENGINE_COMPUTE},
};

const df_opinfo *df_step_info(df_op op)
{
    switch (op) {
    case DF_ELTWISE: return &step_ops[0];
    case DF_SFPU: return &step_ops[1];
    case DF_MASK: return &step_ops[2];
    default: return NULL;
    }
}

df_op df_op_lookup(const char *name)
{
    for (int i = 0; i < DF_NOPS; i++)
        if (!strcmp(df_ops[i].name, name))
            return (df_op)i;
    return DF_NOPS;
}

const df_field *df_field_lookup(df_op op, const char *key)
{
    if ((unsigned)op >= DF_NOPS)
        return NULL;
    for (int i = 0; i < df_ops[op].nfields; i++)
        if (!strcmp(df_ops[op].fields[i].key, key))
            return &df_ops[op].fields[i];
    return NULL;
}

/* ---- names -------------------------------------------------------------------- */

static const char *const eltop_names[DF_NELTOPS] = {"add", "sub", "mul", "max"};
static const char *const sfpuop_names[DF_NSFPUOPS] = {
    "exp", "exp2", "log", "recip", "sqrt", "rsqrt", "sigmoid", "neg", "scale", "gtz", "gez", "ltz", "lez", "eqz", "nez"};
static const char *const redop_names[DF_NREDOPS] = {"max", "sum"};
static const char *const bcast_names[DF_NBCASTS] = {"none", "col", "row", "scalar"};
static const char *const role_names[] = {"input", "output", "scratch"};
static const char *const kernel_names[DF_NKERNELS] = {"reader", "compute", "writer"};
static const char *const format_names[ARCH_NFORMATS] = {"bf16", "fp32", "bfp8_b", "bfp4_b"};
static const char *const fidelity_names[ARCH_NFIDELITIES] = {"LoFi", "HiFi2", "HiFi3", "HiFi4"};

static int lookup(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

static const char *name_of(const char *const *names, int n, int i)
{
    return i >= 0 && i < n ? names[i] : "?";
}

static const char *const *sub_names(df_op op, int *n)
{
    switch (op) {
    case DF_ELTWISE:
        *n = DF_NELTOPS;
        return eltop_names;
    case DF_SFPU:
        *n = DF_NSFPUOPS;
        return sfpuop_names;
    case DF_REDUCE:
        *n = DF_NREDOPS;
        return redop_names;
    default:
        *n = 0;
        return NULL;
    }
}

const char *df_sub_name(df_op op, int sub)
{
    int n;
    const char *const *names = sub_names(op, &n);
    return names ? name_of(names, n, sub) : "?";
}

int df_sub_parse(df_op op, const char *s)
{
    int n;
    const char *const *names = sub_names(op, &n);
    return names ? lookup(names, n, s) : -1;
}

const char *df_bcast_name(df_bcast b) { return name_of(bcast_names, DF_NBCASTS, (int)b); }
int df_bcast_parse(const char *s) { return lookup(bcast_names, DF_NBCASTS, s); }
const char *df_role_name(df_role r) { return name_of(role_names, (int)LM_COUNT(role_names), (int)r); }
int df_role_parse(const char *s) { return lookup(role_names, (int)LM_COUNT(role_names), s); }
const char *df_kernel_name(df_kernel_kind k) { return name_of(kernel_names, DF_NKERNELS, (int)k); }
const char *df_format_name(arch_format f) { return name_of(format_names, ARCH_NFORMATS, (int)f); }
int df_format_parse(const char *s) { return lookup(format_names, ARCH_NFORMATS, s); }
const char *df_fidelity_name(arch_fidelity f) { return name_of(fidelity_names, ARCH_NFIDELITIES, (int)f); }
int df_fidelity_parse(const char *s) { return lookup(fidelity_names, ARCH_NFIDELITIES, s); }

/* ---- expressions -------------------------------------------------------------- */

/* Floor division and Python-style modulo (util's) with the failures made
 * total: the simulator evaluates addresses millions of times, so the common
 * path is a couple of compares and the rare failure only raises a flag. */
static inline int64_t floordiv(int64_t a, int64_t b, bool *bad)
{
    if (b == 0) {
        *bad = true;
        return 0;
    }
    int64_t q;
    if (!lm_fdiv_ok(a, b, &q)) {
        *bad = true;
        return INT64_MIN;
    }
    return q;
}

static inline int64_t pymod(int64_t a, int64_t b, bool *bad)
{
    if (b == 0) {
        *bad = true;
        return 0;
    }
    return lm_pymod(a, b);
}

static int64_t eval(const df_expr *e, const int64_t *s, bool *bad)
{
    if (e->kind == DF_X_CONST)
        return e->value;
    if (e->kind == DF_X_VAR)
        return s[e->slot];
    int64_t a = eval(e->a, s, bad), b = eval(e->b, s, bad), r;
    switch (e->kind) {
    case DF_X_ADD:
        if (__builtin_add_overflow(a, b, &r))
            *bad = true;
        return r;
    case DF_X_SUB:
        if (__builtin_sub_overflow(a, b, &r))
            *bad = true;
        return r;
    case DF_X_MUL:
        if (__builtin_mul_overflow(a, b, &r))
            *bad = true;
        return r;
    case DF_X_DIV:
        return floordiv(a, b, bad);
    case DF_X_MOD:
        return pymod(a, b, bad);
    case DF_X_MIN:
        return a < b ? a : b;
    case DF_X_MAX:
        return a > b ? a : b;
    default:
        LM_BUG("bad expression kind %d", (int)e->kind);
    }
}

int64_t df_eval(const df_expr *e, const int64_t *slots)
{
    bool bad = false;
    return eval(e, slots, &bad);
}

int64_t df_eval_checked(const df_expr *e, const int64_t *slots, bool *bad)
{
    return eval(e, slots, bad);
}

bool df_expr_uses_slots_from(const df_expr *e, int first_slot)
{
    if (!e || e->kind == DF_X_CONST)
        return false;
    if (e->kind == DF_X_VAR)
        return e->slot >= first_slot;
    return df_expr_uses_slots_from(e->a, first_slot) || df_expr_uses_slots_from(e->b, first_slot);
}

/* Constants 0..15 are shared: they are most of the defaults and of the
 * literals, and expressions are immutable once built. */
static const df_expr small_consts[16] = {
#define C(v) {DF_X_CONST, v, 0, NULL, NULL}
    C(0), C(1), C(2), C(3), C(4), C(5), C(6), C(7),
    C(8), C(9), C(10), C(11), C(12), C(13), C(14), C(15),
#undef C
};

const df_expr *df_const(df_program *p, int64_t v)
{
    if (v >= 0 && v < (int64_t)LM_COUNT(small_consts))
        return &small_consts[v];
    df_expr *e = LM_NEW(&p->arena, df_expr);
    e->kind = DF_X_CONST;
    e->value = v;
    return e;
}

const df_expr *df_slot(df_program *p, int slot)
{
    LM_ASSERT(slot >= 0 && slot < DF_MAX_SLOTS);
    df_expr *e = LM_NEW(&p->arena, df_expr);
    e->kind = DF_X_VAR;
    e->slot = slot;
    return e;
}

static bool is_const(const df_expr *e, int64_t v) { return e->kind == DF_X_CONST && e->value == v; }

const df_expr *df_bin(df_program *p, df_xkind k, const df_expr *a, const df_expr *b)
{
    LM_ASSERT(a && b && k >= DF_X_ADD && k <= DF_X_MAX);
    df_expr tmp = {k, 0, 0, a, b};
    if (a->kind == DF_X_CONST && b->kind == DF_X_CONST) {
        bool bad = false;
        int64_t v = eval(&tmp, NULL, &bad);
        if (!bad)
            return df_const(p, v);
    }
    switch (k) {
    case DF_X_ADD:
        if (is_const(a, 0))
            return b;
        if (is_const(b, 0))
            return a;
        break;
    case DF_X_SUB:
        if (is_const(b, 0))
            return a;
        break;
    case DF_X_MUL:
        if (is_const(a, 1))
            return b;
        if (is_const(b, 1))
            return a;
        break;
    case DF_X_DIV:
        if (is_const(b, 1))
            return a;
        break;
    default:
        break;
    }
    df_expr *e = LM_NEW(&p->arena, df_expr);
    *e = tmp;
    return e;
}

/* ---- programs ----------------------------------------------------------------- */

df_program *df_new(const char *name)
{
    df_program *p = lm_xcalloc(1, sizeof *p);
    lm_arena_init(&p->arena);
    p->name = lm_arena_strdup(&p->arena, name ? name : "program");
    return p;
}

void df_free(df_program *p)
{
    if (!p)
        return;
    lm_arena_free(&p->arena);
    free(p);
}

/* Arrays grow in the arena by doubling; the capacity is implied by the
 * length (the next power of two), so the structs need no capacity fields.
 * The old block is abandoned in the arena, which at most doubles the space. */
static void *grow(lm_arena *a, void *items, int len, size_t size)
{
    if (len > 0 && (len & (len - 1)) != 0)
        return items; /* not a power of two: there is room */
    size_t cap = len ? 2 * (size_t)len : 4;
    if (len > 0 && len < 4)
        return items; /* first block holds 4 */
    void *n = lm_arena_alloc(a, cap * size);
    if (len)
        memcpy(n, items, (size_t)len * size);
    return n;
}

#define APPEND(p, arr, n, x)                                                    \
    do {                                                                       \
        (arr) = grow(&(p)->arena, (arr), (n), sizeof *(arr));                  \
        (arr)[(n)++] = (x);                                                    \
    } while (0)

static const df_expr *default_expr(df_program *p, const char *text)
{
    return df_const(p, strtoll(text, NULL, 10));
}

static df_stmt *stmt_new(df_program *p, df_op op, const df_opinfo *oi, lm_loc loc)
{
    df_stmt *s = LM_NEW(&p->arena, df_stmt);
    s->op = op;
    s->loc = loc;
    s->cb = s->cb_b = s->cb_out = s->cb_sum = -1;
    s->tensor = s->sem = s->var = s->sub = s->bcast = -1;
    for (int i = 0; i < oi->nfields; i++) {
        const df_field *f = &oi->fields[i];
        if (!f->deflt)
            continue;
        char *at = (char *)s + f->offset;
        switch (f->kind) {
        case DF_F_EXPR:
            *(const df_expr **)at = default_expr(p, f->deflt);
            break;
        case DF_F_FLAG:
            *(bool *)at = f->deflt[0] == '1';
            break;
        case DF_F_FLOAT:
            *(double *)at = strtod(f->deflt, NULL);
            break;
        case DF_F_BCAST:
            *(int *)at = df_bcast_parse(f->deflt);
            break;
        case DF_F_SUB:
            *(int *)at = df_sub_parse(op, f->deflt);
            break;
        default:
            *(int *)at = (int)strtol(f->deflt, NULL, 10);
            break;
        }
    }
    return s;
}

df_stmt *df_stmt_new(df_program *p, df_op op, lm_loc loc)
{
    LM_ASSERT((unsigned)op < DF_NOPS);
    return stmt_new(p, op, &df_ops[op], loc);
}

df_stmt *df_step_new(df_program *p, df_op op, lm_loc loc)
{
    const df_opinfo *oi = df_step_info(op);
    LM_ASSERT(oi);
    return stmt_new(p, op, oi, loc);
}

int df_add_param(df_program *p, const char *name, int64_t value, lm_loc loc)
{
    LM_ASSERT(p->nclasses == 0); /* params' slots precede every class's args */
    if (DF_SLOT_PARAM0 + p->nparams >= DF_MAX_SLOTS)
        return -1;
    df_param x = {lm_arena_strdup(&p->arena, name), value, loc};
    APPEND(p, p->params, p->nparams, x);
    return p->nparams - 1;
}

int df_add_tensor(df_program *p, const char *name, const df_expr *rows, const df_expr *cols,
                  arch_format format, df_role role, lm_loc loc)
{
    df_tensor t = {0};
    t.name = lm_arena_strdup(&p->arena, name);
    t.rows_e = rows;
    t.cols_e = cols;
    t.format = format;
    t.role = role;
    t.loc = loc;
    APPEND(p, p->tensors, p->ntensors, t);
    return p->ntensors - 1;
}

int df_add_sem(df_program *p, const char *name, const df_expr *init, lm_loc loc)
{
    df_sem s = {lm_arena_strdup(&p->arena, name), init ? init : df_const(p, 0), 0, loc};
    APPEND(p, p->sems, p->nsems, s);
    return p->nsems - 1;
}

df_check *df_add_check(df_program *p, df_check_kind kind, lm_loc loc)
{
    df_check c = {0};
    c.kind = kind;
    c.out = c.a = c.b = c.c = -1;
    c.scale = 1.0;
    c.loc = loc;
    APPEND(p, p->checks, p->nchecks, c);
    return &p->checks[p->nchecks - 1];
}

static int add_slot(df_program *p, df_class *c, const char *name)
{
    if (c->nslots >= DF_MAX_SLOTS)
        return -1;
    APPEND(p, c->slot_names, c->nslots, lm_arena_strdup(&p->arena, name));
    return c->nslots - 1;
}

const char *const df_support_names[DF_NSUPPORT] = {"scaler", "fold", "iota"};
const arch_format df_support_format[DF_NSUPPORT] = {ARCH_BF16, ARCH_FP32, ARCH_FP32};
const int df_support_pages[DF_NSUPPORT] = {1, 1, 2};

df_class *df_add_class(df_program *p, const char *name, const df_expr *x0, const df_expr *y0,
                       const df_expr *x1, const df_expr *y1, lm_loc loc)
{
    df_class c = {0};
    for (int k = 0; k < DF_NSUPPORT; k++)
        c.support[k] = -1;
    c.name = lm_arena_strdup(&p->arena, name);
    c.x0_e = x0;
    c.y0_e = y0;
    c.x1_e = x1;
    c.y1_e = y1;
    c.fidelity = ARCH_HIFI2;
    c.loc = loc;
    APPEND(p, p->classes, p->nclasses, c);
    df_class *k = &p->classes[p->nclasses - 1];
    add_slot(p, k, "cx");
    add_slot(p, k, "cy");
    for (int i = 0; i < p->nparams; i++)
        add_slot(p, k, p->params[i].name);
    return k;
}

int df_add_arg(df_program *p, df_class *c, const char *name, const df_expr *e)
{
    /* args come right after the params: loop variables must not exist yet */
    LM_ASSERT(c->nslots == DF_SLOT_PARAM0 + p->nparams + c->nargs);
    int slot = add_slot(p, c, name);
    if (slot < 0)
        return -1;
    APPEND(p, c->args, c->nargs, e);
    return slot;
}

int df_add_loop_var(df_program *p, df_class *c, const char *name) { return add_slot(p, c, name); }

df_cb *df_add_cb(df_program *p, df_class *c, int id, arch_format format, const df_expr *pages,
                 lm_loc loc)
{
    df_cb cb = {id, format, pages, 0, loc};
    APPEND(p, c->cbs, c->ncbs, cb);
    return &c->cbs[c->ncbs - 1];
}

void df_add_stmt(df_program *p, df_kernel *k, df_stmt *s) { APPEND(p, k->body, k->nbody, s); }

void df_add_body(df_program *p, df_stmt *loop, df_stmt *s)
{
    LM_ASSERT(loop->op == DF_FOR || (df_has_steps(loop->op) && df_step_info(s->op)));
    APPEND(p, loop->body, loop->nbody, s);
}

df_stmt *df_for(df_program *p, df_class *c, const char *var, const df_expr *lo, const df_expr *hi,
                const df_expr *step, lm_loc loc)
{
    int slot = df_add_loop_var(p, c, var);
    if (slot < 0)
        return NULL;
    df_stmt *s = df_stmt_new(p, DF_FOR, loc);
    s->var = slot;
    s->lo = lo;
    s->hi = hi;
    if (step)
        s->step = step;
    return s;
}
