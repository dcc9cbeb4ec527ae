# RUN: loomc ir %s --shape N=64,Q=3
# EXPECT: --shape names 'Q', which is not a size of launch spec 'run' (its sizes: N)
# --shape naming something that is not a size
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
