ir tests/kernels/tutorial_matmul.py --shape M=512,N=512,K=512
