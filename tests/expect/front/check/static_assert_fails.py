# RUN: loomc ir %s --shape N=64
# EXPECT: :11:5: error: static assertion failed: BLOCK must be a multiple of 32
# a static assertion that fails
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N, BLOCK=48)
