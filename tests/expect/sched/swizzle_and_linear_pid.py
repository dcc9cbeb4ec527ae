# RUN: loomc compile %s --arch wormhole_n150 --shape M=256,N=256
# EXPECT: :25:9: error: the scheduler cannot place the load of 'x': its block offsets are not affine in the program ids and loop indices
# The GROUP_SIZE_M swizzle is read as a 2-D grid only when every use of the
# linear program id goes through it; here the id also picks a row of x
# directly, so the grid stays 1-D and the swizzled offsets are not affine.
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    first = tl.load(x_ptr + (pid % M) * N + cols[None, :])
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x + first, mask=mask)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)](x, y, M, N, GROUP_M=4)
