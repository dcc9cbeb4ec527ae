# RUN: loomc ir %s --shape N=64
# EXPECT: :12:25: error: the offsets of a tile of pointers must be sums of tl.arange ranges times scalars (used at line 12); two tiles of indices are multiplied here
# the product of two index tiles is not affine
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs[:, None] * offs[None, :])
    tl.store(y_ptr + offs[:, None] * N + offs[None, :], x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
