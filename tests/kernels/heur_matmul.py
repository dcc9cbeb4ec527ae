"""A pointer-style matmul whose K loop has a fast path for K a multiple of
BLOCK_K, chosen by @triton.heuristics as such kernels choose it:
`EVEN_K = K % BLOCK_K == 0`. The launch leaves BLOCK_K to loomc, so the
heuristic's value waits for the solver: loomc schedules the kernel with
EVEN_K True under the constraint that BLOCK_K divides K, and with EVEN_K
False under the constraint that it does not, and keeps the faster. At
K = 256 both can be had; at K = 200 only the masked path (no block of
whole tiles divides 200). `EVEN_N` reads only sizes the launch fixes and
is computed outright.
"""
import triton
import triton.language as tl
import loomc


@triton.heuristics({
    "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
    "EVEN_N": lambda args: args["N"] % 32 == 0,
})
@triton.jit
def mm_heur(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
            BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr, EVEN_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptrs, mask=rn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BLOCK_K), other=0.0)
            b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BLOCK_K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
    if EVEN_N:
        tl.store(c_ptrs, acc, mask=rm[:, None] < M)
    else:
        tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@loomc.launch
def matmul(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    mm_heur[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](a, b, c, M, N, K)
