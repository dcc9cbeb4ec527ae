# IGNORE: ^compile matmul 
# SED: s/loop (at line [0-9]+|k \(line [0-9]+\))/loop/; s/ +/ /g
compile kernels/matmul.py --arch wormhole_n150 --shape M=1000,N=700,K=300 --top 5 --explain
compile tests/kernels/ptr_matmul.py --arch wormhole_n150 --shape M=1000,N=700,K=300 --top 5 --explain
compile tests/kernels/ptr_matmul_helpers.py --arch wormhole_n150 --shape M=1000,N=700,K=300 --top 5 --explain
