# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/unexpected_indent.py:5:5: error: unexpected indent
# an indented statement where no block was opened
import triton
    import triton.language as tl
