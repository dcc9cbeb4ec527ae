/* arch_load.c - finding a hardware description: the search path, arch_load
 * (a name or a path) and arch_list (every description on the path).
 */
#define _GNU_SOURCE /* dladdr: where the library itself was loaded from */
#include "arch/arch.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* ---- lookup ---------------------------------------------------------- */

typedef LM_VEC(char *) strvec;

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* The first folder of descriptions walking up from the folder of `file`:
 * an arch/ beside it (the source tree's, above build/) or an installed
 * tree's share/loomc/arch (above bin/ or lib/). */
static void dirs_above(strvec *v, const char *file)
{
    static const char *const sub[] = {"arch", "share/loomc/arch"};
    char *dir = lm_find_above(file, sub, (int)LM_COUNT(sub), true);
    if (dir)
        LM_PUSH(v, dir);
}

/* The folders searched for NAME.yaml, in order. */
static void search_dirs(strvec *v)
{
    const char *env = getenv("LOOMC_ARCH_PATH");
    if (env) {
        const char *s = env;
        while (*s) {
            const char *e = strchr(s, ':');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            if (n) {
                char *dir = lm_xmalloc(n + 1);
                memcpy(dir, s, n);
                dir[n] = 0;
                LM_PUSH(v, dir);
            }
            s += n;
            if (*s == ':')
                s++;
        }
    }
    LM_PUSH(v, lm_xstrdup("arch"));
    /* the command's tree, then the shared library's (a program elsewhere
       linked with the installed libloomc.so) */
    char exe[4096];
    bool have_exe = lm_self_exe(exe, sizeof exe);
    if (have_exe)
        dirs_above(v, exe);
    Dl_info info;
    if (dladdr((void *)search_dirs, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
        (!have_exe || strcmp(info.dli_fname, exe)))
        dirs_above(v, info.dli_fname);
}

static void free_strvec(strvec *v)
{
    for (size_t i = 0; i < v->len; i++)
        free(v->items[i]);
    LM_VEC_FREE(v);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Names of NAME.yaml files on the search path, sorted, without repeats. */
static void available(strvec *names)
{
    strvec dirs = {0};
    search_dirs(&dirs);
    for (size_t i = 0; i < dirs.len; i++) {
        DIR *dp = opendir(dirs.items[i]);
        if (!dp)
            continue;
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (e->d_name[0] == '.' || !ends_with(e->d_name, ".yaml"))
                continue;
            char *nm = lm_xstrdup(e->d_name);
            nm[strlen(nm) - 5] = 0;
            LM_PUSH(names, nm);
        }
        closedir(dp);
    }
    free_strvec(&dirs);
    if (names->len)
        qsort(names->items, names->len, sizeof *names->items, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < names->len; i++) {
        if (k && !strcmp(names->items[k - 1], names->items[i]))
            free(names->items[i]);
        else
            names->items[k++] = names->items[i];
    }
    names->len = k;
}

int arch_list(lm_buf *b)
{
    strvec names = {0};
    available(&names);
    for (size_t i = 0; i < names.len; i++)
        lm_buf_printf(b, "%s\n", names.items[i]);
    int n = (int)names.len;
    free_strvec(&names);
    return n;
}

static arch_desc *load_file(const char *path, lm_diag *d)
{
    char why[512];
    size_t len;
    char *text = lm_read_file(path, &len, why, sizeof why);
    if (!text) {
        lm_error_plain(d, "%s", why);
        return NULL;
    }
    arch_desc *a = arch_parse(path, text, len, d);
    free(text);
    return a;
}

arch_desc *arch_load(const char *name_or_path, lm_diag *d)
{
    const char *s = name_or_path;
    if (strchr(s, '/') || ends_with(s, ".yaml") || ends_with(s, ".yml"))
        return load_file(s, d);
    if (!*s) {
        lm_error_plain(d, "empty hardware description name");
        return NULL;
    }
    strvec dirs = {0};
    search_dirs(&dirs);
    arch_desc *a = NULL;
    bool found = false;
    for (size_t i = 0; i < dirs.len && !found; i++) {
        char *p = lm_xmalloc(strlen(dirs.items[i]) + strlen(s) + 8);
        sprintf(p, "%s/%s.yaml", dirs.items[i], s);
        if (lm_is_file(p)) {
            found = true;
            a = load_file(p, d);
        }
        free(p);
    }
    free_strvec(&dirs);
    if (found)
        return a;
    strvec names = {0};
    available(&names);
    const char *near = lm_closest(s, (const char *const *)names.items, (int)names.len, LM_NEAR_KEY);
    if (near)
        lm_error_plain(d, "unknown hardware description '%s' (did you mean '%s'?)", s, near);
    else
        lm_error_plain(d, "unknown hardware description '%s'", s);
    lm_buf b = {0};
    for (size_t i = 0; i < names.len; i++)
        lm_buf_printf(&b, "%s%s", i ? ", " : "", names.items[i]);
    if (names.len)
        lm_note(d, (lm_loc){0}, "available descriptions: %s", lm_buf_str(&b));
    else
        lm_note(d, (lm_loc){0}, "no descriptions found; set LOOMC_ARCH_PATH to a folder of "
                                "NAME.yaml files or pass a path");
    lm_buf_free(&b);
    free_strvec(&names);
    return NULL;
}
