# RUN: loomc ir %s --shape M=64 --const BLOCK=32
# EXPECT: the grid has 0 programs along axis 0; it must have 1 to 2147483647
# a grid of zero programs
import triton
import triton.language as tl
import loomc


@triton.jit
def copy(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(base=x_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK,),
                           block_shape=(BLOCK,), order=(0,))
    yb = tl.make_block_ptr(base=y_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK,),
                           block_shape=(BLOCK,), order=(0,))
    x = tl.load(xb, boundary_check=(0,))
    tl.store(yb, x, boundary_check=(0,))


@loomc.launch
def spec(M):
    x = loomc.tensor((M,), tl.float32)
    y = loomc.output((M,), tl.float32)
    copy[(M - M,)](x, y, M)
