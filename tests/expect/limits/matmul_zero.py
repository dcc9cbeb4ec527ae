# RUN: loomc ir kernels/matmul.py --shape M=64,N=0,K=64
# EXPECT: loomc: error: size N must be at least 1, got 0
# A zero-size dimension is rejected, naming the size.
