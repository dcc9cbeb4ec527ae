run kernels/matmul.py --arch wormhole_n150 --shape M=256,N=256,K=256 --set BLOCK_K=64 --explain --timing-only
