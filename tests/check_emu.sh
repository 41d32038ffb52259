#!/bin/sh
# check_emu.sh: `make check-emu`: the whole conformance set on the emu device
# (graft's generated HIP kernels run on the CPU), optimised with -p default:
# the nine onnx-light models and the ONNX backend node tests (node,
# pytorch-converted, pytorch-operator). Prints each suite's closing line and
# time, the failures, and the reasons for skips (ops not lowered yet, ops or
# types the importer does not support), then a total. Too slow for
# `make test` (hundreds of kernels compiled for the CPU, models run by
# scalar kernels); compiled kernels are cached, so a second run is faster.
# The known deviations of tests/cli/onnx_node.sh (bfloat16 casts: this test
# data truncates, graft rounds to nearest even, on every device) are listed
# and not counted as failures.
# Usage: sh tests/check_emu.sh [path/to/graft]
top=$(cd "$(dirname "$0")/.." && pwd)
graft=${1:-$top/build/graft}
models="$top/../shared/models/onnx-light"
data=/usr/share/libonnx-testdata/data
known="test_cast_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16_expanded"
log=$(mktemp)
all=$(mktemp)
trap 'rm -f "$log" "$all"' EXIT
start=$(date +%s)
now() { date +%s; }
for name in bvlc_alexnet densenet121 inception_v1 inception_v2 resnet50 shufflenet squeezenet vgg19 zfnet512; do
    rtol=1e-3
    [ "$name" = densenet121 ] && rtol=2e-3
    t0=$(now)
    "$graft" test "$models/$name" -p default --device emu --rtol "$rtol" > "$log" 2>&1
    grep -E '^(PASS|FAIL|SKIP) ' "$log" | tee -a "$all" | sed "s/\$/  ($(( $(now) - t0 )) s)/"
done
for suite in node pytorch-converted pytorch-operator; do
    t0=$(now)
    "$graft" test "$data/$suite" -p default --device emu > "$log" 2>&1
    grep -E '^(PASS|FAIL|SKIP) ' "$log" >> "$all"
    echo "$suite: $(tail -1 "$log")  ($(( $(now) - t0 )) s)"
    grep '^FAIL ' "$log" | head -20 | cut -c1-200 | sed 's/^/  /'
done
echo "skips by reason:"
grep '^SKIP ' "$all" | sed -e 's/^SKIP [^:]*: //' -e 's/^.*\(not lowered yet: [a-z_]* [a-z_0-9]*\).*/\1/' \
    -e 's/^.*\(unsupported[^(:]*\).*/\1/' | cut -c1-80 | sort | uniq -c | sort -rn | head -25
passed=$(grep -c '^PASS ' "$all")
failed=0
for t in $(grep '^FAIL ' "$all" | sed 's/^FAIL \([^:]*\):.*/\1/'); do
    case " $known " in
        *" $t "*) echo "known deviation: $t" ;;
        *) failed=$((failed + 1)) ;;
    esac
done
skipped=$(grep -c '^SKIP ' "$all")
echo "check-emu: $(( $(now) - start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
