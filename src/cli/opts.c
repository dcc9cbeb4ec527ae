/* opts.c - option parsing helpers shared by the subcommands. */
#include "cli.h"

#include <string.h>

bool cli_opt(int argc, char **argv, int *i, const char *name, const char **val, bool *err)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return false;
    if (a[n] == '=') {
        *val = a + n + 1;
        return true;
    }
    if (a[n] != 0)
        return false;
    if (*i + 1 >= argc) {
        fprintf(stderr, "loomc: error: option '%s' needs a value\n", name);
        *err = true;
        return true;
    }
    *val = argv[++*i];
    return true;
}

bool cli_flag(char **argv, int i, const char *name) { return strcmp(argv[i], name) == 0; }

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "loomc %s: error: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'loomc %s --help')\n", cmd);
}
