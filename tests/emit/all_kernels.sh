#!/bin/sh
# all_kernels.sh LOOMC - every job that a test of tests/expect runs with 'loomc run ... --check'
# and that passes there, emitted and run on the host emulation (tests/metal_emu, a test
# harness) like tests/emit/run.sh's cases: its outputs against the reference interpreter and
# its CB pushes and pops against the simulator's (not bit for bit: many of these programs
# have 16-bit Dst, which the card rounds and the simulator does not). Long (some 150 jobs);
# not part of make test, which runs tests/emit/run.sh. Ends with 'emit-all: N passed, N failed'.
LOOMC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
BUILD=${BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build/emit-all}
. "$(dirname "$0")/lib.sh"
n=0
grep -r "^# RUN:.*loomc run .*--check" tests/expect | sed 's/:# RUN: loomc run /|/' >"$BUILD/jobs"
while IFS='|' read -r file cmd; do
    # the options of run that emit does not take, and %s as the test's own file
    args=$(echo "$cmd" | sed "s|%s|$file|g; s| --check||; s| --json||; s| --print||; s| --explain||")
    case "$args" in *--trace*|*--timing-only*|*--outputs-from*|*--save-data*|*--profile-csv*|*ttnn-kernel*) continue ;; esac
    # only the jobs that run and pass their check
    # shellcheck disable=SC2086
    "$LOOMC" run $args --check >/dev/null 2>&1 || continue
    n=$((n + 1))
    echo "     job$n: $file: $args"
    kernel=${args%% *}
    rest=${args#* }
    # shellcheck disable=SC2086
    case16 "job$n" $(echo "$rest" | sed -n 's/.*--arch \([^ ]*\).*/\1/p') "$kernel" $(echo "$rest" | sed 's/--arch [^ ]*//')
done <"$BUILD/jobs"
echo "emit-all: $pass passed, $fail failed"
[ $fail -eq 0 ]
