# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/eof_in_expression.py:6:12: error: expected an expression, found end of line
# the file ends inside a binary expression
@triton.jit
def k(x_ptr):
    y = 1 +