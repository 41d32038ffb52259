#!/bin/sh
# Builds and runs graft's benchmarks (bench/*.c, one program each, built by
# the Makefile against BUILD/libgraft.a) and prints what each reports: ratios
# against the targets, where below 1.0x meets the target. Benchmarks are for
# people to read; nothing here fails because a machine is slow.
# Usage: sh bench/run.sh [BUILD]   (default build; `make bench` passes it)
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
bins=""
for src in bench/*.c; do
    bins="$bins $build/bench/$(basename "$src" .c)"
done
make --no-print-directory BUILD="$build" $bins >/dev/null
for b in $bins; do
    "$b"
done
