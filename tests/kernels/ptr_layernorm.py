"""LayerNorm forward by rows through tiles of pointers, in the style of
row-wise Triton kernels that read a long row in chunks.

One program per row. The row's base pointers move by `row * stride` once;
three loops over BLOCK-wide chunks of the row (masked at its end) take the
mean, the variance, then write `(x - mean) * rstd * w + b`. The mean and
1 / sqrt(var + eps) of each row are stored as one element each through
scalar pointers (`Mean + row`). x is bf16, read as f32; w and b are 1-D.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def layer_norm_rows(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        total += tl.load(X + offs, mask=offs < N, other=0.0).to(tl.float32)
    mean = tl.sum(total, axis=0) / N
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        xc = tl.load(X + offs, mask=offs < N, other=0.0).to(tl.float32) - mean
        xc = tl.where(offs < N, xc, 0.0)
        sq += xc * xc
    rstd = 1 / tl.sqrt(tl.sum(sq, axis=0) / N + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        keep = offs < N
        w = tl.load(W + offs, mask=keep)
        b = tl.load(B + offs, mask=keep)
        x = tl.load(X + offs, mask=keep, other=0.0).to(tl.float32)
        tl.store(Y + offs, ((x - mean) * rstd * w + b).to(tl.bfloat16), mask=keep)


@loomc.launch
def layernorm(M, N):
    x = loomc.tensor((M, N), tl.bfloat16)
    w = loomc.tensor((N,), tl.float32)
    b = loomc.tensor((N,), tl.float32)
    y = loomc.output((M, N), tl.bfloat16)
    mean = loomc.output((M,), tl.float32)
    rstd = loomc.output((M,), tl.float32)
    block = min(256, triton.next_power_of_2(N))
    layer_norm_rows[(M,)](x, y, w, b, mean, rstd, x.stride(0), N, 1e-5, BLOCK=block)
