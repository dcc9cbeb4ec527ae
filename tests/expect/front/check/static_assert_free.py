# RUN: loomc ir %s --shape M=256,N=256
# RUN: loomc compile %s --arch wormhole_n150 --shape M=256,N=256 --explain
# EXIT: 0
# STDOUT: BLOCK_N <= BLOCK_M // 2
# a tl.static_assert on free constexprs is a constraint of the solver, not an
# error: the chosen BLOCK_N is at most half of BLOCK_M
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.static_assert(BLOCK_N <= BLOCK_M // 2)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x + 1.0, mask=mask)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, y, M, N)
