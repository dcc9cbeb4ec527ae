# RUN: loomc ir %s --shape M=256,N=256
# EXIT: 0
# STDOUT: autotune: 2 configs a tuner would try (loomc chooses the values itself)
# STDOUT: autotune config 1: BLOCK_M=64 BLOCK_N=64 num_stages=3 num_warps=4
# STDOUT: autotune config 2: BLOCK_M=128 BLOCK_N=32 GROUP=8 num_warps=8
# STDOUT: free constexprs: BLOCK_M, BLOCK_N
# autotune and heuristics decorators are read, not evaluated: their dicts and
# lambdas parse, the configs are shown, and loomc still chooses the blocks
import triton
import triton.language as tl
import loomc


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_stages=3, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 32, "GROUP": 8}, num_warps=8),
    ],
    key=["M", "N"],
    prune_configs_by={"early_config_prune": None},
)
@triton.heuristics({"EVEN_M": lambda args: args["M"] % args["BLOCK_M"] == 0})
@triton.jit
def copy_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x, mask=mask)


@loomc.launch
def copy(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    copy_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, y, M, N)
