# RUN: loomc ir %s --shape N=200
# EXPECT: :17:22: error: loomc reads a 'while' loop as a counting loop, `while i < n:` (or `<=`) with `i += step` as the last statement of its body, n and step unchanged in it; this step is -64, and loomc reads only loops that count up
# a while loop with a counter below its bound stepped by a negative amount
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
        off = off + (0 - BLOCK)
    tl.store(y_ptr + row, tl.sum(acc, 0))


@loomc.launch
def spec(N):
    x = loomc.tensor((4, N), tl.float32)
    y = loomc.output((4,), tl.float32)
    row_sum[(4,)](x, y, N, BLOCK=64)
