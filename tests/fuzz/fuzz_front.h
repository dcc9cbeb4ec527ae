/* fuzz_front.h - the front-end half of the kernel harnesses (fuzz_kernel.c,
 * fuzz_launch.c): parse a kernel file from memory, dump its tree, then run
 * the whole compilation of `loomc ir` on it through the driver and print
 * what `loomc ir` prints.
 *
 * The driver reads its kernel from a path, so the text is handed over as an
 * anonymous in-memory file (memfd) and named by /proc/self/fd/N; nothing
 * touches the disk, and the harness follows every pass the driver gains.
 */
#ifndef LOOMC_FUZZ_FRONT_H
#define LOOMC_FUZZ_FRONT_H

#include "fuzz_common.h"

#include "driver/driver.h"
#include "front/ast.h"

#include <sys/mman.h>
#include <unistd.h>

/* An in-memory file holding `text`, or -1 (then the caller skips). */
static inline int fz_memfile(const char *text, size_t len, char *path, size_t pathlen)
{
    int fd = memfd_create("kernel.py", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t n = write(fd, text + off, len - off);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    return fd;
}

/* fe_parse straight from memory, then fe_dump of the tree. Returns whether
 * the text parses. */
static inline bool fz_parse_and_dump(const char *src, size_t len)
{
    lm_arena a;
    lm_arena_init(&a);
    lm_diag d;
    fz_diag(&d);
    lm_diag_add_source(&d, "kernel.py", src, len);
    fe_module *m = fe_parse("kernel.py", src, len, &a, &d);
    if (m) {
        fz_require_clean(&d, "fe_parse");
        lm_buf b = {0};
        fe_dump(&b, m);
        lm_buf_free(&b);
    } else {
        fz_require_error(&d, "fe_parse");
    }
    lm_arena_free(&a);
    return m != NULL;
}

/* The names of the first launch spec's sizes (parameters without a default)
 * and how many launch specs the file has; from a fresh parse. */
typedef struct fz_sizes {
    char names[16][FE_MAX_IDENT + 1];
    int n;
    char spec[FE_MAX_IDENT + 1];
    int nspecs;
} fz_sizes;

static inline void fz_find_sizes(const char *src, size_t len, fz_sizes *out)
{
    memset(out, 0, sizeof *out);
    lm_arena a;
    lm_arena_init(&a);
    lm_diag d;
    fz_diag(&d);
    fe_module *m = fe_parse("kernel.py", src, len, &a, &d);
    if (m) {
        fe_names nm;
        fe_names_init(&nm, m, &a);
        for (int i = 0; i < nm.nfuncs; i++) {
            const fe_func *f = nm.funcs[i];
            if (!fe_is_launch_spec(&nm, f, &a))
                continue;
            if (out->nspecs++ == 0) {
                snprintf(out->spec, sizeof out->spec, "%s", f->name);
                for (int k = 0; k < f->nparams && out->n < 16; k++)
                    if (!f->params[k].deflt)
                        snprintf(out->names[out->n++], sizeof out->names[0], "%s", f->params[k].name);
            }
        }
    }
    lm_arena_free(&a);
}

/* drv_compile on the text with these bindings, then the `loomc ir` output. */
static inline void fz_compile(const char *src, size_t len, const fe_launch_opts *lo)
{
    char path[64];
    int fd = fz_memfile(src, len, path, sizeof path);
    if (fd < 0)
        return;
    drv_opts o = {.path = path, .launch = *lo};
    lm_diag d;
    fz_diag(&d);
    drv_result r;
    if (drv_compile(&r, &o, &d)) {
        fz_require_clean(&d, "drv_compile");
        lm_buf b = {0};
        for (int i = 0; i < r.nlaunches; i++) {
            const drv_launch *dl = &r.launches[i];
            fe_print_launch(&b, r.spec, dl->launch);
            tir_print_func(&b, dl->func);
            acc_print(&b, dl->func, dl->access);
        }
        lm_buf_free(&b);
    } else {
        fz_require_error(&d, "drv_compile");
    }
    drv_free(&r);
    close(fd);
}

#endif
