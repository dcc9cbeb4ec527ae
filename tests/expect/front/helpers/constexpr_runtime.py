# RUN: loomc run %s --arch wormhole_n150 --shape N=64 --check
# EXIT: 0
# STDOUT: check                pass
# A run-time value for a parameter of a helper annotated tl.constexpr: Triton
# specialises helpers on their arguments and ignores the annotation there
# (its attention tutorial passes offs_m and offs_n so), and so does loomc.
import triton
import triton.language as tl
import loomc


@triton.jit
def scale(x, s: tl.constexpr):
    return x * s


@triton.jit
def k(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, N)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(p)
    tl.store(q, scale(x, tl.max(x, axis=1)[:, None]))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N=N)
