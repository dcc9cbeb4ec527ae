"""Split-K decode attention through tiles of pointers, in the style of
serving engines' grouped-query decode kernels.

Stage 1, grid (batch, kv heads, NUM_SPLITS): each program takes the
GROUP query heads of one kv head (one token each), walks its split of the
keys in BLOCK_N blocks with an online softmax, and stores the unnormalised
partial output and its log-sum-exp through pointers (the LSE one value per
head, a vector store along the head dimension). Stage 2, grid (batch,
heads): combines the splits' partials with the LSE weights.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def decode_stage1(Q, K, V, Mid_O, Mid_LSE, sm_scale, S,
                  stride_qb, stride_qh, stride_kb, stride_kh, stride_ks,
                  stride_ob, stride_oh, stride_os, stride_lb, stride_lh,
                  GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    split = tl.program_id(2)
    heads = kvh * GROUP + tl.arange(0, GROUP)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(Q + b * stride_qb + heads[:, None] * stride_qh + offs_d[None, :])

    per_split = tl.cdiv(tl.cdiv(S, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, S)
    m_i = tl.zeros([GROUP], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([GROUP], dtype=tl.float32)
    acc = tl.zeros([GROUP, HEAD_DIM], dtype=tl.float32)
    k_base = K + b * stride_kb + kvh * stride_kh
    v_base = V + b * stride_kb + kvh * stride_kh
    for n in range(start, end, BLOCK_N):
        keys = n + offs_n
        in_seq = keys < S
        k = tl.load(k_base + keys[:, None] * stride_ks + offs_d[None, :], mask=in_seq[:, None], other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(in_seq[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_base + keys[:, None] * stride_ks + offs_d[None, :], mask=in_seq[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_new
    l_safe = tl.where(l_i > 0, l_i, 1.0)
    o_ptrs = Mid_O + b * stride_ob + heads[:, None] * stride_oh + split * stride_os + offs_d[None, :]
    tl.store(o_ptrs, acc / l_safe[:, None])
    tl.store(Mid_LSE + b * stride_lb + heads * stride_lh + split, m_i + tl.log(l_safe))


@triton.jit
def decode_stage2(Mid_O, Mid_LSE, O, stride_ob, stride_oh, stride_os, stride_lb, stride_lh,
                  stride_fb, stride_fh, HEAD_DIM: tl.constexpr, NUM_SPLITS: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    offs_s = tl.arange(0, NUM_SPLITS)
    offs_d = tl.arange(0, HEAD_DIM)
    lse = tl.load(Mid_LSE + b * stride_lb + h * stride_lh + offs_s)
    parts = tl.load(Mid_O + b * stride_ob + h * stride_oh + offs_s[:, None] * stride_os + offs_d[None, :])
    w = tl.exp(lse - tl.max(lse, 0))
    out = tl.sum(parts * w[:, None], 0) / tl.sum(w, 0)
    tl.store(O + b * stride_fb + h * stride_fh + offs_d, out.to(O.dtype.element_ty))


@loomc.launch
def decode(B, H, HKV, S, D, NUM_SPLITS=4):
    q = loomc.tensor((B, H, D), tl.bfloat16)
    k = loomc.tensor((B, HKV, S, D), tl.bfloat16)
    v = loomc.tensor((B, HKV, S, D), tl.bfloat16)
    mid_o = loomc.scratch((B, H, NUM_SPLITS, D), tl.float32)
    mid_lse = loomc.scratch((B, H, NUM_SPLITS), tl.float32)
    o = loomc.output((B, H, D), tl.bfloat16)
    decode_stage1[(B, HKV, NUM_SPLITS)](q, k, v, mid_o, mid_lse, 1.0 / D ** 0.5, S,
                                        q.stride(0), q.stride(1), k.stride(0), k.stride(1), k.stride(2),
                                        mid_o.stride(0), mid_o.stride(1), mid_o.stride(2),
                                        mid_lse.stride(0), mid_lse.stride(1),
                                        GROUP=H // HKV, HEAD_DIM=D, NUM_SPLITS=NUM_SPLITS)
    decode_stage2[(B, H)](mid_o, mid_lse, o, mid_o.stride(0), mid_o.stride(1), mid_o.stride(2),
                          mid_lse.stride(0), mid_lse.stride(1), o.stride(0), o.stride(1),
                          HEAD_DIM=D, NUM_SPLITS=NUM_SPLITS)
