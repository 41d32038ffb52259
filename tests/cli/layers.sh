#!/bin/sh
# layers.sh: the directories are layers, and data flows one way
# (docs/architecture.md, "Layers"). A source file may include headers of its
# own layer and of the layers below it, never of one above:
#
#   0 include/  the public header (types and entry points, no implementation)
#   1 ir/       graph IR, shapes, attributes, arena, errors, files, the op-table interface
#   2 ops/      op definitions, reference kernels, tensors, the reference executor
#   3 import/   formats: the dump reader and writer, ONNX, MIGraphX
#   4 engine/   the worklist driver, rewrites, lazy shapes, CSE, DCE
#   5 dsl/      the rule compiler, the rule API, helpers, shipped pipelines
#   6 codegen/  HIP lowering
#   7 api/      graft.h's implementation
#   8 tools/    the graft command
#
# Every `#include "name.h"` is resolved to the directory that holds name.h
# (generated headers to the directory of their source); the Makefile puts
# every layer on the include path, so this check is what keeps the order.
# Header names are unique across layers, which the check also asserts.
# Prints one line per layer ("PASS layers/ir" or "FAIL layers/ir: ...").
TOP=${TOP:-.}
. "$(dirname "$0")/lib/common.sh"

LAYERS="include ir ops import engine dsl codegen api tools"

layer_of_dir() {
    n=0
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $n; return; }
        n=$((n + 1))
    done
    echo -1
}

# check_tree PREFIX TAG: checks the tree in the current directory, naming
# its tests PREFIXlayers/...
check_tree() {
    # Where each header lives: "name dir" lines. Generated headers come from a
    # .y (NAME.tab.h) or, for onnx.pb-c.h, from import/'s protobuf build.
    for l in $LAYERS; do
        [ -d "$l" ] || continue
        for h in "$l"/*.h; do [ -f "$h" ] && echo "$(basename "$h") $l"; done
        for y in "$l"/*.y; do [ -f "$y" ] && echo "$(basename "$y" .y).tab.h $l"; done
    done > "$t/headers$2"
    echo "onnx.pb-c.h import" >> "$t/headers$2"

    dups=$(cut -d' ' -f1 "$t/headers$2" | sort | uniq -d | tr '\n' ' ')
    if [ -n "$dups" ]; then fail "$1layers/unique-header-names" "in more than one layer: $dups"
    else pass "$1layers/unique-header-names"; fi

    for l in $LAYERS; do
        [ -d "$l" ] || continue
        mine=$(layer_of_dir "$l")
        bad=""
        for f in "$l"/*.c "$l"/*.h "$l"/*.re "$l"/*.y "$l"/*/*.c "$l"/*/*.h; do
            [ -f "$f" ] || continue
            for inc in $(sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f"); do
                base=$(basename "$inc")
                dir=$(awk -v h="$base" '$1 == h { print $2; exit }' "$t/headers$2")
                [ -n "$dir" ] || continue # a header outside the layers (tests/)
                theirs=$(layer_of_dir "$dir")
                if [ "$theirs" -gt "$mine" ]; then
                    bad="$bad $f includes $inc ($dir/, layer $theirs above $l/, layer $mine);"
                fi
            done
        done
        if [ -n "$bad" ]; then fail "$1layers/$l" "$bad"; else pass "$1layers/$l"; fi
    done
}

(cd "$TOP" && check_tree "" main) || exit 1

# The check must be able to fail: a tree where ir/ reaches up into engine/.
mkdir -p "$t/bad/ir" "$t/bad/engine"
printf '#include "driver.h"\n' > "$t/bad/ir/ir.c"
printf '/* driver */\n' > "$t/bad/engine/driver.h"
if (cd "$t/bad" && check_tree "" bad) | grep -q '^FAIL layers/ir: *ir/ir.c includes driver.h'; then
    pass "layers/check-detects-back-edge"
else
    fail "layers/check-detects-back-edge" "a planted ir/ -> engine/ include went unnoticed"
fi
