/* origin.c - where a job's schedules come from: loomc's solver, a plan
 * file, TTNN's schedules (default or hand-tuned) or the manual placement,
 * each with the command line's edits (--set, --place, --transport) on top
 * (drv_pick_schedules). The pass order that calls it is drv_job in
 * driver.c. Declared in driver.h.
 */
#include "driver/driver.h"

#include <stdlib.h>
#include <string.h>

bool drv_ttnn_schedule(ttnn_pick *out, drv_result *r, const ttnn_sched_opts *to, const arch_desc *a)
{
    return ttnn_schedule(out, r->sched->job.k, r->nlaunches, &r->sched->bound, a, to, r->sym, &r->arena);
}

/* The origins whose schedules TTNN's selection makes. */
static bool ttnn_origin(drv_origin_kind k)
{
    return k == DRV_ORIGIN_TTNN || k == DRV_ORIGIN_TTNN_TUNED || k == DRV_ORIGIN_TTNN_KERNEL;
}

/* The placement without a solver: axis 0 on rows, axis 1 on columns, the
 * rest in time, everything from DRAM; the grid as large as the chip and
 * the programs allow. */
static void manual_candidate(sched_candidate *c, const sched_kernel *k)
{
    memset(c, 0, sizeof *c);
    for (int g = 0; g < TIR_MAX_GRID; g++)
        c->place[g] = g == 0 ? SCHED_ON_Y : g == 1 ? SCHED_ON_X : SCHED_ON_TIME;
    for (int i = 0; i < k->acc->n && c->nops < SCHED_MAX_OPS; i++)
        if (!k->acc->acc[i].is_store)
            c->ops[c->nops++] = (sched_operand){i, SCHED_DRAM, SCHED_ON_TIME, false, SCHED_NOC_ANY};
    c->persistent = true;
}

static void set_value(sym_env *env, sym_ctx *sc, const char *name, int64_t v) { sym_env_set(env, sym_var(sc, name), v); }

static bool has_value(const sym_env *env, sym_ctx *sc, const char *name)
{
    int64_t lo, hi;
    return sym_env_get(env, sym_var(sc, name), &lo, &hi);
}

/* grid.x / grid.y where the schedule gives none: as many cores as the
 * programs placed there, within the chip. */
static void default_grid(sched_schedule *s, const tir_func *f, const arch_desc *a, sym_ctx *sc)
{
    int64_t ex = 1, ey = 1, exy = 1;
    for (int g = 0; g < f->grid_rank; g++) {
        int64_t e = 1;
        sym_eval(f->grid[g], &s->values, &e);
        if (s->cand.place[g] == SCHED_ON_X)
            ex *= e;
        else if (s->cand.place[g] == SCHED_ON_Y)
            ey *= e;
        else if (s->cand.place[g] == SCHED_ON_XY)
            exy *= e;
    }
    int64_t gx = LM_MIN(ex, a->grid_w), gy = LM_MIN(ey, a->grid_h);
    if (exy > 1) {
        gx = LM_MIN(exy, a->grid_w);
        gy = LM_MIN((exy + gx - 1) / gx, a->grid_h);
    }
    if (!has_value(&s->values, sc, "grid.x"))
        set_value(&s->values, sc, "grid.x", gx);
    if (!has_value(&s->values, sc, "grid.y"))
        set_value(&s->values, sc, "grid.y", gy);
}

/* A schedule's values, copied (each at its low end). */
static void copy_values(sym_env *to, const sym_env *from)
{
    *to = (sym_env){0};
    for (int i = 0; i < from->n; i++)
        sym_env_set(to, from->b[i].var, from->b[i].lo);
}

/* Launch l's schedule from its origin, before the edits. */
static void origin_schedule(drv_result *r, const drv_origin *org, int l, sched_schedule *s)
{
    drv_launch *dl = &r->launches[l];
    sched_kernel *k = dl->summary;
    if (org->kind == DRV_ORIGIN_MANUAL) {
        s->k = k;
        manual_candidate(&s->cand, k);
        for (int i = 0; i < r->spec->env.n; i++)
            sym_env_set(&s->values, r->spec->env.b[i].var, r->spec->env.b[i].lo);
        s->fidelity = k->fidelity;
        s->fp32_acc = k->fp32_acc;
        s->predicted_cycles = -1;
        s->origin = "manual";
    } else if (ttnn_origin(org->kind)) {
        *s = r->sched->ttnn->s[l];
        copy_values(&s->values, &r->sched->ttnn->s[l].values);
        /* the config is TTNN's; the program run is its kernels, not the lowering */
        if (org->kind == DRV_ORIGIN_TTNN_KERNEL)
            s->origin = "ttnn-kernel";
    } else {
        const sched_schedule *best = dl->schedule;
        *s = *best;
        copy_values(&s->values, &best->values);
        if (!s->origin)
            s->origin = org->kind == DRV_ORIGIN_PLAN ? "plan" : "loomc";
    }
}

/* The values of every schedule --set can change, besides free constexprs
 * and depth.TENSOR. */
static const char *const set_fixed[] = {"grid.x", "grid.y", "sub.h", "sub.w"};

/* The value name --set NAME means for launch l: NAME itself, or the rest
 * of `KERNEL.NAME` when KERNEL is a kernel the job launches (then only for
 * that kernel's launches); NULL when the set is for other launches. */
static const char *set_name_for(const drv_result *r, int l, const char *name)
{
    for (int j = 0; j < r->nlaunches; j++) {
        const char *k = r->launches[j].func->name;
        size_t n = strlen(k);
        if (!strncmp(name, k, n) && name[n] == '.')
            return strcmp(r->launches[l].func->name, k) ? NULL : name + n + 1;
    }
    return name;
}

static bool is_free(const drv_result *r, const char *name)
{
    for (int i = 0; i < r->spec->nfrees; i++)
        if (!strcmp(name, r->spec->frees[i].name))
            return true;
    return false;
}

/* Whether launch l's schedule has a value `name` --set can change: a free
 * constexpr, grid.x, grid.y, sub.h, sub.w, or depth.T for a tensor the
 * launch loads or stores. */
static bool settable(const drv_result *r, int l, const char *name)
{
    for (size_t i = 0; i < LM_COUNT(set_fixed); i++)
        if (!strcmp(name, set_fixed[i]))
            return true;
    if (is_free(r, name))
        return true;
    const acc_result *acc = r->launches[l].summary->acc;
    if (strncmp(name, "depth.", 6))
        return false;
    for (int i = 0; i < acc->n; i++)
        if (acc->acc[i].tensor && !strcmp(acc->acc[i].tensor->name, name + 6))
            return true;
    return false;
}

/* Whether --set NAME changes some launch's schedule. A free constexpr is
 * the job's, one value for every launch, so `KERNEL.NAME` of one does not. */
static bool set_known(const drv_result *r, const char *name, bool *kernel_free)
{
    *kernel_free = false;
    for (int l = 0; l < r->nlaunches; l++) {
        const char *v = set_name_for(r, l, name);
        if (v && v != name && is_free(r, v))
            *kernel_free = true;
        else if (v && settable(r, l, v))
            return true;
    }
    return false;
}

/* The closest name --set knows to `name`, or NULL. */
static const char *set_suggestion(drv_result *r, const char *name)
{
    lm_near near;
    lm_near_init(&near, name, (int)strlen(name), LM_NEAR_NAME);
    for (int l = 0; l < r->nlaunches; l++) {
        const char *k = r->launches[l].func->name;
        for (size_t j = 0; j < LM_COUNT(set_fixed); j++) {
            lm_near_offer(&near, set_fixed[j]);
            lm_near_offer(&near, lm_arena_printf(&r->arena, "%s.%s", k, set_fixed[j]));
        }
        const acc_result *acc = r->launches[l].summary->acc;
        for (int j = 0; j < acc->n; j++)
            if (acc->acc[j].tensor) {
                const char *t = acc->acc[j].tensor->name;
                lm_near_offer(&near, lm_arena_printf(&r->arena, "depth.%s", t));
                lm_near_offer(&near, lm_arena_printf(&r->arena, "%s.depth.%s", k, t));
            }
    }
    for (int j = 0; j < r->spec->nfrees; j++)
        lm_near_offer(&near, r->spec->frees[j].name);
    return lm_near_best(&near);
}

/* Every --set names a value of some launch's schedule; else an error that
 * offers the closest name. */
static bool check_sets(drv_result *r, const drv_origin *org, lm_diag *d)
{
    for (int i = 0; i < org->nsets; i++) {
        const char *name = org->sets[i].name;
        bool kernel_free;
        if (set_known(r, name, &kernel_free))
            continue;
        if (kernel_free) {
            lm_error_plain(d, "--set %s: a free constexpr is the job's, one value for every launch: set it without "
                              "the kernel's name", name);
            return false;
        }
        const char *best = set_suggestion(r, name);
        lm_error_plain(d, "--set %s: not a value of the schedule (a free constexpr, grid.x, grid.y, sub.h, sub.w or "
                          "depth.TENSOR, optionally KERNEL. before it for one kernel's launches)%s%s%s",
                       name, best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
        return false;
    }
    return true;
}

/* --set, --fidelity, --place and --transport on top of a schedule. An
 * edited schedule is not the one the model priced: its prediction is
 * dropped (-1, as for the manual schedule) and the model prices the
 * edited one (drv_pick_schedules). */
static void edit_schedule(drv_result *r, const drv_origin *org, const drv_sched_opts *o, int l, sched_schedule *s)
{
    drv_launch *dl = &r->launches[l];
    if (org->nsets || org->nplaces || org->ntransports || (o->have_fidelity && o->fidelity != s->fidelity))
        s->predicted_cycles = -1;
    for (int i = 0; i < org->nsets; i++) {
        const char *name = set_name_for(r, l, org->sets[i].name);
        if (name && settable(r, l, name) && (name == org->sets[i].name || !is_free(r, name)))
            set_value(&s->values, r->sym, name, org->sets[i].value);
    }
    if (o->have_fidelity)
        s->fidelity = o->fidelity;
    for (int i = 0; i < org->nplaces; i++)
        if (org->places[i].axis < dl->func->grid_rank)
            s->cand.place[org->places[i].axis] = org->places[i].place;
    for (int i = 0; i < org->ntransports; i++)
        for (int j = 0; j < s->cand.nops; j++) {
            const acc_access *aa = &dl->summary->acc->acc[s->cand.ops[j].access];
            if (aa->tensor && !strcmp(aa->tensor->name, org->transports[i].tensor)) {
                int acc = s->cand.ops[j].access;
                s->cand.ops[j] = org->transports[i].op;
                s->cand.ops[j].access = acc;
            }
        }
}

bool drv_pick_schedules(drv_result *r, const drv_origin *org, const drv_sched_opts *o, lm_diag *d)
{
    int n = r->nlaunches;
    if (n > SCHED_MAX_LAUNCHES) {
        lm_error_plain(d, "a job of %d launches (at most %d)", n, SCHED_MAX_LAUNCHES);
        return false;
    }
    drv_sched *ds = r->sched;
    bool manual = org->kind == DRV_ORIGIN_MANUAL;
    if (!check_sets(r, org, d))
        return false;
    bool ok = true;
    /* a pick again (another rank, library calls) replaces the last one */
    for (int l = 0; l < ds->nrun; l++)
        sym_env_free(&ds->run[l].values);
    ds->nrun = 0;
    if (ds->ttnn) {
        ttnn_pick_free(ds->ttnn);
        free(ds->ttnn);
        ds->ttnn = NULL;
    }
    /* TTNN's schedule (src/ttnn/ttnn_sched.c) needs every launch's
       summary at once: the decode reduction is a launch of its own. */
    if (ttnn_origin(org->kind)) {
        ttnn_sched_opts to = org->ttnn;
        to.kind = org->kind == DRV_ORIGIN_TTNN_TUNED ? TTNN_SCHED_TUNED : TTNN_SCHED_DEFAULT;
        ds->ttnn = lm_xcalloc(1, sizeof *ds->ttnn);
        ok = drv_ttnn_schedule(ds->ttnn, r, &to, o->arch);
        if (!ok)
            lm_error_plain(d, "--schedule %s: %s", org->name, ds->ttnn->why);
        else if (org->kind == DRV_ORIGIN_TTNN_KERNEL && ds->ttnn->family != TTNN_FAMILY_SDPA_PREFILL &&
                 ds->ttnn->family != TTNN_FAMILY_SDPA_DECODE) {
            lm_error_plain(d, "--schedule ttnn-kernel: TTNN's kernels are written as dataflow programs for SDPA "
                              "prefill and decode; this job is a %s (--schedule ttnn runs TTNN's schedule)",
                           ttnn_family_name(ds->ttnn->family));
            ok = false;
        } else if (org->explain)
            ttnn_pick_explain_print(org->explain, ds->ttnn, ds->job.k);
    } else if (org->explain && !manual && ds->result.ntop > 0) {
        if (org->nsets || org->nplaces || org->ntransports)
            lm_buf_printf(org->explain, "the solver's pick, explained before --set, --place and --transport change "
                                        "it (the run below is of the changed schedule):\n");
        sched_explain(org->explain, &ds->job, &ds->result, r->sym, &r->arena);
    } else if (org->explain && org->kind == DRV_ORIGIN_PLAN) {
        /* the plan holds the values, not the solver's reasons for them */
        lm_buf_printf(org->explain, "the schedule of plan file %s, as written there; `loomc compile --explain` "
                      "gives the solver's reasons for a schedule it chooses\n", org->name);
    }
    for (int l = 0; l < n && ok; l++) {
        sched_schedule *s = &ds->run[l];
        ds->nrun = l + 1;
        origin_schedule(r, org, l, s);
        edit_schedule(r, org, o, l, s);
        if (manual) {
            /* every free constexpr needs a value now */
            for (int i = 0; i < r->spec->nfrees; i++)
                if (!has_value(&s->values, r->sym, r->spec->frees[i].name)) {
                    lm_error_plain(d, "--schedule manual: give free constexpr '%s' a value (--const or --set)",
                                   r->spec->frees[i].name);
                    ok = false;
                }
            if (ok)
                default_grid(s, r->launches[l].func, o->arch, r->sym);
        }
        if (sched_solo_groups(s, r->sym))
            s->predicted_cycles = -1;
        /* an edited or hand-written schedule, priced by the model as it is */
        if (ok && s->predicted_cycles < 0 && org->kind != DRV_ORIGIN_TTNN_KERNEL && l < ds->job.nlaunches)
            s->predicted_cycles = sched_reprice(&ds->job, l, s, r->sym, &r->arena);
        if (ok && org->explain && !ttnn_origin(org->kind) && l < ds->job.nlaunches &&
            (manual || org->nsets || org->nplaces || org->ntransports)) {
            lm_buf_printf(org->explain, "launch %d, %s, as run (%s), as the model prices it:\n", l,
                          ds->job.k[l]->name, manual ? "--schedule manual" : "after --set, --place and --transport");
            sched_explain_schedule(org->explain, &ds->job, l, s, r->sym, &r->arena);
        }
        s->cand.label = org->kind == DRV_ORIGIN_TTNN_KERNEL
                            ? "TTNN's kernels written as one dataflow program (not lowered; its values are TTNN's config)"
                            : sched_candidate_label(r->launches[l].summary, &s->cand, &r->arena);
    }
    return ok;
}
