# One element through a scalar pointer: a scale loaded from a one-element
# tensor, and each row's scaled sum stored at `out + row` (a 1-D output) and
# at `tot + row * stride_t + 1` (column 1 of a 2-D one). Shapes that are not
# multiples of 32; both chips.
# RUN: loomc run %s --arch wormhole_n150 --shape M=37,N=200 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=5,N=33 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def scaled_row_sums(x_ptr, scale_ptr, out_ptr, tot_ptr, stride_x, stride_t, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_x + cols, mask=cols < N, other=0.0)
    s = tl.load(scale_ptr)
    total = tl.sum(x, axis=0) * s
    tl.store(out_ptr + row, total)
    tl.store(tot_ptr + row * stride_t + 1, total)


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    scale = loomc.tensor((1,), tl.float32)
    out = loomc.output((M,), tl.float32)
    tot = loomc.output((M, 2), tl.float32)
    scaled_row_sums[(M,)](x, scale, out, tot, x.stride(0), tot.stride(0), N, BLOCK=triton.next_power_of_2(N))
