# LayerNorm by rows with bf16 data: rstd = 1 / tl.sqrt(var + eps), a sqrt on the
# SFPU and then its reciprocal; rows and widths that are not multiples of 32, on
# both chips.
# RUN: loomc run %s --arch wormhole_n150 --shape M=70,N=96 --check
# RUN: loomc run %s --arch blackhole_p150 --shape M=33,N=50 --check
# EXIT: 0
# STDOUT: check                pass
import triton
import triton.language as tl
import loomc


@triton.jit
def layernorm(x_ptr, y_ptr, M, N, eps, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    x = tl.load(xb, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    cols = tl.arange(0, BN)
    d = tl.where((cols < N)[None, :], x - mean[:, None], 0.0)
    var = tl.sum(d * d, axis=1) / N
    rstd = 1 / tl.sqrt(var + eps)
    yb = tl.make_block_ptr(y_ptr, shape=(M, N), strides=(N, 1), offsets=(pid * BM, 0),
                           block_shape=(BM, BN), order=(1, 0))
    tl.store(yb, (d * rstd[:, None]).to(tl.bfloat16), boundary_check=(0, 1))


@loomc.launch
def spec(M, N):
    x = loomc.tensor((M, N), tl.bfloat16)
    y = loomc.output((M, N), tl.bfloat16)
    layernorm[(triton.cdiv(M, BM),)](x, y, M, N, 1e-5, BN=triton.next_power_of_2(N))
