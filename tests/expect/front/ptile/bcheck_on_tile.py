# RUN: loomc ir %s --shape N=64
# EXPECT: :12:31: error: tl.load through a tile of pointers takes mask= and other=, not boundary_check= or padding_option=
# boundary_check= belongs to block pointers
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, boundary_check=(0,))
    tl.store(y_ptr + offs, x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
