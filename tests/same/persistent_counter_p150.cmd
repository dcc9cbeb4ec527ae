run tests/kernels/desc_matmul_persistent.py --arch blackhole_p150 --shape M=200,N=328,K=200 --check
run tests/kernels/desc_matmul_persistent_counter.py --arch blackhole_p150 --shape M=200,N=328,K=200 --check
