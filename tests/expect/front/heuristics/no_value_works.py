# RUN: loomc compile %s --arch wormhole_n150 --shape N=100
# EXPECT: loomc: error: no combination of the values chosen with the schedule (@triton.heuristics, flags the kernel tests) gives one:
# EXPECT:   with WIDE True: 
# EXPECT: :19:13: error: tl.reshape from [BLOCK] to [2, floordiv(BLOCK, 2)] is not supported: loomc reshapes only by adding or removing dimensions of size 1
# EXPECT:   with WIDE False: 
# EXPECT: :21:13: error: tl.atomic_add is not supported in loomc kernels
# A flag the kernel tests (WIDE, left free by the launch) is scheduled both
# ways; when neither way gives a schedule, the error says why for each.
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, WIDE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N)
    if WIDE:
        z = tl.reshape(x, (2, BLOCK // 2))
    else:
        z = tl.atomic_add(y_ptr + offs, x)
    tl.store(y_ptr + offs, x, mask=offs < N)


@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    k[(triton.cdiv(N, BLOCK),)](x, y, N)
