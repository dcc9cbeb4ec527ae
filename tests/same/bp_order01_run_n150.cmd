run tests/kernels/bp_matmul_bt.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
run tests/kernels/bp_matmul_order01.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
