# SED: s/mm_(while|for)/mm/g; s/matmul_(while|for)/matmul/g; s/line [0-9]+/line N/g
run tests/kernels/while_tiles.py --kernel matmul_while --arch wormhole_n150 --shape M=200,N=328,K=200 --check
run tests/kernels/while_tiles.py --kernel matmul_for --arch wormhole_n150 --shape M=200,N=328,K=200 --check
