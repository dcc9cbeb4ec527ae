# IGNORE: ^compile matmul 
compile tests/kernels/tutorial_matmul_2d.py --arch blackhole_p150 --shape M=1000,N=700,K=300 --top 5 --explain
compile tests/kernels/tutorial_matmul.py --arch blackhole_p150 --shape M=1000,N=700,K=300 --top 5 --explain
