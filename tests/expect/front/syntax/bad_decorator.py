# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/bad_decorator.py:4:2: error: a decorator must be a dotted name such as 'triton.jit'
# a decorator that is not a dotted name
@(triton.jit)
def k(x_ptr):
    pass
