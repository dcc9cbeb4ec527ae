# Loads without a boundary check must stay inside the tensor in every
# program: here each program sums the columns of its diagonal band, K blocks
# of BN columns from pid * BM to (pid + 1) * BM, as a causal attention's
# diagonal stage walks its keys. BN dividing M is not enough: with BM=32 and
# BN=64 the last program's block would end 32 columns past the edge. The
# solver keeps BN <= BM; pinning BN=64 is refused with the constraint's name
# (inbounds_pinned.txt).
# RUN: loomc run %s --arch wormhole_n150 --shape M=160 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=192 --const BM=64 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def band_sums(x_ptr, o_ptr, M, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    lo = pid * BM
    acc = tl.zeros([BM], dtype=tl.float32)
    xb = tl.make_block_ptr(x_ptr, shape=(M, M), strides=(M, 1), offsets=(pid * BM, lo),
                           block_shape=(BM, BN), order=(1, 0))
    for k in range(lo, lo + BM, BN):
        acc += tl.sum(tl.load(xb), axis=1)
        xb = tl.advance(xb, (0, BN))
    ob = tl.make_block_ptr(o_ptr, shape=(M,), strides=(1,), offsets=(pid * BM,), block_shape=(BM,), order=(0,))
    tl.store(ob, acc)


@loomc.launch
def spec(M):
    x = loomc.tensor((M, M), tl.float32)
    o = loomc.output((M,), tl.float32)
    band_sums[(triton.cdiv(M, BM),)](x, o, M)
