# RUN: loomc ir %s --shape N=64
# EXPECT: :11:5: error: cannot unpack a tuple of 3 values into 2 names
# tuple unpacking with the wrong count
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    a, b = 1, 2, 3


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
