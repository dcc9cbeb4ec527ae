# fp32_acc and interm_bf16 are 0 or 1.
# RUN: loomc run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=2,S=256,D=64 --schedule ttnn --sdpa-config fp32_acc=2
# EXPECT: --sdpa-config fp32_acc=2 is out of range
