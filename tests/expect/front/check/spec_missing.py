# RUN: loomc ir %s --shape N=64
# EXPECT: : error: no @loomc.launch function: loomc needs a launch spec beside the kernels
# a file without a launch spec
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass
