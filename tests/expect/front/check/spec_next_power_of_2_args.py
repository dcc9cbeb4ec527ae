# RUN: loomc ir %s --shape N=64
# EXPECT: :18:28: error: triton.next_power_of_2 takes one integer
# next_power_of_2 with two arguments
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N, BLOCK=triton.next_power_of_2(N, 2))
