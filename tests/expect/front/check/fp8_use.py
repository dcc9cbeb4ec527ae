# RUN: loomc ir %s --shape M=100
# EXPECT: :13:33: error: dtype tl.float8e4nv is not supported in loomc kernels (supported: tl.float32, tl.float16, tl.bfloat16, tl.int32, tl.int64, tl.int1)
# an fp8 dtype used as a type: refused where it is used
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, y_ptr, M, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < M)
    tl.store(y_ptr + offs, x.to(tl.float8e4nv).to(tl.float32), mask=offs < M)


@loomc.launch
def spec(M):
    x = loomc.tensor((M,), tl.float32)
    y = loomc.output((M,), tl.float32)
    k[(triton.cdiv(M, BLOCK),)](x, y, M)
