# RUN: loomc ir kernels/flash_attention.py --shape B=1,H=1,S=1,D=16
# EXIT: 0
# STDOUT: sizes: B = 1, H = 1, S = 1, D = 16
# One batch, one head, a sequence of one token.
