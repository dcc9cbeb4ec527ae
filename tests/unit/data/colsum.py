"""Column sums: s = sum(x, axis=0) of a ROWS x BLOCK_N block, stored as a row.

Along axis 0 the lowering transposes the block first (a pass of its own) and,
where ROWS is not whole tiles, masks the rows past it (another pass); then it
reduces rows.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def colsum(x_ptr, o_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, pid * BLOCK_N),
                              block_shape=(ROWS, BLOCK_N), order=(1, 0))
    o_blk = tl.make_block_ptr(o_ptr, shape=(1, N), strides=(N, 1), offsets=(0, pid * BLOCK_N),
                              block_shape=(1, BLOCK_N), order=(1, 0))
    s = tl.sum(tl.load(x_blk), axis=0)
    tl.store(o_blk, s[None, :])


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    o = loomc.output((1, N), tl.float32)
    grid = (tl.cdiv(N, BLOCK_N),)
    colsum[grid](x, o, M, N, ROWS=M)
