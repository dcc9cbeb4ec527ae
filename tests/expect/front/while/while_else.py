# RUN: loomc ir %s --shape N=200
# EXPECT: :14:5: error: 'while ... else' is not supported in loomc kernels
# a while loop with an else block
import triton
import triton.language as tl
import loomc


@triton.jit
def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    off = 0
    while off < N:
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        off += BLOCK
    else:
        acc += 1.0
    tl.store(y_ptr + row, tl.sum(acc, 0))


@loomc.launch
def spec(N):
    x = loomc.tensor((4, N), tl.float32)
    y = loomc.output((4,), tl.float32)
    row_sum[(4,)](x, y, N, BLOCK=64)
