# RUN: loomc ir %s --shape N=64
# EXPECT: :13:9: error: 't' is a tuple and is assigned inside a loop; only tiles and scalars can change from one iteration to the next
# a tuple reassigned inside a loop
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    t = (0, 0)
    for i in range(2):
        t = (i, i)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
