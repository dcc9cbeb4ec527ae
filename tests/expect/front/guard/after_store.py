# RUN: loomc ir %s --shape M=100,N=70
# EXPECT: :15:8: error: this 'if' on a run-time condition comes after a store; loomc reads such an 'if' only as a guard on all of a program's work
# a guard after the kernel already stored something
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    yb = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(yb, tl.zeros((BM, BN), dtype=tl.float32), boundary_check=(0, 1))
    if pm >= tl.cdiv(M, BM):
        return
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=m, other=0.0)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x + 1.0, mask=m)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BM) + 2, triton.cdiv(N, BN))](x, y, M, N)
