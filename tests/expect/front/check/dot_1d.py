# RUN: loomc ir %s --shape N=64
# EXPECT: :16:16: error: tl.dot needs 2-D operands, got a 1-D tile of shape [BLOCK_K]
# tl.dot of a 1-D tile
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    a = tl.zeros((BLOCK_K,), dtype=tl.bfloat16)
    b = tl.zeros((BLOCK_K, BLOCK), dtype=tl.bfloat16)
    c = tl.dot(a, b)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
