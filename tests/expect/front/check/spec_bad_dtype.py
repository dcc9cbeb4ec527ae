# RUN: loomc ir %s --shape N=64
# EXPECT: :16:30: error: dtype tl.float8e5 is not supported
# a tensor of an unsupported dtype
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float8e5)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N)
