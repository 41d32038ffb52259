#!/bin/sh
# tests/cli/fuse.sh: -p fuse (rules/fuse.rules) on the shipped examples:
# kernel counts before and after, no recomputation (recomputed_flops 0),
# exact numbers (--verify), the same count in shuffled visiting orders, and
# --trace naming the growing rules. Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"
tmp=$t
ex="$TOP/examples"

# check NAME GRAPH "KERNELS LINE" RECOMPUTED EXACT: -p fuse gives exactly
# that kernels line and recomputed_flops, and --verify passes; EXACT=exact
# also wants bit-equal numbers (the variance rewrite of prefuse.rules, which
# the UNet block takes, rounds differently).
check() {
    if "$GRAFT" opt "$2" -p fuse --stats --verify > "$tmp/out" 2> "$tmp/err" &&
       grep -q "^kernels  *$3 (fills 0, copies 0) (plan)$" "$tmp/out" &&
       grep -q "^recomputed_flops  *$4 " "$tmp/out" &&
       { [ "$5" != exact ] || ! grep -q "max abs error [^0]" "$tmp/err"; }; then
        pass "$1"
    else
        fail "$1" "$(grep -E '^kernels|^recomputed|verify' "$tmp/out" "$tmp/err" | tr '\n' ' ')"
    fi
}
# UNet: seed 000's two kernels (convolution, bias and the GroupNorm sums;
# GroupNorm apply and SiLU as the second convolution's prologue, the
# per-group rsqrt recomputed there: 192 element ops).
check fuse_unet "$ex/unet_groupnorm.txt" "16 -> 2" 192 approx
check fuse_layernorm "$ex/layernorm.txt" "9 -> 1" 0 exact
check fuse_softmax "$ex/softmax.txt" "5 -> 1" 0 exact

# After -p reshape (the GroupNorm ops in the common dims) the same.
if "$GRAFT" opt "$ex/unet_groupnorm.txt" -p reshape -o "$tmp/unet_r.txt" > /dev/null 2>&1; then
    check fuse_unet_after_reshape "$tmp/unet_r.txt" "14 -> 2" 192 approx
else fail fuse_unet_after_reshape "-p reshape failed"; fi

# Every visiting order reaches the same count.
bad=
for s in 1 2 3 4 5 6; do
    for g in unet_groupnorm layernorm softmax; do
        "$GRAFT" opt "$ex/$g.txt" -p fuse --seed-order $s --stats json > "$tmp/j" 2>&1
        k=$(sed -n 's/.*"kernels":\([0-9]*\).*/\1/p' "$tmp/j")
        case $g in unet_groupnorm) want=2 ;; layernorm) want=1 ;; softmax) want=1 ;; esac
        [ "$k" = "$want" ] || bad="$bad $g/$s:$k"
    done
done
if [ -z "$bad" ]; then pass fuse_any_order; else fail fuse_any_order "$bad"; fi

# --trace shows each growing step with its rule and location.
if "$GRAFT" opt "$ex/layernorm.txt" -p fuse --trace > /dev/null 2> "$tmp/trace" &&
   grep -q "^fire fuse_.* (rules/fuse.rules:[0-9]*) \[fuse\]" "$tmp/trace"; then
    pass fuse_trace
else fail fuse_trace "$(head -3 "$tmp/trace")"; fi

# A reduction over more than 64k elements per output (here 131072) stays one
# reduce op in the convolution's region: one kernel, no fill (seed 000's
# split reduction needed a hip::fill), the epilogue value and the sums both
# outputs of it.
cat > "$tmp/long.txt" <<'G'
module: "main"
x = @param:x -> float_type, {1, 4, 512, 256}, {524288, 131072, 256, 1}
w = @param:w -> float_type, {2, 4, 1, 1}, {4, 1, 1, 1}
b = @param:b -> float_type, {2}, {1}
@1 = convolution(x,w)
@2 = broadcast[axis=1,out_lens={1, 2, 512, 256}](b)
@3 = add(@1,@2)
@4 = relu(@3)
@5 = reduce_sum[axes={2, 3}](@4)
@6 = @return(@4,@5)
G
if "$GRAFT" opt "$tmp/long.txt" -p default --stats --verify -o "$tmp/long.out" > "$tmp/out" 2> "$tmp/err" &&
   grep -q "^kernels  *[0-9]* -> 1 (fills 0, copies 0) (plan)$" "$tmp/out" &&
   [ "$(grep -c '= reduce_sum' "$tmp/long.out")" = 1 ]; then
    pass fuse_long_reduction
else fail fuse_long_reduction "$(grep -E '^kernels' "$tmp/out") $(head -2 "$tmp/err")"; fi

# Every LayerNorm, softmax and logsoftmax expanded ONNX node test is one
# region (one kernel) under -p default, in program order and a shuffled one
# (onnx_node.sh checks their values).
node=/usr/share/libonnx-testdata/data/node
if [ -d "$node" ]; then
    bad= n=0
    for d in "$node"/test_layer_normalization_*_expanded "$node"/test_softmax_*_expanded \
             "$node"/test_logsoftmax_*_expanded; do
        for s in 0 3; do
            "$GRAFT" opt "$d/model.onnx" -p default --seed-order $s --stats json -o "$tmp/n.txt" \
                > "$tmp/n.json" 2> /dev/null
            k=$(sed -n 's/.*"kernels":\([0-9]*\).*/\1/p' "$tmp/n.json")
            [ "$k" = 1 ] && [ "$(grep -c '= fused(' "$tmp/n.txt")" = 1 ] || bad="$bad $(basename "$d")/$s:$k"
        done
        n=$((n + 1))
    done
    if [ -z "$bad" ] && [ $n -ge 30 ]; then pass "fuse_onnx_norm_softmax_one_region ($n tests)"
    else fail fuse_onnx_norm_softmax_one_region "$n tests;$bad"; fi
else fail fuse_onnx_norm_softmax_one_region "$node is missing (apt-get install libonnx-testdata)"; fi
