ir kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64
