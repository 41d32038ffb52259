#!/bin/sh
# tests/cli/fuse_confluence.sh: -p default gives the same kernels, bytes
# moved and instruction count in every visiting order (--seed-order), on
# graphs where fusion used to depend on it:
#   - a pointwise region after a convolution (a batch norm's, then the bias
#     add and relu) joined the next convolution's prologue in the orders
#     that reached that convolution first, the first one's epilogue in the
#     others (one_kernel now waits for the epilogue: may_join_epilogue in
#     dsl/helpers_fuse.c; rules/fuse.rules above fuse_prologue_into_contraction);
#   - prefuse.rules' variance rewrite fired before or after reshape.rules
#     moved GroupNorm's mean into the common dims (prefuse now runs as a
#     phase of its own after the normalising sets: dsl/pipeline.c);
#   - a reduction region's tail read by a contraction through a reshape
#     (split_reshaped_reduction_tail_into_contraction*).
# Each case runs in 4 orders, some of which gave different figures before.
# inception_v2 and densenet121 (../shared/models/onnx-light, the directory
# tests/cli/onnx_models.sh reads) are checked when they are there, skipped
# silently when not. Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"
tmp=$t

# figures GRAPH ORDER: "kernels bytes_moved instructions_after" of
# -p default in that visiting order ("error" if graft failed).
figures() {
    if "$GRAFT" opt "$1" -p default --seed-order "$2" --stats json -o /dev/null > "$tmp/s.json" 2> "$tmp/s.err"; then
        for key in kernels bytes_moved instructions_after; do
            sed -n "s/.*\"$key\":\([0-9]*\).*/\1/p" "$tmp/s.json"
        done | tr '\n' ' '
    else
        echo error
    fi
}

# same_in_orders NAME GRAPH ORDER... [= EXPECTED]: the figures agree in
# every order (and are EXPECTED, "kernels bytes_moved", when given).
same_in_orders() {
    name=$1 graph=$2
    shift 2
    first= bad= want=
    while [ $# -gt 0 ]; do
        if [ "$1" = "=" ]; then want=$2; break; fi
        f=$(figures "$graph" "$1")
        [ -z "$first" ] && first=$f
        [ "$f" = "$first" ] || bad="$bad order $1: $f;"
        shift
    done
    if [ -n "$want" ] && [ "$(echo "$first" | cut -d' ' -f1-2)" != "$want" ]; then
        bad="$bad order-0 figures $first, want $want (kernels bytes_moved);"
    fi
    if [ -z "$bad" ] && [ "$first" != error ]; then pass "$name"; else fail "$name" "first order: $first;$bad"; fi
}

# A convolution, a batch norm (sub, mul, add, mul), the bias add and relu,
# and a 3x3 convolution: the bias add and relu join the first convolution's
# epilogue (5584 bytes moved; orders 9, 24 and 30 moved 5600 or 5616).
cat > "$tmp/epilogue.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {1, 4, 8, 8}, {256, 64, 8, 1}
w1 = @param:w1 -> float_type, {4, 4, 1, 1}, {4, 1, 1, 1}
w2 = @param:w2 -> float_type, {6, 4, 3, 3}, {36, 9, 3, 1}
m = @param:m -> float_type, {4, 1, 1}, {1, 1, 1}
s = @param:s -> float_type, {4, 1, 1}, {1, 1, 1}
b = @param:b -> float_type, {4, 1, 1}, {1, 1, 1}
@1 = convolution(x,w1)
@2 = multibroadcast[out_lens={1, 4, 8, 8}](m)
@3 = sub(@1,@2)
@4 = multibroadcast[out_lens={1, 4, 8, 8}](s)
@5 = mul(@3,@4)
@6 = add(@5,@2)
@7 = mul(@6,@4)
@8 = multibroadcast[out_lens={1, 4, 8, 8}](b)
@9 = add(@7,@8)
@10 = relu(@9)
@11 = convolution[padding={1, 1, 1, 1}](@10,w2)
@12 = @return(@11)
EOF
same_in_orders fuse_confluence_epilogue_before_prologue "$tmp/epilogue.txt" 0 9 24 30 = "2 5584"

# A convolution with bias, GroupNorm over 2 groups (batch 2), scale, SiLU
# and a convolution: two kernels in every order (orders 1, 5 and 7 gave 3:
# the variance rewrite had fired before the mean reached the common dims).
cat > "$tmp/groupnorm.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 2, 4, 4}, {32, 16, 4, 1}
w1 = @param:w1 -> float_type, {8, 2, 1, 1}, {2, 1, 1, 1}
w2 = @param:w2 -> float_type, {4, 8, 3, 3}, {72, 9, 3, 1}
b = @param:b -> float_type, {8}, {1}
g = @param:g -> float_type, {8, 1, 1}, {1, 1, 1}
e = @literal{0.0001} -> float_type, {1}, {0}
@1 = convolution(x,w1)
@2 = broadcast[axis=1,out_lens={2, 8, 4, 4}](b)
@3 = add(@1,@2)
@4 = reshape[dims={0, 2, -1}](@3)
@5 = reduce_mean[axes={2}](@4)
@6 = multibroadcast[out_lens={2, 2, 64}](@5)
@7 = sqdiff(@4,@6)
@8 = reduce_mean[axes={2}](@7)
@9 = sub(@4,@6)
@10 = multibroadcast[out_lens={2, 2, 1}](e)
@11 = add(@8,@10)
@12 = rsqrt(@11)
@13 = multibroadcast[out_lens={2, 2, 64}](@12)
@14 = mul(@9,@13)
@15 = reshape[dims={2, 8, 4, 4}](@14)
@16 = multibroadcast[out_lens={2, 8, 4, 4}](g)
@17 = mul(@15,@16)
@18 = sigmoid(@17)
@19 = mul(@17,@18)
@20 = convolution[padding={1, 1, 1, 1}](@19,w2)
@21 = @return(@20)
EOF
same_in_orders fuse_confluence_groupnorm "$tmp/groupnorm.txt" 0 1 5 7 = "2 4164"

# The same GroupNorm at batch 1: two kernels as at batch 2. Its normal form
# used to leave the mean and the variance over two reshapes, the mean's
# reduction in {2, 1, 1, 1} or {1, 2, 1, 1, 1} by order (4 kernels, 3756
# bytes; before that orders 6 and 10 moved 4244 bytes, order 1 2748 with the
# variance rewrite fired early); a reduction a multibroadcast reads now keeps
# the leading 1s up to the broadcast's rank (multibroadcast_of_reduce_of_reshape,
# multibroadcast_of_unit_reshape over a reduction).
sed -e 's/{2, 2, 4, 4}, {32/{1, 2, 4, 4}, {32/; s/{2, 8, 4, 4}/{1, 8, 4, 4}/g; s/{2, 2, 64}/{1, 2, 64}/g; s/{2, 2, 1}/{1, 2, 1}/g' \
    "$tmp/groupnorm.txt" > "$tmp/groupnorm1.txt"
same_in_orders fuse_confluence_groupnorm_batch1 "$tmp/groupnorm1.txt" 0 1 6 10 = "2 2724"

# examples/unet_groupnorm_batch1.txt, the flagship block at batch 1: 4
# kernels in most orders, 2 in some (the mean ran in {32, 10, 64, 64} beside
# a variance in {1, 32, 10, 64, 64}, and the bias add stayed out of the
# statistics kernel); now the 2 kernels of batch 2 in every order.
same_in_orders fuse_confluence_unet_groupnorm_batch1 "$TOP/examples/unet_groupnorm_batch1.txt" 0 7919 23757 15838 1 2 3 = "2 19531012"

# The ONNX models whose partitions depended on the order.
models="$TOP/../shared/models/onnx-light"
if [ -d "$models" ]; then
    for name in inception_v2 densenet121; do
        [ -f "$models/$name/model.onnx" ] || continue
        same_in_orders "fuse_confluence_$name" "$models/$name/model.onnx" 0 7919 23757 15838
    done
fi
