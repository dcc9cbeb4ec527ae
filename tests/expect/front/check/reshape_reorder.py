# RUN: loomc ir %s --shape N=64
# EXPECT: :12:9: error: tl.reshape from [BLOCK, BLOCK_N] to [BLOCK_N, BLOCK] is not supported: loomc reshapes only by adding or removing dimensions of size 1
# a reshape that moves elements
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    a = tl.zeros((BLOCK, BLOCK_N), dtype=tl.float32)
    b = tl.reshape(a, (BLOCK_N, BLOCK))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
