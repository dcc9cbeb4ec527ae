# RUN: loomc ir kernels/matmul.py --shape M=1,N=1,K=1
# EXIT: 0
# STDOUT: sizes: M = 1, N = 1, K = 1
# STDOUT: load a  block [BLOCK_M, BLOCK_K]
# Sizes of 1, smaller than any tile: the front end accepts them (blocks are the scheduler's).
