# RUN: loomc ir %s --shape N=64
# EXPECT: :11:33: error: the end of tl.static_range must be a compile-time integer, got an i32 scalar
# tl.static_range with a run-time bound
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    for i in tl.static_range(0, N):
        pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
