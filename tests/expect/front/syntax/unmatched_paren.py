# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/unmatched_paren.py:6:32: error: unmatched ')'
# a closing bracket with no opening one
@triton.jit
def k(x_ptr, n):
    mask = tl.arange(0, 64) < n)
