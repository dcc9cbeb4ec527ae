"""GEMM with block pointers: C = A @ B, fp32 accumulation, grouped tile order."""
import triton
import triton.language as tl
import loomc


@triton.jit
def gemm_bp(a_ptr, b_ptr, c_ptr, M, N, K,
            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
            GROUP_M: tl.constexpr = 8):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # walk output tiles in groups of GROUP_M rows so neighbours share columns of B
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    rows = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % rows
    pid_n = (pid % width) // rows

    a_blk = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                              offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K),
                              order=(1, 0))
    b_blk = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N),
                              order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, [BLOCK_K, 0])
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn),
                              (pid_m * BLOCK_M, pid_n * BLOCK_N), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_blk, acc.to(tl.bfloat16), boundary_check=(0, 1))


@loomc.launch
def gemm(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.bfloat16)
    grid = (tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N),)
    gemm_bp[grid](a, b, c, M, N, K,
                  a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                  c.stride(0), c.stride(1))
