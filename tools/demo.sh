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
# the same matmul as a TT-Metalium program for a card (docs/emit.md), built and run on the
# host emulation of the kernel API (a test harness: it checks the program's logic, not its
# timing), its outputs checked against the Tile IR interpreter
out=build/demo-emit
rm -rf "$out"
mkdir -p "$out"
run emit kernels/matmul.py --arch wormhole_n150 --shape M=512,N=512,K=512 -o $out/prog
"$L" run kernels/matmul.py --arch wormhole_n150 --shape M=512,N=512,K=512 --check --save-data $out/prog/data >/dev/null
objs=$(sh tests/metal_emu/runtime.sh "$(pwd)/$out" "")
echo "\$ g++ ... $out/prog/host.cpp (against the emulation) && loomc_job data/inputs out"
${CXX:-g++} -std=c++17 -Wall -Wextra -Werror -O1 -pthread -I$out/prog -Itests/metal_emu/include $out/prog/host.cpp \
    $objs -rdynamic -ldl -lm -o $out/prog/loomc_job
mkdir -p $out/prog/out
(cd $out/prog && EMU_ARCH=wormhole_b0 EMU_KERNEL_CACHE=kernel-cache ./loomc_job data/inputs out)
echo
run run kernels/matmul.py --arch wormhole_n150 --shape M=512,N=512,K=512 --check --outputs-from $out/prog/out
