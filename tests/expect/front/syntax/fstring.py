# RUN: loomc ir %s --shape N=64
# EXPECT: tests/expect/front/syntax/fstring.py:13:11: error: f-strings are not supported in loomc kernels; use a plain string literal
# an f-string in kernel code is refused where it is evaluated; the one in the
# host code below the kernel only has to be read
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    msg = f"x = {BLOCK}"
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def host(x):
    print(f"launching on {x.shape[0]} rows: {x['a']!r:>10}")
    return [2 * i for i in range(x.shape[0]) if i % 2]


@loomc.launch
def run(N):
    x = loomc.tensor((N,), tl.float32)
    y = loomc.output((N,), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
