#!/bin/sh
# lib.sh - what the tests of 'loomc emit' share (sourced by tests/emit/run.sh and
# tests/emit/all_kernels.sh, with LOOMC set to the loomc to test): the emulation's runtime
# built into BUILD (tests/metal_emu, a test harness), and the cases - case_ (emit a job,
# build it against the emulation, run it on the inputs of 'loomc run --check --save-data',
# check its outputs against the reference interpreter, bit for bit against the simulator's
# and its CB pushes and pops against the simulator's), case16 (the same without the bit
# for bit comparison, for 16-bit Dst) and dfcase (a dataflow program as written). Each
# result is an ok/bad line; pass and fail count them.
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
