/* opts.h - option parsing shared by the loomc subcommands: the generic
 * `--name VALUE` reader, usage errors, and the options every command that
 * reads a kernel takes (KERNEL.py, --shape, --const, --kernel, --arch), so
 * that ir, compile and run accept and reject them the same way with the
 * same messages. */
#ifndef LOOMC_CLI_OPTS_H
#define LOOMC_CLI_OPTS_H

#include "arch/arch.h"
#include "driver/driver.h"
#include "util/base.h"

/* True when argv[*i] is `--name VALUE` or `--name=VALUE`; sets *val and
 * advances *i past a separate value. Reports a missing value (sets *err). */
bool cli_opt(int argc, char **argv, int *i, const char *name, const char **val, bool *err);
bool cli_flag(char **argv, int i, const char *name);
/* "loomc CMD: error: ..." and a pointer to the command's --help. */
void cli_usage_error(const char *cmd, const char *fmt, ...) LM_PRINTF(2, 3);
/* "loomc CMD: error: ..." (through lm_diag), for errors that are not usage errors. */
void cli_error(const char *cmd, const char *fmt, ...) LM_PRINTF(2, 3);

typedef LM_VEC(fe_kv) cli_kvs;

enum {
    CLI_KV_NAMES = 1,      /* every NAME must be an identifier */
    CLI_KV_LATER_WINS = 2, /* a NAME given again overrides (else an error) */
};
/* NAME=N[,NAME=N...] (N an integer, True or False) appended to v; names are
 * copied into a. False after reporting a usage error of command cmd. */
bool cli_parse_kvs(const char *cmd, const char *opt, const char *text, unsigned flags, cli_kvs *v, lm_arena *a);
/* An integer in [lo, hi]; false after reporting a usage error. */
bool cli_parse_count(const char *cmd, const char *opt, const char *val, int64_t lo, int64_t hi, int64_t *out);
/* --fidelity's help where a command chooses the default itself (compile, run). */
#define CLI_FIDELITY_HELP \
    "matrix-engine fidelity: LoFi, HiFi2, HiFi3, HiFi4 (default:\n" \
    "TTNN's rule, HiFi2, or LoFi when both inputs are block-float)"

/* --fidelity LoFi|HiFi2|HiFi3|HiFi4 and --format bf16|bfp8_b|bfp4_b (the
 * storage formats of DRAM tensors; fp32 is not one); false after reporting. */
bool cli_parse_fidelity(const char *cmd, const char *val, arch_fidelity *out);
bool cli_parse_format(const char *cmd, const char *val, arch_format *out);

/* The kernel, the launch spec's values and the chip of a kernel command. */
typedef struct cli_kernel_opts {
    const char *cmd;         /* the subcommand, for messages */
    const char *arch_needed; /* the message when --arch is missing; NULL: no --arch option */
    const char *path;        /* KERNEL.py */
    const char *kernel;      /* --kernel */
    const char *arch;        /* --arch NAME|FILE */
    cli_kvs shapes, consts;  /* --shape, --const */
    LM_VEC(const char *) includes; /* --include DIR, in order */
    lm_arena *arena;         /* holds the parsed names */
    const struct cli_command *table; /* the command's options, for "did you mean" (NULL: none) */
} cli_kernel_opts;

typedef enum cli_take {
    CLI_OTHER, /* not one of these options: the command's own, or unknown */
    CLI_TAKEN, /* taken (and *i advanced past its value) */
    CLI_BAD,   /* one of these options, wrong; reported */
} cli_take;

/* How reading a command's whole command line ended. */
typedef enum cli_read_status {
    CLI_READ_OK,   /* read and checked: the work can start */
    CLI_READ_HELP, /* --help was printed */
    CLI_READ_BAD,  /* a usage error, reported */
} cli_read_status;

void cli_kernel_opts_init(cli_kernel_opts *k, const char *cmd, const char *arch_needed, lm_arena *a);
/* argv[*i] as --shape, --const, --kernel or (when the command takes it) --arch. */
cli_take cli_kernel_opt(cli_kernel_opts *k, int argc, char **argv, int *i);
/* An argument no option took: an unknown option, or the kernel file (only
 * one). False after reporting. */
bool cli_kernel_arg(cli_kernel_opts *k, const char *arg);
/* After the arguments: the kernel file (and --arch) given? Reports. */
bool cli_kernel_complete(const cli_kernel_opts *k);
/* The driver's options for this kernel (pointing into k). */
void cli_kernel_drv_opts(const cli_kernel_opts *k, drv_opts *o);
void cli_kernel_opts_free(cli_kernel_opts *k);

/* ---- output paths (outpath.c) -----------------------------------------------
 * Every option that names a file to write takes '-' for standard output, and
 * every output path is checked before the work starts. Errors are "loomc CMD:
 * error: cannot write 'PATH': REASON". */

/* The path is '-' (standard output). */
bool cli_is_stdout(const char *path);
/* Whether a file can be written at path (NULL and '-' can); false after
 * reporting. Leaves no file behind and truncates none. */
bool cli_output_check(const char *cmd, const char *path);
/* Whether a folder at path exists or can be made, to write files in (NULL
 * can); '-' is a usage error of option opt. False after reporting. */
bool cli_output_dir_check(const char *cmd, const char *opt, const char *path);
/* The file at path opened for writing, or stdout for '-'; NULL after
 * reporting. */
FILE *cli_output_open(const char *cmd, const char *path);
/* Close what cli_output_open opened (stdout is flushed, not closed); false
 * after reporting a write error. */
bool cli_output_close(const char *cmd, const char *path, FILE *f);
/* text written to path ('-': stdout); false after reporting. */
bool cli_output_write(const char *cmd, const char *path, const char *text);

/* ---- option tables ---------------------------------------------------------
 * Each command declares its options once, in a table that drives both the
 * parsing of its command line and its --help text: a row per option (its
 * name, kind, the value's name, the default, the range of a count, the help
 * column), in help order, between free text before and after. */

typedef enum cli_kind {
    CLI_FLAG,    /* --name */
    CLI_VALUE,   /* --name VALUE or --name=VALUE */
    CLI_COUNT,   /* a value: an integer in [lo, hi] */
    CLI_SHARED,  /* parsed by cli_kernel_opt (--arch, --shape, --const, --kernel); help only */
    CLI_MORE,    /* another help row of the option above (one per documented value) */
} cli_kind;

typedef struct cli_option {
    const char *name;    /* "--limit" */
    cli_kind kind;
    int id;              /* the command's own (0: --help) */
    const char *arg;     /* the value in the help: "N", "DIR" (NULL: none) */
    const char *dflt;    /* the default value (NULL: none) */
    int64_t lo, hi;      /* CLI_COUNT */
    const char *help;    /* the help column; '\n' continues it on the next line, %N is dflt_n */
    int64_t dflt_n;      /* a default the help quotes from a constant */
} cli_option;

typedef struct cli_command {
    const char *name;    /* "calibrate": for messages */
    const char *before;  /* the help text before the options (usage, what it does) */
    int column;          /* where the help column starts */
    const cli_option *opts;
    int nopts;
    const char *after;   /* the help text after the options */
} cli_command;

/* The --help text of a command. */
void cli_help_print(FILE *f, const cli_command *c);
/* argv[*i] as one of c's own options (CLI_FLAG, CLI_VALUE, CLI_COUNT): sets
 * *opt and *val (NULL for a flag; a count in *count) and advances *i past a
 * separate value. CLI_BAD after reporting a missing value or a count out of
 * range; CLI_OTHER when no row names it. */
cli_take cli_table_opt(const cli_command *c, int argc, char **argv, int *i, const cli_option **opt, const char **val,
                       int64_t *count);
/* An unknown option of c ("unknown WHAT 'ARG'"): the usage error, with the
 * closest option's name when one is near. */
void cli_unknown_option(const cli_command *c, const char *arg, const char *what);
/* The row of c with this id (NULL: none). */
const cli_option *cli_table_row(const cli_command *c, int id);
/* Whether the option of c with this id is on the command line, before it
 * is read (the values of the options before it skipped as reading would). */
bool cli_table_given(const cli_command *c, int argc, char **argv, int id);

#endif
