# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/assign_to_call.py:6:5: error: cannot assign to a function call
# an assignment to a call
@triton.jit
def k(x_ptr):
    tl.program_id(0) = 1
