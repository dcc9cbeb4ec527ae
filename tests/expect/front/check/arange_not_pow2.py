# RUN: loomc ir %s --shape N=96
# EXPECT: :11:12: error: the length of tl.arange must be a power of 2, got 96
# tl.arange whose length is known and not a power of 2
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N, BLOCK=N)
