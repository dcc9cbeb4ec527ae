#!/bin/sh
# run.sh LOOMC - tests of 'loomc emit' (the TT-Metalium back end) on the host emulation of
# the kernel API (tests/metal_emu, a test harness: it checks the emitted program's logic,
# not its timing). Each case emits a job's program, builds its host program with
# -Wall -Wextra -Werror against the emulation, runs it on the inputs 'loomc run --check
# --save-data' wrote, and then
#   - checks its outputs against the Tile IR reference interpreter with loomc's own
#     tolerance ('loomc run --check --outputs-from');
#   - compares them bit for bit with the simulator's outputs of the same programs (the
#     emulation computes with loomc's numerics, src/num).
# Also: the emitted sources of one case per kernel against tests/emit/golden/, byte-identical output
# across two runs, no path of this machine in any emitted file, planted faults (a CB one
# page short, a missing semaphore increment) ending in the emulator's named hang, and
# constructs without a translation refused by name. Ends with 'emit: N passed, N failed'.
LOOMC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/lib.sh"

MM=kernels/matmul.py
for arch in wormhole_n150 blackhole_p150; do
    case_ "mm_pick_$arch" $arch $MM --shape M=256,N=256,K=256
    case_ "mm_dram_$arch" $arch $MM --shape M=256,N=192,K=320 --transport a=dram,b=dram
    case_ "mm_mcast1d_$arch" $arch $MM --shape M=256,N=256,K=256 --transport a=mcast:y,b=dram
    case_ "mm_forward_$arch" $arch $MM --shape M=256,N=256,K=256 --transport b=forward:x
    case_ "mm_mcast_mid_$arch" $arch $MM --shape M=256,N=256,K=256 --transport a=mcast:y:mid,b=mcast:x:mid
    case_ "mm_subblocks_$arch" $arch $MM --shape M=512,N=512,K=256 --set BLOCK_M=128,BLOCK_N=128,sub.h=2,sub.w=2
    case_ "mm_ttnn_$arch" $arch $MM --shape M=512,N=512,K=512 --schedule ttnn
    # DRAM loads read ahead under alternating transaction ids, b's ring of three blocks wrapping
    case_ "mm_read_ahead_$arch" $arch $MM --shape M=256,N=256,K=512 --transport a=dram,b=dram \
        --set BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,depth.a=2,depth.b=3
    # not a multiple of the blocks: partial tiles moved element row by row, masked on the SFPU
    case_ "mm_partial_$arch" $arch $MM --shape M=200,N=300,K=100
    case_ "mm_partial_dram_$arch" $arch $MM --shape M=72,N=40,K=200 --transport a=dram,b=dram
    # element-wise chains, reductions and broadcasts, with CBs shared by values of different sizes
    case_ "chain_$arch" $arch tests/kernels/eltwise_chain.py --shape M=256,N=256
    # two launches, the second reading the first's scratch tensor from DRAM
    case_ "splitk_$arch" $arch tests/kernels/splitk_sum.py --kernel shifted --shape M=256,K=1024
    # sigmoid and sqrt on the SFPU (a gated activation), edges not multiples of 32
    case_ "swiglu_$arch" $arch tests/expect/run/sfpu/swiglu.py --shape M=90,N=70
    # block-float tensors (whole tiles) through tt-metal's host converters; 16-bit Dst
    case16 "mm_bfp8_$arch" $arch kernels/matmul.py --shape M=128,N=128,K=64 --format bfp8_b
    case16 "mm_bfp4_$arch" $arch kernels/matmul.py --shape M=128,N=96,K=128 --format bfp4_b
    # row-wise kernels: norms whose chains add a broadcast operand after their first step
    case_ "rmsnorm_$arch" $arch tests/kernels/ptr_rmsnorm.py --shape M=37,N=200
    case_ "layernorm_$arch" $arch tests/kernels/ptr_layernorm.py --shape M=5,N=1000
    case_ "softmax_rows_$arch" $arch tests/kernels/ptr_softmax.py --kernel softmax --shape M=37,N=200
    # a bias row added to every row of a matmul's block (an element-wise op broadcasting by rows)
    case_ "addmm_$arch" $arch tests/kernels/ptr_addmm.py --shape M=200,N=300,K=100
    # split K with the partial sums passed to a reducer core as elements (a fused pair)
    case_ "splitk_fused_$arch" $arch tests/kernels/splitk_sum.py --kernel splitk_sum --shape M=256,K=1024
    # flash attention: running maximum and sums in CB pairs that swap names each trip
    case16 "fa_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=256,D=64
    case16 "fa_causal_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=192,D=64 --const CAUSAL=1
    case_ "fa_ttnn_fp32_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=256,D=64 --const CAUSAL=1 \
        --schedule ttnn --sdpa-config fp32_acc=1
    # S not a multiple of the blocks: the key loop split where the mask holds on the whole block
    # (before the diagonal and inside the sequence), the masked trips after; bit for bit in fp32 Dst
    case_ "fa_ttnn_fp32_split_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=300,D=64 --const CAUSAL=1 \
        --schedule ttnn --sdpa-config fp32_acc=1
    # flash decode: split and combine as two launches, and as one fused program
    case16 "decode_two_$arch" $arch kernels/flash_decode.py --shape B=2,H=8,HKV=2,S=256,D=64 --no-fuse
    case_ "decode_fused_$arch" $arch kernels/flash_decode.py --shape B=2,H=8,HKV=2,S=256,D=64
    # TTNN's decode schedule: its reduction in L1 as one fused program, a CB of the two launches'
    # values of different sizes moved by the larger ring
    case16 "decode_ttnn_$arch" $arch kernels/flash_decode.py --shape B=1,H=16,HKV=8,S=512,D=64 --schedule ttnn
    # causal attention in two key loops (before the diagonal, on it), the first's trips differing
    # across a multicast group (the blocks of trips a core does not run popped unused) and the
    # diagonal masked by adding a finite constant (exactly 0 where kept, in a 16-bit Dst too)
    case16 "ptr_attention_causal_$arch" $arch tests/kernels/ptr_attention.py --shape Z=1,H=2,S=256,D=64 \
        --const CAUSAL=1
done
# K and V read ahead, the last key block cut short (element reads with a transaction id)
case16 "decode_read_ahead" wormhole_n150 kernels/flash_decode.py --shape B=1,H=8,HKV=2,S=300,D=64 \
    --set BLOCK_N=32,depth.k=2,depth.v=3
# one split: the combine is a copy of the partial output, and the log-sum-exp, which nothing
# reads then, is left in DRAM (a tensor of the launch no kernel reads)
case16 "decode_one_split" wormhole_n150 kernels/flash_decode.py --shape B=2,H=8,HKV=2,S=256,D=64 \
    --const NUM_SPLITS=1 --no-fuse
# causal attention in two waves of query blocks on 4 core rows: K and V multicast along them with
# the key loop stretched to each wave's most trips (a bound of the wave variable), and from DRAM
# with the waves going back and forth (a core index reversed on every other wave)
case16 "fa_causal_per_wave" wormhole_n150 kernels/flash_attention.py --shape B=1,H=2,S=256,D=64 \
    --const CAUSAL=1 --place 0=y,1=x --transport k=mcast:y,v=mcast:y --set BLOCK_M=32,BLOCK_N=32,grid.x=2,grid.y=4
case16 "fa_causal_back_and_forth" wormhole_n150 kernels/flash_attention.py --shape B=1,H=2,S=256,D=64 \
    --const CAUSAL=1 --place 0=y,1=x --transport k=dram,v=dram --set BLOCK_M=32,BLOCK_N=32,grid.x=2,grid.y=4
# a partial last wave of a multicast group: the cores without a program still push the group's
# blocks, so every ring of the group stays in step (a sender writes at its own write pointer)
case16 "decode_partial_wave" wormhole_n150 kernels/flash_decode.py --shape B=2,H=32,HKV=32,S=300,D=128 \
    --const NUM_SPLITS=16 --set BLOCK_N=32 --place 0=time,1=xy --transport q=mcast:xy:mid

sed 's/^class main x0=0 y0=0 x1=0 y1=0 {/class main x0=0 y0=0 x1=0 y1=0 fp32_acc=1 {/' tests/sim/softmax_chain.df \
    >"$BUILD/softmax_fp32.df"
for arch in wormhole_n150 blackhole_p150; do
    dfcase "ops_$arch" $arch tests/emit/compute_ops.df
    dfcase "softmax_$arch" $arch "$BUILD/softmax_fp32.df"
    # a running value in two CBs whose names trade places (cb_swap)
    dfcase "swap_$arch" $arch tests/sim/running_max.df
    # block-float tiles unpacked and packed by the compute ops, fp32 Dst
    dfcase "block_float_$arch" $arch tests/emit/block_float.df
    # element moves into another core's reserved pages (send_elems)
    dfcase "send_elems_$arch" $arch tests/emit/send_elems.df
    # the block row maximum: row-major, seeded with a previous maximum, read from sub-blocks
    dfcase "rowmax_$arch" $arch tests/emit/rowmax.df
    # chains with the packer's options: a scale in the exponential, the pack thread, row sums
    dfcase "pchain_$arch" $arch tests/emit/pchain.df
done

# the emitted sources of one small case per kernel of kernels/, against the golden copies
# (the helper headers are checked against their sources in src/emit/rt/ instead)
# golden NAME KERNEL SHAPE
golden() {
    "$LOOMC" emit "$2" --arch wormhole_n150 --shape "$3" -o "$BUILD/golden_$1" >/dev/null 2>&1
    if diff -r -x 'loomc_*.h' "tests/emit/golden/$1" "$BUILD/golden_$1" >"$BUILD/golden_$1.diff" 2>&1; then
        ok "golden: emitted sources of $2 at $3 on wormhole_n150"
    else
        bad "golden: emitted sources differ (tests/emit/golden/$1)" "$BUILD/golden_$1.diff"
    fi
}
golden matmul_64 $MM M=64,N=64,K=64
golden attention_64 kernels/flash_attention.py B=1,H=1,S=64,D=32
golden decode_64 kernels/flash_decode.py B=1,H=8,HKV=1,S=64,D=32
g="$BUILD/golden_matmul_64"
same=1
for h in src/emit/rt/*.h; do
    f=$(basename "$h")
    e="$g/kernels/$f"
    [ "$f" = loomc_host.h ] && e="$g/$f"
    cmp -s "$h" "$e" || { same=0; echo "    $f differs from $h"; }
done
if [ $same -eq 1 ]; then ok "emit: the helper headers are src/emit/rt/'s, byte for byte"; else bad "emit: helper headers"; fi
# deterministic, and no path of the machine
"$LOOMC" emit $MM --arch wormhole_n150 --shape M=64,N=64,K=64 -o "$g.again" >/dev/null 2>&1
if diff -r "$g" "$g.again" >/dev/null 2>&1; then ok "emit: byte-identical across runs"; else bad "emit: output differs between runs"; fi
if grep -rqF "$root" "$g" || grep -rqF "$BUILD" "$g"; then bad "emit: a path of this machine in the output"; else ok "emit: no path of this machine in the output"; fi

# planted faults: the emulator must name the hang, not give a wrong answer
# fault NAME SED-SCRIPT FILE PATTERN: edit one emitted file of mm_pick_wormhole_n150, rebuild, rerun
fault() {
    name=$1 script=$2 file=$3 pat=$4
    src="$BUILD/mm_pick_wormhole_n150"
    d="$BUILD/$name"
    rm -rf "$d" && cp -r "$src" "$d" || return
    sed -i "$script" "$d/$file"
    if cmp -s "$src/$file" "$d/$file"; then
        bad "$name: the fault was not planted ($file unchanged)"
        return
    fi
    if ! build "$d"; then
        bad "$name: build" "$d/build.log"
        return
    fi
    rm -rf "$d/out" && mkdir -p "$d/out"
    (cd "$d" && EMU_ARCH=wormhole_b0 EMU_WATCHDOG_SECONDS=5 ./loomc_job data/inputs out) >"$BUILD/$name.emu" 2>&1
    st=$?
    if [ $st -eq 3 ] && grep -q "emu: hang" "$BUILD/$name.emu" && grep -qF "$pat" "$BUILD/$name.emu"; then
        ok "$name: a named hang"
    else
        bad "$name: status $st, not a hang naming '$pat'" "$BUILD/$name.emu"
    fi
}
# a receiver's compute waits for 8 pages of CB 0 that hold only 7 ... (one page short)
fault fault_cb_pages '0,/CircularBufferConfig(16 \* 2048, {{0,/s//CircularBufferConfig(7 * 2048, {{0,/' host.cpp "CB 0"
# the row's receivers never tell the sender they are ready
fault fault_sem_inc 's/loomc::sem_inc(grid, sem_a_ready, 1,/loomc::sem_inc(grid, sem_a_ready, 0,/' kernels/l0_cores_1_1_reader.cpp "semaphore"

# the check can fail: one output value changed by far more than the tolerance
w="$BUILD/mm_pick_wormhole_n150"
python3 -c "
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
v = struct.unpack_from('<f', b, 4 * 100)[0]
struct.pack_into('<f', b, 4 * 100, v + 1000.0)
open(p, 'wb').write(b)" "$w/out/c.f32"
if "$LOOMC" run $MM --arch wormhole_n150 --shape M=256,N=256,K=256 --check --outputs-from "$w/out" >"$BUILD/wrong.check" 2>&1; then
    bad "check: a wrong output value passed --outputs-from" "$BUILD/wrong.check"
else
    ok "check: a wrong output value fails --outputs-from"
fi

echo "emit: $pass passed, $fail failed"
[ $fail -eq 0 ]
