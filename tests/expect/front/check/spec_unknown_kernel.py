# RUN: loomc ir %s --shape N=64
# EXPECT: :18:5: error: unknown kernel 'nope'
# launching a kernel that does not exist
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
    nope[(1,)](x, y, N)
