"""RMSNorm forward by rows through tiles of pointers, the whole row in one
block (BLOCK the next power of two of its length), in the style of fused
normalisation libraries: pointers moved to the row once, the input cast to
f32, rstd = rsqrt(mean(x^2) + eps) stored per row through a scalar
pointer, and the weight applied with an offset (`w + 1`, a Gemma-style
norm), the output cast back to the input's type.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def rms_norm_rows(Y_ptr, y_stride, X_ptr, x_stride, W_ptr, RSTD_ptr, n_cols, eps, offset,
                  BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    X_ptr += row * x_stride
    Y_ptr += row * y_stride
    RSTD_ptr += row
    x = tl.load(X_ptr + cols, mask=valid, other=0.0)
    x32 = x.to(tl.float32)
    w = tl.load(W_ptr + cols, mask=valid, other=0.0)
    rstd = tl.rsqrt(tl.sum(x32 * x32, axis=0) / n_cols + eps)
    tl.store(RSTD_ptr, rstd)
    y = x32 * rstd * (offset + w)
    tl.store(Y_ptr + cols, y.to(x.dtype), mask=valid)


@loomc.launch
def rmsnorm(M, N):
    x = loomc.tensor((M, N), tl.bfloat16)
    w = loomc.tensor((N,), tl.float32)
    y = loomc.output((M, N), tl.bfloat16)
    rstd = loomc.output((M,), tl.float32)
    rms_norm_rows[(M,)](y, y.stride(0), x, x.stride(0), w, rstd, N, 1e-6, 1.0,
                        BLOCK=triton.next_power_of_2(N))
