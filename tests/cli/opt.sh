#!/bin/sh
# tests/cli/opt.sh: `graft opt`: pipelines, --stats [json], --trace,
# --disable, --max-rewrites, --max-sweeps, --seed-order, --shapes, --verify, -o, and the
# usage errors. Prints one line per test: PASS name or FAIL name: why.
. "$(dirname "$0")/lib/common.sh"
tmp=$t

cat > "$tmp/pairs.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}
@1 = transpose[permutation={1, 0, 2}](x)
@2 = transpose[permutation={1, 0, 2}](@1)
@3 = relu(@2)
@4 = transpose[permutation={2, 1, 0}](@3)
@5 = transpose[permutation={2, 1, 0}](@4)
@6 = neg(@5)
@7 = @return(@6)
G

# help
if "$GRAFT" opt --help > "$tmp/out" 2>&1 && grep -q -- "--max-rewrites" "$tmp/out" &&
   grep -q "default" "$tmp/out"; then pass opt_help; else fail opt_help "no usage text"; fi

# -p fold folds the transpose pairs away; the result is a valid graph
if "$GRAFT" opt "$tmp/pairs.txt" -p fold -o "$tmp/folded.txt" 2> "$tmp/err" &&
   ! grep -q transpose "$tmp/folded.txt" && grep -q "relu(x)" "$tmp/folded.txt" &&
   "$GRAFT" check "$tmp/folded.txt" > /dev/null 2>&1; then
    pass opt_fold
else fail opt_fold "$(cat "$tmp/err" "$tmp/folded.txt" 2>/dev/null | head -5)"; fi

# --stats json: one object with the contract's keys
"$GRAFT" opt "$tmp/pairs.txt" -p fold --stats json > "$tmp/json" 2> "$tmp/err"
st=$?
missing=""
for key in instructions_before instructions_after kernels fills copies rewrites rules \
           rule_stats compute_shape_calls converged ms; do
    grep -q "\"$key\":" "$tmp/json" || missing="$missing $key"
done
if [ $st -eq 0 ] && [ -z "$missing" ] && [ "$(wc -l < "$tmp/json")" -eq 1 ] &&
   grep -q '"instructions_before":8,' "$tmp/json" && grep -q '"instructions_after":4,' "$tmp/json" &&
   grep -q '"rewrites":4,' "$tmp/json" && grep -q '"converged":true' "$tmp/json" &&
   grep -q '"transpose_of_transpose":2' "$tmp/json" && grep -q '"kernels":2,' "$tmp/json"; then
    pass opt_stats_json
else fail opt_stats_json "status $st, missing:$missing, got $(head -c 400 "$tmp/json")"; fi
if command -v python3 > /dev/null 2>&1; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rule_stats"]["identity_transpose"]["fires"] == 2' "$tmp/json" 2> "$tmp/err"; then
        pass opt_stats_json_parses
    else fail opt_stats_json_parses "$(cat "$tmp/err" | tail -1)"; fi
fi

# --stats: a readable table
if "$GRAFT" opt "$tmp/pairs.txt" -p fold --stats > "$tmp/table" 2>&1 &&
   grep -q "^rewrites  *4" "$tmp/table" && grep -q "transpose_of_transpose .* fold .* 2 " "$tmp/table"; then
    pass opt_stats_table
else fail opt_stats_table "$(head -5 "$tmp/table")"; fi

# --trace names the rule, its file:line and the instructions before/after
if "$GRAFT" opt "$tmp/pairs.txt" -p fold --trace -o "$tmp/t.txt" 2> "$tmp/trace" &&
   grep -q "^fire transpose_of_transpose (rules/fold.rules:[0-9]*)" "$tmp/trace" &&
   grep -q "^  - @2 = transpose" "$tmp/trace" && grep -q "^  + " "$tmp/trace"; then
    pass opt_trace
else fail opt_trace "$(head -5 "$tmp/trace")"; fi

# the library never prints: no --trace, nothing on stderr
"$GRAFT" opt "$tmp/pairs.txt" -p fold -o "$tmp/t.txt" 2> "$tmp/err"
if [ ! -s "$tmp/err" ]; then pass opt_quiet; else fail opt_quiet "$(head -2 "$tmp/err")"; fi

# --disable keeps a rule from firing; an unknown rule name is an error
if "$GRAFT" opt "$tmp/pairs.txt" -p fold --disable identity_transpose -o "$tmp/d.txt" 2> "$tmp/err" &&
   grep -q "transpose\[permutation={0, 1, 2}\]" "$tmp/d.txt"; then
    pass opt_disable
else fail opt_disable "$(cat "$tmp/err" "$tmp/d.txt" | head -5)"; fi
"$GRAFT" opt "$tmp/pairs.txt" -p fold --disable no_such_rule > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "no_such_rule" "$tmp/err"; then pass opt_disable_unknown
else fail opt_disable_unknown "status $st: $(cat "$tmp/err")"; fi

# --max-rewrites N stops after exactly N rewrites, not converged
"$GRAFT" opt "$tmp/pairs.txt" -p fold --max-rewrites 1 --stats json > "$tmp/json" 2> "$tmp/err"
if grep -q '"rewrites":1,' "$tmp/json" && grep -q '"converged":false' "$tmp/json" &&
   grep -q '"stop":"max rewrites"' "$tmp/json"; then
    pass opt_max_rewrites
else fail opt_max_rewrites "$(head -c 300 "$tmp/json") $(cat "$tmp/err")"; fi

# --max-sweeps N bounds the sweeps: one sweep that changes the graph cannot
# also be the sweep that finds nothing left, so 1 does not converge (exit 1
# naming the option, a warning with --allow-nonconvergence); a bound the
# run stays under gives the default's graph
"$GRAFT" opt "$tmp/pairs.txt" -p fold --max-sweeps 1 > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "did not converge: every one of 1 sweeps changed the graph (--max-sweeps)" "$tmp/err"; then
    pass opt_max_sweeps_not_converged
else fail opt_max_sweeps_not_converged "status $st: $(cat "$tmp/err")"; fi
"$GRAFT" opt "$tmp/pairs.txt" -p fold --max-sweeps 1 --allow-nonconvergence --stats json > "$tmp/json" 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] && grep -q '"converged":false' "$tmp/json" && grep -q '"stop":"max iterations"' "$tmp/json"; then
    pass opt_max_sweeps_allowed
else fail opt_max_sweeps_allowed "status $st: $(head -c 300 "$tmp/json") $(cat "$tmp/err")"; fi
"$GRAFT" opt "$tmp/pairs.txt" -p fold -o "$tmp/sw10.txt" 2> /dev/null
"$GRAFT" opt "$tmp/pairs.txt" -p fold --max-sweeps 40 -o "$tmp/sw40.txt" 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] && cmp -s "$tmp/sw10.txt" "$tmp/sw40.txt"; then pass opt_max_sweeps_converged
else fail opt_max_sweeps_converged "status $st: $(cat "$tmp/err")"; fi
for bad in 0 -3 lots; do
    "$GRAFT" opt "$tmp/pairs.txt" -p fold --max-sweeps "$bad" > /dev/null 2> "$tmp/err"
    st=$?
    if [ $st -eq 2 ] && grep -q -- "--max-sweeps needs a count of at least 1" "$tmp/err"; then pass "opt_bad_max_sweeps_$bad"
    else fail "opt_bad_max_sweeps_$bad" "status $st: $(cat "$tmp/err")"; fi
done

# --seed-order N reaches the same graph as program order
"$GRAFT" opt "$tmp/pairs.txt" -p fold -o "$tmp/a.txt" 2> /dev/null
same=yes
for seed in 1 2 3 4 5; do
    "$GRAFT" opt "$tmp/pairs.txt" -p fold --seed-order $seed -o "$tmp/b.txt" 2> /dev/null
    cmp -s "$tmp/a.txt" "$tmp/b.txt" || same="no (seed $seed)"
done
if [ "$same" = yes ]; then pass opt_seed_order; else fail opt_seed_order "$same"; fi

# --shapes eager gives the same graph as lazy
"$GRAFT" opt "$tmp/pairs.txt" -p fold --shapes eager -o "$tmp/e.txt" 2> /dev/null
if cmp -s "$tmp/a.txt" "$tmp/e.txt"; then pass opt_shapes_eager; else fail opt_shapes_eager "graphs differ"; fi

# --verify on a real block: numerically equal, max errors printed
if "$GRAFT" opt "$TOP/examples/unet_groupnorm.txt" -p fold --verify -o "$tmp/u.txt" 2> "$tmp/err" &&
   grep -q "^verify output0: max abs error" "$tmp/err"; then
    pass opt_verify
else fail opt_verify "$(head -3 "$tmp/err")"; fi

# --verify catches a wrong rule (-r: a user rule file; needs a C compiler)
cat > "$tmp/wrong.rules" <<'R'
# Wrong on purpose: relu is not the identity.
rule drop_relu
    r = relu(x)
    => x
R
"$GRAFT" opt "$tmp/pairs.txt" -r "$tmp/wrong.rules" --verify -o "$tmp/w.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "MISMATCH" "$tmp/err" && grep -q "computes different values" "$tmp/err"; then
    pass opt_verify_catches_wrong_rule
elif grep -q -i "compiler" "$tmp/err"; then
    pass opt_verify_catches_wrong_rule_skipped_no_compiler
else fail opt_verify_catches_wrong_rule "status $st: $(head -3 "$tmp/err")"; fi

# --verify names the guilty rule: a wrong rule (add_is_sub) fires third, after
# two correct ones and before a fourth; the bisection over the rewrites finds
# rewrite 3 and names the rule, its file:line and the instruction (name, op)
cat > "$tmp/chain.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
y = @param:y -> float_type, {2, 3}, {3, 1}
@1 = neg(x) -> float_type, {2, 3}, {3, 1}
@2 = neg(@1) -> float_type, {2, 3}, {3, 1}
@3 = relu(@2) -> float_type, {2, 3}, {3, 1}
@4 = relu(@3) -> float_type, {2, 3}, {3, 1}
@5 = add(@4, y) -> float_type, {2, 3}, {3, 1}
@6 = abs(@5) -> float_type, {2, 3}, {3, 1}
@7 = abs(@6) -> float_type, {2, 3}, {3, 1}
@8 = @return(@7)
G
cat > "$tmp/guilty.rules" <<'R'
# Correct: two negations cancel.
rule double_negation
    neg(neg(x))
    => x

# Correct: relu is idempotent.
rule relu_of_relu
    r = relu(relu(x))
    => relu(x)

# Wrong on purpose: an add is not a sub.
rule add_is_sub nonterminating
    add(x, y)
    => sub(x, y)

# Correct: abs is idempotent.
rule abs_of_abs
    abs(a = abs(x))
    => a
R
"$GRAFT" opt "$tmp/chain.txt" -r "$tmp/guilty.rules" --verify -o "$tmp/w.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "the values first differ after rewrite 3 of 4:" "$tmp/err" &&
   grep -q "^  rule add_is_sub (.*guilty.rules:12) \[guilty\] at @5 (add)$" "$tmp/err" &&
   grep -q "^  + .* = sub(" "$tmp/err"; then
    pass opt_verify_names_guilty_rule
elif grep -q -i "compiler" "$tmp/err"; then
    pass opt_verify_names_guilty_rule_skipped_no_compiler
else fail opt_verify_names_guilty_rule "status $st: $(head -12 "$tmp/err")"; fi
# the correct rules alone pass (the bisection does not run, nothing is named)
"$GRAFT" opt "$tmp/chain.txt" -r "$tmp/guilty.rules" --disable add_is_sub --verify -o "$tmp/w.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] && ! grep -q "first differ" "$tmp/err"; then pass opt_verify_correct_rules_pass
elif grep -q -i "compiler" "$tmp/err"; then pass opt_verify_correct_rules_pass_skipped_no_compiler
else fail opt_verify_correct_rules_pass "status $st: $(head -5 "$tmp/err")"; fi

# an infinite output that a wrong rule turns finite is a mismatch: atol +
# rtol * |inf| must not let 0 pass for inf (x / 0 -> x * 0)
cat > "$tmp/inf.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
ax = abs(x) -> float_type, {2, 3}, {3, 1}
one = @literal{1, 1, 1, 1, 1, 1} -> float_type, {2, 3}, {3, 1}
p = add(ax, one) -> float_type, {2, 3}, {3, 1}
z = @literal{0, 0, 0, 0, 0, 0} -> float_type, {2, 3}, {3, 1}
q = div(p, z) -> float_type, {2, 3}, {3, 1}
@r = @return(q)
G
cat > "$tmp/inf.rules" <<'R'
# Wrong on purpose: a division is not a product.
rule div_is_mul nonterminating
    div(x, y)
    => mul(x, y)
R
"$GRAFT" opt "$tmp/inf.txt" -r "$tmp/inf.rules" --verify -o "$tmp/w.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "MISMATCH" "$tmp/err" && grep -q "rule div_is_mul" "$tmp/err"; then
    pass opt_verify_infinity_is_not_zero
elif grep -q -i "compiler" "$tmp/err"; then
    pass opt_verify_infinity_is_not_zero_skipped_no_compiler
else fail opt_verify_infinity_is_not_zero "status $st: $(head -8 "$tmp/err")"; fi

# --explain RULE: why a rule does not fire, the first failing test with the
# file:line:col of that part of the rule: a guard, an attribute, an op (with
# the instruction the test looked at), :once
cat > "$tmp/explain.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = transpose[permutation={1, 0}](x) -> float_type, {3, 2}, {1, 3}
@2 = relu(@1) -> float_type, {3, 2}, {1, 3}
@3 = exp(@2) -> float_type, {3, 2}, {1, 3}
@4 = relu(@3) -> float_type, {3, 2}, {1, 3}
@5 = pad[pads={0, 1, 0, 1}, mode=constant, value=1](@4) -> float_type, {3, 4}, {1, 3}
@6 = neg(@5) -> float_type, {3, 4}, {1, 3}
@7 = abs(@5) -> float_type, {3, 4}, {1, 3}
@8 = add(@6, @7) -> float_type, {3, 4}, {1, 3}
@9 = @return(@8)
G
cat > "$tmp/explain.rules" <<'R'
rule relu_of_relu
    r = relu(relu(x))
    => relu(x)

rule transpose_id
    t = transpose[permutation=p](x)  if is_identity(p)
    => x

rule pad_zero
    pad[mode=constant, value=0](x)
    => x

rule neg_of_once
    neg(x:once)
    => x
R
explain() { # RULE: runs --explain RULE into $tmp/explain.err
    "$GRAFT" opt "$tmp/explain.txt" -r "$tmp/explain.rules" --explain "$1" -o "$tmp/e.txt" > /dev/null 2> "$tmp/explain.err"
}
if explain transpose_id; then
    if grep -q "^explain transpose_id (.*explain.rules:5) \[explain\] at @1 (transpose): .*explain.rules:6:38: failed guard: if is_identity(p)$" "$tmp/explain.err" &&
       grep -q "^explain transpose_id: tried on 1 instruction: 1 failed" "$tmp/explain.err"; then
        pass opt_explain_guard
    else fail opt_explain_guard "$(head -4 "$tmp/explain.err")"; fi
    explain pad_zero
    if grep -q "at @5 (pad): .*explain.rules:10:24: failed attribute test: the root has value=0$" "$tmp/explain.err" &&
       grep -q "^  - @5 = pad\[" "$tmp/explain.err"; then
        pass opt_explain_attribute
    else fail opt_explain_attribute "$(head -4 "$tmp/explain.err")"; fi
    explain relu_of_relu
    if grep -q "at @2 (relu): .*explain.rules:2:14: failed op test: operand 0 is a relu$" "$tmp/explain.err" &&
       grep -q "^  found @1 = transpose" "$tmp/explain.err" &&
       grep -q "at @4 (relu): .*failed op test" "$tmp/explain.err" &&
       grep -q "^  found @3 = exp" "$tmp/explain.err" &&
       grep -q "tried on 2 instructions: 2 failed" "$tmp/explain.err"; then
        pass opt_explain_op
    else fail opt_explain_op "$(head -8 "$tmp/explain.err")"; fi
    explain neg_of_once
    if grep -q "at @6 (neg): .*explain.rules:14:9: failed :once test: operand 0 has exactly one use$" "$tmp/explain.err"; then
        pass opt_explain_once
    else fail opt_explain_once "$(head -4 "$tmp/explain.err")"; fi
elif grep -q -i "compiler" "$tmp/explain.err"; then
    pass opt_explain_skipped_no_compiler
else fail opt_explain_guard "$(head -4 "$tmp/explain.err")"; fi
# a built-in rule (no compiler needed) that fires everywhere it applies is
# reported as tried on nothing; one that cannot fire names its first test;
# an unknown rule is an error
"$GRAFT" opt "$tmp/pairs.txt" -p fold --explain add_zero -o "$tmp/e.txt" 2> "$tmp/explain.err"
st1=$?
"$GRAFT" opt "$tmp/explain.txt" -p fold --explain identity_transpose -o "$tmp/e.txt" 2> "$tmp/explain2.err"
st2=$?
"$GRAFT" opt "$tmp/pairs.txt" -p fold --explain no_such_rule -o "$tmp/e.txt" 2> "$tmp/explain3.err"
st3=$?
if [ $st1 -eq 0 ] && grep -q "^explain add_zero: no instruction at a fixpoint has an op the rule applies to$" "$tmp/explain.err" &&
   [ $st2 -eq 0 ] && grep -q "^explain identity_transpose (rules/fold.rules:[0-9]*) \[fold\] at @1 (transpose): rules/fold.rules:[0-9]*:[0-9]*: failed guard: if is_identity(t.permutation)$" "$tmp/explain2.err" &&
   [ $st3 -eq 1 ] && grep -q "no_such_rule: no rule of that name" "$tmp/explain3.err"; then
    pass opt_explain_builtin
else fail opt_explain_builtin "$st1 $st2 $st3: $(head -3 "$tmp/explain.err" "$tmp/explain2.err" "$tmp/explain3.err")"; fi

# --explain on a rule whose replacement is refused: c = add(p, gather(p))
# matches fuse_binary_of_pointwise_first, but putting p and c in one region
# would create a cycle through the gather, which no kernel takes in;
# instructions inside region bodies are never tried
cat > "$tmp/cycle.txt" <<'G'
module: "main"
x = @param:x -> float_type, {4, 3}, {3, 1}
idx = @literal{3, 2, 1, 0} -> int64_type, {4}, {1}
p = relu(x) -> float_type, {4, 3}, {3, 1}
q = gather[axis=0](p,idx) -> float_type, {4, 3}, {3, 1}
c = add(p,q) -> float_type, {4, 3}, {3, 1}
@ret = @return(c)
G
"$GRAFT" opt "$tmp/cycle.txt" -p default --explain fuse_binary_of_pointwise_first -o "$tmp/e.txt" 2> "$tmp/explain.err"
st=$?
if [ $st -eq 0 ] &&
   grep -q "at c (add): the pattern and every guard hold, but at rules/fuse.rules:[0-9]*:[0-9]* the merge was refused (it would create a cycle" "$tmp/explain.err" &&
   grep -q "matched but the replacement was refused" "$tmp/explain.err" &&
   ! grep -q "^explain .* at main:fused" "$tmp/explain.err"; then
    pass opt_explain_replacement_refused
else fail opt_explain_replacement_refused "status $st: $(head -6 "$tmp/explain.err")"; fi

# usage errors exit 2; bad input exits 1
"$GRAFT" opt "$tmp/pairs.txt" -p no_such_pipeline > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 2 ] && grep -q "unknown pipeline 'no_such_pipeline'" "$tmp/err"; then pass opt_unknown_pipeline
else fail opt_unknown_pipeline "status $st: $(cat "$tmp/err")"; fi
"$GRAFT" opt "$tmp/pairs.txt" --shapes sometimes > /dev/null 2>&1
st=$?
if [ $st -eq 2 ]; then pass opt_bad_shapes_mode; else fail opt_bad_shapes_mode "status $st"; fi
"$GRAFT" opt "$tmp/pairs.txt" --max-rewrites lots > /dev/null 2>&1
st=$?
if [ $st -eq 2 ]; then pass opt_bad_max_rewrites; else fail opt_bad_max_rewrites "status $st"; fi
"$GRAFT" opt > /dev/null 2>&1
st=$?
if [ $st -eq 2 ]; then pass opt_no_graph; else fail opt_no_graph "status $st"; fi
"$GRAFT" opt "$tmp/missing.txt" -p fold > /dev/null 2>&1
st=$?
if [ $st -eq 1 ]; then pass opt_missing_graph; else fail opt_missing_graph "status $st"; fi

# a pipeline whose rule sets are not built says so clearly (or runs)
"$GRAFT" opt "$tmp/pairs.txt" -p default -o "$tmp/p.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] || { [ $st -eq 1 ] && grep -q "which this graft was built without" "$tmp/err"; }; then
    pass opt_pipeline_default
else fail opt_pipeline_default "status $st: $(cat "$tmp/err")"; fi

# seed 001 through the CLI: numerically equal under every pipeline that exists
for p in fold default; do
    "$GRAFT" opt "$TOP/examples/seed001_dot_transpose_relu.txt" -p $p --verify -o "$tmp/s.txt" > /dev/null 2> "$tmp/err"
    st=$?
    if [ $st -eq 0 ] || grep -q "which this graft was built without" "$tmp/err"; then pass "opt_seed001_$p"
    else fail "opt_seed001_$p" "status $st: $(head -3 "$tmp/err")"; fi
done

# Non-convergence: two nonterminating rules that undo each other ping-pong
# until their fire budget runs out. That exits 1 naming both rules, unless
# --allow-nonconvergence makes it a warning (exit 0, the dump still written).
cat > "$tmp/pingpong.rules" <<'R'
rule neg_below_transpose nonterminating
    u = neg(t = transpose(x))
    => t(u(x))

rule neg_above_transpose nonterminating
    t = transpose(u = neg(x))
    => u(t(x))
R
cat > "$tmp/pp.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = transpose[permutation={1, 0}](x)
@2 = neg(@1)
@3 = @return(@2)
G
"$GRAFT" opt "$tmp/pp.txt" -r "$tmp/pingpong.rules" -o "$tmp/pp_out.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 1 ] && grep -q "^graft opt: did not converge: a nonterminating rule used up its fire budget" "$tmp/err" &&
   grep -q "neg_below_transpose at .*pingpong.rules:1" "$tmp/err" &&
   grep -q "neg_above_transpose at .*pingpong.rules:5" "$tmp/err" &&
   grep -q -- "--allow-nonconvergence" "$tmp/err"; then
    pass opt_nonconvergence_exit_1
else fail opt_nonconvergence_exit_1 "status $st: $(cat "$tmp/err")"; fi
rm -f "$tmp/pp_out.txt"
"$GRAFT" opt "$tmp/pp.txt" -r "$tmp/pingpong.rules" --allow-nonconvergence -o "$tmp/pp_out.txt" > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] && grep -q "^graft opt: warning: did not converge: a nonterminating rule" "$tmp/err" &&
   grep -q "neg(" "$tmp/pp_out.txt"; then
    pass opt_allow_nonconvergence
else fail opt_allow_nonconvergence "status $st: $(cat "$tmp/err")"; fi
# --max-rewrites stops where asked: not a failure
"$GRAFT" opt "$tmp/pp.txt" -r "$tmp/pingpong.rules" --max-rewrites 3 > /dev/null 2> "$tmp/err"
st=$?
if [ $st -eq 0 ] && ! grep -q "converge" "$tmp/err"; then pass opt_max_rewrites_not_nonconvergence
else fail opt_max_rewrites_not_nonconvergence "status $st: $(cat "$tmp/err")"; fi
"$GRAFT" opt --help | grep -q -- "--allow-nonconvergence" && pass opt_help_nonconvergence ||
    fail opt_help_nonconvergence "--help does not mention --allow-nonconvergence"

# --stats counts the main graph, and region bodies apart: SiLU (x * sigmoid(x))
# fused into one region is 5 -> 4 instructions, plus 4 in the body (its
# parameter, sigmoid, mul, return), not 5 -> 8.
cat > "$tmp/silu.rules" <<'R'
rule silu_region
    m = mul(x, s = sigmoid(x))
    => region(s, m) -> (m)
R
cat > "$tmp/silu.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = exp(x)
@2 = sigmoid(@1)
@3 = mul(@1, @2)
@4 = @return(@3)
G
if "$GRAFT" opt "$tmp/silu.txt" -r "$tmp/silu.rules" --stats > "$tmp/out" 2> "$tmp/err" &&
   grep -q "^instructions         5 -> 4 (+ 4 in region bodies)$" "$tmp/out"; then
    pass opt_stats_region_bodies
else fail opt_stats_region_bodies "$(cat "$tmp/err") $(sed -n 2p "$tmp/out")"; fi
if "$GRAFT" opt "$tmp/silu.txt" -r "$tmp/silu.rules" --stats json > "$tmp/json" 2> "$tmp/err" &&
   grep -q '"instructions_before":5,"instructions_after":4,"instructions_in_regions_before":0,"instructions_in_regions":4,' "$tmp/json"; then
    pass opt_stats_json_region_bodies
else fail opt_stats_json_region_bodies "$(cat "$tmp/err") $(cut -c1-200 "$tmp/json")"; fi
# without regions the line has no region part
"$GRAFT" opt "$tmp/pairs.txt" -p fold --stats > "$tmp/out" 2>&1
if grep -q "^instructions         8 -> 4$" "$tmp/out"; then pass opt_stats_no_regions
else fail opt_stats_no_regions "$(sed -n 2p "$tmp/out")"; fi
exit 0
