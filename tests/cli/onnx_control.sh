#!/bin/sh
# onnx_control.sh: ONNX control flow resolved at import. The models are
# built here, into the scratch directory, by tests/onnx_control/make_models.py
# (the ONNX helper API from Debian's python3-onnx, which `make deps`
# installs; expected outputs from numpy), so no model file lives in git. They
# are an If on a shape-derived condition (both
# branches) and a Loop with a known trip count and a scan output; they must
# match with and without -p default.
#
# Environment (from tests/run.sh): GRAFT, TOP.
GRAFT=${GRAFT:-build/graft}
TOP=${TOP:-.}
. "$(dirname "$0")/lib/common.sh"

dir="$t/onnx_control"
# Debian's python3, which has python3-onnx (a python3 earlier on PATH may not).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" "$TOP/tests/onnx_control/make_models.py" "$dir" >"$t/make.out" 2>&1; then
    fail onnx_control_make_models "make_models.py failed (python3-onnx missing? run make deps): $(head -c 300 "$t/make.out" | tr '\n' ' ')"
    exit 0
fi
pass onnx_control_make_models
expect onnx_control_models 0 "$GRAFT" test "$dir/if_shape_then" "$dir/if_shape_else" \
    "$dir/loop_known_trips" &&
    has onnx_control_models_pass "$t/out" '^3 passed, 0 failed, 0 skipped$'
expect onnx_control_models_default 0 "$GRAFT" test -p default "$dir/if_shape_then" \
    "$dir/if_shape_else" "$dir/loop_known_trips" &&
    has onnx_control_models_default_pass "$t/out" '^3 passed, 0 failed, 0 skipped$'
