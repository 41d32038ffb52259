#!/bin/sh
# onnx_models.sh: the nine real architectures of ../shared/models/onnx-light
# (alexnet, densenet121, inception v1/v2, resnet50, shufflenet, squeezenet,
# vgg19, zfnet512) imported from ONNX and run on the reference executor
# through `graft test`, compared with the expected outputs at ONNX's
# tolerances (densenet121 at rtol 2e-3, as its README says). The models must
# be there: a missing directory is a failure, not a skip.
. "$(dirname "$0")/lib/common.sh"
models="$TOP/../shared/models/onnx-light"
if [ ! -d "$models" ]; then
    echo "FAIL onnx_models: $models is missing"
    exit 1
fi
for name in bvlc_alexnet densenet121 inception_v1 inception_v2 resnet50 shufflenet squeezenet vgg19 zfnet512; do
    dir="$models/$name"
    if [ ! -f "$dir/model.onnx" ]; then
        echo "FAIL onnx_model_$name: $dir/model.onnx is missing"
        continue
    fi
    rtol=1e-3
    [ "$name" = densenet121 ] && rtol=2e-3
    out=$("$GRAFT" test "$dir" --rtol "$rtol" 2>&1)
    st=$?
    if [ $st -eq 0 ] && echo "$out" | grep -q "^PASS $name\$" && echo "$out" | grep -q "^1 passed, 0 failed, 0 skipped\$"; then
        echo "PASS onnx_model_$name"
    else
        echo "FAIL onnx_model_$name: $(echo "$out" | grep -v '^[0-9]* passed' | head -3 | tr '\n' ' ')"
    fi
done
