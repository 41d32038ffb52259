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
#  - layout (seed 004, examples/seed004_channels_last.txt): channels-last
#    inputs give one kernel and channels-last outputs; --output-format
#    standard gives one kernel and row-major outputs (the region stores
#    them so), a bad format is a usage error; a channels-last (NHWC)
#    conv/pointwise graph keeps no layout or contiguous and transposes only
#    at the graph's edges; all on emu at both waves;
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
    # every visiting order marks both concats (the guard never unplaces one)
    # and reaches the kernel count of program order
    k0=$(stat kernels "$t/es.json")
    bad=""
    for seed in 1 2 3 4 5; do
        "$GRAFT" opt "$es" -p default --seed-order $seed -o /dev/null --stats json > "$t/so.json" 2>&1
        [ "$(stat copies "$t/so.json")" = 0 ] && [ "$(stat kernels "$t/so.json")" = "$k0" ] || bad="$bad $seed"
    done
    [ -z "$bad" ] && pass esrgan_any_order || fail esrgan_any_order "seeds$bad"
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

# ---- layout: seed 004 and a channels-last conv graph ----
s4="$TOP/examples/seed004_channels_last.txt"
# out_strides FILE N: the strides of the dump's return operand N (from 0).
out_strides() {
    v=$(sed -n 's/^@[0-9_]* = @return(\(.*\))$/\1/p' "$1" | cut -d, -f$(($2 + 1)))
    grep "^$v = " "$1" | sed 's/.*}, \({[^}]*}\)$/\1/'
}
if "$GRAFT" opt "$s4" -p default -o "$t/s4.txt" --stats json > "$t/s4.json" 2> "$t/err"; then
    k=$(stat kernels "$t/s4.json")
    [ "$k" = 1 ] && ! grep -Eq '= (layout|contiguous|transpose)' "$t/s4.txt" &&
        [ "$(out_strides "$t/s4.txt" 0)" = "{400, 1, 80, 16}" ] &&
        [ "$(out_strides "$t/s4.txt" 1)" = "{400, 1, 80, 16}" ] &&
        pass seed004_channels_last_one_kernel ||
        fail seed004_channels_last_one_kernel "kernels $k, outputs $(out_strides "$t/s4.txt" 0) $(out_strides "$t/s4.txt" 1)"
    emu_both seed004 "$t/s4.txt" "$s4"
else
    fail seed004_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi
if "$GRAFT" opt "$s4" -p default --output-format standard -o "$t/s4s.txt" --stats json > "$t/s4s.json" 2> "$t/err"; then
    k=$(stat kernels "$t/s4s.json")
    [ "$k" = 1 ] && [ "$(out_strides "$t/s4s.txt" 0)" = "{400, 25, 5, 1}" ] &&
        [ "$(out_strides "$t/s4s.txt" 1)" = "{400, 25, 5, 1}" ] &&
        pass seed004_output_format_standard ||
        fail seed004_output_format_standard "kernels $k, outputs $(out_strides "$t/s4s.txt" 0) $(out_strides "$t/s4s.txt" 1)"
    emu_both seed004_standard "$t/s4s.txt" "$s4"
else
    fail seed004_output_format_standard "$(head -c 300 "$t/err" | tr '\n' ' ')"
fi
expect output_format_bad 2 "$GRAFT" opt "$s4" --output-format 0,0,1
cat > "$t/nhwc.txt" <<'EOF2'
module: "main"
x = @param:x -> float_type, {2, 6, 5, 4}, {120, 20, 4, 1}
r = @param:r -> float_type, {2, 6, 5, 8}, {240, 40, 8, 1}
@2 = @literal{ ... } -> float_type, {8, 4, 3, 3}, {36, 9, 3, 1}
@3 = @literal{ ... } -> float_type, {8, 8, 3, 3}, {72, 9, 3, 1}
@4 = @literal{ ... } -> float_type, {8}, {1}
@5 = transpose[permutation={0, 3, 1, 2}](x)
@6 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](@5,@2)
@7 = broadcast[axis=1,out_lens={2, 8, 6, 5}](@4)
@8 = add(@6,@7)
@9 = relu(@8)
@10 = convolution[padding={1, 1, 1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](@9,@3)
@11 = transpose[permutation={0, 3, 1, 2}](r)
@12 = add(@10,@11)
@13 = sigmoid(@12)
@14 = reduce_mean[axes={2, 3}](@13)
@15 = multibroadcast[out_lens={2, 8, 6, 5}](@14)
@16 = sub(@13,@15)
@17 = transpose[permutation={0, 2, 3, 1}](@16)
@18 = contiguous(@17)
@19 = @return(@18)
EOF2
if "$GRAFT" opt "$t/nhwc.txt" -p default -o "$t/nhwc_opt.txt" 2> "$t/err"; then
    # every transpose left reads a parameter or is read by the return only
    bad=$(grep -E '= (layout|contiguous)' "$t/nhwc_opt.txt")
    for v in $(sed -n 's/^\(@[0-9_]*\) = transpose.*/\1/p' "$t/nhwc_opt.txt"); do
        grep -Eq "^$v = transpose\[[^]]*\]\((x|r)\)" "$t/nhwc_opt.txt" && continue
        grep -q "^@[0-9_]* = @return($v)" "$t/nhwc_opt.txt" && continue
        bad="$bad $v"
    done
    [ -z "$bad" ] && pass nhwc_no_transpose_between_kernels || fail nhwc_no_transpose_between_kernels "$bad"
    emu_both nhwc "$t/nhwc_opt.txt" "$t/nhwc.txt"
else
    fail nhwc_opt "$(head -c 300 "$t/err" | tr '\n' ' ')"
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
