compile kernels/matmul.py --arch wormhole_n150 --shape M=256,N=256,K=256 --top 3
