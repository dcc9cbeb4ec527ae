# RUN: loomc run %s --arch wormhole_n150 --shape M=100,N=70 --check
# EXIT: 0
# STDOUT: check                pass
# tl._experimental_make_tensor_descriptor, the name Triton gave tensor
# descriptors before they became tl.make_tensor_descriptor
import triton
import triton.language as tl
import loomc


@triton.jit
def scale(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    xd = tl._experimental_make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    yd = tl._experimental_make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    yd.store([pm * BM, pn * BN], xd.load([pm * BM, pn * BN]) * 3.0)


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    scale[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, y, M, N)
