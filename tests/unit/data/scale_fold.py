"""A positive scale folded into the exponential, and the cases where it
must not be: s = x * c, m = max(s, axis=1), p = exp(s - m[:, None]).

CASE 0: c = 0.5, p stored: s, m and s - m are held divided by c (s is x's
        own pages), the exponential takes c into its argument;
CASE 1: as 0, and s stored too: s's true value is needed, nothing folds;
CASE 2: c = -0.5: a negative scale does not commute with the maximum;
CASE 3: c = 0.5 and y = maximum(s, 1.0) in place of s: the constant is
        read divided by c (2.0), and the class folds.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def scale_fold(x_ptr, p_ptr, s_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CASE: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    p_blk = tl.make_block_ptr(p_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    s_blk = tl.make_block_ptr(s_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(x_blk)
    if CASE == 2:
        s = x * -0.5
    else:
        s = x * 0.5
    if CASE == 3:
        s = tl.maximum(s, 1.0)
    m = tl.max(s, axis=1)
    p = tl.exp(s - m[:, None])
    tl.store(p_blk, p)
    if CASE == 1:
        tl.store(s_blk, s)


@loomc.launch
def run(M, N, CASE=0):
    x = loomc.tensor((M, N), tl.float32)
    p = loomc.output((M, N), tl.float32)
    s = loomc.output((M, N), tl.float32)
    grid = (tl.cdiv(M, BLOCK_M),)
    scale_fold[grid](x, p, s, M, N, BLOCK_N=N, CASE=CASE)
