#!/bin/sh
# onnx_control.sh: ONNX control flow, resolved at import where it can be and
# otherwise imported as graft's `if` and `loop` instructions. The models are
# built here, into the scratch directory, by tests/onnx_control/make_models.py
# (the ONNX helper API from Debian's python3-onnx, which `make deps`
# installs; expected outputs from numpy), so no model file lives in git.
# Resolved at import: an If on a shape-derived condition (both branches) and
# a Loop with a known trip count and a scan output. Instructions: an If on
# the input's values (two data sets, one per branch, two outputs, branches
# reading the main graph's values), a while Loop whose condition comes from
# the data with an If inside its body, and a Loop over the unroll limit
# with a scan output. All must match with and without -p default, and the
# dump of an if and a loop must read back and run the same. On the emu
# device (the generated kernels on the CPU, waves 64 and 32) every model
# must match too: the run-time loops are lowered (a loop entry in the
# launch plan around the body's kernels) and the plan.json of a compiled
# loop describes it.
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
set -- "$dir/if_shape_then" "$dir/if_shape_else" "$dir/loop_known_trips" "$dir/if_value" \
    "$dir/loop_while" "$dir/loop_long"
expect onnx_control_models 0 "$GRAFT" test "$@" &&
    has onnx_control_models_pass "$t/out" '^6 passed, 0 failed, 0 skipped$'
expect onnx_control_models_default 0 "$GRAFT" test -p default "$@" &&
    has onnx_control_models_default_pass "$t/out" '^6 passed, 0 failed, 0 skipped$'
for wave in 64 32; do
    expect onnx_control_models_emu_$wave 0 "$GRAFT" test --device emu --wave $wave "$@" &&
        has onnx_control_models_emu_${wave}_pass "$t/out" '^6 passed, 0 failed, 0 skipped$'
    expect onnx_control_models_emu_default_$wave 0 "$GRAFT" test -p default --device emu \
        --wave $wave "$@" &&
        has onnx_control_models_emu_default_${wave}_pass "$t/out" '^6 passed, 0 failed, 0 skipped$'
done
# the while loop runs as kernels (not the reference) and its plan has the loop
expect onnx_control_loop_emu_run 0 "$GRAFT" run "$dir/loop_while/model.onnx" --device emu \
    --seed 5 --compare "$dir/loop_while/model.onnx" &&
    has onnx_control_loop_emu_ran "$t/out" 'ran [0-9]* kernels on emu'
expect onnx_control_loop_compile 0 "$GRAFT" compile "$dir/loop_long/model.onnx" -o "$t/long_co" \
    --arch gfx90a &&
    has onnx_control_loop_plan "$t/long_co/plan.json" \
        '"body": \[[0-9]*, [0-9]*\], "trip_count": {"buffer": [0-9]*, "element": 0}, "condition": {"buffer": [0-9]*, "element": 0}, "max_iterations": 1500}' &&
    has onnx_control_loop_commit_kernel "$t/long_co/plan.json" '"kind": "loop_commit"'

# what cannot be settled at import stays control flow: an if with two
# branch modules, a loop with a body module (and an if inside it)
expect onnx_control_if_print 0 "$GRAFT" print "$dir/if_value/model.onnx" -o "$t/if.txt" &&
    has onnx_control_if_instruction "$t/if.txt" '= if\(.*\), \[main:then0, main:else1\] -> \['
expect onnx_control_loop_print 0 "$GRAFT" print "$dir/loop_while/model.onnx" -o "$t/loop.txt" &&
    has onnx_control_loop_instruction "$t/loop.txt" \
        '= loop\[states=2,max_iterations=-1\]\(.*\), \[main:body0\] -> \[' &&
    has onnx_control_loop_nested_if "$t/loop.txt" '= if\(.*\), \[main:body0:then1, main:body0:else2\]'
expect onnx_control_long_print 0 "$GRAFT" print "$dir/loop_long/model.onnx" -o "$t/long.txt" &&
    has onnx_control_long_instruction "$t/long.txt" \
        '= loop\[states=1,max_iterations=1500\].* -> \[float_type, \{2\}, \{1\}, float_type, \{1500, 2\}'
# the dumps read back and compute what the models do, on random inputs
expect onnx_control_if_dump_runs 0 "$GRAFT" run "$t/if.txt" --seed 5 \
    --compare "$dir/if_value/model.onnx"
expect onnx_control_loop_dump_runs 0 "$GRAFT" run "$t/loop.txt" --seed 5 \
    --compare "$dir/loop_while/model.onnx"
# rules run inside the branches: the broadcast literal folds there
expect onnx_control_rules_inside 0 "$GRAFT" opt -p default --verify "$t/if.txt" &&
    has onnx_control_rules_inside_then "$t/out" '^main:then0:@[0-9]* = @literal\{b64:[^}]*\} -> float_type, \{2, 3\}, \{0, 0\}$'
