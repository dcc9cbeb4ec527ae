# IGNORE: ^compile 
compile tests/kernels/ptr_softmax.py --kernel softmax --arch wormhole_n150 --shape M=300,N=77 --top 3
compile tests/kernels/ptr_softmax.py --kernel softmax_persistent --arch wormhole_n150 --shape M=300,N=77 --top 3
