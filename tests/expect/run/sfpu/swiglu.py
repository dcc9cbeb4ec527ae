# A gated activation, silu(a) * b with silu(a) = a * tl.sigmoid(a) (also as the
# tile method), and tl.sqrt on 2-D blocks: tl.sigmoid is its own SFPU op; blocks
# that cut the tensors' edges (not multiples of 32), on both chips.
# RUN: loomc run %s --arch wormhole_n150 --shape M=90,N=70 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=40,N=130 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def swiglu(a_ptr, b_ptr, y_ptr, n_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ab = tl.make_block_ptr(a_ptr, shape=(M, N), strides=(N, 1), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    bb = tl.make_block_ptr(b_ptr, shape=(M, N), strides=(N, 1), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    a = tl.load(ab, boundary_check=(0, 1))
    b = tl.load(bb, boundary_check=(0, 1))
    y = a * tl.sigmoid(a) * b + 0.5 * b.sigmoid()
    n = tl.sqrt(a * a + b * b)
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    nb = tl.make_block_ptr(n_ptr, shape=(M, N), strides=(N, 1), offsets=(pm * BM, pn * BN),
                           block_shape=(BM, BN), order=(1, 0))
    tl.store(yb, y, boundary_check=(0, 1))
    tl.store(nb, n, boundary_check=(0, 1))


@loomc.launch
def spec(M, N):
    a = loomc.tensor((M, N), tl.float32)
    b = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    n = loomc.output((M, N), tl.float32)
    swiglu[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, y, n, M, N)
