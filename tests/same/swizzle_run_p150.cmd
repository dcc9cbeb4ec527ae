run tests/kernels/tutorial_matmul_2d.py --arch blackhole_p150 --shape M=200,N=328,K=200 --check
run tests/kernels/tutorial_matmul.py --arch blackhole_p150 --shape M=200,N=328,K=200 --check
