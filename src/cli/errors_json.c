/* errors_json.c - a failed command's diagnostics as a JSON document, for
 * the commands that take --json (compile, run, sim, arch, bench): besides
 * the messages on stderr, standard output (or the stream the command's
 * report would have used) gets one document with "format": "loomc-error",
 * the exit status and every diagnostic the user was shown, in order
 * (docs/hacking.md, "JSON"). Internal errors too: they are heard just
 * before the process exits 2. A command whose own JSON report was written
 * (a run whose check failed) prints no second document. */
#include "cli/cli.h"
#include "util/json.h"

#include <stdlib.h>
#include <string.h>

/* the listener is the struct's first member */
static cli_json_errors *of(lm_diag_listener *l) { return (cli_json_errors *)(void *)l; }

static json_t *diag_json(const char *file, int line, int col, const char *severity, const char *msg)
{
    json_t *o = lm_json_obj();
    lm_json_set(o, "file", lm_json_string(file));
    lm_json_set(o, "line", line > 0 ? lm_json_int(line) : json_null());
    lm_json_set(o, "col", col > 0 ? lm_json_int(col) : json_null());
    lm_json_set(o, "severity", lm_json_string(severity));
    lm_json_set(o, "message", lm_json_string(msg));
    return o;
}

static void heard(lm_diag_listener *l, const char *kind, lm_loc loc, const char *msg)
{
    /* a place with a line but no column is shown at column 1 */
    int col = loc.line > 0 && loc.col <= 0 ? 1 : loc.col;
    lm_json_push(of(l)->diags, diag_json(loc.file, loc.line, col, kind, msg));
}

static void print_doc(cli_json_errors *j, int status)
{
    json_t *d = lm_json_doc("loomc-error", CLI_ERROR_JSON_VERSION);
    lm_json_set(d, "command", lm_json_string(j->cmd));
    lm_json_set(d, "exit_status", lm_json_int(status));
    lm_json_set(d, "diagnostics", json_incref(j->diags));
    lm_buf b = {0};
    lm_json_write(&b, d);
    json_decref(d);
    fflush(stdout);
    fputs(lm_buf_str(&b), j->to);
    fflush(j->to);
    lm_buf_free(&b);
}

static void bug(lm_diag_listener *l, const char *file, int line, const char *msg)
{
    cli_json_errors *j = of(l);
    lm_json_push(j->diags, diag_json(file, line, 0, "internal", msg));
    if (!j->reported)
        print_doc(j, LOOMC_EINTERNAL);
}

void cli_json_begin(cli_json_errors *j, const cli_command *c, int argc, char **argv, int json_id)
{
    memset(j, 0, sizeof *j);
    j->cmd = c->name;
    j->to = stdout;
    j->on = cli_table_given(c, argc, argv, json_id);
    if (j->on) {
        j->listener = (lm_diag_listener){heard, bug};
        j->diags = lm_json_arr();
        j->prev = lm_diag_listen_swap(&j->listener);
    }
    /* fault injection for the tests of how an internal error is reported */
    const char *e = getenv("LOOMC_TEST_BUG");
    if (e && !strcmp(e, c->name))
        LM_BUG("LOOMC_TEST_BUG=%s: an internal error on request", c->name);
}

int cli_json_end(cli_json_errors *j, int status)
{
    if (!j->on)
        return status;
    lm_diag_listen_swap(j->prev);
    if (status != LOOMC_OK && !j->reported)
        print_doc(j, status);
    json_decref(j->diags);
    return status;
}
