"""A matmul as tuned GPU kernels are written: an autotune decorator whose
configs loomc reads but does not search (it shows them in `loomc ir`), one
grid axis of programs swizzled into groups of GROUP_SIZE_M row blocks,
tiles of pointers with the `% M` wrap on the rows and columns and masks on
K, pointers advanced in the loop, and a fused activation chosen by a string
constexpr and written as a @triton.jit helper.
"""
import triton
import triton.language as tl
import loomc




@triton.jit
def leaky_relu(x, slope: tl.constexpr):
    return tl.where(x >= 0, x, x * slope)


@triton.autotune(configs=[
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_SIZE_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_SIZE_M": 8}, num_stages=4, num_warps=4),
], key=["M", "N", "K"])
@triton.jit
def mm_act(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
           ACTIVATION: tl.constexpr):
    pid = tl.program_id(axis=0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_SIZE_M * grid_n
    group = pid // per_group
    first_m = group * GROUP_SIZE_M
    rows_in_group = min(grid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + ((pid % per_group) % rows_in_group)
    pid_n = (pid % per_group) // rows_in_group

    rm = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    rn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if ACTIVATION == "leaky_relu":
        acc = leaky_relu(acc, 0.01)
    c = acc.to(tl.bfloat16)

    cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * cm[:, None] + stride_cn * cn[None, :]
    tl.store(c_ptrs, c, mask=(cm[:, None] < M) & (cn[None, :] < N))


@loomc.launch
def matmul(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.bfloat16)
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    mm_act[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                 ACTIVATION="leaky_relu")
