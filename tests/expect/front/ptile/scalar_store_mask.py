# RUN: loomc ir %s --shape N=64
# EXPECT: :12:32: error: a mask on a store of one element through a scalar pointer is not supported; the element must always be in the tensor
# a masked store of one element through a scalar pointer
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.store(y_ptr + pid, 1.0, mask=pid < N)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
