# A float scalar carried through a loop (a sum of squares over a row read in
# chunks), then used to scale the row: carried as the one-element tile it is
# on the chip.
# RUN: loomc run %s --arch wormhole_n150 --shape M=37,N=300 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=3,N=129 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def inv_mean_square(X, Y, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    ss = 0.0
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        ss += tl.sum(x * x, axis=0)
    inv = 1.0 / (ss / N + eps)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        tl.store(Y + cols, x * inv, mask=cols < N)


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    inv_mean_square[(M,)](x, y, x.stride(0), N, 1e-6, BLOCK=128)
