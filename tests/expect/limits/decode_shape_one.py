# RUN: loomc ir kernels/flash_decode.py --shape B=1,H=1,HKV=1,S=1,D=16
# EXIT: 0
# STDOUT: launch 1 of flash_decode
# Decoding against a cache of one token: both launches check.
