# RUN: loomc ir %s --shape N=64
# EXPECT: :15:8: error: loomc reads a run-time 'if' as a guard on the programs that do the kernel's work: bounds `pid < n` on program ids (through <, <=, >, >=, min, and, not) over the rest of the kernel; 0 < pid.0 bounds program id 0 from below (the grid would have to start past 0)
# an if on a run-time value: read as a guard on the programs, but a lower
# bound on the program id is not one loomc takes
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    yb = tl.make_block_ptr(y_ptr, shape=(N, N), strides=(N, 1), offsets=(pid * BLOCK, 0), block_shape=(BLOCK, BLOCK), order=(1, 0))
    if pid > 0:
        x = tl.load(xb)


@loomc.launch
def run(N):
    x = loomc.tensor((N, N), tl.float32)
    y = loomc.output((N, N), tl.float32)
    k[(tl.cdiv(N, BLOCK),)](x, y, N)
