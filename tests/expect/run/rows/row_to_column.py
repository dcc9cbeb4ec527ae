# A vector read as a row (along a tensor's last dimension) and then used as
# a column, `w[:, None]`, to weigh a block's rows: the row is transposed into
# a column once; its reductions stay on the row.
# RUN: loomc run %s --arch wormhole_n150 --shape R=8,D=100 --check
# RUN: loomc run %s --arch blackhole_p150 --shape R=40,D=64 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def weighted(w_ptr, x_ptr, o_ptr, R, D, BR: tl.constexpr, BD: tl.constexpr):
    rows = tl.arange(0, BR)
    cols = tl.arange(0, BD)
    w = tl.load(w_ptr + rows, mask=rows < R, other=float("-inf"))
    w = tl.exp(w - tl.max(w, 0))
    x = tl.load(x_ptr + rows[:, None] * D + cols[None, :], mask=(rows[:, None] < R) & (cols[None, :] < D), other=0.0)
    out = tl.sum(x * w[:, None], 0) / tl.sum(w, 0)
    tl.store(o_ptr + cols, out, mask=cols < D)


@loomc.launch
def spec(R, D):
    w = loomc.tensor((R,), tl.float32)
    x = loomc.tensor((R, D), tl.float32)
    o = loomc.output((D,), tl.float32)
    weighted[(1,)](w, x, o, R, D, BR=triton.next_power_of_2(R), BD=triton.next_power_of_2(D))
