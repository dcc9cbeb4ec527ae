/* cli.h - the loomc command line: one function per subcommand, each in its
 * own cmd_<name>.c, dispatched from main.c. A subcommand returns the exit
 * status (LOOMC_OK, LOOMC_EUSER; internal errors exit 2 through LM_BUG). */
#ifndef LOOMC_CLI_H
#define LOOMC_CLI_H

#include "loomc.h"
#include "cli/opts.h"
#include "util/base.h"

typedef int (*cli_fn)(int argc, char **argv);

/* --json's errors (errors_json.c): between cli_json_begin, at the start of
 * a command that takes --json, and cli_json_end, at its return, every
 * diagnostic shown is kept; a failure then prints them as one JSON document
 * ("format": "loomc-error") on `to`, or an internal error does as it
 * happens. */
#define CLI_ERROR_JSON_VERSION 1
typedef struct cli_json_errors {
    lm_diag_listener listener; /* first: errors_json.c finds the struct from it */
    lm_diag_listener *prev;
    const char *cmd;
    json_t *diags;
    FILE *to;      /* the report's stream: stdout, or stderr when an output took stdout ('-') */
    bool on;       /* --json was given (json_id in the command line) */
    bool reported; /* the command's own JSON report was written: no error document */
} cli_json_errors;
void cli_json_begin(cli_json_errors *j, const cli_command *c, int argc, char **argv, int json_id);
/* Returns status. */
int cli_json_end(cli_json_errors *j, int status);

int cli_ir(int argc, char **argv);   /* cmd_ir.c */
int cli_arch(int argc, char **argv); /* cmd_arch.c */
int cli_sim(int argc, char **argv);  /* cmd_sim.c */
int cli_ast(int argc, char **argv);  /* cmd_ast.c */
int cli_bench(int argc, char **argv); /* cmd_bench.c */
int cli_compile(int argc, char **argv); /* cmd_compile.c */
int cli_calibrate(int argc, char **argv); /* cmd_calibrate.c */
int cli_run(int argc, char **argv);  /* cmd_run.c */
int cli_emit(int argc, char **argv); /* cmd_emit.c */

/* 'loomc run': the report of a finished run, as text or a JSON document
 * ("format": "loomc-run-report", docs/evaluation.md) (run_report.c). */
#define CLI_RUN_JSON_VERSION 1
void cli_run_report(lm_buf *b, const drv_result *r, const arch_desc *arch, const sched_run_result *res, bool json);

/* 'loomc compile': what it prints (compile_report.c). */
typedef struct cli_compile_out {
    drv_result *r;
    const arch_desc *arch;
    const char *path;                 /* KERNEL.py */
    const cli_kvs *shapes, *consts;   /* --shape, --const */
    const sched_plan *plan;
    const char *mzn_dir, *mzn_solver; /* --emit-mzn, --solver minizinc:ID (NULL: none) */
    const char *mzn_note;             /* the summary of the models written */
    double secs;                      /* compile_seconds */
    int64_t top;                      /* --top */
    bool explain;                     /* --explain */
} cli_compile_out;
/* The report, as text or one JSON object. */
void cli_compile_report(lm_buf *b, const cli_compile_out *c, bool json);
/* --emit-mzn: the candidates' problems as MiniZinc models in dir; a
 * one-line summary goes to *note. False after reporting. */
bool cli_compile_emit_models(drv_result *r, const arch_desc *arch, const char *kfile, const char *dir, lm_buf *note);

/* 'loomc sim': cmd_sim.c parses the options, reads, binds and validates the
 * program; cli_sim_execute (cmd_sim_run.c) runs it and reports. */
struct df_program;
struct arch_desc;
struct sim_cli_opts {
    const char *program_path; /* as given */
    const char *arch;         /* --arch NAME|FILE */
    bool check;               /* --check: compare outputs with the program's checks */
    const char *trace_path;   /* --trace FILE: Chrome/Perfetto trace (NULL: none) */
    bool json;                /* --json: the report as one JSON object */
    bool timing_only;         /* --timing-only: skip the arithmetic */
    bool exact_exp;           /* --exact-exp: exp in exact rather than approximate mode */
    const char *emit_dir;     /* --emit DIR: write the TT-Metalium program instead */
    const char *save_data;    /* --save-data DIR: the inputs and simulated outputs as files */
    lm_diag *diag;            /* knows the program's text, for run-time errors */
    cli_json_errors *json_errors; /* told when the JSON report is written */
};
/* Returns the exit status. */
int cli_sim_execute(const struct df_program *p, const struct arch_desc *a, const struct sim_cli_opts *o);

#endif
