/* plan.c - plan files: a chosen schedule written as JSON (`loomc compile
 * -o plan.json`) and read back (`loomc run --schedule plan.json`), so that
 * a decision can be inspected, edited, kept with results and replayed
 * without solving again.
 *
 * Both go through util's JSON (jansson): the reader gets every value with
 * its line and column, so that malformed text and invalid contents are
 * reported as `file:line:col: error: ...` with the offending line quoted.
 * It accepts the output of `loomc compile --json` too: that is a plan with
 * more members, which the reader knows and skips. docs/scheduler.md ("Plan
 * files") describes the format.
 */
#include "sched/sched.h"
#include "util/json.h"

#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * writing
 * ==================================================================== */

static json_t *kv_object(const sched_plan_kv *kv, int n)
{
    json_t *o = lm_json_obj();
    for (int i = 0; i < n; i++)
        lm_json_set(o, kv[i].name, lm_json_int(kv[i].value));
    return o;
}

static json_t *transport_json(const sched_plan_operand *po)
{
    const sched_operand *o = &po->op;
    json_t *t = lm_json_obj();
    lm_json_set(t, "load", lm_json_string(po->load));
    lm_json_set(t, "access", lm_json_int(o->access));
    lm_json_set(t, "transport", lm_json_string(sched_transport_name(o->transport)));
    if (o->transport != SCHED_DRAM && o->transport != SCHED_FUSED)
        lm_json_set(t, "along", lm_json_string(sched_place_name(o->along)));
    if (o->transport == SCHED_MCAST)
        lm_json_set(t, "sender", lm_json_string(o->interior_sender ? "interior" : "edge"));
    if (o->noc != SCHED_NOC_ANY)
        lm_json_set(t, "noc", lm_json_int(o->noc == SCHED_NOC_1 ? 1 : 0));
    return t;
}

static json_t *launch_json(const sched_plan_launch *pl)
{
    json_t *l = lm_json_obj();
    lm_json_set(l, "launch", lm_json_int(pl->launch));
    lm_json_set(l, "kernel", lm_json_string(pl->kernel));
    if (pl->mapping)
        lm_json_set(l, "mapping", lm_json_string(pl->mapping));
    if (pl->fuse != SCHED_FUSE_NONE) {
        lm_json_set(l, "fused", lm_json_string(pl->fuse == SCHED_FUSE_PRODUCER ? "producer" : "consumer"));
        lm_json_set(l, "fused_along", lm_json_string(sched_place_name(pl->fuse_along)));
    }
    json_t *place = lm_json_arr(), *tr = lm_json_arr();
    for (int g = 0; g < pl->grid_rank; g++)
        lm_json_push(place, lm_json_string(sched_place_name(pl->place[g])));
    lm_json_set(l, "placement", place);
    for (int i = 0; i < pl->nops; i++)
        lm_json_push(tr, transport_json(&pl->ops[i]));
    lm_json_set(l, "transports", tr);
    lm_json_set(l, "fidelity", lm_json_string(arch_fidelity_name(pl->fidelity)));
    lm_json_set(l, "fp32_acc", lm_json_bool(pl->fp32_acc));
    lm_json_set(l, "values", kv_object(pl->values, pl->nvalues));
    lm_json_set(l, "predicted_cycles", lm_json_int(pl->predicted_cycles));
    return l;
}

json_t *sched_plan_json(const sched_plan *p)
{
    json_t *d = lm_json_doc("loomc-plan", SCHED_PLAN_VERSION);
    lm_json_set(d, "kernel_file", lm_json_string(p->kernel_file));
    if (p->spec) /* optional on reading, so a plan read without it is written without it */
        lm_json_set(d, "spec", lm_json_string(p->spec));
    lm_json_set(d, "arch", lm_json_string(p->arch));
    lm_json_set(d, "shape", kv_object(p->shape, p->nshape));
    lm_json_set(d, "consts", kv_object(p->consts, p->nconsts));
    lm_json_set(d, "predicted_cycles", lm_json_int(p->predicted_cycles));
    json_t *ls = lm_json_arr();
    for (int l = 0; l < p->nlaunches; l++)
        lm_json_push(ls, launch_json(&p->launches[l]));
    lm_json_set(d, "launches", ls);
    return d;
}

void sched_plan_write(lm_buf *b, const sched_plan *p)
{
    json_t *d = sched_plan_json(p);
    lm_json_write(b, d);
    json_decref(d);
}

static const char *load_name(const sched_kernel *k, int access)
{
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN && k->bufs[i].access == access)
            return k->bufs[i].name;
    return "?";
}

void sched_plan_from(sched_plan *p, const sched_job *job, const sched_result *r, const char *kernel_file,
                     const char *spec, const sched_plan_kv *shape, int nshape, const sched_plan_kv *consts,
                     int nconsts, lm_arena *ar)
{
    memset(p, 0, sizeof *p);
    p->kernel_file = kernel_file;
    p->spec = spec;
    p->arch = job->arch->name;
    p->shape = LM_NEWN(ar, sched_plan_kv, nshape ? nshape : 1);
    if (nshape)
        memcpy(p->shape, shape, sizeof *shape * (size_t)nshape);
    p->nshape = nshape;
    p->consts = LM_NEWN(ar, sched_plan_kv, nconsts ? nconsts : 1);
    if (nconsts)
        memcpy(p->consts, consts, sizeof *consts * (size_t)nconsts);
    p->nconsts = nconsts;
    p->predicted_cycles = r->cycles;
    p->nlaunches = job->nlaunches;
    for (int l = 0; l < job->nlaunches; l++) {
        const sched_schedule *sc = &r->best[l];
        sched_plan_launch *pl = &p->launches[l];
        pl->launch = sc->k->launch;
        pl->kernel = sc->k->name;
        pl->grid_rank = sc->k->f->grid_rank;
        pl->mapping = sc->cand.label;
        memcpy(pl->place, sc->cand.place, sizeof pl->place);
        pl->fuse = sc->cand.fuse;
        pl->fuse_along = sc->cand.fuse_along;
        pl->nops = sc->cand.nops;
        for (int i = 0; i < sc->cand.nops; i++) {
            pl->ops[i].op = sc->cand.ops[i];
            pl->ops[i].load = load_name(sc->k, sc->cand.ops[i].access);
        }
        pl->nvalues = sc->values.n;
        pl->values = LM_NEWN(ar, sched_plan_kv, pl->nvalues ? pl->nvalues : 1);
        for (int i = 0; i < sc->values.n; i++)
            pl->values[i] = (sched_plan_kv){sc->values.b[i].var->name, sc->values.b[i].lo};
        pl->fidelity = sc->fidelity;
        pl->fp32_acc = sc->fp32_acc;
        pl->predicted_cycles = sc->predicted_cycles;
    }
}

/* ======================================================================
 * reading: validating a plan
 * ==================================================================== */

typedef struct pctx {
    const char *file;
    lm_arena *ar;
    lm_diag *d;
    bool failed;
} pctx;

static void perr(pctx *c, lm_loc loc, const char *fmt, ...) LM_PRINTF(3, 4);
static void perr(pctx *c, lm_loc loc, const char *fmt, ...)
{
    if (c->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    lm_verror(c->d, loc, fmt, ap);
    va_end(ap);
    c->failed = true;
}

/* Check that obj has only the known members, and that the required ones are there. */
static bool members(pctx *c, const lm_jval *obj, const char *what, const char *const *required, const char *const *optional)
{
    for (int i = 0; i < obj->n; i++) {
        bool known = false;
        for (const char *const *r = required; *r && !known; r++)
            known = !strcmp(*r, obj->keys[i]);
        for (const char *const *r = optional; r && *r && !known; r++)
            known = !strcmp(*r, obj->keys[i]);
        if (!known) {
            perr(c, obj->key_locs[i], "%s: unknown member \"%s\"", what, obj->keys[i]);
            return false;
        }
    }
    for (const char *const *r = required; *r; r++) {
        bool found = false;
        for (int i = 0; i < obj->n && !found; i++)
            found = !strcmp(*r, obj->keys[i]);
        if (!found) {
            perr(c, obj->loc, "%s: missing member \"%s\"", what, *r);
            return false;
        }
    }
    return true;
}

static const lm_jval *get(const lm_jval *obj, const char *key)
{
    for (int i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}

static bool expect(pctx *c, const lm_jval *v, lm_jkind k, const char *what)
{
    if (v->kind == k && (k != LM_J_NUM || v->is_int))
        return true;
    perr(c, v->loc, "%s: expected %s, got %s", what, k == LM_J_NUM ? "an integer" : lm_json_kind_name(k),
         v->kind == LM_J_NUM && !v->is_int ? "a fraction" : lm_json_kind_name(v->kind));
    return false;
}

static const char *str_of(pctx *c, const lm_jval *obj, const char *key, const char *what)
{
    const lm_jval *v = get(obj, key);
    if (!expect(c, v, LM_J_STR, lm_arena_printf(c->ar, "%s.%s", what, key)))
        return NULL;
    return v->s;
}

static bool int_of(pctx *c, const lm_jval *obj, const char *key, const char *what, int64_t *out)
{
    const lm_jval *v = get(obj, key);
    if (!expect(c, v, LM_J_NUM, lm_arena_printf(c->ar, "%s.%s", what, key)))
        return false;
    *out = v->i;
    return true;
}

static bool kv_of(pctx *c, const lm_jval *v, const char *what, sched_plan_kv **out, int *n)
{
    if (!expect(c, v, LM_J_OBJ, what))
        return false;
    *out = LM_NEWN(c->ar, sched_plan_kv, v->n ? v->n : 1);
    *n = v->n;
    for (int i = 0; i < v->n; i++) {
        if (!*v->keys[i]) { /* a name is a symbol's: never empty */
            perr(c, v->key_locs[i], "%s: a member with an empty name", what);
            return false;
        }
        if (!expect(c, v->items[i], LM_J_NUM, lm_arena_printf(c->ar, "%s.%s", what, v->keys[i])))
            return false;
        (*out)[i] = (sched_plan_kv){v->keys[i], v->items[i]->i};
    }
    return true;
}

static bool place_of(const char *s, sched_place *p)
{
    static const sched_place all[] = {SCHED_ON_X, SCHED_ON_Y, SCHED_ON_XY, SCHED_ON_TIME};
    for (size_t i = 0; i < LM_COUNT(all); i++)
        if (!strcmp(s, sched_place_name(all[i]))) {
            *p = all[i];
            return true;
        }
    return false;
}

static bool read_launch(pctx *c, const lm_jval *v, sched_plan_launch *pl, int index)
{
    const char *what = lm_arena_printf(c->ar, "launches[%d]", index);
    if (!expect(c, v, LM_J_OBJ, what))
        return false;
    static const char *const req[] = {"launch", "kernel", "placement", "transports", "values", NULL};
    static const char *const opt[] = {"fidelity", "fp32_acc", "predicted_cycles", "mapping", "fused", "fused_along",
                                      NULL};
    if (!members(c, v, what, req, opt))
        return false;
    const lm_jval *fu = get(v, "fused"), *fa_ = get(v, "fused_along");
    pl->fuse = SCHED_FUSE_NONE;
    if (fu || fa_) {
        if (!fu || !fa_) {
            perr(c, (fu ? fu : fa_)->loc, "%s: \"fused\" and \"fused_along\" go together", what);
            return false;
        }
        if (!expect(c, fu, LM_J_STR, lm_arena_printf(c->ar, "%s.fused", what)) ||
            !expect(c, fa_, LM_J_STR, lm_arena_printf(c->ar, "%s.fused_along", what)))
            return false;
        if (!strcmp(fu->s, "producer"))
            pl->fuse = SCHED_FUSE_PRODUCER;
        else if (!strcmp(fu->s, "consumer"))
            pl->fuse = SCHED_FUSE_CONSUMER;
        else {
            perr(c, fu->loc, "%s.fused: expected \"producer\" or \"consumer\", got \"%s\"", what, fu->s);
            return false;
        }
        if (!place_of(fa_->s, &pl->fuse_along) || (pl->fuse_along != SCHED_ON_X && pl->fuse_along != SCHED_ON_Y)) {
            perr(c, fa_->loc, "%s.fused_along: expected \"x\" or \"y\", got \"%s\"", what, fa_->s);
            return false;
        }
    }
    int64_t li;
    if (!int_of(c, v, "launch", what, &li))
        return false;
    if (li < 0 || li > 1000) {
        perr(c, get(v, "launch")->loc, "%s.launch: %lld is not a launch index", what, (long long)li);
        return false;
    }
    pl->launch = (int)li;
    if (!(pl->kernel = str_of(c, v, "kernel", what)))
        return false;
    const lm_jval *pa = get(v, "placement");
    if (!expect(c, pa, LM_J_ARR, lm_arena_printf(c->ar, "%s.placement", what)))
        return false;
    if (pa->n < 1 || pa->n > TIR_MAX_GRID) {
        perr(c, pa->loc, "%s.placement: expected 1 to %d program axes, got %d", what, TIR_MAX_GRID, pa->n);
        return false;
    }
    pl->grid_rank = pa->n;
    for (int g = 0; g < TIR_MAX_GRID; g++)
        pl->place[g] = SCHED_ON_TIME;
    for (int g = 0; g < pa->n; g++) {
        const lm_jval *x = pa->items[g];
        if (!expect(c, x, LM_J_STR, lm_arena_printf(c->ar, "%s.placement[%d]", what, g)))
            return false;
        if (!place_of(x->s, &pl->place[g])) {
            perr(c, x->loc, "%s.placement[%d]: expected \"x\", \"y\", \"xy\" or \"time\", got \"%s\"", what, g, x->s);
            return false;
        }
    }
    const lm_jval *tr = get(v, "transports");
    if (!expect(c, tr, LM_J_ARR, lm_arena_printf(c->ar, "%s.transports", what)))
        return false;
    if (tr->n > SCHED_MAX_OPS) {
        perr(c, tr->loc, "%s.transports: more than %d loads", what, SCHED_MAX_OPS);
        return false;
    }
    pl->nops = tr->n;
    for (int i = 0; i < tr->n; i++) {
        const lm_jval *o = tr->items[i];
        const char *w = lm_arena_printf(c->ar, "%s.transports[%d]", what, i);
        if (!expect(c, o, LM_J_OBJ, w))
            return false;
        static const char *const oreq[] = {"load", "access", "transport", NULL};
        static const char *const oopt[] = {"along", "sender", "noc", NULL};
        if (!members(c, o, w, oreq, oopt))
            return false;
        sched_plan_operand *po = &pl->ops[i];
        memset(po, 0, sizeof *po);
        int64_t acc;
        if (!(po->load = str_of(c, o, "load", w)) || !int_of(c, o, "access", w, &acc))
            return false;
        if (acc < 0 || acc > 1000) {
            perr(c, get(o, "access")->loc, "%s.access: %lld is not an access index", w, (long long)acc);
            return false;
        }
        po->op.access = (int)acc;
        const char *t = str_of(c, o, "transport", w);
        if (!t)
            return false;
        if (!strcmp(t, "dram"))
            po->op.transport = SCHED_DRAM;
        else if (!strcmp(t, "mcast"))
            po->op.transport = SCHED_MCAST;
        else if (!strcmp(t, "forward"))
            po->op.transport = SCHED_FORWARD;
        else if (!strcmp(t, "fused") && pl->fuse == SCHED_FUSE_CONSUMER)
            po->op.transport = SCHED_FUSED;
        else {
            perr(c, get(o, "transport")->loc,
                 "%s.transport: expected \"dram\", \"mcast\" or \"forward\"%s, got \"%s\"", w,
                 pl->fuse == SCHED_FUSE_CONSUMER ? " or \"fused\"" : "", t);
            return false;
        }
        po->op.noc = SCHED_NOC_ANY;
        const lm_jval *nv = get(o, "noc");
        if (nv) {
            int64_t noc;
            if (!int_of(c, o, "noc", w, &noc))
                return false;
            if ((noc != 0 && noc != 1) || po->op.transport == SCHED_FUSED) {
                perr(c, nv->loc, "%s.noc: expected 0 or 1%s", w,
                     po->op.transport == SCHED_FUSED ? " (and none for a fused transport)" : "");
                return false;
            }
            po->op.noc = noc ? SCHED_NOC_1 : SCHED_NOC_0;
        }
        po->op.along = SCHED_ON_TIME;
        const lm_jval *al = get(o, "along");
        if (po->op.transport == SCHED_DRAM || po->op.transport == SCHED_FUSED) {
            if (al || get(o, "sender")) {
                perr(c, (al ? al : get(o, "sender"))->loc, "%s: a %s transport has no \"along\" or \"sender\"", w,
                     po->op.transport == SCHED_DRAM ? "DRAM" : "fused");
                return false;
            }
            continue;
        }
        if (!al) {
            perr(c, o->loc, "%s: missing member \"along\" (\"x\", \"y\" or, for mcast, \"xy\")", w);
            return false;
        }
        if (!expect(c, al, LM_J_STR, lm_arena_printf(c->ar, "%s.along", w)))
            return false;
        if (!place_of(al->s, &po->op.along) || po->op.along == SCHED_ON_TIME ||
            (po->op.along == SCHED_ON_XY && po->op.transport != SCHED_MCAST)) {
            perr(c, al->loc, "%s.along: expected \"x\", \"y\"%s, got \"%s\"", w,
                 po->op.transport == SCHED_MCAST ? " or \"xy\"" : "", al->s);
            return false;
        }
        const lm_jval *se = get(o, "sender");
        if (po->op.transport == SCHED_FORWARD) {
            if (se) {
                perr(c, se->loc, "%s: a forward transport has no \"sender\"", w);
                return false;
            }
            continue;
        }
        if (se) {
            if (!expect(c, se, LM_J_STR, lm_arena_printf(c->ar, "%s.sender", w)))
                return false;
            if (strcmp(se->s, "edge") && strcmp(se->s, "interior")) {
                perr(c, se->loc, "%s.sender: expected \"edge\" or \"interior\", got \"%s\"", w, se->s);
                return false;
            }
            po->op.interior_sender = !strcmp(se->s, "interior");
        }
    }
    if (!kv_of(c, get(v, "values"), lm_arena_printf(c->ar, "%s.values", what), &pl->values, &pl->nvalues))
        return false;
    pl->fidelity = ARCH_HIFI2;
    const lm_jval *fi = get(v, "fidelity");
    if (fi) {
        if (!expect(c, fi, LM_J_STR, lm_arena_printf(c->ar, "%s.fidelity", what)))
            return false;
        if (!arch_fidelity_parse(fi->s, &pl->fidelity)) {
            perr(c, fi->loc, "%s.fidelity: expected LoFi, HiFi2, HiFi3 or HiFi4, got \"%s\"", what, fi->s);
            return false;
        }
    }
    const lm_jval *fa = get(v, "fp32_acc");
    if (fa) {
        if (!expect(c, fa, LM_J_BOOL, lm_arena_printf(c->ar, "%s.fp32_acc", what)))
            return false;
        pl->fp32_acc = fa->b;
    }
    pl->predicted_cycles = -1;
    if (get(v, "predicted_cycles") && !int_of(c, v, "predicted_cycles", what, &pl->predicted_cycles))
        return false;
    return true;
}

sched_plan *sched_plan_parse(const char *file, const char *text, size_t len, lm_arena *ar, lm_diag *d)
{
    lm_jval *root = lm_json_read(file, text, len, ar, d);
    if (!root)
        return NULL;
    pctx c = {.file = file, .ar = ar, .d = d};
    if (!expect(&c, root, LM_J_OBJ, "the plan"))
        return NULL;
    static const char *const req[] = {"format", "version", "kernel_file", "arch", "shape", "launches", NULL};
    /* members `loomc compile --json` adds, skipped here */
    static const char *const opt[] = {"spec", "consts", "predicted_cycles", "predicted_us", "tflops", "candidates",
                                      "top", "compile_seconds", NULL};
    if (!members(&c, root, "the plan", req, opt))
        return NULL;
    const char *fmt = str_of(&c, root, "format", "the plan");
    if (!fmt)
        return NULL;
    if (strcmp(fmt, "loomc-plan")) {
        perr(&c, get(root, "format")->loc, "the plan: format is \"%s\", expected \"loomc-plan\"", fmt);
        return NULL;
    }
    int64_t ver;
    if (!int_of(&c, root, "version", "the plan", &ver))
        return NULL;
    if (ver != SCHED_PLAN_VERSION) {
        perr(&c, get(root, "version")->loc, "the plan: version %lld is not supported (this loomc reads version %d)",
             (long long)ver, SCHED_PLAN_VERSION);
        return NULL;
    }
    sched_plan *p = LM_NEW(ar, sched_plan);
    if (!(p->kernel_file = str_of(&c, root, "kernel_file", "the plan")) ||
        !(p->arch = str_of(&c, root, "arch", "the plan")))
        return NULL;
    p->spec = get(root, "spec") ? str_of(&c, root, "spec", "the plan") : NULL;
    if (get(root, "spec") && !p->spec)
        return NULL;
    if (!kv_of(&c, get(root, "shape"), "shape", &p->shape, &p->nshape))
        return NULL;
    if (get(root, "consts") && !kv_of(&c, get(root, "consts"), "consts", &p->consts, &p->nconsts))
        return NULL;
    p->predicted_cycles = -1;
    if (get(root, "predicted_cycles") && !int_of(&c, root, "predicted_cycles", "the plan", &p->predicted_cycles))
        return NULL;
    const lm_jval *ls = get(root, "launches");
    if (!expect(&c, ls, LM_J_ARR, "launches"))
        return NULL;
    if (ls->n < 1 || ls->n > SCHED_MAX_LAUNCHES) {
        perr(&c, ls->loc, "launches: expected 1 to %d launches, got %d", SCHED_MAX_LAUNCHES, ls->n);
        return NULL;
    }
    p->nlaunches = ls->n;
    for (int i = 0; i < ls->n; i++)
        if (!read_launch(&c, ls->items[i], &p->launches[i], i))
            return NULL;
    return p;
}

sched_plan *sched_plan_read(const char *path, lm_arena *ar, lm_diag *d)
{
    char why[512];
    size_t len;
    char *text = lm_read_file(path, &len, why, sizeof why);
    if (!text) {
        lm_error_plain(d, "%s", why);
        return NULL;
    }
    /* the text stays readable for quoted lines in later messages */
    char *kept = lm_arena_strndup(ar, text, len);
    free(text);
    lm_diag_add_source(d, path, kept, len);
    return sched_plan_parse(path, kept, len, ar, d);
}

bool sched_plan_schedule(const sched_plan_launch *pl, const sched_kernel *k, const char *file, sched_schedule *out,
                         sym_ctx *s, lm_arena *ar, lm_diag *d)
{
    lm_loc loc = {file, 0, 0};
    memset(out, 0, sizeof *out);
    if (strcmp(pl->kernel, k->name)) {
        lm_error(d, loc, "launch %d of the plan is kernel '%s', but the kernel file launches '%s' there", pl->launch,
                 pl->kernel, k->name);
        return false;
    }
    if (pl->grid_rank != k->f->grid_rank) {
        lm_error(d, loc, "the plan places %d program axes of '%s', which has %d", pl->grid_rank, k->name,
                 k->f->grid_rank);
        return false;
    }
    sched_candidate c;
    memset(&c, 0, sizeof c);
    memcpy(c.place, pl->place, sizeof c.place);
    c.persistent = true;
    c.fuse = pl->fuse;
    c.fuse_along = pl->fuse_along;
    c.nops = pl->nops;
    for (int i = 0; i < pl->nops; i++) {
        c.ops[i] = pl->ops[i].op;
        if (c.ops[i].transport == SCHED_FUSED && c.ops[i].access >= 0 && c.ops[i].access < 64)
            c.fused_acc |= (uint64_t)1 << c.ops[i].access;
    }
    lm_buf why = {0};
    if (!sched_candidate_check(k, &c, NULL, &why)) {
        lm_error(d, loc, "the plan's mapping of '%s' is not valid: %s", k->name, lm_buf_str(&why));
        lm_buf_free(&why);
        return false;
    }
    lm_buf_free(&why);
    c.label = sched_candidate_label(k, &c, ar);
    out->k = k;
    out->cand = c;
    out->fidelity = pl->fidelity;
    out->fp32_acc = pl->fp32_acc;
    out->predicted_cycles = pl->predicted_cycles;
    out->origin = "plan";
    for (int i = 0; i < pl->nvalues; i++)
        sym_env_set(&out->values, sym_var(s, pl->values[i].name), pl->values[i].value);
    /* every symbol the lowering reads must have a value */
    const char *need[SCHED_MAX_VARS + SCHED_MAX_BUFS + 4];
    int nn = 0;
    for (int i = 0; i < k->nfree; i++)
        need[nn++] = k->frees[i].var->name;
    need[nn++] = "grid.x";
    need[nn++] = "grid.y";
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_IN || k->bufs[i].kind == SCHED_BUF_OUT)
            need[nn++] = k->bufs[i].depth->name;
    need[nn++] = "sub.h";
    need[nn++] = "sub.w";
    for (int i = 0; i < nn; i++) {
        int64_t lo, hi;
        if (!sym_env_get(&out->values, sym_var(s, need[i]), &lo, &hi)) {
            lm_error(d, loc, "the plan gives no value for '%s' in launch %d (%s)", need[i], pl->launch, k->name);
            sym_env_free(&out->values);
            return false;
        }
    }
    return true;
}
