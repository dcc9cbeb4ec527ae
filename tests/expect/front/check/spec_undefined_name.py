# RUN: loomc ir %s --shape N=64
# EXPECT: :18:8: error: name 'G' is not defined in launch spec 'run'
# an undefined name in a launch spec
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
    k[(G,)](x, y, N)
