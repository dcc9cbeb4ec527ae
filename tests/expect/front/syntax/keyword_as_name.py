# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/keyword_as_name.py:5:5: error: expected a function name after 'def', found keyword 'lambda'
# a keyword used as a function name
@triton.jit
def lambda(x_ptr):
    pass
