# RUN: loomc ir %s --shape N=64
# EXPECT: :12:13: error: this wrap is not the edge of 'x': along its dimension 0 it keeps indices below floordiv(N, 2), but the extent is N; loomc reads masks and wraps only as boundary checks
# a wrap by something else than the extent
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = (pid * BLOCK + tl.arange(0, BLOCK)) % (N // 2)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs[:, None] * N + cols[None, :])
    tl.store(y_ptr + offs[:, None] * N + cols[None, :], x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
