#!/bin/sh
# dsl.sh: the rule language from the command line (`graft rules`, `graft opt
# -p fold`). Every tests/dsl_fail/NAME.rules carries a first-line comment
# "# error: FILE:LINE:COL: message" that graft rules must print exactly (exit
# 1; a file with several errors has one such line per error, in order); every
# tests/dsl_pass and rules/ file must be accepted, printing exactly the
# warnings its "# warning: MESSAGE" first lines give (none for rules/); the emitted C
# names rules and their file:line; fold.rules runs end to end.
. "$(dirname "$0")/lib/common.sh"
tmp=$t
cd "$TOP" || exit 1

for f in tests/dsl_fail/*.rules; do
    name=fail_$(basename "$f" .rules)
    want=$(sed -n '/^# error: /!q;s/^# error: //p' "$f")
    if [ -z "$want" ]; then
        fail "$name" "no '# error:' line"
        continue
    fi
    got=$("$GRAFT" rules "$f" 2>&1 >/dev/null)
    st=$?
    if [ "$st" -ne 1 ]; then
        fail "$name" "exit status $st, expected 1"
    elif [ "$got" != "$want" ]; then
        fail "$name" "got '$got', expected '$want'"
    else
        pass "$name"
    fi
done

# Accepted files print exactly the warnings their "# warning: " lines give
# (none for most: rules/ must print none).
for f in tests/dsl_pass/*.rules rules/*.rules; do
    name=pass_$(basename "$f" .rules)
    want=$(sed -n '/^# warning: /!q;s/^# warning: //p' "$f")
    if ! got=$("$GRAFT" rules "$f" 2>&1 >/dev/null); then
        fail "$name" "$got"
    elif [ "$got" != "$want" ]; then
        fail "$name" "warnings: got '$got', expected '$want'"
    else
        pass "$name"
    fi
done

# The rank table in docs/rules.md is graft rules --ranks's output, so it
# cannot drift from the op table it is generated from.
"$GRAFT" rules --ranks > "$tmp/ranks.md" 2> "$tmp/ranks.err"
sed -n '/^<!-- ranks: /,/^<!-- end ranks -->/p' docs/rules.md | sed '1d;$d' > "$tmp/ranks_doc.md"
if [ -s "$tmp/ranks.md" ] && cmp -s "$tmp/ranks.md" "$tmp/ranks_doc.md" &&
   grep -q '^| pointwise | .*`add`, `sub`, `mul`' "$tmp/ranks.md"; then
    pass ranks_table_in_docs
else
    fail ranks_table_in_docs "docs/rules.md's table differs from graft rules --ranks: $(diff "$tmp/ranks_doc.md" "$tmp/ranks.md" | head -3)"
fi

# The rules the rank order accepts run and converge: mul(x, 2) becomes
# add(x, x) and the sigmoid a region of one op, with the same values.
cat > "$tmp/ranks.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
@1 = @literal{2, 2, 2, 2, 2, 2} -> float_type, {2, 3}, {3, 1}
@2 = mul(x, @1) -> float_type, {2, 3}, {3, 1}
@3 = sigmoid(@2) -> float_type, {2, 3}, {3, 1}
@4 = @return(@3)
G
if "$GRAFT" opt "$tmp/ranks.txt" -r tests/dsl_pass/ranks.rules --verify -o "$tmp/ranks_out.txt" 2> "$tmp/ranks_run.err" &&
   grep -q "= add(x,x)" "$tmp/ranks_out.txt" && grep -q "= fused(" "$tmp/ranks_out.txt" &&
   ! grep -q "= mul(" "$tmp/ranks_out.txt"; then
    pass ranks_rules_run
elif grep -q -i "compiler" "$tmp/ranks_run.err"; then
    pass ranks_rules_run_skipped_no_compiler
else
    fail ranks_rules_run "$(head -3 "$tmp/ranks_run.err" "$tmp/ranks_out.txt")"
fi

# Predicates run as the guards they stand for: the two transposes of the
# matrix compose and the identity goes (has_rank(x, 2), identity_view); those
# of the rank-3 value stay, as has_rank says no there.
cat > "$tmp/predicates.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3}, {3, 1}
y = @param:y -> float_type, {2, 3, 4}, {12, 4, 1}
@1 = transpose[permutation={1, 0}](x) -> float_type, {3, 2}, {1, 3}
@2 = transpose[permutation={1, 0}](@1) -> float_type, {2, 3}, {3, 1}
@3 = relu(@2) -> float_type, {2, 3}, {3, 1}
@4 = transpose[permutation={1, 0, 2}](y) -> float_type, {3, 2, 4}, {4, 12, 1}
@5 = transpose[permutation={1, 0, 2}](@4) -> float_type, {2, 3, 4}, {12, 4, 1}
@6 = relu(@5) -> float_type, {2, 3, 4}, {12, 4, 1}
@7 = @return(@3, @6)
G
if "$GRAFT" opt "$tmp/predicates.txt" -r tests/dsl_pass/predicates.rules --verify -o "$tmp/predicates_out.txt" 2> "$tmp/predicates_run.err" &&
   grep -q "= relu(x)" "$tmp/predicates_out.txt" && [ "$(grep -c "= transpose" "$tmp/predicates_out.txt")" -eq 2 ]; then
    pass predicate_rules_run
elif grep -q -i "compiler" "$tmp/predicates_run.err"; then
    pass predicate_rules_run_skipped_no_compiler
else
    fail predicate_rules_run "$(head -3 "$tmp/predicates_run.err" "$tmp/predicates_out.txt")"
fi

# graft rules -p PIPELINE --list: each phase's rules with set and file:line,
# as the rule files say (the line of `rule NAME`), every rule of every set.
"$GRAFT" rules -p normalize --list > "$tmp/list.txt" 2> "$tmp/list.err"
st=$?
line=$(grep -n "^rule pad_into_convolution\b" rules/pad.rules | cut -d: -f1)
nrules=$(cat rules/fold.rules rules/pending.rules rules/pad.rules rules/reshape.rules | grep -c "^rule ")
"$GRAFT" rules -p normalize > /dev/null 2>&1
st_nolist=$?
if [ $st -eq 0 ] && [ "$(sed -n 1p "$tmp/list.txt")" = "phase 1 of 1: fold, pending, pad, reshape" ] &&
   grep -q "^  pad  *pad_into_convolution  *rules/pad.rules:$line\$" "$tmp/list.txt" &&
   grep -q "^  reshape  *unary_above_reshape  *rules/reshape.rules:[0-9]* (nonterminating)\$" "$tmp/list.txt" &&
   [ "$(grep -c '^  ' "$tmp/list.txt")" -eq "$nrules" ] &&
   [ "$(tail -1 "$tmp/list.txt")" = "$nrules rules in pipeline normalize" ] && [ $st_nolist -eq 2 ]; then
    pass rules_list_pipeline
else
    fail rules_list_pipeline "status $st/$st_nolist, $nrules rules expected: $(head -3 "$tmp/list.txt" "$tmp/list.err")"
fi

# --emit-c: the generated C names each rule and its file:line.
if "$GRAFT" rules rules/fold.rules --emit-c "$tmp/fold.c" >/dev/null &&
    grep -q 'rule identity_transpose at rules/fold.rules:[0-9]' "$tmp/fold.c" &&
    grep -q 'switch (r->op->code) {' "$tmp/fold.c"; then
    pass emit_c_names_rules
else
    fail emit_c_names_rules "emitted C lacks rule comments or the root switch"
fi

# The error cap: 25 rules with an unknown op give 20 error lines and a note.
i=0
: > "$tmp/many.rules"
while [ $i -lt 25 ]; do
    printf 'rule r%d\n    nosuchop(x)\n    => x\n\n' $i >> "$tmp/many.rules"
    i=$((i + 1))
done
"$GRAFT" rules "$tmp/many.rules" > /dev/null 2> "$tmp/many.err"
st=$?
if [ $st -eq 1 ] && [ "$(grep -c "unknown op 'nosuchop'" "$tmp/many.err")" -eq 20 ] &&
   [ "$(sed -n 1p "$tmp/many.err")" = "$tmp/many.rules:2:5: unknown op 'nosuchop'" ] &&
   [ "$(tail -1 "$tmp/many.err")" = "$tmp/many.rules: stopped after 20 errors" ]; then
    pass rules_error_cap
else
    fail rules_error_cap "exit $st: $(head -2 "$tmp/many.err" | tr '\n' ' ') ... $(tail -1 "$tmp/many.err")"
fi

# Usage errors exit 2.
"$GRAFT" rules >/dev/null 2>&1
st=$?
[ $st -eq 2 ] && pass rules_usage || fail rules_usage "exit $st without a file"
"$GRAFT" rules "$tmp/missing.rules" >/dev/null 2>&1
st=$?
[ $st -eq 1 ] && pass rules_missing_file || fail rules_missing_file "exit $st"

# fold end to end: transpose∘transpose, identity transpose, add of a
# broadcast zero all fold away.
cat > "$tmp/g.txt" <<'G'
module: "main"
x = @param:x -> float_type, {2, 3, 4}, {12, 4, 1}
@1 = transpose[permutation={1, 0, 2}](x)
@2 = transpose[permutation={1, 0, 2}](@1)
@3 = @literal{0, 0, 0, 0} -> float_type, {4}, {1}
@4 = multibroadcast[out_lens={2, 3, 4}](@3)
@5 = add(@4, @2)
@6 = relu(@5)
@7 = transpose[permutation={0, 1, 2}](@6)
@8 = @return(@7)
G
if "$GRAFT" opt "$tmp/g.txt" -p fold -o "$tmp/out.txt" >/dev/null 2>&1 &&
    [ "$(grep -c ' = ' "$tmp/out.txt")" -eq 3 ] && ! grep -q 'transpose\|add' "$tmp/out.txt"; then
    pass fold_end_to_end
else
    fail fold_end_to_end "$(cat "$tmp/out.txt" 2>/dev/null | tr '\n' ' ')"
fi

# pad end to end: zero pads fold into convolution, average pooling (with and
# without count_include_pad) and max pooling after relu; a pad of the channel
# axis stays. --verify compares with the original on the reference executor.
cat > "$tmp/pad.txt" <<'G'
module: "main"
x = @param:x -> float_type, {1, 2, 5, 5}, {50, 25, 5, 1}
w = @param:w -> float_type, {3, 2, 3, 3}, {18, 9, 3, 1}
@1 = pad[mode=0,pads={0, 0, 1, 2, 0, 0, 2, 1},value=0](x)
@2 = convolution[padding={1, 1},stride={1, 1},dilation={1, 1},group=1,padding_mode=0](@1, w)
@3 = pad[mode=0,pads={0, 0, 1, 1, 0, 0, 2, 0},value=0](x)
@4 = pooling[mode=average,padding={0, 0},stride={1, 1},lengths={2, 2},count_include_pad=0](@3)
@5 = relu(x)
@6 = pad[mode=0,pads={0, 0, 1, 1, 0, 0, 1, 1},value=0](@5)
@7 = pooling[mode=max,padding={0, 0},stride={2, 2},lengths={3, 3}](@6)
@8 = pad[mode=0,pads={0, 1, 1, 1, 0, 0, 1, 1},value=0](x)
@9 = pooling[mode=max,padding={0, 0},stride={1, 1},lengths={2, 2}](@8)
@10 = @return(@2, @4, @7, @9)
G
if "$GRAFT" opt "$tmp/pad.txt" -p pad --verify -o "$tmp/pad_out.txt" >/dev/null 2>&1 &&
    [ "$(grep -c '= pad\[' "$tmp/pad_out.txt")" -eq 1 ] &&
    grep -q 'convolution\[padding={2, 3, 3, 2}' "$tmp/pad_out.txt"; then
    pass pad_end_to_end
else
    fail pad_end_to_end "$(tr '\n' ' ' < "$tmp/pad_out.txt" 2>/dev/null)"
fi
