"""Row softmax through tiles of pointers, as row-wise Triton kernels are written.

Each program walks rows pid, pid + G, pid + 2G, ... (G programs in all: a
persistent loop over the rows) and reads its row through `x_ptr + r * stride
+ cols`, a 1-D tile masked to the row's length and padded with -inf, so the
padding neither wins the maximum nor adds to the sum. The block is the next
power of two of the row's length, as the tutorials pick it.

`softmax` launches one program per row; `softmax_persistent` at most 48
programs, each looping over its rows.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def softmax_rows(y_ptr, x_ptr, stride_x, stride_y, n_rows, n_cols, BLOCK: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    for r in tl.range(first, n_rows, step):
        x = tl.load(x_ptr + r * stride_x + cols, mask=inside, other=float("-inf"))
        shifted = x - tl.max(x, axis=0)
        num = tl.exp(shifted)
        tl.store(y_ptr + r * stride_y + cols, num / tl.sum(num, axis=0), mask=inside)


@loomc.launch
def softmax(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    softmax_rows[(M,)](y, x, x.stride(0), y.stride(0), M, N, BLOCK=triton.next_power_of_2(N))


@loomc.launch
def softmax_persistent(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    softmax_rows[(min(M, 48),)](y, x, x.stride(0), y.stride(0), M, N, BLOCK=triton.next_power_of_2(N))
