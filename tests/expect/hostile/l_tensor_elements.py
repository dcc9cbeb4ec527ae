# RUN: loomc ir %s --shape M=2147483647 --const BLOCK=32
# EXPECT: :23:23: error: the tensor has more than 1099511627776 (2**40) elements; that is the limit
# a tensor of (2**31 - 1)**2 elements: past 2**40
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
    s = loomc.scratch((M, M), tl.float32)
    y = loomc.output((M,), tl.float32)
    copy[(triton.cdiv(M, BLOCK),)](x, y, M)
