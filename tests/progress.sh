#!/bin/sh
# progress.sh BUILD... - the progress line of long work (util/progress.c) on
# each build: on a terminal (a pseudo-terminal from script(1)) run, bench and
# calibrate show their line and erase it before the report; with --quiet,
# and on a stream that is not a terminal, nothing of it appears.
# LOOMC_PROGRESS_DELAY=0 lets the line come at once, so that short runs show
# it. Ends with 'progress: N passed, N failed'.
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
export LOOMC_ARCH_PATH="$PWD/arch" LOOMC_PROGRESS_DELAY=0
export ASAN_OPTIONS="exitcode=86:detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1:exitcode=87"

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [progress $build] $1"; [ -n "$2" ] && od -c "$2" | head -n 20 | sed 's/^/    /'; }

# on_tty NAME ARGS...: loomc ARGS on a pseudo-terminal, all output in $tmp/NAME
on_tty() {
    name=$1
    shift
    script -qec "$loomc $*" /dev/null </dev/null >"$tmp/$name" 2>&1
}

# has FILE TEXT / lacks FILE TEXT
has() { grep -qF -- "$2" "$1"; }

run="kernels/matmul.py --arch wormhole_n150 --shape M=512,N=512,K=512 --timing-only"
bench="bench tests/expect/bench/tuned.suite --no-oracle --no-tuner"
cal="calibrate --data bench/data --kernels kernels --table decode --limit 1"
esc=$(printf '\033[K')

for build in "$@"; do
    loomc="$build/loomc"
    if [ ! -x "$loomc" ]; then bad "$loomc missing"; continue; fi

    # run: the line, then erased, then the report
    on_tty run run $run
    if has "$tmp/run" "simulating matmul_kernel (launch 1 of 1): simulated cycle" && has "$tmp/run" "$esc" &&
        has "$tmp/run" "simulated cycles"; then ok; else bad "run on a terminal: no progress line" "$tmp/run"; fi
    # the line is erased before the report's first line, and not shown again
    if python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
erase, job = data.rfind(b"\r\033[K"), data.find(b"job ")
sys.exit(not (0 <= erase < job and b"simulated cycle " not in data[erase:]))' "$tmp/run"; then ok
    else bad "run: the report starts before the line is erased" "$tmp/run"; fi
    on_tty run_quiet run $run --quiet
    if ! has "$tmp/run_quiet" "simulated cycle " && has "$tmp/run_quiet" "simulated cycles"; then ok
    else bad "run --quiet on a terminal: a progress line" "$tmp/run_quiet"; fi
    # shellcheck disable=SC2086
    "$loomc" run $run >"$tmp/out" 2>"$tmp/err" </dev/null
    if [ ! -s "$tmp/err" ] && has "$tmp/out" "simulated cycles"; then ok
    else bad "run, stderr not a terminal: something on stderr" "$tmp/err"; fi

    # bench: the row's line on a terminal, nothing on a log
    on_tty bench $bench
    if has "$tmp/bench" "bench: [1/" && has "$tmp/bench" "$esc"; then ok
    else bad "bench on a terminal: no progress line" "$tmp/bench"; fi
    on_tty bench_quiet $bench --quiet
    if ! has "$tmp/bench_quiet" "bench: ["; then ok; else bad "bench --quiet: a progress line" "$tmp/bench_quiet"; fi
    # shellcheck disable=SC2086
    "$loomc" $bench >"$tmp/out" 2>"$tmp/err" </dev/null
    if ! has "$tmp/err" "bench: [" && [ -s "$tmp/out" ]; then ok
    else bad "bench, stderr not a terminal: a progress line" "$tmp/err"; fi

    # calibrate: the row count on a terminal; --progress is a log instead
    on_tty cal $cal
    if has "$tmp/cal" "calibrate: 1 rows simulated (decode)"; then ok
    else bad "calibrate on a terminal: no progress line" "$tmp/cal"; fi
    on_tty cal_log $cal --progress
    if ! has "$tmp/cal_log" "rows simulated" && has "$tmp/cal_log" "calibrate decode B="; then ok
    else bad "calibrate --progress: not the log lines alone" "$tmp/cal_log"; fi
    # shellcheck disable=SC2086
    "$loomc" $cal >"$tmp/out" 2>"$tmp/err" </dev/null
    if [ ! -s "$tmp/err" ]; then ok; else bad "calibrate, stderr not a terminal: something on stderr" "$tmp/err"; fi
done

echo "progress: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
