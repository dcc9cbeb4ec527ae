"""Flash attention forward with tensor descriptors and an online softmax."""
import triton
import triton.language as tl
import loomc


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, Z, H, S,
             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_zh = tl.program_id(1)
    rows = Z * H * S
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, [rows, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    base = off_zh * S
    q = q_desc.load([base + start_m * BLOCK_M, 0])
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.full([BLOCK_M], 1.0, dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504  # 1/ln(2): exp2 instead of exp
    hi = (start_m + 1) * BLOCK_M if CAUSAL else S
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    for start_n in tl.range(0, hi, BLOCK_N, num_stages=2):
        k = k_desc.load([base + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        if CAUSAL:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([base + start_n, 0])
        acc = tl.dot(p.to(tl.bfloat16), v, acc=acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    o_desc.store([base + start_m * BLOCK_M, 0], acc.to(tl.bfloat16))


@loomc.launch
def attention(B, H, S, D, CAUSAL=0):
    q = loomc.tensor((B, H, S, D), tl.bfloat16)
    k = loomc.tensor((B, H, S, D), tl.bfloat16)
    v = loomc.tensor((B, H, S, D), tl.bfloat16)
    o = loomc.output((B, H, S, D), tl.bfloat16)
    attn_fwd[(tl.cdiv(S, BLOCK_M), B * H)](q, k, v, o, 1.0 / D ** 0.5, B, H, S,
                                           HEAD_DIM=D, CAUSAL=CAUSAL)
