/* sym_int.h - what sym.c and sym_text.c share beyond sym.h: the canonical
 * form's reading of a product's coefficient, the division kinds, a vector
 * of operands. */
#ifndef LOOMC_SYM_INT_H
#define LOOMC_SYM_INT_H

#include "sym/sym.h"

typedef LM_VEC(const sym_expr *) exprvec;

static inline bool is_div(sym_kind k) { return k == SYM_FLOORDIV || k == SYM_CDIV || k == SYM_MOD; }

/* A canonical product with a constant coefficient: MUL[coef, ...]. */
static inline bool has_coef(const sym_expr *e)
{
    return e->kind == SYM_MUL && e->nargs >= 2 && e->args[0]->kind == SYM_CONST;
}

#endif
