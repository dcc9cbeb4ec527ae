# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/eof_in_block.py:6:5: error: expected an indented block after 'for' statement on line 6
# the file ends right after a block is opened
@triton.jit
def k(x_ptr):
    for i in range(4):
