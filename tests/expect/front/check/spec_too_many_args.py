# RUN: loomc ir %s --shape N=64
# EXPECT: :18:26: error: kernel k takes 4 parameters, but the launch passes 5 positional arguments
# more positional arguments than parameters
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
    k[(1,)](x, y, N, 16, 3)
