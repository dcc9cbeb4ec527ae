#!/bin/sh
# run.sh BUILD_DIR SECONDS [NAME...] - run every fuzz harness built in
# BUILD_DIR (fuzz_* binaries, see `make fuzz`), or only the named ones, one
# after another for SECONDS each on its corpus (BUILD_DIR/corpus/NAME, seeded
# by corpus.sh), and print per harness the executions, executions per second,
# corpus entries and any crash. A crash, leak, timeout or out-of-memory input
# is saved as BUILD_DIR/crashes/NAME-*; turn it into a regression test under
# tests/expect/ before fixing it.
# Exit status 1 if any harness failed.
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build/fuzz}
secs=${2:-600}
[ $# -ge 2 ] && shift 2 || shift $#
only="$*"
sh tests/fuzz/corpus.sh "$build/corpus" || exit 1
mkdir -p "$build/crashes"

# Largest input per reader: big enough for the biggest seed and for deep
# nesting or long lines, small enough to keep executions fast.
max_len() {
    case $1 in
    fuzz_kernel | fuzz_launch | fuzz_compile) echo 32768 ;;
    fuzz_arch) echo 16384 ;;
    fuzz_df) echo 16384 ;;
    fuzz_plan) echo 65536 ;;
    fuzz_suite) echo 8192 ;;
    *) echo 16384 ;;
    esac
}

failed=0
for bin in "$build"/fuzz_*; do
    [ -x "$bin" ] || continue
    h=$(basename "$bin")
    if [ -n "$only" ]; then
        case " $only " in *" $h "*) ;; *) continue ;; esac
    fi
    dict=""
    [ -f "tests/fuzz/$h.dict" ] && dict="-dict=tests/fuzz/$h.dict"
    log="$build/$h.log"
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -max_len="$(max_len "$h")" -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/crashes/$h-" $dict "$build/corpus/$h" >"$log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    rate=$(sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
    corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' "$log" | tail -n 1)
    if [ "$rc" -eq 0 ]; then
        echo "fuzz: $h: ${runs:-?} runs in ${took:-?} s, ${rate:-?} exec/s, coverage ${cov:-?}, corpus ${corp:-?} inputs, no crash"
    else
        failed=$((failed + 1))
        echo "fuzz: $h: FAILED after ${runs:-?} runs (exit $rc), ${rate:-?} exec/s; log $log"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' "$log" | head -n 8 |
            sed 's/^/    /'
    fi
done
echo "fuzz: $failed harness(es) failed"
[ "$failed" -eq 0 ]
