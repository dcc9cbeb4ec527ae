# RUN: loomc ir kernels/flash_attention.py --shape B=2,H=3,S=33,D=64
# EXIT: 0
# STDOUT: sizes: B = 2, H = 3, S = 33, D = 64
# A sequence length that is not a multiple of 32.
