# RUN: loomc ir %s --shape M=100,N=70
# EXPECT: :13:8: error: loomc reads a run-time 'if' as a guard on the programs that do the kernel's work: bounds `pid < n` on program ids (through <, <=, >, >=, min, and, not) over the rest of the kernel; pid.1 < pid.0 + 1 bounds several program ids together, which is no grid
# a guard relating two program ids (a triangle of blocks) is no grid
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    if pn <= pm:
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
