# C = A @ B^T with block pointers, B stored as (N, K) and read through a
# (K, N) block pointer whose strides walk it column by column, order=(0, 1),
# as attention kernels read K^T. bp_matmul_bt.py is the twin that reads B in
# its own order and transposes it with tl.trans: the front end makes this
# block pointer in the tensor's order plus a transpose, so both give one
# schedule and one result.
import triton
import triton.language as tl
import loomc


@triton.jit
def matmul_bt_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0),
                             (BLOCK_M, BLOCK_K), (1, 0))
    bt_bp = tl.make_block_ptr(base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn),
                              offsets=(0, pid_n * BLOCK_N), block_shape=(BLOCK_K, BLOCK_N), order=(0, 1))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(bt_bp, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_bp = tl.advance(a_bp, (0, BLOCK_K))
        bt_bp = tl.advance(bt_bp, (BLOCK_K, 0))
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                             (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))


@loomc.launch
def matmul_bt(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((N, K), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_bt_kernel[grid](a, b, c, M, N, K,
                           a.stride(0), a.stride(1), b.stride(1), b.stride(0),
                           c.stride(0), c.stride(1))
