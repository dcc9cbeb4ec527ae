# RUN: loomc ir %s --shape N=64
# EXPECT: :18:8: error: free constexpr 'BLOCK' has no value here, but '**' needs one (pin it with --const BLOCK=...)
# a free constexpr where a value is needed
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
    k[(BLOCK ** 2,)](x, y, N)
