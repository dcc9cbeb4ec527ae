# RUN: loomc ir kernels/matmul.py --shape M=512,N=512,K=big
# EXPECT: loomc ir: error: --shape: the value of K must be an integer, got 'big'
# a size that is not an integer
