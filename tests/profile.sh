#!/bin/sh
# profile.sh BUILD... - `loomc run --profile-csv` on each build: a job of two
# launches and a single-launch GEMM on each chip family, each file checked
# by tests/profile_check.py against the same run's JSON report and the
# description; '-' writes it to standard output (the report then goes to
# standard error); --trace - with --profile-csv - is a usage error. Ends
# with 'profile: N passed, N failed'.
cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
export LOOMC_ARCH_PATH="$PWD/arch"
export ASAN_OPTIONS="exitcode=86:detect_leaks=1" UBSAN_OPTIONS="halt_on_error=1:exitcode=87"

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [profile $build] $1"; [ -n "$2" ] && head -n 20 "$2" | sed 's/^/    /'; }

# check CHIP ARGS...: loomc run ARGS on CHIP with a profile, checked
check() {
    chip=$1
    shift
    if "$loomc" run "$@" --arch "$chip" --timing-only --json --profile-csv "$tmp/prof.csv" >"$tmp/rep.json" 2>"$tmp/err" &&
        "$loomc" arch --json "$chip" >"$tmp/arch.json" 2>>"$tmp/err" &&
        python3 tests/profile_check.py "$tmp/prof.csv" "$tmp/rep.json" "$tmp/arch.json" >>"$tmp/err" 2>&1; then ok
    else bad "$* on $chip" "$tmp/err"; fi
}

decode="kernels/flash_decode.py --shape B=1,H=16,HKV=8,S=512,D=64 --no-fuse"
gemm="kernels/matmul.py --shape M=256,N=512,K=256"
for build in "$@"; do
    loomc="$build/loomc"
    if [ ! -x "$loomc" ]; then bad "$loomc missing"; continue; fi
    # shellcheck disable=SC2086
    check wormhole_n150 $decode
    # shellcheck disable=SC2086
    check blackhole_p150 $gemm
    # to standard output, the report to standard error
    # shellcheck disable=SC2086
    if "$loomc" run $gemm --arch wormhole_n150 --timing-only --profile-csv - >"$tmp/out" 2>"$tmp/err" &&
        head -n 1 "$tmp/out" | grep -q '^ARCH: wormhole_n150, ' && grep -q 'simulated cycles' "$tmp/err"; then ok
    else bad "--profile-csv -" "$tmp/out"; fi
    # shellcheck disable=SC2086
    if ! "$loomc" run $gemm --arch wormhole_n150 --timing-only --profile-csv - --trace - >"$tmp/out" 2>"$tmp/err" &&
        grep -q 'cannot both write to standard output' "$tmp/err"; then ok
    else bad "--trace - --profile-csv -: not refused" "$tmp/err"; fi
done

echo "profile: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
