/* mzn.h - open models: a solver problem (solve.h) written as a MiniZinc
 * model, and solved by running the `minizinc` executable (Gecode by
 * default, any installed solver id otherwise), so that loomc's own
 * optimum can be checked by an independent solver, or replace it
 * (`loomc compile --solver minizinc`).
 *
 * Translation (docs/scheduler.md, "Open models (MiniZinc)"):
 *  - each variable is `var {d1, ...}: NAME`, tied to a position variable
 *    `loomc_pos_NAME` (its index in loomc's domain order, which is loomc's
 *    last tie-break); fixed symbols are `int: NAME = v;` (or in a data file);
 *  - each constraint is `constraint (E) <= 0;` with its name in a comment;
 *  - floordiv, mod and cdiv keep loomc's semantics exactly (floor division,
 *    Python's mod, ceiling division, any signs) through functions defined in
 *    the model, since MiniZinc's `div` truncates;
 *  - a non-linear subexpression of few variables becomes a table over their
 *    domain positions whose entries MiniZinc computes from the expression
 *    (Gecode propagates a table exactly, nested max/cdiv/products poorly);
 *  - the objective is `loomc_objective`, in loomc's unit (cycles), minimised
 *    by branch and bound over the positions.
 *
 * Integer range: Gecode's integers are 32-bit. Every subexpression's range
 * over the domains is computed; one that may leave the solver's range gets an
 * explicit domain clipped to it. That removes only assignments that are
 * provably infeasible (a constraint then exceeds 0) or provably worse than the
 * optimum found (the objective then exceeds a threshold the answer is checked
 * against); the model says which in its header. Where no such proof exists
 * the export fails with a message rather than being silently inexact.
 *
 * Lexicographic order: MiniZinc has one objective, so mzn_solve runs the
 * model for the optimum, then lists every assignment that reaches it and
 * ranks the list by the tie-breaks (as MiniZinc computes them where they fit
 * its integers, as loomc does otherwise) and the domain positions. When too
 * many assignments tie to list, it solves in stages instead - objective, each
 * tie-break, then the positions - packing consecutive keys into one weighted
 * stage objective only when the product of their ranges fits the solver's
 * integers, and fixing each stage's optimum before the next. Either way the
 * result is the same single assignment loomc's order defines.
 */
#ifndef LOOMC_MZN_H
#define LOOMC_MZN_H

#include "solve/solve.h"

/* Gecode's largest integer magnitude (Gecode::Int::Limits::max). */
#define MZN_GECODE_INT_MAX INT64_C(2147483646)

typedef struct mzn_options {
    int64_t int_max;        /* largest magnitude the solver holds; 0 = Gecode's */
    lm_buf *dzn;            /* if set, fixed symbols go here as a data file and the
                               model only declares them */
    const int64_t *known;   /* loomc's solution (nvars values), if known: the header then
                               states that it lies inside every explicit bound */
    int64_t known_objective;
    bool no_tables;         /* no tabulated subexpressions (tests of the operators) */
} mzn_options;

/* Write the model of p (primary objective, `solve minimize loomc_objective`;
 * the tie-breaks are listed in the header). header_comment (may be NULL or
 * several lines) is written first as `%` lines. Returns false with a reason
 * in why when the problem cannot be stated exactly (a symbol with no value, a
 * range that cannot be bounded soundly within the solver's integers). */
bool mzn_write_model(lm_buf *b, const solve_problem *p, const char *header_comment, const mzn_options *o,
                     lm_buf *why);

/* loomc's optimum in the exported model's unit (the models keep loomc's
 * unit: explicit bounds, never scaling, so this is the optimum itself). */
int64_t mzn_objective(const solve_problem *p, const mzn_options *o, int64_t loomc_optimum);

/* The MiniZinc identifier a loomc symbol gets in p's model ("depth.a" ->
 * "depth_a"; clashes with keywords, loomc_ names or other symbols get a
 * numeric suffix). NULL when the symbol is not in the model. */
const char *mzn_name(const solve_problem *p, const sym_expr *sym, lm_arena *ar);

typedef struct mzn_solve_options {
    const char *solver;    /* MiniZinc solver id; NULL = "gecode" */
    const char *minizinc;  /* executable; NULL = $LOOMC_MINIZINC or "minizinc" on PATH */
    int top_k;             /* solutions wanted (>= 1); each after the first is the best
                              assignment that differs from those before */
    int64_t int_max;       /* 0 = from the solver: Gecode's range, 2^60 for cp-sat */
    bool staged;           /* reach loomc's order in stages even with Gecode (the way
                              used for other solvers, which may not follow the search
                              annotation) */
    bool no_tables;        /* no tabulated subexpressions (tests of the operators) */
} mzn_solve_options;

typedef struct mzn_report {
    int runs;              /* minizinc invocations */
    int stages;            /* stages of the lexicographic solve of the first solution */
    int clipped;           /* subexpressions with an explicit bound */
    int ranked;            /* tied assignments listed by minizinc and ranked by loomc, for
                              tie-breaks beyond the solver's integers */
} mzn_report;

/* Solve p with MiniZinc. Same result as solve_run (solutions best first in
 * loomc's order, objective and tie-breaks evaluated by loomc at the values).
 * SOLVE_ERROR with a reason in why when minizinc is missing, the solver id is
 * unknown, minizinc fails, or the answer cannot be certified exact. An
 * assignment at which loomc would fail to evaluate (a division by zero)
 * counts as infeasible in the model. */
solve_status mzn_solve(const solve_problem *p, const mzn_solve_options *o, solve_solution *out, int *nout,
                       mzn_report *rep, lm_buf *why);

/* Run minizinc on a model text with the given solver and extra arguments
 * (NULL-terminated, may be NULL); stdout into out. Returns false with a
 * reason (not found, unknown solver, minizinc's error) in why. */
bool mzn_run(const char *model, const char *solver, const char *minizinc, const char *const *args, lm_buf *out,
             lm_buf *why);

/* A model that evaluates each expression at the values in env (all symbols
 * given; as solver variables with one value when as_vars, else as fixed
 * parameters) and prints `loomc-eval v1 v2 ...`: tests of the translation. */
bool mzn_write_eval(lm_buf *b, const sym_expr *const *exprs, int n, const sym_env *env, bool as_vars,
                    lm_buf *why);

#endif
