#!/bin/sh
# compile_time.sh - how long `loomc compile` takes and how much memory it
# needs, per (kernel, shape, chip), over a spread of shapes: square, LLM and
# skinny GEMMs, short, long and causal attention, decode with and without
# grouped-query attention, on Wormhole n150 and Blackhole p150. Each
# compilation runs REPEAT times (default 3); the table shows the median wall
# time (loomc's own compile_seconds: reading the kernel to the chosen
# schedule), the median CPU time of the whole process (user + system, from
# /usr/bin/time: what the machine's load does not inflate) and the peak
# resident memory. The summary gives the medians and maxima and their ratio
# to the targets (median <= 100 ms, peak <= 200 MiB per compilation).
#
# With --against TREE (a built checkout of another commit: TREE/build/loomc
# with TREE's own kernels and descriptions) every run of a compilation is
# preceded by the same compilation by TREE, so that both see the same load,
# and the summary gives the ratio of this build's medians to TREE's - the
# way to compare two builds on a busy machine, where medians taken minutes
# apart differ by more than the change.
# A benchmark, not a test: its figures depend on the machine.
#
# usage: bench/compile_time.sh [--against TREE] [LOOMC] [REPEAT]
#        (default build/loomc, 3)
cd "$(dirname "$0")/.." || exit 1
base=""
if [ "$1" = --against ]; then
    # an empty name would be this tree itself (cd "" stays where it is)
    [ -n "$2" ] || { echo "compile_time: --against needs a folder" >&2; exit 1; }
    base=$(cd "$2" 2>/dev/null && pwd) || { echo "compile_time: no folder '$2'" >&2; exit 1; }
    shift 2
    if [ ! -x "$base/build/loomc" ]; then
        echo "compile_time: $base/build/loomc is missing; build that checkout first (make)" >&2
        exit 1
    fi
fi
LOOMC=${1:-build/loomc}
REPEAT=${2:-3}
if [ ! -x "$LOOMC" ]; then
    echo "compile_time: $LOOMC is missing; build it first (make)" >&2
    exit 1
fi
LOOMC=$(cd "$(dirname "$LOOMC")" && pwd)/$(basename "$LOOMC")
if [ ! -x /usr/bin/time ]; then
    echo "compile_time: /usr/bin/time is needed for CPU time and peak memory" >&2
    exit 1
fi
export LOOMC_ARCH_PATH="${LOOMC_ARCH_PATH:-$PWD/arch}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on

# kernel|shape|consts (one per line)
cat >"$tmp/cases" <<'EOF'
kernels/matmul.py|M=256,N=256,K=256|
kernels/matmul.py|M=512,N=512,K=512|
kernels/matmul.py|M=1024,N=1024,K=1024|
kernels/matmul.py|M=2048,N=2048,K=2048|
kernels/matmul.py|M=4096,N=4096,K=4096|
kernels/matmul.py|M=8192,N=8192,K=8192|
kernels/matmul.py|M=4096,N=11008,K=4096|
kernels/matmul.py|M=4096,N=4096,K=11008|
kernels/matmul.py|M=1000,N=1000,K=1000|
kernels/matmul.py|M=32,N=4096,K=4096|
kernels/matmul.py|M=32,N=11008,K=4096|
kernels/matmul.py|M=128,N=4096,K=4096|
kernels/matmul.py|M=4096,N=64,K=4096|
kernels/flash_attention.py|B=1,H=8,S=256,D=64|
kernels/flash_attention.py|B=1,H=8,S=1024,D=64|
kernels/flash_attention.py|B=1,H=32,S=4096,D=128|
kernels/flash_attention.py|B=4,H=16,S=2048,D=128|
kernels/flash_attention.py|B=1,H=8,S=2048,D=64|CAUSAL=1
kernels/flash_attention.py|B=1,H=32,S=8192,D=128|CAUSAL=1
kernels/flash_decode.py|B=1,H=32,HKV=8,S=4096,D=128|
kernels/flash_decode.py|B=4,H=32,HKV=8,S=4096,D=128|
kernels/flash_decode.py|B=8,H=64,HKV=8,S=2048,D=128|
kernels/flash_decode.py|B=1,H=32,HKV=32,S=32768,D=128|
kernels/flash_decode.py|B=16,H=32,HKV=4,S=8192,D=128|
EOF

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run WHO ARGS...: one compilation by this build (WHO = new) or TREE's
# (base), in its own tree with its own descriptions; appends its wall and
# CPU milliseconds and peak MiB to $tmp/WHO_{wall,cpu,mem}. False when it
# failed (reported).
run() {
    who=$1
    shift
    if [ "$who" = base ]; then
        (cd "$base" && LOOMC_ARCH_PATH="$base/arch" /usr/bin/time -f "%U %S %M" -o "$tmp/time" build/loomc "$@") \
            >"$tmp/out" 2>"$tmp/err"
    else
        /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$LOOMC" "$@" >"$tmp/out" 2>"$tmp/err"
    fi || {
        echo "compile_time: failed ($who): loomc $*" >&2
        sed 's/^/    /' "$tmp/err" >&2
        return 1
    }
    python3 -c 'import json, sys; print(json.load(sys.stdin)["compile_seconds"] * 1000)' <"$tmp/out" >>"$tmp/${who}_wall"
    tail -n 1 "$tmp/time" | awk '{ print ($1 + $2) * 1000 }' >>"$tmp/${who}_cpu"
    tail -n 1 "$tmp/time" | awk '{ print $3 / 1024 }' >>"$tmp/${who}_mem"
}

whos=new
[ -n "$base" ] && whos="base new"
if [ -n "$base" ]; then
    printf "%-28s %-34s %-15s %9s %9s %9s %9s\n" kernel shape chip "wall ms" "cpu ms" "peak MiB" "cpu/base"
else
    printf "%-28s %-34s %-15s %9s %9s %9s\n" kernel shape chip "wall ms" "cpu ms" "peak MiB"
fi
for who in $whos; do
    : >"$tmp/all_${who}_wall"
    : >"$tmp/all_${who}_cpu"
    : >"$tmp/all_${who}_mem"
done
fail=0
for arch in wormhole_n150 blackhole_p150; do
    while IFS='|' read -r kernel shape consts; do
        [ -n "$kernel" ] || continue
        set -- compile "$kernel" --arch "$arch" --shape "$shape" --json
        [ -n "$consts" ] && set -- "$@" --const "$consts"
        for who in $whos; do
            : >"$tmp/${who}_wall"
            : >"$tmp/${who}_cpu"
            : >"$tmp/${who}_mem"
        done
        i=0
        while [ $i -lt "$REPEAT" ] && [ $fail = 0 ]; do
            for who in $whos; do
                run "$who" "$@" || fail=1
            done
            i=$((i + 1))
        done
        [ $fail = 0 ] || break 2
        for who in $whos; do
            median <"$tmp/${who}_wall" >>"$tmp/all_${who}_wall"
            median <"$tmp/${who}_cpu" >>"$tmp/all_${who}_cpu"
            sort -g "$tmp/${who}_mem" | tail -n 1 >>"$tmp/all_${who}_mem"
        done
        w=$(tail -n 1 "$tmp/all_new_wall")
        c=$(tail -n 1 "$tmp/all_new_cpu")
        m=$(tail -n 1 "$tmp/all_new_mem")
        label=$(basename "$kernel" .py)
        [ -n "$consts" ] && shape="$shape,$consts"
        if [ -n "$base" ]; then
            bc=$(tail -n 1 "$tmp/all_base_cpu")
            printf "%-28s %-34s %-15s %9.1f %9.1f %9.1f %9s\n" "$label" "$shape" "$arch" "$w" "$c" "$m" \
                "$(awk -v c="$c" -v b="$bc" 'BEGIN { if (b > 0) printf "%.2f", c / b; else print "-" }')"
        else
            printf "%-28s %-34s %-15s %9.1f %9.1f %9.1f\n" "$label" "$shape" "$arch" "$w" "$c" "$m"
        fi
    done <"$tmp/cases"
done
[ $fail = 0 ] || exit 1

mw=$(median <"$tmp/all_new_wall")
mc=$(median <"$tmp/all_new_cpu")
xw=$(sort -g "$tmp/all_new_wall" | tail -n 1)
xc=$(sort -g "$tmp/all_new_cpu" | tail -n 1)
xm=$(sort -g "$tmp/all_new_mem" | tail -n 1)
n=$(wc -l <"$tmp/all_new_wall")
awk -v n="$n" -v mw="$mw" -v mc="$mc" -v xw="$xw" -v xc="$xc" -v xm="$xm" 'BEGIN {
    printf "\n%d compilations (median of each over its repeats)\n", n
    printf "  median wall  %7.1f ms  (%.2f x the 100 ms target: %s)\n", mw, mw / 100, mw <= 100 ? "met" : "MISSED"
    printf "  median cpu   %7.1f ms  (%.2f x the 100 ms target: %s)\n", mc, mc / 100, mc <= 100 ? "met" : "MISSED"
    printf "  slowest      %7.1f ms wall, %.1f ms cpu\n", xw, xc
    printf "  peak memory  %7.1f MiB (%.3f x the 200 MiB target: %s)\n", xm, xm / 200, xm <= 200 ? "met" : "MISSED"
}'
if [ -n "$base" ]; then
    bw=$(median <"$tmp/all_base_wall")
    bc=$(median <"$tmp/all_base_cpu")
    awk -v t="$base" -v mw="$mw" -v mc="$mc" -v bw="$bw" -v bc="$bc" 'BEGIN {
        printf "against %s (each of its runs just before this build'"'"'s)\n", t
        printf "  its median wall %7.1f ms, cpu %7.1f ms\n", bw, bc
        printf "  this build / it: %.2f x wall, %.2f x cpu\n", (bw > 0 ? mw / bw : 0), (bc > 0 ? mc / bc : 0)
    }'
fi
exit 0
