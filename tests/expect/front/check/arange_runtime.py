# RUN: loomc ir %s --shape N=64
# EXPECT: :11:25: error: tl.arange bounds must be compile-time constants, got an i32 scalar for 'end'
# tl.arange with a run-time bound
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, N)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
