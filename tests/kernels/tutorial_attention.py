# Fused attention forward in the style of Triton's tutorial, written for
# loomc's tests: 2-D tensor descriptors over [Z*H*N_CTX, HEAD_DIM], a
# pipelined tl.range over keys with num_stages=, and tl.static_range over
# the heads one program handles (HEADS_PER_PROG), so loops nest and the
# inner loop's carried values start inside the outer one.
# Exercises: kernel defaults for constexprs, tl.static_assert, tl.math.*,
# augmented assignment on tiles and floats, tl.where with Python numbers,
# x.dtype.element_ty of a pointer, positional axis of reductions, acc as a
# positional argument of tl.dot.
import triton
import triton.language as tl
import loomc


@triton.jit
def _attn_fwd(Q, K, V, Out, sm_scale, Z, H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              HEADS_PER_PROG: tl.constexpr, CAUSAL: tl.constexpr, NUM_STAGES: tl.constexpr = 3):
    tl.static_assert(HEAD_DIM <= 256, "head dimension too large")
    start_m = tl.program_id(0)
    first_head = tl.program_id(1) * HEADS_PER_PROG

    y_dim = Z * H * N_CTX
    desc_q = tl.make_tensor_descriptor(Q, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    desc_k = tl.make_tensor_descriptor(K, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_v = tl.make_tensor_descriptor(V, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_o = tl.make_tensor_descriptor(Out, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)

    for h in tl.static_range(HEADS_PER_PROG):
        off_hz = first_head + h
        q_row = off_hz * N_CTX + start_m * BLOCK_M
        kv_row = off_hz * N_CTX
        q = desc_q.load([q_row, 0])

        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        hi = (start_m + 1) * BLOCK_M if CAUSAL else N_CTX

        for start_n in tl.range(0, hi, BLOCK_N, num_stages=NUM_STAGES):
            k = desc_k.load([kv_row + start_n, 0])
            qk = tl.dot(q, tl.trans(k))
            if CAUSAL:
                mask = offs_m[:, None] >= (start_n + offs_n[None, :])
                qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
                m_ij = tl.maximum(m_i, tl.max(qk, 1))
                qk -= m_ij[:, None]
            else:
                m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                qk = qk * qk_scale - m_ij[:, None]
            p = tl.math.exp2(qk)
            l_ij = tl.sum(p, 1)
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + l_ij
            acc = acc * alpha[:, None]
            v = desc_v.load([kv_row + start_n, 0])
            p = p.to(tl.float16)
            acc = tl.dot(p, v, acc)
            m_i = m_ij

        acc = acc / l_i[:, None]
        desc_o.store([q_row, 0], acc.to(Out.dtype.element_ty))


@loomc.launch
def attention(Z, H, N_CTX, HEAD_DIM, CAUSAL=1):
    q = loomc.tensor((Z, H, N_CTX, HEAD_DIM), tl.float16)
    k = loomc.tensor((Z, H, N_CTX, HEAD_DIM), tl.float16)
    v = loomc.tensor((Z, H, N_CTX, HEAD_DIM), tl.float16)
    o = loomc.output((Z, H, N_CTX, HEAD_DIM), tl.float16)
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z * H // 2)
    _attn_fwd[grid](q, k, v, o, HEAD_DIM ** -0.5, Z, H, N_CTX,
                    HEAD_DIM=HEAD_DIM, HEADS_PER_PROG=2, CAUSAL=CAUSAL, num_warps=4)
