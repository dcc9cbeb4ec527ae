# y = 2 * x + 1 over a batch of matrices with block pointers whose base is
# moved to the batch; ptr_batch_scale.py is the pointer-style twin.
import triton
import triton.language as tl
import loomc


@triton.jit
def scale_kernel(x_ptr, y_ptr, R, C, stride_xb, stride_xr, stride_xc, stride_yb, stride_yr, stride_yc,
                 BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    b = tl.program_id(2)
    xb = tl.make_block_ptr(x_ptr + b * stride_xb, (R, C), (stride_xr, stride_xc),
                           (pid_r * BLOCK_R, pid_c * BLOCK_C), (BLOCK_R, BLOCK_C), (1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
    y = x * 2.0 + 1.0
    yb = tl.make_block_ptr(y_ptr + b * stride_yb, (R, C), (stride_yr, stride_yc),
                           (pid_r * BLOCK_R, pid_c * BLOCK_C), (BLOCK_R, BLOCK_C), (1, 0))
    tl.store(yb, y, boundary_check=(0, 1))


@loomc.launch
def batch_scale(B, R, C):
    x = loomc.tensor((B, R, C), tl.float32)
    y = loomc.output((B, R, C), tl.float32)
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C), B)
    scale_kernel[grid](x, y, R, C, x.stride(0), x.stride(1), x.stride(2), y.stride(0), y.stride(1), y.stride(2))
