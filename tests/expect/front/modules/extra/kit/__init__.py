# A package that re-exports triton.language as tl and has a helper of its
# own: found through --include (tests/expect/front/modules/).
import triton.language as tl
import triton


@triton.jit
def square(x):
    return x * x
