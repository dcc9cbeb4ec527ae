# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/walrus.py:6:11: error: assignment expressions (':=') are not supported
# an assignment expression
@triton.jit
def k(x_ptr, n):
    if (m := n // 2) > 0:
        pass
