#!/bin/sh
# onnx_dims.sh: `--dim NAME=VALUE` binds an ONNX model's symbolic dimensions
# on every command that reads a graph (check, print, run, opt, test, import),
# the same way everywhere: repeatable, `--dim N=V` or `--dim=N=V`, unbound
# names are 1, a bad binding is a usage error (exit 2).
#
# The model is built at test time by the ONNX unit test program
# (`test_onnx --write-model symbolic`): inputs x [batch, 4] and z [n, 4],
# outputs relu(x) and abs(z).
#
# Environment (from tests/run.sh): GRAFT, BUILD. Prints "PASS name" or
# "FAIL name: why" per test.
GRAFT=${GRAFT:-build/graft}
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/common.sh"

if ! "$BUILD/tests/test_onnx" --write-model symbolic "$t/sym.onnx" ||
    ! "$BUILD/tests/test_onnx" --write-model symbolic_test "$t/symtest"; then
    fail dims_model "test_onnx --write-model did not write the models"
    exit 1
fi
m=$t/sym.onnx

# check: unbound dimensions are 1; bound ones take their value.
expect dims_check_default 0 "$GRAFT" check "$m" &&
    has dims_check_default_shapes "$t/out" 'params: x float_type \{1, 4\}, z float_type \{1, 4\}$'
expect dims_check_bound 0 "$GRAFT" check "$m" --dim batch=6 --dim=n=2 &&
    has dims_check_bound_shapes "$t/out" 'params: x float_type \{6, 4\}, z float_type \{2, 4\}$'
expect dims_check_last_wins 0 "$GRAFT" check --dim batch=6 "$m" --dim batch=8 &&
    has dims_check_last_wins_shape "$t/out" 'x float_type \{8, 4\}, z float_type \{1, 4\}$'

# print and import write the bound shapes into the dump.
expect dims_print 0 "$GRAFT" print "$m" --dim n=7 &&
    has dims_print_shape "$t/out" '^z = @param:z -> float_type, \{7, 4\}'
expect dims_import 0 "$GRAFT" import "$m" -o "$t/sym.dump" --dim batch=5 &&
    has dims_import_shape "$t/sym.dump" '^x = @param:x -> float_type, \{5, 4\}'

# run: the outputs have the bound shapes.
expect dims_run 0 "$GRAFT" run "$m" --dim batch=3 --dim n=5 &&
    has dims_run_output0 "$t/out" 'output0: float_type \{3, 4\}' &&
    has dims_run_output1 "$t/out" 'output1: float_type \{5, 4\}'
expect dims_run_compare 0 "$GRAFT" run "$m" --dim batch=3 --compare "$m"

# opt: the optimised dump keeps the bound shapes.
expect dims_opt 0 "$GRAFT" opt "$m" -p default --dim batch=4 &&
    has dims_opt_shape "$t/out" '^x = @param:x -> float_type, \{4, 4\}'

# test: the data set binds batch=3 and n=2; --dim is accepted, and does not
# override what the data fixes.
expect dims_test 0 "$GRAFT" test "$t/symtest" &&
    has dims_test_pass "$t/out" '^1 passed, 0 failed, 0 skipped$'
expect dims_test_with_dim 0 "$GRAFT" test "$t/symtest" --dim batch=9 &&
    has dims_test_with_dim_pass "$t/out" '^1 passed, 0 failed, 0 skipped$'

# "--" ends options: a file named --dim... would be a GRAPH there.
expect dims_after_double_dash 1 "$GRAFT" check -- --dim=batch=2
has dims_after_double_dash_message "$t/err" 'cannot open'

# Bad bindings are usage errors, on every command.
for cmd in check print run opt test import; do
    expect "dims_${cmd}_no_value" 2 "$GRAFT" "$cmd" "$m" --dim batch &&
        has "dims_${cmd}_no_value_message" "$t/err" "^graft $cmd: --dim wants NAME=VALUE, not 'batch'"
done
expect dims_negative 2 "$GRAFT" check "$m" --dim batch=-1 &&
    has dims_negative_message "$t/err" "is not a dimension"
expect dims_not_number 2 "$GRAFT" run "$m" --dim batch=two
expect dims_empty_name 2 "$GRAFT" print "$m" --dim =3
expect dims_missing_value 2 "$GRAFT" check "$m" --dim
expect dims_help 0 "$GRAFT" check --help &&
    has dims_help_line "$t/out" '--dim NAME=VALUE'

# An unbound dimension that a shape rule then trips over: the error names the
# input, the dimension and the option that binds it. check lists the
# symbolic dimensions; --input-dim NAME=D0,D1,... sets a whole input shape.
if ! "$BUILD/tests/test_onnx" --write-model symbolic_reshape "$t/reshape.onnx"; then
    fail dims_reshape_model "test_onnx --write-model symbolic_reshape did not write the model"
    exit 1
fi
r=$t/reshape.onnx
expect dims_unbound_hint 1 "$GRAFT" check "$r" &&
    has dims_unbound_hint_message "$t/err" "cannot reshape 4 elements into 24; input 'x' dimension 0 \('batch'\) was not bound and became 1 \(add --dim batch=N\)" &&
    has dims_unbound_listed "$t/out" '^  symbolic dimensions: batch \(input x, dimension 0\)$'
expect dims_unbound_bound 0 "$GRAFT" check "$r" --dim batch=6 &&
    has dims_unbound_bound_shape "$t/out" 'params: x float_type \{6, 4\}$'
expect dims_input_dim 0 "$GRAFT" check "$r" --input-dim x=6,4 &&
    has dims_input_dim_shape "$t/out" 'params: x float_type \{6, 4\}$'
expect dims_input_dim_equals 0 "$GRAFT" run "$r" --input-dim=x=6,4 &&
    has dims_input_dim_run "$t/out" 'output0: float_type \{3, 8\}'
expect dims_input_dim_fixed 1 "$GRAFT" check "$r" --input-dim x=6,5 &&
    has dims_input_dim_fixed_message "$t/err" "graph input 'x': --input-dim gives dimension 1 as 5, the model fixes it at 4"
expect dims_input_dim_rank 1 "$GRAFT" check "$r" --input-dim x=24 &&
    has dims_input_dim_rank_message "$t/err" "--input-dim gives 1 dimensions, the model declares 2"
expect dims_input_dim_bad 2 "$GRAFT" check "$r" --input-dim x=6,a &&
    has dims_input_dim_bad_message "$t/err" "^graft check: --input-dim x: 'a' is not a dimension"
expect dims_input_dim_help 0 "$GRAFT" run --help &&
    has dims_input_dim_help_line "$t/out" '--input-dim NAME=D0,D1'
