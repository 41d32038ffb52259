#!/bin/sh
# tests/cli/stats_plan.sh: `graft opt --stats` takes its kernels, fills,
# copies and bytes_moved from the launch plan (codegen/plan_counts.c) when
# the graph lowers: a split reduction counts as the kernels it really runs,
# bytes are each kernel's buffers once (views read their operand's buffer),
# and a graph with an op not lowered yet falls back to the op-class counts
# and says why, in the text and in the json. Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"

json_int() { sed -n "s/.*\"$1\":\([0-9-]*\).*/\1/p" "$2"; }

# A variance over 131072 elements per row: one region, whose second
# reduction depends on the first, so codegen splits it into two partial
# passes and a final one (codegen/emit_reduce.c): 3 kernels, where counting
# op classes says 1.
cat > "$t/var.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 131072}, {131072, 1}
m = reduce_mean[axes={1}](x)
mb = multibroadcast[out_lens={2, 131072}](m)
d = sub(x,mb)
sq = mul(d,d)
v = reduce_mean[axes={1}](sq)
@ret = @return(v)
G
if "$GRAFT" opt "$t/var.txt" -p default --stats json -o "$t/var.out" > "$t/j" 2> "$t/err" &&
   [ "$(grep -c '= fused(' "$t/var.out")" = 1 ] &&
   [ "$(json_int kernels "$t/j")" = 3 ] &&
   grep -q '"kernels_from":"plan"' "$t/j" && grep -q '"not_lowered":null' "$t/j"; then
    pass stats_plan_split_reduction
else fail stats_plan_split_reduction "$(head -c 300 "$t/err") kernels $(json_int kernels "$t/j")"; fi

# Bytes by hand (float, 4 bytes; x and y 32 elements = 128 bytes each).
# Before: add reads x through the transpose view and y, writes a (384);
# relu reads a, writes r (256): 640. After -p default both are one region
# reading x and y and writing r: 384.
cat > "$t/bytes.txt" <<'G'
module: "main"
x = @param:x -> float_type, {4, 8}, {8, 1}
y = @param:y -> float_type, {8, 4}, {4, 1}
t = transpose[permutation={1, 0}](x)
a = add(t,y)
r = relu(a)
@ret = @return(r)
G
if "$GRAFT" opt "$t/bytes.txt" -p default --stats json > "$t/j" 2> "$t/err" &&
   [ "$(json_int bytes_moved_before "$t/j")" = 640 ] &&
   [ "$(json_int bytes_moved "$t/j")" = 384 ] &&
   [ "$(json_int kernels_before "$t/j")" = 2 ] && [ "$(json_int kernels "$t/j")" = 1 ] &&
   grep -q '"kernels_from_before":"plan"' "$t/j"; then
    pass stats_plan_bytes
else fail stats_plan_bytes "$(head -c 300 "$t/err") $(grep -o '"kernels_before.*"copies":[0-9]*' "$t/j") moved $(json_int bytes_moved_before "$t/j") -> $(json_int bytes_moved "$t/j")"; fi

# The same graph in text: the kernels row says where its figures came from.
if "$GRAFT" opt "$t/bytes.txt" -p default --stats > "$t/out" 2> "$t/err" &&
   grep -q '^kernels  *2 -> 1 (fills 0, copies 0) (plan)$' "$t/out" &&
   grep -q '^bytes_moved  *640 .* -> 384 ' "$t/out"; then
    pass stats_plan_text
else fail stats_plan_text "$(grep -E '^(kernels|bytes_moved)' "$t/out" | tr '\n' ' ')"; fi

# An op codegen does not lower yet: the op-class counts, and the reason.
cat > "$t/scan.txt" <<'G'
module: "main"
x = @param:x -> float_type, {4, 8}, {8, 1}
s = nonzero(x)
r = neg(s)
@ret = @return(r)
G
if "$GRAFT" opt "$t/scan.txt" -p default --stats > "$t/out" 2> "$t/err" &&
   grep -q '^kernels  *[0-9]* -> [0-9]* (fills 0, copies 0) (op classes: .*not lowered yet: op nonzero' "$t/out" &&
   "$GRAFT" opt "$t/scan.txt" -p default --stats json > "$t/j" 2>> "$t/err" &&
   grep -q '"kernels_from":"op_classes"' "$t/j" &&
   grep -q '"not_lowered":"[^"]*not lowered yet: op nonzero' "$t/j" &&
   ! grep -q '"gemm_kernels"' "$t/j"; then
    pass stats_plan_fallback
else fail stats_plan_fallback "$(grep -E '^kernels' "$t/out") $(head -c 200 "$t/err")"; fi

# A dot's arithmetic: 2 x 4*8*16 multiply-adds = 1024 flops, in a kernel
# reading a (4x16) and b (16x8) and writing the 4x8 result: 4 * (64 + 128 + 32).
cat > "$t/dot.txt" <<'G'
module: "main"
a = @param:a -> float_type, {4, 16}, {16, 1}
b = @param:b -> float_type, {16, 8}, {8, 1}
d = dot(a,b)
@ret = @return(d)
G
if "$GRAFT" opt "$t/dot.txt" -p default --stats json > "$t/j" 2> "$t/err" &&
   [ "$(json_int gemm_kernels "$t/j")" = 1 ] && [ "$(json_int gemm_flops "$t/j")" = 1024 ] &&
   [ "$(json_int gemm_bytes_moved "$t/j")" = 896 ]; then
    pass stats_plan_gemm_flops
else fail stats_plan_gemm_flops "$(grep -o '"gemm_kernels.*' "$t/j") $(head -c 200 "$t/err")"; fi

# Above the size --stats lowers (200000 main-module instructions,
# CG_COUNTS_MAX_INSTRUCTIONS in codegen/codegen.h) the op classes count, and say so.
awk 'BEGIN { print "module: \"main\""; print "x = @param:x -> float_type, {4}, {1}"; p = "x"
  for (k = 0; k < 200001; k++) { printf "r%d = relu(%s)\n", k, p; p = "r" k }
  print "@ret = @return(" p ")" }' > "$t/big.txt"
if "$GRAFT" opt "$t/big.txt" -p fold --stats > "$t/out" 2> "$t/err" &&
   grep -q '^kernels  *200001 -> 200001 (fills 0, copies 0) (op classes: 200003 instructions, over the 200000 lowered for counting)$' "$t/out"; then
    pass stats_plan_size_limit
else fail stats_plan_size_limit "$(grep -E '^kernels' "$t/out") $(head -c 200 "$t/err")"; fi
