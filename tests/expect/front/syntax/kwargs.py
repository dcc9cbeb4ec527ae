# RUN: loomc ir %s --shape M=4,N=4
# EXPECT: tests/expect/front/syntax/kwargs.py:16:15: error: '**options' parameters are not supported
# a '**kwargs' parameter of a launch spec: host code has them, so the file
# parses, but the launch spec cannot take one
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, M):
    pass


@loomc.launch
def run(M, N, **options):
    x = loomc.tensor((M,), tl.float32)
    k[(1,)](x, M)
