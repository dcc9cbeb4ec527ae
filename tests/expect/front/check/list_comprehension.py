# RUN: loomc ir %s --shape N=64
# EXPECT: :12:13: error: list comprehensions are not supported in loomc kernels
# a list comprehension evaluated in kernel code
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    sizes = [BLOCK * i for i in range(4)]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
