# RUN: loomc ir %s --shape N=64
# EXPECT: :11:56: error: the last stride of a tensor descriptor must be 1, got 64
# a tensor descriptor whose last stride is not 1
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[N, N], strides=[1, N], block_shape=[BLOCK, BLOCK])


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
