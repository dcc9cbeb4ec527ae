# RUN: loomc ir %s --shape N=64
# EXPECT: :17:11: error: loomc reads a 'while' loop as a counting loop, `while i < n:` (or `<=`) with `i += step` as the last statement of its body, n and step unchanged in it; this test is not a name compared with a bound by < or <=
# a while loop whose test is not `counter < bound`
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    x = tl.load(xb)
    tl.store(yb, x)
    i = 0
    while i != 4:
        i += 1


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
