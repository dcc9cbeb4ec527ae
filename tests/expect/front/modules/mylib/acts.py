# Activations as a project keeps them in a module of their own: @triton.jit
# helpers imported by the kernels (tests/expect/front/modules/).
import triton
import triton.language as tl


@triton.jit
def leaky(x, slope: tl.constexpr):
    return tl.where(x >= 0, x, x * slope)


@triton.jit
def scaled_leaky(x, scale, slope: tl.constexpr = 0.5):
    # calls a helper of its own module
    return leaky(x * scale, slope)
