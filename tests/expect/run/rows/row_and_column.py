# A vector read along a tensor's last dimension (a row on the chip) added to
# the per-row values of a block (a column): one vector cannot be both.
# RUN: loomc run %s --arch wormhole_n150 --shape M=64 --check
# EXIT: 1
# EXPECT: row_and_column.py:18:9: error: cannot lower: this vector is used as a row (read along a tensor's last dimension) and, at line 19, as a column (the per-row values of a block); give it one shape, or use a [1, N] or [N, 1] block
import triton
import triton.language as tl
import loomc


@triton.jit
def mixed(x_ptr, v_ptr, o_ptr, M, B: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, shape=(M, M), strides=(M, 1), offsets=(0, 0),
                           block_shape=(B, B), order=(1, 0))
    vb = tl.make_block_ptr(v_ptr, shape=(M,), strides=(1,), offsets=(0,), block_shape=(B,), order=(0,))
    ob = tl.make_block_ptr(o_ptr, shape=(M,), strides=(1,), offsets=(0,), block_shape=(B,), order=(0,))
    x = tl.load(xb)
    v = tl.load(vb)
    s = v + tl.sum(x, axis=1)
    tl.store(ob, s)


@loomc.launch
def spec(M):
    x = loomc.tensor((M, M), tl.float32)
    v = loomc.tensor((M,), tl.float32)
    o = loomc.output((M,), tl.float32)
    mixed[(1,)](x, v, o, M, B=M)
