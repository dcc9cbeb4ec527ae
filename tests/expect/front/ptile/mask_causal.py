# RUN: loomc ir %s --shape N=64
# EXPECT: :13:25: error: loomc reads the mask of a load or store through a tile of pointers as boundary checks: `offs < bound` on each dimension, combined with &; this is not of that form (used at line 13)
# a load mask that is not a bound per dimension
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + offs[None, :]
    x = tl.load(p, mask=offs[:, None] >= offs[None, :], other=0.0)
    tl.store(y_ptr + offs[:, None] * N + offs[None, :], x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
