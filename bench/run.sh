#!/bin/sh
# run.sh - what 'make bench' runs: the quick benchmark suites (bench/*-quick.suite: a few
# GEMM, flash attention and flash decode shapes on Wormhole n150, a few minutes on two
# cores), with the table on stdout and the JSON, the plots and the page (quick.html) in
# build/bench/, then the simulator's own speed check on the GEMM (bench/sim_speed.sh run
# by hand adds the attention shape, which takes minutes). Every figure is simulated, none is
# a hardware measurement. The full suites (bench/gemm.suite, attention.suite,
# decode.suite) take hours: run them by hand, e.g.
# build/loomc bench gemm --json build/bench/gemm.json.
cd "$(dirname "$0")/.." || exit 1
loomc=${LOOMC:-build/loomc}
out=${BENCH_OUT:-build/bench}
mkdir -p "$out" || exit 1
export LOOMC_ARCH_PATH="$PWD/arch"
status=0
"$loomc" bench --quick --json "$out/quick.json" --plots "$out/plots" --html "$out/quick.html" || status=1
echo
sh bench/sim_speed.sh --gemm-only "$loomc" || status=1
exit $status
