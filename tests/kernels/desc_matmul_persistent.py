"""A persistent matmul through tensor descriptors, as written for GPUs with
a tensor memory accelerator: min(NUM_SMS, tiles) programs each loop over
the output tiles tile_id = pid, pid + NUM_SMS, ...; a helper maps a tile id
to its (row, column) block with the GROUP_SIZE_M swizzle and returns both
as a tuple; B is stored [N, K] and read transposed. loomc unfolds the loop
into the grid of tiles it folds and splits that grid in two, so it gets the
schedule of a plain 2-D matmul.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def _tile_coords(tile_id, grid_m, grid_n, GROUP_SIZE_M: tl.constexpr):
    per_group = GROUP_SIZE_M * grid_n
    first_m = (tile_id // per_group) * GROUP_SIZE_M
    rows = min(grid_m - first_m, GROUP_SIZE_M)
    return first_m + (tile_id % rows), (tile_id % per_group) // rows


@triton.jit
def mm_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    for tile_id in tl.range(tl.program_id(0), grid_m * grid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_coords(tile_id, grid_m, grid_n, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, kk * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, kk * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.bfloat16))


@loomc.launch
def matmul(M, N, K, NUM_SMS=64):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((N, K), tl.bfloat16)
    c = loomc.output((M, N), tl.bfloat16)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    mm_persistent[(min(NUM_SMS, tiles),)](a, b, c, M, N, K, GROUP_SIZE_M=8, NUM_SMS=NUM_SMS)
