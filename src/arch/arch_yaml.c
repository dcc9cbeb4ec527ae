/* arch_yaml.c - reading a hardware description: the YAML schema, its
 * table-driven checker and arch_parse.
 *
 * The schema is one table (`top` below and the tables it points to): every
 * key, where its value goes in arch_desc, its type and its valid range.
 * docs/arch.md documents the same table for people; test_arch checks that
 * both name the same keys (arch_schema_keys).
 * Checking happens in two passes over the libyaml document tree: the first
 * checks each value on its own (presence, type, range, unknown and
 * duplicate keys), the second, run only when the first found nothing,
 * checks values against each other (grid within the NoC, DRAM endpoints
 * off the worker positions, reserved L1 below L1, ...). Every message
 * names the file, line and column, the key path and what was expected.
 */
#include "arch/arch_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- the schema ------------------------------------------------------ */

typedef enum fkind {
    F_MAP,        /* a mapping with the keys in `sub` */
    F_INT,        /* integer -> int */
    F_I64,        /* integer -> int64_t */
    F_NUM,        /* number -> double */
    F_BOOL,       /* true/false -> bool */
    F_STR,        /* string -> const char * (heap) */
    F_DISPATCH,   /* tensix | ethernet -> bool dispatch_on_eth */
    F_FORMATS,    /* {format: bytes} -> int64_t[ARCH_NFORMATS] */
    F_FIDELITIES, /* {fidelity: cycles} -> double[ARCH_NFIDELITIES] */
    F_INTLIST,    /* [int, ...] -> int[ARCH_MAX_GRID] */
    F_XYLIST,     /* [[x, y], ...] -> arch_xy[ARCH_MAX_DRAM_BANKS] */
} fkind;

typedef struct field {
    const char *key;
    fkind kind;
    bool optional;
    size_t off;              /* where the value goes in arch_desc */
    double lo, hi;           /* valid range (of elements, for lists and maps) */
    bool lo_open;            /* the value must be > lo rather than >= lo */
    const struct field *sub; /* F_MAP: the keys, ending with key == NULL */
} field;

#define OFF(m) offsetof(arch_desc, m)
#define MAPF(k, s) {k, F_MAP, false, 0, 0, 0, false, s}
#define INTF(k, m, lo, hi) {k, F_INT, false, OFF(m), lo, hi, false, NULL}
#define I64F(k, m, lo, hi) {k, F_I64, false, OFF(m), lo, hi, false, NULL}
#define POSF(k, m, hi) {k, F_NUM, false, OFF(m), 0, hi, true, NULL}  /* (0, hi] */
#define OPOSF(k, m, hi) {k, F_NUM, true, OFF(m), 0, hi, true, NULL}  /* (0, hi], may be absent */
#define NNEGF(k, m, hi) {k, F_NUM, false, OFF(m), 0, hi, false, NULL} /* [0, hi] */
#define BOOLF(k, m) {k, F_BOOL, false, OFF(m), 0, 0, false, NULL}
#define ENDF {NULL, F_MAP, false, 0, 0, 0, false, NULL}

/* Upper bounds that only catch typos and unit mix-ups (docs/arch.md). */
#define MAX_NOC 255          /* NoC grid side */
#define MAX_BPC 4096.0       /* bytes per cycle of anything */
#define MAX_CYCLES 1e7       /* any latency or fixed cost */
#define MAX_TILE_CYCLES 1e6  /* any per-tile cost */
#define MAX_TILE_BYTES (1 << 20)

static const field grid_f[] = {
    INTF("width", grid_w, 1, ARCH_MAX_GRID),
    INTF("height", grid_h, 1, ARCH_MAX_GRID),
    {"noc_x", F_INTLIST, false, OFF(core_noc_x), 0, MAX_NOC - 1, false, NULL},
    {"noc_y", F_INTLIST, false, OFF(core_noc_y), 0, MAX_NOC - 1, false, NULL},
    ENDF,
};

static const field l1_f[] = {
    I64F("bytes", l1_bytes, 1024, 1 << 30),
    I64F("reserved_bytes", l1_reserved_bytes, 0, 1 << 30),
    INTF("circular_buffers", num_cbs, 1, 1024),
    ENDF,
};

static const field tile_f[] = {
    INTF("height", tile_h, 1, 256),
    INTF("width", tile_w, 1, 256),
    {"bytes", F_FORMATS, false, OFF(tile_bytes), 1, MAX_TILE_BYTES, false, NULL},
    ENDF,
};

static const field fpu_f[] = {
    INTF("flops_per_cycle", fpu_flops_per_cycle, 1, 1 << 24),
    ENDF,
};

static const field dst_f[] = {
    INTF("half_sync_tiles_16b", dst_tiles_half_16b, 1, 1024),
    INTF("half_sync_tiles_32b", dst_tiles_half_32b, 1, 1024),
    ENDF,
};

static const field mcast_shape_f[] = {
    BOOLF("rectangle", mcast_rect),
    BOOLF("strided", mcast_strided),
    BOOLF("l_shape", mcast_lshape),
    ENDF,
};

static const field noc_f[] = {
    INTF("count", num_nocs, 1, 4),
    INTF("width", noc_w, 1, MAX_NOC),
    INTF("height", noc_h, 1, MAX_NOC),
    BOOLF("torus", noc_torus),
    INTF("link_bytes_per_cycle", link_bytes_per_cycle, 1, (int)MAX_BPC),
    I64F("max_packet_bytes", max_packet_bytes, 1, 1 << 20),
    INTF("header_flits", header_flits, 0, 64),
    INTF("max_transaction_ids", max_transaction_ids, 1, 1024),
    MAPF("multicast", mcast_shape_f),
    ENDF,
};

static const field dram_f[] = {
    INTF("alignment_bytes", dram_alignment, 1, 4096),
    I64F("bank_bytes", dram_bank_bytes, 1, (double)((int64_t)1 << 40)),
    {"banks", F_XYLIST, false, OFF(dram_bank_noc), 0, MAX_NOC - 1, false, NULL},
    {"banks_noc1", F_XYLIST, true, OFF(dram_bank_noc1), 0, MAX_NOC - 1, false, NULL},
    ENDF,
};

static const field structure_f[] = {
    POSF("clock_ghz", clock_ghz, 10),
    {"dispatch", F_DISPATCH, true, OFF(dispatch_on_eth), 0, 0, false, NULL},
    MAPF("grid", grid_f),
    MAPF("l1", l1_f),
    MAPF("tile", tile_f),
    MAPF("fpu", fpu_f),
    MAPF("dst", dst_f),
    MAPF("noc", noc_f),
    MAPF("dram", dram_f),
    ENDF,
};

static const field pdram_f[] = {
    POSF("bank_read_bytes_per_cycle", dram_bank_read_bpc, MAX_BPC),
    POSF("bank_write_bytes_per_cycle", dram_bank_write_bpc, MAX_BPC),
    NNEGF("read_latency_cycles", dram_latency_cycles, MAX_CYCLES),
    NNEGF("write_latency_cycles", dram_write_latency_cycles, MAX_CYCLES),
    ENDF,
};

static const field pcore_f[] = {
    POSF("read_bytes_per_cycle", core_read_bpc, MAX_BPC),
    POSF("write_bytes_per_cycle", core_write_bpc, MAX_BPC),
    ENDF,
};

static const field pnoc_f[] = {
    NNEGF("hop_cycles", noc_hop_cycles, MAX_CYCLES),
    NNEGF("inject_cycles", noc_inject_cycles, MAX_CYCLES),
    NNEGF("eject_cycles", noc_eject_cycles, MAX_CYCLES),
    NNEGF("command_cycles", noc_cmd_cycles, MAX_CYCLES),
    ENDF,
};

static const field pmcast_f[] = {
    NNEGF("setup_cycles", mcast_setup_cycles, MAX_CYCLES),
    POSF("bytes_per_cycle", mcast_bpc, MAX_BPC),
    ENDF,
};

static const field pcompute_f[] = {
    {"matmul_tile_cycles", F_FIDELITIES, false, OFF(matmul_tile_cycles), 0, MAX_TILE_CYCLES, true,
     NULL},
    POSF("matmul_rows_granule", matmul_rows_granule, 256),
    POSF("eltwise_tile_cycles", eltwise_tile_cycles, MAX_TILE_CYCLES),
    POSF("bcast_tile_cycles", bcast_tile_cycles, MAX_TILE_CYCLES),
    POSF("reduce_tile_cycles", reduce_tile_cycles, MAX_TILE_CYCLES),
    OPOSF("reduce_block_tile_cycles", reduce_block_tile_cycles, MAX_TILE_CYCLES),
    POSF("sfpu_exp_tile_cycles", sfpu_exp_tile_cycles, MAX_TILE_CYCLES),
    POSF("sfpu_exp_exact_tile_cycles", sfpu_exp_exact_tile_cycles, MAX_TILE_CYCLES),
    POSF("sfpu_recip_tile_cycles", sfpu_recip_tile_cycles, MAX_TILE_CYCLES),
    OPOSF("sfpu_sqrt_tile_cycles", sfpu_sqrt_tile_cycles, MAX_TILE_CYCLES),
    OPOSF("sfpu_rsqrt_tile_cycles", sfpu_rsqrt_tile_cycles, MAX_TILE_CYCLES),
    OPOSF("sfpu_sigmoid_tile_cycles", sfpu_sigmoid_tile_cycles, MAX_TILE_CYCLES),
    POSF("unpack_bytes_per_cycle", unpack_bpc, MAX_BPC),
    POSF("pack_bytes_per_cycle", pack_bpc, MAX_BPC),
    ENDF,
};

static const field poverhead_f[] = {
    NNEGF("kernel_launch_cycles", kernel_launch_cycles, MAX_CYCLES),
    NNEGF("cb_handshake_cycles", cb_handshake_cycles, MAX_CYCLES),
    NNEGF("semaphore_cycles", sem_cycles, MAX_CYCLES),
    NNEGF("barrier_cycles", barrier_cycles, MAX_CYCLES),
    NNEGF("dst_handoff_cycles", dst_handoff_cycles, MAX_CYCLES),
    NNEGF("op_init_cycles", op_init_cycles, MAX_CYCLES),
    ENDF,
};

static const field performance_f[] = {
    MAPF("dram", pdram_f),
    MAPF("core", pcore_f),
    MAPF("noc", pnoc_f),
    MAPF("multicast", pmcast_f),
    MAPF("compute", pcompute_f),
    MAPF("overhead", poverhead_f),
    ENDF,
};

static const field top_f[] = {
    {"name", F_STR, false, OFF(name), 0, 0, false, NULL},
    {"description", F_STR, true, OFF(description), 0, 0, false, NULL},
    MAPF("structure", structure_f),
    MAPF("performance", performance_f),
    ENDF,
};

/* ---- the checker ----------------------------------------------------- */

enum { MAX_PATH = 128, MAX_RECS = 160 };

/* A value seen by the first pass, kept for the second. */
typedef struct rec {
    char path[MAX_PATH];
    yaml_node_t *node;
} rec;

typedef struct ctx {
    const char *file;
    lm_diag *d;
    yaml_document_t *doc;
    arch_desc *a;
    int errors0; /* d->nerrors on entry */
    rec recs[MAX_RECS];
    int nrecs;
} ctx;

static lm_loc loc_of_mark(const ctx *c, yaml_mark_t m)
{
    return (lm_loc){c->file, (int)m.line + 1, (int)m.column + 1};
}

static lm_loc loc_of(const ctx *c, const yaml_node_t *n) { return loc_of_mark(c, n->start_mark); }

static int nerrors(const ctx *c) { return c->d->nerrors - c->errors0; }

static yaml_node_t *node_at(const ctx *c, yaml_node_item_t i)
{
    yaml_node_t *n = yaml_document_get_node(c->doc, i);
    LM_ASSERT(n);
    return n;
}

static const char *stext(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = stext(n);
    return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
           !strcmp(s, "NULL");
}

/* What the user wrote, for `got ...` in messages. */
static const char *got(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    if (is_null(n))
        return "nothing";
    const char *s = stext(n);
    const char *q = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "the quoted string ";
    if (strlen(s) > 40)
        snprintf(buf, size, "%s'%.37s...'", q, s);
    else
        snprintf(buf, size, "%s'%s'", q, s);
    return buf;
}

/* snprintf for key paths; the schema keeps them far below MAX_PATH. */
static void pathf(char *out, size_t size, const char *fmt, ...) LM_PRINTF(3, 4);
static void pathf(char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
}

static void record(ctx *c, const char *path, yaml_node_t *n)
{
    LM_ASSERT(c->nrecs < MAX_RECS);
    rec *r = &c->recs[c->nrecs++];
    pathf(r->path, sizeof r->path, "%s", path);
    r->node = n;
}

/* The node recorded for a path; the second pass runs only when every
 * required key was present, so a missing one is a bug. */
static yaml_node_t *recorded(const ctx *c, const char *path)
{
    for (int i = 0; i < c->nrecs; i++)
        if (!strcmp(c->recs[i].path, path))
            return c->recs[i].node;
    return NULL;
}

static lm_loc rloc(const ctx *c, const char *path)
{
    yaml_node_t *n = recorded(c, path);
    if (!n)
        LM_BUG("no value recorded for %s", path);
    return loc_of(c, n);
}

static bool parse_name(bool fmt, const char *s, int *idx);

/* The value of format or fidelity `idx` in the mapping recorded for `path`. */
static lm_loc named_loc(const ctx *c, const char *path, bool fmt, int idx)
{
    yaml_node_t *n = recorded(c, path);
    if (!n)
        LM_BUG("no value recorded for %s", path);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key);
        int i;
        if (parse_name(fmt, stext(k), &i) && i == idx)
            return loc_of(c, node_at(c, p->value));
    }
    return loc_of(c, n);
}

static void join(char *out, size_t size, const char *path, const char *key)
{
    if (*path)
        pathf(out, size, "%s.%s", path, key);
    else
        snprintf(out, size, "%s", key);
}

/* Plain integer: optional sign, decimal or 0x hex digits, '_' between digits. */
static bool parse_int(const yaml_node_t *n, int64_t *out)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = stext(n);
    bool neg = false;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (!*s || *s == '_')
        return false;
    uint64_t v = 0;
    bool prev_us = false;
    for (; *s; s++) {
        int dv;
        if (*s == '_') {
            if (prev_us)
                return false;
            prev_us = true;
            continue;
        }
        prev_us = false;
        if (*s >= '0' && *s <= '9')
            dv = *s - '0';
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            dv = *s - 'a' + 10;
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            dv = *s - 'A' + 10;
        else
            return false;
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)dv;
    }
    if (prev_us || v > (uint64_t)INT64_MAX)
        return false;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}

static bool parse_num(const yaml_node_t *n, double *out)
{
    int64_t i;
    if (parse_int(n, &i)) {
        *out = (double)i;
        return true;
    }
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = stext(n);
    char buf[64];
    size_t k = 0;
    for (; *s; s++) {
        if (*s == '_')
            continue;
        if (!strchr("0123456789+-.eE", *s) || k + 1 >= sizeof buf)
            return false;
        buf[k++] = *s;
    }
    buf[k] = 0;
    if (!k)
        return false;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_bool(const yaml_node_t *n, bool *out)
{
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = stext(n);
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
        *out = true;
        return true;
    }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
        *out = false;
        return true;
    }
    return false;
}

/* "a positive integer", "an integer in 1..64", ...; with the upper bound
 * when `full` (for out-of-range values). */
static void describe_int(char *buf, size_t size, const field *f, bool full)
{
    long long lo = (long long)f->lo, hi = (long long)f->hi;
    if (lo == 1 || lo == 0) {
        int n = snprintf(buf, size, "%s integer", lo == 1 ? "a positive" : "a non-negative");
        if (full && n > 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, " no larger than %lld", hi);
    } else {
        snprintf(buf, size, "an integer in %lld..%lld", lo, hi);
    }
}

static void describe_num(char *buf, size_t size, const field *f, bool full)
{
    int n;
    if (f->lo == 0)
        n = snprintf(buf, size, "%s number", f->lo_open ? "a positive" : "a non-negative");
    else
        n = snprintf(buf, size, "a number %s %g", f->lo_open ? "above" : "of at least", f->lo);
    if (full && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " no larger than %g", f->hi);
}

static bool in_range(const field *f, double v)
{
    return (f->lo_open ? v > f->lo : v >= f->lo) && v <= f->hi;
}

/* Check one integer value against `f`'s range; reports and returns false. */
static bool get_int(ctx *c, const yaml_node_t *n, const field *f, const char *path, int64_t *out)
{
    char want[96], gb[80];
    if (!parse_int(n, out)) {
        double v;
        describe_int(want, sizeof want, f, false);
        if (parse_num(n, &v) && v == floor(v) && fabs(v) >= 9.2e18) {
            describe_int(want, sizeof want, f, true);
            lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s (too large)", path, want, got(n, gb, sizeof gb));
        } else if (parse_num(n, &v))
            lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s (not a whole number)", path, want,
                     got(n, gb, sizeof gb));
        else
            lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s", path, want,
                     got(n, gb, sizeof gb));
        return false;
    }
    if (!in_range(f, (double)*out)) {
        describe_int(want, sizeof want, f, (double)*out > f->hi);
        lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s", path, want, got(n, gb, sizeof gb));
        return false;
    }
    return true;
}

static bool get_num(ctx *c, const yaml_node_t *n, const field *f, const char *path, double *out)
{
    char want[96], gb[80];
    if (!parse_num(n, out)) {
        describe_num(want, sizeof want, f, false);
        lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s", path, want, got(n, gb, sizeof gb));
        return false;
    }
    if (!in_range(f, *out)) {
        describe_num(want, sizeof want, f, *out > f->hi);
        lm_error(c->d, loc_of(c, n), "%s: expected %s, got %s", path, want, got(n, gb, sizeof gb));
        return false;
    }
    return true;
}

/* Where else in the schema a key of this name lives (for a key put in the
 * wrong section); writes the section's path into `out`. */
static bool find_elsewhere(const field *fields, const char *path, const char *key, const field *skip,
                           char *out, size_t size)
{
    for (const field *f = fields; f->key; f++) {
        if (f->kind != F_MAP)
            continue;
        char sub[MAX_PATH];
        join(sub, sizeof sub, path, f->key);
        if (f->sub != skip)
            for (const field *g = f->sub; g->key; g++)
                if (!strcmp(g->key, key)) {
                    pathf(out, size, "%s", sub);
                    return true;
                }
        if (find_elsewhere(f->sub, sub, key, skip, out, size))
            return true;
    }
    return false;
}

/* Reports an unknown key; returns the sibling it suggests instead, or NULL. */
static const field *unknown_key(ctx *c, const yaml_node_t *k, const field *fields, const char *path)
{
    const char *names[32];
    int n = 0;
    for (const field *f = fields; f->key && n < 32; f++)
        names[n++] = f->key;
    const char *key = stext(k);
    const char *near = lm_closest(key, names, n, LM_NEAR_KEY);
    char where[MAX_PATH];
    char prefix[MAX_PATH + 4];
    if (*path)
        pathf(prefix, sizeof prefix, "%s: ", path);
    else
        prefix[0] = 0;
    if (near) {
        lm_error(c->d, loc_of(c, k), "%sunknown key '%s' (did you mean '%s'?)", prefix, key, near);
        for (const field *f = fields; f->key; f++)
            if (f->key == near)
                return f;
    } else if (find_elsewhere(top_f, "", key, fields, where, sizeof where)) {
        lm_error(c->d, loc_of(c, k), "%sunknown key '%s' (it belongs in '%s')", prefix, key, where);
    } else {
        lm_buf b = {0};
        for (int i = 0; i < n; i++)
            lm_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
        lm_error(c->d, loc_of(c, k), "%sunknown key '%s' (known keys: %s)", prefix, key,
                 lm_buf_str(&b));
        lm_buf_free(&b);
    }
    return NULL;
}

static void walk_map(ctx *c, yaml_node_t *n, const field *fields, const char *path, lm_loc where);

static void want_mapping(ctx *c, const yaml_node_t *n, const char *path, const char *what)
{
    char gb[80];
    if (*path)
        lm_error(c->d, loc_of(c, n), "%s: expected a mapping %s, got %s", path, what,
                 got(n, gb, sizeof gb));
    else
        lm_error(c->d, loc_of(c, n), "expected a mapping %s, got %s", what, got(n, gb, sizeof gb));
}

/* Is the key `k` a repeat of one earlier in the mapping `n`? */
static const yaml_node_t *earlier_key(const ctx *c, const yaml_node_t *n, const yaml_node_pair_t *p)
{
    const char *key = stext(node_at(c, p->key));
    for (const yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
        const yaml_node_t *k = node_at(c, q->key);
        if (k->type == YAML_SCALAR_NODE && !strcmp(stext(k), key))
            return k;
    }
    return NULL;
}

static bool key_is_scalar(ctx *c, const yaml_node_t *k, const char *path)
{
    if (k->type == YAML_SCALAR_NODE)
        return true;
    lm_error(c->d, loc_of(c, k), "%s%sexpected a key name, got %s", path, *path ? ": " : "",
             k->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping");
    return false;
}

static bool parse_name(bool fmt, const char *s, int *idx)
{
    if (fmt) {
        arch_format af = ARCH_BF16;
        bool ok = arch_format_parse(s, &af);
        *idx = (int)af;
        return ok;
    }
    arch_fidelity af = ARCH_LOFI;
    bool ok = arch_fidelity_parse(s, &af);
    *idx = (int)af;
    return ok;
}

/* {format: bytes} or {fidelity: cycles}: every name known, each once, all
 * present. An unknown name is matched against the missing ones first, so
 * `HiFi5` next to LoFi, HiFi2 and HiFi3 suggests HiFi4. */
static void walk_named(ctx *c, yaml_node_t *n, const field *f, const char *path, lm_loc where)
{
    bool fmt = f->kind == F_FORMATS;
    int count = fmt ? ARCH_NFORMATS : ARCH_NFIDELITIES;
    const char *const *names = fmt ? arch_format_names : arch_fidelity_names;
    const char *kind = fmt ? "data format" : "math fidelity";
    if (n->type != YAML_MAPPING_NODE) {
        want_mapping(c, n, path, fmt ? "of data formats to bytes per tile"
                                     : "of math fidelities to cycles per tile");
        return;
    }
    bool present[8] = {false}, seen[8] = {false}, suggested[8] = {false};
    int idx;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key);
        if (k->type == YAML_SCALAR_NODE && parse_name(fmt, stext(k), &idx))
            present[idx] = true;
    }
    const char *missing[8];
    int nmissing = 0;
    for (int i = 0; i < count; i++)
        if (!present[i])
            missing[nmissing++] = names[i];
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
        if (!key_is_scalar(c, k, path))
            continue;
        if (!parse_name(fmt, stext(k), &idx)) {
            const char *near = lm_closest(stext(k), missing, nmissing, LM_NEAR_KEY);
            if (!near)
                near = lm_closest(stext(k), names, count, LM_NEAR_KEY);
            if (near) {
                lm_error(c->d, loc_of(c, k), "%s: unknown %s '%s' (did you mean '%s'?)", path,
                         kind, stext(k), near);
                for (int i = 0; i < count; i++)
                    if (names[i] == near)
                        suggested[i] = true; /* reported here, not again as missing */
            } else {
                lm_buf b = {0};
                for (int i = 0; i < count; i++)
                    lm_buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
                lm_error(c->d, loc_of(c, k), "%s: unknown %s '%s' (known: %s)", path, kind,
                         stext(k), lm_buf_str(&b));
                lm_buf_free(&b);
            }
            continue;
        }
        const yaml_node_t *first = earlier_key(c, n, p);
        if (first || seen[idx]) {
            lm_error(c->d, loc_of(c, k), "%s: %s '%s' given twice", path, kind, names[idx]);
            continue;
        }
        seen[idx] = true;
        char sub[MAX_PATH];
        join(sub, sizeof sub, path, names[idx]);
        if (fmt) {
            int64_t val;
            if (get_int(c, v, f, sub, &val))
                ((int64_t *)((char *)c->a + f->off))[idx] = val;
        } else {
            double val;
            if (get_num(c, v, f, sub, &val))
                ((double *)((char *)c->a + f->off))[idx] = val;
        }
    }
    for (int i = 0; i < count; i++)
        if (!seen[i] && !suggested[i])
            lm_error(c->d, where, "%s: missing %s '%s'", path, kind, names[i]);
}

static void walk_intlist(ctx *c, yaml_node_t *n, const field *f, const char *path)
{
    char gb[80];
    if (n->type != YAML_SEQUENCE_NODE) {
        lm_error(c->d, loc_of(c, n), "%s: expected a list of NoC coordinates, got %s", path,
                 got(n, gb, sizeof gb));
        return;
    }
    int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len < 1 || len > ARCH_MAX_GRID) {
        lm_error(c->d, loc_of(c, n), "%s: expected 1 to %d entries, got %d", path, ARCH_MAX_GRID,
                 len);
        return;
    }
    int *out = (int *)((char *)c->a + f->off);
    for (int i = 0; i < len; i++) {
        yaml_node_t *e = node_at(c, n->data.sequence.items.start[i]);
        char sub[MAX_PATH];
        pathf(sub, sizeof sub, "%s[%d]", path, i);
        int64_t v;
        if (get_int(c, e, f, sub, &v))
            out[i] = (int)v;
    }
}

static void walk_xylist(ctx *c, yaml_node_t *n, const field *f, const char *path)
{
    char gb[80];
    if (n->type != YAML_SEQUENCE_NODE) {
        lm_error(c->d, loc_of(c, n), "%s: expected a list of NoC positions [x, y], got %s", path,
                 got(n, gb, sizeof gb));
        return;
    }
    int len = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (len < 1 || len > ARCH_MAX_DRAM_BANKS) {
        lm_error(c->d, loc_of(c, n), "%s: expected 1 to %d NoC positions, got %d", path,
                 ARCH_MAX_DRAM_BANKS, len);
        return;
    }
    arch_xy *out = (arch_xy *)((char *)c->a + f->off);
    for (int i = 0; i < len; i++) {
        yaml_node_t *e = node_at(c, n->data.sequence.items.start[i]);
        char sub[MAX_PATH];
        pathf(sub, sizeof sub, "%s[%d]", path, i);
        if (e->type != YAML_SEQUENCE_NODE ||
            e->data.sequence.items.top - e->data.sequence.items.start != 2) {
            lm_error(c->d, loc_of(c, e), "%s: expected a NoC position [x, y], got %s", sub,
                     e->type == YAML_SEQUENCE_NODE ? "a list of another length"
                                                   : got(e, gb, sizeof gb));
            continue;
        }
        int64_t x, y;
        char sx[MAX_PATH + 4], sy[MAX_PATH + 4];
        pathf(sx, sizeof sx, "%s.x", sub);
        pathf(sy, sizeof sy, "%s.y", sub);
        bool okx = get_int(c, node_at(c, e->data.sequence.items.start[0]), f, sx, &x);
        bool oky = get_int(c, node_at(c, e->data.sequence.items.start[1]), f, sy, &y);
        if (okx && oky)
            out[i] = (arch_xy){(int)x, (int)y};
    }
}

static void walk_value(ctx *c, yaml_node_t *v, const field *f, const char *path, lm_loc keyloc)
{
    char *base = (char *)c->a + f->off;
    char gb[80];
    if (f->kind != F_MAP)
        record(c, path, v);
    switch (f->kind) {
    case F_MAP:
        walk_map(c, v, f->sub, path, keyloc);
        break;
    case F_INT: {
        int64_t x;
        if (get_int(c, v, f, path, &x))
            *(int *)base = (int)x;
        break;
    }
    case F_I64: {
        int64_t x;
        if (get_int(c, v, f, path, &x))
            *(int64_t *)base = x;
        break;
    }
    case F_NUM: {
        double x;
        if (get_num(c, v, f, path, &x))
            *(double *)base = x;
        break;
    }
    case F_BOOL:
        if (!parse_bool(v, (bool *)base))
            lm_error(c->d, loc_of(c, v), "%s: expected true or false, got %s", path,
                     got(v, gb, sizeof gb));
        break;
    case F_STR:
        if (v->type != YAML_SCALAR_NODE || is_null(v))
            lm_error(c->d, loc_of(c, v), "%s: expected a string, got %s", path,
                     got(v, gb, sizeof gb));
        else {
            char **dst = (char **)base;
            free(*dst);
            *dst = lm_xstrdup(stext(v));
        }
        break;
    case F_DISPATCH:
        if (v->type == YAML_SCALAR_NODE && !strcmp(stext(v), "tensix"))
            *(bool *)base = false;
        else if (v->type == YAML_SCALAR_NODE && !strcmp(stext(v), "ethernet"))
            *(bool *)base = true;
        else
            lm_error(c->d, loc_of(c, v), "%s: expected 'tensix' or 'ethernet', got %s", path,
                     got(v, gb, sizeof gb));
        break;
    case F_FORMATS:
    case F_FIDELITIES:
        walk_named(c, v, f, path, keyloc);
        break;
    case F_INTLIST:
        walk_intlist(c, v, f, path);
        break;
    case F_XYLIST:
        walk_xylist(c, v, f, path);
        break;
    }
}

static void keys_of(lm_buf *b, const field *fields)
{
    for (const field *f = fields; f->key; f++)
        lm_buf_printf(b, "%s%s", f == fields ? "" : ", ", f->key);
}

static void walk_map(ctx *c, yaml_node_t *n, const field *fields, const char *path, lm_loc where)
{
    if (n->type != YAML_MAPPING_NODE) {
        lm_buf b = {0};
        lm_buf_puts(&b, "with keys ");
        keys_of(&b, fields);
        want_mapping(c, n, path, lm_buf_str(&b));
        lm_buf_free(&b);
        return;
    }
    bool seen[32] = {false};
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(c, p->key), *v = node_at(c, p->value);
        if (!key_is_scalar(c, k, path))
            continue;
        const yaml_node_t *first = earlier_key(c, n, p);
        if (first) {
            lm_error(c->d, loc_of(c, k), "%s%sduplicate key '%s' (first given at line %d)", path,
                     *path ? ": " : "", stext(k), (int)first->start_mark.line + 1);
            continue;
        }
        const field *f = fields;
        while (f->key && strcmp(f->key, stext(k)))
            f++;
        if (!f->key) {
            /* A misspelt key is reported once, not again as missing. */
            const field *near = unknown_key(c, k, fields, path);
            if (near)
                seen[near - fields] = true;
            continue;
        }
        seen[f - fields] = true;
        char sub[MAX_PATH];
        join(sub, sizeof sub, path, f->key);
        walk_value(c, v, f, sub, loc_of(c, k));
    }
    /* All missing keys of one mapping in one message. */
    const char *missing[32];
    int nmiss = 0;
    for (const field *f = fields; f->key; f++)
        if (!seen[f - fields] && !f->optional)
            missing[nmiss++] = f->key;
    if (!nmiss)
        return;
    lm_buf b = {0};
    for (int i = 0; i < nmiss; i++)
        lm_buf_printf(&b, "%s'%s'", i == 0 ? "" : i + 1 < nmiss ? ", " : " and ", missing[i]);
    const char *what = *path ? (nmiss > 1 ? "keys" : "key") : (nmiss > 1 ? "sections" : "section");
    if (!*path)
        lm_error(c->d, where, "missing %s %s", what, lm_buf_str(&b));
    else
        lm_error(c->d, where, "%s: missing %s %s", path, what, lm_buf_str(&b));
    lm_buf_free(&b);
}

/* ---- the second pass: values against each other ---------------------- */

static int seq_len(const yaml_node_t *n)
{
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_item(const ctx *c, const yaml_node_t *n, int i)
{
    return node_at(c, n->data.sequence.items.start[i]);
}

/* Core NoC columns or rows: one per core column/row, on the NoC, distinct.
 * False when the list is broken (checks that read it are then skipped). */
static bool check_core_axis(ctx *c, const char *path, const int *coord, int count, const char *count_key,
                            int noc_extent, const char *noc_key, const char *what)
{
    yaml_node_t *n = recorded(c, path);
    LM_ASSERT(n);
    if (seq_len(n) != count) {
        lm_error(c->d, loc_of(c, n), "%s: expected %d NoC %ss (one per core %s, %s), got %d", path,
                 count, what, what, count_key, seq_len(n));
        return false;
    }
    bool ok = true;
    for (int i = 0; i < count; i++) {
        lm_loc l = loc_of(c, seq_item(c, n, i));
        if (coord[i] >= noc_extent) {
            lm_error(c->d, l, "%s[%d]: NoC %s %d is outside the NoC grid (%s is %d)", path, i, what,
                     coord[i], noc_key, noc_extent);
            ok = false;
            continue;
        }
        for (int j = 0; j < i; j++)
            if (coord[j] == coord[i]) {
                lm_error(c->d, l, "%s[%d]: NoC %s %d is already core %s %d's", path, i, what,
                         coord[i], what, j);
                ok = false;
                break;
            }
    }
    return ok;
}

/* DRAM endpoints: on the NoC grid and never on a worker core's router.
 * The second needs the cores' NoC positions: with `cores_known` false (a
 * core axis already reported broken) it is not checked, so that a broken
 * noc_x or noc_y does not come back as false errors about the banks. */
static void check_banks(ctx *c, const char *path, const arch_xy *pos, int n, bool cores_known)
{
    const arch_desc *a = c->a;
    yaml_node_t *list = recorded(c, path);
    for (int i = 0; i < n; i++) {
        lm_loc l = loc_of(c, seq_item(c, list, i));
        if (pos[i].x >= a->noc_w || pos[i].y >= a->noc_h) {
            lm_error(c->d, l, "%s[%d]: NoC position [%d, %d] is outside the %dx%d NoC grid", path, i,
                     pos[i].x, pos[i].y, a->noc_w, a->noc_h);
            continue;
        }
        if (!cores_known)
            continue;
        int cx = -1, cy = -1;
        for (int x = 0; x < a->grid_w; x++)
            if (a->core_noc_x[x] == pos[i].x)
                cx = x;
        for (int y = 0; y < a->grid_h; y++)
            if (a->core_noc_y[y] == pos[i].y)
                cy = y;
        if (cx >= 0 && cy >= 0)
            lm_error(c->d, l,
                     "%s[%d]: NoC position [%d, %d] is core (%d, %d); a DRAM endpoint cannot share a "
                     "worker core's position",
                     path, i, pos[i].x, pos[i].y, cx, cy);
    }
}

/* The second pass reports only errors that stand once the earlier ones are
 * set aside: a check that reads a field already reported broken is skipped
 * (a grid wider than the NoC is not checked against its noc_x list, a
 * broken noc_x list not against the DRAM endpoints). */
/* The SFPU figures a description may leave out (written before the chip's
 * sqrt, rsqrt and sigmoid were described): each accurate function costs as
 * the accurate exp, a routine of similar length; sigmoid as an exp and a
 * reciprocal (docs/arch.md). The block row maximum, left out, costs what
 * the tile-by-tile row reduction costs. */
static void sfpu_defaults(arch_desc *a)
{
    if (a->reduce_block_tile_cycles <= 0)
        a->reduce_block_tile_cycles = a->reduce_tile_cycles;
    if (a->sfpu_sqrt_tile_cycles <= 0)
        a->sfpu_sqrt_tile_cycles = a->sfpu_exp_exact_tile_cycles;
    if (a->sfpu_rsqrt_tile_cycles <= 0)
        a->sfpu_rsqrt_tile_cycles = a->sfpu_exp_exact_tile_cycles;
    if (a->sfpu_sigmoid_tile_cycles <= 0)
        a->sfpu_sigmoid_tile_cycles = a->sfpu_exp_exact_tile_cycles + a->sfpu_recip_tile_cycles;
}

static void cross_check(ctx *c)
{
    arch_desc *a = c->a;
    sfpu_defaults(a);
    bool cols_ok = a->grid_w <= a->noc_w, rows_ok = a->grid_h <= a->noc_h;
    if (!cols_ok)
        lm_error(c->d, rloc(c, "structure.grid.width"),
                 "structure.grid.width: expected at most structure.noc.width (%d), got %d", a->noc_w,
                 a->grid_w);
    if (!rows_ok)
        lm_error(c->d, rloc(c, "structure.grid.height"),
                 "structure.grid.height: expected at most structure.noc.height (%d), got %d",
                 a->noc_h, a->grid_h);
    cols_ok = cols_ok && check_core_axis(c, "structure.grid.noc_x", a->core_noc_x, a->grid_w,
                                         "structure.grid.width", a->noc_w, "structure.noc.width", "column");
    rows_ok = rows_ok && check_core_axis(c, "structure.grid.noc_y", a->core_noc_y, a->grid_h,
                                         "structure.grid.height", a->noc_h, "structure.noc.height", "row");
    if (a->l1_reserved_bytes >= a->l1_bytes)
        lm_error(c->d, rloc(c, "structure.l1.reserved_bytes"),
                 "structure.l1.reserved_bytes: expected less than structure.l1.bytes (%lld), got %lld",
                 (long long)a->l1_bytes, (long long)a->l1_reserved_bytes);
    else
        for (int f = 0; f < ARCH_NFORMATS; f++)
            if (a->tile_bytes[f] > arch_usable_l1(a)) {
                lm_error(c->d, named_loc(c, "structure.tile.bytes", true, f),
                         "structure.tile.bytes.%s: a tile of %lld bytes does not fit in the usable "
                         "L1 of %lld bytes",
                         arch_format_names[f], (long long)a->tile_bytes[f], (long long)arch_usable_l1(a));
                break;
            }
    if (a->dst_tiles_half_32b > a->dst_tiles_half_16b)
        lm_error(c->d, rloc(c, "structure.dst.half_sync_tiles_32b"),
                 "structure.dst.half_sync_tiles_32b: expected at most half_sync_tiles_16b (%d), got "
                 "%d",
                 a->dst_tiles_half_16b, a->dst_tiles_half_32b);
    if (a->dram_alignment & (a->dram_alignment - 1))
        lm_error(c->d, rloc(c, "structure.dram.alignment_bytes"),
                 "structure.dram.alignment_bytes: expected a power of two, got %d", a->dram_alignment);
    if (a->max_packet_bytes < a->link_bytes_per_cycle)
        lm_error(c->d, rloc(c, "structure.noc.max_packet_bytes"),
                 "structure.noc.max_packet_bytes: expected at least one flit "
                 "(structure.noc.link_bytes_per_cycle = %d), got %lld",
                 a->link_bytes_per_cycle, (long long)a->max_packet_bytes);

    a->num_dram_banks = seq_len(recorded(c, "structure.dram.banks"));
    check_banks(c, "structure.dram.banks", a->dram_bank_noc, a->num_dram_banks, cols_ok && rows_ok);
    yaml_node_t *noc1 = recorded(c, "structure.dram.banks_noc1");
    if (noc1) {
        if (seq_len(noc1) != a->num_dram_banks)
            lm_error(c->d, loc_of(c, noc1),
                     "structure.dram.banks_noc1: expected %d NoC positions (one per bank in "
                     "structure.dram.banks), got %d",
                     a->num_dram_banks, seq_len(noc1));
        else
            check_banks(c, "structure.dram.banks_noc1", a->dram_bank_noc1, a->num_dram_banks, cols_ok && rows_ok);
    } else {
        memcpy(a->dram_bank_noc1, a->dram_bank_noc, sizeof a->dram_bank_noc);
    }

    /* A core's NoC interfaces cannot move more than its links carry. */
    double links = (double)a->num_nocs * a->link_bytes_per_cycle;
    if (a->core_read_bpc > links)
        lm_error(c->d, rloc(c, "performance.core.read_bytes_per_cycle"),
                 "performance.core.read_bytes_per_cycle: expected at most %g (structure.noc.count x "
                 "link_bytes_per_cycle), got %g",
                 links, a->core_read_bpc);
    if (a->core_write_bpc > links)
        lm_error(c->d, rloc(c, "performance.core.write_bytes_per_cycle"),
                 "performance.core.write_bytes_per_cycle: expected at most %g (structure.noc.count x "
                 "link_bytes_per_cycle), got %g",
                 links, a->core_write_bpc);
    if (a->mcast_bpc > a->link_bytes_per_cycle)
        lm_error(c->d, rloc(c, "performance.multicast.bytes_per_cycle"),
                 "performance.multicast.bytes_per_cycle: expected at most "
                 "structure.noc.link_bytes_per_cycle (%d), got %g",
                 a->link_bytes_per_cycle, a->mcast_bpc);
    /* No tile matmul beats the FPU's peak; more phases never make it faster. */
    for (int f = 0; f < ARCH_NFIDELITIES; f++) {
        double ideal = 2.0 * a->tile_h * a->tile_w * a->tile_w * (f + 1) / a->fpu_flops_per_cycle;
        if (a->matmul_tile_cycles[f] < ideal * (1 - 1e-9)) {
            lm_error(c->d, named_loc(c, "performance.compute.matmul_tile_cycles", false, f),
                     "performance.compute.matmul_tile_cycles.%s: expected at least %g, the FPU "
                     "peak (2*%d*%d*%d FLOP at structure.fpu.flops_per_cycle %d / %d phase%s), "
                     "got %g",
                     arch_fidelity_names[f], ideal, a->tile_h, a->tile_w, a->tile_w,
                     a->fpu_flops_per_cycle, f + 1, f ? "s" : "", a->matmul_tile_cycles[f]);
            break;
        }
        if (f > 0 && a->matmul_tile_cycles[f] < a->matmul_tile_cycles[f - 1]) {
            lm_error(c->d, named_loc(c, "performance.compute.matmul_tile_cycles", false, f),
                     "performance.compute.matmul_tile_cycles.%s: expected at least the %s figure "
                     "(%g), got %g",
                     arch_fidelity_names[f], arch_fidelity_names[f - 1], a->matmul_tile_cycles[f - 1],
                     a->matmul_tile_cycles[f]);
            break;
        }
    }
    if (a->matmul_rows_granule > a->tile_h)
        lm_error(c->d, rloc(c, "performance.compute.matmul_rows_granule"),
                 "performance.compute.matmul_rows_granule: expected at most structure.tile.height "
                 "(%d), got %g",
                 a->tile_h, a->matmul_rows_granule);
    for (const char *s = a->name; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.')) {
            lm_error(c->d, rloc(c, "name"),
                     "name: expected letters, digits, '_', '-' or '.', got '%s'", a->name);
            break;
        }
}

/* ---- parse ----------------------------------------------------------- */

/* The line and column of a byte offset, lines ending at LF, CRLF or a lone
 * CR (as libyaml and every other reader count them). */
static lm_loc offset_loc(const char *file, const char *text, size_t len, size_t off)
{
    lm_loc l = {file, 1, 1};
    size_t i0 = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; /* a byte order mark is no column */
    for (size_t i = i0; i < off && i < len; i++) {
        if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == len || text[i + 1] != '\n'))) {
            l.line++;
            l.col = 1;
        } else if (text[i] != '\r') {
            l.col++;
        }
    }
    return l;
}

/* YAML 1.1 (libyaml) also ends lines at NEL, LS and PS; no other reader
 * does, so a description using them would be reported at lines that
 * disagree with the quoted text. They have no use here: refuse them. */
static bool unicode_line_breaks(const char *file, const char *text, size_t len, lm_diag *d)
{
    for (size_t i = 0; i + 1 < len; i++) {
        const unsigned char *u = (const unsigned char *)text + i;
        const char *name = NULL;
        if (u[0] == 0xc2 && u[1] == 0x85)
            name = "U+0085 (next line)";
        else if (i + 2 < len && u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
            name = u[2] == 0xa8 ? "U+2028 (line separator)" : "U+2029 (paragraph separator)";
        if (name) {
            lm_error(d, offset_loc(file, text, len, i),
                     "the character %s is not allowed in a hardware description; end lines with LF, CRLF or CR",
                     name);
            return true;
        }
    }
    return false;
}

static void syntax_error(const char *file, const char *text, size_t len, yaml_parser_t *p,
                         lm_diag *d)
{
    if (p->error == YAML_MEMORY_ERROR)
        LM_BUG("out of memory while parsing YAML");
    lm_loc l;
    if (p->error == YAML_READER_ERROR)
        l = offset_loc(file, text, len, p->problem_offset);
    else
        l = (lm_loc){file, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1};
    const char *problem = p->problem ? p->problem : "malformed input";
    if (p->context)
        lm_error(d, l, "YAML syntax error: %s (%s that starts at line %d)", problem, p->context,
                 (int)p->context_mark.line + 1);
    else
        lm_error(d, l, "YAML syntax error: %s", problem);
}

arch_desc *arch_parse(const char *file, const char *text, size_t len, lm_diag *d)
{
    /* Quote lines of this text only while it is known to be alive. */
    int nsrcs = d->nsrcs;
    lm_diag_add_source(d, file, text, len);
    ctx c = {.file = file, .d = d, .errors0 = d->nerrors};
    arch_desc *a = lm_xcalloc(1, sizeof *a);
    c.a = a;
    a->file = lm_xstrdup(file);

    if (unicode_line_breaks(file, text, len, d))
        goto fail;
    yaml_parser_t parser;
    yaml_document_t doc;
    if (!yaml_parser_initialize(&parser))
        LM_BUG("cannot initialise the YAML parser");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        syntax_error(file, text, len, &parser, d);
        yaml_parser_delete(&parser);
        goto fail;
    }
    c.doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root) {
        lm_error(d, (lm_loc){file, 1, 1},
                 "empty hardware description: expected a mapping with keys name, description, "
                 "structure, performance");
    } else {
        walk_map(&c, root, top_f, "", loc_of(&c, root));
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            syntax_error(file, text, len, &parser, d);
        } else {
            yaml_node_t *r2 = yaml_document_get_root_node(&next);
            if (r2)
                lm_error(d, loc_of(&c, r2),
                         "a second YAML document; a description is one document");
            yaml_document_delete(&next);
        }
        if (!nerrors(&c))
            cross_check(&c);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (nerrors(&c))
        goto fail;
    d->nsrcs = nsrcs;
    return a;
fail:
    d->nsrcs = nsrcs;
    arch_free(a);
    return NULL;
}

/* ---- the schema's keys, for the documentation ------------------------------ */

static void schema_keys(lm_buf *b, const field *fields, const char *path)
{
    for (const field *f = fields; f->key; f++) {
        char sub[MAX_PATH];
        join(sub, sizeof sub, path, f->key);
        lm_buf_printf(b, "%s%s\n", sub, f->kind == F_MAP ? "." : "");
        if (f->kind == F_MAP)
            schema_keys(b, f->sub, sub);
    }
}

void arch_schema_keys(lm_buf *b) { schema_keys(b, top_f, ""); }
