# RUN: loomc ir %s --shape N=64 --const FOO=1
# EXPECT: --const names 'FOO', which is neither an option of launch spec 'run' nor a free constexpr of its kernels (options: none; free constexprs: BLOCK)
# --const naming something that is neither an option nor a free constexpr
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pass


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(1,)](x, y, N)
