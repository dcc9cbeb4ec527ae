# RUN: loomc ir %s --shape M=100
# EXPECT: :20:44: error: free constexpr 'BLOCK' has no value here, but a comparison needs one (pin it with --const BLOCK=...)
# A heuristic on a free block size (EVEN = M % BLOCK == 0) cannot be decided
# before the solver picks BLOCK: pin it, or give the kernel its boundary checks.
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, M, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M,), strides=(1,), offsets=(pid * BLOCK,), block_shape=(BLOCK,), order=(0,))
    tl.store(xb, tl.load(xb, boundary_check=(0,)), boundary_check=(0,))


@loomc.launch
def spec(M):
    x = loomc.output((M,), tl.float32)
    k[(triton.cdiv(M, BLOCK),)](x, M, EVEN=M % BLOCK == 0)
