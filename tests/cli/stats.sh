#!/bin/sh
# tests/cli/stats.sh: the memory-traffic figures of `graft opt --stats`
# (bytes_moved, bytes_lower_bound; ops/kernel_traffic.c) on the shipped
# UNet block and transformer layer, whose lower bounds are worked out by
# hand below; the transformer layer's numbers under -p default (--verify);
# and `graft dot`: one cluster per region, dot text Graphviz accepts, an SVG,
# atomic output, clear failures. Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"
ex="$TOP/examples"

# json_int KEY FILE: the integer value of "KEY" in a --stats json line.
json_int() { sed -n "s/.*\"$1\":\([0-9-]*\).*/\1/p" "$2"; }

# UNet block, before any rewrite (float, 4 bytes): input 2*4*64*64*4 = 131072;
# weights 320*4*9*4 = 46080, 320*320*9*4 = 3686400, bias, scale and shift
# 3*1280, epsilon 4; output 2*320*64*64*4 = 10485760; the first convolution's
# output reaches the GroupNorm reductions, so it crosses: 2 * 10485760.
unet_bound=$((131072 + 46080 + 3686400 + 3 * 1280 + 4 + 10485760 + 2 * 10485760))
# Transformer layer: input 64*128*4 = 32768; weights: four 128x128 (65536
# each), 128x512 and 512x128 (262144 each), nine vectors of 128 (512 each),
# one of 512 (2048), three scalars; output 32768. Crossing, twice each: Q, K,
# V (32768 each, they reach the score dot), the scores (4*64*64*4 = 65536,
# they reach the softmax reductions), the attention output (32768, reaches
# the output projection), the output projection (32768, reaches LayerNorm 2)
# and the first feed-forward dot (64*512*4 = 131072, reaches the second).
tf_bound=$((32768 + 4 * 65536 + 2 * 262144 + 9 * 512 + 2048 + 12 + 32768 +
    2 * (3 * 32768 + 65536 + 32768 + 32768 + 131072)))

for g in unet_groupnorm:$unet_bound transformer_layer:$tf_bound; do
    name=${g%%:*} want=${g#*:}
    if "$GRAFT" opt "$ex/$name.txt" -p default --stats json > "$t/j" 2> "$t/err"; then
        lb=$(json_int bytes_lower_bound_before "$t/j")
        mb=$(json_int bytes_moved_before "$t/j")
        ma=$(json_int bytes_moved "$t/j")
        la=$(json_int bytes_lower_bound "$t/j")
        if [ "$lb" = "$want" ] && [ "$mb" -ge "$lb" ] && [ "$ma" -ge "$la" ] &&
           [ "$ma" -lt "$mb" ]; then
            pass "stats_bytes_$name"
        else
            fail "stats_bytes_$name" "lower bound $lb (want $want), moved $mb -> $ma, bound after $la"
        fi
    else
        fail "stats_bytes_$name" "$(head -c 300 "$t/err")"
    fi
done

# Fusion alone changes no weights: the bound must stay where it was.
if "$GRAFT" opt "$ex/transformer_layer.txt" -p fuse --stats json > "$t/j" 2>&1 &&
   [ "$(json_int bytes_lower_bound "$t/j")" = "$tf_bound" ] &&
   [ "$(json_int bytes_lower_bound_before "$t/j")" = "$tf_bound" ]; then
    pass stats_bound_unchanged_by_fusion
else
    fail stats_bound_unchanged_by_fusion "$(grep -o '"bytes_[a-z_]*":[0-9-]*' "$t/j" | tr '\n' ' ')"
fi

# The transformer layer's kernels: LayerNorm 1; Q, K, V with their biases;
# the scores with the scale and the softmax's max; the softmax's sums; the
# attention product, with exp(s - max) / sum as its prologue (the
# probabilities are never written: fuse.rules
# split_reduction_tail_into_contraction) and the heads stored side by side
# in standard layout (its contiguous as the epilogue, no copy kernel); the
# output projection with the residual and LayerNorm 2's sums; the two
# feed-forward products.
if "$GRAFT" opt "$ex/transformer_layer.txt" -p default --stats json > "$t/j" 2> "$t/err" &&
   [ "$(json_int kernels "$t/j")" = 10 ] && [ "$(json_int copies "$t/j")" = 0 ] &&
   [ "$(json_int fills "$t/j")" = 0 ]; then
    pass stats_transformer_kernels
else
    fail stats_transformer_kernels "$(grep -o '"kernels":[0-9]*\|"copies":[0-9]*\|"fills":[0-9]*' "$t/j" "$t/err" | tr '\n' ' ')"
fi

# Issue 8's target: bytes_moved / bytes_lower_bound <= 1.2 after -p default
# on the transformer layer (1.170: 1847824 / 1579532; 1.209 with the
# probabilities written by the softmax's kernel and read by the dot's), in
# every visiting order (1.336 in order 1 when the GELU became the second
# feed-forward dot's prologue before joining the first one's epilogue).
bad=""
for seed in 0 1 2 3 4 5; do
    if "$GRAFT" opt "$ex/transformer_layer.txt" -p default --seed-order $seed --stats json > "$t/j" 2> "$t/err"; then
        ma=$(json_int bytes_moved "$t/j") la=$(json_int bytes_lower_bound "$t/j")
        if [ -z "$ma" ] || [ -z "$la" ] || [ $((ma * 10)) -gt $((la * 12)) ] || [ "$ma" != 1847824 ]; then
            bad="$bad order $seed: moved $ma, bound $la;"
        fi
    else
        bad="$bad order $seed: $(head -c 200 "$t/err");"
    fi
done
if [ -z "$bad" ]; then pass stats_transformer_traffic_ratio
else fail stats_transformer_traffic_ratio "want moved 1847824 (ratio <= 1.2):$bad"; fi

# The text table has both rows and the ratio.
expect stats_bytes_text 0 "$GRAFT" opt "$ex/unet_groupnorm.txt" -p default --stats &&
    if grep -Eq "^bytes_moved +[0-9]+ \([0-9.]+ MiB\) -> [0-9]+ " "$t/out" &&
       grep -Eq "^bytes_lower_bound +$unet_bound " "$t/out" &&
       grep -Eq "^moved / lower bound +[0-9]+\.[0-9]+$" "$t/out"; then
        pass stats_bytes_text_rows
    else fail stats_bytes_text_rows "$(grep bytes "$t/out" | tr '\n' ' ')"; fi

# The transformer layer computes the same numbers after -p default.
if "$GRAFT" opt "$ex/transformer_layer.txt" -p default --verify > "$t/out" 2> "$t/err" &&
   grep -q "^verify output0: max abs error" "$t/err" "$t/out"; then
    pass transformer_layer_verify
else
    fail transformer_layer_verify "$(cat "$t/err" "$t/out" | grep -v '^module' | head -c 300)"
fi
# Golden: the reference executor gives the same bits on every CPU, so the
# layer's output on seed-1 inputs has one checksum (--verify above compares
# the optimised graph against these numbers).
if "$GRAFT" run "$ex/transformer_layer.txt" --seed 1 > "$t/out" 2> "$t/err" &&
   [ "$(checksum output0)" = dcb436d668f9b8f9 ]; then
    pass transformer_layer_golden
else
    fail transformer_layer_golden "checksum $(checksum output0), expected dcb436d668f9b8f9"
fi

# ---- graft dot ----
# regions FILE: how many fused regions the main module of a dump has.
regions() { sed '/^$/q' "$1" | grep -c ' = fused('; }

for g in unet_groupnorm transformer_layer; do
    "$GRAFT" opt "$ex/$g.txt" -p default -o "$t/$g.txt" > /dev/null 2>&1
    want=$(regions "$t/$g.txt")
    if "$GRAFT" dot "$ex/$g.txt" -p default -o "$t/$g.dot" 2> "$t/err"; then
        got=$(grep -c '^  subgraph cluster_' "$t/$g.dot")
        # every cluster holds at least one drawn op
        empty=$(awk '/^  subgraph cluster_/ {n = 0; open = 1; next}
                     open && /^    n[0-9]+ \[/ {n++}
                     open && /^  }/ {if (n == 0) e++; open = 0}
                     END {print e + 0}' "$t/$g.dot")
        if [ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$empty" = 0 ]; then
            pass "dot_clusters_$g"
        else fail "dot_clusters_$g" "$got clusters ($empty empty) for $want regions"; fi
        if dot -Tsvg "$t/$g.dot" -o "$t/$g.check.svg" 2> "$t/err" && grep -q '<svg' "$t/$g.check.svg"; then
            pass "dot_text_accepted_$g"
        else fail "dot_text_accepted_$g" "$(head -c 300 "$t/err")"; fi
    else
        fail "dot_clusters_$g" "$(head -c 300 "$t/err")"
    fi
done

# Without -p the graph is drawn as given: no regions, no clusters.
"$GRAFT" dot "$ex/unet_groupnorm.txt" -o "$t/raw.dot" 2> "$t/err"
if [ -s "$t/raw.dot" ] && ! grep -q cluster_ "$t/raw.dot" &&
   [ "$(grep -c '^  n[0-9]* \[' "$t/raw.dot")" -ge 24 ]; then pass dot_no_pipeline; else
    fail dot_no_pipeline "$(head -c 300 "$t/err")"; fi

# An SVG straight from graft dot, one <g class="cluster"> per region.
if "$GRAFT" dot "$ex/unet_groupnorm.txt" -p default -o "$t/u.svg" 2> "$t/err" &&
   [ "$(grep -c 'class="cluster"' "$t/u.svg")" = "$(regions "$t/unet_groupnorm.txt")" ]; then
    pass dot_svg
else fail dot_svg "$(head -c 300 "$t/err")"; fi

# A bad graph leaves an existing OUT alone; a bad OUT name is a usage error;
# without Graphviz the failure says what to install and writes nothing.
printf 'module: "main"\nx = @param:x -> float_type, {2}, {1}\n@1 = relu(y)\n' > "$t/bad.txt"
echo keep > "$t/keep.svg"
expect dot_bad_graph 1 "$GRAFT" dot "$t/bad.txt" -o "$t/keep.svg" &&
    if [ "$(cat "$t/keep.svg")" = keep ]; then pass dot_bad_graph_keeps_out; else
        fail dot_bad_graph_keeps_out "OUT was overwritten"; fi
expect dot_bad_extension 2 "$GRAFT" dot "$ex/softmax.txt" -o "$t/x.png"
expect dot_needs_output 2 "$GRAFT" dot "$ex/softmax.txt"
if PATH=/nonexistent "$GRAFT" dot "$ex/softmax.txt" -o "$t/none.svg" > "$t/out" 2> "$t/err"; then
    fail dot_without_graphviz "exit 0"
elif grep -q graphviz "$t/err" && [ ! -e "$t/none.svg" ]; then pass dot_without_graphviz; else
    fail dot_without_graphviz "$(head -c 300 "$t/err")"; fi
