# y = 2 * x + 1 over a batch of matrices, in the pointer style: the batch
# comes from the third program id and moves the base pointer, the rows and
# columns are masked tiles. bp_batch_scale.py is the block-pointer twin.
import triton
import triton.language as tl
import loomc


@triton.jit
def scale_kernel(x_ptr, y_ptr, R, C, stride_xb, stride_xr, stride_xc, stride_yb, stride_yr, stride_yc,
                 BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    b = tl.program_id(2)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + b * stride_xb + rows[:, None] * stride_xr + cols[None, :] * stride_xc, mask=mask)
    y = x * 2.0 + 1.0
    tl.store(y_ptr + b * stride_yb + rows[:, None] * stride_yr + cols[None, :] * stride_yc, y, mask=mask)


@loomc.launch
def batch_scale(B, R, C):
    x = loomc.tensor((B, R, C), tl.float32)
    y = loomc.output((B, R, C), tl.float32)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C), B)
    scale_kernel[grid](x, y, R, C, x.stride(0), x.stride(1), x.stride(2), y.stride(0), y.stride(1), y.stride(2))
