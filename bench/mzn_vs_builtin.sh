#!/bin/sh
# mzn_vs_builtin.sh - compile time of `loomc compile` with loomc's own solver
# (--solver builtin) and with MiniZinc and Gecode (--solver minizinc:gecode,
# which runs the minizinc executable on every candidate problem), for the same
# (kernel, shape, chip): the shapes of the cross-check tests
# (tests/unit/test_mzn_kernels.c) and a few realistic ones. Each line gives
# the problems solved, loomc's compile_seconds (wall: reading the kernel to
# the chosen schedule) and the CPU time of the whole process with its
# children (user + system, from /usr/bin/time: what the machine's load does
# not inflate) for both solvers, the minizinc runs, and whether both chose the
# same schedule (the rank-1 entry of --json, cycles and every value).
# A benchmark, not a test: its figures are measured on the machine it runs
# on. docs/scheduler.md ("Open models (MiniZinc)") records one run.
#
# usage: bench/mzn_vs_builtin.sh [LOOMC] [quick]   (default build/loomc; quick:
#        only the test shapes)
cd "$(dirname "$0")/.." || exit 1
LOOMC=${1:-build/loomc}
MODE=${2:-all}
if [ ! -x "$LOOMC" ]; then
    echo "mzn_vs_builtin: $LOOMC is missing; build it first (make)" >&2
    exit 1
fi
for tool in /usr/bin/time minizinc; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "mzn_vs_builtin: $tool is needed (Debian's time and minizinc packages)" >&2
        exit 1
    fi
done
export LOOMC_ARCH_PATH="${LOOMC_ARCH_PATH:-$PWD/arch}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on

# kernel|shape|consts|chip (one per line); the first block is the tests'
cat >"$tmp/cases" <<'EOF'
kernels/matmul.py|M=64,N=64,K=64||wormhole_n150
kernels/matmul.py|M=96,N=32,K=160||blackhole_p150
kernels/flash_attention.py|B=1,H=1,S=64,D=64||wormhole_n150
kernels/flash_attention.py|B=2,H=1,S=32,D=64||blackhole_p150
kernels/flash_decode.py|B=1,H=8,HKV=1,S=64,D=64|NUM_SPLITS=2|wormhole_n150
kernels/flash_decode.py|B=1,H=4,HKV=1,S=128,D=32|NUM_SPLITS=4|blackhole_p150
EOF
if [ "$MODE" != quick ]; then
    cat >>"$tmp/cases" <<'EOF'
kernels/matmul.py|M=512,N=512,K=512||wormhole_n150
kernels/matmul.py|M=1024,N=1024,K=1024||wormhole_n150
kernels/matmul.py|M=1024,N=1024,K=1024||blackhole_p150
kernels/flash_attention.py|B=1,H=8,S=1024,D=64||wormhole_n150
kernels/flash_attention.py|B=1,H=8,S=2048,D=64|CAUSAL=1|blackhole_p150
kernels/flash_decode.py|B=1,H=32,HKV=8,S=4096,D=128||wormhole_n150
EOF
fi

# run SOLVER ARGS... : compile once; prints "problems wall_ms cpu_ms runs" and
# keeps the rank-1 entry in $tmp/top.SOLVER
run() {
    solver=$1
    shift
    if ! /usr/bin/time -f "%U %S" -o "$tmp/time" "$LOOMC" "$@" --json --solver "$solver" >"$tmp/out" 2>"$tmp/err"; then
        echo "mzn_vs_builtin: failed: loomc $* --solver $solver" >&2
        sed 's/^/    /' "$tmp/err" >&2
        return 1
    fi
    # the rank-1 entry to $tmp/top.SOLVER; problems solved, wall ms and MiniZinc runs
    set -- $(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    json.dump(j["top"][:1], f, sort_keys=True)
print(j["candidates"]["solved"], j["compile_seconds"] * 1000, j.get("minizinc_runs", 0))' "$tmp/out" "$tmp/top.$solver")
    c=$(tail -n 1 "$tmp/time" | awk '{ print ($1 + $2) * 1000 }')
    echo "$1 $2 $c $3"
}

echo "Measured on this machine ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start);"
echo "wall = loomc's compile_seconds, cpu = user + system of loomc and its children (10 ms"
echo "resolution: cpu x, MiniZinc's cpu over the builtin's, is - when the builtin's rounds to 0)."
printf "\n%-16s %-38s %-15s %5s %10s %10s %5s %10s %10s %8s %5s\n" kernel shape chip probs \
    "bi wall ms" "bi cpu ms" runs "mzn wall s" "mzn cpu s" "cpu x" same
fail=0
tb=0
tm=0
while IFS='|' read -r kernel shape consts chip; do
    [ -n "$kernel" ] || continue
    set -- compile "$kernel" --arch "$chip" --shape "$shape"
    [ -n "$consts" ] && set -- "$@" --const "$consts"
    b=$(run builtin "$@") || { fail=1; continue; }
    m=$(run minizinc:gecode "$@") || { fail=1; continue; }
    if cmp -s "$tmp/top.builtin" "$tmp/top.minizinc:gecode"; then same=yes; else same=NO; fail=1; fi
    label=$(basename "$kernel" .py)
    [ -n "$consts" ] && shape="$shape,$consts"
    echo "$b $m" | awk -v k="$label" -v s="$shape" -v a="$chip" -v same="$same" '{
        printf "%-16s %-38s %-15s %5d %10.1f %10.1f %5d %10.2f %10.2f %8s %5s\n",
            k, s, a, $1, $2, $3, $8, $6 / 1000, $7 / 1000, ($3 > 0 ? sprintf("%.0f", $7 / $3) : "-"), same }'
    tb=$(echo "$tb $b" | awk '{ print $1 + $4 }')
    tm=$(echo "$tm $m" | awk '{ print $1 + $4 }')
done <"$tmp/cases"
awk -v b="$tb" -v m="$tm" 'BEGIN { printf "\ntotal cpu: builtin %.2f s, minizinc:gecode %.2f s\n", b / 1000, m / 1000 }'
exit $fail
