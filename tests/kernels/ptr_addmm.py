"""addmm in the pointer style of operator libraries: out = beta * bias + alpha * (a @ b), the
bias one row of N values added to every row of the product (`bias[None, :]`, a row repeated down
the block), then clamped at zero and the bias subtracted from it again, so that the row
broadcast is taken by an add, a subtraction with the row first, and through the epilogue's chain.
The edges are masked, so shapes that are not multiples of the blocks run."""
import triton
import triton.language as tl
import loomc


@triton.jit
def addmm_kernel(a_ptr, b_ptr, bias_ptr, out_ptr, M, N, K, alpha, beta,
                 stride_am, stride_ak, stride_bk, stride_bn, stride_om, stride_on,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    out = tl.maximum(acc * alpha + bias[None, :] * beta, 0.0)
    out = bias[None, :] - out
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, out, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@loomc.launch
def addmm(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    bias = loomc.tensor((N,), tl.float32)
    out = loomc.output((M, N), tl.float32)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    addmm_kernel[grid](a, b, bias, out, M, N, K, 0.5, 2.0,
                       a.stride(0), a.stride(1), b.stride(0), b.stride(1), out.stride(0), out.stride(1),
                       BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
