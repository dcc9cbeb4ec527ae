"""The row softmax of ptr_softmax.py written with block pointers: the row is
a 1-D block over the tensor's row at `x_ptr + r * stride`, checked at the
row's end and padded with zeros that a where turns into -inf. loomc gives
both the same schedule and the same simulated cycles (tests/same/).
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def softmax_rows(y_ptr, x_ptr, stride_x, stride_y, n_rows, n_cols, BLOCK: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    for r in tl.range(first, n_rows, step):
        xb = tl.make_block_ptr(x_ptr + r * stride_x, shape=(n_cols,), strides=(1,), offsets=(0,),
                               block_shape=(BLOCK,), order=(0,))
        x = tl.where(cols < n_cols, tl.load(xb, boundary_check=(0,), padding_option="zero"), float("-inf"))
        num = tl.exp(x - tl.max(x, axis=0))
        yb = tl.make_block_ptr(y_ptr + r * stride_y, shape=(n_cols,), strides=(1,), offsets=(0,),
                               block_shape=(BLOCK,), order=(0,))
        tl.store(yb, num / tl.sum(num, axis=0), boundary_check=(0,))


@loomc.launch
def softmax(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    softmax_rows[(M,)](y, x, x.stride(0), y.stride(0), M, N, BLOCK=triton.next_power_of_2(N))
