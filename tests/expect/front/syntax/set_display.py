# RUN: loomc ir %s --shape M=4
# EXPECT: tests/expect/front/syntax/set_display.py:20:13: error: set displays are not supported in launch specs
# a set display in a launch spec (host code's `assert D in {16, 32}` parses)
import triton
import triton.language as tl
import loomc


@triton.jit
def k(x_ptr, M):
    pass


def host(D):
    assert D in {16, 32, 64}


@loomc.launch
def run(M):
    names = {"a", "b"}
    x = loomc.tensor((M,), tl.float32)
    k[(1,)](x, M)
