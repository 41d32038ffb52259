#!/bin/sh
# Builds and runs graft's benchmarks (bench/*.c, one program each, built by
# the Makefile against BUILD/libgraft.a) and prints what each reports: figures
# and ratios against their targets, each line saying which way it has to go
# and whether it passes. Benchmarks are for people to read; nothing here
# fails because a machine is slow. GRAFT names the graft command the
# process-level comparisons run.
# Usage: sh bench/run.sh [BUILD]   (default build; `make bench` passes it)
set -e
cd "$(dirname "$0")/.."
build=${1:-build}
bins=""
for src in bench/*.c; do
    bins="$bins $build/bench/$(basename "$src" .c)"
done
make --no-print-directory BUILD="$build" $bins "$build/graft" >/dev/null
GRAFT="$build/graft"
export GRAFT
for b in $bins; do
    "$b"
done
