run tests/kernels/bp_softmax.py --kernel softmax --arch blackhole_p150 --shape M=37,N=200 --check
run tests/kernels/ptr_softmax.py --kernel softmax --arch blackhole_p150 --shape M=37,N=200 --check
