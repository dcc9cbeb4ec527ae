# RUN: loomc ir %s --shape N=64
# EXPECT: :20:17: error: axpy is missing its argument 'y'
# a helper called without one of its arguments
import triton
import triton.language as tl
import loomc


@triton.jit
def axpy(a, x, y):
    return a * x + y


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    x = tl.load(p)
    tl.store(q, axpy(2.0, x))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
