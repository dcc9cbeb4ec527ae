#!/bin/sh
# sim_speed.sh - how fast the simulator is, in host time. Two benchmarks:
#
#  1. a timing-only run of the 2-D multicast GEMM M = N = K = 4096 on the
#     8x8 grid of a Wormhole n150 (tests/sim/mcast_gemm.df with its
#     parameters scaled): wall time, events, events per second and peak
#     memory, against the targets (under 2 s and under 1 GiB);
#  2. flash attention (kernels/flash_attention.py) at B=1, H=8, S=16384,
#     D=128, causal, on wormhole_n150, timing-only as the bench runs it,
#     under three schedules: TTNN's SDPA kernels (--schedule ttnn-kernel,
#     the bench's "TTNN default"), loomc's lowering at TTNN's chunks
#     (--schedule ttnn) and loomc's own pick (--schedule loom). For each:
#     the host CPU time (user + system) and wall time of the whole
#     `loomc run` (compiling and lowering take well under a second of it;
#     the rest is the simulation) and its simulated cycles. Target: TTNN's
#     kernels under 60 s of CPU time. These take minutes each.
#
# A benchmark, not a test: its times depend on the machine and its load
# (the simulated cycles do not).
#
# usage: bench/sim_speed.sh [--gemm-only] [LOOMC]     (default build/loomc)
cd "$(dirname "$0")/.." || exit 1
gemm_only=0
if [ "$1" = "--gemm-only" ]; then
    gemm_only=1
    shift
fi
LOOMC=${1:-build/loomc}
if [ ! -x "$LOOMC" ]; then
    echo "sim_speed: $LOOMC is missing; build it first (make)" >&2
    exit 1
fi
if [ ! -x /usr/bin/time ]; then
    echo "sim_speed: /usr/bin/time is missing (Debian package 'time')" >&2
    exit 1
fi
export LOOMC_ARCH_PATH="${LOOMC_ARCH_PATH:-$PWD/arch}"
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on

# Run "$@" under /usr/bin/time into $out/$err; sets wall, cpu and kb.
timed() {
    /usr/bin/time -f 'sim_speed_time %e %U %S %M' "$LOOMC" "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "sim_speed: the run failed (exit $rc): $LOOMC $*" >&2
        grep -v '^sim_speed_time ' "$err" >&2
        exit 1
    fi
    # shellcheck disable=SC2046
    set -- $(sed -n 's/^sim_speed_time //p' "$err")
    wall=$1
    cpu=$(awk -v u="$2" -v s="$3" 'BEGIN { printf "%.2f", u + s }')
    kb=$4
}

timed sim tests/sim/mcast_gemm.df --arch wormhole_n150 \
    --param GX=8 --param GY=8 --param PM=16 --param PN=16 --param KW=2 --param KT=128 \
    --timing-only --json
# shellcheck disable=SC2046
set -- $(python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["events"], j["cycles"], j["tflops"])' <"$out")
awk -v t="$wall" -v ev="$1" -v kb="$kb" -v cyc="$2" -v tf="$3" 'BEGIN {
    mib = kb / 1024
    printf "simulator speed: timing-only 2-D multicast GEMM 4096^3 on wormhole_n150 8x8\n"
    printf "  wall time      %.3f s (target < 2 s: %s)\n", t, t < 2 ? "met" : "MISSED"
    printf "  events         %d\n", ev
    printf "  events/s       %.0f\n", (t > 0 ? ev / t : 0)
    printf "  peak memory    %.1f MiB (target < 1024 MiB: %s)\n", mib, mib < 1024 ? "met" : "MISSED"
    printf "  (simulated: %d cycles, %.1f TFLOP/s)\n", cyc, tf
}'
[ $gemm_only -eq 1 ] && exit 0

echo "simulator speed: flash attention B=1 H=8 S=16384 D=128 causal on wormhole_n150, timing-only"
echo "  (host CPU time of loomc run, user + system; the simulated cycles are simulated)"
for schedule in ttnn-kernel ttnn loom; do
    timed run kernels/flash_attention.py --arch wormhole_n150 --shape B=1,H=8,S=16384,D=128 \
        --const CAUSAL=1 --schedule "$schedule" --timing-only --quiet --json
    cycles=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["cycles"])' <"$out")
    awk -v s="$schedule" -v c="$cpu" -v w="$wall" -v kb="$kb" -v cyc="$cycles" 'BEGIN {
        target = s == "ttnn-kernel" ? (c < 60 ? "  (target < 60 s: met)" : "  (target < 60 s: MISSED)") : ""
        printf "  --schedule %-12s CPU %8.1f s  wall %8.1f s  peak %6.1f MiB  simulated %d cycles%s\n",
               s, c, w, kb / 1024, cyc, target
    }'
done
