"""Identities for the lowering's tests (tests/unit/test_lower.c, identities_at_one_row):
each program folds the R rows of its block into one. With R = 1 the reductions over
the R rows are the row itself, max(x) - max(x) is 0, and x * 1, 1 * x, x + 0, 0 + x,
x - 0 and x / 1 are x, so the compute is one copy of the row into the output's
format (docs/scheduler.md, "Identities at the schedule's values"); with R = 3 the
reductions run.
"""
import triton
import triton.language as tl
import loomc


@triton.jit
def fold_rows(x_ptr, o_ptr, M, N: tl.constexpr, R: tl.constexpr):
    m = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M * R, N), strides=(N, 1), offsets=(m * R, 0),
                           block_shape=(R, N), order=(1, 0))
    x = tl.load(xb)
    top = tl.max(x, axis=0)
    y = 0.0 + (1.0 * tl.sum(x * 1.0 + 0.0, axis=0)) - 0.0
    z = tl.max(x, axis=0) - top
    out = y / 1.0 + z
    ob = tl.make_block_ptr(o_ptr, shape=(M, N), strides=(N, 1), offsets=(m, 0), block_shape=(1, N), order=(1, 0))
    tl.store(ob, out.to(tl.bfloat16)[None, :])


@loomc.launch
def launch(M, N, R):
    x = loomc.tensor((M * R, N), tl.float32)
    o = loomc.output((M, N), tl.bfloat16)
    fold_rows[(M,)](x, o, M, N=N, R=R)
