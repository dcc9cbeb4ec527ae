# RUN: loomc ir kernels/matmul.py --shape M=33,N=65,K=100
# EXIT: 0
# STDOUT: sizes: M = 33, N = 65, K = 100
# Sizes that are not multiples of 32 (the boundary checks of the loads handle the rest).
