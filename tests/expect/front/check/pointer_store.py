# RUN: loomc ir %s --shape N=64
# EXPECT: :12:5: error: stores through tensors of pointers (pointer arithmetic) are not supported
# a store through a tile of pointers
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, offs.to(tl.float32))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
