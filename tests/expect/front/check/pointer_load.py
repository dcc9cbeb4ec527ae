# RUN: loomc ir %s --shape N=64
# EXPECT: :12:9: error: loads through tensors of pointers (pointer arithmetic) are not supported; use tl.make_block_ptr or a tensor descriptor
# a load through a tile of pointers
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
