compile kernels/flash_decode.py --arch blackhole_p150 --shape B=4,H=32,HKV=8,S=4096,D=128 --explain
