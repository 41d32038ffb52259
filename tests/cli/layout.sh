#!/bin/sh
# layout.sh: concats written in place and pads as read predicates, from the
# rules to the kernels run on emu.
#  - examples/esrgan_dense_block.txt (seed 002's ESRGAN style: pads,
#    convolutions, leaky_relu, concats) under -p default: 0 fills, 0 copies,
#    both concats in place, no concat kernel in `graft compile`, and the
#    kernels on emu at wave 64 and 32 equal the reference executor;
#  - concats that nest (one concat an operand of the next, the other read
#    elsewhere too, densenet's prefix chain), concats along axis 0 of a
#    batch, a concat read by the return, one reading a value twice: written
#    in place where ops/concat_in_place.h allows, and right on emu either way;
#  - a concat asked to be in place that cannot be (an operand is a graph
#    input) stays a copy kernel: counted as a copy, and still right on emu;
#  - pads a convolution cannot absorb (value 1, reflect, edge) read by
#    pointwise ops: 0 fills under -p default, right on emu at both waves;
#  - densenet121 and inception_v1 (../shared/models/onnx-light, when there):
#    0 copies under -p default; inception_v1 passes graft test on emu.
. "$(dirname "$0")/lib/common.sh"

# stat NAME FILE: the value of "NAME": in --stats json output FILE.
stat() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2"; }

# emu_both NAME OPT REF: OPT's kernels on emu at both wave sizes equal REF on
# the reference executor.
emu_both() {
    for w in 64 32; do
        expect "$1_emu_wave$w" 0 "$GRAFT" run "$2" --device emu --wave "$w" --compare "$3" --seed 3
    done
}

# ---- the ESRGAN-style block ----
es="$TOP/examples/esrgan_dense_block.txt"
if "$GRAFT" opt "$es" -p default -o "$t/es.txt" --stats json > "$t/es.json" 2> "$t/err"; then
    f=$(stat fills "$t/es.json") c=$(stat copies "$t/es.json")
    [ "$f" = 0 ] && [ "$c" = 0 ] && pass esrgan_no_fills_no_copies ||
        fail esrgan_no_fills_no_copies "fills $f, copies $c"
    n=$(grep -c 'concat\[axis=1,in_place=1\]' "$t/es.txt")
    [ "$n" = 2 ] && pass esrgan_concats_in_place || fail esrgan_concats_in_place "$n of 2 in place"
    emu_both esrgan "$t/es.txt" "$es"
    if "$GRAFT" compile "$t/es.txt" -o "$t/es_dir" --arch gfx90a > "$t/es_compile" 2>&1 ||
        grep -q "cannot load libamdhip64\|hiprtc entry points" "$t/es_compile"; then
        if ls "$t/es_dir" | grep -q '^concat'; then
            fail esrgan_no_concat_kernel "$(ls "$t/es_dir" | tr '\n' ' ')"
        else
            pass esrgan_no_concat_kernel
        fi
    else
        fail esrgan_no_concat_kernel "graft compile failed: $(head -c 300 "$t/es_compile" | tr '\n' ' ')"
    fi
else
    fail esrgan_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi

# ---- nesting, axis 0, a returned concat ----
cat > "$t/nest.txt" <<'EOF2'
module: "main"
x = @param:x -> float_type, {3, 2, 4}, {8, 4, 1}
y = @param:y -> float_type, {3, 3, 4}, {12, 4, 1}
z = @param:z -> float_type, {2, 5, 4}, {20, 4, 1}
@3 = relu(x) -> float_type, {3, 2, 4}, {8, 4, 1}
@4 = exp(y) -> float_type, {3, 3, 4}, {12, 4, 1}
@5 = concat[axis=1](@3,@4) -> float_type, {3, 5, 4}, {20, 4, 1}
@6 = sin(@5) -> float_type, {3, 5, 4}, {20, 4, 1}
@7 = neg(z) -> float_type, {2, 5, 4}, {20, 4, 1}
@8 = concat[axis=0](@6,@7) -> float_type, {5, 5, 4}, {20, 4, 1}
@9 = tanh(@8) -> float_type, {5, 5, 4}, {20, 4, 1}
@10 = abs(@5) -> float_type, {3, 5, 4}, {20, 4, 1}
@11 = concat[axis=2](@10,@10) -> float_type, {3, 5, 8}, {40, 8, 1}
@12 = cos(@3) -> float_type, {3, 2, 4}, {8, 4, 1}
@13 = concat[axis=0](@12,@3) -> float_type, {6, 2, 4}, {8, 4, 1}
@14 = @return(@9,@11,@13)
EOF2
if "$GRAFT" opt "$t/nest.txt" -p layout -o "$t/nest_opt.txt" --stats json > "$t/nest.json" 2> "$t/err"; then
    # In place: @8 (axis 0: each slice keeps its operand's own strides) and
    # @13 (the return reads it: it owns its buffer). Not: @5 (axis 1 of a
    # batch of 3, where a slice's strides are not its operand's own) and
    # @11 (one operand twice).
    grep -q '^@8 = concat\[axis=0,in_place=1\]' "$t/nest_opt.txt" && pass layout_axis0_in_place ||
        fail layout_axis0_in_place "$(grep '= concat' "$t/nest_opt.txt" | tr '\n' ' ')"
    grep -q '^@5 = concat\[axis=1\]' "$t/nest_opt.txt" && pass layout_batch_axis1_not_in_place ||
        fail layout_batch_axis1_not_in_place "$(grep '^@5 ' "$t/nest_opt.txt")"
    grep -q '^@11 = concat\[axis=2\]' "$t/nest_opt.txt" && pass layout_operand_twice_not_in_place ||
        fail layout_operand_twice_not_in_place "$(grep '^@11 ' "$t/nest_opt.txt")"
    grep -q '^@13 = concat\[axis=0,in_place=1\]' "$t/nest_opt.txt" && pass layout_returned_concat_in_place ||
        fail layout_returned_concat_in_place "$(grep '^@13 ' "$t/nest_opt.txt")"
    emu_both layout_nest "$t/nest_opt.txt" "$t/nest.txt"
else
    fail layout_nest_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi

# a prefix chain, as densenet writes it: each concat reads the previous one
cat > "$t/chain.txt" <<'EOF2'
module: "main"
x = @param:x -> float_type, {1, 2, 3, 3}, {18, 9, 3, 1}
@1 = relu(x) -> float_type, {1, 2, 3, 3}, {18, 9, 3, 1}
@2 = exp(@1) -> float_type, {1, 2, 3, 3}, {18, 9, 3, 1}
@3 = concat[axis=1](@1,@2) -> float_type, {1, 4, 3, 3}, {36, 9, 3, 1}
@4 = reduce_sum[axes={1}](@3) -> float_type, {1, 1, 3, 3}, {9, 9, 3, 1}
@5 = concat[axis=1](@3,@4) -> float_type, {1, 5, 3, 3}, {45, 9, 3, 1}
@6 = sin(@5) -> float_type, {1, 5, 3, 3}, {45, 9, 3, 1}
@7 = concat[axis=1](@5,@6) -> float_type, {1, 10, 3, 3}, {90, 9, 3, 1}
@8 = neg(@7) -> float_type, {1, 10, 3, 3}, {90, 9, 3, 1}
@9 = @return(@8)
EOF2
if "$GRAFT" opt "$t/chain.txt" -p layout -o "$t/chain_opt.txt" --stats json > "$t/chain.json" 2> "$t/err"; then
    c=$(stat copies "$t/chain.json")
    [ "$c" = 0 ] && pass layout_chain_no_copies || fail layout_chain_no_copies "copies $c"
    emu_both layout_chain "$t/chain_opt.txt" "$t/chain.txt"
else
    fail layout_chain_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi

# ---- a request that cannot be placed stays a copy ----
cat > "$t/forced.txt" <<'EOF2'
module: "main"
x = @param:x -> float_type, {1, 2, 3}, {6, 3, 1}
y = @param:y -> float_type, {1, 4, 3}, {12, 3, 1}
@2 = relu(x) -> float_type, {1, 2, 3}, {6, 3, 1}
@3 = concat[axis=1,in_place=1](@2,y) -> float_type, {1, 6, 3}, {18, 3, 1}
@4 = neg(@3) -> float_type, {1, 6, 3}, {18, 3, 1}
@5 = @return(@4)
EOF2
if "$GRAFT" opt "$t/forced.txt" -p fold -o "$t/forced_opt.txt" --stats json > "$t/forced.json" 2> "$t/err"; then
    c=$(stat copies "$t/forced.json")
    [ "$c" = 1 ] && pass layout_unplaceable_is_a_copy || fail layout_unplaceable_is_a_copy "copies $c"
    emu_both layout_unplaceable "$t/forced_opt.txt" "$t/forced.txt"
else
    fail layout_forced_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi

# ---- pads as read predicates ----
cat > "$t/pads.txt" <<'EOF2'
module: "main"
x = @param:x -> float_type, {2, 3, 5, 4}, {60, 20, 4, 1}
y = @param:y -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
z = @param:z -> float_type, {2, 5, 5, 6}, {150, 30, 6, 1}
h = @param:h -> half_type, {3, 4}, {4, 1}
@4 = pad[mode=0,pads={0, 0, 1, 1, 0, 0, 1, 1},value=1](x) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@5 = exp(@4) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@6 = add(@5,y) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@7 = pad[mode=1,pads={0, 1, 0, 1, 0, 1, 0, 1},value=0](x) -> float_type, {2, 5, 5, 6}, {150, 30, 6, 1}
@8 = mul(z,@7) -> float_type, {2, 5, 5, 6}, {150, 30, 6, 1}
@9 = pad[mode=2,pads={0, 0, 2, 0, 0, 0, 0, 2},value=0](x) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@10 = relu(@9) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@11 = sub(@6,@10) -> float_type, {2, 3, 7, 6}, {126, 42, 6, 1}
@12 = pad[mode=0,pads={1, 0, 0, 2},value=-inf](h) -> half_type, {4, 6}, {6, 1}
@13 = exp(@12) -> half_type, {4, 6}, {6, 1}
@14 = @return(@11,@8,@13)
EOF2
if "$GRAFT" opt "$t/pads.txt" -p default -o "$t/pads_opt.txt" --stats json > "$t/pads.json" 2> "$t/err"; then
    f=$(stat fills "$t/pads.json")
    [ "$f" = 0 ] && pass pads_read_predicates_no_fills || fail pads_read_predicates_no_fills "fills $f"
    grep -q '^main:fused[0-9]*:@[0-9]* = pad\[mode=1' "$t/pads_opt.txt" && pass pads_inside_regions ||
        fail pads_inside_regions "no reflect pad inside a region"
    emu_both pads "$t/pads_opt.txt" "$t/pads.txt"
else
    fail pads_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi

# ---- models ----
models="$TOP/../shared/models/onnx-light"
for m in densenet121 inception_v1; do
    if [ ! -f "$models/$m/model.onnx" ]; then
        pass "layout_${m}_copies (skipped: $models/$m is not there)"
        continue
    fi
    if "$GRAFT" opt "$models/$m/model.onnx" -p default -o /dev/null --stats json > "$t/$m.json" 2> "$t/err"; then
        c=$(stat copies "$t/$m.json")
        [ "$c" = 0 ] && pass "layout_${m}_no_copies" || fail "layout_${m}_no_copies" "copies $c"
    else
        fail "layout_${m}_no_copies" "$(head -c 300 "$t/err" | tr '\n' ' ')"
    fi
done
if [ -f "$models/inception_v1/model.onnx" ]; then
    expect layout_inception_v1_emu 0 "$GRAFT" test "$models/inception_v1" --device emu -p default
fi
