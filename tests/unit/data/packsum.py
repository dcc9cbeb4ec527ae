"""Row sums by packer accumulation: p = exp(x - max(x, axis=1)[:, None]),
l = sum(., axis=1), o = p * l[:, None].

CASE 0: l sums p: the op making p (a pchain) packs each tile a second time
        into its row's page, and the sum reduces one page a row;
CASE 1: l sums x, a loaded block no tile op writes: the sum adds the row's
        tiles in Dst and reduces (no packer accumulation);
CASE 2: l sums p, and p is otherwise read only as p.to(bfloat16) by a dot:
        the pchain packs p in bf16 (the cast emits nothing), its row sums
        still taken from Dst at full precision.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def packsum(x_ptr, w_ptr, o_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CASE: tl.constexpr):
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
    if CASE == 2:
        w_blk = tl.make_block_ptr(w_ptr, shape=(N, N), strides=(N, 1), offsets=(0, 0),
                                  block_shape=(BLOCK_N, BLOCK_N), order=(1, 0))
        w = tl.load(w_blk)
        tl.store(o_blk, tl.dot(p.to(tl.bfloat16), w) * l[:, None])
    else:
        tl.store(o_blk, p * l[:, None])


@loomc.launch
def run(M, N, CASE=0):
    x = loomc.tensor((M, N), tl.float32)
    w = loomc.tensor((N, N), tl.bfloat16)
    o = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    packsum[grid](x, w, o, M, N, BLOCK_N=N, CASE=CASE)
