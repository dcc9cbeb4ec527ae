# RUN: loomc ir %s --shape N=64
# EXPECT: :14:16: error: the offsets of a tile of pointers must be sums of tl.arange ranges times scalars (used at line 14); 'offs' is carried through a loop; advance the pointers instead (ptrs += step)
# offsets carried through a loop instead of the pointers
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, 4):
        acc += tl.load(x_ptr + offs)
        offs += BLOCK
    tl.store(y_ptr + tl.arange(0, BLOCK), acc)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
