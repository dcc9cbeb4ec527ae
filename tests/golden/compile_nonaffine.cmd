compile tests/kernels/tutorial_matmul.py --arch wormhole_n150 --shape M=256,N=256,K=256
