/* report.c - what a finished run reports: cycles and derived figures, busy
 * fractions, bytes per link and per DRAM bank, the numerics checks; and
 * the text and JSON forms of the report. Every performance figure is
 * labelled simulated: these are the simulator's numbers, not a chip's.
 */
#include "sim/sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numerics checks ------------------------------------------------------------ */

/* A tensor's contents row-major (tiles are stored tile-major). */
static float *row_major(const sim *s, int t)
{
    const df_tensor *T = &s->p->tensors[t];
    const sim_tensor_data *D = &s->tens[t];
    int th = s->a->tile_h, tw = s->a->tile_w;
    float *x = lm_xmalloc((size_t)(T->rows * T->cols + 1) * sizeof *x);
    for (int64_t r = 0; r < T->rows; r++)
        for (int64_t c = 0; c < T->cols; c++)
            x[r * T->cols + c] =
                D->pages[(size_t)((r / th) * D->tc + c / tw) * NUM_TILE_ELEMS + (size_t)((r % th) * NUM_TILE + c % tw)];
    return x;
}

/* The lowest fidelity any class computes with: the tolerance it earns. */
static arch_fidelity lowest_fidelity(const df_program *p)
{
    arch_fidelity f = ARCH_HIFI4;
    for (int k = 0; k < p->nclasses; k++)
        if (p->classes[k].kernels[DF_COMPUTE].nbody > 0 && p->classes[k].fidelity < f)
            f = p->classes[k].fidelity;
    return f;
}

static void run_check(const sim *s, const df_check *ck, sim_check_result *out)
{
    const df_program *p = s->p;
    const df_tensor *O = &p->tensors[ck->out];
    out->tensor = lm_xstrdup(O->name); /* the result outlives the program */
    float *got = row_major(s, ck->out);
    int64_t n = O->rows * O->cols;
    float *ref = lm_xcalloc((size_t)(n + 1), sizeof *ref);
    float *a = row_major(s, ck->a), *b = row_major(s, ck->b), *c = NULL;
    int64_t depth;
    if (ck->kind == DF_CHECK_MATMUL) {
        const df_tensor *A = &p->tensors[ck->a], *B = &p->tensors[ck->b];
        num_ref_matmul(A->rows, B->cols, A->cols, a, b, ref);
        depth = A->cols;
    } else {
        c = row_major(s, ck->c);
        num_ref_attention(ck->batch, ck->heads, ck->kv_heads, ck->seq_q, ck->seq_k, ck->dim, a, b, c, (float)ck->scale,
                          ck->causal, ref);
        depth = LM_MAX(ck->seq_k, ck->dim);
    }
    num_cmp cmp = num_compare(got, ref, n);
    out->max_abs = cmp.max_abs;
    out->max_rel = cmp.max_rel;
    out->nonfinite = cmp.nonfinite;
    out->status = num_within_tolerance_fid(&cmp, O->format, depth, lowest_fidelity(p)) ? SIM_CHECK_PASS
                                                                                        : SIM_CHECK_FAIL;
    free(got);
    free(ref);
    free(a);
    free(b);
    free(c);
}

/* ---- the result ------------------------------------------------------------------- */

static int cmp_links(const void *x, const void *y)
{
    const sim_link_stat *a = x, *b = y;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? 1 : -1;
    if (a->noc != b->noc)
        return a->noc - b->noc;
    if (a->y != b->y)
        return a->y - b->y;
    if (a->x != b->x)
        return a->x - b->x;
    return a->dir - b->dir;
}

sim_result *sim_report(sim *s)
{
    const arch_desc *a = s->a;
    sim_result *r = lm_xcalloc(1, sizeof *r);
    r->program = lm_xstrdup(s->p->name ? s->p->name : "program");
    r->arch = lm_xstrdup(a->name ? a->name : "chip");
    r->cycles = s->t_end;
    r->seconds = s->t_end / (a->clock_ghz * 1e9);
    r->flops = s->flops;
    r->tflops = r->seconds > 0 ? s->flops / r->seconds / 1e12 : 0;
    r->events = s->q.popped;
    r->rate_updates = s->net.recomputes;
    r->timing_only = !s->functional;
    if (s->functional && s->o->keep_tensors) {
        r->ntensors = s->p->ntensors;
        r->tensor_data = lm_xcalloc((size_t)(r->ntensors > 0 ? r->ntensors : 1), sizeof *r->tensor_data);
        for (int t = 0; t < r->ntensors; t++)
            r->tensor_data[t] = row_major(s, t);
    }
    double T = s->t_end > 0 ? s->t_end : 1;

    r->kernel_start = s->a->kernel_launch_cycles;
    r->ncores = s->ncores;
    r->cores = lm_xcalloc((size_t)(s->ncores > 0 ? s->ncores : 1), sizeof *r->cores);
    for (int i = 0; i < s->ncores; i++) {
        r->cores[i].x = s->cores[i].x;
        r->cores[i].y = s->cores[i].y;
        for (int k = 0; k < SIM_NENGINES; k++) {
            double f = s->eng[s->cores[i].eng[k]].busy / T;
            r->cores[i].busy[k] = f;
            r->busy_avg[k] += f / s->ncores;
            r->engine_done[k] = LM_MAX(r->engine_done[k], s->eng[s->cores[i].eng[k]].t_done);
            r->cores[i].done[k] = s->eng[s->cores[i].eng[k]].t_done;
        }
    }

    int ncb = 0;
    for (int i = 0; i < s->ncores; i++)
        for (int c = 0; c < s->a->num_cbs; c++)
            ncb += s->cores[i].cb[c].used;
    r->cbs = lm_xcalloc((size_t)(ncb > 0 ? ncb : 1), sizeof *r->cbs);
    for (int i = 0; i < s->ncores; i++)
        for (int c = 0; c < s->a->num_cbs; c++) {
            const sim_cbs *cb = &s->cores[i].cb[c];
            if (cb->used)
                r->cbs[r->ncbs++] = (sim_cb_stat){s->cores[i].x, s->cores[i].y, c, cb->pushes, cb->pops, cb->pushed,
                                                  cb->popped};
        }

    /* links: every one that carried a byte, hottest first */
    int nl = 0;
    for (int32_t i = s->net.link0; i < s->net.niu_out0; i++)
        nl += s->net.res[i].bytes > 0;
    sim_link_stat *all = lm_xcalloc((size_t)(nl > 0 ? nl : 1), sizeof *all);
    static const char dirs[] = "ESWN";
    nl = 0;
    for (int32_t i = s->net.link0; i < s->net.niu_out0; i++) {
        const sim_res *R = &s->net.res[i];
        if (R->bytes <= 0)
            continue;
        all[nl++] = (sim_link_stat){R->noc, R->x, R->y, dirs[R->dir], R->bytes, R->bytes / (R->cap * T)};
    }
    qsort(all, (size_t)nl, sizeof *all, cmp_links);
    int top = s->o->top_links > 0 ? s->o->top_links : SIM_DEFAULT_TOP_LINKS;
    r->links_used = nl;
    r->nlinks = LM_MIN(nl, top);
    r->links = all;

    r->nbanks = a->num_dram_banks;
    r->banks = lm_xcalloc((size_t)(a->num_dram_banks > 0 ? a->num_dram_banks : 1), sizeof *r->banks);
    for (int b = 0; b < a->num_dram_banks; b++) {
        const sim_res *rd = &s->net.res[s->net.bank_rd0 + b], *wr = &s->net.res[s->net.bank_wr0 + b];
        r->banks[b] = (sim_bank_stat){b,
                                      a->dram_bank_noc[b].x,
                                      a->dram_bank_noc[b].y,
                                      rd->payload,
                                      wr->payload,
                                      rd->bytes / (rd->cap * T),
                                      wr->bytes / (wr->cap * T)};
    }

    r->check = SIM_CHECK_SKIPPED;
    if (s->o->check && s->functional && s->p->nchecks > 0) {
        r->nchecks = s->p->nchecks;
        r->checks = lm_xcalloc((size_t)r->nchecks, sizeof *r->checks);
        r->check = SIM_CHECK_PASS;
        for (int i = 0; i < s->p->nchecks; i++) {
            run_check(s, &s->p->checks[i], &r->checks[i]);
            if (r->checks[i].status == SIM_CHECK_FAIL)
                r->check = SIM_CHECK_FAIL;
            r->max_error = fmax(r->max_error, r->checks[i].max_abs);
            r->max_rel_error = fmax(r->max_rel_error, r->checks[i].max_rel);
        }
    }
    return r;
}

void sim_result_free(sim_result *r)
{
    if (!r)
        return;
    free((char *)r->program);
    free((char *)r->arch);
    free(r->cores);
    free(r->cbs);
    free(r->links);
    free(r->banks);
    for (int i = 0; i < r->nchecks; i++)
        free((char *)r->checks[i].tensor);
    free(r->checks);
    for (int i = 0; i < r->ntensors; i++)
        free(r->tensor_data[i]);
    free(r->tensor_data);
    free(r);
}

/* ---- text and JSON --------------------------------------------------------------- */

static const char *check_name(sim_check_status c)
{
    return c == SIM_CHECK_PASS ? "pass" : c == SIM_CHECK_FAIL ? "fail" : "skipped";
}

void sim_print_text(lm_buf *b, const sim_result *r)
{
    lm_buf_printf(b, "program %s on %s (simulated%s)\n", r->program, r->arch,
                  r->timing_only ? ", timing only" : "");
    lm_buf_printf(b, "simulated cycles     %.0f\n", r->cycles);
    lm_buf_printf(b, "simulated time       %.3f us\n", r->seconds * 1e6);
    lm_buf_printf(b, "simulated TFLOP/s    %.3f (%.4g FLOP in tile matmuls)\n", r->tflops, r->flops);
    lm_buf_printf(b, "events               %llu (%llu fair-share updates)\n", (unsigned long long)r->events,
                  (unsigned long long)r->rate_updates);
    lm_buf_puts(b, "simulated busy (average over cores):");
    for (int k = 0; k < SIM_NENGINES; k++)
        lm_buf_printf(b, " %s %.1f%%", sim_engine_name((sim_engine_kind)k), 100 * r->busy_avg[k]);
    lm_buf_puts(b, "\n");
    if (r->ncores <= 16) /* per core when it fits on a screen; --json has all */
        for (int i = 0; i < r->ncores; i++) {
            lm_buf_printf(b, "  core (%d,%d):", r->cores[i].x, r->cores[i].y);
            for (int k = 0; k < SIM_NENGINES; k++)
                lm_buf_printf(b, " %s %.1f%%", sim_engine_name((sim_engine_kind)k), 100 * r->cores[i].busy[k]);
            lm_buf_puts(b, "\n");
        }
    lm_buf_puts(b, "simulated DRAM banks (bytes read / written, utilisation):\n");
    for (int i = 0; i < r->nbanks; i++) {
        const sim_bank_stat *k = &r->banks[i];
        if (k->read_bytes == 0 && k->write_bytes == 0)
            continue;
        lm_buf_printf(b, "  bank %-2d (%d,%d)  %12.0f / %12.0f  %5.1f%% / %5.1f%%\n", k->bank, k->x, k->y,
                      k->read_bytes, k->write_bytes, 100 * k->read_util, 100 * k->write_util);
    }
    lm_buf_printf(b, "simulated hottest links (%d of %d used):\n", r->nlinks, r->links_used);
    for (int i = 0; i < r->nlinks; i++) {
        const sim_link_stat *l = &r->links[i];
        lm_buf_printf(b, "  noc%d (%d,%d)%c  %12.0f bytes  %5.1f%%\n", l->noc, l->x, l->y, l->dir, l->bytes,
                      100 * l->utilisation);
    }
    if (r->check == SIM_CHECK_SKIPPED)
        lm_buf_puts(b, "check                skipped\n");
    for (int i = 0; i < r->nchecks; i++)
        lm_buf_printf(b, "check %-14s %s (max abs error %.3g, max rel error %.3g)\n", r->checks[i].tensor,
                      check_name(r->checks[i].status), r->checks[i].max_abs, r->checks[i].max_rel);
}

static json_t *checks_json(const sim_result *r)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < r->nchecks; i++) {
        json_t *c = lm_json_obj();
        lm_json_set(c, "tensor", lm_json_string(r->checks[i].tensor));
        lm_json_set(c, "check", lm_json_string(check_name(r->checks[i].status)));
        lm_json_set(c, "max_error", lm_json_sig(r->checks[i].max_abs, 6));
        lm_json_set(c, "max_rel_error", lm_json_sig(r->checks[i].max_rel, 6));
        lm_json_push(a, c);
    }
    return a;
}

/* Each engine's busy share: on average over the cores, and per core. */
static json_t *engines_json(const sim_result *r)
{
    json_t *e = lm_json_obj(), *avg = lm_json_obj(), *cores = lm_json_arr();
    for (int k = 0; k < SIM_NENGINES; k++)
        lm_json_set(avg, sim_engine_name((sim_engine_kind)k), lm_json_fixed(r->busy_avg[k], 4));
    for (int i = 0; i < r->ncores; i++) {
        json_t *c = lm_json_obj();
        lm_json_set(c, "x", lm_json_int(r->cores[i].x));
        lm_json_set(c, "y", lm_json_int(r->cores[i].y));
        for (int k = 0; k < SIM_NENGINES; k++)
            lm_json_set(c, sim_engine_name((sim_engine_kind)k), lm_json_fixed(r->cores[i].busy[k], 4));
        lm_json_push(cores, c);
    }
    lm_json_set(e, "average", avg);
    lm_json_set(e, "cores", cores);
    return e;
}

static json_t *banks_json(const sim_result *r)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < r->nbanks; i++) {
        const sim_bank_stat *k = &r->banks[i];
        json_t *b = lm_json_obj();
        lm_json_set(b, "bank", lm_json_int(k->bank));
        lm_json_set(b, "x", lm_json_int(k->x));
        lm_json_set(b, "y", lm_json_int(k->y));
        lm_json_set(b, "read_bytes", lm_json_fixed(k->read_bytes, 0));
        lm_json_set(b, "write_bytes", lm_json_fixed(k->write_bytes, 0));
        lm_json_set(b, "read_util", lm_json_fixed(k->read_util, 4));
        lm_json_set(b, "write_util", lm_json_fixed(k->write_util, 4));
        lm_json_push(a, b);
    }
    return a;
}

static json_t *links_json(const sim_result *r)
{
    json_t *a = lm_json_arr();
    for (int i = 0; i < r->nlinks; i++) {
        const sim_link_stat *l = &r->links[i];
        json_t *o = lm_json_obj();
        char dir[2] = {l->dir, 0};
        lm_json_set(o, "noc", lm_json_int(l->noc));
        lm_json_set(o, "x", lm_json_int(l->x));
        lm_json_set(o, "y", lm_json_int(l->y));
        lm_json_set(o, "dir", lm_json_string(dir));
        lm_json_set(o, "bytes", lm_json_fixed(l->bytes, 0));
        lm_json_set(o, "utilisation", lm_json_fixed(l->utilisation, 4));
        lm_json_push(a, o);
    }
    return a;
}

json_t *sim_json(const sim_result *r)
{
    json_t *d = lm_json_doc("loomc-sim-report", SIM_JSON_VERSION);
    lm_json_set(d, "simulated", lm_json_bool(true));
    lm_json_set(d, "program", lm_json_string(r->program));
    lm_json_set(d, "arch", lm_json_string(r->arch));
    lm_json_set(d, "timing_only", lm_json_bool(r->timing_only));
    lm_json_set(d, "cycles", lm_json_fixed(r->cycles, 0));
    lm_json_set(d, "seconds", lm_json_sig(r->seconds, 9));
    lm_json_set(d, "tflops", lm_json_sig(r->tflops, 6));
    lm_json_set(d, "flops", lm_json_sig(r->flops, 6));
    lm_json_set(d, "events", lm_json_int((int64_t)r->events));
    lm_json_set(d, "rate_updates", lm_json_int((int64_t)r->rate_updates));
    lm_json_set(d, "check", lm_json_string(check_name(r->check)));
    lm_json_set(d, "max_error", lm_json_sig(r->max_error, 6));
    lm_json_set(d, "max_rel_error", lm_json_sig(r->max_rel_error, 6));
    lm_json_set(d, "checks", checks_json(r));
    lm_json_set(d, "engines", engines_json(r));
    lm_json_set(d, "dram_banks", banks_json(r));
    lm_json_set(d, "links_used", lm_json_int(r->links_used));
    lm_json_set(d, "links", links_json(r));
    return d;
}

void sim_print_json(lm_buf *b, const sim_result *r)
{
    json_t *d = sim_json(r);
    lm_json_write(b, d);
    json_decref(d);
}
