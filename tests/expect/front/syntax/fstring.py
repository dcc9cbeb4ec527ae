# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/fstring.py:6:21: error: f-strings are not supported
# an f-string
@triton.jit
def k(x_ptr):
    tl.static_print(f"x = {x_ptr}")
