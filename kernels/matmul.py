"""C = A @ B with bf16 inputs and fp32 accumulation.

Each program computes one BLOCK_M x BLOCK_N tile of C, walking the K
dimension in steps of BLOCK_K with block pointers. The block sizes are left
free: loomc chooses them for the chip and the problem size.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    # the row panel of A and the column panel of B this program consumes
    a_blocks = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak),
                                 offsets=(pid_m * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_K),
                                 order=(1, 0))
    b_blocks = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                                 offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N),
                                 order=(1, 0))

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_blocks, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blocks, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc=acc)
        a_blocks = tl.advance(a_blocks, (0, BLOCK_K))
        b_blocks = tl.advance(b_blocks, (BLOCK_K, 0))

    c_blocks = tl.make_block_ptr(base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
                                 offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                                 block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blocks, acc, boundary_check=(0, 1))


@loomc.launch
def matmul(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))
