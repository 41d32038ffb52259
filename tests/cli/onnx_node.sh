#!/bin/sh
# onnx_node.sh: the ONNX backend node tests (libonnx-testdata: node,
# pytorch-converted, pytorch-operator) through `graft test` on the reference
# executor, as imported and after `-p default`. Every test whose ops graft
# imports must pass; skips (ops or types graft does not support) are counted
# and named by op type, and may not grow past each suite's ceiling below
# (node: the 60 of README's conformance section, every one a string,
# sequence, optional, random or training op; the pytorch suites: none). One line per suite and pipeline,
# plus the summary of what was skipped.
#
# Known deviations, listed with their reason rather than hidden:
#   test_cast_FLOAT_to_BFLOAT16, test_castlike_FLOAT_to_BFLOAT16(_expanded):
#   this test data truncates float to bfloat16; graft's convert rounds to
#   nearest even (what ONNX's Cast specifies from opset 19 on, and what
#   MIGraphX does), so 5 of 12 values differ in the last bfloat16 bit.
. "$(dirname "$0")/lib/common.sh"
data=/usr/share/libonnx-testdata/data
known="test_cast_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16 test_castlike_FLOAT_to_BFLOAT16_expanded"
if [ ! -d "$data/node" ]; then
    echo "FAIL onnx_node: $data/node is missing (apt-get install libonnx-testdata)"
    exit 1
fi
log="$t/log"
for run in "node 60" "pytorch-converted 0" "pytorch-operator 0" "node 60 -p default" \
    "pytorch-converted 0 -p default" "pytorch-operator 0 -p default"; do
    set -- $run
    suite=$1 ceiling=$2
    shift 2
    label=$suite${1:+_default}
    "$GRAFT" test "$data/$suite" "$@" > "$log" 2>&1
    total=$(tail -1 "$log")
    nskipped=$(echo "$total" | sed -n 's/.*, \([0-9]*\) skipped$/\1/p')
    bad=""
    for t in $(grep '^FAIL ' "$log" | sed 's/^FAIL \([^:]*\):.*/\1/'); do
        case " $known " in
            *" $t "*) ;;
            *) bad="$bad $t" ;;
        esac
    done
    if [ -z "$bad" ] && echo "$total" | grep -q 'passed' && [ "${nskipped:-0}" -le "$ceiling" ]; then
        echo "PASS onnx_node_$label ($total)"
    elif [ -n "$bad" ]; then
        echo "FAIL onnx_node_$label: ($total) failing:$bad"
        grep '^FAIL ' "$log" | head -5 | sed 's/^/# /'
    else
        echo "FAIL onnx_node_$label: ($total) more than $ceiling skipped"
    fi
    [ -n "$1" ] && continue
    skipped=$(grep '^SKIP ' "$log" | sed -e 's/.*unsupported \(tensor \)\{0,1\}type \([^ ]*\).*/type_\2/' \
        -e 's/.*unsupported ONNX ops\{0,1\}:\{0,1\} //' \
        -e "s/ (node '[^']*')//" -e 's/ x[0-9]* (first node [^)]*)//g' -e 's/:.*//' | tr ',' '\n' \
        | sed 's/^ *//' | sort | uniq -c | sort -rn | awk '{ if (NR > 1) printf ", "; printf "%s:%s", $2, $1 }')
    [ -n "$skipped" ] && echo "# $suite skipped: $skipped"
done
exit 0
