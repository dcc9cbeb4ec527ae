# RUN: loomc ir %s --shape N=256
# EXPECT: :20:22: error: parameter 'mode' of kernel k gets a string; strings can only be passed to tl.constexpr parameters
# a string for a run-time parameter
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, mode, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N), mask=offs < N)


@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    grid = (triton.cdiv(N, BLOCK),)
    k[grid](x, y, N, "fast")
