# RUN: loomc ir %s --shape N=64
# EXPECT: :11:9: error: operator '*' cannot be applied to a pointer to f32
# multiplying a pointer
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    p = x_ptr * 2


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
