# RUN: loomc ir %s --shape N=64
# EXPECT: : error: 2 launch specs (run, run2); choose one with --kernel NAME
# two launch specs and no --kernel
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N)


@loomc.launch
def run2(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(2,)](x, y, N)
