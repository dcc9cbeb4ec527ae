# RUN: loomc ir %s --shape N=64
# EXPECT: :18:5: error: 'for' loops are not supported in launch specs
# a loop in a launch spec
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
    for i in range(2):
        pass
    k[(1,)](x, y, N)
