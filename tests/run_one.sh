#!/bin/sh
# run_one.sh BUILD FIRST RESULTS INDEX KIND ITEM - one test of tests/run.sh
# (which says what each KIND is): a unit test binary (unit), a golden
# command (golden), a set of commands that must agree (same) or a
# self-describing input (expect), run with BUILD/loomc. FIRST is 1 for the
# first build, the one UPDATE=1 rewrites golden files from. Writes
# RESULTS/INDEX.log (the failures, as run.sh prints them) and
# RESULTS/INDEX.n ('PASSED FAILED'). Run from the repository root with
# run.sh's environment.
build=$1 first=$2 results=$3 index=$4 kind=$5 item=$6
loomc="$build/loomc"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [$build] $1"; [ -n "$2" ] && sed 's/^/    /' "$2" | head -n 40; }

run_unit() {
    t=$item
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
}

run_golden() {
    cmd=$item
    base=${cmd%.cmd}
    # shellcheck disable=SC2046
    "$loomc" $(cat "$cmd") >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    if [ -f "$base.out" ]; then
        if [ "$UPDATE" = 1 ] && [ "$first" = 1 ]; then cp "$tmp/stdout" "$base.out"; fi
        if [ $rc -ne 0 ]; then bad "$cmd: exit $rc, expected 0" "$tmp/stderr"
        elif ! diff -u "$base.out" "$tmp/stdout" >"$tmp/diff"; then bad "$cmd: stdout differs" "$tmp/diff"
        else ok; fi
    elif [ -f "$base.err" ]; then
        if [ "$UPDATE" = 1 ] && [ "$first" = 1 ]; then cp "$tmp/stderr" "$base.err"; fi
        if [ $rc -ne 1 ]; then bad "$cmd: exit $rc, expected 1" "$tmp/stderr"
        elif ! diff -u "$base.err" "$tmp/stderr" >"$tmp/diff"; then bad "$cmd: stderr differs" "$tmp/diff"
        else ok; fi
    else
        bad "$cmd has neither .out nor .err"
    fi
}

run_same() {
    cmd=$item
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
}

run_expect() {
    f=$item
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
}

"run_$kind" >"$results/$index.log" 2>&1
echo "$pass $fail" >"$results/$index.n"
