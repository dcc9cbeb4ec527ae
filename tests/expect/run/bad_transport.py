# Transports are dram, mcast:x|y|xy[:mid] or forward:x|y, each optionally @noc0 or @noc1.
# RUN: loomc run %s --arch wormhole_n150 --shape M=64,N=64,K=64 --transport a=mcast:z
# RUN: loomc run %s --arch wormhole_n150 --shape M=64,N=64,K=64 --transport a=forward:xy
# RUN: loomc run %s --arch wormhole_n150 --shape M=64,N=64,K=64 --transport a=mcast:x@noc2
# EXPECT: expected dram, mcast:x, mcast:y, mcast:xy
import triton
import triton.language as tl
import loomc


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_blk = tl.make_block_ptr(a_ptr, shape=(M, K), strides=(K, 1), offsets=(pid_m * BLOCK_M, 0),
                              block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    b_blk = tl.make_block_ptr(b_ptr, shape=(K, N), strides=(N, 1), offsets=(0, pid_n * BLOCK_N),
                              block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(tl.load(a_blk), tl.load(b_blk), acc=acc)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, shape=(M, N), strides=(N, 1), offsets=(pid_m * BLOCK_M, pid_n * BLOCK_N),
                              block_shape=(BLOCK_M, BLOCK_N), order=(1, 0))
    tl.store(c_blk, acc)


@loomc.launch
def job(M, N, K):
    a = loomc.tensor((M, K), tl.bfloat16)
    b = loomc.tensor((K, N), tl.bfloat16)
    c = loomc.output((M, N), tl.float32)
    mm[(tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N))](a, b, c, M, N, K)
