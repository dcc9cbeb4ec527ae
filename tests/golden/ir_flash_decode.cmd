ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128
