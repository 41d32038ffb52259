#!/bin/sh
# mgx_import.sh: MIGraphX scripts and JSON through the graft command.
#
# The script of seed 000 is cut out of ../shared/seeds/000_*.txt at run time
# (the multi-line copy and the copy flattened onto one line; nothing from
# ../shared is committed) and must check, run, import to a dump, and run the
# same as that dump. examples/unet_groupnorm.py must do the same. A small
# JSON program written here goes through check, run and import; bad input
# exits 1 naming file:line:col.
#
# Environment (from tests/run.sh): GRAFT, TOP. Prints "PASS name" or
# "FAIL name: why" per test.
GRAFT=${GRAFT:-build/graft}
TOP=${TOP:-.}
. "$(dirname "$0")/lib/common.sh"

# ---- seed 000, both copies ----
seed=$(ls "$TOP"/../shared/seeds/000_*.txt 2>/dev/null | head -n 1)
if [ -z "$seed" ] || [ ! -r "$seed" ]; then
    fail seed_000_present "no $TOP/../shared/seeds/000_*.txt"
else
    pass seed_000_present
    awk '/^p = migraphx.program\(\)$/ { on = 1 } on { print } on && /^mmain.add_instruction\(/ { exit }' \
        "$seed" > "$t/seed_multi.py"
    grep '^p = migraphx.program() mmain' "$seed" | head -n 1 > "$t/seed_flat.py"
    [ "$(wc -l < "$t/seed_multi.py")" -eq 33 ] && pass seed_multi_extracted ||
        fail seed_multi_extracted "expected 33 lines, got $(wc -l < "$t/seed_multi.py")"
    [ "$(wc -l < "$t/seed_flat.py")" -eq 1 ] && [ "$(wc -c < "$t/seed_flat.py")" -gt 3000 ] &&
        pass seed_flat_extracted || fail seed_flat_extracted "no flattened copy found"
    sums=""
    for form in multi flat; do
        f="$t/seed_$form.py"
        expect "seed_${form}_check" 0 "$GRAFT" check "$f" &&
            has "seed_${form}_check_counts" "$t/out" '32 instructions: 1 param, 6 literals, 24 ops, 1 return'
        expect "seed_${form}_run" 0 "$GRAFT" run "$f" &&
            has "seed_${form}_run_output" "$t/out" 'output0: float_type \{2, 320, 64, 64\}'
        sums="$sums $(checksum output0)"
        expect "seed_${form}_import" 0 "$GRAFT" import "$f" -o "$t/seed_$form.txt" &&
            has "seed_${form}_import_dump" "$t/seed_$form.txt" '^@7 = convolution\[padding=\{1, 1, 1, 1\}'
        expect "seed_${form}_compare_dump" 0 "$GRAFT" run "$f" --compare "$t/seed_$form.txt" &&
            has "seed_${form}_compare_ok" "$t/out" 'output0: max abs 0 .* ok'
    done
    set -- $sums
    [ -n "$1" ] && [ "$1" = "$2" ] && pass seed_forms_same_numbers ||
        fail seed_forms_same_numbers "checksums '$1' vs '$2'"
    cmp -s "$t/seed_multi.txt" "$t/seed_flat.txt" && pass seed_forms_same_dump ||
        fail seed_forms_same_dump "the two copies import to different dumps"
fi

# ---- the example ----
ex="$TOP/examples/unet_groupnorm.py"
expect example_check 0 "$GRAFT" check "$ex"
expect example_run 0 "$GRAFT" run "$ex"
expect example_import 0 "$GRAFT" import "$ex" -o "$t/unet.txt" &&
    has example_import_says "$t/out" "wrote .*unet.txt: 32 instructions"
expect example_compare 0 "$GRAFT" run "$ex" --compare "$t/unet.txt"
expect example_dump_reads_back 0 "$GRAFT" check "$t/unet.txt"
expect example_print 0 "$GRAFT" print "$ex" && has example_print_return "$t/out" '^@31 = @return\(@30\)'

# ---- JSON ----
cat > "$t/prog.json" <<'EOF'
{"version": 7, "modules": {"main": {"name": "main", "nodes": [
 {"output": "x", "name": "@param", "operator": {"parameter": "x"},
  "shape": {"type": "float_type", "lens": [2, 3], "strides": [3, 1]}, "inputs": []},
 {"output": "@1", "name": "@literal", "operator": {},
  "literal": {"shape": {"type": "float_type", "lens": [3]}, "data": [1, 2, 3]}, "inputs": []},
 {"output": "@2", "name": "broadcast", "operator": {"axis": 1, "out_lens": [2, 3]}, "inputs": ["@1"]},
 {"output": "@3", "name": "mul", "operator": {}, "inputs": ["x", "@2"],
  "shape": {"type": "float_type", "lens": [2, 3], "strides": [3, 1]}},
 {"output": "@4", "name": "@return", "operator": {}, "inputs": ["@3"]}
]}}}
EOF
expect json_check 0 "$GRAFT" check "$t/prog.json" && has json_check_counts "$t/out" '5 instructions'
expect json_run 0 "$GRAFT" run "$t/prog.json" && has json_run_output "$t/out" 'output0: float_type \{2, 3\}'
expect json_import 0 "$GRAFT" import "$t/prog.json" -o "$t/prog.txt"
expect json_compare 0 "$GRAFT" run "$t/prog.json" --compare "$t/prog.txt"

# ---- bad input: exit 1, file:line:col ----
printf 'p = migraphx.program()\nm = p.get_main_module()\nx = m.add_parameter("x", migraphx.shape(type="float_type", lens=[4]))\ny = m.add_instruction(migraphx.op("frobnicate"), [x])\n' > "$t/bad_op.py"
expect bad_op_fails 1 "$GRAFT" check "$t/bad_op.py" &&
    has bad_op_named "$t/err" 'bad_op.py:4:35: unknown op .frobnicate.'
printf 'p = migraphx.program()\nm = p.get_main_module()\ny = m.add_instruction(migraphx.op("relu"), [nothing])\n' > "$t/bad_var.py"
expect bad_var_fails 1 "$GRAFT" run "$t/bad_var.py" &&
    has bad_var_named "$t/err" "bad_var.py:3:45: undefined variable 'nothing'"
printf 'p = migraphx.program()\nm = p.get_main_module(\n' > "$t/bad_syntax.py"
expect bad_syntax_fails 1 "$GRAFT" check "$t/bad_syntax.py" &&
    has bad_syntax_where "$t/err" 'bad_syntax.py:3:1: expected .*found end of file'
printf '{"modules": {"main": {"nodes": [1,]}}}' > "$t/bad.json"
expect bad_json_fails 1 "$GRAFT" check "$t/bad.json" &&
    has bad_json_where "$t/err" 'bad.json:1:35: expected a value'
rm -f "$t/none.txt"
expect bad_import_writes_nothing 1 "$GRAFT" import "$t/bad_op.py" -o "$t/none.txt" &&
    { [ ! -e "$t/none.txt" ] && pass bad_import_no_file || fail bad_import_no_file "file written"; }
