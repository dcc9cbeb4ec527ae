# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/default_order.py:5:40: error: parameter 'n' without a default follows a parameter with a default
# a parameter without a default after one with a default
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr = 64, n):
    pass
