/* tir_ops.h - the one table of Tile IR operations.
 *
 * Every list the compiler keeps about ops (the opcode enum, the printed
 * names, operand-count checks in the verifier, the properties passes test)
 * is generated from this table, so adding an op is one line here plus its
 * type rule in tir_verify.c and, if it has attributes, its printer case.
 *
 *   X(ENUM, "printed name", min operands, max operands (-1: any),
 *     results (-1: variadic), properties)
 *
 * Properties (TIR_P_*, declared in tir.h):
 *   PURE      no side effect; may be removed when unused, hoisted, merged
 *   ELEM      elementwise: result shape is the (common) operand shape
 *   BINARY    elementwise with two operands of one type
 *   UNARY     elementwise with one operand
 *   CMP       comparison: result element type is i1
 *   INTONLY   integer (or i1) operands only
 *   FLOATONLY floating-point operands only
 *   READ      reads memory       WRITE  writes memory
 *   REDUCE    reduction over one axis (attribute `axis`)
 *   REGION    owns regions (structured control flow)
 *   TERM      terminator: must be the last op of its block
 *   HOIST     depends on nothing inside the function: materialised once, at
 *             the top of the body (constants, symbols, program ids)
 */
#ifndef LOOMC_TIR_OPS_H
#define LOOMC_TIR_OPS_H

#define TIR_OPS(X)                                                                 \
    /* scalars known before the program runs */                                    \
    X(PROGRAM_ID, "program_id", 0, 0, 1, PURE | HOIST)                             \
    X(NUM_PROGRAMS, "num_programs", 0, 0, 1, PURE | HOIST)                         \
    X(CONST, "const", 0, 0, 1, PURE | HOIST)                                       \
    X(SYM, "sym", 0, 0, 1, PURE | HOIST)                                           \
    /* tile creation and shape changes */                                         \
    X(ARANGE, "arange", 0, 0, 1, PURE)                                             \
    X(FULL, "full", 0, 0, 1, PURE)                                                 \
    X(SPLAT, "splat", 1, 1, 1, PURE)                                               \
    X(BROADCAST, "broadcast", 1, 1, 1, PURE)                                       \
    X(EXPAND_DIMS, "expand_dims", 1, 1, 1, PURE)                                   \
    X(VIEW, "view", 1, 1, 1, PURE)                                                 \
    X(TRANS, "trans", 1, 1, 1, PURE)                                               \
    X(CAST, "cast", 1, 1, 1, PURE | ELEM | UNARY)                                  \
    /* elementwise binary arithmetic */                                           \
    X(ADD, "add", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(SUB, "sub", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(MUL, "mul", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(DIV, "div", 2, 2, 1, PURE | ELEM | BINARY | FLOATONLY)                       \
    X(FLOORDIV, "floordiv", 2, 2, 1, PURE | ELEM | BINARY | INTONLY)               \
    X(MOD, "mod", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(MAX, "max", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(MIN, "min", 2, 2, 1, PURE | ELEM | BINARY)                                   \
    X(AND, "and", 2, 2, 1, PURE | ELEM | BINARY | INTONLY)                         \
    X(OR, "or", 2, 2, 1, PURE | ELEM | BINARY | INTONLY)                           \
    X(XOR, "xor", 2, 2, 1, PURE | ELEM | BINARY | INTONLY)                         \
    /* comparisons (result i1) */                                                 \
    X(CMP_EQ, "cmp_eq", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    X(CMP_NE, "cmp_ne", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    X(CMP_LT, "cmp_lt", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    X(CMP_LE, "cmp_le", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    X(CMP_GT, "cmp_gt", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    X(CMP_GE, "cmp_ge", 2, 2, 1, PURE | ELEM | BINARY | CMP)                       \
    /* elementwise unary */                                                       \
    X(NEG, "neg", 1, 1, 1, PURE | ELEM | UNARY)                                    \
    X(NOT, "not", 1, 1, 1, PURE | ELEM | UNARY | INTONLY)                          \
    X(ABS, "abs", 1, 1, 1, PURE | ELEM | UNARY)                                    \
    X(EXP, "exp", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                        \
    X(EXP2, "exp2", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                      \
    X(LOG, "log", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                        \
    X(LOG2, "log2", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                      \
    X(SQRT, "sqrt", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                      \
    X(RSQRT, "rsqrt", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                    \
    X(SIGMOID, "sigmoid", 1, 1, 1, PURE | ELEM | UNARY | FLOATONLY)                \
    X(WHERE, "where", 3, 3, 1, PURE | ELEM)                                        \
    /* reductions over `axis` */                                                  \
    X(REDUCE_MAX, "reduce_max", 1, 1, 1, PURE | REDUCE)                            \
    X(REDUCE_MIN, "reduce_min", 1, 1, 1, PURE | REDUCE)                            \
    X(REDUCE_SUM, "reduce_sum", 1, 1, 1, PURE | REDUCE)                            \
    /* matrix product: a, b (, acc) */                                            \
    X(DOT, "dot", 2, 3, 1, PURE)                                                   \
    /* integer scalar helpers */                                                  \
    X(CDIV, "cdiv", 2, 2, 1, PURE | INTONLY)                                       \
    /* pointers: base pointer + element offset */                                 \
    X(ADDPTR, "addptr", 2, 2, 1, PURE)                                             \
    /* block pointers: base, shape[r], strides[r], offsets[r] */                  \
    X(MAKE_BLOCK_PTR, "make_block_ptr", 1, -1, 1, PURE)                            \
    X(ADVANCE, "advance", 1, -1, 1, PURE)                                          \
    X(LOAD, "load", 1, 1, 1, READ)                                                 \
    X(STORE, "store", 2, 2, 0, WRITE)                                              \
    /* tensor descriptors: base, shape[r], strides[r] */                          \
    X(MAKE_DESC, "make_tensor_descriptor", 1, -1, 1, PURE)                         \
    X(DESC_LOAD, "desc_load", 1, -1, 1, READ)                                      \
    X(DESC_STORE, "desc_store", 2, -1, 0, WRITE)                                   \
    /* structured control flow */                                                 \
    X(FOR, "for", 3, -1, -1, REGION)                                               \
    X(IF, "if", 1, 1, -1, REGION)                                                  \
    X(YIELD, "yield", 0, -1, 0, TERM)                                              \
    X(RETURN, "return", 0, 0, 0, TERM)

#endif
