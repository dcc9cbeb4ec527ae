# A program config belongs to TTNN's schedule.
# RUN: loomc run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=2,S=256,D=64 --sdpa-config q_chunk=64
# EXPECT: --sdpa-config goes with --schedule ttnn
