# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/list_comprehension.py:6:19: error: list comprehensions are not supported
# a list comprehension
@triton.jit
def k(x_ptr):
    offs = [i * 2 for i in range(4)]
