#!/bin/sh
# demo.sh - the main job, run by 'make demo': loomc on the kernels of kernels/.
set -e
cd "$(dirname "$0")/.."
L=${LOOMC:-build/loomc}
run() { echo "\$ loomc $*"; "$L" "$@"; echo; }
run ir kernels/matmul.py --shape M=512,N=512,K=512
run ir kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64 --const CAUSAL=1
run ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128
# compile, schedule, lower and simulate, checked against the Tile IR interpreter
for chip in wormhole_n150 blackhole_p150; do
    run run kernels/matmul.py --arch $chip --shape M=512,N=512,K=512 --check
    run run kernels/flash_attention.py --arch $chip --shape B=1,H=2,S=256,D=64 --const CAUSAL=1 --check
    run run kernels/flash_decode.py --arch $chip --shape B=1,H=8,HKV=2,S=512,D=64 --check
done
