#!/bin/sh
# Runs every test in every build directory given (e.g. build build/san) and
# closes with "N passed, M failed". Each test prints one line: PASS name or
# FAIL name: why. Unit programs are tests/unit/*.c; shell tests are
# tests/cli/*.sh, run with GRAFT set to the build's graft binary. A build
# directory without a graft binary (build/tsan: the library and the threads
# test only, `make check-thread`) runs its programs and no shell tests.
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for b in "$@"; do
    label=$(basename "$b")
    for t in "$b"/tests/*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        if ! "$t" > "$log.out" 2>&1; then
            grep -q '^FAIL ' "$log.out" || echo "FAIL $name: exited with status $? without naming a failure" >> "$log.out"
        fi
        sed "s/^\(PASS\|FAIL\) /\1 [$label] $name\//" "$log.out" | grep -E '^(PASS|FAIL) ' >> "$log"
        grep -E '^(FAIL|==|.*runtime error|.*Sanitizer)' "$log.out" | grep -v '^FAIL' | head -20
    done
    for t in "$top"/tests/cli/*.sh; do
        [ -f "$t" ] && [ -x "$b/graft" ] || continue
        name=$(basename "$t" .sh)
        GRAFT="$top/$b/graft" TOP="$top" BUILD="$top/$b" sh "$t" > "$log.out" 2>&1
        st=$?
        [ $st -ne 0 ] && ! grep -q '^FAIL ' "$log.out" && echo "FAIL $name: exited with status $st" >> "$log.out"
        sed "s/^\(PASS\|FAIL\) /\1 [$label] $name\//" "$log.out" | grep -E '^(PASS|FAIL) ' >> "$log"
    done
done
rm -f "$log.out"
grep '^FAIL' "$log"
passed=$(grep -c '^PASS' "$log")
failed=$(grep -c '^FAIL' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
