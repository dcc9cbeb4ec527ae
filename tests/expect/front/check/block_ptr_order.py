# RUN: loomc ir %s --shape N=64
# EXPECT: :11:108: error: the order of tl.make_block_ptr must be a permutation of 0..1
# an order that is not a permutation
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    b = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(0, 0), block_shape=(BLOCK, BLOCK), order=(1, 1))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
