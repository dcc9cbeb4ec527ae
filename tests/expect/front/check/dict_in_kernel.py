# RUN: loomc ir %s --shape N=64
# EXPECT: :12:11: error: dict displays are not supported in loomc kernels
# a dict display evaluated in kernel code
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    cfg = {"scale": 2.0}
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
