run tests/kernels/bp_batch_scale.py --arch blackhole_p150 --shape B=3,R=100,C=200 --check
run tests/kernels/ptr_batch_scale.py --arch blackhole_p150 --shape B=3,R=100,C=200 --check
