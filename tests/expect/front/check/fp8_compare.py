# RUN: loomc ir %s --shape M=100
# EXIT: 0
# STDOUT: const 7.0 : f32
# STDOUT: const 3.0 : f32
# An fp8 dtype named only in a compile-time test, as kernels that also serve
# fp8 outputs write it: == folds to False and != to True (the constants of
# the branches taken show it), and the kernel compiles.
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < M)
    if y_ptr.dtype.element_ty == tl.float8e4nv:
        x = x * 0.5
    else:
        x = x + 7.0
    if y_ptr.dtype.element_ty != tl.float8e5:
        x = x + 3.0
    else:
        x = x * 0.25
    tl.store(y_ptr + offs, x, mask=offs < M)


@loomc.launch
def spec(M):
    x = loomc.tensor((M,), tl.float32)
    y = loomc.output((M,), tl.float32)
    k[(triton.cdiv(M, BLOCK),)](x, y, M)
