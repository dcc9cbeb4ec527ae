# RUN: loomc ir %s --shape M=256,N=320
# EXIT: 0
# STDOUT: func @k grid(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)) {
# STDOUT: load x  block [BLOCK_M, BLOCK_N]  at [BLOCK_M*pid.0, BLOCK_N*pid.1]
# the older tutorial's GROUP_M swizzle (pid % group_size_m) is read as the 2-D grid it stands for
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
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask)
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], x * 3.0, mask=mask)


@loomc.launch
def run(M, N):
    x = loomc.tensor((M, N), tl.float32)
    y = loomc.output((M, N), tl.float32)
    k[(triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)](x, y, M, N, GROUP_M=4)
