"""Two dependent element-wise ops on one block, y = exp(x) then z = y * y,
for the latency model's tests (the chain of dependent ops, and a block a
boundary check cuts short)."""
import triton
import triton.language as tl
import loomc


@triton.jit
def chain(x_ptr, z_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    z_blk = tl.make_block_ptr(z_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk, boundary_check=(0,), padding_option="zero")
    y = tl.exp(x)
    z = y * y
    tl.store(z_blk, z, boundary_check=(0,))


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    z = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    chain[grid](x, z, M, N, BLOCK_N=N)
