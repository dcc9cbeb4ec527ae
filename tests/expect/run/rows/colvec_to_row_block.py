# A row maximum (a column of the block's per-row values) stored into a 1-D
# tensor: the 1-D block lies along the tile layout's columns, so the column
# is transposed into the writer's CB (one tile and several tiles of rows).
# RUN: loomc run %s --arch wormhole_n150 --shape M=100,N=64 --check
# RUN: loomc run %s --arch wormhole_n150 --shape M=32,N=64 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=1000,N=40 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def row_max(x_ptr, m_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
    m = tl.max(x, axis=1)
    mb = tl.make_block_ptr(m_ptr, shape=(M,), strides=(1,), offsets=(pid * BM,), block_shape=(BM,), order=(0,))
    tl.store(mb, m, boundary_check=(0,))


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    m = loomc.output((M,), tl.float32)
    row_max[(triton.cdiv(M, BM),)](x, m, M, N, BN=N)
