/* solve.h - loomc's exact solver: minimise a symbolic integer objective over
 * finite integer domains subject to symbolic constraints, by branch and
 * bound with sound interval bounds (sym_bounds). The scheduler builds one
 * problem per mapping candidate; nothing here knows about kernels or chips.
 *
 * Exactness: a subtree is pruned only when interval evaluation proves that
 * no completion can be feasible, or that every completion is worse than the
 * current k-th best. Ties on the objective are broken by the secondary
 * objectives in order (each minimised), then by the assignment in
 * lexicographic order of (variable order, domain order) - so the result is
 * deterministic and independent of search order.
 *
 * Effort is counted in nodes visited (deterministic, never wall-clock); when
 * the limit is hit the solver stops and says so, returning the best found.
 */
#ifndef LOOMC_SOLVE_H
#define LOOMC_SOLVE_H

#include "sym/sym.h"

enum { SOLVE_MAX_TIEBREAK = 5 };

/* Default effort limit. A GEMM-sized problem (six variables, ~800k
 * assignments) finishes in about ten thousand nodes; a node costs 0.05 to
 * 0.25 microseconds, so two million nodes is a tenth to half a second: far
 * beyond what a well-posed candidate needs, but it keeps a badly bounded
 * model from stalling the compiler. */
enum { SOLVE_DEFAULT_NODE_LIMIT = 2000000 };

typedef struct solve_var {
    const sym_expr *var;   /* a SYM_VAR */
    const int64_t *domain; /* candidate values in the order to try them */
    int ndomain;
} solve_var;

/* Feasible iff expr <= 0. */
typedef struct solve_constraint {
    const sym_expr *expr;
    const char *name; /* short, for explanations: "L1 capacity" */
} solve_constraint;

typedef struct solve_problem {
    solve_var *vars;
    int nvars;
    solve_constraint *cons;
    int ncons;
    const sym_expr *objective;                    /* minimised */
    const sym_expr *tiebreak[SOLVE_MAX_TIEBREAK]; /* minimised in order on ties */
    int ntiebreak;
    const sym_env *fixed; /* other symbols with known values (may be NULL) */
} solve_problem;

typedef struct solve_solution {
    int64_t *values; /* nvars values, heap-allocated by the solver */
    int64_t objective;
    int64_t tiebreak[SOLVE_MAX_TIEBREAK];
} solve_solution;

typedef struct solve_options {
    int top_k;            /* keep the k best (>= 1) */
    int64_t node_limit;   /* effort limit in search nodes (0 = default) */
    /* Check at every node that the solver's incremental interval bounds
     * equal sym_bounds over the whole expressions (slow; for tests). A
     * difference is a bug in loomc (LM_BUG). */
    bool verify_bounds;
} solve_options;

typedef enum solve_status {
    SOLVE_OPTIMAL,    /* the k best are proven */
    SOLVE_INFEASIBLE, /* no assignment satisfies the constraints */
    SOLVE_LIMIT,      /* effort limit hit; solutions are the best found */
    SOLVE_ERROR,      /* an expression could not be evaluated (see why) */
} solve_status;

typedef struct solve_stats {
    int64_t nodes;       /* search nodes visited */
    int64_t leaves;      /* complete assignments evaluated */
    int64_t pruned_bound;
    int64_t pruned_infeasible;
    /* Per constraint: how many complete or partial assignments it rejected
     * (for "no candidate could meet constraint X" messages). */
    int64_t *rejected_by; /* ncons entries, heap-allocated */
} solve_stats;

/* Solve. `out` receives up to top_k solutions, best first; *nout their count.
 * Free with solve_free_solutions / solve_free_stats. */
solve_status solve_run(const solve_problem *p, const solve_options *o, solve_solution *out, int *nout,
                       solve_stats *st, lm_buf *why);
/* Exhaustive enumeration of the same problem (tests, small problems). */
solve_status solve_exhaustive(const solve_problem *p, const solve_options *o, solve_solution *out, int *nout,
                              lm_buf *why);
void solve_free_solutions(solve_solution *s, int n);
void solve_free_stats(solve_stats *st);

#endif
