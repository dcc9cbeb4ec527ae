# The program config's grid cannot exceed the chip's.
# RUN: loomc run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=2,S=256,D=64 --schedule ttnn --sdpa-config grid_x=9
# EXPECT: the program config's grid 9x8 is larger than wormhole_n150's 8x8
