# RUN: loomc ir %s --shape N=64
# EXPECT: :19:5: error: 'helper' is not a @triton.jit kernel
# launching a function that is not a kernel
import triton
import triton.language as tl
import loomc


def helper(x_ptr, y_ptr, N):
    pass




@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    helper[(1,)](x, y, N)
