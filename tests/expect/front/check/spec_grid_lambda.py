# RUN: loomc ir %s --shape N=64
# EXPECT: :18:7: error: lambda is not supported in launch specs; write the grid as a tuple of expressions
# a lambda grid
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
    k[lambda meta: (tl.cdiv(N, meta['BLOCK']),)](x, y, N)
