# RUN: loomc ir %s --shape N=64
# EXPECT: :16:9: error: tl.dot operands have different element types (bf16 and f32); convert one with .to()
# tl.dot of bf16 with f32
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    a = tl.load(xb)
    b = a.to(tl.bfloat16)
    c = tl.dot(b, a)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
