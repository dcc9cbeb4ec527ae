# RUN: loomc run %s --arch wormhole_n150 --shape B=2,M=64,N=96 --check
# EXPECT: :17:9: error: cannot lower: this block of 'x' walks the tensor's dimensions out of order (its last dimension is not the tensor's last): load the block in the tensor's order and transpose it with tl.trans
# A 3-D block pointer walking its tensor out of order stays refused: the
# front end makes only 2-D ones in the tensor's order plus a transpose
# (tl.trans is 2-D).
import triton
import triton.language as tl
import loomc


@triton.jit
def scale3(x_ptr, y_ptr, B, M, N, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    pm = tl.program_id(1)
    pn = tl.program_id(2)
    xb = tl.make_block_ptr(x_ptr, (B, N, M), (M * N, 1, N), (b, pn * BN, pm * BM), (1, BN, BM), (1, 2, 0))
    x = tl.load(xb, boundary_check=(1, 2), padding_option="zero")
    yb = tl.make_block_ptr(y_ptr, (B, N, M), (M * N, M, 1), (b, pn * BN, pm * BM), (1, BN, BM), (2, 1, 0))
    tl.store(yb, x * 2.0, boundary_check=(1, 2))


@loomc.launch
def spec(B, M, N):
    x = loomc.tensor((B, M, N), tl.float32)
    y = loomc.output((B, N, M), tl.float32)
    scale3[(B, triton.cdiv(M, BM), triton.cdiv(N, BN))](x, y, B, M, N)
