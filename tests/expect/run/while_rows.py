# Counting while loops in a row-wise kernel: `while off < N: ... off +=
# BLOCK` is read as the for loop over range(0, N, BLOCK), and the counter
# keeps, after the loop, the first value that fails the test - here 256 for
# N=200 and BLOCK=64, so the last chunk read again starts at off - BLOCK =
# 192 (a wrong value after the loop reads another chunk and fails the check).
# The second loop's test is written `N > off`, with `off = off + BLOCK`.
# RUN: loomc run %s --arch wormhole_n150 --shape M=37,N=200 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=37,N=200 --check
# EXIT: 0
# STDOUT: check                pass
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
