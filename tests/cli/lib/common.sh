# tests/cli/lib/common.sh: the prelude every shell test in tests/cli shares,
# sourced (". "$(dirname "$0")/lib/common.sh"") rather than run. It lives in
# lib/ so that tests/run.sh, which runs each tests/cli/*.sh as a test, does
# not pick it up.
#
# Sourcing it makes a scratch directory $t (removed on exit) and defines the
# reporting helpers below; each prints "PASS name" or "FAIL name: why", the
# one-line-per-test contract of tests/run.sh.
# GRAFT (the binary), TOP (the repository) and BUILD (the build directory)
# come from tests/run.sh; run bare from a checkout, a test finds them here.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$TOP/build}
GRAFT=${GRAFT:-$BUILD/graft}
export TOP BUILD GRAFT

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# expect NAME STATUS CMD...: runs CMD (stdout to $t/out, stderr to $t/err) and
# checks its exit status. Returns 0 when it matched.
expect() {
    name=$1 want=$2
    shift 2
    "$@" >"$t/out" 2>"$t/err"
    got=$?
    if [ "$got" -eq "$want" ]; then
        pass "$name"
        return 0
    fi
    fail "$name" "exit $got, expected $want; stderr: $(head -c 300 "$t/err" | tr '\n' ' ')"
    return 1
}

# has NAME FILE PATTERN: FILE contains a line matching the grep -E PATTERN.
has() {
    if grep -Eq -- "$3" "$2"; then pass "$1"; else
        fail "$1" "no line matching '$3' in: $(head -c 400 "$2" | tr '\n' ' ')"; fi
}

# checksum OUTPUT: the checksum graft run printed for OUTPUT in $t/out.
checksum() { sed -n "s/^ *$1: .*checksum \([0-9a-f]*\).*/\1/p" "$t/out"; }
