# --sdpa-config names the parts of a program config it knows.
# RUN: loomc run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=2,S=256,D=64 --schedule ttnn --sdpa-config q_chunks=64
# EXPECT: --sdpa-config: unknown name 'q_chunks'
