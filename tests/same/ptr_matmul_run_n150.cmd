run kernels/matmul.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
run tests/kernels/ptr_matmul.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
run tests/kernels/ptr_matmul_helpers.py --arch wormhole_n150 --shape M=200,N=328,K=200 --check
