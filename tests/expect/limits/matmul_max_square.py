# RUN: loomc ir kernels/matmul.py --shape M=2147483647,N=2147483647,K=2147483647
# EXPECT: error: the tensor has more than 1099511627776 (2**40) elements; that is the limit
# The largest sizes make (2**31 - 1)**2-element operands: past the tensor limit, with the
# product computed in checked arithmetic.
