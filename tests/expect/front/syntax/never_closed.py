# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/never_closed.py:6:16: error: '(' was never closed
# a call whose parenthesis is never closed
@triton.jit
def k(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 64)
    tl.store(x_ptr, x)
