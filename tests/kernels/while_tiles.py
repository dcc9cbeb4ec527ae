"""A persistent matmul whose programs walk the output tiles with a `while`
loop, as grouped-GEMM kernels step a tile index by the number of programs
(`tile_idx += NUM_SM`), and its twin written with tl.range. Both read A and
B through tiles of pointers with masks at the edges. loomc reads the
counting while as the for loop it is, unfolds the persistent loop into the
grid of tiles and splits the tile id into row and column blocks, so both
launches get one schedule and one result.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def _mm_tile(a_ptr, b_ptr, c_ptr, M, N, K, tile, tiles_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             BLOCK_K: tl.constexpr):
    rm = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    k0 = 0
    while k0 < K:
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        k0 += BLOCK_K
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def mm_while(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
             NUM_SM: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    num_tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    tile_idx = tl.program_id(0)
    while tile_idx < num_tiles:
        _mm_tile(a_ptr, b_ptr, c_ptr, M, N, K, tile_idx, tiles_n, BLOCK_M, BLOCK_N, BLOCK_K)
        tile_idx += NUM_SM


@triton.jit
def mm_for(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           NUM_SM: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    num_tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for tile_idx in tl.range(tl.program_id(0), num_tiles, NUM_SM):
        _mm_tile(a_ptr, b_ptr, c_ptr, M, N, K, tile_idx, tiles_n, BLOCK_M, BLOCK_N, BLOCK_K)


@loomc.launch
def matmul_while(M, N, K, NUM_SM=48):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    mm_while[(min(NUM_SM, tiles),)](a, b, c, M, N, K, NUM_SM=NUM_SM)


@loomc.launch
def matmul_for(M, N, K, NUM_SM=48):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    tiles = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N)
    mm_for[(min(NUM_SM, tiles),)](a, b, c, M, N, K, NUM_SM=NUM_SM)
