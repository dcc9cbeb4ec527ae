#!/bin/sh
# demo.sh - the main job, run by 'make demo': loomc on the kernels of kernels/.
set -e
cd "$(dirname "$0")/.."
L=build/loomc
run() { echo "\$ loomc $*"; "$L" "$@"; echo; }
run ir kernels/matmul.py --shape M=512,N=512,K=512
run ir kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64 --const CAUSAL=1
run ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128
