# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/mismatched_bracket.py:6:56: error: closing ')' does not match opening '['
# a list closed with a parenthesis
@triton.jit
def k(d_ptr, M, N):
    desc = tl.make_tensor_descriptor(d_ptr, shape=[M, N), strides=[N, 1],
                                     block_shape=[64, 64])
