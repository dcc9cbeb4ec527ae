# RUN: loomc ir kernels/matmul.py --shape M=2147483647,N=32,K=32
# EXIT: 0
# STDOUT: sizes: M = 2147483647, N = 32, K = 32
# The largest size with small partners: A and C stay within 2**40 elements.
