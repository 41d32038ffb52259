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

# ---- fusion rows (issue 8), through the graft command ----
# ms_of FILE: the "ms" of a --stats json line; best_ms N CMD...: the least ms
# of N runs of CMD (a graft opt ... --stats json).
ms_of() { sed -n 's/.*"ms":\([0-9.]*\)}.*/\1/p' "$1"; }
# least A B: the smaller of two figures, where an empty A is none yet.
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
best_ms() {
    n=$1
    shift
    best=
    for _ in $(seq "$n"); do
        "$@" > "$scratch/j" 2>/dev/null || { echo fail; return; }
        best=$(least "$best" "$(ms_of "$scratch/j")")
    done
    echo "$best"
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Matching stays flat in the number of rules: -r rules/fuse.rules (N rules)
# against the same rules plus a copy of each that never matches (2N), on a
# graph of 250k instructions where the fusion rules are tried at every
# pointwise op and none fires (reduce_sum, relu of it, broadcast, add).
awk -v n=50000 'BEGIN {
  print "module: \"main\""
  print "x = @param:x -> float_type, {4, 8}, {8, 1}"
  prev = "x"
  for (k = 0; k < n; k++) {
    printf "c%d = @literal{ ... } -> float_type, {4, 8}, {8, 1}\n", k
    printf "s%d = reduce_sum[axes={1}](%s)\nr%d = relu(s%d)\n", k, prev, k, k
    printf "b%d = multibroadcast[out_lens={4, 8}](r%d)\na%d = add(b%d,c%d)\n", k, k, k, k, k
    prev = "a" k
  }
  print "@ret = @return(" prev ")"
}' > "$scratch/match.txt"
cp rules/fuse.rules "$scratch/n.rules"
awk -f bench/rule_copies.awk rules/fuse.rules > "$scratch/2n.rules"
n1=$(grep -c '^rule ' "$scratch/n.rules")
n2=$(grep -c '^rule ' "$scratch/2n.rules")
t1= t2= ratios=
if "$GRAFT" rules "$scratch/2n.rules" > /dev/null 2>&1; then
    # Interleaved, N then 2N in each round, so that a change in the
    # machine's load during the row falls on both sides of each round's
    # ratio; the row reports the median of the rounds' ratios and their
    # spread, since the best of each side can come from different rounds.
    for _ in 1 2 3 4 5 6 7; do
        a=$(best_ms 1 "$GRAFT" opt "$scratch/match.txt" -r "$scratch/n.rules" --stats json)
        b=$(best_ms 1 "$GRAFT" opt "$scratch/match.txt" -r "$scratch/2n.rules" --stats json)
        [ "$a" != fail ] && [ "$b" != fail ] || { t1=fail; break; }
        t1=$(least "$t1" "$a")
        t2=$(least "$t2" "$b")
        ratios="$ratios $(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
    done
fi
if [ "$t1" = fail ]; then
    echo "fusion matching: graft opt failed"
elif [ -n "$t1" ]; then
    echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk -v n1="$n1" -v n2="$n2" -v t1="$t1" -v t2="$t2" '
        { r[NR] = $1 }
        END {
            i = 250002; m = r[int((NR + 1) / 2)]
            printf "fusion matching: %d rules %.0f ns/instruction, %d rules %.0f ns/instruction " \
                   "(best of %d, interleaved, 250k instructions); ratio %.2fx, median of %d rounds " \
                   "(spread %.2f-%.2fx) (target <= 1.2x: %s)\n",
                   n1, t1 * 1e6 / i, n2, t2 * 1e6 / i, NR, m, NR, r[1], r[NR], m <= 1.2 ? "met" : "NOT met" }'
else
    echo "fusion matching: skipped (the copies of rules/fuse.rules do not compile)"
fi

# Fusion's share of -p default on a graph with something to fuse: chains of
# pointwise ops between reductions (add, relu, mul, exp, reduce_sum,
# broadcast, div; one literal per block), at two sizes, so that the growth
# of the fusion time shows too (linear: 2x).
chains() {
    awk -v n="$1" 'BEGIN {
      print "module: \"main\""
      print "x = @param:x -> float_type, {4, 8}, {8, 1}"
      prev = "x"
      for (k = 0; k < n; k++) {
        printf "c%d = @literal{ ... } -> float_type, {4, 8}, {8, 1}\n", k
        printf "a%d = add(%s,c%d)\nr%d = relu(a%d)\nm%d = mul(r%d,c%d)\ne%d = exp(m%d)\n",
               k, prev, k, k, k, k, k, k, k, k
        printf "s%d = reduce_sum[axes={1}](e%d)\nsb%d = multibroadcast[out_lens={4, 8}](s%d)\n",
               k, k, k, k
        printf "d%d = div(e%d,sb%d)\n", k, k, k
        prev = "d" k
      }
      print "@ret = @return(" prev ")"
    }'
}
for blocks in 500 1000; do
    chains $blocks > "$scratch/chains$blocks.txt"
    td=$(best_ms 1 "$GRAFT" opt "$scratch/chains$blocks.txt" -p default --stats json)
    tn=$(best_ms 1 "$GRAFT" opt "$scratch/chains$blocks.txt" -p normalize --stats json)
    eval "td_$blocks=$td tn_$blocks=$tn"
    awk -v b="$blocks" -v td="$td" -v tn="$tn" 'BEGIN {
        s = (td - tn) / td
        printf "fusion share, %d pointwise chains (%d instructions): -p default %.0f ms, " \
               "-p normalize %.0f ms; fusion %.1f%% of -p default, %.1f us per instruction " \
               "(a stress case: -p normalize has little to do here; issue 8'"'"'s <= 30%% " \
               "target is on the 1M graph, row (4))\n",
               b, 8 * b + 3, td, tn, 100 * s, 1000 * (td - tn) / (8 * b + 3) }'
done
awk -v a="$td_500" -v b="$td_1000" -v c="$tn_500" -v d="$tn_1000" 'BEGIN {
    printf "fusion growth: twice the chains, -p default time %.2fx, fusion part %.2fx " \
           "(linear: 2x)\n", b / a, (b - d) / (a - c) }'

# Memory traffic against its lower bound after -p default (graft opt --stats;
# docs/architecture.md defines both): the UNet block and a transformer layer.
for g in unet_groupnorm transformer_layer; do
    if "$GRAFT" opt "examples/$g.txt" -p default --stats json > "$scratch/j" 2>/dev/null; then
        moved=$(sed -n 's/.*"bytes_moved":\([0-9]*\).*/\1/p' "$scratch/j")
        bound=$(sed -n 's/.*"bytes_lower_bound":\([0-9]*\).*/\1/p' "$scratch/j")
        kernels=$(sed -n 's/.*"kernels":\([0-9]*\).*/\1/p' "$scratch/j")
        awk -v g="$g" -v m="$moved" -v b="$bound" -v k="$kernels" 'BEGIN {
            r = m / b
            printf "bytes_moved / bytes_lower_bound, %s, -p default (%d kernels): " \
                   "%d / %d = %.2f (target <= 1.2: %s)\n", g, k, m, b, r,
                   r <= 1.2 ? "met" : "NOT met" }'
    else
        echo "bytes_moved / bytes_lower_bound, $g: graft opt failed"
    fi
done

# ---- launch-plan rows (issue 9): per model after -p default, from the
# kernels as generated (graft opt --stats json, whose kernels and bytes_moved
# come from the launch plan when the graph lowers; docs/codegen.md): kernels,
# bytes_moved, bytes_lower_bound and their ratio, and the arithmetic intensity
# of the convolution and dot kernels (their flops over the bytes they move).
models=${GRAFT_ONNX_LIGHT:-../shared/models/onnx-light}
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2"; }
plan_row() {
    name=$1
    shift
    if ! "$GRAFT" opt "$@" -p default --stats json > "$scratch/p" 2>/dev/null; then
        echo "launch plan, $name: graft opt failed"
        return
    fi
    if ! grep -q '"kernels_from":"plan"' "$scratch/p"; then
        why=$(sed -n 's/.*"not_lowered":"\([^"]*\)".*/\1/p' "$scratch/p")
        echo "launch plan, $name: not lowered ($why)"
        return
    fi
    awk -v n="$name" -v k="$(field kernels "$scratch/p")" -v m="$(field bytes_moved "$scratch/p")" \
        -v b="$(field bytes_lower_bound "$scratch/p")" -v gk="$(field gemm_kernels "$scratch/p")" \
        -v gf="$(field gemm_flops "$scratch/p")" -v gb="$(field gemm_bytes_moved "$scratch/p")" 'BEGIN {
        printf "launch plan, %s, -p default: %d kernels, bytes_moved %d, bytes_lower_bound %d, " \
               "ratio %.2f", n, k, m, b, (b > 0 ? m / b : 0)
        if (gk > 0)
            printf "; %d conv/dot kernels: %.3g flops / %d bytes = %.1f flops/byte", gk, gf, gb,
                   (gb > 0 ? gf / gb : 0)
        printf "\n" }'
}
for g in unet_groupnorm transformer_layer; do
    plan_row "$g" "examples/$g.txt"
done
if [ -d "$models" ]; then
    for d in "$models"/*/; do
        [ -f "$d/model.onnx" ] && plan_row "$(basename "$d")" "$d/model.onnx"
    done
else
    echo "launch plan rows for onnx-light: skipped ($models not found)"
fi

# What --stats costs on bench_engine's 1M-instruction conv/pointwise/reshape/pad
# graph (the same blocks, written as text): CPU time (user + sys) of graft opt
# -p default writing the result, with and without --stats json. --stats
# counts kernels twice (before: over the 200k-instruction limit of
# cg_graph_counts, so op classes; after: 100k instructions, lowered).
awk -v n=1000000 'BEGIN {
  print "module: \"main\""
  print "x = @param:x -> float_type, {1, 4, 8, 8}, {256, 64, 8, 1}"
  print "w = @literal{ ... } -> float_type, {4, 4, 3, 3}, {36, 9, 3, 1}"
  v = "x"; count = 2
  for (k = 0; count + 10 < n; k++) {
    printf "p%d = pad[pads={0, 0, 1, 1, 0, 0, 1, 1}](%s)\nc%d = convolution(p%d,w)\n", k, v, k, k
    printf "r%d = reshape[dims={1, 4, 8, 8}](c%d)\n", k, k
    printf "t%d = transpose[permutation={0, 1, 3, 2}](r%d)\n", k, k
    printf "u%d = transpose[permutation={0, 1, 3, 2}](t%d)\n", k, k
    printf "z%d = @literal{0} -> float_type, {1}, {1}\n", k
    printf "b%d = multibroadcast[out_lens={1, 4, 8, 8}](z%d)\na%d = add(u%d,b%d)\n", k, k, k, k, k
    printf "e%d = relu(a%d)\nv%d = contiguous(e%d)\n", k, k, k, k
    v = "v" k; count += 10
  }
  print "@ret = @return(" v ")"
}' > "$scratch/conv1m.txt"
cpu_s() { /usr/bin/time -f "%U %S" -o "$scratch/t" "$@" > /dev/null 2>&1 && awk '{ print $1 + $2 }' "$scratch/t"; }
if [ -x /usr/bin/time ]; then
    plain=$(cpu_s "$GRAFT" opt "$scratch/conv1m.txt" -p default -o "$scratch/o.txt")
    stats=$(cpu_s "$GRAFT" opt "$scratch/conv1m.txt" -p default -o "$scratch/o.txt" --stats json)
    awk -v a="$plain" -v b="$stats" 'BEGIN {
        printf "graft opt -p default, 1M instructions: %.2f s of CPU, with --stats json " \
               "(kernels from the launch plan) %.2f s: %.2fx\n", a, b, (a > 0 ? b / a : 0) }'
else
    echo "--stats cost: skipped (/usr/bin/time not found)"
fi
