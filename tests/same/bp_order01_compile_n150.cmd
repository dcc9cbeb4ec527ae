# IGNORE: ^compile matmul_bt 
# SED: s/line [0-9]+/line N/g
compile tests/kernels/bp_matmul_bt.py --arch wormhole_n150 --shape M=200,N=328,K=200 --top 3 --explain
compile tests/kernels/bp_matmul_order01.py --arch wormhole_n150 --shape M=200,N=328,K=200 --top 3 --explain
