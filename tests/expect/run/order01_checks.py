# A block pointer walking its tensor out of order (order=(0, 1)) is made in
# the tensor's order plus a transpose; its boundary checks and advances are
# remapped to the swapped dimensions. Here only dimension 0 of the (K, N)
# view of B (stored (N, K)) is checked, K=200 not being a multiple of any
# block, N=320 being one: a check left on the wrong dimension would read
# past K or would not let any schedule fit.
# RUN: loomc run %s --arch wormhole_n150 --shape M=200,N=320,K=200 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=200,N=320,K=200 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def mm_bt(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ab = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))
    bb = tl.make_block_ptr(b_ptr, (K, N), (1, K), (0, pn * BN), (BK, BN), (0, 1))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(ab, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(bb, boundary_check=(0,), padding_option="zero")
        acc = tl.dot(a, b, acc)
        ab = tl.advance(ab, (0, BK))
        bb = tl.advance(bb, (BK, 0))
    cb = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(cb, acc, boundary_check=(0, 1))


@loomc.launch
def spec(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((N, K), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    mm_bt[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, c, M, N, K)
