# RUN: loomc ir %s --shape N=100
# EXPECT: :9:47: error: kernel k has no parameter named 'M'
# a heuristic that reads an argument the kernel does not have
import triton
import triton.language as tl
import loomc


@triton.heuristics({"EVEN": lambda args: args["M"] % args["BLOCK"] == 0})
@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < N) * 2.0, mask=offs < N)

@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    k[(triton.cdiv(N, BLOCK),)](x, y, N)
