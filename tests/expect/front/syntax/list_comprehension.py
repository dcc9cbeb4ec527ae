# RUN: loomc ast %s
# EXIT: 0
# STDOUT: (assign (name offs) = (listcomp))
# a list comprehension is read past (host code around kernels has them);
# evaluating one in a kernel is refused (tests/expect/front/check/list_comprehension.py)
@triton.jit
def k(x_ptr):
    offs = [i for i in range(4)]
