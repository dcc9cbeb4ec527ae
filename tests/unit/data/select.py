"""A where on data: y = where(x > 0, x, 1.0), which the lowering computes as
1.0 + c * (x - 1.0) with c the comparison's 0/1: a difference and a product
into temporaries of their own, a constant tile for each constant operand,
then the sum - four tile ops before the sum, each waiting for the one before.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def select(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    y_blk = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk)
    tl.store(y_blk, tl.where(x > 0, x, 1.0))


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    select[grid](x, y, M, N, BLOCK_N=N)
