# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/unterminated_string.py:6:21: error: unterminated string literal (detected at line 6)
# a string that runs into the end of its line
@triton.jit
def k(x_ptr):
    tl.static_print("pid is, tl.program_id(0))
