# RUN: loomc ir %s --shape N=64
# EXPECT: :18:17: error: 'plain' is not a @triton.jit function; a kernel can only call those
# a call of a plain Python function
import triton
import triton.language as tl
import loomc


def plain(x):
    return x


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    p = x_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    q = y_ptr + offs[:, None] * N + tl.arange(0, BLOCK)[None, :]
    tl.store(q, plain(tl.load(p)))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
