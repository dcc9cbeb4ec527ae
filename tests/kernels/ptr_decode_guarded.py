"""Split-K grouped-query decode attention whose splits are guarded, in the
style of serving engines' decode kernels: the launch always starts
NUM_SPLITS programs per kv head (each taking its GROUP query heads), each split covers a whole number of BLOCK_N keys, and a
split that starts past the sequence does nothing (`if end > start:` around
the whole program). The combine stage walks only the splits that ran, with a
loop over cdiv(S, per_split) of them, folding each split's log-sum-exp and
partial output into a running maximum, weight and sum.

loomc reads the guard as a bound on the split axis of the grid: only the
programs with split < cdiv(S, per_split) do work, so the grid is
min(NUM_SPLITS, cdiv(S, per_split)) along it.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def decode_split(Q, K, V, Mid_O, Mid_LSE, sm_scale, S,
                 stride_qh, stride_kh, stride_ks, stride_oh, stride_os, stride_lh,
                 GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr):
    kvh = tl.program_id(0)
    split = tl.program_id(1)
    per_split = tl.cdiv(tl.cdiv(S, NUM_SPLITS), BLOCK_N) * BLOCK_N
    start = split * per_split
    end = tl.minimum(start + per_split, S)
    if end > start:
        heads = kvh * GROUP + tl.arange(0, GROUP)
        offs_d = tl.arange(0, HEAD_DIM)
        offs_n = tl.arange(0, BLOCK_N)
        q = tl.load(Q + heads[:, None] * stride_qh + offs_d[None, :])
        m_i = tl.zeros([GROUP], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([GROUP], dtype=tl.float32)
        acc = tl.zeros([GROUP, HEAD_DIM], dtype=tl.float32)
        for n in range(start, end, BLOCK_N):
            keys = n + offs_n
            k = tl.load(K + kvh * stride_kh + keys[:, None] * stride_ks + offs_d[None, :],
                        mask=keys[:, None] < S, other=0.0)
            qk = tl.dot(q, tl.trans(k)) * sm_scale
            qk = tl.where(keys[None, :] < S, qk, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.exp(qk - m_new[:, None])
            alpha = tl.exp(m_i - m_new)
            v = tl.load(V + kvh * stride_kh + keys[:, None] * stride_ks + offs_d[None, :],
                        mask=keys[:, None] < S, other=0.0)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
            l_i = l_i * alpha + tl.sum(p, 1)
            m_i = m_new
        tl.store(Mid_O + heads[:, None] * stride_oh + split * stride_os + offs_d[None, :], acc / l_i[:, None])
        tl.store(Mid_LSE + heads * stride_lh + split, m_i + tl.log(l_i))


@triton.jit
def decode_combine(Mid_O, Mid_LSE, O, S, stride_oh, stride_os, stride_lh, stride_fh,
                   HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, NUM_SPLITS: tl.constexpr):
    h = tl.program_id(0)
    per_split = tl.cdiv(tl.cdiv(S, NUM_SPLITS), BLOCK_N) * BLOCK_N
    offs_d = tl.arange(0, HEAD_DIM)
    m = float("-inf")
    w = 0.0
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)
    for s in range(0, tl.cdiv(S, per_split)):
        lse = tl.load(Mid_LSE + h * stride_lh + s)
        part = tl.load(Mid_O + h * stride_oh + s * stride_os + offs_d)
        m_new = tl.maximum(m, lse)
        scale = tl.exp(m - m_new)
        e = tl.exp(lse - m_new)
        acc = acc * scale + part * e
        w = w * scale + e
        m = m_new
    tl.store(O + h * stride_fh + offs_d, (acc / w).to(O.dtype.element_ty))


@loomc.launch
def decode(H, HKV, S, D, NUM_SPLITS=8):
    q = loomc.tensor((H, D), tl.bfloat16)
    k = loomc.tensor((HKV, S, D), tl.bfloat16)
    v = loomc.tensor((HKV, S, D), tl.bfloat16)
    mid_o = loomc.scratch((H, NUM_SPLITS, D), tl.float32)
    mid_lse = loomc.scratch((H, NUM_SPLITS), tl.float32)
    o = loomc.output((H, D), tl.bfloat16)
    decode_split[(HKV, NUM_SPLITS)](q, k, v, mid_o, mid_lse, 1.0 / D ** 0.5, S,
                                    q.stride(0), k.stride(0), k.stride(1), mid_o.stride(0), mid_o.stride(1),
                                    mid_lse.stride(0), GROUP=H // HKV, HEAD_DIM=D, BLOCK_N=64,
                                    NUM_SPLITS=NUM_SPLITS)
    decode_combine[(H,)](mid_o, mid_lse, o, S, mid_o.stride(0), mid_o.stride(1), mid_lse.stride(0), o.stride(0),
                         HEAD_DIM=D, BLOCK_N=64, NUM_SPLITS=NUM_SPLITS)
