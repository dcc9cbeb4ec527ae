# RUN: loomc run %s --arch wormhole_n150 --shape M=64,N=96 --check
# EXPECT: :17:5: error: cannot lower: storing a broadcast or transposed view
# A store through a block pointer walking its tensor out of order is a
# store of the transposed tile, which the lowering does not do (as for the
# same store through a tile of pointers with swapped strides).
import triton
import triton.language as tl
import loomc


@triton.jit
def tcopy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    xb = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    yb = tl.make_block_ptr(y_ptr, (M, N), (1, M), (pm * BM, pn * BN), (BM, BN), (0, 1))
    tl.store(yb, tl.load(xb, boundary_check=(0, 1)), boundary_check=(0, 1))


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((N, M), tl.float32)
    tcopy[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, y, M, N)
