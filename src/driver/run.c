/* run.c - run a job end to end (drv_simulate, and sched_run_job on it): lower each launch,
 * validate, simulate the launches in order, and with `check` compare every
 * output with the Tile IR reference interpreter run on the same inputs.
 *
 * Both sides start from the same host arrays: the interpreter fills each
 * input with tirx_tensor_fill_random (rounded to its type), and the
 * simulator gets those values laid out as the lowering stores tensors in
 * DRAM (sched_tensor_to_2d, padding zero) instead of its own seeded fill.
 * A scratch tensor written by one launch is read back from the simulator
 * and handed to the next launch's simulation, while the interpreter keeps
 * its own copy, so a wrong split kernel shows in the combined output.
 *
 * The comparison uses the simulator's error model (num_tolerance_packed)
 * for the output's storage format, the deepest accumulation of the job, the
 * roundings of partial sums kept between K blocks in a carried buffer (bf16
 * partials under a bf16 output) and the lowest matrix fidelity of its
 * schedules, doubled for a softmax (an
 * exponential of a dot product's result): exp turns a score's absolute
 * error into a relative error of its weight, and the weights are rounded to
 * bf16 before the next product, so the fidelity's error shows twice.
 */
#include "driver/driver.h"

#include "df/df.h"
#include "ir/tir_interp.h"
#include "lower/lower.h"
#include "num/num.h"
#include "sim/sim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool eval_shape(const tir_tensor *t, const sched_schedule *const *s, int n, int64_t *shape)
{
    for (int d = 0; d < t->rank; d++) {
        bool ok = false;
        for (int l = 0; l < n && !ok; l++)
            ok = sym_eval(t->shape[d], &s[l]->values, &shape[d]) == SYM_OK;
        if (!ok)
            return false;
    }
    return true;
}

/* What the tolerance needs to know about the job's accumulations: the
 * deepest chain of products summed into one output element (K of each dot,
 * times the trips of the loops around it when it accumulates into a carried
 * value), and how often a partial sum is rounded on the way: a dot
 * accumulating into a carried value over T trips stores its partial sums T-1
 * times in the carried buffer's format (bf16 partials under a bf16 output,
 * TTNN's rule) before the result. Upper bounds over programs. */
typedef struct acc_bound {
    int64_t depth;
    int64_t packs;      /* roundings of a partial sum to `partials` */
    arch_format partials;
} acc_bound;

/* The format a carried value is kept in between trips (fp32 when the
   summary has no buffer for it). */
static arch_format carried_format(const sched_kernel *k, const tir_value *v)
{
    for (int i = 0; i < k->nbufs; i++)
        if (k->bufs[i].kind == SCHED_BUF_CARRY && k->bufs[i].value == v)
            return k->bufs[i].format;
    return ARCH_FP32;
}

static int roundoff_rank(arch_format f)
{
    return f == ARCH_FP32 ? 0 : f == ARCH_BF16 ? 1 : f == ARCH_BFP8_B ? 2 : 3;
}

static void depth_block(const tir_block *b, const sched_kernel *k, const sched_schedule *s, sym_env *env,
                        int64_t outer, acc_bound *out)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->code == TIR_DOT && op->opnds[0]->type.rank >= 1) {
            int64_t kk = 1;
            const tir_type *t = &op->opnds[0]->type;
            sym_eval(t->shape[t->rank - 1], &s->values, &kk);
            bool acc = op->nopnds == 3;
            int64_t d = kk * (acc ? outer : 1);
            if (d > out->depth)
                out->depth = d;
            if (acc && outer > 1) {
                arch_format f = carried_format(k, op->opnds[2]);
                if (outer - 1 > out->packs)
                    out->packs = outer - 1;
                if (roundoff_rank(f) > roundoff_rank(out->partials))
                    out->partials = f;
            }
        }
        if (op->code == TIR_FOR) {
            int64_t lo = 1, hi = 1;
            if (op->sym)
                sym_bounds(op->sym, env, &lo, &hi);
            depth_block(op->regions[0], k, s, env, outer * (hi > 1 ? hi : 1), out);
        }
    }
}

static acc_bound job_depth(const sched_kernel *const *k, const sched_schedule *const *s, int n, sym_ctx *sc)
{
    acc_bound best = {.depth = 1, .packs = 0, .partials = ARCH_FP32};
    for (int l = 0; l < n; l++) {
        sym_env env = {0};
        for (int i = 0; i < s[l]->values.n; i++)
            sym_env_set_range(&env, s[l]->values.b[i].var, s[l]->values.b[i].lo, s[l]->values.b[i].hi);
        const tir_func *f = k[l]->f;
        for (int g = 0; g < f->grid_rank; g++) {
            int64_t e = 1;
            sym_eval(f->grid[g], &s[l]->values, &e);
            sym_env_set_range(&env, tir_pid_var(sc, g), 0, e > 0 ? e - 1 : 0);
        }
        depth_block(f->body, k[l], s[l], &env, 1, &best);
        sym_env_free(&env);
    }
    return best;
}

/* Whether an exponential of the job reads what a dot product made (a
 * softmax): it turns a score's absolute error into a relative error of its
 * weight, and the weights are rounded before the next product. */
static bool softmax_block(const tir_block *b, bool *seen_dot)
{
    for (const tir_op *op = b->first; op; op = op->next) {
        if (op->code == TIR_DOT)
            *seen_dot = true;
        if ((op->code == TIR_EXP || op->code == TIR_EXP2) && *seen_dot)
            return true;
        for (int r = 0; r < op->nregions; r++)
            if (softmax_block(op->regions[r], seen_dot))
                return true;
    }
    return false;
}

/* The format whose error model fits an output: f16 is held in fp32 tiles,
 * but its products go through the matrix engine at the fidelity's
 * precision, as bf16 ones do. */
static arch_format fmt_of(tir_elem e) { return e == TIR_BF16 || e == TIR_F16 ? ARCH_BF16 : ARCH_FP32; }

/* An input as the host converts it to its DRAM storage format (as
 * ttnn.from_torch with a dtype does): rounded in the tensor's 2-D tile
 * layout, where each run of 16 values of a row is a face row sharing one
 * block-float exponent (the layout's rows are whole tiles wide). Both the
 * reference and the simulator then start from exactly these values. */
static void host_convert(float *nd, const int64_t *shape, int rank, bool fold, int64_t rows, int64_t cols,
                         arch_format f)
{
    float *flat = lm_xcalloc((size_t)(rows * cols + 1), sizeof *flat);
    sched_tensor_to_2d(nd, shape, rank, fold, flat);
    num_round_array(flat, rows * cols, f);
    sched_tensor_from_2d(flat, shape, rank, fold, nd);
    free(flat);
}

/* ---- tensor data files (--save-data, --outputs-from) ----------------------- */

/* dir/sub/NAME.f32: n little-endian float32 values (the host's byte order). */
bool drv_save_tensor(const char *dir, const char *sub, const char *name, const float *v, int64_t n, lm_diag *d)
{
    lm_buf path = {0};
    lm_buf_printf(&path, "%s/%s", dir, sub);
    bool ok = (mkdir(dir, 0777) == 0 || errno == EEXIST) && (mkdir(path.s, 0777) == 0 || errno == EEXIST);
    lm_buf_printf(&path, "/%s.f32", name);
    FILE *f = ok ? fopen(path.s, "wb") : NULL;
    ok = f && fwrite(v, sizeof *v, (size_t)n, f) == (size_t)n;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        lm_error_plain(d, "cannot write '%s': %s", path.s, strerror(errno));
    lm_buf_free(&path);
    return ok;
}

/* Whether CB id of core (x, y) is a support CB of its class. */
static bool support_cb(const df_program *p, int x, int y, int id)
{
    for (int c = 0; c < p->nclasses; c++) {
        const df_class *k = &p->classes[c];
        if (x < k->x0 || x > k->x1 || y < k->y0 || y > k->y1)
            continue;
        for (int s = 0; s < DF_NSUPPORT; s++)
            if (k->support[s] == id)
                return true;
    }
    return false;
}

bool drv_save_cb_counts(const char *dir, int program, const df_program *p, const sim_result *r, lm_diag *d)
{
    lm_buf path = {0};
    lm_buf_printf(&path, "%s/cb_counts.txt", dir);
    bool ok = mkdir(dir, 0777) == 0 || errno == EEXIST;
    FILE *f = ok ? fopen(path.s, program == 0 ? "w" : "a") : NULL;
    ok = f != NULL;
    if (f && program == 0)
        fputs("# program x y cb pushes pops pages_pushed pages_popped\n", f);
    for (int i = 0; ok && i < r->ncbs; i++) {
        const sim_cb_stat *c = &r->cbs[i];
        if (support_cb(p, c->x, c->y, c->cb))
            continue;
        ok = fprintf(f, "%d %d %d %d %lld %lld %lld %lld\n", program, c->x, c->y, c->cb, (long long)c->pushes,
                     (long long)c->pops, (long long)c->pushed, (long long)c->popped) > 0;
    }
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        lm_error_plain(d, "cannot write '%s': %s", path.s, strerror(errno));
    lm_buf_free(&path);
    return ok;
}

static bool load_floats(const char *dir, const char *name, float *v, int64_t n, lm_diag *d)
{
    lm_buf path = {0};
    lm_buf_printf(&path, "%s/%s.f32", dir, name);
    FILE *f = fopen(path.s, "rb");
    size_t got = f ? fread(v, sizeof *v, (size_t)n, f) : 0;
    bool more = f && fgetc(f) != EOF;
    if (!f)
        lm_error_plain(d, "cannot read '%s': %s", path.s, strerror(errno));
    else if (got != (size_t)n || more)
        lm_error_plain(d, "'%s' does not hold the %lld float32 values of tensor '%s' (its DRAM rows x columns)",
                       path.s, (long long)n, name);
    bool ok = f && got == (size_t)n && !more;
    if (f)
        fclose(f);
    lm_buf_free(&path);
    return ok;
}

/* The reference's tensor i in its DRAM rows x columns, saved as dir/reference/NAME. */
static bool save_reference(const char *dir, const tir_tensor *t, const tirx_tensor *ref, const int64_t *shape,
                           int64_t rows, int64_t cols, lm_diag *d)
{
    float *flat = lm_xcalloc((size_t)(rows * cols + 1), sizeof *flat);
    sched_tensor_to_2d(ref->data, shape, t->rank, t->fold_rows, flat);
    bool ok = drv_save_tensor(dir, "reference", t->name, flat, rows * cols, d);
    free(flat);
    return ok;
}

/* Outputs computed elsewhere (dir/NAME.f32, DRAM rows x columns) as the device's. */
static bool load_outputs(const char *dir, const tir_tensor *const *tensors, int ntensors, int64_t (*shapes)[TIR_MAX_RANK],
                         const int64_t (*dims)[2], float **dev, lm_diag *d)
{
    for (int i = 0; i < ntensors; i++) {
        if (tensors[i]->role != TIR_OUTPUT || dims[i][0] <= 0)
            continue;
        int64_t n = dims[i][0] * dims[i][1];
        float *flat = lm_xcalloc((size_t)(n + 1), sizeof *flat);
        bool ok = load_floats(dir, tensors[i]->name, flat, n, d);
        if (ok)
            sched_tensor_from_2d(flat, shapes[i], tensors[i]->rank, tensors[i]->fold_rows, dev[i]);
        free(flat);
        if (!ok)
            return false;
    }
    return true;
}

/* ---- the caller's inputs and the outputs back (drv_run_opts) --------------- */

/* Every input the caller gives names an input tensor of the job, once. */
static bool check_inputs(const drv_run_opts *o, const tir_tensor *const *tensors, int ntensors, lm_diag *d)
{
    for (int j = 0; j < o->ninputs; j++) {
        const char *name = o->inputs[j].name;
        bool found = false;
        for (int i = 0; i < ntensors && !found; i++)
            found = !strcmp(tensors[i]->name, name ? name : "");
        for (int i = 0; i < j && found; i++)
            if (!strcmp(o->inputs[i].name, name)) {
                lm_error_plain(d, "input tensor '%s' is given twice", name);
                return false;
            }
        if (!found) {
            lm_buf names = {0};
            for (int i = 0; i < ntensors; i++)
                if (tensors[i]->role == TIR_INPUT)
                    lm_buf_printf(&names, "%s%s", names.len ? ", " : "", tensors[i]->name);
            lm_error_plain(d, "no tensor '%s' in the job (its inputs: %s)", name ? name : "(null)",
                           names.len ? lm_buf_str(&names) : "none");
            lm_buf_free(&names);
            return false;
        }
    }
    for (int j = 0; j < o->ninputs; j++)
        for (int i = 0; i < ntensors; i++)
            if (!strcmp(tensors[i]->name, o->inputs[j].name) && tensors[i]->role != TIR_INPUT) {
                lm_error_plain(d, "tensor '%s' is not an input of the job (its role: %s)", tensors[i]->name,
                               tir_role_name(tensors[i]->role));
                return false;
            }
    return true;
}

/* Input tensor x's values: the caller's, or pseudo-random from seed. */
static bool fill_input(tirx_tensor *x, const drv_run_opts *o, uint64_t seed, lm_diag *d)
{
    for (int j = 0; j < o->ninputs; j++) {
        const drv_tensor_data *in = &o->inputs[j];
        if (strcmp(in->name, x->t->name))
            continue;
        if (in->n != x->numel || (x->numel > 0 && !in->v)) {
            lm_error_plain(d, "input tensor '%s' has %lld elements; %lld values were given", x->t->name,
                           (long long)x->numel, (long long)in->n);
            return false;
        }
        memcpy(x->data, in->v, (size_t)x->numel * sizeof *x->data);
        return true;
    }
    tirx_tensor_fill_random(x, seed);
    return true;
}

/* TTNN's kernels as one program for the whole job (n launches), at the
 * schedules' compute config; NULL after reporting. */
static df_program *kernel_program(const ttnn_pick *pick, const sched_schedule *const *s, int n, const arch_desc *a,
                                  lm_diag *d, int *cov)
{
    char why[TTNN_WHY_MAX + 64];
    df_program *p = ttnn_kernel_program(pick, s[0]->fidelity, s[0]->fp32_acc, a, why, sizeof why);
    if (!p)
        lm_error_plain(d, "--schedule ttnn-kernel: %s", why);
    *cov = n;
    return p;
}

bool drv_simulate(drv_run_result *res, const sched_kernel *const *k, const sched_schedule *const *s, int n,
                  const tir_tensor *const *tensors, int ntensors, const drv_run_opts *opts, sym_ctx *sc, lm_diag *d)
{
    memset(res, 0, sizeof *res);
    sched_run_result *out = &res->run;
    const sched_run_opts *o = &opts->run;
    lm_diag *vd = opts->validate_diag ? opts->validate_diag : d;
    out->check = SCHED_CHECK_SKIPPED;
    bool check = o->check && !o->timing_only;
    bool ok = true;
    /* host copies: the reference's and what the device computed */
    tirx_tensor *ref = lm_xcalloc((size_t)(ntensors > 0 ? ntensors : 1), sizeof *ref);
    float **dev = lm_xcalloc((size_t)(ntensors > 0 ? ntensors : 1), sizeof *dev);
    int64_t shapes[64][TIR_MAX_RANK];
    if (ntensors > 64) {
        lm_error_plain(d, "a job of more than 64 tensors");
        res->failed = DRV_RUN_INPUTS;
        ok = false;
    }
    /* the reference and the host copies hold every tensor: within the
       simulator's budget of functional data, checked before allocating */
    int64_t total = 0;
    bool fits64 = true;
    for (int i = 0; ok && i < ntensors; i++) {
        if (!eval_shape(tensors[i], s, n, shapes[i])) {
            lm_error_plain(d, "the shape of tensor '%s' is not bound by the schedule", tensors[i]->name);
            res->failed = DRV_RUN_INPUTS;
            ok = false;
            break;
        }
        int64_t numel = 1;
        for (int r = 0; r < tensors[i]->rank && fits64; r++)
            fits64 = shapes[i][r] >= 0 && lm_mul_ok(numel, shapes[i][r], &numel);
        fits64 = fits64 && lm_add_ok(total, numel, &total);
    }
    if (ok && check && !check_inputs(opts, tensors, ntensors, d)) {
        res->failed = DRV_RUN_INPUTS;
        ok = false;
    }
    if (ok && check && (!fits64 || total > SIM_DEFAULT_MAX_DATA_ELEMS)) {
        lm_error_plain(d, "--check would hold %s%lld tensor elements, more than the limit of %lld; check a smaller "
                          "shape (--timing-only runs this one, without a check)",
                       fits64 ? "" : "more than ", (long long)(fits64 ? total : INT64_MAX),
                       (long long)SIM_DEFAULT_MAX_DATA_ELEMS);
        res->failed = DRV_RUN_INPUTS;
        ok = false;
    }
    for (int i = 0; ok && i < ntensors; i++) {
        if (!check)
            continue;
        sym_env env = {0};
        for (int l = 0; l < n; l++)
            for (int j = 0; j < s[l]->values.n; j++)
                sym_env_set(&env, s[l]->values.b[j].var, s[l]->values.b[j].lo);
        lm_buf why = {0};
        if (!tirx_tensor_init(&ref[i], tensors[i], &env, &why)) {
            lm_error_plain(d, "tensor '%s': %s", tensors[i]->name, lm_buf_str(&why));
            res->failed = DRV_RUN_INPUTS;
            ok = false;
        } else if (tensors[i]->role == TIR_INPUT && !fill_input(&ref[i], opts, o->seed + (uint64_t)i + 1, d)) {
            res->failed = DRV_RUN_INPUTS;
            ok = false;
        } else {
            dev[i] = lm_xmalloc((size_t)(ref[i].numel + 1) * sizeof *dev[i]);
            memcpy(dev[i], ref[i].data, (size_t)ref[i].numel * sizeof *dev[i]);
        }
        lm_buf_free(&why);
        sym_env_free(&env);
    }
    arch_fidelity fid = ARCH_HIFI4;
    /* each tensor's storage format in the lowered programs (the summary's
       buffers may store it in another format than its element type's) */
    arch_format store[64];
    bool converted[64];
    int64_t dims[64][2] = {{0}}; /* each tensor's DRAM rows and columns, once a program has it */
    bool saved[64] = {false};
    for (int i = 0; i < ntensors && i < 64; i++) {
        store[i] = fmt_of(tensors[i]->elem);
        converted[i] = false;
    }
    /* every launch in one trace, one after the other */
    sim_trace *trace = ok && o->trace_file ? sim_trace_new(o->trace_file, o->arch) : NULL;
    for (int l = 0, cov = 1; ok && l < n; l += cov) {
        /* a fused pair is one program; TTNN's kernels are the whole job */
        df_program *p = opts->kernel ? kernel_program(opts->kernel, s, n, o->arch, vd, &cov)
                                     : sched_lower_launch(k, s, n, l, o->arch, sc, d, &cov);
        for (int j = l; j < l + cov; j++)
            if (s[j]->fidelity < fid)
                fid = s[j]->fidelity;
        if (!p || !df_validate(p, o->arch, vd)) {
            res->failed = p ? DRV_RUN_VALIDATE : DRV_RUN_LOWER;
            res->failed_launch = l;
            df_free(p);
            ok = false;
            break;
        }
        /* a cycle cap: what is left of it for this program */
        double left = 0;
        if (opts->max_cycles > 0) {
            left = opts->max_cycles - out->cycles;
            if (left <= 0) {
                df_free(p);
                res->censored = true;
                out->cycles = opts->max_cycles;
                break;
            }
        }
        if (o->programs)
            df_print(o->programs, p);
        for (int t = 0; t < p->ntensors; t++)
            for (int i = 0; i < ntensors; i++) {
                if (strcmp(tensors[i]->name, p->tensors[t].name))
                    continue;
                /* a format other than the element type's tile format (f16
                   tiles are fp32) was chosen for storage (--format) */
                if (p->tensors[t].format != (tensors[i]->elem == TIR_BF16 ? ARCH_BF16 : ARCH_FP32))
                    store[i] = p->tensors[t].format;
                if (check && tensors[i]->role == TIR_INPUT && !converted[i]) {
                    host_convert(dev[i], shapes[i], tensors[i]->rank, tensors[i]->fold_rows, p->tensors[t].rows,
                                 p->tensors[t].cols, p->tensors[t].format);
                    memcpy(ref[i].data, dev[i], (size_t)ref[i].numel * sizeof *dev[i]);
                    converted[i] = true;
                }
            }
        /* the simulator's tensors from the host copies */
        float **init = NULL;
        if (check) {
            init = lm_xcalloc((size_t)(p->ntensors > 0 ? p->ntensors : 1), sizeof *init);
            for (int t = 0; t < p->ntensors; t++)
                for (int i = 0; i < ntensors; i++)
                    if (!strcmp(tensors[i]->name, p->tensors[t].name)) {
                        init[t] = lm_xmalloc((size_t)(p->tensors[t].rows * p->tensors[t].cols + 1) * sizeof **init);
                        sched_tensor_to_2d(dev[i], shapes[i], tensors[i]->rank, tensors[i]->fold_rows, init[t]);
                        dims[i][0] = p->tensors[t].rows, dims[i][1] = p->tensors[t].cols;
                        if (opts->save_data && tensors[i]->role == TIR_INPUT && !saved[i]) {
                            saved[i] = true;
                            ok = drv_save_tensor(opts->save_data, "inputs", tensors[i]->name, init[t],
                                             dims[i][0] * dims[i][1], d) && ok;
                        }
                    }
        }
        sim_options so = {0};
        so.timing_only = o->timing_only;
        so.exact_exp = o->exact_exp;
        so.trace = trace;
        so.trace_name = cov > 1 ? p->name : k[l]->f->name;
        so.tensor_init = (const float *const *)init;
        so.keep_tensors = check;
        so.max_cycles = left;
        so.progress = o->progress;
        char label[160];
        snprintf(label, sizeof label, "simulating %s (launch %d of %d)", cov > 1 ? p->name : k[l]->f->name, l + 1, n);
        so.progress_label = label;
        sim_result *r = sim_run(p, o->arch, &so, d);
        lm_progress_end(o->progress);
        if (r) {
            sched_run_launch *rl = &out->launches[out->nlaunches++];
            rl->kernel = cov > 1 ? p->name : k[l]->f->name;
            rl->fused = cov > 1;
            rl->first = l;
            rl->count = cov;
            if (opts->save_data)
                ok = drv_save_cb_counts(opts->save_data, out->nlaunches - 1, p, r, d) && ok;
            if (o->profile_file) {
                if (out->nlaunches == 1)
                    sim_profile_header(o->profile_file, o->arch);
                sim_profile_rows(o->profile_file, r, o->arch, out->nlaunches, out->cycles);
            }
            rl->cycles = r->cycles;
            rl->flops = r->flops;
            rl->cores = r->ncores;
            out->cycles += r->cycles;
            out->seconds += r->seconds;
            out->flops += r->flops;
            /* the device time from the kernels' start, which the simulator
               puts after the kernel launch, to the end of the program or of
               its last math kernel (the published GEMM figures' window) */
            double end = opts->math_window ? r->engine_done[SIM_MATH] : r->cycles;
            res->device_cycles += end - o->arch->kernel_launch_cycles;
            if (check)
                for (int t = 0; t < p->ntensors; t++)
                    for (int i = 0; i < ntensors; i++)
                        if (!strcmp(tensors[i]->name, p->tensors[t].name) && tensors[i]->role != TIR_INPUT) {
                            sched_tensor_from_2d(r->tensor_data[t], shapes[i], tensors[i]->rank,
                                                 tensors[i]->fold_rows, dev[i]);
                            if (opts->save_data)
                                ok = drv_save_tensor(opts->save_data, "simulated", tensors[i]->name, r->tensor_data[t],
                                                 p->tensors[t].rows * p->tensors[t].cols, d) && ok;
                        }
            sim_result_free(r);
        } else {
            res->failed = DRV_RUN_SIMULATE;
            res->failed_launch = l;
            ok = false;
        }
        if (init)
            for (int t = 0; t < p->ntensors; t++)
                free(init[t]);
        free(init);
        df_free(p);
        for (int j = l; ok && check && j < l + cov; j++) {
            lm_buf why = {0};
            /* the reference computes exp and exp2 as the simulation does:
               the chip's approximate pass unless --exact-exp */
            tirx_opts xo = {o->exact_exp ? NULL : num_exp_approx, o->exact_exp ? NULL : num_exp2_approx, true};
            if (!tirx_run_opts(k[j]->f, &s[j]->values, ref, ntensors, &xo, &why)) {
                lm_error_plain(d, "the reference interpreter failed: %s", lm_buf_str(&why));
                res->failed = DRV_RUN_CHECK;
                res->failed_launch = j;
                ok = false;
            }
            lm_buf_free(&why);
        }
    }
    /* a write error stays on the stream, for its owner to report */
    if (trace)
        sim_trace_end(trace);
    out->tflops = out->seconds > 0 ? out->flops / out->seconds / 1e12 : 0;
    /* the data for a program run elsewhere, and its outputs back */
    for (int i = 0; ok && check && opts->save_data && i < ntensors && i < 64; i++)
        if (tensors[i]->role != TIR_INPUT && dims[i][0] > 0)
            ok = save_reference(opts->save_data, tensors[i], &ref[i], shapes[i], dims[i][0], dims[i][1], d);
    if (ok && check && opts->outputs_from &&
        !load_outputs(opts->outputs_from, tensors, ntensors < 64 ? ntensors : 64, shapes,
                      (const int64_t(*)[2])dims, dev, d)) {
        res->failed = DRV_RUN_CHECK;
        ok = false;
    }
    if (ok && check) {
        acc_bound depth = job_depth(k, s, n, sc);
        bool softmax = false;
        for (int l = 0; l < n && !softmax; l++) {
            bool dot = false;
            softmax = softmax_block(k[l]->f->body, &dot);
        }
        out->check = SCHED_CHECK_PASS;
        for (int i = 0; i < ntensors; i++) {
            if (tensors[i]->role != TIR_OUTPUT || out->noutputs == SCHED_MAX_OUTPUTS)
                continue;
            /* each element's error against its terms too (a short sum
               that cancels errs like its terms, not like its value) */
            num_cmp c = num_compare_terms(dev[i], ref[i].data, ref[i].terms, ref[i].numel);
            arch_format f = store[i];
            sched_run_output *ro = &out->outputs[out->noutputs++];
            ro->tensor = tensors[i]->name;
            ro->max_abs = c.max_abs;
            /* block-float outputs are compared relative to their block's
               largest magnitude, as the format stores them */
            ro->block_rel = f == ARCH_BFP8_B || f == ARCH_BFP4_B;
            ro->max_rel = ro->block_rel ? c.max_rel_block : c.max_rel;
            ro->nonfinite = c.nonfinite;
            ro->tolerance =
                num_tolerance_packed(f, depth.depth, fid, depth.partials, depth.packs) * (softmax ? 2 : 1);
            ro->pass = c.nonfinite == 0 && ro->max_rel <= ro->tolerance;
            if (!ro->pass)
                out->check = SCHED_CHECK_FAIL;
            if (c.max_abs > out->max_error || isnan(c.max_abs))
                out->max_error = c.max_abs;
            if (c.max_rel > out->max_rel_error || isnan(c.max_rel))
                out->max_rel_error = c.max_rel;
        }
    }
    for (int i = 0; ok && check && opts->output && i < ntensors; i++)
        if (tensors[i]->role == TIR_OUTPUT)
            opts->output(opts->output_ctx, tensors[i], ref[i].shape, dev[i], ref[i].numel);
    for (int i = 0; i < ntensors; i++) {
        if (check)
            tirx_tensor_free(&ref[i]);
        free(dev[i]);
    }
    free(ref);
    free(dev);
    return ok;
}

bool sched_run_job(sched_run_result *out, const sched_kernel *const *k, const sched_schedule *const *s, int n,
                   const tir_tensor *const *tensors, int ntensors, const sched_run_opts *o, sym_ctx *sc, lm_diag *d)
{
    drv_run_opts ro = {.run = *o};
    drv_run_result r;
    bool ok = drv_simulate(&r, k, s, n, tensors, ntensors, &ro, sc, d);
    *out = r.run;
    return ok;
}
