/* cmd_ast.c - 'loomc ast FILE.py': print the syntax tree the front end
 * builds from a Python file (fe_dump's S-expressions), for debugging the
 * lexer and parser and for golden tests of them. */
#include "cli/cli.h"
#include "front/ast.h"

#include <stdlib.h>
#include <string.h>

enum { T_HELP };

static const cli_option ast_opts[] = {
    {"--help", CLI_FLAG, T_HELP, NULL, NULL, 0, 0, "show this text", 0},
    {"-h", CLI_FLAG, T_HELP, NULL, NULL, 0, 0, NULL, 0},
};

static const cli_command ast_cmd = {
    "ast",
    "usage: loomc ast FILE.py\n\n"
    "Parse FILE.py (Triton kernels and launch specs) and print its syntax tree as\n"
    "S-expressions, one statement per line. Nothing is checked beyond syntax:\n"
    "this shows what the parser understood, not whether loomc can compile it.\n\n"
    "options:\n",
    12, ast_opts, (int)LM_COUNT(ast_opts),
    "\n"
    "exit status: 0 when the file parses, 1 on a syntax error (reported as\n"
    "FILE:LINE:COL: error: ...), 2 on an internal error.\n"};

int cli_ast(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const cli_option *o = NULL;
        const char *v = NULL;
        int64_t n = 0;
        if (cli_table_opt(&ast_cmd, argc, argv, &i, &o, &v, &n) == CLI_TAKEN) {
            cli_help_print(stdout, &ast_cmd);
            return LOOMC_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != 0) {
            cli_unknown_option(&ast_cmd, argv[i], "option");
            return LOOMC_EUSER;
        }
        if (path) {
            cli_usage_error("ast", "expected one input file, got '%s' and '%s'", path, argv[i]);
            return LOOMC_EUSER;
        }
        path = argv[i];
    }
    if (!path) {
        cli_usage_error("ast", "missing the input file");
        return LOOMC_EUSER;
    }

    char why[512];
    size_t len = 0;
    lm_diag d;
    lm_diag_init(&d, stderr);
    char *src = lm_read_file(path, &len, why, sizeof why);
    if (!src) {
        lm_error_plain(&d, "%s", why);
        return LOOMC_EUSER;
    }
    lm_diag_add_source(&d, path, src, len);
    lm_arena a;
    lm_arena_init(&a);

    int rc = LOOMC_EUSER;
    fe_module *m = fe_parse(path, src, len, &a, &d);
    if (m && d.nerrors == 0) {
        lm_buf b = {0};
        fe_dump(&b, m);
        fputs(lm_buf_str(&b), stdout);
        lm_buf_free(&b);
        rc = LOOMC_OK;
    }
    lm_arena_free(&a);
    free(src);
    return rc;
}
