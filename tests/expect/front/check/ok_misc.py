# RUN: loomc ir %s --shape N=100
# EXIT: 0
# STDOUT: trip=2 static
# STDOUT: keep_dims : tile<1 x 1 x 1 x f32>
# STDOUT: F (constexpr) = 0.5 (default)
# accepted: many small constructs at once (nested carried loops, keep_dims and axis=None,
# elif chains, bool ops, module constants, builtins, tl.where on numbers)
import triton
import triton.language as tl
import loomc
from triton.language import constexpr

LOG2E = tl.constexpr(1.4426950408889634)
NEG = -3


@triton.jit
def k(x_ptr, y_ptr, z_ptr, N, scale, flag, BLOCK: constexpr, MODE: tl.constexpr, F: tl.constexpr = 0.5):
    pid = tl.program_id(0)
    npid = tl.num_programs(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0),
                           block_shape=(BLOCK, BLOCK), order=(1, 0))
    x = tl.load(xb, boundary_check=(0,))
    a = x[None, :, :]
    b = tl.sum(a, axis=None, keep_dims=True)
    c = tl.max(x, 0, keep_dims=True) + tl.min(x)
    d = tl.sum(x > 0, axis=1)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    s = 0
    t = 0.0
    for i in range(4):
        for j in tl.static_range(2):
            acc += x * (i + j)
            s += j
        t = t + scale
    if MODE == 0:
        e = 1
    elif MODE == 1 and F > 0.25:
        e = 2
    else:
        e = 3
    g = e if MODE < 5 else 7
    h = (MODE == 1) or (N > 3)
    w = tl.where(True, acc, 0.0)
    ww = tl.where(x > 0.5, 1, 0)
    u = tl.maximum(acc, LOG2E * NEG) + abs(-F) + max(BLOCK, 16) + min(pid, npid)
    v = tl.exp(u).to(tl.bfloat16).to(tl.float32) * F / BLOCK
    q = tl.full((BLOCK,), s, tl.int32)
    r = -x + (~pid) + (not flag)
    sh = x.shape[0] * 2 // 3 % 5
    tl.static_assert(MODE < 2)
    assert MODE >= 0, "mode"
    zb = tl.make_block_ptr(z_ptr, (N, N), (N, 1), (0, 0), (BLOCK, BLOCK), (0, 1))
    tl.store(zb, v + w + ww + q[:, None] + sh + t + r + d[:, None] + c + b.reshape(1, 1), boundary_check=(1, 0))


@loomc.launch
def run(N, MODE=1):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.tensor((N,), tl.int32)
    z = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, z, N, 2.5, True, MODE=MODE)
