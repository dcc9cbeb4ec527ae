compile kernels/flash_attention.py --arch blackhole_p150 --shape B=1,H=8,S=1024,D=64 --explain
