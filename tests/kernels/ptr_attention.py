"""Attention forward in the style of Triton's fused-attention tutorial,
written through tiles of pointers: grid (query blocks, Z*H) with the batch
and head recovered as off_hz // H and off_hz % H, the per-head base offset
off_z * stride_z + off_h * stride_h added to every pointer, an `_attn_inner`
helper that takes the running (acc, l_i, m_i), the pointers and the key
range and returns the updated tuple, and the causal case split into the
blocks before the diagonal (STAGE 1, no mask) and the diagonal block
(STAGE 2, masked), as the tutorial does. A tl.static_assert ties the key
block to the head dimension; the solver keeps it as a constraint.
S is a multiple of BLOCK_M and BLOCK_N (no masks on the sequence), as the
tutorial's kernel assumes.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def _attn_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, offs_m, offs_d, start_m, qk_scale,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, STAGE: tl.constexpr,
                N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
    else:
        lo, hi = 0, N_CTX
    offs_n = tl.arange(0, BLOCK_N)
    k_ptrs = k_base + (lo + offs_n)[None, :] * stride_kn + offs_d[:, None]
    v_ptrs = v_base + (lo + offs_n)[:, None] * stride_vn + offs_d[None, :]
    for start_n in range(lo, hi, BLOCK_N):
        kt = tl.load(k_ptrs)
        qk = tl.dot(q, kt)
        if STAGE == 2:
            causal = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(causal, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs)
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, stride_qz, stride_qh, stride_qm, stride_kz, stride_kh, stride_kn,
             stride_vz, stride_vh, stride_vn, stride_oz, stride_oh, stride_om, H,
             N_CTX: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             STAGE: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z * stride_qz + off_h * stride_qh
    k_base = K + off_z * stride_kz + off_h * stride_kh
    v_base = V + off_z * stride_vz + off_h * stride_vh
    o_base = Out + off_z * stride_oz + off_h * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, offs_m, offs_d,
                                    start_m, qk_scale, BLOCK_M, BLOCK_N, HEAD_DIM, 4 - STAGE, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, offs_m, offs_d,
                                    start_m, qk_scale, BLOCK_M, BLOCK_N, HEAD_DIM, 2, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(Out.type.element_ty))


@loomc.launch
def attention(Z, H, S, D, CAUSAL=0):
    q = loomc.tensor((Z, H, S, D), tl.bfloat16)
    k = loomc.tensor((Z, H, S, D), tl.bfloat16)
    v = loomc.tensor((Z, H, S, D), tl.bfloat16)
    o = loomc.output((Z, H, S, D), tl.bfloat16)
    grid = (triton.cdiv(S, BLOCK_M), Z * H)
    attn_fwd[grid](q, k, v, o, 1.0 / D ** 0.5,
                   q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1), k.stride(2),
                   v.stride(0), v.stride(1), v.stride(2), o.stride(0), o.stride(1), o.stride(2), H,
                   N_CTX=S, HEAD_DIM=D, STAGE=3 if CAUSAL else 1)
