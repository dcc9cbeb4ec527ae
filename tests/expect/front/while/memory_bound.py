# RUN: loomc ir %s --shape B=4,S=300
# EXPECT: :15:15: error: the bound of this 'while' loop is read from memory at run time (a ragged length or a page table): loomc schedules problems whose sizes are known when it compiles, and cannot size or place programs by what the data holds
# a ragged row walked by a while loop, its length loaded from a tensor
import triton
import triton.language as tl
import loomc


@triton.jit
def ragged_sum(x_ptr, lens_ptr, o_ptr, S, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    n = tl.load(lens_ptr + b)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    s = 0
    while s < n:
        offs = s + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + b * S + offs, mask=offs < n, other=0.0)
        s += BLOCK
    tl.store(o_ptr + b, tl.sum(acc, 0))


@loomc.launch
def spec(B, S):
    x = loomc.tensor((B, S), tl.float32)
    lens = loomc.tensor((B,), tl.int32)
    o = loomc.output((B,), tl.float32)
    ragged_sum[(B,)](x, lens, o, S, BLOCK=64)
