# tutorial_matmul.py on the 2-D grid its GROUP_SIZE_M swizzle stands for:
# the program ids are the row and column blocks themselves. Both kernels
# must get the same schedule and the same simulated cycles (tests/same/).
# GROUP_SIZE_M stays a (now unused) parameter so the launches match.
# Everything else - block pointers walked with tl.advance, the constexpr
# activation, the fp16 result - is the tutorial kernel's, line for line.
#
import triton
import triton.language as tl
import loomc


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    """C = act(A @ B) for A of shape (M, K), B of shape (K, N), C of shape (M, N)."""
    # The row and column blocks are the program ids here; in
    # tutorial_matmul.py they come out of the GROUP_SIZE_M swizzle of a
    # 1-D grid, which loomc reads as this grid.
    # (These comment lines keep the two kernels' line numbers equal, so
    # their --explain texts compare line for line.)
    #
    #
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    a_block_ptr = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_SIZE_M, 0),
                                    (BLOCK_SIZE_M, BLOCK_SIZE_K), (1, 0))
    b_block_ptr = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_SIZE_N),
                                    (BLOCK_SIZE_K, BLOCK_SIZE_N), (1, 0))

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_SIZE_K):
        a = tl.load(a_block_ptr, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block_ptr, boundary_check=(0, 1), padding_option="zero")
        accumulator += tl.dot(a, b, input_precision="ieee")
        a_block_ptr = tl.advance(a_block_ptr, [0, BLOCK_SIZE_K])
        b_block_ptr = tl.advance(b_block_ptr, [BLOCK_SIZE_K, 0])

    if ACTIVATION == 1:
        accumulator = tl.where(accumulator >= 0, accumulator, 0.01 * accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)

    c_block_ptr = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn),
                                    (pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N),
                                    (BLOCK_SIZE_M, BLOCK_SIZE_N), (1, 0))
    tl.store(c_block_ptr, c, boundary_check=(0, 1))


@loomc.launch
def matmul(M, N, K, LEAKY_RELU=1):
    a = loomc.tensor((M, K), tl.float16)
    b = loomc.tensor((K, N), tl.float16)
    c = loomc.output((M, N), tl.float16)
    grid = (triton.cdiv(M, BLOCK_SIZE_M), triton.cdiv(N, BLOCK_SIZE_N))
    matmul_kernel[grid](
        a, b, c,
        M, N, K,
        a.stride(0), a.stride(1),
        b.stride(0), b.stride(1),
        c.stride(0), c.stride(1),
        GROUP_SIZE_M=8,
        ACTIVATION=LEAKY_RELU,
        num_warps=8,
    )
