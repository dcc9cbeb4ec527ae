# Helpers from other modules of the kernel's project: mylib.acts next to the
# kernel (found from its folder), and kit, found through --include, which
# also re-exports triton.language as tl. The kernel takes tl from kit.
# RUN: loomc run %s --include tests/expect/front/modules/extra --arch wormhole_n150 --shape M=1000 --check
# RUN: loomc run %s --include tests/expect/front/modules/extra --arch blackhole_p150 --shape M=77 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import loomc
from kit import tl, square
from mylib.acts import leaky
from mylib import acts


@triton.jit
def act_chain(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < M)
    y = acts.scaled_leaky(leaky(x, 0.1), 2.0) + square(x)
    tl.store(y_ptr + offs, y, mask=offs < M)


@loomc.launch
def spec(M):
    x = loomc.tensor((M,), tl.float32)
    y = loomc.output((M,), tl.float32)
    act_chain[(triton.cdiv(M, BLOCK),)](x, y, M)
