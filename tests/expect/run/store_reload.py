# A value stored through a tile of pointers and loaded back at once from the
# same pointers, nothing stored in between and no masks, is the stored value
# (FlashAttention's first Triton forward round-trips its rescale factor
# through a scratch buffer so, to dodge a compiler bug of its day): the load
# reads what the store wrote, as the kernel says, and the store stays.
# Without it this kernel is refused by the lowering (the reloaded vector is
# read as a row but used as a column), and FlashAttention's forward, which
# does lower, read the buffer before the write reached it: its check failed.
# RUN: loomc run %s --arch wormhole_n150 --shape M=100,N=200 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=100,N=200 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def running_max(x_ptr, y_ptr, tmp_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    t_ptrs = tmp_ptr + rows
    m = tl.zeros([BM], dtype=tl.float32) - float("inf")
    acc = tl.zeros([BM], dtype=tl.float32)
    for n0 in range(0, N, BN):
        cols = n0 + tl.arange(0, BN)
        x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=(rows[:, None] < M) & (cols[None, :] < N),
                    other=float("-inf"))
        m_new = tl.maximum(m, tl.max(x, 1))
        scale = tl.exp(m - m_new)
        tl.store(t_ptrs, scale)
        scale = tl.load(t_ptrs)
        acc = acc * scale + tl.sum(tl.exp(x - m_new[:, None]), 1)
        m = m_new
    tl.store(y_ptr + rows, m + tl.log(acc), mask=rows < M)


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M,), tl.float32)
    tmp = loomc.scratch((triton.cdiv(M, 32) * 32,), tl.float32)
    running_max[(triton.cdiv(M, 32),)](x, y, tmp, M, N, BM=32, BN=64)
