# RUN: loomc ir %s --shape N=64
# EXPECT: :18:5: error: calling 'k' without a grid is not a launch; write k[grid](...)
# calling a kernel without a grid
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
    k(x, y, N)
