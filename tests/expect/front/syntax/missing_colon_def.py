# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/missing_colon_def.py:5:34: error: expected ':' at the end of the 'def' line, found end of line
# a 'def' header without its colon
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr)
    pass
