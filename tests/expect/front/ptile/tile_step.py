# RUN: loomc ir %s --shape N=64
# EXPECT: :16:9: error: a tile of pointers that a loop carries can only be moved by a scalar step, got a 1-D tile of shape [BLOCK]
# a carried tile of pointers moved by a tile
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr + offs
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in range(0, 4):
        acc += tl.load(p)
        p += offs
    tl.store(y_ptr + offs, acc)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
