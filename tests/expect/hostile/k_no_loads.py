# RUN: loomc ir %s --shape M=64
# EXIT: 0
# STDOUT: store y  block [32]
# a kernel with no loads: it only stores a constant
import triton
import triton.language as tl
import loomc


@triton.jit
def fill(y_ptr, M):
    yb = tl.make_block_ptr(base=y_ptr, shape=(M,), strides=(1,), offsets=(0,), block_shape=(32,), order=(0,))
    tl.store(yb, tl.full((32,), 1.5, tl.float32), boundary_check=(0,))


@loomc.launch
def spec(M):
    y = loomc.output((M,), tl.float32)
    fill[(1,)](y, M)
