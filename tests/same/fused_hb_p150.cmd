# SED: s/attn_(fused|bh)/attn/g; s/job (fused|split)/job attn/
run tests/kernels/ptr_attention_hb.py --kernel fused --arch blackhole_p150 --shape B=2,H=3,S=200,D=64 --check
run tests/kernels/ptr_attention_hb.py --kernel split --arch blackhole_p150 --shape B=2,H=3,S=200,D=64 --check
