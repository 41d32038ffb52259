#!/bin/sh
# rules_check.sh: `graft rules FILE... --check` tests each rule for soundness
# (dsl/rule_check.h). Every shipped rule passes; a wrong rule and rules wrong only
# for some shapes (a transpose taken for a reshape, right only when a length
# is 1; a reshape that ignores the order a transpose gives) are caught with
# their counterexample, and the guarded form of the first is sound;
# a rule that never fires is "not checked", never sound; bad budgets are
# usage errors.
. "$(dirname "$0")/lib/common.sh"
tmp=$t
cd "$TOP" || exit 1

# Every shipped rule, at the default budget.
"$GRAFT" rules rules/*.rules --check > "$tmp/shipped.out" 2> "$tmp/shipped.err"
st=$?
summary=$(tail -n 1 "$tmp/shipped.out")
nrules=$(cat rules/*.rules | grep -c '^rule ')
if [ "$st" -ne 0 ]; then
    fail check_shipped "exit $st: $(grep -E 'UNSOUND|graft rules' "$tmp/shipped.out" "$tmp/shipped.err" | head -5 | tr '\n' ' ')"
elif ! echo "$summary" | grep -Eq "^$nrules rules checked: $nrules sound, 0 unsound; 0 not checked$"; then
    fail check_shipped "summary '$summary', expected all $nrules rules sound"
else
    pass check_shipped
fi
# each line says how often the rule fired among the graphs built
has check_shipped_fraction "$tmp/shipped.out" \
    '^rules/fold.rules:[0-9]+: rule add_zero: sound on [0-9]+ graphs \(fired on [0-9]+ of [0-9]+ built, [0-9.]+%; [0-9]+ candidates\)$'

cat > "$tmp/wrong.rules" <<'RULES'
# add is not sub
rule add_is_sub nonterminating
    add(x, y) => sub(x, y)

# right only when one length is 1: otherwise a transpose moves values
rule transpose_as_reshape nonterminating
    t = transpose[permutation={1, 0}](x) => reshape[dims = t.lens](x)

# right only when the transpose moves length-1 axes: a reshape reads the
# transposed values in row-major order, not x's
rule reshape_through_transpose nonterminating
    reshape[dims=d](transpose(x)) => reshape[dims=d](x)

rule double_negation
    neg(neg(x)) => x

rule never_fires
    r = relu(x) if r.rank > 100 => x
RULES
"$GRAFT" rules "$tmp/wrong.rules" --check > "$tmp/out" 2> "$tmp/err"
st=$?
if [ "$st" -eq 1 ]; then pass check_wrong_exit; else fail check_wrong_exit "exit $st, expected 1"; fi
has check_wrong_add "$tmp/out" "^$tmp/wrong.rules:2: rule add_is_sub: UNSOUND \(fired on [0-9]+ graphs, [0-9]+ differ; the smallest:\)$"
has check_wrong_stderr "$tmp/err" "^graft rules: rule add_is_sub at $tmp/wrong.rules:2 is unsound$"
has check_wrong_transpose "$tmp/out" "^$tmp/wrong.rules:6: rule transpose_as_reshape: UNSOUND"
has check_wrong_reshape "$tmp/out" "^$tmp/wrong.rules:11: rule reshape_through_transpose: UNSOUND"
has check_sound_rule "$tmp/out" "^$tmp/wrong.rules:14: rule double_negation: sound on 40 graphs"
has check_not_checked "$tmp/out" "^$tmp/wrong.rules:17: rule never_fires: not checked: it fired on none of [0-9]+ graphs"
has check_summary "$tmp/out" '^4 rules checked: 1 sound, 3 unsound; 1 not checked$'

# The counterexample of add_is_sub: the graph before (an add) and after (a
# sub), the inputs, both outputs and the first element that differs.
sed -n '/rule add_is_sub: UNSOUND/,/^[^ ]/p' "$tmp/out" > "$tmp/add.txt"
if grep -q '^  before:$' "$tmp/add.txt" && grep -Eq '^    @[0-9]+ = add\(' "$tmp/add.txt" &&
    grep -q '^  after:$' "$tmp/add.txt" && grep -Eq '^    @[0-9]+ = sub\(' "$tmp/add.txt" &&
    grep -q '^  inputs:$' "$tmp/add.txt" && grep -Eq '^  output0 before: [a-z0-9]+_type' "$tmp/add.txt" &&
    grep -Eq '^  output0 after:  [a-z0-9]+_type' "$tmp/add.txt" &&
    grep -Eq '^  first difference: output0 element [0-9]+: before .*, after ' "$tmp/add.txt"; then
    pass check_counterexample
else
    fail check_counterexample "$(head -c 600 "$tmp/add.txt" | tr '\n' '|')"
fi
# transpose_as_reshape is right when a length is 1, so its counterexample
# transposes a value whose two lengths are longer than 1.
sed -n '/rule transpose_as_reshape: UNSOUND/,/^[^ ]/p' "$tmp/out" > "$tmp/tr.txt"
if grep -Eq '^    [^ ]+ = @param:[^ ]+ -> [a-z0-9_]+, \{[2-9], [2-9]\}' "$tmp/tr.txt" ||
    grep -Eq '^    @[0-9]+ = transpose\[permutation=\{1, 0\}\]\([^)]*\) -> [a-z0-9_]+, \{[2-9], [2-9]\}' "$tmp/tr.txt"; then
    pass check_counterexample_shape
else
    fail check_counterexample_shape "$(head -c 600 "$tmp/tr.txt" | tr '\n' '|')"
fi

# The same rule guarded to the shapes where it holds is sound: the checker
# does not flag a rule for graphs its guard keeps it from.
cat > "$tmp/guarded.rules" <<'RULES'
rule transpose_as_reshape_guarded nonterminating
    t = transpose[permutation=p](x) if p == {1, 0} && moves_unit_axes_only(p, x.lens)
    => reshape[dims = t.lens](x)
RULES
"$GRAFT" rules "$tmp/guarded.rules" --check > "$tmp/out2" 2> "$tmp/err"
st=$?
if [ "$st" -eq 0 ] && grep -q 'rule transpose_as_reshape_guarded: sound on 40 graphs' "$tmp/out2"; then
    pass check_guarded_sound
else
    fail check_guarded_sound "exit $st: $(head -c 300 "$tmp/out2")"
fi

# Same seed, same report; a bigger budget and another seed are options.
"$GRAFT" rules "$tmp/wrong.rules" --check --check-candidates 3000 > "$tmp/a" 2>/dev/null
"$GRAFT" rules "$tmp/wrong.rules" --check --check-candidates 3000 > "$tmp/b" 2>/dev/null
if cmp -s "$tmp/a" "$tmp/b"; then pass check_deterministic; else fail check_deterministic "two runs differ"; fi
expect check_options 1 "$GRAFT" rules "$tmp/wrong.rules" --check --check-candidates 100 --check-fires 5 --seed 7
has check_options_fires "$t/out" "rule double_negation: sound on 5 graphs"
expect check_bad_budget 2 "$GRAFT" rules "$tmp/wrong.rules" --check --check-candidates 0
expect check_bad_seed 2 "$GRAFT" rules "$tmp/wrong.rules" --check --seed x
# --help mentions it
"$GRAFT" rules --help > "$tmp/help"
has check_help "$tmp/help" '^  --check '

# The wrong fold of pad_zero_into_max_pooling (before this checker found it)
# turned a window of padding only into -inf; `graft run --compare` must see
# that (an infinity is only close to itself: atol + rtol * |inf| let it pass).
cat > "$tmp/wrongfold.txt" <<'DUMP'
module: "main"
x = @param:x -> float_type, {1, 2, 5, 5}, {50, 25, 5, 1}
@0 = relu(x) -> float_type, {1, 2, 5, 5}, {50, 25, 5, 1}
@2 = pooling[mode=1,padding={1, 2, 3, 2},padding_mode=0,stride={1, 1},lengths={3, 3},dilations={1, 1},ceil_mode=0,count_include_pad=0,lp_order=2,dyn_global=0](@0) -> float_type, {1, 2, 7, 7}, {98, 49, 7, 1}
@3 = @return(@2)
DUMP
expect compare_infinity 1 "$GRAFT" run tests/golden/pad_zero_into_max_pooling.not_window_of_padding/before.txt \
    --compare "$tmp/wrongfold.txt"
has compare_infinity_line "$t/out" 'output0: max abs inf  max rel inf  FAIL'
