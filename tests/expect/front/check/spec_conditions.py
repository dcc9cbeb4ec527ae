# RUN: loomc ir %s --shape M=100,N=700 --const CAUSAL=1
# STDOUT: STAGE (constexpr) = 3
# STDOUT: EVEN_N (constexpr) = False
# STDOUT: WIDE (constexpr) = True
# STDOUT: MODE (constexpr) = 2
# STDOUT: SMALL (constexpr) = True
# EXIT: 0
# Conditions in a launch spec, as heuristics and launchers write them: a
# conditional expression, comparisons of sizes, `and`, `or`, `not`, string
# and None tests. Each is evaluated at the launch's sizes.
import triton
import triton.language as tl
import loomc


@triton.jit
def rows(x_ptr, y_ptr, M, N, BLOCK_N: tl.constexpr, STAGE: tl.constexpr, EVEN_N: tl.constexpr,
         WIDE: tl.constexpr, MODE: tl.constexpr, SMALL: tl.constexpr):
    pid = tl.program_id(0)
    x_blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid, 0), block_shape=(1, BLOCK_N),
                              order=(1, 0))
    y_blk = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid, 0), block_shape=(1, BLOCK_N),
                              order=(1, 0))
    tl.store(y_blk, tl.load(x_blk, boundary_check=(1,)), boundary_check=(1,))


@loomc.launch
def run(M, N, CAUSAL=0):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    block = triton.next_power_of_2(N)
    act = None
    rows[(M,)](x, y, M, N, BLOCK_N=block, STAGE=3 if CAUSAL else 1, EVEN_N=N % block == 0,
               WIDE=N > 512 and not M > 1000, MODE=(act == "gelu") or 2, SMALL=act is None or M < 10)
