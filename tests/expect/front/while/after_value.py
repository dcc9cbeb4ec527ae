# RUN: loomc ir %s --shape M=37,N=200
# EXIT: 0
# STDOUT: load x  block [1, 64]  at [pid.0, 64*iv.0]  (line 22)
# STDOUT: load x  block [1, 64]  at [pid.0, 64*floordiv(max(N, 0) + 63, 64) - 64]  (line 26)
# STDOUT: load x  block [1, 64]  at [pid.0, 64*iv.1]  (line 31)
# A counting while loop is the for loop over range(0, N, BLOCK); after it
# the counter holds the first value that fails the test, cdiv(N, 64) * 64
# (the last chunk re-read at off - BLOCK). tests/expect/run/while_rows.py
# runs the same kernel.
import triton
import triton.language as tl
import loomc


@triton.jit
def rows(x_ptr, sums_ptr, tail_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    off = 0
    while off < N:
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        off += BLOCK
    tl.store(sums_ptr + row, tl.sum(acc, 0))
    cols = (off - BLOCK) + tl.arange(0, BLOCK)
    t = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
    tl.store(tail_ptr + row * BLOCK + tl.arange(0, BLOCK), t * 2.0)
    off = 0
    while N > off:
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
        tl.store(y_ptr + row * N + cols, x * 3.0, mask=cols < N)
        off = off + BLOCK


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    sums = loomc.output((M,), tl.float32)
    tail = loomc.output((M, 64), tl.float32)
    y = loomc.output((M, N), tl.float32)
    rows[(M,)](x, sums, tail, y, N, BLOCK=64)
