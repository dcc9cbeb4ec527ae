# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/missing_colon_if.py:6:12: error: expected ':' at the end of the 'if' line, found end of line
# an 'if' header without its colon
@triton.jit
def k(x_ptr, EVEN: tl.constexpr):
    if EVEN
        tl.store(x_ptr, 0.0)
