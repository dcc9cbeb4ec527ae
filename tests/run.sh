#!/bin/sh
# run.sh BUILD_DIR... - run loomc's test suite against each build folder.
#
# Three kinds of tests, all found by file name (add a file, get a test):
#  - tests/unit/test_*.c : cmocka unit tests, built to BUILD/tests/test_*; their TAP
#    lines are counted one test each.
#  - tests/golden/NAME.cmd : one line of loomc arguments, run from the repository root.
#    NAME.out beside it: exit 0 and stdout must equal it.
#    NAME.err beside it: exit 1 and stderr must equal it.
#  - tests/same/NAME.cmd : two or more lines of loomc arguments that must all exit 0 with
#    the same stdout (two ways of writing one kernel give one schedule and one result);
#    a line '# IGNORE: REGEX' drops the output lines that match REGEX (grep -E) first, and
#    a line '# SED: SCRIPT' rewrites what is left (sed -E), e.g. a label that names a line.
#  - tests/expect/**/FILE : a self-describing input. Its comment lines say
#      # RUN: loomc ARGS        (%s stands for the file's path; several RUN lines allowed)
#      # EXIT: N                (expected exit status, default 1)
#      # EXPECT: TEXT           (must occur in stderr; several allowed)
#      # STDOUT: TEXT           (must occur in stdout; several allowed)
#      # STDERR: LINE           (when present, stderr must be exactly these lines, in order,
#                                each taken verbatim after "STDERR: ")
#      # TRACE: WORDS           (%t in a RUN line stands for a trace file; the trace each such
#                                run writes is checked by tests/trace_check.py, with these words)
#    Comments start with '#' (kernels, YAML, dataflow programs) or '//'.
# The run ends with 'N passed, N failed'; the exit status is 1 if anything failed.
# With UPDATE=1, golden files are rewritten from the current output (review the diff!).
# The tests of a build run JOBS at a time (default 2; tests/run_one.sh runs
# one), the builds one after the other; each build's failures print in the
# order above once its tests are done.

cd "$(dirname "$0")/.." || exit 1
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
export ASAN_OPTIONS="exitcode=86:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=87:print_stacktrace=1"
export LSAN_OPTIONS="exitcode=88"
export LOOMC_ARCH_PATH="$PWD/arch"
export UPDATE

# the tests of one build, one 'KIND ITEM' a line: unit tests first (the
# longest), then golden commands, agreeing commands, self-describing inputs
list() {
    for t in "$1"/tests/test_*; do
        [ -x "$t" ] && echo "unit $t"
    done
    for c in tests/golden/*.cmd; do
        [ -f "$c" ] && echo "golden $c"
    done
    for c in tests/same/*.cmd; do
        [ -f "$c" ] && echo "same $c"
    done
    find tests/expect -type f ! -name '*.md' | sort | while read -r f; do
        grep -q '^\(#\|//\) RUN: ' "$f" && echo "expect $f"
    done
}

for build in "$@"; do
    if [ ! -x "$build/loomc" ]; then
        fail=$((fail + 1)); echo "FAIL [$build] $build/loomc missing"; continue
    fi
    first=0
    [ "$build" = "$1" ] && first=1
    rm -rf "$tmp/res" && mkdir "$tmp/res"
    list "$build" | awk '{ printf "%05d %s %s\n", NR, $1, $2 }' >"$tmp/jobs"
    xargs -P "${JOBS:-2}" -n 3 sh tests/run_one.sh "$build" "$first" "$tmp/res" <"$tmp/jobs"
    while read -r index kind item; do
        if [ -f "$tmp/res/$index.n" ]; then
            cat "$tmp/res/$index.log"
            read -r p f <"$tmp/res/$index.n"
            pass=$((pass + p))
            fail=$((fail + f))
        else
            fail=$((fail + 1)); echo "FAIL [$build] $item: the test did not finish"
        fi
    done <"$tmp/jobs"
    echo "[$build] done"
done

echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
