#!/bin/sh
# tests/cli/pipelines.sh: what the shipped pipelines must achieve on the
# examples and the ONNX models (issue 3, "Done when"). Each check is
# structural (a grep on the optimised dump or its --stats json) and numeric
# (`graft opt --verify` and `graft run --compare` on the reference executor).
# Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"
tmp=$t
ex="$TOP/examples"

# opt NAME GRAPH PIPELINE: optimises GRAPH into $tmp/NAME.txt with --verify
# (and --stats json into $tmp/NAME.json); then checks with `graft run
# --compare`. Returns 1 after printing the failure.
opt() {
    if ! "$GRAFT" opt "$2" -p "$3" --verify --stats json -o "$tmp/$1.txt" > "$tmp/$1.json" 2> "$tmp/$1.err"; then
        fail "$1" "graft opt -p $3 --verify failed: $(head -3 "$tmp/$1.err" | tr '\n' ' ')"
        return 1
    fi
    if grep -q "did not converge" "$tmp/$1.err" || ! grep -q '"converged":true' "$tmp/$1.json"; then
        fail "$1" "the driver did not converge: $(head -2 "$tmp/$1.err")"
        return 1
    fi
    if ! "$GRAFT" run "$2" --compare "$tmp/$1.txt" > "$tmp/$1.run" 2>&1; then
        fail "$1" "graft run --compare failed: $(tail -2 "$tmp/$1.run" | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# json_int FILE KEY: an integer member of the --stats json object.
json_int() { sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1"; }

# ---- every pipeline runs, converges and keeps the values on every example ----
for p in fold pad reshape normalize default; do
    for g in "$ex"/*.txt; do
        n=$(basename "$g" .txt)
        opt "pipeline_${p}_$n" "$g" "$p" && pass "pipeline_${p}_$n"
    done
done

# ---- seed 001: no transpose left; the dot writes transposed strides for relu ----
if opt seed001 "$ex/seed001_dot_transpose_relu.txt" default; then
    out="$tmp/seed001.txt"
    # (fusion puts the relu in the dot's kernel: both in one region body)
    dot=$(sed -n 's/^\([^ ]*\) = dot\[output_permutation={1, 0}\]([^)]*) -> half_type, {3, 4}, {1, 3}$/\1/p' "$out")
    if grep -q transpose "$out"; then
        fail seed001_no_transpose "a transpose is left: $(grep transpose "$out")"
    elif [ -z "$dot" ]; then
        fail seed001_no_transpose "no dot[output_permutation={1, 0}] with shape {3, 4}, {1, 3}"
    elif ! grep -qF "= relu($dot) -> half_type, {3, 4}, {1, 3}" "$out"; then
        fail seed001_no_transpose "relu does not read the permuted dot $dot directly"
    else
        pass seed001_no_transpose
    fi
fi

# In any visiting order (relu may move above the transpose first; then
# transpose_into_dot_through_unary still puts it into the dot).
bad=""
for seed in 1 2 3 4 5 6 7 8; do
    "$GRAFT" opt "$ex/seed001_dot_transpose_relu.txt" -p default --seed-order $seed --verify \
        -o "$tmp/s1.txt" > /dev/null 2>&1 || bad="$bad $seed(verify)"
    grep -q transpose "$tmp/s1.txt" && bad="$bad $seed"
    grep -q 'dot\[output_permutation={1, 0}\]' "$tmp/s1.txt" || bad="$bad $seed(dot)"
done
if [ -z "$bad" ]; then pass seed001_any_order; else fail seed001_any_order "orders:$bad"; fi

# ---- issue 7: eight seed-001 links in a chain keep no transpose ----
# dot -> transpose -> relu -> transpose -> dot ... (examples/
# chain8_dot_transpose_relu.txt): in program order and nine shuffled orders,
# no transpose and no output_permutation is left (the provable minimum: every
# link's two transposes cancel), the eight dot -> relu pairs stay, and the
# values do not change.
bad=""
for seed in 0 1 2 3 4 5 6 7 8 9; do
    if ! "$GRAFT" opt "$ex/chain8_dot_transpose_relu.txt" -p default --seed-order $seed --verify \
        -o "$tmp/c8.txt" > /dev/null 2>&1; then
        bad="$bad $seed(verify)"
        continue
    fi
    grep -q transpose "$tmp/c8.txt" && bad="$bad $seed(transpose)"
    grep -q output_permutation "$tmp/c8.txt" && bad="$bad $seed(output_permutation)"
    [ "$(grep -c '= dot(' "$tmp/c8.txt")" = 8 ] && [ "$(grep -c '= relu(' "$tmp/c8.txt")" = 8 ] ||
        bad="$bad $seed(ops)"
done
if [ -z "$bad" ]; then pass chain8_no_transpose_any_order; else fail chain8_no_transpose_any_order "orders:$bad"; fi

# ---- seed 002: the foldable pads fold, with the right padding ----
if opt seed002 "$ex/seed002_pad_conv.txt" default; then
    out="$tmp/seed002.txt"
    # output0 and output1: convolutions of x and of leaky_relu(x) with padding 1
    # each side; the leaky_relu is the second convolution's prologue, in one
    # region that reads x (fuse.rules fuse_pointwise_prologue_into_contraction)
    lrbody=$(sed -n 's/^@[0-9]* = fused(x,@2), \[\(main:fused[0-9]*\)\] -> float_type, {1, 64, 56, 56}.*/\1/p' "$out")
    lr=$(sed -n "s/^\($lrbody:@[0-9]*\) = leaky_relu\[alpha=0.1\](x0) -> float_type, {1, 64, 56, 56}.*/\1/p" "$out")
    if ! grep -q "= convolution\[padding={1, 1, 1, 1},.*\](x,@1) -> float_type, {1, 64, 56, 56}" "$out"; then
        fail seed002_pad_folds "output0's convolution does not read x with padding {1, 1, 1, 1}"
    elif [ -z "$lrbody" ] || [ -z "$lr" ] ||
         ! grep -q "^$lrbody:@[0-9]* = convolution\[padding={1, 1, 1, 1},.*\]($lr,x1) -> float_type, {1, 64, 56, 56}" "$out"; then
        fail seed002_pad_folds "output1's convolution does not read leaky_relu(x) with padding {1, 1, 1, 1}"
    else
        pass seed002_pad_folds
    fi
    # output2: value 1, then a channel pad: neither may fold into the
    # convolution's padding; both become read predicates in the
    # convolution's kernel (fuse.rules pad_into_contraction), which reads x
    body=$(sed -n 's/^\(@[0-9]*\) = fused(x,@3), \[\(main:fused[0-9]*\)\] -> float_type, {1, 64, 56, 56}.*/\2/p' "$out")
    if [ "$(grep -c '= pad\[' "$out")" -eq 2 ] && [ -n "$body" ] &&
       grep -q "^$body:@[0-9]* = pad\[mode=0,pads={0, 0, 1, 1, 0, 0, 1, 1},value=1\](x0)" "$out" &&
       grep -q "^$body:@[0-9]* = pad\[mode=0,pads={0, 4, 0, 0, 0, 4, 0, 0},value=0\](" "$out" &&
       grep -q "^$body:@[0-9]* = convolution\[padding={0, 0, 0, 0},.*\](.*) -> float_type, {1, 64, 56, 56}" "$out"; then
        pass seed002_unfoldable_pads_stay
    else
        fail seed002_unfoldable_pads_stay "expected the value-1 pad and the channel pad, unfolded, in the convolution's region: $(grep '= pad\[\|= fused' "$out" | tr '\n' ' ')"
    fi
    f=$(json_int "$tmp/seed002.json" fills)
    c=$(json_int "$tmp/seed002.json" copies)
    if [ "$f" = 0 ] && [ "$c" = 0 ]; then pass seed002_fills_copies
    else fail seed002_fills_copies "fills $f (want 0: the pads that must not fold are read predicates), copies $c (want 0)"; fi
fi
# Seed 002 without its unfoldable chain: everything folds, no fill, no copy.
grep -v '^@9 \|^@10 \|^@11 \|^@3 \|^@12 ' "$ex/seed002_pad_conv.txt" > "$tmp/foldable.txt"
echo '@12 = @return(@5,@8)' >> "$tmp/foldable.txt"
if opt seed002_foldable "$tmp/foldable.txt" default; then
    f=$(json_int "$tmp/seed002_foldable.json" fills)
    c=$(json_int "$tmp/seed002_foldable.json" copies)
    if grep -q '= pad\[' "$tmp/seed002_foldable.txt"; then
        fail seed002_foldable_no_fill "a pad is left: $(grep '= pad\[' "$tmp/seed002_foldable.txt")"
    elif [ "$f" = 0 ] && [ "$c" = 0 ]; then pass seed002_foldable_no_fill
    else fail seed002_foldable_no_fill "fills $f, copies $c (want 0 and 0)"; fi
fi
# -p fold alone folds no pad (pads are pad.rules' business).
if opt seed002_fold_only "$ex/seed002_pad_conv.txt" fold; then
    if [ "$(grep -c '= pad\[' "$tmp/seed002_fold_only.txt")" -ge 3 ]; then pass seed002_fold_keeps_pads
    else fail seed002_fold_keeps_pads "-p fold removed pads"; fi
fi

# ---- unet_groupnorm: the GroupNorm pointwise ops meet in the common dims ----
# Under -p normalize (phase 1 of -p default; rules/reshape.rules, "through
# the common dims") the
# normalisation moves into {2, 32, 10, 64, 64}, the common dims of
# {2, 32, 40960} and {2, 320, 64, 64}. unet_structure asserts, on the
# optimised dump:
#  - the only ops are convolution, reshape, multibroadcast, broadcast, add,
#    sub, mul, sqdiff, rsqrt, sigmoid, reduce_mean (no contiguous, no
#    transpose), and `copies` is 0;
#  - exactly two reshapes: one reading the first convolution, one that is the
#    second convolution's input;
#  - every pointwise op and every reduction has lens {2, 32, 10, 64, 64} or
#    {2, 32, 1, 1, 1}: all of them run in the common dims (the bias add too);
#  - every multibroadcast or broadcast reads a @literal or a per-group value
#    ({2, 32, 1, 1, 1}: a reduction or a pointwise op on reductions);
#  - the chain is adjacent: the second convolution reads reshape(mul(a,
#    sigmoid(a))), a = add(mul(mul(sub(x, broadcast(reduce_mean)),
#    broadcast(rsqrt(...))), broadcast), broadcast), each op reading the one
#    before it directly.
cat > "$tmp/unet.awk" <<'AWK'
# Checks the GroupNorm tail of examples/unet_groupnorm.txt after -p normalize
# (tests/cli/pipelines.sh). Prints nothing when it holds, else one reason.
function fail(why) { if (!bad) print why; bad = 1 }
/^[^ ]+ = / {
    name = $1
    rest = substr($0, length(name) + 4)
    match(rest, /^[@A-Za-z0-9_]+/); o = substr(rest, 1, RLENGTH)
    op[name] = o
    a = rest; sub(/^[^(]*\(/, "", a); sub(/\) -> .*/, "", a)
    if (rest !~ /^[^(]*\(/) a = ""
    args[name] = a
    l = rest; sub(/.* -> [a-z_0-9]+, \{/, "", l); sub(/\}.*/, "", l)
    lens[name] = l
    order[++n] = name
}
END {
    allowed = " reshape multibroadcast broadcast add sub mul sqdiff rsqrt sigmoid reduce_mean convolution @literal @param @return "
    for (k = 1; k <= n; k++) {
        i = order[k]
        if (index(allowed, " " op[i] " ") == 0) fail("unexpected op " op[i] " (" i ")")
        if (op[i] == "convolution") conv[++nconv] = i
    }
    if (nconv != 2) { fail("want 2 convolutions, got " nconv); exit }
    split(args[conv[2]], c2, ",")
    for (k = 1; k <= n; k++) {
        i = order[k]; o = op[i]
        if (o == "reshape") {
            nres++
            if (args[i] != conv[1] && i != c2[1]) fail("reshape " i " is not at a boundary (reads " args[i] ")")
        } else if (o ~ /^(add|sub|mul|sqdiff|rsqrt|sigmoid|reduce_mean)$/) {
            if (lens[i] != "2, 32, 10, 64, 64" && lens[i] != "2, 32, 1, 1, 1")
                fail(o " " i " is not in the common dims {2, 32, 10, 64, 64}: {" lens[i] "}")
        } else if (o == "multibroadcast" || o == "broadcast") {
            src = args[i]
            if (op[src] != "@literal" && lens[src] != "2, 32, 1, 1, 1")
                fail(o " " i " reads " src " (" op[src] "), neither a literal nor a per-group value")
        }
    }
    if (nres != 2) fail("want 2 reshapes (after the first convolution, before the second), got " nres)
    # The chain, each op reading the previous one directly.
    r = c2[1]; m = args[r]
    if (op[r] != "reshape" || op[m] != "mul") { fail("the second convolution does not read reshape(mul)"); exit }
    split(args[m], mm, ","); ad = mm[1]; sg = mm[2]
    if (op[ad] != "add" || op[sg] != "sigmoid" || args[sg] != ad) { fail("no mul(x, sigmoid(x)) with x an add"); exit }
    split(args[ad], aa, ","); sc = aa[1]
    if (op[sc] != "mul" || op[aa[2]] != "multibroadcast") { fail("the shift add does not read mul(...) and a broadcast"); exit }
    split(args[sc], ss, ","); nm = ss[1]
    if (op[nm] != "mul" || op[ss[2]] != "multibroadcast") { fail("the scale mul does not read mul(...) and a broadcast"); exit }
    split(args[nm], nn, ","); sb = nn[1]
    if (op[sb] != "sub" || op[nn[2]] != "multibroadcast") { fail("the normalising mul does not read sub(...) and a broadcast"); exit }
    split(args[nn[2]], rs, ",")
    if (op[rs[1]] != "rsqrt") fail("the normalising mul's broadcast does not read rsqrt")
    split(args[sb], su, ",")
    if (op[su[2]] != "multibroadcast" || op[args[su[2]]] != "reduce_mean") fail("sub does not subtract a broadcast mean")
}
AWK
if opt unet "$ex/unet_groupnorm.txt" normalize; then
    out="$tmp/unet.txt"
    c=$(json_int "$tmp/unet.json" copies)
    why=$(awk -f "$tmp/unet.awk" "$out")
    if [ "$c" != 0 ]; then
        fail unet_structure "copies $c (want 0)"
    elif [ -n "$why" ]; then
        fail unet_structure "$why"
    else
        pass unet_structure
    fi
    # The same check refuses the graph as written (contiguous, 3-d and 4-d
    # pointwise ops on both sides of the reshape): it can fail.
    if [ -n "$(awk -f "$tmp/unet.awk" "$ex/unet_groupnorm.txt")" ]; then pass unet_structure_refuses_original
    else fail unet_structure_refuses_original "the check accepts the unoptimised graph"; fi
fi
# In any visiting order the result is the same.
bad=""
for seed in 1 2 3 4 5; do
    "$GRAFT" opt "$ex/unet_groupnorm.txt" -p normalize --seed-order $seed --verify \
        -o "$tmp/u1.txt" > /dev/null 2>&1 || bad="$bad $seed(verify)"
    [ -n "$(awk -f "$tmp/unet.awk" "$tmp/u1.txt")" ] && bad="$bad $seed"
done
if [ -z "$bad" ]; then pass unet_any_order; else fail unet_any_order "orders:$bad"; fi

# ---- unet_groupnorm under -p default: normalised, then fused (phase 3) ----
# 16 kernels -> 2, no fill, no copy (seed 000's target): the first
# convolution with its bias and the GroupNorm sums (mean of x and of x*x,
# prefuse.rules' variance rewrite) as extra outputs; then the variance,
# rsqrt, normalise, scale, shift and SiLU as the prologue of the second
# convolution, the per-group rsqrt recomputed there (recomputed_flops > 0).
# --verify agrees within its tolerance (the variance rewrite rounds
# differently); the same count in every visiting order.
if opt unet_default "$ex/unet_groupnorm.txt" default; then
    k=$(json_int "$tmp/unet_default.json" kernels)
    fi_=$(json_int "$tmp/unet_default.json" fills)
    co=$(json_int "$tmp/unet_default.json" copies)
    r=$(json_int "$tmp/unet_default.json" recomputed_flops)
    ph=$(json_int "$tmp/unet_default.json" phases)
    nf=$(grep -c '= fused(' "$tmp/unet_default.txt")
    body1=$(awk '/^module: "main:fused/ { m = $2 } m && /= convolution/ { c[m]++ } m && /= reduce_mean/ { r[m]++ }
                 END { for (k in c) if (r[k] == 2) print k }' "$tmp/unet_default.txt")
    body2=$(awk '/^module: "main:fused/ { m = $2 } m && /= convolution/ { c[m]++ } m && /= sigmoid/ { s[m]++ }
                 END { for (k in c) if (s[k] == 1) print k }' "$tmp/unet_default.txt")
    if [ "$k" = 2 ] && [ "$fi_" = 0 ] && [ "$co" = 0 ] && [ "${r:-0}" -gt 0 ] && [ "$ph" = 4 ] &&
       [ "$nf" = 2 ] && [ -n "$body1" ] && [ -n "$body2" ] && [ "$body1" != "$body2" ]; then
        pass unet_default_fused
    else
        fail unet_default_fused "kernels $k (want 2), fills $fi_, copies $co, recomputed_flops $r, phases $ph, fused $nf, conv+2 reductions in '$body1', sigmoid+conv in '$body2'"
    fi
fi
bad=""
for seed in 1 2 3 4 5; do
    "$GRAFT" opt "$ex/unet_groupnorm.txt" -p default --seed-order $seed --verify --stats json \
        > "$tmp/u2.json" 2> /dev/null || bad="$bad $seed(verify)"
    [ "$(json_int "$tmp/u2.json" kernels)" = 2 ] || bad="$bad $seed:$(json_int "$tmp/u2.json" kernels)"
done
if [ -z "$bad" ]; then pass unet_default_any_order; else fail unet_default_any_order "orders:$bad"; fi

# ---- phases: -p default is normalize, then prefuse and fuse on its result ----
# Two transposes that cancel (phase 1), then neg(relu(neg(x))) fused
# (phase 3).
cat > "$tmp/ph.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = transpose[permutation={1, 0}](x)
@2 = transpose[permutation={1, 0}](@1)
@3 = neg(@2)
@4 = relu(@3)
@5 = neg(@4)
@6 = @return(@5)
EOF
# --stats json: one entry per rule (fold runs in three phases: summed),
# "phases":4 (normalize, prefuse, fuse, layout), converged, one kernel.
total=
if "$GRAFT" opt "$tmp/ph.txt" -p default --stats json --verify > "$tmp/ph.json" 2> "$tmp/ph.err"; then
    keys=$(sed 's/.*"rules":{\([^}]*\)}.*/\1/' "$tmp/ph.json" | tr ',' '\n' | cut -d: -f1)
    dup=$(echo "$keys" | sort | uniq -d | tr '\n' ' ')
    total=$(json_int "$tmp/ph.json" rewrites)
    if [ -z "$dup" ] && [ "$(json_int "$tmp/ph.json" phases)" = 4 ] &&
       [ "$(json_int "$tmp/ph.json" kernels)" = 1 ] && grep -q '"converged":true' "$tmp/ph.json" &&
       grep -q '"transpose_of_transpose":1' "$tmp/ph.json"; then
        pass phases_stats
    else
        fail phases_stats "duplicates: $dup; $(head -c 300 "$tmp/ph.json")"
    fi
else
    fail phases_stats "$(head -2 "$tmp/ph.err")"
fi
# --max-rewrites N is a budget over the whole pipeline: exactly N rewrites,
# stopped for max rewrites below the total; the values never change.
bad=""
if [ -n "$total" ] && [ "$total" -ge 2 ]; then
    n=0
    while [ $n -le "$total" ]; do
        "$GRAFT" opt "$tmp/ph.txt" -p default --max-rewrites $n --stats json --verify \
            > "$tmp/mr.json" 2> "$tmp/mr.err" || bad="$bad $n(verify)"
        r=$(json_int "$tmp/mr.json" rewrites)
        [ "$r" = "$n" ] || bad="$bad $n:$r"
        if [ $n -lt "$total" ]; then
            grep -q '"stop":"max rewrites"' "$tmp/mr.json" || bad="$bad $n(stop)"
        else
            grep -q '"converged":true' "$tmp/mr.json" || bad="$bad $n(converged)"
        fi
        n=$((n + 1))
    done
else bad="total rewrites '$total'"; fi
if [ -z "$bad" ]; then pass phases_max_rewrites; else fail phases_max_rewrites "$bad"; fi
# --disable names a rule of either phase; a name in neither is an error.
if "$GRAFT" opt "$tmp/ph.txt" -p default --disable fuse_unary_of_pointwise \
        --disable transpose_of_transpose --stats json > "$tmp/d.json" 2>&1 &&
   grep -q '"fuse_unary_of_pointwise":{[^}]*"fires":0,[^}]*"disabled":true' "$tmp/d.json" &&
   grep -q '"transpose_of_transpose":{[^}]*"fires":0,[^}]*"disabled":true' "$tmp/d.json"; then
    pass phases_disable
else fail phases_disable "$(head -c 300 "$tmp/d.json")"; fi
"$GRAFT" opt "$tmp/ph.txt" -p default --disable no_such_rule > /dev/null 2> "$tmp/d.err"
st=$?
if [ $st -eq 1 ] && grep -q "no_such_rule" "$tmp/d.err"; then pass phases_disable_unknown
else fail phases_disable_unknown "status $st: $(cat "$tmp/d.err")"; fi
# --trace opens each phase with its sets, the fold firing before phase 2,
# the fusion in phase 3.
line() { grep -n "$1" "$tmp/tr" | head -1 | cut -d: -f1; }
if "$GRAFT" opt "$tmp/ph.txt" -p default --trace > /dev/null 2> "$tmp/tr" &&
   grep -q "^phase 1 of 4: fold, pending, pad, reshape$" "$tmp/tr" &&
   grep -q "^phase 2 of 4: fold, prefuse$" "$tmp/tr" &&
   grep -q "^phase 3 of 4: fold, fuse$" "$tmp/tr" &&
   grep -q "^phase 4 of 4: layout$" "$tmp/tr" &&
   [ "$(line '^phase 3')" -lt "$(line '^fire fuse_')" ] &&
   [ "$(line '^phase 2')" -gt "$(line '^fire transpose_of_transpose')" ]; then
    pass phases_trace
else fail phases_trace "$(grep -E '^(phase|fire)' "$tmp/tr" | head -6 | tr '\n' ' ')"; fi
# --shapes eager reaches the same UNet result.
if "$GRAFT" opt "$ex/unet_groupnorm.txt" -p default --shapes eager -o "$tmp/ue.txt" > /dev/null 2>&1 &&
   "$GRAFT" opt "$ex/unet_groupnorm.txt" -p default -o "$tmp/ul.txt" > /dev/null 2>&1 &&
   cmp -s "$tmp/ue.txt" "$tmp/ul.txt"; then pass phases_shapes_eager
else fail phases_shapes_eager "the eager and lazy results differ"; fi
# graft opt --help lists the phases.
if "$GRAFT" opt --help | grep -q "sets: fold, pending, pad, reshape; then fold, prefuse; then fold, fuse"; then
    pass phases_help
else fail phases_help "no phases in graft opt --help"; fi

# ---- ONNX models: -p default converges and keeps ONNX's expected outputs ----
models="$TOP/../shared/models/onnx-light"
if [ -d "$models" ]; then
    for name in bvlc_alexnet densenet121 inception_v1 inception_v2 resnet50 shufflenet squeezenet vgg19 zfnet512; do
        rtol=1e-3
        [ "$name" = densenet121 ] && rtol=2e-3
        if "$GRAFT" test "$models/$name" -p default --rtol "$rtol" > "$tmp/m.out" 2>&1 &&
           grep -q "^PASS $name\$" "$tmp/m.out" && grep -q "^1 passed, 0 failed, 0 skipped$" "$tmp/m.out"; then
            pass "pipeline_default_onnx_$name"
        else
            fail "pipeline_default_onnx_$name" "$(grep -v '^[0-9]* passed' "$tmp/m.out" | head -2 | tr '\n' ' ')"
        fi
    done
else
    fail pipeline_default_onnx_models "$models is missing"
fi

# -p with graft test: an unknown pipeline is a usage error naming the known ones.
"$GRAFT" test "$models/resnet50" -p nosuch > "$tmp/u.out" 2>&1
st=$?
if [ $st -eq 2 ] && grep -q "unknown pipeline 'nosuch' (pipelines: fold, pad, reshape, prefuse, fuse, normalize, layout, default)" "$tmp/u.out"; then
    pass test_unknown_pipeline
else
    fail test_unknown_pipeline "status $st: $(head -1 "$tmp/u.out")"
fi

# ---- ONNX node tests: -p default changes no result (the same known
# bfloat16 deviations as tests/cli/onnx_node.sh, nothing else) ----
data=/usr/share/libonnx-testdata/data
known="test_cast_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16_expanded"
if [ -d "$data/node" ]; then
    for suite in node pytorch-converted pytorch-operator; do
        "$GRAFT" test "$data/$suite" -p default > "$tmp/n.out" 2>&1
        bad=""
        for t in $(grep '^FAIL ' "$tmp/n.out" | sed 's/^FAIL \([^:]*\):.*/\1/'); do
            case " $known " in *" $(basename "$t") "*) ;; *) bad="$bad $t" ;; esac
        done
        if [ -z "$bad" ] && grep -q '^[1-9][0-9]* passed' "$tmp/n.out"; then
            pass "pipeline_default_onnx_$suite"
        else
            fail "pipeline_default_onnx_$suite" "failed:$bad $(grep "^FAIL .*$(echo $bad | cut -d' ' -f1)" "$tmp/n.out" | head -1 | cut -c1-160)"
        fi
    done
else
    fail pipeline_default_onnx_node "$data/node is missing (apt-get install libonnx-testdata)"
fi

# ---- shared operands: the view helpers walk each value once ----
# x * x chains 40 deep (values read twice by their one reader), under a
# transpose (absorbs_transpose), in a pointwise cluster (cluster_lens) and
# over a literal (is_constant). Walking per path took 2^40 steps; the
# timeout makes a regression fail instead of hang.
awk 'BEGIN {
    print "module: \"main\""
    print "x0 = @param:a -> float_type, {2, 4}, {4, 1}"
    print "c0 = @literal{1, 1, 1, 1, 1, 1, 1, 1} -> float_type, {2, 4}, {4, 1}"
    for (i = 1; i <= 40; i++) {
        printf "x%d = mul(x%d,x%d) -> float_type, {2, 4}, {4, 1}\n", i, i - 1, i - 1
        printf "c%d = mul(c%d,c%d) -> float_type, {2, 4}, {4, 1}\n", i, i - 1, i - 1
    }
    print "s = add(x40,c40) -> float_type, {2, 4}, {4, 1}"
    print "t = transpose[permutation={1, 0}](s) -> float_type, {4, 2}, {1, 4}"
    print "r = @return(t)"
}' > "$tmp/shared40.txt"
ok=1
for s in 0 7 13; do
    if ! timeout 20 "$GRAFT" opt "$tmp/shared40.txt" -p default --seed-order $s -o "$tmp/shared40_$s.out" 2> "$tmp/shared40.err"; then
        ok=0
        fail pipeline_default_shared_operands "--seed-order $s: failed or took over 20 s: $(head -2 "$tmp/shared40.err")"
        break
    fi
done
[ $ok = 1 ] && pass pipeline_default_shared_operands
