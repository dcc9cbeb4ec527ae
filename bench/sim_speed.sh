#!/bin/sh
# sim_speed.sh - how fast the simulator is: a timing-only run of the 2-D
# multicast GEMM M = N = K = 4096 on the 8x8 grid of a Wormhole n150
# (tests/sim/mcast_gemm.df with its parameters scaled). Prints the wall
# time, the events processed, events per second and the peak memory, and
# whether they meet the targets (under 2 s and under 1 GiB).
# A benchmark, not a test: its figures depend on the machine.
#
# usage: bench/sim_speed.sh [LOOMC]     (default build/loomc)
cd "$(dirname "$0")/.." || exit 1
LOOMC=${1:-build/loomc}
if [ ! -x "$LOOMC" ]; then
    echo "sim_speed: $LOOMC is missing; build it first (make)" >&2
    exit 1
fi
export LOOMC_ARCH_PATH="${LOOMC_ARCH_PATH:-$PWD/arch}"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT INT TERM
set -- sim tests/sim/mcast_gemm.df --arch wormhole_n150 \
    --param GX=8 --param GY=8 --param PM=16 --param PN=16 --param KW=2 --param KT=128 \
    --timing-only --json
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$LOOMC" "$@" >"$out" 2>"$err"
else
    "$LOOMC" "$@" >"$out" 2>"$err"
fi
rc=$?
end=$(date +%s.%N)
if [ $rc -ne 0 ]; then
    echo "sim_speed: the run failed (exit $rc):" >&2
    cat "$err" >&2
    exit 1
fi
# peak memory: /usr/bin/time's report, else the getrusage figure in the JSON
kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): *//p' "$err")
if [ -n "$kb" ]; then
    mib=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
else
    mib=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["peak_rss_mib"])' <"$out")
fi
# shellcheck disable=SC2046
set -- $(python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["events"], j["cycles"], j["tflops"])' <"$out")
events=$1
cycles=$2
tflops=$3
awk -v s="$start" -v e="$end" -v ev="$events" -v mib="$mib" -v cyc="$cycles" -v tf="$tflops" 'BEGIN {
    t = e - s
    printf "simulator speed: timing-only 2-D multicast GEMM 4096^3 on wormhole_n150 8x8\n"
    printf "  wall time      %.3f s (target < 2 s: %s)\n", t, t < 2 ? "met" : "MISSED"
    printf "  events         %d\n", ev
    printf "  events/s       %.0f\n", ev / t
    printf "  peak memory    %s MiB (target < 1024 MiB: %s)\n", mib, mib + 0 < 1024 ? "met" : "MISSED"
    printf "  (simulated: %d cycles, %.1f TFLOP/s)\n", cyc, tf
}'
