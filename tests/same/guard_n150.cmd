# SED: s/scale_(guarded|early|exact)/scale/g; s/job (guarded|early|exact)/job scale/
run tests/kernels/ptr_scale_guarded.py --kernel exact --arch wormhole_n150 --shape M=300,N=100 --check
run tests/kernels/ptr_scale_guarded.py --kernel guarded --arch wormhole_n150 --shape M=300,N=100 --check
run tests/kernels/ptr_scale_guarded.py --kernel early --arch wormhole_n150 --shape M=300,N=100 --check
