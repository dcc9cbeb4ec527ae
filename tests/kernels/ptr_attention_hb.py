"""Attention forward over a fused batch*head grid axis whose id is also used
as it is, in the style of FlashAttention's first Triton kernels: Q, K and V
stored [B, S, H, D] (heads inside the sequence), the program's batch and
head taken as off_hb // H and off_hb % H, and the per-row log-sum-exp
stored at `Lse + off_hb * S_ROUNDED + rows`, the fused id itself as an
offset. loomc splits the axis into (B, H) and rewrites that use as
off_b * H + off_h; `attn_bh` is the twin launched on a 3-D grid with the
batch and head ids apart, and gets the same schedule and result.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def _attend(Q, K, V, Out, Lse, scale, S, off_b, off_h, lse_row, stride_b, stride_s, stride_h, S_ROUNDED,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    base = off_b * stride_b + off_h * stride_h
    q = tl.load(Q + base + rows[:, None] * stride_s + dims[None, :], mask=rows[:, None] < S, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for n0 in range(0, S, BLOCK_N):
        keys = n0 + cols
        k = tl.load(K + base + keys[:, None] * stride_s + dims[None, :], mask=keys[:, None] < S, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        s = tl.where(keys[None, :] < S, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        v = tl.load(V + base + keys[:, None] * stride_s + dims[None, :], mask=keys[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        l_i = l_i * alpha + tl.sum(p, 1)
        m_i = m_new
    tl.store(Lse + lse_row * S_ROUNDED + rows, m_i + tl.log(l_i))
    tl.store(Out + base + rows[:, None] * stride_s + dims[None, :], (acc / l_i[:, None]).to(Out.dtype.element_ty),
             mask=rows[:, None] < S)


@triton.jit
def attn_fused(Q, K, V, Out, Lse, scale, S, H, stride_b, stride_s, stride_h, S_ROUNDED,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_hb = tl.program_id(1)
    off_b = off_hb // H
    off_h = off_hb % H
    _attend(Q, K, V, Out, Lse, scale, S, off_b, off_h, off_hb, stride_b, stride_s, stride_h, S_ROUNDED,
            BLOCK_M, BLOCK_N, HEAD_DIM)


@triton.jit
def attn_bh(Q, K, V, Out, Lse, scale, S, H, stride_b, stride_s, stride_h, S_ROUNDED,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_b = tl.program_id(1)
    off_h = tl.program_id(2)
    _attend(Q, K, V, Out, Lse, scale, S, off_b, off_h, off_b * H + off_h, stride_b, stride_s, stride_h, S_ROUNDED,
            BLOCK_M, BLOCK_N, HEAD_DIM)


@loomc.launch
def fused(B, H, S, D):
    q = loomc.tensor((B, S, H, D), tl.bfloat16)
    k = loomc.tensor((B, S, H, D), tl.bfloat16)
    v = loomc.tensor((B, S, H, D), tl.bfloat16)
    o = loomc.output((B, S, H, D), tl.bfloat16)
    lse = loomc.output((B, H, triton.cdiv(S, 128) * 128), tl.float32)
    attn_fused[(triton.cdiv(S, 128), B * H)](q, k, v, o, lse, 1.0 / D ** 0.5, S, H, q.stride(0), q.stride(1),
                                            q.stride(2), triton.cdiv(S, 128) * 128, BLOCK_M=128, BLOCK_N=64,
                                            HEAD_DIM=D)


@loomc.launch
def split(B, H, S, D):
    q = loomc.tensor((B, S, H, D), tl.bfloat16)
    k = loomc.tensor((B, S, H, D), tl.bfloat16)
    v = loomc.tensor((B, S, H, D), tl.bfloat16)
    o = loomc.output((B, S, H, D), tl.bfloat16)
    lse = loomc.output((B, H, triton.cdiv(S, 128) * 128), tl.float32)
    attn_bh[(triton.cdiv(S, 128), B, H)](q, k, v, o, lse, 1.0 / D ** 0.5, S, H, q.stride(0), q.stride(1),
                                        q.stride(2), triton.cdiv(S, 128) * 128, BLOCK_M=128, BLOCK_N=64,
                                        HEAD_DIM=D)
