/* ast.h - the syntax tree of the Python subset loomc reads: Triton kernels
 * (`@triton.jit` functions) and launch specs (`@loomc.launch` functions) in
 * the same file. The lexer (lex.c) and parser (parse.c) build it; the
 * checker (check.c) and the launch-spec reader (launch.c) consume it.
 *
 * The tree is purely syntactic: no name resolution, no types. Every node has
 * the location of its first token. All memory comes from the arena passed
 * to fe_parse.
 */
#ifndef LOOMC_AST_H
#define LOOMC_AST_H

#include "util/base.h"

/* ---- tokens (lex.c) ---------------------------------------------------- */

typedef enum fe_tok_kind {
    FE_T_EOF,
    FE_T_NEWLINE,
    FE_T_INDENT,
    FE_T_DEDENT,
    FE_T_NAME,   /* identifiers and keywords (keywords are checked by text) */
    FE_T_INT,    /* integer literal; value in .ival */
    FE_T_FLOAT,  /* float literal; value in .fval */
    FE_T_STRING, /* string literal; contents (escapes decoded) in .text */
    FE_T_OP,     /* operator or delimiter; spelling in .text */
} fe_tok_kind;

typedef struct fe_token {
    fe_tok_kind kind;
    const char *text; /* spelling (NAME, OP) or decoded contents (STRING) */
    int64_t ival;
    double fval;
    lm_loc loc;
} fe_token;

typedef struct fe_tokens {
    fe_token *t;
    int n;
} fe_tokens;

/* Tokenise Python source with its indentation rules. Reports errors through
 * d and returns false on failure. */
bool fe_lex(const char *file, const char *src, size_t len, lm_arena *a, lm_diag *d, fe_tokens *out);
/* Python's keywords (names the parser does not take as identifiers). */
bool fe_is_keyword(const char *s);
/* How a token reads in "expected X, found Y": "end of line", "name 'x'". */
const char *fe_token_describe(const fe_token *t, lm_arena *a);

/* ---- expressions --------------------------------------------------------- */

typedef struct fe_expr fe_expr;
typedef struct fe_stmt fe_stmt;

typedef enum fe_expr_kind {
    FE_E_NAME,      /* name */
    FE_E_INT,       /* ival */
    FE_E_FLOAT,     /* fval */
    FE_E_STR,       /* str; ival 1: an f-string, its text as written */
    FE_E_BOOL,      /* ival 0/1: True, False */
    FE_E_NONE,      /* None */
    FE_E_ELLIPSIS,  /* ... */
    FE_E_ATTR,      /* a.name */
    FE_E_CALL,      /* a(args..., kw=...) */
    FE_E_SUBSCRIPT, /* a[items] ; items may be slices, None, ... */
    FE_E_SLICE,     /* lo:hi:step (each may be NULL); only inside a subscript */
    FE_E_TUPLE,     /* (items) or bare a, b */
    FE_E_LIST,      /* [items]; ival 1: a list comprehension, read past and never evaluated */
    FE_E_BINOP,     /* a op b: + - * / // % ** @ & | ^ << >> */
    FE_E_UNOP,      /* op a: - + ~ not */
    FE_E_COMPARE,   /* a op b (chains are split into `and`s by the parser) */
    FE_E_BOOLOP,    /* a and b, a or b */
    FE_E_IFEXP,     /* a if cond else b: items[0]=a, cond=b... see fields */
    FE_E_LAMBDA,    /* lambda params: body (only parsed so it can be rejected) */
    FE_E_DICT,      /* {k: v, ...}: items hold keys and values alternately (decorator
                       arguments such as triton.Config({...}); never evaluated) */
} fe_expr_kind;

typedef struct fe_keyword {
    const char *name;
    fe_expr *value;
    lm_loc loc;
} fe_keyword;

struct fe_expr {
    fe_expr_kind kind;
    lm_loc loc;
    const char *name; /* NAME, ATTR (attribute name) */
    const char *str;  /* STR */
    const char *op;   /* BINOP, UNOP, COMPARE, BOOLOP spelling: "+", "not", "<=", "and", ... */
    int64_t ival;
    double fval;
    fe_expr *a, *b, *c; /* operands: ATTR/CALL/SUBSCRIPT base in a; BINOP a,b;
                           UNOP a; IFEXP a if b else c; SLICE lo=a hi=b step=c */
    fe_expr **items;    /* CALL positional args, SUBSCRIPT indices, TUPLE/LIST items */
    int nitems;
    fe_keyword *kws;    /* CALL keyword arguments */
    int nkws;
};

/* ---- statements ---------------------------------------------------------- */

typedef enum fe_stmt_kind {
    FE_S_EXPR,     /* value */
    FE_S_ASSIGN,   /* targets = value (target may be a TUPLE for unpacking; chains give several targets) */
    FE_S_AUGASSIGN,/* target op= value; op without '=' */
    FE_S_ANNASSIGN,/* target: annotation (= value) */
    FE_S_IF,       /* if cond: body elif/else: orelse (elif is a nested IF in orelse) */
    FE_S_FOR,      /* for target in iter: body */
    FE_S_WHILE,    /* parsed so it can be rejected with a clear message */
    FE_S_RETURN,   /* return value? */
    FE_S_PASS,
    FE_S_BREAK,
    FE_S_CONTINUE,
    FE_S_DEF,      /* a function: fn */
    FE_S_IMPORT,   /* import / from-import: recorded, names in `names` */
    FE_S_ASSERT,   /* assert value(, msg) */
    FE_S_OTHER,    /* anything else the parser recognised only to reject (class, with, try, ...): keyword in `keyword` */
} fe_stmt_kind;

typedef struct fe_param {
    const char *name;
    fe_expr *annotation; /* may be NULL */
    fe_expr *deflt;      /* may be NULL */
    lm_loc loc;
} fe_param;

typedef struct fe_func {
    const char *name;
    lm_loc loc;
    fe_expr **decorators; /* e.g. triton.jit, triton.jit(...), loomc.launch */
    int ndecorators;
    fe_param *params;
    int nparams;
    fe_expr *returns;     /* `-> annotation` or NULL */
    fe_stmt **body;
    int nbody;
    /* parameters host code uses and kernels may not (`*args`, `**kw`, a bare
       `*` or `/`): read past, and refused where the function is a kernel, a
       helper or a launch spec (fe_func_check); NULL if none */
    const char *refusal;
    lm_loc refusal_loc;
} fe_func;

typedef struct fe_import {
    const char *module; /* dotted: "triton.language" */
    const char *name;   /* for `from m import name`; NULL for `import m` */
    const char *alias;  /* `as alias` or NULL */
} fe_import;

struct fe_stmt {
    fe_stmt_kind kind;
    lm_loc loc;
    fe_expr **targets; /* ASSIGN targets, AUGASSIGN/ANNASSIGN/FOR target in targets[0] */
    int ntargets;
    fe_expr *value;    /* EXPR, ASSIGN, AUGASSIGN, ANNASSIGN (may be NULL), RETURN (may be NULL), ASSERT */
    fe_expr *annotation; /* ANNASSIGN */
    const char *op;    /* AUGASSIGN: "+", "-", ... */
    fe_expr *cond;     /* IF, WHILE */
    fe_expr *iter;     /* FOR */
    fe_stmt **body;    /* IF, FOR, WHILE, DEF-less blocks */
    int nbody;
    fe_stmt **orelse;  /* IF else branch (elif: one nested IF) */
    int norelse;
    fe_func *fn;       /* DEF */
    fe_import *imports;/* IMPORT */
    int nimports;
    const char *keyword; /* OTHER: "class", "with", "try", "lambda", "global", ... */
    fe_expr *msg;        /* ASSERT message or NULL */
};

/* A parsed file: its top-level statements in order. */
typedef struct fe_module {
    const char *file;
    fe_stmt **body;
    int nbody;
} fe_module;

/* Parse a whole file. Reports errors through d (file:line:col, naming the
 * construct) and returns NULL on failure. Limits (docs/limits.md): nesting
 * depth FE_MAX_DEPTH, identifier length FE_MAX_IDENT, tokens per file
 * FE_MAX_TOKENS (fe_lex), parameters per function FE_MAX_PARAMS, arguments
 * per call FE_MAX_ARGS, top-level functions per file FE_MAX_FUNCS. They keep
 * memory proportional to the file and every pass over the tree fast: checks
 * for repeated names are quadratic in the parameters and arguments. */
enum {
    FE_MAX_DEPTH = 64,
    FE_MAX_IDENT = 255,
    FE_MAX_TOKENS = 1000000,
    FE_MAX_PARAMS = 255,
    FE_MAX_ARGS = 255,
    FE_MAX_FUNCS = 256,
};
fe_module *fe_parse(const char *file, const char *src, size_t len, lm_arena *a, lm_diag *d);

/* Print the tree as stable S-expression text (tests and `loomc ir --ast`). */
void fe_dump(lm_buf *b, const fe_module *m);

#endif
