# RUN: loomc ir %s --shape N=64
# EXPECT: :11:25: error: tl.program_id(1) asks for grid axis 1, but launch 0 of 'run' has a 1-D grid
# a program id axis beyond the launch grid
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(1)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
