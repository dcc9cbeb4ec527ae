"""A copy whose store's boundary check stops short of the output tensor's
rows: z's block pointer has M - 20 rows, so the last 20 rows of z are never
written, for the lowering's tests (a block cut short inside the tensor
moves element by element; one cut at the tensor's own extent moves whole
tiles)."""
import triton
import triton.language as tl
import loomc


@triton.jit
def short_copy(x_ptr, z_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    z_blk = tl.make_block_ptr(z_ptr, shape=(M - 20, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk, boundary_check=(0,), padding_option="zero")
    tl.store(z_blk, x * 2.0, boundary_check=(0,))


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    z = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    short_copy[grid](x, z, M, N, BLOCK_N=N)
