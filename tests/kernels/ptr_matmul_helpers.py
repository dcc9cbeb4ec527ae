# The pointer-style matmul of ptr_matmul.py with its parts in @triton.jit
# helpers, as larger kernels are written: one builds a tile of pointers and
# its mask and returns both, one runs the K loop on the carried accumulator
# and pointers and returns the three, and an epilogue chooses its activation
# by a string constexpr with a default. loomc inlines them, so the schedule
# and the simulated cycles are those of kernels/matmul.py.
import triton
import triton.language as tl
import loomc


@triton.jit
def _tile_ptrs(base, rows, cols, stride_r, stride_c, R, C):
    ptrs = base + rows[:, None] * stride_r + cols[None, :] * stride_c
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    return ptrs, mask


@triton.jit
def _k_loop(acc, a_ptrs, b_ptrs, K, stride_ak, stride_bk, BLOCK_K: tl.constexpr):
    offs_k = tl.arange(0, BLOCK_K)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    return acc, a_ptrs, b_ptrs


@triton.jit
def _epilogue(x, ACTIVATION: tl.constexpr = "none"):
    if ACTIVATION == "leaky_relu":
        return tl.where(x >= 0, x, 0.01 * x)
    return x


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs, _ = _tile_ptrs(a_ptr, offs_m % M, offs_k, stride_am, stride_ak, M, K)
    b_ptrs, _ = _tile_ptrs(b_ptr, offs_k, offs_n % N, stride_bk, stride_bn, K, N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc, a_ptrs, b_ptrs = _k_loop(acc, a_ptrs, b_ptrs, K, stride_ak, stride_bk, BLOCK_K=BLOCK_K)
    c_ptrs, c_mask = _tile_ptrs(c_ptr, offs_m, offs_n, stride_cm, stride_cn, M, N)
    tl.store(c_ptrs, _epilogue(acc), mask=c_mask)


@loomc.launch
def matmul(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))
