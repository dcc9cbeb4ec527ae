ir tests/kernels/tutorial_attention.py --shape Z=1,H=4,N_CTX=512,HEAD_DIM=64
