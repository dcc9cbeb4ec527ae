compile kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=8,S=2048,D=64 --const CAUSAL=1 --explain
