# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/else_without_if.py:8:1: error: 'else' without a matching 'if'
# an 'else' whose 'if' is at another indentation
@triton.jit
def k(x_ptr, EVEN: tl.constexpr):
    if EVEN:
        x = 1
else:
    x = 2
