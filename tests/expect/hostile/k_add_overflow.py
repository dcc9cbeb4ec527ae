# RUN: loomc ir %s --shape M=64
# EXPECT: 14:9: error: integer overflow in '*' (4611686018427387904 * 4 does not fit in 64 bits)
# 2**62 * 4: known integers overflow where they are multiplied
import triton
import triton.language as tl
import loomc


@triton.jit
def copy(x_ptr, y_ptr, M):
    xb = tl.make_block_ptr(base=x_ptr, shape=(M,), strides=(1,), offsets=(0,), block_shape=(32,), order=(0,))
    yb = tl.make_block_ptr(base=y_ptr, shape=(M,), strides=(1,), offsets=(0,), block_shape=(32,), order=(0,))
    x = tl.load(xb, boundary_check=(0,))
    z = 4611686018427387904 * 4
    x = x * z
    tl.store(yb, x, boundary_check=(0,))


@loomc.launch
def spec(M):
    x = loomc.tensor((M,), tl.float32)
    y = loomc.output((M,), tl.float32)
    copy[(1,)](x, y, M)
