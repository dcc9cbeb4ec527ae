# RUN: loomc ir %s --shape N=64
# EXPECT: :13:12: error: 'twice' calls itself (through 'twice'); loomc inlines helpers and cannot inline a recursive one
# a helper that calls itself cannot be inlined
import triton
import triton.language as tl
import loomc


@triton.jit
def twice(x, n: tl.constexpr):
    if n == 0:
        return x
    return twice(x * 2, n - 1)


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    tl.store(q, twice(tl.load(p), 3))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
