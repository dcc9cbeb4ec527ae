# SED: s/scale_(guarded|early|exact)/scale/g; s/job (guarded|early|exact)/job scale/
run tests/kernels/ptr_scale_guarded.py --kernel exact --arch blackhole_p150 --shape M=300,N=100 --check
run tests/kernels/ptr_scale_guarded.py --kernel guarded --arch blackhole_p150 --shape M=300,N=100 --check
run tests/kernels/ptr_scale_guarded.py --kernel early --arch blackhole_p150 --shape M=300,N=100 --check
