# RUN: loomc ir %s --shape N=64
# EXPECT: :15:12: error: size 'M' of launch spec 'run' has no value; pass --shape M=...
# a size without a value
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass


@loomc.launch
def run(N, M):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N)
