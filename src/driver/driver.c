/* driver.c - the pass order: drv_job runs a whole job (front end ->
 * summary -> the schedule by origin -> lower -> validate -> simulate ->
 * check), and the steps it calls that belong to no other file: the front
 * end's passes (drv_compile), the summaries (drv_summarize), loomc's own
 * schedule (drv_schedule: the L1 probe, candidates, fused pairs, select)
 * and a plan file's (drv_schedule_plan). Declared in driver.h. */
#include "driver/driver.h"

#include "lower/lower.h"

#include <stdlib.h>
#include <string.h>

/* The kernel's text given in memory, copied as the file would be read:
 * within the same limit of size. */
static char *copy_text(const char *text, const char *name, size_t *len, char *why, size_t whylen)
{
    size_t n = strlen(text);
    if (n > LM_MAX_FILE_BYTES) {
        snprintf(why, whylen, "'%s' is larger than the limit of %u bytes", name, (unsigned)LM_MAX_FILE_BYTES);
        return NULL;
    }
    char *s = lm_xmalloc(n + 1);
    memcpy(s, text, n + 1);
    *len = n;
    return s;
}

/* The DRAM layout of each tensor, from every access of the job. */
static void fold_rows(drv_result *r)
{
    const acc_result *acc[SCHED_MAX_LAUNCHES * 4];
    int na = 0;
    for (int i = 0; i < r->nlaunches && na < (int)LM_COUNT(acc); i++)
        acc[na++] = r->launches[i].access;
    for (int t = 0; t < r->spec->ntensors; t++)
        r->spec->tensors[t]->fold_rows = sched_tensor_folds(r->spec->tensors[t], acc, na, &r->spec->env);
}

/* Per selected launch: Tile IR, then analyses (r->launches anew). */
static bool check_launches(drv_result *r, lm_diag *d)
{
    r->launches = LM_NEWN(&r->arena, drv_launch, r->spec->nlaunches ? r->spec->nlaunches : 1);
    r->nlaunches = 0;
    for (int i = 0; i < r->spec->nlaunches; i++) {
        const fe_launch *l = &r->spec->launches[i];
        if (!l->selected)
            continue;
        drv_launch *dl = &r->launches[r->nlaunches++];
        dl->launch = l;
        dl->func = fe_check(&r->names, r->spec, l, r->sym, &r->arena, d);
        if (!dl->func)
            return false;
        tir_verify_or_bug(dl->func, "checking");
        dl->access = acc_analyze(dl->func, r->sym, &r->arena);
    }
    fold_rows(r);
    return true;
}

/* Give the spec's choices the values of bitmask m; false if one of them
 * cannot take its value. */
static bool pick(drv_result *r, unsigned m)
{
    for (int i = 0; i < r->spec->nchoices; i++)
        if (!fe_spec_pick(r->spec, i, (int)(m >> i & 1), r->sym))
            return false;
    return true;
}

/* "\n  with EVEN_K False: <why>", for the error when no combination works. */
static void why_not(lm_buf *why, const drv_result *r, unsigned m, const char *msg)
{
    lm_buf_puts(why, "\n  with");
    for (int i = 0; i < r->spec->nchoices; i++)
        lm_buf_printf(why, "%s %s %s", i ? "," : "", r->spec->choices[i].name, m >> i & 1 ? "False" : "True");
    lm_buf_printf(why, ": %s", msg);
}

static void none_works(lm_diag *d, lm_buf *why)
{
    lm_error_plain(d, "no combination of the values chosen with the schedule (@triton.heuristics, flags the kernel "
                      "tests) gives one:%s",
                   lm_buf_str(why));
    lm_buf_free(why);
}

/* With choices: the kernels at the first combination of values they check
 * at (loomc ir shows it; drv_schedule tries them all). */
static bool check_some_choice(drv_result *r, lm_diag *d)
{
    lm_buf why = {0};
    for (unsigned m = 0; m < 1u << r->spec->nchoices; m++) {
        if (!pick(r, m))
            continue;
        lm_diag_capture cap;
        lm_diag_capture_begin(&cap);
        cap.keep_prefix = true;
        bool ok = check_launches(r, &cap.d);
        const char *msg = lm_diag_capture_end(&cap, &r->arena);
        if (ok) {
            lm_buf_free(&why);
            return true;
        }
        why_not(&why, r, m, msg);
    }
    none_works(d, &why);
    return false;
}

bool drv_compile(drv_result *r, const drv_opts *o, lm_diag *d)
{
    memset(r, 0, sizeof *r);
    lm_arena_init(&r->arena);
    r->sym = sym_ctx_new();

    char why[512];
    r->src = o->text ? copy_text(o->text, o->path, &r->len, why, sizeof why)
                     : lm_read_file(o->path, &r->len, why, sizeof why);
    if (!r->src) {
        lm_error_plain(d, "%s", why);
        return false;
    }
    lm_diag_add_source(d, o->path, r->src, r->len);

    /* syntax */
    r->mod = fe_parse(o->path, r->src, r->len, &r->arena, d);
    if (!r->mod || d->nerrors)
        return false;

    /* names and the launch spec */
    fe_names_init(&r->names, r->mod, &r->arena);
    r->modules = lm_xcalloc(1, sizeof *r->modules);
    drv_modules_init(r->modules, o, &r->arena, d);
    r->names.loader = &r->modules->loader;
    r->spec = fe_read_launch(&r->names, &o->launch, r->sym, &r->arena, d);
    if (!r->spec)
        return false;

    return r->spec->nchoices ? check_some_choice(r, d) : check_launches(r, d);
}

/* Launch i's summary, in the formats and at the fidelity o asks for. */
static bool summarize(drv_result *r, int i, sched_kernel *k, const drv_sched_opts *o, const sched_free *frees, int nf,
                      lm_diag *d)
{
    drv_launch *dl = &r->launches[i];
    if (!sched_summarize(k, dl->func, dl->access, o->arch, frees, nf, r->sym, &r->arena, d))
        return false;
    k->launch = dl->launch->index;
    if (o->have_format)
        sched_set_formats(k, o->format, o->format, true, o->arch, r->sym);
    if (o->have_fidelity)
        k->fidelity = o->fidelity;
    sched_alloc(k);
    if (o->after_alloc)
        o->after_alloc(k, i, o->arch, r->sym, o->after_alloc_ctx);
    dl->summary = k;
    return true;
}

bool drv_summarize(drv_result *r, const drv_sched_opts *o, lm_diag *d)
{
    if (r->nlaunches > SCHED_MAX_LAUNCHES) {
        lm_error_plain(d, "the launch spec has %d launches; the scheduler handles at most %d", r->nlaunches,
                       SCHED_MAX_LAUNCHES);
        return false;
    }
    drv_sched *ds = r->sched = LM_NEW(&r->arena, drv_sched);
    const fe_spec *spec = r->spec;
    for (int i = 0; i < spec->env.n; i++)
        sym_env_set_range(&ds->bound, spec->env.b[i].var, spec->env.b[i].lo, spec->env.b[i].hi);
    if (spec->nfrees > SCHED_MAX_VARS) {
        lm_error_plain(d, "the launch spec leaves %d constexprs free; the scheduler handles at most %d",
                       spec->nfrees, SCHED_MAX_VARS);
        return false;
    }
    sched_free frees[SCHED_MAX_VARS];
    int nf = 0;
    for (int i = 0; i < spec->nfrees && nf < SCHED_MAX_VARS; i++)
        frees[nf++] = (sched_free){.var = spec->frees[i].var, .pinned = spec->frees[i].bound};

    sched_job *job = &ds->job;
    job->arch = o->arch;
    job->bound = &ds->bound;
    /* per launch: summary -> formats -> L1 allocation */
    for (int i = 0; i < r->nlaunches; i++) {
        sched_kernel *k = &ds->kernels[i];
        if (!summarize(r, i, k, o, frees, nf, d))
            return false;
        job->k[i] = k;
    }
    job->nlaunches = r->nlaunches;
    return true;
}

/* Find the fusable pairs of consecutive launches of a job (each launch in
 * at most one; a passed tensor no other launch touches), probe each pair's
 * L1 with the fused lowering and add their fused candidates. Call after
 * sched_candidates for every launch. */
static void fuse_job(sched_job *job, sym_ctx *s, lm_arena *ar)
{
    job->nfusions = 0;
    for (int l = 0; l + 1 < job->nlaunches; l++) {
        sched_fusion f;
        lm_buf why = {0};
        bool ok = sched_fusion_find(&f, job->k[l], job->k[l + 1], s, job->bound, &why);
        lm_buf_free(&why);
        /* a passed tensor must not be touched by any other launch */
        for (int t = 0; ok && t < f.nt; t++)
            for (int m = 0; ok && m < job->nlaunches; m++)
                for (int i = 0; ok && m != l && m != l + 1 && i < job->k[m]->acc->n; i++)
                    ok = job->k[m]->acc->acc[i].tensor != f.t[t].tensor;
        if (!ok)
            continue;
        f.producer = l;
        f.consumer = l + 1;
        /* a reducer core's L1 is the fused lowering's at a probe; a pair
           that does not lower there is not offered fused */
        if (!sched_lower_l1_fused(&f, job->k[l], job->k[l + 1], sched_launch_prefix(job, l, ar),
                                  sched_launch_prefix(job, l + 1, ar), job->arch, job->bound, s, ar, NULL))
            continue;
        int np = job->cands[l].n;
        sched_candidates_fused(&job->cands[l], &job->cands[l + 1], &f, job->k[l], job->k[l + 1], job->arch,
                               job->bound, s, ar);
        if (job->cands[l].n > np)
            job->fusion[job->nfusions++] = f;
        l++; /* each launch in one pair at most */
    }
}

/* loomc's schedule of the kernels as checked. */
static bool schedule_one(drv_result *r, const drv_sched_opts *o, lm_diag *d)
{
    if (!drv_summarize(r, o, d))
        return false;
    drv_sched *ds = r->sched;
    sched_job *job = &ds->job;
    for (int i = 0; i < r->nlaunches; i++) {
        /* the L1 the model counts is the lowering's own (its CBs at a probe) */
        sched_lower_l1(job->k[i], o->arch, &ds->bound, r->sym, &r->arena);
        sched_candidates(&job->cands[i], job->k[i], o->arch, &ds->bound, r->sym, &r->arena);
    }
    /* launch pairs whose second consumes the first's output block by block:
       each pair's L1 at a probe of the fused lowering, and its fused
       candidates */
    if (!o->no_fuse)
        fuse_job(job, r->sym, &r->arena);
    /* the job: a model per candidate, solved, ranked */
    sched_select_opts so = {.top_k = o->top_k > 0 ? o->top_k : 1, .node_limit = o->node_limit,
                            .mzn_solver = o->mzn_solver};
    if (!sched_select(&ds->result, job, &so, r->sym, &r->arena, d))
        return false;
    for (int i = 0; i < r->nlaunches; i++)
        r->launches[i].schedule = &ds->result.best[i];
    return true;
}

static void free_sched(drv_sched *ds)
{
    sched_result_free(&ds->result);
    sym_env_free(&ds->bound);
    for (int l = 0; l < ds->nrun; l++)
        sym_env_free(&ds->run[l].values);
    if (ds->ttnn) {
        ttnn_pick_free(ds->ttnn);
        free(ds->ttnn);
    }
}

/* Heuristic values and flags that wait for the solver (fe_choice): the
 * kernels are checked and scheduled for each combination of values that
 * can be written as constraints, and the one with the fewest predicted
 * cycles is kept. If none has a schedule, the error says why for each. */
static bool schedule_choices(drv_result *r, const drv_sched_opts *o, lm_diag *d)
{
    unsigned n = 1u << r->spec->nchoices, best = n;
    drv_launch *keep = NULL;
    int nkeep = 0;
    drv_sched *kept = NULL;
    lm_buf why = {0};
    for (unsigned m = 0; m < n; m++) {
        if (!pick(r, m))
            continue;
        lm_diag_capture cap;
        lm_diag_capture_begin(&cap);
        cap.keep_prefix = true;
        r->sched = NULL;
        bool ok = check_launches(r, &cap.d) && schedule_one(r, o, &cap.d);
        const char *msg = lm_diag_capture_end(&cap, &r->arena);
        if (!ok)
            why_not(&why, r, m, msg);
        if (ok && (!kept || r->sched->result.cycles < kept->result.cycles)) {
            if (kept)
                free_sched(kept);
            kept = r->sched, keep = r->launches, nkeep = r->nlaunches, best = m;
        } else if (r->sched) {
            free_sched(r->sched);
        }
    }
    if (!kept) {
        r->sched = NULL;
        none_works(d, &why);
        return false;
    }
    lm_buf_free(&why);
    pick(r, best);
    r->sched = kept, r->launches = keep, r->nlaunches = nkeep;
    fold_rows(r);
    return true;
}

bool drv_schedule(drv_result *r, const drv_sched_opts *o, lm_diag *d)
{
    if (r->spec->nchoices)
        return schedule_choices(r, o, d);
    return schedule_one(r, o, d);
}

static const sched_plan_kv *plan_kv(const sched_plan_kv *kv, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(kv[i].name, name))
            return &kv[i];
    return NULL;
}

/* A plan is a decision for one problem: its shape must be the command
 * line's (--shape), or the plan's sizes would silently replace them. Every
 * difference is listed: "M is 512 in the plan, 1024 on the command line". */
static bool plan_shape_matches(const drv_result *r, const sched_plan *p, const char *plan_file, lm_diag *d)
{
    const fe_spec *spec = r->spec;
    lm_buf why = {0};
    for (int i = 0; i < spec->nsizes; i++) {
        const fe_symbol *z = &spec->sizes[i];
        const sched_plan_kv *kv = plan_kv(p->shape, p->nshape, z->name);
        if (!kv)
            lm_buf_printf(&why, "%s%s is not in the plan, %lld on the command line", why.len ? "; " : "", z->name,
                          (long long)z->value);
        else if (kv->value != z->value)
            lm_buf_printf(&why, "%s%s is %lld in the plan, %lld on the command line", why.len ? "; " : "", z->name,
                          (long long)kv->value, (long long)z->value);
    }
    for (int i = 0; i < p->nshape; i++) {
        bool known = false;
        for (int j = 0; j < spec->nsizes && !known; j++)
            known = !strcmp(spec->sizes[j].name, p->shape[i].name);
        if (!known)
            lm_buf_printf(&why, "%s%s is %lld in the plan, not a size of launch spec '%s'", why.len ? "; " : "",
                          p->shape[i].name, (long long)p->shape[i].value, spec->name);
    }
    bool ok = why.len == 0;
    if (!ok)
        lm_error(d, (lm_loc){plan_file, 0, 0}, "the plan is for another shape than --shape: %s",
                 lm_buf_str(&why));
    lm_buf_free(&why);
    return ok;
}

/* A launch's values in the plan name the sizes and the free constexprs
 * too: where the command line fixes one (--shape, --const), the plan's
 * value must be the same, not take its place. */
static bool plan_values_match(const drv_result *r, const sched_plan_launch *pl, const char *plan_file, lm_diag *d)
{
    const fe_spec *spec = r->spec;
    lm_buf why = {0};
    for (int pass = 0; pass < 2; pass++) {
        const fe_symbol *syms = pass ? spec->frees : spec->sizes;
        int n = pass ? spec->nfrees : spec->nsizes;
        for (int i = 0; i < n; i++) {
            const sched_plan_kv *kv = plan_kv(pl->values, pl->nvalues, syms[i].name);
            if (syms[i].bound && kv && kv->value != syms[i].value)
                lm_buf_printf(&why, "%s%s is %lld in the plan, %lld on the command line (%s)", why.len ? "; " : "",
                              syms[i].name, (long long)kv->value, (long long)syms[i].value,
                              pass ? "--const" : "--shape");
        }
    }
    bool ok = why.len == 0;
    if (!ok)
        lm_error(d, (lm_loc){plan_file, 0, 0}, "the values of launch %d (%s) in the plan differ from the command line: %s",
                 pl->launch, pl->kernel, lm_buf_str(&why));
    lm_buf_free(&why);
    return ok;
}

bool drv_schedule_plan(drv_result *r, const sched_plan *p, const char *plan_file, const drv_sched_opts *o,
                       lm_diag *d)
{
    if (!plan_shape_matches(r, p, plan_file, d) || !drv_summarize(r, o, d))
        return false;
    drv_sched *ds = r->sched;
    for (int i = 0; i < r->nlaunches; i++) {
        sched_kernel *k = ds->job.k[i];
        const sched_plan_launch *pl = NULL;
        for (int j = 0; j < p->nlaunches; j++)
            if (p->launches[j].launch == k->launch)
                pl = &p->launches[j];
        if (!pl) {
            lm_error(d, (lm_loc){plan_file, 0, 0}, "the plan has no schedule for launch %d (%s)", k->launch, k->name);
            return false;
        }
        sched_schedule *sc = &ds->result.best[i];
        if (!plan_values_match(r, pl, plan_file, d) || !sched_plan_schedule(pl, k, plan_file, sc, r->sym, &r->arena, d))
            return false;
        /* the plan's fidelity and Dst mode were chosen for the kernel's own
           formats: another format brings its own (as for a solved schedule) */
        if (o->have_format) {
            sc->fidelity = k->fidelity;
            sc->fp32_acc = k->fp32_acc;
        }
        if (o->have_fidelity)
            sc->fidelity = o->fidelity;
        r->launches[i].schedule = sc;
    }
    /* fused pairs: a producer followed by its consumer, as the fusion of the
       two kernels allows */
    for (int i = 0; i < r->nlaunches; i++) {
        sched_schedule *sc = &ds->result.best[i];
        if (sc->cand.fuse == SCHED_FUSE_NONE)
            continue;
        lm_loc loc = {plan_file, 0, 0};
        if (sc->cand.fuse == SCHED_FUSE_CONSUMER) {
            lm_error(d, loc, "the plan fuses launch %d (%s) as a consumer without a producer before it",
                     ds->job.k[i]->launch, ds->job.k[i]->name);
            return false;
        }
        sched_fusion f;
        lm_buf why = {0};
        bool ok = i + 1 < r->nlaunches &&
                  sched_fusion_find(&f, ds->job.k[i], ds->job.k[i + 1], r->sym, &ds->bound, &why);
        if (ok && !sched_fused_pair(&f, &sc->cand, &ds->result.best[i + 1].cand)) {
            lm_buf_puts(&why, "the two launches' placements are not a fused pair");
            ok = false;
        }
        if (!ok) {
            lm_error(d, loc, "the plan fuses launch %d (%s) with the next one, which cannot be: %s",
                     ds->job.k[i]->launch, ds->job.k[i]->name,
                     why.len ? lm_buf_str(&why) : "there is no next launch");
            lm_buf_free(&why);
            return false;
        }
        lm_buf_free(&why);
        for (int t = 0; t < f.nt; t++)
            if (f.t[t].store < 64)
                sc->cand.fused_acc |= (uint64_t)1 << f.t[t].store;
        sc->cand.label = sched_candidate_label(ds->job.k[i], &sc->cand, &r->arena);
        i++;
    }
    ds->result.cycles = p->predicted_cycles;
    return true;
}

/* The whole pass order of a job, in one place: what `loomc run` does, and
 * what the other commands do a part of. */
bool drv_job(drv_result *r, const drv_job_opts *o, drv_run_result *out, lm_diag *d)
{
    memset(out, 0, sizeof *out);
    /* front end: parse -> names -> launch spec -> per launch Tile IR and its analyses */
    if (!drv_compile(r, &o->front, d))
        return false;
    /* per launch: summary -> formats -> L1 allocation; then by origin */
    const drv_origin *org = &o->origin;
    bool ok;
    if (org->kind == DRV_ORIGIN_LOOM) {
        /* the L1 probe -> candidates -> fused pairs -> select */
        ok = drv_schedule(r, &o->sched, d);
    } else if (org->kind == DRV_ORIGIN_PLAN) {
        /* a plan file written by loomc compile -o (or by hand) */
        sched_plan *plan = sched_plan_read(org->name, &r->arena, d);
        ok = plan && drv_schedule_plan(r, plan, org->name, &o->sched, d);
    } else {
        /* TTNN's and the manual schedule start from the summaries */
        ok = drv_summarize(r, &o->sched, d);
    }
    /* the schedules to run: the origin's, with the edits on top */
    if (!ok || !drv_pick_schedules(r, org, &o->sched, d))
        return false;
    return drv_finish(r, o, out, d);
}

int drv_picked(const drv_result *r, const sched_kernel **kp, const sched_schedule **sp)
{
    for (int l = 0; l < r->sched->nrun; l++)
        kp[l] = r->launches[l].summary, sp[l] = &r->sched->run[l];
    return r->sched->nrun;
}

bool drv_finish(drv_result *r, const drv_job_opts *o, drv_run_result *out, lm_diag *d)
{
    memset(out, 0, sizeof *out);
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    drv_picked(r, kp, sp);
    bool kernel = o->origin.kind == DRV_ORIGIN_TTNN_KERNEL;
    /* lower -> validate -> the TT-Metalium program for a card */
    if (o->emit && kernel) {
        lm_error_plain(d, "--schedule ttnn-kernel: TTNN's own kernels are TTNN's to run on a card; loomc emits the "
                          "programs it lowers (--schedule ttnn emits TTNN's schedule lowered by loomc)");
        return false;
    }
    if (o->emit)
        return drv_emit(o->emit, kp, sp, r->sched->nrun, o->sched.arch, r->sym, d);
    /* lower (or TTNN's kernel program) -> validate -> simulate -> check */
    drv_run_opts ro = o->run;
    if (kernel)
        ro.kernel = r->sched->ttnn;
    return drv_simulate(out, kp, sp, r->sched->nrun, (const tir_tensor *const *)r->spec->tensors,
                        r->spec->ntensors, &ro, r->sym, d);
}

void drv_choose(drv_result *r, int rank)
{
    drv_sched *ds = r->sched;
    LM_ASSERT(rank >= 0 && rank < ds->result.ntop);
    sched_choice_schedules(&ds->job, &ds->result.top[rank], ds->result.best, r->sym);
    ds->result.cycles = ds->result.top[rank].cycles;
    for (int i = 0; i < r->nlaunches; i++)
        r->launches[i].schedule = &ds->result.best[i];
}

void drv_free(drv_result *r)
{
    if (r->sched)
        free_sched(r->sched);
    fe_spec_free(r->spec);
    if (r->modules) {
        drv_modules_free(r->modules);
        free(r->modules);
    }
    lm_arena_free(&r->arena);
    if (r->sym)
        sym_ctx_free(r->sym);
    free(r->src);
    memset(r, 0, sizeof *r);
}
