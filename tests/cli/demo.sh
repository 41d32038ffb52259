#!/bin/sh
# tests/cli/demo.sh: `make demo` stays true. examples/demo.sh runs the
# flagship example end to end with this build's graft: it must exit 0, fuse
# the UNet block into two kernels with no fill or copy, write hiprtc code
# objects for both default architectures, and the generated kernels on emu
# must agree with the reference executor. Prints PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"

if sh "$TOP/examples/demo.sh" "$GRAFT" > "$t/out" 2> "$t/err"; then
    pass demo_runs
else
    fail demo_runs "exit $?; stderr: $(head -c 300 "$t/err" | tr '\n' ' ')"
fi
grep -q 'kernels *16 -> 2 (fills 0, copies 0)' "$t/out" && pass demo_fuses_two_kernels ||
    fail demo_fuses_two_kernels "no 'kernels 16 -> 2 (fills 0, copies 0)' line"
[ "$(grep -c '^  unet_hip/gfx90a/.*\.co$' "$t/out")" = 2 ] &&
    [ "$(grep -c '^  unet_hip/gfx1030/.*\.co$' "$t/out")" = 2 ] && pass demo_code_objects ||
    fail demo_code_objects "expected two .co files for each of gfx90a and gfx1030"
# the last comparison printed is step 8's, emu against the reference
grep -q 'ran 2 kernels on emu' "$t/out" &&
    grep '^  output0: max abs' "$t/out" | tail -n 1 | grep -q ' ok$' &&
    pass demo_emu_equals_reference ||
    fail demo_emu_equals_reference "the emu run did not compare ok: $(tail -n 2 "$t/out" | tr '\n' ' ')"
