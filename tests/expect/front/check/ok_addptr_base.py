# RUN: loomc ir %s --shape R=64,C=1000
# EXIT: 0
# STDOUT: addptr %0, %8 : ptr<f32>
# STDOUT: load x  block [1, BLOCK_C]  at [pid.0, BLOCK_C*iv.0]
# accepted: scalar pointer arithmetic as the base of a block pointer
import triton
import triton.language as tl
import loomc


@triton.jit
def rowsum(x_ptr, y_ptr, R, C, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    base = x_ptr + row * C
    xb = tl.make_block_ptr(base, shape=(1, C), strides=(C, 1), offsets=(0, 0), block_shape=(1, BLOCK_C), order=(1, 0))
    total = tl.zeros((1,), dtype=tl.float32)
    for c in range(0, C, BLOCK_C):
        total += tl.sum(tl.load(xb, boundary_check=(1,), padding_option="zero"), axis=1)
        xb = tl.advance(xb, (0, BLOCK_C))
    yb = tl.make_block_ptr(y_ptr, shape=(R,), strides=(1,), offsets=(row,), block_shape=(1,), order=(0,))
    tl.store(yb, total)


@loomc.launch
def run(R, C):
    x = loomc.tensor((R, C), tl.float32)
    y = loomc.output((R,), tl.float32)
    rowsum[(R,)](x, y, R, C)
