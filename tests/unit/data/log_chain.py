"""y = log2(x) read once, by z = y * w: one chain of two steps, as for
dst_chain.py, whose SFPU step the latency model prices at the description's
exact exp (no description gives a log; the simulator charges that)."""
import triton
import triton.language as tl
import loomc


@triton.jit
def log_chain(x_ptr, w_ptr, z_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    w_blk = tl.make_block_ptr(w_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    z_blk = tl.make_block_ptr(z_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    y = tl.log2(tl.load(x_blk))
    z = y * tl.load(w_blk)
    tl.store(z_blk, z)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    w = loomc.tensor((M, N), tl.float32)
    z = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    log_chain[grid](x, w, z, M, N, BLOCK_N=N)
