# RUN: loomc ir kernels/matmul.py --shape M=2147483648,N=32,K=32
# EXPECT: loomc: error: size M is 2147483648; the limit is 2147483647 (2**31 - 1)
# One past the size limit.
