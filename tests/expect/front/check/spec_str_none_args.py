# RUN: loomc ir %s --shape N=256
# EXIT: 0
# STDOUT:     ACTIVATION (constexpr) = "leaky_relu"
# STDOUT:     bias_ptr = None
# STDOUT: = where %
# a string for a constexpr parameter selects code by comparison, and None for
# an optional pointer leaves its branch out, as Triton specialises them
import triton
import triton.language as tl
import loomc


@triton.jit
def act_kernel(x_ptr, bias_ptr, y_ptr, N, BLOCK: tl.constexpr, ACTIVATION: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N)
    if bias_ptr is not None:
        x += tl.load(bias_ptr + offs, mask=offs < N)
    if ACTIVATION == "leaky_relu":
        x = tl.where(x >= 0, x, 0.01 * x)
    tl.store(y_ptr + offs, x, mask=offs < N)


@loomc.launch
def act(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    act_kernel[(triton.cdiv(N, BLOCK),)](x, None, y, N, ACTIVATION="leaky_relu")
