"""Row sums of a matrix split along K (tests of fused launch pairs).

partial_sums: one program per (row block, K split) sums its share of K for
BM rows and writes the sums as one row of a scratch tensor (one row per
split); total: one program per row block adds the NS rows. The pair is a
split-K reduction: total reads, for each row block, exactly the blocks the
splits wrote, so loomc may fuse the two launches.

The other specs are not fusable, each for one reason: `shifted` reads the
partial sums one column off the blocks they were written in; in
`same_block` every split writes row 0 while total reads all NS rows.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def partial_sums(x_ptr, part_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr, NS: tl.constexpr):
    pm = tl.program_id(0)
    s = tl.program_id(1)
    k_len = tl.cdiv(tl.cdiv(K, NS), BK) * BK
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, K), strides=(K, 1), offsets=(pm * BM, s * k_len),
                              block_shape=(BM, BK), order=(1, 0))
    acc = tl.zeros([BM], dtype=tl.float32)
    for k in range(s * k_len, min(s * k_len + k_len, K), BK):
        acc += tl.sum(tl.load(x_blk, boundary_check=(1,), padding_option="zero").to(tl.float32), axis=1)
        x_blk = tl.advance(x_blk, (0, BK))
    p_blk = tl.make_block_ptr(part_ptr, shape=(NS, M), strides=(M, 1), offsets=(s, pm * BM),
                              block_shape=(1, BM), order=(1, 0))
    tl.store(p_blk, acc[None, :])


@triton.jit
def total(part_ptr, out_ptr, M, BM: tl.constexpr, NS: tl.constexpr):
    pm = tl.program_id(0)
    p_blk = tl.make_block_ptr(part_ptr, shape=(NS, M), strides=(M, 1), offsets=(0, pm * BM),
                              block_shape=(NS, BM), order=(1, 0))
    t = tl.sum(tl.load(p_blk), axis=0)
    o_blk = tl.make_block_ptr(out_ptr, shape=(1, M), strides=(M, 1), offsets=(0, pm * BM),
                              block_shape=(1, BM), order=(1, 0))
    tl.store(o_blk, t[None, :])


@triton.jit
def total_shifted(part_ptr, out_ptr, M, BM: tl.constexpr, NS: tl.constexpr):
    pm = tl.program_id(0)
    p_blk = tl.make_block_ptr(part_ptr, shape=(NS, M), strides=(M, 1), offsets=(0, pm * BM + 1),
                              block_shape=(NS, BM), order=(1, 0))
    t = tl.sum(tl.load(p_blk, boundary_check=(1,), padding_option="zero"), axis=0)
    o_blk = tl.make_block_ptr(out_ptr, shape=(1, M), strides=(M, 1), offsets=(0, pm * BM),
                              block_shape=(1, BM), order=(1, 0))
    tl.store(o_blk, t[None, :])


@triton.jit
def partial_same_block(x_ptr, part_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr, NS: tl.constexpr):
    pm = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, K), strides=(K, 1), offsets=(pm * BM, 0),
                              block_shape=(BM, BK), order=(1, 0))
    acc = tl.sum(tl.load(x_blk).to(tl.float32), axis=1)
    p_blk = tl.make_block_ptr(part_ptr, shape=(NS, M), strides=(M, 1), offsets=(0, pm * BM),
                              block_shape=(1, BM), order=(1, 0))
    tl.store(p_blk, acc[None, :])


@loomc.launch
def splitk_sum(M, K):
    x = loomc.tensor((M, K), tl.bfloat16)
    part = loomc.scratch((NS, M), tl.float32)
    out = loomc.output((1, M), tl.float32)
    partial_sums[(tl.cdiv(M, BM), NS)](x, part, M, K)
    total[(tl.cdiv(M, BM),)](part, out, M)


@loomc.launch
def shifted(M, K):
    x = loomc.tensor((M, K), tl.bfloat16)
    part = loomc.scratch((NS, M), tl.float32)
    out = loomc.output((1, M), tl.float32)
    partial_sums[(tl.cdiv(M, BM), NS)](x, part, M, K)
    total_shifted[(tl.cdiv(M, BM),)](part, out, M)


@loomc.launch
def same_block(M, K):
    x = loomc.tensor((M, K), tl.bfloat16)
    part = loomc.scratch((NS, M), tl.float32)
    out = loomc.output((1, M), tl.float32)
    partial_same_block[(tl.cdiv(M, BM), NS)](x, part, M, K)
    total[(tl.cdiv(M, BM),)](part, out, M)
