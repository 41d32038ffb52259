#!/bin/sh
# symbols.sh: the shipped libraries define, as global symbols, exactly the
# graft_* entry points include/graft.h declares (tools/exports.sh), so a host
# program's own `error_set` or `module_add` never meets graft's; the internal
# archive (for graft's own tests and tools) keeps everything, which also
# shows this check can fail.
#
# Environment (from tests/run.sh): TOP, BUILD. Prints "PASS name" or
# "FAIL name: why" per test.
TOP=${TOP:-.}
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/common.sh"

sh "$TOP/tools/exports.sh" list "$TOP/include/graft.h" | sort > "$t/want" ||
    { fail symbols_exports "tools/exports.sh failed"; exit 1; }

# defined_globals NM-OPTIONS FILE: the names of FILE's defined global symbols.
defined_globals() {
    nm $1 --defined-only "$2" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ { print $3 }' | sort -u
}

check_lib() { # NAME NM-OPTIONS FILE
    if [ ! -f "$3" ]; then
        fail "$1" "$3 is missing"
        return
    fi
    defined_globals "$2" "$3" > "$t/got"
    other=$(grep -v '^graft_' "$t/got" | head -5 | tr '\n' ' ')
    if [ -n "$other" ]; then
        fail "$1" "$(grep -vc '^graft_' "$t/got") global symbols without the graft_ prefix, e.g. $other"
    elif ! cmp -s "$t/want" "$t/got"; then
        fail "$1" "not graft.h's entry points: $(diff "$t/want" "$t/got" | grep '^[<>]' | head -5 | tr '\n' ' ')"
    else
        pass "$1"
    fi
}

check_lib symbols_static_library -g "$BUILD/libgraft.a"
check_lib symbols_shared_library -g "$BUILD/libgraft.so"
check_lib symbols_shared_library_dynamic -D "$BUILD/libgraft.so"

# The internal archive has graft's internals global: the check above sees them.
n=$(defined_globals -g "$BUILD/libgraft_internal.a" | grep -vc '^graft_')
if [ "$n" -gt 100 ]; then pass symbols_check_can_fail
else fail symbols_check_can_fail "only $n internal global symbols found in libgraft_internal.a"; fi
exit 0
