# RUN: loomc ir %s --shape N=64
# EXPECT: :16:9: error: shape mismatch in '+': [BLOCK, BLOCK_N] and [BLOCK_N, BLOCK] cannot be broadcast to one shape
# adding tiles whose shapes do not broadcast
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    a = tl.zeros((BLOCK, BLOCK_N), dtype=tl.float32)
    b = tl.zeros((BLOCK_N, BLOCK), dtype=tl.float32)
    c = a + b


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
