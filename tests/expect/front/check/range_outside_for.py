# RUN: loomc ir %s --shape N=64
# EXPECT: :11:9: error: tl.range() is only supported as the iterable of a for loop
# tl.range used as a value
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    r = tl.range(0, 4)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
