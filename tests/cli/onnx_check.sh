#!/bin/sh
# onnx_check.sh: `graft check model.onnx` reports op coverage: each ONNX op
# type with its count and the graft ops it becomes, and those graft cannot
# import. With an unsupported op the coverage is still printed, then the
# importer's one error (each unsupported type, count, first node), exit 1.
#
# Models are built at test time (`test_onnx --write-model`); resnet50 from
# ../shared/models/onnx-light is checked when it is there.
#
# Environment (from tests/run.sh): GRAFT, BUILD, TOP. Prints "PASS name" or
# "FAIL name: why" per test.
GRAFT=${GRAFT:-build/graft}
BUILD=${BUILD:-build}
TOP=${TOP:-.}
. "$(dirname "$0")/lib/common.sh"

for name in relu unsupported; do
    if ! "$BUILD/tests/test_onnx" --write-model "$name" "$t/$name.onnx"; then
        fail onnx_check_model "test_onnx --write-model $name did not write the model"
        exit 1
    fi
done

expect onnx_check_supported 0 "$GRAFT" check "$t/relu.onnx" &&
    has onnx_check_supported_ok "$t/out" "^$t/relu.onnx: ok\$" &&
    has onnx_check_supported_ops "$t/out" '^  ONNX ops \(opset 13, 1 node\): Relu x1$' &&
    has onnx_check_supported_none "$t/out" '^  unsupported ONNX ops: none$'

expect onnx_check_unsupported 1 "$GRAFT" check "$t/unsupported.onnx" &&
    has onnx_check_unsupported_header "$t/out" "^$t/unsupported.onnx: ONNX model, not imported\$" &&
    has onnx_check_unsupported_ops "$t/out" '^  ONNX ops \(opset 13, 4 nodes\): Frobnicate x2 \(unsupported: no importer\), Relu x1, Zap x1 \(unsupported: no importer\)$' &&
    has onnx_check_unsupported_list "$t/out" "^  unsupported ONNX ops: Frobnicate x2 \(first node 'first_frob'\), Zap x1 \(first node 'zapper'\)\$" &&
    has onnx_check_unsupported_error "$t/err" "unsupported ONNX ops: Frobnicate x2 \(first node 'first_frob'\), Zap x1 \(first node 'zapper'\)"
lines=$(wc -l < "$t/err")
if [ "$lines" -eq 1 ]; then pass onnx_check_one_error; else
    fail onnx_check_one_error "$lines lines on stderr: $(head -c 300 "$t/err" | tr '\n' ' ')"; fi

# A corrupt model has no coverage: one error, exit 1, nothing on stdout.
head -c 20 "$t/relu.onnx" > "$t/cut.onnx"
expect onnx_check_truncated 1 "$GRAFT" check "$t/cut.onnx" &&
    has onnx_check_truncated_message "$t/err" 'corrupt or truncated'
if [ -s "$t/out" ]; then fail onnx_check_truncated_quiet "stdout: $(head -c 200 "$t/out")"; else
    pass onnx_check_truncated_quiet; fi

# A dump has no ONNX coverage lines.
"$GRAFT" import "$t/relu.onnx" -o "$t/relu.dump" > /dev/null 2>&1
expect onnx_check_dump 0 "$GRAFT" check "$t/relu.dump"
if grep -q 'ONNX ops' "$t/out"; then fail onnx_check_dump_no_coverage "$(cat "$t/out")"; else
    pass onnx_check_dump_no_coverage; fi

resnet="$TOP/../shared/models/onnx-light/resnet50/model.onnx"
if [ -f "$resnet" ]; then
    expect onnx_check_resnet50 0 "$GRAFT" check "$resnet" &&
        has onnx_check_resnet50_conv "$t/out" 'ONNX ops \(opset 9, [0-9]+ nodes\):.* Conv x53 \(convolution' &&
        has onnx_check_resnet50_relu "$t/out" ' Relu x49[,]' &&
        has onnx_check_resnet50_none "$t/out" '^  unsupported ONNX ops: none$'
fi
