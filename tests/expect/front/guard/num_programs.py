# RUN: loomc ir %s --shape M=100,N=70
# EXPECT: :13:8: error: this guard leaves out programs of axis 0, whose number the kernel reads with tl.num_programs(0); loomc cannot run it on fewer programs
# a guard on an axis whose number of programs the kernel reads
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    if pm < tl.cdiv(M, BM):
        rows = pm * BM + tl.arange(0, BM)
        cols = pn * BN + tl.arange(0, BN)
        m = (rows[:, None] < M) & (cols[None, :] < N)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=m, other=0.0)
        tl.store(y_ptr + rows[:, None] * N + cols[None, :], x + tl.num_programs(0), mask=m)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BM) + 2, triton.cdiv(N, BN))](x, y, M, N)
