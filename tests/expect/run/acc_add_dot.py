# `acc += tl.dot(a, b)` in the K loop: the accumulator is carried from trip
# to trip (not accumulated in place), so the writer must wait for the loop's
# last value, not write out the first page the carry pushes (the zeros it
# starts from). Both chips, fp32 output straight from the carry.
# RUN: loomc run %s --arch wormhole_n150 --shape M=200,N=328,K=200 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=64,N=64,K=96 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    ab = tl.make_block_ptr(a_ptr, (M, K), (K, 1), (pm * BM, 0), (BM, BK), (1, 0))
    bb = tl.make_block_ptr(b_ptr, (K, N), (N, 1), (0, pn * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(ab, boundary_check=(0, 1), padding_option="zero"),
                      tl.load(bb, boundary_check=(0, 1), padding_option="zero"))
        ab = tl.advance(ab, (0, BK))
        bb = tl.advance(bb, (BK, 0))
    cb = tl.make_block_ptr(c_ptr, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    tl.store(cb, acc, boundary_check=(0, 1))


@loomc.launch
def spec(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    mm[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, c, M, N, K)
