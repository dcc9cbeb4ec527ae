# RUN: loomc ir %s --shape M=64,N=64
# EXIT: 0
# STDOUT: = rsqrt %
# STDOUT: = exp %
# STDOUT: = sqrt %
# libdevice's functions are tl's, through a module-level try/except import, an
# if/else import and the full dotted path
import triton
import triton.language as tl
import loomc

try:
    from triton.language.extra.cuda.libdevice import rsqrt
except ModuleNotFoundError:
    from triton.language.math import rsqrt

if hasattr(tl, "libdevice"):
    libdevice = tl.libdevice
else:
    from triton.language.extra import libdevice


@triton.jit
def k(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=1.0)
    y = rsqrt(x) + libdevice.exp(x) + tl.extra.cuda.libdevice.sqrt(x)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], y, mask=mask)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, y, M, N)
