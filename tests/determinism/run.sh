#!/bin/sh
# run.sh BUILD_DIR - determinism: the same command run twice must print the
# same bytes (docs/hacking.md: no addresses, no hash order, no wall-clock
# figures in anything a test compares). Covers `loomc ir` on the three
# kernels, `loomc sim` (text, --json and the --trace file), and, when the
# commands exist in this build, `loomc compile --json` and `loomc run --json`.
# Members that measure the process rather than the program (compile_seconds,
# peak_rss_mib) are dropped before comparing; everything else must match.
# Ends with 'determinism: N passed, N failed'; exit status 1 if anything
# failed.
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
loomc="$build/loomc"
export LOOMC_ARCH_PATH="$PWD/arch"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on

# JSON members about the process, not the program
strip() { sed -e 's/"compile_seconds": *[0-9.eE+-]*,\{0,1\}//g' -e 's/,\{0,1\}"peak_rss_mib": *[0-9.eE+-]*//g' "$1"; }

# same WHAT ARGS... - run loomc ARGS twice; a %t in ARGS is a trace file
# (one per run) that must match too, and pass tests/trace_check.py
same() {
    what=$1
    shift
    for run in 1 2; do
        args=$(printf '%s\n' "$@" | sed "s|%t|$tmp/trace$run|")
        # shellcheck disable=SC2086
        set -f
        $loomc $(printf '%s ' $args) >"$tmp/out$run" 2>"$tmp/err$run" </dev/null
        echo $? >"$tmp/rc$run"
        set +f
        strip "$tmp/out$run" >"$tmp/cmp$run"
    done
    msg=""
    cmp -s "$tmp/rc1" "$tmp/rc2" || msg="exit status differs"
    cmp -s "$tmp/cmp1" "$tmp/cmp2" || msg="$msg; stdout differs"
    cmp -s "$tmp/err1" "$tmp/err2" || msg="$msg; stderr differs"
    if [ -f "$tmp/trace1" ] || [ -f "$tmp/trace2" ]; then
        cmp -s "$tmp/trace1" "$tmp/trace2" || msg="$msg; trace differs"
        python3 tests/trace_check.py "$tmp/trace1" >"$tmp/tracemsg" 2>&1 ||
            msg="$msg; trace: $(head -n 3 "$tmp/tracemsg" | tr '\n' ';')"
    fi
    [ "$(cat "$tmp/rc1")" = 0 ] || msg="$msg; exit $(cat "$tmp/rc1")"
    if [ -z "$msg" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL [determinism] $what: $msg"
        diff "$tmp/cmp1" "$tmp/cmp2" | head -n 10 | sed 's/^/    /'
        head -n 5 "$tmp/err1" | sed 's/^/    /'
    fi
    rm -f "$tmp/trace1" "$tmp/trace2"
}

if [ ! -x "$loomc" ]; then
    echo "FAIL [determinism] $loomc missing"
    echo "determinism: 0 passed, 1 failed"
    exit 1
fi

same "ir matmul" ir kernels/matmul.py --shape M=512,N=512,K=512
same "ir flash_attention" ir kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64 --const CAUSAL=1
same "ir flash_decode" ir kernels/flash_decode.py --shape B=4,H=32,HKV=8,S=4096,D=128
same "sim text" sim tests/sim/mcast_gemm.df --arch wormhole_n150 --check
same "sim --json" sim tests/sim/stream_matmul.df --arch wormhole_n150 --json --check
same "sim --trace" sim tests/sim/pingpong.df --arch wormhole_n150 --trace %t
same "sim --json --trace" sim tests/sim/mcast_gemm.df --arch wormhole_n150 --json --trace %t
if "$loomc" compile --help >/dev/null 2>&1; then
    same "compile --json matmul" compile kernels/matmul.py --arch wormhole_n150 --shape M=512,N=512,K=512 --json
    same "compile --json flash_decode" compile kernels/flash_decode.py --arch wormhole_n150 \
        --shape B=1,H=8,HKV=2,S=1024,D=64 --json
fi
if "$loomc" run --help >/dev/null 2>&1; then
    same "run --json matmul" run kernels/matmul.py --arch wormhole_n150 --shape M=256,N=256,K=256 --json --check
fi

echo "determinism: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
