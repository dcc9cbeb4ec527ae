/* generate.c - the inputs a benchmark generates instead of listing them, so
 * that nothing can be tuned to them (docs/evaluation.md, "Drawn shapes and
 * derived chips"):
 *
 *  - shapes drawn by a seeded generator from an operator's `form` lines:
 *    log-uniform integers (odd sizes unless a form asks for a multiple),
 *    picks from a list, and expressions of the values drawn before (N=M for
 *    a square GEMM, H=HKV*_G for grouped heads); the seed and the
 *    operator's name start the stream, in integer arithmetic only, so the
 *    same seed gives the same shapes on every machine;
 *  - hardware descriptions derived at run time from a shipped one (`derive`
 *    lines): its YAML with the compute engine, the DRAM banks' bandwidth or
 *    the grid changed, parsed back by the loader so that every check of a
 *    description applies to the result. Nothing derived is ever a file of
 *    the repository.
 */
#include "bench/bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- numbers ------------------------------------------------------------ */

/* log2(x) for x >= 1 in fixed point with 32 fractional bits: the integer
 * part from the highest bit, the fraction bit by bit by squaring the
 * mantissa (kept in [1, 2) with 31 fractional bits). */
static uint64_t log2_q32(uint64_t x)
{
    int e = 0;
    while (e < 63 && (x >> (e + 1)))
        e++;
    uint64_t m = e <= 31 ? x << (31 - e) : x >> (e - 31);
    uint64_t r = (uint64_t)e << 32;
    for (int i = 31; i >= 0; i--) {
        m = (m * m) >> 31;
        if (m >= (UINT64_C(1) << 32)) {
            m >>= 1;
            r |= UINT64_C(1) << i;
        }
    }
    return r;
}

int64_t bench_draw_log(uint64_t *rng, int64_t lo, int64_t hi)
{
    /* t uniform over [log2 lo, log2 (hi + 1)); the value is floor(2^t): the
       largest x in [lo, hi] with log2 x <= t */
    uint64_t a = log2_q32((uint64_t)lo), b = log2_q32((uint64_t)hi + 1);
    uint64_t u = bench_rng_next(rng) >> 40; /* 24 bits: (b - a) * u stays below 2^62 */
    uint64_t t = a + (((b - a) * u) >> 24);
    int64_t l = lo, h = hi;
    while (l < h) {
        int64_t mid = l + (h - l + 1) / 2;
        if (log2_q32((uint64_t)mid) <= t)
            l = mid;
        else
            h = mid - 1;
    }
    return l;
}

/* ---- drawing shapes ------------------------------------------------------ */

/* One value of a form's item. False with *why when it cannot be drawn. */
static bool draw_item(const bench_gen_item *it, uint64_t *rng, sym_ctx *sc, const sym_env *env, int64_t *out,
                      const char **why, lm_arena *ar)
{
    switch (it->kind) {
    case BENCH_GEN_LOG: {
        int64_t v = bench_draw_log(rng, it->lo, it->hi);
        if (it->align > 1) {
            int64_t top = it->hi / it->align * it->align;
            v = LM_MAX(it->align, (v + it->align / 2) / it->align * it->align);
            if (top >= it->align)
                v = LM_MIN(v, top);
        }
        *out = v;
        return true;
    }
    case BENCH_GEN_PICK:
        *out = it->vals[bench_rng_below(rng, (uint64_t)it->nvals)];
        return true;
    case BENCH_GEN_EXPR: {
        const sym_expr *e = sym_parse(sc, it->expr, NULL);
        if (!e || sym_eval(e, env, out) != SYM_OK) {
            *why = lm_arena_printf(ar, "%s=%s cannot be evaluated from the values drawn before it", it->name,
                                   it->expr);
            return false;
        }
        return true;
    }
    }
    return false;
}

/* A shape by form f: every item in order, then the operator's limit. *kept
 * is false when the draw must be repeated (outside the limit). */
static bool draw_shape(const bench_suite_op *op, const bench_gen_form *f, uint64_t *rng, sym_ctx *sc,
                       bench_suite_shape *sh, bool *kept, const char **why, lm_arena *ar)
{
    sym_env env = {0};
    LM_VEC(fe_kv) sizes = {0};
    LM_VEC(fe_kv) consts = {0};
    bool ok = true;
    *kept = true;
    for (int i = 0; i < f->nitems && ok; i++) {
        const bench_gen_item *it = &f->items[i];
        int64_t v = 0;
        ok = draw_item(it, rng, sc, &env, &v, why, ar);
        if (ok && !it->is_const && it->name[0] != '_' && v < 1) {
            *why = lm_arena_printf(ar, "size %s was drawn as %lld; sizes are at least 1", it->name, (long long)v);
            ok = false;
        }
        if (!ok)
            break;
        sym_env_set(&env, sym_var(sc, it->name), v);
        if (it->name[0] == '_')
            continue; /* a helper: drawn, not passed */
        if (it->is_const)
            LM_PUSH(&consts, ((fe_kv){it->name, v}));
        else
            LM_PUSH(&sizes, ((fe_kv){it->name, v}));
    }
    if (ok && op->limit) {
        int64_t v;
        const sym_expr *e = sym_parse(sc, op->limit, NULL);
        if (!e || sym_eval(e, &env, &v) != SYM_OK) {
            *why = lm_arena_printf(ar, "the limit '%s' cannot be evaluated for a shape of form '%s'", op->limit,
                                   f->name);
            ok = false;
        } else {
            *kept = v <= op->limit_max;
        }
    }
    if (ok && *kept) {
        lm_buf label = {0};
        for (size_t i = 0; i < sizes.len; i++)
            lm_buf_printf(&label, "%s%s=%lld", i ? " " : "", sizes.items[i].name, (long long)sizes.items[i].value);
        for (size_t i = 0; i < consts.len; i++)
            lm_buf_printf(&label, " %s=%lld", consts.items[i].name, (long long)consts.items[i].value);
        *sh = (bench_suite_shape){.label = lm_arena_strdup(ar, lm_buf_str(&label)), .loc = f->loc};
        sh->nsizes = (int)sizes.len;
        sh->sizes = LM_NEWN(ar, fe_kv, sizes.len ? sizes.len : 1);
        if (sizes.len)
            memcpy(sh->sizes, sizes.items, sizeof *sh->sizes * sizes.len);
        sh->nconsts = (int)consts.len;
        sh->consts = LM_NEWN(ar, fe_kv, consts.len ? consts.len : 1);
        if (consts.len)
            memcpy(sh->consts, consts.items, sizeof *sh->consts * consts.len);
        lm_buf_free(&label);
    }
    LM_VEC_FREE(&sizes);
    LM_VEC_FREE(&consts);
    sym_env_free(&env);
    return ok;
}

enum { DRAW_ATTEMPTS = 1000 }; /* draws per shape before the limit is deemed out of reach */

/* Operator op's n drawn shapes, after its listed ones. */
static bool draw_op(bench_suite_op *op, uint64_t seed, int64_t n, lm_arena *ar, lm_diag *d)
{
    uint64_t rng = lm_hash_bytes(op->name, strlen(op->name), lm_hash_mix(seed, 0x64726177u));
    int listed = op->nshapes;
    bench_suite_shape *all = LM_NEWN(ar, bench_suite_shape, (size_t)listed + (size_t)n + 1);
    if (listed)
        memcpy(all, op->shapes, sizeof *all * (size_t)listed);
    sym_ctx *sc = sym_ctx_new();
    bool ok = true;
    int total = listed;
    for (int64_t i = 0; i < n && ok; i++) {
        const bench_gen_form *f = &op->forms[i % op->nforms];
        bool done = false;
        for (int at = 0; at < DRAW_ATTEMPTS && ok && !done; at++) {
            bool kept;
            const char *why = NULL;
            bench_suite_shape sh;
            ok = draw_shape(op, f, &rng, sc, &sh, &kept, &why, ar);
            if (!ok) {
                lm_error(d, f->loc, "operator '%s', form '%s': %s", op->name, f->name, why);
                break;
            }
            if (!kept)
                continue;
            bool seen = false;
            for (int j = 0; j < total && !seen; j++)
                seen = !strcmp(all[j].label, sh.label);
            if (seen)
                continue;
            all[total++] = sh;
            done = true;
        }
        if (ok && !done && op->limit)
            lm_error(d, f->loc, "operator '%s', form '%s': no new shape within the limit '%s <= %lld' in %d draws",
                     op->name, f->name, op->limit, (long long)op->limit_max, DRAW_ATTEMPTS);
        else if (ok && !done)
            lm_error(d, f->loc, "operator '%s', form '%s': no new shape in %d draws (the form may have fewer shapes "
                                "than asked for)",
                     op->name, f->name, DRAW_ATTEMPTS);
        ok = ok && done;
    }
    sym_ctx_free(sc);
    op->shapes = all;
    op->nshapes = total;
    return ok;
}

bool bench_suite_draw(bench_suite *s, uint64_t seed, int64_t n, lm_arena *ar, lm_diag *d)
{
    for (int i = 0; i < s->nops; i++) {
        bench_suite_op *op = &s->ops[i];
        int64_t k = n >= 0 ? n : op->draw;
        if (op->nforms && k > 0 && !draw_op(op, seed, k, ar, d))
            return false;
    }
    return true;
}

/* ---- derived descriptions ------------------------------------------------- */

/* The node at a dotted path below the root mapping, and the mapping pair
 * that holds it (NULL: none). */
static yaml_node_pair_t *ypair(yaml_document_t *doc, const char *path)
{
    yaml_node_t *m = yaml_document_get_root_node(doc);
    yaml_node_pair_t *found = NULL;
    for (const char *s = path; *s && m;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        found = NULL;
        if (m->type != YAML_MAPPING_NODE)
            return NULL;
        for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
            yaml_node_t *k = yaml_document_get_node(doc, p->key);
            if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == n &&
                !memcmp(k->data.scalar.value, s, n))
                found = p;
        }
        if (!found)
            return NULL;
        m = yaml_document_get_node(doc, found->value);
        s = dot ? dot + 1 : s + n;
    }
    return found;
}

static yaml_node_t *ynode(yaml_document_t *doc, const char *path)
{
    yaml_node_pair_t *p = ypair(doc, path);
    return p ? yaml_document_get_node(doc, p->value) : NULL;
}

/* A number of the description (digits may be separated by '_'). */
static bool ynum(const yaml_node_t *n, double *out)
{
    if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0 || n->data.scalar.length > 63)
        return false;
    char buf[64];
    size_t k = 0;
    for (size_t i = 0; i < n->data.scalar.length; i++)
        if (n->data.scalar.value[i] != '_')
            buf[k++] = (char)n->data.scalar.value[i];
    buf[k] = 0;
    char *end;
    *out = strtod(buf, &end);
    return *end == 0;
}

/* Replace the value at path by a new scalar (a new node: the old one stays
 * in the document, unreferenced). */
static bool yset(yaml_document_t *doc, const char *path, const char *text)
{
    int id = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)text, (int)strlen(text), YAML_PLAIN_SCALAR_STYLE);
    yaml_node_pair_t *p = ypair(doc, path);
    if (!id || !p)
        return false;
    p->value = id;
    return true;
}

/* Replace the value at path by a flow sequence of integers. */
static bool yset_list(yaml_document_t *doc, const char *path, const int64_t *v, int n)
{
    int seq = yaml_document_add_sequence(doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    for (int i = 0; i < n && seq; i++) {
        char t[32];
        snprintf(t, sizeof t, "%lld", (long long)v[i]);
        int id = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)t, (int)strlen(t), YAML_PLAIN_SCALAR_STYLE);
        if (!id || !yaml_document_append_sequence_item(doc, seq, id))
            return false;
    }
    yaml_node_pair_t *p = ypair(doc, path);
    if (!seq || !p)
        return false;
    p->value = seq;
    return true;
}

/* Multiply the number at path by f (an absent optional key is left out;
 * `integer` keys are rounded). */
static bool yscale(yaml_document_t *doc, const char *path, double f, bool integer, bool optional, const char **why,
                   lm_arena *ar)
{
    yaml_node_t *n = ynode(doc, path);
    double v;
    if (!n && optional)
        return true;
    if (!ynum(n, &v)) {
        *why = lm_arena_printf(ar, "%s is not a number", path);
        return false;
    }
    char t[64];
    if (integer)
        snprintf(t, sizeof t, "%lld", (long long)llround(v * f));
    else
        snprintf(t, sizeof t, "%.9g", v * f);
    return yset(doc, path, t);
}

/* The compute engine f times faster: the FPU's peak, every per-tile cost
 * and the unpacker's and packer's rates. */
static bool derive_compute(yaml_document_t *doc, double f, const char **why, lm_arena *ar)
{
    static const char *const per_tile[] = {
        "performance.compute.matmul_tile_cycles.LoFi",  "performance.compute.matmul_tile_cycles.HiFi2",
        "performance.compute.matmul_tile_cycles.HiFi3", "performance.compute.matmul_tile_cycles.HiFi4",
        "performance.compute.eltwise_tile_cycles",      "performance.compute.bcast_tile_cycles",
        "performance.compute.reduce_tile_cycles",       "performance.compute.sfpu_exp_tile_cycles",
        "performance.compute.sfpu_exp_exact_tile_cycles", "performance.compute.sfpu_recip_tile_cycles",
        "performance.compute.sfpu_sqrt_tile_cycles",    "performance.compute.sfpu_rsqrt_tile_cycles",
        "performance.compute.sfpu_sigmoid_tile_cycles", "performance.compute.reduce_block_tile_cycles",
    };
    bool ok = yscale(doc, "structure.fpu.flops_per_cycle", f, true, false, why, ar) &&
              yscale(doc, "performance.compute.unpack_bytes_per_cycle", f, false, false, why, ar) &&
              yscale(doc, "performance.compute.pack_bytes_per_cycle", f, false, false, why, ar);
    for (size_t i = 0; i < LM_COUNT(per_tile) && ok; i++) /* from the tenth on: optional keys */
        ok = yscale(doc, per_tile[i], 1.0 / f, false, i >= 10, why, ar);
    return ok;
}

/* One dimension of the grid resized to n cores: the first n NoC positions
 * of the list, or the list followed by new positions past the NoC's edge
 * (the NoC grows with them, so no new core sits on a DRAM endpoint). */
static bool derive_grid_dim(yaml_document_t *doc, const char *dim, const char *list, const char *noc, int n,
                            const char **why, lm_arena *ar)
{
    yaml_node_t *l = ynode(doc, list);
    double nocw;
    if (!l || l->type != YAML_SEQUENCE_NODE || !ynum(ynode(doc, noc), &nocw)) {
        *why = lm_arena_printf(ar, "%s or %s is missing", list, noc);
        return false;
    }
    int64_t pos[ARCH_MAX_GRID];
    int have = 0;
    for (yaml_node_item_t *i = l->data.sequence.items.start; i < l->data.sequence.items.top && have < n; i++) {
        double v;
        if (!ynum(yaml_document_get_node(doc, *i), &v)) {
            *why = lm_arena_printf(ar, "%s holds something other than numbers", list);
            return false;
        }
        pos[have++] = (int64_t)v;
    }
    int64_t extra = n - have;
    for (int64_t k = 0; k < extra; k++)
        pos[have++] = (int64_t)nocw + k;
    char t[32], w[32];
    snprintf(t, sizeof t, "%d", n);
    snprintf(w, sizeof w, "%lld", (long long)nocw + LM_MAX(extra, 0));
    return yset(doc, dim, t) && yset_list(doc, list, pos, n) && yset(doc, noc, w);
}

static int emit_to_buf(void *data, unsigned char *bytes, size_t size)
{
    lm_buf_printf(data, "%.*s", (int)size, (const char *)bytes);
    return 1;
}

/* The derived description's name, and a description that says where it
 * comes from (the key is optional: added when missing). */
static bool derive_name(yaml_document_t *doc, const bench_derive *dv)
{
    lm_buf desc = {0};
    lm_buf_printf(&desc, "derived by loomc bench from %s:", dv->from);
    if (dv->compute != 1)
        lm_buf_printf(&desc, " compute x%g", dv->compute);
    if (dv->dram != 1)
        lm_buf_printf(&desc, " DRAM bandwidth x%g", dv->dram);
    if (dv->l1 > 0 && dv->l1 != 1)
        lm_buf_printf(&desc, " L1 x%g", dv->l1);
    if (dv->grid_w)
        lm_buf_printf(&desc, " grid %dx%d", dv->grid_w, dv->grid_h);
    bool ok = yset(doc, "name", dv->name);
    if (ok && !ypair(doc, "description")) {
        int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)"description", 11, YAML_PLAIN_SCALAR_STYLE);
        int v = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)"", 0, YAML_PLAIN_SCALAR_STYLE);
        ok = k && v && yaml_document_append_mapping_pair(doc, 1, k, v); /* the root is node 1 */
    }
    ok = ok && yset(doc, "description", lm_buf_str(&desc));
    lm_buf_free(&desc);
    return ok;
}

/* Every change dv asks for. */
static bool derive_all(yaml_document_t *doc, const bench_derive *dv, const char **why, lm_arena *ar)
{
    if (!derive_name(doc, dv)) {
        *why = "the description has no name";
        return false;
    }
    bool ok = true;
    if (dv->compute != 1)
        ok = derive_compute(doc, dv->compute, why, ar);
    if (ok && dv->dram != 1)
        ok = yscale(doc, "performance.dram.bank_read_bytes_per_cycle", dv->dram, false, false, why, ar) &&
             yscale(doc, "performance.dram.bank_write_bytes_per_cycle", dv->dram, false, false, why, ar);
    if (ok && dv->l1 > 0 && dv->l1 != 1) /* a size the loader checks against what is reserved */
        ok = yscale(doc, "structure.l1.bytes", dv->l1, true, false, why, ar);
    if (ok && dv->grid_w)
        ok = derive_grid_dim(doc, "structure.grid.width", "structure.grid.noc_x", "structure.noc.width", dv->grid_w,
                             why, ar) &&
             derive_grid_dim(doc, "structure.grid.height", "structure.grid.noc_y", "structure.noc.height",
                             dv->grid_h, why, ar);
    return ok;
}

bool bench_derive_yaml(const bench_derive *dv, const char *text, size_t len, lm_buf *out, const char **why,
                       lm_arena *ar)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    bool ok = yaml_parser_load(&parser, &doc);
    yaml_parser_delete(&parser);
    if (!ok || !yaml_document_get_root_node(&doc)) {
        *why = "the description's YAML cannot be read";
        if (ok)
            yaml_document_delete(&doc);
        return false;
    }
    if (!derive_all(&doc, dv, why, ar)) {
        yaml_document_delete(&doc);
        return false;
    }
    yaml_emitter_t em;
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output(&em, emit_to_buf, out);
    yaml_emitter_set_width(&em, -1);
    ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, &doc) && yaml_emitter_close(&em); /* dump deletes doc */
    yaml_emitter_delete(&em);
    if (!ok)
        *why = "the derived YAML cannot be written";
    return ok;
}

arch_desc *bench_derive_load(const bench_derive *dv, lm_diag *d)
{
    arch_desc *base = arch_load(dv->from, d);
    if (!base)
        return NULL;
    char why[512];
    size_t len = 0;
    char *text = lm_read_file(base->file, &len, why, sizeof why);
    arch_free(base);
    if (!text) {
        lm_error(d, dv->loc, "derived chip '%s': %s", dv->name, why);
        return NULL;
    }
    lm_arena ar;
    lm_arena_init(&ar);
    lm_buf y = {0};
    const char *bad = NULL;
    arch_desc *a = NULL;
    if (!bench_derive_yaml(dv, text, len, &y, &bad, &ar)) {
        lm_error(d, dv->loc, "derived chip '%s': %s", dv->name, bad);
    } else {
        const char *file = lm_arena_printf(&ar, "%s (derived from %s)", dv->name, dv->from);
        a = arch_parse(file, y.s, y.len, d);
        if (!a)
            lm_error(d, dv->loc, "derived chip '%s' is not a valid description (the errors above)", dv->name);
    }
    lm_buf_free(&y);
    lm_arena_free(&ar);
    free(text);
    return a;
}

/* ---- the chips of a suite ------------------------------------------------ */

int bench_suite_chips(const bench_suite *s, const char *const *archs, int n, const char ***out, lm_arena *ar)
{
    LM_VEC(const char *) v = {0};
    if (n > 0) {
        for (int i = 0; i < n; i++)
            LM_PUSH(&v, archs[i]);
    } else {
        for (int i = 0; i < s->narchs; i++) {
            if (strcmp(s->archs[i], "all")) {
                LM_PUSH(&v, s->archs[i]);
                continue;
            }
            lm_buf names = {0};
            arch_list(&names);
            for (char *line = names.s; line && *line;) {
                char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                if (len)
                    LM_PUSH(&v, lm_arena_strndup(ar, line, len));
                line = nl ? nl + 1 : NULL;
            }
            lm_buf_free(&names);
        }
        if (!s->narchs)
            LM_PUSH(&v, "wormhole_n150"); /* no arch line: the default chip */
        for (int i = 0; i < s->nderives; i++)
            LM_PUSH(&v, s->derives[i].name);
    }
    /* each chip once, in order */
    const char **r = LM_NEWN(ar, const char *, v.len ? v.len : 1);
    int k = 0;
    for (size_t i = 0; i < v.len; i++) {
        bool seen = false;
        for (int j = 0; j < k && !seen; j++)
            seen = !strcmp(r[j], v.items[i]);
        if (!seen)
            r[k++] = v.items[i];
    }
    LM_VEC_FREE(&v);
    *out = r;
    return k;
}

arch_desc *bench_chip_load(const bench_suite *s, const char *name, lm_diag *d)
{
    for (int i = 0; i < s->nderives; i++)
        if (!strcmp(s->derives[i].name, name))
            return bench_derive_load(&s->derives[i], d);
    return arch_load(name, d);
}
