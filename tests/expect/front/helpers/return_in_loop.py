# RUN: loomc ir %s --shape N=64
# EXPECT: :12:9: error: 'return' inside a loop is not supported; loops run their whole trip count
# a return inside a loop
import triton
import triton.language as tl
import loomc


@triton.jit
def first(x):
    for i in range(0, 4):
        return x
    return x


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    tl.store(q, first(tl.load(p)))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
