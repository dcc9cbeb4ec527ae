# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/stray_char.py:6:28: error: unexpected character '$'
# a character Python does not use
@triton.jit
def k(x_ptr):
    pid = tl.program_id(0) $ 2
