# RUN: loomc ir %s --shape N=64
# EXPECT: :13:9: error: dimension 0 of this tile of pointers ([BLOCK, BLOCK]) does not move: every element along it points to the same place; load a tile with a dimension of 1 there and broadcast it
# a tile dimension along which every pointer is the same
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs[None, :] + tl.zeros((BLOCK, BLOCK), tl.int32)
    x = tl.load(p)
    tl.store(y_ptr + offs[:, None] * N + offs[None, :], x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
