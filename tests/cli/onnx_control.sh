#!/bin/sh
# onnx_control.sh: ONNX control flow resolved at import. The models in
# tests/onnx_control (built by make_models.py with the ONNX helper API,
# expected outputs from numpy) are an If on a shape-derived condition (both
# branches) and a Loop with a known trip count and a scan output; they must
# match with and without -p default.
#
# Environment (from tests/run.sh): GRAFT, TOP.
GRAFT=${GRAFT:-build/graft}
TOP=${TOP:-.}
. "$(dirname "$0")/lib/common.sh"

dir="$TOP/tests/onnx_control"
expect onnx_control_models 0 "$GRAFT" test "$dir/if_shape_then" "$dir/if_shape_else" \
    "$dir/loop_known_trips" &&
    has onnx_control_models_pass "$t/out" '^3 passed, 0 failed, 0 skipped$'
expect onnx_control_models_default 0 "$GRAFT" test -p default "$dir/if_shape_then" \
    "$dir/if_shape_else" "$dir/loop_known_trips" &&
    has onnx_control_models_default_pass "$t/out" '^3 passed, 0 failed, 0 skipped$'
