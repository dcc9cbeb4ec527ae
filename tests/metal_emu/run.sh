#!/bin/sh
# run.sh - builds the host emulation of TT-Metalium (a test harness) and its test
# programs with g++, runs them and ends with 'emu: N passed, N failed'; exit 1 on any
# failure. SAN=asan builds everything (kernels too) with AddressSanitizer and
# UndefinedBehaviorSanitizer, SAN=tsan with ThreadSanitizer. BUILD names the output folder.
cd "$(dirname "$0")" || exit 1
here=$(pwd)
CXX=${CXX:-g++}
SAN=${SAN:-}
BUILD=${BUILD:-../../build/metal_emu${SAN:+-$SAN}}
mkdir -p "$BUILD" || exit 1
BUILD=$(cd "$BUILD" && pwd)
flags="-std=c++17 -Wall -Wextra -Werror -O1 -g -pthread"
case "$SAN" in
    asan) san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" ;;
    tsan) san="-fsanitize=thread" ;;
    "") san="" ;;
    *) echo "run.sh: SAN is asan or tsan"; exit 1 ;;
esac
# kernels are built by the emulator when a program runs, with these flags
EMU_KERNEL_CXXFLAGS="-O1 -g -Wall -Wextra -Werror $san"
EMU_KERNEL_CACHE="$BUILD/kernels"
EMU_CXX=$CXX
export EMU_KERNEL_CXXFLAGS EMU_KERNEL_CACHE EMU_CXX
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# the runtime, then one binary per test program
objs=$(sh runtime.sh "$BUILD" "$san") || bad "build the runtime"
progs="mm_single mm_mcast eltwise spin"
for p in $progs; do
    [ -f "programs/$p/host.cpp" ] || continue
    if $CXX $flags $san -Iinclude "programs/$p/host.cpp" $objs -rdynamic -ldl -lm -o "$BUILD/$p"; then
        :
    else
        bad "build $p"
    fi
done

# run NAME CMD...: the program must exit 0
run() {
    name=$1
    shift
    if "$@" >"$BUILD/$name.out" 2>&1; then ok "$name"; else bad "$name"; sed 's/^/    /' "$BUILD/$name.out" | head -20; fi
}
# hang NAME PATTERN CMD...: the program must stop with the watchdog's hang report
# (exit status 3) naming PATTERN
hang() {
    name=$1
    pat=$2
    shift 2
    "$@" >"$BUILD/$name.out" 2>&1
    st=$?
    if [ $st -eq 3 ] && grep -q "emu: hang" "$BUILD/$name.out" && grep -qF "$pat" "$BUILD/$name.out"; then
        ok "$name"
    else
        bad "$name (status $st)"
        sed 's/^/    /' "$BUILD/$name.out" | head -20
    fi
}
# error NAME PATTERN CMD...: the program must stop with an emulator error (exit status 2)
# naming PATTERN
error() {
    name=$1
    pat=$2
    shift 2
    "$@" >"$BUILD/$name.out" 2>&1
    st=$?
    if [ $st -eq 2 ] && grep -q "emu: error" "$BUILD/$name.out" && grep -qF "$pat" "$BUILD/$name.out"; then
        ok "$name"
    else
        bad "$name (status $st)"
        sed 's/^/    /' "$BUILD/$name.out" | head -20
    fi
}

[ -x "$BUILD/mm_single" ] && run mm_single "$BUILD/mm_single"
[ -x "$BUILD/mm_single" ] && EMU_ARCH=blackhole run mm_single_blackhole "$BUILD/mm_single"

[ -x "$BUILD/mm_mcast" ] && run mm_mcast "$BUILD/mm_mcast"
[ -x "$BUILD/mm_mcast" ] && hang mm_mcast_missing_sem_inc "noc_semaphore_wait on semaphore 0: wants value 2, has 1" "$BUILD/mm_mcast" fault
[ -x "$BUILD/mm_mcast" ] && error mm_mcast_bad_rectangle "noc_async_write_multicast: num_dests is 2 but the rectangle holds 3 destination cores" "$BUILD/mm_mcast" fault_rect
for m in exp exp_approx exp_fp32 recip add mul sub_bcast_row reduce_sum reduce_max; do
    [ -x "$BUILD/eltwise" ] && run "$m" "$BUILD/eltwise" "$m"
done
[ -x "$BUILD/eltwise" ] && hang cb_count_off_by_one "compute (TRISC) running unary.cpp waits in cb_wait_front on CB 0: wants 1 page, has 0" "$BUILD/eltwise" fault_cb
[ -x "$BUILD/spin" ] && EMU_WATCHDOG_SECONDS=1 hang spin_outside_api "RISCV_0 (BRISC) running poll.cpp is running (not in a wait)" "$BUILD/spin"

echo "emu: $pass passed, $fail failed"
[ $fail -eq 0 ]
