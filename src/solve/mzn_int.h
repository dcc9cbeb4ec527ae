/* mzn_int.h - what the MiniZinc writer (mzn.c) and the runner and staged
 * solve (mzn_run.c) share: the table of a problem's subexpressions, its
 * context, and the writer's pieces the staged models are built from.
 * Internal to src/solve; the interface is mzn.h.
 */
#ifndef LOOMC_MZN_INT_H
#define LOOMC_MZN_INT_H

#include "solve/mzn.h"

typedef __int128 i128;

/* ---- the node table ----------------------------------------------------- */

typedef enum root_kind { ROOT_CONS, ROOT_KEY, ROOT_EVAL } root_kind;

typedef struct mnode {
    sym_kind kind;
    const sym_expr *sym; /* NULL for the prefix products of an n-ary product */
    int *args;
    int nargs;
    int64_t lo, hi;      /* sound interval over the domains (clamped at +-INF) */
    bool par;            /* no solver variable below: MiniZinc evaluates it */
    int var;             /* VAR: index of the problem variable, -1 if fixed */
    int sym_index;       /* VAR: index into the symbol names */
    bool big;            /* the interval leaves [-clip, clip] */
    bool hoist;          /* declared as its own variable */
    int64_t dlo, dhi;    /* declared domain of a hoisted node */
    int hid;             /* hoisted name loomc_h<hid> */
    /* clipping proof */
    bool cons_proof;     /* clipped assignments violate a constraint */
    int cert_key;        /* else: this key's value must stay below thresh */
    int64_t thresh;
    int first_key;       /* first key whose expression uses it; INT32_MAX none */
    bool in_cons;        /* used by a constraint */
    int nparents;
    int *parents;
    /* tabulation: a subexpression of few variables becomes a table over their
       domain positions, computed by MiniZinc from the expression itself */
    uint64_t mask;       /* problem variables below (nvars <= 64) */
    bool tab_safe;       /* finite range, no divisor that may be 0 below */
    int tab;             /* table id (loomc_t<tab>), -1 if none */
} mnode;

typedef struct msym {
    const sym_expr *sym;
    const char *name; /* MiniZinc identifier */
    int var;          /* problem variable index or -1 */
    int64_t value;    /* fixed value */
} msym;

typedef struct mroot {
    root_kind kind;
    int node;
    const char *name;     /* constraint name / key name */
    const sym_expr *expr;
} mroot;

typedef struct mctx {
    lm_arena ar;
    const solve_problem *p;
    const sym_env *env_fixed; /* for symbols not among the variables */
    int64_t lim;              /* the solver's largest magnitude */
    int64_t clip;             /* hoisted nodes are clipped to [-clip, clip] */
    LM_VEC(mnode) n;
    LM_VEC(msym) syms;
    LM_VEC(mroot) roots;
    int nkeys;
    int key_root[SOLVE_MAX_TIEBREAK + 1]; /* root index of each key */
    bool **reach;                         /* [root][node] */
    int nhoist;
    bool key_inexact[SOLVE_MAX_TIEBREAK + 1]; /* a tie-break ranked by loomc, not the solver */
    int64_t budget;
    bool tables;              /* tabulate subexpressions of few variables */
    int ntab;
    lm_buf *why;
    bool failed;
} mctx;

/* ---- mzn.c: the writer's pieces ------------------------------------------ */

void mzn_ctx_init(mctx *c, const solve_problem *p, int64_t lim, lm_buf *why);
void mzn_ctx_free(mctx *c);
bool mzn_ctx_build(mctx *c, bool keys_all);
void mzn_put_int(lm_buf *b, int64_t v);
/* Check the intermediates the division functions create (b*q) against the
 * solver's range, using the declared (possibly clipped) operand ranges. */
void mzn_check_division_temps(mctx *c);
/* Is node i in the model of a stage whose keys are 0..kmax? */
bool mzn_node_in_stage(mctx *c, int i, int kmax);
/* Domain position variables, fixed symbols, variables, hoisted nodes,
 * constraints, and the keys 0..kmax. */
void mzn_write_body(mctx *c, lm_buf *b, lm_buf *dzn, int kmax);
void mzn_key_range(mctx *c, int k, int64_t *lo, int64_t *hi);
/* The first key whose value may leave the solver's integers. */
int mzn_exact_keys(const mctx *c);
/* The solve item (minimise the objective, or satisfy). */
void mzn_write_solve(mctx *c, lm_buf *b, bool minimize);

#endif
