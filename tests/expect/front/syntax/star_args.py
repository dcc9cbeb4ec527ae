# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/star_args.py:5:14: error: '*strides' parameters are not supported
# a '*args' parameter
@triton.jit
def k(x_ptr, *strides):
    pass
