# A select between two constants by a condition on the columns alone
# (tl.where(cols[None, :] < n, 0, -inf), a row of BN values), added to a
# BM x BN block: the select is made at the block's shape, its condition
# extended down the rows, as a block is masked by its element indices but a
# computed row is not repeated down a block. FlashAttention's Triton forward
# masks the key columns past the sequence so when its length is not a
# multiple of the key block; before, the lowering refused the broadcast.
# RUN: loomc run %s --arch wormhole_n150 --shape M=70,N=150,L=131 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=70,N=150,L=131 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def masked_row_max(x_ptr, y_ptr, M, N, n_valid, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = tl.full([BM], float("-inf"), dtype=tl.float32)
    for start in range(0, N, BN):
        c = start + cols
        x = tl.load(x_ptr + rows[:, None] * N + c[None, :], mask=(rows[:, None] < M) & (c[None, :] < N), other=0.0)
        x += tl.where(c[None, :] < n_valid, 0, float("-inf"))
        m = tl.maximum(m, tl.max(x, axis=1))
    tl.store(y_ptr + rows, m, mask=rows < M)


@loomc.launch
def launch(M, N, L):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M,), tl.float32)
    masked_row_max[(triton.cdiv(M, 32),)](x, y, M, N, L, BM=32, BN=64)
