# RUN: loomc ir %s --shape M=4
# EXPECT: tests/expect/front/syntax/star_args.py:10:14: error: '*strides' parameters are not supported
# a '*args' parameter of a kernel (a host function may have one)
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, *strides):
    pass


def host_wrapper(x, *shape, **kw):
    return x.view(*shape, **kw)


@loomc.launch
def run(M):
    x = loomc.tensor((M,), tl.float32)
    k[(1,)](x)
