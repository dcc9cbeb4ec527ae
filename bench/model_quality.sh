#!/bin/sh
# model_quality.sh - how well loomc's latency model picks and orders schedules, against the
# simulator, on shapes and chips nobody chose: bench/model-quality.suite draws its shapes with
# a seeded generator (log-uniform sizes, square and skinny, odd sizes) for matmul, attention
# (causal and not) and decode, and runs them on every description in arch/ and on three chips
# it derives from them at run time. Per operator and chip: rank correlation of predicted and
# simulated cycles, top-1 regret against the best schedule found (mean, worst, the worst row),
# the pick's predicted over simulated cycles, and the targets (docs/scheduler.md, "Model
# quality", where a run is recorded). All figures are simulated (timing-only runs).
#
# A benchmark, not a test: the full form (40 shapes per operator and chip, oracle bound 100)
# takes about 4 hours on one core; 'quick' draws 2 shapes per operator with a bound of 30
# (a few minutes).
#
# usage: bench/model_quality.sh [quick] [SEED]   (LOOMC, BENCH_OUT from the environment)
cd "$(dirname "$0")/.." || exit 1
loomc=${LOOMC:-build/loomc}
out=${BENCH_OUT:-build/bench}
mkdir -p "$out" || exit 1
export LOOMC_ARCH_PATH="$PWD/arch"
if [ "$1" = quick ]; then
    shift
    exec "$loomc" bench --model-quality model-quality --draws 2 --oracle-bound 30 --seed "${1:-1}" \
        --json "$out/model_quality_quick.json"
fi
exec "$loomc" bench --model-quality model-quality --seed "${1:-1}" --json "$out/model_quality.json"
