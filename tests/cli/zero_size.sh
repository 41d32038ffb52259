#!/bin/sh
# zero_size.sh: tensors with a 0 among their lens (no elements) go through
# every layer: the dump reader and writer (a param and an empty literal
# `@literal{}`), the shape rules (transpose, concat, reduce over an empty
# axis), the reference executor and the emu device, `-p default`, and the
# ONNX importer (the node tests whose inputs or results are empty: Slice out
# of bounds, Split into empty parts, Reshape with allowzero, Trilu and
# ConstantOfShape of empty shapes).
#
# Environment (from tests/run.sh): GRAFT. Prints "PASS name" or
# "FAIL name: why" per test.
GRAFT=${GRAFT:-build/graft}
. "$(dirname "$0")/lib/common.sh"

cat > "$t/z.txt" <<'DUMP'
module: "main"
x = @param:x -> float_type, {0, 3}, {3, 1}
e = @literal{} -> float_type, {0, 3}, {3, 1}
y = @param:y -> float_type, {2, 3}, {3, 1}
@3 = relu(x) -> float_type, {0, 3}, {3, 1}
@4 = transpose[permutation={1, 0}](@3) -> float_type, {3, 0}, {1, 3}
@5 = contiguous(@4) -> float_type, {3, 0}, {1, 1}
@6 = reduce_sum[axes={1}](@5) -> float_type, {3, 1}, {1, 1}
@7 = concat[axis=0](e, y, x) -> float_type, {2, 3}, {3, 1}
@8 = @return(@6, @7, @5)
DUMP

expect zero_size_check 0 "$GRAFT" check "$t/z.txt" &&
    has zero_size_check_params "$t/out" 'params: x float_type \{0, 3\}, y float_type \{2, 3\}'
# the writer gives back what the reader took, and that reads again
expect zero_size_print 0 "$GRAFT" print "$t/z.txt" -o "$t/z2.txt" &&
    has zero_size_print_literal "$t/z2.txt" '^e = @literal\{\} -> float_type, \{0, 3\}, \{3, 1\}$' &&
    expect zero_size_reread 0 "$GRAFT" check "$t/z2.txt"
# an empty axis sums to 0; concat skips the empty operands
expect zero_size_run 0 "$GRAFT" run "$t/z.txt" --seed 3 --outputs "$t/outs" &&
    has zero_size_run_sum "$t/out" 'output0: float_type \{3, 1\}  min 0  max 0  mean 0 ' &&
    has zero_size_run_empty "$t/out" 'output2: float_type \{3, 0\}  no elements '
if [ -s "$t/outs/output2.pb" ]; then pass zero_size_run_writes_empty; else
    fail zero_size_run_writes_empty "no $t/outs/output2.pb"; fi
expect zero_size_run_compare 0 "$GRAFT" run "$t/z.txt" --seed 3 --compare "$t/z2.txt"
expect zero_size_emu 0 "$GRAFT" run "$t/z.txt" --seed 3 --device emu --compare "$t/z.txt"
expect zero_size_opt 0 "$GRAFT" opt -p default --verify "$t/z.txt"

# the ONNX node tests with empty inputs or results, as imported and rewritten
data=/usr/share/libonnx-testdata/data/node
if [ -d "$data" ]; then
    set --
    for n in constantofshape_int_shape_zero reshape_allowzero_reordered \
        slice_start_out_of_bounds split_zero_size_splits tril_zero triu_zero; do
        set -- "$@" "$data/test_$n"
    done
    expect zero_size_onnx 0 "$GRAFT" test "$@" &&
        has zero_size_onnx_all "$t/out" '^6 passed, 0 failed, 0 skipped$'
    expect zero_size_onnx_default 0 "$GRAFT" test -p default "$@" &&
        has zero_size_onnx_default_all "$t/out" '^6 passed, 0 failed, 0 skipped$'
else
    fail zero_size_onnx "$data is missing (apt-get install libonnx-testdata)"
fi
exit 0
