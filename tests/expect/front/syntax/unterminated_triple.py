# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/unterminated_triple.py:6:5: error: unterminated triple-quoted string literal (detected at line 8)
# a docstring that is never closed
@triton.jit
def k(x_ptr):
    """Copy a block.

    pid = tl.program_id(0)
