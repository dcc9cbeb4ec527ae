# RUN: loomc ir %s --shape N=64
# EXPECT: :12:5: error: stores of one element through a scalar pointer are not supported yet; load or store a tile (a pointer plus tl.arange offsets)
# a store of one element through a scalar pointer
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(y_ptr + pid, 1.0)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
