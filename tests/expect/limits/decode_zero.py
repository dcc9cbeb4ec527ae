# RUN: loomc ir kernels/flash_decode.py --shape B=1,H=1,HKV=1,S=0,D=16
# EXPECT: loomc: error: size S must be at least 1, got 0
# An empty cache is rejected, naming the size.
