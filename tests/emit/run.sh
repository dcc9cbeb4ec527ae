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
# Also: the emitted sources of one case against tests/emit/golden/, byte-identical output
# across two runs, no path of this machine in any emitted file, planted faults (a CB one
# page short, a missing semaphore increment) ending in the emulator's named hang, and
# constructs without a translation refused by name. Ends with 'emit: N passed, N failed'.
LOOMC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
BUILD=${BUILD:-$root/build/emit-tests}
rm -rf "$BUILD"
mkdir -p "$BUILD" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$2" ] && sed 's/^/    /' "$2" | head -20; }

objs=$(sh tests/metal_emu/runtime.sh "$BUILD" "") || { echo "FAIL build the emulation runtime"; exit 1; }
EMU_KERNEL_CXXFLAGS="-O1 -g -Wall -Wextra -Werror"
EMU_KERNEL_CACHE="$BUILD/kernel-cache"
EMU_CXX=${CXX:-g++}
export EMU_KERNEL_CXXFLAGS EMU_KERNEL_CACHE EMU_CXX

# the emulated device of a loomc chip description
emu_arch() {
    case "$1" in
        wormhole_*) echo wormhole_b0 ;;
        blackhole_*) echo blackhole ;;
    esac
}

# build DIR: the host program of an emitted directory, warnings as errors
build() {
    ${CXX:-g++} -std=c++17 -Wall -Wextra -Werror -O1 -g -pthread -I"$1" -Itests/metal_emu/include "$1/host.cpp" \
        $objs -rdynamic -ldl -lm -o "$1/loomc_job" >"$1/build.log" 2>&1
}

# same_counts NAME DIR: every core's CB pushes and pops (ops and pages) on the emulation are
# the simulator's, for every CB of the dataflow programs (the emitted program's own extra CBs
# aside)
same_counts() {
    grep -v '^#' "$2/data/cb_counts.txt" | sort >"$2/sim_counts.sorted"
    sort "$2/emu_cb_counts.txt" >"$2/emu_counts.sorted"
    if [ -s "$2/sim_counts.sorted" ] && comm -23 "$2/sim_counts.sorted" "$2/emu_counts.sorted" >"$2/counts.diff" &&
        [ ! -s "$2/counts.diff" ]; then
        ok "$1: CB pushes and pops per core as in the simulator"
    else
        bad "$1: CB pushes and pops differ from the simulator's (simulator's lines missing on the emulation)" "$2/counts.diff"
    fi
}

# case NAME ARCH KERNEL ARGS...: emit, build, run on the emulation, check, cross-check
case_() {
    name=$1 arch=$2 kernel=$3
    shift 3
    d="$BUILD/$name"
    if ! "$LOOMC" emit "$kernel" --arch "$arch" "$@" -o "$d" >"$BUILD/$name.emit" 2>&1; then
        bad "$name: emit" "$BUILD/$name.emit"
        return
    fi
    if ! "$LOOMC" run "$kernel" --arch "$arch" "$@" --check --save-data "$d/data" >"$BUILD/$name.run" 2>&1; then
        bad "$name: run --check --save-data" "$BUILD/$name.run"
        return
    fi
    if ! build "$d"; then
        bad "$name: build" "$d/build.log"
        return
    fi
    mkdir -p "$d/out"
    if ! (cd "$d" && EMU_ARCH=$(emu_arch "$arch") EMU_CB_COUNTS=emu_cb_counts.txt ./loomc_job data/inputs out) \
        >"$BUILD/$name.emu" 2>&1; then
        bad "$name: run on the emulation" "$BUILD/$name.emu"
        return
    fi
    same_counts "$name" "$d"
    if "$LOOMC" run "$kernel" --arch "$arch" "$@" --check --outputs-from "$d/out" >"$BUILD/$name.check" 2>&1; then
        ok "$name: outputs match the reference interpreter"
    else
        bad "$name: outputs against the reference interpreter" "$BUILD/$name.check"
    fi
    # with 16-bit Dst the card (and the emulation) rounds every value written to Dst to bf16;
    # the simulator keeps fp32 between the ops of a tile, so only the check above applies
    [ "$dst16" = 1 ] && return
    same=1
    for f in "$d"/data/simulated/*.f32; do
        o="$d/out/$(basename "$f")"
        [ -f "$o" ] || continue
        cmp -s "$f" "$o" || same=0
    done
    if [ $same -eq 1 ]; then ok "$name: outputs bit for bit the simulator's"; else bad "$name: outputs differ from the simulator's"; fi
}
# the same for a program whose compute ops round in 16-bit Dst between them
case16() {
    dst16=1
    case_ "$@"
    dst16=0
}
dst16=0

MM=kernels/matmul.py
for arch in wormhole_n150 blackhole_p150; do
    case_ "mm_pick_$arch" $arch $MM --shape M=256,N=256,K=256
    case_ "mm_dram_$arch" $arch $MM --shape M=256,N=192,K=320 --transport a=dram,b=dram
    case_ "mm_mcast1d_$arch" $arch $MM --shape M=256,N=256,K=256 --transport a=mcast:y,b=dram
    case_ "mm_forward_$arch" $arch $MM --shape M=256,N=256,K=256 --transport b=forward:x
    case_ "mm_mcast_mid_$arch" $arch $MM --shape M=256,N=256,K=256 --transport a=mcast:y:mid,b=mcast:x:mid
    case_ "mm_subblocks_$arch" $arch $MM --shape M=512,N=512,K=256 --set BLOCK_M=128,BLOCK_N=128,sub.h=2,sub.w=2
    case_ "mm_ttnn_$arch" $arch $MM --shape M=512,N=512,K=512 --schedule ttnn
    # not a multiple of the blocks: partial tiles moved element row by row, masked on the SFPU
    case_ "mm_partial_$arch" $arch $MM --shape M=200,N=300,K=100
    case_ "mm_partial_dram_$arch" $arch $MM --shape M=72,N=40,K=200 --transport a=dram,b=dram
    # element-wise chains, reductions and broadcasts, with CBs shared by values of different sizes
    case_ "chain_$arch" $arch tests/kernels/eltwise_chain.py --shape M=256,N=256
    # two launches, the second reading the first's scratch tensor from DRAM
    case_ "splitk_$arch" $arch tests/kernels/splitk_sum.py --kernel shifted --shape M=256,K=1024
    # sigmoid and sqrt on the SFPU (a gated activation), edges not multiples of 32
    case_ "swiglu_$arch" $arch tests/expect/run/sfpu/swiglu.py --shape M=90,N=70
    # split K with the partial sums passed to a reducer core as elements (a fused pair)
    case_ "splitk_fused_$arch" $arch tests/kernels/splitk_sum.py --kernel splitk_sum --shape M=256,K=1024
    # flash attention: running maximum and sums in CB pairs that swap names each trip
    case16 "fa_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=256,D=64
    case16 "fa_causal_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=192,D=64 --const CAUSAL=1
    case_ "fa_ttnn_fp32_$arch" $arch kernels/flash_attention.py --shape B=1,H=2,S=256,D=64 --const CAUSAL=1 \
        --schedule ttnn --sdpa-config fp32_acc=1
    # flash decode: split and combine as two launches, and as one fused program
    case16 "decode_two_$arch" $arch kernels/flash_decode.py --shape B=2,H=8,HKV=2,S=256,D=64 --no-fuse
    case_ "decode_fused_$arch" $arch kernels/flash_decode.py --shape B=2,H=8,HKV=2,S=256,D=64
done

# dataflow programs as written (loomc sim --emit): every compute op besides matmul, with fp32
# Dst, bit for bit against the simulator
# dfcase NAME ARCH PROGRAM: emit, build, run on the emulation, compare with 'loomc sim --save-data'
dfcase() {
    name=$1 arch=$2 prog=$3
    d="$BUILD/$name"
    if ! "$LOOMC" sim "$prog" --arch "$arch" --emit "$d" >"$BUILD/$name.emit" 2>&1 ||
        ! "$LOOMC" sim "$prog" --arch "$arch" --save-data "$d/data" >"$BUILD/$name.run" 2>&1; then
        bad "$name: emit or simulate" "$BUILD/$name.emit"
        return
    fi
    if ! build "$d"; then
        bad "$name: build" "$d/build.log"
        return
    fi
    mkdir -p "$d/out"
    if ! (cd "$d" && EMU_ARCH=$(emu_arch "$arch") EMU_CB_COUNTS=emu_cb_counts.txt ./loomc_job data/inputs out) \
        >"$BUILD/$name.emu" 2>&1; then
        bad "$name: run on the emulation" "$BUILD/$name.emu"
        return
    fi
    same_counts "$name" "$d"
    n=0 differ=""
    for f in "$d"/data/simulated/*.f32; do
        n=$((n + 1))
        cmp -s "$f" "$d/out/$(basename "$f")" || differ="$differ $(basename "$f")"
    done
    if [ -z "$differ" ] && [ $n -gt 0 ]; then ok "$name: $n outputs bit for bit the simulator's"; else bad "$name: outputs differ:$differ"; fi
}
sed 's/^class main x0=0 y0=0 x1=0 y1=0 {/class main x0=0 y0=0 x1=0 y1=0 fp32_acc=1 {/' tests/sim/softmax_chain.df \
    >"$BUILD/softmax_fp32.df"
for arch in wormhole_n150 blackhole_p150; do
    dfcase "ops_$arch" $arch tests/emit/compute_ops.df
    dfcase "softmax_$arch" $arch "$BUILD/softmax_fp32.df"
    # a running value in two CBs whose names trade places (cb_swap)
    dfcase "swap_$arch" $arch tests/sim/running_max.df
    # element moves into another core's reserved pages (send_elems)
    dfcase "send_elems_$arch" $arch tests/emit/send_elems.df
    # the block row maximum: row-major, seeded with a previous maximum, read from sub-blocks
    dfcase "rowmax_$arch" $arch tests/emit/rowmax.df
    # chains with the packer's options: a scale in the exponential, the pack thread, row sums
    dfcase "pchain_$arch" $arch tests/emit/pchain.df
done

# the emitted sources of one small case, against the golden copy
g="$BUILD/golden_case"
"$LOOMC" emit $MM --arch wormhole_n150 --shape M=64,N=64,K=64 -o "$g" >/dev/null 2>&1
# (the helper headers are checked against their sources in src/emit/rt/ instead)
if diff -r -x 'loomc_*.h' tests/emit/golden/matmul_64 "$g" >"$BUILD/golden.diff" 2>&1; then
    ok "golden: emitted sources of matmul 64x64x64 on wormhole_n150"
else
    bad "golden: emitted sources differ (tests/emit/golden/matmul_64)" "$BUILD/golden.diff"
fi
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
fault fault_cb_pages '0,/CircularBufferConfig(8 \* 2048, {{0,/s//CircularBufferConfig(7 * 2048, {{0,/' host.cpp "CB 0"
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
