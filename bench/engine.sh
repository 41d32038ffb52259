#!/bin/sh
# bench/engine.sh: the engine benchmark on its own (bench/bench_engine.c):
#   (2) the worklist driver with rules/fold.rules on generated 100k and 1M
#       instruction graphs of conv, pointwise, reshape and pad blocks;
#   (3) compute_shape calls, lazy shapes against eager, seed 001 scaled up.
# It prints figures and ratios measured in one run; nothing here fails
# because a machine is slow. bench/run.sh runs it with every other benchmark.
# Usage: sh bench/engine.sh [BUILD] [--quick] [--fold | --shapes]
set -e
cd "$(dirname "$0")/.."
build=build
case "$1" in -*|"") ;; *) build=$1; shift ;; esac
make --no-print-directory BUILD="$build" "$build/bench/bench_engine" > /dev/null
"$build/bench/bench_engine" "$@"
