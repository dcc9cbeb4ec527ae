# RUN: loomc ir %s --shape M=100,N=700
# STDOUT: BLOCK_N (constexpr) = 1024
# EXIT: 0
# triton.next_power_of_2 in a launch spec, as row-wise kernels size their block from the row
import triton
import triton.language as tl
import loomc


@triton.jit
def rows(x_ptr, y_ptr, M, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid, 0), block_shape=(1, BLOCK_N),
                              order=(1, 0))
    y_blk = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid, 0), block_shape=(1, BLOCK_N),
                              order=(1, 0))
    tl.store(y_blk, tl.load(x_blk, boundary_check=(1,)), boundary_check=(1,))


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    rows[(M,)](x, y, M, N, BLOCK_N=triton.next_power_of_2(N))
