#!/bin/sh
# tests/cli/golden.sh: the before/after test of every shipped rule.
#
# tests/golden/NAME/ holds before.txt, after.txt and a one-line `pipeline`
# (a name for -p) or `rules` (a rule file, relative to the repository, for
# -r), and optionally `seed-order` (a number for --seed-order, for a guard
# that matters only in the visiting orders where a rival rewrite has not
# fired first). NAME is a rule of rules/*.rules, and then that rule must
# fire; or RULE.not_WHY, a case where RULE must NOT fire (after.txt shows
# what the rest of the pipeline makes of it, usually the canonical
# before.txt). Each directory is checked three ways:
#   1. `graft opt before.txt <pipeline> -o OUT` gives exactly after.txt;
#   2. the rule fired (or, for .not_ cases, did not): --stats json;
#   3. `graft run before.txt --compare OUT` agrees numerically on the
#      reference executor. A before.txt holding pending_shape_change ops
#      cannot run as it is: its reference is before.txt with only shape
#      resolution applied (`--max-rewrites 0`, which materialises them).
# Finally every rule named in rules/*.rules must have its own directory.
# Prints PASS golden/NAME or FAIL golden/NAME: why.
. "$(dirname "$0")/lib/common.sh"
tmp=$t
dir="$TOP/tests/golden"

# Every name here is reported as golden/NAME.
pass() { echo "PASS golden/$1"; }
fail() { echo "FAIL golden/$1: $2"; }

# The fires of rule $2 in the --stats json file $1 ("rules":{"NAME":N,...}).
fires_of() {
    sed 's/.*"rules":{\([^}]*\)}.*/\1/' "$1" | tr ',' '\n' | sed -n "s/^\"$2\":\([0-9]*\)$/\1/p"
}

for d in "$dir"/*/; do
    d=${d%/}
    name=$(basename "$d")
    rule=${name%%.*}
    if [ ! -f "$d/before.txt" ] || [ ! -f "$d/after.txt" ]; then
        fail "$name" "needs before.txt and after.txt"
        continue
    fi
    if [ -f "$d/pipeline" ]; then
        set -- -p "$(tr -d ' \n' < "$d/pipeline")"
    elif [ -f "$d/rules" ]; then
        set -- -r "$TOP/$(tr -d ' \n' < "$d/rules")"
    else
        fail "$name" "needs a pipeline or a rules file"
        continue
    fi
    if [ -f "$d/seed-order" ]; then
        set -- "$@" --seed-order "$(tr -d ' \n' < "$d/seed-order")"
    fi
    out="$tmp/$name.out"
    if ! "$GRAFT" opt "$d/before.txt" "$@" -o "$out" --stats json > "$tmp/$name.json" 2> "$tmp/err"; then
        fail "$name" "graft opt failed: $(head -3 "$tmp/err")"
        continue
    fi
    if ! diff "$d/after.txt" "$out" > "$tmp/diff" 2>&1; then
        fail "$name" "result differs from after.txt: $(grep '^[<>]' "$tmp/diff" | head -4 | tr '\n' ' ')"
        continue
    fi
    n=$(fires_of "$tmp/$name.json" "$rule")
    if [ -z "$n" ]; then
        fail "$name" "rule $rule is not in the pipeline's rule sets"
        continue
    fi
    case $name in
    *.not_*)
        if [ "$n" -ne 0 ]; then fail "$name" "rule $rule fired $n times; it must not"; continue; fi ;;
    *)
        if [ "$n" -eq 0 ]; then fail "$name" "rule $rule did not fire"; continue; fi ;;
    esac
    ref="$d/before.txt"
    if grep -q pending_shape_change "$ref"; then
        ref="$tmp/$name.ref"
        if ! "$GRAFT" opt "$d/before.txt" "$@" --max-rewrites 0 -o "$ref" > /dev/null 2> "$tmp/err"; then
            fail "$name" "materialising before.txt failed: $(head -3 "$tmp/err")"
            continue
        fi
    fi
    if ! "$GRAFT" run "$ref" --compare "$out" > "$tmp/run" 2>&1; then
        fail "$name" "numeric check failed: $(grep -v '^ *inputs' "$tmp/run" | tail -3 | tr '\n' ' ')"
        continue
    fi
    pass "$name"
done

# Every rule has a golden directory of its own name.
missing=""
for r in $(sed -n 's/^rule[ \t]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$TOP"/rules/*.rules); do
    [ -d "$dir/$r" ] || missing="$missing $r"
done
if [ -z "$missing" ]; then pass every_rule_has_a_golden_test
else fail every_rule_has_a_golden_test "no tests/golden/ directory for:$missing"; fi
