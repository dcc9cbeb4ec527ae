# RUN: loomc ir %s --shape N=64
# EXIT: 0
# STDOUT: = mul %
# a call to another jit function is inlined
import triton
import triton.language as tl
import loomc


@triton.jit
def helper(a):
    return a * 2


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    x = tl.load(xb)
    tl.store(yb, helper(x))


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
