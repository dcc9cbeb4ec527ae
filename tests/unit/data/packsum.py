"""Row sums by packer accumulation: p = exp(x - max(x, axis=1)[:, None]),
l = sum(., axis=1), o = p * l[:, None].

CASE 0: l sums p: the op making p (a pchain) packs each tile a second time
        into its row's page, and the sum reduces one page a row;
CASE 1: l sums x, a loaded block no tile op writes: the sum adds the row's
        tiles in Dst and reduces (no packer accumulation).
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def packsum(x_ptr, o_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CASE: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    o_blk = tl.make_block_ptr(o_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk)
    p = tl.exp(x - tl.max(x, axis=1)[:, None])
    if CASE == 1:
        l = tl.sum(x, axis=1)
    else:
        l = tl.sum(p, axis=1)
    tl.store(o_blk, p * l[:, None])


@loomc.launch
def run(M, N, CASE=0):
    x = loomc.tensor((M, N), tl.float32)
    o = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    packsum[grid](x, o, M, N, BLOCK_N=N, CASE=CASE)
