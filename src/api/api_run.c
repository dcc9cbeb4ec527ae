/* api_run.c - the work of a context (include/loomc.h): compile (the
 * driver's front end and loomc's schedule, the top schedules copied out as
 * data), and lower, simulate or emit one of them through the driver's steps
 * (drv_choose, drv_pick_schedules, then drv_lower_job or drv_finish), so
 * that the pass order stays the driver's. */
#include "api/api_int.h"

#include "df/df.h"

#include <stdlib.h>
#include <string.h>

/* ---- compile ------------------------------------------------------------- */

static int need_inputs(loomc_ctx *c)
{
    if (!c->kernel_name)
        lm_error_plain(&c->d, "no kernel: load one first (loomc_load_kernel_file or loomc_load_kernel_string)");
    else if (!c->arch)
        lm_error_plain(&c->d, "no hardware description: set one first (loomc_set_arch or loomc_set_arch_string)");
    return c->kernel_name && c->arch ? LOOMC_OK : LOOMC_EUSER;
}

static drv_sched_opts sched_opts(const loomc_ctx *c, int top_k)
{
    return (drv_sched_opts){.arch = c->arch, .top_k = top_k, .have_format = c->have_format, .format = c->format,
                            .have_fidelity = c->have_fidelity, .fidelity = c->fidelity};
}

/* One launch of solution t, copied into the context's arena. */
static void copy_launch(loomc_ctx *c, const sched_schedule *s, loomc_launch *out)
{
    out->kernel = lm_arena_strdup(&c->job_ar, s->k->name);
    out->mapping = lm_arena_strdup(&c->job_ar, s->cand.label ? s->cand.label : "");
    loomc_value *v = LM_NEWN(&c->job_ar, loomc_value, s->values.n + 1);
    for (int i = 0; i < s->values.n; i++) {
        lm_buf name = {0};
        sym_print(&name, s->values.b[i].var);
        v[i] = (loomc_value){lm_arena_strdup(&c->job_ar, lm_buf_str(&name)), s->values.b[i].lo};
        lm_buf_free(&name);
    }
    out->values = v;
    out->nvalues = s->values.n;
    out->predicted_cycles = s->predicted_cycles;
}

/* Every solution sched_select kept, as data: its launches and why. */
static void copy_schedules(loomc_ctx *c)
{
    drv_result *r = &c->r;
    const drv_sched *ds = r->sched;
    const sched_result *res = &ds->result;
    c->scheds = LM_NEWN(&c->job_ar, loomc_schedule, res->ntop + 1);
    for (int t = 0; t < res->ntop; t++) {
        loomc_schedule *o = &c->scheds[t];
        sched_schedule tmp[SCHED_MAX_LAUNCHES];
        memset(tmp, 0, sizeof tmp);
        sched_choice_schedules(&ds->job, &res->top[t], tmp, r->sym);
        loomc_launch *ls = LM_NEWN(&c->job_ar, loomc_launch, ds->job.nlaunches);
        for (int l = 0; l < ds->job.nlaunches; l++) {
            copy_launch(c, &tmp[l], &ls[l]);
            sym_env_free(&tmp[l].values);
        }
        lm_buf why = {0};
        /* the best one's explanation also says why the runner-up lost */
        if (t == 0)
            sched_explain(&why, &ds->job, res, r->sym, &r->arena);
        else
            sched_explain_choice(&why, &ds->job, &res->top[t], r->sym, &r->arena);
        const char *text = lm_arena_strdup(&c->job_ar, lm_buf_str(&why));
        *o = (loomc_schedule){t, res->top[t].cycles, ls, ds->job.nlaunches, text};
        lm_buf_free(&why);
    }
    c->nscheds = res->ntop;
}

static loomc_role role_of(tir_role r)
{
    return r == TIR_INPUT ? LOOMC_INPUT : r == TIR_OUTPUT ? LOOMC_OUTPUT : LOOMC_SCRATCH;
}

/* The spec's tensors with their shapes at the bound sizes. */
static void copy_tensors(loomc_ctx *c)
{
    const fe_spec *spec = c->r.spec;
    c->tensors = LM_NEWN(&c->job_ar, loomc_tensor, spec->ntensors + 1);
    for (int i = 0; i < spec->ntensors; i++) {
        const tir_tensor *t = spec->tensors[i];
        loomc_tensor *o = &c->tensors[i];
        o->name = lm_arena_strdup(&c->job_ar, t->name);
        o->role = role_of(t->role);
        o->dtype = tir_elem_name(t->elem);
        o->rank = LM_MIN(t->rank, LOOMC_MAX_RANK);
        o->count = 1;
        for (int d = 0; d < o->rank; d++) {
            int64_t v = -1;
            if (!fe_spec_eval(spec, t->shape[d], &v, NULL) || v < 0)
                v = -1;
            o->shape[d] = v;
            o->count = v < 0 || o->count < 0 ? -1 : o->count * v;
        }
    }
    c->ntensors = spec->ntensors;
}

static int compile(loomc_ctx *c, int top_k)
{
    if (need_inputs(c) != LOOMC_OK)
        return LOOMC_EUSER;
    api_drop_job(c);
    drv_opts o = {.path = c->kernel_name,
                  .text = c->kernel_text,
                  .launch = {.kernel = c->select,
                             .shapes = c->shapes.items,
                             .nshapes = (int)c->shapes.len,
                             .consts = c->consts.items,
                             .nconsts = (int)c->consts.len},
                  .includes = c->includes.items,
                  .nincludes = (int)c->includes.len};
    drv_sched_opts so = sched_opts(c, top_k > 0 ? top_k : 1);
    c->job_live = true;
    if (!drv_compile(&c->r, &o, &c->d) || !drv_schedule(&c->r, &so, &c->d))
        return LOOMC_EUSER;
    copy_schedules(c);
    copy_tensors(c);
    c->compiled = true;
    return LOOMC_OK;
}

static int compile_call(loomc_ctx *c, const void *args) { return compile(c, *(const int *)args); }

int loomc_compile(loomc_ctx *c, int top_k) { return api_call(c, "loomc_compile", compile_call, &top_k); }

int loomc_schedule_count(const loomc_ctx *c) { return c && c->compiled ? c->nscheds : 0; }

const loomc_schedule *loomc_schedule_get(const loomc_ctx *c, int rank)
{
    return c && c->compiled && rank >= 0 && rank < c->nscheds ? &c->scheds[rank] : NULL;
}

int loomc_tensor_count(const loomc_ctx *c) { return c && c->compiled ? c->ntensors : 0; }

const loomc_tensor *loomc_tensor_get(const loomc_ctx *c, int i)
{
    return c && c->compiled && i >= 0 && i < c->ntensors ? &c->tensors[i] : NULL;
}

/* ---- one schedule to run ----------------------------------------------------- */

/* Schedule `rank` picked for the driver (compiling first for rank 0). */
static int pick(loomc_ctx *c, int rank, const char *fname)
{
    if (!c->compiled && rank == 0 && compile(c, 1) != LOOMC_OK)
        return LOOMC_EUSER;
    if (!c->compiled) {
        lm_error_plain(&c->d, "%s: nothing compiled to take schedule %d of (loomc_compile first)", fname, rank);
        return LOOMC_EUSER;
    }
    if (rank < 0 || rank >= c->nscheds) {
        lm_error_plain(&c->d, "%s: no schedule %d; the compilation kept %d (ranks 0 to %d)", fname, rank, c->nscheds,
                       c->nscheds - 1);
        return LOOMC_EUSER;
    }
    api_drop_run(c);
    drv_choose(&c->r, rank);
    drv_origin org = {.kind = DRV_ORIGIN_LOOM};
    drv_sched_opts so = sched_opts(c, 1);
    return drv_pick_schedules(&c->r, &org, &so, &c->d) ? LOOMC_OK : LOOMC_EUSER;
}

static int lower(loomc_ctx *c, const void *args)
{
    int rank = *(const int *)args;
    if (pick(c, rank, "loomc_lower") != LOOMC_OK)
        return LOOMC_EUSER;
    const sched_kernel *kp[SCHED_MAX_LAUNCHES];
    const sched_schedule *sp[SCHED_MAX_LAUNCHES];
    int n = drv_picked(&c->r, kp, sp);
    df_program *progs[SCHED_MAX_LAUNCHES];
    int np = 0;
    bool ok = drv_lower_job(progs, &np, kp, sp, n, c->arch, c->r.sym, &c->d);
    c->programs = LM_NEWN(&c->run_ar, const char *, np + 1);
    for (int i = 0; i < np; i++) {
        lm_buf b = {0};
        df_print(&b, progs[i]);
        c->programs[i] = lm_arena_strdup(&c->run_ar, lm_buf_str(&b));
        lm_buf_free(&b);
        df_free(progs[i]);
    }
    c->nprograms = ok ? np : 0;
    return ok ? LOOMC_OK : LOOMC_EUSER;
}

int loomc_lower(loomc_ctx *c, int rank) { return api_call(c, "loomc_lower", lower, &rank); }

int loomc_program_count(const loomc_ctx *c) { return c ? c->nprograms : 0; }

const char *loomc_program_text(const loomc_ctx *c, int i)
{
    return c && i >= 0 && i < c->nprograms ? c->programs[i] : NULL;
}

/* ---- simulate ------------------------------------------------------------------ */

typedef struct sim_args {
    int rank;
    loomc_sim_mode mode;
    const loomc_input *inputs;
    int ninputs;
} sim_args;

/* drv_run_opts.output: an output's simulated values into the context */
static void take_output(void *ctx, const tir_tensor *t, const int64_t *shape, const float *v, int64_t n)
{
    loomc_ctx *c = ctx;
    loomc_tensor o = {lm_arena_strdup(&c->run_ar, t->name), role_of(t->role), tir_elem_name(t->elem),
                      LM_MIN(t->rank, LOOMC_MAX_RANK), {0}, n, NULL};
    for (int d = 0; d < o.rank; d++)
        o.shape[d] = shape[d];
    float *data = lm_arena_alloc(&c->run_ar, (size_t)(n > 0 ? n : 1) * sizeof *data);
    memcpy(data, v, (size_t)n * sizeof *data);
    o.data = data;
    LM_PUSH(&c->outputs, o);
}

/* The caller's inputs for the driver (NULL names are the driver's to refuse). */
static drv_tensor_data *driver_inputs(loomc_ctx *c, const sim_args *x)
{
    drv_tensor_data *in = LM_NEWN(&c->run_ar, drv_tensor_data, x->ninputs + 1);
    for (int i = 0; i < x->ninputs; i++)
        in[i] = (drv_tensor_data){x->inputs[i].name ? x->inputs[i].name : "", x->inputs[i].data, x->inputs[i].count};
    return in;
}

static bool sim_args_ok(loomc_ctx *c, const sim_args *x)
{
    if (x->mode != LOOMC_SIM_TIMING && x->mode != LOOMC_SIM_FUNCTIONAL)
        lm_error_plain(&c->d, "loomc_simulate: mode %d is neither LOOMC_SIM_TIMING nor LOOMC_SIM_FUNCTIONAL",
                       (int)x->mode);
    else if (x->ninputs < 0 || (x->ninputs > 0 && !x->inputs))
        lm_error_plain(&c->d, "loomc_simulate: %d inputs at %s", x->ninputs, x->inputs ? "an array" : "NULL");
    else if (x->mode == LOOMC_SIM_TIMING && x->ninputs > 0)
        lm_error_plain(&c->d, "loomc_simulate: a timing-only simulation takes no inputs (it computes no values)");
    else
        return true;
    return false;
}

static int simulate(loomc_ctx *c, const void *args)
{
    const sim_args *x = args;
    if (!sim_args_ok(c, x) || pick(c, x->rank, "loomc_simulate") != LOOMC_OK)
        return LOOMC_EUSER;
    bool functional = x->mode == LOOMC_SIM_FUNCTIONAL;
    drv_job_opts jo = {.sched = sched_opts(c, 1)};
    jo.run.run = (sched_run_opts){.arch = c->arch, .check = functional, .timing_only = !functional, .seed = c->seed};
    jo.run.inputs = driver_inputs(c, x);
    jo.run.ninputs = x->ninputs;
    jo.run.output = take_output;
    jo.run.output_ctx = c;
    drv_run_result res;
    if (!drv_finish(&c->r, &jo, &res, &c->d)) {
        api_drop_run(c);
        return LOOMC_EUSER;
    }
    const sched_run_result *rr = &res.run;
    c->sim = (loomc_sim_result){rr->cycles, rr->seconds, rr->nlaunches, rr->check != SCHED_CHECK_SKIPPED,
                                rr->check == SCHED_CHECK_PASS, rr->max_rel_error};
    if (rr->check == SCHED_CHECK_FAIL)
        lm_warning(&c->d, (lm_loc){0},
                   "the simulated outputs differ from the reference interpreter beyond the tolerance");
    c->simulated = true;
    return LOOMC_OK;
}

int loomc_simulate(loomc_ctx *c, int rank, loomc_sim_mode mode, const loomc_input *inputs, int ninputs)
{
    sim_args x = {rank, mode, inputs, ninputs};
    return api_call(c, "loomc_simulate", simulate, &x);
}

const loomc_sim_result *loomc_sim_get(const loomc_ctx *c) { return c && c->simulated ? &c->sim : NULL; }

int loomc_output_count(const loomc_ctx *c) { return c && c->simulated ? (int)c->outputs.len : 0; }

const loomc_tensor *loomc_output_get(const loomc_ctx *c, int i)
{
    return c && c->simulated && i >= 0 && (size_t)i < c->outputs.len ? &c->outputs.items[i] : NULL;
}

const loomc_tensor *loomc_output_find(const loomc_ctx *c, const char *name)
{
    for (int i = 0; name && i < loomc_output_count(c); i++)
        if (!strcmp(c->outputs.items[i].name, name))
            return &c->outputs.items[i];
    return NULL;
}

/* ---- emit ------------------------------------------------------------------------ */

typedef struct emit_args {
    int rank;
    const char *dir;
} emit_args;

static int emit(loomc_ctx *c, const void *args)
{
    const emit_args *x = args;
    if (!x->dir) {
        lm_error_plain(&c->d, "loomc_emit: the folder is NULL");
        return LOOMC_EUSER;
    }
    if (pick(c, x->rank, "loomc_emit") != LOOMC_OK)
        return LOOMC_EUSER;
    /* the shape as bound, and the chosen schedule's reasons, for the comments */
    lm_buf shape = {0}, why = {0};
    for (size_t i = 0; i < c->shapes.len; i++)
        lm_buf_printf(&shape, "%s%s=%lld", i ? "," : "", c->shapes.items[i].name, (long long)c->shapes.items[i].value);
    for (size_t i = 0; i < c->consts.len; i++)
        lm_buf_printf(&shape, ", %s=%lld", c->consts.items[i].name, (long long)c->consts.items[i].value);
    lm_buf_puts(&why, c->scheds[x->rank].explanation);
    const char *base = strrchr(c->kernel_name, '/');
    drv_emit_opts eo = {.dir = x->dir, .kernel = base ? base + 1 : c->kernel_name, .shape = lm_buf_str(&shape),
                        .origin = "loom", .explain = &why};
    drv_job_opts jo = {.sched = sched_opts(c, 1), .emit = &eo};
    jo.run.run.arch = c->arch;
    drv_run_result res;
    bool ok = drv_finish(&c->r, &jo, &res, &c->d);
    lm_buf_free(&shape);
    lm_buf_free(&why);
    return ok ? LOOMC_OK : LOOMC_EUSER;
}

int loomc_emit(loomc_ctx *c, int rank, const char *dir)
{
    emit_args x = {rank, dir};
    return api_call(c, "loomc_emit", emit, &x);
}
