# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/positional_after_keyword.py:7:46: error: positional argument follows keyword argument
# a positional argument after a keyword argument
@triton.jit
def k(x_ptr, n):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs, mask=offs < n, 0.0)
