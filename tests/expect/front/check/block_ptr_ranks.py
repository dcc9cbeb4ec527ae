# RUN: loomc ir %s --shape N=64
# EXPECT: :11:9: error: tl.make_block_ptr: shape, strides, offsets and block_shape must have one entry per dimension, got 2, 2, 2 and 3
# make_block_ptr with entries of different lengths
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    b = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(0, 0), block_shape=(BLOCK, BLOCK, 1), order=(1, 0))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
