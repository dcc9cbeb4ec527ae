# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/for_without_in.py:6:11: error: expected 'in' after the 'for' loop variable, found name 'range'
# a 'for' loop without 'in'
@triton.jit
def k(x_ptr, n):
    for i range(n):
        pass
