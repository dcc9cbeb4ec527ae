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

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [$build] $1"; [ -n "$2" ] && sed 's/^/    /' "$2" | head -n 40; }

for build in "$@"; do
    loomc="$build/loomc"
    if [ ! -x "$loomc" ]; then bad "$loomc missing"; continue; fi

    # unit tests
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        CMOCKA_MESSAGE_OUTPUT=TAP "$t" >"$tmp/out" 2>&1
        rc=$?
        np=$(grep -c '^ok ' "$tmp/out")
        nf=$(grep -c '^not ok ' "$tmp/out")
        pass=$((pass + np))
        if [ "$nf" -gt 0 ]; then
            fail=$((fail + nf))
            echo "FAIL [$build] $(basename "$t"):"
            grep -A8 '^not ok ' "$tmp/out" | sed 's/^/    /' | head -n 60
        elif [ "$rc" -ne 0 ] || [ "$np" -eq 0 ]; then
            bad "$(basename "$t") exited $rc" "$tmp/out"
        fi
    done

    # golden output tests
    for cmd in tests/golden/*.cmd; do
        [ -f "$cmd" ] || continue
        base=${cmd%.cmd}
        # shellcheck disable=SC2046
        "$loomc" $(cat "$cmd") >"$tmp/stdout" 2>"$tmp/stderr"
        rc=$?
        if [ -f "$base.out" ]; then
            if [ "$UPDATE" = 1 ] && [ "$build" = "$1" ]; then cp "$tmp/stdout" "$base.out"; fi
            if [ $rc -ne 0 ]; then bad "$cmd: exit $rc, expected 0" "$tmp/stderr"
            elif ! diff -u "$base.out" "$tmp/stdout" >"$tmp/diff"; then bad "$cmd: stdout differs" "$tmp/diff"
            else ok; fi
        elif [ -f "$base.err" ]; then
            if [ "$UPDATE" = 1 ] && [ "$build" = "$1" ]; then cp "$tmp/stderr" "$base.err"; fi
            if [ $rc -ne 1 ]; then bad "$cmd: exit $rc, expected 1" "$tmp/stderr"
            elif ! diff -u "$base.err" "$tmp/stderr" >"$tmp/diff"; then bad "$cmd: stderr differs" "$tmp/diff"
            else ok; fi
        else
            bad "$cmd has neither .out nor .err"
        fi
    done

    # commands that must agree
    for cmd in tests/same/*.cmd; do
        [ -f "$cmd" ] || continue
        n=0
        same=1
        ignore=$(sed -n 's/^# IGNORE: //p' "$cmd")
        [ -n "$ignore" ] || ignore='^$.'
        script=$(sed -n 's/^# SED: //p' "$cmd")
        while IFS= read -r line; do
            case $line in ''|'#'*) continue ;; esac
            # shellcheck disable=SC2086
            "$loomc" $line >"$tmp/raw" 2>"$tmp/stderr" </dev/null
            rc=$?
            grep -Ev "$ignore" "$tmp/raw" | sed -E "$script" >"$tmp/same$n"
            if [ $rc -ne 0 ]; then bad "$cmd: '$line' exited $rc" "$tmp/stderr"; same=0; break; fi
            if [ $n -gt 0 ] && ! diff -u "$tmp/same0" "$tmp/same$n" >"$tmp/diff"; then
                bad "$cmd: '$line' differs from the first line" "$tmp/diff"; same=0; break
            fi
            n=$((n + 1))
        done <"$cmd"
        if [ $same = 1 ] && [ $n -lt 2 ]; then bad "$cmd: needs two commands or more"
        elif [ $same = 1 ]; then ok; fi
    done

    # self-describing inputs
    find tests/expect -type f ! -name '*.md' | sort >"$tmp/list"
    while read -r f; do
        grep -q '^\(#\|//\) RUN: ' "$f" || continue
        want=$(sed -n 's/^\(#\|\/\/\) EXIT: *//p' "$f" | head -n 1)
        [ -n "$want" ] || want=1
        sed -n 's/^\(#\|\/\/\) RUN: *loomc //p' "$f" >"$tmp/runs"
        while read -r args; do
            traced=""
            case "$args" in *%t*) traced=1 ;; esac
            rm -f "$tmp/trace.json"
            args=$(printf '%s' "$args" | sed "s|%s|$f|g; s|%t|$tmp/trace.json|g")
            # shellcheck disable=SC2086
            "$loomc" $args >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
            rc=$?
            msg=""
            [ "$rc" -ne "$want" ] && msg="exit $rc, expected $want"
            if [ -n "$traced" ]; then
                words=$(sed -n 's/^\(#\|\/\/\) TRACE: *//p' "$f" | tr '\n' ' ')
                if [ ! -f "$tmp/trace.json" ]; then
                    msg="$msg; no trace written"
                # shellcheck disable=SC2086
                elif ! python3 tests/trace_check.py "$tmp/trace.json" $words >"$tmp/tracemsg" 2>&1; then
                    msg="$msg; trace: $(head -n 5 "$tmp/tracemsg" | tr '\n' ';')"
                fi
            fi
            sed -n 's/^\(#\|\/\/\) EXPECT: *//p' "$f" >"$tmp/exp"
            while read -r e; do
                grep -qF -- "$e" "$tmp/stderr" || msg="$msg; stderr lacks: $e"
            done <"$tmp/exp"
            sed -n 's/^\(#\|\/\/\) STDOUT: *//p' "$f" >"$tmp/exp"
            while read -r e; do
                grep -qF -- "$e" "$tmp/stdout" || msg="$msg; stdout lacks: $e"
            done <"$tmp/exp"
            if grep -q '^\(#\|//\) STDERR:' "$f"; then
                sed -n 's/^\(#\|\/\/\) STDERR: \{0,1\}//p' "$f" >"$tmp/exp"
                diff -u "$tmp/exp" "$tmp/stderr" >"$tmp/diff" || { msg="$msg; stderr differs"; cat "$tmp/diff" >>"$tmp/stderr"; }
            fi
            if [ -n "$msg" ]; then cat "$tmp/stdout" >>"$tmp/stderr"; bad "$f ($args): $msg" "$tmp/stderr"; else ok; fi
        done <"$tmp/runs"
    done <"$tmp/list"
    echo "[$build] done"
done

echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
