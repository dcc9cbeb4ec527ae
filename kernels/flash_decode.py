"""Attention for decoding: one new query token per sequence against a long
KV cache, with grouped-query attention (H query heads share HKV kv heads).

With one query row per head there is little work per head, so the KV
sequence is split across NUM_SPLITS programs (split-K for attention):

  decode_split    one program per (batch, kv head, split): the H/HKV query
                  heads that share the kv head are the rows of its Q block;
                  it runs the online softmax over its share of the sequence
                  and writes an unnormalised-free partial output and the
                  log-sum-exp (base 2) of its scores to scratch tensors;
  decode_combine  one program per (batch, kv head, query head of its group):
                  rescales the partial outputs by their log-sum-exp and adds
                  them up.

NUM_SPLITS and BLOCK_N are free: loomc picks them. The Q block has
BLOCK_H >= 16 rows (the query heads of the group, padded), because a matrix
product needs at least 16 rows.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def decode_split(q_ptr, k_ptr, v_ptr, part_ptr, lse_ptr, sm_scale, BHKV, S,
                 GROUP: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_D: tl.constexpr, NUM_SPLITS: tl.constexpr):
    kv = tl.program_id(0)      # batch * HKV + kv head
    split = tl.program_id(1)

    # whole blocks per split, so that no block straddles two splits
    split_len = tl.cdiv(tl.cdiv(S, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * split_len
    end = min(start + split_len, S)

    q_blk = tl.make_block_ptr(q_ptr, shape=(BHKV, GROUP, BLOCK_D), strides=(GROUP * BLOCK_D, BLOCK_D, 1),
                              offsets=(kv, 0, 0), block_shape=(1, BLOCK_H, BLOCK_D), order=(2, 1, 0))
    k_blk = tl.make_block_ptr(k_ptr, shape=(BHKV, S, BLOCK_D), strides=(S * BLOCK_D, BLOCK_D, 1),
                              offsets=(kv, start, 0), block_shape=(1, BLOCK_N, BLOCK_D), order=(2, 1, 0))
    v_blk = tl.make_block_ptr(v_ptr, shape=(BHKV, S, BLOCK_D), strides=(S * BLOCK_D, BLOCK_D, 1),
                              offsets=(kv, start, 0), block_shape=(1, BLOCK_N, BLOCK_D), order=(2, 1, 0))

    q = tl.load(q_blk, boundary_check=(1,), padding_option="zero")
    q = tl.reshape(q, (BLOCK_H, BLOCK_D))
    scale = sm_scale * 1.4426950408889634  # scores in base 2

    m_i = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_D], dtype=tl.float32)
    for n in range(start, end, BLOCK_N):
        k = tl.reshape(tl.load(k_blk, boundary_check=(1,), padding_option="zero"), (BLOCK_N, BLOCK_D))
        v = tl.reshape(tl.load(v_blk, boundary_check=(1,), padding_option="zero"), (BLOCK_N, BLOCK_D))
        scores = tl.dot(q, tl.trans(k)) * scale
        in_seq = (n + tl.arange(0, BLOCK_N)) < S
        scores = tl.where(in_seq[None, :], scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=1))
        rescale = tl.exp2(m_i - m_new)
        p = tl.exp2(scores - m_new[:, None])
        l_i = l_i * rescale + tl.sum(p, axis=1)
        acc = acc * rescale[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
        k_blk = tl.advance(k_blk, (0, BLOCK_N, 0))
        v_blk = tl.advance(v_blk, (0, BLOCK_N, 0))

    # a split past the end of the sequence saw no keys: output 0, lse -inf
    l_safe = tl.where(l_i > 0, l_i, 1.0)
    part = acc / l_safe[:, None]
    lse = m_i + tl.log2(l_safe)

    part_blk = tl.make_block_ptr(part_ptr, shape=(BHKV, NUM_SPLITS, GROUP, BLOCK_D),
                                 strides=(NUM_SPLITS * GROUP * BLOCK_D, GROUP * BLOCK_D, BLOCK_D, 1),
                                 offsets=(kv, split, 0, 0), block_shape=(1, 1, BLOCK_H, BLOCK_D),
                                 order=(3, 2, 1, 0))
    tl.store(part_blk, part.reshape(1, 1, BLOCK_H, BLOCK_D), boundary_check=(2,))
    lse_blk = tl.make_block_ptr(lse_ptr, shape=(BHKV, NUM_SPLITS, GROUP), strides=(NUM_SPLITS * GROUP, GROUP, 1),
                                offsets=(kv, split, 0), block_shape=(1, 1, BLOCK_H), order=(2, 1, 0))
    tl.store(lse_blk, lse.reshape(1, 1, BLOCK_H), boundary_check=(2,))


@triton.jit
def decode_combine(part_ptr, lse_ptr, o_ptr, BHKV,
                   GROUP: tl.constexpr, BLOCK_D: tl.constexpr, NUM_SPLITS: tl.constexpr):
    kv = tl.program_id(0)      # batch * HKV + kv head
    row = tl.program_id(1)     # query head within the group

    lse_blk = tl.make_block_ptr(lse_ptr, shape=(BHKV, NUM_SPLITS, GROUP), strides=(NUM_SPLITS * GROUP, GROUP, 1),
                                offsets=(kv, 0, row), block_shape=(1, NUM_SPLITS, 1), order=(2, 1, 0))
    part_blk = tl.make_block_ptr(part_ptr, shape=(BHKV, NUM_SPLITS, GROUP, BLOCK_D),
                                 strides=(NUM_SPLITS * GROUP * BLOCK_D, GROUP * BLOCK_D, BLOCK_D, 1),
                                 offsets=(kv, 0, row, 0), block_shape=(1, NUM_SPLITS, 1, BLOCK_D),
                                 order=(3, 2, 1, 0))
    lse = tl.reshape(tl.load(lse_blk), (NUM_SPLITS,))
    parts = tl.reshape(tl.load(part_blk), (NUM_SPLITS, BLOCK_D))

    # weight of each split: its share of the total softmax mass
    w = tl.exp2(lse - tl.max(lse, axis=0))
    out = tl.sum(parts * w[:, None], axis=0) / tl.sum(w, axis=0)

    # query heads of one kv head are adjacent: head = kv * GROUP + row
    o_blk = tl.make_block_ptr(o_ptr, shape=(BHKV * GROUP, BLOCK_D), strides=(BLOCK_D, 1),
                              offsets=(kv * GROUP + row, 0), block_shape=(1, BLOCK_D), order=(1, 0))
    tl.store(o_blk, out.to(tl.bfloat16)[None, :])


@loomc.launch
def flash_decode(B, H, HKV, S, D):
    q = loomc.tensor((B, H, D), tl.bfloat16)
    k = loomc.tensor((B, HKV, S, D), tl.bfloat16)
    v = loomc.tensor((B, HKV, S, D), tl.bfloat16)
    o = loomc.output((B, H, D), tl.bfloat16)
    part = loomc.scratch((B * HKV, NUM_SPLITS, H // HKV, D), tl.float32)
    lse = loomc.scratch((B * HKV, NUM_SPLITS, H // HKV), tl.float32)
    decode_split[(B * HKV, NUM_SPLITS)](q, k, v, part, lse, 1.0 / D ** 0.5, B * HKV, S,
                                        GROUP=H // HKV, BLOCK_H=max(16, H // HKV), BLOCK_D=D)
    decode_combine[(B * HKV, H // HKV)](part, lse, o, B * HKV, GROUP=H // HKV, BLOCK_D=D)
