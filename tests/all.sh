#!/bin/sh
# all.sh BUILD... - every test of `make test`: the suite on each build; the
# layout check (tests/layout.py), the output paths (tests/outputs.py), the
# determinism checks and the Valgrind run on the first build; the TT-Metalium
# emulation's tests (tests/metal_emu/run.sh) and the emitter's on it
# (tests/emit/run.sh, with the first build's loomc); the JSON documents and
# --json's errors, and bench's HTML page in headless Chromium, on each build
# (tests/json_docs.py, tests/html_check.py); the installed library
# and docs/example.c on each build (tests/api.sh); the progress line on a
# terminal and its absence elsewhere, and the device-profile CSV, on each
# build (tests/progress.sh, tests/profile.sh); the Python package on each
# build, from the source tree and installed (tests/python.sh);
# each part's time; then one total line 'total: N passed, N failed'. Exit status 1 if anything failed.
cd "$(dirname "$0")/.." || exit 1
log=$(mktemp)
rc=$(mktemp)
trap 'rm -f "$log" "$rc"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
status=0
# run a part, show its output as it comes, keep it for the total and its exit
# status; then its wall-clock time (what to look at when the whole run is slow)
part() {
    start=$(date +%s)
    { sh "$@"; echo $? >"$rc"; } | tee -a "$log"
    [ "$(cat "$rc")" = 0 ] || status=1
    echo "[$1 took $(($(date +%s) - start)) s]"
}
part tests/run.sh "$@"
part tests/layout.sh "$1"
part tests/outputs.sh "$1"
part tests/json_docs.sh "$@"
part tests/html.sh "$@"
part tests/determinism/run.sh "$1"
part tests/valgrind.sh "$1"
part tests/metal_emu/run.sh
part tests/emit/run.sh "$1/loomc"
part tests/api.sh "$@"
part tests/progress.sh "$@"
part tests/profile.sh "$@"
part tests/python.sh "$@"
# each part ends with 'WORD: N passed, N failed'
p=$(sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
f=$(sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log" | awk '{s+=$1} END {print s+0}')
[ "$f" -ne 0 ] && status=1
echo "total: $p passed, $f failed"
exit $status
