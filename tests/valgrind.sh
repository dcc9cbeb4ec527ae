#!/bin/sh
# valgrind.sh BUILD_DIR - run a few end-to-end loomc commands under Valgrind's
# memcheck: the three kernels through `loomc ir`, a description through
# `loomc arch`, a checked simulation, and error paths of every reader (the
# error paths are where a leak or an uninitialised read would hide). Each must
# exit as expected with no memory error and no definite or indirect leak.
# Use an uninstrumented build (the gcc build): sanitizer builds do not run
# under Valgrind. Ends with 'valgrind: N passed, N failed'; exit status 1 if
# anything failed.
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
loomc="$build/loomc"
export LOOMC_ARCH_PATH="$PWD/arch"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: not installed (make deps installs it)"
    echo "valgrind: 0 passed, 1 failed"
    exit 1
fi
if [ ! -x "$loomc" ]; then
    echo "valgrind: $loomc missing"
    echo "valgrind: 0 passed, 1 failed"
    exit 1
fi

# check WANTED_EXIT ARGS... - run loomc ARGS under memcheck
check() {
    want=$1
    shift
    valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --log-file="$tmp/log" "$loomc" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if [ "$rc" -eq "$want" ] && [ ! -s "$tmp/log" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL [valgrind] loomc $* (exit $rc, expected $want)"
        sed 's/^/    /' "$tmp/log" | head -n 40
        [ "$rc" -ne 99 ] && sed 's/^/    /' "$tmp/err" | head -n 10
    fi
}

# the three kernels, as their golden tests run them
check 0 ir kernels/matmul.py --shape M=512,N=512,K=512
check 0 ir kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64 --const CAUSAL=1
check 0 ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128
# a description and a checked simulation
check 0 arch wormhole_n150
check 0 arch --json blackhole_p150
check 0 sim tests/sim/stream_matmul.df --arch wormhole_n150 --check
check 0 sim tests/expect/hostile/d_one_core.df --arch tests/expect/hostile/a_one_core.yaml --json
# error paths: lexer, parser, launch spec, checker, YAML, dataflow text and
# validation, a deadlock at run time, a missing file
check 1 ir tests/expect/hostile/k_bad_utf8.py --shape M=64
check 1 ir tests/expect/hostile/k_deep_brackets.py --shape M=64
check 1 ir kernels/matmul.py --shape M=2147483647,N=2147483647,K=2147483647
check 1 ir tests/expect/front/check/arange_not_pow2.py --shape N=96
check 1 ir tests/expect/hostile/k_add_overflow.py --shape M=64
check 1 arch tests/expect/hostile/a_tab_indent.yaml
check 1 arch tests/expect/arch/missing_key.yaml
check 1 sim tests/expect/df/overlap.df --arch wormhole_n150
check 1 sim tests/expect/hostile/d_deep_parens.df --arch wormhole_n150
check 1 sim tests/sim/deadlock.df --arch wormhole_n150
check 1 ir tests/expect/hostile/no_such_file.py --shape M=1

echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
