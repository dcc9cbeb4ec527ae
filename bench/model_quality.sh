#!/bin/sh
# model_quality.sh - how well loomc's latency model ranks schedules, against the simulator:
# for each shape of bench/model-quality.suite (or the suites given), every legal schedule
# (or a stratified sample of BOUND of them) is simulated timing-only, and the table gives
# Spearman's rank correlation of predicted and simulated cycles (over all of them and over
# the fastest tenth), the gap of the model's top-1 to the best simulated, and its rank.
# docs/scheduler.md ("Model quality") discusses a run. All figures are simulated.
# Takes about 6 minutes on two cores (BOUND=2500): model-quality runs are never capped,
# so slow schedules are simulated to the end.
#
# usage: bench/model_quality.sh [SUITE...]    (LOOMC, BOUND, BENCH_OUT from the environment)
cd "$(dirname "$0")/.." || exit 1
loomc=${LOOMC:-build/loomc}
bound=${BOUND:-2500}
out=${BENCH_OUT:-build/bench}
mkdir -p "$out" || exit 1
export LOOMC_ARCH_PATH="$PWD/arch"
[ $# -eq 0 ] && set -- bench/model-quality.suite
exec "$loomc" bench --model-quality --oracle-bound "$bound" --json "$out/model_quality.json" "$@"
