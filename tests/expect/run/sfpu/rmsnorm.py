# RMSNorm by rows: rstd = tl.rsqrt(mean(x^2) + eps), the rsqrt an SFPU op on the
# block's column of per-row values; row counts and widths that are not multiples
# of 32 (partial tiles masked), on both chips.
# RUN: loomc run %s --arch wormhole_n150 --shape M=100,N=72 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=50,N=200 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def rmsnorm(x_ptr, y_ptr, M, N, eps, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
    ms = tl.sum(x * x, axis=1) / N
    rstd = tl.rsqrt(ms + eps)
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    tl.store(yb, x * rstd[:, None], boundary_check=(0, 1))


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    rmsnorm[(triton.cdiv(M, BM),)](x, y, M, N, 1e-6, BN=triton.next_power_of_2(N))
