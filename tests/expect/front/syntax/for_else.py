# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/for_else.py:8:5: error: 'else' after a 'for' loop is not supported
# an 'else' clause on a 'for' loop
@triton.jit
def k(x_ptr):
    for i in range(4):
        pass
    else:
        pass
