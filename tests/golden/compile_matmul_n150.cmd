compile kernels/matmul.py --arch wormhole_n150 --shape M=1024,N=1024,K=1024 --explain
