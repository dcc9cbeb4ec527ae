# RUN: loomc ir %s --shape N=64
# EXPECT: :12:9: error: dimension 0 of this tile of pointers moves by 2 elements, which is no stride of tensor 'x' (its strides are [N, 1])
# a tile dimension that moves by no stride of the tensor
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * 2)
    tl.store(y_ptr + offs, x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
