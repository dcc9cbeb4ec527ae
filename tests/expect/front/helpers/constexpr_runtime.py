# RUN: loomc ir %s --shape N=64
# EXPECT: :20:26: error: parameter 's' of 'scale' is a tl.constexpr, but gets a 1-D tile of shape [BLOCK], known only at run time
# a run-time value for a constexpr parameter of a helper
import triton
import triton.language as tl
import loomc


@triton.jit
def scale(x, s: tl.constexpr):
    return x * s


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    x = tl.load(p)
    tl.store(q, scale(x, tl.max(x, axis=0)))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
