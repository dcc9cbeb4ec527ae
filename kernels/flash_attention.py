"""Attention forward pass, O = softmax(Q K^T / sqrt(D)) V, with online softmax.

One program owns BLOCK_M query rows of one (batch, head) and streams the keys
and values of that head through in blocks of BLOCK_N, keeping a running row
maximum and row sum so the full score matrix never exists. Scores are kept in
base 2 (exp2 with log2(e) folded into the scale). Causal masking is a launch
option; with it, a program stops at the diagonal.

Tensors are [B, H, S, D]; the kernel views them as [B*H, S, D] so that a
block never straddles two heads and the tail of S is padded by the
descriptor, not read from the next head.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, BH, S,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
                  CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)

    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[BH, S, BLOCK_D], strides=[S * BLOCK_D, BLOCK_D, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[BH, S, BLOCK_D], strides=[S * BLOCK_D, BLOCK_D, 1],
                                       block_shape=[1, BLOCK_N, BLOCK_D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[BH, S, BLOCK_D], strides=[S * BLOCK_D, BLOCK_D, 1],
                                       block_shape=[1, BLOCK_N, BLOCK_D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[BH, S, BLOCK_D], strides=[S * BLOCK_D, BLOCK_D, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_D])

    row0 = start_m * BLOCK_M
    q = q_desc.load([bh, row0, 0]).reshape(BLOCK_M, BLOCK_D)
    rows = row0 + tl.arange(0, BLOCK_M)
    qk_scale = sm_scale * 1.4426950408889634  # 1/ln(2): exp(x) = exp2(x * log2(e))

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)

    if CAUSAL:
        kv_end = min(row0 + BLOCK_M, S)   # keys past the last row are all masked
    else:
        kv_end = S

    for start_n in tl.range(0, kv_end, BLOCK_N):
        k = k_desc.load([bh, start_n, 0]).reshape(BLOCK_N, BLOCK_D)
        v = v_desc.load([bh, start_n, 0]).reshape(BLOCK_N, BLOCK_D)
        s = tl.dot(q, k.T) * qk_scale
        cols = start_n + tl.arange(0, BLOCK_N)
        keep = cols[None, :] < S
        if CAUSAL:
            keep = keep & (rows[:, None] >= cols[None, :])
        s = tl.where(keep, s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = tl.dot(p.to(tl.bfloat16), v, acc=acc * alpha[:, None])
        m_i = m_new

    out = acc / l_i[:, None]
    o_desc.store([bh, row0, 0], out.to(tl.bfloat16).reshape(1, BLOCK_M, BLOCK_D))


@loomc.launch
def attention(B, H, S, D, CAUSAL=0):
    q = loomc.tensor((B, H, S, D), tl.bfloat16)
    k = loomc.tensor((B, H, S, D), tl.bfloat16)
    v = loomc.tensor((B, H, S, D), tl.bfloat16)
    o = loomc.output((B, H, S, D), tl.bfloat16)
    grid = (tl.cdiv(S, BLOCK_M), B * H)
    attention_fwd[grid](q, k, v, o, 1.0 / D ** 0.5, B * H, S,
                        BLOCK_D=D, CAUSAL=CAUSAL)
