# A block pointer whose offset is not affine in the program id (pid * pid):
# the access analysis cannot express it, and the scheduler says which load
# it cannot place rather than guessing.
# RUN: loomc compile %s --arch wormhole_n150 --shape N=4096
# EXIT: 1
# EXPECT: non_affine.py:19:9: error: the scheduler cannot place the load of 'x': its block offsets are not affine in the program ids and loop indices
import triton
import triton.language as tl
import loomc


@triton.jit
def square_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    xb = tl.make_block_ptr(base=x_ptr, shape=(N, 32), strides=(32, 1), offsets=(pid * pid, 0),
                           block_shape=(BLOCK, 32), order=(1, 0))
    yb = tl.make_block_ptr(base=y_ptr, shape=(N, 32), strides=(32, 1), offsets=(pid * BLOCK, 0),
                           block_shape=(BLOCK, 32), order=(1, 0))
    x = tl.load(xb, boundary_check=(0,))
    tl.store(yb, x * x, boundary_check=(0,))


@loomc.launch
def square(N):
    x = loomc.tensor((N, 32), tl.float32)
    y = loomc.output((N, 32), tl.float32)
    square_kernel[(triton.cdiv(N, BLOCK),)](x, y, N)
