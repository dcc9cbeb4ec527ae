# A matrix product written the way Triton's tutorials teach it: a 1-D grid
# whose program ids are swizzled into groups of GROUP_SIZE_M row blocks (so
# that programs running together share panels of B), block pointers walked
# with tl.advance, an optional fused activation, and an fp16 result.
# Exercises: docstring, the grouped swizzle (//, %, builtin min on run-time
# values), tl.cdiv on run-time sizes, range with a step, augmented assignment
# with tl.dot, a constexpr 'if', .to() of a pointer's element type.
import triton
import triton.language as tl
import loomc


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr):
    """C = act(A @ B) for A of shape (M, K), B of shape (K, N), C of shape (M, N)."""
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

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
    grid = (triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N), )
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
