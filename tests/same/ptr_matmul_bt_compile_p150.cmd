# IGNORE: ^compile matmul_bt 
compile tests/kernels/bp_matmul_bt.py --arch blackhole_p150 --shape M=200,N=328,K=200 --top 3
compile tests/kernels/ptr_matmul_bt.py --arch blackhole_p150 --shape M=200,N=328,K=200 --top 3
