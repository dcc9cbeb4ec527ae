run tests/kernels/desc_matmul_persistent.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
run tests/kernels/desc_matmul_persistent_counter.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
