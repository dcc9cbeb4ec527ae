"""Element-wise chains for the lowering's tests (tests/unit/test_lower.c).

x * 0.5 feeds exp2 alone: one chain. The exp2's result is read twice (the row
maximum and the subtraction), so it is stored. b - max feeds the multiply by
y alone, whose result is cast and stored: one chain written straight into the
output's CB. x - 1 is read only after the row maximum, a reduction in
between: stored.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def chain_kernel(x_ptr, y_ptr, o_ptr, o2_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                           block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                           block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    x = tl.load(xb).to(tl.float32)
    y = tl.load(yb).to(tl.float32)
    g = x - 1.0
    b = tl.exp2(x * 0.5)
    m = tl.max(b, axis=1)
    d = ((b - m[:, None]) * y).to(tl.bfloat16)
    h = g * 3.0
    ob = tl.make_block_ptr(o_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                           block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    o2b = tl.make_block_ptr(o2_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BLOCK_M, 0),
                            block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(ob, d)
    tl.store(o2b, h)


@loomc.launch
def chains(M, N):
    x = loomc.tensor((M, N), tl.bfloat16)
    y = loomc.tensor((M, N), tl.bfloat16)
    o = loomc.output((M, N), tl.bfloat16)
    o2 = loomc.output((M, N), tl.float32)
    grid = (triton.cdiv(M, BLOCK_M),)
    chain_kernel[grid](x, y, o, o2, M, N, BLOCK_N=N)
