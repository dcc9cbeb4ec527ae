compile tests/kernels/splitk_sum.py --kernel splitk_sum --arch wormhole_n150 --shape M=512,K=4096 --explain
