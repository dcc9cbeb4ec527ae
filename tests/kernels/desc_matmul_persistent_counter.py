"""desc_matmul_persistent.py as GPU kernels write it when they keep a
second tile counter for the epilogue (`tile_c = start - NUM_SMS` before the
tile loop, `tile_c += NUM_SMS` in it, the epilogue's block taken from
tile_c) and an autotuned flag the kernel tests, here choosing between
`acc = tl.dot(a, b, acc)` and `acc += tl.dot(a, b)`. loomc reads the
counter as the loop variable (it steps with it), unfolds the loop as for
its twin, and schedules both values of the flag, keeping the faster; the
twin's schedule and result come out.
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
                  BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr,
                  DOT_ACC: tl.constexpr):
    start = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    tile_c = start - NUM_SMS
    for tile_id in tl.range(start, grid_m * grid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = _tile_coords(tile_id, grid_m, grid_n, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, kk * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, kk * BLOCK_K])
            if DOT_ACC:
                acc = tl.dot(a, b.T, acc)
            else:
                acc += tl.dot(a, b.T)
        tile_c += NUM_SMS
        cm, cn = _tile_coords(tile_c, grid_m, grid_n, GROUP_SIZE_M)
        c_desc.store([cm * BLOCK_M, cn * BLOCK_N], acc.to(tl.bfloat16))


@loomc.launch
def matmul(M, N, K, NUM_SMS=64):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((N, K), tl.bfloat16)
    c = loomc.output((M, N), tl.bfloat16)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    mm_persistent[(min(NUM_SMS, tiles),)](a, b, c, M, N, K, GROUP_SIZE_M=8, NUM_SMS=NUM_SMS)
