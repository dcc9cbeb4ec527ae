# RUN: loomc ir %s --shape M=100,N=70
# EXPECT: :14:12: error: the condition of this 'if' is an i1 scalar, known only at run time; loomc kernels branch only on compile-time conditions (tl.constexpr); use tl.where to choose between values
# a run-time if inside a loop is no guard on the program
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    for i in range(0, 4):
        if i < pm:
            pm = pm + 1


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BM) + 2, triton.cdiv(N, BN))](x, y, M, N)
