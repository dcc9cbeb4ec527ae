# RUN: loomc ir %s --shape N=64
# EXPECT: :12:11: error: the offsets of a tile of pointers must be sums of tl.arange ranges times scalars (used at line 13); these offsets are loaded from memory (a gather), which loomc cannot schedule as block moves
# offsets read from memory (a gather) are refused
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = tl.load(x_ptr + offs).to(tl.int32)
    x = tl.load(x_ptr + idx)
    tl.store(y_ptr + offs, x)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
