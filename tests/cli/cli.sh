#!/bin/sh
# cli.sh: the graft command's outside contract (docs/architecture.md, "The
# command line"): every subcommand, every exit code (0 ok, 1 failure or bad
# input, 2 usage), --help everywhere, errors as file:line:col, nothing
# half-written on failure, run's --inputs/--outputs/--compare/--seed, and the
# examples running.
#
# Environment (from tests/run.sh): GRAFT (the graft binary), TOP (repo root).
# Prints one line per test: "PASS name" or "FAIL name: why".
GRAFT=${GRAFT:-build/graft}
TOP=${TOP:-.}
ex="$TOP/examples"
. "$(dirname "$0")/lib/common.sh"

same() { # NAME A B
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "'$2' vs '$3'"; fi
}
differ() { # NAME A B
    if [ -n "$2" ] && [ -n "$3" ] && [ "$2" != "$3" ]; then pass "$1"; else fail "$1" "'$2' vs '$3'"; fi
}

# ---- top level ----
expect top_help 0 "$GRAFT" --help && has top_help_lists "$t/out" 'graft check .*GRAPH'
for c in check print run import compile; do
    has "top_help_lists_$c" "$t/out" "graft $c "
done
expect top_no_args 2 "$GRAFT"
expect top_unknown_command 2 "$GRAFT" frobnicate && has top_unknown_command_says "$t/err" "unknown command 'frobnicate'"

# ---- --help on every subcommand, and usage errors ----
for c in check print run import compile; do
    expect "help_$c" 0 "$GRAFT" "$c" --help && has "help_${c}_usage" "$t/out" "^usage: graft $c"
    expect "help_short_$c" 0 "$GRAFT" "$c" -h
    expect "usage_missing_graph_$c" 2 "$GRAFT" "$c"
    has "usage_points_to_help_$c" "$t/err" "graft $c --help"
    expect "usage_unknown_option_$c" 2 "$GRAFT" "$c" --bogus "$ex/seed001_dot_transpose_relu.txt"
    has "usage_one_line_$c" "$t/err" "^graft $c: unknown option '--bogus'$"
done
# Whatever subcommands graft --help lists (others' included) answer --help
# with exit 0 and an unknown option with exit 2.
"$GRAFT" --help | sed -n 's/^  graft \([a-z]*\) .*/\1/p' >"$t/commands"
if [ -s "$t/commands" ]; then pass listed_commands; else fail listed_commands "graft --help lists none"; fi
while read -r c; do
    expect "listed_help_$c" 0 "$GRAFT" "$c" --help </dev/null
    expect "listed_usage_$c" 2 "$GRAFT" "$c" --no-such-option </dev/null
done <"$t/commands"
expect usage_check_two_graphs 2 "$GRAFT" check "$ex/seed001_dot_transpose_relu.txt" extra
expect usage_import_needs_o 2 "$GRAFT" import "$ex/seed001_dot_transpose_relu.txt"
expect usage_print_o_needs_value 2 "$GRAFT" print "$ex/seed001_dot_transpose_relu.txt" -o
expect usage_run_bad_seed 2 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --seed abc
expect usage_run_bad_rtol 2 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --rtol -1
expect usage_run_bad_device 2 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --device gpu

# ---- check ----
expect check_unet 0 "$GRAFT" check "$ex/unet_groupnorm.txt" &&
    has check_unet_ok "$t/out" 'unet_groupnorm.txt: ok' &&
    has check_unet_params "$t/out" 'params: sample float_type \{2, 4, 64, 64\}' &&
    has check_unet_ops "$t/out" 'convolution x2' &&
    has check_unet_no_opaque "$t/out" 'opaque ops: none'

cat >"$t/bad_syntax.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = relu(x -> float_type, {2, 3}, {3, 1}
@2 = @return(@1)
EOF
expect check_syntax_error 1 "$GRAFT" check "$t/bad_syntax.txt" &&
    has check_syntax_error_located "$t/err" "bad_syntax.txt:3:[0-9]+: "

cat >"$t/bad_shape.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = relu(x) -> float_type, {3, 3}, {3, 1}
@2 = @return(@1)
EOF
expect check_shape_mismatch 1 "$GRAFT" check "$t/bad_shape.txt" &&
    has check_shape_mismatch_located "$t/err" "bad_shape.txt:3:[0-9]+: "

cat >"$t/unknown_operand.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = relu(@7) -> float_type, {2, 3}, {3, 1}
@2 = @return(@1)
EOF
expect check_unknown_operand 1 "$GRAFT" check "$t/unknown_operand.txt" &&
    has check_unknown_operand_located "$t/err" "unknown_operand.txt:3:[0-9]+: "

expect check_missing_file 1 "$GRAFT" check "$t/does_not_exist.txt"

cat >"$t/opaque.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = gpu::gemm[alpha=1](x,x) -> float_type, {2, 3}, {3, 1}
@2 = @return(@1)
EOF
expect check_opaque 0 "$GRAFT" check "$t/opaque.txt" &&
    has check_opaque_named "$t/out" 'opaque ops: gpu::gemm'
expect run_refuses_opaque 1 "$GRAFT" run "$t/opaque.txt" &&
    has run_refuses_opaque_names_it "$t/err" 'gpu::gemm'

# ---- print ----
expect print_example 0 "$GRAFT" print "$ex/seed002_pad_conv.txt" &&
    has print_starts_with_module "$t/out" '^module: "main"$'
cp "$t/out" "$t/printed.txt"
expect print_reads_back 0 "$GRAFT" print "$t/printed.txt"
if cmp -s "$t/out" "$t/printed.txt"; then pass print_is_a_fixed_point; else
    fail print_is_a_fixed_point "printing a printed dump changed it"; fi

expect print_o_writes 0 "$GRAFT" print "$ex/seed001_dot_transpose_relu.txt" -o "$t/p.txt"
if [ -s "$t/p.txt" ] && [ ! -s "$t/out" ]; then pass print_o_file_not_stdout; else
    fail print_o_file_not_stdout "expected the dump in the file and nothing on stdout"; fi

expect print_o_on_error 1 "$GRAFT" print "$t/bad_syntax.txt" -o "$t/never.txt"
if [ -e "$t/never.txt" ]; then fail print_o_leaves_no_file "$t/never.txt exists"; else
    pass print_o_leaves_no_file; fi
echo "precious" >"$t/keep.txt"
expect print_o_on_error_existing 1 "$GRAFT" print "$t/bad_shape.txt" -o "$t/keep.txt"
if [ "$(cat "$t/keep.txt")" = precious ]; then pass print_o_keeps_existing_file; else
    fail print_o_keeps_existing_file "existing output was overwritten"; fi
if ls "$t" | grep -q '\.tmp'; then fail print_o_no_temp_left "$(ls "$t" | grep '\.tmp')"; else
    pass print_o_no_temp_left; fi

# ---- import ----
expect import_dump 0 "$GRAFT" import "$ex/unet_groupnorm.txt" -o "$t/unet.txt"
expect import_output_checks 0 "$GRAFT" check "$t/unet.txt"
expect import_bad_input 1 "$GRAFT" import "$t/bad_syntax.txt" -o "$t/never2.txt"
if [ -e "$t/never2.txt" ]; then fail import_leaves_no_file "$t/never2.txt exists"; else
    pass import_leaves_no_file; fi
onnx_relu=/usr/share/libonnx-testdata/data/node/test_relu
if [ -f "$onnx_relu/model.onnx" ]; then
    expect import_onnx 0 "$GRAFT" import "$onnx_relu/model.onnx" -o "$t/relu_onnx.txt"
    expect import_onnx_checks 0 "$GRAFT" check "$t/relu_onnx.txt"
fi

# ---- run: the examples ----
for g in "$ex"/*.txt; do
    n=$(basename "$g" .txt)
    expect "run_example_$n" 0 "$GRAFT" run "$g" &&
        has "run_example_${n}_prints_output0" "$t/out" '^ *output0: .* min .* max .* mean .* checksum [0-9a-f]{16}'
done
expect run_seed001_shape 0 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" &&
    has run_seed001_prints_shape "$t/out" 'output0: half_type \{3, 4\}'
has run_seed001_relu_min_nonnegative "$t/out" 'output0: .* min [0-9]'

# ---- run: seeds ----
"$GRAFT" run "$ex/seed002_pad_conv.txt" --seed 7 >"$t/out" 2>"$t/err"
a=$(checksum output0)
"$GRAFT" run "$ex/seed002_pad_conv.txt" --seed 7 >"$t/out" 2>"$t/err"
b=$(checksum output0)
"$GRAFT" run "$ex/seed002_pad_conv.txt" --seed 8 >"$t/out" 2>"$t/err"
c=$(checksum output0)
same run_same_seed_same_checksum "$a" "$b"
differ run_other_seed_other_checksum "$a" "$c"

# ---- run: devices (HIP lowering: tests/cli/codegen.sh) ----
expect run_device_ref 0 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --device ref
expect run_device_emu 0 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --device emu \
    --compare "$ex/seed001_dot_transpose_relu.txt" &&
    has run_device_emu_ran_kernels "$t/out" 'ran [0-9]+ kernels? on emu \(wave 64\)'
if "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --device hip >"$t/out" 2>"$t/err"; then
    pass "run_device_hip (a HIP device is present)"
else
    has run_device_hip_says_no_device "$t/err" 'no HIP device found \('
fi

# ---- run: --compare ----
expect run_compare_self 0 "$GRAFT" run "$ex/seed002_pad_conv.txt" --compare "$ex/seed002_pad_conv.txt" &&
    has run_compare_self_zero_error "$t/out" 'output2: max abs 0 .*ok'

cat >"$t/scale_one.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {4, 8}, {8, 1}
@1 = @literal{1} -> float_type, {1}, {0}
@2 = multibroadcast[out_lens={4, 8}](@1) -> float_type, {4, 8}, {0, 0}
@3 = mul(x,@2) -> float_type, {4, 8}, {8, 1}
@4 = @return(@3)
EOF
sed 's/@literal{1}/@literal{1.0001}/' "$t/scale_one.txt" >"$t/scale_near.txt"
sed 's/@literal{1}/@literal{2}/' "$t/scale_one.txt" >"$t/scale_two.txt"
expect run_compare_different 1 "$GRAFT" run "$t/scale_one.txt" --compare "$t/scale_two.txt" &&
    has run_compare_different_reports "$t/out" 'output0: max abs .* max rel .* FAIL' &&
    has run_compare_different_says_so "$t/err" 'differ'
expect run_compare_within_default_tolerance 0 "$GRAFT" run "$t/scale_one.txt" --compare "$t/scale_near.txt"
expect run_compare_beyond_tight_tolerance 1 "$GRAFT" run "$t/scale_one.txt" --compare "$t/scale_near.txt" --rtol 1e-6 --atol 0
cat >"$t/one_output.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {1, 64, 56, 56}, {200704, 3136, 56, 1}
@1 = relu(x) -> float_type, {1, 64, 56, 56}, {200704, 3136, 56, 1}
@2 = @return(@1)
EOF
expect run_compare_output_count 1 "$GRAFT" run "$ex/seed002_pad_conv.txt" --compare "$t/one_output.txt" &&
    has run_compare_output_count_says "$t/out" '3 outputs here, 1 in'
expect run_compare_missing_graph 1 "$GRAFT" run "$t/scale_one.txt" --compare "$t/does_not_exist.txt"

# ---- run: --outputs, then the outputs read back with --inputs ----
cat >"$t/relu.txt" <<'EOF'
module: "main"
x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}
@1 = relu(x) -> float_type, {2, 3, 4}, {12, 4, 1}
@2 = @return(@1)
EOF
cat >"$t/relu_of_output0.txt" <<'EOF'
module: "main"
output0 = @param:output0 -> float_type, {2, 3, 4}, {12, 4, 1}
@1 = relu(output0) -> float_type, {2, 3, 4}, {12, 4, 1}
@2 = @return(@1)
EOF
expect run_outputs_dir 0 "$GRAFT" run "$t/relu.txt" --seed 3 --outputs "$t/o"
first=$(checksum output0)
if [ -s "$t/o/output0.pb" ]; then pass run_outputs_writes_pb; else fail run_outputs_writes_pb "no $t/o/output0.pb"; fi
# relu is idempotent: relu(relu(x)) has the same checksum as relu(x).
expect run_inputs_by_param_name 0 "$GRAFT" run "$t/relu_of_output0.txt" --inputs "$t/o"
same run_inputs_round_trip "$first" "$(checksum output0)"
mkdir -p "$t/numbered" && cp "$t/o/output0.pb" "$t/numbered/input_0.pb"
expect run_inputs_by_position 0 "$GRAFT" run "$t/relu_of_output0.txt" --inputs "$t/numbered"
same run_inputs_by_position_round_trip "$first" "$(checksum output0)"
expect run_inputs_missing 1 "$GRAFT" run "$t/relu.txt" --inputs "$t/o" &&
    has run_inputs_missing_names_param "$t/err" "no input for parameter 'x'"
expect run_inputs_wrong_shape 1 "$GRAFT" run "$ex/seed001_dot_transpose_relu.txt" --inputs "$t/numbered"
expect run_outputs_unwritable 1 "$GRAFT" run "$t/relu.txt" --outputs "$t/relu.txt"
expect usage_seed_with_inputs 2 "$GRAFT" run "$t/relu.txt" --inputs "$t/o" --seed 1

# An ONNX backend test: the model's output on its own inputs equals the
# expected output stored beside it (relu is exact, so checksums agree).
if [ -f "$onnx_relu/model.onnx" ]; then
    expect run_onnx_test_inputs 0 "$GRAFT" run "$onnx_relu/model.onnx" --inputs "$onnx_relu/test_data_set_0"
    onnx_sum=$(checksum output0)
    mkdir -p "$t/expected" && cp "$onnx_relu/test_data_set_0/output_0.pb" "$t/expected/y.pb"
    cat >"$t/identity_y.txt" <<'EOF'
module: "main"
y = @param:y -> float_type, {3, 4, 5}, {20, 5, 1}
@1 = contiguous(y) -> float_type, {3, 4, 5}, {20, 5, 1}
@2 = @return(@1)
EOF
    expect run_onnx_expected_output 0 "$GRAFT" run "$t/identity_y.txt" --inputs "$t/expected"
    same run_onnx_matches_expected "$onnx_sum" "$(checksum output0)"
fi

# ---- run: round trip through print keeps the numbers ----
expect run_printed_compare 0 "$GRAFT" run "$ex/seed002_pad_conv.txt" --compare "$t/printed.txt" --rtol 0 --atol 0
expect run_imported_unet_compare 0 "$GRAFT" run "$ex/unet_groupnorm.txt" --compare "$t/unet.txt" --rtol 0 --atol 0
expect run_bad_input 1 "$GRAFT" run "$t/bad_syntax.txt"
exit 0
