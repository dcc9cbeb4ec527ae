#!/bin/sh
# calibrate.sh - regenerate docs/calibration.md: the simulator against TTNN's
# published measurements. For every row of the published GEMM tables in
# bench/data (TTNN's default schedules on N150 8x8, P150 13x10 and 11x10, and
# the hand-tuned N150 configs), for the published SDPA prefill rows on
# Blackhole that kernels/flash_attention.py expresses (with their program
# configs) and for Flash Decode on Wormhole, it simulates TTNN's schedule as
# a loomc schedule (timing-only) and writes the simulated device utilisation
# beside the published one. The Corrections section of the
# existing file is kept. Figures written by loomc are simulated.
#
# usage: bench/calibrate.sh [LOOMC] [loomc calibrate options...]
#        (default build/loomc). With options (e.g. --table oob --max-mkn 1e10,
#        or --table attention, for a quick look) the partial report goes to standard output and
#        docs/calibration.md is left alone.
cd "$(dirname "$0")/.." || exit 1
LOOMC=build/loomc
case "$1" in
    -*|'') ;;
    *) LOOMC=$1; shift ;;
esac
if [ ! -x "$LOOMC" ]; then
    echo "calibrate: $LOOMC is missing; build it first (make)" >&2
    exit 1
fi
export LOOMC_ARCH_PATH="${LOOMC_ARCH_PATH:-$PWD/arch}"
if [ $# -gt 0 ]; then
    exec "$LOOMC" calibrate --data bench/data --kernels kernels --progress "$@"
fi
exec "$LOOMC" calibrate --data bench/data --kernels kernels --out docs/calibration.md --progress
