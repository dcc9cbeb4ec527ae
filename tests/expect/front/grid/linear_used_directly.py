# RUN: loomc ir %s --shape M=100,N=70,B=3
# EXIT: 0
# STDOUT: func @k grid(B, cdiv(M, BM), cdiv(N, BN)) {
# STDOUT: load x  block [1, BM, BN]  at [pid.0, BM*pid.1, BN*pid.2]  (line 23)
# STDOUT: store rowsum  block [1, 1, BM]  at [pid.0, pid.2 + pid.1*cdiv(N, BN), 0]  (line 25)
# A fused (row block, column block) axis split row-major while its linear id
# is also used as an offset of its own: the split stays, and the use is
# rewritten as pid_m * cdiv(N, BN) + pid_n, so the offsets stay affine
# (rowsum is stored [B, cdiv(M, BM) * cdiv(N, BN), BM], one row per tile).
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, rowsum_ptr, M, N, stride_rb, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(0)
    t = tl.program_id(1)
    pm = t // tl.cdiv(N, BN)
    pn = t % tl.cdiv(N, BN)
    xb = tl.make_block_ptr(x_ptr + b * M * N, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    yb = tl.make_block_ptr(y_ptr + b * M * N, (M, N), (N, 1), (pm * BM, pn * BN), (BM, BN), (1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
    tl.store(yb, x * 2.0, boundary_check=(0, 1))
    tl.store(rowsum_ptr + b * stride_rb + t * BM + tl.arange(0, BM), tl.sum(x, 1))


@loomc.launch
def run(M, N, B):
    x = loomc.tensor((B, M, N), tl.float32)
    y = loomc.output((B, M, N), tl.float32)
    rowsum = loomc.output((B, triton.cdiv(M, BM) * triton.cdiv(N, BN), BM), tl.float32)
    k[(B, triton.cdiv(M, BM) * triton.cdiv(N, BN))](x, y, rowsum, M, N, rowsum.stride(0))
