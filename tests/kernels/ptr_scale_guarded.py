"""Row blocks scaled through tiles of pointers, launched on more programs
than there are blocks, as launchers that round a grid up write them: the
programs past the last block do nothing, said two ways - the work inside
`if pid < blocks:`, or `if pid >= blocks: return` before it. `scale_exact`
is the same kernel on exactly cdiv(M, BM) programs. loomc reads each guard
as a bound on the grid's axis, so all three get one schedule and one
result.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def _scale_block(x_ptr, y_ptr, M, N, pid, BM: tl.constexpr, BN: tl.constexpr):
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=inside, other=0.0)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x * 2.0 + 1.0, mask=inside)


@triton.jit
def scale_guarded(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    if pid < tl.cdiv(M, BM):
        _scale_block(x_ptr, y_ptr, M, N, pid, BM, BN)


@triton.jit
def scale_early(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    if pid >= tl.cdiv(M, BM):
        return
    _scale_block(x_ptr, y_ptr, M, N, pid, BM, BN)


@triton.jit
def scale_exact(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    _scale_block(x_ptr, y_ptr, M, N, tl.program_id(0), BM, BN)


@loomc.launch
def guarded(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    scale_guarded[(triton.cdiv(M, BM) + 3,)](x, y, M, N, BN=triton.next_power_of_2(N))


@loomc.launch
def early(M, N, PROGRAMS=64):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    scale_early[(PROGRAMS,)](x, y, M, N, BN=triton.next_power_of_2(N))


@loomc.launch
def exact(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    scale_exact[(triton.cdiv(M, BM),)](x, y, M, N, BN=triton.next_power_of_2(N))
