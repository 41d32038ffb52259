#!/bin/sh
# huge.sh: `graft run` on values too large for the machine fails at once,
# naming the value (an input, an instruction's result, or the operands a
# kernel works on), its type and lens and the bytes it needs; it never
# prints a bare "out of memory" and never touches the memory first. The
# sizes (400 TB) are beyond any machine, so the results do not depend on it.
#
# Environment (from tests/run.sh): GRAFT. Prints "PASS name" or
# "FAIL name: why" per test.
GRAFT=${GRAFT:-build/graft}
. "$(dirname "$0")/lib/common.sh"

cat > "$t/input.txt" <<'G'
module: "main"
x = @param:x -> float_type, {10000000, 10000000}, {10000000, 1}
@1 = relu(x)
@2 = @return(@1)
G
expect huge_input 1 "$GRAFT" run "$t/input.txt" &&
    has huge_input_named "$t/err" \
        "^graft run: input 'x' \(float_type \{10000000, 10000000\}\) needs 400000000000000 bytes \(372529\.0 GiB\), more than the memory available \([0-9.]+ GiB\)$"

# 10M-element inputs, broadcast: the sum is what does not fit.
cat > "$t/result.txt" <<'G'
module: "main"
x = @param:x -> float_type, {10000000, 1}, {1, 1}
y = @param:y -> float_type, {1, 10000000}, {10000000, 1}
@2 = multibroadcast[out_lens={10000000, 10000000}](x)
@3 = multibroadcast[out_lens={10000000, 10000000}](y)
@4 = add(@2, @3)
@5 = @return(@4)
G
expect huge_result 1 "$GRAFT" run "$t/result.txt" &&
    has huge_result_named "$t/err" \
        "^graft run: ins @4: the result of add \(float_type \{10000000, 10000000\}\) needs 400000000000000 bytes"

# relu of a broadcast literal keeps the broadcast (4 bytes), but the kernel's
# working copies cannot be had.
cat > "$t/kernel.txt" <<'G'
module: "main"
@0 = @literal{1.5} -> float_type, {1}, {0}
@1 = multibroadcast[out_lens={10000000, 10000000}](@0)
@2 = relu(@1)
@3 = @return(@2)
G
expect huge_kernel 1 "$GRAFT" run "$t/kernel.txt" &&
    has huge_kernel_named "$t/err" \
        "^graft run: ins @2: relu: out of memory for working copies of 100000000000000 elements \(float_type \{10000000, 10000000\}: at least 400000000000000 bytes"

# no bare "out of memory" anywhere
for g in input result kernel; do "$GRAFT" run "$t/$g.txt"; done > /dev/null 2> "$t/all"
if grep -q "out of memory$" "$t/all" || [ "$(grep -c . "$t/all")" -ne 3 ]; then
    fail huge_no_bare_message "$(cat "$t/all")"
else pass huge_no_bare_message; fi
exit 0
