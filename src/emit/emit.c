/* emit.c - a job's dataflow programs as one TT-Metalium program directory
 * (emit_job_files), and writing it (emit_write). The checks that concern
 * the whole program rather than one op - storage formats the emitter
 * handles, CBs through which two classes exchange pages declared alike -
 * are made here, before any text is written. */
#include "emit/emit_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool check_formats(const df_program *p, lm_diag *d)
{
    for (int t = 0; t < p->ntensors; t++)
        if (!emit_format(p->tensors[t].format)) {
            lm_error(d, p->tensors[t].loc,
                     "tensor '%s' is stored as %s, which loomc emit does not write", p->tensors[t].name,
                     df_format_name(p->tensors[t].format));
            return false;
        }
    for (int c = 0; c < p->nclasses; c++)
        for (int i = 0; i < p->classes[c].ncbs; i++)
            if (!emit_format(p->classes[c].cbs[i].format)) {
                lm_error(d, p->classes[c].cbs[i].loc, "CB %d of class '%s' holds %s tiles, which loomc emit does not "
                         "write", p->classes[c].cbs[i].id, p->classes[c].name,
                         df_format_name(p->classes[c].cbs[i].format));
                return false;
            }
    return true;
}

static const df_cb *find_cb(const df_class *c, int id)
{
    for (int i = 0; i < c->ncbs; i++)
        if (c->cbs[i].id == id)
            return &c->cbs[i];
    return NULL;
}

static bool sends_through(df_stmt *const *body, int n, int cb)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (((s->op == DF_SEND || s->op == DF_MCAST) && s->cb == cb) || (s->op == DF_SEND_ELEMS && s->cb_out == cb))
            return true;
        if (s->op == DF_FOR && sends_through(s->body, s->nbody, cb))
            return true;
    }
    return false;
}

/* A sender writes its pages at its own write pointer's address on the
 * receiver (loomc_dm.h): a CB that carries pages between cores must have one
 * declaration, hence one address, on every class that declares it. */
static bool check_exchanged_cbs(const df_program *p, lm_diag *d)
{
    for (int c = 0; c < p->nclasses; c++)
        for (int i = 0; i < p->classes[c].ncbs; i++) {
            const df_cb *cb = &p->classes[c].cbs[i];
            bool sent = false;
            for (int c2 = 0; c2 < p->nclasses && !sent; c2++)
                for (int k = 0; k < DF_NKERNELS && !sent; k++)
                    sent = sends_through(p->classes[c2].kernels[k].body, p->classes[c2].kernels[k].nbody, cb->id);
            if (!sent)
                continue;
            for (int c2 = 0; c2 < p->nclasses; c2++) {
                const df_cb *o = find_cb(&p->classes[c2], cb->id);
                if (o && (o->format != cb->format || o->pages != cb->pages)) {
                    lm_error(d, o->loc,
                             "CB %d carries pages between cores but classes '%s' and '%s' declare it differently "
                             "(%lld %s pages against %lld %s): loomc emit needs one address for it on every core",
                             cb->id, p->classes[c].name, p->classes[c2].name, (long long)cb->pages,
                             df_format_name(cb->format), (long long)o->pages, df_format_name(o->format));
                    return false;
                }
            }
        }
    return true;
}

/* Whether body fills CB `cb` with reads that carry a transaction id: a
 * block read ahead, reserved behind one not yet pushed, into pages the
 * emitted reads wrap at the ring's end (loomc_dm.h's read_tiles_ring). */
static bool read_ahead_into(df_stmt *const *body, int n, int cb)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_FOR && read_ahead_into(s->body, s->nbody, cb))
            return true;
        if ((s->op == DF_READ || s->op == DF_READ_ELEMS) && s->cb == cb && s->trid &&
            !(s->trid->kind == DF_X_CONST && s->trid->value == 0))
            return true;
    }
    return false;
}

/* The first constant page count a CB op on `cb` uses in body (0: none yet),
 * and whether another differs from it; *bad_loc: where. Reservations are
 * left out where `ahead` (a reservation moves no pointer, and the reads into
 * it wrap). */
static void cb_steps(df_stmt *const *body, int n, int cb, bool ahead, int64_t *step, bool *mixed, int64_t *other,
                     lm_loc *at)
{
    for (int i = 0; i < n; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_FOR)
            cb_steps(s->body, s->nbody, cb, ahead, step, mixed, other, at);
        bool cbop = (s->op == DF_CB_RESERVE && !ahead) || s->op == DF_CB_PUSH || s->op == DF_CB_WAIT ||
                    s->op == DF_CB_POP;
        if (!cbop || s->cb != cb || s->n->kind != DF_X_CONST)
            continue;
        if (*step == 0)
            *step = s->n->value;
        else if (s->n->value != *step && !*mixed)
            *mixed = true, *other = s->n->value, *at = s->loc;
    }
}

/* Add to ids[0..*n) every CB a swap in body pairs with one of them. */
static bool join_swapped(df_stmt *const *body, int nb, int *ids, int *n, int max)
{
    bool grew = false;
    for (int i = 0; i < nb; i++) {
        const df_stmt *s = body[i];
        if (s->op == DF_FOR)
            grew |= join_swapped(s->body, s->nbody, ids, n, max);
        if (s->op != DF_CB_SWAP)
            continue;
        bool ha = false, hb = false;
        for (int k = 0; k < *n; k++)
            ha |= ids[k] == s->cb, hb |= ids[k] == s->cb_b;
        if (ha != hb && *n < max) {
            ids[(*n)++] = ha ? s->cb_b : s->cb;
            grew = true;
        }
    }
    return grew;
}

/* On the card a CB is a ring whose reservations and reads must not cross
 * its end (the packer and unpacker address pages from the pointers without
 * wrapping): every CB must move in one step size that divides its pages.
 * The simulator's rings wrap; a program that relies on it is refused here
 * rather than emitted wrong. Steps that are not constants are left to the
 * emulation's run-time check. */
static bool check_cb_steps(const df_program *p, lm_diag *d)
{
    for (int c = 0; c < p->nclasses; c++)
        for (int i = 0; i < p->classes[c].ncbs; i++) {
            const df_class *dc = &p->classes[c];
            const df_cb *cb = &dc->cbs[i];
            int64_t step = 0, other = 0;
            bool mixed = false;
            lm_loc at = cb->loc;
            /* a CB that trades names with others takes their steps too */
            int ids[64] = {cb->id}, n = 1;
            const df_kernel *ck = &dc->kernels[DF_COMPUTE];
            while (join_swapped(ck->body, ck->nbody, ids, &n, (int)LM_COUNT(ids)))
                ;
            for (int m = 0; m < n; m++) {
                bool ahead = false;
                for (int k = 0; k < DF_NKERNELS; k++)
                    ahead |= k != DF_COMPUTE && read_ahead_into(dc->kernels[k].body, dc->kernels[k].nbody, ids[m]);
                for (int k = 0; k < DF_NKERNELS; k++)
                    cb_steps(dc->kernels[k].body, dc->kernels[k].nbody, ids[m], ahead && k != DF_COMPUTE, &step,
                             &mixed, &other, &at);
            }
            if (!mixed && (step == 0 || cb->pages % step == 0))
                continue;
            if (mixed)
                lm_error(d, at,
                         "CB %d of class '%s' moves in steps of %lld and %lld pages (a ring of %lld): on the card a "
                         "CB's reservations and reads must not cross its end, so loomc emit needs one step size for "
                         "it (this program's CB plan relies on the simulator's wrapping rings; docs/emit.md)",
                         cb->id, dc->name, (long long)step, (long long)other, (long long)cb->pages);
            else
                lm_error(d, at,
                         "CB %d of class '%s' moves in steps of %lld pages, which do not divide its %lld: on the card "
                         "a CB's reservations and reads must not cross its end (docs/emit.md)",
                         cb->id, dc->name, (long long)step, (long long)cb->pages);
            return false;
        }
    return true;
}

static bool emit_launch_kernels(emit_set *out, const emit_job *j, int l, emit_launch *el, lm_diag *d)
{
    const df_program *p = j->programs[l];
    el->p = p;
    el->kinfo = lm_xcalloc((size_t)(p->nclasses > 0 ? p->nclasses : 1), sizeof *el->kinfo);
    el->extras = lm_xcalloc((size_t)(p->nclasses > 0 ? p->nclasses : 1), sizeof *el->extras);
    if (!check_formats(p, d) || !check_exchanged_cbs(p, d) || !check_cb_steps(p, d))
        return false;
    for (int c = 0; c < p->nclasses; c++)
        if (!emit_class_extras(p, &p->classes[c], j->arch, &el->extras[c], d))
            return false;
    for (int c = 0; c < p->nclasses; c++)
        for (int k = 0; k < DF_NKERNELS; k++) {
            lm_buf text = {0};
            if (!emit_kernel(&text, p, l, &p->classes[c], (df_kernel_kind)k, j->arch, &el->extras[c],
                             &el->kinfo[c][k], d)) {
                lm_buf_free(&text);
                return false;
            }
            if (el->kinfo[c][k].present) {
                lm_buf name = {0};
                lm_buf_puts(&name, "kernels/");
                emit_kernel_file(&name, l, &p->classes[c], (df_kernel_kind)k);
                *emit_add_file(out, lm_buf_str(&name)) = text;
                lm_buf_free(&name);
            } else {
                lm_buf_free(&text);
            }
        }
    return true;
}

static void add_rt(emit_set *out, const char *name, const char *as)
{
    for (int i = 0; i < emit_rt_count; i++)
        if (!strcmp(emit_rt_names[i], name)) {
            lm_buf *b = emit_add_file(out, as);
            for (const char *const *line = emit_rt_texts[i]; *line; line++)
                lm_buf_puts(b, *line);
            return;
        }
    LM_BUG("emit: no helper header '%s' in the library", name);
}

bool emit_job_files(emit_set *out, const emit_job *j, lm_diag *d)
{
    memset(out, 0, sizeof *out);
    emit_launch *el = lm_xcalloc((size_t)(j->nprograms > 0 ? j->nprograms : 1), sizeof *el);
    bool ok = true;
    for (int l = 0; l < j->nprograms && ok; l++)
        ok = emit_launch_kernels(out, j, l, &el[l], d);
    if (ok) {
        add_rt(out, "loomc_int.h", "kernels/loomc_int.h");
        add_rt(out, "loomc_dm.h", "kernels/loomc_dm.h");
        add_rt(out, "loomc_compute.h", "kernels/loomc_compute.h");
        add_rt(out, "loomc_host.h", "loomc_host.h");
        emit_host(emit_add_file(out, "host.cpp"), j, el, j->nprograms);
        emit_schedule_header(emit_add_file(out, "schedule.h"), j);
        emit_cmake(emit_add_file(out, "CMakeLists.txt"), j, el, j->nprograms);
        emit_readme(emit_add_file(out, "README.md"), j);
    }
    for (int l = 0; l < j->nprograms; l++) {
        free(el[l].kinfo);
        free(el[l].extras);
    }
    free(el);
    if (!ok)
        emit_set_free(out);
    return ok;
}

/* The folder and any missing parents (mkdir -p). */
static bool make_dir(const char *path, lm_diag *d)
{
    char *p = lm_xstrdup(path);
    bool ok = true;
    for (char *s = p + 1; ok && *s; s++)
        if (*s == '/') {
            *s = 0;
            ok = mkdir(p, 0777) == 0 || errno == EEXIST;
            *s = '/';
        }
    ok = ok && (mkdir(p, 0777) == 0 || errno == EEXIST);
    if (!ok)
        lm_error_plain(d, "cannot create the folder '%s': %s", path, strerror(errno));
    free(p);
    return ok;
}

bool emit_write(const emit_set *s, const char *dir, lm_diag *d)
{
    if (!make_dir(dir, d))
        return false;
    for (int i = 0; i < s->n; i++) {
        lm_buf path = {0};
        lm_buf_printf(&path, "%s/%s", dir, s->files[i].name);
        /* the one subfolder level of the layout (kernels/) */
        char *slash = strrchr(path.s, '/');
        if (slash && slash > path.s + strlen(dir)) {
            *slash = 0;
            bool ok = make_dir(path.s, d);
            *slash = '/';
            if (!ok) {
                lm_buf_free(&path);
                return false;
            }
        }
        FILE *f = fopen(path.s, "w");
        bool ok = f && fwrite(s->files[i].text.s ? s->files[i].text.s : "", 1, s->files[i].text.len, f) ==
                           s->files[i].text.len;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            lm_error_plain(d, "cannot write '%s': %s", path.s, strerror(errno));
        lm_buf_free(&path);
        if (!ok)
            return false;
    }
    return true;
}
