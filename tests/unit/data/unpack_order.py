"""Three element-wise ops on one block in program order, for the latency
model's test of the unpacker's order: y = exp(x); w = x * x, which reads
only the load; z = exp(y), which reads y. w and z are stored."""
import triton
import triton.language as tl
import loomc


@triton.jit
def three(x_ptr, w_ptr, z_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    w_blk = tl.make_block_ptr(w_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    z_blk = tl.make_block_ptr(z_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk)
    y = tl.exp(x)
    w = x * x
    z = tl.exp(y)
    tl.store(w_blk, w)
    tl.store(z_blk, z)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    w = loomc.output((M, N), tl.float32)
    z = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    three[grid](x, w, z, M, N, BLOCK_N=N)
