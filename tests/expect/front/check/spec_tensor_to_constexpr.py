# RUN: loomc ir %s --shape N=64
# EXPECT: :18:22: error: constexpr parameter 'BLOCK' of kernel k gets tensor 'x'
# a tensor passed to a constexpr parameter
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
    k[(1,)](x, y, N, x)
