# --schedule ttnn with an SDPA program config: the chunks and grid it gives,
# TTNN's bf16 intermediates, and the values checked against the reference.
# RUN: loomc run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=2,S=256,D=64 --const CAUSAL=1 --schedule ttnn --sdpa-config q_chunk=64,k_chunk=128,grid_x=2,grid_y=2,interm_bf16=1 --check
# EXIT: 0
# STDOUT: BLOCK_M=64 BLOCK_N=128
# STDOUT: grid.x=2 grid.y=2
# STDOUT: check                pass
