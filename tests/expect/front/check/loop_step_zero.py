# RUN: loomc ir %s --shape N=64
# EXPECT: :11:26: error: the step of a loop must not be zero
# a loop whose step is zero
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    for i in range(0, 8, 0):
        pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
